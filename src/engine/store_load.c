/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading the state into the engine's maps: every table when the engine opens, and the rows
 * that store_poll.c rereads after another process changed them. What memory changed and has
 * not written yet wins over what is read.
 */
#include "engine/store.h"

#include <string.h>

#include "util/alloc.h"

/* ---- applying rows to the maps ---- */

static int is_deleted(const struct brock_engine *e, const char *domain)
{
    for (size_t i = 0; i < e->deleted.n; i++)
        if (!strcmp(e->deleted.v[i], domain))
            return 1;
    return 0;
}

int brock__store_action_apply(struct brock_engine *e, const char *domain, sqlite3_stmt *st,
                              int col)
{
    struct action_entry *a = strmap_get(&e->actions, domain);
    int user = brock__user_parse(brock__store_column_text(st, col));
    int heur = brock__heur_parse(brock__store_column_text(st, col + 1));
    int dnt = sqlite3_column_int64(st, col + 2) != 0;
    int64_t next = sqlite3_column_int64(st, col + 3);
    int changed = 0;

    if (user < 0)
        user = BROCK_NOACTION;
    if (heur < 0)
        heur = BROCK__HEUR_UNKNOWN;
    brock__answers_forget(e);
    if (!a) {
        size_t n = strlen(domain);

        /* Deleted here since the last flush: the deletion is written next and wins. */
        if (is_deleted(e, domain))
            return 0;
        a = mem_malloc(sizeof(*a) + n + 1);
        if (!a)
            return BROCK_ENOMEM;
        memset(a, 0, sizeof(*a));
        memcpy(a->domain, domain, n + 1);
        if (strmap_put(&e->actions, a->domain, a) < 0) {
            mem_free(a);
            return BROCK_ENOMEM;
        }
        changed = 1;
    }
    if (!(a->dirty & BROCK__DIRTY_USER) && a->user != user) {
        a->user = (uint8_t)user;
        changed = 1;
    }
    if (!(a->dirty & BROCK__DIRTY_HEUR) && a->heur != heur) {
        a->heur = (uint8_t)heur;
        changed = 1;
    }
    if (!(a->dirty & BROCK__DIRTY_DNT) && (a->dnt != dnt || a->next_update != next)) {
        a->dnt = (uint8_t)dnt;
        a->next_update = next;
        changed = 1;
    }
    return changed;
}

static int snitch_find(const struct snitch *sn, const char *site)
{
    for (size_t i = 0; i < sn->n; i++)
        if (!strcmp(sn->v[i].site, site))
            return 1;
    return 0;
}

static int strdup_or_null(char **out, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);

    *out = NULL;
    if (!t)
        return 0;
    *out = mem_strdup((const char *)t);
    return *out ? 0 : BROCK_ENOMEM;
}

/* Pixel sharing's detail, "cookie=parameter", into its two parts (store_flush.c). */
static int split_detail(struct snitch_site *ss)
{
    char *eq = strchr(ss->detail, '=');

    ss->param = mem_strdup(eq + 1);
    if (!ss->param)
        return BROCK_ENOMEM;
    *eq = '\0';
    if (!*ss->detail) {
        mem_free(ss->detail);
        ss->detail = NULL;
    }
    return 0;
}

int brock__store_snitch_apply(struct brock_engine *e, const char *tracker, sqlite3_stmt *st,
                              int col, int check)
{
    struct snitch *sn = strmap_get(&e->snitches, tracker);
    const char *site = brock__store_column_text(st, col);
    struct snitch_site *ss;

    if (sn && check && snitch_find(sn, site))
        return 0;
    if (!sn) {
        sn = mem_calloc(1, sizeof(*sn));
        if (!sn)
            return BROCK_ENOMEM;
        if (strmap_put(&e->snitches, tracker, sn) < 0) {
            mem_free(sn);
            return BROCK_ENOMEM;
        }
    }
    if (mem_grow(&sn->v, &sn->cap, sn->n + 1, sizeof(*sn->v)) < 0)
        return BROCK_ENOMEM;
    ss = &sn->v[sn->n];
    memset(ss, 0, sizeof(*ss));
    ss->site = mem_strdup(site);
    if (!ss->site || strdup_or_null(&ss->host, st, col + 1) < 0 ||
        strdup_or_null(&ss->detail, st, col + 2) < 0) {
        mem_free(ss->site);
        mem_free(ss->host);
        return BROCK_ENOMEM;
    }
    ss->kind = (uint8_t)sqlite3_column_int(st, col + 3);
    ss->time_ms = sqlite3_column_int64(st, col + 4);
    if (ss->kind == BROCK_EVIDENCE_PIXEL && ss->detail && strchr(ss->detail, '=') &&
        split_detail(ss) < 0) {
        mem_free(ss->site);
        mem_free(ss->host);
        mem_free(ss->detail);
        return BROCK_ENOMEM;
    }
    sn->n++;
    return 1;
}

static int tracking_apply(struct brock_engine *e, sqlite3_stmt *st)
{
    const char *tracker = brock__store_column_text(st, 0);
    struct tracking *t = strmap_get(&e->tracking, tracker);
    struct tracking_site *ts;

    if (!t) {
        t = mem_calloc(1, sizeof(*t));
        if (!t)
            return BROCK_ENOMEM;
        if (strmap_put(&e->tracking, tracker, t) < 0) {
            mem_free(t);
            return BROCK_ENOMEM;
        }
    }
    if (mem_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
        return BROCK_ENOMEM;
    ts = &t->v[t->n];
    memset(ts, 0, sizeof(*ts));
    ts->site = mem_strdup(brock__store_column_text(st, 1));
    if (!ts->site)
        return BROCK_ENOMEM;
    ts->kinds = (unsigned)sqlite3_column_int(st, 2);
    t->n++;
    return 0;
}

static int fp_apply(struct brock_engine *e, sqlite3_stmt *st)
{
    const char *host = brock__store_column_text(st, 0);
    struct fp_host *f = strmap_get(&e->fp_scripts, host);

    if (!f) {
        f = mem_calloc(1, sizeof(*f));
        if (!f)
            return BROCK_ENOMEM;
        if (strmap_put(&e->fp_scripts, host, f) < 0) {
            mem_free(f);
            return BROCK_ENOMEM;
        }
    }
    if (mem_grow(&f->paths, &f->cap, f->n + 1, sizeof(*f->paths)) < 0)
        return BROCK_ENOMEM;
    f->paths[f->n] = mem_strdup(brock__store_column_text(st, 1));
    if (!f->paths[f->n])
        return BROCK_ENOMEM;
    f->n++;
    return 0;
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
        const char *key = brock__store_column_text(st, 0);
        json_error_t jerr;
        json_t *v = json_loads(brock__store_column_text(st, 1), JSON_DECODE_ANY, &jerr);

        if (!v) {
            rc = brock__fail(e, BROCK_ESTORE, "%s: setting %s is not JSON: %s", s->path, key,
                             jerr.text);
            sqlite3_reset(st);
            return rc;
        }
        if (json_object_set_new(e->settings, key, v) < 0) {
            sqlite3_reset(st);
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : brock__store_fail(e, "read the settings", NULL);
}

/* ---- loading ---- */

static int load_action(struct brock_engine *e, sqlite3_stmt *st)
{
    return brock__store_action_apply(e, brock__store_column_text(st, 0), st, 1);
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
    return brock__store_snitch_apply(e, brock__store_column_text(st, 0), st, 1, 0);
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

int brock__store_load(struct brock_engine *e)
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
