/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One client connection: reading requests, deciding on them with the engine, sending them
 * upstream rewritten, and streaming the responses back. Every transition goes through
 * conn_set_state(); conn_run() dispatches to one handler per state until nothing changes. */
#include "proxy/conn.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "dash/dash.h"
#include "jobs/dntcheck.h"
#include "proxy/limits.h"
#include "util/log.h"
#include "proxy/side.h"
#include "net/tls.h"
#include "proxy/intercept.h"
#include "util/alloc.h"

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

static void conn_set_state(struct conn *c, enum conn_state s)
{
    if (c->c_state == s)
        return;
#ifdef BROCK_DEBUG
    log_msg(LOG_DEBUG, "conn %llu: %s -> %s", (unsigned long long)c->id,
            conn_state_name(c->c_state), conn_state_name(s));
#endif
    c->c_state = s;
    conn_arm(c);
}

/* Progress in a streaming state restarts its timeout. */
static void conn_touch(struct conn *c)
{
    if (c->c_state == CONN_REQ_BODY || c->c_state == CONN_RESP_BODY ||
        c->c_state == CONN_TUNNEL)
        conn_arm(c);
}

/* ---- the log ---- */

/* The one line for an exchange brock refused or could not complete: who (the client's
 * address), what (the method and host; never the path or anything after it, as the default
 * log names domains only), the status answered (0: none) and why. */
static void conn_log_failure(const struct conn *c, enum log_level level, int status,
                             const char *why)
{
    char code[8] = "";

    if (status)
        snprintf(code, sizeof(code), "%d ", status);
    log_msg(level, "%s %s%s%s: %s%s", c->c_peer, c->method[0] ? c->method : "-",
            c->host[0] ? " " : "", c->host, code, why);
}

/* Whether the client is in the middle of sending a request: its head begun, or a body of
 * which some is still to come. */
static int conn_mid_request(const struct conn *c)
{
    switch (c->c_state) {
    case CONN_REQ_HEAD: return 1;
    case CONN_CONNECT:
    case CONN_REQ_BODY: return c->req_has_body && !c->req_done;
    case CONN_IDLE:
    case CONN_RESP_HEAD:
    case CONN_RESP_BODY:
    case CONN_TUNNEL:
    case CONN_FLUSH:
    case CONN_CLOSED: return 0;
    }
    return 0;
}

/* ---- answers brock writes itself ---- */

static void conn_flush_close(struct conn *c, const char *reason);

/* Writes a whole response with a small text body. */
static void conn_reply(struct conn *c, int status, const char *text, int keep)
{
    struct evbuffer *out = bufferevent_get_output(c->c_client.bev);
    size_t len = strlen(text);

    c->status = status;
    evbuffer_add_printf(out,
                        "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        "Content-Length: %zu\r\nCache-Control: no-store\r\n%s\r\n",
                        status, http_reason(status), c->is_head ? 0 : len + 1,
                        keep ? "" : "Connection: close\r\n");
    if (!c->is_head) {
        evbuffer_add(out, text, len);
        evbuffer_add(out, "\n", 1);
    }
}

/* An error that ends the connection: answered if nothing of a response went out yet. */
static void conn_fail(struct conn *c, int status, const char *text)
{
    conn_log_failure(c, LOG_INFO, status, text);
    if (!c->resp_final)
        conn_reply(c, status, text, 0);
    conn_flush_close(c, NULL);
}

/* The client went away in the middle of a request: nothing can be answered. A client that
 * closes between requests is no news (conn_do_head). */
static void conn_client_gone(struct conn *c)
{
    conn_log_failure(c, LOG_INFO, 0, "the client closed the connection mid-request");
    conn_close(c, NULL);
}

/* The upstream closed before the end of a response whose end it had announced (a length or
 * chunks): what came goes to the client, whose connection then closes, so that it sees the
 * body cut short as well. */
static void conn_upstream_cut(struct conn *c)
{
    conn_log_failure(c, LOG_INFO, 0, "the upstream closed the connection mid-response");
    conn_flush_close(c, NULL);
}

/* Drops the exchange's upstream side: closed, or back into the pool. */
static void conn_drop_upstream(struct conn *c, int reusable)
{
    upstream_cancel(c);
    if (c->c_up.bev)
        upstream_release(c, reusable);
    c->c_up.bev = NULL;
}

/* reason is for -v; NULL when a line said why already. */
static void conn_flush_close(struct conn *c, const char *reason)
{
    if (c->c_state == CONN_CLOSED || c->c_state == CONN_FLUSH)
        return;
    if (reason)
        log_msg(LOG_DEBUG, "%s: closing: %s", c->c_peer, reason);
    if (c->c_state != CONN_TUNNEL)
        conn_drop_upstream(c, 0);
    conn_set_state(c, CONN_FLUSH);
}

/* ---- the request ---- */

static const char *header_str(const struct http_head *hh, const char *name)
{
    const struct brock_header *h = http_header_find(hh->h, hh->n, name);

    /* Values are NUL-terminated in the head's buffer. */
    return h ? h->value : NULL;
}

