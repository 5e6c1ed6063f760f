/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the route file reader (src/lib/route.c): route_parse_line() on
 * malformed lines first (each with its reason), then IPv4 and IPv6 routes,
 * comments, blank lines and default routes; route_load() errors that name
 * file:line, duplicate prefixes naming both lines, overlong lines, undefined
 * next hops, and that a failed load leaves the table empty.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "route.h"

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

static char tmp_dir[256];
static char *tmp_files[64];
static unsigned int n_tmp_files;

static char *
write_file(const char *name, const char *text)
{
	char *path = malloc(PATH_MAX);
	FILE *f;

	assert_non_null(path);
	assert_true(n_tmp_files < DIM(tmp_files));
	snprintf(path, PATH_MAX, "%s/%s", tmp_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	tmp_files[n_tmp_files++] = path;
	return path;
}

static int
group_setup(void **state)
{
	(void)state;
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/lfut_route.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmp_dir) == NULL ? -1 : 0;
}

static int
group_teardown(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < n_tmp_files; i++) {
		unlink(tmp_files[i]);
		free(tmp_files[i]);
	}
	return rmdir(tmp_dir);
}

/* ---- route_parse_line: invalid lines ---- */

struct bad_line {
	const char *line;
	int af;
	uint32_t max_nh;
	const char *why; /* Substring of the reason. */
};

static const struct bad_line bad_lines[] = {
	{ "10.0.0.0 5", 4, 16, "expected PREFIX/LEN NEXTHOP" },
	{ "10.0.0.0/ 5", 4, 16, "prefix length is not a number" },
	{ "10.0.0.0/x8 5", 4, 16, "prefix length is not a number" },
	{ "10.0.0.0/-1 5", 4, 16, "prefix length is not a number" },
	{ "10.0.0.0/8x 5", 4, 16, "prefix length must be 0 to 32" },
	{ "10.0.0.0/33 5", 4, 16, "prefix length must be 0 to 32" },
	{ "0.0.0.0/99999999999999999999999 5", 4, 16, "prefix length must be 0 to 32" },
	{ "::/129 5", 6, 16, "prefix length must be 0 to 128" },
	{ "2001:db8::/200 5", 6, 16, "prefix length must be 0 to 128" },
	{ "300.0.0.0/8 5", 4, 16, "not an IPv4 address" },
	{ "10.0.0/8 5", 4, 16, "not an IPv4 address" },
	{ "2001:db8::/32 5", 4, 16, "not an IPv4 address" },
	{ "10.0.0.0/8 5", 6, 16, "not an IPv6 address" },
	{ "2001:db8:::/32 5", 6, 16, "not an IPv6 address" },
	{ "10.0.0.1/8 5", 4, 16, "host bits set" },
	{ "10.128.0.0/8 5", 4, 16, "host bits set" },
	{ "192.168.1.1/31 5", 4, 16, "host bits set" },
	{ "0.0.0.1/0 5", 4, 16, "host bits set" },
	{ "2001:db8::1/64 5", 6, 16, "host bits set" },
	{ "2001:db8:4000::/33 5", 6, 16, "host bits set" },
	{ "2001:db8:8000::/32 5", 6, 16, "host bits set" },
	{ "::1/127 5", 6, 16, "host bits set" },
	{ "10.0.0.0/8", 4, 16, "expected a next-hop id" },
	{ "10.0.0.0/8   ", 4, 16, "expected a next-hop id" },
	{ "10.0.0.0/8 # no next hop", 4, 16, "expected a next-hop id" },
	{ "10.0.0.0/8 x", 4, 16, "expected a next-hop id" },
	{ "10.0.0.0/8 -1", 4, 16, "expected a next-hop id" },
	{ "10.0.0.0/8 16", 4, 16, "next-hop id must be 0 to 15" },
	{ "10.0.0.0/8 32767", 4, 32767, "next-hop id must be 0 to 32766" },
	{ "10.0.0.0/8 99999999999999999999999", 4, 32767, "next-hop id must be 0 to 32766" },
	{ "2001:db8::/32 16", 6, 16, "next-hop id must be 0 to 15" },
	{ "10.0.0.0/8 1 2", 4, 16, "trailing text" },
	{ "10.0.0.0/8 1x", 4, 16, "trailing text" },
	{ "10.0.0.0/8 1.5", 4, 16, "trailing text" },
	{ "2001:db8::/32 1 extra", 6, 16, "trailing text" },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/64 1", 6, 16, "prefix too long" },
};

