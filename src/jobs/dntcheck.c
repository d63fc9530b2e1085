/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The DNT policy checks: the queue of `brock run` (first in, first out, one fetch started
 * per interval, each bounded by fetch.c's limits, so that the request path only ever appends
 * a name), and the check `brock dnt` runs at once; both record the outcome one way. */
#include "jobs/dntcheck.h"

#include <stdio.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/util.h>

#include "brock.h"
#include "jobs/fetch.h"
#include "jobs/jobs.h"
#include "net/timer.h"
#include "util/log.h"
#include "util/alloc.h"
#include "util/clock.h"

struct dnt_job {
    LIST_ENTRY(dnt_job) link;
    struct dntcheck *q;
    struct fetch *f;
    char fqdn[BROCK_HOST_MAX];
};

struct dntcheck {
    struct dial_env env;
    struct brock_engine *engine;
    struct event *tick;
    char (*queue)[BROCK_HOST_MAX]; /* a ring of DNTCHECK_QUEUE_MAX names */
    size_t head, n;
    LIST_HEAD(, dnt_job) running;
    size_t n_running;
    int64_t last_start_ms; /* 0: none yet */
    uint64_t counts[3];    /* checks ended: compliant, not compliant, failed */
};

static int64_t loop_now_ms(const struct dntcheck *q)
{
    struct timeval tv;

    event_base_gettimeofday_cached(q->env.base, &tv);
    return clock_tv_ms(&tv);
}

static void arm(struct dntcheck *q, int64_t delay_ms)
{
    /* A tick that cannot be armed (out of memory) leaves the names for the next block. */
    if (timer_arm(q->tick, delay_ms) < 0)
        log_msg(LOG_ERR, "could not schedule the DNT policy checks");
}

static void job_unlink(struct dnt_job *j)
{
    LIST_REMOVE(j, link);
    j->q->n_running--;
}

/* ---- a check's outcome ---- */

static void policy_url(const char *fqdn, char *url, size_t size)
{
    snprintf(url, size, "https://%s/.well-known/dnt-policy.txt", fqdn);
}

/* Records what the fetch of fqdn's policy found: compliant when it is an accepted text.
 * Returns 1 (compliant) or 0, or -1 when e could not record it. */
static int record(struct brock_engine *e, const char *fqdn, const struct fetch_result *r)
{
    int compliant = r->status == FETCH_OK && brock_dnt_policy_accepted(e, r->body, r->len);

    return brock_dnt_record(e, fqdn, compliant) < 0 ? -1 : compliant;
}

/* ---- the queue ---- */

void dntcheck_counts(const struct dntcheck *q, uint64_t out[3])
{
    memcpy(out, q->counts, sizeof(q->counts));
}

static void on_fetched(void *arg, const struct fetch_result *r)
{
    struct dnt_job *j = arg;
    struct dntcheck *q = j->q;
    int compliant = record(q->engine, j->fqdn, r);

    job_unlink(j);
    q->counts[r->status != FETCH_OK ? 2 : compliant == 1 ? 0 : 1]++;
    if (compliant < 0)
        log_msg(LOG_ERR, "recording the DNT policy check of %s failed: %s", j->fqdn,
                brock_engine_errmsg(q->engine));
    else if (compliant)
        log_msg(LOG_INFO, "dnt: %s posts the EFF DNT policy; it passes from now on", j->fqdn);
    else
        log_msg(LOG_INFO, "dnt: %s does not comply: %s", j->fqdn,
                r->status == FETCH_OK ? "its policy text is not an accepted one" : r->why);
    mem_free(j);
}

