/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proxy_run(): the one event loop. Each iteration of libevent's loop, in order: accept new
 * clients (or answer 503 past the limit); run the bufferevent callbacks, each of which lets
 * its connection's state machine advance as far as the bytes allow; fire expired per-state
 * timeouts; once a second write learning to the state and pick up changes others made
 * (brock_sync); start the DNT policy check due (at most one a second) and, once a day, the
 * pbconfig.json refresh; and last free the connections closed during the iteration (the
 * reaper), so that nothing up the stack still holds one. SIGINT and SIGTERM end the loop.
 */
#include "proxy/proxy.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "brock.h"
#include "proxy/access.h"
#include "proxy/conn.h"
#include "proxy/dntcheck.h"
#include "proxy/limits.h"
#include "proxy/log.h"
#include "proxy/privs.h"
#include "proxy/refresh.h"
#include "proxy/tls.h"

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
    struct proxy *px = arg;

    (void)fd;
    (void)what;
    while (px->closing) {
        struct conn *c = px->closing;

        px->closing = c->next;
        conn_free(c);
    }
}

/* Answers a client brock will not serve with a whole response (text, a string literal) and
 * closes it, before anything of its request is read. Best effort: the socket is fresh, so
 * its buffer takes this at once or not at all. */
static void refuse(evutil_socket_t fd, const char *text, size_t len)
{
    if (send(fd, text, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
        log_msg(LOG_DEBUG, "could not send a %.3s: %s", text + 9, strerror(errno));
    evutil_closesocket(fd);
}

static const char refused_busy[] =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
    "Content-Length: 37\r\nConnection: close\r\n\r\n"
    "brock has too many connections open.\n";

/* For a client outside --allow (or, without it, not on loopback). */
static const char refused_forbidden[] =
    "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
    "Content-Length: 49\r\nConnection: close\r\n\r\n"
    "brock does not serve this address (see --allow).\n";

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
                      void *arg)
{
    struct proxy *px = arg;
    char who[80];

    (void)l;
    (void)len;
    /* One line per refusal, as for a request (conn.c): who, the status and why. */
    if (px->allow.n ? !access_allows(&px->allow, sa) : !access_is_loopback(sa)) {
        access_name(sa, who, sizeof(who));
        log_msg(LOG_INFO, "refused %s with 403: %s", who,
                px->allow.n ? "not in --allow" : "not a loopback address (see --allow)");
        refuse(fd, refused_forbidden, sizeof(refused_forbidden) - 1);
        return;
    }
    if (px->n_conns >= LIMIT_CONNECTIONS) {
        access_name(sa, who, sizeof(who));
        log_msg(LOG_INFO, "refused %s with 503: %d connections are open", who,
                LIMIT_CONNECTIONS);
        refuse(fd, refused_busy, sizeof(refused_busy) - 1);
        return;
    }
    if (!conn_new(px, fd, sa))
        log_msg(LOG_ERR, "out of memory for a new connection; closed it");
}

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
    struct proxy *px = arg;

    (void)fd;
    (void)what;
    if (px->listener)
        evconnlistener_enable(px->listener);
}

static void on_accept_error(struct evconnlistener *l, void *arg)
{
    struct proxy *px = arg;
    int err = EVUTIL_SOCKET_ERROR();
    struct timeval pause = {1, 0};

    log_msg(LOG_ERR, "accept failed: %s", evutil_socket_error_to_string(err));
    /* Out of descriptors: the pending connection would wake the loop again at once, so
     * accepting pauses for a second while open connections finish. */
    if (px->accept_pause) {
        evconnlistener_disable(l);
        evtimer_add(px->accept_pause, &pause);
    }
}

/* Each client can take two descriptors (its own and its upstream's). */
static void raise_fd_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* While writing the state fails (a full disk), one line says so, repeated once every
 * SYNC_FAIL_REPEAT syncs; memory keeps the changes and each sync retries them. */
#define SYNC_FAIL_REPEAT 600

static void on_sync(evutil_socket_t fd, short what, void *arg)
{
    static unsigned failed; /* syncs failed in a row; one loop per process */
    struct proxy *px = arg;
    int n;

    (void)fd;
    (void)what;
    n = brock_sync(px->engine);
    if (n < 0) {
        if (failed++ % SYNC_FAIL_REPEAT == 0)
            log_msg(LOG_ERR, "%s; learning is kept in memory and retried%s",
                    brock_engine_errmsg(px->engine), failed > 1 ? " (still failing)" : "");
        return;
    }
    if (failed) {
        log_msg(LOG_ERR, "writing the state works again, after %u failed attempts", failed);
        failed = 0;
    }
    if (n > 0)
        log_msg(LOG_DEBUG, "picked up %d changes made outside brock", n);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct proxy *px = arg;

    (void)what;
    log_msg(LOG_DEBUG, "%s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
    if (px->listener)
        evconnlistener_disable(px->listener);
    event_base_loopbreak(px->base);
}

/* ADDR:PORT where PORT may be 0 (any free port), which libevent's parser refuses. */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, int *len)
{
    char copy[128];
    size_t n = strlen(spec);
    int any = n >= 2 && strcmp(spec + n - 2, ":0") == 0;

    if (n >= sizeof(copy))
        return -1;
    memcpy(copy, spec, n + 1);
    if (any)
        copy[n - 1] = '1';
    if (evutil_parse_sockaddr_port(copy, (struct sockaddr *)ss, len) < 0)
        return -1;
    if (any && ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)ss)->sin6_port = 0;
    else if (any)
        ((struct sockaddr_in *)ss)->sin_port = 0;
    return 0;
}