static int64_t now_ms(struct conn *c)
{
    struct timeval tv;

    event_base_gettimeofday_cached(c->px->base, &tv);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void conn_observe(struct conn *c, const struct http_head *hh, unsigned flags)
{
    struct brock_observation o = {
        .host = c->host,
        .site = c->site,
        .headers = hh->h,
        .n_headers = hh->n,
        .flags = flags,
        .time_ms = now_ms(c),
    };
    struct brock_learned learned;

    memset(&learned, 0, sizeof(learned));
    if (brock_observe(c->px->engine, &o, &learned) < 0) {
        log_msg(LOG_ERR, "learning from %s on %s failed: %s", c->host, c->site,
                brock_engine_errmsg(c->px->engine));
        return;
    }
    if (learned.blocked) {
        c->px->n_learned++;
        log_msg(LOG_INFO, "learned: %s tracks across sites (seen on %s); blocked from now on",
                learned.tracker, c->site);
    } else if (learned.recorded) {
        log_msg(LOG_DEBUG, "learned: %s tracks on %s", learned.tracker, c->site);
    }
}

static int is_beacon(const struct http_head *hh)
{
    const char *ct = header_str(hh, "content-type");

    return http_header_find(hh->h, hh->n, "ping-to") != NULL ||
           (ct && strncasecmp(ct, "text/ping", 9) == 0);
}

/* The Host header's value for host and port: the port only when not the scheme's own. */
/* The target: the host, port and path of an absolute-form URL (http:// or https://), a
 * CONNECT authority, or an origin-form path inside an intercepted tunnel. */
static int conn_parse_target(struct conn *c, const char *url, size_t len, const char **path,
                             size_t *path_len)
{
    struct http_target t;

    c->is_https = 0;
    if (c->intercepted && !c->is_connect && url[0] == '/') {
        /* Inside an intercepted tunnel: origin form, for the host the tunnel was opened to. */
        c->is_https = 1;
        memcpy(c->host, c->tunnel_host, sizeof(c->host));
        c->port = c->tunnel_port;
        *path = url;
        *path_len = len;
        http_authority(c->host, c->port, 443, c->authority, sizeof(c->authority));
        return 0;
    }
    if (http_parse_target(url, len, c->is_connect, &t) < 0)
        return -1;
    c->is_https = t.is_https;
    memcpy(c->host, t.host, sizeof(c->host));
    c->port = t.port;
    memcpy(c->authority, t.authority, sizeof(c->authority));
    if (!c->is_connect) {
        *path = t.path;
        *path_len = t.path_len;
    }
    return 0;
}

static void conn_decide(struct conn *c)
{
    const struct http_head *hh = &c->c_client.head;
    struct proxy *px = c->px;
    char why[512];

    c->site_known = 0;
    c->site[0] = '\0';
    if (!c->is_connect) {
        struct fp_request r = {
            .host = c->host,
            .referer = header_str(hh, "referer"),
            .origin = header_str(hh, "origin"),
            .fetch_mode = header_str(hh, "sec-fetch-mode"),
            .fetch_dest = header_str(hh, "sec-fetch-dest"),
            .fetch_site = header_str(hh, "sec-fetch-site"),
        };

        c->site_known = fp_infer(&px->fp, c->c_peer, &r, c->site) == FP_KNOWN;
    }
    /* Without interception a tunnel says nothing of its page: decided as third party. */
    if (brock_decide(px->engine, c->host, c->site_known ? c->site : NULL, &c->d) < 0)
        c->d.effect = BROCK_PASS;
    c->observe = c->site_known && c->d.third_party && c->d.reason == BROCK_WHY_ACTION &&
                 c->d.effect != BROCK_DENY;
    if (c->d.effect == BROCK_DENY)
        px->n_blocked++;
    else if (c->d.effect == BROCK_STRIP_COOKIES)
        px->n_cookieblocked++;
    /* The dashboard's recent sites: what each page's third parties were given. */
    if (c->site_known && c->d.third_party && c->d.reason == BROCK_WHY_ACTION &&
        brock_page_seen(px->engine, c->site, c->d.tracker, c->d.action, now_ms(c)) < 0)
        log_msg(LOG_ERR, "recording %s on %s failed: %s", c->d.tracker, c->site,
                brock_engine_errmsg(px->engine));
    if (c->d.effect != BROCK_PASS && log_enabled(LOG_INFO)) {
        brock_decision_explain(px->engine, &c->d, why, sizeof(why));
        log_msg(LOG_INFO, "%s %s on %s: %s", brock_effect_name(c->d.effect), c->host,
                c->site_known ? c->site : "an unknown page", why);
    }
}

/* Writes the dashboard's answer to the request in origin form. Returns -1 when the
 * connection failed instead. */
static int conn_local_write(struct conn *c, int keep)
{
    const struct http_head *hh = &c->c_client.head;
    struct dash_request rq = {
        .method = c->method,
        .target = http_head_text(hh) + c->local_off,
        .target_len = hh->line_len - c->local_off,
        .h = hh->h,
        .n = hh->n,
        .body = c->c_body.data ? c->c_body.data : "",
        .body_len = c->c_body.len,
        .body_too_big = c->body_too_big,
        .keep_alive = keep,
    };
    struct sockaddr_storage local;
    socklen_t local_len = sizeof(local);
    char local_host[INET6_ADDRSTRLEN + 2];
    struct buf out;
    int status;

    /* On a wildcard listen the dashboard's own address is the one this client reached. */
    if (getsockname(bufferevent_getfd(c->c_client.bev), (struct sockaddr *)&local,
                    &local_len) == 0) {
        access_host_text((const struct sockaddr *)&local, local_host, sizeof(local_host));
        rq.local_host = local_host;
    }
    if (rq.target_len == 0) {
        rq.target = "/";
        rq.target_len = 1;
    }
    buf_init(&out, LIMIT_DASH_RESPONSE);
    status = dash_respond(c->px->dash, &rq, &out);
    if (status < 0) {
        buf_cleanup(&out);
        conn_fail(c, 500, "brock ran out of memory for its dashboard");
        return -1;
    }
    c->status = status;
    bufferevent_write(c->c_client.bev, out.data, out.len);
    buf_cleanup(&out);
    buf_reset(&c->c_body);
    return 0;
}

/* A request in origin form is for brock itself: the dashboard. One with a body (a change)
 * is answered once the body is in; one whose declared body is too large, at once. */
static void conn_answer_local(struct conn *c)
{
    const struct http_head *hh = &c->c_client.head;
    const char *expect = header_str(hh, "expect");
    int keep = c->client_keepalive && !c->req_has_body;

    c->is_local = 1;
    c->body_too_big = 0;
    buf_reset(&c->c_body);
    if (c->req_has_body && c->c_client.parser.content_length != ULLONG_MAX &&
        c->c_client.parser.content_length > LIMIT_DASH_BODY) {
        c->body_too_big = 1;
    } else if (c->req_has_body) {
        c->local_wait = 1;
        if (expect && !strcasecmp(expect, "100-continue") && !c->client_http10)
            evbuffer_add_printf(bufferevent_get_output(c->c_client.bev),
                                "HTTP/1.1 100 Continue\r\n\r\n");
        conn_set_state(c, CONN_REQ_BODY);
        return;
    }
    if (conn_local_write(c, keep) < 0)
        return;
    if (keep)
        conn_set_state(c, CONN_REQ_BODY);
    else
        conn_flush_close(c, "answered locally");
}

/* A blocked request is answered here and nothing goes upstream. */
static void conn_answer_blocked(struct conn *c)
{
    char why[512], text[BROCK_HOST_MAX + 600];
    int keep = !c->is_connect && !c->req_has_body && c->client_keepalive;

    c->is_local = 1;
    brock_decision_explain(c->px->engine, &c->d, why, sizeof(why));
    snprintf(text, sizeof(text), "brock blocked this request to %s. %s", c->host, why);
    conn_reply(c, 403, text, keep);
    if (keep)
        conn_set_state(c, CONN_REQ_BODY);
    else
        conn_flush_close(c, "blocked");
}

/* ---- interception ---- */

static void conn_log_request(struct conn *c);
static void on_client_read(struct bufferevent *bev, void *arg);
static void on_client_write(struct bufferevent *bev, void *arg);
static void on_client_event(struct bufferevent *bev, short what, void *arg);

static int conn_may_intercept(const struct conn *c)
{
    const struct proxy *px = c->px;

    return px->mitm && !c->intercepted &&
           !intercept_host_listed(px->no_intercept, px->n_no_intercept, c->host);
}

/* Answers the CONNECT, then speaks TLS with the client on the same socket as the CONNECT
 * target; the requests inside come back through conn_do_head like any others. Nothing
 * connects upstream until the first of them. */
static void conn_start_intercept(struct conn *c)
{
    struct side *s = &c->c_client;
    struct evbuffer *in = bufferevent_get_input(s->bev);
    evutil_socket_t fd = bufferevent_getfd(s->bev);
    struct bufferevent *bev;
    SSL *ssl;

    /* The parser stopped before the CONNECT head's last line feed. */
    side_resume(s);
    (void)side_pump(s, &side_request_settings, NULL);
    if (evbuffer_get_length(in) != 0) {
        conn_fail(c, 400, "the client sent bytes before the CONNECT was answered");
        return;
    }
    evbuffer_add_printf(bufferevent_get_output(s->bev),
                        "HTTP/1.1 200 Connection established\r\nVia: %s\r\n\r\n", REWRITE_VIA);
    /* The answer must be on the wire before the socket changes hands. */
    if (s->io->flush(s->bev) != 1) {
        conn_close(c, "could not answer the CONNECT at once");
        return;
    }
    ssl = intercept_ssl_new(c->px->mitm, c->host);
    if (!ssl) {
        conn_log_failure(c, LOG_ERR, 0, "out of memory for TLS with the client");
        conn_close(c, NULL);
        return;
    }
    /* The plain bufferevent lets go of the socket without closing it. */
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
        return;
    }
    s->bev = bev;
    s->eof = s->eof_fed = 0;
    bufferevent_setcb(bev, on_client_read, on_client_write, on_client_event, c);
    bufferevent_setwatermark(bev, EV_READ, 0, LIMIT_PENDING_BYTES);
    side_start_events(s);
    c->status = 200;
    c->resp_final = 1;
    conn_log_request(c);
    c->px->n_tunnels++;
    c->intercepted = 1;
    memcpy(c->tunnel_host, c->host, sizeof(c->tunnel_host));
    c->tunnel_port = c->port;
    http_parser_init(&s->parser, HTTP_REQUEST);
    s->parser.data = c;
    conn_set_state(c, CONN_IDLE);
}

