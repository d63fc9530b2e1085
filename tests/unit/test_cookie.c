/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Cookie parsing and the cookie entropy rule (src/engine/cookie.c): Privacy Badger's cases
 * from its rules, sections 3.2 and 3.3, and its whole low-entropy table.
 */
#include "test.h"

#include <string.h>

#include "engine/engine.h"

/* ---- brock__cookie_parse ---- */

#define PAIRS_MAX 16

struct pairs {
    int n;
    char text[PAIRS_MAX][128]; /* "name=value" as seen */
};

static int collect(void *arg, const char *name, size_t nlen, const char *val, size_t vlen)
{
    struct pairs *p = arg;

    assert_true(p->n < PAIRS_MAX);
    snprintf(p->text[p->n++], sizeof(p->text[0]), "%.*s=%.*s", (int)nlen, name, (int)vlen, val);
    return 0;
}

/* Parses s and compares with want, a NULL-terminated list of "name=value". */
static void check_parse(const char *s, const char *const *want)
{
    struct pairs p = {0};
    int n = brock__cookie_parse(s, strlen(s), collect, &p), w = 0;

    while (want[w])
        w++;
    if (n != w || p.n != w)
        fail_msg("\"%s\": %d pairs (%d seen), want %d", s, n, p.n, w);
    for (int i = 0; i < w; i++)
        if (strcmp(p.text[i], want[i]) != 0)
            fail_msg("\"%s\": pair %d is \"%s\", want \"%s\"", s, i, p.text[i], want[i]);
}

#define PARSE(s, ...) check_parse((s), (const char *const[]){__VA_ARGS__, NULL})
#define PARSE_NONE(s) check_parse((s), (const char *const[]){NULL})

static void test_parse_basic(void **state)
{
    (void)state;
    PARSE("a=1", "a=1");
    PARSE("a=1; b=2", "a=1", "b=2");
    PARSE("a=1;b=2;", "a=1", "b=2");
    PARSE("  a  =  1  ;\tb\t=\t2\r", "a=1", "b=2");
    PARSE("a=", "a=");
    PARSE("=v", "=v");
    PARSE("a=b=c", "a=b=c");
    PARSE("a=1;a=2", "a=1", "a=2");
    PARSE("na me=va lue", "na me=va lue");
    PARSE_NONE("");
    PARSE_NONE(";;;");
    PARSE_NONE(" ; \n ;");
}

static void test_parse_newlines(void **state)
{
    (void)state;
    /* '\n' separates like ';' (several Set-Cookie headers folded into one value). */
    PARSE("a=1\nb=2", "a=1", "b=2");
    PARSE("a=1; Path=/\nb=2; Secure", "a=1", "b=2");
    PARSE("a=1\n\nb=2\n", "a=1", "b=2");
}

static void test_parse_quotes(void **state)
{
    (void)state;
    PARSE("a=\"quoted\"", "a=quoted");
    PARSE("a= \"quoted value\" ", "a=quoted value");
    PARSE("a=\"\"", "a=");
    /* The first and last characters go, whatever the last one is. */
    PARSE("a=\"", "a=");
    PARSE("a=\"abc", "a=ab");
    PARSE("a=x\"y\"", "a=x\"y\"");
    PARSE("\"a\"=1", "\"a\"=1");
}

static void test_parse_attributes(void **state)
{
    (void)state;
    PARSE("id=abc; Domain=.example.com; Path=/; Expires=Wed, 29 Jan 2014 17:43:25 GMT; "
          "Max-Age=3600; SameSite=Lax; Secure=1; HttpOnly=1",
          "id=abc");
    PARSE("id=abc; DOMAIN=x; pAtH=/; expires=1; MAX-AGE=1; samesite=none; SECURE=; httponly=",
          "id=abc");
    /* Pieces without '=' are dropped, attribute names or not. */
    PARSE("flag; a=1; Secure; HttpOnly; partitioned", "a=1");
    PARSE_NONE("en; secure; httponly");
    /* Only the seven attribute names are dropped; Version and Comment are cookies. */
    PARSE("vf=5;Version=1;Comment=;Domain=.example.com", "vf=5", "Version=1", "Comment=");
    PARSE("max_age=1; domains=2; path2=3", "max_age=1", "domains=2", "path2=3");
    /* Only ';' and '\n' separate: a comma in a date stays inside its piece. */
    PARSE("a=1; expires=Wed, 29 Jan 2014 17:43:25 GMT; b=2", "a=1", "b=2");
    PARSE("when=Wed, 29 Jan 2014 17:43:25 GMT", "when=Wed, 29 Jan 2014 17:43:25 GMT");
}

