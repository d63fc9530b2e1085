/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Tracking parameters taken out of URLs, by ClearURLs' rules (its data.min.json): per provider
 * a urlPattern over the whole URL, exceptions (URLs left alone), redirections (a wrapper whose
 * first capture group is the real address), rawRules (expressions cut out of the URL), and
 * rules and referralMarketing (the names of query and fragment parameters that only track).
 * The expressions are JavaScript's, compiled once by PCRE2 (with its JIT where it has one),
 * caseless as ClearURLs runs them.
 *
 * Unlike ClearURLs, which rebuilds the query with URLSearchParams, only the parameters named
 * are taken out: what stays is byte for byte as it came, so that a signed or oddly encoded
 * query keeps working. A name is matched as written (percent-encoded), which is what the
 * rules' "(?:%3F)?" prefixes expect.
 *
 * The fast path: each urlPattern's longest run of literal characters that every match must
 * hold (pattern_literal()) is looked for in the URL, lower-cased, before the expression runs,
 * all of them in one pass over the URL (literals_find()); most providers name a site, and
 * most URLs are not that site's. A provider's exceptions run only when it would change the
 * URL, each only when the URL holds its literal (clean_tried()). The JIT's code is entered
 * directly. The plain path, every expression run in ClearURLs' order, stays as the reference
 * (brock__clean_url_plain(), the differential test and fuzz target).
 */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "util/alloc.h"
#include "util/buf.h"

#define CU_MATCH_LIMIT 100000 /* a URL a page chose cannot make an expression backtrack long */
#define CU_PASSES 4           /* a URL cleaned, or unwrapped, is looked at again, this many times */

#define CU_LITERAL_MAX 64

/* What every match of an expression holds in a row, lower-cased (pattern_literal()). */
struct cu_literal {
    char s[CU_LITERAL_MAX]; /* "": none found */
    size_t len;
    uint32_t id; /* its place in the fast path's index (index_literals()) */
};

struct cu_list {
    pcre2_code **v;
    struct cu_literal *lit; /* each expression's */
    size_t n;
};

struct cu_provider {
    char *name;
    struct cu_literal literal;
    pcre2_code *pattern;
    struct cu_list exceptions, redirections, raw;
    pcre2_code *fields; /* ^(?:(?:r1)|(?:r2)...)$ over a parameter's name; NULL: none */
    int complete;
};

/* A literal by its first four bytes, for the scan that finds every literal of the rules
 * (the providers' urlPatterns' and their exceptions') in one pass over the URL
 * (literals_find()). */
struct cu_key {
    uint32_t first4;
    uint32_t id;
};

#define CU_BLOOM_BITS 65536

/* The fast path's memory, for one clean, of parameter names matched against a provider's
 * fields: a name comes back in the next pass (the URL changed, and is looked at again), and
 * cut_params() reads each twice. */
#define CU_MEMO 32
#define CU_MEMO_NAME 48
struct cu_memo {
    int on; /* 0: the plain path, which remembers nothing */
    size_t n;
    struct {
        const void *provider;
        unsigned char len, hit;
        char name[CU_MEMO_NAME];
    } v[CU_MEMO];
};

struct brock__clearurls {
    struct cu_provider *v;
    size_t n;
    pcre2_match_data *md;
    pcre2_match_context *mc; /* the bound on one match's work */
    int jit;                 /* the expressions were JIT-compiled (those PCRE2 could) */
    /* The fast path's index of literals, each by its id: every literal; the keys of those
     * of four bytes or more, sorted; a bit per hash of those four bytes; the ids of the
     * shorter ones (none at all, mostly), always taken as found. */
    const struct cu_literal **lits;
    size_t n_lits;
    struct cu_key *keys;
    size_t n_keys;
    uint64_t bloom[CU_BLOOM_BITS / 64];
    uint32_t *always;
    size_t n_always;
    unsigned char *seen; /* literals_find()'s marks, one a literal */
    struct cu_memo *memo;
};

static void list_free(struct cu_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        pcre2_code_free(l->v[i]);
    mem_free(l->v);
    mem_free(l->lit);
}

