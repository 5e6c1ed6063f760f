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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ------------------------------------------------------------ GTP-U */

static const uint8_t n3_4[4] = { 192, 168, 3, 1 };
static const uint8_t gnb_4[4] = { 192, 168, 3, 2 };
static const uint8_t n3_6[16] = { 0xfd, 0, 0, 3, [15] = 1 };
static const uint8_t gnb_6[16] = { 0xfd, 0, 0, 3, [15] = 2 };
static const uint8_t ue_4[4] = { 10, 45, 0, 1 };
static const uint8_t ue_6[16] = { 0xfd, 0, 0, 0x45, [15] = 1 };

static unsigned int
rd16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
gtpu_conf(struct gen_gtpu *g, uint8_t mode, uint8_t ofam, uint32_t sessions, uint32_t n_gnb)
{
	memset(g, 0, sizeof(*g));
	g->mode = mode;
	g->family = ofam;
	g->qfi = 9;
	g->sessions = sessions;
	g->teid_base = 0x1000;
	g->n_gnb = n_gnb;
	memcpy(g->n3_ip, ofam == 4 ? n3_4 : n3_6, ofam == 4 ? 4 : 16);
	memcpy(g->gnb_ip, ofam == 4 ? gnb_4 : gnb_6, ofam == 4 ? 4 : 16);
}

/*
 * An uplink template: inner family ifam from UE ue_base + s to dip4/dip6,
 * outer family ofam. Sessions are the source digit (as gen_opts sets them).
 */
static void
ul_tmpl(struct gen_pkt_tmpl *t, struct gen_gtpu *g, uint8_t ifam, uint8_t ofam, uint8_t proto,
	uint32_t sessions, uint32_t n_gnb)
{
	gtpu_conf(g, GEN_GTPU_UL, ofam, sessions, n_gnb);
	gen_pkt_tmpl_init(t, ifam, proto, dmac, smac, ifam == 4 ? dip4 : dip6,
			  ifam == 4 ? ue_4 : ue_6, 5001, 64);
	gen_pkt_tmpl_gtpu(t, g);
}

/*
 * One uplink frame checked field by field at its wire offsets, with
 * DPDK's checksum verifiers reading the whole datagrams (so the outer UDP
 * checksum is right with the TSC stamped in, and the inner one too).
 */
