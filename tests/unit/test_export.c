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
    struct brock_config cfg = {0};
    struct brock_engine *e = NULL;
    char err[256];

    assert_int_equal(brock_engine_open(&cfg, &e, err, sizeof(err)), 0);
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

static void expect(struct brock_engine *e, const char *format, unsigned flags, const char *want)
{
    char *out = NULL, *again = NULL;
    size_t len = 0, len2 = 0;

    assert_int_equal(brock_export_with(e, format, flags, &out, &len), 0);
    assert_int_equal(strlen(out), len);
    if (strcmp(out, want) != 0)
        print_message("# %s got:\n%s", format, out);
    assert_string_equal(out, want);
    /* The same state writes the same bytes. */
    assert_int_equal(brock_export_with(e, format, flags, &again, &len2), 0);
    assert_string_equal(again, out);
    brock_free(out);
    brock_free(again);
}

/* Filter lists and hosts files: cookieblocked names load, as none of them can strip cookies. */
static void test_filter_lists(void **unused)
{
    struct brock_engine *e = state();

    (void)unused;
    /* One host a line: every blocked name, and nothing below it that must load, which
     * therefore loads. */
    expect(e, "hosts", BROCK_EXPORT_DEFAULT,
           "# brock " BROCK_VERSION ": domains blocked as tracking across sites\n"
           "# blocked: 7, cookies stripped: 0, exceptions: 0\n"
           "0.0.0.0 ads.other.example\n"
           "0.0.0.0 evil.example\n"
           "0.0.0.0 other.example\n"
           "0.0.0.0 px.tracker.example\n"
           "0.0.0.0 seeded.example\n"
           "0.0.0.0 tracker.example\n"
           "0.0.0.0 x.login.other.example\n"
           "# left out: 203.0.113.7 (an address, not a domain name)\n");
    /* An exception in Adblock Plus wins over every block: the name blocked again below
     * one cannot be said. */
    expect(e, "abp", BROCK_EXPORT_DEFAULT,
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
           "! left out: 203.0.113.7 (an address, not a domain name)\n");
    /* $important says it. */
    expect(e, "adguard", BROCK_EXPORT_DEFAULT,
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
           "! left out: 203.0.113.7 (an address, not a domain name)\n");
    /* The most specific host wins; no comments. */
    expect(e, "ubo", BROCK_EXPORT_DEFAULT,
           "* evil.example * block\n"
           "* other.example * block\n"
           "* seeded.example * block\n"
           "* tracker.example * block\n"
           "* cdn.tracker.example * noop\n"
           "* login.other.example * noop\n"
           "* x.login.other.example * block\n");
    brock_engine_free(e);
}

/* DNS: a block answers NXDOMAIN below the name too; the more specific rule wins. */
static void test_dns(void **unused)
{
    struct brock_engine *e = state();

    (void)unused;
    expect(e, "dnsmasq", BROCK_EXPORT_DEFAULT,
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
           "# left out: 203.0.113.7 (an address, not a domain name)\n");
    expect(e, "unbound", BROCK_EXPORT_DEFAULT,
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
           "# left out: 203.0.113.7 (an address, not a domain name)\n");
    expect(e, "rpz", BROCK_EXPORT_DEFAULT,
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
           "; left out: 203.0.113.7 (an address, not a domain name)\n");
    brock_engine_free(e);
}

/* The formats that strip cookies: cookieblock is a rule of its own, at the base and
 * below a block. */
static void test_strip(void **unused)
{
    struct brock_engine *e = state();

    (void)unused;
    /* The last section that matches wins: sections go from the least specific. */
    expect(e, "privoxy", BROCK_EXPORT_DEFAULT,
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
           "# left out: 203.0.113.7 (an address, not a domain name)\n");
    expect(
        e, "dnr", BROCK_EXPORT_DEFAULT,
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
        "]\n");
    expect(e, "safari", BROCK_EXPORT_DEFAULT,
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
           "]\n");
    brock_engine_free(e);
}

