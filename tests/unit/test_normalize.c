/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Host names normalised (brock_host_normalize(), by its reference path and each fast one) and
 * a URL's host as browsers find it (brock_url_host()), src/engine/domain.c and address.c.
 */
#include "test.h"

#include <string.h>

#include "engine/names.h"

/* ---- brock_host_normalize ---- */

/* want NULL: the host must be refused. */
static void check_norm(const char *in, const char *want)
{
    char out[BROCK_HOST_MAX];
    int n = brock_host_normalize(in, in ? strlen(in) : 0, out);

    if (!want) {
        if (n != BROCK_EINVAL)
            fail_msg("\"%s\" was accepted as \"%s\"", in ? in : "(null)", out);
        assert_string_equal(out, "");
        return;
    }
    if (n < 0)
        fail_msg("\"%s\" was refused (%d)", in, n);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void test_normalize_ascii(void **state)
{
    (void)state;
    check_norm("example.com", "example.com");
    check_norm("WwW.Example.COM", "www.example.com");
    check_norm("example.com.", "example.com");
    check_norm("EXAMPLE.COM.", "example.com");
    check_norm("a_b-c.example", "a_b-c.example");
    check_norm("xn--bcher-kva.de", "xn--bcher-kva.de");
    check_norm("localhost", "localhost");
    check_norm("1.2.3.4", "1.2.3.4");
    /* Only one trailing dot goes; what remains must be a host. */
    check_norm("example.com..", NULL);
    check_norm("", NULL);
    check_norm(".", NULL);
    check_norm("..", NULL);
    check_norm(".example.com", NULL);
    check_norm("a..example.com", NULL);
    check_norm(NULL, NULL);
}

/* What brock_host_normalize() makes of an ASCII name without ':' or '[', byte by byte: one
 * trailing dot dropped, then letters, digits, '-', '_' and dots between non-empty labels,
 * lower-cased; NULL when refused. */
static const char *norm_by_byte(const char *in, size_t len, char *out)
{
    size_t label = 0;

    if (len > 0 && in[len - 1] == '.')
        len--;
    if (len == 0 || len > 253)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];

        if (c == '.') {
            if (!label)
                return NULL;
            label = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
            label++;
        } else if (c >= 'A' && c <= 'Z') {
            c = (char)(c - 'A' + 'a');
            label++;
        } else {
            return NULL;
        }
        out[i] = c;
    }
    out[len] = '\0';
    return label ? out : NULL;
}

/* Each fast path of brock_host_normalize() either declines in or gives what the full path
 * gives; and the public call always gives what the full path gives. */
static void check_paths(const char *in, size_t len)
{
    static const enum brock__norm_path fast[] = {BROCK__NORM_BYTES, BROCK__NORM_WORDS,
                                                 BROCK__NORM_SSE2};
    char full[BROCK_HOST_MAX], got[BROCK_HOST_MAX];
    int nf = brock__host_normalize_by(BROCK__NORM_FULL, in, len, full);
    int n = brock_host_normalize(in, len, got);

    if (n != nf || strcmp(got, full) != 0)
        fail_msg("\"%.*s\": brock_host_normalize() gives %d \"%s\", the full path %d \"%s\"",
                 (int)len, in, n, got, nf, full);
    for (size_t k = 0; k < sizeof(fast) / sizeof(fast[0]); k++) {
        n = brock__host_normalize_by(fast[k], in, len, got);
        if (n >= 0 && (n != nf || strcmp(got, full) != 0))
            fail_msg("\"%.*s\": path %d gives %d \"%s\", the full path %d \"%s\"", (int)len, in,
                     (int)fast[k], n, got, nf, full);
    }
}

/* Names read eight bytes at a time are read as byte by byte: plain names of 1 to 40 bytes
 * with dots side by side at every place, and with one byte at a time from those next to the
 * ones a plain name may hold. */
