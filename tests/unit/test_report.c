/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The report channel: its path, the tokens that say which document a report comes from and
 * bind it to that document's host, and the reading of reports, good and bad. */
#include "test.h"

#include <string.h>

#include "proxy/limits.h"
#include "proxy/report.h"

/* A moment to give tokens at: any will do, as long as the checks are told one near it. */
#define NOW 1800000000

static struct report_keys keys;

static int setup(void **state)
{
    (void)state;
    return report_keys_init(&keys);
}

static int teardown(void **state)
{
    (void)state;
    report_keys_cleanup(&keys);
    return 0;
}

/* A token of a document of host, given at when, with flags, whose page is site. */
static void token_for(const char *host, unsigned flags, const char *site, int64_t when, char *out)
{
    struct report_doc d = {.flags = flags, .issued_s = when};

    snprintf(d.site, sizeof(d.site), "%s", site);
    assert_int_equal(report_token_make(&keys, host, &d, out), 0);
}

/* A report body for a top-level page of host with the given fields after the token (JSON
 * members, or ""). */
static char *body_for(const char *host, const char *rest, char *out, size_t size)
{
    char token[REPORT_TOKEN_MAX + 1];

    token_for(host, REPORT_DOC_TOP, host, NOW, token);
    snprintf(out, size, "{\"token\":\"%s\"%s%s}", token, *rest ? "," : "", rest);
    return out;
}

static int read_one(const char *host, const char *body, struct report *r, const char **why)
{
    return report_read(&keys, host, NOW, body, strlen(body), r, why);
}

static void test_path(void **state)
{
    struct report_keys other;
    const char *p = keys.path;

    (void)state;
    /* /.well-known/brock-<16 hex>/report */
    assert_int_equal(strlen(p), strlen("/.well-known/brock-") + 16 + strlen("/report"));
    assert_int_equal(strncmp(p, "/.well-known/brock-", 19), 0);
    assert_int_equal(strspn(p + 19, "0123456789abcdef"), 16);
    assert_true(report_is_path(&keys, p, strlen(p)));
    assert_false(report_is_path(&keys, p, strlen(p) - 1));
    assert_false(report_is_path(&keys, "/.well-known/brock-0000000000000000/report", 42) &&
                 strcmp(p, "/.well-known/brock-0000000000000000/report") != 0);
    assert_false(report_is_path(&keys, "/", 1));
    /* Another start draws other keys: another path. */
    assert_int_equal(report_keys_init(&other), 0);
    assert_string_not_equal(other.path, keys.path);
    report_keys_cleanup(&other);
}

/* A token says what brock saw of its document, and only brock can make one. */
static void test_token(void **state)
{
    char a[REPORT_TOKEN_MAX + 1], b[REPORT_TOKEN_MAX + 1];
    struct report_doc d = {.flags = REPORT_DOC_FRAME | REPORT_DOC_CROSS, .issued_s = NOW};
    struct report_doc got;
    struct report_keys other;
    const char *why = NULL;

    (void)state;
    snprintf(d.site, sizeof(d.site), "page.test");
    assert_int_equal(report_token_make(&keys, "frame.test", &d, a), 0);
    assert_int_equal(strspn(a, "0123456789abcdef"), strlen(a));
    assert_int_equal(strlen(a), 2 * (REPORT_TOKEN_HEAD + strlen("page.test") + REPORT_MAC_LEN));
    assert_int_equal(report_token_check(&keys, "frame.test", a, NOW + 5, &got, &why), 0);
    assert_int_equal(got.id, d.id);
    assert_int_equal(got.issued_s, NOW);
    assert_int_equal(got.flags, REPORT_DOC_FRAME | REPORT_DOC_CROSS);
    assert_string_equal(got.site, "page.test");
    /* Each document has an id of its own, drawn at random. */
    assert_int_equal(report_token_make(&keys, "frame.test", &d, b), 0);
    assert_string_not_equal(a, b);
    assert_int_not_equal(got.id, d.id);
    /* Another host's document, another start's keys: refused. */
    assert_int_equal(report_token_check(&keys, "page.test", a, NOW, &got, &why), -1);
    assert_non_null(strstr(why, "not one brock gave"));
    assert_int_equal(report_keys_init(&other), 0);
    assert_int_equal(report_token_check(&other, "frame.test", a, NOW, &got, &why), -1);
    report_keys_cleanup(&other);
    /* Expired, or given in the future. */
    assert_int_equal(
        report_token_check(&keys, "frame.test", a, NOW + LIMIT_REPORT_TOKEN_S, &got, &why), 0);
    assert_int_equal(
        report_token_check(&keys, "frame.test", a, NOW + LIMIT_REPORT_TOKEN_S + 1, &got, &why), -1);
    assert_non_null(strstr(why, "expired"));
    assert_int_equal(
        report_token_check(&keys, "frame.test", a, NOW - LIMIT_CLOCK_SKEW_S - 1, &got, &why), -1);
    /* What brock does not give: no flags, both kinds, a cross-site top-level page, no site. */
    static const unsigned bad_flags[] = {0, REPORT_DOC_TOP | REPORT_DOC_FRAME,
                                         REPORT_DOC_TOP | REPORT_DOC_CROSS, REPORT_DOC_CROSS, 8};
    for (size_t i = 0; i < sizeof(bad_flags) / sizeof(bad_flags[0]); i++) {
        d.flags = bad_flags[i];
        assert_int_equal(report_token_make(&keys, "frame.test", &d, b), -1);
    }
    d.flags = REPORT_DOC_TOP;
    d.site[0] = '\0';
    assert_int_equal(report_token_make(&keys, "frame.test", &d, b), -1);
    assert_int_equal(report_token_check(&keys, "frame.test", NULL, NOW, &got, &why), -1);
    assert_int_equal(report_token_check(&keys, "frame.test", "", NOW, &got, &why), -1);
}

