/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP Archives learned from: whose first party each entry is (a tab's navigations under one
 * page, frames, Referers, the order entries started in), odd fields read as absent with one
 * warning per kind and file, as a table of recordings. Reading them (what is not a HAR, a
 * file cut short or read in pieces, running out of memory): test_har_read.c. */
#include "test.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "har_test.h"
#include "util/alloc.h"
#include "util/file.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_har_cases),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