static void
check_gtpu_ul(uint8_t ifam, uint8_t ofam, uint8_t proto, uint16_t size, uint32_t s, uint32_t n_gnb)
{
	const unsigned int oalen = ofam == 4 ? 4 : 16;
	const unsigned int oip = ofam == 4 ? 20 : 40, iip = ifam == 4 ? 20 : 40;
	const unsigned int l4h = proto == IPPROTO_UDP ? 8 : 20;
	uint8_t buf[2048], want[16];
	struct gen_pkt_tmpl t;
	struct gen_gtpu g;
	struct gen_flows fl;
	struct gen_flow_tuple ft = { .dst_off = 0, .src_off = s, .sport = 4000 };
	struct gen_rx_tun tun;
	struct gen_stamp st;
	const uint8_t *o, *u, *gtp, *in;
	char err[256];
	uint16_t len;
	uint32_t low;
	int off;

	ul_tmpl(&t, &g, ifam, ofam, proto, 1000, n_gnb);
	assert_int_equal(t.encap_len, 14 + oip + 8 + 16 - 14 + 0);
	/* Sizes stay inner: the smallest is what plain IP of that family needs. */
	assert_int_equal(t.min_frame, RTE_MAX(14u + iip + l4h + GEN_STAMP_LEN + 4, 64u));
	if (size < t.min_frame)
		size = t.min_frame;
	memset(buf, 0, sizeof(buf));
	len = gen_pkt_build(&t, buf, &ft, size, GEN_MAGIC, 77, 1234);
	gen_pkt_finish(&t, buf, 0xabcdef012345ull);
	assert_int_equal(len, size - 4 + oip + 8 + 16);
	/* Ethernet: the outer family. */
	assert_int_equal(rd16(buf + 12), ofam == 4 ? 0x0800 : 0x86dd);
	o = buf + 14;
	u = o + oip;
	gtp = u + 8;
	in = gtp + 16;
	assert_int_equal(in - buf, t.l3_off);
	/* Outer IP: lengths, UDP, addresses gnb + s % n_gnb -> n3. */
	memcpy(want, ofam == 4 ? gnb_4 : gnb_6, oalen);
	low = rd32(want + oalen - 4) + s % n_gnb;
	want[oalen - 4] = low >> 24;
	want[oalen - 3] = (low >> 16) & 0xff;
	want[oalen - 2] = (low >> 8) & 0xff;
	want[oalen - 1] = low & 0xff;
	if (ofam == 4) {
		const struct rte_ipv4_hdr *ip = (const void *)o;

		assert_int_equal(o[0], 0x45);
		assert_int_equal(rd16(o + 2), len - 14);
		assert_int_equal(o[9], IPPROTO_UDP);
		assert_int_equal(o[8], 64);
		assert_int_equal(rte_ipv4_cksum(ip), 0);
		assert_memory_equal(o + 12, want, 4);
		assert_memory_equal(o + 16, n3_4, 4);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, u), 0);
	} else {
		const struct rte_ipv6_hdr *ip6 = (const void *)o;

		assert_int_equal(o[0] >> 4, 6);
		assert_int_equal(rd16(o + 4), len - 14 - 40);
		assert_int_equal(o[6], IPPROTO_UDP);
		assert_memory_equal(o + 8, want, 16);
		assert_memory_equal(o + 24, n3_6, 16);
		assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip6, u), 0);
	}
	/* UDP 2152 -> 2152, length to the end of the frame. */
	assert_int_equal(rd16(u), 2152);
	assert_int_equal(rd16(u + 2), 2152);
	assert_int_equal(rd16(u + 4), len - 14 - oip);
	assert_int_not_equal(rd16(u + 6), 0);
	/* GTP-U: v1, PT, E only; G-PDU; length = all after the mandatory 8 octets. */
	assert_int_equal(gtp[0], 0x34);
	assert_int_equal(gtp[1], 0xff);
	assert_int_equal(rd16(gtp + 2), len - (gtp - buf) - 8);
	assert_int_equal(rd32(gtp + 4), 0x1000 + s);
	assert_int_equal(rd16(gtp + 8), 0); /* sequence number */
	assert_int_equal(gtp[10], 0); /* N-PDU number */
	assert_int_equal(gtp[11], 0x85); /* next: PDU Session Container */
	/* PSC: length 1 (x 4 octets), UL PDU SESSION INFORMATION, QFI, no next. */
	assert_int_equal(gtp[12], 1);
	assert_int_equal(gtp[13], 0x10);
	assert_int_equal(gtp[14], 9);
	assert_int_equal(gtp[15], 0);
	/* Inner packet: exactly the frame size asked for once the outer header goes. */
	assert_int_equal(14 + (len - (in - buf)) + 4, size);
	if (ifam == 4) {
		const struct rte_ipv4_hdr *ip = (const void *)in;

		assert_int_equal(in[0], 0x45);
		assert_int_equal(rd16(in + 2), len - (in - buf));
		assert_int_equal(in[9], proto);
		assert_int_equal(rte_ipv4_cksum(ip), 0);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, in + 20), 0);
		assert_int_equal(rd32(in + 12), rd32(ue_4) + s);
		assert_memory_equal(in + 16, dip4, 4);
	} else {
		const struct rte_ipv6_hdr *ip6 = (const void *)in;

		assert_int_equal(rd16(in + 4), len - (in - buf) - 40);
		assert_int_equal(in[6], proto);
		assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip6, in + 40), 0);
		/* An IPv6 UE is a /64: session s is the UE base's prefix + s. */
		assert_memory_equal(in + 8, ue_6, 4);
		assert_int_equal(rd32(in + 8 + 4), rd32(ue_6 + 4) + s);
		assert_memory_equal(in + 8 + 8, ue_6 + 8, 8);
		assert_memory_equal(in + 24, dip6, 16);
	}
	assert_int_equal(rd16(in + iip), 4000);
	assert_int_equal(t.hdr_len, (in - buf) + iip + l4h);
	/* The receiver finds the inner stamp and describes the tunnel. */
	off = gen_payload_offset_gtpu(buf, len, &tun);
	assert_int_equal(off, t.hdr_len);
	assert_true(tun.encap);
	assert_true(tun.has_psc);
	assert_int_equal(tun.family, ofam);
	assert_int_equal(tun.pdu_type, GEN_PSC_UL);
	assert_int_equal(tun.qfi, 9);
	assert_int_equal(tun.teid, 0x1000 + s);
	assert_int_equal(tun.outer_l3, 14);
	assert_int_equal(gen_stamp_get(buf + off, len - off, &st), GEN_STAMP_OK);
	assert_int_equal(st.flow, 77);
	assert_int_equal(st.seq, 1234);
	assert_int_equal(st.tsc, 0xabcdef012345ull);
	/* The plain parser sees UDP to 2152 with no stamp after it. */
	off = gen_payload_offset(buf, len);
	assert_int_equal(off, 14 + oip + 8);
	assert_int_equal(gen_stamp_get(buf + off, len - off, &st), GEN_STAMP_MAGIC);
	/* Back still encapsulated: not what an uplink run expects. */
	assert_int_equal(gen_flows_init(&fl, 1000, 1, 1000, 1024, err, sizeof(err)), 0);
	assert_false(gen_gtpu_rx_ok(&g, &fl, 77, buf, &tun));
}

