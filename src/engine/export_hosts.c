/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as a hosts file: every name whose resolved action blocks it, pointed at 0.0.0.0.
 * Cookieblocked names must still load, so they are left out (a hosts file cannot strip
 * cookies); user-allowed names under a blocked base cannot be expressed and are listed as
 * comments.
 */
#include "engine/engine.h"

#include "util/buf.h"

static int write_host(void *arg, const struct brock_tracker *t)
{
    struct buf *out = arg;

    if (brock_action_effect(t->action) == BROCK_DENY)
        return buf_printf(out, "0.0.0.0 %s\n", t->domain) < 0 ? BROCK_ENOMEM : 0;
    return 0;
}

int brock__export_hosts(struct brock_engine *e, struct buf *out)
{
    if (buf_printf(out, "# brock %s: domains blocked as tracking across sites\n",
                   BROCK_VERSION) < 0)
        return BROCK_ENOMEM;
    return brock_trackers_each(e, NULL, 0, write_host, out);
}
