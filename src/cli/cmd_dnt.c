/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock dnt`: one host's EFF Do Not Track policy checked now, through the same fetch the
 * proxy uses, with the outcome recorded as a policy check in the proxy would.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

#include "jobs/fetch.h"
#include "util/alloc.h"

static const char dnt_help[] =
    "Fetches https://DOMAIN/.well-known/dnt-policy.txt (no cookies, no redirects, at most\n"
    "64 KiB within 10 seconds) and says whether it is one of the EFF DNT policy texts\n"
    "Privacy Badger accepts. A compliant DOMAIN is never blocked while it posts the policy.\n"
    "The outcome is recorded in the state. Exits 0 only when DOMAIN is compliant.\n"
    "\nOptions:\n" CLI_FETCH_HELP;

static int cmd_dnt_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    struct cli_fetch f;
    struct brock_engine *e = NULL;
    struct fetch_result r;
    char domain[BROCK_HOST_MAX], url[BROCK_HOST_MAX + 64];
    char *body = NULL;
    int rc, done, compliant;

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
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        goto out;
    snprintf(url, sizeof(url), "https://%s/.well-known/dnt-policy.txt", domain);
    rc = cli_fetch(self, &f, url, FETCH_DNT_MAX, &r, &body);
    if (rc != CLI_OK)
        goto out;
    compliant = r.status == FETCH_OK && brock_dnt_policy_accepted(e, r.body, r.len);
    if (brock_dnt_record(e, domain, compliant) < 0) {
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
        goto out;
    }
    rc = cli_close(self, e, CLI_OK);
    e = NULL;
    if (rc != CLI_OK)
        goto out;
    if (compliant)
        printf("%s: compliant: %s posts an accepted EFF DNT policy\n", domain, url);
    else if (r.status == FETCH_OK)
        printf("%s: not compliant: the text at %s (%zu bytes) is not an accepted EFF DNT "
               "policy (hash not accepted)\n", domain, url, r.len);
    else
        printf("%s: not compliant: %s\n", domain, r.why);
    rc = compliant ? CLI_OK : CLI_ERROR;
out:
    if (e)
        rc = cli_close(self, e, rc);
    mem_free(body);
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
