/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the streaming HAR reader (yajl) lets through and the whole-document one (jansson)
 * refuses, checked apart so that both read a text alike: strings that are not Unicode. Pure. */
#ifndef BROCK_HAR_JSON_STRICT_H
#define BROCK_HAR_JSON_STRICT_H

#include <stddef.h>

/* Whether the len bytes at p are UTF-8 as RFC 3629 has it: yajl takes overlong forms
 * (C0 AF), encoded surrogates (ED A0 80) and code points past U+10FFFF, which are not. */
int json_utf8_strict(const unsigned char *p, size_t len);

/* A scan of a text's escapes, chunk after chunk; zero it to begin. */
struct json_esc {
    char cut[12]; /* an escape cut by the end of the last chunk */
    size_t cut_len;
};

/* Looks at the escapes of the n bytes at chunk, the next of the text: a surrogate escaped
 * without its pair (\uD800 alone, or followed by another escape than \uDC00 to \uDFFF) is
 * refused, as jansson refuses it (yajl reads it as '?'). Backslashes appear only inside
 * strings in JSON, so only they are looked at; one cut by the chunk's end is finished with
 * the next chunk. Returns 0, or -1 at such an escape. */
int json_esc_scan(struct json_esc *st, const char *chunk, size_t n);

#endif
