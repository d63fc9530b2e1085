/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Host names as the engine reads them (address.c, domain.c): a URL's host, IP addresses as
 * Privacy Badger tests them and which are private, normalising a name by its reference path
 * or a fast one, base domains (libpsl, cached per engine), third parties, multi-domain first
 * parties, the Public Suffix List's names.
 */
#ifndef BROCK_ENGINE_NAMES_H
#define BROCK_ENGINE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "util/attr.h"

struct brock_engine;

/* ---- address.c: URLs' hosts and IP addresses ---- */

/* Whether host (normalised) is an IP address as Privacy Badger tests it (IPv4 in dotted
 * decimal, octal or hex, all digits, or anything with a colon, IPv6). */
int brock__is_ip(const char *host);

/* The host of url as written, without copying it, when url is "http://" or "https://", a
 * host of lower-case letters, digits, '-', '_' and '.', an optional valid port, then the
 * end, '/', '?', '#' or '\\': its start, and its length in *len. brock_url_host() gives that
 * host normalised if it is valid. NULL for any other URL. */
const char *brock__url_plain_host(const char *url, size_t *len);

/* localhost, or IPv4 in 127/8, 10/8, 172.16/12, 192.168/16: never acted on. */
int brock__is_private(const char *host);

/* The same without the first byte's shortcut: the reference brock__is_private() must agree
 * with (a plain engine and the differential tests use it). */
int brock__is_private_plain(const char *host);

/* ---- domain.c: host names, base domains, third parties ---- */

/* The ways brock_host_normalize() can read a name: the full reference (brackets, a trailing
 * dot, IDNA, the ASCII rules), and the fast paths that stand in for it on a name already
 * plain: byte by byte, a word at a time, sixteen bytes at a time (SSE2; always declines
 * without it). A fast path declines (-1) what it does not take; what it takes, it must
 * normalise exactly as the full path does, which the differential tests check. */
enum brock__norm_path {
    BROCK__NORM_FULL,
    BROCK__NORM_BYTES,
    BROCK__NORM_WORDS,
    BROCK__NORM_SSE2,
};

/* host (len bytes) normalised into out (BROCK_HOST_MAX bytes) by one path only: its length,
 * or negative (out "") when that path declines or the name is not a host. */
int brock__host_normalize_by(enum brock__norm_path path, const char *host, size_t len, char *out);

/* PB's isThirdParty(request_host, site_host): NULL or "" is third party. */
int brock__is_third_party(const char *request_host, const char *site_host);

/* isThirdPartyDomain: isThirdParty and not one multi-domain first party. */
int brock__is_third_party_domain(const struct brock_engine *e, const char *a, const char *b);

/* The same for a (alen bytes) and b (blen bytes, both not empty) whose bases are known:
 * base_b, and base_a unless NULL (then worked out when needed). */
int brock__is_third_party_bases(const struct brock_engine *e, const char *a, size_t alen,
                                const char *base_a, const char *b, size_t blen, const char *base_b);

/* The base domain of a normalised host (no trailing dot), as a pointer into host: the base
 * is a tail of it. Cached per engine; "" (the end of host) when host has none. */
const char *brock__base(const struct brock_engine *e, const char *host);

/* The same for host of len bytes (NUL-terminated). */
const char *brock__base_len(const struct brock_engine *e, const char *host, size_t len);

/* brock_base_domain() for a name the engine already holds as valid (an action map key, a
 * normalised host), where a failure can only leave out "" or, without a Public Suffix List,
 * the name itself: the same as the public call, with nothing to check. */
void brock__base_domain(const char *host, char *out);
int brock__base_cache_init(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
void brock__base_cache_free(struct brock_engine *e);
/* How often the base cache has asked libpsl (for tests). */
uint64_t brock__psl_asked(const struct brock_engine *e);

/* A number brock_psl_load() changes: base domains computed under another may differ. */
uint64_t brock__psl_generation(void);

/* After brock_psl_load(): forgets the base domains and answers e computed with the old list. */
void brock__psl_check(struct brock_engine *e);

/* isMultiDomainFirstParty(base_a, base_b). */
int brock__is_mdfp(const struct brock_engine *e, const char *base_a, const char *base_b);

/* Whether a normalised name of two labels or more is a public suffix, which Privacy Badger
 * makes its own base: no rule above it applies to it or below it. */
int brock__is_public_suffix(const char *host);

/* Whether a normalised name that is not an address is a public suffix of any number of
 * labels ("com", "co.uk", "github.io"; by the list's default rule, every name of one label):
 * what names it would name every site under it. */
int brock__is_suffix_name(const char *host);

/* Calls fn with each name of the Public Suffix List in use whose children are other sites
 * (normalised; for a "*." rule the name after it), read from the list's text, until fn
 * returns other than 0. Returns 0, fn's value, or BROCK_EIO with why (n bytes) naming the
 * file and the failure when the text cannot be read. */
int brock__psl_each(int (*fn)(void *arg, const char *suffix), void *arg, char *why, size_t n);

#endif
