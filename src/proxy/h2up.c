/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP/2 toward origins (h2up.h): the dials others wait for, the sessions, and each request's
 * stream between its connection's pair and nghttp2. */
#include "proxy/h2up_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "http/h2req.h"
#include "http/h2resp.h"
#include "http/head.h"
#include "proxy/conn_internal.h"
#include "proxy/h2common.h"
#include "proxy/limits.h"
#include "proxy/proxy.h"
#include "proxy/pump.h"
#include "util/alloc.h"
#include "util/log.h"

const struct io_ops h2up_io = {
    .name = "HTTP/2 stream to the origin",
    .tls = 0,
    .splice = 0,
};

struct h2up_stream {
    LIST_ENTRY(h2up_stream) link; /* in s->streams while the session lives */
    struct h2up *s;               /* NULL once the session is gone */
    struct conn *c;               /* NULL once the connection let go */
    struct bufferevent *end;      /* the session's end of the pair (NULL: freed) */
    int32_t id;                   /* 0 until the request was submitted */
    struct side req;              /* the request, read from the pair */
    struct evbuffer *body;        /* its body, waiting for DATA frames */
    struct buf names;             /* its field names in lower case, for nghttp2 */
    struct h2resp resp;           /* the response's head, gathered */
    uint64_t owed;          /* response body bytes received and not yet given back to the windows */
    uint64_t taken;         /* of them, what the connection took, to give back at the next run */
    unsigned coalesced : 1; /* for one of the session's aliases, not its own origin */
    unsigned submitted : 1, req_ended : 1, deferred : 1, paused : 1, no_body : 1;
    unsigned chunked : 1, resp_head : 1, resp_done : 1, ng_closed : 1;
};

static void session_kick(struct h2up *s);
static void session_close(struct h2up *s, const char *why);

/* ---- a stream's life ---- */

static void stream_free(struct h2up_stream *st)
{
    /* What the connection took of a stream nghttp2 closed goes back to the connection's
     * window alone. */
    if (st->s && st->taken + st->owed)
        (void)nghttp2_session_consume_connection(st->s->ng, st->taken + st->owed);
    if (st->s) {
        LIST_REMOVE(st, link);
        st->s->n_streams--;
        /* The last one gone, the connection's idle timeout starts at its next run. */
        session_kick(st->s);
    }
    side_cleanup(&st->req);
    evbuffer_free(st->body);
    buf_cleanup(&st->names);
    h2resp_cleanup(&st->resp);
    if (st->end)
        bufferevent_free(st->end);
    mem_free(st);
}

/* The connection's upstream ends here: what the session wrote into the pair reaches it, then
 * the end of the stream, which it reads as an origin closing its connection (at the end of a
 * response, or before one, or in the middle). */
static void stream_end_conn(struct h2up_stream *st)
{
    if (st->end && st->c) {
        bufferevent_disable(st->end, EV_READ);
        (void)bufferevent_flush(st->end, EV_WRITE, BEV_FINISHED);
    }
}

/* Stops the stream (an error, the session's or the connection's): reset with code when
 * nghttp2 still has it. */
static void stream_reset(struct h2up_stream *st, uint32_t code)
{
    if (st->s && st->id > 0 && !st->ng_closed) {
        (void)nghttp2_submit_rst_stream(st->s->ng, NGHTTP2_FLAG_NONE, st->id, code);
        session_kick(st->s);
    }
    stream_end_conn(st);
}

/* nghttp2 is done with the stream: its connection reads what came, then the end; the
 * stream goes once its connection let go too. */
static void stream_closed(struct h2up_stream *st)
{
    st->ng_closed = 1;
    /* Whatever more of the request comes has nowhere to go: the connection's output fills. */
    if (st->end)
        (void)bufferevent_disable(st->end, EV_READ);
    if (!st->resp_done)
        stream_end_conn(st);
    if (!st->c)
        stream_free(st);
}

static struct h2up_stream *stream_by_id(struct h2up *s, int32_t id)
{
    struct h2up_stream *st;

    if (id <= 0)
        return NULL;
    LIST_FOREACH(st, &s->streams, link) {
        if (st->id == id)
            return st;
    }
    return NULL;
}

/* ---- the request, from the pair into frames ---- */

/* Fields of the HTTP/1.1 hop, which HTTP/2 forbids: connection-specific ones, those the
 * Connection field names, Host (its :authority), and TE but for "trailers". */
