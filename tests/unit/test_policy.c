/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Action resolution (section 5), decisions, disabled sites and the user's choices. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"

static void set(struct brock_engine *e, const char *d, int heur, int user, int dnt)
{
    struct action_entry *a = brock__action_ensure(e, d);

    assert_non_null(a);
    a->heur = (uint8_t)heur;
    a->user = (uint8_t)user;
    a->dnt = (uint8_t)dnt;
}

static enum brock_action best(struct brock_engine *e, const char *d)
{
    return brock__best_action(e, d, NULL);
}

#define ROWS(a) (a), sizeof(a) / sizeof((a)[0])

/* An action map entry as learning, DNT or the user leave it. */
struct entry {
    const char *domain;
    int heur, user, dnt;
};

/* The best action a name must get. */
struct best_is {
    const char *domain;
    enum brock_action want;
};

/* Entries set, then the best actions they give. A table's rows go in order on one engine, so
 * that a row sees the entries of the rows before it. */
struct resolve_row {
    struct entry set[2];    /* the rest NULL */
    struct best_is best[2]; /* the rest NULL */
};

static void resolve_rows(struct brock_engine *e, const struct resolve_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (const struct entry *s = rows[i].set; s < rows[i].set + 2 && s->domain; s++)
            set(e, s->domain, s->heur, s->user, s->dnt);
        for (const struct best_is *b = rows[i].best; b < rows[i].best + 2 && b->domain; b++) {
            enum brock_action got = best(e, b->domain);

            if (got != b->want)
                fail_msg("row %zu: %s gets %s, not %s", i, b->domain, brock_action_name(got),
                         brock_action_name(b->want));
        }
    }
}

/* Runs rows on an engine of their own. */
static void resolve_alone(const struct resolve_row *rows, size_t n)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    resolve_rows(e, rows, n);
    brock_engine_free(e);
}

/* A blocked base reaches its names; a blocked name does not reach the names above it. */
static const struct resolve_row cascade_down[] = {
    {{{"example.com", BROCK_BLOCK, 0, 0}},
     {{"cdn.widgets.example.com", BROCK_BLOCK}, {"example.com", BROCK_BLOCK}}},
};

static const struct resolve_row not_up[] = {
    {{{"cdn.widgets.example.com", BROCK_BLOCK, 0, 0}},
     {{"example.com", BROCK_NOACTION}, {"widgets.example.com", BROCK_NOACTION}}},
};

static void test_base_block_cascades_down_not_up(void **state)
{
    (void)state;
    resolve_alone(ROWS(cascade_down));
    resolve_alone(ROWS(not_up));
}

static const struct resolve_row score_rows[] = {
    /* base block + child allow -> block */
    {{{"a.com", BROCK_BLOCK, 0, 0}, {"x.a.com", BROCK_ALLOW, 0, 0}}, {{"x.a.com", BROCK_BLOCK}}},
    /* base cookieblock + child block -> cookieblock */
    {{{"b.com", BROCK_COOKIEBLOCK, 0, 0}, {"x.b.com", BROCK_BLOCK, 0, 0}},
     {{"x.b.com", BROCK_COOKIEBLOCK}}},
    /* base block + child cookieblock -> cookieblock */
    {{{"c.com", BROCK_BLOCK, 0, 0}, {"x.c.com", BROCK_COOKIEBLOCK, 0, 0}},
     {{"x.c.com", BROCK_COOKIEBLOCK}, {"y.c.com", BROCK_BLOCK}}},
};

/* Each action's score. */
static const struct {
    enum brock_action action;
    int score;
} scores[] = {
    {BROCK_NOACTION, 0},
    {BROCK_ALLOW, 1},
    {BROCK_BLOCK, 2},
    {BROCK_COOKIEBLOCK, 3},
    {BROCK_DNT, 4},
    {BROCK_USER_ALLOW, 5},
    {BROCK_USER_BLOCK, 5},
    {BROCK_USER_COOKIEBLOCK, 5},
    {BROCK__HEUR_UNKNOWN, -1},
};

