/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What brock's two HTTP/2 sides share (h2common.h). */
#include "proxy/h2common.h"

nghttp2_option *h2_options_new(void)
{
    nghttp2_option *opt = NULL;

    if (nghttp2_option_new(&opt) != 0)
        return NULL;
    nghttp2_option_set_no_auto_window_update(opt, 1);
    nghttp2_option_set_stream_reset_rate_limit(opt, 1000, 33);
    nghttp2_option_set_max_continuations(opt, 8);
    nghttp2_option_set_max_settings(opt, 32);
    nghttp2_option_set_max_outbound_ack(opt, 1000);
    nghttp2_option_set_max_deflate_dynamic_table_size(opt, 4096);
    return opt;
}

int h2_fields(const struct http_head *hh,
              int (*skip)(const struct brock_header *h, const struct brock_header *connection),
              struct buf *names, nghttp2_nv *nv, size_t *n, size_t max)
{
    const struct brock_header *conn = http_header_find(hh->h, hh->n, "connection");
    size_t off = 0;

    /* The names first, all of them, so that the buffer moves no more once nv points in. */
    buf_reset(names);
    for (size_t i = 0; i < hh->n; i++) {
        if (!skip(&hh->h[i], conn) && buf_append(names, hh->h[i].name, hh->h[i].name_len) < 0)
            return -1;
    }
    for (size_t i = 0; i < hh->n && *n < max; i++) {
        const struct brock_header *h = &hh->h[i];
        char *name = names->data + off;

        if (skip(h, conn))
            continue;
        for (size_t k = 0; k < h->name_len; k++)
            name[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
        nv[(*n)++] = h2_field(name, h->name_len, h->value, h->value_len);
        off += h->name_len;
    }
    return 0;
}