static int not_forwarded(const struct brock_header *h, const struct brock_header *connection)
{
    return h2req_connection_specific(h->name, h->name_len) ||
           http_name_is(h->name, h->name_len, "host") ||
           (http_name_is(h->name, h->name_len, "te") &&
            !(h->value_len == 8 && strncasecmp(h->value, "trailers", 8) == 0)) ||
           (connection &&
            http_list_has_n(connection->value, connection->value_len, h->name, h->name_len));
}

static ssize_t on_body_read(nghttp2_session *ng, int32_t id, uint8_t *out, size_t length,
                            uint32_t *flags, nghttp2_data_source *src, void *arg);

/* The request head as a HEADERS frame. Returns 0, or -1 when it cannot be (no Host, out of
 * memory, refused by nghttp2). */
static int submit_request(struct h2up_stream *st)
{
    const struct http_head *hh = &st->req.head;
    const struct brock_header *host = http_header_find(hh->h, hh->n, "host");
    const char *method = http_method_str((enum http_method)st->req.parser.method);
    nghttp2_data_provider prov = {.source.ptr = st, .read_callback = on_body_read};
    nghttp2_nv nv[LIMIT_HEADERS + 4];
    size_t n = 0;
    int body = st->req.te.chunked ||
               (st->req.parser.content_length > 0 && st->req.parser.content_length != UINT64_MAX);
    int32_t id;

    if (!host)
        return -1;
    nv[n++] = h2_field(":method", 7, method, strlen(method));
    nv[n++] = h2_field(":scheme", 7, "https", 5);
    nv[n++] = h2_field(":authority", 10, host->value, host->value_len);
    nv[n++] = h2_field(":path", 5, http_head_text(hh), hh->line_len);
    if (h2_fields(hh, not_forwarded, &st->names, nv, &n, sizeof(nv) / sizeof(nv[0])) < 0)
        return -1;
    st->no_body = st->req.parser.method == HTTP_HEAD;
    id = nghttp2_submit_request(st->s->ng, NULL, nv, n, body ? &prov : NULL, st);
    if (id < 0)
        return -1;
    st->id = id;
    st->submitted = 1;
    st->s->px->metrics.h2up_streams++;
    session_kick(st->s);
    return 0;
}

/* More of the body, or its end: DATA frames go on. */
static void resume_body(struct h2up_stream *st)
{
    if (st->deferred && st->s && !st->ng_closed) {
        st->deferred = 0;
        (void)nghttp2_session_resume_data(st->s->ng, st->id);
        session_kick(st->s);
    }
}

static void read_request(struct h2up_stream *st);

