/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Content-Security-Policy amended for brock's inline script: the governing directive found
 * (script-src-elem, script-src, default-src), 'unsafe-inline' alone left alone, 'none'
 * replaced, the hash added otherwise, and nothing else of the value changed. */
#include "test.h"

#include <string.h>

#include "proxy/csp.h"

#define H "'sha256-AAAA'"

/* want NULL: the value stays as it is. */
static void expect(const char *v, const char *want)
{
    struct buf out;
    int rc;

    buf_init(&out, 65536);
    rc = csp_amend(v, strlen(v), H, &out);
    if (!want && rc != 0)
        fail_msg("'%s': changed to '%s'", v, rc > 0 ? out.data : "(error)");
    if (want && (rc != 1 || strcmp(out.data, want) != 0))
        fail_msg("'%s': got '%s', want '%s'", v, rc == 1 ? out.data : "(unchanged)", want);
    buf_cleanup(&out);
}

static void test_no_governing_directive(void **state)
{
    (void)state;
    expect("", NULL);
    expect("img-src 'self'; style-src 'none'", NULL);
    expect("frame-ancestors 'none'", NULL);
    expect("script-src-attr 'none'", NULL);
    expect("upgrade-insecure-requests", NULL);
}

static void test_append(void **state)
{
    (void)state;
    expect("script-src 'self'", "script-src 'self' " H);
    expect("default-src 'self'; img-src *", "default-src 'self' " H "; img-src *");
    expect("default-src 'self'; script-src https://cdn.example",
           "default-src 'self'; script-src https://cdn.example " H);
    expect("script-src 'self'; script-src-elem 'self' https://a.example",
           "script-src 'self'; script-src-elem 'self' https://a.example " H);
    expect("Script-Src 'self'  ;  img-src 'self'", "Script-Src 'self' " H "  ;  img-src 'self'");
    expect("script-src", "script-src " H);
    expect("script-src ;", "script-src " H " ;");
    /* The first of a name counts; a later one is ignored by browsers and left alone. */
    expect("script-src 'self'; script-src 'unsafe-inline'",
           "script-src 'self' " H "; script-src 'unsafe-inline'");
}

static void test_unsafe_inline(void **state)
{
    (void)state;
    expect("script-src 'self' 'unsafe-inline'", NULL);
    expect("default-src * 'UNSAFE-INLINE'", NULL);
    /* A nonce, a hash or 'strict-dynamic' switches 'unsafe-inline' off: the hash is needed. */
    expect("script-src 'unsafe-inline' 'nonce-abc'", "script-src 'unsafe-inline' 'nonce-abc' " H);
    expect("script-src 'unsafe-inline' 'sha384-xyz'", "script-src 'unsafe-inline' 'sha384-xyz' " H);
    expect("script-src 'unsafe-inline' 'strict-dynamic'",
           "script-src 'unsafe-inline' 'strict-dynamic' " H);
    /* The governing directive decides: default-src's 'unsafe-inline' does not count. */
    expect("default-src 'unsafe-inline'; script-src 'self'",
           "default-src 'unsafe-inline'; script-src 'self' " H);
    expect("script-src 'unsafe-inline'; script-src-elem 'self'",
           "script-src 'unsafe-inline'; script-src-elem 'self' " H);
    expect("script-src 'self'; script-src-elem 'unsafe-inline'", NULL);
}

static void test_none(void **state)
{
    (void)state;
    expect("script-src 'none'", "script-src " H);
    expect("default-src 'NONE'; img-src 'self'", "default-src " H "; img-src 'self'");
    expect("object-src 'none'; script-src 'none' ", "object-src 'none'; script-src " H " ");
}

static void test_policy_lists(void **state)
{
    (void)state;
    expect("script-src 'self', img-src 'none'", "script-src 'self' " H ", img-src 'none'");
    expect("script-src 'self',script-src 'none'", "script-src 'self' " H ",script-src " H);
    expect("img-src *, default-src 'unsafe-inline', script-src 'nonce-x'",
           "img-src *, default-src 'unsafe-inline', script-src 'nonce-x' " H);
}

static void test_full(void **state)
{
    struct buf out;

    (void)state;
    buf_init(&out, 16);
    assert_int_equal(csp_amend("script-src 'self' https://a.example", 34, H, &out), -1);
    buf_cleanup(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_governing_directive), cmocka_unit_test(test_append),
        cmocka_unit_test(test_unsafe_inline),          cmocka_unit_test(test_none),
        cmocka_unit_test(test_policy_lists),           cmocka_unit_test(test_full),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
