/* SPDX-License-Identifier: GPL-3.0-or-later */
/* String-keyed hash map. */
#include "util/strmap.h"

#include <string.h>
#include <sys/random.h>

#include "util/alloc.h"
#include "util/hash.h"

static char strmap_tomb;
#define STRMAP_TOMB (&strmap_tomb)

/* Keyed by the seed; finalised so that every bit of the input reaches the low bits used for
 * the slot. */
static uint64_t hash_bytes(uint64_t seed, const char *s, size_t n)
{
    return hash_final(hash_mix(seed, s, n));
}

void strmap_init(struct strmap *m)
{
    memset(m, 0, sizeof(*m));
    if (getrandom(&m->seed, sizeof(m->seed), GRND_NONBLOCK) != (ssize_t)sizeof(m->seed))
        m->seed = (uint64_t)(uintptr_t)m ^ 0x9e3779b97f4a7c15ULL;
}

void strmap_init_borrowed(struct strmap *m)
{
    strmap_init(m);
    m->borrowed = 1;
}

void strmap_cleanup(struct strmap *m, void (*free_val)(void *))
{
    for (size_t i = 0; i < m->cap; i++) {
        struct strmap_slot *s = &m->slots[i];
        if (s->key && s->key != STRMAP_TOMB) {
            if (free_val)
                free_val(s->val);
            if (!m->borrowed)
                mem_free(s->key);
        }
    }
    mem_free(m->slots);
    m->slots = NULL;
    m->cap = m->len = m->used = 0;
}

static struct strmap_slot *find(const struct strmap *m, const char *key, size_t n, uint64_t h)
{
    size_t mask = m->cap - 1;

    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct strmap_slot *s = &m->slots[i];
        if (!s->key)
            return NULL;
        if (s->key != STRMAP_TOMB && s->hash == h && strncmp(s->key, key, n) == 0 &&
            s->key[n] == '\0')
            return s;
    }
}

void *strmap_getn(const struct strmap *m, const char *key, size_t n)
{
    struct strmap_slot *s;

    if (!m->len)
        return NULL;
    s = find(m, key, n, hash_bytes(m->seed, key, n));
    return s ? s->val : NULL;
}

void *strmap_get(const struct strmap *m, const char *key)
{
    return strmap_getn(m, key, strlen(key));
}

static int resize(struct strmap *m, size_t ncap)
{
    struct strmap_slot *ns = mem_calloc(ncap, sizeof(*ns));

    if (!ns)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        struct strmap_slot *s = &m->slots[i];
        size_t j;
        if (!s->key || s->key == STRMAP_TOMB)
            continue;
        for (j = s->hash & (ncap - 1); ns[j].key; j = (j + 1) & (ncap - 1))
            ;
        ns[j] = *s;
    }
    mem_free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->used = m->len;
    return 0;
}

int strmap_reserve(struct strmap *m, size_t n)
{
    size_t ncap = m->cap ? m->cap : 16;

    /* put's bound: at most 3/4 full, tombstones included. */
    while ((n + 1) * 4 > ncap * 3)
        ncap *= 2;
    return ncap > m->cap || m->used > m->len ? resize(m, ncap) : 0;
}

int strmap_put(struct strmap *m, const char *key, void *val)
{
    size_t n = strlen(key), mask;
    uint64_t h = hash_bytes(m->seed, key, n);
    struct strmap_slot *s, *tomb = NULL;
    char *k;

    if (m->len) {
        s = find(m, key, n, h);
        if (s) {
            s->val = val;
            return 0;
        }
    }
    /* Keep the table at most 3/4 full, tombstones included. */
    if ((m->used + 1) * 4 > m->cap * 3) {
        size_t ncap = m->cap ? m->cap : 16;
        while ((m->len + 1) * 2 > ncap)
            ncap *= 2;
        if (resize(m, ncap) < 0)
            return -1;
    }
    k = m->borrowed ? (char *)(uintptr_t)key : mem_strndup(key, n);
    if (!k)
        return -1;
    mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        s = &m->slots[i];
        if (s->key == STRMAP_TOMB) {
            if (!tomb)
                tomb = s;
            continue;
        }
        if (!s->key)
            break;
    }
    if (tomb)
        s = tomb;
    else
        m->used++;
    s->key = k;
    s->val = val;
    s->hash = h;
    m->len++;
    return 0;
}

void *strmap_del(struct strmap *m, const char *key)
{
    size_t n = strlen(key);
    struct strmap_slot *s;
    void *v;

    if (!m->len)
        return NULL;
    s = find(m, key, n, hash_bytes(m->seed, key, n));
    if (!s)
        return NULL;
    v = s->val;
    if (!m->borrowed)
        mem_free(s->key);
    s->key = STRMAP_TOMB;
    s->val = NULL;
    m->len--;
    return v;
}

int strmap_next(const struct strmap *m, size_t *it, const char **key, void **val)
{
    while (*it < m->cap) {
        struct strmap_slot *s = &m->slots[(*it)++];
        if (s->key && s->key != STRMAP_TOMB) {
            if (key)
                *key = s->key;
            if (val)
                *val = s->val;
            return 1;
        }
    }
    return 0;
}
