/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's surrogates: Debian's surrogates.js read without running it (its bodies
 * compared with what running it gives), the current layout's rules and bodies, matching by
 * suffix, prefix, parameters and wildcard, the resource type, the fingerprinting scripts of
 * cookieblocked CDNs, malformed files named with their line, and a reload that fails
 * changing nothing.
 */
#include "test.h"

#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "engine/engine.h"
#include "data/surrogate.h"
#include "util/file.h"

/* A data folder of links to the current layout's files, without its surrogates unless
 * with_rules. */
static int setup_dir(void **state, int with_rules)
{
    struct test_fixture *f = test_fixture_new("surrogate");

    test_link_data(f->data, with_rules ? NULL
                                       : (const char *const[]){"surrogate-rules.json",
                                                               "web_accessible_resources", NULL});
    *state = f;
    return 0;
}

static int setup_plain(void **state)
{
    return setup_dir(state, 0);
}

static int setup_rules(void **state)
{
    return setup_dir(state, 1);
}

static void put(const struct test_fixture *f, const char *name, const char *text)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", f->data, name);
    unlink(path);
    assert_int_equal(file_write_atomic(path, text, strlen(text), 0600), 0);
}

/* Debian's surrogates.js in the data folder. */
static void put_debian(const struct test_fixture *f)
{
    char dst[512], real[4096];

    assert_non_null(realpath(test_data("privacybadger-2020/surrogates.js"), real));
    snprintf(dst, sizeof(dst), "%s/surrogates.js", f->data);
    assert_int_equal(symlink(real, dst), 0);
}

