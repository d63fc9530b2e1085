/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Recent decisions: brock_decide()'s answer for a (host, site) pair, kept so that the same pair
 * asked again costs a hash and a comparison. Every change that can alter an answer (actions,
 * settings, lists, site fixes, the Public Suffix List) makes every kept answer stale at once.
 */
#include "engine/engine.h"

#include <string.h>
#include <sys/random.h>

#include "util/alloc.h"

/* One kept answer, 128 bytes (its hash, the tag, sits in an array of its own): the host and
 * site it is for, verified whole on every hit, and
 * the decision as offsets into them. The tracker is the host or, uncloaked, a CNAME target
 * held by the lists (a change of lists makes the answer stale before the target goes); its
 * base and the action's source are tails of it, d->site a tail of the site. */
struct brock__answer {
    uint64_t gen;        /* e->answers_gen when kept; 0: empty */
    const char *cname;   /* the tracker when it is not the host */
    uint8_t host_len, site_len, tracker_len;
    uint8_t base_off, source_off, site_off;
    uint8_t third_party, reason, action, effect, site_fix, site_choice;
    char names[128 - 2 * sizeof(uint64_t) - 12]; /* host, then site; no NULs */
};

_Static_assert(sizeof(struct brock__answer) == 128, "an answer is two cache lines");

/* 8,192 answers (1 MiB) in sets of two: more than the distinct pairs a browsing session
 * makes in a while, little enough to stay out of the way. */
#define ANSWER_SETS ((size_t)4096)
#define ANSWER_WAYS ((size_t)2)

int brock__answers_init(struct brock_engine *e)
{
    e->answers = mem_calloc(ANSWER_SETS * ANSWER_WAYS, sizeof(*e->answers));
    e->answer_tags = mem_calloc(ANSWER_SETS * ANSWER_WAYS, sizeof(*e->answer_tags));
    if (!e->answers || !e->answer_tags)
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
    mem_free(e->answer_tags);
    e->answers = NULL;
    e->answer_tags = NULL;
}

void brock__answers_forget(struct brock_engine *e)
{
    e->answers_gen++;
}

/* Eight bytes at a time, keyed; the names are short, so no more than a handful of rounds. */
static uint64_t mix(uint64_t h, const char *s, size_t n)
{
    uint64_t w;

    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x9fb21c651e98df25ULL;
        h ^= h >> 29;
    }
    w = (uint64_t)n << 56;
    memcpy(&w, s, n);
    h = (h ^ w) * 0x9fb21c651e98df25ULL;
    return h ^ (h >> 32);
}

static uint64_t pair_hash(const struct brock_engine *e, const char *host, size_t hlen,
                          const char *site, size_t slen)
{
    return mix(mix(e->answers_seed, host, hlen), site, slen);
}

static int fits(size_t hlen, size_t slen)
{
    return hlen + slen <= sizeof(((struct brock__answer *)0)->names);
}

int brock__answer_get(struct brock_engine *e, const char *site, size_t slen,
                      struct brock_decision *d, size_t hlen)
{
    struct brock__answer *a = NULL;
    uint64_t h;
    size_t i, tlen;

    if (!e->answers || e->answers_off || !fits(hlen, slen))
        return 0;
    h = pair_hash(e, d->host, hlen, site, slen);
    i = (h % ANSWER_SETS) * ANSWER_WAYS;
    /* The tags first: they are dense, and only a way whose tag matches is read. */
    for (size_t w = i; w < i + ANSWER_WAYS && !a; w++)
        if (e->answer_tags[w] == h && e->answers[w].gen == e->answers_gen &&
            e->answers[w].host_len == hlen && e->answers[w].site_len == slen &&
            !memcmp(e->answers[w].names, d->host, hlen) &&
            !memcmp(e->answers[w].names + hlen, site, slen))
            a = &e->answers[w];
    if (!a)
        return 0;
    tlen = a->tracker_len;
    memcpy(d->tracker, a->cname ? a->cname : d->host, tlen);
    d->tracker[tlen] = '\0';
    memcpy(d->base, d->tracker + a->base_off, tlen - a->base_off + 1);
    memcpy(d->source, d->tracker + a->source_off, tlen - a->source_off + 1);
    memcpy(d->site, site + a->site_off, slen - a->site_off);
    d->site[slen - a->site_off] = '\0';
    d->third_party = a->third_party;
    d->reason = (enum brock_reason)a->reason;
    d->action = (enum brock_action)a->action;
    d->effect = (enum brock_effect)a->effect;
    d->site_fix = a->site_fix;
    d->site_choice = a->site_choice;
    return 1;
}

/* Where tail ends name (len bytes), or -1 when it is not a tail of it. */
static int tail_off(const char *name, size_t len, const char *tail)
{
    size_t n = strlen(tail);

    return n <= len && !memcmp(name + len - n, tail, n) ? (int)(len - n) : -1;
}

void brock__answer_put(struct brock_engine *e, const char *site, size_t slen,
                       const struct brock_decision *d, size_t hlen, const char *cname)
{
    struct brock__answer *set, *a;
    size_t tlen = strlen(d->tracker), i;
    int base_off, source_off, site_off;
    uint64_t h;

    if (!e->answers || e->answers_off || !fits(hlen, slen))
        return;
    base_off = tail_off(d->tracker, tlen, d->base);
    source_off = tail_off(d->tracker, tlen, d->source);
    site_off = tail_off(site, slen, d->site);
    /* Never so for a decision brock_decide() made; an answer that could not be given back
     * exactly is not kept. */
    if (base_off < 0 || source_off < 0 || site_off < 0 || tlen >= BROCK_HOST_MAX)
        return;
    h = pair_hash(e, d->host, hlen, site, slen);
    i = (h % ANSWER_SETS) * ANSWER_WAYS;
    set = &e->answers[i];
    /* A stale or empty way first; else the pair's hash picks one. */
    if (set[0].gen != e->answers_gen)
        i += 0;
    else if (set[1].gen != e->answers_gen)
        i += 1;
    else
        i += (h >> 63) & 1;
    a = &e->answers[i];
    e->answer_tags[i] = h;
    a->gen = e->answers_gen;
    a->cname = cname;
    a->host_len = (uint8_t)hlen;
    a->site_len = (uint8_t)slen;
    a->tracker_len = (uint8_t)tlen;
    a->base_off = (uint8_t)base_off;
    a->source_off = (uint8_t)source_off;
    a->site_off = (uint8_t)site_off;
    a->third_party = (uint8_t)d->third_party;
    a->reason = (uint8_t)d->reason;
    a->action = (uint8_t)d->action;
    a->effect = (uint8_t)d->effect;
    a->site_fix = (uint8_t)d->site_fix;
    a->site_choice = (uint8_t)d->site_choice;
    memcpy(a->names, d->host, hlen);
    memcpy(a->names + hlen, site, slen);
}
