/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Header rewriting as a table: headers in, flags, headers out (PRIVACY-BADGER.md 7 and 8). */
#include "test.h"

#include <string.h>

#include "http/head.h"
#include "proxy/rewrite.h"

#define MAXH 16

struct row {
    const char *name;
    const char *method;
    unsigned flags;
    const char *in[MAXH];  /* "Name: value", NULL-terminated */
    const char *out[MAXH]; /* expected, in order */
};

static const struct row request_rows[] = {
    {"DNT, GPC and Via are added; Host comes from the target",
     "GET",
     0,
     {"Host: other.example", "Accept: */*", NULL},
     {"Host: site.test", "Accept: */*", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"existing DNT and Sec-GPC are replaced, not duplicated",
     "GET",
     0,
     {"DNT: 0", "sec-gpc: 0", "dnt: 1", NULL},
     {"Host: site.test", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"hop-by-hop headers and those Connection names are removed",
     "GET",
     0,
     {"Connection: keep-alive, X-Secret", "X-Secret: 1", "Keep-Alive: timeout=5",
      "Proxy-Connection: keep-alive", "Proxy-Authorization: Basic eA==", "TE: trailers",
      "Trailer: X-T", "Upgrade: h2c", "X-Kept: yes", NULL},
     {"Host: site.test", "X-Kept: yes", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"Connection cannot remove framing headers",
     "POST",
     0,
     {"Connection: Content-Length", "Content-Length: 3", NULL},
     {"Host: site.test", "Content-Length: 3", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"pass keeps cookies and the full referrer",
     "GET",
     0,
     {"Cookie: a=1; b=2", "Referer: https://page.test/a/b?c=d", NULL},
     {"Host: site.test", "Cookie: a=1; b=2", "Referer: https://page.test/a/b?c=d", "DNT: 1",
      "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"cookieblock on GET: no Cookie, Referer cut to the origin",
     "GET",
     REWRITE_STRIP_COOKIES,
     {"Cookie: a=1", "Referer: https://page.test:8443/a/b?c=d", "cookie: b=2", "Accept: x", NULL},
     {"Host: site.test", "Referer: https://page.test:8443/", "Accept: x", "DNT: 1", "Sec-GPC: 1",
      "Via: 1.1 brock", NULL}},
    {"cookieblock drops Cookie2 as it drops Cookie",
     "GET",
     REWRITE_STRIP_COOKIES,
     {"Cookie2: $Version=1", "cookie2: a=1", "Cookie: b=2", "Cookie22: c=3", NULL},
     {"Host: site.test", "Cookie22: c=3", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"pass keeps Cookie2",
     "GET",
     0,
     {"Cookie2: $Version=1", NULL},
     {"Host: site.test", "Cookie2: $Version=1", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"cookieblock on POST: no Cookie, no Referer",
     "POST",
     REWRITE_STRIP_COOKIES,
     {"Cookie: a=1", "Referer: https://page.test/a", "Content-Length: 0", NULL},
     {"Host: site.test", "Content-Length: 0", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"cookieblock drops a Referer without scheme://",
     "GET",
     REWRITE_STRIP_COOKIES,
     {"Referer: page.test/a", NULL},
     {"Host: site.test", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"an upgrade keeps Upgrade and says Connection: Upgrade",
     "GET",
     REWRITE_UPGRADE,
     {"Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Key: k", NULL},
     {"Host: site.test", "Upgrade: websocket", "Sec-WebSocket-Key: k", "Connection: Upgrade",
      "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
    {"close asked of the origin, the client's Connection dropped",
     "GET",
     REWRITE_CLOSE,
     {"Connection: keep-alive", "Content-Length: 2", NULL},
     {"Host: site.test", "Content-Length: 2", "Connection: close", "DNT: 1", "Sec-GPC: 1",
      "Via: 1.1 brock", NULL}},
    {"an upgrade is never asked to close",
     "GET",
     REWRITE_UPGRADE | REWRITE_CLOSE,
     {"Connection: Upgrade", "Upgrade: websocket", NULL},
     {"Host: site.test", "Upgrade: websocket", "Connection: Upgrade", "DNT: 1", "Sec-GPC: 1",
      "Via: 1.1 brock", NULL}},
    {"an existing Via is kept beside brock's",
     "GET",
     0,
     {"Via: 1.0 other", NULL},
     {"Host: site.test", "Via: 1.0 other", "DNT: 1", "Sec-GPC: 1", "Via: 1.1 brock", NULL}},
};

static const struct row response_rows[] = {
    {"hop-by-hop removed, Via added, cookies kept on pass",
     NULL,
     0,
     {"Connection: close", "Keep-Alive: timeout=5", "Set-Cookie: a=1", "Content-Length: 2", NULL},
     {"Set-Cookie: a=1", "Content-Length: 2", "Via: 1.1 brock", NULL}},
    {"cookieblock removes every Set-Cookie and Set-Cookie2, nothing else",
     NULL,
     REWRITE_STRIP_COOKIES,
     {"Set-Cookie: a=1", "Content-Type: text/plain", "set-cookie: b=2; Path=/",
      "Set-Cookie2: c=3; Version=1", "set-cookie2: d=4", "Set-Cookie3: e=5", NULL},
     {"Content-Type: text/plain", "Set-Cookie3: e=5", "Via: 1.1 brock", NULL}},
    {"pass keeps Set-Cookie2",
     NULL,
     0,
     {"Set-Cookie2: c=3; Version=1", NULL},
     {"Set-Cookie2: c=3; Version=1", "Via: 1.1 brock", NULL}},
    {"read-until-close turned chunked",
     NULL,
     REWRITE_CHUNKED,
     {"Content-Type: x", NULL},
     {"Content-Type: x", "Transfer-Encoding: chunked", "Via: 1.1 brock", NULL}},
    {"chunked unwrapped for an HTTP/1.0 client, which is then closed",
     NULL,
     REWRITE_UNCHUNKED | REWRITE_CLOSE,
     {"Transfer-Encoding: chunked", "Content-Type: x", NULL},
     {"Content-Type: x", "Connection: close", "Via: 1.1 brock", NULL}},
    {"101 keeps Upgrade",
     NULL,
     REWRITE_UPGRADE,
     {"Upgrade: websocket", "Connection: Upgrade", NULL},
     {"Upgrade: websocket", "Connection: Upgrade", "Via: 1.1 brock", NULL}},
};

/* Splits "Name: value" lines into views over the row's own strings. */
static size_t to_headers(const char *const *lines, struct brock_header *h)
{
    size_t n = 0;

    for (; lines[n]; n++) {
        const char *colon = strchr(lines[n], ':');

        h[n].name = lines[n];
        h[n].name_len = (size_t)(colon - lines[n]);
        h[n].value = colon + 2;
        h[n].value_len = strlen(colon + 2);
    }
    return n;
}

static void check(const struct row *r, const struct rewrite_out *o)
{
    size_t want = 0;

    while (r->out[want])
        want++;
    if (o->n != want)
        fail_msg("%s: %zu headers out, expected %zu", r->name, o->n, want);
    for (size_t i = 0; i < want; i++) {
        char got[512];

        snprintf(got, sizeof(got), "%.*s: %.*s", (int)o->h[i].name_len, o->h[i].name,
                 (int)o->h[i].value_len, o->h[i].value);
        if (strcmp(got, r->out[i]) != 0)
            fail_msg("%s: header %zu is '%s', expected '%s'", r->name, i, got, r->out[i]);
    }
}

static void test_requests(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(request_rows) / sizeof(request_rows[0]); i++) {
        const struct row *r = &request_rows[i];
        struct brock_header in[MAXH];
        struct rewrite_out o;
        size_t n = to_headers(r->in, in);

        rewrite_out_init(&o);
        assert_int_equal(rewrite_request(in, n, r->method, "site.test", r->flags, &o), 0);
        check(r, &o);
        rewrite_out_cleanup(&o);
    }
}

static void test_responses(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(response_rows) / sizeof(response_rows[0]); i++) {
        const struct row *r = &response_rows[i];
        struct brock_header in[MAXH];
        struct rewrite_out o;
        size_t n = to_headers(r->in, in);

        rewrite_out_init(&o);
        assert_int_equal(rewrite_response(in, n, r->flags, &o), 0);
        check(r, &o);
        rewrite_out_cleanup(&o);
    }
}

static void test_referer_origin(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"https://a.test/x/y?z", "https://a.test/"},
        {"http://a.test", "http://a.test/"},
        {"http://a.test?q=1", "http://a.test/"},
        {"http://user@a.test:81/p#f", "http://user@a.test:81/"},
        {"a.test/x", NULL},
        {"http:/a.test/x", NULL},
        {"", NULL},
    };
    char out[64];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int n = rewrite_referer_origin(cases[i].in, strlen(cases[i].in), out, sizeof(out));

        if (!cases[i].out) {
            assert_int_equal(n, -1);
        } else {
            assert_int_equal(n, (int)strlen(cases[i].out));
            assert_string_equal(out, cases[i].out);
        }
    }
    /* Too small for the origin: refused, not truncated. */
    assert_int_equal(rewrite_referer_origin("http://long.example/", 20, out, 8), -1);
}

static void test_list_has(void **state)
{
    (void)state;
    assert_true(http_list_has("keep-alive, Upgrade", 19, "upgrade"));
    assert_true(http_list_has(" close ", 7, "close"));
    assert_false(http_list_has("closed", 6, "close"));
    assert_false(http_list_has("", 0, "close"));
    assert_true(http_list_has(",,a,,b", 6, "b"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_responses),
        cmocka_unit_test(test_referer_origin),
        cmocka_unit_test(test_list_has),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
