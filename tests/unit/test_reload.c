/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading Privacy Badger's data again while running (brock_engine_reload): a changed
 * cookieblock list applied by an update's rules and followed by the state, broken or missing
 * files changing nothing, an update's configuration winning as at open, hashes only added,
 * and every allocation failing in turn. */
#include "test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "util/alloc.h"
#include "util/file.h"
#include "failalloc.h"

#define NOW ((int64_t)1700000000000)

/* The shared data folder's files, linked, but for pbconfig.json, which the test writes. */
static int setup(void **state)
{
    struct test_fixture *f = test_fixture_new("reload");

    test_link_data(f->data, (const char *const[]){"pbconfig.json", NULL});
    *state = f;
    return 0;
}

/* Writes text to the data folder's file name, in place of the shared one. */
static void puts_data(const struct test_fixture *f, const char *name, const char *text)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%s", f->data, name);
    unlink(path);
    assert_int_equal(file_write_atomic(path, text, strlen(text), 0600), 0);
}

/* Privacy Badger's pbconfig.json with add (if not NULL) appended to the cookieblock list. */
static void write_pbconfig(const struct test_fixture *f, const char *add)
{
    json_error_t jerr;
    json_t *root = json_load_file(test_data("privacybadger/pbconfig.json"), 0, &jerr);
    char *text;

    assert_non_null(root);
    if (add)
        assert_int_equal(
            json_array_append_new(json_object_get(root, "yellowlist"), json_string(add)), 0);
    text = json_dumps(root, JSON_COMPACT);
    assert_non_null(text);
    json_decref(root);
    puts_data(f, "pbconfig.json", text);
    free(text);
}

static enum brock_effect effect_on(struct brock_engine *e, const char *host, const char *site)
{
    struct brock_decision d;

    assert_int_equal(brock_decide(e, host, site, &d), 0);
    return d.effect;
}

static enum brock_effect effect(struct brock_engine *e, const char *host)
{
    return effect_on(e, host, "site.example");
}

/* A blocked tracker, one of whose subdomains the tests put on the cookieblock list. */
static void learn_tracker(struct brock_engine *e)
{
    static const char *const names[] = {"trk.example", "cdn.trk.example"};

    for (size_t i = 0; i < 2; i++) {
        struct action_entry *a = brock__action_ensure(e, names[i]);

        assert_non_null(a);
        a->heur = BROCK_BLOCK;
        brock__action_touch(e, a, BROCK__DIRTY_HEUR);
    }
}

static void test_list_changed(void **state)
{
    struct test_fixture *f = *state;
    struct brock_update_stats st;
    struct brock_engine *e;
    size_t n0;

    write_pbconfig(f, NULL);
    e = test_fixture_open(f, f->data, 1);
    n0 = e->lists.yellow_order.n;
    learn_tracker(e);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
    /* Nothing changed: nothing to apply, nothing to record. */
    assert_int_equal(brock_sync(e), 0);
    assert_int_equal(brock_engine_reload(e, &st), 0);
    assert_int_equal(st.added, 0);
    assert_int_equal(st.removed, 0);
    assert_int_equal(st.yellow, n0);
    assert_int_equal(e->pbconfig_dirty, 0);

    write_pbconfig(f, "cdn.trk.example");
    assert_int_equal(brock_engine_reload(e, &st), 0);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.removed, 0);
    assert_int_equal(st.yellow, n0 + 1);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(effect(e, "www.trk.example"), BROCK_DENY);
    assert_int_equal(brock_update_time(e), 0);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);

    /* The state follows the list it was reloaded to: opening on it again changes nothing. */
    e = test_fixture_open(f, f->data, 1);
    assert_int_equal(e->pbconfig_dirty, 0);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);

    /* Taken off the list again: blocked again. */
    write_pbconfig(f, NULL);
    assert_int_equal(brock_engine_reload(e, &st), 0);
    assert_int_equal(st.removed, 1);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
    brock_engine_free(e);
}

/* Each broken data folder is refused whole, naming the file, and the lists in force stay. */
static void test_broken_changes_nothing(void **state)
{
    static const struct {
        const char *file, *text;
    } broken[] = {
        {"pbconfig.json", "{\"yellowlist\": [\"cdn.trk.example\""},
        {"pbconfig.json", "{\"yellowlist\": [\"cdn.trk.example\", \"Not A Domain\"]}"},
        {"pbconfig.json", "{\"yellowlist\": [\"cdn.trk.example\"], \"sitefixes\": {\"gpc\": 1}}"},
        {"multi-domain-first-parties.json", "[[\"a.example\", 7]]"},
        {"dnt-policies.json", "{\"v1\": \"not a hash\"}"},
        {"cname_domains.json", "{\"a.example\": 1}"},
    };
    struct test_fixture *f = *state;
    struct brock_engine *e;
    size_t n0, h0;
    char path[256];

    write_pbconfig(f, NULL);
    e = test_fixture_open(f, f->data, 1);
    learn_tracker(e);
    assert_int_equal(brock_sync(e), 0);
    n0 = e->lists.yellow_order.n;
    h0 = e->lists.dnt_hashes.len;
    for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
        char keep[sizeof(path) + 8];

        snprintf(path, sizeof(path), "%s/%s", f->data, broken[i].file);
        snprintf(keep, sizeof(keep), "%s.keep", path);
        assert_int_equal(rename(path, keep), 0);
        puts_data(f, broken[i].file, broken[i].text);
        e->errmsg[0] = '\0';
        if (brock_engine_reload(e, NULL) != BROCK_EFORMAT)
            fail_msg("reloaded a broken %s: %s", broken[i].file, broken[i].text);
        assert_non_null(strstr(brock_engine_errmsg(e), broken[i].file));
        assert_int_equal(e->lists.yellow_order.n, n0);
        assert_int_equal(e->lists.dnt_hashes.len, h0);
        assert_false(brock__yellowlisted(&e->lists, "cdn.trk.example"));
        assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
        assert_int_equal(e->pbconfig_dirty, 0);
        assert_int_equal(rename(keep, path), 0);
    }
    /* A list gone altogether: missing, and still nothing changes. */
    snprintf(path, sizeof(path), "%s/pbconfig.json", f->data);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/yellowlist.txt", f->data);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(brock_engine_reload(e, NULL), BROCK_ENOENT);
    assert_non_null(strstr(brock_engine_errmsg(e), "cookieblock list"));
    assert_int_equal(e->lists.yellow_order.n, n0);
    /* Repaired, the folder reads again. */
    write_pbconfig(f, "cdn.trk.example");
    assert_int_equal(brock_engine_reload(e, NULL), 0);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    brock_engine_free(e);
}

