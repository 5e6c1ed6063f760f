/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the IPv4 5-tuple ACL (src/lib/acl.c). Malformed rule lines come
 * first: each reason from acl_parse_line(), and acl_load() naming the file
 * and line and leaving nothing allocated. Then classification: an empty rule
 * set gives the default action, overlapping rules give the first match, and
 * for ClassBench rule sets (tests/data/acl, see README.md there) more than
 * 100,000 packets each (random ones, points inside rules, and range ends,
 * the values just outside them, prefix first and last addresses, ports 0 and
 * 65535, protocol 0) are classified with rte_acl and compared with a linear
 * first-match scan written here.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_memory.h>

#include "acl.h"
#include "lf_log.h"

#define N_RANDOM 40000
#define N_INSIDE 40000
#define N_CORNER 30000
#define N_PKTS (N_RANDOM + N_INSIDE + N_CORNER)
#define BURST 64

/* xorshift64*: reproducible. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static void
data_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("LF_TESTDATA");

	if (dir == NULL)
		fail_msg("LF_TESTDATA is not set (run the tests with meson test)");
	snprintf(buf, len, "%s/acl/%s", dir, name);
}

/* ---- packets and the reference: linear first-match scan ---- */

/* A packet in host byte order. */
struct pkt {
	uint32_t src;
	uint32_t dst;
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
};

static uint32_t
mask4(unsigned int len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

static int
rule_matches(const struct acl_rule *r, const struct pkt *p)
{
	return (p->proto & r->proto_mask) == r->proto && (p->src & mask4(r->src_len)) == r->src &&
		(p->dst & mask4(r->dst_len)) == r->dst && p->sport >= r->sport_lo &&
		p->sport <= r->sport_hi && p->dport >= r->dport_lo && p->dport <= r->dport_hi;
}

static uint32_t
ref_classify(const struct acl_rule_set *s, const struct pkt *p)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (rule_matches(&s->r[i], p))
			return i;
	return ACL_NO_MATCH;
}

static void
to_key(const struct pkt *p, struct acl_key *k)
{
	memset(k, 0, sizeof(*k));
	k->proto = p->proto;
	k->src = htonl(p->src);
	k->dst = htonl(p->dst);
	k->sport = htons(p->sport);
	k->dport = htons(p->dport);
}

/* Classify pkts with ctx in bursts and check each against the reference. */
static size_t
check_pkts(const struct acl_ctx *ctx, const struct acl_rule_set *s, enum acl_action def,
	   const struct pkt *pkts, size_t n)
{
	struct acl_key keys[BURST];
	const uint8_t *data[BURST];
	uint32_t res[BURST];
	size_t i, j, hits = 0;

	for (i = 0; i < n; i += BURST) {
		size_t m = n - i < BURST ? n - i : BURST;

		for (j = 0; j < m; j++) {
			to_key(&pkts[i + j], &keys[j]);
			data[j] = (const uint8_t *)&keys[j];
		}
		assert_int_equal(acl_classify(ctx, data, res, m), 0);
		for (j = 0; j < m; j++) {
			const struct pkt *p = &pkts[i + j];
			uint32_t want = ref_classify(s, p);
			enum acl_action act = want == ACL_NO_MATCH ? def : s->r[want].action;

			if (res[j] != want)
				fail_msg("packet %zu proto %u %08x:%u -> %08x:%u: rte_acl says rule "
					 "%d, reference says rule %d",
					 i + j, p->proto, p->src, p->sport, p->dst, p->dport,
					 (int)res[j], (int)want);
			assert_int_equal(acl_action(ctx, res[j]), act);
			hits += want != ACL_NO_MATCH;
		}
	}
	return hits;
}

static uint32_t
rnd_in(uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd() % ((uint64_t)hi - lo + 1));
}

static void
pkt_inside(const struct acl_rule *r, struct pkt *p)
{
	p->src = r->src | ((uint32_t)rnd() & ~mask4(r->src_len));
	p->dst = r->dst | ((uint32_t)rnd() & ~mask4(r->dst_len));
	p->sport = rnd_in(r->sport_lo, r->sport_hi);
	p->dport = rnd_in(r->dport_lo, r->dport_hi);
	p->proto = r->proto | ((uint8_t)rnd() & ~r->proto_mask);
}

