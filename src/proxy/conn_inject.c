/* SPDX-License-Identifier: GPL-3.0-or-later */
/* brock's own script in the HTML documents it passes (web/inject.js, built in): which
 * responses get it, their heads changed to say what the client now gets (no Content-Length or
 * Content-Encoding, chunked or until close, the Content-Security-Policy letting the script
 * run), and their bodies decoded, given to the injector and written out, as fast as the client
 * takes them. */
#include "proxy/conn.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "dash/dash.h"
#include "proxy/conn_features.h"
#include "proxy/conn_internal.h"
#include "proxy/csp.h"
#include "proxy/proxy.h"
#include "proxy/workers.h"
#include "proxy/decode.h"
#include "proxy/inject.h"
#include "proxy/limits.h"
#include "proxy/report.h"
#include "proxy/scriptjobs.h"
#include "util/alloc.h"

/* Decoded bytes per step: what one step may add to the client's output past its limit. */
#define INJECT_STEP_BYTES ((size_t)16 * 1024)

struct conn_inject {
    struct inject in;
    struct decoder *dec; /* NULL: the body is not encoded */
    struct conn *c;
    size_t left_off; /* a piece of body not done yet: where it is in the upstream's */
    size_t left_len; /* input (pump_piece), and how much of it is left */
    int waiting;     /* the client had no room: the piece (or the decoder) waits */
    struct buf csp;  /* the amended Content-Security-Policy values */
    struct buf tag;  /* the script element for this document */
    char out[INJECT_STEP_BYTES];
};

int conn_inject_prepare(struct proxy *px, char *err, size_t errlen)
{
    const struct dash_file *f = NULL;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    char b64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];

    for (size_t i = 0; i < dash_n_files && !f; i++)
        if (!strcmp(dash_files[i].name, "inject.js"))
            f = &dash_files[i];
    if (!f || !EVP_Digest(f->data, f->len, md, &md_len, EVP_sha256(), NULL)) {
        snprintf(err, errlen, "could not ready brock's page script");
        return -1;
    }
    /* The script's text is the same in every document, so one hash lets it run everywhere;
     * what differs per document (its token) rides in an attribute, which the hash does not
     * cover. */
    EVP_EncodeBlock((unsigned char *)b64, md, (int)md_len);
    snprintf(px->inject_hash, sizeof(px->inject_hash), "'sha256-%s'", b64);
    px->report = mem_malloc(sizeof(*px->report));
    if (px->report && px->opts->worker)
        *px->report = *px->opts->worker->report;
    else if (px->report && report_keys_init(px->report) < 0) {
        mem_free(px->report);
        px->report = NULL;
    }
    if (!px->report) {
        mem_free(px->report);
        px->report = NULL;
        snprintf(err, errlen, "could not draw the random keys of brock's page script");
        return -1;
    }
    px->inject_js = (const char *)f->data;
    px->inject_js_len = f->len;
    return 0;
}

void conn_inject_cleanup(struct proxy *px)
{
    if (px->report) {
        report_keys_cleanup(px->report);
        mem_free(px->report);
        px->report = NULL;
    }
    px->inject_js = NULL;
}

void conn_inject_free(struct conn_inject *j)
{
    if (!j)
        return;
    decoder_free(j->dec);
    buf_cleanup(&j->csp);
    buf_cleanup(&j->tag);
    mem_free(j);
}

/* Whether a Content-Type is an HTML document's: text/html or application/xhtml+xml, with any
 * parameters. */
static int is_html(const char *v)
{
    size_t n;

    if (!v)
        return 0;
    v += strspn(v, " \t");
    n = strcspn(v, "; \t");
    return (n == 9 && !strncasecmp(v, "text/html", n)) ||
           (n == 21 && !strncasecmp(v, "application/xhtml+xml", n));
}

/* The coding of the response's body, or -1 when brock cannot undo it (another, a list of
 * several, more than one header). */
static int body_coding(const struct http_head *hh)
{
    int coding = DECODE_IDENTITY, seen = 0;

    for (size_t i = 0; i < hh->n; i++) {
        if (!http_name_is(hh->h[i].name, hh->h[i].name_len, "content-encoding"))
            continue;
        if (seen++)
            return -1;
        coding = decode_coding_parse(hh->h[i].value, hh->h[i].value_len);
    }
    return coding;
}

/* Whether the exchange is a document brock's script goes into, when its answer has a body to
 * put it in: a page or a frame, not HEAD, not answered by brock, not on a site where brock is
 * disabled. */