/* Any change to a token breaks it: each digit changed in turn, the page's site swapped for
 * another (its length kept, or not), the flags, the time; cut, lengthened, in capitals. */
static void test_token_forged(void **state)
{
    char good[REPORT_TOKEN_MAX + 1], t[REPORT_TOKEN_MAX + 8], other[REPORT_TOKEN_MAX + 1];
    struct report_doc got;
    const char *why = NULL;
    size_t len;

    (void)state;
    token_for("frame.test", REPORT_DOC_FRAME, "page.test", NOW, good);
    len = strlen(good);
    for (size_t i = 0; i < len; i++) {
        memcpy(t, good, len + 1);
        t[i] = t[i] == '0' ? '1' : '0';
        if (report_token_check(&keys, "frame.test", t, NOW, &got, &why) != -1)
            fail_msg("a token with digit %zu changed was taken", i);
    }
    /* Another site of the same length in place of the page's, hex-encoded as brock does. */
    memcpy(t, good, len + 1);
    memcpy(t + 2 * REPORT_TOKEN_HEAD, "7061676f", 8); /* "pago" for "page" */
    assert_int_equal(report_token_check(&keys, "frame.test", t, NOW, &got, &why), -1);
    /* The same token's head with the MAC of another: a frame of another page. */
    token_for("frame.test", REPORT_DOC_FRAME, "evil.test", NOW, other);
    memcpy(t, other, 2 * REPORT_TOKEN_HEAD + 18);
    memcpy(t + 2 * REPORT_TOKEN_HEAD + 18, good + 2 * REPORT_TOKEN_HEAD + 18,
           2 * REPORT_MAC_LEN + 1);
    assert_int_equal(report_token_check(&keys, "frame.test", t, NOW, &got, &why), -1);
    /* Cut, lengthened, in capitals, not hex. */
    memcpy(t, good, len + 1);
    t[len - 2] = '\0';
    assert_int_equal(report_token_check(&keys, "frame.test", t, NOW, &got, &why), -1);
    snprintf(t, sizeof(t), "%s00", good);
    assert_int_equal(report_token_check(&keys, "frame.test", t, NOW, &got, &why), -1);
    for (size_t i = 0; i <= len; i++)
        t[i] = (char)(good[i] >= 'a' && good[i] <= 'f' ? good[i] - 32 : good[i]);
    assert_int_equal(report_token_check(&keys, "frame.test", t, NOW, &got, &why), -1);
    memcpy(t, good, len + 1);
    t[3] = 'g';
    assert_int_equal(report_token_check(&keys, "frame.test", t, NOW, &got, &why), -1);
    /* The good one still is. */
    assert_int_equal(report_token_check(&keys, "frame.test", good, NOW, &got, &why), 0);
}

