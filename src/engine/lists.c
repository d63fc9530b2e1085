/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's lists found in the data folder (Debian's release layout, or a flat folder of
 * the current files) and read by data/'s readers into the engine's lists: the cookieblock
 * list, the hashes of accepted DNT policies, the multi-domain first parties, the
 * CNAME-cloaking map, the widget domains, the surrogates; and a new cookieblock list applied
 * to the learned actions (section 6).
 */
#include "engine/engine.h"

#include <string.h>

#include "util/alloc.h"

/* ---- reading the lists ---- */

int brock__data_read(struct brock_engine *e, const char *file, char path[4096], char **text,
                     size_t *len)
{
    struct brock__data_ctx cx;

    brock__data_ctx_of(e, &cx);
    return brock__lists_file(&cx, &e->lists, file, path, text, len);
}

static int data_read(void *arg, const char *file, char path[4096], char **text, size_t *len)
{
    return brock__data_read(arg, file, path, text, len);
}

void brock__data_ctx_of(struct brock_engine *e, struct brock__data_ctx *cx)
{
    cx->msg = e->errmsg;
    cx->msg_size = sizeof(e->errmsg);
    cx->read = data_read;
    cx->arg = e;
}

int brock__lists_load(struct brock_engine *e, const char *dir)
{
    struct brock__data_ctx cx;
    struct brock_lists fresh;
    int rc;

    /* Everything is read into fresh lists so that a failure leaves the old ones in place. */
    brock__data_ctx_of(e, &cx);
    rc = brock__lists_open(&cx, &fresh, dir);
    if (rc < 0)
        return rc;
    brock__lists_cleanup(&e->lists);
    e->lists = fresh;
    brock__answers_forget(e);
    return 0;
}

int brock__lists_reread(struct brock_engine *e, struct brock_lists *fresh)
{
    struct brock__data_ctx cx;

    brock__data_ctx_of(e, &cx);
    return brock__lists_reopen(&cx, &e->lists, fresh);
}

/* ---- applying a new cookieblock list (updateYellowlist) ---- */

/* Domains taken off the list: every non-noaction entry under their bases is blocklisted
 * again, which now gives block where the list no longer covers it. */
static int apply_removed(struct brock_engine *e, const struct strmap *old)
{
    struct strmap bases;
    struct strvec keys = {0};
    char base[BROCK_HOST_MAX];
    const char *k;
    void *v;
    size_t it = 0;
    int rc = 0;

    strmap_init(&bases);
    while (strmap_next(old, &it, &k, NULL)) {
        /* "" has no base: removing it must touch nothing. */
        if (!*k || strmap_get(&e->lists.yellow, k) || brock_base_domain(k, base) <= 0)
            continue;
        if (strmap_put(&bases, base, (void *)1) < 0) {
            rc = BROCK_ENOMEM;
            goto out;
        }
    }
    if (!bases.len)
        goto out;
    /* Blocklisting adds entries, so the names are collected before any is changed. */
    it = 0;
    while (strmap_next(&e->actions, &it, &k, &v)) {
        if (brock_base_domain(k, base) <= 0 || !strmap_get(&bases, base))
            continue;
        if (brock__get_action(e, v, 0) == BROCK_NOACTION)
            continue;
        if (strvec_push(&keys, k) < 0) {
            rc = BROCK_ENOMEM;
            goto out;
        }
    }
    for (size_t i = 0; i < keys.n; i++) {
        if (brock_base_domain(keys.v[i], base) <= 0)
            continue;
        rc = brock__blocklist_domain(e, base, keys.v[i]);
        if (rc < 0)
            goto out;
    }
out:
    strvec_cleanup(&keys);
    strmap_cleanup(&bases, NULL);
    return rc;
}

/* Domains put on the list: cookieblocked at once when their base is already blocked. */
static int apply_added(struct brock_engine *e, const struct strmap *old)
{
    char base[BROCK_HOST_MAX];

    for (size_t i = 0; i < e->lists.yellow_order.n; i++) {
        const char *d = e->lists.yellow_order.v[i];
        struct action_entry *a;

        if (strmap_get(old, d) || brock_base_domain(d, base) <= 0)
            continue;
        a = brock__action_get(e, base);
        if (!a || (a->heur != BROCK_BLOCK && a->heur != BROCK_COOKIEBLOCK))
            continue;
        a = brock__action_ensure(e, d);
        if (!a)
            return BROCK_ENOMEM;
        if (a->heur != BROCK_COOKIEBLOCK) {
            a->heur = BROCK_COOKIEBLOCK;
            brock__action_touch(e, a, BROCK__DIRTY_HEUR);
        }
    }
    return 0;
}

int brock__yellowlist_apply(struct brock_engine *e, const struct strvec *list)
{
    struct strmap map, old;
    struct strvec order = {0}, old_order;
    int rc;

    strmap_init(&map);
    rc = brock__yellow_build(&map, &order, list);
    if (rc < 0) {
        strmap_cleanup(&map, NULL);
        strvec_cleanup(&order);
        return brock__fail(e, rc, "Out of memory while replacing the cookieblock list.");
    }
    /* The recomputation below is against the new list, so it goes in first. */
    old = e->lists.yellow;
    old_order = e->lists.yellow_order;
    e->lists.yellow = map;
    e->lists.yellow_order = order;
    rc = apply_removed(e, &old);
    if (rc == 0)
        rc = apply_added(e, &old);
    if (rc < 0) {
        /* The old list comes back so that applying the new one again redoes every step;
         * the steps already done are the same the second time. */
        strmap_cleanup(&e->lists.yellow, NULL);
        strvec_cleanup(&e->lists.yellow_order);
        e->lists.yellow = old;
        e->lists.yellow_order = old_order;
        return brock__fail(e, rc, "Out of memory while applying the new cookieblock list.");
    }
    strmap_cleanup(&old, NULL);
    strvec_cleanup(&old_order);
    return 0;
}
