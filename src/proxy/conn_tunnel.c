/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tunnels: a CONNECT passed through unseen, or intercepted (brock speaks TLS with the client
 * itself and reads the requests inside like any others), and a connection whose upgrade the
 * upstream agreed to; then bytes both ways as they are. */
#include "proxy/conn.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>

#include "net/splice.h"
#include "net/tls.h"
#include "proxy/intercept.h"
#include "proxy/passthrough.h"
#include "proxy/conn_internal.h"
#include "proxy/limits.h"
#include "util/alloc.h"
#include "util/clock.h"

#define CONNECT_ANSWER "HTTP/1.1 200 Connection established\r\nVia: %s\r\n\r\n"

int conn_may_intercept(const struct conn *c)
{
    const struct proxy *px = c->px;
    char why[512];

    if (!px->mitm || c->intercepted)
        return 0;
    if (!passthrough_why(px->pass, px->engine, px->no_intercept, px->n_no_intercept, c->c_ex.host,
                         why, sizeof(why)))
        return 1;
    log_msg(LOG_DEBUG, "%s is passed through unseen: %s", c->c_ex.host, why);
    return 0;
}

/* A refusal of brock's certificate for host counted: the second within the window passes the
 * host through, said once. */
static void refusal_count(struct proxy *px, const char *host, const char *why, int64_t now)
{
    char already[512];

    /* Refusals counted together (held closes due at once) pass a host through once. */
    if (passthrough_why(px->pass, px->engine, px->no_intercept, px->n_no_intercept, host, already,
                        sizeof(already)) ||
        !passthrough_refused(px->pass, host, now))
        return;
    if (brock_passthrough_add(px->engine, host, why, now, 1) < 0) {
        log_msg(LOG_ERR, "passing %s through failed: %s", host, brock_engine_errmsg(px->engine));
        return;
    }
    log_msg(LOG_INFO,
            "%s is passed through unseen from now on: its clients refused brock's "
            "certificate twice in ten minutes (%s); `brock passthrough remove %s` "
            "undoes it",
            host, why, host);
}

void conn_tls_refused(struct conn *c, const char *why)
{
    struct proxy *px = c->px;

    if (c->tunnel_host && px->pass)
        refusal_count(px, c->tunnel_host, why, conn_now_ms(c));
}

void conn_tls_quiet(struct conn *c, const char *why)
{
    struct proxy *px = c->px;

    if (c->tunnel_host && px->pass)
        (void)passthrough_quiet(px->pass, c->c_peer, c->tunnel_host, why, conn_now_ms(c));
}

void conn_tls_trusted(struct conn *c)
{
    if (c->tunnel_host && c->px->pass)
        passthrough_trusted(c->px->pass, c->c_peer, c->tunnel_host, conn_now_ms(c));
}

int conn_tls_trusting(const struct conn *c)
{
    return c->tunnel_host && c->px->pass &&
           passthrough_trusts(c->px->pass, c->c_peer, c->tunnel_host, conn_now_ms(c));
}

void conn_tls_spoke_closed(struct conn *c)
{
    if (c->px->pass)
        passthrough_spoke_closed(c->px->pass, c->c_peer, conn_now_ms(c));
}

void conn_tls_quiet_due(struct proxy *px)
{
    char host[BROCK_HOST_MAX];
    const char *why;
    struct timeval tv;
    int64_t now;

    if (!px->pass)
        return;
    event_base_gettimeofday_cached(px->base, &tv);
    now = clock_tv_ms(&tv);
    while (passthrough_due(px->pass, now, host, &why))
        refusal_count(px, host, why, now);
}

/* Reads the CONNECT head's last line feed (the parser stopped before it); the bytes after it
 * are the tunnel's. Returns 0, or -1 when the client's bytes are not that. */
static int conn_connect_done(struct conn *c)
{
    struct side_event ev;

    if (pump_read(&c->c_client, NULL, FRAME_NONE, &ev) != PUMP_EVENT || ev.type != SIDE_UPGRADE) {
        conn_fail(c, 400, "the CONNECT request is malformed");
        return -1;
    }
    return 0;
}

/* The client's socket changes hands: the plain bufferevent lets go of it without closing it,
 * and a TLS one takes it, with ssl (handed over; NULL: out of memory). Returns 0, or -1 when
 * out of memory (the connection then closed). */
