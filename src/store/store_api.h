/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The store interface: what the engine needs of a store and how it calls one (store_api.c),
 * each back end's open (store.c, store_pg.c), and the rules by which every back end brings its
 * rows into the maps (store_rows.c).
 */
#ifndef BROCK_STORE_STORE_API_H
#define BROCK_STORE_STORE_API_H

#include <stdint.h>

#include "engine/engine.h"

/* ---- the store: what the engine needs of one (store_api.c) ---- */

/*
 * A store keeps the maps between runs and shares them between processes. Its back end (SQLite
 * in store*.c, PostgreSQL in store_pg*.c) opens it, creating the schema, and sets e->store and
 * e->store_ops; then the engine calls, through the table:
 *   load      every row into the engine's empty maps, before anything else (0 or < 0);
 *   flush     every entry marked dirty, deletion, setting and meta change in one transaction,
 *             column-wise for action entries (only the columns marked dirty overwrite a row),
 *             then brock__store_marks_clear(); on failure nothing is written or cleared;
 *   poll      the names other processes changed since the last load or poll, reread each once
 *             (fields dirty in memory are kept); returns how many entries changed;
 *   check     (may be NULL) before poll and flush at each brock_sync(): 0 to go on, 1 to skip
 *             this sync, < 0 an error (SQLite: the file deleted or replaced, store_watch.c);
 *   meta_get  one meta row (pbconfig, yellowlist, ...), in a new string or NULL;
 *   where     the store's name for messages and brock_store_status();
 *   close     closes it; discard closes it after a failed open, removing what the open made;
 *   background, wait, health   below.
 * Every failure sets errmsg through brock__fail() and returns a negative BROCK_E*. Rows come
 * into the maps through the shared helpers below, so both back ends apply them alike.
 */
struct brock__store_ops {
    const char *name;
    int (*load)(struct brock_engine *e);
    int (*flush)(struct brock_engine *e);
    int (*poll)(struct brock_engine *e);
    int (*check)(struct brock_engine *e);
    int (*meta_get)(struct brock_engine *e, const char *key, char **out);
    const char *(*where)(const struct brock_engine *e);
    void (*close)(struct brock_engine *e);
    void (*discard)(struct brock_engine *e);
    /* May be NULL: hands the work to a thread of the store's own, so that brock_sync() never
     * waits on the store (background); waits up to timeout_ms for what it holds to be written
     * (wait); brings e->health up to date before brock_store_status() (health). */
    int (*background)(struct brock_engine *e);
    int (*wait)(struct brock_engine *e, int timeout_ms);
    int (*health)(struct brock_engine *e);
};

/* Whether memory holds changes the store has not taken yet (store_api.c). */
int brock__store_unsaved(const struct brock_engine *e);

/* Opens or creates dir/brock.db (with e->read_only: opens it read-only if it exists, and
 * creates nothing). *fresh is set when the state is new: it has no record of being seeded or
 * of being made without the seed. Returns 0 or BROCK_ESTORE/BROCK_EIO with errmsg set. */
int brock__sqlite_open(struct brock_engine *e, const char *dir,
                       int *fresh) BROCK_NODISCARD_INTERNAL;

/* Connects to the PostgreSQL database conninfo names (a libpq connection string: a URI or
 * key=value words, a service name; never a password, refused with BROCK_EINVAL), creating or
 * migrating the schema unless e->read_only (then a database without brock's tables reads as a
 * new state and no store is kept). *fresh as brock__sqlite_open(). Returns 0, BROCK_EINVAL,
 * BROCK_ESTORE or BROCK_ENOMEM with errmsg set; BROCK_ESTORE too when libpq.so.5 cannot be
 * loaded (pq.h), before anything is touched. */
int brock__pg_open(struct brock_engine *e, const char *conninfo,
                   int *fresh) BROCK_NODISCARD_INTERNAL;

