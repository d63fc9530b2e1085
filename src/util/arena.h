/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A bump arena: many small allocations made one after another and released all at once, for
 * values that live and die together (one element of a document being read). Its chunks come
 * from mem_malloc(); one chunk is kept across resets.
 */
#ifndef BROCK_UTIL_ARENA_H
#define BROCK_UTIL_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head; /* the chunk allocated from; others follow it */
    struct arena_chunk *keep; /* the first chunk of the standard size, kept by resets */
    size_t chunk;             /* the standard size of a chunk */
};

/* An empty arena whose chunks are chunk bytes (larger requests get a chunk of their own). */
void arena_init(struct arena *a, size_t chunk);

/* n bytes, aligned as malloc's are; NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t n);

/* Whether p was given by a (and not released since). */
int arena_owns(const struct arena *a, const void *p);

/* Releases everything given, keeping one chunk for what comes next. */
void arena_reset(struct arena *a);

/* Releases everything, the kept chunk too. */
void arena_cleanup(struct arena *a);

#endif