static void
test_gtpu_ul_frames(void **state)
{
	static const uint16_t sizes[] = { 64, 65, 100, 570, 1518 };
	unsigned int i, k;

	(void)state;
	for (i = 0; i < RTE_DIM(sizes); i++) {
		for (k = 0; k < 8; k++) {
			uint8_t ifam = k & 1 ? 6 : 4, ofam = k & 2 ? 6 : 4;
			uint8_t proto = k & 4 ? IPPROTO_TCP : IPPROTO_UDP;

			check_gtpu_ul(ifam, ofam, proto, sizes[i], 0, 1);
			check_gtpu_ul(ifam, ofam, proto, sizes[i], 999, 1);
			check_gtpu_ul(ifam, ofam, proto, sizes[i], 7, 3);
		}
	}
}

/*
 * Every flow of an uplink run: its TEID and gNB are its UE's, every session
 * is used, and frame sizes follow IMIX on the inner frame.
 */
static void
test_gtpu_ul_sessions(void **state)
{
	const uint32_t sessions = 1000, n_flows = 4000;
	struct gen_pkt_tmpl t;
	struct gen_gtpu g;
	struct gen_flows fl;
	struct gen_flow_tuple ft;
	struct gen_sizes sz;
	uint8_t buf[2048];
	uint8_t *seen;
	char err[256];
	bool raised;
	uint32_t f, n_seen = 0;

	(void)state;
	ul_tmpl(&t, &g, 4, 4, IPPROTO_UDP, sessions, 4);
	/* As gen_opts sets an uplink run: 2 remote addresses, the UEs as sources. */
	assert_int_equal(gen_flows_init(&fl, n_flows, 2, sessions, 1024, err, sizeof(err)), 0);
	assert_int_equal(gen_sizes_parse(&sz, "imix", t.min_frame, &raised, err, sizeof(err)), 0);
	assert_false(raised);
	seen = calloc(sessions, 1);
	assert_non_null(seen);
	memset(buf, 0, sizeof(buf));
	for (f = 0; f < n_flows; f++) {
		uint16_t size = gen_sizes_next(&sz), len;
		uint32_t teid, ue;

		gen_flow_tuple(&fl, f, &ft);
		len = gen_pkt_build(&t, buf, &ft, size, GEN_MAGIC, f, 0);
		assert_int_equal(len, size - 4 + GEN_GTPU_ENCAP4);
		teid = rd32(buf + 14 + 20 + 8 + 4);
		ue = rd32(buf + 14 + GEN_GTPU_ENCAP4 + 12) - rd32(ue_4);
		assert_int_equal(teid - 0x1000, ue);
		assert_true(ue < sessions);
		assert_int_equal(rd32(buf + 14 + 12), rd32(gnb_4) + ue % 4);
		n_seen += !seen[ue];
		seen[ue] = 1;
		/* Clear the payload again: the TX pool's frames are zeros past the headers. */
		memset(buf, 0, sizeof(buf));
	}
	assert_int_equal(n_seen, sessions);
	free(seen);
}

