/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock run`: the proxy and dashboard. The proxy checks the options' shape before anything
 * is opened, so that a typo is a usage error.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dash/dash.h"
#include "net/ca.h"
#include "net/trust.h"
#include "proxy/proxy.h"
#include "util/alloc.h"
#include "util/log.h"

static const char run_help[] =
    "Options:\n"
    "  --listen ADDR:PORT    where to listen (default " PROXY_DEFAULT_LISTEN "; [V6]:PORT for\n"
    "                        IPv6)\n"
    "  --socks ADDR:PORT     serve SOCKS5 clients there too (programs that take a SOCKS\n"
    "                        proxy but no HTTP one): each connection is handled as a\n"
    "                        CONNECT to where it asks\n"
    "  --transparent PORT|ADDR:PORT\n"
    "                        take connections that nftables redirected to brock there (see\n"
    "                        `brock transparent rules`): each is served as a request for the\n"
    "                        name in its Host header or TLS server name, and goes where it\n"
    "                        was going\n"
    "  --intercept           see inside HTTPS with the local CA even when this machine does\n"
    "                        not trust it (by default brock sees inside HTTPS once `sudo\n"
    "                        brock ca install` has put the CA in the system store)\n"
    "  --no-intercept        pass HTTPS unseen: brock then sees only the names of HTTPS\n"
    "                        sites, refuses the blocked ones, and learns nothing there\n"
    "  --no-intercept HOSTGLOB\n"
    "                        tunnel matching hosts unseen while seeing inside the others\n"
    "                        (pinned apps, banking); may be repeated\n"
    "  --no-proxy HOSTGLOB   have the proxy auto-config file (/proxy.pac, /wpad.dat) send\n"
    "                        matching hosts DIRECT, not through brock (intranet names,\n"
    "                        *.corp.example); may be repeated\n"
    "  --no-http2            speak HTTP/1.1 alone, with clients inside intercepted HTTPS and\n"
    "                        with sites (by default either may choose HTTP/2)\n"
    "  --no-inject           pass HTML pages as they come, without brock's script (which\n"
    "                        makes navigator.globalPrivacyControl true in the page and\n"
    "                        puts placeholders where blocked social widgets were)\n"
    "  --resolve HOSTGLOB[:PORT]=ADDR:PORT\n"
    "                        connect to ADDR:PORT for matching hosts instead of using DNS;\n"
    "                        may be repeated (the first that matches wins)\n"
    "  --upstream-ca FILE    also trust the roots in FILE (PEM) for upstream TLS\n"
    "  --dns ADDR:PORT       ask this name server rather than /etc/resolv.conf's (after\n"
    "                        /etc/hosts); may be repeated\n"
    "  --no-update           do not fetch Privacy Badger's lists and ClearURLs' rules\n"
    "                        once a day\n"
    "  --allow CIDR          serve only clients in CIDR (10.0.0.0/8, ::1/128, an address);\n"
    "                        may be repeated; needed to listen beyond loopback; without it\n"
    "                        only loopback clients are served\n"
    "  --local CIDR          the clients in CIDR are this machine: its dashboard answers them\n"
    "                        without the owner's password (default: loopback addresses and\n"
    "                        the address a client reached brock at); may be repeated;\n"
    "                        --local none asks every client for it (brock passwd)\n"
    "  --client NAME=CIDR    name the clients in CIDR (laptop=192.168.1.23,\n"
    "                        kids=192.168.1.64/27) on the dashboard; an address takes the\n"
    "                        name of the narrowest range it lies in; may be repeated; in the\n"
    "                        file: client NAME = CIDR\n"
    "  --proxy-protocol-from CIDR\n"
    "                        connections from CIDR (a load balancer such as HAProxy with\n"
    "                        send-proxy or send-proxy-v2) must begin with a PROXY protocol\n"
    "                        header, version 1 or 2; the client address it carries is the\n"
    "                        one --allow, the per-client limits, the pages and the log see;\n"
    "                        others are refused; may be repeated\n"
    "  --user NAME           when started as root, run as NAME once listening (default:\n"
    "                        brock if that user exists, else nobody); never root\n"
    "  --header-timeout SECONDS\n"
    "                        answer 408 to a request head not complete this long after its\n"
    "                        first byte (1-3600, default 15)\n"
    "  --upstream-timeout SECONDS\n"
    "                        answer 504 when connecting to a server, or its response head,\n"
    "                        takes longer (1-3600, default 10 to connect, 60 to answer)\n"
    "  --max-client-connections N\n"
    "                        connections one client address may hold at once (0-1048576,\n"
    "                        default 256; 0: no cap); past it, that client's oldest idle one\n"
    "                        is closed to make room, or 503 when none is idle\n"
    "  --max-learned-trackers N\n"
    "                        trackers learned from browsing kept at most (1-10000000,\n"
    "                        default 100000); past it, those learned least recently are\n"
    "                        forgotten to make room (your choices and the seed's stay)\n"
    "  --grace SECONDS       once told to stop (SIGTERM, SIGINT, SIGQUIT), give exchanges in\n"
    "                        flight this long to finish (0-3600, default 10; 0: stop at once;\n"
    "                        a second signal stops at once)\n"
    "  --workers N|auto      serve with N processes, each its own loop on the shared state\n"
    "                        (1-256, or auto: one per core; default 1: a single process)\n"
    "  --log-file FILE       log to FILE (appended to) rather than to standard error; opened\n"
    "                        again under its name on SIGHUP, after a log rotation\n"
    "  -v, --verbose         log every request\n"
    "  -q, --quiet           log errors only\n"
    "  -h, --help            print this help\n"
    "\nEach option can be set in the configuration file (see --config in `brock --help`) as\n"
    "`name = value` (a flag's value is yes or no); the command line's win. SIGHUP reads the\n"
    "file again: the changed timeouts, --allow, --resolve, --no-intercept, --no-proxy,\n"
    "--max-client-connections, --max-learned-trackers, --grace, -v and -q apply at once; the\n"
    "others need a restart.\n";

