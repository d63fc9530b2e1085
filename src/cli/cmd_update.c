/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock update`: Privacy Badger's current configuration (cookieblock list, DNT policy
 * hashes, site fixes) fetched from EFF, validated whole and applied; on any failure the
 * state keeps what it had.
 */
#include "cli/cli.h"

#include <getopt.h>

#include "jobs/jobs.h"

static const char update_help[] =
    "Fetches " JOBS_PBCONFIG_URL " and applies it as Privacy Badger does:\n"
    "domains added to the cookieblock list are cookieblocked where their base is blocked,\n"
    "domains taken off it are blocked again, new DNT policy hashes are added (none are\n"
    "removed), and the site fixes are replaced. A list that fails validation changes\n"
    "nothing. `brock run` does the same once a day unless --no-update.\n"
    "\nOptions:\n" CLI_FETCH_HELP;

static int update_job_run(struct brock_engine *e, const struct jobs_options *o, void *arg,
                          char *err, size_t errlen)
{
    return jobs_update(e, o, arg, err, errlen);
}

static int cmd_update_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    struct cli_fetch f;
    struct brock_update_stats st;
    int rc, done;

    rc = cli_fetch_parse(self, &f, argc, argv, &done);
    if (done)
        goto out;
    if (optind < argc) {
        rc = cli_usage(self, "'%s': update takes no arguments", argv[optind]);
        goto out;
    }
    rc = cli_fetch_run(cli, self, &f, update_job_run, &st);
    if (rc == CLI_OK)
        printf("Applied %s: %zu cookieblock domains (%zu added, %zu removed), %zu new DNT "
               "policies, %zu site fixes.\n",
               JOBS_PBCONFIG_URL, st.yellow, st.added, st.removed, st.hashes_added, st.site_fixes);
out:
    cli_fetch_cleanup(&f);
    return rc;
}

const struct cmd_entry cmd_update_entry = {
    .name = "update",
    .usage = CLI_FETCH_USAGE,
    .summary = "Fetch and apply Privacy Badger's current lists (pbconfig.json) from EFF",
    .help = update_help,
    .exec = cmd_update_exec,
};
