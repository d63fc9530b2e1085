/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the running proxy counts as it works, for /metrics: plain counters the proxy keeps on
 * its loop's one thread and hands to the dashboard, which reads them on that thread and writes
 * them out (src/dash/dash_metrics.c). Neither side locks. */
#ifndef BROCK_MONITOR_METRICS_H
#define BROCK_MONITOR_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "util/strmap.h"

/* The kinds of request /metrics counts by decision (brock_requests_total's label). */
enum metrics_decision {
    METRICS_DECISION_ALLOW,       /* a third party passed (with DNT and GPC) */
    METRICS_DECISION_COOKIEBLOCK, /* a third party sent without cookies */
    METRICS_DECISION_BLOCK,       /* answered by brock; nothing went upstream */
    METRICS_DECISION_FIRST_PARTY, /* the page's own site, or a private address */
    METRICS_DECISION_DISABLED,    /* a site where brock is disabled */
    METRICS_DECISION_COUNT
};

/* The ways an upstream exchange fails (brock_upstream_errors_total's label). */
enum metrics_upstream_error {
    METRICS_UPSTREAM_CONNECT,          /* no address answered, the name did not resolve: the
                                       dial gave up */
    METRICS_UPSTREAM_CONNECT_TIMEOUT,  /* connecting took longer than --upstream-timeout */
    METRICS_UPSTREAM_RESPONSE_TIMEOUT, /* no response head in time */
    METRICS_UPSTREAM_NO_RESPONSE,      /* closed before a whole response head */
    METRICS_UPSTREAM_CUT,              /* closed in the middle of a response body */
    METRICS_UPSTREAM_MALFORMED,        /* a response brock cannot pass on */
    METRICS_UPSTREAM_STALLED,          /* a response body stopped moving */
    METRICS_UPSTREAM_TLS,              /* the TLS handshake with the origin failed (its
                                       certificate did not verify, or it spoke no TLS) */
    METRICS_UPSTREAM_COUNT
};

/* What a DNT policy check found (brock_dnt_checks_total's label). */
enum metrics_dnt_result {
    METRICS_DNT_COMPLIANT,     /* the policy is an accepted text */
    METRICS_DNT_NOT_COMPLIANT, /* fetched, and not an accepted text */
    METRICS_DNT_FAILED,        /* the fetch failed */
    METRICS_DNT_COUNT
};

/* The store's sync times are counted in these buckets (seconds, upper bounds). */
#define METRICS_SYNC_BUCKETS 9
extern const double metrics_sync_bounds[METRICS_SYNC_BUCKETS];

/* Blocked requests are counted per tracker (its base domain) for this many trackers; those
 * seen after are counted together. /metrics names the METRICS_TOP_TRACKERS most blocked. */
#define METRICS_TRACKERS_MAX 1024
#define METRICS_TOP_TRACKERS 20

/* What /metrics reports, kept by the proxy as it works: plain counters, written by the one
 * thread of its loop and read by the dashboard on that thread, so no lock is needed. Zero it
 * (or metrics_init()) before use; free with metrics_cleanup(). */
struct metrics {
    uint64_t decisions[METRICS_DECISION_COUNT];
    uint64_t upstream_errors[METRICS_UPSTREAM_COUNT];
    uint64_t connections_total;                /* accepted */
    uint64_t forbidden;                        /* refused at accept: not in --allow */
    uint64_t tls_client_ok, tls_client_failed; /* handshakes with clients (--intercept) */
    uint64_t tls_upstream_ok;                  /* handshakes with origins that verified */
    uint64_t tls_upstream_resumed;             /* of those, resumed sessions */
    uint64_t h2_connections;                   /* clients that chose HTTP/2 (intercepted) */
    uint64_t h2_streams;                       /* their request streams served */
    uint64_t h2_refused;                       /* their sessions ended for breaking HTTP/2 */
    uint64_t h2up_connections;                 /* HTTP/2 connections to origins */
    uint64_t h2up_streams;                     /* requests sent on them */
    uint64_t h2up_coalesced;                   /* dials that ended at one (coalesced) */
    uint64_t evidence;                         /* tracking seen on a site (a snitch map entry) */
    uint64_t uncloaked; /* requests decided by a name of their host's CNAME chain from DNS */
    uint64_t by_way[3]; /* requests decided, by the way their client came in (enum conn_way:
                         * proxy, SOCKS, transparent) */
    uint64_t transparent_unnamed; /* redirected connections passed without a name (TLS
                                   * without SNI, another protocol, silence) */
    uint64_t transparent_self;    /* connections to the transparent port not redirected */
    uint64_t sync_buckets[METRICS_SYNC_BUCKETS]; /* syncs that took at most each bound */
    uint64_t sync_count;
    double sync_seconds; /* their sum */
    /* Blocked requests per tracker: base domain -> uint64_t count (allocated), up to
     * METRICS_TRACKERS_MAX names; the rest in blocked_other. */
    struct strmap *blocked;
    uint64_t blocked_other;
};

/* Readies m: all counters at zero. Returns 0, or -1 when out of memory. */
int metrics_init(struct metrics *m) __attribute__((warn_unused_result));

/* Frees what m holds; m may be zeroed or initialised. */
void metrics_cleanup(struct metrics *m);

/* A request to tracker (a base domain) was blocked: counted under its name while there is
 * room, else with the others. Allocates at most once per new name; out of memory counts it
 * with the others. */
void metrics_blocked(struct metrics *m, const char *tracker);

/* One sync of the store took seconds. */
void metrics_sync(struct metrics *m, double seconds);

#endif