static int conn_client_to_tls(struct conn *c, SSL *ssl)
{
    struct side *s = &c->c_client;
    evutil_socket_t fd = bufferevent_getfd(s->bev);
    struct evbuffer *in = bufferevent_get_input(s->bev);
    size_t early = evbuffer_get_length(in);
    struct bufferevent *bev;
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
    if (!(c->tunnel_host = mem_strdup(x->host))) {
        conn_fail(c, 503, "brock ran out of memory for the tunnel");
        return;
    }
    if (pump_printf(s, CONNECT_ANSWER, REWRITE_VIA) < 0) {
        conn_out_of_memory(c, "answering a CONNECT");
        return;
    }
    /* The answer must be on the wire before the socket changes hands. */
    if (s->io->flush(s->bev) != 1) {
        conn_close(c, "could not answer the CONNECT at once");
        return;
    }
    if (conn_client_to_tls(c, intercept_ssl_new(c->px->mitm, c->c_ex.host)) < 0)
        return;
    conn_status(c, 200, LIVELOG_ANSWER_TUNNEL);
    x->resp_final = 1;
    conn_log_request(c);
    c->px->n_tunnels++;
    c->intercepted = 1;
    c->tunnel_port = x->port;
    side_start(s, SIDE_CLIENT);
    conn_set_state(c, CONN_IDLE);
}

void conn_socks_intercept(struct conn *c, const char *name)
{
    if (conn_client_to_tls(c, intercept_ssl_new(c->px->mitm, name)) < 0)
        return;
    c->px->n_tunnels++;
    c->intercepted = 1;
    side_start(&c->c_client, SIDE_CLIENT);
    conn_set_state(c, CONN_IDLE);
}

void conn_start_pages_tls(struct conn *c)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof(local);
    char host[INET6_ADDRSTRLEN + 2] = "127.0.0.1";

    if (!c->px->mitm) {
        conn_log_failure(c, LOG_INFO, 0,
                         "the client spoke TLS to brock's port: brock serves its pages over "
                         "HTTPS only while it sees inside HTTPS (with its CA)");
        conn_close(c, NULL);
        return;
    }
    /* The leaf's name when the client sends none: the address it reached, bare. */
    if (getsockname(bufferevent_getfd(c->c_client.bev), (struct sockaddr *)&local, &len) == 0) {
        access_host_text((const struct sockaddr *)&local, host, sizeof(host));
        if (host[0] == '[') {
            memmove(host, host + 1, strlen(host));
            host[strcspn(host, "]")] = '\0';
        }
    }
    if (conn_client_to_tls(c, intercept_ssl_new_pages(c->px->mitm, host)) < 0)
        return;
    c->pages_tls = 1;
    side_start(&c->c_client, SIDE_CLIENT);
    conn_set_state(c, CONN_IDLE);
}

void conn_tunnel_ready(struct conn *c)
{
    struct exchange *x = &c->c_ex;

    /* A SOCKS or redirected client had its answer before it spoke: it goes on with what it
     * sent. */
    if (!conn_answered_first(c) && pump_printf(&c->c_client, CONNECT_ANSWER, REWRITE_VIA) < 0) {
        conn_out_of_memory(c, "answering a CONNECT");
        return;
    }
    conn_status(c, 200, LIVELOG_ANSWER_TUNNEL);
    x->resp_final = 1;
    conn_log_request(c);
    if (conn_answered_first(c) || conn_connect_done(c) == 0)
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
    c->tunnel_on = 1;
    conn_set_state(c, CONN_TUNNEL);
}

/* ---- splicing ---- */

static void on_splice(void *arg, enum splice_news news);

/* Whether the kernel may move the tunnel's bytes from now on: both sides plain sockets, with
 * nothing buffered in brock either way nor an end seen, and descriptors to spare for pipes. */
static int tunnel_may_splice(const struct conn *c)
{
    const struct side *a = &c->c_client, *b = &c->c_up;

    return !c->spl && !c->no_splice && a->io->splice && b->io->splice &&
           c->px->n_spliced < c->px->splice_max && !a->eof && !b->eof &&
           evbuffer_get_length(bufferevent_get_input(a->bev)) == 0 &&
           evbuffer_get_length(bufferevent_get_input(b->bev)) == 0 && pump_pending(a) == 0 &&
           pump_pending(b) == 0;
}

/* The sides stop reading (the pipes' events watch their sockets first, so that the switch
 * costs no epoll_ctl). Pipes or memory lacking, the tunnel goes on copying. */
