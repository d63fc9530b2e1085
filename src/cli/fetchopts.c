/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The options of the commands that fetch one file and exit (`brock dnt`, `brock update`):
 * --resolve and --upstream-ca, parsed and checked the way `brock run` checks them, and the
 * run of the job around the state, with its failures reported in the command's name.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "jobs/jobs.h"
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
    struct jobs_options o;
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
    o.resolve = f->resolve;
    o.n_resolve = f->n_resolve;
    o.upstream_ca = f->upstream_ca;
    if (jobs_options_check(&o, err, sizeof(err)) < 0)
        return cli_usage(self, "%s", err);
    *done = 0;
    return CLI_OK;
}

int cli_fetch_run(struct cli *cli, const struct cmd_entry *self, const struct cli_fetch *f,
                  int (*job)(struct brock_engine *e, const struct jobs_options *o, void *arg,
                             char *err, size_t errlen),
                  void *arg)
{
    struct jobs_options o = {f->resolve, f->n_resolve, f->upstream_ca};
    struct brock_engine *e = NULL;
    char err[1536];
    int rc = cli_open(cli, self, &e);

    if (rc != CLI_OK)
        return rc;
    if (job(e, &o, arg, err, sizeof(err)) < 0)
        rc = cli_error(self, "%s", err);
    return cli_close(self, e, rc);
}

void cli_fetch_cleanup(struct cli_fetch *f)
{
    mem_free(f->resolve);
    f->resolve = NULL;
}
