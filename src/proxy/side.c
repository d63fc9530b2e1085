/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading one side of a connection: each piece of input checked by the strict framing scanners
 * before http-parser sees it, heads gathered, and every head, piece of body and end of message
 * handed out as an event. The parser stops at each; the caller acts and feeds on. */
#include "proxy/side.h"

#include <limits.h>
#include <string.h>

#include "proxy/rewrite.h"
#include "util/alloc.h"

/* ---- http-parser's callbacks, one set for both roles ---- */

static struct side *side_of(http_parser *p)
{
    return p->data;
}

static int head_failed(struct side *s, int rc)
{
    if (rc == HTTP_HEAD_OK)
        return 0;
    s->head_err = rc;
    return -1;
}

static int on_begin(http_parser *p)
{
    struct side *s = side_of(p);

    http_head_reset(&s->head);
    s->head_err = 0;
    return 0;
}

/* The request target or the reason phrase: the head's line either way. */
static int on_line(http_parser *p, const char *at, size_t len)
{
    return head_failed(side_of(p), http_head_line(&side_of(p)->head, at, len));
}

static int on_field(http_parser *p, const char *at, size_t len)
{
    return head_failed(side_of(p), http_head_field(&side_of(p)->head, at, len));
}

static int on_value(http_parser *p, const char *at, size_t len)
{
    return head_failed(side_of(p), http_head_value(&side_of(p)->head, at, len));
}

/* Whether http-parser would read a body of known length after this head: such a body needs no
 * parsing and moves as it is (side_feed), the parser starting afresh after it. */
static int has_plain_body(const http_parser *p, int skip)
{
    if (skip || (p->flags & F_CHUNKED))
        return 0;
    if (p->content_length == 0 || p->content_length == ULLONG_MAX)
        return 0;
    /* A CONNECT's head is followed by the tunnel, whatever it says. */
    return !(p->upgrade && p->type == HTTP_REQUEST && p->method == HTTP_CONNECT);
}

/* Whether a response with this status has no body, whatever its head says (RFC 9112 6.3):
 * a 1xx, a 204 or a 304 ends at its empty line. */
static int is_bodiless_status(int status)
{
    return status / 100 == 1 || status == 204 || status == 304;
}

/* A request method that gives a body no meaning (RFC 9110 9.3): one that carries one anyway
 * may be read with it by brock and without it by the origin. */
static int is_bodiless_method(unsigned method)
{
    return method == HTTP_GET || method == HTTP_HEAD || method == HTTP_DELETE ||
           method == HTTP_OPTIONS || method == HTTP_TRACE;
}

/* Whether a checked head's framing is one brock passes on but bets no connection on: an
 * unusual Transfer-Encoding, a body announced where it means nothing (a request whose method
 * has no use for one) or cannot be (a 1xx or 204; a 304 and a HEAD's answer may say what a GET
 * would get). */
static int is_doubtful(const struct side *s)
{
    const http_parser *p = &s->parser;
    int announced = s->te.seen || (p->content_length > 0 && p->content_length != ULLONG_MAX);

    if (s->te.unusual)
        return 1;
    if (s->role == SIDE_CLIENT)
        return announced && is_bodiless_method(p->method);
    return announced && (p->status_code / 100 == 1 || p->status_code == 204);
}

/* Forgets the last head's Transfer-Encoding. */
static void forget_te(struct side *s)
{
    mem_free(s->te.normal);
    memset(&s->te, 0, sizeof(s->te));
}

/* Keeps what the framing check read of the head's Transfer-Encoding; an unusual one's plain
 * words are copied. Returns 0, or -1 when out of memory. */
static int keep_te(struct side *s, const struct framing_te *te)
{
    forget_te(s);
    if (te->unusual && !(s->te.normal = mem_strndup(te->normal, te->normal_len)))
        return -1;
    s->te.seen = te->seen;
    s->te.chunked = te->chunked;
    s->te.unusual = te->unusual;
    s->te.normal_len = te->unusual ? te->normal_len : 0;
    return 0;
}

/* The head is in: its framing headers must be unambiguous. A response to HEAD, and one whose
 * status has no body, ends here whatever its headers say (returning 1 tells http-parser so);
 * the bytes an upstream sends after it belong to no message. */