void brock__clearurls_free(struct brock__clearurls *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->v && i < c->n; i++) {
        struct cu_provider *p = &c->v[i];

        mem_free(p->name);
        pcre2_code_free(p->pattern);
        pcre2_code_free(p->fields);
        list_free(&p->exceptions);
        list_free(&p->redirections);
        list_free(&p->raw);
    }
    mem_free(c->v);
    mem_free(c->lits);
    mem_free(c->keys);
    mem_free(c->always);
    mem_free(c->seen);
    mem_free(c->memo);
    pcre2_match_data_free(c->md);
    pcre2_match_context_free(c->mc);
    mem_free(c);
}

/* ---- reading the rules ---- */

struct cu_read {
    struct brock_engine *e;
    const char *provider;
    const char *what;
    int jit; /* JIT-compile what is compiled */
};

/* Whether expressions are JIT-compiled: unless BROCK_PCRE2_JIT=0, for a memory checker
 * (valgrind), which cannot follow code made at run time and reports its every branch. The
 * interpreter gives the same results, slower. */
static int jit_wanted(void)
{
    const char *v = getenv("BROCK_PCRE2_JIT");

    return !v || strcmp(v, "0") != 0;
}

/* expr compiled caseless, JIT-compiled where PCRE2 can. NULL with errmsg set when it is not
 * one PCRE2 reads, or out of memory (*rc says which). */
static pcre2_code *compile(const struct cu_read *r, const char *expr, size_t len, int *rc)
{
    int err = 0;
    PCRE2_SIZE at = 0;
    PCRE2_UCHAR msg[256];
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)expr, len, PCRE2_CASELESS, &err, &at, NULL);

    if (!code) {
        if (err == PCRE2_ERROR_NOMEMORY) {
            *rc = brock__fail(r->e, BROCK_ENOMEM, "out of memory");
            return NULL;
        }
        pcre2_get_error_message(err, msg, sizeof(msg));
        *rc = brock__fail(r->e, BROCK_EFORMAT,
                          "ClearURLs' rules: provider \"%.64s\", %s: \"%.120s\" is not an "
                          "expression (at %zu: %s)",
                          r->provider, r->what, expr, (size_t)at, (const char *)msg);
        return NULL;
    }
    /* Without a JIT (or with its memory short) the interpreter runs it: no error. */
    if (r->jit)
        (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    return code;
}

static void pattern_literal(struct cu_literal *lit, const char *pattern);

/* The strings of the array v (absent: none) into out, each compiled, with its literal. */
static int read_list(struct cu_read *r, json_t *v, const char *what, struct cu_list *out)
{
    size_t i;
    json_t *one;
    int rc = 0;

    r->what = what;
    if (!v)
        return 0;
    if (!json_is_array(v))
        return brock__fail(r->e, BROCK_EFORMAT,
                           "ClearURLs' rules: provider \"%.64s\": %s is not a list", r->provider,
                           what);
    if (!(out->v = mem_calloc(json_array_size(v) + 1, sizeof(pcre2_code *))) ||
        !(out->lit = mem_calloc(json_array_size(v) + 1, sizeof(*out->lit))))
        return brock__fail(r->e, BROCK_ENOMEM, "out of memory");
    json_array_foreach(v, i, one) {
        if (!json_is_string(one))
            return brock__fail(r->e, BROCK_EFORMAT,
                               "ClearURLs' rules: provider \"%.64s\": %s holds a value that is "
                               "not an expression",
                               r->provider, what);
        if (!(out->v[out->n] = compile(r, json_string_value(one), json_string_length(one), &rc)))
            return rc;
        pattern_literal(&out->lit[out->n], json_string_value(one));
        out->n++;
    }
    return 0;
}

