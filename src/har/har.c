/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Learning from HTTP Archives (HAR 1.2, as Chromium, Firefox, Safari, Playwright, Charles and
 * Fiddler write them): the file is read (har_read.c), its entries are put in the order they
 * started (startedDateTime; entries without one keep their place), and each entry is learned
 * from with its first party through the proxy's own code path (brock_exchange_*, exchange.c):
 * decided on its URL and type, its cookies evidence or its page's own by the same rules. The
 * first party's own cookies that its scripts can read are kept as the proxy keeps them
 * (brock_site_cookies_*, one client): from the requests to the page's own site and their
 * answers, in entry order, so that an image carrying one of them in its URL is pixel cookie
 * sharing.
 *
 * The first party is the top-level page shown when the request was made, never a frame
 * inside it (PRIVACY-BADGER.md 1.5). Firefox writes a page (pageref) per navigation; Chromium's
 * DevTools and Playwright keep one page for a tab across its navigations. So within a page:
 *
 * - A top-level navigation starts a new first party: Sec-Fetch-Dest: document, or, where
 *   plain http left that header out, a document in the frame of the page's first document
 *   (Playwright's _frameref), else one that names no Referer. A document is what Chromium's
 *   _resourceType calls one, else a request that asked for one (its Accept) and was answered
 *   with HTML or a redirect. A redirect is a navigation like the document it leads to, and
 *   the page before the chain stays the previous page. Navigations teach nothing.
 * - A frame (Sec-Fetch-Dest: iframe and the like, or a document in another _frameref) is a
 *   third-party request of the page it is in, and so is everything it loads.
 * - Every other entry belongs to the latest navigation that started before it, except that a
 *   request still naming the previous page in its Referer belongs to that page: it was made
 *   before the new one replaced it.
 * - Entries before the page's first navigation belong to the page's first document: the
 *   first navigation, else the first text/html answer, else the first entry, else the page's
 *   title when that is a URL. Without Sec-Fetch-Dest or _frameref a later document that
 *   names a Referer cannot be told from a frame, and does not change the first party.
 *
 * An entry without a page takes its Referer's host as first party, unless that host was
 * last seen as a frame: then the page that frame was in. Entries with neither are skipped.
 */
#include "har/har.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/strmap.h"

/* Rendered cookie headers of one entry never grow past this; larger arrays are cut. */
#define HAR_COOKIE_BUF_MAX (1u << 20)

/* The size of the chunks of the arena an entry's values are built in: a few entries' worth. */
#define HAR_ARENA_CHUNK ((size_t)64 << 10)

/* How often, in entries, the progress callback hears from the learning pass. */
#define HAR_PROGRESS_EVERY 8192

/* What an entry is to the first party. */
enum har_level {
    HAR_SUB,   /* a subresource */
    HAR_PAGE,  /* answered with text/html, no other sign: maybe the page's document */
    HAR_DOC,   /* a document, top-level or a frame: nothing tells which */
    HAR_TOP,   /* a top-level navigation */
    HAR_FRAME, /* a frame's document */
};

/* One page, by pageref. */
struct har_page {
    uint32_t main_frame; /* _frameref of its first document (a name); 0: unknown */
    size_t first;        /* the entry that is its first document, as its place in
                            time; SIZE_MAX: none */
    int first_rank;      /* 3 document, 2 text/html, 1 any entry, 0 title, -1 none */
    const char *top;     /* the host of the top-level document now shown (a name's
                            text, or "") */
    const char *prev;    /* the one before it; "" if none */
    int top_redirects;   /* top only redirected: prev is still the page before */
};

/* What the first pass keeps of a readable entry: enough to order it, find its page's first
 * document, and read it again. */
struct har_slot {
    int64_t t;             /* when it started; without a time, the entry before's */
    size_t off;            /* where its text is */
    struct har_page *page; /* NULL: no pageref */
    uint32_t len;          /* bytes of its text */
    uint32_t frame;        /* _frameref (a name); 0 if none */
    uint32_t host;         /* its URL's host (a name); 0 when it has none */
    uint32_t i;            /* its place in log.entries */
    unsigned char dest;    /* enum har_dest */
    unsigned char flags;   /* HAR_* */
};

struct har_ctx {
    struct brock_engine *e;
    struct har_file f;
    struct har_scan_cb cb;
    struct har_src src;
    struct har_slot *slots; /* the readable entries, then sorted by start time */
    size_t n_slots, slots_cap;
    int64_t last;        /* the latest start time read */
    struct strmap names; /* framerefs and hosts → their number in name_v, from 1 */
    char **name_v;       /* each name once, kept until the end */
    size_t n_names, names_cap;
    struct strmap titles;      /* a page's id → the host of its title, when it is a URL */
    struct strmap pages;       /* pageref → struct har_page */
    struct strmap frames;      /* a document's host → the top-level host it was shown in */
    struct brock_header *hdrs; /* scratch views for one observation */
    size_t hdrs_cap;
    struct buf cookies;            /* scratch: cookies arrays rendered as header values */
    struct brock_site_cookies *sc; /* the first parties' cookies scripts can read */
    size_t *offs;                  /* scratch: where each rendered value starts in cookies */
    size_t offs_cap;
    struct har_window win; /* the file's text read again */
    void (*progress)(void *arg, size_t done, size_t total);
    void *arg;
    size_t told; /* entries read when progress last heard of it */
};

/* ---- order ---- */

static int slot_cmp(const void *a, const void *b)
{
    const struct har_slot *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorts the entries by start time, stably: one without a time follows the entry before it
 * in the file (slot t says so already). */
static void sort_entries(struct har_ctx *c)
{
    qsort(c->slots, c->n_slots, sizeof(*c->slots), slot_cmp);
}

/* ---- pages and frames ---- */

static enum har_level level_of(const struct har_page *p, const struct har_slot *h)
{
    switch ((enum har_dest)h->dest) {
    case HAR_DEST_DOC: return HAR_TOP;
    case HAR_DEST_FRAME: return HAR_FRAME;
    case HAR_DEST_OTHER: return HAR_SUB;
    case HAR_DEST_NONE: break;
    }
    if (h->flags & (HAR_RDOC | HAR_HDOC)) {
        if (h->frame && p && p->main_frame)
            return h->frame == p->main_frame ? HAR_TOP : HAR_FRAME;
        /* A frame's document names the page that holds it in its Referer: one that names
         * none was opened by the tab itself (an address typed, a bookmark, a redirect of
         * one). */
        if (h->flags & HAR_NOREF)
            return HAR_TOP;
        return (h->flags & HAR_RDOC) ? HAR_DOC : HAR_PAGE;
    }
    return (h->flags & HAR_HTML) ? HAR_PAGE : HAR_SUB;
}

static struct har_page *page_get(struct har_ctx *c, const char *ref)
{
    struct har_page *p = strmap_get(&c->pages, ref);

    if (p)
        return p;
    p = mem_calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->first = SIZE_MAX;
    p->first_rank = -1;
    p->top = "";
    p->prev = "";
    if (strmap_put(&c->pages, ref, p) < 0) {
        mem_free(p);
        return NULL;
    }
    return p;
}

/* Finds each page's main frame and first document, going through the entries in order: the
 * first document of the best rank wins. */
static void find_pages(struct har_ctx *c)
{
    static const int rank[] = {
        [HAR_SUB] = 1, [HAR_PAGE] = 2, [HAR_DOC] = 3, [HAR_TOP] = 3, [HAR_FRAME] = 1};

    for (size_t k = 0; k < c->n_slots; k++) {
        const struct har_slot *h = &c->slots[k];
        struct har_page *p = h->page;
        int r;

        if (!p)
            continue;
        if (!p->main_frame && h->frame &&
            (h->dest == HAR_DEST_DOC ||
             (h->dest == HAR_DEST_NONE && (h->flags & (HAR_RDOC | HAR_HDOC)))))
            p->main_frame = h->frame;
        r = rank[level_of(p, h)];
        if (r <= p->first_rank || !h->host)
            continue;
        p->first = k;
        p->first_rank = r;
        p->top = c->name_v[h->host - 1];
    }
}

/* Pages that found no document among their entries take their title, when it is a URL
 * (Chromium writes the page's URL there). */
static int page_titles(struct har_ctx *c)
{
    size_t it = 0;
    const char *id;
    void *host;

    while (strmap_next(&c->titles, &it, &id, &host)) {
        struct har_page *p = strmap_get(&c->pages, id);

        if (p && p->first_rank >= 0)
            continue;
        p = page_get(c, id);
        if (!p)
            return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory reading pages", c->f.name);
        p->first_rank = 0;
        p->top = host;
    }
    return 0;
}

/* Remembers that a document of host was shown in the top-level page of site. */
static int frame_put(struct har_ctx *c, const char *host, const char *site)
{
    char *old = strmap_get(&c->frames, host), *v;

    if (old && strcmp(old, site) == 0)
        return 0;
    v = mem_strdup(site);
    if (!v || strmap_put(&c->frames, host, v) < 0) {
        mem_free(v);
        return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory reading frames", c->f.name);
    }
    mem_free(old);
    return 0;
}

/* The host of a Referer, or of the top-level page when it names a frame, into site. Returns
 * 1, or 0 when there is no usable Referer. */
static int referer_site(struct har_ctx *c, const struct har_entry *h, char *site)
{
    const char *top;

    if (!h->referer || brock_url_host(h->referer, site) < 0)
        return 0;
    top = strmap_get(&c->frames, site);
    if (top)
        snprintf(site, BROCK_HOST_MAX, "%s", top);
    return 1;
}

/* ---- cookies into observations ---- */

static int hdrs_reserve(struct har_ctx *c, size_t n)
{
    if (mem_grow(&c->hdrs, &c->hdrs_cap, n, sizeof(*c->hdrs)) < 0 ||
        mem_grow(&c->offs, &c->offs_cap, n, sizeof(*c->offs)) < 0)
        return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory reading headers", c->f.name);
    return 0;
}

/* Views of the headers in arr named name, from c->hdrs[at] on (at most max of them). Returns
 * their count or a negative BROCK_E*. */
static int collect(struct har_ctx *c, const json_t *arr, const char *name, size_t at, size_t max)
{
    size_t j, n = at;
    json_t *p;

    if (hdrs_reserve(c, at + json_array_size(arr)) < 0)
        return BROCK_ENOMEM;
    json_array_foreach(arr, j, p) {
        json_t *v;

        if (!brock__har_pair_is(p, name))
            continue;
        v = json_object_get(p, "value");
        c->hdrs[n].name = name;
        c->hdrs[n].name_len = strlen(name);
        c->hdrs[n].value = json_string_value(v);
        c->hdrs[n].value_len = json_string_length(v);
        if (++n - at == max)
            break;
    }
    return (int)(n - at);
}

static int render_pair(struct buf *b, const json_t *p)
{
    const json_t *k = json_object_get(p, "name"), *v = json_object_get(p, "value");

    if (buf_append(b, json_string_value(k), json_string_length(k)) < 0 ||
        buf_append(b, "=", 1) < 0 || buf_append(b, json_string_value(v), json_string_length(v)) < 0)
        return -1;
    return 0;
}

/* A response cookie's attributes as a Set-Cookie header would carry them: HttpOnly as the
 * HAR says, and an expiry not after the entry's start (started) as a removal. */
static int render_attributes(struct buf *b, const json_t *p, int64_t started)
{
    int64_t exp = brock__har_time(json_string_value(json_object_get(p, "expires")));

    if (json_is_true(json_object_get(p, "httpOnly")) && buf_append(b, "; HttpOnly", 10) < 0)
        return -1;
    if (exp && started && exp <= started && buf_append(b, "; Max-Age=0", 11) < 0)
        return -1;
    return 0;
}

/* A HAR that stripped the cookie headers still lists the cookies: a request's become one
 * Cookie header, "a=1; b=2"; a response's become one Set-Cookie header each, with their
 * attributes (as of started). Cookies past HAR_COOKIE_BUF_MAX are left out. Returns the
 * header count or a negative BROCK_E*. */
static int render(struct har_ctx *c, const json_t *arr, const char *name, int request,
                  int64_t started)
{
    size_t j, n = 0, len;
    json_t *p;

    if (hdrs_reserve(c, json_array_size(arr)) < 0)
        return BROCK_ENOMEM;
    buf_reset(&c->cookies);
    json_array_foreach(arr, j, p) {
        size_t start = c->cookies.len;

        if (!brock__har_pair_ok(p))
            continue;
        if (request && start && buf_append(&c->cookies, "; ", 2) < 0)
            break;
        if (render_pair(&c->cookies, p) < 0 ||
            (!request && render_attributes(&c->cookies, p, started) < 0)) {
            c->cookies.len = start;
            break;
        }
        if (!request || n == 0)
            c->offs[n++] = request ? 0 : start;
    }
    /* Views are taken only now: the buffer may have moved while it grew. */
    for (j = 0; j < n; j++) {
        len = (j + 1 < n ? c->offs[j + 1] : c->cookies.len) - c->offs[j];
        c->hdrs[j].name = name;
        c->hdrs[j].name_len = strlen(name);
        c->hdrs[j].value = c->cookies.data + c->offs[j];
        c->hdrs[j].value_len = len;
    }
    return (int)n;
}

/* The headers of h's request that learning reads (its cookies, Referer and User-Agent), as
 * views in c->hdrs. Returns their count or a negative BROCK_E*. */
static int request_headers(struct har_ctx *c, const struct har_entry *h)
{
    int n = collect(c, h->req_headers, "Cookie", 0, SIZE_MAX), more;

    if (n == 0 && h->req_cookies)
        n = render(c, h->req_cookies, "Cookie", 1, h->started);
    if (n < 0)
        return n;
    more = collect(c, h->req_headers, "Referer", (size_t)n, 1);
    if (more < 0)
        return more;
    n += more;
    more = collect(c, h->req_headers, "User-Agent", (size_t)n, 1);
    return more < 0 ? more : n + more;
}

/* The Set-Cookie headers of h's answer (else its cookies array), as views in c->hdrs. */
static int response_headers(struct har_ctx *c, const struct har_entry *h)
{
    int n = collect(c, h->resp_headers, "Set-Cookie", 0, SIZE_MAX);

    if (n == 0 && h->resp_cookies)
        n = render(c, h->resp_cookies, "Set-Cookie", 0, h->started);
    return n;
}

/* Counts what an observation taught. */
static void tell(struct brock_stats *st, const struct brock_learned *l)
{
    st->recorded += l->recorded != 0;
    st->blocked += l->blocked != 0;
}

/* Learns from entry h, a request made by a page of site, as the proxy learns from the same
 * exchange (brock_exchange_*()): decided on its URL and type, its cookies evidence when it is
 * a third party let through, and the page's own when it went to the page's own site. An
 * entry that teaches nothing (a navigation, a document that may be one) still gives its
 * page's own cookies. */
static int learn_exchange(struct har_ctx *c, const struct har_entry *h, const char *site,
                          int teaches, struct brock_stats *st)
{
    struct brock_request r;
    struct brock_decision d;
    struct brock_exchange x;
    struct brock_learned l;
    unsigned flags;
    int n, err;

    memset(&r, 0, sizeof(r));
    r.url = h->url;
    r.site = site;
    r.type = h->type;
    if (!*site || brock_decide_request(c->e, &r, &d) < 0)
        return 0;
    if (teaches && d.third_party)
        st->third_party++;
    memset(&x, 0, sizeof(x));
    x.request = &r;
    x.decision = &d;
    x.page_known = 1;
    x.sc = c->sc;
    x.client = "";
    x.time_ms = h->started;
    flags = brock_exchange_flags(c->e, &x);
    if (!teaches)
        flags &= ~(unsigned)BROCK_EXCHANGE_EVIDENCE;
    if (!flags)
        return 0;
    n = request_headers(c, h);
    if (n < 0)
        return n;
    err = brock_exchange_request(c->e, &x, flags, c->hdrs, (size_t)n, &l);
    if (err < 0)
        goto fail;
    tell(st, &l);
    n = response_headers(c, h);
    if (n < 0)
        return n;
    err = brock_exchange_response(c->e, &x, flags, c->hdrs, (size_t)n, &l);
    if (err < 0)
        goto fail;
    tell(st, &l);
    return 0;
fail:
    return brock__fail(c->e, err, "%s: learning failed: %s", c->f.name, brock_strerror(err));
}

/* ---- the first party of each entry, in order ---- */

/* The first party of entry i, an entry of page p, into site; updates p when i is a
 * navigation. Returns 1 when the entry is to be learned from, 0 when it teaches nothing. */
static int page_site(struct har_ctx *c, struct har_page *p, size_t i, const struct har_entry *h,
                     const char *host, char *site)
{
    enum har_level lv = level_of(p, &c->slots[i]);
    char ref[BROCK_HOST_MAX];

    if (i == p->first) {
        p->top_redirects = (h->flags & HAR_REDIRECT) != 0;
        return 0;
    }
    if (lv == HAR_TOP && *host) {
        if (!p->top_redirects)
            p->prev = p->top;
        p->top = c->name_v[c->slots[i].host - 1];
        p->top_redirects = (h->flags & HAR_REDIRECT) != 0;
        return 0;
    }
    if (lv == HAR_TOP || lv == HAR_DOC)
        return 0;
    snprintf(site, BROCK_HOST_MAX, "%s", p->top);
    if (lv != HAR_FRAME && *p->prev && referer_site(c, h, ref) && strcmp(ref, p->prev) == 0 &&
        strcmp(ref, p->top) != 0)
        memcpy(site, ref, BROCK_HOST_MAX);
    return 1;
}

/* Learns from entry h, the entry at place i in time. */
static int learn_entry(struct har_ctx *c, size_t i, const struct har_entry *h,
                       struct brock_stats *st)
{
    struct har_page *p = c->slots[i].page;
    char host[BROCK_HOST_MAX], site[BROCK_HOST_MAX];
    enum har_level lv;
    int err;

    snprintf(host, sizeof(host), "%s", c->slots[i].host ? c->name_v[c->slots[i].host - 1] : "");
    if (p && p->first_rank < 0)
        p = NULL;
    lv = level_of(p, &c->slots[i]);
    if (p) {
        if (!page_site(c, p, i, h, host, site)) {
            /* A Referer naming a top-level document names its own first party. */
            if (i == p->first || (lv == HAR_TOP && *host)) {
                err = frame_put(c, host, host);
                return err < 0 ? err : learn_exchange(c, h, host, 0, st);
            }
            /* A document of the page or in a frame: its cookies are the page's if its own. */
            return learn_exchange(c, h, p->top, 0, st);
        }
    } else if (lv == HAR_TOP || lv == HAR_DOC) {
        if (lv == HAR_DOC || !*host)
            return 0;
        err = frame_put(c, host, host);
        return err < 0 ? err : learn_exchange(c, h, host, 0, st);
    } else if (!referer_site(c, h, site)) {
        st->skipped++;
        return 0;
    }
    if (!*host) {
        st->skipped++;
        return 0;
    }
    if (lv == HAR_FRAME) {
        err = frame_put(c, host, site);
        if (err < 0)
            return err;
    }
    return learn_exchange(c, h, site, 1, st);
}

/* ---- the first pass: every entry read and checked, what ordering needs kept ---- */

/* The number of name (from 1; its text is c->name_v[number - 1] until the end), or 0 when
 * out of memory. */
static uint32_t intern(struct har_ctx *c, const char *name)
{
    uintptr_t id = (uintptr_t)strmap_get(&c->names, name);
    char *v;

    if (id)
        return (uint32_t)id;
    if (c->n_names >= UINT32_MAX - 1 ||
        mem_grow(&c->name_v, &c->names_cap, c->n_names + 1, sizeof(*c->name_v)) < 0)
        return 0;
    v = mem_strdup(name);
    if (!v || strmap_put(&c->names, name, (void *)(uintptr_t)(c->n_names + 1)) < 0) {
        mem_free(v);
        return 0;
    }
    c->name_v[c->n_names++] = v;
    return (uint32_t)c->n_names;
}

static int on_entry(void *arg, size_t i, json_t *entry, size_t off, size_t len)
{
    struct har_ctx *c = arg;
    struct har_entry h;
    struct har_slot *sl;
    char host[BROCK_HOST_MAX];

    brock__har_read_entry(&c->f, i, entry, &h);
    c->f.n++;
    if (h.flags & HAR_BAD) {
        c->f.bad++;
        return 0;
    }
    if (len > UINT32_MAX || i > UINT32_MAX)
        return brock__fail(c->e, BROCK_EFORMAT, "%s: log.entries[%zu] is too large", c->f.name, i);
    if (mem_grow(&c->slots, &c->slots_cap, c->n_slots + 1, sizeof(*c->slots)) < 0)
        goto nomem;
    sl = &c->slots[c->n_slots];
    memset(sl, 0, sizeof(*sl));
    if (h.started)
        c->last = h.started;
    sl->t = c->last;
    sl->off = off;
    sl->len = (uint32_t)len;
    sl->i = (uint32_t)i;
    sl->dest = (unsigned char)h.dest;
    sl->flags = (unsigned char)h.flags;
    if (h.pageref && !(sl->page = page_get(c, h.pageref)))
        goto nomem;
    if (h.frameref && !(sl->frame = intern(c, h.frameref)))
        goto nomem;
    if (brock_url_host(h.url, host) >= 0 && !(sl->host = intern(c, host)))
        goto nomem;
    c->n_slots++;
    return 0;
nomem:
    return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory for %zu entries", c->f.name, i + 1);
}

static int on_page(void *arg, size_t i, json_t *page)
{
    struct har_ctx *c = arg;
    const char *id = json_string_value(json_object_get(page, "id"));
    const char *title = json_string_value(json_object_get(page, "title"));
    char host[BROCK_HOST_MAX], *v;

    brock__har_read_page(&c->f, i, page);
    if (!id || !*id || !title || strmap_get(&c->titles, id))
        return 0;
    if (strncasecmp(title, "http://", 7) != 0 && strncasecmp(title, "https://", 8) != 0)
        return 0;
    if (brock_url_host(title, host) < 0)
        return 0;
    v = mem_strdup(host);
    if (!v || strmap_put(&c->titles, id, v) < 0) {
        mem_free(v);
        return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory reading pages", c->f.name);
    }
    return 0;
}

/* While the file is read, the total is not known yet: 0. */
static void on_scan_progress(void *arg, size_t entries)
{
    struct har_ctx *c = arg;

    if (c->progress && entries >= c->told + HAR_PROGRESS_EVERY) {
        c->told = entries;
        c->progress(c->arg, entries, 0);
    }
}

/* ---- the second pass: each entry read again, in order, and learned from ---- */

static int learn_all(struct har_ctx *c, struct brock_stats *st)
{
    struct har_file again; /* what reading again counts, already told */

    memset(&again, 0, sizeof(again));
    again.name = c->f.name;
    for (size_t k = 0; k < c->n_slots; k++) {
        struct har_entry h;
        json_t *v;
        int err;

        if (c->progress && k % HAR_PROGRESS_EVERY == 0)
            c->progress(c->arg, k, c->n_slots);
        err = brock__har_load_entry(c->e, &c->src, &c->cb, c->slots[k].off, c->slots[k].len,
                                    &c->win, &v);
        if (err < 0)
            return err;
        brock__har_read_entry(&again, c->slots[k].i, v, &h);
        if (h.flags & HAR_BAD) {
            brock__har_release(&c->src, v);
            return brock__fail(c->e, BROCK_EFORMAT, "%s: changed while it was read", c->f.name);
        }
        err = learn_entry(c, k, &h, st);
        brock__har_release(&c->src, v);
        if (err < 0)
            return err;
        st->entries++;
    }
    if (c->progress)
        c->progress(c->arg, c->n_slots, c->n_slots);
    return 0;
}

static int learn_src(struct brock_engine *e, const char *name, struct har_src *src,
                     void (*progress)(void *arg, size_t done, size_t total),
                     void (*on_warning)(void *arg, const char *msg), void *arg,
                     struct brock_stats *stats)
{
    struct har_ctx c;
    struct brock_stats st;
    struct har_doc doc;
    struct arena arena;
    int err;

    memset(&c, 0, sizeof(c));
    memset(&st, 0, sizeof(st));
    c.e = e;
    c.f.name = name ? name : "HAR";
    c.src = *src;
    /* Each entry's values go into one arena, released at once when the entry is done; a
     * document read whole is held whole, out of any arena. */
    arena_init(&arena, HAR_ARENA_CHUNK);
    c.src.arena = !e->plain && brock__json_arena(&arena) == 0 ? &arena : NULL;
    c.cb.name = c.f.name;
    c.cb.on_entry = on_entry;
    c.cb.on_page = on_page;
    c.cb.on_progress = on_scan_progress;
    c.cb.arg = &c;
    c.last = INT64_MIN;
    c.progress = progress;
    c.arg = arg;
    strmap_init(&c.names);
    strmap_init(&c.titles);
    strmap_init(&c.pages);
    strmap_init(&c.frames);
    buf_init(&c.cookies, HAR_COOKIE_BUF_MAX);
    c.sc = brock_site_cookies_new();
    if (!c.sc) {
        err = brock__fail(e, BROCK_ENOMEM, "%s: out of memory", c.f.name);
        goto out;
    }
    /* Everything is read and checked before anything is learned. */
    err = e->plain ? brock__har_scan_whole(e, &c.src, &c.cb, &doc)
                   : brock__har_scan(e, &c.src, &c.cb, &doc);
    if (!err)
        err = brock__har_check(e, &c.f, &doc);
    if (err < 0)
        goto out;
    sort_entries(&c);
    find_pages(&c);
    err = page_titles(&c);
    if (!err)
        err = learn_all(&c, &st);
    if (err < 0)
        goto out;
    st.unreadable = c.f.bad;
    for (int k = 0; k < HAR_ODD_COUNT; k++)
        st.warnings += c.f.odd[k].count;
    brock__har_warn(&c.f, on_warning, arg);
    if (stats)
        *stats = st;
    err = 0;
out:
    strmap_cleanup(&c.names, NULL);
    for (size_t k = 0; k < c.n_names; k++)
        mem_free(c.name_v[k]);
    mem_free(c.name_v);
    strmap_cleanup(&c.titles, mem_free);
    strmap_cleanup(&c.pages, mem_free);
    strmap_cleanup(&c.frames, mem_free);
    buf_cleanup(&c.cookies);
    brock_site_cookies_free(c.sc);
    mem_free(c.slots);
    mem_free(c.hdrs);
    mem_free(c.offs);
    mem_free(c.win.buf);
    json_decref(c.src.whole);
    brock__json_arena(NULL);
    arena_cleanup(&arena);
    return err;
}

int brock_learn_har(struct brock_engine *e, const char *name, const char *json, size_t len,
                    void (*progress)(void *arg, size_t done, size_t total),
                    void (*on_warning)(void *arg, const char *msg), void *arg,
                    struct brock_stats *stats)
{
    struct har_src src = {json, -1, len, 0, NULL, NULL};

    if (stats)
        memset(stats, 0, sizeof(*stats));
    if (!json)
        return brock__fail(e, BROCK_EINVAL, "%s: no text given", name ? name : "HAR");
    if (len >= 3 && memcmp(json, "\xef\xbb\xbf", 3) == 0)
        src.start = 3;
    return learn_src(e, name, &src, progress, on_warning, arg, stats);
}

int brock_learn_har_fd(struct brock_engine *e, const char *name, int fd,
                       void (*progress)(void *arg, size_t done, size_t total),
                       void (*on_warning)(void *arg, const char *msg), void *arg,
                       struct brock_stats *stats)
{
    struct har_src src = {NULL, fd, 0, 0, NULL, NULL};
    struct stat sb;
    char bom[3];

    if (stats)
        memset(stats, 0, sizeof(*stats));
    name = name ? name : "HAR";
    if (fstat(fd, &sb) < 0)
        return brock__fail(e, BROCK_EIO, "%s: %s", name, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return brock__fail(e, BROCK_EINVAL, "%s: not a regular file", name);
    src.len = (size_t)sb.st_size;
    if (src.len >= 3 && pread(fd, bom, 3, 0) == 3 && memcmp(bom, "\xef\xbb\xbf", 3) == 0)
        src.start = 3;
    return learn_src(e, name, &src, progress, on_warning, arg, stats);
}
