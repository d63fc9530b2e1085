/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Recent decisions kept (answers.c), and every other fast path of a decision: an answer given
 * back is the one brock_decide() makes plainly (the engine's plain switch: no kept answers, no
 * base cache, settings read from JSON), field by field, for a large mix of hosts and sites,
 * addresses among them; and after every kind of change that can alter an answer (a pause and
 * a site's time off, beginning and ending, among them), the next decision is the new one,
 * never the kept one. */
#include "test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "engine/engine.h"
#include "util/hash.h"

/* ---- helpers ---- */

static void assert_same(const struct brock_decision *a, const struct brock_decision *b,
                        const char *host, const char *site)
{
    if (strcmp(a->host, b->host) || strcmp(a->tracker, b->tracker) || strcmp(a->base, b->base) ||
        strcmp(a->site, b->site) || strcmp(a->source, b->source) ||
        a->third_party != b->third_party || a->reason != b->reason || a->action != b->action ||
        a->effect != b->effect || a->site_fix != b->site_fix || a->surrogate != b->surrogate ||
        a->surrogate_len != b->surrogate_len || strcmp(a->surrogate_token, b->surrogate_token) ||
        a->type != b->type)
        fail_msg("%s on %s: kept %s/%s/%s/%s/%s %d %d %d %d %d, afresh %s/%s/%s/%s/%s %d %d %d %d "
                 "%d",
                 host ? host : "(null)", site ? site : "(null)", a->host, a->tracker, a->base,
                 a->site, a->source, a->third_party, a->reason, a->action, a->effect, a->site_fix,
                 b->host, b->tracker, b->base, b->site, b->source, b->third_party, b->reason,
                 b->action, b->effect, b->site_fix);
}

/* Decides host on site afresh, then twice with the answers (the second one kept), checks the
 * three agree and returns the decision. */
static struct brock_decision decide(struct brock_engine *e, const char *host, const char *site)
{
    struct brock_decision fresh, d;
    int rc;

    e->plain = 1;
    rc = brock_decide(e, host, site, &fresh);
    e->plain = 0;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(brock_decide(e, host, site, &d), rc);
        assert_same(&d, &fresh, host, site);
    }
    return d;
}

/* The same for brock_decide_request() on a script at url. */
static void decide_url(struct brock_engine *e, const char *url, const char *site)
{
    struct brock_request r = {.url = url, .site = site, .type = BROCK_RESOURCE_SCRIPT};
    struct brock_decision fresh, d;
    int rc;

    e->plain = 1;
    rc = brock_decide_request(e, &r, &fresh);
    e->plain = 0;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(brock_decide_request(e, &r, &d), rc);
        assert_same(&d, &fresh, url, site);
    }
}

static const char *pb_data(void)
{
    static char dir[4096];

    snprintf(dir, sizeof(dir), "%s", test_data("privacybadger"));
    return dir;
}

/* One request from a page of site to host with an identifying cookie. */
static void seen(struct brock_engine *e, const char *host, const char *site)
{
    struct brock_header h = {"Cookie", 6, "uid=8f3a9b2c7d1e4f60a5b3", 24};
    struct brock_observation o = {
        .host = host, .site = site, .headers = &h, .n_headers = 1, .time_ms = 1700000000000};
    struct brock_learned l;

    assert_int_equal(brock_observe(e, &o, &l), 0);
}

/* ---- the same answers ---- */

/* Every nth key of map, and a subdomain of it, as hosts. */
static size_t keys_of(const struct strmap *map, size_t every, char (*out)[BROCK_HOST_MAX], size_t n,
                      size_t max)
{
    size_t it = 0, i = 0;
    const char *key;

    while (n + 2 <= max && strmap_next(map, &it, &key, NULL)) {
        if (i++ % every)
            continue;
        snprintf(out[n++], BROCK_HOST_MAX, "%s", key);
        snprintf(out[n++], BROCK_HOST_MAX, "x%zu.%.200s", i % 3, key);
    }
    return n;
}

