/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Host names as brock keeps them. */
#ifndef BROCK_UTIL_HOSTNAME_H
#define BROCK_UTIL_HOSTNAME_H

/* The longest host name (RFC 1035), without a trailing dot. */
#define HOSTNAME_LEN_MAX 253

/* Whether name is a normalised host name that can key an action: labels of [a-z0-9_-], none
 * empty, at most HOSTNAME_LEN_MAX bytes in all. NULL is not. */
int hostname_valid(const char *name);

/* The parent of a name: the text after its first dot, or NULL at the last label (or for
 * NULL). */
const char *hostname_parent(const char *name);

#endif
