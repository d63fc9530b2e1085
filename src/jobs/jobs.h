/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the commands ask of brock's background jobs: `brock dnt` and `brock update` run the
 * fetch that `brock run`'s DNT queue and daily refresh run, and apply its outcome to the
 * engine the same way, with the command's own --resolve and --upstream-ca. */
#ifndef BROCK_JOBS_JOBS_H
#define BROCK_JOBS_JOBS_H

#include <stddef.h>

#include "brock.h"

/* Where Privacy Badger's current configuration is published. */
#define JOBS_PBCONFIG_URL "https://www.eff.org/files/pbconfig.json"

/* Where ClearURLs publishes its rules (its extension's default rules URL). */
#define JOBS_CLEARURLS_URL "https://rules2.clearurls.xyz/data.minify.json"

/* How a command connects out: its options as given. Borrowed for each call. */
struct jobs_options {
    const char *const *resolve; /* n_resolve --resolve HOSTGLOB[:PORT]=ADDR:PORT specs */
    size_t n_resolve;
    const char *upstream_ca; /* --upstream-ca: extra trusted roots (PEM), or NULL */
};

/* Checks the shape of o's --resolve specs without opening anything, so that a typo is a
 * usage error. Returns 0, or -1 with a sentence naming the spec in err. */
int jobs_options_check(const struct jobs_options *o, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* What one DNT policy check found. */
struct jobs_dnt_result {
    int compliant; /* the text is an accepted EFF DNT policy */
    int fetched;   /* a 2xx response came whole: len bytes */
    size_t len;
    char url[BROCK_HOST_MAX + 64]; /* the policy's URL */
    char why[1024];                /* what the fetch found, a sentence (for one not fetched) */
};

/* `brock dnt`: fetches the DNT policy of domain (normalised) now, as the running proxy's
 * queue does, and records the outcome in e, compliant or not. Returns 0 with *r filled, or
 * -1 with a sentence in err when the check could not run (an --upstream-ca file without
 * certificates) or e could not record it. */
int jobs_dnt_check(struct brock_engine *e, const struct jobs_options *o, const char *domain,
                   struct jobs_dnt_result *r, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* `brock update`: fetches JOBS_PBCONFIG_URL and applies it to e whole, as the daily refresh
 * does. Returns 0 with *st filled, or -1 with a sentence in err: the fetch failed, the list
 * did not validate (e is then unchanged, and err says so), or the fetch could not run. */
int jobs_update(struct brock_engine *e, const struct jobs_options *o, struct brock_update_stats *st,
                char *err, size_t errlen) __attribute__((warn_unused_result));

/* `brock update`, second part: fetches JOBS_CLEARURLS_URL and makes it the rules e cleans
 * URLs by, kept in the state (brock_clearurls_update()), as the daily refresh does. Returns
 * 0 with *providers set, or -1 with a sentence in err (e's rules then unchanged). */
int jobs_update_clearurls(struct brock_engine *e, const struct jobs_options *o, size_t *providers,
                          char *err, size_t errlen) __attribute__((warn_unused_result));

/* What jobs_get() brought back. */
struct jobs_get_result {
    int http_status; /* 0 when no response came */
    char *body;      /* the body (NUL-terminated; free with mem_free), NULL unless 2xx */
    size_t len;
};

/* A plain GET of url (http://ADDR:PORT/PATH: another brock's dashboard, for `brock status`),
 * with the fetch's deadline, at most max body bytes, no proxy, no --resolve. Returns 0 with
 * *r filled (a status that is not 2xx too), or -1 with a sentence in err: nothing answered
 * (the connection refused, the deadline passed), or the answer was cut or too large. */
int jobs_get(const char *url, size_t max, struct jobs_get_result *r, char *err, size_t errlen)
    __attribute__((warn_unused_result));

#endif
