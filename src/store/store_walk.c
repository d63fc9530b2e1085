/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The one walk over what memory changed, for every store back end: which rows a flush writes
 * and in what order, each through the back end's write for that kind of row; and the one step
 * per kind of row that brings what a store holds into memory, the back end reading the rows.
 */
#include "store/store_walk.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"

/* A flush under way: the back end's table, and the rows of views it wrote so far. */
struct walk {
    struct brock_engine *e;
    const struct brock__store_walk_ops *o;
    unsigned pages, days;
};

/* ---- writing ---- */

/* After brock_reset(): the learned tables are emptied and everything memory holds is
 * written back, so that nothing reset survives in the state. */
static int walk_reset(struct walk *w)
{
    struct brock_engine *e = w->e;

    if (!e->reset_pending)
        return 0;
    if (w->o->reset(e) < 0 || w->o->journal(e, "reset", "") < 0)
        return w->o->fail(e, "reset", "the state");
    brock__store_mark_rows(e);
    return 0;
}

static int walk_deleted(struct walk *w)
{
    struct brock_engine *e = w->e;

    for (size_t i = 0; i < e->deleted.n; i++)
        if (w->o->action_del(e, e->deleted.v[i]) < 0 ||
            w->o->journal(e, "action", e->deleted.v[i]) < 0)
            return w->o->fail(e, "delete the action of", e->deleted.v[i]);
    return 0;
}

/* The learned trackers forgotten to stay within the cap (bound.c): their sites and tracking
 * kinds go, before what memory learned since is written. Other processes keep what they hold
 * of them until their own cap lets it go. */
static int walk_forgotten(struct walk *w)
{
    struct brock_engine *e = w->e;

    for (size_t i = 0; i < e->forgotten.n; i++)
        if (w->o->snitch_del(e, e->forgotten.v[i]) < 0 ||
            w->o->tracking_del(e, e->forgotten.v[i]) < 0)
            return w->o->fail(e, "forget the learned tracker", e->forgotten.v[i]);
    return 0;
}

static int walk_actions(struct walk *w)
{
    struct brock_engine *e = w->e;
    const char *name;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->actions, &it, &name, &val)) {
        const struct action_entry *a = val;

        if (!a->dirty)
            continue;
        if (w->o->action(e, a) < 0 || w->o->journal(e, "action", a->domain) < 0)
            return w->o->fail(e, "write the action of", a->domain);
    }
    return 0;
}

/* One snitch site, its detail column worded by store_rows.c. 1 when the row may be new. */
static int snitch_put(struct walk *w, const char *tracker, const struct snitch_site *ss)
{
    int nomem, rc;
    char *detail = brock__store_detail_text(ss, &nomem);

    if (nomem)
        return brock__fail(w->e, BROCK_ENOMEM, "out of memory");
    rc = w->o->snitch(w->e, tracker, ss, detail);
    mem_free(detail);
    return rc < 0 ? w->o->fail(w->e, "write the snitch map of", tracker) : rc;
}

/* A tracker is journaled when a site of its may be new to the store: SQLite knows which rows
 * went in, while PostgreSQL, not waiting for its results, says so of every site written (a
 * reader then finds nothing new, at the cost of one read). */
static int walk_snitches(struct walk *w)
{
    struct brock_engine *e = w->e;
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->snitches, &it, &tracker, &val)) {
        const struct snitch *sn = val;
        int grew = 0, rc;

        for (size_t i = 0; i < sn->n; i++) {
            if (!sn->v[i].dirty)
                continue;
            if ((rc = snitch_put(w, tracker, &sn->v[i])) < 0)
                return rc;
            grew |= rc > 0;
        }
        if (grew && w->o->journal(e, "snitch", tracker) < 0)
            return w->o->fail(e, "write the snitch map of", tracker);
    }
    return 0;
}

