/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The replaceable allocator. */
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mem_funcs mem_funcs = {malloc, realloc, calloc, free};

char *mem_strndup(const char *s, size_t n)
{
    char *p = mem_malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

char *mem_strdup(const char *s)
{
    return mem_strndup(s, strlen(s));
}

int mem_grow(void *v, size_t *cap, size_t need, size_t sz)
{
    void **vp = v;
    size_t ncap = *cap ? *cap : 4;
    void *p;

    if (need <= *cap)
        return 0;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / sz)
        return -1;
    p = mem_realloc(*vp, ncap * sz);
    if (!p)
        return -1;
    *vp = p;
    *cap = ncap;
    return 0;
}
