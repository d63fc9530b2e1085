/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock forget`: forgets the recent page views (the sites visited and the trackers their
 * pages requested), all or those older than some days, or one client's own, and sets how
 * long they are kept.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

static const char forget_help[] =
    "Forgets the recent page views: the sites visited and the third-party hosts their pages\n"
    "requested, as the dashboard lists them. What brock learned about trackers (the snitch\n"
    "map) stays. Prints how many sites were forgotten; a running proxy picks the change up\n"
    "within two seconds.\n"
    "\nOptions:\n"
    "  --older-than DAYS      forget only the views last seen more than DAYS days ago\n"
    "  --page-view-days DAYS  keep page views DAYS days from now on (the page-view-days\n"
    "                         setting, default 7, 0: keep none) and forget what is older;\n"
    "                         without --older-than nothing newer is forgotten\n"
    "  --param NAME           forget instead what was learned of the URL parameter NAME as\n"
    "                         link decoration (brock list --params), and your word on it:\n"
    "                         links keep it again until it is learned anew\n"
    "  --client CLIENT        forget instead one client's own page views and daily counts\n"
    "                         (a name given with `run --client`, or an address), as its\n"
    "                         page on the dashboard shows them; everyone's stay\n"
    "  -h, --help             print this help\n";

/* --client: one client's own views and counts. */
static int forget_client(struct cli *cli, const struct cmd_entry *self, const char *client)
{
    struct brock_engine *e = NULL;
    int rc = cli_open(cli, self, &e), n = 0;

    if (rc != CLI_OK)
        return rc;
    if ((n = brock_client_forget(e, client)) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK)
        printf(n ? "forgot the page views and daily counts of client %s\n"
                 : "client %s has no page views or daily counts to forget\n",
               client);
    return rc;
}

/* --param: a parameter name learned as link decoration. */
static int forget_param(struct cli *cli, const struct cmd_entry *self, const char *name)
{
    struct brock_engine *e = NULL;
    int rc = cli_open(cli, self, &e);

    if (rc != CLI_OK)
        return rc;
    if (brock_link_param_forget(e, name) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK)
        printf("forgot what was learned of the parameter %s\n", name);
    return rc;
}

/* Everyone's views older than older days (-1: all), keeping keep days from now on (-1: as
 * set). */
static int forget_views(struct cli *cli, const struct cmd_entry *self, long older, long keep)
{
    struct brock_engine *e = NULL;
    int64_t before = INT64_MAX;
    int rc, n = 0;

    /* The setting alone forgets what it no longer keeps. */
    if (older < 0 && keep > 0)
        older = keep;
    if (older >= 0)
        before = clock_now_ms() - older * 86400000LL;
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if ((keep >= 0 && brock_page_view_days_set(e, keep) < 0) ||
        (n = brock_pages_forget(e, before)) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK) {
        printf("forgot the recent page views of %d site%s\n", n, n == 1 ? "" : "s");
        if (keep >= 0)
            printf("page views are now kept %ld day%s\n", keep, keep == 1 ? "" : "s");
    }
    return rc;
}

static int cmd_forget_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_OLDER = 256, OPT_DAYS, OPT_CLIENT, OPT_PARAM };
    static const struct option opts[] = {
        {"older-than", required_argument, NULL, OPT_OLDER},
        {"page-view-days", required_argument, NULL, OPT_DAYS},
        {"client", required_argument, NULL, OPT_CLIENT},
        {"param", required_argument, NULL, OPT_PARAM},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    const char *client = NULL, *param = NULL;
    long older = -1, keep = -1;
    int c;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_OLDER && cli_days_parse(optarg, &older) == 0)
            continue;
        if (c == OPT_DAYS && cli_days_parse(optarg, &keep) == 0)
            continue;
        if (c == OPT_CLIENT) {
            client = optarg;
            continue;
        }
        if (c == OPT_PARAM) {
            param = optarg;
            continue;
        }
        if (c == OPT_OLDER || c == OPT_DAYS)
            return cli_usage(self, "'%s' is not a number of days from 0 to %d", optarg,
                             BROCK_PAGE_VIEW_DAYS_MAX);
        return cli_getopt_other(self, c, argv);
    }
    if (argc != optind)
        return cli_usage(self, "unexpected argument '%s'", argv[optind]);
    if (client && (older >= 0 || keep >= 0))
        return cli_usage(self, "--client forgets all of one client's: it takes neither "
                               "--older-than nor --page-view-days");
    if (param && (client || older >= 0 || keep >= 0))
        return cli_usage(self, "--param takes no other option");
    if (param)
        return forget_param(cli, self, param);
    if (client)
        return forget_client(cli, self, client);
    return forget_views(cli, self, older, keep);
}

const struct cmd_entry cmd_forget_entry = {
    .name = "forget",
    .usage = "[--older-than DAYS] [--page-view-days DAYS] | --client CLIENT | --param NAME",
    .summary = "Forget the recent page views (the sites visited)",
    .help = forget_help,
    .exec = cmd_forget_exec,
};
