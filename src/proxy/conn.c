/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One client connection's state machine: its states and their timeouts, the one switch that
 * dispatches to a handler per state, the events of its two sides, and its lifetime. Every
 * transition goes through conn_set_state(); conn_run() advances the machine until nothing
 * changes. What a request, a response, a tunnel and brock's own answers do is in the conn_*.c
 * files beside this one. */
#include "proxy/conn.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>

#include "dash/dash.h"
#include "net/tls.h"
#include "proxy/h2front.h"
#include "proxy/intercept.h"
#include "proxy/passthrough.h"
#include "proxy/conn_internal.h"
#include "proxy/peek.h"
#include "proxy/limits.h"
#include "util/alloc.h"
#include "util/clock.h"

/* Every client connection holds one, idle keep-alive ones too (bench/memory measures what
 * each adds): what is used for a request alone is allocated for it (the decision, the
 * exchange's names, an intercepted tunnel's host), not held here. 1432 bytes on 64-bit
 * systems (the last 8: HTTP/2's pointer, a carrier's session or a stream's); a change that
 * grows it past that should say why. */
_Static_assert(sizeof(struct conn) <= 1440, "struct conn grew: every idle connection pays it");

/* ---- states ---- */

const char *conn_state_name(enum conn_state s)
{
    switch (s) {
    case CONN_IDLE: return "idle";
    case CONN_REQ_HEAD: return "request-head";
    case CONN_CONNECT: return "connect";
    case CONN_REQ_BODY: return "request-body";
    case CONN_RESP_HEAD: return "response-head";
    case CONN_RESP_BODY: return "response-body";
    case CONN_TUNNEL: return "tunnel";
    case CONN_STREAM: return "stream";
    case CONN_H2: return "h2";
    case CONN_SOCKS: return "socks";
    case CONN_PEEK: return "peek";
    case CONN_FLUSH: return "flush";
    case CONN_CLOSED: return "closed";
    }
    return "?";
}

/* Armed on entering a state, so the head and response-head timeouts are deadlines from the
 * first byte of a head (a client that trickles one byte every few seconds is still cut);
 * conn_touch() re-arms only the streaming states. */
static int state_timeout(const struct conn *c)
{
    switch (c->c_state) {
    case CONN_IDLE: return TIMEOUT_IDLE;
    case CONN_REQ_HEAD: return c->px->t_head;
    case CONN_CONNECT: return c->px->t_connect;
    case CONN_REQ_BODY: return TIMEOUT_BODY;
    case CONN_RESP_HEAD: return c->px->t_response;
    case CONN_RESP_BODY: return TIMEOUT_BODY;
    case CONN_TUNNEL: return TIMEOUT_TUNNEL;
    case CONN_STREAM: return TIMEOUT_STREAM;
    case CONN_H2: return TIMEOUT_IDLE;
    case CONN_SOCKS: return c->px->t_head;
    case CONN_PEEK: return TIMEOUT_PEEK;
    case CONN_FLUSH: return TIMEOUT_FLUSH;
    case CONN_CLOSED: return 0;
    }
    return 0;
}

static void conn_arm(struct conn *c)
{
    struct timeval tv = {state_timeout(c), 0};

    if (tv.tv_sec)
        evtimer_add(c->c_timer, &tv);
    else
        evtimer_del(c->c_timer);
}

void conn_set_state(struct conn *c, enum conn_state s)
{
    if (c->c_state == s)
        return;
#ifdef BROCK_DEBUG
    log_msg(LOG_DEBUG, "conn %llu: %s -> %s", (unsigned long long)c->id,
            conn_state_name(c->c_state), conn_state_name(s));
#endif
    c->c_state = s;
    conn_arm(c);
    admit_update(c);
}

void conn_touch(struct conn *c)
{
    if (c->c_state == CONN_REQ_BODY || c->c_state == CONN_RESP_BODY || c->c_state == CONN_TUNNEL ||
        c->c_state == CONN_STREAM || c->c_state == CONN_H2)
        conn_arm(c);
}

/* The scratch of an idle connection, emptied, kept with its capacity for the next exchange of
 * any connection (px->spare). */
struct conn_spare {
    struct conn_spare *next;
    struct http_head head[2]; /* the client's, the upstream's */
    struct buf req_out, url;
};

