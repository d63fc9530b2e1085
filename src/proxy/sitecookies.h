/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The first parties' cookies, as pixel cookie sharing needs them (PRIVACY-BADGER.md 3.7): per
 * client address and site, the cookies a first-party request sent and the ones a first-party
 * response set, remembering which are HttpOnly, so that the cookies a page's scripts can read
 * can be told to the engine. Pure: no sockets, clock or logging; memory is bounded
 * (LIMIT_SC_SITES sites, least recently used first out; LIMIT_SC_COOKIES cookies and
 * LIMIT_SC_BYTES bytes a site). */
#ifndef BROCK_PROXY_SITECOOKIES_H
#define BROCK_PROXY_SITECOOKIES_H

#include <stddef.h>
#include <stdint.h>

#include "proxy/limits.h"

struct sc_site;

struct sc_memory {
    struct sc_site *sites[LIMIT_SC_SITES];
    size_t n;
    uint64_t tick; /* a counter, not a clock: picks the least recently used site */
};

void sc_memory_init(struct sc_memory *m);
void sc_memory_cleanup(struct sc_memory *m);

/* A first-party request of client (an address, any string) on site (the site's base domain)
 * sent this Cookie header value (len bytes): each name=value pair is remembered, a later
 * value replacing an earlier one of the same name; a name a response set HttpOnly stays so
 * (a Cookie header does not say). Out of memory only loses what would have been
 * remembered. */
void sc_request_cookies(struct sc_memory *m, const char *client, const char *site,
                        const char *value, size_t len);

/* A first-party response to client on site set this Set-Cookie header value (len bytes),
 * at now_s (Unix seconds, to read Expires): the cookie is remembered with whether it is
 * HttpOnly, replacing one of the same name; a Max-Age of 0 or less, or an Expires not after
 * now_s (Max-Age wins when both are there), removes it. */
void sc_response_cookie(struct sc_memory *m, const char *client, const char *site,
                        const char *value, size_t len, int64_t now_s);

/* The cookies of site remembered for client that scripts can read (not HttpOnly), as a
 * Cookie header value "a=1; b=2" in the order first seen, into out (size bytes, always
 * NUL-terminated; cookies that do not fit are left out). Returns the length, 0 when there
 * are none. */
size_t sc_get(struct sc_memory *m, const char *client, const char *site, char *out, size_t size);

/* The Unix time of an RFC 6265 cookie date (section 5.1.1's lenient reading: "Wed, 09 Jun
 * 2021 10:18:14 GMT", "Wednesday, 09-Jun-21 10:18:14 GMT", ...), or -1 when it is not one. */
int64_t sc_parse_date(const char *s, size_t len);

#endif
