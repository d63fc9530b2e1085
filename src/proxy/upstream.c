/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Connections to origins: --resolve first, then asynchronous DNS, then each address in turn;
 * and the pool of idle keep-alive connections, per host and port, that requests reuse. */
#include "proxy/access.h"
#include "proxy/conn.h"

#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>

#include "proxy/limits.h"
#include "net/tls.h"
#include "util/alloc.h"

struct pool_entry {
    struct pool_entry *next, *prev;
    struct proxy *px;
    char key[BROCK_HOST_MAX + 16];
    struct bufferevent *bev;
    const struct io_ops *io;
};

/* ---- the pool ---- */

static void pool_unlink(struct pool_entry *p)
{
    struct proxy *px = p->px;

    if (p->prev)
        p->prev->next = p->next;
    else
        px->pool = p->next;
    if (p->next)
        p->next->prev = p->prev;
    px->n_pool--;
}

static void pool_drop(struct pool_entry *p)
{
    pool_unlink(p);
    bufferevent_free(p->bev);
    mem_free(p);
}

/* An idle connection that speaks, closes or times out is of no more use. */
static void pool_on_read(struct bufferevent *bev, void *arg)
{
    (void)bev;
    pool_drop(arg);
}

static void pool_on_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    (void)what;
    pool_drop(arg);
}

static void pool_key(const struct conn *c, char *key, size_t size)
{
    /* A TLS connection is never reused for plain requests, nor the other way. */
    snprintf(key, size, "%s%s:%d", c->c_ex.is_https ? "https:" : "", c->c_ex.host, c->c_ex.port);
}

static struct pool_entry *pool_take(struct proxy *px, const char *key)
{
    for (struct pool_entry *p = px->pool; p; p = p->next) {
        if (strcmp(p->key, key) == 0) {
            pool_unlink(p);
            return p;
        }
    }
    return NULL;
}

static void pool_put(struct conn *c)
{
    struct proxy *px = c->px;
    struct pool_entry *p, *last = NULL, *oldest_same = NULL;
    size_t same = 0;
    struct timeval idle = {TIMEOUT_POOL_IDLE, 0};

    p = mem_calloc(1, sizeof(*p));
    if (!p) {
        bufferevent_free(c->c_up.bev);
        return;
    }
    pool_key(c, p->key, sizeof(p->key));
    for (struct pool_entry *q = px->pool; q; q = q->next) {
        if (strcmp(q->key, p->key) == 0) {
            same++;
            oldest_same = q;
        }
        last = q;
    }
    if (same >= LIMIT_POOL_PER_HOST)
        pool_drop(oldest_same);
    else if (px->n_pool >= LIMIT_POOL_TOTAL && last)
        pool_drop(last);
    p->px = px;
    p->bev = c->c_up.bev;
    p->io = c->c_up.io;
    bufferevent_setcb(p->bev, pool_on_read, NULL, pool_on_event, p);
    bufferevent_set_timeouts(p->bev, &idle, NULL);
    bufferevent_enable(p->bev, EV_READ);
    p->next = px->pool;
    if (px->pool)
        px->pool->prev = p;
    px->pool = p;
    px->n_pool++;
}

void pool_cleanup(struct proxy *px)
{
    while (px->pool)
        pool_drop(px->pool);
}

void upstream_release(struct conn *c, int reusable)
{
    struct bufferevent *bev = c->c_up.bev;

    if (!bev)
        return;
    if (reusable && evbuffer_get_length(bufferevent_get_input(bev)) == 0 &&
        evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
        pool_put(c);
    } else {
        bufferevent_free(bev);
    }
    c->c_up.bev = NULL;
}

/* ---- connecting ---- */

static void try_next(struct conn *c);

static void connect_failed(struct conn *c)
{
    char why[BROCK_HOST_MAX + 256];

    snprintf(why, sizeof(why), "brock could not connect to %s: %s", c->c_ex.authority,
             c->connect_err[0] ? c->connect_err : "no address to connect to");
    conn_upstream_failed(c, 502, why);
}

static void on_connect_event(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;

    (void)bev;
    if (what & BEV_EVENT_CONNECTED) {
        if (c->ai) {
            evutil_freeaddrinfo(c->ai);
            c->ai = c->ai_next = NULL;
        }
        conn_upstream_ready(c);
        return;
    }
    if (what & (BEV_EVENT_ERROR | BEV_EVENT_EOF)) {
        int err = EVUTIL_SOCKET_ERROR();
        char why[BROCK_HOST_MAX + 256];

        if (c->c_up.io == &io_tls && tls_error_describe(bev, c->c_ex.host, why, sizeof(why))) {
            /* A certificate that does not verify is the same on every address. */
            bufferevent_free(c->c_up.bev);
            c->c_up.bev = NULL;
            upstream_cancel(c);
            conn_upstream_failed(c, 502, why);
            return;
        }
        snprintf(c->connect_err, sizeof(c->connect_err), "%s",
                 err ? evutil_socket_error_to_string(err) : "connection closed");
        bufferevent_free(c->c_up.bev);
        c->c_up.bev = NULL;
        try_next(c);
    }
}