static void test_scores_and_ties(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    const struct action_entry *src;

    (void)state;
    resolve_rows(e, ROWS(score_rows));
    /* ties go to the more specific name: the source is the child */
    set(e, "d.com", BROCK_BLOCK, 0, 0);
    set(e, "x.d.com", BROCK_BLOCK, 0, 0);
    assert_int_equal(brock__best_action(e, "x.d.com", &src), BROCK_BLOCK);
    assert_string_equal(src->domain, "x.d.com");
    for (size_t i = 0; i < sizeof(scores) / sizeof(scores[0]); i++) {
        if (brock__score(scores[i].action) != scores[i].score)
            fail_msg("row %zu: %s scores %d, not %d", i, brock_action_name(scores[i].action),
                     brock__score(scores[i].action), scores[i].score);
    }
    brock_engine_free(e);
}

static const struct resolve_row dnt_rows[] = {
    {{{"dnt.com", BROCK_NOACTION, 0, 1}},
     {{"dnt.com", BROCK_DNT}, {"sub.dnt.com", BROCK_NOACTION}}},
    {{{"blocked.com", BROCK_BLOCK, 0, 1}},
     {{"sub.blocked.com", BROCK_BLOCK}, {"blocked.com", BROCK_DNT}}},
    /* a DNT flag on a subdomain beats a blocked base */
    {{{"t.com", BROCK_BLOCK, 0, 0}, {"ok.t.com", BROCK_NOACTION, 0, 1}}, {{"ok.t.com", BROCK_DNT}}},
};

/* checking turned off: flags kept but ignored */
static const struct resolve_row dnt_off_rows[] = {
    {.best = {{"ok.t.com", BROCK_BLOCK}, {"dnt.com", BROCK_NOACTION}}},
};

static void test_dnt_exact_only(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    (void)state;
    resolve_rows(e, ROWS(dnt_rows));
    assert_int_equal(json_object_set_new(e->settings, "checkForDNTPolicy", json_false()), 0);
    brock__settings_changed(e);
    resolve_rows(e, ROWS(dnt_off_rows));
    assert_int_equal(brock__action_get(e, "dnt.com")->dnt, 1);
    brock_engine_free(e);
}

static const struct resolve_row user_rows[] = {
    {{{"u.com", BROCK_COOKIEBLOCK, BROCK_USER_BLOCK, 0},
      {"x.u.com", BROCK_NOACTION, BROCK_USER_ALLOW, 1}},
     {{"x.u.com", BROCK_USER_ALLOW}, {"y.u.com", BROCK_USER_BLOCK}}},
    {{{"v.com", BROCK_NOACTION, BROCK_USER_ALLOW, 0}, {"x.v.com", BROCK_NOACTION, 0, 1}},
     {{"x.v.com", BROCK_USER_ALLOW}}},
};

static void test_user_actions_win(void **state)
{
    (void)state;
    resolve_alone(ROWS(user_rows));
}

static const struct resolve_row unknown_rows[] = {
    {{{"foo.com", BROCK__HEUR_UNKNOWN, 0, 0}}, {{"foo.com", BROCK_NOACTION}}},
    {{{"x.foo.com", BROCK_ALLOW, 0, 0}}, {{"x.foo.com", BROCK_ALLOW}}},
    /* googleapis.com is a public suffix: ajax.googleapis.com is its own base */
    {{{"googleapis.com", BROCK_BLOCK, 0, 0}}, {{"ajax.googleapis.com", BROCK_NOACTION}}},
};

static void test_unknown_ignored_and_walk_stops_at_base(void **state)
{
    (void)state;
    assert_int_equal(brock__heur_parse("foo"), -1);
    resolve_alone(ROWS(unknown_rows));
}

/* A field of a decision not looked at. */
#define ANY (-1)

/* A decision for host on site: what brock_decide() returns, and the fields it gives. */
struct decide_row {
    const char *host, *site;
    int rc, third_party, reason, effect;
};

static const struct decide_row decide_rows[] = {
    {"a.cookies.org", "site.example", 0, ANY, ANY, BROCK_STRIP_COOKIES},
    /* first party: same base */
    {"cdn.tracker.net", "www.tracker.net", 0, 0, BROCK_WHY_FIRST_PARTY, BROCK_PASS},
    /* unknown page: judged third party, still blocked */
    {"tracker.net", NULL, 0, 1, ANY, BROCK_DENY},
    /* private hosts are never acted on (10.1.2.3 is blocked) */
    {"10.1.2.3", "site.example", 0, ANY, BROCK_WHY_PRIVATE, BROCK_PASS},
    {"localhost", "site.example", 0, ANY, BROCK_WHY_PRIVATE, ANY},
    /* a bad host */
    {"bad host", "site.example", BROCK_EINVAL, ANY, ANY, BROCK_PASS},
};

