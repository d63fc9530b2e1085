/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The carrier: an intercepted client's HTTP/2 session (nghttp2), its frames read and written
 * on the loop, each request stream handed to a stream connection (h2stream.c writes its
 * request, reads its response). See h2front.h. */
#include "proxy/h2front.h"

#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "net/io.h"
#include "proxy/conn.h"
#include "proxy/conn_internal.h"
#include "proxy/h2common.h"
#include "proxy/h2stream.h"
#include "proxy/limits.h"
#include "util/alloc.h"
#include "util/log.h"

const struct io_ops h2front_io = {
    .name = "HTTP/2 stream",
    .tls = 0,
    .splice = 0,
};

int h2front_negotiated(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    const unsigned char *p = NULL;
    unsigned len = 0;

    if (!ssl)
        return 0;
    SSL_get0_alpn_selected(ssl, &p, &len);
    return len == 2 && memcmp(p, "h2", 2) == 0;
}

/* ---- what nghttp2 reports ---- */

static uint32_t *opened_word(struct h2front *f, int32_t id, uint32_t *bit)
{
    uint32_t slot = ((uint32_t)id >> 1) % (H2_OPENED_WINDOW / 2);

    *bit = 1u << (slot % 32);
    return &f->opened[slot / 32];
}

/* The client opens stream id: the ids it skipped to get there are closed for good. */
static void opened_mark(struct h2front *f, int32_t id)
{
    uint32_t bit, *w;

    if (id > f->max_id) {
        int32_t from = f->max_id + 2;

        if (id - from >= H2_OPENED_WINDOW)
            from = id - H2_OPENED_WINDOW + 2;
        for (int32_t k = from; k < id; k += 2) {
            w = opened_word(f, k, &bit);
            *w &= ~bit;
        }
        f->max_id = id;
    }
    w = opened_word(f, id, &bit);
    *w |= bit;
}

/* Whether a HEADERS frame on id opens a stream below one the client opened already, which it
 * never opened (a frame on a stream it did open and that closed is nghttp2's to judge). */
static int opened_skipped(struct h2front *f, int32_t id)
{
    uint32_t bit, *w;

    if (id >= f->max_id || f->max_id - id >= H2_OPENED_WINDOW)
        return 0;
    w = opened_word(f, id, &bit);
    return !(*w & bit);
}

static int on_begin_frame(nghttp2_session *ng, const nghttp2_frame_hd *hd, void *arg)
{
    struct h2front *f = arg;

    if (hd->type != NGHTTP2_HEADERS || hd->stream_id <= 0 || !(hd->stream_id & 1))
        return 0;
    if (opened_skipped(f, hd->stream_id))
        return nghttp2_session_terminate_session(ng, NGHTTP2_PROTOCOL_ERROR) == 0
                   ? 0
                   : NGHTTP2_ERR_CALLBACK_FAILURE;
    opened_mark(f, hd->stream_id);
    return 0;
}

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *frame, void *arg)
{
    struct h2front *f = arg;
    struct h2stream *st;

    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    /* Stopping: no new stream (the GOAWAY said which was the last taken). */
    if (f->stopping)
        return nghttp2_submit_rst_stream(ng, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                         NGHTTP2_REFUSED_STREAM) == 0
                   ? 0
                   : NGHTTP2_ERR_CALLBACK_FAILURE;
    st = h2stream_new(f, frame->hd.stream_id);
    if (!st || nghttp2_session_set_stream_user_data(ng, frame->hd.stream_id, st) != 0) {
        h2stream_free(st);
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    return 0;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *arg)
{
    struct h2stream *st = nghttp2_session_get_stream_user_data(ng, frame->hd.stream_id);

    (void)flags;
    (void)arg;
    if (st && frame->hd.type == NGHTTP2_HEADERS)
        h2stream_header(st, (const char *)name, namelen, (const char *)value, valuelen);
    return 0;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *frame, void *arg)
{
    struct h2stream *st;
    int ended = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;

    (void)arg;
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    st = nghttp2_session_get_stream_user_data(ng, frame->hd.stream_id);
    if (!st)
        return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && !h2stream_started(st))
        h2stream_start(st, ended);
    else if (ended)
        h2stream_end(st);
    return 0;
}

static void answered_early(nghttp2_session *ng, struct h2stream *st, size_t len);

