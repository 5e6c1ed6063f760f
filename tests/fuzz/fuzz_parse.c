/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the parse stage, differential: whatever the fast
 * checks accept (lf_parse_ipv4_plain(), and lf_parse_ipv4_plain_x8() where
 * the build targets AVX-512; lf_parse_ipv6_plain(), the fused IPv6
 * stage's), parse_packet() must accept with the same fields, and the
 * eight-packet check must give each packet the scalar check's verdict,
 * destination, software-checksum flag and TTL word.
 *
 * The input is up to eight packets, each: a flags byte (bits 0-1: the RX
 * IP checksum flag, GOOD, BAD, NONE or UNKNOWN; bit 2: split the packet
 * into two segments), a split byte, a 2-byte little-endian length, then
 * the bytes. Missing packets of the group of eight repeat the first.
 *
 * Packets are built into real mbufs from a pool (EAL with --no-huge
 * --no-pci), data_len and pkt_len from the input, and the rest of each
 * data buffer (headroom and tailroom) is poisoned for ASan, so a read past
 * the data is reported where it happens.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "cksum.h"
#include "parse.h"
#include "parse_fast.h"
#include "parse_fast_x8.h"

#define N 8

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char lcore[16];
	/* No hugepages and no shared files: --in-memory would need hugepages. */
	char *eal_argv[] = {
		"fuzz_parse",     "--no-huge",   "-m", "64", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level", "3",  "-l", lcore,      NULL,
	};
	cpu_set_t cpus;
	int cpu = 0;

	(void)argc;
	(void)argv;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "fuzz_parse: rte_eal_init failed\n");
		abort();
	}
	pool = rte_pktmbuf_pool_create("fuzz", 4 * N, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "fuzz_parse: no mbuf pool\n");
		abort();
	}
	return 0;
}

static const uint64_t cksum_flags[4] = {
	RTE_MBUF_F_RX_IP_CKSUM_GOOD,
	RTE_MBUF_F_RX_IP_CKSUM_BAD,
	RTE_MBUF_F_RX_IP_CKSUM_NONE,
	RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN,
};

/* Poison the parts of m's data buffer that are not its data. */
static void
poison(struct rte_mbuf *m)
{
	uint8_t *buf = m->buf_addr;
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	ASAN_POISON_MEMORY_REGION(buf, d - buf);
	ASAN_POISON_MEMORY_REGION(d + m->data_len, buf + m->buf_len - (d + m->data_len));
}

static void
unpoison(struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		ASAN_UNPOISON_MEMORY_REGION(m->buf_addr, m->buf_len);
}

/* One packet from the input into a chain of one or two mbufs, or NULL. */
static struct rte_mbuf *
build(const uint8_t *p, size_t len, uint8_t flags, uint8_t split)
{
	struct rte_mbuf *m, *m2;
	size_t first = len;

	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		abort();
	if (len > rte_pktmbuf_tailroom(m))
		len = rte_pktmbuf_tailroom(m);
	if ((flags & 4) && split < len)
		first = split;
	if (first > len)
		first = len;
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), p, first);
	m->data_len = first;
	m->pkt_len = first;
	m->ol_flags = cksum_flags[flags & 3];
	if (first < len) {
		m2 = rte_pktmbuf_alloc(pool);
		if (m2 == NULL)
			abort();
		memcpy(rte_pktmbuf_mtod(m2, uint8_t *), p + first, len - first);
		m2->data_len = len - first;
		if (rte_pktmbuf_chain(m, m2) != 0)
			abort();
		poison(m2);
	}
	poison(m);
	return m;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *pkts[N];
	unsigned int r[N], proto[N], need[N], n = 0, j;
	const uint8_t *p0 = NULL;
	uint8_t flags0 = 0, split0 = 0;
	uint32_t dst[N];
	size_t off = 0, len0 = 0;

	while (n < N && off + 4 <= size) {
		uint8_t flags = data[off], split = data[off + 1];
		size_t len = data[off + 2] | (size_t)data[off + 3] << 8;

		off += 4;
		if (len > size - off)
			len = size - off;
		if (n == 0) {
			p0 = data + off;
			len0 = len;
			flags0 = flags;
			split0 = split;
		}
		pkts[n++] = build(data + off, len, flags, split);
		off += len;
	}
	if (n == 0)
		return 0;
	/* The group of eight repeats the first packet. */
	for (j = n; j < N; j++)
		pkts[j] = build(p0, len0, flags0, split0);

	/* The scalar fast check: the reference of the x8 one. */
	for (j = 0; j < N; j++)
		r[j] = lf_parse_ipv4_plain(pkts[j], &proto[j], &need[j], &dst[j]);

