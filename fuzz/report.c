/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A report from brock's page script (proxy/report.c), read twice: as it comes, and after a
 * good token for its host, so that the fields past the token check are reached; and the same
 * bytes as the script's widget requests (the list, an allowance). Whatever the bytes, the
 * reading answers 0, 400 or 403 with a sentence for a refusal, and every view it gives points
 * into the parsed document. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct report_keys keys;
static int ready;

static void read_one(const char *body, size_t len)
{
    struct report r;
    const char *why = NULL;
    int st = report_read(&keys, "site.test", body, len, &r, &why);

    if ((st != 0 && st != 400 && st != 403) || (st && !why))
        abort();
    for (size_t i = 0; st == 0 && i < r.n_items; i++)
        if (strlen(r.items[i].name) != r.items[i].name_len)
            abort();
    report_cleanup(&r);
}

static void read_widget(const char *body, size_t len)
{
    static const enum report_path kinds[] = {REPORT_PATH_WIDGETS, REPORT_PATH_ALLOW};

    for (size_t k = 0; k < 2; k++) {
        struct report_widget w;
        const char *why = NULL;
        int st = report_read_widget(&keys, kinds[k], "site.test", body, len, &w, &why);

        if ((st != 0 && st != 400 && st != 403) || (st && !why))
            abort();
        if (st == 0 && kinds[k] == REPORT_PATH_ALLOW &&
            (!w.widget || !*w.widget || strlen(w.widget) > REPORT_WIDGET_NAME_MAX))
            abort();
        report_widget_cleanup(&w);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char token[REPORT_TOKEN_LEN + 1], *body;
    size_t n;

    if (!ready) {
        if (report_keys_init(&keys) < 0 || report_token(&keys, "site.test", token) < 0)
            abort();
        ready = 1;
    }
    if (size > REPORT_BODY_MAX)
        return 0;
    read_one((const char *)data, size);
    read_widget((const char *)data, size);
    if (report_token(&keys, "site.test", token) < 0)
        abort();
    body = malloc(size + 64);
    if (!body)
        abort();
    n = (size_t)snprintf(body, 64, "{\"token\":\"%s\",", token);
    memcpy(body + n, data, size);
    read_one(body, n + size);
    read_widget(body, n + size);
    free(body);
    return 0;
}
