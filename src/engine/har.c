/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Learning from HTTP Archives (HAR 1.2, as Chrome, Firefox, Safari, Charles and Fiddler write
 * them): the whole document is validated first, then each entry's first party is worked out
 * from its page or its Referer and its cookies are fed to brock_observe() as a proxy would.
 */
#include "engine/engine.h"

#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/strmap.h"

/* Rendered cookie headers of one entry never grow past this; larger arrays are cut. */
#define HAR_COOKIE_BUF_MAX (1u << 20)

/* How often, in entries, the progress callback hears from the learning pass. */
#define HAR_PROGRESS_EVERY 8192

enum {
    HAR_NAV = 1,    /* a top-level navigation: first party, teaches nothing */
    HAR_BEACON = 2, /* sendBeacon or <a ping> */
    HAR_HTML = 4,   /* answered with text/html: a candidate page document */
};

/* What validation keeps of one entry for the learning pass: borrowed from the JSON. */
struct har_entry {
    const char *url;
    const char *pageref; /* NULL without one */
    json_t *req_headers; /* arrays, or NULL when absent */
    json_t *req_cookies;
    json_t *resp_headers;
    json_t *resp_cookies;
    json_t *started;     /* startedDateTime, or NULL */
    unsigned flags;
};

/* One page, by pageref: where its top-level document came from. */
struct har_page {
    size_t doc_entry;           /* the entry that is the document; SIZE_MAX: none */
    int doc_rank;               /* 3 navigation, 2 text/html, 1 first entry, 0 title, -1 none */
    char host[BROCK_HOST_MAX];  /* the document's host, when doc_rank >= 0 */
};

struct har_ctx {
    struct brock_engine *e;
    const char *name;
    struct har_entry *ents;
    size_t n;
    struct strmap pages;        /* pageref → struct har_page */
    struct brock_header *hdrs;  /* scratch views for one observation */
    size_t hdrs_cap;
    struct buf cookies;         /* scratch: cookies arrays rendered as header values */
    size_t *offs;               /* scratch: where each rendered value starts in cookies */
    size_t offs_cap;
};

/* ---- validation ---- */

static int name_is(const json_t *pair, const char *want)
{
    const char *s = json_string_value(json_object_get(pair, "name"));

    return s && strcasecmp(s, want) == 0;
}

/* A value equal to want, ignoring case and surrounding blanks. */
static int value_is(const json_t *pair, const char *want)
{
    const char *s = json_string_value(json_object_get(pair, "value"));
    size_t n, w = strlen(want);

    if (!s)
        return 0;
    while (*s == ' ' || *s == '\t')
        s++;
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return n == w && strncasecmp(s, want, w) == 0;
}

/* A HAR list of {name, value} pairs, as headers and cookies are: absent and null are empty.
 * Stores the array (or NULL) in *out. Returns 0 or BROCK_EFORMAT. */
static int check_pairs(struct har_ctx *c, size_t i, json_t *parent, const char *where,
                       const char *key, json_t **out)
{
    json_t *arr = json_object_get(parent, key);
    size_t j;
    json_t *p;

    *out = NULL;
    if (!arr || json_is_null(arr))
        return 0;
    if (!json_is_array(arr))
        return brock__fail(c->e, BROCK_EFORMAT, "%s: log.entries[%zu].%s.%s is not an array",
                           c->name, i, where, key);
    json_array_foreach(arr, j, p) {
        if (!json_is_object(p) || !json_is_string(json_object_get(p, "name")) ||
            !json_is_string(json_object_get(p, "value")))
            return brock__fail(c->e, BROCK_EFORMAT,
                               "%s: log.entries[%zu].%s.%s[%zu] is not an object with a string "
                               "name and value",
                               c->name, i, where, key, j);
    }
    if (json_array_size(arr))
        *out = arr;
    return 0;
}

