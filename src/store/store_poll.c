/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Picking up what other processes wrote to the state: the journal rows since the last poll,
 * each name reread once, or everything when this process fell behind the journal's end.
 */
#include "store/store.h"

#include <stdio.h>
#include <string.h>

/* Rereads domain's row: a vanished row deletes an entry with nothing unwritten. */
static int reload_action(struct brock_engine *e, const char *domain)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_GET];
    struct brock__sqlite_row row;
    int rc;

    brock__sqlite_row_init(&row, st);
    brock__store_bind_text(st, 1, domain);
    rc = brock__store_step(s, st);
    if (rc == SQLITE_ROW) {
        rc = brock__store_row_action(e, domain, &row.r, 0);
        sqlite3_reset(st);
        return rc < 0 ? brock__fail(e, rc, "out of memory") : rc;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return brock__store_fail(e, "read the action of", domain);
    return brock__store_action_gone(e, domain);
}

/* Appends the sites another process added to tracker's list; local ones stay. */
static int reload_snitch(struct brock_engine *e, const char *tracker)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SNITCH_GET];
    struct brock__sqlite_row row;
    int rc, added = 0;

    brock__sqlite_row_init(&row, st);
    brock__store_bind_text(st, 1, tracker);
    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        int r = brock__store_row_snitch(e, tracker, &row.r, 0, 1);
        if (r < 0) {
            sqlite3_reset(st);
            return brock__fail(e, r, "out of memory");
        }
        added += r;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return brock__store_fail(e, "read the snitch map of", tracker);
    return added > 0;
}

static int resync_all(struct brock_engine *e);

/* Another process forgot page views: memory keeps only what it has not written yet. */
static int reload_pages(struct brock_engine *e)
{
    int rc;

    brock__pages_drop_clean(e);
    if ((rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_PAGE)) < 0)
        return rc;
    rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_CLIENT_PAGE);
    return rc < 0 ? rc : 1;
}

/* Another process forgot clients: what memory holds of the clients' views and counts is read
 * again, less what it has not written yet. */
static int reload_clients(struct brock_engine *e)
{
    int rc;

    brock__views_clients_drop_clean(e);
    if ((rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_CLIENT_PAGE)) < 0)
        return rc;
    rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_CLIENT_DAY);
    return rc < 0 ? rc : 1;
}

/* Another process added to the daily counters: the store's counts under this process's
 * unwritten ones. */
static int reload_daily(struct brock_engine *e)
{
    int rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_DAY);

    if (rc >= 0)
        rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_CLIENT_DAY);
    return rc < 0 ? rc : 1;
}

/* Another process reset the state to the seed: snitch lists with nothing unwritten are
 * dropped and everything is read again. */
static int reload_reset(struct brock_engine *e)
{
    brock__store_snitches_drop_clean(e);
    return resync_all(e);
}

/* Applies the journal rows after s->last_seq that other connections wrote, each name once. */
static int journal_apply(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_JOURNAL_SINCE];
    struct strmap seen;
    int rc, n = 0, err = 0;

    strmap_init(&seen);
    sqlite3_bind_int64(st, 1, s->last_seq);
    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        const char *kind = brock__store_column_text(st, 0), *name = brock__store_column_text(st, 1);
        char key[BROCK_HOST_MAX + 16];
        int r;

        if (sqlite3_column_int64(st, 2) == s->origin)
            continue;
        if (snprintf(key, sizeof(key), "%s %s", kind, name) >= (int)sizeof(key) ||
            strmap_get(&seen, key))
            continue;
        if (strmap_put(&seen, key, (void *)1) < 0) {
            err = brock__fail(e, BROCK_ENOMEM, "out of memory");
            goto out;
        }
        if (!strcmp(kind, "action"))
            r = reload_action(e, name);
        else if (!strcmp(kind, "snitch"))
            r = reload_snitch(e, name);
        else if (!strcmp(kind, "settings"))
            r = brock__store_settings_reload(e, brock__store_settings_read);
        else if (!strcmp(kind, "reset"))
            r = reload_reset(e);
        else if (!strcmp(kind, "pages"))
            r = reload_pages(e);
        else if (!strcmp(kind, "daily"))
            r = reload_daily(e);
        else if (!strcmp(kind, "clients"))
            r = reload_clients(e);
        else if (!strcmp(kind, "site_action"))
            r = brock__store_read_site_actions(e, &brock__sqlite_walk);
        else
            r = 0; /* a kind from a later version: nothing here reads it */
        if (r < 0) {
            err = r;
            goto out;
        }
        n += r;
    }
    if (rc != SQLITE_DONE)
        err = brock__store_fail(e, "read", "the journal");
out:
    sqlite3_reset(st);
    strmap_cleanup(&seen, NULL);
    return err < 0 ? err : n;
}

/* Reloads everything, for a reader whose journal rows were trimmed before it read them. */
static int resync_all(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_ALL];
    struct brock__sqlite_row row;
    const struct snitch *last = NULL;
    const char *name;
    void *val;
    size_t it = 0;
    int rc, r, n = 0;

    brock__sqlite_row_init(&row, st);
    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        if ((r = brock__store_row_action(e, brock__store_column_text(st, 0), &row.r, 1)) < 0)
            goto nomem;
        n += r;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return brock__store_fail(e, "read", "the actions");
    while (strmap_next(&e->actions, &it, &name, &val)) {
        if (((struct action_entry *)val)->dirty)
            continue;
        if ((r = reload_action(e, name)) < 0)
            return r;
        n += r;
    }
    st = s->st[ST_SNITCH_ALL];
    brock__sqlite_row_init(&row, st);
    while ((rc = brock__store_step(s, st)) == SQLITE_ROW) {
        const char *tracker = brock__store_column_text(st, 0);

        if ((r = brock__store_row_snitch(e, tracker, &row.r, 1, 1)) < 0)
            goto nomem;
        if (r > 0 && strmap_get(&e->snitches, tracker) != last) {
            last = strmap_get(&e->snitches, tracker);
            n++;
        }
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return brock__store_fail(e, "read", "the snitch map");
    if ((r = brock__store_read_site_actions(e, &brock__sqlite_walk)) < 0)
        return r;
    n += r;
    if ((r = brock__store_settings_reload(e, brock__store_settings_read)) < 0)
        return r;
    return n + r;
nomem:
    sqlite3_reset(st);
    return brock__fail(e, BROCK_ENOMEM, "out of memory");
}

int brock__sqlite_poll(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t dv = 0, min = 0, max = 0;
    int n = 0;

    if (!s)
        return 0;
    /* The cheap test: data_version moves only when another connection commits. */
    if (brock__store_query_int(s, s->st[ST_DATA_VERSION], 0, &dv) != 0)
        return brock__store_fail(e, "check for changes to", "the state");
    if (dv == s->data_version)
        return 0;
    if (brock__store_run(s, s->st[ST_BEGIN_READ]) != 0 ||
        brock__store_journal_range(s, &min, &max) != 0) {
        n = brock__store_fail(e, "read", "the journal");
        goto out;
    }
    if (max > s->last_seq)
        n = min > s->last_seq + 1 ? resync_all(e) : journal_apply(e);
    if (n >= 0 && brock__store_run(s, s->st[ST_COMMIT]) != 0)
        n = brock__store_fail(e, "read", "the journal");
out:
    if (n < 0) {
        brock__store_exec(s, "ROLLBACK");
        return n;
    }
    s->last_seq = max;
    s->data_version = dv;
    return n;
}
