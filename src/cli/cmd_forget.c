/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock forget`: forgets the recent page views (the sites visited and the trackers their
 * pages requested), all or those older than some days, and sets how long they are kept.
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
    "  -h, --help             print this help\n";

static int cmd_forget_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_OLDER = 256, OPT_DAYS };
    static const struct option opts[] = {
        {"older-than", required_argument, NULL, OPT_OLDER},
        {"page-view-days", required_argument, NULL, OPT_DAYS},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    struct brock_engine *e = NULL;
    long older = -1, keep = -1;
    int64_t before = INT64_MAX;
    int c, rc, n;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_OLDER && cli_days_parse(optarg, &older) == 0)
            continue;
        if (c == OPT_DAYS && cli_days_parse(optarg, &keep) == 0)
            continue;
        if (c == OPT_OLDER || c == OPT_DAYS)
            return cli_usage(self, "'%s' is not a number of days from 0 to %d", optarg,
                             BROCK_PAGE_VIEW_DAYS_MAX);
        return cli_getopt_other(self, c, argv);
    }
    if (argc != optind)
        return cli_usage(self, "unexpected argument '%s'", argv[optind]);
    /* The setting alone forgets what it no longer keeps. */
    if (older < 0 && keep > 0)
        older = keep;
    if (older >= 0)
        before = clock_now_ms() - older * 86400000LL;

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    n = 0;
    if (keep >= 0 && brock_page_view_days_set(e, keep) < 0) {
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
        goto out;
    }
    if ((n = brock_pages_forget(e, before)) < 0) {
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
        goto out;
    }
out:
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK) {
        printf("forgot the recent page views of %d site%s\n", n, n == 1 ? "" : "s");
        if (keep >= 0)
            printf("page views are now kept %ld day%s\n", keep, keep == 1 ? "" : "s");
    }
    return rc;
}

const struct cmd_entry cmd_forget_entry = {
    .name = "forget",
    .usage = "[--older-than DAYS] [--page-view-days DAYS]",
    .summary = "Forget the recent page views (the sites visited)",
    .help = forget_help,
    .exec = cmd_forget_exec,
};
