/* SPDX-License-Identifier: BSD-3-Clause */
/* Line-oriented rule files, shared by the route and ACL loaders. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linefile.h"

int
lf_read_lines(const char *path, lf_line_fn fn, void *arg, char *err, size_t errlen)
{
	char line[LF_LINE_MAX];
	char why[128];
	uint32_t lineno = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		size_t len = strlen(line);

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, lineno);
			ret = -EINVAL;
			break;
		}
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
