/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The table through which the relay's core reaches the page features. */
#include "proxy/conn_features.h"

static void filter_free(void *filter)
{
    conn_inject_free(filter);
}

const struct conn_hooks conn_features = {
    .blocked = conn_answer_blocked,
    .channel_kind = conn_is_report,
    .channel_answer = conn_answer_report,
    .filter_start = conn_inject_start,
    .filter_head = conn_inject_head,
    .filter_body = conn_inject_body,
    .filter_resume = conn_inject_resume,
    .filter_end = conn_inject_end,
    .filter_free = filter_free,
};
