/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The answers brock writes itself rather than fetching: its errors, a blocked request's 403,
 * and the dashboard's pages for requests made to brock's own address. */
#include "proxy/conn.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dash/dash.h"
#include "process/clientnames.h"
#include "proxy/blocked.h"
#include "proxy/conn_features.h"
#include "proxy/conn_internal.h"
#include "proxy/limits.h"
#include "proxy/offtime.h"
#include "proxy/proxy.h"
#include "util/file.h"

int conn_reply(struct conn *c, int status, const char *text, int keep)
{
    struct exchange *x = &c->c_ex;
    size_t len = strlen(text);

    conn_status(c, status, LIVELOG_ANSWER_BROCK);
    /* One write: all of it or nothing. */
    if (pump_printf(&c->c_client,
                    "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    "Content-Length: %zu\r\nCache-Control: no-store\r\n%s\r\n%s%s",
                    status, http_reason(status), x->is_head ? 0 : len + 1,
                    keep ? "" : "Connection: close\r\n", x->is_head ? "" : text,
                    x->is_head ? "" : "\n") < 0) {
        conn_out_of_memory(c, "writing an answer of brock's own");
        return -1;
    }
    return 0;
}

/* A typed answer (blocked.c): a script's empty body or surrogate, an image's 204. */
static int conn_answer_typed(struct conn *c, const struct blocked_answer *a, int keep)
{
    struct exchange *x = &c->c_ex;
    struct buf out;
    int r;

    conn_status(c, a->status, LIVELOG_ANSWER_BROCK);
    /* One write: all of it or nothing. */
    buf_init(&out, a->body_len + 512);
    r = blocked_write(&out, a, x->is_head, keep);
    if (r == 0)
        r = pump_write(&c->c_client, out.data, out.len);
    buf_cleanup(&out);
    if (r < 0)
        conn_out_of_memory(c, "answering a blocked request");
    return r;
}

/* Writes a blocked request's answer; keep: the connection stays open after it. Returns -1
 * when the connection failed instead. */
static int conn_blocked_write(struct conn *c, int keep)
{
    struct exchange *x = &c->c_ex;
    struct blocked_answer a;
    char why[512], text[BROCK_HOST_MAX + 600];

    blocked_answer(x->d, &a);
    if (a.body)
        return conn_answer_typed(c, &a, keep);
    brock_decision_explain(c->px->engine, x->d, why, sizeof(why));
    snprintf(text, sizeof(text), "brock blocked this request to %s. %s", x->host, why);
    return conn_reply(c, 403, text, keep);
}

/* Whether a blocked request's body is read and dropped so that its connection stays open (a
 * beacon's POST among a page's requests): one the client keeps open and sends without
 * waiting for brock (no Expect), declared no longer than LIMIT_BLOCKED_BODY, or chunked,
 * counted as it comes. Any other is answered at once and its connection closed. */
static int conn_blocked_drains(const struct conn *c)
{
    const struct exchange *x = &c->c_ex;

    if (!x->req_has_body || x->is_connect || !x->client_keepalive ||
        conn_header(&c->c_client.head, "expect"))
        return 0;
    return x->req_frame == FRAME_CHUNKED || c->c_client.parser.content_length <= LIMIT_BLOCKED_BODY;
}

void conn_answer_blocked(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    int keep = !x->is_connect && !x->req_has_body && x->client_keepalive;

    x->is_local = 1;
    if (conn_blocked_drains(c)) {
        /* Answered once the body is in (conn_local_done): a chunked one may still pass the
         * limit, and then the answer says the connection closes. */
        x->body_to = LOCAL_BODY_DROP;
        x->body_room = LIMIT_BLOCKED_BODY;
        conn_set_state(c, CONN_REQ_BODY);
        return;
    }
    if (conn_blocked_write(c, keep) < 0)
        return;
    if (keep)
        conn_set_state(c, CONN_REQ_BODY);
    else
        conn_flush_close(c, "blocked");
}

