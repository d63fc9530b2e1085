/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The PROXY protocol header, versions 1 (a text line) and 2 (binary), read strictly: anything
 * the specification does not allow is refused, so that a client talking to brock directly
 * cannot pass for a balancer by sending something header-like. */
#include "process/proxyproto.h"

#include <arpa/inet.h>
#include <string.h>
#include <netinet/in.h>

static const uint8_t v1_prefix[] = "PROXY ";
static const uint8_t v2_signature[12] = {0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d,
                                         0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a};

/* The sizes of version 2's address blocks, by family: unspecified, IPv4, IPv6, Unix. */
static const size_t v2_addr_size[4] = {0, 12, 36, 216};

static int malformed(const char **why, const char *text)
{
    *why = text;
    return PROXYPROTO_MALFORMED;
}

/* Whether the len bytes at p agree with the first len bytes of want (n bytes long). */
static int begins(const uint8_t *p, size_t len, const uint8_t *want, size_t n)
{
    return memcmp(p, want, len < n ? len : n) == 0;
}

/* ---- version 1: "PROXY TCP4 SRC DST SPORT DPORT\r\n" ---- */

/* A decimal port, 0 to 65535, without leading zeros. Returns it, or -1. */
static long v1_port(const char *s, size_t n)
{
    long v = 0;

    if (n == 0 || n > 5 || (s[0] == '0' && n > 1))
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= 65535 ? v : -1;
}

/* An address of family af into sa (with port). Returns 0, or -1. */
static int v1_addr(int af, const char *s, size_t n, long port, struct sockaddr_storage *sa)
{
    char text[INET6_ADDRSTRLEN];

    if (n == 0 || n >= sizeof(text))
        return -1;
    memcpy(text, s, n);
    text[n] = '\0';
    memset(sa, 0, sizeof(*sa));
    if (af == AF_INET) {
        struct sockaddr_in *v4 = (struct sockaddr_in *)sa;

        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        return inet_pton(AF_INET, text, &v4->sin_addr) == 1 ? 0 : -1;
    }
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;

    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    return inet_pton(AF_INET6, text, &v6->sin6_addr) == 1 ? 0 : -1;
}

/* The fields of the line (without "PROXY " and CRLF): TCP4 or TCP6 and four more, each
 * after one space, or UNKNOWN and anything. */
static int v1_fields(const char *s, size_t n, struct proxyproto *out, const char **why)
{
    const char *f[5];
    size_t fl[5], k = 0, start = 0;
    struct sockaddr_storage dst;
    long sport, dport;
    int af;

    if (n >= 7 && !memcmp(s, "UNKNOWN", 7) && (n == 7 || s[7] == ' ')) {
        out->kind = "UNKNOWN";
        return 0;
    }
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != ' ')
            continue;
        if (k == 5)
            return malformed(why, "a version 1 line with more than six fields");
        f[k] = s + start;
        fl[k++] = i - start;
        start = i + 1;
    }
    if (fl[0] == 4 && !memcmp(f[0], "TCP4", 4))
        af = AF_INET;
    else if (fl[0] == 4 && !memcmp(f[0], "TCP6", 4))
        af = AF_INET6;
    else
        return malformed(why, "a version 1 line whose protocol is not TCP4, TCP6 or UNKNOWN");
    if (k != 5)
        return malformed(why, "a version 1 line without its two addresses and two ports");
    sport = v1_port(f[3], fl[3]);
    dport = v1_port(f[4], fl[4]);
    if (sport < 0 || dport < 0)
        return malformed(why, "a version 1 line with a port that is not a number from 0 to "
                              "65535");
    if (v1_addr(af, f[1], fl[1], sport, &out->src) < 0 || v1_addr(af, f[2], fl[2], dport, &dst) < 0)
        return malformed(why, "a version 1 line with an address not of its protocol");
    out->kind = af == AF_INET ? "TCP4" : "TCP6";
    out->has_source = 1;
    return 0;
}

