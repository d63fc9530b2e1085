/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock set`: a user's choice for exactly one domain, everywhere or on one site only, the
 * command line's version of Privacy Badger's slider; reset goes back to what was learned.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

static const char set_help[] =
    "Sets the user's choice for exactly DOMAIN: allow, cookieblock (send requests without\n"
    "cookies) or block. A choice beats everything learned, and the most specific choice\n"
    "wins. reset removes the choice. Privacy Badger's names of the choices (user_allow,\n"
    "user_cookieblock, user_block) are taken too. Prints the domain's action afterwards; a\n"
    "running proxy picks the change up within two seconds.\n"
    "\nWith --site, the choice holds on the pages of SITE only (its base domain: every page\n"
    "of the site), above the choice made for every site; elsewhere nothing changes. reset\n"
    "with --site removes that choice alone.\n"
    "\nOptions:\n"
    "  --site SITE   the choice for this site only (a host or base domain)\n"
    "  -h, --help    print this help\n";

static int cmd_set_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_SITE = 256 };
    static const struct option opts[] = {
        {"site", required_argument, NULL, OPT_SITE}, CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    char domain[BROCK_HOST_MAX], site[BROCK_HOST_MAX], line[4 * BROCK_HOST_MAX], why[256];
    const char *site_arg = NULL;
    struct brock_engine *e = NULL;
    struct brock_decision d;
    enum brock_action action;
    int c, rc, err;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c != OPT_SITE)
            return cli_getopt_other(self, c, argv);
        site_arg = optarg;
    }
    if (argc - optind != 2)
        return cli_usage(self, "expected DOMAIN and one of allow, cookieblock, block, reset");
    rc = brock_action_parse(argv[optind + 1], why, sizeof(why));
    if (rc < 0)
        return cli_usage(self, "%s", why);
    action = (enum brock_action)rc;
    if (brock_host_normalize(argv[optind], strlen(argv[optind]), domain) < 0)
        return cli_error(self, "'%s' is not a domain name", argv[optind]);
    if (site_arg && brock_host_normalize(site_arg, strlen(site_arg), site) < 0)
        return cli_error(self, "--site '%s' is not a domain name", site_arg);

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    err = site_arg ? brock_set_site_action(e, site, domain, action)
                   : brock_set_user_action(e, domain, action);
    if (err < 0) {
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
        goto out;
    }
    /* What it is now is known before the write; it is printed only once written. */
    if (site_arg && brock_decide(e, domain, site, &d) == 0)
        snprintf(line, sizeof(line), "%s on %s: %s", domain, d.site, brock_action_words(d.action));
    else if (brock_decide(e, domain, NULL, &d) < 0)
        snprintf(line, sizeof(line), "%s: %s", domain, brock_action_words(action));
    else if (strcmp(d.tracker, d.host) != 0 && d.tracker[0])
        snprintf(line, sizeof(line), "%s: %s, as its CNAME target %s", domain,
                 brock_action_words(d.action), d.tracker);
    else
        snprintf(line, sizeof(line), "%s: %s", domain, brock_action_words(d.action));
out:
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK)
        puts(line);
    return rc;
}

const struct cmd_entry cmd_set_entry = {
    .name = "set",
    .usage = "DOMAIN allow|cookieblock|block|reset [--site SITE]",
    .summary = "Set a user's choice for a domain, everywhere or on one site (reset: undo it)",
    .help = set_help,
    .exec = cmd_set_exec,
};
