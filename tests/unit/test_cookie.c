/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Cookie parsing and the cookie entropy rule (src/engine/cookie.c): Privacy Badger's cases
 * from its rules, sections 3.2 and 3.3, and its whole low-entropy table.
 */
#include "test.h"

#include <string.h>

#include "engine/evidence.h"

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

/* A text, and the pairs brock__cookie_parse() must see in it, as "name=value". */
struct parse_case {
    const char *s;
    const char *want[4]; /* the rest NULL */
};

#define ROWS(a) (a), sizeof(a) / sizeof((a)[0])

/* Parses each row's text and compares with its pairs. */
static void parse_rows(const struct parse_case *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = rows[i].s;
        struct pairs p = {0};
        int got = brock__cookie_parse(s, strlen(s), collect, &p), w = 0;

        while (w < 4 && rows[i].want[w])
            w++;
        if (got != w || p.n != w)
            fail_msg("row %zu \"%s\": %d pairs (%d seen), want %d", i, s, got, p.n, w);
        for (int k = 0; k < w; k++)
            if (strcmp(p.text[k], rows[i].want[k]) != 0)
                fail_msg("row %zu \"%s\": pair %d is \"%s\", want \"%s\"", i, s, k, p.text[k],
                         rows[i].want[k]);
    }
}

static const struct parse_case basic_cases[] = {
    {"a=1", {"a=1"}},
    {"a=1; b=2", {"a=1", "b=2"}},
    {"a=1;b=2;", {"a=1", "b=2"}},
    {"  a  =  1  ;\tb\t=\t2\r", {"a=1", "b=2"}},
    {"a=", {"a="}},
    {"=v", {"=v"}},
    {"a=b=c", {"a=b=c"}},
    {"a=1;a=2", {"a=1", "a=2"}},
    {"na me=va lue", {"na me=va lue"}},
    {"", {NULL}},
    {";;;", {NULL}},
    {" ; \n ;", {NULL}},
};

static void test_parse_basic(void **state)
{
    (void)state;
    parse_rows(ROWS(basic_cases));
}

static const struct parse_case newlines_cases[] = {
    /* '\n' separates like ';' (several Set-Cookie headers folded into one value). */
    {"a=1\nb=2", {"a=1", "b=2"}},
    {"a=1; Path=/\nb=2; Secure", {"a=1", "b=2"}},
    {"a=1\n\nb=2\n", {"a=1", "b=2"}},
};

static void test_parse_newlines(void **state)
{
    (void)state;
    parse_rows(ROWS(newlines_cases));
}

static const struct parse_case quotes_cases[] = {
    {"a=\"quoted\"", {"a=quoted"}},
    {"a= \"quoted value\" ", {"a=quoted value"}},
    {"a=\"\"", {"a="}},
    /* The first and last characters go, whatever the last one is. */
    {"a=\"", {"a="}},
    {"a=\"abc", {"a=ab"}},
    {"a=x\"y\"", {"a=x\"y\""}},
    {"\"a\"=1", {"\"a\"=1"}},
};

static void test_parse_quotes(void **state)
{
    (void)state;
    parse_rows(ROWS(quotes_cases));
}

static const struct parse_case attributes_cases[] = {
    {"id=abc; Domain=.example.com; Path=/; Expires=Wed, 29 Jan 2014 17:43:25 GMT; "
     "Max-Age=3600; SameSite=Lax; Secure=1; HttpOnly=1",
     {"id=abc"}},
    {"id=abc; DOMAIN=x; pAtH=/; expires=1; MAX-AGE=1; samesite=none; SECURE=; httponly=",
     {"id=abc"}},
    /* Pieces without '=' are dropped, attribute names or not. */
    {"flag; a=1; Secure; HttpOnly; partitioned", {"a=1"}},
    {"en; secure; httponly", {NULL}},
    /* Only the seven attribute names are dropped; Version and Comment are cookies. */
    {"vf=5;Version=1;Comment=;Domain=.example.com", {"vf=5", "Version=1", "Comment="}},
    {"max_age=1; domains=2; path2=3", {"max_age=1", "domains=2", "path2=3"}},
    /* Only ';' and '\n' separate: a comma in a date stays inside its piece. */
    {"a=1; expires=Wed, 29 Jan 2014 17:43:25 GMT; b=2", {"a=1", "b=2"}},
    {"when=Wed, 29 Jan 2014 17:43:25 GMT", {"when=Wed, 29 Jan 2014 17:43:25 GMT"}},
};

