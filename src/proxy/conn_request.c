/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A connection's requests: each head read and routed (brock's own pages, a tunnel, blocked, or
 * upstream rewritten), and its body streamed after it. */
#include "proxy/conn.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>

#include "jobs/dntcheck.h"
#include "proxy/conn_internal.h"
#include "proxy/limits.h"

/* The target: the host, port and path of an absolute-form URL (http:// or https://), a
 * CONNECT authority, or an origin-form path inside an intercepted tunnel. */
static int conn_parse_target(struct conn *c, const char *url, size_t len, const char **path,
                             size_t *path_len)
{
    struct exchange *x = &c->c_ex;
    struct exchange_names *nm = x->names;
    struct http_target t;

    x->is_https = 0;
    if ((c->intercepted || c->tunnel_plain) && !x->is_connect && url[0] == '/') {
        /* Inside an intercepted tunnel: origin form, for the host the tunnel was opened to;
         * over plain HTTP inside a SOCKS client's; for its Host header's host on a plain
         * connection redirected to brock. */
        x->is_https = c->intercepted;
        if (c->tunnel_plain && c->way == CONN_WAY_TRANSPARENT)
            conn_transparent_host(c, nm->host);
        else
            snprintf(nm->host, sizeof(nm->host), "%s", c->tunnel_host);
        x->port = c->tunnel_port;
        *path = url;
        *path_len = len;
        http_authority(nm->host, x->port, x->is_https ? 443 : 80, nm->authority,
                       sizeof(nm->authority));
        return 0;
    }
    if (http_parse_target(url, len, x->is_connect, &t) < 0)
        return -1;
    x->is_https = t.is_https;
    _Static_assert(sizeof(nm->host) == sizeof(t.host) &&
                       sizeof(nm->authority) == sizeof(t.authority),
                   "a target's names fit an exchange's");
    memcpy(nm->host, t.host, sizeof(nm->host));
    x->port = t.port;
    memcpy(nm->authority, t.authority, sizeof(nm->authority));
    if (!x->is_connect) {
        *path = t.path;
        *path_len = t.path_len;
    }
    return 0;
}

/* What the head says of the request, into the exchange. */
static void conn_read_head(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    const http_parser *p = &c->c_client.parser;
    const char *method = http_method_str((enum http_method)p->method);
    size_t mlen = strnlen(method, sizeof(x->method) - 1);

    memcpy(x->method, method, mlen);
    x->method[mlen] = '\0';
    x->is_head = p->method == HTTP_HEAD;
    x->is_connect = p->method == HTTP_CONNECT;
    x->is_upgrade = p->upgrade && !x->is_connect;
    x->client_keepalive = http_should_keep_alive(p);
    x->client_http10 = p->http_major == 1 && p->http_minor == 0;
    x->req_has_body =
        (p->flags & F_CHUNKED) || (p->content_length > 0 && p->content_length != ULLONG_MAX);
    x->req_frame = (p->flags & F_CHUNKED) ? FRAME_CHUNKED
                   : x->req_has_body      ? FRAME_LENGTH
                                          : FRAME_NONE;
    x->up_doubtful = c->c_client.doubtful;
}

/* A chunked body whose bytes came with its head is checked before anything goes upstream,
 * so that a bad chunk there is answered 400 with nothing sent. Bytes that come later are
 * checked as they stream: at a bad one the rest is never sent and the upstream is closed. */
static int conn_body_refused(struct conn *c)
{
    const char *why;

    if (c->c_ex.req_frame != FRAME_CHUNKED || pump_check_ahead(&c->c_client, &why) == 0)
        return 0;
    conn_fail(c, 400, why);
    return 1;
}

/* The request goes upstream: learnt from, rewritten, and sent once connected. */
static void conn_forward(struct conn *c, const char *path, size_t path_len)
{
    struct exchange *x = &c->c_ex;
    const struct http_head *hh = &c->c_client.head;
    unsigned flags = 0;
    char client[64];

    if (conn_body_refused(c))
        return;
    if (x->learn)
        conn_learn(c, hh, 1);
    if (conn_effect(x) == BROCK_STRIP_COOKIES)
        flags |= REWRITE_STRIP_COOKIES;
    if (x->is_upgrade)
        flags |= REWRITE_UPGRADE;
    /* The origin must not read what may follow as another request (RFC 9112 9.6). */
    if (x->up_doubtful)
        flags |= REWRITE_CLOSE;
    if (!brock_client_send_signals(c->px->engine, conn_client_key(c, client),
                                   x->site_known ? x->site : NULL))
        flags |= REWRITE_NO_SIGNALS;
    buf_reset(&c->c_req_out);
    if (rewrite_request(hh->h, hh->n, x->method, x->authority, flags, &c->px->rw) < 0) {
        conn_fail(c, 431, "the request head is too large once rewritten");
        return;
    }
    side_rewrite_framing(&c->c_client, &c->px->rw);
    if (http_write_request(&c->c_req_out, x->method, path, path_len, c->px->rw.h, c->px->rw.n) <
        0) {
        conn_fail(c, 431, "the request head is too large once rewritten");
        return;
    }
    conn_set_state(c, CONN_CONNECT);
    upstream_start(c);
}

