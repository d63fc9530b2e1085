/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's surrogates: the rules (which URLs of which hosts a stand-in replaces) and
 * the bodies, read from the current layout (surrogate-rules.json, each body a file of
 * web_accessible_resources/) or, through surrogate_js.c, from Debian's surrogates.js; and the
 * match of one request (Privacy Badger's getSurrogateUri).
 */
#include "data/surrogate.h"

#include <string.h>

#include "util/alloc.h"
#include "util/hex.h"
#include "util/strvec.h"

struct sg_param {
    char *name;
    char *value; /* NULL: the parameter must be present and not empty */
};

struct sg_rule {
    enum brock__sg_match match;
    int stylesheet; /* resourceType "stylesheet": answers stylesheets only */
    char *widget;   /* widgetName, or NULL */
    struct strvec tokens;
    size_t n_params;
    struct sg_param *params;
};

struct sg_body {
    size_t len;
    char text[];
};

struct brock__surrogates {
    struct strmap rules;  /* host → struct sg_rule */
    struct strmap bodies; /* token → struct sg_body */
};

/* ---- the set ---- */

static void rule_free(void *p)
{
    struct sg_rule *r = p;

    if (!r)
        return;
    strvec_cleanup(&r->tokens);
    for (size_t i = 0; i < r->n_params; i++) {
        mem_free(r->params[i].name);
        mem_free(r->params[i].value);
    }
    mem_free(r->params);
    mem_free(r->widget);
    mem_free(r);
}

int brock__surrogates_new(struct brock__surrogates **out)
{
    struct brock__surrogates *s = mem_calloc(1, sizeof(*s));

    *out = s;
    if (!s)
        return BROCK_ENOMEM;
    strmap_init(&s->rules);
    strmap_init(&s->bodies);
    return 0;
}

void brock__surrogates_free(struct brock__surrogates *s)
{
    if (!s)
        return;
    strmap_cleanup(&s->rules, rule_free);
    strmap_cleanup(&s->bodies, mem_free);
    mem_free(s);
}

/* host's rule, made with match when missing; NULL when out of memory. */
static struct sg_rule *rule_ensure(struct brock__surrogates *s, const char *host,
                                   enum brock__sg_match match)
{
    struct sg_rule *r = strmap_get(&s->rules, host);

    if (r)
        return r;
    r = mem_calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->match = match;
    if (strmap_put(&s->rules, host, r) < 0) {
        mem_free(r);
        return NULL;
    }
    return r;
}

int brock__surrogates_add_token(struct brock__surrogates *s, const char *host,
                                enum brock__sg_match match, const char *token)
{
    struct sg_rule *r = rule_ensure(s, host, match);

    if (!r)
        return BROCK_ENOMEM;
    if (r->match != match)
        return BROCK_EFORMAT;
    return strvec_push(&r->tokens, token) < 0 ? BROCK_ENOMEM : 0;
}

int brock__surrogates_set_body(struct brock__surrogates *s, const char *token, const char *text,
                               size_t len)
{
    struct sg_body *b = mem_malloc(sizeof(*b) + len + 1), *old;

    if (!b)
        return BROCK_ENOMEM;
    b->len = len;
    memcpy(b->text, text, len);
    b->text[len] = '\0';
    old = strmap_get(&s->bodies, token);
    if (strmap_put(&s->bodies, token, b) < 0) {
        mem_free(b);
        return BROCK_ENOMEM;
    }
    mem_free(old);
    return 0;
}

const char *brock__surrogates_body(const struct brock__surrogates *s, const char *token,
                                   size_t *len)
{
    const struct sg_body *b = s ? strmap_get(&s->bodies, token) : NULL;

    *len = b ? b->len : 0;
    return b ? b->text : NULL;
}

void brock__surrogates_counts(const struct brock__surrogates *s, size_t *hosts, size_t *bodies)
{
    *hosts = s ? s->rules.len : 0;
    *bodies = s ? s->bodies.len : 0;
}

/* ---- matching ---- */

/* The parts of an http(s) URL the rules look at, as views into it. */
struct url_parts {
    size_t no_query; /* the length of the URL without its query and fragment */
    const char *path;
    size_t path_len;
    const char *query; /* after '?', up to '#' */
    size_t query_len;
};

static void url_split(const char *url, struct url_parts *u)
{
    const char *auth = strstr(url, "//"), *p, *q;

    u->no_query = strcspn(url, "?#");
    p = auth && (size_t)(auth - url) < u->no_query ? auth + 2 : url;
    p += strcspn(p, "/?#");
    u->path = p;
    u->path_len = strcspn(p, "?#");
    q = p + u->path_len;
    u->query = *q == '?' ? q + 1 : q;
    u->query_len = strcspn(u->query, "#");
}

/* Whether the form-encoded text s (n bytes) decodes to exactly want, as URLSearchParams
 * decodes: '+' is a space, %XX a byte, a bad escape itself. */
static int form_equal(const char *s, size_t n, const char *want)
{
    size_t j = 0;

    for (size_t i = 0; i < n; i++, j++) {
        int c = (unsigned char)s[i];
        if (c == '+')
            c = ' ';
        else if (c == '%' && i + 2 < n && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
            c = hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]);
            i += 2;
        }
        if (!want[j] || (unsigned char)want[j] != c)
            return 0;
    }
    return want[j] == '\0';
}