static ssize_t on_body_read(nghttp2_session *ng, int32_t id, uint8_t *out, size_t length,
                            uint32_t *flags, nghttp2_data_source *src, void *arg)
{
    struct h2up_stream *st = nghttp2_session_get_stream_user_data(ng, id);
    size_t have;
    int n;

    (void)src;
    (void)arg;
    if (!st)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    have = evbuffer_get_length(st->body);
    if (have == 0 && !st->req_ended) {
        st->deferred = 1;
        return NGHTTP2_ERR_DEFERRED;
    }
    n = evbuffer_remove(st->body, out, length < have ? length : have);
    if (n < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    if (st->req_ended && evbuffer_get_length(st->body) == 0)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    /* Room again: the connection's body is read on (at the next turn, not inside nghttp2). */
    if (st->paused && st->end && evbuffer_get_length(st->body) < LIMIT_PENDING_BYTES / 2) {
        st->paused = 0;
        (void)bufferevent_enable(st->end, EV_READ);
        bufferevent_trigger(st->end, EV_READ,
                            BEV_TRIG_DEFER_CALLBACKS | BEV_TRIG_IGNORE_WATERMARKS);
    }
    return n;
}

/* One event of the request. Returns 1 to read on, 0 to stop. */
static int request_event(struct h2up_stream *st, const struct side_event *ev)
{
    switch (ev->type) {
    case SIDE_HEAD:
        if (st->submitted || submit_request(st) < 0) {
            log_msg(LOG_INFO, "%s: an HTTP/2 request could not be sent", st->s->key);
            stream_reset(st, NGHTTP2_INTERNAL_ERROR);
            return 0;
        }
        return 1;
    case SIDE_BODY:
        if (evbuffer_add(st->body, ev->at, ev->len) < 0) {
            stream_reset(st, NGHTTP2_INTERNAL_ERROR);
            return 0;
        }
        resume_body(st);
        return 1;
    case SIDE_DONE:
        st->req_ended = 1;
        resume_body(st);
        return 0;
    case SIDE_MORE: return 0;
    case SIDE_UPGRADE:
    case SIDE_ERROR: stream_reset(st, NGHTTP2_INTERNAL_ERROR); return 0;
    }
    return 0;
}

static void read_request(struct h2up_stream *st)
{
    struct side_event ev;

    while (st->s && st->end && !st->req_ended && !st->ng_closed) {
        /* The origin's window holds the body back: the pair stops taking the connection's
         * bytes, so that it stops reading its client too. */
        if (evbuffer_get_length(st->body) >= LIMIT_PENDING_BYTES) {
            st->paused = 1;
            (void)bufferevent_disable(st->end, EV_READ);
            break;
        }
        if (pump_read(&st->req, NULL, FRAME_NONE, &ev) != PUMP_EVENT)
            break;
        if (!request_event(st, &ev))
            break;
    }
}

static void on_end_read(struct bufferevent *bev, void *arg)
{
    struct h2up_stream *st = arg;

    (void)bev;
    if (!st->paused)
        read_request(st);
}

static void on_end_event(struct bufferevent *bev, short what, void *arg)
{
    /* The connection's release says when it is gone (h2up_release()). */
    (void)bev;
    (void)what;
    (void)arg;
}

/* The connection took response bytes from the pair: given back to the windows at the next
 * run (not here: this runs while nghttp2 may be calling out). */
static void on_taken(struct evbuffer *b, const struct evbuffer_cb_info *info, void *arg)
{
    struct h2up_stream *st = arg;
    uint64_t n = info->n_deleted < st->owed ? info->n_deleted : st->owed;

    (void)b;
    if (!n)
        return;
    st->owed -= n;
    st->taken += n;
    if (st->s) {
        st->s->taken = 1;
        session_kick(st->s);
    }
}

/* ---- the response, from frames into the pair ---- */

static int end_write(struct h2up_stream *st, const void *p, size_t len)
{
    return evbuffer_add(bufferevent_get_output(st->end), p, len);
}

/* A head from the fields gathered: an interim one (1xx) as it is, the final one with its
 * framing (h2resp.h). */
static int write_head(struct h2up_stream *st)
{
    struct buf out;
    int rc;

    if (st->resp.status / 100 != 1) {
        st->resp_head = 1;
        st->chunked = h2resp_chunked(&st->resp, st->no_body);
    }
    buf_init(&out, 2 * LIMIT_HEAD_BYTES);
    rc = h2resp_write(&st->resp, st->chunked, &out) < 0 || end_write(st, out.data, out.len) < 0;
    buf_cleanup(&out);
    h2resp_reset(&st->resp);
    return rc ? -1 : 0;
}

static int finish_response(struct h2up_stream *st)
{
    if (st->resp_done || !st->resp_head)
        return 0;
    st->resp_done = 1;
    return st->chunked ? end_write(st, "0\r\n\r\n", 5) : 0;
}

/* ---- what nghttp2 reports ---- */

static int on_header(nghttp2_session *ng, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *arg)
{
    struct h2up_stream *st = nghttp2_session_get_stream_user_data(ng, frame->hd.stream_id);
    const char *n = (const char *)name, *v = (const char *)value;

    (void)flags;
    (void)arg;
    /* A trailer section is dropped: the body is framed without one. */
    if (!st || frame->hd.type != NGHTTP2_HEADERS || st->resp_head)
        return 0;
    if (h2resp_field(&st->resp, n, namelen, v, valuelen) < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    return 0;
}

/* The origin answered a coalesced request with 421 (Misdirected Request, RFC 9110 15.5.20):
 * this connection does not serve the request's origin. The origin is no longer sent here, and
 * the request goes again on a connection of its own (as a closed pooled one's would), when it
 * can be sent again; else the 421 is its answer. Returns 1 when it goes again. */
static int misdirected(struct h2up_stream *st)
{
    const struct exchange *x = &st->c->c_ex;
    char key[BROCK_HOST_MAX + 16];

    if (!st->coalesced || st->resp.status != 421)
        return 0;
    h2up_origin_key(st->c, key, sizeof(key));
    h2up_alias_drop(st->s, key);
    log_msg(LOG_INFO, "%s: the HTTP/2 connection to %s does not serve it (421)", key + 6,
            st->s->key + 6);
    if (!x->reused || x->retried || x->req_has_body)
        return 0;
    h2resp_reset(&st->resp);
    stream_reset(st, NGHTTP2_CANCEL);
    return 1;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *frame, void *arg)
{
    struct h2up *s = arg;
    struct h2up_stream *st;

    if (frame->hd.type == NGHTTP2_GOAWAY) {
        s->going = 1;
        return 0;
    }
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    st = nghttp2_session_get_stream_user_data(ng, frame->hd.stream_id);
    if (!st || !st->end || !st->c)
        return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && !st->resp_head) {
        if (misdirected(st))
            return 0;
        if (write_head(st) < 0)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) && finish_response(st) < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    return 0;
}

static int on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data,
                         size_t len, void *arg)
{
    struct h2up_stream *st = nghttp2_session_get_stream_user_data(ng, id);
    struct evbuffer *out;
    int rc = 0;

    (void)flags;
    (void)arg;
    /* Bytes no connection takes are given back to the windows at once. */
    if (!st || !st->end || !st->c || !st->resp_head) {
        (void)nghttp2_session_consume(ng, id, len);
        return 0;
    }
    out = bufferevent_get_output(st->end);
    st->owed += len;
    if (st->chunked)
        rc = evbuffer_add_printf(out, "%zx\r\n", len) < 0;
    rc |= evbuffer_add(out, data, len);
    if (st->chunked)
        rc |= evbuffer_add(out, "\r\n", 2);
    return rc ? NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE : 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error, void *arg)
{
    struct h2up_stream *st = nghttp2_session_get_stream_user_data(ng, id);
    struct h2up *s = arg;

    if (!st)
        return 0;
    if (error && error != NGHTTP2_REFUSED_STREAM)
        log_msg(LOG_DEBUG, "%s: HTTP/2 stream %" PRId32 " closed: %s", s->key, id,
                nghttp2_http2_strerror(error));
    stream_closed(st);
    return 0;
}

