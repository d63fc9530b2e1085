/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Debian's surrogates.js (Privacy Badger 2020.10.7), read without running it: a tokenizer for
 * what such a file holds (comments, string and template literals, regular expressions,
 * balanced braces), which finds the `hostnames` and `surrogates` objects, the aliases
 * assigned after them, and whether the file reformats its bodies. A surrogate's value is
 * string literals and function expressions joined with `+`; a function's value as a string
 * is its source text exactly as written. Anything else is an error naming the file and line.
 */
#include "data/surrogate.h"

#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/hex.h"
#include "util/strvec.h"

/* A body is at most the file's size; the buffer's limit only guards the arithmetic. */
#define BODY_MAX ((size_t)64 << 20)

struct lex {
    const struct brock__data_ctx *cx;
    struct brock__surrogates *s;
    const char *name;
    const char *p, *end;
    unsigned line;
    int regex_ok; /* a '/' here starts a regular expression, not a division */
    const char *begin;
};

static int lx_fail(struct lex *lx, const char *what)
{
    return brock__data_fail(lx->cx, BROCK_EFORMAT, "%s line %u: %s.", lx->name, lx->line, what);
}

static int lx_oom(struct lex *lx)
{
    return brock__data_fail(lx->cx, BROCK_ENOMEM, "Out of memory while reading %s.", lx->name);
}

static int is_word_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
           (unsigned char)c >= 0x80;
}

static int is_word(char c)
{
    return is_word_start(c) || (c >= '0' && c <= '9');
}

/* One character on, counting lines. */
static void step(struct lex *lx)
{
    if (*lx->p == '\n')
        lx->line++;
    lx->p++;
}

/* Skips white space and comments. */
static int skip_space(struct lex *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;

        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
            step(lx);
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            unsigned line = lx->line;
            lx->p += 2;
            while (lx->p + 1 < lx->end && !(lx->p[0] == '*' && lx->p[1] == '/'))
                step(lx);
            if (lx->p + 1 >= lx->end) {
                lx->line = line;
                return lx_fail(lx, "a comment is never closed");
            }
            lx->p += 2;
        } else {
            break;
        }
    }
    return 0;
}

/* ---- string literals ---- */

/* n hex digits at p, or -1. */
static long hex_digits(const char *p, const char *end, int n)
{
    long v = 0;

    for (int i = 0; i < n; i++) {
        if (p + i >= end || hex_digit(p[i]) < 0)
            return -1;
        v = v * 16 + hex_digit(p[i]);
    }
    return v;
}

static int put_utf8(struct buf *out, unsigned long cp)
{
    char u[4];
    size_t n;

    /* A lone UTF-16 surrogate has no UTF-8 form. */
    if (cp >= 0xd800 && cp <= 0xdfff)
        cp = 0xfffd;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return buf_append(out, u, n);
}

/* \u escapes: XXXX or {X...}; a high surrogate joins the \uXXXX low one after it. Moves p past
 * the escape's digits. Returns the code point or -1. */