static int on_headers_complete(http_parser *p)
{
    struct side *s = side_of(p);
    struct framing_te te;
    unsigned flags = s->role == SIDE_UPSTREAM ? FRAMING_RESPONSE : 0;
    int skip = s->role == SIDE_UPSTREAM && (s->no_body || is_bodiless_status(p->status_code));

    http_head_finish(&s->head);
    if (p->http_major < 1 || (p->http_major == 1 && p->http_minor == 0))
        flags |= FRAMING_HTTP10;
    if (framing_check_headers(s->head.h, s->head.n, flags, &te, &s->frame_err) < 0)
        return -1;
    if (keep_te(s, &te) < 0)
        return head_failed(s, HTTP_HEAD_TOO_BIG);
    /* http-parser knows chunked only as the bare word; the body is chunked whenever the
     * check says so (a list, parameters, whitespace), so that both read it alike. */
    if (s->te.chunked && !skip)
        p->flags |= F_CHUNKED;
    s->doubtful = is_doubtful(s);
    if ((p->flags & F_CHUNKED) && !skip) {
        framing_chunks_start(&s->fc);
        s->rearmed = 1;
    }
    s->raw = has_plain_body(p, skip);
    s->raw_lf = s->raw;
    s->raw_left = s->raw ? p->content_length : 0;
    s->ev.type = SIDE_HEAD;
    http_parser_pause(p, 1);
    return skip ? 1 : 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
    struct side *s = side_of(p);

    s->ev.type = SIDE_BODY;
    s->ev.at = at;
    s->ev.len = len;
    http_parser_pause(p, 1);
    return 0;
}

/* A message ended, parsed or moved: the next one is checked afresh. An interim response
 * (100 Continue) is no event: the real one follows, its head checked anew. */
static void message_end(struct side *s)
{
    http_parser *p = &s->parser;

    framing_head_reset(&s->fh);
    memset(&s->fc, 0, sizeof(s->fc));
    s->rearmed = 1;
    if (s->role == SIDE_UPSTREAM && p->status_code / 100 == 1 && p->status_code != 101)
        return;
    s->keep_alive = http_should_keep_alive(p);
    s->ev.type = p->upgrade ? SIDE_UPGRADE : SIDE_DONE;
}