static int stop_at_second(void *arg, const char *name, size_t nlen, const char *val, size_t vlen)
{
    int *calls = arg;

    (void)name;
    (void)nlen;
    (void)val;
    (void)vlen;
    return ++*calls == 2 ? 42 : 0;
}

static void test_parse_views(void **state)
{
    const char *s = "a=1; b=2; c=3";
    struct pairs p = {0};
    int calls = 0;

    (void)state;
    /* Only len bytes are read, and the views point into s. */
    assert_int_equal(brock__cookie_parse(s, 3, collect, &p), 1);
    assert_string_equal(p.text[0], "a=1");
    assert_int_equal(brock__cookie_parse(s, strlen(s), NULL, NULL), 3);
    assert_int_equal(brock__cookie_parse(s, strlen(s), stop_at_second, &calls), 42);
    assert_int_equal(calls, 2);
    assert_int_equal(brock__cookie_parse(NULL, 0, collect, &p), 0);
}

/* ---- brock__cookie_value_bits ---- */

/* Privacy Badger's table as its rules list it (section 3.2). */
static const char *const three_bits[] = {
    "", "nodata", "no_data", "yes", "no", "true", "false", "dnt", "opt-out", "optout", "opt_out",
};

static const char iso639[] =
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs by ca ce ch co cr cs "
    "cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he "
    "hi ho hr ht hu hy hz ia id ie ig ii ik in io is it iu ja jv ka kg ki kj kk kl km kn ko "
    "kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne "
    "ng nl nn nr nv ny oc of oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si "
    "sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur "
    "uz ve vi vo wa wo xh yi yo za zh zu";

static int bits(const char *v)
{
    return brock__cookie_value_bits(v, strlen(v));
}

static void test_value_bits_table(void **state)
{
    int entries = 0, codes = 0;

    (void)state;
    for (size_t i = 0; i < sizeof(three_bits) / sizeof(three_bits[0]); i++) {
        if (bits(three_bits[i]) != 3)
            fail_msg("\"%s\" should carry 3 bits, not %d", three_bits[i], bits(three_bits[i]));
        entries++;
    }
    for (char d[2] = "0"; d[0] <= '9'; d[0]++) {
        assert_int_equal(bits(d), 4);
        entries++;
    }
    /* Every two-letter value: 8 bits exactly for the listed codes, "no" keeps its 3 bits,
     * the rest identify. */
    for (char a = 'a'; a <= 'z'; a++) {
        for (char b = 'a'; b <= 'z'; b++) {
            char v[3] = {a, b, '\0'};
            int listed = 0;
            for (const char *p = iso639; *p; p += p[2] ? 3 : 2)
                if (p[0] == a && p[1] == b)
                    listed = 1;
            codes += listed;
            if (strcmp(v, "no") == 0)
                assert_int_equal(bits(v), 3);
            else if (bits(v) != (listed ? 8 : -1))
                fail_msg("\"%s\" gives %d", v, bits(v));
        }
    }
    entries += codes;
    assert_int_equal(codes, 186);
    assert_int_equal(entries, 207);
}

static void test_value_bits_case(void **state)
{
    (void)state;
    assert_int_equal(bits("EN"), 8);
    assert_int_equal(bits("En"), 8);
    assert_int_equal(bits("TRUE"), 3);
    assert_int_equal(bits("No_Data"), 3);
    assert_int_equal(bits("OPT-OUT"), 3);
    assert_int_equal(bits("10"), -1);
    assert_int_equal(bits("-1"), -1);
    assert_int_equal(bits("abc"), -1);
    assert_int_equal(bits("english"), -1);
    assert_int_equal(bits("nodata1"), -1);
    assert_int_equal(bits("opt-outs"), -1);
    assert_int_equal(bits(" en"), -1);
    assert_int_equal(bits("thirdpartytest1234567890abcdef"), -1);
    /* Views: only vlen bytes count, and a NUL inside is no table value. */
    assert_int_equal(brock__cookie_value_bits("enXYZ", 2), 8);
    assert_int_equal(brock__cookie_value_bits("yes", 0), 3);
    assert_int_equal(brock__cookie_value_bits("e\0n", 3), -1);
    assert_int_equal(brock__cookie_value_bits(NULL, 0), 3);
}

