/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the files of one connection share among themselves, and nothing outside them includes:
 * conn.c (states, events, closing), conn_request.c, conn_response.c, conn_tunnel.c (CONNECT
 * and upgrades), conn_answer.c (answers brock writes itself), conn_decide.c (the engine). */
#ifndef BROCK_PROXY_CONN_INTERNAL_H
#define BROCK_PROXY_CONN_INTERNAL_H

#include <stdint.h>

#include "proxy/conn.h"
#include "proxy/pump.h"
#include "util/log.h"

/* ---- conn.c ---- */

/* Every transition; logs "old -> new" in debug builds and arms the new state's timeout. */
void conn_set_state(struct conn *c, enum conn_state s);

/* The one line for an exchange brock refused or could not complete: who, the method and
 * host (never the path), the status answered (0: none) and why. */
void conn_log_failure(const struct conn *c, enum log_level level, int status, const char *why);

/* The line for a finished exchange (-v). */
void conn_log_request(const struct conn *c);

/* Empties the exchange (and its scratch buffers) for the next request, with names of its
 * own; returns 0, or -1 when out of memory for them (the names then read ""). */
int conn_exchange_reset(struct conn *c) __attribute__((warn_unused_result));

/* Ends the connection after an error: answered with status and text (a static or caller's
 * sentence) if nothing of a response went out yet, then flushed and closed. */
void conn_fail(struct conn *c, int status, const char *text);

/* The client went away mid-request; the upstream went away mid-response (what came goes to
 * the client, whose connection then closes so that it sees the body cut short too). */
void conn_client_gone(struct conn *c);
void conn_upstream_cut(struct conn *c);

/* Writing failed for want of memory while doing what doing says ("writing the response
 * head"): logged, and the connection closes at once, its unwritten output dropped so that the
 * client never sees half a message framed as a whole one. */
void conn_out_of_memory(struct conn *c, const char *doing);

/* Drops the exchange's upstream side: closed, or back into the pool. */
void conn_drop_upstream(struct conn *c, int reusable);

/* Writes out what is pending, then closes (CONN_FLUSH). reason is for -v; NULL when a line
 * said why already. Idempotent. */
void conn_flush_close(struct conn *c, const char *reason);

/* Sets the client bufferevent's callbacks and starts it reading. Returns 0, or -1 when out
 * of memory. */
int conn_client_events(struct conn *c) __attribute__((warn_unused_result));

/* Whether c's client was answered before it spoke (SOCKS, or redirected to brock): it gets
 * no CONNECT answer, and no HTTP answer inside its tunnel. */
static inline int conn_answered_first(const struct conn *c)
{
    return c->way != CONN_WAY_PROXY;
}

/* " (SOCKS)", " (transparent)", or "" for a proxy's client: the end of its -v lines. */
static inline const char *conn_way_note(const struct conn *c)
{
    return c->way == CONN_WAY_SOCKS         ? " (SOCKS)"
           : c->way == CONN_WAY_TRANSPARENT ? " (transparent)"
                                            : "";
}

/* conn_socks.c: a SOCKS5 client (CONN_SOCKS): its greeting and request read and answered, the
 * request decided as a CONNECT to where it asks; then (CONN_PEEK) what it speaks, from its
 * first bytes: TLS intercepted as a CONNECT's would be, plain HTTP read request by request, the
 * rest passed through (conn_socks_pass(), also when it sends nothing in TIMEOUT_PEEK). A
 * redirected client begins at CONN_PEEK (conn_transparent_peeked()). */
void conn_do_socks(struct conn *c);
/* conn_socks.c: the SOCKS port's accept callback (conn_way_listen()). */
void conn_on_socks_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                          int len, void *arg);
/* conn_socks.c: a client of the SOCKS or transparent port, allowed there, admitted as any
 * (who, size bytes, becomes its name for the per-client limits) and made a connection come in
 * that way; NULL when refused for room or out of memory (fd closed then). */
