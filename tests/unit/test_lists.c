/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's lists: loading both layouts of the real data, rejecting malformed files,
 * and the cookieblock list update rules (section 6).
 */
#include "test.h"

#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "util/alloc.h"
#include "failalloc.h"
#include "util/file.h"

/* An engine with empty maps; the lists tests need no store and no settings. */

/* A reader's context on e (its message, its data folder), as the engine makes one. */
static const struct brock__data_ctx *ctx_of(struct brock_engine *e)
{
    static struct brock__data_ctx cx;

    brock__data_ctx_of(e, &cx);
    return &cx;
}
static struct brock_engine *engine_new(void)
{
    struct brock_engine *e = mem_calloc(1, sizeof(*e));

    assert_non_null(e);
    strmap_init(&e->actions);
    strmap_init(&e->snitches);
    strmap_init(&e->tracking);
    strmap_init(&e->fp_scripts);
    brock__lists_init(&e->lists);
    e->check_dnt = 1;
    e->learn = 1;
    e->threshold = BROCK__TRACKING_THRESHOLD;
    return e;
}

static void engine_free(struct brock_engine *e)
{
    brock__lists_cleanup(&e->lists);
    strmap_cleanup(&e->actions, mem_free);
    strmap_cleanup(&e->snitches, NULL);
    strmap_cleanup(&e->tracking, NULL);
    strmap_cleanup(&e->fp_scripts, NULL);
    strvec_cleanup(&e->deleted);
    mem_free(e);
}

/* The CNAME map as read (a stream into a borrowed map over an arena) against the file read
 * whole by another reader: every alias gives its target, and names around them give none. */
static void cname_same_as_json(const struct brock_engine *e)
{
    json_t *all = json_load_file(test_data("privacybadger/cname_domains.json"), 0, NULL), *v;
    const char *alias;
    char longer[BROCK_HOST_MAX + 8];

    assert_non_null(all);
    assert_int_equal(json_object_size(all), e->lists.cname.len);
    json_object_foreach(all, alias, v) {
        const char *got = brock__cname(&e->lists, alias, strlen(alias));

        assert_non_null(got);
        assert_string_equal(got, json_string_value(v));
        snprintf(longer, sizeof(longer), "x.%s", alias);
        if (!json_object_get(all, longer))
            assert_null(brock__cname(&e->lists, longer, strlen(longer)));
        /* Its first bytes are a name of their own, an alias or not. */
        snprintf(longer, sizeof(longer), "%.*s", (int)strlen(alias) - 1, alias);
        if (!json_object_get(all, longer))
            assert_null(brock__cname(&e->lists, alias, strlen(alias) - 1));
    }
    json_decref(all);
}

/* ---- temporary data folders, removed by teardown even when a test fails ---- */

static char *tmpdirs[4];

static int setup(void **state)
{
    *state = engine_new();
    return 0;
}

static int teardown(void **state)
{
    int rc = 0;

    engine_free(*state);
    for (size_t i = 0; i < sizeof(tmpdirs) / sizeof(*tmpdirs); i++) {
        if (tmpdirs[i] && test_rmtree(tmpdirs[i]) != 0)
            rc = -1;
        free(tmpdirs[i]);
        tmpdirs[i] = NULL;
    }
    return rc;
}

static char *tmpdir_new(void)
{
    char tmpl[4096];
    size_t i = 0;

    while (tmpdirs[i])
        i++;
    assert_true(i < sizeof(tmpdirs) / sizeof(*tmpdirs));
    test_mkdtemp("lists", tmpl, sizeof(tmpl));
    tmpdirs[i] = strdup(tmpl);
    assert_non_null(tmpdirs[i]);
    return tmpdirs[i];
}

/* Writes text to dir/rel, making rel's folder. */
static void put(const char *dir, const char *rel, const char *text, size_t len)
{
    char path[4096], *slash;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    slash = strrchr(path, '/');
    *slash = '\0';
    assert_int_equal(file_mkdirs(path, 0700), 0);
    *slash = '/';
    assert_int_equal(file_write_atomic(path, text, len, 0600), 0);
}

static void puts_file(const char *dir, const char *rel, const char *text)
{
    put(dir, rel, text, strlen(text));
}

static char *slurp(const char *path, size_t *len)
{
    char *text = NULL;
    size_t n = 0;
    int rc = file_read(path, 64u << 20, &text, &n);

    if (rc != 0)
        fail_msg("%s cannot be read: %s", path, strerror(-rc));
    if (len)
        *len = n;
    return text;
}

/* Copies one of the shared data files into dir/rel, cut to cut bytes (0: whole). */
static void copy_data(const char *dir, const char *rel, const char *data, size_t cut)
{
    size_t len;
    char *text = slurp(test_data(data), &len);

    put(dir, rel, text, cut ? cut : len);
    mem_free(text);
}

static const char MDFP_JS_SMALL[] =
    "let multiDomainFirstPartiesArray = [\n  [\"a.com\", \"b.com\"],\n];\n";
static const char HASHES_SMALL[] = "{\"v1\": \"a18e8dba6848d3fc241b03b88291cb75a3cfec3b\"}";

