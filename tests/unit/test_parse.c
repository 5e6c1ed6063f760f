/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the parse stage (src/datapath/parse.c). Packets are built byte by byte
 * in plain memory and copied into real mbufs from a small pool (EAL runs with
 * --no-huge --no-shconf). Malformed packets come first, each with the drop
 * reason parse_packet() must return: short frames, VLAN/QinQ tag stacks,
 * non-IP, every IPv4 header check (version, IHL, lengths, checksum in
 * software and from the RX offload flags, TTL), truncated L4 headers, IPv6
 * length, hop limit and extension-header chains, fragments. Accepted packets
 * are checked field by field in struct lf_meta, and parse_burst() is checked
 * for compaction, drop counters and prefetch-distance independence. The
 * AVX-512 check of eight packets (parse_fast_x8.h) must give the verdicts
 * of the scalar lf_parse_ipv4_plain on random and mutated packets. The
 * receive checks of issue 15: parse's martian-source verdicts against a
 * plain classifier of RFC 1812 5.3.7's and RFC 4291's lists on edge and
 * random addresses, the port's link-layer checks (parse_packet_port), and
 * parse_burst with b->local: counters per reason, ARP to kind neigh and an
 * expired TTL to kind icmp with its meta.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dp.h"
#include "fastpath.h"
#include "parse.h"
#include "parse_fast.h"

#define POOL_SIZE 511
#define NO_DROP (-1)

static struct rte_mempool *pool;

/* ---- packet builder ---- */

struct pkt {
	uint8_t b[1024];
	unsigned int len;
	unsigned int l3; /* Offset of the IP header. */
};

static void
put8(struct pkt *p, uint8_t v)
{
	assert_true(p->len < sizeof(p->b));
	p->b[p->len++] = v;
}

static void
put16(struct pkt *p, uint16_t v)
{
	put8(p, v >> 8);
	put8(p, v & 0xff);
}

static void
put_bytes(struct pkt *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		put8(p, 0xc0 + i);
}

/* Ethernet header with NTAGS 802.1Q/802.1ad tags of the given TPIDs. */
static void
put_l2(struct pkt *p, const uint16_t *tpids, unsigned int ntags, uint16_t et)
{
	static const uint8_t macs[12] = {
		0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02,
	};
	unsigned int i;

	memset(p, 0, sizeof(*p));
	memcpy(p->b, macs, sizeof(macs));
	p->len = sizeof(macs);
	for (i = 0; i < ntags; i++) {
		put16(p, tpids[i]);
		put16(p, 100 + i);
	}
	put16(p, et);
	p->l3 = p->len;
}

static void
l2(struct pkt *p, uint16_t et)
{
	put_l2(p, NULL, 0, et);
}

static struct rte_ipv4_hdr *
ip4(struct pkt *p)
{
	return (struct rte_ipv4_hdr *)(p->b + p->l3);
}

static struct rte_ipv6_hdr *
ip6(struct pkt *p)
{
	return (struct rte_ipv6_hdr *)(p->b + p->l3);
}

static void
fix_ipv4_cksum(struct pkt *p)
{
	ip4(p)->hdr_checksum = 0;
	ip4(p)->hdr_checksum = rte_ipv4_cksum(ip4(p));
}

/*
 * IPv4 header of IHL words (options are NOPs then EOL), then L4LEN bytes.
 * FRAG is flags | offset in host order. Total length and checksum are right.
 */
static void
put_ipv4(struct pkt *p, unsigned int ihl, uint8_t ttl, uint8_t proto, uint16_t frag,
	 unsigned int l4len)
{
	unsigned int i;

	put8(p, 0x40 | ihl);
	put8(p, 0);
	put16(p, ihl * 4 + l4len);
	put16(p, 0x1234);
	put16(p, frag);
	put8(p, ttl);
	put8(p, proto);
	put16(p, 0);
	put16(p, 0xc000); /* 192.0.2.1 */
	put16(p, 0x0201);
	put16(p, 0xc633); /* 198.51.100.9 */
	put16(p, 0x6409);
	for (i = 20; i < ihl * 4; i++)
		put8(p, i + 1 == ihl * 4 ? 0 : 1);
	put_bytes(p, l4len);
	fix_ipv4_cksum(p);
}

/* A valid IPv4/UDP packet, optionally tagged. */
static void
good_ipv4(struct pkt *p, uint8_t ttl)
{
	l2(p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(p, 5, ttl, IPPROTO_UDP, 0, 8 + 10);
}

/* IPv6 header with payload length 0; call fin_ipv6() after the payload. */
static void
put_ipv6(struct pkt *p, uint8_t hlim, uint8_t nxt)
{
	unsigned int i;

	put16(p, 0x6000);
	put16(p, 0x0001); /* flow label */
	put16(p, 0);
	put8(p, nxt);
	put8(p, hlim);
	for (i = 0; i < 16; i++)
		put8(p, i == 0 ? 0x20 : i == 1 ? 0x01 : i == 15 ? 1 : 0);
	for (i = 0; i < 16; i++)
		put8(p, i == 0 ? 0x20 : i == 1 ? 0x01 : i == 15 ? 2 : 0);
}

static void
fin_ipv6(struct pkt *p)
{
	ip6(p)->payload_len = rte_cpu_to_be_16(p->len - p->l3 - 40);
}

/* A generic extension header of LEN bytes (a multiple of 8). */
static void
put_ext(struct pkt *p, uint8_t nxt, unsigned int len)
{
	unsigned int i;

	put8(p, nxt);
	put8(p, len / 8 - 1);
	for (i = 2; i < len; i++)
		put8(p, i == 2 ? 1 : 0); /* PadN option */
}

/* Fragment header: OFFSET in 8-byte units. */
static void
put_frag6(struct pkt *p, uint8_t nxt, uint16_t offset, int more)
{
	put8(p, nxt);
	put8(p, 0);
	put16(p, offset << 3 | (more ? 1 : 0));
	put16(p, 0xabcd);
	put16(p, 0x0001);
}

/* ---- running parse_packet() on a real mbuf ---- */

static struct rte_mbuf *
to_mbuf(const struct pkt *p, uint64_t ol_flags)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *d;

	assert_non_null(m);
	d = rte_pktmbuf_append(m, p->len);
	if (p->len != 0)
		assert_non_null(d);
	memcpy(d, p->b, p->len);
	m->ol_flags = ol_flags;
	return m;
}

static int
parse_flags(const struct pkt *p, uint64_t ol_flags, struct lf_meta *meta, int *sw)
{
	struct rte_mbuf *m = to_mbuf(p, ol_flags);
	int ret;

	memset(meta, 0xa5, sizeof(*meta));
	*sw = 0;
	ret = parse_packet(m, meta, sw);
	/* Parsing never writes into the packet. */
	assert_int_equal(m->data_len, p->len);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), p->b, p->len);
	rte_pktmbuf_free(m);
	return ret;
}

static int
parse(const struct pkt *p, struct lf_meta *meta)
{
	int sw;

	return parse_flags(p, 0, meta, &sw);
}

static void
expect_drop(const struct pkt *p, int reason)
{
	struct lf_meta meta;
	int ret = parse(p, &meta);

	if (ret != reason)
		fail_msg("parse_packet returned %d (%s), expected %d (%s)", ret,
			 ret >= 0 && ret < LF_DROP_COUNT ? lf_drop_names[ret] : "accept", reason,
			 lf_drop_names[reason]);
}

static void
expect_accept(const struct pkt *p, unsigned int l3_off, unsigned int l4_off, int af, int l4_proto)
{
	struct lf_meta meta;
	int ret = parse(p, &meta);

	if (ret != NO_DROP)
		fail_msg("parse_packet dropped it: %d (%s)", ret,
			 ret >= 0 && ret < LF_DROP_COUNT ? lf_drop_names[ret] : "?");
	assert_int_equal(meta.l3_off, l3_off);
	assert_int_equal(meta.l4_off, l4_off);
	assert_int_equal(meta.af, af);
	assert_int_equal(meta.l4_proto, l4_proto);
}

/* ---- setup ---- */

