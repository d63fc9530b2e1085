/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The options of the commands that fetch one file and exit (`brock dnt`, `brock update`):
 * --resolve and --upstream-ca, parsed and checked the way `brock run` checks them, and the
 * fetch itself, with its failures reported in the command's name.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "jobs/fetch.h"
#include "proxy/proxy.h"
#include "util/alloc.h"

int cli_fetch_parse(const struct cmd_entry *self, struct cli_fetch *f, int argc, char **argv,
                    int *done)
{
    enum { OPT_RESOLVE = 256, OPT_UPSTREAM_CA };
    static const struct option opts[] = {
        {"resolve", required_argument, NULL, OPT_RESOLVE},
        {"upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    struct proxy_options o;
    char err[512];
    int c;

    memset(f, 0, sizeof(*f));
    *done = 1;
    f->resolve = mem_calloc((size_t)argc, sizeof(*f->resolve));
    if (!f->resolve)
        return cli_error(self, "out of memory");
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_RESOLVE) {
            f->resolve[f->n_resolve++] = optarg;
        } else if (c == OPT_UPSTREAM_CA) {
            if (access(optarg, R_OK) != 0)
                return cli_error(self, "--upstream-ca '%s': cannot read the file", optarg);
            f->upstream_ca = optarg;
        } else {
            return cli_getopt_other(self, c, argv);
        }
    }
    memset(&o, 0, sizeof(o));
    o.resolve = f->resolve;
    o.n_resolve = f->n_resolve;
    o.upstream_ca = f->upstream_ca;
    if (proxy_options_check(&o, err, sizeof(err)) < 0)
        return cli_usage(self, "%s", err);
    *done = 0;
    return CLI_OK;
}

int cli_fetch(const struct cmd_entry *self, struct cli_fetch *f, const char *url,
              size_t max, struct fetch_result *r, char **body)
{
    char err[512];

    if (fetch_once(url, max, f->resolve, f->n_resolve, f->upstream_ca, r, body, f->why,
                   sizeof(f->why), err, sizeof(err)) < 0)
        return cli_error(self, "%s", err);
    return CLI_OK;
}

void cli_fetch_cleanup(struct cli_fetch *f)
{
    mem_free(f->resolve);
    f->resolve = NULL;
}