void conn_answer_redirect(struct conn *c, const char *url)
{
    struct exchange *x = &c->c_ex;
    int keep = !x->req_has_body && x->client_keepalive;

    x->is_local = 1;
    conn_status(c, 302, LIVELOG_ANSWER_BROCK);
    /* One write: all of it or nothing. */
    if (pump_printf(&c->c_client,
                    "HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n"
                    "Cache-Control: no-store\r\n%s\r\n",
                    url, keep ? "" : "Connection: close\r\n") < 0) {
        conn_out_of_memory(c, "writing a redirect to a clean URL");
        return;
    }
    if (keep)
        conn_set_state(c, CONN_REQ_BODY);
    else
        conn_flush_close(c, "redirected to a clean URL");
}

void conn_spool_close(struct exchange *x)
{
    if (x->body_to != LOCAL_BODY_FILE)
        return;
    close(x->spool_fd);
    x->body_to = LOCAL_BODY_KEEP;
    x->spool_fd = -1;
}

/* Whether the client of c, which reached brock at local, is this machine (--local): by
 * default a loopback address, or the very address it reached (the kernel gives a connection
 * from this machine to one of its own addresses that address as its source). */
static int conn_client_local(const struct conn *c, const struct sockaddr_storage *local)
{
    const struct proxy_options *o = c->px->live;
    struct sockaddr_storage peer, here;
    struct access_list l = {NULL, 0};
    char err[256];
    int len, yes = 0;

    if (!resolve_literal(c->c_peer, 0, &peer, &len))
        return 0;
    if (o->n_local) {
        for (size_t i = 0; i < o->n_local; i++) {
            /* Checked at start and on SIGHUP: out of memory alone fails here, and then the
             * client signs in. */
            if (strcmp(o->local[i], "none") != 0 &&
                access_add_for(&l, "--local", o->local[i], err, sizeof(err)) < 0)
                break;
        }
        yes = access_allows(&l, (const struct sockaddr *)&peer);
        access_cleanup(&l);
        return yes;
    }
    if (access_is_loopback((const struct sockaddr *)&peer))
        return 1;
    if (!local)
        return 0;
    here = *local;
    /* Ports aside. */
    if (here.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&here)->sin6_port = 0;
    else
        ((struct sockaddr_in *)&here)->sin_port = 0;
    return access_same_endpoint((const struct sockaddr *)&peer, (const struct sockaddr *)&here);
}

/* The name the owner gave c's client (--client), into out; "" when none. */
static void conn_client_name(const struct conn *c, char *out, size_t size)
{
    struct sockaddr_storage peer;
    int len;

    out[0] = '\0';
    if (c->px->live->n_clients && resolve_literal(c->c_peer, 0, &peer, &len))
        clientnames_find(c->px->live->clients, c->px->live->n_clients,
                         (const struct sockaddr *)&peer, out, size);
}

const char *conn_client_key(const struct conn *c, char buf[64])
{
    struct admit_client *cl =
        c->a_client ? c->a_client : strmap_get(&c->px->admit.clients, c->c_peer);
    struct sockaddr_storage local;
    socklen_t len = sizeof(local);
    struct bufferevent *bev = c->c_client.bev;
    char name[CLIENTNAMES_NAME_MAX + 1];
    int here;

    if (cl && cl->keyed)
        return cl->key;
    if (bev && getsockname(bufferevent_getfd(bev), (struct sockaddr *)&local, &len) == 0)
        here = conn_client_local(c, &local);
    else
        here = conn_client_local(c, NULL);
    conn_client_name(c, name, sizeof(name));
    if (cl)
        buf = cl->key;
    snprintf(buf, 64, "%s", here ? "" : name[0] ? name : c->c_peer);
    if (cl)
        cl->keyed = 1;
    return buf;
}

/* The request in origin form as the dashboard reads it: its head, and the body its head
 * declares; the body itself is the caller's to add. local_host receives the address the client
 * reached (on a wildcard listen, the dashboard's own address is that one), name the client's
 * name (--client). */
