/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Recent decisions: brock_decide()'s answer for a (host, site) pair, kept so that the same pair
 * asked again costs a hash and a comparison. Every change that can alter an answer (actions,
 * settings, lists, site fixes, the Public Suffix List) makes every kept answer stale at once.
 */
#include "engine/engine.h"

#include <string.h>
#include <sys/random.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "util/alloc.h"
#include "util/hash.h"

/* One kept answer, 128 bytes: the host and site it is for, verified whole on every hit, and
 * the decision as offsets into them. The tracker is the host or, uncloaked, a CNAME target
 * held by the lists or a chain of uncloak.c's (a change of either makes the answer stale
 * before the target goes); its
 * base and the action's source are tails of it, d->site a tail of the site. */
struct brock__answer {
    const char *cname; /* the tracker when it is not the host */
    uint8_t host_len, site_len, tracker_len;
    uint8_t base_off, source_off, site_off;
    uint8_t third_party, reason, action, effect, site_fix, site_choice, via_dns;
    char names[128 - sizeof(const char *) - 13]; /* host, then site; no NULs */
};

_Static_assert(sizeof(struct brock__answer) == 128, "an answer is two cache lines");

/* 8,192 answers (1 MiB) in 512 sets of 16: more than the distinct pairs a browsing session
 * makes in a while, little enough to stay out of the way. Sixteen ways make a set overflow
 * rare: 2,000 pairs spread over the sets fill none of them, with odds of about 1 in 2,000
 * against, so a session's pairs stay kept together however the hash falls; and where other
 * pairs filled the sets before, the oldest make room for them. */
#define ANSWER_SETS ((size_t)512)
#define ANSWER_WAYS ((size_t)16)

/* A set's generation (e->answers_gen when its first answer was kept; any other: all its
 * ways are empty), a 16-bit tag of each way's pair hash, 0 for an empty way, and the way the
 * next answer goes to. The ways fill in order, then the oldest answer makes room: a pair kept
 * is forgotten only after sixteen others in its set, so the few pairs of a session that share
 * a set never push each other out in turn, as they did when a pair's hash picked its way.
 * Lookups read only the answers whose tags match. */
struct brock__answer_set {
    uint64_t gen;
    uint16_t tags[ANSWER_WAYS];
    uint8_t next;
    char pad[64 - sizeof(uint64_t) - ANSWER_WAYS * sizeof(uint16_t) - 1];
};

_Static_assert(sizeof(struct brock__answer_set) == 64, "a set's tags are one cache line");

int brock__answers_init(struct brock_engine *e)
{
    e->answers = mem_calloc(ANSWER_SETS * ANSWER_WAYS, sizeof(*e->answers));
    e->answer_sets = mem_calloc(ANSWER_SETS, sizeof(*e->answer_sets));
    if (!e->answers || !e->answer_sets)
        return BROCK_ENOMEM;
    if (getrandom(&e->answers_seed, sizeof(e->answers_seed), GRND_NONBLOCK) !=
        (ssize_t)sizeof(e->answers_seed))
        e->answers_seed = (uint64_t)(uintptr_t)e->answers ^ 0x9e3779b97f4a7c15ULL;
    e->answers_gen = 1;
    return 0;
}

void brock__answers_free(struct brock_engine *e)
{
    mem_free(e->answers);
    mem_free(e->answer_sets);
    e->answers = NULL;
    e->answer_sets = NULL;
}

void brock__answers_forget(struct brock_engine *e)
{
    e->answers_gen++;
}

static uint64_t pair_hash(const struct brock_engine *e, const char *host, size_t hlen,
                          const char *site, size_t slen)
{
    return hash_final(hash_mix(hash_mix(e->answers_seed, host, hlen), site, slen));
}

/* The set's bits are the hash's low ones, the tag its top ones. */
static uint16_t pair_tag(uint64_t h)
{
    uint16_t t = (uint16_t)(h >> 48);

    return t ? t : 1;
}

static int fits(size_t hlen, size_t slen)
{
    return hlen + slen <= sizeof(((struct brock__answer *)0)->names);
}

/* n bytes (at most BROCK_HOST_MAX - 1) from src and a NUL into dst, eight at a time: the
 * names are short, and a call to memcpy() costs more than copying them. */
static void copy_name(char *restrict dst, const char *restrict src, size_t n)
{
    uint64_t w;

    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, src + i, 8);
            memcpy(dst + i, &w, 8);
        }
        memcpy(&w, src + n - 8, 8);
        memcpy(dst + n - 8, &w, 8);
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    }
    dst[n] = '\0';
}

/* Whether the n bytes at a and b are the same, eight at a time. */
static int same(const char *a, const char *b, size_t n)
{
    uint64_t x, y, diff = 0;

    if (n < 8)
        return !memcmp(a, b, n);
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return !(diff | (x ^ y));
}

/* The ways of set whose tag is t, a bit each, way 0 the lowest: with SSE2, sixteen
 * comparisons in two. */
