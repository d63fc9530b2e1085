/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Link decoration learned (src/engine/linkdeco.c): a navigation from one site to another whose
 * query carries the first site's cookie value is evidence against the receiver, and its
 * parameter, once seen so from three sites, is taken out of navigations; the user keeps one or
 * forgets it; nothing is learned from a value of low entropy, between one site's hosts, with
 * learning off; and what was learned comes back at the next open.
 */
#include "test.h"

#include <stdio.h>
#include <string.h>

#include "brock.h"
#include "fixture.h"

#define UID "8f3a9c21d4e6b07a5c19"

/* A navigation from a page of site (its URL https://www.SITE/article) with the cookie
 * sid=UID to url. */
static int navigate(struct brock_engine *e, const char *site, const char *url,
                    struct brock_link_decoration *out)
{
    char from[256];
    struct brock_navigation n = {.url = url,
                                 .from = from,
                                 .cookies = "lang=en; sid=" UID,
                                 .user_agent = "Mozilla/5.0",
                                 .time_ms = 1000};

    snprintf(from, sizeof(from), "https://www.%s/article", site);
    return brock_navigation_observe(e, &n, out);
}

/* url as the proxy sends a navigation on, made from a page of from (NULL: none). */
static const char *cleaned_from(struct brock_engine *e, const char *url, const char *from,
                                enum brock_resource_type type, char out[BROCK_URL_MAX])
{
    struct brock_request r = {.url = url, .site = "dest.example", .type = type, .frame_host = from};
    struct brock_clean info;

    assert_true(brock_request_clean(e, &r, out, BROCK_URL_MAX, &info) >= 0);
    return out;
}

/* url as the proxy sends on a navigation from another site's page. */
static const char *cleaned(struct brock_engine *e, const char *url, enum brock_resource_type type,
                           char out[BROCK_URL_MAX])
{
    struct brock_request r = {
        .url = url, .site = "dest.example", .type = type, .frame_host = "www.elsewhere.example"};
    struct brock_clean info;

    assert_true(brock_request_clean(e, &r, out, BROCK_URL_MAX, &info) >= 0);
    return out;
}

static int on_param(void *arg, const struct brock_link_param *p)
{
    char *text = arg;
    size_t used = strlen(text);

    snprintf(text + used, 512 - used, "%s%s:%s%s:%zu", used ? " " : "", p->name,
             p->kept      ? "kept"
             : p->learned ? "learned"
                          : "seen",
             "", p->n_sites);
    return 0;
}

/* The first piece of evidence of domain's base, as "site kind param cookie". */
static int on_tracker(void *arg, const struct brock_tracker *t)
{
    char *text = arg;

    if (t->n_evidence)
        snprintf(text, 256, "%s %s %s %s", t->evidence[0].site,
                 brock_evidence_kind_name(t->evidence[0].kind), t->evidence[0].param,
                 t->evidence[0].detail);
    return 0;
}

static const char *params_text(struct brock_engine *e, char text[512])
{
    text[0] = '\0';
    assert_int_equal(brock_link_params_each(e, on_param, text), 0);
    return text;
}

