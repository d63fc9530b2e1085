/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock pause [DURATION | --until-resume]` and `brock resume`: brock off everywhere for a
 * while, as on a disabled site, and on again. The pause is kept in the state, where a running
 * brock reads it within a second and ends it on time.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

#include "util/clock.h"

/* What `brock pause` alone gives: long enough to get past a site that breaks, short enough
 * to be over before it is forgotten. */
#define PAUSE_DEFAULT "10m"

static const char pause_help[] =
    "Turns brock off everywhere for DURATION (default " PAUSE_DEFAULT "), as on a disabled\n"
    "site: nothing is blocked, no cookie is stripped, no DNT or GPC signal is added and pages\n"
    "are passed as they come; requests are still logged, and learned from as Privacy Badger\n"
    "learns on a disabled site. DURATION is whole numbers with their units, d, h, m and s,\n"
    "in that order: 30s, 10m, 1h, 2h30m; at most 7d. The pause ends by itself then, or at\n"
    "`brock resume`; a new pause replaces the one in force. A running brock picks it up\n"
    "within a second and keeps it across restarts; one that ended while brock was stopped\n"
    "is over.\n"
    "\nOptions:\n"
    "  --until-resume  a pause with no end, until `brock resume`\n"
    "  -h, --help      print this help\n";

static const char resume_help[] =
    "Ends the pause of `brock pause` now: brock blocks, strips cookies and sends DNT and\n"
    "GPC again everywhere but on the disabled sites. A running brock picks it up within a\n"
    "second. Nothing happens when brock is not paused.\n"
    "\nOptions:\n"
    "  -h, --help      print this help\n";

/* The pause as it is now, in one line. */
static void pause_print(const struct brock_engine *e)
{
    int64_t now = clock_now_ms(), until = 0;
    char when[160];

    if (!brock_paused(e, now, &until))
        printf("brock is not paused\n");
    else if (until == BROCK_NO_END)
        printf("brock is paused until you resume it (brock resume)\n");
    else
        printf("brock is paused %s; brock resume ends it sooner\n",
               cli_until(until, now, when, sizeof(when)));
}

static int cmd_pause_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_UNTIL_RESUME = 256 };
    static const struct option opts[] = {
        {"until-resume", no_argument, NULL, OPT_UNTIL_RESUME}, CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    struct brock_engine *e = NULL;
    const char *text = PAUSE_DEFAULT;
    int c, rc, no_end = 0;
    char err[256];
    int64_t ms = 0;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c != OPT_UNTIL_RESUME)
            return cli_getopt_other(self, c, argv);
        no_end = 1;
    }
    if (argc - optind > 1)
        return cli_usage(self, "unexpected argument '%s'", argv[optind + 1]);
    if (optind < argc && no_end)
        return cli_usage(self, "give a DURATION or --until-resume, not both");
    if (optind < argc)
        text = argv[optind];
    /* Checked before the state is opened: a bad duration changes nothing. */
    if (!no_end && brock_duration_parse(text, &ms, err, sizeof(err)) < 0)
        return cli_usage(self, "%s%s", err,
                         strstr(err, "more than") ? "; for a pause with no end, "
                                                    "brock pause --until-resume"
                                                  : "");
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if (brock_pause(e, no_end ? BROCK_NO_END : clock_now_ms() + ms) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_sync(self, e, rc);
    if (rc == CLI_OK)
        pause_print(e);
    brock_engine_free(e);
    return rc;
}

static int cmd_resume_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    struct cmd_entry reader = *self;
    struct brock_engine *e = NULL;
    int c, rc;

    cli_getopt_start();
    c = getopt_long(argc, argv, ":h", opts, NULL);
    if (c != -1)
        return cli_getopt_other(self, c, argv);
    if (optind < argc)
        return cli_usage(self, "unexpected argument '%s'", argv[optind]);
    /* Looked at first without writing: a resume with nothing to end creates and changes
     * nothing. */
    reader.read_only = 1;
    rc = cli_open(cli, &reader, &e);
    if (rc != CLI_OK)
        return rc;
    if (!brock_paused(e, clock_now_ms(), NULL)) {
        fputs("brock is not paused\n", stdout);
        brock_engine_free(e);
        return CLI_OK;
    }
    brock_engine_free(e);
    e = NULL;
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if (brock_resume(e) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_sync(self, e, rc);
    if (rc == CLI_OK)
        fputs("resumed: brock is on again everywhere but on the disabled sites\n", stdout);
    brock_engine_free(e);
    return rc;
}

const struct cmd_entry cmd_pause_entry = {
    .name = "pause",
    .usage = "[DURATION | --until-resume]",
    .summary = "Turn brock off everywhere for a while (default " PAUSE_DEFAULT ")",
    .help = pause_help,
    .exec = cmd_pause_exec,
};

const struct cmd_entry cmd_resume_entry = {
    .name = "resume",
    .usage = "",
    .summary = "End the pause now",
    .help = resume_help,
    .exec = cmd_resume_exec,
};
