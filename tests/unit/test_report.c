/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The report channel: its path, the tokens that bind a report to its document's host, and
 * the reading of reports, good and bad. */
#include "test.h"

#include <string.h>

#include "proxy/report.h"

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

/* A report body for host with the given fields after the token (JSON members, or ""). */
static char *body_for(const char *host, const char *rest, char *out, size_t size)
{
    char token[REPORT_TOKEN_LEN + 1];

    assert_int_equal(report_token(&keys, host, token), 0);
    snprintf(out, size, "{\"token\":\"%s\"%s%s}", token, *rest ? "," : "", rest);
    return out;
}

static int read_one(const char *host, const char *body, struct report *r, const char **why)
{
    return report_read(&keys, host, body, strlen(body), r, why);
}

static void test_path_and_token(void **state)
{
    struct report_keys other;
    char a[REPORT_TOKEN_LEN + 1], b[REPORT_TOKEN_LEN + 1], c[REPORT_TOKEN_LEN + 1];
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
    /* Another start draws other keys: another path, other tokens. */
    assert_int_equal(report_keys_init(&other), 0);
    assert_string_not_equal(other.path, keys.path);
    assert_int_equal(report_token(&keys, "site.test", a), 0);
    assert_int_equal(report_token(&keys, "other.test", b), 0);
    assert_int_equal(report_token(&other, "site.test", c), 0);
    assert_int_equal(strlen(a), REPORT_TOKEN_LEN);
    assert_int_equal(strspn(a, "0123456789abcdef"), REPORT_TOKEN_LEN);
    assert_string_not_equal(a, b);
    assert_string_not_equal(a, c);
    assert_int_equal(report_token(&keys, "site.test", b), 0);
    assert_string_equal(a, b);
    report_keys_cleanup(&other);
}

static void test_good(void **state)
{
    char body[1024];
    struct report r;
    const char *why = NULL;

    (void)state;
    body_for("site.test",
             "\"kind\":\"canvas\",\"top\":true,\"ancestors\":[],"
             "\"script\":\"https://fp.test/fp.js?x=1\",\"writers\":[\"https://cdn.fp.test/a.js\"]",
             body, sizeof(body));
    assert_int_equal(read_one("site.test", body, &r, &why), 0);
    assert_int_equal(r.kind, REPORT_CANVAS);
    assert_true(r.top);
    assert_null(r.ancestor);
    assert_string_equal(r.script, "https://fp.test/fp.js?x=1");
    assert_int_equal(r.n_writers, 1);
    assert_string_equal(r.writers[0], "https://cdn.fp.test/a.js");
    report_cleanup(&r);

    body_for("frame.test",
             "\"kind\":\"supercookie\",\"top\":false,"
             "\"ancestors\":[\"https://mid.test\",\"https://top.test\"],"
             "\"items\":{\"frameId\":\"ABCDEF0123456789\",\"ab\":\"ab\"}",
             body, sizeof(body));
    assert_int_equal(read_one("frame.test", body, &r, &why), 0);
    assert_int_equal(r.kind, REPORT_SUPERCOOKIE);
    assert_false(r.top);
    assert_string_equal(r.ancestor, "https://top.test");
    assert_int_equal(r.n_items, 2);
    assert_int_equal(r.items[0].name_len, 7);
    assert_int_equal(r.items[0].value_len, 16);
    report_cleanup(&r);

    body_for("frame.test", "\"kind\":\"frame\",\"top\":false", body, sizeof(body));
    assert_int_equal(read_one("frame.test", body, &r, &why), 0);
    assert_int_equal(r.kind, REPORT_FRAME);
    assert_null(r.ancestor);
    report_cleanup(&r);
}

static void test_bad(void **state)
{
    static const char *const bad[] = {
        "\"kind\":\"canvas\",\"top\":true",                       /* no script */
        "\"kind\":\"canvas\",\"top\":true,\"script\":5",
        "\"kind\":\"canvas\",\"top\":true,\"script\":\"x\",\"writers\":\"x\"",
        "\"kind\":\"supercookie\",\"top\":false",                 /* no items */
        "\"kind\":\"supercookie\",\"top\":false,\"items\":{\"a\":1}",
        "\"kind\":\"supercookie\",\"top\":false,\"items\":[]",
        "\"kind\":\"cookies\",\"top\":false",                     /* unknown kind */
        "\"top\":false",                                         /* no kind */
        "\"kind\":\"frame\"",                                    /* no top */
        "\"kind\":\"frame\",\"top\":1",
        "\"kind\":\"frame\",\"top\":false,\"ancestors\":[1]",
        "\"kind\":\"frame\",\"top\":false,\"kind\":\"frame\"",   /* duplicate */
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
    static const char *const broken[] = {"", "{", "[]", "\"x\"", "{\"kind\":\"frame\"}",
                                         "{\"token\":5,\"kind\":\"frame\",\"top\":true}",
                                         "{\"token\":\"a\\u0000b\"}"};
    for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
        assert_int_equal(read_one("site.test", broken[i], &r, &why), 400);
        report_cleanup(&r);
    }
    /* Too many items. */
    n = (size_t)snprintf(items, sizeof(items), "\"kind\":\"supercookie\",\"top\":false,\"items\":{");
    for (int i = 0; i <= REPORT_ITEMS_MAX; i++)
        n += (size_t)snprintf(items + n, sizeof(items) - n, "%s\"k%d\":\"v\"", i ? "," : "", i);
    snprintf(items + n, sizeof(items) - n, "}");
    body_for("site.test", items, body, sizeof(body));
    assert_int_equal(read_one("site.test", body, &r, &why), 400);
    report_cleanup(&r);
}

