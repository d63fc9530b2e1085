/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The resolver: c-ares' sockets and timeouts as events of brock's loop, and a cache in front
 * of it. A name being looked up has one entry in the cache, pending, on which every look-up of
 * it waits; its answer replaces the wait, and the look-ups are told at the loop's next turn. */
#include "net/dns.h"

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <time.h>

#include <ares.h>
#include <event2/util.h>

#include "net/dial.h"
#include "util/alloc.h"
#include "util/strmap.h"

/* An answer as the cache keeps it: counted, so that an entry dropped from the cache leaves
 * its answer to the look-ups still about to hear it. Its addresses, chain and names follow it
 * in the same allocation. */
struct stored {
    unsigned refs;
    struct dns_answer a;
};

struct dns_query {
    TAILQ_ENTRY(dns_query) link; /* on its entry's waiters, or the resolver's ready list */
    struct dns *r;
    struct entry *e;   /* the entry waited on; NULL once ready */
    struct stored *st; /* the answer, once ready (a reference) */
    void (*cb)(void *arg, const struct dns_answer *a);
    void *arg;
};

TAILQ_HEAD(query_list, dns_query);

/* A name in the cache: pending while c-ares looks it up, then its answer until it expires. */
struct entry {
    TAILQ_ENTRY(entry) link; /* the cache's order, the oldest look-up first */
    struct dns *r;
    struct stored *st; /* NULL while pending */
    int pending;
    int64_t expires_ms;
    struct query_list waiters;
    char host[]; /* the key: lower-cased, without a trailing dot */
};

/* A socket c-ares has open, watched for what it asked. */
struct sock {
    struct sock *next;
    ares_socket_t fd;
    struct event *ev;
};

struct dns {
    struct event_base *base;
    ares_channel channel;
    struct event *timer;   /* c-ares' next timeout */
    struct event *deliver; /* tells the ready look-ups */
    struct sock *socks;
    struct strmap cache; /* host -> struct entry, keys borrowed from the entries */
    TAILQ_HEAD(, entry) order;
    size_t n_entries;
    struct query_list ready;
    int64_t swept_ms;  /* when the cache was last cleared of expired entries */
    int closing;       /* dns_free() is running */
    struct stored oom; /* the answer when an answer cannot be stored */
};

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* host as the cache keys it, into key (DNS_NAME_MAX bytes). Returns 0, or -1 when it is
 * empty or too long. */
static int key_make(const char *host, char *key)
{
    size_t n = strlen(host);

    if (n && host[n - 1] == '.')
        n--;
    if (n == 0 || n >= DNS_NAME_MAX)
        return -1;
    for (size_t i = 0; i < n; i++)
        key[i] = (char)tolower((unsigned char)host[i]);
    key[n] = '\0';
    return 0;
}

/* ---- answers ---- */

/* c-ares' status in getaddrinfo()'s words, as evdns reported them. */
static int eai_of(int status)
{
    switch (status) {
    case ARES_SUCCESS: return 0;
    case ARES_ENOTFOUND:
    case ARES_ENONAME:
    case ARES_EBADNAME: return EVUTIL_EAI_NONAME;
    case ARES_ENODATA: return EVUTIL_EAI_NODATA;
    /* The name may answer later: a server that timed out, refused or failed. */
    case ARES_ETIMEOUT:
    case ARES_ECONNREFUSED:
    case ARES_ESERVFAIL:
    case ARES_EREFUSED:
    case ARES_EOF: return EVUTIL_EAI_AGAIN;
    case ARES_ENOMEM: return EVUTIL_EAI_MEMORY;
    case ARES_ECANCELLED:
    case ARES_EDESTRUCTION: return EVUTIL_EAI_CANCEL;
    case ARES_EBADFAMILY: return EVUTIL_EAI_FAMILY;
    case ARES_ESERVICE: return EVUTIL_EAI_SERVICE;
    default: return EVUTIL_EAI_FAIL;
    }
}

