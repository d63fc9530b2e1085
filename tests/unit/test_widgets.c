/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Social widgets over Privacy Badger's own socialwidgets.json: which a page replaces, what a
 * click allows, the widgetSiteAllowlist setting, and checkAction's first line. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"

static void test_pattern(void **state)
{
    (void)state;
    assert_true(brock_widget_pattern_match("www.youtube.com", "www.youtube.com"));
    assert_false(brock_widget_pattern_match("www.youtube.com", "youtube.com"));
    assert_false(brock_widget_pattern_match("youtube.com", "www.youtube.com"));
    assert_true(brock_widget_pattern_match("*.disqus.com", "a.disqus.com"));
    assert_true(brock_widget_pattern_match("*.disqus.com", "a.b.disqus.com"));
    assert_false(brock_widget_pattern_match("*.disqus.com", "disqus.com"));
    assert_false(brock_widget_pattern_match("*.disqus.com", "notdisqus.com"));
    assert_false(brock_widget_pattern_match(NULL, "a.com"));
    assert_false(brock_widget_pattern_match("a.com", NULL));
}

/* The names in a brock_widgets_blocked() answer, one string. */
static void blocked_names(struct brock_engine *e, const char *site, const char *const *allow,
                          size_t n, char *names, size_t size)
{
    char *text = NULL;
    json_t *root, *v;
    size_t i;
    int count = brock_widgets_blocked(e, site, allow, n, &text);

    assert_true(count >= 0);
    root = json_loads(text, 0, NULL);
    assert_true(json_is_array(root));
    assert_int_equal(json_array_size(root), (size_t)count);
    names[0] = '\0';
    json_array_foreach(root, i, v) {
        strncat(names, json_string_value(json_object_get(v, "name")), size - strlen(names) - 2);
        strncat(names, ";", size - strlen(names) - 1);
    }
    json_decref(root);
    brock_free(text);
}

static void test_blocked(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    static const char *const yt[] = {"youtube.com", "www.youtube.com", "www.youtube-nocookie.com"};
    char names[512], *text = NULL;
    json_t *root, *w;

    (void)state;
    blocked_names(e, "site.example", NULL, 0, names, sizeof(names));
    assert_string_equal(names, "");
    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_USER_BLOCK), 0);
    blocked_names(e, "site.example", NULL, 0, names, sizeof(names));
    assert_string_equal(names, "YouTube;");
    /* The widget's own site shows it as it is: first party. */
    blocked_names(e, "www.youtube.com", NULL, 0, names, sizeof(names));
    assert_string_equal(names, "");
    /* Allowed on the page for now: every blocked domain matched. */
    blocked_names(e, "site.example", yt, 3, names, sizeof(names));
    assert_string_equal(names, "");
    blocked_names(e, "site.example", yt, 1, names, sizeof(names));
    assert_string_equal(names, "YouTube;");
    /* What the page's script is given: its selectors as the file writes them. */
    assert_int_equal(brock_widgets_blocked(e, "Site.Example.", NULL, 0, &text), 1);
    root = json_loads(text, 0, NULL);
    w = json_array_get(root, 0);
    assert_int_equal(json_array_size(json_object_get(w, "selectors")), 0);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(w, "elements"), 0), "elm")),
                        "iframe");
    assert_int_equal(
        json_array_size(json_object_get(json_array_get(json_object_get(w, "elements"), 0), "urls")),
        8);
    json_decref(root);
    brock_free(text);
    /* A cookieblock is no block: the widget loads without cookies. */
    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_USER_COOKIEBLOCK), 0);
    blocked_names(e, "site.example", NULL, 0, names, sizeof(names));
    assert_string_equal(names, "");
    /* "*.disqus.com" stands for disqus.com; buttonSelectors are given as they are. */
    assert_int_equal(brock_set_user_action(e, "disqus.com", BROCK_USER_BLOCK), 0);
    blocked_names(e, "site.example", NULL, 0, names, sizeof(names));
    assert_string_equal(names, "Disqus;");
    /* Excluded by the user: never replaced. */
    assert_int_equal(
        json_array_append_new(json_object_get(e->settings, "widgetReplacementExceptions"),
                              json_string("Disqus")),
        0);
    blocked_names(e, "site.example", NULL, 0, names, sizeof(names));
    assert_string_equal(names, "");
    assert_int_equal(brock_widgets_blocked(e, "not a host", NULL, 0, &text), BROCK_EINVAL);
    assert_null(text);
    brock_engine_free(e);
}

/* The user's choices that a widget's allowance would override: for the name or above it, for
 * a name under a "*."-pattern, for every site or one; and the widget lists name them. */
