/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Writing what changed in memory to the state in one transaction at brock_sync(), with a
 * journal row per name written so that other processes reread only those (store_poll.c). The
 * walk over memory's marks is store_walk.c's; here are the statements it runs for each kind of
 * row, and the transaction around them.
 */
#include "store/store.h"

#include <stdio.h>

#include "util/alloc.h"
#include "util/clock.h"

#define JOURNAL_KEEP 10000

/* A reset to the seed empties what was learned; memory is then written back whole. */
static const char reset_sql[] =
    "DELETE FROM action; DELETE FROM snitch; DELETE FROM tracking; DELETE FROM fp_script;";

/* ---- the walk's writes: one statement each ---- */

/* Runs st, its parameters bound. 0, or -1 with SQLite's words kept for brock__store_fail(). */
static int run(struct brock_engine *e, sqlite3_stmt *st)
{
    return brock__store_run(e->store, st) != 0 ? -1 : 0;
}

static sqlite3_stmt *stmt(struct brock_engine *e, int id)
{
    struct brock__store *s = e->store;

    return s->st[id];
}

static int put_reset(struct brock_engine *e)
{
    return brock__store_exec(e->store, reset_sql) != SQLITE_OK ? -1 : 0;
}

static int journal_add(struct brock_engine *e, const char *kind, const char *name)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_JOURNAL_ADD];

    brock__store_bind_text(st, 1, kind);
    brock__store_bind_text(st, 2, name);
    sqlite3_bind_int64(st, 3, s->origin);
    return run(e, st);
}

/* Only the columns marked dirty overwrite an existing row (?6..?8). */
static int put_action(struct brock_engine *e, const struct action_entry *a)
{
    sqlite3_stmt *st = stmt(e, ST_ACTION_PUT);

    brock__store_bind_text(st, 1, a->domain);
    brock__store_bind_text(st, 2, brock__user_name(a->user));
    brock__store_bind_text(st, 3, brock__store_heur_text(a->heur));
    sqlite3_bind_int(st, 4, a->dnt != 0);
    sqlite3_bind_int64(st, 5, a->next_update);
    sqlite3_bind_int(st, 6, (a->dirty & BROCK__DIRTY_USER) != 0);
    sqlite3_bind_int(st, 7, (a->dirty & BROCK__DIRTY_HEUR) != 0);
    sqlite3_bind_int(st, 8, (a->dirty & BROCK__DIRTY_DNT) != 0);
    return run(e, st);
}

/* Runs statement id with one text parameter. */
static int run_one(struct brock_engine *e, int id, const char *v)
{
    sqlite3_stmt *st = stmt(e, id);

    brock__store_bind_text(st, 1, v);
    return run(e, st);
}

static int put_action_del(struct brock_engine *e, const char *domain)
{
    return run_one(e, ST_ACTION_DEL, domain);
}

/* INSERT OR IGNORE: the row is new when it changed the table. */
static int put_snitch(struct brock_engine *e, const char *tracker, const struct snitch_site *ss,
                      const char *detail)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SNITCH_PUT];

    brock__store_bind_text(st, 1, tracker);
    brock__store_bind_text(st, 2, ss->site);
    brock__store_bind_text(st, 3, ss->host);
    brock__store_bind_text(st, 4, detail);
    sqlite3_bind_int(st, 5, ss->kind);
    sqlite3_bind_int64(st, 6, ss->time_ms);
    if (run(e, st) < 0)
        return -1;
    return sqlite3_changes(s->db) > 0;
}

static int put_snitch_del(struct brock_engine *e, const char *tracker)
{
    return run_one(e, ST_SNITCH_DEL, tracker);
}

static int put_tracking_del(struct brock_engine *e, const char *tracker)
{
    return run_one(e, ST_TRACKING_DEL, tracker);
}

static int put_tracking(struct brock_engine *e, const char *tracker, const char *site,
                        unsigned kinds)
{
    sqlite3_stmt *st = stmt(e, ST_TRACKING_PUT);

    brock__store_bind_text(st, 1, tracker);
    brock__store_bind_text(st, 2, site);
    sqlite3_bind_int64(st, 3, kinds);
    return run(e, st);
}

/* Runs statement id with two text parameters. */
static int run_two(struct brock_engine *e, int id, const char *a, const char *b)
{
    sqlite3_stmt *st = stmt(e, id);

    brock__store_bind_text(st, 1, a);
    brock__store_bind_text(st, 2, b);
    return run(e, st);
}

