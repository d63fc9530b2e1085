/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The report channel's keys, tokens and path, and the reading of a report. */
#include "proxy/report.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "proxy/limits.h"

/* The tokens' layout (report.h); another would get another number. */
#define REPORT_TOKEN_VERSION 1

int report_keys_init(struct report_keys *k)
{
    unsigned char id[8];
    int n;

    memset(k, 0, sizeof(*k));
    if (RAND_bytes(k->secret, sizeof(k->secret)) != 1 || RAND_bytes(id, sizeof(id)) != 1)
        return -1;
    /* Under /.well-known/ (RFC 8615), where a site's own paths do not go, and random, so that
     * a site can neither collide with it by chance nor serve it on purpose to be answered. */
    n = snprintf(k->path, sizeof(k->path), "/.well-known/brock-");
    for (size_t i = 0; i < sizeof(id); i++)
        n += snprintf(k->path + n, sizeof(k->path) - (size_t)n, "%02x", id[i]);
    snprintf(k->path + n, sizeof(k->path) - (size_t)n, "/report");
    snprintf(k->widgets_path, sizeof(k->widgets_path), "%.*swidgets", n + 1, k->path);
    snprintf(k->allow_path, sizeof(k->allow_path), "%.*sallow", n + 1, k->path);
    return 0;
}

void report_keys_cleanup(struct report_keys *k)
{
    OPENSSL_cleanse(k->secret, sizeof(k->secret));
}

/* The MAC of a token's head (len bytes) for a document of host: HMAC-SHA256 under the
 * secret, of a label that keeps it from meaning anything else, the head, and the host. */
static int token_mac(const struct report_keys *k, const unsigned char *head, size_t len,
                     const char *host, unsigned char mac[REPORT_MAC_LEN])
{
    static const char label[] = "brock report token";
    unsigned char in[sizeof(label) + REPORT_TOKEN_HEAD + 2 * (size_t)BROCK_HOST_MAX];
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    size_t host_len = strnlen(host, BROCK_HOST_MAX), n = sizeof(label);
    int ok;

    if (host_len >= BROCK_HOST_MAX || len > REPORT_TOKEN_HEAD + BROCK_HOST_MAX)
        return -1;
    memcpy(in, label, sizeof(label));
    memcpy(in + n, head, len);
    n += len;
    memcpy(in + n, host, host_len);
    n += host_len;
    ok = HMAC(EVP_sha256(), k->secret, (int)sizeof(k->secret), in, n, md, &md_len) &&
         md_len >= REPORT_MAC_LEN;
    if (ok)
        memcpy(mac, md, REPORT_MAC_LEN);
    OPENSSL_cleanse(md, sizeof(md));
    return ok ? 0 : -1;
}

static int flags_ok(unsigned f)
{
    return f == REPORT_DOC_TOP || f == REPORT_DOC_FRAME ||
           f == (REPORT_DOC_FRAME | REPORT_DOC_CROSS);
}

