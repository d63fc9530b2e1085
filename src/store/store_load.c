/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading the SQLite state into the engine's maps: every table when the engine opens, and the
 * rows that store_poll.c rereads after another process changed them. The rows come from the
 * statements here; store_walk.c's steps bring them into memory through store_rows.c, where
 * what memory changed and has not written yet wins over what is read.
 */
#include "store/store.h"

/* ---- rows of statements ---- */

static const char *row_text(const struct brock__store_row *r, int col)
{
    return (const char *)sqlite3_column_text(((const struct brock__sqlite_row *)r)->st, col);
}

static int64_t row_num(const struct brock__store_row *r, int col)
{
    return sqlite3_column_int64(((const struct brock__sqlite_row *)r)->st, col);
}

void brock__sqlite_row_init(struct brock__sqlite_row *row, sqlite3_stmt *st)
{
    row->r.text = row_text;
    row->r.num = row_num;
    row->st = st;
}

int brock__sqlite_rows(struct brock_engine *e, int table, const char *what,
                       int (*apply)(struct brock_engine *e, const struct brock__store_row *r,
                                    void *arg),
                       void *arg)
{
    static const int stmts[BROCK__TABLE_COUNT] = {
        [BROCK__TABLE_ACTION] = ST_ACTION_ALL,
        [BROCK__TABLE_SNITCH] = ST_SNITCH_ALL,
        [BROCK__TABLE_TRACKING] = ST_TRACKING_ALL,
        [BROCK__TABLE_FP] = ST_FP_ALL,
        [BROCK__TABLE_SITE_ACTION] = ST_SITE_ACTION_ALL,
        [BROCK__TABLE_PAGE] = ST_PAGE_ALL,
        [BROCK__TABLE_DAY] = ST_DAY_ALL,
        [BROCK__TABLE_CLIENT_PAGE] = ST_CLIENT_PAGE_ALL,
        [BROCK__TABLE_CLIENT_DAY] = ST_CLIENT_DAY_ALL,
        [BROCK__TABLE_SETTING] = ST_SETTING_ALL,
    };
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[stmts[table]];
    struct brock__sqlite_row row;
    int rc, r;

    brock__sqlite_row_init(&row, st);
    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        if ((r = apply(e, &row.r, arg)) < 0) {
            sqlite3_reset(st);
            return r;
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : brock__store_fail(e, "read", what);
}

int brock__store_settings_read(struct brock_engine *e)
{
    return brock__store_read_settings(e, &brock__sqlite_walk);
}

/* ---- loading ---- */

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
    if ((rc = brock__store_walk_read(e, &brock__sqlite_walk)) < 0)
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
