/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The parsing glue between a connection's sides and http-parser, and the moving of bytes:
 * heads gathered, bodies re-framed or moved whole, tunnels, and the transport's reads and
 * writes done at once where it can. */
#include "proxy/side.h"

#include <limits.h>
#include <string.h>

#include <event2/buffer.h>

#include "proxy/conn.h"
#include "proxy/limits.h"

/* ---- parsing glue ---- */

static struct conn *conn_of(http_parser *p)
{
    return p->data;
}

static int on_head_error(struct side *s, int err)
{
    s->head_err = err;
    return -1;
}

static int req_on_begin(http_parser *p)
{
    struct side *s = &conn_of(p)->c_client;

    http_head_reset(&s->head);
    s->head_err = 0;
    return 0;
}

static int req_on_url(http_parser *p, const char *at, size_t len)
{
    struct side *s = &conn_of(p)->c_client;
    int rc = http_head_line(&s->head, at, len);

    return rc ? on_head_error(s, rc) : 0;
}

static int client_on_field(http_parser *p, const char *at, size_t len)
{
    struct side *s = &conn_of(p)->c_client;
    int rc = http_head_field(&s->head, at, len);

    return rc ? on_head_error(s, rc) : 0;
}

static int client_on_value(http_parser *p, const char *at, size_t len)
{
    struct side *s = &conn_of(p)->c_client;
    int rc = http_head_value(&s->head, at, len);

    return rc ? on_head_error(s, rc) : 0;
}

/* Whether the finished head's framing headers are unambiguous; arms the chunk scanner when the
 * parser is about to read a chunked body. */
static int head_framing_ok(struct side *s, http_parser *p, unsigned flags, int skip_body)
{
    if (p->http_major < 1 || (p->http_major == 1 && p->http_minor == 0))
        flags |= FRAMING_HTTP10;
    if (framing_check_headers(s->head.h, s->head.n, flags, &s->frame_err) < 0)
        return 0;
    if ((p->flags & F_CHUNKED) && !skip_body)
        framing_chunks_start(&s->fc);
    return 1;
}

static int req_on_headers_complete(http_parser *p)
{
    struct side *s = &conn_of(p)->c_client;

    http_head_finish(&s->head);
    if (!head_framing_ok(s, p, 0, 0))
        return -1;
    s->pause = PAUSE_HEAD;
    http_parser_pause(p, 1);
    return 0;
}

/* Writes a piece of body to a side in the framing chosen for it. */
static void write_body(struct side *to, enum frame f, const char *at, size_t len)
{
    struct evbuffer *out;

    if (!to->bev || len == 0)
        return;
    out = bufferevent_get_output(to->bev);
    if (f == FRAME_CHUNKED) {
        evbuffer_add_printf(out, "%zx\r\n", len);
        evbuffer_add(out, at, len);
        evbuffer_add(out, "\r\n", 2);
    } else {
        evbuffer_add(out, at, len);
    }
}

static int req_on_body(http_parser *p, const char *at, size_t len)
{
    struct conn *c = conn_of(p);

    /* A request brock answered itself has its body read and dropped, unless the
     * dashboard waits for it. */
    if (!c->is_local)
        write_body(&c->c_up, c->c_client.out, at, len);
    else if (c->local_wait && !c->body_too_big && buf_append(&c->c_body, at, len) < 0)
        c->body_too_big = 1;
    return 0;
}

static int req_on_complete(http_parser *p)
{
    struct conn *c = conn_of(p);

    if (!c->is_local && c->c_client.out == FRAME_CHUNKED && c->c_up.bev)
        evbuffer_add(bufferevent_get_output(c->c_up.bev), "0\r\n\r\n", 5);
    c->req_done = 1;
    side_framing_reset(&c->c_client);
    c->c_client.pause = PAUSE_DONE;
    http_parser_pause(p, 1);
    return 0;
}

static int resp_on_begin(http_parser *p)
{
    struct side *s = &conn_of(p)->c_up;

    http_head_reset(&s->head);
    s->head_err = 0;
    return 0;
}

static int resp_on_status(http_parser *p, const char *at, size_t len)
{
    struct side *s = &conn_of(p)->c_up;
    int rc = http_head_line(&s->head, at, len);

    return rc ? on_head_error(s, rc) : 0;
}

