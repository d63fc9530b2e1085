/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One HTTP/2 request stream of a carrier: its header block checked and written into its stream
 * connection's pair as an HTTP/1.1 request, its DATA frames as that request's body, and the
 * HTTP/1.1 response the stream connection writes back read into HEADERS and DATA frames. */
#include "proxy/h2stream.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http/h2req.h"
#include "http/head.h"
#include "proxy/conn_internal.h"
#include "proxy/h2common.h"
#include "proxy/h2front.h"
#include "proxy/limits.h"
#include "proxy/pump.h"
#include "util/alloc.h"
#include "util/log.h"

/* ---- the stream's life ---- */

struct h2stream *h2stream_new(struct h2front *f, int32_t id)
{
    struct h2stream *st = mem_calloc(1, sizeof(*st));

    if (!st)
        return NULL;
    st->f = f;
    st->id = id;
    h2req_init(&st->req);
    buf_init(&st->names, LIMIT_HEAD_BYTES);
    side_init(&st->resp);
    side_start(&st->resp, SIDE_UPSTREAM);
    st->resp.io = &h2front_io;
    if (!(st->body = evbuffer_new())) {
        side_cleanup(&st->resp);
        mem_free(st);
        return NULL;
    }
    LIST_INSERT_HEAD(&f->streams, st, link);
    f->n_streams++;
    /* A carrier with a stream is never the connection cut to make room for one. */
    admit_update(f->c);
    return st;
}

void h2stream_free(struct h2stream *st)
{
    struct h2front *f;

    if (!st)
        return;
    f = st->f;
    LIST_REMOVE(st, link);
    f->n_streams--;
    if (!st->ng_closed)
        (void)nghttp2_session_set_stream_user_data(f->ng, st->id, NULL);
    h2req_cleanup(&st->req);
    buf_cleanup(&st->names);
    side_cleanup(&st->resp);
    evbuffer_free(st->body);
    if (st->end)
        bufferevent_free(st->end);
    mem_free(st);
    if (f->c)
        admit_update(f->c);
}

/* Request bytes written to the pair that its connection will never read now (it is gone) are
 * given back to the windows, or every such stream would shrink the connection's for good. */
static void give_back(struct h2stream *st)
{
    size_t n = st->unconsumed;

    st->unconsumed = 0;
    if (n && (st->ng_closed || nghttp2_session_consume(st->f->ng, st->id, n) != 0))
        (void)nghttp2_session_consume_connection(st->f->ng, n);
}

/* st and its stream connection let go of each other; the connection is returned (NULL:
 * none). */
static struct conn *detach(struct h2stream *st)
{
    struct conn *sc = st->sc;

    st->sc = NULL;
    give_back(st);
    if (sc)
        sc->h2.stream = NULL;
    return sc;
}

/* The stream connection closes now, its stream no longer its (reason: for -v). */
static void close_conn(struct h2stream *st, const char *reason)
{
    struct conn *sc = detach(st);

    if (sc)
        conn_close(sc, reason);
}

/* Resets the stream with code (an RST_STREAM frame); its connection closes. */
static void reset(struct h2stream *st, uint32_t code)
{
    close_conn(st, "its HTTP/2 stream was reset");
    if (st->rst_sent)
        return;
    st->rst_sent = 1;
    if (!st->ng_closed &&
        nghttp2_submit_rst_stream(st->f->ng, NGHTTP2_FLAG_NONE, st->id, code) != 0)
        log_msg(LOG_ERR, "%s: could not reset an HTTP/2 stream", st->f->c->c_peer);
    h2front_kick(st->f);
}

void h2stream_closed(struct h2stream *st, uint32_t error)
{
    st->ng_closed = 1;
    close_conn(st, error ? "the client reset its HTTP/2 stream" : NULL);
    h2stream_free(st);
}

void h2stream_drop(struct h2stream *st)
{
    close_conn(st, "its HTTP/2 connection closed");
    h2stream_free(st);
}

void h2stream_header(struct h2stream *st, const char *name, size_t nlen, const char *value,
                     size_t vlen)
{
    /* A trailer: checked like any field, and dropped (the body is framed without them). */
    if (st->started) {
        if (!h2req_trailer_ok(name, nlen, value, vlen))
            reset(st, NGHTTP2_PROTOCOL_ERROR);
        return;
    }
    h2req_field(&st->req, name, nlen, value, vlen);
}