static int
group_setup(void **state)
{
	char lcore[16];
	char *argv[] = {
		"test_parse",
		"--no-huge",
		"-m",
		"256",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_parse",
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	cpu_set_t cpus;
	int cpu = 0;

	(void)state;
	/* The first CPU this process may run on. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	pool = rte_pktmbuf_pool_create("lfut_parse", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	return pool == NULL ? -1 : 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	return rte_eal_cleanup();
}

/* Every test must give back every mbuf. */
static int
check_pool(void **state)
{
	(void)state;
	return rte_mempool_avail_count(pool) == POOL_SIZE ? 0 : -1;
}

/* ---- L2 ---- */

static void
test_l2_too_short(void **state)
{
	struct pkt p;

	(void)state;
	good_ipv4(&p, 64);
	p.len = 0;
	expect_drop(&p, LF_DROP_L2_MALFORMED);
	p.len = 1;
	expect_drop(&p, LF_DROP_L2_MALFORMED);
	p.len = 13;
	expect_drop(&p, LF_DROP_L2_MALFORMED);
	/* A whole Ethernet header and nothing after it: an L3 problem. */
	p.len = 14;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
}

static void
test_vlan_three_tags(void **state)
{
	static const uint16_t t3[] = {
		RTE_ETHER_TYPE_QINQ,
		RTE_ETHER_TYPE_VLAN,
		RTE_ETHER_TYPE_VLAN,
	};
	static const uint16_t t3b[] = {
		RTE_ETHER_TYPE_VLAN,
		RTE_ETHER_TYPE_VLAN,
		RTE_ETHER_TYPE_QINQ,
	};
	struct pkt p;

	(void)state;
	put_l2(&p, t3, 3, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 8);
	expect_drop(&p, LF_DROP_L2_MALFORMED);
	put_l2(&p, t3b, 3, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 8);
	expect_drop(&p, LF_DROP_L2_MALFORMED);
}

static void
test_vlan_truncated_tag(void **state)
{
	static const uint16_t t1[] = { RTE_ETHER_TYPE_VLAN };
	static const uint16_t t2[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN };
	struct pkt p;

	(void)state;
	/* TPID, then only part of the tag. */
	put_l2(&p, t1, 1, RTE_ETHER_TYPE_IPV4);
	p.len = 14;
	expect_drop(&p, LF_DROP_L2_MALFORMED);
	p.len = 17;
	expect_drop(&p, LF_DROP_L2_MALFORMED);
	/* Outer tag complete, inner one cut. */
	put_l2(&p, t2, 2, RTE_ETHER_TYPE_IPV4);
	p.len = 21;
	expect_drop(&p, LF_DROP_L2_MALFORMED);
	/* Both tags complete, no IP header. */
	p.len = 22;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
}

static void
test_non_ip(void **state)
{
	static const uint16_t t1[] = { RTE_ETHER_TYPE_VLAN };
	static const uint16_t t2[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN };
	struct pkt p;

	(void)state;
	/* ARP request. */
	l2(&p, RTE_ETHER_TYPE_ARP);
	put16(&p, 1);
	put16(&p, RTE_ETHER_TYPE_IPV4);
	put8(&p, 6);
	put8(&p, 4);
	put16(&p, 1);
	put_bytes(&p, 20);
	expect_drop(&p, LF_DROP_NON_IP);
	/* ARP behind tags, LLDP, MPLS, and an ethertype-less header. */
	put_l2(&p, t1, 1, RTE_ETHER_TYPE_ARP);
	put_bytes(&p, 28);
	expect_drop(&p, LF_DROP_NON_IP);
	put_l2(&p, t2, 2, RTE_ETHER_TYPE_ARP);
	put_bytes(&p, 28);
	expect_drop(&p, LF_DROP_NON_IP);
	l2(&p, RTE_ETHER_TYPE_LLDP);
	put_bytes(&p, 40);
	expect_drop(&p, LF_DROP_NON_IP);
	l2(&p, RTE_ETHER_TYPE_MPLS);
	put_bytes(&p, 40);
	expect_drop(&p, LF_DROP_NON_IP);
	l2(&p, 0x0000);
	put_bytes(&p, 40);
	expect_drop(&p, LF_DROP_NON_IP);
	/* Non-IP with no payload at all. */
	l2(&p, RTE_ETHER_TYPE_ARP);
	expect_drop(&p, LF_DROP_NON_IP);
}

/* ---- IPv4: malformed ---- */

static void
test_ipv4_truncated_header(void **state)
{
	struct pkt p;

	(void)state;
	good_ipv4(&p, 64);
	p.len = 14 + 19;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	p.len = 14 + 1;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
}

static void
test_ipv4_bad_version(void **state)
{
	static const uint8_t versions[] = { 0, 5, 6, 15 };
	unsigned int i;
	struct pkt p;

	(void)state;
	for (i = 0; i < RTE_DIM(versions); i++) {
		good_ipv4(&p, 64);
		ip4(&p)->version_ihl = versions[i] << 4 | 5;
		fix_ipv4_cksum(&p);
		expect_drop(&p, LF_DROP_L3_MALFORMED);
	}
}

static void
test_ipv4_bad_ihl(void **state)
{
	unsigned int ihl;
	struct pkt p;

	(void)state;
	/* IHL below 5. */
	for (ihl = 0; ihl < 5; ihl++) {
		good_ipv4(&p, 64);
		ip4(&p)->version_ihl = 0x40 | ihl;
		fix_ipv4_cksum(&p);
		expect_drop(&p, LF_DROP_L3_MALFORMED);
	}
	/* IHL pointing past the data: 60-byte header in 14 + 40 bytes. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 20);
	ip4(&p)->version_ihl = 0x4f;
	fix_ipv4_cksum(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* The same header once the data is there is fine. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 15, 64, 253, 0, 0);
	expect_accept(&p, 14, 0, 4, 253);
}

static void
test_ipv4_bad_total_length(void **state)
{
	struct pkt p;

	(void)state;
	/* total_length below the header length. */
	good_ipv4(&p, 64);
	ip4(&p)->total_length = rte_cpu_to_be_16(19);
	fix_ipv4_cksum(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	good_ipv4(&p, 64);
	ip4(&p)->total_length = 0;
	fix_ipv4_cksum(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 6, 64, 253, 0, 10);
	ip4(&p)->total_length = rte_cpu_to_be_16(23);
	fix_ipv4_cksum(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* total_length past the end of the packet, by one byte. */
	good_ipv4(&p, 64);
	ip4(&p)->total_length = rte_cpu_to_be_16(p.len - 14 + 1);
	fix_ipv4_cksum(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	good_ipv4(&p, 64);
	ip4(&p)->total_length = rte_cpu_to_be_16(0xffff);
	fix_ipv4_cksum(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* Exactly the packet, and shorter than the frame (Ethernet padding). */
	good_ipv4(&p, 64);
	expect_accept(&p, 14, 34, 4, IPPROTO_UDP);
	good_ipv4(&p, 64);
	put_bytes(&p, 18);
	expect_accept(&p, 14, 34, 4, IPPROTO_UDP);
}

static void
test_ipv4_checksum_software(void **state)
{
	struct lf_meta meta;
	struct pkt p;
	int sw;

	(void)state;
	/* Wrong checksum, no offload information: checked and dropped in software. */
	good_ipv4(&p, 64);
	ip4(&p)->hdr_checksum ^= rte_cpu_to_be_16(0x0100);
	assert_int_equal(parse_flags(&p, 0, &meta, &sw), LF_DROP_BAD_CHECKSUM);
	assert_int_equal(sw, 1);
	/* A changed byte anywhere in the options is caught too. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 15, 64, IPPROTO_UDP, 0, 8);
	p.b[14 + 59] ^= 0x40;
	assert_int_equal(parse_flags(&p, 0, &meta, &sw), LF_DROP_BAD_CHECKSUM);
	assert_int_equal(sw, 1);
	/* The complemented checksum, UNKNOWN flag (0) spelled out. */
	good_ipv4(&p, 64);
	ip4(&p)->hdr_checksum = ~ip4(&p)->hdr_checksum;
	assert_int_equal(parse_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, &meta, &sw),
			 LF_DROP_BAD_CHECKSUM);
	assert_int_equal(sw, 1);
	/* A right checksum, verified in software. */
	good_ipv4(&p, 64);
	assert_int_equal(parse_flags(&p, 0, &meta, &sw), NO_DROP);
	assert_int_equal(sw, 1);
	/*
	 * RTE_MBUF_F_RX_IP_CKSUM_NONE: the NIC verified the header but the
	 * field is not set; parse accepts it without a software check and
	 * writes the right checksum.
	 */
	good_ipv4(&p, 64);
	ip4(&p)->hdr_checksum ^= rte_cpu_to_be_16(0x0100);
	{
		struct rte_mbuf *m = to_mbuf(&p, RTE_MBUF_F_RX_IP_CKSUM_NONE);

		sw = 0;
		assert_int_equal(parse_packet(m, &meta, &sw), NO_DROP);
		assert_int_equal(sw, 0);
		assert_int_equal(rte_raw_cksum(rte_pktmbuf_mtod_offset(m, void *, 14), 20), 0xffff);
		rte_pktmbuf_free(m);
	}
	/* Both representations of a zero checksum verify. */
	good_ipv4(&p, 64);
	ip4(&p)->packet_id = 0;
	fix_ipv4_cksum(&p);
	ip4(&p)->packet_id = ip4(&p)->hdr_checksum;
	fix_ipv4_cksum(&p);
	assert_int_equal(ip4(&p)->hdr_checksum, 0);
	assert_int_equal(parse_flags(&p, 0, &meta, &sw), NO_DROP);
	ip4(&p)->hdr_checksum = 0xffff;
	assert_int_equal(parse_flags(&p, 0, &meta, &sw), NO_DROP);
}

static void
test_ipv4_checksum_offload_flags(void **state)
{
	struct lf_meta meta;
	struct pkt p;
	int sw;

	(void)state;
	/* The NIC says bad: dropped even though the checksum is right. */
	good_ipv4(&p, 64);
	assert_int_equal(parse_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_BAD, &meta, &sw),
			 LF_DROP_BAD_CHECKSUM);
	assert_int_equal(sw, 0);
	/* The NIC says good: no software check, a wrong value is not looked at. */
	good_ipv4(&p, 64);
	ip4(&p)->hdr_checksum ^= rte_cpu_to_be_16(0x0101);
	assert_int_equal(parse_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD, &meta, &sw), NO_DROP);
	assert_int_equal(sw, 0);
	assert_int_equal(meta.af, 4);
	assert_int_equal(meta.l4_off, 34);
	/* Other flags do not change that. */
	good_ipv4(&p, 64);
	ip4(&p)->hdr_checksum = 0;
	assert_int_equal(parse_flags(&p,
				     RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_BAD |
					     RTE_MBUF_F_RX_RSS_HASH,
				     &meta, &sw),
			 NO_DROP);
	assert_int_equal(sw, 0);
	/* Structural checks still come first under the GOOD flag. */
	good_ipv4(&p, 64);
	ip4(&p)->version_ihl = 0x44;
	assert_int_equal(parse_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD, &meta, &sw),
			 LF_DROP_L3_MALFORMED);
}

static void
test_ipv4_ttl(void **state)
{
	struct pkt p;

	(void)state;
	good_ipv4(&p, 0);
	expect_drop(&p, LF_DROP_TTL_EXPIRED);
	good_ipv4(&p, 1);
	expect_drop(&p, LF_DROP_TTL_EXPIRED);
	/* Even with the checksum vouched for by the NIC. */
	{
		struct lf_meta meta;
		int sw;

		good_ipv4(&p, 1);
		assert_int_equal(parse_flags(&p, RTE_MBUF_F_RX_IP_CKSUM_GOOD, &meta, &sw),
				 LF_DROP_TTL_EXPIRED);
	}
	good_ipv4(&p, 2);
	expect_accept(&p, 14, 34, 4, IPPROTO_UDP);
	good_ipv4(&p, 255);
	expect_accept(&p, 14, 34, 4, IPPROTO_UDP);
}

static void
test_ipv4_truncated_l4(void **state)
{
	static const struct {
		uint8_t proto;
		unsigned int need;
	} l4[] = {
		{ IPPROTO_UDP, 8 },
		{ IPPROTO_TCP, 20 },
		{ IPPROTO_ICMP, 4 },
	};
	unsigned int i, n;
	struct pkt p;

	(void)state;
	for (i = 0; i < RTE_DIM(l4); i++) {
		/* Every length short of the minimal header. */
		for (n = 0; n < l4[i].need; n++) {
			l2(&p, RTE_ETHER_TYPE_IPV4);
			put_ipv4(&p, 5, 64, l4[i].proto, 0, n);
			expect_drop(&p, LF_DROP_L4_MALFORMED);
			/* Bytes in the frame but outside total_length do not count. */
			l2(&p, RTE_ETHER_TYPE_IPV4);
			put_ipv4(&p, 5, 64, l4[i].proto, 0, n);
			put_bytes(&p, 30);
			expect_drop(&p, LF_DROP_L4_MALFORMED);
		}
		/* The minimal header, after options too. */
		l2(&p, RTE_ETHER_TYPE_IPV4);
		put_ipv4(&p, 5, 64, l4[i].proto, 0, l4[i].need);
		expect_accept(&p, 14, 34, 4, l4[i].proto);
		l2(&p, RTE_ETHER_TYPE_IPV4);
		put_ipv4(&p, 7, 64, l4[i].proto, 0, l4[i].need);
		expect_accept(&p, 14, 42, 4, l4[i].proto);
	}
	/* Protocols that are not inspected have no L4 offset. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_GRE, 0, 0);
	expect_accept(&p, 14, 0, 4, IPPROTO_GRE);
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_ESP, 0, 3);
	expect_accept(&p, 14, 0, 4, IPPROTO_ESP);
}

static void
test_ipv4_fragments(void **state)
{
	struct pkt p;

	(void)state;
	/* Non-first fragments carry no L4 header: accepted without one. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 185, 0);
	expect_accept(&p, 14, 0, 4, IPPROTO_UDP);
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_TCP, RTE_IPV4_HDR_MF_FLAG | 1, 3);
	expect_accept(&p, 14, 0, 4, IPPROTO_TCP);
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_ICMP, RTE_IPV4_HDR_OFFSET_MASK, 0);
	expect_accept(&p, 14, 0, 4, IPPROTO_ICMP);
	/* The first fragment (MF set, offset 0) must have it. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, RTE_IPV4_HDR_MF_FLAG, 4);
	expect_drop(&p, LF_DROP_L4_MALFORMED);
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, RTE_IPV4_HDR_MF_FLAG, 8);
	expect_accept(&p, 14, 34, 4, IPPROTO_UDP);
	/* DF is not a fragment. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, RTE_IPV4_HDR_DF_FLAG, 4);
	expect_drop(&p, LF_DROP_L4_MALFORMED);
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_TCP, RTE_IPV4_HDR_DF_FLAG, 20);
	expect_accept(&p, 14, 34, 4, IPPROTO_TCP);
}

/* ---- IPv4: tags and accepted packets ---- */

static void
test_ipv4_vlan_qinq(void **state)
{
	static const uint16_t t1[] = { RTE_ETHER_TYPE_VLAN };
	static const uint16_t qinq[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN };
	static const uint16_t dbl[] = { RTE_ETHER_TYPE_VLAN, RTE_ETHER_TYPE_VLAN };
	struct pkt p;

	(void)state;
	put_l2(&p, t1, 1, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 8);
	expect_accept(&p, 18, 38, 4, IPPROTO_UDP);
	put_l2(&p, qinq, 2, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_TCP, 0, 20);
	expect_accept(&p, 22, 42, 4, IPPROTO_TCP);
	put_l2(&p, dbl, 2, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 6, 64, IPPROTO_ICMP, 0, 4);
	expect_accept(&p, 22, 46, 4, IPPROTO_ICMP);
	/* Checks behind the tags use the right offset. */
	put_l2(&p, qinq, 2, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 1, IPPROTO_UDP, 0, 8);
	expect_drop(&p, LF_DROP_TTL_EXPIRED);
	put_l2(&p, qinq, 2, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 7);
	expect_drop(&p, LF_DROP_L4_MALFORMED);
	put_l2(&p, t1, 1, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 8);
	p.b[18 + 12] ^= 1;
	expect_drop(&p, LF_DROP_BAD_CHECKSUM);
}

/* Headers in the first segment, payload in a second one. */
static void
test_ipv4_two_segments(void **state)
{
	struct rte_mbuf *m, *m2;
	struct lf_meta meta;
	struct pkt p;
	char *d;
	int sw = 0;

	(void)state;
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 8 + 100);
	m = to_mbuf(&p, 0);
	m2 = rte_pktmbuf_alloc(pool);
	assert_non_null(m2);
	/* Move the last 100 bytes into the second segment. */
	d = rte_pktmbuf_append(m2, 100);
	assert_non_null(d);
	memcpy(d, p.b + p.len - 100, 100);
	assert_int_equal(rte_pktmbuf_trim(m, 100), 0);
	assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
	assert_int_equal(m->pkt_len, p.len);
	assert_int_equal(m->data_len, p.len - 100);
	assert_int_equal(parse_packet(m, &meta, &sw), NO_DROP);
	assert_int_equal(meta.l4_off, 34);
	rte_pktmbuf_free(m);

	/* A first segment that ends inside the IPv4 header. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 8);
	m = to_mbuf(&p, 0);
	m2 = rte_pktmbuf_alloc(pool);
	assert_non_null(m2);
	d = rte_pktmbuf_append(m2, 20);
	assert_non_null(d);
	memcpy(d, p.b + p.len - 20, 20);
	assert_int_equal(rte_pktmbuf_trim(m, 20), 0);
	assert_int_equal(rte_pktmbuf_chain(m, m2), 0);
	assert_int_equal(parse_packet(m, &meta, &sw), LF_DROP_L3_MALFORMED);
	rte_pktmbuf_free(m);
}

/* ---- IPv6 ---- */

static void
good_ipv6(struct pkt *p, uint8_t hlim)
{
	l2(p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(p, hlim, IPPROTO_UDP);
	put_bytes(p, 8 + 12);
	fin_ipv6(p);
}

static void
test_ipv6_truncated_header(void **state)
{
	struct pkt p;

	(void)state;
	good_ipv6(&p, 64);
	p.len = 14 + 39;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	p.len = 14;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
}

static void
test_ipv6_bad_version(void **state)
{
	struct pkt p;

	(void)state;
	good_ipv6(&p, 64);
	p.b[14] = 0x40;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	good_ipv6(&p, 64);
	p.b[14] = 0x70;
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* An IPv4 packet with the IPv6 ethertype. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 40);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* And the other way round. */
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv6(&p, 64, IPPROTO_UDP);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
}

static void
test_ipv6_payload_length(void **state)
{
	struct pkt p;

	(void)state;
	good_ipv6(&p, 64);
	ip6(&p)->payload_len = rte_cpu_to_be_16(p.len - 14 - 40 + 1);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	good_ipv6(&p, 64);
	ip6(&p)->payload_len = rte_cpu_to_be_16(0xffff);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* Shorter than the frame is padding. */
	good_ipv6(&p, 64);
	put_bytes(&p, 10);
	expect_accept(&p, 14, 54, 6, IPPROTO_UDP);
	/* The UDP header must fit in payload_len, not just in the frame. */
	good_ipv6(&p, 64);
	ip6(&p)->payload_len = rte_cpu_to_be_16(7);
	expect_drop(&p, LF_DROP_L4_MALFORMED);
}

static void
test_ipv6_hop_limit(void **state)
{
	struct pkt p;

	(void)state;
	good_ipv6(&p, 0);
	expect_drop(&p, LF_DROP_TTL_EXPIRED);
	good_ipv6(&p, 1);
	expect_drop(&p, LF_DROP_TTL_EXPIRED);
	good_ipv6(&p, 2);
	expect_accept(&p, 14, 54, 6, IPPROTO_UDP);
	good_ipv6(&p, 255);
	expect_accept(&p, 14, 54, 6, IPPROTO_UDP);
}

static void
test_ipv6_truncated_l4(void **state)
{
	static const struct {
		uint8_t proto;
		unsigned int need;
	} l4[] = {
		{ IPPROTO_UDP, 8 },
		{ IPPROTO_TCP, 20 },
		{ IPPROTO_ICMPV6, 4 },
	};
	unsigned int i, n;
	struct pkt p;

	(void)state;
	for (i = 0; i < RTE_DIM(l4); i++) {
		for (n = 0; n < l4[i].need; n++) {
			l2(&p, RTE_ETHER_TYPE_IPV6);
			put_ipv6(&p, 64, l4[i].proto);
			put_bytes(&p, n);
			fin_ipv6(&p);
			expect_drop(&p, LF_DROP_L4_MALFORMED);
		}
		l2(&p, RTE_ETHER_TYPE_IPV6);
		put_ipv6(&p, 64, l4[i].proto);
		put_bytes(&p, l4[i].need);
		fin_ipv6(&p);
		expect_accept(&p, 14, 54, 6, l4[i].proto);
	}
	/* No next header: nothing to inspect. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_NONE);
	fin_ipv6(&p);
	expect_accept(&p, 14, 0, 6, IPPROTO_NONE);
}

static void
test_ipv6_extension_chain(void **state)
{
	static const uint16_t t1[] = { RTE_ETHER_TYPE_VLAN };
	struct pkt p;

	(void)state;
	/* Hop-by-hop (8) + routing (24) + destination options (16) + UDP. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_HOPOPTS);
	put_ext(&p, IPPROTO_ROUTING, 8);
	put_ext(&p, IPPROTO_DSTOPTS, 24);
	put_ext(&p, IPPROTO_UDP, 16);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	expect_accept(&p, 14, 14 + 40 + 8 + 24 + 16, 6, IPPROTO_UDP);
	/* The same behind a VLAN tag, ending in TCP. */
	put_l2(&p, t1, 1, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_HOPOPTS);
	put_ext(&p, IPPROTO_ROUTING, 8);
	put_ext(&p, IPPROTO_DSTOPTS, 24);
	put_ext(&p, IPPROTO_TCP, 16);
	put_bytes(&p, 20);
	fin_ipv6(&p);
	expect_accept(&p, 18, 18 + 40 + 48, 6, IPPROTO_TCP);
	/* Eight extension headers are walked. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_DSTOPTS);
	{
		unsigned int i;

		for (i = 0; i < 7; i++)
			put_ext(&p, IPPROTO_DSTOPTS, 8);
		put_ext(&p, IPPROTO_ICMPV6, 8);
	}
	put_bytes(&p, 4);
	fin_ipv6(&p);
	expect_accept(&p, 14, 14 + 40 + 64, 6, IPPROTO_ICMPV6);
	/* Extension headers then an uninspected protocol. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_HOPOPTS);
	put_ext(&p, IPPROTO_ESP, 8);
	put_bytes(&p, 2);
	fin_ipv6(&p);
	expect_accept(&p, 14, 0, 6, IPPROTO_ESP);
}

static void
test_ipv6_extension_malformed(void **state)
{
	struct pkt p;
	unsigned int i;

	(void)state;
	/* Hop-by-hop header cut short. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_HOPOPTS);
	put_ext(&p, IPPROTO_UDP, 8);
	p.len -= 4;
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* Routing header whose length runs past the packet. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_ROUTING);
	put_ext(&p, IPPROTO_UDP, 16);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	p.b[14 + 40 + 1] = 5; /* 48 bytes claimed, 24 present */
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* Destination options inside the frame but past payload_len. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_DSTOPTS);
	put_ext(&p, IPPROTO_UDP, 16);
	put_bytes(&p, 8);
	ip6(&p)->payload_len = rte_cpu_to_be_16(12);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* Second header of the chain truncated. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_HOPOPTS);
	put_ext(&p, IPPROTO_DSTOPTS, 8);
	put8(&p, IPPROTO_UDP);
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* Nine extension headers is more than the parser walks. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_DSTOPTS);
	for (i = 0; i < 8; i++)
		put_ext(&p, IPPROTO_DSTOPTS, 8);
	put_ext(&p, IPPROTO_UDP, 8);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* Chain complete, UDP header truncated. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_HOPOPTS);
	put_ext(&p, IPPROTO_UDP, 8);
	put_bytes(&p, 7);
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_L4_MALFORMED);
}

