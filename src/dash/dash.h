/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard: brock's own pages and its JSON API, answered for requests in origin form
 * (made to brock's address directly), with the rules that keep other web pages from
 * reading it through a rebound name or changing anything. */
#ifndef BROCK_DASH_H
#define BROCK_DASH_H

#include <stddef.h>

#include <jansson.h>

#include "brock.h"
#include "util/buf.h"

struct proxy;

/* One request to the dashboard. Everything is borrowed for the call. */
struct dash_request {
    const char *method;          /* "GET", "PUT", ... */
    const char *target;          /* the origin-form target: path and query */
    size_t target_len;
    const struct brock_header *h;
    size_t n;
    const char *body;            /* the whole body (NUL-terminated), "" when none */
    size_t body_len;
    int body_too_big;            /* the body passed LIMIT_DASH_BODY and was dropped */
    const char *local_host;      /* the address the client reached brock at, as a URL's
                                    host ("192.0.2.1", "[::1]"); NULL when unknown */
};

/* Writes the whole response to rq into out (status line, headers, body). Returns 0, or -1
 * when out of memory (out is then unusable). */
int dash_respond(struct proxy *px, const struct dash_request *rq, int keep_alive,
                 struct buf *out) __attribute__((warn_unused_result));

/* The files of web/, built into the binary (the generated web_files.c). */
struct dash_file {
    const char *name; /* "index.html" */
    const unsigned char *data;
    size_t len;
};

extern const struct dash_file dash_files[];
extern const size_t dash_n_files;

/* ---- dash_api.c: the JSON API ---- */

/* What a handler is given and fills in. */
struct dash_call {
    struct proxy *px;
    struct brock_engine *e;
    const struct dash_request *rq;
    const char *arg;    /* the path segment after the route's prefix, decoded; "" if none */
    const char *query;  /* after '?', not decoded; "" if none */
    int status;         /* 200 unless the handler says otherwise */
    json_t *json;       /* the answer (a new reference), or NULL with text below */
    struct buf text;    /* a non-JSON answer (exports), with its type and file name */
    const char *type;
    char filename[64];
};

/* The handlers of the routes under /api/. Each returns 0, or -1 when out of memory; a refusal
 * is an answer (status and {"error": sentence}), not a failure. */
int dash_api_status(struct dash_call *x);
int dash_api_sites(struct dash_call *x);
int dash_api_site(struct dash_call *x);
int dash_api_trackers(struct dash_call *x);
int dash_api_tracker(struct dash_call *x);
int dash_api_tracker_put(struct dash_call *x);
int dash_api_settings(struct dash_call *x);
int dash_api_settings_put(struct dash_call *x);
int dash_api_disabled_put(struct dash_call *x);
int dash_api_disabled_delete(struct dash_call *x);
int dash_api_export(struct dash_call *x);
int dash_api_import(struct dash_call *x);
int dash_api_reset(struct dash_call *x);
int dash_api_forget(struct dash_call *x);

/* Sets x's answer to status with {"error": msg}. Returns 0, or -1 when out of memory. */
int dash_error(struct dash_call *x, int status, const char *msg);

#endif