/* Moves from's storage to to, leaving from empty and holding none. */
static void head_move(struct http_head *to, struct http_head *from)
{
    http_head_reset(from);
    *to = *from;
    http_head_init(from);
}

static void buf_move(struct buf *to, struct buf *from)
{
    buf_reset(from);
    *to = *from;
    from->data = NULL;
    from->len = from->cap = 0;
}

static void spare_free(struct conn_spare *s)
{
    http_head_cleanup(&s->head[0]);
    http_head_cleanup(&s->head[1]);
    buf_cleanup(&s->req_out);
    buf_cleanup(&s->url);
    mem_free(s);
}

/* Points the exchange's names at names, or at "" when it holds none. */
static void exchange_point_names(struct exchange *x, struct exchange_names *names)
{
    x->names = names;
    x->host = names ? names->host : "";
    x->authority = names ? names->authority : "";
    x->site = names ? names->site : "";
}

/* The exchange is over and nothing reads it any more: its names go. */
static void exchange_free_names(struct exchange *x)
{
    mem_free(x->names);
    exchange_point_names(x, NULL);
}

/* Whether c holds any scratch. */
static int conn_holds_scratch(const struct conn *c)
{
    return c->c_client.head.raw.data || c->c_client.head.span || c->c_up.head.raw.data ||
           c->c_up.head.span || c->c_req_out.data || c->c_url.data || c->c_body.data;
}

/* An idle connection hands back its scratch (both heads, the request as sent, its URL and
 * body): kept for the next exchange while px->spare has room, else freed. Its last exchange's
 * decision is freed once nothing still reads it: the live log has it, or there is none
 * (conn_status(), conn_log_unanswered()). */
static void conn_release_scratch(struct conn *c)
{
    struct proxy *px = c->px;
    struct conn_spare *s = NULL;

    if (!c->c_ex.decided || c->c_ex.logged || !px->log.ring) {
        conn_decision_free(&c->c_ex);
        exchange_free_names(&c->c_ex);
    }
    if (!conn_holds_scratch(c))
        return;
    buf_cleanup(&c->c_body);
    if (px->n_spare < LIMIT_SPARE_SCRATCH && (s = mem_malloc(sizeof(*s))) != NULL) {
        head_move(&s->head[0], &c->c_client.head);
        head_move(&s->head[1], &c->c_up.head);
        buf_move(&s->req_out, &c->c_req_out);
        buf_move(&s->url, &c->c_url);
        s->next = px->spare;
        px->spare = s;
        px->n_spare++;
        return;
    }
    side_release(&c->c_client);
    side_release(&c->c_up);
    buf_cleanup(&c->c_req_out);
    buf_cleanup(&c->c_url);
    px->n_released++;
}

/* An exchange starts on a connection that holds no scratch: a spare one, if any, is its. */
static void conn_take_scratch(struct conn *c)
{
    struct proxy *px = c->px;
    struct conn_spare *s = px->spare;

    if (!s || conn_holds_scratch(c))
        return;
    px->spare = s->next;
    px->n_spare--;
    http_head_cleanup(&c->c_client.head);
    http_head_cleanup(&c->c_up.head);
    buf_cleanup(&c->c_req_out);
    buf_cleanup(&c->c_url);
    c->c_client.head = s->head[0];
    c->c_up.head = s->head[1];
    c->c_req_out = s->req_out;
    c->c_url = s->url;
    mem_free(s);
}

int conn_exchange_reset(struct conn *c)
{
    struct exchange_names *names;

    conn_log_unanswered(c);
    c->px->hooks->filter_free(c->c_ex.filter);
    conn_decision_free(&c->c_ex);
    conn_spool_close(&c->c_ex);
    names = c->c_ex.names;
    memset(&c->c_ex, 0, sizeof(c->c_ex));
    if (!names)
        names = mem_malloc(sizeof(*names));
    if (names)
        memset(names, 0, sizeof(*names));
    exchange_point_names(&c->c_ex, names);
    conn_take_scratch(c);
    buf_reset(&c->c_req_out);
    buf_reset(&c->c_body);
    buf_reset(&c->c_url);
    return names ? 0 : -1;
}