struct conn *conn_accept_way(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa,
                             char *who, size_t size, enum conn_way way);
void conn_do_peek(struct conn *c);
void conn_socks_pass(struct conn *c);

/* conn_socks.c: c's exchange becomes a CONNECT to host (as the client gave it) and port, and
 * its tunnel_host and tunnel_port theirs. Returns 0, or -1 (host names no host: *bad is then 1;
 * or out of memory: the connection ended). */
int conn_tunnel_exchange(struct conn *c, const char *host, int port, int *bad);

/* conn_transparent.c: what a redirected client's first bytes are (peek.h's kind, the TLS server
 * name or "", and why when neither HTTP nor TLS), and c served accordingly: plain HTTP request
 * by request, TLS intercepted or tunnelled as a CONNECT to its name, the rest passed through
 * to where it was going. */
void conn_transparent_peeked(struct conn *c, int kind, const char *name, const char *why);

/* conn_transparent.c: the name of a plain request on a redirected connection: its Host
 * header's host, normalised, into host (BROCK_HOST_MAX bytes); else where it was going, as an
 * address. */
void conn_transparent_host(const struct conn *c, char *host);

/* Advances the state machine as far as it goes, then writes what it produced. */
void conn_run(struct conn *c);

/* The loop's cached time, in milliseconds. */
int64_t conn_now_ms(const struct conn *c);

/* ---- conn_request.c ---- */

/* CONN_IDLE and CONN_REQ_HEAD: reads a request head and starts it. */
void conn_do_head(struct conn *c);

/* CONN_REQ_BODY: the request's body to the upstream (or to the dashboard, or dropped). */
void conn_do_req_body(struct conn *c);

/* The upstream can take the request: its rewritten head goes out, then its body. */
void conn_send_request(struct conn *c);

/* ---- conn_response.c ---- */

/* CONN_RESP_HEAD and CONN_RESP_BODY (and from CONN_REQ_BODY, for an early answer): reads
 * the response and streams it to the client. */
void conn_do_response(struct conn *c);

/* The body of a response whose head went out is malformed (reason: a static phrase): logged,
 * the body cut short and the client's connection closed. */
void conn_bad_body(struct conn *c, const char *reason);

/* ---- conn_tunnel.c ---- */

/* Whether a CONNECT to c's host is intercepted (--intercept, and not --no-intercept). */
int conn_may_intercept(const struct conn *c);

/* The client of an intercepted tunnel refused brock's certificate (why: how it showed it):
 * counted for the tunnel's host, which the second refusal in ten minutes passes through unseen
 * from then on, said once in the log. */
void conn_tls_refused(struct conn *c, const char *why);
/* A quiet close (during the handshake, or right after it with nothing sent): held, and counted
 * as a refusal by conn_tls_quiet_due() unless the client ended a spoken connection with it
 * (passthrough.h). */
void conn_tls_quiet(struct conn *c, const char *why);
/* An intercepted connection that had spoken ended: the client's quiet closes about then are
 * no refusals. */
void conn_tls_spoke_closed(struct conn *c);
/* The client first spoke inside an intercepted tunnel: it took brock's certificate for the
 * tunnel's host, and its quiet closes of other connections to it about then are no refusals
 * (conn_tls_trusting() says so). */
void conn_tls_trusted(struct conn *c);
int conn_tls_trusting(const struct conn *c);

/* Answers the CONNECT and speaks TLS with the client in place of the host. */
void conn_start_intercept(struct conn *c);
/* A SOCKS client, answered already, speaks TLS with brock as name (its hello's server name,
 * or the name it asked for) from here on: intercepted as a CONNECT's would be. */
void conn_socks_intercept(struct conn *c, const char *name);

/* The client's first byte on brock's port began a TLS handshake record: brock answers it as
 * itself, with a leaf of its CA for the name the client sent (SNI) or else the address it
 * reached, offering HTTP/1.1 alone, and the requests inside are for brock's pages (the
 * dashboard over HTTPS). Without a CA to issue with (brock does not see inside HTTPS), the
 * connection is closed with a log line. */
