/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The temporary widget allowances: per client and page, for LIMIT_WIDGET_ALLOW_MS, bounded. */
#include "test.h"

#include <stdio.h>
#include <string.h>

#include "proxy/limits.h"
#include "proxy/widgetallow.h"

static void test_scoped_and_timed(void **state)
{
    struct widget_allows m;
    const char *got[8];

    (void)state;
    widget_allows_init(&m);
    assert_int_equal(widget_allows_get(&m, "127.0.0.1", "site.test", 0, got, 8), 0);
    assert_int_equal(widget_allows_add(&m, "127.0.0.1", "site.test", "www.youtube.com", 1000), 0);
    assert_int_equal(widget_allows_add(&m, "127.0.0.1", "site.test", "youtube.com", 1000), 0);
    assert_int_equal(widget_allows_get(&m, "127.0.0.1", "site.test", 2000, got, 8), 2);
    assert_string_equal(got[0], "www.youtube.com");
    assert_string_equal(got[1], "youtube.com");
    /* Another page, another client: nothing. */
    assert_int_equal(widget_allows_get(&m, "127.0.0.1", "other.test", 2000, got, 8), 0);
    assert_int_equal(widget_allows_get(&m, "127.0.0.2", "site.test", 2000, got, 8), 0);
    /* At most max given. */
    assert_int_equal(widget_allows_get(&m, "127.0.0.1", "site.test", 2000, got, 1), 1);
    /* Over with time; a new click renews one in its slot. */
    assert_int_equal(
        widget_allows_get(&m, "127.0.0.1", "site.test", 1000 + LIMIT_WIDGET_ALLOW_MS, got, 8), 0);
    assert_int_equal(
        widget_allows_add(&m, "127.0.0.1", "site.test", "youtube.com", LIMIT_WIDGET_ALLOW_MS), 0);
    assert_int_equal(
        widget_allows_get(&m, "127.0.0.1", "site.test", 1000 + LIMIT_WIDGET_ALLOW_MS, got, 8), 1);
    assert_string_equal(got[0], "youtube.com");
    widget_allows_cleanup(&m);
    widget_allows_cleanup(&m);
}

static void test_bounded(void **state)
{
    struct widget_allows m;
    const char *got[LIMIT_WIDGET_ALLOWS];
    char pattern[64];

    (void)state;
    widget_allows_init(&m);
    for (int i = 0; i < LIMIT_WIDGET_ALLOWS + 10; i++) {
        snprintf(pattern, sizeof(pattern), "w%d.example", i);
        assert_int_equal(widget_allows_add(&m, "c", "s.test", pattern, 0), 0);
    }
    /* The oldest went first. */
    assert_int_equal(widget_allows_get(&m, "c", "s.test", 1, got, LIMIT_WIDGET_ALLOWS),
                     LIMIT_WIDGET_ALLOWS);
    for (size_t i = 0; i < LIMIT_WIDGET_ALLOWS; i++)
        assert_int_not_equal(strcmp(got[i], "w0.example"), 0);
    widget_allows_cleanup(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scoped_and_timed),
        cmocka_unit_test(test_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
