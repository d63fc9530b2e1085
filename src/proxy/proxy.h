/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proxy's entry point, as the command line sees it. */
#ifndef BROCK_PROXY_H
#define BROCK_PROXY_H

#include <stddef.h>

struct brock_engine;
struct proxy_worker;

/* Whether brock sees inside HTTPS, and why: what its first lines, /api/status and the
 * dashboard say. */
enum proxy_https {
    PROXY_HTTPS_AUTO = 0,  /* not decided yet: the command line decides before proxy_new() */
    PROXY_HTTPS_FORCED,    /* --intercept: seen inside */
    PROXY_HTTPS_TRUSTED,   /* its CA is in this machine's system store: seen inside */
    PROXY_HTTPS_OFF,       /* --no-intercept, or intercept = no: passed unseen by choice */
    PROXY_HTTPS_NO_CA,     /* there is no CA yet: passed unseen */
    PROXY_HTTPS_UNTRUSTED, /* its CA is not in the system store: passed unseen */
};

struct proxy_options {
    const char *listen;         /* "ADDR:PORT", "[V6]:PORT"; NULL: 127.0.0.1:8119 */
    const char *socks;          /* --socks ADDR:PORT: SOCKS5 clients there too; NULL: none */
    const char *transparent;    /* --transparent [ADDR:]PORT: connections redirected to brock
                                 * there too (nftables); NULL: none */
    const char *const *resolve; /* --resolve HOSTGLOB[:PORT]=ADDR:PORT specs, as given */
    size_t n_resolve;
    const char *upstream_ca;         /* extra trusted roots for upstream TLS, or NULL */
    const char *state_dir;           /* the state folder (the local CA lives in ca/) */
    int intercept;                   /* see inside HTTPS: https is FORCED or TRUSTED */
    enum proxy_https https;          /* why (AUTO until the command line decides) */
    const char *ca_install_cmd;      /* the command that has this machine trust the CA, as
                                        * the user would type it, for messages */
    const char *const *no_intercept; /* --no-intercept HOSTGLOB: tunnelled unseen */
    size_t n_no_intercept;
    const char *const *no_proxy; /* --no-proxy HOSTGLOB: DIRECT in /proxy.pac */
    size_t n_no_proxy;
    int no_inject;            /* --no-inject: pages pass without brock's script */
    int no_http2;             /* --no-http2: HTTP/1.1 alone, inside intercepted tunnels and
                               * with origins */
    int no_update;            /* --no-update: no daily refresh of the lists */
    int verbosity;            /* 0: errors only (-q), 1: default, 2: every request (-v) */
    const char *const *allow; /* --allow CIDR: who may connect; none: loopback only */
    size_t n_allow;
    const char *const *local; /* --local CIDR: the clients that are this machine, which manage
                               * brock without the owner's password, or "none"; none given:
                               * loopback, and a client at the address it reached brock at */
    size_t n_local;
    const char *const *clients; /* --client NAME=CIDR: the names of clients, for the pages */
    size_t n_clients;
    const char *const *dns; /* --dns ADDR:PORT: the name servers brock asks; none: those of
                             * /etc/resolv.conf */
    size_t n_dns;
    const char *const *proxy_protocol_from; /* --proxy-protocol-from CIDR: balancers whose
                                               * connections begin with a PROXY protocol header */
    size_t n_proxy_protocol_from;
    const char *user;                  /* --user NAME to become when started as root, or NULL */
    int header_timeout;                /* --header-timeout seconds; 0: TIMEOUT_HEAD */
    int upstream_timeout;              /* --upstream-timeout seconds (connecting, and silence
                                          * before a response head); 0: limits.h's */
    const char *ca_init_cmd;           /* the command that makes this state's CA, for
                                          * messages; NULL: "brock ca init" */
    int grace;                         /* --grace seconds for exchanges in flight to finish
                                          * once told to stop; 0: none */
    size_t max_client_connections;     /* at once from one client address; 0: no cap */
    size_t max_learned;                /* --max-learned-trackers: the trackers known from live
                                          * learning alone kept at most (brock_learned_limit());
                                          * 0: the engine's default */
    const char *log_file;              /* --log-file, or NULL (opened by the caller) */
    unsigned workers;                  /* --workers N; 0: one (a single process) */
    const struct proxy_worker *worker; /* this process's place among the workers
                                          * (proxy_workers_run()); NULL: the only process */

