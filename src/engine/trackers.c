/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The trackers over the state: every domain with an action, in Privacy Badger's display order,
 * with the evidence behind it (what `brock list` and the dashboard show), and counts.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

struct row {
    char *key; /* makeSortable(domain) */
    const struct action_entry *a;
    enum brock_action best;
};

/* Privacy Badger's makeSortable: the base's first label, a dot, then the subdomain labels
 * from the base outwards, so that static.bbc.co.uk ("bbc.static") sorts next to bbc.co.uk. */
char *brock__sortable(const char *domain)
{
    char base[BROCK_HOST_MAX], *out, *w;
    size_t dlen = strlen(domain), blen, first;

    if (brock_base_domain(domain, base) < 0)
        return mem_strdup(domain);
    blen = strlen(base);
    first = strcspn(base, ".");
    out = mem_malloc(dlen + 2);
    if (!out)
        return NULL;
    memcpy(out, base, first);
    w = out + first;
    *w++ = '.';
    /* The labels before the base, innermost first. */
    if (dlen > blen) {
        const char *end = domain + dlen - blen - 1;
        for (;;) {
            const char *start = end;
            while (start > domain && start[-1] != '.')
                start--;
            memcpy(w, start, (size_t)(end - start));
            w += end - start;
            *w++ = '.';
            if (start == domain)
                break;
            end = start - 1;
        }
        w--;
    }
    *w = '\0';
    return out;
}

static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(x->key, y->key);

    return c ? c : strcmp(x->a->domain, y->a->domain);
}

/* The public view of a snitch list (NULL: none) into ev, which holds s->n entries. */
static void evidence_fill(const struct snitch *s, struct brock_evidence *ev)
{
    for (size_t j = 0; s && j < s->n; j++) {
        ev[j].site = s->v[j].site;
        ev[j].host = s->v[j].host ? s->v[j].host : "";
        ev[j].detail = s->v[j].detail ? s->v[j].detail : "";
        ev[j].kind = (enum brock_evidence_kind)s->v[j].kind;
        ev[j].time_ms = s->v[j].time_ms;
        ev[j].param = s->v[j].param ? s->v[j].param : "";
    }
}

/* The action entries to report into rows (room for every entry), *n of them, each with its
 * sort key: those with an action (every one with BROCK_TRACKERS_ALL), and when site_base is
 * not "", only those whose base was seen tracking there. Returns 0 or BROCK_ENOMEM, *n
 * counting the rows made even then. */
static int rows_collect(struct brock_engine *e, const char *site_base, unsigned flags,
                        struct row *rows, size_t *n)
{
    size_t it = 0;
    struct action_entry *a;

    while (strmap_next(&e->actions, &it, NULL, (void **)&a)) {
        enum brock_action best = brock__best_action(e, a->domain, NULL);
        if (best == BROCK_NOACTION && !(flags & BROCK_TRACKERS_ALL))
            continue;
        if (site_base[0]) {
            char base[BROCK_HOST_MAX];
            brock__base_domain(a->domain, base);
            if (!brock__snitch_has(brock__snitch_get(e, base), site_base))
                continue;
        }
        rows[*n].key = brock__sortable(a->domain);
        if (!rows[*n].key)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        rows[*n].a = a;
        rows[*n].best = best;
        (*n)++;
    }
    return 0;
}

/* Calls cb for each of the n rows, in order, with its evidence, until one returns nonzero.
 * Returns that, 0, or BROCK_ENOMEM. */
static int rows_visit(struct brock_engine *e, const struct row *rows, size_t n,
                      int (*cb)(void *arg, const struct brock_tracker *t), void *arg)
{
    struct brock_evidence *ev = NULL;
    size_t ev_cap = 0;
    int rc = 0;

    for (size_t i = 0; i < n && !rc; i++) {
        char base[BROCK_HOST_MAX];
        struct brock_tracker t;
        const struct snitch *s;

        brock__base_domain(rows[i].a->domain, base);
        s = brock__snitch_get(e, base);
        if (s && mem_grow(&ev, &ev_cap, s->n, sizeof(*ev)) < 0) {
            rc = brock__fail(e, BROCK_ENOMEM, "out of memory");
            break;
        }
        evidence_fill(s, ev);
        t.domain = rows[i].a->domain;
        t.base = base;
        t.action = rows[i].best;
        t.heuristic = rows[i].a->heur == BROCK__HEUR_UNKNOWN ? BROCK_NOACTION
                                                             : (enum brock_action)rows[i].a->heur;
        t.user = (enum brock_action)rows[i].a->user;
        t.dnt = rows[i].a->dnt;
        t.cookieblock_listed = brock__would_cookieblock(&e->lists, rows[i].a->domain);
        t.evidence = ev;
        t.n_evidence = s ? s->n : 0;
        rc = cb(arg, &t);
    }
    mem_free(ev);
    return rc;
}

