/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The report channel's keys, tokens and path, and the reading of a report. */
#include "proxy/report.h"

#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

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

int report_token(const struct report_keys *k, const char *host, char *out)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;

    if (!HMAC(EVP_sha256(), k->secret, (int)sizeof(k->secret), (const unsigned char *)host,
              strlen(host), md, &md_len) ||
        md_len * 2 < REPORT_TOKEN_LEN)
        return -1;
    for (size_t i = 0; i < REPORT_TOKEN_LEN / 2; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    OPENSSL_cleanse(md, sizeof(md));
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

static int token_ok(const struct report_keys *k, const char *host, const char *token)
{
    char want[REPORT_TOKEN_LEN + 1];
    int ok;

    if (!token || strlen(token) != REPORT_TOKEN_LEN || report_token(k, host, want) < 0)
        return 0;
    /* In constant time: a page must not find another host's token by timing answers. */
    ok = CRYPTO_memcmp(want, token, REPORT_TOKEN_LEN) == 0;
    OPENSSL_cleanse(want, sizeof(want));
    return ok;
}

static int kind_parse(const char *s, enum report_kind *out)
{
    static const struct {
        const char *name;
        enum report_kind kind;
    } kinds[] = {
        {"frame", REPORT_FRAME}, {"canvas", REPORT_CANVAS}, {"supercookie", REPORT_SUPERCOOKIE}};

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

/* Where a document sits: top, whether it is the top-level page (absent: it is, when
 * optional), and the top-level page's origin that its ancestors name (NULL: none). Returns 0,
 * or -1 when the fields are not such. */
static int place_read(json_t *root, int optional, int *is_top, const char **ancestor)
{
    const char *anc[REPORT_ANCESTORS_MAX];
    json_t *top = json_object_get(root, "top");
    int n = strings(json_object_get(root, "ancestors"), anc, REPORT_ANCESTORS_MAX);

    if (n < 0 || (top ? !json_is_boolean(top) : !optional))
        return -1;
    *is_top = !top || json_is_true(top);
    /* location.ancestorOrigins lists the parent first and the top-level page last. */
    *ancestor = n > 0 && !*is_top ? anc[n - 1] : NULL;
    return 0;
}

/* The fields every report has: where its document sits. */
static int read_place(struct report *r, const char **why)
{
    if (place_read(r->root, 0, &r->top, &r->ancestor) < 0) {
        *why = "a report says top (true or false) and at most 16 ancestors (strings)";
        return 400;
    }
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

int report_read(const struct report_keys *k, const char *host, const char *body, size_t len,
                struct report *r, const char **why)
{
    json_t *token;
    int st;

    memset(r, 0, sizeof(*r));
    /* jansson refuses NUL inside strings unless asked: keys and values are C strings. */
    r->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(r->root)) {
        *why = "a report is a JSON object";
        return 400;
    }
    token = json_object_get(r->root, "token");
    if (!json_is_string(token)) {
        *why = "a report carries its page's token";
        return 400;
    }
    if (!token_ok(k, host, json_string_value(token))) {
        *why = "the report's token is not its host's";
        return 403;
    }
    if (kind_parse(json_string_value(json_object_get(r->root, "kind")), &r->kind) < 0) {
        *why = "a report's kind is frame, canvas or supercookie";
        return 400;
    }
    if ((st = read_place(r, why)) != 0)
        return st;
    if (r->kind == REPORT_CANVAS)
        return read_canvas(r, why);
    if (r->kind == REPORT_SUPERCOOKIE)
        return read_items(r, why);
    return 0;
}

void report_cleanup(struct report *r)
{
    json_decref(r->root);
    r->root = NULL;
}

int report_read_widget(const struct report_keys *k, enum report_path kind, const char *host,
                       const char *body, size_t len, struct report_widget *w, const char **why)
{
    json_t *token, *name, *always;

    memset(w, 0, sizeof(*w));
    w->root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(w->root)) {
        *why = "a widget request is a JSON object";
        return 400;
    }
    token = json_object_get(w->root, "token");
    if (!json_is_string(token)) {
        *why = "a widget request carries its page's token";
        return 400;
    }
    if (!token_ok(k, host, json_string_value(token))) {
        *why = "the widget request's token is not its host's";
        return 403;
    }
    if (place_read(w->root, 1, &w->top, &w->ancestor) < 0) {
        *why = "a widget request may say top (true or false) and at most 16 ancestors (strings)";
        return 400;
    }
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