static int walk_tracking(struct walk *w)
{
    struct brock_engine *e = w->e;
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->tracking, &it, &tracker, &val)) {
        const struct tracking *t = val;

        for (size_t i = 0; i < t->n; i++)
            if (t->v[i].dirty && w->o->tracking(e, tracker, t->v[i].site, t->v[i].kinds) < 0)
                return w->o->fail(e, "write the tracking map of", tracker);
    }
    return 0;
}

static int walk_fp(struct walk *w)
{
    struct brock_engine *e = w->e;
    const char *host;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->fp_scripts, &it, &host, &val)) {
        const struct fp_host *f = val;

        for (size_t i = 0; f->dirty && i < f->n; i++)
            if (w->o->fp(e, host, f->paths[i]) < 0)
                return w->o->fail(e, "write the fingerprinting scripts of", host);
    }
    return 0;
}

static int site_action_put(void *arg, const char *site, const char *domain, const char *user)
{
    struct walk *w = arg;

    if (w->o->site_action(w->e, site, domain, user) < 0)
        return w->o->fail(w->e, "write the choice on", site);
    return 0;
}

/* The choices for one site, with one journal row for all: readers read the table again. */
static int walk_site_actions(struct walk *w)
{
    int n = brock__site_actions_flush(w->e, site_action_put, w);

    if (n > 0 && w->o->journal(w->e, "site_action", "") < 0)
        return w->o->fail(w->e, "write", "the journal");
    return n < 0 ? n : 0;
}

/* The settings object is written whole: memory has no per-key marks. */
static int walk_settings(struct walk *w)
{
    struct brock_engine *e = w->e;
    json_free_t json_free_fn = NULL;
    const char *key;
    json_t *v;

    if (!e->settings_dirty || !e->settings)
        return 0;
    json_get_alloc_funcs(NULL, &json_free_fn);
    if (w->o->settings_clear(e) < 0)
        return w->o->fail(e, "write", "the settings");
    json_object_foreach(e->settings, key, v) {
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc;

        if (!text)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        rc = w->o->setting(e, key, text);
        json_free_fn(text);
        if (rc < 0)
            return w->o->fail(e, "write the setting", key);
    }
    if (w->o->journal(e, "settings", "") < 0)
        return w->o->fail(e, "write", "the settings");
    return 0;
}

static int meta_put(struct walk *w, const char *key, const char *value)
{
    if (w->o->meta(w->e, key, value) < 0)
        return w->o->fail(w->e, "write the state's meta data", key);
    return 0;
}

static int walk_pbconfig(struct walk *w)
{
    struct brock_engine *e = w->e;
    char when[32];
    int rc = 0;

    if (!e->pbconfig_dirty)
        return 0;
    snprintf(when, sizeof(when), "%" PRId64, e->pbconfig_time);
    if (e->pbconfig && ((rc = meta_put(w, "pbconfig", e->pbconfig)) < 0 ||
                        (rc = meta_put(w, "pbconfig_time", when)) < 0))
        return rc;
    if (e->yellow_applied)
        rc = meta_put(w, "yellowlist", e->yellow_applied);
    return rc;
}

static int walk_clearurls(struct walk *w)
{
    struct brock_engine *e = w->e;
    char when[32];
    int rc;

    if (!e->clearurls_dirty || !e->clearurls_text)
        return 0;
    snprintf(when, sizeof(when), "%" PRId64, e->clearurls_time);
    if ((rc = meta_put(w, "clearurls", e->clearurls_text)) < 0)
        return rc;
    return meta_put(w, "clearurls_time", when);
}

static int page_put(void *arg, const char *client, const char *site, const char *host,
                    const char *action, int64_t count, int64_t time_ms)
{
    struct walk *w = arg;

    w->pages++;
    if (w->o->page(w->e, client, site, host, action, count, time_ms) < 0)
        return w->o->fail(w->e, "write the page views of", site ? site : client);
    return 0;
}

static int walk_pages(struct walk *w)
{
    return brock__pages_flush(w->e, page_put, w);
}

static int day_put(void *arg, const char *client, int64_t day, const char *site,
                   const uint64_t add[BROCK__DAILY_COUNT])
{
    struct walk *w = arg;

    w->days++;
    if (w->o->day(w->e, client, day, site, add) < 0)
        return w->o->fail(w->e, "write", "the daily counters");
    return 0;
}