/* The head is in: a local page, a tunnel, or a request to send upstream. */
static void conn_start_request(struct conn *c)
{
    struct side *s = &c->c_client;
    const struct http_head *hh = &s->head;
    const char *url = http_head_text(hh);
    const char *path = NULL;
    size_t path_len = 0;
    http_parser *p = &s->parser;
    unsigned flags = 0;

    c->px->n_requests++;
    snprintf(c->method, sizeof(c->method), "%s", http_method_str((enum http_method)p->method));
    c->is_head = p->method == HTTP_HEAD;
    c->is_connect = p->method == HTTP_CONNECT;
    c->is_upgrade = p->upgrade && !c->is_connect;
    c->is_local = 0;
    c->client_keepalive = http_should_keep_alive(p);
    c->client_http10 = p->http_major == 1 && p->http_minor == 0;
    c->req_has_body = (p->flags & F_CHUNKED) ||
                      (p->content_length > 0 && p->content_length != ULLONG_MAX);
    c->req_done = c->resp_final = c->resp_bytes = c->must_close = 0;
    c->reused = c->retried = 0;
    c->status = 0;
    c->host[0] = '\0';
    s->out = (p->flags & F_CHUNKED) ? FRAME_CHUNKED : c->req_has_body ? FRAME_LENGTH : FRAME_NONE;

    if (p->content_length != ULLONG_MAX && p->content_length > LIMIT_REQUEST_BODY) {
        conn_fail(c, 413, "the request body is larger than brock accepts");
        return;
    }
    c->local_off = 0;
    if (url[0] == '/' && !c->is_connect && !c->intercepted) {
        conn_answer_local(c);
        return;
    }
    if (conn_parse_target(c, url, hh->line_len, &path, &path_len) < 0) {
        conn_fail(c, 400, "brock cannot parse the request's target (expected http://HOST/PATH "
                          "or CONNECT HOST:PORT)");
        return;
    }
    /* A request for brock's own address through brock is its own page, never forwarded:
     * forwarding would loop. Names DNS resolves to it are caught when connecting. */
    if (upstream_names_self(c)) {
        if (c->is_connect) {
            conn_fail(c, 403, "brock does not open a tunnel to itself; ask for its pages "
                              "directly");
            return;
        }
        c->local_off = path >= url && path <= url + hh->line_len ? (size_t)(path - url)
                                                                 : hh->line_len;
        conn_answer_local(c);
        return;
    }
    conn_decide(c);
    if (c->d.effect == BROCK_DENY) {
        /* Only a learned block is worth a policy check (section 9), never a user's. */
        if (c->d.action == BROCK_BLOCK)
            dntcheck_blocked(c->px->dnt, c->d.tracker, now_ms(c));
        conn_answer_blocked(c);
        return;
    }
    if (c->is_connect && conn_may_intercept(c)) {
        conn_start_intercept(c);
        return;
    }
    if (c->is_connect) {
        c->px->n_tunnels++;
        conn_set_state(c, CONN_CONNECT);
        upstream_start(c);
        return;
    }
    if (c->observe)
        conn_observe(c, hh, is_beacon(hh) ? BROCK_OBS_BEACON : 0);
    if (c->d.effect == BROCK_STRIP_COOKIES)
        flags |= REWRITE_STRIP_COOKIES;
    if (c->is_upgrade)
        flags |= REWRITE_UPGRADE;
    if (!brock_send_signals(c->px->engine, c->site_known ? c->site : NULL))
        flags |= REWRITE_NO_SIGNALS;
    buf_reset(&c->c_req_out);
    if (rewrite_request(hh->h, hh->n, c->method, c->authority, flags, &c->rw) < 0 ||
        http_write_request(&c->c_req_out, c->method, path, path_len, c->rw.h, c->rw.n) < 0) {
        conn_fail(c, 431, "the request head is too large once rewritten");
        return;
    }
    conn_set_state(c, CONN_CONNECT);
    upstream_start(c);
}

