/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading an HTTP Archive as a stream (yajl): the text is fed in chunks and only one element
 * of log.entries or log.pages is held at a time, built as a small jansson value for the
 * lenient reading of har_read.c, handed to a callback, then freed. Fields brock never reads
 * (timings, bodies, DevTools' initiator stacks) are parsed but not kept. An entry's place in
 * the text is told with it, so that it can be read again alone (brock__har_load_entry()).
 */
#include "har/har.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "har/json_strict.h"
#include "util/alloc.h"
#include "util/arena.h"

/* Bytes read from a file at a time. */
#define HAR_CHUNK ((size_t)64 << 10)

/* Bytes read at a time when entries are read again. */
#define HAR_WINDOW ((size_t)1 << 20)

/* How deep an element is built (a HAR's go 5 deep; jansson frees values recursively). */
#define HAR_DEPTH_MAX 64

/* Where the document reader is, outside the element being built. */
enum hs_where {
    HS_TOP,     /* before the top level */
    HS_ROOT,    /* in the top-level object */
    HS_LOG,     /* in log */
    HS_ENTRIES, /* in log.entries: each value is an entry */
    HS_PAGES,   /* in log.pages: each value is a page */
    HS_DONE,    /* after the top level */
};

/* Which keys of an object being built are kept: what har_read.c and har.c read. */
enum hs_keep {
    KEEP_ALL,
    KEEP_ENTRY,
    KEEP_REQUEST,
    KEEP_RESPONSE,
    KEEP_CONTENT,
    KEEP_PAGE,
    KEEP_HEADERS, /* an array of headers: only those read are kept */
};

/* The headers brock reads (har_read.c's classify(), har.c's cookies); any other well-formed
 * header is left out as it is parsed, the headers being most of an entry. */
#define HS_HEADER(s)                                                                               \
    {                                                                                              \
        s, sizeof(s) - 1                                                                           \
    }
static const struct {
    const char *name;
    size_t len;
} hs_headers_read[] = {
    HS_HEADER("cookie"),  HS_HEADER("set-cookie"),     HS_HEADER("user-agent"),
    HS_HEADER("referer"), HS_HEADER("sec-fetch-dest"), HS_HEADER("sec-fetch-mode"),
    HS_HEADER("accept"),  HS_HEADER("content-type"),   HS_HEADER("upgrade"),
    HS_HEADER("ping-to"),
};

struct hs_level {
    json_t *v; /* borrowed: its parent (or the element's root) owns it */
    enum hs_keep keep;
};

struct hs {
    struct brock_engine *e;
    const struct har_scan_cb *cb;
    struct har_doc *doc;
    struct arena *arena; /* where elements are built, or NULL */
    yajl_handle y;
    int single;  /* one value alone: the entry brock__har_load_entry() reads */
    json_t *one; /* that value, when complete */
    enum hs_where where;
    int want;      /* the next value at the document level: 0 any, 'l' log, 'e'
                      entries, 'p' pages */
    int skip_next; /* the next value is left out */
    size_t skip;   /* > 0: inside a value left out, this deep */
    /* the element being built */
    struct hs_level *stack;
    size_t depth, cap;
    char *key; /* the pending key of the object at the top of the stack */
    size_t key_len, key_cap;
    size_t base; /* offset in the text of the chunk being parsed */
    size_t off;  /* where the element being built starts */
    size_t n_entries, n_pages;
    int err; /* a callback's failure, a negative BROCK_E* */
    /* a header being read (in a KEEP_HEADERS array), not built unless it is kept */
    int pair;      /* reading one */
    int pair_want; /* the value coming: 'n' its name, 'v' its value, 0 neither */
    int has_name, has_value;
    char *name, *value; /* what was read of it */
    size_t name_len, value_len, name_cap, value_cap;
    struct json_strict strict; /* its strings checked as jansson checks them */
};

static const char *kind_name(int c)
{
    switch (c) {
    case '{': return "an object";
    case '[': return "an array";
    case 's': return "a string";
    case 'n': return "a number";
    case 'b': return "a boolean";
    default: return "null";
    }
}

static int keep_key(enum hs_keep k, const char *key, size_t n)
{
    static const char *const entry[] = {"pageref", "startedDateTime", "_frameref", "_resourceType",
                                        "request", "response",        NULL};
    static const char *const request[] = {"method", "url", "headers", "cookies", NULL};
    static const char *const response[] = {"status",  "redirectURL", "headers",
                                           "cookies", "content",     NULL};
    static const char *const content[] = {"mimeType", NULL};
    static const char *const page[] = {"id", "title", NULL};
    const char *const *names = NULL;

    switch (k) {
    case KEEP_ALL: return 1;
    case KEEP_ENTRY: names = entry; break;
    case KEEP_REQUEST: names = request; break;
    case KEEP_RESPONSE: names = response; break;
    case KEEP_CONTENT: names = content; break;
    case KEEP_PAGE: names = page; break;
    case KEEP_HEADERS: return 1;
    }
    for (; *names; names++)
        if (n && **names == *key && strlen(*names) == n && memcmp(*names, key, n) == 0)
            return 1;
    return 0;
}

/* What is kept of an object that is the value of the pending key of an object kept as k. */
static enum hs_keep keep_child(enum hs_keep k, const char *key)
{
    if (k == KEEP_ENTRY && strcmp(key, "request") == 0)
        return KEEP_REQUEST;
    if (k == KEEP_ENTRY && strcmp(key, "response") == 0)
        return KEEP_RESPONSE;
    if (k == KEEP_RESPONSE && strcmp(key, "content") == 0)
        return KEEP_CONTENT;
    return KEEP_ALL;
}

static int fail_nomem(struct hs *s)
{
    s->err = brock__fail(s->e, BROCK_ENOMEM, "%s: out of memory reading JSON", s->cb->name);
    return 0;
}

/* The element is complete: hand it over, then free it. Returns 1 to go on, 0 to stop. */
static int element_done(struct hs *s, json_t *v, size_t end)
{
    int err = 0;

    if (s->single) {
        s->one = v;
        return 1;
    }
    /* what the callbacks make is theirs, not the element's */
    brock__json_arena_on(0);
    if (s->where == HS_ENTRIES) {
        if (s->cb->on_entry)
            err = s->cb->on_entry(s->cb->arg, s->n_entries, v, s->off, end - s->off);
        s->n_entries++;
    } else {
        if (s->cb->on_page)
            err = s->cb->on_page(s->cb->arg, s->n_pages, v);
        s->n_pages++;
    }
    brock__json_arena_on(s->arena != NULL);
    if (s->arena)
        arena_reset(s->arena);
    else
        json_decref(v);
    if (err < 0) {
        s->err = err;
        return 0;
    }
    return 1;
}

/* Puts v (handed over) where the element being built is; 1, or 0 on failure. */
static int put_value(struct hs *s, json_t *v, int container)
{
    struct hs_level *top;

    if (!v)
        return fail_nomem(s);
    if (s->depth == 0) {
        if (!container) {
            size_t end = s->base + yajl_get_bytes_consumed(s->y);

            return element_done(s, v, end);
        }
    } else {
        top = &s->stack[s->depth - 1];
        if (json_is_object(top->v) ? json_object_setn_new_nocheck(top->v, s->key, s->key_len, v)
                                   : json_array_append_new(top->v, v))
            return fail_nomem(s);
    }
    if (!container)
        return 1;
    if (s->depth == HAR_DEPTH_MAX) {
        /* v is its parent's already */
        s->err = brock__fail(s->e, BROCK_EFORMAT,
                             "%s: not a HAR: values nested more than %d "
                             "deep",
                             s->cb->name, HAR_DEPTH_MAX);
        return 0;
    }
    if (mem_grow(&s->stack, &s->cap, s->depth + 1, sizeof(*s->stack)) < 0) {
        if (s->depth == 0)
            json_decref(v);
        return fail_nomem(s);
    }
    s->stack[s->depth].v = v;
    if (s->depth == 0)
        s->stack[0].keep = s->single || s->where == HS_ENTRIES ? KEEP_ENTRY : KEEP_PAGE;
    else if (json_is_object(v) && json_is_object(s->stack[s->depth - 1].v))
        s->stack[s->depth].keep = keep_child(s->stack[s->depth - 1].keep, s->key);
    else if ((s->stack[s->depth - 1].keep == KEEP_REQUEST ||
              s->stack[s->depth - 1].keep == KEEP_RESPONSE) &&
             json_is_array(v) && strcmp(s->key, "headers") == 0)
        s->stack[s->depth].keep = KEEP_HEADERS;
    else
        s->stack[s->depth].keep = KEEP_ALL;
    s->depth++;
    return 1;
}

/* A value starts (kind: '{', '[', or a scalar's letter) outside any element: where the
 * document reader goes next. Returns 1 when the value is an element to build. */
static int doc_value(struct hs *s, int kind)
{
    int want = s->want;

    s->want = 0;
    if (s->single || s->where == HS_ENTRIES || s->where == HS_PAGES) {
        if (kind == '{')
            s->off = s->base + yajl_get_bytes_consumed(s->y) - 1;
        return 1;
    }
    switch (s->where) {
    case HS_TOP:
        s->doc->root = kind_name(kind);
        s->where = kind == '{' ? HS_ROOT : HS_DONE;
        if (kind == '{')
            return 0;
        break;
    case HS_ROOT:
        /* only log gets here: other keys' values are left out before */
        s->doc->log = kind_name(kind);
        if (kind == '{') {
            s->where = HS_LOG;
            return 0;
        }
        break;
    case HS_LOG:
        if (want == 'e')
            s->doc->entries = kind_name(kind);
        else
            s->doc->pages = kind_name(kind);
        if (kind == '[') {
            s->where = want == 'e' ? HS_ENTRIES : HS_PAGES;
            return 0;
        }
        break;
    default: break;
    }
    /* anything else outside an element is left out */
    if (kind == '{' || kind == '[')
        s->skip = 1;
    return 0;
}

/* Whether the next value is left out: inside a skipped value, or after a dropped key. */
static int skipping(struct hs *s, int kind)
{
    if (s->skip) {
        if (kind == '{' || kind == '[')
            s->skip++;
        return 1;
    }
    if (s->skip_next) {
        s->skip_next = 0;
        if (kind == '{' || kind == '[')
            s->skip = 1;
        return 1;
    }
    return 0;
}

/* ---- headers: read as two strings, built only when kept ---- */

static int pair_is_read(const struct hs *s)
{
    for (size_t k = 0; k < sizeof(hs_headers_read) / sizeof(hs_headers_read[0]); k++)
        if (hs_headers_read[k].len == s->name_len &&
            strncasecmp(hs_headers_read[k].name, s->name, s->name_len) == 0)
            return 1;
    return 0;
}

/* Builds the header read so far as an object and goes on building it as any other. */
static int pair_build(struct hs *s)
{
    json_t *o = json_object(), *v;

    s->pair = 0;
    if (!o)
        return fail_nomem(s);
    if (s->has_name) {
        v = json_stringn_nocheck(s->name, s->name_len);
        if (!v || json_object_set_new_nocheck(o, "name", v) < 0)
            goto nomem;
    }
    if (s->has_value) {
        v = json_stringn_nocheck(s->value, s->value_len);
        if (!v || json_object_set_new_nocheck(o, "value", v) < 0)
            goto nomem;
    }
    if (!put_value(s, o, 1))
        return 0;
    /* the key the event being handled is the value of */
    if (s->pair_want) {
        const char *k = s->pair_want == 'n' ? "name" : "value";

        if (mem_grow(&s->key, &s->key_cap, 6, 1) < 0)
            return fail_nomem(s);
        memcpy(s->key, k, strlen(k) + 1);
        s->key_len = strlen(k);
    }
    return 1;
nomem:
    json_decref(o);
    return fail_nomem(s);
}

static int pair_string(struct hs *s, const unsigned char *str, size_t len)
{
    char **to = s->pair_want == 'n' ? &s->name : &s->value;
    size_t *cap = s->pair_want == 'n' ? &s->name_cap : &s->value_cap;

    if (mem_grow(to, cap, len + 1, 1) < 0)
        return fail_nomem(s);
    memcpy(*to, str, len);
    (*to)[len] = '\0';
    if (s->pair_want == 'n') {
        s->name_len = len;
        s->has_name = 1;
    } else {
        s->value_len = len;
        s->has_value = 1;
    }
    s->pair_want = 0;
    return 1;
}

/* The end of a header: kept when it is not a well-formed one, or one that is read. */
static int pair_end(struct hs *s)
{
    if (s->has_name && s->has_value && !pair_is_read(s)) {
        s->pair = 0;
        return 1;
    }
    s->pair_want = 0;
    if (!pair_build(s))
        return 0;
    s->depth--;
    return 1;
}

/* Whether the next scalar is left out, so not worth making. */
static int dropped(const struct hs *s)
{
    return s->skip || s->skip_next ||
           (s->depth == 0 && !s->single && s->where != HS_ENTRIES && s->where != HS_PAGES);
}

/* A scalar value v (handed over; NULL when out of memory or dropped()) of the given kind. */
static int on_scalar(struct hs *s, int kind, json_t *v)
{
    if (s->pair && !pair_build(s)) {
        json_decref(v);
        return 0;
    }
    if (skipping(s, kind) || (s->depth == 0 && !doc_value(s, kind))) {
        json_decref(v);
        return 1;
    }
    return put_value(s, v, 0);
}

static int cb_null(void *ctx)
{
    return on_scalar(ctx, 'z', json_null());
}

static int cb_boolean(void *ctx, int b)
{
    return on_scalar(ctx, 'b', json_boolean(b));
}

/* A number's value, read as jansson (the whole-document reader) reads it: an integer (no
 * fraction or exponent) must fit in 64 bits, any other number in a double (an underflow is
 * taken as it rounds). Returns 0, or -1 when out of range (*v is then NULL). */
static int number_value(const char *text, json_t **v)
{
    char *end;

    errno = 0;
    if (!strpbrk(text, ".eE")) {
        long long i = strtoll(text, &end, 10);

        *v = errno == ERANGE ? NULL : json_integer(i);
    } else {
        double d = strtod(text, &end);

        *v = errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL) ? NULL : json_real(d);
    }
    return *v ? 0 : -1;
}