static void
test_parse_bad_lines(void **state)
{
	struct lf_route r;
	char why[128];
	unsigned int i;
	int ret;

	(void)state;
	for (i = 0; i < DIM(bad_lines); i++) {
		const struct bad_line *b = &bad_lines[i];

		why[0] = '\0';
		ret = route_parse_line(b->line, b->af, b->max_nh, &r, why, sizeof(why));
		if (ret != -EINVAL)
			fail_msg("'%s' (IPv%d): returned %d, expected -EINVAL", b->line, b->af,
				 ret);
		if (strstr(why, b->why) == NULL)
			fail_msg("'%s': reason '%s' does not contain '%s'", b->line, why, b->why);
	}
}

/* Every length: the prefix with all prefix bits set is valid, one host bit is not. */
static void
test_parse_host_bits_every_depth(void **state)
{
	struct lf_route r;
	char line[128], why[128];
	uint8_t a6[16];
	unsigned int d, i;

	(void)state;
	for (d = 0; d <= 32; d++) {
		uint32_t mask = d == 0 ? 0 : ~0u << (32 - d);
		struct in_addr a = { .s_addr = htonl(mask) };

		snprintf(line, sizeof(line), "%s/%u 3", inet_ntoa(a), d);
		assert_int_equal(route_parse_line(line, 4, 16, &r, why, sizeof(why)), 1);
		assert_int_equal(r.addr4, mask);
		assert_int_equal(r.depth, d);
		if (d < 32) {
			a.s_addr = htonl(mask | (1u << (31 - d)));
			snprintf(line, sizeof(line), "%s/%u 3", inet_ntoa(a), d);
			assert_int_equal(route_parse_line(line, 4, 16, &r, why, sizeof(why)),
					 -EINVAL);
			assert_non_null(strstr(why, "host bits"));
		}
	}
	for (d = 0; d <= 128; d++) {
		char txt[INET6_ADDRSTRLEN];

		memset(a6, 0, sizeof(a6));
		for (i = 0; i < d; i++)
			a6[i / 8] |= 0x80 >> (i % 8);
		assert_non_null(inet_ntop(AF_INET6, a6, txt, sizeof(txt)));
		snprintf(line, sizeof(line), "%s/%u 3", txt, d);
		assert_int_equal(route_parse_line(line, 6, 16, &r, why, sizeof(why)), 1);
		assert_memory_equal(r.addr6, a6, 16);
		assert_int_equal(r.depth, d);
		if (d < 128) {
			a6[d / 8] |= 0x80 >> (d % 8);
			assert_non_null(inet_ntop(AF_INET6, a6, txt, sizeof(txt)));
			snprintf(line, sizeof(line), "%s/%u 3", txt, d);
			assert_int_equal(route_parse_line(line, 6, 16, &r, why, sizeof(why)),
					 -EINVAL);
			assert_non_null(strstr(why, "host bits"));
		}
	}
}

/* ---- route_parse_line: valid lines ---- */

static void
test_parse_blank_and_comments(void **state)
{
	static const char *const lines[] = {
		"",
		" ",
		"\t",
		"   \t  ",
		"#",
		"# a comment",
		"   # indented comment",
		"#10.0.0.0/8 1",
	};
	struct lf_route r;
	char why[128];
	unsigned int i;

	(void)state;
	for (i = 0; i < DIM(lines); i++) {
		assert_int_equal(route_parse_line(lines[i], 4, 16, &r, why, sizeof(why)), 0);
		assert_int_equal(route_parse_line(lines[i], 6, 16, &r, why, sizeof(why)), 0);
	}
}

