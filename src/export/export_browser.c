/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Export as the rule lists browsers read natively: a Chromium declarativeNetRequest static
 * ruleset and a WebKit (Safari) content blocker. Both can strip cookies, so cookieblocked
 * names keep loading without them, as in Privacy Badger.
 */
#include "export/export.h"

#include <string.h>

#include "util/buf.h"

/* Appends one rule (a JSON object, taken) to the array text in out: one rule a line. */
static int append_rule(struct buf *out, json_t *rule, int *first)
{
    char *text = rule ? json_dumps(rule, 0) : NULL;
    int r = text ? buf_printf(out, "%s%s", *first ? "\n" : ",\n", text) : -1;

    free(text);
    json_decref(rule);
    *first = 0;
    return r < 0 ? BROCK_ENOMEM : 0;
}

static int close_array(struct buf *out, int first)
{
    return buf_puts(out, first ? "]\n" : "\n]\n") < 0 ? BROCK_ENOMEM : 0;
}

/* ---- declarativeNetRequest ---- */

/* A rule's action for effect: "block", "allow", or headers removed. */
static json_t *dnr_action(enum brock_effect effect)
{
    switch (effect) {
    case BROCK_DENY: return json_pack("{s:s}", "type", "block");
    case BROCK_STRIP_COOKIES:
        return json_pack("{s:s, s:[{s:s, s:s}], s:[{s:s, s:s}]}", "type", "modifyHeaders",
                         "requestHeaders", "header", "cookie", "operation", "remove",
                         "responseHeaders", "header", "set-cookie", "operation", "remove");
    case BROCK_PASS: break;
    }
    return json_pack("{s:s}", "type", "allow");
}

/* A regular expression (RE2) for a URL whose host is name, not a name below it. */
static void dnr_exact_re(char *re, size_t size, const char *name)
{
    size_t n = (size_t)snprintf(re, size, "^[a-z]+://");

    for (const char *c = name; *c && n + 8 < size; c++) {
        if (*c == '.')
            re[n++] = '\\';
        re[n++] = *c;
    }
    snprintf(re + n, size - n, "[:/]");
}

/* The condition for a third-party request to the names of domains and below, or (exact) to
 * the one name of domains alone. */
static json_t *dnr_condition(json_t *domains, int exact)
{
    char re[BROCK_HOST_MAX * 2 + 32];

    if (!exact)
        return json_pack("{s:O, s:s}", "requestDomains", domains, "domainType", "thirdParty");
    dnr_exact_re(re, sizeof(re), json_string_value(json_array_get(domains, 0)));
    return json_pack("{s:s, s:s}", "regexFilter", re, "domainType", "thirdParty");
}

static int dnr_rule(struct buf *out, int *first, int *id, int priority, enum brock_effect effect,
                    json_t *domains, int exact)
{
    json_t *rule = json_pack("{s:i, s:i, s:o, s:o}", "id", ++*id, "priority", priority, "action",
                             dnr_action(effect), "condition", dnr_condition(domains, exact));

    return append_rule(out, rule, first);
}

/* One rule for the names of a depth with one effect and context. Chromium takes the block or
 * allow rule of highest priority, then applies the header rules whose priority is higher
 * than that allow's: so at depth d, blocks and allows weigh 2d+1 and header rules 2d+2, and a
 * cookieblocked name below a block is allowed first and then loses its cookies. */
static int dnr_group(struct buf *out, int *first, int *id, const struct brock__rule *r,
                     json_t *domains)
{
    int rc = 0;
    int weight = 2 * (int)r->depth + 1;

    if (r->effect == BROCK_DENY || r->context != BROCK_PASS)
        rc = dnr_rule(out, first, id, weight, r->effect == BROCK_DENY ? BROCK_DENY : BROCK_PASS,
                      domains, r->exact);
    if (rc == 0 && r->effect == BROCK_STRIP_COOKIES)
        rc = dnr_rule(out, first, id, weight + 1, BROCK_STRIP_COOKIES, domains, r->exact);
    return rc;
}

/* The condition for a choice on one site: its name (and the names below it; a public
 * suffix's own choice, by a regular expression, the name alone) requested by the site's
 * pages (initiatorDomains reaches the site's subdomains too). */
static json_t *dnr_site_condition(const struct brock__site_rule *r)
{
    char re[BROCK_HOST_MAX * 2 + 32];

    if (!r->exact)
        return json_pack("{s:[s], s:[s], s:s}", "requestDomains", r->name, "initiatorDomains",
                         r->site, "domainType", "thirdParty");
    dnr_exact_re(re, sizeof(re), r->name);
    return json_pack("{s:s, s:[s], s:s}", "regexFilter", re, "initiatorDomains", r->site,
                     "domainType", "thirdParty");
}

/* Each choice for one site weighs more than every rule of the list (whose deepest weighs
 * top): a block or an allow at top + 1, and a cookieblock's header rule above that allow. */