/* ---- brock__has_cookie_tracking ---- */

#define H(n, v)                                                                                    \
    {                                                                                              \
        (n), strlen(n), (v), strlen(v)                                                             \
    }

static int tracking(const struct brock_header *h, size_t n, char *name, size_t size)
{
    return brock__has_cookie_tracking(h, n, name, size);
}

static void test_tracking_examples(void **state)
{
    char name[64];

    (void)state;
    /* Privacy Badger's examples (section 3.2). */
    {
        struct brock_header h[] = {H("Cookie", "thirdpartytest=1234567890")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "thirdpartytest");
    }
    {
        struct brock_header h[] = {H("Cookie", "key=ab")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
        assert_string_equal(name, "");
    }
    {
        struct brock_header h[] = {H("Cookie", "key=ab"), H("Cookie", "key=ab")};
        assert_int_equal(tracking(h, 2, name, sizeof(name)), 1);
        assert_string_equal(name, "key");
    }
    {
        struct brock_header h[] = {
            H("Set-Cookie", "vf=5;Version=1;Comment=;Domain=.example.com;Path=/")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
}

static void test_tracking_headers(void **state)
{
    char name[64];

    (void)state;
    {
        struct brock_header h[] = {H("COOKIE", "id=abcdef")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
    }
    {
        struct brock_header h[] = {H("set-COOKIE", "id=abcdef; Path=/")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "id");
    }
    {
        /* Only Cookie and Set-Cookie are read. */
        struct brock_header h[] = {H("X-Cookie", "id=abcdef"), H("Cookie2", "id=abcdef"),
                                   H("Set-Cookie2", "id=abcdef"), H("Referer", "id=abcdef"),
                                   H("Cookies", "id=abcdef")};
        assert_int_equal(tracking(h, 5, name, sizeof(name)), 0);
    }
    {
        /* Bits add up across every Cookie and Set-Cookie header. */
        struct brock_header h[] = {H("Cookie", "a=1"), H("Accept", "x=1"),
                                   H("Set-Cookie", "b=2; Secure"), H("Cookie", "c=3"),
                                   H("cookie", "d=")};
        assert_int_equal(tracking(h, 4, name, sizeof(name)), 0);
        assert_int_equal(tracking(h, 5, name, sizeof(name)), 1);
        assert_string_equal(name, "d");
    }
    {
        /* Header views need no NUL. */
        const char raw[] = "Cookie: a=enabcdef";
        struct brock_header h[] = {{raw, 6, raw + 8, 4}};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
        h[0].value_len = 5;
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "a");
    }
    assert_int_equal(tracking(NULL, 0, name, sizeof(name)), 0);
    {
        struct brock_header h[] = {H("Cookie", "")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
}

static void test_tracking_sum(void **state)
{
    char name[64];

    (void)state;
    {
        /* 8 + 4 = 12 is not more than 12. */
        struct brock_header h[] = {H("Cookie", "lang=en; n=1")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
    {
        /* 8 + 4 + 3 = 15: the cookie that passes 12 is named. */
        struct brock_header h[] = {H("Cookie", "lang=en; n=1; c=; d=yes")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "c");
    }
    {
        /* Values are lower-cased and unquoted before the lookup. */
        struct brock_header h[] = {H("Cookie", "lang=\"EN\"")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
    {
        struct brock_header h[] = {H("Cookie", "lang=\"abc\"")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
    }
    {
        /* '\n' splits folded Set-Cookie values: 4 * 3 = 12, then 16. */
        struct brock_header h[] = {H("Set-Cookie", "a=1\nb=2\nc=3"),
                                   H("Set-Cookie", "a=1\nb=2\nc=3\nd=4")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
        assert_int_equal(tracking(h + 1, 1, name, sizeof(name)), 1);
    }
    {
        /* Attributes do not count, whatever their values. */
        struct brock_header h[] = {H("Set-Cookie", "id=en; Path=/a8f3e9c1; Expires=Wed, 29 Jan "
                                                   "2014 17:43:25 GMT; Domain=tracker.example; "
                                                   "Max-Age=31536000; SameSite=None; Secure")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
    {
        /* Pieces without '=' do not count either. */
        struct brock_header h[] = {H("Cookie", "a8f3e9c1; en; secure; httponly")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
}

static void test_tracking_cf_bm(void **state)
{
    char name[64];

    (void)state;
    {
        struct brock_header h[] = {H("Set-Cookie", "__cf_bm=Zm9vYmFyLmJhei4xMjM0NTY3ODkw; "
                                                   "path=/; expires=Wed, 29 Jan 2014 17:43:25 "
                                                   "GMT; domain=.tracker.example; HttpOnly")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
    {
        /* Ignored, not counted as bits either: 8 + 4 stays 12. */
        struct brock_header h[] = {H("Cookie", "__cf_bm=; lang=en; __cf_bm=1; n=1")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
    {
        struct brock_header h[] = {H("Cookie", "__cf_bm=abc123xyz; id=abc123xyz")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "id");
    }
    {
        /* The name is matched exactly. */
        struct brock_header h[] = {H("Cookie", "__CF_BM=abc123xyz")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "__CF_BM");
    }
    {
        struct brock_header h[] = {H("Cookie", "__cf_bm2=abc123xyz")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
    }
    {
        struct brock_header h[] = {H("Cookie", "__cfduid=abc123xyz")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
    }
}

static void test_tracking_duplicates(void **state)
{
    char name[64];

    (void)state;
    {
        /* Within one header the later value replaces the earlier one. */
        struct brock_header h[] = {H("Cookie", "a=abcdef; a=0")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
    {
        struct brock_header h[] = {H("Cookie", "a=0; a=abcdef")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "a");
    }
    {
        /* A name counts once per header: 4 bits, not 16. */
        struct brock_header h[] = {H("Cookie", "a=1; a=1; a=1; a=1; a=1")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
    {
        /* The name keeps its first place: "a" (now identifying) comes before "b". */
        struct brock_header h[] = {H("Cookie", "a=1; b=xyz123; a=abc123")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "a");
    }
    {
        /* Names are case-sensitive: A and a are two cookies, 8 + 8. */
        struct brock_header h[] = {H("Cookie", "a=en; A=en")};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "A");
    }
    {
        /* Across headers nothing is replaced: each header's "a" counts. */
        struct brock_header h[] = {H("Cookie", "a=en"), H("Set-Cookie", "a=en; Path=/")};
        assert_int_equal(tracking(h, 2, name, sizeof(name)), 1);
    }
}

static void test_tracking_many(void **state)
{
    char value[4096], name[64];
    size_t n = 0;

    (void)state;
    /* 200 distinct low-entropy names: far past 12 bits. */
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(value + n, sizeof(value) - n, "n%d=1; ", i);
    {
        struct brock_header h[] = {{"Cookie", 6, value, n}};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "n3");
    }
    /* 200 copies of one name, last value identifying. */
    n = 0;
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(value + n, sizeof(value) - n, "x=%s; ", i == 199 ? "abc" : "1");
    {
        struct brock_header h[] = {{"Cookie", 6, value, n}};
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        assert_string_equal(name, "x");
        value[n - 5] = '1'; /* "x=abc; " becomes "x=1bc; ": still identifying */
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
        memcpy(value + n - 7, "x=0;   ", 7);
        assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    }
}

static void test_tracking_name_copy(void **state)
{
    struct brock_header h[] = {H("Cookie", "thirdpartytest=1234567890")};
    char name[4] = "zzz";

    (void)state;
    assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
    assert_string_equal(name, "thi");
    assert_int_equal(tracking(h, 1, NULL, 0), 1);
    assert_int_equal(tracking(h, 1, name, 0), 1);
    assert_string_equal(name, "thi");
    assert_int_equal(tracking(h, 1, name, 1), 1);
    assert_string_equal(name, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_basic),      cmocka_unit_test(test_parse_newlines),
        cmocka_unit_test(test_parse_quotes),     cmocka_unit_test(test_parse_attributes),
        cmocka_unit_test(test_parse_views),      cmocka_unit_test(test_value_bits_table),
        cmocka_unit_test(test_value_bits_case),  cmocka_unit_test(test_tracking_examples),
        cmocka_unit_test(test_tracking_headers), cmocka_unit_test(test_tracking_sum),
        cmocka_unit_test(test_tracking_cf_bm),   cmocka_unit_test(test_tracking_duplicates),
        cmocka_unit_test(test_tracking_many),    cmocka_unit_test(test_tracking_name_copy),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