/* A request's HEADERS that never went (the origin said GOAWAY first, or its stream was
 * reset while queued): the stream never opened, so no close is reported. */
static int on_frame_not_send(nghttp2_session *ng, const nghttp2_frame *frame, int error, void *arg)
{
    struct h2up_stream *st;

    (void)ng;
    (void)error;
    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    st = stream_by_id(arg, frame->hd.stream_id);
    if (st && !st->ng_closed)
        stream_closed(st);
    return 0;
}

/* ---- the session ---- */

static nghttp2_session *session_new(struct h2up *s)
{
    nghttp2_session_callbacks *cb = NULL;
    nghttp2_option *opt = NULL;
    nghttp2_session *ng = NULL;

    if (nghttp2_session_callbacks_new(&cb) != 0 || !(opt = h2_options_new()))
        goto done;
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(cb, on_frame_not_send);
    if (nghttp2_session_client_new2(&ng, cb, s, opt) != 0)
        ng = NULL;
done:
    nghttp2_session_callbacks_del(cb);
    nghttp2_option_del(opt);
    return ng;
}

static int session_settings(nghttp2_session *ng)
{
    const nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2UP_STREAM_WINDOW},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)LIMIT_HEAD_BYTES},
    };

    if (nghttp2_submit_settings(ng, NGHTTP2_FLAG_NONE, iv, sizeof(iv) / sizeof(iv[0])) != 0)
        return -1;
    return nghttp2_session_set_local_window_size(ng, NGHTTP2_FLAG_NONE, 0, H2UP_CONN_WINDOW) == 0
               ? 0
               : -1;
}

static void session_kick(struct h2up *s)
{
    if (s->kicked || !s->bev)
        return;
    s->kicked = 1;
    bufferevent_trigger(s->bev, EV_WRITE, BEV_TRIG_DEFER_CALLBACKS | BEV_TRIG_IGNORE_WATERMARKS);
}

/* What the connections took is given back to the windows. */
static void give_back(struct h2up *s)
{
    struct h2up_stream *st;

    if (!s->taken)
        return;
    s->taken = 0;
    LIST_FOREACH(st, &s->streams, link) {
        if (st->taken && (st->ng_closed || nghttp2_session_consume(s->ng, st->id, st->taken)))
            (void)nghttp2_session_consume_connection(s->ng, st->taken);
        st->taken = 0;
    }
}

