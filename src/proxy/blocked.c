/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The answers to blocked requests, one per kind of resource. Privacy Badger cancels them
 * inside the browser, which then behaves as for a failed load; a proxy has to answer
 * something, and a page should be no worse off than with the request cancelled:
 *
 * - Documents (main_frame, sub_frame), object, websocket and requests of unknown kind get the
 *   403 page that says why: a person sees it, in the tab or the frame.
 * - Scripts and stylesheets get 200 with their own type and no body. An error page would be
 *   refused by strict MIME checks (module scripts, nosniff, stylesheets in standards mode)
 *   and fire the element's error handler; an empty script runs and does nothing, as
 *   Privacy Badger's own surrogates do. A surrogate, when the decision carries one, is the
 *   body instead.
 * - Images, fonts, media, fetch() and XMLHttpRequest, and pings get 204: no content, the
 *   element fails as when Privacy Badger cancels it (a blocked image does not show), and a
 *   script that sent a beacon or an XHR sees it delivered, rather than failing and queueing
 *   it again to retry.
 *
 * Every answer says Cache-Control: no-store, so that nothing of it is kept in place of the
 * real resource once the host is unblocked. */
#include "proxy/blocked.h"

#include <string.h>

#include "http/head.h"

void blocked_answer(const struct brock_decision *d, struct blocked_answer *a)
{
    memset(a, 0, sizeof(*a));
    switch (d->type) {
    case BROCK_RESOURCE_SCRIPT:
    case BROCK_RESOURCE_STYLESHEET:
        a->status = 200;
        a->content_type = d->type == BROCK_RESOURCE_SCRIPT ? "application/javascript" : "text/css";
        a->body = d->surrogate ? d->surrogate : "";
        a->body_len = d->surrogate ? d->surrogate_len : 0;
        return;
    case BROCK_RESOURCE_IMAGE:
    case BROCK_RESOURCE_FONT:
    case BROCK_RESOURCE_MEDIA:
    case BROCK_RESOURCE_XHR:
    case BROCK_RESOURCE_PING:
        a->status = 204;
        a->body = "";
        return;
    case BROCK_RESOURCE_OTHER:
    case BROCK_RESOURCE_MAIN_FRAME:
    case BROCK_RESOURCE_SUB_FRAME:
    case BROCK_RESOURCE_WEBSOCKET:
    case BROCK_RESOURCE_OBJECT: break;
    }
    a->status = 403;
}

int blocked_write(struct buf *out, const struct blocked_answer *a, int is_head, int keep)
{
    size_t start = out->len;

    if (buf_printf(out, "HTTP/1.1 %d %s\r\n", a->status, http_reason(a->status)) < 0 ||
        (a->content_type && buf_printf(out, "Content-Type: %s\r\n", a->content_type) < 0) ||
        /* A 204 carries no Content-Length (RFC 9110 8.6). */
        (a->status != 204 && buf_printf(out, "Content-Length: %zu\r\n", a->body_len) < 0) ||
        buf_puts(out, "Cache-Control: no-store\r\n") < 0 ||
        (!keep && buf_puts(out, "Connection: close\r\n") < 0) || buf_puts(out, "\r\n") < 0 ||
        (!is_head && a->body_len && buf_append(out, a->body, a->body_len) < 0)) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
        return -1;
    }
    return 0;
}