/* The parameter names of rules and referralMarketing as one anchored alternation. */
static int read_fields(struct cu_read *r, json_t *obj, struct cu_provider *p)
{
    static const char *const keys[] = {"rules", "referralMarketing"};
    struct buf b;
    size_t i, n = 0;
    json_t *one;
    int rc = 0;

    buf_init(&b, 1 << 20);
    rc = buf_puts(&b, "^(?:");
    for (size_t k = 0; k < 2 && rc == 0; k++) {
        json_t *list = json_object_get(obj, keys[k]);

        r->what = keys[k];
        if (list && !json_is_array(list)) {
            buf_cleanup(&b);
            return brock__fail(r->e, BROCK_EFORMAT,
                               "ClearURLs' rules: provider \"%.64s\": %s is not a list",
                               r->provider, keys[k]);
        }
        json_array_foreach(list, i, one) {
            if (!json_is_string(one)) {
                buf_cleanup(&b);
                return brock__fail(r->e, BROCK_EFORMAT,
                                   "ClearURLs' rules: provider \"%.64s\": %s holds a value that "
                                   "is not an expression",
                                   r->provider, keys[k]);
            }
            /* Each alone first: an expression that does not compile is named. */
            pcre2_code *alone = compile(r, json_string_value(one), json_string_length(one), &rc);

            if (!alone) {
                buf_cleanup(&b);
                return rc;
            }
            pcre2_code_free(alone);
            if (buf_puts(&b, n++ ? "|(?:" : "(?:") < 0 ||
                buf_puts(&b, json_string_value(one)) < 0 || buf_puts(&b, ")") < 0)
                rc = -1;
        }
    }
    if (rc == 0 && n && buf_puts(&b, ")$") == 0) {
        r->what = "rules";
        p->fields = compile(r, (const char *)b.data, b.len, &rc);
    } else if (rc < 0) {
        rc = brock__fail(r->e, BROCK_ENOMEM, "out of memory");
    }
    buf_cleanup(&b);
    return n && !p->fields && rc == 0 ? brock__fail(r->e, BROCK_ENOMEM, "out of memory") : rc;
}

/* A character of a pattern that stands for itself: *c set (lower-cased) and its length in the
 * pattern returned (2 for an escaped punctuation mark), or 0 for anything else. */
static size_t literal_char(const char *p, char *c)
{
    unsigned char ch = (unsigned char)p[0];

    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
        ch == '-' || ch == '_' || ch == '%' || ch == '=' || ch == '&' || ch == ':' || ch == '/' ||
        ch == '"' || ch == '\'' || ch == ',' || ch == ';' || ch == '@' || ch == '!' || ch == '~') {
        *c = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
        return 1;
    }
    if (ch == '\\' && p[1] && strchr(".-/?=&%:#+*()[]{}|^$\\", p[1])) {
        *c = p[1];
        return 2;
    }
    return 0;
}

/* Into lit, the longest run of characters every match of pattern holds in a row: at the top
 * level (outside groups and classes), each standing for itself with no quantifier but '+'
 * after it (which ends the run), none when the top level has an alternative. */
static void pattern_literal(struct cu_literal *lit, const char *pattern)
{
    char run[CU_LITERAL_MAX], c;
    size_t n = 0, depth = 0, k;

    lit->len = 0;
    for (const char *q = pattern; *q;) {
        if (depth == 0 && (k = literal_char(q, &c))) {
            char next = q[k];

            q += k;
            if (next == '?' || next == '*' || next == '{') {
                n = 0; /* optional, or repeated: the run ends before it */
                continue;
            }
            if (n < sizeof(run) - 1)
                run[n++] = c;
            /* The later of two as long: "http" opens most patterns, and every URL. */
            if (n >= lit->len) {
                memcpy(lit->s, run, n);
                lit->len = n;
            }
            if (next == '+')
                n = 0;
            continue;
        }
        if (*q == '|' && depth == 0) {
            lit->len = 0; /* an alternative: nothing is required */
            break;
        }
        n = 0;
        if (*q == '\\' && q[1]) {
            /* An escape that takes what follows (\x41, \p{L}, \Q...\E, a back reference):
             * what follows is not itself, and the pattern gets no literal. */
            if (strchr("xuocpPkgNQE0123456789", q[1])) {
                lit->len = 0;
                break;
            }
            q += 2;
            continue;
        }
        if (*q == '[') {
            /* A class: to its closing bracket, escapes and a leading ']' inside. */
            q++;
            if (*q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q && *q != ']')
                q += *q == '\\' && q[1] ? 2 : 1;
            q += *q == ']';
            continue;
        }
        depth += *q == '(';
        depth -= *q == ')' && depth;
        q++;
    }
    lit->s[lit->len] = '\0';
}