/* URLSearchParams.get(name): the first pair named name; *val and *vlen its raw value.
 * Returns 1 when there is one. */
static int query_get(const struct url_parts *u, const char *name, const char **val, size_t *vlen)
{
    const char *p = u->query, *end = u->query + u->query_len;

    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p)), *stop = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        const char *kend = eq ? eq : stop;

        if (kend > p && form_equal(p, (size_t)(kend - p), name)) {
            *val = eq ? eq + 1 : stop;
            *vlen = (size_t)(stop - *val);
            return 1;
        }
        p = amp ? amp + 1 : end;
    }
    return 0;
}

/* Privacy Badger asks that a parameter listed as true have a value (qs.get(key) is truthy),
 * and that one listed with a string have exactly it. */
static int params_match(const struct sg_rule *r, const struct url_parts *u)
{
    for (size_t i = 0; i < r->n_params; i++) {
        const char *val;
        size_t vlen;

        if (!query_get(u, r->params[i].name, &val, &vlen))
            return 0;
        if (!r->params[i].value ? vlen == 0 : !form_equal(val, vlen, r->params[i].value))
            return 0;
    }
    return 1;
}

static const char *token_match(const struct sg_rule *r, const char *url)
{
    struct url_parts u;

    if (r->match == BROCK__SG_ANY)
        return r->tokens.n ? r->tokens.v[0] : NULL;
    if (!url)
        return NULL;
    url_split(url, &u);
    for (size_t i = 0; i < r->tokens.n; i++) {
        const char *t = r->tokens.v[i];
        size_t n = strlen(t);

        if (r->match == BROCK__SG_SUFFIX) {
            if (n <= u.no_query && !memcmp(url + u.no_query - n, t, n))
                return t;
            continue;
        }
        if (n > u.path_len || memcmp(u.path, t, n) != 0)
            continue;
        if (r->match == BROCK__SG_PREFIX || params_match(r, &u))
            return t;
        /* With parameters Privacy Badger stops at the first prefix that matches. */
        return NULL;
    }
    return NULL;
}

const char *brock__surrogates_find(const struct brock__surrogates *s, const char *host,
                                   const char *url, enum brock_resource_type type,
                                   int (*excluded)(void *arg, const char *widget), void *arg,
                                   size_t *len, const char **token)
{
    const struct sg_rule *r = s ? strmap_get(&s->rules, host) : NULL;
    const struct sg_body *b;
    const char *t;

    *len = 0;
    *token = NULL;
    if (!r)
        return NULL;
    if (type != (r->stylesheet ? BROCK_RESOURCE_STYLESHEET : BROCK_RESOURCE_SCRIPT))
        return NULL;
    if (r->widget && excluded && excluded(arg, r->widget))
        return NULL;
    t = token_match(r, url);
    b = t ? strmap_get(&s->bodies, t) : NULL;
    if (!b)
        return NULL;
    *len = b->len;
    *token = t;
    return b->text;
}

/* ---- the current layout: surrogate-rules.json and web_accessible_resources/ ---- */

static const char *const match_names[] = {
    [BROCK__SG_SUFFIX] = "suffix",
    [BROCK__SG_PREFIX] = "prefix",
    [BROCK__SG_PARAMS] = "prefix_params",
    [BROCK__SG_ANY] = "any",
};

static int rule_fail(const struct brock__data_ctx *cx, const char *name, const char *host,
                     const char *what)
{
    return brock__data_fail(cx, BROCK_EFORMAT, "%s: the rule of \"%.80s\" %s.", name, host, what);
}

static int token_valid(const char *t)
{
    size_t n = strlen(t);

    return n > 0 && n <= BROCK__SURROGATE_TOKEN_MAX;
}

