/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Heads gathered from http-parser's fragments: whole and split at every byte, the limits,
 * and heads written back out. */
#include "test.h"

#include <http_parser.h>
#include <string.h>

#include "http/head.h"

struct ctx {
    struct http_head hh;
    int done;
    int err;
};

static int on_url(http_parser *p, const char *at, size_t len)
{
    struct ctx *c = p->data;

    return (c->err = http_head_line(&c->hh, at, len)) ? -1 : 0;
}

static int on_field(http_parser *p, const char *at, size_t len)
{
    struct ctx *c = p->data;

    return (c->err = http_head_field(&c->hh, at, len)) ? -1 : 0;
}

static int on_value(http_parser *p, const char *at, size_t len)
{
    struct ctx *c = p->data;

    return (c->err = http_head_value(&c->hh, at, len)) ? -1 : 0;
}

static int on_done(http_parser *p)
{
    struct ctx *c = p->data;

    http_head_finish(&c->hh);
    c->done = 1;
    return 0;
}

static const http_parser_settings settings = {
    .on_url = on_url,
    .on_header_field = on_field,
    .on_header_value = on_value,
    .on_headers_complete = on_done,
};

/* Parses text fed in pieces of at most step bytes; returns the parser's errno. */
static int parse(struct ctx *c, const char *text, size_t len, size_t step)
{
    http_parser p;

    http_parser_init(&p, HTTP_REQUEST);
    p.data = c;
    http_head_init(&c->hh);
    c->done = 0;
    c->err = 0;
    for (size_t off = 0; off < len && !c->done;) {
        size_t n = len - off < step ? len - off : step;
        size_t used = http_parser_execute(&p, &settings, text + off, n);

        if (HTTP_PARSER_ERRNO(&p) != HPE_OK)
            return HTTP_PARSER_ERRNO(&p);
        off += used;
    }
    return HPE_OK;
}

static void test_split_everywhere(void **state)
{
    static const char req[] = "GET http://a.test/p?q=1 HTTP/1.1\r\nHost: a.test\r\n"
                              "Cookie: x=1; y=2\r\nX-Empty:\r\nReferer: http://s.test/\r\n\r\n";
    size_t len = sizeof(req) - 1;

    (void)state;
    for (size_t step = 1; step <= len; step++) {
        struct ctx c;

        assert_int_equal(parse(&c, req, len, step), HPE_OK);
        assert_true(c.done);
        assert_string_equal(http_head_text(&c.hh), "http://a.test/p?q=1");
        assert_int_equal(c.hh.line_len, 19);
        assert_int_equal(c.hh.n, 4);
        assert_true(http_name_is(c.hh.h[1].name, c.hh.h[1].name_len, "cookie"));
        assert_int_equal(c.hh.h[1].value_len, 8);
        assert_memory_equal(c.hh.h[1].value, "x=1; y=2", 8);
        /* Values are C strings too: what the first-party code reads. */
        assert_string_equal(c.hh.h[3].value, "http://s.test/");
        assert_int_equal(c.hh.h[2].value_len, 0);
        assert_string_equal(c.hh.h[2].value, "");
        assert_ptr_equal(http_header_find(c.hh.h, c.hh.n, "REFERER"), &c.hh.h[3]);
        assert_null(http_header_find(c.hh.h, c.hh.n, "origin"));
        http_head_cleanup(&c.hh);
    }
}

