/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The first parties' cookies for pixel cookie sharing (src/engine/sitecookies.c): what a
 * request's Cookie and a response's Set-Cookie leave, HttpOnly, expiry, cookie dates and the
 * limits. */
#include "test.h"

#include <string.h>

#include "engine/sitecookies.h"

#define NOW 1700000000 /* 2023-11-14 */

static const char *get(struct brock_site_cookies *m, const char *client, const char *site)
{
    static char out[BROCK_SC_BYTES + 1024];
    size_t n = brock_site_cookies_get(m, client, site, out, sizeof(out));

    assert_int_equal(n, strlen(out));
    return out;
}

static void req(struct brock_site_cookies *m, const char *client, const char *site, const char *v)
{
    brock_site_cookies_request(m, client, site, v, strlen(v));
}

static void resp(struct brock_site_cookies *m, const char *client, const char *site, const char *v)
{
    brock_site_cookies_response(m, client, site, v, strlen(v), NOW);
}

static void test_request(void **state)
{
    struct brock_site_cookies *m = brock_site_cookies_new();

    (void)state;
    assert_non_null(m);
    assert_string_equal(get(m, "10.0.0.1", "site.example"), "");
    req(m, "10.0.0.1", "site.example", "a=1; b=two");
    assert_string_equal(get(m, "10.0.0.1", "site.example"), "a=1; b=two");
    /* A later value replaces an earlier one, in its place; new names go last. */
    req(m, "10.0.0.1", "site.example", " b = 2 ;c=3;;  ");
    assert_string_equal(get(m, "10.0.0.1", "site.example"), "a=1; b=2; c=3");
    /* A nameless cookie, and '=' inside a value. */
    req(m, "10.0.0.1", "site.example", "lonely; d=x=y");
    assert_string_equal(get(m, "10.0.0.1", "site.example"), "a=1; b=2; c=3; lonely; d=x=y");
    /* Per client, per site. */
    assert_string_equal(get(m, "10.0.0.2", "site.example"), "");
    assert_string_equal(get(m, "10.0.0.1", "other.example"), "");
    brock_site_cookies_free(m);
}

static void test_response(void **state)
{
    struct brock_site_cookies *m = brock_site_cookies_new();

    (void)state;
    assert_non_null(m);
    resp(m, "c", "s.example", "uid=Zk3q9TmW2xR7; Path=/; Max-Age=31536000; SameSite=Lax");
    resp(m, "c", "s.example", "sess=secret123456; Path=/; HttpOnly; Secure");
    resp(m, "c", "s.example", "lang=en");
    assert_string_equal(get(m, "c", "s.example"), "uid=Zk3q9TmW2xR7; lang=en");
    /* The Cookie header does not say HttpOnly: the name stays so. */
    req(m, "c", "s.example", "uid=Zk3q9TmW2xR7; sess=secret123456; lang=fr");
    assert_string_equal(get(m, "c", "s.example"), "uid=Zk3q9TmW2xR7; lang=fr");
    /* Set again without HttpOnly, it is readable. */
    resp(m, "c", "s.example", "sess=open; path=/");
    assert_string_equal(get(m, "c", "s.example"), "uid=Zk3q9TmW2xR7; sess=open; lang=fr");
    /* Max-Age 0 or less, or an Expires past, removes; Max-Age wins over Expires. */
    resp(m, "c", "s.example", "lang=; Max-Age=0");
    assert_string_equal(get(m, "c", "s.example"), "uid=Zk3q9TmW2xR7; sess=open");
    resp(m, "c", "s.example", "sess=; expires=Thu, 01 Jan 1970 00:00:00 GMT");
    assert_string_equal(get(m, "c", "s.example"), "uid=Zk3q9TmW2xR7");
    resp(m, "c", "s.example", "a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60");
    resp(m, "c", "s.example", "b=2; Max-Age=-1; Expires=Fri, 01 Jan 2100 00:00:00 GMT");
    resp(m, "c", "s.example", "c=3; Expires=Fri, 01 Jan 2100 00:00:00 GMT");
    resp(m, "c", "s.example", "d=4; Max-Age=soon");
    assert_string_equal(get(m, "c", "s.example"), "uid=Zk3q9TmW2xR7; a=1; c=3; d=4");
    /* A removal of what was never there makes no site. */
    resp(m, "c", "none.example", "x=; Max-Age=0");
    assert_int_equal(m->n, 1);
    brock_site_cookies_free(m);
}

