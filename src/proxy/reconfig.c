/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The options read again on SIGHUP. The tables they make (--allow's ranges, --resolve's
 * rules) are built whole before they replace the old ones, between two turns of the loop, so
 * that no connection ever sees half of one; nothing a connection holds points into them.
 * What was decided at start (the listening socket, the CA, the user brock runs as, the
 * upstream roots, the jobs and the script put in pages) stays, and the log says so.
 */
#include "proxy/reconfig.h"

#include <stdio.h>
#include <string.h>

#include "dash/dash.h"
#include "proxy/conn.h"
#include "proxy/intercept.h"
#include "proxy/limits.h"
#include "proxy/proxy.h"
#include "util/log.h"

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static int same_list(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return 0;
    return 1;
}

/* Says each option that needs a restart and changed from o to n. */
static void say_restart_only(const struct proxy_options *o, const struct proxy_options *n)
{
    static const char why[] = "it takes a restart, so the value in force stays";

    if (!same_text(o->listen, n->listen))
        log_msg(LOG_ERR, "SIGHUP: 'listen' changed; %s (%s)", why,
                o->listen ? o->listen : PROXY_DEFAULT_LISTEN);
    if (o->intercept != n->intercept)
        log_msg(LOG_ERR, "SIGHUP: 'intercept' changed; %s (%s)", why, o->intercept ? "on" : "off");
    if (!same_text(o->user, n->user))
        log_msg(LOG_ERR, "SIGHUP: 'user' changed; %s", why);
    if (!same_text(o->upstream_ca, n->upstream_ca))
        log_msg(LOG_ERR, "SIGHUP: 'upstream-ca' changed; %s", why);
    if (!same_list(o->dns, o->n_dns, n->dns, n->n_dns))
        log_msg(LOG_ERR, "SIGHUP: 'dns' changed; %s", why);
    if (o->no_update != n->no_update)
        log_msg(LOG_ERR, "SIGHUP: 'no-update' changed; %s", why);
    if (o->no_inject != n->no_inject)
        log_msg(LOG_ERR, "SIGHUP: 'no-inject' changed; %s", why);
    if (!same_text(o->log_file, n->log_file))
        log_msg(LOG_ERR, "SIGHUP: 'log-file' changed; %s", why);
    if (!same_list(o->proxy_protocol_from, o->n_proxy_protocol_from, n->proxy_protocol_from,
                   n->n_proxy_protocol_from))
        log_msg(LOG_ERR, "SIGHUP: 'proxy-protocol-from' changed; %s", why);
    /* Each worker says it: the first alone speaks for all. */
    if (o->workers != n->workers && proxy_worker_is_first(o->worker))
        log_msg(LOG_ERR, "SIGHUP: 'workers' changed; %s", why);
}

/* Appends name to the list of options applied (out, size bytes). */
static void note(char *out, size_t size, const char *name)
{
    size_t used = strlen(out);

    snprintf(out + used, size - used, "%s%s", used ? ", " : "", name);
}

/* The lists, built before anything changes; on failure (the caller checked their specs:
 * out of memory) those in force stay, said in the log. */
static int build_lists(const struct proxy_options *n, struct access_list *allow,
                       struct resolve_table *resolve)
{
    char err[512];

    for (size_t i = 0; i < n->n_allow; i++)
        if (access_add(allow, n->allow[i], err, sizeof(err)) < 0)
            goto fail;
    for (size_t i = 0; i < n->n_resolve; i++)
        if (resolve_add(resolve, n->resolve[i], err, sizeof(err)) < 0)
            goto fail;
    return 0;
fail:
    log_msg(LOG_ERR, "SIGHUP: 'allow' and 'resolve' stay as they were: %s", err);
    access_cleanup(allow);
    resolve_cleanup(resolve);
    return -1;
}

/* The lists the dashboard reads: --no-proxy (dash_env_set_no_proxy()), --local and --client
 * (from px->live at each request). Notes those that changed. */
static void note_pages_lists(const struct proxy_options *o, const struct proxy_options *n,
                             char *changed, size_t size)
{
    if (!same_list(o->no_proxy, o->n_no_proxy, n->no_proxy, n->n_no_proxy))
        note(changed, size, "no-proxy");
    if (!same_list(o->local, o->n_local, n->local, n->n_local))
        note(changed, size, "local");
    if (!same_list(o->clients, o->n_clients, n->clients, n->n_clients))
        note(changed, size, "client");
}

void reconfig_apply(struct proxy *px, const struct proxy_options *n)
{
    const struct proxy_options *o = px->live;
    struct access_list allow = {NULL, 0};
    struct resolve_table resolve = {NULL, 0};
    char changed[512] = "";

    say_restart_only(px->opts, n);
    if (build_lists(n, &allow, &resolve) == 0) {
        if (!same_list(o->allow, o->n_allow, n->allow, n->n_allow))
            note(changed, sizeof(changed), "allow");
        access_cleanup(&px->allow);
        px->allow = allow;
        if (!same_list(o->resolve, o->n_resolve, n->resolve, n->n_resolve))
            note(changed, sizeof(changed), "resolve");
        resolve_cleanup(&px->resolve);
        px->resolve = resolve;
    }
    if (!same_list(o->no_intercept, o->n_no_intercept, n->no_intercept, n->n_no_intercept))
        note(changed, sizeof(changed), "no-intercept");
    if (px->mitm) {
        px->no_intercept = n->no_intercept;
        px->n_no_intercept = n->n_no_intercept;
    }
    note_pages_lists(o, n, changed, sizeof(changed));
    if (px->dash)
        dash_env_set_no_proxy(px->dash, n->no_proxy, n->n_no_proxy);
    if (o->header_timeout != n->header_timeout)
        note(changed, sizeof(changed), "header-timeout");
    px->t_head = n->header_timeout > 0 ? n->header_timeout : TIMEOUT_HEAD;
    if (o->upstream_timeout != n->upstream_timeout)
        note(changed, sizeof(changed), "upstream-timeout");
    px->t_connect = n->upstream_timeout > 0 ? n->upstream_timeout : TIMEOUT_CONNECT;
    px->t_response = n->upstream_timeout > 0 ? n->upstream_timeout : TIMEOUT_RESPONSE;
    if (o->max_client_connections != n->max_client_connections)
        note(changed, sizeof(changed), "max-client-connections");
    if (o->max_learned != n->max_learned) {
        if (brock_learned_limit(px->engine,
                                n->max_learned ? n->max_learned : BROCK_MAX_LEARNED_DEFAULT) < 0)
            log_msg(LOG_ERR, "SIGHUP: 'max-learned-trackers': %s", brock_engine_errmsg(px->engine));
        else
            note(changed, sizeof(changed), "max-learned-trackers");
    }
    px->admit.per_client = n->max_client_connections;
    /* New handshakes offer h2 or not; connections that chose it keep it. */
    if (o->no_http2 != n->no_http2)
        note(changed, sizeof(changed), n->no_http2 ? "no-http2" : "http2");
    if (px->mitm)
        intercept_set_h2(px->mitm, !n->no_http2);
    if (o->grace != n->grace)
        note(changed, sizeof(changed), "grace");
    if (o->verbosity != n->verbosity)
        note(changed, sizeof(changed), n->verbosity > o->verbosity ? "verbose" : "quiet");
    log_verbosity = n->verbosity;
    px->live = n;
    log_msg(LOG_INFO, "SIGHUP: options: %s%s", *changed ? "applied at once: " : "",
            *changed ? changed : "none changed");
}
