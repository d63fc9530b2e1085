/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Connections from a load balancer (--proxy-protocol-from): each must begin with a PROXY
 * protocol header, read before anything else, and is then served as the client it names. */
#ifndef BROCK_PROXY_FRONT_H
#define BROCK_PROXY_FRONT_H

#include <sys/socket.h>

#include <event2/util.h>

struct proxy;

/* Holds fd (accepted from sa, a balancer's address; handed over) until its header is in:
 * then proxy_admit() takes it with the client's address the header carries. A missing or
 * malformed header, or none within LIMIT_PROXY_HEADER_SECONDS, closes it with a log line
 * and nothing forwarded. Returns 0, or -1 when fd could not be held (then it is closed). */
int front_start(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa);

/* Closes every connection still waiting for its header; at the end of proxy_run(). */
void front_cleanup(struct proxy *px);

#endif
