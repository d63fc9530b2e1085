/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tunnels: a CONNECT passed through unseen, or intercepted (brock speaks TLS with the client
 * itself and reads the requests inside like any others), and a connection whose upgrade the
 * upstream agreed to; then bytes both ways as they are. */
#include "proxy/conn.h"

#include <string.h>

#include <event2/buffer.h>

#include "net/tls.h"
#include "proxy/intercept.h"
#include "proxy/conn_internal.h"

#define CONNECT_ANSWER "HTTP/1.1 200 Connection established\r\nVia: %s\r\n\r\n"

int conn_may_intercept(const struct conn *c)
{
    const struct proxy *px = c->px;

    return px->mitm && !c->intercepted &&
           !intercept_host_listed(px->no_intercept, px->n_no_intercept, c->c_ex.host);
}

/* Reads the CONNECT head's last line feed (the parser stopped before it); the bytes after it
 * are the tunnel's. Returns 0, or -1 when the client's bytes are not that. */
static int conn_connect_done(struct conn *c)
{
    struct side_event ev;

    if (pump_read(&c->c_client, NULL, FRAME_NONE, &ev) != PUMP_EVENT ||
        ev.type != SIDE_UPGRADE) {
        conn_fail(c, 400, "the CONNECT request is malformed");
        return -1;
    }
    return 0;
}

/* The client's socket changes hands: the plain bufferevent lets go of it without closing it,
 * and a TLS one takes it. Returns 0, or -1 when out of memory (the connection then closed). */
static int conn_client_to_tls(struct conn *c)
{
    struct side *s = &c->c_client;
    evutil_socket_t fd = bufferevent_getfd(s->bev);
    struct evbuffer *in = bufferevent_get_input(s->bev);
    size_t early = evbuffer_get_length(in);
    struct bufferevent *bev;
    SSL *ssl = intercept_ssl_new(c->px->mitm, c->c_ex.host);
    const unsigned char *hello = early ? evbuffer_pullup(in, -1) : NULL;

    /* A client that did not wait for the CONNECT's answer sent its hello already. */
    if (!ssl || (early && (!hello || tls_early_bytes(ssl, fd, hello, early) < 0))) {
        SSL_free(ssl);
        conn_log_failure(c, LOG_ERR, 0, "out of memory for TLS with the client");
        conn_close(c, NULL);
        return -1;
    }
    pump_stop(s);
    bufferevent_setcb(s->bev, NULL, NULL, NULL, NULL);
    bufferevent_disable(s->bev, EV_READ | EV_WRITE);
    bufferevent_setfd(s->bev, -1);
    bufferevent_free(s->bev);
    s->bev = NULL;
    s->io = &io_tls;
    bev = io_tls.open(c->px->base, fd, ssl);
    if (!bev) {
        evutil_closesocket(fd);
        conn_log_failure(c, LOG_ERR, 0, "out of memory for TLS with the client");
        conn_close(c, NULL);
        return -1;
    }
    s->bev = bev;
    s->eof = s->eof_fed = 0;
    s->held = 0;
    if (conn_client_events(c) < 0) {
        conn_out_of_memory(c, "starting TLS with the client");
        return -1;
    }
    return 0;
}

/* Answers the CONNECT, then speaks TLS with the client on the same socket as the CONNECT
 * target; the requests inside come back through conn_do_head like any others. Nothing
 * connects upstream until the first of them. */
void conn_start_intercept(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    struct side *s = &c->c_client;

    if (conn_connect_done(c) < 0)
        return;
    if (pump_printf(s, CONNECT_ANSWER, REWRITE_VIA) < 0) {
        conn_out_of_memory(c, "answering a CONNECT");
        return;
    }
    /* The answer must be on the wire before the socket changes hands. */
    if (s->io->flush(s->bev) != 1) {
        conn_close(c, "could not answer the CONNECT at once");
        return;
    }
    if (conn_client_to_tls(c) < 0)
        return;
    x->status = 200;
    x->resp_final = 1;
    conn_log_request(c);
    c->px->n_tunnels++;
    c->intercepted = 1;
    memcpy(c->tunnel_host, x->host, sizeof(c->tunnel_host));
    c->tunnel_port = x->port;
    side_start(s, SIDE_CLIENT);
    conn_set_state(c, CONN_IDLE);
}

void conn_tunnel_ready(struct conn *c)
{
    struct exchange *x = &c->c_ex;

    if (pump_printf(&c->c_client, CONNECT_ANSWER, REWRITE_VIA) < 0) {
        conn_out_of_memory(c, "answering a CONNECT");
        return;
    }
    x->status = 200;
    x->resp_final = 1;
    conn_log_request(c);
    if (conn_connect_done(c) == 0)
        conn_start_tunnel(c);
    conn_run(c);
}

void conn_start_tunnel(struct conn *c)
{
    /* An upgrade stopped reading the client until the answer came. */
    if (pump_reading(&c->c_client, 1) < 0) {
        conn_out_of_memory(c, "starting a tunnel");
        return;
    }
    conn_set_state(c, CONN_TUNNEL);
}

void conn_do_tunnel(struct conn *c)
{
    struct side *a = &c->c_client, *b = &c->c_up;

    if (!b->bev) {
        conn_close(c, "the tunnel lost its upstream");
        return;
    }
    if (pump_move(a, b) < 0 || pump_move(b, a) < 0) {
        conn_out_of_memory(c, "moving a tunnel's bytes");
        return;
    }
    if ((a->eof && evbuffer_get_length(bufferevent_get_input(a->bev)) == 0) ||
        (b->eof && evbuffer_get_length(bufferevent_get_input(b->bev)) == 0))
        conn_set_state(c, CONN_FLUSH);
}
