/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The golden seed test: Privacy Badger's seed loaded as Privacy Badger loads it (section 10)
 * gives exactly the state Privacy Badger reaches, when base domains come from Privacy
 * Badger's own copy of the Public Suffix List (data/privacybadger/public-suffix-list.json,
 * written out in the list's own format for libpsl). */
#include "test.h"

#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "engine/engine.h"

static char psl_path[] = "/tmp/brock-test-psl-XXXXXX";

/* Privacy Badger's map: suffix → 1 (rule), 2 (wildcard, stored without "*."), 0 (exception). */
static int setup(void **state)
{
    json_error_t jerr;
    json_t *map = json_load_file(test_data("privacybadger/public-suffix-list.json"), 0, &jerr);
    const char *key;
    json_t *v;
    FILE *f;
    int fd;

    (void)state;
    if (!map) {
        fprintf(stderr, "# %s\n", jerr.text);
        return -1;
    }
    fd = mkstemp(psl_path);
    if (fd < 0 || !(f = fdopen(fd, "w")))
        return -1;
    json_object_foreach(map, key, v) {
        json_int_t t = json_integer_value(v);
        fprintf(f, "%s%s\n", t == 2 ? "*." : t == 0 ? "!" : "", key);
    }
    fclose(f);
    json_decref(map);
    return brock_psl_load(psl_path) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    unlink(psl_path);
    return 0;
}

static const char *pb_dir(void)
{
    static char dir[4096];

    snprintf(dir, sizeof(dir), "%s", test_data("privacybadger"));
    return dir;
}

static enum brock_action best(struct brock_engine *e, const char *d)
{
    return brock__best_action(e, d, NULL);
}

static void test_pb_list_loaded(void **state)
{
    char base[BROCK_HOST_MAX];

    (void)state;
    /* a suffix newer than Debian's list, present in Privacy Badger's */
    assert_true(brock_base_domain("x.us-central1.run.app", base) > 0);
    assert_string_equal(base, "x.us-central1.run.app");
    assert_int_equal(brock_psl_load("/nonexistent/list.dat"), BROCK_EIO);
}

static void test_seed_counts(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, pb_dir(), 0);
    size_t counts[BROCK_ACTION_COUNT], entries;

    (void)state;
    brock_counts(e, counts, &entries);
    /* The state Privacy Badger itself reaches from this seed (PRIVACY-BADGER.md section 10). */
    assert_int_equal(entries, 10233);
    assert_int_equal(counts[BROCK_ALLOW], 6370);
    assert_int_equal(counts[BROCK_BLOCK], 3020);
    assert_int_equal(counts[BROCK_COOKIEBLOCK], 826);
    assert_int_equal(counts[BROCK_DNT], 17);
    /* 9641 trackers in the seed; the merge drops the three whose every site is first party to
     * them (dpgmedia.nl, ihg.com and raspaid.pl: same owner). */
    assert_int_equal(e->snitches.len, 9641 - 3);
    assert_null(brock__snitch_get(e, "ihg.com"));

    assert_int_equal(best(e, "doubleclick.net"), BROCK_BLOCK);
    assert_int_equal(best(e, "stats.g.doubleclick.net"), BROCK_BLOCK);
    assert_int_equal(best(e, "youtube.com"), BROCK_COOKIEBLOCK);
    assert_int_equal(best(e, "www.youtube.com"), BROCK_COOKIEBLOCK);
    assert_int_equal(best(e, "cdn-client.medium.com"), BROCK_DNT);
    assert_int_equal(best(e, "trackersimulator.org"), BROCK_BLOCK);
    assert_int_equal(best(e, "eviltracker.net"), BROCK_BLOCK);
    /* an allow entry comes in only with its base in the snitch map */
    assert_int_equal(best(e, "021east.com"), BROCK_ALLOW);
    assert_null(brock__action_get(e, "01net.com"));
    assert_int_equal(best(e, "never-seen-anywhere.example"), BROCK_NOACTION);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pb_list_loaded),
        cmocka_unit_test(test_seed_counts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