static long unicode_escape(struct lex *lx)
{
    long cp, lo;

    if (lx->p < lx->end && *lx->p == '{') {
        const char *close = memchr(lx->p, '}', (size_t)(lx->end - lx->p));
        int n = close ? (int)(close - lx->p - 1) : 0;
        if (n < 1 || n > 6 || (cp = hex_digits(lx->p + 1, close, n)) < 0 || cp > 0x10ffff)
            return -1;
        lx->p = close + 1;
        return cp;
    }
    if ((cp = hex_digits(lx->p, lx->end, 4)) < 0)
        return -1;
    lx->p += 4;
    if (cp >= 0xd800 && cp <= 0xdbff && lx->end - lx->p >= 6 && lx->p[0] == '\\' &&
        lx->p[1] == 'u' && (lo = hex_digits(lx->p + 2, lx->end, 4)) >= 0xdc00 && lo <= 0xdfff) {
        lx->p += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    return cp;
}

/* One escape after a backslash, decoded into out (NULL: only skipped). */
static int string_escape(struct lex *lx, struct buf *out)
{
    static const char from[] = "nrtbfv0", to[] = "\n\r\t\b\f\v";
    char c = *lx->p;
    const char *m = strchr(from, c);
    long cp;

    if (c == '\n' || c == '\r') { /* a line continuation: nothing */
        step(lx);
        if (c == '\r' && lx->p < lx->end && *lx->p == '\n')
            step(lx);
        return 0;
    }
    lx->p++;
    if (m && c) {
        char v = '\0';
        if (c != '0')
            v = to[m - from];
        return out && buf_append(out, &v, 1) < 0 ? lx_oom(lx) : 0;
    }
    if (c == 'x' || c == 'u') {
        cp = c == 'x' ? hex_digits(lx->p, lx->end, 2) : unicode_escape(lx);
        if (cp < 0)
            return lx_fail(lx, "a string has a malformed \\x or \\u escape");
        if (c == 'x')
            lx->p += 2;
        return out && put_utf8(out, (unsigned long)cp) < 0 ? lx_oom(lx) : 0;
    }
    return out && buf_append(out, &c, 1) < 0 ? lx_oom(lx) : 0;
}

/* A '...' or "..." literal at p, its value appended to out (NULL: skipped). */
static int read_string(struct lex *lx, struct buf *out)
{
    char q = *lx->p++;

    while (lx->p < lx->end && *lx->p != q) {
        const char *run = lx->p;
        int rc;

        if (*lx->p == '\n' || *lx->p == '\r')
            return lx_fail(lx, "a string runs past the end of its line");
        if (*lx->p == '\\') {
            lx->p++;
            if (lx->p >= lx->end)
                break;
            if ((rc = string_escape(lx, out)) < 0)
                return rc;
            continue;
        }
        while (lx->p < lx->end && *lx->p != q && *lx->p != '\\' && *lx->p != '\n' && *lx->p != '\r')
            lx->p++;
        if (out && buf_append(out, run, (size_t)(lx->p - run)) < 0)
            return lx_oom(lx);
    }
    if (lx->p >= lx->end)
        return lx_fail(lx, "a string is never closed");
    lx->p++;
    lx->regex_ok = 0;
    return 0;
}

/* ---- skipping code: regular expressions, templates, groups ---- */

static int skip_group(struct lex *lx, char open, char close);

/* A regular expression literal at '/': up to the '/' that is neither escaped nor in a class,
 * then its flags. */
static int skip_regex(struct lex *lx)
{
    int in_class = 0;

    lx->p++;
    while (lx->p < lx->end && (in_class || *lx->p != '/')) {
        if (*lx->p == '\n' || *lx->p == '\r')
            return lx_fail(lx, "a regular expression runs past the end of its line");
        if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] != '\n')
            lx->p++;
        else if (*lx->p == '[')
            in_class = 1;
        else if (*lx->p == ']')
            in_class = 0;
        lx->p++;
    }
    if (lx->p >= lx->end)
        return lx_fail(lx, "a regular expression is never closed");
    lx->p++;
    while (lx->p < lx->end && is_word(*lx->p))
        lx->p++;
    lx->regex_ok = 0;
    return 0;
}

/* A template literal at '`', its ${...} parts skipped as code. */
static int skip_template(struct lex *lx)
{
    unsigned line = lx->line;
    int rc;

    lx->p++;
    while (lx->p < lx->end && *lx->p != '`') {
        if (*lx->p == '\\' && lx->p + 1 < lx->end) {
            lx->p++;
            step(lx);
        } else if (*lx->p == '$' && lx->p + 1 < lx->end && lx->p[1] == '{') {
            lx->p++;
            if ((rc = skip_group(lx, '{', '}')) < 0)
                return rc;
        } else {
            step(lx);
        }
    }
    if (lx->p >= lx->end) {
        lx->line = line;
        return lx_fail(lx, "a template string is never closed");
    }
    lx->p++;
    lx->regex_ok = 0;
    return 0;
}

/* Words after which an expression, so a regular expression, may follow. */
static int word_before_expr(const char *w, size_t n)
{
    static const char *const words[] = {"return", "typeof",     "case",  "do",     "else",
                                        "in",     "of",         "new",   "delete", "void",
                                        "throw",  "instanceof", "yield", "await"};

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strlen(words[i]) == n && !memcmp(words[i], w, n))
            return 1;
    return 0;
}

/* One token of code: a literal skipped, a word or number read, or one punctuator. */
static int skip_token(struct lex *lx)
{
    const char *w = lx->p;
    char c = *lx->p;

    if (c == '"' || c == '\'')
        return read_string(lx, NULL);
    if (c == '`')
        return skip_template(lx);
    if (c == '/' && lx->regex_ok)
        return skip_regex(lx);
    if (is_word(c)) {
        while (lx->p < lx->end && (is_word(*lx->p) || (c >= '0' && c <= '9' && *lx->p == '.')))
            lx->p++;
        lx->regex_ok = word_before_expr(w, (size_t)(lx->p - w));
        return 0;
    }
    lx->p++;
    lx->regex_ok = !(c == ')' || c == ']');
    return 0;
}