void conn_spare_cleanup(struct proxy *px)
{
    while (px->spare) {
        struct conn_spare *s = px->spare;

        px->spare = s->next;
        px->n_released++;
        spare_free(s);
    }
    px->n_spare = 0;
}

void conn_sweep_idle(struct proxy *px)
{
    /* The spares too: a busy loop makes them again within the second. */
    conn_spare_cleanup(px);
    /* What was freed lies between the connections' own blocks: handed back to the system a
     * page at a time, or the memory stays with brock. */
    if (px->n_released >= SWEEP_TRIM_MIN)
        malloc_trim(0);
    px->n_released = 0;
}

int64_t conn_now_ms(const struct conn *c)
{
    struct timeval tv;

    event_base_gettimeofday_cached(c->px->base, &tv);
    return clock_tv_ms(&tv);
}

/* ---- the log ---- */

void conn_log_failure(const struct conn *c, enum log_level level, int status, const char *why)
{
    const struct exchange *x = &c->c_ex;
    /* An idle connection's last exchange handed its names back; an intercepted tunnel's
     * connection, between its requests, is still about the tunnel's host. */
    const char *host = x->host[0] || !c->tunnel_host ? x->host : c->tunnel_host;
    char code[8] = "";

    if (status)
        snprintf(code, sizeof(code), "%d ", status);
    log_msg(level, "%s %s%s%s: %s%s", c->c_peer, x->method[0] ? x->method : "-", host[0] ? " " : "",
            host, code, why);
}

void conn_log_request(const struct conn *c)
{
    const struct exchange *x = &c->c_ex;

    if (!log_enabled(LOG_DEBUG))
        return;
    if (x->is_local && !x->host[0]) {
        log_msg(LOG_DEBUG, "%s %s %s %d (brock's own page)", c->c_peer, x->method,
                http_head_text(&c->c_client.head), x->status);
        return;
    }
    log_msg(LOG_DEBUG, "%s %s %s %d %s%s%s%s", c->c_peer, x->method, x->host, x->status,
            brock_effect_name(conn_effect(x)), x->site_known ? " on " : "",
            x->site_known ? x->site : "", conn_way_note(c));
}

/* Whether the client is in the middle of sending a request: its head begun, or a body of
 * which some is still to come. */
static int conn_mid_request(const struct conn *c)
{
    switch (c->c_state) {
    case CONN_REQ_HEAD: return 1;
    case CONN_CONNECT:
    case CONN_REQ_BODY: return c->c_ex.req_has_body && !c->c_ex.req_done;
    case CONN_IDLE:
    case CONN_RESP_HEAD:
    case CONN_RESP_BODY:
    case CONN_TUNNEL:
    case CONN_STREAM:
    case CONN_H2:
    case CONN_SOCKS:
    case CONN_PEEK:
    case CONN_FLUSH:
    case CONN_CLOSED: return 0;
    }
    return 0;
}

/* ---- endings ---- */

void conn_fail(struct conn *c, int status, const char *text)
{
    if (c->c_state == CONN_CLOSED)
        return;
    conn_log_failure(c, LOG_INFO, status, text);
    /* A SOCKS or redirected client's tunnel is answered already: it hears of a failure by the
     * close. */
    if (!c->c_ex.resp_final &&
        !(conn_answered_first(c) && c->c_ex.is_connect && !c->tunnel_plain) &&
        conn_reply(c, status, text, 0) < 0)
        return;
    conn_flush_close(c, NULL);
}

/* A client that closes between requests is no news (conn_do_head). */
void conn_client_gone(struct conn *c)
{
    conn_log_failure(c, LOG_INFO, 0, "the client closed the connection mid-request");
    conn_close(c, NULL);
}

void conn_upstream_cut(struct conn *c)
{
    c->px->metrics.upstream_errors[METRICS_UPSTREAM_CUT]++;
    conn_log_failure(c, LOG_INFO, 0, "the upstream closed the connection mid-response");
    conn_flush_close(c, NULL);
}

void conn_out_of_memory(struct conn *c, const char *doing)
{
    char why[160];

    snprintf(why, sizeof(why), "out of memory %s; closed the connection", doing);
    conn_log_failure(c, LOG_ERR, 0, why);
    conn_close(c, NULL);
}

