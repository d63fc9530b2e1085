/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The channel by which brock's script in a page tells brock what it saw (docs/design.md,
 * "Reports from pages"): a path no site has, random for each start, on the page's own origin;
 * a token that binds a report to the host of the document that sent it; and the report's
 * JSON, read into what the proxy acts on. Pure but for the random bytes drawn at start. */
#ifndef BROCK_PROXY_REPORT_H
#define BROCK_PROXY_REPORT_H

#include <stddef.h>

#include <jansson.h>

#include "brock.h"

/* A report's body: past it, 413. */
#define REPORT_BODY_MAX ((size_t)16 * 1024)

/* What one report may carry: a frame's localStorage items (the first ones), the scripts that
 * wrote text to a canvas, and the origins above a frame. */
#define REPORT_ITEMS_MAX 64
#define REPORT_WRITERS_MAX 16
#define REPORT_ANCESTORS_MAX 16

/* The token is this many hexadecimal digits: half of an HMAC-SHA256. */
#define REPORT_TOKEN_LEN 32

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

/* The token of documents of host (normalised) into out (REPORT_TOKEN_LEN + 1 bytes). Returns
 * 0, or -1 when the HMAC fails. */
int report_token(const struct report_keys *k, const char *host, char *out)
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
 * (1 to REPORT_WIDGET_NAME_MAX bytes), "always": true or false} for REPORT_PATH_ALLOW; either
 * may say where its document sits, as a report does ("top", "ancestors"): without "top", it is
 * the top-level page. */
#define REPORT_WIDGET_NAME_MAX 128

struct report_widget {
    json_t *root;
    int top;              /* the document is the top-level page */
    const char *ancestor; /* a frame's top-level page's origin, as a report's (or NULL) */
    const char *widget;   /* ALLOW: the widget's name, a view into root */
    int always;           /* ALLOW: "Always allow on this site" */
};

/* Reads a widget request of kind (REPORT_PATH_WIDGETS or REPORT_PATH_ALLOW) sent to a
 * document of host (normalised) into w, and checks its token as report_read() does. Returns
 * 0, or 400 or 403 with a static sentence in *why. w needs report_widget_cleanup() either
 * way. */
int report_read_widget(const struct report_keys *k, enum report_path kind, const char *host,
                       const char *body, size_t len, struct report_widget *w, const char **why);

void report_widget_cleanup(struct report_widget *w);

enum report_kind {
    REPORT_FRAME = 1, /* a frame says which pages are above it, nothing else */
    REPORT_CANVAS,
    REPORT_SUPERCOOKIE,
};

/* A report read. Its strings are views into root, valid until report_cleanup(). */
struct report {
    json_t *root;
    enum report_kind kind;
    int top;                 /* the document is the top-level page (window === top) */
    const char *ancestor;    /* the top-level page's origin as location.ancestorOrigins says,
                                or NULL (a top-level page, or a browser without it) */
    const char *script;      /* CANVAS: the URL of the script that read the canvas back */
    const char *writers[REPORT_WRITERS_MAX]; /* CANVAS: URLs of scripts that wrote text first */
    size_t n_writers;
    struct brock_header items[REPORT_ITEMS_MAX]; /* SUPERCOOKIE: key = name */
    size_t n_items;
};

/* Reads a report (body[0..len), borrowed) sent to a document of host (normalised) into r, and
 * checks its token. Returns 0; or an HTTP status with a static sentence in *why: 400 for a
 * body that is not such a report (JSON, fields, an unknown kind), 403 for a token that is not
 * host's. r needs report_cleanup() either way. */
int report_read(const struct report_keys *k, const char *host, const char *body, size_t len,
                struct report *r, const char **why);

void report_cleanup(struct report *r);

#endif
