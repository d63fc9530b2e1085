/* SPDX-License-Identifier: GPL-3.0-or-later */
/* brock's own script put into an HTML document as it streams: right after the <head> start
 * tag; without one, before the first tag that is not a doctype, comment, processing
 * instruction or <html> (where a <head> would have been: the browser opens the head there for
 * it). Bytes come in pieces and go out as soon as they are known not to hide the place: only
 * a tag's start whose name is not known yet is held back (a few bytes). Pure: no sockets, no
 * allocation; what comes out goes to a callback. */
#ifndef BROCK_PROXY_INJECT_H
#define BROCK_PROXY_INJECT_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes held back: "<" and a tag name as long as "head" or "html", and the byte that
 * ends it. */
#define INJECT_HOLD_MAX 8

/* Past this many bytes of document with no place found, the script goes in at the next point
 * between tags. A document's prelude (a byte order mark, the doctype, comments, <html>) is a
 * few hundred bytes; some generators put a licence comment of a few KiB first. A document
 * that has not opened its head by 8 KiB is mostly text (a listing, plain text served as HTML),
 * where the script runs wherever it is; scanning further would only delay it. */
#define INJECT_SCAN_MAX ((uint64_t)8 * 1024)

/* Where the injector is; all-zero is not a valid state: use inject_init(). */
struct inject {
    int state;
    int inserted;  /* the script went out */
    int passing;   /* decided (inserted, or given up): bytes pass as they are */
    int sub;       /* in a <head> or <html> tag, where among its attributes; in a
                      * comment, where towards its end */
    int is_head;   /* that tag is <head> */
    uint64_t seen; /* bytes looked at */
    char hold[INJECT_HOLD_MAX];
    size_t n_hold;
    const char *script; /* borrowed: "<script>...</script>" */
    size_t script_len;
    /* Where the output goes: returns 0, or -1 to stop (out of memory). */
    int (*emit)(void *arg, const char *p, size_t len);
    void *arg;
};

/* Readies in for one document; script (borrowed, valid while in is used) is inserted whole. */
void inject_init(struct inject *in, const char *script, size_t script_len,
                 int (*emit)(void *arg, const char *p, size_t len), void *arg);

/* The next len bytes of the document (borrowed for the call). Returns 0, or -1 when emit
 * failed (the output is then incomplete; the document cannot go on). */
int inject_feed(struct inject *in, const char *p, size_t len) __attribute__((warn_unused_result));

/* The document ended: what was held goes out, and the script too when the document had bytes
 * but no place for it (at the end, where it still runs). An empty document stays empty.
 * Returns 0, or -1 when emit failed. */
int inject_end(struct inject *in) __attribute__((warn_unused_result));

#endif
