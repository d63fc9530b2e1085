/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading HTTP Archives: what is not a HAR at all, pages listed after the entries, a file cut
 * short in an entry, larger than a read, read again out of order, whitespace and numbers at
 * the edges of JSON, a NUL byte, the stream reader against the whole-document one, and running
 * out of memory at every allocation. */
#include "test.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "engine/engine.h"
#include "har/json_strict.h"
#include "har_test.h"
#include "util/alloc.h"
#include "util/file.h"

/* ---- an allocator that fails on demand ---- */

static long alloc_countdown = -1; /* allocations left before one fails; -1: never */
static long alloc_calls;          /* allocations asked for */

static int alloc_fails(void)
{
    alloc_calls++;
    if (alloc_countdown < 0)
        return 0;
    return alloc_countdown-- == 0;
}

static void *t_malloc(size_t n)
{
    return alloc_fails() ? NULL : malloc(n);
}

static void *t_realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : realloc(p, n);
}

static void *t_calloc(size_t n, size_t sz)
{
    return alloc_fails() ? NULL : calloc(n, sz);
}

#define DEEP10 "[[[[[[[[[["
#define UNDEEP10 "]]]]]]]]]]"
#define DEEP DEEP10 DEEP10 DEEP10 DEEP10 DEEP10 DEEP10 DEEP10
#define UNDEEP UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10 UNDEEP10

/* What is not a HAR at all is refused, names the file and teaches nothing. */
static void test_not_a_har(void **state)
{
    static const char *const bad[] = {
        "this is not JSON",
        "[1,2,3]",
        "{\"log\":{\"version\":\"1.2\"}}",
        "{\"log\":{\"entries\":{}}}",
        "{\"log\":{\"entries\":[]}}",
        "{\"log\":{\"entries\":[{\"x\":" DEEP "1" UNDEEP "}]}}",
        "{\"log\":{\"entries\":[[[1]], [{\"request\":[[2]]}]]}}",
        "{\"log\":{\"entries\":[\"a\", {\"request\":{}}]}}",
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    size_t counts[BROCK_ACTION_COUNT], n;
    struct run r;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        learn_text(e, bad[i], strlen(bad[i]), &r);
        assert_int_equal(r.rc, BROCK_EFORMAT);
        assert_non_null(strstr(r.errmsg, "t.har: "));
        assert_int_equal(r.n_warn, 0);
    }
    assert_non_null(strstr(r.errmsg, "none of its 2 entries can be read"));
    brock_counts(e, counts, &n);
    assert_int_equal(n, 0);
    brock_engine_free(e);
}

/* ---- reading as a stream ---- */

/* log.pages may come after log.entries: what is learned and told is the same either way. */
static void test_pages_after_entries(void **state)
{
    struct run first, last;

    (void)state;
    for (int after = 0; after < 2; after++) {
        struct brock_engine *e = test_engine_open(NULL, NULL, 1);
        json_t *doc = har(plain, 3), *log = json_object_get(doc, "log");
        json_t *pages = json_incref(json_object_get(log, "pages"));
        struct run *r = after ? &last : &first;

        json_array_append_new(pages, json_integer(7));
        if (after) {
            /* jansson writes keys in the order they were set: pages now after entries */
            json_object_del(log, "pages");
            json_object_set(log, "pages", pages);
        }
        json_decref(pages);
        {
            char *text = json_dumps(doc, JSON_COMPACT);

            assert_non_null(text);
            if (after)
                assert_true(strstr(text, "\"pages\"") > strstr(text, "\"entries\""));
            learn_text(e, text, strlen(text), r);
            free(text);
        }
        json_decref(doc);
        assert_int_equal(r->rc, 0);
        assert_string_equal(sites(e, "tracker.net"), "one.com");
        assert_string_equal(sites(e, "other.net"), "one.com");
        brock_engine_free(e);
    }
    assert_int_equal(last.st.entries, first.st.entries);
    assert_int_equal(last.st.third_party, first.st.third_party);
    assert_int_equal(last.n_warn, 1);
    assert_string_equal(last.warn[0], "t.har: log.pages[1] is not an object with a string id; "
                                      "left out");
    assert_string_equal(first.warn[0], last.warn[0]);
}

/* A file cut short in the middle of an entry is refused whole: nothing is learned, not even
 * from the entries before the cut. */