static int walk_days(struct walk *w)
{
    return brock__daily_flush(w->e, day_put, w);
}

static int walk_views(struct walk *w)
{
    if (w->o->views && w->o->views(w->e, w->pages, w->days) < 0)
        return w->o->fail(w->e, "write", "the journal");
    return 0;
}

/* 'seeded' is when the seed was loaded (Unix ms), or "none" for a state made without it. A
 * state written anew (its file was deleted) keeps the time the back end's record has. */
static int walk_seeded(struct walk *w)
{
    struct brock_engine *e = w->e;
    char *known = w->o->seeded ? w->o->seeded(e) : NULL;
    char when[BROCK__SEEDED_MAX] = "none";

    if (e->seed_mark == BROCK__SEED_KEPT)
        return 0;
    if (e->seed_mark == BROCK__SEED_LOADED && known && known[0] && strcmp(known, "none") != 0)
        snprintf(when, sizeof(when), "%s", known);
    else if (e->seed_mark == BROCK__SEED_LOADED)
        snprintf(when, sizeof(when), "%" PRId64, clock_now_ms());
    if (w->o->meta(e, "seeded", when) < 0)
        return w->o->fail(e, "record", "whether the state is seeded");
    if (known)
        memcpy(known, when, sizeof(when));
    return 0;
}

/* The order of a flush. Deletions come first: a name deleted and then set again since the
 * last flush is set. */
static int (*const write_steps[])(struct walk *w) = {
    walk_reset,     walk_deleted, walk_forgotten,    walk_actions,  walk_snitches,
    walk_tracking,  walk_fp,      walk_site_actions, walk_settings, walk_pbconfig,
    walk_clearurls, walk_pages,   walk_days,         walk_views,    walk_seeded,
};

int brock__store_walk_write(struct brock_engine *e, const struct brock__store_walk_ops *o)
{
    struct walk w = {.e = e, .o = o};
    int rc;

    for (size_t i = 0; i < sizeof(write_steps) / sizeof(*write_steps); i++)
        if ((rc = write_steps[i](&w)) < 0)
            return rc;
    return 0;
}

/* ---- reading ---- */

int brock__store_row_action(struct brock_engine *e, const char *domain,
                            const struct brock__store_row *r, int col)
{
    return brock__store_action_apply(e, domain, brock__store_row_text(r, col),
                                     brock__store_row_text(r, col + 1), r->num(r, col + 2) != 0,
                                     r->num(r, col + 3));
}

int brock__store_row_snitch(struct brock_engine *e, const char *tracker,
                            const struct brock__store_row *r, int col, int check)
{
    return brock__store_snitch_apply(e, tracker, brock__store_row_text(r, col), r->text(r, col + 1),
                                     r->text(r, col + 2), (int)r->num(r, col + 3),
                                     r->num(r, col + 4), check);
}

static int load_action(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__store_row_action(e, brock__store_row_text(r, 0), r, 1);
}

static int load_snitch(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    /* The primary key keeps sites unique: no need to search the list. */
    return brock__store_row_snitch(e, brock__store_row_text(r, 0), r, 1, 0);
}

static int load_tracking(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__store_tracking_load(e, brock__store_row_text(r, 0), brock__store_row_text(r, 1),
                                      (unsigned)r->num(r, 2));
}

static int load_fp(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__store_fp_load(e, brock__store_row_text(r, 0), brock__store_row_text(r, 1));
}

/* arg: NULL, or where to count the choices that changed. */
static int load_site_action(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    int rc = brock__site_action_apply(e, brock__store_row_text(r, 0), brock__store_row_text(r, 1),
                                      brock__store_row_text(r, 2));

    if (rc > 0 && arg)
        *(int *)arg += rc;
    return rc < 0 ? rc : 0;
}

