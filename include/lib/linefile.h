/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Line-oriented rule files (routes, ACL rules): read a file line by line,
 * hand each line to a parser, and turn the first refusal into one error
 * naming the file and line. Also the growable array both loaders fill.
 */
#ifndef LF_LINEFILE_H
#define LF_LINEFILE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Longest line accepted, newline included. */
#define LF_LINE_MAX 512

/**
 * Largest rule file read (256 MiB): ten times a full Internet table of
 * IPv4 and IPv6 routes. It bounds what a reload can make the control
 * thread read.
 */
#define LF_FILE_MAX (UINT64_C(256) << 20)

/**
 * Called for every line, with the newline (and a carriage return) removed.
 * @return 0 to go on, or a negative errno after writing the reason into why.
 */
typedef int (*lf_line_fn)(void *arg, const char *line, uint32_t lineno, char *why, size_t whylen);

/** For parsers: write the reason for refusing a line, return -EINVAL. */
static inline int
lf_line_error(char *why, size_t whylen, const char *reason)
{
	snprintf(why, whylen, "%s", reason);
	return -EINVAL;
}

/**
 * Open PATH for reading if it is a regular file of at most max bytes. A
 * FIFO, a device or a directory is refused without blocking on it.
 * @return 0 with *fp set; -errno of open() or fstat(); -EINVAL for what is
 *         not a regular file; -EFBIG when it is larger than max. err then
 *         holds "PATH: reason".
 */
int lf_open_regular(const char *path, uint64_t max, FILE **fp, char *err, size_t errlen);

/**
 * Read PATH (lf_open_regular() with LF_FILE_MAX) and call fn for each line.
 * A NUL byte, a line longer than LF_LINE_MAX and a file that grows past
 * LF_FILE_MAX while read are errors.
 * @return 0; what lf_open_regular() returns when the file cannot be opened
 *         or is refused; -EINVAL for anything else. err then holds
 *         "PATH: reason", "PATH:LINE: reason" or "PATH:LINE: 'text': reason".
 */
int lf_read_lines(const char *path, lf_line_fn fn, void *arg, char *err, size_t errlen);

/**
 * Make room for one more element in a malloc'd array of n elements of size
 * elem, doubling *cap (first 1024) when it is full.
 * @return 0 or -ENOMEM (the array is left as it was).
 */
int lf_array_reserve(void **arr, size_t *cap, size_t n, size_t elem);

#endif /* LF_LINEFILE_H */
