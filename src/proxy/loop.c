/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * proxy_run(): the one event loop. Each iteration of libevent's loop, in order: accept new
 * clients (or answer 503 past the limit); run the bufferevent callbacks, each of which lets
 * its connection's state machine advance as far as the bytes allow; fire expired per-state
 * timeouts; once a second write learning to the state and pick up changes others made
 * (brock_sync); end the pause or a site's time off when it is due (offtime.c, its own
 * timer); start the DNT policy check due (at most one a second) and, once a day, the
 * pbconfig.json refresh; and last free the connections closed during the iteration (the
 * reaper), so that nothing up the stack still holds one. SIGHUP reads Privacy Badger's data and
 * opens the log again. SIGTERM, SIGINT and SIGQUIT stop brock: the listener closes, idle
 * connections close, busy ones close as their exchanges complete, and the loop ends when the
 * last one is gone or the grace period is over (or at a second such signal); learning is then
 * written to the state.
 */
#include "proxy/proxy.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <systemd/sd-daemon.h>

#include "brock.h"
#include "process/access.h"
#include "process/activate.h"
#include "process/clientnames.h"
#include "proxy/conn.h"
#include "proxy/conn_features.h"
#include "proxy/front.h"
#include "proxy/h2up.h"
#include "dash/dash.h"
#include "jobs/dntcheck.h"
#include "jobs/fetch.h"
#include "proxy/limits.h"
#include "util/log.h"
#include "process/privs.h"
#include "jobs/refresh.h"
#include "net/ca.h"
#include "net/dial.h"
#include "net/dns.h"
#include "net/timer.h"
#include "net/tls.h"
#include "proxy/intercept.h"
#include "proxy/passthrough.h"
#include "proxy/offtime.h"
#include "proxy/reconfig.h"
#include "proxy/workers.h"
#include "util/alloc.h"
#include "util/clock.h"

