/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Addresses as the engine reads them: the host of a URL, found where browsers find it, and IP
 * addresses as Privacy Badger tests them (whether a host is one, whether it is private).
 */
#include "engine/names.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* ---- URLs ---- */

static bool is_scheme(const char *s, size_t len)
{
    if (len == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '-' || c == '.'))
            return false;
    }
    return true;
}

/* An empty port is allowed, as browsers allow "http://host:/". */
static bool is_port(const char *s, size_t len)
{
    unsigned long v = 0;

    if (len > 5)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned long)(s[i] - '0');
    }
    return v <= 65535;
}

/* host[:port] or [v6][:port], normalised into out. */
static int authority_host(const char *a, size_t len, char *out)
{
    const char *colon;

    if (len > 0 && a[0] == '[') {
        const char *close = memchr(a, ']', len);
        size_t hlen;
        if (!close)
            return BROCK_EINVAL;
        hlen = (size_t)(close - a) + 1;
        if (hlen < len && (a[hlen] != ':' || !is_port(a + hlen + 1, len - hlen - 1)))
            return BROCK_EINVAL;
        return brock_host_normalize(a, hlen, out);
    }
    colon = memchr(a, ':', len);
    if (colon) {
        size_t hlen = (size_t)(colon - a);
        if (!is_port(colon + 1, len - hlen - 1))
            return BROCK_EINVAL;
        len = hlen;
    }
    return brock_host_normalize(a, len, out);
}

int brock_url_host(const char *url, char *out)
{
    const char *p, *end, *at, *sep;

    if (!out)
        return BROCK_EINVAL;
    out[0] = '\0';
    if (!url)
        return BROCK_EINVAL;
    p = url;
    /* blob: and filesystem: wrap another URL whose host is the one that counts. */
    for (;;) {
        sep = strchr(p, ':');
        if (!sep || !is_scheme(p, (size_t)(sep - p)))
            break;
        if ((sep - p == 4 && strncasecmp(p, "blob", 4) == 0) ||
            (sep - p == 10 && strncasecmp(p, "filesystem", 10) == 0)) {
            p = sep + 1;
            continue;
        }
        if (sep[1] == '/' && sep[2] == '/')
            p = sep + 3;
        break;
    }
    if (p == url && p[0] == '/' && p[1] == '/')
        p += 2;
    /* Browsers end an http(s) authority at a backslash too; so must we, or
     * "http://a.example\@b.example/" would be read as b.example. */
    end = p + strcspn(p, "/?#\\");
    if (p == url) {
        /* A bare host or host:port, as in a CONNECT request. Two colons or more without
         * brackets can only be an IPv6 address. */
        const char *c = memchr(p, ':', (size_t)(end - p));
        if (p[0] != '[' && c && memchr(c + 1, ':', (size_t)(end - c - 1)))
            return brock_host_normalize(p, (size_t)(end - p), out);
        /* Only a URL's authority may end in an empty port ("http://host:/"): a bare
         * "http:" or "https:?x" is a scheme with nothing after it, not a host. */
        if (c && c + 1 == end)
            return BROCK_EINVAL;
        return authority_host(p, (size_t)(end - p), out);
    }
    /* The last '@' ends the userinfo, as browsers read it: a password may hold an '@'. */
    at = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == '@')
            at = q;
    if (at)
        p = at + 1;
    return authority_host(p, (size_t)(end - p), out);
}

/* The bytes of a plain host that are their own normal form: lower-case letters, digits, '-',
 * '_' and '.'. */
