/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CA's certificate in the machine's trust stores (trust.h). The system store and the
 * Firefox policy are files brock writes itself, atomically; NSS databases are changed by
 * certutil, given the certificate on its standard input and run as the database's owner, so
 * that a database made for a user under sudo stays that user's. */
#include "net/trust.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "net/ca.h"
#include "util/alloc.h"
#include "util/file.h"

/* A policy file is refused past this size. */
#define POLICY_MAX ((size_t)1 << 20)

/* The first bytes a failing command wrote on stderr, for the user. */
#define CMD_ERR_MAX 200

/* Every name the CA can have in an NSS database begins so: brock's own ("brock local CA FP")
 * and the one Firefox gives a certificate it imports, through its policy or by hand, made of
 * the CA's CN and O ("brock local CA on HOST - brock", with "#2" after it for a second of the
 * same name). Only those are fetched and compared with the CA, not every certificate a
 * profile keeps. */
#define NICK_PREFIX "brock local CA"
#define NICK_MAX 256

const char *trust_state_name(enum trust_state s)
{
    switch (s) {
    case TRUST_DONE: return "done";
    case TRUST_ALREADY: return "already";
    case TRUST_YES: return "yes";
    case TRUST_NO: return "no";
    case TRUST_FAILED: return "failed";
    case TRUST_SKIPPED: return "skipped";
    }
    return "?";
}

/* ---- setting up ---- */

static int fingerprint(struct trust *t)
{
    BIO *b = BIO_new_mem_buf(t->pem, (int)t->pem_len);
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    int rc = -1;

    if (x && X509_digest(x, EVP_sha256(), md, &n) == 1 && n >= 8) {
        for (size_t i = 0; i < 8; i++)
            snprintf(t->fp + 2 * i, 3, "%02x", md[i]);
        rc = 0;
    }
    X509_free(x);
    BIO_free(b);
    return rc;
}

static void copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

/* The user whose stores are changed: the one who ran sudo, else the process's own. */
static int find_user(struct trust_user *u)
{
    const char *sudo = getenv("SUDO_USER"), *home = getenv("HOME");
    struct passwd *pw = NULL;

    if (geteuid() == 0 && sudo && *sudo && strcmp(sudo, "root") != 0) {
        pw = getpwnam(sudo);
        if (!pw)
            return -1;
        home = pw->pw_dir;
    } else {
        pw = getpwuid(geteuid());
        if (!home || home[0] != '/')
            home = pw ? pw->pw_dir : NULL;
    }
    if (!home || home[0] != '/' || strlen(home) >= sizeof(u->home))
        return -1;
    copy(u->name, sizeof(u->name), pw ? pw->pw_name : "");
    copy(u->home, sizeof(u->home), home);
    u->uid = pw ? pw->pw_uid : geteuid();
    u->gid = pw ? pw->pw_gid : getegid();
    return 0;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);

    return v ? v : dflt;
}

int trust_init(struct trust *t, const char *cert_file, char *err, size_t errlen)
{
    const char *dir = env_or("BROCK_TRUST_SYSTEM_DIR", TRUST_SYSTEM_DIR);
    long n;

    memset(t, 0, sizeof(*t));
    if (strlen(cert_file) >= sizeof(t->cert_file)) {
        snprintf(err, errlen, "%s: the path is too long", cert_file);
        return -1;
    }
    copy(t->cert_file, sizeof(t->cert_file), cert_file);
    n = ca_cert_pem(cert_file, t->pem, sizeof(t->pem), err, errlen);
    if (n == -2)
        snprintf(err, errlen, "%s: there is no CA certificate", cert_file);
    if (n < 0)
        return -1;
    t->pem_len = (size_t)n;
    if (fingerprint(t) < 0) {
        snprintf(err, errlen, "%s: the certificate cannot be read", cert_file);
        return -1;
    }
    snprintf(t->nick, sizeof(t->nick), "brock local CA %s", t->fp);
    if (strlen(dir) + 32 >= sizeof(t->system_dir)) {
        snprintf(err, errlen, "%s: the path is too long", dir);
        return -1;
    }
    copy(t->system_dir, sizeof(t->system_dir), dir);
    snprintf(t->system_file, sizeof(t->system_file), "%s/brock-%s.crt", dir, t->fp);
    copy(t->update_cmd, sizeof(t->update_cmd), env_or("BROCK_TRUST_UPDATE", TRUST_UPDATE_CMD));
    copy(t->policy_file, sizeof(t->policy_file),
         env_or("BROCK_TRUST_FIREFOX_POLICIES", TRUST_FIREFOX_POLICIES));
    t->have_user = find_user(&t->user) == 0;
    return 0;
}