/* Copies name into out (DNS_NAME_MAX bytes) lower-cased, without a trailing dot. */
static void name_copy(const char *name, char *out)
{
    size_t n = strlen(name);

    if (n && name[n - 1] == '.')
        n--;
    if (n >= DNS_NAME_MAX)
        n = DNS_NAME_MAX - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)name[i]);
    out[n] = '\0';
}

/* Whether name is the normalised want, without case or a trailing dot. */
static int is_name(const char *name, const char *want)
{
    size_t n = strlen(want);

    return name && strncasecmp(name, want, n) == 0 &&
           (name[n] == '\0' || (name[n] == '.' && name[n + 1] == '\0'));
}

size_t dns_chain_build(const char *host, const struct ares_addrinfo_cname *cnames,
                       char chain[DNS_CHAIN_MAX][DNS_NAME_MAX], int *ttl)
{
    char from[DNS_NAME_MAX];
    size_t n = 0;

    name_copy(host, from);
    while (n < DNS_CHAIN_MAX) {
        const struct ares_addrinfo_cname *c = cnames;
        const char *cur = n ? chain[n - 1] : from;
        int seen;

        while (c && !(is_name(c->alias, cur) && c->name))
            c = c->next;
        if (!c)
            break;
        name_copy(c->name, chain[n]);
        /* A name met before is a loop: the chain ends where it closes. */
        seen = !strcmp(chain[n], from);
        for (size_t i = 0; i < n && !seen; i++)
            seen = !strcmp(chain[i], chain[n]);
        if (seen || !chain[n][0])
            break;
        if (c->ttl < *ttl)
            *ttl = c->ttl;
        n++;
    }
    return n;
}

/* The addresses of ai, at most DNS_ADDRS_MAX, into addrs; *ttl lowered to their smallest. */
static size_t addrs_collect(const struct ares_addrinfo *ai, struct dns_addr *addrs, int *ttl)
{
    size_t n = 0;

    for (const struct ares_addrinfo_node *p = ai->nodes; p && n < DNS_ADDRS_MAX; p = p->ai_next) {
        size_t len = p->ai_family == AF_INET    ? sizeof(struct sockaddr_in)
                     : p->ai_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                : 0;

        if (!len || !p->ai_addr || p->ai_addrlen < len)
            continue;
        memset(&addrs[n], 0, sizeof(addrs[n]));
        memcpy(&addrs[n].u, p->ai_addr, len);
        addrs[n].u.sa.sa_family = (sa_family_t)p->ai_family;
        addrs[n].len = (socklen_t)len;
        if (p->ai_ttl < *ttl)
            *ttl = p->ai_ttl;
        n++;
    }
    return n;
}

/* A stored answer of n_addrs addresses and n_chain names, in one allocation sized to them.
 * Returns it with one reference, or NULL when out of memory. */
static struct stored *stored_new(int status, int ttl, const struct dns_addr *addrs, size_t n_addrs,
                                 char chain[][DNS_NAME_MAX], size_t n_chain)
{
    size_t size = sizeof(struct stored) + n_chain * sizeof(char *) + n_addrs * sizeof(*addrs);
    struct stored *st;
    const char **names;
    struct dns_addr *a;
    char *text;

    for (size_t i = 0; i < n_chain; i++)
        size += strlen(chain[i]) + 1;
    st = mem_malloc(size);
    if (!st)
        return NULL;
    /* Pointers first, then the addresses (4-byte aligned), then the text. */
    names = (const char **)(st + 1);
    a = (struct dns_addr *)(names + n_chain);
    text = (char *)(a + n_addrs);
    for (size_t i = 0; i < n_chain; i++) {
        size_t len = strlen(chain[i]) + 1;

        memcpy(text, chain[i], len);
        names[i] = text;
        text += len;
    }
    if (n_addrs)
        memcpy(a, addrs, n_addrs * sizeof(*addrs));
    st->refs = 1;
    st->a = (struct dns_answer){.status = status,
                                .ttl = ttl > 0 ? (unsigned)ttl : 0,
                                .n_addrs = n_addrs,
                                .addrs = a,
                                .n_chain = n_chain,
                                .chain = names};
    return st;
}