/* A CONNECT brock will not open, refused: returns 1, else 0. */
static int conn_refuse_tunnel(struct conn *c)
{
    /* TLS to brock's own port carries its pages, and requests to forward, but no tunnel:
     * its bytes would have to be TLS inside TLS. */
    if (c->pages_tls) {
        conn_fail(c, 403,
                  "brock opens no tunnel inside TLS to itself: use it as an HTTP proxy "
                  "(http://, not https://)");
        return 1;
    }
    /* A connection brock was given (SOCKS, redirected) goes where it was going: no tunnel
     * opens inside it. */
    if (c->tunnel_plain) {
        conn_fail(c, 405,
                  "brock opens no tunnel inside a connection it was given (SOCKS or "
                  "redirected)");
        return 1;
    }
    return 0;
}

/* What brock answers or takes over before any decision: a page of its own, a target it cannot
 * parse, a request for its own address, a report of its script, a tunnel it intercepts.
 * Returns 1 when the request was taken so, else 0 with the target's path in *path. */
static int conn_take_undecided(struct conn *c, const char **path, size_t *path_len)
{
    struct exchange *x = &c->c_ex;
    const struct http_head *hh = &c->c_client.head;
    const char *url = http_head_text(hh);
    int kind;

    if (url[0] == '/' && !x->is_connect && !c->intercepted && !c->tunnel_plain) {
        conn_answer_local(c);
        return 1;
    }
    if (x->is_connect && conn_refuse_tunnel(c))
        return 1;
    if (conn_parse_target(c, url, hh->line_len, path, path_len) < 0) {
        conn_fail(c, 400,
                  "brock cannot parse the request's target (expected http://HOST/PATH "
                  "or CONNECT HOST:PORT)");
        return 1;
    }
    /* A request for brock's own address through brock is its own page, never forwarded:
     * forwarding would loop. Names DNS resolves to it are caught when connecting. */
    if (upstream_names_self(c)) {
        if (x->is_connect) {
            conn_fail(c, 403,
                      "brock does not open a tunnel to itself; ask for its pages "
                      "directly");
            return 1;
        }
        x->local_off =
            *path >= url && *path <= url + hh->line_len ? (size_t)(*path - url) : hh->line_len;
        conn_answer_local(c);
        return 1;
    }
    /* A report of brock's script in a page goes to the page's own origin, on a path no site
     * has: brock answers it, whatever the host's action, and it never reaches the origin. */
    if ((kind = c->px->hooks->channel_kind(c, *path, *path_len)) != 0) {
        c->px->hooks->channel_answer(c, kind);
        return 1;
    }
    /* An intercepted tunnel is opened to any host: each request inside is decided on its own
     * first party, so that a blocked host's own site loads as Privacy Badger lets it load. */
    if (x->is_connect && conn_may_intercept(c)) {
        conn_start_intercept(c);
        return 1;
    }
    return 0;
}

/* The request decided: blocked, a tunnel opened, sent to its clean URL, or sent upstream
 * (cleaned). */
static void conn_follow_decision(struct conn *c, const char *path, size_t path_len)
{
    struct exchange *x = &c->c_ex;
    char clean[BROCK_URL_MAX];

    /* A wrapper is opened even when it is blocked: the person asked for the address inside. */
    if (conn_clean(c, &path, &path_len, clean, sizeof(clean)) == CONN_CLEAN_REDIRECT) {
        conn_answer_redirect(c, clean);
    } else if (x->d->effect == BROCK_DENY) {
        /* Only a learned block is worth a policy check (section 9), never a user's. */
        if (x->d->action == BROCK_BLOCK)
            dntcheck_blocked(c->px->dnt, x->d->tracker, conn_now_ms(c));
        c->px->hooks->blocked(c);
    } else if (x->is_connect) {
        c->px->n_tunnels++;
        conn_set_state(c, CONN_CONNECT);
        upstream_start(c);
    } else {
        conn_forward(c, path, path_len);
    }
}

/* The request decided, and what follows of it. */
static void conn_decide_follow(struct conn *c, const char *path, size_t path_len)
{
    if (conn_decide(c, path, path_len) < 0) {
        conn_fail(c, 503, "brock ran out of memory for the request");
        return;
    }
    conn_follow_decision(c, path, path_len);
}

/* DNS answered for the request's host (or failed: the dial says so): its CNAME chain is the
 * engine's, and the request is decided with it. */
static void conn_on_resolved(void *arg, const struct dns_answer *a)
{
    struct conn *c = arg;

    c->dns_q = NULL;
    c->resolving = 0;
    upstream_chain_tell(c, c->c_ex.host, a);
    conn_decide_follow(c, c->c_ex.names->path, c->c_ex.names->path_len);
    conn_run(c);
}