int brock_trackers_each(struct brock_engine *e, const char *site, unsigned flags,
                        int (*cb)(void *arg, const struct brock_tracker *t), void *arg)
{
    char site_base[BROCK_HOST_MAX] = "";
    struct row *rows = NULL;
    size_t n = 0;
    int rc;

    if (site && *site) {
        char host[BROCK_HOST_MAX];
        if (brock_url_host(site, host) < 0)
            return brock__fail(e, BROCK_EINVAL, "'%s' is not a site", site);
        brock__base_domain(host, site_base);
    }
    rows = mem_calloc(e->actions.len + 1, sizeof(*rows));
    if (!rows)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    rc = rows_collect(e, site_base, flags, rows, &n);
    if (rc == 0) {
        qsort(rows, n, sizeof(*rows), row_cmp);
        rc = rows_visit(e, rows, n, cb, arg);
    }
    for (size_t i = 0; i < n; i++)
        mem_free(rows[i].key);
    mem_free(rows);
    return rc;
}

int brock_tracker_learned(const struct brock_tracker *t)
{
    for (size_t i = 0; i < t->n_evidence; i++) {
        if (t->evidence[i].kind != BROCK_EVIDENCE_IMPORTED)
            return 1;
    }
    return 0;
}

int brock_tracker_get(struct brock_engine *e, const char *domain,
                      int (*cb)(void *arg, const struct brock_tracker *t), void *arg)
{
    char name[BROCK_HOST_MAX], base[BROCK_HOST_MAX];
    const struct action_entry *a;
    const struct snitch *s;
    struct brock_evidence *ev = NULL;
    struct brock_tracker t;
    int rc;

    if (brock_host_normalize(domain, strlen(domain), name) < 0 || !hostname_valid(name))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a domain name", domain);
    brock__base_domain(name, base);
    a = brock__action_get(e, name);
    s = brock__snitch_get(e, base);
    if (s && s->n && !(ev = mem_calloc(s->n, sizeof(*ev))))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    evidence_fill(s, ev);
    t.domain = name;
    t.base = base;
    t.action = brock__best_action(e, name, NULL);
    t.heuristic =
        !a || a->heur == BROCK__HEUR_UNKNOWN ? BROCK_NOACTION : (enum brock_action)a->heur;
    t.user = a ? (enum brock_action)a->user : BROCK_NOACTION;
    t.dnt = a ? a->dnt : 0;
    t.cookieblock_listed = brock__would_cookieblock(&e->lists, name);
    t.evidence = ev;
    t.n_evidence = s ? s->n : 0;
    rc = cb(arg, &t);
    mem_free(ev);
    return rc;
}

_Static_assert(BROCK_USER_COOKIEBLOCK + 1 == BROCK_ACTION_COUNT,
               "BROCK_ACTION_COUNT counts every enum brock_action value");

void brock_counts(struct brock_engine *e, size_t counts[BROCK_ACTION_COUNT], size_t *entries)
{
    size_t it = 0;
    struct action_entry *a;

    memset(counts, 0, BROCK_ACTION_COUNT * sizeof(counts[0]));
    while (strmap_next(&e->actions, &it, NULL, (void **)&a)) {
        enum brock_action best = brock__best_action(e, a->domain, NULL);
        if ((unsigned)best < BROCK_ACTION_COUNT)
            counts[best]++;
    }
    if (entries)
        *entries = e->actions.len;
}

const char *brock_evidence_kind_name(enum brock_evidence_kind k)
{
    switch (k) {
    case BROCK_EVIDENCE_IMPORTED: return "imported";
    case BROCK_EVIDENCE_COOKIE: return "cookie";
    case BROCK_EVIDENCE_SET_COOKIE: return "set-cookie";
    case BROCK_EVIDENCE_BEACON: return "beacon";
    case BROCK_EVIDENCE_PIXEL: return "pixelcookieshare";
    case BROCK_EVIDENCE_CANVAS: return "canvas";
    case BROCK_EVIDENCE_SUPERCOOKIE: return "supercookie";
    case BROCK_EVIDENCE_LINK: return "linkdecoration";
    }
    return "imported";
}
