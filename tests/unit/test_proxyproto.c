/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The PROXY protocol header (process/proxyproto.h): versions 1 and 2, every address kind, each
 * good header whole, followed by the client's bytes and cut at every byte (incomplete, never
 * malformed), read up to a guard page; and the refusals, each naming what is wrong. */
#include "test.h"

#include <arpa/inet.h>
#include <sys/mman.h>

#include "process/proxyproto.h"

#define SIG "\r\n\r\n\0\r\nQUIT\n"

struct good {
    const char *name;
    const char *bytes;
    size_t len;
    const char *kind;
    const char *addr; /* the source's address, or NULL: none carried */
    int port;
};

/* sizeof - 1: the literals may hold NUL bytes. */
#define B(s) s, sizeof(s) - 1

static const struct good goods[] = {
    {"v1 TCP4", B("PROXY TCP4 192.0.2.1 198.51.100.2 56324 8119\r\n"), "TCP4", "192.0.2.1", 56324},
    {"v1 TCP6", B("PROXY TCP6 2001:db8::1 2001:db8::2 4000 443\r\n"), "TCP6", "2001:db8::1", 4000},
    {"v1 TCP4 port 0", B("PROXY TCP4 10.0.0.1 10.0.0.2 0 65535\r\n"), "TCP4", "10.0.0.1", 0},
    {"v1 UNKNOWN", B("PROXY UNKNOWN\r\n"), "UNKNOWN", NULL, 0},
    {"v1 UNKNOWN at 107 bytes",
     B("PROXY UNKNOWN ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff "
       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n"),
     "UNKNOWN", NULL, 0},
    {"v2 TCP4",
     B(SIG "\x21\x11\x00\x0c"
           "\xc0\x00\x02\x01"
           "\xc6\x33\x64\x02"
           "\xdc\x04\x1f\xb7"),
     "TCP4", "192.0.2.1", 56324},
    {"v2 TCP6",
     B(SIG "\x21\x21\x00\x24"
           "\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01"
           "\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02"
           "\x0f\xa0\x01\xbb"),
     "TCP6", "2001:db8::1", 4000},
    {"v2 TCP4 with extensions",
     B(SIG "\x21\x11\x00\x17"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"
           "\x30\x39\x1f\xb7"
           "\x01\x00\x02"
           "h2"
           "\x04\x00\x00"
           "\x05\x00\x00"),
     "TCP4", "10.0.0.7", 12345},
    {"v2 LOCAL", B(SIG "\x20\x00\x00\x00"), "LOCAL", NULL, 0},
    {"v2 LOCAL with addresses",
     B(SIG "\x20\x11\x00\x0c"
           "\x7f\x00\x00\x01"
           "\x7f\x00\x00\x01"
           "\x00\x01\x00\x02"),
     "LOCAL", NULL, 0},
    {"v2 PROXY UNSPEC", B(SIG "\x21\x00\x00\x00"), "PROXY", NULL, 0},
    {"v2 PROXY over UDP",
     B(SIG "\x21\x12\x00\x0c"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"
           "\x30\x39\x1f\xb7"),
     "PROXY", NULL, 0},
};

struct bad {
    const char *name;
    const char *bytes;
    size_t len;
    const char *why; /* a piece of the sentence */
};

static const struct bad bads[] = {
    {"an HTTP request", B("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), "no PROXY protocol header"},
    {"a lower-case line", B("proxy TCP4 1.2.3.4 1.2.3.4 1 2\r\n"), "no PROXY protocol header"},
    {"a TLS hello", B("\x16\x03\x01\x02\x00"), "no PROXY protocol header"},
    {"v1 without a port", B("PROXY TCP4 192.0.2.1 198.51.100.2 56324\r\n"), "two ports"},
    {"v1 with a field too many", B("PROXY TCP4 192.0.2.1 198.51.100.2 1 2 3\r\n"), "six fields"},
    {"v1 IPv6 as TCP4", B("PROXY TCP4 2001:db8::1 198.51.100.2 1 2\r\n"), "not of its protocol"},
    {"v1 IPv4 as TCP6", B("PROXY TCP6 192.0.2.1 198.51.100.2 1 2\r\n"), "not of its protocol"},
    {"v1 a port past 65535", B("PROXY TCP4 192.0.2.1 198.51.100.2 65536 80\r\n"), "port"},
    {"v1 a port with a leading zero", B("PROXY TCP4 192.0.2.1 198.51.100.2 080 80\r\n"), "port"},
    {"v1 two spaces", B("PROXY TCP4  192.0.2.1 198.51.100.2 1 2\r\n"), "six fields"},
    {"v1 another protocol", B("PROXY UDP4 192.0.2.1 198.51.100.2 1 2\r\n"), "not TCP4"},
    {"v1 an empty protocol", B("PROXY \r\n"), "not TCP4"},
    {"v1 LF alone", B("PROXY TCP4 192.0.2.1 198.51.100.2 1 2\nGET"), "printable"},
    {"v1 CR alone", B("PROXY TCP4 192.0.2.1 198.51.100.2 1 2\rGET"), "CR not followed"},
    {"v1 108 bytes",
     B("PROXY UNKNOWN ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff "
       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 655355\r\n"),
     "longer than 107"},
    {"v1 no end",
     B("PROXY UNKNOWN xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
     "longer than 107"},
    {"v2 a broken signature", B("\r\n\r\n\0\r\nQUIX\n\x21\x11\x00\x00"), "no PROXY"},
    {"v2 version 1",
     B(SIG "\x11\x11\x00\x0c"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"
           "\x30\x39\x1f\xb7"),
     "version number"},
    {"v2 version 3", B(SIG "\x31\x11\x00\x00"), "version number"},
    {"v2 command 2",
     B(SIG "\x22\x11\x00\x0c"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"
           "\x30\x39\x1f\xb7"),
     "command"},
    {"v2 family 4", B(SIG "\x21\x41\x00\x00"), "unknown address family"},
    {"v2 protocol 3", B(SIG "\x21\x13\x00\x0c"), "unknown address family"},
    {"v2 too short for IPv4",
     B(SIG "\x21\x11\x00\x08"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"),
     "too short"},
    {"v2 too short for IPv6",
     B(SIG "\x21\x21\x00\x0c"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"
           "\x30\x39\x1f\xb7"),
     "too short"},
    {"v2 an extension past the end",
     B(SIG "\x21\x11\x00\x0f"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"
           "\x30\x39\x1f\xb7"
           "\x01\x00\x05"),
     "extension"},
    {"v2 half an extension",
     B(SIG "\x21\x11\x00\x0e"
           "\x0a\x00\x00\x07"
           "\x0a\x00\x00\x01"
           "\x30\x39\x1f\xb7"
           "\x01\x00"),
     "extension"},
    {"v2 too long", B(SIG "\x21\x11\x04\x00"), "longer than 1024"},
};

/* The bytes at the end of a page followed by one that cannot be read: a parser reading past
 * what it was given faults. */
static uint8_t *guarded(const void *bytes, size_t len, void **map, size_t *maplen)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *m;

    *maplen = 2 * page;
    m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + page, page, PROT_NONE), 0);
    assert_true(len <= page);
    memcpy(m + page - len, bytes, len);
    *map = m;
    return m + page - len;
}

static int parse_guarded(const void *bytes, size_t len, struct proxyproto *pp, const char **why)
{
    void *map;
    size_t maplen;
    const uint8_t *p = guarded(bytes, len, &map, &maplen);
    int rc = proxyproto_parse(p, len, pp, why);

    munmap(map, maplen);
    return rc;
}

static void check_source(const struct good *g, const struct proxyproto *pp)
{
    char text[INET6_ADDRSTRLEN];
    int port;

    assert_string_equal(pp->kind, g->kind);
    if (!g->addr) {
        assert_false(pp->has_source);
        return;
    }
    assert_true(pp->has_source);
    if (pp->src.ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&pp->src;

        inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
        port = ntohs(v4->sin_port);
    } else {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&pp->src;

        assert_int_equal(pp->src.ss_family, AF_INET6);
        inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
        port = ntohs(v6->sin6_port);
    }
    assert_string_equal(text, g->addr);
    assert_int_equal(port, g->port);
}

static void test_good(void **state)
{
    static const char rest[] = "GET http://a.test/ HTTP/1.1\r\n\r\n";

    (void)state;
    for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
        const struct good *g = &goods[i];
        uint8_t with_rest[PROXYPROTO_MAX + sizeof(rest)];
        struct proxyproto pp;
        const char *why;

        print_message("# %s\n", g->name);
        assert_int_equal(parse_guarded(g->bytes, g->len, &pp, &why), (int)g->len);
        assert_int_equal(pp.version, g->bytes[0] == 'P' ? 1 : 2);
        check_source(g, &pp);
        /* The client's own bytes after it are not the header's. */
        memcpy(with_rest, g->bytes, g->len);
        memcpy(with_rest + g->len, rest, sizeof(rest) - 1);
        assert_int_equal(parse_guarded(with_rest, g->len + sizeof(rest) - 1, &pp, &why),
                         (int)g->len);
        check_source(g, &pp);
        /* Cut anywhere, it is a header still to come. */
        for (size_t cut = 0; cut < g->len; cut++)
            assert_int_equal(parse_guarded(g->bytes, cut, &pp, &why), PROXYPROTO_INCOMPLETE);
    }
}

static void test_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
        const struct bad *b = &bads[i];
        struct proxyproto pp;
        const char *why = NULL;

        print_message("# %s\n", b->name);
        assert_int_equal(parse_guarded(b->bytes, b->len, &pp, &why), PROXYPROTO_MALFORMED);
        assert_non_null(why);
        if (!strstr(why, b->why))
            fail_msg("%s: '%s' does not say '%s'", b->name, why, b->why);
        /* Cut short, it is incomplete or already malformed, never a header. */
        for (size_t cut = 0; cut < b->len; cut++)
            assert_true(parse_guarded(b->bytes, cut, &pp, &why) < 0);
    }
}

static void test_early_refusal(void **state)
{
    struct proxyproto pp;
    const char *why;

    (void)state;
    /* A client that does not begin with a header is refused at its first byte, without
     * waiting for more; so is a version 2 header announcing more than brock reads. */
    assert_int_equal(parse_guarded("G", 1, &pp, &why), PROXYPROTO_MALFORMED);
    assert_int_equal(parse_guarded("\x16", 1, &pp, &why), PROXYPROTO_MALFORMED);
    assert_int_equal(parse_guarded("PROXX", 5, &pp, &why), PROXYPROTO_MALFORMED);
    assert_int_equal(parse_guarded(SIG "\x21\x11\xff\xff", 16, &pp, &why), PROXYPROTO_MALFORMED);
    assert_int_equal(parse_guarded("", 0, &pp, &why), PROXYPROTO_INCOMPLETE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_early_refusal),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