static void decide_each(struct brock_engine *e, const struct decide_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct decide_row *r = &rows[i];
        struct brock_decision d;
        int rc = brock_decide(e, r->host, r->site, &d);

        if (rc != r->rc || (r->third_party != ANY && d.third_party != r->third_party) ||
            (r->reason != ANY && (int)d.reason != r->reason) ||
            (r->effect != ANY && (int)d.effect != r->effect))
            fail_msg("row %zu (%s on %s): %d, third party %d, reason %d, effect %s", i, r->host,
                     r->site ? r->site : "(none)", rc, d.third_party, (int)d.reason,
                     brock_effect_name(d.effect));
    }
}

static void test_decide(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_decision d;
    char why[512];

    (void)state;
    set(e, "tracker.net", BROCK_BLOCK, 0, 0);
    set(e, "cookies.org", BROCK_COOKIEBLOCK, 0, 0);
    assert_int_equal(brock_decide(e, "PIXEL.Tracker.NET.", "www.news.example", &d), 0);
    assert_string_equal(d.host, "pixel.tracker.net");
    assert_string_equal(d.base, "tracker.net");
    assert_string_equal(d.site, "news.example");
    assert_int_equal(d.third_party, 1);
    assert_int_equal(d.reason, BROCK_WHY_ACTION);
    assert_int_equal(d.action, BROCK_BLOCK);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_string_equal(d.source, "tracker.net");
    assert_true(brock_decision_explain(e, &d, why, sizeof(why)) > 0);
    assert_non_null(strstr(why, "blocked"));
    set(e, "10.1.2.3", BROCK_BLOCK, 0, 0);
    decide_each(e, ROWS(decide_rows));
    brock_engine_free(e);
}

/* The disabledSites list ["example.com", "*.other.org", "*third.net"]: whether a site is on
 * it. */
static const struct {
    const char *site;
    int disabled;
} disabled_rows[] = {
    {"example.com", 1}, {"www.example.com", 1}, {"domainthatendswithexample.com", 0},
    {"other.org", 1},   {"a.b.other.org", 1},   {"third.net", 1},
    {"xthird.net", 0},
};

static void test_disabled_sites(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_decision d;
    json_t *list = json_pack("[s, s, s]", "example.com", "*.other.org", "*third.net");

    (void)state;
    assert_int_equal(json_object_set_new(e->settings, "disabledSites", list), 0);
    for (size_t i = 0; i < sizeof(disabled_rows) / sizeof(disabled_rows[0]); i++) {
        if (!brock__site_disabled(e, disabled_rows[i].site) != !disabled_rows[i].disabled)
            fail_msg("row %zu: %s is %s", i, disabled_rows[i].site,
                     disabled_rows[i].disabled ? "not disabled" : "disabled");
    }
    set(e, "tracker.net", BROCK_BLOCK, 0, 0);
    assert_int_equal(brock_decide(e, "tracker.net", "www.example.com", &d), 0);
    assert_int_equal(d.reason, BROCK_WHY_DISABLED);
    assert_int_equal(d.effect, BROCK_PASS);
    brock_engine_free(e);
}

static void test_set_and_revert(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    (void)state;
    assert_int_equal(brock_set_user_action(e, "Ads.Example.COM", BROCK_USER_BLOCK), 0);
    assert_int_equal(best(e, "ads.example.com"), BROCK_USER_BLOCK);
    /* revert of an entry with nothing else: it goes away */
    assert_int_equal(brock_set_user_action(e, "ads.example.com", BROCK_NOACTION), 0);
    assert_null(brock__action_get(e, "ads.example.com"));
    /* revert keeps what was learned */
    set(e, "learned.com", BROCK_BLOCK, 0, 0);
    assert_int_equal(brock_set_user_action(e, "learned.com", BROCK_USER_ALLOW), 0);
    assert_int_equal(best(e, "learned.com"), BROCK_USER_ALLOW);
    assert_int_equal(brock_set_user_action(e, "learned.com", BROCK_NOACTION), 0);
    assert_int_equal(best(e, "learned.com"), BROCK_BLOCK);
    /* bad input changes nothing */
    assert_int_equal(brock_set_user_action(e, "not a domain", BROCK_USER_BLOCK), BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "not a domain"));
    assert_int_equal(brock_set_user_action(e, "ok.com", BROCK_BLOCK), BROCK_EINVAL);
    assert_null(brock__action_get(e, "ok.com"));
    brock_engine_free(e);
}

