/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock passthrough`: the HTTPS hosts brock passes through unseen while it sees inside the
 * others (proxy/passthrough.h): listed with when and why, added, and taken off one by one,
 * the hosts brock learned when their clients refused its certificate and those it ships as
 * much as the user's own.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "proxy/passthrough.h"

static const char passthrough_help[] =
    "  list        the hosts passed through unseen (the default): each with since when,\n"
    "              whose (yours, or learned: its clients refused brock's certificate) and\n"
    "              why; then how many brock ships (AdGuard's HTTPS exclusions: banks,\n"
    "              services with sensitive personal data, hosts that break)\n"
    "  add HOST    pass HOST through unseen; a pattern (*.bank.example) covers every host\n"
    "              it matches\n"
    "  remove HOST see inside HOST again: it leaves the list, whichever put it there (a\n"
    "              shipped host is taken off brock's own list)\n"
    "A running proxy picks a change up within two seconds.\n"
    "\nOptions:\n"
    "  --why TEXT  with add: the reason, shown with the host\n"
    "  --shipped   with list: every host brock ships, one a line\n"
    "  --json      with list: as the dashboard's /api/passthrough answers\n"
    "  -h, --help  print this help\n";

struct list_ctx {
    json_t *arr; /* --json: the entries; NULL: lines */
    size_t n;
};

static int on_entry(void *arg, const struct brock_passthrough *p)
{
    struct list_ctx *x = arg;
    char when[32] = "";
    time_t t = (time_t)(p->time_ms / 1000);
    struct tm tm;

    if (p->host[0] == '!')
        return 0;
    x->n++;
    if (x->arr)
        return json_array_append_new(
                   x->arr, json_pack("{s:s, s:s, s:I, s:b}", "host", p->host, "why", p->why,
                                     "time_ms", (json_int_t)p->time_ms, "learned", p->learned)) < 0;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
    printf("%-40s since %s UTC  %s%s%s\n", p->host, when, p->learned ? "learned" : "yours",
           *p->why ? ": " : "", p->why);
    return 0;
}

static int on_taken(void *arg, const struct brock_passthrough *p)
{
    size_t *n = arg;

    if (p->host[0] == '!') {
        if (!(*n)++)
            printf("taken off the shipped list (seen inside):");
        printf(" %s", p->host + 1);
    }
    return 0;
}

static int on_shipped(void *arg, const char *host, const char *kind)
{
    (void)arg;
    printf("%s  (%s)\n", host, kind);
    return 0;
}

/* Every shipped host, one a line, in order. */
static int print_shipped(void)
{
    struct passthrough *p = passthrough_new();

    if (!p)
        return CLI_ERROR;
    passthrough_shipped_each(p, on_shipped, NULL);
    passthrough_free(p);
    return CLI_OK;
}

static int list(struct brock_engine *e, int json, int shipped)
{
    struct list_ctx x = {json ? json_array() : NULL, 0};
    struct passthrough *p;
    size_t taken = 0;
    char *text;

    if (shipped)
        return print_shipped();
    if (json && !x.arr)
        return CLI_ERROR;
    if (brock_passthrough_each(e, on_entry, &x) != 0) {
        json_decref(x.arr);
        return CLI_ERROR;
    }
    if (json) {
        text = json_dumps(x.arr, JSON_INDENT(2));
        json_decref(x.arr);
        if (!text)
            return CLI_ERROR;
        printf("%s\n", text);
        free(text);
        return CLI_OK;
    }
    if (!x.n)
        printf("(none of yours or learned)\n");
    brock_passthrough_each(e, on_taken, &taken);
    if (taken)
        printf("\n");
    p = passthrough_new();
    printf("and %zu hosts brock ships (banks, services with sensitive personal data, hosts "
           "that break under interception): --shipped lists them\n",
           passthrough_shipped_count(p));
    passthrough_free(p);
    return CLI_OK;
}

/* HOST leaves the list: the state's entry, else, for a shipped host, a "!HOST" entry that
 * takes it off brock's own. */
static int remove_host(const struct cmd_entry *self, struct brock_engine *e, const char *host)
{
    struct passthrough *p;
    char why[512], norm[BROCK_HOST_MAX + 1];
    int rc = brock_passthrough_remove(e, host), shipped;

    if (rc != BROCK_ENOTFOUND)
        return rc < 0 ? cli_error(self, "%s", brock_engine_errmsg(e)) : CLI_OK;
    if (brock_host_normalize(host, strlen(host), norm + 1) < 0)
        return cli_error(self, "%s", brock_engine_errmsg(e));
    p = passthrough_new();
    shipped = p && passthrough_why(p, e, NULL, 0, norm + 1, why, sizeof(why)) != NULL;
    passthrough_free(p);
    if (!shipped)
        return cli_error(self, "%s is not passed through", norm + 1);
    norm[0] = '!';
    if (brock_passthrough_add(e, norm, "taken off the shipped list", 0, 0) < 0)
        return cli_error(self, "%s", brock_engine_errmsg(e));
    return CLI_OK;
}

static int cmd_passthrough_exec(struct cli *cli, const struct cmd_entry *self, int argc,
                                char **argv)
{
    static const struct option opts[] = {
        {"why", required_argument, NULL, 'w'},
        {"shipped", no_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    struct brock_engine *e = NULL;
    const char *what = "list", *why = NULL;
    int c, rc, json = 0, shipped = 0, is_list, is_add;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'w')
            why = optarg;
        else if (c == 's')
            shipped = 1;
        else if (c == 'j')
            json = 1;
        else
            return cli_getopt_other(self, c, argv);
    }
    if (optind < argc)
        what = argv[optind++];
    is_list = strcmp(what, "list") == 0;
    is_add = strcmp(what, "add") == 0;
    if (!is_list && !is_add && strcmp(what, "remove") != 0)
        return cli_usage(self, "'%s': expected list, add HOST or remove HOST", what);
    if (argc - optind != (is_list ? 0 : 1))
        return cli_usage(self, "expected list, add HOST or remove HOST");
    if (why && !is_add)
        return cli_usage(self, "--why goes with add");
    if ((shipped || json) && !is_list)
        return cli_usage(self, "--shipped and --json go with list");
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if (is_list) {
        rc = list(e, json, shipped);
    } else if (is_add) {
        if (brock_passthrough_add(e, argv[optind], why, (int64_t)time(NULL) * 1000, 0) < 0)
            rc = cli_error(self, "%s", brock_engine_errmsg(e));
    } else {
        rc = remove_host(self, e, argv[optind]);
    }
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_passthrough_entry = {
    .name = "passthrough",
    .usage = "[list [--shipped] [--json] | add HOST [--why TEXT] | remove HOST]",
    .summary = "The HTTPS hosts passed through unseen: list them, add one, take one off",
    .help = passthrough_help,
    .exec = cmd_passthrough_exec,
};