/* What c-ares answered for host, stored; NULL when out of memory. */
static struct stored *stored_build(const char *host, int status, const struct ares_addrinfo *ai)
{
    char chain[DNS_CHAIN_MAX][DNS_NAME_MAX];
    struct dns_addr addrs[DNS_ADDRS_MAX];
    size_t n_addrs = 0, n_chain = 0;
    int eai = eai_of(status), ttl = INT_MAX;

    if (!eai && ai) {
        n_addrs = addrs_collect(ai, addrs, &ttl);
        n_chain = dns_chain_build(host, ai->cnames, chain, &ttl);
    }
    if (!eai && !n_addrs)
        eai = EVUTIL_EAI_NODATA;
    if (eai)
        return stored_new(eai, 0, NULL, 0, NULL, 0);
    return stored_new(0, ttl, addrs, n_addrs, chain, n_chain);
}

static void stored_unref(struct dns *r, struct stored *st)
{
    if (st && st != &r->oom && --st->refs == 0)
        mem_free(st);
}

/* How long the cache keeps a, in seconds; 0: not at all (it may answer otherwise soon). */
static int64_t keep_for(const struct dns_answer *a)
{
    if (a->status == EVUTIL_EAI_NONAME || a->status == EVUTIL_EAI_NODATA)
        return DNS_FAILED_TTL;
    if (a->status)
        return 0;
    if (a->ttl < DNS_TTL_MIN)
        return DNS_TTL_MIN;
    return a->ttl > DNS_TTL_MAX ? DNS_TTL_MAX : a->ttl;
}

/* ---- the cache ---- */

static void entry_free(struct dns *r, struct entry *e)
{
    struct dns_query *q;

    while ((q = TAILQ_FIRST(&e->waiters))) {
        TAILQ_REMOVE(&e->waiters, q, link);
        mem_free(q);
    }
    (void)strmap_del(&r->cache, e->host);
    TAILQ_REMOVE(&r->order, e, link);
    r->n_entries--;
    stored_unref(r, e->st);
    mem_free(e);
}

/* Makes room for one more entry in a full cache: expired entries go first (at most once a
 * second, as finding them reads every entry), then the oldest answered. Pending entries
 * stay: their look-ups are bounded by the connections waiting on them. */
static void cache_make_room(struct dns *r, int64_t now)
{
    struct entry *e, *next;

    if (r->n_entries < DNS_CACHE_MAX)
        return;
    if (now - r->swept_ms >= 1000) {
        r->swept_ms = now;
        for (e = TAILQ_FIRST(&r->order); e; e = next) {
            next = TAILQ_NEXT(e, link);
            if (!e->pending && e->expires_ms <= now)
                entry_free(r, e);
        }
    }
    for (e = TAILQ_FIRST(&r->order); e && r->n_entries >= DNS_CACHE_MAX; e = next) {
        next = TAILQ_NEXT(e, link);
        if (!e->pending)
            entry_free(r, e);
    }
}

/* A new pending entry for key. Returns it, or NULL when out of memory. */
static struct entry *entry_new(struct dns *r, const char *key, int64_t now)
{
    size_t len = strlen(key) + 1;
    struct entry *e;

    cache_make_room(r, now);
    e = mem_calloc(1, sizeof(*e) + len);
    if (!e)
        return NULL;
    memcpy(e->host, key, len);
    e->r = r;
    e->pending = 1;
    TAILQ_INIT(&e->waiters);
    if (strmap_put(&r->cache, e->host, e) < 0) {
        mem_free(e);
        return NULL;
    }
    TAILQ_INSERT_TAIL(&r->order, e, link);
    r->n_entries++;
    return e;
}