/* A corner value of an address field: prefix ends and just outside them. */
static uint32_t
corner_addr(uint32_t net, uint8_t len, uint32_t cur)
{
	uint32_t last = net | ~mask4(len);

	switch (rnd() % 6) {
	case 0:
		return net;
	case 1:
		return last;
	case 2:
		return net != 0 ? net - 1 : net;
	case 3:
		return last != UINT32_MAX ? last + 1 : last;
	case 4:
		return rnd() % 2 ? 0 : UINT32_MAX;
	default:
		return cur;
	}
}

static uint16_t
corner_port(uint16_t lo, uint16_t hi, uint16_t cur)
{
	switch (rnd() % 6) {
	case 0:
		return lo;
	case 1:
		return hi;
	case 2:
		return lo > 0 ? lo - 1 : lo;
	case 3:
		return hi < UINT16_MAX ? hi + 1 : hi;
	case 4:
		return rnd() % 2 ? 0 : UINT16_MAX;
	default:
		return cur;
	}
}

static void
pkt_corner(const struct acl_rule *r, struct pkt *p)
{
	unsigned int f, nf = 1 + rnd() % 2;

	pkt_inside(r, p);
	while (nf-- > 0) {
		f = rnd() % 5;
		switch (f) {
		case 0:
			p->src = corner_addr(r->src, r->src_len, p->src);
			break;
		case 1:
			p->dst = corner_addr(r->dst, r->dst_len, p->dst);
			break;
		case 2:
			p->sport = corner_port(r->sport_lo, r->sport_hi, p->sport);
			break;
		case 3:
			p->dport = corner_port(r->dport_lo, r->dport_hi, p->dport);
			break;
		default:
			p->proto = rnd() % 2 ? 0 : (rnd() % 2 ? UINT8_MAX : r->proto);
			break;
		}
	}
}

static void
pkt_random(struct pkt *p)
{
	uint64_t v = rnd();

	p->src = (uint32_t)v;
	p->dst = (uint32_t)(v >> 32);
	v = rnd();
	p->sport = (uint16_t)v;
	p->dport = (uint16_t)(v >> 16);
	/* Mostly the protocols the rule sets use. */
	switch ((v >> 32) % 4) {
	case 0:
		p->proto = 6;
		break;
	case 1:
		p->proto = 17;
		break;
	case 2:
		p->proto = 0;
		break;
	default:
		p->proto = (uint8_t)(v >> 40);
		break;
	}
}

/* ---- setup ---- */

