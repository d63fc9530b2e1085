/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Log lines to stderr, written with one call each so that lines never interleave, each
 * stamped with the local time unless the journal stamps them itself; stderr may be a file,
 * opened again under its name after a log rotation. */
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int log_verbosity = LOG_INFO;

/* The file stderr was pointed at by log_open(); "" while stderr is what brock was given. */
static char log_path[4096];

/* systemd sets JOURNAL_STREAM for a service whose stderr goes to the journal, which records
 * the time of every line: a second stamp would only repeat it. Read once, at the first line. */
static int log_stamps(void)
{
    static int stamps = -1;

    if (stamps < 0) {
        const char *journal = getenv("JOURNAL_STREAM");

        stamps = !journal || !journal[0];
        /* The UTC offset follows the machine's zone from the first line on. */
        tzset();
    }
    return stamps;
}

size_t log_stamp(char *out, size_t size)
{
    struct timespec ts;
    struct tm tm;
    char date[32], zone[8];
    int n;

    if (size == 0)
        return 0;
    out[0] = '\0';
    if (!log_stamps() || clock_gettime(CLOCK_REALTIME, &ts) != 0 || !localtime_r(&ts.tv_sec, &tm) ||
        strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm) == 0 ||
        strftime(zone, sizeof(zone), "%z", &tm) == 0)
        return 0;
    n = snprintf(out, size, "%s.%03ld %s ", date, (long)(ts.tv_nsec / 1000000), zone);
    if (n < 0 || (size_t)n >= size) {
        out[0] = '\0';
        return 0;
    }
    return (size_t)n;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    char line[1024];
    size_t used;
    va_list ap;
    int n;

    if (!log_enabled(level))
        return;
    used = log_stamp(line, sizeof(line));
    memcpy(line + used, "brock: ", 7);
    used += 7;
    va_start(ap, fmt);
    n = vsnprintf(line + used, sizeof(line) - used - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    /* A longer line is cut, and still ends with its line feed. */
    if ((size_t)n > sizeof(line) - used - 2)
        n = (int)(sizeof(line) - used - 2);
    used += (size_t)n;
    line[used++] = '\n';
    /* A log line lost to a full pipe is not worth stopping for. */
    if (write(STDERR_FILENO, line, used) < 0)
        return;
}

/* The file goes over stderr, so that whatever else writes there (libevent's own warnings)
 * lands in it too. */
static int log_point_stderr(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600), err;

    if (fd < 0)
        return -errno;
    if (dup2(fd, STDERR_FILENO) < 0) {
        err = errno;
        close(fd);
        return -err;
    }
    close(fd);
    return 0;
}

int log_open(const char *path)
{
    int rc;

    if (strlen(path) >= sizeof(log_path))
        return -ENAMETOOLONG;
    rc = log_point_stderr(path);
    if (rc == 0)
        memcpy(log_path, path, strlen(path) + 1);
    return rc;
}

int log_reopen(void)
{
    int rc;

    if (!log_path[0])
        return 0;
    rc = log_point_stderr(log_path);
    return rc < 0 ? rc : 1;
}
