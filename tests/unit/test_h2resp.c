/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A response head from an origin over HTTP/2 written as HTTP/1.1 (src/http/h2resp.c): byte for
 * byte, with each framing (its Content-Length, chunked, none for HEAD, 204 and 304), interim
 * heads one after another, and the limit on a head's size. */
#include "test.h"

#include <string.h>

#include "http/h2resp.h"
#include "http/head.h"

/* The head for fields f ("name" then "value", ended by NULL) with no_body; checks that it
 * is want, and that its framing is chunked (1) or not (0). */
static void expect_head(const char *const *f, int no_body, int chunked, const char *want)
{
    struct h2resp r;
    struct buf out;

    h2resp_init(&r);
    buf_init(&out, 2 * LIMIT_HEAD_BYTES);
    for (; f[0]; f += 2)
        assert_int_equal(h2resp_field(&r, f[0], strlen(f[0]), f[1], strlen(f[1])), 0);
    assert_int_equal(h2resp_chunked(&r, no_body), chunked);
    assert_int_equal(h2resp_write(&r, chunked, &out), 0);
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    buf_cleanup(&out);
    h2resp_cleanup(&r);
}

static void test_framing(void **state)
{
    (void)state;
    expect_head((const char *const[]){":status", "200", "content-type", "text/html",
                                      "content-length", "5", NULL},
                0, 0, "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 5\r\n\r\n");
    expect_head(
        (const char *const[]){":status", "200", "set-cookie", "a=1", "set-cookie", "b=2", NULL}, 0,
        1,
        "HTTP/1.1 200 OK\r\nset-cookie: a=1\r\nset-cookie: b=2\r\n"
        "transfer-encoding: chunked\r\n\r\n");
    /* HEAD: what a GET would get, no body, no framing added. */
    expect_head((const char *const[]){":status", "200", NULL}, 1, 0, "HTTP/1.1 200 OK\r\n\r\n");
    expect_head((const char *const[]){":status", "204", NULL}, 0, 0,
                "HTTP/1.1 204 No Content\r\n\r\n");
    expect_head((const char *const[]){":status", "304", "etag", "\"x\"", NULL}, 0, 0,
                "HTTP/1.1 304 Not Modified\r\netag: \"x\"\r\n\r\n");
    /* A status without a phrase of brock's goes without one; pseudo-headers but :status are
     * dropped. */
    expect_head((const char *const[]){":status", "299", ":other", "x", "content-length", "0", NULL},
                0, 0, "HTTP/1.1 299 \r\ncontent-length: 0\r\n\r\n");
}

static void test_interim(void **state)
{
    struct h2resp r;
    struct buf out;

    (void)state;
    h2resp_init(&r);
    buf_init(&out, 2 * LIMIT_HEAD_BYTES);
    assert_int_equal(h2resp_field(&r, ":status", 7, "103", 3), 0);
    assert_int_equal(h2resp_field(&r, "link", 4, "</a.css>; rel=preload", 21), 0);
    assert_int_equal(h2resp_write(&r, 0, &out), 0);
    h2resp_reset(&r);
    assert_int_equal(r.status, 0);
    assert_int_equal(h2resp_field(&r, ":status", 7, "200", 3), 0);
    assert_int_equal(h2resp_field(&r, "content-length", 14, "2", 1), 0);
    assert_int_equal(h2resp_write(&r, h2resp_chunked(&r, 0), &out), 0);
    assert_int_equal(buf_append(&out, "", 1), 0);
    assert_string_equal(out.data, "HTTP/1.1 103 \r\nlink: </a.css>; rel=preload\r\n\r\n"
                                  "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n");
    buf_cleanup(&out);
    h2resp_cleanup(&r);
}

static void test_limit(void **state)
{
    static char big[LIMIT_HEAD_BYTES];
    struct h2resp r;

    (void)state;
    memset(big, 'a', sizeof(big));
    h2resp_init(&r);
    assert_int_equal(h2resp_field(&r, "x-a", 3, big, sizeof(big) / 2), 0);
    assert_int_equal(h2resp_field(&r, "x-b", 3, big, sizeof(big) / 2), -1);
    h2resp_cleanup(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_interim),
        cmocka_unit_test(test_limit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