/* ---- the response ---- */

static void conn_response_head(struct conn *c)
{
    struct side *u = &c->c_up;
    http_parser *p = &u->parser;
    int status = p->status_code;
    unsigned flags = 0;
    struct buf head;
    int interim = status / 100 == 1 && status != 101;

    if (interim && (c->client_http10 || status != 100)) {
        /* 1.0 clients know no interim responses; others than 100 are dropped too. */
        side_resume(u);
        return;
    }
    if (!interim) {
        c->status = status;
        if (c->observe)
            conn_observe(c, &u->head, 0);
        if (c->d.effect == BROCK_STRIP_COOKIES)
            flags |= REWRITE_STRIP_COOKIES;
        if (status == 101 && c->is_upgrade) {
            flags |= REWRITE_UPGRADE;
            u->out = FRAME_NONE;
        } else if (c->is_head || status == 204 || status == 304 || (p->flags & F_SKIPBODY)) {
            u->out = FRAME_NONE;
        } else if (p->flags & F_CHUNKED) {
            u->out = c->client_http10 ? FRAME_CLOSE : FRAME_CHUNKED;
            if (c->client_http10)
                flags |= REWRITE_UNCHUNKED;
        } else if (p->content_length != ULLONG_MAX) {
            u->out = FRAME_LENGTH;
        } else if (c->client_http10) {
            u->out = FRAME_CLOSE;
        } else {
            /* Read until close upstream, chunked to the client: its connection lives on. */
            u->out = FRAME_CHUNKED;
            flags |= REWRITE_CHUNKED;
        }
        if (u->out == FRAME_CLOSE || !c->client_keepalive)
            c->must_close = 1;
        if (c->must_close && !(flags & REWRITE_UPGRADE))
            flags |= REWRITE_CLOSE;
        c->resp_final = 1;
    }
    rewrite_response(u->head.h, u->head.n, flags, &c->rw);
    buf_init(&head, LIMIT_HEAD_BYTES + 4096);
    if (http_write_response(&head, status, http_head_text(&u->head), u->head.line_len, c->rw.h,
                            c->rw.n) < 0) {
        buf_cleanup(&head);
        c->resp_final = 0;
        conn_fail(c, 502, "the response head is too large");
        return;
    }
    bufferevent_write(c->c_client.bev, head.data, head.len);
    buf_cleanup(&head);
    if (!interim && c->c_state == CONN_RESP_HEAD)
        conn_set_state(c, CONN_RESP_BODY);
    if (u->out == FRAME_LENGTH && !interim && p->content_length > 0) {
        if (side_start_raw(u, &side_response_settings, p->content_length) < 0)
            conn_fail(c, 502, "the upstream's response head is malformed");
        return;
    }
    side_resume(u);
}

