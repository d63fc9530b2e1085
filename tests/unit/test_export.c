/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Golden tests of the block list exports: one state holding every case a list must get right
 * (a blocked base with a cookieblocked and a DNT name below it, a user-allowed name below
 * another blocked base with a name blocked again below that, a cookieblocked base, the
 * user's blocks, an address, a base known from an import only) and the exact text of each
 * format, with its filters. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"

static void yellowlist(struct brock_engine *e, const char *d)
{
    assert_int_equal(strmap_put(&e->lists.yellow, d, (void *)1), 0);
    assert_int_equal(strvec_push(&e->lists.yellow_order, d), 0);
}

/* host seen with an identifying cookie on three sites: learned here, and blocked (or
 * cookieblocked, when yellowlisted). */
static void learn(struct brock_engine *e, const char *host)
{
    static const char *const sites[] = {"news.example", "shop.example", "mail.example"};
    struct brock_header h = {"Cookie", 6, "uid=8f3a9b2c1d7e", 16};

    for (size_t i = 0; i < 3; i++) {
        struct brock_observation o = {.host = host,
                                      .site = sites[i],
                                      .headers = &h,
                                      .n_headers = 1,
                                      .time_ms = 1700000000000};
        assert_int_equal(brock_observe(e, &o, NULL), 0);
    }
}

static struct brock_engine *state(void)
{
    static const char seed[] =
        "{\"action_map\": {}, \"snitch_map\": "
        "{\"seeded.example\": [\"news.example\", \"shop.example\", \"mail.example\"]}}";
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    yellowlist(e, "cdn.tracker.example");
    yellowlist(e, "yellow.example");
    learn(e, "px.tracker.example");
    learn(e, "static.yellow.example");
    learn(e, "ads.other.example");
    assert_int_equal(brock_import(e, "seed", seed, strlen(seed), NULL), 0);
    assert_int_equal(brock_dnt_record(e, "dnt.tracker.example", 1), 0);
    assert_int_equal(brock_set_user_action(e, "login.other.example", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_user_action(e, "x.login.other.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "evil.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "203.0.113.7", BROCK_USER_BLOCK), 0);
    return e;
}

/* One case of the golden tests: the whole text that format writes, with flags, from state(). */
struct golden {
    const char *format;
    unsigned flags;
    const char *want;
};

static void expect_row(struct brock_engine *e, size_t i, const struct golden *g)
{
    char *out = NULL, *again = NULL;
    size_t len = 0, len2 = 0;

    if (brock_export_with(e, g->format, g->flags, &out, &len) != 0)
        fail_msg("row %zu (%s, flags %#x): %s", i, g->format, g->flags, brock_engine_errmsg(e));
    if (strlen(out) != len || strcmp(out, g->want) != 0) {
        print_message("# %s got:\n%s", g->format, out);
        fail_msg("row %zu (%s, flags %#x): not the expected text", i, g->format, g->flags);
    }
    /* The same state writes the same bytes. */
    if (brock_export_with(e, g->format, g->flags, &again, &len2) != 0 || strcmp(again, out) != 0)
        fail_msg("row %zu (%s, flags %#x): a second export differs", i, g->format, g->flags);
    brock_free(out);
    brock_free(again);
}

/* Each row's export of one state(). */
static void expect_rows(const struct golden *rows, size_t n)
{
    struct brock_engine *e = state();

    for (size_t i = 0; i < n; i++)
        expect_row(e, i, &rows[i]);
    brock_engine_free(e);
}

/* Filter lists and hosts files: cookieblocked names load, as none of them can strip cookies. */
static const struct golden filter_list_rows[] = {
    /* One host a line: every blocked name, and nothing below it that must load, which
     * therefore loads. */
    {"hosts", BROCK_EXPORT_DEFAULT,
     "# brock " BROCK_VERSION ": domains blocked as tracking across sites\n"
     "# blocked: 7, cookies stripped: 0, exceptions: 0\n"
     "0.0.0.0 ads.other.example\n"
     "0.0.0.0 evil.example\n"
     "0.0.0.0 other.example\n"
     "0.0.0.0 px.tracker.example\n"
     "0.0.0.0 seeded.example\n"
     "0.0.0.0 tracker.example\n"
     "0.0.0.0 x.login.other.example\n"
     "# left out: 203.0.113.7 (an address, not a domain name)\n"},
    /* An exception in Adblock Plus wins over every block: the name blocked again below
     * one cannot be said. */
    {"abp", BROCK_EXPORT_DEFAULT,
     "[Adblock Plus 2.0]\n"
     "! Title: brock: trackers learned across sites\n"
     "! brock " BROCK_VERSION ": an Adblock Plus filter list\n"
     "! blocked: 5, cookies stripped: 0, exceptions: 3\n"
     "||evil.example^$third-party\n"
     "||other.example^$third-party\n"
     "||seeded.example^$third-party\n"
     "||tracker.example^$third-party\n"
     "@@||cdn.tracker.example^$third-party\n"
     "@@||login.other.example^$third-party\n"
     "@@|http://dnt.tracker.example^$third-party\n"
     "@@|https://dnt.tracker.example^$third-party\n"
     "! left out: block x.login.other.example (an exception above it wins here)\n"
     "! left out: 203.0.113.7 (an address, not a domain name)\n"},
    /* $important says it. */
    {"adguard", BROCK_EXPORT_DEFAULT,
     "! brock " BROCK_VERSION ": DNS filtering rules for AdGuard Home and Pi-hole\n"
     "! blocked: 5, cookies stripped: 0, exceptions: 3\n"
     "||evil.example^\n"
     "||other.example^\n"
     "||seeded.example^\n"
     "||tracker.example^\n"
     "@@||cdn.tracker.example^\n"
     "@@||login.other.example^\n"
     "@@|dnt.tracker.example^\n"
     "||x.login.other.example^$important\n"
     "! left out: 203.0.113.7 (an address, not a domain name)\n"},
    /* The most specific host wins; no comments. */
    {"ubo", BROCK_EXPORT_DEFAULT,
     "* evil.example * block\n"
     "* other.example * block\n"
     "* seeded.example * block\n"
     "* tracker.example * block\n"
     "* cdn.tracker.example * noop\n"
     "* login.other.example * noop\n"
     "* x.login.other.example * block\n"},
};

static void test_filter_lists(void **unused)
{
    (void)unused;
    expect_rows(filter_list_rows, sizeof(filter_list_rows) / sizeof(filter_list_rows[0]));
}

/* DNS: a block answers NXDOMAIN below the name too; the more specific rule wins. */
static const struct golden dns_rows[] = {
    {"dnsmasq", BROCK_EXPORT_DEFAULT,
     "# brock " BROCK_VERSION ": dnsmasq configuration (conf-file=)\n"
     "# blocked: 5, cookies stripped: 0, exceptions: 3\n"
     "address=/evil.example/\n"
     "address=/other.example/\n"
     "address=/seeded.example/\n"
     "address=/tracker.example/\n"
     "server=/cdn.tracker.example/#\n"
     "server=/login.other.example/#\n"
     "server=/dnt.tracker.example/#\n"
     "address=/*.dnt.tracker.example/\n"
     "address=/x.login.other.example/\n"
     "# left out: 203.0.113.7 (an address, not a domain name)\n"},
    {"unbound", BROCK_EXPORT_DEFAULT,
     "# brock " BROCK_VERSION ": Unbound configuration (include:)\n"
     "# blocked: 5, cookies stripped: 0, exceptions: 3\n"
     "server:\n"
     "local-zone: \"evil.example.\" always_nxdomain\n"
     "local-zone: \"other.example.\" always_nxdomain\n"
     "local-zone: \"seeded.example.\" always_nxdomain\n"
     "local-zone: \"tracker.example.\" always_nxdomain\n"
     "local-zone: \"cdn.tracker.example.\" transparent\n"
     "local-zone: \"login.other.example.\" transparent\n"
     "# left out: exception dnt.tracker.example (the choice holds for this name alone, and a "
     "local zone reaches every name below it)\n"
     "local-zone: \"x.login.other.example.\" always_nxdomain\n"
     "# left out: 203.0.113.7 (an address, not a domain name)\n"},
    {"rpz", BROCK_EXPORT_DEFAULT,
     "; brock " BROCK_VERSION ": a response policy zone (RPZ), under any zone name\n"
     "; blocked: 5, cookies stripped: 0, exceptions: 3\n"
     "$TTL 300\n"
     "@ IN SOA localhost. root.localhost. 1 3600 600 86400 300\n"
     "@ IN NS localhost.\n"
     "evil.example CNAME .\n"
     "*.evil.example CNAME .\n"
     "other.example CNAME .\n"
     "*.other.example CNAME .\n"
     "seeded.example CNAME .\n"
     "*.seeded.example CNAME .\n"
     "tracker.example CNAME .\n"
     "*.tracker.example CNAME .\n"
     "cdn.tracker.example CNAME rpz-passthru.\n"
     "*.cdn.tracker.example CNAME rpz-passthru.\n"
     "login.other.example CNAME rpz-passthru.\n"
     "*.login.other.example CNAME rpz-passthru.\n"
     "dnt.tracker.example CNAME rpz-passthru.\n"
     "x.login.other.example CNAME .\n"
     "*.x.login.other.example CNAME .\n"
     "; left out: 203.0.113.7 (an address, not a domain name)\n"},
};

static void test_dns(void **unused)
{
    (void)unused;
    expect_rows(dns_rows, sizeof(dns_rows) / sizeof(dns_rows[0]));
}

/* The formats that strip cookies: cookieblock is a rule of its own, at the base and
 * below a block. */
static const struct golden strip_rows[] = {
    /* The last section that matches wins: sections go from the least specific. */
    {"privoxy", BROCK_EXPORT_DEFAULT,
     "# brock " BROCK_VERSION ": a Privoxy actions file (actionsfile)\n"
     "# blocked: 5, cookies stripped: 2, exceptions: 2\n"
     "\n"
     "{ +crunch-incoming-cookies +crunch-outgoing-cookies }\n"
     ".yellow.example\n"
     "\n"
     "{ +block{brock: tracker learned across sites} +handle-as-image }\n"
     ".evil.example\n"
     ".other.example\n"
     ".seeded.example\n"
     ".tracker.example\n"
     "\n"
     "{ -block }\n"
     ".login.other.example\n"
     "dnt.tracker.example\n"
     "\n"
     "{ -block +crunch-incoming-cookies +crunch-outgoing-cookies }\n"
     ".cdn.tracker.example\n"
     "\n"
     "{ +block{brock: tracker learned across sites} +handle-as-image }\n"
     ".x.login.other.example\n"
     "# left out: 203.0.113.7 (an address, not a domain name)\n"},
    {"dnr", BROCK_EXPORT_DEFAULT,
     "[\n"
     "{\"id\": 1, \"priority\": 2, \"action\": {\"type\": \"modifyHeaders\", \"requestHead"
     "ers\": [{\"header\": \"cookie\", \"operation\": \"remove\"}], \"responseHeaders\": ["
     "{\"header\": \"set-cookie\", \"operation\": \"remove\"}]}, \"condition\": {\"request"
     "Domains\": [\"yellow.example\"], \"domainType\": \"thirdParty\"}},\n"
     "{\"id\": 2, \"priority\": 1, \"action\": {\"type\": \"block\"}, \"condition\": {\"re"
     "questDomains\": [\"evil.example\", \"other.example\", \"seeded.example\", \"tracker."
     "example\"], \"domainType\": \"thirdParty\"}},\n"
     "{\"id\": 3, \"priority\": 3, \"action\": {\"type\": \"allow\"}, \"condition\": {\"re"
     "questDomains\": [\"login.other.example\"], \"domainType\": \"thirdParty\"}},\n"
     "{\"id\": 4, \"priority\": 3, \"action\": {\"type\": \"allow\"}, \"condition\": {\"re"
     "gexFilter\": \"^[a-z]+://dnt\\\\.tracker\\\\.example[:/]\", \"domainType\": \"thirdParty"
     "\"}},\n"
     "{\"id\": 5, \"priority\": 3, \"action\": {\"type\": \"allow\"}, \"condition\": {\"re"
     "questDomains\": [\"cdn.tracker.example\"], \"domainType\": \"thirdParty\"}},\n"
     "{\"id\": 6, \"priority\": 4, \"action\": {\"type\": \"modifyHeaders\", \"requestHead"
     "ers\": [{\"header\": \"cookie\", \"operation\": \"remove\"}], \"responseHeaders\": ["
     "{\"header\": \"set-cookie\", \"operation\": \"remove\"}]}, \"condition\": {\"request"
     "Domains\": [\"cdn.tracker.example\"], \"domainType\": \"thirdParty\"}},\n"
     "{\"id\": 7, \"priority\": 5, \"action\": {\"type\": \"block\"}, \"condition\": {\"re"
     "questDomains\": [\"x.login.other.example\"], \"domainType\": \"thirdParty\"}}\n"
     "]\n"},
    {"safari", BROCK_EXPORT_DEFAULT,
     "[\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?yellow\\\\.example[:/]\", "
     "\"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block-cookies\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?evil\\\\.example[:/]\", \"l"
     "oad-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?other\\\\.example[:/]\", \""
     "load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?seeded\\\\.example[:/]\", "
     "\"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?tracker\\\\.example[:/]\", "
     "\"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?login\\\\.other\\\\.example"
     "[:/]\", \"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"ignore-previous-"
     "rules\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+dnt\\\\.tracker\\\\.example[:/]\", \"load-"
     "type\": [\"third-party\"]}, \"action\": {\"type\": \"ignore-previous-rules\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?cdn\\\\.tracker\\\\.example"
     "[:/]\", \"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"ignore-previous-"
     "rules\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?cdn\\\\.tracker\\\\.example"
     "[:/]\", \"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block-cookies\"}"
     "},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?x\\\\.login\\\\.other\\\\.e"
     "xample[:/]\", \"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}}"
     "\n"
     "]\n"},
};

static void test_strip(void **unused)
{
    (void)unused;
    expect_rows(strip_rows, sizeof(strip_rows) / sizeof(strip_rows[0]));
}

/* --action and --learned-only. */
static const struct golden filter_rows[] = {
    /* Blocks alone: a cookieblocked name below a block is let through all the same. */
    {"privoxy", BROCK_EXPORT_BLOCK,
     "# brock " BROCK_VERSION ": a Privoxy actions file (actionsfile)\n"
     "# blocked: 5, cookies stripped: 0, exceptions: 3\n"
     "\n"
     "{ +block{brock: tracker learned across sites} +handle-as-image }\n"
     ".evil.example\n"
     ".other.example\n"
     ".seeded.example\n"
     ".tracker.example\n"
     "\n"
     "{ -block }\n"
     ".cdn.tracker.example\n"
     ".login.other.example\n"
     "dnt.tracker.example\n"
     "\n"
     "{ +block{brock: tracker learned across sites} +handle-as-image }\n"
     ".x.login.other.example\n"
     "# left out: 203.0.113.7 (an address, not a domain name)\n"},
    {"safari", BROCK_EXPORT_BLOCK,
     "[\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?evil\\\\.example[:/]\", \"l"
     "oad-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?other\\\\.example[:/]\", \""
     "load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?seeded\\\\.example[:/]\", "
     "\"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?tracker\\\\.example[:/]\", "
     "\"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?cdn\\\\.tracker\\\\.example"
     "[:/]\", \"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"ignore-previous-"
     "rules\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?login\\\\.other\\\\.example"
     "[:/]\", \"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"ignore-previous-"
     "rules\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+dnt\\\\.tracker\\\\.example[:/]\", \"load-"
     "type\": [\"third-party\"]}, \"action\": {\"type\": \"ignore-previous-rules\"}},\n"
     "{\"trigger\": {\"url-filter\": \"^[^:]+://+([^:/]+\\\\.)?x\\\\.login\\\\.other\\\\.e"
     "xample[:/]\", \"load-type\": [\"third-party\"]}, \"action\": {\"type\": \"block\"}}"
     "\n"
     "]\n"},
    /* Cookieblocks alone: below a block that is not written, they stand on their own. */
    {"privoxy", BROCK_EXPORT_COOKIEBLOCK,
     "# brock " BROCK_VERSION ": a Privoxy actions file (actionsfile)\n"
     "# blocked: 0, cookies stripped: 2, exceptions: 0\n"
     "\n"
     "{ +crunch-incoming-cookies +crunch-outgoing-cookies }\n"
     ".cdn.tracker.example\n"
     ".yellow.example\n"},
    {"dnr", BROCK_EXPORT_COOKIEBLOCK,
     "[\n"
     "{\"id\": 1, \"priority\": 2, \"action\": {\"type\": \"modifyHeaders\", \"requestHead"
     "ers\": [{\"header\": \"cookie\", \"operation\": \"remove\"}], \"responseHeaders\": ["
     "{\"header\": \"set-cookie\", \"operation\": \"remove\"}]}, \"condition\": {\"request"
     "Domains\": [\"cdn.tracker.example\", \"yellow.example\"], \"domainType\": \"thirdPar"
     "ty\"}}\n"
     "]\n"},
    /* Learned only: the base known from an import goes; the user's choices stay. */
    {"dnsmasq", BROCK_EXPORT_DEFAULT | BROCK_EXPORT_LEARNED_ONLY,
     "# brock " BROCK_VERSION ": dnsmasq configuration (conf-file=)\n"
     "# blocked: 4, cookies stripped: 0, exceptions: 3\n"
     "address=/evil.example/\n"
     "address=/other.example/\n"
     "address=/tracker.example/\n"
     "server=/cdn.tracker.example/#\n"
     "server=/login.other.example/#\n"
     "server=/dnt.tracker.example/#\n"
     "address=/*.dnt.tracker.example/\n"
     "address=/x.login.other.example/\n"
     "# left out: 203.0.113.7 (an address, not a domain name)\n"},
    {"hosts", BROCK_EXPORT_BLOCK | BROCK_EXPORT_LEARNED_ONLY,
     "# brock " BROCK_VERSION ": domains blocked as tracking across sites\n"
     "# blocked: 6, cookies stripped: 0, exceptions: 0\n"
     "0.0.0.0 ads.other.example\n"
     "0.0.0.0 evil.example\n"
     "0.0.0.0 other.example\n"
     "0.0.0.0 px.tracker.example\n"
     "0.0.0.0 tracker.example\n"
     "0.0.0.0 x.login.other.example\n"
     "# left out: 203.0.113.7 (an address, not a domain name)\n"},
};

static void test_filters(void **unused)
{
    (void)unused;
    expect_rows(filter_rows, sizeof(filter_rows) / sizeof(filter_rows[0]));
}

/* Bad requests fail with a sentence and hand nothing out. */
static void test_refusals(void **unused)
{
    struct brock_engine *e = state();
    unsigned flags = 99;
    char *out = NULL, err[160];
    size_t len = 7;

    (void)unused;
    assert_int_equal(brock_export_with(e, "bind", BROCK_EXPORT_DEFAULT, &out, &len), BROCK_EINVAL);
    assert_null(out);
    assert_int_equal(len, 0);
    assert_string_equal(brock_engine_errmsg(e),
                        "'bind' is not an export format (pb, hosts, abp, dnsmasq, unbound, rpz, "
                        "privoxy, ubo, adguard, dnr, safari)");
    assert_int_equal(brock_export_with(e, "dnsmasq", BROCK_EXPORT_LEARNED_ONLY, &out, &len),
                     BROCK_EINVAL);
    assert_string_equal(brock_engine_errmsg(e), "export as dnsmasq: no action chosen to export");
    assert_int_equal(brock_export_with(e, "pb", BROCK_EXPORT_BLOCK, &out, &len), BROCK_EINVAL);
    assert_null(out);
    assert_int_equal(brock_export_with(e, "hosts", 64, &out, &len), BROCK_EINVAL);
    assert_null(out);

    assert_int_equal(brock_export_actions_parse("block", &flags, err, sizeof(err)), 0);
    assert_int_equal(flags, BROCK_EXPORT_BLOCK);
    assert_int_equal(brock_export_actions_parse("cookieblock,block", &flags, NULL, 0), 0);
    assert_int_equal(flags, BROCK_EXPORT_DEFAULT);
    static const char *const bad[] = {
        "", "allow", "block,", ",block", "block,,cookieblock", "Block", "block cookieblock"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        flags = 99;
        assert_int_equal(brock_export_actions_parse(bad[i], &flags, err, sizeof(err)),
                         BROCK_EINVAL);
        assert_int_equal(flags, 99);
        assert_non_null(strstr(err, "is not an action to export (block, cookieblock)"));
    }
    assert_int_equal(brock_export_actions_parse(NULL, &flags, err, sizeof(err)), BROCK_EINVAL);
    assert_string_equal(err, "'' is not an action to export (block, cookieblock)");
    brock_engine_free(e);
}

static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);

    for (const char *p = strstr(text, line); p; p = strstr(p + 1, line)) {
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return 1;
    }
    return 0;
}

