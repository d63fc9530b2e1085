/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Golden tests of Privacy Badger's JSON: the seed loaded as Privacy Badger loads it (section
 * 10), merges (section 11), bad imports, and export -> import round trips. */
#include "test.h"

#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "util/buf.h"

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

/* With Debian's Public Suffix List, which is older than Privacy Badger's own copy, a few
 * cloud-hosting names have another base; the counts stay close to Privacy Badger's
 * (test_seed.c reproduces them exactly with Privacy Badger's list). */
static void test_seed_system_psl(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, pb_dir(), 0);
    size_t counts[BROCK_ACTION_COUNT], entries;

    (void)state;
    brock_counts(e, counts, &entries);
    assert_in_range(entries, 10233 - 50, 10233 + 50);
    assert_in_range(counts[BROCK_BLOCK], 3020 - 50, 3020 + 50);
    assert_int_equal(counts[BROCK_DNT], 17);
    assert_int_equal(best(e, "doubleclick.net"), BROCK_BLOCK);
    assert_int_equal(best(e, "youtube.com"), BROCK_COOKIEBLOCK);
    brock_engine_free(e);
}

static void test_seed_debian(void **state)
{
    const char *dir = BROCK_DEFAULT_DATA_DIR;
    struct brock_engine *e;
    size_t counts[BROCK_ACTION_COUNT], entries;
    char path[4200];

    (void)state;
    snprintf(path, sizeof(path), "%s/data/seed.json", dir);
    if (access(path, R_OK) != 0)
        skip();
    e = test_engine_open(NULL, dir, 0);
    brock_counts(e, counts, &entries);
    /* Debian's older release: every base of its snitch map got an entry, and the yellowlist
     * turned some blocks into cookieblocks. */
    assert_true(entries >= e->snitches.len);
    assert_true(counts[BROCK_BLOCK] > 500);
    assert_true(counts[BROCK_COOKIEBLOCK] > 100);
    assert_int_equal(best(e, "doubleclick.net"), BROCK_BLOCK);
    print_message("# Debian seed: %zu entries, allow %zu, block %zu, cookieblock %zu, dnt %zu\n",
                  entries, counts[BROCK_ALLOW], counts[BROCK_BLOCK], counts[BROCK_COOKIEBLOCK],
                  counts[BROCK_DNT]);
    brock_engine_free(e);
}

static int import_text(struct brock_engine *e, const char *json)
{
    struct brock_stats st;

    return brock_import(e, "test.json", json, strlen(json), &st);
}

static void test_merge_examples(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, pb_dir(), 1);
    struct action_entry *a;

    (void)state;
    /* foo.com seen on fewer sites locally, then an import with 3 sites: learning replayed */
    assert_int_equal(brock__update_tracker_prevalence(e, "foo.com", "foo.com", "x.com", NULL), 1);
    assert_int_equal(best(e, "foo.com"), BROCK_ALLOW);
    assert_int_equal(import_text(e, "{\"action_map\": {\"foo.com\": {\"heuristicAction\": "
                                    "\"block\"}}, \"snitch_map\": {\"foo.com\": [\"a.com\", "
                                    "\"b.com\", \"c.com\"]}}"),
                     0);
    assert_int_equal(best(e, "foo.com"), BROCK_BLOCK);
    /* one owner's sites do not count: amazon.com stays allowed */
    assert_int_equal(import_text(e, "{\"action_map\": {\"amazon.com\": {\"heuristicAction\": "
                                    "\"cookieblock\"}}, \"snitch_map\": {\"amazon.com\": "
                                    "[\"amazon.ca\", \"amazon.co.jp\", \"amazing.com\"]}}"),
                     0);
    assert_int_equal(best(e, "amazon.com"), BROCK_ALLOW);
    assert_int_equal(brock__snitch_get(e, "amazon.com")->n, 1);
    /* heuristic actions are never overwritten; user actions are taken; newer DNT data wins */
    assert_int_equal(import_text(e, "{\"action_map\": {\"foo.com\": {\"heuristicAction\": "
                                    "\"allow\", \"userAction\": \"user_allow\", \"dnt\": true, "
                                    "\"nextUpdateTime\": 100}}, \"snitch_map\": {}}"),
                     0);
    a = brock__action_get(e, "foo.com");
    assert_int_equal(a->heur, BROCK_BLOCK);
    assert_int_equal(a->user, BROCK_USER_ALLOW);
    assert_int_equal(a->dnt, 1);
    assert_int_equal(a->next_update, 100);
    /* an older nextUpdateTime does not replace; a newer one without dnt clears the flag */
    assert_int_equal(import_text(e, "{\"action_map\": {\"foo.com\": {\"dnt\": false, "
                                    "\"nextUpdateTime\": 50}}, \"snitch_map\": {}}"),
                     0);
    assert_int_equal(a->dnt, 1);
    assert_int_equal(import_text(e, "{\"action_map\": {\"foo.com\": {\"nextUpdateTime\": 200}},"
                                    " \"snitch_map\": {}}"),
                     0);
    assert_int_equal(a->dnt, 0);
    /* a time past what brock holds is the farthest future (the cast alone is undefined) */
    assert_int_equal(import_text(e, "{\"action_map\": {\"foo.com\": {\"nextUpdateTime\": "
                                    "7.7e49}}, \"snitch_map\": {}}"),
                     0);
    assert_true(a->next_update == INT64_MAX);
    /* a new entry comes in only with a user action, dnt, or a base in the snitch map */
    assert_int_equal(import_text(e, "{\"action_map\": {\"lonely.net\": {\"heuristicAction\": "
                                    "\"block\"}, \"cdn.foo.com\": {\"heuristicAction\": "
                                    "\"cookieblock\"}, \"mine.org\": {\"userAction\": "
                                    "\"user_block\"}, \"kind.org\": {\"dnt\": true}}, "
                                    "\"snitch_map\": {}}"),
                     0);
    assert_null(brock__action_get(e, "lonely.net"));
    assert_int_equal(brock__action_get(e, "cdn.foo.com")->heur, BROCK_COOKIEBLOCK);
    assert_int_equal(best(e, "mine.org"), BROCK_USER_BLOCK);
    assert_int_equal(best(e, "kind.org"), BROCK_DNT);
    brock_engine_free(e);
}

