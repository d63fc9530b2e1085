/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The script's place in a streaming document: after <head ...>, else before the first tag that
 * is not a doctype, comment or <html>; the same output however the bytes are split; only a tag's
 * start held back; a document with no place gets it past INJECT_SCAN_MAX or at its end. */
#include "test.h"

#include <string.h>

#include "proxy/inject.h"

#define S "<script>S</script>"

struct sink {
    char *data;
    size_t len, cap;
    int fail_at; /* the emit call that fails (1: the first); 0: none */
    int calls;
};

static int on_emit(void *arg, const char *p, size_t len)
{
    struct sink *k = arg;

    if (++k->calls == k->fail_at)
        return -1;
    if (k->len + len + 1 > k->cap) {
        k->cap = (k->len + len + 1) * 2;
        k->data = realloc(k->data, k->cap);
        assert_non_null(k->data);
    }
    memcpy(k->data + k->len, p, len);
    k->len += len;
    k->data[k->len] = '\0';
    return 0;
}

/* Feeds doc[0..len) in pieces of step bytes (the first piece first bytes long, when given),
 * then ends it; the output into k (freed by the caller). */
static void run(const char *doc, size_t len, size_t first, size_t step, struct sink *k)
{
    struct inject in;
    size_t off = 0;

    memset(k, 0, sizeof(*k));
    on_emit(k, "", 0);
    k->calls = 0;
    inject_init(&in, S, strlen(S), on_emit, k);
    while (off < len) {
        size_t n = off == 0 && first ? first : step;

        if (n > len - off)
            n = len - off;
        assert_int_equal(inject_feed(&in, doc + off, n), 0);
        off += n;
    }
    assert_int_equal(inject_end(&in), 0);
}

/* want is doc with the script where it belongs; every split of doc gives it. */
static void expect_len(const char *doc, size_t len, const char *want, size_t want_len)
{
    for (size_t first = 0; first <= len; first++) {
        for (size_t step = 1; step <= len + 1; step++) {
            struct sink k;

            if (first && step != len + 1)
                continue; /* a split in two at every offset; steps of every size */
            run(doc, len, first, step, &k);
            if (k.len != want_len || memcmp(k.data, want, want_len) != 0)
                fail_msg("'%s' split at %zu, steps of %zu: got '%s', want '%s'", doc, first, step,
                         k.data, want);
            free(k.data);
        }
    }
}

static void expect(const char *doc, const char *want)
{
    expect_len(doc, strlen(doc), want, strlen(want));
}

static void test_after_head(void **state)
{
    (void)state;
    expect("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<title>A page</title></head><body><p>Hello</p></body></html>\n",
           "<!DOCTYPE html>\n<html lang=\"en\">\n<head>" S "\n<meta charset=\"utf-8\">\n"
           "<title>A page</title></head><body><p>Hello</p></body></html>\n");
    expect("<head><title>x</title></head><head>", "<head>" S "<title>x</title></head><head>");
    expect("<head/>x", "<head/>" S "x");
    expect("<html><head  profile=x >", "<html><head  profile=x >" S);
}

static void test_no_head(void **state)
{
    (void)state;
    expect("<!doctype html><html><body>x</body></html>",
           "<!doctype html><html>" S "<body>x</body></html>");
    expect("<html>\n  <!-- c -->\n  <body>", "<html>\n  <!-- c -->\n  " S "<body>");
    expect("<html><title>t</title>", "<html>" S "<title>t</title>");
}

static void test_no_html(void **state)
{
    (void)state;
    expect("<p>hi</p>", S "<p>hi</p>");
    expect("hello <b>world</b>", "hello " S "<b>world</b>");
    expect("<header><head>", S "<header><head>");
    expect("<htmlx><head>", S "<htmlx><head>");
    expect("<hea>", S "<hea>");
    expect("<h1>x", S "<h1>x");
    expect("</p><head>", S "</p><head>");
    expect("<script>alert(1)</script>", S "<script>alert(1)</script>");
    /* Not tags: text, a bogus comment, an empty end tag, a processing instruction. */
    expect("a <3 b < c<head>", "a <3 b < c<head>" S);
    expect("</3 x><head>", "</3 x><head>" S);
    expect("</><head>", "</><head>" S);
    expect("<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head>",
           "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head>" S);
}

static void test_comments(void **state)
{
    (void)state;
    expect("<!-- <head> --><head>", "<!-- <head> --><head>" S);
    expect("<!--><head>", "<!--><head>" S);
    expect("<!---><head>", "<!---><head>" S);
    expect("<!-- --!><head>", "<!-- --!><head>" S);
    expect("<!-- - -><p> --><p>", "<!-- - -><p> -->" S "<p>");
    expect("<!--!><p>--><p>", "<!--!><p>-->" S "<p>");
    expect("<!-- ---><p>", "<!-- --->" S "<p>");
    expect("<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\"><head>",
           "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\"><head>" S);
    expect("<![CDATA[ <p> ]]><head>", "<![CDATA[ <p> ]]><head>" S);
    expect("<!-x><head>", "<!-x><head>" S);
}

