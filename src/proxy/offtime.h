/* SPDX-License-Identifier: GPL-3.0-or-later */
/* brock off for a while, on the loop: a timer set to the nearest end of the pause or of a
 * site's time off, which ends it on time whether or not any request comes, and the log lines
 * that say when a pause begins and ends. */
#ifndef BROCK_PROXY_OFFTIME_H
#define BROCK_PROXY_OFFTIME_H

struct proxy;

/* Ends what is due (brock_expire()), sets the timer to the engine's nearest end
 * (brock_next_end()) or stops it when there is none, and says in the log a pause that began
 * or ended since the last call (by this process's dashboard, or another process's change read
 * at a sync). Call it after every change that may have come: a sync, a dashboard request. The
 * first call that finds an end makes the timer; without one (out of memory), what is due ends
 * at the next call. */
void offtime_arm(struct proxy *px);

/* Stops and frees the timer; a proxy without one is left alone. */
void offtime_free(struct proxy *px);

#endif