/* While an update's configuration is in force its list stays, as at open; the data folder's
 * other lists are read, and hashes learned from the update are kept. */
static void test_update_wins(void **state)
{
    static const char update[] = "{\"yellowlist\": [\"cdn.trk.example\"], \"dnt_policy_hashes\": "
                                 "{\"Made up\": \"a8c2c5a3aa0a1fa51ea2e1e3c0ad8b01e2fa7b76\"}}";
    struct test_fixture *f = *state;
    struct brock_update_stats st;
    struct brock_engine *e;

    write_pbconfig(f, NULL);
    e = test_fixture_open(f, f->data, 1);
    learn_tracker(e);
    assert_int_equal(brock_update_apply(e, "update", update, strlen(update), NOW, NULL), 0);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(e->lists.yellow_order.n, 1);
    puts_data(f, "multi-domain-first-parties.json", "[[\"trk.example\", \"other.example\"]]");
    assert_int_equal(brock_engine_reload(e, &st), 0);
    assert_int_equal(st.added + st.removed, 0);
    assert_int_equal(st.yellow, 1);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(brock_update_time(e), NOW);
    /* The new multi-domain first parties are in force: trk.example is now other.example's. */
    assert_int_equal(effect_on(e, "www.trk.example", "other.example"), BROCK_PASS);
    assert_int_equal(effect(e, "www.trk.example"), BROCK_DENY);
    assert_non_null(strmap_get(&e->lists.dnt_hashes, "a8c2c5a3aa0a1fa51ea2e1e3c0ad8b01e2fa7b76"));
    brock_engine_free(e);
}

static void test_without_data(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    (void)state;
    assert_int_equal(brock_engine_reload(e, NULL), BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "without Privacy Badger's data"));
    brock_engine_free(e);
}

/* ---- running out of memory ---- */

/* The data folder cut down to a few entries in each list. */
static void minimal_data(const struct test_fixture *f)
{
    static const char *const names[] = {"seed.json", "yellowlist.txt", "dnt-policies.json",
                                        "public-suffix-list.json"};
    char path[256];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", f->data, names[i]);
        unlink(path);
    }
    puts_data(f, "multi-domain-first-parties.json", "[[\"a.com\", \"b.com\"]]");
    puts_data(f, "socialwidgets.json", "{\"W\": {\"domains\": [\"w.example.com\"]}}");
    puts_data(f, "cname_domains.json", "{\"a.example.com\": \"t.tracker.net\"}");
}

/* Each allocation of a reload fails in turn (jansson keeps its own allocator, as in
 * test_lists): each failure says so, leaks nothing under the sanitizer and leaves the list in
 * force; the reload that finally succeeds applies the change. */
static void test_alloc_failures(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e;
    size_t n0;
    long n;
    int rc = -1;

    /* Small lists keep the count of allocations small. */
    minimal_data(f);
    puts_data(f, "pbconfig.json", "{\"yellowlist\": [\"a.example\"]}");
    e = test_engine_open(NULL, f->data, 1);
    learn_tracker(e);
    n0 = e->lists.yellow_order.n;
    puts_data(f, "pbconfig.json", "{\"yellowlist\": [\"a.example\", \"cdn.trk.example\"]}");
    for (n = 0; n < 100000 && rc != 0; n++) {
        fail_from(n);
        rc = brock_engine_reload(e, NULL);
        fail_never();
        if (rc == 0)
            break;
        if (rc != BROCK_ENOMEM)
            fail_msg("allocation %ld: %d (%s)", n, rc, brock_engine_errmsg(e));
        assert_int_equal(e->lists.yellow_order.n, n0);
        assert_false(brock__yellowlisted(&e->lists, "cdn.trk.example"));
    }
    assert_int_equal(rc, 0);
    printf("# a reload of the test data makes %ld allocations\n", n);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_list_changed, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_broken_changes_nothing, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_update_wins, setup, test_fixture_teardown),
        cmocka_unit_test(test_without_data),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
