/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Moving a side's bytes: its input through side_feed(), bodies re-framed or moved whole to the
 * other side, tunnels, and the transport's reads and writes done at once where it can. */
#include "proxy/pump.h"

#include <stdarg.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "net/io.h"
#include "proxy/limits.h"

size_t pump_pending(const struct side *s)
{
    return s->bev ? evbuffer_get_length(bufferevent_get_output(s->bev)) : 0;
}

int pump_write(struct side *s, const void *p, size_t len)
{
    return bufferevent_write(s->bev, p, len) < 0 ? -1 : 0;
}

int pump_printf(struct side *s, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = evbuffer_add_vprintf(bufferevent_get_output(s->bev), fmt, ap);
    va_end(ap);
    return rc < 0 ? -1 : 0;
}

/* Moves n bytes from the front of in to out. Whole chains move as they are, without a copy or
 * an allocation; a part of one is copied, and checked: libevent's own partial move drops the
 * bytes when it runs out of memory. */
static int move_bytes(struct evbuffer *in, struct evbuffer *out, size_t n)
{
    while (n > 0) {
        struct evbuffer_iovec v;

        if (evbuffer_peek(in, -1, NULL, &v, 1) < 1 || v.iov_len == 0)
            return -1;
        if (v.iov_len <= n) {
            if (evbuffer_remove_buffer(in, out, v.iov_len) != (int)v.iov_len)
                return -1;
            n -= v.iov_len;
            continue;
        }
        if (evbuffer_add(out, v.iov_base, n) < 0)
            return -1;
        evbuffer_drain(in, n);
        n = 0;
    }
    return 0;
}

/* Writes a piece of body to the other side in the framing chosen for it, then lets go of the
 * input it came from (used bytes). A chunk is written whole or the connection closes: a
 * failure part way is never flushed. */
static int write_body(struct evbuffer *in, struct side *to, enum frame f,
                      const struct side_event *ev, size_t used)
{
    struct evbuffer *out = bufferevent_get_output(to->bev);

    if (ev->len > 0 && f == FRAME_CHUNKED) {
        if (evbuffer_add_printf(out, "%zx\r\n", ev->len) < 0 ||
            evbuffer_add(out, ev->at, ev->len) < 0 || evbuffer_add(out, "\r\n", 2) < 0)
            return -1;
    } else if (ev->len > 0 && ev->plain) {
        /* The piece is the input's front: it moves without a copy. */
        return move_bytes(in, out, used);
    } else if (ev->len > 0 && evbuffer_add(out, ev->at, ev->len) < 0) {
        return -1;
    }
    evbuffer_drain(in, used);
    return 0;
}

/* The end of a message, or of the stream: a chunked body's last chunk follows its data. */
static enum pump message_ended(struct side *to, enum frame f, const struct side_event *ev)
{
    if ((ev->type == SIDE_DONE || ev->type == SIDE_UPGRADE) && to && to->bev &&
        f == FRAME_CHUNKED && pump_write(to, "0\r\n\r\n", 5) < 0)
        return PUMP_NOMEM;
    return ev->type == SIDE_MORE ? PUMP_MORE : PUMP_EVENT;
}

enum pump pump_read(struct side *s, struct side *to, enum frame f, struct side_event *ev)
{
    struct evbuffer *in = bufferevent_get_input(s->bev);
    int sink = to && to->bev;

