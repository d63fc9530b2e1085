/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading an HTTP Archive leniently: writers differ (IE11 writes "cookies": {}, some leave
 * out the response of an aborted request), so one odd field is read as absent and one
 * unreadable entry is skipped, each counted and told once per file; only a document that is
 * not a HAR at all is refused.
 */
#include "har/har.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/clock.h"

/* ---- pairs and headers ---- */

/* Whether p is a well-formed pair, its name and value then in *name and *value. Each look-up
 * hashes its key: two, not more, for a header read many times over. */
static int pair_get(const json_t *p, const char **name, const char **value)
{
    const json_t *n, *v;

    if (!json_is_object(p))
        return 0;
    n = json_object_get(p, "name");
    v = json_object_get(p, "value");
    if (!json_is_string(n) || !json_is_string(v))
        return 0;
    *name = json_string_value(n);
    *value = json_string_value(v);
    return 1;
}

int brock__har_pair_ok(const json_t *p)
{
    const char *name, *value;

    return pair_get(p, &name, &value);
}

int brock__har_pair_is(const json_t *p, const char *want)
{
    const char *name, *value;

    return pair_get(p, &name, &value) && strcasecmp(name, want) == 0;
}

/* The value of a well-formed pair without surrounding blanks: *len bytes at the result. */
static const char *pair_value(const json_t *p, size_t *len)
{
    const char *s = json_string_value(json_object_get(p, "value"));
    size_t n;

    while (*s == ' ' || *s == '\t')
        s++;
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    *len = n;
    return s;
}

static int value_is(const json_t *p, const char *want)
{
    size_t n, w = strlen(want);
    const char *s = pair_value(p, &n);

    return n == w && strncasecmp(s, want, w) == 0;
}

/* ---- oddities ---- */

const char *brock__har_kind_of(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "something else";
}

/* "missing", or what v is instead of want: "an object, not an array". */
static const char *not_a(const json_t *v, const char *want, char *buf, size_t n)
{
    if (!v)
        return "missing";
    snprintf(buf, n, "%s, not %s", brock__har_kind_of(v), want);
    return buf;
}

