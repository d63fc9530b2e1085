/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Giving up root after startup; see privs.h. The order follows the usual daemon pattern:
 * supplementary groups, then the gid, then the uid (after which the others can no longer be
 * changed), then a check that setuid(0) fails. */
#include "process/privs.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "brock.h"
#include "util/file.h"

static int lookup(const char *name, struct privs *p)
{
    struct passwd *pw;

    errno = 0;
    pw = getpwnam(name);
    if (!pw)
        return -1;
    snprintf(p->user, sizeof(p->user), "%s", name);
    p->uid = pw->pw_uid;
    p->gid = pw->pw_gid;
    return 0;
}

int privs_plan(const char *user, struct privs *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof(*p));
    if (geteuid() != 0) {
        /* Like a bad option: asking for a user brock cannot become is refused, rather than
         * leaving the operator to believe the proxy runs as that user. */
        if (user) {
            snprintf(err, errlen, "--user %s: --user needs brock to be started as root", user);
            return -1;
        }
        return 0;
    }
    if (user) {
        if (lookup(user, p) < 0) {
            snprintf(err, errlen, "--user %s: no such user", user);
            return -1;
        }
    } else if (lookup(PRIVS_DEFAULT_USER, p) < 0 && lookup(PRIVS_FALLBACK_USER, p) < 0) {
        snprintf(err, errlen,
                 "started as root, but neither the user '" PRIVS_DEFAULT_USER
                 "' nor '" PRIVS_FALLBACK_USER "' exists to run as; name one with --user");
        return -1;
    }
    if (p->uid == 0) {
        snprintf(err, errlen,
                 "--user %s: brock never serves as root; leave --user out to run "
                 "as '" PRIVS_DEFAULT_USER "' (if it exists) or '" PRIVS_FALLBACK_USER "', or name "
                 "another unprivileged user",
                 p->user);
        return -1;
    }
    p->drop = 1;
    return 0;
}

/* The state's paths that are handed to the user, and their owners before: the folder, the
 * database, and the dashboard owner's file (dash/owner.h), which brock reads whenever brock
 * passwd changed it. */
static const char *const state_files[] = {
    "", "/brock.db", "/brock.db-wal", "/brock.db-shm", "/brock.db-journal", "/owner"};
#define N_STATE_FILES (sizeof(state_files) / sizeof(state_files[0]))

struct owners {
    int had[N_STATE_FILES];
    uid_t uid[N_STATE_FILES];
    gid_t gid[N_STATE_FILES];
};

static int state_path(const char *state_dir, size_t i, char *path, size_t size)
{
    return snprintf(path, size, "%s%s", state_dir, state_files[i]) < (int)size ? 0 : -1;
}

/* Hands the state folder and its database files to the user, noting who owned them. A file
 * that does not exist (no -wal yet) is no error, nor is a read-only file system: nobody writes
 * there, and the engine has said so already. */
