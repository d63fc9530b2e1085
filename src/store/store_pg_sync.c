/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PostgreSQL store at brock_sync(): what memory marked is written in one transaction with
 * a journal row per name and a notification to the other instances; what they wrote is picked
 * up when one of their notifications has arrived, from the journal rows after the last one
 * read, or from everything when the journal no longer reaches back that far.
 */
#include "store/store_pg.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"

#define JOURNAL_KEEP "10000"

/* Statements a flush sends before it reads their results: few enough that the results never
 * fill the socket's buffers while the server waits for them to be read (a deadlock). */
#define PIPE_BATCH 256

/* A reset to the seed empties what was learned; memory is then written back whole. */
static const char reset_sql[] = "DELETE FROM brock_action; DELETE FROM brock_snitch;"
                                " DELETE FROM brock_tracking; DELETE FROM brock_fp_script;";

/* ---- pipelining ---- */

/* Reads the results of the statements sent since the last sync point. The first failure is
 * kept in p->pgerr and marks the flush failed (the statements after it were skipped by the
 * server). Returns 0, or -1 when a result cannot be read at all. */
static int pipe_drain(struct brock__pg *p)
{
    if (!p->queued)
        return 0;
    if (brock__pq->PQpipelineSync(p->conn) != 1) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        p->pipe_failed = 1;
        return -1;
    }
    for (;;) {
        PGresult *r = brock__pq->PQgetResult(p->conn);
        ExecStatusType st;

        if (!r) {
            if (brock__pq->PQstatus(p->conn) != CONNECTION_OK) {
                brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
                p->pipe_failed = 1;
                return -1;
            }
            continue; /* the end of one statement's results */
        }
        st = brock__pq->PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_PIPELINE_SYNC &&
            st != PGRES_PIPELINE_ABORTED && !p->pipe_failed) {
            brock__pg_note_err(p, brock__pq->PQresultErrorMessage(r));
            brock__pg_note_state(p, r);
            p->pipe_failed = 1;
        }
        brock__pq->PQclear(r);
        if (st == PGRES_PIPELINE_SYNC)
            break;
    }
    p->queued = 0;
    return 0;
}

/* Every statement from here to pipe_end() is sent without waiting for its result. */
static int pipe_begin(struct brock__pg *p)
{
    if (brock__pq->PQenterPipelineMode(p->conn) != 1) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        return -1;
    }
    p->pipelined = 1;
    p->queued = 0;
    p->pipe_failed = 0;
    return 0;
}

/* Reads what is left and leaves pipeline mode. 0, or -1 when a statement failed. */
static int pipe_end(struct brock__pg *p)
{
    if (!p->pipelined)
        return 0;
    (void)pipe_drain(p);
    if (brock__pq->PQexitPipelineMode(p->conn) != 1 && !p->pipe_failed) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        p->pipe_failed = 1;
    }
    p->pipelined = 0;
    return p->pipe_failed ? -1 : 0;
}

/* Sends one statement in pipeline mode, reading results every PIPE_BATCH. 0 or -1. */
static int pipe_send(struct brock__pg *p, int id, int n, const char *const *vals)
{
    char name[32];

    if (p->pipe_failed)
        return -1;
    snprintf(name, sizeof(name), "brock_%d", id);
    if (brock__pq->PQsendQueryPrepared(p->conn, name, n, vals, NULL, NULL, 0) != 1) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        p->pipe_failed = 1;
        return -1;
    }
    return ++p->queued >= PIPE_BATCH && pipe_drain(p) < 0 ? -1 : 0;
}

/* ---- batches ---- */

void brock__pg_batch_free(struct brock__pg_batch *b)
{
    if (!b)
        return;
    mem_free(b->v);
    mem_free(b->text);
    mem_free(b);
}

