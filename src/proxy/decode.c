/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gzip and deflate through zlib, br through libbrotli's decoder. */
#include "proxy/decode.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <brotli/decode.h>
#include <zlib.h>

#include "util/alloc.h"

struct decoder {
    enum decode_coding coding;
    z_stream z;
    int z_ready;           /* inflateInit2() was called */
    unsigned char head[2]; /* deflate: the first two bytes tell zlib-wrapped from raw */
    size_t n_head;
    BrotliDecoderState *br;
    int started; /* input came */
    int ended;   /* the stream's end was read */
    int full;    /* the last run filled its output */
};

int decode_coding_parse(const char *v, size_t len)
{
    static const struct {
        const char *name;
        enum decode_coding coding;
    } names[] = {
        {"identity", DECODE_IDENTITY}, {"gzip", DECODE_GZIP}, {"x-gzip", DECODE_GZIP},
        {"deflate", DECODE_DEFLATE},   {"br", DECODE_BR},
    };

    while (len > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        len--;
    }
    while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
        len--;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (len == strlen(names[i].name) && strncasecmp(v, names[i].name, len) == 0)
            return (int)names[i].coding;
    return -1;
}

struct decoder *decoder_new(enum decode_coding coding)
{
    struct decoder *d = mem_calloc(1, sizeof(*d));

    if (!d)
        return NULL;
    d->coding = coding;
    if (coding == DECODE_GZIP) {
        /* 16 + 15: a gzip wrapper around the largest window. */
        if (inflateInit2(&d->z, 16 + 15) != Z_OK) {
            mem_free(d);
            return NULL;
        }
        d->z_ready = 1;
    } else if (coding == DECODE_BR && !(d->br = BrotliDecoderCreateInstance(NULL, NULL, NULL))) {
        mem_free(d);
        return NULL;
    }
    return d;
}

void decoder_free(struct decoder *d)
{
    if (!d)
        return;
    if (d->z_ready)
        inflateEnd(&d->z);
    if (d->br)
        BrotliDecoderDestroyInstance(d->br);
    mem_free(d);
}

/* deflate's first two bytes: a zlib header (RFC 1950: method 8, the check bits a multiple of
 * 31) or raw deflate (RFC 1951), which some servers send for "deflate" and browsers accept. */
static int deflate_start(struct decoder *d, const char **in, size_t *in_len)
{
    int wrapped;

    while (d->n_head < 2 && *in_len > 0) {
        d->head[d->n_head++] = (unsigned char)**in;
        (*in)++;
        (*in_len)--;
    }
    if (d->n_head < 2)
        return 0;
    wrapped = (d->head[0] & 0x0f) == 8 && ((d->head[0] << 8) | d->head[1]) % 31 == 0;
    if (inflateInit2(&d->z, wrapped ? 15 : -15) != Z_OK)
        return -1;
    d->z_ready = 1;
    return 1;
}

/* One inflate over in into out; the stream's end may be followed by another gzip member. */
static long run_zlib(struct decoder *d, const unsigned char *in, size_t in_len, size_t *used,
                     char *out, size_t room, const char **reason)
{
    int rc;

    d->z.next_in = (unsigned char *)(uintptr_t)in;
    d->z.avail_in = (uInt)in_len;
    d->z.next_out = (unsigned char *)out;
    d->z.avail_out = (uInt)room;
    rc = inflate(&d->z, Z_NO_FLUSH);
    *used = in_len - d->z.avail_in;
    if (rc == Z_STREAM_END) {
        d->ended = 1;
        if (d->coding == DECODE_GZIP && d->z.avail_in >= 2 && d->z.next_in[0] == 0x1f &&
            d->z.next_in[1] == 0x8b && inflateReset(&d->z) == Z_OK)
            d->ended = 0;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        *reason = rc == Z_MEM_ERROR ? "out of memory" : "the body is not in its Content-Encoding";
        return -1;
    }
    return (long)(room - d->z.avail_out);
}

static long run_br(struct decoder *d, const unsigned char *in, size_t in_len, size_t *used,
                   char *out, size_t room, const char **reason)
{
    size_t avail_in = in_len, avail_out = room;
    uint8_t *next_out = (uint8_t *)out;
    BrotliDecoderResult rc;

    rc = BrotliDecoderDecompressStream(d->br, &avail_in, &in, &avail_out, &next_out, NULL);
    *used = in_len - avail_in;
    if (rc == BROTLI_DECODER_RESULT_ERROR) {
        *reason = "the body is not in its Content-Encoding (br)";
        return -1;
    }
    if (rc == BROTLI_DECODER_RESULT_SUCCESS)
        d->ended = 1;
    return (long)(room - avail_out);
}

long decoder_run(struct decoder *d, const char **in, size_t *in_len, char *out, size_t room,
                 const char **reason)
{
    size_t used = 0;
    long n;

    d->full = 0;
    if (*in_len > 0)
        d->started = 1;
    if (d->ended) {
        *in += *in_len;
        *in_len = 0;
        return 0;
    }
    if (d->coding == DECODE_DEFLATE && !d->z_ready) {
        int rc = deflate_start(d, in, in_len);
        long more;

        if (rc < 0)
            *reason = "out of memory";
        if (rc <= 0)
            return rc;
        /* The two bytes go first; inflate takes them whole, whatever room is left. */
        n = run_zlib(d, d->head, 2, &used, out, room, reason);
        if (n < 0 || used < 2) {
            *reason = n < 0 ? *reason : "the body is not in its Content-Encoding";
            return -1;
        }
        out += n;
        room -= (size_t)n;
        if (room == 0 || d->ended) {
            d->full = room == 0;
            return n;
        }
        more = decoder_run(d, in, in_len, out, room, reason);
        return more < 0 ? -1 : n + more;
    }
    if (d->coding == DECODE_BR)
        n = run_br(d, (const unsigned char *)*in, *in_len, &used, out, room, reason);
    else
        n = run_zlib(d, (const unsigned char *)*in, *in_len, &used, out, room, reason);
    if (n < 0)
        return -1;
    *in += used;
    *in_len -= used;
    d->full = (size_t)n == room;
    if (d->ended) {
        *in += *in_len;
        *in_len = 0;
    }
    return n;
}

int decoder_has_more(const struct decoder *d)
{
    return d->full && !d->ended;
}

int decoder_finish(const struct decoder *d, const char **reason)
{
    if (d->ended || !d->started)
        return 0;
    *reason = "the body ended before its Content-Encoding's stream did";
    return -1;
}
