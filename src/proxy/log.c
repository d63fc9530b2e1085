/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Log lines to stderr, written with one call each so that lines never interleave. */
#include "proxy/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int log_verbosity = LOG_INFO;

void log_msg(enum log_level level, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int n;

    if (!log_enabled(level))
        return;
    memcpy(line, "brock: ", 7);
    va_start(ap, fmt);
    n = vsnprintf(line + 7, sizeof(line) - 8, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    n += 7;
    if ((size_t)n > sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    /* A log line lost to a full pipe is not worth stopping for. */
    if (write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
}
