/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a script running inside a page saw (PRIVACY-BADGER.md 3.5, 3.6): canvas fingerprinting
 * by a third-party script, and a third-party frame's localStorage "supercookie". Both count
 * toward the tracker's sites as cookies do (updateTrackerPrevalence); canvas also marks the
 * site "canvas" in the tracking map and the script's path in fp_scripts. */
#include <string.h>

#include "engine/engine.h"

/* Privacy Badger's LOCALSTORAGE_ENTROPY_THRESHOLD: more bits than this, summed over the
 * items, is a supercookie. */
#define SUPERCOOKIE_BITS 33.0

const char *brock_page_signal_name(enum brock_page_signal_kind k)
{
    switch (k) {
    case BROCK_PAGE_CANVAS: return "canvas";
    case BROCK_PAGE_SUPERCOOKIE: return "supercookie";
    }
    return NULL;
}

int brock_page_signal_parse(const char *name, enum brock_page_signal_kind *out)
{
    if (name && !strcmp(name, "canvas"))
        *out = BROCK_PAGE_CANVAS;
    else if (name && !strcmp(name, "supercookie"))
        *out = BROCK_PAGE_SUPERCOOKIE;
    else
        return BROCK_EINVAL;
    return 0;
}

/* hasLocalStorageSupercookie: the running sum of estimateMaxEntropy(key + value) passes 33
 * bits. */
static int is_supercookie(const struct brock_header *items, size_t n)
{
    double bits = 0;
    char kv[1024];

    for (size_t i = 0; i < n; i++) {
        const struct brock_header *h = &items[i];

        /* Past 256 units the estimate is the length, past the threshold anyway. */
        if (h->name_len + h->value_len >= sizeof(kv))
            return 1;
        memcpy(kv, h->name, h->name_len);
        memcpy(kv + h->name_len, h->value, h->value_len);
        kv[h->name_len + h->value_len] = '\0';
        bits += brock_max_entropy(kv);
        if (bits > SUPERCOOKIE_BITS)
            return 1;
    }
    return 0;
}

/* The path of a script's URL, without query or fragment, as fp_scripts keys it. */
static void url_path(const char *url, char *out, size_t size)
{
    const char *p = strstr(url, "://");
    size_t n;

    p = p ? p + 3 + strcspn(p + 3, "/?#") : url + strlen(url);
    n = *p == '/' ? strcspn(p, "?#") : 0;
    if (n == 0 || n >= size) {
        snprintf(out, size, "/");
        return;
    }
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Records the site for the tracker (fqdn, base): updateTrackerPrevalence, then what canvas
 * adds. Returns as brock__record_prevalence() does. */
static int record(struct brock_engine *e, const struct brock_page_signal *s, const char *fqdn,
                  const char *base, const char *site)
{
    struct brock__evidence_in ev = {.host = fqdn, .time_ms = s->time_ms};
    char path[1024];
    int r;

    url_path(s->url, path, sizeof(path));
    ev.kind = s->kind == BROCK_PAGE_CANVAS ? BROCK_EVIDENCE_CANVAS : BROCK_EVIDENCE_SUPERCOOKIE;
    ev.detail = s->kind == BROCK_PAGE_CANVAS ? path : NULL; /* which script, on its page */
    r = brock__update_tracker_prevalence(e, fqdn, base, site, &ev);
    if (r < 0 || s->kind != BROCK_PAGE_CANVAS)
        return r;
    /* A page can report any number of paths: past the bound, learning adds no more of
     * them, and the site still counts toward the tracker's three. */
    if (brock__tracking_add(e, base, site, BROCK__TRACK_CANVAS) < 0 ||
        (e->n_fp_paths < BROCK__FP_PATHS_MAX && brock__fp_add(e, fqdn, path) < 0))
        return BROCK_ENOMEM;
    return r;
}

int brock_observe_page(struct brock_engine *e, const struct brock_page_signal *s,
                       struct brock_learned *learned)
{
    char host[BROCK_HOST_MAX], site_host[BROCK_HOST_MAX];
    struct brock__parties p;
    int r;

    brock__learned_tell(e, learned, 0, NULL);
    if (!s || (s->kind != BROCK_PAGE_CANVAS && s->kind != BROCK_PAGE_SUPERCOOKIE) || !s->url ||
        !s->site || (s->n_items && !s->items))
        return BROCK_EINVAL;
    /* A data: or blob: script, or an address brock cannot read, names no host: nothing. */
    if (!e->learn || brock_url_host(s->url, host) < 0 || brock_url_host(s->site, site_host) < 0)
        return 0;
    if (brock__site_off(e, site_host))
        return 0;
    if (s->kind == BROCK_PAGE_SUPERCOOKIE && !is_supercookie(s->items, s->n_items))
        return 0;
    if (!brock__learn_parties(e, host, site_host, &p))
        return 0;
    r = record(e, s, p.fqdn, p.base, p.site);
    return brock__learned_tell(e, learned, r, p.base);
}
