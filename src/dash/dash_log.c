/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The live request log: a ring of the newest requests' events, filled by the host as it
 * answers them, and GET /api/log, which the host holds open as a stream of Server-Sent
 * Events. Nothing of it is written to disk; a client that falls behind the ring is told
 * how many events it missed, and a slow one is never waited for. */
#include "dash/dash.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash/dash_api.h"
#include "http/head.h"
#include "util/alloc.h"

/* ---- the ring ---- */

int dash_log_init(struct dash_log *l)
{
    l->next_id = 1;
    l->ring = mem_calloc(DASH_LOG_EVENTS, sizeof(*l->ring));
    return l->ring ? 0 : -1;
}

void dash_log_cleanup(struct dash_log *l)
{
    mem_free(l->ring);
    l->ring = NULL;
}

struct dash_log_event *dash_log_add(struct dash_log *l)
{
    struct dash_log_event *ev = &l->ring[l->next_id % DASH_LOG_EVENTS];

    /* Only what the event's own fields need: the strings are written by the caller. */
    ev->id = l->next_id++;
    ev->time_ms = 0;
    ev->method[0] = ev->host[0] = ev->site[0] = '\0';
    ev->decision = ev->action = ev->reason = ev->site_fix = ev->site_choice = 0;
    ev->status = 0;
    return ev;
}

/* ---- the events as text ---- */

static const char *const decision_words[DASH_DECISION_COUNT] = {
    [DASH_DECISION_ALLOW] = "allow",       [DASH_DECISION_COOKIEBLOCK] = "cookieblock",
    [DASH_DECISION_BLOCK] = "block",       [DASH_DECISION_FIRST_PARTY] = "first_party",
    [DASH_DECISION_DISABLED] = "disabled",
};

/* Why, in a word: which of the engine's rules decided (PRIVACY-BADGER.md's order). */
static const char *reason_word(const struct dash_log_event *ev)
{
    switch ((enum brock_reason)ev->reason) {
    case BROCK_WHY_INVALID: return "invalid";
    case BROCK_WHY_FIRST_PARTY: return "first_party";
    case BROCK_WHY_PRIVATE: return "private";
    case BROCK_WHY_DISABLED: return "disabled";
    case BROCK_WHY_IGNORED: return "site_fix";
    case BROCK_WHY_FP_SCRIPT: return "fingerprinting";
    case BROCK_WHY_WIDGET: return "widget";
    case BROCK_WHY_ACTION: break;
    }
    if (ev->site_choice)
        return "user_site";
    if (ev->site_fix)
        return "yellowlist";
    switch ((enum brock_action)ev->action) {
    case BROCK_USER_ALLOW:
    case BROCK_USER_BLOCK:
    case BROCK_USER_COOKIEBLOCK: return "user";
    case BROCK_DNT: return "dnt_policy";
    case BROCK_NOACTION: return "not_tracking";
    case BROCK_ALLOW:
    case BROCK_BLOCK:
    case BROCK_COOKIEBLOCK: return "learned";
    }
    return "learned";
}

/* One event: "id: N", "data: {...}" and the blank line that ends it. */
static int event_write(const struct dash_log_event *ev, struct buf *out)
{
    json_t *j = json_pack(
        "{s:I,s:I,s:s,s:s,s:s,s:s,s:s,s:s,s:i}", "id", (json_int_t)ev->id, "time",
        (json_int_t)ev->time_ms, "method", ev->method, "host", ev->host, "site", ev->site,
        "decision", ev->decision < DASH_DECISION_COUNT ? decision_words[ev->decision] : "allow",
        "action", brock_action_name((enum brock_action)ev->action), "reason", reason_word(ev),
        "status", ev->status);
    char text[2048];
    size_t n;
    int rc = -1;

    if (!j)
        return -1;
    /* Host names and a method token: one short line, no allocation for its text. */
    n = json_dumpb(j, text, sizeof(text), JSON_COMPACT | JSON_ENSURE_ASCII);
    if (n > 0 && n <= sizeof(text) &&
        buf_printf(out, "id: %" PRIu64 "\ndata: %.*s\n\n", ev->id, (int)n, text) == 0)
        rc = 0;
    json_decref(j);
    return rc;
}

int dash_log_write(const struct dash_log *l, uint64_t *next, struct buf *out, size_t room)
{
    uint64_t oldest = l->next_id > DASH_LOG_EVENTS ? l->next_id - DASH_LOG_EVENTS : 1;

    if (*next > l->next_id)
        *next = l->next_id; /* an id from another start of brock: from now on */
    if (*next < oldest) {
        if (buf_printf(out, "event: skipped\ndata: {\"skipped\":%" PRIu64 "}\n\n", oldest - *next) <
            0)
            return -1;
        *next = oldest;
    }
    while (*next < l->next_id && out->len < room) {
        if (event_write(&l->ring[*next % DASH_LOG_EVENTS], out) < 0)
            return -1;
        (*next)++;
    }
    return 0;
}

/* ---- GET /api/log ---- */

/* Where a client starts: after the Last-Event-ID it names (a reconnecting EventSource), or
 * with the whole ring. Returns 0, or -1 for an id that is not a number. */
static int log_start(const struct dash_call *x, uint64_t *next)
{
    const struct brock_header *h = http_header_find(x->rq->h, x->rq->n, "last-event-id");
    const struct dash_log *l = x->env->host.log;
    char *end;
    unsigned long long last;

    if (!h || !*h->value) {
        *next = l->next_id > DASH_LOG_EVENTS ? l->next_id - DASH_LOG_EVENTS : 1;
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
    }
    x->stream = 1;
    x->type = "text/event-stream; charset=utf-8";
    buf_reset(&x->text);
    /* An EventSource that loses the stream asks again after this many ms. */
    return buf_puts(&x->text, "retry: 2000\n\n");
}
