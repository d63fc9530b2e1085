/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PostgreSQL store at brock_sync(): what memory marked is written in one transaction with
 * a journal row per name and a notification to the other instances; what they wrote is picked
 * up when one of their notifications has arrived, from the journal rows after the last one
 * read, or from everything when the journal no longer reaches back that far.
 */
#include "engine/store_pg.h"

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
    if (PQpipelineSync(p->conn) != 1) {
        brock__pg_note_err(p, PQerrorMessage(p->conn));
        p->pipe_failed = 1;
        return -1;
    }
    for (;;) {
        PGresult *r = PQgetResult(p->conn);
        ExecStatusType st;

        if (!r) {
            if (PQstatus(p->conn) != CONNECTION_OK) {
                brock__pg_note_err(p, PQerrorMessage(p->conn));
                p->pipe_failed = 1;
                return -1;
            }
            continue; /* the end of one statement's results */
        }
        st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_PIPELINE_SYNC &&
            st != PGRES_PIPELINE_ABORTED && !p->pipe_failed) {
            brock__pg_note_err(p, PQresultErrorMessage(r));
            p->pipe_failed = 1;
        }
        PQclear(r);
        if (st == PGRES_PIPELINE_SYNC)
            break;
    }
    p->queued = 0;
    return 0;
}

/* Every statement from here to pipe_end() is sent without waiting for its result. */
static int pipe_begin(struct brock__pg *p)
{
    if (PQenterPipelineMode(p->conn) != 1) {
        brock__pg_note_err(p, PQerrorMessage(p->conn));
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
    if (PQexitPipelineMode(p->conn) != 1 && !p->pipe_failed) {
        brock__pg_note_err(p, PQerrorMessage(p->conn));
        p->pipe_failed = 1;
    }
    p->pipelined = 0;
    return p->pipe_failed ? -1 : 0;
}

/* Runs a statement whose result the caller does not need: in pipeline mode, sends it. 0 or
 * -1. */
static int run(struct brock__pg *p, int id, int n, const char *const *vals)
{
    char name[32];
    PGresult *r;

    if (!p->pipelined) {
        r = brock__pg_run(p, id, n, vals);
        PQclear(r);
        return r ? 0 : -1;
    }
    if (p->pipe_failed)
        return -1;
    snprintf(name, sizeof(name), "brock_%d", id);
    if (PQsendQueryPrepared(p->conn, name, n, vals, NULL, NULL, 0) != 1) {
        brock__pg_note_err(p, PQerrorMessage(p->conn));
        p->pipe_failed = 1;
        return -1;
    }
    return ++p->queued >= PIPE_BATCH && pipe_drain(p) < 0 ? -1 : 0;
}

static int journal_add(struct brock__pg *p, const char *kind, const char *name)
{
    char origin[24];
    const char *v[3] = {kind, name, origin};

    snprintf(origin, sizeof(origin), "%" PRId64, p->origin);
    return run(p, PG_JOURNAL_ADD, 3, v);
}

/* A connection the server or the network closed is opened again, its statements prepared
 * again, and everything the journal holds since the last row read is caught up (a
 * notification sent meanwhile was lost with the connection). */
static int pg_ready(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    int rc;

    if (PQstatus(p->conn) == CONNECTION_OK)
        return 0;
    PQreset(p->conn);
    if (PQstatus(p->conn) != CONNECTION_OK) {
        brock__pg_note_err(p, PQerrorMessage(p->conn));
        return brock__pg_fail(e, "connect again to", "the database");
    }
    if ((rc = brock__pg_session(e)) < 0)
        return rc;
    p->notified = 1;
    brock__store_note_event(e, "connected to %s again", p->where);
    return 0;
}

/* ---- writing ---- */

static int flush_reset(struct brock_engine *e)
{
    struct brock__pg *p = e->store;

    if (!e->reset_pending)
        return 0;
    if (brock__pg_exec(p, reset_sql) < 0 || journal_add(p, "reset", "") < 0)
        return brock__pg_fail(e, "reset", "the state");
    brock__store_mark_rows(e);
    return 0;
}

static int flush_deleted(struct brock_engine *e)
{
    struct brock__pg *p = e->store;

    for (size_t i = 0; i < e->deleted.n; i++) {
        const char *v[1] = {e->deleted.v[i]};

        if (run(p, PG_ACTION_DEL, 1, v) < 0 || journal_add(p, "action", e->deleted.v[i]) < 0)
            return brock__pg_fail(e, "delete the action of", e->deleted.v[i]);
    }
    return 0;
}

static int flush_actions(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    const char *name;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->actions, &it, &name, &val)) {
        const struct action_entry *a = val;
        char next[24];
        const char *v[8];

        if (!a->dirty)
            continue;
        snprintf(next, sizeof(next), "%" PRId64, a->next_update);
        v[0] = a->domain;
        v[1] = brock__user_name(a->user);
        v[2] = brock__store_heur_text(a->heur);
        v[3] = a->dnt ? "1" : "0";
        v[4] = next;
        v[5] = a->dirty & BROCK__DIRTY_USER ? "t" : "f";
        v[6] = a->dirty & BROCK__DIRTY_HEUR ? "t" : "f";
        v[7] = a->dirty & BROCK__DIRTY_DNT ? "t" : "f";
        if (run(p, PG_ACTION_PUT, 8, v) < 0 || journal_add(p, "action", a->domain) < 0)
            return brock__pg_fail(e, "write the action of", a->domain);
    }
    return 0;
}

