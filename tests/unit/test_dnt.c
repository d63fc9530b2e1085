/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The DNT policy rules (section 9): scheduling, the accepted texts and their variants, and
 * what a compliant name resolves to. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/file.h"

#define DAY ((int64_t)86400000)

static char *read_data(const char *rel, size_t *len)
{
    char *text = NULL;

    assert_int_equal(file_read(test_data(rel), 1 << 20, &text, len), 0);
    return text;
}

static void test_schedule(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    struct action_entry *a;
    int64_t now = 1700000000000;

    (void)state;
    assert_int_equal(brock_dnt_take_due(e, "t.example", now, 0), 1);
    a = brock__action_get(e, "t.example");
    assert_non_null(a);
    assert_int_equal(a->next_update, now + DAY);
    assert_int_equal(brock_dnt_take_due(e, "t.example", now + DAY - 1, 0), 0);
    assert_int_equal(brock_dnt_take_due(e, "t.example", now + DAY, 0xffffffffu), 1);
    assert_true(a->next_update >= now + 2 * DAY && a->next_update <= now + 8 * DAY);
    /* the largest draw stays within 7 days */
    assert_int_equal(brock_dnt_take_due(e, "u.example", now, (uint32_t)(6 * DAY)), 1);
    assert_int_equal(brock__action_get(e, "u.example")->next_update, now + 7 * DAY);
    /* checking turned off: never due */
    assert_int_equal(json_object_set_new(e->settings, "checkForDNTPolicy", json_false()), 0);
    brock__settings_changed(e);
    assert_int_equal(brock_dnt_take_due(e, "v.example", now, 0), 0);
    assert_null(brock__action_get(e, "v.example"));
    brock_engine_free(e);
}

static void test_accepted_texts(void **state)
{
    static const char *const texts[] = {
        "privacybadger/dnt-policy.txt",
        "privacybadger/dnt-policy-preliminary.txt",
        "privacybadger/dnt-policy-discussion-draft.txt",
        "privacybadger/dnt-policy-discussion-draft2.txt",
    };
    struct brock_engine *e = test_engine_pb(NULL);
    struct buf v;
    size_t len;
    char *t;

    (void)state;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        t = read_data(texts[i], &len);
        if (!brock_dnt_policy_accepted(e, t, len))
            fail_msg("%s not accepted", texts[i]);
        mem_free(t);
    }
    t = read_data("privacybadger/dnt-policy.txt", &len);
    /* the v1.0 variants: final newline removed, CRLF, trailing spaces stripped, a BOM */
    assert_true(brock_dnt_policy_accepted(e, t, len - 1));
    buf_init(&v, 1 << 20);
    for (size_t i = 0; i < len; i++)
        assert_int_equal(t[i] == '\n' ? buf_puts(&v, "\r\n") : buf_append(&v, t + i, 1), 0);
    assert_true(brock_dnt_policy_accepted(e, v.data, v.len));
    buf_reset(&v);
    for (size_t i = 0, start = 0; i < len; i++) {
        if (t[i] == '\n') {
            size_t end = i;
            while (end > start && t[end - 1] == ' ')
                end--;
            assert_int_equal(buf_append(&v, t + start, end - start), 0);
            assert_int_equal(buf_puts(&v, "\n"), 0);
            start = i + 1;
        }
    }
    assert_true(brock_dnt_policy_accepted(e, v.data, v.len));
    buf_reset(&v);
    assert_int_equal(buf_puts(&v, "\xef\xbb\xbf"), 0);
    assert_int_equal(buf_append(&v, t, len), 0);
    assert_true(brock_dnt_policy_accepted(e, v.data, v.len));
    /* any other change is not the policy */
    t[100] ^= 1;
    assert_false(brock_dnt_policy_accepted(e, t, len));
    assert_false(brock_dnt_policy_accepted(e, "", 0));
    buf_cleanup(&v);
    mem_free(t);
    brock_engine_free(e);
}

static void test_record(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    struct brock_decision d;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_NOACTION), 0);
    assert_non_null(brock__action_ensure(e, "tracker.example"));
    brock__action_get(e, "tracker.example")->heur = BROCK_BLOCK;
    assert_int_equal(brock_dnt_record(e, "good.tracker.example", 1), 0);
    assert_int_equal(brock_decide(e, "good.tracker.example", "site.example", &d), 0);
    assert_int_equal(d.action, BROCK_DNT);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(brock_decide(e, "other.tracker.example", "site.example", &d), 0);
    assert_int_equal(d.effect, BROCK_DENY);
    /* the policy taken down: blocked again */
    assert_int_equal(brock_dnt_record(e, "good.tracker.example", 0), 0);
    assert_int_equal(brock_decide(e, "good.tracker.example", "site.example", &d), 0);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_int_equal(brock_dnt_record(e, "not a host", 1), BROCK_EINVAL);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_accepted_texts),
        cmocka_unit_test(test_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
