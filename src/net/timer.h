/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Timers on the event loop, set one way wherever brock waits (the proxy's sync, the jobs'
 * deadlines and schedules): a delay in milliseconds. */
#ifndef BROCK_NET_TIMER_H
#define BROCK_NET_TIMER_H

#include <stdint.h>

#include <event2/event.h>

/* A timer on base that calls cb(-1, EV_TIMEOUT, arg) ms milliseconds from now (at the loop's
 * next turn when ms <= 0), and every ms milliseconds after that when repeat. Returns the
 * event (event_free() stops and frees it), or NULL when out of memory. */
struct event *timer_start(struct event_base *base, int64_t ms, int repeat, event_callback_fn cb,
                          void *arg);

/* Arms t, made by timer_start() or evtimer_new(), to fire ms milliseconds from now (at the
 * loop's next turn when ms <= 0), in place of any earlier time. Returns 0, or -1. */
int timer_arm(struct event *t, int64_t ms) __attribute__((warn_unused_result));

#endif