/* Reads the origin's frames, then writes brock's while the output has room. Returns 0, or -1
 * when the session failed (with why). */
static int session_io(struct h2up *s, const char **why)
{
    struct evbuffer *in = bufferevent_get_input(s->bev);
    struct evbuffer *out = bufferevent_get_output(s->bev);

    while (evbuffer_get_length(in) > 0) {
        struct evbuffer_iovec v;
        ssize_t n;

        if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
            break;
        n = nghttp2_session_mem_recv(s->ng, v.iov_base, v.iov_len);
        if (n < 0) {
            *why = nghttp2_strerror((int)n);
            return -1;
        }
        evbuffer_drain(in, (size_t)n);
    }
    give_back(s);
    while (evbuffer_get_length(out) < LIMIT_PENDING_BYTES) {
        const uint8_t *p;
        ssize_t n = nghttp2_session_mem_send(s->ng, &p);

        if (n == 0)
            break;
        if (n < 0 || evbuffer_add(out, p, (size_t)n) < 0) {
            *why = "out of memory";
            return -1;
        }
    }
    return 0;
}

/* Whether the idle upstream connections, pooled ones and HTTP/2 ones without a stream, are
 * past what brock keeps (LIMIT_POOL_TOTAL): a page that names thousands of origins must not
 * hold a descriptor open for each. */
static int too_many_idle(const struct h2up *s)
{
    const struct h2up *o;
    size_t n = s->px->n_pool;

    LIST_FOREACH(o, &s->px->h2up, link) {
        n += o->state == H2UP_OPEN && o->n_streams == 0;
    }
    return n > LIMIT_POOL_TOTAL;
}

static void session_run(struct h2up *s)
{
    const char *why = NULL;
    struct timeval idle = {TIMEOUT_POOL_IDLE, 0};

    s->kicked = 0;
    if (session_io(s, &why) < 0) {
        session_close(s, why);
        return;
    }
    if (!nghttp2_session_want_read(s->ng) && !nghttp2_session_want_write(s->ng) &&
        evbuffer_get_length(bufferevent_get_output(s->bev)) == 0) {
        session_close(s, NULL);
        return;
    }
    if (!s->n_streams && too_many_idle(s)) {
        session_close(s, NULL);
        return;
    }
    /* With no stream, the connection waits for the next request as long as a pooled one. */
    bufferevent_set_timeouts(s->bev, s->n_streams ? NULL : &idle, NULL);
}

static void on_session_read(struct bufferevent *bev, void *arg)
{
    (void)bev;
    session_run(arg);
}

static void on_session_write(struct bufferevent *bev, void *arg)
{
    (void)bev;
    session_run(arg);
}

static void on_session_event(struct bufferevent *bev, short what, void *arg)
{
    struct h2up *s = arg;

    (void)bev;
    if (what & BEV_EVENT_TIMEOUT)
        session_close(s, NULL);
    else if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        session_close(s, what & BEV_EVENT_ERROR ? "the connection failed" : NULL);
}

/* The session ends: each stream's connection reads what came, then the end (its request sent
 * again elsewhere if nothing came and it may be). */
static void session_close(struct h2up *s, const char *why)
{
    if (why)
        log_msg(LOG_INFO, "%s: the HTTP/2 connection to the origin ended: %s", s->key + 6, why);
    while (!LIST_EMPTY(&s->streams)) {
        struct h2up_stream *st = LIST_FIRST(&s->streams);

        LIST_REMOVE(st, link);
        s->n_streams--;
        st->s = NULL;
        if (!st->ng_closed) {
            st->ng_closed = 1;
            if (!st->resp_done)
                stream_end_conn(st);
        }
        if (!st->c)
            stream_free(st);
    }
    h2up_free(s);
}

/* s's session starts on bev (the origin chose h2). Returns 0, or -1 when out of memory. */
static int session_open(struct h2up *s, struct bufferevent *bev)
{
    socklen_t len = sizeof(s->peer);

    if (!(s->ng = session_new(s)) || session_settings(s->ng) < 0)
        return -1;
    s->state = H2UP_OPEN;
    s->bev = bev;
    s->px->metrics.h2up_connections++;
    /* Known, it lets other origins at that address share the connection (coalescing). */
    if (getpeername(bufferevent_getfd(bev), (struct sockaddr *)&s->peer, &len) < 0)
        s->peer.ss_family = AF_UNSPEC;
    bufferevent_setcb(bev, on_session_read, on_session_write, on_session_event, s);
    bufferevent_set_timeouts(bev, NULL, NULL);
    if (bufferevent_enable(bev, EV_READ | EV_WRITE) < 0)
        return -1;
    session_kick(s);
    return 0;
}