static void
test_parse_ipv4(void **state)
{
	struct lf_route r;
	char why[128];

	(void)state;
	assert_int_equal(route_parse_line("10.0.0.0/8 5", 4, 16, &r, why, sizeof(why)), 1);
	assert_int_equal(r.addr4, 0x0a000000);
	assert_int_equal(r.depth, 8);
	assert_int_equal(r.nh, 5);

	assert_int_equal(route_parse_line("  192.168.1.0/24\t7   # lan", 4, 16, &r, why,
					  sizeof(why)),
			 1);
	assert_int_equal(r.addr4, 0xc0a80100);
	assert_int_equal(r.depth, 24);
	assert_int_equal(r.nh, 7);

	assert_int_equal(route_parse_line("1.2.3.4/32 0", 4, 16, &r, why, sizeof(why)), 1);
	assert_int_equal(r.addr4, 0x01020304);
	assert_int_equal(r.depth, 32);
	assert_int_equal(r.nh, 0);

	/* The default route. */
	assert_int_equal(route_parse_line("0.0.0.0/0 15", 4, 16, &r, why, sizeof(why)), 1);
	assert_int_equal(r.addr4, 0);
	assert_int_equal(r.depth, 0);
	assert_int_equal(r.nh, 15);

	/* Largest next hop the FIB accepts; comment right after the id. */
	assert_int_equal(route_parse_line("255.255.255.255/32 32766#x", 4, 32767, &r, why,
					  sizeof(why)),
			 1);
	assert_int_equal(r.addr4, 0xffffffff);
	assert_int_equal(r.nh, 32766);

	/* A line as fgets returns it, with its newline. */
	assert_int_equal(route_parse_line("100.64.0.0/10 3\n", 4, 16, &r, why, sizeof(why)), 1);
	assert_int_equal(r.addr4, 0x64400000);
	assert_int_equal(r.depth, 10);
	assert_int_equal(r.nh, 3);
}