static void test_user_choice(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    struct brock_user_choice u;
    char *text = NULL;
    json_t *root;

    (void)state;
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Facebook Like", &u), 0);
    assert_int_equal(brock_set_user_action(e, "facebook.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Facebook Like", &u), 1);
    assert_string_equal(u.domain, "facebook.com");
    assert_int_equal(u.action, BROCK_USER_BLOCK);
    assert_int_equal(u.site_only, 0);
    /* What the page is told: the widget, and the choice that keeps it blocked. */
    assert_int_equal(brock_widgets_blocked(e, "news.example", NULL, 0, &text), 5);
    root = json_loads(text, 0, NULL);
    for (size_t i = 0; i < json_array_size(root); i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(root, i), "chosen")),
                            "facebook.com");
    json_decref(root);
    brock_free(text);
    assert_int_equal(brock_set_user_action(e, "facebook.com", BROCK_USER_COOKIEBLOCK), 0);
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Facebook Like", &u), 1);
    assert_int_equal(u.action, BROCK_USER_COOKIEBLOCK);
    /* The user's allowance of the very name the widget loads beats a block above it. */
    assert_int_equal(brock_set_user_action(e, "facebook.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "www.facebook.com", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Facebook Like", &u), 0);
    assert_int_equal(brock_set_user_action(e, "www.facebook.com", BROCK_NOACTION), 0);
    assert_int_equal(brock_set_user_action(e, "facebook.com", BROCK_NOACTION), 0);
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Facebook Like", &u), 0);
    /* A choice for one site only holds there only. */
    assert_int_equal(brock_set_site_action(e, "news.example", "www.facebook.com", BROCK_USER_BLOCK),
                     0);
    assert_int_equal(brock_widget_user_choice(e, "www.news.example", "Facebook Like", &u), 1);
    assert_string_equal(u.domain, "www.facebook.com");
    assert_int_equal(u.site_only, 1);
    assert_int_equal(brock_widget_user_choice(e, "other.example", "Facebook Like", &u), 0);
    /* "*.disqus.com" lets every name under disqus.com load: a choice for one of them counts,
     * for every site or for this one. */
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Disqus", &u), 0);
    assert_int_equal(brock_set_user_action(e, "c.disqus.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Disqus", &u), 1);
    assert_string_equal(u.domain, "c.disqus.com");
    assert_int_equal(u.site_only, 0);
    assert_int_equal(brock_set_user_action(e, "c.disqus.com", BROCK_NOACTION), 0);
    assert_int_equal(
        brock_set_site_action(e, "news.example", "c.disqus.com", BROCK_USER_COOKIEBLOCK), 0);
    assert_int_equal(brock_widget_user_choice(e, "news.example", "Disqus", &u), 1);
    assert_string_equal(u.domain, "c.disqus.com");
    assert_int_equal(u.action, BROCK_USER_COOKIEBLOCK);
    assert_int_equal(u.site_only, 1);
    assert_int_equal(brock_widget_user_choice(e, "other.example", "Disqus", &u), 0);
    /* Not a widget that lets anything load, not a site. */
    assert_int_equal(brock_widget_user_choice(e, "news.example", "LinkedIn", &u), BROCK_ENOTFOUND);
    assert_int_equal(brock_widget_user_choice(e, "news.example", NULL, &u), BROCK_ENOTFOUND);
    assert_int_equal(brock_widget_user_choice(e, "not a host", "Disqus", &u), BROCK_EINVAL);
    brock_engine_free(e);
}

static int collect(void *arg, const char *pattern)
{
    strcat(arg, pattern);
    strcat(arg, ";");
    return 0;
}

static void test_unblock(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    char got[256] = "";

    (void)state;
    assert_int_equal(brock_widget_unblock_each(e, "Disqus", collect, got), 0);
    assert_string_equal(got, "*.disqus.com;disqus.com;");
    assert_int_equal(brock_widget_unblock_each(e, "No Such Widget", collect, got), BROCK_ENOTFOUND);
    /* LinkedIn's button allows nothing. */
    assert_int_equal(brock_widget_unblock_each(e, "LinkedIn", collect, got), BROCK_ENOTFOUND);
    assert_int_equal(brock_widget_unblock_each(e, NULL, collect, got), BROCK_ENOTFOUND);
    brock_engine_free(e);
}

static void decide(struct brock_engine *e, const char *url, const char *site, const char *frame,
                   const char *const *allow, size_t n, struct brock_decision *d)
{
    struct brock_request r = {.url = url,
                              .site = site,
                              .type = BROCK_RESOURCE_SUB_FRAME,
                              .frame_host = frame,
                              .widget_allow = allow,
                              .n_widget_allow = n};

    assert_int_equal(brock_decide_request(e, &r, d), 0);
}

