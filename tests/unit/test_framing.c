/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Framing checks: heads and chunked bodies scanned whole and split at every byte, and the
 * Content-Length and Transfer-Encoding rules, bad forms and good ones. */
#include "test.h"

#include <string.h>

#include "proxy/framing.h"

/* Scans text as a head in pieces of at most step bytes; returns the result and sets *end to
 * the offset just past the head when done. */
static int scan_head(const char *text, size_t len, size_t step, size_t *end)
{
    struct framing_head fh;
    size_t off = 0;

    memset(&fh, 0, sizeof(fh));
    while (off < len) {
        size_t n = len - off < step ? len - off : step, used;
        int rc = framing_head_feed(&fh, text + off, n, &used);

        if (rc == FRAMING_BAD)
            return rc;
        if (rc == FRAMING_DONE) {
            *end = off + used;
            return rc;
        }
        off += n;
    }
    return FRAMING_MORE;
}

/* Like scan_head, for a chunked body (after the head's last line feed, which comes first). */
static int scan_chunks(const char *text, size_t len, size_t step, size_t *end)
{
    struct framing_chunks fc;
    size_t off = 0;

    framing_chunks_start(&fc);
    while (off < len) {
        size_t n = len - off < step ? len - off : step, used;
        int rc = framing_chunks_feed(&fc, text + off, n, &used);

        if (rc == FRAMING_BAD)
            return rc;
        if (rc == FRAMING_DONE) {
            *end = off + used;
            return rc;
        }
        off += n;
    }
    return FRAMING_MORE;
}

/* Every split gives the same answer as the whole. */
static void expect_head(const char *text, size_t len, int want, size_t want_end)
{
    size_t step;

    for (step = 1; step <= len; step++) {
        size_t end = 0;
        int rc = scan_head(text, len, step, &end);

        if (rc != want)
            fail_msg("head %s: step %zu gave %d, not %d", text, step, rc, want);
        if (want == FRAMING_DONE && end != want_end)
            fail_msg("head %s: step %zu ended at %zu, not %zu", text, step, end, want_end);
    }
}

#define HEAD_BAD(s) expect_head(s, sizeof(s) - 1, FRAMING_BAD, 0)

static void test_head_good(void **state)
{
    static const char a[] = "GET / HTTP/1.1\r\nHost: a\r\nX-Tab: a\tb\r\nX-Empty:\r\n\r\nBODY";
    static const char b[] = "\r\nHTTP/1.1 200 OK\r\nX-Obs: caf\xc3\xa9\r\n\r\n";
    static const char c[] = "GET / HTTP/1.1\r\nHost: a";

    (void)state;
    expect_head(a, sizeof(a) - 1, FRAMING_DONE, sizeof(a) - 1 - 4);
    expect_head(b, sizeof(b) - 1, FRAMING_DONE, sizeof(b) - 1);
    expect_head(c, sizeof(c) - 1, FRAMING_MORE, 0);
}

static void test_head_bad(void **state)
{
    (void)state;
    HEAD_BAD("GET / HTTP/1.1\nHost: a\r\n\r\n");                        /* bare LF, start line */
    HEAD_BAD("GET / HTTP/1.1\r\nHost: a\n\r\n");                        /* bare LF, header */
    HEAD_BAD("GET / HTTP/1.1\r\nHost: a\r\n\n");                        /* bare LF, end */
    HEAD_BAD("\nGET / HTTP/1.1\r\n\r\n");                               /* bare LF, before */
    HEAD_BAD("GET / HTTP/1.1\rHost: a\r\n\r\n");                        /* bare CR */
    HEAD_BAD("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n");                      /* bare CR in a value */
    HEAD_BAD("GET / HTTP/1.1\r\nHost: a\r\n\rX");                       /* bare CR at the end */
    HEAD_BAD("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n");                   /* obs-fold, SP */
    HEAD_BAD("GET / HTTP/1.1\r\nX: a\r\n\tb\r\n\r\n");                  /* obs-fold, HTAB */
    HEAD_BAD("GET / HTTP/1.1\r\nX\0Y: a\r\n\r\n");                      /* NUL in a name */
    HEAD_BAD("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n");                      /* NUL in a value */
    HEAD_BAD("GET / HTTP/1.1\r\nX: a\x01\r\n\r\n");                     /* control character */
    HEAD_BAD("GET / HTTP/1.1\r\nX: a\x7f\r\n\r\n");                     /* DEL */
    HEAD_BAD("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\v\r\n\r\n"); /* VT */
    HEAD_BAD("GET / HTTP/1.1\r\nX(Y): a\r\n\r\n");                      /* non-token name */
    HEAD_BAD("GET / HTTP/1.1\r\nX\x80: a\r\n\r\n");                     /* obs-text in a name */
    HEAD_BAD("GET / HTTP/1.1\r\nX : a\r\n\r\n");                        /* space before the colon */
    HEAD_BAD("GET / HTTP/1.1\r\nX\t: a\r\n\r\n");                       /* tab before the colon */
    HEAD_BAD("GET / HTTP/1.1\r\n: a\r\n\r\n");                          /* empty name */
    HEAD_BAD("GET / HTTP/1.1\r\nX a\r\n\r\n");                          /* no colon */
    HEAD_BAD("GET /\0 HTTP/1.1\r\n\r\n");                               /* NUL in the start line */
    HEAD_BAD("GET /\t HTTP/1.1\r\n\r\n");                               /* HTAB in the start line */
    HEAD_BAD(" GET / HTTP/1.1\r\n\r\n");                                /* leading space */
}