static int rule_tokens(const struct brock__data_ctx *cx, const char *name, const char *key,
                       const char *host, json_t *v, enum brock__sg_match match,
                       struct brock__surrogates *s)
{
    json_t *tokens = json_object_get(v, match == BROCK__SG_ANY ? "token" : "tokens");
    const char *bad = match == BROCK__SG_ANY ? "has no \"token\" of 1 to 127 characters"
                                             : "has no \"tokens\" array of strings of 1 to 127 "
                                               "characters";
    size_t i, n = match == BROCK__SG_ANY ? 1 : json_array_size(tokens);

    if (match == BROCK__SG_ANY ? !json_is_string(tokens) : !json_is_array(tokens) || !n)
        return rule_fail(cx, name, key, bad);
    for (i = 0; i < n; i++) {
        json_t *t = match == BROCK__SG_ANY ? tokens : json_array_get(tokens, i);
        int rc;

        if (!json_is_string(t) || !token_valid(json_string_value(t)) ||
            strlen(json_string_value(t)) != json_string_length(t))
            return rule_fail(cx, name, key, bad);
        rc = brock__surrogates_add_token(s, host, match, json_string_value(t));
        if (rc == BROCK_EFORMAT)
            return rule_fail(cx, name, key, "repeats a host with another kind of match");
        if (rc < 0)
            return brock__data_fail(cx, rc, "Out of memory while reading %s.", name);
    }
    return 0;
}

static int rule_params(const struct brock__data_ctx *cx, const char *name, const char *key,
                       struct sg_rule *r, json_t *params)
{
    const char *pname;
    json_t *pv;

    if (!json_is_object(params))
        return rule_fail(cx, name, key, "has no \"params\" object");
    r->params = mem_calloc(json_object_size(params), sizeof(*r->params));
    if (!r->params)
        return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
    json_object_foreach(params, pname, pv) {
        struct sg_param *p = &r->params[r->n_params];

        if (!json_is_true(pv) && !json_is_string(pv))
            return rule_fail(cx, name, key, "has a parameter that is neither true nor a string");
        p->name = mem_strdup(pname);
        p->value = json_is_string(pv) ? mem_strdup(json_string_value(pv)) : NULL;
        r->n_params++;
        if (!p->name || (json_is_string(pv) && !p->value))
            return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
    }
    return 0;
}

static int read_rule(const struct brock__data_ctx *cx, const char *name, const char *key, json_t *v,
                     struct brock__surrogates *s)
{
    char host[BROCK_HOST_MAX];
    json_t *m = json_object_get(v, "match"), *rt, *wn;
    struct sg_rule *r;
    size_t match;
    int rc;

    if (brock_host_normalize(key, strlen(key), host) < 0)
        return rule_fail(cx, name, key, "is not for a host name");
    if (!json_is_object(v))
        return rule_fail(cx, name, key, "is not an object");
    for (match = 0; match < sizeof(match_names) / sizeof(match_names[0]); match++)
        if (json_is_string(m) && !strcmp(json_string_value(m), match_names[match]))
            break;
    if (match == sizeof(match_names) / sizeof(match_names[0]))
        return rule_fail(cx, name, key, "has no \"match\" of suffix, prefix, prefix_params or any");
    if ((rc = rule_tokens(cx, name, key, host, v, (enum brock__sg_match)match, s)) < 0)
        return rc;
    r = strmap_get(&s->rules, host);
    if (match == BROCK__SG_PARAMS && !r->params &&
        (rc = rule_params(cx, name, key, r, json_object_get(v, "params"))) < 0)
        return rc;
    rt = json_object_get(v, "resourceType");
    wn = json_object_get(v, "widgetName");
    if ((rt && !json_is_string(rt)) || (wn && !json_is_string(wn)))
        return rule_fail(cx, name, key,
                         "has a \"resourceType\" or \"widgetName\" that is not a "
                         "string");
    r->stylesheet = rt && !strcmp(json_string_value(rt), "stylesheet");
    if (wn && !r->widget && !(r->widget = mem_strdup(json_string_value(wn))))
        return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
    return 0;
}

/* The file a token's resource path names, relative to the data folder:
 * "/data/web_accessible_resources/NAME" (or without "/data") gives
 * "web_accessible_resources/NAME", NAME one plain file name. NULL for anything else. */
static const char *resource_file(const char *res)
{
    static const char dir[] = "web_accessible_resources/";
    const char *f;

    if (*res == '/')
        res++;
    if (!strncmp(res, "data/", 5))
        res += 5;
    if (strncmp(res, dir, sizeof(dir) - 1) != 0)
        return NULL;
    f = res + sizeof(dir) - 1;
    if (!*f || *f == '.' || strchr(f, '/') || strchr(f, '\\'))
        return NULL;
    return res;
}