static int collect_site(void *arg, const char *site)
{
    char *all = arg;

    strcat(all, site);
    strcat(all, " ");
    return 0;
}

static void test_settings(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    char all[256] = "";

    (void)state;
    assert_true(brock_setting(e, BROCK_SETTING_LEARN));
    assert_true(brock_setting(e, BROCK_SETTING_SEND_DNT));
    assert_true(brock_setting(e, BROCK_SETTING_CHECK_DNT));
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_LEARN, 0), 0);
    assert_false(brock_engine_learning(e));
    assert_true(e->settings_dirty);
    assert_true(brock_send_signals(e, "news.example"));
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_SEND_DNT, 0), 0);
    assert_false(brock_send_signals(e, "news.example"));
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_SEND_DNT, 1), 0);

    assert_int_equal(brock_site_set_disabled(e, "*.Bank.example", 1), 0);
    assert_int_equal(brock_site_set_disabled(e, "https://shop.example/cart", 1), 0);
    assert_int_equal(brock_site_set_disabled(e, "bank.example", 1), 0); /* once only */
    assert_int_equal(brock_disabled_sites_each(e, collect_site, all), 0);
    assert_string_equal(all, "bank.example shop.example ");
    assert_true(brock_site_is_disabled(e, "www.bank.example"));
    assert_false(brock_send_signals(e, "www.bank.example"));
    assert_int_equal(brock_site_set_disabled(e, "bank.example", 0), 0);
    assert_false(brock_site_is_disabled(e, "www.bank.example"));
    assert_int_equal(brock_site_set_disabled(e, "not a site", 1), BROCK_EINVAL);
    assert_int_equal(brock_site_set_disabled(e, "http:", 1), BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "'http:' is not a site"));
    assert_int_equal(brock_site_set_disabled(e, "https:", 1), BROCK_EINVAL);
    assert_int_equal(brock_site_set_disabled(e, "http://", 1), BROCK_EINVAL);
    assert_int_equal(brock_site_set_disabled(e, "http:///x", 1), BROCK_EINVAL);
    assert_int_equal(brock_site_set_disabled(e, "http:?x", 1), BROCK_EINVAL);
    assert_int_equal(brock_site_set_disabled(e, "*.http:", 1), BROCK_EINVAL);
    all[0] = '\0';
    assert_int_equal(brock_disabled_sites_each(e, collect_site, all), 0);
    assert_string_equal(all, "shop.example ");
    brock_engine_free(e);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(brock_action_name(BROCK_USER_COOKIEBLOCK), "user_cookieblock");
    assert_string_equal(brock_action_name((enum brock_action)99), "noaction");
    assert_string_equal(brock_effect_name(BROCK_DENY), "block");
    assert_int_equal(brock_action_effect(BROCK_DNT), BROCK_PASS);
    assert_int_equal(brock_action_effect(BROCK_USER_COOKIEBLOCK), BROCK_STRIP_COOKIES);
    assert_int_equal(brock__user_parse("user_block"), BROCK_USER_BLOCK);
    assert_int_equal(brock__user_parse("block"), -1);
    assert_string_equal(brock__heur_name(BROCK_COOKIEBLOCK), "cookieblock");
    assert_string_equal(brock__heur_name(BROCK_NOACTION), "");
}

static void test_tracker_learned(void **state)
{
    struct brock_evidence ev[2] = {
        {.site = "a.example", .kind = BROCK_EVIDENCE_IMPORTED},
        {.site = "b.example", .kind = BROCK_EVIDENCE_COOKIE},
    };
    struct brock_tracker t = {.domain = "t.example", .evidence = ev, .n_evidence = 1};

    (void)state;
    assert_false(brock_tracker_learned(&t));
    t.n_evidence = 2;
    assert_true(brock_tracker_learned(&t));
    t.n_evidence = 0;
    assert_false(brock_tracker_learned(&t));
}