static int load_page(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__pages_load(e, "", brock__store_row_text(r, 0), brock__store_row_text(r, 1),
                             brock__store_row_text(r, 2), r->num(r, 3), r->num(r, 4));
}

static int load_day(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    int64_t n[BROCK__DAILY_COUNT];

    (void)arg;
    for (int i = 0; i < BROCK__DAILY_COUNT; i++)
        n[i] = r->num(r, 2 + i);
    return brock__daily_load(e, "", r->num(r, 0), brock__store_row_text(r, 1), n);
}

static int load_client_page(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__pages_load(e, brock__store_row_text(r, 0), brock__store_row_text(r, 1),
                             brock__store_row_text(r, 2), brock__store_row_text(r, 3), r->num(r, 4),
                             r->num(r, 5));
}

static int load_client_day(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    int64_t n[BROCK__DAILY_COUNT];

    (void)arg;
    for (int i = 0; i < BROCK__DAILY_COUNT; i++)
        n[i] = r->num(r, 3 + i);
    return brock__daily_load(e, brock__store_row_text(r, 0), r->num(r, 1),
                             brock__store_row_text(r, 2), n);
}

static int load_setting(struct brock_engine *e, const struct brock__store_row *r, void *arg)
{
    (void)arg;
    return brock__store_setting_apply(e, e->store_ops->where(e), brock__store_row_text(r, 0),
                                      brock__store_row_text(r, 1));
}

/* Each table's step, and its name in messages. */
static const struct {
    int (*apply)(struct brock_engine *e, const struct brock__store_row *r, void *arg);
    const char *what;
} tables[BROCK__TABLE_COUNT] = {
    [BROCK__TABLE_ACTION] = {load_action, "the actions"},
    [BROCK__TABLE_SNITCH] = {load_snitch, "the snitch map"},
    [BROCK__TABLE_TRACKING] = {load_tracking, "the tracking map"},
    [BROCK__TABLE_FP] = {load_fp, "the fingerprinting scripts"},
    [BROCK__TABLE_SITE_ACTION] = {load_site_action, "the choices for one site"},
    [BROCK__TABLE_PAGE] = {load_page, "the page views"},
    [BROCK__TABLE_DAY] = {load_day, "the daily counters"},
    [BROCK__TABLE_CLIENT_PAGE] = {load_client_page, "the clients' page views"},
    [BROCK__TABLE_CLIENT_DAY] = {load_client_day, "the clients' daily counters"},
    [BROCK__TABLE_SETTING] = {load_setting, "the settings"},
};

/* The steps return BROCK_ENOMEM without a message; the back ends' failures have theirs. */
static int read_rows(struct brock_engine *e, const struct brock__store_walk_ops *o, int table,
                     void *arg)
{
    int rc = o->rows(e, table, tables[table].what, tables[table].apply, arg);

    return rc == BROCK_ENOMEM ? brock__fail(e, rc, "out of memory") : rc;
}

int brock__store_read_table(struct brock_engine *e, const struct brock__store_walk_ops *o,
                            int table)
{
    return read_rows(e, o, table, NULL);
}

int brock__store_read_settings(struct brock_engine *e, const struct brock__store_walk_ops *o)
{
    if (!e->settings && !(e->settings = json_object()))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    /* Even a read that fails half-way may have changed disabledSites. */
    brock__answers_forget(e);
    return read_rows(e, o, BROCK__TABLE_SETTING, NULL);
}

int brock__store_read_site_actions(struct brock_engine *e, const struct brock__store_walk_ops *o)
{
    int n = 0, rc;

    brock__site_actions_reload_begin(e);
    if ((rc = read_rows(e, o, BROCK__TABLE_SITE_ACTION, &n)) < 0)
        return rc;
    return n + brock__site_actions_reload_end(e);
}

int brock__store_walk_read(struct brock_engine *e, const struct brock__store_walk_ops *o)
{
    int rc;

    for (int t = 0; t < BROCK__TABLE_SETTING; t++)
        if ((rc = brock__store_read_table(e, o, t)) < 0)
            return rc;
    return brock__store_read_settings(e, o);
}