/* Whether a number left out is in range without reading it: an integer of up to 18
 * characters (below 2^63), or a fraction without an exponent of up to 300 (below 10^300,
 * within a double). */
static int plainly_in_range(const char *num, size_t len)
{
    if (memchr(num, 'e', len) || memchr(num, 'E', len))
        return 0;
    return memchr(num, '.', len) ? len <= 300 : len <= 18;
}

/* Numbers come as text. Each is checked as the whole-document reader checks it, kept or not
 * (most are timings, left out); a kept one is an integer when it is one, else a real. */
static int cb_number(void *ctx, const char *num, size_t len)
{
    struct hs *s = ctx;
    char small[64], *text;
    json_t *v = NULL;
    int bad;

    if (dropped(s) && plainly_in_range(num, len))
        return on_scalar(s, 'n', NULL);
    text = len < sizeof(small) ? small : mem_malloc(len + 1);
    if (!text)
        return fail_nomem(s);
    memcpy(text, num, len);
    text[len] = '\0';
    bad = number_value(text, &v);
    if (text != small)
        mem_free(text);
    if (bad) {
        s->err = brock__fail(s->e, BROCK_EFORMAT,
                             "%s: a number out of range (%.24s%s): an integer must fit in 64 "
                             "bits, any other number in a double",
                             s->cb->name, num, len > 24 ? "..." : "");
        return 0;
    }
    if (dropped(s)) {
        json_decref(v);
        v = NULL;
    }
    return on_scalar(s, 'n', v);
}