/* ---- running certutil and update-ca-certificates ---- */

/* What a command wrote on its standard output, kept when run() is given one: text (allocated,
 * NUL-terminated, at most OUTPUT_MAX bytes; the rest is read and dropped) and its length. */
struct output {
    char *text;
    size_t len, cap;
};

/* Keeps what a listing of every certificate in a database says, and more. */
#define OUTPUT_MAX ((size_t)4 << 20)

static void output_add(struct output *o, const char *bytes, size_t n)
{
    if (o->len + n > OUTPUT_MAX)
        n = OUTPUT_MAX - o->len;
    if (!n || mem_grow(&o->text, &o->cap, o->len + n + 1, 1) < 0)
        return;
    memcpy(o->text + o->len, bytes, n);
    o->len += n;
    o->text[o->len] = '\0';
}

/* Reads the child's standard output (ofd, into out; -1: not kept) and standard error (efd, its
 * first bytes into err) until both close. Both are served as they come, so that neither pipe
 * fills while the other is waited on. */
static void drain(int ofd, struct output *out, int efd, char *err, size_t errlen)
{
    struct pollfd p[2] = {{.fd = ofd, .events = POLLIN}, {.fd = efd, .events = POLLIN}};
    size_t got = 0;
    char buf[4096];

    while (p[0].fd >= 0 || p[1].fd >= 0) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            ssize_t r;

            if (p[i].fd < 0 || !p[i].revents)
                continue;
            r = read(p[i].fd, buf, sizeof(buf));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                p[i].fd = -1;
            } else if (i == 1 && got + 1 < errlen) {
                size_t n = (size_t)r < errlen - got - 1 ? (size_t)r : errlen - got - 1;

                memcpy(err + got, buf, n);
                got += n;
            } else if (i == 0 && out) {
                output_add(out, buf, (size_t)r);
            }
        }
    }
    err[got] = '\0';
}

static void close_pipes(int p[][2], int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++) {
            if (p[i][j] >= 0)
                close(p[i][j]);
            p[i][j] = -1;
        }
    }
}

/* Runs argv (as user when given and brock is root), with input (NULL: none) on its standard
 * input and its standard output kept in out (NULL: discarded). Returns its exit status, 127
 * when it could not be started (err says so), or -1; the start of what it wrote on stderr
 * goes to err. */