/* Hosts asked besides those of the lists: odd ones, and names that look alike. */
static const char *const odd[] = {
    "localhost",
    "10.1.2.3",
    "127.0.0.1",
    "8.8.8.8",
    "[::1]",
    "2001:db8::7",
    "0x7f000001",
    "WWW.Google-Analytics.COM",
    "doubleclick.net.",
    "bücher.example",
    "a..b",
    "",
    "-",
    "xn--bcher-kva.example",
    "www.metro.cz",
    "1gr.cz",
    "ads.1gr.cz",
    "2mdn.net",
    "s0.2mdn.net",
    "www.crunchyroll.com",
    "cdn.jsdelivr.net",
    "a.b.c.d.e.f.g.h.example.co.uk",
    "very-long-label-to-go-past-what-one-kept-answer-holds.for-names.tracker.example.com",
    "1.2.3.4",
    "2.2.3.4",
    "a.1.2.3.4",
    "1.2.3",
    "1.2.0x3.0x4",
    "0177.0.0.1",
    "3.4",
};
/* The pages they are asked for. */
static const char *const sites[] = {
    NULL,
    "",
    "www.metro.cz",
    "www.crunchyroll.com",
    "www.news.example",
    "news.bbc.co.uk",
    "disabled.example",
    "shop.disabled.example",
    "google.com",
    "youtube.com",
    "127.0.0.1",
    "[::1]",
    "Bad Site",
    "WWW.NEWS.EXAMPLE.",
    "amazon.co.jp",
    "1.2.3.4",
    "2.2.3.4",
    "site-with-a-long-name.so-that"
    ".the-pair-is-too-long-to-keep.example.org",
};

static void test_same_answers(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, pb_data(), 0);
    size_t max = 40000, n = 0, nsites = sizeof(sites) / sizeof(sites[0]);
    char(*hosts)[BROCK_HOST_MAX] = calloc(max, BROCK_HOST_MAX);
    char url[BROCK_HOST_MAX + 32];

    (void)state;
    assert_non_null(hosts);
    assert_int_equal(brock_site_set_disabled(e, "disabled.example", 1), 0);
    assert_int_equal(brock_set_user_action(e, "google-analytics.com", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_dnt_record(e, "dnt.tracker.example", 1), 0);
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
        snprintf(hosts[n++], BROCK_HOST_MAX, "%s", odd[i]);
    snprintf(hosts[n++], BROCK_HOST_MAX, "dnt.tracker.example");
    n = keys_of(&e->actions, 3, hosts, n, max - 200);
    n = keys_of(&e->lists.cname, 20, hosts, n, max - 100);
    n = keys_of(&e->lists.mdfp, 1, hosts, n, max);
    assert_true(n > 5000);
    for (size_t i = 0; i < n; i++) {
        /* Each host on a few sites: fixed ones, and the hosts around it as pages. */
        const char *s[4] = {sites[i % nsites], sites[(i * 7 + 3) % nsites], hosts[(i + 1) % n],
                            hosts[(i * 13) % n]};
        for (size_t j = 0; j < 4; j++)
            decide(e, hosts[i], s[j]);
        snprintf(url, sizeof(url), "https://%s/analytics.js", hosts[i]);
        decide_url(e, url, sites[i % nsites]);
        /* The URL's host taken as written, or parsed: the same answers either way. */
        snprintf(url, sizeof(url), i % 3 ? "http://%s:8080?x" : "HTTP://user@%s\\x", hosts[i]);
        decide_url(e, url, sites[(i * 7 + 3) % nsites]);
    }
    free(hosts);
    brock_engine_free(e);
}

/* The answers are used: a pair asked again comes from them, not from the maps. */
static void test_answers_kept(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_decision d;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_decide(e, "ads.tracker.example", "www.news.example", &d), 0);
    assert_int_equal(d.action, BROCK_USER_BLOCK);
    /* Behind the engine's back (no real change goes this way): the kept answer stays. */
    brock__action_get(e, "tracker.example")->user = BROCK_USER_ALLOW;
    assert_int_equal(brock_decide(e, "ads.tracker.example", "www.news.example", &d), 0);
    assert_int_equal(d.action, BROCK_USER_BLOCK);
    assert_string_equal(d.source, "tracker.example");
    assert_string_equal(d.site, "news.example");
    e->plain = 1;
    assert_int_equal(brock_decide(e, "ads.tracker.example", "www.news.example", &d), 0);
    assert_int_equal(d.action, BROCK_USER_ALLOW);
    brock_engine_free(e);
}

