/* SPDX-License-Identifier: GPL-3.0-or-later */
/* brock's resolver: c-ares on brock's event loop, behind a small cache of answers. An answer
 * holds a name's addresses and its CNAME chain (the names DNS went through from the host to
 * them), both from the one look-up: asking for the chain costs no query of its own. */
#ifndef BROCK_NET_DNS_H
#define BROCK_NET_DNS_H

#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <event2/event.h>

#define DNS_ADDRS_MAX 16   /* the addresses an answer keeps, the first in c-ares' order */
#define DNS_CHAIN_MAX 8    /* the names of a CNAME chain an answer keeps */
#define DNS_NAME_MAX 256   /* a name's text with its NUL */
#define DNS_CACHE_MAX 2048 /* the names the cache keeps */
#define DNS_TTL_MIN 5      /* seconds an answer is kept at least, whatever its TTL */
#define DNS_TTL_MAX 3600   /* and at most */
#define DNS_FAILED_TTL 5   /* seconds a name that does not exist, or has no address, is kept */

struct dns;
struct dns_query;
struct ares_addrinfo_cname;

/* One address of an answer, for a TCP connection; its port is 0. */
struct dns_addr {
    union {
        struct sockaddr sa;
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } u;
    socklen_t len;
};

/* What DNS said about a name. status is 0, with at least one address, or an EVUTIL_EAI_*
 * code (dial_eai_text() words it) with neither addresses nor chain. The addresses are IPv4
 * and IPv6 alike, in c-ares' order (RFC 6724's: the ones this machine can reach first). The
 * chain is the names after the host, in the order DNS followed them (host -> chain[0] ->
 * chain[1] ...), lower-cased and without a trailing dot; empty when the host is no alias.
 * ttl is the smallest TTL of the addresses and the chain's records, in seconds (0 for a
 * failure, or a name from /etc/hosts). */
struct dns_answer {
    int status;
    unsigned ttl;
    size_t n_addrs;
    const struct dns_addr *addrs;
    size_t n_chain;
    const char *const *chain;
};

/* A resolver on base. With n 0 it is the system's: the name servers and search domains of
 * /etc/resolv.conf (c-ares' defaults without one, so that /etc/hosts, --resolve rules and
 * literals still work) after /etc/hosts. Otherwise it asks only the n servers, each "ADDR:PORT"
 * or "[V6]:PORT" (dial_dns_server()), after /etc/hosts, with no search domain. servers is
 * read during the call. Returns a new resolver (dns_free()), or NULL with a sentence in err
 * (errlen bytes): a server that is not ADDR:PORT, c-ares failing to start, out of memory. */
struct dns *dns_new(struct event_base *base, const char *const *servers, size_t n, char *err,
                    size_t errlen) __attribute__((warn_unused_result));

/* Frees r, its cache and its sockets; look-ups still waiting never call back, and their
 * handles are freed with it. Call it before freeing r's event base. NULL is a no-op. */
void dns_free(struct dns *r);

/* Looks host up (a name, not a literal; case and a trailing dot do not matter): from the
 * cache when it holds a fresh answer, else from the query already asking for the same name,
 * else from a new one. cb runs exactly once, never before dns_lookup() returns, unless the
 * look-up is cancelled first; a is borrowed for the call. Returns 0 and the look-up in *out
 * (out may be NULL), valid until its callback runs or it is cancelled; or -1 when out of
 * memory or host is longer than DNS_NAME_MAX - 1 bytes (cb is then never called). */
int dns_lookup(struct dns *r, const char *host, void (*cb)(void *arg, const struct dns_answer *a),
               void *arg, struct dns_query **out) __attribute__((warn_unused_result));

/* Stops a look-up whose callback has not run; it never will. The query to the name server
 * goes on, and its answer is still cached. NULL is a no-op. */
void dns_cancel(struct dns_query *q);

/* The cache's fresh answer for host, failures included, or NULL; never asks DNS. The answer
 * is borrowed until the next call to r or the next turn of its loop. */
const struct dns_answer *dns_cached(struct dns *r, const char *host);

/* The CNAME chain of host in cnames (c-ares' records, ares_addrinfo's cnames): from host,
 * each record whose alias is the name reached gives the next name, until none does, a name
 * comes back (a loop), or DNS_CHAIN_MAX names are found. Names compare without case or a
 * trailing dot, and are written lower-cased, without it, into chain. *ttl is lowered to the
 * smallest TTL of the records followed. Returns the number of names in chain. */
size_t dns_chain_build(const char *host, const struct ares_addrinfo_cname *cnames,
                       char chain[DNS_CHAIN_MAX][DNS_NAME_MAX], int *ttl);

#endif
