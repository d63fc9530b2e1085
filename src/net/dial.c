/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Dialing: where a host is (a --resolve rule, a literal, DNS), then one connection attempt
 * at a time down the list of its addresses, each failure kept for the sentence that ends a
 * dial no address answered. */
#include "net/dial.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <event2/util.h>

#include "brock.h"
#include "net/tls.h"
#include "util/alloc.h"

struct dial {
    struct dial_env env;
    const struct io_ops *io;
    int (*refuse)(void *arg, const struct sockaddr *sa, char *why, size_t size);
    void (*cb)(void *arg, struct bufferevent *bev, const char *why);
    void *arg;
    char host[BROCK_HOST_MAX];
    int port;
    struct dns_query *dns_q;
    struct dns_addr addrs[DNS_ADDRS_MAX]; /* DNS's answer, with the port */
    size_t n_addrs, next;                 /* and the next address to try */
    struct bufferevent *bev;              /* the attempt in progress */
    char addr[64];                        /* its address, for messages */
    struct event *later;                  /* reports a failure outside dial_start() */
    unsigned n_failed, n_unlisted;
    char last_why[128]; /* why the last attempt failed */
    char failures[512]; /* "ADDR: why; ADDR: why" */
    char why[BROCK_HOST_MAX + 768];
    int tls_failed;     /* the dial ended at a TLS handshake */
    int taken;          /* refuse said DIAL_TAKEN */
    struct dns_addr at; /* dial_start_at(): the one address; at.len 0: none */
};

/* ---- the end ---- */

static void dial_free(struct dial *d)
{
    dns_cancel(d->dns_q);
    if (d->bev)
        bufferevent_free(d->bev);
    if (d->later)
        event_free(d->later);
    mem_free(d);
}

int dial_tls_failed(const struct dial *d)
{
    return d->tls_failed;
}

void dial_cancel(struct dial *d)
{
    if (d)
        dial_free(d);
}

static void on_later(evutil_socket_t fd, short what, void *arg)
{
    struct dial *d = arg;

    (void)fd;
    (void)what;
    d->cb(d->arg, NULL, d->taken ? NULL : d->why);
    dial_free(d);
}

static void fail(struct dial *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The caller may be inside dial_start() or the resolver: the callback runs at the loop's
 * next turn. */
static void fail(struct dial *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(d->why, sizeof(d->why), fmt, ap);
    va_end(ap);
    event_active(d->later, EV_TIMEOUT, 0);
}

/* No address answered: the one that failed, or each of them. */
static void fail_connect(struct dial *d)
{
    if (d->n_failed == 0)
        fail(d, "brock could not connect to %s: no address to connect to", d->host);
    else if (d->n_failed == 1)
        fail(d, "brock could not connect to %s (%s): %s", d->host, d->addr, d->last_why);
    else
        fail(d, "brock could not connect to %s: none of its %u addresses answered (%s%s)", d->host,
             d->n_failed, d->failures, d->n_unlisted ? "; ..." : "");
}

static void note_failure(struct dial *d, const char *why)
{
    size_t have = strlen(d->failures);
    int n;

    snprintf(d->last_why, sizeof(d->last_why), "%s", why);
    d->n_failed++;
    n = snprintf(d->failures + have, sizeof(d->failures) - have, "%s%s: %s", have ? "; " : "",
                 d->addr, why);
    if (n < 0 || (size_t)n >= sizeof(d->failures) - have) {
        /* Kept whole or not at all: the list ends with "..." instead. */
        d->failures[have] = '\0';
        d->n_unlisted++;
    }
}

/* ---- connecting ---- */

/* ADDR:PORT, [V6ADDR]:PORT, as messages name an address. */
static void format_addr(const struct sockaddr *sa, char *out, size_t size)
{
    char ip[INET6_ADDRSTRLEN];

    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;

        if (evutil_inet_ntop(AF_INET, &v4->sin_addr, ip, sizeof(ip))) {
            snprintf(out, size, "%s:%d", ip, ntohs(v4->sin_port));
            return;
        }
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;

        if (evutil_inet_ntop(AF_INET6, &v6->sin6_addr, ip, sizeof(ip))) {
            snprintf(out, size, "[%s]:%d", ip, ntohs(v6->sin6_port));
            return;
        }
    }
    snprintf(out, size, "an address");
}

static void try_next(struct dial *d);

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    struct dial *d = arg;
    int err = EVUTIL_SOCKET_ERROR();

    if (what & BEV_EVENT_CONNECTED) {
        d->bev = NULL;
        bufferevent_setcb(bev, NULL, NULL, NULL, NULL);
        d->cb(d->arg, bev, NULL);
        dial_free(d);
        return;
    }
    if (!(what & (BEV_EVENT_ERROR | BEV_EVENT_EOF)))
        return;
    if (d->io->tls && tls_error_describe(bev, d->host, d->why, sizeof(d->why))) {
        d->tls_failed = 1;
        bufferevent_free(bev);
        d->bev = NULL;
        event_active(d->later, EV_TIMEOUT, 0);
        return;
    }
    note_failure(d, err ? evutil_socket_error_to_string(err) : "connection closed");
    bufferevent_free(bev);
    d->bev = NULL;
    try_next(d);
}

