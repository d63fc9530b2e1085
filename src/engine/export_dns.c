/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export for DNS resolvers: dnsmasq, Unbound and a response policy zone (BIND, Knot Resolver,
 * PowerDNS Recursor). A blocked domain answers NXDOMAIN for itself and the names below it; a
 * name below it that must load is answered as usual. DNS cannot strip cookies, so a
 * cookieblocked name is such a name.
 */
#include "engine/engine.h"

#include "util/buf.h"

/* The text around a rule's name for a block or an exception. The rule that is more specific
 * wins in dnsmasq and Unbound, whatever the order. */
struct around {
    const char *block_pre, *block_post, *pass_pre, *pass_post;
};

static int write_around(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const struct around *a = arg;
    const struct brock__rule *r = &p->rules[i];
    int deny = r->effect == BROCK_DENY;

    return buf_printf(out, "%s%s%s", deny ? a->block_pre : a->pass_pre, r->name,
                      deny ? a->block_post : a->pass_post) < 0
               ? BROCK_ENOMEM
               : 0;
}

/* address=/NAME/ without an address answers NXDOMAIN (dnsmasq(8)); "#" would answer 0.0.0.0,
 * which sends a program to its own machine. server=/NAME/# asks the usual servers again. */
int brock__export_dnsmasq(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct around a = {"address=/", "/\n", "server=/", "/#\n"};
    static const struct brock__text_list f = {
        .mark = "#", .about = "dnsmasq configuration (conf-file=)", .rule = write_around,
        .arg = &a};

    return brock__plan_write(e, flags, &f, out);
}

/* A "server:" clause of its own, so that the file can be included anywhere in unbound.conf. */
int brock__export_unbound(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct around a = {"local-zone: \"", ".\" always_nxdomain\n", "local-zone: \"",
                                    ".\" transparent\n"};
    static const struct brock__text_list f = {.mark = "#",
                                              .about = "Unbound configuration (include:)",
                                              .preamble = "server:\n",
                                              .rule = write_around,
                                              .arg = &a};

    return brock__plan_write(e, flags, &f, out);
}

/* The name and the names below it, to NXDOMAIN (CNAME .) or answered as usual. */
static int write_rpz(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const char *target = p->rules[i].effect == BROCK_DENY ? "." : "rpz-passthru.";

    (void)arg;
    return buf_printf(out, "%s CNAME %s\n*.%s CNAME %s\n", p->rules[i].name, target,
                      p->rules[i].name, target) < 0
               ? BROCK_ENOMEM
               : 0;
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