static int batch_text(struct brock__pg_batch *b, const char *s, size_t *off)
{
    size_t len = strlen(s) + 1;

    if (b->text_cap - b->len < len) {
        size_t cap = b->text_cap ? b->text_cap : 4096;
        char *t;

        while (cap - b->len < len)
            cap *= 2;
        if (!(t = mem_realloc(b->text, cap)))
            return -1;
        b->text = t;
        b->text_cap = cap;
    }
    memcpy(b->text + b->len, s, len);
    *off = b->len;
    b->len += len;
    return 0;
}

/* Adds a statement to the batch being made: its parameters are copied. 0 or -1 (out of
 * memory). */
static int run(struct brock__pg *p, int id, int n, const char *const *vals)
{
    struct brock__pg_batch *b = p->batch;
    struct brock__pg_stmt *st;

    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        struct brock__pg_stmt *v = mem_realloc(b->v, cap * sizeof(*v));

        if (!v)
            return -1;
        b->v = v;
        b->cap = cap;
    }
    st = &b->v[b->n];
    st->id = id;
    st->n = n;
    for (int i = 0; i < n; i++) {
        st->off[i] = PG_NULL;
        if (vals[i] && batch_text(b, vals[i], &st->off[i]) < 0)
            return -1;
    }
    b->n++;
    return 0;
}

static int nomem(struct brock_engine *e)
{
    return brock__fail(e, BROCK_ENOMEM, "out of memory");
}

static int journal_add(struct brock_engine *e, const char *kind, const char *name)
{
    struct brock__pg *p = e->store;
    char origin[24];
    const char *v[3] = {kind, name, origin};

    snprintf(origin, sizeof(origin), "%" PRId64, p->origin);
    return run(p, PG_JOURNAL_ADD, 3, v);
}

/* Without a store thread, a connection the server or the network closed is opened again at
 * the next sync, its statements prepared again, and everything the journal holds since the
 * last row read is caught up (a notification sent meanwhile was lost with the connection). */
static int pg_ready(struct brock_engine *e)
{
    struct brock__pg *p = e->store;

    if (brock__pq->PQstatus(p->conn) == CONNECTION_OK)
        return 0;
    brock__pq->PQreset(p->conn);
    if (brock__pq->PQstatus(p->conn) != CONNECTION_OK) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        return brock__pg_fail(e, "connect again to", "the database");
    }
    if (brock__pg_session(p, 1) < 0)
        return brock__pg_fail(e, "prepare the statements for", "brock's tables");
    p->notified = 1;
    brock__store_note_event(e, "connected to %s again", p->where);
    return 0;
}

/* ---- the walk's writes: statements added to the batch ---- */

/* The learned tables are emptied before the batch's statements (batch_write()). */
static int put_reset(struct brock_engine *e)
{
    struct brock__pg *p = e->store;

    p->batch->reset = 1;
    return 0;
}

/* Only the columns marked dirty overwrite an existing row (the last three parameters). */
static int put_action(struct brock_engine *e, const struct action_entry *a)
{
    char next[24];
    const char *v[8];

    snprintf(next, sizeof(next), "%" PRId64, a->next_update);
    v[0] = a->domain;
    v[1] = brock__user_name(a->user);
    v[2] = brock__store_heur_text(a->heur);
    v[3] = a->dnt ? "1" : "0";
    v[4] = next;
    v[5] = a->dirty & BROCK__DIRTY_USER ? "t" : "f";
    v[6] = a->dirty & BROCK__DIRTY_HEUR ? "t" : "f";
    v[7] = a->dirty & BROCK__DIRTY_DNT ? "t" : "f";
    return run(e->store, PG_ACTION_PUT, 8, v);
}

static int put_action_del(struct brock_engine *e, const char *domain)
{
    return run(e->store, PG_ACTION_DEL, 1, &domain);
}

/* Its result is not waited for: the row may be new. */
static int put_snitch(struct brock_engine *e, const char *tracker, const struct snitch_site *ss,
                      const char *detail)
{
    char kind[8], when[24];
    const char *v[6] = {tracker, ss->site, ss->host, detail, kind, when};

    snprintf(kind, sizeof(kind), "%d", ss->kind);
    snprintf(when, sizeof(when), "%" PRId64, ss->time_ms);
    return run(e->store, PG_SNITCH_PUT, 6, v) < 0 ? -1 : 1;
}