void conn_start_pages_tls(struct conn *c);

/* The upstream of a CONNECT is connected: the client hears so, and the tunnel starts. */
void conn_tunnel_ready(struct conn *c);

/* Turns the connection into a tunnel (CONNECT, or an upgrade the upstream agreed to). */
void conn_start_tunnel(struct conn *c);

/* CONN_TUNNEL: bytes both ways as they are, copied through the sides' buffers or moved by
 * the kernel (splice) once nothing is buffered. */
void conn_do_tunnel(struct conn *c);

/* The connection closes: a tunnel's splicing stops, and its byte counts go to the log (-v). */
void conn_tunnel_end(struct conn *c);

/* Progress in a streaming state restarts its timeout (conn.c). */
void conn_touch(struct conn *c);

/* ---- conn_answer.c ---- */

/* Writes a whole response with a small text body (text: a sentence; a line feed is added).
 * Returns 0, or -1 when out of memory, the connection then closed. */
int conn_reply(struct conn *c, int status, const char *text, int keep)
    __attribute__((warn_unused_result));

/* A request brock answers itself once its body is in (the dashboard's changes, a page's
 * report): 100 Continue when asked for, then the body is read (conn_local_body(),
 * conn_report_body()). */
void conn_await_local_body(struct conn *c);

/* A request for brock itself: the dashboard's door checks it from its head (dash_admit()) and
 * refuses it at once, its body unread and the connection closed after the answer; or answers
 * once the body its route takes is in. */
void conn_answer_local(struct conn *c);

/* Closes the temporary file an import's body went to, if any: once the dashboard answered, and
 * when the exchange ends or the connection is freed. */
void conn_spool_close(struct exchange *x);

/* A piece of a locally answered request's body: kept for the dashboard (in memory, or in a
 * temporary file), or dropped. Returns -1 when the connection was closed instead (a body past
 * its limit, a file that could not be written). */
int conn_local_body(struct conn *c, const struct side_event *ev);

/* The request is answered with a redirect to url (302, as brock's own answer), nothing
 * going upstream. */
void conn_answer_redirect(struct conn *c, const char *url);

/* A locally answered request was read whole: the dashboard or a blocked request's answer is
 * written if it waited, then the client may go on. */
void conn_local_done(struct conn *c);

/* ---- conn_log.c ---- */

/* The exchange's status: what its client got (0: nothing), and who gave it (enum
 * livelog_answer). The first time it is set for a decided exchange, the exchange goes to the
 * live log and wakes its streams. */
void conn_status(struct conn *c, int status, enum livelog_answer by);

/* The exchange ends (the next request begins, or the connection closes): decided and never
 * answered, it goes to the live log with status 0. */
void conn_log_unanswered(struct conn *c);

/* The dashboard answered with the head of a live log stream (written to the client): c
 * streams its events from id next on (with own, those of its own address alone), or is
 * answered 503 when brock holds as many as it can (checked before, with
 * conn_stream_room()). */
void conn_stream_start(struct conn *c, uint64_t next, int own);

/* Whether brock can hold one more live log stream. */
int conn_stream_room(const struct conn *c);

/* CONN_STREAM: writes the events the client has not had while its output has room; ends
 * when the client closes. */
void conn_do_stream(struct conn *c);

/* CONN_STREAM's timeout: a comment line, and the timeout armed again. */
void conn_stream_ping(struct conn *c);

/* The connection closes: it no longer streams (nothing when it did not). */
void conn_stream_end(struct conn *c);

/* ---- the page features' hooks ---- */

/* Where the relay's core (conn.c, conn_request.c, conn_response.c, conn_tunnel.c) lets the page
 * features act on an exchange: one table (px->hooks; conn_features.c fills it), so that the
 * core calls no feature by name and includes none of their headers. */
