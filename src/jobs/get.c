/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One GET for a command (`brock status`), over the fetch the background jobs use. */
#include "jobs/jobs.h"

#include <stdio.h>
#include <string.h>

#include "jobs/fetch.h"
#include "util/alloc.h"

struct get_once {
    struct jobs_get_result *r;
    char *err;
    size_t errlen;
    int failed;
};

static void on_got(void *arg, const struct fetch_result *f)
{
    struct get_once *g = arg;

    g->r->http_status = f->http_status;
    if (f->status == FETCH_OK) {
        g->r->body = mem_strndup(f->body, f->len);
        g->r->len = f->len;
        if (!g->r->body) {
            snprintf(g->err, g->errlen, "out of memory");
            g->failed = 1;
        }
    } else if (f->status != FETCH_STATUS && f->status != FETCH_REDIRECT) {
        snprintf(g->err, g->errlen, "%s", f->why);
        g->failed = 1;
    }
}

int jobs_get(const char *url, size_t max, struct jobs_get_result *r, char *err, size_t errlen)
{
    const struct jobs_options none = {NULL, 0, NULL};
    struct get_once g = {r, err, errlen, 0};

    memset(r, 0, sizeof(*r));
    if (fetch_once(&none, url, max, on_got, &g, err, errlen) < 0 || g.failed) {
        mem_free(r->body);
        r->body = NULL;
        return -1;
    }
    return 0;
}