/* What a row of a check table looks for in a format's text. */
enum look {
    LINE,    /* text is a whole line of it */
    NO_LINE, /* text is no whole line of it */
    TEXT,    /* text is somewhere in it */
    NO_TEXT, /* text is nowhere in it */
    BEFORE,  /* text is in it, and later then */
};

static const char *const look_name[] = {"a line", "no line", "the text", "not the text", "before"};

/* One check of a format's export, with the default actions. */
struct check {
    const char *format;
    enum look look;
    const char *text;
    const char *then; /* BEFORE only */
};

static int check_holds(const char *out, const struct check *c)
{
    const char *a, *b;

    switch (c->look) {
    case LINE: return has_line(out, c->text);
    case NO_LINE: return !has_line(out, c->text);
    case TEXT: return strstr(out, c->text) != NULL;
    case NO_TEXT: return strstr(out, c->text) == NULL;
    case BEFORE:
        a = strstr(out, c->text);
        b = strstr(out, c->then);
        return a && b && a < b;
    }
    return 0;
}

/* Each row's check of its format's export of e; the rows of one format come together, and
 * share one export. */
static void check_rows(struct brock_engine *e, const struct check *rows, size_t n)
{
    const char *format = NULL;
    char *out = NULL;
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        const struct check *c = &rows[i];

        if (!format || strcmp(format, c->format) != 0) {
            brock_free(out);
            out = NULL;
            format = c->format;
            if (brock_export_with(e, format, BROCK_EXPORT_DEFAULT, &out, &len) != 0)
                fail_msg("row %zu (%s): %s", i, format, brock_engine_errmsg(e));
        }
        if (!check_holds(out, c)) {
            print_message("# %s:\n%s\n", format, out);
            fail_msg("row %zu (%s): %s \"%s\"%s%s%s does not hold", i, format, look_name[c->look],
                     c->text, c->then ? " \"" : "", c->then ? c->then : "", c->then ? "\"" : "");
        }
    }
    brock_free(out);
}

