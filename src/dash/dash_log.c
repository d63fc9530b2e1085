/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GET /api/log: the live request log (src/monitor/livelog.h), which the proxy keeps and holds
 * open as a stream of Server-Sent Events. A client that falls behind the ring is told how many
 * events it missed, and a slow one is never waited for. */
#include "dash/dash.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash/dash_api.h"
#include "http/head.h"
#include "util/alloc.h"

/* Where a client starts: after the Last-Event-ID it names (a reconnecting EventSource), or
 * with the whole ring. Returns 0, or -1 for an id that is not a number. */
static int log_start(const struct dash_call *x, uint64_t *next)
{
    const struct brock_header *h = http_header_find(x->rq->h, x->rq->n, "last-event-id");
    const struct livelog *l = x->env->host.log;
    char *end;
    unsigned long long last;

    if (!h || !*h->value) {
        *next = l->next_id > LIVELOG_EVENTS ? l->next_id - LIVELOG_EVENTS : 1;
        return 0;
    }
    if (h->value[0] < '0' || h->value[0] > '9')
        return -1;
    errno = 0;
    last = strtoull(h->value, &end, 10);
    if (errno || *end)
        return -1;
    *next = (uint64_t)last + 1;
    return 0;
}

/* One client of the log's ring, for GET /api/clients. */
struct seen {
    const char *address;
    uint64_t requests;
    int64_t last_ms;
};

/* The clients of the ring's events, into seen (at most max): each with its number of events
 * and its newest. Returns how many. */
static size_t clients_seen(const struct livelog *l, struct seen *seen, size_t max)
{
    uint64_t first = l->next_id > LIVELOG_EVENTS ? l->next_id - LIVELOG_EVENTS : 1;
    size_t n = 0;

    for (uint64_t id = first; id < l->next_id; id++) {
        const struct livelog_event *ev = &l->ring[id % LIVELOG_EVENTS];
        size_t i = 0;

        while (i < n && strcmp(seen[i].address, ev->client) != 0)
            i++;
        if (i == n) {
            if (n == max)
                continue;
            seen[n++] = (struct seen){ev->client, 0, 0};
        }
        seen[i].requests++;
        seen[i].last_ms = ev->time_ms;
    }
    return n;
}

/* Whether key is an address (a client without a name) rather than a name. */
static int is_address(const char *key)
{
    unsigned char a[sizeof(struct in6_addr)];

    return inet_pton(AF_INET, key, a) == 1 || inet_pton(AF_INET6, key, a) == 1;
}

static int on_views_client(void *arg, const char *client, int64_t time_ms, size_t sites)
{
    json_t *j = json_pack("{s:I, s:I}", "sites", (json_int_t)sites, "last", (json_int_t)time_ms);

    return !j || json_object_set_new(arg, client, j) < 0 ? BROCK_ENOMEM : 0;
}

/* The live log's clients into list, each with its page views' key and sites (taken out of
 * views as they are matched). Returns 0 or -1. */
static int clients_live(struct dash_call *x, json_t *views, json_t *list)
{
    const struct dash_host *h = &x->env->host;
    struct seen *seen = mem_calloc(LIVELOG_EVENTS, sizeof(*seen));
    size_t n = h->log && seen ? clients_seen(h->log, seen, LIVELOG_EVENTS) : 0;
    int rc = seen ? 0 : -1;

    for (size_t i = 0; i < n && rc == 0; i++) {
        char name[64] = "";
        const char *key;
        json_t *one, *v;

        if (h->client_name)
            h->client_name(h->client_name_arg, seen[i].address, name, sizeof(name));
        key = name[0] ? name : seen[i].address;
        v = json_object_get(views, key);
        one = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "address", seen[i].address, "name", name,
                        "client", key, "requests", (json_int_t)seen[i].requests, "last",
                        (json_int_t)seen[i].last_ms, "sites",
                        (json_int_t)json_integer_value(json_object_get(v, "sites")));
        if (!one || json_array_append_new(list, one) < 0)
            rc = -1;
        /* Matched: not listed again among those the log no longer holds (after the walk:
         * two addresses may share a name). */
        if (v && json_object_set_new(v, "matched", json_true()) < 0)
            rc = -1;
    }
    mem_free(seen);
    return rc;
}

/* GET /api/clients: the clients of the live log, and those with page views kept that it no
 * longer holds (address ""), each with its key for ?client=. */
int dash_api_clients(struct dash_call *x)
{
    json_t *views = json_object(), *list = json_array(), *v;
    const char *key;
    int rc = -1;

    if (!views || !list || brock_clients_each(x->e, on_views_client, views) < 0 ||
        clients_live(x, views, list) < 0)
        goto out;
    json_object_foreach(views, key, v) {
        json_t *one;

        if (json_is_true(json_object_get(v, "matched")))
            continue;
        one = json_pack("{s:s, s:s, s:s, s:I, s:I, s:O}", "address", "", "name",
                        is_address(key) ? "" : key, "client", key, "requests", (json_int_t)0,
                        "last", (json_int_t)json_integer_value(json_object_get(v, "last")), "sites",
                        json_object_get(v, "sites"));

        if (!one || json_array_append_new(list, one) < 0)
            goto out;
    }
    x->json = list;
    list = NULL;
    rc = 0;
out:
    json_decref(views);
    json_decref(list);
    return rc;
}

int dash_api_log(struct dash_call *x)
{
    struct dash_stream *st = x->rq->stream;
    uint64_t next = 0;

    if (!x->env->host.log)
        return dash_error(x, 404, "this brock keeps no live request log");
    /* Another client's log is not a client's to ask for; the owner's holds every client's,
     * each event naming its own. */
    if (dash_query_has(x->query, "client"))
        return dash_error(x, dash_owner_is(x->env, x->rq) ? 400 : 403,
                          dash_owner_is(x->env, x->rq)
                              ? "the log holds every client's requests, each with its \"client\""
                              : "a client sees its own browsing alone; the owner sees each "
                                "client's");
    if (log_start(x, &next) < 0)
        return dash_error(x, 400, "the Last-Event-ID header is not an event's id (a number)");
    if (!st || !st->stream_ok)
        return dash_error(x, 503,
                          "brock serves as many live logs as it can at once; close "
                          "another and try again");
    /* A HEAD says what a GET would get, and holds nothing open. */
    if (strcmp(x->rq->method, "HEAD") != 0) {
        st->stream = 1;
        st->stream_next = next;
        /* Anyone but the owner sees its own requests alone. */
        st->own = !dash_owner_is(x->env, x->rq);
    }
    x->stream = 1;
    x->type = "text/event-stream; charset=utf-8";
    buf_reset(&x->text);
    /* An EventSource that loses the stream asks again after this many ms. */
    return buf_puts(&x->text, "retry: 2000\n\n");
}
