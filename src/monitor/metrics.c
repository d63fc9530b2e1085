/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proxy's counters for /metrics: the per-tracker table kept bounded, the sync times put in
 * their buckets. */
#include "monitor/metrics.h"

#include <string.h>

#include "util/alloc.h"

/* The upper bounds of the store's sync time buckets, in seconds: a sync with nothing to
 * write takes microseconds, a first seed a second or more. */
const double metrics_sync_bounds[METRICS_SYNC_BUCKETS] = {0.001, 0.0025, 0.005, 0.01, 0.025,
                                                          0.05,  0.1,    0.5,   1.0};

int metrics_init(struct metrics *m)
{
    memset(m, 0, sizeof(*m));
    m->blocked = mem_calloc(1, sizeof(*m->blocked));
    if (!m->blocked)
        return -1;
    strmap_init(m->blocked);
    return 0;
}

void metrics_cleanup(struct metrics *m)
{
    if (m->blocked) {
        strmap_cleanup(m->blocked, mem_free);
        mem_free(m->blocked);
    }
    m->blocked = NULL;
}

void metrics_blocked(struct metrics *m, const char *tracker)
{
    uint64_t *n = m->blocked ? strmap_get(m->blocked, tracker) : NULL;

    if (!n && m->blocked && m->blocked->len < METRICS_TRACKERS_MAX && *tracker) {
        n = mem_calloc(1, sizeof(*n));
        if (n && strmap_put(m->blocked, tracker, n) < 0) {
            mem_free(n);
            n = NULL;
        }
    }
    if (n)
        (*n)++;
    else
        m->blocked_other++;
}

void metrics_sync(struct metrics *m, double seconds)
{
    for (size_t i = 0; i < METRICS_SYNC_BUCKETS; i++) {
        if (seconds <= metrics_sync_bounds[i]) {
            m->sync_buckets[i]++;
            break;
        }
    }
    m->sync_count++;
    m->sync_seconds += seconds;
}