static void start_one(struct dntcheck *q)
{
    char url[BROCK_HOST_MAX + 64];
    struct dnt_job *j;

    j = mem_calloc(1, sizeof(*j));
    if (!j) {
        log_msg(LOG_ERR, "out of memory for a DNT policy check");
        return;
    }
    memcpy(j->fqdn, q->queue[q->head], sizeof(j->fqdn));
    q->head = (q->head + 1) % DNTCHECK_QUEUE_MAX;
    q->n--;
    j->q = q;
    policy_url(j->fqdn, url, sizeof(url));
    if (fetch_start(&q->env, url, FETCH_DNT_MAX, on_fetched, j, &j->f) < 0) {
        log_msg(LOG_ERR, "cannot check the DNT policy of %s", j->fqdn);
        mem_free(j);
        return;
    }
    log_msg(LOG_DEBUG, "dnt: checking %s", url);
    LIST_INSERT_HEAD(&q->running, j, link);
    q->n_running++;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    struct dntcheck *q = arg;

    (void)fd;
    (void)what;
    if (!q->n)
        return;
    /* A full house waits: the next tick looks again. */
    if (q->n_running < DNTCHECK_RUNNING_MAX) {
        start_one(q);
        q->last_start_ms = loop_now_ms(q);
    }
    if (q->n)
        arm(q, DNTCHECK_INTERVAL_MS);
}

struct dntcheck *dntcheck_new(const struct dial_env *env, struct brock_engine *e)
{
    struct dntcheck *q = mem_calloc(1, sizeof(*q));

    if (!q)
        return NULL;
    q->env = *env;
    q->engine = e;
    q->queue = mem_calloc(DNTCHECK_QUEUE_MAX, sizeof(*q->queue));
    q->tick = evtimer_new(env->base, on_tick, q);
    if (!q->queue || !q->tick) {
        dntcheck_free(q);
        return NULL;
    }
    return q;
}

void dntcheck_free(struct dntcheck *q)
{
    if (!q)
        return;
    while (!LIST_EMPTY(&q->running)) {
        struct dnt_job *j = LIST_FIRST(&q->running);

        job_unlink(j);
        fetch_cancel(j->f);
        mem_free(j);
    }
    if (q->tick)
        event_free(q->tick);
    mem_free(q->queue);
    mem_free(q);
}

void dntcheck_blocked(struct dntcheck *q, const char *fqdn, int64_t now_ms)
{
    uint32_t r;
    int due;

    if (!q || q->n >= DNTCHECK_QUEUE_MAX)
        return;
    evutil_secure_rng_get_bytes(&r, sizeof(r));
    /* Sets the next check 1 to 7 days out whether or not this one is ever fetched. */
    due = brock_dnt_take_due(q->engine, fqdn, now_ms, r);
    if (due <= 0)
        return;
    snprintf(q->queue[(q->head + q->n) % DNTCHECK_QUEUE_MAX], BROCK_HOST_MAX, "%s", fqdn);
    q->n++;
    if (!evtimer_pending(q->tick, NULL))
        arm(q, q->last_start_ms ? q->last_start_ms + DNTCHECK_INTERVAL_MS - now_ms : 0);
}

/* ---- one check now (brock dnt) ---- */

struct dnt_once {
    struct brock_engine *e;
    const char *fqdn;
    struct jobs_dnt_result *r;
    int recorded; /* record()'s result */
};

static void on_checked(void *arg, const struct fetch_result *r)
{
    struct dnt_once *o = arg;

    o->recorded = record(o->e, o->fqdn, r);
    o->r->compliant = o->recorded == 1;
    o->r->fetched = r->status == FETCH_OK;
    o->r->len = r->len;
    snprintf(o->r->why, sizeof(o->r->why), "%s", r->why);
}

int jobs_dnt_check(struct brock_engine *e, const struct jobs_options *o, const char *domain,
                   struct jobs_dnt_result *r, char *err, size_t errlen)
{
    struct dnt_once once = {e, domain, r, -1};

    memset(r, 0, sizeof(*r));
    policy_url(domain, r->url, sizeof(r->url));
    if (fetch_once(o, r->url, FETCH_DNT_MAX, on_checked, &once, err, errlen) < 0)
        return -1;
    if (once.recorded < 0) {
        snprintf(err, errlen, "%s", brock_engine_errmsg(e));
        return -1;
    }
    return 0;
}