static void conn_log_request(struct conn *c)
{
    if (!log_enabled(LOG_DEBUG))
        return;
    if (c->is_local && !c->host[0]) {
        log_msg(LOG_DEBUG, "%s %s %s %d (brock's own page)", c->c_peer, c->method,
                http_head_text(&c->c_client.head), c->status);
        return;
    }
    log_msg(LOG_DEBUG, "%s %s %s %d %s%s%s", c->c_peer, c->method, c->host, c->status,
            brock_effect_name(c->d.effect), c->site_known ? " on " : "",
            c->site_known ? c->site : "");
}

/* The response is complete: the upstream goes back to the pool, the client may go on. */
static void conn_exchange_done(struct conn *c)
{
    int up_reusable = c->c_up.bev && http_should_keep_alive(&c->c_up.parser) && c->req_done &&
                      c->c_up.out != FRAME_CLOSE && !c->c_up.eof;

    conn_log_request(c);
    conn_drop_upstream(c, up_reusable);
    if (!c->req_done || c->must_close || !c->client_keepalive) {
        conn_flush_close(c, "the exchange is over and the client connection does not persist");
        return;
    }
    side_resume(&c->c_client);
    bufferevent_enable(c->c_client.bev, EV_READ);
    conn_set_state(c, CONN_IDLE);
}

/* Turns the connection into a tunnel: what either side sends goes to the other as it is. */
static void conn_start_tunnel(struct conn *c)
{
    /* An upgrade stopped reading the client until the answer came. */
    bufferevent_enable(c->c_client.bev, EV_READ);
    conn_set_state(c, CONN_TUNNEL);
}

