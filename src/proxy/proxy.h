/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proxy's entry point, as the command line sees it. */
#ifndef BROCK_PROXY_H
#define BROCK_PROXY_H

#include <stddef.h>

struct brock_engine;

struct proxy_options {
    const char *listen;               /* "ADDR:PORT", "[V6]:PORT"; NULL: 127.0.0.1:8119 */
    const char *const *resolve;       /* --resolve HOSTGLOB[:PORT]=ADDR:PORT specs, as given */
    size_t n_resolve;
    const char *upstream_ca;          /* extra trusted roots for upstream TLS, or NULL */
    const char *state_dir;            /* the state folder (the local CA lives in ca/) */
    int intercept;                    /* --intercept */
    const char *const *no_intercept;  /* --no-intercept HOSTGLOB: tunnelled unseen */
    size_t n_no_intercept;
    int no_update;                    /* --no-update: no daily pbconfig.json refresh */
    int verbosity;                    /* 0: errors only (-q), 1: default, 2: every request (-v) */
    const char *const *allow;         /* --allow CIDR: who may connect; none: loopback only */
    size_t n_allow;
    const char *user;                 /* --user NAME to become when started as root, or NULL */
    int header_timeout;               /* --header-timeout seconds; 0: TIMEOUT_HEAD */
    int upstream_timeout;             /* --upstream-timeout seconds (connecting, and silence
                                       * before a response head); 0: limits.h's */
};

#define PROXY_DEFAULT_LISTEN "127.0.0.1:8119"

/* Checks the shape of o's --listen and --resolve specs without opening anything, so that a
 * typo is a usage error. Returns 0, or -1 with a sentence naming the spec in err. */
int proxy_options_check(const struct proxy_options *o, char *err, size_t errlen);

/* Runs the proxy and dashboard on e until SIGINT or SIGTERM, then flushes the state.
 * Returns the process exit status: 0 after a clean stop, 1 when it could not start (a
 * message on stderr says why: a bad --listen or --resolve, a port in use). */
int proxy_run(struct brock_engine *e, const struct proxy_options *o);

#endif
