/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --resolve specs: parsing, refusals with a reason, and matching by glob and port; address
 * literals. */
#include "test.h"

#include <arpa/inet.h>
#include <string.h>

#include "net/resolve.h"

static void test_parse_and_match(void **state)
{
    struct resolve_table t = {0};
    char err[256];
    const struct resolve_rule *r;

    (void)state;
    assert_int_equal(resolve_add(&t, "*.Site.test=127.0.0.1:8080", err, sizeof(err)), 0);
    assert_int_equal(resolve_add(&t, "api.test:443=[::1]:9443", err, sizeof(err)), 0);
    assert_int_equal(resolve_add(&t, "*=10.0.0.1:80", err, sizeof(err)), 0);

    r = resolve_find(&t, "www.site.test", 80);
    assert_non_null(r);
    assert_string_equal(r->glob, "*.site.test");
    assert_int_equal(r->addr.ss_family, AF_INET);
    assert_int_equal(ntohs(((const struct sockaddr_in *)&r->addr)->sin_port), 8080);

    /* The port in the glob restricts the rule; others fall through to the catch-all. */
    r = resolve_find(&t, "api.test", 443);
    assert_non_null(r);
    assert_int_equal(r->addr.ss_family, AF_INET6);
    assert_int_equal(ntohs(((const struct sockaddr_in6 *)&r->addr)->sin6_port), 9443);
    r = resolve_find(&t, "api.test", 80);
    assert_non_null(r);
    assert_string_equal(r->glob, "*");
    resolve_cleanup(&t);
    assert_null(resolve_find(&t, "api.test", 80));
}

static void test_refusals(void **state)
{
    static const char *const bad[] = {
        "",
        "host",
        "=127.0.0.1:80",
        "host=",
        "host=127.0.0.1",
        "host=name.test:80",
        "host:0=127.0.0.1:80",
        "host:x=127.0.0.1:80",
        "host=127.0.0.1:0",
        "host=127.0.0.1:99999",
    };
    struct resolve_table t = {0};
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (resolve_add(&t, bad[i], err, sizeof(err)) != -1)
            fail_msg("'%s' was accepted", bad[i]);
        /* The message names the spec. */
        assert_non_null(strstr(err, "--resolve"));
        assert_non_null(strstr(err, bad[i]));
    }
    assert_int_equal(t.n, 0);
}

static void test_literals(void **state)
{
    struct sockaddr_storage ss;
    int len = 0;

    (void)state;
    assert_int_equal(resolve_literal("127.0.0.1", 8080, &ss, &len), 1);
    assert_int_equal(ss.ss_family, AF_INET);
    assert_int_equal(len, (int)sizeof(struct sockaddr_in));
    assert_int_equal(ntohs(((const struct sockaddr_in *)&ss)->sin_port), 8080);
    assert_int_equal(ntohl(((const struct sockaddr_in *)&ss)->sin_addr.s_addr), 0x7f000001);
    assert_int_equal(resolve_literal("::1", 443, &ss, &len), 1);
    assert_int_equal(ss.ss_family, AF_INET6);
    assert_int_equal(len, (int)sizeof(struct sockaddr_in6));
    assert_int_equal(ntohs(((const struct sockaddr_in6 *)&ss)->sin6_port), 443);
    assert_int_equal(resolve_literal("2001:db8::1", 0, NULL, NULL), 1);
    /* Names, bracketed forms and near misses are not literals. */
    assert_int_equal(resolve_literal("example.com", 80, &ss, &len), 0);
    assert_int_equal(resolve_literal("[::1]", 80, &ss, &len), 0);
    assert_int_equal(resolve_literal("127.0.0.1.", 80, NULL, NULL), 0);
    assert_int_equal(resolve_literal("127.0.0.256", 80, NULL, NULL), 0);
    assert_int_equal(resolve_literal("", 80, NULL, NULL), 0);
    /* What the C library's inet_pton() refuses, libevent's reading still decides, as it
     * always did: a leading zero is read in decimal. */
    assert_int_equal(resolve_literal("010.0.0.1", 80, &ss, &len), 1);
    assert_int_equal(ntohl(((const struct sockaddr_in *)&ss)->sin_addr.s_addr), 0x0a000001);
    assert_int_equal(resolve_literal("1.example", 80, NULL, NULL), 0);
    assert_int_equal(resolve_literal("::ffff:1.2.3.4", 80, &ss, &len), 1);
    assert_int_equal(ss.ss_family, AF_INET6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_match),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_literals),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