/* What the engine decides for a host on news.example, which the lists must say too. */
struct verdict {
    const char *host;
    enum brock_effect effect;
};

static void decide_rows(struct brock_engine *e, const struct verdict *rows, size_t n)
{
    struct brock_decision d;

    for (size_t i = 0; i < n; i++) {
        if (brock_decide(e, rows[i].host, "news.example", &d) != 0)
            fail_msg("row %zu (%s): %s", i, rows[i].host, brock_engine_errmsg(e));
        if (d.effect != rows[i].effect)
            fail_msg("row %zu (%s): effect %d, not %d", i, rows[i].host, (int)d.effect,
                     (int)rows[i].effect);
    }
}

#define ROWS(a) (a), sizeof(a) / sizeof((a)[0])

/* Privacy Badger applies no action above a public suffix to the names at or below it, each
 * of them a site of its own (the system's Public Suffix List: s3.amazonaws.com,
 * googleapis.com). A list's rule reaches every name below it, so it gets exceptions there;
 * and the action of a name that is itself a public suffix is said for that name alone where
 * the format can (the names below it keep what the rules above say), else left out with a
 * comment. */
static const struct verdict suffix_verdicts[] = {
    {"x.amazonaws.com", BROCK_DENY},
    {"bucket.s3.amazonaws.com", BROCK_PASS},
    {"fonts.googleapis.com", BROCK_PASS},
    {"googleapis.com", BROCK_DENY},
};