enum {
    OPT_LISTEN = 256,
    OPT_INTERCEPT,
    OPT_RESOLVE,
    OPT_UPSTREAM_CA,
    OPT_NO_UPDATE,
    OPT_NO_INTERCEPT,
    OPT_ALLOW,
    OPT_USER,
    OPT_HEADER_TIMEOUT,
    OPT_UPSTREAM_TIMEOUT,
    OPT_GRACE,
    OPT_MAX_CLIENT,
    OPT_NO_INJECT,
    OPT_LOG_FILE,
    OPT_NO_PROXY,
    OPT_WORKERS,
    OPT_PROXY_PROTOCOL,
    OPT_MAX_LEARNED,
    OPT_HTTP2,
    OPT_NO_HTTP2,
    OPT_LOCAL,
    OPT_CLIENT,
    OPT_DNS,
    OPT_SOCKS,
    OPT_TRANSPARENT,
};

const struct option cmd_run_options[] = {
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"socks", required_argument, NULL, OPT_SOCKS},
    {"transparent", required_argument, NULL, OPT_TRANSPARENT},
    {"intercept", no_argument, NULL, OPT_INTERCEPT},
    {"no-intercept", optional_argument, NULL, OPT_NO_INTERCEPT},
    {"no-proxy", required_argument, NULL, OPT_NO_PROXY},
    {"resolve", required_argument, NULL, OPT_RESOLVE},
    {"upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA},
    {"no-update", no_argument, NULL, OPT_NO_UPDATE},
    {"no-inject", no_argument, NULL, OPT_NO_INJECT},
    {"http2", no_argument, NULL, OPT_HTTP2},
    {"no-http2", no_argument, NULL, OPT_NO_HTTP2},
    {"allow", required_argument, NULL, OPT_ALLOW},
    {"local", required_argument, NULL, OPT_LOCAL},
    {"client", required_argument, NULL, OPT_CLIENT},
    {"dns", required_argument, NULL, OPT_DNS},
    {"proxy-protocol-from", required_argument, NULL, OPT_PROXY_PROTOCOL},
    {"user", required_argument, NULL, OPT_USER},
    {"header-timeout", required_argument, NULL, OPT_HEADER_TIMEOUT},
    {"upstream-timeout", required_argument, NULL, OPT_UPSTREAM_TIMEOUT},
    {"grace", required_argument, NULL, OPT_GRACE},
    {"max-client-connections", required_argument, NULL, OPT_MAX_CLIENT},
    {"max-learned-trackers", required_argument, NULL, OPT_MAX_LEARNED},
    {"log-file", required_argument, NULL, OPT_LOG_FILE},
    {"workers", required_argument, NULL, OPT_WORKERS},
    {"verbose", no_argument, NULL, 'v'},
    {"quiet", no_argument, NULL, 'q'},
    CLI_HELP_OPTION,
    {NULL, 0, NULL, 0},
};

