/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The daily refresh of Privacy Badger's configuration inside `brock run`: the same fetch and
 * the same all-or-nothing application as `brock update`, on a timer. */
#include "jobs/refresh.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "brock.h"
#include "net/timer.h"
#include "util/log.h"
#include "util/alloc.h"

struct refresh {
    struct dial_env env;
    struct brock_engine *engine;
    struct event *timer;
    struct fetch *f;
    char url[512];
};

static int64_t wall_ms(void)
{
    struct timeval tv;

    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void arm(struct refresh *r, int64_t seconds)
{
    if (timer_arm(r->timer, (seconds > 0 ? seconds : 1) * 1000) < 0)
        log_msg(LOG_ERR, "update: could not schedule the next refresh");
}

static void on_fetched(void *arg, const struct fetch_result *res)
{
    struct refresh *r = arg;
    struct brock_update_stats st;

    r->f = NULL;
    if (res->status != FETCH_OK) {
        log_msg(LOG_ERR, "update: %s failed: %s; the lists stay as they were", r->url, res->why);
        arm(r, REFRESH_RETRY_S);
        return;
    }
    if (brock_update_apply(r->engine, r->url, res->body, res->len, wall_ms(), &st) < 0) {
        log_msg(LOG_ERR, "update: %s; the lists stay as they were",
                brock_engine_errmsg(r->engine));
        arm(r, REFRESH_RETRY_S);
        return;
    }
    log_msg(LOG_INFO, "update: applied %s: %zu cookieblock domains (%zu added, %zu removed), "
            "%zu new DNT policies, %zu site fixes", r->url, st.yellow, st.added, st.removed,
            st.hashes_added, st.site_fixes);
    arm(r, REFRESH_EVERY_S);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    struct refresh *r = arg;

    (void)fd;
    (void)what;
    if (fetch_start(&r->env, r->url, FETCH_PBCONFIG_MAX, on_fetched, r, &r->f) < 0) {
        log_msg(LOG_ERR, "update: cannot fetch %s", r->url);
        arm(r, REFRESH_RETRY_S);
    }
}

struct refresh *refresh_new(const struct dial_env *env, struct brock_engine *e,
                            const char *url)
{
    struct refresh *r = mem_calloc(1, sizeof(*r));
    int64_t last, wait;

    if (!r)
        return NULL;
    r->env = *env;
    r->engine = e;
    snprintf(r->url, sizeof(r->url), "%s", url);
    r->timer = evtimer_new(env->base, on_timer, r);
    if (!r->timer) {
        mem_free(r);
        return NULL;
    }
    last = brock_update_time(e);
    wait = last ? (last + (int64_t)REFRESH_EVERY_S * 1000 - wall_ms()) / 1000 : REFRESH_FIRST_S;
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