static unsigned classify(const json_t *entry, const json_t *req_headers, const json_t *resp)
{
    const char *rtype = json_string_value(json_object_get(entry, "_resourceType"));
    const char *mime;
    unsigned flags = 0;
    int dest = -1; /* Sec-Fetch-Dest: -1 absent, 1 document, 0 anything else */
    size_t j;
    json_t *h;

    json_array_foreach(req_headers, j, h) {
        if (name_is(h, "sec-fetch-dest"))
            dest = value_is(h, "document");
        else if (name_is(h, "ping-to"))
            flags |= HAR_BEACON;
        else if (name_is(h, "content-type") && value_is(h, "text/ping"))
            flags |= HAR_BEACON;
    }
    /* Chrome calls subframe documents "document" too; Sec-Fetch-Dest tells them apart. */
    if (dest == 1 || (dest == -1 && rtype && strcmp(rtype, "document") == 0))
        flags |= HAR_NAV;
    if (rtype && (strcmp(rtype, "ping") == 0 || strcmp(rtype, "beacon") == 0))
        flags |= HAR_BEACON;
    mime = json_string_value(json_object_get(json_object_get(resp, "content"), "mimeType"));
    if (mime && strncasecmp(mime, "text/html", 9) == 0 &&
        (mime[9] == '\0' || mime[9] == ';' || mime[9] == ' '))
        flags |= HAR_HTML;
    return flags;
}

static struct har_page *page_get(struct har_ctx *c, const char *ref)
{
    struct har_page *p = strmap_get(&c->pages, ref);

    if (p)
        return p;
    p = mem_malloc(sizeof(*p));
    if (!p)
        return NULL;
    p->doc_entry = SIZE_MAX;
    p->doc_rank = -1;
    p->host[0] = '\0';
    if (strmap_put(&c->pages, ref, p) < 0) {
        mem_free(p);
        return NULL;
    }
    return p;
}

/* Offers entry i as its page's document; the best-ranked, earliest candidate wins. */
static int page_offer(struct har_ctx *c, size_t i)
{
    const struct har_entry *h = &c->ents[i];
    struct har_page *p;
    int rank = (h->flags & HAR_NAV) ? 3 : (h->flags & HAR_HTML) ? 2 : 1;
    char host[BROCK_HOST_MAX];

    if (!h->pageref)
        return 0;
    p = page_get(c, h->pageref);
    if (!p)
        return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory reading pages", c->name);
    if (rank <= p->doc_rank || brock_url_host(h->url, host) < 0)
        return 0;
    p->doc_entry = i;
    p->doc_rank = rank;
    memcpy(p->host, host, sizeof(host));
    return 0;
}

static int check_entry(struct har_ctx *c, size_t i, json_t *entry)
{
    struct har_entry *h = &c->ents[i];
    json_t *req, *resp, *url, *ref;
    int err;

    memset(h, 0, sizeof(*h));
    if (!json_is_object(entry))
        return brock__fail(c->e, BROCK_EFORMAT, "%s: log.entries[%zu] is not an object",
                           c->name, i);
    req = json_object_get(entry, "request");
    if (!json_is_object(req))
        return brock__fail(c->e, BROCK_EFORMAT,
                           "%s: log.entries[%zu].request is missing or not an object", c->name,
                           i);
    url = json_object_get(req, "url");
    if (!json_is_string(url))
        return brock__fail(c->e, BROCK_EFORMAT,
                           "%s: log.entries[%zu].request.url is missing or not a string",
                           c->name, i);
    h->url = json_string_value(url);
    ref = json_object_get(entry, "pageref");
    if (ref && !json_is_null(ref) && !json_is_string(ref))
        return brock__fail(c->e, BROCK_EFORMAT, "%s: log.entries[%zu].pageref is not a string",
                           c->name, i);
    h->pageref = json_string_value(ref);
    if (h->pageref && !*h->pageref)
        h->pageref = NULL;
    err = check_pairs(c, i, req, "request", "headers", &h->req_headers);
    if (!err)
        err = check_pairs(c, i, req, "request", "cookies", &h->req_cookies);
    if (err)
        return err;
    resp = json_object_get(entry, "response");
    if (resp && !json_is_null(resp)) {
        if (!json_is_object(resp))
            return brock__fail(c->e, BROCK_EFORMAT,
                               "%s: log.entries[%zu].response is not an object", c->name, i);
        err = check_pairs(c, i, resp, "response", "headers", &h->resp_headers);
        if (!err)
            err = check_pairs(c, i, resp, "response", "cookies", &h->resp_cookies);
        if (err)
            return err;
    }
    h->started = json_object_get(entry, "startedDateTime");
    h->flags = classify(entry, h->req_headers, resp);
    return page_offer(c, i);
}

