/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock dnt`: one host's EFF Do Not Track policy checked now, through the same fetch the
 * proxy uses, with the outcome recorded as a policy check in the proxy would.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "proxy/fetch.h"
#include "proxy/proxy.h"
#include "util/alloc.h"

static const char dnt_help[] =
    "Fetches https://DOMAIN/.well-known/dnt-policy.txt (no cookies, no redirects, at most\n"
    "64 KiB within 10 seconds) and says whether it is one of the EFF DNT policy texts\n"
    "Privacy Badger accepts. A compliant DOMAIN is never blocked while it posts the policy.\n"
    "The outcome is recorded in the state. Exits 0 only when DOMAIN is compliant.\n"
    "\nOptions:\n"
    "  --resolve HOSTGLOB[:PORT]=ADDR:PORT\n"
    "                        connect to ADDR:PORT for matching hosts instead of using DNS;\n"
    "                        may be repeated\n"
    "  --upstream-ca FILE    also trust the roots in FILE (PEM)\n"
    "  -h, --help            print this help\n";

static int cmd_dnt_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_RESOLVE = 256, OPT_UPSTREAM_CA };
    static const struct option opts[] = {
        {"resolve", required_argument, NULL, OPT_RESOLVE},
        {"upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    struct proxy_options o;
    struct brock_engine *e = NULL;
    struct fetch_result r;
    const char **resolve;
    char domain[BROCK_HOST_MAX], url[BROCK_HOST_MAX + 64], why[512], err[512];
    char *body = NULL;
    int c, rc = CLI_OK, compliant;

    memset(&o, 0, sizeof(o));
    resolve = mem_calloc((size_t)argc, sizeof(*resolve));
    if (!resolve)
        return cli_error(self, "out of memory");
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_RESOLVE) {
            resolve[o.n_resolve++] = optarg;
        } else if (c == OPT_UPSTREAM_CA) {
            if (access(optarg, R_OK) != 0) {
                rc = cli_error(self, "--upstream-ca '%s': cannot read the file", optarg);
                goto out;
            }
            o.upstream_ca = optarg;
        } else {
            rc = cli_getopt_other(self, c, argv);
            goto out;
        }
    }
    o.resolve = resolve;
    if (argc - optind != 1) {
        rc = cli_usage(self, "expected one DOMAIN");
        goto out;
    }
    if (proxy_options_check(&o, err, sizeof(err)) < 0) {
        rc = cli_usage(self, "%s", err);
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
    if (fetch_once(url, FETCH_DNT_MAX, o.resolve, o.n_resolve, o.upstream_ca, &r, &body, why,
                   sizeof(why), err, sizeof(err)) < 0) {
        rc = cli_error(self, "%s", err);
        goto out;
    }
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
    mem_free(resolve);
    return rc;
}

const struct cmd_entry cmd_dnt_entry = {
    .name = "dnt",
    .usage = "[--resolve HOSTGLOB[:PORT]=ADDR:PORT]... [--upstream-ca FILE] DOMAIN",
    .summary = "Check DOMAIN's EFF Do Not Track policy now",
    .help = dnt_help,
    .exec = cmd_dnt_exec,
};