static int read_provider(struct brock_engine *e, const char *name, json_t *obj,
                         struct cu_provider *p)
{
    struct cu_read r = {e, name, "urlPattern", jit_wanted()};
    json_t *pattern = json_object_get(obj, "urlPattern");
    json_t *complete = json_object_get(obj, "completeProvider");
    int rc = 0;

    if (!json_is_object(obj) || !json_is_string(pattern))
        return brock__fail(e, BROCK_EFORMAT,
                           "ClearURLs' rules: provider \"%.64s\" is not an object with a "
                           "urlPattern",
                           name);
    if (complete && !json_is_boolean(complete))
        return brock__fail(e, BROCK_EFORMAT,
                           "ClearURLs' rules: provider \"%.64s\": completeProvider is not true "
                           "or false",
                           name);
    if (!(p->name = mem_strdup(name)))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    p->complete = json_is_true(complete);
    if (!(p->pattern = compile(&r, json_string_value(pattern), json_string_length(pattern), &rc)))
        return rc;
    pattern_literal(&p->literal, json_string_value(pattern));
    if ((rc = read_list(&r, json_object_get(obj, "exceptions"), "exceptions", &p->exceptions)) <
            0 ||
        (rc = read_list(&r, json_object_get(obj, "redirections"), "redirections",
                        &p->redirections)) < 0 ||
        (rc = read_list(&r, json_object_get(obj, "rawRules"), "rawRules", &p->raw)) < 0)
        return rc;
    return read_fields(&r, obj, p);
}

static uint32_t first4(const char *s)
{
    uint32_t w;

    memcpy(&w, s, 4);
    return w;
}

static unsigned bloom_bit(uint32_t w)
{
    return (unsigned)((w * 2654435761u) >> 16);
}

static int key_cmp(const void *a, const void *b)
{
    const struct cu_key *x = a, *y = b;

    if (x->first4 != y->first4)
        return x->first4 < y->first4 ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* lit into the index under the next id. */
static void index_one(struct brock__clearurls *c, struct cu_literal *lit)
{
    unsigned bit;

    lit->id = (uint32_t)c->n_lits;
    c->lits[c->n_lits++] = lit;
    if (lit->len < 4) {
        c->always[c->n_always++] = lit->id;
        return;
    }
    c->keys[c->n_keys].first4 = first4(lit->s);
    c->keys[c->n_keys++].id = lit->id;
    bit = bloom_bit(first4(lit->s));
    c->bloom[bit / 64] |= 1ULL << (bit % 64);
}

/* The index of the literals of the providers' urlPatterns and exceptions (struct
 * brock__clearurls). Returns 0 or -1 when out of memory. */
static int index_literals(struct brock__clearurls *c)
{
    size_t n = 0;

    for (size_t i = 0; i < c->n; i++)
        n += 1 + c->v[i].exceptions.n;
    if (!(c->lits = mem_calloc(n + 1, sizeof(const struct cu_literal *))) ||
        !(c->keys = mem_calloc(n + 1, sizeof(*c->keys))) ||
        !(c->always = mem_calloc(n + 1, sizeof(*c->always))) || !(c->seen = mem_calloc(n + 1, 1)) ||
        !(c->memo = mem_calloc(1, sizeof(*c->memo))))
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        index_one(c, &c->v[i].literal);
        for (size_t k = 0; k < c->v[i].exceptions.n; k++)
            index_one(c, &c->v[i].exceptions.lit[k]);
    }
    qsort(c->keys, c->n_keys, sizeof(*c->keys), key_cmp);
    return 0;
}

