/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the store's tests share: engines built by hand, as the other engine files leave them,
 * changes marked as the engine marks them, and comparisons of the maps. */
#ifndef BROCK_TEST_STORE_H
#define BROCK_TEST_STORE_H

#include "test.h"

#include "engine/engine.h"
#include "store/store_api.h"
#include "util/alloc.h"

static inline struct brock_engine *engine_new(void)
{
    struct brock_engine *e = calloc(1, sizeof(*e));

    assert_non_null(e);
    strmap_init(&e->actions);
    strmap_init(&e->site_actions);
    strmap_init(&e->snitches);
    strmap_init(&e->tracking);
    strmap_init(&e->fp_scripts);
    e->settings = json_object();
    e->learn = 1;
    e->threshold = BROCK__TRACKING_THRESHOLD;
    return e;
}

static inline void engine_free(struct brock_engine *e)
{
    brock__store_close(e);
    assert_null(e->store);
    strmap_cleanup(&e->actions, mem_free);
    brock__site_actions_free(e);
    strmap_cleanup(&e->snitches, brock__snitch_free);
    strmap_cleanup(&e->tracking, brock__tracking_free);
    strmap_cleanup(&e->fp_scripts, brock__fp_free);
    strvec_cleanup(&e->deleted);
    strvec_cleanup(&e->forgotten);
    brock__pages_free(e->pages);
    brock__daily_free(e->daily);
    json_decref(e->settings);
    free(e);
}

static inline struct action_entry *put_action(struct brock_engine *e, const char *domain, int user,
                                              int heur, int dnt, int64_t next, unsigned dirty)
{
    struct action_entry *a = strmap_get(&e->actions, domain);

    if (!a) {
        a = mem_calloc(1, sizeof(*a) + strlen(domain) + 1);
        assert_non_null(a);
        strcpy(a->domain, domain);
        assert_int_equal(strmap_put(&e->actions, domain, a), 0);
    }
    if (dirty & BROCK__DIRTY_USER)
        a->user = (uint8_t)user;
    if (dirty & BROCK__DIRTY_HEUR)
        a->heur = (uint8_t)heur;
    if (dirty & BROCK__DIRTY_DNT) {
        a->dnt = (uint8_t)dnt;
        a->next_update = next;
    }
    a->dirty |= (uint8_t)dirty;
    e->dirty++;
    return a;
}

static inline void delete_action(struct brock_engine *e, const char *domain)
{
    struct action_entry *a = strmap_del(&e->actions, domain);

    assert_non_null(a);
    mem_free(a);
    assert_int_equal(strvec_push(&e->deleted, domain), 0);
    e->dirty++;
}

static inline char *dup_or_null(const char *s)
{
    char *c;

    if (!s)
        return NULL;
    c = mem_strdup(s);
    assert_non_null(c);
    return c;
}

static inline void add_snitch(struct brock_engine *e, const char *tracker, const char *site,
                              const char *host, const char *detail, int kind, int64_t time_ms)
{
    struct snitch *sn = strmap_get(&e->snitches, tracker);
    struct snitch_site *ss;

    if (!sn) {
        sn = mem_calloc(1, sizeof(*sn));
        assert_non_null(sn);
        assert_int_equal(strmap_put(&e->snitches, tracker, sn), 0);
    }
    assert_int_equal(mem_grow(&sn->v, &sn->cap, sn->n + 1, sizeof(*sn->v)), 0);
    ss = &sn->v[sn->n++];
    memset(ss, 0, sizeof(*ss));
    ss->site = dup_or_null(site);
    ss->host = dup_or_null(host);
    ss->detail = dup_or_null(detail);
    ss->kind = (uint8_t)kind;
    ss->time_ms = time_ms;
    ss->dirty = BROCK__DIRTY_NEW;
    e->dirty++;
}

static inline void add_tracking(struct brock_engine *e, const char *tracker, const char *site,
                                unsigned kinds)
{
    struct tracking *t = strmap_get(&e->tracking, tracker);
    struct tracking_site *ts;

    if (!t) {
        t = mem_calloc(1, sizeof(*t));
        assert_non_null(t);
        assert_int_equal(strmap_put(&e->tracking, tracker, t), 0);
    }
    assert_int_equal(mem_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)), 0);
    ts = &t->v[t->n++];
    ts->site = dup_or_null(site);
    ts->kinds = kinds;
    ts->dirty = BROCK__DIRTY_NEW;
    e->dirty++;
}

