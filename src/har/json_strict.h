/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the streaming HAR reader (yajl) lets through and the whole-document one (jansson)
 * refuses, checked apart so that both read a text alike: strings that are not Unicode. Pure. */
#ifndef BROCK_HAR_JSON_STRICT_H
#define BROCK_HAR_JSON_STRICT_H

#include <stddef.h>

/* Whether the len bytes at p are UTF-8 as RFC 3629 has it. yajl takes overlong forms
 * (C0 AF), encoded surrogates (ED A0 80) and code points past U+10FFFF, which are not. */
int json_utf8_strict(const unsigned char *p, size_t len);

/* A text's scan, chunk after chunk; zero it to begin. */
struct json_strict {
    unsigned char u8[4]; /* a UTF-8 sequence cut by the end of the last chunk */
    size_t u8_len;
    char esc[12]; /* an escape cut by it */
    size_t esc_len;
};

/* What json_strict_scan() found. */
enum { JSON_STRICT_UTF8 = -1, JSON_STRICT_SURROGATE = -2 };

/* Looks at the n bytes at chunk, the next of the text: bytes that are not UTF-8 (in JSON
 * only strings hold any past ASCII), and a surrogate escaped without its pair (\uD800 alone,
 * or followed by another escape than \uDC00 to \uDFFF), which jansson refuses and yajl reads
 * as '?'. A sequence or an escape cut by the chunk's end is finished with the next chunk.
 * Returns 0, JSON_STRICT_UTF8 or JSON_STRICT_SURROGATE. */
int json_strict_scan(struct json_strict *st, const char *chunk, size_t n);

#endif