int brock_clearurls_load(struct brock_engine *e, const char *json, size_t len)
{
    json_error_t jerr = {.line = 0};
    json_t *root = json ? json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr) : NULL;
    json_t *providers = json_object_get(root, "providers"), *obj;
    struct brock__clearurls *c;
    const char *name;
    int rc = 0;

    if (!root) {
        return brock__fail(e, BROCK_EFORMAT, "ClearURLs' rules are not JSON (line %d: %s)",
                           jerr.line, jerr.text);
    }
    if (!json_is_object(providers)) {
        json_decref(root);
        return brock__fail(e, BROCK_EFORMAT,
                           "ClearURLs' rules have no \"providers\" object of rules");
    }
    c = mem_calloc(1, sizeof(*c));
    if (!c || !(c->v = mem_calloc(json_object_size(providers) + 1, sizeof(*c->v))) ||
        !(c->md = pcre2_match_data_create(16, NULL)) ||
        !(c->mc = pcre2_match_context_create(NULL)) ||
        pcre2_set_match_limit(c->mc, CU_MATCH_LIMIT) != 0) {
        brock__clearurls_free(c);
        json_decref(root);
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    c->jit = jit_wanted();
    json_object_foreach(providers, name, obj) {
        if ((rc = read_provider(e, name, obj, &c->v[c->n++])) < 0)
            break;
    }
    json_decref(root);
    if (rc == 0 && index_literals(c) < 0)
        rc = brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (rc < 0) {
        brock__clearurls_free(c);
        return rc;
    }
    brock__clearurls_free(e->clearurls);
    e->clearurls = c;
    e->clearurls_tried = 1;
    e->clearurls_time = 0; /* not an update's, unless brock_clearurls_update() says so */
    return 0;
}

int brock_clearurls_update(struct brock_engine *e, const char *json, size_t len, int64_t time_ms)
{
    char *text = json ? mem_strndup(json, len) : NULL;
    int rc;

    if (json && !text)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if ((rc = brock_clearurls_load(e, json, len)) < 0) {
        mem_free(text);
        return rc;
    }
    mem_free(e->clearurls_text);
    e->clearurls_text = text;
    e->clearurls_time = time_ms;
    e->clearurls_dirty = 1;
    return 0;
}

void brock__clearurls_ready(struct brock_engine *e)
{
    char saved[sizeof(e->errmsg)];
    int64_t when = e->clearurls_time;

    if (e->clearurls || e->clearurls_tried)
        return;
    e->clearurls_tried = 1;
    memcpy(saved, e->errmsg, sizeof(saved));
    /* Checked when they were taken: an update's rules that no longer compile (another
     * PCRE2) give way to the ones given, and are replaced at the next update. */
    if (e->clearurls_text &&
        brock_clearurls_load(e, e->clearurls_text, strlen(e->clearurls_text)) == 0) {
        e->clearurls_time = when;
        return;
    }
    if (e->clearurls_given &&
        brock_clearurls_load(e, e->clearurls_given, e->clearurls_given_len) < 0)
        e->clearurls = NULL; /* none, then: URLs go as they are */
    memcpy(e->errmsg, saved, sizeof(saved));
}

size_t brock_clearurls_providers(struct brock_engine *e, int64_t *time_ms)
{
    brock__clearurls_ready(e);
    if (time_ms)
        *time_ms = e->clearurls ? e->clearurls_time : 0;
    return e->clearurls ? e->clearurls->n : 0;
}

/* ---- cleaning ---- */

/* pcre2_match() from off, straight into the JIT's code where there is some (past
 * pcre2_match()'s checks, which the JIT's entry makes again), the interpreter else. */
static int run_match(const struct brock__clearurls *c, const pcre2_code *code, const char *s,
                     size_t len, size_t off)
{
    int rc = c->jit ? pcre2_jit_match(code, (PCRE2_SPTR)s, len, off, 0, c->md, c->mc)
                    : PCRE2_ERROR_JIT_BADOPTION;

    if (rc == PCRE2_ERROR_JIT_BADOPTION)
        rc = pcre2_match(code, (PCRE2_SPTR)s, len, off, 0, c->md, c->mc);
    return rc;
}

static int matches(const struct brock__clearurls *c, const pcre2_code *code, const char *s,
                   size_t len)
{
    return run_match(c, code, s, len, 0) >= 0;
}

