/* SPDX-License-Identifier: GPL-3.0-or-later */
/* File helpers. */
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"

int file_read(const char *path, size_t max, char **out, size_t *len)
{
    return file_read_at(AT_FDCWD, path, max, out, len);
}

int file_read_at(int dirfd, const char *path, size_t max, char **out, size_t *len)
{
    int fd, err = 0;
    struct stat st;
    char *p = NULL;
    size_t n = 0, cap = 0;

    *out = NULL;
    *len = 0;
    fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0) {
        err = -errno;
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        err = -EISDIR;
        goto out;
    }
    cap = S_ISREG(st.st_mode) && (size_t)st.st_size < max ? (size_t)st.st_size + 1 : 65536;
    p = mem_malloc(cap);
    if (!p) {
        err = -ENOMEM;
        goto out;
    }
    for (;;) {
        ssize_t r;
        if (n + 1 >= cap) {
            if (cap > max) {
                err = -EFBIG;
                goto out;
            }
            if (mem_grow(&p, &cap, cap * 2, 1) < 0) {
                err = -ENOMEM;
                goto out;
            }
        }
        r = read(fd, p + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            err = -errno;
            goto out;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > max) {
            err = -EFBIG;
            goto out;
        }
    }
    p[n] = '\0';
    *out = p;
    *len = n;
    p = NULL;
out:
    mem_free(p);
    close(fd);
    return err;
}

int file_tmp_open(const char *dir)
{
    char path[PATH_MAX];
    int fd;

    /* Unnamed from the start: nothing is left behind whatever happens to brock. */
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd >= 0 ? fd : -errno;
    /* A file system without O_TMPFILE: a name, taken away at once. */
    if (snprintf(path, sizeof(path), "%s/.brock-XXXXXX", dir) >= (int)sizeof(path))
        return -ENAMETOOLONG;
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    unlink(path);
    return fd;
}

int file_write_all(int fd, const void *data, size_t len)
{
    const char *d = data;

    while (len) {
        ssize_t w = write(fd, d, len);

        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        d += w;
        len -= (size_t)w;
    }
    return 0;
}

int file_write_atomic(const char *path, const void *data, size_t len, int mode)
{
    char tmp[PATH_MAX];
    const char *d = data;
    int fd, err = 0;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
        return -ENAMETOOLONG;
    /* A name no other file has: mkostemp() makes it (O_EXCL, mode 0600), so that nothing
     * planted beside path under a name brock would pick (a link to elsewhere, a file someone
     * else owns and can read) receives what is written. The mode asked for is set once the
     * file is whole. */
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    while (len) {
        ssize_t w = write(fd, d, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            err = -errno;
            goto fail;
        }
        d += w;
        len -= (size_t)w;
    }
    if (fchmod(fd, (mode_t)mode) < 0 || fsync(fd) < 0) {
        err = -errno;
        goto fail;
    }
    if (close(fd) < 0) {
        fd = -1;
        err = -errno;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) < 0) {
        err = -errno;
        goto fail;
    }
    return 0;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return err;
}

int file_mkdirs(const char *path, int mode)
{
    char p[PATH_MAX];
    size_t n = strlen(path);

    if (n == 0 || n >= sizeof(p))
        return -ENAMETOOLONG;
    memcpy(p, path, n + 1);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
                return -errno;
            *s = c;
            if (!c)
                break;
        }
    }
    return 0;
}