/* Pages named in log.pages but never found a document get their title, when it is a URL
 * (Chrome writes the page's URL there). */
static int check_pages(struct har_ctx *c, json_t *pages)
{
    size_t i;
    json_t *pg;

    if (!pages || json_is_null(pages))
        return 0;
    if (!json_is_array(pages))
        return brock__fail(c->e, BROCK_EFORMAT, "%s: log.pages is not an array", c->name);
    json_array_foreach(pages, i, pg) {
        const char *id, *title;
        struct har_page *p;
        char host[BROCK_HOST_MAX];

        if (!json_is_object(pg) || !json_is_string(json_object_get(pg, "id")))
            return brock__fail(c->e, BROCK_EFORMAT,
                               "%s: log.pages[%zu] is not an object with a string id", c->name,
                               i);
        id = json_string_value(json_object_get(pg, "id"));
        title = json_string_value(json_object_get(pg, "title"));
        p = strmap_get(&c->pages, id);
        if ((p && p->doc_rank >= 0) || !title || !*id)
            continue;
        if (strncasecmp(title, "http://", 7) != 0 && strncasecmp(title, "https://", 8) != 0)
            continue;
        if (brock_url_host(title, host) < 0)
            continue;
        p = page_get(c, id);
        if (!p)
            return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory reading pages", c->name);
        p->doc_rank = 0;
        memcpy(p->host, host, sizeof(host));
    }
    return 0;
}

/* ---- time ---- */

static int digits(const char *s, int n, int *out)
{
    int v = 0;

    for (int k = 0; k < n; k++) {
        if (s[k] < '0' || s[k] > '9')
            return -1;
        v = v * 10 + (s[k] - '0');
    }
    *out = v;
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (the civil-from-days inverse). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM|±HHMM)" in Unix milliseconds; 0 when it is not. */
static int64_t parse_time(const json_t *v)
{
    const char *s = json_string_value(v);
    int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0, ms = 0, scale = 100;

    if (!s || strlen(s) < 20 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) ||
        s[7] != '-' || digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' ||
        digits(s + 17, 2, &sec))
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return 0;
    s += 19;
    if (*s == '.' || *s == ',') {
        for (s++; *s >= '0' && *s <= '9'; s++) {
            ms += (*s - '0') * scale;
            scale /= 10;
        }
    }
    if (*s == 'Z' || *s == 'z') {
        s++;
    } else if (*s == '+' || *s == '-') {
        sign = *s == '-' ? -1 : 1;
        if (digits(s + 1, 2, &oh))
            return 0;
        s += 3;
        if (*s == ':')
            s++;
        if (digits(s, 2, &om) || oh > 23 || om > 59)
            return 0;
        s += 2;
    } else {
        return 0;
    }
    if (*s)
        return 0;
    return ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec) -
            (int64_t)sign * (oh * 3600 + om * 60)) * 1000 + ms;
}

/* ---- learning ---- */

static int hdrs_reserve(struct har_ctx *c, size_t n)
{
    if (mem_grow(&c->hdrs, &c->hdrs_cap, n, sizeof(*c->hdrs)) < 0 ||
        mem_grow(&c->offs, &c->offs_cap, n, sizeof(*c->offs)) < 0)
        return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory reading headers", c->name);
    return 0;
}

