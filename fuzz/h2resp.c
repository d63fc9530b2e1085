/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Response heads from an origin over HTTP/2 as brock writes them in HTTP/1.1
 * (src/http/h2resp.c), read back with the proxy's own reader of origins (side_feed()): of the
 * fields nghttp2 lets through (its own checks, called here), the head must be exactly one
 * response with those fields in order and nothing else (and chunked framing when it says so),
 * or be refused whole; never two messages, never a field split or joined. A body the head
 * says is chunked must end at "0\r\n\r\n", a bodiless one with the head.
 *
 * The input: a byte of flags (bit 0: the request was HEAD), two bytes of status (little
 * endian, taken modulo 500, plus 100), then fields, each a name length (1 byte), the name, a
 * value length (2 bytes, little endian) and the value. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "http/h2resp.h"
#include "proxy/side.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FIELDS (LIMIT_HEADERS + 8)

struct field {
    const char *name, *value;
    size_t nlen, vlen;
};

/* What nghttp2 passes on of a response's fields (RFC 9113 8.2): a valid name that is not a
 * pseudo-header, a valid value, no connection-specific field, TE only as "trailers", and a
 * content-length of digits. */
static int passes(const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    static const char *const banned[] = {"connection",        "keep-alive", "proxy-connection",
                                         "transfer-encoding", "upgrade",    "te"};

    if (nlen == 0 || name[0] == ':' || !nghttp2_check_header_name(name, nlen) ||
        !nghttp2_check_header_value_rfc9113(value, vlen))
        return 0;
    for (size_t i = 0; i < sizeof(banned) / sizeof(banned[0]); i++) {
        if (nlen == strlen(banned[i]) && memcmp(name, banned[i], nlen) == 0)
            return 0;
    }
    if (nlen == 14 && memcmp(name, "content-length", 14) == 0) {
        if (vlen == 0 || vlen > 15)
            return 0;
        for (size_t i = 0; i < vlen; i++) {
            if (value[i] < '0' || value[i] > '9')
                return 0;
        }
    }
    return 1;
}

static size_t read_fields(struct h2resp *r, struct field *f, const uint8_t *data, size_t size)
{
    size_t off = 0, n = 0;

    while (off < size && n < MAX_FIELDS) {
        size_t nlen = data[off++], vlen;
        const uint8_t *name = data + off, *value;

        if (off + nlen + 2 > size)
            break;
        off += nlen;
        vlen = data[off] | (size_t)data[off + 1] << 8;
        off += 2;
        if (off + vlen > size)
            break;
        value = data + off;
        off += vlen;
        if (!passes(name, nlen, value, vlen))
            continue;
        if (h2resp_field(r, (const char *)name, nlen, (const char *)value, vlen) < 0)
            return SIZE_MAX;
        f[n++] = (struct field){(const char *)name, (const char *)value, nlen, vlen};
    }
    return n;
}

static int same(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* The head as a connection reads it from its upstream. */
static void read_back(const struct buf *head, const struct field *f, size_t n, int no_body,
                      int chunked, int status)
{
    struct side s;
    struct side_event ev;
    size_t used;

    side_init(&s);
    side_start(&s, SIDE_UPSTREAM);
    s.no_body = no_body;
    used = side_feed(&s, head->data, head->len, &ev);
    /* Refused whole (a value the strict reader will not take, more fields than a head may
     * have, two Content-Lengths): the connection answers 502, and nothing was passed on. */
    if (ev.type == SIDE_ERROR)
        goto done;
    if (ev.type != SIDE_HEAD || s.parser.status_code != status || s.head.n != n + (chunked != 0))
        abort();
    for (size_t k = 0; k < n; k++) {
        const struct brock_header *h = &s.head.h[k];

        if (!same(h->name, h->name_len, f[k].name, f[k].nlen) ||
            !same(h->value, h->value_len, f[k].value, f[k].vlen))
            abort();
    }
    used += side_feed(&s, head->data + used, head->len - used, &ev);
    if (used != head->len)
        abort();
    if (chunked) {
        used = side_feed(&s, "0\r\n\r\n", 5, &ev);
        if (ev.type != SIDE_DONE || used != 5)
            abort();
    } else if ((no_body || status == 204 || status == 304) && ev.type != SIDE_DONE) {
        abort();
    }
done:
    side_cleanup(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct h2resp r;
    struct field f[MAX_FIELDS];
    struct buf head;
    char code[4];
    int no_body, status, chunked;
    size_t n;

    if (size < 3)
        return 0;
    no_body = data[0] & 1;
    status = 100 + (data[1] | data[2] << 8) % 500;
    /* 1xx heads are interim and have their own path; 101 is no HTTP/2 status. */
    if (status < 200)
        status += 100;
    h2resp_init(&r);
    snprintf(code, sizeof(code), "%03d", status);
    if (h2resp_field(&r, ":status", 7, code, 3) < 0)
        abort();
    n = read_fields(&r, f, data + 3, size - 3);
    if (n != SIZE_MAX) {
        buf_init(&head, 2 * LIMIT_HEAD_BYTES);
        chunked = h2resp_chunked(&r, no_body);
        if (h2resp_write(&r, chunked, &head) == 0)
            read_back(&head, f, n, no_body, chunked, status);
        buf_cleanup(&head);
    }
    h2resp_cleanup(&r);
    return 0;
}