static int is_for_script(const struct conn *c)
{
    const struct exchange *x = &c->c_ex;
    const char *site = x->site_known ? x->site : NULL;
    char client[64];

    if (!c->px->inject_js || x->is_local || x->is_head)
        return 0;
    if (x->type != BROCK_RESOURCE_MAIN_FRAME && x->type != BROCK_RESOURCE_SUB_FRAME)
        return 0;
    return (!x->d || x->d->reason != BROCK_WHY_DISABLED) &&
           !(site && brock_site_is_disabled(c->px->engine, site)) &&
           !brock_client_site_is_disabled(c->px->engine, conn_client_key(c, client), site);
}

/* The jobs of brock's script in the final response whose head c's upstream side holds
 * (0: it gets no script): a document (is_for_script()) in HTML, with a body brock can read
 * (scriptjobs.h says what it does there). A 206 is a part of a document, whose bytes must
 * match the rest the client has. */
static unsigned script_jobs(const struct conn *c)
{
    const struct exchange *x = &c->c_ex;
    const struct side *u = &c->c_up;
    const char *site = x->site_known ? x->site : NULL;
    int status = u->parser.status_code;
    struct script_doc doc;
    char client[64];

    if (!is_for_script(c))
        return 0;
    if (status / 100 == 1 || status == 204 || status == 206 || status == 304 ||
        (u->parser.flags & F_SKIPBODY))
        return 0;
    if (u->te.seen && u->te.unusual && strcmp(u->te.normal, "chunked") != 0)
        return 0;
    if (!is_html(conn_header(&u->head, "content-type")) || body_coding(&u->head) < 0)
        return 0;
    doc.host = x->host;
    doc.signals = brock_client_send_signals(c->px->engine, conn_client_key(c, client), site);
    doc.learning = brock_engine_learning(c->px->engine);
    doc.place = SCRIPT_UNPLACED;
    if (x->navigation & REPORT_DOC_TOP)
        doc.place = SCRIPT_PAGE;
    else if (x->navigation & REPORT_DOC_FRAME)
        doc.place = (x->navigation & REPORT_DOC_CROSS) ? SCRIPT_FRAME_CROSS : SCRIPT_FRAME_SAME;
    return script_jobs_choose(&doc);
}

/* The script element for this document: its text, and in an attribute what it needs to know
 * here (the text stays the same, and so its hash): the token of this document, the channel's
 * path, and its jobs. A document whose script does not talk to brock (no report, no widget:
 * brock gave it no token) is told "-" for both, and so learns no path either. The attribute
 * is hexadecimal digits, a path and letters: nothing to escape, in HTML or XHTML. */
static int script_tag(struct conn *c, struct buf *tag, unsigned jobs)
{
    const struct exchange *x = &c->c_ex;
    char token[REPORT_TOKEN_MAX + 1] = "-", letters[8];
    const char *path = "-";
    struct report_doc doc = {.flags = x->navigation, .issued_s = conn_now_ms(c) / 1000};
    int r;

    if (jobs & (SCRIPT_REPORTS | SCRIPT_WIDGETS)) {
        /* The top-level page's site as brock recorded the navigation: a page's own host, a
         * frame's page's. */
        snprintf(doc.site, sizeof(doc.site), "%s",
                 (doc.flags & REPORT_DOC_TOP) || !x->site ? x->host : x->site);
        if (report_token_make(c->px->report, x->host, &doc, token) < 0)
            return -1;
        path = c->px->report->path;
    }
    script_jobs_letters(jobs, letters);
    r = buf_printf(tag, "<script data-brock=\"%s %s %s\">", token, path, letters);
    if (r == 0)
        r = buf_append(tag, c->px->inject_js, c->px->inject_js_len);
    if (r == 0)
        r = buf_puts(tag, "</script>");
    OPENSSL_cleanse(token, sizeof(token));
    return r;
}