static void test_head_stays_done(void **state)
{
    struct framing_head fh;
    size_t used;

    (void)state;
    memset(&fh, 0, sizeof(fh));
    assert_int_equal(framing_head_feed(&fh, "GET / HTTP/1.1\r\n\r\n\n\0", 20, &used), FRAMING_DONE);
    assert_int_equal(used, 18);
    /* What follows the head (a body, the next request) is not looked at. */
    assert_int_equal(framing_head_feed(&fh, "\n\0", 2, &used), FRAMING_DONE);
    assert_int_equal(used, 0);
    framing_head_reset(&fh);
    assert_int_equal(framing_head_feed(&fh, "\n", 1, &used), FRAMING_BAD);
    assert_non_null(fh.reason);
}

static void expect_chunks(const char *text, size_t len, int want, size_t want_end)
{
    size_t step;

    for (step = 1; step <= len; step++) {
        size_t end = 0;
        int rc = scan_chunks(text, len, step, &end);

        if (rc != want)
            fail_msg("chunks %s: step %zu gave %d, not %d", text, step, rc, want);
        if (want == FRAMING_DONE && end != want_end)
            fail_msg("chunks %s: step %zu ended at %zu, not %zu", text, step, end, want_end);
    }
}

#define CHUNKS_BAD(s) expect_chunks(s, sizeof(s) - 1, FRAMING_BAD, 0)

static void test_chunks_good(void **state)
{
    static const char a[] = "\n5\r\nhello\r\n0\r\n\r\nNEXT";
    static const char b[] = "\nA;name=\"v\\\"x\"\r\n0123456789\r\n1 ;x\r\n\r\r\n0\r\n"
                            "Trailer: t\r\n\r\n";
    static const char c[] = "\nfFfF\r\n";

    (void)state;
    expect_chunks(a, sizeof(a) - 1, FRAMING_DONE, sizeof(a) - 1 - 4);
    expect_chunks(b, sizeof(b) - 1, FRAMING_DONE, sizeof(b) - 1);
    expect_chunks(c, sizeof(c) - 1, FRAMING_MORE, 0);
}

