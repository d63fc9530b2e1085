/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock dnt`: one host's EFF Do Not Track policy checked now, through the same fetch the
 * proxy uses, with the outcome recorded as a policy check in the proxy would.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

#include "jobs/jobs.h"

static const char dnt_help[] =
    "Fetches https://DOMAIN/.well-known/dnt-policy.txt (no cookies, no redirects, at most\n"
    "64 KiB within 10 seconds) and says whether it is one of the EFF DNT policy texts\n"
    "Privacy Badger accepts. A compliant DOMAIN is never blocked while it posts the policy.\n"
    "The outcome is recorded in the state. Exits 0 only when DOMAIN is compliant.\n"
    "\nOptions:\n" CLI_FETCH_HELP;

struct dnt_job {
    const char *domain;
    struct jobs_dnt_result r;
};

static int dnt_job_run(struct brock_engine *e, const struct jobs_options *o, void *arg, char *err,
                       size_t errlen)
{
    struct dnt_job *j = arg;

    return jobs_dnt_check(e, o, j->domain, &j->r, err, errlen);
}

static int cmd_dnt_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    struct cli_fetch f;
    struct dnt_job j;
    char domain[BROCK_HOST_MAX];
    int rc, done;

    rc = cli_fetch_parse(self, &f, argc, argv, &done);
    if (done)
        goto out;
    if (argc - optind != 1) {
        rc = cli_usage(self, "expected one DOMAIN");
        goto out;
    }
    if (brock_host_normalize(argv[optind], strlen(argv[optind]), domain) < 0) {
        rc = cli_error(self, "'%s' is not a domain name", argv[optind]);
        goto out;
    }
    j.domain = domain;
    rc = cli_fetch_run(cli, self, &f, dnt_job_run, &j);
    if (rc != CLI_OK)
        goto out;
    if (j.r.compliant)
        printf("%s: compliant: %s posts an accepted EFF DNT policy\n", domain, j.r.url);
    else if (j.r.fetched)
        printf("%s: not compliant: the text at %s (%zu bytes) is not an accepted EFF DNT "
               "policy (hash not accepted)\n",
               domain, j.r.url, j.r.len);
    else
        printf("%s: not compliant: %s\n", domain, j.r.why);
    rc = j.r.compliant ? CLI_OK : CLI_ERROR;
out:
    cli_fetch_cleanup(&f);
    return rc;
}

const struct cmd_entry cmd_dnt_entry = {
    .name = "dnt",
    .usage = CLI_FETCH_USAGE " DOMAIN",
    .summary = "Check DOMAIN's EFF Do Not Track policy now",
    .help = dnt_help,
    .exec = cmd_dnt_exec,
};