static unsigned ways_tagged(const struct brock__answer_set *set, uint16_t t)
{
#ifdef __SSE2__
    __m128i want = _mm_set1_epi16((short)t);
    __m128i lo = _mm_loadu_si128((const void *)set->tags);
    __m128i hi = _mm_loadu_si128((const void *)(set->tags + 8));

    return (unsigned)_mm_movemask_epi8(
        _mm_packs_epi16(_mm_cmpeq_epi16(lo, want), _mm_cmpeq_epi16(hi, want)));
#else
    unsigned m = 0;

    for (size_t w = 0; w < ANSWER_WAYS; w++)
        m |= (unsigned)(set->tags[w] == t) << w;
    return m;
#endif
}

_Static_assert(ANSWER_WAYS == 16, "ways_tagged() compares sixteen tags");

int brock__answer_get(struct brock_engine *e, const char *host, size_t hlen, const char *site,
                      size_t slen, struct brock_decision *d)
{
    const struct brock__answer_set *set;
    const struct brock__answer *a = NULL;
    uint64_t h;
    size_t i, tlen;

    if (!e->answers || e->plain || !fits(hlen, slen))
        return 0;
    h = pair_hash(e, host, hlen, site, slen);
    e->answers_probe = h;
    e->answers_probe_lens = hlen << 8 | slen;
    i = h & (ANSWER_SETS - 1);
    set = &e->answer_sets[i];
    if (set->gen != e->answers_gen)
        return 0;
    /* The tags first: they share a line, compared all at once, and only a way whose tag
     * matches is read. An empty way's tag (0) matches none. */
    for (unsigned m = ways_tagged(set, pair_tag(h)); m; m &= m - 1) {
        const struct brock__answer *c = &e->answers[i * ANSWER_WAYS + (size_t)__builtin_ctz(m)];

        if (c->host_len == hlen && c->site_len == slen && same(c->names, host, hlen) &&
            same(c->names + hlen, site, slen)) {
            a = c;
            break;
        }
    }
    if (!a)
        return 0;
    if (host != d->host)
        copy_name(d->host, host, hlen);
    tlen = a->tracker_len;
    copy_name(d->tracker, a->cname ? a->cname : d->host, tlen);
    copy_name(d->base, d->tracker + a->base_off, tlen - a->base_off);
    copy_name(d->source, d->tracker + a->source_off, tlen - a->source_off);
    copy_name(d->site, site + a->site_off, slen - a->site_off);
    d->third_party = a->third_party;
    d->reason = (enum brock_reason)a->reason;
    d->action = (enum brock_action)a->action;
    d->effect = (enum brock_effect)a->effect;
    d->site_fix = a->site_fix;
    d->site_choice = a->site_choice;
    d->via_dns = a->via_dns;
    return 1;
}

void brock__answer_put(struct brock_engine *e, const char *site, size_t slen,
                       const struct brock_decision *d, size_t hlen, const char *cname,
                       const struct brock__answer_tails *t)
{
    struct brock__answer_set *set;
    struct brock__answer *a;
    size_t tlen = t->tracker_len, i, w;
    uint64_t h;

    if (!e->answers || e->plain || !fits(hlen, slen))
        return;
    /* Never so for a decision brock_decide() made; an answer that could not be given back
     * exactly is not kept. */
    if (tlen >= BROCK_HOST_MAX || t->base_off > tlen || t->source_off > tlen || t->site_off > slen)
        return;
    /* The pair a decision is kept for is the one looked up last: its hash is at hand. */
    h = e->answers_probe_lens == (hlen << 8 | slen) ? e->answers_probe
                                                    : pair_hash(e, d->host, hlen, site, slen);
    i = h & (ANSWER_SETS - 1);
    set = &e->answer_sets[i];
    if (set->gen != e->answers_gen) {
        memset(set->tags, 0, sizeof(set->tags));
        set->next = 0;
        set->gen = e->answers_gen;
    }
    /* The first empty way, or in a full set the oldest answer's. */
    w = set->next;
    set->next = (uint8_t)((w + 1) & (ANSWER_WAYS - 1));
    set->tags[w] = pair_tag(h);
    a = &e->answers[i * ANSWER_WAYS + w];
    a->cname = cname;
    a->host_len = (uint8_t)hlen;
    a->site_len = (uint8_t)slen;
    a->tracker_len = (uint8_t)tlen;
    a->base_off = (uint8_t)t->base_off;
    a->source_off = (uint8_t)t->source_off;
    a->site_off = (uint8_t)t->site_off;
    a->third_party = (uint8_t)d->third_party;
    a->reason = (uint8_t)d->reason;
    a->action = (uint8_t)d->action;
    a->effect = (uint8_t)d->effect;
    a->site_fix = (uint8_t)d->site_fix;
    a->site_choice = (uint8_t)d->site_choice;
    a->via_dns = (uint8_t)d->via_dns;
    memcpy(a->names, d->host, hlen);
    memcpy(a->names + hlen, site, slen);
}
