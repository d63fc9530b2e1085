/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A hash map from strings to pointers: open addressing, linear probing, a per-map random
 * seed so that names chosen by a remote party cannot be made to collide. Lookups allocate
 * nothing. Keys are copied; values are the caller's. */
#ifndef BROCK_UTIL_STRMAP_H
#define BROCK_UTIL_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
    char *key; /* NULL: empty; STRMAP_TOMB: deleted */
    void *val;
    uint64_t hash;
};

struct strmap {
    struct strmap_slot *slots;
    size_t cap;  /* a power of two, or 0 */
    size_t len;  /* live keys */
    size_t used; /* live keys and tombstones */
    uint64_t seed;
    int borrowed; /* keys are the caller's, not copied (strmap_init_borrowed()) */
};

void strmap_init(struct strmap *m);

/* The same for a map whose keys are not copied: each key put must stay as it is, at the same
 * place, as long as it is in the map (strings of an arena's, say). Nothing frees them. */
void strmap_init_borrowed(struct strmap *m);

/* Frees the keys (but borrowed ones) and, with free_val, every value; leaves m empty and
 * reusable. */
void strmap_cleanup(struct strmap *m, void (*free_val)(void *));

/* The value for key (n bytes, not necessarily NUL-terminated), or NULL. */
void *strmap_getn(const struct strmap *m, const char *key, size_t n);
void *strmap_get(const struct strmap *m, const char *key);

/* Sets key to val (not NULL), replacing any value (the old one is not freed). Returns 0, or
 * -1 when out of memory (m unchanged). */
int strmap_put(struct strmap *m, const char *key, void *val) __attribute__((warn_unused_result));

/* Makes room for n keys in all, so that putting them does not grow the table again. Returns
 * 0, or -1 when out of memory (m unchanged). */
int strmap_reserve(struct strmap *m, size_t n) __attribute__((warn_unused_result));

/* Removes key; returns its value, or NULL if it was absent. */
void *strmap_del(struct strmap *m, const char *key);

/* Iteration: start with *it = 0; returns 0 when done. Do not insert while iterating;
 * deleting the current key is allowed. */
int strmap_next(const struct strmap *m, size_t *it, const char **key, void **val);

#endif