static int cb_string(void *ctx, const unsigned char *str, size_t len)
{
    struct hs *s = ctx;

    if (s->pair && s->pair_want)
        return pair_string(s, str, len);
    return on_scalar(s, 's', dropped(s) ? NULL : json_stringn_nocheck((const char *)str, len));
}

static int on_start(struct hs *s, int kind)
{
    if (s->pair && !pair_build(s))
        return 0;
    if (skipping(s, kind) || (s->depth == 0 && !doc_value(s, kind)))
        return 1;
    if (kind == '{' && s->depth && s->stack[s->depth - 1].keep == KEEP_HEADERS) {
        s->pair = 1;
        s->pair_want = 0;
        s->has_name = s->has_value = 0;
        return 1;
    }
    return put_value(s, kind == '{' ? json_object() : json_array(), 1);
}

static int cb_start_map(void *ctx)
{
    return on_start(ctx, '{');
}

static int cb_start_array(void *ctx)
{
    return on_start(ctx, '[');
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len)
{
    struct hs *s = ctx;

    if (s->skip)
        return 1;
    if (s->pair) {
        if (len == 4 && memcmp(key, "name", 4) == 0) {
            s->pair_want = 'n';
            return 1;
        }
        if (len == 5 && memcmp(key, "value", 5) == 0) {
            s->pair_want = 'v';
            return 1;
        }
        s->pair_want = 0;
        if (!pair_build(s))
            return 0;
    }
    if (s->depth == 0) {
        if (s->where == HS_ROOT)
            s->want = len == 3 && memcmp(key, "log", 3) == 0 ? 'l' : 0;
        else if (s->where == HS_LOG)
            s->want = len == 7 && memcmp(key, "entries", 7) == 0 ? 'e'
                      : len == 5 && memcmp(key, "pages", 5) == 0 ? 'p'
                                                                 : 0;
        s->skip_next = s->want == 0;
        return 1;
    }
    if (!keep_key(s->stack[s->depth - 1].keep, (const char *)key, len)) {
        s->skip_next = 1;
        return 1;
    }
    if (mem_grow(&s->key, &s->key_cap, len + 1, 1) < 0)
        return fail_nomem(s);
    memcpy(s->key, key, len);
    s->key[len] = '\0';
    s->key_len = len;
    return 1;
}