static void conn_local_request(struct conn *c, struct dash_request *rq,
                               char local_host[INET6_ADDRSTRLEN + 2],
                               char name[CLIENTNAMES_NAME_MAX + 1], int keep)
{
    const struct exchange *x = &c->c_ex;
    const struct http_head *hh = &c->c_client.head;
    struct sockaddr_storage local;
    socklen_t local_len = sizeof(local);

    memset(rq, 0, sizeof(*rq));
    rq->method = x->method;
    rq->target = http_head_text(hh) + x->local_off;
    rq->target_len = hh->line_len - x->local_off;
    rq->h = hh->h;
    rq->n = hh->n;
    rq->body_declared = !x->req_has_body                ? 0
                        : x->req_frame == FRAME_CHUNKED ? DASH_BODY_UNKNOWN
                                                        : c->c_client.parser.content_length;
    rq->body = "";
    rq->body_fd = -1;
    rq->keep_alive = keep;
    rq->client = c->c_peer;
    rq->tls = c->pages_tls;
    conn_client_name(c, name, CLIENTNAMES_NAME_MAX + 1);
    rq->client_name = name;
    if (getsockname(bufferevent_getfd(c->c_client.bev), (struct sockaddr *)&local, &local_len) ==
        0) {
        access_host_text((const struct sockaddr *)&local, local_host, INET6_ADDRSTRLEN + 2);
        rq->local_host = local_host;
        rq->client_local = conn_client_local(c, &local);
    } else {
        rq->client_local = conn_client_local(c, NULL);
    }
    if (rq->target_len == 0) {
        rq->target = "/";
        rq->target_len = 1;
    }
}

/* Writes a whole answer of the dashboard's (out) to the client, and frees out. Returns 0, or
 * -1 when the connection failed instead. */
static int conn_local_send(struct conn *c, struct buf *out)
{
    int r = pump_write(&c->c_client, out->data, out->len);

    buf_cleanup(out);
    if (r < 0)
        conn_out_of_memory(c, "writing the dashboard's answer");
    return r;
}

/* Writes the dashboard's answer to the request in origin form, its body read. Returns 1 when
 * it is the head of a live log stream (c now streams), -1 when the connection failed
 * instead. */
static int conn_local_write(struct conn *c, int keep)
{
    struct exchange *x = &c->c_ex;
    struct dash_request rq;
    char local_host[INET6_ADDRSTRLEN + 2], name[CLIENTNAMES_NAME_MAX + 1];
    struct dash_stream st = {.stream_ok = conn_stream_room(c) && !x->req_has_body};
    struct buf out;
    int status;

    conn_local_request(c, &rq, local_host, name, keep);
    rq.body = c->c_body.data ? c->c_body.data : "";
    rq.body_len = c->c_body.len;
    rq.body_too_big = x->body_too_big;
    rq.stream = &st;
    if (x->body_to == LOCAL_BODY_FILE && !x->body_too_big) {
        if (lseek(x->spool_fd, 0, SEEK_SET) != 0) {
            conn_spool_close(x);
            conn_fail(c, 500, "brock cannot read back the uploaded file");
            return -1;
        }
        rq.body_fd = x->spool_fd;
    }
    buf_init(&out, DASH_LIMIT_RESPONSE);
    status = dash_respond(c->px->dash, &rq, &out);
    conn_spool_close(x);
    /* A pause or a site's time off set on the dashboard is timed from now. */
    offtime_arm(c->px);
    if (status < 0) {
        buf_cleanup(&out);
        conn_fail(c, 500, "brock ran out of memory for its dashboard");
        return -1;
    }
    x->status = status;
    if (conn_local_send(c, &out) < 0)
        return -1;
    buf_reset(&c->c_body);
    if (st.stream) {
        conn_stream_start(c, st.stream_next, st.own);
        return 1;
    }
    return 0;
}

void conn_await_local_body(struct conn *c)
{
    const char *expect = conn_header(&c->c_client.head, "expect");

    c->c_ex.local_wait = 1;
    if (expect && !strcasecmp(expect, "100-continue") && !c->c_ex.client_http10 &&
        pump_printf(&c->c_client, "HTTP/1.1 100 Continue\r\n\r\n") < 0) {
        conn_out_of_memory(c, "writing 100 Continue");
        return;
    }
    conn_set_state(c, CONN_REQ_BODY);
}

/* The temporary file an import's body streams to: in the state folder, else in $TMPDIR or
 * /tmp. Returns 0, or -1 when the connection failed instead (said why). */
static int conn_spool_open(struct conn *c)
{
    const char *dir = c->px->opts->state_dir;
    char why[256];
    int fd;

    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    fd = file_tmp_open(dir && *dir ? dir : "/tmp");
    if (fd < 0) {
        snprintf(why, sizeof(why), "brock cannot make a file for the upload: %s", strerror(-fd));
        conn_fail(c, 500, why);
        return -1;
    }
    c->c_ex.body_to = LOCAL_BODY_FILE;
    c->c_ex.spool_fd = fd;
    return 0;
}

