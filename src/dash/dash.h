/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard: brock's own pages and its JSON API, answered for requests in origin form
 * (made to brock's address directly), with the rules that keep other web pages from
 * reading it through a rebound name or changing anything. Its host (the proxy) reaches it
 * through this header alone: an environment made once at start, then one call per request. */
#ifndef BROCK_DASH_H
#define BROCK_DASH_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "util/buf.h"
#include "util/strmap.h"

/* The kinds of request /metrics counts by decision (brock_requests_total's label). */
enum dash_decision {
    DASH_DECISION_ALLOW,       /* a third party passed (with DNT and GPC) */
    DASH_DECISION_COOKIEBLOCK, /* a third party sent without cookies */
    DASH_DECISION_BLOCK,       /* answered by brock; nothing went upstream */
    DASH_DECISION_FIRST_PARTY, /* the page's own site, or a private address */
    DASH_DECISION_DISABLED,    /* a site where brock is disabled */
    DASH_DECISION_COUNT
};

/* The ways an upstream exchange fails (brock_upstream_errors_total's label). */
enum dash_upstream_error {
    DASH_UPSTREAM_CONNECT,          /* no address answered, the name did not resolve: the
                                       dial gave up */
    DASH_UPSTREAM_CONNECT_TIMEOUT,  /* connecting took longer than --upstream-timeout */
    DASH_UPSTREAM_RESPONSE_TIMEOUT, /* no response head in time */
    DASH_UPSTREAM_NO_RESPONSE,      /* closed before a whole response head */
    DASH_UPSTREAM_CUT,              /* closed in the middle of a response body */
    DASH_UPSTREAM_MALFORMED,        /* a response brock cannot pass on */
    DASH_UPSTREAM_STALLED,          /* a response body stopped moving */
    DASH_UPSTREAM_TLS,              /* the TLS handshake with the origin failed (its
                                       certificate did not verify, or it spoke no TLS) */
    DASH_UPSTREAM_COUNT
};

/* A request to brock's own address is routed and checked from its head; only a route that
 * takes a body has one read (src/dash/dash.c's table), and then at most: a change (a choice,
 * a setting) DASH_LIMIT_JSON, read into memory; an import DASH_LIMIT_IMPORT, streamed to a
 * temporary file and never held in memory. Any other body, or a larger one, is refused (413)
 * unread, as is every refusal's, and the connection closes. One of its answers (an export)
 * is at most DASH_LIMIT_RESPONSE. */
#define DASH_LIMIT_JSON ((size_t)64 * 1024)
#define DASH_LIMIT_IMPORT ((uint64_t)64 * 1024 * 1024)
#define DASH_LIMIT_RESPONSE ((size_t)256 * 1024 * 1024)

/* What a DNT policy check found (brock_dnt_checks_total's label). */
enum dash_dnt_result {
    DASH_DNT_COMPLIANT,     /* the policy is an accepted text */
    DASH_DNT_NOT_COMPLIANT, /* fetched, and not an accepted text */
    DASH_DNT_FAILED,        /* the fetch failed */
    DASH_DNT_COUNT
};

/* The store's sync times are counted in these buckets (seconds, upper bounds). */
#define DASH_SYNC_BUCKETS 9

/* Blocked requests are counted per tracker (its base domain) for this many trackers; those
 * seen after are counted together. /metrics names the DASH_TOP_TRACKERS most blocked. */
#define DASH_TRACKERS_MAX 1024
#define DASH_TOP_TRACKERS 20

/* What /metrics reports, kept by the host as it works: plain counters, written by the one
 * thread of its loop and read by the dashboard on that thread, so no lock is needed. Zero it
 * (or dash_metrics_init()) before use; free with dash_metrics_cleanup(). */
struct dash_metrics {
    uint64_t decisions[DASH_DECISION_COUNT];
    uint64_t upstream_errors[DASH_UPSTREAM_COUNT];
    uint64_t connections_total;                /* accepted */
    uint64_t forbidden;                        /* refused at accept: not in --allow */
    uint64_t tls_client_ok, tls_client_failed; /* handshakes with clients (--intercept) */
    uint64_t tls_upstream_ok;                  /* handshakes with origins that verified */
    uint64_t evidence;                         /* tracking seen on a site (a snitch map entry) */
    uint64_t sync_buckets[DASH_SYNC_BUCKETS];  /* syncs that took at most each bound */
    uint64_t sync_count;
    double sync_seconds; /* their sum */
    /* Blocked requests per tracker: base domain -> uint64_t count (allocated), up to
     * DASH_TRACKERS_MAX names; the rest in blocked_other. */
    struct strmap *blocked;
    uint64_t blocked_other;
};

/* Readies m: all counters at zero. Returns 0, or -1 when out of memory. */
int dash_metrics_init(struct dash_metrics *m) __attribute__((warn_unused_result));

/* Frees what m holds; m may be zeroed or initialised. */
void dash_metrics_cleanup(struct dash_metrics *m);

/* A request to tracker (a base domain) was blocked: counted under its name while there is
 * room, else with the others. Allocates at most once per new name; out of memory counts it
 * with the others. */
void dash_metrics_blocked(struct dash_metrics *m, const char *tracker);

/* One sync of the store took seconds. */
void dash_metrics_sync(struct dash_metrics *m, double seconds);

/* What /api/status and /metrics report of the running host since it started. */
struct dash_counters {
    uint64_t requests, blocked, cookieblocked, tunnels, learned;
    size_t connections;           /* open now */
    uint64_t cut, refused;        /* connections closed to make room for others; refused with 503
                                     as none could be */
    uint64_t dnt[DASH_DNT_COUNT]; /* DNT policy checks, by what they found */
};

/* ---- the live request log (GET /api/log) ---- */

/* The requests the log remembers: the newest DASH_LOG_EVENTS, in memory only. A client of
 * the log that falls further behind is told how many it missed. */
#define DASH_LOG_EVENTS 1024

/* What a client of the log may have waiting in its connection's output before events are
 * no longer written to it (they stay in the ring for when it catches up). */
#define DASH_LOG_BACKLOG ((size_t)64 * 1024)

/* One request as the log shows it: the exchange's decision and the status its client got. */
struct dash_log_event {
    uint64_t id;     /* 1, 2, ...: the order of the events */
    int64_t time_ms; /* when it was answered (Unix time, ms) */
    char method[24];
    char host[BROCK_HOST_MAX];           /* the request's host */
    char site[BROCK_HOST_MAX];           /* the first party (base domain); "" when not known */
    unsigned char decision;              /* enum dash_decision */
    unsigned char action;                /* enum brock_action */
    unsigned char reason;                /* enum brock_reason */
    unsigned char site_fix, site_choice; /* as in struct brock_decision */
    int status;                          /* 0 when no answer went to the client */
};

/* The ring of the newest events, kept by the host on its loop's one thread like the
 * counters. dash_log_init() allocates it once; nothing is allocated per event. */
struct dash_log {
    struct dash_log_event *ring; /* DASH_LOG_EVENTS slots */
    uint64_t next_id;            /* the id the next event gets (the first is 1) */
};

/* Readies l, empty. Returns 0, or -1 when out of memory. */
int dash_log_init(struct dash_log *l) __attribute__((warn_unused_result));

/* Frees what l holds; l may be zeroed or initialised. */
void dash_log_cleanup(struct dash_log *l);

/* The slot of a new event, its id and everything else zeroed, for the caller to fill in
 * before it returns to the loop; the oldest event makes way for it when the ring is full. */
struct dash_log_event *dash_log_add(struct dash_log *l);

/* Writes the events from id *next to the newest into out as Server-Sent Events (an "id:"
 * line and a "data:" line of JSON each), stopping once out holds room bytes or more, and
 * moves *next past what it wrote. When *next fell out of the ring, an event "skipped" says
 * how many were missed first. Returns 0, or -1 when out of memory (*next then names the
 * first event not written). */
int dash_log_write(const struct dash_log *l, uint64_t *next, struct buf *out, size_t room)
    __attribute__((warn_unused_result));

/* What the dashboard needs from its host. */
struct dash_host {
    struct brock_engine *engine; /* borrowed: outlives the environment */
    const char *listen_name;     /* where the host listens, "127.0.0.1:8119" or "[::1]:8119";
                                    copied */
    /* Fills out with the host's counters as they are now; arg is counters_arg. NULL: all
     * are reported as 0. */
    void (*counters)(void *arg, struct dash_counters *out);
    void *counters_arg;
    int intercept;         /* the host sees inside HTTPS */
    const char *https_why; /* a sentence: whether it does and why; static storage */
    const char *https_fix; /* the command that lets it see inside HTTPS, when it does
                              not for want of a trusted CA; copied; NULL: none */
    int inject;            /* the host puts its script in HTML pages (not --no-inject) */
    int64_t started_ms;    /* when the host started serving (clock_now_ms()) */
    const struct dash_metrics *metrics; /* borrowed: outlives the environment; NULL: /metrics
                                           reports the counters alone */
    const char *ca_cert;                /* the local CA's certificate file, which may not exist
                                           (/ca.pem answers 404 then); copied; NULL: none */
    const char *token;                  /* the token the page holds (hex, DASH_TOKEN_BYTES * 2
                                           digits), shared by the processes serving; NULL: a new
                                           random one; copied */
    const struct dash_log *log;         /* borrowed: outlives the environment; NULL: /api/log
                                           answers 404 */
    /* Why host is passed through unseen when brock sees inside HTTPS (the host's list,
     * proxy/passthrough.h), as a sentence into why; NULL when it is seen inside. e NULL: the
     * lists the host ships and is started with alone. NULL callback: nothing is. */
    const char *(*passthrough_why)(void *arg, const struct brock_engine *e, const char *host,
                                   char *why, size_t size);
    void *passthrough_arg;
    size_t passthrough_shipped; /* how many hosts the host ships on its list */
    int pid;                    /* the process answering */
    unsigned workers;           /* the processes serving (brock run --workers) */
};

struct dash_env;

/* Makes the dashboard's environment for one start of its host: h's engine, address and
 * counters, and a new random token that only the dashboard's page served in this start holds
 * (a change needs it). Returns the environment (free with dash_env_free()), or NULL with a
 * sentence in err: out of memory, no random bytes, a listening name too long. */
struct dash_env *dash_env_new(const struct dash_host *h, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The host names that the proxy auto-config file (/proxy.pac) sends DIRECT (--no-proxy):
 * globs as shExpMatch() reads them, n of them, borrowed until the next call or until env is
 * freed. Each has been checked by dash_no_proxy_check(). */
void dash_env_set_no_proxy(struct dash_env *env, const char *const *globs, size_t n);

/* Whether glob may name hosts to go DIRECT: a host name, an address, or a shell glob of
 * them ("*.example.com"), of letters, digits, '.', '-', '_', ':' and '*'. Returns 0, or -1
 * with a sentence in err. */
int dash_no_proxy_check(const char *glob, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Wipes the token and frees env; NULL is a no-op. */
void dash_env_free(struct dash_env *env);

/* A body whose length its head does not say (chunked). */
#define DASH_BODY_UNKNOWN UINT64_MAX

/* One request to the dashboard. Everything is borrowed for the call. */
struct dash_request {
    const char *method; /* "GET", "HEAD", "PUT", ... */
    const char *target; /* the origin-form target: path and query */
    size_t target_len;
    const struct brock_header *h;
    size_t n;
    uint64_t body_declared; /* the body its head declares: 0 for none, its
                               Content-Length, or DASH_BODY_UNKNOWN */
    const char *body;       /* the whole body (NUL-terminated), "" when none or in a
                               file */
    size_t body_len;
    int body_fd;            /* the body in a file, read from its start, for a route that
                               takes it so (dash_body.to_file); -1: none */
    int body_too_big;       /* the body passed the route's cap as it came, and the rest
                               was not read */
    const char *local_host; /* the address the client reached brock at, as a URL's
                               host ("192.0.2.1", "[::1]"); NULL when unknown */
    int keep_alive;         /* the host keeps the connection open after the answer;
                               else the answer says Connection: close */
    /* GET /api/log: the host can hold one more live stream (stream_ok, in); the answer is
     * the head of one (stream, out: set to 1), whose events the host then writes with
     * dash_log_write() from id *stream_next (out) until the client leaves. NULL: the host
     * holds no streams (the log answers 503). */
    struct dash_stream *stream;
};

struct dash_stream {
    int stream_ok;
    int stream;
    uint64_t stream_next;
};

/* What a request's route takes of a body: at most max bytes (0: none), read into memory, or
 * (to_file) streamed by the host to a temporary file that the route reads. */
struct dash_body {
    uint64_t max;
    int to_file;
};

/* Checks rq from its head alone, before any of its body is read (rq's body fields but
 * body_declared are not looked at): its Host, route, method, for a change its Origin and
 * token, and the body its head declares against what the route takes. Returns 0 when the
 * request may go on, with what its route takes of a body in *body; or the status of a
 * refusal (403, 404, 405, 413, ...) whose whole answer is written to out, saying
 * Connection: close unless rq->keep_alive (a host that did not read the body closes the
 * connection after it); or -1 when out of memory. */
int dash_admit(const struct dash_env *env, const struct dash_request *rq, struct dash_body *body,
               struct buf *out) __attribute__((warn_unused_result));

/* Writes the whole answer to rq into out: the status line, the headers and the body; for a
 * HEAD, the headers a GET would get (its Content-Length too) and no body. Every check of
 * dash_admit() is made again. Returns the answer's status (200, 403, ...), or -1 when out of
 * memory (out is then unusable). */
int dash_respond(const struct dash_env *env, const struct dash_request *rq, struct buf *out)
    __attribute__((warn_unused_result));

/* The files of web/, built into the binary (the generated web_files.c). */
struct dash_file {
    const char *name; /* "index.html" */
    const unsigned char *data;
    size_t len;
};

extern const struct dash_file dash_files[];
extern const size_t dash_n_files;

#endif
