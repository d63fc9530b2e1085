/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Privacy Badger's configuration and ClearURLs' rules fetched and each applied all or
 * nothing: daily inside `brock run`, on a timer, and at once for `brock update`, one way. */
#include "jobs/refresh.h"

#include <stdio.h>
#include <string.h>

#include "brock.h"
#include "jobs/fetch.h"
#include "jobs/jobs.h"
#include "net/timer.h"
#include "util/log.h"
#include "util/alloc.h"
#include "util/clock.h"

struct refresh {
    struct dial_env env;
    struct brock_engine *engine;
    struct event *timer;
    struct fetch *f;
    int failed; /* this round's pbconfig.json failed: the round is tried again sooner */
};

static void arm(struct refresh *r, int64_t seconds)
{
    if (timer_arm(r->timer, (seconds > 0 ? seconds : 1) * 1000) < 0)
        log_msg(LOG_ERR, "update: could not schedule the next refresh");
}

/* Applies a fetched configuration to e, whole or not at all. Returns 0, or -1 with e's
 * message saying why (e unchanged). */
static int apply(struct brock_engine *e, const struct fetch_result *res,
                 struct brock_update_stats *st)
{
    return brock_update_apply(e, JOBS_PBCONFIG_URL, res->body, res->len, clock_now_ms(), st);
}

/* ---- daily, in brock run ---- */

/* ClearURLs' rules in, or not: the round ends, and the next is armed. */
static void on_clean_fetched(void *arg, const struct fetch_result *res)
{
    struct refresh *r = arg;
    int failed = r->failed;

    r->f = NULL;
    if (res->status != FETCH_OK) {
        log_msg(LOG_ERR, "update: %s failed: %s; the rules stay as they were", JOBS_CLEARURLS_URL,
                res->why);
        failed = 1;
    } else if (brock_clearurls_update(r->engine, res->body, res->len, clock_now_ms()) < 0) {
        log_msg(LOG_ERR, "update: %s; the rules stay as they were", brock_engine_errmsg(r->engine));
        failed = 1;
    } else {
        log_msg(LOG_INFO, "update: applied %s: %zu providers", JOBS_CLEARURLS_URL,
                brock_clearurls_providers(r->engine, NULL));
    }
    arm(r, failed ? REFRESH_RETRY_S : REFRESH_EVERY_S);
}

static void on_fetched(void *arg, const struct fetch_result *res)
{
    struct refresh *r = arg;
    struct brock_update_stats st;

    r->f = NULL;
    r->failed = 1;
    if (res->status != FETCH_OK) {
        log_msg(LOG_ERR, "update: %s failed: %s; the lists stay as they were", JOBS_PBCONFIG_URL,
                res->why);
    } else if (apply(r->engine, res, &st) < 0) {
        log_msg(LOG_ERR, "update: %s; the lists stay as they were", brock_engine_errmsg(r->engine));
    } else {
        r->failed = 0;
        log_msg(LOG_INFO,
                "update: applied %s: %zu cookieblock domains (%zu added, %zu removed), "
                "%zu new DNT policies, %zu site fixes",
                JOBS_PBCONFIG_URL, st.yellow, st.added, st.removed, st.hashes_added, st.site_fixes);
    }
    /* Then ClearURLs' rules, whatever became of the lists. */
    if (fetch_start(&r->env, JOBS_CLEARURLS_URL, FETCH_CLEARURLS_MAX, on_clean_fetched, r, &r->f) <
        0) {
        log_msg(LOG_ERR, "update: cannot fetch %s", JOBS_CLEARURLS_URL);
        arm(r, REFRESH_RETRY_S);
    }
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    struct refresh *r = arg;

    (void)fd;
    (void)what;
    if (fetch_start(&r->env, JOBS_PBCONFIG_URL, FETCH_PBCONFIG_MAX, on_fetched, r, &r->f) < 0) {
        log_msg(LOG_ERR, "update: cannot fetch %s", JOBS_PBCONFIG_URL);
        arm(r, REFRESH_RETRY_S);
    }
}

struct refresh *refresh_new(const struct dial_env *env, struct brock_engine *e)
{
    struct refresh *r = mem_calloc(1, sizeof(*r));
    int64_t last, wait;

    if (!r)
        return NULL;
    r->env = *env;
    r->engine = e;
    r->timer = evtimer_new(env->base, on_timer, r);
    if (!r->timer) {
        mem_free(r);
        return NULL;
    }
    last = brock_update_time(e);
    wait =
        last ? (last + (int64_t)REFRESH_EVERY_S * 1000 - clock_now_ms()) / 1000 : REFRESH_FIRST_S;
    arm(r, wait < 60 ? 60 : wait);
    return r;
}

void refresh_free(struct refresh *r)
{
    if (!r)
        return;
    fetch_cancel(r->f);
    event_free(r->timer);
    mem_free(r);
}

/* ---- at once (brock update) ---- */

struct update_once {
    struct brock_engine *e;
    struct brock_update_stats *st;
    char *err;
    size_t errlen;
    int rc;
};

static void on_updated(void *arg, const struct fetch_result *res)
{
    struct update_once *o = arg;

    if (res->status != FETCH_OK) {
        snprintf(o->err, o->errlen, "cannot fetch %s: %s; the lists stay as they were",
                 JOBS_PBCONFIG_URL, res->why);
        return;
    }
    if (apply(o->e, res, o->st) < 0) {
        snprintf(o->err, o->errlen, "%s The lists stay as they were.", brock_engine_errmsg(o->e));
        return;
    }
    o->rc = 0;
}

int jobs_update(struct brock_engine *e, const struct jobs_options *o, struct brock_update_stats *st,
                char *err, size_t errlen)
{
    struct update_once once = {e, st, err, errlen, -1};

    if (fetch_once(o, JOBS_PBCONFIG_URL, FETCH_PBCONFIG_MAX, on_updated, &once, err, errlen) < 0)
        return -1;
    return once.rc;
}

/* ---- ClearURLs' rules at once (brock update) ---- */

struct clean_once {
    struct brock_engine *e;
    size_t *providers;
    char *err;
    size_t errlen;
    int rc;
};

static void on_clean_updated(void *arg, const struct fetch_result *res)
{
    struct clean_once *o = arg;

    if (res->status != FETCH_OK) {
        snprintf(o->err, o->errlen, "cannot fetch %s: %s; the rules stay as they were",
                 JOBS_CLEARURLS_URL, res->why);
        return;
    }
    if (brock_clearurls_update(o->e, res->body, res->len, clock_now_ms()) < 0) {
        snprintf(o->err, o->errlen, "%s: %s The rules stay as they were.", JOBS_CLEARURLS_URL,
                 brock_engine_errmsg(o->e));
        return;
    }
    *o->providers = brock_clearurls_providers(o->e, NULL);
    o->rc = 0;
}

int jobs_update_clearurls(struct brock_engine *e, const struct jobs_options *o, size_t *providers,
                          char *err, size_t errlen)
{
    struct clean_once once = {e, providers, err, errlen, -1};

    if (fetch_once(o, JOBS_CLEARURLS_URL, FETCH_CLEARURLS_MAX, on_clean_updated, &once, err,
                   errlen) < 0)
        return -1;
    return once.rc;
}