/*
 * A downlink frame as a UPF sends it, built here independently of the
 * generator's encapsulation code: the generator's own downlink frame (plain
 * IP to UE ue_base + s) behind outer IP n3 -> gnb + s % n_gnb, UDP 2152,
 * GTP-U with E (and S when with_seq) and a DL PDU Session Container.
 * Returns the frame length.
 */
static uint16_t
dl_frame(uint8_t *buf, uint8_t ifam, uint8_t ofam, uint32_t s, uint32_t flow, uint32_t n_gnb,
	 uint32_t teid, uint8_t qfi, bool with_seq)
{
	const unsigned int oip = ofam == 4 ? 20 : 40, oalen = ofam == 4 ? 4 : 16;
	const unsigned int encap = oip + 8 + 16;
	struct gen_pkt_tmpl t;
	struct gen_gtpu g;
	struct gen_flow_tuple ft = { .dst_off = s, .src_off = 0, .sport = 1024 };
	uint8_t plain[2048], *o = buf + 14, *u = buf + 14 + oip, *gtp = u + 8;
	uint16_t plen, len;
	uint32_t low;

	gtpu_conf(&g, GEN_GTPU_DL, ofam, 1000, n_gnb);
	gen_pkt_tmpl_init(&t, ifam, IPPROTO_UDP, dmac, smac, ifam == 4 ? ue_4 : ue_6,
			  ifam == 4 ? sip4 : sip6, 5001, 64);
	gen_pkt_tmpl_gtpu(&t, &g);
	memset(plain, 0, sizeof(plain));
	plen = gen_pkt_build(&t, plain, &ft, 100, GEN_MAGIC, flow, 5);
	gen_pkt_finish(&t, plain, 42);
	len = plen + encap;
	memset(buf, 0, len);
	memcpy(buf, plain, 12);
	buf[12] = ofam == 4 ? 0x08 : 0x86;
	buf[13] = ofam == 4 ? 0x00 : 0xdd;
	memcpy(buf + 14 + encap, plain + 14, plen - 14);
	if (ofam == 4) {
		o[0] = 0x45;
		o[2] = (len - 14) >> 8;
		o[3] = (len - 14) & 0xff;
		o[8] = 64;
		o[9] = IPPROTO_UDP;
		memcpy(o + 12, n3_4, 4);
		memcpy(o + 16, gnb_4, 4);
	} else {
		o[0] = 0x60;
		o[4] = (len - 14 - 40) >> 8;
		o[5] = (len - 14 - 40) & 0xff;
		o[6] = IPPROTO_UDP;
		o[7] = 64;
		memcpy(o + 8, n3_6, 16);
		memcpy(o + 24, gnb_6, 16);
	}
	low = rd32(o + (ofam == 4 ? 16 : 24) + oalen - 4) + s % n_gnb;
	o[(ofam == 4 ? 16 : 24) + oalen - 1] = low & 0xff;
	o[(ofam == 4 ? 16 : 24) + oalen - 2] = (low >> 8) & 0xff;
	u[0] = 2152 >> 8;
	u[1] = 2152 & 0xff;
	u[2] = 2152 >> 8;
	u[3] = 2152 & 0xff;
	u[4] = (len - 14 - oip) >> 8;
	u[5] = (len - 14 - oip) & 0xff;
	gtp[0] = with_seq ? 0x36 : 0x34;
	gtp[1] = 0xff;
	gtp[2] = (len - 14 - oip - 16) >> 8;
	gtp[3] = (len - 14 - oip - 16) & 0xff;
	gtp[4] = teid >> 24;
	gtp[5] = (teid >> 16) & 0xff;
	gtp[6] = (teid >> 8) & 0xff;
	gtp[7] = teid & 0xff;
	gtp[8] = with_seq ? 0x12 : 0;
	gtp[11] = 0x85;
	gtp[12] = 1;
	gtp[13] = GEN_PSC_DL << 4;
	gtp[14] = qfi;
	gtp[15] = 0;
	return len;
}