static void
test_ipv6_fragments(void **state)
{
	struct pkt p;

	(void)state;
	/* First fragment: the L4 header follows the fragment header. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_FRAGMENT);
	put_frag6(&p, IPPROTO_UDP, 0, 1);
	put_bytes(&p, 16);
	fin_ipv6(&p);
	expect_accept(&p, 14, 14 + 40 + 8, 6, IPPROTO_UDP);
	/* ... and must be complete. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_FRAGMENT);
	put_frag6(&p, IPPROTO_UDP, 0, 1);
	put_bytes(&p, 5);
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_L4_MALFORMED);
	/* Non-first fragments have no L4 header and need none. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_FRAGMENT);
	put_frag6(&p, IPPROTO_UDP, 185, 1);
	fin_ipv6(&p);
	expect_accept(&p, 14, 0, 6, IPPROTO_UDP);
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_HOPOPTS);
	put_ext(&p, IPPROTO_FRAGMENT, 8);
	put_frag6(&p, IPPROTO_TCP, 1, 0);
	put_bytes(&p, 3);
	fin_ipv6(&p);
	expect_accept(&p, 14, 0, 6, IPPROTO_TCP);
	/* A truncated fragment header. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_FRAGMENT);
	put_frag6(&p, IPPROTO_UDP, 185, 0);
	p.len -= 1;
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* A fragment header in the frame but past payload_len. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_FRAGMENT);
	put_frag6(&p, IPPROTO_UDP, 185, 1);
	ip6(&p)->payload_len = rte_cpu_to_be_16(4);
	expect_drop(&p, LF_DROP_L3_MALFORMED);
	/* An atomic fragment (offset 0, no M flag) is a first fragment. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_FRAGMENT);
	put_frag6(&p, IPPROTO_ICMPV6, 0, 0);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	expect_accept(&p, 14, 14 + 48, 6, IPPROTO_ICMPV6);
}

static void
test_ipv6_qinq(void **state)
{
	static const uint16_t qinq[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN };
	struct pkt p;

	(void)state;
	put_l2(&p, qinq, 2, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 64, IPPROTO_UDP);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	expect_accept(&p, 22, 62, 6, IPPROTO_UDP);
	put_l2(&p, qinq, 2, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 1, IPPROTO_UDP);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	expect_drop(&p, LF_DROP_TTL_EXPIRED);
}

/* ---- parse_burst ---- */

/* Packet I of the mixed burst and the verdict it must get. */
static int
mixed_packet(unsigned int i, struct pkt *p, uint64_t *ol_flags, int *sw)
{
	static const uint16_t t1[] = { RTE_ETHER_TYPE_VLAN };

	*ol_flags = 0;
	*sw = 0;
	switch (i % 9) {
	case 0:
		good_ipv4(p, 2 + i % 200);
		*sw = 1;
		return NO_DROP;
	case 1:
		good_ipv6(p, 2 + i % 200);
		return NO_DROP;
	case 2:
		good_ipv4(p, 1);
		*sw = 1;
		return LF_DROP_TTL_EXPIRED;
	case 3:
		good_ipv4(p, 64);
		ip4(p)->hdr_checksum ^= 0xffff;
		*sw = 1;
		return LF_DROP_BAD_CHECKSUM;
	case 4:
		l2(p, RTE_ETHER_TYPE_ARP);
		put_bytes(p, 28);
		return LF_DROP_NON_IP;
	case 5:
		good_ipv4(p, 64);
		p->len = 10;
		return LF_DROP_L2_MALFORMED;
	case 6:
		put_l2(p, t1, 1, RTE_ETHER_TYPE_IPV4);
		put_ipv4(p, 5, 64, IPPROTO_TCP, 0, 20);
		*ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		return NO_DROP;
	case 7:
		good_ipv6(p, 64);
		ip6(p)->payload_len = rte_cpu_to_be_16(1000);
		return LF_DROP_L3_MALFORMED;
	default:
		l2(p, RTE_ETHER_TYPE_IPV4);
		put_ipv4(p, 5, 64, IPPROTO_UDP, 0, 3);
		*sw = 1;
		return LF_DROP_L4_MALFORMED;
	}
}

static void
run_parse_burst(uint16_t n, uint16_t prefetch)
{
	struct rte_mbuf *pkts[LF_BURST_MAX], *orig[LF_BURST_MAX];
	uint64_t drops[LF_DROP_COUNT] = { 0 };
	unsigned int good[LF_BURST_MAX];
	unsigned int i, n_good = 0, n_sw = 0;
	struct lf_worker_stats stats;
	struct lf_burst *b;
	uint16_t k;

	memset(&stats, 0, sizeof(stats));
	b = rte_zmalloc("lfut_burst", sizeof(*b), RTE_CACHE_LINE_SIZE);
	assert_non_null(b);
	b->stats = &stats;
	b->prefetch_distance = prefetch;
	for (i = 0; i < n; i++) {
		struct pkt p;
		uint64_t fl;
		int sw, verdict;

		verdict = mixed_packet(i, &p, &fl, &sw);
		pkts[i] = orig[i] = to_mbuf(&p, fl);
		n_sw += sw;
		if (verdict == NO_DROP)
			good[n_good++] = i;
		else
			drops[verdict]++;
	}
	k = parse_burst(b, pkts, n);
	assert_int_equal(k, n_good);
	/* Survivors are compacted in order, with their own meta. */
	for (i = 0; i < k; i++) {
		assert_ptr_equal(pkts[i], orig[good[i]]);
		switch (good[i] % 9) {
		case 0:
			assert_int_equal(b->meta[i].af, 4);
			assert_int_equal(b->meta[i].l4_off, 34);
			break;
		case 1:
			assert_int_equal(b->meta[i].af, 6);
			assert_int_equal(b->meta[i].l4_off, 54);
			break;
		default:
			assert_int_equal(b->meta[i].af, 4);
			assert_int_equal(b->meta[i].l3_off, 18);
			assert_int_equal(b->meta[i].l4_proto, IPPROTO_TCP);
		}
	}
	/* What is not IP goes on to LF_KIND_OTHER, in order, to be counted
	 * non_ip there; parse counts the rest. */
	assert_int_equal(stats.drops[LF_DROP_NON_IP], 0);
	assert_int_equal(b->n_div[LF_KIND_OTHER], drops[LF_DROP_NON_IP]);
	for (i = 0; i < b->n_div[LF_KIND_OTHER]; i++)
		assert_int_equal(b->div_meta[LF_KIND_OTHER][i].kind, LF_KIND_OTHER);
	for (i = 0; i < LF_DROP_COUNT; i++)
		if (i != LF_DROP_NON_IP)
			assert_int_equal(stats.drops[i], drops[i]);
	assert_int_equal(stats.ipv4_cksum_sw, n_sw);
	/* Drops are only queued; flushing frees them. */
	assert_int_equal(b->n_dropped, n - n_good - drops[LF_DROP_NON_IP]);
	lf_burst_drops_flush(b);
	assert_int_equal(b->n_dropped, 0);
	rte_pktmbuf_free_bulk(b->div[LF_KIND_OTHER], b->n_div[LF_KIND_OTHER]);
	rte_pktmbuf_free_bulk(pkts, k);
	rte_free(b);
}

static void
test_parse_burst(void **state)
{
	static const uint16_t sizes[] = { 0, 1, 2, 8, 9, 31, 32, 33, 100, 256 };
	static const uint16_t dists[] = { 0, 1, 4, 8, 32 };
	unsigned int s, d;

	(void)state;
	for (s = 0; s < RTE_DIM(sizes); s++)
		for (d = 0; d < RTE_DIM(dists); d++) {
			run_parse_burst(sizes[s], dists[d]);
			assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
		}
}

/* ---- lf_parse_ipv4_plain_x8 against lf_parse_ipv4_plain ---- */

#define X8_GROUPS 250000u

static uint64_t x8_rng = 0x243f6a8885a308d3ull;

static uint64_t
x8_rnd(void)
{
	x8_rng ^= x8_rng >> 12;
	x8_rng ^= x8_rng << 25;
	x8_rng ^= x8_rng >> 27;
	return x8_rng * 2685821657736338717ull;
}

static uint16_t
x8_pick16(const uint16_t *v, unsigned int n)
{
	return v[x8_rnd() % n];
}

/* Checksum of the 20-byte header at h, in the byte order it is stored. */
static void
x8_set_cksum(uint8_t *h)
{
	uint16_t c;

	h[10] = h[11] = 0;
	c = rte_ipv4_cksum((const struct rte_ipv4_hdr *)h);
	memcpy(h + 10, &c, sizeof(c));
}

/*
 * A plain IPv4 packet in m, valid or with one or two fields set to a corner
 * value: EtherType, version/IHL, total length, fragment field, TTL, every
 * protocol, checksum (wrong, or 0x0000/0xffff), RX checksum flags, data and
 * packet lengths, data offset.
 */
static void
x8_packet(struct rte_mbuf *m)
{
	static const uint16_t ethertypes[] = { 0x0800, 0x86dd, 0x8100, 0x0806, 0x0008, 0x0900 };
	static const uint16_t frags[] = { 0x0000, 0x2000, 0x4000, 0x0001, 0x1fff,
					  0xe000, 0x0100, 0x2001, 0x8000 };
	static const uint8_t verihl[] = { 0x44, 0x46, 0x4f, 0x55, 0x65, 0x05, 0x40, 0x35 };
	static const uint8_t ttls[] = { 0, 1, 2, 3, 128, 255 };
	static const uint64_t flags[] = {
		RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
		RTE_MBUF_F_RX_IP_CKSUM_BAD,     RTE_MBUF_F_RX_IP_CKSUM_NONE,
		RTE_MBUF_F_RX_L4_CKSUM_BAD,     RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_IP_CKSUM_GOOD,
	};
	unsigned int proto = x8_rnd() % 4 == 0
		? (unsigned int)(x8_rnd() % 256)
		: (const unsigned int[]){ 17, 6, 1, 58 }[x8_rnd() % 4];
	unsigned int need = lf_l4_min_len[proto];
	unsigned int len = 20 + need + x8_rnd() % 40; /* IP total length */
	unsigned int extra = x8_rnd() % 4 == 0 ? x8_rnd() % 32 : 0;
	unsigned int mut = x8_rnd() % 2 ? 0 : 1 + x8_rnd() % 2;
	uint16_t headroom = (uint16_t)(x8_rnd() % 8 == 0 ? x8_rnd() % 256 : RTE_PKTMBUF_HEADROOM);
	uint8_t *d, *h;
	unsigned int i;
	uint16_t v;

	rte_pktmbuf_reset(m);
	m->data_off = RTE_MIN(headroom, (uint16_t)(m->buf_len - 14 - 60 - 64));
	d = rte_pktmbuf_mtod(m, uint8_t *);
	for (i = 0; i < 14 + 60 + 32; i++)
		d[i] = (uint8_t)x8_rnd();
	d[12] = 0x08;
	d[13] = 0x00;
	h = d + 14;
	h[0] = 0x45;
	h[2] = len >> 8;
	h[3] = len & 0xff;
	h[6] = h[7] = 0;
	if (x8_rnd() % 4 == 0)
		h[6] = 0x40; /* DF */
	h[8] = 2 + x8_rnd() % 254;
	h[9] = proto;
	x8_set_cksum(h);
	m->data_len = 14 + len + extra;
	m->pkt_len = m->data_len + (x8_rnd() % 4 == 0 ? x8_rnd() % 3000 : 0);
	m->ol_flags = x8_rnd() % 2 ? RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN : RTE_MBUF_F_RX_IP_CKSUM_GOOD;

	while (mut-- > 0) {
		bool fix = x8_rnd() % 4 != 0; /* checksum recomputed after */

		switch (x8_rnd() % 10) {
		case 0:
			v = x8_pick16(ethertypes, RTE_DIM(ethertypes));
			d[12] = v >> 8;
			d[13] = v & 0xff;
			break;
		case 1:
			h[0] = x8_rnd() % 2 ? verihl[x8_rnd() % RTE_DIM(verihl)]
					    : (uint8_t)x8_rnd();
			break;
		case 2: {
			const uint16_t tl[] = { 0,
						19,
						20,
						(uint16_t)(20 + need - 1),
						(uint16_t)(20 + need),
						(uint16_t)(m->pkt_len - 14),
						(uint16_t)(m->pkt_len - 13),
						(uint16_t)(m->pkt_len - 15),
						0xffff,
						(uint16_t)x8_rnd() };

			v = x8_pick16(tl, RTE_DIM(tl));
			h[2] = v >> 8;
			h[3] = v & 0xff;
			break;
		}
		case 3:
			/* A listed value, a single bit (each offset bit alone), or any. */
			switch (x8_rnd() % 3) {
			case 0:
				v = x8_pick16(frags, RTE_DIM(frags));
				break;
			case 1:
				v = (uint16_t)(1u << (x8_rnd() % 16));
				break;
			default:
				v = (uint16_t)x8_rnd();
			}
			h[6] = v >> 8;
			h[7] = v & 0xff;
			break;
		case 4:
			h[8] = ttls[x8_rnd() % RTE_DIM(ttls)];
			break;
		case 5:
			h[9] = (uint8_t)x8_rnd();
			break;
		case 6:
			/* A wrong checksum, or the other representation of zero. */
			fix = false;
			if (x8_rnd() % 2) {
				h[10 + x8_rnd() % 2] ^= (uint8_t)(1u << (x8_rnd() % 8));
			} else {
				x8_set_cksum(h);
				if (h[10] == 0 && h[11] == 0)
					h[10] = h[11] = 0xff;
				else if (h[10] == 0xff && h[11] == 0xff)
					h[10] = h[11] = 0;
				else
					h[10] ^= 0x80;
			}
			break;
		case 7:
			m->ol_flags = flags[x8_rnd() % RTE_DIM(flags)];
			break;
		case 8: {
			const uint16_t dl[] = { 0,
						13,
						14,
						33,
						34,
						(uint16_t)(34 + need - 1),
						(uint16_t)(34 + need),
						(uint16_t)(m->data_len - 1),
						(uint16_t)(m->data_len + 1) };

			m->data_len = RTE_MIN(x8_pick16(dl, RTE_DIM(dl)), (uint16_t)(14 + 60 + 32));
			break;
		}
		default:
			m->pkt_len = x8_rnd() % 2 ? (uint32_t)m->data_len - 1
						  : (uint32_t)(x8_rnd() % 200);
			break;
		}
		if (fix)
			x8_set_cksum(h);
	}
}

static void
test_parse_x8_same_verdicts(void **state)
{
	struct rte_mbuf *pkts[8];
	uint32_t dst[8], ttlw[8];
	uint8_t *data[8];
	uint64_t verdicts[3] = { 0 }, full_groups = 0, ttl_checked = 0;
	unsigned int g, i;

	(void)state;
	/* The vector check reads lf_l4_min_len[0..63] only. */
	for (i = 64; i < 256; i++)
		assert_int_equal(lf_l4_min_len[i], 0);
	/*
	 * The eight-packet check is the AVX-512 build's (fastpath.h): where
	 * the CPU cannot run it, the fused stages must refuse that build and
	 * fall back to the scalar one, and that is all there is to check.
	 */
	if (!fastpath_avx512_usable()) {
		struct lf_burst *b = rte_zmalloc("lfut_burst", sizeof(*b), RTE_CACHE_LINE_SIZE);

		assert_non_null(b);
		assert_int_equal(fastpath_select(b, LF_FUSED_AVX512), -ENOTSUP);
		assert_int_equal(fastpath_select(b, LF_FUSED_AUTO), 0);
		assert_false(b->fused_avx512);
		assert_ptr_equal(b->fused_ip4, fastpath_burst_scalar);
		rte_free(b);
		print_message("x8: this CPU cannot run the AVX-512 build; scalar selected\n");
		return;
	}
	assert_int_equal(rte_pktmbuf_alloc_bulk(pool, pkts, 8), 0);
	for (g = 0; g < X8_GROUPS; g++) {
		unsigned int ok, sw;

		for (i = 0; i < 8; i++)
			x8_packet(pkts[i]);
		memset(dst, 0, sizeof(dst));
		ok = fastpath_check_avx512(pkts, dst, data, &sw, ttlw);
		full_groups += ok == 0xff;
		for (i = 0; i < 8; i++) {
			unsigned int proto, need, r;
			uint32_t want_dst = 0;

			r = lf_parse_ipv4_plain(pkts[i], &proto, &need, &want_dst);
			verdicts[r]++;
			if (((ok >> i) & 1) != (r != 0) || ((sw >> i) & 1) != (r == 2))
				fail_msg("group %u packet %u: scalar %u, x8 ok %u sw %u", g, i, r,
					 (ok >> i) & 1, (sw >> i) & 1);
			assert_ptr_equal(data[i], rte_pktmbuf_mtod(pkts[i], uint8_t *));
			if (r != 0)
				assert_int_equal(dst[i], want_dst);
			/*
			 * The TTL/protocol/checksum word after the decrement:
			 * where the header verifies, what a recompute with
			 * TTL - 1 gives (a NIC-vouched header may not verify).
			 */
			if (r != 0 && rte_raw_cksum(data[i] + RTE_ETHER_HDR_LEN, 20) == 0xffff) {
				struct rte_ipv4_hdr h;
				uint32_t want;

				memcpy(&h, data[i] + RTE_ETHER_HDR_LEN, sizeof(h));
				h.time_to_live--;
				h.hdr_checksum = 0;
				h.hdr_checksum = rte_ipv4_cksum(&h);
				memcpy(&want, &h.time_to_live, sizeof(want));
				assert_int_equal(ttlw[i], want);
				ttl_checked++;
			}
		}
	}
	rte_pktmbuf_free_bulk(pkts, 8);
	print_message("x8: %llu refused, %llu accepted, %llu after a software checksum; "
		      "%llu whole groups accepted\n",
		      (unsigned long long)verdicts[0], (unsigned long long)verdicts[1],
		      (unsigned long long)verdicts[2], (unsigned long long)full_groups);
	/* Both verdicts, and both kinds of acceptance, in quantity. */
	for (i = 0; i < 3; i++)
		assert_true(verdicts[i] > X8_GROUPS / 4);
	assert_true(full_groups > 100);
	assert_true(ttl_checked > X8_GROUPS / 4);
}

/* ---- receive checks (issue 15): martian sources, the port's L2 checks ---- */

/*
 * The oracle: RFC 1812 5.3.7's and RFC 4291's lists written out plainly,
 * address by address, independent of parse.c. IPv4: "this network" 0/8,
 * loopback 127/8, multicast 224/4 and reserved 240/4 (which holds
 * 255.255.255.255) never forwarded from; except 0.0.0.0 to 255.255.255.255,
 * a DHCP client's discover, which is the router's to receive.
 */
static int
oracle_src4_martian(uint32_t src, uint32_t dst)
{
	const unsigned int first = src >> 24;

	if (src == 0 && dst == 0xffffffffu)
		return 0;
	if (first == 0)
		return 1;
	if (first == 127)
		return 1;
	if (first >= 224 && first <= 239)
		return 1;
	if (first >= 240)
		return 1;
	return 0;
}

/* IPv6: ::, ::1 and ff00::/8; :: to link-scope multicast (DAD, MLD) excepted. */
static int
oracle_src6_martian(const uint8_t *src, const uint8_t *dst)
{
	static const uint8_t unspec[16] = { 0 };
	static const uint8_t loop[16] = { [15] = 1 };

	if (src[0] == 0xff)
		return 1;
	if (memcmp(src, loop, 16) == 0)
		return 1;
	if (memcmp(src, unspec, 16) == 0)
		return !(dst[0] == 0xff && dst[1] == 0x02);
	return 0;
}

static uint64_t rx_rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rx_rnd(void)
{
	rx_rng ^= rx_rng << 13;
	rx_rng ^= rx_rng >> 7;
	rx_rng ^= rx_rng << 17;
	return (uint32_t)(rx_rng >> 16);
}

static void
set_ipv4_addrs(struct pkt *p, uint32_t src, uint32_t dst)
{
	uint32_t s = rte_cpu_to_be_32(src), d = rte_cpu_to_be_32(dst);

	memcpy(&ip4(p)->src_addr, &s, 4);
	memcpy(&ip4(p)->dst_addr, &d, 4);
	fix_ipv4_cksum(p);
}

/* Verdict of parse_packet and of the fast check on a packet made here. */
static int
verdict4(uint32_t src, uint32_t dst, unsigned int *fast)
{
	struct lf_meta meta;
	struct rte_mbuf *m;
	struct pkt p;
	unsigned int proto, need;
	uint32_t d;
	int sw, ret;

	good_ipv4(&p, 64);
	set_ipv4_addrs(&p, src, dst);
	m = to_mbuf(&p, 0);
	ret = parse_packet(m, &meta, &sw);
	*fast = lf_parse_ipv4_plain(m, &proto, &need, &d);
	rte_pktmbuf_free(m);
	return ret;
}

static void
test_martian_src4_oracle(void **state)
{
	static const uint32_t edges[] = {
		0x00000000, 0x00000001, 0x00ffffff, 0x01000000, 0x0a000001, 0x7effffff, 0x7f000000,
		0x7f000001, 0x7fffffff, 0x80000000, 0xa9fe0001, 0xc0000201, 0xdfffffff, 0xe0000000,
		0xe0000005, 0xefffffff, 0xf0000000, 0xf0000001, 0xfffffffe, 0xffffffff,
	};
	static const uint32_t dsts[] = { 0xc6336409, 0xffffffff, 0xe0000005, 0x00000000 };
	unsigned int i, j, fast, counts[2] = { 0, 0 };

	(void)state;
	for (i = 0; i < RTE_DIM(edges) + 20000; i++) {
		const uint32_t src =
			i < RTE_DIM(edges) ? edges[i] : rx_rnd() | (rx_rnd() & 1) << 31;

		for (j = 0; j < RTE_DIM(dsts) + 1; j++) {
			const uint32_t dst = j < RTE_DIM(dsts) ? dsts[j] : rx_rnd();
			const int want = oracle_src4_martian(src, dst);
			const int got = verdict4(src, dst, &fast);

			if (got != (want ? LF_DROP_MARTIAN_SRC : NO_DROP))
				fail_msg("src %08x dst %08x: parse %d, oracle martian %d", src, dst,
					 got, want);
			/* The fast check never takes a martian (nor the exception:
			 * the general parser decides it). */
			if (want && fast != 0)
				fail_msg("src %08x dst %08x: fast check took a martian", src, dst);
			if (!want && src >> 24 != 0 && fast == 0)
				fail_msg("src %08x dst %08x: fast check refused", src, dst);
			counts[want]++;
		}
	}
	/* Both verdicts, in quantity. */
	assert_true(counts[0] > 10000);
	assert_true(counts[1] > 10000);
}

static int
verdict6(const uint8_t *src, const uint8_t *dst)
{
	struct lf_meta meta;
	struct pkt p;

	good_ipv6(&p, 64);
	memcpy(ip6(&p)->src_addr, src, 16);
	memcpy(ip6(&p)->dst_addr, dst, 16);
	return parse(&p, &meta);
}

static void
test_martian_src6_oracle(void **state)
{
	static const uint8_t edges[][16] = {
		{ 0 },
		{ [15] = 1 },
		{ [15] = 2 },
		{ [14] = 1 },
		{ [0] = 1 },
		{ [10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1 }, /* ::ffff:127.0.0.1 */
		{ 0xfe, 0x80, [15] = 1 },
		{ 0xfe, 0xc0, [15] = 1 },
		{ 0xfe, 0xff, [15] = 1 },
		{ 0xff },
		{ 0xff, 0x02, [15] = 1 },
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff },
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	};
	static const uint8_t dsts[][16] = {
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
		{ 0xff, 0x02, [15] = 1 },
		{ 0xff, 0x02, [11] = 1, 0xff, 0x00, 0x00, 0x01 },
		{ 0xff, 0x05, [15] = 2 },
		{ 0xfe, 0x80, [15] = 1 },
	};
	unsigned int i, j, k, counts[2] = { 0, 0 };
	uint8_t src[16];

	(void)state;
	for (i = 0; i < RTE_DIM(edges) + 5000; i++) {
		if (i < RTE_DIM(edges)) {
			memcpy(src, edges[i], 16);
		} else {
			for (k = 0; k < 16; k++)
				src[k] = (uint8_t)rx_rnd();
			/* Near the special ones now and then. */
			if (i % 4 == 0)
				src[0] = 0xff;
			else if (i % 4 == 1)
				memset(src, 0, 15);
		}
		for (j = 0; j < RTE_DIM(dsts); j++) {
			const int want = oracle_src6_martian(src, dsts[j]);
			const int got = verdict6(src, dsts[j]);

			if (got != (want ? LF_DROP_MARTIAN_SRC : NO_DROP))
				fail_msg("IPv6 source %u (dst %u): parse %d, oracle martian %d", i,
					 j, got, want);
			counts[want]++;
		}
	}
	assert_true(counts[0] > 2000);
	assert_true(counts[1] > 2000);
}

/* ---- the port's link-layer checks ---- */

static const struct rte_ether_addr our_mac = { { 0x02, 0, 0, 0, 0, 0x01 } };

/* Frame dst MAC of the packet, rewritten in place. */
static void
set_dmac(struct pkt *p, const uint8_t *mac)
{
	memcpy(p->b, mac, 6);
}

static void
set_ipv4_dst(struct pkt *p, uint32_t dst)
{
	uint32_t d = rte_cpu_to_be_32(dst);

	memcpy(&ip4(p)->dst_addr, &d, 4);
	fix_ipv4_cksum(p);
}

static int
parse_port(const struct pkt *p, const struct lf_port_l3 *port, struct lf_meta *meta)
{
	struct rte_mbuf *m = to_mbuf(p, 0);
	int sw, ret;

	memset(meta, 0xa5, sizeof(*meta));
	ret = parse_packet_port(m, meta, &sw, port);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), p->b, p->len);
	rte_pktmbuf_free(m);
	return ret;
}

