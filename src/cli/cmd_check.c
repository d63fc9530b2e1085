/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock check`: the decision for one request, as one JSON object, so that scripts and
 * people can ask what the proxy would do and why without sending anything.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"

static const char check_help[] =
    "Prints one JSON object: url, host, tracker (when CNAME uncloaking changed the host),\n"
    "base, site, third_party, action, effect and why.\n"
    "\nOptions:\n"
    "  --site URL    the page that makes the request (URL or host); without it the page\n"
    "                is unknown, which is judged third party\n"
    "  -h, --help    print this help\n";

/* brock_url_host() reads the host out of any scheme; requests the proxy decides on are web
 * requests (or bare hosts, as CONNECT names them), so anything else is a bad URL here. */
static int is_web(const char *url)
{
    static const char *const schemes[] = {"http", "https", "ws", "wss"};
    size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");

    if (n == 0 || url[n] != ':' || (url[n + 1] >= '0' && url[n + 1] <= '9'))
        return 1;
    if (strncmp(url + n + 1, "//", 2) != 0)
        return 0;
    for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
        if (strlen(schemes[i]) == n && strncasecmp(url, schemes[i], n) == 0)
            return 1;
    }
    return 0;
}

static int set_str(json_t *o, const char *key, const char *val)
{
    return json_object_set_new(o, key, json_string(val));
}

static json_t *decision_json(struct brock_engine *e, const char *url,
                             const struct brock_decision *d)
{
    json_t *o = json_object();
    char why[512], *big = NULL;
    size_t need;
    int bad;

    if (!o)
        return NULL;
    need = brock_decision_explain(e, d, why, sizeof(why));
    if (need >= sizeof(why)) {
        big = mem_malloc(need + 1);
        if (big)
            brock_decision_explain(e, d, big, need + 1);
    }
    bad = set_str(o, "url", url) | set_str(o, "host", d->host);
    if (strcmp(d->tracker, d->host) != 0 && d->tracker[0])
        bad |= set_str(o, "tracker", d->tracker);
    bad |= set_str(o, "base", d->base) | set_str(o, "site", d->site) |
           json_object_set_new(o, "third_party", json_boolean(d->third_party)) |
           set_str(o, "action", brock_action_name(d->action)) |
           set_str(o, "effect", brock_effect_name(d->effect)) |
           set_str(o, "why", big ? big : why);
    mem_free(big);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static int cmd_check_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {
        {"site", required_argument, NULL, 's'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    char host[BROCK_HOST_MAX], site[BROCK_HOST_MAX];
    const char *site_url = NULL, *url;
    struct brock_engine *e = NULL;
    struct brock_decision d;
    json_t *o = NULL;
    int c, rc;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":s:h", opts, NULL)) != -1) {
        if (c != 's')
            return cli_getopt_other(self, c, argv);
        site_url = optarg;
    }
    if (argc - optind != 1)
        return cli_usage(self, argc == optind ? "a URL is needed" : "one URL only, please");
    url = argv[optind];
    if (!is_web(url) || brock_url_host(url, host) < 0)
        return cli_error(self, "'%s' is not an http(s) URL or a host name", url);
    if (site_url && (!is_web(site_url) || brock_url_host(site_url, site) < 0))
        return cli_error(self, "--site '%s' is not an http(s) URL or a host name", site_url);

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if (brock_decide(e, host, site_url ? site : NULL, &d) < 0) {
        rc = cli_error(self, "'%s': %s", url, brock_engine_errmsg(e));
        goto out;
    }
    o = decision_json(e, url, &d);
    if (!o) {
        rc = cli_error(self, "out of memory");
        goto out;
    }
    if (json_dumpf(o, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF)
        rc = cli_error(self, "cannot write to standard output");
out:
    json_decref(o);
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_check_entry = {
    .name = "check",
    .usage = "[--site URL] URL",
    .summary = "Print the decision for a request to URL made by a page of SITE (JSON)",
    .help = check_help,
    .exec = cmd_check_exec,
    .read_only = 1,
};
