/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A connection's first bytes (src/proxy/peek.c): a ClientHello's server name, in one record,
 * split over records and over many reads, 16 KiB long, without a name, with a name that is no
 * host name, cut anywhere before its end; an HTTP request line up to its version, cut
 * anywhere; a line of another protocol that begins as one; bytes that are neither; a handshake that is not a ClientHello; one longer than brock reads.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "proxy/peek.h"

static uint8_t scratch[PEEK_HELLO_MAX];

static void put16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* A ClientHello handshake message (header included) asking for name (NULL: no server_name),
 * with a padding extension of pad bytes, into out; returns its length. */
static size_t hello(uint8_t *out, const char *name, size_t pad)
{
    size_t n = 4, ext_start, nlen = name ? strlen(name) : 0;

    out[n++] = 3;
    out[n++] = 3;
    memset(out + n, 0x42, 32); /* random */
    n += 32;
    out[n++] = 0;      /* no session id */
    put16(out + n, 2); /* one cipher suite */
    out[n + 2] = 0x13;
    out[n + 3] = 0x01;
    n += 4;
    out[n++] = 1; /* one compression method, null */
    out[n++] = 0;
    ext_start = n;
    n += 2;
    /* supported_versions first, so that server_name is not the first extension */
    memcpy(out + n, "\x00\x2b\x00\x03\x02\x03\x04", 7);
    n += 7;
    if (name) {
        put16(out + n, 0);
        put16(out + n + 2, nlen + 5);
        put16(out + n + 4, nlen + 3);
        out[n + 6] = 0;
        put16(out + n + 7, nlen);
        memcpy(out + n + 9, name, nlen);
        n += 9 + nlen;
    }
    if (pad) {
        put16(out + n, 21);
        put16(out + n + 2, pad);
        memset(out + n + 4, 0, pad);
        n += 4 + pad;
    }
    put16(out + ext_start, n - ext_start - 2);
    out[0] = 1;
    out[1] = (uint8_t)((n - 4) >> 16);
    out[2] = (uint8_t)((n - 4) >> 8);
    out[3] = (uint8_t)(n - 4);
    return n;
}

/* msg (len bytes) in TLS records of at most chunk bytes each, into out; returns the length. */
static size_t records(uint8_t *out, const uint8_t *msg, size_t len, size_t chunk)
{
    size_t n = 0;

    for (size_t off = 0; off < len; off += chunk) {
        size_t k = len - off < chunk ? len - off : chunk;

        out[n] = 22;
        out[n + 1] = 3;
        out[n + 2] = 1;
        put16(out + n + 3, k);
        memcpy(out + n + 5, msg + off, k);
        n += 5 + k;
    }
    return n;
}

static enum peek_kind classify(const uint8_t *p, size_t len, char name[256])
{
    const char *why = NULL;
    enum peek_kind k = peek_classify(p, len, scratch, name, &why);

    if (k == PEEK_OTHER)
        assert_non_null(why);
    return k;
}

/* Every cut of wire (len bytes) before its end is PEEK_MORE; the whole is PEEK_TLS naming
 * want. */
static void whole_and_cut(const uint8_t *wire, size_t len, const char *want)
{
    char name[256];

    for (size_t cut = 0; cut < len; cut++)
        assert_int_equal(classify(wire, cut, name), PEEK_MORE);
    assert_int_equal(classify(wire, len, name), PEEK_TLS);
    assert_string_equal(name, want);
}

static void test_server_name(void **state)
{
    uint8_t msg[2048] = {0}, wire[4096] = {0};
    size_t m = hello(msg, "WWW.Example.test", 0), w;

    (void)state;
    w = records(wire, msg, m, 16384);
    whole_and_cut(wire, w, "www.example.test");
    /* The handshake split over records of 7 bytes each. */
    w = records(wire, msg, m, 7);
    whole_and_cut(wire, w, "www.example.test");
    /* What follows the hello (another record) changes nothing. */
    m = records(wire, msg, m, 16384);
    memcpy(wire + m, "\x17\x03\x03\x00\x01\x00", 6);
    {
        char name[256];

        assert_int_equal(classify(wire, m + 6, name), PEEK_TLS);
        assert_string_equal(name, "www.example.test");
    }
}