/* ---- brock's own address ---- */

/* Whether addr is one of this machine's interface addresses. Asked only for a target on
 * brock's own port, so the interface list is read rarely. */
static int is_local_interface(const struct sockaddr *sa)
{
    struct ifaddrs *all = NULL;
    int found = 0;

    if (getifaddrs(&all) < 0)
        return 0;
    for (struct ifaddrs *i = all; i && !found; i = i->ifa_next) {
        struct sockaddr_storage ss;

        if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
                             i->ifa_addr->sa_family != AF_INET6))
            continue;
        memset(&ss, 0, sizeof(ss));
        memcpy(&ss, i->ifa_addr, i->ifa_addr->sa_family == AF_INET
                                     ? sizeof(struct sockaddr_in)
                                     : sizeof(struct sockaddr_in6));
        /* Compare addresses only: give the interface address the target's port. */
        if (ss.ss_family == AF_INET)
            ((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)access_port(sa));
        else
            ((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)access_port(sa));
        found = access_same_endpoint((const struct sockaddr *)&ss, sa);
    }
    freeifaddrs(all);
    return found;
}

int upstream_is_self(const struct proxy *px, const struct sockaddr *sa)
{
    const struct sockaddr *l = (const struct sockaddr *)&px->listen_addr;
    struct sockaddr_storage lo;

    if (access_port(sa) == 0 || access_port(sa) != access_port(l))
        return 0;
    if (access_is_wildcard(l))
        return access_is_loopback(sa) || access_is_wildcard(sa) || is_local_interface(sa);
    if (access_is_wildcard(sa)) {
        /* Connecting to 0.0.0.0 or :: reaches the loopback address of its family. */
        memset(&lo, 0, sizeof(lo));
        lo.ss_family = sa->sa_family;
        if (sa->sa_family == AF_INET) {
            ((struct sockaddr_in *)&lo)->sin_addr.s_addr = htonl(0x7f000001);
            ((struct sockaddr_in *)&lo)->sin_port = htons((uint16_t)access_port(sa));
        } else {
            ((struct sockaddr_in6 *)&lo)->sin6_addr.s6_addr[15] = 1;
            ((struct sockaddr_in6 *)&lo)->sin6_port = htons((uint16_t)access_port(sa));
        }
        sa = (const struct sockaddr *)&lo;
    }
    return access_same_endpoint(sa, l);
}

static int numeric_addr(const char *host, int port, struct sockaddr_storage *ss, int *len);

int upstream_names_self(const struct conn *c)
{
    const struct resolve_rule *rule = resolve_find(&c->px->resolve, c->c_ex.host, c->c_ex.port);
    struct sockaddr_storage ss;
    size_t hl = strlen(c->c_ex.host);
    int len;

    if (rule)
        return upstream_is_self(c->px, (const struct sockaddr *)&rule->addr);
    if (numeric_addr(c->c_ex.host, c->c_ex.port, &ss, &len))
        return upstream_is_self(c->px, (const struct sockaddr *)&ss);
    /* localhost and its subdomains are loopback whatever DNS says (RFC 6761). */
    if (!strcasecmp(c->c_ex.host, "localhost") ||
        (hl > 10 && !strcasecmp(c->c_ex.host + hl - 10, ".localhost"))) {
        return (numeric_addr("127.0.0.1", c->c_ex.port, &ss, &len) &&
                upstream_is_self(c->px, (const struct sockaddr *)&ss)) ||
               (numeric_addr("::1", c->c_ex.port, &ss, &len) &&
                upstream_is_self(c->px, (const struct sockaddr *)&ss));
    }
    return 0;
}

