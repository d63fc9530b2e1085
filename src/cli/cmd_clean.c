/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock clean`: URLs with their tracking parameters taken out and their wrappers unwrapped,
 * by the ClearURLs rules brock ships (data/clearurls/), so that a link can be cleaned before
 * it is shared, and the rules checked. Reads no state.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* ClearURLs' data.min.json as built in (scripts/embed.c --text: after a "//file" line). */
extern const char clearurls_shipped[];
extern const size_t clearurls_shipped_len;

static const char clean_help[] =
    "Prints each URL (http or https) cleaned, one a line: the query's and the fragment's\n"
    "tracking parameters taken out (utm_source, fbclid, gclid and the others ClearURLs'\n"
    "rules name, per site), the rest kept as written, and a redirect wrapper (Google's and\n"
    "Facebook's outbound links, say) replaced by the address inside. A URL left as it was is\n"
    "printed as it was.\n"
    "\nOptions:\n"
    "  --json      one JSON object a URL instead: url, clean, result (none, stripped,\n"
    "              redirect, or block for a host that only tracks), provider (the rules'\n"
    "              name for the site) and removed (the parameters taken out)\n"
    "  -h, --help  print this help\n";

static const char *result_word(int r)
{
    switch (r) {
    case BROCK_CLEAN_STRIPPED: return "stripped";
    case BROCK_CLEAN_REDIRECT: return "redirect";
    case BROCK_CLEAN_BLOCK: return "block";
    default: return "none";
    }
}

/* One URL's line. Returns 0, or -1 when out of memory. */
static int print_one(const char *url, const char *out, int r, const struct brock_clean *c, int json)
{
    json_t *o, *removed;
    char *text;

    if (!json) {
        puts(out);
        return 0;
    }
    o = json_pack("{s:s, s:s, s:s, s:s, s:[]}", "url", url, "clean", out, "result", result_word(r),
                  "provider", c->provider, "removed");
    removed = json_object_get(o, "removed");
    for (const char *p = c->removed; o && *p;) {
        size_t n = strcspn(p, ",");

        if (json_array_append_new(removed, json_stringn(p, n)) < 0) {
            json_decref(o);
            o = NULL;
        }
        p += n + (p[n] == ',');
    }
    text = o ? json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(o);
    if (!text)
        return -1;
    puts(text);
    free(text);
    return 0;
}

static int cmd_clean_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    const char *rules = memchr(clearurls_shipped, '\n', clearurls_shipped_len);
    struct brock_config cfg = {.no_seed = 1};
    struct brock_engine *e = NULL;
    char err[256], out[BROCK_URL_MAX];
    int c, json = 0, rc = CLI_OK;

    (void)cli;
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'j') {
            json = 1;
            continue;
        }
        return cli_getopt_other(self, c, argv);
    }
    if (optind == argc)
        return cli_usage(self, "give at least one URL");
    rules = rules ? rules + 1 : clearurls_shipped;
    if (brock_engine_open(&cfg, &e, err, sizeof(err)) != 0)
        return cli_error(self, "%s", err);
    if (brock_clearurls_load(e, rules,
                             clearurls_shipped_len - (size_t)(rules - clearurls_shipped)) != 0) {
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
        goto out;
    }
    for (int i = optind; i < argc; i++) {
        struct brock_clean info;
        int r = brock_clean_url(e, argv[i], out, sizeof(out), &info);

        if (r < 0) {
            rc = cli_error(self, "%s", brock_engine_errmsg(e));
            continue;
        }
        if (print_one(argv[i], out, r, &info, json) < 0) {
            rc = cli_error(self, "out of memory");
            break;
        }
    }
out:
    brock_engine_free(e);
    return rc;
}

const struct cmd_entry cmd_clean_entry = {
    .name = "clean",
    .usage = "[--json] URL...",
    .summary = "Take the tracking parameters out of URLs (ClearURLs' rules)",
    .help = clean_help,
    .exec = cmd_clean_exec,
};
