/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Connections from a load balancer wait here for their PROXY protocol header. The header is
 * read with MSG_PEEK and taken off the socket only once whole, so that not one byte of the
 * client's own stream is read here: the connection then starts as any other. The read event
 * is edge-triggered, so that a header arriving in pieces wakes the loop once a piece. */
#include "proxy/front.h"

#include <errno.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/event.h>

#include "proxy/conn.h"
#include "proxy/limits.h"
#include "process/proxyproto.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/log.h"

struct front_wait {
    LIST_ENTRY(front_wait) link;
    struct proxy *px;
    evutil_socket_t fd;
    struct event *ev;
    int64_t deadline_ms;
    struct sockaddr_storage peer; /* the balancer's end */
};

static void front_free(struct front_wait *w)
{
    struct proxy *px = w->px;

    LIST_REMOVE(w, link);
    px->n_fronts--;
    if (w->ev)
        event_free(w->ev);
    if (w->fd >= 0)
        evutil_closesocket(w->fd);
    mem_free(w);
}

/* Closes w's connection, saying why, with the balancer's address. */
static void front_refuse(struct front_wait *w, const char *why)
{
    char who[80];

    access_name((const struct sockaddr *)&w->peer, who, sizeof(who));
    log_msg(LOG_INFO, "refused %s (--proxy-protocol-from): %s", who, why);
    front_free(w);
}

static void on_header(evutil_socket_t fd, short what, void *arg)
{
    struct front_wait *w = arg;
    struct proxy *px = w->px;
    uint8_t head[PROXYPROTO_MAX];
    struct sockaddr_storage client;
    struct proxyproto pp;
    const char *why;
    ssize_t n;
    int rc;

    if ((what & EV_TIMEOUT) || clock_now_ms() > w->deadline_ms) {
        front_refuse(w, "no whole PROXY protocol header in time");
        return;
    }
    n = recv(fd, head, sizeof(head), MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        front_refuse(w, n == 0 ? "closed before its PROXY protocol header"
                               : "could not read its PROXY protocol header");
        return;
    }
    rc = proxyproto_parse(head, (size_t)n, &pp, &why);
    if (rc == PROXYPROTO_INCOMPLETE)
        return;
    if (rc == PROXYPROTO_MALFORMED) {
        front_refuse(w, why);
        return;
    }
    /* The header is in the socket's buffer whole: this takes exactly it. */
    if (recv(fd, head, (size_t)rc, 0) != rc) {
        front_refuse(w, "could not read its PROXY protocol header");
        return;
    }
    if (pp.has_source)
        memcpy(&client, &pp.src, sizeof(client));
    else
        memcpy(&client, &w->peer, sizeof(client));
    w->fd = -1;
    front_free(w);
    if (px->draining) {
        evutil_closesocket(fd);
        return;
    }
    proxy_admit(px, fd, (const struct sockaddr *)&client);
}

int front_start(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa)
{
    const struct timeval limit = {LIMIT_PROXY_HEADER_SECONDS, 0};
    struct front_wait *w;
    char who[80];

    if (px->n_fronts >= px->admit.max) {
        access_name(sa, who, sizeof(who));
        log_msg(LOG_INFO,
                "refused %s (--proxy-protocol-from): %zu connections already wait "
                "for their PROXY protocol header",
                who, px->n_fronts);
        evutil_closesocket(fd);
        return -1;
    }
    w = mem_calloc(1, sizeof(*w));
    if (!w) {
        evutil_closesocket(fd);
        return -1;
    }
    w->px = px;
    w->fd = fd;
    w->deadline_ms = clock_now_ms() + (int64_t)LIMIT_PROXY_HEADER_SECONDS * 1000;
    memcpy(&w->peer, sa,
           sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    LIST_INSERT_HEAD(&px->fronts, w, link);
    px->n_fronts++;
    w->ev = event_new(px->base, fd, EV_READ | EV_PERSIST | EV_ET, on_header, w);
    if (!w->ev || event_add(w->ev, &limit) < 0) {
        log_msg(LOG_ERR, "out of memory for a new connection; closed it");
        front_free(w);
        return -1;
    }
    return 0;
}

void front_cleanup(struct proxy *px)
{
    while (!LIST_EMPTY(&px->fronts))
        front_free(LIST_FIRST(&px->fronts));
}
