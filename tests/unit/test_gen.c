/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lanefwd-gen's pure logic (src/gen/gen.h), no EAL: flow keys
 * read back from generated frames, flow selection distributions against
 * theory (chi-square bounds, Zipf rank frequencies from the directly summed
 * normaliser), IMIX proportions, the pacing schedule against exact 128-bit
 * arithmetic, stamp round trips and corrupt/short payloads, checksums
 * against DPDK's own verifiers, per-flow sequence accounting against a set
 * oracle, and the NDR search on synthetic loss models.
 */
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "gen.h"

static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t smac[6] = { 2, 0, 0, 0, 0, 2 };
static const uint8_t dip4[4] = { 10, 1, 0, 1 };
static const uint8_t sip4[4] = { 198, 18, 0, 1 };
static const uint8_t dip6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
static const uint8_t sip6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff, [15] = 1 };

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------- flows */

static void
test_flows_invalid(void **state)
{
	struct gen_flows fl;
	char err[256];

	(void)state;
	assert_int_equal(gen_flows_init(&fl, 0, 1, 0, 1024, err, sizeof(err)), -EINVAL);
	assert_int_equal(gen_flows_init(&fl, GEN_MAX_FLOWS + 1, 1, 0, 1024, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(gen_flows_init(&fl, 10, 11, 0, 1024, err, sizeof(err)), -EINVAL);
	/* 2 sources x ports 65535..65535 hold 2 flows, not 3. */
	assert_int_equal(gen_flows_init(&fl, 3, 1, 2, 65535, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--sport 65535"));
	assert_int_equal(gen_flows_init(&fl, 2, 1, 2, 65535, err, sizeof(err)), 0);
	/* Automatic sources: min(flows / dst, 65536). */
	assert_int_equal(gen_flows_init(&fl, 16u << 20, 1, 0, 1024, err, sizeof(err)), 0);
	assert_int_equal(fl.n_src, 65536);
	assert_int_equal(gen_flows_init(&fl, 1000, 10, 0, 1024, err, sizeof(err)), 0);
	assert_int_equal(fl.n_src, 100);
}

/*
 * Count the distinct 5-tuples of n_flows flows, read back from the frames
 * the generator builds (addresses and ports at their wire offsets).
 */
static uint64_t
distinct_tuples(uint8_t family, uint32_t n_flows, uint32_t n_dst, uint32_t n_src)
{
	struct gen_pkt_tmpl t;
	struct gen_flows fl;
	struct gen_flow_tuple ft;
	uint8_t buf[128];
	uint64_t *keys, distinct = 0;
	char err[256];
	uint32_t f;

	assert_int_equal(gen_flows_init(&fl, n_flows, n_dst, n_src, 1024, err, sizeof(err)), 0);
	gen_pkt_tmpl_init(&t, family, IPPROTO_UDP, dmac, smac, family == 4 ? dip4 : dip6,
			  family == 4 ? sip4 : sip6, 5001, 64);
	keys = malloc(sizeof(*keys) * n_flows);
	assert_non_null(keys);
	memset(buf, 0, sizeof(buf));
	for (f = 0; f < n_flows; f++) {
		const unsigned int alen = family == 4 ? 4 : 16;
		const uint8_t *src = buf + t.l3_off + (family == 4 ? 12 : 8);
		const uint8_t *dst = src + alen;
		const uint8_t *l4 = buf + t.l4_off;
		uint64_t h = 1469598103934665603ull; /* FNV-1a over the tuple. */
		unsigned int i;

		gen_flow_tuple(&fl, f, &ft);
		gen_pkt_build(&t, buf, &ft, t.min_frame, GEN_MAGIC, f, 0);
		for (i = 0; i < alen; i++)
			h = (h ^ src[i]) * 1099511628211ull;
		for (i = 0; i < alen; i++)
			h = (h ^ dst[i]) * 1099511628211ull;
		for (i = 0; i < 4; i++)
			h = (h ^ l4[i]) * 1099511628211ull;
		/* The low bits keep the exact (dst, src, sport) low parts too. */
		keys[f] = h;
	}
	qsort(keys, n_flows, sizeof(*keys), cmp_u64);
	for (f = 0; f < n_flows; f++)
		distinct += f == 0 || keys[f] != keys[f - 1];
	free(keys);
	return distinct;
}

static void
test_flows_distinct(void **state)
{
	(void)state;
	assert_int_equal(distinct_tuples(4, 1, 1, 0), 1);
	assert_int_equal(distinct_tuples(4, 100000, 1, 0), 100000);
	assert_int_equal(distinct_tuples(4, 100003, 7, 0), 100003);
	/* Few sources: the source port carries the rest. */
	assert_int_equal(distinct_tuples(4, 50000, 3, 5), 50000);
	assert_int_equal(distinct_tuples(6, 70000, 1, 0), 70000);
	assert_int_equal(distinct_tuples(4, 1u << 21, 1, 0), 1u << 21);
}

/* -------------------------------------------------------- selection */

/* Pearson chi-square of counts against expected values. */
static double
chi_square(const uint64_t *count, const double *expect, unsigned int n)
{
	double chi = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		chi += (count[i] - expect[i]) * (count[i] - expect[i]) / expect[i];
	return chi;
}

static void
test_select_uniform(void **state)
{
	const uint32_t n = 1000;
	const uint64_t draws = 2000000;
	struct gen_select sel;
	uint64_t *count = calloc(n, sizeof(*count));
	double *expect = malloc(n * sizeof(*expect));
	double chi, sd = sqrt(2.0 * (n - 1));
	uint64_t k;
	uint32_t i;

	(void)state;
	assert_non_null(count);
	assert_non_null(expect);
	gen_select_init(&sel, GEN_DIST_UNIFORM, n, 0, 42);
	for (k = 0; k < draws; k++) {
		uint32_t f = gen_select_next(&sel);

		assert_true(f < n);
		count[f]++;
	}
	for (i = 0; i < n; i++)
		expect[i] = (double)draws / n;
	chi = chi_square(count, expect, n);
	/* Chi-square with n-1 degrees of freedom: mean n-1, sd sqrt(2(n-1)). A
	 * 6-sigma band fails a biased generator and a too-regular one. */
	assert_true(chi < (n - 1) + 6 * sd);
	assert_true(chi > (n - 1) - 6 * sd);
	free(count);
	free(expect);
}

static void
test_select_seq(void **state)
{
	const uint32_t n = 1009;
	struct gen_select sel;
	uint32_t k;

	(void)state;
	gen_select_init(&sel, GEN_DIST_SEQ, n, 0, 1);
	for (k = 0; k < 3 * n; k++)
		assert_int_equal(gen_select_next(&sel), k % n);
	gen_select_init(&sel, GEN_DIST_SEQ, 1, 0, 1);
	assert_int_equal(gen_select_next(&sel), 0);
	assert_int_equal(gen_select_next(&sel), 0);
}

/* Zipf over n ranks with exponent s: rank frequencies against theory. */
static void
check_zipf(uint32_t n, double s, uint64_t draws)
{
	struct gen_select sel;
	uint64_t *count = calloc(n, sizeof(*count));
	uint64_t bins_c[4096];
	double bins_e[4096];
	double norm = 0, acc_e = 0, chi;
	uint64_t k, acc_c = 0;
	unsigned int nb = 0;
	uint32_t i;

	assert_non_null(count);
	for (i = 1; i <= n; i++)
		norm += pow(i, -s);
	gen_select_init(&sel, GEN_DIST_ZIPF, n, s, 7);
	for (k = 0; k < draws; k++) {
		uint32_t f = gen_select_next(&sel);

		assert_true(f < n);
		count[f]++;
	}
	/* The top ranks one by one: within 5 binomial standard deviations. */
	for (i = 0; i < 20 && i < n; i++) {
		double p = pow(i + 1, -s) / norm;
		double sd = sqrt(draws * p * (1 - p));

		assert_true(fabs((double)count[i] - draws * p) <= 5 * sd + 1);
	}
	/* All ranks: consecutive ranks merged until each bin expects >= 50. */
	for (i = 0; i < n; i++) {
		acc_e += draws * pow(i + 1, -s) / norm;
		acc_c += count[i];
		if (acc_e >= 50 || i == n - 1) {
			assert_true(nb < 4096);
			bins_e[nb] = acc_e;
			bins_c[nb] = acc_c;
			nb++;
			acc_e = 0;
			acc_c = 0;
		}
	}
	chi = chi_square(bins_c, bins_e, nb);
	assert_true(nb >= RTE_MIN(n, 10u));
	if (nb > 1)
		assert_true(chi < (nb - 1) + 6 * sqrt(2.0 * (nb - 1)));
	else
		assert_int_equal(count[0], draws);
	free(count);
}

static void
test_select_zipf(void **state)
{
	(void)state;
	check_zipf(1000, 1.0, 2000000);
	check_zipf(1000, 0.7, 2000000);
	check_zipf(100, 1.3, 1000000);
	check_zipf(10, 2.5, 500000);
	check_zipf(1, 1.0, 1000);
}

/* 16M flows: no table, and rank 1 still has probability 1/H(n, s). */
static void
test_select_zipf_large(void **state)
{
	const uint32_t n = 16u << 20;
	const uint64_t draws = 1000000;
	struct gen_select sel;
	double norm = 0, p1, sd;
	uint64_t k, top = 0, tail = 0;
	uint32_t i;

	(void)state;
	for (i = 1; i <= n; i++)
		norm += pow(i, -0.9);
	gen_select_init(&sel, GEN_DIST_ZIPF, n, 0.9, 3);
	for (k = 0; k < draws; k++) {
		uint32_t f = gen_select_next(&sel);

		assert_true(f < n);
		top += f == 0;
		tail += f >= n / 2;
	}
	p1 = 1 / norm;
	sd = sqrt(draws * p1 * (1 - p1));
	assert_true(fabs((double)top - draws * p1) <= 5 * sd);
	assert_true(tail > 0); /* The long tail is reached. */
}

/* ------------------------------------------------------------ sizes */

static void
test_sizes_invalid(void **state)
{
	static const char *const bad[] = {
		"",    "63",   "9601",       "abc", "64:0",    "64:",
		"64,", "64;1", "64:7;570:4", ",64", "64:4097", "64:3000,128:2000",
	};
	struct gen_sizes sz;
	char err[256];
	bool raised;
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++)
		assert_int_equal(gen_sizes_parse(&sz, bad[i], 64, &raised, err, sizeof(err)),
				 -EINVAL);
}

static void
test_sizes_imix(void **state)
{
	struct gen_sizes sz;
	uint64_t n64 = 0, n570 = 0, n1518 = 0;
	char err[256];
	bool raised;
	unsigned int k, j;

	(void)state;
	assert_int_equal(gen_sizes_parse(&sz, "imix", 64, &raised, err, sizeof(err)), 0);
	assert_false(raised);
	assert_int_equal(sz.cycle_len, 12);
	for (k = 0; k < 12000; k++) {
		uint16_t s = gen_sizes_next(&sz);

		n64 += s == 64;
		n570 += s == 570;
		n1518 += s == 1518;
	}
	assert_int_equal(n64, 7000);
	assert_int_equal(n570, 4000);
	assert_int_equal(n1518, 1000);
	assert_true(fabs(gen_sizes_mean(&sz) - (7 * 64 + 4 * 570 + 1518) / 12.0) < 1e-9);
	/* Spread out: no run of more than two 64-byte frames in a row. */
	for (k = 0; k + 2 < 12; k++)
		assert_false(sz.cycle[k] == 64 && sz.cycle[k + 1] == 64 && sz.cycle[k + 2] == 64);
	/* Every window of one cycle has the exact proportions. */
	for (k = 0; k < 12; k++) {
		unsigned int c64 = 0;

		for (j = 0; j < 12; j++)
			c64 += sz.cycle[(k + j) % 12] == 64;
		assert_int_equal(c64, 7);
	}
	/* A custom mix, and sizes raised to the minimum. */
	assert_int_equal(gen_sizes_parse(&sz, "64:1,100:3,1500", 80, &raised, err, sizeof(err)), 0);
	assert_true(raised);
	assert_int_equal(sz.n, 3);
	assert_int_equal(sz.size[0], 80);
	assert_int_equal(sz.cycle_len, 5);
	assert_int_equal(gen_sizes_parse(&sz, "128", 64, &raised, err, sizeof(err)), 0);
	assert_false(raised);
	assert_int_equal(gen_sizes_next(&sz), 128);
	assert_int_equal(gen_sizes_next(&sz), 128);
}

/* ----------------------------------------------------------- pacing */

/* Packet k is due at start + floor(k * hz / pps), exactly, however long. */
static void
check_schedule(uint64_t hz, uint64_t pps, uint64_t packets)
{
	const uint64_t start = 123456789;
	struct gen_pace p;
	uint64_t k;

	gen_pace_init(&p, hz, pps, 0, 0, start);
	for (k = 0; k < packets; k++) {
		uint64_t due = start + (uint64_t)((unsigned __int128)k * hz / pps);

		assert_int_equal(p.next, due);
		/* Not due one cycle early; due on time. */
		assert_int_equal(gen_pace_due(&p, due - 1, 1), 0);
		assert_int_equal(gen_pace_due(&p, due, 1), 1);
	}
}

static void
test_pace_schedule(void **state)
{
	(void)state;
	check_schedule(2600000000ull, 1000000, 100000);
	check_schedule(2999999999ull, 7000001, 1000000);
	check_schedule(1000000000ull, 3, 1000);
	check_schedule(3100000000ull, 14880952, 2000000);
}

/* Polled at random intervals, the count due over a window is rate * window. */
static void
test_pace_window(void **state)
{
	const uint64_t hz = 2594123456ull, pps = 3333333;
	const uint64_t start = 1000, window = 10 * hz;
	uint64_t now = start, total = 0, rng = 99, expect;
	struct gen_pace p;

	(void)state;
	gen_pace_init(&p, hz, pps, 0, 0, start);
	now = start;
	while (now < start + window) {
		total += gen_pace_due(&p, now, 32);
		now += 1 + gen_rand_below(&rng, 20000);
	}
	total += gen_pace_due(&p, start + window - 1, UINT32_MAX);
	/* Packets due in [start, start + window): ceil(window * pps / hz). */
	expect = (uint64_t)(((unsigned __int128)window * pps + hz - 1) / hz);
	assert_int_equal(total, expect);
	/* Unpaced: everything asked is due. */
	gen_pace_init(&p, hz, 0, 0, 0, start);
	assert_int_equal(gen_pace_due(&p, start, 32), 32);
}

/* On/off: packets only in the on part, at the rate, the off part not caught up. */
static void
test_pace_on_off(void **state)
{
	const uint64_t hz = 1000000000ull, pps = 1000000;
	const uint64_t start = 5000, on_us = 100, off_us = 300;
	uint64_t now, total = 0;
	struct gen_pace p;

	(void)state;
	gen_pace_init(&p, hz, pps, on_us, off_us, start);
	for (now = start; now < start + hz; now += 97) {
		unsigned int n = gen_pace_due(&p, now, 64);
		uint64_t pos = (now - start) % ((on_us + off_us) * 1000);

		if (pos >= on_us * 1000)
			assert_int_equal(n, 0);
		total += n;
	}
	/* 2500 periods x 100 packets per 100 us on. */
	assert_int_equal(total, 2500 * 100);
	/* A long gap in the polls: no burst to catch up the off time. */
	gen_pace_init(&p, hz, pps, on_us, off_us, start);
	assert_int_equal(gen_pace_due(&p, start + 10 * 400000 + 10500, 1000), 11);
}

/* ------------------------------------------------------------ stamp */

static void
test_stamp_round_trip(void **state)
{
	uint64_t rng = 5;
	uint8_t b[GEN_STAMP_LEN];
	struct gen_stamp st;
	unsigned int k;

	(void)state;
	for (k = 0; k < 100000; k++) {
		uint32_t flow = (uint32_t)gen_rand64(&rng), seq = (uint32_t)gen_rand64(&rng);
		uint64_t tsc = gen_rand64(&rng);
		uint16_t magic = k & 1 ? GEN_MAGIC : GEN_MAGIC_WARMUP;

		gen_stamp_put_id(b, magic, flow, seq);
		gen_stamp_put_tsc(b, tsc);
		assert_int_equal(gen_stamp_get(b, sizeof(b), &st), GEN_STAMP_OK);
		assert_int_equal(st.magic, magic);
		assert_int_equal(st.flow, flow);
		assert_int_equal(st.seq, seq);
		assert_int_equal(st.tsc, tsc & GEN_TSC_MASK);
	}
}

static void
test_stamp_reject(void **state)
{
	uint8_t b[GEN_STAMP_LEN], c[GEN_STAMP_LEN];
	struct gen_stamp st;
	unsigned int len, i, bit;

	(void)state;
	gen_stamp_put_id(b, GEN_MAGIC, 0x01020304, 0xa0b0c0d0);
	gen_stamp_put_tsc(b, 0x123456789abcull);
	for (len = 0; len < GEN_STAMP_LEN; len++)
		assert_int_equal(gen_stamp_get(b, len, &st), GEN_STAMP_SHORT);
	/* Every single-bit error is caught: as a foreign magic or a bad check. */
	for (i = 0; i < GEN_STAMP_LEN; i++) {
		for (bit = 0; bit < 8; bit++) {
			int rc;

			memcpy(c, b, sizeof(c));
			c[i] ^= 1u << bit;
			rc = gen_stamp_get(c, sizeof(c), &st);
			assert_int_equal(rc, i < 2 ? GEN_STAMP_MAGIC : GEN_STAMP_CORRUPT);
		}
	}
	/* Zeros (someone else's payload) are not a stamp. */
	memset(c, 0, sizeof(c));
	assert_int_equal(gen_stamp_get(c, sizeof(c), &st), GEN_STAMP_MAGIC);
	/* Two bytes swapped within a 16-bit word are caught (a ones'-complement
	 * sum misses swapped words: the receiver also range-checks the flow id). */
	memcpy(c, b, sizeof(c));
	c[2] = b[3];
	c[3] = b[2];
	assert_int_equal(gen_stamp_get(c, sizeof(c), &st), GEN_STAMP_CORRUPT);
}

/* Frames: offsets, lengths and checksums against DPDK's verifiers. */
static void
check_frame(uint8_t family, uint8_t proto, uint16_t size, unsigned int expect_hdr)
{
	uint8_t buf[2048];
	struct gen_pkt_tmpl t;
	struct gen_flow_tuple ft = { .dst_off = 5, .src_off = 300, .sport = 4000 };
	struct gen_stamp st;
	uint16_t len;
	int off;

	gen_pkt_tmpl_init(&t, family, proto, dmac, smac, family == 4 ? dip4 : dip6,
			  family == 4 ? sip4 : sip6, 5001, 64);
	assert_int_equal(t.hdr_len, expect_hdr);
	assert_int_equal(t.min_frame, RTE_MAX(expect_hdr + GEN_STAMP_LEN + 4, 64u));
	if (size < t.min_frame)
		size = t.min_frame;
	memset(buf, 0, sizeof(buf));
	len = gen_pkt_build(&t, buf, &ft, size, GEN_MAGIC, 77, 1234);
	gen_pkt_finish(&t, buf, 0xabcdef012345ull);
	assert_int_equal(len, size - 4);
	off = gen_payload_offset(buf, len);
	assert_int_equal(off, expect_hdr);
	assert_int_equal(gen_stamp_get(buf + off, len - off, &st), GEN_STAMP_OK);
	assert_int_equal(st.flow, 77);
	assert_int_equal(st.seq, 1234);
	assert_int_equal(st.tsc, 0xabcdef012345ull);
	if (family == 4) {
		const struct rte_ipv4_hdr *ip = (const void *)(buf + 14);

		assert_int_equal(rte_be_to_cpu_16(ip->total_length), len - 14);
		assert_int_equal(rte_ipv4_cksum(ip), 0); /* a valid header sums to 0 */
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, buf + t.l4_off), 0);
		/* dst 10.1.0.1 + 5, src 198.18.0.1 + 300 */
		assert_int_equal(buf[14 + 18] * 256 + buf[14 + 19], 6);
		assert_int_equal(buf[14 + 14] * 256 + buf[14 + 15], 301);
	} else {
		const struct rte_ipv6_hdr *ip6 = (const void *)(buf + 14);

		assert_int_equal(rte_be_to_cpu_16(ip6->payload_len), len - 54);
		assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip6, buf + t.l4_off), 0);
		assert_int_equal(ip6->dst_addr[15], 6);
	}
	assert_int_equal(buf[t.l4_off] * 256 + buf[t.l4_off + 1], 4000);
	/* Truncated frames: no offset, or a short stamp. */
	assert_int_equal(gen_payload_offset(buf, 13), -1);
	assert_int_equal(gen_payload_offset(buf, 14 + 10), -1);
	if (off >= 0)
		assert_int_equal(gen_stamp_get(buf + off, t.hdr_len + 10 - off, &st),
				 GEN_STAMP_SHORT);
}

