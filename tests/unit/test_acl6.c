/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the IPv6 5-tuple ACL (src/lib/acl.c: acl6_parse_line(),
 * acl6_load(), acl6_build()). Malformed rule lines come first: each reason,
 * and acl6_load() naming the file, the line and the offending value and
 * leaving nothing allocated. Then valid lines (compressed, full and
 * IPv4-embedded text, host bits cleared inside a byte), an empty set, first
 * match. Then, for IPv6 rule sets derived from the ClassBench sets
 * (tests/data/acl/NAME_v6, see README.md there) more than 100,000 packets each
 * (random ones, points inside rules, and corners: prefix first and last
 * addresses and the addresses just outside them, ::, all-ones, range ends
 * and the values just outside them, ports 0 and 65535, protocols 0 and 255)
 * are classified with rte_acl and compared with a linear first-match scan
 * written here on 128-bit integers.
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

typedef unsigned __int128 u128;

/* xorshift64*: reproducible. */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static u128
rnd128(void)
{
	return (u128)rnd() << 64 | rnd();
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

static u128
to_u128(const uint8_t b[16])
{
	u128 v = 0;
	int i;

	for (i = 0; i < 16; i++)
		v = v << 8 | b[i];
	return v;
}

static void
from_u128(u128 v, uint8_t b[16])
{
	int i;

	for (i = 15; i >= 0; i--) {
		b[i] = (uint8_t)v;
		v >>= 8;
	}
}

static u128
mask128(unsigned int len)
{
	return len == 0 ? 0 : ~(u128)0 << (128 - len);
}

/* A rule as the reference reads it. */
struct ref_rule {
	u128 src;
	u128 smask;
	u128 dst;
	u128 dmask;
	uint16_t sport_lo;
	uint16_t sport_hi;
	uint16_t dport_lo;
	uint16_t dport_hi;
	uint8_t proto;
	uint8_t proto_mask;
};

/* A packet in host byte order. */
struct pkt {
	u128 src;
	u128 dst;
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
};

static struct ref_rule *
ref_rules(const struct acl6_rule_set *s)
{
	struct ref_rule *rr = calloc(s->n ? s->n : 1, sizeof(*rr));
	size_t i;

	assert_non_null(rr);
	for (i = 0; i < s->n; i++) {
		const struct acl6_rule *r = &s->r[i];

		rr[i].src = to_u128(r->src);
		rr[i].smask = mask128(r->src_len);
		rr[i].dst = to_u128(r->dst);
		rr[i].dmask = mask128(r->dst_len);
		/* The loader clears host bits. */
		assert_true((rr[i].src & ~rr[i].smask) == 0);
		assert_true((rr[i].dst & ~rr[i].dmask) == 0);
		rr[i].sport_lo = r->sport_lo;
		rr[i].sport_hi = r->sport_hi;
		rr[i].dport_lo = r->dport_lo;
		rr[i].dport_hi = r->dport_hi;
		rr[i].proto = r->proto;
		rr[i].proto_mask = r->proto_mask;
	}
	return rr;
}

static uint32_t
ref_classify(const struct ref_rule *rr, size_t n, const struct pkt *p)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct ref_rule *r = &rr[i];

		if ((p->proto & r->proto_mask) == r->proto && (p->src & r->smask) == r->src &&
		    (p->dst & r->dmask) == r->dst && p->sport >= r->sport_lo &&
		    p->sport <= r->sport_hi && p->dport >= r->dport_lo && p->dport <= r->dport_hi)
			return i;
	}
	return ACL_NO_MATCH;
}

static void
to_key(const struct pkt *p, struct acl6_key *k)
{
	memset(k, 0xa5, sizeof(*k)); /* The pad must not matter. */
	k->proto = p->proto;
	from_u128(p->src, k->src);
	from_u128(p->dst, k->dst);
	k->sport = htons(p->sport);
	k->dport = htons(p->dport);
}

