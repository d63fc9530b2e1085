/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP/2 request header blocks as the carrier checks them (src/http/h2req.c), and every head it
 * writes for one, read back with the proxy's own HTTP/1.1 reader (side_feed(), as a stream
 * connection reads it): the head must be exactly one request, its bytes consumed to the last,
 * its target the :path, its fields the ones given in order and nothing else (Host, then the
 * fields, the cookies joined, the framing), and a request without a body must end there. A
 * field whose bytes HTTP/1.1 reads as more than one field, or as a second request, is what
 * the check exists to refuse: such a head aborts.
 *
 * The first input byte: bit 0, the stream ended with the header block; bit 1, the usual
 * pseudo-headers come first (GET https site.test /), so that the rest explores the fields.
 * The rest: fields, each a name length (1 byte), the name, a value length (2 bytes, little
 * endian) and the value. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/h2req.h"
#include "proxy/side.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the head must carry, field by field: name and value as given. */
struct expect {
    const char *name[LIMIT_HEADERS + 8], *value[LIMIT_HEADERS + 8];
    size_t nlen[LIMIT_HEADERS + 8], vlen[LIMIT_HEADERS + 8];
    size_t n;
    int over; /* more fields than the head may have: the request must have been refused */
};

static void want(struct expect *e, const char *name, size_t nlen, const char *value, size_t vlen)
{
    if (e->n == sizeof(e->name) / sizeof(e->name[0])) {
        e->over = 1;
        return;
    }
    e->name[e->n] = name;
    e->nlen[e->n] = nlen;
    e->value[e->n] = value;
    e->vlen[e->n] = vlen;
    e->n++;
}

static int regular(const char *name, size_t nlen)
{
    return nlen > 0 && name[0] != ':' && !(nlen == 4 && memcmp(name, "host", 4) == 0) &&
           !(nlen == 6 && memcmp(name, "cookie", 6) == 0) &&
           !(nlen == 14 && memcmp(name, "content-length", 14) == 0) &&
           !(nlen == 2 && memcmp(name, "te", 2) == 0);
}

/* Reads the fields of data into r (and the ones a head must show into e). */
static void read_fields(struct h2req *r, struct expect *e, const uint8_t *data, size_t size)
{
    size_t off = 0;

    while (off < size) {
        size_t nlen = data[off++], vlen;
        const char *name = (const char *)data + off, *value;

        if (off + nlen + 2 > size)
            return;
        off += nlen;
        vlen = data[off] | (size_t)data[off + 1] << 8;
        off += 2;
        if (off + vlen > size)
            return;
        value = (const char *)data + off;
        off += vlen;
        h2req_field(r, name, nlen, value, vlen);
        if (regular(name, nlen))
            want(e, name, nlen, value, vlen);
    }
}

static int same(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* The head as the stream connection reads it: one request, exactly e's fields after Host. */
static void read_back(const struct h2req *r, const struct expect *e, enum h2req_body body,
                      const struct buf *head)
{
    struct side s;
    struct side_event ev;
    size_t used, k = 0;

    if (e->over)
        abort();
    side_init(&s);
    side_start(&s, SIDE_CLIENT);
    used = side_feed(&s, head->data, head->len, &ev);
    /* http-parser knows a fixed set of methods: another is refused there, as it is from any
     * client (400), never read as something else. */
    if (ev.type == SIDE_ERROR && ev.error == SIDE_ERR_PARSE &&
        HTTP_PARSER_ERRNO(&s.parser) == HPE_INVALID_METHOD)
        goto done;
    if (ev.type != SIDE_HEAD || used > head->len)
        abort();
    if (!same(http_head_text(&s.head), s.head.line_len, r->path.data, r->path.len))
        abort();
    if (s.head.n < 1 || !same(s.head.h[0].name, s.head.h[0].name_len, "host", 4) ||
        !same(s.head.h[0].value, s.head.h[0].value_len, r->authority, strlen(r->authority)))
        abort();
    for (k = 0; k < e->n; k++) {
        const struct brock_header *h = &s.head.h[k + 1];

        if (k + 1 >= s.head.n || !same(h->name, h->name_len, e->name[k], e->nlen[k]) ||
            !same(h->value, h->value_len, e->value[k], e->vlen[k]))
            abort();
    }
    if (s.head.n != 1 + e->n + (r->cookie.len > 0) + (body != H2REQ_NO_BODY))
        abort();
    /* The rest of the head (a line feed the reader keeps for the parser), then the end of a
     * request without a body, or the wait for the body's first byte. */
    used += side_feed(&s, head->data + used, head->len - used, &ev);
    if (used != head->len ||
        ev.type != (body == H2REQ_NO_BODY || (body == H2REQ_LENGTH && r->length == 0) ? SIDE_DONE
                                                                                      : SIDE_MORE))
        abort();
done:
    side_cleanup(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const usual[][2] = {
        {":method", "GET"}, {":scheme", "https"}, {":authority", "site.test"}, {":path", "/"}};
    struct h2req r;
    struct expect e = {.n = 0};
    struct buf head;
    const char *why;
    uint32_t code;
    int ended;

    if (size < 1)
        return 0;
    ended = data[0] & 1;
    h2req_init(&r);
    if (data[0] & 2) {
        for (size_t i = 0; i < 4; i++)
            h2req_field(&r, usual[i][0], strlen(usual[i][0]), usual[i][1], strlen(usual[i][1]));
    }
    read_fields(&r, &e, data + 1, size - 1);
    if (h2req_check(&r, ended, "site.test", 443, &why, &code) == 0) {
        enum h2req_body body = r.has_length ? H2REQ_LENGTH : ended ? H2REQ_NO_BODY : H2REQ_CHUNKED;

        buf_init(&head, 4 * LIMIT_HEAD_BYTES);
        if (h2req_write_head(&r, body, &head) == 0)
            read_back(&r, &e, body, &head);
        buf_cleanup(&head);
    }
    h2req_cleanup(&r);
    return 0;
}
