/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The temporary widget allowances: a ring of fixed slots, searched whole (it is small). */
#include "proxy/widgetallow.h"

#include <stdio.h>
#include <string.h>

#include "proxy/limits.h"
#include "util/alloc.h"

struct widget_allow {
    char client[64];
    char site[BROCK_HOST_MAX];
    char pattern[BROCK_HOST_MAX];
    int64_t until_ms; /* 0: a free slot */
};

void widget_allows_init(struct widget_allows *m)
{
    memset(m, 0, sizeof(*m));
}

void widget_allows_cleanup(struct widget_allows *m)
{
    mem_free(m->v);
    widget_allows_init(m);
}

static int fits(const char *s, size_t size)
{
    return strnlen(s, size) < size;
}

static int is(const struct widget_allow *a, const char *client, const char *site)
{
    return strcmp(a->client, client) == 0 && strcmp(a->site, site) == 0;
}

int widget_allows_add(struct widget_allows *m, const char *client, const char *site,
                      const char *pattern, int64_t now_ms)
{
    struct widget_allow *a = NULL;

    if (!fits(client, sizeof(a->client)) || !fits(site, sizeof(a->site)) ||
        !fits(pattern, sizeof(a->pattern)))
        return 0; /* no such names reach here: hosts are normalised, addresses short */
    if (!m->v && !(m->v = mem_calloc(LIMIT_WIDGET_ALLOWS, sizeof(*m->v))))
        return -1;
    /* A second click renews the allowance in its slot. */
    for (size_t i = 0; i < LIMIT_WIDGET_ALLOWS && !a; i++)
        if (m->v[i].until_ms && is(&m->v[i], client, site) && strcmp(m->v[i].pattern, pattern) == 0)
            a = &m->v[i];
    if (!a) {
        a = &m->v[m->next];
        m->next = (m->next + 1) % LIMIT_WIDGET_ALLOWS;
        snprintf(a->client, sizeof(a->client), "%s", client);
        snprintf(a->site, sizeof(a->site), "%s", site);
        snprintf(a->pattern, sizeof(a->pattern), "%s", pattern);
    }
    a->until_ms = now_ms + LIMIT_WIDGET_ALLOW_MS;
    return 0;
}

size_t widget_allows_get(const struct widget_allows *m, const char *client, const char *site,
                         int64_t now_ms, const char **out, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; m->v && i < LIMIT_WIDGET_ALLOWS && n < max; i++)
        if (m->v[i].until_ms > now_ms && is(&m->v[i], client, site))
            out[n++] = m->v[i].pattern;
    return n;
}