static void test_limits(void **state)
{
    struct buf b;
    struct ctx c;

    (void)state;
    /* One header too many. */
    buf_init(&b, 1 << 20);
    assert_int_equal(buf_puts(&b, "GET http://a.test/ HTTP/1.1\r\n"), 0);
    for (int i = 0; i <= LIMIT_HEADERS; i++)
        assert_int_equal(buf_printf(&b, "X-%d: v\r\n", i), 0);
    assert_int_equal(buf_puts(&b, "\r\n"), 0);
    assert_int_not_equal(parse(&c, b.data, b.len, b.len), HPE_OK);
    assert_int_equal(c.err, HTTP_HEAD_TOO_MANY);
    http_head_cleanup(&c.hh);
    /* A head past LIMIT_HEAD_BYTES. */
    buf_reset(&b);
    assert_int_equal(buf_puts(&b, "GET http://a.test/ HTTP/1.1\r\nX-Big: "), 0);
    for (size_t i = 0; i < LIMIT_HEAD_BYTES / 64 + 1; i++)
        assert_int_equal(buf_puts(&b, "0123456789abcdef0123456789abcdef"
                                      "0123456789abcdef0123456789abcdef"),
                         0);
    assert_int_equal(buf_puts(&b, "\r\n\r\n"), 0);
    assert_int_not_equal(parse(&c, b.data, b.len, 4096), HPE_OK);
    assert_int_equal(c.err, HTTP_HEAD_TOO_BIG);
    http_head_cleanup(&c.hh);
    /* Exactly LIMIT_HEADERS is fine. */
    buf_reset(&b);
    assert_int_equal(buf_puts(&b, "GET http://a.test/ HTTP/1.1\r\n"), 0);
    for (int i = 0; i < LIMIT_HEADERS; i++)
        assert_int_equal(buf_printf(&b, "X-%d: v\r\n", i), 0);
    assert_int_equal(buf_puts(&b, "\r\n"), 0);
    assert_int_equal(parse(&c, b.data, b.len, 7), HPE_OK);
    assert_int_equal(c.hh.n, LIMIT_HEADERS);
    http_head_cleanup(&c.hh);
    buf_cleanup(&b);
}

static void test_write(void **state)
{
    struct brock_header h[2] = {
        {"Host", 4, "a.test", 6},
        {"X-Empty", 7, "", 0},
    };
    struct buf b;

    (void)state;
    buf_init(&b, 1024);
    assert_int_equal(http_write_request(&b, "GET", "/p?q", 4, h, 2), 0);
    assert_string_equal(b.data, "GET /p?q HTTP/1.1\r\nHost: a.test\r\nX-Empty: \r\n\r\n");
    buf_reset(&b);
    assert_int_equal(http_write_response(&b, 204, "No Content", 10, h, 1), 0);
    assert_string_equal(b.data, "HTTP/1.1 204 No Content\r\nHost: a.test\r\n\r\n");
    buf_cleanup(&b);
    /* A head that does not fit is refused. */
    buf_init(&b, 16);
    assert_int_equal(http_write_request(&b, "GET", "/", 1, h, 2), -1);
    buf_cleanup(&b);
    assert_string_equal(http_reason(429), "Too Many Requests");
    assert_string_equal(http_reason(431), "Request Header Fields Too Large");
    /* Written whole or not at all: what was there stays. */
    buf_init(&b, 40);
    assert_int_equal(buf_append(&b, "kept", 4), 0);
    assert_int_equal(http_write_response(&b, 200, "OK", 2, h, 2), -1);
    assert_string_equal(b.data, "kept");
    assert_int_equal(http_write_response(&b, 599, "", 0, h, 0), 0);
    assert_string_equal(b.data, "keptHTTP/1.1 599 \r\n\r\n");
    buf_cleanup(&b);
}

static void test_authority(void **state)
{
    char out[BROCK_HOST_MAX + 8];
    char small[5];

    (void)state;
    http_authority("a.test", 80, 80, out, sizeof(out));
    assert_string_equal(out, "a.test");
    http_authority("a.test", 8080, 80, out, sizeof(out));
    assert_string_equal(out, "a.test:8080");
    http_authority("a.test", 0, 443, out, sizeof(out));
    assert_string_equal(out, "a.test:0");
    http_authority("::1", 443, 443, out, sizeof(out));
    assert_string_equal(out, "[::1]");
    http_authority("::1", 65535, 443, out, sizeof(out));
    assert_string_equal(out, "[::1]:65535");
    /* Cut to the room given, as snprintf() cuts. */
    http_authority("a.test", 8080, 80, small, sizeof(small));
    assert_string_equal(small, "a.te");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_everywhere),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_authority),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