/* Views of the headers in arr named name. Returns their count or a negative BROCK_E*. */
static int collect(struct har_ctx *c, const json_t *arr, const char *name)
{
    size_t j, n = 0;
    json_t *p;

    if (hdrs_reserve(c, json_array_size(arr)) < 0)
        return BROCK_ENOMEM;
    json_array_foreach(arr, j, p) {
        json_t *v;

        if (!name_is(p, name))
            continue;
        v = json_object_get(p, "value");
        c->hdrs[n].name = name;
        c->hdrs[n].name_len = strlen(name);
        c->hdrs[n].value = json_string_value(v);
        c->hdrs[n].value_len = json_string_length(v);
        n++;
    }
    return (int)n;
}

static int render_pair(struct har_ctx *c, const json_t *p)
{
    const json_t *k = json_object_get(p, "name"), *v = json_object_get(p, "value");

    if (buf_append(&c->cookies, json_string_value(k), json_string_length(k)) < 0 ||
        buf_append(&c->cookies, "=", 1) < 0 ||
        buf_append(&c->cookies, json_string_value(v), json_string_length(v)) < 0)
        return -1;
    return 0;
}

/* A HAR that stripped the cookie headers still lists the cookies: a request's become one
 * Cookie header, "a=1; b=2"; a response's become one Set-Cookie header each. Cookies past
 * HAR_COOKIE_BUF_MAX are left out. Returns the header count or a negative BROCK_E*. */