static void test_chunks_bad(void **state)
{
    (void)state;
    CHUNKS_BAD("\rX5\r\nhello\r\n0\r\n\r\n");       /* the head's CR without LF */
    CHUNKS_BAD("\nzz\r\nhello\r\n0\r\n\r\n");       /* not hex */
    CHUNKS_BAD("\n5x\r\nhello\r\n0\r\n\r\n");       /* junk after the size */
    CHUNKS_BAD("\n5 x\r\nhello\r\n0\r\n\r\n");      /* junk after whitespace */
    CHUNKS_BAD("\n-5\r\nhello\r\n0\r\n\r\n");       /* sign */
    CHUNKS_BAD("\n0x5\r\nhello\r\n0\r\n\r\n");      /* 0x prefix */
    CHUNKS_BAD("\n10000000000000005\r\nhello\r\n"); /* overflow */
    CHUNKS_BAD("\n5\nhello\r\n0\r\n\r\n");          /* bare LF after the size */
    CHUNKS_BAD("\n5\rhello\r\n0\r\n\r\n");          /* bare CR after the size */
    CHUNKS_BAD("\n5;a\rb\r\nhello\r\n0\r\n\r\n");   /* bare CR in an extension */
    CHUNKS_BAD("\n5;a\nb\r\nhello\r\n0\r\n\r\n");   /* bare LF in an extension */
    CHUNKS_BAD("\n5;a\0\r\nhello\r\n0\r\n\r\n");    /* NUL in an extension */
    CHUNKS_BAD("\n5\r\nhello!\r\n0\r\n\r\n");       /* data longer than its size */
    CHUNKS_BAD("\n5\r\nhello\rX0\r\n\r\n");         /* CR without LF after the data */
    CHUNKS_BAD("\n\r\nhello\r\n0\r\n\r\n");         /* empty size */
    CHUNKS_BAD("\n0\r\nX: a\n\r\n");                /* bare LF in a trailer */
    CHUNKS_BAD("\n0\r\n folded\r\n\r\n");           /* obs-fold in the trailers */
}

/* ---- headers ---- */

static const char *check(unsigned flags, const char *a, const char *va, const char *b,
                         const char *vb)
{
    struct brock_header h[3] = {
        {"Host", 4, "x", 1},
        {a, a ? strlen(a) : 0, va, va ? strlen(va) : 0},
        {b, b ? strlen(b) : 0, vb, vb ? strlen(vb) : 0},
    };
    const char *reason = NULL;
    size_t n = b ? 3 : a ? 2 : 1;
    struct framing_te te;

    if (framing_check_headers(h, n, flags, &te, &reason) == 0)
        return NULL;
    assert_non_null(reason);
    return reason;
}

#define OK(...) assert_null(check(__VA_ARGS__))
#define BAD(...) assert_non_null(check(__VA_ARGS__))

static void test_headers_good(void **state)
{
    (void)state;
    OK(0, NULL, NULL, NULL, NULL);
    OK(0, "Content-Length", "0", NULL, NULL);
    OK(0, "content-length", " 42 ", NULL, NULL);
    OK(0, "Content-Length", "9223372036854775807", NULL, NULL);
    OK(0, "Transfer-Encoding", "chunked", NULL, NULL);
    OK(0, "Transfer-Encoding", "Chunked", NULL, NULL);
    OK(0, "Transfer-Encoding", "gzip, chunked", NULL, NULL);
    OK(0, "Transfer-Encoding", "gzip", "Transfer-Encoding", "chunked");
    OK(FRAMING_RESPONSE, "Transfer-Encoding", "chunked", NULL, NULL);
    OK(FRAMING_HTTP10, "Content-Length", "3", NULL, NULL);
}

static void test_headers_bad(void **state)
{
    const char *r;

    (void)state;
    r = check(0, "Content-Length", "3", "Transfer-Encoding", "chunked");
    assert_string_equal(r, "ambiguous framing: Content-Length with Transfer-Encoding");
    BAD(FRAMING_RESPONSE, "Transfer-Encoding", "chunked", "Content-Length", "3");
    /* Repeated Content-Length, even identical (RFC 9110 8.6 allows refusing). */
    BAD(0, "Content-Length", "3", "Content-Length", "4");
    BAD(0, "Content-Length", "3", "Content-Length", "3");
    BAD(0, "Content-Length", "3, 4", NULL, NULL);
    BAD(0, "Content-Length", "3,3", NULL, NULL);
    BAD(0, "Content-Length", "+3", NULL, NULL);
    BAD(0, "Content-Length", "-3", NULL, NULL);
    BAD(0, "Content-Length", "1 2", NULL, NULL);
    BAD(0, "Content-Length", "0x3", NULL, NULL);
    BAD(0, "Content-Length", "", NULL, NULL);
    BAD(0, "Content-Length", "9223372036854775808", NULL, NULL);
    BAD(0, "Content-Length", "99999999999999999999999", NULL, NULL);
    BAD(0, "Transfer-Encoding", "xchunked", NULL, NULL);
    BAD(0, "Transfer-Encoding", "chunkedx", NULL, NULL);
    BAD(0, "Transfer-Encoding", "chunked ,", NULL, NULL);
    BAD(0, "Transfer-Encoding", ", chunked", NULL, NULL);
    BAD(0, "Transfer-Encoding", "chunked\v", NULL, NULL);
    BAD(0, "Transfer-Encoding", "chunked, gzip", NULL, NULL);
    BAD(0, "Transfer-Encoding", "chunked, chunked", NULL, NULL);
    BAD(0, "Transfer-Encoding", "chunked", "Transfer-Encoding", "chunked");
    BAD(0, "Transfer-Encoding", "chunked", "Transfer-Encoding", "gzip");
    BAD(0, "Transfer-Encoding", "identity", NULL, NULL);
    BAD(0, "Transfer-Encoding", "", NULL, NULL);
    BAD(0, "Transfer-Encoding", "\"chunked\"", NULL, NULL);
    BAD(0, "Transfer-Encoding", "gzip chunked", NULL, NULL);
    BAD(0, "Transfer-Encoding", "gzip,,chunked", NULL, NULL);
    BAD(0, "Transfer-Encoding", "chunked;a=1, gzip", NULL, NULL);
    BAD(FRAMING_HTTP10, "Transfer-Encoding", "chunked", NULL, NULL);
    /* A response that would end only at close is refused as ambiguous too. */
    BAD(FRAMING_RESPONSE, "Transfer-Encoding", "gzip", NULL, NULL);
}