/* Writes one snitch site (a site another instance recorded first keeps its row). 0 or < 0. */
static int snitch_put(struct brock_engine *e, const char *tracker, const struct snitch_site *ss)
{
    char kind[8], when[24];
    const char *v[6] = {tracker, ss->site, ss->host, NULL, kind, when};
    int nomem, rc;
    char *detail = brock__store_detail_text(ss, &nomem);

    if (nomem)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    snprintf(kind, sizeof(kind), "%d", ss->kind);
    snprintf(when, sizeof(when), "%" PRId64, ss->time_ms);
    v[3] = detail;
    rc = run(e->store, PG_SNITCH_PUT, 6, v);
    mem_free(detail);
    return rc < 0 ? brock__pg_fail(e, "write the snitch map of", tracker) : 0;
}

static int flush_snitches(struct brock_engine *e)
{
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->snitches, &it, &tracker, &val)) {
        const struct snitch *sn = val;
        int wrote = 0;

        for (size_t i = 0; i < sn->n; i++) {
            int r;

            if (!sn->v[i].dirty)
                continue;
            if ((r = snitch_put(e, tracker, &sn->v[i])) < 0)
                return r;
            wrote = 1;
        }
        /* Journaled whether or not the rows were new (their results are not waited for):
         * a reader then finds nothing new, at the cost of one read. */
        if (wrote && journal_add(e->store, "snitch", tracker) < 0)
            return brock__pg_fail(e, "write the snitch map of", tracker);
    }
    return 0;
}

static int flush_tracking(struct brock_engine *e)
{
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->tracking, &it, &tracker, &val)) {
        const struct tracking *t = val;

        for (size_t i = 0; i < t->n; i++) {
            char kinds[16];
            const char *v[3] = {tracker, t->v[i].site, kinds};

            if (!t->v[i].dirty)
                continue;
            snprintf(kinds, sizeof(kinds), "%u", t->v[i].kinds);
            if (run(e->store, PG_TRACKING_PUT, 3, v) < 0)
                return brock__pg_fail(e, "write the tracking map of", tracker);
        }
    }
    return 0;
}

