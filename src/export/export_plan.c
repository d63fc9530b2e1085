/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a block list says, whatever its format: the names to block, the names below them that
 * must still load (Privacy Badger's point: a plain list of tracking domains breaks the sites
 * that need a cookieblocked or allowed name of the same base), and the names whose cookies
 * go. Computed once from the resolved actions, so that every format writes the same choices.
 */
#include "export/export.h"
#include "engine/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"

/* A name the export takes in, with what the export does there and at the names below it
 * that the export does not take in. The two differ where a choice holds for the name alone:
 * a public suffix's (the names below it are other sites) and a name's own DNT policy (which
 * Privacy Badger reads for that exact name). */
struct name {
    char *name;
    enum brock_effect effect, below;
    int is_rule;  /* a rule for the name and the names below it */
    int is_exact; /* a rule for the name alone */
};

struct collect {
    struct brock_engine *e;
    unsigned flags, plan_flags;
    struct name *v;
    size_t n, cap;
    struct brock__plan *p;
    size_t left_cap;
};

/* What the export does at t: its effect, less what the flags leave out or the format cannot
 * do. A name left so is allowed, which is what a format without cookie stripping must do
 * with a cookieblocked name. */
static enum brock_effect wanted(const struct collect *c, enum brock_action action)
{
    enum brock_effect x = brock_action_effect(action);

    if (x == BROCK_DENY && !(c->flags & BROCK_EXPORT_BLOCK))
        return BROCK_PASS;
    if (x == BROCK_STRIP_COOKIES &&
        (!(c->flags & BROCK_EXPORT_COOKIEBLOCK) || !(c->plan_flags & BROCK__PLAN_STRIP)))
        return BROCK_PASS;
    return x;
}

/* A name that DNS and filter rules can name: a domain, not an IPv4 address (IPv6 addresses
 * are no domains already). */
static int is_domain(const char *name)
{
    const char *last = strrchr(name, '.');

    last = last ? last + 1 : name;
    return hostname_valid(name) && last[strspn(last, "0123456789")] != '\0';
}

static int leave_out(struct collect *c, const char *name, const char *why)
{
    struct brock__plan *p = c->p;
    size_t n = strlen(name) + strlen(why) + 4;
    char *text;

    if (mem_grow(&p->left_out, &c->left_cap, p->n_left_out + 1, sizeof(char *)) < 0 ||
        !(text = mem_malloc(n)))
        return BROCK_ENOMEM;
    snprintf(text, n, "%s (%s)", name, why);
    p->left_out[p->n_left_out++] = text;
    return 0;
}

static int take(struct collect *c, const char *domain, enum brock_effect x, enum brock_effect below)
{
    char *name;

    if (mem_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0 || !(name = mem_strdup(domain)))
        return BROCK_ENOMEM;
    c->v[c->n].name = name;
    c->v[c->n].effect = x;
    c->v[c->n].below = below;
    c->v[c->n].is_rule = 0;
    c->v[c->n].is_exact = 0;
    c->n++;
    return 0;
}

static int on_tracker(void *arg, const struct brock_tracker *t)
{
    struct collect *c = arg;
    enum brock_effect x = wanted(c, t->action), below = x;

    if ((c->flags & BROCK_EXPORT_LEARNED_ONLY) && t->user == BROCK_NOACTION &&
        !brock_tracker_learned(t))
        return 0;
    if (!is_domain(t->domain))
        return x == BROCK_PASS ? 0 : leave_out(c, t->domain, "an address, not a domain name");
    /* The resolved action counts a DNT flag only on the exact name; the names below get what
     * the walk gives without it. A public suffix's names below are for except_suffixes(). */
    if (t->action == BROCK_DNT && !brock__is_public_suffix(t->domain))
        below = wanted(c, brock__below_action(c->e, t->domain));
    return take(c, t->domain, x, below);
}

/* The nearest name above name that the export takes in, or NULL. */
static const struct name *above(const struct strmap *m, const char *name)
{
    for (const char *d = strchr(name, '.'); d; d = strchr(d + 1, '.')) {
        const struct name *x = strmap_get(m, d + 1);
        if (x)
            return x;
    }
    return NULL;
}

static unsigned rules_above(const struct strmap *m, const char *name)
{
    unsigned n = 0;

    for (const struct name *x = above(m, name); x; x = above(m, x->name))
        n += x->is_rule != 0;
    return n;
}