int h2stream_started(const struct h2stream *st)
{
    return st->started;
}

/* ---- brock's own answer ---- */

static ssize_t on_body_read(nghttp2_session *ng, int32_t id, uint8_t *out, size_t length,
                            uint32_t *flags, nghttp2_data_source *src, void *arg);

/* Answers the stream with status and a sentence, nothing sent anywhere. */
static void answer(struct h2stream *st, int status, const char *why)
{
    char code[12], len[24];
    nghttp2_data_provider prov = {.source.ptr = st, .read_callback = on_body_read};
    nghttp2_nv nv[4];

    log_msg(LOG_INFO, "%s %s %s: %d %s", st->f->c->c_peer, st->req.method[0] ? st->req.method : "-",
            st->req.authority[0] ? st->req.authority : st->f->c->tunnel_host, status, why);
    nv[0] = h2_field(":status", 7, code, (size_t)snprintf(code, sizeof(code), "%03d", status));
    nv[1] = h2_field("content-type", 12, "text/plain; charset=utf-8", 25);
    nv[2] = h2_field("cache-control", 13, "no-store", 8);
    nv[3] = h2_field("content-length", 14, len,
                     (size_t)snprintf(len, sizeof(len), "%zu", strlen(why) + 1));
    if (evbuffer_add_printf(st->body, "%s\n", why) < 0 ||
        nghttp2_submit_response(st->f->ng, st->id, nv, sizeof(nv) / sizeof(nv[0]), &prov) != 0) {
        reset(st, NGHTTP2_INTERNAL_ERROR);
        return;
    }
    st->submitted = st->resp_done = 1;
    h2front_kick(st->f);
}

/* ---- the request, as HTTP/1.1 into the pair ---- */

static int add(struct evbuffer *out, const void *p, size_t len)
{
    return evbuffer_add(out, p, len);
}

/* The request head into the pair: its Content-Length, chunked for a body of unknown length,
 * no body when the stream ended with it. */
static int write_head(struct h2stream *st)
{
    struct buf head;
    enum h2req_body body = st->req.has_length ? H2REQ_LENGTH
                           : st->req_ended    ? H2REQ_NO_BODY
                                              : H2REQ_CHUNKED;
    int rc;

    st->head_sent = 1;
    st->chunked = body == H2REQ_CHUNKED;
    buf_init(&head, 2 * LIMIT_HEAD_BYTES);
    rc = h2req_write_head(&st->req, body, &head) < 0 ||
         add(bufferevent_get_output(st->end), head.data, head.len) < 0;
    buf_cleanup(&head);
    return rc ? -1 : 0;
}

static void on_end_read(struct bufferevent *bev, void *arg);
static void on_end_write(struct bufferevent *bev, void *arg);
static void on_end_event(struct bufferevent *bev, short what, void *arg);

/* A pair for the stream, and its connection on the other end. Returns 0, or -1 when out of
 * memory. */
static int open_conn(struct h2stream *st)
{
    struct conn *c = st->f->c;
    struct bufferevent *pair[2];

    if (bufferevent_pair_new(c->px->base, BEV_OPT_DEFER_CALLBACKS, pair) != 0)
        return -1;
    st->end = pair[0];
    st->resp.bev = st->end;
    st->resp.no_body = strcmp(st->req.method, "HEAD") == 0;
    bufferevent_setcb(st->end, on_end_read, on_end_write, on_end_event, st);
    if (bufferevent_enable(st->end, EV_READ | EV_WRITE) < 0) {
        bufferevent_free(pair[1]);
        return -1;
    }
    st->sc = conn_new_stream(c, pair[1], st);
    return st->sc ? 0 : -1;
}

void h2stream_start(struct h2stream *st, int ended)
{
    struct conn *c = st->f->c;
    const char *why;
    uint32_t code;
    int status;

    st->started = 1;
    st->req_ended = ended;
    status = h2req_check(&st->req, ended, c->tunnel_host, c->tunnel_port, &why, &code);
    if (status < 0) {
        reset(st, code);
        return;
    }
    if (status > 0) {
        answer(st, status, why);
        return;
    }
    /* As many streams as connections: a client past its share waits for one. */
    if (!admit_room(c->px, c->c_peer)) {
        reset(st, NGHTTP2_REFUSED_STREAM);
        return;
    }
    if (open_conn(st) < 0) {
        log_msg(LOG_ERR, "%s: out of memory for an HTTP/2 stream", c->c_peer);
        reset(st, NGHTTP2_INTERNAL_ERROR);
        return;
    }
    c->px->metrics.h2_streams++;
    /* A body of unknown length waits for its first DATA frame, or the end: a request that
     * ends with an empty DATA frame then goes without one. */
    if ((ended || st->req.has_length) && write_head(st) < 0)
        reset(st, NGHTTP2_INTERNAL_ERROR);
}

