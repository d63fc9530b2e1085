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

#endif
