/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The page features of the relay, behind the core's hooks (struct conn_hooks): brock's script
 * put into pages (conn_inject.c) and its channel (conn_report.c, conn_widget.c), and the
 * answers brock gives a request it blocks (conn_answer.c). The core never includes this
 * header; conn_features.c makes the table it calls through.
 */
#ifndef BROCK_PROXY_CONN_FEATURES_H
#define BROCK_PROXY_CONN_FEATURES_H

#include "proxy/conn_internal.h"

/* The hooks the proxy runs with (px->hooks). */
extern const struct conn_hooks conn_features;

/* ---- conn_answer.c ---- */

/* A blocked request is answered here (by what it fetches) and nothing goes upstream; one with
 * a body, once that is read and dropped, if it is small enough to keep the connection. */
void conn_answer_blocked(struct conn *c);

/* ---- conn_inject.c ---- */

struct conn_inject;

/* Frees an exchange's part (NULL is a no-op). */
void conn_inject_free(struct conn_inject *j);

/* At a final response's head, before its headers are rewritten: when the body gets brock's
 * script, readies the exchange's part (x->filter) and changes the framing that
 * side_response_frame() chose (f, flags, must_close) to one for a body of unknown length.
 * Returns 0 (injecting or not), or -1 when out of memory. */
int conn_inject_start(struct conn *c, enum frame *f, unsigned *flags, int *must_close)
    __attribute__((warn_unused_result));

/* The rewritten headers (o) of a response that gets the script: those that describe the
 * origin's bytes dropped, ETag made weak, Content-Security-Policy amended; of a 304 to a
 * document that would get it, ETag made weak. Returns 0, or -1 when out of memory. */
int conn_inject_head(struct conn *c, struct rewrite_out *o) __attribute__((warn_unused_result));

/* A piece of body (from pump_read() to NULL), its rest left in the upstream's input while the
 * client has no room, and the end of the body. Each returns 0 when done, 1 (body, resume)
 * when the rest waits for the client, -1 when the connection ended (said why). */
int conn_inject_body(struct conn *c, const struct side_event *ev)
    __attribute__((warn_unused_result));
int conn_inject_resume(struct conn *c) __attribute__((warn_unused_result));
int conn_inject_end(struct conn *c) __attribute__((warn_unused_result));

/* ---- conn_report.c ---- */

struct report_doc;

/* Which of the channel's paths (report.h: a report, the widgets to replace, a widget
 * allowed) a request (path[0..path_len): its path and query) of brock's script goes to; 0
 * for none. brock answers these itself and never forwards them. */
int conn_is_report(const struct conn *c, const char *path, size_t path_len);

/* Answers a request to the channel's path kind (conn_is_report()): at once when it is refused
 * on its head, else once its body is in. */
void conn_answer_report(struct conn *c, int kind);

/* A piece of a report's body, kept up to REPORT_BODY_MAX. Returns 0, or -1 when the
 * connection was closed instead (past the limit: 413). */
int conn_report_body(struct conn *c, const struct side_event *ev);

/* The request read whole: checked, then a report learned from (204), the widgets listed
 * (200), a widget allowed (204); or refused (400, 403, 413, 429); keep: the connection stays
 * open. Returns -1 when the connection failed instead. */
int conn_report_write(struct conn *c, int keep) __attribute__((warn_unused_result));

/* The answer to a request of the channel with no body: 204, or status and why (a static
 * sentence; refusals are said in the log at most once a minute). Returns 0, or -1 when the
 * connection failed instead. */
int conn_report_answer(struct conn *c, int status, const char *why, int keep)
    __attribute__((warn_unused_result));

/* Counts a request of the channel from the document doc says (its token's) toward the
 * limits (reportlimit.h): counts_client for a report or an allowance. Returns 0, or 429 (503
 * when out of memory) with a static sentence in *why. */
int conn_report_limit(struct conn *c, const struct report_doc *doc, int counts_client,
                      const char **why) __attribute__((warn_unused_result));

/* ---- conn_widget.c ---- */

/* A widget request read whole (x->report REPORT_PATH_WIDGETS or REPORT_PATH_ALLOW): checked,
 * answered with the widgets the page replaces (200, JSON) or the allowance recorded (204);
 * or refused (400, 403, 429). Returns -1 when the connection failed instead. */
int conn_widget_write(struct conn *c, int keep) __attribute__((warn_unused_result));

#endif