/* The caller holds a connection to the address: the dial ends without one. */
static void taken(struct dial *d)
{
    d->taken = 1;
    event_active(d->later, EV_TIMEOUT, 0);
}

/* Whether the caller holds a connection to one of the addresses DNS answered. */
static int taken_any(struct dial *d)
{
    char why[160];

    if (!d->refuse)
        return 0;
    for (size_t i = 0; i < d->n_addrs; i++) {
        if (d->refuse(d->arg, &d->addrs[i].u.sa, why, sizeof(why)) == DIAL_TAKEN) {
            taken(d);
            return 1;
        }
    }
    return 0;
}

/* Starts an attempt at sa, or ends the dial when the caller holds a connection to it.
 * Returns 0, or -1 with the failure noted. */
static int connect_one(struct dial *d, const struct sockaddr *sa, int len)
{
    char why[160];
    void *open_arg = NULL;
    struct bufferevent *bev;

    format_addr(sa, d->addr, sizeof(d->addr));
    if (d->refuse) {
        int no = d->refuse(d->arg, sa, why, sizeof(why));

        if (no == DIAL_TAKEN) {
            taken(d);
            return 0;
        }
        if (no) {
            note_failure(d, why);
            return -1;
        }
    }
    if (d->io->tls && !(open_arg = tls_upstream_ssl_new(d->env.tls, d->host, d->port))) {
        note_failure(d, "out of memory");
        return -1;
    }
    /* SSL_set_alpn_protos() returns 0 on success, unlike the rest of OpenSSL. */
    if (open_arg && d->env.alpn && SSL_set_alpn_protos(open_arg, d->env.alpn, d->env.alpn_len)) {
        SSL_free(open_arg);
        note_failure(d, "out of memory");
        return -1;
    }
    bev = d->io->open(d->env.base, -1, open_arg);
    if (!bev) {
        note_failure(d, "out of memory");
        return -1;
    }
    bufferevent_setcb(bev, NULL, NULL, on_event, d);
    if (d->io->connect(bev, sa, len) < 0) {
        int e = errno;

        /* Nothing was started: the bufferevent is still ours. */
        bufferevent_free(bev);
        note_failure(d, strerror(e));
        return -1;
    }
    d->bev = bev;
    return 0;
}

static void try_next(struct dial *d)
{
    while (d->next < d->n_addrs) {
        const struct dns_addr *a = &d->addrs[d->next++];

        if (connect_one(d, &a->u.sa, (int)a->len) == 0)
            return;
    }
    fail_connect(d);
}

/* DNS's answer, from the cache (inside dial_start()) or the network: its addresses are
 * copied with the port before anyone hears of them. */
static void use_answer(struct dial *d, const struct dns_answer *a)
{
    if (a->status || !a->n_addrs) {
        fail(d, "brock could not resolve %s: %s", d->host,
             a->status ? dial_eai_text(a->status) : "no address");
        return;
    }
    for (size_t i = 0; i < a->n_addrs && i < DNS_ADDRS_MAX; i++) {
        struct dns_addr *to = &d->addrs[d->n_addrs++];

        *to = a->addrs[i];
        if (to->u.sa.sa_family == AF_INET)
            to->u.v4.sin_port = htons((uint16_t)d->port);
        else
            to->u.v6.sin6_port = htons((uint16_t)d->port);
    }
    if (d->env.names)
        d->env.names(d->arg, d->host, a);
    if (!taken_any(d))
        try_next(d);
}

static void on_resolved(void *arg, const struct dns_answer *a)
{
    struct dial *d = arg;

    d->dns_q = NULL;
    use_answer(d, a);
}

/* Where host is, in brock's order: a --resolve rule, a literal, DNS. */
static void locate(struct dial *d)
{
    const struct resolve_rule *rule =
        d->env.resolve ? resolve_find(d->env.resolve, d->host, d->port) : NULL;
    const struct dns_answer *a;
    struct sockaddr_storage ss;
    int len;

    if (d->at.len) {
        if (connect_one(d, &d->at.u.sa, (int)d->at.len) < 0)
            fail_connect(d);
        return;
    }
    if (rule) {
        if (connect_one(d, (const struct sockaddr *)&rule->addr, rule->addr_len) < 0)
            fail_connect(d);
        return;
    }
    /* A literal needs no resolver, and must not be hidden by AI_ADDRCONFIG (which drops ::1
     * on a machine without other IPv6 addresses). */
    if (resolve_literal(d->host, d->port, &ss, &len)) {
        if (connect_one(d, (const struct sockaddr *)&ss, len) < 0)
            fail_connect(d);
        return;
    }
    if (!d->env.dns) {
        fail(d, "brock could not resolve %s: it has no DNS resolver (no /etc/resolv.conf?)",
             d->host);
        return;
    }
    /* An answer cached is used at once: no query, no turn of the loop. */
    a = dns_cached(d->env.dns, d->host);
    if (a) {
        use_answer(d, a);
        return;
    }
    if (dns_lookup(d->env.dns, d->host, on_resolved, d, &d->dns_q) < 0)
        fail(d, "brock could not resolve %s: %s", d->host, dial_eai_text(EVUTIL_EAI_MEMORY));
}