static int read_bodies(const struct brock__data_ctx *cx, const char *name, json_t *tokens,
                       struct brock__surrogates *s)
{
    const char *token;
    json_t *v;

    json_object_foreach(tokens, token, v) {
        const char *file = json_is_string(v) ? resource_file(json_string_value(v)) : NULL;
        char path[4096], *text = NULL;
        size_t len;
        int rc;

        if (!file)
            return brock__data_fail(cx, BROCK_EFORMAT,
                                    "%s: the resource of token \"%.80s\" is not "
                                    "a file of web_accessible_resources/.",
                                    name, token);
        if (!token_valid(token))
            return brock__data_fail(cx, BROCK_EFORMAT,
                                    "%s: token \"%.80s\" is empty or longer than "
                                    "%d characters.",
                                    name, token, BROCK__SURROGATE_TOKEN_MAX);
        rc = cx->read(cx->arg, file, path, &text, &len);
        if (rc == 1)
            rc = brock__surrogates_set_body(s, token, text, len) < 0
                     ? brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", path)
                     : 0;
        mem_free(text);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int read_rules_json(const struct brock__data_ctx *cx, const char *name, const char *text,
                           size_t len, struct brock__surrogates *s)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr), *hosts, *tokens, *v;
    const char *key;
    int rc = 0;

    if (!root)
        return brock__data_json_fail(cx, name, &jerr);
    hosts = json_object_get(root, "hostnames");
    tokens = json_object_get(root, "tokens");
    if (!json_is_object(hosts) || !json_is_object(tokens)) {
        rc = brock__data_fail(cx, BROCK_EFORMAT,
                              "%s: \"hostnames\" and \"tokens\" must both be objects.", name);
        goto out;
    }
    json_object_foreach(hosts, key, v) {
        if ((rc = read_rule(cx, name, key, v, s)) < 0)
            goto out;
    }
    rc = read_bodies(cx, name, tokens, s);
out:
    json_decref(root);
    return rc;
}

int brock__surrogates_load(const struct brock__data_ctx *cx, struct brock__surrogates **out)
{
    struct brock__surrogates *s = NULL;
    char path[4096], *text = NULL;
    size_t len = 0;
    int js = 0, rc;

    *out = NULL;
    rc = cx->read(cx->arg, "surrogate-rules.json", path, &text, &len);
    if (rc == 0) {
        js = 1;
        rc = cx->read(cx->arg, "surrogates.js", path, &text, &len);
    }
    if (rc <= 0)
        return rc;
    if (brock__surrogates_new(&s) < 0) {
        rc = brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", path);
        goto out;
    }
    rc = js ? brock__surrogates_js_read(cx, path, text, len, s)
            : read_rules_json(cx, path, text, len, s);
out:
    mem_free(text);
    if (rc < 0) {
        brock__surrogates_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

/* ---- surrogates.js's reformatting ---- */

size_t brock__surrogate_reformat(const char *in, size_t len, char *out)
{
    static const char fn_space[] = "(function (";
    size_t r = 0, w = 0, n;

    /* The copies below only ever shrink, so out may be in. */
    if (len >= sizeof(fn_space) - 1 && !memcmp(in, fn_space, sizeof(fn_space) - 1)) {
        memmove(out, "(function(", 10);
        r = sizeof(fn_space) - 1;
        w = 10;
    }
    /* Lines split at every CR and LF, each losing 4 leading spaces, joined with LF. */
    for (int line_start = w == 0; r < len; line_start = 1) {
        if (line_start && r + 4 <= len && !memcmp(in + r, "    ", 4))
            r += 4;
        while (r < len && in[r] != '\n' && in[r] != '\r')
            out[w++] = in[r++];
        if (r < len) {
            out[w++] = '\n';
            r++;
        }
    }
    n = w;
    /* Every two spaces in a row, from the left, become a tab. */
    for (r = w = 0; r < n; w++) {
        if (r + 1 < n && out[r] == ' ' && out[r + 1] == ' ') {
            out[w] = '\t';
            r += 2;
        } else {
            out[w] = out[r++];
        }
    }
    out[w] = '\0';
    return w;
}

void brock__surrogates_reformat_all(struct brock__surrogates *s)
{
    size_t it = 0;
    void *v;

    while (strmap_next(&s->bodies, &it, NULL, &v)) {
        struct sg_body *b = v;
        b->len = brock__surrogate_reformat(b->text, b->len, b->text);
    }
}
