/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Memory and a database brought together after the file changed under brock (store_watch.c):
 * everything memory holds into a new, empty database; or a database put in the old one's place
 * (a backup restored) merged with memory, the file's choices and settings winning and what
 * brock learned that the file lacks added to it.
 */
#include "store/store.h"

#include <string.h>

#include "util/alloc.h"

void brock__store_mark_all(struct brock_engine *e)
{
    brock__store_mark_rows(e);
    brock__site_actions_mark_all(e);
    brock__settings_touch(e, NULL);
    e->pbconfig_dirty = e->pbconfig || e->yellow_applied;
    e->clearurls_dirty = e->clearurls_text != NULL;
    brock__pages_mark_all(e);
    brock__daily_mark_all(e);
    e->dirty++;
}

/* ---- a restored file ---- */

static int is_blocking(int heur)
{
    return heur == BROCK_BLOCK || heur == BROCK_COOKIEBLOCK;
}

/* An action row of the file: its columns replace memory's, but for the columns memory changed
 * since its last write (newer than any file), and a block learned in memory stays: evidence
 * seen is never unlearned by a restore. */
static int merge_action(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    struct strmap *seen = arg;
    const char *domain = brock__store_row_text(r, 0);
    struct action_entry *a = strmap_get(&e->actions, domain);
    int heur = a ? a->heur : BROCK_NOACTION;
    int rc;

    if (strmap_put(seen, domain, (void *)1) < 0)
        return BROCK_ENOMEM;
    if ((rc = brock__store_row_action(e, domain, r, 1)) < 0)
        return rc;
    a = strmap_get(&e->actions, domain);
    if (a && is_blocking(heur) && !is_blocking(a->heur)) {
        a->heur = (uint8_t)heur;
        a->dirty |= BROCK__DIRTY_HEUR;
    }
    return 0;
}

static int merge_snitch(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__store_row_snitch(e, brock__store_row_text(r, 0), r, 1, 1);
}

static int merge_tracking(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__tracking_add(e, brock__store_row_text(r, 0), brock__store_row_text(r, 1),
                               (unsigned)r->num(r, 2));
}

static int merge_fp(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__fp_add(e, brock__store_row_text(r, 0), brock__store_row_text(r, 1));
}

/* Applies every row of table with apply; what names the table in errors. */
static int merge_rows(struct brock_engine *e, int table, const char *what,
                      int (*apply)(struct brock_engine *e, const struct brock__store_row *r,
                                   void *arg),
                      void *arg)
{
    int rc = brock__sqlite_rows(e, table, what, apply, arg);

    return rc == BROCK_ENOMEM ? brock__fail(e, rc, "out of memory") : rc;
}

/* The file's settings replace memory's, unless memory changed them since its last write. A
 * file without setting rows never had them changed: it has Privacy Badger's defaults. */
static int merge_settings(struct brock_engine *e)
{
    json_t *old = e->settings;
    int rc;

    if (e->settings_dirty)
        return 0;
    if (!(e->settings = brock__settings_default())) {
        e->settings = old;
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    if ((rc = brock__store_settings_read(e)) < 0) {
        json_decref(e->settings);
        e->settings = old;
        return rc;
    }
    json_decref(old);
    return 0;
}

/* Memory's action entries the file does not have: what was learned is written to it; a
 * choice is not, unless made since the last write. The restored file says what the user
 * chose, and stale memory must not bring back a choice the user went back on. */
static void merge_unseen(struct brock_engine *e, const struct strmap *seen)
{
    const char *key;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->actions, &it, &key, &val)) {
        struct action_entry *a = val;

        if (strmap_get(seen, key))
            continue;
        if (!(a->dirty & BROCK__DIRTY_USER))
            a->user = BROCK_NOACTION;
        if (!a->dirty && a->heur == BROCK_NOACTION && !a->dnt && !a->next_update) {
            strmap_del(&e->actions, key);
            mem_free(a);
            continue;
        }
        /* A new row takes every column. */
        a->dirty |= BROCK__DIRTY_USER | BROCK__DIRTY_HEUR | BROCK__DIRTY_DNT;
    }
}

int brock__store_merge(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    struct strmap seen;
    int64_t dv = 0, min = 0, max = 0;
    int rc;

    strmap_init(&seen);
    /* Whatever part of the file comes in, answers kept before may be wrong. */
    brock__answers_forget(e);
    /* Before the file's rows come in: those memory lacked need no writing back. */
    /* The store's statements for the learned rows only add (INSERT OR IGNORE, kinds OR-ed),
     * so what the file already holds stays as it is. */
    brock__store_mark_learned(e);
    brock__pages_drop_clean(e);
    brock__daily_drop_clean(e);
    if (brock__store_query_int(s, s->st[ST_DATA_VERSION], 0, &dv) != 0 ||
        brock__store_run(s, s->st[ST_BEGIN_READ]) != 0) {
        rc = brock__store_fail(e, "read", "the state");
        goto out;
    }
    if ((rc = merge_rows(e, BROCK__TABLE_ACTION, "the actions", merge_action, &seen)) < 0 ||
        (rc = merge_rows(e, BROCK__TABLE_SNITCH, "the snitch map", merge_snitch, NULL)) < 0 ||
        (rc = merge_rows(e, BROCK__TABLE_TRACKING, "the tracking map", merge_tracking, NULL)) < 0 ||
        (rc = merge_rows(e, BROCK__TABLE_FP, "the fingerprinting scripts", merge_fp, NULL)) < 0 ||
        (rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_PAGE)) < 0 ||
        (rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_DAY)) < 0 ||
        (rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_CLIENT_PAGE)) < 0 ||
        (rc = brock__store_read_table(e, &brock__sqlite_walk, BROCK__TABLE_CLIENT_DAY)) < 0 ||
        (rc = brock__store_read_site_actions(e, &brock__sqlite_walk)) < 0 ||
        (rc = merge_settings(e)) < 0)
        goto out;
    if (brock__store_journal_range(s, &min, &max) != 0 ||
        brock__store_run(s, s->st[ST_COMMIT]) != 0) {
        rc = brock__store_fail(e, "read", "the journal");
        goto out;
    }
    merge_unseen(e, &seen);
    brock__settings_changed(e);
    /* Privacy Badger's lists as brock last fetched them are not a choice: memory's stay. */
    e->pbconfig_dirty = e->pbconfig || e->yellow_applied;
    e->clearurls_dirty = e->clearurls_text != NULL;
    s->data_version = dv;
    s->last_seq = max;
    e->dirty++;
out:
    if (rc < 0 && s->db && !sqlite3_get_autocommit(s->db))
        brock__store_exec(s, "ROLLBACK");
    strmap_cleanup(&seen, NULL);
    return rc;
}