static int flush_fp(struct brock_engine *e)
{
    const char *host;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->fp_scripts, &it, &host, &val)) {
        const struct fp_host *f = val;

        for (size_t i = 0; f->dirty && i < f->n; i++) {
            const char *v[2] = {host, f->paths[i]};

            if (run(e->store, PG_FP_PUT, 2, v) < 0)
                return brock__pg_fail(e, "write the fingerprinting scripts of", host);
        }
    }
    return 0;
}

/* The settings object is written whole: memory has no per-key marks. */
static int flush_settings(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    json_free_t json_free_fn = NULL;
    const char *key;
    json_t *val;

    if (!e->settings_dirty || !e->settings)
        return 0;
    json_get_alloc_funcs(NULL, &json_free_fn);
    if (run(p, PG_SETTING_CLEAR, 0, NULL) < 0)
        return brock__pg_fail(e, "write", "the settings");
    json_object_foreach (e->settings, key, val) {
        char *text = json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT);
        const char *v[2] = {key, text};
        int rc;

        if (!text)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        rc = run(p, PG_SETTING_PUT, 2, v);
        json_free_fn(text);
        if (rc < 0)
            return brock__pg_fail(e, "write the setting", key);
    }
    if (journal_add(p, "settings", "") < 0)
        return brock__pg_fail(e, "write", "the settings");
    return 0;
}

static int meta_put(struct brock_engine *e, const char *key, const char *value)
{
    const char *v[2] = {key, value};

    if (run(e->store, PG_META_PUT, 2, v) < 0)
        return brock__pg_fail(e, "write the state's meta data", key);
    return 0;
}

static int flush_pbconfig(struct brock_engine *e)
{
    char when[32];
    int rc = 0;

    if (!e->pbconfig_dirty)
        return 0;
    snprintf(when, sizeof(when), "%" PRId64, e->pbconfig_time);
    if (e->pbconfig && ((rc = meta_put(e, "pbconfig", e->pbconfig)) < 0 ||
                        (rc = meta_put(e, "pbconfig_time", when)) < 0))
        return rc;
    if (e->yellow_applied)
        rc = meta_put(e, "yellowlist", e->yellow_applied);
    return rc;
}

/* 'seeded' is when the seed was loaded (Unix ms), or "none" for a state made without it. */
static int flush_seeded(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    char when[32] = "none";
    int rc;

    if (e->seed_mark == BROCK__SEED_KEPT)
        return 0;
    if (e->seed_mark == BROCK__SEED_LOADED)
        snprintf(when, sizeof(when), "%" PRId64, clock_now_ms());
    if ((rc = meta_put(e, "seeded", when)) < 0)
        return rc;
    memcpy(p->seeded, when, sizeof(p->seeded));
    return 0;
}

static int page_put(void *arg, const char *site, const char *host, const char *action,
                    int64_t count, int64_t time_ms)
{
    struct brock_engine *e = arg;
    char n[24], when[24];
    const char *v[5] = {site, host, action, n, when};

    snprintf(n, sizeof(n), "%" PRId64, count);
    snprintf(when, sizeof(when), "%" PRId64, time_ms);
    if (run(e->store, host ? PG_PAGE_PUT : PG_PAGE_DEL_SITE, host ? 5 : 1, v) < 0)
        return brock__pg_fail(e, "write the page views of", site);
    return 0;
}

/* Adds a row's new counts to the database's, or (site NULL) deletes the days before day. */
static int day_put(void *arg, int64_t day, const char *site,
                   const uint64_t add[BROCK__DAILY_COUNT])
{
    struct brock_engine *e = arg;
    char d[24], n[BROCK__DAILY_COUNT][24];
    const char *v[2 + BROCK__DAILY_COUNT] = {d, site};

    snprintf(d, sizeof(d), "%" PRId64, day);
    for (int i = 0; site && i < BROCK__DAILY_COUNT; i++) {
        snprintf(n[i], sizeof(n[i]), "%" PRIu64, add[i]);
        v[2 + i] = n[i];
    }
    if (run(e->store, site ? PG_DAY_ADD : PG_DAY_FORGET, site ? 2 + BROCK__DAILY_COUNT : 1, v) <
        0)
        return brock__pg_fail(e, "write", "the daily counters");
    return 0;
}