static void
test_l2_checks(void **state)
{
	static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x09 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mc4[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x05 };
	static const uint8_t mc6[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t ff02_1[16] = { 0xff, 0x02, [15] = 1 };
	static const uint16_t t1[] = { RTE_ETHER_TYPE_VLAN };
	struct lf_port_l3 routed, promisc;
	struct lf_meta meta;
	struct pkt p;

	(void)state;
	memset(&routed, 0, sizeof(routed));
	routed.mac = our_mac;
	promisc = routed;
	promisc.promisc = true;

	/* Unicast: to the port's MAC, to another. */
	good_ipv4(&p, 64);
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);
	assert_int_equal(parse_port(&p, NULL, &meta), NO_DROP);
	set_dmac(&p, other);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_NOT_OURS);
	assert_int_equal(parse_port(&p, &promisc, &meta), NO_DROP);
	assert_int_equal(parse_port(&p, NULL, &meta), NO_DROP);
	/* Whatever the frame holds: not ours is decided first. */
	l2(&p, RTE_ETHER_TYPE_ARP);
	put_bytes(&p, 28);
	set_dmac(&p, other);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_NOT_OURS);
	put_l2(&p, t1, 1, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 64, IPPROTO_UDP, 0, 18);
	set_dmac(&p, other);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_NOT_OURS);
	set_dmac(&p, our_mac.addr_bytes);
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);
	assert_int_equal(meta.l3_off, 18);

	/* Group frames: IP to a group goes on, unicast IP is dropped. */
	good_ipv4(&p, 64);
	set_dmac(&p, bcast);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_MCAST_UNICAST_IP);
	assert_int_equal(parse_port(&p, &promisc, &meta), LF_DROP_L2_MCAST_UNICAST_IP);
	assert_int_equal(parse_port(&p, NULL, &meta), NO_DROP);
	set_ipv4_dst(&p, 0xffffffff);
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);
	set_ipv4_dst(&p, 0xf0000001); /* class E is not a group */
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_MCAST_UNICAST_IP);
	set_dmac(&p, mc4);
	set_ipv4_dst(&p, 0xc6336409);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_MCAST_UNICAST_IP);
	set_ipv4_dst(&p, 0xe0000005);
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);
	/* OSPF's TTL 1 to its group: the router's, not expired ... */
	good_ipv4(&p, 1);
	set_dmac(&p, mc4);
	set_ipv4_dst(&p, 0xe0000005);
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);
	assert_int_equal(meta.af, 4);
	assert_int_equal(meta.l4_off, 34);
	/* ... but without the port's checks as before, and unicast TTL 1 is. */
	assert_int_equal(parse_port(&p, NULL, &meta), LF_DROP_TTL_EXPIRED);
	good_ipv4(&p, 1);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_TTL_EXPIRED);
	/* A martian source in a good group frame is still martian. */
	good_ipv4(&p, 64);
	set_dmac(&p, bcast);
	set_ipv4_addrs(&p, 0x7f000001, 0xffffffff);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_MARTIAN_SRC);
	set_ipv4_addrs(&p, 0, 0xffffffff); /* DHCP discover */
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);

	/* IPv6 alike. */
	good_ipv6(&p, 64);
	set_dmac(&p, mc6);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_MCAST_UNICAST_IP);
	memcpy(ip6(&p)->dst_addr, ff02_1, 16);
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);
	ip6(&p)->hop_limits = 1; /* MLD's hop limit */
	assert_int_equal(parse_port(&p, &routed, &meta), NO_DROP);
	assert_int_equal(meta.af, 6);
	assert_int_equal(parse_port(&p, NULL, &meta), LF_DROP_TTL_EXPIRED);
	good_ipv6(&p, 64);
	set_dmac(&p, other);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_NOT_OURS);
	assert_int_equal(parse_port(&p, &promisc, &meta), NO_DROP);

	/* ARP: to the neighbour code with the port's checks, else not IP. */
	put_l2(&p, t1, 1, RTE_ETHER_TYPE_ARP);
	put_bytes(&p, 28);
	set_dmac(&p, bcast);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_PARSE_ARP);
	assert_int_equal(meta.l3_off, 18);
	assert_int_equal(parse_port(&p, NULL, &meta), LF_DROP_NON_IP);
	set_dmac(&p, our_mac.addr_bytes);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_PARSE_ARP);
	/* Other EtherTypes in a group frame: not IP, for kind other. */
	l2(&p, 0x88cc); /* LLDP */
	put_bytes(&p, 40);
	set_dmac(&p, mc4);
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_NON_IP);
	/* Malformed before everything. */
	good_ipv4(&p, 64);
	p.len = 13;
	assert_int_equal(parse_port(&p, &routed, &meta), LF_DROP_L2_MALFORMED);
}