/* Public suffixes (PRIVACY-BADGER.md 5): a name above a public suffix is another site's,
 * and its action applies neither to the suffix nor below it, where every name is a site of
 * its own. A rule of a format reaches every name below it, so below a rule that is not a
 * pass, each public suffix gets a pass of its own; and a public suffix's own action applies
 * to that one name only: a rule for it alone, which the formats without one leave out. */
struct suffixes {
    struct strmap *m; /* the names taken in, pointing into the collection's array */
    struct strmap seen;
    struct strvec found; /* the suffixes to except, in the list's order */
};

static int on_suffix(void *arg, const char *suffix)
{
    struct suffixes *s = arg;
    const struct name *up = above(s->m, suffix);

    if (!up || up->below == BROCK_PASS || strmap_get(s->m, suffix) || strmap_get(&s->seen, suffix))
        return 0;
    if (strmap_put(&s->seen, suffix, (void *)1) < 0 || strvec_push(&s->found, suffix) < 0)
        return BROCK_ENOMEM;
    return 0;
}

static int except_suffixes(struct collect *c, struct strmap *m)
{
    struct suffixes s = {.m = m};
    size_t n = c->n;
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        if (brock__is_public_suffix(c->v[i].name))
            c->v[i].below = BROCK_PASS;
    }
    /* The suffixes join c->v, which the map points into, only once all are found; then
     * make_rules() indexes the names again. */
    strmap_init(&s.seen);
    if (rc == 0)
        rc = brock__psl_each(on_suffix, &s, c->p->psl_note, sizeof(c->p->psl_note));
    if (rc == BROCK_EIO)
        rc = 0; /* the note says so in the list */
    else
        c->p->psl_note[0] = '\0';
    for (size_t i = 0; i < s.found.n && rc == 0; i++)
        rc = take(c, s.found.v[i], BROCK_PASS, BROCK_PASS);
    strmap_cleanup(&s.seen, NULL);
    strvec_cleanup(&s.found);
    return rc;
}

static int rule_cmp(const void *a, const void *b)
{
    const struct brock__rule *x = a, *y = b;

    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->context != y->context)
        return x->context < y->context ? -1 : 1;
    if (x->effect != y->effect)
        return x->effect < y->effect ? -1 : 1;
    if (x->exact != y->exact)
        return x->exact < y->exact ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int index_names(struct collect *c, struct strmap *m)
{
    for (size_t i = 0; i < c->n; i++) {
        if (strmap_put(m, c->v[i].name, &c->v[i]) < 0)
            return BROCK_ENOMEM;
    }
    return 0;
}

/* Marks which names get a rule for themselves and the names below them (is_rule), and a rule
 * for themselves alone (is_exact). Returns how many rules that makes. */
static size_t mark_rules(struct collect *c, struct strmap *m, int each)
{
    size_t n = 0;

    for (size_t i = 0; i < c->n; i++) {
        struct name *x = &c->v[i];
        const struct name *up = each ? NULL : above(m, x->name);
        enum brock_effect context = up ? up->below : BROCK_PASS;

        if (each)
            x->below = x->effect;
        x->is_rule = x->below != context;
        x->is_exact = x->effect != x->below;
        n += (x->is_rule != 0) + (x->is_exact != 0);
    }
    return n;
}

/* The marked names' rules into p->rules (room for each), without their names yet. */
static void place_rules(struct collect *c, struct strmap *m, int each)
{
    struct brock__plan *p = c->p;

    for (size_t i = 0; i < c->n; i++) {
        const struct name *x = &c->v[i];
        const struct name *up = each ? NULL : above(m, x->name);
        unsigned depth = each ? 0 : rules_above(m, x->name);
        struct brock__rule *r;

        if (x->is_rule) {
            r = &p->rules[p->n++];
            r->effect = x->below;
            r->context = up ? up->below : BROCK_PASS;
            r->depth = depth++;
            r->before_exact = x->is_exact;
            p->counts[r->effect]++;
        }
        if (x->is_exact) {
            r = &p->rules[p->n++];
            r->effect = x->effect;
            r->context = x->below;
            r->depth = depth;
            r->exact = 1;
            p->counts[r->effect]++;
        }
    }
}