static void test_good(void **state)
{
    char body[2048], token[REPORT_TOKEN_MAX + 1];
    struct report r;
    const char *why = NULL;

    (void)state;
    body_for("site.test",
             "\"kind\":\"canvas\",\"top\":false,\"ancestors\":[\"https://victim.test\"],"
             "\"script\":\"https://fp.test/fp.js?x=1\",\"writers\":[\"https://cdn.fp.test/a.js\"]",
             body, sizeof(body));
    assert_int_equal(read_one("site.test", body, &r, &why), 0);
    assert_int_equal(r.kind, REPORT_CANVAS);
    /* What the body says of where it sits is not believed: the token says it. */
    assert_int_equal(r.doc.flags, REPORT_DOC_TOP);
    assert_string_equal(r.doc.site, "site.test");
    assert_string_equal(r.script, "https://fp.test/fp.js?x=1");
    assert_int_equal(r.n_writers, 1);
    assert_string_equal(r.writers[0], "https://cdn.fp.test/a.js");
    report_cleanup(&r);

    token_for("frame.test", REPORT_DOC_FRAME | REPORT_DOC_CROSS, "top.test", NOW, token);
    snprintf(body, sizeof(body),
             "{\"token\":\"%s\",\"kind\":\"supercookie\","
             "\"items\":{\"frameId\":\"ABCDEF0123456789\",\"ab\":\"ab\"}}",
             token);
    assert_int_equal(read_one("frame.test", body, &r, &why), 0);
    assert_int_equal(r.kind, REPORT_SUPERCOOKIE);
    assert_string_equal(r.doc.site, "top.test");
    assert_int_equal(r.n_items, 2);
    assert_int_equal(r.items[0].name_len, 7);
    assert_int_equal(r.items[0].value_len, 16);
    report_cleanup(&r);
}

static void test_bad(void **state)
{
    static const char *const bad[] = {
        "\"kind\":\"canvas\"", /* no script */
        "\"kind\":\"canvas\",\"script\":5",
        "\"kind\":\"canvas\",\"script\":\"x\",\"writers\":\"x\"",
        "\"kind\":\"supercookie\"", /* no items */
        "\"kind\":\"supercookie\",\"items\":{\"a\":1}",
        "\"kind\":\"supercookie\",\"items\":[]",
        "\"kind\":\"cookies\"",                                     /* unknown kind */
        "\"kind\":\"frame\"",                                       /* no longer a kind */
        "\"top\":false",                                            /* no kind */
        "\"kind\":\"canvas\",\"script\":\"x\",\"kind\":\"canvas\"", /* duplicate */
    };
    char body[8192], items[6000];
    struct report r;
    const char *why = NULL;
    size_t n = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        body_for("site.test", bad[i], body, sizeof(body));
        why = NULL;
        if (read_one("site.test", body, &r, &why) != 400 || !why)
            fail_msg("case %zu (%s) was not refused with 400", i, bad[i]);
        report_cleanup(&r);
    }
    /* Not JSON, not an object, no token, a token that is not a string. */
    static const char *const broken[] = {"",
                                         "{",
                                         "[]",
                                         "\"x\"",
                                         "{\"kind\":\"canvas\"}",
                                         "{\"token\":5,\"kind\":\"canvas\"}",
                                         "{\"token\":\"a\\u0000b\"}"};
    for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
        assert_int_equal(read_one("site.test", broken[i], &r, &why), 400);
        report_cleanup(&r);
    }
    /* Too many items. */
    n = (size_t)snprintf(items, sizeof(items), "\"kind\":\"supercookie\",\"items\":{");
    for (int i = 0; i <= REPORT_ITEMS_MAX; i++)
        n += (size_t)snprintf(items + n, sizeof(items) - n, "%s\"k%d\":\"v\"", i ? "," : "", i);
    snprintf(items + n, sizeof(items) - n, "}");
    body_for("site.test", items, body, sizeof(body));
    assert_int_equal(read_one("site.test", body, &r, &why), 400);
    report_cleanup(&r);
}

static void test_token_for_another_host(void **state)
{
    char body[2048];
    struct report r;
    const char *why = NULL;

    (void)state;
    /* A page of evil.test can read its own token only: a report with it to another host, or
     * another host's report sent to evil.test, is refused. */
    body_for("evil.test", "\"kind\":\"canvas\",\"script\":\"https://x.test/a.js\"", body,
             sizeof(body));
    assert_int_equal(read_one("victim.test", body, &r, &why), 403);
    report_cleanup(&r);
    assert_int_equal(read_one("evil.test", body, &r, &why), 0);
    report_cleanup(&r);
    /* Read later than a page lives: refused. */
    assert_int_equal(report_read(&keys, "evil.test", NOW + LIMIT_REPORT_TOKEN_S + 1, body,
                                 strlen(body), &r, &why),
                     403);
    report_cleanup(&r);
}

/* What each kind of document may say: canvas fingerprinting from a page or another site's
 * frame, a supercookie from a frame; an allowance from a page or its own site's frame. */
