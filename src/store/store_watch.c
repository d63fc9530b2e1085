/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Noticing, at each brock_sync(), that the database file was deleted or replaced under the
 * open connection, which SQLite does not: it would go on writing to a file no one can see, or
 * lay its -wal over someone else's pages. Deleted, the state is written whole to a new file;
 * replaced (a backup put back), the file is opened again and merged with memory
 * (store_merge.c).
 */
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

enum { WATCH_SAME, WATCH_GONE, WATCH_REPLACED, WATCH_WAIT };

static int same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static int same_contents(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && same_time(&a->st_mtim, &b->st_mtim) &&
           same_time(&a->st_ctim, &b->st_ctim);
}

/* What became of brock.db since this process last wrote it. Only a checkpoint writes to the
 * file itself, and this process checkpoints after each write, so a file that changed since was
 * written by another process or copied over. The file's own generation tells which: a
 * checkpoint only moves it on, a copy from before (or of another state) does not. A read in
 * the middle of another process's checkpoint can see pages of two generations, so a file
 * that seems replaced (or cannot be read) is only taken for replaced when it looks so again
 * after a sync during which it did not change; until then nothing is read from it or
 * written to it (WATCH_WAIT). */
static int watch_look(struct brock__store *s)
{
    struct stat st;
    char instance[33];
    int64_t gen = 0;

    if (stat(s->path, &st) < 0)
        return errno == ENOENT || errno == ENOTDIR ? WATCH_GONE : WATCH_SAME;
    if (st.st_dev != s->file.st_dev || st.st_ino != s->file.st_ino)
        return WATCH_REPLACED;
    if (same_contents(&st, &s->file)) {
        s->doubt = 0;
        return WATCH_SAME;
    }
    if (brock__store_file_identity(s, instance, &gen) == 0 &&
        !(instance[0] && s->instance[0] && strcmp(instance, s->instance) != 0) &&
        gen >= s->file_gen) {
        s->file = st;
        s->file_gen = gen;
        s->doubt = 0;
        return WATCH_SAME;
    }
    if (s->doubt && same_contents(&st, &s->doubt_at))
        return WATCH_REPLACED;
    s->doubt = 1;
    s->doubt_at = st;
    return WATCH_WAIT;
}

static void note_event(struct brock_engine *e, int gone)
{
    struct brock__store *s = e->store;

    if (gone) {
        e->health.recreated++;
        brock__store_note_event(
            e, "the state database %s was deleted; writing the whole state to a new one", s->path);
    } else {
        e->health.reloaded++;
        brock__store_note_event(e,
                                "the state database %s was replaced; reloaded it, keeping its "
                                "choices and settings and adding what brock learned that it "
                                "lacks",
                                s->path);
    }
}

/* Opens what is at the path now: a new database when there is nothing, written whole at the
 * flush that follows; else the file that took the old one's place, merged with memory. */
static int reattach(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    char seeded[sizeof(s->seeded)];
    struct stat st;
    int gone, rc;

    memcpy(seeded, s->seeded, sizeof(seeded));
    gone = stat(s->path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR);
    if ((rc = brock__store_attach(e, gone)) < 0) {
        char why[sizeof(e->errmsg)];

        if (!gone)
            return rc;
        memcpy(why, e->errmsg, sizeof(why));
        return brock__fail(e, rc, "the state database %s was deleted and cannot be made again: %s",
                           s->path, why);
    }
    /* A file that does not say whether the state was seeded is told what memory knows. */
    if (!s->seeded[0] && seeded[0]) {
        memcpy(s->seeded, seeded, sizeof(seeded));
        e->seed_mark = strcmp(seeded, "none") != 0 ? BROCK__SEED_LOADED : BROCK__SEED_NONE;
    }
    if (gone) {
        brock__store_mark_all(e);
    } else if ((rc = brock__store_merge(e)) < 0) {
        brock__store_detach(s);
        return rc;
    }
    s->lost = 0;
    note_event(e, gone);
    return 0;
}

int brock__sqlite_check(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    if (!s || s->readonly)
        return 0;
    if (!s->lost) {
        int how = watch_look(s);

        if (how == WATCH_SAME)
            return 0;
        if (how == WATCH_WAIT)
            return 1;
        brock__store_detach(s);
        s->lost = 1;
        s->doubt = 0;
    }
    return reattach(e);
}