static int on_end(struct hs *s)
{
    json_t *v;

    if (s->skip) {
        s->skip--;
        return 1;
    }
    if (s->pair)
        return pair_end(s);
    if (s->depth == 0) {
        /* the end of a container of the document itself */
        if (s->where == HS_ENTRIES || s->where == HS_PAGES)
            s->where = HS_LOG;
        else if (s->where == HS_LOG)
            s->where = HS_ROOT;
        else
            s->where = HS_DONE;
        return 1;
    }
    v = s->stack[--s->depth].v;
    if (s->depth == 0)
        return element_done(s, v, s->base + yajl_get_bytes_consumed(s->y));
    return 1;
}

static int cb_end(void *ctx)
{
    return on_end(ctx);
}

static const yajl_callbacks hs_callbacks = {
    .yajl_null = cb_null,
    .yajl_boolean = cb_boolean,
    .yajl_number = cb_number,
    .yajl_string = cb_string,
    .yajl_start_map = cb_start_map,
    .yajl_map_key = cb_map_key,
    .yajl_end_map = cb_end,
    .yajl_start_array = cb_start_array,
    .yajl_end_array = cb_end,
};

/* yajl does not survive its own allocations failing, so it keeps the C library's (a handle,
 * a lexer buffer and a state stack a parse); what is built from its callbacks is brock's. */