static int run(char *const argv[], const struct trust_user *as, const char *input, size_t input_len,
               struct output *out, char *err, size_t errlen)
{
    /* The child's standard input, output and error. */
    int p[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}}, status = 0;
    pid_t pid = -1;

    err[0] = '\0';
    if (pipe2(p[0], O_CLOEXEC) < 0 || (out && pipe2(p[1], O_CLOEXEC) < 0) ||
        pipe2(p[2], O_CLOEXEC) < 0 || (pid = fork()) < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        close_pipes(p, 3);
        return -1;
    }
    if (pid == 0) {
        int stdout_fd = out ? p[1][1] : open("/dev/null", O_WRONLY);

        if (dup2(p[0][0], 0) < 0 || dup2(stdout_fd, 1) < 0 || dup2(p[2][1], 2) < 0)
            _exit(126);
        if (as && geteuid() == 0 && as->uid != 0 &&
            (setgroups(0, NULL) < 0 || setgid(as->gid) < 0 || setuid(as->uid) < 0))
            _exit(126);
        execvp(argv[0], argv);
        dprintf(2, "%s cannot be run: %s", argv[0], strerror(errno));
        _exit(127);
    }
    /* The child's ends: the read end of its input, the write ends of its output and error. */
    for (int i = 0; i < 3; i++) {
        int end = i == 0 ? 0 : 1;

        if (p[i][end] >= 0)
            close(p[i][end]);
        p[i][end] = -1;
    }
    /* The input is a certificate, far below a pipe's buffer: written whole before reading.
     * A command that ends without reading it must not end brock with SIGPIPE. */
    if (input) {
        struct sigaction ign = {.sa_handler = SIG_IGN}, old;

        sigaction(SIGPIPE, &ign, &old);
        if (write(p[0][1], input, input_len) != (ssize_t)input_len)
            snprintf(err, errlen, "%s", strerror(errno));
        sigaction(SIGPIPE, &old, NULL);
    }
    close(p[0][1]);
    p[0][1] = -1;
    drain(p[1][0], out, p[2][0], err, errlen);
    close_pipes(p, 3);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    for (char *c = err; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* "certutil OP -d sql:DIR [-n NICK] ...": its status, as run(). OP is -N (a new empty
 * database), -A (add the CA under brock's name for it, trusted to issue server certificates),
 * -D (delete nick), or -L: with nick, that certificate in PEM on out; without, every nickname
 * in the database.
 * execvp() takes char *const[]: the words are copied into arrays of this call's own. */
static int certutil(const struct trust *t, const char *dir, const char *op, const char *nick,
                    struct output *out, char *err, size_t errlen)
{
    char db[PATH_MAX + 8], name[NICK_MAX], opw[4];
    char w_cu[] = "certutil", w_d[] = "-d", w_empty[] = "--empty-password", w_n[] = "-n",
         w_t[] = "-t", w_trust[] = "C,,", w_a[] = "-a";
    char *argv[12];
    int n = 0;
    const char *input = NULL;

    snprintf(db, sizeof(db), "sql:%s", dir);
    snprintf(name, sizeof(name), "%s", op[1] == 'A' ? t->nick : nick ? nick : "");
    snprintf(opw, sizeof(opw), "%s", op);
    argv[n++] = w_cu;
    argv[n++] = opw;
    argv[n++] = w_d;
    argv[n++] = db;
    if (op[1] == 'N')
        argv[n++] = w_empty;
    if (nick || op[1] == 'A') {
        argv[n++] = w_n;
        argv[n++] = name;
    }
    if (op[1] == 'A') {
        argv[n++] = w_t;
        argv[n++] = w_trust;
        input = t->pem;
    }
    if (op[1] == 'A' || (op[1] == 'L' && nick))
        argv[n++] = w_a;
    argv[n] = NULL;
    return run(argv, t->have_user ? &t->user : NULL, input, input ? t->pem_len : 0, out, err,
               errlen);
}

static int is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- the system store ---- */

static int system_has(const struct trust *t)
{
    char *text = NULL;
    size_t len = 0;
    int same;

    if (file_read(t->system_file, sizeof(t->pem), &text, &len) < 0)
        return 0;
    same = len == t->pem_len && memcmp(text, t->pem, len) == 0;
    mem_free(text);
    return same;
}

int trust_in_system(const struct trust *t)
{
    return system_has(t);
}

/* The command that tells the system its folder changed; 0 when it ran well or there is
 * none. */
static int system_update(const struct trust *t, char *err, size_t errlen)
{
    char sh[] = "/bin/sh", c[] = "-c", cmd[sizeof(t->update_cmd)];
    char *argv[] = {sh, c, cmd, NULL};
    int rc;

    snprintf(cmd, sizeof(cmd), "%s", t->update_cmd);
    if (!t->update_cmd[0])
        return 0;
    rc = run(argv, NULL, NULL, 0, NULL, err, errlen);
    if (rc != 0 && !err[0])
        snprintf(err, errlen, "it exited with %d", rc);
    return rc == 0 ? 0 : -1;
}

static const char *needs_root(int e)
{
    return e == EACCES || e == EPERM || e == EROFS ? " (it needs root: run it with sudo)" : "";
}

static int system_install(const struct trust *t, trust_say_fn say, void *arg)
{
    char err[CMD_ERR_MAX + 64], why[CMD_ERR_MAX + 256];
    int e;

    if (system_has(t)) {
        say(arg, "system store", t->system_file, TRUST_ALREADY, NULL);
        return 0;
    }
    if ((e = file_mkdirs(t->system_dir, 0755)) < 0 ||
        (e = file_write_atomic(t->system_file, t->pem, t->pem_len, 0644)) < 0) {
        snprintf(why, sizeof(why), "cannot write it: %s%s", strerror(-e), needs_root(-e));
        say(arg, "system store", t->system_file, TRUST_FAILED, why);
        return 1;
    }
    if (system_update(t, err, sizeof(err)) < 0) {
        snprintf(why, sizeof(why), "written, but %.100s failed: %s", t->update_cmd, err);
        say(arg, "system store", t->system_file, TRUST_FAILED, why);
        return 1;
    }
    say(arg, "system store", t->system_file, TRUST_DONE, NULL);
    return 0;
}

static int system_uninstall(const struct trust *t, trust_say_fn say, void *arg)
{
    char err[CMD_ERR_MAX + 64], why[CMD_ERR_MAX + 256];

    if (access(t->system_file, F_OK) != 0) {
        say(arg, "system store", t->system_file, TRUST_ALREADY, NULL);
        return 0;
    }
    if (unlink(t->system_file) < 0) {
        int e = errno;

        snprintf(why, sizeof(why), "cannot remove it: %s%s", strerror(e), needs_root(e));
        say(arg, "system store", t->system_file, TRUST_FAILED, why);
        return 1;
    }
    if (system_update(t, err, sizeof(err)) < 0) {
        snprintf(why, sizeof(why), "removed, but %.100s failed: %s", t->update_cmd, err);
        say(arg, "system store", t->system_file, TRUST_FAILED, why);
        return 1;
    }
    say(arg, "system store", t->system_file, TRUST_DONE, NULL);
    return 0;
}

/* ---- NSS databases: Chromium's and each Firefox profile's ---- */

/* Whether PEM text, one certificate or more, holds the CA's own. */
static int pem_holds(const struct trust *t, const char *text, size_t len)
{
    BIO *mine = BIO_new_mem_buf(t->pem, (int)t->pem_len), *b = BIO_new_mem_buf(text, (int)len);
    X509 *ca = mine ? PEM_read_bio_X509(mine, NULL, NULL, NULL) : NULL, *x;
    int same = 0;

    while (ca && b && !same && (x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
        same = X509_cmp(ca, x) == 0;
        X509_free(x);
    }
    /* The read that finds no more certificates leaves an error behind, which is no news. */
    ERR_clear_error();
    X509_free(ca);
    BIO_free(mine);
    BIO_free(b);
    return same;
}

/* The next nickname beginning with NICK_PREFIX in a `certutil -L` listing at *at, copied into
 * nick; 0 when there is none left. A line is "NICKNAME   TRUST", the trust attributes its last
 * word, with two commas ("C,,", "CT,C,C"); the header's lines have no nickname before it. */
static int next_nick(const char **at, char *nick, size_t size)
{
    const size_t plen = sizeof(NICK_PREFIX) - 1;

    while (**at) {
        const char *line = *at, *eol = strchr(line, '\n'), *end, *word;
        size_t n;

        eol = eol ? eol : line + strlen(line);
        *at = *eol ? eol + 1 : eol;
        end = eol;
        while (end > line && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '\t'))
            end--;
        word = end;
        while (word > line && word[-1] != ' ')
            word--;
        if (!memchr(word, ',', (size_t)(end - word)))
            continue;
        while (word > line && word[-1] == ' ')
            word--;
        n = (size_t)(word - line);
        if (n < plen || n >= size || strncmp(line, NICK_PREFIX, plen) != 0)
            continue;
        memcpy(nick, line, n);
        nick[n] = '\0';
        return 1;
    }
    return 0;
}

/* The first nickname under which the database in dir holds the CA itself, into nick (size
 * NICK_MAX): 1, 0 when it holds it under none, or -1 when certutil cannot be run (err says
 * why). Each candidate's certificate is compared with the CA's, so that another certificate
 * of a like name is never taken for it. */
static int nss_find(const struct trust *t, const char *dir, char *nick, char *err, size_t errlen)
{
    struct output list = {0};
    const char *at;
    int found = 0, rc = certutil(t, dir, "-L", NULL, &list, err, errlen);

    if (rc == 127 || rc < 0) {
        mem_free(list.text);
        return -1;
    }
    at = list.text ? list.text : "";
    while (!found && next_nick(&at, nick, NICK_MAX)) {
        struct output pem = {0};

        if (certutil(t, dir, "-L", nick, &pem, err, errlen) == 0 && pem.text)
            found = pem_holds(t, pem.text, pem.len);
        mem_free(pem.text);
    }
    mem_free(list.text);
    return found;
}

/* Whether the database in dir holds the certificate: 1, 0, or -1 when certutil cannot be
 * run (err says why). */
static int nss_has(const struct trust *t, const char *dir, char *err, size_t errlen)
{
    char nick[NICK_MAX];

    return nss_find(t, dir, nick, err, errlen);
}

static const char *certutil_missing(int rc, const char *err)
{
    return rc == 127 && strstr(err, "cannot be run")
               ? "certutil is not installed (Debian's package libnss3-tools)"
               : err;
}

/* Makes dir (and a new empty database in it) for the user when it is missing. */
static int nss_create(const struct trust *t, const char *dir, char *err, size_t errlen)
{
    char parent[PATH_MAX + 8];
    int rc;

    if (is_dir(dir))
        return 0;
    snprintf(parent, sizeof(parent), "%s/.pki", t->user.home);
    if (file_mkdirs(parent, 0700) < 0) {
        snprintf(err, errlen, "cannot create %.200s: %s", parent, strerror(errno));
        return -1;
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %.200s: %s", dir, strerror(errno));
        return -1;
    }
    /* Made by root for the user who ran sudo: theirs, as their browser expects. */
    if (geteuid() == 0 && t->user.uid != 0 &&
        (chown(parent, t->user.uid, t->user.gid) < 0 || chown(dir, t->user.uid, t->user.gid) < 0)) {
        snprintf(err, errlen, "cannot give %.150s to %s: %s", dir, t->user.name, strerror(errno));
        return -1;
    }
    rc = certutil(t, dir, "-N", NULL, NULL, err, errlen);
    if (rc != 0) {
        const char *why = certutil_missing(rc, err);

        if (why != err)
            snprintf(err, errlen, "%s", why);
        return -1;
    }
    return 0;
}

static int nss_install(const struct trust *t, const char *place, const char *dir, int create,
                       trust_say_fn say, void *arg)
{
    char err[CMD_ERR_MAX + 64], why[CMD_ERR_MAX + 256];
    int has, rc;

    if (create && nss_create(t, dir, err, sizeof(err)) < 0) {
        say(arg, place, dir, TRUST_FAILED, err);
        return 1;
    }
    has = nss_has(t, dir, err, sizeof(err));
    if (has < 0) {
        say(arg, place, dir, TRUST_FAILED, certutil_missing(127, err));
        return 1;
    }
    if (has) {
        say(arg, place, dir, TRUST_ALREADY, NULL);
        return 0;
    }
    rc = certutil(t, dir, "-A", NULL, NULL, err, sizeof(err));
    if (rc != 0) {
        snprintf(why, sizeof(why), "certutil failed: %s", certutil_missing(rc, err));
        say(arg, place, dir, TRUST_FAILED, why);
        return 1;
    }
    say(arg, place, dir, TRUST_DONE, NULL);
    return 0;
}

static int nss_uninstall(const struct trust *t, const char *place, const char *dir,
                         trust_say_fn say, void *arg)
{
    char err[CMD_ERR_MAX + 64], why[CMD_ERR_MAX + 256], nick[NICK_MAX];
    int has, removed = 0;

    if (!is_dir(dir)) {
        say(arg, place, dir, TRUST_ALREADY, NULL);
        return 0;
    }
    /* The CA can be there under more than one name (brock's, and the one Firefox gave it
     * when its policy imported it): each goes. */
    for (int i = 0; i < 8 && (has = nss_find(t, dir, nick, err, sizeof(err))) == 1; i++) {
        int rc = certutil(t, dir, "-D", nick, NULL, err, sizeof(err));

        if (rc != 0) {
            snprintf(why, sizeof(why), "certutil failed: %s", certutil_missing(rc, err));
            say(arg, place, dir, TRUST_FAILED, why);
            return 1;
        }
        removed = 1;
    }
    if (has < 0) {
        say(arg, place, dir, TRUST_FAILED, certutil_missing(127, err));
        return 1;
    }
    say(arg, place, dir, removed ? TRUST_DONE : TRUST_ALREADY, NULL);
    return 0;
}

static int nss_status(const struct trust *t, const char *place, const char *dir, trust_say_fn say,
                      void *arg)
{
    char err[CMD_ERR_MAX + 64];
    int has;

    if (!is_dir(dir)) {
        say(arg, place, dir, TRUST_NO, "no database");
        return 0;
    }
    has = nss_has(t, dir, err, sizeof(err));
    if (has < 0)
        say(arg, place, dir, TRUST_FAILED, certutil_missing(127, err));
    else
        say(arg, place, dir, has ? TRUST_YES : TRUST_NO, NULL);
    return has == 1;
}

enum op { OP_INSTALL, OP_UNINSTALL, OP_STATUS };

static int nss_op(const struct trust *t, enum op op, const char *place, const char *dir, int create,
                  trust_say_fn say, void *arg)
{
    switch (op) {
    case OP_INSTALL: return nss_install(t, place, dir, create, say, arg);
    case OP_UNINSTALL: return nss_uninstall(t, place, dir, say, arg);
    case OP_STATUS: return nss_status(t, place, dir, say, arg);
    }
    return 0;
}

/* Chromium's database, then every Firefox profile (a folder with a cert9.db under
 * ~/.mozilla/firefox). Returns failures, or for status the places that trust it. */
static int user_stores(const struct trust *t, enum op op, trust_say_fn say, void *arg)
{
    char dir[PATH_MAX + 320], ff[PATH_MAX + 32], db[PATH_MAX + 340];
    struct dirent *de;
    int n = 0, profiles = 0;
    DIR *d;

    if (!t->have_user) {
        say(arg, "your browsers", "", op == OP_STATUS ? TRUST_NO : TRUST_FAILED,
            "no home folder to find them in (HOME is unset)");
        return op == OP_STATUS ? 0 : 1;
    }
    snprintf(dir, sizeof(dir), "%s/.pki/nssdb", t->user.home);
    n += nss_op(t, op, "Chromium (NSS)", dir, 1, say, arg);
    snprintf(ff, sizeof(ff), "%s/.mozilla/firefox", t->user.home);
    d = opendir(ff);
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof(dir), "%s/%s", ff, de->d_name);
        snprintf(db, sizeof(db), "%s/cert9.db", dir);
        if (access(db, F_OK) != 0)
            continue;
        profiles++;
        n += nss_op(t, op, "Firefox profile", dir, 0, say, arg);
    }
    if (d)
        closedir(d);
    if (!profiles)
        say(arg, "Firefox profiles", ff, TRUST_SKIPPED, "none yet (the policy covers new ones)");
    return n;
}

