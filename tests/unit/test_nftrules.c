/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Transparent mode's pieces that need no network (src/process/nftrules.c, src/net/origdst.c):
 * the nftables text for this machine and for a router, replacing the table or not; interface
 * names and port lists that must not reach it; and the destination of a connection that was
 * not redirected, which is the socket's own address (an IPv4-mapped one as IPv4).
 */
#include "test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/origdst.h"
#include "process/nftrules.h"

static void test_local(void **state)
{
    struct nft_rules r = {.uid = 105, .port = 8120, .ports = {80, 443}, .n_ports = 2};
    char out[2048];
    int n;

    (void)state;
    n = nft_rules_text(&r, 0, out, sizeof(out));
    assert_true(n > 0);
    assert_int_equal((size_t)n, strlen(out));
    assert_non_null(strstr(out, "table inet brock {\n\tchain output {\n"
                                "\t\ttype nat hook output priority -100; policy accept;\n"
                                "\t\tmeta skuid 105 return\n"
                                "\t\tfib daddr type local return\n"
                                "\t\ttcp dport { 80, 443 } redirect to :8120\n\t}\n}\n"));
    assert_null(strstr(out, "delete table"));
    /* Replacing: the table declared, then deleted, first (no error when it was not there). */
    n = nft_rules_text(&r, 1, out, sizeof(out));
    assert_true(n > 0);
    assert_memory_equal(out, "add table inet brock\ndelete table inet brock\n", 44);
    assert_string_equal(nft_rules_remove_text(), "add table inet brock\ndelete table inet brock\n");
    /* Too small a buffer, or rules that are not valid: -1. */
    assert_int_equal(nft_rules_text(&r, 0, out, 40), -1);
    r.port = 0;
    assert_int_equal(nft_rules_text(&r, 0, out, sizeof(out)), -1);
    r.port = 8120;
    r.n_ports = 0;
    assert_int_equal(nft_rules_text(&r, 0, out, sizeof(out)), -1);
}

static void test_gateway(void **state)
{
    struct nft_rules r = {.gateway = "br-lan", .port = 3129, .ports = {80}, .n_ports = 1};
    char out[2048];

    (void)state;
    assert_true(nft_rules_text(&r, 0, out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "\tchain prerouting {\n"
                                "\t\ttype nat hook prerouting priority -100; policy accept;\n"
                                "\t\tiifname \"br-lan\" fib daddr type local return\n"
                                "\t\tiifname \"br-lan\" tcp dport { 80 } redirect to :3129\n"));
    assert_null(strstr(out, "skuid"));
    /* Nothing but an interface's characters goes into the text. */
    r.gateway = "eth0\" accept";
    assert_int_equal(nft_rules_text(&r, 0, out, sizeof(out)), -1);
    assert_true(nft_iface_ok("eth0"));
    assert_true(nft_iface_ok("wlp3s0.100"));
    assert_true(nft_iface_ok("123456789012345"));
    assert_false(nft_iface_ok("1234567890123456"));
    assert_false(nft_iface_ok(""));
    assert_false(nft_iface_ok("eth 0"));
    assert_false(nft_iface_ok("eth0;"));
    assert_false(nft_iface_ok("eth0\n"));
}

static void test_ports(void **state)
{
    struct nft_rules r = {0};
    char err[256], list[200];

    (void)state;
    assert_int_equal(nft_ports_parse(&r, "80,443,8080", err, sizeof(err)), 0);
    assert_int_equal(r.n_ports, 3);
    assert_int_equal(r.ports[2], 8080);
    assert_int_equal(nft_ports_parse(&r, "65535", err, sizeof(err)), 0);
    assert_int_equal(r.n_ports, 1);
    /* Each refused with a sentence, r as it was. */
    const char *bad[] = {"",     "0",       "65536", "80,",    ",80",  "80,,443",
                         "http", "80 ,443", "-1",    "080000", "80,80"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(nft_ports_parse(&r, bad[i], err, sizeof(err)), -1);
        assert_non_null(strstr(err, "--ports"));
        assert_int_equal(r.n_ports, 1);
        assert_int_equal(r.ports[0], 65535);
    }
    /* At most NFT_PORTS_MAX. */
    list[0] = '\0';
    for (int p = 1; p <= NFT_PORTS_MAX + 1; p++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d", p > 1 ? "," : "", p);
    assert_int_equal(nft_ports_parse(&r, list, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "at most"));
}

/* A connection made straight to a listener: its destination is the listener itself. */
static void test_not_redirected(void **state)
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
    struct sockaddr_in to = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    struct dns_addr dst;
    enum orig_how how;
    int l, c, s, off = 0;

    (void)state;
    l = socket(AF_INET6, SOCK_STREAM, 0);
    assert_true(l >= 0);
    assert_int_equal(setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)), 0);
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(l, 1), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
    c = socket(AF_INET, SOCK_STREAM, 0);
    to.sin_port = a.sin6_port;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(c, (struct sockaddr *)&to, sizeof(to)), 0);
    s = accept(l, NULL, NULL);
    assert_true(s >= 0);
    /* An IPv4 client of the dual-stack socket: its destination as IPv4, the port's. */
    assert_int_equal(orig_dst(s, &dst, &how), 0);
    assert_int_equal(dst.u.sa.sa_family, AF_INET);
    assert_int_equal(dst.len, sizeof(struct sockaddr_in));
    assert_int_equal(dst.u.v4.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
    assert_int_equal(dst.u.v4.sin_port, a.sin6_port);
    close(s);
    close(c);
    close(l);
    /* Not a socket. */
    assert_int_equal(orig_dst(-1, &dst, &how), -1);
}

static void test_unmap(void **state)
{
    struct dns_addr a = {.len = sizeof(struct sockaddr_in6)};

    (void)state;
    a.u.v6.sin6_family = AF_INET6;
    a.u.v6.sin6_port = htons(443);
    assert_int_equal(inet_pton(AF_INET6, "::ffff:192.0.2.7", &a.u.v6.sin6_addr), 1);
    orig_unmap(&a);
    assert_int_equal(a.u.sa.sa_family, AF_INET);
    assert_int_equal(a.len, sizeof(struct sockaddr_in));
    assert_int_equal(a.u.v4.sin_port, htons(443));
    assert_int_equal(a.u.v4.sin_addr.s_addr, inet_addr("192.0.2.7"));
    /* A true IPv6 address stays. */
    memset(&a, 0, sizeof(a));
    a.len = sizeof(struct sockaddr_in6);
    a.u.v6.sin6_family = AF_INET6;
    assert_int_equal(inet_pton(AF_INET6, "2001:db8::7", &a.u.v6.sin6_addr), 1);
    orig_unmap(&a);
    assert_int_equal(a.u.sa.sa_family, AF_INET6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local), cmocka_unit_test(test_gateway),
        cmocka_unit_test(test_ports), cmocka_unit_test(test_not_redirected),
        cmocka_unit_test(test_unmap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
