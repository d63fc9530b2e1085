/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock set`: a user's choice for exactly one domain, the command line's version of
 * Privacy Badger's slider; reset goes back to what was learned.
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
    "\nOptions:\n"
    "  -h, --help    print this help\n";

static int cmd_set_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    char domain[BROCK_HOST_MAX], line[3 * BROCK_HOST_MAX], why[256];
    struct brock_engine *e = NULL;
    struct brock_decision d;
    enum brock_action action;
    int c, rc, err;

    cli_getopt_start();
    c = getopt_long(argc, argv, ":h", opts, NULL);
    if (c != -1)
        return cli_getopt_other(self, c, argv);
    if (argc - optind != 2)
        return cli_usage(self, "expected DOMAIN and one of allow, cookieblock, block, reset");
    rc = brock_action_parse(argv[optind + 1], why, sizeof(why));
    if (rc < 0)
        return cli_usage(self, "%s", why);
    action = (enum brock_action)rc;
    if (brock_host_normalize(argv[optind], strlen(argv[optind]), domain) < 0)
        return cli_error(self, "'%s' is not a domain name", argv[optind]);

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    err = brock_set_user_action(e, domain, action);
    if (err < 0) {
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
        goto out;
    }
    /* What it is now is known before the write; it is printed only once written. */
    if (brock_decide(e, domain, NULL, &d) < 0)
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
    .usage = "DOMAIN allow|cookieblock|block|reset",
    .summary = "Set a user's choice for a domain (reset: back to what was learned)",
    .help = set_help,
    .exec = cmd_set_exec,
};
