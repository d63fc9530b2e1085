/* SPDX-License-Identifier: GPL-3.0-or-later */
/* /metrics: what brock has done since it started, in Prometheus' text exposition format
 * (version 0.0.4), every name prefixed brock_. The proxy keeps the counters (struct metrics,
 * src/monitor/) as it works, on its one loop; this file writes them as text. */
#include "dash/dash.h"

#include <stdio.h>
#include <string.h>

#include "dash/dash_api.h"
#include "util/alloc.h"

static const char *const decision_names[METRICS_DECISION_COUNT] = {
    [METRICS_DECISION_ALLOW] = "allow",       [METRICS_DECISION_COOKIEBLOCK] = "cookieblock",
    [METRICS_DECISION_BLOCK] = "block",       [METRICS_DECISION_FIRST_PARTY] = "first_party",
    [METRICS_DECISION_DISABLED] = "disabled",
};

static const char *const upstream_names[METRICS_UPSTREAM_COUNT] = {
    [METRICS_UPSTREAM_CONNECT] = "connect",
    [METRICS_UPSTREAM_CONNECT_TIMEOUT] = "connect_timeout",
    [METRICS_UPSTREAM_RESPONSE_TIMEOUT] = "response_timeout",
    [METRICS_UPSTREAM_NO_RESPONSE] = "no_response",
    [METRICS_UPSTREAM_CUT] = "cut",
    [METRICS_UPSTREAM_MALFORMED] = "malformed",
    [METRICS_UPSTREAM_STALLED] = "stalled",
    [METRICS_UPSTREAM_TLS] = "tls",
};

static const char *const dnt_names[METRICS_DNT_COUNT] = {
    [METRICS_DNT_COMPLIANT] = "compliant",
    [METRICS_DNT_NOT_COMPLIANT] = "not_compliant",
    [METRICS_DNT_FAILED] = "failed",
};

struct top {
    const char *name;
    uint64_t n;
};

/* Whether a ranks before b: more blocked, then by name, so that the list is stable. */
static int top_before(const struct top *a, const struct top *b)
{
    return a->n != b->n ? a->n > b->n : strcmp(a->name, b->name) < 0;
}

/* The METRICS_TOP_TRACKERS most blocked trackers, most first, into top. Returns how many. */
static size_t top_trackers(const struct metrics *m, struct top *top)
{
    size_t it = 0, n = 0;
    const char *key;
    void *val;

    while (m->blocked && strmap_next(m->blocked, &it, &key, &val)) {
        struct top t = {key, *(const uint64_t *)val};
        size_t i;

        if (n == METRICS_TOP_TRACKERS && !top_before(&t, &top[n - 1]))
            continue;
        if (n < METRICS_TOP_TRACKERS)
            n++;
        for (i = n - 1; i > 0 && top_before(&t, &top[i - 1]); i--)
            top[i] = top[i - 1];
        top[i] = t;
    }
    return n;
}

/* A metric's two comment lines. */
static int family(struct buf *b, const char *name, const char *type, const char *help)
{
    return buf_printf(b, "# HELP brock_%s %s\n# TYPE brock_%s %s\n", name, help, name, type);
}

/* A label's value as the format quotes it: backslash, double quote and line feed escaped. */
static int label_value(struct buf *b, const char *v)
{
    for (; *v; v++) {
        const char *esc = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" : *v == '\n' ? "\\n" : NULL;

        if (esc ? buf_puts(b, esc) < 0 : buf_append(b, v, 1) < 0)
            return -1;
    }
    return 0;
}