/* A browsing session's 2,000 (host, site) pairs are all kept together: none pushes another
 * out, so asked again each comes from the answers. The seed is fixed so that the pairs fall
 * in the sets the same way on every run. */
static void test_session_kept(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_decision d;
    char host[64], site[64];

    (void)state;
    e->answers_seed = 0x5eed5eed5eed5eedULL;
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    for (int round = 0; round < 2; round++) {
        for (unsigned i = 0; i < 2000; i++) {
            snprintf(host, sizeof(host), "px%u.tracker.example", i % 997);
            snprintf(site, sizeof(site), "www.site%u.example", i / 997 + i % 89);
            assert_int_equal(brock_decide(e, host, site, &d), 0);
            if (d.action != BROCK_USER_BLOCK)
                fail_msg("%s on %s: decided afresh, not kept", host, site);
        }
        /* Behind the engine's back: only a kept answer still says block. */
        brock__action_get(e, "tracker.example")->user = BROCK_USER_ALLOW;
    }
    brock_engine_free(e);
}

/* The set a pair is kept in and the 4 bits of its hash that once picked its way in a full
 * set, as answers.c hashes pairs. */
static void pair_place(uint64_t seed, const char *host, const char *site, size_t *set,
                       unsigned *way)
{
    uint64_t h = hash_final(hash_mix(hash_mix(seed, host, strlen(host)), site, strlen(site)));

    *set = (size_t)(h & 511);
    *way = (unsigned)(h >> 32) & 15;
}

/* Two pairs of a session in one full set, whose hashes once gave them one way, each pushed
 * the other out: every other decision for them was made afresh. The set's last sixteen are
 * kept, the two among them. */
static void test_full_set_keeps_recent(void **state)
{
    const uint64_t seed = 0x5eed5eed5eed5eedULL;
    const char *site = "www.news.example";
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_decision d;
    char hosts[18][64], host[64];
    unsigned ways[18], way, fillers = 0, a = 0, b = 0;
    size_t want, set;

    (void)state;
    e->answers_seed = seed;
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    /* sixteen pairs in one set, then two more there whose hashes share the 4 bits */
    snprintf(hosts[0], sizeof(hosts[0]), "px0.tracker.example");
    pair_place(seed, hosts[0], site, &want, &ways[0]);
    fillers = 1;
    for (unsigned i = 1; i < 1000000 && !b; i++) {
        snprintf(host, sizeof(host), "px%u.tracker.example", i);
        pair_place(seed, host, site, &set, &way);
        if (set != want)
            continue;
        if (fillers < 16) {
            ways[fillers] = way;
            memcpy(hosts[fillers++], host, sizeof(host));
        } else if (!a) {
            a = 16;
            ways[a] = way;
            memcpy(hosts[a], host, sizeof(host));
        } else if (way == ways[16]) {
            b = 17;
            memcpy(hosts[b], host, sizeof(host));
        }
    }
    assert_int_equal(b, 17);
    for (unsigned i = 0; i < 18; i++) {
        assert_int_equal(brock_decide(e, hosts[i], site, &d), 0);
        assert_int_equal(d.action, BROCK_USER_BLOCK);
    }
    /* Behind the engine's back: only a kept answer still says block. */
    brock__action_get(e, "tracker.example")->user = BROCK_USER_ALLOW;
    for (unsigned i = 2; i < 18; i++) {
        assert_int_equal(brock_decide(e, hosts[i], site, &d), 0);
        if (d.action != BROCK_USER_BLOCK)
            fail_msg("%s on %s, one of the set's last sixteen: decided afresh, not kept", hosts[i],
                     site);
    }
    brock_engine_free(e);
}

/* ---- every change makes kept answers stale ---- */

#define HOST "ads.tracker.example"
#define SITE "www.news.example"

