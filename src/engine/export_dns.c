/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export for DNS resolvers: dnsmasq, Unbound and a response policy zone (BIND, Knot Resolver,
 * PowerDNS Recursor). A blocked domain answers NXDOMAIN for itself and the names below it; a
 * name below it that must load is answered as usual. DNS cannot strip cookies, so a
 * cookieblocked name is such a name.
 */
#include "engine/engine.h"

#include "util/buf.h"

/* Writes each rule of p with the text around its name for a block or an exception. The rule
 * that is more specific wins in all three, whatever the order. */
static int write_rules(struct buf *out, const struct brock__plan *p, const char *block_pre,
                       const char *block_post, const char *pass_pre, const char *pass_post)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct brock__rule *r = &p->rules[i];
        int deny = r->effect == BROCK_DENY;

        if (buf_printf(out, "%s%s%s", deny ? block_pre : pass_pre, r->name,
                       deny ? block_post : pass_post) < 0)
            return BROCK_ENOMEM;
    }
    return 0;
}

/* address=/NAME/ without an address answers NXDOMAIN (dnsmasq(8)); "#" would answer 0.0.0.0,
 * which sends a program to its own machine. server=/NAME/# asks the usual servers again. */
int brock__export_dnsmasq(struct brock_engine *e, unsigned flags, struct buf *out)
{
    struct brock__plan p;
    int rc = brock__plan_build(e, flags, 0, &p);

    if (rc == 0)
        rc = brock__plan_header(out, "#", "dnsmasq configuration (conf-file=)", &p);
    if (rc == 0)
        rc = write_rules(out, &p, "address=/", "/\n", "server=/", "/#\n");
    if (rc == 0)
        rc = brock__plan_left_out(out, "#", &p);
    brock__plan_cleanup(&p);
    return rc;
}

/* A "server:" clause of its own, so that the file can be included anywhere in unbound.conf. */
int brock__export_unbound(struct brock_engine *e, unsigned flags, struct buf *out)
{
    struct brock__plan p;
    int rc = brock__plan_build(e, flags, 0, &p);

    if (rc == 0)
        rc = brock__plan_header(out, "#", "Unbound configuration (include:)", &p);
    if (rc == 0 && buf_puts(out, "server:\n") < 0)
        rc = BROCK_ENOMEM;
    if (rc == 0)
        rc = write_rules(out, &p, "local-zone: \"", ".\" always_nxdomain\n", "local-zone: \"",
                         ".\" transparent\n");
    if (rc == 0)
        rc = brock__plan_left_out(out, "#", &p);
    brock__plan_cleanup(&p);
    return rc;
}

/* Owner names are relative, so that the zone can be served under any name. The serial stays
 * 1: the same state gives the same file; a server that transfers the zone to others needs it
 * raised by whoever serves it. */
int brock__export_rpz(struct brock_engine *e, unsigned flags, struct buf *out)
{
    struct brock__plan p;
    int rc = brock__plan_build(e, flags, 0, &p);

    if (rc == 0)
        rc = brock__plan_header(out, ";", "a response policy zone (RPZ), under any zone name", &p);
    if (rc == 0 && buf_puts(out, "$TTL 300\n"
                                 "@ IN SOA localhost. root.localhost. 1 3600 600 86400 300\n"
                                 "@ IN NS localhost.\n") < 0)
        rc = BROCK_ENOMEM;
    for (size_t i = 0; i < p.n && rc == 0; i++) {
        const char *target = p.rules[i].effect == BROCK_DENY ? "." : "rpz-passthru.";

        if (buf_printf(out, "%s CNAME %s\n*.%s CNAME %s\n", p.rules[i].name, target,
                       p.rules[i].name, target) < 0)
            rc = BROCK_ENOMEM;
    }
    if (rc == 0)
        rc = brock__plan_left_out(out, ";", &p);
    brock__plan_cleanup(&p);
    return rc;
}