/* One choice for one site: written, or (user NULL) deleted. */
static int site_action_put(void *arg, const char *site, const char *domain, const char *user)
{
    struct brock_engine *e = arg;
    const char *v[3] = {site, domain, user};

    if (run(e->store, user ? PG_SITE_ACTION_PUT : PG_SITE_ACTION_DEL, user ? 3 : 2, v) < 0)
        return brock__pg_fail(e, "write the choice on", site);
    return 0;
}

/* The choices for one site, with one journal row for all: readers read the table again. */
static int flush_site_actions(struct brock_engine *e)
{
    int n = brock__site_actions_flush(e, site_action_put, e);

    if (n > 0 && journal_add(e->store, "site_action", "") < 0)
        return brock__pg_fail(e, "write", "the journal");
    return n < 0 ? n : 0;
}

/* The journal trimmed, and the notification the other instances wait for. */
static int flush_journal_end(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    const char *keep = JOURNAL_KEEP;
    char origin[24];
    const char *v[1] = {origin};

    snprintf(origin, sizeof(origin), "%" PRId64, p->origin);
    if ((brock__pages_forgot(e) && journal_add(p, "pages", "") < 0) ||
        run(p, PG_JOURNAL_TRIM, 1, &keep) < 0 || run(p, PG_NOTIFY, 1, v) < 0)
        return brock__pg_fail(e, "write", "the journal");
    return 0;
}

/* Sends every marked change; their results are read by pipe_end(). */
static int flush_marked(struct brock_engine *e)
{
    int rc;

    if (pipe_begin(e->store) < 0)
        return brock__pg_fail(e, "start writing", "the state");
    /* Deletions first: a name deleted and then set again since the last flush is set. */
    if ((rc = flush_deleted(e)) < 0 || (rc = flush_actions(e)) < 0 ||
        (rc = flush_snitches(e)) < 0 || (rc = flush_tracking(e)) < 0 || (rc = flush_fp(e)) < 0 ||
        (rc = flush_site_actions(e)) < 0 || (rc = flush_settings(e)) < 0 ||
        (rc = flush_pbconfig(e)) < 0 || (rc = brock__pages_flush(e, page_put, e)) < 0 ||
        (rc = brock__daily_flush(e, day_put, e)) < 0 || (rc = flush_seeded(e)) < 0 ||
        (rc = flush_journal_end(e)) < 0)
        return rc;
    return 0;
}

int brock__pg_flush(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    int64_t min = 0, before = 0, after = 0;
    int rc;

    if (!e->dirty && !e->deleted.n && !e->settings_dirty && !e->pbconfig_dirty &&
        !e->reset_pending && !e->seed_mark)
        return 0;
    if ((rc = pg_ready(e)) < 0)
        return rc;
    /* On any failure the transaction is rolled back and no mark is cleared: the whole batch
     * is written next time. The lock orders writers, and so the journal's numbers. */
    if (brock__pg_exec(p, "BEGIN") < 0 || run(p, PG_WRITE_LOCK, 0, NULL) < 0 ||
        brock__pg_journal_range(p, &min, &before) < 0) {
        rc = brock__pg_fail(e, "start writing", "the state");
        goto fail;
    }
    if ((rc = flush_reset(e)) < 0 || (rc = flush_marked(e)) < 0)
        goto fail;
    if (pipe_end(p) < 0) {
        rc = brock__pg_fail(e, "write", "the state");
        goto fail;
    }
    if (brock__pg_journal_range(p, &min, &after) < 0 || brock__pg_exec(p, "COMMIT") < 0) {
        rc = brock__pg_fail(e, "commit changes to", "the state");
        goto fail;
    }
    brock__store_marks_clear(e);
    /* With no one else's rows in between, the journal is read up to our own last row. */
    if (before == p->last_seq)
        p->last_seq = after;
    e->health.last_write_ms = clock_now_ms();
    return 0;
fail:
    /* A statement that failed in the pipeline is the cause, whichever call noticed it. */
    if (pipe_end(p) < 0 || p->pipe_failed)
        rc = brock__pg_fail(e, "write", "the state");
    p->pipe_failed = 0;
    brock__pg_rollback(p);
    return rc;
}

