/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The first parties' cookies, as pixel cookie sharing needs them (PRIVACY-BADGER.md 3.7):
 * per client and site, the cookies a first-party request sent and the ones a first-party
 * response set, remembering which are HttpOnly (brock.h's brock_site_cookies_*). The proxy
 * keeps one per run, per client address; a HAR's learning one for its replay. This header is
 * the struct behind the public handle, for the engine and its tests. */
#ifndef BROCK_ENGINE_SITECOOKIES_H
#define BROCK_ENGINE_SITECOOKIES_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"

struct sc_site;

struct brock_site_cookies {
    struct sc_site *sites[BROCK_SC_SITES];
    size_t n;
    uint64_t tick; /* a counter, not a clock: picks the least recently used site */
};

/* The Unix time of an RFC 6265 cookie date (section 5.1.1's lenient reading: "Wed, 09 Jun
 * 2021 10:18:14 GMT", "Wednesday, 09-Jun-21 10:18:14 GMT", ...), or -1 when it is not one. */
int64_t brock__cookie_date(const char *s, size_t len);

#endif