static void
test_parse_ipv6(void **state)
{
	static const uint8_t db8[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	static const uint8_t host[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
	};
	static const uint8_t fe80[16] = { 0xfe, 0x80 };
	static const uint8_t zero[16];
	struct lf_route r;
	char why[128];

	(void)state;
	assert_int_equal(route_parse_line("2001:db8::/32 9", 6, 16, &r, why, sizeof(why)), 1);
	assert_memory_equal(r.addr6, db8, 16);
	assert_int_equal(r.depth, 32);
	assert_int_equal(r.nh, 9);

	assert_int_equal(route_parse_line("2001:DB8::1/128 2 # host", 6, 16, &r, why, sizeof(why)),
			 1);
	assert_memory_equal(r.addr6, host, 16);
	assert_int_equal(r.depth, 128);
	assert_int_equal(r.nh, 2);

	assert_int_equal(route_parse_line("\tfe80::/10\t4", 6, 16, &r, why, sizeof(why)), 1);
	assert_memory_equal(r.addr6, fe80, 16);
	assert_int_equal(r.depth, 10);

	/* The default route. */
	assert_int_equal(route_parse_line("::/0 1", 6, 16, &r, why, sizeof(why)), 1);
	assert_memory_equal(r.addr6, zero, 16);
	assert_int_equal(r.depth, 0);
	assert_int_equal(r.nh, 1);

	/* IPv4-mapped notation is an IPv6 address. */
	assert_int_equal(route_parse_line("::ffff:10.0.0.0/104 1", 6, 16, &r, why, sizeof(why)), 1);
	assert_int_equal(r.addr6[10], 0xff);
	assert_int_equal(r.addr6[11], 0xff);
	assert_int_equal(r.addr6[12], 10);
	assert_int_equal(r.depth, 104);
}

/* ---- route_load ---- */

static void
load_expect_error(const char *name, const char *text, int af, const uint8_t *defined,
		  uint32_t max_nh, const char *where, const char *what)
{
	struct lf_route_table t;
	char err[512], needle[PATH_MAX + 64];
	char *path = write_file(name, text);
	long n;

	memset(&t, 0xa5, sizeof(t));
	err[0] = '\0';
	n = route_load(path, af, defined, max_nh, &t, err, sizeof(err));
	print_message("%s -> %s\n", name, err);
	assert_int_equal(n, -EINVAL);
	/* "file:line: ..." */
	snprintf(needle, sizeof(needle), "%s%s", path, where);
	if (strstr(err, needle) == NULL)
		fail_msg("%s: '%s' not in '%s'", name, needle, err);
	if (strstr(err, what) == NULL)
		fail_msg("%s: '%s' not in '%s'", name, what, err);
	/* Nothing is left in the table. */
	assert_int_equal(t.n, 0);
	assert_null(t.r);
	assert_int_equal(t.cap, 0);
	route_table_free(&t);
}

static void
test_load_errors(void **state)
{
	static uint8_t defined[16];
	char longline[700];
	unsigned int i;

	(void)state;
	load_expect_error("bad_prefix.txt", "10.0.0.0/8 1\n# c\n10.0.0.256/24 1\n", 4, NULL, 16,
			  ":3: '10.0.0.256/24 1'", "not an IPv4 address");
	load_expect_error("len33.txt", "\n\n10.0.0.0/8 1\n1.0.0.0/33 1\n", 4, NULL, 16,
			  ":4: '1.0.0.0/33 1'", "0 to 32");
	load_expect_error("len129.txt", "2001:db8::/32 1\n::/129 1\n", 6, NULL, 16,
			  ":2: '::/129 1'", "0 to 128");
	load_expect_error("host4.txt", "10.1.0.0/8 1\n", 4, NULL, 16, ":1: '10.1.0.0/8 1'",
			  "host bits");
	load_expect_error("host6.txt", "# v6\n2001:db8::1/48 1\n", 6, NULL, 16,
			  ":2: '2001:db8::1/48 1'", "host bits");
	load_expect_error("nonh.txt", "10.0.0.0/8 1\n20.0.0.0/8\n", 4, NULL, 16, ":2: '20.0.0.0/8'",
			  "next-hop id");
	load_expect_error("nhmax.txt", "10.0.0.0/8 1\n20.0.0.0/8 16\n", 4, NULL, 16,
			  ":2: '20.0.0.0/8 16'", "0 to 15");
	load_expect_error("trail.txt", "10.0.0.0/8 1 via eth0\n", 4, NULL, 16,
			  ":1: '10.0.0.0/8 1 via eth0'", "trailing text");
	load_expect_error("family.txt", "10.0.0.0/8 1\n", 6, NULL, 16, ":1: '10.0.0.0/8 1'",
			  "not an IPv6 address");

	/* Next hops must have a [nexthop] section when the caller says which do. */
	defined[1] = 1;
	defined[3] = 1;
	load_expect_error("undef.txt", "10.0.0.0/8 1\n11.0.0.0/8 3\n12.0.0.0/8 2\n", 4, defined, 16,
			  ":3: '12.0.0.0/8 2'", "next hop 2 has no [nexthop 2] section");
	load_expect_error("undef6.txt", "::/0 4\n", 6, defined, 16, ":1: '::/0 4'",
			  "next hop 4 has no [nexthop 4] section");

	/* The same prefix twice names both lines. */
	load_expect_error("dup4.txt",
			  "10.0.0.0/8 1\n10.0.0.0/16 1\n# x\n11.0.0.0/8 1\n"
			  "10.0.0.0/8 2\n",
			  4, NULL, 16, ":5:", "already given at line 1");
	load_expect_error("dup6.txt", "2001:db8::/32 1\n::/0 1\n2001:0db8:0::/32 1\n", 6, NULL, 16,
			  ":3:", "already given at line 1");
	load_expect_error("dupdef.txt", "0.0.0.0/0 1\n1.0.0.0/8 1\n0.0.0.0/0 1\n", 4, NULL, 16,
			  ":3:", "already given at line 1");

	/* A line longer than the reader's buffer. */
	memcpy(longline, "10.0.0.0/8 1\n", 13);
	for (i = 13; i < sizeof(longline) - 2; i++)
		longline[i] = ' ';
	longline[sizeof(longline) - 2] = '1';
	longline[sizeof(longline) - 1] = '\0';
	load_expect_error("long.txt", longline, 4, NULL, 16, ":2:", "line too long");
}

static void
test_load_missing_file(void **state)
{
	struct lf_route_table t;
	char err[512], path[PATH_MAX];
	long n;

	(void)state;
	snprintf(path, sizeof(path), "%s/nonexistent.txt", tmp_dir);
	n = route_load(path, 4, NULL, 16, &t, err, sizeof(err));
	assert_int_equal(n, -ENOENT);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "cannot open"));
	assert_int_equal(t.n, 0);
	assert_null(t.r);
}