static void test_token_for_another_host(void **state)
{
    char body[1024], good[REPORT_TOKEN_LEN + 1];
    struct report r;
    const char *why = NULL;

    (void)state;
    /* A page of evil.test can read its own token only: a report with it to another host, or
     * another host's report sent to evil.test, is refused. */
    body_for("evil.test", "\"kind\":\"frame\",\"top\":true", body, sizeof(body));
    assert_int_equal(read_one("victim.test", body, &r, &why), 403);
    report_cleanup(&r);
    assert_int_equal(read_one("evil.test", body, &r, &why), 0);
    report_cleanup(&r);
    /* A token one digit off, cut short, or in capitals. */
    assert_int_equal(report_token(&keys, "site.test", good), 0);
    for (int v = 0; v < 3; v++) {
        char t[REPORT_TOKEN_LEN + 1];

        memcpy(t, good, sizeof(t));
        if (v == 0)
            t[5] = t[5] == '0' ? '1' : '0';
        else if (v == 1)
            t[REPORT_TOKEN_LEN - 1] = '\0';
        else
            for (char *p = t; *p; p++)
                *p = (char)(*p >= 'a' && *p <= 'f' ? *p - 32 : *p);
        snprintf(body, sizeof(body), "{\"token\":\"%s\",\"kind\":\"frame\",\"top\":true}", t);
        if (v == 2 && strcmp(t, good) == 0)
            continue; /* all digits: nothing to change */
        assert_int_equal(read_one("site.test", body, &r, &why), 403);
        report_cleanup(&r);
    }
}

/* The widget requests: the paths beside the report's, the token, the allowance's fields. */
static void test_widget_requests(void **state)
{
    struct report_widget w;
    const char *why = NULL;
    char body[1024], name[200];
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
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "site.test", body,
                                        strlen(body), &w, &why), 0);
    /* Saying nothing of where it sits, a document is a top-level page. */
    assert_int_equal(w.top, 1);
    assert_null(w.ancestor);
    report_widget_cleanup(&w);
    /* A frame names its top-level page: the last of its ancestors. */
    body_for("site.test", "\"top\":false,\"ancestors\":[\"https://mid.test\",\"https://page.test\"]",
             body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "site.test", body,
                                        strlen(body), &w, &why), 0);
    assert_int_equal(w.top, 0);
    assert_string_equal(w.ancestor, "https://page.test");
    report_widget_cleanup(&w);
    body_for("site.test", "\"top\":true,\"ancestors\":[\"https://page.test\"]", body,
             sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "site.test", body,
                                        strlen(body), &w, &why), 0);
    assert_int_equal(w.top, 1);
    assert_null(w.ancestor);
    report_widget_cleanup(&w);
    body_for("site.test", "\"top\":\"no\"", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "site.test", body,
                                        strlen(body), &w, &why), 400);
    report_widget_cleanup(&w);
    body_for("site.test", "\"top\":false,\"ancestors\":[1]", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "site.test", body,
                                        strlen(body), &w, &why), 400);
    report_widget_cleanup(&w);
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_WIDGETS, "other.test", body,
                                        strlen(body), &w, &why), 403);
    report_widget_cleanup(&w);
    /* An allowance needs its widget and always. */
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", body,
                                        strlen(body), &w, &why), 400);
    assert_non_null(strstr(why, "widget"));
    report_widget_cleanup(&w);
    body_for("site.test", "\"widget\":\"YouTube\",\"always\":true", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", body,
                                        strlen(body), &w, &why), 0);
    assert_string_equal(w.widget, "YouTube");
    assert_int_equal(w.always, 1);
    report_widget_cleanup(&w);
    body_for("site.test", "\"widget\":\"\",\"always\":false", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", body,
                                        strlen(body), &w, &why), 400);
    report_widget_cleanup(&w);
    memset(name, 'x', sizeof(name));
    memcpy(name, "\"widget\":\"", 10);
    memcpy(name + 10 + 129, "\",\"always\":false", 16);
    name[10 + 129 + 16] = '\0';
    body_for("site.test", name, body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", body,
                                        strlen(body), &w, &why), 400);
    report_widget_cleanup(&w);
    body_for("site.test", "\"widget\":\"YouTube\",\"always\":1", body, sizeof(body));
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", body,
                                        strlen(body), &w, &why), 400);
    report_widget_cleanup(&w);
    assert_int_equal(report_read_widget(&keys, REPORT_PATH_ALLOW, "site.test", "{", 1, &w, &why),
                     400);
    report_widget_cleanup(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_and_token),
        cmocka_unit_test(test_widget_requests),
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_token_for_another_host),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