/* Starts a connection to sa; 0, or -1 (connect_err says why). */
static int connect_to(struct conn *c, const struct sockaddr *sa, int len)
{
    struct bufferevent *bev;

    if (upstream_is_self(c->px, sa)) {
        char where[64];

        /* A name that resolved to brock itself: forwarding would loop. */
        access_name(sa, where, sizeof(where));
        snprintf(c->connect_err, sizeof(c->connect_err), "%s is brock itself (not forwarded)",
                 where);
        return -1;
    }

    c->c_up.io = c->c_ex.is_https ? &io_tls : &io_tcp;
    bev = c->c_up.io->open(c->px->base, -1,
                           c->c_ex.is_https ? tls_upstream_ssl_new(c->px->tls_up, c->c_ex.host)
                                            : NULL);
    if (!bev) {
        snprintf(c->connect_err, sizeof(c->connect_err), "out of memory");
        return -1;
    }
    bufferevent_setcb(bev, NULL, NULL, on_connect_event, c);
    c->c_up.bev = bev;
    if (c->c_up.io->connect(bev, sa, len) < 0) {
        int err = errno;
        char where[96];

        access_name(sa, where, sizeof(where));
        snprintf(c->connect_err, sizeof(c->connect_err), "%s: %s", where, strerror(err));
        /* bufferevent_socket_connect() may already have freed nothing; the bev is ours. */
        if (c->c_up.bev == bev) {
            bufferevent_free(bev);
            c->c_up.bev = NULL;
        }
        return -1;
    }
    return 0;
}

static void try_next(struct conn *c)
{
    while (c->ai_next) {
        struct evutil_addrinfo *ai = c->ai_next;

        c->ai_next = ai->ai_next;
        if (connect_to(c, ai->ai_addr, (int)ai->ai_addrlen) == 0)
            return;
    }
    if (c->ai) {
        evutil_freeaddrinfo(c->ai);
        c->ai = NULL;
    }
    connect_failed(c);
}

static void on_resolved(int err, struct evutil_addrinfo *res, void *arg)
{
    struct conn *c = arg;
    char why[BROCK_HOST_MAX + 128];

    if (err == EVUTIL_EAI_CANCEL) {
        if (res)
            evutil_freeaddrinfo(res);
        return;
    }
    c->dns_req = NULL;
    if (err || !res) {
        if (res)
            evutil_freeaddrinfo(res);
        snprintf(why, sizeof(why), "brock could not resolve %s: %s", c->c_ex.host,
                 err ? evutil_gai_strerror(err) : "no address");
        conn_upstream_failed(c, 502, why);
        return;
    }
    c->ai = c->ai_next = res;
    try_next(c);
}

/* Whether host is an IPv4 or IPv6 literal; if so, its address with port in *ss. */
static int numeric_addr(const char *host, int port, struct sockaddr_storage *ss, int *len)
{
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

    memset(ss, 0, sizeof(*ss));
    if (evutil_inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = (int)sizeof(*v4);
        return 1;
    }
    if (evutil_inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = (int)sizeof(*v6);
        return 1;
    }
    return 0;
}

void upstream_start(struct conn *c)
{
    struct proxy *px = c->px;
    const struct resolve_rule *rule = resolve_find(&px->resolve, c->c_ex.host, c->c_ex.port);
    struct evutil_addrinfo hints;
    struct pool_entry *p;
    struct sockaddr_storage ss;
    int ss_len;
    char key[BROCK_HOST_MAX + 16], port[8];

    c->connect_err[0] = '\0';
    pool_key(c, key, sizeof(key));
    p = c->c_ex.is_connect || c->c_ex.retried ? NULL : pool_take(px, key);
    if (p) {
        c->c_up.bev = p->bev;
        c->c_up.io = p->io;
        bufferevent_set_timeouts(p->bev, NULL, NULL);
        mem_free(p);
        c->c_ex.reused = 1;
        conn_upstream_ready(c);
        return;
    }
    c->c_ex.reused = 0;
    if (rule) {
        if (connect_to(c, (const struct sockaddr *)&rule->addr, rule->addr_len) < 0)
            connect_failed(c);
        return;
    }
    if (numeric_addr(c->c_ex.host, c->c_ex.port, &ss, &ss_len)) {
        /* An address literal needs no resolver, and must not be hidden by AI_ADDRCONFIG
         * (which drops ::1 on a machine without other IPv6 addresses). */
        if (connect_to(c, (const struct sockaddr *)&ss, ss_len) < 0)
            connect_failed(c);
        return;
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = EVUTIL_AI_ADDRCONFIG;
    snprintf(port, sizeof(port), "%d", c->c_ex.port);
    if (!px->dns) {
        conn_upstream_failed(c, 502, "brock has no DNS resolver (no /etc/resolv.conf?)");
        return;
    }
    /* The callback may run before this returns (numeric hosts, /etc/hosts). */
    c->dns_req = evdns_getaddrinfo(px->dns, c->c_ex.host, port, &hints, on_resolved, c);
}

void upstream_cancel(struct conn *c)
{
    if (c->dns_req) {
        struct evdns_getaddrinfo_request *r = c->dns_req;

        c->dns_req = NULL;
        evdns_getaddrinfo_cancel(r);
    }
    if (c->ai) {
        evutil_freeaddrinfo(c->ai);
        c->ai = c->ai_next = NULL;
    }
}