static void test_merge_settings_tracking_fp(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    json_t *ds;
    struct tracking *t;

    (void)state;
    assert_int_equal(import_text(e, "{\"action_map\": {}, \"snitch_map\": {\"t.net\": [\"a.com\","
                                    " \"b.com\"]}, \"settings_map\": {\"disabledSites\": "
                                    "[\"bank.example\"], \"learnLocally\": false, \"bogus\": 1}, "
                                    "\"tracking_map\": {\"t.net\": {\"z.com\": [\"canvas\"], "
                                    "\"a.com\": [\"beacon\"], \"y.com\": [\"canvas\"]}, "
                                    "\"u.net\": {\"a.com\": [\"canvas\"]}}, \"fp_scripts\": "
                                    "{\"cdn.t.net\": {\"/fp.js\": 1}, \"x.org\": {\"/a.js\": "
                                    "1}}}"),
                     0);
    assert_int_equal(import_text(e, "{\"action_map\": {}, \"snitch_map\": {}, \"settings_map\":"
                                    " {\"disabledSites\": [\"other.example\", "
                                    "\"bank.example\"]}}"),
                     0);
    ds = json_object_get(e->settings, "disabledSites");
    assert_int_equal(json_array_size(ds), 2);
    assert_string_equal(json_string_value(json_array_get(ds, 0)), "bank.example");
    assert_string_equal(json_string_value(json_array_get(ds, 1)), "other.example");
    assert_null(json_object_get(e->settings, "bogus"));
    assert_false(brock_engine_learning(e));
    /* the tracker's own sites first, then others up to the length of its snitch list */
    t = strmap_get(&e->tracking, "t.net");
    assert_non_null(t);
    assert_int_equal(t->n, 2);
    assert_string_equal(t->v[0].site, "a.com");
    assert_null(strmap_get(&e->tracking, "u.net"));
    assert_non_null(strmap_get(&e->fp_scripts, "cdn.t.net"));
    assert_null(strmap_get(&e->fp_scripts, "x.org"));
    brock_engine_free(e);
}

/* fp_scripts go in as Privacy Badger's merge takes them (only hosts whose base is in the
 * snitch map), keyed by the host as requests name it, and come out as it exports them. */