static void test_decide(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    static const char *const yt[] = {"youtube.com", "www.youtube.com"};
    static const char *const dq[] = {"*.disqus.com"};
    struct brock_decision d;
    char why[256];

    (void)state;
    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "ytimg.com", BROCK_USER_BLOCK), 0);
    decide(e, "https://www.youtube.com/embed/x", "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    decide(e, "https://www.youtube.com/embed/x", "site.example", NULL, yt, 2, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(d.action, BROCK_NOACTION);
    brock_decision_explain(e, &d, why, sizeof(why));
    assert_non_null(strstr(why, "widget"));
    /* What the allowed frame loads is allowed by the frame's host. */
    decide(e, "https://i.ytimg.com/a.jpg", "site.example", "www.youtube.com", yt, 2, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    decide(e, "https://i.ytimg.com/a.jpg", "site.example", "other.example", yt, 2, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    /* "*." patterns: names under the rest only. */
    assert_int_equal(brock_set_user_action(e, "disqus.com", BROCK_USER_BLOCK), 0);
    decide(e, "https://c.disqus.com/embed.js", "site.example", NULL, dq, 1, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    decide(e, "https://disqus.com/embed.js", "site.example", NULL, dq, 1, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    /* First parties stay first parties. */
    decide(e, "https://www.youtube.com/", "www.youtube.com", NULL, yt, 2, &d);
    assert_int_equal(d.reason, BROCK_WHY_FIRST_PARTY);
    brock_engine_free(e);
}

static int collect_pairs(void *arg, const char *site, const char *name)
{
    strcat(arg, site);
    strcat(arg, "=");
    strcat(arg, name);
    strcat(arg, ";");
    return 0;
}

/* A temporary folder for the engine's state, removed by test_fixture_teardown. */
static int setup(void **state)
{
    *state = test_fixture_new("widgets");
    return 0;
}

static void test_site_allowlist(void **state)
{
    const struct test_fixture *f = *state;
    char got[512] = "";
    struct brock_engine *e;
    struct brock_decision d;

    e = test_engine_pb(f->state);
    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_widget_site_allow(e, "Site.Example", "YouTube", 1), 0);
    assert_int_equal(brock_widget_site_allow(e, "site.example", "YouTube", 1), 0);
    assert_int_equal(brock_widget_site_allow(e, "site.example", "Nope", 1), BROCK_ENOTFOUND);
    assert_int_equal(brock_widget_site_allow(e, "not a site", "YouTube", 1), BROCK_EINVAL);
    assert_int_equal(brock_widget_site_allow(e, "other.example", "YouTube", 0), BROCK_ENOTFOUND);
    assert_int_equal(brock_widget_site_allowlist_each(e, collect_pairs, got), 0);
    assert_string_equal(got, "site.example=YouTube;");
    decide(e, "https://www.youtube.com/embed/x", "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    /* Keyed by the exact host. */
    decide(e, "https://www.youtube.com/embed/x", "www.site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);

    /* It lasts: the setting is in the state. */
    e = test_engine_pb(f->state);
    got[0] = '\0';
    assert_int_equal(brock_widget_site_allowlist_each(e, collect_pairs, got), 0);
    assert_string_equal(got, "site.example=YouTube;");
    decide(e, "https://www.youtube.com/embed/x", "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    assert_int_equal(brock_widget_site_allow(e, "site.example", "YouTube", 0), 0);
    assert_int_equal(brock_widget_site_allow(e, "site.example", "YouTube", 0), BROCK_ENOTFOUND);
    decide(e, "https://www.youtube.com/embed/x", "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    got[0] = '\0';
    assert_int_equal(brock_widget_site_allowlist_each(e, collect_pairs, got), 0);
    assert_string_equal(got, "");
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);
}

/* The YouTube embed on a page of site, from client. */
static enum brock_reason client_decides(struct brock_engine *e, const char *client,
                                        const char *site)
{
    struct brock_request r = {.url = "https://www.youtube.com/embed/x",
                              .site = site,
                              .type = BROCK_RESOURCE_SUB_FRAME,
                              .client = client};
    struct brock_decision d;

    assert_int_equal(brock_decide_request(e, &r, &d), 0);
    return d.reason;
}

/* A widget one client always lets load on a site: for that client alone. */
static void test_client_allowlist(void **state)
{
    const struct test_fixture *f = *state;
    struct brock_engine *e = test_engine_pb(f->state);
    char *json = NULL, *text = NULL, everyone[64] = "";
    size_t len = 0;

    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_client_widgets_blocked(e, "kids", "site.example", NULL, 0, &json), 1);
    assert_non_null(strstr(json, "YouTube"));
    brock_free(json);
    assert_int_equal(brock_client_widget_site_allow(e, "kids", "Site.Example", "YouTube", 1), 0);
    assert_int_equal(brock_client_widget_site_allow(e, "kids", "site.example", "YouTube", 1), 0);
    assert_int_equal(brock_client_widget_site_allow(e, "kids", "site.example", "Nope", 1),
                     BROCK_ENOTFOUND);
    assert_int_equal(brock_client_widget_site_allow(e, "two words", "site.example", "YouTube", 1),
                     BROCK_EINVAL);
    assert_int_equal(brock_client_widget_site_allow(e, "kids", "not a site", "YouTube", 1),
                     BROCK_EINVAL);
    assert_int_equal(client_decides(e, "kids", "site.example"), BROCK_WHY_WIDGET);
    assert_int_equal(client_decides(e, "laptop", "site.example"), BROCK_WHY_ACTION);
    assert_int_equal(client_decides(e, NULL, "site.example"), BROCK_WHY_ACTION);
    /* Keyed by the exact host, as everyone's list is. */
    assert_int_equal(client_decides(e, "kids", "www.site.example"), BROCK_WHY_ACTION);
    /* Not replaced on that client's page; on another's it is. */
    assert_int_equal(brock_client_widgets_blocked(e, "kids", "site.example", NULL, 0, &json), 0);
    brock_free(json);
    assert_int_equal(brock_client_widgets_blocked(e, "laptop", "site.example", NULL, 0, &json), 1);
    brock_free(json);
    /* Everyone's list is left as it was. */
    assert_int_equal(brock_widget_site_allowlist_each(e, collect_pairs, everyone), 0);
    assert_string_equal(everyone, "");
    assert_int_equal(brock_client_settings_json(e, "kids", &text, &len), 0);
    assert_non_null(strstr(text, "\"widget_allowlist\":[{\"site\":\"site.example\","
                                 "\"widget\":\"YouTube\"}]"));
    brock_free(text);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);

    /* It lasts, and goes. */
    e = test_engine_pb(f->state);
    assert_int_equal(client_decides(e, "kids", "site.example"), BROCK_WHY_WIDGET);
    assert_int_equal(brock_client_widget_site_allow(e, "kids", "site.example", "YouTube", 0), 0);
    assert_int_equal(brock_client_widget_site_allow(e, "kids", "site.example", "YouTube", 0),
                     BROCK_ENOTFOUND);
    assert_int_equal(client_decides(e, "kids", "site.example"), BROCK_WHY_ACTION);
    brock_engine_free(e);
}

/* The allowlist a decision reads is read out of the settings once: each way it can change is
 * seen by the very next decision, after decisions that read it before. */
static void test_allowlist_change_seen(void **state)
{
    static const char import[] = "{\"action_map\": {}, \"snitch_map\": {}, \"settings_map\": "
                                 "{\"widgetSiteAllowlist\": {\"site.example\": [\"YouTube\"]}}}";
    const char *url = "https://www.youtube.com/embed/x";
    struct brock_decision d;
    struct brock_stats st;
    struct brock_engine *e = test_engine_pb(NULL);

    (void)state;
    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_USER_BLOCK), 0);
    decide(e, url, "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    /* A click that always allows the widget. */
    assert_int_equal(brock_widget_site_allow(e, "site.example", "YouTube", 1), 0);
    decide(e, url, "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    /* The frame's host counts too, against the same list. */
    decide(e, "https://tracker.example/x", "site.example", "www.youtube.com", NULL, 0, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    decide(e, url, "other.example", NULL, NULL, 0, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_int_equal(brock_widget_site_allow(e, "other.example", "YouTube", 1), 0);
    decide(e, url, "other.example", NULL, NULL, 0, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    /* Taken back. */
    assert_int_equal(brock_widget_site_allow(e, "site.example", "YouTube", 0), 0);
    decide(e, url, "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    decide(e, url, "other.example", NULL, NULL, 0, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    /* An import that adds to the setting. */
    assert_int_equal(brock_import(e, "import.json", import, sizeof(import) - 1, &st), 0);
    decide(e, url, "site.example", NULL, NULL, 0, &d);
    assert_int_equal(d.reason, BROCK_WHY_WIDGET);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pattern),
        cmocka_unit_test(test_blocked),
        cmocka_unit_test(test_unblock),
        cmocka_unit_test(test_user_choice),
        cmocka_unit_test(test_decide),
        cmocka_unit_test_setup_teardown(test_site_allowlist, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_client_allowlist, setup, test_fixture_teardown),
        cmocka_unit_test(test_allowlist_change_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
