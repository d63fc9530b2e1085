/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An HTTP/2 request's header block as the carrier checks it and writes it as one HTTP/1.1
 * head (src/http/h2req.c): the head written byte for byte, the cookie fields joined, each
 * framing; every refusal with its status or reset; the authority held to the tunnel's. */
#include "test.h"

#include <stdio.h>
#include <string.h>

#include "http/h2req.h"
#include "http/head.h"

/* A request's fields, "name" then "value", ended by NULL. */
static void fields(struct h2req *r, const char *const *f)
{
    for (; f[0]; f += 2)
        h2req_field(r, f[0], strlen(f[0]), f[1], strlen(f[1]));
}

#define USUAL ":method", "GET", ":scheme", "https", ":authority", "site.test", ":path", "/a?b=c"

/* The check's answer for f (ended: with the stream): 0, a status, or -1 (code in *code). */
static int check(const char *const *f, int ended, uint32_t *code)
{
    struct h2req r;
    const char *why;
    int rc;

    h2req_init(&r);
    fields(&r, f);
    rc = h2req_check(&r, ended, "site.test", 443, &why, code);
    h2req_cleanup(&r);
    return rc;
}

static void expect_head(const char *const *f, enum h2req_body body, const char *want)
{
    struct h2req r;
    struct buf out;
    const char *why;
    uint32_t code;

    h2req_init(&r);
    buf_init(&out, 65536);
    fields(&r, f);
    assert_int_equal(h2req_check(&r, body == H2REQ_NO_BODY, "site.test", 443, &why, &code), 0);
    assert_int_equal(h2req_write_head(&r, body, &out), 0);
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    buf_cleanup(&out);
    h2req_cleanup(&r);
}

static void test_heads(void **state)
{
    static const char *const get[] = {USUAL,        "accept", "*/*",    "cookie", "a=1",
                                      "user-agent", "t",      "cookie", "b=2",    NULL};
    static const char *const post[] = {":method",        "POST", ":scheme", "https",
                                       ":path",          "/p",   "host",    "site.test",
                                       "content-length", "5",    NULL};
    static const char *const put[] = {USUAL, "te", "trailers", "x-tab", "a\tb", NULL};

    (void)state;
    expect_head(get, H2REQ_NO_BODY,
                "GET /a?b=c HTTP/1.1\r\nhost: site.test\r\naccept: */*\r\nuser-agent: t\r\n"
                "cookie: a=1; b=2\r\n\r\n");
    expect_head(post, H2REQ_LENGTH,
                "POST /p HTTP/1.1\r\nhost: site.test\r\ncontent-length: 5\r\n\r\n");
    expect_head(put, H2REQ_CHUNKED,
                "GET /a?b=c HTTP/1.1\r\nhost: site.test\r\nx-tab: a\tb\r\n"
                "transfer-encoding: chunked\r\n\r\n");
}

