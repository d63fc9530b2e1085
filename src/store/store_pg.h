/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PostgreSQL store's insides, shared by its files: store_pg.c (the connection, the schema,
 * statements, reading rows for store_walk.c's steps, closing, the back end's table) and
 * store_pg_sync.c (the batch of store_walk.c's writes, writing it, picking up what other
 * instances wrote). The rest of the engine reaches it only through store_api.h's store
 * interface. libpq is called through brock__pq (pq.h), which an open loads.
 */
#ifndef BROCK_STORE_STORE_PG_H
#define BROCK_STORE_STORE_PG_H

#include <pthread.h>
#include <stdint.h>

#include "store/store_api.h"
#include "store/pq.h"
#include "store/store_walk.h"

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
    PG_SNITCH_DEL,
    PG_TRACKING_PUT,
    PG_TRACKING_ALL,
    PG_TRACKING_DEL,
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
    PG_CLIENT_PAGE_PUT,
    PG_CLIENT_PAGE_DEL_SITE,
    PG_CLIENT_PAGE_DEL,
    PG_CLIENT_PAGE_ALL,
    PG_CLIENT_DAY_ADD,
    PG_CLIENT_DAY_FORGET,
    PG_CLIENT_DAY_ALL,
    PG_SITE_ACTION_PUT,
    PG_SITE_ACTION_DEL,
    PG_SITE_ACTION_ALL,
    PG_WRITE_LOCK,
    PG_NOTIFY,
    PG_COUNT
};

/* The most parameters a statement takes (brock_client_day_count's row: client, day, site and
 * the counts; put_day() checks it). */
#define PG_MAX_PARAMS 9

/* One statement of a batch: its id and its parameters, offsets into the batch's text
 * (PG_NULL: SQL NULL). */
#define PG_NULL SIZE_MAX
struct brock__pg_stmt {
    int id, n;
    size_t off[PG_MAX_PARAMS];
};

/* What a flush writes, taken out of memory's marks into text of its own, so that it can be
 * written later, by another thread, while memory goes on changing: one transaction. */
struct brock__pg_batch {
    struct brock__pg_stmt *v;
    size_t n, cap;
    char *text;
    size_t len, text_cap;
    int reset;       /* empty the learned tables first (brock_reset()) */
    int64_t made_ms; /* when memory's marks were taken */
};

/* One thing another instance changed, as read: a result for the engine to apply. */
enum {
    PG_NEWS_ACTION,       /* r: the row of name, or none (deleted) */
    PG_NEWS_SNITCH,       /* r: name's snitch sites */
    PG_NEWS_SETTINGS,     /* r: every setting */
    PG_NEWS_PAGES,        /* r: every page view */
    PG_NEWS_CLIENT_PAGES, /* r: every client's page view; drop: memory's written ones go first */
    PG_NEWS_CLIENT_DAYS,  /* r: every client's daily count */
    PG_NEWS_ACTIONS,      /* r: every action (a reload of everything) */
    PG_NEWS_SNITCHES,     /* r: every snitch site (idem) */
    PG_NEWS_SITE_ACTIONS, /* r: every choice for one site only */
};

struct brock__pg_news_item {
    int kind;
    int drop; /* a reset by another instance: memory's written snitch sites go first */
    char *name;
    PGresult *r;
};

/* What a read of the journal found, up to journal row max. */
struct brock__pg_news {
    int64_t max;
    struct brock__pg_news_item *v;
    size_t n, cap;
};

/* The store thread's side (store_pg_thread.c), guarded by mu. */
struct brock__pg_bg {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t written; /* a batch was written, or the thread gave up on one */
    int wake_fd;            /* an eventfd: the engine has something for the thread */
    int stop;
    struct brock__pg_batch *queued; /* made by the engine, not yet written; NULL: none */
    uint64_t made;                  /* batches the engine made */
    struct brock__pg_news *news;    /* read by the thread, not yet applied; NULL: none */
    int reading;                    /* the thread is reading the journal */
    uint64_t news_made;             /* made when that read began */
    int connected;
    int64_t since_ms;   /* when connected last changed (Unix ms) */
    int64_t written_ms; /* the last batch written */
    int64_t error_ms;
    char error[512];       /* the last failure, "" if none */
    int sock;              /* the connection's socket while connected, else -1 */
    unsigned down;         /* times the connection was lost */
    uint64_t written_rows; /* statements written since the start */
    uint64_t refused;      /* statements the server refused for good, and dropped */
};

struct brock__pg {
    PGconn *conn;
    int64_t last_seq; /* the newest journal row this process has applied */
    int64_t origin;   /* marks this connection's journal rows and notifications */
    int notified;     /* another instance wrote since the last poll */
    char where[320];  /* "PostgreSQL database NAME on HOST:PORT", for messages */
    char pgerr[512];  /* the server's (or libpq's) words for the last failure */
    char sqlstate[6]; /* and the server's SQLSTATE for it; "" when the server gave none */
    /* store_pg_sync.c: a flush sends its statements in pipeline mode, reading their results
     * every PIPE_BATCH statements and at the end. */
    int pipelined;                 /* in pipeline mode */
    int queued;                    /* statements sent whose results are not read yet */
    int pipe_failed;               /* one of them failed (pgerr says why): the flush fails */
    struct brock__pg_batch *batch; /* the batch a flush is making */
    struct brock__pg_bg *bg;       /* the store thread; NULL: brock_sync() does the work */
    /* The rows of a whole table being applied from news: brock__pg_rows() reads them here
     * instead of running the table's statement. */
    const PGresult *applying;
};