static int any_matches(const struct brock__clearurls *c, const struct cu_list *l, const char *s,
                       size_t len)
{
    for (size_t i = 0; i < l->n; i++)
        if (matches(c, l->v[i], s, len))
            return 1;
    return 0;
}

static int hex(char ch)
{
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

/* s (len bytes) percent-decoded, as decodeURIComponent() does, into out (size bytes, with its
 * NUL). Returns the length, or -1 when it does not fit or decodes to a NUL. */
static long decode(const char *s, size_t len, char *out, size_t size)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        int hi = ch == '%' && i + 2 < len ? hex(s[i + 1]) : -1;
        int lo = hi >= 0 ? hex(s[i + 2]) : -1;

        if (lo >= 0) {
            ch = (unsigned char)(hi * 16 + lo);
            i += 2;
        }
        if (!ch || n + 1 >= size)
            return -1;
        out[n++] = (char)ch;
    }
    out[n] = '\0';
    return (long)n;
}

/* Notes name (len bytes), taken out, in info. */
static void note_removed(struct brock_clean *info, const char *name, size_t len)
{
    size_t used = strlen(info->removed);

    info->n_removed++;
    if (used + len + 2 < sizeof(info->removed))
        snprintf(info->removed + used, sizeof(info->removed) - used, "%s%.*s", used ? "," : "",
                 (int)len, name);
}

/* Cuts every match of code out of url (*len bytes, NUL-terminated, changed in place).
 * Returns whether anything went. */
static int cut_raw(const struct brock__clearurls *c, const pcre2_code *code, char *url, size_t *len)
{
    size_t off = 0;
    int cut = 0;

    while (off <= *len && run_match(c, code, url, *len, off) >= 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
        size_t from = ov[0], to = ov[1];

        if (to <= from) {
            off = from + 1;
            continue;
        }
        memmove(url + from, url + to, *len - to + 1);
        *len -= to - from;
        off = from;
        cut = 1;
    }
    return cut;
}

/* The end of the parameter of url[r, to) that starts at r, and in *name the end of its name. */
static size_t param_end(const char *url, size_t r, size_t to, size_t *name)
{
    size_t end = r;

    while (end < to && url[end] != '&')
        end++;
    for (*name = r; *name < end && url[*name] != '='; (*name)++)
        ;
    return end;
}

/* Whether p's fields match the parameter name (len bytes): from the memory of this clean
 * when it has the name (the fast path), else by the expression, remembered. */
static int field_matches(const struct brock__clearurls *c, const struct cu_provider *p,
                         const char *name, size_t len)
{
    struct cu_memo *m = c->memo;
    int hit;

    if (!m->on || len >= CU_MEMO_NAME)
        return matches(c, p->fields, name, len);
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].provider == p && m->v[i].len == len && !memcmp(m->v[i].name, name, len))
            return m->v[i].hit;
    hit = matches(c, p->fields, name, len);
    if (m->n < CU_MEMO) {
        m->v[m->n].provider = p;
        m->v[m->n].len = (unsigned char)len;
        m->v[m->n].hit = (unsigned char)hit;
        memcpy(m->v[m->n++].name, name, len);
    }
    return hit;
}

/* Takes out of url[from, to) (parameters joined by '&') those whose names p's fields match,
 * the rest kept as they were, in their order, empty ones too. Returns how many went; *len
 * and *to follow. */
static size_t cut_params(const struct brock__clearurls *c, const struct cu_provider *p, char *url,
                         size_t *len, size_t from, size_t *to, struct brock_clean *info)
{
    size_t w = from, r, end, name, gone = 0;
    int wrote = 0;

    /* Nothing is touched unless something goes. */
    for (r = from; r <= *to && !gone; r = end + 1) {
        end = param_end(url, r, *to, &name);
        gone = name > r && field_matches(c, p, url + r, name - r);
    }
    if (!gone)
        return 0;
    gone = 0;
    for (r = from; r <= *to; r = end + 1) {
        end = param_end(url, r, *to, &name);
        if (name > r && field_matches(c, p, url + r, name - r)) {
            note_removed(info, url + r, name - r);
            gone++;
            continue;
        }
        if (wrote)
            url[w++] = '&';
        memmove(url + w, url + r, end - r);
        w += end - r;
        wrote = 1;
    }
    memmove(url + w, url + *to, *len - *to + 1);
    *len -= *to - w;
    *to = w;
    return gone;
}

