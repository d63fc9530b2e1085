/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP Archives: whose first party each entry is (a tab's navigations under one page,
 * frames, Referers, the order entries started in), odd fields read as absent with one
 * warning per kind and file, what is not a HAR at all, and running out of memory. */
#include "test.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "util/alloc.h"
#include "util/file.h"

/* ---- an allocator that fails on demand ---- */

static long alloc_countdown = -1; /* allocations left before one fails; -1: never */
static long alloc_calls;          /* allocations asked for */

static int alloc_fails(void)
{
    alloc_calls++;
    if (alloc_countdown < 0)
        return 0;
    return alloc_countdown-- == 0;
}

static void *t_malloc(size_t n)
{
    return alloc_fails() ? NULL : malloc(n);
}

static void *t_realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : realloc(p, n);
}

static void *t_calloc(size_t n, size_t sz)
{
    return alloc_fails() ? NULL : calloc(n, sz);
}

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

static json_t *pair(const char *name, const char *value)
{
    return json_pack("{s:s, s:s}", "name", name, "value", value);
}

static json_t *entry(const struct ent *v)
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
static json_t *har(const struct ent *v, size_t n)
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

static void on_warning(void *arg, const char *msg)
{
    struct run *r = arg;

    if (r->n_warn < 8)
        snprintf(r->warn[r->n_warn], sizeof(r->warn[0]), "%s", msg);
    r->n_warn++;
}

static void learn_text(struct brock_engine *e, const char *text, size_t len, struct run *r)
{
    memset(r, 0, sizeof(*r));
    r->rc = brock_learn_har(e, "t.har", text, len, NULL, on_warning, r, &r->st);
    snprintf(r->errmsg, sizeof(r->errmsg), "%s", brock_engine_errmsg(e));
}

/* Learns from doc (taken) into e. */
static void learn(struct brock_engine *e, json_t *doc, struct run *r)
{
    char *text = json_dumps(doc, JSON_COMPACT);

    assert_non_null(text);
    learn_text(e, text, strlen(text), r);
    free(text);
    json_decref(doc);
}

/* The sites tracker (a base domain) was seen on, comma-joined, in the order seen. */
static const char *sites(struct brock_engine *e, const char *tracker)
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

static enum brock_action best(struct brock_engine *e, const char *d)
{
    return brock__best_action(e, d, NULL);
}

/* The entry at index i of doc's log.entries. */
static json_t *nth(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(json_object_get(doc, "log"), "entries"), i);
}

/* ---- changes to a written HAR that entry() cannot make ---- */

/* The answer of entry i of doc is of type mime. */
static void set_mime(json_t *doc, size_t i, const char *mime)
{
    json_t *content = json_object_get(json_object_get(nth(doc, i), "response"), "content");

    assert_int_equal(json_object_set_new(content, "mimeType", json_string(mime)), 0);
}

/* Entry i of doc's request is made with method and carries one more header. */
static void add_request_header(json_t *doc, size_t i, const char *method, const char *name,
                               const char *value)
{
    json_t *req = json_object_get(nth(doc, i), "request");

    assert_int_equal(json_object_set_new(req, "method", json_string(method)), 0);
    assert_int_equal(json_array_append_new(json_object_get(req, "headers"), pair(name, value)), 0);
}

/* entry() sends "empty" with no-cors; the JSON beacon went with cors */
static void edit_beacons(json_t *doc)
{
    json_t *h;

    add_request_header(doc, 1, "POST", "Content-Type", "text/plain;charset=UTF-8");
    h = json_object_get(json_object_get(nth(doc, 2), "request"), "headers");
    json_array_clear(h);
    json_array_append_new(h, pair("Sec-Fetch-Dest", "empty"));
    json_array_append_new(h, pair("Sec-Fetch-Mode", "cors"));
    json_array_append_new(h, pair("Referer", "https://www.one.com/"));
    add_request_header(doc, 2, "POST", "Content-Type", "application/json");
    add_request_header(doc, 3, "POST", "Content-Type", "text/plain;charset=UTF-8");
    add_request_header(doc, 4, "POST", "Content-Type", "application/json");
}

/* brock is disabled on two.com, and denies px.tracker.net on three.com. */
static void prepare_as_the_proxy(struct brock_engine *e)
{
    assert_int_equal(brock_site_set_disabled(e, "two.com", 1), 0);
    assert_int_equal(brock_set_site_action(e, "three.com", "px.tracker.net", BROCK_USER_BLOCK), 0);
}

/* IE11 writes "cookies": {}. */
static void edit_ie11(json_t *doc)
{
    for (size_t i = 0; i < 3; i++) {
        json_object_set_new(json_object_get(nth(doc, i), "request"), "cookies", json_object());
        json_object_set_new(json_object_get(nth(doc, i), "response"), "cookies", json_object());
    }
}

#define UID "5d41402abc4b2a76b9719d911017c592"
#define VID "7d793037a0760186574b0282f2f435e7"
#define SID "0cc175b9c0f1b6a831c399e269772661"
#define OLD "92eb5ffee6ae2fec3ad71c777531578f"

static void edit_pixel_cookies(json_t *doc)
{
    json_object_set_new(json_object_get(nth(doc, 0), "response"), "cookies",
                        json_pack("[{s:s, s:s}]", "name", "uid", "value", UID));
    json_object_set_new(json_object_get(nth(doc, 2), "request"), "cookies",
                        json_pack("[{s:s, s:s}]", "name", "vid", "value", VID));
    json_object_set_new(json_object_get(nth(doc, 4), "response"), "cookies",
                        json_pack("[{s:s, s:s, s:b}, {s:s, s:s, s:s}]", "name", "sid", "value", SID,
                                  "httpOnly", 1, "name", "old", "value", OLD, "expires",
                                  "2000-01-01T00:00:00.000Z"));
}