/* Runs prepared statement id with n text parameters (NULL: SQL NULL). Returns the result on
 * success (free with PQclear()); NULL on failure, with p->pgerr saying why. */
PGresult *brock__pg_run(struct brock__pg *p, int id, int n, const char *const *vals);

/* Runs sql (no parameters). 0, or -1 with p->pgerr saying why. */
int brock__pg_exec(struct brock__pg *p, const char *sql) BROCK_NODISCARD_INTERNAL;

/* Keeps msg (libpq's or the server's words) in p->pgerr, on one line (p->sqlstate emptied). */
void brock__pg_note_err(struct brock__pg *p, const char *msg);

/* Keeps the SQLSTATE of the failed result r (NULL: none) in p->sqlstate. */
void brock__pg_note_state(struct brock__pg *p, const PGresult *r);

/* Ends the transaction in progress, if any, without its changes. */
void brock__pg_rollback(struct brock__pg *p);

/* Records, for errmsg, that what (on name, which may be NULL) failed, in the server's words.
 * Returns BROCK_ESTORE. */
int brock__pg_fail(struct brock_engine *e, const char *what, const char *name);

/* The smallest and largest journal sequence numbers (0 and 0 for none). 0 or -1. */
int brock__pg_journal_range(struct brock__pg *p, int64_t *min,
                            int64_t *max) BROCK_NODISCARD_INTERNAL;

/* A value of a result as a number (0 for NULL or junk). */
int64_t brock__pg_int(const PGresult *r, int row, int col);

/* Makes the connection ready for brock's statements: prepares them and, with listen, listens
 * for other instances' notifications. 0, or -1 with p->pgerr saying why. */
int brock__pg_session(struct brock__pg *p, int listen) BROCK_NODISCARD_INTERNAL;

/* A row of a result, for store_walk.c's steps (&row.r). */
struct brock__pg_row {
    struct brock__store_row r;
    const PGresult *res;
    int i;
};
void brock__pg_row_init(struct brock__pg_row *row, const PGresult *res, int i);

/* The walk's reader (struct brock__store_walk_ops' rows): runs table's statement, or takes
 * p->applying when set. */
int brock__pg_rows(struct brock_engine *e, int table, const char *what,
                   int (*apply)(struct brock_engine *e, const struct brock__store_row *r,
                                void *arg),
                   void *arg) BROCK_NODISCARD_INTERNAL;

/* The PostgreSQL side of store_walk.c: its writes add statements to p->batch
 * (store_pg_sync.c). */
extern const struct brock__store_walk_ops brock__pg_walk;

/* The back end's calls (store_pg_sync.c). */
int brock__pg_flush(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__pg_poll(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

/* Writing and reading, on p alone (any thread): a batch in one transaction, and what other
 * instances changed since journal row since. 0 / a new news, or -1 / NULL with p->pgerr
 * saying why. batch_exec moves p->last_seq past the batch's own journal rows when nothing
 * else was written in between (under lock, when not NULL). */
int brock__pg_batch_exec(struct brock__pg *p, const struct brock__pg_batch *b,
                         pthread_mutex_t *lock) BROCK_NODISCARD_INTERNAL;

/* Whether the last failure is the server refusing a value for good (a data exception, an
 * integrity constraint, a limit: SQLSTATE classes 22, 23, 54) on a connection that still
 * works, so that writing the same batch again can never succeed. */
int brock__pg_refused_for_good(const struct brock__pg *p);

/* Writes b as brock__pg_batch_exec() does, but each statement on its own (a savepoint each):
 * the ones the server refuses for good are left out and counted in *refused, the rest goes
 * in, in one transaction. 0, or -1 on any other failure (nothing written). */
int brock__pg_batch_exec_each(struct brock__pg *p, const struct brock__pg_batch *b,
                              pthread_mutex_t *lock, uint64_t *refused) BROCK_NODISCARD_INTERNAL;
struct brock__pg_news *brock__pg_news_read(struct brock__pg *p, int64_t since);

/* Applies news to memory (fields dirty in memory win). Returns the entries changed, or a
 * negative error. */
int brock__pg_news_apply(struct brock_engine *e,
                         const struct brock__pg_news *news) BROCK_NODISCARD_INTERNAL;
void brock__pg_news_free(struct brock__pg_news *news);
void brock__pg_batch_free(struct brock__pg_batch *b);

/* Makes a batch of memory's marks in p->batch. 0 or a negative error (errmsg set). */
int brock__pg_batch_make(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

/* Reads the notifications that arrived without waiting; sets p->notified for another
 * instance's. 0, or -1 when the connection is lost. */
int brock__pg_take_notifications(struct brock__pg *p) BROCK_NODISCARD_INTERNAL;

/* The store thread (store_pg_thread.c): started once the state is loaded, it alone uses the
 * connection; brock_sync() hands it batches and takes what it read. */
int brock__pg_bg_start(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__pg_bg_flush(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__pg_bg_poll(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__pg_bg_wait(struct brock_engine *e, int timeout_ms) BROCK_NODISCARD_INTERNAL;
/* Refreshes e->health from the thread; 0 without one. */
int brock__pg_bg_health(struct brock_engine *e);
void brock__pg_bg_stop(struct brock__pg *p);

#endif