static void test_truncated_mid_entry(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    json_t *doc = har(plain, 3);
    char *text = json_dumps(doc, JSON_COMPACT);
    const char *cut;
    char want[200];
    size_t counts[BROCK_ACTION_COUNT], n;
    struct run r;

    (void)state;
    assert_non_null(text);
    cut = strstr(text, "px.other.net"); /* inside the third entry */
    assert_non_null(cut);
    learn_text(e, text, (size_t)(cut - text), &r);
    assert_int_equal(r.rc, BROCK_EFORMAT);
    snprintf(want, sizeof(want),
             "t.har: not JSON: the text ends before the JSON does (line 1, column %zu)",
             (size_t)(cut - text) + 1);
    assert_string_equal(r.errmsg, want);
    assert_int_equal(r.n_warn, 0);
    assert_string_equal(sites(e, "tracker.net"), "");
    brock_counts(e, counts, &n);
    assert_int_equal(n, 0);
    /* the same text whole teaches what the cut one would have */
    learn_text(e, text, strlen(text), &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(sites(e, "tracker.net"), "one.com");
    free(text);
    json_decref(doc);
    brock_engine_free(e);
}

/* A file many read chunks long, with entries across the chunks' edges and one entry larger
 * than a chunk, written out of order: read from its descriptor, it teaches what its text
 * does; cut short, or not a regular file, it teaches nothing. */
static void test_file_larger_than_a_chunk(void **state)
{
    static const struct ent v[] = {
        {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
        {"p", 9, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.two.com/",
         "uid=8f3a9c2e1b7d", NULL, NULL},
        {"p", 5, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    json_t *doc = har(v, 3), *entries, *pad = json_array();
    char dir[256], path[300], *text;
    struct brock_stats st, st_text;
    struct run r;
    size_t len, counts[BROCK_ACTION_COUNT], n;
    int fd;

    (void)state;
    /* a header of 100 KB in the first entry, and 2,000 more entries of one.com's own */
    for (int k = 0; k < 25000; k++)
        json_array_append_new(pad, json_string("abc"));
    json_object_set_new(nth(doc, 0), "_padding", pad);
    entries = json_object_get(json_object_get(doc, "log"), "entries");
    for (int k = 0; k < 2000; k++) {
        struct ent own = {"p",  1,    "https://static.one.com/x.png", "image",
                          NULL, NULL, "https://www.one.com/",         "a=1",
                          NULL, NULL};

        json_array_insert_new(entries, 1, entry(&own));
    }
    text = json_dumps(doc, JSON_COMPACT);
    assert_non_null(text);
    len = strlen(text);
    assert_true(len > 8 * 65536);
    test_mkdtemp("har", dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/big.har", dir);
    assert_int_equal(file_write_atomic(path, text, len, 0600), 0);

    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "big.har", fd, NULL, NULL, NULL, &st), 0);
    close(fd);
    /* entry 1 started after entry 2's navigation to two.com */
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(st.entries, 2003);
    brock_engine_free(e);

    e = test_engine_open(NULL, NULL, 1);
    learn_text(e, text, len, &r);
    st_text = r.st;
    assert_int_equal(r.rc, 0);
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(st_text.entries, st.entries);
    assert_int_equal(st_text.third_party, st.third_party);
    brock_engine_free(e);

    /* cut short past the first chunks: refused, nothing learned */
    assert_int_equal(truncate(path, (off_t)(len - 100)), 0);
    e = test_engine_open(NULL, NULL, 1);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "big.har", fd, NULL, NULL, NULL, &st), BROCK_EFORMAT);
    close(fd);
    assert_non_null(strstr(brock_engine_errmsg(e), "big.har: not JSON: the text ends before"));
    brock_counts(e, counts, &n);
    assert_int_equal(n, 0);
    /* a folder is not a file to read in chunks */
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "dir", fd, NULL, NULL, NULL, &st), BROCK_EINVAL);
    assert_string_equal(brock_engine_errmsg(e), "dir: not a regular file");
    close(fd);
    brock_engine_free(e);
    assert_int_equal(test_rmtree(dir), 0);
    free(text);
    json_decref(doc);
}

/* Entries read again from the file far from where the last was, backwards, and one longer
 * than what is read at a time: learned as from the text. */