/* Applies p's fields to url's query and to a fragment of parameters; a part left empty goes
 * with its '?' or '#'. Returns how many parameters went. */
static size_t cut_fields(const struct brock__clearurls *c, const struct cu_provider *p, char *url,
                         size_t *len, struct brock_clean *info)
{
    char *hash = strchr(url, '#'), *q;
    size_t gone = 0, from, to, n;

    if (!p->fields)
        return 0;
    if (hash && strchr(hash, '=')) {
        from = (size_t)(hash - url) + 1;
        to = *len;
        n = cut_params(c, p, url, len, from, &to, info);
        /* Emptied by what went: the '#' goes too. */
        if (n && to == from) {
            *len = from - 1;
            url[*len] = '\0';
        }
        gone += n;
    }
    hash = strchr(url, '#');
    q = memchr(url, '?', hash ? (size_t)(hash - url) : *len);
    if (q) {
        from = (size_t)(q - url) + 1;
        to = hash ? (size_t)(hash - url) : *len;
        n = cut_params(c, p, url, len, from, &to, info);
        if (n && to == from) {
            memmove(url + from - 1, url + from, *len - from + 1);
            (*len)--;
        }
        gone += n;
    }
    return gone;
}

/* What p does to url (size bytes of room): unwrapped (a redirection's address), cut (rawRules,
 * then fields), or nothing. Returns a BROCK_CLEAN_* result. */
static int clean_with(const struct brock__clearurls *c, const struct cu_provider *p, char *url,
                      size_t *len, size_t size, struct brock_clean *info)
{
    int changed = 0;

    if (p->complete)
        return BROCK_CLEAN_BLOCK;
    for (size_t i = 0; i < p->redirections.n; i++) {
        char target[BROCK_URL_MAX];
        PCRE2_SIZE *ov;
        long n;

        if (run_match(c, p->redirections.v[i], url, *len, 0) < 2)
            continue;
        ov = pcre2_get_ovector_pointer(c->md);
        if (ov[2] == PCRE2_UNSET || ov[3] <= ov[2])
            continue;
        n = decode(url + ov[2], ov[3] - ov[2], target, sizeof(target));
        if (n < 0 || (size_t)n >= size ||
            (strncasecmp(target, "http://", 7) != 0 && strncasecmp(target, "https://", 8) != 0))
            continue;
        memcpy(url, target, (size_t)n + 1);
        *len = (size_t)n;
        return BROCK_CLEAN_REDIRECT;
    }
    for (size_t i = 0; i < p->raw.n; i++)
        changed |= cut_raw(c, p->raw.v[i], url, len);
    if (cut_fields(c, p, url, len, info))
        changed = 1;
    return changed ? BROCK_CLEAN_STRIPPED : BROCK_CLEAN_NONE;
}

/* Marks in seen[] (one byte a literal, cleared first) the literals lower (the URL
 * lower-cased, len bytes) holds, and those of fewer than four bytes: one pass over the URL,
 * each four bytes looked up in the bloom filter, and in the sorted keys on a hit. */
static void literals_find(const struct brock__clearurls *c, const char *lower, size_t len,
                          unsigned char *seen)
{
    memset(seen, 0, c->n_lits);
    for (size_t i = 0; i < c->n_always; i++)
        seen[c->always[i]] = 1;
    for (size_t at = 0; at + 4 <= len; at++) {
        uint32_t w = first4(lower + at);
        unsigned bit = bloom_bit(w);
        size_t lo = 0, hi = c->n_keys;

        if (!(c->bloom[bit / 64] & (1ULL << (bit % 64))))
            continue;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;

            if (c->keys[mid].first4 < w)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < c->n_keys && c->keys[lo].first4 == w; lo++) {
            const struct cu_literal *lit = c->lits[c->keys[lo].id];

            if (at + lit->len <= len && !memcmp(lower + at + 4, lit->s + 4, lit->len - 4))
                seen[lit->id] = 1;
        }
    }
}