void conn_drop_upstream(struct conn *c, int reusable)
{
    upstream_cancel(c);
    if (c->c_up.bev)
        upstream_release(c, reusable);
    c->c_up.bev = NULL;
}

void conn_flush_close(struct conn *c, const char *reason)
{
    if (c->c_state == CONN_CLOSED || c->c_state == CONN_FLUSH)
        return;
    if (reason)
        log_msg(LOG_DEBUG, "%s: closing: %s", c->c_peer, reason);
    if (c->c_state != CONN_TUNNEL)
        conn_drop_upstream(c, 0);
    conn_set_state(c, CONN_FLUSH);
}

/* CONN_FLUSH: writes out what is pending on both sides, then half-closes the client and waits
 * a moment for it to close too, so that unread input does not turn into a reset that destroys
 * the answer on its way. */
static void conn_do_flush(struct conn *c)
{
    struct side *s = &c->c_client;
    struct evbuffer *in;

    if (c->c_up.bev && c->c_up.eof == 0 && pump_pending(&c->c_up))
        return;
    if (c->c_up.bev && c->c_up.eof && evbuffer_get_length(bufferevent_get_input(c->c_up.bev))) {
        long n = pump_move(&c->c_up, s);

        if (n < 0) {
            conn_out_of_memory(c, "moving a tunnel's last bytes");
            return;
        }
        c->tunnel_copied[1] += (uint64_t)n;
    }
    if (pump_pending(s))
        return;
    if (c->c_up.bev)
        conn_drop_upstream(c, 0);
    in = bufferevent_get_input(s->bev);
    evbuffer_drain(in, evbuffer_get_length(in));
    /* A stream connection's last bytes are with its carrier: nothing more to wait for. */
    if (s->eof || c->h2_stream) {
        conn_close(c, "done");
        return;
    }
    if (!c->shut_wr) {
        c->shut_wr = 1;
        /* Inside TLS, the end of a body read until close is a close_notify. */
        if (s->io->tls)
            tls_close_notify(s->bev);
        shutdown(bufferevent_getfd(s->bev), SHUT_WR);
        if (pump_reading(s, 1) < 0)
            conn_out_of_memory(c, "reading the client's close");
    }
}

/* ---- the machine ---- */

/* One handler per state; each returns, and the loop calls the next while the state moves. */
static void conn_dispatch(struct conn *c)
{
    enum conn_state before;

    do {
        before = c->c_state;
        switch (c->c_state) {
        case CONN_IDLE:
            /* Stopping: an exchange just completed, and no other starts. */
            if (c->px->draining)
                conn_flush_close(c, "brock is stopping");
            else
                conn_do_head(c);
            break;
        case CONN_REQ_HEAD: conn_do_head(c); break;
        case CONN_CONNECT: break;
        case CONN_REQ_BODY: conn_do_req_body(c); break;
        case CONN_RESP_HEAD:
        case CONN_RESP_BODY: conn_do_response(c); break;
        case CONN_TUNNEL: conn_do_tunnel(c); break;
        case CONN_STREAM: conn_do_stream(c); break;
        case CONN_H2: h2front_run(c); break;
        case CONN_SOCKS: conn_do_socks(c); break;
        case CONN_PEEK: conn_do_peek(c); break;
        case CONN_FLUSH: conn_do_flush(c); break;
        case CONN_CLOSED: break;
        }
    } while (c->c_state != before && c->c_state != CONN_CLOSED);
}

static int conn_client_quiet(struct conn *c, struct bufferevent *bev);

/* Room made by writing lets the machine advance again. */
static void conn_advance(struct conn *c)
{
    for (int round = 0; round < 8 && c->c_state != CONN_CLOSED; round++) {
        int a, b;

        conn_dispatch(c);
        if (c->c_state == CONN_CLOSED)
            return;
        a = pump_flush(&c->c_client);
        if (a < 0) {
            if (!conn_client_quiet(c, c->c_client.bev))
                conn_close(c, "writing to the client failed");
            return;
        }
        b = pump_flush(&c->c_up);
        if (b < 0) {
            /* Seen as the upstream closing: the state handlers know what that means. */
            c->c_up.eof = c->c_up.broken = 1;
            b = 1;
        }
        if (!a && !b)
            return;
    }
    /* Each round emptied an output and there may be more to move: the rest is for the loop's
     * next turn, once other connections had theirs. An output written empty raises no event,
     * and a body whose input is all in (a page being decoded) raises none either: the client's
     * write callback is called then, deferred. */
    if (c->c_state != CONN_CLOSED && c->c_client.bev)
        bufferevent_trigger(c->c_client.bev, EV_WRITE, BEV_TRIG_DEFER_CALLBACKS);
}

