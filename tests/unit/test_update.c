/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Applying Privacy Badger's configuration (section 6): validated whole, the cookieblock
 * list applied by its added and removed domains, DNT hashes only added, and the applied
 * configuration kept in the state and followed at the next open, as is a data folder
 * whose list changed. */
#include "test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "engine/engine.h"
#include "store/store_api.h"
#include "util/alloc.h"
#include "util/file.h"

#define NOW ((int64_t)1700000000000)

/* The shared data folder's files, linked, but for pbconfig.json, which the test writes. */
static int setup(void **state)
{
    struct test_fixture *f = test_fixture_new("update");

    test_link_data(f->data, (const char *const[]){"pbconfig.json", NULL});
    *state = f;
    return 0;
}

/* Privacy Badger's pbconfig.json with add appended to the list and drop taken off it. */
static char *pbconfig_with(const char *add, const char *drop, size_t *len)
{
    json_error_t jerr;
    json_t *root = json_load_file(test_data("privacybadger/pbconfig.json"), 0, &jerr);
    json_t *yl, *v;
    size_t i;
    char *text;

    assert_non_null(root);
    yl = json_object_get(root, "yellowlist");
    json_array_foreach(yl, i, v) {
        if (drop && !strcmp(json_string_value(v), drop)) {
            json_array_remove(yl, i);
            break;
        }
    }
    if (add)
        assert_int_equal(json_array_append_new(yl, json_string(add)), 0);
    text = json_dumps(root, JSON_COMPACT);
    assert_non_null(text);
    json_decref(root);
    *len = strlen(text);
    return text;
}

static void write_data_pbconfig(const struct test_fixture *f, const char *add)
{
    char path[256];
    size_t len;
    char *text = pbconfig_with(add, NULL, &len);

    snprintf(path, sizeof(path), "%s/pbconfig.json", f->data);
    assert_int_equal(file_write_atomic(path, text, len, 0600), 0);
    free(text);
}

static void set_heur(struct brock_engine *e, const char *domain, int heur)
{
    struct action_entry *a = brock__action_ensure(e, domain);

    assert_non_null(a);
    a->heur = (uint8_t)heur;
    brock__action_touch(e, a, BROCK__DIRTY_HEUR);
}

static enum brock_effect effect(struct brock_engine *e, const char *host)
{
    struct brock_decision d;

    assert_int_equal(brock_decide(e, host, "site.example", &d), 0);
    return d.effect;
}

/* A blocked tracker whose subdomain is about to be (or was) put on the list. */
static void learn_tracker(struct brock_engine *e)
{
    set_heur(e, "trk.example", BROCK_BLOCK);
    set_heur(e, "cdn.trk.example", BROCK_BLOCK);
}

static void test_added_removed(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    struct brock_update_stats st;
    size_t n0 = e->lists.yellow_order.n, len;
    char *text;

    (void)state;
    learn_tracker(e);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
    text = pbconfig_with("cdn.trk.example", "googleapis.com", &len);
    assert_int_equal(brock_update_apply(e, "new", text, len, NOW, &st), 0);
    free(text);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.removed, 1);
    assert_int_equal(st.yellow, n0);
    assert_int_equal(st.hashes_added, 0);
    assert_true(brock__yellowlisted(&e->lists, "cdn.trk.example"));
    assert_false(brock__yellowlisted(&e->lists, "googleapis.com"));
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(effect(e, "img.cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(effect(e, "www.trk.example"), BROCK_DENY);
    assert_int_equal(brock_update_time(e), NOW);
    /* taken off again: blocked again */
    text = pbconfig_with(NULL, NULL, &len);
    assert_int_equal(brock_update_apply(e, "old", text, len, NOW + 1, &st), 0);
    free(text);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.removed, 1);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
    assert_true(brock__yellowlisted(&e->lists, "googleapis.com"));
    brock_engine_free(e);
}

static void test_invalid_changes_nothing(void **state)
{
    static const char *const bad[] = {
        "",
        "not json",
        "[]",
        "{\"yellowlist\": []}",
        "{\"yellowlist\": \"a.example\"}",
        "{\"yellowlist\": [\"a.example\", \"Upper.example\"]}",
        "{\"yellowlist\": [\"a.example\", \"nodot\"]}",
        "{\"yellowlist\": [\"a.example\", \"a.example1\"]}",
        "{\"yellowlist\": [\"a.example\", 7]}",
        "{\"yellowlist\": [\"a.example\"], \"dnt_policy_hashes\": []}",
        "{\"yellowlist\": [\"a.example\"], \"dnt_policy_hashes\": {\"x\": \"ABC\"}}",
        "{\"yellowlist\": [\"a.example\"], \"sitefixes\": {\"gpc\": 1}}",
    };
    struct brock_engine *e = test_engine_pb(NULL);
    size_t n0 = e->lists.yellow_order.n, h0 = e->lists.dnt_hashes.len;

    (void)state;
    learn_tracker(e);
    set_heur(e, "googleapis.com", BROCK_COOKIEBLOCK);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e->errmsg[0] = '\0';
        if (brock_update_apply(e, "pbconfig.json", bad[i], strlen(bad[i]), NOW, NULL) !=
            BROCK_EFORMAT)
            fail_msg("accepted: %s", bad[i]);
        assert_non_null(strstr(brock_engine_errmsg(e), "pbconfig.json"));
        assert_int_equal(e->lists.yellow_order.n, n0);
        assert_int_equal(e->lists.dnt_hashes.len, h0);
        assert_false(brock__yellowlisted(&e->lists, "a.example"));
        assert_int_equal(brock_send_signals(e, "www.costco.com"), 0);
        assert_int_equal(brock_update_time(e), 0);
        assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
    }
    brock_engine_free(e);
}

