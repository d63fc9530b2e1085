/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whole-file writes (src/util/file.c): the file is replaced whole, with exactly the mode asked
 * for, and what it holds never goes anywhere but into a file of brock's own making. */
#include "test.h"

#include <errno.h>
#include <fcntl.h>

#include "util/file.h"

/* path's contents, which must be a file of at most 255 bytes, into buf. */
static const char *contents(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    size_t n;

    assert_non_null(f);
    n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_replaces_with_mode(void **state)
{
    char dir[PATH_MAX], path[PATH_MAX + 16], buf[256];
    struct stat st;
    mode_t old = umask(022);

    (void)state;
    test_mkdtemp("file", dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/out", dir);
    assert_int_equal(file_write_atomic(path, "one\n", 4, 0644), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    /* Written again, private now: the mode is the new one, not the old file's. */
    assert_int_equal(file_write_atomic(path, "two\n", 4, 0600), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_string_equal(contents(path, buf, sizeof(buf)), "two\n");
    /* Whatever the umask, the mode is the one asked for. */
    umask(0);
    assert_int_equal(file_write_atomic(path, "three\n", 6, 0644), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    umask(old);
    assert_int_equal(test_rmtree(dir), 0);
}

/* A link (or a file) planted under the name a write beside path could pick, in a folder others
 * write to: what is written goes neither through it nor into it, and path ends up a file of
 * its own, not the link. Before, the temporary file was path.tmp.PID, opened without
 * O_EXCL. */
static void test_planted_temporary(void **state)
{
    char dir[PATH_MAX], path[PATH_MAX + 16], victim[PATH_MAX + 16], planted[PATH_MAX + 64];
    char buf[256];
    struct stat st;
    DIR *d;
    struct dirent *de;
    FILE *f;
    int n = 0;

    (void)state;
    test_mkdtemp("file", dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/export", dir);
    snprintf(victim, sizeof(victim), "%s/victim", dir);
    snprintf(planted, sizeof(planted), "%s.tmp.%ld", path, (long)getpid());
    f = fopen(victim, "w");
    assert_non_null(f);
    fputs("kept\n", f);
    fclose(f);
    assert_int_equal(symlink(victim, planted), 0);

    assert_int_equal(file_write_atomic(path, "secret\n", 7, 0600), 0);
    assert_string_equal(contents(victim, buf, sizeof(buf)), "kept\n");
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_string_equal(contents(path, buf, sizeof(buf)), "secret\n");
    /* The planted link stays as it was, and no temporary file is left beside them. */
    assert_int_equal(lstat(planted, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    d = opendir(dir);
    assert_non_null(d);
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    assert_int_equal(n, 3);
    assert_int_equal(test_rmtree(dir), 0);
}

/* A folder that cannot be written: an error, and nothing left behind. */
static void test_failure_leaves_nothing(void **state)
{
    char path[PATH_MAX];

    (void)state;
    snprintf(path, sizeof(path), "/nonexistent-brock-folder/out");
    assert_int_equal(file_write_atomic(path, "x", 1, 0600), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replaces_with_mode),
        cmocka_unit_test(test_planted_temporary),
        cmocka_unit_test(test_failure_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
