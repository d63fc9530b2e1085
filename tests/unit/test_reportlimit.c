/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The limits of what pages' scripts say: per document, per client and minute, each
 * (document, host) pair once, and the tables bounded, the least recently used out. */
#include "test.h"

#include <stdio.h>
#include <string.h>

#include "proxy/limits.h"
#include "proxy/reportlimit.h"

static void test_per_document(void **state)
{
    struct report_limits l;

    (void)state;
    report_limits_init(&l);
    /* A question counts toward the document only; the document's limit holds for all. */
    for (int i = 0; i < LIMIT_REPORT_DOC; i++)
        assert_int_equal(report_limits_take(&l, 7, "c", i % 2, 1000), REPORT_LIMIT_OK);
    assert_int_equal(report_limits_take(&l, 7, "c", 1, 1000), REPORT_LIMIT_DOC);
    assert_int_equal(report_limits_take(&l, 7, "c", 0, 999999), REPORT_LIMIT_DOC);
    /* Another document of the same client goes on. */
    assert_int_equal(report_limits_take(&l, 8, "c", 1, 1000), REPORT_LIMIT_OK);
    report_limits_cleanup(&l);
    report_limits_cleanup(&l);
}

static void test_per_client(void **state)
{
    struct report_limits l;
    uint64_t doc = 1;

    (void)state;
    report_limits_init(&l);
    /* Many documents of one client: LIMIT_REPORT_CLIENT reports a minute, then 429 until the
     * minute is over; questions are not counted. */
    for (int i = 0; i < LIMIT_REPORT_CLIENT; i++)
        assert_int_equal(report_limits_take(&l, doc++, "c", 1, 10000 + i), REPORT_LIMIT_OK);
    assert_int_equal(report_limits_take(&l, doc++, "c", 1, 69999), REPORT_LIMIT_CLIENT);
    assert_int_equal(report_limits_take(&l, doc++, "c", 0, 69999), REPORT_LIMIT_OK);
    assert_int_equal(report_limits_take(&l, doc++, "d", 1, 69999), REPORT_LIMIT_OK);
    assert_int_equal(report_limits_take(&l, doc++, "c", 1, 70000), REPORT_LIMIT_OK);
    /* A report refused for its document's sake counts toward nothing else: the client's
     * other documents go on. */
    for (int i = 0; i < 2 * LIMIT_REPORT_DOC; i++)
        assert_int_equal(report_limits_take(&l, 5000, "c", 1, 70000),
                         i < LIMIT_REPORT_DOC ? REPORT_LIMIT_OK : REPORT_LIMIT_DOC);
    assert_int_equal(report_limits_take(&l, 5001, "c", 1, 70000), REPORT_LIMIT_OK);
    report_limits_cleanup(&l);
}

static void test_taught_once(void **state)
{
    struct report_limits l;

    (void)state;
    report_limits_init(&l);
    /* Not in the table: nothing to teach. */
    assert_false(report_limits_first(&l, 1, "fp.test"));
    assert_int_equal(report_limits_take(&l, 1, "c", 1, 0), REPORT_LIMIT_OK);
    assert_true(report_limits_first(&l, 1, "fp.test"));
    assert_false(report_limits_first(&l, 1, "fp.test"));
    assert_true(report_limits_first(&l, 1, "other.test"));
    assert_int_equal(report_limits_take(&l, 2, "c", 1, 0), REPORT_LIMIT_OK);
    assert_true(report_limits_first(&l, 2, "fp.test"));
    report_limits_cleanup(&l);
}

static void test_bounded(void **state)
{
    struct report_limits l;
    char addr[32];

    (void)state;
    report_limits_init(&l);
    assert_int_equal(report_limits_take(&l, 1, "c", 1, 0), REPORT_LIMIT_OK);
    assert_true(report_limits_first(&l, 1, "fp.test"));
    /* Document 1 is used again and again while LIMIT_REPORT_DOCS others come: it stays. */
    for (uint64_t i = 0; i < LIMIT_REPORT_DOCS; i++) {
        assert_int_equal(report_limits_take(&l, 100 + i, "c", 0, 0), REPORT_LIMIT_OK);
        if (i % 64 == 0)
            assert_int_equal(report_limits_take(&l, 1, "c", 0, 0), REPORT_LIMIT_OK);
    }
    assert_false(report_limits_first(&l, 1, "fp.test"));
    /* The oldest of the others was let go: it starts again. */
    assert_int_equal(report_limits_take(&l, 101, "c", 0, 0), REPORT_LIMIT_OK);
    assert_true(report_limits_first(&l, 101, "fp.test"));
    /* As many clients as there are slots and more: each new one is counted from nothing. */
    for (int i = 0; i < 2 * LIMIT_REPORT_CLIENTS; i++) {
        snprintf(addr, sizeof(addr), "10.0.%d.%d", i / 256, i % 256);
        assert_int_equal(report_limits_take(&l, 5000 + (uint64_t)i, addr, 1, 0), REPORT_LIMIT_OK);
    }
    report_limits_cleanup(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_document),
        cmocka_unit_test(test_per_client),
        cmocka_unit_test(test_taught_once),
        cmocka_unit_test(test_bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
