/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Requests of brock's script in pages (report.h): recognised on any host brock proxies,
 * answered by brock and never forwarded, and taken only inside HTTPS that brock intercepts.
 * Each carries the token brock gave its document, which says the document's host, its
 * top-level page and what kind of document it is; what a report says is checked against that
 * and against what brock saw this client load, bounded (reportlimit.h), then learned from
 * (PRIVACY-BADGER.md 3.5, 3.6). A page also asks which social widgets to replace with a
 * placeholder, and says when its user let one load (PRIVACY-BADGER.md 4: conn_widget.c). */
#include "proxy/conn.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proxy/conn_features.h"
#include "proxy/firstparty_share.h"
#include "proxy/proxy.h"
#include "proxy/report.h"
#include "proxy/reportlimit.h"
#include "proxy/workers.h"

int conn_is_report(const struct conn *c, const char *path, size_t path_len)
{
    if (!c->px->report || c->c_ex.is_connect || !path)
        return 0;
    return (int)report_path_of(c->px->report, path, path_len);
}

/* A refused report is said in the log at most once in REPORT_LOG_INTERVAL_S, with the count
 * of those refused since the last line: a page can send as many as it likes. */
static void report_refused(struct conn *c, int status, const char *why)
{
    struct proxy *px = c->px;
    int64_t now = conn_now_ms(c);

    px->report_unsaid++;
    if (px->report_said_ms && now - px->report_said_ms < (int64_t)REPORT_LOG_INTERVAL_S * 1000)
        return;
    log_msg(LOG_INFO,
            "refused %" PRIu64 " report%s of brock's page script, the last for %s from %s "
            "(%d: %s); the next are said at most once a minute",
            px->report_unsaid, px->report_unsaid == 1 ? "" : "s", c->c_ex.host, c->c_peer, status,
            why);
    px->report_unsaid = 0;
    px->report_said_ms = now;
}

/* The answer: 204 for a report taken (whatever it taught), else the status and why. */
int conn_report_answer(struct conn *c, int status, const char *why, int keep)
{
    struct exchange *x = &c->c_ex;

    if (status != 204) {
        report_refused(c, status, why);
        return conn_reply(c, status, why, keep);
    }
    x->status = 204;
    if (pump_printf(&c->c_client, "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\n%s\r\n",
                    keep ? "" : "Connection: close\r\n") < 0) {
        conn_out_of_memory(c, "answering a page's report");
        return -1;
    }
    return 0;
}

int conn_report_limit(struct conn *c, const struct report_doc *doc, int counts_client,
                      const char **why)
{
    switch (report_limits_take(&c->px->report_limits, doc->id, c->c_peer, counts_client,
                               conn_now_ms(c))) {
    case REPORT_LIMIT_OK: return 0;
    case REPORT_LIMIT_DOC:
        *why = "a page's script may send brock 32 requests, and this one sent them";
        return 429;
    case REPORT_LIMIT_CLIENT:
        *why = "the pages of this client sent brock 120 reports in a minute; wait";
        return 429;
    case REPORT_LIMIT_NOMEM: break;
    }
    *why = "brock ran out of memory for the limits of reports";
    return 503;
}

/* Whether a script that read a canvas back also wrote text to one first: Privacy Badger
 * counts the write and the read per script base (its eTLD+1), which the page cannot tell. */
static int canvas_written(const struct report *r, const char *script_host)
{
    char host[BROCK_HOST_MAX], base[BROCK_HOST_MAX], wbase[BROCK_HOST_MAX];

    if (brock_base_domain(script_host, base) < 0)
        return 0;
    for (size_t i = 0; i < r->n_writers; i++)
        if (brock_url_host(r->writers[i], host) >= 0 && brock_base_domain(host, wbase) >= 0 &&
            strcmp(base, wbase) == 0)
            return 1;
    return 0;
}

