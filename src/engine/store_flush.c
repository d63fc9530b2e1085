/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Writing what changed in memory to the state in one transaction at brock_sync(), with a
 * journal row per name written so that other processes reread only those (store_poll.c).
 */
#include "engine/store.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"

#define JOURNAL_KEEP 10000

/* A reset to the seed empties what was learned; memory is then written back whole. */
static const char reset_sql[] =
    "DELETE FROM action; DELETE FROM snitch; DELETE FROM tracking; DELETE FROM fp_script;";

static int journal_add(struct brock__store *s, const char *kind, const char *name)
{
    sqlite3_stmt *st = s->st[ST_JOURNAL_ADD];

    brock__store_bind_text(st, 1, kind);
    brock__store_bind_text(st, 2, name);
    sqlite3_bind_int64(st, 3, s->origin);
    return brock__store_run(s, st);
}

/* After brock_reset(): the learned tables are emptied and everything memory holds is
 * written back, so that nothing reset survives in the state. */
static int flush_reset(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    if (!e->reset_pending)
        return 0;
    if (brock__store_exec(s, reset_sql) != SQLITE_OK || journal_add(s, "reset", "") != 0)
        return brock__store_fail(e, "reset", "the state");
    brock__store_mark_rows(e);
    return 0;
}

static int page_put(void *arg, const char *site, const char *host, const char *action,
                    int64_t count, int64_t time_ms)
{
    struct brock_engine *e = arg;
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[host ? ST_PAGE_PUT : ST_PAGE_DEL_SITE];

    s->wrote_pages++;

    brock__store_bind_text(st, 1, site);
    if (host) {
        brock__store_bind_text(st, 2, host);
        brock__store_bind_text(st, 3, action);
        sqlite3_bind_int64(st, 4, count);
        sqlite3_bind_int64(st, 5, time_ms);
    }
    return brock__store_run(s, st) != 0 ? brock__store_fail(e, "write the page views of", site) : 0;
}

/* Adds a row's new counts to the store's, or (site NULL) deletes the days before day. */
static int day_put(void *arg, int64_t day, const char *site, const uint64_t add[BROCK__DAILY_COUNT])
{
    struct brock_engine *e = arg;
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[site ? ST_DAY_ADD : ST_DAY_FORGET];

    s->wrote_days++;

    sqlite3_bind_int64(st, 1, day);
    if (site) {
        brock__store_bind_text(st, 2, site);
        for (int i = 0; i < BROCK__DAILY_COUNT; i++)
            sqlite3_bind_int64(st, 3 + i, (int64_t)add[i]);
    }
    return brock__store_run(s, st) != 0 ? brock__store_fail(e, "write", "the daily counters") : 0;
}

/* One choice for one site: written, or (user NULL) deleted. */
static int site_action_put(void *arg, const char *site, const char *domain, const char *user)
{
    struct brock_engine *e = arg;
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[user ? ST_SITE_ACTION_PUT : ST_SITE_ACTION_DEL];

    brock__store_bind_text(st, 1, site);
    brock__store_bind_text(st, 2, domain);
    if (user)
        brock__store_bind_text(st, 3, user);
    return brock__store_run(s, st) != 0 ? brock__store_fail(e, "write the choice on", site) : 0;
}

/* The choices for one site, with one journal row for all: readers read the table again. */
static int flush_site_actions(struct brock_engine *e)
{
    int n = brock__site_actions_flush(e, site_action_put, e);

    if (n > 0 && journal_add(e->store, "site_action", "") != 0)
        return brock__store_fail(e, "write", "the journal");
    return n < 0 ? n : 0;
}

/* Page views were written or forgotten, daily counts added: other processes read them again
 * ('pages' or 'daily', name ''), so that every worker of one `brock run` (and any other proxy
 * on the state) shows them all. */
static int journal_views(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    if (((s->wrote_pages || brock__pages_forgot(e)) && journal_add(s, "pages", "") != 0) ||
        (s->wrote_days && journal_add(s, "daily", "") != 0))
        return brock__store_fail(e, "write", "the journal");
    return 0;
}

static int flush_deleted(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_DEL];

    for (size_t i = 0; i < e->deleted.n; i++) {
        brock__store_bind_text(st, 1, e->deleted.v[i]);
        if (brock__store_run(s, st) != 0 || journal_add(s, "action", e->deleted.v[i]) != 0)
            return brock__store_fail(e, "delete the action of", e->deleted.v[i]);
    }
    return 0;
}

