/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multi-domain first parties, read from either layout: a JSON array of groups, or a
 * JavaScript file as Debian's release keeps it, multiDomainFirstParties.js, declaring the
 * groups as an array literal. Only that literal is read, with a tokenizer that knows
 * brackets, commas, double-quoted strings without escapes, comments and the '=' and ';'
 * around it: anything else is an error rather than a guess.
 */
#include "data/data.h"

#include <stdint.h>
#include <string.h>

#include <jansson.h>

/* line is 0 for JSON, which has no line to name; "%.0u" prints nothing for a 0. */
int brock__mdfp_add(const struct brock__data_ctx *cx, const char *name, struct strmap *map,
                    const char *dom, size_t n, size_t group, unsigned line)
{
    char key[BROCK_HOST_MAX];
    void *prev;

    if (!n || n >= sizeof(key) || memchr(dom, '\0', n))
        return brock__data_fail(cx, BROCK_EFORMAT,
                                "%s%s%.0u: group %zu has an empty, overlong or "
                                "malformed domain.",
                                name, line ? " line " : "", line, group + 1);
    memcpy(key, dom, n);
    key[n] = '\0';
    prev = strmap_get(map, key);
    if (prev == (void *)(uintptr_t)(group + 1))
        return 0;
    if (prev)
        return brock__data_fail(cx, BROCK_EFORMAT, "%s%s%.0u: %s is in two groups (%zu and %zu).",
                                name, line ? " line " : "", line, key, (size_t)(uintptr_t)prev,
                                group + 1);
    if (strmap_put(map, key, (void *)(uintptr_t)(group + 1)) < 0)
        return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
    return 0;
}

static int mdfp_json(const struct brock__data_ctx *cx, const char *name, const char *text,
                     size_t len, struct strmap *map)
{
    json_error_t jerr;
    json_t *root, *g, *d;
    size_t gi, di;
    int rc = 0;

    root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return brock__data_json_fail(cx, name, &jerr);
    if (!json_is_array(root)) {
        rc = brock__data_fail(cx, BROCK_EFORMAT, "%s is not a JSON array of groups.", name);
        goto out;
    }
    json_array_foreach(root, gi, g) {
        if (!json_is_array(g)) {
            rc =
                brock__data_fail(cx, BROCK_EFORMAT, "%s: group %zu is not an array.", name, gi + 1);
            goto out;
        }
        json_array_foreach(g, di, d) {
            if (!json_is_string(d)) {
                rc =
                    brock__data_fail(cx, BROCK_EFORMAT, "%s: group %zu, entry %zu is not a string.",
                                     name, gi + 1, di + 1);
                goto out;
            }
            rc = brock__mdfp_add(cx, name, map, json_string_value(d), json_string_length(d), gi, 0);
            if (rc < 0)
                goto out;
        }
    }
out:
    json_decref(root);
    return rc;
}

/* The JavaScript variable that holds the groups in Debian's release. */
#define MDFP_JS_NAME "multiDomainFirstPartiesArray"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

enum js_tok { JS_EOF, JS_BAD, JS_LBRACK, JS_RBRACK, JS_COMMA, JS_EQ, JS_SEMI, JS_STRING };

struct js_lex {
    const char *p, *end;
    unsigned line;
    const char *s; /* JS_STRING: the text between the quotes */
    size_t n;
};

static enum js_tok js_next(struct js_lex *lx)
{
    for (;;) {
        while (lx->p < lx->end && is_space(*lx->p)) {
            if (*lx->p == '\n')
                lx->line++;
            lx->p++;
        }
        if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
            continue;
        }
        if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '*') {
            lx->p += 2;
            for (;;) {
                if (lx->end - lx->p < 2)
                    return JS_BAD;
                if (lx->p[0] == '*' && lx->p[1] == '/')
                    break;
                if (*lx->p++ == '\n')
                    lx->line++;
            }
            lx->p += 2;
            continue;
        }
        break;
    }
    if (lx->p >= lx->end)
        return JS_EOF;
    switch (*lx->p++) {
    case '[': return JS_LBRACK;
    case ']': return JS_RBRACK;
    case ',': return JS_COMMA;
    case '=': return JS_EQ;
    case ';': return JS_SEMI;
    case '"':
        lx->s = lx->p;
        while (lx->p < lx->end && *lx->p != '"') {
            if (*lx->p == '\\' || *lx->p == '\n' || (unsigned char)*lx->p < 0x20)
                return JS_BAD;
            lx->p++;
        }
        if (lx->p >= lx->end)
            return JS_BAD;
        lx->n = (size_t)(lx->p++ - lx->s);
        return JS_STRING;
    default: return JS_BAD;
    }
}

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '$';
}

