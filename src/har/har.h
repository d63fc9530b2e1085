/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * HTTP Archives, shared by the three parts of learning from them: har_scan.c reads the text
 * as a stream, one element of log.entries or log.pages at a time; har_read.c reads an entry
 * leniently into struct har_entry, counting what it had to leave out; har.c orders the
 * entries, works out each one's first party and learns from its cookies.
 */
#ifndef BROCK_HAR_HAR_H
#define BROCK_HAR_HAR_H

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
    HAR_BAD = 1,       /* unreadable (not an object, no request or URL): skipped */
    HAR_HTML = 4,      /* answered with text/html */
    HAR_RDOC = 8,      /* Chromium's _resourceType "document": a page or a frame */
    HAR_REDIRECT = 16, /* answered with a redirect (3xx with a Location, or a redirectURL) */
    HAR_NOREF = 32,    /* the request named no Referer */
    HAR_HDOC = 64,     /* neither Sec-Fetch-Dest nor _resourceType, but asked for a document (or
                          for nothing in particular) and answered with one or sent on: a page
                          or a frame */
};

/* What reading keeps of one entry: strings and arrays borrowed from the entry's JSON, which
 * stays loaded while the entry is used. Header and cookie arrays may hold odd members, which
 * brock__har_pair_ok() tells apart. */
struct har_entry {
    const char *url;
    const char *method;   /* NULL without one */
    const char *pageref;  /* NULL without one */
    const char *frameref; /* Playwright's _frameref: the frame that made it; NULL if none */
    const char *referer;  /* the request's first Referer header; NULL if none */
    json_t *req_headers;  /* arrays, or NULL when absent or not arrays */
    json_t *req_cookies;
    json_t *resp_headers;
    json_t *resp_cookies;
    int64_t started; /* startedDateTime in Unix ms; 0 when missing or bad */
    enum har_dest dest;
    enum brock_resource_type type; /* what it fetches: its headers as the proxy reads them
                                      (brock_request_type()), Chromium's _resourceType
                                      standing in for fetch metadata it lacks */
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

/* What was read of one file's entries. */
struct har_file {
    const char *name; /* for messages */
    size_t n;         /* entries */
    size_t bad;       /* entries flagged HAR_BAD */
    struct har_odd_seen odd[HAR_ODD_COUNT];
};

/* Reads entry (the element i of log.entries; borrowed) into h leniently: an odd field is
 * read as absent and an unusable entry flagged HAR_BAD, each counted in f->odd. h borrows
 * from entry. */
void brock__har_read_entry(struct har_file *f, size_t i, json_t *entry, struct har_entry *h);

/* Counts in f->odd page i of log.pages when it has no string id. */
void brock__har_read_page(struct har_file *f, size_t i, const json_t *page);

/* What a scan saw of the document around its elements: the kind of each part ("an object",
 * "an array", "a string", "a number", "a boolean", "null"), NULL when it was missing. */
struct har_doc {
    const char *root;
    const char *log;
    const char *entries;
    const char *pages;
};

/* After a scan: 0 when doc and f (every entry read) are a HAR, else BROCK_EFORMAT with e's
 * errmsg naming f->name and the reason (no log.entries array, no entries, or not one
 * readable entry); log.pages not an array is counted as odd. */
int brock__har_check(struct brock_engine *e, struct har_file *f,
                     const struct har_doc *doc) BROCK_NODISCARD_INTERNAL;

/* Where a HAR's text is: len bytes at text, else the file fd (read with pread(2), so one
 * that can be read at any offset); it starts at start (3 after a UTF-8 BOM). */
struct har_src {
    const char *text;
    int fd;
    size_t len;
    size_t start;
    struct arena *arena; /* this thread's jansson arena (brock__json_arena) the elements are
                            built in, or NULL: they are freed value by value */
    json_t *whole;       /* read whole (brock__har_scan_whole()): the document, which the
                            caller frees with json_decref(); NULL when streamed */
};

/* What a scan calls: on_entry with each element i of log.entries (borrowed: freed after the
 * call), and where its text is when it is an object (off, len bytes); on_page with each
 * element of log.pages; on_progress now and then with the entries seen. A callback returns
 * 0, or a negative BROCK_E* (with e's errmsg set) that ends the scan. name is for
 * messages. */
struct har_scan_cb {
    const char *name;
    int (*on_entry)(void *arg, size_t i, json_t *entry, size_t off, size_t len);
    int (*on_page)(void *arg, size_t i, json_t *page);
    void (*on_progress)(void *arg, size_t entries);
    void *arg;
};

/* Reads the whole text of src as JSON, a chunk at a time, calling cb for each element of
 * log.entries and log.pages, which may come in either order; fields brock does not read are
 * left out of them. Fills doc. Returns 0, BROCK_EFORMAT (not JSON, errmsg says where),
 * BROCK_EIO (the file cannot be read), BROCK_ENOMEM, or a callback's error. */
int brock__har_scan(struct brock_engine *e, const struct har_src *src, const struct har_scan_cb *cb,
                    struct har_doc *doc) BROCK_NODISCARD_INTERNAL;

/* What a JSON value is, in a message's words: "an object", "an array", "a string", "a
 * number", "a boolean", "null". */
const char *brock__har_kind_of(const json_t *v);

/* The plain computation brock__har_scan() stands in for, used on an engine whose fast paths
 * are off (e->plain): the whole text parsed at once by jansson, the same callbacks called
 * with log.pages' elements, then log.entries' (each entry's place given as its index, len 1),
 * and doc filled alike. The document is kept in src->whole for brock__har_load_entry().
 * Returns as brock__har_scan() does, though the words of a refusal may differ. */
int brock__har_scan_whole(struct brock_engine *e, struct har_src *src, const struct har_scan_cb *cb,
                          struct har_doc *doc) BROCK_NODISCARD_INTERNAL;

/* Entry i of a document read whole, into *out (json_decref()). Returns 0 or BROCK_EFORMAT. */
int brock__har_whole_entry(const struct har_src *src, size_t i,
                           json_t **out) BROCK_NODISCARD_INTERNAL;

/* A file's text read ahead for brock__har_load_entry(): len bytes from off in buf (cap
 * bytes; free with mem_free). Entries read again in about the order they came then cost one
 * read(2) a window, not one each. */
struct har_window {
    char *buf;
    size_t cap, off, len;
};

/* Reads again the entry of len bytes at off in src (as a scan told it) into *out (free with
 * json_decref()); a file's bytes go through w (grown as needed, one window or one entry
 * long at most). Returns 0, BROCK_EFORMAT or BROCK_EIO when the file changed since the
 * scan, BROCK_ENOMEM. */
int brock__har_load_entry(struct brock_engine *e, const struct har_src *src,
                          const struct har_scan_cb *cb, size_t off, size_t len,
                          struct har_window *w, json_t **out) BROCK_NODISCARD_INTERNAL;

/* Releases an element brock__har_load_entry() gave: with its arena, everything in it. */
void brock__har_release(const struct har_src *src, json_t *v);

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