static void test_learned_from_three_sites(void **state)
{
    struct test_fixture *f = test_fixture_new("linkdeco");
    struct brock_engine *e = test_fixture_open(f, NULL, 1);
    struct brock_link_decoration got;
    char out[BROCK_URL_MAX], text[512], *json = NULL;
    size_t len = 0;
    const char *dest = "https://shop.dest.example/landing?xid=" UID "&page=2";

    (void)state;
    assert_int_equal(navigate(e, "news-a.example", dest, &got), 0);
    assert_true(got.found);
    assert_string_equal(got.param, "xid");
    assert_string_equal(got.cookie, "sid");
    assert_string_equal(got.tracker, "dest.example");
    assert_true(got.recorded);
    assert_false(got.param_learned);
    text[0] = '\0';
    assert_int_equal(brock_tracker_get(e, "dest.example", on_tracker, text), 0);
    assert_string_equal(text, "news-a.example linkdecoration xid sid");
    /* Not yet learned: navigations keep it. */
    assert_string_equal(cleaned(e, dest, BROCK_RESOURCE_MAIN_FRAME, out), dest);

    /* The same site again adds nothing. */
    assert_int_equal(navigate(e, "news-a.example", dest, &got), 0);
    assert_true(got.found);
    assert_false(got.recorded);
    assert_string_equal(params_text(e, text), "xid:seen:1");
    assert_int_equal(navigate(e, "blog-b.example", dest, &got), 0);
    assert_int_equal(navigate(e, "forum-c.example", dest, &got), 0);
    assert_true(got.param_learned);
    assert_string_equal(params_text(e, text), "xid:learned:3");
    assert_string_equal(cleaned(e, dest, BROCK_RESOURCE_MAIN_FRAME, out),
                        "https://shop.dest.example/landing?page=2");
    assert_string_equal(cleaned(e, "https://other.example/?xid=1", BROCK_RESOURCE_MAIN_FRAME, out),
                        "https://other.example/");
    /* Only from navigations. */
    assert_string_equal(cleaned(e, dest, BROCK_RESOURCE_IMAGE, out), dest);
    /* Only from another site's page: a typed address, or a site's own form or link, keeps it
     * (a page cannot have brock take a name its forms need out of every site). */
    assert_string_equal(cleaned_from(e, dest, NULL, BROCK_RESOURCE_MAIN_FRAME, out), dest);
    assert_string_equal(cleaned_from(e, dest, "www.dest.example", BROCK_RESOURCE_MAIN_FRAME, out),
                        dest);
    assert_string_equal(cleaned_from(e, dest, "news-a.example", BROCK_RESOURCE_MAIN_FRAME, out),
                        "https://shop.dest.example/landing?page=2");
    assert_int_equal(brock_link_params_json(e, &json, &len), 0);
    assert_non_null(strstr(json, "\"name\":\"xid\""));
    assert_non_null(strstr(json, "\"learned\":true"));
    brock_free(json);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    /* It comes back at the next open; the user keeps it, then forgets it. */
    e = test_fixture_open(f, NULL, 1);
    assert_string_equal(params_text(e, text), "xid:learned:3");
    assert_int_equal(brock_link_param_keep(e, "xid", 1), 0);
    assert_string_equal(cleaned(e, dest, BROCK_RESOURCE_MAIN_FRAME, out), dest);
    assert_int_equal(brock_link_param_keep(e, "xid", 0), 0);
    assert_string_equal(cleaned(e, dest, BROCK_RESOURCE_MAIN_FRAME, out),
                        "https://shop.dest.example/landing?page=2");
    assert_int_equal(brock_link_param_forget(e, "xid"), 0);
    assert_int_equal(brock_link_param_forget(e, "xid"), BROCK_ENOTFOUND);
    assert_string_equal(cleaned(e, dest, BROCK_RESOURCE_MAIN_FRAME, out), dest);
    assert_int_equal(brock_link_param_keep(e, "a=b", 1), BROCK_EINVAL);
    assert_int_equal(brock_link_param_keep(e, "", 1), BROCK_EINVAL);
    assert_int_equal(brock_link_param_keep(e, "ref", 1), 0);
    assert_string_equal(params_text(e, text), "ref:kept:0");
    /* The evidence came back with its parameter. */
    text[0] = '\0';
    assert_int_equal(brock_tracker_get(e, "dest.example", on_tracker, text), 0);
    assert_string_equal(text, "news-a.example linkdecoration xid sid");
    /* Brock's own: never exported. */
    assert_int_equal(brock_export(e, "pb", &json, &len), 0);
    assert_null(strstr(json, "brockLinkParams"));
    brock_free(json);
    brock_engine_free(e);
    assert_int_equal(test_fixture_free(f), 0);
}

static void test_not_evidence(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_config cfg = {.no_seed = 1, .no_learn = 1};
    struct brock_link_decoration got;
    char text[512];

    (void)state;
    /* A value of low entropy, another parameter's value, one site's own hosts, no query. */
    assert_int_equal(navigate(e, "a.example", "https://b.example/?lang=en", &got), 0);
    assert_false(got.found);
    assert_int_equal(navigate(e, "a.example", "https://b.example/?q=kittens+and+cats", &got), 0);
    assert_false(got.found);
    assert_int_equal(navigate(e, "a.example", "https://shop.a.example/?x=" UID, &got), 0);
    assert_false(got.found);
    assert_int_equal(navigate(e, "a.example", "https://b.example/" UID, &got), 0);
    assert_false(got.found);
    assert_string_equal(params_text(e, text), "");
    assert_int_equal(brock_navigation_observe(e, NULL, &got), BROCK_EINVAL);
    brock_engine_free(e);

    e = test_engine_with(&cfg);
    assert_int_equal(navigate(e, "a.example", "https://b.example/?xid=" UID, &got), 0);
    assert_false(got.found);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_learned_from_three_sites),
        cmocka_unit_test(test_not_evidence),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