static int dnr_site_rules(struct buf *out, int *first, int *id, const struct brock__plan *p)
{
    int top = 0, rc = 0;

    for (size_t i = 0; i < p->n; i++)
        top = 2 * (int)p->rules[i].depth + 2 > top ? 2 * (int)p->rules[i].depth + 2 : top;
    for (size_t i = 0; i < p->n_site_rules && rc == 0; i++) {
        const struct brock__site_rule *r = &p->site_rules[i];
        enum brock_effect x = r->effect == BROCK_DENY ? BROCK_DENY : BROCK_PASS;
        json_t *rule = json_pack("{s:i, s:i, s:o, s:o}", "id", ++*id, "priority", top + 1, "action",
                                 dnr_action(x), "condition", dnr_site_condition(r));

        rc = append_rule(out, rule, first);
        if (rc == 0 && r->effect == BROCK_STRIP_COOKIES)
            rc = append_rule(out,
                             json_pack("{s:i, s:i, s:o, s:o}", "id", ++*id, "priority", top + 2,
                                       "action", dnr_action(BROCK_STRIP_COOKIES), "condition",
                                       dnr_site_condition(r)),
                             first);
    }
    return rc;
}

int brock__export_dnr(struct brock_engine *e, unsigned flags, struct buf *out)
{
    struct brock__plan p;
    json_t *domains = NULL;
    int rc = brock__plan_build(e, flags, BROCK__PLAN_STRIP, &p);
    int first = 1, id = 0;

    if (rc == 0 && buf_puts(out, "[") < 0)
        rc = BROCK_ENOMEM;
    for (size_t i = 0; i < p.n && rc == 0; i++) {
        const struct brock__rule *r = &p.rules[i], *next = i + 1 < p.n ? r + 1 : NULL;

        if ((!domains && !(domains = json_array())) ||
            json_array_append_new(domains, json_string(r->name)) < 0) {
            rc = BROCK_ENOMEM;
        } else if (!next || r->exact || next->exact || next->depth != r->depth ||
                   next->effect != r->effect || next->context != r->context) {
            /* The last name of a group of rules alike (a rule for a name alone is a group of
             * its own): the group's rules go out. */
            rc = dnr_group(out, &first, &id, r, domains);
            json_decref(domains);
            domains = NULL;
        }
    }
    json_decref(domains);
    if (rc == 0)
        rc = dnr_site_rules(out, &first, &id, &p);
    if (rc == 0)
        rc = close_array(out, first);
    brock__plan_cleanup(&p);
    return rc;
}

/* ---- WebKit content blocker ---- */

/* The trigger of name and every name below it, from other sites' pages: WebKit's url-filter
 * is a regular expression over the whole URL, in its own small dialect (no "|", no "{}"). */
static json_t *safari_trigger(const char *name, int exact)
{
    char filter[BROCK_HOST_MAX * 2 + 64];
    size_t n = 0;

    n += (size_t)snprintf(filter, sizeof(filter), "%s",
                          exact ? "^[^:]+://+" : "^[^:]+://+([^:/]+\\.)?");
    for (const char *c = name; *c && n + 8 < sizeof(filter); c++) {
        if (*c == '.')
            filter[n++] = '\\';
        filter[n++] = *c;
    }
    snprintf(filter + n, sizeof(filter) - n, "[:/]");
    return json_pack("{s:s, s:[s]}", "url-filter", filter, "load-type", "third-party");
}

static int safari_rule(struct buf *out, int *first, const struct brock__rule *r, const char *type)
{
    return append_rule(out,
                       json_pack("{s:o, s:{s:s}}", "trigger", safari_trigger(r->name, r->exact),
                                 "action", "type", type),
                       first);
}

/* A choice for one site: the same triggers, only on pages of the site and its subdomains
 * ("*site" in if-domain), after every rule of the list so that it has the last word; a
 * public suffix's own choice for that name alone. */
static int safari_site_rule(struct buf *out, int *first, const struct brock__site_rule *r,
                            const char *type)
{
    char domain[BROCK_HOST_MAX + 1];
    json_t *trigger = safari_trigger(r->name, r->exact);

    snprintf(domain, sizeof(domain), "*%s", r->site);
    if (trigger && json_object_set_new(trigger, "if-domain", json_pack("[s]", domain)) < 0) {
        json_decref(trigger);
        trigger = NULL;
    }
    return append_rule(out, json_pack("{s:o, s:{s:s}}", "trigger", trigger, "action", "type", type),
                       first);
}

/* Rules apply in order, and "ignore-previous-rules" undoes those before it that match, so a
 * name below a block is let through first, then loses its cookies if cookieblocked. */
int brock__export_safari(struct brock_engine *e, unsigned flags, struct buf *out)
{
    struct brock__plan p;
    int rc = brock__plan_build(e, flags, BROCK__PLAN_STRIP, &p);
    int first = 1;

    if (rc == 0 && buf_puts(out, "[") < 0)
        rc = BROCK_ENOMEM;
    for (size_t i = 0; i < p.n && rc == 0; i++) {
        const struct brock__rule *r = &p.rules[i];

        if (r->context != BROCK_PASS)
            rc = safari_rule(out, &first, r, "ignore-previous-rules");
        if (rc == 0 && r->effect != BROCK_PASS)
            rc = safari_rule(out, &first, r, r->effect == BROCK_DENY ? "block" : "block-cookies");
    }
    for (size_t i = 0; i < p.n_site_rules && rc == 0; i++) {
        const struct brock__site_rule *r = &p.site_rules[i];

        rc = safari_site_rule(out, &first, r, "ignore-previous-rules");
        if (rc == 0 && r->effect != BROCK_PASS)
            rc = safari_site_rule(out, &first, r,
                                  r->effect == BROCK_DENY ? "block" : "block-cookies");
    }
    if (rc == 0)
        rc = close_array(out, first);
    brock__plan_cleanup(&p);
    return rc;
}