/*
 * A malformed L4 header wins over an expired TTL (no ICMP error about a
 * malformed packet); an expired one is filled in whole for the ICMP stage.
 */
static void
test_ttl_after_l4(void **state)
{
	struct lf_meta meta;
	struct pkt p;

	(void)state;
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 5, 1, IPPROTO_TCP, 0, 10);
	expect_drop(&p, LF_DROP_L4_MALFORMED);
	l2(&p, RTE_ETHER_TYPE_IPV4);
	put_ipv4(&p, 6, 1, IPPROTO_TCP, 0, 20);
	assert_int_equal(parse(&p, &meta), LF_DROP_TTL_EXPIRED);
	assert_int_equal(meta.l3_off, 14);
	assert_int_equal(meta.l4_off, 38);
	assert_int_equal(meta.af, 4);
	assert_int_equal(meta.l4_proto, IPPROTO_TCP);
	/* IPv6 through an extension header. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 1, IPPROTO_DSTOPTS);
	put_ext(&p, IPPROTO_UDP, 8);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	assert_int_equal(parse(&p, &meta), LF_DROP_TTL_EXPIRED);
	assert_int_equal(meta.l4_off, 14 + 40 + 8);
	assert_int_equal(meta.af, 6);
	assert_int_equal(meta.l4_proto, IPPROTO_UDP);
	/* A non-first fragment expires too. */
	l2(&p, RTE_ETHER_TYPE_IPV6);
	put_ipv6(&p, 0, IPPROTO_FRAGMENT);
	put_frag6(&p, IPPROTO_UDP, 100, 0);
	put_bytes(&p, 8);
	fin_ipv6(&p);
	assert_int_equal(parse(&p, &meta), LF_DROP_TTL_EXPIRED);
	assert_int_equal(meta.l4_off, 0);
}

