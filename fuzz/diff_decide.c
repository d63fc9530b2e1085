/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A differential target: decisions with every fast path (kept answers, the base cache, the
 * settings read once, a URL's host seen as written) against the same decisions made the
 * plain way (the engine's plain switch), on one engine whose state the input changes between
 * them: user choices, choices for one site, learning, disabled sites, widget allowances,
 * settings, DNT records, a new configuration, a pause and a site's time off (begun, and ended
 * by the clock or by hand), CNAME chains from DNS and names uncloaking stops at. The input is a program: each op a byte, then bytes picking names
 * from diff_data.h's (or 0xff, a length and a name of the input's own). Each decision is made
 * twice with the fast paths (the second from the kept answer) and once plainly; any
 * difference in what they return, decide or explain aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brock.h"
#include "engine/engine.h"
#include "diff_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct prog {
    const uint8_t *p, *end;
    char own[4][BROCK_HOST_MAX]; /* the input's own names, in turn */
    unsigned next_own;
};

static uint8_t take(struct prog *g)
{
    return g->p < g->end ? *g->p++ : 0;
}

static const char *name(struct prog *g)
{
    uint8_t b = take(g);
    char *own;
    size_t len;

    if (b != 0xff)
        return fuzz_names[b % FUZZ_NAMES];
    own = g->own[g->next_own++ % 4];
    len = take(g) % (BROCK_HOST_MAX - 1);
    if (len > (size_t)(g->end - g->p))
        len = (size_t)(g->end - g->p);
    memcpy(own, g->p, len);
    own[len] = '\0';
    g->p += len;
    return own;
}

static void ignore(int rc)
{
    (void)rc;
}

static void same(struct brock_engine *e, const struct brock_decision *a,
                 const struct brock_decision *b)
{
    char ea[1024], eb[1024];

    if (strcmp(a->host, b->host) || strcmp(a->tracker, b->tracker) || strcmp(a->base, b->base) ||
        strcmp(a->site, b->site) || strcmp(a->source, b->source) ||
        a->third_party != b->third_party || a->reason != b->reason || a->action != b->action ||
        a->effect != b->effect || a->site_fix != b->site_fix || a->site_choice != b->site_choice ||
        a->via_dns != b->via_dns || a->surrogate != b->surrogate ||
        a->surrogate_len != b->surrogate_len || strcmp(a->surrogate_token, b->surrogate_token) ||
        a->type != b->type)
        abort();
    brock_decision_explain(e, a, ea, sizeof(ea));
    brock_decision_explain(e, b, eb, sizeof(eb));
    if (strcmp(ea, eb) != 0)
        abort();
}

/* r decided twice with the fast paths and once plainly. */
static void decide_request(struct brock_engine *e, const struct brock_request *r)
{
    struct brock_decision fast, kept, plain;
    int rc = brock_decide_request(e, r, &fast);

    if (brock_decide_request(e, r, &kept) != rc)
        abort();
    e->plain = 1;
    if (brock_decide_request(e, r, &plain) != rc)
        abort();
    e->plain = 0;
    if (rc == 0) {
        same(e, &fast, &plain);
        same(e, &kept, &plain);
    }
}

static void decide(struct brock_engine *e, struct prog *g)
{
    static const char *const paths[] = {"/", "/analytics.js", "/px.gif?uid=1", ":8080/x",
                                        "/libs/fp.js"};
    static const char *const allow[] = {"*.videocdn.example", "video.example"};
    struct brock_decision fast, kept, plain;
    const char *host = name(g), *site = name(g);
    uint8_t how = take(g);
    struct brock_request r = {.site = how & 1 ? site : NULL,
                              .type = (enum brock_resource_type)(take(g) % BROCK_RESOURCE_COUNT)};
    char url[BROCK_HOST_MAX + 64];
    int rc = brock_decide(e, host, site, &fast);

    if (brock_decide(e, host, site, &kept) != rc)
        abort();
    e->plain = 1;
    if (brock_decide(e, host, site, &plain) != rc)
        abort();
    e->plain = 0;
    if (rc == 0) {
        same(e, &fast, &plain);
        same(e, &kept, &plain);
    }
    snprintf(url, sizeof(url), "%s://%s%s%s%s", how & 2 ? "https" : "HTTP",
             strchr(host, ':') && *host != '[' ? "[" : "", host,
             strchr(host, ':') && *host != '[' ? "]" : "", paths[(how >> 2) % 5]);
    r.url = url;
    if (how & 0x20) {
        r.widget_allow = allow;
        r.n_widget_allow = 1 + (how >> 6) % 2;
    }
    decide_request(e, &r);
    r.url = NULL;
    r.host = host;
    decide_request(e, &r);
}