static int give_state(const struct privs *p, const char *state_dir, struct owners *was, char *err,
                      size_t errlen)
{
    char path[4096];
    struct stat st;

    memset(was, 0, sizeof(*was));
    for (size_t i = 0; i < N_STATE_FILES; i++) {
        if (state_path(state_dir, i, path, sizeof(path)) < 0) {
            snprintf(err, errlen, "--state %s: the path is too long", state_dir);
            return -1;
        }
        if (lstat(path, &st) < 0)
            continue;
        was->had[i] = 1;
        was->uid[i] = st.st_uid;
        was->gid[i] = st.st_gid;
        if (lchown(path, p->uid, p->gid) < 0 && errno != ENOENT && errno != EROFS) {
            snprintf(err, errlen, "could not hand %s to the user %s: %s", path, p->user,
                     strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Gives the state's files their owners back, after a drop that failed while still root. */
static void restore_state(const char *state_dir, const struct owners *was)
{
    char path[4096];

    for (size_t i = 0; i < N_STATE_FILES; i++) {
        if (was->had[i] && state_path(state_dir, i, path, sizeof(path)) == 0 &&
            lchown(path, was->uid[i], was->gid[i]) < 0) {
            /* Nothing more to do: the error that led here is the one reported. */
        }
    }
}

/* Becomes p's user for good: groups, gid, uid. Returns 0, or -1 with a sentence in err. */
static int become(const struct privs *p, char *err, size_t errlen)
{
    if (initgroups(p->user, p->gid) < 0 && setgroups(0, NULL) < 0) {
        snprintf(err, errlen, "could not set the groups of %s: %s", p->user, strerror(errno));
        return -1;
    }
    if (setgid(p->gid) < 0) {
        snprintf(err, errlen, "could not become group %u: %s", (unsigned)p->gid, strerror(errno));
        return -1;
    }
    if (setuid(p->uid) < 0) {
        snprintf(err, errlen, "could not become the user %s: %s", p->user, strerror(errno));
        return -1;
    }
    return 0;
}

/* The first folder on the way to dir (absolute, or relative to the working folder) that the
 * calling process cannot pass, into closed; "" when all let it through. */
static void first_closed(const char *dir, char *closed, size_t size)
{
    char path[4096];
    size_t n = strlen(dir);

    closed[0] = '\0';
    if (n >= sizeof(path))
        return;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        path[i] = '\0';
        if (access(path, X_OK) < 0 && errno != ENOENT) {
            snprintf(closed, size, "%s", path);
            return;
        }
        path[i] = dir[i];
    }
}

/* Asks, as p's user itself in a child, so that every rule of the file system applies (modes,
 * groups, ACLs), which folder of parent is closed to it: into closed (size bytes, "" when none
 * was named), and the child's exit status as waitpid() gives it into *status. Returns 0, or -1
 * with err set when it could not ask. */
static int reach_ask(const struct privs *p, const char *parent, char *closed, size_t size,
                     int *status, char *err, size_t errlen)
{
    int fds[2];
    ssize_t got;
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "could not check the state folder: %s", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "could not check the state folder: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        char why[256];

        close(fds[0]);
        if (become(p, why, sizeof(why)) < 0)
            _exit(2);
        first_closed(parent, closed, size);
        if (closed[0] && write(fds[1], closed, strlen(closed)) < 0)
            _exit(2);
        _exit(closed[0] ? 1 : 0);
    }
    close(fds[1]);
    got = read(fds[0], closed, size - 1);
    closed[got > 0 ? got : 0] = '\0';
    close(fds[0]);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return 0;
}

int privs_check_reach(const struct privs *p, const char *state_dir, char *err, size_t errlen)
{
    char closed[4096] = "", parent[4096];
    char *slash;
    int status = 0;

    if (!p->drop)
        return 0;
    /* The state folder itself is handed to the user; the folders above it must let it by. */
    snprintf(parent, sizeof(parent), "%s", state_dir);
    slash = strrchr(parent, '/');
    if (!slash)
        return 0;
    if (slash == parent)
        slash[1] = '\0';
    else
        *slash = '\0';
    if (reach_ask(p, parent, closed, sizeof(closed), &status, err, errlen) < 0)
        return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (closed[0]) {
        struct stat st;
        char mode[32] = "";

        if (stat(closed, &st) == 0)
            snprintf(mode, sizeof(mode), " (mode %04o)", (unsigned)(st.st_mode & 07777));
        snprintf(err, errlen,
                 "--state %s: brock runs as the user %s once started, and %s%s "
                 "is closed to that user; give --state a folder it can reach (started as root "
                 "without --state, brock keeps its state in " BROCK_SYSTEM_STATE_DIR ")",
                 state_dir, p->user, closed, mode);
    } else
        snprintf(err, errlen, "--state %s: could not check whether the user %s can reach it",
                 state_dir, p->user);
    return -1;
}

int privs_drop(const struct privs *p, const char *state_dir, char *err, size_t errlen)
{
    struct owners was;
    int rc;

    if (!p->drop)
        return 0;
    /* The SQLite store has made its folder by now; the PostgreSQL store keeps nothing there
     * and makes none, yet the folder is the user's all the same (the CA goes there, and the
     * check below wants it): one rule for both, the folder made as the SQLite store makes it
     * (mode 0700, with those above it that are missing). privs_check_reach() has found the
     * folders above it open to the user. */
    if (state_dir && (rc = file_mkdirs(state_dir, 0700)) < 0) {
        snprintf(err, errlen, "--state %s: could not make the folder: %s", state_dir,
                 strerror(-rc));
        return -1;
    }
    if (state_dir && give_state(p, state_dir, &was, err, errlen) < 0) {
        restore_state(state_dir, &was);
        return -1;
    }
    if (become(p, err, errlen) < 0) {
        if (state_dir && geteuid() == 0)
            restore_state(state_dir, &was);
        return -1;
    }
    if (setuid(0) == 0 || geteuid() == 0 || getegid() != p->gid) {
        snprintf(err, errlen, "after becoming %s, brock could still regain root", p->user);
        return -1;
    }
#ifdef PR_SET_NO_NEW_PRIVS
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
        snprintf(err, errlen, "could not set no_new_privs: %s", strerror(errno));
        return -1;
    }
#endif
    if (state_dir && access(state_dir, W_OK | X_OK) < 0 && errno != EROFS) {
        snprintf(err, errlen,
                 "--state %s: the user %s cannot write there (a folder above it "
                 "is closed to that user)",
                 state_dir, p->user);
        return -1;
    }
    return 0;
}
