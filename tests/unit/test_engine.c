/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The engine's lifetime file: the version, and the words for each error code. */
#include "test.h"

#include <string.h>

#include "brock.h"

static const int codes[] = {
    BROCK_ENOMEM, BROCK_EINVAL, BROCK_EIO,       BROCK_EFORMAT,
    BROCK_ESTORE, BROCK_ENOENT, BROCK_ENOTFOUND,
};

static void test_version(void **state)
{
    (void)state;
    assert_string_equal(brock_version(), BROCK_VERSION);
}

/* One meaning per code: each has its own words, and none is taken for an unknown value. */
static void test_strerror(void **state)
{
    const size_t n = sizeof(codes) / sizeof(codes[0]);
    const char *unknown = brock_strerror(-1000);

    (void)state;
    assert_non_null(unknown);
    assert_string_equal(brock_strerror(1), unknown);
    assert_string_not_equal(brock_strerror(0), unknown);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(brock_strerror(codes[i]));
        assert_string_not_equal(brock_strerror(codes[i]), unknown);
        assert_string_not_equal(brock_strerror(codes[i]), brock_strerror(0));
        for (size_t j = 0; j < i; j++) {
            assert_int_not_equal(codes[i], codes[j]);
            assert_string_not_equal(brock_strerror(codes[i]), brock_strerror(codes[j]));
        }
    }
}

/* A site never seen is not a missing file: the two answers are told apart. */
static void test_not_found(void **state)
{
    struct brock_config cfg = {0};
    struct brock_engine *e = test_engine_with(&cfg);
    char err[512];

    (void)state;
    assert_int_equal(brock_site_trackers(e, "never.example", NULL, NULL), BROCK_ENOTFOUND);
    brock_engine_free(e);

    cfg.data_dir = "/nonexistent/privacy-badger";
    assert_int_equal(brock_engine_open(&cfg, &e, err, sizeof(err)), BROCK_ENOENT);
    assert_null(e);
    assert_non_null(strstr(err, "/nonexistent/privacy-badger"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_not_found),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