/* The learned trackers forgotten to stay within the cap (bound.c): their sites and tracking
 * kinds go, before what memory learned since is written. Other processes keep what they hold
 * of them until their own cap lets it go. */
static int flush_forgotten(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    for (size_t i = 0; i < e->forgotten.n; i++) {
        brock__store_bind_text(s->st[ST_SNITCH_DEL], 1, e->forgotten.v[i]);
        brock__store_bind_text(s->st[ST_TRACKING_DEL], 1, e->forgotten.v[i]);
        if (brock__store_run(s, s->st[ST_SNITCH_DEL]) != 0 ||
            brock__store_run(s, s->st[ST_TRACKING_DEL]) != 0)
            return brock__store_fail(e, "forget the learned tracker", e->forgotten.v[i]);
    }
    return 0;
}

static int flush_actions(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_PUT];
    const char *name;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->actions, &it, &name, &val)) {
        struct action_entry *a = val;

        if (!a->dirty)
            continue;
        brock__store_bind_text(st, 1, a->domain);
        brock__store_bind_text(st, 2, brock__user_name(a->user));
        brock__store_bind_text(st, 3, brock__store_heur_text(a->heur));
        sqlite3_bind_int(st, 4, a->dnt != 0);
        sqlite3_bind_int64(st, 5, a->next_update);
        sqlite3_bind_int(st, 6, (a->dirty & BROCK__DIRTY_USER) != 0);
        sqlite3_bind_int(st, 7, (a->dirty & BROCK__DIRTY_HEUR) != 0);
        sqlite3_bind_int(st, 8, (a->dirty & BROCK__DIRTY_DNT) != 0);
        if (brock__store_run(s, st) != 0 || journal_add(s, "action", a->domain) != 0)
            return brock__store_fail(e, "write the action of", a->domain);
    }
    return 0;
}

/* The detail column: store_rows.c words it. */
static int bind_detail(sqlite3_stmt *st, int i, const struct snitch_site *ss)
{
    int nomem;
    char *text = brock__store_detail_text(ss, &nomem);

    if (nomem)
        return BROCK_ENOMEM;
    if (!text)
        return sqlite3_bind_null(st, i) == SQLITE_OK ? 0 : BROCK_ENOMEM;
    return sqlite3_bind_text(st, i, text, -1, mem_funcs.free_fn) == SQLITE_OK ? 0 : BROCK_ENOMEM;
}

static int flush_snitches(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SNITCH_PUT];
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->snitches, &it, &tracker, &val)) {
        struct snitch *sn = val;
        int grew = 0;

        for (size_t i = 0; i < sn->n; i++) {
            const struct snitch_site *ss = &sn->v[i];

            if (!ss->dirty)
                continue;
            brock__store_bind_text(st, 1, tracker);
            brock__store_bind_text(st, 2, ss->site);
            brock__store_bind_text(st, 3, ss->host);
            if (bind_detail(st, 4, ss) < 0)
                return brock__fail(e, BROCK_ENOMEM, "out of memory");
            sqlite3_bind_int(st, 5, ss->kind);
            sqlite3_bind_int64(st, 6, ss->time_ms);
            if (brock__store_run(s, st) != 0)
                return brock__store_fail(e, "write the snitch map of", tracker);
            grew |= sqlite3_changes(s->db) > 0;
        }
        if (grew && journal_add(s, "snitch", tracker) != 0)
            return brock__store_fail(e, "write the snitch map of", tracker);
    }
    return 0;
}

static int flush_tracking(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_TRACKING_PUT];
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->tracking, &it, &tracker, &val)) {
        struct tracking *t = val;

        for (size_t i = 0; i < t->n; i++) {
            if (!t->v[i].dirty)
                continue;
            brock__store_bind_text(st, 1, tracker);
            brock__store_bind_text(st, 2, t->v[i].site);
            sqlite3_bind_int64(st, 3, t->v[i].kinds);
            if (brock__store_run(s, st) != 0)
                return brock__store_fail(e, "write the tracking map of", tracker);
        }
    }
    return 0;
}