static void test_file_read_again_out_of_order(void **state)
{
    static const struct ent v[] = {
        {"p", 9, "https://px.tracker.net/a", "image", NULL, NULL, "https://www.two.com/",
         "uid=8f3a9c2e1b7d", NULL, NULL},
        {"p", 5, "https://www.two.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
        {"p", 0, "https://www.one.com/", "document", NULL, NULL, NULL, NULL, NULL, NULL},
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    json_t *doc = har(v, 3), *entries;
    char dir[256], path[300], *text, *big;
    struct brock_stats st;
    struct run r;
    size_t len, big_len = (size_t)3 << 19;
    int fd;

    (void)state;
    /* the first entry, learned last, is 1.5 MB long; 6,000 entries of one.com's own come
     * between it and the two navigations, which are learned first */
    big = malloc(big_len + 1);
    assert_non_null(big);
    memset(big, 'x', big_len);
    big[big_len] = '\0';
    json_object_set_new(nth(doc, 0), "_padding", json_string(big));
    free(big);
    entries = json_object_get(json_object_get(doc, "log"), "entries");
    for (int k = 0; k < 6000; k++) {
        struct ent own = {"p",  1,    "https://static.one.com/x.png", "image",
                          NULL, NULL, "https://www.one.com/",         "a=1",
                          NULL, NULL};

        json_array_insert_new(entries, 1, entry(&own));
    }
    text = json_dumps(doc, JSON_COMPACT);
    assert_non_null(text);
    len = strlen(text);
    assert_true(len > (size_t)3 << 20);
    test_mkdtemp("har", dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/big.har", dir);
    assert_int_equal(file_write_atomic(path, text, len, 0600), 0);

    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(brock_learn_har_fd(e, "big.har", fd, NULL, NULL, NULL, &st), 0);
    close(fd);
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(st.entries, 6003);
    brock_engine_free(e);

    e = test_engine_open(NULL, NULL, 1);
    learn_text(e, text, len, &r);
    assert_int_equal(r.rc, 0);
    assert_string_equal(sites(e, "tracker.net"), "two.com");
    assert_int_equal(r.st.entries, st.entries);
    assert_int_equal(r.st.third_party, st.third_party);
    assert_int_equal(r.st.recorded, st.recorded);
    brock_engine_free(e);
    assert_int_equal(test_rmtree(dir), 0);
    free(text);
    json_decref(doc);
}

/* Every allocation that can fail is survived: an error, or the same result. The entries are
 * built from yajl's callbacks in an arena whose chunks come from brock's allocator, so every
 * one of those is failed in turn, an entry's values failing with it (yajl's own few, made when
 * a parse starts, stay the C library's). */
/* ---- the streaming reader against the whole-document one ---- */

struct learned {
    int rc;
    struct brock_stats st;
    char *pb;
    size_t len;
};

static void learned_by(const char *text, size_t len, int whole, int from_fd, struct learned *l)
{
    struct brock_engine *e = test_engine_open(NULL, test_data("privacybadger"), 1);
    char path[] = "/tmp/brock-har-XXXXXX";
    int fd = -1;

    memset(l, 0, sizeof(*l));
    e->plain = whole;
    if (from_fd) {
        fd = mkstemp(path);
        assert_true(fd >= 0);
        unlink(path);
        assert_int_equal(write(fd, text, len), (ssize_t)len);
        l->rc = brock_learn_har_fd(e, "t.har", fd, NULL, NULL, NULL, &l->st);
        close(fd);
    } else {
        l->rc = brock_learn_har(e, "t.har", text, len, NULL, NULL, NULL, &l->st);
    }
    e->plain = 0;
    if (l->rc == 0)
        assert_int_equal(brock_export(e, "pb", &l->pb, &l->len), 0);
    brock_engine_free(e);
}

#define ONE_ENTRY(SP)                                                                              \
    "{\"log\": {\"entries\": [{\"request\": {\"method\": \"GET\", \"url\":"                        \
    " \"https://a.example/\", \"headers\": []}," SP "\"response\": {\"status\": 200,"              \
    " \"headers\": [{\"name\": \"Content-Type\", \"value\": \"text/html\"}]}}]}}"

/* JSON's whitespace is space, tab, line feed and carriage return alone: a vertical tab or a
 * form feed between tokens (which yajl would skip) refuses the text, saying where. */
static void test_json_whitespace_only(void **state)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {ONE_ENTRY("\f"), "t.har: not JSON: a form feed, which JSON does not allow (line 1, "
                          "column 96)"},
        {ONE_ENTRY("\v"), "t.har: not JSON: a vertical tab, which JSON does not allow (line 1, "
                          "column 96)"},
        {ONE_ENTRY(" \r\n\t"), NULL},
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct run r;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        learn_text(e, cases[i].text, strlen(cases[i].text), &r);
        if (!cases[i].want) {
            assert_int_equal(r.rc, 0);
            continue;
        }
        assert_int_equal(r.rc, BROCK_EFORMAT);
        assert_string_equal(r.errmsg, cases[i].want);
    }
    brock_engine_free(e);
}

#define Z10 "0000000000"
#define Z100 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10
#define WITH_TIME(T) ONE_ENTRY(" \"time\": " T ",")

/* A number is read as the whole-document reader reads it, whether it is kept or not: an
 * integer past 64 bits, or a number past a double's range, refuses the text; a number that
 * underflows is taken as it rounds. */
static void test_numbers_in_range(void **state)
{
    static const char *const big[] = {
        WITH_TIME("9223372036854775808"),
        WITH_TIME("-9223372036854775809"),
        WITH_TIME("1e999"),
        WITH_TIME("-1E+400"),
        WITH_TIME("1" Z100 Z100 Z100 Z100 ".5"),
    };
    static const char *const fine[] = {
        WITH_TIME("9223372036854775807"),  WITH_TIME("-9223372036854775808"), WITH_TIME("1e-999"),
        WITH_TIME("123456789012345678.5"), WITH_TIME("1" Z100 Z100 ".5"),
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct run r;

    (void)state;
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        learn_text(e, big[i], strlen(big[i]), &r);
        assert_int_equal(r.rc, BROCK_EFORMAT);
        assert_non_null(strstr(r.errmsg, "t.har: a number out of range ("));
    }
    for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
        learn_text(e, fine[i], strlen(fine[i]), &r);
        if (r.rc != 0)
            fail_msg("%s: %s", fine[i], r.errmsg);
    }
    brock_engine_free(e);
}