/* ---- parse_burst with b->local: counters, diversions ---- */

enum rx_case {
	RX_GOOD4, /* to our MAC */
	RX_GOOD6,
	RX_FOREIGN, /* unicast to another MAC */
	RX_BCAST_UNICAST, /* broadcast frame, unicast IP */
	RX_MARTIAN4,
	RX_MARTIAN6,
	RX_ARP,
	RX_TTL4,
	RX_TTL6,
	RX_CASES
};

/* Packet of case c; the verdict it gets on a routed port with local set. */
static void
rx_packet(enum rx_case c, struct pkt *p)
{
	static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	switch (c) {
	case RX_GOOD4:
		good_ipv4(p, 64);
		break;
	case RX_GOOD6:
		good_ipv6(p, 64);
		break;
	case RX_FOREIGN:
		good_ipv4(p, 64);
		set_dmac(p, other);
		break;
	case RX_BCAST_UNICAST:
		good_ipv4(p, 64);
		set_dmac(p, bcast);
		break;
	case RX_MARTIAN4:
		good_ipv4(p, 64);
		set_ipv4_addrs(p, 0xe0000001 + (rx_rnd() & 0x1fffffff), 0xc6336409);
		break;
	case RX_MARTIAN6:
		good_ipv6(p, 64);
		ip6(p)->src_addr[0] = 0xff;
		break;
	case RX_ARP:
		l2(p, RTE_ETHER_TYPE_ARP);
		put_bytes(p, 28);
		set_dmac(p, bcast);
		break;
	case RX_TTL4:
		good_ipv4(p, 1);
		break;
	default:
		good_ipv6(p, 1);
	}
}