static void edit_odd_lists(json_t *doc)
{
    json_t *req = json_object_get(nth(doc, 1), "request");
    json_t *hdrs = json_object_get(req, "headers");

    /* a header with a number for a value, and one that is not an object, before the Cookie */
    json_array_insert_new(hdrs, 0, json_pack("{s:s, s:i}", "name", "Cookie", "value", 5));
    json_array_insert_new(hdrs, 0, json_string("Cookie: uid=1"));
    json_object_set_new(req, "cookies", json_string("uid=8f3a9c2e1b7d"));
    json_object_set_new(json_object_get(nth(doc, 2), "response"), "headers", json_object());
    json_object_set_new(json_object_get(nth(doc, 2), "response"), "cookies",
                        json_pack("[{s:s, s:s}]", "name", "id", "value", "77aa11bb22cc"));
    /* fields brock does not read may be anything */
    json_object_set_new(req, "queryString", json_string("a=1"));
    json_object_set_new(nth(doc, 1), "timings", json_array());
}

/* entry 1 says it started yesterday in words: it stays after entry 0, so entry 2 is two.com's;
 * entry 3 lost its pageref and falls back on its Referer */
static void edit_odd_response(json_t *doc)
{
    json_object_set_new(nth(doc, 1), "startedDateTime", json_string("yesterday"));
    json_object_del(nth(doc, 2), "response");
    json_object_set_new(nth(doc, 3), "pageref", json_integer(7));
}

static void edit_unreadable(json_t *doc)
{
    json_t *entries = json_object_get(json_object_get(doc, "log"), "entries");

    json_array_append_new(entries, json_string("just a string"));
    json_array_append_new(entries, json_pack("{s:i}", "request", 1));
    json_array_append_new(entries, json_pack("{s:{s:i}}", "request", "url", 42));
    json_array_append_new(entries, json_pack("{s:{s:n}}", "request", "url"));
    json_object_set_new(json_object_get(doc, "log"), "pages", json_string("none"));
}

/* ---- the recordings ---- */

