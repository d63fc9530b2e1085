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

/* What /api/status reports of the running host since it started. */
struct dash_counters {
    uint64_t requests, blocked, cookieblocked, tunnels, learned;
    size_t connections; /* open now */
    uint64_t cut, refused; /* connections closed to make room for others; refused with 503
                              as none could be */
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
    int intercept;               /* the host sees inside HTTPS (--intercept) */
    int inject;                  /* the host puts its script in HTML pages (not --no-inject) */
    int64_t started_ms;          /* when the host started serving (clock_now_ms()) */
    const char *token;           /* the token the page holds (hex, DASH_TOKEN_BYTES * 2
                                    digits), shared by the processes serving; NULL: a new
                                    random one; copied */
    int pid;                     /* the process answering */
    unsigned workers;            /* the processes serving (brock run --workers) */
};

struct dash_env;

/* Makes the dashboard's environment for one start of its host: h's engine, address and
 * counters, and a new random token that only the dashboard's page served in this start holds
 * (a change needs it). Returns the environment (free with dash_env_free()), or NULL with a
 * sentence in err: out of memory, no random bytes, a listening name too long. */
struct dash_env *dash_env_new(const struct dash_host *h, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Wipes the token and frees env; NULL is a no-op. */
void dash_env_free(struct dash_env *env);

/* One request to the dashboard. Everything is borrowed for the call. */
struct dash_request {
    const char *method;          /* "GET", "HEAD", "PUT", ... */
    const char *target;          /* the origin-form target: path and query */
    size_t target_len;
    const struct brock_header *h;
    size_t n;
    const char *body;            /* the whole body (NUL-terminated), "" when none */
    size_t body_len;
    int body_too_big;            /* the body passed LIMIT_DASH_BODY and was dropped */
    const char *local_host;      /* the address the client reached brock at, as a URL's
                                    host ("192.0.2.1", "[::1]"); NULL when unknown */
    int keep_alive;              /* the host keeps the connection open after the answer;
                                    else the answer says Connection: close */
};

/* Writes the whole answer to rq into out: the status line, the headers and the body; for a
 * HEAD, the headers a GET would get (its Content-Length too) and no body. Returns the
 * answer's status (200, 403, ...), or -1 when out of memory (out is then unusable). */
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