static int dial_begin(const struct dial_env *env, const struct dns_addr *at, const char *host,
                      int port, const struct io_ops *io,
                      int (*refuse)(void *arg, const struct sockaddr *sa, char *why, size_t size),
                      void (*cb)(void *arg, struct bufferevent *bev, const char *why), void *arg,
                      struct dial **out)
{
    struct dial *d;

    if (out)
        *out = NULL;
    if (strlen(host) >= BROCK_HOST_MAX || (io->tls && !env->tls))
        return -1;
    d = mem_calloc(1, sizeof(*d));
    if (!d)
        return -1;
    d->env = *env;
    d->io = io;
    d->refuse = refuse;
    d->cb = cb;
    d->arg = arg;
    d->port = port;
    if (at)
        d->at = *at;
    snprintf(d->host, sizeof(d->host), "%s", host);
    d->later = event_new(env->base, -1, 0, on_later, d);
    if (!d->later) {
        mem_free(d);
        return -1;
    }
    locate(d);
    if (out)
        *out = d;
    return 0;
}

int dial_start(const struct dial_env *env, const char *host, int port, const struct io_ops *io,
               int (*refuse)(void *arg, const struct sockaddr *sa, char *why, size_t size),
               void (*cb)(void *arg, struct bufferevent *bev, const char *why), void *arg,
               struct dial **out)
{
    return dial_begin(env, NULL, host, port, io, refuse, cb, arg, out);
}

int dial_start_at(const struct dial_env *env, const struct dns_addr *at, const char *host,
                  const struct io_ops *io,
                  int (*refuse)(void *arg, const struct sockaddr *sa, char *why, size_t size),
                  void (*cb)(void *arg, struct bufferevent *bev, const char *why), void *arg,
                  struct dial **out)
{
    int port = at->u.sa.sa_family == AF_INET ? ntohs(at->u.v4.sin_port) : ntohs(at->u.v6.sin6_port);

    if (at->len == 0 || at->len > sizeof(at->u) ||
        (at->u.sa.sa_family != AF_INET && at->u.sa.sa_family != AF_INET6)) {
        if (out)
            *out = NULL;
        return -1;
    }
    return dial_begin(env, at, host, port, io, refuse, cb, arg, out);
}

/* ---- resolver words ---- */

int dial_dns_server(const char *spec, struct sockaddr_storage *ss, int *len)
{
    *len = (int)sizeof(*ss);
    /* libevent's parser takes literals alone (a name would need a resolver) and a port that
     * may be left out, which a name server must not. */
    if (evutil_parse_sockaddr_port(spec, (struct sockaddr *)ss, len) < 0)
        return -1;
    if (ss->ss_family == AF_INET)
        return ((struct sockaddr_in *)ss)->sin_port ? 0 : -1;
    if (ss->ss_family == AF_INET6)
        return ((struct sockaddr_in6 *)ss)->sin6_port ? 0 : -1;
    return -1;
}

const char *dial_eai_text(int eai)
{
    /* libevent words these as the BSDs do ("nodename nor servname provided, or not known");
     * brock runs on Linux, where every other program says what glibc says. */
    switch (eai) {
    case 0: return "Success";
    case EVUTIL_EAI_NONAME: return "Name or service not known";
    case EVUTIL_EAI_AGAIN: return "Temporary failure in name resolution";
    case EVUTIL_EAI_FAIL: return "Non-recoverable failure in name resolution";
    case EVUTIL_EAI_NODATA: return "No address associated with hostname";
    case EVUTIL_EAI_ADDRFAMILY: return "Address family for hostname not supported";
    case EVUTIL_EAI_FAMILY: return "ai_family not supported";
    case EVUTIL_EAI_SOCKTYPE: return "ai_socktype not supported";
    case EVUTIL_EAI_SERVICE: return "Servname not supported for ai_socktype";
    case EVUTIL_EAI_BADFLAGS: return "Bad value for ai_flags";
    case EVUTIL_EAI_MEMORY: return "Memory allocation failure";
    case EVUTIL_EAI_SYSTEM: return "System error";
    case EVUTIL_EAI_CANCEL: return "Request canceled";
    default: return evutil_gai_strerror(eai);
    }
}
