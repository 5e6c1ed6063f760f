/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Line-oriented rule files, shared by the route and ACL loaders, and the
 * checks every file lanefwd reads goes through first: a regular file of a
 * bounded size, so that a FIFO or a device never blocks start-up or the
 * control thread of a reload.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linefile.h"

static const char *
file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

int
lf_open_regular(const char *path, uint64_t max, FILE **fp, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int fd, flags, e;

	/*
	 * O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	 * writer before fstat() could refuse it.
	 */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) != 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s, expected a regular file", path,
			 file_kind(st.st_mode));
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s: %llu bytes, more than the limit of %llu MiB", path,
			 (unsigned long long)st.st_size, (unsigned long long)(max >> 20));
		close(fd);
		return -EFBIG;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	f = fdopen(fd, "r");
	if (f == NULL) {
		e = errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	*fp = f;
	return 0;
}

/*
 * The next line of f into line (NUL-terminated, newline kept), counting the
 * bytes read into *total.
 * @return its length; 0 at end of file; -EINVAL with a reason in why for a
 *         line that is too long, holds a NUL byte, or goes past max.
 */
static long
read_line(FILE *f, char *line, size_t size, uint64_t *total, uint64_t max, char *why, size_t whylen)
{
	size_t len = 0;
	int ch;

	while ((ch = getc_unlocked(f)) != EOF) {
		if (++*total > max) {
			snprintf(why, whylen, "file grew past the %llu MiB limit while read",
				 (unsigned long long)(max >> 20));
			return -EINVAL;
		}
		if (ch == '\0') {
			snprintf(why, whylen, "NUL byte at column %zu", len + 1);
			return -EINVAL;
		}
		if (len == size - 1) {
			snprintf(why, whylen, "line too long (at most %zu characters)", size - 2);
			return -EINVAL;
		}
		line[len++] = (char)ch;
		if (ch == '\n')
			break;
	}
	line[len] = '\0';
	return (long)len;
}

int
lf_read_lines(const char *path, lf_line_fn fn, void *arg, char *err, size_t errlen)
{
	char line[LF_LINE_MAX];
	char why[128];
	uint32_t lineno = 0;
	uint64_t total = 0;
	int ret = 0;
	FILE *f = NULL;
	long n;

	ret = lf_open_regular(path, LF_FILE_MAX, &f, err, errlen);
	if (ret < 0)
		return ret;
	for (;;) {
		size_t len;

		n = read_line(f, line, sizeof(line), &total, LF_FILE_MAX, why, sizeof(why));
		if (n == 0)
			break;
		lineno++;
		if (n < 0) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			ret = -EINVAL;
			break;
		}
		len = (size_t)n;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (fn(arg, line, lineno, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s:%u: '%.80s': %s", path, lineno, line, why);
			ret = -EINVAL;
			break;
		}
	}
	if (ret == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		ret = -EINVAL;
	}
	fclose(f);
	return ret;
}

int
lf_array_reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 1024;
	p = realloc(*arr, ncap * elem);
	if (p == NULL)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
