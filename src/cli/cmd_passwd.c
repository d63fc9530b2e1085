/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock passwd`: sets the password of brock's owner, which the dashboard asks of every client
 * that is not this machine (dash/owner.h), ends every session, or forgets the password.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "dash/owner.h"
#include "util/file.h"

static const char passwd_help[] =
    "Sets the password of brock's owner. The dashboard asks for it of every client that is not\n"
    "this machine (see brock run --local): signed in, that browser manages brock as this\n"
    "machine does, for a week or until the password changes; without it, a client sees only\n"
    "the sign-in page, the proxy auto-config file and the CA's certificate. The password is\n"
    "read from the terminal, twice, without echo; or, when standard input is not a terminal,\n"
    "from its first two lines, which must be the same. 1 to 1024 bytes. Only its scrypt hash\n"
    "is kept, in the state folder's file 'owner'. Setting it ends every session; a running\n"
    "brock takes it at the next sign-in.\n"
    "\nOptions:\n"
    "  --sign-out-all   end every session, keeping the password\n"
    "  --remove         forget the password: no client can sign in any more\n"
    "  -h, --help       print this help\n";

/* One line of f into buf (size bytes, NUL-terminated, without its '\n'), its whole length in
 * *len even past size. Returns 0, or -1 at the end of f before any byte. */
static int read_line(FILE *f, char *buf, size_t size, size_t *len)
{
    int ch;
    size_t n = 0;

    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (n + 1 < size)
            buf[n] = (char)ch;
        n++;
    }
    if (ch == EOF && n == 0)
        return -1;
    buf[n + 1 < size ? n : size - 1] = '\0';
    *len = n;
    return 0;
}

/* Reads a line from the terminal on standard input, with prompt on stderr, echo off. */
static int read_hidden(const char *prompt, char *buf, size_t size, size_t *len)
{
    struct termios was, quiet;
    int rc, have = tcgetattr(STDIN_FILENO, &was) == 0;

    fputs(prompt, stderr);
    fflush(stderr);
    if (have) {
        quiet = was;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    rc = read_line(stdin, buf, size, len);
    if (have)
        (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &was);
    fputc('\n', stderr);
    return rc;
}

/* The new password into pw (size bytes) and *len, asked twice. Returns CLI_OK or an error. */
static int ask(const struct cmd_entry *self, char *pw, char *again, size_t size, size_t *len)
{
    int tty = isatty(STDIN_FILENO);
    size_t len2 = 0;
    char err[160];

    if (tty ? read_hidden("new password for brock's owner: ", pw, size, len) < 0
            : read_line(stdin, pw, size, len) < 0)
        return cli_error(self, "no password was given");
    /* What the buffer holds is the password whole, or past what owner_password_ok() takes. */
    if (owner_password_ok(pw, *len, err, sizeof(err)) < 0)
        return cli_error(self, "%s", err);
    if (tty ? read_hidden("the same again: ", again, size, &len2) < 0
            : read_line(stdin, again, size, &len2) < 0)
        return cli_error(self, "the password was given once; it is asked twice (two lines)");
    if (len2 != *len || CRYPTO_memcmp(pw, again, *len) != 0)
        return cli_error(self, "the two passwords differ; nothing changed");
    return CLI_OK;
}

/* A file root wrote in a state folder brock runs in as another user goes to that user. */
static void give_to_folder_owner(const char *dir, const char *path)
{
    struct stat st;

    if (geteuid() == 0 && stat(dir, &st) == 0 && st.st_uid != 0 &&
        chown(path, st.st_uid, st.st_gid) < 0) {
        /* The running brock then cannot read it: said at its next sign-in. */
        fprintf(stderr, "brock passwd: warning: could not hand %s to the folder's owner: %s\n",
                path, strerror(errno));
    }
}

static int cmd_passwd_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_SIGN_OUT = 256, OPT_REMOVE };
    static const struct option opts[] = {
        {"sign-out-all", no_argument, NULL, OPT_SIGN_OUT},
        {"remove", no_argument, NULL, OPT_REMOVE},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    char path[4200], err[4400], pw[OWNER_PASSWORD_MAX + 2], again[OWNER_PASSWORD_MAX + 2];
    int c, rc, sign_out = 0, remove = 0;
    size_t len = 0;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_SIGN_OUT)
            sign_out = 1;
        else if (c == OPT_REMOVE)
            remove = 1;
        else
            return cli_getopt_other(self, c, argv);
    }
    if (argc != optind)
        return cli_usage(self, "unexpected argument '%s'", argv[optind]);
    if (sign_out && remove)
        return cli_usage(self, "--sign-out-all and --remove do not go together");
    if ((rc = cli_state(cli, self)) != CLI_OK)
        return rc;
    if (snprintf(path, sizeof(path), "%s/%s", cli->state_dir, OWNER_FILE) >= (int)sizeof(path))
        return cli_error(self, "the state folder's path is too long");
    if (remove) {
        if (unlink(path) < 0 && errno != ENOENT)
            return cli_error(self, "could not remove %s: %s", path, strerror(errno));
        printf("no password is set: only this machine manages brock\n");
        return CLI_OK;
    }
    if (sign_out) {
        if (owner_sign_out_all(path, err, sizeof(err)) < 0)
            return cli_error(self, "%s", err);
        give_to_folder_owner(cli->state_dir, path);
        printf("every session of brock's owner is ended\n");
        return CLI_OK;
    }
    rc = ask(self, pw, again, sizeof(pw), &len);
    if (rc == CLI_OK && (rc = file_mkdirs(cli->state_dir, 0700)) < 0)
        rc = cli_error(self, "could not make %s: %s", cli->state_dir, strerror(-rc));
    if (rc == CLI_OK && owner_set_password(path, pw, len, err, sizeof(err)) < 0)
        rc = cli_error(self, "%s", err);
    OPENSSL_cleanse(pw, sizeof(pw));
    OPENSSL_cleanse(again, sizeof(again));
    if (rc != CLI_OK)
        return rc;
    give_to_folder_owner(cli->state_dir, path);
    printf("the password of brock's owner is set; every earlier session is ended\n");
    return CLI_OK;
}

const struct cmd_entry cmd_passwd_entry = {
    .name = "passwd",
    .usage = "[--sign-out-all | --remove]",
    .summary = "Set the password the dashboard asks of clients on the network",
    .help = passwd_help,
    .exec = cmd_passwd_exec,
};