static int on_complete(http_parser *p)
{
    message_end(side_of(p));
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings side_settings = {
    .on_message_begin = on_begin,
    .on_url = on_line,
    .on_status = on_line,
    .on_header_field = on_field,
    .on_header_value = on_value,
    .on_headers_complete = on_headers_complete,
    .on_body = on_body,
    .on_message_complete = on_complete,
};

/* ---- feeding ---- */

void side_init(struct side *s)
{
    http_head_init(&s->head);
    memset(&s->te, 0, sizeof(s->te));
}

void side_release(struct side *s)
{
    http_head_cleanup(&s->head);
    http_head_init(&s->head);
    forget_te(s);
}

void side_cleanup(struct side *s)
{
    http_head_cleanup(&s->head);
    forget_te(s);
}

void side_start(struct side *s, enum side_role role)
{
    s->role = role;
    http_parser_init(&s->parser, role == SIDE_CLIENT ? HTTP_REQUEST : HTTP_RESPONSE);
    s->parser.data = s;
    framing_head_reset(&s->fh);
    memset(&s->fc, 0, sizeof(s->fc));
    s->scanned = 0;
    s->rearmed = 0;
    s->raw = s->raw_lf = 0;
    s->raw_left = 0;
    s->keep_alive = 0;
    s->head_err = 0;
    s->frame_err = NULL;
    forget_te(s);
    s->doubtful = 0;
    memset(&s->ev, 0, sizeof(s->ev));
    memset(&s->failed, 0, sizeof(s->failed));
}

/* Ends the side with an error; every later call gets it again. */
static size_t refuse(struct side *s, enum side_error error, const char *reason,
                     struct side_event *ev)
{
    memset(&s->failed, 0, sizeof(s->failed));
    s->failed.type = SIDE_ERROR;
    s->failed.error = error;
    s->failed.reason = reason;
    *ev = s->failed;
    return 0;
}

/* An error of http-parser's in words a person reads (its own are its internals': "invalid
 * constant string"). The callbacks' errors are brock's own refusals, said before this. */
static const char *parse_error_text(enum http_errno e)
{
    switch (e) {
    case HPE_INVALID_EOF_STATE: return "the stream ended in the middle of a message";
    case HPE_HEADER_OVERFLOW: return "the head is too large";
    case HPE_CLOSED_CONNECTION: return "bytes came after a message that closed the connection";
    case HPE_INVALID_VERSION: return "the HTTP version is not valid";
    case HPE_INVALID_STATUS: return "the status code is not valid";
    case HPE_INVALID_METHOD: return "the request method is not one brock knows";
    case HPE_INVALID_URL:
    case HPE_INVALID_HOST:
    case HPE_INVALID_PORT:
    case HPE_INVALID_PATH:
    case HPE_INVALID_QUERY_STRING:
    case HPE_INVALID_FRAGMENT: return "the request target is not a valid URL";
    case HPE_LF_EXPECTED: return "a line does not end with CRLF";
    case HPE_INVALID_HEADER_TOKEN: return "a header line is malformed";
    case HPE_INVALID_CONTENT_LENGTH: return "ambiguous framing: invalid Content-Length";
    case HPE_UNEXPECTED_CONTENT_LENGTH:
        return "ambiguous framing: a second Content-Length, or one with Transfer-Encoding";
    case HPE_INVALID_CHUNK_SIZE: return "invalid chunk size";
    case HPE_INVALID_CONSTANT: return "the start line is not valid HTTP";
    case HPE_STRICT: return "the message breaks HTTP's syntax";
    case HPE_INVALID_TRANSFER_ENCODING:
        return "ambiguous framing: Transfer-Encoding does not end with chunked";
    default: return "the message is not valid HTTP";
    }
}

/* What an error of http-parser's means; a callback may have said why first. */
static size_t parse_failed(struct side *s, struct side_event *ev)
{
    if (s->frame_err)
        return refuse(s, SIDE_ERR_FRAMING, s->frame_err, ev);
    if (s->head_err)
        return refuse(s, SIDE_ERR_HEAD, "the head is too large or has too many headers", ev);
    return refuse(s, SIDE_ERR_PARSE, parse_error_text(HTTP_PARSER_ERRNO(&s->parser)), ev);
}

/* Checks the bytes of p[0..len) the scanners have not seen yet: a head's, or a chunked body's
 * framing once its head is through. A scanner stops where its part ends, as the parser does
 * (at the head, at the end of the message), so nothing is checked under the wrong rules. */
static int scan(struct side *s, const char *p, size_t len)
{
    size_t used;

    if (s->scanned >= len)
        return 0;
    p += s->scanned;
    len -= s->scanned;
    if (framing_chunks_active(&s->fc)) {
        if (framing_chunks_feed(&s->fc, p, len, &used) == FRAMING_BAD) {
            s->frame_err = s->fc.reason;
            return -1;
        }
    } else if (framing_head_feed(&s->fh, p, len, &used) == FRAMING_BAD) {
        s->frame_err = s->fh.reason;
        return -1;
    }
    s->scanned += used;
    return 0;
}

/* A body of known length: the head's last line feed goes to the parser (which stopped before
 * it), then the body's bytes are handed out as they are; at its end the parser starts afresh
 * for the next message. */
static size_t feed_raw(struct side *s, const char *p, size_t len, struct side_event *ev)
{
    size_t used = 0, n;

    if (s->raw_lf) {
        if (len == 0)
            return 0;
        if (http_parser_execute(&s->parser, &side_settings, p, 1) != 1 ||
            HTTP_PARSER_ERRNO(&s->parser) != HPE_OK)
            return refuse(s, SIDE_ERR_PARSE, "malformed head: no line feed after it", ev);
        s->raw_lf = 0;
        s->scanned = 0;
        used = 1;
    }
    if (s->raw_left == 0) {
        s->raw = 0;
        s->ev.type = SIDE_MORE;
        message_end(s);
        http_parser_init(&s->parser, s->parser.type);
        *ev = s->ev;
        return used;
    }
    n = len - used < s->raw_left ? len - used : (size_t)s->raw_left;
    s->raw_left -= n;
    if (n == 0)
        return used;
    ev->type = SIDE_BODY;
    ev->at = p + used;
    ev->len = n;
    /* The line feed goes with the first piece; it is not body. */
    ev->plain = used == 0;
    return used + n;
}

size_t side_feed(struct side *s, const char *p, size_t len, struct side_event *ev)
{
    size_t used = 0;

    memset(ev, 0, sizeof(*ev));
    if (s->failed.type == SIDE_ERROR) {
        *ev = s->failed;
        return 0;
    }
    if (HTTP_PARSER_ERRNO(&s->parser) == HPE_PAUSED)
        http_parser_pause(&s->parser, 0);
    if (s->raw) {
        used = feed_raw(s, p, len, ev);
        /* Only the end of an interim response's body is no event: the real response follows,
         * parsed below. */
        if (ev->type != SIDE_MORE || s->raw || used == len)
            return used;
    }
    while (used < len) {
        size_t n;
        enum http_errno err;

        if (scan(s, p + used, len - used) < 0)
            return used + refuse(s, SIDE_ERR_FRAMING, s->frame_err, ev);
        memset(&s->ev, 0, sizeof(s->ev));
        s->rearmed = 0;
        n = http_parser_execute(&s->parser, &side_settings, p + used, len - used);
        used += n;
        s->scanned = s->rearmed ? 0 : s->scanned > n ? s->scanned - n : 0;
        err = HTTP_PARSER_ERRNO(&s->parser);
        if (err != HPE_OK && err != HPE_PAUSED) {
            used += parse_failed(s, ev);
            return used;
        }
        if (err == HPE_PAUSED && s->ev.type != SIDE_MORE) {
            *ev = s->ev;
            return used;
        }
        /* Paused with no event: an interim response ended; the next head begins. */
        http_parser_pause(&s->parser, 0);
        if (n == 0)
            return used + refuse(s, SIDE_ERR_PARSE, "the parser stopped making progress", ev);
    }
    return used;
}

enum side_event_type side_end(struct side *s, int broken, struct side_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    if (s->failed.type == SIDE_ERROR) {
        *ev = s->failed;
        return ev->type;
    }
    if (s->raw && !s->raw_lf && s->raw_left == 0) {
        /* The body is through; its end was not asked for yet. */
        (void)feed_raw(s, NULL, 0, ev);
        return ev->type;
    }
    if (s->raw) {
        refuse(s, SIDE_ERR_END, "the stream ended within a body", ev);
        return ev->type;
    }
    if (HTTP_PARSER_ERRNO(&s->parser) == HPE_PAUSED)
        http_parser_pause(&s->parser, 0);
    memset(&s->ev, 0, sizeof(s->ev));
    (void)http_parser_execute(&s->parser, &side_settings, NULL, 0);
    /* Only a clean close ends a body read until close; a broken stream may have lost some. */
    if (HTTP_PARSER_ERRNO(&s->parser) == HPE_PAUSED && s->ev.type != SIDE_MORE && broken) {
        refuse(s, SIDE_ERR_END, "the stream broke within a body read until its close", ev);
        return ev->type;
    }
    if (HTTP_PARSER_ERRNO(&s->parser) == HPE_PAUSED && s->ev.type != SIDE_MORE) {
        *ev = s->ev;
        return ev->type;
    }
    if (HTTP_PARSER_ERRNO(&s->parser) != HPE_OK && HTTP_PARSER_ERRNO(&s->parser) != HPE_PAUSED)
        refuse(s, SIDE_ERR_END, parse_error_text(HTTP_PARSER_ERRNO(&s->parser)), ev);
    return ev->type;
}

/* ---- the framing towards the other side ---- */

void side_rewrite_framing(const struct side *s, struct rewrite_out *o)
{
    int bodiless = s->role == SIDE_UPSTREAM &&
                   (s->parser.status_code / 100 == 1 || s->parser.status_code == 204);
    int put = 0;
    size_t k = 0;

    if (!bodiless && !s->te.unusual)
        return;
    for (size_t i = 0; i < o->n; i++) {
        struct brock_header h = o->h[i];
        int is_te = http_name_is(h.name, h.name_len, "transfer-encoding");

        if (bodiless && (is_te || http_name_is(h.name, h.name_len, "content-length")))
            continue;
        if (is_te && put)
            continue;
        if (is_te) {
            /* One field where the first was, in plain words. */
            h.value = s->te.normal;
            h.value_len = s->te.normal_len;
            put = 1;
        }
        o->h[k++] = h;
    }
    o->n = k;
}

enum frame side_response_frame(const struct side *u, unsigned req, unsigned *rewrite_flags,
                               int *must_close)
{
    const http_parser *p = &u->parser;
    int status = p->status_code;
    enum frame out;

    *rewrite_flags = 0;
    if (status == 101 && (req & SIDE_REQ_UPGRADE)) {
        *rewrite_flags |= REWRITE_UPGRADE;
        out = FRAME_NONE;
    } else if ((req & SIDE_REQ_HEAD) || status == 204 || status == 304 || (p->flags & F_SKIPBODY)) {
        out = FRAME_NONE;
    } else if (p->flags & F_CHUNKED) {
        out = (req & SIDE_REQ_HTTP10) ? FRAME_CLOSE : FRAME_CHUNKED;
        if (req & SIDE_REQ_HTTP10)
            *rewrite_flags |= REWRITE_UNCHUNKED;
    } else if (p->content_length != ULLONG_MAX) {
        out = FRAME_LENGTH;
    } else if (req & SIDE_REQ_HTTP10) {
        out = FRAME_CLOSE;
    } else {
        /* Read until close upstream, chunked to the client: its connection lives on. */
        out = FRAME_CHUNKED;
        *rewrite_flags |= REWRITE_CHUNKED;
    }
    *must_close = out == FRAME_CLOSE || (req & SIDE_REQ_CLOSE);
    if (*must_close && !(*rewrite_flags & REWRITE_UPGRADE))
        *rewrite_flags |= REWRITE_CLOSE;
    return out;
}