/*
 * Files that never end or are not files: refused at once with the reason.
 * The alarm turns a regression (a read that blocks on the FIFO or spins on
 * /dev/zero) into a failed test instead of a hung one.
 */
static void
test_load_not_regular(void **state)
{
	static const struct {
		const char *path; /* NULL: the FIFO made here. */
		const char *why;
	} cases[] = {
		{ NULL, "a FIFO, expected a regular file" },
		{ "/dev/zero", "a character device, expected a regular file" },
		{ "/dev/null", "a character device, expected a regular file" },
		{ "/", "a directory, expected a regular file" },
	};
	struct lf_route_table t;
	char err[512], fifo[PATH_MAX];
	unsigned int i;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/routes.fifo", tmp_dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(20);
	for (i = 0; i < DIM(cases); i++) {
		const char *path = cases[i].path != NULL ? cases[i].path : fifo;
		long n;

		memset(&t, 0xa5, sizeof(t));
		n = route_load(path, 4, NULL, 16, &t, err, sizeof(err));
		if (n != -EINVAL || strncmp(err, path, strlen(path)) != 0 ||
		    strstr(err, cases[i].why) == NULL)
			fail_msg("%s: %ld '%s'", path, n, err);
		assert_int_equal(t.n, 0);
		assert_null(t.r);
	}
	alarm(0);
	unlink(fifo);
}

/* A file larger than LF_FILE_MAX (a sparse one) is refused before reading. */
static void
test_load_too_large(void **state)
{
	struct lf_route_table t;
	char err[512], path[PATH_MAX];
	FILE *f;
	long n;

	(void)state;
	snprintf(path, sizeof(path), "%s/huge.txt", tmp_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs("10.0.0.0/8 1\n", f) >= 0, 1);
	assert_int_equal(ftruncate(fileno(f), (256 << 20) + 1), 0);
	assert_int_equal(fclose(f), 0);
	n = route_load(path, 4, NULL, 16, &t, err, sizeof(err));
	unlink(path);
	assert_int_equal(n, -EFBIG);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "268435457 bytes, more than the limit of 256 MiB"));
	assert_null(t.r);
}

/*
 * A NUL byte is an error naming the file and line, wherever it is: fgets()
 * and strlen() used to hide the rest of its line, and an all-NUL file
 * loaded as an empty table.
 */
