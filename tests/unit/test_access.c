/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --allow CIDR specs: parsing, refusals naming the spec, matching (IPv4-mapped included),
 * loopback and wildcard tests, and endpoint comparison. */
#include "test.h"

#include <arpa/inet.h>
#include <string.h>

#include "process/access.h"

static struct sockaddr_storage addr_of(const char *ip, int port)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;

    memset(&ss, 0, sizeof(ss));
    if (inet_pton(AF_INET, ip, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
    } else {
        assert_int_equal(inet_pton(AF_INET6, ip, &v6->sin6_addr), 1);
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
    }
    return ss;
}

static int allows(const struct access_list *l, const char *ip)
{
    struct sockaddr_storage ss = addr_of(ip, 1234);

    return access_allows(l, (const struct sockaddr *)&ss);
}

static void test_match(void **state)
{
    struct access_list l = {0};
    char err[256];

    (void)state;
    assert_int_equal(access_add(&l, "10.0.0.0/8", err, sizeof(err)), 0);
    assert_int_equal(access_add(&l, "192.168.1.7", err, sizeof(err)), 0);
    assert_int_equal(access_add(&l, "fd00::/8", err, sizeof(err)), 0);
    assert_int_equal(access_add(&l, "::1/128", err, sizeof(err)), 0);
    assert_int_equal(access_add(&l, "172.16.0.0/12", err, sizeof(err)), 0);
    assert_int_equal(l.n, 5);

    assert_true(allows(&l, "10.0.0.1"));
    assert_true(allows(&l, "10.255.255.255"));
    assert_false(allows(&l, "11.0.0.0"));
    assert_false(allows(&l, "9.255.255.255"));
    /* A bare address is /32: its neighbours are outside. */
    assert_true(allows(&l, "192.168.1.7"));
    assert_false(allows(&l, "192.168.1.6"));
    assert_false(allows(&l, "192.168.1.8"));
    /* /12 ends mid-byte. */
    assert_true(allows(&l, "172.31.255.1"));
    assert_false(allows(&l, "172.32.0.1"));
    assert_false(allows(&l, "172.15.255.255"));
    /* IPv6, and IPv4 clients of a dual-stack listener seen as mapped addresses. */
    assert_true(allows(&l, "fd12:3456::1"));
    assert_false(allows(&l, "fe80::1"));
    assert_true(allows(&l, "::1"));
    assert_false(allows(&l, "::2"));
    assert_true(allows(&l, "::ffff:10.1.2.3"));
    assert_false(allows(&l, "::ffff:11.1.2.3"));
    assert_false(allows(&l, "127.0.0.1"));
    access_cleanup(&l);
    assert_false(allows(&l, "10.0.0.1"));
}

static void test_edges(void **state)
{
    struct access_list l = {0};
    char err[256];

    (void)state;
    /* /0 is everyone of its family; an IPv4 /0 is not every IPv6 client. */
    assert_int_equal(access_add(&l, "0.0.0.0/0", err, sizeof(err)), 0);
    assert_true(allows(&l, "203.0.113.9"));
    assert_true(allows(&l, "::ffff:203.0.113.9"));
    assert_false(allows(&l, "2001:db8::1"));
    access_cleanup(&l);
    assert_int_equal(access_add(&l, "::/0", err, sizeof(err)), 0);
    assert_true(allows(&l, "2001:db8::1"));
    access_cleanup(&l);
    /* An IPv6 range written with an embedded IPv4 address. */
    assert_int_equal(access_add(&l, "::ffff:127.0.0.0/104", err, sizeof(err)), 0);
    assert_true(allows(&l, "127.0.0.2"));
    access_cleanup(&l);
}

static void test_refusals(void **state)
{
    static const char *const bad[] = {
        "",          "/8",          "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8x",
        "10.0.0/8",  "10.1.2.3/8",  "::1/129",   "fd00::1/8",   "example.com", "10.0.0.0/ 8",
        "1.2.3.4.5", "10.0.0.0/+8",
    };
    struct access_list l = {0};
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (access_add(&l, bad[i], err, sizeof(err)) != -1)
            fail_msg("'%s' was accepted", bad[i]);
        assert_non_null(strstr(err, "--allow"));
        assert_non_null(strstr(err, bad[i]));
    }
    assert_int_equal(l.n, 0);
    assert_null(l.v);
}

static void test_loopback_and_wildcard(void **state)
{
    static const struct {
        const char *ip;
        int loopback, wildcard;
    } cases[] = {
        {"127.0.0.1", 1, 0},
        {"127.255.0.9", 1, 0},
        {"::1", 1, 0},
        {"::ffff:127.0.0.1", 1, 0},
        {"0.0.0.0", 0, 1},
        {"::", 0, 1},
        {"::ffff:0.0.0.0", 0, 1},
        {"128.0.0.1", 0, 0},
        {"10.0.0.1", 0, 0},
        {"::2", 0, 0},
        {"fe80::1", 0, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sockaddr_storage ss = addr_of(cases[i].ip, 8119);

        if (access_is_loopback((const struct sockaddr *)&ss) != cases[i].loopback)
            fail_msg("%s: loopback should be %d", cases[i].ip, cases[i].loopback);
        if (access_is_wildcard((const struct sockaddr *)&ss) != cases[i].wildcard)
            fail_msg("%s: wildcard should be %d", cases[i].ip, cases[i].wildcard);
    }
}

static void test_endpoints(void **state)
{
    struct sockaddr_storage a = addr_of("127.0.0.1", 8119), b = addr_of("::ffff:127.0.0.1", 8119),
                            c = addr_of("127.0.0.1", 8120), d = addr_of("127.0.0.2", 8119),
                            e = addr_of("::1", 8119);

    (void)state;
    assert_true(access_same_endpoint((struct sockaddr *)&a, (struct sockaddr *)&b));
    assert_false(access_same_endpoint((struct sockaddr *)&a, (struct sockaddr *)&c));
    assert_false(access_same_endpoint((struct sockaddr *)&a, (struct sockaddr *)&d));
    assert_false(access_same_endpoint((struct sockaddr *)&a, (struct sockaddr *)&e));
    assert_int_equal(access_port((struct sockaddr *)&c), 8120);
    assert_int_equal(access_port((struct sockaddr *)&e), 8119);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),     cmocka_unit_test(test_edges),
        cmocka_unit_test(test_refusals),  cmocka_unit_test(test_loopback_and_wildcard),
        cmocka_unit_test(test_endpoints),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
