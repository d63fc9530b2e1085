/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock clean`: URLs with their tracking parameters taken out and their wrappers unwrapped,
 * by ClearURLs' rules (the state's from `brock update`, else those brock ships, in
 * data/clearurls/), so that a link can be cleaned before it is shared, and the rules checked;
 * and the sites where the proxy leaves URLs as they are.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char clean_help[] =
    "Prints each URL (http or https) cleaned, one a line: the query's and the fragment's\n"
    "tracking parameters taken out (utm_source, fbclid, gclid and the others ClearURLs'\n"
    "rules name, per site), the rest kept as written, and a redirect wrapper (Google's and\n"
    "Facebook's outbound links, say) replaced by the address inside. A URL left as it was is\n"
    "printed as it was. The rules are those `brock update` last fetched, else the ones\n"
    "brock ships.\n"
    "\n"
    "`brock run` does the same to every request it forwards (a page's address is\n"
    "redirected to the clean one), unless `brock settings clean_urls off`, or on the sites\n"
    "given to --off.\n"
    "\nOptions:\n"
    "  --json      one JSON object a URL instead: url, clean, result (none, stripped,\n"
    "              redirect, or block for a host that only tracks), provider (the rules'\n"
    "              name for the site) and removed (the parameters taken out)\n"
    "  --off SITE  the proxy leaves URLs as they are on SITE and the sites under it\n"
    "  --on SITE   it cleans them there again\n"
    "  --keep-param NAME    links keep the parameter NAME even when brock learned that\n"
    "                       it carries sites' identifiers (brock list --params)\n"
    "  --unkeep-param NAME  back to what brock learned of NAME\n"
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

/* --keep-param NAME or --unkeep-param NAME: a parameter learned as link decoration kept in
 * links, or back to what was learned. */
static int clean_keep(struct cli *cli, const struct cmd_entry *self, const char *name, int keep)
{
    struct brock_engine *e = NULL;
    int rc = cli_open(cli, self, &e);

    if (rc != CLI_OK)
        return rc;
    if (brock_link_param_keep(e, name, keep) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK)
        printf(keep ? "links keep the parameter %s\n"
                    : "the parameter %s is taken out of links if brock learned it\n",
               name);
    return rc;
}

/* --off SITE or --on SITE: cleaning turned off on a site, or on again. */
static int clean_switch(struct cli *cli, const struct cmd_entry *self, const char *site, int off)
{
    struct brock_engine *e = NULL;
    int rc = cli_open(cli, self, &e);

    if (rc != CLI_OK)
        return rc;
    if (brock_clean_site_set(e, site, off) < 0)
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
    rc = cli_close(self, e, rc);
    if (rc == CLI_OK)
        printf("brock %s tracking parameters on %s%s.\n", off ? "no longer takes" : "takes", site,
               off ? " (a running brock within two seconds)" : " again");
    return rc;
}

static int clean_urls(struct cli *cli, const struct cmd_entry *self, int n, char **urls, int json)
{
    struct cmd_entry reader = *self;
    struct brock_engine *e = NULL;
    char out[BROCK_URL_MAX];
    int rc;

    /* Cleaning reads the state (the rules `brock update` fetched) and writes nothing. */
    reader.read_only = 1;
    if ((rc = cli_open(cli, &reader, &e)) != CLI_OK)
        return rc;
    if (brock_clearurls_providers(e, NULL) == 0) {
        brock_engine_free(e);
        return cli_error(self, "no ClearURLs rules could be read");
    }
    /* A URL refused is named; the others are cleaned all the same. */
    for (int i = 0; i < n; i++) {
        struct brock_clean info;
        int r = brock_clean_url(e, urls[i], out, sizeof(out), &info);

        if (r < 0) {
            rc = cli_error(self, "%s", brock_engine_errmsg(e));
        } else if (print_one(urls[i], out, r, &info, json) < 0) {
            rc = cli_error(self, "out of memory");
            break;
        }
    }
    brock_engine_free(e);
    return rc;
}

static int cmd_clean_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_OFF, OPT_ON, OPT_KEEP, OPT_UNKEEP };
    static const struct option opts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"off", required_argument, NULL, OPT_OFF},
        {"on", required_argument, NULL, OPT_ON},
        {"keep-param", required_argument, NULL, OPT_KEEP},
        {"unkeep-param", required_argument, NULL, OPT_UNKEEP},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    const char *site = NULL;
    int c, json = 0, off = 0, which = 0;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_JSON) {
            json = 1;
        } else if (c == OPT_OFF || c == OPT_ON || c == OPT_KEEP || c == OPT_UNKEEP) {
            if (site)
                return cli_usage(self, "give one of --off, --on, --keep-param and "
                                       "--unkeep-param, once");
            site = optarg;
            which = c;
            off = c == OPT_OFF || c == OPT_KEEP;
        } else {
            return cli_getopt_other(self, c, argv);
        }
    }
    if (site && (optind < argc || json))
        return cli_usage(self, "--off, --on, --keep-param and --unkeep-param take no URL and "
                               "no --json");
    if (which == OPT_KEEP || which == OPT_UNKEEP)
        return clean_keep(cli, self, site, off);
    if (site)
        return clean_switch(cli, self, site, off);
    if (optind == argc)
        return cli_usage(self, "give at least one URL");
    return clean_urls(cli, self, argc - optind, argv + optind, json);
}

const struct cmd_entry cmd_clean_entry = {
    .name = "clean",
    .usage = "[--json] URL... | --off SITE | --on SITE | --keep-param NAME | --unkeep-param NAME",
    .summary = "Take the tracking parameters out of URLs (ClearURLs' rules); where the proxy does",
    .help = clean_help,
    .exec = cmd_clean_exec,
};