static int render(struct har_ctx *c, const json_t *arr, const char *name, int one_header)
{
    size_t j, n = 0, len;
    json_t *p;

    if (hdrs_reserve(c, json_array_size(arr)) < 0)
        return BROCK_ENOMEM;
    buf_reset(&c->cookies);
    json_array_foreach(arr, j, p) {
        size_t start = c->cookies.len;

        if (one_header && start && buf_append(&c->cookies, "; ", 2) < 0)
            break;
        if (render_pair(c, p) < 0) {
            c->cookies.len = start;
            break;
        }
        if (!one_header || n == 0)
            c->offs[n++] = one_header ? 0 : start;
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

/* Returns 1 when the observation recorded a site, 0 when not, or a negative BROCK_E*. */
static int observe(struct har_ctx *c, const char *host, const char *site, size_t n,
                   unsigned flags, int64_t t, struct brock_stats *st)
{
    struct brock_observation o = {host, site, c->hdrs, n, flags, t};
    struct brock_learned l;
    int err;

    memset(&l, 0, sizeof(l));
    err = brock_observe(c->e, &o, &l);
    if (err < 0)
        return brock__fail(c->e, err, "%s: learning failed: %s", c->name, brock_strerror(err));
    st->recorded += l.recorded != 0;
    st->blocked += l.blocked != 0;
    return l.recorded != 0;
}

/* The host of an entry's first party into site; 0 when it cannot be told. */
static int first_party(struct har_ctx *c, size_t i, char *site)
{
    const struct har_entry *h = &c->ents[i];
    size_t j;
    json_t *p;

    if (h->pageref) {
        const struct har_page *pg = strmap_get(&c->pages, h->pageref);

        if (pg && pg->doc_rank >= 0) {
            memcpy(site, pg->host, BROCK_HOST_MAX);
            return 1;
        }
    }
    json_array_foreach(h->req_headers, j, p) {
        if (name_is(p, "referer") &&
            brock_url_host(json_string_value(json_object_get(p, "value")), site) >= 0)
            return 1;
    }
    return 0;
}

static int learn_entry(struct har_ctx *c, size_t i, struct brock_stats *st)
{
    const struct har_entry *h = &c->ents[i];
    const struct har_page *pg = h->pageref ? strmap_get(&c->pages, h->pageref) : NULL;
    char host[BROCK_HOST_MAX], site[BROCK_HOST_MAX];
    struct brock_decision d;
    int64_t t;
    int n, beacon;

    if ((h->flags & HAR_NAV) || (pg && pg->doc_entry == i))
        return 0;
    if (!first_party(c, i, site) || brock_url_host(h->url, host) < 0) {
        st->skipped++;
        return 0;
    }
    if (brock_decide(c->e, host, site, &d) < 0 || !d.third_party)
        return 0;
    st->third_party++;
    t = parse_time(h->started);

    n = collect(c, h->req_headers, "Cookie");
    if (n == 0 && h->req_cookies)
        n = render(c, h->req_cookies, "Cookie", 1);
    if (n < 0)
        return n;
    beacon = (h->flags & HAR_BEACON) != 0;
    if (beacon || n > 0) {
        n = observe(c, host, site, (size_t)n, beacon ? BROCK_OBS_BEACON : 0, t, st);
        if (n != 0)
            return n < 0 ? n : 0; /* recorded: the response cannot add the site again */
    }

    n = collect(c, h->resp_headers, "Set-Cookie");
    if (n == 0 && h->resp_cookies)
        n = render(c, h->resp_cookies, "Set-Cookie", 0);
    if (n < 0)
        return n;
    if (n > 0)
        n = observe(c, host, site, (size_t)n, 0, t, st);
    return n < 0 ? n : 0;
}

static int check_doc(struct har_ctx *c, json_t *root, json_t **entries)
{
    json_t *log = json_object_get(root, "log"), *arr;
    size_t i;
    json_t *ent;
    int err;

    if (!json_is_object(root))
        return brock__fail(c->e, BROCK_EFORMAT, "%s: not a HAR: the top level is not an object",
                           c->name);
    if (!json_is_object(log))
        return brock__fail(c->e, BROCK_EFORMAT, "%s: not a HAR: no \"log\" object", c->name);
    arr = json_object_get(log, "entries");
    if (!json_is_array(arr))
        return brock__fail(c->e, BROCK_EFORMAT, "%s: log.entries is missing or not an array",
                           c->name);
    c->n = json_array_size(arr);
    if (c->n == 0)
        return brock__fail(c->e, BROCK_EFORMAT, "%s: log.entries is empty: nothing to learn",
                           c->name);
    c->ents = mem_calloc(c->n, sizeof(*c->ents));
    if (!c->ents)
        return brock__fail(c->e, BROCK_ENOMEM, "%s: out of memory for %zu entries", c->name,
                           c->n);
    json_array_foreach(arr, i, ent) {
        err = check_entry(c, i, ent);
        if (err < 0)
            return err;
    }
    *entries = arr;
    return check_pages(c, json_object_get(log, "pages"));
}

int brock_learn_har(struct brock_engine *e, const char *name, const char *json, size_t len,
                    void (*progress)(void *arg, size_t done, size_t total), void *arg,
                    struct brock_stats *stats)
{
    struct har_ctx c;
    struct brock_stats st;
    json_error_t jerr;
    json_t *root = NULL, *entries = NULL;
    int err;

    memset(&c, 0, sizeof(c));
    memset(&st, 0, sizeof(st));
    c.e = e;
    c.name = name ? name : "HAR";
    strmap_init(&c.pages);
    buf_init(&c.cookies, HAR_COOKIE_BUF_MAX);
    if (stats)
        memset(stats, 0, sizeof(*stats));
    if (!json) {
        err = brock__fail(e, BROCK_EINVAL, "%s: no text given", c.name);
        goto out;
    }
    if (len >= 3 && memcmp(json, "\xef\xbb\xbf", 3) == 0) {
        json += 3;
        len -= 3;
    }
    root = json_loadb(json, len, 0, &jerr);
    if (!root) {
        err = brock__fail(e, BROCK_EFORMAT, "%s: not JSON: %s (line %d, column %d)", c.name,
                          jerr.text, jerr.line, jerr.column);
        goto out;
    }
    err = check_doc(&c, root, &entries);
    if (err < 0)
        goto out;

    for (size_t i = 0; i < c.n; i++) {
        if (progress && i % HAR_PROGRESS_EVERY == 0)
            progress(arg, i, c.n);
        err = learn_entry(&c, i, &st);
        if (err < 0)
            goto out;
        st.entries++;
    }
    if (progress)
        progress(arg, c.n, c.n);
    if (stats)
        *stats = st;
    err = 0;
out:
    strmap_cleanup(&c.pages, mem_free);
    buf_cleanup(&c.cookies);
    mem_free(c.ents);
    mem_free(c.hdrs);
    mem_free(c.offs);
    json_decref(root);
    return err;
}