/* --action and --learned-only. */
static void test_filters(void **unused)
{
    struct brock_engine *e = state();

    (void)unused;
    /* Blocks alone: a cookieblocked name below a block is let through all the same. */
    expect(e, "privoxy", BROCK_EXPORT_BLOCK,
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
           "# left out: 203.0.113.7 (an address, not a domain name)\n");
    expect(e, "safari", BROCK_EXPORT_BLOCK,
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
           "]\n");
    /* Cookieblocks alone: below a block that is not written, they stand on their own. */
    expect(e, "privoxy", BROCK_EXPORT_COOKIEBLOCK,
           "# brock " BROCK_VERSION ": a Privoxy actions file (actionsfile)\n"
           "# blocked: 0, cookies stripped: 2, exceptions: 0\n"
           "\n"
           "{ +crunch-incoming-cookies +crunch-outgoing-cookies }\n"
           ".cdn.tracker.example\n"
           ".yellow.example\n");
    expect(e, "dnr", BROCK_EXPORT_COOKIEBLOCK,
           "[\n"
           "{\"id\": 1, \"priority\": 2, \"action\": {\"type\": \"modifyHeaders\", \"requestHead"
           "ers\": [{\"header\": \"cookie\", \"operation\": \"remove\"}], \"responseHeaders\": ["
           "{\"header\": \"set-cookie\", \"operation\": \"remove\"}]}, \"condition\": {\"request"
           "Domains\": [\"cdn.tracker.example\", \"yellow.example\"], \"domainType\": \"thirdPar"
           "ty\"}}\n"
           "]\n");
    /* Learned only: the base known from an import goes; the user's choices stay. */
    expect(e, "dnsmasq", BROCK_EXPORT_DEFAULT | BROCK_EXPORT_LEARNED_ONLY,
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
           "# left out: 203.0.113.7 (an address, not a domain name)\n");
    expect(e, "hosts", BROCK_EXPORT_BLOCK | BROCK_EXPORT_LEARNED_ONLY,
           "# brock " BROCK_VERSION ": domains blocked as tracking across sites\n"
           "# blocked: 6, cookies stripped: 0, exceptions: 0\n"
           "0.0.0.0 ads.other.example\n"
           "0.0.0.0 evil.example\n"
           "0.0.0.0 other.example\n"
           "0.0.0.0 px.tracker.example\n"
           "0.0.0.0 tracker.example\n"
           "0.0.0.0 x.login.other.example\n"
           "# left out: 203.0.113.7 (an address, not a domain name)\n");
    brock_engine_free(e);
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

static char *export(struct brock_engine *e, const char *format)
{
    char *out = NULL;
    size_t len = 0;

    assert_int_equal(brock_export_with(e, format, BROCK_EXPORT_DEFAULT, &out, &len), 0);
    return out;
}

/* Privacy Badger applies no action above a public suffix to the names at or below it, each
 * of them a site of its own (the system's Public Suffix List: s3.amazonaws.com,
 * googleapis.com). A list's rule reaches every name below it, so it gets exceptions there;
 * and the action of a name that is itself a public suffix is said for that name alone where
 * the format can (the names below it keep what the rules above say), else left out with a
 * comment. */
static void test_public_suffixes(void **unused)
{
    struct brock_config cfg = {0};
    struct brock_engine *e = NULL;
    struct brock_decision d;
    char err[256], *out;

    (void)unused;
    assert_int_equal(brock_engine_open(&cfg, &e, err, sizeof(err)), 0);
    assert_int_equal(brock_set_user_action(e, "amazonaws.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "googleapis.com", BROCK_USER_BLOCK), 0);
    /* What the engine decides, which the lists must say too. */
    assert_int_equal(brock_decide(e, "x.amazonaws.com", "news.example", &d), 0);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_int_equal(brock_decide(e, "bucket.s3.amazonaws.com", "news.example", &d), 0);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(brock_decide(e, "fonts.googleapis.com", "news.example", &d), 0);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(brock_decide(e, "googleapis.com", "news.example", &d), 0);
    assert_int_equal(d.effect, BROCK_DENY);

    out = export(e, "dnsmasq");
    assert_true(has_line(out, "address=/amazonaws.com/"));
    assert_true(has_line(out, "server=/s3.amazonaws.com/#"));
    assert_true(
        has_line(out, "server=/compute.amazonaws.com/#")); /* from *.compute.amazonaws.com */
    assert_true(has_line(out, "address=/googleapis.com/"));
    assert_true(has_line(out, "server=/*.googleapis.com/#"));
    brock_free(out);
    out = export(e, "unbound");
    assert_null(strstr(out, "local-zone: \"googleapis.com."));
    assert_true(has_line(out, "# left out: block googleapis.com (the choice holds for this name "
                              "alone, and a local zone reaches every name below it)"));
    brock_free(out);
    out = export(e, "rpz");
    assert_true(has_line(out, "googleapis.com CNAME ."));
    assert_null(strstr(out, "*.googleapis.com"));
    brock_free(out);
    out = export(e, "privoxy");
    assert_true(has_line(out, ".s3.amazonaws.com"));
    assert_true(has_line(out, "googleapis.com"));
    assert_false(has_line(out, ".googleapis.com"));
    brock_free(out);
    out = export(e, "adguard");
    assert_true(has_line(out, "|googleapis.com^"));
    assert_false(has_line(out, "||googleapis.com^"));
    brock_free(out);
    out = export(e, "abp");
    assert_true(has_line(out, "|https://googleapis.com^$third-party"));
    brock_free(out);
    out = export(e, "ubo");
    assert_null(strstr(out, "googleapis.com"));
    brock_free(out);
    /* A hosts file names each host alone: the suffix's own action is said exactly. */
    out = export(e, "hosts");
    assert_true(has_line(out, "0.0.0.0 googleapis.com"));
    assert_null(strstr(out, "s3.amazonaws.com"));
    brock_free(out);
    brock_engine_free(e);
}

/* A public suffix blocked below a blocked name: the names below the suffix are other sites,
 * and pass, while the name above and the suffix itself are blocked; one rule a name where
 * the format has but one (dnsmasq's, an RPZ owner's). */
static void test_suffix_below_a_block(void **unused)
{
    struct brock_config cfg = {0};
    struct brock_engine *e = NULL;
    struct brock_decision d;
    char err[256], *out;

    (void)unused;
    assert_int_equal(brock_engine_open(&cfg, &e, err, sizeof(err)), 0);
    assert_int_equal(brock_set_user_action(e, "amazonaws.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "s3.amazonaws.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_decide(e, "s3.amazonaws.com", "news.example", &d), 0);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_int_equal(brock_decide(e, "bucket.s3.amazonaws.com", "news.example", &d), 0);
    assert_int_equal(d.effect, BROCK_PASS);

    out = export(e, "dnsmasq");
    assert_true(has_line(out, "address=/amazonaws.com/"));
    assert_true(has_line(out, "address=/s3.amazonaws.com/"));
    assert_true(has_line(out, "server=/*.s3.amazonaws.com/#"));
    assert_false(has_line(out, "server=/s3.amazonaws.com/#"));
    brock_free(out);
    out = export(e, "rpz");
    assert_true(has_line(out, "s3.amazonaws.com CNAME ."));
    assert_true(has_line(out, "*.s3.amazonaws.com CNAME rpz-passthru."));
    assert_false(has_line(out, "s3.amazonaws.com CNAME rpz-passthru."));
    brock_free(out);
    /* Privoxy: the last section that matches wins, the exact one coming last. */
    out = export(e, "privoxy");
    assert_true(has_line(out, ".s3.amazonaws.com"));
    assert_true(has_line(out, "s3.amazonaws.com"));
    assert_true(strstr(out, "\n.s3.amazonaws.com\n") < strstr(out, "\ns3.amazonaws.com\n"));
    brock_free(out);
    brock_engine_free(e);
}

/* Choices for one site only: said with the site where the format can say it, above every
 * rule of the list; a public suffix's own choice for that name alone where the format has
 * exact names; left out with a comment elsewhere. */
static void test_site_choices(void **unused)
{
    struct brock_engine *e = state();
    char *out;

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

    out = export(e, "ubo");
    assert_true(has_line(out, "news.example tracker.example * noop"));
    assert_true(has_line(out, "shop.example login.other.example * block"));
    assert_true(has_line(out, "mail.example static.yellow.example * noop"));
    assert_null(strstr(out, "googleapis.com"));
    /* After the global rules: the site's own are the last word. */
    assert_true(strstr(out, "news.example tracker.example") > strstr(out, "* tracker.example *"));
    brock_free(out);

    out = export(e, "adguard");
    assert_true(has_line(out, "! choices for one site only: 4"));
    assert_true(has_line(out, "@@||tracker.example^$domain=news.example,important"));
    assert_true(has_line(out, "||login.other.example^$domain=shop.example,important"));
    assert_true(has_line(out, "@@||static.yellow.example^$domain=mail.example,important"));
    assert_true(has_line(out, "|googleapis.com^$domain=news.example,important"));
    brock_free(out);

    /* An exception wins over every block in Adblock Plus. */
    out = export(e, "abp");
    assert_true(has_line(out, "@@||tracker.example^$third-party,domain=news.example"));
    assert_true(has_line(out, "! left out: block login.other.example on shop.example only (an "
                              "exception above it wins here)"));
    assert_true(has_line(out, "! left out: block googleapis.com on news.example only (a public "
                              "suffix: a rule would reach every site below it)"));
    brock_free(out);

    /* Above the deepest rule of the list (x.login.other.example's, at 5 and 6). */
    out = export(e, "dnr");
    assert_non_null(strstr(out, "\"priority\": 7, \"action\": {\"type\": \"allow\"}, "
                                "\"condition\": {\"requestDomains\": [\"tracker.example\"], "
                                "\"initiatorDomains\": [\"news.example\"], "
                                "\"domainType\": \"thirdParty\"}"));
    assert_non_null(strstr(out, "\"regexFilter\": \"^[a-z]+://googleapis\\\\.com[:/]\""));
    assert_non_null(strstr(out, "\"priority\": 8, \"action\": {\"type\": \"modifyHeaders\""));
    brock_free(out);

    out = export(e, "safari");
    assert_non_null(strstr(out, "tracker\\\\.example[:/]\", \"load-type\": [\"third-party\"], "
                                "\"if-domain\": [\"*news.example\"]}, \"action\": {\"type\": "
                                "\"ignore-previous-rules\"}}"));
    /* After the list's own rules, which it must undo. */
    assert_true(strstr(out, "*news.example") > strstr(out, "\"block\""));
    assert_non_null(strstr(out, "\"url-filter\": \"^[^:]+://+googleapis\\\\.com[:/]\""));
    assert_non_null(strstr(out, "\"if-domain\": [\"*mail.example\"]}, \"action\": {\"type\": "
                                "\"block-cookies\"}}"));
    brock_free(out);

    /* Formats that see no page. */
    static const char *const none[][2] = {
        {"hosts", "#"}, {"dnsmasq", "#"}, {"unbound", "#"}, {"rpz", ";"}, {"privoxy", "#"}};
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        char line[200];

        out = export(e, none[i][0]);
        snprintf(line, sizeof(line),
                 "%s left out: allow tracker.example on news.example only (the format cannot "
                 "tell one site's requests from another's)",
                 none[i][1]);
        if (!has_line(out, line))
            print_message("# %s:\n%s", none[i][0], out);
        assert_true(has_line(out, line));
        brock_free(out);
    }
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
