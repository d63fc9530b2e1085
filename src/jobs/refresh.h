/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Privacy Badger's configuration kept current while brock runs: pbconfig.json fetched from
 * EFF (JOBS_PBCONFIG_URL) a day after the last update (section 6), applied, and fetched again
 * a day later. `brock update` does the same at once (jobs.h). */
#ifndef BROCK_JOBS_REFRESH_H
#define BROCK_JOBS_REFRESH_H

#include "net/dial.h"

struct brock_engine;
struct refresh;

#define REFRESH_EVERY_S ((int64_t)24 * 60 * 60)
/* A state never updated waits this long after start, so that short runs stay offline. */
#define REFRESH_FIRST_S ((int64_t)10 * 60)
/* After a failure. */
#define REFRESH_RETRY_S ((int64_t)60 * 60)

/* Schedules the refreshes on env (copied) for e. NULL when out of memory. */
struct refresh *refresh_new(const struct dial_env *env, struct brock_engine *e);
void refresh_free(struct refresh *r);

#endif
