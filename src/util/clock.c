/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The wall clock in milliseconds; see clock.h. */
#include "util/clock.h"

#include <time.h>

int64_t clock_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