/* ---- connections on streams ---- */

/* c goes on a stream of s: its upstream side is a pair's end, and its request is sent. A
 * request on a connection that was open before it (reused), or that another origin opened,
 * may be sent again on a fresh one should nothing come back. */
static void attach(struct h2up *s, struct conn *c, int reused)
{
    struct h2up_stream *st = mem_calloc(1, sizeof(*st));
    struct bufferevent *pair[2] = {NULL, NULL};
    char key[BROCK_HOST_MAX + 16];

    if (!st || !(st->body = evbuffer_new()) ||
        bufferevent_pair_new(s->px->base, BEV_OPT_DEFER_CALLBACKS, pair) != 0) {
        if (st)
            evbuffer_free(st->body);
        mem_free(st);
        conn_upstream_failed(c, 502, "brock could not connect upstream: out of memory");
        return;
    }
    h2up_origin_key(c, key, sizeof(key));
    st->s = s;
    st->c = c;
    st->end = pair[0];
    st->coalesced = strcmp(key, s->key) != 0;
    side_init(&st->req);
    side_start(&st->req, SIDE_CLIENT);
    st->req.bev = st->end;
    st->req.io = &h2up_io;
    buf_init(&st->names, LIMIT_HEAD_BYTES);
    h2resp_init(&st->resp);
    bufferevent_setcb(st->end, on_end_read, NULL, on_end_event, st);
    evbuffer_add_cb(bufferevent_get_output(st->end), on_taken, st);
    (void)bufferevent_enable(st->end, EV_READ | EV_WRITE);
    LIST_INSERT_HEAD(&s->streams, st, link);
    s->n_streams++;
    c->up2.stream = st;
    c->up_h2 = 1;
    c->c_up.bev = pair[1];
    c->c_up.io = &h2up_io;
    c->c_ex.reused = reused || st->coalesced;
    conn_upstream_ready(c);
}

int h2up_take(struct conn *c)
{
    char key[BROCK_HOST_MAX + 16];
    struct h2up *s;

    h2up_origin_key(c, key, sizeof(key));
    if ((s = h2up_find(c->px, key, 1)) != NULL) {
        attach(s, c, 1);
        return 1;
    }
    if (h2up_known_h1(c) || !(s = h2up_find(c->px, key, 0)) || s->n_waiting >= H2UP_MAX_WAITING)
        return 0;
    s->waiting[s->n_waiting++] = c;
    c->up2.session = s;
    c->up_waiting = 1;
    return 1;
}

int h2up_has(struct conn *c)
{
    char key[BROCK_HOST_MAX + 16];

    h2up_origin_key(c, key, sizeof(key));
    return h2up_find(c->px, key, 1) || h2up_find(c->px, key, 0);
}

void h2up_dialing(struct conn *c)
{
    char key[BROCK_HOST_MAX + 16];
    struct h2up *s;

    h2up_origin_key(c, key, sizeof(key));
    if (h2up_find(c->px, key, 0) || !(s = h2up_new(c->px, key)))
        return;
    s->dialer = c;
    c->up2.session = s;
    c->up_dialer = 1;
}

static int chose_h2(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    const unsigned char *p = NULL;
    unsigned len = 0;

    if (ssl)
        SSL_get0_alpn_selected(ssl, &p, &len);
    return len == 2 && memcmp(p, "h2", 2) == 0;
}

/* The requests that waited for s's dial go on: each on a stream of open, or (open NULL) on
 * its own, failing with why when the dial failed. */
static void release_waiting(struct h2up *s, struct h2up *open, const char *why)
{
    struct conn *w[H2UP_MAX_WAITING];
    size_t n = s->n_waiting;

    s->n_waiting = 0;
    for (size_t i = 0; i < n; i++) {
        w[i] = s->waiting[i];
        w[i]->up_waiting = 0;
        w[i]->up2.session = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (open)
            attach(open, w[i], 0);
        else if (why)
            conn_upstream_failed(w[i], 502, why);
        else
            upstream_start(w[i]);
    }
}

