/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A response head from HTTP/2 fields into HTTP/1.1 (h2resp.h). */
#include "http/h2resp.h"

#include <string.h>

#include "http/head.h"

void h2resp_init(struct h2resp *r)
{
    buf_init(&r->fields, LIMIT_HEAD_BYTES);
    r->status = 0;
    r->has_length = 0;
}

void h2resp_cleanup(struct h2resp *r)
{
    buf_cleanup(&r->fields);
}

void h2resp_reset(struct h2resp *r)
{
    buf_reset(&r->fields);
    r->status = 0;
    r->has_length = 0;
}

static int digits(const char *v, size_t n)
{
    int x = 0;

    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return 0;
        x = x * 10 + (v[i] - '0');
    }
    return x;
}

int h2resp_field(struct h2resp *r, const char *name, size_t nlen, const char *value, size_t vlen)
{
    if (nlen > 0 && name[0] == ':') {
        if (nlen == 7 && memcmp(name, ":status", 7) == 0)
            r->status = vlen == 3 ? digits(value, vlen) : 0;
        return 0;
    }
    if (nlen == 14 && memcmp(name, "content-length", 14) == 0)
        r->has_length = 1;
    return buf_append(&r->fields, name, nlen) < 0 || buf_append(&r->fields, ": ", 2) < 0 ||
                   buf_append(&r->fields, value, vlen) < 0 || buf_append(&r->fields, "\r\n", 2) < 0
               ? -1
               : 0;
}

int h2resp_chunked(const struct h2resp *r, int no_body)
{
    return !no_body && r->status != 204 && r->status != 304 && !r->has_length;
}

int h2resp_write(const struct h2resp *r, int chunked, struct buf *out)
{
    const char *reason = http_reason(r->status);

    /* A status brock has no phrase for goes without one (RFC 9112 4: it may be empty). */
    if (strcmp(reason, "Unknown") == 0)
        reason = "";
    return buf_printf(out, "HTTP/1.1 %03d %s\r\n", r->status, reason) < 0 ||
                   (r->fields.len && buf_append(out, r->fields.data, r->fields.len) < 0) ||
                   (chunked && buf_append(out, "transfer-encoding: chunked\r\n", 28) < 0) ||
                   buf_append(out, "\r\n", 2) < 0
               ? -1
               : 0;
}