static int flush_fp(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_FP_PUT];
    const char *host;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->fp_scripts, &it, &host, &val)) {
        struct fp_host *f = val;

        for (size_t i = 0; f->dirty && i < f->n; i++) {
            brock__store_bind_text(st, 1, host);
            brock__store_bind_text(st, 2, f->paths[i]);
            if (brock__store_run(s, st) != 0)
                return brock__store_fail(e, "write the fingerprinting scripts of", host);
        }
    }
    return 0;
}

/* The settings object is written whole: memory has no per-key marks. */
static int flush_settings(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SETTING_PUT];
    json_free_t json_free_fn = NULL;
    const char *key;
    json_t *v;

    if (!e->settings_dirty || !e->settings)
        return 0;
    json_get_alloc_funcs(NULL, &json_free_fn);
    if (brock__store_run(s, s->st[ST_SETTING_CLEAR]) != 0)
        return brock__store_fail(e, "write", "the settings");
    json_object_foreach(e->settings, key, v) {
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc;

        if (!text)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        brock__store_bind_text(st, 1, key);
        brock__store_bind_text(st, 2, text);
        rc = brock__store_run(s, st);
        json_free_fn(text);
        if (rc != 0)
            return brock__store_fail(e, "write the setting", key);
    }
    if (journal_add(s, "settings", "") != 0)
        return brock__store_fail(e, "write", "the settings");
    return 0;
}

/* 'seeded' is when the seed was loaded (Unix ms), or "none" for a state made without it. A
 * state written anew (its file was deleted) keeps the time it had. */
static int flush_seeded(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_META_PUT];
    char when[32] = "none";

    if (e->seed_mark == BROCK__SEED_KEPT)
        return 0;
    if (e->seed_mark == BROCK__SEED_LOADED && s->seeded[0] && strcmp(s->seeded, "none") != 0)
        snprintf(when, sizeof(when), "%s", s->seeded);
    else if (e->seed_mark == BROCK__SEED_LOADED)
        snprintf(when, sizeof(when), "%lld", (long long)clock_now_ms());
    brock__store_bind_text(st, 1, "seeded");
    brock__store_bind_text(st, 2, when);
    if (brock__store_run(s, st) != 0)
        return brock__store_fail(e, "record", "whether the state is seeded");
    memcpy(s->seeded, when, sizeof(s->seeded));
    return 0;
}

/* Every write gives the database its instance name (once) and a generation one higher, into
 * *gen: what tells a copy put back over the file from the file others wrote (store_watch.c). */
static int flush_identity(struct brock_engine *e, int64_t *gen)
{
    static const char hex[] = "0123456789abcdef";
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_INSTANCE_PUT];
    unsigned char r[16];
    char name[2 * sizeof(r) + 1];
    int rc;

    /* A name for a database that has none yet; another process may give it one first. */
    sqlite3_randomness(sizeof(r), r);
    for (size_t i = 0; i < sizeof(r); i++) {
        name[2 * i] = hex[r[i] >> 4];
        name[2 * i + 1] = hex[r[i] & 15];
    }
    name[2 * sizeof(r)] = '\0';
    brock__store_bind_text(st, 1, name);
    if (brock__store_run(s, st) != 0)
        return brock__store_fail(e, "write", "the state's instance name");
    st = s->st[ST_META_GET];
    brock__store_bind_text(st, 1, "instance");
    rc = brock__store_step(s, st);
    if (rc == SQLITE_ROW)
        snprintf(s->instance, sizeof(s->instance), "%s", brock__store_column_text(st, 0));
    sqlite3_reset(st);
    if (rc != SQLITE_ROW)
        return brock__store_fail(e, "read", "the state's instance name");
    st = s->st[ST_GENERATION_BUMP];
    rc = brock__store_step(s, st);
    if (rc == SQLITE_ROW)
        *gen = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW)
        return brock__store_fail(e, "write", "the state's generation");
    return 0;
}

/* After a commit: the pages go into brock.db itself when no reader holds them back, so that
 * the file on disk is the whole state and its generation is known (store_watch.c compares it
 * with a copy put back over it). A checkpoint that fails loses nothing: the -wal holds it. */
static void after_commit(struct brock_engine *e, int64_t gen)
{
    struct brock__store *s = e->store;
    int log = -1, done = -2;

    s->committed = 1;
    e->health.last_write_ms = clock_now_ms();
    if (sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done) ==
            SQLITE_OK &&
        log == done)
        s->file_gen = gen;
    brock__store_note_files(s);
}

