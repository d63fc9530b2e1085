/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "util/arena.h"

#include <stdalign.h>
#include <stdint.h>

#include "util/alloc.h"

struct arena_chunk {
    struct arena_chunk *next;
    size_t size, used;
    alignas(max_align_t) unsigned char data[];
};

#define ARENA_ALIGN (alignof(max_align_t))

void arena_init(struct arena *a, size_t chunk)
{
    a->head = NULL;
    a->keep = NULL;
    a->chunk = chunk;
}

static struct arena_chunk *chunk_new(size_t size)
{
    struct arena_chunk *c;

    if (size > SIZE_MAX - sizeof(*c))
        return NULL;
    c = mem_malloc(sizeof(*c) + size);
    if (!c)
        return NULL;
    c->next = NULL;
    c->size = size;
    c->used = 0;
    return c;
}

void *arena_alloc(struct arena *a, size_t n)
{
    struct arena_chunk *c = a->head;

    if (n > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    n = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    if (!n)
        n = ARENA_ALIGN;
    if (c && c->size - c->used >= n) {
        void *p = c->data + c->used;

        c->used += n;
        return p;
    }
    /* A large request gets a chunk of its own, behind the one allocated from. */
    if (n > a->chunk / 4) {
        struct arena_chunk *big = chunk_new(n);

        if (!big)
            return NULL;
        big->used = n;
        if (c) {
            big->next = c->next;
            c->next = big;
        } else {
            a->head = big;
        }
        return big->data;
    }
    c = chunk_new(a->chunk);
    if (!c)
        return NULL;
    c->next = a->head;
    a->head = c;
    if (!a->keep)
        a->keep = c;
    c->used = n;
    return c->data;
}

int arena_owns(const struct arena *a, const void *p)
{
    uintptr_t q = (uintptr_t)p;

    for (const struct arena_chunk *c = a->head; c; c = c->next)
        if (q >= (uintptr_t)c->data && q < (uintptr_t)c->data + c->size)
            return 1;
    return 0;
}

void arena_reset(struct arena *a)
{
    struct arena_chunk *c = a->head, *next;

    for (; c; c = next) {
        next = c->next;
        if (c != a->keep)
            mem_free(c);
    }
    a->head = a->keep;
    if (a->keep) {
        a->keep->next = NULL;
        a->keep->used = 0;
    }
}

void arena_cleanup(struct arena *a)
{
    arena_reset(a);
    mem_free(a->keep);
    a->head = a->keep = NULL;
}
