/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What brock answers in place of a request it blocks, by what the request fetches: a document
 * gets brock's page saying why (403); a script or a stylesheet an empty one of its type (or
 * the surrogate the decision carries); an image, a font, media, a fetch() or a ping nothing
 * at all (204). Pure: no sockets. */
#ifndef BROCK_PROXY_BLOCKED_H
#define BROCK_PROXY_BLOCKED_H

#include <stddef.h>

#include "brock.h"
#include "util/buf.h"

/* One answer. The strings are static, or borrowed from the decision it was made for. */
struct blocked_answer {
    int status;               /* 403, 200 or 204 */
    const char *content_type; /* NULL: none (a 204 has no content to type) */
    const char *body;         /* NULL: brock's explanation, text/plain (the 403 page) */
    size_t body_len;
};

/* The answer for a request denied by d (d->type says what it fetches; d->surrogate, when set,
 * is served as the body). */
void blocked_answer(const struct brock_decision *d, struct blocked_answer *a);

/* Appends the whole response for a (one with a body, or a 204; not the 403 page) to out: the
 * head, then the body unless is_head. keep: the connection stays open after it. Returns 0,
 * or -1 when out cannot hold it. */
int blocked_write(struct buf *out, const struct blocked_answer *a, int is_head, int keep)
    __attribute__((warn_unused_result));

#endif