int h2stream_data(struct h2stream *st, const char *p, size_t len)
{
    struct evbuffer *out;
    int rc = 0;

    if (!st->sc || !st->end || st->req_ended || len == 0)
        return -1;
    if (st->req.has_length && len > st->req.length - st->got) {
        reset(st, NGHTTP2_PROTOCOL_ERROR);
        return -1;
    }
    if (!st->head_sent && write_head(st) < 0) {
        reset(st, NGHTTP2_INTERNAL_ERROR);
        return -1;
    }
    out = bufferevent_get_output(st->end);
    if (st->chunked)
        rc = evbuffer_add_printf(out, "%zx\r\n", len) < 0;
    rc |= add(out, p, len);
    if (st->chunked)
        rc |= add(out, "\r\n", 2);
    if (rc) {
        reset(st, NGHTTP2_INTERNAL_ERROR);
        return -1;
    }
    st->got += len;
    st->unconsumed += len;
    return 0;
}

void h2stream_end(struct h2stream *st)
{
    if (st->req_ended)
        return;
    st->req_ended = 1;
    if (!st->sc || !st->end)
        return;
    if (st->req.has_length && st->got != st->req.length) {
        reset(st, NGHTTP2_PROTOCOL_ERROR);
        return;
    }
    if ((!st->head_sent && write_head(st) < 0) ||
        (st->head_sent && st->chunked && add(bufferevent_get_output(st->end), "0\r\n\r\n", 5)))
        reset(st, NGHTTP2_INTERNAL_ERROR);
}

/* The stream connection took what was written to it: the windows get those bytes back. */
static void on_end_write(struct bufferevent *bev, void *arg)
{
    struct h2stream *st = arg;
    (void)bev;
    if (!st->unconsumed || evbuffer_get_length(bufferevent_get_output(st->end)) > 0)
        return;
    give_back(st);
    h2front_kick(st->f);
}

static void on_end_event(struct bufferevent *bev, short what, void *arg)
{
    /* The stream connection's own close says when it is gone (h2stream_conn_gone()). */
    (void)bev;
    (void)what;
    (void)arg;
}

/* ---- the response, from HTTP/1.1 into frames ---- */

/* The client's window took some of the body: more of it is read when it had stopped. */
static void unpause(struct h2stream *st)
{
    if (!st->paused || evbuffer_get_length(st->body) >= LIMIT_PENDING_BYTES / 2 || !st->end)
        return;
    st->paused = 0;
    if (bufferevent_enable(st->end, EV_READ) < 0) {
        reset(st, NGHTTP2_INTERNAL_ERROR);
        return;
    }
    /* What the input holds already raises no read event. */
    bufferevent_trigger(st->end, EV_READ, BEV_TRIG_DEFER_CALLBACKS | BEV_TRIG_IGNORE_WATERMARKS);
}