static void test_setting_names(void **state)
{
    enum brock_setting s = BROCK_SETTING_LEARN;

    (void)state;
    assert_string_equal(brock_setting_name(BROCK_SETTING_SEND_DNT), "send_dnt");
    assert_null(brock_setting_name((enum brock_setting)BROCK_SETTING_COUNT));
    for (unsigned i = 0; i < BROCK_SETTING_COUNT; i++) {
        assert_int_equal(brock_setting_parse(brock_setting_name((enum brock_setting)i), &s), 0);
        assert_int_equal(s, i);
    }
    assert_int_equal(brock_setting_parse("check_dnt", &s), 0);
    assert_int_equal(s, BROCK_SETTING_CHECK_DNT);
    assert_int_equal(brock_setting_parse("checkForDNTPolicy", &s), BROCK_EINVAL);
    assert_int_equal(brock_setting_parse("", &s), BROCK_EINVAL);
    assert_int_equal(brock_setting_parse(NULL, &s), BROCK_EINVAL);
    assert_int_equal(s, BROCK_SETTING_CHECK_DNT);
}

static void test_action_parse(void **state)
{
    static const struct {
        const char *word;
        int action;
    } cases[] = {
        {"allow", BROCK_USER_ALLOW},
        {"cookieblock", BROCK_USER_COOKIEBLOCK},
        {"block", BROCK_USER_BLOCK},
        {"reset", BROCK_NOACTION},
        /* Privacy Badger's names of the choices, as brock reports them. */
        {"user_allow", BROCK_USER_ALLOW},
        {"user_cookieblock", BROCK_USER_COOKIEBLOCK},
        {"user_block", BROCK_USER_BLOCK},
        /* Not choices a person makes. */
        {"noaction", BROCK_EINVAL},
        {"dnt", BROCK_EINVAL},
        {"maybe", BROCK_EINVAL},
        {"", BROCK_EINVAL},
        {"Block", BROCK_EINVAL},
        {"block ", BROCK_EINVAL},
    };
    char err[128];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        strcpy(err, "untouched");
        assert_int_equal(brock_action_parse(cases[i].word, err, sizeof(err)), cases[i].action);
        if (cases[i].action >= 0)
            assert_string_equal(err, "untouched");
    }
    assert_int_equal(brock_action_parse("maybe", err, sizeof(err)), BROCK_EINVAL);
    assert_string_equal(err, "'maybe' is not an action: use allow, cookieblock, block or reset");
    assert_int_equal(brock_action_parse(NULL, err, sizeof(err)), BROCK_EINVAL);
    assert_string_equal(err, "no action was given: use allow, cookieblock, block or reset");
    /* err is optional, and a short one is cut, never overrun. */
    assert_int_equal(brock_action_parse("maybe", NULL, 0), BROCK_EINVAL);
    assert_int_equal(brock_action_parse("maybe", err, 8), BROCK_EINVAL);
    assert_string_equal(err, "'maybe'");
    /* The stored fields keep their own sets: a heuristic is never a user's, and back. */
    assert_int_equal(brock__heur_parse("block"), BROCK_BLOCK);
    assert_int_equal(brock__heur_parse(""), BROCK_NOACTION);
    assert_int_equal(brock__heur_parse("noaction"), -1);
    assert_int_equal(brock__heur_parse("user_block"), -1);
    assert_int_equal(brock__user_parse("user_cookieblock"), BROCK_USER_COOKIEBLOCK);
    assert_int_equal(brock__user_parse(""), BROCK_NOACTION);
    assert_int_equal(brock__user_parse("noaction"), -1);
    assert_string_equal(brock__user_name(BROCK_USER_ALLOW), "user_allow");
    assert_string_equal(brock__user_name(BROCK_BLOCK), "");
    assert_string_equal(brock__heur_name(BROCK_USER_BLOCK), "");
}