struct conn_hooks {
    /* A request brock blocks: answered by brock (by what it fetches), nothing goes upstream. */
    void (*blocked)(struct conn *c);
    /* Whether a request (its path and query, path_len bytes) is to brock's script's channel:
     * the kind of path, 0 for none; then the channel's answer, brock's own whatever the
     * host's action. */
    int (*channel_kind)(const struct conn *c, const char *path, size_t path_len);
    void (*channel_answer)(struct conn *c, int kind);
    /* A response body rewritten on its way to the client (brock's script in pages). At a
     * final response head, start() may take the body, setting x->filter and the framing the
     * new body goes out with (0 either way, -1 when out of memory), and head() amends the
     * rewritten head (of a body it took, or of a 304 to one it would; -1: it cannot). For an
     * exchange it took, body() takes each piece read, resume() carries on a piece left
     * waiting for the client, end() closes the body (each 0 done, 1 still waiting for the
     * client, -1 the connection ended); free() frees a filter (NULL is a no-op). */
    int (*filter_start)(struct conn *c, enum frame *f, unsigned *flags, int *must_close);
    int (*filter_head)(struct conn *c, struct rewrite_out *o);
    int (*filter_body)(struct conn *c, const struct side_event *ev);
    int (*filter_resume)(struct conn *c);
    int (*filter_end)(struct conn *c);
    void (*filter_free)(void *filter);
};

/* ---- conn_decide.c ---- */

/* How /metrics and the live log count a decision. */
enum metrics_decision conn_decision_kind(const struct brock_decision *d);

/* The value of the header called name in hh (NUL-terminated in its buffer), or NULL. */
const char *conn_header(const struct http_head *hh, const char *name);

/* The first party, what the request fetches, and the engine's decision on its URL (path[0..
 * path_len) on the exchange's host; a CONNECT has none) into x->d. Returns 0, or -1 when out
 * of memory for the decision (nothing decided, nothing counted). */
int conn_decide(struct conn *c, const char *path, size_t path_len)
    __attribute__((warn_unused_result));

/* What the exchange's decision does to it: BROCK_PASS while undecided. */
static inline enum brock_effect conn_effect(const struct exchange *x)
{
    return x->d ? x->d->effect : BROCK_PASS;
}

/* What becomes of a decided request's URL by ClearURLs' rules (brock_request_clean()). */
enum conn_clean_do {
    CONN_CLEAN_KEEP,     /* it goes as it came */
    CONN_CLEAN_FORWARD,  /* it goes upstream cleaned: its new path in *path, *path_len */
    CONN_CLEAN_REDIRECT, /* the client is sent to out (302): a document's address, or a
                            wrapper's, so that the address bar and history are clean too */
};

/* The URL of the exchange (its path path[0..path_len) on its host) cleaned into out (size
 * bytes, BROCK_URL_MAX), and what is done with it; counted and logged when it is not KEEP.
 * A tunnel and an upgrade are left alone; a blocked request is only ever redirected (a
 * wrapper opened). */
enum conn_clean_do conn_clean(struct conn *c, const char **path, size_t *path_len, char *out,
                              size_t size);

/* Frees the exchange's decision (conn_exchange_reset(), conn_free()). */
void conn_decision_free(struct exchange *x);

/* A request's head (request 1) or its response's, as it came: the engine learns from it
 * what x->learn says it takes (brock_exchange_request(), brock_exchange_response()). */
void conn_learn(struct conn *c, const struct http_head *hh, int request);

/* Whose requests c's are, for the client's own page views, daily counts and switches
 * (brock_request.client): "" for this machine (--local), whose dashboard shows everyone's;
 * else the name the owner gave the client (--client), or its address. Found once while the
 * client has connections (conn_answer.c); buf (64 bytes) holds it for a connection not
 * counted. */
const char *conn_client_key(const struct conn *c, char buf[64]);

#endif