    /* SIGHUP: the options as they are now (the configuration file read again), or NULL with
     * a sentence in err, changing nothing. What the call returns is borrowed until the
     * following call returns. Those that can change while brock runs are applied; the others
     * keep the value in force, said in the log. NULL reread: the options stay. */
    const struct proxy_options *(*reread)(void *arg, char *err, size_t errlen);
    void *reread_arg;
};

#define PROXY_DEFAULT_LISTEN "127.0.0.1:8119"
#define PROXY_DEFAULT_GRACE 10

/* Connections one client address may hold at once, by default: past it, that client's own
 * oldest idle connection makes room. Browsers hold at most 32 to a proxy (Chromium and Firefox
 * alike), so a few of them and other programs on one machine stay well below it, while one
 * address cannot take more than a small share of the thousands of connections brock serves. */
#define PROXY_DEFAULT_CLIENT_CONNECTIONS 256
#define PROXY_MAX_CLIENT_CONNECTIONS 1048576

/* Checks the shape of o's --listen and --resolve specs without opening anything, so that a
 * typo is a usage error. Returns 0, or -1 with a sentence naming the spec in err. */
int proxy_options_check(const struct proxy_options *o, char *err, size_t errlen);

struct proxy;

/* Gets everything ready that can fail before the state is opened: o's specs, the listening
 * socket (bound), the local CA (--intercept), the upstream roots, and, when started as root,
 * whether the user brock becomes can reach o->state_dir. Nothing on disk is touched. o and its
 * strings must outlive the proxy. Returns the proxy (for proxy_run(), or proxy_free()), or
 * NULL with a sentence in err: a bad spec, a port in use, no CA. */
struct proxy *proxy_new(const struct proxy_options *o, char *err, size_t errlen);

/* Runs the proxy and dashboard on e: gives up root (handing the state to the user), says where
 * it listens and how to use it, and serves. SIGHUP reads the options again (o->reread),
 * Privacy Badger's data, and opens the log again. SIGTERM, SIGINT or SIGQUIT stop it: no new connection is accepted,
 * the exchanges in flight get o->grace seconds to finish (a second signal ends them at once),
 * then the state is flushed. Returns the process exit status: 0 after a clean stop, 1 when it
 * could not go on (a message on stderr says why). */
int proxy_run(struct proxy *px, struct brock_engine *e);

/* Closes what proxy_new() opened; NULL is a no-op. */
void proxy_free(struct proxy *px);

#define PROXY_MAX_WORKERS 256

/* --workers auto: one per core online (1 to PROXY_MAX_WORKERS). */
unsigned proxy_workers_default(void);

/* Serves o as n (2 to PROXY_MAX_WORKERS) worker processes: binds n sockets on o->listen (one
 * port, SO_REUSEPORT), then forks the workers, the first alone until it is ready (it may seed
 * a new state), and calls serve(arg, w) in each, which sets o's worker to w, runs
 * proxy_new() and proxy_run() and returns the exit status. The parent passes SIGHUP, SIGTERM,
 * SIGINT and SIGQUIT on, starts again a worker that died (waiting longer each time it dies
 * soon after starting), opens o->log_file once every worker is ready, and returns when every
 * worker has ended: 0 after a clean stop, 1 when one could not start or failed. Returns -1
 * with a sentence in err when nothing could start (a port in use). */
/* Whether w is the first worker (it says what concerns them all), or NULL: the only process. */
int proxy_worker_is_first(const struct proxy_worker *w);

int proxy_workers_run(const struct proxy_options *o, unsigned n,
                      int (*serve)(void *arg, const struct proxy_worker *w), void *arg, char *err,
                      size_t errlen) __attribute__((warn_unused_result));

#endif