static void
test_frames(void **state)
{
	uint8_t buf[256] = { 0 };
	struct gen_pkt_tmpl t;
	struct gen_flow_tuple ft = { 0, 0, 1024 };
	uint16_t len;

	(void)state;
	check_frame(4, IPPROTO_UDP, 64, 42);
	check_frame(4, IPPROTO_UDP, 1518, 42);
	check_frame(4, IPPROTO_TCP, 64, 54);
	check_frame(4, IPPROTO_TCP, 570, 54);
	check_frame(6, IPPROTO_UDP, 64, 62);
	check_frame(6, IPPROTO_TCP, 64, 74);
	check_frame(6, IPPROTO_TCP, 1518, 74);
	/* A VLAN tag in front moves the payload by 4; a non-IP type has none. */
	gen_pkt_tmpl_init(&t, 4, IPPROTO_UDP, dmac, smac, dip4, sip4, 5001, 64);
	len = gen_pkt_build(&t, buf + 4, &ft, 64, GEN_MAGIC, 1, 1);
	memmove(buf, buf + 4, 12);
	buf[12] = 0x81;
	buf[13] = 0x00;
	buf[14] = 0;
	buf[15] = 7;
	buf[16] = 0x08;
	buf[17] = 0x00;
	assert_int_equal(gen_payload_offset(buf, len + 4), 46);
	buf[16] = 0x08;
	buf[17] = 0x06; /* ARP */
	assert_int_equal(gen_payload_offset(buf, len + 4), -1);
}