/* any_matches() for the fast path: an expression whose literal the URL lacks (not seen by
 * literals_find()) is not run. */
static int any_matches_lit(const struct brock__clearurls *c, const struct cu_list *l, const char *s,
                           size_t len)
{
    for (size_t i = 0; i < l->n; i++)
        if (c->seen[l->lit[i].id] && matches(c, l->v[i], s, len))
            return 1;
    return 0;
}

/* What p does to url (*len bytes, size of room), in the fast path: tried first on a copy, its
 * exceptions run only when it would change something (most URLs of most providers' sites
 * have nothing to take out, and globalRules has 48 exceptions); then kept unless one of
 * them matches. The same outcome as checking the exceptions first. */
static int clean_tried(const struct brock__clearurls *c, const struct cu_provider *p, char *url,
                       size_t *len, size_t size, struct brock_clean *info)
{
    char trial[BROCK_URL_MAX];
    struct brock_clean ti = *info;
    size_t tlen = *len;
    int r;

    memcpy(trial, url, *len + 1);
    r = clean_with(c, p, trial, &tlen, size, &ti);
    if (r == BROCK_CLEAN_NONE || any_matches_lit(c, &p->exceptions, url, *len))
        return BROCK_CLEAN_NONE;
    memcpy(url, trial, tlen + 1);
    *len = tlen;
    *info = ti;
    return r;
}

static void lower_case(const char *s, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++)
        out[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    out[len] = '\0';
}

static int clean_url(struct brock_engine *e, const char *url, char *out, size_t size,
                     struct brock_clean *info, int plain)
{
    const struct brock__clearurls *c = e->clearurls;
    char lower[BROCK_URL_MAX];
    size_t len = url ? strlen(url) : 0;
    int result = BROCK_CLEAN_NONE;

    memset(info, 0, sizeof(*info));
    if (!url || (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0))
        return brock__fail(e, BROCK_EINVAL, "'%.200s' is not an http(s) URL", url ? url : "");
    if (len >= size || len >= BROCK_URL_MAX)
        return brock__fail(e, BROCK_EINVAL, "a URL of %zu bytes is longer than brock cleans", len);
    memcpy(out, url, len + 1);
    if (c) {
        c->memo->on = !plain;
        c->memo->n = 0;
    }
    /* A URL unwrapped or cut is looked at again: another provider may have more to say. */
    for (int pass = 0; c && pass < CU_PASSES; pass++) {
        int again = 0;

        if (!plain) {
            lower_case(out, len, lower);
            literals_find(c, lower, len, c->seen);
        }
        for (size_t i = 0; i < c->n && !again; i++) {
            const struct cu_provider *p = &c->v[i];
            int r;

            if ((!plain && !c->seen[p->literal.id]) || !matches(c, p->pattern, out, len))
                continue;
            if (plain)
                r = any_matches(c, &p->exceptions, out, len)
                        ? BROCK_CLEAN_NONE
                        : clean_with(c, p, out, &len, size, info);
            else
                r = clean_tried(c, p, out, &len, size, info);
            if (r == BROCK_CLEAN_NONE)
                continue;
            snprintf(info->provider, sizeof(info->provider), "%s", p->name);
            if (r == BROCK_CLEAN_BLOCK) {
                memcpy(out, url, strlen(url) + 1);
                info->result = BROCK_CLEAN_BLOCK;
                return BROCK_CLEAN_BLOCK;
            }
            if (result != BROCK_CLEAN_REDIRECT)
                result = r;
            again = 1;
        }
        if (!again)
            break;
    }
    info->result = (enum brock_clean_result)result;
    return result;
}

int brock_clean_url(struct brock_engine *e, const char *url, char *out, size_t size,
                    struct brock_clean *info)
{
    brock__clearurls_ready(e);
    return clean_url(e, url, out, size, info, 0);
}

int brock__clean_url_plain(struct brock_engine *e, const char *url, char *out, size_t size,
                           struct brock_clean *info)
{
    brock__clearurls_ready(e);
    return clean_url(e, url, out, size, info, 1);
}