/* Runs the response parser over what the upstream sent. */
static void conn_pump_response(struct conn *c)
{
    struct side *u = &c->c_up;

    while (c->c_state != CONN_CLOSED && c->c_state != CONN_FLUSH && u->bev) {
        enum pump r = u->raw ? side_pump_raw(u, &c->c_client)
                             : side_pump(u, &side_response_settings, &c->c_client);

        if (r == PUMP_PAUSED && u->pause == PAUSE_HEAD) {
            conn_response_head(c);
            continue;
        }
        if (r == PUMP_PAUSED) {
            if (c->status == 101 && c->is_upgrade) {
                /* Upgrade bytes the upstream already sent belong to the tunnel. */
                conn_start_tunnel(c);
                return;
            }
            conn_exchange_done(c);
            return;
        }
        if (r == PUMP_FULL)
            return;
        if (u->raw && u->eof) {
            conn_upstream_cut(c);
            return;
        }
        if (r == PUMP_ERROR) {
            /* Framing refused: the upstream is closed, never pooled (conn_fail drops it). */
            if (u->frame_err)
                conn_fail(c, 502, u->frame_err);
            else if (u->eof && !c->resp_final)
                conn_fail(c, 502, "the upstream closed the connection before a whole response");
            else if (u->eof)
                conn_upstream_cut(c);
            else if (u->head_err)
                conn_fail(c, 502, "the upstream's response head is too large");
            else
                conn_fail(c, 502, http_errno_description(HTTP_PARSER_ERRNO(&u->parser)));
            return;
        }
        if (u->eof) {
            if (!c->resp_final && !c->resp_bytes && c->reused && !c->retried &&
                !c->req_has_body) {
                /* A pooled connection the origin closed meanwhile: once more, fresh. */
                c->retried = 1;
                conn_drop_upstream(c, 0);
                conn_set_state(c, CONN_CONNECT);
                upstream_start(c);
                return;
            }
            if (!c->resp_final)
                conn_fail(c, 502, "the upstream closed the connection without a response");
            else
                conn_upstream_cut(c);
        }
        return;
    }
}

/* ---- state handlers ---- */

/* Forgets the last exchange, so that nothing of it colours an error on the next. */
static void conn_reset_exchange(struct conn *c)
{
    c->method[0] = '\0';
    c->host[0] = '\0';
    c->is_head = c->is_connect = c->is_upgrade = c->is_local = 0;
    c->req_has_body = c->req_done = c->resp_final = c->resp_bytes = c->must_close = 0;
    c->status = 0;
    c->site_known = 0;
    c->observe = 0;
    c->local_wait = 0;
    c->d.effect = BROCK_PASS;
}

static void conn_do_head(struct conn *c)
{
    struct side *s = &c->c_client;
    enum pump r;

    if (evbuffer_get_length(bufferevent_get_input(s->bev)) == 0) {
        /* What is still being written to the client goes out first. */
        if (s->eof && c->c_state == CONN_IDLE)
            conn_flush_close(c, "the client closed its idle connection");
        else if (s->eof)
            conn_client_gone(c);
        return;
    }
    if (c->c_state == CONN_IDLE)
        conn_reset_exchange(c);
    conn_set_state(c, CONN_REQ_HEAD);
    r = side_pump(s, &side_request_settings, NULL);
    if (r == PUMP_PAUSED && s->pause == PAUSE_HEAD) {
        conn_start_request(c);
    } else if (r == PUMP_ERROR) {
        enum http_errno e = HTTP_PARSER_ERRNO(&s->parser);

        if (s->frame_err)
            conn_fail(c, 400, s->frame_err);
        else if (s->head_err || e == HPE_HEADER_OVERFLOW)
            conn_fail(c, 431, "the request head is too large or has too many headers");
        else
            conn_fail(c, 400, http_errno_description(e));
    } else if (r == PUMP_PAUSED) {
        /* A whole message with no head callback cannot happen; treat as garbage. */
        conn_fail(c, 400, "malformed request");
    } else if (s->eof) {
        conn_client_gone(c);
    }
}

static void conn_do_req_body(struct conn *c)
{
    struct side *s = &c->c_client;
    enum pump r;

    if (s->pause == PAUSE_HEAD && s->out == FRAME_LENGTH && !c->is_local) {
        if (side_start_raw(s, &side_request_settings, s->parser.content_length) < 0) {
            conn_fail(c, 400, "the request head is malformed");
            return;
        }
    } else if (s->pause == PAUSE_HEAD) {
        side_resume(s);
    }
    if (s->raw) {
        r = side_pump_raw(s, &c->c_up);
        if (r == PUMP_PAUSED) {
            /* The parser never saw the body: it starts afresh at the next request. */
            http_parser_init(&s->parser, HTTP_REQUEST);
            s->parser.data = c;
            http_parser_pause(&s->parser, 1);
            c->req_done = 1;
        }
    } else {
        r = side_pump(s, &side_request_settings, c->is_local ? NULL : &c->c_up);
    }
    if (r == PUMP_ERROR) {
        conn_fail(c, 400, s->frame_err ? s->frame_err : "the request body is malformed");
        return;
    }
    if (r == PUMP_PAUSED) {
        if (c->is_local && c->local_wait) {
            c->local_wait = 0;
            if (conn_local_write(c, c->client_keepalive) < 0)
                return;
            if (!c->client_keepalive) {
                conn_flush_close(c, "answered locally");
                return;
            }
        }
        if (c->is_local) {
            conn_log_request(c);
            side_resume(s);
            conn_set_state(c, CONN_IDLE);
            return;
        }
        if (c->is_upgrade) {
            /* The rest of the client's bytes wait for the answer to the upgrade. */
            bufferevent_disable(s->bev, EV_READ);
        }
        conn_set_state(c, c->resp_final ? CONN_RESP_BODY : CONN_RESP_HEAD);
    } else if (r == PUMP_MORE && s->eof) {
        conn_client_gone(c);
        return;
    }
    if (!c->is_local)
        conn_pump_response(c);
}