/* The head is in: a local page, a tunnel, blocked, or a request to send upstream. */
static void conn_start_request(struct conn *c)
{
    const char *path = NULL;
    size_t path_len = 0;
    uint64_t declared = c->c_client.parser.content_length;

    c->px->n_requests++;
    conn_read_head(c);
    if (declared != ULLONG_MAX && declared > LIMIT_REQUEST_BODY) {
        conn_fail(c, 413, "the request body is larger than brock accepts");
        return;
    }
    if (conn_take_undecided(c, &path, &path_len))
        return;
    /* A host DNS may show to be an alias of a tracker's name is looked up first: the dial
     * then takes the answer from the cache. */
    c->c_ex.names->path = path;
    c->c_ex.names->path_len = path_len;
    if (upstream_resolve_first(c, conn_on_resolved)) {
        conn_set_state(c, CONN_CONNECT);
        return;
    }
    conn_decide_follow(c, path, path_len);
}

/* The client's bytes are not a request brock can read. */
static void conn_bad_request(struct conn *c, const struct side_event *ev)
{
    if (ev->error == SIDE_ERR_HEAD ||
        (ev->error == SIDE_ERR_PARSE &&
         HTTP_PARSER_ERRNO(&c->c_client.parser) == HPE_HEADER_OVERFLOW))
        conn_fail(c, 431, "the request head is too large or has too many headers");
    else
        conn_fail(c, 400, ev->reason);
}

void conn_do_head(struct conn *c)
{
    struct side *s = &c->c_client;
    struct side_event ev;
    enum pump r;

    if (evbuffer_get_length(bufferevent_get_input(s->bev)) == 0) {
        /* What is still being written to the client goes out first. */
        if (s->eof && c->c_state == CONN_IDLE)
            conn_flush_close(c, "the client closed its idle connection");
        else if (s->eof)
            conn_client_gone(c);
        return;
    }
    /* TLS on brock's own port (a handshake record, 0x16, where a method would be): its pages
     * over HTTPS. */
    if (c->c_state == CONN_IDLE && !c->pages_tls && !c->intercepted && s->io == &io_tcp &&
        evbuffer_get_length(bufferevent_get_input(s->bev)) > 0 &&
        *evbuffer_pullup(bufferevent_get_input(s->bev), 1) == 0x16) {
        conn_start_pages_tls(c);
        return;
    }
    /* The first byte of a request: nothing of the last exchange is left to colour it. */
    if (c->c_state == CONN_IDLE && conn_exchange_reset(c) < 0) {
        conn_set_state(c, CONN_REQ_HEAD);
        conn_fail(c, 503, "out of memory starting a request");
        return;
    }
    conn_set_state(c, CONN_REQ_HEAD);
    r = pump_read(s, NULL, FRAME_NONE, &ev);
    if (r == PUMP_EVENT && ev.type == SIDE_HEAD)
        conn_start_request(c);
    else if (r == PUMP_EVENT && ev.type == SIDE_ERROR)
        conn_bad_request(c, &ev);
    else if (r == PUMP_EVENT)
        conn_fail(c, 400, "malformed request"); /* no head first: cannot happen */
    else if (s->eof)
        conn_client_gone(c);
}

void conn_do_req_body(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    struct side *s = &c->c_client;
    struct side_event ev;
    enum pump r;

    /* A request brock answered itself has its body read: kept for the dashboard, or dropped. */
    while ((r = pump_read(s, x->is_local ? NULL : &c->c_up, x->req_frame, &ev)) == PUMP_EVENT &&
           ev.type == SIDE_BODY)
        if (conn_local_body(c, &ev) < 0)
            return;
    if (r == PUMP_NOMEM) {
        conn_out_of_memory(c, "forwarding the request body");
        return;
    }
    if (r == PUMP_EVENT && ev.type == SIDE_ERROR) {
        conn_fail(c, 400,
                  ev.error == SIDE_ERR_FRAMING ? ev.reason : "the request body is malformed");
        return;
    }
    if (r == PUMP_EVENT) {
        x->req_done = 1;
        if (x->is_local) {
            conn_local_done(c);
            return;
        }
        /* The rest of the client's bytes wait for the answer to an upgrade. */
        if (x->is_upgrade && pump_reading(s, 0) < 0) {
            conn_out_of_memory(c, "pausing the client for an upgrade");
            return;
        }
        conn_set_state(c, x->resp_final ? CONN_RESP_BODY : CONN_RESP_HEAD);
    } else if (r == PUMP_MORE && s->eof) {
        conn_client_gone(c);
        return;
    }
    /* The upstream may answer before the request is through. */
    if (!x->is_local)
        conn_do_response(c);
}

void conn_send_request(struct conn *c)
{
    /* What came while connecting is checked too. */
    if (conn_body_refused(c)) {
        conn_run(c);
        return;
    }
    if (pump_write(&c->c_up, c->c_req_out.data, c->c_req_out.len) < 0) {
        conn_out_of_memory(c, "sending the request head");
        return;
    }
    conn_set_state(c, CONN_REQ_BODY);
    conn_run(c);
}
