/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock stats`: what brock did each day (requests blocked, cookieblocked and allowed,
 * trackers learned, sites visited), as the dashboard's chart draws it, as aligned columns
 * for people or as JSON for programs.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "util/clock.h"

#define STATS_DAYS_DEFAULT 7

static const char stats_help[] =
    "Prints, for each of the last days (UTC), the requests brock blocked, cookieblocked\n"
    "and allowed, the trackers it learned, the sites visited (those whose top-level\n"
    "pages were opened) and the URLs it cleaned of tracking parameters, oldest first. Days are "
    "kept as long as page views are (the\n"
    "page-view-days setting).\n"
    "\nOptions:\n"
    "  --days N   the last N days, today included (1 to 3650, default 7)\n"
    "  --json     print a JSON array of objects: day, time_ms, blocked, cookieblocked,\n"
    "             allowed, learned, sites, cleaned (as GET /api/stats)\n"
    "  -h, --help print this help\n";

static int on_day(void *arg, const struct brock_day *d)
{
    (void)arg;
    printf("%-10s  %9" PRIu64 "  %13" PRIu64 "  %9" PRIu64 "  %7" PRIu64 "  %5" PRIu64 "  %7" PRIu64
           "\n",
           d->day, d->blocked, d->cookieblocked, d->allowed, d->learned, d->sites, d->cleaned);
    return 0;
}

static int cmd_stats_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_DAYS };
    static const struct option opts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"days", required_argument, NULL, OPT_DAYS},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    struct brock_engine *e = NULL;
    long days = STATS_DAYS_DEFAULT;
    char *out = NULL;
    size_t len = 0;
    int c, rc, json = 0, err;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_JSON) {
            json = 1;
        } else if (c == OPT_DAYS) {
            if (cli_days_parse(optarg, &days) < 0 || days < 1)
                return cli_usage(self, "--days: '%s' is not a number of days from 1 to %d", optarg,
                                 BROCK_DAILY_DAYS_MAX);
        } else {
            return cli_getopt_other(self, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage(self, "'%s': stats takes no arguments", argv[optind]);

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if (json) {
        err = brock_daily_json(e, (int)days, clock_now_ms(), &out, &len);
        if (err == 0 && (fwrite(out, 1, len, stdout) != len || fputc('\n', stdout) == EOF))
            rc = cli_error(self, "cannot write to standard output");
    } else {
        printf("%-10s  %9s  %13s  %9s  %7s  %5s  %7s\n", "day", "blocked", "cookieblocked",
               "allowed", "learned", "sites", "cleaned");
        err = brock_daily_each(e, (int)days, clock_now_ms(), on_day, NULL);
    }
    if (err < 0)
        rc = cli_error(self, "cannot count the days: %s", brock_engine_errmsg(e));
    brock_free(out);
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_stats_entry = {
    .name = "stats",
    .usage = "[--days N] [--json]",
    .summary = "Print what brock blocked, allowed and learned each day",
    .help = stats_help,
    .exec = cmd_stats_exec,
    .read_only = 1,
};
