/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The channel by which brock's script in a page tells brock what it saw (docs/design.md,
 * "Reports from pages"): a path no site has, random for each start, on the page's own origin;
 * a token that brock gives a document it saw the browser navigate to, which binds a report
 * to that document's host and says what brock saw of it; and the report's JSON, read into what
 * the proxy acts on. Pure but for random bytes: the keys drawn at start, a document's id. */
#ifndef BROCK_PROXY_REPORT_H
#define BROCK_PROXY_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "brock.h"

/* A report's body: past it, 413. */
#define REPORT_BODY_MAX ((size_t)16 * 1024)

/* What one report may carry: a frame's localStorage items (the first ones), and the scripts
 * that wrote text to a canvas. */
#define REPORT_ITEMS_MAX 64
#define REPORT_WRITERS_MAX 16

/* A token (report_token_make()) is hexadecimal digits: a version byte, the document's id (8
 * random bytes), when it was given (8 bytes, seconds since the epoch, big-endian), its flags
 * (1 byte), the length of its top-level page's host (1 byte) and that host, then a MAC of all
 * of it and of the document's own host: HMAC-SHA256 under the start's secret, cut to 128
 * bits. It needs no state to check, so every worker checks what any worker gave. */
#define REPORT_TOKEN_HEAD 19
#define REPORT_MAC_LEN 16
#define REPORT_TOKEN_MAX ((size_t)2 * (REPORT_TOKEN_HEAD + (BROCK_HOST_MAX - 1) + REPORT_MAC_LEN))

/* What a token says of the document it was given to (docs/design.md, "Reports from pages"). */
enum report_doc_flag {
    REPORT_DOC_TOP = 1,   /* a top-level page: its own host is its site */
    REPORT_DOC_FRAME = 2, /* a frame, whose top-level page brock saw load it */
    REPORT_DOC_CROSS = 4, /* a frame cross-site to its top-level page (another base domain),
                             whose DOM that page cannot read */
};

struct report_doc {
    uint64_t id;               /* random: the document, for the limits (reportlimit.h) */
    int64_t issued_s;          /* when brock gave the token, seconds since the epoch */
    unsigned flags;            /* enum report_doc_flag */
    char site[BROCK_HOST_MAX]; /* the top-level page's host, as brock recorded it */
};

/* Drawn once a start, never written anywhere: the key of the tokens, and the paths. */
struct report_keys {
    unsigned char secret[32];
    char path[64];         /* "/.well-known/brock-<16 hex digits>/report" */
    char widgets_path[64]; /* the same folder's "widgets": which widgets a page replaces */
    char allow_path[64];   /* and "allow": a click on a placeholder's button */
};

/* Draws the keys. Returns 0, or -1 when the system gives no random bytes. */
int report_keys_init(struct report_keys *k) __attribute__((warn_unused_result));

/* Wipes the secret. */
void report_keys_cleanup(struct report_keys *k);

/* The token of a document of host (normalised) into out (REPORT_TOKEN_MAX + 1 bytes): d says
 * its flags (REPORT_DOC_TOP, or REPORT_DOC_FRAME with or without REPORT_DOC_CROSS), its site
 * (a normalised host) and issued_s; its id is drawn here and written into d. Returns 0, or -1
 * when the flags or the site are not such, or the system gives no random bytes. */
int report_token_make(const struct report_keys *k, const char *host, struct report_doc *d,
                      char *out) __attribute__((warn_unused_result));

/* Checks token (NUL-terminated, borrowed) as one of a document of host (normalised) at now_s,
 * and reads what it says into d. Returns 0, or -1 with a static sentence in *why: not a token
 * brock gave to a document of host (in constant time: a page must not find another host's by
 * timing answers), or one given more than LIMIT_REPORT_TOKEN_S ago. */
int report_token_check(const struct report_keys *k, const char *host, const char *token,
                       int64_t now_s, struct report_doc *d, const char **why)
    __attribute__((warn_unused_result));

/* Whether a request's path (path[0..len), the request target's path and query) is the
 * channel's. */
int report_is_path(const struct report_keys *k, const char *path, size_t len);

/* Which of the channel's paths a request's path (path[0..len)) is. */
enum report_path {
    REPORT_PATH_NONE = 0,
    REPORT_PATH_REPORT,  /* what the script saw */
    REPORT_PATH_WIDGETS, /* the widgets to replace on the page */
    REPORT_PATH_ALLOW,   /* a user let a widget load */
};

enum report_path report_path_of(const struct report_keys *k, const char *path, size_t len);

/* A widget request's body: {"token"} for REPORT_PATH_WIDGETS; {"token", "widget": its name
 * (1 to REPORT_WIDGET_NAME_MAX bytes), "always": true or false} for REPORT_PATH_ALLOW. What
 * else it says is ignored: where the document sits is the token's to say. */
#define REPORT_WIDGET_NAME_MAX 128

struct report_widget {
    json_t *root;
    struct report_doc doc; /* what the token says */
    const char *widget;    /* ALLOW: the widget's name, a view into root */
    int always;            /* ALLOW: "Always allow on this site" */
};

/* Reads a widget request of kind (REPORT_PATH_WIDGETS or REPORT_PATH_ALLOW) sent to a
 * document of host (normalised) at now_s into w, and checks its token as report_read() does.
 * Returns 0, or 400 or 403 with a static sentence in *why. w needs report_widget_cleanup()
 * either way. */
int report_read_widget(const struct report_keys *k, enum report_path kind, const char *host,
                       int64_t now_s, const char *body, size_t len, struct report_widget *w,
                       const char **why);

void report_widget_cleanup(struct report_widget *w);

enum report_kind {
    REPORT_CANVAS = 1,
    REPORT_SUPERCOOKIE,
};

/* A report read. Its strings are views into root, valid until report_cleanup(). */
struct report {
    json_t *root;
    struct report_doc doc; /* what the token says of the document that sent it */
    enum report_kind kind;
    const char *script; /* CANVAS: the URL of the script that read the canvas back */
    const char *writers[REPORT_WRITERS_MAX]; /* CANVAS: URLs of scripts that wrote text first */
    size_t n_writers;
    struct brock_header items[REPORT_ITEMS_MAX]; /* SUPERCOOKIE: key = name */
    size_t n_items;
};

/* Reads a report (body[0..len), borrowed) sent to a document of host (normalised) at now_s
 * into r, and checks its token (report_token_check()). Returns 0; or an HTTP status with a
 * static sentence in *why: 400 for a body that is not such a report (JSON, fields, an unknown
 * kind), 403 for a token that is not one brock gave a document of host, or has expired. The
 * body's other members ("top" and "ancestors", which older scripts sent) are ignored. r needs
 * report_cleanup() either way. */
int report_read(const struct report_keys *k, const char *host, int64_t now_s, const char *body,
                size_t len, struct report *r, const char **why);

void report_cleanup(struct report *r);

/* Whether a report read (report_read() answered 0) may teach, for the kind of document its
 * token says it came from: canvas fingerprinting from a top-level page or a frame of another
 * site than its page's, a supercookie from a frame. Returns 0, or 403 with a static sentence
 * in *why. What it reports is checked against what brock saw by the caller. */
int report_holds(const struct report *r, const char **why);

/* Whether the document d may allow widgets on its page: a top-level page or a frame of the
 * page's own site, never another site's frame. Returns 0, or 403 with a static sentence in
 * *why. */
int report_may_allow(const struct report_doc *d, const char **why);

#endif
