/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Connections to origins, through the dialer (net/dial.h) with brock's own address refused;
 * and the pool of idle keep-alive connections, per host and port, that requests reuse. */
#include "process/access.h"
#include "proxy/conn.h"

#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include <event2/buffer.h>

#include "proxy/h2up.h"
#include "proxy/limits.h"
#include "proxy/pump.h"
#include "net/dial.h"
#include "net/tls.h"
#include "util/alloc.h"
#include "util/log.h"

struct pool_entry {
    LIST_ENTRY(pool_entry) link;
    struct proxy *px;
    char key[BROCK_HOST_MAX + 16];
    size_t key_len;
    struct bufferevent *bev;
    const struct io_ops *io;
};

/* ---- the pool ---- */

static void pool_unlink(struct pool_entry *p)
{
    struct proxy *px = p->px;

    LIST_REMOVE(p, link);
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

/* v in decimal at key + n, then a NUL; returns the new length. */
static size_t key_decimal(char *key, size_t n, uint64_t v)
{
    char digits[24];
    size_t nd = 0;

    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (nd)
        key[n++] = digits[--nd];
    key[n] = '\0';
    return n;
}

/* A redirected client connection's own key, "@ID". */
static size_t own_key(const struct conn *c, char *key)
{
    key[0] = '@';
    return key_decimal(key, 1, c->id);
}

/* "[https:]host:port" into key (BROCK_HOST_MAX + 16 bytes); returns its length. Written by
 * hand, not with snprintf(): twice a request. A redirected client's plain HTTP goes to the
 * address it chose, which its Host header need not belong to: that connection is its own,
 * "@ID" (its connection's id), for its next requests alone. Over TLS the server proved the
 * name, wherever it was reached: the name's key. */
static size_t pool_key(const struct conn *c, char *key)
{
    size_t hl = strnlen(c->c_ex.host, BROCK_HOST_MAX - 1), n = 0;

    if (c->orig_dst && !c->c_ex.is_https)
        return own_key(c, key);
    /* A TLS connection is never reused for plain requests, nor the other way. */
    if (c->c_ex.is_https) {
        memcpy(key, "https:", 7);
        n = 6;
    }
    memcpy(key + n, c->c_ex.host, hl);
    n += hl;
    key[n++] = ':';
    return key_decimal(key, n, (uint64_t)c->c_ex.port);
}

static int same_key(const struct pool_entry *p, const char *key, size_t len)
{
    return p->key_len == len && memcmp(p->key, key, len) == 0;
}

static struct pool_entry *pool_take(struct proxy *px, const char *key, size_t len)
{
    struct pool_entry *p;

    LIST_FOREACH(p, &px->pool, link) {
        if (same_key(p, key, len)) {
            pool_unlink(p);
            return p;
        }
    }
    return NULL;
}

static void pool_put(struct conn *c)
{
    struct proxy *px = c->px;
    struct pool_entry *p, *q, *last = NULL, *oldest_same = NULL;
    size_t same = 0;
    struct timeval idle = {TIMEOUT_POOL_IDLE, 0};

    p = mem_calloc(1, sizeof(*p));
    if (!p) {
        pump_stop(&c->c_up);
        bufferevent_free(c->c_up.bev);
        return;
    }
    p->key_len = pool_key(c, p->key);
    LIST_FOREACH(q, &px->pool, link) {
        if (same_key(q, p->key, p->key_len)) {
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
    LIST_INSERT_HEAD(&px->pool, p, link);
    px->n_pool++;
}

void pool_forget(struct conn *c)
{
    struct pool_entry *p, *next;
    char key[BROCK_HOST_MAX + 16];
    size_t key_len;

    if (!c->orig_dst)
        return;
    key_len = own_key(c, key);
    for (p = LIST_FIRST(&c->px->pool); p; p = next) {
        next = LIST_NEXT(p, link);
        if (same_key(p, key, key_len))
            pool_drop(p);
    }
}

void pool_cleanup(struct proxy *px)
{
    while (!LIST_EMPTY(&px->pool))
        pool_drop(LIST_FIRST(&px->pool));
}

void upstream_release(struct conn *c, int reusable)
{
    struct bufferevent *bev = c->c_up.bev;

    /* A stream's pair is never pooled: the origin's connection is the session's. */
    if (c->up_h2) {
        h2up_release(c);
        return;
    }
    if (!bev) {
        pump_stop(&c->c_up);
        return;
    }
    if (reusable && evbuffer_get_length(bufferevent_get_input(bev)) == 0 &&
        evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
        pool_put(c);
        pump_stop(&c->c_up);
    } else {
        pump_stop(&c->c_up);
        bufferevent_free(bev);
    }
    c->c_up.bev = NULL;
}

/* ---- connecting ---- */

/* ---- brock's own address ---- */

/* Whether addr is one of this machine's interface addresses. Asked only for a target on
 * brock's own port, so the interface list is read rarely. */
int upstream_is_local_address(const struct sockaddr *sa)
{
    struct ifaddrs *all = NULL;
    int found = 0;

    if (getifaddrs(&all) < 0)
        return 0;
    for (struct ifaddrs *i = all; i && !found; i = i->ifa_next) {
        struct sockaddr_storage ss;

        if (!i->ifa_addr ||
            (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
            continue;
        memset(&ss, 0, sizeof(ss));
        memcpy(&ss, i->ifa_addr,
               i->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
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

/* Whether connecting to sa would reach the listener bound at l. */
static int is_listener(const struct sockaddr *l, const struct sockaddr *sa)
{
    struct sockaddr_storage lo;

    if (access_port(sa) == 0 || access_port(sa) != access_port(l))
        return 0;
    if (access_is_wildcard(l))
        return access_is_loopback(sa) || access_is_wildcard(sa) || upstream_is_local_address(sa);
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

int upstream_is_self(const struct proxy *px, const struct sockaddr *sa)
{
    const struct sockaddr_storage *ls[] = {&px->listen_addr, &px->socks_addr,
                                           &px->transparent_addr};

    for (size_t i = 0; i < sizeof(ls) / sizeof(ls[0]); i++) {
        if (ls[i]->ss_family && is_listener((const struct sockaddr *)ls[i], sa))
            return 1;
    }
    return 0;
}

int upstream_names_self(const struct conn *c)
{
    const struct resolve_rule *rule = resolve_find(&c->px->resolve, c->c_ex.host, c->c_ex.port);
    struct sockaddr_storage ss;
    size_t hl = strlen(c->c_ex.host);
    int len;

    /* A redirected connection goes where it was going, whatever its name. */
    if (c->orig_dst)
        return upstream_is_self(c->px, &c->orig_dst->u.sa);
    if (rule)
        return upstream_is_self(c->px, (const struct sockaddr *)&rule->addr);
    if (resolve_literal(c->c_ex.host, c->c_ex.port, &ss, &len))
        return upstream_is_self(c->px, (const struct sockaddr *)&ss);
    /* localhost and its subdomains are loopback whatever DNS says (RFC 6761). */
    if (!strcasecmp(c->c_ex.host, "localhost") ||
        (hl > 10 && !strcasecmp(c->c_ex.host + hl - 10, ".localhost"))) {
        return (resolve_literal("127.0.0.1", c->c_ex.port, &ss, &len) &&
                upstream_is_self(c->px, (const struct sockaddr *)&ss)) ||
               (resolve_literal("::1", c->c_ex.port, &ss, &len) &&
                upstream_is_self(c->px, (const struct sockaddr *)&ss));
    }
    return 0;
}

/* ---- connecting ---- */

/* Asked by the dialer before each address: a name that resolves to brock itself would loop;
 * one whose address an HTTP/2 connection open already serves needs no connection. */
static int check_address(void *arg, const struct sockaddr *sa, char *why, size_t size)
{
    struct conn *c = arg;

    if (upstream_is_self(c->px, sa)) {
        snprintf(why, size, "it is brock itself (not forwarded)");
        return 1;
    }
    return h2up_coalesce(c, sa) ? DIAL_TAKEN : 0;
}

static void on_dialed(void *arg, struct bufferevent *bev, const char *why)
{
    struct conn *c = arg;
    /* Valid for the callback: the dial frees itself after it. */
    int tls_failed = !bev && c->dial && dial_tls_failed(c->dial);

    c->dial = NULL;
    if (!bev && !why) {
        /* It ended at an HTTP/2 connection that serves c's origin too. */
        if (!h2up_dialed(c, NULL, NULL))
            upstream_start(c);
        return;
    }
    if (!bev) {
        c->px->metrics
            .upstream_errors[tls_failed ? METRICS_UPSTREAM_TLS : METRICS_UPSTREAM_CONNECT]++;
        (void)h2up_dialed(c, NULL, why);
        conn_upstream_failed(c, 502, why);
        return;
    }
    if (c->c_up.io->tls) {
        c->px->metrics.tls_upstream_ok++;
        c->px->metrics.tls_upstream_resumed += (uint64_t)tls_resumed(bev);
    }
    /* The origin chose HTTP/2: c is on a stream of its new session. */
    if (h2up_dialed(c, bev, NULL))
        return;
    c->c_up.bev = bev;
    conn_upstream_ready(c);
}

void upstream_start(struct conn *c)
{
    struct proxy *px = c->px;
    struct pool_entry *p;
    char key[BROCK_HOST_MAX + 16];
    size_t key_len;
    int h2 = h2up_eligible(c);

    /* On the origin's HTTP/2 connection, or waiting for the dial that may open one. A request
     * sent again goes on a fresh connection of its own. */
    if (h2 && !c->c_ex.retried && h2up_take(c))
        return;
    h2 = h2 && !h2up_known_h1(c);
    key_len = pool_key(c, key);
    p = c->c_ex.is_connect || c->c_ex.retried ? NULL : pool_take(px, key, key_len);
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
    c->c_up.io = c->c_ex.is_https ? &io_tls : &io_tcp;
    /* Before the dial starts: an address literal or a --resolve rule is checked inside it. */
    if (h2 && !c->c_ex.retried)
        h2up_dialing(c);
    if ((c->orig_dst ? dial_start_at(h2 ? &px->dial_h2 : &px->dial_up, c->orig_dst, c->c_ex.host,
                                     c->c_up.io, check_address, on_dialed, c, &c->dial)
                     : dial_start(h2 ? &px->dial_h2 : &px->dial_up, c->c_ex.host, c->c_ex.port,
                                  c->c_up.io, check_address, on_dialed, c, &c->dial)) < 0) {
        h2up_cancel(c);
        conn_upstream_failed(c, 502, "brock could not connect upstream: out of memory");
    }
}

/* ---- the name looked up before the decision ---- */

void upstream_chain_tell(struct conn *c, const char *host, const struct dns_answer *a)
{
    struct brock_engine *e = c->px->engine;

    if (a->status == 0 && brock_cname_chain_set(e, host, a->chain, a->n_chain) < 0)
        log_msg(LOG_ERR, "keeping the CNAME chain of %s failed: %s", host, brock_engine_errmsg(e));
}

void upstream_on_names(void *arg, const char *host, const struct dns_answer *a)
{
    upstream_chain_tell(arg, host, a);
}

/* Whether c's request would go on a connection already open: an idle one of the pool, or
 * its origin's HTTP/2 session (or the dial to it under way). */
static int upstream_open_to(struct conn *c)
{
    struct pool_entry *p;
    char key[BROCK_HOST_MAX + 16];
    size_t key_len = pool_key(c, key);

    LIST_FOREACH(p, &c->px->pool, link) {
        if (same_key(p, key, key_len))
            return 1;
    }
    return h2up_eligible(c) && h2up_has(c);
}

int upstream_resolve_first(struct conn *c, void (*cb)(void *arg, const struct dns_answer *a))
{
    struct proxy *px = c->px;
    const struct exchange *x = &c->c_ex;
    const struct dns_answer *a;
    struct brock_decision d;

    if (!px->dns || !brock_setting(px->engine, BROCK_SETTING_UNCLOAK) ||
        resolve_literal(x->host, x->port, NULL, NULL) ||
        resolve_find(&px->resolve, x->host, x->port))
        return 0;
    if ((a = dns_cached(px->dns, x->host)) != NULL) {
        upstream_chain_tell(c, x->host, a);
        return 0;
    }
    /* A request blocked on its host's own name is answered without asking DNS about it. */
    if (upstream_open_to(c) ||
        (brock_decide(px->engine, x->host, NULL, &d) == 0 && d.effect == BROCK_DENY))
        return 0;
    if (dns_lookup(px->dns, x->host, cb, c, &c->dns_q) < 0)
        return 0;
    c->resolving = 1;
    return 1;
}

void upstream_cancel(struct conn *c)
{
    if (c->resolving) {
        dns_cancel(c->dns_q);
        c->dns_q = NULL;
        c->resolving = 0;
    }
    dial_cancel(c->dial);
    c->dial = NULL;
    h2up_cancel(c);
}
