/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bytes between two connected sockets with nothing in them to see (a tunnel that is not
 * intercepted), moved inside the kernel: socket to pipe to socket with splice(2), each way
 * through a pipe of its own, never copied through brock's memory. */
#ifndef BROCK_NET_SPLICE_H
#define BROCK_NET_SPLICE_H

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <event2/util.h>

struct splice_pair;

enum splice_news {
    SPLICE_MOVED,  /* bytes moved (either way) */
    SPLICE_DONE,   /* both ways ended: each end's close was passed on to the other end as a
                      * shutdown of its write half, after every byte before it */
    SPLICE_FAILED, /* a read or a write failed (a reset, or splice(2) refused the sockets):
                      * splice_pair_errno() says why */
};

/* Starts moving bytes both ways between a and b (nonblocking, connected, borrowed: the pair
 * never closes them), at most pipe_size bytes held in each way's pipe. on_news(arg, news) is
 * called from the loop after a wakeup that moved bytes or ended the pair; it may free the
 * pair. Returns the pair (free with splice_pair_free), or NULL with errno set: no pipes
 * (descriptors or memory ran out), or no memory for the events. */
struct splice_pair *splice_pair_new(struct event_base *base, evutil_socket_t a, evutil_socket_t b,
                                    size_t pipe_size,
                                    void (*on_news)(void *arg, enum splice_news news), void *arg)
    __attribute__((warn_unused_result));

/* Stops moving and closes the pipes; what they still held is lost. NULL: nothing. */
void splice_pair_free(struct splice_pair *p);

/* The bytes delivered from a to b (way 0) or from b to a (way 1). */
uint64_t splice_pair_moved(const struct splice_pair *p, int way);

/* After SPLICE_FAILED: the errno of the failed call. */
int splice_pair_errno(const struct splice_pair *p);

/* Whether nothing was read from either socket yet: after a failure, the sockets can still be
 * read another way with no byte lost. */
int splice_pair_untouched(const struct splice_pair *p);

#endif