static int hs_init(struct hs *s, struct brock_engine *e, const struct har_scan_cb *cb,
                   struct har_doc *doc)
{
    memset(s, 0, sizeof(*s));
    s->e = e;
    s->cb = cb;
    s->doc = doc;
    s->y = yajl_alloc(&hs_callbacks, NULL, s);
    if (!s->y)
        return brock__fail(e, BROCK_ENOMEM, "%s: out of memory reading JSON", cb->name);
    return 0;
}

static void hs_cleanup(struct hs *s)
{
    /* an element cut short: its root owns the rest */
    if (s->depth)
        json_decref(s->stack[0].v);
    json_decref(s->one);
    mem_free(s->stack);
    mem_free(s->key);
    mem_free(s->name);
    mem_free(s->value);
    if (s->y)
        yajl_free(s->y);
}

/* Line and column of byte at of the text, counting the lines of the chunks before. */
struct hs_pos {
    int line;
    size_t line_start; /* offset of the current line's first byte */
};

static void pos_advance(struct hs_pos *p, const char *text, size_t base, size_t n)
{
    const char *q = text, *end = text + n;

    while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        p->line++;
        q++;
        p->line_start = base + (size_t)(q - text);
    }
}

/* The parse failed (a callback's failure, or the text is not JSON) at byte base + n. */
static int hs_error(struct hs *s, struct hs_pos *pos, const char *chunk, size_t n, int at_end)
{
    unsigned char *msg;
    size_t len;
    int err;

    if (s->err)
        return s->err;
    pos_advance(pos, chunk, s->base, n);
    if (at_end)
        return brock__fail(s->e, BROCK_EFORMAT,
                           "%s: not JSON: the text ends before the JSON does (line %d, column "
                           "%zu)",
                           s->cb->name, pos->line, s->base + n - pos->line_start + 1);
    msg = yajl_get_error(s->y, 0, NULL, 0);
    len = msg ? strlen((char *)msg) : 0;
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' ' || msg[len - 1] == '.'))
        len--;
    err =
        brock__fail(s->e, BROCK_EFORMAT, "%s: not JSON: %.*s (line %d, column %zu)", s->cb->name,
                    (int)len, msg ? (char *)msg : "", pos->line, s->base + n - pos->line_start + 1);
    if (msg)
        yajl_free_error(s->y, msg);
    return err;
}