static void test_normalize_words(void **state)
{
    static const char plain[] = "az09-_..", odd[] = "Z/`{,^@AM:[\x7f\x01";
    char in[64], want[BROCK_HOST_MAX];
    uint64_t r = 0x9e3779b97f4a7c15ULL;

    (void)state;
    for (unsigned round = 0; round < 200000; round++) {
        size_t len = 1 + round % 40;

        for (size_t i = 0; i <= len; i++) {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            if (i == len && round % 2)
                in[r % len] = odd[r / 64 % (sizeof(odd) - 1)];
            else if (i < len)
                in[i] = r % 4 ? (char)('a' + r / 4 % 26) : plain[r / 4 % (sizeof(plain) - 1)];
        }
        in[len] = '\0';
        /* ':' and '[' take other paths, which refuse these */
        check_norm(in, strpbrk(in, ":[") ? NULL : norm_by_byte(in, len, want));
        check_paths(in, len);
    }
#ifdef __SSE2__
    /* A name the sixteen-byte path takes, so that the comparison above is not empty. */
    assert_int_equal(brock__host_normalize_by(BROCK__NORM_SSE2, "www.example-site.com", 20, want),
                     20);
#endif
    assert_int_equal(brock__host_normalize_by(BROCK__NORM_WORDS, "www.example.com", 15, want), 15);
    assert_int_equal(brock__host_normalize_by(BROCK__NORM_BYTES, "Www.Example.com", 15, want), 15);
    assert_string_equal(want, "www.example.com");
    assert_true(brock__host_normalize_by(BROCK__NORM_WORDS, "Www.Example.com", 15, want) < 0);
}