/* A raw NUL byte is no JSON, between tokens (where jansson would let one through after a
 * number) or in a string: both readers refuse it, from the text and from a file. */
static void test_nul_byte_refused(void **state)
{
    static const char *const at[] = {"\"size\": 0", "\"GET"};
    char text[] = ONE_ENTRY(" \"size\": 0 ,");

    (void)state;
    for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        char *nul = strstr(text, at[i]);
        struct learned l;

        assert_non_null(nul);
        nul[strlen(at[i])] = '\0';
        for (int k = 0; k < 3; k++) {
            learned_by(text, sizeof(text) - 1, k == 0, k == 2, &l);
            assert_int_equal(l.rc, BROCK_EFORMAT);
            brock_free(l.pb);
        }
        nul[strlen(at[i])] = at[i][strlen(at[i]) - 1] == '0' ? ' ' : '"';
    }
}

#define WITH_REFERER(V) ONE_ENTRY(" \"_x\": \"" V "\",")

/* A string both readers must read alike: refused by all three (the whole-document reader, the
 * streaming one from the text and from a file) or taken by all three. */
static void assert_all(const char *text, size_t len, int want)
{
    for (int k = 0; k < 3; k++) {
        struct learned l;

        learned_by(text, len, k == 0, k == 2, &l);
        if (l.rc != want)
            fail_msg("reader %d: %d, not %d, for %.60s", k, l.rc, want, text + len / 2);
        brock_free(l.pb);
    }
}

/* Strings that are not Unicode are refused by the streaming reader as by jansson: an overlong
 * UTF-8 form (yajl takes C1 9B), an encoded surrogate, a code point past U+10FFFF, and a
 * surrogate escaped without its pair (yajl reads one as '?'), also in a key; an escaped pair
 * is taken. So are they when the end of a chunk the text is read in cuts them anywhere. */