/* ---- picking up what others wrote ---- */

/* Rereads domain's row: a vanished row deletes an entry with nothing unwritten. */
static int reload_action(struct brock_engine *e, const char *domain)
{
    PGresult *r = brock__pg_run(e->store, PG_ACTION_GET, 1, &domain);
    int rc;

    if (!r)
        return brock__pg_fail(e, "read the action of", domain);
    if (PQntuples(r) == 0) {
        PQclear(r);
        return brock__store_action_gone(e, domain);
    }
    rc = brock__store_action_apply(e, domain, PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1),
                                   brock__pg_int(r, 0, 2) != 0, brock__pg_int(r, 0, 3));
    PQclear(r);
    return rc < 0 ? brock__fail(e, rc, "out of memory") : rc;
}

/* Appends the sites others added to the snitch lists (r: every row), local ones staying.
 * Returns how many were added. */
static int apply_all_snitches(struct brock_engine *e, const PGresult *r)
{
    int added = 0;

    for (int i = 0, n = PQntuples(r); i < n; i++) {
        int rc = brock__store_snitch_apply(e, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1),
                                           brock__pg_text_or_null(r, i, 2),
                                           brock__pg_text_or_null(r, i, 3),
                                           (int)brock__pg_int(r, i, 4), brock__pg_int(r, i, 5), 1);

        if (rc < 0)
            return brock__fail(e, rc, "out of memory");
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

static int reload_snitch(struct brock_engine *e, const char *tracker)
{
    PGresult *r = brock__pg_run(e->store, PG_SNITCH_GET, 1, &tracker);
    int added = 0, rc = 0;

    if (!r)
        return brock__pg_fail(e, "read the snitch map of", tracker);
    for (int i = 0, n = PQntuples(r); i < n && added >= 0; i++) {
        rc = brock__store_snitch_apply(e, tracker, PQgetvalue(r, i, 0),
                                       brock__pg_text_or_null(r, i, 1),
                                       brock__pg_text_or_null(r, i, 2), (int)brock__pg_int(r, i, 3),
                                       brock__pg_int(r, i, 4), 1);

        added = rc < 0 ? brock__fail(e, rc, "out of memory") : added + rc;
    }
    PQclear(r);
    if (added > 0 && (rc = settle_tracker(e, tracker)) < 0)
        return rc;
    return added < 0 ? added : added > 0;
}

/* Reloads everything, for a reader whose journal rows were trimmed before it read them, or
 * after a reset. */
static int resync_all(struct brock_engine *e)
{
    PGresult *r = brock__pg_run(e->store, PG_ACTION_ALL, 0, NULL);
    struct strmap seen;
    const char *name;
    void *val;
    size_t it = 0;
    int n = 0, rc = 0;

    if (!r)
        return brock__pg_fail(e, "read", "the actions");
    strmap_init(&seen);
    for (int i = 0, rows = PQntuples(r); i < rows && rc >= 0; i++) {
        rc = brock__store_action_apply(e, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1),
                                       PQgetvalue(r, i, 2), brock__pg_int(r, i, 3) != 0,
                                       brock__pg_int(r, i, 4));
        if (rc >= 0 && strmap_put(&seen, PQgetvalue(r, i, 0), (void *)1) < 0)
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
    PQclear(r);
    if (rc < 0)
        return brock__fail(e, rc, "out of memory");
    if (!(r = brock__pg_run(e->store, PG_SNITCH_ALL, 0, NULL)))
        return brock__pg_fail(e, "read", "the snitch map");
    rc = apply_all_snitches(e, r);
    PQclear(r);
    if (rc < 0)
        return rc;
    n += rc;
    if ((rc = brock__pg_site_actions_read(e)) < 0)
        return rc;
    n += rc;
    rc = brock__store_settings_reload(e, brock__pg_settings_read);
    return rc < 0 ? rc : n + rc;
}

static int reload_one(struct brock_engine *e, const char *kind, const char *name)
{
    int rc;

    if (!strcmp(kind, "action"))
        return reload_action(e, name);
    if (!strcmp(kind, "snitch"))
        return reload_snitch(e, name);
    if (!strcmp(kind, "settings"))
        return brock__store_settings_reload(e, brock__pg_settings_read);
    if (!strcmp(kind, "reset")) {
        brock__store_snitches_drop_clean(e);
        return resync_all(e);
    }
    if (!strcmp(kind, "pages")) {
        brock__pages_drop_clean(e);
        rc = brock__pg_pages_read(e);
        return rc < 0 ? rc : 1;
    }
    if (!strcmp(kind, "site_action"))
        return brock__pg_site_actions_read(e);
    return 0; /* a kind from a later version: nothing here reads it */
}

/* Applies the journal rows after p->last_seq that other connections wrote, each name once. */
static int journal_apply(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    char since[24];
    const char *v[1] = {since};
    PGresult *r;
    struct strmap seen;
    int n = 0;

    snprintf(since, sizeof(since), "%" PRId64, p->last_seq);
    if (!(r = brock__pg_run(p, PG_JOURNAL_SINCE, 1, v)))
        return brock__pg_fail(e, "read", "the journal");
    strmap_init(&seen);
    for (int i = 0, rows = PQntuples(r); i < rows && n >= 0; i++) {
        const char *kind = PQgetvalue(r, i, 0), *name = PQgetvalue(r, i, 1);
        char key[BROCK_HOST_MAX + 16];
        int rc;

        if (brock__pg_int(r, i, 2) == p->origin ||
            snprintf(key, sizeof(key), "%s %s", kind, name) >= (int)sizeof(key) ||
            strmap_get(&seen, key))
            continue;
        if (strmap_put(&seen, key, (void *)1) < 0)
            rc = brock__fail(e, BROCK_ENOMEM, "out of memory");
        else
            rc = reload_one(e, kind, name);
        n = rc < 0 ? rc : n + rc;
    }
    strmap_cleanup(&seen, NULL);
    PQclear(r);
    return n;
}

/* Whether another instance announced a write since the last look: the notifications that
 * arrived on the connection are read without waiting. */
static void take_notifications(struct brock__pg *p)
{
    PGnotify *nt;
    char mine[24];

    snprintf(mine, sizeof(mine), "%" PRId64, p->origin);
    (void)PQconsumeInput(p->conn);
    while ((nt = PQnotifies(p->conn)) != NULL) {
        if (strcmp(nt->extra, mine) != 0)
            p->notified = 1;
        PQfreemem(nt);
    }
}

int brock__pg_poll(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    int64_t min = 0, max = 0;
    int n;

    if ((n = pg_ready(e)) < 0)
        return n;
    take_notifications(p);
    if (!p->notified)
        return 0;
    if (brock__pg_exec(p, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0 ||
        brock__pg_journal_range(p, &min, &max) < 0) {
        n = brock__pg_fail(e, "read", "the journal");
        goto out;
    }
    if (max > p->last_seq)
        n = min > p->last_seq + 1 ? resync_all(e) : journal_apply(e);
    if (n >= 0 && brock__pg_exec(p, "COMMIT") < 0)
        n = brock__pg_fail(e, "read", "the journal");
out:
    if (n < 0) {
        brock__pg_rollback(p);
        return n;
    }
    p->last_seq = max;
    p->notified = 0;
    return n;
}