static int put_snitch_del(struct brock_engine *e, const char *tracker)
{
    return run(e->store, PG_SNITCH_DEL, 1, &tracker);
}

static int put_tracking_del(struct brock_engine *e, const char *tracker)
{
    return run(e->store, PG_TRACKING_DEL, 1, &tracker);
}

static int put_tracking(struct brock_engine *e, const char *tracker, const char *site,
                        unsigned kinds)
{
    char k[16];
    const char *v[3] = {tracker, site, k};

    snprintf(k, sizeof(k), "%u", kinds);
    return run(e->store, PG_TRACKING_PUT, 3, v);
}

static int put_fp(struct brock_engine *e, const char *host, const char *path)
{
    const char *v[2] = {host, path};

    return run(e->store, PG_FP_PUT, 2, v);
}

static int put_site_action(struct brock_engine *e, const char *site, const char *domain,
                           const char *user)
{
    const char *v[3] = {site, domain, user};

    return run(e->store, user ? PG_SITE_ACTION_PUT : PG_SITE_ACTION_DEL, user ? 3 : 2, v);
}

static int put_settings_clear(struct brock_engine *e)
{
    return run(e->store, PG_SETTING_CLEAR, 0, NULL);
}

static int put_setting(struct brock_engine *e, const char *key, const char *json_text)
{
    const char *v[2] = {key, json_text};

    return run(e->store, PG_SETTING_PUT, 2, v);
}

static int put_meta(struct brock_engine *e, const char *key, const char *value)
{
    const char *v[2] = {key, value};

    return run(e->store, PG_META_PUT, 2, v);
}

static int put_page(struct brock_engine *e, const char *client, const char *site, const char *host,
                    const char *action, int64_t count, int64_t time_ms)
{
    char n[24], when[24];
    int c = *client != '\0'; /* a client's: its name is $1, the rest one further */
    const char *v[6] = {client, site, host, action, n, when};
    int id = !c     ? (host ? PG_PAGE_PUT : PG_PAGE_DEL_SITE)
             : host ? PG_CLIENT_PAGE_PUT
             : site ? PG_CLIENT_PAGE_DEL_SITE
                    : PG_CLIENT_PAGE_DEL;

    snprintf(n, sizeof(n), "%" PRId64, count);
    snprintf(when, sizeof(when), "%" PRId64, time_ms);
    return run(e->store, id, c + (host ? 5 : site ? 1 : 0), v + !c);
}

static int put_day(struct brock_engine *e, const char *client, int64_t day, const char *site,
                   const uint64_t add[BROCK__DAILY_COUNT])
{
    char d[24], n[BROCK__DAILY_COUNT][24];
    int c = *client != '\0';
    _Static_assert(3 + BROCK__DAILY_COUNT <= PG_MAX_PARAMS, "a client's day row fits a statement");
    const char *v[3 + BROCK__DAILY_COUNT] = {client, d, site};
    int id =
        c ? (site ? PG_CLIENT_DAY_ADD : PG_CLIENT_DAY_FORGET) : (site ? PG_DAY_ADD : PG_DAY_FORGET);

    snprintf(d, sizeof(d), "%" PRId64, day);
    for (int i = 0; site && i < BROCK__DAILY_COUNT; i++) {
        snprintf(n[i], sizeof(n[i]), "%" PRIu64, add[i]);
        v[3 + i] = n[i];
    }
    return run(e->store, id, c + (site ? 2 + BROCK__DAILY_COUNT : 1), v + !c);
}

/* A write here only adds to the batch: what can fail is memory. The server's failures come
 * when the batch is written (batch_write()). */
static int put_fail(struct brock_engine *e, const char *what, const char *name)
{
    (void)what;
    (void)name;
    return nomem(e);
}