/* c's dial ended at an address of a session that also serves c's origin (h2up_coalesce()):
 * c, and the requests that waited for the dial, go on it. Returns 1, or 0 when that session
 * has ended meanwhile (c dials again; those that waited do too). */
static int dialed_coalesced(struct conn *c, struct h2up *s, const char *key)
{
    struct h2up *open = h2up_find(c->px, key, 1);

    if (open) {
        c->px->metrics.h2up_coalesced++;
        attach(open, c, 1);
    }
    if (s) {
        s->state = H2UP_OPEN;
        s->going = 1;
        release_waiting(s, open, NULL);
        h2up_free(s);
    }
    return open != NULL;
}

int h2up_dialed(struct conn *c, struct bufferevent *bev, const char *why)
{
    struct h2up *s = c->up_dialer ? c->up2.session : NULL;
    char key[BROCK_HOST_MAX + 16];

    c->up_dialer = 0;
    c->up2.session = NULL;
    h2up_origin_key(c, key, sizeof(key));
    if (!bev && !why)
        return dialed_coalesced(c, s, key);
    if (bev && c->c_up.io->tls && chose_h2(bev)) {
        if ((!s && !(s = h2up_new(c->px, key))) || session_open(s, bev) < 0) {
            if (s) {
                s->bev = NULL;
                release_waiting(s, NULL, "brock could not connect upstream: out of memory");
                h2up_free(s);
            }
            bufferevent_free(bev);
            conn_upstream_failed(c, 502, "brock could not connect upstream: out of memory");
            return 1;
        }
        attach(s, c, 0);
        release_waiting(s, s, NULL);
        return 1;
    }
    if (bev && c->c_up.io->tls)
        h2up_remember_h1(c->px, key, conn_now_ms(c));
    if (s) {
        /* Over: the requests that dial now must not wait for it. */
        s->state = H2UP_OPEN;
        s->going = 1;
        release_waiting(s, NULL, bev ? NULL : why);
        h2up_free(s);
    }
    return 0;
}

void h2up_cancel(struct conn *c)
{
    struct h2up *s = c->up2.session;

    if (c->up_waiting) {
        for (size_t i = 0; i < s->n_waiting; i++) {
            if (s->waiting[i] == c) {
                s->waiting[i] = s->waiting[--s->n_waiting];
                break;
            }
        }
        c->up_waiting = 0;
        c->up2.session = NULL;
    } else if (c->up_dialer) {
        /* The dial stopped: those waiting for it dial themselves (one of them first). */
        c->up_dialer = 0;
        c->up2.session = NULL;
        s->state = H2UP_OPEN;
        s->going = 1;
        release_waiting(s, NULL, NULL);
        h2up_free(s);
    }
}

void h2up_release(struct conn *c)
{
    struct h2up_stream *st = c->up2.stream;

    c->up_h2 = 0;
    c->up2.stream = NULL;
    pump_stop(&c->c_up);
    if (c->c_up.bev)
        bufferevent_free(c->c_up.bev);
    c->c_up.bev = NULL;
    if (!st)
        return;
    st->c = NULL;
    /* What it never took goes back to the windows. */
    st->taken += st->owed;
    st->owed = 0;
    if (st->s && st->taken)
        st->s->taken = 1;
    if (st->end) {
        evbuffer_remove_cb(bufferevent_get_output(st->end), on_taken, st);
        bufferevent_free(st->end);
        st->end = NULL;
    }
    if (!st->s || st->ng_closed || !st->submitted) {
        stream_free(st);
        return;
    }
    /* Not over on the wire: the origin is told to stop; nghttp2's close frees it. */
    stream_reset(st, NGHTTP2_CANCEL);
    session_kick(st->s);
}

void h2up_cleanup(struct proxy *px)
{
    while (!LIST_EMPTY(&px->h2up)) {
        struct h2up *s = LIST_FIRST(&px->h2up);

        if (s->state == H2UP_DIALING) {
            /* Its dial is the dialer's, freed with it; only the record goes. */
            if (s->dialer) {
                s->dialer->up_dialer = 0;
                s->dialer->up2.session = NULL;
            }
            for (size_t i = 0; i < s->n_waiting; i++) {
                s->waiting[i]->up_waiting = 0;
                s->waiting[i]->up2.session = NULL;
            }
            h2up_free(s);
            continue;
        }
        session_close(s, NULL);
    }
    strmap_cleanup(&px->h1_known, NULL);
}