/* A request for brock itself: the dashboard's door checks it from its head. A refusal is
 * answered at once and its body, if any, never read: the connection closes after it. A request
 * let through with a body is answered once that is in, read into memory or (an import) into a
 * temporary file, up to what its route takes. */
void conn_answer_local(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    int keep = x->client_keepalive && !x->req_has_body;
    char local_host[INET6_ADDRSTRLEN + 2], name[CLIENTNAMES_NAME_MAX + 1];
    struct dash_request rq;
    struct dash_body body;
    struct buf out;
    int status;

    x->is_local = 1;
    x->body_too_big = 0;
    buf_reset(&c->c_body);
    conn_local_request(c, &rq, local_host, name, keep);
    buf_init(&out, DASH_LIMIT_RESPONSE);
    status = dash_admit(c->px->dash, &rq, &body, &out);
    if (status < 0) {
        buf_cleanup(&out);
        conn_fail(c, 500, "brock ran out of memory for its dashboard");
        return;
    }
    if (status > 0) {
        x->status = status;
        if (conn_local_send(c, &out) < 0)
            return;
        if (keep)
            conn_set_state(c, CONN_REQ_BODY);
        else
            conn_flush_close(c, "refused by the dashboard, its body unread");
        return;
    }
    buf_cleanup(&out);
    if (x->req_has_body) {
        x->body_room = body.max;
        if (body.to_file && conn_spool_open(c) < 0)
            return;
        conn_await_local_body(c);
        return;
    }
    if (conn_local_write(c, keep) != 0)
        return;
    if (keep)
        conn_set_state(c, CONN_REQ_BODY);
    else
        conn_flush_close(c, "answered locally");
}

int conn_local_body(struct conn *c, const struct side_event *ev)
{
    struct exchange *x = &c->c_ex;
    char why[256];
    int err;

    if (x->body_to == LOCAL_BODY_DROP) {
        if (ev->len <= x->body_room) {
            x->body_room -= ev->len;
            return 0;
        }
        /* Past the limit the rest is not read: answered now, and closed. */
        x->body_to = LOCAL_BODY_KEEP;
        if (conn_blocked_write(c, 0) == 0)
            conn_flush_close(c, "blocked; its body passed the limit brock reads");
        return -1;
    }
    if (x->report)
        return x->local_wait ? conn_report_body(c, ev) : 0;
    if (!x->local_wait)
        return 0;
    if (ev->len > x->body_room) {
        /* A body whose head did not say how long (chunked) passed what its route takes:
         * answered now (413), the rest never read. */
        x->local_wait = 0;
        x->body_too_big = 1;
        conn_spool_close(x);
        buf_reset(&c->c_body);
        if (conn_local_write(c, 0) == 0)
            conn_flush_close(c, "refused a body larger than its route takes");
        return -1;
    }
    x->body_room -= ev->len;
    if (x->body_to == LOCAL_BODY_FILE) {
        if ((err = file_write_all(x->spool_fd, ev->at, ev->len)) < 0) {
            conn_spool_close(x);
            snprintf(why, sizeof(why), "brock cannot keep the upload: %s", strerror(-err));
            conn_fail(c, 500, why);
            return -1;
        }
        return 0;
    }
    if (buf_append(&c->c_body, ev->at, ev->len) < 0) {
        conn_out_of_memory(c, "reading a request to the dashboard");
        return -1;
    }
    return 0;
}

void conn_local_done(struct conn *c)
{
    struct exchange *x = &c->c_ex;

    if (x->body_to == LOCAL_BODY_DROP) {
        x->body_to = LOCAL_BODY_KEEP;
        if (conn_blocked_write(c, 1) < 0)
            return;
    } else if (x->local_wait) {
        x->local_wait = 0;
        if ((x->report ? conn_report_write(c, x->client_keepalive)
                       : conn_local_write(c, x->client_keepalive)) != 0)
            return;
        if (!x->client_keepalive) {
            conn_flush_close(c, "answered locally");
            return;
        }
    }
    conn_log_request(c);
    conn_set_state(c, CONN_IDLE);
}
