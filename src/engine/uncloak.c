/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * CNAME chains from live DNS: what the proxy's resolver answered for each host it dialed,
 * judged as Privacy Badger judges a host through its static CNAME list (PRIVACY-BADGER.md
 * 1.6), with the exceptions that keep a CDN everybody aliases to from making sites' own hosts
 * trackers. The chains are kept in memory, for the last BROCK__CHAINS hosts.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <string.h>

#include "util/alloc.h"
#include "util/hostname.h"

#define BROCK__CHAINS ((size_t)8192)
#define OFF_KEY "brockUncloakOff"

/* A host's chain: its names, pointing into text (the host, then each name, NUL-terminated),
 * and its place in e->chain_ring. */
struct brock__chain {
    size_t n, slot;
    const char *names[BROCK_CNAME_CHAIN_MAX];
    char text[];
};

static const char *chain_host(const struct brock__chain *c)
{
    return c->text;
}

void brock__chains_free(struct brock_engine *e)
{
    strmap_cleanup(&e->chains, mem_free);
    mem_free(e->chain_ring);
    e->chain_ring = NULL;
    e->chain_next = 0;
}

/* The chain for host and names (each normalised into norm), or NULL when out of memory. */
static struct brock__chain *chain_new(const char *host, char norm[][BROCK_HOST_MAX], size_t n)
{
    size_t len = strlen(host) + 1, off;
    struct brock__chain *c;

    for (size_t i = 0; i < n; i++)
        len += strlen(norm[i]) + 1;
    if (!(c = mem_malloc(sizeof(*c) + len)))
        return NULL;
    c->n = n;
    off = strlen(host) + 1;
    memcpy(c->text, host, off);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(norm[i]) + 1;

        memcpy(c->text + off, norm[i], l);
        c->names[i] = c->text + off;
        off += l;
    }
    return c;
}

static int chain_same(const struct brock__chain *c, char norm[][BROCK_HOST_MAX], size_t n)
{
    if (c->n != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(c->names[i], norm[i]) != 0)
            return 0;
    return 1;
}

/* Forgets host's chain (its slot in the ring is empty until it comes round). */
static void chain_drop(struct brock_engine *e, const char *host)
{
    struct brock__chain *c = strmap_del(&e->chains, host);

    if (!c)
        return;
    e->chain_ring[c->slot] = NULL;
    mem_free(c);
    brock__answers_forget(e);
}

/* Keeps c for its host, the oldest host's chain making room. Returns 0 or BROCK_ENOMEM. */
static int chain_keep(struct brock_engine *e, struct brock__chain *c)
{
    struct brock__chain *old;

    if (!e->chain_ring && !(e->chain_ring = mem_calloc(BROCK__CHAINS, sizeof(*e->chain_ring))))
        return BROCK_ENOMEM;
    if ((old = strmap_get(&e->chains, chain_host(c))) != NULL) {
        c->slot = old->slot;
        e->chain_ring[c->slot] = chain_host(c);
        if (strmap_put(&e->chains, chain_host(c), c) < 0)
            return BROCK_ENOMEM; /* cannot happen: the key is there */
        mem_free(old);
        return 0;
    }
    if (strmap_put(&e->chains, chain_host(c), c) < 0)
        return BROCK_ENOMEM;
    if (e->chain_ring[e->chain_next] != NULL)
        mem_free(strmap_del(&e->chains, e->chain_ring[e->chain_next]));
    e->chain_ring[e->chain_next] = chain_host(c);
    c->slot = e->chain_next;
    e->chain_next = (e->chain_next + 1) % BROCK__CHAINS;
    return 0;
}

int brock_cname_chain_set(struct brock_engine *e, const char *host, const char *const *names,
                          size_t n)
{
    char h[BROCK_HOST_MAX], norm[BROCK_CNAME_CHAIN_MAX][BROCK_HOST_MAX];
    struct brock__chain *c;
    int rc;

    if (!host || brock_host_normalize(host, strlen(host), h) < 0 || !hostname_valid(h))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a host name", host ? host : "");
    if (n > BROCK_CNAME_CHAIN_MAX)
        return brock__fail(e, BROCK_EINVAL, "a chain of %zu names is longer than brock keeps (%d)",
                           n, BROCK_CNAME_CHAIN_MAX);
    for (size_t i = 0; i < n; i++)
        if (!names[i] || brock_host_normalize(names[i], strlen(names[i]), norm[i]) < 0 ||
            !hostname_valid(norm[i]))
            return brock__fail(e, BROCK_EINVAL, "'%s' (of %s's CNAME chain) is not a host name",
                               names[i] ? names[i] : "", h);
    c = strmap_get(&e->chains, h);
    if (n == 0) {
        chain_drop(e, h);
        return 0;
    }
    if (c && chain_same(c, norm, n))
        return 0;
    if (!(c = chain_new(h, norm, n)))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if ((rc = chain_keep(e, c)) < 0) {
        mem_free(c);
        return brock__fail(e, rc, "out of memory");
    }
    brock__answers_forget(e);
    return 0;
}

