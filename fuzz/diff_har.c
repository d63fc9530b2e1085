/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A differential target: an HTTP Archive learned by the streaming reader (har_scan.c: yajl,
 * a chunk at a time, one entry held, each entry read again from the text or the file) and by
 * the plain one it stands in for (har_whole.c: jansson, the whole document at once), each
 * on a fresh engine with diff_data.h's lists. Both must accept or refuse it alike, count the
 * same, and leave the same learned state (the pb export, byte for byte). The streaming
 * reader is driven twice, from the text in memory and from a file (a memfd). Any difference
 * aborts. A text with a key twice in one object is left out: JSON gives it no one meaning (RFC
 * 8259, section 4), and the readers differ by design there (jansson keeps the last
 * log.entries, the stream reads every one). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "brock.h"
#include "diff_data.h"
#include "engine/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
    int rc;
    struct brock_stats st;
    char *state;
    size_t len;
};

static void learn(const uint8_t *data, size_t size, int plain, int from_fd, struct outcome *o)
{
    struct brock_engine *e = fuzz_engine_lists();
    int fd = -1;

    memset(o, 0, sizeof(*o));
    e->plain = plain;
    if (from_fd) {
        fd = memfd_create("fuzz.har", MFD_CLOEXEC);
        if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
            abort();
        o->rc = brock_learn_har_fd(e, "fuzz.har", fd, NULL, NULL, NULL, &o->st);
        close(fd);
    } else {
        o->rc = brock_learn_har(e, "fuzz.har", (const char *)data, size, NULL, NULL, NULL, &o->st);
    }
    e->plain = 0;
    if (o->rc == 0 && brock_export(e, "pb", &o->state, &o->len) != 0)
        abort();
    brock_engine_free(e);
}

static void same(const struct outcome *a, const struct outcome *b)
{
    /* A refusal's words may differ (yajl and jansson say where differently); that both
     * refuse, and how, may not. */
    if (a->rc != b->rc)
        abort();
    if (a->rc != 0)
        return;
    if (memcmp(&a->st, &b->st, sizeof(a->st)) != 0 || a->len != b->len ||
        memcmp(a->state, b->state, a->len) != 0)
        abort();
}

/* Whether the text parses as JSON only but for a key given twice in one object (after the
 * UTF-8 byte order mark both readers skip). */
static int has_duplicate_keys(const uint8_t *data, size_t size)
{
    json_error_t err;
    json_t *j;

    if (size >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
        data += 3;
        size -= 3;
    }
    j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &err);

    json_decref(j);
    return !j && json_error_code(&err) == json_error_duplicate_key;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct outcome plain, text, file;

    if (has_duplicate_keys(data, size))
        return 0;
    learn(data, size, 1, 0, &plain);
    learn(data, size, 0, 0, &text);
    learn(data, size, 0, 1, &file);
    same(&plain, &text);
    same(&plain, &file);
    brock_free(plain.state);
    brock_free(text.state);
    brock_free(file.state);
    return 0;
}