static int put_fp(struct brock_engine *e, const char *host, const char *path)
{
    return run_two(e, ST_FP_PUT, host, path);
}

static int put_site_action(struct brock_engine *e, const char *site, const char *domain,
                           const char *user)
{
    sqlite3_stmt *st = stmt(e, user ? ST_SITE_ACTION_PUT : ST_SITE_ACTION_DEL);

    brock__store_bind_text(st, 1, site);
    brock__store_bind_text(st, 2, domain);
    if (user)
        brock__store_bind_text(st, 3, user);
    return run(e, st);
}

static int put_settings_clear(struct brock_engine *e)
{
    return run(e, stmt(e, ST_SETTING_CLEAR));
}

static int put_setting(struct brock_engine *e, const char *key, const char *json_text)
{
    return run_two(e, ST_SETTING_PUT, key, json_text);
}

static int put_meta(struct brock_engine *e, const char *key, const char *value)
{
    return run_two(e, ST_META_PUT, key, value);
}

static int put_page(struct brock_engine *e, const char *client, const char *site, const char *host,
                    const char *action, int64_t count, int64_t time_ms)
{
    int c = *client != '\0'; /* a client's: its name is ?1, the rest one further */
    sqlite3_stmt *st = stmt(e, !c     ? (host ? ST_PAGE_PUT : ST_PAGE_DEL_SITE)
                               : host ? ST_CLIENT_PAGE_PUT
                               : site ? ST_CLIENT_PAGE_DEL_SITE
                                      : ST_CLIENT_PAGE_DEL);

    if (c)
        brock__store_bind_text(st, 1, client);
    if (site)
        brock__store_bind_text(st, 1 + c, site);
    if (host) {
        brock__store_bind_text(st, 2 + c, host);
        brock__store_bind_text(st, 3 + c, action);
        sqlite3_bind_int64(st, 4 + c, count);
        sqlite3_bind_int64(st, 5 + c, time_ms);
    }
    return run(e, st);
}

static int put_day(struct brock_engine *e, const char *client, int64_t day, const char *site,
                   const uint64_t add[BROCK__DAILY_COUNT])
{
    int c = *client != '\0';
    sqlite3_stmt *st = stmt(e, c ? (site ? ST_CLIENT_DAY_ADD : ST_CLIENT_DAY_FORGET)
                                 : (site ? ST_DAY_ADD : ST_DAY_FORGET));

    if (c)
        brock__store_bind_text(st, 1, client);
    sqlite3_bind_int64(st, 1 + c, day);
    if (site) {
        brock__store_bind_text(st, 2 + c, site);
        for (int i = 0; i < BROCK__DAILY_COUNT; i++)
            sqlite3_bind_int64(st, 3 + c + i, (int64_t)add[i]);
    }
    return run(e, st);
}

/* Page views written or forgotten, daily counts added: the other processes on the file read
 * them again ('pages' or 'daily', name ''), so that every worker of one `brock run` (and any
 * other proxy on the state) shows them all. PostgreSQL has no such write: its instances read
 * the views at their start and are told only of their forgetting (store_pg_sync.c). */
static int put_views(struct brock_engine *e, unsigned pages, unsigned days)
{
    if ((pages || brock__pages_forgot(e)) && journal_add(e, "pages", "") < 0)
        return -1;
    if (brock__views_clients_forgot(e) && journal_add(e, "clients", "") < 0)
        return -1;
    return days ? journal_add(e, "daily", "") : 0;
}

/* The file's record of 'seeded': a file deleted under brock and written anew keeps the time
 * it had (store_watch.c). */
static char *seeded(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    _Static_assert(sizeof(s->seeded) == BROCK__SEEDED_MAX, "the size the walk writes");
    return s->seeded;
}

const struct brock__store_walk_ops brock__sqlite_walk = {
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
    .views = put_views,
    .seeded = seeded,
    .fail = brock__store_fail,
    .rows = brock__sqlite_rows,
};

/* ---- the transaction ---- */

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

    if (!s || !brock__store_unsaved(e))
        return 0;
    if (s->readonly)
        return brock__fail(e, BROCK_ESTORE, "%s", e->readonly_why);
    s->sqlerr[0] = s->doing[0] = '\0';
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
    if ((rc = brock__store_walk_write(e, &brock__sqlite_walk)) < 0 ||
        (rc = flush_identity(e, &gen)) < 0)
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