static const struct check suffix_checks[] = {
    {"dnsmasq", LINE, "address=/amazonaws.com/", NULL},
    {"dnsmasq", LINE, "server=/s3.amazonaws.com/#", NULL},
    {"dnsmasq", LINE, "server=/compute.amazonaws.com/#", NULL}, /* from *.compute.amazonaws.com */
    {"dnsmasq", LINE, "address=/googleapis.com/", NULL},
    {"dnsmasq", LINE, "server=/*.googleapis.com/#", NULL},
    {"unbound", NO_TEXT, "local-zone: \"googleapis.com.", NULL},
    {"unbound", LINE,
     "# left out: block googleapis.com (the choice holds for this name alone, and a local zone "
     "reaches every name below it)",
     NULL},
    {"rpz", LINE, "googleapis.com CNAME .", NULL},
    {"rpz", NO_TEXT, "*.googleapis.com", NULL},
    {"privoxy", LINE, ".s3.amazonaws.com", NULL},
    {"privoxy", LINE, "googleapis.com", NULL},
    {"privoxy", NO_LINE, ".googleapis.com", NULL},
    {"adguard", LINE, "|googleapis.com^", NULL},
    {"adguard", NO_LINE, "||googleapis.com^", NULL},
    {"abp", LINE, "|https://googleapis.com^$third-party", NULL},
    {"ubo", NO_TEXT, "googleapis.com", NULL},
    /* A hosts file names each host alone: the suffix's own action is said exactly. */
    {"hosts", LINE, "0.0.0.0 googleapis.com", NULL},
    {"hosts", NO_TEXT, "s3.amazonaws.com", NULL},
};