static void
test_gtpu_dl_rx(void **state)
{
	uint8_t buf[2048], plain[2048];
	struct gen_gtpu g;
	struct gen_flows fl;
	struct gen_rx_tun tun;
	struct gen_stamp st;
	struct gen_pkt_tmpl t;
	struct gen_flow_tuple ft;
	char err[256];
	uint16_t len;
	unsigned int k;
	int off;

	(void)state;
	/* As gen_opts sets a downlink run: the UEs are the destination digit. */
	assert_int_equal(gen_flows_init(&fl, 3000, 1000, 0, 1024, err, sizeof(err)), 0);
	for (k = 0; k < 8; k++) {
		const uint8_t ifam = k & 1 ? 6 : 4, ofam = k & 2 ? 6 : 4;
		const bool seq = k & 4;
		const uint32_t flow = 2345; /* session 345 */
		const uint32_t teid = 0x1000 + 345;

		gtpu_conf(&g, GEN_GTPU_DL, ofam, 1000, 3);
		len = dl_frame(buf, ifam, ofam, 345, flow, 3, teid, 9, seq);
		off = gen_payload_offset_gtpu(buf, len, &tun);
		assert_int_equal(off,
				 14 + (ofam == 4 ? 20 : 40) + 8 + 16 + (ifam == 4 ? 20 : 40) + 8);
		assert_true(tun.encap);
		assert_int_equal(tun.teid, teid);
		assert_int_equal(tun.pdu_type, GEN_PSC_DL);
		assert_int_equal(gen_stamp_get(buf + off, len - off, &st), GEN_STAMP_OK);
		assert_int_equal(st.flow, flow);
		assert_int_equal(st.seq, 5);
		assert_int_equal(st.tsc, 42);
		assert_true(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
		/* Another session's flow, TEID, QFI, gNB or N3 address: a mismatch. */
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow + 1, buf, &tun));
		len = dl_frame(buf, ifam, ofam, 345, flow, 3, teid + 1, 9, seq);
		assert_true(gen_payload_offset_gtpu(buf, len, &tun) > 0);
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
		len = dl_frame(buf, ifam, ofam, 345, flow, 3, teid, 8, seq);
		assert_true(gen_payload_offset_gtpu(buf, len, &tun) > 0);
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
		len = dl_frame(buf, ifam, ofam, 346, flow, 3, teid, 9, seq);
		assert_true(gen_payload_offset_gtpu(buf, len, &tun) > 0);
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
		len = dl_frame(buf, ifam, ofam, 345, flow, 3, teid, 9, seq);
		buf[14 + (ofam == 4 ? 15 : 23)] ^= 1; /* outer source: not our N3 */
		assert_true(gen_payload_offset_gtpu(buf, len, &tun) > 0);
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
		/* An UL PSC, or none (E clear, the 4 octets kept by S), is not a DL one. */
		len = dl_frame(buf, ifam, ofam, 345, flow, 3, teid, 9, seq);
		buf[14 + (ofam == 4 ? 20 : 40) + 8 + 13] = GEN_PSC_UL << 4;
		assert_true(gen_payload_offset_gtpu(buf, len, &tun) > 0);
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
		len = dl_frame(buf, ifam, ofam, 345, flow, 3, teid, 9, seq);
		buf[14 + (ofam == 4 ? 20 : 40) + 8] = 0x32; /* S only: next type ignored */
		off = gen_payload_offset_gtpu(buf, len, &tun);
		assert_int_equal(off, -1); /* the PSC's octets are then taken as the inner packet */
		/* The other family outside than the run expects. */
		g.family = ofam == 4 ? 6 : 4;
		len = dl_frame(buf, ifam, ofam, 345, flow, 3, teid, 9, seq);
		assert_true(gen_payload_offset_gtpu(buf, len, &tun) > 0);
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
		/* Plain IP (the UPF did not encapsulate): a mismatch downlink, right uplink. */
		g.family = ofam;
		gen_pkt_tmpl_init(&t, ifam, IPPROTO_UDP, dmac, smac, ifam == 4 ? ue_4 : ue_6,
				  ifam == 4 ? sip4 : sip6, 5001, 64);
		gen_pkt_tmpl_gtpu(&t, &g);
		gen_flow_tuple(&fl, flow, &ft);
		memset(plain, 0, sizeof(plain));
		len = gen_pkt_build(&t, plain, &ft, 64, GEN_MAGIC, flow, 0);
		assert_int_equal(t.encap_len, 0);
		off = gen_payload_offset_gtpu(plain, len, &tun);
		assert_int_equal(off, gen_payload_offset(plain, len));
		assert_false(tun.encap);
		assert_false(gen_gtpu_rx_ok(&g, &fl, flow, plain, &tun));
		g.mode = GEN_GTPU_UL;
		assert_true(gen_gtpu_rx_ok(&g, &fl, flow, plain, &tun));
		g.mode = GEN_GTPU_NONE;
		assert_true(gen_gtpu_rx_ok(&g, &fl, flow, buf, &tun));
	}
}