/* A client that shut its sending half still reads: the response goes on. */
static void conn_do_response(struct conn *c)
{
    conn_pump_response(c);
}

static void conn_do_tunnel(struct conn *c)
{
    struct side *a = &c->c_client, *b = &c->c_up;

    if (!b->bev) {
        conn_close(c, "the tunnel lost its upstream");
        return;
    }
    side_move(a, b);
    side_move(b, a);
    if ((a->eof && evbuffer_get_length(bufferevent_get_input(a->bev)) == 0) ||
        (b->eof && evbuffer_get_length(bufferevent_get_input(b->bev)) == 0))
        conn_set_state(c, CONN_FLUSH);
}

/* Writes out what is pending on both sides, then half-closes the client and waits a moment
 * for it to close too, so that unread input does not turn into a reset that destroys the
 * answer on its way. */
static void conn_do_flush(struct conn *c)
{
    struct side *s = &c->c_client;
    struct evbuffer *in;

    if (c->c_up.bev && c->c_up.eof == 0 && side_pending(&c->c_up))
        return;
    if (c->c_up.bev && c->c_up.eof && evbuffer_get_length(bufferevent_get_input(c->c_up.bev)))
        side_move(&c->c_up, s);
    if (side_pending(s))
        return;
    if (c->c_up.bev)
        conn_drop_upstream(c, 0);
    in = bufferevent_get_input(s->bev);
    evbuffer_drain(in, evbuffer_get_length(in));
    if (s->eof) {
        conn_close(c, "done");
        return;
    }
    if (!c->shut_wr) {
        c->shut_wr = 1;
        /* Inside TLS, the end of a body read until close is a close_notify. */
        if (s->io->tls)
            tls_close_notify(s->bev);
        shutdown(bufferevent_getfd(s->bev), SHUT_WR);
        bufferevent_enable(s->bev, EV_READ);
    }
}

static void conn_dispatch(struct conn *c)
{
    enum conn_state before;

    do {
        before = c->c_state;
        switch (c->c_state) {
        case CONN_IDLE:
        case CONN_REQ_HEAD: conn_do_head(c); break;
        case CONN_CONNECT: break;
        case CONN_REQ_BODY: conn_do_req_body(c); break;
        case CONN_RESP_HEAD:
        case CONN_RESP_BODY: conn_do_response(c); break;
        case CONN_TUNNEL: conn_do_tunnel(c); break;
        case CONN_FLUSH: conn_do_flush(c); break;
        case CONN_CLOSED: break;
        }
    } while (c->c_state != before && c->c_state != CONN_CLOSED);
}

/* Advances the state machine as far as it goes, then writes what it produced; room made by
 * writing lets it advance again. */
static void conn_run(struct conn *c)
{
    for (int round = 0; round < 8 && c->c_state != CONN_CLOSED; round++) {
        int a, b;

        conn_dispatch(c);
        if (c->c_state == CONN_CLOSED)
            return;
        a = side_flush(&c->c_client);
        if (a < 0) {
            conn_close(c, "writing to the client failed");
            return;
        }
        b = side_flush(&c->c_up);
        if (b < 0) {
            /* Seen as the upstream closing: the state handlers know what that means. */
            c->c_up.eof = 1;
            b = 1;
        }
        if (!a && !b)
            return;
    }
}

/* ---- events ---- */

static void on_client_read(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    (void)bev;
    side_fill(&c->c_client);
    conn_touch(c);
    conn_run(c);
}

static void on_client_write(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    side_write_drained(bev, &c->c_client);
    conn_run(c);
}

static void on_client_event(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;

    if (what & BEV_EVENT_ERROR) {
        char why[BROCK_HOST_MAX + 256];

        /* A client that does not trust brock's CA ends here: say so once. */
        if (c->intercepted && tls_error_describe(bev, c->tunnel_host, why, sizeof(why))) {
            conn_log_failure(c, LOG_INFO, 0, why);
            conn_close(c, NULL);
            return;
        }
        /* A reset: as a close, news only in the middle of a request. */
        if (conn_mid_request(c)) {
            conn_client_gone(c);
            return;
        }
        conn_close(c, "client connection error");
        return;
    }
    if (what & BEV_EVENT_EOF) {
        /* A close without close_notify arrives here too (intercept.c): browsers end connections
         * that way all the time, and where it happened says whether anything was lost. */
        if (c->intercepted && !tls_handshake_done(bev)) {
            conn_log_failure(c, LOG_INFO, 0,
                             "the client closed the connection during the TLS handshake");
            conn_close(c, NULL);
            return;
        }
        c->c_client.eof = 1;
        conn_run(c);
    }
}

void conn_on_up_read(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    (void)bev;
    c->resp_bytes = 1;
    side_fill(&c->c_up);
    conn_touch(c);
    conn_run(c);
}