/* The headers brock_resource_type_guess() reads, and the type it must guess from them. */
static const struct {
    const char *dest, *accept, *content_type, *upgrade, *ping_to;
    int want;
} guess_rows[] = {
    {"Image", NULL, NULL, NULL, NULL, BROCK_RESOURCE_IMAGE},
    {"iframe", "text/html", NULL, NULL, NULL, BROCK_RESOURCE_SUB_FRAME},
    {"document", NULL, NULL, NULL, NULL, BROCK_RESOURCE_MAIN_FRAME},
    {"serviceworker", NULL, NULL, NULL, NULL, BROCK_RESOURCE_SCRIPT},
    {"empty", "*/*", NULL, NULL, NULL, BROCK_RESOURCE_XHR},
    /* A beacon's destination is "empty" too. */
    {"empty", NULL, "text/ping", NULL, NULL, BROCK_RESOURCE_PING},
    {NULL, NULL, NULL, NULL, "https://a.example/", BROCK_RESOURCE_PING},
    {NULL, NULL, NULL, "WebSocket", NULL, BROCK_RESOURCE_WEBSOCKET},
    /* Without Sec-Fetch-Dest, Accept as browsers send it. */
    {NULL, "text/html,application/xhtml+xml;q=0.9", NULL, NULL, NULL, BROCK_RESOURCE_MAIN_FRAME},
    {NULL, "image/avif,image/webp,*/*", NULL, NULL, NULL, BROCK_RESOURCE_IMAGE},
    {NULL, "text/css,*/*;q=0.1", NULL, NULL, NULL, BROCK_RESOURCE_STYLESHEET},
    {NULL, "application/javascript, */*;q=0.8", NULL, NULL, NULL, BROCK_RESOURCE_SCRIPT},
    {NULL, "application/javascripts", NULL, NULL, NULL, BROCK_RESOURCE_OTHER},
    {NULL, "*/*", NULL, NULL, NULL, BROCK_RESOURCE_OTHER},
    {"nonsense", NULL, NULL, NULL, NULL, BROCK_RESOURCE_OTHER},
};

/* What a request fetches, from its headers; each type's name and back. */
static void test_resource_types(void **state)
{
    (void)state;
    for (int t = 0; t < BROCK_RESOURCE_COUNT; t++)
        assert_int_equal(brock_resource_type_parse(brock_resource_type_name(t)), t);
    assert_string_equal(brock_resource_type_name(BROCK_RESOURCE_XHR), "xmlhttprequest");
    assert_string_equal(brock_resource_type_name(BROCK_RESOURCE_COUNT), "other");
    assert_int_equal(brock_resource_type_parse("img"), BROCK_EINVAL);
    assert_int_equal(brock_resource_type_parse(NULL), BROCK_EINVAL);
    for (size_t i = 0; i < sizeof(guess_rows) / sizeof(guess_rows[0]); i++) {
        int got = (int)brock_resource_type_guess(guess_rows[i].dest, guess_rows[i].accept,
                                                 guess_rows[i].content_type, guess_rows[i].upgrade,
                                                 guess_rows[i].ping_to);

        if (got != guess_rows[i].want)
            fail_msg("row %zu (%s, %s): %s, not %s", i,
                     guess_rows[i].dest ? guess_rows[i].dest : "no dest",
                     guess_rows[i].accept ? guess_rows[i].accept : "no accept",
                     brock_resource_type_name(got), brock_resource_type_name(guess_rows[i].want));
    }
}

#define HDR(n, v)                                                                                  \
    {                                                                                              \
        n, sizeof(n) - 1, v, sizeof(v) - 1                                                         \
    }

static const struct brock_header beacon[] = {
    HDR("Content-Type", "text/plain;charset=UTF-8"),
    HDR("SEC-FETCH-MODE", "no-cors"),
    HDR("sec-fetch-dest", "empty"),
    HDR("Accept", "*/*"),
};
static const struct brock_header cors[] = {
    HDR("Sec-Fetch-Dest", "empty"),
    HDR("Sec-Fetch-Mode", "cors"),
    HDR("Content-Type", "application/json"),
};
static const struct brock_header ping[] = {
    HDR("Sec-Fetch-Dest", "empty"),
    HDR("Sec-Fetch-Mode", "cors"),
    HDR("Content-Type", "text/ping"),
};
static const struct brock_header image[] = {
    HDR("Sec-Fetch-Dest", "image"),
    HDR("Sec-Fetch-Mode", "no-cors"),
};
static const struct brock_header nav[] = {
    HDR("Accept", "text/html,application/xhtml+xml,*/*;q=0.8"),
    HDR("Sec-Fetch-Dest", "document"),
    HDR("Sec-Fetch-Dest", "image"),
};

