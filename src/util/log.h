/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proxy's log: one line per event on stderr, filtered by the verbosity of `brock run`.
 * Each line is "2026-12-03 16:04:05.123 +0100 brock: " and the text: the local time with
 * milliseconds and the UTC offset, left out when JOURNAL_STREAM says the journal records it. */
#ifndef BROCK_UTIL_LOG_H
#define BROCK_UTIL_LOG_H

#include <stddef.h>

enum log_level {
    LOG_ERR = 0,   /* shown even with -q: brock's own failures (the state, memory, accept) */
    LOG_INFO = 1,  /* the default: blocks, cookieblocks, learning, one line per refusal */
    LOG_DEBUG = 2, /* -v: every request, and every connection's close */
};

/* The level at and below which lines are printed. */
extern int log_verbosity;

/* Prints the time stamp, "brock: " and the formatted text as one line when level is shown. */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes the time stamp that starts a line, with its trailing space, into out (size bytes,
 * NUL-terminated), for a line printed by other means than log_msg(). Returns its length: 0
 * when lines go unstamped (JOURNAL_STREAM is set) or out is too small. */
size_t log_stamp(char *out, size_t size);

/* Points stderr, and so every line, at the file path (appended to, created mode 0600), for
 * log_reopen() to open again later. Returns 0, or -errno with stderr unchanged. */
int log_open(const char *path) __attribute__((warn_unused_result));

/* Opens the file log_open() named again under its name, for the lines that follow: after a
 * log rotation moved it away (SIGHUP). Returns 1 when it did; 0 while lines go to the stderr
 * brock was given, which it leaves alone; or -errno with lines still going where they went. */
int log_reopen(void) __attribute__((warn_unused_result));

static inline int log_enabled(enum log_level level)
{
    return (int)level <= log_verbosity;
}

#endif