/* The names move to the rules placed, in the same order (a name with both rules is copied for
 * the first). Returns 0 or BROCK_ENOMEM. */
static int name_rules(struct collect *c)
{
    struct brock__plan *p = c->p;

    p->n = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct name *x = &c->v[i];

        if (x->is_rule && x->is_exact) {
            if (!(p->rules[p->n].name = mem_strdup(x->name)))
                return BROCK_ENOMEM;
            p->n++;
        }
        if (x->is_rule || x->is_exact) {
            p->rules[p->n++].name = x->name;
            x->name = NULL;
        }
    }
    return 0;
}

/* Turns the names taken in into rules. A name gets a rule for itself and the names below it
 * where what they get differs from what the rules above give them (any name not passed, for
 * a format that names hosts one by one), and a rule for itself alone, deeper, where its own
 * effect differs from its names' below. The names become the rules'. */
static int make_rules(struct collect *c, struct strmap *m)
{
    struct brock__plan *p = c->p;
    int each = (c->plan_flags & BROCK__PLAN_EACH) != 0;
    size_t n;

    if (index_names(c, m) < 0)
        return BROCK_ENOMEM;
    n = mark_rules(c, m, each);
    p->rules = mem_calloc(n, sizeof(*p->rules));
    if (!p->rules)
        return BROCK_ENOMEM;
    place_rules(c, m, each);
    /* The names move to the rules only now: rules_above() read them through the map. */
    if (name_rules(c) < 0)
        return BROCK_ENOMEM;
    qsort(p->rules, p->n, sizeof(*p->rules), rule_cmp);
    if (p->n_left_out) /* qsort() takes no NULL array, even empty */
        qsort(p->left_out, p->n_left_out, sizeof(*p->left_out), str_cmp);
    return 0;
}

/* ---- choices for one site only ---- */

/* Whether a choice for one site only, of action a, goes into a list exported with flags: a
 * block only when blocks are exported; the others always (a cookieblock as an exception where
 * it cannot be a rule of its own). */
static int site_rule_kept(unsigned flags, enum brock_action a)
{
    return brock_action_effect(a) != BROCK_DENY || (flags & BROCK_EXPORT_BLOCK);
}

int brock__plan_names_sites(struct brock_engine *e, unsigned flags)
{
    struct brock_site_action *v = NULL;
    size_t n = 0;
    int rc = brock_site_actions(e, NULL, &v, &n), named = 0;

    if (rc < 0)
        return rc;
    for (size_t i = 0; i < n && !named; i++)
        named = site_rule_kept(flags, v[i].action);
    brock_free(v);
    return named;
}

/* The choices for one site only, less what the flags leave out: a block unless blocks are
 * exported, a cookieblock turned into an exception where the format cannot strip cookies or
 * cookieblock is not exported (as for the rest of the list). */
static int site_rules(struct brock_engine *e, const struct collect *c, struct brock__plan *p)
{
    struct brock_site_action *v = NULL;
    size_t n = 0;
    int rc = brock_site_actions(e, NULL, &v, &n);

    if (rc < 0)
        return rc;
    if (n && !(p->site_rules = mem_calloc(n, sizeof(*p->site_rules)))) {
        brock_free(v);
        return BROCK_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        struct brock__site_rule *r = &p->site_rules[p->n_site_rules];
        enum brock_effect x = brock_action_effect(v[i].action);

        if (!site_rule_kept(c->flags, v[i].action))
            continue;
        if (x == BROCK_STRIP_COOKIES &&
            (!(c->flags & BROCK_EXPORT_COOKIEBLOCK) || !(c->plan_flags & BROCK__PLAN_STRIP)))
            x = BROCK_PASS;
        memcpy(r->site, v[i].site, sizeof(r->site));
        memcpy(r->name, v[i].domain, sizeof(r->name));
        r->effect = x;
        r->exact = brock__is_public_suffix(r->name);
        p->n_site_rules++;
    }
    brock_free(v);
    return 0;
}

const char *brock__site_rule_words(const struct brock__site_rule *r)
{
    switch (r->effect) {
    case BROCK_DENY: return "block";
    case BROCK_STRIP_COOKIES: return "cookieblock";
    case BROCK_PASS: break;
    }
    return "allow";
}