/* Counts one oddity of kind k; the first of each kind keeps its sentence. */
static void odd(struct har_file *f, enum har_odd k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void odd(struct har_file *f, enum har_odd k, const char *fmt, ...)
{
    va_list ap;

    if (f->odd[k].count++)
        return;
    va_start(ap, fmt);
    vsnprintf(f->odd[k].first, sizeof(f->odd[k].first), fmt, ap);
    va_end(ap);
}

void brock__har_warn(const struct har_file *f, void (*on_warning)(void *arg, const char *msg),
                     void *arg)
{
    static const char *const what[HAR_ODD_COUNT] = {
        [HAR_ODD_ENTRY] = "skipped",
        [HAR_ODD_REQUEST] = "skipped",
        [HAR_ODD_URL] = "skipped",
        [HAR_ODD_PAGEREF] = "read as none",
        [HAR_ODD_HEADERS] = "read as none",
        [HAR_ODD_COOKIES] = "read as none",
        [HAR_ODD_PAIR] = "left out",
        [HAR_ODD_RESPONSE] = "read as none",
        [HAR_ODD_TIME] = "the entry keeps its place in the file",
        [HAR_ODD_PAGES] = "read as none",
        [HAR_ODD_PAGE] = "left out",
    };
    char msg[512];

    if (!on_warning)
        return;
    for (int k = 0; k < HAR_ODD_COUNT; k++) {
        const struct har_odd_seen *o = &f->odd[k];

        if (!o->count)
            continue;
        if (o->count == 1)
            snprintf(msg, sizeof(msg), "%s: %s; %s", f->name, o->first, what[k]);
        else
            snprintf(msg, sizeof(msg), "%s: %s; %s (and %zu more like it)", f->name, o->first,
                     what[k], o->count - 1);
        on_warning(arg, msg);
    }
}

/* ---- one entry ---- */

/* The array at parent.key, or NULL when absent, null or not an array (told as odd). The
 * members that are not name/value pairs are counted here and left out where used. */
static json_t *read_pairs(struct har_file *f, size_t i, json_t *parent, const char *where,
                          const char *key)
{
    json_t *arr = json_object_get(parent, key), *p;
    size_t j;

    if (!arr || json_is_null(arr))
        return NULL;
    if (!json_is_array(arr)) {
        odd(f, strcmp(key, "cookies") == 0 ? HAR_ODD_COOKIES : HAR_ODD_HEADERS,
            "log.entries[%zu].%s.%s is %s, not an array", i, where, key, brock__har_kind_of(arr));
        return NULL;
    }
    json_array_foreach(arr, j, p) {
        if (!brock__har_pair_ok(p))
            odd(f, HAR_ODD_PAIR,
                "log.entries[%zu].%s.%s[%zu] is not an object with a string name and value", i,
                where, key, j);
    }
    return json_array_size(arr) ? arr : NULL;
}

static enum har_dest dest_of(const json_t *p)
{
    static const char *const frames[] = {"iframe", "frame", "fencedframe", "embed", "object"};

    if (value_is(p, "document"))
        return HAR_DEST_DOC;
    for (size_t k = 0; k < sizeof(frames) / sizeof(frames[0]); k++)
        if (value_is(p, frames[k]))
            return HAR_DEST_FRAME;
    return HAR_DEST_OTHER;
}

/* Chromium's _resourceType (DevTools' names; a few of webRequest's too) as a type, or -1
 * for one that says nothing more than the headers do. */
static int rtype_of(const char *rtype, enum har_dest dest)
{
    static const struct {
        const char *name;
        enum brock_resource_type type;
    } types[] = {
        {"document", BROCK_RESOURCE_MAIN_FRAME},
        {"main_frame", BROCK_RESOURCE_MAIN_FRAME},
        {"sub_frame", BROCK_RESOURCE_SUB_FRAME},
        {"iframe", BROCK_RESOURCE_SUB_FRAME},
        {"stylesheet", BROCK_RESOURCE_STYLESHEET},
        {"script", BROCK_RESOURCE_SCRIPT},
        {"image", BROCK_RESOURCE_IMAGE},
        {"imageset", BROCK_RESOURCE_IMAGE},
        {"font", BROCK_RESOURCE_FONT},
        {"media", BROCK_RESOURCE_MEDIA},
        {"texttrack", BROCK_RESOURCE_MEDIA},
        {"xhr", BROCK_RESOURCE_XHR},
        {"fetch", BROCK_RESOURCE_XHR},
        {"xmlhttprequest", BROCK_RESOURCE_XHR},
        {"ping", BROCK_RESOURCE_PING},
        {"beacon", BROCK_RESOURCE_PING},
        {"websocket", BROCK_RESOURCE_WEBSOCKET},
        {"object", BROCK_RESOURCE_OBJECT},
        {"embed", BROCK_RESOURCE_OBJECT},
    };

    for (size_t k = 0; rtype && k < sizeof(types) / sizeof(types[0]); k++) {
        if (strcasecmp(rtype, types[k].name) != 0)
            continue;
        /* A document in a frame is the frame's, whatever DevTools calls it. */
        if (types[k].type == BROCK_RESOURCE_MAIN_FRAME && dest == HAR_DEST_FRAME)
            return BROCK_RESOURCE_SUB_FRAME;
        return (int)types[k].type;
    }
    return -1;
}

/* The request headers the type of a request is read from (brock_request_type()). */
enum { RQ_DEST, RQ_MODE, RQ_ACCEPT, RQ_CTYPE, RQ_UPGRADE, RQ_PING_TO, RQ_COUNT };

static const char *const rq_names[RQ_COUNT] = {
    "sec-fetch-dest", "sec-fetch-mode", "accept", "content-type", "upgrade", "ping-to",
};

/* Whether a body of media type ct goes without a CORS preflight (Fetch's CORS-safelisted
 * Content-Type); NULL is no body type at all. */
static int cors_safelisted(const char *ct)
{
    static const char *const types[] = {"text/plain", "application/x-www-form-urlencoded",
                                        "multipart/form-data"};

    if (!ct)
        return 1;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        size_t n = strlen(types[k]);

        if (strncasecmp(ct, types[k], n) == 0 &&
            (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ' || ct[n] == '\t'))
            return 1;
    }
    return 0;
}

/* What the entry fetches, read from what the browser sent by the proxy's rule
 * (brock_request_type()). Where the recording has no fetch metadata (plain http), Chromium's
 * _resourceType stands in for it: a ping, the metadata the browser sends with one
 * (Sec-Fetch-Dest: empty, and Sec-Fetch-Mode: no-cors unless its body's type needs CORS),
 * to be read by the same rule. Failing both, an image when it was answered with one (a HAR
 * knows the answer before the question: a request without an Accept for images is one the
 * proxy cannot tell). */
static enum brock_resource_type type_of(const struct har_entry *h, const char *rtype,
                                        const char *const rq[RQ_COUNT], const char *mime)
{
    struct brock_header v[RQ_COUNT];
    const char *val[RQ_COUNT], *method = h->method;
    size_t n = 0;
    int t;

    memcpy(val, rq, sizeof(val));
    if (!rq[RQ_DEST]) {
        t = rtype_of(rtype, h->dest);
        if (t == BROCK_RESOURCE_PING) {
            /* A ping is a POST, whatever a hand-made recording says. */
            method = "POST";
            val[RQ_DEST] = "empty";
            val[RQ_MODE] = cors_safelisted(rq[RQ_CTYPE]) ? "no-cors" : "cors";
        } else if (t >= 0) {
            return (enum brock_resource_type)t;
        }
    }
    for (int k = 0; k < RQ_COUNT; k++) {
        if (!val[k])
            continue;
        v[n].name = rq_names[k];
        v[n].name_len = strlen(rq_names[k]);
        v[n].value = val[k];
        v[n].value_len = strlen(val[k]);
        n++;
    }
    t = brock_request_type(method, v, n);
    if (t == BROCK_RESOURCE_OTHER && !val[RQ_DEST] && mime && strncasecmp(mime, "image/", 6) == 0)
        t = BROCK_RESOURCE_IMAGE;
    return (enum brock_resource_type)t;
}

/* What the request's headers and Chromium's _resourceType say the entry is. */
static void classify(struct har_entry *h, const json_t *entry, const json_t *resp)
{
    const char *rtype = json_string_value(json_object_get(entry, "_resourceType"));
    const char *mime, *redirect, *rq[RQ_COUNT] = {NULL};
    json_int_t status;
    size_t j;
    json_t *p;

    json_array_foreach(h->req_headers, j, p) {
        const char *name, *value;

        if (!pair_get(p, &name, &value))
            continue;
        for (int k = 0; k < RQ_COUNT; k++)
            if (!rq[k] && strcasecmp(name, rq_names[k]) == 0)
                rq[k] = value;
        if (strcasecmp(name, "sec-fetch-dest") == 0 && h->dest == HAR_DEST_NONE)
            h->dest = dest_of(p);
        else if (strcasecmp(name, "referer") == 0 && !h->referer)
            h->referer = value;
    }
    if (rtype && strcmp(rtype, "document") == 0)
        h->flags |= HAR_RDOC;
    redirect = json_string_value(json_object_get(resp, "redirectURL"));
    status = json_integer_value(json_object_get(resp, "status"));
    if ((redirect && *redirect) || (status >= 300 && status < 400 && status != 304))
        h->flags |= HAR_REDIRECT;
    mime = json_string_value(json_object_get(json_object_get(resp, "content"), "mimeType"));
    if (mime && strncasecmp(mime, "text/html", 9) == 0 &&
        (mime[9] == '\0' || mime[9] == ';' || mime[9] == ' '))
        h->flags |= HAR_HTML;
    if (!h->referer)
        h->flags |= HAR_NOREF;
    h->type = type_of(h, rtype, rq, mime);
    /* A recording of plain http that names no resource types still tells a document: a
     * request that asked for one, as a navigation's Accept does (or that asked for nothing
     * in particular), answered with HTML or sent on elsewhere. */
    if (!rtype && h->dest == HAR_DEST_NONE && (h->flags & (HAR_HTML | HAR_REDIRECT)) &&
        (h->type == BROCK_RESOURCE_MAIN_FRAME ||
         (!rq[RQ_ACCEPT] && h->type == BROCK_RESOURCE_OTHER)))
        h->flags |= HAR_HDOC;
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

int64_t brock__har_time(const char *s)
{
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
    return ((clock_days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + sec) -
            (int64_t)sign * (oh * 3600 + om * 60)) *
               1000 +
           ms;
}

static void read_time(struct har_file *f, size_t i, struct har_entry *h, const json_t *v)
{
    if (!v || json_is_null(v))
        return; /* left out by hand-made files: the place in the file is all there is */
    h->started = brock__har_time(json_string_value(v));
    if (!h->started)
        odd(f, HAR_ODD_TIME, "log.entries[%zu].startedDateTime is not a date and time (ISO 8601)",
            i);
}

void brock__har_read_entry(struct har_file *f, size_t i, json_t *entry, struct har_entry *h)
{
    json_t *req, *resp, *url, *ref;
    char why[64];

    memset(h, 0, sizeof(*h));
    h->flags = HAR_BAD;
    if (!json_is_object(entry)) {
        odd(f, HAR_ODD_ENTRY, "log.entries[%zu] is %s", i,
            not_a(entry, "an object", why, sizeof(why)));
        return;
    }
    req = json_object_get(entry, "request");
    if (!json_is_object(req)) {
        odd(f, HAR_ODD_REQUEST, "log.entries[%zu].request is %s", i,
            not_a(req, "an object", why, sizeof(why)));
        return;
    }
    url = json_object_get(req, "url");
    if (!json_is_string(url)) {
        odd(f, HAR_ODD_URL, "log.entries[%zu].request.url is %s", i,
            not_a(url, "a string", why, sizeof(why)));
        return;
    }
    h->flags = 0;
    h->url = json_string_value(url);
    h->method = json_string_value(json_object_get(req, "method"));
    ref = json_object_get(entry, "pageref");
    if (ref && !json_is_null(ref) && !json_is_string(ref))
        odd(f, HAR_ODD_PAGEREF, "log.entries[%zu].pageref is %s, not a string", i,
            brock__har_kind_of(ref));
    h->pageref = json_string_value(ref);
    if (h->pageref && !*h->pageref)
        h->pageref = NULL;
    h->frameref = json_string_value(json_object_get(entry, "_frameref"));
    h->req_headers = read_pairs(f, i, req, "request", "headers");
    h->req_cookies = read_pairs(f, i, req, "request", "cookies");
    resp = json_object_get(entry, "response");
    if (json_is_object(resp)) {
        h->resp_headers = read_pairs(f, i, resp, "response", "headers");
        h->resp_cookies = read_pairs(f, i, resp, "response", "cookies");
    } else {
        odd(f, HAR_ODD_RESPONSE, "log.entries[%zu].response is %s", i,
            not_a(resp, "an object", why, sizeof(why)));
        resp = NULL;
    }
    read_time(f, i, h, json_object_get(entry, "startedDateTime"));
    classify(h, entry, resp);
}

/* ---- the document ---- */

void brock__har_read_page(struct har_file *f, size_t i, const json_t *pg)
{
    if (!json_is_object(pg) || !json_is_string(json_object_get(pg, "id")))
        odd(f, HAR_ODD_PAGE, "log.pages[%zu] is not an object with a string id", i);
}

/* "missing", or what a part of the document is instead of want. */
static const char *doc_not_a(const char *kind, const char *want, char *buf, size_t n)
{
    if (!kind)
        return "missing";
    snprintf(buf, n, "%s, not %s", kind, want);
    return buf;
}

int brock__har_check(struct brock_engine *e, struct har_file *f, const struct har_doc *doc)
{
    char why[64];

    if (!doc->root || strcmp(doc->root, "an object") != 0)
        return brock__fail(e, BROCK_EFORMAT, "%s: not a HAR: the top level is not an object",
                           f->name);
    if (!doc->log || strcmp(doc->log, "an object") != 0)
        return brock__fail(e, BROCK_EFORMAT, "%s: not a HAR: no \"log\" object", f->name);
    if (!doc->entries || strcmp(doc->entries, "an array") != 0)
        return brock__fail(e, BROCK_EFORMAT, "%s: not a HAR: log.entries is %s", f->name,
                           doc_not_a(doc->entries, "an array", why, sizeof(why)));
    if (f->n == 0)
        return brock__fail(e, BROCK_EFORMAT, "%s: log.entries is empty: nothing to learn", f->name);
    if (f->bad == f->n) {
        const struct har_odd_seen *o = &f->odd[HAR_ODD_ENTRY];

        if (!o->count)
            o = f->odd[HAR_ODD_REQUEST].count ? &f->odd[HAR_ODD_REQUEST] : &f->odd[HAR_ODD_URL];
        return brock__fail(e, BROCK_EFORMAT,
                           "%s: not a HAR: none of its %zu entries can be read: %s", f->name, f->n,
                           o->first);
    }
    if (doc->pages && strcmp(doc->pages, "null") != 0 && strcmp(doc->pages, "an array") != 0)
        odd(f, HAR_ODD_PAGES, "log.pages is %s, not an array", doc->pages);
    return 0;
}