static void
run_rx_burst(bool local_on, bool time_exceeded, bool promisc, uint16_t n)
{
	struct rte_mbuf *pkts[LF_BURST_MAX];
	unsigned int count[RX_CASES] = { 0 }, i;
	enum rx_case cases[LF_BURST_MAX];
	struct lf_worker_stats stats;
	struct lf_local *local;
	struct lf_burst *b;
	uint16_t k;

	memset(&stats, 0, sizeof(stats));
	b = rte_zmalloc("lfut_burst", sizeof(*b), RTE_CACHE_LINE_SIZE);
	local = rte_zmalloc("lfut_local", sizeof(*local), RTE_CACHE_LINE_SIZE);
	assert_non_null(b);
	assert_non_null(local);
	local->n_ports = 2;
	local->time_exceeded = time_exceeded;
	local->port[1].mac = our_mac;
	local->port[1].promisc = promisc;
	b->stats = &stats;
	b->prefetch_distance = 4;
	b->rx_port = 1;
	b->local = local_on ? local : NULL;
	for (i = 0; i < n; i++) {
		struct pkt p;

		cases[i] = (enum rx_case)(rx_rnd() % RX_CASES);
		rx_packet(cases[i], &p);
		count[cases[i]]++;
		pkts[i] = to_mbuf(&p, 0);
	}
	k = parse_burst(b, pkts, n);

	/* Counters per reason. */
	assert_int_equal(stats.drops[LF_DROP_MARTIAN_SRC], count[RX_MARTIAN4] + count[RX_MARTIAN6]);
	if (local_on) {
		const unsigned int ttl = count[RX_TTL4] + count[RX_TTL6];
		unsigned int j;

		assert_int_equal(stats.drops[LF_DROP_L2_NOT_OURS], promisc ? 0 : count[RX_FOREIGN]);
		assert_int_equal(stats.drops[LF_DROP_L2_MCAST_UNICAST_IP], count[RX_BCAST_UNICAST]);
		assert_int_equal(b->n_div[LF_KIND_NEIGH], count[RX_ARP]);
		assert_int_equal(b->n_div[LF_KIND_OTHER], 0);
		assert_int_equal(stats.drops[LF_DROP_NON_IP], 0);
		/* Every expired one goes to kind icmp, which delivers what is for
		 * the router and answers or drops the rest as time_exceeded says. */
		assert_int_equal(stats.drops[LF_DROP_TTL_EXPIRED], 0);
		assert_int_equal(b->n_div[LF_KIND_ICMP], ttl);
		assert_int_equal(k,
				 count[RX_GOOD4] + count[RX_GOOD6] +
					 (promisc ? count[RX_FOREIGN] : 0));
		for (j = 0; j < b->n_div[LF_KIND_NEIGH]; j++) {
			const struct lf_meta *dm = &b->div_meta[LF_KIND_NEIGH][j];

			assert_int_equal(dm->kind, LF_KIND_NEIGH);
			assert_int_equal(dm->l3_off, 14);
			assert_int_equal(rte_pktmbuf_mtod(b->div[LF_KIND_NEIGH][j], uint8_t *)[13],
					 0x06);
		}
		for (j = 0; j < b->n_div[LF_KIND_ICMP]; j++) {
			const struct lf_meta *dm = &b->div_meta[LF_KIND_ICMP][j];
			const uint8_t *d = rte_pktmbuf_mtod(b->div[LF_KIND_ICMP][j], uint8_t *);

			assert_int_equal(dm->kind, LF_KIND_ICMP);
			assert_int_equal(dm->nh, LF_ICMP_TTL);
			assert_int_equal(dm->l3_off, 14);
			assert_int_equal(dm->l4_proto, IPPROTO_UDP);
			if (d[12] == 0x08) {
				assert_int_equal(dm->af, 4);
				assert_int_equal(dm->l4_off, 34);
			} else {
				assert_int_equal(dm->af, 6);
				assert_int_equal(dm->l4_off, 54);
			}
		}
	} else {
		/* No L2 checks: foreign and group frames go on, ARP is not IP. */
		assert_int_equal(stats.drops[LF_DROP_L2_NOT_OURS], 0);
		assert_int_equal(stats.drops[LF_DROP_L2_MCAST_UNICAST_IP], 0);
		assert_int_equal(b->n_div[LF_KIND_NEIGH], 0);
		assert_int_equal(b->n_div[LF_KIND_ICMP], 0);
		assert_int_equal(b->n_div[LF_KIND_OTHER], count[RX_ARP]);
		assert_int_equal(stats.drops[LF_DROP_TTL_EXPIRED], count[RX_TTL4] + count[RX_TTL6]);
		assert_int_equal(k,
				 count[RX_GOOD4] + count[RX_GOOD6] + count[RX_FOREIGN] +
					 count[RX_BCAST_UNICAST]);
	}
	/* The kept ones, in order, are the kinds that go on. */
	for (i = 0, k = 0; i < n; i++) {
		const bool kept = cases[i] == RX_GOOD4 || cases[i] == RX_GOOD6 ||
			(cases[i] == RX_FOREIGN && (!local_on || promisc)) ||
			(cases[i] == RX_BCAST_UNICAST && !local_on);

		if (kept) {
			assert_int_equal(b->meta[k].kind, LF_KIND_IP);
			k++;
		}
	}
	lf_burst_drops_flush(b);
	for (i = 0; i < LF_KIND_COUNT; i++)
		rte_pktmbuf_free_bulk(b->div[i], b->n_div[i]);
	rte_pktmbuf_free_bulk(pkts, k);
	rte_free(b);
	rte_free(local);
}