static void test_fp_scripts_round_trip(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1), *f = test_engine_open(NULL, NULL, 1);
    struct brock_decision d;
    struct brock_request r = {.url = "https://cdn.jsdelivr.net/npm/fp.js?x=1",
                              .site = "news.example",
                              .type = BROCK_RESOURCE_SCRIPT};
    char *out, *again;
    size_t len, len2;
    json_t *root, *fp, *want;

    (void)state;
    assert_int_equal(import_text(e, "{\"action_map\": {\"jsdelivr.net\": {\"heuristicAction\":"
                                    " \"cookieblock\"}}, \"snitch_map\": {\"jsdelivr.net\": "
                                    "[\"a.com\", \"b.com\", \"c.com\"]}, \"fp_scripts\": "
                                    "{\"CDN.jsdelivr.NET\": {\"/npm/fp.js\": 1, \"/npm/b.js\": "
                                    "1}, \"x.org\": {\"/a.js\": 1}}}"),
                     0);
    /* Learning replayed blocks jsdelivr.net (no cookieblock list here): the user's
     * cookieblock lets the host load, all but the fingerprinting script. */
    assert_int_equal(brock_set_user_action(e, "cdn.jsdelivr.net", BROCK_USER_COOKIEBLOCK), 0);
    assert_int_equal(brock_decide_request(e, &r, &d), 0);
    assert_int_equal(d.reason, BROCK_WHY_FP_SCRIPT);
    assert_int_equal(brock_export(e, "pb", &out, &len), 0);
    root = json_loads(out, 0, NULL);
    assert_non_null(root);
    fp = json_object_get(root, "fp_scripts");
    assert_int_equal(json_object_size(fp), 1);
    want = json_pack("{s:i, s:i}", "/npm/fp.js", 1, "/npm/b.js", 1);
    assert_true(json_equal(json_object_get(fp, "cdn.jsdelivr.net"), want));
    json_decref(want);
    json_decref(root);
    /* An export imports back to the same export. */
    assert_int_equal(brock_import(f, "export", out, len, NULL), 0);
    assert_int_equal(brock_export(f, "pb", &again, &len2), 0);
    assert_string_equal(out, again);
    brock_free(out);
    brock_free(again);
    brock_engine_free(e);
    brock_engine_free(f);
}

static void test_bad_imports_change_nothing(void **state)
{
    static const char *const bad[] = {
        "not json",
        "[1, 2]",
        "{\"action_map\": {}}",
        "{\"snitch_map\": {}}",
        "{\"action_map\": [], \"snitch_map\": {}}",
        "{\"action_map\": {\"a.com\": 3}, \"snitch_map\": {}}",
        "{\"action_map\": {\"a.com\": {\"userAction\": \"user_maybe\"}}, \"snitch_map\": {}}",
        "{\"action_map\": {\"a.com\": {\"dnt\": \"yes\"}}, \"snitch_map\": {}}",
        "{\"action_map\": {\"a.com\": {\"nextUpdateTime\": \"soon\"}}, \"snitch_map\": {}}",
        "{\"action_map\": {\"bad domain\": {}}, \"snitch_map\": {}}",
        "{\"action_map\": {}, \"snitch_map\": {\"t.net\": \"a.com\"}}",
        "{\"action_map\": {}, \"snitch_map\": {\"t.net\": [\"a.com\", 7]}}",
        "{\"action_map\": {}, \"snitch_map\": {\"t.net\": [\"a.com\", \"b.com\", \"c.com\"]}, "
        "\"tracking_map\": []}",
        "{\"action_map\": {}, \"snitch_map\": {}, \"settings_map\": 1}",
        "{\"action_map\": {}, \"snitch_map\": {}, \"fp_scripts\": {\"x\": 1}}",
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    char *before, *after;
    size_t blen, alen;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "kept.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_export(e, "pb", &before, &blen), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = import_text(e, bad[i]);
        if (rc != BROCK_EFORMAT)
            fail_msg("import %zu (%s) gave %d", i, bad[i], rc);
        assert_non_null(strstr(brock_engine_errmsg(e), "test.json"));
    }
    assert_int_equal(brock_export(e, "pb", &after, &alen), 0);
    assert_int_equal(alen, blen);
    assert_memory_equal(before, after, blen);
    brock_free(before);
    brock_free(after);
    brock_engine_free(e);
}

struct compare {
    struct brock_engine *other;
    size_t n;
};

static int same_action(void *arg, const struct brock_tracker *t)
{
    struct compare *c = arg;

    if (best(c->other, t->domain) != t->action)
        fail_msg("%s: %s after the round trip, %s before", t->domain,
                 brock_action_name(best(c->other, t->domain)), brock_action_name(t->action));
    c->n++;
    return 0;
}

static void test_round_trip(void **state)
{
    /* As a user moving to a new machine: export, then import into a newly seeded state. */
    struct brock_engine *e = test_engine_open(NULL, pb_dir(), 0),
                        *f = test_engine_open(NULL, pb_dir(), 0);
    struct brock_stats st;
    struct compare c = {f, 0};
    size_t ce[BROCK_ACTION_COUNT], cf[BROCK_ACTION_COUNT], ne, nf;
    char *text, *again;
    size_t len, len2;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "doubleclick.net", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_user_action(e, "cdn.example", BROCK_USER_COOKIEBLOCK), 0);
    assert_int_equal(brock_export(e, "pb", &text, &len), 0);
    assert_int_equal(brock_import(f, "export.json", text, len, &st), 0);
    brock_counts(e, ce, &ne);
    brock_counts(f, cf, &nf);
    assert_int_equal(ne, nf);
    assert_memory_equal(ce, cf, sizeof(ce));
    assert_int_equal(brock_trackers_each(e, NULL, BROCK_TRACKERS_ALL, same_action, &c), 0);
    assert_int_equal(c.n, ne);
    assert_int_equal(best(f, "doubleclick.net"), BROCK_USER_ALLOW);
    /* and the export of the copy is the export of the original */
    assert_int_equal(brock_export(f, "pb", &again, &len2), 0);
    assert_int_equal(len, len2);
    assert_memory_equal(text, again, len);
    brock_free(text);
    brock_free(again);
    brock_engine_free(e);
    brock_engine_free(f);
}

