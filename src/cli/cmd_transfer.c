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
    "\nOptions:\n"
    "  --format FORMAT   the format (default pb)\n"
    "  -o, --output FILE write to FILE (replaced atomically, mode 0644) instead of standard\n"
    "                    output\n"
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

static int write_out(const struct cmd_entry *self, const char *path, const char *data,
                     size_t len)
{
    int err;

    if (!path || strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
            return cli_error(self, "writing to standard output: %s", strerror(errno));
        return CLI_OK;
    }
    err = file_write_atomic(path, data, len, 0644);
    if (err < 0)
        return cli_error(self, "%s: cannot write: %s", path, strerror(-err));
    return CLI_OK;
}

static int cmd_export_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_FORMAT = 256 };
    static const struct option opts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"output", required_argument, NULL, 'o'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    const char *format = "pb", *output = NULL;
    struct brock_engine *e = NULL;
    char *out = NULL;
    size_t len = 0;
    int c, rc, err;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT:
            format = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        default:
            return cli_getopt_other(self, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage(self, "'%s': export takes no arguments", argv[optind]);
    if (!format_known(format))
        return format_unknown(self, format);
    if (output && !*output)
        return cli_usage(self, "-o needs a file name");

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    err = brock_export(e, format, &out, &len);
    if (err < 0) {
        rc = cli_error(self, "cannot export as %s: %s", format, brock_engine_errmsg(e));
        goto out;
    }
    rc = write_out(self, output, out, len);
out:
    brock_free(out);
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_export_entry = {
    .name = "export",
    .usage = "[--format pb|hosts|abp] [-o FILE]",
    .summary = "Write the state as Privacy Badger JSON, a hosts file or an Adblock Plus list",
    .help = export_help,
    .exec = cmd_export_exec,
    .read_only = 1,
};
