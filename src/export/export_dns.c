/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export for DNS resolvers: dnsmasq, Unbound and a response policy zone (BIND, Knot Resolver,
 * PowerDNS Recursor). A blocked domain answers NXDOMAIN for itself and the names below it; a
 * name below it that must load is answered as usual. DNS cannot strip cookies, so a
 * cookieblocked name is such a name. A choice for one name alone (a public suffix's, a DNT
 * policy's) is said where the format can name one name without those below it.
 */
#include "export/export.h"

#include "util/buf.h"

/* The text around a rule's name for a block or an exception. The rule that is more specific
 * wins in dnsmasq and Unbound, whatever the order. */
struct around {
    const char *block_pre, *block_post, *pass_pre, *pass_post;
    const char *below; /* before a name for the names below it alone; NULL: no such rule */
    const char *why;   /* why a rule for a name alone is left out */
};

static int write_one(struct buf *out, const struct around *a, enum brock_effect effect,
                     const char *before, const char *name)
{
    int deny = effect == BROCK_DENY;

    return buf_printf(out, "%s%s%s%s", deny ? a->block_pre : a->pass_pre, before, name,
                      deny ? a->block_post : a->pass_post) < 0
               ? BROCK_ENOMEM
               : 0;
}

/* A rule for a name alone is the name's rule, with one for the names below it that gives
 * them back what the rules above say. */
static int write_around(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const struct around *a = arg;
    const struct brock__rule *r = &p->rules[i];
    int rc;

    if (!r->exact && r->before_exact && a->below)
        return 0; /* the exact rule's rule for the names below says it */
    if (!r->exact)
        return write_one(out, a, r->effect, "", r->name);
    if (!a->below)
        return buf_printf(out, "# left out: %s %s (%s)\n",
                          r->effect == BROCK_DENY ? "block" : "exception", r->name, a->why) < 0
                   ? BROCK_ENOMEM
                   : 0;
    rc = write_one(out, a, r->effect, "", r->name);
    return rc ? rc : write_one(out, a, r->context, a->below, r->name);
}

/* address=/NAME/ without an address answers NXDOMAIN (dnsmasq(8)); "#" would answer 0.0.0.0,
 * which sends a program to its own machine. server=/NAME/# asks the usual servers again.
 * "*.NAME" (dnsmasq 2.86 and later) matches the names below NAME but not NAME itself. */
int brock__export_dnsmasq(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct around a = {"address=/", "/\n", "server=/", "/#\n", "*.", NULL};
    static const struct brock__text_list f = {.mark = "#",
                                              .about = "dnsmasq configuration (conf-file=)",
                                              .rule = write_around,
                                              .arg = &a};

    return brock__plan_write(e, flags, &f, out);
}

/* A "server:" clause of its own, so that the file can be included anywhere in unbound.conf. */
int brock__export_unbound(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct around a = {
        "local-zone: \"",
        ".\" always_nxdomain\n",
        "local-zone: \"",
        ".\" transparent\n",
        NULL,
        "the choice holds for this name alone, and a local zone reaches every name below it"};
    static const struct brock__text_list f = {.mark = "#",
                                              .about = "Unbound configuration (include:)",
                                              .preamble = "server:\n",
                                              .rule = write_around,
                                              .arg = &a};

    return brock__plan_write(e, flags, &f, out);
}

/* The name and the names below it (the name alone, for an exact rule: the wildcards above
 * it still reach the names below), to NXDOMAIN (CNAME .) or answered as usual. */
static int write_rpz(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const struct brock__rule *r = &p->rules[i];
    const char *target = r->effect == BROCK_DENY ? "." : "rpz-passthru.";

    /* A name with an exact rule after this one gets its own record there: one owner, one
     * CNAME. */
    (void)arg;
    if ((!r->before_exact && buf_printf(out, "%s CNAME %s\n", r->name, target) < 0) ||
        (!r->exact && buf_printf(out, "*.%s CNAME %s\n", r->name, target) < 0))
        return BROCK_ENOMEM;
    return 0;
}

/* Owner names are relative, so that the zone can be served under any name. The serial stays
 * 1: the same state gives the same file; a server that transfers the zone to others needs it
 * raised by whoever serves it. */
int brock__export_rpz(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct brock__text_list f = {
        .mark = ";",
        .about = "a response policy zone (RPZ), under any zone name",
        .preamble = "$TTL 300\n"
                    "@ IN SOA localhost. root.localhost. 1 3600 600 86400 300\n"
                    "@ IN NS localhost.\n",
        .rule = write_rpz};

    return brock__plan_write(e, flags, &f, out);
}
