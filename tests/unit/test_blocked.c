/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The answers to blocked requests, by what they fetch, and a surrogate served in place of a
 * script or a stylesheet: a table of decisions in, whole responses out. */
#include "test.h"

#include <string.h>

#include "proxy/blocked.h"

struct row {
    enum brock_resource_type type;
    const char *surrogate;
    int is_head, keep;
    const char *want; /* the whole response; NULL: brock's 403 page */
};

static const char SURROGATE[] = "(function(){window.ga=function(){};})();\n";

static const struct row rows[] = {
    {BROCK_RESOURCE_MAIN_FRAME, NULL, 0, 1, NULL},
    {BROCK_RESOURCE_SUB_FRAME, NULL, 0, 1, NULL},
    {BROCK_RESOURCE_OBJECT, NULL, 0, 1, NULL},
    {BROCK_RESOURCE_WEBSOCKET, NULL, 0, 1, NULL},
    {BROCK_RESOURCE_OTHER, NULL, 0, 1, NULL},
    {BROCK_RESOURCE_SCRIPT, NULL, 0, 1,
     "HTTP/1.1 200 OK\r\nContent-Type: application/javascript\r\nContent-Length: 0\r\n"
     "Cache-Control: no-store\r\n\r\n"},
    {BROCK_RESOURCE_STYLESHEET, NULL, 0, 0,
     "HTTP/1.1 200 OK\r\nContent-Type: text/css\r\nContent-Length: 0\r\n"
     "Cache-Control: no-store\r\nConnection: close\r\n\r\n"},
    {BROCK_RESOURCE_IMAGE, NULL, 0, 1,
     "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\n\r\n"},
    {BROCK_RESOURCE_FONT, NULL, 0, 1, "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\n\r\n"},
    {BROCK_RESOURCE_MEDIA, NULL, 0, 1,
     "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\n\r\n"},
    {BROCK_RESOURCE_XHR, NULL, 0, 1, "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\n\r\n"},
    {BROCK_RESOURCE_PING, NULL, 0, 0,
     "HTTP/1.1 204 No Content\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"},
    /* A surrogate is the body, with its own type. */
    {BROCK_RESOURCE_SCRIPT, SURROGATE, 0, 1,
     "HTTP/1.1 200 OK\r\nContent-Type: application/javascript\r\nContent-Length: 41\r\n"
     "Cache-Control: no-store\r\n\r\n(function(){window.ga=function(){};})();\n"},
    {BROCK_RESOURCE_STYLESHEET, ".ad{display:none}", 0, 1,
     "HTTP/1.1 200 OK\r\nContent-Type: text/css\r\nContent-Length: 17\r\n"
     "Cache-Control: no-store\r\n\r\n.ad{display:none}"},
    /* HEAD: the head a GET would get, without the body. */
    {BROCK_RESOURCE_SCRIPT, SURROGATE, 1, 1,
     "HTTP/1.1 200 OK\r\nContent-Type: application/javascript\r\nContent-Length: 41\r\n"
     "Cache-Control: no-store\r\n\r\n"},
};

static void test_answers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const struct row *r = &rows[i];
        struct brock_decision d;
        struct blocked_answer a;
        struct buf out;

        memset(&d, 0, sizeof(d));
        d.effect = BROCK_DENY;
        d.type = r->type;
        d.surrogate = r->surrogate;
        d.surrogate_len = r->surrogate ? strlen(r->surrogate) : 0;
        blocked_answer(&d, &a);
        if (!r->want) {
            if (a.status != 403 || a.body)
                fail_msg("row %zu (%s): not brock's 403 page", i,
                         brock_resource_type_name(r->type));
            continue;
        }
        buf_init(&out, 4096);
        assert_int_equal(blocked_write(&out, &a, r->is_head, r->keep), 0);
        if (strcmp(out.data, r->want) != 0)
            fail_msg("row %zu (%s):\n got: %s\nwant: %s", i, brock_resource_type_name(r->type),
                     out.data, r->want);
        buf_cleanup(&out);
    }
}

/* An answer that does not fit leaves the buffer as it was. */
static void test_too_small(void **state)
{
    struct brock_decision d;
    struct blocked_answer a;
    struct buf out;

    (void)state;
    memset(&d, 0, sizeof(d));
    d.type = BROCK_RESOURCE_SCRIPT;
    d.surrogate = SURROGATE;
    d.surrogate_len = strlen(SURROGATE);
    blocked_answer(&d, &a);
    buf_init(&out, 100);
    assert_int_equal(buf_puts(&out, "kept"), 0);
    assert_int_equal(blocked_write(&out, &a, 0, 1), -1);
    assert_string_equal(out.data, "kept");
    buf_cleanup(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_too_small),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
