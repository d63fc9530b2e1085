/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A connection's responses: the head read, learnt from and rewritten for the client (its
 * framing chosen), the body streamed, and the exchange ended with the upstream pooled when it
 * can be; a pooled upstream that closed before answering is tried once more, fresh. */
#include "proxy/conn.h"

#include <stdio.h>
#include <sys/socket.h>

#include <event2/buffer.h>

#include "proxy/conn_internal.h"
#include "proxy/limits.h"

/* What the request says about its response's framing (side_response_frame). */
static unsigned conn_request_kind(const struct exchange *x)
{
    return (x->is_head ? SIDE_REQ_HEAD : 0) | (x->is_upgrade ? SIDE_REQ_UPGRADE : 0) |
           (x->client_http10 ? SIDE_REQ_HTTP10 : 0) | (x->client_keepalive ? 0 : SIDE_REQ_CLOSE);
}

static void conn_response_head(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    struct side *u = &c->c_up;
    int status = u->parser.status_code;
    int interim = status / 100 == 1 && status != 101;
    unsigned flags = 0;
    int must_close = 0;
    struct buf *head = &c->px->head_out;

    x->up_doubtful |= u->doubtful;
    /* 1.0 clients know no interim responses; others than 100 are dropped too. */
    if (interim && (x->client_http10 || status != 100))
        return;
    if (!interim) {
        conn_status(c, status, LIVELOG_ANSWER_SERVER);
        if (x->learn)
            conn_learn(c, &u->head, 0);
        x->resp_frame = side_response_frame(u, conn_request_kind(x), &flags, &must_close);
        if (c->px->hooks->filter_start(c, &x->resp_frame, &flags, &must_close) < 0) {
            conn_fail(c, 502, "out of memory");
            return;
        }
        if (conn_effect(x) == BROCK_STRIP_COOKIES)
            flags |= REWRITE_STRIP_COOKIES;
        x->must_close |= must_close;
        x->resp_final = 1;
    }
    rewrite_response(u->head.h, u->head.n, flags, &c->px->rw);
    side_rewrite_framing(u, &c->px->rw);
    if (!interim && c->px->hooks->filter_head(c, &c->px->rw) < 0) {
        x->resp_final = 0;
        conn_fail(c, 502, "the response head is too large once brock's script is let in");
        return;
    }
    buf_reset(head);
    if (http_write_response(head, status, http_head_text(&u->head), u->head.line_len, c->px->rw.h,
                            c->px->rw.n) < 0) {
        x->resp_final = 0;
        conn_fail(c, 502, "the response head is too large");
        return;
    }
    if (pump_write(&c->c_client, head->data, head->len) < 0) {
        conn_out_of_memory(c, "writing a response head");
        return;
    }
    if (!interim && c->c_state == CONN_RESP_HEAD)
        conn_set_state(c, CONN_RESP_BODY);
}

/* The response is complete: the upstream goes back to the pool, the client may go on. An
 * upstream that sent bytes after the response (after a 304 that announced a body, say) is
 * closed by upstream_release(): they belong to no message, and are never forwarded. */
static void conn_exchange_done(struct conn *c)
{
    const struct exchange *x = &c->c_ex;
    int up_reusable = c->c_up.bev && c->c_up.keep_alive && x->req_done &&
                      x->resp_frame != FRAME_CLOSE && !c->c_up.eof && !x->up_doubtful;

    conn_log_request(c);
    conn_drop_upstream(c, up_reusable);
    if (!x->req_done || x->must_close || !x->client_keepalive) {
        conn_flush_close(c, "the exchange is over and the client connection does not persist");
        return;
    }
    if (pump_reading(&c->c_client, 1) < 0) {
        conn_out_of_memory(c, "reading the client's next request");
        return;
    }
    conn_set_state(c, CONN_IDLE);
}