static void
test_load_nul(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		unsigned int line;
		unsigned int col;
	} cases[] = {
		{ "10.0.0.0/8 1\n10.1.0.0/16 2\0 junk\n", 33, 2, 14 },
		{ "\0\0\0\0\0\0\0\0", 8, 1, 1 },
		{ "10.0.0.0/8 1\n# comment\0\n", 24, 2, 10 },
		{ "10.0.0.0/8 1\n\0", 14, 2, 1 },
	};
	struct lf_route_table t;
	char err[512], path[PATH_MAX], want[PATH_MAX + 64];
	unsigned int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/nul.txt", tmp_dir);
	for (i = 0; i < DIM(cases); i++) {
		FILE *f = fopen(path, "w");
		long n;

		assert_non_null(f);
		assert_int_equal(fwrite(cases[i].text, 1, cases[i].len, f), cases[i].len);
		assert_int_equal(fclose(f), 0);
		n = route_load(path, 4, NULL, 16, &t, err, sizeof(err));
		unlink(path);
		snprintf(want, sizeof(want), "%s:%u: NUL byte at column %u", path, cases[i].line,
			 cases[i].col);
		if (n != -EINVAL || strcmp(err, want) != 0)
			fail_msg("case %u: %ld '%s', expected '%s'", i, n, err, want);
		assert_null(t.r);
	}
}

/* Files without a route: an empty table (and no qsort() of a NULL array). */
static void
test_load_no_routes(void **state)
{
	static const char *const texts[] = { "", "# nothing\n", "\n\n  \n", "10.0.0.0/8 1\n" };
	struct lf_route_table t;
	char err[512];
	unsigned int i;

	(void)state;
	for (i = 0; i < DIM(texts); i++) {
		char name[32];
		char *path;
		long n;

		snprintf(name, sizeof(name), "few%u.txt", i);
		path = write_file(name, texts[i]);
		n = route_load(path, 4, NULL, 16, &t, err, sizeof(err));
		assert_int_equal(n, i == 3 ? 1 : 0);
		assert_int_equal(t.n, (size_t)n);
		if (n == 1)
			assert_int_equal(t.r[0].addr4, 0x0a000000);
		route_table_free(&t);
	}
}

static void
test_load_valid(void **state)
{
	static uint8_t defined[16];
	struct lf_route_table t;
	char err[512];
	char *path;
	long n;

	(void)state;
	defined[1] = defined[2] = defined[7] = 1;
	path = write_file("ok4.txt",
			  "# IPv4 routes\n"
			  "\n"
			  "0.0.0.0/0 1\n"
			  "   10.0.0.0/8 2   # comment\n"
			  "10.0.0.0/16 7\n"
			  "\t\n"
			  "10.1.0.0/16 2\n"
			  "255.255.255.255/32 1"); /* last line without newline */
	n = route_load(path, 4, defined, 16, &t, err, sizeof(err));
	if (n < 0)
		fail_msg("%s", err);
	assert_int_equal(n, 5);
	assert_int_equal(t.n, 5);
	assert_int_equal(t.af, 4);
	/* File order, with line numbers. */
	assert_int_equal(t.r[0].addr4, 0);
	assert_int_equal(t.r[0].depth, 0);
	assert_int_equal(t.r[0].nh, 1);
	assert_int_equal(t.r[0].line, 3);
	assert_int_equal(t.r[1].addr4, 0x0a000000);
	assert_int_equal(t.r[1].depth, 8);
	assert_int_equal(t.r[1].nh, 2);
	assert_int_equal(t.r[1].line, 4);
	assert_int_equal(t.r[2].addr4, 0x0a000000);
	assert_int_equal(t.r[2].depth, 16);
	assert_int_equal(t.r[2].nh, 7);
	assert_int_equal(t.r[2].line, 5);
	assert_int_equal(t.r[3].addr4, 0x0a010000);
	assert_int_equal(t.r[3].line, 7);
	assert_int_equal(t.r[4].addr4, 0xffffffff);
	assert_int_equal(t.r[4].depth, 32);
	assert_int_equal(t.r[4].line, 8);
	route_table_free(&t);
	assert_null(t.r);
	assert_int_equal(t.n, 0);

	path = write_file("ok6.txt",
			  "::/0 1\n2001:db8::/32 2\n2001:db8::/48 2\n"
			  "# end\n2001:db8::1/128 7\n");
	n = route_load(path, 6, defined, 16, &t, err, sizeof(err));
	if (n < 0)
		fail_msg("%s", err);
	assert_int_equal(n, 4);
	assert_int_equal(t.af, 6);
	assert_int_equal(t.r[0].depth, 0);
	assert_int_equal(t.r[1].depth, 32);
	assert_int_equal(t.r[2].depth, 48);
	assert_int_equal(t.r[3].depth, 128);
	assert_int_equal(t.r[3].addr6[15], 1);
	assert_int_equal(t.r[3].line, 5);
	route_table_free(&t);

	/* An empty file is a valid, empty table. */
	path = write_file("empty.txt", "# nothing\n\n");
	n = route_load(path, 4, NULL, 16, &t, err, sizeof(err));
	assert_int_equal(n, 0);
	assert_int_equal(t.n, 0);
	route_table_free(&t);
}