/* No views: an instance reads the page views and daily counts at its start, and only their
 * forgetting is journaled, at the journal's end (flush_journal_end()). No 'seeded' record:
 * a database is never written anew under an open connection, as SQLite's file can be, so the
 * time is the one of the write that records it. */
const struct brock__store_walk_ops brock__pg_walk = {
    .reset = put_reset,
    .journal = journal_add,
    .action = put_action,
    .action_del = put_action_del,
    .snitch = put_snitch,
    .snitch_del = put_snitch_del,
    .tracking_del = put_tracking_del,
    .tracking = put_tracking,
    .fp = put_fp,
    .site_action = put_site_action,
    .settings_clear = put_settings_clear,
    .setting = put_setting,
    .meta = put_meta,
    .page = put_page,
    .day = put_day,
    .views = NULL,
    .seeded = NULL,
    .fail = put_fail,
    .rows = brock__pg_rows,
};

/* ---- writing ---- */

/* After the walk: 'pages' when page views were forgotten, the journal trimmed, and the
 * notification the other instances wait for. */
static int flush_journal_end(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    const char *keep = JOURNAL_KEEP;
    char origin[24];
    const char *v[1] = {origin};

    snprintf(origin, sizeof(origin), "%" PRId64, p->origin);
    if ((brock__pages_forgot(e) && journal_add(e, "pages", "") < 0) ||
        (brock__views_clients_forgot(e) && journal_add(e, "clients", "") < 0) ||
        run(p, PG_JOURNAL_TRIM, 1, &keep) < 0 || run(p, PG_NOTIFY, 1, v) < 0)
        return nomem(e);
    return 0;
}

int brock__pg_batch_make(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    int rc;

    brock__pg_batch_free(p->batch);
    if (!(p->batch = mem_calloc(1, sizeof(*p->batch))))
        return nomem(e);
    p->batch->made_ms = clock_now_ms();
    if ((rc = brock__store_walk_write(e, &brock__pg_walk)) < 0 || (rc = flush_journal_end(e)) < 0) {
        brock__pg_batch_free(p->batch);
        p->batch = NULL;
    }
    return rc;
}

/* Sends b's statement st: pipelined, or alone under a savepoint (each), where a statement the
 * server refuses for good is undone and counted in *refused, the first refusal's words kept
 * in first. 0 or -1. */
static int batch_stmt(struct brock__pg *p, const struct brock__pg_batch *b,
                      const struct brock__pg_stmt *st, int each, uint64_t *refused, char *first)
{
    const char *v[PG_MAX_PARAMS];
    PGresult *r;

    for (int k = 0; k < st->n; k++)
        v[k] = st->off[k] == PG_NULL ? NULL : b->text + st->off[k];
    if (!each)
        return pipe_send(p, st->id, st->n, v);
    if (brock__pg_exec(p, "SAVEPOINT brock_one") < 0)
        return -1;
    if ((r = brock__pg_run(p, st->id, st->n, v)) != NULL) {
        brock__pq->PQclear(r);
        return 0;
    }
    if (!brock__pg_refused_for_good(p) || brock__pg_exec(p, "ROLLBACK TO SAVEPOINT brock_one") < 0)
        return -1;
    if (!(*refused)++)
        memcpy(first, p->pgerr, sizeof(p->pgerr));
    return 0;
}

/* On any failure the transaction is rolled back: the batch is written whole (less, with each,
 * the statements refused for good) or not at all, and stays to be written again. The lock
 * orders writers, and so the journal's numbers. */
