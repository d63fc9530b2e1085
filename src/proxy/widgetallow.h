/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The widgets a user let load on a page with "Allow once" (PRIVACY-BADGER.md 4): per client
 * and top-level page (its exact host), the widget's unblockDomains patterns, which the engine
 * then leaves alone on that page (brock_request's widget_allow). Privacy Badger keeps them
 * per tab until the tab goes elsewhere; a proxy sees no tabs, so each lasts
 * LIMIT_WIDGET_ALLOW_MS from its click (reloads included). Pure: the time is given; memory is
 * bounded (LIMIT_WIDGET_ALLOWS in all, the oldest out first). */
#ifndef BROCK_PROXY_WIDGETALLOW_H
#define BROCK_PROXY_WIDGETALLOW_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"

struct widget_allow;

struct widget_allows {
    struct widget_allow *v; /* LIMIT_WIDGET_ALLOWS slots, made at the first add; NULL: none */
    size_t next;            /* the slot the next allowance takes (the oldest, once full) */
};

void widget_allows_init(struct widget_allows *m);
void widget_allows_cleanup(struct widget_allows *m);

/* Lets pattern (an unblockDomains entry) load on client's pages of site (a host) until
 * now_ms + LIMIT_WIDGET_ALLOW_MS. Returns 0, or -1 when out of memory (nothing changed). */
int widget_allows_add(struct widget_allows *m, const char *client, const char *site,
                      const char *pattern, int64_t now_ms) __attribute__((warn_unused_result));

/* The patterns in force for client's pages of site at now_ms, at most max of them, into out
 * (views into m, valid until the next widget_allows_add()). Returns how many. */
size_t widget_allows_get(const struct widget_allows *m, const char *client, const char *site,
                         int64_t now_ms, const char **out, size_t max);

#endif