/* A request's method, its first n headers of a list, and its type. */
static const struct {
    const char *method, *list;
    const struct brock_header *h;
    size_t n;
    int want;
} request_rows[] = {
    {"POST", "beacon", beacon, 4, BROCK_RESOURCE_PING},
    {"post", "beacon", beacon, 4, BROCK_RESOURCE_PING},
    /* The same fetch metadata on a GET is a fetch(), and so is a POST that needed CORS. */
    {"GET", "beacon", beacon, 4, BROCK_RESOURCE_XHR},
    {NULL, "beacon", beacon, 4, BROCK_RESOURCE_XHR},
    {"POST", "cors", cors, 3, BROCK_RESOURCE_XHR},
    /* <a ping> says so in its Content-Type, whatever its mode. */
    {"POST", "ping", ping, 3, BROCK_RESOURCE_PING},
    {"POST", "image", image, 2, BROCK_RESOURCE_IMAGE},
    /* The first of a name is read. */
    {"GET", "nav", nav, 3, BROCK_RESOURCE_MAIN_FRAME},
    {"GET", "nav", nav, 1, BROCK_RESOURCE_MAIN_FRAME},
    {"GET", "none", NULL, 0, BROCK_RESOURCE_OTHER},
};

/* A request's type from its method and headers as sent: sendBeacon()'s shape (a POST, fetch
 * metadata empty and no-cors) is a ping, which no other header says. */
static void test_request_type(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(request_rows) / sizeof(request_rows[0]); i++) {
        int got =
            (int)brock_request_type(request_rows[i].method, request_rows[i].h, request_rows[i].n);

        if (got != request_rows[i].want)
            fail_msg("row %zu (%s, %zu of %s): %s, not %s", i,
                     request_rows[i].method ? request_rows[i].method : "no method",
                     request_rows[i].n, request_rows[i].list, brock_resource_type_name(got),
                     brock_resource_type_name(request_rows[i].want));
    }
}

/* brock_decide_request() decides on the URL's host, and says what type it was given. */
static void test_decide_request(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_request r = {.url = "https://Tracker.Example:8443/a.js?x=1",
                              .site = "news.example",
                              .type = BROCK_RESOURCE_SCRIPT};
    struct brock_decision d;

    (void)state;
    set(e, "tracker.example", BROCK_BLOCK, BROCK_NOACTION, 0);
    assert_int_equal(brock_decide_request(e, &r, &d), 0);
    assert_string_equal(d.host, "tracker.example");
    assert_int_equal(d.effect, BROCK_DENY);
    assert_int_equal(d.type, BROCK_RESOURCE_SCRIPT);
    assert_null(d.surrogate);
    r.url = NULL;
    r.host = "tracker.example";
    assert_int_equal(brock_decide_request(e, &r, &d), 0);
    assert_int_equal(d.effect, BROCK_DENY);
    r.url = "no host here";
    assert_int_equal(brock_decide_request(e, &r, &d), BROCK_EINVAL);
    assert_int_equal(d.effect, BROCK_PASS);
    brock_engine_free(e);
}

/* Evidence of kind on site for base, as learning records it: the snitch entry, and the
 * tracking map's kind where Privacy Badger keeps one (track: a BROCK__TRACK_ bit, or 0). */
static void seen(struct brock_engine *e, const char *base, const char *site, int kind,
                 unsigned track)
{
    struct brock__evidence_in ev = {.host = base, .kind = kind, .time_ms = 1700000000000};

    assert_true(brock__record_prevalence(e, base, base, site, &ev) > 0);
    if (track)
        assert_int_equal(brock__tracking_add(e, base, site, track), 0);
}

static void explain(struct brock_engine *e, const char *host, char *why, size_t size)
{
    struct brock_decision d;

    assert_int_equal(brock_decide(e, host, "news.example", &d), 0);
    assert_true(brock_decision_explain(e, &d, why, size) < size);
}