static void observe(struct brock_engine *e, struct prog *g)
{
    struct brock_header h = {"Cookie", 6, "uid=8f3a9b2c7d1e4f60a5b3", 24};
    struct brock_observation o = {
        .host = name(g), .site = name(g), .headers = &h, .n_headers = 1, .time_ms = 1700000000000};

    ignore(brock_observe(e, &o, NULL));
}

static enum brock_action user_action(struct prog *g)
{
    static const enum brock_action a[] = {BROCK_NOACTION, BROCK_USER_ALLOW, BROCK_USER_BLOCK,
                                          BROCK_USER_COOKIEBLOCK};

    return a[take(g) % 4];
}

static void update(struct brock_engine *e, struct prog *g)
{
    static const char *const configs[] = {
        "{\"dnt_policy_hashes\": {}, \"sitefixes\": {}, \"yellowlist\": [\"tracker.example\"]}",
        "{\"dnt_policy_hashes\": {}, \"sitefixes\": {\"ignore\": {\"px.tracker.example\":"
        " [\"bbc.co.uk\"]}, \"yellowlist\": {\"yellow.example\": [\"1.2.3.4\"]}},"
        " \"yellowlist\": [\"yellow.example\", \"shop.example.eulerian.net\"]}",
    };
    const char *c = configs[take(g) % 2];

    ignore(brock_update_apply(e, "pbconfig.json", c, strlen(c), 1700000000000, NULL));
}

/* Ends in the future of any run (2096), seconds apart: a pause or a site's time off the
 * program starts is in force until the program's own brock_expire() passes it. */
#define FUZZ_LATER INT64_C(4000000000000)

/* brock off for a while: a pause (with an end or without), a resume, a site disabled until a
 * time, or the clock moved past some of those ends. */
static void off_for_a_while(struct brock_engine *e, struct prog *g)
{
    uint8_t b = take(g);
    int64_t at = FUZZ_LATER + (int64_t)(b >> 2) * 1000;

    switch (b & 3) {
    case 0: ignore(brock_pause(e, b & 0x80 ? BROCK_NO_END : at)); break;
    case 1: ignore(brock_resume(e)); break;
    case 2: ignore(brock_site_disable_until(e, name(g), at)); break;
    case 3: ignore(brock_expire(e, at, NULL, NULL)); break;
    }
}

/* A host's CNAME chain from DNS (up to three names, none: forgotten), or a name uncloaking
 * stops at, or no longer. */
static void cname(struct brock_engine *e, struct prog *g)
{
    const char *host = name(g), *names[3];
    uint8_t b = take(g);

    if (b & 0x80) {
        ignore(brock_cname_target_set(e, name(g), b & 1));
        return;
    }
    for (unsigned i = 0; i < b % 4; i++)
        names[i] = name(g);
    ignore(brock_cname_chain_set(e, host, names, b % 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct brock_engine *e = fuzz_engine_lists();
    struct prog g = {.p = data, .end = data + size};

    for (unsigned ops = 0; g.p < g.end && ops < 64; ops++) {
        switch (take(&g) % 12) {
        case 11: cname(e, &g); break;
        case 10: off_for_a_while(e, &g); break;
        case 0:
        case 1:
        case 2: decide(e, &g); break;
        case 3: observe(e, &g); break;
        case 4: {
            const char *d = name(&g);
            ignore(brock_set_user_action(e, d, user_action(&g)));
            break;
        }
        case 5: {
            const char *s = name(&g), *d = name(&g);
            ignore(brock_set_site_action(e, s, d, user_action(&g)));
            break;
        }
        case 6: {
            const char *s = name(&g);
            ignore(brock_site_set_disabled(e, s, take(&g) & 1));
            break;
        }
        case 7: {
            const char *s = name(&g);
            ignore(brock_widget_site_allow(e, s, "Example Video", take(&g) & 1));
            break;
        }
        case 8: {
            uint8_t b = take(&g);
            ignore(brock_setting_set(e, (enum brock_setting)(b % BROCK_SETTING_COUNT), b >> 7));
            break;
        }
        case 9: {
            const char *d = name(&g);
            if (take(&g) & 1)
                update(e, &g);
            else
                ignore(brock_dnt_record(e, d, 1));
            break;
        }
        }
    }
    brock_engine_free(e);
    return 0;
}