int proxy_options_check(const struct proxy_options *o, char *err, size_t errlen)
{
    struct resolve_table t = {NULL, 0};
    struct access_list allow = {NULL, 0};
    struct sockaddr_storage ss;
    struct privs pv;
    int len = (int)sizeof(ss);

    if (o->listen && parse_listen(o->listen, &ss, &len) < 0) {
        snprintf(err, errlen, "--listen '%s': expected ADDR:PORT or [IPV6]:PORT", o->listen);
        return -1;
    }
    for (size_t i = 0; i < o->n_allow; i++) {
        if (access_add(&allow, o->allow[i], err, errlen) < 0) {
            access_cleanup(&allow);
            return -1;
        }
    }
    access_cleanup(&allow);
    if (o->listen && !o->n_allow && !access_is_loopback((const struct sockaddr *)&ss)) {
        snprintf(err, errlen, "listening on %s exposes brock to the network; name who may use "
                 "it with --allow CIDR", o->listen);
        return -1;
    }
    if (privs_plan(o->user, &pv, err, errlen) < 0)
        return -1;
    for (size_t i = 0; i < o->n_resolve; i++) {
        if (resolve_add(&t, o->resolve[i], err, errlen) < 0) {
            resolve_cleanup(&t);
            return -1;
        }
    }
    resolve_cleanup(&t);
    return 0;
}

/* With epoll, the changes a loop iteration makes to one descriptor (a write enabled, then
 * finished) reach the kernel as one call, or none. */
static struct event_base *new_base(void)
{
    struct event_config *cfg = event_config_new();
    struct event_base *base;

    if (!cfg)
        return NULL;
    event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
    base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    return base;
}

static int start_listener(struct proxy *px, const char *spec)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int slen = (int)sizeof(ss);

    memset(&ss, 0, sizeof(ss));
    if (parse_listen(spec, &ss, &slen) < 0) {
        fprintf(stderr, "brock: --listen %s: expected ADDR:PORT or [IPV6]:PORT\n", spec);
        return -1;
    }
    px->listener = evconnlistener_new_bind(px->base, on_accept, px,
                                           LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
                                               LEV_OPT_CLOSE_ON_EXEC,
                                           511, (struct sockaddr *)&ss, slen);
    if (!px->listener) {
        int err = EVUTIL_SOCKET_ERROR();

        fprintf(stderr, "brock: --listen %s: %s\n", spec, evutil_socket_error_to_string(err));
        return -1;
    }
    evconnlistener_set_error_cb(px->listener, on_accept_error);
    if (getsockname(evconnlistener_get_fd(px->listener), (struct sockaddr *)&ss, &len) < 0) {
        fprintf(stderr, "brock: --listen %s: %s\n", spec, strerror(errno));
        return -1;
    }
    access_name((const struct sockaddr *)&ss, px->listen_name, sizeof(px->listen_name));
    memcpy(&px->listen_addr, &ss, sizeof(ss));
    return 0;
}