static int batch_write(struct brock__pg *p, const struct brock__pg_batch *b, pthread_mutex_t *lock,
                       int each, uint64_t *refused)
{
    int64_t min = 0, before = 0, after = 0;
    char first[sizeof(p->pgerr)] = "";
    PGresult *r;

    *refused = 0;
    if (brock__pg_exec(p, "BEGIN") < 0 || !(r = brock__pg_run(p, PG_WRITE_LOCK, 0, NULL)))
        goto fail;
    brock__pq->PQclear(r);
    if (brock__pg_journal_range(p, &min, &before) < 0 ||
        (b->reset && brock__pg_exec(p, reset_sql) < 0) || (!each && pipe_begin(p) < 0))
        goto fail;
    for (size_t i = 0; i < b->n; i++)
        if (batch_stmt(p, b, &b->v[i], each, refused, first) < 0)
            goto fail;
    if (pipe_end(p) < 0 || brock__pg_journal_range(p, &min, &after) < 0 ||
        brock__pg_exec(p, "COMMIT") < 0)
        goto fail;
    /* With no one else's rows in between, the journal is read up to our own last row. */
    if (lock)
        pthread_mutex_lock(lock);
    if (before == p->last_seq)
        p->last_seq = after;
    if (lock)
        pthread_mutex_unlock(lock);
    /* What the caller says of it is the first refusal, not the savepoints' last words. */
    if (*refused)
        memcpy(p->pgerr, first, sizeof(first));
    return 0;
fail:
    (void)pipe_end(p);
    p->pipe_failed = 0;
    brock__pg_rollback(p);
    return -1;
}

int brock__pg_batch_exec(struct brock__pg *p, const struct brock__pg_batch *b,
                         pthread_mutex_t *lock)
{
    uint64_t refused;

    return batch_write(p, b, lock, 0, &refused);
}

int brock__pg_batch_exec_each(struct brock__pg *p, const struct brock__pg_batch *b,
                              pthread_mutex_t *lock, uint64_t *refused)
{
    return batch_write(p, b, lock, 1, refused);
}

/* Without a store thread: the batch is written now, and the marks cleared once it is in. */
static int flush_now(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    int rc;

    if ((rc = pg_ready(e)) < 0 || (rc = brock__pg_batch_make(e)) < 0)
        return rc;
    if (brock__pg_batch_exec(p, p->batch, NULL) < 0)
        rc = brock__pg_fail(e, "write", "the state");
    brock__pg_batch_free(p->batch);
    p->batch = NULL;
    if (rc < 0)
        return rc;
    brock__store_marks_clear(e);
    e->health.last_write_ms = clock_now_ms();
    return 0;
}

int brock__pg_flush(struct brock_engine *e)
{
    struct brock__pg *p = e->store;

    if (!brock__store_unsaved(e))
        return 0;
    return p->bg ? brock__pg_bg_flush(e) : flush_now(e);
}

/* ---- reading what others wrote (any thread) ---- */

void brock__pg_news_free(struct brock__pg_news *news)
{
    if (!news)
        return;
    for (size_t i = 0; i < news->n; i++) {
        mem_free(news->v[i].name);
        brock__pq->PQclear(news->v[i].r);
    }
    mem_free(news->v);
    mem_free(news);
}

/* Runs statement id (one parameter, or none) and keeps its result as an item of news. 0, or
 * -1 with p->pgerr saying why. */
static int news_add(struct brock__pg *p, struct brock__pg_news *news, int kind, int id,
                    const char *name, int drop)
{
    struct brock__pg_news_item *it;

    if (news->n == news->cap) {
        size_t cap = news->cap ? news->cap * 2 : 16;
        struct brock__pg_news_item *v = mem_realloc(news->v, cap * sizeof(*v));

        if (!v) {
            brock__pg_note_err(p, "out of memory");
            return -1;
        }
        news->v = v;
        news->cap = cap;
    }
    it = &news->v[news->n];
    memset(it, 0, sizeof(*it));
    it->kind = kind;
    it->drop = drop;
    if (name && !(it->name = mem_strdup(name))) {
        brock__pg_note_err(p, "out of memory");
        return -1;
    }
    if (!(it->r = brock__pg_run(p, id, name ? 1 : 0, name ? &name : NULL))) {
        mem_free(it->name);
        return -1;
    }
    news->n++;
    return 0;
}