static void test_user_action(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    (void)state;
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_NOACTION);
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_USER_BLOCK);
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_COOKIEBLOCK), 0);
    assert_int_equal(decide(e, HOST, SITE).effect, BROCK_STRIP_COOKIES);
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_NOACTION), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_NOACTION);
    assert_string_equal(decide(e, HOST, SITE).source, "");
    brock_engine_free(e);
}

static void test_learning_and_reset(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, pb_data(), 1);

    (void)state;
    seen(e, HOST, "site-a.example");
    seen(e, HOST, "site-b.example");
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_ALLOW);
    seen(e, HOST, "site-c.example");
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_BLOCK);
    assert_int_equal(brock_reset(e), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_NOACTION);
    brock_engine_free(e);
}

static void test_settings(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    (void)state;
    assert_int_equal(brock_dnt_record(e, HOST, 1), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_DNT);
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_CHECK_DNT, 0), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_NOACTION);
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_CHECK_DNT, 1), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_DNT);
    assert_int_equal(brock_dnt_record(e, HOST, 0), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_NOACTION);

    assert_int_equal(brock_site_set_disabled(e, "news.example", 1), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_DISABLED);
    assert_int_equal(brock_site_set_disabled(e, "news.example", 0), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_ACTION);

    /* brock off for a while: a pause, everywhere, and a site's time off, each seen by the
     * next decision as it begins and as it ends. */
    assert_int_equal(brock_pause(e, INT64_MAX - 10), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_DISABLED);
    assert_int_equal(decide(e, HOST, NULL).reason, BROCK_WHY_DISABLED);
    assert_int_equal(brock_expire(e, INT64_MAX - 10, NULL, NULL), 1);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_ACTION);
    assert_int_equal(decide(e, HOST, NULL).reason, BROCK_WHY_ACTION);
    assert_int_equal(brock_pause(e, BROCK_NO_END), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_DISABLED);
    assert_int_equal(brock_resume(e), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_ACTION);
    assert_int_equal(brock_site_disable_until(e, "news.example", INT64_MAX - 5), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_DISABLED);
    assert_int_equal(brock_expire(e, INT64_MAX - 5, NULL, NULL), 1);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_ACTION);
    brock_engine_free(e);
}

static void test_import(void **state)
{
    static const char actions[] =
        "{\"action_map\": {\"tracker.example\": {\"userAction\": \"user_block\"}}, "
        "\"snitch_map\": {}}";
    static const char settings[] =
        "{\"action_map\": {}, \"snitch_map\": {}, \"settings_map\": {\"disabledSites\": "
        "[\"www.news.example\"]}}";
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    (void)state;
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_NOACTION);
    assert_int_equal(brock_import(e, "actions", actions, strlen(actions), NULL), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_USER_BLOCK);
    assert_int_equal(brock_import(e, "settings", settings, strlen(settings), NULL), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_DISABLED);
    brock_engine_free(e);
}

/* pbconfig.json of the test data with a site fix leaving HOST alone on SITE. */
static char *pbconfig_ignoring(void)
{
    json_t *root = json_load_file(test_data("privacybadger/pbconfig.json"), 0, NULL), *ignore;
    char *text;

    assert_non_null(root);
    ignore = json_object_get(json_object_get(root, "sitefixes"), "ignore");
    assert_non_null(ignore);
    assert_int_equal(json_object_set_new(ignore, "tracker.example", json_pack("[s]", SITE)), 0);
    text = json_dumps(root, 0);
    json_decref(root);
    assert_non_null(text);
    return text;
}

static void test_update(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, pb_data(), 1);
    char *text = pbconfig_ignoring();

    (void)state;
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_ACTION);
    assert_int_equal(brock_update_apply(e, "pbconfig.json", text, strlen(text), 1, NULL), 0);
    assert_int_equal(decide(e, HOST, SITE).reason, BROCK_WHY_IGNORED);
    free(text);
    brock_engine_free(e);
}

/* ---- changes from files and other processes ---- */

/* A data folder of links to the test data's files, but for its own CNAME list. */
static int setup(void **state)
{
    struct test_fixture *f = test_fixture_new("answers");

    test_link_data(f->data, (const char *const[]){"cname_domains.json", NULL});
    *state = f;
    return 0;
}