/* gen_payload_offset_gtpu on a copy of exactly len bytes (an over-read is a sanitizer error). */
static int
parse_exact(const uint8_t *frame, uint32_t len, struct gen_rx_tun *tun)
{
	uint8_t *c = malloc(len != 0 ? len : 1);
	int off;

	assert_non_null(c);
	memcpy(c, frame, len);
	off = gen_payload_offset_gtpu(c, len, tun);
	free(c);
	return off;
}

/* Malformed GTP-U: every truncation, lengths and extension chains that run off. */
static void
test_gtpu_malformed(void **state)
{
	const unsigned int g = 14 + 20 + 8; /* GTP-U header of an IPv4 outer frame */
	uint8_t buf[2048], m[2048];
	struct gen_rx_tun tun;
	uint16_t len;
	uint32_t l;
	int off, good;

	(void)state;
	len = dl_frame(buf, 4, 4, 1, 1, 1, 0x1001, 9, false);
	good = gen_payload_offset_gtpu(buf, len, &tun);
	assert_true(good > 0);
	/* Truncated anywhere: the UDP length no longer fits, so nothing is found. */
	for (l = 0; l < len; l++)
		assert_int_equal(parse_exact(buf, l, &tun), -1);
	assert_int_equal(parse_exact(buf, len, &tun), good);
	/* A UDP length past the frame; a GTP-U length past the datagram. */
	memcpy(m, buf, len);
	m[14 + 20 + 5]++;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	memcpy(m, buf, len);
	m[g + 3]++;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	/* A shorter GTP-U length ends the inner packet early: too short for its header. */
	memcpy(m, buf, len);
	m[g + 2] = 0;
	m[g + 3] = 4 + 4 + 10;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	/* Version 2, PT 0 (GTP'), and messages that are not G-PDUs (Echo, End Marker). */
	memcpy(m, buf, len);
	m[g] = 0x54;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	memcpy(m, buf, len);
	m[g] = 0x24;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	memcpy(m, buf, len);
	m[g + 1] = 1;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	memcpy(m, buf, len);
	m[g + 1] = 254;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	/* An extension header of length 0, one longer than what is left. */
	memcpy(m, buf, len);
	m[g + 12] = 0;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	memcpy(m, buf, len);
	m[g + 12] = 255;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	/* The frame ends with the PSC, whose length says 8 octets where 4 are left. */
	memcpy(m, buf, len);
	m[14 + 2] = 0;
	m[14 + 3] = 20 + 8 + 16;
	m[14 + 20 + 4] = 0;
	m[14 + 20 + 5] = 8 + 16;
	m[g + 2] = 0;
	m[g + 3] = 8;
	m[g + 12] = 2;
	assert_int_equal(parse_exact(m, g + 16, &tun), -1);
	m[g + 12] = 1;
	assert_int_equal(parse_exact(m, g + 16, &tun), -1); /* no inner packet */
	/* A chain that never ends within the GTP-U length: runs off, no over-read. */
	memcpy(m, buf, len);
	m[g + 15] = 0x85;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	/* A chain as long as the packet allows: refused beyond GEN_GTPU_EXT_MAX. */
	memcpy(m, buf, len);
	for (l = 0; l < 20; l++) {
		m[g + 12 + 4 * l] = 1;
		m[g + 15 + 4 * l] = 0x85;
	}
	assert_int_equal(parse_exact(m, len, &tun), -1);
	/* An unknown extension type is walked over by its length. */
	memcpy(m, buf, len);
	memmove(m + g + 16 + 4, m + g + 16, len - g - 16);
	m[g + 11] = 0x40; /* UDP Port extension, then the PSC */
	m[g + 12] = 1;
	m[g + 13] = 0x12;
	m[g + 14] = 0x34;
	m[g + 15] = 0x85;
	m[g + 16] = 1;
	m[g + 17] = GEN_PSC_DL << 4;
	m[g + 18] = 9;
	m[g + 19] = 0;
	m[14 + 3] += 4;
	m[14 + 20 + 5] += 4;
	m[g + 3] += 4;
	off = parse_exact(m, len + 4, &tun);
	assert_int_equal(off, good + 4);
	assert_true(tun.has_psc);
	assert_int_equal(tun.qfi, 9);
	/* Not an IP version inside. */
	memcpy(m, buf, len);
	m[g + 16] = 0x55;
	assert_int_equal(parse_exact(m, len, &tun), -1);
	/* Random bytes after the outer UDP header never read past the frame. */
	{
		uint64_t rng = 99;
		unsigned int k, i;

		for (k = 0; k < 20000; k++) {
			memcpy(m, buf, len);
			for (i = 0; i < 4; i++)
				m[g + gen_rand_below(&rng, len - g)] = (uint8_t)gen_rand64(&rng);
			if (k & 1)
				m[g + gen_rand_below(&rng, 20)] = (uint8_t)gen_rand64(&rng);
			off = parse_exact(m, 1 + gen_rand_below(&rng, len), &tun);
			assert_true(off <= (int)len);
		}
	}
}