/* Then each side reads only while its input has room: what one side sends waits there while
 * the other is slow to take it. */
void conn_run(struct conn *c)
{
    conn_advance(c);
    if (c->c_state != CONN_CLOSED && (pump_limit(&c->c_client) < 0 || pump_limit(&c->c_up) < 0))
        conn_out_of_memory(c, "pausing or resuming a read");
    /* The exchange is over and the next has not begun: what it used goes back now, for the
     * exchanges of other connections to reuse, rather than lying idle here. */
    if (c->c_state == CONN_IDLE)
        conn_release_scratch(c);
    /* A response written out whole leaves an idle connection that may now be cut. */
    admit_update(c);
}

/* ---- events ---- */

static void on_client_read(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    (void)bev;
    /* Bytes from the client inside TLS: its handshake with brock is done. */
    if (c->intercepted && !c->tls_counted) {
        c->tls_counted = 1;
        c->px->metrics.tls_client_ok++;
    }
    if (c->intercepted && !c->tls_spoke) {
        c->tls_spoke = 1;
        conn_tls_trusted(c);
    }
    conn_touch(c);
    conn_run(c);
}

static void on_client_write(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    pump_drained(bev, &c->c_client);
    conn_run(c);
}

/* A client's TLS handshake with brock failed: counted once, logged with why, the connection
 * closed. */
static void conn_client_tls_failed(struct conn *c, const char *why)
{
    if (!c->tls_counted)
        c->px->metrics.tls_client_failed++;
    c->tls_counted = 1;
    conn_log_failure(c, LOG_INFO, 0, why);
}

/* An error on the client's connection: a TLS failure, or a reset. */
static void conn_client_error(struct conn *c, struct bufferevent *bev)
{
    char why[BROCK_HOST_MAX + 512];
    int cert_refused = 0;
    int failed =
        c->intercepted && tls_error_explain(bev, c->tunnel_host, why, sizeof(why), &cert_refused);
    const char *refused = NULL;

    /* A client that does not trust brock's CA ends here, and one that asked for a name brock
     * makes no certificate for, which brock's own words say better: say so once. */
    if (c->intercepted)
        refused = intercept_refusal(c->px->mitm, bufferevent_openssl_get_ssl(bev));
    if (refused)
        snprintf(why, sizeof(why), "%s", refused);
    if (failed || refused) {
        conn_client_tls_failed(c, why);
        /* A client that does not trust brock's certificate (its alert says so): twice, and
         * its host is passed through unseen from then on. */
        if (cert_refused && !refused)
            conn_tls_refused(c, "the client's TLS alert refused the certificate");
        conn_close(c, NULL);
        return;
    }
    /* A reset: as a close, news only in the middle of a request. */
    if (conn_client_quiet(c, bev))
        return;
    if (conn_mid_request(c)) {
        conn_client_gone(c);
        return;
    }
    conn_close(c, "client connection error");
}

/* The client closed its side. */
/* The client of an intercepted tunnel ended it (a close, a reset, a write that failed) having
 * sent nothing inside TLS: during the handshake, or right after it, it may have refused
 * brock's certificate. Closes c and returns 1 when so, else 0 (c left as it is). */
