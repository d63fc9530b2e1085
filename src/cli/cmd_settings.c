/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock settings`, `brock disable`, `brock enable`: the dashboard's settings on the command
 * line, under the names /api/settings uses.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

#include "util/clock.h"

static const char settings_help[] =
    "Prints brock's settings, one a line, or the one named; with a value, sets it first:\n"
    "  learn           on|off  learn from what passes (Privacy Badger's learnLocally)\n"
    "  send_dnt        on|off  send DNT: 1 and Sec-GPC: 1 (sendDNTSignal)\n"
    "  check_dnt       on|off  honour, and check for, EFF's DNT policy (checkForDNTPolicy)\n"
    "  clean_urls      on|off  take tracking parameters out of the URLs brock forwards\n"
    "  uncloak         on|off  judge a host by the CNAME chain brock's DNS look-up gave\n"
    "  page_view_days  DAYS    keep recent page views DAYS days (0 to 3650; default 7)\n"
    "  paused                  whether brock is off everywhere, and until when (brock\n"
    "                          pause, brock resume)\n"
    "  disabled_sites          the sites brock is off on, each for good or until a time\n"
    "                          (brock disable, brock enable)\n"
    "  widget_allowlist        the widgets always allowed on a site (the placeholders'\n"
    "                          \"Always allow on this site\"; the dashboard removes them)\n"
    "  clean_urls_off          the sites URLs are left as they are on (brock clean --off\n"
    "                          SITE, --on SITE)\n"
    "  uncloak_off             the names a CNAME chain is judged no further at (brock\n"
    "                          uncloak --off NAME, --on NAME)\n"
    "A running proxy picks a change up within two seconds.\n"
    "\nOptions:\n"
    "  --json        print the settings as the dashboard's /api/settings does\n"
    "  -h, --help    print this help\n";

/* The switches are brock_setting's values, 0 to N_SWITCHES - 1, by brock_setting_name(). */
#define N_SWITCHES BROCK_SETTING_COUNT

/* Where the lines are: how many sites are printed, and the time they are read at. */
struct site_lines {
    int n;
    int64_t now;
};

static int on_site_line(void *arg, const char *site, int64_t until_ms)
{
    struct site_lines *l = arg;
    char when[160];

    printf("%s%s", l->n++ ? ", " : "", site);
    if (until_ms != BROCK_NO_END)
        printf(" (%s)", cli_until(until_ms, l->now, when, sizeof(when)));
    return 0;
}

static int on_clean_line(void *arg, const char *site)
{
    int *n = arg;

    printf("%s%s", (*n)++ ? ", " : "", site);
    return 0;
}

static int on_widget_line(void *arg, const char *site, const char *name)
{
    int *n = arg;

    printf("%s%s: %s", (*n)++ ? ", " : "", site, name);
    return 0;
}

/* One setting's line, or every line for NULL. */
static void settings_print(struct brock_engine *e, const char *only)
{
    struct site_lines lines = {0, clock_now_ms()};
    int n = 0;

    for (unsigned i = 0; i < N_SWITCHES; i++) {
        enum brock_setting s = (enum brock_setting)i;
        if (!only || !strcmp(only, brock_setting_name(s)))
            printf("%-17s %s%s\n", brock_setting_name(s), brock_setting(e, s) ? "on" : "off",
                   s == BROCK_SETTING_LEARN && brock_setting(e, s) && !brock_engine_learning(e)
                       ? " (not learning now: --no-learn)"
                       : "");
    }
    if (!only || !strcmp(only, "page_view_days"))
        printf("%-17s %d\n", "page_view_days", brock_page_view_days(e));
    if (!only || !strcmp(only, "paused")) {
        int64_t until = 0;
        char when[160];

        if (!brock_paused(e, lines.now, &until))
            printf("%-17s no\n", "paused");
        else if (until == BROCK_NO_END)
            printf("%-17s until you resume it (brock resume)\n", "paused");
        else
            printf("%-17s %s\n", "paused", cli_until(until, lines.now, when, sizeof(when)));
    }
    if (!only || !strcmp(only, "disabled_sites")) {
        printf("%-17s ", "disabled_sites");
        if (brock_disabled_sites_until_each(e, on_site_line, &lines) < 0 || lines.n == 0)
            printf("(none)");
        printf("\n");
    }
    if (!only || !strcmp(only, "clean_urls_off")) {
        n = 0;
        printf("%-17s ", "clean_urls_off");
        if (brock_clean_sites_each(e, on_clean_line, &n) < 0 || n == 0)
            printf("(none)");
        printf("\n");
    }
    if (!only || !strcmp(only, "uncloak_off")) {
        n = 0;
        printf("%-17s ", "uncloak_off");
        if (brock_cname_targets_each(e, on_clean_line, &n) < 0 || n == 0)
            printf("(none)");
        printf("\n");
    }
    if (!only || !strcmp(only, "widget_allowlist")) {
        n = 0;
        printf("%-17s ", "widget_allowlist");
        if (brock_widget_site_allowlist_each(e, on_widget_line, &n) < 0 || n == 0)
            printf("(none)");
        printf("\n");
    }
}

/* The names past the switches: index N_SWITCHES + i. */
static const char *const others[] = {"page_view_days",   "paused",         "disabled_sites",
                                     "widget_allowlist", "clean_urls_off", "uncloak_off"};

/* Checks NAME [VALUE] before anything is opened: a value only for a switch (on, off) or
 * page_view_days (DAYS) into *set. Returns the switch's index, N_SWITCHES + the index in
 * others[], or -1 after a usage message. */
static int setting_check(const struct cmd_entry *self, const char *name, const char *value,
                         long *set)
{
    enum brock_setting s;
    size_t i = brock_setting_parse(name, &s) == 0 ? (size_t)s : N_SWITCHES;

    for (size_t j = 0; i == N_SWITCHES && j < sizeof(others) / sizeof(others[0]); j++)
        if (!strcmp(name, others[j]))
            i = N_SWITCHES + j;
    if (i == N_SWITCHES && strcmp(name, others[0]) != 0) {
        cli_usage(self,
                  "'%s' is not a setting (learn, send_dnt, check_dnt, clean_urls, uncloak, "
                  "page_view_days, paused, disabled_sites, widget_allowlist, clean_urls_off, "
                  "uncloak_off)",
                  name);
        return -1;
    }
    if (!value)
        return (int)i;
    if (i < N_SWITCHES && (!strcmp(value, "on") || !strcmp(value, "off"))) {
        *set = !strcmp(value, "on");
        return (int)i;
    }
    if (i == N_SWITCHES && cli_days_parse(value, set) == 0)
        return (int)i;
    if (i < N_SWITCHES)
        cli_usage(self, "%s is on or off, not '%s'", name, value);
    else if (i == N_SWITCHES)
        cli_usage(self, "'%s' is not a number of days from 0 to %d", value,
                  BROCK_PAGE_VIEW_DAYS_MAX);
    else if (i == N_SWITCHES + 1)
        cli_usage(self, "paused changes with brock pause [DURATION] and brock resume");
    else if (i == N_SWITCHES + 2)
        cli_usage(self, "disabled_sites changes with brock disable SITE and brock enable SITE");
    else if (i == N_SWITCHES + 4)
        cli_usage(self, "clean_urls_off changes with brock clean --off SITE and --on SITE");
    else if (i == N_SWITCHES + 5)
        cli_usage(self, "uncloak_off changes with brock uncloak --off NAME and --on NAME");
    else
        cli_usage(self, "widget_allowlist changes on the pages' placeholders and the dashboard");
    return -1;
}

static int cmd_settings_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_JSON = 256 };
    static const struct option opts[] = {
        {"json", no_argument, NULL, OPT_JSON}, CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    struct cmd_entry reader = *self;
    struct brock_engine *e = NULL;
    const char *name = NULL, *value = NULL;
    int c, rc, which = -1, json = 0, err = 0;
    long set = -1;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c != OPT_JSON)
            return cli_getopt_other(self, c, argv);
        json = 1;
    }
    if (argc - optind > 2)
        return cli_usage(self, "unexpected argument '%s'", argv[optind + 2]);
    name = optind < argc ? argv[optind] : NULL;
    value = optind + 1 < argc ? argv[optind + 1] : NULL;
    if (name && (which = setting_check(self, name, value, &set)) < 0)
        return CLI_USAGE;
    /* Only a value changes the state; reading creates nothing. */
    reader.read_only = !value;
    rc = cli_open(cli, &reader, &e);
    if (rc != CLI_OK)
        return rc;
    if (value && which < (int)N_SWITCHES)
        err = brock_setting_set(e, (enum brock_setting)which, (int)set);
    else if (value)
        err = brock_page_view_days_set(e, set);
    if (err < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_sync(self, e, rc);
    if (rc == CLI_OK && json) {
        char *text = NULL;
        size_t len = 0;
        if (brock_settings_json(e, &text, &len) < 0)
            rc = cli_error(self, "%s", brock_engine_errmsg(e));
        else
            printf("%s\n", text);
        brock_free(text);
    } else if (rc == CLI_OK) {
        settings_print(e, name);
    }
    brock_engine_free(e);
    return rc;
}

const struct cmd_entry cmd_settings_entry = {
    .name = "settings",
    .usage = "[--json] [NAME [VALUE]]",
    .summary = "Show the settings, or change one (learning, DNT signals, ...)",
    .help = settings_help,
    .exec = cmd_settings_exec,
};

/* ---- disable, enable ---- */

static const char disable_help[] =
    "Turns brock off on SITE (a host name or a URL; it covers the host's subdomains too), as\n"
    "Privacy Badger's \"disable on this site\": pages of SITE get nothing blocked, no cookie\n"
    "stripped, no DNT signal added; what its third parties do is still learned from, as\n"
    "Privacy Badger learns there. `brock enable SITE` turns it on again. A public suffix\n"
    "(com, co.uk), under which every site would be off, is refused; an address is a site.\n"
    "Prints the disabled sites afterwards; a running proxy picks the change up within two\n"
    "seconds.\n"
    "\nOptions:\n"
    "  --for DURATION  only for DURATION (30s, 10m, 1h, 2h30m; at most 7d): brock is on\n"
    "                  there again by itself then, or at `brock enable SITE`\n"
    "  -h, --help      print this help\n";

static const char enable_help[] =
    "Turns brock on again on SITE (a host name or a URL) after `brock disable SITE`: SITE\n"
    "is taken off the disabled sites, and its pages get blocking, cookie stripping, DNT\n"
    "signals and learning again. Only that entry goes: a disabled example.com still covers\n"
    "shop.example.com after `brock enable shop.example.com`.\n"
    "Ends a time off given with `brock disable SITE --for DURATION` early too.\n"
    "Prints the disabled sites afterwards; a running proxy picks the change up within two\n"
    "seconds.\n"
    "\nOptions:\n"
    "  -h, --help    print this help\n";

static int site_switch(struct cli *cli, const struct cmd_entry *self, int argc, char **argv,
                       int disabled)
{
    enum { OPT_FOR = 256 };
    static const struct option disable_opts[] = {
        {"for", required_argument, NULL, OPT_FOR}, CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    static const struct option enable_opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    struct brock_engine *e = NULL;
    const char *how_long = NULL;
    char err[256];
    int64_t ms = 0;
    int c, rc;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", disabled ? disable_opts : enable_opts, NULL)) != -1) {
        if (c != OPT_FOR)
            return cli_getopt_other(self, c, argv);
        how_long = optarg;
    }
    if (argc - optind != 1)
        return cli_usage(self, "expected one SITE");
    /* Checked before the state is opened: a bad duration changes nothing. */
    if (how_long && brock_duration_parse(how_long, &ms, err, sizeof(err)) < 0)
        return cli_usage(self, "--for: %s%s", err,
                         strstr(err, "more than") ? "; leave --for out to disable it for good"
                                                  : "");
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if ((how_long ? brock_site_disable_until(e, argv[optind], clock_now_ms() + ms)
                  : brock_site_set_disabled(e, argv[optind], disabled)) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_sync(self, e, rc);
    if (rc == CLI_OK)
        settings_print(e, "disabled_sites");
    brock_engine_free(e);
    return rc;
}

static int cmd_disable_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    return site_switch(cli, self, argc, argv, 1);
}

static int cmd_enable_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    return site_switch(cli, self, argc, argv, 0);
}

const struct cmd_entry cmd_disable_entry = {
    .name = "disable",
    .usage = "SITE [--for DURATION]",
    .summary = "Turn brock off on a site (Privacy Badger's disabled sites)",
    .help = disable_help,
    .exec = cmd_disable_exec,
};

const struct cmd_entry cmd_enable_entry = {
    .name = "enable",
    .usage = "SITE",
    .summary = "Turn brock on again on a site it was disabled on",
    .help = enable_help,
    .exec = cmd_enable_exec,
};
