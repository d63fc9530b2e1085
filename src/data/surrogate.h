/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's surrogates: stand-in scripts (and a stylesheet) answered in place of a
 * blocked request, the rules saying which URLs of which hosts they replace, read from the
 * data folder in the current layout (surrogate-rules.json and web_accessible_resources/) or
 * Debian's (data/surrogates.js), and the matching of a request against them.
 */
#ifndef BROCK_DATA_SURROGATE_H
#define BROCK_DATA_SURROGATE_H

#include <stddef.h>

#include "data/data.h"

/* The longest token kept; longer ones make the file malformed (the decision copies tokens
 * into surrogate_token[128]). */
#define BROCK__SURROGATE_TOKEN_MAX 127

/* How a host's rule matches a URL (PRIVACY-BADGER.md section 4). */
enum brock__sg_match {
    BROCK__SG_SUFFIX = 0, /* the URL without query and fragment ends with a token */
    BROCK__SG_PREFIX,     /* the path starts with a token */
    BROCK__SG_PARAMS,     /* prefix, and each listed query parameter present or equal */
    BROCK__SG_ANY,        /* every URL of the host */
};

struct brock__surrogates;

/* An empty set of rules and bodies in *out (free with brock__surrogates_free()). Returns 0 or
 * BROCK_ENOMEM. */
int brock__surrogates_new(struct brock__surrogates **out) BROCK_NODISCARD_INTERNAL;
void brock__surrogates_free(struct brock__surrogates *s);

/* Reads the rules and bodies of the data folder the lists being read come from (through
 * cx->read): surrogate-rules.json with its web_accessible_resources/ files, else
 * Debian's surrogates.js. *out is NULL when the folder has neither. A token whose body file
 * is missing has no surrogate. Returns 0; BROCK_EIO, BROCK_EFORMAT (cx's message names the file and
 * the fault, with its line in surrogates.js); BROCK_ENOMEM. */
int brock__surrogates_load(const struct brock__data_ctx *cx,
                           struct brock__surrogates **out) BROCK_NODISCARD_INTERNAL;

/* Adds token to host's rule, made with match when host has none (for surrogates.js: an array
 * of suffix tokens, or one wildcard string). Returns 0, BROCK_EFORMAT (a host with another
 * kind of rule; no message written) or BROCK_ENOMEM. */
int brock__surrogates_add_token(struct brock__surrogates *s, const char *host,
                                enum brock__sg_match match,
                                const char *token) BROCK_NODISCARD_INTERNAL;

/* Sets token's body to a copy of text (len bytes), replacing any. Returns 0 or BROCK_ENOMEM. */
int brock__surrogates_set_body(struct brock__surrogates *s, const char *token, const char *text,
                               size_t len) BROCK_NODISCARD_INTERNAL;

/* token's body, or NULL (*len its length). */
const char *brock__surrogates_body(const struct brock__surrogates *s, const char *token,
                                   size_t *len);

/* The number of hosts with a rule and of tokens with a body. */
void brock__surrogates_counts(const struct brock__surrogates *s, size_t *hosts, size_t *bodies);

/* The surrogate for a request to host (normalised) of the given type, url (NULL: only a rule
 * matching any URL can match): its body (*len bytes) and token, or NULL. A rule for a
 * stylesheet answers only stylesheets, the others only scripts; a widget's rule is skipped
 * when excluded(arg, widget name) says so (excluded may be NULL). */
const char *brock__surrogates_find(const struct brock__surrogates *s, const char *host,
                                   const char *url, enum brock_resource_type type,
                                   int (*excluded)(void *arg, const char *widget), void *arg,
                                   size_t *len, const char **token);

/* surrogate_js.c: reads Debian's surrogates.js (len bytes, named name in errors) into s: its
 * hostnames and surrogates objects, aliases assigned after them, and the reformatting the file
 * applies to every body. Returns 0, BROCK_EFORMAT (the message names name and the line) or
 * BROCK_ENOMEM. */
int brock__surrogates_js_read(const struct brock__data_ctx *cx, const char *name, const char *text,
                              size_t len, struct brock__surrogates *s) BROCK_NODISCARD_INTERNAL;

/* The reformatting surrogates.js applies to each body (what uAssets' layout looks like): a
 * leading "(function (" loses its space, each line (split at every CR and LF) loses 4 leading
 * spaces, the lines are joined with LF, and every two spaces become a tab. Writes into out
 * (at least len + 1 bytes; the result is never longer) and returns the new length. */
size_t brock__surrogate_reformat(const char *in, size_t len, char *out);

/* Applies brock__surrogate_reformat() to every body of s, in place. */
void brock__surrogates_reformat_all(struct brock__surrogates *s);

#endif
