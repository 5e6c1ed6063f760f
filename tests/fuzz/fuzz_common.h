/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the loader harnesses. The loaders take a path, so each input is
 * written to one file in a directory of the run's own, and that path handed
 * over; the directory goes when the run exits. It is under /dev/shm where
 * there is one (a disk file system made the runs up to ten times slower),
 * else under TMPDIR or /tmp. A real path, not /proc/self/fd: config_load()
 * resolves relative paths against the configuration's own directory.
 */
#ifndef LF_FUZZ_COMMON_H
#define LF_FUZZ_COMMON_H

#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir_path[PATH_MAX];

static void
fuzz_dir_remove(void)
{
	char path[PATH_MAX + 16];
	static const char *const names[] = { "input", "r4.txt", "r6.txt", "acl4.txt", "acl6.txt" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", fuzz_dir_path, names[i]);
		unlink(path);
	}
	rmdir(fuzz_dir_path);
}

/* The run's directory, made on the first call. */
static inline const char *
fuzz_dir(void)
{
	if (fuzz_dir_path[0] == '\0') {
		const char *tmp = getenv("TMPDIR");

		if (access("/dev/shm", W_OK) == 0)
			tmp = "/dev/shm";
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/lf_fuzz.XXXXXX",
			 tmp != NULL ? tmp : "/tmp");
		if (mkdtemp(fuzz_dir_path) == NULL) {
			perror("mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* Write size bytes of data to NAME in the run's directory; return its path. */
static inline const char *
fuzz_write(const char *name, const void *data, size_t size)
{
	static char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size != 0 && write(fd, data, size) != (ssize_t)size) || close(fd) != 0) {
		perror(path);
		abort();
	}
	return path;
}

/* Write the input to the run's file; return its path. */
static inline const char *
fuzz_file(const uint8_t *data, size_t size)
{
	return fuzz_write("input", data, size);
}

/* An error message must be a NUL-terminated string within its buffer. */
static inline void
fuzz_check_err(const char *err, size_t len)
{
	if (memchr(err, '\0', len) == NULL)
		abort();
}

#endif /* LF_FUZZ_COMMON_H */
