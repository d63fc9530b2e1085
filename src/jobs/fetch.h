/* SPDX-License-Identifier: GPL-3.0-or-later */
/* brock's own GET of one URL, for the DNT policy checks and Privacy Badger's configuration:
 * connected as the proxy's upstreams are (the dialer, with --resolve and verified TLS), no
 * cookies sent or kept, no redirect followed, a size limit and one deadline, so that a slow
 * or hostile server costs a socket for a few seconds and nothing else. */
#ifndef BROCK_JOBS_FETCH_H
#define BROCK_JOBS_FETCH_H

#include <stddef.h>

#include "net/dial.h"

/* A DNT policy text larger than this is not one (the EFF policy is about 10 KiB). */
#define FETCH_DNT_MAX ((size_t)64 * 1024)

/* pbconfig.json is about 60 KiB; room for it to grow. */
#define FETCH_PBCONFIG_MAX ((size_t)4 * 1024 * 1024)

/* ClearURLs' rules are about 100 KiB; the same room. */
#define FETCH_CLEARURLS_MAX ((size_t)4 * 1024 * 1024)

/* The whole fetch, from resolving to the last byte, in seconds. */
#define FETCH_TIMEOUT 10

enum fetch_status {
    FETCH_OK = 0,      /* a 2xx response, all of its body read */
    FETCH_STATUS,      /* another status */
    FETCH_REDIRECT,    /* a 3xx: never followed */
    FETCH_TOO_LARGE,   /* the body passed the limit */
    FETCH_TIMEOUT_HIT, /* the deadline passed */
    FETCH_FAILED,      /* resolving, connecting, TLS or the response's syntax */
};

/* The outcome, borrowed for the callback's duration. */
struct fetch_result {
    enum fetch_status status;
    int http_status;  /* 0 when no response head arrived */
    const char *body; /* the body read (NUL-terminated), "" when none */
    size_t len;
    const char *why; /* a sentence: what happened, for logs and messages */
};

struct fetch;

/* Starts a GET of url (https://HOST[:PORT]/PATH, or http://) taking at most max body bytes.
 * cb is called exactly once, never before fetch_start() returns, unless the fetch is
 * cancelled; the fetch frees itself after cb. Returns 0 and the fetch in *out (may be
 * NULL), or -1 for a URL it cannot fetch or out of memory (cb is then never called). */
int fetch_start(const struct dial_env *env, const char *url, size_t max,
                void (*cb)(void *arg, const struct fetch_result *r), void *arg, struct fetch **out)
    __attribute__((warn_unused_result));

/* Stops a fetch whose callback has not run; it never will. */
void fetch_cancel(struct fetch *f);

/* Frees the fetches whose callback has run but whose loop stopped before freeing them (a
 * stop right after a fetch ended). Called before the loop itself is freed. Returns how many
 * there were. */
size_t fetch_free_finished(void);

struct jobs_options;

/* For commands that run one fetch and stop: fetch_start() on a loop of its own, with a
 * resolver, o's --resolve specs and a context that trusts o's roots. cb runs once, on the
 * loop, as fetch_start()'s does. Returns 0 once it has, or -1 with err set when the fetch
 * could not even start (a bad --resolve spec or --upstream-ca file, a bad URL); cb is then
 * never called. */
int fetch_once(const struct jobs_options *o, const char *url, size_t max,
               void (*cb)(void *arg, const struct fetch_result *r), void *arg, char *err,
               size_t errlen) __attribute__((warn_unused_result));

#endif
