/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock ca`: the local certificate authority that brock's interception signs its leaf
 * certificates with. `init` creates it in the state folder; `install`, `uninstall` and
 * `status` put it in, take it out of, and look for it in this machine's trust stores
 * (net/trust.h); `path` says where its certificate is.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/ca.h"
#include "net/trust.h"
#include "util/file.h"

static const char ca_help[] =
    "  init       create the CA in the state folder (ca/: an EC P-256 key readable only by\n"
    "             you, and a self-signed certificate valid for three years)\n"
    "  install    create the CA if there is none, then have this machine's programs trust\n"
    "             it: the system store (curl, wget, Python, Node, most programs; needs\n"
    "             root), the NSS database Chromium reads (~/.pki/nssdb, created when\n"
    "             missing), every Firefox profile, and Firefox's policy for new profiles\n"
    "             (needs root). One line a place; a place that cannot be written is said\n"
    "             and the others are still done. With sudo, for the user who ran it\n"
    "             (their state folder, their browsers) as well as the system\n"
    "  uninstall  take the CA out of every place install puts it\n"
    "  status     say where the CA is trusted\n"
    "  path       print the path of the CA's certificate, to import by hand\n"
    "  offer      what `make run` does first: create the CA if there is none and, when it is\n"
    "             not trusted yet, ask once (on a terminal) whether to run install with sudo;\n"
    "             without a terminal, print the command instead\n"
    "\nOptions:\n"
    "  --force    with init: replace an existing CA (everything that trusted the old one\n"
    "             must then trust the new one)\n"
    "  -h, --help  print this help\n"
    "\nbrock run intercepts HTTPS by default once the CA is in the system store.\n";

/* Absolute, so that it can be pasted into a browser's import dialog from anywhere. */
static void print_path(const char *path)
{
    char abs[PATH_MAX];

    printf("%s\n", realpath(path, abs) ? abs : path);
}

/* Under sudo, with no state folder named, the CA is the one of the user who ran sudo: theirs
 * is the brock that runs as them and the browsers that are to trust it. */
static struct passwd *sudo_user(struct cli *cli)
{
    const char *name = getenv("SUDO_USER"), *xdg = getenv("XDG_STATE_HOME");
    struct passwd *pw;

    if (cli->state_dir || geteuid() != 0 || !name || !*name || !strcmp(name, "root") ||
        (xdg && xdg[0] == '/'))
        return NULL;
    pw = getpwnam(name);
    if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/' ||
        snprintf(cli->state_buf, sizeof(cli->state_buf), "%s/.local/state/brock", pw->pw_dir) >=
            (int)sizeof(cli->state_buf))
        return NULL;
    cli->state_dir = cli->state_buf;
    return pw;
}

/* The folders from the first that did not exist down to dir, made by root for the user who
 * ran sudo, and the CA's files in it, given to that user. */
static int give_to(const char *first_missing, const char *dir, const char *cert, const char *key,
                   const struct passwd *pw)
{
    char path[PATH_MAX];
    size_t start = strlen(first_missing);

    snprintf(path, sizeof(path), "%s", dir);
    for (size_t i = start;; i++) {
        if (path[i] == '/' || path[i] == '\0') {
            char c = path[i];

            path[i] = '\0';
            if (chown(path, pw->pw_uid, pw->pw_gid) < 0)
                return -1;
            path[i] = c;
            if (!c)
                break;
        }
    }
    return chown(cert, pw->pw_uid, pw->pw_gid) < 0 || chown(key, pw->pw_uid, pw->pw_gid) < 0 ? -1
                                                                                             : 0;
}

/* The first folder of path, from the top, that does not exist ("" when all do). */
static void first_missing(const char *path, char *out, size_t size)
{
    char p[PATH_MAX];

    out[0] = '\0';
    snprintf(p, sizeof(p), "%s", path);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;

            *s = '\0';
            if (access(p, F_OK) != 0) {
                snprintf(out, size, "%s", p);
                return;
            }
            *s = c;
            if (!c)
                return;
        }
    }
}

/* What the two outcomes that differ by operation are called. */
struct say_words {
    const char *done, *already;
};

static void say_line(void *arg, const char *place, const char *path, enum trust_state state,
                     const char *detail)
{
    static const char *const words[] = {
        [TRUST_DONE] = "done",        [TRUST_ALREADY] = "already so",
        [TRUST_YES] = "trusted",      [TRUST_NO] = "not trusted",
        [TRUST_FAILED] = "could not", [TRUST_SKIPPED] = "nothing to do",
    };
    const struct say_words *w = arg;
    const char *word = state == TRUST_DONE      ? w->done
                       : state == TRUST_ALREADY ? w->already
                                                : words[state];

    printf("%s: %s%s%s%s%s%s\n", place, word, *path ? " (" : "", path, *path ? ")" : "",
           detail && *detail ? ": " : "", detail ? detail : "");
}

static int trust_cmd(struct cli *cli, const struct cmd_entry *self, const char *what,
                     const char *cert, const char *key, const struct passwd *pw)
{
    static struct say_words w_status = {"trusted", "trusted"},
                            w_install = {"added", "already trusted"},
                            w_uninstall = {"removed", "not there"};
    char err[4096 + 256], missing[PATH_MAX], dir[PATH_MAX];
    struct trust t;
    int failed;

    if (strcmp(what, "install") == 0 && access(cert, F_OK) != 0) {
        snprintf(dir, sizeof(dir), "%s/%s", cli->state_dir, CA_DIR);
        first_missing(dir, missing, sizeof(missing));
        if (ca_create(cli->state_dir, 0, err, sizeof(err)) < 0)
            return cli_error(self, "%s", err);
        if (pw && give_to(*missing ? missing : dir, dir, cert, key, pw) < 0)
            return cli_error(self, "%s: cannot give the new CA to %s: %s", dir, pw->pw_name,
                             strerror(errno));
        printf("created the CA: %s\n", cert);
    }
    if (trust_init(&t, cert, err, sizeof(err)) < 0) {
        char again[4096 + 64];

        if (access(cert, F_OK) != 0)
            return cli_error(self, "%s has no CA yet; run `%s`", cli->state_dir,
                             cli_again(cli, "ca install", again, sizeof(again)));
        return cli_error(self, "%s", err);
    }
    if (strcmp(what, "status") == 0) {
        printf("CA: %s\n", cert);
        trust_status(&t, say_line, &w_status);
        return CLI_OK;
    }
    failed = strcmp(what, "install") == 0 ? trust_install(&t, say_line, &w_install)
                                          : trust_uninstall(&t, say_line, &w_uninstall);
    if (failed)
        return cli_error(self, "%d place%s could not be changed (above); the others were", failed,
                         failed == 1 ? "" : "s");
    return CLI_OK;
}

/* Asks the terminal once whether to run cmd (`ca install`, with sudo unless root) now, no being the
 * default, and keeps beside the CA (asked) that it was asked. Returns 1 for a yes. */
static int offer_ask(const char *asked, const char *cmd)
{
    char answer[16] = "";

    fprintf(stderr,
            "brock sees inside HTTPS, where nearly the whole web is, only once this "
            "machine trusts its CA.\nInstall it now (`%s`%s)? [y/N] ",
            cmd, geteuid() == 0 ? "" : ", which asks for your password");
    if (!fgets(answer, sizeof(answer), stdin))
        answer[0] = '\0';
    if (file_write_atomic(asked, "", 0, 0600) < 0)
        fprintf(stderr, "brock: %s cannot be written: this will be asked again\n", asked);
    if (answer[0] != 'y' && answer[0] != 'Y') {
        fprintf(stderr, "brock: not installed; `%s` does it later\n", cmd);
        return 0;
    }
    return 1;
}

/* Runs this brock's `ca install` for the state, with sudo unless brock is root; cmd is how
 * the messages name it. Returns CLI_OK, or the command's result after a message. */
static int offer_install(struct cli *cli, const struct cmd_entry *self, const char *cmd)
{
    char w_sudo[] = "sudo", w_ca[] = "ca", w_install[] = "install", w_state[] = "--state";
    char exe[PATH_MAX], state[PATH_MAX];
    char *argv[] = {w_sudo, exe, w_state, state, w_ca, w_install, NULL};
    int status = 0;
    ssize_t n;
    pid_t pid;

    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return cli_error(self, "cannot tell where brock is: run `%s` yourself", cmd);
    exe[n] = '\0';
    fflush(NULL);
    snprintf(state, sizeof(state), "%s", cli->state_dir);
    pid = fork();

    if (pid == 0) {
        /* Root needs no sudo, and may have none. */
        char **run = geteuid() == 0 ? argv + 1 : argv;

        execvp(run[0], run);
        dprintf(2, "brock: %s cannot be run: %s\n", run[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return cli_error(self, "`%s` did not finish well (above); brock runs all the same", cmd);
    return CLI_OK;
}

/* `make run`'s first step: a new user is led to seeing inside HTTPS. The CA is made if there
 * is none; then, unless it is trusted already, a terminal is asked once (the answer is kept
 * beside the CA, so a later `make run` does not ask again) whether to run `ca install` with
 * sudo now, no being the default; without a terminal nothing is asked and the command is
 * printed. Nothing is installed without a yes. */
static int offer(struct cli *cli, const struct cmd_entry *self, const char *cert)
{
    char err[4096 + 256], cmd[4096 + 64], asked[PATH_MAX];
    struct trust t;

    if (access(cert, F_OK) != 0) {
        if (ca_create(cli->state_dir, 0, err, sizeof(err)) < 0)
            return cli_error(self, "%s", err);
        fprintf(stderr, "brock: created a CA for seeing inside HTTPS: %s\n", cert);
    }
    if (trust_init(&t, cert, err, sizeof(err)) < 0)
        return cli_error(self, "%s", err);
    if (trust_in_system(&t))
        return CLI_OK;
    /* Root needs no sudo, and may have none. */
    snprintf(cmd, sizeof(cmd), "%s%s", geteuid() == 0 ? "" : "sudo ",
             cli_again(cli, "ca install", err, sizeof(err)));
    snprintf(asked, sizeof(asked), "%s/%s/asked-to-install", cli->state_dir, CA_DIR);
    if (!isatty(0) || !isatty(2) || access(asked, F_OK) == 0) {
        fprintf(stderr,
                "brock: HTTPS will pass unseen until this machine trusts brock's CA: "
                "`%s` does it\n",
                cmd);
        return CLI_OK;
    }
    if (!offer_ask(asked, cmd))
        return CLI_OK;
    return offer_install(cli, self, cmd);
}

static int cmd_ca_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {
        {"force", no_argument, NULL, 'f'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    static const char *const whats[] = {"init", "path", "install", "uninstall", "status", "offer"};
    char cert[4096], key[4096], err[4096 + 256], again[4096 + 64];
    const struct passwd *pw;
    const char *what;
    int c, force = 0, rc, known = 0;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":fh", opts, NULL)) != -1) {
        if (c == 'f')
            force = 1;
        else
            return cli_getopt_other(self, c, argv);
    }
    if (argc - optind != 1)
        return cli_usage(self, "expected init, install, uninstall, status, path or offer");
    what = argv[optind];
    for (size_t i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
        known |= strcmp(what, whats[i]) == 0;
    if (!known)
        return cli_usage(self, "'%s': expected init, install, uninstall, status, path or offer",
                         what);
    if (force && strcmp(what, "init") != 0)
        return cli_usage(self, "--force goes with init only");
    pw = sudo_user(cli);
    /* The CA lives beside the state but needs nothing of it: no database is opened. */
    rc = cli_state(cli, self);
    if (rc != CLI_OK)
        return rc;
    if (ca_paths(cli->state_dir, cert, key, sizeof(cert)) < 0)
        return cli_error(self, "%s: the state folder's path is too long", cli->state_dir);
    if (strcmp(what, "offer") == 0)
        return offer(cli, self, cert);
    if (strcmp(what, "init") != 0 && strcmp(what, "path") != 0)
        return trust_cmd(cli, self, what, cert, key, pw);
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
    fprintf(stderr,
            "brock ca: created a CA; `%s` has this machine's browsers and programs "
            "trust it\n",
            cli_again(cli, "ca install", again, sizeof(again)));
    return CLI_OK;
}

const struct cmd_entry cmd_ca_entry = {
    .name = "ca",
    .usage = "init [--force] | install | uninstall | status | path",
    .summary = "The local CA that lets brock see inside HTTPS: create it, have this machine "
               "trust it",
    .help = ca_help,
    .exec = cmd_ca_exec,
};
