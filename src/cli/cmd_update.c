/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock update`: Privacy Badger's current configuration (cookieblock list, DNT policy
 * hashes, site fixes) fetched from EFF, validated whole and applied; on any failure the
 * state keeps what it had.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>

#include "jobs/jobs.h"

static const char update_help[] =
    "Fetches " JOBS_PBCONFIG_URL " and applies it as Privacy Badger does:\n"
    "domains added to the cookieblock list are cookieblocked where their base is blocked,\n"
    "domains taken off it are blocked again, new DNT policy hashes are added (none are\n"
    "removed), and the site fixes are replaced. Then fetches ClearURLs' rules,\n" JOBS_CLEARURLS_URL
    ", by which brock takes tracking\n"
    "parameters out of URLs (brock clean) in place of the ones it ships. Each is checked\n"
    "whole first: one that fails changes nothing of its own, and the command fails.\n"
    "`brock run` does the same once a day unless --no-update.\n"
    "\nOptions:\n" CLI_FETCH_HELP;

/* What each half did: its stats, or why it failed ("" when it did not). */
struct update_both {
    struct brock_update_stats st;
    size_t providers;
    char pb_err[768], clean_err[768];
};

/* Both halves, each whole or not at all; the state is written when either applied. */
static int update_job_run(struct brock_engine *e, const struct jobs_options *o, void *arg,
                          char *err, size_t errlen)
{
    struct update_both *u = arg;
    int pb = jobs_update(e, o, &u->st, u->pb_err, sizeof(u->pb_err));
    int clean = jobs_update_clearurls(e, o, &u->providers, u->clean_err, sizeof(u->clean_err));

    if (pb == 0)
        u->pb_err[0] = '\0';
    if (clean == 0)
        u->clean_err[0] = '\0';
    if (pb < 0 && clean < 0) {
        snprintf(err, errlen, "%s\n%s", u->pb_err, u->clean_err);
        return -1;
    }
    return 0;
}

static int cmd_update_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    struct cli_fetch f;
    struct update_both u = {0};
    int rc, done;

    rc = cli_fetch_parse(self, &f, argc, argv, &done);
    if (done)
        goto out;
    if (optind < argc) {
        rc = cli_usage(self, "'%s': update takes no arguments", argv[optind]);
        goto out;
    }
    rc = cli_fetch_run(cli, self, &f, update_job_run, &u);
    if (rc != CLI_OK)
        goto out;
    if (u.pb_err[0])
        rc = cli_error(self, "%s", u.pb_err);
    else
        printf("Applied %s: %zu cookieblock domains (%zu added, %zu removed), %zu new DNT "
               "policies, %zu site fixes.\n",
               JOBS_PBCONFIG_URL, u.st.yellow, u.st.added, u.st.removed, u.st.hashes_added,
               u.st.site_fixes);
    if (u.clean_err[0])
        rc = cli_error(self, "%s", u.clean_err);
    else
        printf("Applied %s: %zu providers.\n", JOBS_CLEARURLS_URL, u.providers);
out:
    cli_fetch_cleanup(&f);
    return rc;
}

const struct cmd_entry cmd_update_entry = {
    .name = "update",
    .usage = CLI_FETCH_USAGE,
    .summary = "Fetch and apply Privacy Badger's current lists (pbconfig.json) and ClearURLs' "
               "rules",
    .help = update_help,
    .exec = cmd_update_exec,
};