static void test_other_exports(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, pb_dir(), 0);
    char *hosts, *abp, *none = NULL;
    size_t len;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "www.doubleclick.net", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_export(e, "hosts", &hosts, &len), 0);
    assert_non_null(strstr(hosts, "\n0.0.0.0 doubleclick.net\n"));
    assert_null(strstr(hosts, " youtube.com\n")); /* cookieblocked: must still load */
    assert_int_equal(brock_export(e, "abp", &abp, &len), 0);
    assert_true(strncmp(abp, "[Adblock Plus 2.0]", 18) == 0);
    assert_non_null(strstr(abp, "\n||doubleclick.net^$third-party\n"));
    assert_non_null(strstr(abp, "\n@@||www.doubleclick.net^$third-party\n"));
    assert_int_equal(brock_export(e, "csv", &none, &len), BROCK_EINVAL);
    assert_null(none);
    assert_string_equal(brock_engine_errmsg(e),
                        "'csv' is not an export format (pb, hosts, abp, dnsmasq, unbound, rpz, "
                        "privoxy, ubo, adguard, dnr, safari)");
    /* Every format listed is one brock writes. */
    for (const char *const *f = brock_export_formats(); *f; f++) {
        assert_int_equal(brock_export(e, *f, &none, &len), 0);
        brock_free(none);
        none = NULL;
    }
    brock_free(hosts);
    brock_free(abp);
    brock_engine_free(e);
}

/* A file holding text (len bytes), without a name, open at its start. */
static int text_fd(const char *text, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof(path), "%s/brock-pbjson-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

/* An import read from a file (the dashboard's upload) merges as one from memory does, a
 * block at a time, its byte order mark skipped; a bad text or a file that cannot be read
 * changes nothing. */
static void test_import_fd(void **state)
{
    static const char pb[] = "\xef\xbb\xbf{\"action_map\": {\"t.example\": {\"userAction\": "
                             "\"user_block\"}}, \"snitch_map\": {\"x.example\": [\"a.org\", "
                             "\"b.org\", \"c.org\"]}}";
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_stats st;
    struct buf big;
    int fd;

    (void)state;
    fd = text_fd(pb, sizeof(pb) - 1);
    assert_int_equal(brock_import_fd(e, "upload", fd, &st), 0);
    close(fd);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.recorded, 3);
    assert_int_equal(best(e, "t.example"), BROCK_USER_BLOCK);
    assert_int_equal(best(e, "x.example"), BROCK_BLOCK);
    /* Past one block of the reader, with the text split across reads. */
    buf_init(&big, SIZE_MAX);
    assert_int_equal(buf_puts(&big, "{\"action_map\": {\"u.example\": {\"userAction\": "
                                    "\"user_allow\"}}, \"snitch_map\": {}"),
                     0);
    for (int i = 0; i < 5000; i++)
        assert_int_equal(buf_puts(&big, "          "), 0);
    assert_int_equal(buf_puts(&big, "}"), 0);
    fd = text_fd(big.data, big.len);
    assert_int_equal(brock_import_fd(e, "upload", fd, &st), 0);
    close(fd);
    assert_int_equal(best(e, "u.example"), BROCK_USER_ALLOW);
    fd = text_fd("{\"action_map\": 3}", 17);
    assert_int_equal(brock_import_fd(e, "upload", fd, &st), BROCK_EFORMAT);
    assert_non_null(strstr(brock_engine_errmsg(e), "upload"));
    close(fd);
    fd = text_fd("{\"action_map\": {", 16);
    assert_int_equal(brock_import_fd(e, "upload", fd, &st), BROCK_EFORMAT);
    assert_non_null(strstr(brock_engine_errmsg(e), "not valid JSON"));
    close(fd);
    assert_int_equal(brock_import_fd(e, "upload", fd, &st), BROCK_EIO);
    assert_non_null(strstr(brock_engine_errmsg(e), "upload: cannot be read"));
    buf_cleanup(&big);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_system_psl),
        cmocka_unit_test(test_seed_debian),
        cmocka_unit_test(test_merge_examples),
        cmocka_unit_test(test_merge_settings_tracking_fp),
        cmocka_unit_test(test_fp_scripts_round_trip),
        cmocka_unit_test(test_bad_imports_change_nothing),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_other_exports),
        cmocka_unit_test(test_import_fd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