static int parse_v1(const uint8_t *p, size_t len, struct proxyproto *out, const char **why)
{
    size_t most = len < PROXYPROTO_V1_MAX ? len : PROXYPROTO_V1_MAX;
    size_t prefix = sizeof(v1_prefix) - 1;

    out->version = 1;
    for (size_t i = prefix; i < most; i++) {
        if (p[i] == '\r') {
            if (i + 2 > PROXYPROTO_V1_MAX)
                return malformed(why, "a version 1 line longer than 107 bytes");
            if (i + 1 == len)
                return PROXYPROTO_INCOMPLETE;
            if (p[i + 1] != '\n')
                return malformed(why, "a version 1 line with a CR not followed by LF");
            if (v1_fields((const char *)p + prefix, i - prefix, out, why) < 0)
                return PROXYPROTO_MALFORMED;
            return (int)(i + 2);
        }
        if (p[i] < 0x20 || p[i] > 0x7e)
            return malformed(why, "a version 1 line with a byte that is not printable ASCII");
    }
    if (len >= PROXYPROTO_V1_MAX)
        return malformed(why, "a version 1 line longer than 107 bytes");
    return PROXYPROTO_INCOMPLETE;
}

/* ---- version 2: signature, version and command, family and protocol, length ---- */

/* The extensions after the addresses (type, 16-bit length, value) must fill the rest
 * exactly; their contents are not used. */
static int v2_extensions(const uint8_t *p, size_t n, const char **why)
{
    size_t i = 0;

    while (i < n) {
        if (n - i < 3 || n - i - 3 < (size_t)(p[i + 1] << 8 | p[i + 2]))
            return malformed(why, "a version 2 extension runs past the header's end");
        i += 3 + (size_t)(p[i + 1] << 8 | p[i + 2]);
    }
    return 0;
}

static int parse_v2(const uint8_t *p, size_t len, struct proxyproto *out, const char **why)
{
    unsigned cmd, fam, proto;
    size_t body, need;

    out->version = 2;
    if (len < 16)
        return PROXYPROTO_INCOMPLETE;
    if (p[12] >> 4 != 2)
        return malformed(why, "a version 2 signature with another version number");
    cmd = p[12] & 0x0f;
    fam = p[13] >> 4;
    proto = p[13] & 0x0f;
    if (cmd > 1)
        return malformed(why, "a version 2 header whose command is neither LOCAL nor PROXY");
    if (fam > 3 || proto > 2)
        return malformed(why, "a version 2 header with an unknown address family or protocol");
    body = (size_t)p[14] << 8 | p[15];
    if (16 + body > PROXYPROTO_MAX)
        return malformed(why, "a version 2 header longer than 1024 bytes");
    if (len < 16 + body)
        return PROXYPROTO_INCOMPLETE;
    if (cmd == 0) {
        /* A balancer's own connection (a health check): its addresses do not count. */
        out->kind = "LOCAL";
        return (int)(16 + body);
    }
    need = v2_addr_size[fam];
    if (body < need)
        return malformed(why, "a version 2 header too short for its addresses");
    if (v2_extensions(p + 16 + need, body - need, why) < 0)
        return PROXYPROTO_MALFORMED;
    out->kind = "PROXY";
    if (proto == 1 && (fam == 1 || fam == 2)) {
        memset(&out->src, 0, sizeof(out->src));
        if (fam == 1) {
            struct sockaddr_in *v4 = (struct sockaddr_in *)&out->src;

            v4->sin_family = AF_INET;
            memcpy(&v4->sin_addr, p + 16, 4);
            memcpy(&v4->sin_port, p + 24, 2);
            out->kind = "TCP4";
        } else {
            struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&out->src;

            v6->sin6_family = AF_INET6;
            memcpy(&v6->sin6_addr, p + 16, 16);
            memcpy(&v6->sin6_port, p + 48, 2);
            out->kind = "TCP6";
        }
        out->has_source = 1;
    }
    return (int)(16 + body);
}

int proxyproto_parse(const uint8_t *p, size_t len, struct proxyproto *out, const char **why)
{
    memset(out, 0, sizeof(*out));
    *why = NULL;
    if (len == 0)
        return PROXYPROTO_INCOMPLETE;
    if (begins(p, len, v1_prefix, sizeof(v1_prefix) - 1)) {
        if (len < sizeof(v1_prefix) - 1)
            return PROXYPROTO_INCOMPLETE;
        return parse_v1(p, len, out, why);
    }
    if (begins(p, len, v2_signature, sizeof(v2_signature)))
        return parse_v2(p, len, out, why);
    return malformed(why, "no PROXY protocol header");
}