/* check() always sends one Host ("x") first. */
static void test_headers_host(void **state)
{
    (void)state;
    OK(0, "X-Host", "y", "Hosts", "z");
    OK(0, "Host-Name", "a,b", NULL, NULL);
    assert_string_equal(check(0, "Host", "y", NULL, NULL),
                        "ambiguous host: more than one Host header");
    BAD(0, "host", "x", NULL, NULL);
    BAD(FRAMING_HTTP10, "HOST", "", NULL, NULL);
    assert_string_equal(check(0, "Content-Length", "0", "Host", "x"),
                        "ambiguous host: more than one Host header");
    /* A response's Host is no one's business. */
    OK(FRAMING_RESPONSE, "Host", "y", NULL, NULL);
}

static void test_headers_host_list(void **state)
{
    struct brock_header h[] = {{"Host", 4, "a.test, b.test", 14}};
    struct brock_header one[] = {{"Host", 4, "[::1]:8119", 10}};
    const char *reason = NULL;
    struct framing_te te;

    (void)state;
    assert_int_equal(framing_check_headers(h, 1, 0, &te, &reason), FRAMING_BAD);
    assert_string_equal(reason, "ambiguous host: a list of hosts in the Host header");
    h[0].value = ",";
    h[0].value_len = 1;
    assert_int_equal(framing_check_headers(h, 1, 0, &te, &reason), FRAMING_BAD);
    assert_int_equal(framing_check_headers(one, 1, 0, &te, &reason), 0);
    assert_int_equal(framing_check_headers(h, 0, 0, &te, &reason), 0);
}

/* ---- Transfer-Encoding lists ---- */

/* The Transfer-Encoding of one field with value v (and a second field v2 unless NULL), as
 * framing_check_headers() reads it: NULL when accepted, *te then filled. */
static const char *te_check(const char *v, const char *v2, unsigned flags, struct framing_te *te)
{
    struct brock_header h[2] = {
        {"Transfer-Encoding", 17, v, strlen(v)},
        {"Transfer-Encoding", 17, v2, v2 ? strlen(v2) : 0},
    };
    const char *reason = NULL;

    if (framing_check_headers(h, v2 ? 2 : 1, flags | FRAMING_RESPONSE, te, &reason) == 0)
        return NULL;
    assert_non_null(reason);
    return reason;
}

/* RFC 9110 10.1.4 and 5.6.1: lists with optional whitespace (spaces or tabs) around commas
 * and semicolons, and codings with parameters, are valid; brock forwards any but one bare
 * "chunked" in its own plain words. */