static void test_parse_attributes(void **state)
{
    (void)state;
    parse_rows(ROWS(attributes_cases));
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

/* A value of vlen bytes, and the bits brock__cookie_value_bits() gives it (-1: identifying). */
struct bits_case {
    const char *v;
    size_t vlen;
    int bits;
};

#define V(s) (s), sizeof(s) - 1

static const struct bits_case bits_cases[] = {
    {V("EN"), 8},
    {V("En"), 8},
    {V("TRUE"), 3},
    {V("No_Data"), 3},
    {V("OPT-OUT"), 3},
    {V("10"), -1},
    {V("-1"), -1},
    {V("abc"), -1},
    {V("english"), -1},
    {V("nodata1"), -1},
    {V("opt-outs"), -1},
    {V(" en"), -1},
    {V("thirdpartytest1234567890abcdef"), -1},
    /* Views: only vlen bytes count, and a NUL inside is no table value. */
    {"enXYZ", 2, 8},
    {"yes", 0, 3},
    {V("e\0n"), -1},
    {NULL, 0, 3},
};

#undef V

static void test_value_bits_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bits_cases) / sizeof(bits_cases[0]); i++) {
        const struct bits_case *c = &bits_cases[i];
        int got = brock__cookie_value_bits(c->v, c->vlen);

        if (got != c->bits)
            fail_msg("row %zu \"%.*s\" (%zu bytes): %d bits, want %d", i, (int)c->vlen,
                     c->v ? c->v : "", c->vlen, got, c->bits);
    }
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

/* Headers, and what brock__has_cookie_tracking() says of them: whether they track, and the
 * cookie it names (NULL: not looked at). */
struct tracking_case {
    struct {
        const char *name, *value;
    } h[5]; /* the rest NULL */
    int want;
    const char *cookie;
};

/* Each row's headers, every one of them read. */
static void tracking_rows(const struct tracking_case *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct tracking_case *c = &rows[i];
        struct brock_header h[5];
        char name[64] = "(unset)";
        size_t k = 0;
        int got;

        for (; k < 5 && c->h[k].name; k++)
            h[k] = (struct brock_header)H(c->h[k].name, c->h[k].value);
        got = tracking(h, k, name, sizeof(name));
        if (got != c->want)
            fail_msg("row %zu (%s: %s): %d, want %d", i, c->h[0].name, c->h[0].value, got, c->want);
        if (c->cookie && strcmp(name, c->cookie) != 0)
            fail_msg("row %zu (%s: %s): names \"%s\", want \"%s\"", i, c->h[0].name, c->h[0].value,
                     name, c->cookie);
    }
}

/* Privacy Badger's examples (section 3.2). */
static const struct tracking_case example_cases[] = {
    {{{"Cookie", "thirdpartytest=1234567890"}}, 1, "thirdpartytest"},
    {{{"Cookie", "key=ab"}}, 0, ""},
    {{{"Cookie", "key=ab"}, {"Cookie", "key=ab"}}, 1, "key"},
    {{{"Set-Cookie", "vf=5;Version=1;Comment=;Domain=.example.com;Path=/"}}, 0, NULL},
};

static void test_tracking_examples(void **state)
{
    (void)state;
    tracking_rows(ROWS(example_cases));
}

static const struct tracking_case header_cases[] = {
    {{{"COOKIE", "id=abcdef"}}, 1, NULL},
    {{{"set-COOKIE", "id=abcdef; Path=/"}}, 1, "id"},
    /* Only Cookie and Set-Cookie are read. */
    {{{"X-Cookie", "id=abcdef"},
      {"Cookie2", "id=abcdef"},
      {"Set-Cookie2", "id=abcdef"},
      {"Referer", "id=abcdef"},
      {"Cookies", "id=abcdef"}},
     0,
     NULL},
    /* Bits add up across every Cookie and Set-Cookie header: 4 + 4 + 4 = 12 in the first four,
     * 15 with the fifth. */
    {{{"Cookie", "a=1"}, {"Accept", "x=1"}, {"Set-Cookie", "b=2; Secure"}, {"Cookie", "c=3"}},
     0,
     NULL},
    {{{"Cookie", "a=1"},
      {"Accept", "x=1"},
      {"Set-Cookie", "b=2; Secure"},
      {"Cookie", "c=3"},
      {"cookie", "d="}},
     1,
     "d"},
    {{{"Cookie", ""}}, 0, NULL},
};