static void test_hashes_only_added(void **state)
{
    static const char policy[] = "A policy text brock's tests made up.\n";
    struct brock_engine *e = test_engine_pb(NULL);
    struct brock_update_stats st;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    char text[512], hex[2 * EVP_MAX_MD_SIZE + 1];

    (void)state;
    assert_false(brock_dnt_policy_accepted(e, policy, strlen(policy)));
    assert_true(EVP_Digest(policy, strlen(policy), md, &mdlen, EVP_sha1(), NULL));
    for (unsigned int i = 0; i < mdlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    /* one new hash, and one already known under another name */
    snprintf(text, sizeof(text),
             "{\"yellowlist\": [\"a.example\"], \"dnt_policy_hashes\": {\"Made up\": "
             "\"%s\", \"Same\": \"a18e8dba6848d3fc241b03b88291cb75a3cfec3b\"}}",
             hex);
    assert_int_equal(brock_update_apply(e, "a", text, strlen(text), NOW, &st), 0);
    assert_int_equal(st.hashes_added, 1);
    assert_true(brock_dnt_policy_accepted(e, policy, strlen(policy)));
    snprintf(text, sizeof(text), "{\"yellowlist\": [\"a.example\"], \"dnt_policy_hashes\": {}}");
    assert_int_equal(brock_update_apply(e, "b", text, strlen(text), NOW, &st), 0);
    assert_int_equal(st.hashes_added, 0);
    assert_true(brock_dnt_policy_accepted(e, policy, strlen(policy)));
    brock_engine_free(e);
}

/* The applied configuration outlives the process and wins over the data folder's. */
static void test_persisted(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e;
    size_t len;
    char *text, *row = NULL;

    write_data_pbconfig(f, NULL);
    e = test_fixture_open(f, f->data, 1);
    learn_tracker(e);
    text = pbconfig_with("cdn.trk.example", NULL, &len);
    assert_int_equal(brock_update_apply(e, "new", text, len, NOW, NULL), 0);
    free(text);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);

    e = test_fixture_open(f, f->data, 1);
    assert_true(brock__yellowlisted(&e->lists, "cdn.trk.example"));
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(brock_update_time(e), NOW);
    assert_int_equal(brock_send_signals(e, "www.costco.com"), 0);
    assert_int_equal(brock__store_meta_get(e, "yellowlist", &row), 0);
    assert_non_null(row);
    assert_non_null(strstr(row, "\ncdn.trk.example\n"));
    mem_free(row);
    brock_engine_free(e);

    /* Unsynced, an update is dropped with the engine, as every change is. */
    e = test_fixture_open(f, f->data, 1);
    text = pbconfig_with(NULL, NULL, &len);
    assert_int_equal(brock_update_apply(e, "old", text, len, NOW + 5, NULL), 0);
    free(text);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
    brock_engine_free(e);
    e = test_fixture_open(f, f->data, 1);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(brock_update_time(e), NOW);
    brock_engine_free(e);
}

/* A package update that changes the data folder's list reaches a state that follows it
 * through the same added/removed rules. */
static void test_data_folder_changed(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e;

    write_data_pbconfig(f, NULL);
    e = test_fixture_open(f, f->data, 1);
    learn_tracker(e);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);

    write_data_pbconfig(f, "cdn.trk.example");
    e = test_fixture_open(f, f->data, 1);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    assert_int_equal(brock_update_time(e), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    /* the state now follows the new list: opening again changes nothing */
    e = test_fixture_open(f, f->data, 1);
    assert_int_equal(e->pbconfig_dirty, 0);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_STRIP_COOKIES);
    brock_engine_free(e);

    write_data_pbconfig(f, NULL);
    e = test_fixture_open(f, f->data, 1);
    assert_int_equal(effect(e, "cdn.trk.example"), BROCK_DENY);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_added_removed),
        cmocka_unit_test(test_invalid_changes_nothing),
        cmocka_unit_test(test_hashes_only_added),
        cmocka_unit_test_setup_teardown(test_persisted, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_data_folder_changed, setup, test_fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