int conn_inject_start(struct conn *c, enum frame *f, unsigned *flags, int *must_close)
{
    struct exchange *x = &c->c_ex;
    struct conn_inject *j;
    unsigned jobs = script_jobs(c);
    int coding;

    if (!jobs)
        return 0;
    coding = body_coding(&c->c_up.head);
    j = mem_calloc(1, sizeof(*j));
    if (!j || (coding != DECODE_IDENTITY && !(j->dec = decoder_new((enum decode_coding)coding)))) {
        mem_free(j);
        return -1;
    }
    j->c = c;
    buf_init(&j->csp, LIMIT_HEAD_BYTES);
    buf_init(&j->tag, c->px->inject_js_len + REPORT_TOKEN_MAX + 256);
    x->filter = j;
    if (script_tag(c, &j->tag, jobs) < 0)
        return -1;
    /* The body's length changes: chunked to a client that reads it, until close to one that
     * does not. */
    if (x->client_http10) {
        *f = FRAME_CLOSE;
        *flags = (*flags & ~(unsigned)REWRITE_CHUNKED) | REWRITE_UNCHUNKED | REWRITE_CLOSE;
        *must_close = 1;
    } else {
        *f = FRAME_CHUNKED;
        *flags = (*flags & ~(unsigned)REWRITE_UNCHUNKED) | REWRITE_CHUNKED;
    }
    return 0;
}

/* Headers that describe the bytes as the origin sent them, which the client no longer gets:
 * their length, coding and digests; and Accept-Ranges, since a range of the origin's bytes
 * would not fit the document the client holds. */
static int describes_bytes(const struct brock_header *h, int decoded)
{
    static const char *const names[] = {
        "content-length", "content-md5", "digest", "content-digest", "repr-digest", "accept-ranges",
    };

    if (decoded && http_name_is(h->name, h->name_len, "content-encoding"))
        return 1;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (http_name_is(h->name, h->name_len, names[i]))
            return 1;
    return 0;
}

/* Each Content-Security-Policy header lets brock's script run (csp.h). Report-Only ones are
 * left alone: they refuse nothing. A policy in a <meta http-equiv> element needs nothing: it
 * applies only to what follows it in the document, and brock's script comes first in the
 * head, before any such element can. */
static int amend_policies(struct conn_inject *j, struct rewrite_out *o)
{
    size_t off[sizeof(o->h) / sizeof(o->h[0])], len[sizeof(o->h) / sizeof(o->h[0])];
    struct buf one;
    int rc = 0;

    buf_init(&one, LIMIT_HEAD_BYTES);
    buf_reset(&j->csp);
    for (size_t i = 0; i < o->n && rc == 0; i++) {
        int amended;

        off[i] = len[i] = 0;
        if (!http_name_is(o->h[i].name, o->h[i].name_len, "content-security-policy"))
            continue;
        amended = csp_amend(o->h[i].value, o->h[i].value_len, j->c->px->inject_hash, &one);
        if (amended < 0 || (amended > 0 && buf_append(&j->csp, one.data, one.len) < 0)) {
            rc = -1;
            break;
        }
        off[i] = j->csp.len - one.len;
        len[i] = amended > 0 ? one.len : 0;
    }
    buf_cleanup(&one);
    /* The views are set once the buffer stops growing. */
    for (size_t i = 0; i < o->n && rc == 0; i++) {
        if (len[i] == 0)
            continue;
        o->h[i].value = j->csp.data + off[i];
        o->h[i].value_len = len[i];
    }
    return rc;
}

/* Each ETag in o made weak (RFC 9110 8.8.1): the client no longer gets the origin's bytes,
 * only a document that means the same, so a strong validator would wrongly vouch for them
 * (a range of the origin's bytes asked with If-Range would be spliced into it). A weak one
 * stays as it is; one that is not an entity tag is dropped. The new values are kept in o's
 * scratch, which rewrite_response() left empty. Returns 0, or -1 when out of memory. */
