/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proxy's log: one line per event on stderr, filtered by the verbosity of `brock run`. */
#ifndef BROCK_PROXY_LOG_H
#define BROCK_PROXY_LOG_H

enum log_level {
    LOG_ERR = 0,   /* shown even with -q */
    LOG_INFO = 1,  /* the default: blocks, cookieblocks, learning */
    LOG_DEBUG = 2, /* -v: every request */
};

/* The level at and below which lines are printed. */
extern int log_verbosity;

/* Prints "brock: " and the formatted text as one line when level is shown. */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline int log_enabled(enum log_level level) { return (int)level <= log_verbosity; }

#endif
