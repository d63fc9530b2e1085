/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Live lists (dash_lists.c): the validators of /lists/NAME and the answer to a conditional
 * request. Pure but for the clock and the memory of each list's content in this start. */
#ifndef BROCK_DASH_LISTS_H
#define BROCK_DASH_LISTS_H

#include <stddef.h>
#include <time.h>

/* More formats than brock writes: a list past it is dated at each change of its content. */
#define DASH_LISTS_MAX 16

struct dash_list_seen {
    char format[16];
    char etag[35];
    time_t since; /* when this start first served this etag for format */
};

/* What the dashboard remembers of the lists it served. Zeroed to start. */
struct dash_lists {
    struct dash_list_seen seen[DASH_LISTS_MAX];
    size_t n;
};

struct dash_list_answer {
    char etag[35];          /* "\"<32 hex>\"" */
    char last_modified[32]; /* an HTTP date */
    int not_modified;       /* 1: answer 304 */
};

/* The validators of the list text (len bytes) in format, and whether the request's
 * If-None-Match or If-Modified-Since (NULL when absent) make the answer a 304. Returns 0,
 * or -1 when the hash fails. */
int dash_list_answer(struct dash_lists *l, const char *format, const char *text, size_t len,
                     const char *if_none_match, const char *if_modified_since,
                     struct dash_list_answer *a) __attribute__((warn_unused_result));

#endif