static const unsigned char plain_lower[256] = {
    ['-'] = 1, ['.'] = 1, ['_'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
    ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1,
    ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
    ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,
    ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

/* The common URL's host, checked byte by byte against what brock_url_host() reads: the
 * scheme is not blob: or filesystem:, no '@' can end a userinfo, and the authority ends
 * where brock_url_host() ends it. */
const char *brock__url_plain_host(const char *url, size_t *len)
{
    const char *h, *p;

    /* Byte by byte: a shorter string is never read past its end. */
    if (url[0] != 'h' || url[1] != 't' || url[2] != 't' || url[3] != 'p')
        return NULL;
    h = url + 4 + (url[4] == 's');
    if (h[0] != ':' || h[1] != '/' || h[2] != '/')
        return NULL;
    h += 3;
    for (p = h; plain_lower[(unsigned char)*p]; p++)
        ;
    *len = (size_t)(p - h);
    if (*p == ':') {
        const char *port = ++p;

        while (*p >= '0' && *p <= '9')
            p++;
        if (!is_port(port, (size_t)(p - port)))
            return NULL;
    }
    return *p == '\0' || *p == '/' || *p == '?' || *p == '#' || *p == '\\' ? h : NULL;
}

/* ---- IP addresses and private hosts ---- */

/* One octet of Privacy Badger's IPv4 pattern: decimal 0-255 (up to three digits), octal
 * written 0nnn, or hex 0xN / 0xNN. */
static bool is_v4_octet(const char *s, size_t n)
{
    bool digits = n > 0;

    if (n >= 3 && n <= 4 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        for (size_t i = 2; i < n; i++)
            if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
                  (s[i] >= 'A' && s[i] <= 'F')))
                return false;
        return true;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            digits = false;
    if (!digits)
        return false;
    if (n <= 2)
        return true;
    if (n == 3)
        return s[0] == '0' || s[0] == '1' || (s[0] == '2' && s[1] <= '4') ||
               (s[0] == '2' && s[1] == '5' && s[2] <= '5');
    return n == 4 && s[0] == '0' && s[1] <= '7' && s[2] <= '7' && s[3] <= '7';
}

static bool is_ipv4(const char *h)
{
    size_t len = strlen(h), parts = 0;
    const char *p = h;
    bool hex = len == 10 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X');

    if (len > 0 && strspn(h, "0123456789") == len)
        return true;
    if (hex) {
        for (size_t i = 2; i < len; i++)
            if (!strchr("0123456789abcdefABCDEF", h[i]))
                hex = false;
        if (hex)
            return true;
    }
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!is_v4_octet(p, n) || ++parts > 4)
            return false;
        if (!dot)
            break;
        p = dot + 1;
    }
    return parts == 4;
}

int brock__is_ip(const char *host)
{
    struct in6_addr a;

    if (!host || !*host)
        return 0;
    /* Only a real IPv6 address counts: "foo.bar.2001::7334" is a name to Privacy Badger. */
    if (strchr(host, ':'))
        return inet_pton(AF_INET6, host, &a) == 1;
    return is_ipv4(host);
}

/* Privacy Badger reads four dot-separated decimal numbers of 0-255; anything else is not an
 * address to it (and so not private). */
static bool ipv4_number(const char *h, uint32_t *ip)
{
    uint32_t v = 0;
    const char *p = h;

    for (int i = 0; i < 4; i++) {
        unsigned long octet = 0;
        size_t n = strspn(p, "0123456789");
        if (n == 0 || n > 3 || (i < 3 && p[n] != '.') || (i == 3 && p[n] != '\0'))
            return false;
        for (size_t k = 0; k < n; k++)
            octet = octet * 10 + (unsigned long)(p[k] - '0');
        if (octet > 255)
            return false;
        v = v << 8 | (uint32_t)octet;
        p += n + 1;
    }
    *ip = v;
    return true;
}

int brock__is_private_plain(const char *host)
{
    uint32_t ip;

    if (!host)
        return 0;
    if (strcmp(host, "localhost") == 0)
        return 1;
    if (!ipv4_number(host, &ip))
        return 0;
    return (ip & 0xff000000u) == 0x7f000000u || (ip & 0xff000000u) == 0x0a000000u ||
           (ip & 0xfff00000u) == 0xac100000u || (ip & 0xffff0000u) == 0xc0a80000u;
}

int brock__is_private(const char *host)
{
    /* Only "localhost" and dotted decimal numbers are: a name that starts otherwise is not
     * read further. */
    if (!host || (*host != 'l' && (*host < '0' || *host > '9')))
        return 0;
    return brock__is_private_plain(host);
}