/* The calls of the table above, on e's store; each does nothing (0) without one. */
void brock__store_discard(struct brock_engine *e);
int brock__store_load(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__store_flush(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__store_poll(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__store_check(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
void brock__store_close(struct brock_engine *e);

/* The meta row key's value in a new string *out (mem_free), or NULL when absent. Returns 0
 * or BROCK_ESTORE / BROCK_ENOMEM. The update's rows (pbconfig, pbconfig_time, yellowlist)
 * are written by brock__store_flush() while e->pbconfig_dirty. */
int brock__store_meta_get(struct brock_engine *e, const char *key,
                          char **out) BROCK_NODISCARD_INTERNAL;

/* Records the outcome rc of a brock_sync() for brock_store_status(). */
void brock__store_note_result(struct brock_engine *e, int rc);

/* Records a sentence on what the store went through (a file recreated, a database reached
 * again) for brock_store_status(). */
void brock__store_note_event(struct brock_engine *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- rows into the maps, for every back end (store_rows.c) ---- */

/* Marks every snitch site, tracking row and fingerprinting script to be written at the next
 * flush. */
void brock__store_mark_learned(struct brock_engine *e);

/* Marks every action entry (all its columns), snitch site, tracking row and fingerprinting
 * script to be written at the next flush, as after a reset: the store holds none of them. */
void brock__store_mark_rows(struct brock_engine *e);

/* Reads the settings again through read (the back end's), unless memory changed them since
 * the last write. Returns 1 when they changed, 0, or read's error. */
int brock__store_settings_reload(struct brock_engine *e, int (*read)(struct brock_engine *e));

/* Clears every dirty mark: what memory holds is taken as written (after a commit, or for a
 * state that cannot be written, the changes made while opening it). */
void brock__store_marks_clear(struct brock_engine *e);

/* Applies an action row (user_action and heuristic as Privacy Badger names them, "" for
 * none) to domain's entry, creating it unless memory deleted it since its last write; fields
 * dirty in memory win. Returns 1 when memory changed, 0, or BROCK_ENOMEM. */
int brock__store_action_apply(struct brock_engine *e, const char *domain, const char *user,
                              const char *heur, int dnt,
                              int64_t next_update) BROCK_NODISCARD_INTERNAL;

/* A row of domain's that the store no longer has: the entry goes, unless memory changed it
 * since its last write. Returns 1 when memory changed, else 0. */
int brock__store_action_gone(struct brock_engine *e, const char *domain);

/* Appends a snitch row (host and detail may be NULL; detail "cookie=parameter" for pixel
 * sharing) to tracker's list. With check, a site already listed is skipped. Returns 1 when
 * added, 0, or BROCK_ENOMEM. */
int brock__store_snitch_apply(struct brock_engine *e, const char *tracker, const char *site,
                              const char *host, const char *detail, int kind, int64_t time_ms,
                              int check) BROCK_NODISCARD_INTERNAL;

/* A snitch site's detail column, in a new string (mem_free), NULL for none: the cookie's name,
 * or "cookie=parameter" for pixel sharing (a cookie's name never holds '='). Sets *nomem when
 * out of memory. */
char *brock__store_detail_text(const struct snitch_site *ss, int *nomem);

/* Appends a tracking row, or a fingerprinting script row, as loading reads them (in order,
 * each once). Return 0 or BROCK_ENOMEM. */
int brock__store_tracking_load(struct brock_engine *e, const char *tracker, const char *site,
                               unsigned kinds) BROCK_NODISCARD_INTERNAL;
int brock__store_fp_load(struct brock_engine *e, const char *host,
                         const char *path) BROCK_NODISCARD_INTERNAL;

/* Sets one setting from its stored JSON text. Returns 0, BROCK_ESTORE (not JSON; errmsg
 * names where, as the back end says) or BROCK_ENOMEM. */
int brock__store_setting_apply(struct brock_engine *e, const char *where, const char *key,
                               const char *json_text) BROCK_NODISCARD_INTERNAL;

/* Another process reset the state: snitch lists with nothing unwritten are dropped, before
 * everything is read again. */
void brock__store_snitches_drop_clean(struct brock_engine *e);

/* Action heuristic as the stores write it: BROCK__HEUR_UNKNOWN, which has no name, as a word
 * that reads back as unknown. */
const char *brock__store_heur_text(int heur);

#endif
