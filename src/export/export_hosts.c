/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as a hosts file: every name whose resolved action blocks it, pointed at 0.0.0.0. A
 * hosts line names one host, never the names below it, so a cookieblocked or allowed name
 * below a blocked base loads as it should by not being listed.
 */
#include "export/export.h"

#include "util/buf.h"

static int write_host(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    (void)arg;
    if (p->rules[i].effect != BROCK_DENY)
        return 0;
    return buf_printf(out, "0.0.0.0 %s\n", p->rules[i].name) < 0 ? BROCK_ENOMEM : 0;
}

int brock__export_hosts(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct brock__text_list f = {.plan_flags = BROCK__PLAN_EACH,
                                              .mark = "#",
                                              .about = "domains blocked as tracking across sites",
                                              .rule = write_host};

    return brock__plan_write(e, flags, &f, out);
}