static int up_on_field(http_parser *p, const char *at, size_t len)
{
    struct side *s = &conn_of(p)->c_up;
    int rc = http_head_field(&s->head, at, len);

    return rc ? on_head_error(s, rc) : 0;
}

static int up_on_value(http_parser *p, const char *at, size_t len)
{
    struct side *s = &conn_of(p)->c_up;
    int rc = http_head_value(&s->head, at, len);

    return rc ? on_head_error(s, rc) : 0;
}

static int resp_on_headers_complete(http_parser *p)
{
    struct conn *c = conn_of(p);

    http_head_finish(&c->c_up.head);
    if (!head_framing_ok(&c->c_up, p, FRAMING_RESPONSE, c->is_head))
        return -1;
    c->c_up.pause = PAUSE_HEAD;
    http_parser_pause(p, 1);
    /* 1: a response to HEAD has no body, whatever its headers say. */
    return c->is_head ? 1 : 0;
}

static int resp_on_body(http_parser *p, const char *at, size_t len)
{
    struct conn *c = conn_of(p);

    write_body(&c->c_client, c->c_up.out, at, len);
    return 0;
}

static int resp_on_complete(http_parser *p)
{
    struct conn *c = conn_of(p);

    side_framing_reset(&c->c_up);
    /* An interim response (100 Continue) is followed by the real one, whose head is checked
     * afresh: side_pump() goes on after this pause of its own. */
    if (p->status_code / 100 == 1 && p->status_code != 101) {
        http_parser_pause(p, 1);
        return 0;
    }
    if (c->c_up.out == FRAME_CHUNKED && c->c_client.bev)
        evbuffer_add(bufferevent_get_output(c->c_client.bev), "0\r\n\r\n", 5);
    c->c_up.pause = PAUSE_DONE;
    http_parser_pause(p, 1);
    return 0;
}

const http_parser_settings side_request_settings = {
    .on_message_begin = req_on_begin,
    .on_url = req_on_url,
    .on_header_field = client_on_field,
    .on_header_value = client_on_value,
    .on_headers_complete = req_on_headers_complete,
    .on_body = req_on_body,
    .on_message_complete = req_on_complete,
};

const http_parser_settings side_response_settings = {
    .on_message_begin = resp_on_begin,
    .on_status = resp_on_status,
    .on_header_field = up_on_field,
    .on_header_value = up_on_value,
    .on_headers_complete = resp_on_headers_complete,
    .on_body = resp_on_body,
    .on_message_complete = resp_on_complete,
};

size_t side_pending(const struct side *s)
{
    return s->bev ? evbuffer_get_length(bufferevent_get_output(s->bev)) : 0;
}

void side_framing_reset(struct side *s)
{
    framing_head_reset(&s->fh);
    memset(&s->fc, 0, sizeof(s->fc));
}

/* Checks a piece of input before the parser sees it: a head's bytes, or a chunked body's
 * framing once its head is through. What follows the part checked is checked in a later piece,
 * as the parser stops there too (at the head, or at the end of the message). */
static int side_scan(struct side *s, const char *p, size_t len)
{
    size_t used;

    if (framing_chunks_active(&s->fc)) {
        if (framing_chunks_feed(&s->fc, p, len, &used) == FRAMING_BAD) {
            s->frame_err = s->fc.reason;
            return -1;
        }
    } else if (framing_head_feed(&s->fh, p, len, &used) == FRAMING_BAD) {
        s->frame_err = s->fh.reason;
        return -1;
    }
    return 0;
}

/* Feeds a side's input to its parser, one contiguous piece at a time. */
enum pump side_pump(struct side *s, const http_parser_settings *set, const struct side *to)
{
    struct evbuffer *in = bufferevent_get_input(s->bev);

