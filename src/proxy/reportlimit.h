/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How much brock's script in pages may say (docs/design.md, "Reports from pages"): per
 * document (the id its token carries) LIMIT_REPORT_DOC requests of the channel in all, per
 * client LIMIT_REPORT_CLIENT reports and allowances a minute, and each (document, host) pair
 * learned from once. A page that sends more is answered 429 and teaches nothing more. Each
 * worker keeps its own table, small and bounded (LIMIT_REPORT_DOCS documents and
 * LIMIT_REPORT_CLIENTS clients, the least recently used out first). Pure: the time is
 * given. */
#ifndef BROCK_PROXY_REPORTLIMIT_H
#define BROCK_PROXY_REPORTLIMIT_H

#include <stddef.h>
#include <stdint.h>

struct report_doc_use;
struct report_client_use;

struct report_limits {
    struct report_doc_use *docs;       /* LIMIT_REPORT_DOCS slots, made at the first take */
    struct report_client_use *clients; /* LIMIT_REPORT_CLIENTS slots, likewise */
    uint64_t tick;                     /* a counter, not a clock: the least recently used */
};

void report_limits_init(struct report_limits *l);
void report_limits_cleanup(struct report_limits *l);

enum report_limit {
    REPORT_LIMIT_OK = 0,
    REPORT_LIMIT_DOC,    /* the document said all it may */
    REPORT_LIMIT_CLIENT, /* the client said all it may this minute */
    REPORT_LIMIT_NOMEM,  /* the table could not be made */
};

/* Counts one request of the document doc_id from client (an address, any string) at now_ms,
 * toward the document's limit and, when counts_client (a report or an allowance, not a
 * question), toward the client's minute. Nothing is counted when the answer is not
 * REPORT_LIMIT_OK. */
enum report_limit report_limits_take(struct report_limits *l, uint64_t doc_id, const char *client,
                                     int counts_client, int64_t now_ms)
    __attribute__((warn_unused_result));

/* Whether the document doc_id teaches about host (a normalised name) for the first time: 1,
 * and from now on 0; 0 too when the document is not in the table (report_limits_take() puts
 * it there). */
int report_limits_first(struct report_limits *l, uint64_t doc_id, const char *host);

#endif
