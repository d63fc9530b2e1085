/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The jobs of brock's script in a document: which pages unwrap links (Privacy Badger's
 * first-party protections) and the letters its element carries. */
#include "test.h"

#include <string.h>

#include "proxy/scriptjobs.h"

static void test_google_pages(void **state)
{
    static const char *const yes[] = {
        "www.google.com",  "www.google.de",    "www.google.co.uk", "www.google.com.au",
        "www.google.cat",  "www.google.ad",    "www.google.ws",    "docs.google.com",
        "mail.google.com", "WWW.Google.CO.JP",
    };
    static const char *const no[] = {
        "google.com",
        "www.google.",
        "www.google.example",
        "www.google.co",
        "www.google.com.xx",
        "maps.google.com",
        "www.google.com.evil.test",
        "xwww.google.com",
        "docs.google.com.evil.test",
        "www.googlex.com",
        "www.google.co.uk.",
        "",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        assert_int_equal(script_jobs_unwrap(yes[i]), SCRIPT_UNWRAP_GOOGLE);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        assert_int_equal(script_jobs_unwrap(no[i]), 0);
    assert_int_equal(script_jobs_unwrap(NULL), 0);
}

static void test_facebook_pages(void **state)
{
    static const char *const yes[] = {
        "facebook.com",
        "www.facebook.com",
        "m.facebook.com",
        "l.facebook.com",
        "messenger.com",
        "www.messenger.com",
        "WWW.FaceBook.COM",
        "www.facebookwkhpilnemxj7asaniu7vnjjbiltxjqhye3mhbshg7kx5tfyd.onion",
        "facebookcorewwwi.onion",
    };
    static const char *const no[] = {
        "notfacebook.com", "facebook.com.evil.test", "fb.com",
        "facebook.org",    "xmessenger.com",         "onion",
        "evil.onion",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        assert_int_equal(script_jobs_unwrap(yes[i]), SCRIPT_UNWRAP_FACEBOOK);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        assert_int_equal(script_jobs_unwrap(no[i]), 0);
}

static const char *letters(const struct script_doc *d)
{
    static char out[8];

    script_jobs_letters(script_jobs_choose(d), out);
    return out;
}

static void test_choose(void **state)
{
    struct script_doc d = {.host = "site.test", .signals = 1, .learning = 1, .place = SCRIPT_PAGE};

    (void)state;
    /* A top-level page: everything; its placeholders have buttons. */
    assert_string_equal(letters(&d), "srwa");
    d.signals = d.learning = 0;
    assert_string_equal(letters(&d), "wa");
    d.learning = 1;
    assert_string_equal(letters(&d), "rwa");
    /* Unwrapping depends on the document's own host. */
    d.host = "www.google.fr";
    assert_string_equal(letters(&d), "rwag");
    d.host = "www.facebook.com";
    d.signals = 1;
    assert_string_equal(letters(&d), "srwaf");
    d.host = "";
    assert_string_equal(letters(&d), "srwa");
    /* Another site's frame reports, and replaces the page's widgets, but offers no button. */
    d.place = SCRIPT_FRAME_CROSS;
    assert_string_equal(letters(&d), "srw");
    /* A frame of the page's own site does not report (the page may have read its token), and
     * may allow widgets on its page. */
    d.place = SCRIPT_FRAME_SAME;
    assert_string_equal(letters(&d), "swa");
    /* Without a token (plain HTTP, a fetch() of a page, a frame brock cannot place): only what
     * needs no word with brock. */
    d.place = SCRIPT_UNPLACED;
    assert_string_equal(letters(&d), "s");
    d.host = "www.google.fr";
    assert_string_equal(letters(&d), "sg");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_google_pages),
        cmocka_unit_test(test_facebook_pages),
        cmocka_unit_test(test_choose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