static int conn_client_quiet(struct conn *c, struct bufferevent *bev)
{
    if (!c->intercepted || c->tls_spoke)
        return 0;
    /* A browser gives up its other connections to a host once one carries HTTP/2, some in
     * the middle of their handshakes: nothing refused. */
    if (conn_tls_trusting(c)) {
        conn_close(c, "the client gave up a spare connection to a host it uses");
        return 1;
    }
    if (!tls_handshake_done(bev)) {
        conn_client_tls_failed(c, "the client closed the connection during the TLS handshake");
        conn_tls_quiet(c, "the client closed the connection during the TLS handshake");
        conn_close(c, NULL);
        return 1;
    }
    /* A program that checks a pinned key finishes the handshake, finds the wrong key and
     * closes at once, having sent nothing (where brock spoke first, HTTP/2's SETTINGS, the
     * close makes that write fail): a browser's spare connection stays open far longer
     * before it goes unused, unless the browser quits, closing its spoken connections with
     * it (conn_tls_quiet() holds the close to see). */
    if (c->tls_done_ms && conn_now_ms(c) - c->tls_done_ms < PASSTHROUGH_QUIET_CLOSE_MS) {
        conn_log_failure(c, LOG_INFO, 0,
                         "the client closed the connection right after the "
                         "TLS handshake, before its first request");
        conn_tls_quiet(c, "the client closed the connection before its first request");
        conn_close(c, NULL);
        return 1;
    }
    return 0;
}

static void conn_client_eof(struct conn *c, struct bufferevent *bev)
{
    /* A close without close_notify arrives here too (intercept.c): browsers end connections
     * that way all the time, and where it happened says whether anything was lost. */
    if (conn_client_quiet(c, bev))
        return;
    if (c->intercepted && c->tls_spoke)
        conn_tls_spoke_closed(c);
    c->c_client.eof = 1;
    conn_run(c);
}

static void on_client_event(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;

    /* The handshake with an intercepted client is done: brock reads it itself from now on. */
    if (what & BEV_EVENT_CONNECTED) {
        c->tls_done_ms = conn_now_ms(c);
        if (pump_start(&c->c_client) < 0) {
            conn_out_of_memory(c, "reading the client");
            return;
        }
        /* What the client sends next is HTTP/2's preface, when it chose h2. */
        if (h2front_negotiated(bev) && h2front_start(c) == 0)
            conn_run(c);
        return;
    }
    if (what & BEV_EVENT_ERROR)
        conn_client_error(c, bev);
    else if (what & BEV_EVENT_EOF)
        conn_client_eof(c, bev);
}

int conn_client_events(struct conn *c)
{
    bufferevent_setcb(c->c_client.bev, on_client_read, on_client_write, on_client_event, c);
    return pump_start(&c->c_client);
}

void conn_on_up_read(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    /* A pair's end (an HTTP/2 stream, h2up.h) is also read when its other end finishes,
     * with nothing in it: only bytes count as a response begun. */
    if (evbuffer_get_length(bufferevent_get_input(bev)) > 0)
        c->c_ex.resp_bytes = 1;
    conn_touch(c);
    conn_run(c);
}

void conn_on_up_write(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    pump_drained(bev, &c->c_up);
    conn_run(c);
}

void conn_on_up_event(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;

    (void)bev;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        c->c_up.eof = 1;
        if (what & BEV_EVENT_ERROR)
            c->c_up.broken = 1;
        conn_run(c);
    }
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    char text[BROCK_HOST_MAX + 96];

    (void)fd;
    (void)what;
    switch (c->c_state) {
    case CONN_IDLE: conn_close(c, "idle keep-alive timeout"); break;
    case CONN_REQ_HEAD: conn_fail(c, 408, "the request head did not arrive in time"); break;
    case CONN_CONNECT:
        c->px->metrics.upstream_errors[METRICS_UPSTREAM_CONNECT_TIMEOUT]++;
        upstream_cancel(c);
        snprintf(text, sizeof(text), "brock could not connect to %s: timed out after %d s",
                 c->c_ex.host, c->px->t_connect);
        conn_fail(c, 504, text);
        break;
    case CONN_REQ_BODY: conn_fail(c, 408, "the request body stalled"); break;
    case CONN_RESP_HEAD:
        c->px->metrics.upstream_errors[METRICS_UPSTREAM_RESPONSE_TIMEOUT]++;
        snprintf(text, sizeof(text), "%s did not answer within %d s", c->c_ex.host,
                 c->px->t_response);
        conn_fail(c, 504, text);
        break;
    case CONN_RESP_BODY:
        c->px->metrics.upstream_errors[METRICS_UPSTREAM_STALLED]++;
        snprintf(text, sizeof(text), "the response stalled: nothing moved for %d s", TIMEOUT_BODY);
        conn_log_failure(c, LOG_INFO, 0, text);
        conn_close(c, NULL);
        break;
    case CONN_TUNNEL: conn_close(c, "the tunnel was idle too long"); break;
    case CONN_STREAM: conn_stream_ping(c); break;
    case CONN_H2:
        /* Its streams have timeouts of their own. */
        /* Idle: a GOAWAY says so, and the connection closes once it is written. */
        conn_arm(c);
        if (!h2front_working(c))
            h2front_stop(c);
        break;
    case CONN_SOCKS: conn_close(c, "the SOCKS request did not arrive in time"); break;
    case CONN_PEEK:
        if (c->way == CONN_WAY_TRANSPARENT)
            conn_transparent_peeked(c, PEEK_OTHER, "", "the client sent nothing in 2 s");
        else
            conn_socks_pass(c);
        break;
    case CONN_FLUSH: conn_close(c, "the client did not take the last bytes in time"); break;
    case CONN_CLOSED: break;
    }
    if (c->c_state != CONN_CLOSED)
        conn_run(c);
}

