/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A keyed hash of short byte strings (host names, mostly), eight bytes at a time: the maps,
 * the base domain cache and the kept answers all hash with it. Every byte is read once, the
 * last word overlapping the one before rather than copied byte by byte, so a 20-byte name
 * costs three multiplications. */
#ifndef BROCK_UTIL_HASH_H
#define BROCK_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t hash_load64(const char *p)
{
    uint64_t w;

    memcpy(&w, p, 8);
    return w;
}

static inline uint64_t hash_load32(const char *p)
{
    uint32_t w;

    memcpy(&w, p, 4);
    return w;
}

static inline uint64_t hash_round(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9fb21c651e98df25ULL;
    return h ^ (h >> 29);
}

/* h carried on over the n bytes at s; the length is part of it, so that two names whose
 * words overlap differently never read alike. */
static inline uint64_t hash_mix(uint64_t h, const char *s, size_t n)
{
    uint64_t w;

    h = hash_round(h, (uint64_t)n);
    if (n >= 8) {
        for (; n > 8; s += 8, n -= 8)
            h = hash_round(h, hash_load64(s));
        w = hash_load64(s + n - 8);
    } else if (n >= 4) {
        w = hash_load32(s) | hash_load32(s + n - 4) << 32;
    } else if (n > 0) {
        w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
            (uint64_t)(unsigned char)s[n - 1] << 16;
    } else {
        w = 0;
    }
    return hash_round(h, w);
}

/* Every bit of h into the low ones, which pick a slot (MurmurHash3's fmix64). */
static inline uint64_t hash_final(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

/* One label of a name carried into h: a label under eight bytes is one word with its length
 * in the top byte, which no byte of it reaches (one round); a longer one as hash_mix() reads
 * it, whose first word, its length, has a top byte of 0. */
static inline uint64_t hash_label(uint64_t h, const char *s, size_t n)
{
    uint64_t w;

    if (n >= 8)
        return hash_mix(h, s, n);
    if (n >= 4)
        w = hash_load32(s) | hash_load32(s + n - 4) << (8 * (n - 4));
    else if (n > 0)
        w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << (8 * (n / 2)) |
            (uint64_t)(unsigned char)s[n - 1] << (8 * (n - 1));
    else
        w = 0;
    return hash_round(h, w | (uint64_t)n << 56);
}

/* A dotted name's hash is carried label by label from the right: the hash of "b.c" carried
 * over "a" is the hash of "a.b.c", so a name's parents' hashes are by-products of its own.
 * Every dot splits, so "a..b" has an empty label, and no two names give one sequence of
 * labels. hash_name() is the whole name's, keyed by seed and finalised. */
static inline uint64_t hash_name(uint64_t seed, const char *s, size_t n)
{
    const char *dot;
    uint64_t h = seed;

    while ((dot = memrchr(s, '.', n)) != NULL) {
        size_t start = (size_t)(dot - s) + 1;

        h = hash_label(h, s + start, n - start);
        n = start - 1;
    }
    return hash_final(hash_label(h, s, n));
}

/* The hashes carried to the tails of s (n bytes) that start a label, shortest first, not yet
 * finalised: hash_final(carried[i]) is hash_name() of the tail at offs[i]; the last is s
 * itself. An empty tail (after a trailing dot) is left out. Returns how many, at most max
 * (the longest tails are then left out). */
static inline size_t hash_name_tails(uint64_t seed, const char *s, size_t n, uint64_t *carried,
                                     size_t *offs, size_t max)
{
    uint64_t h = seed;
    size_t k = 0, end = n;

    while (k < max) {
        const char *dot = memrchr(s, '.', end);
        size_t start = dot ? (size_t)(dot - s) + 1 : 0;

        h = hash_label(h, s + start, end - start);
        if (start < n) {
            carried[k] = h;
            offs[k++] = start;
        }
        if (!dot)
            break;
        end = start - 1;
    }
    return k;
}

#endif