static void sha1_hex(const char *p, size_t n, char out[41])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;

    assert_int_equal(EVP_Digest(p, n, md, &mdlen, EVP_sha1(), NULL), 1);
    for (unsigned i = 0; i < mdlen; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* Decides a request; d is filled. */
static void decide(struct brock_engine *e, const char *url, const char *site,
                   enum brock_resource_type type, struct brock_decision *d)
{
    struct brock_request r = {.url = url, .site = site, .type = type};

    assert_int_equal(brock_decide_request(e, &r, d), 0);
}

/* The token of the surrogate a blocked script gets, "" for none. */
static const char *token_of(struct brock_engine *e, const char *url, enum brock_resource_type type)
{
    static struct brock_decision d;

    decide(e, url, "news.example", type, &d);
    if (!d.surrogate)
        assert_string_equal(d.surrogate_token, "");
    return d.surrogate_token;
}

/* ---- Debian's layout ---- */

/* Each body of Debian's surrogates.js: its length and SHA-1 as Node gives them, the file run
 * with a stub require() and each string of its surrogates object written out. */
static const struct {
    const char *token;
    size_t len;
    const char *sha1;
} DEBIAN_BODIES[] = {
    {"/ga.js", 3020, "ca123604443a0bc1ab86b2fdf6d6ef6543c61de1"},
    {"/beacon.js", 122, "21b63619524c85b6ec20194fccf6c61b81748729"},
    {"/c2/plugins/streamsense_plugin_html5.js", 19, "e01362020756e4b40ad3823f10fc943941b2cd36"},
    {"/gpt.js", 3500, "919ba693b8e123d52f989c9617a58aa4c02e6c70"},
    {"/app/yqmin", 287, "3bdf5e750438cc3ed087f0fa235b12702e10c2f9"},
    {"/analytics.js", 1066, "168eb2515372d2b9ae437540c8b12176e3561668"},
    {"/outbrain.js", 830, "bc5f5e476c94f4668251d509a67398446cca9805"},
    {"noopjs", 22, "dbe6504d63822a14b9a203f8fded580030c55379"},
};

static void test_debian_layout(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e;
    struct brock_decision d;
    size_t hosts, bodies, len;
    const char *body;
    char hex[41];

    put_debian(f);
    e = test_engine_open(NULL, f->data, 1);
    brock__surrogates_counts(e->lists.surrogates, &hosts, &bodies);
    assert_int_equal(hosts, 8);
    assert_int_equal(bodies, 8);
    for (size_t i = 0; i < sizeof(DEBIAN_BODIES) / sizeof(DEBIAN_BODIES[0]); i++) {
        body = brock__surrogates_body(e->lists.surrogates, DEBIAN_BODIES[i].token, &len);
        assert_non_null(body);
        sha1_hex(body, len, hex);
        if (len != DEBIAN_BODIES[i].len || strcmp(hex, DEBIAN_BODIES[i].sha1) != 0)
            fail_msg("%s: %zu bytes, sha1 %s", DEBIAN_BODIES[i].token, len, hex);
    }
    body = brock__surrogates_body(e->lists.surrogates, "noopjs", &len);
    assert_string_equal(body, "(function() {\n\t;\n})();");

    assert_int_equal(brock_set_user_action(e, "www.google-analytics.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "cdn.krxd.net", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "widgets.outbrain.com", BROCK_USER_BLOCK), 0);
    decide(e, "https://www.google-analytics.com/analytics.js?id=1#x", "news.example",
           BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_string_equal(d.surrogate_token, "/analytics.js");
    assert_int_equal(d.surrogate_len, 1066);
    assert_string_equal(
        token_of(e, "https://www.google-analytics.com/x/ga.js", BROCK_RESOURCE_SCRIPT), "/ga.js");
    assert_string_equal(
        token_of(e, "https://www.google-analytics.com/ga.jsx", BROCK_RESOURCE_SCRIPT), "");
    /* A string is a wildcard: any script of the host. */
    assert_string_equal(token_of(e, "https://cdn.krxd.net/anything.js", BROCK_RESOURCE_SCRIPT),
                        "noopjs");
    assert_string_equal(token_of(e, "https://widgets.outbrain.com/x/y.js?z", BROCK_RESOURCE_SCRIPT),
                        "/outbrain.js");
    /* Not a script, not blocked, or first party: no surrogate. */
    assert_string_equal(token_of(e, "https://cdn.krxd.net/a.js", BROCK_RESOURCE_STYLESHEET), "");
    assert_string_equal(token_of(e, "https://cdn.krxd.net/a.js", BROCK_RESOURCE_OTHER), "");
    decide(e, "https://cdn.krxd.net/a.js", "www.krxd.net", BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.reason, BROCK_WHY_FIRST_PARTY);
    assert_null(d.surrogate);
    assert_int_equal(brock_set_user_action(e, "cdn.krxd.net", BROCK_USER_COOKIEBLOCK), 0);
    assert_string_equal(token_of(e, "https://cdn.krxd.net/a.js", BROCK_RESOURCE_SCRIPT), "");
    brock_engine_free(e);
}

/* ---- the current layout ---- */

static void test_current_layout(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_engine_open(NULL, f->data, 1);
    struct brock_decision d;
    size_t hosts, bodies;
    static const char *const blocked[] = {
        "www.google-analytics.com",      "cdn.krxd.net", "www.google.com", "p.typekit.net",
        "pagead2.googlesyndication.com", "rumble.com"};

    (void)state;
    brock__surrogates_counts(e->lists.surrogates, &hosts, &bodies);
    assert_int_equal(hosts, 19);
    /* The test data has five of the body files, which 10 tokens name. */
    assert_int_equal(bodies, 10);
    for (size_t i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++)
        assert_int_equal(brock_set_user_action(e, blocked[i], BROCK_USER_BLOCK), 0);
    decide(e, "https://www.google-analytics.com/analytics.js", NULL, BROCK_RESOURCE_SCRIPT, &d);
    assert_string_equal(d.surrogate_token, "/analytics.js");
    assert_non_null(strstr(d.surrogate, "window.ga"));
    /* A token whose body file is missing has no surrogate: the request is denied alone. */
    assert_string_equal(
        token_of(e, "https://www.google-analytics.com/ga.js", BROCK_RESOURCE_SCRIPT), "");
    assert_string_equal(token_of(e, "https://pagead2.googlesyndication.com/x/omweb-v1.js?a=1",
                                 BROCK_RESOURCE_SCRIPT),
                        "/omweb-v1.js");
    assert_string_equal(token_of(e, "https://cdn.krxd.net/", BROCK_RESOURCE_SCRIPT), "noopjs");
    /* prefix: the path starts with the token. */
    assert_string_equal(token_of(e, "https://rumble.com/embedJS/u3", BROCK_RESOURCE_SCRIPT), "");
    /* A stylesheet rule answers stylesheets only. */
    assert_string_equal(token_of(e, "https://p.typekit.net/p.css?s=1", BROCK_RESOURCE_STYLESHEET),
                        "/p.css");
    assert_string_equal(token_of(e, "https://p.typekit.net/p.css?s=1", BROCK_RESOURCE_SCRIPT), "");
    assert_string_equal(token_of(e, "https://p.typekit.net/x/p.css", BROCK_RESOURCE_STYLESHEET),
                        "");
    /* prefix_params: each parameter present with a value. */
    assert_string_equal(token_of(e, "https://www.google.com/recaptcha/api.js?onload=f&render=x",
                                 BROCK_RESOURCE_SCRIPT),
                        "/recaptcha/api.js");
    assert_string_equal(token_of(e, "https://www.google.com/recaptcha/api.js?on%6Coad=f&render=x",
                                 BROCK_RESOURCE_SCRIPT),
                        "/recaptcha/api.js");
    assert_string_equal(
        token_of(e, "https://www.google.com/recaptcha/api.js?onload=f", BROCK_RESOURCE_SCRIPT), "");
    assert_string_equal(token_of(e, "https://www.google.com/recaptcha/api.js?onload=f&render=",
                                 BROCK_RESOURCE_SCRIPT),
                        "");
    assert_string_equal(token_of(e, "https://www.google.com/recaptcha/api.js?onload=f#render=x",
                                 BROCK_RESOURCE_SCRIPT),
                        "");
    /* A widget the user excluded keeps no surrogate. */
    {
        json_t *ex = json_object_get(e->settings, "widgetReplacementExceptions");
        assert_int_equal(json_array_append_new(ex, json_string("Google reCAPTCHA")), 0);
    }
    assert_string_equal(token_of(e, "https://www.google.com/recaptcha/api.js?onload=f&render=x",
                                 BROCK_RESOURCE_SCRIPT),
                        "");
    brock_engine_free(e);
}

/* A data folder without surrogates has none, and that is no error. */
static void test_none(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_engine_open(NULL, f->data, 1);
    struct brock_decision d;

    assert_null(e->lists.surrogates);
    assert_int_equal(brock_set_user_action(e, "cdn.krxd.net", BROCK_USER_BLOCK), 0);
    decide(e, "https://cdn.krxd.net/a.js", NULL, BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_null(d.surrogate);
    brock_engine_free(e);
}

/* ---- fingerprinting scripts on cookieblocked CDNs ---- */

static void test_fp_scripts(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_engine_open(NULL, f->data, 0); /* seeded */
    const char *fp2 = "https://cdn.jsdelivr.net/npm/fingerprintjs2@2.1.0/dist/fingerprint2.min.js";
    struct brock_decision d;

    decide(e, "https://cdn.jsdelivr.net/npm/jquery@3/dist/jquery.min.js", "news.example",
           BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.action, BROCK_COOKIEBLOCK);
    assert_int_equal(d.effect, BROCK_STRIP_COOKIES);
    decide(e, fp2, "news.example", BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.reason, BROCK_WHY_FP_SCRIPT);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_null(d.surrogate);
    decide(e, "https://cdn.jsdelivr.net/npm/fingerprintjs2@2.1.0/dist/fingerprint2.min.js?v=2#a",
           NULL, BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.reason, BROCK_WHY_FP_SCRIPT);
    /* A listed script that a surrogate rule matches gets its body. */
    decide(e, "https://cdn.jsdelivr.net/npm/@fingerprintjs/fingerprintjs@3.3.2/dist/fp.js",
           "news.example", BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.reason, BROCK_WHY_FP_SCRIPT);
    assert_string_equal(d.surrogate_token, "/npm/@fingerprintjs/fingerprintjs@3.3.2/dist/fp.js");
    assert_non_null(strstr(d.surrogate, "FingerprintJS"));
    /* Scripts only, third parties only, cookieblocked hosts only, listed CDNs only. */
    decide(e, fp2, "news.example", BROCK_RESOURCE_OTHER, &d);
    assert_int_equal(d.effect, BROCK_STRIP_COOKIES);
    decide(e, fp2, "www.jsdelivr.net", BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_null(d.surrogate);
    assert_int_equal(brock_set_user_action(e, "cdn.jsdelivr.net", BROCK_USER_COOKIEBLOCK), 0);
    decide(e, fp2, "news.example", BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.reason, BROCK_WHY_FP_SCRIPT);
    assert_int_equal(brock_set_user_action(e, "cdn.jsdelivr.net", BROCK_USER_ALLOW), 0);
    decide(e, fp2, "news.example", BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(brock_set_user_action(e, "storage.googleapis.com", BROCK_USER_COOKIEBLOCK), 0);
    decide(e,
           "https://storage.googleapis.com/kna-genesys-cloud-widget/scripts/"
           "genesys-latest.min.js",
           "news.example", BROCK_RESOURCE_SCRIPT, &d);
    assert_int_equal(d.effect, BROCK_STRIP_COOKIES);
    brock_engine_free(e);
}

/* ---- the reformatting and the tokenizer ---- */

static void check_reformat(const char *in, const char *want)
{
    char out[256];
    size_t n = brock__surrogate_reformat(in, strlen(in), out);

    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void test_reformat(void **state)
{
    (void)state;
    check_reformat("(function () {\n      a;\n    })();", "(function() {\n\ta;\n})();");
    check_reformat("x\r\n     y\n  z", "x\n\n y\n\tz");
    check_reformat("   three", "\t three");
    check_reformat("a   b", "a\t b");
    check_reformat("", "");
    check_reformat("end\n", "end\n");
}

/* Reads text as surrogates.js; returns the rc, errmsg in e. */
static int read_js(struct brock_engine *e, const char *text, struct brock__surrogates **s)
{
    struct brock__data_ctx cx;

    brock__data_ctx_of(e, &cx);
    assert_int_equal(brock__surrogates_new(s), 0);
    return brock__surrogates_js_read(&cx, "surrogates.js", text, strlen(text), *s);
}

static void test_tokenizer(void **state)
{
    static const char js[] = "/* a { comment */ const x = a / 2 / b; // not a regex {\n"
                             "const hostnames = {\n  \"a.example\": ['/a.js', \"/b\\x2ejs\",],\n"
                             "  b: 'any' ,\n};\n"
                             "const surrogates = {\n"
                             "  '/a.js': '(' + function named(p = ')') {\n"
                             "    var r = /[{'\"]\\/}/g, t = `${ {k: '}'}.k }`; // }\n"
                             "    return r.test(t) ? 1 : 0 / 2; /* } */\n"
                             "  } + ')();',\n"
                             "  'any': 'caf\\u00e9\\u{1F600}\\\n',\n"
                             "};\n"
                             "surrogates['/b.js'] = surrogates['/a.js'];\n"
                             "surrogates[key] = surrogates[key].replace(/^x/, '');\n";
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock__surrogates *s;
    const char *body;
    size_t len;

    (void)state;
    if (read_js(e, js, &s) != 0)
        fail_msg("%s", brock_engine_errmsg(e));
    body = brock__surrogates_body(s, "/a.js", &len);
    assert_non_null(body);
    assert_string_equal(body, "(function named(p = ')') {\n"
                              "    var r = /[{'\"]\\/}/g, t = `${ {k: '}'}.k }`; // }\n"
                              "    return r.test(t) ? 1 : 0 / 2; /* } */\n"
                              "  })();");
    assert_string_equal(brock__surrogates_body(s, "/b.js", &len), body);
    assert_string_equal(brock__surrogates_body(s, "any", &len), "caf\xc3\xa9\xf0\x9f\x98\x80");
    brock__surrogates_free(s);
    brock_engine_free(e);
}

static void test_js_errors(void **state)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"const hostnames = {'a.example': ['/a.js]};\n", "surrogates.js line 1: a string runs"},
        {"\n/* never closed\n", "surrogates.js line 2: a comment is never closed"},
        {"const hostnames = {};\nconst surrogates = {\n 'x': noop,\n};\n",
         "surrogates.js line 3: a surrogate must be strings and functions"},
        {"const hostnames = {};\nconst surrogates = {'x': function() { a = /x;\n}};",
         "surrogates.js line 2: a regular expression runs past"},
        {"const hostnames = {};\nconst surrogates = {'x': function() {\n{ };\n",
         "surrogates.js line 2: a { is never closed"},
        {"const hostnames = {'bad host': 'x'};", "surrogates.js line 1: a key of hostnames"},
        {"const hostnames = {'a.example': 7};", "surrogates.js line 1: a surrogate token"},
        {"const hostnames = {};\n", "surrogates.js has no `const hostnames"},
        {"const hostnames = {};\nconst surrogates = {};\nsurrogates['a'] = surrogates['b'];",
         "surrogates.js line 3: an alias names a surrogate that is not defined"},
    };
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct brock__surrogates *s;
        int rc = read_js(e, bad[i].text, &s);

        if (rc != BROCK_EFORMAT || !strstr(brock_engine_errmsg(e), bad[i].msg))
            fail_msg("case %zu: %d: %s", i, rc, brock_engine_errmsg(e));
        brock__surrogates_free(s);
    }
    brock_engine_free(e);
}

/* Malformed rules fail the open and a reload, which then changes nothing. */
static void test_malformed_rules(void **state)
{
    struct test_fixture *f = *state;
    struct brock_config cfg = {.data_dir = f->data, .no_seed = 1};
    struct brock_engine *e = NULL;
    struct brock_decision d;
    char err[512];

    put(f, "surrogate-rules.json",
        "{\"hostnames\": {\"a.example\": {\"match\": \"sometimes\"}},"
        " \"tokens\": {}}");
    assert_int_equal(brock_engine_open(&cfg, &e, err, sizeof(err)), BROCK_EFORMAT);
    assert_non_null(strstr(err, "surrogate-rules.json: the rule of \"a.example\" has no "
                                "\"match\""));
    put(f, "surrogate-rules.json", "{\"hostnames\": {}, \"tokens\": {\"x\": \"/etc/passwd\"}}");
    assert_int_equal(brock_engine_open(&cfg, &e, err, sizeof(err)), BROCK_EFORMAT);
    assert_non_null(strstr(err, "is not a file of web_accessible_resources/"));

    put(f, "surrogate-rules.json",
        "{\"hostnames\": {\"a.example\": {\"match\": \"any\", "
        "\"token\": \"t\"}}, \"tokens\": {\"t\": "
        "\"/data/web_accessible_resources/t.js\"}}");
    assert_int_equal(mkdir(strcat(strcpy(err, f->data), "/web_accessible_resources"), 0700), 0);
    put(f, "web_accessible_resources/t.js", "first");
    e = test_engine_open(NULL, f->data, 1);
    assert_int_equal(brock_set_user_action(e, "a.example", BROCK_USER_BLOCK), 0);
    decide(e, "https://a.example/x.js", NULL, BROCK_RESOURCE_SCRIPT, &d);
    assert_string_equal(d.surrogate, "first");
    put(f, "web_accessible_resources/t.js", "second");
    put(f, "surrogate-rules.json", "{\"hostnames\": [], \"tokens\": {}}");
    assert_int_equal(brock_engine_reload(e, NULL), BROCK_EFORMAT);
    assert_non_null(strstr(brock_engine_errmsg(e), "surrogate-rules.json"));
    decide(e, "https://a.example/x.js", NULL, BROCK_RESOURCE_SCRIPT, &d);
    assert_string_equal(d.surrogate, "first");
    put(f, "surrogate-rules.json",
        "{\"hostnames\": {\"a.example\": {\"match\": \"any\", "
        "\"token\": \"t\"}}, \"tokens\": {\"t\": "
        "\"/data/web_accessible_resources/t.js\"}}");
    assert_int_equal(brock_engine_reload(e, NULL), 0);
    decide(e, "https://a.example/x.js", NULL, BROCK_RESOURCE_SCRIPT, &d);
    assert_string_equal(d.surrogate, "second");
    /* A body that cannot be read (a folder in its place) fails the reload, saying which. */
    assert_int_equal(unlink(strcat(strcpy(err, f->data), "/web_accessible_resources/t.js")), 0);
    assert_int_equal(mkdir(err, 0700), 0);
    assert_true(brock_engine_reload(e, NULL) < 0);
    if (!strstr(brock_engine_errmsg(e), "web_accessible_resources/t.js"))
        fail_msg("the message does not name the body: \"%s\"", brock_engine_errmsg(e));
    decide(e, "https://a.example/x.js", NULL, BROCK_RESOURCE_SCRIPT, &d);
    assert_string_equal(d.surrogate, "second");
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_debian_layout, setup_plain, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_current_layout, setup_rules, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_none, setup_plain, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_fp_scripts, setup_rules, test_fixture_teardown),
        cmocka_unit_test(test_reformat),
        cmocka_unit_test(test_tokenizer),
        cmocka_unit_test(test_js_errors),
        cmocka_unit_test_setup_teardown(test_malformed_rules, setup_plain, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
