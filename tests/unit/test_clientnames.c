/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Client names (src/process/clientnames.c): specs checked, the narrowest range naming an
 * address, IPv4 and IPv6 (and IPv4-mapped), and the overlaps said at start. */
#include "test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "process/clientnames.h"

static const char *name_of(const char *const *specs, size_t n, const char *ip)
{
    static char out[CLIENTNAMES_NAME_MAX + 1];
    struct sockaddr_storage ss;

    memset(&ss, 0, sizeof(ss));
    if (strchr(ip, ':')) {
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;

        v6->sin6_family = AF_INET6;
        assert_int_equal(inet_pton(AF_INET6, ip, &v6->sin6_addr), 1);
    } else {
        struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;

        v4->sin_family = AF_INET;
        assert_int_equal(inet_pton(AF_INET, ip, &v4->sin_addr), 1);
    }
    clientnames_find(specs, n, (const struct sockaddr *)&ss, out, sizeof(out));
    return out;
}

static void test_check(void **state)
{
    static const char *const good[] = {"house=192.168.1.0/24", "kids=192.168.1.64/27",
                                       "laptop=192.168.1.23", "v6-box_1.a=2001:db8::/64"};
    static const char *const bad[][2] = {
        {"house=192.168.1.0/24", "bad name=192.168.1.9"},
        {"house=192.168.1.0/24", "=192.168.1.9"},
        {"house=192.168.1.0/24", "nothing"},
        {"house=192.168.1.0/24", "x=300.1.1.1"},
        {"house=192.168.1.0/24", "twice=192.168.1.0/24"},
        {"house=192.168.1.0/24", "x=10.1.2.3/8"},
        {"house=192.168.1.0/24", "a123456789a123456789a123456789abc=10.0.0.1"},
    };
    char err[256];

    (void)state;
    assert_int_equal(clientnames_check(good, 4, err, sizeof(err)), 0);
    assert_int_equal(clientnames_check(NULL, 0, err, sizeof(err)), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(clientnames_check(bad[i], 2, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "--client"));
    }
}

static void test_narrowest(void **state)
{
    /* The wider range first and last: the order given does not matter. */
    static const char *const specs[] = {"house=192.168.1.0/24", "kids=192.168.1.64/27",
                                        "laptop=192.168.1.70", "v6=2001:db8::/64"};

    (void)state;
    assert_string_equal(name_of(specs, 4, "192.168.1.70"), "laptop");
    assert_string_equal(name_of(specs, 4, "192.168.1.71"), "kids");
    assert_string_equal(name_of(specs, 4, "192.168.1.200"), "house");
    assert_string_equal(name_of(specs, 4, "192.168.2.1"), "");
    assert_string_equal(name_of(specs, 4, "::ffff:192.168.1.70"), "laptop");
    assert_string_equal(name_of(specs, 4, "2001:db8::7"), "v6");
    assert_string_equal(name_of(specs, 4, "2001:db9::7"), "");
}

static char said[4][512];
static size_t n_said;

static void say(void *arg, const char *sentence)
{
    (void)arg;
    if (n_said < 4)
        snprintf(said[n_said++], sizeof(said[0]), "%s", sentence);
}

static void test_overlaps(void **state)
{
    static const char *const specs[] = {"house=192.168.1.0/24", "kids=192.168.1.64/27",
                                        "other=10.0.0.0/8"};

    (void)state;
    n_said = 0;
    clientnames_overlaps(specs, 3, say, NULL);
    assert_int_equal(n_said, 1);
    assert_string_equal(said[0], "client kids (192.168.1.64/27) lies inside client house "
                                 "(192.168.1.0/24): the narrower range wins, so its addresses "
                                 "are kids");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_narrowest),
        cmocka_unit_test(test_overlaps),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
