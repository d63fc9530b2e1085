/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What brock's script (web/inject.js) does in one document, chosen here and told to it as
 * letters in its element's attribute: say brock's signals, watch and report while brock
 * learns, replace blocked social widgets, and unwrap the links of Google's and Facebook's
 * pages (Privacy Badger's first-party protections, PRIVACY-BADGER.md 14). Pure: no engine,
 * no connection; conn_inject.c asks the engine and gives the answers. */
#ifndef BROCK_PROXY_SCRIPTJOBS_H
#define BROCK_PROXY_SCRIPTJOBS_H

#include <stddef.h>

enum script_job {
    SCRIPT_SIGNALS = 1,          /* "s": navigator.globalPrivacyControl and doNotTrack */
    SCRIPT_REPORTS = 2,          /* "r": canvas fingerprinting and supercookies, reported */
    SCRIPT_WIDGETS = 4,          /* "w": placeholders for blocked social widgets (the page's) */
    SCRIPT_UNWRAP_GOOGLE = 8,    /* "g": Google's /url?q= links lead where they say */
    SCRIPT_UNWRAP_FACEBOOK = 16, /* "f": Facebook's l.php?u= links too, and fbclid goes */
    SCRIPT_ALLOW = 32,           /* "a": the placeholders have buttons that let a widget load */
};

/* What brock saw of the document's navigation, which says what its script may tell brock
 * (docs/design.md, "Reports from pages"). */
enum script_place {
    SCRIPT_UNPLACED = 0, /* no token: plain HTTP, a fetch() of a page, a frame brock
                            cannot place */
    SCRIPT_PAGE,         /* a top-level page */
    SCRIPT_FRAME_SAME,   /* a frame of its top-level page's own site */
    SCRIPT_FRAME_CROSS,  /* a frame of another site than its top-level page's */
};

/* One document that gets the script, as brock knows it. */
struct script_doc {
    const char *host;        /* the document's own host, normalised (brock_host_normalize) */
    int signals;             /* brock sends DNT and Sec-GPC for its site */
    int learning;            /* brock learns */
    enum script_place place; /* where it sits, when brock gives it a token */
};

/* The jobs (enum script_job) of the script in d. */
unsigned script_jobs_choose(const struct script_doc *d);

/* Which of Privacy Badger's link unwrappings applies to pages of host: SCRIPT_UNWRAP_GOOGLE
 * (www.google.COUNTRY, docs.google.com, mail.google.com), SCRIPT_UNWRAP_FACEBOOK
 * (facebook.com, messenger.com, Facebook's onion, and any name under them) or 0. */
unsigned script_jobs_unwrap(const char *host);

/* jobs as the script reads them, one letter each, into out (at least 8 bytes). */
void script_jobs_letters(unsigned jobs, char *out);

#endif