/* ---- Firefox's enterprise policy ---- */

/* The policy file's JSON, or a new empty one when it does not exist; NULL with why. */
static json_t *policy_read(const struct trust *t, char *why, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    json_error_t jerr;
    json_t *root;
    int e = file_read(t->policy_file, POLICY_MAX, &text, &len);

    if (e == -ENOENT)
        return json_pack("{s:{}}", "policies");
    if (e < 0) {
        snprintf(why, n, "cannot read it: %s", strerror(-e));
        return NULL;
    }
    root = json_loadb(text, len, 0, &jerr);
    mem_free(text);
    if (!root || !json_is_object(root) ||
        (json_object_get(root, "policies") && !json_is_object(json_object_get(root, "policies")))) {
        snprintf(why, n, "it is not a policy file (line %d: %s); left as it is",
                 root ? 0 : jerr.line, root ? "no \"policies\" object" : jerr.text);
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The Certificates.Install array of root, made when make; NULL when absent (or not an
 * array). */
static json_t *policy_install_list(json_t *root, int make)
{
    json_t *pol = json_object_get(root, "policies"), *certs, *list;

    if (!pol && make && json_object_set_new(root, "policies", pol = json_object()) < 0)
        return NULL;
    certs = pol ? json_object_get(pol, "Certificates") : NULL;
    if (!certs && make && json_object_set_new(pol, "Certificates", certs = json_object()) < 0)
        return NULL;
    if (!json_is_object(certs))
        return NULL;
    list = json_object_get(certs, "Install");
    if (!list && make && json_object_set_new(certs, "Install", list = json_array()) < 0)
        return NULL;
    return json_is_array(list) ? list : NULL;
}

static ssize_t policy_index(json_t *list, const char *path)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), path) == 0)
            return (ssize_t)i;
    }
    return -1;
}

