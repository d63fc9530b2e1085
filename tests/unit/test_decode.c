/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Content-Encoding undone as a body streams: gzip (one member or several), deflate wrapped or
 * raw, br; any split of the input gives the same output; no step writes more than its room,
 * however much the input expands; a cut or corrupt stream is an error, bytes after the end
 * are dropped. */
#include "test.h"

#include <string.h>

#include <brotli/encode.h>
#include <zlib.h>

#include "proxy/decode.h"

#define ROOM 1024

/* text compressed: gzip (windowBits 31), zlib (15) or raw deflate (-15). */
static size_t zip(const char *text, size_t len, int bits, unsigned char *out, size_t size)
{
    z_stream z;

    memset(&z, 0, sizeof(z));
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)(uintptr_t)text;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)size;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    deflateEnd(&z);
    return size - z.avail_out;
}

static size_t brotli(const char *text, size_t len, unsigned char *out, size_t size)
{
    size_t n = size;

    assert_true(
        BrotliEncoderCompress(9, 22, BROTLI_MODE_TEXT, len, (const uint8_t *)text, &n, out));
    return n;
}

/* Decodes in[0..len) in pieces of step bytes into out; returns the bytes out, or -1 with
 * *reason. Every run writes at most ROOM bytes. */
static long decode(enum decode_coding c, const unsigned char *in, size_t len, size_t step,
                   char *out, size_t size, const char **reason)
{
    struct decoder *d = decoder_new(c);
    size_t off = 0, total = 0;

    assert_non_null(d);
    while (off < len) {
        const char *p = (const char *)in + off;
        size_t n = len - off < step ? len - off : step, left = n;

        do {
            long got = decoder_run(d, &p, &left, out + total, ROOM, reason);

            if (got < 0) {
                decoder_free(d);
                return -1;
            }
            assert_true(got <= ROOM);
            total += (size_t)got;
            assert_true(total + ROOM <= size);
        } while (left > 0 || decoder_has_more(d));
        off += n;
    }
    if (decoder_finish(d, reason) < 0) {
        decoder_free(d);
        return -1;
    }
    decoder_free(d);
    return (long)total;
}

static const char text[] = "<!DOCTYPE html><html><head><title>compressed</title></head>"
                           "<body><p>Hello, hello, hello, hello, hello.</p></body></html>\n";

static void round_trip(enum decode_coding c, const unsigned char *z, size_t zlen)
{
    static char out[65536];

    for (size_t step = 1; step <= zlen; step++) {
        const char *why = NULL;
        long n = decode(c, z, zlen, step, out, sizeof(out), &why);

        if (n != (long)sizeof(text) - 1 || memcmp(out, text, sizeof(text) - 1) != 0)
            fail_msg("coding %d, steps of %zu: %s", (int)c, step, why ? why : "wrong output");
    }
}

static void test_codings(void **state)
{
    unsigned char z[1024];

    (void)state;
    round_trip(DECODE_GZIP, z, zip(text, sizeof(text) - 1, 31, z, sizeof(z)));
    round_trip(DECODE_DEFLATE, z, zip(text, sizeof(text) - 1, 15, z, sizeof(z)));
    round_trip(DECODE_DEFLATE, z, zip(text, sizeof(text) - 1, -15, z, sizeof(z)));
    round_trip(DECODE_BR, z, brotli(text, sizeof(text) - 1, z, sizeof(z)));
}

