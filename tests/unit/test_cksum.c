/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the incremental IPv4 checksum update (include/cksum.h,
 * RFC 1624 eqn. 3) as the rewrite stage applies it to a TTL decrement: the
 * result must equal a full recompute (rte_ipv4_cksum over the header with the
 * checksum field zeroed, and an independent RFC 1071 sum) for the edge cases
 * (checksum 0x0000 and its other representation 0xffff, every checksum value
 * crossed with every TTL) and for 1,000,000 random headers with options;
 * and the one-add form on the TTL/protocol/checksum word, exhaustively.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>

#include "cksum.h"

#define RANDOM_HEADERS 1000000u
#define HDR_MAX 60

/* xorshift64*: reproducible, the seed is printed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* RFC 1071 checksum over LEN bytes, written independently of DPDK; host order. */
static uint16_t
ref_cksum(const uint8_t *h, unsigned int len)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static unsigned int
hdr_len(const uint8_t *h)
{
	return (h[0] & 0xf) * 4;
}

/* Full recompute with the checksum field zeroed, in network order. */
static uint16_t
full_cksum(const uint8_t *h)
{
	uint8_t copy[HDR_MAX] __rte_aligned(8);
	uint16_t dpdk, ref;

	memcpy(copy, h, hdr_len(h));
	copy[10] = copy[11] = 0;
	dpdk = rte_ipv4_cksum((const struct rte_ipv4_hdr *)copy);
	ref = ref_cksum(copy, hdr_len(h));
	/* Both references agree before either is trusted. */
	assert_int_equal(dpdk, rte_cpu_to_be_16(ref));
	return dpdk;
}

/* What the rewrite stage (rewrite_pkt.h) does to the header: TTL - 1 and RFC 1624 update. */
static void
decrement_ttl(uint8_t *h)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)h;
	uint16_t old, new;

	memcpy(&old, &ip->time_to_live, sizeof(old));
	ip->time_to_live--;
	memcpy(&new, &ip->time_to_live, sizeof(new));
	ip->hdr_checksum = lf_cksum_update16(ip->hdr_checksum, old, new);
}

/* A header verifies when its one's complement sum is 0xffff (-0). */
static int
verifies(const uint8_t *h)
{
	return rte_raw_cksum(h, hdr_len(h)) == 0xffff;
}

static void
set_cksum(uint8_t *h, uint16_t be)
{
	memcpy(h + 10, &be, sizeof(be));
}

static uint16_t
get_cksum(const uint8_t *h)
{
	uint16_t v;

	memcpy(&v, h + 10, sizeof(v));
	return v;
}

/* A fixed 20-byte header, checksum zero. */
static void
base_header(uint8_t *h, uint8_t ttl, uint8_t proto)
{
	static const uint8_t tpl[20] = {
		0x45, 0x00, 0x00, 0x54, 0x12, 0x34, 0x40, 0x00, 64,  17,
		0,    0,    192,  0,    2,    1,    198,  51,   100, 7,
	};

	memcpy(h, tpl, sizeof(tpl));
	h[8] = ttl;
	h[9] = proto;
}

/* Choose the id field so that the header's correct checksum is 0x0000. */
static void
force_zero_cksum(uint8_t *h)
{
	uint16_t c;

	h[4] = h[5] = 0;
	set_cksum(h, 0);
	c = full_cksum(h);
	/* Adding ~sum to the sum gives 0xffff, so the checksum becomes 0. */
	memcpy(h + 4, &c, sizeof(c));
	set_cksum(h, 0);
	assert_int_equal(full_cksum(h), 0x0000);
}

static void
test_cksum_zero_representations(void **state)
{
	uint8_t h[HDR_MAX] __rte_aligned(8);
	uint8_t h2[HDR_MAX] __rte_aligned(8);
	unsigned int ttl;

	(void)state;
	for (ttl = 2; ttl <= 255; ttl++) {
		base_header(h, ttl, 6);
		force_zero_cksum(h);
		/* 0x0000 and 0xffff are both a valid checksum of this header. */
		set_cksum(h, 0x0000);
		assert_true(verifies(h));
		memcpy(h2, h, 20);
		set_cksum(h2, 0xffff);
		assert_true(verifies(h2));

		decrement_ttl(h);
		decrement_ttl(h2);
		assert_int_equal(h[8], ttl - 1);
		assert_int_equal(get_cksum(h), full_cksum(h));
		assert_int_equal(get_cksum(h2), full_cksum(h2));
		assert_true(verifies(h));
		assert_true(verifies(h2));
		/* The update never produces 0xffff, as a recompute never does. */
		assert_int_not_equal(get_cksum(h), 0xffff);
	}
}