/* Learns from a report that was read and checked; nothing when it does not hold. */
static void report_learn(struct conn *c, const struct report *r)
{
    struct proxy *px = c->px;
    struct brock_page_signal s = {.time_ms = conn_now_ms(c)};
    struct brock_learned learned;
    const char *site = r->doc.site;
    char script_host[BROCK_HOST_MAX];
    char url[EXCHANGE_AUTHORITY_MAX + 16];
    int64_t seen;

    s.site = site;
    if (r->kind == REPORT_CANVAS) {
        /* A script that this client was seen loading on the page's site as a third party
         * since the page was given its token (PB: seen in the tab's requests); a data: script
         * names no host and is ignored. */
        if (brock_url_host(r->script, script_host) < 0 || !canvas_written(r, script_host))
            return;
        firstparty_share_apply(px->opts->worker, &px->firstparty, &px->firstparty_next);
        seen = firstparty_seen_at(&px->firstparty, c->c_peer, site, script_host);
        if (seen < 0 || seen / 1000 < r->doc.issued_s ||
            !report_limits_first(&px->report_limits, r->doc.id, script_host))
            return;
        s.kind = BROCK_PAGE_CANVAS;
        s.url = r->script;
    } else {
        /* Only a frame's localStorage (PB: third-party frames); its origin is its URL, its host
         * the token's. */
        if (!report_limits_first(&px->report_limits, r->doc.id, c->c_ex.host))
            return;
        snprintf(url, sizeof(url), "https://%s/", c->c_ex.authority);
        s.kind = BROCK_PAGE_SUPERCOOKIE;
        s.url = url;
        s.items = r->items;
        s.n_items = r->n_items;
    }
    if (brock_observe_page(px->engine, &s, &learned) < 0) {
        log_msg(LOG_ERR, "learning from a page's report on %s failed: %s", site,
                brock_engine_errmsg(px->engine));
        return;
    }
    if (learned.recorded)
        px->metrics.evidence++;
    if (learned.blocked) {
        px->n_learned++;
        log_msg(LOG_INFO, "learned: %s tracks across sites (%s seen on %s); blocked from now on",
                learned.tracker, brock_page_signal_name(s.kind), site);
    } else if (learned.recorded) {
        log_msg(LOG_DEBUG, "learned: %s tracks on %s (%s)", learned.tracker, site,
                brock_page_signal_name(s.kind));
    }
}

int conn_report_write(struct conn *c, int keep)
{
    struct exchange *x = &c->c_ex;
    struct report r;
    const char *why = "taken";
    int status;

    if (x->body_too_big)
        return conn_report_answer(c, 413, "a report is at most 16 KiB", keep);
    if (x->report == REPORT_PATH_WIDGETS || x->report == REPORT_PATH_ALLOW)
        return conn_widget_write(c, keep);
    status = report_read(c->px->report, x->host, conn_now_ms(c) / 1000,
                         c->c_body.data ? c->c_body.data : "", c->c_body.len, &r, &why);
    /* Counted once its token is good, whatever it says: a page that sends reports brock
     * refuses runs out of them as soon. */
    if (status == 0)
        status = conn_report_limit(c, &r.doc, 1, &why);
    if (status == 0)
        status = report_holds(&r, &why);
    if (status == 0) {
        report_learn(c, &r);
        status = 204;
    }
    report_cleanup(&r);
    buf_reset(&c->c_body);
    return conn_report_answer(c, status, why, keep);
}

void conn_answer_report(struct conn *c, int kind)
{
    struct exchange *x = &c->c_ex;
    uint64_t declared = c->c_client.parser.content_length;
    int keep = x->client_keepalive && !x->req_has_body;

    x->is_local = 1;
    x->report = kind;
    buf_reset(&c->c_body);
    /* Over plain HTTP no page has a token, and anyone on the way could read one: brock
     * teaches nothing there, and says why. */
    if (!c->intercepted || strcmp(x->method, "POST") != 0) {
        if (conn_report_answer(c, c->intercepted ? 400 : 403,
                               c->intercepted ? "reports are POSTed"
                                              : "brock takes its page script's requests only "
                                                "inside HTTPS it intercepts",
                               keep) < 0)
            return;
        if (keep)
            conn_set_state(c, CONN_REQ_BODY);
        else
            conn_flush_close(c, "refused a report");
        return;
    }
    if (x->req_has_body && declared != ULLONG_MAX && declared > REPORT_BODY_MAX) {
        /* Its body is never read: the connection ends with the answer. */
        if (conn_report_answer(c, 413, "a report is at most 16 KiB", 0) == 0)
            conn_flush_close(c, "refused a report");
        return;
    }
    if (!x->req_has_body) {
        if (conn_report_write(c, keep) < 0)
            return;
        if (keep)
            conn_set_state(c, CONN_REQ_BODY);
        else
            conn_flush_close(c, "answered a report");
        return;
    }
    conn_await_local_body(c);
}

int conn_report_body(struct conn *c, const struct side_event *ev)
{
    struct exchange *x = &c->c_ex;

    if (c->c_body.len + ev->len <= REPORT_BODY_MAX) {
        if (buf_append(&c->c_body, ev->at, ev->len) == 0)
            return 0;
        conn_out_of_memory(c, "reading a page's report");
        return -1;
    }
    /* A chunked body past the limit: answered now, the rest never read. */
    x->local_wait = 0;
    x->body_too_big = 1;
    if (conn_report_write(c, 0) == 0)
        conn_flush_close(c, "refused a report");
    return -1;
}