/* A pcap record header and frame, little-endian as the file header says. */
static void
pcap_put(FILE *f, const uint8_t *frame, uint32_t len)
{
	uint32_t rec[4] = { 0, 0, len, len };

	assert_int_equal(fwrite(rec, sizeof(rec), 1, f), 1);
	assert_int_equal(fwrite(frame, len, 1, f), 1);
}

/*
 * Uplink frames of every family and protocol combination, sizes and
 * sessions, checked by an independent reader: gen_gtpu_check.py (scapy's
 * GTP-U and PDU Session Container classes, and tshark's gtp dissector).
 */
static void
test_gtpu_scapy(void **state)
{
	static const uint16_t sizes[] = { 64, 570, 1518 };
	static const uint32_t sess[] = { 0, 1, 2, 999 };
	const uint32_t pcap_hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	const char *data = getenv("LF_TESTDATA");
	char path[] = "/tmp/lf_gen_gtpu_XXXXXX", cmd[1024];
	unsigned int i, j, k, frames = 0;
	uint8_t buf[2048];
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(pcap_hdr, sizeof(pcap_hdr), 1, f), 1);
	for (k = 0; k < 8; k++) {
		for (i = 0; i < RTE_DIM(sizes); i++) {
			for (j = 0; j < RTE_DIM(sess); j++) {
				struct gen_pkt_tmpl t;
				struct gen_gtpu g;
				struct gen_flow_tuple ft = { 0, sess[j], (uint16_t)(1024 + j) };
				uint16_t len;

				ul_tmpl(&t, &g, k & 1 ? 6 : 4, k & 2 ? 6 : 4,
					k & 4 ? IPPROTO_TCP : IPPROTO_UDP, 1000, 3);
				memset(buf, 0, sizeof(buf));
				len = gen_pkt_build(&t, buf, &ft, RTE_MAX(sizes[i], t.min_frame),
						    GEN_MAGIC, frames, j);
				gen_pkt_finish(&t, buf, 0x123456789abull * (frames + 1));
				pcap_put(f, buf, len);
				frames++;
			}
		}
	}
	assert_int_equal(fclose(f), 0);
	/* The script sits beside this test; LF_TESTDATA is tests/data under meson. */
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 %s/../unit/gen_gtpu_check.py %s --teid-base 4096 --qfi 9 "
		 "--sessions 1000 --gnb-ips 3 --sizes 64,76,84,96,570,1518 --min-frames %u",
		 data != NULL ? data : "tests/data", path, frames);
	assert_int_equal(system(cmd), 0);
	unlink(path);
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

/*
 * Backpressure is the forwarder's limit: a trial whose TX the PMD refused
 * beyond the ratio fails even with nothing lost, and so does an unpaced
 * first trial (it is then never "generator-bound").
 */
