/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The DNT policy checks (PRIVACY-BADGER.md section 9): a host blocked by a heuristic block
 * is queued, when its check is due, for a fetch of its /.well-known/dnt-policy.txt; one
 * fetch starts per second at most, and the outcome is recorded in the engine. */
#ifndef BROCK_JOBS_DNTCHECK_H
#define BROCK_JOBS_DNTCHECK_H

#include <stdint.h>

#include "net/dial.h"

struct brock_engine;
struct dntcheck;

/* Fetches at most this often, in milliseconds (DNT_POLICY_CHECK_INTERVAL). */
#define DNTCHECK_INTERVAL_MS 1000

/* Hosts waiting, and fetches running at once; past either, a host waits for its next due
 * time. */
#define DNTCHECK_QUEUE_MAX 1024
#define DNTCHECK_RUNNING_MAX 8

/* A queue over env (copied; what it points to outlives the queue) and e. NULL when out of
 * memory. */
struct dntcheck *dntcheck_new(const struct dial_env *env, struct brock_engine *e);

/* Stops the queue; running fetches are cancelled, their outcome never recorded. */
void dntcheck_free(struct dntcheck *q);

/* The checks that ended since q started, by what they found (dash.h's METRICS_DNT_*: compliant,
 * not compliant, failed), into out. */
void dntcheck_counts(const struct dntcheck *q, uint64_t out[3]);

/* A request to fqdn (normalised) was just blocked by a heuristic block at now_ms: queues
 * its check if one is due. Never waits. */
void dntcheck_blocked(struct dntcheck *q, const char *fqdn, int64_t now_ms);

#endif
