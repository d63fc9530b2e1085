/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The SQLite store's insides, shared by its files: store_sql.c (the schema and the statements'
 * SQL), store.c (creating the schema, statements, opening, closing, the back end's table),
 * store_load.c (rows for store_walk.c's steps into the maps), store_flush.c (the statements of
 * store_walk.c's writes, in one transaction), store_poll.c (picking up other processes'
 * changes), store_watch.c (noticing that the file was deleted or replaced) and store_merge.c
 * (memory into a new file, or into a restored one). The rest of the engine reaches it only
 * through store_api.h's store interface.
 */
#ifndef BROCK_STORE_STORE_H
#define BROCK_STORE_STORE_H

#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "store/store_api.h"
#include "store/store_walk.h"

/* The prepared statements, by id; store_sql.c holds their SQL. */
enum {
    ST_BEGIN_READ,
    ST_BEGIN_WRITE,
    ST_COMMIT,
    ST_ACTION_PUT,
    ST_ACTION_DEL,
    ST_ACTION_GET,
    ST_ACTION_ALL,
    ST_SNITCH_PUT,
    ST_SNITCH_GET,
    ST_SNITCH_ALL,
    ST_SNITCH_DEL,
    ST_TRACKING_PUT,
    ST_TRACKING_ALL,
    ST_TRACKING_DEL,
    ST_FP_PUT,
    ST_FP_ALL,
    ST_SETTING_CLEAR,
    ST_SETTING_PUT,
    ST_SETTING_ALL,
    ST_META_PUT,
    ST_META_GET,
    ST_JOURNAL_ADD,
    ST_JOURNAL_TRIM,
    ST_JOURNAL_RANGE,
    ST_JOURNAL_SINCE,
    ST_DATA_VERSION,
    ST_PAGE_PUT,
    ST_PAGE_DEL_SITE,
    ST_PAGE_ALL,
    ST_DAY_ADD,
    ST_DAY_FORGET,
    ST_DAY_ALL,
    ST_CLIENT_PAGE_PUT,
    ST_CLIENT_PAGE_DEL_SITE,
    ST_CLIENT_PAGE_DEL,
    ST_CLIENT_PAGE_ALL,
    ST_CLIENT_DAY_ADD,
    ST_CLIENT_DAY_FORGET,
    ST_CLIENT_DAY_ALL,
    ST_SITE_ACTION_PUT,
    ST_SITE_ACTION_DEL,
    ST_SITE_ACTION_ALL,
    ST_INSTANCE_PUT,
    ST_GENERATION_BUMP,
    ST_COUNT
};

struct brock__store {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    int64_t last_seq;     /* the newest journal row this process has applied */
    int64_t data_version; /* PRAGMA data_version when the journal was last read */
    int64_t origin;       /* marks this connection's journal rows */
    char path[PATH_MAX];
    char sqlerr[256];                /* SQLite's message for the last failed statement */
    int sqlcode;                     /* and its (extended) result code */
    int readonly;                    /* opened read-only: brock__store_flush() writes nothing */
    int created;                     /* this open created path */
    char made_dir[PATH_MAX];         /* the outermost folder this open created, or "" */
    char doing[BROCK_HOST_MAX + 64]; /* what the last failed brock__store_fail() call was doing */

    /* store_watch.c: the file as this process last knew it, to notice that it was deleted or
     * replaced (a backup restored) under the open connection. */
    struct stat file;       /* brock.db after the last open or write: device, inode, size, times */
    dev_t wal_dev, shm_dev; /* the -wal and -shm files this connection uses (0: none seen) */
    ino_t wal_ino, shm_ino;
    char instance[33]; /* meta 'instance': a random name given to the database once; "" until
                          this process has read or written it */
    int64_t file_gen;  /* the generation known to be in brock.db itself (checkpointed) */
    char seeded[32];   /* meta 'seeded' as last read or written; "" when unknown */
    int lost;          /* the connection was closed on a deleted or replaced file */
    int doubt;         /* brock.db seemed replaced at the last sync, when it was doubt_at */
    struct stat doubt_at;
    int committed; /* a write succeeded since the open */
};

/* ---- the back end's calls (store_api.h's struct brock__store_ops) ---- */

int brock__sqlite_load(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__sqlite_flush(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__sqlite_poll(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__sqlite_check(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__sqlite_meta_get(struct brock_engine *e, const char *key,
                           char **out) BROCK_NODISCARD_INTERNAL;

/* ---- the SQL (store_sql.c) ---- */

/* The schema's version (PRAGMA user_version), the one brock__store_schema_sql makes. */
#define STORE_SCHEMA_VERSION 6

/* The tables of a new state; then what brings a state of version 1 to 5 up to date: from
 * version v, migrate_vN_sql for every N from v to 5, in order. */
extern const char brock__store_schema_sql[];
extern const char brock__store_migrate_v1_sql[];
extern const char brock__store_migrate_v2_sql[];
extern const char brock__store_migrate_v3_sql[];
extern const char brock__store_migrate_v4_sql[];
extern const char brock__store_migrate_v5_sql[];

/* Each prepared statement's SQL, by id (ST_*). */
extern const char *const brock__store_stmt_sql[ST_COUNT];

/* ---- statements (store.c) ---- */

/* Steps st once. SQLITE_ROW and SQLITE_DONE are returned as they are; any error resets st,
 * keeps SQLite's message in s->sqlerr and is returned. */
int brock__store_step(struct brock__store *s, sqlite3_stmt *st) BROCK_NODISCARD_INTERNAL;

/* Runs a statement that returns no rows; 0 or SQLite's error code. */
int brock__store_run(struct brock__store *s, sqlite3_stmt *st) BROCK_NODISCARD_INTERNAL;

/* Runs sql (no rows, no parameters); SQLITE_OK or SQLite's error code, kept in s->sqlerr. */
int brock__store_exec(struct brock__store *s, const char *sql);

/* Binds v to parameter i, borrowed until the statement is reset. */
int brock__store_bind_text(sqlite3_stmt *st, int i, const char *v);

/* Column i of the current row as text; "" for NULL. Valid until the next step or reset. */
const char *brock__store_column_text(sqlite3_stmt *st, int i);

/* An integer from column col of a one-row statement into *out. 0 or SQLite's error code. */
int brock__store_query_int(struct brock__store *s, sqlite3_stmt *st, int col,
                           int64_t *out) BROCK_NODISCARD_INTERNAL;

/* The oldest and newest journal rows (0 and 0 for an empty journal). 0 or SQLite's error. */
int brock__store_journal_range(struct brock__store *s, int64_t *min,
                               int64_t *max) BROCK_NODISCARD_INTERNAL;

/* Records, for errmsg, that what (on name, which may be NULL) failed, in SQLite's words from
 * the last failed statement, or as a corrupt file. Returns BROCK_ESTORE. */
int brock__store_fail(struct brock_engine *e, const char *what, const char *name);

/* ---- opening again (store.c) ---- */

/* Opens s->path read-write for the watcher: with create, makes the folder and the file first
 * (mode 0600, the folder's owner's when root makes it). Sets up the connection as an open does
 * and notes the files. Returns 0, or a negative error with errmsg set and no connection. */
int brock__store_attach(struct brock_engine *e, int create) BROCK_NODISCARD_INTERNAL;

/* Closes the connection without checkpointing: its -wal may not belong to what is at the
 * path now. Then removes the -wal and -shm files at the path if they are the ones it used. */
void brock__store_detach(struct brock__store *s);

/* Records brock.db's identity and times, and which -wal and -shm files are in use, as they
 * are now: after an open or a write by this process. */
void brock__store_note_files(struct brock__store *s);

/* Reads the instance name and generation that brock.db itself holds, without the -wal, on a
 * connection of its own. Returns 0, or -1 when the file cannot be read now. */
int brock__store_file_identity(const struct brock__store *s, char instance[33],
                               int64_t *gen) BROCK_NODISCARD_INTERNAL;

/* ---- the walk's writes and reads (store_flush.c, store_load.c) ---- */

/* The SQLite side of store_walk.c: its writes run statements in the flush's transaction. */
extern const struct brock__store_walk_ops brock__sqlite_walk;

/* The walk's reader (struct brock__store_walk_ops' rows): steps table's statement. */
int brock__sqlite_rows(struct brock_engine *e, int table, const char *what,
                       int (*apply)(struct brock_engine *e, const struct brock__store_row *r,
                                    void *arg),
                       void *arg) BROCK_NODISCARD_INTERNAL;

/* A row of st, for store_walk.c's steps (&row.r): its current one, until st is stepped or
 * reset. */
struct brock__sqlite_row {
    struct brock__store_row r;
    sqlite3_stmt *st;
};
void brock__sqlite_row_init(struct brock__sqlite_row *row, sqlite3_stmt *st);

/* Reads every setting row into e->settings (brock__store_read_settings()), for
 * brock__store_settings_reload(). Returns 0, BROCK_ESTORE or BROCK_ENOMEM. */
int brock__store_settings_read(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

/* ---- memory into a new or restored file (store_merge.c) ---- */

/* Marks everything memory holds for the next flush: a new, empty database gets it all. */
void brock__store_mark_all(struct brock_engine *e);

/* Brings a replaced database and memory together: the file's choices and settings win, what
 * memory learned that the file lacks is marked for the next flush. Returns 0, BROCK_ESTORE or
 * BROCK_ENOMEM. */
int brock__store_merge(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

#endif