/* ------------------------------------------------------- accounting */

static void
test_seq_crafted(void **state)
{
	struct gen_flow_rx fr = { 0 };
	uint32_t s;

	(void)state;
	for (s = 0; s < 100; s++)
		assert_int_equal(gen_seq_account(&fr, s), GEN_SEQ_NEW);
	assert_int_equal(gen_seq_account(&fr, 99), GEN_SEQ_DUP);
	assert_int_equal(gen_seq_account(&fr, 98), GEN_SEQ_DUP);
	assert_int_equal(gen_seq_account(&fr, 102), GEN_SEQ_NEW); /* 100, 101 missing */
	assert_int_equal(gen_seq_account(&fr, 100), GEN_SEQ_LATE);
	assert_int_equal(gen_seq_account(&fr, 100), GEN_SEQ_DUP);
	assert_int_equal(gen_seq_account(&fr, 101), GEN_SEQ_LATE);
	assert_int_equal(gen_seq_account(&fr, 102 - 31), GEN_SEQ_DUP); /* edge of window */
	assert_int_equal(gen_seq_account(&fr, 102 - 32), GEN_SEQ_LATE_OLD);
	/* A jump beyond the window forgets the old window. */
	assert_int_equal(gen_seq_account(&fr, 1000), GEN_SEQ_NEW);
	assert_int_equal(gen_seq_account(&fr, 999), GEN_SEQ_LATE);
	assert_int_equal(gen_seq_account(&fr, 1000 - 31), GEN_SEQ_LATE);
	/* Wrap-around in serial-number arithmetic. */
	memset(&fr, 0, sizeof(fr));
	assert_int_equal(gen_seq_account(&fr, 0xfffffffeu), GEN_SEQ_NEW);
	assert_int_equal(gen_seq_account(&fr, 0xffffffffu), GEN_SEQ_NEW);
	assert_int_equal(gen_seq_account(&fr, 1), GEN_SEQ_NEW);
	assert_int_equal(gen_seq_account(&fr, 0), GEN_SEQ_LATE);
	assert_int_equal(gen_seq_account(&fr, 0xffffffffu), GEN_SEQ_DUP);
	/* The first packet of a flow may have any number. */
	memset(&fr, 0, sizeof(fr));
	assert_int_equal(gen_seq_account(&fr, 77), GEN_SEQ_NEW);
	assert_int_equal(gen_seq_account(&fr, 76), GEN_SEQ_LATE);
}