#if LF_PARSE_X8
	{
		uint32_t dst8[N], ttlw[N];
		uint8_t *d8[N];
		__mmask8 ok, sw = 0;

		ok = lf_parse_ipv4_plain_x8(pkts, dst8, d8, &sw, ttlw);
		for (j = 0; j < N; j++) {
			uint32_t w;

			if (((ok >> j) & 1) != (r[j] != 0) || ((sw >> j) & 1) != (r[j] == 2) ||
			    d8[j] != rte_pktmbuf_mtod(pkts[j], uint8_t *)) {
				fprintf(stderr, "x8: packet %u: scalar %u, x8 ok %u sw %u\n", j,
					r[j], (ok >> j) & 1, (sw >> j) & 1);
				abort();
			}
			if (r[j] == 0)
				continue;
			memcpy(&w, d8[j] + RTE_ETHER_HDR_LEN + 8, sizeof(w));
			if (dst8[j] != dst[j] || ttlw[j] != lf_ipv4_ttl_cksum_dec_le(w)) {
				fprintf(stderr, "x8: packet %u: dst %08x/%08x ttlw %08x/%08x\n", j,
					dst8[j], dst[j], ttlw[j], lf_ipv4_ttl_cksum_dec_le(w));
				abort();
			}
		}
	}
#endif

	/* parse_packet() takes everything the fast check takes, the same way. */
	for (j = 0; j < N; j++) {
		struct lf_meta meta, want;
		int sw = 0, reason;

		memset(&meta, 0, sizeof(meta));
		reason = parse_packet(pkts[j], &meta, &sw);
		if (r[j] == 0) {
			unsigned int p6, need6;

			if (!lf_parse_ipv6_plain(pkts[j], &p6, &need6))
				continue;
			lf_meta_plain_ipv6(&want, p6, need6);
			if (reason != -1 || sw != 0 || meta.l3_off != want.l3_off ||
			    meta.l4_off != want.l4_off || meta.af != want.af ||
			    meta.l4_proto != want.l4_proto) {
				fprintf(stderr,
					"packet %u: fast IPv6 (l4_off %u proto %u); parse_packet %d l3_off %u l4_off %u af %u proto %u\n",
					j, want.l4_off, want.l4_proto, reason, meta.l3_off,
					meta.l4_off, meta.af, meta.l4_proto);
				abort();
			}
			continue;
		}
		memset(&want, 0, sizeof(want));
		lf_meta_plain_ipv4(&want, proto[j], need[j]);
		if (reason != -1 || sw != (r[j] == 2) || meta.l3_off != want.l3_off ||
		    meta.l4_off != want.l4_off || meta.af != want.af ||
		    meta.l4_proto != want.l4_proto) {
			fprintf(stderr,
				"packet %u: fast %u (l4_off %u proto %u); parse_packet %d sw %d l3_off %u l4_off %u af %u proto %u\n",
				j, r[j], want.l4_off, want.l4_proto, reason, sw, meta.l3_off,
				meta.l4_off, meta.af, meta.l4_proto);
			abort();
		}
	}
	for (j = 0; j < N; j++) {
		unpoison(pkts[j]);
		rte_pktmbuf_free(pkts[j]);
	}
	return 0;
}