size_t brock_cname_chain_get(const struct brock_engine *e, const char *host, const char **names,
                             size_t max)
{
    const struct brock__chain *c = host ? strmap_get(&e->chains, host) : NULL;

    if (!c)
        return 0;
    for (size_t i = 0; i < c->n && i < max; i++)
        names[i] = c->names[i];
    return c->n;
}

int brock_cname_target_set(struct brock_engine *e, const char *target, int off)
{
    return brock__settings_list_set(e, OFF_KEY, target, off);
}

int brock_cname_target_off(const struct brock_engine *e, const char *name)
{
    return brock__settings_list_match(e, OFF_KEY, name);
}

int brock_cname_targets_each(const struct brock_engine *e, int (*cb)(void *arg, const char *target),
                             void *arg)
{
    return brock__settings_list_each(e, OFF_KEY, cb, arg);
}

/* ---- judging a chain ---- */

/* Whether name or a domain it is under is on the cookieblock list. */
static int cookieblock_listed(const struct brock_engine *e, const char *name)
{
    for (const char *p = name; p; p = strchr(p, '.'), p = p ? p + 1 : NULL)
        if (strmap_get(&e->lists.yellow, p))
            return 1;
    return 0;
}

/* Whether the walk down a chain ends at name: uncloaking is off for it, it is on the
 * cookieblock list, or the user allowed it. */
static int chain_ends(const struct brock_engine *e, const char *name)
{
    return brock_cname_target_off(e, name) || cookieblock_listed(e, name) ||
           brock__best_action(e, name, NULL) == BROCK_USER_ALLOW;
}

/* Whether host's own decision d stands, whatever its chain: brock leaves host alone on the
 * page, or the user chose an action for it. */
static int host_stands(const struct brock_decision *d)
{
    switch (d->reason) {
    case BROCK_WHY_FIRST_PARTY: return 0;
    case BROCK_WHY_ACTION:
        return d->action == BROCK_USER_ALLOW || d->action == BROCK_USER_BLOCK ||
               d->action == BROCK_USER_COOKIEBLOCK;
    default: return 1;
    }
}

/* Whether a decision by the chain (effect effect) takes the place of host's own d. */
static int chain_wins(const struct brock_decision *d, enum brock_effect effect)
{
    if (d->effect != effect)
        return effect > d->effect;
    return !(d->reason == BROCK_WHY_ACTION && d->action != BROCK_NOACTION);
}

const char *brock__uncloak(struct brock_engine *e, size_t hlen, const char *site, size_t slen,
                           struct brock_decision *d, struct brock__answer_tails *t,
                           const char *cname)
{
    const struct brock__chain *c;
    struct brock_decision best, one;
    struct brock__answer_tails best_t, one_t;
    const char *best_cname = NULL, *host_base;
    int found = 0;

    if (!e->chains.len || !(c = strmap_getn(&e->chains, d->host, hlen)) || host_stands(d) ||
        (site && slen == hlen && !memcmp(site, d->host, hlen)) ||
        !brock_setting(e, BROCK_SETTING_UNCLOAK))
        return cname;
    host_base = brock__base_len(e, d->host, hlen);
    for (size_t i = 0; i < c->n; i++) {
        const char *name = c->names[i], *from;
        size_t nlen = strlen(name);

        if (!strcmp(brock__base_len(e, name, nlen), host_base))
            continue;
        if (chain_ends(e, name))
            break;
        memset(&one, 0, sizeof(one));
        memcpy(one.host, name, nlen + 1);
        from = brock__decide_name(e, nlen, site, slen, &one, &one_t);
        if (!found || one.effect >= best.effect) {
            best = one;
            best_t = one_t;
            best_cname = from ? from : name;
            found = 1;
        }
    }
    if (!found || !chain_wins(d, best.effect))
        return cname;
    memcpy(best.host, d->host, hlen + 1);
    best.type = d->type;
    best.via_dns = 1;
    *d = best;
    *t = best_t;
    return best_cname;
}