/* The first vertical tab or form feed of the n bytes at p, or NULL. yajl takes both as
 * whitespace between tokens, where JSON (RFC 8259, section 2) and jansson, which reads the
 * same documents whole, do not; inside a string JSON allows neither unescaped. */
static const char *not_json_space(const char *p, size_t n)
{
    const char *vt = memchr(p, '\v', n), *ff = memchr(p, '\f', n);

    return !vt ? ff : !ff || vt < ff ? vt : ff;
}

/* Feeds n bytes at chunk (offset s->base in the text). Returns 0 or a negative BROCK_E*. */
static int hs_feed(struct hs *s, struct hs_pos *pos, const char *chunk, size_t n)
{
    const char *bad = not_json_space(chunk, n);
    size_t ok = bad ? (size_t)(bad - chunk) : n;
    int strict = json_strict_scan(&s->strict, chunk, ok);
    /* What yajl lets through and jansson, which reads the same documents whole, refuses. */
    if (strict)
        return brock__fail(s->e, BROCK_EFORMAT, "%s: not JSON: %s", s->cb->name,
                           strict == JSON_STRICT_UTF8
                               ? "a string that is not UTF-8 (an overlong form, a surrogate, "
                                 "or past U+10FFFF)"
                               : "a surrogate escaped without its pair (\\uD800 to \\uDFFF)");
    if (yajl_parse(s->y, (const unsigned char *)chunk, ok) != yajl_status_ok)
        return hs_error(s, pos, chunk, yajl_get_bytes_consumed(s->y), 0);
    if (bad) {
        pos_advance(pos, chunk, s->base, ok);
        return brock__fail(s->e, BROCK_EFORMAT,
                           "%s: not JSON: a %s, which JSON does not allow (line %d, column %zu)",
                           s->cb->name, *bad == '\v' ? "vertical tab" : "form feed", pos->line,
                           s->base + ok - pos->line_start + 1);
    }
    pos_advance(pos, chunk, s->base, n);
    s->base += n;
    return 0;
}

static int hs_finish(struct hs *s, struct hs_pos *pos)
{
    if (yajl_complete_parse(s->y) != yajl_status_ok)
        return hs_error(s, pos, "", 0, 1);
    return 0;
}

static int read_fail(struct brock_engine *e, const char *name, int errnum)
{
    return brock__fail(e, BROCK_EIO, "%s: cannot read it: %s", name, strerror(errnum));
}

int brock__har_scan(struct brock_engine *e, const struct har_src *src, const struct har_scan_cb *cb,
                    struct har_doc *doc)
{
    struct hs s;
    struct hs_pos pos = {1, 0};
    char *chunk = NULL;
    size_t at = 0;
    int err;