/* A group at open ('{' or '('), up to its matching close, whatever code is inside. */
static int skip_group(struct lex *lx, char open, char close)
{
    unsigned line = lx->line;
    int depth = 0, rc;

    for (;;) {
        if ((rc = skip_space(lx)) < 0)
            return rc;
        if (lx->p >= lx->end) {
            lx->line = line;
            return lx_fail(lx, open == '{' ? "a { is never closed" : "a ( is never closed");
        }
        if (*lx->p == open)
            depth++;
        else if (*lx->p == close && --depth == 0) {
            lx->p++;
            lx->regex_ok = close == '}';
            return 0;
        }
        if ((rc = skip_token(lx)) < 0)
            return rc;
    }
}

/* ---- the objects ---- */

/* Whether the word w is next (after white space and comments); moves past it if so. */
static int next_word(struct lex *lx, const char *w)
{
    size_t n = strlen(w);
    struct lex save = *lx;

    if (skip_space(lx) == 0 && lx->end - lx->p >= (long)n && !memcmp(lx->p, w, n) &&
        (lx->p + n == lx->end || !is_word(lx->p[n]))) {
        lx->p += n;
        lx->regex_ok = 0;
        return 1;
    }
    *lx = save;
    return 0;
}

/* Whether the character c is next; moves past it if so. */
static int next_char(struct lex *lx, char c)
{
    struct lex save = *lx;

    if (skip_space(lx) == 0 && lx->p < lx->end && *lx->p == c) {
        lx->p++;
        lx->regex_ok = !(c == ')' || c == ']');
        return 1;
    }
    *lx = save;
    return 0;
}

/* An object key: a string literal or a plain name, into out (emptied first). */
static int read_key(struct lex *lx, struct buf *out, const char *what)
{
    const char *w;
    int rc;

    buf_reset(out);
    if ((rc = skip_space(lx)) < 0)
        return rc;
    if (lx->p < lx->end && (*lx->p == '"' || *lx->p == '\''))
        rc = read_string(lx, out);
    else if (lx->p < lx->end && is_word_start(*lx->p)) {
        for (w = lx->p; lx->p < lx->end && is_word(*lx->p);)
            lx->p++;
        rc = buf_append(out, w, (size_t)(lx->p - w)) < 0 ? lx_oom(lx) : 0;
    } else
        return lx_fail(lx, what);
    if (rc == 0 && out->len && memchr(out->data, '\0', out->len))
        rc = lx_fail(lx, "a key holds a NUL character");
    return rc;
}

/* A token (string literal) of hostnames, into tok, checked. */
static int read_token(struct lex *lx, struct buf *tok)
{
    int rc;

    buf_reset(tok);
    if ((rc = skip_space(lx)) < 0)
        return rc;
    if (lx->p >= lx->end || (*lx->p != '"' && *lx->p != '\''))
        return lx_fail(lx, "a surrogate token (a string) is expected");
    if ((rc = read_string(lx, tok)) < 0)
        return rc;
    if (!tok->len || tok->len > BROCK__SURROGATE_TOKEN_MAX || memchr(tok->data, '\0', tok->len))
        return lx_fail(lx, "a surrogate token is empty, longer than 127 characters or holds "
                           "a NUL");
    return 0;
}

static int add_token(struct lex *lx, const char *key, enum brock__sg_match m, const char *tok)
{
    char host[BROCK_HOST_MAX];
    int rc;

    if (brock_host_normalize(key, strlen(key), host) < 0)
        return lx_fail(lx, "a key of hostnames is not a host name");
    rc = brock__surrogates_add_token(lx->s, host, m, tok);
    if (rc == BROCK_EFORMAT)
        return lx_fail(lx, "a host of hostnames is listed twice");
    return rc < 0 ? lx_oom(lx) : 0;
}

/* After a member: a ',' goes on, a '}' ends the object (left for the caller). */
static int member_end(struct lex *lx)
{
    if (next_char(lx, ','))
        return 0;
    if (skip_space(lx) == 0 && lx->p < lx->end && *lx->p == '}')
        return 0;
    return lx_fail(lx, "a ',' or '}' is expected after a member");
}