int report_token_make(const struct report_keys *k, const char *host, struct report_doc *d,
                      char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[REPORT_TOKEN_HEAD + BROCK_HOST_MAX + REPORT_MAC_LEN];
    size_t site_len = strnlen(d->site, BROCK_HOST_MAX), n;
    uint64_t t = (uint64_t)d->issued_s;

    if (!flags_ok(d->flags) || site_len == 0 || site_len >= BROCK_HOST_MAX || d->issued_s < 0 ||
        RAND_bytes(raw + 1, 8) != 1)
        return -1;
    raw[0] = REPORT_TOKEN_VERSION;
    d->id = 0;
    for (int i = 0; i < 8; i++) {
        d->id = d->id << 8 | raw[1 + i];
        raw[9 + i] = (unsigned char)(t >> (56 - 8 * i));
    }
    raw[17] = (unsigned char)d->flags;
    raw[18] = (unsigned char)site_len;
    memcpy(raw + REPORT_TOKEN_HEAD, d->site, site_len);
    n = REPORT_TOKEN_HEAD + site_len;
    if (token_mac(k, raw, n, host, raw + n) < 0)
        return -1;
    n += REPORT_MAC_LEN;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[2 * n] = '\0';
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int report_token_check(const struct report_keys *k, const char *host, const char *token,
                       int64_t now_s, struct report_doc *d, const char **why)
{
    unsigned char raw[REPORT_TOKEN_HEAD + BROCK_HOST_MAX + REPORT_MAC_LEN];
    unsigned char mac[REPORT_MAC_LEN];
    size_t len = token ? strnlen(token, REPORT_TOKEN_MAX + 1) : 0, n = len / 2, site_len;
    uint64_t t = 0;
    int ok;

    memset(d, 0, sizeof(*d));
    *why = "the token is not one brock gave a document of this host";
    if (len % 2 || n < REPORT_TOKEN_HEAD + 1 + REPORT_MAC_LEN || len > REPORT_TOKEN_MAX)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(token[2 * i]), lo = hex_digit(token[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return -1;
        raw[i] = (unsigned char)(hi << 4 | lo);
    }
    site_len = raw[18];
    if (raw[0] != REPORT_TOKEN_VERSION || n != REPORT_TOKEN_HEAD + site_len + REPORT_MAC_LEN ||
        token_mac(k, raw, REPORT_TOKEN_HEAD + site_len, host, mac) < 0)
        return -1;
    /* In constant time: a page must not find another host's token by timing answers. */
    ok = CRYPTO_memcmp(mac, raw + REPORT_TOKEN_HEAD + site_len, REPORT_MAC_LEN) == 0;
    OPENSSL_cleanse(mac, sizeof(mac));
    /* What the MAC covers was written by brock: its flags and site are as it gave them. */
    if (!ok || !flags_ok(raw[17]))
        return -1;
    for (int i = 0; i < 8; i++) {
        d->id = d->id << 8 | raw[1 + i];
        t = t << 8 | raw[9 + i];
    }
    if (t > (uint64_t)INT64_MAX)
        return -1;
    d->issued_s = (int64_t)t;
    d->flags = raw[17];
    memcpy(d->site, raw + REPORT_TOKEN_HEAD, site_len);
    d->site[site_len] = '\0';
    /* A page lives a few hours at most; its token no longer. One from the future (the clock
     * turned back) is as doubtful. */
    if (now_s - d->issued_s > LIMIT_REPORT_TOKEN_S || d->issued_s - now_s > LIMIT_CLOCK_SKEW_S) {
        *why = "the token has expired: the page is older than brock lets a page report";
        return -1;
    }
    return 0;
}

int report_is_path(const struct report_keys *k, const char *path, size_t len)
{
    return len == strlen(k->path) && memcmp(path, k->path, len) == 0;
}

enum report_path report_path_of(const struct report_keys *k, const char *path, size_t len)
{
    if (report_is_path(k, path, len))
        return REPORT_PATH_REPORT;
    if (len == strlen(k->widgets_path) && memcmp(path, k->widgets_path, len) == 0)
        return REPORT_PATH_WIDGETS;
    if (len == strlen(k->allow_path) && memcmp(path, k->allow_path, len) == 0)
        return REPORT_PATH_ALLOW;
    return REPORT_PATH_NONE;
}

static int kind_parse(const char *s, enum report_kind *out)
{
    static const struct {
        const char *name;
        enum report_kind kind;
    } kinds[] = {{"canvas", REPORT_CANVAS}, {"supercookie", REPORT_SUPERCOOKIE}};

    for (size_t i = 0; s && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (!strcmp(s, kinds[i].name)) {
            *out = kinds[i].kind;
            return 0;
        }
    }
    return -1;
}

/* An array of at most max strings (absent: none) into out. Returns the count, or -1. */
static int strings(json_t *a, const char **out, size_t max)
{
    size_t i;
    json_t *v;

    if (!a)
        return 0;
    if (!json_is_array(a) || json_array_size(a) > max)
        return -1;
    json_array_foreach(a, i, v) {
        if (!json_is_string(v))
            return -1;
        out[i] = json_string_value(v);
    }
    return (int)json_array_size(a);
}

/* The token of a report or a widget request: a string, that brock gave a document of host. */
static int read_token(const struct report_keys *k, const char *host, int64_t now_s, json_t *root,
                      struct report_doc *d, const char **why)
{
    json_t *token = json_object_get(root, "token");

    if (!json_is_string(token)) {
        *why = "a request of brock's page script carries its document's token";
        return 400;
    }
    if (report_token_check(k, host, json_string_value(token), now_s, d, why) < 0)
        return 403;
    return 0;
}

static int read_canvas(struct report *r, const char **why)
{
    json_t *s = json_object_get(r->root, "script");
    int n = strings(json_object_get(r->root, "writers"), r->writers, REPORT_WRITERS_MAX);

    if (!json_is_string(s) || n < 0) {
        *why = "a canvas report names its script and at most 16 writers (strings)";
        return 400;
    }
    r->script = json_string_value(s);
    r->n_writers = (size_t)n;
    return 0;
}

static int read_items(struct report *r, const char **why)
{
    json_t *o = json_object_get(r->root, "items"), *v;
    const char *key;

    if (!json_is_object(o) || json_object_size(o) > REPORT_ITEMS_MAX) {
        *why = "a supercookie report has items: an object of at most 64 strings";
        return 400;
    }
    json_object_foreach(o, key, v) {
        struct brock_header *h = &r->items[r->n_items++];

        if (!json_is_string(v)) {
            *why = "a supercookie report's items are strings";
            return 400;
        }
        h->name = key;
        h->name_len = strlen(key);
        h->value = json_string_value(v);
        h->value_len = json_string_length(v);
    }
    return 0;
}

int report_read(const struct report_keys *k, const char *host, int64_t now_s, const char *body,
                size_t len, struct report *r, const char **why)
{
    int st;

    memset(r, 0, sizeof(*r));
    /* jansson refuses NUL inside strings unless asked: keys and values are C strings. */
    r->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(r->root)) {
        *why = "a report is a JSON object";
        return 400;
    }
    if ((st = read_token(k, host, now_s, r->root, &r->doc, why)) != 0)
        return st;
    if (kind_parse(json_string_value(json_object_get(r->root, "kind")), &r->kind) < 0) {
        *why = "a report's kind is canvas or supercookie";
        return 400;
    }
    if (r->kind == REPORT_CANVAS)
        return read_canvas(r, why);
    return read_items(r, why);
}

void report_cleanup(struct report *r)
{
    json_decref(r->root);
    r->root = NULL;
}

int report_read_widget(const struct report_keys *k, enum report_path kind, const char *host,
                       int64_t now_s, const char *body, size_t len, struct report_widget *w,
                       const char **why)
{
    json_t *name, *always;
    int st;

    memset(w, 0, sizeof(*w));
    w->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(w->root)) {
        *why = "a widget request is a JSON object";
        return 400;
    }
    if ((st = read_token(k, host, now_s, w->root, &w->doc, why)) != 0)
        return st;
    if (kind != REPORT_PATH_ALLOW)
        return 0;
    name = json_object_get(w->root, "widget");
    always = json_object_get(w->root, "always");
    if (!json_is_string(name) || json_string_length(name) == 0 ||
        json_string_length(name) > REPORT_WIDGET_NAME_MAX || !json_is_boolean(always)) {
        *why = "an allowance names its widget (1 to 128 bytes) and says always (true or false)";
        return 400;
    }
    w->widget = json_string_value(name);
    w->always = json_is_true(always);
    return 0;
}