int brock__plan_excepted(const struct brock__plan *p, const char *name)
{
    size_t nlen = strlen(name);

    for (size_t i = 0; i < p->n; i++) {
        const struct brock__rule *r = &p->rules[i];
        size_t rlen = strlen(r->name);

        if (r->effect == BROCK_PASS && rlen <= nlen && !strcmp(name + nlen - rlen, r->name) &&
            (rlen == nlen || (!r->exact && name[nlen - rlen - 1] == '.')))
            return 1;
    }
    return 0;
}

int brock__plan_build(struct brock_engine *e, unsigned flags, unsigned plan_flags,
                      struct brock__plan *p)
{
    struct collect c = {.e = e, .flags = flags, .plan_flags = plan_flags, .p = p};
    struct strmap m;
    int rc;

    memset(p, 0, sizeof(*p));
    strmap_init(&m);
    rc = brock_trackers_each(e, NULL, 0, on_tracker, &c);
    if (rc == 0 && !(plan_flags & BROCK__PLAN_EACH))
        rc = index_names(&c, &m);
    if (rc == 0 && !(plan_flags & BROCK__PLAN_EACH))
        rc = except_suffixes(&c, &m);
    strmap_cleanup(&m, NULL);
    strmap_init(&m);
    if (rc == 0)
        rc = make_rules(&c, &m);
    strmap_cleanup(&m, NULL);
    if (rc == 0)
        rc = site_rules(e, &c, p);
    for (size_t i = 0; i < c.n; i++)
        mem_free(c.v[i].name);
    mem_free(c.v);
    return rc < 0 ? rc : 0;
}

void brock__plan_cleanup(struct brock__plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        mem_free(p->rules[i].name);
    for (size_t i = 0; i < p->n_left_out; i++)
        mem_free(p->left_out[i]);
    mem_free(p->rules);
    mem_free(p->site_rules);
    mem_free(p->left_out);
    memset(p, 0, sizeof(*p));
}

int brock__plan_header(struct buf *out, const char *mark, const char *about,
                       const struct brock__plan *p)
{
    int r = buf_printf(out,
                       "%s brock %s: %s\n%s blocked: %zu, cookies stripped: %zu, "
                       "exceptions: %zu\n",
                       mark, BROCK_VERSION, about, mark, p->counts[BROCK_DENY],
                       p->counts[BROCK_STRIP_COOKIES], p->counts[BROCK_PASS]);

    if (r >= 0 && p->n_site_rules)
        r = buf_printf(out, "%s choices for one site only: %zu\n", mark, p->n_site_rules);
    return r < 0 ? BROCK_ENOMEM : 0;
}

int brock__plan_left_out(struct buf *out, const char *mark, const struct brock__plan *p)
{
    for (size_t i = 0; i < p->n_left_out; i++) {
        if (buf_printf(out, "%s left out: %s\n", mark, p->left_out[i]) < 0)
            return BROCK_ENOMEM;
    }
    if (p->psl_note[0] && buf_printf(out,
                                     "%s the public suffixes below these rules, which are "
                                     "other sites, are not excepted: %s\n",
                                     mark, p->psl_note) < 0)
        return BROCK_ENOMEM;
    return 0;
}

int brock__plan_write(struct brock_engine *e, unsigned flags, const struct brock__text_list *f,
                      struct buf *out)
{
    struct brock__plan p;
    int rc = brock__plan_build(e, flags, f->plan_flags, &p);

    if (rc == 0 && f->mark)
        rc = brock__plan_header(out, f->mark, f->about, &p);
    if (rc == 0 && f->preamble && buf_puts(out, f->preamble) < 0)
        rc = BROCK_ENOMEM;
    for (size_t i = 0; i < p.n && rc == 0; i++)
        rc = f->rule(out, &p, i, f->arg);
    for (size_t i = 0; i < p.n_site_rules && rc == 0; i++) {
        const struct brock__site_rule *r = &p.site_rules[i];

        if (f->site_rule)
            rc = f->site_rule(out, &p, i, f->arg);
        else if (f->mark && buf_printf(out,
                                       "%s left out: %s %s on %s only (the format cannot tell one "
                                       "site's requests from another's)\n",
                                       f->mark, brock__site_rule_words(r), r->name, r->site) < 0)
            rc = BROCK_ENOMEM;
    }
    if (rc == 0 && f->mark)
        rc = brock__plan_left_out(out, f->mark, &p);
    brock__plan_cleanup(&p);
    return rc;
}