/* The three required files in Debian's layout, small. */
static char *tmpdir_minimal(void)
{
    char *d = tmpdir_new();

    puts_file(d, "data/yellowlist.txt", "cdn.example.com\nexample.org\n");
    puts_file(d, "data/dnt-policies.json", HASHES_SMALL);
    puts_file(d, "js/multiDomainFirstParties.js", MDFP_JS_SMALL);
    return d;
}

static size_t mdfp_groups(const struct brock_engine *e)
{
    size_t it = 0, max = 0;
    void *v;

    while (strmap_next(&e->lists.mdfp, &it, NULL, &v))
        if ((size_t)(uintptr_t)v > max)
            max = (size_t)(uintptr_t)v;
    return max;
}

static int has_string(const struct strvec *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (!strcmp(sv->v[i], s))
            return 1;
    return 0;
}

/* The widget domains of a socialwidgets.json, counted here independently, without repeats. */
static size_t count_widget_domains(const char *path, size_t *widgets)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr), *seen = json_object(), *w, *d;
    const char *name;
    size_t i;

    assert_non_null(root);
    *widgets = json_object_size(root);
    json_object_foreach(root, name, w) {
        if (json_is_string(json_object_get(w, "domain")))
            json_object_set_new(seen, json_string_value(json_object_get(w, "domain")), json_true());
        json_array_foreach(json_object_get(w, "domains"), i, d)
            json_object_set_new(seen, json_string_value(d), json_true());
    }
    i = json_object_size(seen);
    json_decref(seen);
    json_decref(root);
    return i;
}

/* ---- the real data ---- */

static const char *const KNOWN_HASHES[][2] = {
    {"41ae62ddfee360fe1e0e7dbae0f35b2dc06212eb", "Preliminary DNT Policy"},
    {"96297930e450cb795004ae5b1fcc88290a2fe982", "Discussion Draft DNT Policy v0.1"},
    {"76d89351d48f10c633fd1b5273587913f0851367", "Discussion Draft v0.2 in progress feb 2015"},
    {"a18e8dba6848d3fc241b03b88291cb75a3cfec3b", "DNT Policy v1.0"},
    {"5b8972a0e8df8236bb28061ddc462767d4366218", "DNT Policy v1.0 no-trailing-space"},
    {"c09f71363bb29d0250a1f5524eef36f9ab07669b", "DNT Policy v1.0 dos-line-endings"},
    {"7861462d500fbb6ccb74c614782f4937377bec76", "DNT Policy v1.0 no-eof-newline"},
};

