/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What a page's script saw (sections 3.5 and 3.6): canvas fingerprinting and localStorage
 * supercookies through brock_observe_page(), with Privacy Badger's fixture values.
 */
#include "test.h"

#include <string.h>

#include "engine/engine.h"

static int canvas(struct brock_engine *e, const char *script, const char *site)
{
    struct brock_page_signal s = {
        .kind = BROCK_PAGE_CANVAS, .site = site, .url = script, .time_ms = 1700000000000};
    struct brock_learned l;

    assert_int_equal(brock_observe_page(e, &s, &l), 0);
    return l.recorded + l.blocked;
}

static int storage(struct brock_engine *e, const char *frame, const char *site, const char *key,
                   const char *value)
{
    struct brock_header item = {key, strlen(key), value, strlen(value)};
    struct brock_page_signal s = {
        .kind = BROCK_PAGE_SUPERCOOKIE, .site = site, .url = frame, .items = &item, .n_items = 1};
    struct brock_learned l;

    assert_int_equal(brock_observe_page(e, &s, &l), 0);
    return l.recorded + l.blocked;
}

static void test_canvas(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    const struct snitch *s;
    const struct tracking *t;
    const struct fp_host *f;

    (void)state;
    /* A first-party script, a data: script, a private host: nothing. */
    assert_int_equal(canvas(e, "https://cdn.a.example/fp.js", "https://www.a.example/"), 0);
    assert_int_equal(canvas(e, "data:text/javascript,1", "a.example"), 0);
    assert_int_equal(canvas(e, "http://127.0.0.1/fp.js", "a.example"), 0);
    assert_null(brock__snitch_get(e, "fp.test"));
    /* Three sites block the script's base. */
    assert_int_equal(canvas(e, "https://js.fp.test/lib/fp.js?v=3", "https://a.example/x"), 1);
    assert_int_equal(canvas(e, "https://js.fp.test/lib/fp.js?v=3", "https://a.example/y"), 0);
    assert_int_equal(canvas(e, "https://js.fp.test/other.js", "b.example"), 1);
    assert_int_equal(brock__best_action(e, "js.fp.test", NULL), BROCK_ALLOW);
    assert_int_equal(canvas(e, "https://js.fp.test/lib/fp.js", "c.example"), 2);
    assert_int_equal(brock__best_action(e, "js.fp.test", NULL), BROCK_BLOCK);
    s = brock__snitch_get(e, "fp.test");
    assert_int_equal(s->n, 3);
    assert_int_equal(s->v[0].kind, BROCK_EVIDENCE_CANVAS);
    assert_string_equal(s->v[0].site, "a.example");
    assert_string_equal(s->v[0].host, "js.fp.test");
    assert_string_equal(s->v[0].detail, "/lib/fp.js");
    assert_string_equal(brock_evidence_kind_name(s->v[0].kind), "canvas");
    t = strmap_get(&e->tracking, "fp.test");
    assert_non_null(t);
    assert_int_equal(t->n, 3);
    assert_int_equal(t->v[1].kinds, BROCK__TRACK_CANVAS);
    /* The scripts' paths, without their queries, in fp_scripts. */
    f = strmap_get(&e->fp_scripts, "js.fp.test");
    assert_non_null(f);
    assert_int_equal(f->n, 2);
    assert_string_equal(f->paths[0], "/lib/fp.js");
    assert_string_equal(f->paths[1], "/other.js");
    brock_engine_free(e);
}

static void test_supercookie(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    const struct snitch *s;

    (void)state;
    /* Privacy Badger's fixtures: {frameId: "ABCDEF0123456789"} is one, {ab: "ab"} is not. */
    assert_int_equal(storage(e, "https://frames.sc.test/f.html", "a.example", "ab", "ab"), 0);
    assert_null(brock__snitch_get(e, "sc.test"));
    assert_int_equal(
        storage(e, "https://frames.sc.test/f.html", "a.example", "frameId", "ABCDEF0123456789"), 1);
    s = brock__snitch_get(e, "sc.test");
    assert_non_null(s);
    assert_int_equal(s->v[0].kind, BROCK_EVIDENCE_SUPERCOOKIE);
    assert_string_equal(s->v[0].host, "frames.sc.test");
    /* Nothing in the tracking map. */
    assert_null(strmap_get(&e->tracking, "sc.test"));
    /* The bits are summed over the items: two of 16 bits are 32, not past 33; three are. */
    {
        struct brock_header items[3] = {{"a", 1, "bcd", 3}, {"a", 1, "bcd", 3}, {"a", 1, "bcd", 3}};
        struct brock_page_signal sig = {.kind = BROCK_PAGE_SUPERCOOKIE,
                                        .site = "b.example",
                                        .url = "https://frames.sc.test/",
                                        .items = items,
                                        .n_items = 2};
        struct brock_learned l;

        assert_int_equal(brock_observe_page(e, &sig, &l), 0);
        assert_false(l.recorded);
        sig.n_items = 3;
        assert_int_equal(brock_observe_page(e, &sig, &l), 0);
        assert_true(l.recorded);
    }
    brock_engine_free(e);
}

static void test_bad_input(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_page_signal s = {.kind = BROCK_PAGE_CANVAS, .site = "a.example"};
    enum brock_page_signal_kind k;

    (void)state;
    assert_int_equal(brock_observe_page(e, NULL, NULL), BROCK_EINVAL);
    assert_int_equal(brock_observe_page(e, &s, NULL), BROCK_EINVAL); /* no url */
    s.url = "https://js.fp.test/fp.js";
    s.kind = (enum brock_page_signal_kind)7;
    assert_int_equal(brock_observe_page(e, &s, NULL), BROCK_EINVAL);
    assert_int_equal(brock_page_signal_parse("canvas", &k), 0);
    assert_int_equal(k, BROCK_PAGE_CANVAS);
    assert_int_equal(brock_page_signal_parse("supercookie", &k), 0);
    assert_int_equal(k, BROCK_PAGE_SUPERCOOKIE);
    assert_int_equal(brock_page_signal_parse("Canvas", &k), BROCK_EINVAL);
    assert_string_equal(brock_page_signal_name(BROCK_PAGE_SUPERCOOKIE), "supercookie");
    assert_null(brock_page_signal_name((enum brock_page_signal_kind)0));
    /* Learning off: nothing. */
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_LEARN, 0), 0);
    s.kind = BROCK_PAGE_CANVAS;
    assert_int_equal(canvas(e, "https://js.fp.test/fp.js", "a.example"), 0);
    assert_null(brock__snitch_get(e, "fp.test"));
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canvas),
        cmocka_unit_test(test_supercookie),
        cmocka_unit_test(test_bad_input),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
