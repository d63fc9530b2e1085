/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The multi-domain first parties as Debian's release keeps them: a JavaScript file,
 * multiDomainFirstParties.js, declaring the groups as an array literal. Only that literal is
 * read, with a tokenizer that knows brackets, commas, double-quoted strings without escapes,
 * comments and the '=' and ';' around it: anything else is an error rather than a guess.
 */
#include "engine/engine.h"

#include <string.h>

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

static int js_fail(struct brock_engine *e, const char *name, const struct js_lex *lx,
                   const char *what)
{
    return brock__fail(e, BROCK_EFORMAT, "%s line %u: %s in the " MDFP_JS_NAME " literal.", name,
                       lx->line, what);
}

int brock__mdfp_js_read(struct brock_engine *e, const char *name, const char *text, size_t len,
                        struct strmap *map)
{
    struct js_lex lx = {0};
    const char *at = js_find_name(text, len);
    size_t group = 0;
    enum js_tok t;
    int rc;

    if (!at)
        return brock__fail(e, BROCK_EFORMAT, "%s does not declare " MDFP_JS_NAME ".", name);
    lx.p = at + strlen(MDFP_JS_NAME);
    lx.end = text + len;
    lx.line = 1;
    for (const char *q = text; q < at; q++)
        lx.line += *q == '\n';
    if (js_next(&lx) != JS_EQ || js_next(&lx) != JS_LBRACK)
        return js_fail(e, name, &lx, "expected '= ['");
    for (;;) {
        t = js_next(&lx);
        if (t == JS_RBRACK)
            break;
        if (t != JS_LBRACK)
            return js_fail(e, name, &lx, "expected a group ('[') or ']'");
        for (;;) {
            t = js_next(&lx);
            if (t == JS_RBRACK)
                break;
            if (t != JS_STRING)
                return js_fail(e, name, &lx, "expected a double-quoted domain or ']'");
            rc = brock__mdfp_add(e, name, map, lx.s, lx.n, group, lx.line);
            if (rc < 0)
                return rc;
            t = js_next(&lx);
            if (t == JS_RBRACK)
                break;
            if (t != JS_COMMA)
                return js_fail(e, name, &lx, "expected ',' or ']' after a domain");
        }
        group++;
        t = js_next(&lx);
        if (t == JS_RBRACK)
            break;
        if (t != JS_COMMA)
            return js_fail(e, name, &lx, "expected ',' or ']' after a group");
    }
    if (js_next(&lx) != JS_SEMI)
        return js_fail(e, name, &lx, "expected ';' after the array");
    return 0;
}