/* Two gzip members are one body; bytes after the end are dropped. */
static void test_gzip_members_and_trailing(void **state)
{
    static char out[65536];
    unsigned char z[2048];
    size_t half = sizeof(text) / 2, n;
    const char *why = NULL;

    (void)state;
    n = zip(text, half, 31, z, sizeof(z));
    n += zip(text + half, sizeof(text) - 1 - half, 31, z + n, sizeof(z) - n);
    assert_int_equal(decode(DECODE_GZIP, z, n, 7, out, sizeof(out), &why), sizeof(text) - 1);
    assert_memory_equal(out, text, sizeof(text) - 1);
    memcpy(z + n, "junk", 4);
    assert_int_equal(decode(DECODE_GZIP, z, n + 4, 5, out, sizeof(out), &why), sizeof(text) - 1);
    n = brotli(text, sizeof(text) - 1, z, sizeof(z));
    memcpy(z + n, "junk", 4);
    assert_int_equal(decode(DECODE_BR, z, n + 4, 3, out, sizeof(out), &why), sizeof(text) - 1);
}

static void test_errors(void **state)
{
    static char out[65536];
    unsigned char z[1024];
    const char *why = NULL;
    size_t n;

    (void)state;
    n = zip(text, sizeof(text) - 1, 31, z, sizeof(z));
    assert_int_equal(decode(DECODE_GZIP, z, n - 3, 4, out, sizeof(out), &why), -1);
    assert_non_null(strstr(why, "ended before"));
    why = NULL;
    assert_int_equal(
        decode(DECODE_GZIP, (const unsigned char *)text, 40, 4, out, sizeof(out), &why), -1);
    assert_non_null(why);
    n = brotli(text, sizeof(text) - 1, z, sizeof(z));
    assert_int_equal(decode(DECODE_BR, z, n - 2, 4, out, sizeof(out), &why), -1);
    z[n / 2] ^= 0xff;
    z[n / 2 + 1] ^= 0x55;
    assert_int_equal(decode(DECODE_BR, z, n, 4, out, sizeof(out), &why), -1);
    /* An empty body is an empty document, whatever its coding. */
    assert_int_equal(decode(DECODE_BR, z, 0, 4, out, sizeof(out), &why), 0);
}

/* 64 MiB of zeros in some KiB: each run writes at most its room, the input stays until the
 * output is taken. */
static void test_bomb(void **state)
{
    size_t big = 64u << 20, zlen;
    char *zeros = calloc(1, big);
    unsigned char *z = malloc(big / 100);
    char out[ROOM];
    struct decoder *d;
    const char *p, *why = NULL;
    size_t left, total = 0;
    int runs = 0;

    (void)state;
    assert_non_null(zeros);
    assert_non_null(z);
    zlen = brotli(zeros, big, z, big / 100);
    assert_true(zlen < 4096);
    d = decoder_new(DECODE_BR);
    assert_non_null(d);
    p = (const char *)z;
    left = zlen;
    do {
        long got = decoder_run(d, &p, &left, out, sizeof(out), &why);

        assert_true(got >= 0 && got <= (long)sizeof(out));
        total += (size_t)got;
        runs++;
    } while (left > 0 || decoder_has_more(d));
    assert_int_equal(total, big);
    assert_true(runs >= (int)(big / sizeof(out)));
    assert_int_equal(decoder_finish(d, &why), 0);
    decoder_free(d);
    free(zeros);
    free(z);
}

static void test_parse(void **state)
{
    (void)state;
    assert_int_equal(decode_coding_parse("gzip", 4), DECODE_GZIP);
    assert_int_equal(decode_coding_parse(" X-GZIP ", 8), DECODE_GZIP);
    assert_int_equal(decode_coding_parse("deflate", 7), DECODE_DEFLATE);
    assert_int_equal(decode_coding_parse("br", 2), DECODE_BR);
    assert_int_equal(decode_coding_parse("identity", 8), DECODE_IDENTITY);
    assert_int_equal(decode_coding_parse("zstd", 4), -1);
    assert_int_equal(decode_coding_parse("gzip, br", 8), -1);
    assert_int_equal(decode_coding_parse("", 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codings), cmocka_unit_test(test_gzip_members_and_trailing),
        cmocka_unit_test(test_errors),  cmocka_unit_test(test_bomb),
        cmocka_unit_test(test_parse),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
