/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One GET, start to end: connected by the dialer as the proxy's upstreams are (--resolve, a
 * literal or DNS, each address in turn, TLS verified against the host name), a request that
 * carries nothing of the user's, and a response read under a size limit and a deadline. */
#include "jobs/fetch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <http_parser.h>

#include "brock.h"
#include "http/head.h"
#include "jobs/jobs.h"
#include "net/dns.h"
#include "net/timer.h"
#include "net/tls.h"
#include "util/alloc.h"
#include "util/buf.h"

/* How much of a response brock reads at a time; the body limit bounds the rest. */
#define FETCH_READ_CHUNK ((size_t)16 * 1024)

struct fetch {
    void (*cb)(void *arg, const struct fetch_result *r);
    void *arg;
    char host[BROCK_HOST_MAX];
    int port, tls;
    const struct io_ops *io;
    struct buf req;
    struct event *timer; /* the deadline */
    struct event *reap;  /* frees a finished fetch */
    struct dial *dial;   /* until connected */
    struct bufferevent *bev;
    http_parser parser;
    struct http_head head; /* the response's, gathered as the proxy gathers its heads */
    struct buf body;
    size_t max;
    int done, too_large, head_error, got_bytes, got_head, finished;
    LIST_ENTRY(fetch) fin; /* among the finished, until the reaper has run */
    char err[BROCK_HOST_MAX + 512];
};

/* ---- the end ---- */

/* Everything but the struct and its reaper goes, so that no callback can come back. */
static void teardown(struct fetch *f)
{
    dial_cancel(f->dial);
    f->dial = NULL;
    if (f->bev) {
        bufferevent_free(f->bev);
        f->bev = NULL;
    }
    if (f->timer) {
        event_free(f->timer);
        f->timer = NULL;
    }
}

/* The fetches finished whose reaper has not run yet: a loop that stops right after a
 * callback never runs it, and fetch_free_finished() frees them then. One loop a process. */
static LIST_HEAD(, fetch) finished_list = LIST_HEAD_INITIALIZER(finished_list);

static void fetch_free(struct fetch *f)
{
    if (f->finished)
        LIST_REMOVE(f, fin);
    teardown(f);
    if (f->reap)
        event_free(f->reap);
    http_head_cleanup(&f->head);
    buf_cleanup(&f->req);
    buf_cleanup(&f->body);
    mem_free(f);
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    fetch_free(arg);
}

