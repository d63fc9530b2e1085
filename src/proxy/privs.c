/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Giving up root after startup; see privs.h. The order follows the usual daemon pattern:
 * supplementary groups, then the gid, then the uid (after which the others can no longer be
 * changed), then a check that setuid(0) fails. */
#include "proxy/privs.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

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
        snprintf(err, errlen, "started as root, but neither the user '" PRIVS_DEFAULT_USER
                 "' nor '" PRIVS_FALLBACK_USER "' exists to run as; name one with --user");
        return -1;
    }
    if (p->uid == 0) {
        snprintf(err, errlen, "--user %s: that user is root; name an unprivileged user", p->user);
        return -1;
    }
    p->drop = 1;
    return 0;
}

/* Hands one path to the user; a file that does not exist (no -wal yet) is no error, nor is a
 * read-only file system: nobody writes there, and the engine has said so already. */
static int give(const struct privs *p, const char *path, char *err, size_t errlen)
{
    if (lchown(path, p->uid, p->gid) < 0 && errno != ENOENT && errno != EROFS) {
        snprintf(err, errlen, "could not hand %s to the user %s: %s", path, p->user,
                 strerror(errno));
        return -1;
    }
    return 0;
}

static int give_state(const struct privs *p, const char *state_dir, char *err, size_t errlen)
{
    static const char *const files[] = {"brock.db", "brock.db-wal", "brock.db-shm",
                                        "brock.db-journal"};
    char path[4096];

    if (give(p, state_dir, err, errlen) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        if (snprintf(path, sizeof(path), "%s/%s", state_dir, files[i]) >= (int)sizeof(path)) {
            snprintf(err, errlen, "--state %s: the path is too long", state_dir);
            return -1;
        }
        if (give(p, path, err, errlen) < 0)
            return -1;
    }
    return 0;
}

int privs_drop(const struct privs *p, const char *state_dir, char *err, size_t errlen)
{
    if (!p->drop)
        return 0;
    if (state_dir && give_state(p, state_dir, err, errlen) < 0)
        return -1;
    if (initgroups(p->user, p->gid) < 0 && setgroups(0, NULL) < 0) {
        snprintf(err, errlen, "could not set the groups of %s: %s", p->user, strerror(errno));
        return -1;
    }
    if (setgid(p->gid) < 0) {
        snprintf(err, errlen, "could not become group %u: %s", (unsigned)p->gid,
                 strerror(errno));
        return -1;
    }
    if (setuid(p->uid) < 0) {
        snprintf(err, errlen, "could not become the user %s: %s", p->user, strerror(errno));
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
        snprintf(err, errlen, "--state %s: the user %s cannot write there (a folder above it "
                 "is closed to that user)", state_dir, p->user);
        return -1;
    }
    return 0;
}