/* The upstream closed between messages. */
static void conn_upstream_closed(struct conn *c)
{
    struct exchange *x = &c->c_ex;

    if (!x->resp_final && !x->resp_bytes && x->reused && !x->retried && !x->req_has_body) {
        /* A pooled connection the origin closed meanwhile: once more, fresh. */
        x->retried = 1;
        conn_drop_upstream(c, 0);
        conn_set_state(c, CONN_CONNECT);
        upstream_start(c);
        return;
    }
    if (!x->resp_final) {
        c->px->metrics.upstream_errors[METRICS_UPSTREAM_NO_RESPONSE]++;
        conn_fail(c, 502, "the upstream closed the connection without a response");
    } else {
        conn_upstream_cut(c);
    }
}

/* The body of a response whose head went out is malformed: the client cannot be told with a
 * status any more, so its connection closes (the upstream's too, never pooled), the body cut
 * short where it went wrong. Chunked to the client, the missing last chunk says so; a body
 * that ends at close (an HTTP/1.0 client) is cut with a reset, since a clean close would
 * pass for its end. */
void conn_bad_body(struct conn *c, const char *reason)
{
    char why[256];

    c->px->metrics.upstream_errors[METRICS_UPSTREAM_MALFORMED]++;
    snprintf(why, sizeof(why),
             "the upstream's response body is malformed (%s): the "
             "response was cut short and the client's connection closed",
             reason);
    conn_log_failure(c, LOG_INFO, 0, why);
    if (c->c_ex.resp_frame != FRAME_CLOSE) {
        conn_flush_close(c, NULL);
        return;
    }
    (void)setsockopt(bufferevent_getfd(c->c_client.bev), SOL_SOCKET, SO_LINGER,
                     &(struct linger){1, 0}, sizeof(struct linger));
    conn_close(c, NULL);
}

/* The upstream's bytes are not a response brock can pass on. Framing refused: the upstream
 * is closed, never pooled (conn_fail drops it). */
static void conn_bad_response(struct conn *c, const struct side_event *ev)
{
    const char *why = ev->reason;

    if (ev->error != SIDE_ERR_FRAMING && c->c_up.eof) {
        if (c->c_ex.resp_final) {
            conn_upstream_cut(c);
            return;
        }
        why = "the upstream closed the connection before a whole response";
        c->px->metrics.upstream_errors[METRICS_UPSTREAM_NO_RESPONSE]++;
        conn_fail(c, 502, why);
        return;
    } else if (c->c_ex.resp_final) {
        conn_bad_body(c, why);
        return;
    } else if (ev->error == SIDE_ERR_HEAD) {
        why = "the upstream's response head is too large";
    }
    c->px->metrics.upstream_errors[METRICS_UPSTREAM_MALFORMED]++;
    conn_fail(c, 502, why);
}

void conn_do_response(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    struct side *u = &c->c_up;

    while (c->c_state != CONN_CLOSED && c->c_state != CONN_FLUSH && u->bev) {
        struct side_event ev;
        enum pump r;

        /* A body that gets brock's script comes here piece by piece (pump_read to NULL),
         * each piece done before the next is read. */
        if (x->filter && (c->px->hooks->filter_resume(c) != 0 ||
                          pump_pending(&c->c_client) >= LIMIT_PENDING_BYTES))
            return;
        r = pump_read(u, x->filter ? NULL : &c->c_client, x->resp_frame, &ev);

        if (r == PUMP_FULL)
            return;
        if (r == PUMP_NOMEM) {
            conn_out_of_memory(c, "forwarding the response");
            return;
        }
        if (r == PUMP_MORE) {
            if (u->eof)
                conn_upstream_closed(c);
            return;
        }
        if (ev.type == SIDE_HEAD) {
            conn_response_head(c);
            continue;
        }
        if (ev.type == SIDE_BODY) {
            if (c->px->hooks->filter_body(c, &ev) < 0)
                return;
            continue;
        }
        if (ev.type == SIDE_DONE && x->filter && c->px->hooks->filter_end(c) < 0)
            return;
        if (ev.type == SIDE_ERROR)
            conn_bad_response(c, &ev);
        else if (x->status == 101 && x->is_upgrade)
            conn_start_tunnel(c); /* upgrade bytes the upstream already sent are the tunnel's */
        else
            conn_exchange_done(c);
        return;
    }
}
