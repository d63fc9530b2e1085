/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SOCKS5's messages (src/proxy/socks.c): a greeting with one method or 255, none brock takes,
 * cut anywhere; a CONNECT to a domain (1 and 255 bytes), an IPv4 and an IPv6 address; BIND
 * and UDP ASSOCIATE read for the caller to refuse; an empty domain, an unknown address type,
 * another version, a reserved byte that is not 0, port 0; the reply's bytes.
 */
#include "test.h"

#include <string.h>

#include "proxy/socks.h"

static void test_greeting(void **state)
{
    uint8_t g[SOCKS_GREETING_MAX], method = 9;
    const char *why = NULL;

    (void)state;
    memcpy(g, "\x05\x01\x00", 3);
    assert_int_equal(socks_greeting(g, 3, &method, &why), 3);
    assert_int_equal(method, SOCKS_METHOD_NONE);
    for (size_t cut = 0; cut < 3; cut++)
        assert_int_equal(socks_greeting(g, cut, &method, &why), SOCKS_INCOMPLETE);

    /* 255 methods, no authentication last of them. */
    g[0] = 5;
    g[1] = 255;
    for (size_t i = 0; i < 255; i++)
        g[2 + i] = (uint8_t)(255 - i);
    assert_int_equal(g[256], 1);
    g[256] = 0;
    assert_int_equal(socks_greeting(g, 257, &method, &why), 257);
    assert_int_equal(method, SOCKS_METHOD_NONE);
    assert_int_equal(socks_greeting(g, 256, &method, &why), SOCKS_INCOMPLETE);

    /* Only user name and password, GSSAPI: none brock takes. */
    memcpy(g, "\x05\x02\x01\x02", 4);
    assert_int_equal(socks_greeting(g, 4, &method, &why), 4);
    assert_int_equal(method, SOCKS_METHOD_REFUSED);

    assert_int_equal(socks_greeting((const uint8_t *)"\x04\x01\x00", 3, &method, &why),
                     SOCKS_MALFORMED);
    assert_string_equal(why, "the client does not speak SOCKS version 5");
    assert_int_equal(socks_greeting((const uint8_t *)"GET / HTTP/1.1", 14, &method, &why),
                     SOCKS_MALFORMED);
    assert_int_equal(socks_greeting((const uint8_t *)"\x05\x00", 2, &method, &why),
                     SOCKS_MALFORMED);
    assert_string_equal(why, "the client's SOCKS greeting offers no method");
}

/* A request for host (a domain) and port with command cmd into out; returns its length. */
static size_t domain_request(uint8_t *out, uint8_t cmd, const char *host, int port)
{
    size_t n = strlen(host);

    out[0] = 5;
    out[1] = cmd;
    out[2] = 0;
    out[3] = 3;
    out[4] = (uint8_t)n;
    memcpy(out + 5, host, n);
    out[5 + n] = (uint8_t)(port >> 8);
    out[6 + n] = (uint8_t)port;
    return 7 + n;
}