static void test_normalize_bad_chars(void **state)
{
    static const char *const bad[] = {
        "exa mple.com",   "example.com/",   "example.com?",  "example.com#x",   "user@example.com",
        "exa\tmple.com",  "exa\rmple.com",  "exa\nmple.com", "exa\x01mple.com", "exa\x7fmple.com",
        "example.com:80", "exa%41mple.com", "exa\\mple.com", "exa<mple.com",    "exa|mple.com",
        "exa^mple.com",   "exa\"mple.com",  "[example.com]", "example]",
    };
    char out[BROCK_HOST_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        check_norm(bad[i], NULL);
    /* A NUL inside the given length is a bad byte too. */
    assert_int_equal(brock_host_normalize("exa\0mple.com", 12, out), BROCK_EINVAL);
    assert_int_equal(brock_host_normalize("b\xc3\xbc\0cher.de", 9, out), BROCK_EINVAL);
    assert_int_equal(brock_host_normalize("example.com", 11, NULL), BROCK_EINVAL);
}

static void test_normalize_length(void **state)
{
    char host[300], out[BROCK_HOST_MAX];

    (void)state;
    /* 253 bytes: four labels of 62 and one of 2, joined by dots (4 * 63 + 1 = 253). */
    memset(host, 'a', sizeof(host));
    for (int i = 62; i < 253; i += 63)
        host[i] = '.';
    host[253] = '\0';
    assert_int_equal(brock_host_normalize(host, 253, out), 253);
    assert_memory_equal(out, host, 254);
    /* 253 and a trailing dot is still 253. */
    host[253] = '.';
    host[254] = '\0';
    assert_int_equal(brock_host_normalize(host, 254, out), 253);
    /* 254 is too long. */
    host[253] = 'a';
    assert_int_equal(brock_host_normalize(host, 254, out), BROCK_EINVAL);
    assert_string_equal(out, "");
    /* Only len bytes are read: the rest of the buffer may be anything. */
    assert_int_equal(brock_host_normalize("Example.COM/path", 11, out), 11);
    assert_string_equal(out, "example.com");
}

static void test_normalize_ipv6(void **state)
{
    (void)state;
    check_norm("[::1]", "::1");
    check_norm("[2001:DB8::1]", "2001:db8::1");
    check_norm("[2001:0db8:0000:0000:0000:0000:0000:0001]", "2001:db8::1");
    check_norm("[::ffff:192.0.2.1]", "::ffff:192.0.2.1");
    check_norm("::1", "::1");
    check_norm("[::1", NULL);
    check_norm("::1]", NULL);
    check_norm("[]", NULL);
    check_norm("[", NULL);
    check_norm("[1.2.3.4]", NULL);
    check_norm("[::g]", NULL);
    check_norm("[fe80::1%eth0]", NULL);
    check_norm("foo.bar.2001::7334", NULL);
}

static void test_normalize_idn(void **state)
{
    (void)state;
    check_norm("b\xc3\xbc"
               "cher.de",
               "xn--bcher-kva.de");
    check_norm("B\xc3\x9c"
               "CHER.DE",
               "xn--bcher-kva.de");
    check_norm("b\xc3\xbc"
               "cher.de.",
               "xn--bcher-kva.de");
    /* Non-transitional, as browsers map today: sharp s is kept, not turned into "ss". */
    check_norm("fa\xc3\x9f.de", "xn--fa-hia.de");
    check_norm("\xe9\xa3\x9f\xe7\x8b\xae.\xe5\x85\xac\xe5\x8f\xb8.cn", "xn--85x722f.xn--55qx5d.cn");
    /* Full-width letters and the ideographic full stop map to plain ASCII. */
    check_norm("\xef\xbd\x85\xef\xbd\x98\xef\xbd\x81\xef\xbd\x8d\xef\xbd\x90\xef\xbd\x8c"
               "\xef\xbd\x85\xe3\x80\x82\xef\xbd\x83\xef\xbd\x8f\xef\xbd\x8d",
               "example.com");
    /* Not UTF-8, or mapped to something that is not a host. */
    check_norm("b\xfc"
               "cher.de",
               NULL);
    check_norm("b\xc3\xbc"
               "cher .de",
               NULL);
    check_norm("b\xc3\xbc"
               "cher.de/x",
               NULL);
    check_norm("b\xc3\xbc"
               "cher\xef\xbc\x8f"
               "x.de",
               NULL);
    check_norm("\xc3\xbc..de", NULL);
}

static void test_normalize_idn_length(void **state)
{
    char host[1200], out[BROCK_HOST_MAX];
    size_t n = 0;

    (void)state;
    /* 60 labels "\xc3\xbc" (u-umlaut, 2 bytes) encode as "xn--tda" (7): 60 * 8 + 2 = 482. */
    for (int i = 0; i < 60; i++) {
        memcpy(host + n, "\xc3\xbc.", 3);
        n += 3;
    }
    memcpy(host + n, "de", 3);
    assert_int_equal(brock_host_normalize(host, strlen(host), out), BROCK_EINVAL);
    /* 30 of them: 30 * 8 + 2 = 242 bytes, fits. */
    assert_int_equal(brock_host_normalize(host + 90, strlen(host + 90), out), 242);
    assert_memory_equal(out, "xn--tda.xn--tda.", 16);
    /* Past what any Unicode host could be, refused without looking further. */
    memset(host, 'a', sizeof(host));
    memcpy(host, "\xc3\xbc", 2);
    host[sizeof(host) - 1] = '\0';
    assert_int_equal(brock_host_normalize(host, strlen(host), out), BROCK_EINVAL);
}

/* ---- brock_url_host ---- */

/* Where the URL's host can be taken as written, it normalises to brock_url_host()'s answer,
 * or is refused as that refuses it. */
static void check_plain_host(const char *url, int n, const char *out)
{
    char norm[BROCK_HOST_MAX];
    const char *h;
    size_t len;
    int m;

    if (!url || !(h = brock__url_plain_host(url, &len)))
        return;
    m = brock_host_normalize(h, len, norm);
    if (m != n || (n >= 0 && strcmp(norm, out) != 0))
        fail_msg("\"%s\": the host as written, \"%.*s\", is not what brock_url_host() reads", url,
                 (int)len, h);
}

static void check_url(const char *url, const char *want)
{
    char out[BROCK_HOST_MAX];
    int n = brock_url_host(url, out);

    check_plain_host(url, n, out);
    if (!want) {
        if (n != BROCK_EINVAL)
            fail_msg("\"%s\" gave \"%s\"", url ? url : "(null)", out);
        assert_string_equal(out, "");
        return;
    }
    if (n < 0)
        fail_msg("\"%s\" was refused (%d)", url, n);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void test_url_host(void **state)
{
    (void)state;
    check_url("http://example.com/", "example.com");
    check_url("https://WWW.Example.COM/path?q=1#f", "www.example.com");
    check_url("HTTPS://example.com./x", "example.com");
    check_url("http://user:secret@example.com:8080/x", "example.com");
    check_url("http://user@name:p@ss@example.com/", "example.com");
    check_url("ws://socket.example.net:80/chat", "socket.example.net");
    check_url("wss://socket.example.net/", "socket.example.net");
    check_url("ftp://ftp.example.org/pub", "ftp.example.org");
    check_url("http://[::1]:8080/", "::1");
    check_url("http://[2001:DB8::1]/", "2001:db8::1");
    check_url("http://1.2.3.4/", "1.2.3.4");
    check_url("http://b\xc3\xbc"
              "cher.de/",
              "xn--bcher-kva.de");
    check_url("http://example.com:/", "example.com");
    /* Unlike Privacy Badger, no path after the host is needed. */
    check_url("http://foo.bar", "foo.bar");
    check_url("http://foo.bar:8080", "foo.bar");
    check_url("http://foo.bar?x=/y", "foo.bar");
    check_url("http://foo.bar#/y", "foo.bar");
    /* A backslash ends the authority, as browsers read http URLs. */
    check_url("http://a.example\\@b.example/", "a.example");
    check_url("blob:https://a.example/0f8e-11", "a.example");
    check_url("filesystem:http://a.example/temporary/x", "a.example");
    check_url("//cdn.example.com/lib.js", "cdn.example.com");
    /* Bare hosts, as a CONNECT request or a site argument gives them. */
    check_url("example.com", "example.com");
    check_url("Example.COM.", "example.com");
    check_url("example.com:443", "example.com");
    check_url("localhost:8080", "localhost");
    check_url("example.com/some/page", "example.com");
    check_url("[::1]:443", "::1");
    check_url("[::1]", "::1");
    check_url("2001:db8::1", "2001:db8::1");
    check_url("https://x.example:65535", "x.example");
    check_url("http://a.example:80\\@b.example/", "a.example");
    check_url("http://x.example:/?q", "x.example");
    check_url("https://x-y_z.example#f", "x-y_z.example");
    check_url("https://x.Example/", "x.example");
    check_url("https://x.example./", "x.example");
    check_url("http://x.example:1@y.example/", "y.example");
}

static void test_url_host_bad(void **state)
{
    (void)state;
    check_url(NULL, NULL);
    check_url("", NULL);
    check_url("http://", NULL);
    check_url("http:///path", NULL);
    check_url("http://user@/", NULL);
    check_url("http://exa mple.com/", NULL);
    check_url("http://example.com:99999/", NULL);
    check_url("http://example.com:8a/", NULL);
    check_url("http://example.com:-1/", NULL);
    check_url("http://[::1/", NULL);
    check_url("http://[::1]x/", NULL);
    check_url("http://[nothost]/", NULL);
    check_url("http://.example.com/", NULL);
    check_url("mailto:someone@example.com", NULL);
    check_url("http:example.com", NULL);
    check_url("example.com:443:1", NULL);
    /* A scheme with nothing after it is not a host named like the scheme. */
    check_url("http:", NULL);
    check_url("https:", NULL);
    check_url("HTTP:", NULL);
    check_url("http:?x", NULL);
    check_url("https:#top", NULL);
    check_url("http:/", NULL);
    check_url("localhost:", NULL);
    check_url("http://x.example:65536/", NULL);
    check_url("http://x..example/", NULL);
    check_url("http://x.example:123456/", NULL);
    check_url("blob://x.example/", NULL);
    assert_int_equal(brock_url_host("http://example.com/", NULL), BROCK_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize_ascii),      cmocka_unit_test(test_normalize_words),
        cmocka_unit_test(test_normalize_bad_chars),  cmocka_unit_test(test_normalize_length),
        cmocka_unit_test(test_normalize_ipv6),       cmocka_unit_test(test_normalize_idn),
        cmocka_unit_test(test_normalize_idn_length), cmocka_unit_test(test_url_host),
        cmocka_unit_test(test_url_host_bad),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