/* ---- what upstream.c reports ---- */

void conn_upstream_ready(struct conn *c)
{
    struct side *u = &c->c_up;

    bufferevent_setcb(u->bev, conn_on_up_read, conn_on_up_write, conn_on_up_event, c);
    if (pump_start(u) < 0) {
        conn_out_of_memory(c, "starting to read the upstream");
        return;
    }
    u->eof = u->broken = u->eof_fed = 0;
    u->held = 0;
    c->c_ex.resp_bytes = 0;
    side_start(u, SIDE_UPSTREAM);
    u->no_body = c->c_ex.is_head;
    if (c->c_ex.is_connect)
        conn_tunnel_ready(c);
    else
        conn_send_request(c);
}

void conn_upstream_failed(struct conn *c, int status, const char *why)
{
    conn_fail(c, status, why);
    conn_run(c);
}

/* ---- lifetime ---- */

/* A connection of px with nothing of its client's yet: idle, its sides and scratch ready, its
 * timer made (NULL when out of memory for either). */
static struct conn *conn_alloc(struct proxy *px)
{
    struct conn *c = mem_calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    c->px = px;
    c->id = ++px->next_id;
    c->c_state = CONN_IDLE;
    side_init(&c->c_client);
    side_init(&c->c_up);
    side_start(&c->c_client, SIDE_CLIENT);
    buf_init(&c->c_req_out, LIMIT_HEAD_BYTES + 4096);
    buf_init(&c->c_body, DASH_LIMIT_JSON);
    buf_init(&c->c_url, LIMIT_HEAD_BYTES + EXCHANGE_AUTHORITY_MAX + 16);
    exchange_point_names(&c->c_ex, NULL);
    c->a_tier = -1;
    c->c_timer = evtimer_new(px->base, on_timeout, c);
    if (!c->c_timer) {
        conn_free(c);
        return NULL;
    }
    return c;
}

struct conn *conn_new(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa)
{
    struct conn *c = conn_alloc(px);

    if (!c) {
        evutil_closesocket(fd);
        return NULL;
    }
    admit_address(sa, c->c_peer, sizeof(c->c_peer));
    c->c_client.io = &io_tcp;
    c->c_client.bev = io_tcp.open(px->base, fd, NULL);
    /* The bufferevent owns the socket from here on. */
    if (c->c_client.bev)
        fd = -1;
    if (!c->c_client.bev || conn_client_events(c) < 0 || admit_join(px, c) < 0)
        goto fail;
    LIST_INSERT_HEAD(&px->conns, c, link);
    px->n_conns++;
    px->metrics.connections_total++;
    conn_arm(c);
    return c;

fail:
    if (fd >= 0)
        evutil_closesocket(fd);
    if (c->c_client.bev)
        bufferevent_free(c->c_client.bev);
    conn_free(c);
    return NULL;
}

struct conn *conn_new_stream(struct conn *carrier, struct bufferevent *bev, struct h2stream *st)
{
    struct proxy *px = carrier->px;
    struct conn *c = conn_alloc(px);