static void test_request_domain(void **state)
{
    uint8_t q[SOCKS_REQUEST_MAX + 8], rep = 0xee;
    struct socks_request r;
    const char *why = NULL;
    char longest[256];
    size_t n = domain_request(q, SOCKS_CMD_CONNECT, "www.Example.test", 443);

    (void)state;
    assert_int_equal(socks_request(q, n, &r, &rep, &why), (int)n);
    assert_int_equal(r.cmd, SOCKS_CMD_CONNECT);
    assert_int_equal(r.atyp, 3);
    assert_string_equal(r.host, "www.Example.test");
    assert_int_equal(r.port, 443);
    for (size_t cut = 0; cut < n; cut++)
        assert_int_equal(socks_request(q, cut, &r, &rep, &why), SOCKS_INCOMPLETE);
    /* What follows the request is not read. */
    q[n] = 'x';
    assert_int_equal(socks_request(q, n + 1, &r, &rep, &why), (int)n);

    memset(longest, 'a', 255);
    longest[255] = '\0';
    n = domain_request(q, SOCKS_CMD_CONNECT, longest, 80);
    assert_int_equal(n, SOCKS_REQUEST_MAX);
    assert_int_equal(socks_request(q, n, &r, &rep, &why), (int)n);
    assert_int_equal(strlen(r.host), 255);

    n = domain_request(q, SOCKS_CMD_CONNECT, "", 80);
    assert_int_equal(socks_request(q, n, &r, &rep, &why), SOCKS_MALFORMED);
    assert_int_equal(rep, SOCKS_REP_FAILURE);
    assert_string_equal(why, "the SOCKS request names an empty domain");
    n = domain_request(q, SOCKS_CMD_CONNECT, "a b.test", 80);
    assert_int_equal(socks_request(q, n, &r, &rep, &why), SOCKS_MALFORMED);
    n = domain_request(q, SOCKS_CMD_CONNECT, "x.test", 80);
    q[6] = '\0';
    assert_int_equal(socks_request(q, n, &r, &rep, &why), SOCKS_MALFORMED);
    n = domain_request(q, SOCKS_CMD_CONNECT, "x.test", 0);
    assert_int_equal(socks_request(q, n, &r, &rep, &why), SOCKS_MALFORMED);
    assert_string_equal(why, "the SOCKS request names port 0");

    /* BIND and UDP ASSOCIATE are read: the caller refuses them. */
    n = domain_request(q, SOCKS_CMD_BIND, "x.test", 80);
    assert_int_equal(socks_request(q, n, &r, &rep, &why), (int)n);
    assert_int_equal(r.cmd, SOCKS_CMD_BIND);
    n = domain_request(q, SOCKS_CMD_UDP, "x.test", 80);
    assert_int_equal(socks_request(q, n, &r, &rep, &why), (int)n);
    assert_int_equal(r.cmd, SOCKS_CMD_UDP);
}

static void test_request_addresses(void **state)
{
    static const uint8_t v4[] = {5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90};
    static const uint8_t v6[] = {5, 1, 0, 4, 0x20, 0x01, 0x0d, 0xb8, 0, 0,    0,
                                 0, 0, 0, 0, 0,    0,    0,    0,    1, 0x01, 0xbb};
    uint8_t q[32], rep = 0;
    struct socks_request r;
    const char *why = NULL;

    (void)state;
    assert_int_equal(socks_request(v4, sizeof(v4), &r, &rep, &why), (int)sizeof(v4));
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.port, 8080);
    assert_int_equal(socks_request(v4, sizeof(v4) - 1, &r, &rep, &why), SOCKS_INCOMPLETE);
    assert_int_equal(socks_request(v6, sizeof(v6), &r, &rep, &why), (int)sizeof(v6));
    assert_string_equal(r.host, "2001:db8::1");
    assert_int_equal(r.port, 443);
    assert_int_equal(r.atyp, 4);

    memcpy(q, v4, sizeof(v4));
    q[3] = 2;
    assert_int_equal(socks_request(q, 4, &r, &rep, &why), SOCKS_MALFORMED);
    assert_int_equal(rep, SOCKS_REP_ADDRESS);
    memcpy(q, v4, sizeof(v4));
    q[0] = 4;
    assert_int_equal(socks_request(q, 1, &r, &rep, &why), SOCKS_MALFORMED);
    assert_string_equal(why, "the SOCKS request is not version 5");
    memcpy(q, v4, sizeof(v4));
    q[2] = 1;
    assert_int_equal(socks_request(q, 3, &r, &rep, &why), SOCKS_MALFORMED);
    assert_int_equal(rep, SOCKS_REP_FAILURE);
}

static void test_reply(void **state)
{
    uint8_t out[SOCKS_REPLY_LEN];

    (void)state;
    assert_int_equal(socks_reply(out, SOCKS_REP_COMMAND), SOCKS_REPLY_LEN);
    assert_memory_equal(out, "\x05\x07\x00\x01\x00\x00\x00\x00\x00\x00", SOCKS_REPLY_LEN);
    socks_reply(out, SOCKS_REP_OK);
    assert_int_equal(out[1], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_greeting),
        cmocka_unit_test(test_request_domain),
        cmocka_unit_test(test_request_addresses),
        cmocka_unit_test(test_reply),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