    evbuffer_drain(in, s->held);
    s->held = 0;
    for (;;) {
        struct evbuffer_iovec v = {NULL, 0};
        size_t pending = sink ? pump_pending(to) : 0, used, len;

        if (pending >= LIMIT_PENDING_BYTES)
            return PUMP_FULL;
        if (evbuffer_peek(in, -1, NULL, &v, 1) < 1)
            v.iov_len = 0;
        /* A body moved as it is stays within the pending limit. */
        len = sink && s->raw && v.iov_len > LIMIT_PENDING_BYTES - pending
                  ? LIMIT_PENDING_BYTES - pending
                  : v.iov_len;
        used = side_feed(s, v.iov_base, len, ev);
        if (ev->type == SIDE_BODY && sink) {
            if (write_body(in, to, f, ev, used) < 0)
                return PUMP_NOMEM;
            continue;
        }
        if (ev->type == SIDE_BODY) {
            /* The caller reads the piece in place: drained at the next call. */
            s->held = used;
            return PUMP_EVENT;
        }
        evbuffer_drain(in, used);
        if (ev->type != SIDE_MORE)
            return message_ended(to, f, ev);
        if (used > 0 && evbuffer_get_length(in) > 0)
            continue;
        if (evbuffer_get_length(in) > 0 || !s->eof || s->eof_fed || s->role != SIDE_UPSTREAM)
            return PUMP_MORE;
        /* A response read until close ends here. */
        s->eof_fed = 1;
        side_end(s, s->broken, ev);
        return message_ended(to, f, ev);
    }
}

size_t pump_piece_offset(const struct side *s, const char *at)
{
    struct evbuffer_iovec v;

    /* pump_read() feeds side_feed() the first chain: the piece is in it. */
    if (evbuffer_peek(bufferevent_get_input(s->bev), -1, NULL, &v, 1) < 1)
        return 0;
    return (size_t)(at - (const char *)v.iov_base);
}

const char *pump_piece(const struct side *s, size_t off, size_t len)
{
    struct evbuffer *in = bufferevent_get_input(s->bev);
    struct evbuffer_ptr at;
    struct evbuffer_iovec v;

    if (evbuffer_ptr_set(in, &at, off, EVBUFFER_PTR_SET) < 0 ||
        evbuffer_peek(in, -1, &at, &v, 1) < 1 || v.iov_len < len)
        return NULL;
    return v.iov_base;
}

int pump_check_ahead(const struct side *s, const char **reason)
{
    struct evbuffer *in = bufferevent_get_input(s->bev);
    struct framing_chunks fc = s->fc;
    struct evbuffer_ptr at;

    if (!framing_chunks_active(&fc) || evbuffer_ptr_set(in, &at, 0, EVBUFFER_PTR_SET) < 0)
        return 0;
    for (;;) {
        struct evbuffer_iovec v;
        size_t used;
        int rc;

        if (evbuffer_peek(in, -1, &at, &v, 1) < 1 || v.iov_len == 0)
            return 0;
        rc = framing_chunks_feed(&fc, v.iov_base, v.iov_len, &used);
        if (rc == FRAMING_BAD) {
            *reason = fc.reason;
            return -1;
        }
        if (rc == FRAMING_DONE || evbuffer_ptr_set(in, &at, v.iov_len, EVBUFFER_PTR_ADD) < 0)
            return 0;
    }
}

/* Moves what one side of a tunnel received to the other, within the pending limit. */
long pump_move(struct side *from, struct side *to)
{
    struct evbuffer *in = bufferevent_get_input(from->bev);
    size_t pending = pump_pending(to), have = evbuffer_get_length(in);
    size_t room = LIMIT_PENDING_BYTES > pending ? LIMIT_PENDING_BYTES - pending : 0;
    size_t n = have < room ? have : room;

    if (n == 0)
        return 0;
    return move_bytes(in, bufferevent_get_output(to->bev), n) < 0 ? -1 : (long)n;
}

/* A transport with fill() is read here rather than by the bufferevent (net/io.h says why):
 * what it reads goes to the bufferevent's read callback, and its end or error to its event
 * callback, as the bufferevent would report them. The input never passes LIMIT_PENDING_BYTES. */
static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    struct side *s = arg;
    struct bufferevent *bev = s->bev;
    size_t have = evbuffer_get_length(bufferevent_get_input(bev));
    long n;

    (void)fd;
    (void)what;
    if (have >= LIMIT_PENDING_BYTES) {
        /* pump_limit() resumes it. */
        s->in_full = 1;
        event_del(s->rd);
        return;
    }
    n = s->io->fill(bev, LIMIT_PENDING_BYTES - have);
    if (n > 0) {
        bufferevent_trigger(bev, EV_READ, 0);
        return;
    }
    if (n == 0)
        return;
    /* The callback may close the connection and free the event: done with it first. */
    s->rd_end = 1;
    event_del(s->rd);
    bufferevent_trigger_event(
        bev, BEV_EVENT_READING | (n == IO_EOF ? BEV_EVENT_EOF : BEV_EVENT_ERROR), 0);
}

