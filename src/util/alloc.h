/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The allocator every part of brock uses, replaceable as a whole (brock_replace_allocator). */
#ifndef BROCK_UTIL_ALLOC_H
#define BROCK_UTIL_ALLOC_H

#include <stddef.h>

struct mem_funcs {
    void *(*malloc_fn)(size_t);
    void *(*realloc_fn)(void *, size_t);
    void *(*calloc_fn)(size_t, size_t);
    void (*free_fn)(void *);
};

/* The functions in force; defaults are the C library's. */
extern struct mem_funcs mem_funcs;

static inline void *mem_malloc(size_t n)
{
    return mem_funcs.malloc_fn(n ? n : 1);
}
static inline void *mem_calloc(size_t n, size_t sz)
{
    return mem_funcs.calloc_fn(n ? n : 1, sz ? sz : 1);
}
static inline void *mem_realloc(void *p, size_t n)
{
    return mem_funcs.realloc_fn(p, n ? n : 1);
}
static inline void mem_free(void *p)
{
    if (p)
        mem_funcs.free_fn(p);
}

/* Copies of strings; NULL when out of memory. */
char *mem_strdup(const char *s);
char *mem_strndup(const char *s, size_t n);

/* Grows *v (an array of *cap elements of size sz) to hold at least need elements.
 * Returns 0, or -1 when out of memory (then *v is unchanged). */
int mem_grow(void *v, size_t *cap, size_t need, size_t sz) __attribute__((warn_unused_result));

#endif