/* The sentence names, for each site, what was seen there (the kind of its snitch entry, then
 * the tracking map's other kinds), not only that there were sites. */
static void test_explain_evidence(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    char why[1024];

    (void)state;
    seen(e, "tracker.test", "a.test", BROCK_EVIDENCE_COOKIE, 0);
    seen(e, "tracker.test", "b.test", BROCK_EVIDENCE_PIXEL, BROCK__TRACK_PIXEL);
    explain(e, "px.tracker.test", why, sizeof(why));
    assert_string_equal(why, "tracker.test was seen tracking on 2 sites (a.test: cookie; "
                             "b.test: pixel cookie sharing), fewer than 3: allowed.");
    seen(e, "tracker.test", "c.test", BROCK_EVIDENCE_CANVAS, BROCK__TRACK_CANVAS);
    explain(e, "px.tracker.test", why, sizeof(why));
    assert_string_equal(why, "tracker.test was seen tracking on 3 sites (a.test: cookie; "
                             "b.test: pixel cookie sharing; c.test: canvas fingerprinting): "
                             "blocked (from tracker.test).");

    /* A canvas read back on a site the cookie recorded already: both. Each other kind has
     * its words. */
    seen(e, "other.test", "a.test", BROCK_EVIDENCE_SET_COOKIE, 0);
    assert_int_equal(brock__tracking_add(e, "other.test", "a.test", BROCK__TRACK_CANVAS), 0);
    seen(e, "other.test", "b.test", BROCK_EVIDENCE_BEACON, BROCK__TRACK_BEACON);
    seen(e, "other.test", "c.test", BROCK_EVIDENCE_SUPERCOOKIE, 0);
    explain(e, "other.test", why, sizeof(why));
    assert_string_equal(why, "other.test was seen tracking on 3 sites (a.test: Set-Cookie, "
                             "canvas fingerprinting; b.test: beacon; c.test: supercookie): "
                             "blocked (from other.test).");

    /* The seed or an import records no kind: said so, unless its tracking map named some. */
    seen(e, "seeded.test", "a.test", BROCK_EVIDENCE_IMPORTED, 0);
    seen(e, "seeded.test", "b.test", BROCK_EVIDENCE_IMPORTED,
         BROCK__TRACK_CANVAS | BROCK__TRACK_BEACON);
    explain(e, "seeded.test", why, sizeof(why));
    assert_string_equal(why, "seeded.test was seen tracking on 2 sites (a.test: pre-trained or "
                             "imported; b.test: beacon, canvas fingerprinting), fewer than 3: "
                             "allowed.");
    brock_engine_free(e);
}

/* Many sites: as many as fit, then "...", never a sentence cut short. */
static void test_explain_many_sites(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    char why[2048], site[64];
    size_t n;

    (void)state;
    for (int i = 0; i < 60; i++) {
        snprintf(site, sizeof(site), "site-number-%02d.example", i);
        seen(e, "many.test", site, BROCK_EVIDENCE_COOKIE, 0);
    }
    explain(e, "many.test", why, sizeof(why));
    n = strlen(why);
    assert_true(n < 600);
    assert_non_null(strstr(why, "many.test was seen tracking on 60 sites (site-number-00."
                                "example: cookie; site-number-01.example: cookie; "));
    assert_non_null(strstr(why, "...): blocked (from many.test)."));
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_block_cascades_down_not_up),
        cmocka_unit_test(test_scores_and_ties),
        cmocka_unit_test(test_dnt_exact_only),
        cmocka_unit_test(test_user_actions_win),
        cmocka_unit_test(test_unknown_ignored_and_walk_stops_at_base),
        cmocka_unit_test(test_decide),
        cmocka_unit_test(test_disabled_sites),
        cmocka_unit_test(test_set_and_revert),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_setting_names),
        cmocka_unit_test(test_tracker_learned),
        cmocka_unit_test(test_action_parse),
        cmocka_unit_test(test_resource_types),
        cmocka_unit_test(test_request_type),
        cmocka_unit_test(test_decide_request),
        cmocka_unit_test(test_explain_evidence),
        cmocka_unit_test(test_explain_many_sites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