/* Over https every request says what it is for; entries are written out of order. */
static const struct ent sec_fetch[] = {
    {"p", 20, "https://www.three.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.one.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 10, "https://www.two.com/", "document", NULL, NULL, "https://www.one.com/", NULL, NULL,
     NULL},
    {"p", 11, "https://ads.four.com/f.html", "iframe", NULL, NULL, "https://www.two.com/", NULL,
     NULL, NULL},
    {"p", 12, "https://px.tracker.net/f", "image", NULL, NULL, "https://ads.four.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 21, "https://px.tracker.net/c", "image", NULL, NULL, "https://www.three.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
};

/* A request that started after the next navigation but names the page before it in its
 * Referer was that page's: it is not counted on the new site, nor on a redirect between. */
static const struct ent previous_page[] = {
    {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 4, "https://go.short.com/x", "document", NULL, NULL, "https://www.one.com/", NULL, NULL,
     "https://www.two.com/"},
    {"p", 5, "https://www.two.com/", "document", NULL, NULL, "https://www.one.com/", NULL, NULL,
     NULL},
    {"p", 6, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.one.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 7, "https://px.other.net/a", "image", NULL, NULL, "https://www.two.com/",
     "uid=0a1b2c3d4e5f", NULL, NULL},
};

/* Playwright over http: documents in the page's first frame are navigations, documents in
 * another frame are frames, whatever their Referer says. */
static const struct ent frameref[] = {
    {"p", 0, "http://www.one.com/", NULL, "document", "frame@1", NULL, NULL, NULL, NULL},
    {"p", 1, "http://px.tracker.net/a", NULL, "image", "frame@1", "http://www.one.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 2, "http://ads.four.com/f.html", NULL, "document", "frame@2", "http://www.one.com/", NULL,
     NULL, NULL},
    {"p", 3, "http://ads.four.com/inner.html", NULL, "document", "frame@3",
     "http://ads.four.com/f.html", NULL, NULL, NULL},
    {"p", 4, "http://px.other.net/b", NULL, "image", "frame@3", "http://ads.four.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 9, "http://www.two.com/", NULL, "document", "frame@1", NULL, NULL, NULL, NULL},
    {"p", 10, "http://px.tracker.net/b", NULL, "image", "frame@1", "http://www.two.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
};

/* Without pages the Referer names the first party, unless it names a frame: then the page
 * the frame was in. */
static const struct ent no_pages[] = {
    {NULL, 0, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {NULL, 1, "https://ads.four.com/f.html", "iframe", NULL, NULL, "https://www.two.com/", NULL,
     NULL, NULL},
    {NULL, 2, "https://px.tracker.net/f", "image", NULL, NULL, "https://ads.four.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {NULL, 3, "https://px.other.net/r", "image", NULL, NULL, "https://www.five.com/x",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {NULL, 4, "https://px.other.net/n", "image", NULL, NULL, NULL, "uid=8f3a9c2e1b7d", NULL, NULL},
};

/* Firefox's page per navigation: each page's navigation is its first party. */
static const struct ent page_per_navigation[] = {
    {"page_1", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"page_1", 1, "https://px.tracker.net/a", "image", NULL, NULL, NULL, "uid=8f3a9c2e1b7d", NULL,
     NULL},
    {"page_2", 5, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"page_2", 6, "https://ads.four.com/f.html", "iframe", NULL, NULL, "https://www.two.com/", NULL,
     NULL, NULL},
    {"page_2", 7, "https://px.tracker.net/b", "image", NULL, NULL, "https://ads.four.com/", NULL,
     "id=77aa11bb22cc; Path=/", NULL},
};

/* With neither Sec-Fetch-Dest nor _frameref a later document may be a frame: the page keeps
 * its first document as first party. */
static const struct ent untold_documents[] = {
    {"p", 0, "https://www.one.com/", NULL, "document", NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "https://ads.four.com/f.html", NULL, "document", NULL, "https://www.one.com/", NULL,
     NULL, NULL},
    {"p", 2, "https://px.tracker.net/a", NULL, "image", NULL, "https://ads.four.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
};

/* Plain http recorded without DevTools' resource types, one page for the tab: an HTML
 * document asked for with no Referer is a navigation, whatever came before it in the page,
 * and so is a redirect asked for that way. */
static const struct ent untyped_navigations[] = {
    {"p", 0, "http://site-one.example/", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "http://px.tracker.example/p.gif", NULL, NULL, NULL, "http://site-one.example/",
     "tid=7f3c9a1e5b2d48c6a0e9f1b3d5c7a9e2", NULL, NULL},
    {"p", 5, "http://site-two.example/", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 6, "http://px.tracker.example/p.gif", NULL, NULL, NULL, "http://site-two.example/",
     "tid=7f3c9a1e5b2d48c6a0e9f1b3d5c7a9e2", NULL, NULL},
    {"p", 9, "http://site-three.example/go", NULL, NULL, NULL, NULL, NULL, NULL,
     "http://site-three.example/"},
    {"p", 10, "http://site-three.example/", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 11, "http://px.tracker.example/p.gif", NULL, NULL, NULL, "http://site-three.example/",
     "tid=7f3c9a1e5b2d48c6a0e9f1b3d5c7a9e2", NULL, NULL},
};

/* With Playwright's _frameref, an HTML document in the frame of the page's first document is
 * a navigation, a link's (with its Referer) too; one in another frame is a frame. */
static const struct ent untyped_frames[] = {
    {"p", 0, "http://www.one.com/", NULL, NULL, "frame@1", NULL, NULL, NULL, NULL},
    {"p", 1, "http://px.tracker.net/a", NULL, NULL, "frame@1", "http://www.one.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 4, "http://www.two.com/", NULL, NULL, "frame@1", "http://www.one.com/", NULL, NULL, NULL},
    {"p", 5, "http://ads.four.com/f.html", NULL, NULL, "frame@2", "http://www.two.com/", NULL, NULL,
     NULL},
    {"p", 6, "http://px.other.net/b", NULL, NULL, "frame@2", "http://ads.four.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 7, "http://px.tracker.net/b", NULL, NULL, "frame@1", "http://www.two.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
};

/* A beacon is what the proxy would read in its headers: sendBeacon()'s fetch metadata (a POST,
 * empty, no-cors), else, where the recording has none, Chromium's _resourceType "ping" with a
 * body that needs no CORS. One whose body needs CORS is a fetch() to the proxy, and here. */
static const struct ent beacons[] = {
    {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "https://b.metrics.net/c", "empty", "ping", NULL, "https://www.one.com/", NULL, NULL,
     NULL},
    {"p", 2, "https://b.json.net/c", "empty", "ping", NULL, "https://www.one.com/", NULL, NULL,
     NULL},
    {"p", 3, "https://b.plain.net/c", NULL, "ping", NULL, "https://www.one.com/", NULL, NULL, NULL},
    {"p", 4, "https://b.cors.net/c", NULL, "ping", NULL, "https://www.one.com/", NULL, NULL, NULL},
};

/* A recording teaches what the proxy would learn from the same requests: on a site where
 * brock is disabled too (Privacy Badger learns there), but not from a request brock denies on
 * its page (it never leaves). */
static const struct ent as_the_proxy[] = {
    {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.one.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 2, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 3, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.two.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 4, "https://www.three.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 5, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.three.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
};

/* Pixel cookie sharing: the page's cookies come from the entries to its own site, from the
 * cookies arrays too when a HAR lists no Cookie or Set-Cookie header; one marked httpOnly, or
 * expired, is not the page's scripts' to copy. An image told only by its answer's type. */
static const struct ent pixel_cookies[] = {
    {"a", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"a", 1, "https://px.share.net/p.gif?u=" UID, NULL, NULL, NULL, "https://www.one.com/", NULL,
     NULL, NULL},
    {"b", 2, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"b", 3, "https://px.share.net/p.gif?v=" VID, NULL, NULL, NULL, "https://www.two.com/", NULL,
     NULL, NULL},
    {"c", 4, "https://www.three.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"c", 5, "https://px.share.net/p.gif?s=" SID "&o=" OLD, NULL, NULL, NULL,
     "https://www.three.com/", NULL, NULL, NULL},
};

/* A missing response, a bad date and an odd pageref cost only that field. */
static const struct ent odd_response[] = {
    {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 2, "https://px.tracker.net/a", "image", NULL, NULL, NULL, "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 3, "https://px.other.net/a", "image", NULL, NULL, "https://www.two.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
};

#undef UID
#undef VID
#undef SID
#undef OLD

/* One page on one.com: a tracker sent a cookie, another setting one. */
static const struct ent plain[] = {
    {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    {"p", 1, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.one.com/",
     "uid=8f3a9c2e1b7d", NULL, NULL},
    {"p", 2, "https://px.other.net/a", "image", NULL, NULL, "https://www.one.com/", NULL,
     "id=77aa11bb22cc; Path=/", NULL},
};

/* ---- what each recording teaches ---- */

/* The type of entry i's answer, where entry() wrote an image's or an HTML document's. */
struct mime {
    size_t i;
    const char *type;
};

/* A base domain and the sites it was seen on, comma-joined, in the order seen. */
struct seen {
    const char *tracker, *sites;
};

enum tally { NO_TALLY, ENTRIES, THIRD_PARTY, BLOCKED, SKIPPED, UNREADABLE, WARNINGS };

static const char *const tally_name[] = {"",        "entries",    "third_party", "blocked",
                                         "skipped", "unreadable", "warnings"};

/* One of the counts a run tells, and what it must be. */
struct count {
    enum tally what;
    size_t n;
};

/* A recording, learned by a fresh engine, and what it must teach: the learning succeeds,
 * every warning it tells is listed, in order. */
struct har_case {
    const char *name;
    const char *file; /* a recording in the test data; NULL: v written as a HAR */
    const struct ent *v;
    size_t n;
    struct mime mime[4];                    /* to the written HAR; ended by a NULL type */
    void (*edit)(json_t *doc);              /* other changes to it; NULL: none */
    void (*prepare)(struct brock_engine *); /* choices made before; NULL: none */
    struct seen seen[4];                    /* ended by a NULL tracker */
    const char *blocks;                     /* a base domain then blocked; NULL: none said */
    struct count counts[6];                 /* ended by NO_TALLY */
    const char *warn[4];                    /* the warnings told; the rest NULL */
};

#define ENTS(a) .v = (a), .n = sizeof(a) / sizeof((a)[0])

static const struct har_case har_cases[] = {
    /* A real recording: Playwright's recordHar keeps one page for the tab's three
     * navigations, over plain http (no Sec-Fetch-Dest), and site-two's frame from site-four
     * loads the tracker too. */
    {.name = "playwright one page",
     .file = "har/playwright-one-page.har",
     .seen = {{"tracker.test", "site-one.test,site-two.test,site-three.test"}},
     .blocks = "tracker.test",
     .counts = {{BLOCKED, 1}, {ENTRIES, 9}, {SKIPPED, 0}, {WARNINGS, 0}}},
    {.name = "sec-fetch one page",
     ENTS(sec_fetch),
     .seen = {{"tracker.net", "one.com,two.com,three.com"}},
     .blocks = "tracker.net"},
    {.name = "request of the previous page",
     ENTS(previous_page),
     .seen = {{"tracker.net", "one.com"}, {"other.net", "two.com"}}},
    {.name = "frameref",
     ENTS(frameref),
     .seen = {{"tracker.net", "one.com,two.com"}, {"other.net", "one.com"}}},
    {.name = "no pages, a frame's referer",
     ENTS(no_pages),
     .seen = {{"tracker.net", "two.com"}, {"other.net", "five.com"}},
     .counts = {{SKIPPED, 1}}},
    {.name = "page per navigation",
     ENTS(page_per_navigation),
     .seen = {{"tracker.net", "one.com,two.com"}}},
    {.name = "untold documents keep the first",
     ENTS(untold_documents),
     .seen = {{"tracker.net", "one.com"}},
     .counts = {{THIRD_PARTY, 1}}},
    {.name = "untyped navigations",
     ENTS(untyped_navigations),
     .mime =
         {{0, "text/html"}, {2, "text/html; charset=utf-8"}, {4, "text/plain"}, {5, "text/html"}},
     .seen = {{"tracker.example", "site-one.example,site-two.example,site-three.example"}},
     .blocks = "tracker.example",
     .counts = {{THIRD_PARTY, 3}, {BLOCKED, 1}}},
    {.name = "untyped frames",
     ENTS(untyped_frames),
     .mime = {{0, "text/html"}, {2, "text/html"}, {3, "text/html"}},
     .seen = {{"tracker.net", "one.com,two.com"}, {"other.net", "two.com"}, {"four.com", ""}}},
    {.name = "beacons as the proxy reads them",
     ENTS(beacons),
     .edit = edit_beacons,
     .seen = {{"metrics.net", "one.com"},
              {"json.net", ""},
              {"plain.net", "one.com"},
              {"cors.net", ""}}},
    {.name = "learns as the proxy does",
     ENTS(as_the_proxy),
     .prepare = prepare_as_the_proxy,
     .seen = {{"tracker.net", "one.com,two.com"}},
     .counts = {{THIRD_PARTY, 3}}},
    /* IE11 writes "cookies": {}: read as none, the headers learned from, one warning. */
    {.name = "IE11's cookies object",
     ENTS(plain),
     .edit = edit_ie11,
     .seen = {{"tracker.net", "one.com"}, {"other.net", "one.com"}},
     .counts = {{WARNINGS, 6}, {UNREADABLE, 0}},
     .warn = {"t.har: log.entries[0].request.cookies is an object, not an array; read as none "
              "(and 5 more like it)"}},
    {.name = "pixel cookie arrays",
     ENTS(pixel_cookies),
     .edit = edit_pixel_cookies,
     .seen = {{"share.net", "one.com,two.com"}}},
    /* Headers, cookies and single pairs of the wrong shape are left out, the rest is read. */
    {.name = "odd lists and pairs",
     ENTS(plain),
     .edit = edit_odd_lists,
     .seen = {{"tracker.net", "one.com"}, {"other.net", "one.com"}},
     .counts = {{WARNINGS, 4}},
     .warn = {"t.har: log.entries[2].response.headers is an object, not an array; read as none",
              "t.har: log.entries[1].request.cookies is a string, not an array; read as none",
              "t.har: log.entries[1].request.headers[0] is not an object with a string name and "
              "value; left out (and 1 more like it)"}},
    {.name = "odd response, time and pageref",
     ENTS(odd_response),
     .edit = edit_odd_response,
     .seen = {{"tracker.net", "two.com"}, {"other.net", "two.com"}},
     .warn = {"t.har: log.entries[3].pageref is a number, not a string; read as none",
              "t.har: log.entries[2].response is missing; read as none",
              "t.har: log.entries[1].startedDateTime is not a date and time (ISO 8601); the "
              "entry keeps its place in the file"}},
    /* Unreadable entries are skipped and counted; the others are learned from. */
    {.name = "unreadable entries",
     ENTS(plain),
     .edit = edit_unreadable,
     .seen = {{"tracker.net", "one.com"}},
     .counts = {{ENTRIES, 3}, {UNREADABLE, 4}},
     .warn = {"t.har: log.entries[3] is a string, not an object; skipped",
              "t.har: log.entries[4].request is a number, not an object; skipped",
              "t.har: log.entries[5].request.url is a number, not a string; skipped (and 1 more "
              "like it)",
              "t.har: log.pages is a string, not an array; read as none"}},
};

#undef ENTS

static size_t tally_of(const struct brock_stats *st, enum tally what)
{
    switch (what) {
    case ENTRIES: return st->entries;
    case THIRD_PARTY: return st->third_party;
    case BLOCKED: return st->blocked;
    case SKIPPED: return st->skipped;
    case UNREADABLE: return st->unreadable;
    case WARNINGS: return st->warnings;
    case NO_TALLY: break;
    }
    return 0;
}

/* Learns c's recording into e. */
static void learn_case(struct brock_engine *e, const struct har_case *c, struct run *r)
{
    char *text = NULL;
    size_t len = 0;
    json_t *doc;

    if (c->file) {
        assert_int_equal(file_read(test_data(c->file), 1 << 20, &text, &len), 0);
        learn_text(e, text, len, r);
        mem_free(text);
        return;
    }
    doc = har(c->v, c->n);
    for (const struct mime *m = c->mime; m->type; m++)
        set_mime(doc, m->i, m->type);
    if (c->edit)
        c->edit(doc);
    learn(e, doc, r);
}

/* What c's run told, against what the row says. */
static void check_case(struct brock_engine *e, size_t i, const struct har_case *c,
                       const struct run *r)
{
    size_t n_warn = 0;

    if (r->rc != 0)
        fail_msg("case %zu (%s): %d, %s", i, c->name, r->rc, r->errmsg);
    for (const struct seen *s = c->seen; s->tracker; s++) {
        const char *got = sites(e, s->tracker);

        if (strcmp(got, s->sites) != 0)
            fail_msg("case %zu (%s): %s seen on \"%s\", not \"%s\"", i, c->name, s->tracker, got,
                     s->sites);
    }
    if (c->blocks && best(e, c->blocks) != BROCK_BLOCK)
        fail_msg("case %zu (%s): %s is not blocked", i, c->name, c->blocks);
    for (const struct count *k = c->counts; k->what != NO_TALLY; k++) {
        if (tally_of(&r->st, k->what) != k->n)
            fail_msg("case %zu (%s): %s %zu, not %zu", i, c->name, tally_name[k->what],
                     tally_of(&r->st, k->what), k->n);
    }
    while (n_warn < 4 && c->warn[n_warn])
        n_warn++;
    if (r->n_warn != n_warn)
        fail_msg("case %zu (%s): %zu warnings, not %zu (the first: %s)", i, c->name, r->n_warn,
                 n_warn, r->n_warn ? r->warn[0] : "none");
    for (size_t w = 0; w < n_warn; w++) {
        if (strcmp(r->warn[w], c->warn[w]) != 0)
            fail_msg("case %zu (%s): warning %zu is \"%s\", not \"%s\"", i, c->name, w, r->warn[w],
                     c->warn[w]);
    }
}

static void test_har_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(har_cases) / sizeof(har_cases[0]); i++) {
        struct brock_engine *e = test_engine_open(NULL, NULL, 1);
        struct run r;

        if (har_cases[i].prepare)
            har_cases[i].prepare(e);
        learn_case(e, &har_cases[i], &r);
        check_case(e, i, &har_cases[i], &r);
        brock_engine_free(e);
    }
}

#define DEEP10 "[[[[[[[[[["
#define UNDEEP10 "]]]]]]]]]]"
#define DEEP DEEP10 DEEP10 DEEP10 DEEP10 DEEP10 DEEP10 DEEP10
#define UNDEEP UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10

/* What is not a HAR at all is refused, names the file and teaches nothing. */
static void test_not_a_har(void **state)
{
    static const char *const bad[] = {
        "this is not JSON",
        "[1,2,3]",
        "{\"log\":{\"version\":\"1.2\"}}",
        "{\"log\":{\"entries\":{}}}",
        "{\"log\":{\"entries\":[]}}",
        "{\"log\":{\"entries\":[{\"x\":" DEEP "1" UNDEEP "}]}}",
        "{\"log\":{\"entries\":[[[1]], [{\"request\":[[2]]}]]}}",
        "{\"log\":{\"entries\":[\"a\", {\"request\":{}}]}}",
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    size_t counts[BROCK_ACTION_COUNT], n;
    struct run r;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        learn_text(e, bad[i], strlen(bad[i]), &r);
        assert_int_equal(r.rc, BROCK_EFORMAT);
        assert_non_null(strstr(r.errmsg, "t.har: "));
        assert_int_equal(r.n_warn, 0);
    }
    assert_non_null(strstr(r.errmsg, "none of its 2 entries can be read"));
    brock_counts(e, counts, &n);
    assert_int_equal(n, 0);
    brock_engine_free(e);
}

/* ---- reading as a stream ---- */

/* log.pages may come after log.entries: what is learned and told is the same either way. */
static void test_pages_after_entries(void **state)
{
    struct run first, last;

    (void)state;
    for (int after = 0; after < 2; after++) {
        struct brock_engine *e = test_engine_open(NULL, NULL, 1);
        json_t *doc = har(plain, 3), *log = json_object_get(doc, "log");
        json_t *pages = json_incref(json_object_get(log, "pages"));
        struct run *r = after ? &last : &first;

        json_array_append_new(pages, json_integer(7));
        if (after) {
            /* jansson writes keys in the order they were set: pages now after entries */
            json_object_del(log, "pages");
            json_object_set(log, "pages", pages);
        }
        json_decref(pages);
        {
            char *text = json_dumps(doc, JSON_COMPACT);

            assert_non_null(text);
            if (after)
                assert_true(strstr(text, "\"pages\"") > strstr(text, "\"entries\""));
            learn_text(e, text, strlen(text), r);
            free(text);
        }
        json_decref(doc);
        assert_int_equal(r->rc, 0);
        assert_string_equal(sites(e, "tracker.net"), "one.com");
        assert_string_equal(sites(e, "other.net"), "one.com");
        brock_engine_free(e);
    }
    assert_int_equal(last.st.entries, first.st.entries);
    assert_int_equal(last.st.third_party, first.st.third_party);
    assert_int_equal(last.n_warn, 1);
    assert_string_equal(last.warn[0], "t.har: log.pages[1] is not an object with a string id; "
                                      "left out");
    assert_string_equal(first.warn[0], last.warn[0]);
}

/* A file cut short in the middle of an entry is refused whole: nothing is learned, not even
 * from the entries before the cut. */
static void test_truncated_mid_entry(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    json_t *doc = har(plain, 3);
    char *text = json_dumps(doc, JSON_COMPACT);
    const char *cut;
    char want[200];
    size_t counts[BROCK_ACTION_COUNT], n;
    struct run r;

    (void)state;
    assert_non_null(text);
    cut = strstr(text, "px.other.net"); /* inside the third entry */
    assert_non_null(cut);
    learn_text(e, text, (size_t)(cut - text), &r);
    assert_int_equal(r.rc, BROCK_EFORMAT);
    snprintf(want, sizeof(want),
             "t.har: not JSON: the text ends before the JSON does (line 1, column %zu)",
             (size_t)(cut - text) + 1);
    assert_string_equal(r.errmsg, want);
    assert_int_equal(r.n_warn, 0);
    assert_string_equal(sites(e, "tracker.net"), "");
    brock_counts(e, counts, &n);
    assert_int_equal(n, 0);
    /* the same text whole teaches what the cut one would have */
    learn_text(e, text, strlen(text), &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(sites(e, "tracker.net"), "one.com");
    free(text);
    json_decref(doc);
    brock_engine_free(e);
}

/* A file many read chunks long, with entries across the chunks' edges and one entry larger
 * than a chunk, written out of order: read from its descriptor, it teaches what its text
 * does; cut short, or not a regular file, it teaches nothing. */
static void test_file_larger_than_a_chunk(void **state)
{
    static const struct ent v[] = {
        {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
        {"p", 9, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.two.com/",
         "uid=8f3a9c2e1b7d", NULL, NULL},
        {"p", 5, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    json_t *doc = har(v, 3), *entries, *pad = json_array();
    char dir[256], path[300], *text;
    struct brock_stats st, st_text;
    struct run r;
    size_t len, counts[BROCK_ACTION_COUNT], n;
    int fd;

    (void)state;
    /* a header of 100 KB in the first entry, and 2,000 more entries of one.com's own */
    for (int k = 0; k < 25000; k++)
        json_array_append_new(pad, json_string("abc"));
    json_object_set_new(nth(doc, 0), "_padding", pad);
    entries = json_object_get(json_object_get(doc, "log"), "entries");
    for (int k = 0; k < 2000; k++) {
        struct ent own = {"p",  1,    "https://static.one.com/x.png", "image",
                          NULL, NULL, "https://www.one.com/",         "a=1",
                          NULL, NULL};

        json_array_insert_new(entries, 1, entry(&own));
    }
    text = json_dumps(doc, JSON_COMPACT);
    assert_non_null(text);
    len = strlen(text);
    assert_true(len > 8 * 65536);
    test_mkdtemp("har", dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/big.har", dir);
    assert_int_equal(file_write_atomic(path, text, len, 0600), 0);

    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "big.har", fd, NULL, NULL, NULL, &st), 0);
    close(fd);
    /* entry 1 started after entry 2's navigation to two.com */
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(st.entries, 2003);
    brock_engine_free(e);

    e = test_engine_open(NULL, NULL, 1);
    learn_text(e, text, len, &r);
    st_text = r.st;
    assert_int_equal(r.rc, 0);
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(st_text.entries, st.entries);
    assert_int_equal(st_text.third_party, st.third_party);
    brock_engine_free(e);

    /* cut short past the first chunks: refused, nothing learned */
    assert_int_equal(truncate(path, (off_t)(len - 100)), 0);
    e = test_engine_open(NULL, NULL, 1);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "big.har", fd, NULL, NULL, NULL, &st), BROCK_EFORMAT);
    close(fd);
    assert_non_null(strstr(brock_engine_errmsg(e), "big.har: not JSON: the text ends before"));
    brock_counts(e, counts, &n);
    assert_int_equal(n, 0);
    /* a folder is not a file to read in chunks */
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "dir", fd, NULL, NULL, NULL, &st), BROCK_EINVAL);
    assert_string_equal(brock_engine_errmsg(e), "dir: not a regular file");
    close(fd);
    brock_engine_free(e);
    assert_int_equal(test_rmtree(dir), 0);
    free(text);
    json_decref(doc);
}

/* Entries read again from the file far from where the last was, backwards, and one longer
 * than what is read at a time: learned as from the text. */
static void test_file_read_again_out_of_order(void **state)
{
    static const struct ent v[] = {
        {"p", 9, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.two.com/",
         "uid=8f3a9c2e1b7d", NULL, NULL},
        {"p", 5, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
        {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    json_t *doc = har(v, 3), *entries;
    char dir[256], path[300], *text, *big;
    struct brock_stats st;
    struct run r;
    size_t len, big_len = (size_t)3 << 19;
    int fd;

    (void)state;
    /* the first entry, learned last, is 1.5 MB long; 6,000 entries of one.com's own come
     * between it and the two navigations, which are learned first */
    big = malloc(big_len + 1);
    assert_non_null(big);
    memset(big, 'x', big_len);
    big[big_len] = '\0';
    json_object_set_new(nth(doc, 0), "_padding", json_string(big));
    free(big);
    entries = json_object_get(json_object_get(doc, "log"), "entries");
    for (int k = 0; k < 6000; k++) {
        struct ent own = {"p",  1,    "https://static.one.com/x.png", "image",
                          NULL, NULL, "https://www.one.com/",         "a=1",
                          NULL, NULL};

        json_array_insert_new(entries, 1, entry(&own));
    }
    text = json_dumps(doc, JSON_COMPACT);
    assert_non_null(text);
    len = strlen(text);
    assert_true(len > (size_t)3 << 20);
    test_mkdtemp("har", dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/big.har", dir);
    assert_int_equal(file_write_atomic(path, text, len, 0600), 0);

    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "big.har", fd, NULL, NULL, NULL, &st), 0);
    close(fd);
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(st.entries, 6003);
    brock_engine_free(e);

    e = test_engine_open(NULL, NULL, 1);
    learn_text(e, text, len, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(r.st.entries, st.entries);
    assert_int_equal(r.st.third_party, st.third_party);
    assert_int_equal(r.st.recorded, st.recorded);
    brock_engine_free(e);
    assert_int_equal(test_rmtree(dir), 0);
    free(text);
    json_decref(doc);
}

/* Every allocation that can fail is survived: an error, or the same result. The entries are
 * built from yajl's callbacks in an arena whose chunks come from brock's allocator, so every
 * one of those is failed in turn, an entry's values failing with it (yajl's own few, made when
 * a parse starts, stay the C library's). */
/* ---- the streaming reader against the whole-document one ---- */

struct learned {
    int rc;
    struct brock_stats st;
    char *pb;
    size_t len;
};

static void learned_by(const char *text, size_t len, int whole, int from_fd, struct learned *l)
{
    struct brock_engine *e = test_engine_open(NULL, test_data("privacybadger"), 1);
    char path[] = "/tmp/brock-har-XXXXXX";
    int fd = -1;

    memset(l, 0, sizeof(*l));
    e->plain = whole;
    if (from_fd) {
        fd = mkstemp(path);
        assert_true(fd >= 0);
        unlink(path);
        assert_int_equal(write(fd, text, len), (ssize_t)len);
        l->rc = brock_learn_har_fd(e, "t.har", fd, NULL, NULL, NULL, &l->st);
        close(fd);
    } else {
        l->rc = brock_learn_har(e, "t.har", text, len, NULL, NULL, NULL, &l->st);
    }
    e->plain = 0;
    if (l->rc == 0)
        assert_int_equal(brock_export(e, "pb", &l->pb, &l->len), 0);
    brock_engine_free(e);
}

#define ONE_ENTRY(SP)                                                                              \
    "{\"log\": {\"entries\": [{\"request\": {\"method\": \"GET\", \"url\":"                        \
    " \"https://a.example/\", \"headers\": []}," SP "\"response\": {\"status\": 200,"              \
    " \"headers\": [{\"name\": \"Content-Type\", \"value\": \"text/html\"}]}}]}}"

/* JSON's whitespace is space, tab, line feed and carriage return alone: a vertical tab or a
 * form feed between tokens (which yajl would skip) refuses the text, saying where. */
static void test_json_whitespace_only(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {ONE_ENTRY("\f"), "t.har: not JSON: a form feed, which JSON does not allow (line 1, "
                          "column 96)"},
        {ONE_ENTRY("\v"), "t.har: not JSON: a vertical tab, which JSON does not allow (line 1, "
                          "column 96)"},
        {ONE_ENTRY(" \r\n\t"), NULL},
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct run r;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        learn_text(e, cases[i].text, strlen(cases[i].text), &r);
        if (!cases[i].want) {
            assert_int_equal(r.rc, 0);
            continue;
        }
        assert_int_equal(r.rc, BROCK_EFORMAT);
        assert_string_equal(r.errmsg, cases[i].want);
    }
    brock_engine_free(e);
}

#define Z10 "0000000000"
#define Z100 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10
#define WITH_TIME(T) ONE_ENTRY(" \"time\": " T ",")

/* A number is read as the whole-document reader reads it, whether it is kept or not: an
 * integer past 64 bits, or a number past a double's range, refuses the text; a number that
 * underflows is taken as it rounds. */
static void test_numbers_in_range(void **state)
{
    static const char *const big[] = {
        WITH_TIME("9223372036854775808"),
        WITH_TIME("-9223372036854775809"),
        WITH_TIME("1e999"),
        WITH_TIME("-1E+400"),
        WITH_TIME("1" Z100 Z100 Z100 Z100 ".5"),
    };
    static const char *const fine[] = {
        WITH_TIME("9223372036854775807"),  WITH_TIME("-9223372036854775808"), WITH_TIME("1e-999"),
        WITH_TIME("123456789012345678.5"), WITH_TIME("1" Z100 Z100 ".5"),
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct run r;

    (void)state;
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        learn_text(e, big[i], strlen(big[i]), &r);
        assert_int_equal(r.rc, BROCK_EFORMAT);
        assert_non_null(strstr(r.errmsg, "t.har: a number out of range ("));
    }
    for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
        learn_text(e, fine[i], strlen(fine[i]), &r);
        if (r.rc != 0)
            fail_msg("%s: %s", fine[i], r.errmsg);
    }
    brock_engine_free(e);
}

/* A raw NUL byte is no JSON, between tokens (where jansson would let one through after a
 * number) or in a string: both readers refuse it, from the text and from a file. */
static void test_nul_byte_refused(void **state)
{
    static const char *const at[] = {"\"size\": 0", "\"GET"};
    char text[] = ONE_ENTRY(" \"size\": 0 ,");

    (void)state;
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        char *nul = strstr(text, at[i]);
        struct learned l;

        assert_non_null(nul);
        nul[strlen(at[i])] = '\0';
        for (int k = 0; k < 3; k++) {
            learned_by(text, sizeof(text) - 1, k == 0, k == 2, &l);
            assert_int_equal(l.rc, BROCK_EFORMAT);
            brock_free(l.pb);
        }
        nul[strlen(at[i])] = at[i][strlen(at[i]) - 1] == '0' ? ' ' : '"';
    }
}

/* Every recording in tests/data/har, and cases of this file's, learned from the text and
 * from the file by the streaming reader teach exactly what the whole-document reader
 * (e->plain) teaches: the same counts, the same exported state. */
static void test_stream_is_whole(void **state)
{
    static const char *const files[] = {"browsing.har", "pixel-cookie-share.har",
                                        "plain-browsing.har", "playwright-one-page.har",
                                        "untyped-one-page.har"};
    static const char *const texts[] = {
        "{\"log\": {\"entries\": []}}",
        "{\"log\": {\"pages\": 3, \"entries\": [1, {\"request\": 2}]}}",
        "[]",
        "{\"log\": {\"entries\": [{\"request\": {\"method\": \"GET\", \"url\":"
        " \"https://a.example/\", \"headers\": []}, \"response\": {\"status\": 200,"
        " \"headers\": [{\"name\": \"Content-Type\", \"value\": \"text/html\"}]}}]}}",
        ONE_ENTRY("\f"),
        ONE_ENTRY("\v"),
        WITH_TIME("9223372036854775808"),
        WITH_TIME("1e999"),
        WITH_TIME("1e-999"),
        WITH_TIME("1" Z100 Z100 Z100 Z100 ".5"),
    };
    size_t n = sizeof(files) / sizeof(files[0]), m = sizeof(texts) / sizeof(texts[0]);

    (void)state;
    for (size_t i = 0; i < n + m; i++) {
        char rel[64], *text = NULL;
        size_t len;
        struct learned ref, stream, file;

        if (i < n) {
            snprintf(rel, sizeof(rel), "har/%s", files[i]);
            if (file_read(test_data(rel), (size_t)1 << 26, &text, &len) < 0)
                fail_msg("cannot read %s", test_data(rel));
        } else {
            snprintf(rel, sizeof(rel), "case %zu", i - n);
            text = mem_strdup(texts[i - n]);
            len = strlen(text);
        }
        learned_by(text, len, 1, 0, &ref);
        learned_by(text, len, 0, 0, &stream);
        learned_by(text, len, 0, 1, &file);
        for (int k = 0; k < 2; k++) {
            const struct learned *o = k ? &file : &stream;

            if (o->rc != ref.rc || memcmp(&o->st, &ref.st, sizeof(o->st)) != 0 ||
                o->len != ref.len || (o->len && memcmp(o->pb, ref.pb, o->len) != 0))
                fail_msg("%s: the streaming reader (%s) learns otherwise than the whole one", rel,
                         k ? "a file" : "text");
        }
        if (i < n)
            assert_int_equal(ref.rc, 0);
        brock_free(ref.pb);
        brock_free(stream.pb);
        brock_free(file.pb);
        mem_free(text);
    }
}

static void test_out_of_memory(void **state)
{
    char *text = NULL;
    size_t len = 0;
    long k;

    (void)state;
    assert_int_equal(file_read(test_data("har/playwright-one-page.har"), 1 << 20, &text, &len), 0);
    for (k = 0;; k++) {
        struct brock_engine *e = test_engine_open(NULL, NULL, 1);
        struct brock_stats st;
        int rc;

        alloc_countdown = k;
        rc = brock_learn_har(e, "t.har", text, len, NULL, NULL, NULL, &st);
        alloc_countdown = -1;
        if (rc == 0) {
            assert_string_equal(sites(e, "tracker.test"),
                                "site-one.test,site-two.test,site-three.test");
            brock_engine_free(e);
            break;
        }
        if (rc != BROCK_ENOMEM)
            fail_msg("allocation %ld: %s", k, brock_engine_errmsg(e));
        brock_engine_free(e);
    }
    assert_true(k > 100);
    mem_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_har_cases),
        cmocka_unit_test(test_not_a_har),
        cmocka_unit_test(test_pages_after_entries),
        cmocka_unit_test(test_truncated_mid_entry),
        cmocka_unit_test(test_file_larger_than_a_chunk),
        cmocka_unit_test(test_file_read_again_out_of_order),
        cmocka_unit_test(test_json_whitespace_only),
        cmocka_unit_test(test_numbers_in_range),
        cmocka_unit_test(test_nul_byte_refused),
        cmocka_unit_test(test_stream_is_whole),
        cmocka_unit_test(test_out_of_memory),
    };

    if (brock_replace_allocator(t_malloc, t_realloc, t_calloc, free) != 0)
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