int proxy_run(struct brock_engine *e, const struct proxy_options *o)
{
    struct proxy px;
    struct event *sig_int = NULL, *sig_term = NULL, *sync = NULL;
    struct fetch_env fetch_env = {0};
    struct refresh *refresh = NULL;
    struct timeval every = {SYNC_INTERVAL_MS / 1000, (SYNC_INTERVAL_MS % 1000) * 1000};
    struct privs pv;
    char err[512];
    int rc = 1;

    memset(&px, 0, sizeof(px));
    px.engine = e;
    px.t_head = o->header_timeout > 0 ? o->header_timeout : TIMEOUT_HEAD;
    px.t_connect = o->upstream_timeout > 0 ? o->upstream_timeout : TIMEOUT_CONNECT;
    px.t_response = o->upstream_timeout > 0 ? o->upstream_timeout : TIMEOUT_RESPONSE;
    fp_memory_init(&px.fp);
    log_verbosity = o->verbosity;
    for (size_t i = 0; i < o->n_resolve; i++) {
        if (resolve_add(&px.resolve, o->resolve[i], err, sizeof(err)) < 0) {
            fprintf(stderr, "brock: %s\n", err);
            goto out;
        }
    }
    for (size_t i = 0; i < o->n_allow; i++) {
        if (access_add(&px.allow, o->allow[i], err, sizeof(err)) < 0) {
            fprintf(stderr, "brock: %s\n", err);
            goto out;
        }
    }
    if (privs_plan(o->user, &pv, err, sizeof(err)) < 0) {
        fprintf(stderr, "brock: %s\n", err);
        goto out;
    }
    px.tls_up = tls_upstream_ctx_new(o->upstream_ca, err, sizeof(err));
    if (!px.tls_up) {
        fprintf(stderr, "brock: %s\n", err);
        goto out;
    }
    if (o->intercept) {
        px.mitm = tls_mitm_new(o->state_dir, err, sizeof(err));
        if (!px.mitm) {
            fprintf(stderr, "brock: %s\n", err);
            goto out;
        }
        px.no_intercept = o->no_intercept;
        px.n_no_intercept = o->n_no_intercept;
    }
    /* A client that goes away mid-write must not end the process. */
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();
    px.base = new_base();
    if (!px.base) {
        fprintf(stderr, "brock: could not create the event loop\n");
        goto out;
    }
    px.dns = evdns_base_new(px.base, EVDNS_BASE_INITIALIZE_NAMESERVERS |
                                         EVDNS_BASE_DISABLE_WHEN_INACTIVE);
    if (!px.dns) {
        /* No resolv.conf: names still resolve through --resolve and /etc/hosts. */
        px.dns = evdns_base_new(px.base, EVDNS_BASE_DISABLE_WHEN_INACTIVE);
        if (px.dns)
            evdns_base_load_hosts(px.dns, NULL);
    }
    /* brock's own fetches (DNT policies, pbconfig.json) share the resolver and --resolve. */
    fetch_env.base = px.base;
    fetch_env.dns = px.dns;
    fetch_env.resolve = &px.resolve;
    fetch_env.tls = px.tls_up;
    px.dnt = dntcheck_new(&fetch_env, e);
    if (!o->no_update)
        refresh = refresh_new(&fetch_env, e, FETCH_PBCONFIG_URL);
    if (!px.dnt || (!o->no_update && !refresh)) {
        fprintf(stderr, "brock: out of memory\n");
        goto out;
    }
    px.reaper = event_new(px.base, -1, 0, on_reap, &px);
    px.accept_pause = evtimer_new(px.base, on_accept_resume, &px);
    sig_int = evsignal_new(px.base, SIGINT, on_signal, &px);
    sig_term = evsignal_new(px.base, SIGTERM, on_signal, &px);
    sync = event_new(px.base, -1, EV_PERSIST, on_sync, &px);
    if (!px.reaper || !px.accept_pause || !sig_int || !sig_term || !sync ||
        evsignal_add(sig_int, NULL) < 0 || evsignal_add(sig_term, NULL) < 0 ||
        event_add(sync, &every) < 0) {
        fprintf(stderr, "brock: could not set up the event loop\n");
        goto out;
    }
    if (start_listener(&px, o->listen ? o->listen : PROXY_DEFAULT_LISTEN) < 0)
        goto out;
    /* STYLE.md section 6: the port is bound, the CA key and the state are open; root is no
     * longer needed. */
    if (privs_drop(&pv, o->state_dir, err, sizeof(err)) < 0) {
        fprintf(stderr, "brock: %s\n", err);
        goto out;
    }
    /* Tests wait for this line to learn the port: it comes first. */
    log_msg(LOG_ERR, "listening on %s", px.listen_name);
    if (pv.drop)
        log_msg(LOG_INFO, "running as the user %s (uid %u)", pv.user, (unsigned)pv.uid);
    if (event_base_dispatch(px.base) < 0) {
        fprintf(stderr, "brock: the event loop failed\n");
        goto out;
    }
    rc = 0;
out:
    if (px.listener)
        evconnlistener_free(px.listener);
    while (px.conns)
        conn_close(px.conns, "brock is stopping");
    on_reap(-1, 0, &px);
    pool_cleanup(&px);
    dntcheck_free(px.dnt);
    refresh_free(refresh);
    if (brock_sync(e) < 0) {
        fprintf(stderr, "brock: writing the state failed: %s\n", brock_engine_errmsg(e));
        rc = 1;
    }
    if (sync)
        event_free(sync);
    if (sig_int)
        event_free(sig_int);
    if (sig_term)
        event_free(sig_term);
    if (px.reaper)
        event_free(px.reaper);
    if (px.accept_pause)
        event_free(px.accept_pause);
    tls_mitm_free(px.mitm);
    SSL_CTX_free(px.tls_up);
    if (px.dns)
        evdns_base_free(px.dns, 1);
    if (px.base)
        event_base_free(px.base);
    resolve_cleanup(&px.resolve);
    access_cleanup(&px.allow);
    fp_memory_cleanup(&px.fp);
    return rc;
}