static int on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data,
                         size_t len, void *arg)
{
    struct h2stream *st = nghttp2_session_get_stream_user_data(ng, id);

    (void)flags;
    (void)arg;
    /* Bytes no stream connection takes are given back to the windows at once. */
    if (!st || h2stream_data(st, (const char *)data, len) < 0) {
        if (nghttp2_session_consume(ng, id, len) != 0)
            (void)nghttp2_session_consume_connection(ng, len);
        if (st && st->early)
            answered_early(ng, st, len);
    }
    return 0;
}

/* The session ends for what the client did (why: a sentence): said and counted once. */
static void h2front_refused(struct h2front *f, const char *why)
{
    if (f->refused)
        return;
    f->refused = 1;
    conn_log_failure(f->c, LOG_INFO, 0, why);
    f->c->px->metrics.h2_refused++;
}

/* A whole response went before the client's request ended (an upload brock answered early):
 * the rest of the body is read and dropped, up to H2_DISCARD_MAX, past which the client is
 * asked to stop sending it, without error (RFC 9113 8.1). Not at once: curl (7.88, Debian 12's)
 * takes that RST_STREAM for a failure and drops the response it got. */
static void answered_early(nghttp2_session *ng, struct h2stream *st, size_t len)
{
    st->discarded += len;
    if (st->discarded > H2_DISCARD_MAX && !st->rst_sent) {
        st->rst_sent = 1;
        (void)nghttp2_submit_rst_stream(ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_NO_ERROR);
    }
}

static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *frame, void *arg)
{
    struct h2front *f = arg;
    struct h2stream *st;

    /* nghttp2 ended the session for a limit or a broken rule (a flood of resets, more
     * streams than SETTINGS allowed): said once, with what the GOAWAY says. */
    if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR) {
        char why[256];

        snprintf(why, sizeof(why), "brock ended the client's HTTP/2 connection: %s%s%.*s",
                 nghttp2_http2_strerror(frame->goaway.error_code),
                 frame->goaway.opaque_data_len ? ": " : "", (int)frame->goaway.opaque_data_len,
                 frame->goaway.opaque_data ? (const char *)frame->goaway.opaque_data : "");
        h2front_refused(f, why);
        return 0;
    }
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    st = nghttp2_session_get_stream_user_data(ng, frame->hd.stream_id);
    if (st && !st->req_ended)
        st->early = 1;
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error, void *arg)
{
    struct h2stream *st = nghttp2_session_get_stream_user_data(ng, id);

    (void)arg;
    if (st)
        h2stream_closed(st, error);
    return 0;
}

/* ---- the session ---- */

static nghttp2_session *session_new(struct h2front *f)
{
    nghttp2_session_callbacks *cb = NULL;
    nghttp2_option *opt = NULL;
    nghttp2_session *ng = NULL;

    if (nghttp2_session_callbacks_new(&cb) != 0 || !(opt = h2_options_new()))
        goto done;
    nghttp2_session_callbacks_set_on_begin_frame_callback(cb, on_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
    /* A request's window is given back as its stream connection takes the bytes; the floods
     * are bounded (h2common.h). */
    if (nghttp2_session_server_new2(&ng, cb, f, opt) != 0)
        ng = NULL;
done:
    nghttp2_session_callbacks_del(cb);
    nghttp2_option_del(opt);
    return ng;
}

/* brock's SETTINGS, and the connection's window raised from HTTP/2's 64 KiB. */
static int session_settings(nghttp2_session *ng)
{
    const nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, H2_MAX_STREAMS},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_STREAM_WINDOW},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)LIMIT_HEAD_BYTES},
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
    };

    if (nghttp2_submit_settings(ng, NGHTTP2_FLAG_NONE, iv, sizeof(iv) / sizeof(iv[0])) != 0)
        return -1;
    return nghttp2_session_set_local_window_size(ng, NGHTTP2_FLAG_NONE, 0, H2_CONN_WINDOW) == 0
               ? 0
               : -1;
}

int h2front_start(struct conn *c)
{
    struct h2front *f = mem_calloc(1, sizeof(*f));

    if (!f || !(f->ng = session_new(f)) || session_settings(f->ng) < 0) {
        if (f)
            nghttp2_session_del(f->ng);
        mem_free(f);
        conn_out_of_memory(c, "starting HTTP/2 with the client");
        return -1;
    }
    f->c = c;
    LIST_INIT(&f->streams);
    c->h2.front = f;
    c->h2_carrier = 1;
    c->px->metrics.h2_connections++;
    conn_set_state(c, CONN_H2);
    return 0;
}

int h2front_busy(const struct conn *c)
{
    return c->h2_carrier && c->h2.front && c->h2.front->n_streams > 0;
}