    memset(doc, 0, sizeof(*doc));
    err = hs_init(&s, e, cb, doc);
    if (err < 0)
        goto out;
    if (!src->text) {
        chunk = mem_malloc(HAR_CHUNK);
        if (!chunk) {
            fail_nomem(&s);
            err = s.err;
            goto out;
        }
    }
    at = src->start;
    s.base = at;
    s.arena = src->arena;
    brock__json_arena_on(s.arena != NULL);
    while (at < src->len) {
        size_t n = src->len - at < HAR_CHUNK ? src->len - at : HAR_CHUNK;
        const char *p = src->text ? src->text + at : chunk;

        if (!src->text) {
            ssize_t r = pread(src->fd, chunk, n, (off_t)at);

            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                err = read_fail(e, cb->name, errno);
                goto out;
            }
            if (r == 0) {
                err = brock__fail(e, BROCK_EIO, "%s: it shrank while it was read", cb->name);
                goto out;
            }
            n = (size_t)r;
        }
        err = hs_feed(&s, &pos, p, n);
        if (err < 0)
            goto out;
        at += n;
        if (cb->on_progress)
            cb->on_progress(cb->arg, s.n_entries);
    }
    err = hs_finish(&s, &pos);
out:
    hs_cleanup(&s);
    brock__json_arena_on(0);
    if (src->arena)
        arena_reset(src->arena);
    mem_free(chunk);
    return err;
}

/* Points *p at the len bytes at off of the file, through the window w: read again from off
 * (a window's worth, or the entry when it is longer) unless w holds them already. */
static int window_get(struct brock_engine *e, const struct har_src *src,
                      const struct har_scan_cb *cb, size_t off, size_t len, struct har_window *w,
                      const char **p)
{
    size_t rest = src->len > off ? src->len - off : 0, got = 0;
    size_t want = rest < HAR_WINDOW ? rest : HAR_WINDOW;

    if (w->buf && off >= w->off && len <= w->len && off - w->off <= w->len - len) {
        *p = w->buf + (off - w->off);
        return 0;
    }
    if (want < len)
        want = len;
    if (!want)
        want = 1;
    w->len = 0;
    if (mem_grow(&w->buf, &w->cap, want, 1) < 0)
        return brock__fail(e, BROCK_ENOMEM, "%s: out of memory for an entry of %zu bytes", cb->name,
                           len);
    while (got < want) {
        ssize_t r = pread(src->fd, w->buf + got, want - got, (off_t)(off + got));

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return read_fail(e, cb->name, errno);
        if (r == 0 && got < len)
            return brock__fail(e, BROCK_EIO, "%s: it shrank while it was read", cb->name);
        if (r == 0)
            break;
        got += (size_t)r;
    }
    w->off = off;
    w->len = got;
    *p = w->buf;
    return 0;
}

int brock__har_load_entry(struct brock_engine *e, const struct har_src *src,
                          const struct har_scan_cb *cb, size_t off, size_t len,
                          struct har_window *w, json_t **out)
{
    struct hs s;
    struct hs_pos pos = {1, 0};
    struct har_doc doc;
    const char *p = "";
    int err;

    *out = NULL;
    if (src->whole)
        return brock__har_whole_entry(src, off, out);
    if (src->text) {
        p = src->text + off;
    } else {
        err = window_get(e, src, cb, off, len, w, &p);
        if (err < 0)
            return err;
    }
    memset(&doc, 0, sizeof(doc));
    err = hs_init(&s, e, cb, &doc);
    if (err < 0)
        goto out;
    s.single = 1;
    s.base = off;
    s.arena = src->arena;
    brock__json_arena_on(s.arena != NULL);
    err = hs_feed(&s, &pos, p, len);
    if (!err)
        err = hs_finish(&s, &pos);
    brock__json_arena_on(0);
    if (!err && !s.one)
        err = brock__fail(e, BROCK_EFORMAT, "%s: changed while it was read", cb->name);
    if (!err) {
        *out = s.one;
        s.one = NULL;
    }
out:
    hs_cleanup(&s);
    if (err < 0 && src->arena)
        arena_reset(src->arena);
    return err;
}

void brock__har_release(const struct har_src *src, json_t *v)
{
    if (src->arena)
        arena_reset(src->arena);
    else
        json_decref(v);
}
