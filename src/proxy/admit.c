/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Connection slots: the limits sized from the descriptors there are, each client address's
 * share, and the connections that may be closed to make room, kept oldest first so that the
 * one to close is found at once. A flood of silent connections then only ever displaces
 * connections that are silent too, and one line a second says how many. */
#include "proxy/admit.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <netinet/in.h>

#include <event2/event.h>
#include <event2/util.h>

#include "proxy/conn.h"
#include "proxy/h2front.h"
#include "proxy/limits.h"
#include "proxy/pump.h"
#include "util/alloc.h"
#include "util/log.h"

/* ---- the limits ---- */

size_t admit_size(size_t *nofile, size_t *spliced)
{
    struct rlimit rl;
    size_t n, pool;

    /* The soft limit is often far below the hard one (1024 against 524288 on Debian). */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        rl.rlim_cur = 1024;
    n = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > SIZE_MAX ? SIZE_MAX : (size_t)rl.rlim_cur;
    *nofile = n;
    n = n > LIMIT_FD_RESERVE ? n - LIMIT_FD_RESERVE : 0;
    *spliced = n / LIMIT_SPLICE_SHARE / 4;
    n -= *spliced * 4;
    /* Idle upstream connections in the pool hold descriptors of no client's. */
    pool = LIMIT_POOL_TOTAL < n / 2 ? LIMIT_POOL_TOTAL : n / 2;
    n = (n - pool) / 2;
    if (n > LIMIT_CONNECTIONS)
        n = LIMIT_CONNECTIONS;
    return n < LIMIT_CONNECTIONS_MIN ? LIMIT_CONNECTIONS_MIN : n;
}

/* ---- the lists, oldest first ---- */

static void list_push(struct admit_list *list, struct admit_node *n)
{
    TAILQ_INSERT_TAIL(list, n, link);
    n->in = list;
}

static void list_unlink(struct admit_node *n)
{
    if (!n->in)
        return;
    TAILQ_REMOVE(n->in, n, link);
    n->in = NULL;
}

/* The oldest connection of the first tier that has one, or NULL. */
static struct conn *list_oldest(struct admit_list *tiers)
{
    for (int t = 0; t < ADMIT_TIERS; t++)
        if (!TAILQ_EMPTY(&tiers[t]))
            return TAILQ_FIRST(&tiers[t])->c;
    return NULL;
}

/* Where c may be cut, or -1 for never: a connection still writing a response to its client
 * is that client receiving it, whatever its state says. */
static int tier_of(const struct conn *c)
{
    /* A stream connection is bounded by its carrier's stream limit, and goes with its stream. */
    if (pump_pending(&c->c_client) || c->h2_stream)
        return -1;
    switch (c->c_state) {
    case CONN_H2: return h2front_busy(c) ? -1 : ADMIT_IDLE;
    case CONN_IDLE: return ADMIT_IDLE;
    case CONN_REQ_HEAD:
    case CONN_SOCKS:
    case CONN_PEEK: return ADMIT_HEAD;
    case CONN_CONNECT:
    case CONN_REQ_BODY:
    case CONN_RESP_HEAD:
    case CONN_RESP_BODY:
    case CONN_TUNNEL:
    case CONN_STREAM:
    case CONN_FLUSH:
    case CONN_CLOSED: return -1;
    }
    return -1;
}

/* ---- the summary line ---- */