/* One counter family with one label over names[0..n). */
static int labelled(struct buf *b, const char *name, const char *help, const char *label,
                    const char *const *names, const uint64_t *v, size_t n)
{
    if (family(b, name, "counter", help) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (buf_printf(b, "brock_%s{%s=\"%s\"} %llu\n", name, label, names[i],
                       (unsigned long long)v[i]) < 0)
            return -1;
    return 0;
}

static int single(struct buf *b, const char *name, const char *type, const char *help, uint64_t v)
{
    return family(b, name, type, help) < 0 ||
                   buf_printf(b, "brock_%s %llu\n", name, (unsigned long long)v) < 0
               ? -1
               : 0;
}

static int write_connections(struct buf *b, const struct dash_counters *c, const struct metrics *m)
{
    const char *const reasons[] = {"busy", "forbidden"};
    const uint64_t refused[] = {c->refused, m->forbidden};

    if (single(b, "connections", "gauge", "Client connections open now.", c->connections) < 0 ||
        single(b, "connections_total", "counter", "Client connections accepted.",
               m->connections_total) < 0 ||
        single(b, "connections_cut_total", "counter",
               "Idle client connections closed to make room for others.", c->cut) < 0 ||
        labelled(b, "connections_refused_total",
                 "Client connections refused: busy (503, none could be made room for) or "
                 "forbidden (403, not in --allow).",
                 "reason", reasons, refused, 2) < 0 ||
        single(b, "tunnels_total", "counter", "CONNECT tunnels opened or intercepted.",
               c->tunnels) < 0)
        return -1;
    return 0;
}

static int write_tls(struct buf *b, const struct metrics *m)
{
    if (family(b, "tls_handshakes_total", "counter",
               "TLS handshakes: with clients (--intercept), and with origins whose "
               "certificate verified (failures there are upstream connect errors).") < 0 ||
        buf_printf(b,
                   "brock_tls_handshakes_total{side=\"client\",result=\"ok\"} %llu\n"
                   "brock_tls_handshakes_total{side=\"client\",result=\"failed\"} %llu\n"
                   "brock_tls_handshakes_total{side=\"upstream\",result=\"ok\"} %llu\n",
                   (unsigned long long)m->tls_client_ok, (unsigned long long)m->tls_client_failed,
                   (unsigned long long)m->tls_upstream_ok) < 0 ||
        single(b, "upstream_tls_resumed_total", "counter",
               "Handshakes with origins that resumed a session kept from an earlier one "
               "(among the upstream ok ones).",
               m->tls_upstream_resumed) < 0 ||
        single(b, "http2_connections_total", "counter", "Intercepted clients that chose HTTP/2.",
               m->h2_connections) < 0 ||
        single(b, "http2_streams_total", "counter",
               "Request streams of those clients, each served as one exchange.",
               m->h2_streams) < 0 ||
        single(b, "http2_sessions_refused_total", "counter",
               "HTTP/2 sessions brock ended because the client broke the protocol or a limit.",
               m->h2_refused) < 0 ||
        single(b, "http2_upstream_connections_total", "counter",
               "HTTP/2 connections to origins, each carrying all the requests to its origin.",
               m->h2up_connections) < 0 ||
        single(b, "http2_upstream_streams_total", "counter",
               "Requests sent to origins on those connections.", m->h2up_streams) < 0 ||
        single(b, "http2_upstream_coalesced_total", "counter",
               "Dials to an origin that ended at one of those connections instead: the same "
               "address, and a certificate that covers both origins.",
               m->h2up_coalesced) < 0)
        return -1;
    return 0;
}

static int write_learning(struct buf *b, const struct dash_counters *c, const struct metrics *m)
{
    const char *const events[] = {"evidence", "blocked"};
    const uint64_t v[] = {m->evidence, c->learned};
    const char *const ways[] = {livelog_way_name(0), livelog_way_name(1), livelog_way_name(2)};

    if (single(b, "urls_cleaned_total", "counter",
               "URLs whose tracking parameters brock took out (ClearURLs' rules), or whose "
               "redirect wrapper it opened.",
               c->cleaned) < 0 ||
        single(b, "uncloaked_total", "counter",
               "Requests decided by a name of their host's CNAME chain, as brock's DNS "
               "answered it (via CNAME).",
               m->uncloaked) < 0 ||
        labelled(b, "requests_by_way_total",
                 "Requests decided, by the way their client came in: as an HTTP proxy's "
                 "client, through SOCKS, or redirected to the transparent port.",
                 "way", ways, m->by_way, 3) < 0 ||
        single(b, "transparent_unnamed_total", "counter",
               "Connections redirected to brock that named no host (TLS without a server "
               "name, another protocol, a client waiting for its server): passed through "
               "untouched.",
               m->transparent_unnamed) < 0 ||
        single(b, "transparent_refused_self_total", "counter",
               "Connections made to the transparent port itself, not redirected: refused.",
               m->transparent_self) < 0)
        return -1;
    return labelled(b, "learning_events_total",
                    "What learning did: evidence (a tracker seen tracking on a site) and "
                    "blocked (a tracker blocked once seen on enough sites).",
                    "event", events, v, 2);
}

static int write_sync(struct buf *b, const struct metrics *m)
{
    uint64_t cumulative = 0;

    if (family(b, "store_sync_seconds", "histogram",
               "Time each sync of the state took (writing what was learned, reading others' "
               "changes), once a second.") < 0)
        return -1;
    for (size_t i = 0; i < METRICS_SYNC_BUCKETS; i++) {
        cumulative += m->sync_buckets[i];
        if (buf_printf(b, "brock_store_sync_seconds_bucket{le=\"%g\"} %llu\n",
                       metrics_sync_bounds[i], (unsigned long long)cumulative) < 0)
            return -1;
    }
    if (buf_printf(b,
                   "brock_store_sync_seconds_bucket{le=\"+Inf\"} %llu\n"
                   "brock_store_sync_seconds_sum %.6f\n"
                   "brock_store_sync_seconds_count %llu\n",
                   (unsigned long long)m->sync_count, m->sync_seconds,
                   (unsigned long long)m->sync_count) < 0)
        return -1;
    return 0;
}

static int write_trackers(struct buf *b, const struct metrics *m)
{
    struct top top[METRICS_TOP_TRACKERS];
    size_t n = top_trackers(m, top);

    if (family(b, "blocked_by_tracker_total", "counter",
               "Requests blocked, for the 20 most blocked trackers (base domains) since brock "
               "started.") < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (buf_puts(b, "brock_blocked_by_tracker_total{tracker=\"") < 0 ||
            label_value(b, top[i].name) < 0 ||
            buf_printf(b, "\"} %llu\n", (unsigned long long)top[i].n) < 0)
            return -1;
    return single(b, "blocked_trackers", "gauge",
                  "Trackers counted by name in brock_blocked_by_tracker_total, shown or not "
                  "(at most 1024).",
                  m->blocked ? m->blocked->len : 0);
}

static int write_state(struct buf *b, struct brock_engine *e, int64_t started_ms)
{
    size_t counts[BROCK_ACTION_COUNT], entries = 0;

    brock_counts(e, counts, &entries);
    if (family(b, "domains", "gauge", "Domains in the state, by action.") < 0)
        return -1;
    for (int a = BROCK_NOACTION; a < BROCK_ACTION_COUNT; a++)
        if (buf_printf(b, "brock_domains{action=\"%s\"} %zu\n",
                       brock_action_name((enum brock_action)a), counts[a]) < 0)
            return -1;
    if (family(b, "start_time_seconds", "gauge", "When brock started, in Unix time.") < 0 ||
        buf_printf(b, "brock_start_time_seconds %.3f\n", (double)started_ms / 1000.0) < 0 ||
        family(b, "build_info", "gauge", "brock's version.") < 0 ||
        buf_puts(b, "brock_build_info{version=\"") < 0 || label_value(b, brock_version()) < 0 ||
        buf_puts(b, "\"} 1\n") < 0)
        return -1;
    return 0;
}

int dash_api_metrics(struct dash_call *x)
{
    const struct dash_host *h = &x->env->host;
    static const struct metrics none;
    const struct metrics *m = h->metrics ? h->metrics : &none;
    struct dash_counters c = {0};
    struct buf *b = &x->text;

    if (h->counters)
        h->counters(h->counters_arg, &c);
    x->type = "text/plain; version=0.0.4; charset=utf-8";
    if (labelled(b, "requests_total", "Requests brock decided, by decision.", "decision",
                 decision_names, m->decisions, METRICS_DECISION_COUNT) < 0 ||
        write_connections(b, &c, m) < 0 ||
        labelled(b, "upstream_errors_total", "Exchanges with origins that failed, by kind.", "kind",
                 upstream_names, m->upstream_errors, METRICS_UPSTREAM_COUNT) < 0 ||
        write_tls(b, m) < 0 || write_learning(b, &c, m) < 0 || write_sync(b, m) < 0 ||
        labelled(b, "dnt_checks_total",
                 "DNT policy checks (/.well-known/dnt-policy.txt), by what they found.", "result",
                 dnt_names, c.dnt, METRICS_DNT_COUNT) < 0 ||
        write_trackers(b, m) < 0 ||
        single(b, "blocked_other_total", "counter",
               "Requests blocked to trackers past the first 1024 named.", m->blocked_other) < 0 ||
        write_state(b, x->e, h->started_ms) < 0)
        return -1;
    return 0;
}