    if (HTTP_PARSER_ERRNO(&s->parser) == HPE_PAUSED)
        return PUMP_PAUSED;
    for (;;) {
        struct evbuffer_iovec v;
        size_t used;
        enum http_errno err;

        if (to && side_pending(to) >= LIMIT_PENDING_BYTES)
            return PUMP_FULL;
        if (evbuffer_peek(in, -1, NULL, &v, 1) < 1 || v.iov_len == 0) {
            if (!s->eof || s->eof_fed || set != &side_response_settings)
                return PUMP_MORE;
            /* A response read until close ends here. */
            s->eof_fed = 1;
            used = http_parser_execute(&s->parser, set, NULL, 0);
        } else {
            if (side_scan(s, v.iov_base, v.iov_len) < 0)
                return PUMP_ERROR;
            used = http_parser_execute(&s->parser, set, v.iov_base, v.iov_len);
            evbuffer_drain(in, used);
        }
        err = HTTP_PARSER_ERRNO(&s->parser);
        if (err == HPE_PAUSED && s->pause == PAUSE_NONE) {
            /* After an interim response: the next head begins. */
            http_parser_pause(&s->parser, 0);
            continue;
        }
        if (err == HPE_PAUSED)
            return PUMP_PAUSED;
        if (err != HPE_OK)
            return PUMP_ERROR;
        if (s->eof_fed)
            return PUMP_MORE;
    }
}

void side_resume(struct side *s)
{
    s->pause = PAUSE_NONE;
    http_parser_pause(&s->parser, 0);
}

/* A body of known length needs no parsing: after the head's last line feed, its bytes move
 * between the buffers as they are, without a copy. Returns -1 if the parser refuses the line
 * feed it stopped before. */
int side_start_raw(struct side *s, const http_parser_settings *set, uint64_t len)
{
    struct evbuffer *in = bufferevent_get_input(s->bev);
    char lf;

    side_resume(s);
    if (evbuffer_copyout(in, &lf, 1) != 1 || http_parser_execute(&s->parser, set, &lf, 1) != 1 ||
        HTTP_PARSER_ERRNO(&s->parser) != HPE_OK)
        return -1;
    evbuffer_drain(in, 1);
    s->raw = 1;
    s->body_left = len;
    return 0;
}

enum pump side_pump_raw(struct side *s, const struct side *to)
{
    struct evbuffer *in = bufferevent_get_input(s->bev);

    while (s->body_left) {
        size_t have = evbuffer_get_length(in);
        size_t pending = side_pending(to);
        size_t n = s->body_left < have ? (size_t)s->body_left : have;

        if (pending >= LIMIT_PENDING_BYTES)
            return PUMP_FULL;
        if (n > LIMIT_PENDING_BYTES - pending)
            n = LIMIT_PENDING_BYTES - pending;
        if (n == 0)
            return PUMP_MORE;
        if (to->bev)
            evbuffer_remove_buffer(in, bufferevent_get_output(to->bev), n);
        else
            evbuffer_drain(in, n);
        s->body_left -= n;
    }
    s->raw = 0;
    side_framing_reset(s);
    s->pause = PAUSE_DONE;
    return PUMP_PAUSED;
}

/* Moves what one side of a tunnel received to the other, within the pending limit. */
void side_move(struct side *from, struct side *to)
{
    struct evbuffer *in = bufferevent_get_input(from->bev);
    size_t pending = side_pending(to);
    size_t room = LIMIT_PENDING_BYTES > pending ? LIMIT_PENDING_BYTES - pending : 0;

    if (room && evbuffer_get_length(in))
        evbuffer_remove_buffer(in, bufferevent_get_output(to->bev), room);
}

/* A side reads from the start; it has the bufferevent write only if its transport cannot
 * write at once (see side_flush). */
void side_start_events(struct side *s)
{
    if (s->io->flush)
        bufferevent_disable(s->bev, EV_WRITE);
    bufferevent_enable(s->bev, s->io->flush ? EV_READ : EV_READ | EV_WRITE);
}

/* Writes a side's pending output now. Returns 1 when that emptied it (what waited for room
 * may go on), 0 otherwise, -1 when the write failed. */
int side_flush(struct side *s)
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

/* Takes what else the socket holds now, within the side's input limit, so that a large body
 * moves in a few big reads rather than one loop iteration per 4 KiB. */
void side_fill(struct side *s)
{
    size_t have = evbuffer_get_length(bufferevent_get_input(s->bev));

    if (s->io->fill && have < LIMIT_PENDING_BYTES && have >= 4096)
        (void)s->io->fill(s->bev, LIMIT_PENDING_BYTES - have);
}

/* The bufferevent wrote what side_flush() could not: writing goes back to side_flush(). */
void side_write_drained(struct bufferevent *bev, const struct side *s)
{
    if (s->io->flush && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
        bufferevent_disable(bev, EV_WRITE);
}
