/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Running out of memory on purpose, for the tests of what brock does then: fail_from(n) puts
 * in brock's allocator (util/alloc.h) one whose allocation number n, counting from 0, fails;
 * fail_never() puts the C library's back. alloc_count says how many were asked for since
 * fail_from(): more than n when number n was asked for, and failed. */
#ifndef BROCK_TEST_FAILALLOC_H
#define BROCK_TEST_FAILALLOC_H

#include <stdlib.h>

#include "util/alloc.h"

static long alloc_fail_at = -1, alloc_count;

static inline int alloc_fails(void)
{
    return alloc_fail_at >= 0 && alloc_count++ == alloc_fail_at;
}

static inline void *fail_malloc(size_t n)
{
    return alloc_fails() ? NULL : malloc(n);
}

static inline void *fail_realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : realloc(p, n);
}

static inline void *fail_calloc(size_t n, size_t sz)
{
    return alloc_fails() ? NULL : calloc(n, sz);
}

static inline void fail_from(long n)
{
    static const struct mem_funcs failing = {fail_malloc, fail_realloc, fail_calloc, free};

    alloc_fail_at = n;
    alloc_count = 0;
    mem_funcs = failing;
}

static inline void fail_never(void)
{
    static const struct mem_funcs plain = {malloc, realloc, calloc, free};

    alloc_fail_at = -1;
    mem_funcs = plain;
}

#endif