static ssize_t on_body_read(nghttp2_session *ng, int32_t id, uint8_t *out, size_t length,
                            uint32_t *flags, nghttp2_data_source *src, void *arg)
{
    struct h2stream *st = src->ptr;
    size_t have = evbuffer_get_length(st->body);
    int n;

    (void)ng;
    (void)id;
    (void)arg;
    if (have == 0 && !st->resp_done) {
        st->deferred = 1;
        return NGHTTP2_ERR_DEFERRED;
    }
    n = evbuffer_remove(st->body, out, length < have ? length : have);
    if (n < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    if (st->resp_done && evbuffer_get_length(st->body) == 0)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    unpause(st);
    return n;
}

/* The body has more, or its end: DATA frames go on. */
static void resume(struct h2stream *st)
{
    if (st->deferred && !st->ng_closed) {
        st->deferred = 0;
        (void)nghttp2_session_resume_data(st->f->ng, st->id);
    }
    h2front_kick(st->f);
}

/* Fields of one HTTP/1.1 connection, which an HTTP/2 response must not carry: the
 * connection-specific ones, and those its Connection field names. */
static int hop_by_hop(const struct brock_header *h, const struct brock_header *connection)
{
    return h2req_connection_specific(h->name, h->name_len) ||
           http_name_is(h->name, h->name_len, "te") ||
           (connection &&
            http_list_has_n(connection->value, connection->value_len, h->name, h->name_len));
}

/* The response head as a HEADERS frame: its status, its fields in lower case (their names
 * copied into st->names). Returns 0, or -1 when out of memory. */
static int submit_head(struct h2stream *st)
{
    const struct http_head *hh = &st->resp.head;
    int status = st->resp.parser.status_code;
    nghttp2_data_provider prov = {.source.ptr = st, .read_callback = on_body_read};
    nghttp2_nv nv[LIMIT_HEADERS + 1];
    size_t n = 1;
    char code[12];

    nv[0] = h2_field(":status", 7, code, (size_t)snprintf(code, sizeof(code), "%03d", status));
    if (h2_fields(hh, hop_by_hop, &st->names, nv, &n, sizeof(nv) / sizeof(nv[0])) < 0)
        return -1;
    st->submitted = 1;
    /* No body follows a HEAD's answer, a 204 or a 304: the HEADERS frame ends the stream. */
    return nghttp2_submit_response(st->f->ng, st->id, nv, n,
                                   st->resp.no_body || status == 204 || status == 304 ? NULL
                                                                                      : &prov)
               ? -1
               : 0;
}

/* The stream connection's response is not HTTP brock reads (it writes none such) or was cut
 * short: the client sees the stream reset, never a body framed as whole. A response cut
 * short was said in the log already, by the stream connection (with -v, this line too). */
static void response_failed(struct h2stream *st, const char *why)
{
    log_msg(st->sc ? LOG_INFO : LOG_DEBUG, "%s %s %s: the HTTP/2 stream was reset: %s",
            st->f->c->c_peer, st->req.method[0] ? st->req.method : "-", st->req.authority, why);
    reset(st, NGHTTP2_INTERNAL_ERROR);
}

/* One event of the response. Returns 1 to read on, 0 to stop. */
static int response_event(struct h2stream *st, const struct side_event *ev)
{
    switch (ev->type) {
    case SIDE_HEAD:
        /* An interim answer (100 Continue): the final one follows. */
        if (st->resp.parser.status_code / 100 == 1)
            return 1;
        if (st->submitted || submit_head(st) < 0) {
            response_failed(st, "its response head could not be sent");
            return 0;
        }
        return 1;
    case SIDE_BODY:
        if (evbuffer_add(st->body, ev->at, ev->len) < 0) {
            response_failed(st, "out of memory for its body");
            return 0;
        }
        return 1;
    case SIDE_DONE:
        st->resp_done = 1;
        /* One exchange a stream: its connection is done. */
        close_conn(st, NULL);
        return 0;
    case SIDE_MORE: return 0;
    case SIDE_UPGRADE:
    case SIDE_ERROR: response_failed(st, ev->reason ? ev->reason : "an upgrade"); return 0;
    }
    return 0;
}

static void read_response(struct h2stream *st)
{
    struct side_event ev;

    while (!st->paused && !st->resp_done && !st->rst_sent && st->end) {
        /* The client's window holds the body back: its connection waits too. */
        if (evbuffer_get_length(st->body) >= LIMIT_PENDING_BYTES) {
            st->paused = 1;
            if (bufferevent_disable(st->end, EV_READ) < 0)
                response_failed(st, "its reading could not be paused");
            break;
        }
        if (pump_read(&st->resp, NULL, FRAME_NONE, &ev) != PUMP_EVENT) {
            /* All read, and its connection is gone: the response ends short. */
            if (!st->sc && !st->ng_closed)
                response_failed(st, "its connection closed before the response was whole");
            break;
        }
        if (!response_event(st, &ev))
            break;
    }
    resume(st);
}

static void on_end_read(struct bufferevent *bev, void *arg)
{
    (void)bev;
    read_response(arg);
}

void h2stream_conn_gone(struct h2stream *st)
{
    st->sc = NULL;
    give_back(st);
    if (st->resp_done || st->ng_closed || st->rst_sent)
        return;
    if (!st->end) {
        reset(st, NGHTTP2_INTERNAL_ERROR);
        return;
    }
    /* What it wrote last is read now, and a body read until close ends here. */
    st->resp.eof = 1;
    read_response(st);
}