/* An output too small leaves out what does not fit. */
static void test_small_output(void **state)
{
    struct brock_site_cookies *m = brock_site_cookies_new();
    char small[9];

    (void)state;
    assert_non_null(m);
    req(m, "d", "t.example", "a=1; long=123456789; b=2");
    assert_int_equal(brock_site_cookies_get(m, "d", "t.example", small, sizeof(small)), 8);
    assert_string_equal(small, "a=1; b=2");
    brock_site_cookies_free(m);
}

static void test_dates(void **state)
{
    (void)state;
    assert_int_equal(brock__cookie_date("Thu, 01 Jan 1970 00:00:00 GMT", 29), 0);
    assert_int_equal(brock__cookie_date("Tue, 14 Nov 2023 22:13:20 GMT", 29), NOW);
    assert_int_equal(brock__cookie_date("Tuesday, 14-Nov-23 22:13:20 GMT", 31), NOW);
    assert_int_equal(brock__cookie_date("Nov 14 22:13:20 2023", 20), NOW);
    assert_int_equal(brock__cookie_date("Wed, 01-Mar-2000 00:00:01 GMT", 29), 951868801);
    assert_int_equal(brock__cookie_date("Sat, 29 Feb 2020 12:00:00 GMT", 29), 1582977600);
    assert_int_equal(brock__cookie_date("01 Jan 69 00:00:00", 18), 3124224000LL); /* 2069 */
    assert_int_equal(brock__cookie_date("tomorrow", 8), -1);
    assert_int_equal(brock__cookie_date("Thu, 32 Jan 1970 00:00:00 GMT", 29), -1);
    assert_int_equal(brock__cookie_date("Thu, 01 Jan 1970 24:00:00 GMT", 29), -1);
    assert_int_equal(brock__cookie_date("Thu, 01 Jan 1600 00:00:00 GMT", 29), -1);
    assert_int_equal(brock__cookie_date("", 0), -1);
}

static void test_limits(void **state)
{
    struct brock_site_cookies *m = brock_site_cookies_new();
    char v[BROCK_SC_BYTES + 16];
    const char *out;

    (void)state;
    assert_non_null(m);
    /* Too many cookies: the oldest go. */
    for (int i = 0; i < BROCK_SC_COOKIES + 2; i++) {
        snprintf(v, sizeof(v), "k%d=v%d", i, i);
        req(m, "c", "s.example", v);
    }
    out = get(m, "c", "s.example");
    assert_true(!strncmp(out, "k2=v2; ", 7));
    assert_non_null(strstr(out, "; k65=v65"));
    /* Too many bytes: the oldest go too; a cookie larger than the whole is dropped. */
    memset(v, 'x', sizeof(v));
    memcpy(v, "big=", 4);
    v[BROCK_SC_BYTES - 10] = '\0';
    req(m, "c", "s.example", v);
    out = get(m, "c", "s.example");
    assert_true(!strncmp(out, "k", 1));
    assert_non_null(strstr(out, "; big=xxx"));
    v[BROCK_SC_BYTES - 10] = 'x';
    v[BROCK_SC_BYTES + 10] = '\0';
    memcpy(v, "huge=", 5);
    req(m, "c", "s.example", v);
    assert_null(strstr(get(m, "c", "s.example"), "huge="));
    /* Too many sites: the least recently used goes. */
    for (int i = 0; i < BROCK_SC_SITES; i++) {
        char site[32];
        snprintf(site, sizeof(site), "s%d.example", i);
        req(m, "c", site, "a=1");
        if (i == 0)
            (void)get(m, "c", "s.example"); /* used: it stays, s0 is the oldest */
    }
    assert_int_equal(m->n, BROCK_SC_SITES);
    assert_string_equal(get(m, "c", "s1.example"), "a=1");
    assert_string_equal(get(m, "c", "s0.example"), "");
    assert_non_null(strstr(get(m, "c", "s.example"), "big="));
    brock_site_cookies_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request),      cmocka_unit_test(test_response),
        cmocka_unit_test(test_small_output), cmocka_unit_test(test_dates),
        cmocka_unit_test(test_limits),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
