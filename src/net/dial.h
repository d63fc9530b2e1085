/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One way to connect out, for the proxy's upstreams and brock's own fetches alike: a
 * --resolve rule first, then an address literal, then DNS; then each address in turn until
 * one connects, over the transport asked for. */
#ifndef BROCK_NET_DIAL_H
#define BROCK_NET_DIAL_H

#include <stddef.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#include "net/dns.h"
#include "net/io.h"
#include "net/resolve.h"

/* What every dial borrows; it must outlive them all. */
struct dial_env {
    struct event_base *base;
    struct dns *dns;                     /* NULL: --resolve rules and address literals only */
    const struct resolve_table *resolve; /* the --resolve rules; NULL: none */
    SSL_CTX *tls;                        /* verifies servers over io_tls (tls_upstream_ctx_new) */
    /* The protocols offered over io_tls with ALPN, in its wire format (each name after its
     * length byte), alpn_len bytes; NULL: no ALPN. */
    const unsigned char *alpn;
    unsigned alpn_len;
    /* When not NULL, told what DNS answered for a dial's host (from the cache or the
     * network), with the dial's arg, once, before refuse hears of any address: a is borrowed
     * for the call, and has at least one address (a name that did not resolve ends the dial
     * without it); its chain is the host's CNAMEs. A --resolve rule or a literal asks no DNS
     * and is not told. It may run inside dial_start(), as refuse may, and must not cancel the
     * dial (have refuse say no to its addresses instead). */
    void (*names)(void *arg, const char *host, const struct dns_answer *a);
};

struct dial;

/* Starts connecting to host (normalised: a name, or an address literal without brackets) on
 * port, over io: io_tcp, or io_tls, which verifies the server for host with env->tls. env is
 * copied; host too. refuse, when not NULL, is asked before each address is tried: nonzero
 * skips it, with a reason written into why (size bytes) that the failure sentence quotes;
 * DIAL_TAKEN ends the dial instead, without a connection (the caller has one to that address
 * already). Of the addresses DNS answered, every one is asked before the first is tried, so
 * that any of them may be the one the caller holds (only DIAL_TAKEN counts then), and each
 * again as it is tried.
 * cb runs exactly once, never before dial_start() returns, unless the dial is cancelled:
 * with a connected bufferevent (handed over: set its callbacks at once; for io_tls the
 * handshake and the certificate check are done) and why NULL; or with bev NULL and why a
 * sentence saying why not, borrowed for the call (the name did not resolve; no address
 * answered, each named with its error; TLS failed, which ends the dial: another address of
 * the same name would fail the same way); or, after refuse said DIAL_TAKEN, with both NULL.
 * The dial frees itself after cb. Returns 0 and the dial in *out (out may be NULL), or -1
 * when out of memory (cb is then never called). */
#define DIAL_TAKEN (-1)

int dial_start(const struct dial_env *env, const char *host, int port, const struct io_ops *io,
               int (*refuse)(void *arg, const struct sockaddr *sa, char *why, size_t size),
               void (*cb)(void *arg, struct bufferevent *bev, const char *why), void *arg,
               struct dial **out) __attribute__((warn_unused_result));

/* As dial_start(), but to the one address at (with its port), whatever DNS or a --resolve
 * rule would say of host: host only names the server (TLS verifies it for host) and the
 * dial's messages. names is not told. For a connection redirected to brock, whose client
 * chose the address itself. Returns -1 also when at is no IPv4 or IPv6 address. */
int dial_start_at(const struct dial_env *env, const struct dns_addr *at, const char *host,
                  const struct io_ops *io,
                  int (*refuse)(void *arg, const struct sockaddr *sa, char *why, size_t size),
                  void (*cb)(void *arg, struct bufferevent *bev, const char *why), void *arg,
                  struct dial **out) __attribute__((warn_unused_result));

/* Whether d, whose callback is running with bev NULL, failed at the TLS handshake (a
 * certificate that did not verify, a server that spoke no TLS) rather than connecting. */
int dial_tls_failed(const struct dial *d);

/* Stops a dial whose callback has not run; it never will. NULL is a no-op. */
void dial_cancel(struct dial *d);

/* A name server's address, spec "ADDR:PORT" or "[V6]:PORT" (an address literal and a port,
 * not 0), into *ss and *len. Returns 0, or -1. */
int dial_dns_server(const char *spec, struct sockaddr_storage *ss, int *len);

/* What a resolver error (an EVUTIL_EAI_* code, as struct dns_answer reports it) means, in
 * the C library's words on Linux ("Name or service not known"), whatever libevent's own
 * texts say. A static string. */
const char *dial_eai_text(int eai);

#endif