/* Appends one part of the summary line. */
static void summary_part(char *line, size_t size, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void summary_part(char *line, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*used && *used + 2 < size) {
        memcpy(line + *used, "; ", 3);
        *used += 2;
    }
    va_start(ap, fmt);
    n = vsnprintf(line + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used = (size_t)n < size - *used ? *used + (size_t)n : size - 1;
}

static void on_summary(evutil_socket_t fd, short what, void *arg)
{
    struct admit *a = arg;
    char line[512] = "";
    size_t used = 0;

    (void)fd;
    (void)what;
    if (a->n_cut_full)
        summary_part(line, sizeof(line), &used,
                     "closed %zu idle connections to make room, all "
                     "%zu slots being taken",
                     a->n_cut_full, a->max);
    if (a->n_cut_client)
        summary_part(line, sizeof(line), &used,
                     "closed %zu idle connections of clients at "
                     "their share of %zu (--max-client-connections; the last: %s)",
                     a->n_cut_client, a->per_client, a->over);
    if (a->n_refused)
        summary_part(line, sizeof(line), &used,
                     "refused %zu connections with 503, as none "
                     "could be closed",
                     a->n_refused);
    if (used)
        log_msg(LOG_INFO, "in the last second: %s", line);
    a->n_cut_full = a->n_cut_client = a->n_refused = 0;
}

/* One line a second at most, however many connections a flood brings. */
static void summary_due(struct admit *a)
{
    struct timeval tv = {1, 0};

    if (a->summary && !evtimer_pending(a->summary, NULL))
        evtimer_add(a->summary, &tv);
}

/* ---- slots ---- */

int admit_init(struct admit *a, struct event_base *base, size_t max, size_t per_client)
{
    a->max = max;
    a->per_client = per_client;
    strmap_init(&a->clients);
    for (int t = 0; t < ADMIT_TIERS; t++)
        TAILQ_INIT(&a->cut[t]);
    a->summary = evtimer_new(base, on_summary, a);
    return a->summary ? 0 : -1;
}

void admit_cleanup(struct admit *a)
{
    if (a->summary) {
        /* What a stop left unsaid is said now. */
        if (evtimer_pending(a->summary, NULL))
            on_summary(-1, 0, a);
        event_free(a->summary);
        a->summary = NULL;
    }
    strmap_cleanup(&a->clients, mem_free);
}

void admit_address(const struct sockaddr *sa, char *out, size_t size)
{
    if (sa->sa_family == AF_INET6)
        evutil_inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, size);
    else
        evutil_inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, size);
}

/* Connections found to have bytes waiting, read and put to work, while making room for one:
 * past it the newcomer is refused, as everything old is talking. */
#define ADMIT_WAKE_MAX 64

int admit_room(struct proxy *px, const char *address)
{
    struct admit *a = &px->admit;

    for (int woken = 0; woken <= ADMIT_WAKE_MAX;) {
        /* Looked up again each time: a connection put to work may have closed, and its
         * client's share with it. */
        struct admit_client *cl = strmap_get(&a->clients, address);
        int capped = cl && a->per_client && cl->n >= a->per_client;
        struct conn *victim = NULL;

        if (!capped && px->n_conns < a->max)
            return 1;
        /* A client holding its share, or when every slot is taken more than an even share of
         * them, makes room from its own connections first: one address's flood then displaces
         * its own, never the silent moment of another client's new connection. */
        if (capped || (cl && cl->n * a->clients.len >= a->max))
            victim = list_oldest(cl->cut);
        if (!victim && !capped)
            victim = list_oldest(a->cut);
        if (!victim)
            break;
        /* Accepted in the same turn as a flood, a client's request may still be unread in
         * its socket: it has spoken, and is not the one to close. */
        if (conn_wake(victim)) {
            woken++;
            continue;
        }
        if (capped) {
            snprintf(a->over, sizeof(a->over), "%s", address);
            a->n_cut_client++;
            a->total_cut++;
            conn_close(victim, "its client holds its share of connections: the oldest idle one "
                               "made room");
        } else {
            a->n_cut_full++;
            a->total_cut++;
            conn_close(victim, "every slot is taken: the oldest idle connection made room");
        }
        summary_due(a);
    }
    a->n_refused++;
    a->total_refused++;
    summary_due(a);
    return 0;
}

int admit_join(struct proxy *px, struct conn *c)
{
    struct admit_client *cl = strmap_get(&px->admit.clients, c->c_peer);

    if (!cl) {
        cl = mem_calloc(1, sizeof(*cl));
        if (!cl)
            return -1;
        for (int t = 0; t < ADMIT_TIERS; t++)
            TAILQ_INIT(&cl->cut[t]);
        if (strmap_put(&px->admit.clients, c->c_peer, cl) < 0) {
            mem_free(cl);
            return -1;
        }
    }
    cl->n++;
    c->a_client = cl;
    c->a_tier = -1;
    c->a_all.c = c->a_mine.c = c;
    admit_update(c);
    return 0;
}

void admit_update(struct conn *c)
{
    int t;

    if (!c->a_client)
        return;
    t = tier_of(c);
    if (t == c->a_tier)
        return;
    list_unlink(&c->a_all);
    list_unlink(&c->a_mine);
    if (t >= 0) {
        list_push(&c->px->admit.cut[t], &c->a_all);
        list_push(&c->a_client->cut[t], &c->a_mine);
    }
    c->a_tier = t;
}

void admit_leave(struct conn *c)
{
    struct admit_client *cl = c->a_client;

    if (!cl)
        return;
    list_unlink(&c->a_all);
    list_unlink(&c->a_mine);
    c->a_client = NULL;
    c->a_tier = -1;
    if (--cl->n == 0)
        mem_free(strmap_del(&c->px->admit.clients, c->c_peer));
}
