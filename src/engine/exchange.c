/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One exchange learned from, request then answer, by the proxy and by the learning from a
 * recording alike: which exchanges teach, which cookies are evidence and which are the
 * page's own, what pixel cookie sharing is given. Two callers with one rule each would
 * learn differently from the same browsing; they call this. */
#include "engine/engine.h"

#include <string.h>
#include <strings.h>

static int name_is(const struct brock_header *h, const char *name, size_t len)
{
    return h->name && h->value && h->name_len == len && strncasecmp(h->name, name, len) == 0;
}

unsigned brock_exchange_flags(const struct brock_engine *e, const struct brock_exchange *x)
{
    const struct brock_decision *d = x->decision;
    const char *site = x->request ? x->request->site : NULL;
    unsigned flags = 0;

    if (!e->learn || !d || !site || !*site)
        return 0;
    switch (d->reason) {
    case BROCK_WHY_ACTION:
    case BROCK_WHY_DISABLED:
    case BROCK_WHY_IGNORED:
        if (x->page_known && d->third_party && d->effect != BROCK_DENY)
            flags |= BROCK_EXCHANGE_EVIDENCE;
        break;
    case BROCK_WHY_FIRST_PARTY:
        if (*d->site && strcmp(d->base, d->site) == 0)
            flags |= BROCK_EXCHANGE_SITE_COOKIES;
        break;
    case BROCK_WHY_INVALID:
    case BROCK_WHY_PRIVATE:
    case BROCK_WHY_FP_SCRIPT:
    case BROCK_WHY_WIDGET: break;
    }
    return flags;
}

/* The page's URL as far as the request tells it: its Referer when that names the page's host
 * (a page's Referer is its address, or its origin under the usual referrer policy); NULL
 * otherwise, and the site's address stands in for it. Written into buf (size bytes). */
static const char *page_url(const char *site, const struct brock_header *h, size_t n, char *buf,
                            size_t size)
{
    char host[BROCK_HOST_MAX], page[BROCK_HOST_MAX];

    if (brock_url_host(site, page) < 0)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!name_is(&h[i], "referer", 7))
            continue;
        if (h[i].value_len >= size)
            return NULL;
        memcpy(buf, h[i].value, h[i].value_len);
        buf[h[i].value_len] = '\0';
        return brock_url_host(buf, host) >= 0 && strcmp(host, page) == 0 ? buf : NULL;
    }
    return NULL;
}

int brock_exchange_request(struct brock_engine *e, const struct brock_exchange *x, unsigned flags,
                           const struct brock_header *h, size_t n, struct brock_learned *learned)
{
    const struct brock_request *r = x->request;
    const struct brock_decision *d = x->decision;
    struct brock_observation o;
    char cookies[BROCK_SC_TEXT_MAX], url[8192];

    brock__learned_tell(e, learned, 0, NULL);
    if ((flags & BROCK_EXCHANGE_SITE_COOKIES) && x->sc) {
        for (size_t i = 0; i < n; i++)
            if (name_is(&h[i], "cookie", 6))
                brock_site_cookies_request(x->sc, x->client ? x->client : "", d->site, h[i].value,
                                           h[i].value_len);
    }
    if (!(flags & BROCK_EXCHANGE_EVIDENCE))
        return 0;
    memset(&o, 0, sizeof(o));
    o.host = d->host;
    o.site = r->site;
    o.headers = h;
    o.n_headers = n;
    o.flags = r->type == BROCK_RESOURCE_PING ? BROCK_OBS_BEACON : 0;
    o.time_ms = x->time_ms;
    o.url = r->url;
    o.type = r->type;
    o.site_url = page_url(r->site, h, n, url, sizeof(url));
    if (x->sc && brock_site_cookies_get(x->sc, x->client ? x->client : "", d->site, cookies,
                                        sizeof(cookies)))
        o.site_cookies = cookies;
    return brock_observe(e, &o, learned);
}

int brock_exchange_response(struct brock_engine *e, const struct brock_exchange *x, unsigned flags,
                            const struct brock_header *h, size_t n, struct brock_learned *learned)
{
    const struct brock_decision *d = x->decision;
    struct brock_observation o;
    int err = 0;

    brock__learned_tell(e, learned, 0, NULL);
    if (flags & BROCK_EXCHANGE_EVIDENCE) {
        memset(&o, 0, sizeof(o));
        o.host = d->host;
        o.site = x->request->site;
        o.headers = h;
        o.n_headers = n;
        o.time_ms = x->time_ms;
        err = brock_observe(e, &o, learned);
    }
    if ((flags & BROCK_EXCHANGE_SITE_COOKIES) && x->sc) {
        for (size_t i = 0; i < n; i++)
            if (name_is(&h[i], "set-cookie", 10))
                brock_site_cookies_response(x->sc, x->client ? x->client : "", d->site, h[i].value,
                                            h[i].value_len, x->time_ms / 1000);
    }
    return err;
}