static void test_load_flat(void **state)
{
    struct brock_engine *e = *state;
    char dir[4096], seed[4200];
    struct timespec t0, t1;
    size_t widgets;

    snprintf(dir, sizeof(dir), "%s", test_data("privacybadger"));
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(brock__lists_load(e, dir), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("# loading the lists of %s took %.1f ms\n", dir,
           (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    fflush(stdout);

    assert_int_equal(e->lists.yellow.len, 1119);
    assert_int_equal(e->lists.yellow_order.n, 1119);
    assert_string_equal(e->lists.yellow_order.v[0], "cstaticdun.126.net");
    assert_int_equal(e->lists.dnt_hashes.len, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(strmap_get(&e->lists.dnt_hashes, KNOWN_HASHES[i][0]),
                            KNOWN_HASHES[i][1]);
    assert_int_equal(e->lists.mdfp.len, 6378);
    assert_int_equal(mdfp_groups(e), 476);
    assert_ptr_equal(strmap_get(&e->lists.mdfp, "apple.com"),
                     strmap_get(&e->lists.mdfp, "icloud.com"));
    assert_ptr_not_equal(strmap_get(&e->lists.mdfp, "apple.com"),
                         strmap_get(&e->lists.mdfp, "archive.org"));
    assert_null(strmap_get(&e->lists.mdfp, "example.com"));
    assert_int_equal(e->lists.cname.len, 75955);
    assert_string_equal(brock__cname(&e->lists, "0.net.easyjet.com", 17), "easyjet-com.affex.org");
    /* the name is its first len bytes */
    assert_string_equal(brock__cname(&e->lists, "0.net.easyjet.com.x", 17),
                        "easyjet-com.affex.org");
    assert_null(brock__cname(&e->lists, "0.net.easyjet.com", 16));
    assert_null(brock__cname(&e->lists, "easyjet.com", 11));
    cname_same_as_json(e);

    assert_int_equal(count_widget_domains(test_data("privacybadger/socialwidgets.json"), &widgets),
                     e->lists.widget_domains.n);
    assert_int_equal(widgets, 37);
    assert_int_equal(e->lists.widget_domains.n, 50);
    assert_true(has_string(&e->lists.widget_domains, "*.disqus.com"));
    assert_true(has_string(&e->lists.widget_domains, "platform.x.com"));

    snprintf(seed, sizeof(seed), "%s/seed.json", dir);
    assert_string_equal(e->lists.seed_path, seed);

    assert_true(brock__yellowlisted(&e->lists, "googleapis.com"));
    assert_false(brock__yellowlisted(&e->lists, "fonts.googleapis.com"));
    assert_true(brock__would_cookieblock(&e->lists, "fonts.googleapis.com"));
    assert_true(brock__would_cookieblock(&e->lists, "x.y.googleapis.com"));
    assert_false(brock__would_cookieblock(&e->lists, "googleapis.org"));
    assert_false(brock__would_cookieblock(&e->lists, "com"));
    assert_false(brock__would_cookieblock(&e->lists, ""));
}

/* Counts the groups and the domains of the array literal by brackets and quotes alone. */
static void count_js_literal(const char *text, size_t *groups, size_t *domains)
{
    const char *p = strstr(text, "multiDomainFirstPartiesArray = [");
    const char *end;
    size_t quotes = 0;

    assert_non_null(p);
    p = strchr(p, '[') + 1;
    end = strstr(p, "];");
    assert_non_null(end);
    *groups = 0;
    for (; p < end; p++) {
        *groups += *p == '[';
        quotes += *p == '"';
    }
    *domains = quotes / 2;
}

static void test_load_debian(void **state)
{
    struct brock_engine *e = *state;
    const char *dir = BROCK_DEFAULT_DATA_DIR;
    char path[4096], *text, *p;
    size_t lines = 0, groups, domains, widgets;
    json_t *hashes;
    struct stat st;

    if (stat(dir, &st) != 0) {
        printf("# %s is absent (webext-privacy-badger not installed): skipped\n", dir);
        skip();
    }
    assert_int_equal(brock__lists_load(e, dir), 0);

    snprintf(path, sizeof(path), "%s/data/yellowlist.txt", dir);
    text = slurp(path, NULL);
    for (p = strtok(text, "\r\n"); p; p = strtok(NULL, "\r\n"))
        lines += strspn(p, " \t") != strlen(p);
    mem_free(text);
    assert_true(lines > 0);
    assert_int_equal(e->lists.yellow.len, lines);

    snprintf(path, sizeof(path), "%s/data/dnt-policies.json", dir);
    hashes = json_load_file(path, 0, NULL);
    assert_non_null(hashes);
    assert_int_equal(e->lists.dnt_hashes.len, json_object_size(hashes));
    json_decref(hashes);
    assert_string_equal(strmap_get(&e->lists.dnt_hashes, KNOWN_HASHES[3][0]), KNOWN_HASHES[3][1]);

    snprintf(path, sizeof(path), "%s/js/multiDomainFirstParties.js", dir);
    text = slurp(path, NULL);
    count_js_literal(text, &groups, &domains);
    mem_free(text);
    assert_int_equal(mdfp_groups(e), groups);
    assert_int_equal(e->lists.mdfp.len, domains);
    printf("# %s: %zu cookieblock domains, %zu MDFP groups of %zu domains\n", dir, lines, groups,
           domains);

    snprintf(path, sizeof(path), "%s/data/socialwidgets.json", dir);
    assert_int_equal(e->lists.widget_domains.n, count_widget_domains(path, &widgets));
    assert_true(widgets > 0);

    assert_int_equal(e->lists.cname.len, 0);
    snprintf(path, sizeof(path), "%s/data/seed.json", dir);
    assert_string_equal(e->lists.seed_path, path);
}

/* ---- the cookieblock list's syntax ---- */

static const char *const YELLOW_GOOD[] = {
    "cdn.example.com", "a.b", "1.2.3.example.com", "a-b.c-d.co", "xn--80ak6aa92e.com",
    "a..com", /* the pattern lets dots repeat */
    "126.net",
};
static const char *const YELLOW_BAD[] = {
    "localhost", "Example.com", "-a.com", "a.com.",       "a.com1", "a_b.com",
    "ab",        ".com",        "a.c m",  "a.c\xc3\xb3m", "a.com-", "*.example.com",
};

static void test_yellow_syntax(void **state)
{
    struct brock_engine *e = *state;
    struct strvec out = {0};
    char text[512];
    json_t *h;

    for (size_t i = 0; i < sizeof(YELLOW_GOOD) / sizeof(*YELLOW_GOOD); i++) {
        size_t n = (size_t)snprintf(text, sizeof(text), "%s\n", YELLOW_GOOD[i]);
        assert_int_equal(brock__parse_yellowlist_txt(ctx_of(e), "t.txt", text, n, &out), 0);
        assert_int_equal(out.n, 1);
        assert_string_equal(out.v[0], YELLOW_GOOD[i]);
        n = (size_t)snprintf(text, sizeof(text), "{\"yellowlist\": [\"%s\"]}", YELLOW_GOOD[i]);
        assert_int_equal(brock__parse_pbconfig(ctx_of(e), "pb.json", text, n, &out, &h), 0);
        assert_int_equal(out.n, 1);
        assert_int_equal(json_object_size(h), 0);
        json_decref(h);
    }
    for (size_t i = 0; i < sizeof(YELLOW_BAD) / sizeof(*YELLOW_BAD); i++) {
        size_t n = (size_t)snprintf(text, sizeof(text), "good.com\n%s\n", YELLOW_BAD[i]);
        assert_int_equal(brock__parse_yellowlist_txt(ctx_of(e), "t.txt", text, n, &out),
                         BROCK_EFORMAT);
        assert_non_null(strstr(e->errmsg, "t.txt line 2"));
        /* The whole file is refused: the list from before is left as it was. */
        assert_int_equal(out.n, 1);
        n = (size_t)snprintf(text, sizeof(text),
                             "{\"yellowlist\": [\"good.com\", \"%s\", \"other.com\"],"
                             " \"dnt_policy_hashes\": %s}",
                             YELLOW_BAD[i], HASHES_SMALL);
        h = NULL;
        assert_int_equal(brock__parse_pbconfig(ctx_of(e), "pb.json", text, n, &out, &h),
                         BROCK_EFORMAT);
        assert_null(h);
        assert_non_null(strstr(e->errmsg, "pb.json"));
        assert_int_equal(out.n, 1);
    }
    strvec_cleanup(&out);
}

static void test_yellow_txt(void **state)
{
    struct brock_engine *e = *state;
    static const char text[] = "\xef\xbb\xbf a.com \r\n\n\t\r\nb.org\r\n  c.net";
    static const char bad[] = "a.com\n\nNOT A DOMAIN\n";
    struct strvec out = {0};

    assert_int_equal(brock__parse_yellowlist_txt(ctx_of(e), "y.txt", text, sizeof(text) - 1, &out),
                     0);
    assert_int_equal(out.n, 3);
    assert_string_equal(out.v[0], "a.com");
    assert_string_equal(out.v[1], "b.org");
    assert_string_equal(out.v[2], "c.net");
    assert_int_equal(brock__parse_yellowlist_txt(ctx_of(e), "y.txt", bad, sizeof(bad) - 1, &out),
                     BROCK_EFORMAT);
    assert_non_null(strstr(e->errmsg, "y.txt line 3"));
    assert_non_null(strstr(e->errmsg, "NOT A DOMAIN"));
    assert_int_equal(brock__parse_yellowlist_txt(ctx_of(e), "y.txt", "\n \n", 3, &out),
                     BROCK_EFORMAT);
    assert_int_equal(out.n, 3);
    strvec_cleanup(&out);
}

static void expect_pbconfig_error(struct brock_engine *e, const char *text, const char *msg)
{
    struct strvec out = {0};
    json_t *h = NULL;

    assert_int_equal(brock__parse_pbconfig(ctx_of(e), "pb.json", text, strlen(text), &out, &h),
                     BROCK_EFORMAT);
    assert_null(h);
    assert_int_equal(out.n, 0);
    if (!strstr(e->errmsg, msg))
        fail_msg("\"%s\" does not say \"%s\"", e->errmsg, msg);
}

static void test_pbconfig(void **state)
{
    struct brock_engine *e = *state;
    struct strvec out = {0};
    size_t len;
    char *text = slurp(test_data("privacybadger/pbconfig.json"), &len);
    json_t *h;

    assert_int_equal(brock__parse_pbconfig(ctx_of(e), "pbconfig.json", text, len, &out, &h), 0);
    assert_int_equal(out.n, 1119);
    assert_int_equal(json_object_size(h), 7);
    assert_string_equal(json_string_value(json_object_get(h, "DNT Policy v1.0")),
                        KNOWN_HASHES[3][0]);
    json_decref(h);

    assert_int_equal(brock__parse_pbconfig(ctx_of(e), "pbconfig.json", text, len / 2, &out, &h),
                     BROCK_EFORMAT);
    assert_non_null(strstr(e->errmsg, "pbconfig.json is not valid JSON"));
    assert_int_equal(out.n, 1119);
    strvec_cleanup(&out);
    mem_free(text);

    expect_pbconfig_error(e, "[]", "not a JSON object");
    expect_pbconfig_error(e, "{}", "\"yellowlist\" is not a non-empty array");
    expect_pbconfig_error(e, "{\"yellowlist\": []}", "non-empty");
    expect_pbconfig_error(e, "{\"yellowlist\": \"a.com\"}", "non-empty");
    expect_pbconfig_error(e, "{\"yellowlist\": [\"a.com\", 7]}", "entry 2");
    expect_pbconfig_error(e, "{\"yellowlist\": [\"a.com\"], \"dnt_policy_hashes\": []}",
                          "not an object");
    expect_pbconfig_error(e,
                          "{\"yellowlist\": [\"a.com\"], \"dnt_policy_hashes\": "
                          "{\"v\": \"A18E8DBA6848D3FC241B03B88291CB75A3CFEC3B\"}}",
                          "policy \"v\"");
    expect_pbconfig_error(e,
                          "{\"yellowlist\": [\"a.com\"], \"dnt_policy_hashes\": "
                          "{\"v\": \"a18e8dba6848d3fc241b03b88291cb75a3cfec3\"}}",
                          "40 lower-case hex");
    expect_pbconfig_error(e, "{\"yellowlist\": [\"a.com\"], \"dnt_policy_hashes\": {\"v\": 1}}",
                          "40 lower-case hex");
}

/* ---- multi-domain first parties ---- */

static void expect_mdfp_error(struct brock_engine *e, const char *text, const char *msg)
{
    size_t before = e->lists.mdfp.len;

    assert_int_equal(brock__mdfp_install(ctx_of(e), &e->lists, "mdfp.js", text, strlen(text)),
                     BROCK_EFORMAT);
    if (!strstr(e->errmsg, msg) || !strstr(e->errmsg, "mdfp.js"))
        fail_msg("\"%s\" does not say \"%s\"", e->errmsg, msg);
    assert_int_equal(e->lists.mdfp.len, before);
}

static void test_mdfp_js(void **state)
{
    struct brock_engine *e = *state;
    static const char ok[] = "require.scopes.x = (function () {\n"
                             "/**\n * groups [\"not\", \"these\"]\n */\n"
                             "let multiDomainFirstPartiesArray = [\n"
                             "  [\"a.com\", \"b.com\",], // trailing \"comment\"\n"
                             "  [\n"
                             "    /* inner */ \"c.com\",\n"
                             "\n"
                             "    \"d.net\"\n"
                             "  ],\n"
                             "  [],\n"
                             "];\n"
                             "let other = [1, 2];\n"
                             "})();\n";

    assert_int_equal(brock__mdfp_install(ctx_of(e), &e->lists, "mdfp.js", ok, sizeof(ok) - 1), 0);
    assert_int_equal(e->lists.mdfp.len, 4);
    assert_ptr_equal(strmap_get(&e->lists.mdfp, "a.com"), (void *)1);
    assert_ptr_equal(strmap_get(&e->lists.mdfp, "b.com"), (void *)1);
    assert_ptr_equal(strmap_get(&e->lists.mdfp, "c.com"), (void *)2);
    assert_ptr_equal(strmap_get(&e->lists.mdfp, "d.net"), (void *)2);
    assert_null(strmap_get(&e->lists.mdfp, "not"));

    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n  [\"a.com\", 5],\n];", "line 2");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n\n  [x.com],\n];", "line 3");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n  \"a.com\",\n];", "line 2");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n  [\"a.com\",, \"b\"],\n];",
                      "line 2");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n  [\"a.c\\om\"],\n];", "line 2");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n  [\"a.com\"],\n", "line 3");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n  [\"a.com\"],\n]", "';'");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [\n  [\"a.com\n\"]];", "line 2");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [ /* open", "line 1");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [[[\"a.com\"]]];", "line 1");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray;", "'= ['");
    expect_mdfp_error(e, "let xmultiDomainFirstPartiesArray = [];", "does not declare");
    expect_mdfp_error(e, "let multiDomainFirstPartiesArray = [[\"\"]];", "empty");
    expect_mdfp_error(e,
                      "let multiDomainFirstPartiesArray = [\n [\"a.com\"],\n"
                      " [\"b.com\", \"a.com\"],\n];",
                      "line 3: a.com is in two groups (1 and 2)");
    assert_ptr_equal(strmap_get(&e->lists.mdfp, "d.net"), (void *)2);
}

static void test_mdfp_json(void **state)
{
    struct brock_engine *e = *state;
    static const char ok[] = " [[\"a.com\", \"b.com\", \"a.com\"], [\"c.com\"]]";
    size_t len;
    char *text = slurp(test_data("privacybadger/multi-domain-first-parties.json"), &len);

    assert_int_equal(brock__mdfp_install(ctx_of(e), &e->lists, "mdfp.json", ok, sizeof(ok) - 1), 0);
    assert_int_equal(e->lists.mdfp.len, 3);
    assert_ptr_equal(strmap_get(&e->lists.mdfp, "c.com"), (void *)2);

    assert_int_equal(brock__mdfp_install(ctx_of(e), &e->lists, "mdfp.json", text, len - 10),
                     BROCK_EFORMAT);
    assert_non_null(strstr(e->errmsg, "mdfp.json is not valid JSON"));
    mem_free(text);
    assert_int_equal(e->lists.mdfp.len, 3);

    expect_mdfp_error(e, "[[\"a.com\"], [\"b.com\", \"a.com\"]]", "two groups (1 and 2)");
    expect_mdfp_error(e, "[[\"a.com\"], \"b.com\"]", "group 2 is not an array");
    expect_mdfp_error(e, "[[\"a.com\", null]]", "entry 2 is not a string");
}

/* ---- loading folders ---- */

static void test_load_missing(void **state)
{
    struct brock_engine *e = *state;
    char *d = tmpdir_new(), path[4096];

    snprintf(path, sizeof(path), "%s/none", d);
    assert_int_equal(brock__lists_load(e, path), BROCK_ENOENT);
    assert_non_null(strstr(e->errmsg, path));
    assert_non_null(strstr(e->errmsg, "webext-privacy-badger"));

    assert_int_equal(brock__lists_load(e, d), BROCK_ENOENT);
    assert_non_null(strstr(e->errmsg, "cookieblock list"));
    assert_non_null(strstr(e->errmsg, "webext-privacy-badger"));

    puts_file(d, "data/yellowlist.txt", "a.com\n");
    assert_int_equal(brock__lists_load(e, d), BROCK_ENOENT);
    assert_non_null(strstr(e->errmsg, "DNT policy hashes"));

    puts_file(d, "data/dnt-policies.json", HASHES_SMALL);
    assert_int_equal(brock__lists_load(e, d), BROCK_ENOENT);
    assert_non_null(strstr(e->errmsg, "multi-domain first parties"));
    assert_non_null(strstr(e->errmsg, d));

    puts_file(d, "js/multiDomainFirstParties.js", MDFP_JS_SMALL);
    assert_int_equal(brock__lists_load(e, d), 0);
    assert_int_equal(e->lists.yellow.len, 1);
    assert_int_equal(e->lists.dnt_hashes.len, 1);
    assert_int_equal(e->lists.mdfp.len, 2);
    assert_int_equal(e->lists.cname.len, 0);
    assert_int_equal(e->lists.widget_domains.n, 0);
    assert_string_equal(e->lists.seed_path, "");
}

/* A malformed file fails the load with its name, and the lists loaded before stay. */
static void expect_load_error(struct brock_engine *e, const char *dir, const char *file)
{
    assert_int_equal(brock__lists_load(e, dir), BROCK_EFORMAT);
    if (!strstr(e->errmsg, file))
        fail_msg("\"%s\" does not name %s", e->errmsg, file);
    assert_int_equal(e->lists.yellow.len, 2);
    assert_true(brock__yellowlisted(&e->lists, "cdn.example.com"));
    assert_int_equal(e->lists.mdfp.len, 2);
}

/* The CNAME map of d: the test data's file refused, each bad map refused naming its fault,
 * then a good one left in place (a repeated alias and one too long among its entries). */
static void cname_cases(struct brock_engine *e, const char *d)
{
    /* Each bad CNAME map, and the words that must name its fault. */
    static const char *const bad[][2] = {
        {"{\"a.example.com\": 1}", "a.example.com"},
        {"{\"a.example.com\": {\"t\": \"t.tracker.net\"}}",
         "the target of \"a.example.com\" is not a host name"},
        {"{\"a.example.com\": \"\"}", "the target of \"a.example.com\""},
        {"[\"a.example.com\", \"t.tracker.net\"]",
         "cname_domains.json is not a JSON object of alias: target"},
        {"\"t.tracker.net\"", "cname_domains.json is not a JSON object of alias: target"},
        {"{\"a.example.com\": \"t.tracker.net\"} {}",
         "cname_domains.json is not valid JSON (line 1, column 36)"},
        {"{\n  \"a.example.com\": \"t.tracker.net\",\n  x\n}",
         "cname_domains.json is not valid JSON (line 3, column 3)"},
    };
    char text[600];

    copy_data(d, "data/cname_domains.json", "privacybadger/cname_domains.json", 100000);
    expect_load_error(e, d, "cname_domains.json");
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        puts_file(d, "data/cname_domains.json", bad[i][0]);
        expect_load_error(e, d, bad[i][1]);
    }
    /* A repeated alias: the last target holds (the first is freed, which ASan checks); an
     * alias longer than any host name can never match and is left out. */
    snprintf(text, sizeof(text),
             "{\"a.example.com\": \"old.tracker.net\", \"%0300d.example.com\": \"x.net\","
             " \"a.example.com\": \"t.tracker.net\"}",
             0);
    puts_file(d, "data/cname_domains.json", text);
}

static void test_load_malformed(void **state)
{
    struct brock_engine *e = *state;
    char *d = tmpdir_minimal();

    assert_int_equal(brock__lists_load(e, d), 0);
    assert_int_equal(e->lists.yellow.len, 2);

    puts_file(d, "data/socialwidgets.json", "{\"W\": {\"domain\": \"w.example.com\"");
    expect_load_error(e, d, "socialwidgets.json");
    puts_file(d, "data/socialwidgets.json", "{\"W\": {\"domains\": [\"w.example.com\", 1]}}");
    expect_load_error(e, d, "widget \"W\"");
    puts_file(d, "data/socialwidgets.json", "{\"W\": [\"w.example.com\"]}");
    expect_load_error(e, d, "widget \"W\" is not an object");
    puts_file(d, "data/socialwidgets.json",
              "{\"W\": {\"domains\": [\"w.example.com\", \"*.w.example.com\"]},"
              " \"V\": {\"domain\": \"w.example.com\"}, \"U\": {}}");

    cname_cases(e, d);

    puts_file(d, "js/multiDomainFirstParties.js",
              "let multiDomainFirstPartiesArray = [\n  [\"a.com\", true],\n];\n");
    expect_load_error(e, d, "multiDomainFirstParties.js line 2");
    puts_file(d, "js/multiDomainFirstParties.js", MDFP_JS_SMALL);

    puts_file(d, "data/dnt-policies.json", "{\"v1\": \"abc\"}");
    expect_load_error(e, d, "dnt-policies.json");
    puts_file(d, "data/dnt-policies.json", HASHES_SMALL);

    /* pbconfig.json wins over yellowlist.txt, and a bad entry rejects all of it. */
    puts_file(d, "pbconfig.json", "{\"yellowlist\": [\"pb.example.com\", \"Bad.com\"]}");
    expect_load_error(e, d, "pbconfig.json");
    puts_file(d, "pbconfig.json",
              "{\"yellowlist\": [\"pb.example.com\"], \"dnt_policy_hashes\": "
              "{\"v1 again\": \"a18e8dba6848d3fc241b03b88291cb75a3cfec3b\","
              " \"other\": \"5b8972a0e8df8236bb28061ddc462767d4366218\"}}");

    assert_int_equal(brock__lists_load(e, d), 0);
    assert_int_equal(e->lists.yellow.len, 1);
    assert_true(brock__yellowlisted(&e->lists, "pb.example.com"));
    assert_false(brock__yellowlisted(&e->lists, "cdn.example.com"));
    /* Hashes merge: the file's name for a known hash stays. */
    assert_int_equal(e->lists.dnt_hashes.len, 2);
    assert_string_equal(strmap_get(&e->lists.dnt_hashes, KNOWN_HASHES[3][0]), "v1");
    assert_string_equal(brock__cname(&e->lists, "a.example.com", 13), "t.tracker.net");
    assert_int_equal(e->lists.cname.len, 1);
    assert_int_equal(e->lists.widget_domains.n, 2);
    assert_string_equal(e->lists.widget_domains.v[0], "w.example.com");
    assert_string_equal(e->lists.widget_domains.v[1], "*.w.example.com");
}

/* ---- applying a new cookieblock list (section 6) ---- */

static struct action_entry *entry(struct brock_engine *e, const char *d, int heur)
{
    struct action_entry *a = brock__action_ensure(e, d);

    assert_non_null(a);
    a->heur = (uint8_t)heur;
    return a;
}

static int heur_of(struct brock_engine *e, const char *d)
{
    struct action_entry *a = brock__action_get(e, d);

    return a ? a->heur : -1;
}

/* A strvec from a NULL-terminated list of strings. */
static struct strvec list_of(const char *const *v)
{
    struct strvec sv = {0};

    for (; *v; v++)
        assert_int_equal(strvec_push(&sv, *v), 0);
    return sv;
}

static void apply(struct brock_engine *e, const char *const *v)
{
    struct strvec sv = list_of(v);

    assert_int_equal(brock__yellowlist_apply(e, &sv), 0);
    strvec_cleanup(&sv);
}

static void test_apply_added(void **state)
{
    struct brock_engine *e = *state;
    static const char *const before[] = {"other.org", "keep.example.com", NULL};
    static const char *const after[] = {"other.org",
                                        "cdn.example.com",
                                        "cdn.example.net",
                                        "img.example.org",
                                        "new.example.info",
                                        "keep.example.com",
                                        NULL};

    apply(e, before);
    entry(e, "example.com", BROCK_BLOCK);
    entry(e, "example.net", BROCK_ALLOW);
    entry(e, "example.org", BROCK_COOKIEBLOCK);
    entry(e, "www.example.info", BROCK_BLOCK);
    apply(e, after);

    assert_int_equal(e->lists.yellow.len, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(e->lists.yellow_order.v[i], after[i]);
    assert_true(brock__yellowlisted(&e->lists, "cdn.example.com"));
    assert_int_equal(heur_of(e, "cdn.example.com"), BROCK_COOKIEBLOCK);
    assert_true(brock__action_get(e, "cdn.example.com")->dirty & BROCK__DIRTY_HEUR);
    assert_int_equal(heur_of(e, "img.example.org"), BROCK_COOKIEBLOCK);
    /* Only the base's own action counts: allow, or a blocked sibling, adds nothing. */
    assert_int_equal(heur_of(e, "cdn.example.net"), -1);
    assert_int_equal(heur_of(e, "new.example.info"), -1);
    /* A domain that stays on the list is not revisited. */
    assert_int_equal(heur_of(e, "keep.example.com"), -1);
    assert_int_equal(heur_of(e, "example.com"), BROCK_BLOCK);
    assert_int_equal(e->actions.len, 6);
}

static void test_apply_removed(void **state)
{
    struct brock_engine *e = *state;
    static const char *const before[] = {"cdn.example.com", "example.org", "api.example.org", NULL};
    static const char *const after[] = {"example.org", NULL};
    struct action_entry *a;

    apply(e, before);
    entry(e, "example.com", BROCK_BLOCK);
    entry(e, "cdn.example.com", BROCK_COOKIEBLOCK);
    entry(e, "www.example.com", BROCK_NOACTION);
    entry(e, "dnt.example.com", BROCK_NOACTION)->dnt = 1;
    entry(e, "user.example.com", BROCK_NOACTION)->user = BROCK_USER_ALLOW;
    entry(e, "example.org", BROCK_COOKIEBLOCK);
    entry(e, "api.example.org", BROCK_COOKIEBLOCK);
    entry(e, "cdn.tracker.net", BROCK_COOKIEBLOCK);
    apply(e, after);

    assert_false(brock__yellowlisted(&e->lists, "cdn.example.com"));
    assert_int_equal(heur_of(e, "cdn.example.com"), BROCK_BLOCK);
    assert_int_equal(heur_of(e, "example.com"), BROCK_BLOCK);
    /* noaction entries are left alone; dnt and user ones are blocklisted underneath. */
    assert_int_equal(heur_of(e, "www.example.com"), BROCK_NOACTION);
    a = brock__action_get(e, "dnt.example.com");
    assert_int_equal(a->heur, BROCK_BLOCK);
    assert_int_equal(a->dnt, 1);
    a = brock__action_get(e, "user.example.com");
    assert_int_equal(a->heur, BROCK_BLOCK);
    assert_int_equal(a->user, BROCK_USER_ALLOW);
    /* Recomputed against the new list, which still covers api.example.org by its base. */
    assert_int_equal(heur_of(e, "api.example.org"), BROCK_COOKIEBLOCK);
    assert_int_equal(heur_of(e, "example.org"), BROCK_COOKIEBLOCK);
    assert_int_equal(heur_of(e, "cdn.tracker.net"), BROCK_COOKIEBLOCK);
    assert_int_equal(e->actions.len, 8);
}

struct snap {
    char domain[64];
    int heur, user, dnt, dirty;
};

static size_t snapshot(struct brock_engine *e, struct snap *s, size_t max)
{
    size_t it = 0, n = 0;
    const char *k;
    void *v;

    while (strmap_next(&e->actions, &it, &k, &v) && n < max) {
        struct action_entry *a = v;
        snprintf(s[n].domain, sizeof(s[n].domain), "%s", k);
        s[n].heur = a->heur;
        s[n].user = a->user;
        s[n].dnt = a->dnt;
        s[n].dirty = a->dirty;
        n++;
    }
    return n;
}

static void test_apply_remove_empty(void **state)
{
    struct brock_engine *e = *state;
    static const char *const before[] = {"", "a.example.com", NULL};
    static const char *const after[] = {"a.example.com", NULL};
    struct snap s0[16], s1[16];
    size_t n0, n1, dirty;

    memset(s0, 0, sizeof(s0));
    memset(s1, 0, sizeof(s1));

    apply(e, before);
    assert_true(brock__yellowlisted(&e->lists, ""));
    entry(e, "example.com", BROCK_BLOCK);
    entry(e, "a.example.com", BROCK_COOKIEBLOCK);
    entry(e, "b.example.com", BROCK_ALLOW);
    entry(e, "com", BROCK_BLOCK);
    entry(e, "localhost", BROCK_ALLOW);
    n0 = snapshot(e, s0, 16);
    dirty = e->dirty;

    apply(e, after);
    assert_false(brock__yellowlisted(&e->lists, ""));
    assert_true(brock__yellowlisted(&e->lists, "a.example.com"));
    n1 = snapshot(e, s1, 16);
    assert_int_equal(n0, n1);
    assert_memory_equal(s0, s1, n0 * sizeof(*s0));
    assert_int_equal(e->dirty, dirty);
}

/* Debian's older list replaced by the current one, as a pbconfig update would. */
static void test_apply_real(void **state)
{
    struct brock_engine *e = *state;
    struct strvec list = {0};
    size_t len;
    char *text = slurp(test_data("privacybadger/pbconfig.json"), &len);
    json_t *h;
    char *d = tmpdir_minimal();

    assert_int_equal(brock__lists_load(e, d), 0);
    entry(e, "example.com", BROCK_BLOCK);
    entry(e, "cdn.example.com", BROCK_COOKIEBLOCK);
    entry(e, "google.com", BROCK_BLOCK);
    assert_int_equal(brock__parse_pbconfig(ctx_of(e), "pbconfig.json", text, len, &list, &h), 0);
    json_decref(h);
    mem_free(text);
    assert_int_equal(brock__yellowlist_apply(e, &list), 0);
    assert_int_equal(e->lists.yellow.len, 1119);
    for (size_t i = 0; i < list.n; i++)
        assert_string_equal(e->lists.yellow_order.v[i], list.v[i]);
    assert_int_equal(heur_of(e, "cdn.example.com"), BROCK_BLOCK);
    assert_int_equal(heur_of(e, "www.google.com"), BROCK_COOKIEBLOCK);
    strvec_cleanup(&list);
}

/* ---- running out of memory ---- */

/* Every allocation of a load and of an update fails in turn: each failure is reported as
 * such, leaks nothing (under the sanitizer) and leaves the lists loaded before. jansson keeps
 * its own allocator here: under memory pressure it can report a syntax error or even hand back
 * a damaged value, which is no property of these lists. */
static void test_alloc_failures(void **state)
{
    struct brock_engine *e = *state;
    static const char *const next[] = {"cdn.example.com", "new.example.com", NULL};
    char *d = tmpdir_minimal(), *d2 = tmpdir_minimal();
    struct strvec sv = list_of(next);
    long n;
    int rc = -1;

    puts_file(d2, "data/yellowlist.txt", "only.example.net\n");
    puts_file(d2, "data/socialwidgets.json", "{\"W\": {\"domains\": [\"w.example.com\"]}}");
    puts_file(d2, "data/cname_domains.json", "{\"a.example.com\": \"t.tracker.net\"}");
    assert_int_equal(brock__lists_load(e, d), 0);
    for (n = 0; n < 10000 && rc != 0; n++) {
        fail_from(n);
        rc = brock__lists_load(e, d2);
        fail_never();
        if (rc != 0) {
            if (rc != BROCK_ENOMEM)
                fail_msg("allocation %ld: %d (%s)", n, rc, e->errmsg);
            assert_true(brock__yellowlisted(&e->lists, "cdn.example.com"));
            assert_int_equal(e->lists.yellow.len, 2);
        }
    }
    assert_int_equal(rc, 0);
    printf("# a load of a small folder makes %ld allocations\n", n - 1);
    assert_true(brock__yellowlisted(&e->lists, "only.example.net"));
    assert_string_equal(brock__cname(&e->lists, "a.example.com", 13), "t.tracker.net");

    entry(e, "example.com", BROCK_BLOCK);
    for (n = 0, rc = -1; n < 10000 && rc != 0; n++) {
        fail_from(n);
        rc = brock__yellowlist_apply(e, &sv);
        fail_never();
        assert_true(rc == 0 || rc == BROCK_ENOMEM);
        if (rc != 0)
            assert_true(brock__yellowlisted(&e->lists, "only.example.net"));
    }
    assert_int_equal(rc, 0);
    assert_int_equal(heur_of(e, "new.example.com"), BROCK_COOKIEBLOCK);
    strvec_cleanup(&sv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load_flat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_debian, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yellow_syntax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yellow_txt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pbconfig, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mdfp_js, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mdfp_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_added, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_removed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_remove_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_real, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