static int
group_setup(void **state)
{
	char lcore[16];
	char *argv[] = {
		"test_acl",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_acl",
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	cpu_set_t cpus;
	int cpu = 0;

	(void)state;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	lf_log_init();
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	return rte_eal_cleanup();
}

/* Write text to a temporary file; its name goes to path. */
static void
write_tmp(char *path, size_t len, const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/lfut_acl_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ---- malformed lines ---- */

static const struct {
	const char *line;
	const char *reason;
} bad_lines[] = {
	{ "192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t", "start with '@'" },
	{ "@192.168.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t", "not an IPv4 address" },
	{ "@192.168.0.256/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t",
	  "not an IPv4 address" },
	{ "@192.168.0.0\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t", "has no /LEN" },
	{ "@192.168.0.0/33\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t", "0 to 32" },
	{ "@192.168.0.0/x\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t", "not a number" },
	{ "@192.168.0.0/16\t10.0.0.0/8a\t0 : 65535\t0 : 65535\t0x06/0xFF\t", "not a number" },
	{ "@192.168.0.0/16\t10.0.0.0/99\t0 : 65535\t0 : 65535\t0x06/0xFF\t",
	  "destination prefix length must be 0 to 32" },
	{ "@192.168.0.0/16\t0 : 65535\t0 : 65535\t0x06/0xFF\t", "destination prefix" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65536\t0 : 65535\t0x06/0xFF\t", "0 to 65535" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t99999999999 : 65535\t0x06/0xFF\t",
	  "0 to 65535" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t80 : 79\t0 : 65535\t0x06/0xFF\t",
	  "source port range: low end above high end" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t1000 : 999\t0x06/0xFF\t",
	  "destination port range: low end above high end" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 - 65535\t0 : 65535\t0x06/0xFF\t", "expected LO : HI" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0x06/0xFF\t",
	  "destination port is not a number" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t", "missing protocol" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t", "missing destination port range" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t", "missing source port range" },
	{ "@192.168.0.0/16\t", "missing destination prefix" },
	{ "@", "missing source prefix" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0xZZ/0xFF\t", "protocol: expected" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t6/0xFF\t", "protocol: expected" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06\t", "protocol: expected" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x106/0xFF\t", "protocol: expected" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFG\t", "protocol: expected" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t0x1000/0xg\t",
	  "flags: expected" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t0x10000/0xFFFF\t",
	  "flags: expected" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t0x1000/0x1000\tallow",
	  "trailing text" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit deny",
	  "trailing text" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t0x0/0x0\t0x0/0x0",
	  "trailing text" },
	{ "@192.168.0.0/16\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermitx",
	  "trailing text" },
	/*
	 * Junk after an address of the longest form (15 characters): the
	 * whole token is refused, not its first 15 characters taken.
	 */
	{ "@100.100.100.100X/8\t10.0.0.0/8\t0 : 65535\t0 : 65535\t0x06/0xFF\t",
	  "source prefix is too long to be an address: '100.100.100.100X'" },
	{ "@10.0.0.0/8\t200.200.200.2001/32\t0 : 65535\t0 : 65535\t0x06/0xFF\t",
	  "destination prefix is too long to be an address: '200.200.200.2001'" },
};

static void
test_parse_invalid(void **state)
{
	struct acl_rule r;
	char why[128];
	size_t i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad_lines); i++) {
		why[0] = '\0';
		if (acl_parse_line(bad_lines[i].line, &r, why, sizeof(why)) != -EINVAL)
			fail_msg("line %zu '%s' was accepted", i, bad_lines[i].line);
		if (strstr(why, bad_lines[i].reason) == NULL)
			fail_msg("line %zu '%s': reason '%s', expected '%s'", i, bad_lines[i].line,
				 why, bad_lines[i].reason);
	}
}

static void
test_load_invalid(void **state)
{
	const char *good = "@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t\n";
	struct acl_rule_set s;
	char path[64], want[128], text[512], err[512];
	size_t i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad_lines); i++) {
		snprintf(text, sizeof(text), "# a comment\n\n%s%s\n%s", good, bad_lines[i].line,
			 good);
		write_tmp(path, sizeof(path), text);
		memset(&s, 0xa5, sizeof(s));
		assert_int_equal(acl_load(path, &s, err, sizeof(err)), -EINVAL);
		unlink(path);
		/* "FILE:LINE: 'text': reason", line 4, nothing left allocated. */
		snprintf(want, sizeof(want), "%s:4: '", path);
		if (strncmp(err, want, strlen(want)) != 0 ||
		    strstr(err, bad_lines[i].reason) == NULL)
			fail_msg("line %zu: error '%s'", i, err);
		assert_null(s.r);
		assert_int_equal(s.n, 0);
		assert_int_equal(s.cap, 0);
	}

	assert_int_equal(acl_load("/nonexistent/acl", &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/acl: cannot open"));
	assert_null(s.r);
}

/* ---- valid lines ---- */

static void
test_parse_valid(void **state)
{
	struct acl_rule r;
	char why[128];

	(void)state;
	assert_int_equal(acl_parse_line("", &r, why, sizeof(why)), 0);
	assert_int_equal(acl_parse_line(" \t", &r, why, sizeof(why)), 0);
	assert_int_equal(acl_parse_line("# @1.2.3.4/32", &r, why, sizeof(why)), 0);

	/* The example of the module: six fields, trailing tab, a host route. */
	assert_int_equal(acl_parse_line("@192.151.11.17/32\t15.0.120.4/32\t10 : 10\t1221 : "
					"1221\t0x06/0xFF\t0x1000/0x1000\t",
					&r, why, sizeof(why)),
			 1);
	assert_int_equal(r.src, 0xc0970b11);
	assert_int_equal(r.src_len, 32);
	assert_int_equal(r.dst, 0x0f007804);
	assert_int_equal(r.dst_len, 32);
	assert_int_equal(r.sport_lo, 10);
	assert_int_equal(r.sport_hi, 10);
	assert_int_equal(r.dport_lo, 1221);
	assert_int_equal(r.dport_hi, 1221);
	assert_int_equal(r.proto, 6);
	assert_int_equal(r.proto_mask, 0xff);
	assert_int_equal(r.action, ACL_DENY);

	/* Five fields, spaces, host bits masked, wildcards, an action. */
	assert_int_equal(acl_parse_line("  @10.1.2.3/8 0.0.0.0/0 0:65535  1024 :65535 0x00/0x00 "
					"permit",
					&r, why, sizeof(why)),
			 1);
	assert_int_equal(r.src, 0x0a000000);
	assert_int_equal(r.src_len, 8);
	assert_int_equal(r.dst, 0);
	assert_int_equal(r.dst_len, 0);
	assert_int_equal(r.sport_lo, 0);
	assert_int_equal(r.sport_hi, 65535);
	assert_int_equal(r.dport_lo, 1024);
	assert_int_equal(r.dport_hi, 65535);
	assert_int_equal(r.proto_mask, 0);
	assert_int_equal(r.action, ACL_PERMIT);

	/* Flags, then an action and a comment; the value is masked. */
	assert_int_equal(acl_parse_line("@1.2.3.4/31\t5.6.7.8/30\t1 : 2\t3 : 4\t0x11/0x0F\t"
					"0x0000/0x0000\tdeny\t# x",
					&r, why, sizeof(why)),
			 1);
	assert_int_equal(r.src, 0x01020304);
	assert_int_equal(r.dst, 0x05060708);
	assert_int_equal(r.proto, 0x01);
	assert_int_equal(r.proto_mask, 0x0f);
	assert_int_equal(r.action, ACL_DENY);
}

/* ---- classification ---- */

static void
test_empty(void **state)
{
	struct acl_rule_set s = { 0 };
	struct acl_ctx *ctx;
	struct pkt pkts[1000];
	char err[256];
	size_t i;
	int d;

	(void)state;
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkt_random(&pkts[i]);
	for (d = ACL_DENY; d <= ACL_PERMIT; d++) {
		ctx = acl_build(&s, d, SOCKET_ID_ANY, err, sizeof(err));
		if (ctx == NULL)
			fail_msg("%s", err);
		assert_int_equal(acl_num_rules(ctx), 0);
		assert_int_equal(check_pkts(ctx, &s, d, pkts, RTE_DIM(pkts)), 0);
		assert_int_equal(acl_action(ctx, ACL_NO_MATCH), d);
		acl_free(ctx);
	}
	acl_free(NULL);
}

/* Build from rule text, classify one packet, return the rule index. */
static uint32_t
classify_one(const char *rules, enum acl_action def, const struct pkt *p, enum acl_action *act)
{
	struct acl_rule_set s;
	struct acl_ctx *ctx;
	struct acl_key k;
	const uint8_t *data[1] = { (const uint8_t *)&k };
	char path[64], err[512];
	uint32_t res;

	write_tmp(path, sizeof(path), rules);
	if (acl_load(path, &s, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	unlink(path);
	ctx = acl_build(&s, def, SOCKET_ID_ANY, err, sizeof(err));
	if (ctx == NULL)
		fail_msg("%s", err);
	to_key(p, &k);
	assert_int_equal(acl_classify(ctx, data, &res, 1), 0);
	assert_int_equal(res, ref_classify(&s, p));
	*act = acl_action(ctx, res);
	acl_free(ctx);
	acl_rule_set_free(&s);
	return res;
}

static void
test_first_match(void **state)
{
	/* A broad permit, then a narrower deny inside it, then a catch-all. */
	const char *broad_first =
		"@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit\n"
		"@10.1.0.0/16\t0.0.0.0/0\t0 : 65535\t80 : 80\t0x00/0x00\tdeny\n"
		"@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\tpermit\n";
	const char *narrow_first =
		"@10.1.0.0/16\t0.0.0.0/0\t0 : 65535\t80 : 80\t0x00/0x00\tdeny\n"
		"@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit\n";
	const char *twice = "@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tdeny\n"
			    "@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit\n";
	struct pkt tcp80 = { 0x0a010203, 0x08080808, 1234, 80, 6 };
	struct pkt udp80 = { 0x0a010203, 0x08080808, 1234, 80, 17 };
	struct pkt udp81 = { 0x0a010203, 0x08080808, 1234, 81, 17 };
	struct pkt other = { 0x0b010203, 0x08080808, 1234, 81, 1 };
	enum acl_action act;

	(void)state;
	assert_int_equal(classify_one(broad_first, ACL_DENY, &tcp80, &act), 0);
	assert_int_equal(act, ACL_PERMIT);
	assert_int_equal(classify_one(broad_first, ACL_DENY, &udp80, &act), 1);
	assert_int_equal(act, ACL_DENY);
	assert_int_equal(classify_one(broad_first, ACL_DENY, &udp81, &act), 2);
	assert_int_equal(act, ACL_PERMIT);
	assert_int_equal(classify_one(broad_first, ACL_DENY, &other, &act), 2);
	assert_int_equal(act, ACL_PERMIT);

	assert_int_equal(classify_one(narrow_first, ACL_PERMIT, &tcp80, &act), 0);
	assert_int_equal(act, ACL_DENY);
	assert_int_equal(classify_one(narrow_first, ACL_DENY, &udp81, &act), ACL_NO_MATCH);
	assert_int_equal(act, ACL_DENY);
	assert_int_equal(classify_one(narrow_first, ACL_PERMIT, &other, &act), ACL_NO_MATCH);
	assert_int_equal(act, ACL_PERMIT);

	/* The same rule twice: the first line wins. */
	assert_int_equal(classify_one(twice, ACL_PERMIT, &tcp80, &act), 0);
	assert_int_equal(act, ACL_DENY);
}

/* Build from s, classify pkts and compare with the reference. */
static size_t
check_set(const char *name, const struct acl_rule_set *s, enum acl_action def,
	  const struct pkt *pkts, size_t n)
{
	struct acl_ctx *ctx;
	char err[512];
	size_t hits;

	ctx = acl_build(s, def, SOCKET_ID_ANY, err, sizeof(err));
	if (ctx == NULL)
		fail_msg("%s: %s", name, err);
	assert_int_equal(acl_num_rules(ctx), s->n);
	hits = check_pkts(ctx, s, def, pkts, n);
	print_message("%s: %zu rules, %zu packets, %zu matched a rule\n", name, s->n, n, hits);
	acl_free(ctx);
	return hits;
}

static void
check_classbench(const char *name, size_t want_rules)
{
	struct acl_rule_set s;
	struct pkt *pkts;
	char path[PATH_MAX], err[512];
	size_t i, j, hits, n = 0;
	long nr;

	data_path(path, sizeof(path), name);
	nr = acl_load(path, &s, err, sizeof(err));
	if (nr < 0)
		fail_msg("%s", err);
	/* A changed or truncated file fails rather than weakens the test. */
	assert_int_equal(nr, want_rules);
	/* Half the rules permit, so that actions are checked too. */
	for (i = 0; i < s.n; i++)
		s.r[i].action = (rnd() & 1) ? ACL_PERMIT : ACL_DENY;

	pkts = calloc(N_PKTS, sizeof(*pkts));
	assert_non_null(pkts);
	for (i = 0; i < N_RANDOM; i++)
		pkt_random(&pkts[n++]);
	for (i = 0; i < N_INSIDE; i++)
		pkt_inside(&s.r[rnd() % s.n], &pkts[n++]);
	for (i = 0; i < N_CORNER; i++)
		pkt_corner(&s.r[rnd() % s.n], &pkts[n++]);
	assert_int_equal(n, N_PKTS);
	assert_true(n >= 100000);

	/* The whole set: it ends with a catch-all, so every packet matches. */
	hits = check_set(name, &s, ACL_PERMIT, pkts, n);
	assert_true(hits >= N_INSIDE);

	/*
	 * Without the broad rules (both prefixes together shorter than 16 bits,
	 * the catch-all among them), so that packets miss and get the default.
	 */
	for (i = j = 0; i < s.n; i++)
		if (s.r[i].src_len + s.r[i].dst_len >= 16)
			s.r[j++] = s.r[i];
	assert_true(j < s.n);
	s.n = j;
	hits = check_set(name, &s, ACL_DENY, pkts, n);
	assert_true(hits < n);

	free(pkts);
	acl_rule_set_free(&s);
}

static void
test_classbench_acl1_1k(void **state)
{
	(void)state;
	check_classbench("acl1_1k", 942);
}

static void
test_classbench_fw1_1k(void **state)
{
	(void)state;
	check_classbench("fw1_1k", 857);
}

static void
test_classbench_ipc1_1k(void **state)
{
	(void)state;
	check_classbench("ipc1_1k", 974);
}

static void
test_classbench_acl1_10k(void **state)
{
	(void)state;
	check_classbench("acl1_10k", 9774);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* Errors first. */
		cmocka_unit_test(test_parse_invalid),
		cmocka_unit_test(test_load_invalid),
		cmocka_unit_test(test_parse_valid),
		/* Then classification. */
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_first_match),
		cmocka_unit_test(test_classbench_acl1_1k),
		cmocka_unit_test(test_classbench_fw1_1k),
		cmocka_unit_test(test_classbench_ipc1_1k),
		cmocka_unit_test(test_classbench_acl1_10k),
	};

	return cmocka_run_group_tests_name("acl", tests, group_setup, group_teardown);
}
