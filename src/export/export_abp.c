/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as filter lists that block a domain with the names below it and let names below it
 * through with exceptions: Adblock Plus, AdGuard Home's (and Pi-hole's) DNS rules, and uBlock
 * Origin's dynamic filtering rules. None of them strips cookies alone, so cookieblocked names
 * are let through, as they must load.
 */
#include "export/export.h"

#include "util/buf.h"

/* One format: the line of a rule at each depth it can say (an exception in Adblock Plus
 * wins over any block, so a name blocked again below an exception cannot be said there). */
struct list_format {
    const char *mark; /* starts a comment; NULL: the format has none */
    const char *about;
    struct {
        const char *pre, *post; /* around the name, for a rule at depth 0, 1, ... */
    } lines[4];                 /* pre NULL: past what the format can say */
    /* The anchors before a name for it alone, one line each: Adblock Plus's "|" starts the
     * whole URL, so its scheme follows; AdGuard's DNS rules match host names, where "|"
     * starts the name. */
    const char *exact[3];
};

static const struct list_format abp = {
    "!",
    "an Adblock Plus filter list",
    {{"", "^$third-party"}, {"@@", "^$third-party"}, {NULL, NULL}, {NULL, NULL}},
    {"|http://", "|https://", NULL},
};

/* AdGuard's $important wins over exceptions without it, which gives two more depths. */
static const struct list_format adguard = {
    "!",
    "DNS filtering rules for AdGuard Home and Pi-hole",
    {{"", "^"}, {"@@", "^"}, {"", "^$important"}, {"@@", "^$important"}},
    {"|", NULL, NULL},
};

static int write_line(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const struct list_format *f = arg;
    const struct brock__rule *r = &p->rules[i];

    if (r->depth < sizeof(f->lines) / sizeof(f->lines[0]) && f->lines[r->depth].pre) {
        const char *const subtree[] = {"||", NULL};
        const char *const *anchors = r->exact ? f->exact : subtree;

        for (size_t k = 0; anchors[k]; k++) {
            if (buf_printf(out, "%s%s%s%s\n", f->lines[r->depth].pre, anchors[k], r->name,
                           f->lines[r->depth].post) < 0)
                return BROCK_ENOMEM;
        }
        return 0;
    }
    return buf_printf(out, "%s left out: %s %s (an exception above it wins here)\n", f->mark,
                      r->effect == BROCK_DENY ? "block" : "exception", r->name) < 0
               ? BROCK_ENOMEM
               : 0;
}

/* A choice for one site only, with $domain. In Adblock Plus an exception wins over every
 * block, so a block for a site under an exception of the list cannot be said; AdGuard's
 * $important puts the site's rule above the list's either way. A public suffix's own choice
 * is said for it alone with "|" in AdGuard; Adblock Plus's "|" anchors a whole URL, so there
 * it is left out. */
static int write_site_line(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const struct list_format *f = arg;
    const struct brock__site_rule *r = &p->site_rules[i];
    int is_abp = f == &abp, deny = r->effect == BROCK_DENY, n;

    if ((r->exact && is_abp) || (is_abp && deny && brock__plan_excepted(p, r->name)))
        n = buf_printf(out, "%s left out: %s %s on %s only (%s)\n", f->mark,
                       brock__site_rule_words(r), r->name, r->site,
                       r->exact ? "a public suffix: a rule would reach every site below it"
                                : "an exception above it wins here");
    else if (is_abp)
        n = buf_printf(out, "%s||%s^$third-party,domain=%s\n", deny ? "" : "@@", r->name, r->site);
    else
        n = buf_printf(out, "%s%s%s^$domain=%s,important\n", deny ? "" : "@@",
                       r->exact ? "|" : "||", r->name, r->site);
    return n < 0 ? BROCK_ENOMEM : 0;
}

static int write_list(struct brock_engine *e, unsigned flags, struct buf *out,
                      const struct list_format *f)
{
    const struct brock__text_list t = {.mark = f->mark,
                                       .about = f->about,
                                       .rule = write_line,
                                       .site_rule = write_site_line,
                                       .arg = f};

    return brock__plan_write(e, flags, &t, out);
}

int brock__export_abp(struct brock_engine *e, unsigned flags, struct buf *out)
{
    if (buf_puts(out, "[Adblock Plus 2.0]\n! Title: brock: trackers learned across sites\n") < 0)
        return BROCK_ENOMEM;
    return write_list(e, flags, out, &abp);
}

int brock__export_adguard(struct brock_engine *e, unsigned flags, struct buf *out)
{
    return write_list(e, flags, out, &adguard);
}

/* uBlock Origin's rules have no comments (its "My rules" pane keeps only rules), and the
 * most specific host's rule wins, so every depth can be said: "noop" hands a name back to the
 * filter lists, as if no rule of brock's named it. A rule reaches every name below its own,
 * so a choice for one name alone is left out. */
static int write_ubo(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    (void)arg;
    if (p->rules[i].exact)
        return 0;
    return buf_printf(out, "* %s * %s\n", p->rules[i].name,
                      p->rules[i].effect == BROCK_DENY ? "block" : "noop") < 0
               ? BROCK_ENOMEM
               : 0;
}

/* "site name * action": the site's rule beats the global one for that name, and reaches the
 * site's subdomains, as a choice for the site does. A public suffix's own choice cannot be
 * said for it alone, and this format has no comments to say so: it is left out. */
static int write_ubo_site(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const struct brock__site_rule *r = &p->site_rules[i];

    (void)arg;
    if (r->exact)
        return 0;
    return buf_printf(out, "%s %s * %s\n", r->site, r->name,
                      r->effect == BROCK_DENY ? "block" : "noop") < 0
               ? BROCK_ENOMEM
               : 0;
}

int brock__export_ubo(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct brock__text_list f = {.rule = write_ubo, .site_rule = write_ubo_site};

    return brock__plan_write(e, flags, &f, out);
}
