/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Exporting the state: the formats' writers (export_*.c, and the engine's pbjson.c for Privacy
 * Badger's own), which export.c's table names, and the plan the block lists are written from
 * (export_plan.c): which names get which rules.
 */
#ifndef BROCK_EXPORT_EXPORT_H
#define BROCK_EXPORT_EXPORT_H

#include <stddef.h>

#include "engine/engine.h"

struct buf;

/* ---- the formats (export.c's table, export_*.c) ---- */

/* A writer gets the engine, the export's flags (enum brock_export_flags) and the buffer to
 * append to; returns 0, BROCK_ENOMEM. */
struct brock__exporter {
    const char *name;
    int (*write)(struct brock_engine *e, unsigned flags, struct buf *out);
};

#define BROCK__EXPORTER(name)                                                                      \
    int brock__export_##name(struct brock_engine *e, unsigned flags, struct buf *out)              \
        BROCK_NODISCARD_INTERNAL;
BROCK__EXPORTER(hosts)
BROCK__EXPORTER(abp)
BROCK__EXPORTER(adguard)
BROCK__EXPORTER(ubo)
BROCK__EXPORTER(dnsmasq)
BROCK__EXPORTER(unbound)
BROCK__EXPORTER(rpz)
BROCK__EXPORTER(privoxy)
BROCK__EXPORTER(dnr)
BROCK__EXPORTER(safari)
#undef BROCK__EXPORTER

/* ---- the plan (export_plan.c) ---- */

/* What a block list must say, computed once for every format. A rule names a domain and what
 * the format must do there; unless the format names hosts one by one, the rule reaches the
 * names below it too, except where a deeper rule says otherwise. */
struct brock__rule {
    char *name;
    enum brock_effect effect;  /* what the rule does at name and below (exact: at name only) */
    enum brock_effect context; /* what the rules above it do there: BROCK_PASS when none */
    unsigned depth;            /* rules above it */
    int exact;        /* the rule holds for name alone, and the names below it keep context: a
                         public suffix's own choice, or a name's own DNT policy */
    int before_exact; /* an exact rule for the same name follows, deeper */
};

/* A choice for one site only, as a list says it: on the pages of site (a base domain), name
 * and the names below it get effect, above every rule of the list. */
struct brock__site_rule {
    char site[BROCK_HOST_MAX];
    char name[BROCK_HOST_MAX];
    enum brock_effect effect;
    int exact; /* name is a public suffix: the choice holds for it alone, not the names below */
};

struct brock__plan {
    struct brock__rule *rules; /* by depth, context, effect, exact, then name */
    size_t n;
    struct brock__site_rule *site_rules; /* by site, then name */
    size_t n_site_rules;
    size_t counts[BROCK_DENY + 1]; /* rules per effect */
    char **left_out;               /* names no rule can name rightly, each with why: "name (why)",
                                      sorted */
    size_t n_left_out;
    /* Why the public suffixes below the rules could not be excepted; "" when they were. */
    char psl_note[300];
};

enum brock__plan_flags {
    BROCK__PLAN_STRIP = 1, /* the format strips cookies: cookieblock is a rule of its own */
    BROCK__PLAN_EACH = 2,  /* the format's rules name one host each (a hosts file): every
                              blocked name is a rule, and nothing needs an exception */
};

/* Computes the plan for an export with flags (enum brock_export_flags) in a format that can
 * do plan_flags (enum brock__plan_flags) into *p (brock__plan_cleanup() it, even on
 * failure). Returns 0, BROCK_ENOMEM. */
int brock__plan_build(struct brock_engine *e, unsigned flags, unsigned plan_flags,
                      struct brock__plan *p) BROCK_NODISCARD_INTERNAL;
void brock__plan_cleanup(struct brock__plan *p);

/* Whether a block list exported with flags names a site a person visited: a choice for one
 * site only that it holds, each of which every format writes as a rule or as a comment
 * saying it cannot. Returns 1, 0, or BROCK_ENOMEM. */
int brock__plan_names_sites(struct brock_engine *e, unsigned flags) BROCK_NODISCARD_INTERNAL;

/* A block list written as text, rule by rule. */
struct brock__text_list {
    unsigned plan_flags;  /* enum brock__plan_flags */
    const char *mark;     /* starts a comment line; NULL: the format has no comments, and
                             neither the header nor the names left out are written */
    const char *about;    /* what the list is, for the header */
    const char *preamble; /* written after the header; NULL: nothing */
    /* Writes rule i of p (the rules before it are written). Returns 0, BROCK_ENOMEM. */
    int (*rule)(struct buf *out, const struct brock__plan *p, size_t i, const void *arg);
    /* Writes p->site_rules[i], after every rule (or a comment saying why it cannot); NULL:
     * the format cannot tell one site's requests from another's, and each is left out with
     * a comment. Returns 0, BROCK_ENOMEM. */
    int (*site_rule)(struct buf *out, const struct brock__plan *p, size_t i, const void *arg);
    const void *arg;
};

/* The words of a site rule's effect: "block", "cookieblock" or "allow". */
const char *brock__site_rule_words(const struct brock__site_rule *r);

/* Whether an exception of p (a rule that lets names through) is at name or above it. */
int brock__plan_excepted(const struct brock__plan *p, const char *name);

/* Writes the whole list for an export with flags: the header, the preamble, each rule, the
 * names left out. Returns 0, BROCK_ENOMEM. */
int brock__plan_write(struct brock_engine *e, unsigned flags, const struct brock__text_list *f,
                      struct buf *out) BROCK_NODISCARD_INTERNAL;

/* The comment lines that open a block list: brock's version, what the list is (about) and
 * how many rules of each kind it holds, each line started with mark ("#", "!", ";"). Returns
 * 0, BROCK_ENOMEM. */
int brock__plan_header(struct buf *out, const char *mark, const char *about,
                       const struct brock__plan *p) BROCK_NODISCARD_INTERNAL;

/* One comment line per name left out of p, started with mark. Returns 0, BROCK_ENOMEM. */
int brock__plan_left_out(struct buf *out, const char *mark,
                         const struct brock__plan *p) BROCK_NODISCARD_INTERNAL;

#endif
