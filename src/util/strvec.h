/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A growing list of owned strings. */
#ifndef BROCK_UTIL_STRVEC_H
#define BROCK_UTIL_STRVEC_H

#include <stddef.h>

struct strvec {
    size_t n, cap;
    char **v;
};

/* Appends a copy of s. Returns 0, or -1 when out of memory (sv is unchanged). */
int strvec_push(struct strvec *sv, const char *s) __attribute__((warn_unused_result));

/* Frees every string and the array; sv is empty again. */
void strvec_cleanup(struct strvec *sv);

#endif