/* The loop ends; proxy_run() then closes what is left and writes learning to the state. */
static void stop_now(struct proxy *px)
{
    if (px->grace)
        evtimer_del(px->grace);
    event_base_loopbreak(px->base);
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
    struct proxy *px = arg;

    (void)fd;
    while (!LIST_EMPTY(&px->closing)) {
        struct conn *c = LIST_FIRST(&px->closing);

        LIST_REMOVE(c, link);
        conn_free(c);
    }
    /* Stopping, the last exchange in flight is done (what is 0 when proxy_run() itself reaps,
     * once the loop is over). */
    if (px->draining && !px->n_conns && what) {
        log_msg(LOG_INFO, "every exchange in flight is done");
        stop_now(px);
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
static const char refused_forbidden[] = "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
                                        "Content-Length: 49\r\nConnection: close\r\n\r\n"
                                        "brock does not serve this address (see --allow).\n";

void proxy_admit(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa)
{
    char who[80];

    /* One line per refusal, as for a request (conn.c): who, the status and why. */
    if (px->allow.n ? !access_allows(&px->allow, sa) : !access_is_loopback(sa)) {
        access_name(sa, who, sizeof(who));
        px->metrics.forbidden++;
        log_msg(LOG_INFO, "refused %s with 403: %s", who,
                px->allow.n ? "not in --allow" : "not a loopback address (see --allow)");
        refuse(fd, refused_forbidden, sizeof(refused_forbidden) - 1);
        return;
    }
    /* A flood would make one line a refusal a flood too: admit.c counts them, and says how
     * many once a second. */
    admit_address(sa, who, sizeof(who));
    if (!admit_room(px, who)) {
        refuse(fd, refused_busy, sizeof(refused_busy) - 1);
        return;
    }
    if (!conn_new(px, fd, sa))
        log_msg(LOG_ERR, "out of memory for a new connection; closed it");
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
                      void *arg)
{
    struct proxy *px = arg;

    (void)l;
    (void)len;
    /* A balancer's connection is admitted once its header names the client (front.c); no
     * other connection has a header read. */
    if (px->pp_from.n && access_allows(&px->pp_from, sa))
        (void)front_start(px, fd, sa);
    else
        proxy_admit(px, fd, sa);
    /* libevent accepts until none is pending: past a burst the connections already accepted
     * get their turn first. */
    if (++px->accept_burst >= LIMIT_ACCEPT_BURST && px->listener) {
        evconnlistener_disable(px->listener);
        event_active(px->accept_more, EV_TIMEOUT, 0);
    }
}

static void on_accept_more(evutil_socket_t fd, short what, void *arg)
{
    struct proxy *px = arg;

    (void)fd;
    (void)what;
    px->accept_burst = 0;
    if (px->listener && !evtimer_pending(px->accept_pause, NULL))
        evconnlistener_enable(px->listener);
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

/* The counters of this process as they are now, by slot. */
static void counters_now(const struct proxy *px, uint64_t v[SLOT_COUNT])
{
    const uint64_t now[SLOT_COUNT] = {
        [SLOT_REQUESTS] = px->n_requests,
        [SLOT_BLOCKED] = px->n_blocked,
        [SLOT_COOKIEBLOCKED] = px->n_cookieblocked,
        [SLOT_TUNNELS] = px->n_tunnels,
        [SLOT_LEARNED] = px->n_learned,
        [SLOT_CONNECTIONS] = px->n_conns,
        [SLOT_CUT] = px->admit.total_cut,
        [SLOT_REFUSED] = px->admit.total_refused,
        [SLOT_CLEANED] = px->n_cleaned,
        [SLOT_WAY_PROXY] = px->metrics.by_way[CONN_WAY_PROXY],
        [SLOT_WAY_SOCKS] = px->metrics.by_way[CONN_WAY_SOCKS],
        [SLOT_WAY_TRANSPARENT] = px->metrics.by_way[CONN_WAY_TRANSPARENT],
    };

    memcpy(v, now, sizeof(now));
}

/* This worker's counters into its slot, where the other workers read them. */
static void publish_counters(const struct proxy *px)
{
    const struct proxy_worker *w = px->opts->worker;
    uint64_t v[SLOT_COUNT];

    if (!w)
        return;
    counters_now(px, v);
    for (int k = 0; k < SLOT_COUNT; k++)
        __atomic_store_n(&w->slots[w->index].v[k], v[k], __ATOMIC_RELAXED);
}

/* While writing the state fails (a full disk), one line says so, repeated once every
 * SYNC_FAIL_REPEAT syncs; memory keeps the changes and each sync retries them. */
#define SYNC_FAIL_REPEAT 600

/* At the stop, what a store thread still holds gets this long to be written. */
#define STOP_WRITE_WAIT_MS 5000

/* A database reached over the network (a store thread's) is said lost and back once each,
 * with what waits in memory meanwhile. */
static void sync_say_connection(const struct brock_store_status *st)
{
    static int lost; /* as last logged; one loop per process */

    if ((st->connected ? 0 : 1) == lost)
        return;
    lost = !st->connected;
    if (lost)
        log_msg(LOG_ERR,
                "lost %s: %s; serving and learning from memory, %llu changes to write when "
                "it is back",
                st->path, st->last_error[0] ? st->last_error : "no answer",
                (unsigned long long)st->pending);
    else
        log_msg(LOG_ERR, "connected to %s again; writing %llu changes kept meanwhile", st->path,
                (unsigned long long)st->pending);
}

static void on_sync(evutil_socket_t fd, short what, void *arg)
{
    static unsigned failed;  /* syncs failed in a row; one loop per process */
    static unsigned events;  /* the state's file deleted or replaced, as last logged */
    static uint64_t refused; /* changes the database refused for good, as last logged */
    static int full_said;    /* the cap on learned trackers was reached, and said */
    struct brock_store_status st;
    struct brock_learned_status ls;
    struct proxy *px = arg;
    struct timespec t0, t1;
    int n;

    (void)fd;
    (void)what;
    conn_sweep_idle(px);
    conn_tls_quiet_due(px);
    publish_counters(px);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    n = brock_sync(px->engine);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* Another process may have paused brock, or resumed it, or changed a site's time off. */
    offtime_arm(px);
    metrics_sync(&px->metrics,
                 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    brock_store_status(px->engine, &st);
    if (st.recreated + st.reloaded != events) {
        events = st.recreated + st.reloaded;
        log_msg(LOG_ERR, "%s", st.event);
    }
    sync_say_connection(&st);
    if (st.refused != refused) {
        refused = st.refused;
        log_msg(LOG_ERR, "writing the state to %s: %s", st.path, st.last_error);
    }
    /* Once: after it, every tracker learned makes room for itself, and a line each would
     * let a page that names thousands of hosts flood the log. /api/status counts them. */
    brock_learned_status(px->engine, &ls);
    if (ls.forgotten && !full_said) {
        full_said = 1;
        log_msg(LOG_INFO,
                "learning reached its cap of %zu trackers (max-learned-trackers): "
                "from now on those learned least recently are forgotten to make room (those "
                "not blocked first); your choices, DNT records and the seed's trackers stay",
                ls.max);
    }
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

/* ---- signals ---- */

/* The signals brock handles, in the order of px->signals. */
static const int handled[] = {SIGINT, SIGTERM, SIGQUIT, SIGHUP};

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGQUIT: return "SIGQUIT";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}

/* ---- the service manager ---- */

/* systemd's Type=notify: sd_notify() sends to the socket NOTIFY_SOCKET names, and does nothing
 * without it. What it returns is not worth a line: a manager that stopped listening stops
 * nothing here. */
static void notify_ready(const struct proxy *px)
{
    const struct proxy_worker *w = px->opts->worker;

    /* A worker tells its parent, which speaks for all of them once each is ready. */
    if (w) {
        unsigned char b = (unsigned char)w->index;

        if (write(w->ready_fd, &b, 1) < 0)
            log_msg(LOG_ERR, "could not tell the parent this worker is ready: %s", strerror(errno));
        return;
    }
    (void)sd_notifyf(0, "READY=1\nSTATUS=serving on %s, %zu connections open", px->listen_name,
                     px->n_conns);
}

static void notify_reloading(void)
{
    struct timespec ts;

    /* The time lets a manager that waits for the reload's end tell it from an older one. */
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
        (void)sd_notifyf(0,
                         "RELOADING=1\nSTATUS=reading the options and Privacy Badger's data "
                         "again\nMONOTONIC_USEC=%llu",
                         (unsigned long long)ts.tv_sec * 1000000ULL +
                             (unsigned long long)ts.tv_nsec / 1000ULL);
}

static void notify_stopping(const struct proxy *px)
{
    (void)sd_notifyf(0, "STOPPING=1\nSTATUS=stopping: %zu connections busy", px->n_conns);
}

/* SIGHUP's options: read again (the configuration file), and applied where they can be. A
 * file that does not read or parse changes nothing. */
static void reload_options(struct proxy *px)
{
    const struct proxy_options *n;
    char err[1024];

    if (!px->opts->reread)
        return;
    err[0] = '\0';
    n = px->opts->reread(px->opts->reread_arg, err, sizeof(err));
    if (!n) {
        log_msg(LOG_ERR, "SIGHUP: the options were not read again, those in force stay: %s",
                *err ? err : "out of memory");
        return;
    }
    reconfig_apply(px, n);
}

/* SIGHUP (logrotate, a service manager's reload): Privacy Badger's data read again, the
 * options read again, the log opened again; never an exit. */
static void reload(struct proxy *px)
{
    struct brock_update_stats st;
    int rc;

    notify_reloading();
    rc = log_reopen();

    if (rc < 0)
        log_msg(LOG_ERR,
                "SIGHUP: could not open the log file again (%s); lines go on to the "
                "old one",
                strerror(-rc));
    if (brock_engine_reload(px->engine, &st) < 0)
        log_msg(LOG_ERR,
                "SIGHUP: Privacy Badger's data was not read again, the lists in force "
                "stay: %s",
                brock_engine_errmsg(px->engine));
    else
        log_msg(LOG_INFO,
                "SIGHUP: read Privacy Badger's data again: %zu domains on the "
                "cookieblock list (%zu added, %zu removed), %zu new DNT policy hashes, %zu site "
                "fixes%s",
                st.yellow, st.added, st.removed, st.hashes_added, st.site_fixes,
                rc == 1 ? "; opened the log file again" : "");
    reload_options(px);
    notify_ready(px);
}

static void on_grace_over(evutil_socket_t fd, short what, void *arg)
{
    struct proxy *px = arg;

    (void)fd;
    (void)what;
    log_msg(LOG_INFO, "the grace period is over: closing the %zu connections still busy",
            px->n_conns);
    stop_now(px);
}

/* The first stopping signal: no new connection, nothing new answered; the exchanges in flight
 * finish within --grace, after which (or once the last one is done) the loop ends. */
static void drain(struct proxy *px, const char *name)
{
    struct timeval tv = {px->live->grace, 0};
    struct conn *c, *next;

    px->draining = 1;
    notify_stopping(px);
    conn_listeners_close(px);
    for (c = LIST_FIRST(&px->conns); c; c = next) {
        next = LIST_NEXT(c, link);
        conn_stop(c);
    }
    if (!px->n_conns) {
        log_msg(LOG_INFO, "%s: stopping; no exchange is in flight", name);
        stop_now(px);
        return;
    }
    if (px->live->grace <= 0) {
        log_msg(LOG_INFO, "%s: stopping at once (--grace 0): closing %zu busy connections", name,
                px->n_conns);
        stop_now(px);
        return;
    }
    log_msg(LOG_INFO,
            "%s: stopping: no new connections; %zu busy connections get %d s to "
            "finish (%s again stops at once)",
            name, px->n_conns, px->live->grace, name);
    evtimer_add(px->grace, &tv);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct proxy *px = arg;
    const char *name = signal_name(sig);

    (void)what;
    if (sig == SIGHUP) {
        reload(px);
    } else if (px->draining) {
        log_msg(LOG_INFO, "%s again: stopping at once, closing %zu busy connections", name,
                px->n_conns);
        stop_now(px);
    } else {
        drain(px, name);
    }
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

static int start_listener(struct proxy *px, const char *spec, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int slen = (int)sizeof(ss), fd;

    memset(&ss, 0, sizeof(ss));
    if (listen_parse(spec, &ss, &slen) < 0) {
        snprintf(err, errlen, "--listen %s: expected ADDR:PORT or [IPV6]:PORT", spec);
        return -1;
    }
    if (px->opts->worker) {
        /* Bound and listening already, in the parent: a backlog of 0 says so to libevent
         * (-1 would listen() again, with its own backlog of 128 for LIMIT_LISTEN_BACKLOG). */
        px->listener = evconnlistener_new(px->base, on_accept, px,
                                          LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0,
                                          px->opts->worker->listen_fd);
        px->activated = px->opts->worker->activated;
    } else if ((fd = activate_socket(px->opts->listen, px->opts->n_allow != 0, px->listen_name,
                                     sizeof(px->listen_name), err, errlen)) < 0) {
        return -1;
    } else if (fd > 0) {
        px->activated = 1;
        /* Listening already, with brock.socket's Backlog=. */
        px->listener = evconnlistener_new(px->base, on_accept, px,
                                          LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
        if (!px->listener)
            close(fd);
    } else
        px->listener = evconnlistener_new_bind(px->base, on_accept, px,
                                               LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
                                                   LEV_OPT_CLOSE_ON_EXEC,
                                               LIMIT_LISTEN_BACKLOG, (struct sockaddr *)&ss, slen);
    if (!px->listener) {
        int e = EVUTIL_SOCKET_ERROR();

        snprintf(err, errlen, "--listen %s: %s", spec, evutil_socket_error_to_string(e));
        return -1;
    }
    evconnlistener_set_error_cb(px->listener, on_accept_error);
    if (getsockname(evconnlistener_get_fd(px->listener), (struct sockaddr *)&ss, &len) < 0) {
        snprintf(err, errlen, "--listen %s: %s", spec, strerror(errno));
        return -1;
    }
    access_name((const struct sockaddr *)&ss, px->listen_name, sizeof(px->listen_name));
    memcpy(&px->listen_addr, &ss, sizeof(ss));
    return 0;
}

/* The proxy's own parts: the first parties' record, the rewriter, the dashboard's metrics and
 * log, the widgets allowed, the report limits, the sites' cookies. Returns 0, or -1 with err
 * set. */
static int proxy_parts_init(struct proxy *px, char *err, size_t errlen)
{
    firstparty_memory_init(&px->firstparty);
    rewrite_out_init(&px->rw);
    buf_init(&px->head_out, LIMIT_HEAD_BYTES + 4096);
    if (metrics_init(&px->metrics) < 0 || livelog_init(&px->log) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    widget_allows_init(&px->widgets);
    report_limits_init(&px->report_limits);
    px->sc = brock_site_cookies_new();
    if (!px->sc) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* The lists of o: --resolve, --allow, --proxy-protocol-from; then the user to run as, who
 * must reach the state. Returns 0, or -1 with err set. */
static int proxy_lists_init(struct proxy *px, const struct proxy_options *o, char *err,
                            size_t errlen)
{
    for (size_t i = 0; i < o->n_resolve; i++)
        if (resolve_add(&px->resolve, o->resolve[i], err, errlen) < 0)
            return -1;
    for (size_t i = 0; i < o->n_allow; i++)
        if (access_add(&px->allow, o->allow[i], err, errlen) < 0)
            return -1;
    for (size_t i = 0; i < o->n_proxy_protocol_from; i++)
        if (access_add_for(&px->pp_from, "--proxy-protocol-from", o->proxy_protocol_from[i], err,
                           errlen) < 0)
            return -1;
    if (privs_plan(o->user, &px->privs, err, errlen) < 0 ||
        (o->state_dir && privs_check_reach(&px->privs, o->state_dir, err, errlen) < 0))
        return -1;
    return 0;
}

/* TLS to upstreams, interception with the hosts it passes unseen, and the script put in
 * pages. Returns 0, or -1 with err set. */
static int proxy_tls_init(struct proxy *px, const struct proxy_options *o, char *err, size_t errlen)
{
    px->tls_up = tls_upstream_ctx_new(o->upstream_ca, err, errlen);
    if (!px->tls_up)
        return -1;
    if (o->intercept) {
        px->mitm = intercept_new(o->state_dir, o->ca_init_cmd, err, errlen);
        if (!px->mitm)
            return -1;
        intercept_set_h2(px->mitm, !o->no_http2);
        px->pass = passthrough_new();
        if (!px->pass) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        px->no_intercept = o->no_intercept;
        px->n_no_intercept = o->n_no_intercept;
    }
    if (!o->no_inject && conn_inject_prepare(px, err, errlen) < 0)
        return -1;
    return 0;
}

/* The event loop, its resolver, the admission of clients and the dialer. Returns 0, or -1
 * with err set. */
static int proxy_loop_init(struct proxy *px, const struct proxy_options *o, char *err,
                           size_t errlen)
{
    px->hooks = &conn_features;
    px->base = new_base();
    if (px->base) {
        /* --dns's servers, or the system's. */
        px->dns = dns_new(px->base, o->dns, o->n_dns, err, errlen);
        if (!px->dns)
            return -1;
    }
    if (!px->base || admit_init(&px->admit, px->base, admit_size(&px->nofile, &px->splice_max),
                                o->max_client_connections) < 0) {
        snprintf(err, errlen, "could not create the event loop");
        return -1;
    }
    /* Upstreams and brock's own fetches (DNT policies, pbconfig.json) connect out alike. */
    px->dial.base = px->base;
    px->dial.dns = px->dns;
    px->dial.resolve = &px->resolve;
    px->dial.tls = px->tls_up;
    /* The same, offering origins HTTP/2 for the proxy's requests (h2up.h). */
    px->dial_up = px->dial;
    px->dial_up.names = upstream_on_names;
    px->dial_h2 = px->dial_up;
    px->dial_h2.alpn = (const unsigned char *)H2UP_ALPN_PROTOS;
    px->dial_h2.alpn_len = sizeof(H2UP_ALPN_PROTOS) - 1;
    strmap_init(&px->h1_known);
    return 0;
}

struct proxy *proxy_new(const struct proxy_options *o, char *err, size_t errlen)
{
    struct proxy *px = mem_calloc(1, sizeof(*px));

    if (!px) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* A reload asked for while brock starts (opening and seeding a state takes a while) must
     * not end it: the loop's handler takes over from this. */
    signal(SIGHUP, SIG_IGN);
    px->opts = o;
    px->live = o;
    px->t_head = o->header_timeout > 0 ? o->header_timeout : TIMEOUT_HEAD;
    px->t_connect = o->upstream_timeout > 0 ? o->upstream_timeout : TIMEOUT_CONNECT;
    px->t_response = o->upstream_timeout > 0 ? o->upstream_timeout : TIMEOUT_RESPONSE;
    if (proxy_parts_init(px, err, errlen) < 0 || proxy_lists_init(px, o, err, errlen) < 0 ||
        proxy_tls_init(px, o, err, errlen) < 0 || proxy_loop_init(px, o, err, errlen) < 0 ||
        start_listener(px, o->listen ? o->listen : PROXY_DEFAULT_LISTEN, err, errlen) < 0 ||
        (o->socks && conn_way_listen(px, WAY_PORT_SOCKS, o->socks, err, errlen) < 0) ||
        (o->transparent &&
         conn_way_listen(px, WAY_PORT_TRANSPARENT, o->transparent, err, errlen) < 0)) {
        proxy_free(px);
        return NULL;
    }
    return px;
}

/* The events of a running proxy: the reaper, the accept pause, the signals that stop it and
 * the once-a-second sync; and its background jobs. Returns 0, or -1 with a message printed. */
static int proxy_setup(struct proxy *px)
{
    px->dnt = dntcheck_new(&px->dial, px->engine);
    if (!px->opts->no_update)
        px->refresh = refresh_new(&px->dial, px->engine);
    if (!px->dnt || (!px->opts->no_update && !px->refresh)) {
        log_msg(LOG_ERR, "out of memory");
        return -1;
    }
    px->reaper = event_new(px->base, -1, 0, on_reap, px);
    px->accept_pause = evtimer_new(px->base, on_accept_resume, px);
    px->accept_more = event_new(px->base, -1, 0, on_accept_more, px);
    px->grace = evtimer_new(px->base, on_grace_over, px);
    px->sync = timer_start(px->base, SYNC_INTERVAL_MS, 1, on_sync, px);
    if (!px->reaper || !px->accept_pause || !px->accept_more || !px->grace || !px->sync)
        goto fail;
    for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
        px->signals[i] = evsignal_new(px->base, handled[i], on_signal, px);
        if (!px->signals[i] || evsignal_add(px->signals[i], NULL) < 0)
            goto fail;
    }
    return 0;
fail:
    log_msg(LOG_ERR, "could not set up the event loop");
    return -1;
}

/* What the dashboard's /api/status reports of this run: with workers, the sum of every
 * worker's slot (theirs as of their last second, this one's as of now) and of the workers'
 * that ended. */
static void on_dash_counters(void *arg, struct dash_counters *out)
{
    const struct proxy *px = arg;
    const struct proxy_worker *w = px->opts->worker;
    uint64_t sum[SLOT_COUNT] = {0};

    if (w) {
        publish_counters(px);
        for (unsigned i = 0; i <= w->count; i++)
            for (int k = 0; k < SLOT_COUNT; k++)
                sum[k] += __atomic_load_n(&w->slots[i].v[k], __ATOMIC_RELAXED);
    } else {
        counters_now(px, sum);
        if (px->dnt)
            dntcheck_counts(px->dnt, out->dnt);
    }
    out->requests = sum[SLOT_REQUESTS];
    out->blocked = sum[SLOT_BLOCKED];
    out->cookieblocked = sum[SLOT_COOKIEBLOCKED];
    out->tunnels = sum[SLOT_TUNNELS];
    out->learned = sum[SLOT_LEARNED];
    out->connections = (size_t)sum[SLOT_CONNECTIONS];
    out->cut = sum[SLOT_CUT];
    out->refused = sum[SLOT_REFUSED];
    out->cleaned = sum[SLOT_CLEANED];
    for (int i = 0; i < 3; i++)
        out->ways[i] = sum[SLOT_WAY_PROXY + i];
}

/* Whether brock sees inside HTTPS, and why, in a person's words. */
static const char *https_why(enum proxy_https h)
{
    switch (h) {
    case PROXY_HTTPS_FORCED:
        return "HTTPS is seen inside, as asked: brock decides and learns on each request of "
               "HTTPS pages, as on plain HTTP ones";
    case PROXY_HTTPS_TRUSTED:
        return "HTTPS is seen inside: this machine trusts brock's CA, so brock decides and "
               "learns on each request of HTTPS pages, as on plain HTTP ones";
    case PROXY_HTTPS_OFF:
        return "HTTPS is passed unseen, as asked: brock sees only the names of HTTPS sites, "
               "refuses the blocked ones, and learns nothing there";
    case PROXY_HTTPS_AUTO:
    case PROXY_HTTPS_NO_CA:
    case PROXY_HTTPS_UNTRUSTED: break;
    }
    return "HTTPS is passed unseen: brock sees only the names of HTTPS sites, so it learns only "
           "on plain-HTTP pages, and nearly the whole web is HTTPS";
}

/* The option that chose how brock treats HTTPS, when one did (the configuration file's
 * `intercept` is the same): said beside the sentence, never in it. */
static const char *https_flag(enum proxy_https h)
{
    if (h == PROXY_HTTPS_FORCED)
        return "--intercept";
    return h == PROXY_HTTPS_OFF ? "--no-intercept" : NULL;
}

/* The command that makes brock see inside HTTPS, when trust is what it lacks. */
static const char *https_fix(const struct proxy_options *o)
{
    if (o->https != PROXY_HTTPS_NO_CA && o->https != PROXY_HTTPS_UNTRUSTED)
        return NULL;
    return o->ca_install_cmd ? o->ca_install_cmd : "sudo brock ca install";
}

/* The first lines a person starting brock reads: where it is, and how to use it. The first
 * one is what tests wait for to learn the port. */
/* A client range inside another (--client), said at start. */
static void say_overlap(void *arg, const char *sentence)
{
    (void)arg;
    log_msg(LOG_INFO, "%s", sentence);
}

static void say_where(const struct proxy *px)
{
    const struct proxy_worker *w = px->opts->worker;
    const char *host = px->listen_name;
    char dash[96];

    /* The first worker speaks for all; the others say that they serve too. */
    if (w && (w->index > 0 || w->starts > 1)) {
        log_msg(LOG_INFO, "worker %u of %u serving (pid %d)", w->index + 1, w->count,
                (int)getpid());
        return;
    }
    log_msg(LOG_ERR, "listening on %s%s", host,
            px->activated ? " (the socket systemd passed)" : "");
    if (w)
        log_msg(LOG_INFO, "worker 1 of %u serving (pid %d); the others start now", w->count,
                (int)getpid());
    if (px->listen_addr.ss_family == AF_INET &&
        ((const struct sockaddr_in *)&px->listen_addr)->sin_addr.s_addr == htonl(INADDR_ANY))
        snprintf(dash, sizeof(dash), "127.0.0.1%s", strrchr(host, ':'));
    else if (px->listen_addr.ss_family == AF_INET6 &&
             !memcmp(&((const struct sockaddr_in6 *)&px->listen_addr)->sin6_addr, &in6addr_any,
                     sizeof(in6addr_any)))
        snprintf(dash, sizeof(dash), "[::1]%s", strrchr(host, ':'));
    else
        snprintf(dash, sizeof(dash), "%s", host);
    log_msg(LOG_INFO, "dashboard: http://%s/", dash);
    clientnames_overlaps(px->opts->clients, px->opts->n_clients, say_overlap, NULL);
    log_msg(LOG_INFO,
            "to browse through brock, set %s as the HTTP and HTTPS proxy of your "
            "browser (chromium --proxy-server=%s), or export http_proxy=http://%s "
            "https_proxy=http://%s",
            dash, dash, dash, dash);
    if (https_fix(px->opts))
        log_msg(LOG_INFO, "%s; `%s` lets it see inside (then start brock again)",
                https_why(px->opts->https), https_fix(px->opts));
    else if (https_flag(px->opts->https))
        log_msg(LOG_INFO, "%s (%s)", https_why(px->opts->https), https_flag(px->opts->https));
    else
        log_msg(LOG_INFO, "%s", https_why(px->opts->https));
    if (px->privs.drop)
        log_msg(LOG_INFO, "running as the user %s (uid %u)", px->privs.user,
                (unsigned)px->privs.uid);
    if (px->admit.per_client)
        log_msg(LOG_INFO,
                "serving up to %zu connections at once (%zu descriptors), %zu from "
                "one address",
                px->admit.max, px->nofile, px->admit.per_client);
    else
        log_msg(LOG_INFO,
                "serving up to %zu connections at once (%zu descriptors), any number "
                "from one address",
                px->admit.max, px->nofile);
}

/* The dashboard's view of the hosts passed through unseen. */
static const char *on_dash_passthrough(void *arg, const struct brock_engine *e, const char *host,
                                       char *why, size_t size)
{
    const struct proxy *px = arg;

    return passthrough_why(px->pass, e, px->no_intercept, px->n_no_intercept, host, why, size);
}

/* The name of the client at address (text), for the dashboard (--client). */
static void on_dash_client_name(void *arg, const char *address, char *out, size_t size)
{
    const struct proxy *px = arg;
    struct sockaddr_storage ss;
    int len;

    out[0] = '\0';
    if (px->live->n_clients && resolve_literal(address, 0, &ss, &len))
        clientnames_find(px->live->clients, px->live->n_clients, (const struct sockaddr *)&ss, out,
                         size);
}

/* What the dashboard is told of this run, into *out; ca_path is the CA's certificate ("" when
 * unknown). */
static void proxy_dash_host(struct proxy *px, struct brock_engine *e, const char *ca_path,
                            struct dash_host *out)
{
    *out = (struct dash_host){.engine = e,
                              .listen_name = px->listen_name,
                              .counters = on_dash_counters,
                              .counters_arg = px,
                              .intercept = px->mitm != NULL,
                              .https_why = https_why(px->opts->https),
                              .https_flag = https_flag(px->opts->https),
                              .https_fix = https_fix(px->opts),
                              .passthrough_why = px->pass ? on_dash_passthrough : NULL,
                              .passthrough_arg = px,
                              .passthrough_shipped = passthrough_shipped_count(px->pass),
                              .inject = px->inject_js != NULL,
                              .started_ms = clock_now_ms(),
                              .pid = (int)getpid(),
                              .metrics = &px->metrics,
                              .log = &px->log,
                              .ca_cert = px->opts->state_dir ? ca_path : NULL,
                              .state_dir = px->opts->state_dir,
                              .client_name = on_dash_client_name,
                              .client_name_arg = px,
                              .token = px->opts->worker ? px->opts->worker->dash_token : NULL,
                              .workers = px->opts->worker ? px->opts->worker->count : 1};
}

/* The end of a run that returns rc: the listener closed, every connection closed and freed,
 * learning written to the state. Returns rc, or 1 when the state could not be written. */
static int proxy_stop(struct proxy *px, struct brock_engine *e, int rc)
{
    if (!px->draining)
        notify_stopping(px);
    conn_listeners_close(px);
    while (!LIST_EMPTY(&px->conns))
        conn_close(LIST_FIRST(&px->conns), "brock is stopping");
    on_reap(-1, 0, px);
    if (brock_sync(e) < 0 || brock_store_wait(e, STOP_WRITE_WAIT_MS) < 0) {
        log_msg(LOG_ERR, "writing the state failed: %s", brock_engine_errmsg(e));
        rc = 1;
    } else if (rc == 0) {
        log_msg(LOG_INFO, "learning is written to the state; stopped");
    }
    return rc;
}

int proxy_run(struct proxy *px, struct brock_engine *e)
{
    char ca_path[4096] = "", ca_key[4096];
    struct dash_host dash;
    char err[512];
    int rc = 1;

    if (px->opts->state_dir && ca_paths(px->opts->state_dir, ca_path, ca_key, sizeof(ca_path)) < 0)
        ca_path[0] = '\0';
    proxy_dash_host(px, e, ca_path, &dash);
    px->engine = e;
    log_verbosity = px->opts->verbosity;
    if (brock_learned_limit(e, px->opts->max_learned ? px->opts->max_learned
                                                     : BROCK_MAX_LEARNED_DEFAULT) < 0) {
        log_msg(LOG_ERR, "%s", brock_engine_errmsg(e));
        goto out;
    }
    /* A client that goes away mid-write must not end the process. */
    signal(SIGPIPE, SIG_IGN);
    if (proxy_setup(px) < 0)
        goto out;
    px->dash = dash_env_new(&dash, err, sizeof(err));
    if (!px->dash) {
        log_msg(LOG_ERR, "%s", err);
        goto out;
    }
    dash_env_set_no_proxy(px->dash, px->opts->no_proxy, px->opts->n_no_proxy);
    /* The first write holds the whole seed (megabytes, a second or more on a slow disk): made
     * before anyone is served, it delays no request. */
    on_sync(-1, 0, px);
    /* STYLE.md section 6: the port is bound, the CA key and the state are open; root is no
     * longer needed. */
    if (privs_drop(&px->privs, px->opts->state_dir, err, sizeof(err)) < 0) {
        log_msg(LOG_ERR, "%s", err);
        goto out;
    }
    say_where(px);
    notify_ready(px);
    if (event_base_dispatch(px->base) < 0) {
        log_msg(LOG_ERR, "the event loop failed");
        goto out;
    }
    rc = 0;
out:
    return proxy_stop(px, e, rc);
}

void proxy_free(struct proxy *px)
{
    if (!px)
        return;
    conn_listeners_close(px);
    while (!LIST_EMPTY(&px->conns))
        conn_close(LIST_FIRST(&px->conns), "brock is stopping");
    on_reap(-1, 0, px);
    front_cleanup(px);
    h2up_cleanup(px);
    pool_cleanup(px);
    conn_spare_cleanup(px);
    rewrite_out_cleanup(&px->rw);
    buf_cleanup(&px->head_out);
    admit_cleanup(&px->admit);
    dash_env_free(px->dash);
    dntcheck_free(px->dnt);
    refresh_free(px->refresh);
    (void)fetch_free_finished();
    if (px->sync)
        event_free(px->sync);
    offtime_free(px);
    for (size_t i = 0; i < sizeof(px->signals) / sizeof(px->signals[0]); i++)
        if (px->signals[i])
            event_free(px->signals[i]);
    if (px->grace)
        event_free(px->grace);
    if (px->reaper)
        event_free(px->reaper);
    if (px->accept_pause)
        event_free(px->accept_pause);
    if (px->accept_more)
        event_free(px->accept_more);
    intercept_free(px->mitm);
    passthrough_free(px->pass);
    conn_inject_cleanup(px);
    SSL_CTX_free(px->tls_up);
    dns_free(px->dns);
    if (px->base)
        event_base_free(px->base);
    resolve_cleanup(&px->resolve);
    access_cleanup(&px->allow);
    access_cleanup(&px->pp_from);
    firstparty_memory_cleanup(&px->firstparty);
    metrics_cleanup(&px->metrics);
    livelog_cleanup(&px->log);
    widget_allows_cleanup(&px->widgets);
    report_limits_cleanup(&px->report_limits);
    brock_site_cookies_free(px->sc);
    mem_free(px);
}
