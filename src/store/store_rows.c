/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Rows into the engine's maps, and the marks of what is still to be written, the same for
 * every store back end: what memory changed and has not written yet wins over what is read.
 */
#include <stdio.h>
#include <string.h>

#include "store/store_api.h"
#include "util/alloc.h"

/* Written for BROCK__HEUR_UNKNOWN, which has no name: any string brock__heur_parse() rejects
 * reads back as unknown. */
#define HEUR_UNKNOWN_TEXT "unknown"

const char *brock__store_heur_text(int heur)
{
    return heur == BROCK__HEUR_UNKNOWN ? HEUR_UNKNOWN_TEXT : brock__heur_name(heur);
}

/* ---- action entries ---- */

static int is_deleted(const struct brock_engine *e, const char *domain)
{
    for (size_t i = 0; i < e->deleted.n; i++)
        if (!strcmp(e->deleted.v[i], domain))
            return 1;
    return 0;
}

static struct action_entry *action_new(struct brock_engine *e, const char *domain)
{
    size_t n = strlen(domain);
    struct action_entry *a = mem_malloc(sizeof(*a) + n + 1);

    if (!a)
        return NULL;
    memset(a, 0, sizeof(*a));
    memcpy(a->domain, domain, n + 1);
    if (strmap_put(&e->actions, a->domain, a) < 0) {
        mem_free(a);
        return NULL;
    }
    return a;
}

int brock__store_action_apply(struct brock_engine *e, const char *domain, const char *user_text,
                              const char *heur_text, int dnt, int64_t next)
{
    struct action_entry *a = strmap_get(&e->actions, domain);
    int user = brock__user_parse(user_text);
    int heur = brock__heur_parse(heur_text);
    int changed = 0;

    if (user < 0)
        user = BROCK_NOACTION;
    if (heur < 0)
        heur = BROCK__HEUR_UNKNOWN;
    dnt = dnt != 0;
    brock__answers_forget(e);
    if (!a) {
        /* Deleted here since the last flush: the deletion is written next and wins. */
        if (is_deleted(e, domain))
            return 0;
        if (!(a = action_new(e, domain)))
            return BROCK_ENOMEM;
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

int brock__store_action_gone(struct brock_engine *e, const char *domain)
{
    struct action_entry *a = strmap_get(&e->actions, domain);

    if (!a || a->dirty)
        return 0;
    strmap_del(&e->actions, domain);
    mem_free(a);
    brock__answers_forget(e);
    return 1;
}

/* ---- snitch sites ---- */

static int snitch_find(const struct snitch *sn, const char *site)
{
    for (size_t i = 0; i < sn->n; i++)
        if (!strcmp(sn->v[i].site, site))
            return 1;
    return 0;
}

static int strdup_or_null(char **out, const char *s)
{
    *out = NULL;
    if (!s)
        return 0;
    *out = mem_strdup(s);
    return *out ? 0 : BROCK_ENOMEM;
}

/* Pixel sharing's detail, "cookie=parameter", into its two parts. */
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

static struct snitch *snitch_get(struct brock_engine *e, const char *tracker)
{
    struct snitch *sn = strmap_get(&e->snitches, tracker);

    if (sn)
        return sn;
    sn = mem_calloc(1, sizeof(*sn));
    if (sn && strmap_put(&e->snitches, tracker, sn) < 0) {
        mem_free(sn);
        sn = NULL;
    }
    return sn;
}

int brock__store_snitch_apply(struct brock_engine *e, const char *tracker, const char *site,
                              const char *host, const char *detail, int kind, int64_t time_ms,
                              int check)
{
    struct snitch *sn = strmap_get(&e->snitches, tracker);
    struct snitch_site *ss;

    if (sn && check && snitch_find(sn, site))
        return 0;
    if (!(sn = snitch_get(e, tracker)))
        return BROCK_ENOMEM;
    if (mem_grow(&sn->v, &sn->cap, sn->n + 1, sizeof(*sn->v)) < 0)
        return BROCK_ENOMEM;
    ss = &sn->v[sn->n];
    memset(ss, 0, sizeof(*ss));
    ss->site = mem_strdup(site);
    if (!ss->site || strdup_or_null(&ss->host, host) < 0 || strdup_or_null(&ss->detail, detail) < 0)
        goto nomem;
    ss->kind = (uint8_t)kind;
    ss->time_ms = time_ms;
    if ((ss->kind == BROCK_EVIDENCE_PIXEL || ss->kind == BROCK_EVIDENCE_LINK) && ss->detail &&
        strchr(ss->detail, '=') && split_detail(ss) < 0)
        goto nomem;
    sn->n++;
    if (brock__learned_note(e, tracker, sn, kind) < 0) {
        sn->n--;
        goto nomem;
    }
    return 1;
nomem:
    mem_free(ss->site);
    mem_free(ss->host);
    mem_free(ss->detail);
    mem_free(ss->param);
    if (sn->n == 0)
        brock__snitch_free(strmap_del(&e->snitches, tracker));
    return BROCK_ENOMEM;
}

char *brock__store_detail_text(const struct snitch_site *ss, int *nomem)
{
    size_t dlen, plen;
    char *both;

    *nomem = 0;
    if (!ss->param) {
        if (!ss->detail)
            return NULL;
        both = mem_strdup(ss->detail);
        *nomem = !both;
        return both;
    }
    dlen = ss->detail ? strlen(ss->detail) : 0;
    plen = strlen(ss->param);
    both = mem_malloc(dlen + plen + 2);
    if (!both) {
        *nomem = 1;
        return NULL;
    }
    if (dlen)
        memcpy(both, ss->detail, dlen);
    both[dlen] = '=';
    memcpy(both + dlen + 1, ss->param, plen + 1);
    return both;
}

void brock__store_snitches_drop_clean(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->snitches, &it, &key, &val)) {
        struct snitch *sn = val;
        int dirty = 0;

        for (size_t i = 0; i < sn->n && !dirty; i++)
            dirty = sn->v[i].dirty != 0;
        if (!dirty) {
            brock__learned_unlink(e, sn);
            strmap_del(&e->snitches, key);
            brock__snitch_free(sn);
        }
    }
}

