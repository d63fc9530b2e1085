/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Social widget placeholders (PRIVACY-BADGER.md 4), brock's side: brock's script in a page or
 * a frame asks which widgets to replace there, and says when its user clicked "Allow once" or
 * "Always allow on this site". The widgets are the top-level page's, which the document's
 * token names (a page's own host, a frame's page as brock saw it load the frame). An
 * allowance is taken from a top-level page or a frame of its own site, never from another
 * site's frame, and never over a choice of the user's that blocks the widget. */
#include "proxy/conn.h"

#include <stdio.h>
#include <string.h>

#include "proxy/conn_features.h"
#include "proxy/conn_internal.h"
#include "proxy/limits.h"
#include "proxy/report.h"

/* At most this many allowances of a page are given to the engine per request. */
#define WIDGET_ALLOW_GIVEN 64

/* The answer to a page's question: the widgets, as the engine wrote them. */
static int widgets_answer(struct conn *c, const char *json, int keep)
{
    size_t len = strlen(json);

    c->c_ex.status = 200;
    if (pump_printf(&c->c_client,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    "Content-Length: %zu\r\nCache-Control: no-store\r\n"
                    "X-Content-Type-Options: nosniff\r\n%s\r\n",
                    len, keep ? "" : "Connection: close\r\n") < 0 ||
        pump_write(&c->c_client, json, len) < 0) {
        conn_out_of_memory(c, "answering a page's widget request");
        return -1;
    }
    return 0;
}

/* The widgets to replace on the page (site, a host): blocked there, and neither excluded, nor
 * allowed on the site, nor let load on this client's page for now. */
static int widgets_list(struct conn *c, const char *site, int keep)
{
    struct proxy *px = c->px;
    const char *allow[WIDGET_ALLOW_GIVEN];
    size_t n =
        widget_allows_get(&px->widgets, c->c_peer, site, conn_now_ms(c), allow, WIDGET_ALLOW_GIVEN);
    char *json = NULL, client[64];
    int rc =
        brock_client_widgets_blocked(px->engine, conn_client_key(c, client), site, allow, n, &json);

    if (rc == BROCK_ENOMEM) {
        conn_out_of_memory(c, "listing a page's widgets");
        return -1;
    }
    if (rc < 0)
        return conn_report_answer(c, 400, "the page's host is not a host name", keep);
    rc = widgets_answer(c, json, keep);
    brock_free(json);
    return rc;
}

struct allow_ctx {
    struct conn *c;
    const char *site;
    int failed;
};

static int allow_one(void *arg, const char *pattern)
{
    struct allow_ctx *a = arg;
    struct conn *c = a->c;

    if (widget_allows_add(&c->px->widgets, c->c_peer, a->site, pattern, conn_now_ms(c)) < 0)
        a->failed = 1;
    return 0;
}

/* Whether the document may allow the widget on its page: 0, or 400 or 403 with why. Another
 * site's frame may not (report_may_allow()); nor may anyone, but the user, override a choice
 * of the user's that blocks the widget. */
static int allow_holds(struct conn *c, const struct report_widget *w, char *why, size_t size)
{
    struct brock_user_choice u;
    const char * not ;
    int rc;

    if (report_may_allow(&w->doc, &not ) != 0) {
        snprintf(why, size, "%s", not );
        return 403;
    }
    rc = brock_widget_user_choice(c->px->engine, w->doc.site, w->widget, &u);
    if (rc == BROCK_ENOTFOUND) {
        snprintf(why, size, "no widget of that name lets anything load");
        return 400;
    }
    if (rc < 0) {
        snprintf(why, size, "widgets are allowed on sites named by a host");
        return 400;
    }
    if (rc == 1) {
        snprintf(why, size,
                 "you chose to %s %s%s%s (brock set): only you can let the widget "
                 "load over that choice",
                 u.action == BROCK_USER_BLOCK ? "block" : "cookieblock", u.domain,
                 u.site_only ? " on " : "", u.site_only ? w->doc.site : "");
        return 403;
    }
    return 0;
}

/* A click on a placeholder's button: the widget's unblockDomains load on this client's page
 * from now on (for LIMIT_WIDGET_ALLOW_MS), and with "always" on every later visit to the
 * site too: this machine's choice is everyone's (the widgetSiteAllowlist setting), another
 * client's its own (brock_client_widget_site_allow()). Nothing changes unless all of it is
 * good. */
static int widget_allow(struct conn *c, const char *site, const struct report_widget *w, int keep)
{
    struct proxy *px = c->px;
    struct allow_ctx a = {.c = c, .site = site};
    int rc;

    if (w->always) {
        char buf[64];
        const char *client = conn_client_key(c, buf);

        rc = *client ? brock_client_widget_site_allow(px->engine, client, site, w->widget, 1)
                     : brock_widget_site_allow(px->engine, site, w->widget, 1);
        if (rc == BROCK_ENOMEM) {
            conn_out_of_memory(c, "allowing a widget on a site");
            return -1;
        }
        if (rc < 0)
            return conn_report_answer(c, 400, "widgets are allowed on sites named by a host", keep);
    }
    if (brock_widget_unblock_each(px->engine, w->widget, allow_one, &a) < 0 || a.failed) {
        conn_out_of_memory(c, "allowing a widget on a page");
        return -1;
    }
    log_msg(LOG_INFO, "%s: widget %s allowed on %s%s", c->c_peer, w->widget, site,
            w->always ? " from now on" : " for now");
    return conn_report_answer(c, 204, "taken", keep);
}

int conn_widget_write(struct conn *c, int keep)
{
    struct exchange *x = &c->c_ex;
    struct report_widget w;
    const char *why = "taken";
    char reason[BROCK_HOST_MAX * 2 + 160];
    int is_allow = x->report == REPORT_PATH_ALLOW;
    int status, rc;

    status = report_read_widget(c->px->report, (enum report_path)x->report, x->host,
                                conn_now_ms(c) / 1000, c->c_body.data ? c->c_body.data : "",
                                c->c_body.len, &w, &why);
    /* Counted once its token is good, refused or not; a question toward its document's limit
     * only: a page with many frames asks once in each. */
    if (status == 0)
        status = conn_report_limit(c, &w.doc, is_allow, &why);
    if (status == 0 && is_allow && (status = allow_holds(c, &w, reason, sizeof(reason))) != 0)
        why = reason;
    if (status != 0)
        rc = conn_report_answer(c, status, why, keep);
    else if (!is_allow)
        rc = widgets_list(c, w.doc.site, keep);
    else
        rc = widget_allow(c, w.doc.site, &w, keep);
    report_widget_cleanup(&w);
    buf_reset(&c->c_body);
    return rc;
}