/* q will hear st at the loop's next turn. */
static void make_ready(struct dns *r, struct dns_query *q, struct stored *st)
{
    q->e = NULL;
    q->st = st;
    if (st != &r->oom)
        st->refs++;
    TAILQ_INSERT_TAIL(&r->ready, q, link);
    event_active(r->deliver, EV_TIMEOUT, 0);
}

static void on_deliver(evutil_socket_t fd, short what, void *arg)
{
    struct dns *r = arg;
    struct dns_query *q;

    (void)fd;
    (void)what;
    /* One at a time off the list: a callback may cancel a look-up still on it. */
    while ((q = TAILQ_FIRST(&r->ready))) {
        struct stored *st = q->st;

        TAILQ_REMOVE(&r->ready, q, link);
        q->cb(q->arg, &st->a);
        stored_unref(r, st);
        mem_free(q);
    }
}

/* c-ares' answer for the entry arg: cached, and handed to every look-up waiting on it. It may
 * come from inside ares_getaddrinfo() (/etc/hosts, an error), or from ares_destroy(). */
static void on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *ai)
{
    struct entry *e = arg;
    struct dns *r = e->r;
    struct stored *st;
    struct dns_query *q;
    int64_t keep;

    (void)timeouts;
    e->pending = 0;
    if (r->closing) {
        if (ai)
            ares_freeaddrinfo(ai);
        return;
    }
    st = stored_build(e->host, status, ai);
    if (ai)
        ares_freeaddrinfo(ai);
    if (!st)
        st = &r->oom;
    e->st = st;
    keep = keep_for(&st->a);
    e->expires_ms = now_ms() + keep * 1000;
    while ((q = TAILQ_FIRST(&e->waiters))) {
        TAILQ_REMOVE(&e->waiters, q, link);
        make_ready(r, q, st);
    }
    if (!keep)
        entry_free(r, e);
}

/* ---- c-ares on the loop ---- */

/* Arms the timer for c-ares' next timeout, or stops it when nothing is pending (the loop may
 * then end). */
static void timer_rearm(struct dns *r)
{
    struct timeval tv;
    const struct timeval *next = ares_timeout(r->channel, NULL, &tv);

    if (next)
        evtimer_add(r->timer, next);
    else
        evtimer_del(r->timer);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    struct dns *r = arg;

    (void)fd;
    (void)what;
    ares_process_fd(r->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
    timer_rearm(r);
}

/* arg is the resolver, not the socket: c-ares may close the socket while processing it. */
static void on_sock(evutil_socket_t fd, short what, void *arg)
{
    struct dns *r = arg;

    ares_process_fd(r->channel, (what & EV_READ) ? fd : ARES_SOCKET_BAD,
                    (what & EV_WRITE) ? fd : ARES_SOCKET_BAD);
    timer_rearm(r);
}

/* c-ares opens, watches and closes a socket: one event each, removed with the socket. Without
 * memory for one, the socket goes unwatched and its query ends at its timeout. */
static void on_sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
    struct dns *r = data;
    struct sock **pp = &r->socks, *s;
    short what = (short)((readable ? EV_READ : 0) | (writable ? EV_WRITE : 0));

    while (*pp && (*pp)->fd != fd)
        pp = &(*pp)->next;
    s = *pp;
    if (!what) {
        if (s) {
            *pp = s->next;
            event_free(s->ev);
            mem_free(s);
        }
        return;
    }
    if (!s) {
        s = mem_calloc(1, sizeof(*s));
        if (!s)
            return;
        s->ev = event_new(r->base, fd, (short)(what | EV_PERSIST), on_sock, r);
        if (!s->ev) {
            mem_free(s);
            return;
        }
        s->fd = fd;
        s->next = r->socks;
        r->socks = s;
    } else {
        event_del(s->ev);
        event_assign(s->ev, r->base, fd, (short)(what | EV_PERSIST), on_sock, r);
    }
    event_add(s->ev, NULL);
}

