/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Milliseconds to libevent's timevals, in one place. */
#include "net/timer.h"

#include <sys/time.h>

int timer_arm(struct event *t, int64_t ms)
{
    struct timeval tv;

    if (ms < 0)
        ms = 0;
    tv.tv_sec = (time_t)(ms / 1000);
    tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
    return event_add(t, &tv);
}

struct event *timer_start(struct event_base *base, int64_t ms, int repeat, event_callback_fn cb,
                          void *arg)
{
    struct event *t = event_new(base, -1, repeat ? EV_PERSIST : 0, cb, arg);

    if (t && timer_arm(t, ms) < 0) {
        event_free(t);
        t = NULL;
    }
    return t;
}