static int weaken_etags(struct rewrite_out *o)
{
    size_t off[sizeof(o->h) / sizeof(o->h[0])], k = 0;
    int rc = 0;

    for (size_t i = 0; i < o->n; i++) {
        const struct brock_header *h = &o->h[i];
        const char *v = h->value;
        size_t n = h->value_len;

        off[k] = SIZE_MAX;
        if (!http_name_is(h->name, h->name_len, "etag")) {
            o->h[k++] = *h;
            continue;
        }
        for (; n > 0 && (*v == ' ' || *v == '\t'); v++, n--)
            ;
        for (; n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'); n--)
            ;
        if (n >= 4 && v[0] == 'W' && v[1] == '/' && v[2] == '"' && v[n - 1] == '"') {
            o->h[k++] = *h;
            continue;
        }
        if (n < 2 || v[0] != '"' || v[n - 1] != '"')
            continue;
        off[k] = o->scratch.len;
        if (buf_append(&o->scratch, "W/", 2) < 0 || buf_append(&o->scratch, v, n) < 0) {
            rc = -1;
            break;
        }
        o->h[k] = *h;
        o->h[k++].value_len = n + 2;
    }
    if (rc < 0)
        return rc;
    o->n = k;
    /* The views are set once the scratch stops growing. */
    for (size_t i = 0; i < k; i++)
        if (off[i] != SIZE_MAX)
            o->h[i].value = o->scratch.data + off[i];
    return 0;
}

int conn_inject_head(struct conn *c, struct rewrite_out *o)
{
    struct conn_inject *j = c->c_ex.filter;
    size_t k = 0;

    if (!j) {
        /* A 304 to a document brock would have put its script in updates the copy the client
         * keeps, whose ETag brock made weak: the 304's must not make it strong again. */
        if (c->c_up.parser.status_code == 304 && is_for_script(c))
            return weaken_etags(o);
        return 0;
    }
    for (size_t i = 0; i < o->n; i++)
        if (!describes_bytes(&o->h[i], j->dec != NULL))
            o->h[k++] = o->h[i];
    o->n = k;
    if (weaken_etags(o) < 0)
        return -1;
    return amend_policies(j, o);
}

/* The injector's output to the client, in the response's framing. */
static int on_emit(void *arg, const char *p, size_t len)
{
    struct conn_inject *j = arg;
    struct side *to = &j->c->c_client;

    if (j->c->c_ex.resp_frame != FRAME_CHUNKED)
        return pump_write(to, p, len);
    return pump_printf(to, "%zx\r\n", len) < 0 || pump_write(to, p, len) < 0 ||
                   pump_write(to, "\r\n", 2) < 0
               ? -1
               : 0;
}

/* Decodes and injects p[0..len) while the client has room; what is left waits (1). Returns 0
 * when all of it went, 1 when it waits, -1 when the connection ended. */
static int run_piece(struct conn *c, struct conn_inject *j, const char *p, size_t len)
{
    const char *start = p;

    j->waiting = 0;
    if (!j->dec) {
        /* Undecoded, a piece grows by the script at most. */
        if (inject_feed(&j->in, p, len) == 0)
            return 0;
        conn_out_of_memory(c, "writing a page with brock's script");
        return -1;
    }
    while (len > 0 || decoder_has_more(j->dec)) {
        const char *why = NULL;
        long n;

        if (pump_pending(&c->c_client) >= LIMIT_PENDING_BYTES) {
            j->left_off += (size_t)(p - start);
            j->left_len = len;
            j->waiting = 1;
            return 1;
        }
        n = decoder_run(j->dec, &p, &len, j->out, sizeof(j->out), &why);
        if (n < 0) {
            conn_bad_body(c, why);
            return -1;
        }
        if (n > 0 && inject_feed(&j->in, j->out, (size_t)n) < 0) {
            conn_out_of_memory(c, "writing a page with brock's script");
            return -1;
        }
    }
    return 0;
}

int conn_inject_body(struct conn *c, const struct side_event *ev)
{
    struct conn_inject *j = c->c_ex.filter;

    if (j->in.emit == NULL)
        inject_init(&j->in, j->tag.data, j->tag.len, on_emit, j);
    j->left_off = pump_piece_offset(&c->c_up, ev->at);
    return run_piece(c, j, ev->at, ev->len);
}

int conn_inject_resume(struct conn *c)
{
    struct conn_inject *j = c->c_ex.filter;
    const char *p = "";

    if (!j || !j->waiting)
        return 0;
    if (j->left_len > 0 && !(p = pump_piece(&c->c_up, j->left_off, j->left_len))) {
        conn_bad_body(c, "a piece of it was lost");
        return -1;
    }
    return run_piece(c, j, p, j->left_len);
}

int conn_inject_end(struct conn *c)
{
    struct conn_inject *j = c->c_ex.filter;
    const char *why = NULL;

    if (j->in.emit == NULL)
        inject_init(&j->in, j->tag.data, j->tag.len, on_emit, j);
    if (j->dec && decoder_finish(j->dec, &why) < 0) {
        conn_bad_body(c, why);
        return -1;
    }
    if (inject_end(&j->in) < 0 ||
        (c->c_ex.resp_frame == FRAME_CHUNKED && pump_write(&c->c_client, "0\r\n\r\n", 5) < 0)) {
        conn_out_of_memory(c, "writing a page with brock's script");
        return -1;
    }
    return 0;
}