/*
 * Random traffic over 50 flows with losses, duplicates and reordering by
 * less than the window; counts against an oracle that keeps every sequence
 * number seen (a set) and each flow's maximum.
 */
static void
test_seq_oracle(void **state)
{
	enum { FLOWS = 50, PER_FLOW = 2000, N = FLOWS * PER_FLOW * 2 };
	struct gen_flow_rx fr[FLOWS];
	static uint8_t seen[FLOWS][PER_FLOW];
	int64_t omax[FLOWS];
	static uint32_t ev_flow[N], ev_seq[N];
	uint32_t next[FLOWS] = { 0 };
	uint64_t rng = 11, n = 0, dup = 0, late = 0, odup = 0, olate = 0, sent = 0, unique = 0;
	uint64_t k;
	unsigned int f;

	(void)state;
	memset(fr, 0, sizeof(fr));
	memset(seen, 0, sizeof(seen));
	for (f = 0; f < FLOWS; f++)
		omax[f] = -1;
	/* Emit: each flow's packets in order, some lost, some duplicated. */
	while (sent < (uint64_t)FLOWS * PER_FLOW) {
		f = gen_rand_below(&rng, FLOWS);
		if (next[f] == PER_FLOW)
			continue;
		sent++;
		if (gen_rand_below(&rng, 100) < 3) { /* lost */
			next[f]++;
			continue;
		}
		ev_flow[n] = f;
		ev_seq[n++] = next[f];
		if (gen_rand_below(&rng, 100) < 2) { /* duplicated */
			ev_flow[n] = f;
			ev_seq[n++] = next[f];
		}
		next[f]++;
	}
	/* Reorder: swap events at most 5 apart (any flow moves < 32 back). */
	for (k = 0; k + 5 < n; k++) {
		if (gen_rand_below(&rng, 100) < 10) {
			uint64_t j = k + 1 + gen_rand_below(&rng, 5);
			uint32_t tf = ev_flow[k], ts = ev_seq[k];

			ev_flow[k] = ev_flow[j];
			ev_seq[k] = ev_seq[j];
			ev_flow[j] = tf;
			ev_seq[j] = ts;
		}
	}
	for (k = 0; k < n; k++) {
		enum gen_seq_kind kind = gen_seq_account(&fr[ev_flow[k]], ev_seq[k]);

		f = ev_flow[k];
		if (seen[f][ev_seq[k]]) {
			odup++;
		} else {
			seen[f][ev_seq[k]] = 1;
			unique++;
			if ((int64_t)ev_seq[k] < omax[f])
				olate++;
		}
		if ((int64_t)ev_seq[k] > omax[f])
			omax[f] = ev_seq[k];
		assert_int_not_equal(kind, GEN_SEQ_LATE_OLD);
		dup += kind == GEN_SEQ_DUP;
		late += kind == GEN_SEQ_LATE;
	}
	assert_true(odup > 100 && olate > 100);
	assert_int_equal(dup, odup);
	assert_int_equal(late, olate);
	assert_int_equal(n - dup, unique);
}

