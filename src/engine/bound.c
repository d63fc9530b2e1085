/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What learning keeps, bounded: the trackers known from live learning alone are held in two
 * lists, most recently touched first, and past the cap the least recently touched are
 * forgotten with what learning made of them. A page can name any number of third parties;
 * without a bound, each would stay in memory and in the state for good.
 *
 * What is never forgotten, and why:
 * - a tracker that the seed or an import names (any site of its evidence is theirs): those
 *   are bounded by the files the owner chose to load, and the seed's blocks are what protects
 *   a user from the first day, which learning must not undo by forgetting them;
 * - the user's own choices (a user action on any name, every choice for one site only,
 *   which live apart in siteaction.c) and DNT records (a name's dnt flag): the entries
 *   holding them stay, whatever happens to the evidence beside them;
 * - a block on an action entry that the evidence forgotten cannot have made (a tracker with
 *   fewer sites than the threshold, whose base or host is blocked all the same).
 * Among learned trackers, those learning has not blocked make room first: forgetting one costs
 * only its progress toward a block, while forgetting a learned block lets it through again.
 */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static int tier_of(const struct brock_engine *e, const struct snitch *sn)
{
    return sn->n >= e->threshold ? BROCK__LRU_BLOCKED : BROCK__LRU_OPEN;
}

static void lru_remove(struct brock_engine *e, struct snitch *sn)
{
    int t = sn->lru_tier;

    if (sn->lru_prev)
        sn->lru_prev->lru_next = sn->lru_next;
    else
        e->lru_head[t] = sn->lru_next;
    if (sn->lru_next)
        sn->lru_next->lru_prev = sn->lru_prev;
    else
        e->lru_tail[t] = sn->lru_prev;
    sn->lru_prev = sn->lru_next = NULL;
}

static void lru_push(struct brock_engine *e, struct snitch *sn, int t)
{
    sn->lru_tier = (uint8_t)t;
    sn->lru_prev = NULL;
    sn->lru_next = e->lru_head[t];
    if (e->lru_head[t])
        e->lru_head[t]->lru_prev = sn;
    e->lru_head[t] = sn;
    if (!e->lru_tail[t])
        e->lru_tail[t] = sn;
}

void brock__learned_unlink(struct brock_engine *e, struct snitch *sn)
{
    if (!sn || !sn->lru_name)
        return;
    lru_remove(e, sn);
    mem_free(sn->lru_name);
    sn->lru_name = NULL;
    e->n_learned--;
}

void brock__learned_clear(struct brock_engine *e)
{
    for (int t = 0; t < BROCK__LRU_TIERS; t++)
        e->lru_head[t] = e->lru_tail[t] = NULL;
    e->n_learned = 0;
}

int brock__learned_note(struct brock_engine *e, const char *base, struct snitch *sn, int kind)
{
    if (kind == BROCK_EVIDENCE_IMPORTED) {
        brock__learned_unlink(e, sn);
        return 0;
    }
    if (sn->lru_name) {
        lru_remove(e, sn);
        lru_push(e, sn, tier_of(e, sn));
        return 0;
    }
    /* A list with sites before this one and no place in the lists holds the seed's or an
     * import's: it stays out of them. */
    if (sn->n != 1)
        return 0;
    sn->lru_name = mem_strdup(base);
    if (!sn->lru_name)
        return BROCK_ENOMEM;
    lru_push(e, sn, tier_of(e, sn));
    e->n_learned++;
    return 0;
}

/* ---- forgetting ---- */

/* Deletes name's action entry when learning of its tracker made it and nothing else holds it:
 * no user's choice, no DNT record, and a block only when the tracker's evidence reached the
 * threshold (blocked: learning blocked it). Returns 0 or BROCK_ENOMEM. */
static int forget_action(struct brock_engine *e, const char *name, int blocked)
{
    const struct action_entry *a = brock__action_get(e, name);

    if (!a || a->user != BROCK_NOACTION || a->dnt || a->heur == BROCK__HEUR_UNKNOWN)
        return 0;
    if ((a->heur == BROCK_BLOCK || a->heur == BROCK_COOKIEBLOCK) && !blocked)
        return 0;
    return brock__action_delete(e, name);
}

/* Forgets the learned tracker sn. Returns 0 or BROCK_ENOMEM (then the tracker stays, perhaps
 * without some of its action entries, which learning makes again at its next site). */
static int forget(struct brock_engine *e, struct snitch *sn)
{
    int blocked = tier_of(e, sn) == BROCK__LRU_BLOCKED, rc;
    char *name = sn->lru_name;

    if ((rc = forget_action(e, name, blocked)) < 0)
        return rc;
    for (size_t i = 0; i < sn->n; i++)
        if (sn->v[i].host && strcmp(sn->v[i].host, name) != 0 &&
            (rc = forget_action(e, sn->v[i].host, blocked)) < 0)
            return rc;
    /* The store deletes the tracker's rows at the next sync, before it writes what is
     * learned: one forgotten and then learned again in between is written anew. */
    if (strvec_push(&e->forgotten, name) < 0)
        return BROCK_ENOMEM;
    brock__tracking_free(strmap_del(&e->tracking, name));
    sn->lru_name = NULL;
    lru_remove(e, sn);
    e->n_learned--;
    strmap_del(&e->snitches, name);
    brock__snitch_free(sn);
    mem_free(name);
    e->learned_forgotten++;
    e->dirty++;
    brock__answers_forget(e);
    return 0;
}

/* The least recently touched of a list whose tail is tail, but keep; NULL: none. */
static struct snitch *oldest(struct snitch *tail, const struct snitch *keep)
{
    return tail && tail == keep ? tail->lru_prev : tail;
}

int brock__learned_bound(struct brock_engine *e, const struct snitch *keep)
{
    int n = 0, rc;

    /* An engine built by hand (the store's tests) has no cap. */
    while (e->learned_max && e->n_learned > e->learned_max) {
        struct snitch *victim = oldest(e->lru_tail[BROCK__LRU_OPEN], keep);

        if (!victim)
            victim = oldest(e->lru_tail[BROCK__LRU_BLOCKED], keep);
        if (!victim)
            break; /* keep alone is left: a cap of 0 is no cap brock takes */
        if ((rc = forget(e, victim)) < 0)
            return brock__fail(e, rc, "out of memory while forgetting learned trackers");
        n++;
    }
    return n;
}

/* ---- ordering after a load ---- */

/* A learned tracker and the time of its newest evidence, for sorting. */
struct aged {
    int64_t newest;
    struct snitch *sn;
};

static int by_newest(const void *a, const void *b)
{
    int64_t x = ((const struct aged *)a)->newest, y = ((const struct aged *)b)->newest;

    return (x > y) - (x < y);
}

void brock__learned_order(struct brock_engine *e)
{
    struct aged *v;
    size_t n = 0;

    /* The rows come by tracker name: their order says nothing of when each was seen. */
    if (e->n_learned < 2 || !(v = mem_calloc(e->n_learned, sizeof(*v))))
        return; /* out of memory: the load's order stands, which forgets in it instead */
    for (int t = 0; t < BROCK__LRU_TIERS; t++) {
        for (struct snitch *sn = e->lru_head[t]; sn; sn = sn->lru_next) {
            v[n].sn = sn;
            for (size_t i = 0; i < sn->n; i++)
                if (sn->v[i].time_ms > v[n].newest)
                    v[n].newest = sn->v[i].time_ms;
            n++;
        }
        e->lru_head[t] = e->lru_tail[t] = NULL;
    }
    qsort(v, n, sizeof(*v), by_newest);
    for (size_t i = 0; i < n; i++)
        lru_push(e, v[i].sn, tier_of(e, v[i].sn));
    mem_free(v);
}

/* ---- the public calls ---- */

int brock_learned_limit(struct brock_engine *e, size_t max)
{
    if (max < 1 || max > BROCK_MAX_LEARNED_MAX)
        return brock__fail(e, BROCK_EINVAL, "the cap on learned trackers must be from 1 to %d",
                           BROCK_MAX_LEARNED_MAX);
    e->learned_max = max;
    return brock__learned_bound(e, NULL);
}

void brock_learned_status(const struct brock_engine *e, struct brock_learned_status *st)
{
    memset(st, 0, sizeof(*st));
    st->trackers = e->n_learned;
    st->max = e->learned_max;
    st->forgotten = e->learned_forgotten;
}