/* hostnames = {host: [suffix tokens...] | 'wildcard token', ...}, at its '{'. */
static int read_hostnames(struct lex *lx)
{
    struct buf key, tok;
    int rc = 0;

    buf_init(&key, BODY_MAX);
    buf_init(&tok, BODY_MAX);
    lx->p++;
    while (!next_char(lx, '}')) {
        if ((rc = read_key(lx, &key, "a host name is expected in hostnames")) < 0)
            break;
        if (!next_char(lx, ':')) {
            rc = lx_fail(lx, "a ':' is expected after a host name");
            break;
        }
        if (next_char(lx, '[')) {
            while (rc == 0 && !next_char(lx, ']')) {
                if ((rc = read_token(lx, &tok)) == 0 &&
                    (rc = add_token(lx, key.data ? key.data : "", BROCK__SG_SUFFIX, tok.data)) ==
                        0 &&
                    !next_char(lx, ',') &&
                    (skip_space(lx) < 0 || lx->p >= lx->end || *lx->p != ']'))
                    rc = lx_fail(lx, "a ',' or ']' is expected in a host's tokens");
            }
        } else if ((rc = read_token(lx, &tok)) == 0) {
            rc = add_token(lx, key.data ? key.data : "", BROCK__SG_ANY, tok.data);
        }
        if (rc < 0 || (rc = member_end(lx)) < 0)
            break;
    }
    buf_cleanup(&key);
    buf_cleanup(&tok);
    return rc;
}

/* A function expression at "function", its source text appended to out. */
static int read_function(struct lex *lx, struct buf *out)
{
    const char *start = lx->p;
    int rc;

    lx->p += strlen("function");
    if ((rc = skip_space(lx)) < 0)
        return rc;
    while (lx->p < lx->end && is_word(*lx->p)) /* a name */
        lx->p++;
    if ((rc = skip_space(lx)) < 0)
        return rc;
    if (lx->p >= lx->end || *lx->p != '(')
        return lx_fail(lx, "a function's parameters are expected");
    if ((rc = skip_group(lx, '(', ')')) < 0 || (rc = skip_space(lx)) < 0)
        return rc;
    if (lx->p >= lx->end || *lx->p != '{')
        return lx_fail(lx, "a function's body is expected");
    if ((rc = skip_group(lx, '{', '}')) < 0)
        return rc;
    lx->regex_ok = 0;
    return buf_append(out, start, (size_t)(lx->p - start)) < 0 ? lx_oom(lx) : 0;
}

/* A surrogate's value: string literals and function expressions joined with '+', into out. */
static int read_value(struct lex *lx, struct buf *out)
{
    int rc;

    buf_reset(out);
    do {
        if ((rc = skip_space(lx)) < 0)
            return rc;
        if (lx->p < lx->end && (*lx->p == '"' || *lx->p == '\''))
            rc = read_string(lx, out);
        else if (lx->end - lx->p >= 8 && !memcmp(lx->p, "function", 8) &&
                 (lx->end - lx->p == 8 || !is_word(lx->p[8])))
            rc = read_function(lx, out);
        else
            rc = lx_fail(lx, "a surrogate must be strings and functions joined with '+'");
        if (rc < 0)
            return rc;
    } while (next_char(lx, '+'));
    return 0;
}

static int set_body(struct lex *lx, const char *token, const struct buf *body)
{
    if (!*token || strlen(token) > BROCK__SURROGATE_TOKEN_MAX)
        return lx_fail(lx, "a surrogate token is empty or longer than 127 characters");
    if (brock__surrogates_set_body(lx->s, token, body->data ? body->data : "", body->len) < 0)
        return lx_oom(lx);
    return 0;
}

/* surrogates = {token: value, ...}, at its '{'. */
static int read_surrogates(struct lex *lx)
{
    struct buf key, body;
    int rc = 0;

    buf_init(&key, BODY_MAX);
    buf_init(&body, BODY_MAX);
    lx->p++;
    while (!next_char(lx, '}')) {
        if ((rc = read_key(lx, &key, "a surrogate token is expected in surrogates")) < 0)
            break;
        if (!next_char(lx, ':')) {
            rc = lx_fail(lx, "a ':' is expected after a surrogate token");
            break;
        }
        if ((rc = read_value(lx, &body)) < 0 ||
            (rc = set_body(lx, key.data ? key.data : "", &body)) < 0 || (rc = member_end(lx)) < 0)
            break;
    }
    buf_cleanup(&key);
    buf_cleanup(&body);
    return rc;
}

/* ---- statements after the objects ---- */

/* After the word "surrogates" followed by '[': an assignment
 * `surrogates['a'] = surrogates['b'] = <value or surrogates['c']>`, every target given the
 * value (an alias shares its body). Returns 0 when read; 1 when it is no such statement (lx
 * then as it was: the caller reads on); or an error. */
