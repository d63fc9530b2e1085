/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The time as brock records it: Unix milliseconds. */
#ifndef BROCK_UTIL_CLOCK_H
#define BROCK_UTIL_CLOCK_H

#include <stdint.h>
#include <sys/time.h>

/* The wall clock now, in Unix milliseconds. */
int64_t clock_now_ms(void);

/* A time of day (as libevent's loop caches it, say) in Unix milliseconds. */
static inline int64_t clock_tv_ms(const struct timeval *tv)
{
    return (int64_t)tv->tv_sec * 1000 + tv->tv_usec / 1000;
}

/* Days from 1970-01-01 to the date y-m-d (m 1 to 12) of the proleptic Gregorian calendar,
 * negative before; the inverse of civil-from-days, for any year. */
int64_t clock_days_from_civil(int64_t y, int m, int d);

#endif
