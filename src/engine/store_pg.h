/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PostgreSQL store's insides, shared by its files: store_pg.c (the connection, the schema,
 * statements, loading, closing, the back end's table) and store_pg_sync.c (writing a batch,
 * picking up what other instances wrote). The rest of the engine reaches it only through
 * engine.h's store interface.
 */
#ifndef BROCK_ENGINE_STORE_PG_H
#define BROCK_ENGINE_STORE_PG_H

#include <stdint.h>

#include <libpq-fe.h>

#include "engine/engine.h"

/* The channel every write notifies, with the writer's origin as payload. */
#define PG_CHANNEL "brock_journal"

/* The prepared statements, by id; store_pg.c holds their SQL. */
enum {
    PG_ACTION_PUT,
    PG_ACTION_DEL,
    PG_ACTION_GET,
    PG_ACTION_ALL,
    PG_SNITCH_PUT,
    PG_SNITCH_GET,
    PG_SNITCH_ALL,
    PG_TRACKING_PUT,
    PG_TRACKING_ALL,
    PG_FP_PUT,
    PG_FP_ALL,
    PG_SETTING_CLEAR,
    PG_SETTING_PUT,
    PG_SETTING_ALL,
    PG_META_PUT,
    PG_META_GET,
    PG_JOURNAL_ADD,
    PG_JOURNAL_TRIM,
    PG_JOURNAL_RANGE,
    PG_JOURNAL_SINCE,
    PG_PAGE_PUT,
    PG_PAGE_DEL_SITE,
    PG_PAGE_ALL,
    PG_DAY_ADD,
    PG_DAY_FORGET,
    PG_DAY_ALL,
    PG_SITE_ACTION_PUT,
    PG_SITE_ACTION_DEL,
    PG_SITE_ACTION_ALL,
    PG_WRITE_LOCK,
    PG_NOTIFY,
    PG_COUNT
};

struct brock__pg {
    PGconn *conn;
    int64_t last_seq; /* the newest journal row this process has applied */
    int64_t origin;   /* marks this connection's journal rows and notifications */
    int notified;     /* another instance wrote since the last poll */
    char seeded[32];  /* meta 'seeded' as last read or written; "" when unknown */
    char where[320];  /* "PostgreSQL database NAME on HOST:PORT", for messages */
    char pgerr[512];  /* the server's (or libpq's) words for the last failure */
    /* store_pg_sync.c: a flush sends its statements in pipeline mode, reading their results
     * every PIPE_BATCH statements and at the end. */
    int pipelined;   /* in pipeline mode */
    int queued;      /* statements sent whose results are not read yet */
    int pipe_failed; /* one of them failed (pgerr says why): the flush fails */
};

/* Runs prepared statement id with n text parameters (NULL: SQL NULL). Returns the result on
 * success (free with PQclear()); NULL on failure, with p->pgerr saying why. */
PGresult *brock__pg_run(struct brock__pg *p, int id, int n, const char *const *vals);

/* Runs sql (no parameters). 0, or -1 with p->pgerr saying why. */
int brock__pg_exec(struct brock__pg *p, const char *sql) BROCK_NODISCARD_INTERNAL;

/* Keeps msg (libpq's or the server's words) in p->pgerr, on one line. */
void brock__pg_note_err(struct brock__pg *p, const char *msg);

/* Ends the transaction in progress, if any, without its changes. */
void brock__pg_rollback(struct brock__pg *p);

/* Records, for errmsg, that what (on name, which may be NULL) failed, in the server's words.
 * Returns BROCK_ESTORE. */
int brock__pg_fail(struct brock_engine *e, const char *what, const char *name);

/* The smallest and largest journal sequence numbers (0 and 0 for none). 0 or -1. */
int brock__pg_journal_range(struct brock__pg *p, int64_t *min,
                            int64_t *max) BROCK_NODISCARD_INTERNAL;

/* Every row of the page views, or of the settings, into memory. 0 or a negative error. */
int brock__pg_pages_read(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__pg_settings_read(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

/* Every choice for one site only read again (brock__site_actions_reload_begin()'s rules).
 * Returns how many changed, or a negative error. */
int brock__pg_site_actions_read(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

/* A value of a result as a number (0 for NULL or junk). */
int64_t brock__pg_int(const PGresult *r, int row, int col);

/* A value of a result as text, or NULL for SQL NULL. */
const char *brock__pg_text_or_null(const PGresult *r, int row, int col);

/* Makes the connection ready for brock's statements: prepares them and, unless the engine
 * only reads, listens for other instances' notifications. 0 or BROCK_ESTORE. */
int brock__pg_session(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

/* The back end's calls (store_pg_sync.c). */
int brock__pg_flush(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__pg_poll(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

#endif