static void
print_addr(char *buf, size_t len, u128 a)
{
	uint8_t b[16];

	from_u128(a, b);
	if (inet_ntop(AF_INET6, b, buf, len) == NULL)
		snprintf(buf, len, "?");
}

/* Classify pkts with ctx in bursts and check each against the reference. */
static size_t
check_pkts(const struct acl_ctx *ctx, const struct acl6_rule_set *s, enum acl_action def,
	   const struct pkt *pkts, size_t n)
{
	struct ref_rule *rr = ref_rules(s);
	struct acl6_key keys[BURST];
	const uint8_t *data[BURST];
	uint32_t res[BURST];
	size_t i, j, m, b, hits = 0;

	/* Bursts of 1 to 64: rte_acl has paths for 8, 4 and 1 flows. */
	for (i = 0, b = 0; i < n; i += m, b++) {
		m = RTE_MIN(n - i, 1 + b % BURST);

		for (j = 0; j < m; j++) {
			to_key(&pkts[i + j], &keys[j]);
			data[j] = (const uint8_t *)&keys[j];
		}
		assert_int_equal(acl_classify(ctx, data, res, m), 0);
		for (j = 0; j < m; j++) {
			const struct pkt *p = &pkts[i + j];
			uint32_t want = ref_classify(rr, s->n, p);
			enum acl_action act = want == ACL_NO_MATCH ? def : s->r[want].action;

			if (res[j] != want) {
				char sa[INET6_ADDRSTRLEN], da[INET6_ADDRSTRLEN];

				print_addr(sa, sizeof(sa), p->src);
				print_addr(da, sizeof(da), p->dst);
				fail_msg("packet %zu proto %u [%s]:%u -> [%s]:%u: rte_acl says rule "
					 "%d, reference says rule %d",
					 i + j, p->proto, sa, p->sport, da, p->dport, (int)res[j],
					 (int)want);
			}
			assert_int_equal(acl_action(ctx, res[j]), act);
			hits += want != ACL_NO_MATCH;
		}
	}
	free(rr);
	return hits;
}

static uint32_t
rnd_in(uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd() % ((uint64_t)hi - lo + 1));
}

static void
pkt_inside(const struct acl6_rule *r, struct pkt *p)
{
	p->src = to_u128(r->src) | (rnd128() & ~mask128(r->src_len));
	p->dst = to_u128(r->dst) | (rnd128() & ~mask128(r->dst_len));
	p->sport = rnd_in(r->sport_lo, r->sport_hi);
	p->dport = rnd_in(r->dport_lo, r->dport_hi);
	p->proto = r->proto | ((uint8_t)rnd() & ~r->proto_mask);
}

