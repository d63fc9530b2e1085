/* SPDX-License-Identifier: GPL-3.0-or-later */
/* brock's script put into an HTML document as it streams (proxy/inject.c), and the
 * Content-Security-Policy amended for it (proxy/csp.c). The first two input bytes choose the
 * sizes of the pieces the rest is fed in (each piece's size cycles through them); the output
 * with the script taken out where it went in must be the input, the script must go in at most
 * once (exactly once in a document with bytes, unless it is UTF-16), and nothing is held back
 * past INJECT_HOLD_MAX. The rest is also read as a Content-Security-Policy value: an amended
 * one holds the hash, and is longer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/csp.h"
#include "proxy/inject.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SCRIPT "<script>S</script>"
#define HASH "'sha256-H'"

struct out {
    char *p;
    size_t len, cap;
    size_t script_at; /* where the script went in */
    int scripts;
};

static int on_emit(void *arg, const char *p, size_t len)
{
    struct out *o = arg;

    if (o->len + len > o->cap) {
        o->cap = (o->len + len) * 2 + 64;
        o->p = realloc(o->p, o->cap);
        if (!o->p)
            abort();
    }
    memcpy(o->p + o->len, p, len);
    o->len += len;
    return 0;
}

static const char script[] = SCRIPT;

static int on_emit_checked(void *arg, const char *p, size_t len)
{
    struct out *o = arg;

    /* The script is told apart by its pointer: the injector passes it as it was given. */
    if (p == script) {
        o->scripts++;
        o->script_at = o->len;
    }
    return on_emit(arg, p, len);
}

static void check_csp(const uint8_t *data, size_t size)
{
    struct buf out;
    int rc;

    buf_init(&out, 1 << 20);
    rc = csp_amend((const char *)data, size, HASH, &out);
    if (rc < 0 || (rc > 0 && (out.len <= size || !memmem(out.data, out.len, HASH, strlen(HASH)))))
        abort();
    buf_cleanup(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct inject in;
    struct out o;
    size_t steps[2], off = 0, k = 0;

    if (size < 2)
        return 0;
    steps[0] = (size_t)data[0] + 1;
    steps[1] = (size_t)data[1] * 37 + 1;
    data += 2;
    size -= 2;
    memset(&o, 0, sizeof(o));
    inject_init(&in, script, strlen(script), on_emit_checked, &o);
    while (off < size) {
        size_t n = steps[k++ % 2];

        if (n > size - off)
            n = size - off;
        if (inject_feed(&in, (const char *)data + off, n) < 0)
            abort();
        off += n;
        /* Only a tag's start is held back. */
        if (o.len - (o.scripts ? strlen(script) : 0) + INJECT_HOLD_MAX < off)
            abort();
    }
    if (inject_end(&in) < 0 || o.scripts > 1)
        abort();
    if (size > 0 && o.scripts == 0 && data[0] != 0xFE && data[0] != 0xFF && !memchr(data, 0, size))
        abort();
    if (o.scripts) {
        memmove(o.p + o.script_at, o.p + o.script_at + strlen(script),
                o.len - o.script_at - strlen(script));
        o.len -= strlen(script);
    }
    if (o.len != size || (size && memcmp(o.p, data, size) != 0))
        abort();
    free(o.p);
    check_csp(data, size);
    return 0;
}
