/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The ends of brock's time off, applied on time: see offtime.h. The engine reads no clock in
 * a decision; this file gives it the time when an end is due, so that the next request (and
 * the dashboard, at once) finds brock on again. */
#include "proxy/offtime.h"

#include <stdio.h>
#include <time.h>

#include <event2/event.h>

#include "brock.h"
#include "net/timer.h"
#include "proxy/conn.h"
#include "proxy/proxy.h"
#include "util/clock.h"
#include "util/log.h"

/* The pause as the log last said it: no pause (until 0), its end, or BROCK_NO_END. One loop
 * per process, as for the sync's lines. */
static int64_t said_until;

/* Each worker ends its own time off, at the same moment; the first says so for all. */
static int says(const struct proxy *px)
{
    return proxy_worker_is_first(px->opts->worker);
}

/* "until 2026-12-06 16:04:05 +0000" (local time), or "until it is resumed". */
static const char *until_words(int64_t until, char *out, size_t size)
{
    time_t t = (time_t)(until / 1000);
    char when[64];
    struct tm tm;

    if (until == BROCK_NO_END || !localtime_r(&t, &tm) ||
        !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm))
        snprintf(out, size, "until it is resumed (brock resume, or the dashboard)");
    else
        snprintf(out, size, "until %s", when);
    return out;
}

static void on_end(void *arg, const char *site)
{
    const struct proxy *px = arg;

    if (site) {
        if (says(px))
            log_msg(LOG_INFO, "brock is on again on %s: its time off ended", site);
        return;
    }
    if (says(px))
        log_msg(LOG_INFO, "resumed: the pause ended");
    said_until = 0;
}

static void on_due(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    offtime_arm(arg);
}

/* Says a pause that began, changed or ended other than by its end coming. */
static void say_change(const struct proxy *px, int64_t now)
{
    int64_t until = 0;
    char words[96];

    if (!brock_paused(px->engine, now, &until))
        until = 0;
    if (until == said_until)
        return;
    if (says(px)) {
        if (until)
            log_msg(LOG_INFO,
                    "paused %s: brock blocks nothing and changes no request, as on "
                    "a disabled site",
                    until_words(until, words, sizeof(words)));
        else
            log_msg(LOG_INFO, "resumed");
    }
    said_until = until;
}

void offtime_arm(struct proxy *px)
{
    int64_t now = clock_now_ms(), next;

    if (!px->engine)
        return;
    next = brock_next_end(px->engine);
    /* What is due ends here, whoever calls: the timer, or a sync when the timer is late or
     * could not be made. Before the change is looked at, so that an end is said once. */
    if (next && next <= now) {
        (void)brock_expire(px->engine, now, on_end, px);
        next = brock_next_end(px->engine);
    }
    say_change(px, now);
    if (!px->offtime && next)
        px->offtime = evtimer_new(px->base, on_due, px);
    if (!px->offtime)
        return;
    if (!next) {
        evtimer_del(px->offtime);
        return;
    }
    /* The loop's timers run on the monotonic clock and ends are wall-clock times: armed
     * again after each sync, once a second, a change of the wall clock is followed within
     * one. An end already due fires at the loop's next turn. */
    if (timer_arm(px->offtime, next - now) < 0)
        log_msg(LOG_ERR, "could not set the timer of the pause's end: it ends at the sync "
                         "after it instead");
}

void offtime_free(struct proxy *px)
{
    if (px->offtime)
        event_free(px->offtime);
    px->offtime = NULL;
}
