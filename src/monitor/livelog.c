/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The live request log's ring, and its events as Server-Sent Events. */
#include "monitor/livelog.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "util/alloc.h"

/* ---- the ring ---- */

int livelog_init(struct livelog *l)
{
    l->next_id = 1;
    l->ring = mem_calloc(LIVELOG_EVENTS, sizeof(*l->ring));
    return l->ring ? 0 : -1;
}

void livelog_cleanup(struct livelog *l)
{
    mem_free(l->ring);
    l->ring = NULL;
}

const char *livelog_way_name(unsigned way)
{
    return way == 1 ? "socks" : way == 2 ? "transparent" : "proxy";
}

struct livelog_event *livelog_add(struct livelog *l)
{
    struct livelog_event *ev = &l->ring[l->next_id % LIVELOG_EVENTS];

    /* Only what the event's own fields need: the strings are written by the caller. */
    ev->id = l->next_id++;
    ev->time_ms = 0;
    ev->method[0] = ev->host[0] = ev->site[0] = '\0';
    ev->decision = ev->action = ev->reason = ev->site_fix = ev->site_choice = 0;
    ev->answer = LIVELOG_ANSWER_NONE;
    ev->page = LIVELOG_PAGE_NONE;
    ev->status = 0;
    ev->cleaned = BROCK_CLEAN_NONE;
    ev->removed[0] = '\0';
    ev->via[0] = '\0';
    ev->via_dns = 0;
    ev->way = 0;
    return ev;
}

/* ---- the events as text ---- */

static const char *const decision_words[METRICS_DECISION_COUNT] = {
    [METRICS_DECISION_ALLOW] = "allow",       [METRICS_DECISION_COOKIEBLOCK] = "cookieblock",
    [METRICS_DECISION_BLOCK] = "block",       [METRICS_DECISION_FIRST_PARTY] = "first_party",
    [METRICS_DECISION_DISABLED] = "disabled",
};

static const char *const answer_words[] = {
    [LIVELOG_ANSWER_NONE] = "none",
    [LIVELOG_ANSWER_SERVER] = "server",
    [LIVELOG_ANSWER_BROCK] = "brock",
    [LIVELOG_ANSWER_TUNNEL] = "tunnel",
};

static const char *const page_words[] = {
    [LIVELOG_PAGE_NONE] = "none",
    [LIVELOG_PAGE_KNOWN] = "known",
    [LIVELOG_PAGE_GUESS] = "guess",
    [LIVELOG_PAGE_SELF] = "self",
};

/* Why, in a word: which of the engine's rules decided (PRIVACY-BADGER.md's order). */
static const char *reason_word(const struct livelog_event *ev)
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
static int event_write(const struct livelog_event *ev, struct buf *out)
{
    json_t *j = json_pack(
        "{s:I,s:I,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:s,s:s,s:s}", "id", (json_int_t)ev->id, "time",
        (json_int_t)ev->time_ms, "method", ev->method, "host", ev->host, "site", ev->site,
        "decision", ev->decision < METRICS_DECISION_COUNT ? decision_words[ev->decision] : "allow",
        "action", brock_action_name((enum brock_action)ev->action), "reason", reason_word(ev),
        "status", ev->status, "answered_by",
        answer_words[ev->answer <= LIVELOG_ANSWER_TUNNEL ? ev->answer : LIVELOG_ANSWER_NONE],
        "page", page_words[ev->page <= LIVELOG_PAGE_SELF ? ev->page : LIVELOG_PAGE_NONE], "client",
        ev->client);
    char text[2048];
    size_t n;
    int rc = -1;

    if (!j)
        return -1;
    /* A URL cleaned: "stripped" (the parameters in removed) or "redirect" (unwrapped). */
    if (ev->cleaned != BROCK_CLEAN_NONE &&
        (json_object_set_new(
             j, "cleaned",
             json_string(ev->cleaned == BROCK_CLEAN_REDIRECT ? "redirect" : "stripped")) < 0 ||
         json_object_set_new(j, "removed", json_string(ev->removed)) < 0)) {
        json_decref(j);
        return -1;
    }
    /* Which way the client came in: "proxy" (an HTTP proxy's client) or "socks". */
    if (json_object_set_new(j, "way", json_string(livelog_way_name(ev->way))) < 0) {
        json_decref(j);
        return -1;
    }
    /* Decided on a CNAME target: "via_cname", and "via_dns" when DNS gave the chain. */
    if (ev->via[0] && (json_object_set_new(j, "via_cname", json_string(ev->via)) < 0 ||
                       json_object_set_new(j, "via_dns", json_boolean(ev->via_dns)) < 0)) {
        json_decref(j);
        return -1;
    }
    /* Host names and a method token: one short line, no allocation for its text. */
    n = json_dumpb(j, text, sizeof(text), JSON_COMPACT | JSON_ENSURE_ASCII);
    if (n > 0 && n <= sizeof(text) &&
        buf_printf(out, "id: %" PRIu64 "\ndata: %.*s\n\n", ev->id, (int)n, text) == 0)
        rc = 0;
    json_decref(j);
    return rc;
}

int livelog_write(const struct livelog *l, uint64_t *next, struct buf *out, size_t room,
                  const char *only)
{
    uint64_t oldest = l->next_id > LIVELOG_EVENTS ? l->next_id - LIVELOG_EVENTS : 1;

    if (*next > l->next_id)
        *next = l->next_id; /* an id from another start of brock: from now on */
    if (*next < oldest) {
        if (!only && buf_printf(out, "event: skipped\ndata: {\"skipped\":%" PRIu64 "}\n\n",
                                oldest - *next) < 0)
            return -1;
        *next = oldest;
    }
    while (*next < l->next_id && out->len < room) {
        const struct livelog_event *ev = &l->ring[*next % LIVELOG_EVENTS];

        if ((!only || !strcmp(ev->client, only)) && event_write(ev, out) < 0)
            return -1;
        (*next)++;
    }
    return 0;
}