static void test_bom_and_case(void **state)
{
    (void)state;
    expect("\xEF\xBB\xBF<!DOCTYPE html><html><head>", "\xEF\xBB\xBF<!DOCTYPE html><html><head>" S);
    expect("<HTML><HEAD><TITLE>", "<HTML><HEAD>" S "<TITLE>");
    expect("<hTmL><HeAd\n>", "<hTmL><HeAd\n>" S);
    /* UTF-16 (a byte order mark, a NUL before the head): brock's bytes would be garbage. */
    expect_len("\xFF\xFE<\0h\0", 6, "\xFF\xFE<\0h\0", 6);
    expect_len("\xFE\xFF\0<\0h", 6, "\xFE\xFF\0<\0h", 6);
    expect_len("<\0h\0t\0", 6, "<\0h\0t\0", 6);
}

static void test_quoted_gt(void **state)
{
    (void)state;
    expect("<head data-x=\"a>b\" data-y='c>d'><title>",
           "<head data-x=\"a>b\" data-y='c>d'>" S "<title>");
    expect("<html a=\">\" b = '<head>'><head c=\"\">",
           "<html a=\">\" b = '<head>'><head c=\"\">" S);
    expect("<head a=b>c", "<head a=b>" S "c");
    expect("<head a= \"x>y\">", "<head a= \"x>y\">" S);
    /* A quote starts a value only after '=': elsewhere it is part of a name. */
    expect("<head a\"b>c\">", "<head a\"b>" S "c\">");
    expect("<head =\"x>\">", "<head =\"x>" S "\">");
    expect("<head a=\"x\"=\">\">", "<head a=\"x\"=\">" S "\">");
    expect("<head a/=\">\">", "<head a/=\">" S "\">");
}

static void test_empty_and_text(void **state)
{
    (void)state;
    expect("", "");
    expect("hello", "hello" S);
    expect("<he", S "<he");
    expect("<!-- unclosed <head>", "<!-- unclosed <head>" S);
}

/* Only a tag's start is held: every byte but the held ones is out when fed. */
static void test_bounded_hold(void **state)
{
    static const char doc[] = "<!DOCTYPE html><!-- x --><html lang=en><head><title>t</title>";
    struct inject in;
    struct sink k;

    (void)state;
    memset(&k, 0, sizeof(k));
    inject_init(&in, S, strlen(S), on_emit, &k);
    for (size_t i = 0; i < sizeof(doc) - 1; i++) {
        assert_int_equal(inject_feed(&in, doc + i, 1), 0);
        if (k.len + INJECT_HOLD_MAX < i + 1)
            fail_msg("%zu bytes held after %zu", i + 1 - k.len, i + 1);
    }
    assert_int_equal(inject_end(&in), 0);
    free(k.data);
}

/* A large page with no tag: never more than the hold back, and the script goes in at
 * INJECT_SCAN_MAX; one with a long comment gets it right after the comment. */
static void test_large_page(void **state)
{
    size_t size = 4 * 1024 * 1024;
    char *doc = malloc(size);
    struct inject in;
    struct sink k;

    (void)state;
    assert_non_null(doc);
    memset(doc, 'a', size);
    memset(&k, 0, sizeof(k));
    inject_init(&in, S, strlen(S), on_emit, &k);
    for (size_t off = 0; off < size; off += 4096) {
        assert_int_equal(inject_feed(&in, doc + off, 4096), 0);
        assert_true(k.len + INJECT_HOLD_MAX >= off + 4096);
    }
    assert_int_equal(inject_end(&in), 0);
    assert_int_equal(k.len, size + strlen(S));
    assert_memory_equal(k.data + INJECT_SCAN_MAX, S, strlen(S));
    free(k.data);

    memcpy(doc, "<!--", 4);
    memcpy(doc + 100000, "--><head>", 9);
    run(doc, size, 0, 1000, &k);
    assert_int_equal(k.len, size + strlen(S));
    assert_memory_equal(k.data + 100003, S, strlen(S));
    free(k.data);
    free(doc);
}

static void test_emit_fails(void **state)
{
    struct inject in;
    struct sink k;

    (void)state;
    for (int at = 1; at <= 3; at++) {
        memset(&k, 0, sizeof(k));
        k.fail_at = at;
        inject_init(&in, S, strlen(S), on_emit, &k);
        if (inject_feed(&in, "<p><head>", 9) == 0)
            assert_int_equal(inject_end(&in), -1);
        free(k.data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_after_head),     cmocka_unit_test(test_no_head),
        cmocka_unit_test(test_no_html),        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_bom_and_case),   cmocka_unit_test(test_quoted_gt),
        cmocka_unit_test(test_empty_and_text), cmocka_unit_test(test_bounded_hold),
        cmocka_unit_test(test_large_page),     cmocka_unit_test(test_emit_fails),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