/* Headers whose checksum becomes 0x0000 after the decrement. */
static void
test_cksum_result_zero(void **state)
{
	uint8_t h[HDR_MAX] __rte_aligned(8);
	unsigned int ttl, proto;

	(void)state;
	for (ttl = 2; ttl <= 255; ttl++) {
		for (proto = 0; proto < 256; proto += 17) {
			/* Build the decremented header with checksum 0, then step back. */
			base_header(h, ttl - 1, proto);
			force_zero_cksum(h);
			h[8] = ttl;
			set_cksum(h, full_cksum(h));
			assert_true(verifies(h));
			decrement_ttl(h);
			assert_int_equal(get_cksum(h), 0x0000);
			assert_int_equal(full_cksum(h), 0x0000);
			assert_true(verifies(h));
		}
	}
}

/*
 * Set the id field of the header h, whose other fields (id and checksum
 * taken as 0) sum to ~rest, so that the header carries exactly the checksum
 * value hc and verifies: id = -(rest + hc) in one's complement.
 */
static void
set_id_for_cksum(uint8_t *h, uint32_t rest, uint32_t hc)
{
	uint32_t sum = rest + hc;
	uint16_t id;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	id = (uint16_t)~sum;
	h[4] = id >> 8;
	h[5] = id & 0xff;
	h[10] = hc >> 8;
	h[11] = hc & 0xff;
}

/*
 * Every checksum value 0x0000..0xffff crossed with every TTL 2..255: the id
 * field is chosen so that the header carries exactly that checksum value and
 * verifies. 16.6 million updates, each compared with a recompute.
 */
static void
test_cksum_every_value_every_ttl(void **state)
{
	uint8_t h[HDR_MAX] __rte_aligned(8);
	uint32_t hc, ttl, rest;
	uint16_t want, got;
	uint64_t checked = 0;

	(void)state;
	for (ttl = 2; ttl <= 255; ttl++) {
		base_header(h, ttl, 17);
		h[4] = h[5] = 0;
		set_cksum(h, 0);
		/* Host-order one's complement sum of everything but id and checksum. */
		rest = (uint16_t)~ref_cksum(h, 20);
		for (hc = 0; hc <= 0xffff; hc++) {
			uint32_t old_w, new_w;

			set_id_for_cksum(h, rest, hc);
			/* The header verifies with this exact checksum value. */
			if (ref_cksum(h, 20) != 0)
				fail_msg("ttl %u hc 0x%04x: header does not verify", ttl, hc);
			old_w = (uint32_t)h[8] << 8 | h[9];
			new_w = old_w - 0x100;
			got = lf_cksum_update16(rte_cpu_to_be_16(hc), rte_cpu_to_be_16(old_w),
						rte_cpu_to_be_16(new_w));
			/* The TTL-only form the rewrite stage uses gives the same. */
			if (lf_cksum_ttl_dec(rte_cpu_to_be_16(hc)) != got)
				fail_msg("ttl %u hc 0x%04x: lf_cksum_ttl_dec differs", ttl, hc);
			/* Recompute with TTL - 1. */
			h[8]--;
			h[10] = h[11] = 0;
			want = rte_cpu_to_be_16(ref_cksum(h, 20));
			h[8]++;
			if (got != want)
				fail_msg("ttl %u hc 0x%04x: update 0x%04x, recompute 0x%04x", ttl,
					 hc, rte_be_to_cpu_16(got), rte_be_to_cpu_16(want));
			checked++;
		}
	}
	assert_int_equal(checked, 254u * 65536u);
}

/*
 * The one-add form on the TTL/protocol/checksum word (what lf_ipv4_ttl_dec
 * runs on little endian), exhaustively: every checksum value 0x0000..0xffff
 * crossed with every TTL 2..255 and a set of protocols (the add must leave
 * the protocol byte alone), each header built to carry exactly that
 * checksum and verify. The result must equal a full recompute and
 * lf_cksum_ttl_dec. No value is skipped: 0xffff verifies (it is 0x0000's
 * other representation), and 0xffff and 0xfeff are exactly the two inputs
 * the plain add would get wrong, so they are the ones that matter most.
 */