static void test_tracking_headers(void **state)
{
    const char raw[] = "Cookie: a=enabcdef";
    struct brock_header h[] = {{raw, 6, raw + 8, 4}};
    char name[64];

    (void)state;
    tracking_rows(ROWS(header_cases));
    /* Header views need no NUL. */
    assert_int_equal(tracking(h, 1, name, sizeof(name)), 0);
    h[0].value_len = 5;
    assert_int_equal(tracking(h, 1, name, sizeof(name)), 1);
    assert_string_equal(name, "a");
    assert_int_equal(tracking(NULL, 0, name, sizeof(name)), 0);
}

static const struct tracking_case sum_cases[] = {
    /* 8 + 4 = 12 is not more than 12. */
    {{{"Cookie", "lang=en; n=1"}}, 0, NULL},
    /* 8 + 4 + 3 = 15: the cookie that passes 12 is named. */
    {{{"Cookie", "lang=en; n=1; c=; d=yes"}}, 1, "c"},
    /* Values are lower-cased and unquoted before the lookup. */
    {{{"Cookie", "lang=\"EN\""}}, 0, NULL},
    {{{"Cookie", "lang=\"abc\""}}, 1, NULL},
    /* '\n' splits folded Set-Cookie values: 4 * 3 = 12, then 16. */
    {{{"Set-Cookie", "a=1\nb=2\nc=3"}}, 0, NULL},
    {{{"Set-Cookie", "a=1\nb=2\nc=3\nd=4"}}, 1, NULL},
    /* Attributes do not count, whatever their values. */
    {{{"Set-Cookie", "id=en; Path=/a8f3e9c1; Expires=Wed, 29 Jan 2014 17:43:25 GMT; "
                     "Domain=tracker.example; Max-Age=31536000; SameSite=None; Secure"}},
     0,
     NULL},
    /* Pieces without '=' do not count either. */
    {{{"Cookie", "a8f3e9c1; en; secure; httponly"}}, 0, NULL},
};

static void test_tracking_sum(void **state)
{
    (void)state;
    tracking_rows(ROWS(sum_cases));
}

static const struct tracking_case cf_bm_cases[] = {
    {{{"Set-Cookie", "__cf_bm=Zm9vYmFyLmJhei4xMjM0NTY3ODkw; path=/; expires=Wed, 29 Jan 2014 "
                     "17:43:25 GMT; domain=.tracker.example; HttpOnly"}},
     0,
     NULL},
    /* Ignored, not counted as bits either: 8 + 4 stays 12. */
    {{{"Cookie", "__cf_bm=; lang=en; __cf_bm=1; n=1"}}, 0, NULL},
    {{{"Cookie", "__cf_bm=abc123xyz; id=abc123xyz"}}, 1, "id"},
    /* The name is matched exactly. */
    {{{"Cookie", "__CF_BM=abc123xyz"}}, 1, "__CF_BM"},
    {{{"Cookie", "__cf_bm2=abc123xyz"}}, 1, NULL},
    {{{"Cookie", "__cfduid=abc123xyz"}}, 1, NULL},
};

static void test_tracking_cf_bm(void **state)
{
    (void)state;
    tracking_rows(ROWS(cf_bm_cases));
}

static const struct tracking_case duplicate_cases[] = {
    /* Within one header the later value replaces the earlier one. */
    {{{"Cookie", "a=abcdef; a=0"}}, 0, NULL},
    {{{"Cookie", "a=0; a=abcdef"}}, 1, "a"},
    /* A name counts once per header: 4 bits, not 16. */
    {{{"Cookie", "a=1; a=1; a=1; a=1; a=1"}}, 0, NULL},
    /* The name keeps its first place: "a" (now identifying) comes before "b". */
    {{{"Cookie", "a=1; b=xyz123; a=abc123"}}, 1, "a"},
    /* Names are case-sensitive: A and a are two cookies, 8 + 8. */
    {{{"Cookie", "a=en; A=en"}}, 1, "A"},
    /* Across headers nothing is replaced: each header's "a" counts. */
    {{{"Cookie", "a=en"}, {"Set-Cookie", "a=en; Path=/"}}, 1, NULL},
};

static void test_tracking_duplicates(void **state)
{
    (void)state;
    tracking_rows(ROWS(duplicate_cases));
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