static void
test_parse_burst_local(void **state)
{
	static const uint16_t sizes[] = { 1, 7, 32, 100, 256 };
	unsigned int s, v;

	(void)state;
	for (s = 0; s < RTE_DIM(sizes); s++)
		for (v = 0; v < 8; v++) {
			run_rx_burst(v & 1, v & 2, v & 4, sizes[s]);
			assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
		}
}

/* A port index past local's ports has no L2 side: no checks. */
static void
test_parse_burst_unknown_port(void **state)
{
	static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	struct rte_mbuf *pkts[2];
	struct lf_worker_stats stats;
	struct lf_local *local;
	struct lf_burst *b;
	struct pkt p;

	(void)state;
	memset(&stats, 0, sizeof(stats));
	b = rte_zmalloc("lfut_burst", sizeof(*b), RTE_CACHE_LINE_SIZE);
	local = rte_zmalloc("lfut_local", sizeof(*local), RTE_CACHE_LINE_SIZE);
	assert_non_null(b);
	assert_non_null(local);
	local->n_ports = 1;
	local->port[0].mac = our_mac;
	b->stats = &stats;
	b->local = local;
	b->rx_port = 0;
	good_ipv4(&p, 64);
	set_dmac(&p, other);
	pkts[0] = to_mbuf(&p, 0);
	pkts[1] = to_mbuf(&p, 0);
	assert_int_equal(parse_burst(b, pkts, 1), 0);
	assert_int_equal(stats.drops[LF_DROP_L2_NOT_OURS], 1);
	lf_burst_drops_flush(b);
	b->rx_port = 1;
	assert_int_equal(parse_burst(b, pkts + 1, 1), 1);
	rte_pktmbuf_free(pkts[1]);
	rte_free(b);
	rte_free(local);
}

#define T(f) cmocka_unit_test_teardown(f, check_pool)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* Malformed input first. */
		T(test_l2_too_short),
		T(test_vlan_three_tags),
		T(test_vlan_truncated_tag),
		T(test_non_ip),
		T(test_ipv4_truncated_header),
		T(test_ipv4_bad_version),
		T(test_ipv4_bad_ihl),
		T(test_ipv4_bad_total_length),
		T(test_ipv4_checksum_software),
		T(test_ipv4_checksum_offload_flags),
		T(test_ipv4_ttl),
		T(test_ipv4_truncated_l4),
		T(test_ipv4_fragments),
		T(test_ipv6_truncated_header),
		T(test_ipv6_bad_version),
		T(test_ipv6_payload_length),
		T(test_ipv6_hop_limit),
		T(test_ipv6_truncated_l4),
		T(test_ipv6_extension_malformed),
		T(test_ipv6_fragments),
		/* Then accepted packets and whole bursts. */
		T(test_ipv4_vlan_qinq),
		T(test_ipv4_two_segments),
		T(test_ipv6_extension_chain),
		T(test_ipv6_qinq),
		T(test_parse_burst),
		T(test_parse_x8_same_verdicts),
		/* The receive checks a router makes (issue 15). */
		T(test_martian_src4_oracle),
		T(test_martian_src6_oracle),
		T(test_l2_checks),
		T(test_ttl_after_l4),
		T(test_parse_burst_local),
		T(test_parse_burst_unknown_port),
	};

	return cmocka_run_group_tests_name("parse", tests, group_setup, group_teardown);
}