static inline void add_fp(struct brock_engine *e, const char *host, const char *path)
{
    struct fp_host *fp = strmap_get(&e->fp_scripts, host);

    if (!fp) {
        fp = mem_calloc(1, sizeof(*fp));
        assert_non_null(fp);
        assert_int_equal(strmap_put(&e->fp_scripts, host, fp), 0);
    }
    assert_int_equal(mem_grow(&fp->paths, &fp->cap, fp->n + 1, sizeof(*fp->paths)), 0);
    fp->paths[fp->n++] = dup_or_null(path);
    fp->dirty = BROCK__DIRTY_NEW;
    e->dirty++;
}

static inline const struct snitch_site *find_site(const struct brock_engine *e, const char *tracker,
                                                  const char *site)
{
    const struct snitch *sn = strmap_get(&e->snitches, tracker);

    for (size_t i = 0; sn && i < sn->n; i++)
        if (!strcmp(sn->v[i].site, site))
            return &sn->v[i];
    return NULL;
}

static inline void assert_str_or_null_equal(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

/* ---- comparing maps ---- */

static inline void assert_same_actions(const struct brock_engine *a, const struct brock_engine *b)
{
    const char *key;
    void *val;
    size_t it = 0;

    assert_int_equal(a->actions.len, b->actions.len);
    while (strmap_next(&a->actions, &it, &key, &val)) {
        const struct action_entry *x = val, *y = strmap_get(&b->actions, key);

        assert_non_null(y);
        assert_string_equal(y->domain, key);
        assert_int_equal(x->user, y->user);
        assert_int_equal(x->heur, y->heur);
        assert_int_equal(x->dnt, y->dnt);
        assert_int_equal(x->next_update, y->next_update);
        assert_int_equal(y->dirty, 0);
    }
}

static inline void assert_same_snitches(const struct brock_engine *a, const struct brock_engine *b)
{
    const char *key;
    void *val;
    size_t it = 0;

    assert_int_equal(a->snitches.len, b->snitches.len);
    while (strmap_next(&a->snitches, &it, &key, &val)) {
        const struct snitch *x = val, *y = strmap_get(&b->snitches, key);

        assert_non_null(y);
        assert_int_equal(x->n, y->n);
        for (size_t i = 0; i < x->n; i++) {
            assert_string_equal(x->v[i].site, y->v[i].site);
            assert_str_or_null_equal(x->v[i].host, y->v[i].host);
            assert_str_or_null_equal(x->v[i].detail, y->v[i].detail);
            assert_int_equal(x->v[i].kind, y->v[i].kind);
            assert_int_equal(x->v[i].time_ms, y->v[i].time_ms);
            assert_int_equal(y->v[i].dirty, 0);
        }
    }
}

static inline void assert_same_maps(const struct brock_engine *a, const struct brock_engine *b)
{
    const char *key;
    void *val;
    size_t it;

    assert_same_actions(a, b);
    assert_same_snitches(a, b);
    assert_int_equal(a->tracking.len, b->tracking.len);
    for (it = 0; strmap_next(&a->tracking, &it, &key, &val);) {
        const struct tracking *x = val, *y = strmap_get(&b->tracking, key);

        assert_non_null(y);
        assert_int_equal(x->n, y->n);
        for (size_t i = 0; i < x->n; i++) {
            assert_string_equal(x->v[i].site, y->v[i].site);
            assert_int_equal(x->v[i].kinds, y->v[i].kinds);
        }
    }
    assert_int_equal(a->fp_scripts.len, b->fp_scripts.len);
    for (it = 0; strmap_next(&a->fp_scripts, &it, &key, &val);) {
        const struct fp_host *x = val, *y = strmap_get(&b->fp_scripts, key);

        assert_non_null(y);
        assert_int_equal(x->n, y->n);
        for (size_t i = 0; i < x->n; i++)
            assert_string_equal(x->paths[i], y->paths[i]);
    }
    assert_true(json_equal(a->settings, b->settings));
}

static inline void assert_all_clean(const struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it;

    assert_int_equal(e->dirty, 0);
    assert_int_equal(e->deleted.n, 0);
    assert_int_equal(e->settings_dirty, 0);
    for (it = 0; strmap_next(&e->actions, &it, &key, &val);)
        assert_int_equal(((struct action_entry *)val)->dirty, 0);
    for (it = 0; strmap_next(&e->snitches, &it, &key, &val);)
        for (size_t i = 0; i < ((struct snitch *)val)->n; i++)
            assert_int_equal(((struct snitch *)val)->v[i].dirty, 0);
    for (it = 0; strmap_next(&e->tracking, &it, &key, &val);)
        for (size_t i = 0; i < ((struct tracking *)val)->n; i++)
            assert_int_equal(((struct tracking *)val)->v[i].dirty, 0);
    for (it = 0; strmap_next(&e->fp_scripts, &it, &key, &val);)
        assert_int_equal(((struct fp_host *)val)->dirty, 0);
}

#endif