static int meta_put(struct brock_engine *e, const char *key, const char *value)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_META_PUT];

    brock__store_bind_text(st, 1, key);
    brock__store_bind_text(st, 2, value);
    if (brock__store_run(s, st) != 0)
        return brock__store_fail(e, "write the state's meta data", key);
    return 0;
}

static int flush_pbconfig(struct brock_engine *e)
{
    char when[32];
    int rc = 0;

    if (!e->pbconfig_dirty)
        return 0;
    snprintf(when, sizeof(when), "%lld", (long long)e->pbconfig_time);
    if (e->pbconfig && ((rc = meta_put(e, "pbconfig", e->pbconfig)) < 0 ||
                        (rc = meta_put(e, "pbconfig_time", when)) < 0))
        return rc;
    if (e->yellow_applied)
        rc = meta_put(e, "yellowlist", e->yellow_applied);
    return rc;
}

int brock__sqlite_meta_get(struct brock_engine *e, const char *key, char **out)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_META_GET];
    int rc;

    *out = NULL;
    brock__store_bind_text(st, 1, key);
    rc = brock__store_step(s, st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *out = mem_strdup(brock__store_column_text(st, 0));
        sqlite3_reset(st);
        return *out ? 0 : brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return brock__store_fail(e, "read the state's meta data", key);
    return 0;
}

int brock__sqlite_flush(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t min = 0, before = 0, after = 0, gen = 0;
    int rc;

    if (!s || (!e->dirty && !e->deleted.n && !e->forgotten.n && !e->settings_dirty &&
               !e->pbconfig_dirty && !e->reset_pending && !e->seed_mark))
        return 0;
    if (s->readonly)
        return brock__fail(e, BROCK_ESTORE, "%s", e->readonly_why);
    s->sqlerr[0] = s->doing[0] = '\0';
    s->wrote_pages = s->wrote_days = 0;
    /* On any failure below the transaction is rolled back and no mark is cleared: the
     * database stays as the last commit left it and the whole batch is written next time. */
    if (brock__store_run(s, s->st[ST_BEGIN_WRITE]) != 0) {
        rc = brock__store_fail(e, "start writing", "the state");
        goto fail;
    }
    if (brock__store_journal_range(s, &min, &before) != 0) {
        rc = brock__store_fail(e, "read", "the journal");
        goto fail;
    }
    /* Deletions first: a name deleted and then set again since the last flush is set. */
    if ((rc = flush_reset(e)) < 0 || (rc = flush_deleted(e)) < 0 || (rc = flush_forgotten(e)) < 0 ||
        (rc = flush_actions(e)) < 0 || (rc = flush_snitches(e)) < 0 ||
        (rc = flush_tracking(e)) < 0 || (rc = flush_fp(e)) < 0 ||
        (rc = flush_site_actions(e)) < 0 || (rc = flush_settings(e)) < 0 ||
        (rc = flush_pbconfig(e)) < 0 || (rc = brock__pages_flush(e, page_put, e)) < 0 ||
        (rc = brock__daily_flush(e, day_put, e)) < 0 || (rc = journal_views(e)) < 0 ||
        (rc = flush_seeded(e)) < 0 || (rc = flush_identity(e, &gen)) < 0)
        goto fail;
    sqlite3_bind_int(s->st[ST_JOURNAL_TRIM], 1, JOURNAL_KEEP);
    if (brock__store_run(s, s->st[ST_JOURNAL_TRIM]) != 0 ||
        brock__store_journal_range(s, &min, &after) != 0) {
        rc = brock__store_fail(e, "write", "the journal");
        goto fail;
    }
    if (brock__store_run(s, s->st[ST_COMMIT]) != 0) {
        rc = brock__store_fail(e, "commit changes to", "the state");
        goto fail;
    }
    brock__store_marks_clear(e);
    /* With no one else's rows in between, the journal is read up to our own last row. */
    if (before == s->last_seq)
        s->last_seq = after;
    after_commit(e, gen);
    return 0;
fail:
    /* One sentence naming the file and SQLite's (and the system's) words for the cause. */
    if (rc == BROCK_ESTORE && s->sqlerr[0])
        brock__fail(e, rc, "writing the state to %s failed: %s (trying to %s)", s->path, s->sqlerr,
                    s->doing);
    if (!sqlite3_get_autocommit(s->db))
        brock__store_exec(s, "ROLLBACK");
    return rc;
}