static void test_long_hello(void **state)
{
    size_t m, w;
    uint8_t *msg = malloc(PEEK_HELLO_MAX + 256), *wire = malloc(PEEK_HELLO_MAX + 1024);
    char name[256];

    (void)state;
    assert_non_null(msg);
    assert_non_null(wire);
    /* A hello of 16 KiB: two records. */
    m = hello(msg, "big.test", 16384);
    w = records(wire, msg, m, 16384);
    assert_int_equal(classify(wire, w, name), PEEK_TLS);
    assert_string_equal(name, "big.test");
    assert_int_equal(classify(wire, w - 1, name), PEEK_MORE);
    /* One longer than brock reads is passed through. */
    m = hello(msg, "huge.test", PEEK_HELLO_MAX);
    w = records(wire, msg, 4 + 16384 * 2, 16384);
    assert_int_equal(classify(wire, w, name), PEEK_OTHER);
    free(msg);
    free(wire);
}

static void test_no_name(void **state)
{
    uint8_t msg[2048] = {0}, wire[4096] = {0};
    char name[256];
    size_t w = records(wire, msg, hello(msg, NULL, 0), 16384);

    (void)state;
    assert_int_equal(classify(wire, w, name), PEEK_TLS);
    assert_string_equal(name, "");
    /* A name with a byte no host name has reads as none. */
    w = records(wire, msg, hello(msg, "bad/name.test", 0), 16384);
    assert_int_equal(classify(wire, w, name), PEEK_TLS);
    assert_string_equal(name, "");
}

static void test_not_a_hello(void **state)
{
    uint8_t msg[2048] = {0}, wire[4096] = {0};
    char name[256];
    size_t m = hello(msg, "x.test", 0), w;

    (void)state;
    msg[0] = 2; /* a ServerHello */
    w = records(wire, msg, m, 16384);
    assert_int_equal(classify(wire, w, name), PEEK_OTHER);
    /* A length inside that runs past the message. */
    m = hello(msg, "x.test", 0);
    msg[4 + 34] = 200;
    w = records(wire, msg, m, 16384);
    assert_int_equal(classify(wire, w, name), PEEK_OTHER);
    /* An alert record first. */
    assert_int_equal(classify((const uint8_t *)"\x16\x03\x01\x00\x00", 5, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)"\x15\x03\x01\x00\x02\x02\x28", 7, name),
                     PEEK_OTHER);
}

static void test_http_and_other(void **state)
{
    static const char line[] = "GET /a?b=c HTTP/1.1\r\n";
    char name[256];

    (void)state;
    for (size_t cut = 0; cut < sizeof("GET /a?b=c HTTP/") - 1; cut++)
        assert_int_equal(classify((const uint8_t *)line, cut, name), PEEK_MORE);
    assert_int_equal(classify((const uint8_t *)line, sizeof(line) - 1, name), PEEK_HTTP);
    assert_int_equal(classify((const uint8_t *)"PROPFIND * HTTP/1.1", 19, name), PEEK_HTTP);
    /* A line of another protocol that begins as one: a word, a space. */
    assert_int_equal(classify((const uint8_t *)"hello brock\n", 12, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)"EHLO mail.example\r\n", 19, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)"GET  HTTP/1.1", 13, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)"GET / FTP/1.0", 13, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)"", 0, name), PEEK_MORE);
    assert_int_equal(classify((const uint8_t *)"SSH-2.0-OpenSSH_9.2\r\n", 21, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)" GET", 4, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)"\x00\x01", 2, name), PEEK_OTHER);
    assert_int_equal(classify((const uint8_t *)"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 32, name),
                     PEEK_OTHER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_name),    cmocka_unit_test(test_long_hello),
        cmocka_unit_test(test_no_name),        cmocka_unit_test(test_not_a_hello),
        cmocka_unit_test(test_http_and_other),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