static void finish(struct fetch *f, enum fetch_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Callers up the stack (the dialer, a bufferevent) may still hold f: it is freed after this
 * loop iteration, by the reaper. */
static void finish(struct fetch *f, enum fetch_status st, const char *fmt, ...)
{
    struct fetch_result r;
    char why[1024];
    va_list ap;

    if (f->finished)
        return;
    f->finished = 1;
    LIST_INSERT_HEAD(&finished_list, f, fin);
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    r.status = st;
    r.http_status = f->got_head ? (int)f->parser.status_code : 0;
    r.body = f->body.data ? f->body.data : "";
    r.len = f->body.len;
    r.why = why;
    teardown(f);
    f->cb(f->arg, &r);
    event_active(f->reap, EV_TIMEOUT, 0);
}

void fetch_cancel(struct fetch *f)
{
    if (f)
        fetch_free(f);
}

size_t fetch_free_finished(void)
{
    size_t n = 0;

    for (; !LIST_EMPTY(&finished_list); n++)
        fetch_free(LIST_FIRST(&finished_list));
    return n;
}

/* ---- the response ---- */

static int on_header_field(http_parser *p, const char *at, size_t len)
{
    struct fetch *f = p->data;

    f->head_error = http_head_field(&f->head, at, len);
    return f->head_error == HTTP_HEAD_OK ? 0 : -1;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
    struct fetch *f = p->data;

    f->head_error = http_head_value(&f->head, at, len);
    return f->head_error == HTTP_HEAD_OK ? 0 : -1;
}

static int on_headers_complete(http_parser *p)
{
    struct fetch *f = p->data;

    http_head_finish(&f->head);
    f->got_head = 1;
    return 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
    struct fetch *f = p->data;

    if (f->body.len + len > f->max) {
        f->too_large = 1;
        return -1;
    }
    return buf_append(&f->body, at, len) < 0 ? -1 : 0;
}

static int on_message_complete(http_parser *p)
{
    struct fetch *f = p->data;

    f->done = 1;
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings response_settings = {
    .on_header_field = on_header_field,
    .on_header_value = on_header_value,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_message_complete,
};

/* The whole response is in: judged by its status. */
static void judge(struct fetch *f)
{
    unsigned st = f->parser.status_code;
    const struct brock_header *loc = http_header_find(f->head.h, f->head.n, "Location");
    char location[2048], to[BROCK_HOST_MAX];

    /* Only the target's host: the why reaches the default log, which names no paths. */
    to[0] = '\0';
    if (loc && loc->value_len < sizeof(location)) {
        memcpy(location, loc->value, loc->value_len);
        location[loc->value_len] = '\0';
        if (brock_url_host(location, to) < 0)
            to[0] = '\0';
    }
    if (st >= 200 && st < 300)
        finish(f, FETCH_OK, "%s answered %u with %zu bytes", f->host, st, f->body.len);
    else if (st >= 300 && st < 400)
        finish(f, FETCH_REDIRECT, "%s answered %u, a redirect%s%s (never followed)", f->host, st,
               to[0] ? " to " : "", to);
    else
        finish(f, FETCH_STATUS, "%s answered %u", f->host, st);
}

static void on_read(struct bufferevent *bev, void *arg)
{
    struct fetch *f = arg;
    struct evbuffer *in = bufferevent_get_input(bev);

    f->got_bytes = 1;
    while (evbuffer_get_length(in)) {
        size_t n = evbuffer_get_contiguous_space(in);
        const char *p = (const char *)evbuffer_pullup(in, (ev_ssize_t)n);
        size_t used = http_parser_execute(&f->parser, &response_settings, p, n);

        evbuffer_drain(in, used);
        if (f->done) {
            judge(f);
            return;
        }
        if (HTTP_PARSER_ERRNO(&f->parser) != HPE_OK) {
            if (f->too_large)
                finish(f, FETCH_TOO_LARGE, "%s sent more than %zu bytes", f->host, f->max);
            else if (f->head_error != HTTP_HEAD_OK)
                finish(f, FETCH_TOO_LARGE, "%s sent a head of over %zu bytes or %d headers",
                       f->host, LIMIT_HEAD_BYTES, LIMIT_HEADERS);
            else
                finish(f, FETCH_FAILED, "%s sent a malformed response: %s", f->host,
                       http_errno_description(HTTP_PARSER_ERRNO(&f->parser)));
            return;
        }
    }
}

/* Why the connection failed once made, TLS's reasons first. */
static void describe_error(struct fetch *f, struct bufferevent *bev)
{
    int sock = EVUTIL_SOCKET_ERROR();

    if (f->io->tls && tls_error_describe(bev, f->host, f->err, sizeof(f->err)))
        return;
    snprintf(f->err, sizeof(f->err), "the connection to %s failed: %s", f->host,
             sock ? evutil_socket_error_to_string(sock) : "closed");
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    struct fetch *f = arg;

    if (f->got_bytes && (what & BEV_EVENT_EOF)) {
        /* A body that runs until close ends here. */
        http_parser_execute(&f->parser, &response_settings, NULL, 0);
        if (f->done) {
            judge(f);
            return;
        }
        finish(f, FETCH_FAILED, "%s closed the connection mid-response", f->host);
        return;
    }
    if (what & (BEV_EVENT_ERROR | BEV_EVENT_EOF)) {
        describe_error(f, bev);
        finish(f, FETCH_FAILED, "%s", f->err);
    }
}

/* ---- connecting ---- */

static void on_dialed(void *arg, struct bufferevent *bev, const char *why)
{
    struct fetch *f = arg;

    f->dial = NULL;
    if (!bev) {
        finish(f, FETCH_FAILED, "%s", why);
        return;
    }
    f->bev = bev;
    bufferevent_setcb(bev, on_read, NULL, on_event, f);
    bufferevent_setwatermark(bev, EV_READ, 0, FETCH_READ_CHUNK);
    http_parser_init(&f->parser, HTTP_RESPONSE);
    f->parser.data = f;
    if (bufferevent_write(bev, f->req.data, f->req.len) < 0 ||
        bufferevent_enable(bev, EV_READ | EV_WRITE) < 0)
        finish(f, FETCH_FAILED, "out of memory for a connection to %s", f->host);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    struct fetch *f = arg;

    (void)fd;
    (void)what;
    finish(f, FETCH_TIMEOUT_HIT, "%s did not answer in full within %d s (%zu bytes read)", f->host,
           FETCH_TIMEOUT, f->body.len);
}

/* ---- starting ---- */

static int parse_url(struct fetch *f, const char *url, const char **path, size_t *path_len)
{
    struct http_parser_url u;
    size_t len = strlen(url);
    const char *scheme;
    size_t slen;

    http_parser_url_init(&u);
    if (http_parser_parse_url(url, len, 0, &u) != 0 || !(u.field_set & (1 << UF_HOST)) ||
        !(u.field_set & (1 << UF_SCHEMA)) || (u.field_set & (1 << UF_USERINFO)))
        return -1;
    scheme = url + u.field_data[UF_SCHEMA].off;
    slen = u.field_data[UF_SCHEMA].len;
    if (slen == 5 && strncasecmp(scheme, "https", 5) == 0)
        f->tls = 1;
    else if (slen != 4 || strncasecmp(scheme, "http", 4) != 0)
        return -1;
    if (brock_host_normalize(url + u.field_data[UF_HOST].off, u.field_data[UF_HOST].len, f->host) <
        0)
        return -1;
    f->port = (u.field_set & (1 << UF_PORT)) ? u.port : f->tls ? 443 : 80;
    if (u.field_set & (1 << UF_PATH)) {
        *path = url + u.field_data[UF_PATH].off;
        *path_len = (u.field_set & (1 << UF_FRAGMENT))
                        ? (size_t)u.field_data[UF_FRAGMENT].off - 1 - u.field_data[UF_PATH].off
                        : len - u.field_data[UF_PATH].off;
    } else {
        *path = "/";
        *path_len = 1;
    }
    return 0;
}

int fetch_start(const struct dial_env *env, const char *url, size_t max,
                void (*cb)(void *arg, const struct fetch_result *r), void *arg, struct fetch **out)
{
    struct fetch *f;
    const char *path = NULL;
    size_t path_len = 0;
    int std_port;

    if (out)
        *out = NULL;
    f = mem_calloc(1, sizeof(*f));
    if (!f)
        return -1;
    f->cb = cb;
    f->arg = arg;
    f->max = max;
    http_head_init(&f->head);
    buf_init(&f->req, 8192);
    buf_init(&f->body, max + 1);
    if (parse_url(f, url, &path, &path_len) < 0 || (f->tls && !env->tls)) {
        fetch_free(f);
        return -1;
    }
    std_port = f->port == (f->tls ? 443 : 80);
    /* Nothing of the user's: no cookies, no referrer, no identifying headers. */
    if (buf_printf(&f->req, "GET %.*s HTTP/1.1\r\nHost: %s%s%s", (int)path_len, path,
                   strchr(f->host, ':') ? "[" : "", f->host, strchr(f->host, ':') ? "]" : "") < 0 ||
        (!std_port && buf_printf(&f->req, ":%d", f->port) < 0) ||
        buf_printf(&f->req,
                   "\r\nUser-Agent: brock/%s\r\nAccept: */*\r\n"
                   "Accept-Encoding: identity\r\nCache-Control: no-store\r\n"
                   "Connection: close\r\n\r\n",
                   brock_version()) < 0) {
        fetch_free(f);
        return -1;
    }
    f->io = f->tls ? &io_tls : &io_tcp;
    f->timer = timer_start(env->base, (int64_t)FETCH_TIMEOUT * 1000, 0, on_deadline, f);
    f->reap = event_new(env->base, -1, 0, on_reap, f);
    /* The dialer calls back at the loop's next turn at the earliest, as fetch_start() must. */
    if (!f->timer || !f->reap ||
        dial_start(env, f->host, f->port, f->io, NULL, on_dialed, f, &f->dial) < 0) {
        fetch_free(f);
        return -1;
    }
    if (out)
        *out = f;
    return 0;
}

/* ---- one fetch on a loop of its own ---- */

struct once {
    struct event_base *base;
    void (*cb)(void *arg, const struct fetch_result *r);
    void *arg;
    int called;
};

static void on_once(void *arg, const struct fetch_result *r)
{
    struct once *o = arg;

    /* The resolver's idle sockets would keep the loop alive; the reaper still runs. */
    event_base_loopbreak(o->base);
    o->called = 1;
    o->cb(o->arg, r);
}

int jobs_options_check(const struct jobs_options *o, char *err, size_t errlen)
{
    struct resolve_table t = {NULL, 0};
    int rc = 0;

    for (size_t i = 0; i < o->n_resolve && rc == 0; i++)
        rc = resolve_add(&t, o->resolve[i], err, errlen);
    resolve_cleanup(&t);
    return rc;
}

int fetch_once(const struct jobs_options *o, const char *url, size_t max,
               void (*cb)(void *arg, const struct fetch_result *r), void *arg, char *err,
               size_t errlen)
{
    struct resolve_table table = {NULL, 0};
    struct dial_env env = {0};
    struct once once = {NULL, cb, arg, 0};
    char scratch[256];
    int rc = -1;

    for (size_t i = 0; i < o->n_resolve; i++)
        if (resolve_add(&table, o->resolve[i], err, errlen) < 0)
            goto out;
    env.resolve = &table;
    env.tls = tls_upstream_ctx_new(o->upstream_ca, err, errlen);
    if (!env.tls)
        goto out;
    env.base = event_base_new();
    if (!env.base) {
        snprintf(err, errlen, "cannot create an event loop");
        goto out;
    }
    /* Without a resolver, --resolve rules and literals still work. */
    env.dns = dns_new(env.base, NULL, 0, scratch, sizeof(scratch));
    once.base = env.base;
    if (fetch_start(&env, url, max, on_once, &once, NULL) < 0) {
        snprintf(err, errlen, "cannot fetch '%s': not an http(s) URL, or out of memory", url);
        goto out;
    }
    event_base_dispatch(env.base);
    event_base_loop(env.base, EVLOOP_NONBLOCK);
    /* The deadline ends every fetch; a loop that stopped first failed. */
    if (!once.called) {
        snprintf(err, errlen, "the event loop stopped before %s was fetched", url);
        goto out;
    }
    rc = 0;
out:
    (void)fetch_free_finished();
    dns_free(env.dns);
    if (env.base)
        event_base_free(env.base);
    if (env.tls)
        SSL_CTX_free(env.tls);
    resolve_cleanup(&table);
    return rc;
}