static void test_strings_are_unicode(void **state)
{
    static const char *const bad[] = {
        WITH_REFERER("\xc1\x9b"),       WITH_REFERER("\xe0\x80\xaf"),
        WITH_REFERER("\xed\xa0\x80"),   WITH_REFERER("\xf4\x90\x80\x80"),
        WITH_REFERER("\\ud800"),        WITH_REFERER("\\udc00"),
        WITH_REFERER("\\ud800\\u0041"), ONE_ENTRY(" \"\xc0\xaf\": 1,"),
    };
    static const char *const good[] = {WITH_REFERER("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
                                       WITH_REFERER("\\ud83d\\ude00"), WITH_REFERER("\\\\ud800")};
    const size_t chunk = (size_t)64 << 10;
    const char *entry = ONE_ENTRY("");

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_all(bad[i], strlen(bad[i]), BROCK_EFORMAT);
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_all(good[i], strlen(good[i]), 0);
    /* An escape, or a character's UTF-8, cut at every byte by the end of the first 64 KiB
     * the text is read in. */
    static const struct {
        const char *s;
        int rc;
    } cuts[] = {
        {"\\ud83d\\ude00", 0},           {"\\ud83d\\u0041", BROCK_EFORMAT},
        {"\xf0\x9f\x98\x80", 0},         {"\xed\xa0\x80", BROCK_EFORMAT},
        {"\xe0\x80\xaf", BROCK_EFORMAT}, {"\xc3\xa9\xe2\x82\xac", 0},
    };
    for (size_t cut = 1; cut < 12; cut++) {
        for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
            const char *head = "{\"log\": {\"comment\": \"";
            char *text = test_malloc(chunk + 256);
            size_t n = strlen(head), pad = chunk - cut - n;

            memcpy(text, head, n);
            memset(text + n, 'x', pad);
            n += pad;
            n += (size_t)sprintf(text + n, "%s\", %s", cuts[i].s, strstr(entry, "\"entries\""));
            assert_all(text, n, cuts[i].rc);
            test_free(text);
        }
    }
}

/* Whether json_utf8_strict() (eight ASCII bytes at a time, then byte by byte) says of the n
 * bytes at seq, put after pad ASCII bytes and before seven more, what jansson's own check says. */
static void utf8_agrees(const unsigned char *seq, size_t n, size_t pad)
{
    unsigned char buf[32];
    json_t *ref;

    memset(buf, 'a', sizeof(buf));
    memcpy(buf + pad, seq, n);
    ref = json_stringn((const char *)buf, pad + n + 7);
    if (json_utf8_strict(buf, pad + n + 7) != (ref != NULL))
        fail_msg("%zu bytes from %02x after %zu: jansson %s", n, seq[0], pad,
                 ref ? "takes them" : "refuses them");
    json_decref(ref);
}

/* The strict UTF-8 check against its reference, jansson's (which the whole-document reader
 * uses): every sequence of one and two bytes, and three and four bytes with every lead past
 * ASCII and the follow bytes on both sides of each range's ends, each after 0, 7 and 9 ASCII
 * bytes, so that the eight-byte skip stops anywhere. */
static void test_utf8_against_jansson(void **state)
{
    static const unsigned char edge[] = {0x00, 0x7f, 0x80, 0x8f, 0x90,
                                         0x9f, 0xa0, 0xbf, 0xc0, 0xff};
    static const size_t pads[] = {0, 7, 9};
    unsigned char s[4];

    (void)state;
    for (size_t k = 0; k < 3; k++) {
        for (unsigned a = 0; a < 256; a++) {
            s[0] = (unsigned char)a;
            utf8_agrees(s, 1, pads[k]);
            for (unsigned b = 0; b < 256; b++) {
                s[1] = (unsigned char)b;
                utf8_agrees(s, 2, pads[k]);
            }
            for (size_t i = 0; a >= 0xc0 && i < sizeof(edge); i++)
                for (size_t j = 0; j < sizeof(edge); j++) {
                    s[1] = edge[i];
                    s[2] = edge[j];
                    utf8_agrees(s, 3, pads[k]);
                    for (size_t m = 0; a >= 0xf0 && m < sizeof(edge); m++) {
                        s[3] = edge[m];
                        utf8_agrees(s, 4, pads[k]);
                    }
                }
        }
    }
}

/* Every recording in tests/data/har, and cases of this file's, learned from the text and
 * from the file by the streaming reader teach exactly what the whole-document reader
 * (e->plain) teaches: the same counts, the same exported state. */