static void
test_trial_backpressure(void **state)
{
	struct gen_search s;

	(void)state;
	assert_true(gen_trial_ok(1000000, 1000000, 0, 0));
	assert_false(gen_trial_ok(1000000, 1000000, 1, 0));
	assert_true(gen_trial_ok(1000000, 1000000, 5000, 0.005));
	assert_false(gen_trial_ok(1000000, 1000000, 5001, 0.005));
	assert_false(gen_trial_ok(1000000, 994999, 0, 0.005)); /* loss alone */
	assert_false(gen_trial_ok(0, 0, 0, 0.5)); /* sent nothing: proves nothing */
	/* The unpaced first trial lost nothing but was refused: not done, hi lowered. */
	gen_search_init(&s, 0, 1000000000000ull, 1e-5, 1000, 20);
	assert_int_equal(gen_search_next(&s), 1000000000000ull);
	assert_false(gen_search_result_bp(&s, 5000000, 5000000, 20000, 5000000));
	assert_false(s.done);
	assert_int_equal(s.hi, 5000000);
	assert_int_equal(s.lo, 0);
	/* The same trial without refusals is the generator's limit: done at it. */
	gen_search_init(&s, 0, 1000000000000ull, 1e-5, 1000, 20);
	gen_search_next(&s);
	assert_true(gen_search_result_bp(&s, 5000000, 5000000, 0, 5000000));
	assert_true(s.done);
	assert_int_equal(s.lo, 5000000);
}

/* --trials request lines. */
static void
test_trial_line(void **state)
{
	uint64_t pps = 7;
	double d = 0;

	(void)state;
	assert_int_equal(gen_trial_line("1000000 2\n", &pps, &d), 0);
	assert_int_equal(pps, 1000000);
	assert_true(d == 2.0);
	assert_int_equal(gen_trial_line("  max\t0.5 ", &pps, &d), 0);
	assert_int_equal(pps, 0);
	assert_true(d == 0.5);
	assert_int_equal(gen_trial_line("0 1", &pps, &d), 0);
	assert_int_equal(pps, 0);
	assert_int_equal(gen_trial_line("4.5e6 10", &pps, &d), 0);
	assert_int_equal(pps, 4500000);
	assert_int_equal(gen_trial_line("\n", &pps, &d), 1);
	assert_int_equal(gen_trial_line("# comment", &pps, &d), 1);
	assert_int_equal(gen_trial_line("1000", &pps, &d), -1); /* no duration */
	assert_int_equal(gen_trial_line("1000 0", &pps, &d), -1);
	assert_int_equal(gen_trial_line("1000 -1", &pps, &d), -1);
	assert_int_equal(gen_trial_line("-5 1", &pps, &d), -1);
	assert_int_equal(gen_trial_line("1000 2 x", &pps, &d), -1);
	assert_int_equal(gen_trial_line("1k 2", &pps, &d), -1);
	assert_int_equal(gen_trial_line("maxx 2", &pps, &d), -1);
	assert_int_equal(gen_trial_line("1000 7200", &pps, &d), -1);
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
		cmocka_unit_test(test_flows_invalid),    cmocka_unit_test(test_flows_distinct),
		cmocka_unit_test(test_select_uniform),   cmocka_unit_test(test_select_seq),
		cmocka_unit_test(test_select_zipf),      cmocka_unit_test(test_select_zipf_large),
		cmocka_unit_test(test_sizes_invalid),    cmocka_unit_test(test_sizes_imix),
		cmocka_unit_test(test_pace_schedule),    cmocka_unit_test(test_pace_window),
		cmocka_unit_test(test_pace_on_off),      cmocka_unit_test(test_stamp_round_trip),
		cmocka_unit_test(test_stamp_reject),     cmocka_unit_test(test_frames),
		cmocka_unit_test(test_seq_crafted),      cmocka_unit_test(test_seq_oracle),
		cmocka_unit_test(test_search),           cmocka_unit_test(test_trial_backpressure),
		cmocka_unit_test(test_trial_line),       cmocka_unit_test(test_gtpu_ul_frames),
		cmocka_unit_test(test_gtpu_ul_sessions), cmocka_unit_test(test_gtpu_dl_rx),
		cmocka_unit_test(test_gtpu_malformed),   cmocka_unit_test(test_gtpu_scapy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
