/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock list`: the domains with an action, and the sites each was seen tracking on, as
 * aligned columns for people or as JSON with the evidence for programs; with --site, the
 * third parties a site's pages requested, as the dashboard's page of that site shows them.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"

/* A tracker's comma-joined sites stop growing here; the seed keeps at most three. */
#define LIST_SITES_MAX ((size_t)1 << 20)

static const char list_help[] =
    "Prints the domains whose action is not noaction, in Privacy Badger's order, with the\n"
    "action and the sites each was seen tracking on.\n"
    "Your choices for one site only (brock set DOMAIN ACTION --site SITE) are shown in a\n"
    "column SITE CHOICES (SITE=ACTION, comma-separated), and a domain with only those is\n"
    "listed too, with the action it has everywhere else. An empty list is its header alone.\n"
    "\nOptions:\n"
    "  --json           print a JSON array of objects: domain, action, base, sites, dnt,\n"
    "                   cookieblock_listed, evidence and site_actions (site: action)\n"
    "  --site SITE      only the third-party domains that pages of SITE (a host or base\n"
    "                   domain) requested through brock lately, as the dashboard's page\n"
    "                   of SITE lists them (page views are kept page_view_days days;\n"
    "                   brock learn records none), and the choices for that site only;\n"
    "                   SITES still says where each was seen tracking\n"
    "  --action LIST    only domains with these actions, comma-separated: block,\n"
    "                   cookieblock, allow (each with your choice of it too: user_block,\n"
    "                   ...), dnt, noaction (implies --all), or one of Privacy Badger's\n"
    "                   names alone (user_block: your choices only)\n"
    "  --learned-only   leave out domains known only from the seed or an import (your own\n"
    "                   choices stay), as brock export --learned-only does\n"
    "  --count          print only how many domains the list has\n"
    "  --params         list instead the URL parameters seen carrying a site's cookie\n"
    "                   into a link to another site (link decoration): NAME, STATE\n"
    "                   (learned: taken out of links, seen: on fewer than 3 sites, kept:\n"
    "                   yours, never taken out) and SITES; with --json as the dashboard's\n"
    "                   /api/params. brock forget --param NAME undoes one\n"
    "  --all            include domains whose action is noaction\n"
    "  -h, --help       print this help\n";

struct list_row {
    char *domain;
    const char *action; /* static */
    char *sites;
    char *choices; /* "site=action,...", or "" */
};

struct list_ctx {
    json_t *json; /* --json: the array being built */
    struct list_row *rows;
    size_t n, cap;
    unsigned actions; /* --action: a bit per enum brock_action; 0: all */
    int learned_only;
    int all;                           /* --all, or noaction in --action: noaction is listed too */
    int count;                         /* --count: only counted, in n */
    int params;                        /* --params: the parameter names instead */
    struct brock_site_action *choices; /* the choices for one site only, by site and domain */
    size_t n_choices;
    unsigned char *listed; /* per choice: its domain has a row */
};

/* --action's words: each of brock's colours takes your choice of it along. */
static const struct {
    const char *word;
    unsigned bits;
} action_words[] = {
    {"block", 1u << BROCK_BLOCK | 1u << BROCK_USER_BLOCK},
    {"cookieblock", 1u << BROCK_COOKIEBLOCK | 1u << BROCK_USER_COOKIEBLOCK},
    {"allow", 1u << BROCK_ALLOW | 1u << BROCK_USER_ALLOW},
    {"dnt", 1u << BROCK_DNT},
    {"noaction", 1u << BROCK_NOACTION},
    {"user_block", 1u << BROCK_USER_BLOCK},
    {"user_cookieblock", 1u << BROCK_USER_COOKIEBLOCK},
    {"user_allow", 1u << BROCK_USER_ALLOW},
};

/* Parses --action's comma-separated words into bits. Returns 0, or -1 with the word. */
static int actions_parse(const char *list, unsigned *bits, char *bad, size_t n)
{
    *bits = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ","), i;

        for (i = 0; i < sizeof(action_words) / sizeof(action_words[0]); i++)
            if (strlen(action_words[i].word) == len && !strncmp(p, action_words[i].word, len))
                break;
        if (i == sizeof(action_words) / sizeof(action_words[0])) {
            snprintf(bad, n, "%.*s", (int)(len < 64 ? len : 64), p);
            return -1;
        }
        *bits |= action_words[i].bits;
        p += len;
        if (!*p)
            return 0;
    }
}

static json_t *evidence_json(const struct brock_evidence *ev)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (json_object_set_new(o, "site", json_string(ev->site ? ev->site : "")) ||
        json_object_set_new(o, "host", json_string(ev->host ? ev->host : "")) ||
        json_object_set_new(o, "kind", json_string(brock_evidence_kind_name(ev->kind))) ||
        json_object_set_new(o, "detail", json_string(ev->detail ? ev->detail : "")) ||
        json_object_set_new(o, "param", json_string(ev->param ? ev->param : "")) ||
        json_object_set_new(o, "time_ms", json_integer((json_int_t)ev->time_ms))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *tracker_json(const struct brock_tracker *t)
{
    json_t *o = json_object(), *sites = json_array(), *ev = json_array();
    int bad = !o || !sites || !ev;

    for (size_t i = 0; !bad && i < t->n_evidence; i++) {
        const struct brock_evidence *x = &t->evidence[i];

        bad = json_array_append_new(sites, json_string(x->site ? x->site : "")) ||
              json_array_append_new(ev, evidence_json(x));
    }
    if (!bad)
        bad = json_object_set_new(o, "domain", json_string(t->domain)) ||
              json_object_set_new(o, "action", json_string(brock_action_name(t->action))) ||
              json_object_set_new(o, "base", json_string(t->base ? t->base : "")) ||
              json_object_set_new(o, "sites", json_incref(sites)) ||
              json_object_set_new(o, "dnt", json_boolean(t->dnt)) ||
              json_object_set_new(o, "cookieblock_listed", json_boolean(t->cookieblock_listed)) ||
              json_object_set_new(o, "evidence", json_incref(ev));
    json_decref(sites);
    json_decref(ev);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* domain's choices for one site only, as "site=action,..." (static words without "user_"),
 * each marked listed. NULL when out of memory. */
static char *choices_text(struct list_ctx *c, const char *domain)
{
    struct buf b;

    buf_init(&b, LIST_SITES_MAX);
    for (size_t i = 0; i < c->n_choices; i++) {
        if (strcmp(c->choices[i].domain, domain) != 0)
            continue;
        c->listed[i] = 1;
        if ((b.len && buf_puts(&b, ",") < 0) || buf_puts(&b, c->choices[i].site) < 0 ||
            buf_puts(&b, "=") < 0 || buf_puts(&b, brock_action_name(c->choices[i].action) + 5) < 0)
            break;
    }
    return buf_detach(&b, NULL);
}

/* The same as a JSON object: site → Privacy Badger's name of the action. */
static json_t *choices_json(struct list_ctx *c, const char *domain)
{
    json_t *o = json_object();

    for (size_t i = 0; o && i < c->n_choices; i++) {
        if (strcmp(c->choices[i].domain, domain) != 0)
            continue;
        c->listed[i] = 1;
        if (json_object_set_new(o, c->choices[i].site,
                                json_string(brock_action_name(c->choices[i].action)))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static int add_row(struct list_ctx *c, const struct brock_tracker *t)
{
    struct list_row *r;
    struct buf b;

    if (mem_grow(&c->rows, &c->cap, c->n + 1, sizeof(*c->rows)) < 0)
        return BROCK_ENOMEM;
    buf_init(&b, LIST_SITES_MAX);
    for (size_t i = 0; i < t->n_evidence; i++) {
        if ((i && buf_puts(&b, ",") < 0) || buf_puts(&b, t->evidence[i].site) < 0)
            break;
    }
    r = &c->rows[c->n];
    r->action = brock_action_name(t->action);
    r->domain = mem_strdup(t->domain);
    r->sites = buf_detach(&b, NULL);
    r->choices = choices_text(c, t->domain);
    if (!r->domain || !r->sites || !r->choices) {
        mem_free(r->domain);
        mem_free(r->sites);
        mem_free(r->choices);
        return BROCK_ENOMEM;
    }
    c->n++;
    return 0;
}

static int on_tracker(void *arg, const struct brock_tracker *t)
{
    struct list_ctx *c = arg;
    json_t *o;

    if (c->actions && !(c->actions & 1u << t->action))
        return 0;
    if (c->learned_only && t->user == BROCK_NOACTION && !brock_tracker_learned(t))
        return 0;
    if (c->count) {
        c->n++;
        return 0;
    }
    if (!c->json)
        return add_row(c, t);
    o = tracker_json(t);
    if (!o || json_object_set_new(o, "site_actions", choices_json(c, t->domain)) ||
        json_array_append_new(c->json, o)) {
        return BROCK_ENOMEM;
    }
    return 0;
}

/* ---- --site: what the site's pages requested ---- */

/* One host the site's pages requested, copied out of brock_site_trackers()'s walk, which
 * lends its strings for the callback only. */
struct site_host {
    char *host;
    char base[BROCK_HOST_MAX];
    enum brock_action action;
    int cookieblock_listed;
};

struct site_hosts {
    struct site_host *v;
    size_t n, cap;
};

static int on_site_host(void *arg, const struct brock_site_tracker *t)
{
    struct site_hosts *h = arg;
    struct site_host *x;

    if (mem_grow(&h->v, &h->cap, h->n + 1, sizeof(*h->v)) < 0)
        return BROCK_ENOMEM;
    x = &h->v[h->n];
    x->host = mem_strdup(t->host);
    if (!x->host)
        return BROCK_ENOMEM;
    snprintf(x->base, sizeof(x->base), "%s", t->base);
    x->action = t->action;
    x->cookieblock_listed = t->cookieblock_listed;
    h->n++;
    return 0;
}

/* A host of the site as brock list shows every domain: noaction only with --all. */
static int on_site_tracker(void *arg, const struct brock_tracker *t)
{
    struct list_ctx *c = arg;

    if (t->action == BROCK_NOACTION && !c->all)
        return 0;
    return on_tracker(c, t);
}

/* The third-party hosts the pages of site requested (the recent page views), in the order
 * and number the dashboard's page of the site lists them, each with what brock_tracker_get()
 * says of it: its action and its base's evidence. A site with no recent page views has none.
 * Returns 0 or a negative BROCK_E*. */
static int list_site(struct brock_engine *e, const char *site, struct list_ctx *c)
{
    struct site_hosts h = {NULL, 0, 0};
    int rc = brock_site_trackers(e, site, on_site_host, &h);

    if (rc == BROCK_ENOTFOUND)
        rc = 0;
    for (size_t i = 0; i < h.n && rc >= 0; i++) {
        struct brock_tracker t;

        rc = brock_tracker_get(e, h.v[i].host, on_site_tracker, c);
        if (rc != BROCK_EINVAL)
            continue;
        /* A name brock_tracker_get() does not take as a domain (an IPv6 address) still
         * has its row, as on the dashboard: what the page views say of it. */
        memset(&t, 0, sizeof(t));
        t.domain = h.v[i].host;
        t.base = h.v[i].base;
        t.action = h.v[i].action;
        t.dnt = t.action == BROCK_DNT;
        t.cookieblock_listed = h.v[i].cookieblock_listed;
        rc = on_site_tracker(c, &t);
    }
    for (size_t i = 0; i < h.n; i++)
        mem_free(h.v[i].host);
    mem_free(h.v);
    return rc;
}

/* A row for each domain with choices for one site only that no tracker row named: the
 * action it has everywhere else, no sites. */
static int add_chosen(struct list_ctx *c, struct brock_engine *e)
{
    for (size_t i = 0; i < c->n_choices; i++) {
        struct brock_tracker t;
        struct brock_decision d;
        char base[BROCK_HOST_MAX] = "";

        if (c->listed[i])
            continue;
        memset(&t, 0, sizeof(t));
        t.domain = c->choices[i].domain;
        t.action = brock_decide(e, t.domain, NULL, &d) == 0 ? d.action : BROCK_NOACTION;
        if (brock_base_domain(t.domain, base) >= 0)
            t.base = base;
        if (on_tracker(c, &t) < 0)
            return BROCK_ENOMEM;
    }
    return 0;
}

static void print_rows(const struct list_ctx *c)
{
    int wd = (int)strlen("DOMAIN"), wa = (int)strlen("ACTION"), wc = (int)strlen("SITE CHOICES");

    /* The header stands alone over an empty list: it says that there is none. */
    for (size_t i = 0; i < c->n; i++) {
        int d = (int)strlen(c->rows[i].domain), a = (int)strlen(c->rows[i].action);
        int ch = (int)strlen(c->rows[i].choices);

        wd = d > wd ? d : wd;
        wa = a > wa ? a : wa;
        wc = ch > wc ? ch : wc;
    }
    /* The column of choices for one site only is there when there are some. */
    if (c->n_choices) {
        printf("%-*s  %-*s  %-*s  %s\n", wd, "DOMAIN", wa, "ACTION", wc, "SITE CHOICES", "SITES");
        for (size_t i = 0; i < c->n; i++)
            printf("%-*s  %-*s  %-*s  %s\n", wd, c->rows[i].domain, wa, c->rows[i].action, wc,
                   *c->rows[i].choices ? c->rows[i].choices : "-",
                   *c->rows[i].sites ? c->rows[i].sites : "-");
        return;
    }
    printf("%-*s  %-*s  %s\n", wd, "DOMAIN", wa, "ACTION", "SITES");
    for (size_t i = 0; i < c->n; i++)
        printf("%-*s  %-*s  %s\n", wd, c->rows[i].domain, wa, c->rows[i].action,
               *c->rows[i].sites ? c->rows[i].sites : "-");
}

/* list's options into ctx, *json and *site_arg, the site normalised into site (BROCK_HOST_MAX
 * bytes). *done is 0 when the command is to go on (CLI_OK); else it is set, and the command's
 * result (after a message, or after --help) is returned. */
static int list_options(const struct cmd_entry *self, int argc, char **argv, struct list_ctx *ctx,
                        int *json, const char **site_arg, char *site, int *done)
{
    enum { OPT_JSON = 256, OPT_SITE, OPT_ALL, OPT_ACTION, OPT_LEARNED, OPT_COUNT, OPT_PARAMS };
    static const struct option opts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"site", required_argument, NULL, OPT_SITE},
        {"all", no_argument, NULL, OPT_ALL},
        {"action", required_argument, NULL, OPT_ACTION},
        {"learned-only", no_argument, NULL, OPT_LEARNED},
        {"count", no_argument, NULL, OPT_COUNT},
        {"params", no_argument, NULL, OPT_PARAMS},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    char bad[80];
    int c;

    *done = 1; /* until the options say to go on */
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_JSON: *json = 1; break;
        case OPT_SITE: *site_arg = optarg; break;
        case OPT_ALL: ctx->all = 1; break;
        case OPT_ACTION:
            if (actions_parse(optarg, &ctx->actions, bad, sizeof(bad)) < 0)
                return cli_usage(self,
                                 "--action: '%s' is not one of block, cookieblock, allow, "
                                 "dnt, noaction, user_block, user_cookieblock, user_allow",
                                 bad);
            break;
        case OPT_LEARNED: ctx->learned_only = 1; break;
        case OPT_COUNT: ctx->count = 1; break;
        case OPT_PARAMS: ctx->params = 1; break;
        default: return cli_getopt_other(self, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage(self, "'%s': list takes no arguments", argv[optind]);
    if (*site_arg && brock_host_normalize(*site_arg, strlen(*site_arg), site) < 0)
        return cli_error(self, "--site '%s' is not a domain name", *site_arg);
    if (ctx->count && *json)
        return cli_usage(self, "--count and --json do not go together");
    if (ctx->params && (ctx->count || *site_arg || ctx->actions || ctx->learned_only || ctx->all))
        return cli_usage(self, "--params takes --json alone");
    if (ctx->actions & 1u << BROCK_NOACTION)
        ctx->all = 1;
    *done = 0;
    return CLI_OK;
}

/* The rows of the list into ctx: site's trackers (NULL: every tracker), then the domains
 * chosen on sites that no row named. Returns 0 or a negative BROCK_E*. */
static int list_rows(struct brock_engine *e, const char *site, struct list_ctx *ctx)
{
    int err = brock_site_actions(e, site, &ctx->choices, &ctx->n_choices);

    if (err >= 0 && !(ctx->listed = mem_calloc(ctx->n_choices, 1)))
        err = BROCK_ENOMEM;
    if (err >= 0)
        err =
            site ? list_site(e, site, ctx)
                 : brock_trackers_each(e, NULL, ctx->all ? BROCK_TRACKERS_ALL : 0, on_tracker, ctx);
    /* Filtered by action or learning, a list leaves the domains chosen on sites alone. */
    if (err >= 0 && !ctx->actions && !ctx->learned_only)
        err = add_chosen(ctx, e);
    return err;
}

static void list_ctx_cleanup(struct list_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n && ctx->rows; i++) {
        mem_free(ctx->rows[i].domain);
        mem_free(ctx->rows[i].sites);
        mem_free(ctx->rows[i].choices);
    }
    mem_free(ctx->rows);
    brock_free(ctx->choices);
    mem_free(ctx->listed);
    json_decref(ctx->json);
}

static int on_param_line(void *arg, const struct brock_link_param *p)
{
    (void)arg;
    printf("%-24s  %-7s  ", p->name, p->kept ? "kept" : p->learned ? "learned" : "seen");
    for (size_t i = 0; i < p->n_sites; i++)
        printf("%s%s", i ? ", " : "", p->sites[i]);
    printf("%s\n", p->n_sites ? "" : "-");
    return 0;
}

/* --params: the parameter names noted as link decoration. */
static int list_params(struct cli *cli, const struct cmd_entry *self, int json)
{
    struct brock_engine *e = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc = cli_open(cli, self, &e);

    if (rc != CLI_OK)
        return rc;
    if (json) {
        if (brock_link_params_json(e, &text, &len) < 0)
            rc = cli_error(self, "%s", brock_engine_errmsg(e));
        else
            printf("%s\n", text);
        brock_free(text);
    } else {
        printf("%-24s  %-7s  %s\n", "NAME", "STATE", "SITES");
        if (brock_link_params_each(e, on_param_line, NULL) < 0)
            rc = cli_error(self, "out of memory");
    }
    return cli_close(self, e, rc);
}

static int cmd_list_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    char site[BROCK_HOST_MAX];
    const char *site_arg = NULL;
    struct brock_engine *e = NULL;
    struct list_ctx ctx;
    int rc, json = 0, err, done;

    memset(&ctx, 0, sizeof(ctx));
    rc = list_options(self, argc, argv, &ctx, &json, &site_arg, site, &done);
    if (rc != CLI_OK || done)
        return rc;
    if (ctx.params)
        return list_params(cli, self, json);
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if (json && !(ctx.json = json_array())) {
        rc = cli_error(self, "out of memory");
        goto out;
    }
    err = list_rows(e, site_arg ? site : NULL, &ctx);
    if (err < 0) {
        rc = cli_error(self, "cannot list the trackers: %s", brock_strerror(err));
        goto out;
    }
    if (ctx.count)
        printf("%zu\n", ctx.n);
    else if (!json)
        print_rows(&ctx);
    else if (json_dumpf(ctx.json, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF)
        rc = cli_error(self, "cannot write to standard output");
out:
    list_ctx_cleanup(&ctx);
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_list_entry = {
    .name = "list",
    .usage = "[--json | --count] [--site SITE] [--action LIST] [--learned-only] [--all] | "
             "--params [--json]",
    .summary = "List trackers, their action, and the sites they were seen tracking on",
    .help = list_help,
    .exec = cmd_list_exec,
    .read_only = 1,
};