/* Bytes the transport read ahead raise no read event: on_readable is run for them. */
static void kick(struct side *s)
{
    if (s->rd && s->io->buffered && s->io->buffered(s->bev))
        event_active(s->rd, EV_READ, 1);
}

/* A side reads from the start, by itself when its transport can (on_readable); it has the
 * bufferevent write only if its transport cannot write at once (see pump_flush). */
int pump_start(struct side *s)
{
    s->want_read = 1;
    s->in_full = 0;
    s->rd_end = 0;
    /* A TLS handshake is the bufferevent's, reading and writing (a hello that came before the
     * socket changed hands is answered on a write event); pump_start() follows it. */
    if (s->io->busy && s->io->busy(s->bev))
        return bufferevent_enable(s->bev, EV_READ | EV_WRITE) < 0 ? -1 : 0;
    if (s->io->flush && bufferevent_disable(s->bev, EV_WRITE) < 0)
        return -1;
    if (!s->io->fill)
        return bufferevent_enable(s->bev, s->io->flush ? EV_READ : EV_READ | EV_WRITE) < 0 ? -1 : 0;
    if (!s->rd)
        s->rd = event_new(bufferevent_get_base(s->bev), bufferevent_getfd(s->bev),
                          EV_READ | EV_PERSIST, on_readable, s);
    /* In this order, the socket stays watched throughout, which costs no epoll_ctl(2). */
    if (!s->rd || event_add(s->rd, NULL) < 0)
        return -1;
    if (bufferevent_disable(s->bev, EV_READ) < 0)
        return -1;
    kick(s);
    return 0;
}

void pump_stop(struct side *s)
{
    if (s->rd)
        event_free(s->rd);
    s->rd = NULL;
    s->rd_end = 0;
}

/* The input's limit is brock's, not libevent's read watermark: setting one allocates, and
 * libevent uses what it got without looking, so running out of memory there crashed. */
static int apply_reading(struct side *s)
{
    int on = s->want_read && !s->in_full;
    int rc;

    if (s->rd) {
        rc = on && !s->rd_end ? event_add(s->rd, NULL) : event_del(s->rd);
        if (rc == 0 && on && !s->rd_end)
            kick(s);
    } else
        rc = on ? bufferevent_enable(s->bev, EV_READ) : bufferevent_disable(s->bev, EV_READ);
    return rc < 0 ? -1 : 0;
}

int pump_reading(struct side *s, int on)
{
    s->want_read = on;
    return apply_reading(s);
}

int pump_limit(struct side *s)
{
    int full;

    if (!s->bev)
        return 0;
    full = evbuffer_get_length(bufferevent_get_input(s->bev)) >= LIMIT_PENDING_BYTES;
    if (full == s->in_full)
        return 0;
    s->in_full = full;
    return apply_reading(s);
}

/* Writes a side's pending output now. Returns 1 when that emptied it (what waited for room
 * may go on), 0 otherwise, -1 when the write failed. */
int pump_flush(struct side *s)
{
    int rc;

    if (!s->bev || evbuffer_get_length(bufferevent_get_output(s->bev)) == 0)
        return 0;
    if (!s->io->flush)
        return 0;
    rc = s->io->flush(s->bev);
    if (rc == 0)
        bufferevent_enable(s->bev, EV_WRITE);
    return rc;
}

/* The bufferevent wrote what pump_flush() could not: writing goes back to pump_flush(). */
void pump_drained(struct bufferevent *bev, const struct side *s)
{
    if (s->io->flush && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
        bufferevent_disable(bev, EV_WRITE);
}
