/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Least privilege: brock started as root gives up root once its listener is bound and its
 * keys are in memory, keeping only what it writes (the state folder) for the new user. */
#ifndef BROCK_PROCESS_PRIVS_H
#define BROCK_PROCESS_PRIVS_H

#include <stddef.h>
#include <sys/types.h>

#define PRIVS_DEFAULT_USER "brock" /* when it exists */
#define PRIVS_FALLBACK_USER "nobody"

struct privs {
    int drop; /* 0: not root, nothing to do */
    char user[64];
    uid_t uid;
    gid_t gid;
};

/* Works out whom to become. Not root and user NULL: p->drop is 0. Root: user, or "brock" if
 * that user exists, else "nobody". Returns 0, or -1 with a sentence in err: user given when
 * not root ("--user needs brock to be started as root"), no such user, or the user is root. */
int privs_plan(const char *user, struct privs *p, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* When p->drop: checks, before anything is changed, that p's user will be able to reach
 * state_dir: every folder above it must let that user through (root's home, mode 0700, does
 * not). Returns 0, or -1 with a sentence in err naming the closed folder and what to do. */
int privs_check_reach(const struct privs *p, const char *state_dir, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* When p->drop: makes state_dir (mode 0700, as the SQLite store does) when it does not exist,
 * whichever the store; hands it and its database files (brock.db and the -wal, -shm and
 * -journal files beside it) to p's user, leaving ca/ alone, then sets the groups, gid and uid,
 * checks that root cannot be regained, and sets no_new_privs. If the groups or ids cannot be
 * set, the files get their owners back. Returns 0, or -1 with a sentence in err (the process
 * must then stop). */
int privs_drop(const struct privs *p, const char *state_dir, char *err, size_t errlen)
    __attribute__((warn_unused_result));

#endif