static void tunnel_splice(struct conn *c)
{
    struct splice_pair *p;

    p = splice_pair_new(c->px->base, bufferevent_getfd(c->c_client.bev),
                        bufferevent_getfd(c->c_up.bev), LIMIT_PENDING_BYTES, on_splice, c);
    if (!p) {
        log_msg(LOG_DEBUG, "%s: tunnel to %s copied: no pipes for splice (%s)", c->c_peer,
                c->c_ex.host, strerror(errno));
        c->no_splice = 1;
        return;
    }
    c->spl = p;
    c->px->n_spliced++;
    if (pump_reading(&c->c_client, 0) < 0 || pump_reading(&c->c_up, 0) < 0)
        conn_out_of_memory(c, "splicing a tunnel");
}

/* Back to copying, when splice(2) refused the sockets before reading a byte of them. */
static void tunnel_unsplice(struct conn *c)
{
    splice_pair_free(c->spl);
    c->spl = NULL;
    c->px->n_spliced--;
    c->no_splice = 1;
    if (pump_reading(&c->c_client, 1) < 0 || pump_reading(&c->c_up, 1) < 0)
        conn_out_of_memory(c, "resuming a tunnel's copy");
}

static void on_splice(void *arg, enum splice_news news)
{
    struct conn *c = arg;
    char why[160];
    int err;

    switch (news) {
    case SPLICE_MOVED: conn_touch(c); return;
    case SPLICE_DONE: conn_close(c, "the tunnel ended both ways"); return;
    case SPLICE_FAILED:
        err = splice_pair_errno(c->spl);
        if (splice_pair_untouched(c->spl) && (err == EINVAL || err == ENOSYS)) {
            log_msg(LOG_DEBUG, "%s: tunnel to %s copied: splice refused (%s)", c->c_peer,
                    c->c_ex.host, strerror(err));
            tunnel_unsplice(c);
            conn_run(c);
            return;
        }
        snprintf(why, sizeof(why), "the tunnel broke: %s", strerror(err));
        conn_close(c, why);
        return;
    }
}

void conn_tunnel_end(struct conn *c)
{
    uint64_t up = c->tunnel_copied[0], down = c->tunnel_copied[1];
    const char *how = c->spl ? "spliced" : "copied";

    if (!c->tunnel_on)
        return;
    c->tunnel_on = 0;
    if (c->spl) {
        up += splice_pair_moved(c->spl, 0);
        down += splice_pair_moved(c->spl, 1);
        splice_pair_free(c->spl);
        c->spl = NULL;
        c->px->n_spliced--;
    }
    log_msg(LOG_DEBUG, "%s: tunnel to %s ended: %llu bytes up, %llu down, %s", c->c_peer,
            c->c_ex.host, (unsigned long long)up, (unsigned long long)down, how);
}

/* from's end came, and every byte of it was moved (way: 0 client to upstream, 1 back). Plain
 * sockets pass it on as a shutdown of to's write half, once to took those bytes, and the other
 * way goes on until its end; over TLS, or after a reset, the connection ends (CONN_FLUSH).
 * Returns 1 when the tunnel is done with its turn. */
static int tunnel_ended(struct conn *c, struct side *from, struct side *to, int way)
{
    if (!from->eof || evbuffer_get_length(bufferevent_get_input(from->bev)) > 0)
        return 0;
    if (!from->io->splice || !to->io->splice || from->broken || to->broken ||
        (to->eof && evbuffer_get_length(bufferevent_get_input(to->bev)) == 0)) {
        conn_set_state(c, CONN_FLUSH);
        return 1;
    }
    if (!c->tunnel_shut[way] && pump_pending(to) == 0) {
        c->tunnel_shut[way] = 1;
        /* The peer may be gone already; its own end comes next, or the tunnel's timeout. */
        (void)shutdown(bufferevent_getfd(to->bev), SHUT_WR);
    }
    return 0;
}

void conn_do_tunnel(struct conn *c)
{
    struct side *a = &c->c_client, *b = &c->c_up;
    long n;

    if (c->spl)
        return;
    if (!b->bev) {
        conn_close(c, "the tunnel lost its upstream");
        return;
    }
    if ((n = pump_move(a, b)) < 0) {
        conn_out_of_memory(c, "moving a tunnel's bytes");
        return;
    }
    c->tunnel_copied[0] += (uint64_t)n;
    if ((n = pump_move(b, a)) < 0) {
        conn_out_of_memory(c, "moving a tunnel's bytes");
        return;
    }
    c->tunnel_copied[1] += (uint64_t)n;
    if (tunnel_ended(c, a, b, 0) || tunnel_ended(c, b, a, 1))
        return;
    if (tunnel_may_splice(c))
        tunnel_splice(c);
}