static void test_kinds(void **state)
{
    static const struct {
        unsigned flags;
        int canvas, supercookie, allow;
    } cases[] = {
        {REPORT_DOC_TOP, 0, 403, 0},
        {REPORT_DOC_FRAME, 403, 0, 0},
        {REPORT_DOC_FRAME | REPORT_DOC_CROSS, 0, 0, 403},
    };
    struct report r;
    const char *why;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memset(&r, 0, sizeof(r));
        r.doc.flags = cases[i].flags;
        r.kind = REPORT_CANVAS;
        why = NULL;
        assert_int_equal(report_holds(&r, &why), cases[i].canvas);
        assert_true(!cases[i].canvas || why);
        r.kind = REPORT_SUPERCOOKIE;
        why = NULL;
        assert_int_equal(report_holds(&r, &why), cases[i].supercookie);
        assert_true(!cases[i].supercookie || why);
        why = NULL;
        assert_int_equal(report_may_allow(&r.doc, &why), cases[i].allow);
        assert_true(!cases[i].allow || why);
    }
}

/* The widget requests: the paths beside the report's, the token, the allowance's fields. */
static void test_widget_requests(void **state)
{
    struct report_widget w;
    const char *why = NULL;
    char body[2048], name[200];
    const char *dir_end = strrchr(keys.path, '/');
    size_t dir = (size_t)(dir_end - keys.path) + 1;

    (void)state;
    assert_int_equal(report_path_of(&keys, keys.path, strlen(keys.path)), REPORT_PATH_REPORT);
    assert_int_equal(strncmp(keys.widgets_path, keys.path, dir), 0);
    assert_string_equal(keys.widgets_path + dir, "widgets");
    assert_string_equal(keys.allow_path + dir, "allow");
    assert_int_equal(report_path_of(&keys, keys.widgets_path, strlen(keys.widgets_path)),
                     REPORT_PATH_WIDGETS);
    assert_int_equal(report_path_of(&keys, keys.allow_path, strlen(keys.allow_path)),
                     REPORT_PATH_ALLOW);
    assert_int_equal(report_path_of(&keys, keys.allow_path, strlen(keys.allow_path) - 1),
                     REPORT_PATH_NONE);
    assert_int_equal(report_path_of(&keys, "/allow", 6), REPORT_PATH_NONE);

    body_for("site.test", "", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "site.test", NOW, body,
                                        strlen(body), &w, &why),
                     0);
    assert_int_equal(w.doc.flags, REPORT_DOC_TOP);
    assert_string_equal(w.doc.site, "site.test");
    report_widget_cleanup(&w);
    /* What a body says of where it sits changes nothing. */
    body_for("site.test", "\"top\":false,\"ancestors\":[\"https://page.test\"]", body,
             sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "site.test", NOW, body,
                                        strlen(body), &w, &why),
                     0);
    assert_int_equal(w.doc.flags, REPORT_DOC_TOP);
    assert_string_equal(w.doc.site, "site.test");
    report_widget_cleanup(&w);
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "other.test", NOW, body,
                                        strlen(body), &w, &why),
                     403);
    report_widget_cleanup(&w);
    /* An allowance needs its widget and always. */
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", NOW, body,
                                        strlen(body), &w, &why),
                     400);
    assert_non_null(strstr(why, "widget"));
    report_widget_cleanup(&w);
    body_for("site.test", "\"widget\":\"YouTube\",\"always\":true", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", NOW, body,
                                        strlen(body), &w, &why),
                     0);
    assert_string_equal(w.widget, "YouTube");
    assert_int_equal(w.always, 1);
    report_widget_cleanup(&w);
    body_for("site.test", "\"widget\":\"\",\"always\":false", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", NOW, body,
                                        strlen(body), &w, &why),
                     400);
    report_widget_cleanup(&w);
    memset(name, 'x', sizeof(name));
    memcpy(name, "\"widget\":\"", 10);
    memcpy(name + 10 + 129, "\",\"always\":false", 16);
    name[10 + 129 + 16] = '\0';
    body_for("site.test", name, body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", NOW, body,
                                        strlen(body), &w, &why),
                     400);
    report_widget_cleanup(&w);
    body_for("site.test", "\"widget\":\"YouTube\",\"always\":1", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", NOW, body,
                                        strlen(body), &w, &why),
                     400);
    report_widget_cleanup(&w);
    assert_int_equal(
        report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", NOW, "{", 1, &w, &why), 400);
    report_widget_cleanup(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path),
        cmocka_unit_test(test_token),
        cmocka_unit_test(test_token_forged),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_widget_requests),
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_token_for_another_host),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
