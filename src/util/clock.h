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

#endif