/* Everything, for a reader whose journal rows were trimmed before it read them, or after a
 * reset (drop: memory's written snitch sites go first). */
static int news_everything(struct brock__pg *p, struct brock__pg_news *news, int drop)
{
    return news_add(p, news, PG_NEWS_ACTIONS, PG_ACTION_ALL, NULL, drop) < 0 ||
                   news_add(p, news, PG_NEWS_SNITCHES, PG_SNITCH_ALL, NULL, 0) < 0 ||
                   news_add(p, news, PG_NEWS_SETTINGS, PG_SETTING_ALL, NULL, 0) < 0 ||
                   news_add(p, news, PG_NEWS_SITE_ACTIONS, PG_SITE_ACTION_ALL, NULL, 0) < 0
               ? -1
               : 0;
}

static int news_one(struct brock__pg *p, struct brock__pg_news *news, const char *kind,
                    const char *name)
{
    if (!strcmp(kind, "action"))
        return news_add(p, news, PG_NEWS_ACTION, PG_ACTION_GET, name, 0);
    if (!strcmp(kind, "snitch"))
        return news_add(p, news, PG_NEWS_SNITCH, PG_SNITCH_GET, name, 0);
    if (!strcmp(kind, "settings"))
        return news_add(p, news, PG_NEWS_SETTINGS, PG_SETTING_ALL, NULL, 0);
    if (!strcmp(kind, "reset"))
        return news_everything(p, news, 1);
    if (!strcmp(kind, "pages"))
        return news_add(p, news, PG_NEWS_PAGES, PG_PAGE_ALL, NULL, 0) < 0 ||
                       news_add(p, news, PG_NEWS_CLIENT_PAGES, PG_CLIENT_PAGE_ALL, NULL, 0) < 0
                   ? -1
                   : 0;
    if (!strcmp(kind, "clients"))
        return news_add(p, news, PG_NEWS_CLIENT_PAGES, PG_CLIENT_PAGE_ALL, NULL, 1) < 0 ||
                       news_add(p, news, PG_NEWS_CLIENT_DAYS, PG_CLIENT_DAY_ALL, NULL, 0) < 0
                   ? -1
                   : 0;
    if (!strcmp(kind, "site_action"))
        return news_add(p, news, PG_NEWS_SITE_ACTIONS, PG_SITE_ACTION_ALL, NULL, 0);
    return 0; /* a kind from a later version: nothing here reads it */
}

/* The journal rows after since that other connections wrote, each name once. */
static int news_journal(struct brock__pg *p, struct brock__pg_news *news, int64_t since)
{
    char after[24];
    const char *v[1] = {after};
    PGresult *r;
    struct strmap seen;
    int rc = 0;

    snprintf(after, sizeof(after), "%" PRId64, since);
    if (!(r = brock__pg_run(p, PG_JOURNAL_SINCE, 1, v)))
        return -1;
    strmap_init(&seen);
    for (int i = 0, rows = brock__pq->PQntuples(r); i < rows && rc == 0; i++) {
        const char *kind = brock__pq->PQgetvalue(r, i, 0), *name = brock__pq->PQgetvalue(r, i, 1);
        char key[BROCK_HOST_MAX + 16];

        if (brock__pg_int(r, i, 2) == p->origin ||
            snprintf(key, sizeof(key), "%s %s", kind, name) >= (int)sizeof(key) ||
            strmap_get(&seen, key))
            continue;
        if (strmap_put(&seen, key, (void *)1) < 0) {
            brock__pg_note_err(p, "out of memory");
            rc = -1;
        } else {
            rc = news_one(p, news, kind, name);
        }
    }
    strmap_cleanup(&seen, NULL);
    brock__pq->PQclear(r);
    return rc;
}

struct brock__pg_news *brock__pg_news_read(struct brock__pg *p, int64_t since)
{
    struct brock__pg_news *news = mem_calloc(1, sizeof(*news));
    int64_t min = 0;

