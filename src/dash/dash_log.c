/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GET /api/log: the live request log (src/monitor/livelog.h), which the proxy keeps and holds
 * open as a stream of Server-Sent Events. A client that falls behind the ring is told how many
 * events it missed, and a slow one is never waited for. */
#include "dash/dash.h"

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

int dash_api_clients(struct dash_call *x)
{
    const struct dash_host *h = &x->env->host;
    struct seen *seen = mem_calloc(LIVELOG_EVENTS, sizeof(*seen));
    size_t n = h->log && seen ? clients_seen(h->log, seen, LIVELOG_EVENTS) : 0;
    json_t *list = seen ? json_array() : NULL;

    if (!list) {
        mem_free(seen);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char name[64] = "";
        json_t *one;

        if (h->client_name)
            h->client_name(h->client_name_arg, seen[i].address, name, sizeof(name));
        one =
            json_pack("{s:s, s:s, s:I, s:I}", "address", seen[i].address, "name", name, "requests",
                      (json_int_t)seen[i].requests, "last", (json_int_t)seen[i].last_ms);
        if (!one || json_array_append_new(list, one) < 0) {
            json_decref(list);
            mem_free(seen);
            return -1;
        }
    }
    mem_free(seen);
    x->json = list;
    return 0;
}

int dash_api_log(struct dash_call *x)
{
    struct dash_stream *st = x->rq->stream;
    uint64_t next = 0;

    if (!x->env->host.log)
        return dash_error(x, 404, "this brock keeps no live request log");
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