void conn_on_up_write(struct bufferevent *bev, void *arg)
{
    struct conn *c = arg;

    side_write_drained(bev, &c->c_up);
    conn_run(c);
}

void conn_on_up_event(struct bufferevent *bev, short what, void *arg)
{
    struct conn *c = arg;

    (void)bev;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        c->c_up.eof = 1;
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
        upstream_cancel(c);
        snprintf(text, sizeof(text), "brock could not connect to %s: timed out after %d s",
                 c->host, c->px->t_connect);
        conn_fail(c, 504, text);
        break;
    case CONN_REQ_BODY: conn_fail(c, 408, "the request body stalled"); break;
    case CONN_RESP_HEAD:
        snprintf(text, sizeof(text), "%s did not answer within %d s", c->host,
                 c->px->t_response);
        conn_fail(c, 504, text);
        break;
    case CONN_RESP_BODY:
        snprintf(text, sizeof(text), "the response stalled: nothing moved for %d s",
                 TIMEOUT_BODY);
        conn_log_failure(c, LOG_INFO, 0, text);
        conn_close(c, NULL);
        break;
    case CONN_TUNNEL: conn_close(c, "the tunnel was idle too long"); break;
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
    bufferevent_setwatermark(u->bev, EV_READ, 0, LIMIT_PENDING_BYTES);
    u->raw = 0;
    side_start_events(u);
    u->eof = u->eof_fed = 0;
    c->resp_bytes = 0;
    u->pause = PAUSE_NONE;
    u->head_err = 0;
    u->frame_err = NULL;
    side_framing_reset(u);
    if (c->is_connect) {
        evbuffer_add_printf(bufferevent_get_output(c->c_client.bev),
                            "HTTP/1.1 200 Connection established\r\nVia: %s\r\n\r\n", REWRITE_VIA);
        c->status = 200;
        c->resp_final = 1;
        conn_log_request(c);
        /* Bytes after the CONNECT head: the parser stopped before its last line feed. */
        side_resume(&c->c_client);
        (void)side_pump(&c->c_client, &side_request_settings, NULL);
        conn_start_tunnel(c);
        conn_run(c);
        return;
    }
    http_parser_init(&u->parser, HTTP_RESPONSE);
    u->parser.data = c;
    bufferevent_write(u->bev, c->c_req_out.data, c->c_req_out.len);
    conn_set_state(c, CONN_REQ_BODY);
    conn_run(c);
}

void conn_upstream_failed(struct conn *c, int status, const char *why)
{
    conn_fail(c, status, why);
    conn_run(c);
}

/* ---- lifetime ---- */

struct conn *conn_new(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa)
{
    struct conn *c = mem_calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    c->px = px;
    c->id = ++px->next_id;
    c->c_state = CONN_IDLE;
    http_head_init(&c->c_client.head);
    http_head_init(&c->c_up.head);
    buf_init(&c->c_req_out, LIMIT_HEAD_BYTES + 4096);
    buf_init(&c->c_body, LIMIT_DASH_BODY);
    rewrite_out_init(&c->rw);
    http_parser_init(&c->c_client.parser, HTTP_REQUEST);
    c->c_client.parser.data = c;
    if (sa->sa_family == AF_INET6)
        evutil_inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, c->c_peer,
                         sizeof(c->c_peer));
    else
        evutil_inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, c->c_peer,
                         sizeof(c->c_peer));
    c->c_timer = evtimer_new(px->base, on_timeout, c);
    c->c_client.io = &io_tcp;
    c->c_client.bev = c->c_timer ? io_tcp.open(px->base, fd, NULL) : NULL;
    if (!c->c_client.bev) {
        if (c->c_timer)
            event_free(c->c_timer);
        evutil_closesocket(fd);
        http_head_cleanup(&c->c_client.head);
        http_head_cleanup(&c->c_up.head);
        mem_free(c);
        return NULL;
    }
    bufferevent_setcb(c->c_client.bev, on_client_read, on_client_write, on_client_event, c);
    bufferevent_setwatermark(c->c_client.bev, EV_READ, 0, LIMIT_PENDING_BYTES);
    side_start_events(&c->c_client);
    c->next = px->conns;
    if (px->conns)
        px->conns->prev = c;
    px->conns = c;
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
    conn_set_state(c, CONN_CLOSED);
    evtimer_del(c->c_timer);
    conn_drop_upstream(c, 0);
    if (c->c_client.bev) {
        bufferevent_free(c->c_client.bev);
        c->c_client.bev = NULL;
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        px->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    px->n_conns--;
    c->prev = NULL;
    c->next = px->closing;
    px->closing = c;
    event_active(px->reaper, EV_TIMEOUT, 0);
}

void conn_free(struct conn *c)
{
    if (!c)
        return;
    if (c->c_timer)
        event_free(c->c_timer);
    http_head_cleanup(&c->c_client.head);
    http_head_cleanup(&c->c_up.head);
    buf_cleanup(&c->c_req_out);
    buf_cleanup(&c->c_body);
    rewrite_out_cleanup(&c->rw);
    mem_free(c);
}