static int policy_write(const struct trust *t, json_t *root, char *why, size_t n)
{
    char dir[PATH_MAX], *slash, *text = json_dumps(root, JSON_INDENT(2));
    int e;

    if (!text) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    copy(dir, sizeof(dir), t->policy_file);
    slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    e = slash && slash != dir ? file_mkdirs(dir, 0755) : 0;
    if (e == 0)
        e = file_write_atomic(t->policy_file, text, strlen(text), 0644);
    free(text);
    if (e < 0) {
        snprintf(why, n, "cannot write it: %s%s", strerror(-e), needs_root(-e));
        return -1;
    }
    return 0;
}

/* Only the policy's own keys left, and none of them: the file was brock's alone. */
static int policy_empty(json_t *root)
{
    json_t *pol = json_object_get(root, "policies");

    return json_object_size(root) == 1 && json_is_object(pol) && json_object_size(pol) == 0;
}

static int policy_op(const struct trust *t, enum op op, trust_say_fn say, void *arg)
{
    const char *place = "Firefox policy (new profiles)";
    char why[PATH_MAX + 128];
    json_t *root = policy_read(t, why, sizeof(why)), *list;
    ssize_t at;
    int rc = 0;

    if (!root) {
        say(arg, place, t->policy_file, TRUST_FAILED, why);
        return op == OP_STATUS ? 0 : 1;
    }
    list = policy_install_list(root, op == OP_INSTALL);
    at = list ? policy_index(list, t->system_file) : -1;
    if (op == OP_STATUS) {
        say(arg, place, t->policy_file, at >= 0 ? TRUST_YES : TRUST_NO, NULL);
        rc = at >= 0;
    } else if ((op == OP_INSTALL) == (at >= 0)) {
        /* Installing what is there, or removing what is not. */
        say(arg, place, t->policy_file, TRUST_ALREADY, NULL);
    } else if (op == OP_INSTALL && !system_has(t)) {
        /* Firefox reads the file the policy names: the system store's copy, which every
         * user can read. */
        say(arg, place, t->policy_file, TRUST_FAILED,
            "it names the system store's copy, "
            "which could not be written");
        rc = 1;
    } else {
        if (op == OP_INSTALL) {
            rc = !list || json_array_append_new(list, json_string(t->system_file)) < 0;
        } else {
            json_t *certs = json_object_get(json_object_get(root, "policies"), "Certificates");

            json_array_remove(list, (size_t)at);
            if (!json_array_size(list))
                json_object_del(certs, "Install");
            if (!json_object_size(certs))
                json_object_del(json_object_get(root, "policies"), "Certificates");
        }
        if (!rc && op == OP_UNINSTALL && policy_empty(root)) {
            rc = unlink(t->policy_file) < 0;
            if (rc)
                snprintf(why, sizeof(why), "cannot remove it: %s%s", strerror(errno),
                         needs_root(errno));
        } else if (!rc) {
            rc = policy_write(t, root, why, sizeof(why)) < 0;
        } else {
            snprintf(why, sizeof(why), "out of memory");
        }
        say(arg, place, t->policy_file, rc ? TRUST_FAILED : TRUST_DONE, rc ? why : NULL);
    }
    json_decref(root);
    return rc;
}

/* ---- the three operations ---- */

int trust_install(const struct trust *t, trust_say_fn say, void *arg)
{
    int failed = system_install(t, say, arg);

    failed += user_stores(t, OP_INSTALL, say, arg);
    return failed + policy_op(t, OP_INSTALL, say, arg);
}

int trust_uninstall(const struct trust *t, trust_say_fn say, void *arg)
{
    /* The policy first: it names the system store's copy. */
    int failed = policy_op(t, OP_UNINSTALL, say, arg);

    failed += user_stores(t, OP_UNINSTALL, say, arg);
    return failed + system_uninstall(t, say, arg);
}

int trust_status(const struct trust *t, trust_say_fn say, void *arg)
{
    int yes = system_has(t);

    say(arg, "system store", t->system_file, yes ? TRUST_YES : TRUST_NO, NULL);
    yes += user_stores(t, OP_STATUS, say, arg);
    return yes + policy_op(t, OP_STATUS, say, arg);
}
