/* SPDX-License-Identifier: GPL-3.0-or-later */
/* First-party inference, and the per-client record of top-level pages and their frames. */
#include "proxy/firstparty.h"

#include <string.h>
#include <strings.h>

#include "proxy/limits.h"
#include "util/alloc.h"

_Static_assert(LIMIT_FP_CLIENTS <= 256, "firstparty_memory holds at most 256 clients");

struct firstparty_frame {
    char host[BROCK_HOST_MAX]; /* a frame's host */
    char site[BROCK_HOST_MAX]; /* the top-level page that opened it */
    int sure;                  /* that page was one of the client's top-level pages, not a
                                  Referer's guess */
};

struct firstparty_client {
    char addr[64];
    uint64_t used;
    struct firstparty_frame frames[LIMIT_FP_FRAMES];
    size_t n_frames, next_frame;
    char tops[LIMIT_FP_TOPS][BROCK_HOST_MAX]; /* recent top-level pages, a ring */
    size_t n_tops, next_top;
    char *seen[LIMIT_FP_SEEN];      /* "site host": third parties its pages loaded, a ring */
    int64_t seen_ms[LIMIT_FP_SEEN]; /* and when each was last loaded */
    size_t n_seen, next_seen;
};

void firstparty_memory_init(struct firstparty_memory *m)
{
    memset(m, 0, sizeof(*m));
}

static void seen_free(struct firstparty_client *c)
{
    for (size_t i = 0; i < c->n_seen; i++)
        mem_free(c->seen[i]);
}

void firstparty_memory_cleanup(struct firstparty_memory *m)
{
    for (size_t i = 0; i < m->n; i++) {
        seen_free(m->clients[i]);
        mem_free(m->clients[i]);
    }
    firstparty_memory_init(m);
}

static struct firstparty_client *client_get(struct firstparty_memory *m, const char *addr,
                                            int create)
{
    struct firstparty_client *c = NULL;
    size_t oldest = 0;

    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->clients[i]->addr, addr) == 0) {
            m->clients[i]->used = ++m->tick;
            return m->clients[i];
        }
        if (m->clients[i]->used < m->clients[oldest]->used)
            oldest = i;
    }
    if (!create)
        return NULL;
    if (m->n < LIMIT_FP_CLIENTS) {
        c = mem_malloc(sizeof(*c));
        if (!c)
            return NULL;
        m->clients[m->n++] = c;
    } else {
        c = m->clients[oldest];
        seen_free(c);
    }
    memset(c, 0, sizeof(*c));
    strncpy(c->addr, addr, sizeof(c->addr) - 1);
    c->used = ++m->tick;
    return c;
}

/* Hosts are normalised and so shorter than BROCK_HOST_MAX; a longer one is cut, not
 * overrun. */
