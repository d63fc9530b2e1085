/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The channel of brock's page script (proxy/report.c). The bytes are read as a token, as a
 * token's changes, and as a report and the script's widget requests (the list, an
 * allowance): as they come, and after a good token of each kind of document, so that the
 * fields and checks past the token are reached. Whatever the bytes: a token brock did not
 * make is refused, one changed from a good one is refused unless the change undid itself,
 * the reading answers 0, 400 or 403 with a sentence for a refusal, what it takes is what the
 * token said, the kind checks answer 0 or 403, and every view points into the parsed
 * document. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOW 1800000000

static struct report_keys keys;
static int ready;

static const unsigned kinds[] = {REPORT_DOC_TOP, REPORT_DOC_FRAME,
                                 REPORT_DOC_FRAME | REPORT_DOC_CROSS};

static void make(unsigned flags, char *token, struct report_doc *d)
{
    memset(d, 0, sizeof(*d));
    d->flags = flags;
    d->issued_s = NOW;
    memcpy(d->site, "page.test", sizeof("page.test"));
    if (report_token_make(&keys, "site.test", d, token) < 0)
        abort();
}

/* The same document as the token brock made says. */
static void same_doc(const struct report_doc *a, const struct report_doc *b)
{
    if (a->id != b->id || a->issued_s != b->issued_s || a->flags != b->flags ||
        strcmp(a->site, b->site) != 0)
        abort();
}

static void read_one(const char *body, size_t len, const struct report_doc *want)
{
    struct report r;
    const char *why = NULL;
    int st = report_read(&keys, "site.test", NOW, body, len, &r, &why);

    if ((st != 0 && st != 400 && st != 403) || (st && !why))
        abort();
    for (size_t i = 0; st == 0 && i < r.n_items; i++)
        if (strlen(r.items[i].name) != r.items[i].name_len)
            abort();
    if (st == 0) {
        if (want)
            same_doc(&r.doc, want);
        why = NULL;
        st = report_holds(&r, &why);
        if ((st != 0 && st != 403) || (st && !why))
            abort();
    }
    report_cleanup(&r);
}

static void read_widget(const char *body, size_t len, const struct report_doc *want)
{
    static const enum report_path paths[] = {REPORT_PATH_WIDGETS, REPORT_PATH_ALLOW};

    for (size_t k = 0; k < 2; k++) {
        struct report_widget w;
        const char *why = NULL;
        int st = report_read_widget(&keys, paths[k], "site.test", NOW, body, len, &w, &why);

        if ((st != 0 && st != 400 && st != 403) || (st && !why))
            abort();
        if (st == 0 && paths[k] == REPORT_PATH_ALLOW &&
            (!w.widget || !*w.widget || strlen(w.widget) > REPORT_WIDGET_NAME_MAX))
            abort();
        if (st == 0 && want)
            same_doc(&w.doc, want);
        if (st == 0 && report_may_allow(&w.doc, &why) != 0 && !why)
            abort();
        report_widget_cleanup(&w);
    }
}

/* The bytes as a token of their own, and as changes to a good one: each pair of bytes says
 * where to put a byte, and which (a digit, or anything). */
static void tokens(const uint8_t *data, size_t size)
{
    char token[REPORT_TOKEN_MAX + 1], changed[REPORT_TOKEN_MAX + 1];
    char *own = malloc(size + 1);
    struct report_doc d, got;
    const char *why = NULL;
    size_t len;

    if (!own)
        abort();
    memcpy(own, data, size);
    own[size] = '\0';
    /* No key is known to the fuzzer's bytes: what they say as a token is never taken. */
    if (report_token_check(&keys, "site.test", own, NOW, &got, &why) == 0)
        abort();
    free(own);
    make(kinds[size % 3], token, &d);
    len = strlen(token);
    memcpy(changed, token, len + 1);
    for (size_t i = 0; i + 1 < size; i += 2)
        changed[data[i] % len] = (char)data[i + 1];
    changed[len] = '\0';
    why = NULL;
    if (report_token_check(&keys, "site.test", changed, NOW, &got, &why) == 0) {
        if (strcmp(changed, token) != 0)
            abort();
        same_doc(&got, &d);
    } else if (!why) {
        abort();
    }
    /* Another host's document never has it. */
    if (report_token_check(&keys, "page.test", token, NOW, &got, &why) == 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char token[REPORT_TOKEN_MAX + 1], *body;
    struct report_doc d;
    size_t n;

    if (!ready) {
        if (report_keys_init(&keys) < 0)
            abort();
        ready = 1;
    }
    if (size > REPORT_BODY_MAX)
        return 0;
    tokens(data, size);
    read_one((const char *)data, size, NULL);
    read_widget((const char *)data, size, NULL);
    body = malloc(size + REPORT_TOKEN_MAX + 32);
    if (!body)
        abort();
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        make(kinds[k], token, &d);
        n = (size_t)snprintf(body, REPORT_TOKEN_MAX + 32, "{\"token\":\"%s\",", token);
        memcpy(body + n, data, size);
        read_one(body, n + size, &d);
        read_widget(body, n + size, &d);
    }
    free(body);
    return 0;
}
