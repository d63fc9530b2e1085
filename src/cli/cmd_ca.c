/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock ca`: the local certificate authority that `brock run --intercept` signs its leaf
 * certificates with. `init` creates it in the state folder; `path` says where its
 * certificate is, for the browsers and programs that are to trust it.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/ca.h"

static const char ca_help[] =
    "  init      create the CA in the state folder (ca/: an EC P-256 key readable only by\n"
    "            you, and a self-signed certificate valid for three years)\n"
    "  path      print the path of the CA's certificate, to import into browsers\n"
    "\nOptions:\n"
    "  --force   with init: replace an existing CA (everything that trusted the old one\n"
    "            must then trust the new one)\n"
    "  -h, --help  print this help\n"
    "\nREADME tells how to trust the certificate in Chromium, Firefox, curl and Debian's\n"
    "system store.\n";

/* Absolute, so that it can be pasted into a browser's import dialog from anywhere. */
static void print_path(const char *path)
{
    char abs[PATH_MAX];

    printf("%s\n", realpath(path, abs) ? abs : path);
}

static int cmd_ca_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {
        {"force", no_argument, NULL, 'f'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    char cert[4096], key[4096], err[4096 + 256], again[4096 + 64];
    const char *what;
    int c, force = 0, rc;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":fh", opts, NULL)) != -1) {
        if (c == 'f')
            force = 1;
        else
            return cli_getopt_other(self, c, argv);
    }
    if (argc - optind != 1)
        return cli_usage(self, "expected init or path");
    what = argv[optind];
    if (strcmp(what, "init") != 0 && strcmp(what, "path") != 0)
        return cli_usage(self, "'%s': expected init or path", what);
    if (force && strcmp(what, "init") != 0)
        return cli_usage(self, "--force goes with init only");
    /* The CA lives beside the state but needs nothing of it: no database is opened. */
    rc = cli_state(cli, self);
    if (rc != CLI_OK)
        return rc;
    if (ca_paths(cli->state_dir, cert, key, sizeof(cert)) < 0)
        return cli_error(self, "%s: the state folder's path is too long", cli->state_dir);
    if (strcmp(what, "path") == 0) {
        if (access(cert, R_OK) != 0)
            return cli_error(self, "%s has no CA yet; run `%s`", cli->state_dir,
                             cli_again(cli, "ca init", again, sizeof(again)));
        print_path(cert);
        return CLI_OK;
    }
    if (ca_create(cli->state_dir, force, err, sizeof(err)) < 0)
        return cli_error(self, "%s", err);
    print_path(cert);
    fprintf(stderr, "brock ca: created a CA; trust %s in your browsers (see README), then "
                    "run `%s`\n", cert, cli_again(cli, "run --intercept", again, sizeof(again)));
    return CLI_OK;
}

const struct cmd_entry cmd_ca_entry = {
    .name = "ca",
    .usage = "init [--force] | path",
    .summary = "Create the local CA for --intercept, or print its certificate's path",
    .help = ca_help,
    .exec = cmd_ca_exec,
};
