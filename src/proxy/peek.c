/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A connection's first bytes: TLS records carrying a ClientHello, gathered and read for its
 * server_name extension (RFC 8446 4.1.2, RFC 6066 3), or an HTTP request line up to its version.
 * Every length is checked against what is there before it is used. */
#include "proxy/peek.h"

#include <string.h>

#define RECORD_HEADER 5
#define RECORD_HANDSHAKE 22
#define RECORD_MAX (16384 + 2048) /* a ciphertext record's limit: no plaintext one is longer */
#define HANDSHAKE_HEADER 4
#define CLIENT_HELLO 1
#define EXT_SERVER_NAME 0
#define NAME_HOST 0
#define METHOD_MAX 24 /* the longest method token read before the space that ends it */

/* A reader over a ClientHello's body: each take fails once past its end. */
struct reader {
    const uint8_t *p;
    size_t len, off;
};

static int skip(struct reader *r, size_t n)
{
    if (r->len - r->off < n)
        return -1;
    r->off += n;
    return 0;
}

/* A big-endian number of n bytes (1 or 2) into *v. */
static int number(struct reader *r, size_t n, size_t *v)
{
    if (r->len - r->off < n)
        return -1;
    *v = n == 1 ? r->p[r->off] : (size_t)(r->p[r->off] << 8 | r->p[r->off + 1]);
    r->off += n;
    return 0;
}

/* The host name in a server_name extension's data (d, n bytes) into name, lower-cased: the
 * first entry of type host_name, when it is 1 to 255 bytes of what a host name holds. */
static void server_name(const uint8_t *d, size_t n, char name[256])
{
    struct reader r = {d, n, 0};
    size_t list, type, len;

    if (number(&r, 2, &list) < 0 || list > n - 2)
        return;
    r.len = 2 + list;
    while (number(&r, 1, &type) == 0 && number(&r, 2, &len) == 0 && len <= r.len - r.off) {
        const uint8_t *h = r.p + r.off;

        r.off += len;
        if (type != NAME_HOST)
            continue;
        if (len == 0 || len > 255)
            return;
        for (size_t i = 0; i < len; i++) {
            uint8_t c = h[i];

            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '-' || c == '_'))
                return;
        }
        /* Written only once whole: a name cut off half-way is no name. */
        for (size_t i = 0; i < len; i++)
            name[i] = (char)(h[i] >= 'A' && h[i] <= 'Z' ? h[i] + ('a' - 'A') : h[i]);
        name[len] = '\0';
        return;
    }
}

/* A ClientHello's body (b, n bytes): its server name into name. Returns 0, or -1 when the
 * body is not one. */
static int hello_read(const uint8_t *b, size_t n, char name[256])
{
    struct reader r = {b, n, 0};
    size_t v, total;

    name[0] = '\0';
    /* legacy_version, random, legacy_session_id, cipher_suites, compression_methods */
    if (skip(&r, 2 + 32) < 0 || number(&r, 1, &v) < 0 || v > 32 || skip(&r, v) < 0 ||
        number(&r, 2, &v) < 0 || v < 2 || v % 2 || skip(&r, v) < 0 || number(&r, 1, &v) < 0 ||
        v < 1 || skip(&r, v) < 0)
        return -1;
    if (r.off == n)
        return 0; /* no extensions */
    if (number(&r, 2, &total) < 0 || total != n - r.off)
        return -1;
    while (r.off < n) {
        size_t type, len;

        if (number(&r, 2, &type) < 0 || number(&r, 2, &len) < 0 || len > n - r.off)
            return -1;
        if (type == EXT_SERVER_NAME) {
            server_name(r.p + r.off, len, name);
            return 0;
        }
        r.off += len;
    }
    return 0;
}

/* The handshake gathered from the records at p into scratch, and read once whole. */
static enum peek_kind tls_hello(const uint8_t *p, size_t len, uint8_t *scratch, char name[256],
                                const char **why)
{
    size_t off = 0, have = 0, need = 0;

    while (len - off >= RECORD_HEADER) {
        size_t rlen = (size_t)(p[off + 3] << 8 | p[off + 4]), avail;

        if (p[off] != RECORD_HANDSHAKE || p[off + 1] != 3 || rlen == 0 || rlen > RECORD_MAX) {
            *why = "TLS records that are not a ClientHello's";
            return PEEK_OTHER;
        }
        avail = len - off - RECORD_HEADER < rlen ? len - off - RECORD_HEADER : rlen;
        if (avail > PEEK_HELLO_MAX - have) {
            *why = "a ClientHello longer than brock reads";
            return PEEK_OTHER;
        }
        memcpy(scratch + have, p + off + RECORD_HEADER, avail);
        have += avail;
        if (!need && have >= HANDSHAKE_HEADER) {
            if (scratch[0] != CLIENT_HELLO) {
                *why = "a TLS handshake that is not a ClientHello";
                return PEEK_OTHER;
            }
            need = HANDSHAKE_HEADER +
                   ((size_t)scratch[1] << 16 | (size_t)scratch[2] << 8 | (size_t)scratch[3]);
            if (need > PEEK_HELLO_MAX) {
                *why = "a ClientHello longer than brock reads";
                return PEEK_OTHER;
            }
        }
        if (need && have >= need) {
            if (hello_read(scratch + HANDSHAKE_HEADER, need - HANDSHAKE_HEADER, name) < 0) {
                *why = "a ClientHello brock cannot read";
                return PEEK_OTHER;
            }
            return PEEK_TLS;
        }
        if (avail < rlen)
            break;
        off += RECORD_HEADER + rlen;
    }
    return PEEK_MORE;
}

/* Whether c is a token character (RFC 9110 5.6.2). */
static int tchar(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* An HTTP/1 request line as far as it goes (RFC 9112 3): a method token, a space, a target of
 * visible bytes, a space, "HTTP/". */
static enum peek_kind http_line(const uint8_t *p, size_t len, const char **why)
{
    static const char version[] = "HTTP/";
    size_t i = 0, start;

    while (i < len && i <= METHOD_MAX && tchar(p[i]))
        i++;
    if (i == len && i <= METHOD_MAX)
        return PEEK_MORE;
    if (i == 0 || i > METHOD_MAX || p[i] != ' ')
        goto other;
    start = ++i;
    while (i < len && p[i] > ' ' && p[i] < 0x7f)
        i++;
    if (i == len)
        return PEEK_MORE;
    if (i == start || p[i] != ' ')
        goto other;
    for (size_t k = 0; k < sizeof(version) - 1; k++) {
        if (++i == len)
            return PEEK_MORE;
        if (p[i] != (uint8_t)version[k])
            goto other;
    }
    return PEEK_HTTP;
other:
    *why = "neither TLS nor HTTP";
    return PEEK_OTHER;
}

enum peek_kind peek_classify(const uint8_t *p, size_t len, uint8_t *scratch, char name[256],
                             const char **why)
{
    name[0] = '\0';
    if (len == 0)
        return PEEK_MORE;
    if (p[0] == RECORD_HANDSHAKE)
        return tls_hello(p, len, scratch, name, why);
    return http_line(p, len, why);
}
