/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as a Privoxy actions file. Privoxy applies every section whose pattern matches, the
 * last one winning, so the rules go out from the least specific to the most: blocks, then
 * the names below them that must load (with their cookies cut when cookieblocked), then what
 * is blocked again below those.
 */
#include "export/export.h"

#include "util/buf.h"

/* The heading of a section whose names get effect where the sections before gave context. */
static const char *heading(enum brock_effect effect, enum brock_effect context)
{
    switch (effect) {
    case BROCK_DENY: return "{ +block{brock: tracker learned across sites} +handle-as-image }";
    case BROCK_STRIP_COOKIES:
        return context == BROCK_DENY
                   ? "{ -block +crunch-incoming-cookies +crunch-outgoing-cookies }"
                   : "{ +crunch-incoming-cookies +crunch-outgoing-cookies }";
    case BROCK_PASS: break;
    }
    return context == BROCK_DENY ? "{ -block }"
                                 : "{ -crunch-incoming-cookies -crunch-outgoing-cookies }";
}

/* A section's heading where the rules change, then ".name", which matches the name and
 * every name below it, or "name", which matches that host alone. */
static int write_section(struct buf *out, const struct brock__plan *p, size_t i, const void *arg)
{
    const struct brock__rule *r = &p->rules[i];
    int new_section = i == 0 || p->rules[i - 1].depth != r->depth ||
                      p->rules[i - 1].effect != r->effect || p->rules[i - 1].context != r->context;

    (void)arg;
    if ((new_section && buf_printf(out, "\n%s\n", heading(r->effect, r->context)) < 0) ||
        buf_printf(out, "%s%s\n", r->exact ? "" : ".", r->name) < 0)
        return BROCK_ENOMEM;
    return 0;
}

int brock__export_privoxy(struct brock_engine *e, unsigned flags, struct buf *out)
{
    static const struct brock__text_list f = {.plan_flags = BROCK__PLAN_STRIP,
                                              .mark = "#",
                                              .about = "a Privoxy actions file (actionsfile)",
                                              .rule = write_section};

    return brock__plan_write(e, flags, &f, out);
}
