/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Live lists: /lists/NAME serves the export in format NAME (`brock export --format NAME`)
 * at a stable address, for a Pi-hole, an AdGuard Home or a browser on the network to
 * subscribe to. Each answer carries an ETag (a hash of the list, the same for the same
 * content across starts) and a Last-Modified (when this start first served that content),
 * and a conditional request for the same list gets 304 without it.
 */
#include "dash/dash_lists.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/evp.h>

#include "util/hex.h"

/* An HTTP date (RFC 9110 5.6.7, IMF-fixdate) of t into out (30 bytes). */
static void http_date(time_t t, char *out, size_t n)
{
    struct tm tm;

    if (!gmtime_r(&t, &tm) || strftime(out, n, "%a, %d %b %Y %H:%M:%S GMT", &tm) == 0)
        snprintf(out, n, "Thu, 01 Jan 1970 00:00:00 GMT");
}

/* An IMF-fixdate into *t. Returns 0, or -1 for any other text (then the header is ignored,
 * as RFC 9110 13.1.3 says). */
static int http_date_parse(const char *s, time_t *t)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char mon[4];
    int day, year, h, m, sec, used = 0;
    const char *at;
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    if (sscanf(s, "%*3[A-Za-z], %2d %3s %4d %2d:%2d:%2d GMT%n", &day, mon, &year, &h, &m, &sec,
               &used) != 6 ||
        used == 0 || s[used] != '\0')
        return -1;
    at = strstr(months, mon);
    if (!at || strlen(mon) != 3 || (at - months) % 3 != 0)
        return -1;
    tm.tm_mday = day;
    tm.tm_mon = (int)((at - months) / 3);
    tm.tm_year = year - 1900;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    *t = timegm(&tm);
    return *t == (time_t)-1 ? -1 : 0;
}

/* Whether an If-None-Match value names etag: "*", or a list of entity tags compared weakly
 * (RFC 9110 13.1.2), W/ ignored. */
static int etag_listed(const char *list, const char *etag)
{
    size_t n = strlen(etag);

    for (const char *p = list; *p;) {
        p += strspn(p, " \t,");
        if (*p == '*')
            return 1;
        if (!strncmp(p, "W/", 2))
            p += 2;
        if (!strncmp(p, etag, n) && (p[n] == '\0' || strchr(" \t,", p[n])))
            return 1;
        p += strcspn(p, ",");
    }
    return 0;
}

/* The list's tag: the first 16 bytes of its SHA-256, in hex and quotes. */
static int etag_of(const char *text, size_t len, char *out)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;

    if (!EVP_Digest(text, len, md, &md_len, EVP_sha256(), NULL) || md_len < 16)
        return -1;
    out[0] = '"';
    hex_encode(md, 16, out + 1);
    out[33] = '"';
    out[34] = '\0';
    return 0;
}

/* When this start first served this content of the list, remembered per format. */
static time_t first_seen(struct dash_lists *l, const char *format, const char *etag)
{
    struct dash_list_seen *s = NULL;

    for (size_t i = 0; i < l->n; i++) {
        if (!strcmp(l->seen[i].format, format))
            s = &l->seen[i];
    }
    if (!s && l->n < DASH_LISTS_MAX) {
        s = &l->seen[l->n++];
        snprintf(s->format, sizeof(s->format), "%s", format);
    }
    if (!s)
        return time(NULL);
    if (strcmp(s->etag, etag) != 0) {
        snprintf(s->etag, sizeof(s->etag), "%s", etag);
        s->since = time(NULL);
    }
    return s->since;
}

int dash_list_answer(struct dash_lists *l, const char *format, const char *text, size_t len,
                     const char *if_none_match, const char *if_modified_since,
                     struct dash_list_answer *a)
{
    time_t since, ims;

    if (etag_of(text, len, a->etag) < 0)
        return -1;
    since = first_seen(l, format, a->etag);
    http_date(since, a->last_modified, sizeof(a->last_modified));
    /* If-None-Match, when sent, decides alone (RFC 9110 13.2.2). */
    if (if_none_match)
        a->not_modified = etag_listed(if_none_match, a->etag);
    else
        a->not_modified =
            if_modified_since && http_date_parse(if_modified_since, &ims) == 0 && since <= ims;
    return 0;
}
