/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Cookie and Set-Cookie values as the engine reads them when it learns: the pairs split
 * (Privacy Badger's parseCookie), each value's entropy looked up, and hasCookieTracking
 * over the input given as a Cookie header and as Set-Cookie headers (one a line). Then pixel
 * cookie sharing: the first line as an image URL, the second as the page's URL, the rest as
 * the site's cookies; the entropy estimate and the common substrings of the two halves; and
 * the proxy's memory of a site's cookies, fed the lines as Cookie and Set-Cookie values. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "brock.h"
#include "engine/evidence.h"
#include "engine/sitecookies.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_pair(void *arg, const char *name, size_t nlen, const char *val, size_t vlen)
{
    size_t *bytes = arg;

    (void)name;
    (void)brock__cookie_value_bits(val, vlen);
    *bytes += nlen + vlen;
    return 0;
}

/* The lines of the input (a copy, NUL-terminated); missing ones are "". */
static void lines(const char *s, size_t size, char *copy, const char **line, size_t nline)
{
    size_t k = 0;

    memcpy(copy, s, size);
    copy[size] = '\0';
    for (size_t i = 0; i < nline; i++)
        line[i] = "";
    line[k++] = copy;
    for (size_t i = 0; i < size && k < nline; i++) {
        if (copy[i] == '\n') {
            copy[i] = '\0';
            line[k++] = copy + i + 1;
        }
    }
}

static void pixel(const char *s, size_t size)
{
    char copy[4097], name[128];
    const char *l[3];
    struct brock__pixel_in in;
    struct brock__pixel_hit hit;
    struct brock_site_cookies *m;
    size_t half;

    if (size >= sizeof(copy))
        return;
    lines(s, size, copy, l, 3);
    in.url = l[0];
    in.url_len = strlen(l[0]);
    in.tab_url = l[1];
    in.tab_url_len = strlen(l[1]);
    in.ua = "Mozilla/5.0";
    in.ua_len = 11;
    in.cookies = l[2];
    in.cookies_len = strlen(l[2]);
    (void)brock__pixel_share(&in, &hit);
    (void)brock_max_entropy(l[2]);
    half = strlen(l[2]) / 2;
    if (half < 256) {
        char a[256];
        memcpy(a, l[2], half);
        a[half] = '\0';
        (void)brock_common_substrings(a, l[2] + half, NULL, NULL);
    }
    (void)brock__cookie_date(l[1], strlen(l[1]));
    m = brock_site_cookies_new();
    if (!m)
        return;
    brock_site_cookies_request(m, "c", "s", l[0], strlen(l[0]));
    brock_site_cookies_response(m, "c", "s", l[1], strlen(l[1]), 1700000000);
    brock_site_cookies_response(m, "c", "s", l[2], strlen(l[2]), 1700000000);
    (void)brock_site_cookies_get(m, "c", "s", name, sizeof(name));
    brock_site_cookies_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    struct brock_header h[16];
    size_t n = 0, bytes = 0, start = 0;
    char name[256];

    (void)brock__cookie_parse(s, size, on_pair, &bytes);

    h[n++] = (struct brock_header){"Cookie", 6, s, size};
    for (size_t i = 0; i <= size && n < sizeof(h) / sizeof(h[0]); i++) {
        if (i == size || s[i] == '\n') {
            h[n++] = (struct brock_header){"Set-Cookie", 10, s + start, i - start};
            start = i + 1;
        }
    }
    (void)brock__has_cookie_tracking(h, n, name, sizeof(name));
    (void)brock__has_cookie_tracking(h + 1, n - 1, NULL, 0);
    pixel(s, size);
    return 0;
}