static void test_resets(void **state)
{
    static const char *const cases[][12] = {
        {USUAL, "x-a", "b\nc", NULL},
        {USUAL, "x-a", "b\rc", NULL},
        {USUAL, "x-a",
         "b\x01"
         "c",
         NULL},
        {USUAL, "x-a", " b", NULL},
        {USUAL, "x-a", "b\t", NULL},
        {USUAL, "X-A", "b", NULL},
        {USUAL, "x:a", "b", NULL},
        {USUAL, "x a", "b", NULL},
        {USUAL, "transfer-encoding", "chunked", NULL},
        {USUAL, "connection", "close", NULL},
        {USUAL, "keep-alive", "5", NULL},
        {USUAL, "proxy-connection", "x", NULL},
        {USUAL, "upgrade", "websocket", NULL},
        {USUAL, "te", "gzip", NULL},
        {USUAL, "content-length", "5x", NULL},
        {USUAL, "content-length", "", NULL},
        {":method", "G T", ":scheme", "https", ":authority", "site.test", ":path", "/", NULL},
        {":method", "GET", ":scheme", "https", ":authority", "site.test", ":path", "/a b", NULL},
        {":method", "GET", ":scheme", "https", ":authority", "site.test", NULL},
        {":scheme", "https", ":authority", "site.test", ":path", "/", NULL},
        {USUAL, ":protocol", "websocket", NULL},
        {":method", "GET", ":scheme", "https", ":authority", "site.test", ":path", "m", NULL},
        {":method", "GET", ":scheme", "https", ":authority", "site.test", ":path", "*", NULL},
        {USUAL, ":path", "/again", NULL},
        {USUAL, ":method", "GET", NULL},
        {":method", "GET", ":scheme", "https", "accept", "*/*", ":path", "/", NULL},
        {":scheme", "https", ":method", "GET", ":scheme", "https", ":path", "/", NULL},
    };
    uint32_t code;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (check(cases[i], 1, &code) != -1 || code != H2REQ_PROTOCOL_ERROR)
            fail_msg("case %zu (%s: %s) was not reset", i, cases[i][8], cases[i][9]);
    }
    {
        static const char *const two[] = {USUAL, "content-length", "5", "content-length", "6",
                                          NULL};
        static const char *const same[] = {USUAL, "content-length", "5", "content-length", "5",
                                           NULL};
        static const char *const ended[] = {USUAL, "content-length", "5", NULL};

        assert_int_equal(check(two, 0, &code), -1);
        assert_int_equal(check(same, 0, &code), 0);
        assert_int_equal(check(ended, 1, &code), -1);
    }
}

static void test_answers(void **state)
{
    static const char *const other[] = {":method",    "GET",   ":scheme", "https", ":authority",
                                        "other.test", ":path", "/",       NULL};
    static const char *const port[] = {":method",        "GET",   ":scheme", "https", ":authority",
                                       "site.test:8443", ":path", "/",       NULL};
    static const char *const explicit_port[] = {
        ":method", "GET", ":scheme", "https", ":authority", "SITE.test:443", ":path", "/", NULL};
    static const char *const host_differs[] = {USUAL, "host", "other.test", NULL};
    static const char *const none[] = {":method", "GET", ":scheme", "https", ":path", "/", NULL};
    static const char *const http[] = {":method",   "GET",   ":scheme", "http", ":authority",
                                       "site.test", ":path", "/",       NULL};
    static const char *const connect[] = {":method", "CONNECT", ":authority", "site.test:443",
                                          NULL};
    uint32_t code;

    (void)state;
    assert_int_equal(check(other, 1, &code), 421);
    assert_int_equal(check(port, 1, &code), 421);
    assert_int_equal(check(explicit_port, 1, &code), 0);
    assert_int_equal(check(host_differs, 1, &code), 400);
    assert_int_equal(check(none, 1, &code), 400);
    assert_int_equal(check(http, 1, &code), 400);
    assert_int_equal(check(connect, 1, &code), 405);
}

static void test_limits(void **state)
{
    struct h2req r;
    const char *why;
    uint32_t code;
    char name[32];
    static char big[LIMIT_HEAD_BYTES];

    (void)state;
    h2req_init(&r);
    fields(&r, (const char *const[]){USUAL, NULL});
    for (int i = 0; i < LIMIT_HEADERS - 4; i++) {
        snprintf(name, sizeof(name), "x-%d", i);
        h2req_field(&r, name, strlen(name), "v", 1);
    }
    assert_int_equal(h2req_check(&r, 1, "site.test", 443, &why, &code), 0);
    h2req_field(&r, "x-one-more", 10, "v", 1);
    assert_int_equal(h2req_check(&r, 1, "site.test", 443, &why, &code), 431);
    h2req_cleanup(&r);

    h2req_init(&r);
    fields(&r, (const char *const[]){USUAL, NULL});
    memset(big, 'a', sizeof(big));
    h2req_field(&r, "x-big", 5, big, sizeof(big) - 64);
    assert_int_equal(h2req_check(&r, 1, "site.test", 443, &why, &code), 431);
    h2req_cleanup(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads),
        cmocka_unit_test(test_resets),
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_limits),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
