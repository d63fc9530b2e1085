/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as a Privoxy actions file. Privoxy applies every section whose pattern matches, the
 * last one winning, so the rules go out from the least specific to the most: blocks, then
 * the names below them that must load (with their cookies cut when cookieblocked), then what
 * is blocked again below those.
 */
#include "engine/engine.h"

#include "util/buf.h"

/* The heading of a section whose names get effect where the sections before gave context. */
static const char *heading(enum brock_effect effect, enum brock_effect context)
{
    switch (effect) {
    case BROCK_DENY:
        return "{ +block{brock: tracker learned across sites} +handle-as-image }";
    case BROCK_STRIP_COOKIES:
        return context == BROCK_DENY
                   ? "{ -block +crunch-incoming-cookies +crunch-outgoing-cookies }"
                   : "{ +crunch-incoming-cookies +crunch-outgoing-cookies }";
    case BROCK_PASS:
        break;
    }
    return context == BROCK_DENY ? "{ -block }"
                                 : "{ -crunch-incoming-cookies -crunch-outgoing-cookies }";
}

int brock__export_privoxy(struct brock_engine *e, unsigned flags, struct buf *out)
{
    struct brock__plan p;
    int rc = brock__plan_build(e, flags, BROCK__PLAN_STRIP, &p);

    if (rc == 0)
        rc = brock__plan_header(out, "#", "a Privoxy actions file (actionsfile)", &p);
    for (size_t i = 0; i < p.n && rc == 0; i++) {
        const struct brock__rule *r = &p.rules[i], *prev = i ? r - 1 : NULL;
        int new_section = !prev || prev->depth != r->depth || prev->effect != r->effect ||
                          prev->context != r->context;

        /* ".name" matches the name and every name below it. */
        if ((new_section && buf_printf(out, "\n%s\n", heading(r->effect, r->context)) < 0) ||
            buf_printf(out, ".%s\n", r->name) < 0)
            rc = BROCK_ENOMEM;
    }
    if (rc == 0)
        rc = brock__plan_left_out(out, "#", &p);
    brock__plan_cleanup(&p);
    return rc;
}
