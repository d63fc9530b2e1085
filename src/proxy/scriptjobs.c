/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The jobs of brock's script in a document. */
#include "proxy/scriptjobs.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The country domains of Google's search pages, www.google.NAME, where Privacy Badger
 * unwraps links: its manifest's list (the content script of its Google first-party
 * protection), sorted as strcmp() sorts, for bsearch(). */
static const char *const google_countries[] = {
    "ad",     "ae",     "al",     "am",     "as",     "at",     "az",     "ba",     "be",
    "bf",     "bg",     "bi",     "bj",     "bs",     "bt",     "by",     "ca",     "cat",
    "cd",     "cf",     "cg",     "ch",     "ci",     "cl",     "cm",     "cn",     "co.ao",
    "co.bw",  "co.ck",  "co.cr",  "co.id",  "co.il",  "co.in",  "co.jp",  "co.ke",  "co.kr",
    "co.ls",  "co.ma",  "co.mz",  "co.nz",  "co.th",  "co.tz",  "co.ug",  "co.uk",  "co.uz",
    "co.ve",  "co.vi",  "co.za",  "co.zm",  "co.zw",  "com",    "com.af", "com.ag", "com.ai",
    "com.ar", "com.au", "com.bd", "com.bh", "com.bn", "com.bo", "com.br", "com.bz", "com.co",
    "com.cu", "com.cy", "com.do", "com.ec", "com.eg", "com.et", "com.fj", "com.gh", "com.gi",
    "com.gt", "com.hk", "com.jm", "com.kh", "com.kw", "com.lb", "com.ly", "com.mm", "com.mt",
    "com.mx", "com.my", "com.na", "com.ng", "com.ni", "com.np", "com.om", "com.pa", "com.pe",
    "com.pg", "com.ph", "com.pk", "com.pr", "com.py", "com.qa", "com.sa", "com.sb", "com.sg",
    "com.sl", "com.sv", "com.tj", "com.tr", "com.tw", "com.ua", "com.uy", "com.vc", "com.vn",
    "cv",     "cz",     "de",     "dj",     "dk",     "dm",     "dz",     "ee",     "es",
    "fi",     "fm",     "fr",     "ga",     "ge",     "gg",     "gl",     "gm",     "gr",
    "gy",     "hn",     "hr",     "ht",     "hu",     "ie",     "im",     "iq",     "is",
    "it",     "je",     "jo",     "kg",     "ki",     "kz",     "la",     "li",     "lk",
    "lt",     "lu",     "lv",     "md",     "me",     "mg",     "mk",     "ml",     "mn",
    "ms",     "mu",     "mv",     "mw",     "ne",     "nl",     "no",     "nr",     "nu",
    "pl",     "pn",     "ps",     "pt",     "ro",     "rs",     "ru",     "rw",     "sc",
    "se",     "sh",     "si",     "sk",     "sm",     "sn",     "so",     "sr",     "st",
    "td",     "tg",     "tl",     "tm",     "tn",     "to",     "tt",     "vg",     "vu",
    "ws",
};

/* Facebook's names: each, and any name under it. The onions are Facebook's own, as Tor
 * names them now and before (Debian's Privacy Badger names the old one). */
static const char *const facebook_names[] = {
    "facebook.com",
    "messenger.com",
    "facebookwkhpilnemxj7asaniu7vnjjbiltxjqhye3mhbshg7kx5tfyd.onion",
    "facebookcorewwwi.onion",
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether host is name or a name under it, ignoring case. */
static int is_at_or_under(const char *host, const char *name)
{
    size_t h = strlen(host), n = strlen(name);

    if (h < n || strcasecmp(host + h - n, name) != 0)
        return 0;
    return h == n || host[h - n - 1] == '.';
}

static int is_google(const char *host)
{
    char country[16];
    const char *key = country;
    size_t n;

    if (!strcasecmp(host, "docs.google.com") || !strcasecmp(host, "mail.google.com"))
        return 1;
    if (strncasecmp(host, "www.google.", 11) != 0)
        return 0;
    n = strlen(host + 11);
    if (n == 0 || n >= sizeof(country))
        return 0;
    for (size_t i = 0; i <= n; i++) {
        char ch = host[11 + i];

        country[i] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
    return bsearch(&key, google_countries, sizeof(google_countries) / sizeof(google_countries[0]),
                   sizeof(google_countries[0]), by_name) != NULL;
}

unsigned script_jobs_unwrap(const char *host)
{
    if (!host || !*host)
        return 0;
    if (is_google(host))
        return SCRIPT_UNWRAP_GOOGLE;
    for (size_t i = 0; i < sizeof(facebook_names) / sizeof(facebook_names[0]); i++)
        if (is_at_or_under(host, facebook_names[i]))
            return SCRIPT_UNWRAP_FACEBOOK;
    return 0;
}

unsigned script_jobs_choose(const struct script_doc *d)
{
    unsigned jobs = 0;

    if (d->signals)
        jobs |= SCRIPT_SIGNALS;
    /* Reports come from a document whose token no other page could have read: a top-level
     * page, or a frame of another site than the page's, whose DOM the page cannot reach. A
     * same-site frame's token may be read by the page (a sandboxed frame never runs the
     * script that would remove it), and its localStorage is the site's own: nothing to say. */
    if (d->learning && (d->place == SCRIPT_PAGE || d->place == SCRIPT_FRAME_CROSS))
        jobs |= SCRIPT_REPORTS;
    /* Widgets are replaced in frames too, as Privacy Badger's content script does (it runs in
     * all frames): those blocked on the frame's top-level page, which the token names. Their
     * buttons are offered where an allowance is taken: in the page and its own site's frames,
     * never in another site's frame, which could otherwise allow widgets on the page that
     * embeds it. The links are unwrapped in any document: a frame of Google's or Facebook's
     * shows the same wrapped links as their pages. */
    if (d->place != SCRIPT_UNPLACED)
        jobs |= SCRIPT_WIDGETS;
    if (d->place == SCRIPT_PAGE || d->place == SCRIPT_FRAME_SAME)
        jobs |= SCRIPT_ALLOW;
    return jobs | script_jobs_unwrap(d->host);
}

void script_jobs_letters(unsigned jobs, char *out)
{
    static const struct {
        unsigned job;
        char letter;
    } letters[] = {
        {SCRIPT_SIGNALS, 's'}, {SCRIPT_REPORTS, 'r'},       {SCRIPT_WIDGETS, 'w'},
        {SCRIPT_ALLOW, 'a'},   {SCRIPT_UNWRAP_GOOGLE, 'g'}, {SCRIPT_UNWRAP_FACEBOOK, 'f'},
    };
    size_t n = 0;

    for (size_t i = 0; i < sizeof(letters) / sizeof(letters[0]); i++)
        if (jobs & letters[i].job)
            out[n++] = letters[i].letter;
    out[n] = '\0';
}
