/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock uncloak`: the names a CNAME chain from DNS is judged no further at, for a CDN that
 * sites alias their own hosts to and that is no tracker.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

static const char uncloak_help[] =
    "`brock run` learns the CNAME chain of every host it connects to from its own DNS\n"
    "look-up, and judges each name of the chain as Privacy Badger judges a host on its\n"
    "static CNAME list: a site's metrics.shop.example that is an alias of a tracker's\n"
    "name is that tracker. A chain is judged no further at a name on the cookieblock\n"
    "list, one you allowed (brock set NAME allow), or one given here. `brock settings\n"
    "uncloak off` turns it off everywhere; `brock check --cname NAME` shows a decision\n"
    "made through a chain.\n"
    "\nOptions:\n"
    "  --off NAME  a chain is judged no further at NAME and the names under it\n"
    "  --on NAME   it is judged there again\n"
    "  --list      print the names given to --off, one a line\n"
    "  -h, --help  print this help\n";

static int on_name(void *arg, const char *name)
{
    (void)arg;
    puts(name);
    return 0;
}

static int uncloak_list(struct cli *cli, const struct cmd_entry *self)
{
    struct cmd_entry reader = *self;
    struct brock_engine *e = NULL;
    int rc;

    reader.read_only = 1;
    if ((rc = cli_open(cli, &reader, &e)) != CLI_OK)
        return rc;
    (void)brock_cname_targets_each(e, on_name, NULL);
    return cli_close(&reader, e, rc);
}

static int uncloak_switch(struct cli *cli, const struct cmd_entry *self, const char *name, int off)
{
    struct brock_engine *e = NULL;
    int rc = cli_open(cli, self, &e);

    if (rc != CLI_OK)
        return rc;
    if (brock_cname_target_set(e, name, off) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK)
        printf(off ? "CNAME chains are judged no further at %s (a running brock within two "
                     "seconds).\n"
                   : "CNAME chains are judged at %s again.\n",
               name);
    return rc;
}

static int cmd_uncloak_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_OFF = 256, OPT_ON, OPT_LIST };
    static const struct option opts[] = {
        {"off", required_argument, NULL, OPT_OFF},
        {"on", required_argument, NULL, OPT_ON},
        {"list", no_argument, NULL, OPT_LIST},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    const char *name = NULL;
    int c, which = 0;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_OFF || c == OPT_ON || c == OPT_LIST) {
            if (which)
                return cli_usage(self, "give one of --off, --on and --list, once");
            which = c;
            name = optarg;
        } else {
            return cli_getopt_other(self, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage(self, "unexpected argument '%s'", argv[optind]);
    if (!which)
        return cli_usage(self, "give --off NAME, --on NAME or --list");
    if (which == OPT_LIST)
        return uncloak_list(cli, self);
    return uncloak_switch(cli, self, name, which == OPT_OFF);
}

const struct cmd_entry cmd_uncloak_entry = {
    .name = "uncloak",
    .usage = "--off NAME | --on NAME | --list",
    .summary = "Where CNAME chains from DNS are judged no further",
    .help = uncloak_help,
    .exec = cmd_uncloak_exec,
};
