/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * HTTP Archives, shared by the two halves of learning from them: har_read.c reads a file's
 * entries leniently into struct har_entry, counting what it had to leave out; har.c orders
 * them, works out each one's first party and learns from its cookies.
 */
#ifndef BROCK_ENGINE_HAR_H
#define BROCK_ENGINE_HAR_H

#include "engine/engine.h"

/* What a request's Sec-Fetch-Dest header says the request is for. */
enum har_dest {
    HAR_DEST_NONE,  /* no such header: older browsers, and plain http in Chromium */
    HAR_DEST_DOC,   /* "document": a top-level page */
    HAR_DEST_FRAME, /* "iframe", "frame", "fencedframe", "embed", "object" */
    HAR_DEST_OTHER, /* any other value: a subresource */
};

/* Flags of one entry. */
enum {
    HAR_BAD = 1,     /* unreadable (not an object, no request or URL): skipped */
    HAR_BEACON = 2,  /* sendBeacon or <a ping> */
    HAR_HTML = 4,    /* answered with text/html */
    HAR_RDOC = 8,    /* Chromium's _resourceType "document": a page or a frame */
    HAR_REDIRECT = 16, /* answered with a redirect (3xx with a Location, or a redirectURL) */
};

/* What reading keeps of one entry: strings and arrays borrowed from the JSON, which stays
 * loaded while the entries are used. Header and cookie arrays may hold odd members, which
 * brock__har_pair_ok() tells apart. */
struct har_entry {
    const char *url;
    const char *pageref;   /* NULL without one */
    const char *frameref;  /* Playwright's _frameref: the frame that made it; NULL if none */
    const char *referer;   /* the request's first Referer header; NULL if none */
    json_t *req_headers;   /* arrays, or NULL when absent or not arrays */
    json_t *req_cookies;
    json_t *resp_headers;
    json_t *resp_cookies;
    int64_t started;       /* startedDateTime in Unix ms; 0 when missing or bad */
    enum har_dest dest;
    enum brock_resource_type type; /* what it fetches (Chromium's _resourceType, else its
                                      headers as the proxy reads them) */
    unsigned flags;
};

/* The kinds of oddity reading tells about, each once per file with a count. */
enum har_odd {
    HAR_ODD_ENTRY,    /* an entry that is not an object: skipped */
    HAR_ODD_REQUEST,  /* no request object: skipped */
    HAR_ODD_URL,      /* no string request.url: skipped */
    HAR_ODD_PAGEREF,  /* pageref not a string: read as none */
    HAR_ODD_HEADERS,  /* headers not an array: read as none */
    HAR_ODD_COOKIES,  /* cookies not an array (IE11 writes {}): read as none */
    HAR_ODD_PAIR,     /* a header or cookie without a string name and value: left out */
    HAR_ODD_RESPONSE, /* response missing or not an object: read as none */
    HAR_ODD_TIME,     /* startedDateTime not a date: the entry keeps its place */
    HAR_ODD_PAGES,    /* log.pages not an array: read as none */
    HAR_ODD_PAGE,     /* a page without a string id: left out */
    HAR_ODD_COUNT
};

/* One kind of oddity: how many times it was seen and where the first was, as a sentence
 * without what was done about it. */
struct har_odd_seen {
    size_t count;
    char first[200];
};

/* The entries of one file, as read. */
struct har_file {
    const char *name;          /* for messages */
    struct har_entry *ents;
    size_t n;
    size_t bad;                /* entries flagged HAR_BAD */
    json_t *pages;             /* log.pages when it is an array, else NULL */
    struct har_odd_seen odd[HAR_ODD_COUNT];
};

/* Reads root (a parsed HAR) into f, whose name is set: every entry of log.entries, odd ones
 * flagged or trimmed and counted in f->odd. Returns 0, or BROCK_EFORMAT when root is not a
 * HAR at all (no log.entries array, no entries, or not one readable entry) with e's errmsg
 * naming f->name, or BROCK_ENOMEM. f holds borrowed views of root; free with
 * brock__har_cleanup() either way. */
int brock__har_read(struct brock_engine *e, struct har_file *f, json_t *root)
    BROCK_NODISCARD_INTERNAL;
void brock__har_cleanup(struct har_file *f);

/* A HAR date and time ("YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM|±HHMM)", ISO 8601) in Unix
 * milliseconds; 0 when s is NULL or not one. */
int64_t brock__har_time(const char *s);

/* Whether p is a header or cookie as HAR writes them: a string name and value. */
int brock__har_pair_ok(const json_t *p);

/* Whether p is a well-formed pair named want (ignoring case). */
int brock__har_pair_is(const json_t *p, const char *want);

/* Calls on_warning (if not NULL) once for each kind of oddity f->odd counted, with a
 * sentence naming the file, the first entry and field, and how many entries had it. */
void brock__har_warn(const struct har_file *f, void (*on_warning)(void *arg, const char *msg),
                   void *arg);

#endif
