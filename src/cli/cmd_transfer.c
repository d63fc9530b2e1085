/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock import` and `brock export`: moving what was learned in and out, in Privacy
 * Badger's own JSON (so that brock and the extension can trade data) or as block lists.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "util/alloc.h"
#include "util/file.h"

static const char import_help[] =
    "Merges a Privacy Badger export (the options page's \"Export\" file), a seed.json, or a\n"
    "`brock export` into the state the way Privacy Badger merges: the sites are learning\n"
    "replayed, learned actions are never overwritten, user choices are taken. The whole\n"
    "file is checked first; a bad file changes nothing.\n"
    "\nOptions:\n"
    "  -h, --help    print this help\n";

static const char export_help[] =
    "Formats:\n"
    "  pb       Privacy Badger's JSON (action_map, snitch_map, settings_map, tracking_map,\n"
    "           fp_scripts), which Privacy Badger and `brock import` read back\n"
    "  hosts    a hosts file sending blocked domains to 0.0.0.0\n"
    "  abp      an Adblock Plus filter list of the blocked domains\n"
    "  dnsmasq  dnsmasq configuration: blocked domains answer NXDOMAIN (conf-file=)\n"
    "  unbound  Unbound local zones: blocked domains answer NXDOMAIN (include:)\n"
    "  rpz      a DNS response policy zone (BIND, Knot Resolver, PowerDNS Recursor)\n"
    "  privoxy  a Privoxy actions file that blocks, and strips cookies where brock does\n"
    "  ubo      uBlock Origin dynamic filtering rules (\"My rules\")\n"
    "  adguard  DNS filtering rules for AdGuard Home and Pi-hole\n"
    "  dnr      a Chromium declarativeNetRequest static ruleset (JSON)\n"
    "  safari   a WebKit (Safari) content blocker list (JSON)\n"
    "Block lists block a domain with the names below it, and let through the names below it\n"
    "that must load (cookieblocked, allowed by you, posting the DNT policy); cookies are\n"
    "stripped where the format can (privoxy, dnr, safari), elsewhere such names load.\n"
    "Public suffixes below a domain (s3.amazonaws.com) are other sites: excepted.\n"
    "\nOptions:\n"
    "  --format FORMAT   the format (default pb)\n"
    "  --action LIST     block lists: what to include, block, cookieblock or both (default\n"
    "                    block,cookieblock)\n"
    "  --learned-only    block lists: leave out domains known only from the seed or an\n"
    "                    import (your own choices stay)\n"
    "  -o, --output FILE write to FILE instead of standard output, replaced atomically;\n"
    "                    mode 0600 when the export names sites you visited (pb always, a\n"
    "                    block list when it holds a choice for one site only), else 0644\n"
    "  -h, --help        print this help\n";

static int cmd_import_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    struct brock_engine *e = NULL;
    struct brock_stats st;
    const char *path;
    char *text = NULL;
    size_t len = 0;
    int c, rc, err;

    cli_getopt_start();
    c = getopt_long(argc, argv, ":h", opts, NULL);
    if (c != -1)
        return cli_getopt_other(self, c, argv);
    if (argc - optind != 1)
        return cli_usage(self, argc == optind ? "a file is needed" : "one file only, please");
    path = argv[optind];
    err = file_read(path, CLI_FILE_MAX, &text, &len);
    if (err == -EFBIG)
        return cli_error(self, "%s: larger than %zu MiB", path, CLI_FILE_MAX >> 20);
    if (err < 0)
        return cli_error(self, "%s: %s", path, strerror(-err));

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        goto out;
    memset(&st, 0, sizeof(st));
    err = brock_import(e, path, text, len, &st);
    if (err < 0) {
        rc = cli_error(self, "%s", brock_engine_errmsg(e));
        goto out;
    }
    rc = cli_close(self, e, rc);
    e = NULL;
    if (rc == CLI_OK)
        printf("%s: %zu action map entries read, %zu new tracker sites, "
               "%zu trackers newly blocked\n",
               path, st.entries, st.recorded, st.blocked);
out:
    mem_free(text);
    return e ? cli_close(self, e, rc) : rc;
}

const struct cmd_entry cmd_import_entry = {
    .name = "import",
    .usage = "FILE",
    .summary = "Merge a Privacy Badger export or seed JSON into the state",
    .help = import_help,
    .exec = cmd_import_exec,
};

static int format_known(const char *name)
{
    for (const char *const *f = brock_export_formats(); *f; f++) {
        if (strcmp(*f, name) == 0)
            return 1;
    }
    return 0;
}

static int format_unknown(const struct cmd_entry *self, const char *name)
{
    char list[256];
    size_t n = 0;

    list[0] = '\0';
    for (const char *const *f = brock_export_formats(); *f && n < sizeof(list); f++) {
        int w = snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *f);

        if (w < 0)
            break;
        n += (size_t)w;
    }
    return cli_usage(self, "--format '%s' is not a format; the formats are %s", name, list);
}

/* Writes data to path (NULL or "-": standard output) with mode. */
static int write_out(const struct cmd_entry *self, const char *path, const char *data, size_t len,
                     int mode)
{
    int err;

    if (!path || strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return cli_error(self, "writing to standard output: %s", strerror(errno));
        return CLI_OK;
    }
    err = file_write_atomic(path, data, len, mode);
    if (err < 0)
        return cli_error(self, "%s: cannot write: %s", path, strerror(-err));
    return CLI_OK;
}

static int cmd_export_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_FORMAT = 256, OPT_ACTION, OPT_LEARNED_ONLY };
    static const struct option opts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"action", required_argument, NULL, OPT_ACTION},
        {"learned-only", no_argument, NULL, OPT_LEARNED_ONLY},
        {"output", required_argument, NULL, 'o'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    const char *format = "pb", *output = NULL;
    struct brock_engine *e = NULL;
    unsigned flags = BROCK_EXPORT_DEFAULT, learned = 0;
    char *out = NULL, why[160];
    size_t len = 0;
    int c, rc, err, filtered = 0, private = 0;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT: format = optarg; break;
        case OPT_ACTION:
            if (brock_export_actions_parse(optarg, &flags, why, sizeof(why)) < 0)
                return cli_usage(self, "--action: %s", why);
            filtered = 1;
            break;
        case OPT_LEARNED_ONLY:
            learned = BROCK_EXPORT_LEARNED_ONLY;
            filtered = 1;
            break;
        case 'o': output = optarg; break;
        default: return cli_getopt_other(self, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage(self, "'%s': export takes no arguments", argv[optind]);
    if (!format_known(format))
        return format_unknown(self, format);
    if (filtered && strcmp(format, "pb") == 0)
        return cli_usage(self, "--action and --learned-only are for block lists, not pb (the "
                               "whole state)");
    if (output && !*output)
        return cli_usage(self, "-o needs a file name");

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    err = brock_export_with(e, format, flags | learned, &out, &len);
    /* The sites a person visited are theirs to read, as the state is (its folder is 0700). */
    if (err >= 0 && output)
        err = private = brock_export_names_sites(e, format, flags | learned);
    if (err < 0) {
        rc = cli_error(self, "cannot export as %s: %s", format, brock_engine_errmsg(e));
        goto out;
    }
    rc = write_out(self, output, out, len, private ? 0600 : 0644);
out:
    brock_free(out);
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_export_entry = {
    .name = "export",
    .usage = "[--format pb|hosts|abp|dnsmasq|unbound|rpz|privoxy|ubo|adguard|dnr|safari]\n"
             "       [--action block,cookieblock] [--learned-only] [-o FILE]",
    .summary = "Write the state as Privacy Badger JSON or as a block list for another tool",
    .help = export_help,
    .exec = cmd_export_exec,
    .read_only = 1,
};