static void test_public_suffixes(void **unused)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    (void)unused;
    assert_int_equal(brock_set_user_action(e, "amazonaws.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "googleapis.com", BROCK_USER_BLOCK), 0);
    decide_rows(e, ROWS(suffix_verdicts));
    check_rows(e, ROWS(suffix_checks));
    brock_engine_free(e);
}

/* A public suffix blocked below a blocked name: the names below the suffix are other sites,
 * and pass, while the name above and the suffix itself are blocked; one rule a name where
 * the format has but one (dnsmasq's, an RPZ owner's). */
static const struct verdict below_verdicts[] = {
    {"s3.amazonaws.com", BROCK_DENY},
    {"bucket.s3.amazonaws.com", BROCK_PASS},
};

static const struct check below_checks[] = {
    {"dnsmasq", LINE, "address=/amazonaws.com/", NULL},
    {"dnsmasq", LINE, "address=/s3.amazonaws.com/", NULL},
    {"dnsmasq", LINE, "server=/*.s3.amazonaws.com/#", NULL},
    {"dnsmasq", NO_LINE, "server=/s3.amazonaws.com/#", NULL},
    {"rpz", LINE, "s3.amazonaws.com CNAME .", NULL},
    {"rpz", LINE, "*.s3.amazonaws.com CNAME rpz-passthru.", NULL},
    {"rpz", NO_LINE, "s3.amazonaws.com CNAME rpz-passthru.", NULL},
    /* Privoxy: the last section that matches wins, the exact one coming last. */
    {"privoxy", LINE, ".s3.amazonaws.com", NULL},
    {"privoxy", LINE, "s3.amazonaws.com", NULL},
    {"privoxy", BEFORE, "\n.s3.amazonaws.com\n", "\ns3.amazonaws.com\n"},
};

static void test_suffix_below_a_block(void **unused)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    (void)unused;
    assert_int_equal(brock_set_user_action(e, "amazonaws.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "s3.amazonaws.com", BROCK_USER_BLOCK), 0);
    decide_rows(e, ROWS(below_verdicts));
    check_rows(e, ROWS(below_checks));
    brock_engine_free(e);
}

/* Choices for one site only: said with the site where the format can say it, above every
 * rule of the list; a public suffix's own choice for that name alone where the format has
 * exact names; left out with a comment elsewhere. */
/* What the formats that see no page say of the choice for news.example, after their mark of
 * a comment. */
#define NO_PAGE                                                                                    \
    " left out: allow tracker.example on news.example only (the format cannot tell one site's "    \
    "requests from another's)"

static const struct check site_checks[] = {
    {"ubo", LINE, "news.example tracker.example * noop", NULL},
    {"ubo", LINE, "shop.example login.other.example * block", NULL},
    {"ubo", LINE, "mail.example static.yellow.example * noop", NULL},
    {"ubo", NO_TEXT, "googleapis.com", NULL},
    /* After the global rules: the site's own are the last word. */
    {"ubo", BEFORE, "* tracker.example *", "news.example tracker.example"},
    {"adguard", LINE, "! choices for one site only: 4", NULL},
    {"adguard", LINE, "@@||tracker.example^$domain=news.example,important", NULL},
    {"adguard", LINE, "||login.other.example^$domain=shop.example,important", NULL},
    {"adguard", LINE, "@@||static.yellow.example^$domain=mail.example,important", NULL},
    {"adguard", LINE, "|googleapis.com^$domain=news.example,important", NULL},
    /* An exception wins over every block in Adblock Plus. */
    {"abp", LINE, "@@||tracker.example^$third-party,domain=news.example", NULL},
    {"abp", LINE,
     "! left out: block login.other.example on shop.example only (an exception above it wins "
     "here)",
     NULL},
    {"abp", LINE,
     "! left out: block googleapis.com on news.example only (a public suffix: a rule would "
     "reach every site below it)",
     NULL},
    /* Above the deepest rule of the list (x.login.other.example's, at 5 and 6). */
    {"dnr", TEXT,
     "\"priority\": 7, \"action\": {\"type\": \"allow\"}, \"condition\": {\"requestDomains\": "
     "[\"tracker.example\"], \"initiatorDomains\": [\"news.example\"], \"domainType\": "
     "\"thirdParty\"}",
     NULL},
    {"dnr", TEXT, "\"regexFilter\": \"^[a-z]+://googleapis\\\\.com[:/]\"", NULL},
    {"dnr", TEXT, "\"priority\": 8, \"action\": {\"type\": \"modifyHeaders\"", NULL},
    {"safari", TEXT,
     "tracker\\\\.example[:/]\", \"load-type\": [\"third-party\"], \"if-domain\": "
     "[\"*news.example\"]}, \"action\": {\"type\": \"ignore-previous-rules\"}}",
     NULL},
    /* After the list's own rules, which it must undo. */
    {"safari", BEFORE, "\"block\"", "*news.example"},
    {"safari", TEXT, "\"url-filter\": \"^[^:]+://+googleapis\\\\.com[:/]\"", NULL},
    {"safari", TEXT,
     "\"if-domain\": [\"*mail.example\"]}, \"action\": {\"type\": \"block-cookies\"}}", NULL},
    /* Formats that see no page. */
    {"hosts", LINE, "#" NO_PAGE, NULL},
    {"dnsmasq", LINE, "#" NO_PAGE, NULL},
    {"unbound", LINE, "#" NO_PAGE, NULL},
    {"rpz", LINE, ";" NO_PAGE, NULL},
    {"privoxy", LINE, "#" NO_PAGE, NULL},
};

static void test_site_choices(void **unused)
{
    struct brock_engine *e = state();

    (void)unused;
    assert_int_equal(
        brock_set_site_action(e, "www.news.example", "tracker.example", BROCK_USER_ALLOW), 0);
    assert_int_equal(
        brock_set_site_action(e, "shop.example", "login.other.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(
        brock_set_site_action(e, "mail.example", "static.yellow.example", BROCK_USER_COOKIEBLOCK),
        0);
    assert_int_equal(brock_set_site_action(e, "news.example", "googleapis.com", BROCK_USER_BLOCK),
                     0);
    check_rows(e, ROWS(site_checks));
    brock_engine_free(e);
}

/* Whether an export names a site visited: pb always; a block list only through a choice for
 * one site that it holds, which no format leaves unsaid. */
static void test_names_sites(void **unused)
{
    struct brock_engine *e = state();
    const char *const *f;

    (void)unused;
    for (f = brock_export_formats(); *f; f++)
        assert_int_equal(brock_export_names_sites(e, *f, BROCK_EXPORT_DEFAULT),
                         strcmp(*f, "pb") == 0);
    assert_int_equal(brock_export_names_sites(e, "bind9", BROCK_EXPORT_DEFAULT), BROCK_EINVAL);
    assert_int_equal(brock_set_site_action(e, "news.example", "evil.example", BROCK_USER_BLOCK), 0);
    for (f = brock_export_formats(); *f; f++) {
        char *out = NULL;
        size_t len = 0;

        assert_int_equal(brock_export_names_sites(e, *f, BROCK_EXPORT_DEFAULT), 1);
        assert_int_equal(brock_export_with(e, *f, BROCK_EXPORT_DEFAULT, &out, &len), 0);
        assert_non_null(strstr(out, "news.example"));
        brock_free(out);
    }
    /* Without blocks the block for one site is left out, and the site with it. */
    assert_int_equal(brock_export_names_sites(e, "hosts", BROCK_EXPORT_COOKIEBLOCK), 0);
    assert_int_equal(brock_set_site_action(e, "shop.example", "evil.example", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_export_names_sites(e, "hosts", BROCK_EXPORT_COOKIEBLOCK), 1);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_lists),
        cmocka_unit_test(test_dns),
        cmocka_unit_test(test_strip),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_public_suffixes),
        cmocka_unit_test(test_suffix_below_a_block),
        cmocka_unit_test(test_site_choices),
        cmocka_unit_test(test_names_sites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
