/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as a hosts file: every name whose resolved action blocks it, pointed at 0.0.0.0. A
 * hosts line names one host, never the names below it, so a cookieblocked or allowed name
 * below a blocked base loads as it should by not being listed.
 */
#include "engine/engine.h"

#include "util/buf.h"

int brock__export_hosts(struct brock_engine *e, unsigned flags, struct buf *out)
{
    struct brock__plan p;
    int rc = brock__plan_build(e, flags, BROCK__PLAN_EACH, &p);

    if (rc == 0)
        rc = brock__plan_header(out, "#", "domains blocked as tracking across sites", &p);
    for (size_t i = 0; i < p.n && rc == 0; i++) {
        if (p.rules[i].effect == BROCK_DENY &&
            buf_printf(out, "0.0.0.0 %s\n", p.rules[i].name) < 0)
            rc = BROCK_ENOMEM;
    }
    if (rc == 0)
        rc = brock__plan_left_out(out, "#", &p);
    brock__plan_cleanup(&p);
    return rc;
}