static void copy_host(char *dst, const char *src)
{
    size_t n = strnlen(src, BROCK_HOST_MAX - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

static struct firstparty_frame *frame_find(struct firstparty_client *c, const char *host)
{
    for (size_t i = 0; i < c->n_frames; i++)
        if (strcmp(c->frames[i].host, host) == 0)
            return &c->frames[i];
    return NULL;
}

static void frame_forget(struct firstparty_client *c, const char *host)
{
    struct firstparty_frame *f = frame_find(c, host);

    if (f)
        f->host[0] = '\0';
}

static int top_known(const struct firstparty_client *c, const char *host)
{
    for (size_t i = 0; i < c->n_tops; i++)
        if (strcmp(c->tops[i], host) == 0)
            return 1;
    return 0;
}

static void top_remember(struct firstparty_client *c, const char *host)
{
    if (top_known(c, host))
        return;
    /* A ring: the oldest page makes room. */
    copy_host(c->tops[c->next_top], host);
    c->next_top = (c->next_top + 1) % LIMIT_FP_TOPS;
    if (c->n_tops < LIMIT_FP_TOPS)
        c->n_tops++;
}

static void frame_remember(struct firstparty_client *c, const char *host, const char *site,
                           int sure)
{
    struct firstparty_frame *f = frame_find(c, host);

    if (strcmp(host, site) == 0)
        return;
    if (!f) {
        /* A ring: the oldest frame makes room. */
        f = &c->frames[c->next_frame];
        c->next_frame = (c->next_frame + 1) % LIMIT_FP_FRAMES;
        if (c->n_frames < LIMIT_FP_FRAMES)
            c->n_frames++;
        copy_host(f->host, host);
    }
    copy_host(f->site, site);
    f->sure = sure;
}

/* The host of a Referer or Origin value (scheme://[user@]host[:port][/...]), normalised. */
static int url_host(const char *url, char *out)
{
    const char *p = strstr(url, "://");
    const char *start, *end, *at;

    if (!p || p == url)
        return -1;
    start = p + 3;
    end = start + strcspn(start, "/?#");
    at = memchr(start, '@', (size_t)(end - start));
    if (at)
        start = at + 1;
    if (*start == '[') {
        const char *close = memchr(start, ']', (size_t)(end - start));

        if (!close)
            return -1;
        return brock_host_normalize(start + 1, (size_t)(close - start - 1), out);
    }
    p = memchr(start, ':', (size_t)(end - start));
    if (p)
        end = p;
    if (end == start)
        return -1;
    return brock_host_normalize(start, (size_t)(end - start), out);
}

static int is(const char *v, const char *s)
{
    return v && strcmp(v, s) == 0;
}

/* The page behind a referring host: the top-level page when that host is a frame, the host
 * itself when it is one of the client's top-level pages. Anything else is a guess: the
 * Referer's host may be a frame whose document brock never saw (an ad's, loaded before brock
 * ran, from a cache, or by a client that sends no fetch metadata). */
static enum firstparty_result page_of(struct firstparty_client *c, const char *ref_host, char *site)
{
    const struct firstparty_frame *f = c ? frame_find(c, ref_host) : NULL;

    if (f) {
        copy_host(site, f->site);
        return f->sure ? FIRSTPARTY_KNOWN : FIRSTPARTY_GUESS;
    }
    copy_host(site, ref_host);
    return c && top_known(c, ref_host) ? FIRSTPARTY_KNOWN : FIRSTPARTY_GUESS;
}

/* Whether a header value lists a media type (in an Accept list, before any parameters). */
static int accepts(const char *accept, const char *type)
{
    size_t n = strlen(type);

    for (const char *p = accept; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!strncasecmp(p, type, n) && (p[n] == '\0' || p[n] == ',' || p[n] == ';' || p[n] == ' '))
            return 1;
    }
    return 0;
}

/* The page of a request that names none (no Referer, no Origin). Fetch metadata says how the
 * request relates to its page: same-site, it is the host's own site's; cross-site, a page of
 * another site hid its address, which nothing tells (the client's last top-level page is no
 * guess: a page that opened the tracker's own site in a popup would make the tracker's next
 * image a first party). Without fetch metadata (plain HTTP, a program), only a browser's
 * navigation is the host's own page: Accept naming text/html and Upgrade-Insecure-Requests,
 * which browsers send on navigations and a page's fetch() cannot (that header is not
 * CORS-safelisted, and an image or script never carries it). Anything else belongs to an
 * unknown page: decided as its third party, never learned from. */
static enum firstparty_result no_referrer(const struct firstparty_request *r, char *site)
{
    if (is(r->fetch_site, "same-origin") || is(r->fetch_site, "same-site")) {
        copy_host(site, r->host);
        return FIRSTPARTY_KNOWN;
    }
    if (is(r->fetch_site, "none")) {
        copy_host(site, r->host);
        return FIRSTPARTY_GUESS;
    }
    if (!r->fetch_site && !r->fetch_mode && !r->fetch_dest && is(r->upgrade_insecure, "1") &&
        accepts(r->accept, "text/html")) {
        copy_host(site, r->host);
        return FIRSTPARTY_GUESS;
    }
    return FIRSTPARTY_UNKNOWN;
}

enum firstparty_result firstparty_infer(struct firstparty_memory *m, const char *client,
                                        const struct firstparty_request *r, char *site)
{
    char ref_host[BROCK_HOST_MAX];
    int navigate = is(r->fetch_mode, "navigate");
    int top = navigate && is(r->fetch_dest, "document");
    int frame = navigate && (is(r->fetch_dest, "iframe") || is(r->fetch_dest, "frame"));
    enum firstparty_result res;
    struct firstparty_client *c;

    site[0] = '\0';
    if (top) {
        c = client_get(m, client, 1);
        if (c) {
            top_remember(c, r->host);
            frame_forget(c, r->host);
        }
        copy_host(site, r->host);
        return FIRSTPARTY_KNOWN;
    }
    ref_host[0] = '\0';
    if (r->referer && *r->referer) {
        if (url_host(r->referer, ref_host) < 0)
            return FIRSTPARTY_UNKNOWN;
    } else if (r->origin && *r->origin) {
        /* "Origin: null" comes from sandboxed and opaque documents: no page to name. */
        if (strcmp(r->origin, "null") == 0 || url_host(r->origin, ref_host) < 0)
            return FIRSTPARTY_UNKNOWN;
    }
    c = client_get(m, client, frame);
    if (!ref_host[0]) {
        res = no_referrer(r, site);
        if (res == FIRSTPARTY_UNKNOWN)
            return res;
    } else {
        res = page_of(c, ref_host, site);
    }
    if (frame && c)
        frame_remember(c, r->host, site, res == FIRSTPARTY_KNOWN);
    return res;
}

enum firstparty_result firstparty_page_of(struct firstparty_memory *m, const char *client,
                                          const char *host, char *site)
{
    return page_of(client_get(m, client, 0), host, site);
}

/* The seen pair's index in c's ring, or -1. */
static int seen_find(const struct firstparty_client *c, const char *site, const char *host)
{
    size_t n = strlen(site);

    for (size_t i = 0; i < c->n_seen; i++)
        if (strncmp(c->seen[i], site, n) == 0 && c->seen[i][n] == ' ' &&
            strcmp(c->seen[i] + n + 1, host) == 0)
            return (int)i;
    return -1;
}

void firstparty_saw(struct firstparty_memory *m, const char *client, const char *site,
                    const char *host, int64_t now_ms)
{
    struct firstparty_client *c = client_get(m, client, 1);
    size_t ns = strnlen(site, BROCK_HOST_MAX - 1), nh = strnlen(host, BROCK_HOST_MAX - 1);
    char *pair;
    int i;

    if (!c)
        return;
    if ((i = seen_find(c, site, host)) >= 0) {
        /* Loaded again: a page's report is believed only for what was loaded since the page
         * was given its token. Told by another worker, an older load changes nothing. */
        if (now_ms > c->seen_ms[i])
            c->seen_ms[i] = now_ms;
        return;
    }
    pair = mem_malloc(ns + nh + 2);
    if (!pair)
        return;
    memcpy(pair, site, ns);
    pair[ns] = ' ';
    memcpy(pair + ns + 1, host, nh);
    pair[ns + 1 + nh] = '\0';
    /* A ring: the oldest pair makes room. */
    if (c->n_seen < LIMIT_FP_SEEN)
        c->n_seen++;
    else
        mem_free(c->seen[c->next_seen]);
    c->seen[c->next_seen] = pair;
    c->seen_ms[c->next_seen] = now_ms;
    c->next_seen = (c->next_seen + 1) % LIMIT_FP_SEEN;
}

int64_t firstparty_seen_at(struct firstparty_memory *m, const char *client, const char *site,
                           const char *host)
{
    const struct firstparty_client *c = client_get(m, client, 0);
    int i = c ? seen_find(c, site, host) : -1;

    return i >= 0 ? c->seen_ms[i] : -1;
}