static void test_stream_is_whole(void **state)
{
    static const char *const files[] = {"browsing.har", "pixel-cookie-share.har",
                                        "plain-browsing.har", "playwright-one-page.har",
                                        "untyped-one-page.har"};
    static const char *const texts[] = {
        "{\"log\": {\"entries\": []}}",
        "{\"log\": {\"pages\": 3, \"entries\": [1, {\"request\": 2}]}}",
        "[]",
        "{\"log\": {\"entries\": [{\"request\": {\"method\": \"GET\", \"url\":"
        " \"https://a.example/\", \"headers\": []}, \"response\": {\"status\": 200,"
        " \"headers\": [{\"name\": \"Content-Type\", \"value\": \"text/html\"}]}}]}}",
        ONE_ENTRY("\f"),
        ONE_ENTRY("\v"),
        WITH_TIME("9223372036854775808"),
        WITH_TIME("1e999"),
        WITH_TIME("1e-999"),
        WITH_TIME("1" Z100 Z100 Z100 Z100 ".5"),
    };
    size_t n = sizeof(files) / sizeof(files[0]), m = sizeof(texts) / sizeof(texts[0]);

    (void)state;
    for (size_t i = 0; i < n + m; i++) {
        char rel[64], *text = NULL;
        size_t len;
        struct learned ref, stream, file;

        if (i < n) {
            snprintf(rel, sizeof(rel), "har/%s", files[i]);
            if (file_read(test_data(rel), (size_t)1 << 26, &text, &len) < 0)
                fail_msg("cannot read %s", test_data(rel));
        } else {
            snprintf(rel, sizeof(rel), "case %zu", i - n);
            text = mem_strdup(texts[i - n]);
            len = strlen(text);
        }
        learned_by(text, len, 1, 0, &ref);
        learned_by(text, len, 0, 0, &stream);
        learned_by(text, len, 0, 1, &file);
        for (int k = 0; k < 2; k++) {
            const struct learned *o = k ? &file : &stream;

            if (o->rc != ref.rc || memcmp(&o->st, &ref.st, sizeof(o->st)) != 0 ||
                o->len != ref.len || (o->len && memcmp(o->pb, ref.pb, o->len) != 0))
                fail_msg("%s: the streaming reader (%s) learns otherwise than the whole one", rel,
                         k ? "a file" : "text");
        }
        if (i < n)
            assert_int_equal(ref.rc, 0);
        brock_free(ref.pb);
        brock_free(stream.pb);
        brock_free(file.pb);
        mem_free(text);
    }
}

static void test_out_of_memory(void **state)
{
    char *text = NULL;
    size_t len = 0;
    long k;

    (void)state;
    assert_int_equal(file_read(test_data("har/playwright-one-page.har"), 1 << 20, &text, &len), 0);
    for (k = 0;; k++) {
        struct brock_engine *e = test_engine_open(NULL, NULL, 1);
        struct brock_stats st;
        int rc;

        alloc_countdown = k;
        rc = brock_learn_har(e, "t.har", text, len, NULL, NULL, NULL, &st);
        alloc_countdown = -1;
        if (rc == 0) {
            assert_string_equal(sites(e, "tracker.test"),
                                "site-one.test,site-two.test,site-three.test");
            brock_engine_free(e);
            break;
        }
        if (rc != BROCK_ENOMEM)
            fail_msg("allocation %ld: %s", k, brock_engine_errmsg(e));
        brock_engine_free(e);
    }
    assert_true(k > 100);
    mem_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_a_har),
        cmocka_unit_test(test_pages_after_entries),
        cmocka_unit_test(test_truncated_mid_entry),
        cmocka_unit_test(test_file_larger_than_a_chunk),
        cmocka_unit_test(test_file_read_again_out_of_order),
        cmocka_unit_test(test_json_whitespace_only),
        cmocka_unit_test(test_numbers_in_range),
        cmocka_unit_test(test_nul_byte_refused),
        cmocka_unit_test(test_strings_are_unicode),
        cmocka_unit_test(test_utf8_against_jansson),
        cmocka_unit_test(test_stream_is_whole),
        cmocka_unit_test(test_out_of_memory),
    };

    if (brock_replace_allocator(t_malloc, t_realloc, t_calloc, free) != 0)
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