/* A whole number from min to max. Returns 0, or -1 leaving *out alone. */
static int run_number(const char *text, long min, long max, long *out)
{
    char *end;
    long v;

    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* A timeout option's value: whole seconds, 1..3600. Returns 0, or -1 leaving *out alone. */
static int run_seconds(const char *text, int *out)
{
    long v;

    if (run_number(text, 1, 3600, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* The repeatable options, as bits of run_args' file_lists. */
enum {
    LIST_RESOLVE = 1,
    LIST_NO_INTERCEPT = 2,
    LIST_ALLOW = 4,
    LIST_NO_PROXY = 8,
    LIST_PP = 16,
    LIST_LOCAL = 32,
    LIST_CLIENT = 64,
    LIST_DNS = 128
};

/* The options of `brock run`, parsed: proxy_options and the arrays it borrows. */
struct run_args {
    struct proxy_options o;
    const char **resolve, **no_intercept, **allow, **no_proxy, **pp_from, **local, **clients, **dns;
    const struct cmd_entry *self;
    int done;            /* --help was printed: nothing more to do */
    int in_file;         /* the options in hand are the configuration file's */
    unsigned file_lists; /* the lists that hold the file's items only (LIST_*) */
};

/* Appends item to a repeatable option's list. The command line's items replace the file's,
 * as its other options do. */
static void run_list_add(struct run_args *a, unsigned list, const char **v, size_t *n,
                         const char *item)
{
    if (a->in_file) {
        a->file_lists |= list;
    } else if (a->file_lists & list) {
        *n = 0;
        a->file_lists &= ~list;
    }
    v[(*n)++] = item;
}

static void run_args_cleanup(struct run_args *a)
{
    mem_free(a->resolve);
    mem_free(a->no_intercept);
    mem_free(a->allow);
    mem_free(a->no_proxy);
    mem_free(a->pp_from);
    mem_free(a->local);
    mem_free(a->clients);
    mem_free(a->dns);
}

/* --no-intercept: alone, it turns interception off; with a host pattern (--no-intercept=GLOB,
 * or the next word as --no-intercept GLOB always took it) it passes those hosts unseen. */
static int run_no_intercept(struct run_args *a, char **argv)
{
    struct proxy_options *o = &a->o;
    const char *glob = optarg;

    if (!glob && argv && argv[optind] && argv[optind][0] != '-')
        glob = argv[optind++];
    if (!glob)
        o->https = PROXY_HTTPS_OFF;
    else if (!*glob)
        return cli_usage(a->self, "--no-intercept= needs a host pattern");
    else
        run_list_add(a, LIST_NO_INTERCEPT, a->no_intercept, &o->n_no_intercept, glob);
    return CLI_OK;
}

static int run_no_proxy(struct run_args *a)
{
    char err[256];

    if (dash_no_proxy_check(optarg, err, sizeof(err)) < 0)
        return cli_usage(a->self, "%s", err);
    run_list_add(a, LIST_NO_PROXY, a->no_proxy, &a->o.n_no_proxy, optarg);
    return CLI_OK;
}

/* The options given in seconds: the two timeouts and --grace. */
static int run_seconds_option(struct run_args *a, int c)
{
    struct proxy_options *o = &a->o;
    long v;

    if (c != OPT_GRACE) {
        if (run_seconds(optarg,
                        c == OPT_HEADER_TIMEOUT ? &o->header_timeout : &o->upstream_timeout) < 0)
            return cli_usage(a->self, "--%s '%s': expected whole seconds from 1 to 3600",
                             c == OPT_HEADER_TIMEOUT ? "header-timeout" : "upstream-timeout",
                             optarg);
        return CLI_OK;
    }
    if (run_number(optarg, 0, 3600, &v) < 0)
        return cli_usage(a->self, "--grace '%s': expected whole seconds from 0 to 3600", optarg);
    o->grace = (int)v;
    return CLI_OK;
}

/* The options that count: --workers, --max-client-connections, --max-learned-trackers. */
static int run_count_option(struct run_args *a, int c)
{
    const struct cmd_entry *self = a->self;
    struct proxy_options *o = &a->o;
    long v;

    switch (c) {
    case OPT_WORKERS:
        if (strcmp(optarg, "auto") == 0)
            v = (long)proxy_workers_default();
        else if (run_number(optarg, 1, PROXY_MAX_WORKERS, &v) < 0)
            return cli_usage(self, "--workers '%s': expected 'auto' or a whole number from 1 to %d",
                             optarg, PROXY_MAX_WORKERS);
        o->workers = (unsigned)v;
        break;
    case OPT_MAX_CLIENT:
        if (run_number(optarg, 0, PROXY_MAX_CLIENT_CONNECTIONS, &v) < 0)
            return cli_usage(self,
                             "--max-client-connections '%s': expected a whole number "
                             "from 0 (no cap) to %d",
                             optarg, PROXY_MAX_CLIENT_CONNECTIONS);
        o->max_client_connections = (size_t)v;
        break;
    default: /* OPT_MAX_LEARNED */
        if (run_number(optarg, 1, BROCK_MAX_LEARNED_MAX, &v) < 0)
            return cli_usage(self,
                             "--max-learned-trackers '%s': expected a whole number from "
                             "1 to %d",
                             optarg, BROCK_MAX_LEARNED_MAX);
        o->max_learned = (size_t)v;
        break;
    }
    return CLI_OK;
}

/* One option of run's (c, from getopt_long, with optarg). Returns CLI_OK, or the command's
 * result after a message (or after --help, with a->done set). */
static int run_option(void *arg, int c, char **argv)
{
    struct run_args *a = arg;
    const struct cmd_entry *self = a->self;
    struct proxy_options *o = &a->o;

    switch (c) {
    case OPT_LISTEN: o->listen = optarg; break;
    case OPT_SOCKS: o->socks = optarg; break;
    case OPT_TRANSPARENT: o->transparent = optarg; break;
    case OPT_INTERCEPT: o->https = PROXY_HTTPS_FORCED; break;
    case OPT_NO_INTERCEPT: return run_no_intercept(a, argv);
    case OPT_NO_PROXY: return run_no_proxy(a);
    case OPT_RESOLVE: run_list_add(a, LIST_RESOLVE, a->resolve, &o->n_resolve, optarg); break;
    case OPT_NO_UPDATE: o->no_update = 1; break;
    case OPT_NO_INJECT: o->no_inject = 1; break;
    case OPT_HTTP2: o->no_http2 = 0; break;
    case OPT_NO_HTTP2: o->no_http2 = 1; break;
    case OPT_ALLOW: run_list_add(a, LIST_ALLOW, a->allow, &o->n_allow, optarg); break;
    case OPT_LOCAL: run_list_add(a, LIST_LOCAL, a->local, &o->n_local, optarg); break;
    case OPT_CLIENT: run_list_add(a, LIST_CLIENT, a->clients, &o->n_clients, optarg); break;
    case OPT_DNS: run_list_add(a, LIST_DNS, a->dns, &o->n_dns, optarg); break;
    case OPT_PROXY_PROTOCOL:
        run_list_add(a, LIST_PP, a->pp_from, &o->n_proxy_protocol_from, optarg);
        break;
    case OPT_USER: o->user = optarg; break;
    case OPT_LOG_FILE:
        if (!*optarg)
            return cli_usage(self, "--log-file needs a file");
        o->log_file = optarg;
        break;
    case 'v': o->verbosity = 2; break;
    case 'q': o->verbosity = 0; break;
    case OPT_UPSTREAM_CA:
        if (access(optarg, R_OK) != 0)
            return cli_error(self, "--upstream-ca '%s': cannot read the file", optarg);
        o->upstream_ca = optarg;
        break;
    case OPT_HEADER_TIMEOUT:
    case OPT_UPSTREAM_TIMEOUT:
    case OPT_GRACE: return run_seconds_option(a, c);
    case OPT_WORKERS:
    case OPT_MAX_CLIENT:
    case OPT_MAX_LEARNED: return run_count_option(a, c);
    default: a->done = 1; return cli_getopt_other(self, c, argv);
    }
    return CLI_OK;
}

/* Parses run's options, those of the configuration file conf (NULL: none) and then the
 * command line's, into a (cleaned up by run_args_cleanup() whatever happens) and checks the
 * specs' shape. Returns CLI_OK with a->done 0 to go on, else the command's result. */
static int run_parse(const struct cmd_entry *self, const struct cli_conf *conf, struct run_args *a,
                     int argc, char **argv)
{
    size_t most = (size_t)argc + (conf ? conf->n : 0);
    char err[512];
    int c, rc;

    memset(a, 0, sizeof(*a));
    a->self = self;
    a->o.verbosity = 1;
    a->o.grace = PROXY_DEFAULT_GRACE;
    a->o.max_client_connections = PROXY_DEFAULT_CLIENT_CONNECTIONS;
    /* Each repeatable option can appear at most once an argument or a line. */
    a->resolve = mem_calloc(most, sizeof(*a->resolve));
    a->no_intercept = mem_calloc(most, sizeof(*a->no_intercept));
    a->allow = mem_calloc(most, sizeof(*a->allow));
    a->no_proxy = mem_calloc(most, sizeof(*a->no_proxy));
    a->pp_from = mem_calloc(most, sizeof(*a->pp_from));
    a->local = mem_calloc(most, sizeof(*a->local));
    a->clients = mem_calloc(most, sizeof(*a->clients));
    a->dns = mem_calloc(most, sizeof(*a->dns));
    if (!a->resolve || !a->no_intercept || !a->allow || !a->no_proxy || !a->pp_from || !a->local ||
        !a->clients || !a->dns)
        return cli_error(self, "out of memory");
    a->o.dns = a->dns;
    a->o.local = a->local;
    a->o.clients = a->clients;
    a->o.resolve = a->resolve;
    a->o.no_intercept = a->no_intercept;
    a->o.allow = a->allow;
    a->o.no_proxy = a->no_proxy;
    a->o.proxy_protocol_from = a->pp_from;
    a->in_file = 1;
    rc = cli_conf_apply(conf, self, cmd_run_options, run_option, a);
    a->in_file = 0;
    if (rc != CLI_OK || a->done)
        return rc;
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":vqh", cmd_run_options, NULL)) != -1)
        if ((rc = run_option(a, c, argv)) != CLI_OK || a->done)
            return rc;
    if (optind < argc)
        return cli_usage(self, "'%s': run takes no arguments", argv[optind]);
    if (proxy_options_check(&a->o, err, sizeof(err)) < 0)
        return cli_usage(self, "%s", err);
    return CLI_OK;
}

/* Whether brock sees inside HTTPS when neither --intercept nor --no-intercept says: when the
 * state's CA is in this machine's system store (`brock ca install`), every program that reads
 * it, and the browsers install also set up, trust brock's certificates. */
static enum proxy_https run_https(const char *state_dir)
{
    char cert[4096], key[4096], err[512];
    struct trust t;

    if (ca_paths(state_dir, cert, key, sizeof(cert)) < 0 || access(cert, F_OK) != 0)
        return PROXY_HTTPS_NO_CA;
    if (trust_init(&t, cert, err, sizeof(err)) < 0 || !trust_in_system(&t))
        return PROXY_HTTPS_UNTRUSTED;
    return PROXY_HTTPS_TRUSTED;
}

static void run_https_decide(struct proxy_options *o, const char *state_dir)
{
    if (o->https == PROXY_HTTPS_AUTO)
        o->https = run_https(state_dir);
    o->intercept = o->https == PROXY_HTTPS_FORCED || o->https == PROXY_HTTPS_TRUSTED;
}

/* ---- SIGHUP: the configuration file read again ---- */

/* What the proxy reads its options again with: the configuration file as it is now, with
 * the command line over it. The proxy borrows the newest options applied (until the next
 * call) and the first (till it ends): the previous ones go when new ones are made. */
struct run_reread {
    const struct cli *cli;
    struct cli start; /* the global options at start, before the state was settled */
    const struct cmd_entry *self;
    int argc;
    char **argv;
    const char *state_dir, *ca_init_cmd, *ca_install_cmd; /* those in use */
    enum proxy_https https;                               /* as decided at start */
    const struct proxy_worker *worker; /* this process's place among the workers, or NULL */
    struct run_args args[2];           /* the newest options made, and those before */
    struct cli_conf *conf[2];
};

static void run_reread_slot_free(struct run_reread *r, int i)
{
    run_args_cleanup(&r->args[i]);
    memset(&r->args[i], 0, sizeof(r->args[i]));
    cli_conf_free(r->conf[i]);
    r->conf[i] = NULL;
}

static int run_same(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The global options cannot change while brock runs: each one changed is said. */
static void run_reread_globals(const struct run_reread *r, const struct cli_conf *conf)
{
    const struct cli *old = &r->start;
    struct cli now;
    int done;

    memset(&now, 0, sizeof(now));
    if (cli_globals(&now, conf, r->cli->argc, r->cli->argv, &done) != CLI_OK || done)
        return;
    if (!run_same(old->state_dir, now.state_dir))
        log_msg(LOG_ERR,
                "SIGHUP: 'state' changed; it takes a restart: the state in use "
                "stays %s",
                r->state_dir);
    if (!run_same(old->data_dir, now.data_dir))
        log_msg(LOG_ERR,
                "SIGHUP: 'data' changed; it takes a restart: Privacy Badger's data is "
                "still read from %s",
                old->data_dir ? old->data_dir : BROCK_DEFAULT_DATA_DIR);
    if (old->no_seed != now.no_seed)
        log_msg(LOG_ERR, "SIGHUP: 'no-seed' changed; it takes a restart");
    if (old->no_learn != now.no_learn)
        log_msg(LOG_ERR, "SIGHUP: 'no-learn' changed; it takes a restart");
}

static const struct proxy_options *run_reread_options(void *arg, char *err, size_t errlen)
{
    struct run_reread *r = arg;
    struct cli_conf *conf = NULL;
    struct run_args next;
    int rc;

    memset(&next, 0, sizeof(next));
    cli_message_capture(err, errlen);
    rc = cli_conf_reread(r->cli, &conf);
    if (rc == CLI_OK)
        rc = run_parse(r->self, conf, &next, r->argc, r->argv);
    if (rc == CLI_OK)
        run_reread_globals(r, conf);
    cli_message_capture(NULL, 0);
    if (rc != CLI_OK) {
        run_args_cleanup(&next);
        cli_conf_free(conf);
        return NULL;
    }
    next.o.state_dir = r->state_dir;
    next.o.ca_init_cmd = r->ca_init_cmd;
    next.o.ca_install_cmd = r->ca_install_cmd;
    /* Interception is decided at start and kept: a CA installed since then is said, and
     * taken, at the next start. */
    if (next.o.https == PROXY_HTTPS_AUTO)
        next.o.https = r->https;
    run_https_decide(&next.o, r->state_dir);
    next.o.worker = r->worker;
    next.o.reread = run_reread_options;
    next.o.reread_arg = r;
    run_reread_slot_free(r, 1);
    r->args[1] = r->args[0];
    r->conf[1] = r->conf[0];
    r->args[0] = next;
    r->conf[0] = conf;
    return &r->args[0].o;
}

/* What each process that serves needs: the parsed options and their reread. */
struct run_ctx {
    struct cli *cli;
    const struct cmd_entry *self;
    struct run_args *a;
    struct run_reread *re;
};

/* Serves as the only process (w NULL) or as worker w: the proxy, the engine, the log, the
 * loop. Returns the command's result. */
static int run_serve(struct run_ctx *x, const struct proxy_worker *w)
{
    struct run_args *a = x->a;
    struct proxy *px = NULL;
    struct brock_engine *e = NULL;
    char err[4096 + 512];
    const char *why;
    int rc;

    a->o.worker = w;
    x->re->worker = w;
    /* Everything that can fail for a reason outside the state (a port in use, no CA) fails
     * before the state is created or seeded. */
    px = proxy_new(&a->o, err, sizeof(err));
    if (!px)
        return cli_error(x->self, "%s", err);
    rc = cli_open(x->cli, x->self, &e);
    if (rc != CLI_OK)
        goto out;
    /* From here on lines go to the file; what stopped the start went to the terminal. */
    if (a->o.log_file && (rc = log_open(a->o.log_file)) < 0) {
        rc = cli_error(x->self, "--log-file %s: %s", a->o.log_file, strerror(-rc));
        goto out;
    }
    if (brock_engine_readonly(e, &why) && proxy_worker_is_first(w))
        log_msg(LOG_ERR, "warning: %s; brock proxies, but what it learns is not saved", why);
    rc = proxy_run(px, e) == 0 ? CLI_OK : CLI_ERROR;
out:
    proxy_free(px);
    return cli_close(x->self, e, rc);
}

static int run_worker(void *arg, const struct proxy_worker *w)
{
    return run_serve(arg, w);
}

static int cmd_run_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    struct run_args a;
    struct run_reread *re = NULL;
    struct run_ctx x;
    char err[4096 + 512], ca_init[4096 + 64], ca_install[4096 + 64];
    unsigned n;
    int rc;

    rc = run_parse(self, cli->conf, &a, argc, argv);
    if (rc != CLI_OK || a.done)
        goto out;
    re = mem_calloc(1, sizeof(*re));
    if (!re) {
        rc = cli_error(self, "out of memory");
        goto out;
    }
    re->cli = cli;
    re->start = *cli;
    re->self = self;
    re->argc = argc;
    re->argv = argv;
    a.o.reread = run_reread_options;
    a.o.reread_arg = re;
    if ((rc = cli_state(cli, self)) != CLI_OK)
        goto out;
    a.o.state_dir = cli->state_dir;
    a.o.ca_init_cmd = cli_again(cli, "ca init", ca_init, sizeof(ca_init));
    snprintf(ca_install, sizeof(ca_install), "sudo %s",
             cli_again(cli, "ca install", err, sizeof(err)));
    a.o.ca_install_cmd = ca_install;
    run_https_decide(&a.o, cli->state_dir);
    re->state_dir = a.o.state_dir;
    re->ca_init_cmd = a.o.ca_init_cmd;
    re->ca_install_cmd = a.o.ca_install_cmd;
    re->https = a.o.https;
    x.cli = cli;
    x.self = self;
    x.a = &a;
    x.re = re;
    n = a.o.workers ? a.o.workers : 1;
    if (n == 1) {
        rc = run_serve(&x, NULL);
    } else {
        rc = proxy_workers_run(&a.o, n, run_worker, &x, err, sizeof(err));
        if (rc < 0)
            rc = cli_error(self, "%s", err);
        else
            rc = rc == 0 ? CLI_OK : CLI_ERROR;
    }
out:
    run_args_cleanup(&a);
    for (int i = 0; re && i < 2; i++)
        run_reread_slot_free(re, i);
    mem_free(re);
    return rc;
}

const struct cmd_entry cmd_run_entry = {
    .name = "run",
    .usage = "[--listen ADDR:PORT] [--intercept | --no-intercept] [--no-intercept HOSTGLOB]... "
             "[--resolve HOSTGLOB[:PORT]=ADDR:PORT]... "
             "[--upstream-ca FILE] [--no-update] [--no-inject] [--no-http2] [--allow CIDR]... "
             "[--no-proxy HOSTGLOB]... [--proxy-protocol-from CIDR]... [--user NAME] "
             "[--header-timeout SECONDS] [--upstream-timeout SECONDS] "
             "[--max-client-connections N] [--max-learned-trackers N] [--grace SECONDS] [--workers "
             "N|auto] [--log-file FILE] [-v|-q]",
    .summary = "Run the proxy and its dashboard (the default command)",
    .help = run_help,
    .exec = cmd_run_exec,
};