static void
test_cksum_word_every_value(void **state)
{
	static const uint8_t protos[] = { 0, 1, 6, 17, 58, 255 };
	uint8_t h[HDR_MAX] __rte_aligned(8);
	uint32_t hc, ttl, rest, w;
	unsigned int p;
	uint16_t want;
	uint64_t checked = 0, slow = 0;

	(void)state;
	for (p = 0; p < RTE_DIM(protos); p++) {
		for (ttl = 2; ttl <= 255; ttl++) {
			base_header(h, ttl, protos[p]);
			h[4] = h[5] = 0;
			set_cksum(h, 0);
			rest = (uint16_t)~ref_cksum(h, 20);
			for (hc = 0; hc <= 0xffff; hc++) {
				h[8] = ttl;
				set_id_for_cksum(h, rest, hc);
				if (ref_cksum(h, 20) != 0)
					fail_msg("ttl %u hc 0x%04x: header does not verify", ttl,
						 hc);
				w = (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 |
					(uint32_t)h[11] << 24;
				slow += w >= 0xfffe0000u;
				w = lf_ipv4_ttl_cksum_dec_le(w);
				/* Recompute with TTL - 1. */
				h[8] = ttl - 1;
				h[10] = h[11] = 0;
				want = ref_cksum(h, 20);
				if ((w & 0xff) != ttl - 1 || (w >> 8 & 0xff) != protos[p])
					fail_msg("ttl %u proto %u hc 0x%04x: ttl/proto 0x%04x", ttl,
						 protos[p], hc, w & 0xffff);
				if ((w >> 16 & 0xff) != want >> 8 || w >> 24 != (want & 0xff))
					fail_msg("ttl %u proto %u hc 0x%04x: word 0x%08x, "
						 "recompute 0x%04x",
						 ttl, protos[p], hc, w, want);
				if ((uint16_t)(w >> 16) != lf_cksum_ttl_dec(rte_cpu_to_be_16(hc)))
					fail_msg("ttl %u hc 0x%04x: lf_cksum_ttl_dec differs", ttl,
						 hc);
				checked++;
			}
		}
	}
	assert_int_equal(checked, RTE_DIM(protos) * 254u * 65536u);
	/* Only checksums 0xfeff and 0xffff leave the one-add path. */
	assert_int_equal(slow, RTE_DIM(protos) * 254u * 2u);
}

/* Every TTL 2..255 with every protocol number. */
static void
test_cksum_every_ttl_every_proto(void **state)
{
	uint8_t h[HDR_MAX] __rte_aligned(8);
	unsigned int ttl, proto;

	(void)state;
	for (ttl = 2; ttl <= 255; ttl++) {
		for (proto = 0; proto <= 255; proto++) {
			base_header(h, ttl, proto);
			set_cksum(h, full_cksum(h));
			decrement_ttl(h);
			assert_int_equal(h[8], ttl - 1);
			assert_int_equal(h[9], proto);
			assert_int_equal(get_cksum(h), full_cksum(h));
		}
	}
}

static void
random_header(uint8_t *h, unsigned int ttl)
{
	unsigned int ihl = 5 + rnd() % 11;
	unsigned int i;
	uint64_t r;

	for (i = 0; i < ihl * 4; i += 8) {
		r = rnd();
		memcpy(h + i, &r, ihl * 4 - i < 8 ? ihl * 4 - i : 8);
	}
	h[0] = 0x40 | ihl;
	h[8] = ttl;
	set_cksum(h, 0);
	set_cksum(h, full_cksum(h));
}

static void
test_cksum_random_headers(void **state)
{
	uint8_t h[HDR_MAX] __rte_aligned(8);
	uint8_t orig[HDR_MAX];
	unsigned int per_ihl[16] = { 0 };
	unsigned int per_ttl[256] = { 0 };
	unsigned int i, ttl;
	uint64_t seed = rng_state;

	(void)state;
	print_message("seed 0x%016llx, %u headers\n", (unsigned long long)seed, RANDOM_HEADERS);
	for (i = 0; i < RANDOM_HEADERS; i++) {
		/* Cycle through TTL 2..255 so that every one is covered evenly. */
		ttl = 2 + i % 254;
		random_header(h, ttl);
		assert_true(verifies(h));
		memcpy(orig, h, hdr_len(h));
		decrement_ttl(h);
		if (get_cksum(h) != full_cksum(h))
			fail_msg("header %u (ihl %u, ttl %u): update 0x%04x, recompute 0x%04x", i,
				 h[0] & 0xf, ttl, get_cksum(h), full_cksum(h));
		/* Only TTL and checksum changed. */
		assert_int_equal(h[8], ttl - 1);
		assert_memory_equal(h, orig, 8);
		assert_int_equal(h[9], orig[9]);
		assert_memory_equal(h + 12, orig + 12, hdr_len(h) - 12);
		per_ihl[h[0] & 0xf]++;
		per_ttl[ttl]++;
	}
	/* Every header length and every TTL was exercised. */
	for (i = 5; i <= 15; i++)
		assert_true(per_ihl[i] > RANDOM_HEADERS / 20);
	for (i = 2; i <= 255; i++)
		assert_true(per_ttl[i] >= RANDOM_HEADERS / 254);
}

/* The same update for any 16-bit word of a random header, not only TTL. */
static void
test_cksum_any_word(void **state)
{
	uint8_t h[HDR_MAX] __rte_aligned(8);
	unsigned int i, w;
	uint16_t old, new;

	(void)state;
	for (i = 0; i < 200000; i++) {
		random_header(h, 2 + rnd() % 254);
		/* Any word but version/IHL (it sets the length) and the checksum. */
		do {
			w = rnd() % (hdr_len(h) / 2);
		} while (w == 0 || w == 5);
		memcpy(&old, h + 2 * w, 2);
		new = (uint16_t)rnd();
		if (i % 16 == 0)
			new = 0xffff;
		else if (i % 16 == 1)
			new = 0;
		memcpy(h + 2 * w, &new, 2);
		set_cksum(h, lf_cksum_update16(get_cksum(h), old, new));
		assert_int_equal(get_cksum(h), full_cksum(h));
	}
}

/*
 * lf_ipv4_cksum_add_len (a template's sum plus the total length) against
 * DPDK's rte_ipv4_cksum and the byte-wise reference on the whole header:
 * random headers (any ToS, ID, flags, TTL, protocol, addresses), plus the
 * all-zero and all-ones extremes.
 */
static void
test_cksum_add_len(void **state)
{
	uint8_t h[20] __rte_aligned(8);
	unsigned int i, k;

	(void)state;
	for (i = 0; i < RANDOM_HEADERS + 4; i++) {
		uint16_t tl, sum, got;

		if (i < RANDOM_HEADERS) {
			for (k = 0; k < 20; k += 8) {
				const uint64_t r = rnd();

				memcpy(h + k, &r, RTE_MIN(8u, 20 - k));
			}
		} else {
			memset(h, (i - RANDOM_HEADERS) & 1 ? 0xff : 0, sizeof(h));
			if (i - RANDOM_HEADERS >= 2)
				memset(h + 12, (i - RANDOM_HEADERS) & 1 ? 0 : 0xff, 8);
		}
		h[0] = 0x45;
		memcpy(&tl, h + 2, 2);
		/* The template: length and checksum 0. */
		h[2] = h[3] = h[10] = h[11] = 0;
		sum = rte_raw_cksum(h, 20);
		memcpy(h + 2, &tl, 2);
		got = lf_ipv4_cksum_add_len(sum, tl);
		if (got != full_cksum(h))
			fail_msg("case %u: template 0x%04x, header 0x%04x", i, got, full_cksum(h));
		memcpy(h + 10, &got, 2);
		assert_true(verifies(h));
	}
}

/*
 * The sum a parser checks, at every alignment a frame puts a header at
 * (odd ones included), with and without options: 0xffff exactly when the
 * byte-wise reference says the header verifies, and otherwise the
 * reference's sum.
 */
static void
test_cksum_hdr_sum(void **state)
{
	uint8_t buf[64 + 8] __rte_aligned(8);
	unsigned int i, k;

	(void)state;
	for (i = 0; i < RANDOM_HEADERS; i++) {
		const unsigned int off = i % 8, len = i % 11 == 0 ? 24 + 4 * ((i / 11) % 10) : 20;
		uint8_t *h = buf + off;
		uint16_t c, got, want;

		for (k = 0; k < sizeof(buf); k += 8) {
			const uint64_t r = rnd();

			memcpy(buf + k, &r, 8);
		}
		h[0] = (uint8_t)(0x40 | len / 4);
		if (i % 2 == 0) {
			/* Half of them made to verify. */
			h[10] = h[11] = 0;
			c = ref_cksum(h, len);
			h[10] = (uint8_t)(c >> 8);
			h[11] = (uint8_t)c;
		}
		/* Summed as loaded: the reference's sum, byte-swapped on x86. */
		want = rte_cpu_to_be_16((uint16_t)~ref_cksum(h, len));
		got = lf_ipv4_hdr_sum(h, len);
		if (got != want)
			fail_msg("case %u (offset %u, %u bytes): 0x%04x, reference 0x%04x", i, off,
				 len, got, want);
		/* The check without the folds agrees with the sum. */
		if (lf_ipv4_hdr_ok(h, len) != (want == 0xffff))
			fail_msg("case %u (offset %u, %u bytes): ok %d, sum 0x%04x", i, off, len,
				 lf_ipv4_hdr_ok(h, len), want);
		if (i % 2 == 0)
			assert_int_equal(lf_ipv4_hdr_sum(h, len), 0xffff);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cksum_zero_representations),
		cmocka_unit_test(test_cksum_result_zero),
		cmocka_unit_test(test_cksum_every_value_every_ttl),
		cmocka_unit_test(test_cksum_word_every_value),
		cmocka_unit_test(test_cksum_every_ttl_every_proto),
		cmocka_unit_test(test_cksum_random_headers),
		cmocka_unit_test(test_cksum_any_word),
		cmocka_unit_test(test_cksum_add_len),
		cmocka_unit_test(test_cksum_hdr_sum),
	};

	return cmocka_run_group_tests_name("cksum", tests, NULL, NULL);
}