/* Many routes (the table grows), kept in file order; a late error empties it. */
static void
test_load_many(void **state)
{
	const unsigned int count = 5000;
	struct lf_route_table t;
	char err[512];
	char *text, *path;
	size_t off = 0, cap = count * 32 + 64;
	unsigned int i;
	long n;

	(void)state;
	text = malloc(cap);
	assert_non_null(text);
	/* 10.x.y.0/24 in a scrambled order. */
	for (i = 0; i < count; i++) {
		unsigned int v = (i * 2654435761u) % 65536;

		off += snprintf(text + off, cap - off, "10.%u.%u.0/24 %u\n", v >> 8, v & 0xff,
				i % 100);
	}
	path = write_file("many.txt", text);
	n = route_load(path, 4, NULL, 100, &t, err, sizeof(err));
	if (n < 0)
		fail_msg("%s", err);
	assert_int_equal(n, count);
	assert_true(t.cap >= count);
	for (i = 0; i < count; i++) {
		unsigned int v = (i * 2654435761u) % 65536;

		assert_int_equal(t.r[i].addr4, 0x0a000000 | v << 8);
		assert_int_equal(t.r[i].nh, i % 100);
		assert_int_equal(t.r[i].line, i + 1);
	}
	route_table_free(&t);

	/* The same file with one bad line at the end loads nothing. */
	snprintf(text + off, cap - off, "10.0.0.0/33 1\n");
	path = write_file("many_bad.txt", text);
	n = route_load(path, 4, NULL, 100, &t, err, sizeof(err));
	assert_int_equal(n, -EINVAL);
	assert_non_null(strstr(err, ":5001:"));
	assert_int_equal(t.n, 0);
	assert_null(t.r);

	/* And with a duplicate of the first route at the end. */
	snprintf(text + off, cap - off, "10.0.0.0/24 1\n");
	path = write_file("many_dup.txt", text);
	n = route_load(path, 4, NULL, 100, &t, err, sizeof(err));
	assert_int_equal(n, -EINVAL);
	assert_non_null(strstr(err, ":5001: prefix already given at line 1"));
	assert_int_equal(t.n, 0);
	assert_null(t.r);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_bad_lines),
		cmocka_unit_test(test_parse_host_bits_every_depth),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_load_not_regular),
		cmocka_unit_test(test_load_too_large),
		cmocka_unit_test(test_load_nul),
		cmocka_unit_test(test_load_no_routes),
		cmocka_unit_test(test_parse_blank_and_comments),
		cmocka_unit_test(test_parse_ipv4),
		cmocka_unit_test(test_parse_ipv6),
		cmocka_unit_test(test_load_valid),
		cmocka_unit_test(test_load_many),
	};

	return cmocka_run_group_tests_name("route", tests, group_setup, group_teardown);
}