    if (!c) {
        bufferevent_free(bev);
        return NULL;
    }
    memcpy(c->c_peer, carrier->c_peer, sizeof(c->c_peer));
    /* Inside the carrier's tunnel, whose handshake is done and counted. */
    c->intercepted = c->tls_counted = c->tls_spoke = 1;
    c->tls_done_ms = carrier->tls_done_ms;
    c->tunnel_port = carrier->tunnel_port;
    c->way = carrier->way;
    c->h2_stream = 1;
    c->h2.stream = st;
    c->c_client.io = &h2front_io;
    c->c_client.bev = bev;
    c->tunnel_host = mem_strdup(carrier->tunnel_host);
    if (carrier->orig_dst && (c->orig_dst = mem_malloc(sizeof(*c->orig_dst))) != NULL)
        *c->orig_dst = *carrier->orig_dst;
    if (!c->tunnel_host || (carrier->orig_dst && !c->orig_dst) || conn_client_events(c) < 0 ||
        admit_join(px, c) < 0) {
        bufferevent_free(bev);
        c->c_client.bev = NULL;
        conn_free(c);
        return NULL;
    }
    LIST_INSERT_HEAD(&px->conns, c, link);
    px->n_conns++;
    conn_arm(c);
    return c;
}

void conn_close(struct conn *c, const char *reason)
{
    struct proxy *px = c->px;

    if (c->c_state == CONN_CLOSED)
        return;
    if (reason)
        log_msg(LOG_DEBUG, "%s: closed: %s", c->c_peer, reason);
    conn_tunnel_end(c);
    conn_stream_end(c);
    conn_log_unanswered(c);
    conn_set_state(c, CONN_CLOSED);
    if (c->h2_carrier)
        h2front_free(c);
    if (c->h2_stream)
        h2front_stream_gone(c);
    admit_leave(c);
    evtimer_del(c->c_timer);
    conn_drop_upstream(c, 0);
    pump_stop(&c->c_client);
    if (c->c_client.bev) {
        bufferevent_free(c->c_client.bev);
        c->c_client.bev = NULL;
    }
    LIST_REMOVE(c, link);
    px->n_conns--;
    LIST_INSERT_HEAD(&px->closing, c, link);
    event_active(px->reaper, EV_TIMEOUT, 0);
}

int conn_wake(struct conn *c)
{
    struct side *s = &c->c_client;
    size_t have = evbuffer_get_length(bufferevent_get_input(s->bev));
    int waiting = 0;

    /* TLS has no such read: its records arrive through the bufferevent alone. Asked first,
     * as a read makes room for what it might get, and a flood asks for every connection. */
    if (!s->io->fill || have >= LIMIT_PENDING_BYTES ||
        ioctl(bufferevent_getfd(s->bev), FIONREAD, &waiting) < 0 || waiting <= 0)
        return 0;
    if (s->io->fill(s->bev, (size_t)waiting < LIMIT_PENDING_BYTES - have
                                ? (size_t)waiting
                                : LIMIT_PENDING_BYTES - have) <= 0)
        return 0;
    conn_touch(c);
    conn_run(c);
    return 1;
}

void conn_stop(struct conn *c)
{
    if (c->c_state == CONN_H2) {
        h2front_stop(c);
        return;
    }
    /* A live log is no exchange in flight: it ends with brock. */
    if (c->c_state == CONN_STREAM) {
        conn_close(c, "brock is stopping");
        return;
    }
    if (c->c_state != CONN_IDLE && c->c_state != CONN_REQ_HEAD)
        return;
    /* Half a request head is no exchange in flight: it is not answered. */
    if (pump_pending(&c->c_client))
        conn_flush_close(c, "brock is stopping");
    else
        conn_close(c, "brock is stopping");
}

void conn_free(struct conn *c)
{
    if (!c)
        return;
    if (c->c_timer)
        event_free(c->c_timer);
    if (c->tunnel_plain)
        pool_forget(c);
    pump_stop(&c->c_client);
    pump_stop(&c->c_up);
    side_cleanup(&c->c_client);
    side_cleanup(&c->c_up);
    buf_cleanup(&c->c_req_out);
    buf_cleanup(&c->c_body);
    buf_cleanup(&c->c_url);
    c->px->hooks->filter_free(c->c_ex.filter);
    conn_decision_free(&c->c_ex);
    conn_spool_close(&c->c_ex);
    exchange_free_names(&c->c_ex);
    mem_free(c->tunnel_host);
    mem_free(c->orig_dst);
    mem_free(c);
}
