/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Framing checks (RFC 9112 sections 2, 5, 6 and 7.1) stricter than http-parser: whatever two
 * HTTP implementations could read as different message boundaries is refused. A
 * Transfer-Encoding is read by the RFCs' grammar, which http-parser reads more narrowly; what
 * the grammar allows and readers differ on is passed on in plain words (framing_te.normal). */
#include "proxy/framing.h"

#include <string.h>
#include <strings.h>

#include "util/hex.h"

/* ---- characters ---- */

/* RFC 9110 5.6.2 tchar. */
static int is_tchar(unsigned char ch)
{
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
        return 1;
    return ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* A value or start-line byte: VCHAR, SP, obs-text; HTAB only where tab_ok. */
static int is_text(unsigned char ch, int tab_ok)
{
    return (ch >= 0x20 && ch != 0x7f) || (tab_ok && ch == '\t');
}

/* ---- the head ---- */

enum {
    H_START = 0, /* before the start line (empty lines allowed, as http-parser skips them) */
    H_START_LF,  /* a CR of such an empty line */
    H_LINE,      /* in the start line */
    H_LINE_LF,   /* the start line's CR */
    H_FIELD,     /* at the start of a header line or of the final empty line */
    H_NAME,
    H_VALUE,
    H_VALUE_LF,
    H_END_LF, /* the empty line's CR */
    H_DONE,
    H_BAD,
};

void framing_head_reset(struct framing_head *fh)
{
    fh->state = H_START;
    fh->reason = NULL;
}

static int head_bad(struct framing_head *fh, const char *reason)
{
    fh->state = H_BAD;
    fh->reason = reason;
    return FRAMING_BAD;
}

/* Starts the trailer part of a chunked body: header lines with no start line. */
static void head_start_fields(struct framing_head *fh)
{
    fh->state = H_FIELD;
    fh->reason = NULL;
}

/* The state after ch in the start line (st is H_START or H_LINE); H_BAD with *why set when ch
 * cannot be there. */
static inline int head_start_line(int st, unsigned char ch, const char **why)
{
    if (ch == '\n') {
        *why = "malformed head: bare LF (a line must end with CRLF)";
        return H_BAD;
    }
    if (st == H_START) {
        if (ch == '\r')
            return H_START_LF;
        if (is_text(ch, 0) && ch != ' ')
            return H_LINE;
        *why = "malformed head: control character or space in the start line";
        return H_BAD;
    }
    if (ch == '\r')
        return H_LINE_LF;
    if (!is_text(ch, 0)) {
        *why = "malformed head: control character in the start line";
        return H_BAD;
    }
    return st;
}

/* The state after ch at the start of a header line (H_FIELD), or H_BAD with *why set. */
static inline int head_field_start(unsigned char ch, const char **why)
{
    if (ch == '\r')
        return H_END_LF;
    if (ch == ' ' || ch == '\t')
        *why = "malformed head: obs-fold (a header line starts with whitespace)";
    else if (ch == ':')
        *why = "malformed head: empty header name";
    else if (ch == '\n')
        *why = "malformed head: bare LF (a line must end with CRLF)";
    else if (is_tchar(ch))
        return H_NAME;
    else
        *why = "malformed head: invalid character in a header name";
    return H_BAD;
}

/* The state after ch in a header's name (H_NAME) or value (H_VALUE), or H_BAD with *why set. */
static inline int head_field(int st, unsigned char ch, const char **why)
{
    if (st == H_NAME) {
        if (ch == ':')
            return H_VALUE;
        if (ch == ' ' || ch == '\t')
            *why = "malformed head: whitespace before the colon";
        else if (ch == '\r' || ch == '\n')
            *why = "malformed head: header line without a colon";
        else if (!is_tchar(ch))
            *why = "malformed head: invalid character in a header name";
        else
            return st;
        return H_BAD;
    }
    if (ch == '\r')
        return H_VALUE_LF;
    if (ch == '\n')
        *why = "malformed head: bare LF (a line must end with CRLF)";
    else if (!is_text(ch, 1))
        *why = "malformed head: control character in a header value";
    else
        return st;
    return H_BAD;
}

/* The state after ch in state st: H_DONE after the empty line that ends the head, H_BAD with
 * *why set when ch cannot be there. */
static inline int head_next(int st, unsigned char ch, const char **why)
{
    switch (st) {
    case H_START:
    case H_LINE: return head_start_line(st, ch, why);
    case H_FIELD: return head_field_start(ch, why);
    case H_NAME:
    case H_VALUE: return head_field(st, ch, why);
    case H_START_LF:
    case H_LINE_LF:
    case H_VALUE_LF:
    case H_END_LF:
        if (ch != '\n') {
            *why = "malformed head: bare CR";
            return H_BAD;
        }
        return st == H_START_LF ? H_START : st == H_END_LF ? H_DONE : H_FIELD;
    default: *why = "malformed head"; return H_BAD;
    }
}

int framing_head_feed(struct framing_head *fh, const char *p, size_t len, size_t *used)
{
    const unsigned char *s = (const unsigned char *)p;
    const char *why = NULL;
    int st = fh->state;
    size_t i;

    *used = 0;
    if (st == H_DONE)
        return FRAMING_DONE;
    if (st == H_BAD)
        return FRAMING_BAD;
    for (i = 0; i < len; i++) {
        st = head_next(st, s[i], &why);
        if (st == H_BAD)
            return head_bad(fh, why);
        if (st == H_DONE) {
            fh->state = H_DONE;
            *used = i + 1;
            return FRAMING_DONE;
        }
    }
    fh->state = st;
    *used = len;
    return FRAMING_MORE;
}

/* ---- chunked bodies ---- */

enum {
    C_IDLE = 0,
    C_HEAD_LF, /* the head's last line feed, handed over again */
    C_SIZE0,   /* the first digit of a chunk size */
    C_SIZE,
    C_SIZE_WS, /* whitespace after the size: only a chunk extension may follow */
    C_EXT,
    C_SIZE_LF,
    C_DATA,
    C_DATA_CR,
    C_DATA_LF,
    C_TRAILER,
    C_BAD,
};

/* 16 hex digits fill 64 bits; brock never needs a chunk that large, but refuses only past it. */
#define CHUNK_SIZE_DIGITS 16

void framing_chunks_start(struct framing_chunks *fc)
{
    memset(fc, 0, sizeof(*fc));
    fc->state = C_HEAD_LF;
}

static int chunks_bad(struct framing_chunks *fc, const char *reason)
{
    fc->state = C_BAD;
    fc->reason = reason;
    return FRAMING_BAD;
}

/* One byte of a chunk's size line: the size, whitespace, an extension, the line end. */
static int chunk_size_byte(struct framing_chunks *fc, unsigned char ch)
{
    int d;

    switch (fc->state) {
    case C_SIZE0:
    case C_SIZE:
        d = hex_digit(ch);
        if (d >= 0) {
            if (++fc->digits > CHUNK_SIZE_DIGITS)
                return chunks_bad(fc, "invalid chunk size: too large");
            fc->left = fc->left << 4 | (uint64_t)d;
            fc->state = C_SIZE;
        } else if (fc->state == C_SIZE0) {
            return chunks_bad(fc, "invalid chunk size: not a hexadecimal number");
        } else if (ch == '\r') {
            fc->state = C_SIZE_LF;
        } else if (ch == ';') {
            fc->state = C_EXT;
        } else if (ch == ' ' || ch == '\t') {
            fc->state = C_SIZE_WS;
        } else {
            return chunks_bad(fc, "invalid chunk size: junk after the number");
        }
        return 0;
    case C_SIZE_WS:
        if (ch == ';')
            fc->state = C_EXT;
        else if (ch != ' ' && ch != '\t')
            return chunks_bad(fc, "invalid chunk size: junk after the number");
        return 0;
    case C_EXT:
        if (ch == '\r')
            fc->state = C_SIZE_LF;
        else if (ch == '\n')
            return chunks_bad(fc, "invalid chunk: bare LF in the chunk size line");
        else if (!is_text(ch, 1))
            return chunks_bad(fc, "invalid chunk: control character in a chunk extension");
        return 0;
    case C_SIZE_LF:
        if (ch != '\n')
            return chunks_bad(fc, "invalid chunk: bare CR in the chunk size line");
        if (fc->left == 0) {
            fc->state = C_TRAILER;
            head_start_fields(&fc->trailer);
        } else {
            fc->state = C_DATA;
        }
        return 0;
    default: return chunks_bad(fc, "invalid chunk");
    }
}

int framing_chunks_feed(struct framing_chunks *fc, const char *p, size_t len, size_t *used)
{
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0;

    *used = 0;
    if (fc->state == C_BAD)
        return FRAMING_BAD;
    while (i < len && fc->state != C_IDLE) {
        unsigned char ch = s[i];

        switch (fc->state) {
        case C_HEAD_LF:
            if (ch != '\n')
                return chunks_bad(fc, "malformed head: bare CR");
            fc->state = C_SIZE0;
            break;
        case C_SIZE0:
        case C_SIZE:
        case C_SIZE_WS:
        case C_EXT:
        case C_SIZE_LF:
            if (chunk_size_byte(fc, ch) < 0)
                return FRAMING_BAD;
            break;
        case C_DATA: {
            /* The data itself is not looked at: skip it whole. */
            size_t n = len - i;

            if ((uint64_t)n > fc->left)
                n = (size_t)fc->left;
            fc->left -= n;
            i += n;
            if (fc->left == 0)
                fc->state = C_DATA_CR;
            continue;
        }
        case C_DATA_CR:
            if (ch != '\r')
                return chunks_bad(fc, "invalid chunk: data longer than its size");
            fc->state = C_DATA_LF;
            break;
        case C_DATA_LF:
            if (ch != '\n')
                return chunks_bad(fc, "invalid chunk: bare CR after the data");
            fc->state = C_SIZE0;
            fc->digits = 0;
            fc->left = 0;
            break;
        case C_TRAILER: {
            size_t n;
            int rc = framing_head_feed(&fc->trailer, p + i, len - i, &n);

            if (rc == FRAMING_BAD)
                return chunks_bad(fc, fc->trailer.reason);
            i += n;
            if (rc == FRAMING_DONE) {
                fc->state = C_IDLE;
                *used = i;
                return FRAMING_DONE;
            }
            continue;
        }
        default: return chunks_bad(fc, "invalid chunk");
        }
        i++;
    }
    *used = i;
    return FRAMING_MORE;
}

/* ---- header values, Content-Length ---- */

static int name_is(const struct brock_header *h, const char *name)
{
    size_t n = strlen(name);

    return h->name_len == n && strncasecmp(h->name, name, n) == 0;
}

static int is_ows(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* The next comma-separated element of v[*pos..len), OWS trimmed; 0 once none is left. */
static int next_element(const char *v, size_t len, size_t *pos, const char **el, size_t *el_len)
{
    size_t a = *pos, b;

    if (a > len)
        return 0;
    b = a;
    while (b < len && v[b] != ',')
        b++;
    *pos = b + 1;
    while (a < b && is_ows(v[a]))
        a++;
    while (b > a && is_ows(v[b - 1]))
        b--;
    *el = v + a;
    *el_len = b - a;
    return 1;
}

/* Whether s[0..len) is a plain decimal number that fits in 63 bits (http-parser's limit). */
static int is_decimal(const char *s, size_t len)
{
    uint64_t v = 0;
    size_t i;

    if (len == 0)
        return 0;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        if (v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)(s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return 1;
}

static int check_content_length(const struct brock_header *h, size_t n, int *seen,
                                const char **reason)
{
    size_t i;

    for (i = 0; i < n; i++) {
        size_t pos = 0, el_len;
        const char *el;

        if (!name_is(&h[i], "Content-Length"))
            continue;
        while (next_element(h[i].value, h[i].value_len, &pos, &el, &el_len)) {
            if (*seen) {
                *reason = "ambiguous framing: more than one Content-Length";
                return FRAMING_BAD;
            }
            if (!is_decimal(el, el_len)) {
                *reason = "ambiguous framing: invalid Content-Length";
                return FRAMING_BAD;
            }
            *seen = 1;
        }
    }
    return 0;
}

/* ---- Transfer-Encoding ---- */

/* Walking one Transfer-Encoding value: where it is, and what the codings so far made of te. */
struct te_walk {
    const char *v;
    size_t len, i;
    struct framing_te *te;
    const char *reason;
};

static int te_bad(struct te_walk *w, const char *reason)
{
    w->reason = reason;
    return -1;
}

static void te_skip_ows(struct te_walk *w)
{
    while (w->i < w->len && is_ows(w->v[w->i]))
        w->i++;
}

/* A token at the walk's position: its length (0: none), the walk moved past it. */
static size_t te_token(struct te_walk *w)
{
    size_t from = w->i;

    while (w->i < w->len && is_tchar((unsigned char)w->v[w->i]))
        w->i++;
    return w->i - from;
}

/* A quoted-string (RFC 9110 5.6.4) at the walk's position: its length with the quotes (0: not
 * one, or not closed), the walk moved past it. */
static size_t te_quoted(struct te_walk *w)
{
    size_t from = w->i;

    if (w->i >= w->len || w->v[w->i] != '"')
        return 0;
    for (w->i++; w->i < w->len; w->i++) {
        unsigned char ch = (unsigned char)w->v[w->i];

        if (ch == '"')
            return ++w->i - from;
        if (ch == '\\' && ++w->i == w->len)
            break;
        if (!is_text((unsigned char)w->v[w->i], 1))
            break;
    }
    w->i = from;
    return 0;
}

/* Appends p[0..len) to the plain form; one that does not fit is refused. */
static int te_put(struct te_walk *w, const char *p, size_t len)
{
    struct framing_te *te = w->te;

    if (len >= sizeof(te->normal) - te->normal_len)
        return te_bad(w, "ambiguous framing: Transfer-Encoding longer than brock forwards");
    memcpy(te->normal + te->normal_len, p, len);
    te->normal_len += len;
    te->normal[te->normal_len] = '\0';
    return 0;
}

/* The parameters after a coding: *( OWS ";" OWS name BWS "=" BWS ( token / quoted-string ) ),
 * kept in the plain form unless the coding is chunked, which defines none: there they mean
 * nothing to brock, and whoever reads the message next sees a plain chunked. */
static int te_params(struct te_walk *w, int keep)
{
    for (;;) {
        size_t name, name_len, value, value_len;

        te_skip_ows(w);
        if (w->i == w->len || w->v[w->i] != ';')
            return 0;
        w->i++;
        te_skip_ows(w);
        name = w->i;
        name_len = te_token(w);
        te_skip_ows(w);
        if (name_len == 0 || w->i == w->len || w->v[w->i] != '=')
            return te_bad(w, "ambiguous framing: invalid Transfer-Encoding parameter");
        w->i++;
        te_skip_ows(w);
        value = w->i;
        value_len = te_token(w);
        if (value_len == 0)
            value_len = te_quoted(w);
        if (value_len == 0)
            return te_bad(w, "ambiguous framing: invalid Transfer-Encoding parameter");
        w->te->unusual = 1;
        if (keep && (te_put(w, ";", 1) < 0 || te_put(w, w->v + name, name_len) < 0 ||
                     te_put(w, "=", 1) < 0 || te_put(w, w->v + value, value_len) < 0))
            return -1;
    }
}

/* One Transfer-Encoding field value, coding by coding, in order after those of the fields
 * before it. An empty element is valid (RFC 9110 5.6.1) but refused: parsers disagree on it. */
static int te_field(struct te_walk *w)
{
    struct framing_te *te = w->te;

    for (;;) {
        size_t name, name_len;
        int chunked;

        te_skip_ows(w);
        if (w->i == w->len || w->v[w->i] == ',')
            return te_bad(w, "ambiguous framing: empty Transfer-Encoding element");
        if (te->chunked)
            return te_bad(w, "ambiguous framing: chunked is not the last Transfer-Encoding");
        name = w->i;
        name_len = te_token(w);
        if (name_len == 0)
            return te_bad(w, "ambiguous framing: invalid Transfer-Encoding");
        chunked = name_len == 7 && strncasecmp(w->v + name, "chunked", 7) == 0;
        if ((te->seen && te_put(w, ", ", 2) < 0) ||
            te_put(w, chunked ? "chunked" : w->v + name, name_len) < 0)
            return -1;
        te->seen = 1;
        if (te_params(w, !chunked) < 0)
            return -1;
        te->chunked = chunked;
        if (w->i == w->len)
            return 0;
        if (w->v[w->i] != ',')
            return te_bad(w, "ambiguous framing: invalid Transfer-Encoding");
        w->i++;
    }
}

/* Walks every coding of every Transfer-Encoding in order into *te. */
static int check_transfer_encoding(const struct brock_header *h, size_t n, struct framing_te *te,
                                   const char **reason)
{
    size_t fields = 0;

    memset(te, 0, sizeof(*te));
    for (size_t i = 0; i < n; i++) {
        struct te_walk w = {h[i].value, h[i].value_len, 0, te, NULL};

        if (!name_is(&h[i], "Transfer-Encoding"))
            continue;
        if (te_field(&w) < 0) {
            *reason = w.reason;
            return FRAMING_BAD;
        }
        fields++;
    }
    /* Only one field with the bare word is what every reader reads alike. */
    if (te->seen && (fields > 1 || te->normal_len != 7))
        te->unusual = 1;
    for (size_t i = 0; te->seen && !te->unusual && i < n; i++)
        if (name_is(&h[i], "Transfer-Encoding") && h[i].value_len != 7)
            te->unusual = 1;
    return 0;
}

/* One request names one host. Two Host headers, or one holding a list (what joining two
 * makes), could be read one way by brock (the dashboard's own-address check) and another by
 * whatever reads the request next (RFC 9112 3.2: answered 400). */
static int check_host(const struct brock_header *h, size_t n, const char **reason)
{
    int seen = 0;

    for (size_t i = 0; i < n; i++) {
        if (!name_is(&h[i], "Host"))
            continue;
        if (seen) {
            *reason = "ambiguous host: more than one Host header";
            return FRAMING_BAD;
        }
        if (memchr(h[i].value, ',', h[i].value_len)) {
            *reason = "ambiguous host: a list of hosts in the Host header";
            return FRAMING_BAD;
        }
        seen = 1;
    }
    return 0;
}

int framing_check_headers(const struct brock_header *h, size_t n, unsigned flags,
                          struct framing_te *te, const char **reason)
{
    int cl = 0;

    memset(te, 0, sizeof(*te));
    if (!(flags & FRAMING_RESPONSE) && check_host(h, n, reason) < 0)
        return FRAMING_BAD;
    if (check_content_length(h, n, &cl, reason) < 0 ||
        check_transfer_encoding(h, n, te, reason) < 0)
        return FRAMING_BAD;
    if (cl && te->seen) {
        *reason = "ambiguous framing: Content-Length with Transfer-Encoding";
        return FRAMING_BAD;
    }
    if (te->seen && (flags & FRAMING_HTTP10)) {
        *reason = "ambiguous framing: Transfer-Encoding in an HTTP/1.0 message";
        return FRAMING_BAD;
    }
    if (te->seen && !te->chunked) {
        /* A request's body length would be unknown (RFC 9112 6.3); a response's would end at
         * close, which a proxy cannot tell from a cut connection. */
        *reason = "ambiguous framing: Transfer-Encoding does not end with chunked";
        return FRAMING_BAD;
    }
    return 0;
}
