/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The live request log's two ends in the proxy: each decided exchange goes into the ring
 * (dash.h) once its client has its status, with nothing allocated, and the connections that
 * stream the log to the dashboard (CONN_STREAM) are woken to write it. A stream writes only
 * while its client takes what it has: past LIVELOG_BACKLOG the events wait in the ring, and
 * one that falls out of it is counted as skipped in the stream. */
#include "proxy/conn.h"

#include <stdio.h>
#include <sys/socket.h>

#include <event2/buffer.h>

#include "monitor/livelog.h"
#include "proxy/conn_internal.h"

/* ---- events ---- */

/* How the exchange's page was come by: a guess of the request's own host as its page is
 * told apart from a Referer's, so that the log does not call a browser's request of its own
 * one of a page. Told by where the guess came from, not by comparing names: a Referer of the
 * request's own host (a page brock did not see open) names a page, and is a guess. */
static enum livelog_page conn_log_page(const struct exchange *x)
{
    if (!x->site_known || !*x->d->site)
        return LIVELOG_PAGE_NONE;
    if (x->site_sure)
        return LIVELOG_PAGE_KNOWN;
    return x->site_self ? LIVELOG_PAGE_SELF : LIVELOG_PAGE_GUESS;
}

void conn_status(struct conn *c, int status, enum livelog_answer by)
{
    struct exchange *x = &c->c_ex;
    struct proxy *px = c->px;
    struct livelog_event *ev;

    x->status = status;
    if (!x->decided || x->logged || !px->log.ring)
        return;
    x->logged = 1;
    ev = livelog_add(&px->log);
    ev->time_ms = conn_now_ms(c);
    snprintf(ev->method, sizeof(ev->method), "%s", x->method);
    snprintf(ev->host, sizeof(ev->host), "%s", x->d->host[0] ? x->d->host : x->host);
    snprintf(ev->site, sizeof(ev->site), "%s", x->d->site);
    ev->decision = (unsigned char)conn_decision_kind(x->d);
    ev->action = (unsigned char)x->d->action;
    ev->reason = (unsigned char)x->d->reason;
    ev->site_fix = (unsigned char)(x->d->site_fix != 0);
    ev->site_choice = (unsigned char)(x->d->site_choice != 0);
    ev->answer = (unsigned char)by;
    ev->page = (unsigned char)conn_log_page(x);
    ev->status = status;
    snprintf(ev->client, sizeof(ev->client), "%s", c->c_peer);
    ev->cleaned = x->cleaned;
    snprintf(ev->removed, sizeof(ev->removed), "%s", x->names->removed);
    ev->way = (unsigned char)c->way;
    if (x->d->tracker[0] && strcmp(x->d->tracker, ev->host) != 0) {
        snprintf(ev->via, sizeof(ev->via), "%s", x->d->tracker);
        ev->via_dns = (unsigned char)(x->d->via_dns != 0);
    }
    /* Written by each stream's own turn, after this exchange's. */
    for (size_t i = 0; i < px->n_watchers; i++)
        bufferevent_trigger(px->watchers[i]->c_client.bev, EV_WRITE, BEV_TRIG_DEFER_CALLBACKS);
}

void conn_log_unanswered(struct conn *c)
{
    if (c->c_ex.decided && !c->c_ex.logged)
        conn_status(c, 0, LIVELOG_ANSWER_NONE);
}

/* ---- streams ---- */

int conn_stream_room(const struct conn *c)
{
    return !c->px->draining && c->px->n_watchers < LIMIT_LOG_CLIENTS;
}

void conn_stream_start(struct conn *c, uint64_t next, int own)
{
    struct proxy *px = c->px;

    int sndbuf = (int)LIMIT_LOG_SNDBUF;

    /* conn_stream_room() said there was room, in this same turn. */
    px->watchers[px->n_watchers++] = c;
    /* What a client has not read waits in brock's backlog, where it is counted, rather than
     * in a send buffer the kernel would grow to megabytes. Without it (it cannot fail on a
     * TCP socket) the stream is the same, with more of it waiting in the kernel. */
    (void)setsockopt(bufferevent_getfd(c->c_client.bev), SOL_SOCKET, SO_SNDBUF, &sndbuf,
                     sizeof(sndbuf));
    c->watching = 1;
    c->log_own = own != 0;
    c->log_next = next;
    conn_set_state(c, CONN_STREAM);
}

void conn_stream_end(struct conn *c)
{
    struct proxy *px = c->px;

    if (!c->watching)
        return;
    c->watching = 0;
    for (size_t i = 0; i < px->n_watchers; i++) {
        if (px->watchers[i] != c)
            continue;
        px->watchers[i] = px->watchers[--px->n_watchers];
        break;
    }
}

void conn_do_stream(struct conn *c)
{
    struct side *s = &c->c_client;
    struct evbuffer *in = bufferevent_get_input(s->bev);
    size_t pending = pump_pending(s);
    struct buf out;
    int rc;

    /* An EventSource says nothing after its request; whatever comes is dropped. */
    evbuffer_drain(in, evbuffer_get_length(in));
    if (s->eof) {
        conn_close(c, "the live log's client left");
        return;
    }
    if (pending >= LIVELOG_BACKLOG)
        return;
    c->log_full = 0;
    if (c->log_next >= c->px->log.next_id)
        return;
    buf_init(&out, LIVELOG_BACKLOG + 4096);
    rc = livelog_write(&c->px->log, &c->log_next, &out, LIVELOG_BACKLOG - pending,
                       c->log_own ? c->c_peer : NULL);
    if (rc == 0 && out.len)
        rc = pump_write(s, out.data, out.len);
    buf_cleanup(&out);
    if (rc < 0)
        conn_out_of_memory(c, "writing the live log");
}

void conn_stream_ping(struct conn *c)
{
    /* A client whose backlog stayed full from one ping to the next holds a place another
     * could use; an EventSource comes back by itself, with Last-Event-ID. */
    if (pump_pending(&c->c_client) >= LIVELOG_BACKLOG) {
        if (c->log_full) {
            conn_close(c, "the live log's client stopped reading");
            return;
        }
        c->log_full = 1;
        conn_touch(c);
        return;
    }
    if (pump_printf(&c->c_client, ": ping\n\n") < 0) {
        conn_out_of_memory(c, "writing the live log");
        return;
    }
    conn_touch(c);
}