/* ---- tracking, fingerprinting scripts, settings ---- */

int brock__store_tracking_load(struct brock_engine *e, const char *tracker, const char *site,
                               unsigned kinds)
{
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
    ts->site = mem_strdup(site);
    if (!ts->site)
        return BROCK_ENOMEM;
    ts->kinds = kinds;
    t->n++;
    return 0;
}

int brock__store_fp_load(struct brock_engine *e, const char *host, const char *path)
{
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
    f->paths[f->n] = mem_strdup(path);
    if (!f->paths[f->n])
        return BROCK_ENOMEM;
    f->n++;
    e->n_fp_paths++;
    return 0;
}

int brock__store_setting_apply(struct brock_engine *e, const char *where, const char *key,
                               const char *json_text)
{
    json_error_t jerr;
    json_t *v;

    if (!e->settings && !(e->settings = json_object()))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    v = json_loads(json_text, JSON_DECODE_ANY, &jerr);
    if (!v)
        return brock__fail(e, BROCK_ESTORE, "%s: setting %s is not JSON: %s", where, key,
                           jerr.text);
    if (json_object_set_new(e->settings, key, v) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return 0;
}

/* ---- marks ---- */

void brock__store_mark_learned(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it;

    for (it = 0; strmap_next(&e->snitches, &it, &key, &val);) {
        struct snitch *sn = val;
        for (size_t i = 0; i < sn->n; i++)
            sn->v[i].dirty = BROCK__DIRTY_NEW;
    }
    for (it = 0; strmap_next(&e->tracking, &it, &key, &val);) {
        struct tracking *t = val;
        for (size_t i = 0; i < t->n; i++)
            t->v[i].dirty = BROCK__DIRTY_NEW;
    }
    for (it = 0; strmap_next(&e->fp_scripts, &it, &key, &val);)
        ((struct fp_host *)val)->dirty = BROCK__DIRTY_NEW;
}

void brock__store_mark_rows(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it;

    for (it = 0; strmap_next(&e->actions, &it, &key, &val);)
        ((struct action_entry *)val)->dirty |=
            BROCK__DIRTY_USER | BROCK__DIRTY_HEUR | BROCK__DIRTY_DNT;
    brock__store_mark_learned(e);
}

void brock__store_marks_clear(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it;

    for (it = 0; strmap_next(&e->actions, &it, &key, &val);)
        ((struct action_entry *)val)->dirty = 0;
    for (it = 0; strmap_next(&e->snitches, &it, &key, &val);) {
        struct snitch *sn = val;
        for (size_t i = 0; i < sn->n; i++)
            sn->v[i].dirty = 0;
    }
    for (it = 0; strmap_next(&e->tracking, &it, &key, &val);) {
        struct tracking *t = val;
        for (size_t i = 0; i < t->n; i++)
            t->v[i].dirty = 0;
    }
    for (it = 0; strmap_next(&e->fp_scripts, &it, &key, &val);)
        ((struct fp_host *)val)->dirty = 0;
    strvec_cleanup(&e->deleted);
    strvec_cleanup(&e->forgotten);
    brock__site_actions_clean(e);
    e->settings_dirty = 0;
    brock__settings_untouch(e);
    e->pbconfig_dirty = 0;
    e->clearurls_dirty = 0;
    e->reset_pending = 0;
    e->seed_mark = BROCK__SEED_KEPT;
    brock__pages_clean(e);
    brock__daily_clean(e);
    e->dirty = 0;
}

/* ---- settings ---- */

/* The values of the keys changed here since the last write, to put back over what another
 * process wrote: {key: {"v": value}}, {} for a key taken away. */
static json_t *touched_values(const struct brock_engine *e)
{
    json_t *mine = json_object();
    const char *key;
    size_t it = 0;

    while (mine && strmap_next(&e->settings_touched, &it, &key, NULL)) {
        json_t *v = json_object_get(e->settings, key);
        json_t *one = v ? json_pack("{s:O}", "v", v) : json_object();

        if (!one || json_object_set_new(mine, key, one) < 0) {
            json_decref(mine);
            return NULL;
        }
    }
    return mine;
}

int brock__store_settings_reload(struct brock_engine *e, int (*read)(struct brock_engine *e))
{
    json_t *old, *mine = NULL, *one;
    const char *key;
    int rc, changed;

    /* What this process changed and has not written yet stays; the rest is the state's. */
    if (e->settings_dirty && e->settings_touch_all)
        return 0;
    if (e->settings_dirty && !(mine = touched_values(e)))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    old = json_deep_copy(e->settings);
    if (!old) {
        json_decref(mine);
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    /* A row is read only for the keys the state holds; brock's own are there only while
     * they are set, and one another process took away must go from memory too. */
    brock__own_settings_drop(e);
    rc = read(e);
    json_object_foreach(mine, key, one) {
        json_t *v = json_object_get(one, "v");

        if (rc == 0 &&
            (v ? json_object_set(e->settings, key, v) : json_object_del(e->settings, key)) < 0 && v)
            rc = brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    json_decref(mine);
    changed = rc == 0 && !json_equal(old, e->settings);
    json_decref(old);
    if (rc < 0)
        return rc;
    if (changed)
        brock__settings_changed(e);
    return changed;
}