static void test_te_lists_good(void **state)
{
    static const struct {
        const char *v, *v2, *normal;
        int unusual;
    } cases[] = {
        {"chunked", NULL, "chunked", 0},
        {"CHUNKED", NULL, "chunked", 0},
        {"gzip, chunked", NULL, "gzip, chunked", 1},
        {"gzip\t,\tchunked", NULL, "gzip, chunked", 1},
        {"gzip ,chunked", NULL, "gzip, chunked", 1},
        {"gzip   ,  \t chunked", NULL, "gzip, chunked", 1},
        {"chunked\t", NULL, "chunked", 1},
        {"chunked;foo=bar", NULL, "chunked", 1},
        {"chunked ; foo = bar ;x=\"y\"", NULL, "chunked", 1},
        {"gzip;level=1, chunked", NULL, "gzip;level=1, chunked", 1},
        {"gzip ;\tlevel = 1 ,chunked", NULL, "gzip;level=1, chunked", 1},
        {"x-zip;a=\"1, 2\";b=\"q\\\"t\", Chunked", NULL, "x-zip;a=\"1, 2\";b=\"q\\\"t\", chunked",
         1},
        {"gzip", "chunked", "gzip, chunked", 1},
        {"gzip, deflate", "chunked;x=1", "gzip, deflate, chunked", 1},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct framing_te te;
        const char *r = te_check(cases[i].v, cases[i].v2, 0, &te);

        if (r)
            fail_msg("'%s': refused: %s", cases[i].v, r);
        assert_true(te.seen);
        assert_true(te.chunked);
        assert_string_equal(te.normal, cases[i].normal);
        assert_int_equal(te.normal_len, strlen(cases[i].normal));
        if (te.unusual != cases[i].unusual)
            fail_msg("'%s': unusual is %d", cases[i].v, te.unusual);
    }
}

static void test_te_lists_bad(void **state)
{
    static const struct {
        const char *v, *v2, *reason;
    } cases[] = {
        {"chunked;", NULL, "ambiguous framing: invalid Transfer-Encoding parameter"},
        {"chunked;foo", NULL, "ambiguous framing: invalid Transfer-Encoding parameter"},
        {"chunked;foo=", NULL, "ambiguous framing: invalid Transfer-Encoding parameter"},
        {"chunked;=bar", NULL, "ambiguous framing: invalid Transfer-Encoding parameter"},
        {"chunked;foo=\"bar", NULL, "ambiguous framing: invalid Transfer-Encoding parameter"},
        {"chunked;foo=\"bar\\\"", NULL, "ambiguous framing: invalid Transfer-Encoding parameter"},
        {"chunked;foo=b@r", NULL, "ambiguous framing: invalid Transfer-Encoding"},
        {"chunked;foo=bar baz", NULL, "ambiguous framing: invalid Transfer-Encoding"},
        {"gzip chunked", NULL, "ambiguous framing: invalid Transfer-Encoding"},
        {"gzip;chunked", NULL, "ambiguous framing: invalid Transfer-Encoding parameter"},
        {"gzip, , chunked", NULL, "ambiguous framing: empty Transfer-Encoding element"},
        {"gzip,chunked,", NULL, "ambiguous framing: empty Transfer-Encoding element"},
        {",chunked", NULL, "ambiguous framing: empty Transfer-Encoding element"},
        {"chunked", "", "ambiguous framing: empty Transfer-Encoding element"},
        {"", "chunked", "ambiguous framing: empty Transfer-Encoding element"},
        {"chunked;a=1", "chunked", "ambiguous framing: chunked is not the last Transfer-Encoding"},
        {"chunked, gzip;a=1", NULL, "ambiguous framing: chunked is not the last Transfer-Encoding"},
        {"gzip;a=1", NULL, "ambiguous framing: Transfer-Encoding does not end with chunked"},
        {"gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, "
         "gzip, gzip, gzip, gzip, gzip, gzip, gzip, gzip, chunked",
         NULL, "ambiguous framing: Transfer-Encoding longer than brock forwards"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct framing_te te;
        const char *r = te_check(cases[i].v, cases[i].v2, 0, &te);

        if (!r || strcmp(r, cases[i].reason) != 0)
            fail_msg("'%s': %s, not %s", cases[i].v, r ? r : "accepted", cases[i].reason);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head_good),         cmocka_unit_test(test_head_bad),
        cmocka_unit_test(test_head_stays_done),   cmocka_unit_test(test_chunks_good),
        cmocka_unit_test(test_chunks_bad),        cmocka_unit_test(test_headers_good),
        cmocka_unit_test(test_headers_bad),       cmocka_unit_test(test_headers_host),
        cmocka_unit_test(test_headers_host_list), cmocka_unit_test(test_te_lists_good),
        cmocka_unit_test(test_te_lists_bad),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
