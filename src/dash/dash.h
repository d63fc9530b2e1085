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
#include "monitor/livelog.h"
#include "monitor/metrics.h"
#include "util/buf.h"

/* A request to brock's own address is routed and checked from its head; only a route that
 * takes a body has one read (src/dash/dash.c's table), and then at most: a change (a choice,
 * a setting) DASH_LIMIT_JSON, read into memory; an import DASH_LIMIT_IMPORT, streamed to a
 * temporary file and never held in memory. Any other body, or a larger one, is refused (413)
 * unread, as is every refusal's, and the connection closes. One of its answers (an export)
 * is at most DASH_LIMIT_RESPONSE. */
#define DASH_LIMIT_JSON ((size_t)64 * 1024)
#define DASH_LIMIT_IMPORT ((uint64_t)64 * 1024 * 1024)
#define DASH_LIMIT_RESPONSE ((size_t)256 * 1024 * 1024)

/* What /api/status and /metrics report of the running host since it started. */
struct dash_counters {
    uint64_t requests, blocked, cookieblocked, tunnels, learned;
    uint64_t cleaned;                /* URLs with tracking parameters taken out */
    uint64_t ways[3];                /* requests by the way their client came in: as a proxy's,
                                        through SOCKS, redirected (livelog_way_name()) */
    size_t connections;              /* open now */
    uint64_t cut, refused;           /* connections closed to make room for others; refused with 503
                                     as none could be */
    uint64_t dnt[METRICS_DNT_COUNT]; /* DNT policy checks, by what they found */
};

/* What the dashboard needs from its host. */
struct dash_host {
    struct brock_engine *engine; /* borrowed: outlives the environment */
    const char *listen_name;     /* where the host listens, "127.0.0.1:8119" or "[::1]:8119";
                                    copied */
    /* Fills out with the host's counters as they are now; arg is counters_arg. NULL: all
     * are reported as 0. */
    void (*counters)(void *arg, struct dash_counters *out);
    void *counters_arg;
    int intercept;                 /* the host sees inside HTTPS */
    const char *https_why;         /* a sentence: whether it does and why; static storage */
    const char *https_flag;        /* the option that chose it ("--intercept"), or NULL;
                                      static storage */
    const char *https_fix;         /* the command that lets it see inside HTTPS, when it does
                              not for want of a trusted CA; copied; NULL: none */
    int inject;                    /* the host puts its script in HTML pages (not --no-inject) */
    int64_t started_ms;            /* when the host started serving (clock_now_ms()) */
    const struct metrics *metrics; /* borrowed: outlives the environment; NULL: /metrics
                                           reports the counters alone */
    const char *ca_cert;           /* the local CA's certificate file, which may not exist
                                           (/ca.pem answers 404 then); copied; NULL: none */
    const char *token;             /* the token the page holds (hex, DASH_TOKEN_BYTES * 2
                                           digits), shared by the processes serving; NULL: a new
                                           random one; copied */
    const struct livelog *log;     /* borrowed: outlives the environment; NULL: /api/log
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
    const char *state_dir;      /* where the owner's file is (owner.h); NULL: no password
                                   can be set, and only clients of this machine manage brock */
    /* The name the owner gave the client at address (text), into out; "" when none. NULL:
     * no names. */
    void (*client_name)(void *arg, const char *address, char *out, size_t size);
    void *client_name_arg;
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
    int body_fd;             /* the body in a file, read from its start, for a route that
                               takes it so (dash_body.to_file); -1: none */
    int body_too_big;        /* the body passed the route's cap as it came, and the rest
                               was not read */
    const char *local_host;  /* the address the client reached brock at, as a URL's
                               host ("192.0.2.1", "[::1]"); NULL when unknown */
    int keep_alive;          /* the host keeps the connection open after the answer;
                               else the answer says Connection: close */
    const char *client;      /* the client's address, as text without a port; NULL when
                               unknown */
    int client_local;        /* the client is this machine (brock run --local): it manages
                               brock without signing in */
    int tls;                 /* the request came over TLS (the dashboard over HTTPS) */
    const char *client_name; /* the name the owner gave the client (--client); "" or NULL:
                                none */
    /* GET /api/log: the host can hold one more live stream (stream_ok, in); the answer is
     * the head of one (stream, out: set to 1), whose events the host then writes with
     * livelog_write() from id *stream_next (out) until the client leaves. NULL: the host
     * holds no streams (the log answers 503). */
    struct dash_stream *stream;
};

struct dash_stream {
    int stream_ok;
    int stream;
    uint64_t stream_next;
    int own; /* out: the client's own events alone (it is not the owner) */
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
