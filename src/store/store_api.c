/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The store's interface: its calls go through the back end's table (store_api.h), syncing an
 * engine with its store (brock_sync(), brock_store_wait()), and how writing fares, kept here
 * the same for every back end, for brock_store_status().
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "store/store_api.h"
#include "util/clock.h"

int brock__store_load(struct brock_engine *e)
{
    return e->store ? e->store_ops->load(e) : 0;
}

int brock__store_flush(struct brock_engine *e)
{
    return e->store ? e->store_ops->flush(e) : 0;
}

int brock__store_poll(struct brock_engine *e)
{
    return e->store ? e->store_ops->poll(e) : 0;
}

int brock__store_check(struct brock_engine *e)
{
    return e->store && e->store_ops->check ? e->store_ops->check(e) : 0;
}

int brock__store_meta_get(struct brock_engine *e, const char *key, char **out)
{
    *out = NULL;
    return e->store ? e->store_ops->meta_get(e, key, out) : 0;
}

void brock__store_close(struct brock_engine *e)
{
    if (e && e->store)
        e->store_ops->close(e);
}

void brock__store_discard(struct brock_engine *e)
{
    if (e && e->store)
        e->store_ops->discard(e);
}

/* ---- syncing ---- */

int brock__store_unsaved(const struct brock_engine *e)
{
    return e->dirty || e->deleted.n || e->forgotten.n || e->settings_dirty || e->pbconfig_dirty ||
           e->clearurls_dirty || e->reset_pending || e->seed_mark;
}

/* The file first: one deleted or replaced since the last sync is dealt with before anything
 * is read from it or written to it. */
static int sync_store(struct brock_engine *e)
{
    int picked, rc;

    if ((rc = brock__store_check(e)) != 0)
        return rc < 0 ? rc : 0;
    picked = brock__store_poll(e);
    if (picked < 0)
        return picked;
    /* Trackers other processes learned count toward the cap too. */
    if ((rc = brock__learned_bound(e, NULL)) < 0)
        return rc;
    if (brock__store_unsaved(e) && (rc = brock__store_flush(e)) < 0)
        return rc;
    return picked;
}

int brock_sync(struct brock_engine *e)
{
    int picked;

    /* Page views past the page-view-days setting go first, so the flush writes that. */
    if ((picked = brock__pages_expire(e, 0)) < 0)
        return picked;
    brock__daily_expire(e, 0);
    if (e->read_only)
        return 0;
    if (e->readonly_why[0]) {
        picked = e->store ? brock__store_poll(e) : 0;
        if (picked < 0)
            return picked;
        if (brock__store_unsaved(e) && !e->readonly_ok)
            return brock__fail(e, BROCK_ESTORE, "%s: the changes were not saved", e->readonly_why);
        return picked;
    }
    if (!e->store) {
        e->dirty = 0;
        return 0;
    }
    picked = sync_store(e);
    brock__store_note_result(e, picked);
    if (e->store_ops->health)
        (void)e->store_ops->health(e);
    return picked;
}

int brock_store_wait(struct brock_engine *e, int timeout_ms)
{
    int rc;

    if (!e->store || e->read_only || e->readonly_why[0] || !e->store_ops->wait)
        return 0;
    rc = e->store_ops->wait(e, timeout_ms < 0 ? 0 : timeout_ms);
    if (rc < 0)
        brock__store_note_result(e, rc);
    if (e->store_ops->health)
        (void)e->store_ops->health(e);
    return rc;
}

/* ---- status ---- */

void brock__store_note_result(struct brock_engine *e, int rc)
{
    struct brock__store_health *h = &e->health;

    if (!e->store)
        return;
    h->failing = rc < 0;
    if (rc < 0) {
        snprintf(h->last_error, sizeof(h->last_error), "%s",
                 e->errmsg[0] ? e->errmsg : brock_strerror(rc));
        h->last_error_ms = clock_now_ms();
    }
}

void brock__store_note_event(struct brock_engine *e, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(e->health.event, sizeof(e->health.event), fmt, ap);
    va_end(ap);
    e->health.event_ms = clock_now_ms();
}

void brock_store_status(const struct brock_engine *e, struct brock_store_status *st)
{
    const struct brock__store_health *h = &e->health;

    memset(st, 0, sizeof(*st));
    st->kind = BROCK_STORE_FILE;
    st->path = e->store ? e->store_ops->where(e) : "";
    st->why = "";
    st->last_error = "";
    st->event = "";
    if (e->read_only) {
        st->kind = BROCK_STORE_READONLY;
        st->why = "opened only to read";
    } else if (e->readonly_why[0]) {
        st->kind = BROCK_STORE_READONLY;
        st->why = e->readonly_why;
    } else if (!e->store) {
        st->kind = BROCK_STORE_MEMORY;
    }
    st->backend = e->store ? e->store_ops->name : "";
    st->connected = !e->store || h->connected;
    st->pending = (uint64_t)e->dirty + e->deleted.n + (e->store ? h->queued : 0);
    if (!e->store)
        return;
    st->since_ms = h->since_ms;
    st->last_write_ms = h->last_write_ms;
    st->failing = h->failing;
    st->last_error = h->last_error;
    st->last_error_ms = h->last_error_ms;
    st->recreated = h->recreated;
    st->reloaded = h->reloaded;
    st->event = h->event;
    st->event_ms = h->event_ms;
    st->refused = h->refused;
}