/* ----------------------------------------------------------- search */

/* A device that forwards up to cap pps and drops the excess (1 s trials). */
static uint64_t
run_search(uint64_t cap, uint64_t gen_max, uint64_t hi, uint64_t precision, double floor_loss,
	   unsigned int *trials)
{
	struct gen_search s;
	uint64_t rate;

	gen_search_init(&s, 0, hi, 1e-5, precision, 60);
	while ((rate = gen_search_next(&s)) != 0) {
		uint64_t offered = RTE_MIN(rate, gen_max);
		uint64_t rx = RTE_MIN(offered, cap);

		rx -= (uint64_t)ceil(rx * floor_loss); /* at least one packet when > 0 */
		gen_search_result(&s, offered, rx, offered);
	}
	*trials = s.trials;
	return s.lo;
}

static void
test_search(void **state)
{
	unsigned int trials;
	uint64_t ndr;

	(void)state;
	assert_false(gen_loss_ok(0, 0, 0.1));
	assert_true(gen_loss_ok(100000, 99999, 1e-5));
	assert_false(gen_loss_ok(100000, 99998, 1e-5));
	assert_true(gen_loss_ok(10, 12, 0)); /* duplicates never count as negative loss */
	/* Converges below the capacity, within the precision, in log2 steps. */
	ndr = run_search(3456789, UINT64_MAX, 10000000, 1000, 0, &trials);
	assert_true(ndr <= 3456789 && ndr + 1000 >= 3456789);
	assert_true(trials <= 2 + 14);
	/* A loss floor under the ratio still passes; one above fails everywhere. */
	ndr = run_search(3456789, UINT64_MAX, 10000000, 1000, 5e-6, &trials);
	assert_true(ndr <= 3456789 && ndr + 1000 >= 3456789);
	ndr = run_search(3456789, UINT64_MAX, 10000000, 1000, 2e-5, &trials);
	assert_int_equal(ndr, 0);
	/* The device outruns the generator: the first trial passes at what the
	 * generator reached, and the search ends there. */
	ndr = run_search(50000000, 5000000, UINT64_MAX / 2, 1000, 0, &trials);
	assert_int_equal(ndr, 5000000);
	assert_int_equal(trials, 1);
	/* The generator is slower than hi but faster than the device. */
	ndr = run_search(1000000, 5000000, UINT64_MAX / 2, 1000, 0, &trials);
	assert_true(ndr <= 1000000 && ndr + 1000 >= 1000000);
	/* Nothing forwards at all. */
	ndr = run_search(0, UINT64_MAX, 1000000, 100, 0, &trials);
	assert_int_equal(ndr, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flows_invalid),  cmocka_unit_test(test_flows_distinct),
		cmocka_unit_test(test_select_uniform), cmocka_unit_test(test_select_seq),
		cmocka_unit_test(test_select_zipf),    cmocka_unit_test(test_select_zipf_large),
		cmocka_unit_test(test_sizes_invalid),  cmocka_unit_test(test_sizes_imix),
		cmocka_unit_test(test_pace_schedule),  cmocka_unit_test(test_pace_window),
		cmocka_unit_test(test_pace_on_off),    cmocka_unit_test(test_stamp_round_trip),
		cmocka_unit_test(test_stamp_reject),   cmocka_unit_test(test_frames),
		cmocka_unit_test(test_seq_crafted),    cmocka_unit_test(test_seq_oracle),
		cmocka_unit_test(test_search),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
