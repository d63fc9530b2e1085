/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock update`: Privacy Badger's current configuration (cookieblock list, DNT policy
 * hashes, site fixes) fetched from EFF, validated whole and applied; on any failure the
 * state keeps what it had.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "proxy/fetch.h"
#include "proxy/proxy.h"
#include "util/alloc.h"

static const char update_help[] =
    "Fetches " FETCH_PBCONFIG_URL " and applies it as Privacy Badger does:\n"
    "domains added to the cookieblock list are cookieblocked where their base is blocked,\n"
    "domains taken off it are blocked again, new DNT policy hashes are added (none are\n"
    "removed), and the site fixes are replaced. A list that fails validation changes\n"
    "nothing. `brock run` does the same once a day unless --no-update.\n"
    "\nOptions:\n"
    "  --resolve HOSTGLOB[:PORT]=ADDR:PORT\n"
    "                        connect to ADDR:PORT for matching hosts instead of using DNS;\n"
    "                        may be repeated\n"
    "  --upstream-ca FILE    also trust the roots in FILE (PEM)\n"
    "  -h, --help            print this help\n";

static int cmd_update_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_RESOLVE = 256, OPT_UPSTREAM_CA };
    static const struct option opts[] = {
        {"resolve", required_argument, NULL, OPT_RESOLVE},
        {"upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    struct proxy_options o;
    struct brock_engine *e = NULL;
    struct brock_update_stats st;
    struct fetch_result r;
    struct timeval now;
    const char **resolve;
    char why[512], err[512];
    char *body = NULL;
    int c, rc = CLI_OK;

    memset(&o, 0, sizeof(o));
    resolve = mem_calloc((size_t)argc, sizeof(*resolve));
    if (!resolve)
        return cli_error(self, "out of memory");
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_RESOLVE) {
            resolve[o.n_resolve++] = optarg;
        } else if (c == OPT_UPSTREAM_CA) {
            if (access(optarg, R_OK) != 0) {
                rc = cli_error(self, "--upstream-ca '%s': cannot read the file", optarg);
                goto out;
            }
            o.upstream_ca = optarg;
        } else {
            rc = cli_getopt_other(self, c, argv);
            goto out;
        }
    }
    o.resolve = resolve;
    if (optind < argc) {
        rc = cli_usage(self, "'%s': update takes no arguments", argv[optind]);
        goto out;
    }
    if (proxy_options_check(&o, err, sizeof(err)) < 0) {
        rc = cli_usage(self, "%s", err);
        goto out;
    }
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        goto out;
    if (fetch_once(FETCH_PBCONFIG_URL, FETCH_PBCONFIG_MAX, o.resolve, o.n_resolve, o.upstream_ca,
                   &r, &body, why, sizeof(why), err, sizeof(err)) < 0) {
        rc = cli_error(self, "%s", err);
        goto out;
    }
    if (r.status != FETCH_OK) {
        rc = cli_error(self, "cannot fetch %s: %s; nothing changed", FETCH_PBCONFIG_URL, r.why);
        goto out;
    }
    gettimeofday(&now, NULL);
    if (brock_update_apply(e, FETCH_PBCONFIG_URL, r.body, r.len,
                           (int64_t)now.tv_sec * 1000 + now.tv_usec / 1000, &st) < 0) {
        rc = cli_error(self, "%s Nothing changed.", brock_engine_errmsg(e));
        goto out;
    }
    rc = cli_close(self, e, CLI_OK);
    e = NULL;
    if (rc == CLI_OK)
        printf("Applied %s: %zu cookieblock domains (%zu added, %zu removed), %zu new DNT "
               "policies, %zu site fixes.\n",
               FETCH_PBCONFIG_URL, st.yellow, st.added, st.removed, st.hashes_added,
               st.site_fixes);
out:
    if (e)
        rc = cli_close(self, e, rc);
    mem_free(body);
    mem_free(resolve);
    return rc;
}

const struct cmd_entry cmd_update_entry = {
    .name = "update",
    .usage = "[--resolve HOSTGLOB[:PORT]=ADDR:PORT]... [--upstream-ca FILE]",
    .summary = "Fetch and apply Privacy Badger's current lists (pbconfig.json) from EFF",
    .help = update_help,
    .exec = cmd_update_exec,
};
