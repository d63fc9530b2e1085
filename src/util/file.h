/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whole-file reads with a size limit, and writes that replace a file atomically. */
#ifndef BROCK_UTIL_FILE_H
#define BROCK_UTIL_FILE_H

#include <stddef.h>

/* Reads path (at most max bytes) into a new NUL-terminated buffer, *out (free with
 * mem_free), and *len. Returns 0, or -errno (-EFBIG past max). */
int file_read(const char *path, size_t max, char **out, size_t *len)
    __attribute__((warn_unused_result));

/* The same for path relative to the folder open as dirfd (AT_FDCWD: the current one). A
 * folder opened before brock gave up root stays readable through its descriptor even where
 * the folders above it are closed to brock's user. */
int file_read_at(int dirfd, const char *path, size_t max, char **out, size_t *len)
    __attribute__((warn_unused_result));

/* Writes data to a new temporary file beside path (made under a name no other file has, so
 * that nothing planted there receives it), flushes it, and renames it into place with exactly
 * the given mode, whatever the umask. Returns 0, or -errno; on failure path is untouched. */
int file_write_atomic(const char *path, const void *data, size_t len, int mode)
    __attribute__((warn_unused_result));

/* A new empty file in the folder dir, mode 0600, open for reading and writing, that has no
 * name (it goes when the descriptor is closed). Returns the descriptor, or -errno. */
int file_tmp_open(const char *dir) __attribute__((warn_unused_result));

/* Writes all of len bytes of data to fd. Returns 0, or -errno. */
int file_write_all(int fd, const void *data, size_t len) __attribute__((warn_unused_result));

/* mkdir -p with the given mode for each missing folder. Returns 0, or -errno. */
int file_mkdirs(const char *path, int mode) __attribute__((warn_unused_result));

#endif