static void write_cname(const struct test_fixture *f, const char *json)
{
    char path[400];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/cname_domains.json", f->data);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(json, fp);
    assert_int_equal(fclose(fp), 0);
}

static void test_reload(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e;

    write_cname(f, "{\"cdn.news.example\": \"px.cloaked.example\"}");
    e = test_engine_open(NULL, f->data, 1);
    assert_string_equal(decide(e, "cdn.news.example", SITE).tracker, "px.cloaked.example");
    assert_int_equal(decide(e, "cdn.news.example", SITE).third_party, 1);
    write_cname(f, "{\"cdn.news.example\": \"px.other.example\"}");
    assert_int_equal(brock_engine_reload(e, NULL), 0);
    assert_string_equal(decide(e, "cdn.news.example", SITE).tracker, "px.other.example");
    write_cname(f, "{}");
    assert_int_equal(brock_engine_reload(e, NULL), 0);
    assert_string_equal(decide(e, "cdn.news.example", SITE).tracker, "cdn.news.example");
    assert_int_equal(decide(e, "cdn.news.example", SITE).reason, BROCK_WHY_FIRST_PARTY);
    brock_engine_free(e);
}

/* Another process's change, read from the state's journal at brock_sync(). */
static void test_other_process(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1);
    struct brock_engine *b = test_fixture_open(f, NULL, 1);

    assert_int_equal(decide(b, HOST, SITE).action, BROCK_NOACTION);
    assert_int_equal(brock_set_user_action(a, "tracker.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, HOST, SITE).action, BROCK_USER_BLOCK);

    assert_int_equal(brock_site_set_disabled(a, "news.example", 1), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, HOST, SITE).reason, BROCK_WHY_DISABLED);

    assert_int_equal(brock_site_set_disabled(a, "news.example", 0), 0);
    assert_int_equal(brock_pause(a, BROCK_NO_END), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, HOST, "www.other.example").reason, BROCK_WHY_DISABLED);
    assert_int_equal(brock_resume(a), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, HOST, "www.other.example").action, BROCK_USER_BLOCK);

    assert_int_equal(brock_set_user_action(a, "tracker.example", BROCK_NOACTION), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, HOST, SITE).action, BROCK_NOACTION);
    brock_engine_free(b);
    brock_engine_free(a);
}

/* A backup of the state put back under an open engine: merged at its next brock_sync(). */
static void test_state_replaced(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_fixture_open(f, NULL, 1);
    sqlite3 *src = NULL, *dst = NULL;
    sqlite3_backup *bk;

    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_sync(e), 0);
    assert_int_equal(sqlite3_open_v2(f->db, &src, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_open(f->aside, &dst), SQLITE_OK);
    bk = sqlite3_backup_init(dst, "main", src, "main");
    assert_non_null(bk);
    assert_int_equal(sqlite3_backup_step(bk, -1), SQLITE_DONE);
    assert_int_equal(sqlite3_backup_finish(bk), SQLITE_OK);
    sqlite3_close(dst);
    sqlite3_close(src);

    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_sync(e), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_USER_ALLOW);
    assert_int_equal(rename(f->aside, f->db), 0);
    assert_int_equal(brock_sync(e), 0);
    assert_int_equal(decide(e, HOST, SITE).action, BROCK_USER_BLOCK);
    brock_engine_free(e);
}

/* Another Public Suffix List: base domains, and so answers, change. Last: the list stays. */
static void test_psl_load(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    char path[400];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/list.dat", f->tmp);
    assert_string_equal(decide(e, "px.a.sites.example", NULL).base, "sites.example");
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("com\nexample\nsites.example\n", fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(brock_psl_load(path), 0);
    assert_string_equal(decide(e, "px.a.sites.example", NULL).base, "a.sites.example");
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_answers),
        cmocka_unit_test(test_answers_kept),
        cmocka_unit_test(test_session_kept),
        cmocka_unit_test(test_full_set_keeps_recent),
        cmocka_unit_test(test_user_action),
        cmocka_unit_test(test_learning_and_reset),
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_import),
        cmocka_unit_test(test_update),
        cmocka_unit_test_setup_teardown(test_reload, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_other_process, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_state_replaced, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_psl_load, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