static int read_alias(struct lex *lx)
{
    struct lex save = *lx;
    struct strvec targets = {0};
    struct buf key, body;
    int rc = 1;

    buf_init(&key, BODY_MAX);
    buf_init(&body, BODY_MAX);
    for (;;) {
        if (skip_space(lx) < 0 || lx->p >= lx->end || (*lx->p != '"' && *lx->p != '\''))
            goto out; /* surrogates[key]: code, not an alias */
        buf_reset(&key);
        if ((rc = read_string(lx, &key)) < 0 || (rc = buf_append(&key, "", 1)) < 0)
            goto out;
        if (!next_char(lx, ']')) {
            rc = lx_fail(lx, "a ']' is expected after a surrogate token");
            goto out;
        }
        if (!next_char(lx, '=') || (lx->p < lx->end && *lx->p == '=')) {
            /* The last of a chain: the body it names. */
            const char *b = NULL;
            size_t blen = 0;
            rc = 1;
            if (!targets.n)
                goto out;
            b = brock__surrogates_body(lx->s, key.data, &blen);
            if (!b) {
                rc = lx_fail(lx, "an alias names a surrogate that is not defined");
                goto out;
            }
            buf_reset(&body);
            rc = buf_append(&body, b, blen) < 0 ? lx_oom(lx) : 0;
            break;
        }
        if ((rc = strvec_push(&targets, key.data)) < 0)
            goto out;
        if (!(next_word(lx, "surrogates") && next_char(lx, '['))) {
            rc = read_value(lx, &body);
            break;
        }
    }
    for (size_t i = 0; rc == 0 && i < targets.n; i++)
        rc = set_body(lx, targets.v[i], &body);
out:
    if (rc == BROCK_ENOMEM)
        rc = lx_oom(lx);
    if (rc == 1)
        *lx = save;
    strvec_cleanup(&targets);
    buf_cleanup(&key);
    buf_cleanup(&body);
    return rc;
}

/* `const NAME = {`: moves past the '=' and returns 1 when NAME is next, else 0 (lx as was). */
static int declares(struct lex *lx, const char *name)
{
    struct lex save = *lx;

    if (next_word(lx, name) && next_char(lx, '=') && skip_space(lx) == 0 && lx->p < lx->end &&
        *lx->p == '{')
        return 1;
    *lx = save;
    return 0;
}

struct scan_state {
    int hostnames, surrogates, reformat;
};

/* One word of code and what it may start. */
static int scan_word(struct lex *lx, struct scan_state *st)
{
    const char *w = lx->p;
    size_t n;
    int rc = 0, after_dot = w > lx->begin && w[-1] == '.';

    while (lx->p < lx->end && is_word(*lx->p))
        lx->p++;
    n = (size_t)(lx->p - w);
    lx->regex_ok = word_before_expr(w, n);
    if ((n == 5 && !memcmp(w, "const", 5)) || (n == 3 && !memcmp(w, "let", 3)) ||
        (n == 3 && !memcmp(w, "var", 3))) {
        int *seen = declares(lx, "hostnames")    ? &st->hostnames
                    : declares(lx, "surrogates") ? &st->surrogates
                                                 : NULL;
        if (seen && *seen)
            return lx_fail(lx, "hostnames or surrogates is declared twice");
        if (seen)
            rc = seen == &st->hostnames ? read_hostnames(lx) : read_surrogates(lx);
        if (seen && rc == 0)
            *seen = 1;
        return rc;
    }
    if (n == 10 && !memcmp(w, "surrogates", 10) && !after_dot && st->surrogates &&
        next_char(lx, '[')) {
        rc = read_alias(lx);
        return rc == 1 ? 0 : rc;
    }
    if (n == 6 && !memcmp(w, "Object", 6) && next_char(lx, '.') && next_word(lx, "keys") &&
        next_char(lx, '(') && next_word(lx, "surrogates") && next_char(lx, ')'))
        st->reformat = 1;
    return 0;
}

int brock__surrogates_js_read(const struct brock__data_ctx *cx, const char *name, const char *text,
                              size_t len, struct brock__surrogates *s)
{
    struct lex lx = {cx, s, name, text, text + len, 1, 1, text};
    struct scan_state st = {0, 0, 0};
    int rc = 0;

    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        lx.p += 3;
    while (rc == 0 && (rc = skip_space(&lx)) == 0 && lx.p < lx.end)
        rc = is_word_start(*lx.p) ? scan_word(&lx, &st) : skip_token(&lx);
    if (rc < 0)
        return rc;
    if (!st.hostnames || !st.surrogates)
        return brock__data_fail(
            cx, BROCK_EFORMAT,
            "%s has no `const hostnames = {...}` and `const surrogates = {...}`: "
            "it is not Privacy Badger's surrogates.js.",
            name);
    if (st.reformat)
        brock__surrogates_reformat_all(s);
    return 0;
}
