/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock run`: the proxy and dashboard. The proxy checks the options' shape before anything
 * is opened, so that a typo is a usage error.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "proxy/proxy.h"
#include "util/alloc.h"

static const char run_help[] =
    "Options:\n"
    "  --listen ADDR:PORT    where to listen (default " PROXY_DEFAULT_LISTEN "; [V6]:PORT for\n"
    "                        IPv6)\n"
    "  --intercept           see inside HTTPS with the local CA (see `brock ca init`)\n"
    "  --no-intercept HOSTGLOB\n"
    "                        tunnel matching hosts unseen even with --intercept (pinned\n"
    "                        apps, banking); may be repeated\n"
    "  --resolve HOSTGLOB[:PORT]=ADDR:PORT\n"
    "                        connect to ADDR:PORT for matching hosts instead of using DNS;\n"
    "                        may be repeated\n"
    "  --upstream-ca FILE    also trust the roots in FILE (PEM) for upstream TLS\n"
    "  --no-update           do not fetch Privacy Badger's lists from EFF once a day\n"
    "  -v, --verbose         log every request\n"
    "  -q, --quiet           log errors only\n"
    "  -h, --help            print this help\n";

static int cmd_run_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_LISTEN = 256, OPT_INTERCEPT, OPT_RESOLVE, OPT_UPSTREAM_CA, OPT_NO_UPDATE,
           OPT_NO_INTERCEPT };
    static const struct option opts[] = {
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"intercept", no_argument, NULL, OPT_INTERCEPT},
        {"no-intercept", required_argument, NULL, OPT_NO_INTERCEPT},
        {"resolve", required_argument, NULL, OPT_RESOLVE},
        {"upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA},
        {"no-update", no_argument, NULL, OPT_NO_UPDATE},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    struct proxy_options o;
    struct brock_engine *e = NULL;
    const char **resolve = NULL, **no_intercept = NULL;
    char err[256];
    int c, rc = CLI_OK;

    memset(&o, 0, sizeof(o));
    o.verbosity = 1;
    resolve = mem_calloc((size_t)argc, sizeof(*resolve));
    no_intercept = mem_calloc((size_t)argc, sizeof(*no_intercept));
    if (!resolve || !no_intercept) {
        mem_free(resolve);
        mem_free(no_intercept);
        return cli_error(self, "out of memory");
    }
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":vqh", opts, NULL)) != -1) {
        switch (c) {
        case OPT_LISTEN:
            o.listen = optarg;
            break;
        case OPT_INTERCEPT:
            o.intercept = 1;
            break;
        case OPT_NO_INTERCEPT:
            no_intercept[o.n_no_intercept++] = optarg;
            break;
        case OPT_RESOLVE:
            resolve[o.n_resolve++] = optarg;
            break;
        case OPT_UPSTREAM_CA:
            if (access(optarg, R_OK) != 0) {
                rc = cli_error(self, "--upstream-ca '%s': cannot read the file", optarg);
                goto out;
            }
            o.upstream_ca = optarg;
            break;
        case OPT_NO_UPDATE:
            o.no_update = 1;
            break;
        case 'v':
            o.verbosity = 2;
            break;
        case 'q':
            o.verbosity = 0;
            break;
        default:
            rc = cli_getopt_other(self, c, argv);
            goto out;
        }
    }
    if (optind < argc) {
        rc = cli_usage(self, "'%s': run takes no arguments", argv[optind]);
        goto out;
    }
    o.resolve = resolve;
    o.no_intercept = no_intercept;
    if (proxy_options_check(&o, err, sizeof(err)) < 0) {
        rc = cli_usage(self, "%s", err);
        goto out;
    }
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        goto out;
    o.state_dir = cli->state_dir;
    rc = proxy_run(e, &o) == 0 ? CLI_OK : CLI_ERROR;
out:
    rc = cli_close(self, e, rc);
    mem_free(resolve);
    mem_free(no_intercept);
    return rc;
}

const struct cmd_entry cmd_run_entry = {
    .name = "run",
    .usage = "[--listen ADDR:PORT] [--intercept] [--no-intercept HOSTGLOB]... "
             "[--resolve HOSTGLOB[:PORT]=ADDR:PORT]... "
             "[--upstream-ca FILE] [--no-update] [-v|-q]",
    .summary = "Run the proxy and its dashboard (the default command)",
    .help = run_help,
    .exec = cmd_run_exec,
};