void report_widget_cleanup(struct report_widget *w)
{
    json_decref(w->root);
    w->root = NULL;
}

int report_holds(const struct report *r, const char **why)
{
    const unsigned f = r->doc.flags;

    /* A same-site frame's token may have been read by its page: a frame sandboxed without
     * scripts never runs brock's script, which would take the token out of the DOM, and a
     * page reads a same-origin frame's DOM. A page must not speak for its scripts through a
     * frame it made; the DOM of another site's frame is out of the page's reach. */
    if (r->kind == REPORT_CANVAS && !(f & REPORT_DOC_TOP) && !(f & REPORT_DOC_CROSS)) {
        *why = "canvas fingerprinting is taken from a top-level page or another site's frame, "
               "never from a frame of the page's own site";
        return 403;
    }
    if (r->kind == REPORT_SUPERCOOKIE && !(f & REPORT_DOC_FRAME)) {
        *why = "a supercookie is a frame's: a top-level page reports none";
        return 403;
    }
    return 0;
}

int report_may_allow(const struct report_doc *d, const char **why)
{
    /* Another site's frame (an ad's) is the page's guest: it must not let widgets load on the
     * page that embeds it, and brock, which sees only HTTP, cannot tell a user's click there
     * from its scripts' request. */
    if (!(d->flags & REPORT_DOC_TOP) && (d->flags & REPORT_DOC_CROSS)) {
        *why = "a widget is allowed from its page or a frame of the page's own site, never "
               "from another site's frame";
        return 403;
    }
    return 0;
}