/* ---- the resolver ---- */

static int library_status = ARES_SUCCESS;

static void library_init(void)
{
    library_status = ares_library_init(ARES_LIB_INIT_ALL);
}

/* Has r ask the n servers alone. Returns 0, or -1 with err. */
static int servers_set(struct dns *r, const char *const *servers, size_t n, char *err,
                       size_t errlen)
{
    struct ares_addr_port_node *nodes = mem_calloc(n, sizeof(*nodes));
    int rc = -1;

    if (!nodes) {
        snprintf(err, errlen, "out of memory for the resolver");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        struct sockaddr_storage ss;
        int len;

        if (dial_dns_server(servers[i], &ss, &len) < 0) {
            snprintf(err, errlen, "--dns '%s': expected ADDR:PORT (an IP address and a port)",
                     servers[i]);
            goto out;
        }
        nodes[i].next = i + 1 < n ? &nodes[i + 1] : NULL;
        nodes[i].family = ss.ss_family;
        if (ss.ss_family == AF_INET) {
            const struct sockaddr_in *v4 = (const struct sockaddr_in *)&ss;

            nodes[i].addr.addr4 = v4->sin_addr;
            nodes[i].udp_port = nodes[i].tcp_port = ntohs(v4->sin_port);
        } else {
            const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&ss;

            memcpy(&nodes[i].addr.addr6, &v6->sin6_addr, sizeof(v6->sin6_addr));
            nodes[i].udp_port = nodes[i].tcp_port = ntohs(v6->sin6_port);
        }
    }
    rc = ares_set_servers_ports(r->channel, nodes);
    if (rc != ARES_SUCCESS)
        snprintf(err, errlen, "the resolver could not take the --dns servers: %s",
                 ares_strerror(rc));
    rc = rc == ARES_SUCCESS ? 0 : -1;
out:
    mem_free(nodes);
    return rc;
}

/* Starts c-ares on r: the system's configuration, or with servers, /etc/hosts and then those
 * alone. Returns 0, or -1 with err. */
static int channel_start(struct dns *r, const char *const *servers, size_t n, char *err,
                         size_t errlen)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    struct ares_options opts;
    char lookups[] = "fb";
    int mask = ARES_OPT_SOCK_STATE_CB, rc;

    pthread_once(&once, library_init);
    if (library_status != ARES_SUCCESS) {
        snprintf(err, errlen, "the resolver could not start: %s", ares_strerror(library_status));
        return -1;
    }
    memset(&opts, 0, sizeof(opts));
    opts.sock_state_cb = on_sock_state;
    opts.sock_state_cb_data = r;
    if (n) {
        /* As the system's resolver with these servers would: /etc/hosts first, and the name
         * as given, without resolv.conf's search domains. */
        opts.lookups = lookups;
        opts.domains = NULL;
        opts.ndomains = 0;
        mask |= ARES_OPT_LOOKUPS | ARES_OPT_DOMAINS;
    }
    rc = ares_init_options(&r->channel, &opts, mask);
    if (rc != ARES_SUCCESS) {
        r->channel = NULL;
        snprintf(err, errlen, "the resolver could not start: %s", ares_strerror(rc));
        return -1;
    }
    return n ? servers_set(r, servers, n, err, errlen) : 0;
}

struct dns *dns_new(struct event_base *base, const char *const *servers, size_t n, char *err,
                    size_t errlen)
{
    struct dns *r = mem_calloc(1, sizeof(*r));

    if (!r) {
        snprintf(err, errlen, "out of memory for the resolver");
        return NULL;
    }
    r->base = base;
    strmap_init_borrowed(&r->cache);
    TAILQ_INIT(&r->order);
    TAILQ_INIT(&r->ready);
    r->oom = (struct stored){.refs = 1, .a = {.status = EVUTIL_EAI_MEMORY}};
    r->timer = evtimer_new(base, on_timer, r);
    r->deliver = event_new(base, -1, 0, on_deliver, r);
    if (!r->timer || !r->deliver) {
        snprintf(err, errlen, "out of memory for the resolver");
        dns_free(r);
        return NULL;
    }
    if (channel_start(r, servers, n, err, errlen) < 0) {
        dns_free(r);
        return NULL;
    }
    return r;
}

