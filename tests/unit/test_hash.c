/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The keyed hash of names carried label by label (util/hash.h): the hashes of a name's parents
 * that come with its own are the ones each parent gets alone, for names of one label up to
 * many, labels of every length the hash reads differently; another seed gives other hashes;
 * a label's length is part of its hash; and a map of names finds each parent of a name by
 * those hashes (util/strmap.c). */
#include "test.h"

#include <string.h>

#include "util/hash.h"
#include "util/strmap.h"

#define MAX_LABELS 12

/* Label i of the test names: lengths 1 to 19, so that every branch of hash_mix() (under four
 * bytes, four to seven, eight, past eight) is met. */
static size_t label(unsigned i, char *out)
{
    size_t n = 1 + (i * 7) % 19;

    for (size_t j = 0; j < n; j++)
        out[j] = (char)('a' + (i + j) % 26);
    return n;
}

/* The name of labels 0..count-1, the last label rightmost; its length. */
static size_t name_of(unsigned count, char *out)
{
    size_t n = 0;

    for (unsigned i = count; i-- > 0;) {
        n += label(i, out + n);
        if (i)
            out[n++] = '.';
    }
    out[n] = '\0';
    return n;
}

static void test_tails_are_parents(void **state)
{
    const uint64_t seed = 0x0123456789abcdefULL;
    char name[BROCK_HOST_MAX];
    uint64_t hashes[MAX_LABELS];
    size_t offs[MAX_LABELS];

    (void)state;
    for (unsigned count = 1; count <= MAX_LABELS; count++) {
        size_t n = name_of(count, name), k;

        k = hash_name_tails(seed, name, n, hashes, offs, MAX_LABELS);
        assert_int_equal(k, count);
        assert_int_equal(offs[k - 1], 0);
        assert_true(hash_final(hashes[k - 1]) == hash_name(seed, name, n));
        for (size_t i = 0; i < k; i++) {
            const char *tail = name + offs[i];

            /* each tail starts a label, the shortest first */
            assert_true(offs[i] == 0 || name[offs[i] - 1] == '.');
            assert_true(i == 0 || offs[i] < offs[i - 1]);
            if (hash_final(hashes[i]) != hash_name(seed, tail, n - offs[i]))
                fail_msg("%s: the hash of %s carried from the right differs from its own", name,
                         tail);
        }
        /* fewer wanted: the shortest tails, the same hashes */
        if (count > 1) {
            uint64_t few[MAX_LABELS] = {0};
            size_t few_offs[MAX_LABELS] = {0};

            assert_int_equal(hash_name_tails(seed, name, n, few, few_offs, 1), 1);
            assert_true(few[0] == hashes[0] && few_offs[0] == offs[0]);
        }
    }
}

static void test_seed_matters(void **state)
{
    char name[BROCK_HOST_MAX];
    uint64_t a[MAX_LABELS], b[MAX_LABELS];
    size_t offs[MAX_LABELS];

    (void)state;
    for (unsigned count = 1; count <= MAX_LABELS; count++) {
        size_t n = name_of(count, name), k;

        k = hash_name_tails(1, name, n, a, offs, MAX_LABELS);
        assert_int_equal(hash_name_tails(2, name, n, b, offs, MAX_LABELS), k);
        for (size_t i = 0; i < k; i++)
            if (a[i] == b[i])
                fail_msg("%s: two seeds, one hash", name + offs[i]);
        assert_true(hash_name(1, name, n) != hash_name(2, name, n));
    }
}

/* Dots make labels, empty ones included; a trailing dot's empty tail is not one. */
static void test_odd_names(void **state)
{
    static const char empty[8] = "";
    uint64_t h[4];
    size_t offs[4];

    (void)state;
    assert_int_equal(hash_name_tails(7, "a..b", 4, h, offs, 4), 3);
    assert_int_equal(offs[0], 3);
    assert_int_equal(offs[1], 2);
    assert_int_equal(offs[2], 0);
    assert_true(hash_final(h[1]) == hash_name(7, ".b", 2));
    assert_int_equal(hash_name_tails(7, "a.b.", 4, h, offs, 4), 2);
    assert_int_equal(offs[0], 2);
    assert_true(hash_final(h[0]) == hash_name(7, "b.", 2));
    assert_int_equal(hash_name_tails(7, empty, 0, h, offs, 4), 0);
    /* a dot is not a byte of either label */
    assert_true(hash_name(7, "ab.c", 4) != hash_name(7, "a.bc", 4));
    assert_true(hash_name(7, "ab", 2) != hash_name(7, "a.b", 3));
    /* short labels carry their length: "a", "aa" and "aaa" read one byte twice or thrice */
    assert_true(hash_name(7, "aa", 2) != hash_name(7, "aaa", 3));
    assert_true(hash_name(7, "x.aa", 4) != hash_name(7, "x.aaa", 5));
    assert_true(hash_name(7, "abcd", 4) != hash_name(7, "abcdd", 5));
    assert_true(hash_name(7, ".", 1) != hash_name(7, "", 0));
}

static void test_map_finds_parents(void **state)
{
    struct strmap m;
    char name[BROCK_HOST_MAX];
    uint64_t hashes[MAX_LABELS];
    size_t offs[MAX_LABELS], n, k;
    static int vals[MAX_LABELS];

    (void)state;
    strmap_init_names(&m);
    n = name_of(MAX_LABELS, name);
    /* every other tail in the map, and a name that is in none */
    k = strmap_name_tails(&m, name, n, hashes, offs, MAX_LABELS);
    assert_int_equal(k, MAX_LABELS);
    for (size_t i = 0; i < k; i += 2)
        assert_int_equal(strmap_put(&m, name + offs[i], &vals[i]), 0);
    assert_int_equal(strmap_put(&m, "other.example", &vals[1]), 0);
    for (size_t i = 0; i < k; i++) {
        const char *tail = name + offs[i];
        void *want = i % 2 ? NULL : &vals[i];

        assert_ptr_equal(strmap_get_hashed(&m, tail, n - offs[i], hashes[i]), want);
        assert_ptr_equal(strmap_getn(&m, tail, n - offs[i]), want);
    }
    strmap_cleanup(&m, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tails_are_parents),
        cmocka_unit_test(test_seed_matters),
        cmocka_unit_test(test_odd_names),
        cmocka_unit_test(test_map_finds_parents),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
