/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading the SQLite state into the engine's maps: every table when the engine opens, and the
 * rows that store_poll.c rereads after another process changed them, through store_rows.c,
 * where what memory changed and has not written yet wins over what is read.
 */
#include "engine/store.h"

#include <string.h>

/* ---- rows of statements into the maps (store_rows.c applies them) ---- */

/* Column i as text, or NULL for NULL. */
static const char *text_or_null(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

int brock__sqlite_action_apply(struct brock_engine *e, const char *domain, sqlite3_stmt *st,
                               int col)
{
    return brock__store_action_apply(
        e, domain, brock__store_column_text(st, col), brock__store_column_text(st, col + 1),
        sqlite3_column_int64(st, col + 2) != 0, sqlite3_column_int64(st, col + 3));
}

int brock__sqlite_snitch_apply(struct brock_engine *e, const char *tracker, sqlite3_stmt *st,
                               int col, int check)
{
    return brock__store_snitch_apply(e, tracker, brock__store_column_text(st, col),
                                     text_or_null(st, col + 1), text_or_null(st, col + 2),
                                     sqlite3_column_int(st, col + 3),
                                     sqlite3_column_int64(st, col + 4), check);
}

static int tracking_apply(struct brock_engine *e, sqlite3_stmt *st)
{
    return brock__store_tracking_load(e, brock__store_column_text(st, 0),
                                      brock__store_column_text(st, 1),
                                      (unsigned)sqlite3_column_int(st, 2));
}

static int fp_apply(struct brock_engine *e, sqlite3_stmt *st)
{
    return brock__store_fp_load(e, brock__store_column_text(st, 0),
                                brock__store_column_text(st, 1));
}

int brock__store_settings_read(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SETTING_ALL];
    int rc;

    if (!e->settings && !(e->settings = json_object()))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    /* Even a read that fails half-way may have changed disabledSites. */
    brock__answers_forget(e);
    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        int r = brock__store_setting_apply(e, s->path, brock__store_column_text(st, 0),
                                           brock__store_column_text(st, 1));

        if (r < 0) {
            sqlite3_reset(st);
            return r;
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : brock__store_fail(e, "read the settings", NULL);
}

/* ---- loading ---- */

static int load_action(struct brock_engine *e, sqlite3_stmt *st)
{
    return brock__sqlite_action_apply(e, brock__store_column_text(st, 0), st, 1);
}

static int load_page(struct brock_engine *e, sqlite3_stmt *st)
{
    return brock__pages_load(e, brock__store_column_text(st, 0), brock__store_column_text(st, 1),
                             brock__store_column_text(st, 2), sqlite3_column_int64(st, 3),
                             sqlite3_column_int64(st, 4));
}

static int load_day(struct brock_engine *e, sqlite3_stmt *st)
{
    int64_t n[BROCK__DAILY_COUNT];

    for (int i = 0; i < BROCK__DAILY_COUNT; i++)
        n[i] = sqlite3_column_int64(st, 2 + i);
    return brock__daily_load(e, sqlite3_column_int64(st, 0), brock__store_column_text(st, 1), n);
}

static int load_snitch(struct brock_engine *e, sqlite3_stmt *st)
{
    /* The primary key keeps sites unique: no need to search the list. */
    return brock__sqlite_snitch_apply(e, brock__store_column_text(st, 0), st, 1, 0);
}

/* Applies every row of statement idx; what names the table in errors. */
static int load_rows(struct brock_engine *e, int idx, const char *what,
                     int (*apply)(struct brock_engine *e, sqlite3_stmt *st))
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[idx];
    int rc;

    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        if (apply(e, st) < 0) {
            sqlite3_reset(st);
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : brock__store_fail(e, "read", what);
}

int brock__store_pages_read(struct brock_engine *e)
{
    return load_rows(e, ST_PAGE_ALL, "the page views", load_page);
}

int brock__store_daily_read(struct brock_engine *e)
{
    return load_rows(e, ST_DAY_ALL, "the daily counters", load_day);
}

static int site_action_row(struct brock_engine *e, sqlite3_stmt *st)
{
    int rc =
        brock__site_action_apply(e, brock__store_column_text(st, 0),
                                 brock__store_column_text(st, 1), brock__store_column_text(st, 2));

    return rc < 0 ? rc : 0;
}

int brock__store_site_actions_read(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SITE_ACTION_ALL];
    int rc, r, n = 0;

    brock__site_actions_reload_begin(e);
    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        if ((r = brock__site_action_apply(e, brock__store_column_text(st, 0),
                                          brock__store_column_text(st, 1),
                                          brock__store_column_text(st, 2))) < 0) {
            sqlite3_reset(st);
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        }
        n += r;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return brock__store_fail(e, "read", "the choices for one site");
    return n + brock__site_actions_reload_end(e);
}

int brock__sqlite_load(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t dv = 0, min = 0, max = 0;
    int rc;

    if (!s)
        return 0;
    /* Read before the snapshot starts: a commit in between is then seen again by the next
     * poll, which finds nothing new; read after, it could be missed. */
    if (brock__store_query_int(s, s->st[ST_DATA_VERSION], 0, &dv) != 0 ||
        brock__store_run(s, s->st[ST_BEGIN_READ]) != 0)
        return brock__store_fail(e, "read", "the state");
    if ((rc = load_rows(e, ST_ACTION_ALL, "the actions", load_action)) < 0 ||
        (rc = load_rows(e, ST_SNITCH_ALL, "the snitch map", load_snitch)) < 0 ||
        (rc = load_rows(e, ST_TRACKING_ALL, "the tracking map", tracking_apply)) < 0 ||
        (rc = load_rows(e, ST_FP_ALL, "the fingerprinting scripts", fp_apply)) < 0 ||
        (rc = load_rows(e, ST_SITE_ACTION_ALL, "the choices for one site", site_action_row)) < 0 ||
        (rc = brock__store_pages_read(e)) < 0 || (rc = brock__store_daily_read(e)) < 0 ||
        (rc = brock__store_settings_read(e)) < 0)
        goto fail;
    if (brock__store_journal_range(s, &min, &max) != 0 ||
        brock__store_run(s, s->st[ST_COMMIT]) != 0) {
        rc = brock__store_fail(e, "read", "the journal");
        goto fail;
    }
    s->data_version = dv;
    s->last_seq = max;
    brock__settings_changed(e);
    return 0;
fail:
    brock__store_exec(s, "ROLLBACK");
    return rc;
}