/* A corner value of an address field: prefix ends and just outside them. */
static u128
corner_addr(const uint8_t b[16], uint8_t len, u128 cur)
{
	u128 net = to_u128(b), last = net | ~mask128(len);

	switch (rnd() % 7) {
	case 0:
		return net;
	case 1:
		return last;
	case 2:
		return net - 1; /* :: - 1 wraps to all-ones, also a corner. */
	case 3:
		return last + 1;
	case 4:
		return rnd() % 2 ? 0 : ~(u128)0;
	case 5:
		/* One bit flipped at the prefix end, where words split. */
		return len > 0 ? cur ^ ((u128)1 << (128 - len)) : cur;
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
pkt_corner(const struct acl6_rule *r, struct pkt *p)
{
	unsigned int nf = 1 + rnd() % 2;

	pkt_inside(r, p);
	while (nf-- > 0) {
		switch (rnd() % 5) {
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
	uint64_t v;

	p->src = rnd128();
	p->dst = rnd128();
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
		"test_acl6",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_acl6",
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

	snprintf(path, len, "/tmp/lfut_acl6_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ---- malformed lines ---- */

#define A6 "2001:db8::/32"
#define ANY "::/0"
#define PORTS "0 : 65535\t0 : 65535"

/* The line, the reason, and the offending value the reason must quote. */
static const struct {
	const char *line;
	const char *reason;
	const char *value;
} bad_lines[] = {
	{ A6 "\t" ANY "\t" PORTS "\t0x06/0xFF", "start with '@'", NULL },
	{ "@2001:db8::g/32\t" ANY "\t" PORTS "\t0x06/0xFF", "source prefix is not an IPv6 address",
	  "'2001:db8::g'" },
	{ "@2001:db8:::1/32\t" ANY "\t" PORTS "\t0x06/0xFF", "not an IPv6 address",
	  "'2001:db8:::1'" },
	{ "@1:2:3:4:5:6:7:8:9/128\t" ANY "\t" PORTS "\t0x06/0xFF", "not an IPv6 address",
	  "'1:2:3:4:5:6:7:8:9'" },
	{ "@12345::/16\t" ANY "\t" PORTS "\t0x06/0xFF", "not an IPv6 address", "'12345::'" },
	{ "@10.0.0.0/8\t" ANY "\t" PORTS "\t0x06/0xFF", "not an IPv6 address",
	  "'10.0.0.0' (IPv4 rules go in [acl] ipv4)" },
	{ "@" A6 "\t2001:db8::1\t" PORTS "\t0x06/0xFF", "destination prefix has no /LEN",
	  "'2001:db8::1'" },
	{ "@2001:db8::/129\t" ANY "\t" PORTS "\t0x06/0xFF", "source prefix length must be 0 to 128",
	  "'129'" },
	{ "@" A6 "\t::/200\t" PORTS "\t0x06/0xFF", "destination prefix length must be 0 to 128",
	  "'200'" },
	{ "@" A6 "\t::/99999999999999999999\t" PORTS "\t0x06/0xFF", "0 to 128",
	  "'99999999999999999999'" },
	{ "@2001:db8::/x\t" ANY "\t" PORTS "\t0x06/0xFF", "source prefix length is not a number",
	  "'x'" },
	{ "@2001:db8::/64a\t" ANY "\t" PORTS "\t0x06/0xFF", "length is not a number", "'64a'" },
	{ "@" A6 "\t" PORTS "\t0x06/0xFF", "destination prefix", "'0'" },
	{ "@" A6 "\t" ANY "\t80 : 79\t0 : 65535\t0x06/0xFF",
	  "source port range: low end above high end", "'80 : 79'" },
	{ "@" A6 "\t" ANY "\t0 : 65535\t1000 : 999\t0x06/0xFF",
	  "destination port range: low end above high end", "'1000 : 999'" },
	{ "@" A6 "\t" ANY "\t0 : 65536\t0 : 65535\t0x06/0xFF", "source port must be 0 to 65535",
	  "'65536'" },
	{ "@" A6 "\t" ANY "\t0 - 65535\t0 : 65535\t0x06/0xFF", "expected LO : HI", "'0 -'" },
	{ "@" A6 "\t" ANY "\t0 : 65535\t0x06/0xFF", "destination port is not a number",
	  "'0x06/0xFF'" },
	{ "@" A6 "\t" ANY "\t" PORTS "\t", "missing protocol", NULL },
	{ "@" A6 "\t" ANY "\t", "missing source port range", NULL },
	{ "@" A6 "\t", "missing destination prefix", NULL },
	{ "@", "missing source prefix", NULL },
	{ "@" A6 "\t" ANY "\t" PORTS "\t0x106/0xFF", "protocol: expected", "'0x106/0xFF'" },
	{ "@" A6 "\t" ANY "\t" PORTS "\t6/0xFF", "protocol: expected", "'6/0xFF'" },
	{ "@" A6 "\t" ANY "\t" PORTS "\t0x06/0xFF\t0x10000/0xFFFF", "flags: expected",
	  "'0x10000/0xFFFF'" },
	{ "@" A6 "\t" ANY "\t" PORTS "\t0x06/0xFF\tallow", "trailing text after the rule",
	  "'allow'" },
	{ "@" A6 "\t" ANY "\t" PORTS "\t0x06/0xFF\tpermit deny", "trailing text", "'deny'" },
	/* A full-length line: the reason quotes what the excerpt cuts off. */
	{ "@2001:0db8:0000:0000:0000:0000:0000:0001/128\t2001:0db8:ffff:ffff:ffff:ffff:ffff:"
	  "ffff/128\t0 : 65535\t7 : 6\t0x06/0xFF",
	  "destination port range: low end above high end", "'7 : 6'" },
	/*
	 * Junk after an address of the longest form (45 characters): the
	 * whole token is refused, not its first 45 characters taken.
	 */
	{ "@ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255X/128\t" ANY "\t" PORTS "\t0x06/0xFF",
	  "source prefix is too long to be an address",
	  "'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255X'" },
	{ "@" A6 "\t0000:0000:0000:0000:0000:0000:255.255.255.2551/128\t" PORTS "\t0x06/0xFF",
	  "destination prefix is too long to be an address",
	  "'0000:0000:0000:0000:0000:0000:255.255.255.2551'" },
};

static void
test_parse_invalid(void **state)
{
	struct acl6_rule r;
	char why[160];
	size_t i;

	(void)state;
	assert_true(RTE_DIM(bad_lines) >= 10);
	for (i = 0; i < RTE_DIM(bad_lines); i++) {
		why[0] = '\0';
		if (acl6_parse_line(bad_lines[i].line, &r, why, sizeof(why)) != -EINVAL)
			fail_msg("line %zu '%s' was accepted", i, bad_lines[i].line);
		if (strstr(why, bad_lines[i].reason) == NULL ||
		    (bad_lines[i].value != NULL && strstr(why, bad_lines[i].value) == NULL))
			fail_msg("line %zu '%s': reason '%s', expected '%s' and %s", i,
				 bad_lines[i].line, why, bad_lines[i].reason,
				 bad_lines[i].value ? bad_lines[i].value : "no value");
	}
}

static void
test_load_invalid(void **state)
{
	const char *good = "@2001:db8::/32\t::/0\t0 : 65535\t0 : 65535\t0x00/0x00\t\n";
	struct acl6_rule_set s;
	char path[64], want[128], text[1024], err[512];
	size_t i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad_lines); i++) {
		snprintf(text, sizeof(text), "# a comment\n\n%s%s\n%s", good, bad_lines[i].line,
			 good);
		write_tmp(path, sizeof(path), text);
		memset(&s, 0xa5, sizeof(s));
		assert_int_equal(acl6_load(path, &s, err, sizeof(err)), -EINVAL);
		unlink(path);
		/* "FILE:LINE: 'text': reason 'value'", line 4, nothing allocated. */
		snprintf(want, sizeof(want), "%s:4: '", path);
		if (strncmp(err, want, strlen(want)) != 0 ||
		    strstr(err, bad_lines[i].reason) == NULL ||
		    (bad_lines[i].value != NULL && strstr(err, bad_lines[i].value) == NULL))
			fail_msg("line %zu: error '%s'", i, err);
		assert_null(s.r);
		assert_int_equal(s.n, 0);
		assert_int_equal(s.cap, 0);
	}

	assert_int_equal(acl6_load("/nonexistent/acl6", &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/acl6: cannot open"));
	assert_null(s.r);
}

/* The IPv4 loader refuses IPv6 rules, with a hint and the value. */
static void
test_wrong_family(void **state)
{
	struct acl_rule r;
	char why[160];

	(void)state;
	assert_int_equal(acl_parse_line("@2001:db8::/32\t0.0.0.0/0\t" PORTS "\t0x06/0xFF", &r, why,
					sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why,
			       "source prefix is not an IPv4 address: '2001:db8::' (IPv6 "
			       "rules go in [acl] ipv6)"));
}

/* ---- valid lines ---- */

static void
assert_addr(const uint8_t got[16], const char *want)
{
	uint8_t w[16];

	assert_int_equal(inet_pton(AF_INET6, want, w), 1);
	if (memcmp(got, w, 16) != 0) {
		char g[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, got, g, sizeof(g));
		fail_msg("address %s, expected %s", g, want);
	}
}

static void
test_parse_valid(void **state)
{
	struct acl6_rule r;
	char why[160];

	(void)state;
	assert_int_equal(acl6_parse_line("", &r, why, sizeof(why)), 0);
	assert_int_equal(acl6_parse_line(" \t", &r, why, sizeof(why)), 0);
	assert_int_equal(acl6_parse_line("# @::/0", &r, why, sizeof(why)), 0);

	/* Six fields, trailing tab, full text form, host routes. */
	assert_int_equal(acl6_parse_line("@2001:0db8:0000:0000:0000:0000:0000:0001/128\t"
					 "fe80:0000:0000:0000:0202:b3ff:fe1e:8329/128\t10 : 10\t"
					 "1221 : 1221\t0x06/0xFF\t0x1000/0x1000\t",
					 &r, why, sizeof(why)),
			 1);
	assert_addr(r.src, "2001:db8::1");
	assert_int_equal(r.src_len, 128);
	assert_addr(r.dst, "fe80::202:b3ff:fe1e:8329");
	assert_int_equal(r.dst_len, 128);
	assert_int_equal(r.sport_lo, 10);
	assert_int_equal(r.sport_hi, 10);
	assert_int_equal(r.dport_lo, 1221);
	assert_int_equal(r.dport_hi, 1221);
	assert_int_equal(r.proto, 6);
	assert_int_equal(r.proto_mask, 0xff);
	assert_int_equal(r.action, ACL_DENY);

	/* Spaces, wildcards, host bits cleared inside a byte, an action. */
	assert_int_equal(acl6_parse_line("  @2001:db8:ffff:ffff::1/61 ::/0 0:65535  1024 :65535 "
					 "0x00/0x00 permit",
					 &r, why, sizeof(why)),
			 1);
	assert_addr(r.src, "2001:db8:ffff:fff8::");
	assert_int_equal(r.src_len, 61);
	assert_addr(r.dst, "::");
	assert_int_equal(r.dst_len, 0);
	assert_int_equal(r.sport_lo, 0);
	assert_int_equal(r.sport_hi, 65535);
	assert_int_equal(r.dport_lo, 1024);
	assert_int_equal(r.dport_hi, 65535);
	assert_int_equal(r.proto_mask, 0);
	assert_int_equal(r.action, ACL_PERMIT);

	/* IPv4-embedded text, /0 with host bits, /127; flags, action, comment. */
	assert_int_equal(acl6_parse_line("@::ffff:192.0.2.255/127\tffff::1/0\t1 : 2\t3 : 4\t"
					 "0x11/0x0F\t0x0000/0x0000\tdeny\t# x",
					 &r, why, sizeof(why)),
			 1);
	assert_addr(r.src, "::ffff:192.0.2.254");
	assert_int_equal(r.src_len, 127);
	assert_addr(r.dst, "::");
	assert_int_equal(r.dst_len, 0);
	assert_int_equal(r.proto, 0x01);
	assert_int_equal(r.proto_mask, 0x0f);
	assert_int_equal(r.action, ACL_DENY);

	/* Lengths at every word edge keep exactly their bits. */
	assert_int_equal(acl6_parse_line("@ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/33\t"
					 "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/97\t0 : 0\t"
					 "65535 : 65535\t0xFF/0xFF",
					 &r, why, sizeof(why)),
			 1);
	assert_addr(r.src, "ffff:ffff:8000::");
	assert_addr(r.dst, "ffff:ffff:ffff:ffff:ffff:ffff:8000:0");
	assert_int_equal(r.dport_lo, 65535);
}

/* ---- classification ---- */

static void
test_empty(void **state)
{
	struct acl6_rule_set s = { 0 };
	struct acl_ctx *ctx;
	struct pkt pkts[1000];
	char err[256];
	size_t i;
	int d;

	(void)state;
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkt_random(&pkts[i]);
	for (d = ACL_DENY; d <= ACL_PERMIT; d++) {
		ctx = acl6_build(&s, d, SOCKET_ID_ANY, err, sizeof(err));
		if (ctx == NULL)
			fail_msg("%s", err);
		assert_int_equal(acl_num_rules(ctx), 0);
		assert_int_equal(check_pkts(ctx, &s, d, pkts, RTE_DIM(pkts)), 0);
		assert_int_equal(acl_action(ctx, ACL_NO_MATCH), d);
		acl_free(ctx);
	}
}

/* A packet from text. */
static struct pkt
mkpkt(const char *src, const char *dst, uint16_t sport, uint16_t dport, uint8_t proto)
{
	uint8_t b[16];
	struct pkt p;

	assert_int_equal(inet_pton(AF_INET6, src, b), 1);
	p.src = to_u128(b);
	assert_int_equal(inet_pton(AF_INET6, dst, b), 1);
	p.dst = to_u128(b);
	p.sport = sport;
	p.dport = dport;
	p.proto = proto;
	return p;
}

/* Build from rule text, classify one packet, return the rule index. */
static uint32_t
classify_one(const char *rules, enum acl_action def, const struct pkt *p, enum acl_action *act)
{
	struct acl6_rule_set s;
	struct ref_rule *rr;
	struct acl_ctx *ctx;
	struct acl6_key k;
	const uint8_t *data[1] = { (const uint8_t *)&k };
	char path[64], err[512];
	uint32_t res;

	write_tmp(path, sizeof(path), rules);
	if (acl6_load(path, &s, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	unlink(path);
	ctx = acl6_build(&s, def, SOCKET_ID_ANY, err, sizeof(err));
	if (ctx == NULL)
		fail_msg("%s", err);
	to_key(p, &k);
	assert_int_equal(acl_classify(ctx, data, &res, 1), 0);
	rr = ref_rules(&s);
	assert_int_equal(res, ref_classify(rr, s.n, p));
	free(rr);
	*act = acl_action(ctx, res);
	acl_free(ctx);
	acl6_rule_set_free(&s);
	return res;
}

static void
test_first_match(void **state)
{
	/* A broad permit, a narrower deny inside it, one in the last word, a catch-all. */
	const char *rules = "@2001:db8::/32\t::/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit\n"
			    "@2001:db8:1::/48\t::/0\t0 : 65535\t80 : 80\t0x00/0x00\tdeny\n"
			    "@::/0\t2001:db8::ab00/120\t0 : 65535\t0 : 65535\t0x11/0xFF\tdeny\n"
			    "@::/0\t::/0\t0 : 65535\t0 : 65535\t0x00/0x00\tpermit\n";
	const char *twice = "@2001:db8::/32\t::/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tdeny\n"
			    "@2001:db8::/32\t::/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit\n";
	struct pkt tcp80 = mkpkt("2001:db8:1::5", "2001:db8::1", 1234, 80, 6);
	struct pkt udp80 = mkpkt("2001:db8:1::5", "2001:db8::1", 1234, 80, 17);
	struct pkt udp_last = mkpkt("2001:db8:2::5", "2001:db8::abff", 1234, 81, 17);
	struct pkt udp_out = mkpkt("2001:db8:2::5", "2001:db8::ac00", 1234, 81, 17);
	struct pkt other = mkpkt("2001:db9::1", "::1", 0, 0, 58);
	enum acl_action act;

	(void)state;
	assert_int_equal(classify_one(rules, ACL_DENY, &tcp80, &act), 0);
	assert_int_equal(act, ACL_PERMIT);
	assert_int_equal(classify_one(rules, ACL_PERMIT, &udp80, &act), 1);
	assert_int_equal(act, ACL_DENY);
	assert_int_equal(classify_one(rules, ACL_PERMIT, &udp_last, &act), 2);
	assert_int_equal(act, ACL_DENY);
	assert_int_equal(classify_one(rules, ACL_DENY, &udp_out, &act), 3);
	assert_int_equal(act, ACL_PERMIT);
	assert_int_equal(classify_one(rules, ACL_DENY, &other, &act), 3);
	assert_int_equal(act, ACL_PERMIT);
	/* The same rule twice: the first line wins. */
	assert_int_equal(classify_one(twice, ACL_PERMIT, &tcp80, &act), 0);
	assert_int_equal(act, ACL_DENY);
	assert_int_equal(classify_one(twice, ACL_PERMIT, &other, &act), ACL_NO_MATCH);
	assert_int_equal(act, ACL_PERMIT);
}

/* Build from s, classify pkts and compare with the reference. */
static size_t
check_set(const char *name, const struct acl6_rule_set *s, enum acl_action def,
	  const struct pkt *pkts, size_t n)
{
	struct acl_ctx *ctx;
	char err[512];
	size_t hits;

	ctx = acl6_build(s, def, SOCKET_ID_ANY, err, sizeof(err));
	if (ctx == NULL)
		fail_msg("%s: %s", name, err);
	assert_int_equal(acl_num_rules(ctx), s->n);
	hits = check_pkts(ctx, s, def, pkts, n);
	print_message("%s: %zu rules, %zu packets, %zu matched a rule\n", name, s->n, n, hits);
	acl_free(ctx);
	return hits;
}

static void
check_derived(const char *name, size_t want_rules)
{
	struct acl6_rule_set s;
	struct pkt *pkts;
	char path[PATH_MAX], err[512];
	size_t i, j, hits, n = 0, long_len = 0, short_len = 0;
	long nr;

	data_path(path, sizeof(path), name);
	nr = acl6_load(path, &s, err, sizeof(err));
	if (nr < 0)
		fail_msg("%s", err);
	/* A changed or truncated file fails rather than weakens the test. */
	assert_int_equal(nr, want_rules);
	/* The sets reach into every word: lengths above 96 and below 32. */
	for (i = 0; i < s.n; i++) {
		long_len += s.r[i].src_len > 96 || s.r[i].dst_len > 96;
		short_len += (s.r[i].src_len > 0 && s.r[i].src_len < 32) ||
			(s.r[i].dst_len > 0 && s.r[i].dst_len < 32);
	}
	assert_true(long_len > 0 && short_len > 0);
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
	 * Without the broad rules (both prefixes together shorter than 64 bits,
	 * the catch-all among them), so that packets miss and get the default.
	 */
	for (i = j = 0; i < s.n; i++)
		if (s.r[i].src_len + s.r[i].dst_len >= 64)
			s.r[j++] = s.r[i];
	assert_true(j < s.n);
	s.n = j;
	hits = check_set(name, &s, ACL_DENY, pkts, n);
	assert_true(hits < n);

	free(pkts);
	acl6_rule_set_free(&s);
}

static void
test_derived_acl1_1k(void **state)
{
	(void)state;
	check_derived("acl1_1k_v6", 942);
}

static void
test_derived_fw1_1k(void **state)
{
	(void)state;
	check_derived("fw1_1k_v6", 857);
}

static void
test_derived_ipc1_1k(void **state)
{
	(void)state;
	check_derived("ipc1_1k_v6", 974);
}

static void
test_derived_acl1_10k(void **state)
{
	(void)state;
	check_derived("acl1_10k_v6", 9774);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* Errors first. */
		cmocka_unit_test(test_parse_invalid),
		cmocka_unit_test(test_load_invalid),
		cmocka_unit_test(test_wrong_family),
		cmocka_unit_test(test_parse_valid),
		/* Then classification. */
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_first_match),
		cmocka_unit_test(test_derived_acl1_1k),
		cmocka_unit_test(test_derived_fw1_1k),
		cmocka_unit_test(test_derived_ipc1_1k),
		cmocka_unit_test(test_derived_acl1_10k),
	};

	return cmocka_run_group_tests_name("acl6", tests, group_setup, group_teardown);
}
