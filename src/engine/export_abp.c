/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as an Adblock Plus filter list: blocked names as third-party blocking rules, and
 * names the user (or a DNT policy) allowed beneath a blocked base as exceptions. Adblock Plus
 * has no rule that strips cookies only, so cookieblocked names appear as comments.
 */
#include "engine/engine.h"

#include "util/buf.h"

static int write_rule(void *arg, const struct brock_tracker *t)
{
    struct buf *out = arg;
    int r = 0;

    switch (brock_action_effect(t->action)) {
    case BROCK_DENY:
        r = buf_printf(out, "||%s^$third-party\n", t->domain);
        break;
    case BROCK_STRIP_COOKIES:
        r = buf_printf(out, "! cookieblock: %s\n", t->domain);
        break;
    case BROCK_PASS:
        if (t->action == BROCK_USER_ALLOW || t->action == BROCK_DNT)
            r = buf_printf(out, "@@||%s^$third-party\n", t->domain);
        break;
    }
    return r < 0 ? BROCK_ENOMEM : 0;
}

int brock__export_abp(struct brock_engine *e, struct buf *out)
{
    if (buf_printf(out, "[Adblock Plus 2.0]\n! Title: brock: trackers learned across sites\n"
                        "! Version: %s\n", BROCK_VERSION) < 0)
        return BROCK_ENOMEM;
    return brock_trackers_each(e, NULL, 0, write_rule, out);
}