/* Where the declaration's name is: the first whole-word occurrence, or NULL. */
static const char *js_find_name(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    size_t n = strlen(MDFP_JS_NAME);

    while ((p = memmem(p, (size_t)(end - p), MDFP_JS_NAME, n))) {
        if ((p == text || !is_ident_char(p[-1])) && (p + n == end || !is_ident_char(p[n])))
            return p;
        p += n;
    }
    return NULL;
}

static int js_fail(const struct brock__data_ctx *cx, const char *name, const struct js_lex *lx,
                   const char *what)
{
    return brock__data_fail(cx, BROCK_EFORMAT, "%s line %u: %s in the " MDFP_JS_NAME " literal.",
                            name, lx->line, what);
}

static int mdfp_js_read(const struct brock__data_ctx *cx, const char *name, const char *text,
                        size_t len, struct strmap *map)
{
    struct js_lex lx = {0};
    const char *at = js_find_name(text, len);
    size_t group = 0;
    enum js_tok t;
    int rc;

    if (!at)
        return brock__data_fail(cx, BROCK_EFORMAT, "%s does not declare " MDFP_JS_NAME ".", name);
    lx.p = at + strlen(MDFP_JS_NAME);
    lx.end = text + len;
    lx.line = 1;
    for (const char *q = text; q < at; q++)
        lx.line += *q == '\n';
    if (js_next(&lx) != JS_EQ || js_next(&lx) != JS_LBRACK)
        return js_fail(cx, name, &lx, "expected '= ['");
    for (;;) {
        t = js_next(&lx);
        if (t == JS_RBRACK)
            break;
        if (t != JS_LBRACK)
            return js_fail(cx, name, &lx, "expected a group ('[') or ']'");
        for (;;) {
            t = js_next(&lx);
            if (t == JS_RBRACK)
                break;
            if (t != JS_STRING)
                return js_fail(cx, name, &lx, "expected a double-quoted domain or ']'");
            rc = brock__mdfp_add(cx, name, map, lx.s, lx.n, group, lx.line);
            if (rc < 0)
                return rc;
            t = js_next(&lx);
            if (t == JS_RBRACK)
                break;
            if (t != JS_COMMA)
                return js_fail(cx, name, &lx, "expected ',' or ']' after a domain");
        }
        group++;
        t = js_next(&lx);
        if (t == JS_RBRACK)
            break;
        if (t != JS_COMMA)
            return js_fail(cx, name, &lx, "expected ',' or ']' after a group");
    }
    if (js_next(&lx) != JS_SEMI)
        return js_fail(cx, name, &lx, "expected ';' after the array");
    return 0;
}

int brock__mdfp_read(const struct brock__data_ctx *cx, const char *name, const char *text,
                     size_t len, struct strmap *map)
{
    size_t i = 0;

    while (i < len && is_space(text[i]))
        i++;
    if (i < len && text[i] == '[')
        return mdfp_json(cx, name, text, len, map);
    return mdfp_js_read(cx, name, text, len, map);
}

int brock__mdfp_install(const struct brock__data_ctx *cx, struct brock_lists *l, const char *name,
                        const char *text, size_t len)
{
    struct strmap map;
    int rc;

    strmap_init(&map);
    rc = brock__mdfp_read(cx, name, text, len, &map);
    if (rc < 0) {
        strmap_cleanup(&map, NULL);
        return rc;
    }
    strmap_cleanup(&l->mdfp, NULL);
    l->mdfp = map;
    return 0;
}
