/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the HTTP Archive tests share: writing a HAR from rows of entries, learning from one and
 * what the run said, and reading back what was learned. */
#ifndef BROCK_TEST_HAR_TEST_H
#define BROCK_TEST_HAR_TEST_H

#include "test.h"

#include <string.h>

#include <jansson.h>

#include "engine/engine.h"

/* ---- writing HARs ---- */

/* One entry, as a HAR writer would record it. */
struct ent {
    const char *page; /* pageref; NULL: none */
    int sec;          /* startedDateTime, seconds after 10:00; -1: none */
    const char *url;
    const char *dest;  /* Sec-Fetch-Dest; NULL: none */
    const char *rtype; /* Chromium's _resourceType; NULL: none */
    const char *frame; /* Playwright's _frameref; NULL: none */
    const char *referer;
    const char *cookie; /* a Cookie header */
    const char *set_cookie;
    const char *location; /* a redirect's target; NULL: answered 200 */
};

static inline json_t *pair(const char *name, const char *value)
{
    return json_pack("{s:s, s:s}", "name", name, "value", value);
}

static inline json_t *entry(const struct ent *v)
{
    json_t *req_h = json_array(), *resp_h = json_array(), *o;
    char when[64];

    if (v->dest) {
        int nav = strcmp(v->dest, "document") == 0 || strcmp(v->dest, "iframe") == 0;

        json_array_append_new(req_h, pair("Sec-Fetch-Dest", v->dest));
        json_array_append_new(req_h, pair("Sec-Fetch-Mode", nav ? "navigate" : "no-cors"));
    }
    if (v->referer)
        json_array_append_new(req_h, pair("Referer", v->referer));
    if (v->cookie)
        json_array_append_new(req_h, pair("Cookie", v->cookie));
    if (v->set_cookie)
        json_array_append_new(resp_h, pair("Set-Cookie", v->set_cookie));
    if (v->location)
        json_array_append_new(resp_h, pair("Location", v->location));
    o = json_pack("{s:{s:s, s:s, s:s, s:o, s:[], s:[], s:i, s:i}, "
                  "s:{s:i, s:s, s:s, s:o, s:[], s:{s:i, s:s}, s:s, s:i, s:i}, "
                  "s:{}, s:{s:i, s:i, s:i}}",
                  "request", "method", "GET", "url", v->url, "httpVersion", "HTTP/1.1", "headers",
                  req_h, "queryString", "cookies", "headersSize", -1, "bodySize", 0, "response",
                  "status", v->location ? 302 : 200, "statusText", v->location ? "Found" : "OK",
                  "httpVersion", "HTTP/1.1", "headers", resp_h, "cookies", "content", "size", 0,
                  "mimeType", v->rtype && !strcmp(v->rtype, "document") ? "text/html" : "image/gif",
                  "redirectURL", v->location ? v->location : "", "headersSize", -1, "bodySize", 0,
                  "cache", "timings", "send", 0, "wait", 1, "receive", 0);
    assert_non_null(o);
    if (v->page)
        json_object_set_new(o, "pageref", json_string(v->page));
    if (v->sec >= 0) {
        snprintf(when, sizeof(when), "2024-05-01T10:%02d:%02d.000Z", v->sec / 60, v->sec % 60);
        json_object_set_new(o, "startedDateTime", json_string(when));
    }
    if (v->rtype)
        json_object_set_new(o, "_resourceType", json_string(v->rtype));
    if (v->frame)
        json_object_set_new(o, "_frameref", json_string(v->frame));
    return o;
}

/* A HAR of the n entries; pages are listed for every pageref used. */
static inline json_t *har(const struct ent *v, size_t n)
{
    json_t *pages = json_array(), *entries = json_array();

    for (size_t i = 0; i < n; i++) {
        int seen = 0;

        for (size_t j = 0; j < i; j++)
            seen |= v[j].page && v[i].page && !strcmp(v[j].page, v[i].page);
        if (v[i].page && !seen)
            json_array_append_new(pages,
                                  json_pack("{s:s, s:s, s:s}", "id", v[i].page, "title", "a page",
                                            "startedDateTime", "2024-05-01T10:00:00.000Z"));
        json_array_append_new(entries, entry(&v[i]));
    }
    return json_pack("{s:{s:s, s:{s:s, s:s}, s:o, s:o}}", "log", "version", "1.2", "creator",
                     "name", "test", "version", "1", "pages", pages, "entries", entries);
}

/* What one learning run said. */
struct run {
    struct brock_stats st;
    int rc;
    size_t n_warn;
    char warn[8][512];
    char errmsg[512];
};

static inline void on_warning(void *arg, const char *msg)
{
    struct run *r = arg;

    if (r->n_warn < 8)
        snprintf(r->warn[r->n_warn], sizeof(r->warn[0]), "%s", msg);
    r->n_warn++;
}

static inline void learn_text(struct brock_engine *e, const char *text, size_t len, struct run *r)
{
    memset(r, 0, sizeof(*r));
    r->rc = brock_learn_har(e, "t.har", text, len, NULL, on_warning, r, &r->st);
    snprintf(r->errmsg, sizeof(r->errmsg), "%s", brock_engine_errmsg(e));
}

/* Learns from doc (taken) into e. */
static inline void learn(struct brock_engine *e, json_t *doc, struct run *r)
{
    char *text = json_dumps(doc, JSON_COMPACT);

    assert_non_null(text);
    learn_text(e, text, strlen(text), r);
    free(text);
    json_decref(doc);
}

/* The sites tracker (a base domain) was seen on, comma-joined, in the order seen. */
static inline const char *sites(struct brock_engine *e, const char *tracker)
{
    static char out[1024];
    const struct snitch *s = brock__snitch_get(e, tracker);

    out[0] = '\0';
    for (size_t i = 0; s && i < s->n; i++) {
        if (i)
            strncat(out, ",", sizeof(out) - strlen(out) - 1);
        strncat(out, s->v[i].site, sizeof(out) - strlen(out) - 1);
    }
    return out;
}

static inline enum brock_action best(struct brock_engine *e, const char *d)
{
    return brock__best_action(e, d, NULL);
}

/* The entry at index i of doc's log.entries. */
static inline json_t *nth(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(json_object_get(doc, "log"), "entries"), i);
}

/* One page on one.com: a tracker sent a cookie, another setting one. */
static const struct ent plain[] = {
    {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.one.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 2, "https://px.other.net/a", "image", NULL, NULL, "https://www.one.com/", NULL,
     "id=77aa11bb22cc; Path=/", NULL},
};

#endif