    if (!news) {
        brock__pg_note_err(p, "out of memory");
        return NULL;
    }
    /* One snapshot: the journal's end and the rows read agree. */
    if (brock__pg_exec(p, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0 ||
        brock__pg_journal_range(p, &min, &news->max) < 0)
        goto fail;
    if (news->max > since &&
        (min > since + 1 ? news_everything(p, news, 0) : news_journal(p, news, since)) < 0)
        goto fail;
    if (brock__pg_exec(p, "COMMIT") < 0)
        goto fail;
    return news;
fail:
    brock__pg_rollback(p);
    brock__pg_news_free(news);
    return NULL;
}

int brock__pg_take_notifications(struct brock__pg *p)
{
    PGnotify *nt;
    char mine[24];
    int others = 0;

    snprintf(mine, sizeof(mine), "%" PRId64, p->origin);
    if (brock__pq->PQconsumeInput(p->conn) != 1 || brock__pq->PQstatus(p->conn) != CONNECTION_OK) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        return -1;
    }
    while ((nt = brock__pq->PQnotifies(p->conn)) != NULL) {
        if (strcmp(nt->extra, mine) != 0)
            others = 1;
        brock__pq->PQfreemem(nt);
    }
    return others;
}

/* ---- applying it (the engine's thread) ---- */

static int apply_action(struct brock_engine *e, const char *domain, const PGresult *r)
{
    struct brock__pg_row row;
    int rc;

    if (brock__pq->PQntuples(r) == 0)
        return brock__store_action_gone(e, domain);
    brock__pg_row_init(&row, r, 0);
    rc = brock__store_row_action(e, domain, &row.r, 0);
    return rc < 0 ? nomem(e) : rc;
}

/* Appends the sites others added to the snitch lists (r: every row), local ones staying.
 * Returns how many were added. */
static int apply_all_snitches(struct brock_engine *e, const PGresult *r)
{
    struct brock__pg_row row;
    int added = 0;

    for (int i = 0, n = brock__pq->PQntuples(r); i < n; i++) {
        int rc;

        brock__pg_row_init(&row, r, i);
        rc = brock__store_row_snitch(e, brock__pq->PQgetvalue(r, i, 0), &row.r, 1, 1);
        if (rc < 0)
            return nomem(e);
        added += rc;
    }
    return added;
}

/* Sites another instance saw may bring tracker to the threshold, which neither instance
 * reached alone: it is blocked then as learning here would have blocked it (on the base; the
 * instance that saw a subdomain writes that one). */
static int settle_tracker(struct brock_engine *e, const char *tracker)
{
    const struct snitch *sn = brock__snitch_get(e, tracker);
    enum brock_action a;

    if (!e->learn || !sn || sn->n < e->threshold)
        return 0;
    a = brock__best_action(e, tracker, NULL);
    if (a != BROCK_NOACTION && a != BROCK_ALLOW)
        return 0;
    return brock__blocklist_domain(e, tracker, tracker) < 0
               ? brock__fail(e, BROCK_ENOMEM, "out of memory while learning")
               : 0;
}

static int apply_snitch(struct brock_engine *e, const char *tracker, const PGresult *r)
{
    struct brock__pg_row row;
    int added = 0, rc = 0;

    for (int i = 0, n = brock__pq->PQntuples(r); i < n && added >= 0; i++) {
        brock__pg_row_init(&row, r, i);
        rc = brock__store_row_snitch(e, tracker, &row.r, 0, 1);
        added = rc < 0 ? nomem(e) : added + rc;
    }
    if (added > 0 && (rc = settle_tracker(e, tracker)) < 0)
        return rc;
    return added < 0 ? added : added > 0;
}

