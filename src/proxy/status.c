/* SPDX-License-Identifier: GPL-3.0-or-later */
/* brock's own pages, for requests made to its address directly: for now one status page
 * with the version and what the engine knows. The dashboard will take this place. */
#include "proxy/conn.h"

#include <string.h>

static int status_body(struct proxy *px, struct buf *b)
{
    size_t counts[8] = {0}, entries = 0;

    brock_counts(px->engine, counts, &entries);
    if (buf_printf(b,
                   "<!doctype html>\n<html><head><meta charset=\"utf-8\">"
                   "<title>brock</title></head><body>\n<h1>brock %s</h1>\n"
                   "<p>Listening on %s; learning is %s.</p>\n<table>\n"
                   "<tr><th>domains known</th><td>%zu</td></tr>\n",
                   brock_version(), px->listen_name,
                   brock_engine_learning(px->engine) ? "on" : "off", entries) < 0)
        return -1;
    for (int a = BROCK_NOACTION; a <= BROCK_USER_COOKIEBLOCK; a++)
        if (buf_printf(b, "<tr><th>%s</th><td>%zu</td></tr>\n",
                       brock_action_name((enum brock_action)a), counts[a]) < 0)
            return -1;
    if (buf_printf(b,
                   "</table>\n<h2>Since start</h2>\n<table>\n"
                   "<tr><th>requests</th><td>%llu</td></tr>\n"
                   "<tr><th>blocked</th><td>%llu</td></tr>\n"
                   "<tr><th>cookieblocked</th><td>%llu</td></tr>\n"
                   "<tr><th>tunnels</th><td>%llu</td></tr>\n"
                   "<tr><th>trackers learned</th><td>%llu</td></tr>\n"
                   "<tr><th>open connections</th><td>%zu</td></tr>\n"
                   "</table>\n</body></html>\n",
                   (unsigned long long)px->n_requests, (unsigned long long)px->n_blocked,
                   (unsigned long long)px->n_cookieblocked, (unsigned long long)px->n_tunnels,
                   (unsigned long long)px->n_learned, px->n_conns) < 0)
        return -1;
    return 0;
}

int status_respond(struct proxy *px, const char *target, size_t len, int keep_alive,
                   struct buf *out)
{
    struct buf body;
    int status = 200;
    int rc = -1;

    buf_init(&body, out->max);
    if ((len == 1 && target[0] == '/') || (len > 1 && target[0] == '/' && target[1] == '?')) {
        if (status_body(px, &body) < 0)
            goto out;
    } else {
        status = 404;
        if (buf_puts(&body, "<!doctype html>\n<title>brock</title><p>Not found.</p>\n") < 0)
            goto out;
    }
    if (buf_printf(out,
                   "HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=utf-8\r\n"
                   "Content-Length: %zu\r\nCache-Control: no-store\r\n"
                   "X-Content-Type-Options: nosniff\r\n%s\r\n",
                   status, http_reason(status), body.len,
                   keep_alive ? "" : "Connection: close\r\n") < 0 ||
        buf_append(out, body.data ? body.data : "", body.len) < 0)
        goto out;
    rc = 0;
out:
    buf_cleanup(&body);
    return rc;
}