int h2front_working(const struct conn *c)
{
    const struct h2stream *st;

    if (!c->h2_carrier || !c->h2.front)
        return 0;
    LIST_FOREACH(st, &c->h2.front->streams, link) {
        if (st->sc)
            return 1;
    }
    return 0;
}

void h2front_kick(struct h2front *f)
{
    struct conn *c = f->c;

    if (f->kicked || !c || c->c_state != CONN_H2 || !c->c_client.bev)
        return;
    f->kicked = 1;
    bufferevent_trigger(c->c_client.bev, EV_WRITE,
                        BEV_TRIG_DEFER_CALLBACKS | BEV_TRIG_IGNORE_WATERMARKS);
}

/* The client's frames, as many as came. Returns 0, or -1 when the session failed (c is then
 * closing). */
static int carrier_read(struct conn *c, struct h2front *f)
{
    struct evbuffer *in = bufferevent_get_input(c->c_client.bev);

    while (evbuffer_get_length(in) > 0) {
        struct evbuffer_iovec v;
        ssize_t n;

        if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
            break;
        n = nghttp2_session_mem_recv(f->ng, v.iov_base, v.iov_len);
        if (n < 0) {
            char why[160];

            snprintf(why, sizeof(why), "the client broke HTTP/2: %s; closed the connection",
                     nghttp2_strerror((int)n));
            h2front_refused(f, why);
            /* What nghttp2 queued (a GOAWAY saying why) goes out before the close. */
            evbuffer_drain(in, evbuffer_get_length(in));
            return -1;
        }
        evbuffer_drain(in, (size_t)n);
    }
    return 0;
}

/* brock's frames, while the client's output has room (its write event brings the rest).
 * Returns 0, or -1 when out of memory (c is then closed). */
static int carrier_write(struct conn *c, struct h2front *f)
{
    struct evbuffer *out = bufferevent_get_output(c->c_client.bev);

    while (evbuffer_get_length(out) < LIMIT_PENDING_BYTES) {
        const uint8_t *p;
        ssize_t n = nghttp2_session_mem_send(f->ng, &p);

        if (n == 0)
            break;
        if (n < 0 || evbuffer_add(out, p, (size_t)n) < 0) {
            conn_out_of_memory(c, "writing HTTP/2 frames");
            return -1;
        }
    }
    return 0;
}

void h2front_run(struct conn *c)
{
    struct h2front *f = c->h2.front;
    int failed;

    f->kicked = 0;
    failed = carrier_read(c, f) < 0;
    if (c->c_state != CONN_H2 || carrier_write(c, f) < 0)
        return;
    if (failed) {
        conn_flush_close(c, NULL);
        return;
    }
    if (c->c_client.eof) {
        conn_close(c, "the client closed its HTTP/2 connection");
        return;
    }
    /* Both ends said GOAWAY, or brock is stopping and its streams are done. */
    if ((!nghttp2_session_want_read(f->ng) && !nghttp2_session_want_write(f->ng)) ||
        (f->stopping && f->n_streams == 0 && !nghttp2_session_want_write(f->ng)))
        conn_flush_close(c, "the HTTP/2 session ended");
    admit_update(c);
}

void h2front_stop(struct conn *c)
{
    struct h2front *f = c->h2.front;

    /* Told twice (a GOAWAY did not end it within a timeout): it ends now. */
    if (f->stopping) {
        conn_close(c, "the HTTP/2 connection did not end after its GOAWAY");
        return;
    }
    f->stopping = 1;
    /* Out of memory for it, the connection still closes once its streams are done. */
    (void)nghttp2_submit_goaway(f->ng, NGHTTP2_FLAG_NONE,
                                nghttp2_session_get_last_proc_stream_id(f->ng), NGHTTP2_NO_ERROR,
                                NULL, 0);
    /* At the loop's next turn: the caller may be walking the connections (drain()). */
    h2front_kick(f);
}

void h2front_free(struct conn *c)
{
    struct h2front *f = c->h2.front;

    c->h2.front = NULL;
    c->h2_carrier = 0;
    if (!f)
        return;
    /* Each stream's connection goes with it; nghttp2 no longer reports on any. */
    while (!LIST_EMPTY(&f->streams))
        h2stream_drop(LIST_FIRST(&f->streams));
    nghttp2_session_del(f->ng);
    mem_free(f);
}

void h2front_stream_gone(struct conn *c)
{
    struct h2stream *st = c->h2.stream;

    c->h2.stream = NULL;
    c->h2_stream = 0;
    if (st)
        h2stream_conn_gone(st);
}