/* Every action row: memory's entries that the database no longer has go. */
static int apply_all_actions(struct brock_engine *e, const PGresult *r)
{
    struct brock__pg_row row;
    struct strmap seen;
    const char *name;
    void *val;
    size_t it = 0;
    int n = 0, rc = 0;

    strmap_init(&seen);
    for (int i = 0, rows = brock__pq->PQntuples(r); i < rows && rc >= 0; i++) {
        brock__pg_row_init(&row, r, i);
        rc = brock__store_row_action(e, brock__pq->PQgetvalue(r, i, 0), &row.r, 1);
        if (rc >= 0 && strmap_put(&seen, brock__pq->PQgetvalue(r, i, 0), (void *)1) < 0)
            rc = BROCK_ENOMEM;
        n += rc > 0;
    }
    while (rc >= 0 && strmap_next(&e->actions, &it, &name, &val)) {
        if (strmap_get(&seen, name))
            continue;
        /* Deleting the current key while walking is allowed (strmap.h). */
        n += brock__store_action_gone(e, name);
    }
    strmap_cleanup(&seen, NULL);
    return rc < 0 ? nomem(e) : n;
}

/* brock__store_settings_reload()'s reader: the result being applied (p->applying). */
static int settings_from_news(struct brock_engine *e)
{
    return brock__store_read_settings(e, &brock__pg_walk);
}

/* A whole table read comes in through the walk's steps, which take its rows from the result
 * (p->applying) rather than from the database. */
static int apply_item(struct brock_engine *e, const struct brock__pg_news_item *it)
{
    struct brock__pg *p = e->store;
    int rc;

    p->applying = it->r;
    switch (it->kind) {
    case PG_NEWS_ACTION: rc = apply_action(e, it->name, it->r); break;
    case PG_NEWS_SNITCH: rc = apply_snitch(e, it->name, it->r); break;
    case PG_NEWS_SETTINGS: rc = brock__store_settings_reload(e, settings_from_news); break;
    case PG_NEWS_PAGES:
        brock__pages_drop_clean(e);
        rc = brock__store_read_table(e, &brock__pg_walk, BROCK__TABLE_PAGE);
        rc = rc < 0 ? rc : 1;
        break;
    case PG_NEWS_CLIENT_PAGES:
        if (it->drop)
            brock__views_clients_drop_clean(e);
        rc = brock__store_read_table(e, &brock__pg_walk, BROCK__TABLE_CLIENT_PAGE);
        rc = rc < 0 ? rc : 1;
        break;
    case PG_NEWS_CLIENT_DAYS:
        rc = brock__store_read_table(e, &brock__pg_walk, BROCK__TABLE_CLIENT_DAY);
        rc = rc < 0 ? rc : 1;
        break;
    case PG_NEWS_ACTIONS:
        if (it->drop)
            brock__store_snitches_drop_clean(e);
        rc = apply_all_actions(e, it->r);
        break;
    case PG_NEWS_SNITCHES: rc = apply_all_snitches(e, it->r); break;
    case PG_NEWS_SITE_ACTIONS: rc = brock__store_read_site_actions(e, &brock__pg_walk); break;
    default: rc = 0;
    }
    p->applying = NULL;
    return rc;
}

int brock__pg_news_apply(struct brock_engine *e, const struct brock__pg_news *news)
{
    int n = 0;

    for (size_t i = 0; i < news->n && n >= 0; i++) {
        int rc = apply_item(e, &news->v[i]);

        n = rc < 0 ? rc : n + rc;
    }
    return n;
}

int brock__pg_poll(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    struct brock__pg_news *news;
    int n;

    if (p->bg)
        return brock__pg_bg_poll(e);
    if ((n = pg_ready(e)) < 0)
        return n;
    /* A connection found closed here is opened again at the next sync. */
    if (brock__pg_take_notifications(p) > 0)
        p->notified = 1;
    if (!p->notified)
        return 0;
    if (!(news = brock__pg_news_read(p, p->last_seq)))
        return brock__pg_fail(e, "read", "the journal");
    n = brock__pg_news_apply(e, news);
    if (n >= 0) {
        p->last_seq = news->max;
        p->notified = 0;
    }
    brock__pg_news_free(news);
    return n;
}