void dns_free(struct dns *r)
{
    struct dns_query *q;

    if (!r)
        return;
    r->closing = 1;
    /* Answers every pending query with ARES_EDESTRUCTION (on_answer ignores them) and closes
     * the sockets, their events with them. */
    if (r->channel)
        ares_destroy(r->channel);
    while (r->socks) {
        struct sock *s = r->socks;

        r->socks = s->next;
        event_free(s->ev);
        mem_free(s);
    }
    while (!TAILQ_EMPTY(&r->order))
        entry_free(r, TAILQ_FIRST(&r->order));
    while ((q = TAILQ_FIRST(&r->ready))) {
        TAILQ_REMOVE(&r->ready, q, link);
        stored_unref(r, q->st);
        mem_free(q);
    }
    strmap_cleanup(&r->cache, NULL);
    if (r->timer)
        event_free(r->timer);
    if (r->deliver)
        event_free(r->deliver);
    mem_free(r);
}

/* The entry key is waited on: a new one, or an expired one asked again. Starts its query.
 * Returns it, or NULL when out of memory. */
static struct entry *entry_ask(struct dns *r, struct entry *e, const char *key, int64_t now)
{
    if (!e) {
        e = entry_new(r, key, now);
        if (!e)
            return NULL;
    } else {
        stored_unref(r, e->st);
        e->st = NULL;
        e->pending = 1;
        TAILQ_REMOVE(&r->order, e, link);
        TAILQ_INSERT_TAIL(&r->order, e, link);
    }
    return e;
}

int dns_lookup(struct dns *r, const char *host, void (*cb)(void *arg, const struct dns_answer *a),
               void *arg, struct dns_query **out)
{
    static const struct ares_addrinfo_hints hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP};
    char key[DNS_NAME_MAX];
    int64_t now = now_ms();
    struct dns_query *q;
    struct entry *e;
    int start;

    if (out)
        *out = NULL;
    if (key_make(host, key) < 0)
        return -1;
    q = mem_calloc(1, sizeof(*q));
    if (!q)
        return -1;
    *q = (struct dns_query){.r = r, .cb = cb, .arg = arg};
    e = strmap_get(&r->cache, key);
    if (e && !e->pending && e->expires_ms > now) {
        make_ready(r, q, e->st);
    } else {
        start = !e || !e->pending;
        if (start && !(e = entry_ask(r, e, key, now))) {
            mem_free(q);
            return -1;
        }
        q->e = e;
        TAILQ_INSERT_TAIL(&e->waiters, q, link);
        if (start) {
            /* The answer may come before this returns, and the entry go with it. */
            ares_getaddrinfo(r->channel, e->host, NULL, &hints, on_answer, e);
            timer_rearm(r);
        }
    }
    if (out)
        *out = q;
    return 0;
}

void dns_cancel(struct dns_query *q)
{
    if (!q)
        return;
    if (q->e) {
        TAILQ_REMOVE(&q->e->waiters, q, link);
    } else {
        TAILQ_REMOVE(&q->r->ready, q, link);
        stored_unref(q->r, q->st);
    }
    mem_free(q);
}

const struct dns_answer *dns_cached(struct dns *r, const char *host)
{
    char key[DNS_NAME_MAX];
    const struct entry *e;

    if (key_make(host, key) < 0)
        return NULL;
    e = strmap_get(&r->cache, key);
    if (!e || e->pending || e->expires_ms <= now_ms())
        return NULL;
    return &e->st->a;
}
