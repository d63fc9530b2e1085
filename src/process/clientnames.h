/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Names the owner gives clients (brock run --client NAME=CIDR; the file's `client NAME = CIDR`):
 * an address takes the name of the narrowest range it lies in. Pure: parsing and comparing. */
#ifndef BROCK_PROCESS_CLIENTNAMES_H
#define BROCK_PROCESS_CLIENTNAMES_H

#include <stddef.h>
#include <sys/socket.h>

/* A name: 1 to CLIENTNAMES_NAME_MAX letters, digits, '-', '_' and '.'. */
#define CLIENTNAMES_NAME_MAX 32

/* Checks the n specs ("NAME=CIDR"): each well formed, and no range named twice. Returns 0, or
 * -1 with a sentence naming the spec in err. */
int clientnames_check(const char *const *specs, size_t n, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* For each range of specs (checked) that lies inside another's, a sentence saying which wins
 * for its addresses, passed to say (with arg), in the order given. */
void clientnames_overlaps(const char *const *specs, size_t n,
                          void (*say)(void *arg, const char *sentence), void *arg);

/* The name of the narrowest range of specs (checked) that sa lies in, into out (size bytes);
 * "" when none. */
void clientnames_find(const char *const *specs, size_t n, const struct sockaddr *sa, char *out,
                      size_t size);

#endif
