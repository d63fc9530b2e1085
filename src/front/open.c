/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Opening an engine and freeing it: the one place where the library's rooms meet. An engine
 * (engine/) is made, given Privacy Badger's lists, joined to its store (store/) and what the
 * store holds, seeded when its state is new, and settled; freeing closes the store first.
 */
#include "engine/engine.h"
#include "store/store_api.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/alloc.h"

/* The configuration `brock update` left in the store, applied over the data folder's; and
 * ClearURLs' rules it fetched, compiled at the first clean. */
static int restore_config(struct brock_engine *e)
{
    static const char *const keys[] = {"pbconfig", "pbconfig_time", "yellowlist", "clearurls",
                                       "clearurls_time"};
    enum { N_KEYS = sizeof(keys) / sizeof(keys[0]) };
    char *v[N_KEYS] = {NULL};
    int rc = 0;

    if (!e->store)
        return brock__pbconfig_restore(e, NULL);
    for (size_t i = 0; i < N_KEYS && rc == 0; i++)
        rc = brock__store_meta_get(e, keys[i], &v[i]);
    if (rc == 0) {
        struct brock__stored_config sc = {v[0], v[1], v[2]};

        rc = brock__pbconfig_restore(e, &sc);
    }
    if (rc == 0 && v[3]) {
        e->clearurls_text = v[3];
        e->clearurls_time = v[4] ? strtoll(v[4], NULL, 10) : 0;
        v[3] = NULL;
    }
    for (size_t i = 0; i < N_KEYS; i++)
        mem_free(v[i]);
    return rc;
}

/* Privacy Badger's lists, the store and what it holds, and the seed for a new state. Returns
 * 0 or a negative BROCK_E* with errmsg set. */
static int engine_load_state(struct brock_engine *e, const struct brock_config *cfg)
{
    int fresh = 0, rc;

    if (cfg->data_dir && (rc = brock__lists_load(e, cfg->data_dir)) < 0)
        return rc;
    if (cfg->store || cfg->state_dir) {
        rc = cfg->store ? brock__pg_open(e, cfg->store, &fresh)
                        : brock__sqlite_open(e, cfg->state_dir, &fresh);
        if (rc < 0 || (rc = brock__store_load(e)) < 0)
            return rc;
    } else {
        fresh = 1;
    }
    if ((rc = restore_config(e)) < 0)
        return rc;
    /* A new state gets the seed now, in memory; it is written, with the record that it was
     * seeded (or made without the seed, and so to stay), at the first brock_sync(). */
    if (fresh && cfg->no_seed) {
        e->seed_mark = BROCK__SEED_NONE;
    } else if (fresh && e->lists.seed_path[0]) {
        if ((rc = brock__load_seed(e)) < 0)
            return rc;
        e->seed_mark = BROCK__SEED_LOADED;
    }
    return 0;
}

/* What follows loading: learning's order, expired page views and counters, the marks of what
 * cannot be saved cleared, the store's thread started. Returns 0 or a negative BROCK_E*. */
static int engine_settle(struct brock_engine *e, const struct brock_config *cfg)
{
    int rc;

    brock__learned_order(e);
    if ((rc = brock__pages_expire(e, 1)) < 0)
        return rc;
    brock__daily_expire(e, 1);
    if (!e->store)
        e->dirty = 0;
    /* What opening changed (the seed, a newer configuration) cannot be saved, and is no
     * reason for a command that only reads to fail. */
    if (e->readonly_why[0] || e->read_only)
        brock__store_marks_clear(e);
    e->health.connected = 1;
    /* Loaded: from here on a store thread may do the store's work. */
    if (cfg->store_thread && e->store && !e->read_only && !e->readonly_why[0] &&
        e->store_ops->background && (rc = e->store_ops->background(e)) < 0)
        return rc;
    return 0;
}

int brock_engine_open(const struct brock_config *cfg, struct brock_engine **out, char *err,
                      size_t errlen)
{
    struct brock_engine *e;
    int rc;

    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    e = brock__engine_alloc(cfg);
    if (!e) {
        if (err)
            snprintf(err, errlen, "out of memory");
        return BROCK_ENOMEM;
    }
    if ((rc = brock__engine_settings_init(e)) < 0 || (rc = engine_load_state(e, cfg)) < 0 ||
        (rc = engine_settle(e, cfg)) < 0)
        goto fail;
    *out = e;
    return 0;
fail:
    if (err)
        snprintf(err, errlen, "%s", e->errmsg[0] ? e->errmsg : brock_strerror(rc));
    if (e->store)
        brock__store_discard(e);
    brock__engine_free(e);
    return rc;
}

void brock_engine_free(struct brock_engine *e)
{
    if (!e)
        return;
    /* Unsynced changes are dropped: a command that failed half-way must write nothing. */
    if (e->store)
        brock__store_close(e);
    brock__engine_free(e);
}
