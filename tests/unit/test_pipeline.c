/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the whole burst pipeline, pipeline_run() (src/datapath/
 * pipeline.c with its stages and TX), on a struct worker set up by hand:
 * FIB from fib_init(), next-hop table from rewrite_init(), TX buffers on
 * ethdev ports made with rte_eth_from_ring() so that the test dequeues what
 * was transmitted. Bursts of 0, 1, 3, 4, 5, 31, 32, 33 and 67 mixed good and
 * bad packets (burst 32 with larger bursts split as the worker loop would, and
 * burst 256 without splitting) must give: every good packet once, on the
 * right port, in order, with TTL / hop limit decremented, a valid IPv4
 * checksum (full recompute), next-hop MACs and no VLAN tag, byte for byte;
 * drop counters by reason equal to what was sent; no mbuf leaked; and the
 * same output for every prefetch distance. TX back-pressure is checked too.
 * With an ACL (acl_stage.h) on the worker, the same scenarios run through
 * parse -> acl -> fib -> rewrite -> tx: the verdict of each IPv4 and IPv6
 * packet is worked out here by a linear first-match scan of the rules (for
 * IPv6 after walking the extension headers), denied ones must be counted as
 * acl_deny and freed; with an IPv6 ACL alone, IPv4 passes unclassified.
 * The receive checks (martian sources, frames to another MAC or a group,
 * ARP, TTL 1) with b->local unset, on a routed and on a promiscuous port:
 * the fused path refuses or handles exactly what the staged path does.
 */
#define _GNU_SOURCE
#include <inttypes.h>
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
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "acl.h"
#include "config.h"
#include "fib.h"
#include "lf_log.h"
#include "rewrite.h"
#include "route.h"
#include "fastpath.h"
#include "pipeline.h"
#include "worker.h"

#define POOL_SIZE 2047
#define N_PORTS 4 /* Ports 0-2: big rings; port 3: a 7-packet ring. */
#define RING_SIZE 1024
#define SMALL_RING 8
#define MAX_PKTS 1024 /* Packets one scenario sends. */
#define PKT_MAX 256

static struct rte_mempool *pool;
static struct rte_ring *rings[N_PORTS];
static uint16_t port_ids[N_PORTS];
static struct lf_config *cfg;
static struct lf_fib fib;
static struct lf_nh *nh_table;
static uint32_t nh_count;

static const struct rte_ether_addr port_mac[N_PORTS] = {
	{ { 0x02, 0, 0, 0, 0xee, 0x00 } },
	{ { 0x02, 0, 0, 0, 0xee, 0x01 } },
	{ { 0x02, 0, 0, 0, 0xee, 0x02 } },
	{ { 0x02, 0, 0, 0, 0xee, 0x03 } },
};

/* [nexthop ID]: ids 3, 4, 6, 7, 8 have no section. */
static const struct {
	uint32_t id;
	uint16_t port;
	struct rte_ether_addr dst;
	bool has_src;
	struct rte_ether_addr src;
} nexthops[] = {
	{ 0, 0, { { 0x02, 0, 0, 0, 0x10, 0x00 } }, false, { { 0 } } },
	{ 1, 1, { { 0x02, 0, 0, 0, 0x10, 0x01 } }, true, { { 0x02, 0, 0, 0, 0xaa, 0x01 } } },
	{ 2, 2, { { 0x02, 0, 0, 0, 0x10, 0x02 } }, false, { { 0 } } },
	{ 5, 1, { { 0x02, 0, 0, 0, 0x10, 0x05 } }, false, { { 0 } } },
	{ 9, 3, { { 0x02, 0, 0, 0, 0x10, 0x09 } }, false, { { 0 } } },
};

static const char *const routes4[] = {
	"10.0.0.0/8 0",       "10.1.0.0/16 1",    "10.1.2.0/24 2",
	"172.16.0.0/12 5",    "192.168.0.0/16 3", /* next hop without a section */
	"203.0.113.0/24 100", /* next hop past the table */
	"198.18.0.0/15 9", /* the small ring */
};

static const char *const routes6[] = {
	"2001:db8::/32 0",   "2001:db8:1::/48 1",
	"2001:db8:2::/48 4", /* next hop without a section */
	"2001:db8:3::/48 5", "fd00::/8 2",
};

/*
 * The ACL of the ACL tests. IPv4 test packets come from 198.51.100.x; put_ipv4
 * never makes fragments, so UDP and TCP packets always carry their ports.
 */
static const char *const acl_lines[] = {
	"@198.51.100.0/25\t10.1.0.0/16\t0 : 65535\t0 : 32767\t0x11/0xFF\tpermit",
	"@0.0.0.0/0\t10.1.0.0/16\t0 : 65535\t0 : 65535\t0x11/0xFF\tdeny",
	"@0.0.0.0/0\t10.0.0.0/8\t1024 : 65535\t0 : 65535\t0x06/0xFF\tdeny",
	"@0.0.0.0/0\t172.16.0.0/12\t0 : 65535\t0 : 65535\t0x2F/0xFF\tdeny",
	"@198.51.100.128/25\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x01/0xFF\tdeny",
	"@0.0.0.0/0\t8.8.8.8/32\t0 : 65535\t0 : 65535\t0x00/0x00", /* no action: deny */
};
static struct acl_rule_set acl_rules;
static struct acl_ctx *test_acl;

/*
 * The IPv6 ACL of the ACL tests. IPv6 test packets come from fefe::/16 and
 * may carry Hop-by-Hop and Destination Options headers: the rule on
 * protocol 0 (the Hop-by-Hop next header) must never match, since the key
 * holds the upper-layer protocol. fd00::/8 ends in a rule on the last word.
 */
static const char *const acl6_lines[] = {
	"@fefe::/16\t2001:db8:1::/48\t0 : 65535\t0 : 32767\t0x11/0xFF\tpermit",
	"@::/0\t2001:db8:1::/48\t0 : 65535\t0 : 65535\t0x11/0xFF\tdeny",
	"@::/0\t::/0\t0 : 65535\t0 : 65535\t0x00/0xFF\tdeny",
	"@::/0\t2001:db8::/32\t1024 : 65535\t0 : 65535\t0x06/0xFF\tdeny",
	"@fefe:8000::/17\tfd00::/8\t0 : 65535\t0 : 65535\t0x3A/0xFF\tdeny",
	"@::/0\tfd00::8000:0/97\t0 : 65535\t0 : 65535\t0x11/0xFF", /* no action: deny */
};
static struct acl6_rule_set acl6_rules;
static struct acl_ctx *test_acl6;
/* Give new workers the ACLs: 1 both, 2 the IPv6 one only. */
static int acl_on;
/* With a flow table: the one every new worker gets, and its generation. */
static struct lf_flow_table *test_flows;
/* The build of the fused stages the workers get (main runs both). */
static enum lf_fused_simd fused_simd = LF_FUSED_AUTO;
static uint32_t test_gen = 1;

/* IPv6 packets the reference denied. */
static unsigned int acl6_denied;

/* xorshift64*: reproducible, reseeded per scenario. */
static uint64_t rng_state;
/* Make untagged IPv4 without options only, and which entry point to run. */
static int plain_only;
static int staged_only;
/* plain_kind() makes plain IPv4 packets, IPv6 ones and frames that carry no IP (ARP, runts). */
static int aside_frames;
/* K_GOOD6 without extension headers (what the fused IPv6 stage takes). */
static int v6_plain;
/* plain_kind() makes only K_GOOD6 (an IPv6-only link). */
static int v6_only;
/* Good IPv4 packets carry header checksum 0xffff or 0xfeff (counted here). */
static int cksum_edges;
static unsigned int cksum_edges_made;

/*
 * The router's own side on the worker (b->local) and what the packets of
 * the receive-check kinds become: LOCAL_NONE (b->local NULL: no link-layer
 * checks, ARP not IP), LOCAL_ROUTED (port 0 takes only ROUTER_MAC) or
 * LOCAL_PROMISC; time_exc is its [icmp] time_exceeded. rx_checks adds the
 * kinds K_MARTIAN, K_FOREIGN and K_GROUPMAC to the generator.
 */
enum { LOCAL_NONE, LOCAL_ROUTED, LOCAL_PROMISC };
static int local_mode;
static int time_exc;
static int rx_checks;
static struct lf_local test_local_mem;
static struct lf_local *const test_local = &test_local_mem;
static const struct rte_ether_addr router_mac = { { 0x02, 0x77, 0x77, 0x77, 0x77, 0x77 } };

/*
 * The drop reason of a packet parse hands to kind icmp or neigh on this
 * test's worker: it has no ICMP tokens (icmp_tb's period 0), so the icmp
 * stage suppresses the error and drops the packet by its own reason, and
 * no control ring (to_ctrl NULL), so the neigh stage drops ARP as non_ip.
 */
static int
diverted_reason(int kind)
{
	return kind == LF_KIND_ICMP ? LF_DROP_TTL_EXPIRED : LF_DROP_NON_IP;
}

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

/* ---- packet builder ---- */

struct pkt {
	uint8_t b[PKT_MAX];
	unsigned int len;
	unsigned int l3;
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
put32(struct pkt *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p, v & 0xffff);
}

static void
put_bytes(struct pkt *p, unsigned int n)
{
	while (n-- > 0)
		put8(p, rnd());
}

/* Ethernet, TAGS VLAN tags (outer 802.1ad when two), ethertype ET. */
static void
put_l2(struct pkt *p, unsigned int tags, uint16_t et)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 6; i++)
		put8(p, router_mac.addr_bytes[i]); /* to the router */
	for (i = 0; i < 6; i++)
		put8(p, i == 0 ? 0x02 : 0x55);
	for (i = 0; i < tags; i++) {
		put16(p, tags == 2 && i == 0 ? RTE_ETHER_TYPE_QINQ : RTE_ETHER_TYPE_VLAN);
		put16(p, rnd() & 0xfff);
	}
	put16(p, et);
	p->l3 = p->len;
}

static struct rte_ipv4_hdr *
ip4(struct pkt *p)
{
	return (struct rte_ipv4_hdr *)(p->b + p->l3);
}

static void
fix_ipv4(struct pkt *p)
{
	ip4(p)->total_length = rte_cpu_to_be_16(p->len - p->l3);
	ip4(p)->hdr_checksum = 0;
	ip4(p)->hdr_checksum = rte_ipv4_cksum(ip4(p));
}

/*
 * Give the IPv4 header the checksum value hc, the header still verifying,
 * by choosing its identification (as test_cksum does).
 */
static void
set_ipv4_cksum(struct pkt *p, uint16_t hc)
{
	const uint8_t *h = p->b + p->l3;
	uint32_t sum = hc;
	unsigned int i;

	ip4(p)->packet_id = 0;
	ip4(p)->hdr_checksum = 0;
	for (i = 0; i < (h[0] & 0xfu) * 4; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip4(p)->packet_id = rte_cpu_to_be_16((uint16_t)~sum);
	ip4(p)->hdr_checksum = rte_cpu_to_be_16(hc);
}

/* IPv4 header with IHL words and protocol PROTO; the caller adds L4 bytes. */
static void
put_ipv4(struct pkt *p, unsigned int ihl, uint8_t ttl, uint8_t proto, uint32_t dst)
{
	unsigned int i;

	put8(p, 0x40 | ihl);
	put8(p, rnd());
	put16(p, 0);
	put16(p, rnd());
	put16(p, 0);
	put8(p, ttl);
	put8(p, proto);
	put16(p, 0);
	put32(p, 0xc6336400 | (rnd() & 0xff)); /* 198.51.100.x */
	put32(p, dst);
	for (i = 20; i < ihl * 4; i++)
		put8(p, 1);
}

static void
put_ipv6(struct pkt *p, uint8_t hlim, uint8_t nxt, const uint8_t *dst)
{
	unsigned int i;

	put32(p, 0x60000000 | (rnd() & 0xfffff));
	put16(p, 0);
	put8(p, nxt);
	put8(p, hlim);
	for (i = 0; i < 16; i++)
		put8(p, i < 2 ? 0xfe : rnd());
	for (i = 0; i < 16; i++)
		put8(p, dst[i]);
}

static void
fix_ipv6(struct pkt *p)
{
	((struct rte_ipv6_hdr *)(p->b + p->l3))->payload_len =
		rte_cpu_to_be_16(p->len - p->l3 - 40);
}

/* ---- the scenario: packets and what must come out ---- */

enum kind {
	K_GOOD4,
	K_GOOD6,
	K_L2,
	K_L3,
	K_L4,
	K_CKSUM,
	K_TTL,
	K_NOROUTE,
	K_NONH,
	K_NONIP,
	/* The receive checks (issue 15); made only with rx_checks set. */
	K_MARTIAN, /* A martian source (RFC 1812 5.3.7, RFC 4291). */
	K_FOREIGN, /* Good, but in a frame to another unicast MAC. */
	K_GROUPMAC, /* Good, but in a broadcast or multicast frame. */
	K_KINDS
};

struct expect {
	int good;
	int reason; /* Drop reason when not good. */
	int sw; /* IPv4 checksum verified in software. */
	/* Its order class: packets of one class to one port leave in order. */
	unsigned int order;
	unsigned int port; /* Output port index. */
	unsigned int len;
	uint8_t out[PKT_MAX];
};

struct run {
	struct expect exp[MAX_PKTS];
	unsigned int n; /* Packets made. */
	uint64_t drops[LF_DROP_COUNT];
	uint64_t sw;
	unsigned int per_port[N_PORTS]; /* Good packets per port. */
	unsigned int good;
	uint64_t hash[N_PORTS]; /* FNV-1a of each port's output. */
	uint64_t split_bursts, staged_bursts; /* The worker's, at the end. */
};

static void
ipv4_dst(unsigned int nh_idx, uint32_t *dst, unsigned int *port)
{
	uint32_t r = rnd();

	switch (nh_idx % 4) {
	case 0: /* 10.0.0.0/8 but not 10.1/16: next hop 0 */
		*dst = 0x0a000000 | (r & 0xffffff);
		if ((*dst >> 16) == 0x0a01)
			*dst ^= 0x00030000;
		*port = 0;
		break;
	case 1: /* 10.1/16 but not 10.1.2/24: next hop 1 */
		*dst = 0x0a010000 | (r & 0xffff);
		if ((*dst >> 8) == 0x0a0102)
			*dst ^= 0x00000100;
		*port = 1;
		break;
	case 2: /* 10.1.2/24: next hop 2 */
		*dst = 0x0a010200 | (r & 0xff);
		*port = 2;
		break;
	default: /* 172.16/12: next hop 5 */
		*dst = 0xac100000 | (r & 0xfffff);
		*port = 1;
		break;
	}
}

static void
ipv6_dst(unsigned int nh_idx, uint8_t *dst, unsigned int *port)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		dst[i] = rnd();
	dst[0] = 0x20;
	dst[1] = 0x01;
	dst[2] = 0x0d;
	dst[3] = 0xb8;
	switch (nh_idx % 4) {
	case 0: /* 2001:db8::/32 outside the /48s: next hop 0 */
		dst[4] = 0x80 | dst[4];
		*port = 0;
		break;
	case 1:
		dst[4] = 0;
		dst[5] = 1;
		*port = 1;
		break;
	case 2: /* fd00::/8: next hop 2 */
		dst[0] = 0xfd;
		*port = 2;
		break;
	default:
		dst[4] = 0;
		dst[5] = 3;
		*port = 1;
		break;
	}
}

static const struct rte_ether_addr *
nh_src(unsigned int port, unsigned int nh_idx)
{
	/* Next hop 1 (10.1/16, 2001:db8:1::/48) has its own source MAC. */
	if (nh_idx % 4 == 1)
		return &nexthops[1].src;
	return &port_mac[port];
}

/* Destination classes 0-3 use next hops 0, 1, 2 and 5: rows 0-3 of nexthops[]. */
static const struct rte_ether_addr *
nh_dst(unsigned int nh_idx)
{
	return &nexthops[nh_idx % 4].dst;
}

/* What a good packet must look like on the wire after the router. */
static void
expect_output(struct expect *e, const struct pkt *p, unsigned int nh_idx, int af)
{
	const unsigned int l3len = p->len - p->l3;

	memcpy(e->out, nh_dst(nh_idx), 6);
	memcpy(e->out + 6, nh_src(e->port, nh_idx), 6);
	e->out[12] = af == 4 ? 0x08 : 0x86;
	e->out[13] = af == 4 ? 0x00 : 0xdd;
	memcpy(e->out + 14, p->b + p->l3, l3len);
	if (af == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(e->out + 14);

		ip->time_to_live--;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		e->out[14 + 7]--;
	}
	e->len = 14 + l3len;
	e->good = 1;
}

/* Append a 4-byte sequence number: the packet's identity on output. */
static void
put_seq(struct pkt *p, uint32_t seq)
{
	put32(p, seq);
}

static uint32_t
get_seq(const uint8_t *d, unsigned int len)
{
	return (uint32_t)d[len - 4] << 24 | d[len - 3] << 16 | d[len - 2] << 8 | d[len - 1];
}

/* The reference ACL: first matching rule of acl_rules, default permit. */
static int
acl_denies(const struct pkt *p)
{
	const uint8_t *h = p->b + p->l3;
	const unsigned int ihl = (h[0] & 0xf) * 4;
	const uint8_t proto = h[9];
	uint32_t src = (uint32_t)h[12] << 24 | h[13] << 16 | h[14] << 8 | h[15];
	uint32_t dst = (uint32_t)h[16] << 24 | h[17] << 16 | h[18] << 8 | h[19];
	uint16_t sport = 0, dport = 0;
	size_t i;

	if (proto == IPPROTO_UDP || proto == IPPROTO_TCP) {
		sport = h[ihl] << 8 | h[ihl + 1];
		dport = h[ihl + 2] << 8 | h[ihl + 3];
	}
	for (i = 0; i < acl_rules.n; i++) {
		const struct acl_rule *r = &acl_rules.r[i];
		uint32_t sm = r->src_len ? ~0u << (32 - r->src_len) : 0;
		uint32_t dm = r->dst_len ? ~0u << (32 - r->dst_len) : 0;

		if ((src & sm) == r->src && (dst & dm) == r->dst && sport >= r->sport_lo &&
		    sport <= r->sport_hi && dport >= r->dport_lo && dport <= r->dport_hi &&
		    (proto & r->proto_mask) == r->proto)
			return r->action == ACL_DENY;
	}
	return 0;
}

/* Does the prefix a/len cover the address b? */
static int
prefix6_covers(const uint8_t *a, unsigned int len, const uint8_t *b)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (((a[i / 8] ^ b[i / 8]) >> (7 - i % 8)) & 1)
			return 0;
	return 1;
}

/*
 * The reference IPv6 ACL: first matching rule of acl6_rules, default permit.
 * The protocol and ports are those after the extension headers (the test
 * makes Hop-by-Hop and Destination Options only, never fragments).
 */
static int
acl6_denies(const struct pkt *p)
{
	const uint8_t *h = p->b + p->l3;
	unsigned int off = 40;
	uint16_t sport = 0, dport = 0;
	uint8_t proto = h[6];
	size_t i;

	while (proto == IPPROTO_HOPOPTS || proto == IPPROTO_DSTOPTS) {
		proto = h[off];
		off += (h[off + 1] + 1) * 8;
	}
	if (proto == IPPROTO_UDP || proto == IPPROTO_TCP) {
		sport = h[off] << 8 | h[off + 1];
		dport = h[off + 2] << 8 | h[off + 3];
	}
	for (i = 0; i < acl6_rules.n; i++) {
		const struct acl6_rule *r = &acl6_rules.r[i];

		if (prefix6_covers(r->src, r->src_len, h + 8) &&
		    prefix6_covers(r->dst, r->dst_len, h + 24) && sport >= r->sport_lo &&
		    sport <= r->sport_hi && dport >= r->dport_lo && dport <= r->dport_hi &&
		    (proto & r->proto_mask) == r->proto)
			return r->action == ACL_DENY;
	}
	return 0;
}

/* Make packet number SEQ of kind K into an mbuf and record its verdict. */
static struct rte_mbuf *
make_packet(struct run *r, enum kind k)
{
	static const uint8_t l4p4[] = { IPPROTO_UDP, IPPROTO_TCP, IPPROTO_ICMP, IPPROTO_GRE };
	static const uint8_t l4p6[] = { IPPROTO_UDP, IPPROTO_TCP, IPPROTO_ICMPV6 };
	const uint32_t seq = r->n;
	struct expect *e = &r->exp[r->n++];
	unsigned int tags = rnd() % 3, nh_idx = rnd() % 4, ihl = 5 + rnd() % 4, i;

	/* Plain bursts: untagged, no IP options, as the fused fast path takes. */
	if (plain_only) {
		tags = 0;
		ihl = 5;
	}
	uint64_t ol = 0;
	struct rte_mbuf *m;
	uint8_t dst6[16];
	uint32_t dst4;
	struct pkt p;
	char *d;
	/* The link-layer kinds are good packets in another frame. */
	const enum kind frame = k;

	if (k == K_FOREIGN || k == K_GROUPMAC)
		k = plain_only || rnd() % 2 ? K_GOOD4 : K_GOOD6;
	assert_true(r->n <= MAX_PKTS);
	memset(e, 0, sizeof(*e));
	e->reason = -1;
	/* IPv4 checksums arrive unchecked or vouched for by the NIC. */
	if (rnd() % 3 == 0)
		ol = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	switch (k) {
	case K_GOOD4: {
		uint8_t proto = l4p4[rnd() % RTE_DIM(l4p4)];

		ipv4_dst(nh_idx, &dst4, &e->port);
		put_l2(&p, tags, RTE_ETHER_TYPE_IPV4);
		put_ipv4(&p, ihl, 2 + rnd() % 254, proto, dst4);
		put_bytes(&p, 20 + rnd() % 40);
		put_seq(&p, seq);
		fix_ipv4(&p);
		if (cksum_edges && rnd() % 2) {
			set_ipv4_cksum(&p, cksum_edges_made++ % 2 ? 0xffff : 0xfeff);
			assert_int_equal(rte_raw_cksum(p.b + p.l3, ihl * 4), 0xffff);
		}
		/* Sometimes Ethernet padding after the IP packet. */
		if (rnd() % 4 == 0) {
			put_bytes(&p, 1 + rnd() % 20);
			put_seq(&p, seq);
		}
		e->sw = ol == 0;
		expect_output(e, &p, nh_idx, 4);
		break;
	}
	case K_GOOD6: {
		uint8_t proto = l4p6[rnd() % RTE_DIM(l4p6)];
		unsigned int n_ext = v6_plain ? 0 : rnd() % 3;

		ipv6_dst(nh_idx, dst6, &e->port);
		put_l2(&p, tags, RTE_ETHER_TYPE_IPV6);
		put_ipv6(&p, 2 + rnd() % 254, n_ext ? IPPROTO_HOPOPTS : proto, dst6);
		for (i = 0; i < n_ext; i++) {
			put8(&p, i + 1 < n_ext ? IPPROTO_DSTOPTS : proto);
			put8(&p, 0);
			put16(&p, 0x0104);
			put32(&p, 0);
		}
		put_bytes(&p, 20 + rnd() % 40);
		put_seq(&p, seq);
		fix_ipv6(&p);
		ol = 0;
		expect_output(e, &p, nh_idx, 6);
		break;
	}
	case K_L2:
		put_l2(&p, 0, RTE_ETHER_TYPE_IPV4);
		p.len = rnd() % 14;
		e->reason = LF_DROP_L2_MALFORMED;
		break;
	case K_L3:
		ipv4_dst(nh_idx, &dst4, &e->port);
		put_l2(&p, tags, RTE_ETHER_TYPE_IPV4);
		put_ipv4(&p, 5, 64, IPPROTO_UDP, dst4);
		put_bytes(&p, 20);
		fix_ipv4(&p);
		p.b[p.l3] = 0x44; /* IHL 4 */
		e->reason = LF_DROP_L3_MALFORMED;
		break;
	case K_L4:
		ipv4_dst(nh_idx, &dst4, &e->port);
		put_l2(&p, tags, RTE_ETHER_TYPE_IPV4);
		put_ipv4(&p, ihl, 64, IPPROTO_TCP, dst4);
		put_bytes(&p, rnd() % 20);
		fix_ipv4(&p);
		e->reason = LF_DROP_L4_MALFORMED;
		e->sw = ol == 0;
		break;
	case K_CKSUM:
		ipv4_dst(nh_idx, &dst4, &e->port);
		put_l2(&p, tags, RTE_ETHER_TYPE_IPV4);
		put_ipv4(&p, ihl, 64, IPPROTO_UDP, dst4);
		put_bytes(&p, 30);
		fix_ipv4(&p);
		if (rnd() % 2) {
			ip4(&p)->hdr_checksum ^= rte_cpu_to_be_16(1 + rnd() % 0xfffe);
			ol = 0;
			e->sw = 1;
		} else {
			ol = RTE_MBUF_F_RX_IP_CKSUM_BAD;
		}
		e->reason = LF_DROP_BAD_CHECKSUM;
		break;
	case K_TTL:
		if (rnd() % 2) {
			ipv4_dst(nh_idx, &dst4, &e->port);
			put_l2(&p, tags, RTE_ETHER_TYPE_IPV4);
			put_ipv4(&p, ihl, rnd() % 2, IPPROTO_UDP, dst4);
			put_bytes(&p, 30);
			fix_ipv4(&p);
			e->sw = ol == 0;
		} else {
			ipv6_dst(nh_idx, dst6, &e->port);
			put_l2(&p, tags, RTE_ETHER_TYPE_IPV6);
			put_ipv6(&p, rnd() % 2, IPPROTO_UDP, dst6);
			put_bytes(&p, 30);
			fix_ipv6(&p);
			ol = 0;
		}
		e->reason = local_mode != LOCAL_NONE && time_exc ? diverted_reason(LF_KIND_ICMP)
								 : LF_DROP_TTL_EXPIRED;
		break;
	case K_MARTIAN:
		ipv4_dst(nh_idx, &dst4, &e->port);
		if (plain_only || rnd() % 2) {
			static const uint8_t first[] = { 0, 127, 224, 239, 240, 255 };
			const uint32_t src =
				(uint32_t)first[rnd() % RTE_DIM(first)] << 24 | (rnd() & 0xffffff);

			put_l2(&p, tags, RTE_ETHER_TYPE_IPV4);
			put_ipv4(&p, ihl, 64, IPPROTO_UDP, dst4);
			put_bytes(&p, 30);
			ip4(&p)->src_addr = rte_cpu_to_be_32(src);
			fix_ipv4(&p);
			e->sw = ol == 0;
		} else {
			ipv6_dst(nh_idx, dst6, &e->port);
			put_l2(&p, tags, RTE_ETHER_TYPE_IPV6);
			put_ipv6(&p, 64, IPPROTO_UDP, dst6);
			/* ff00::/8, ::1 or :: */
			memset(p.b + p.l3 + 8, 0, 16);
			if (rnd() % 2)
				p.b[p.l3 + 8] = 0xff;
			else
				p.b[p.l3 + 8 + 15] = rnd() % 2;
			put_bytes(&p, 30);
			fix_ipv6(&p);
			ol = 0;
		}
		e->reason = LF_DROP_MARTIAN_SRC;
		break;
	case K_NOROUTE:
	case K_NONH:
		if (rnd() % 2) {
			if (k == K_NOROUTE)
				dst4 = rnd() % 2 ? 0x08080808 : 0x01000000 | (rnd() & 0xffffff);
			else
				dst4 = rnd() % 2 ? 0xc0a80000 | (rnd() & 0xffff)
						 : 0xcb007100 | (rnd() & 0xff);
			put_l2(&p, tags, RTE_ETHER_TYPE_IPV4);
			put_ipv4(&p, ihl, 64, IPPROTO_UDP, dst4);
			put_bytes(&p, 30);
			fix_ipv4(&p);
			e->sw = ol == 0;
		} else {
			for (i = 0; i < 16; i++)
				dst6[i] = rnd();
			if (k == K_NOROUTE) {
				dst6[0] = 0x20;
				dst6[1] = 0x01;
				dst6[2] = 0x48;
				dst6[3] = 0x60;
			} else {
				memcpy(dst6, "\x20\x01\x0d\xb8\x00\x02", 6);
			}
			put_l2(&p, tags, RTE_ETHER_TYPE_IPV6);
			put_ipv6(&p, 64, IPPROTO_UDP, dst6);
			put_bytes(&p, 30);
			fix_ipv6(&p);
			ol = 0;
		}
		e->reason = k == K_NOROUTE ? LF_DROP_NO_ROUTE : LF_DROP_NO_NEXTHOP;
		break;
	default:
		put_l2(&p, tags, RTE_ETHER_TYPE_ARP);
		put_bytes(&p, 28);
		ol = 0;
		/* With b->local ARP is for kind neigh. */
		e->reason =
			local_mode != LOCAL_NONE ? diverted_reason(LF_KIND_NEIGH) : LF_DROP_NON_IP;
		break;
	}

	/*
	 * Another frame around a good packet: to another unicast MAC, dropped
	 * before the IP header is read on a routed port; to a group, dropped
	 * after the header checks (the IPv4 checksum is verified first).
	 * Without b->local there is no such check and the packet is routed.
	 */
	if (frame == K_FOREIGN) {
		memcpy(p.b, "\x02\x00\x00\x00\x00\x99", 6);
		if (local_mode == LOCAL_ROUTED) {
			e->good = 0;
			e->reason = LF_DROP_L2_NOT_OURS;
			e->sw = 0;
		}
	} else if (frame == K_GROUPMAC) {
		static const uint8_t group[][6] = {
			{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
			{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x05 },
			{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
		};

		memcpy(p.b, group[rnd() % RTE_DIM(group)], 6);
		if (local_mode != LOCAL_NONE) {
			e->good = 0;
			e->reason = LF_DROP_L2_MCAST_UNICAST_IP;
		}
	}

	/*
	 * With an ACL, every IPv4 packet that parse lets through meets it
	 * before the FIB: a denied one is dropped as acl_deny.
	 */
	if (acl_on == 1 && p.len > p.l3 && p.b[p.l3 - 2] == 0x08 && p.b[p.l3 - 1] == 0x00 &&
	    (e->good || e->reason == LF_DROP_NO_ROUTE || e->reason == LF_DROP_NO_NEXTHOP) &&
	    acl_denies(&p)) {
		e->good = 0;
		e->reason = LF_DROP_ACL_DENY;
	}
	/* The same for IPv6, with either ACL setting. */
	if (acl_on && p.len > p.l3 && p.b[p.l3 - 2] == 0x86 && p.b[p.l3 - 1] == 0xdd &&
	    (e->good || e->reason == LF_DROP_NO_ROUTE || e->reason == LF_DROP_NO_NEXTHOP) &&
	    acl6_denies(&p)) {
		e->good = 0;
		e->reason = LF_DROP_ACL_DENY;
		acl6_denied++;
	}

	m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	d = rte_pktmbuf_append(m, p.len);
	assert_non_null(d);
	memcpy(d, p.b, p.len);
	m->ol_flags = ol;
	/*
	 * The class the pipeline keeps in order: a flow is of one family and
	 * one VLAN, and pipeline_run may send a burst's untagged IPv4 packets
	 * before its others (a dual-stack burst's IPv6, tagged frames).
	 */
	e->order = p.len >= 14 && p.b[12] == 0x08 && p.b[13] == 0x00 ? 0 : 1 + tags;
	if (p.len > p.l3 && p.l3 >= 2 && p.b[p.l3 - 2] == 0x86 && p.b[p.l3 - 1] == 0xdd)
		e->order += 4;

	r->sw += e->sw;
	if (e->good) {
		r->good++;
		r->per_port[e->port]++;
	} else {
		r->drops[e->reason]++;
	}
	return m;
}

/* Mostly good IPv4, with IPv4 drops mixed in (for the fast path). */
static enum kind
plain_kind(void)
{
	static const enum kind bad[] = { K_NOROUTE, K_NONH, K_CKSUM, K_TTL };
	static const enum kind rx_bad[] = { K_MARTIAN, K_FOREIGN, K_GROUPMAC, K_TTL };
	unsigned int v = rnd() % 16;

	if (v6_only)
		return K_GOOD6;
	if (aside_frames)
		return v < 12 ? K_GOOD4 : v < 14 ? K_GOOD6 : v == 14 ? K_NONIP : K_L2;
	if (rx_checks && v >= 14)
		return rx_bad[rnd() % RTE_DIM(rx_bad)];
	return v < 12 ? K_GOOD4 : bad[v % RTE_DIM(bad)];
}

/* The kinds after K_L2 the generator makes. */
static unsigned int
bad_kinds(void)
{
	return rx_checks ? K_KINDS - K_L2 : K_MARTIAN - K_L2;
}

/* A random kind, good about half of the time. */
static enum kind
mixed_kind(void)
{
	unsigned int v = rnd() % 20;

	if (v < 5)
		return K_GOOD4;
	if (v < 10)
		return K_GOOD6;
	return K_L2 + (v - 10) % bad_kinds();
}

/* ---- the worker ---- */

static struct worker *
worker_new(uint16_t burst, uint16_t prefetch)
{
	struct worker *w = rte_zmalloc("lfut_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
	unsigned int p;

	assert_non_null(w);
	w->lcore = rte_lcore_id();
	w->burst = burst;
	w->b.flow_prefetch_distance = prefetch;
	w->b.prefetch_distance = prefetch;
	w->b.view.fib = &fib;
	w->b.view.nh_table = nh_table;
	w->b.view.nh_count = nh_count;
	w->b.view.acl = acl_on == 1 ? test_acl : NULL;
	w->b.view.acl6 = acl_on ? test_acl6 : NULL;
	w->b.view.gen = test_gen;
	w->flows = test_flows;
	if (local_mode != LOCAL_NONE) {
		test_local->n_ports = N_PORTS;
		test_local->port[0].mac = router_mac;
		test_local->port[0].promisc = local_mode == LOCAL_PROMISC;
		test_local->time_exceeded = time_exc;
		w->b.local = test_local;
	}
	w->tx.n_ports = N_PORTS;
	for (p = 0; p < N_PORTS; p++) {
		w->tx.buf[p].port_id = port_ids[p];
		w->tx.buf[p].queue_id = 0;
	}
	assert_int_equal(fastpath_select(&w->b, fused_simd), 0);
	assert_int_equal(w->b.fused_avx512,
			 fused_simd == LF_FUSED_AUTO && fastpath_avx512_usable());
	worker_ready(w);
	return w;
}

static uint64_t
fnv(uint64_t h, const uint8_t *d, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ d[i]) * 0x100000001b3ull;
	return h;
}

/* Dequeue everything the ports sent and check it against r. */
static void
check_output(struct run *r)
{
	static uint8_t seen[MAX_PKTS];
	struct rte_mbuf *out[RING_SIZE];
	unsigned int p, i, n, total = 0;

	memset(seen, 0, sizeof(seen));
	for (p = 0; p < N_PORTS; p++) {
		int64_t last[8];
		uint64_t h[RTE_DIM(last)];

		for (i = 0; i < RTE_DIM(last); i++) {
			last[i] = -1;
			h[i] = 0xcbf29ce484222325ull;
		}
		n = rte_ring_dequeue_burst(rings[p], (void **)out, RING_SIZE, NULL);
		assert_int_equal(rte_ring_count(rings[p]), 0);
		if (n != r->per_port[p])
			fail_msg("port %u sent %u packets, expected %u", p, n, r->per_port[p]);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = out[i];
			const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
			const struct expect *e;
			uint32_t seq;

			assert_int_equal(m->nb_segs, 1);
			assert_int_equal(m->pkt_len, m->data_len);
			assert_true(m->data_len >= 18);
			seq = get_seq(d, m->data_len);
			if (seq >= r->n || !r->exp[seq].good)
				fail_msg("port %u: packet with unknown sequence %u", p, seq);
			e = &r->exp[seq];
			if (seen[seq]++)
				fail_msg("packet %u sent twice", seq);
			if (e->port != p)
				fail_msg("packet %u on port %u, expected port %u", seq, p, e->port);
			/* Per port and order class, the input order is kept. */
			assert_true(e->order < RTE_DIM(last));
			assert_true((int64_t)seq > last[e->order]);
			last[e->order] = seq;
			assert_int_equal(m->data_len, e->len);
			if (memcmp(d, e->out, e->len) != 0) {
				unsigned int j = 0;

				while (d[j] == e->out[j])
					j++;
				fail_msg("packet %u differs at byte %u: 0x%02x, expected 0x%02x",
					 seq, j, d[j], e->out[j]);
			}
			/* And, independently, the IPv4 header verifies. */
			if (d[12] == 0x08)
				assert_int_equal(rte_raw_cksum(d + 14, (d[14] & 0xf) * 4), 0xffff);
			h[e->order] = fnv(h[e->order], d, m->data_len);
		}
		/* One hash of each class's output in order, folded per port. */
		r->hash[p] = fnv(0xcbf29ce484222325ull, (const uint8_t *)h, sizeof(h));
		total += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	assert_int_equal(total, r->good);
	for (i = 0; i < r->n; i++)
		if (r->exp[i].good && !seen[i])
			fail_msg("good packet %u was not sent", i);
}

static void
check_counters(const struct worker *w, const struct run *r)
{
	unsigned int i;

	for (i = 0; i < LF_DROP_COUNT; i++)
		if (w->stats.drops[i] != r->drops[i])
			fail_msg("drops[%s] = %" PRIu64 ", expected %" PRIu64, lf_drop_names[i],
				 w->stats.drops[i], r->drops[i]);
	assert_int_equal(w->stats.tx_pkts, r->good);
	assert_int_equal(w->stats.ipv4_cksum_sw, r->sw);
	assert_int_equal(w->b.n_dropped, 0);
}

/* Ring contents plus what sits in the TX buffers is everything routed so far. */
static void
check_in_flight(const struct worker *w, const struct run *r)
{
	unsigned int p;

	for (p = 0; p < N_PORTS; p++) {
		assert_true(w->tx.buf[p].n < w->burst);
		assert_int_equal(rte_ring_count(rings[p]) + w->tx.buf[p].n, r->per_port[p]);
	}
	assert_int_equal(w->b.n_dropped, 0);
}

static const uint16_t burst_sizes[] = { 0, 1, 3, 4, 5, 31, 32, 33, 67 };
static unsigned int good_bursts = 1; /* All-good bursts at the end. */

/*
 * One scenario: the burst sizes above, mixed packets, then an all-bad and an
 * all-good burst. With SPLIT, bursts larger than w->burst are cut as
 * rte_eth_rx_burst(..., burst) would have returned them.
 */
static void
run_scenario(struct run *r, uint16_t burst, uint16_t prefetch, int split, uint64_t seed)
{
	struct rte_mbuf *pkts[LF_BURST_MAX];
	struct worker *w = worker_new(burst, prefetch);
	unsigned int s, i;

	memset(r, 0, sizeof(*r));
	rng_state = seed;
	for (s = 0; s < RTE_DIM(burst_sizes) + 1 + good_bursts; s++) {
		uint16_t n = s < RTE_DIM(burst_sizes) ? burst_sizes[s] : 32, off;

		for (i = 0; i < n; i++) {
			enum kind k = plain_only ? plain_kind() : mixed_kind();

			/* The last two bursts: all bad, then all good. */
			if (s == RTE_DIM(burst_sizes))
				k = K_L2 + i % bad_kinds();
			else if (s > RTE_DIM(burst_sizes))
				k = i % 2 || plain_only ? K_GOOD4 : K_GOOD6;
			pkts[i] = make_packet(r, k);
		}
		for (off = 0; off < n || (n == 0 && off == 0);) {
			uint16_t chunk = n - off;

			if (split && chunk > burst)
				chunk = burst;
			if (staged_only)
				pipeline_run_staged(&w->b, &w->tx, pkts + off, chunk);
			else
				pipeline_run(&w->b, &w->tx, pkts + off, chunk);
			assert_int_equal(w->b.n_dropped, 0);
			off += chunk;
			if (n == 0)
				break;
		}
		check_in_flight(w, r);
	}
	/* Idle: the worker loop flushes every TX buffer. */
	worker_flush_tx(w);
	for (i = 0; i < N_PORTS; i++)
		assert_int_equal(w->tx.buf[i].n, 0);
	check_counters(w, r);
	check_output(r);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
	r->split_bursts = w->stats.split_bursts;
	r->staged_bursts = w->stats.staged_bursts;
	rte_free(w);
}

/*
 * The scenario of SEED through pipeline_run into R and through the staged
 * path alone into STAGED: the same output (per port, in order within each
 * order class), drops and software checksums. Leaves staged_only set.
 */
static void
run_both_paths(struct run *r, struct run *staged, uint64_t seed)
{
	staged_only = 0;
	run_scenario(r, 32, 4, 1, seed);
	staged_only = 1;
	run_scenario(staged, 32, 4, 1, seed);
	assert_int_equal(r->n, staged->n);
	assert_memory_equal(r->hash, staged->hash, sizeof(r->hash));
	assert_memory_equal(r->per_port, staged->per_port, sizeof(r->per_port));
	assert_memory_equal(r->drops, staged->drops, sizeof(r->drops));
	assert_int_equal(r->sw, staged->sw);
}

/* ---- setup ---- */

static int
make_port(unsigned int i, unsigned int ring_size)
{
	struct rte_eth_conf conf;
	char name[32];
	int id;

	snprintf(name, sizeof(name), "lfut_ring%u", i);
	rings[i] = rte_ring_create(name, ring_size, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (rings[i] == NULL)
		return -1;
	id = rte_eth_from_ring(rings[i]);
	if (id < 0)
		return -1;
	port_ids[i] = id;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(id, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(id, 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(id, 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(id) != 0)
		return -1;
	return 0;
}

static int
load_table(struct lf_route_table *t, int af, const char *const *lines, unsigned int n)
{
	char why[128];
	unsigned int i;

	t->af = af;
	t->r = calloc(n, sizeof(*t->r));
	if (t->r == NULL)
		return -1;
	t->cap = n;
	for (i = 0; i < n; i++) {
		if (route_parse_line(lines[i], af, LF_FIB_MAX_NH, &t->r[i], why, sizeof(why)) !=
		    1) {
			fprintf(stderr, "'%s': %s\n", lines[i], why);
			return -1;
		}
		t->r[i].line = i + 1;
	}
	t->n = n;
	return 0;
}

static int
group_setup(void **state)
{
	static const struct lf_routes_conf rconf = {
		.ipv4_max_routes = 64,
		.ipv4_tbl8 = 64,
		.ipv6_max_routes = 64,
		.ipv6_tbl8 = 256,
	};
	struct lf_route_table t4 = { 0 }, t6 = { 0 };
	char lcore[16], err[512];
	char *argv[] = {
		"test_pipeline",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_pipeline",
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	cpu_set_t cpus;
	unsigned int i;
	int cpu = 0, ret;

	(void)state;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	lf_log_init();
	pool = rte_pktmbuf_pool_create("lfut_pipeline", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		return -1;
	for (i = 0; i < N_PORTS; i++)
		if (make_port(i, i == N_PORTS - 1 ? SMALL_RING : RING_SIZE) != 0)
			return -1;

	/* The configuration rewrite_init() reads: ports and next hops. */
	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL)
		return -1;
	cfg->n_ports = N_PORTS;
	for (i = 0; i < N_PORTS; i++)
		snprintf(cfg->ports[i].name, sizeof(cfg->ports[i].name), "p%u", i);
	cfg->nexthops = calloc(RTE_DIM(nexthops), sizeof(*cfg->nexthops));
	if (cfg->nexthops == NULL)
		return -1;
	cfg->n_nexthops = RTE_DIM(nexthops);
	for (i = 0; i < RTE_DIM(nexthops); i++) {
		cfg->nexthops[i].id = nexthops[i].id;
		cfg->nexthops[i].port = nexthops[i].port;
		cfg->nexthops[i].dst_mac = nexthops[i].dst;
		cfg->nexthops[i].has_src_mac = nexthops[i].has_src;
		cfg->nexthops[i].src_mac = nexthops[i].src;
	}
	nh_table = rewrite_init(cfg, port_mac, SOCKET_ID_ANY, &nh_count);
	if (nh_table == NULL)
		return -1;

	if (load_table(&t4, 4, routes4, RTE_DIM(routes4)) != 0 ||
	    load_table(&t6, 6, routes6, RTE_DIM(routes6)) != 0)
		return -1;
	ret = fib_init(&fib, &rconf, SOCKET_ID_ANY, &t4, &t6, err, sizeof(err));
	route_table_free(&t4);
	route_table_free(&t6);
	if (ret != 0) {
		fprintf(stderr, "fib_init: %s\n", err);
		return -1;
	}

	acl_rules.r = calloc(RTE_DIM(acl_lines), sizeof(*acl_rules.r));
	if (acl_rules.r == NULL)
		return -1;
	acl_rules.cap = RTE_DIM(acl_lines);
	for (i = 0; i < RTE_DIM(acl_lines); i++) {
		if (acl_parse_line(acl_lines[i], &acl_rules.r[i], err, sizeof(err)) != 1) {
			fprintf(stderr, "'%s': %s\n", acl_lines[i], err);
			return -1;
		}
		acl_rules.r[i].line = i + 1;
	}
	acl_rules.n = RTE_DIM(acl_lines);
	test_acl = acl_build(&acl_rules, ACL_PERMIT, SOCKET_ID_ANY, err, sizeof(err));
	if (test_acl == NULL) {
		fprintf(stderr, "acl_build: %s\n", err);
		return -1;
	}
	acl6_rules.r = calloc(RTE_DIM(acl6_lines), sizeof(*acl6_rules.r));
	if (acl6_rules.r == NULL)
		return -1;
	acl6_rules.cap = RTE_DIM(acl6_lines);
	for (i = 0; i < RTE_DIM(acl6_lines); i++) {
		if (acl6_parse_line(acl6_lines[i], &acl6_rules.r[i], err, sizeof(err)) != 1) {
			fprintf(stderr, "'%s': %s\n", acl6_lines[i], err);
			return -1;
		}
		acl6_rules.r[i].line = i + 1;
	}
	acl6_rules.n = RTE_DIM(acl6_lines);
	test_acl6 = acl6_build(&acl6_rules, ACL_PERMIT, SOCKET_ID_ANY, err, sizeof(err));
	if (test_acl6 == NULL) {
		fprintf(stderr, "acl6_build: %s\n", err);
		return -1;
	}
	return 0;
}

static int
group_teardown(void **state)
{
	unsigned int i;

	(void)state;
	acl_free(test_acl);
	acl_rule_set_free(&acl_rules);
	acl_free(test_acl6);
	acl6_rule_set_free(&acl6_rules);
	fib_free(&fib);
	rewrite_free(nh_table);
	config_free(cfg);
	free(cfg);
	for (i = 0; i < N_PORTS; i++) {
		rte_eth_dev_stop(port_ids[i]);
		rte_eth_dev_close(port_ids[i]);
		rte_ring_free(rings[i]);
	}
	rte_mempool_free(pool);
	return rte_eal_cleanup();
}

/* ---- tests ---- */

/* The next-hop table as rewrite_init() built it. */
static void
test_nexthop_table(void **state)
{
	unsigned int i;

	(void)state;
	assert_int_equal(nh_count, 10);
	for (i = 0; i < nh_count; i++) {
		if (i == 3 || i == 4 || (i >= 6 && i <= 8))
			assert_int_equal(nh_table[i].out, LF_NH_INVALID);
	}
	for (i = 0; i < RTE_DIM(nexthops); i++) {
		const struct lf_nh *e = &nh_table[nexthops[i].id];

		assert_int_equal(e->out, nexthops[i].port);
		assert_memory_equal(&e->dst, &nexthops[i].dst, 6);
		assert_memory_equal(&e->src,
				    nexthops[i].has_src ? &nexthops[i].src
							: &port_mac[nexthops[i].port],
				    6);
	}
}

/* An empty burst does nothing. */
static void
test_empty_burst(void **state)
{
	struct worker *w = worker_new(32, 4);
	struct rte_mbuf *none[1] = { NULL };
	unsigned int i;

	(void)state;
	pipeline_run(&w->b, &w->tx, none, 0);
	worker_flush_tx(w);
	for (i = 0; i < LF_DROP_COUNT; i++)
		assert_int_equal(w->stats.drops[i], 0);
	assert_int_equal(w->stats.tx_pkts, 0);
	for (i = 0; i < N_PORTS; i++)
		assert_int_equal(rte_ring_count(rings[i]), 0);
	rte_free(w);
}

/* Every kind of bad packet, alone in its burst. */
static void
test_each_drop_reason(void **state)
{
	struct worker *w = worker_new(32, 4);
	struct run *r = calloc(1, sizeof(*r));
	struct rte_mbuf *m;
	unsigned int k, rep;

	(void)state;
	assert_non_null(r);
	rng_state = 0x5eed0001;
	for (rep = 0; rep < 8; rep++) {
		for (k = K_L2; k < K_L2 + bad_kinds(); k++) {
			m = make_packet(r, k);
			pipeline_run(&w->b, &w->tx, &m, 1);
			check_counters(w, r);
		}
	}
	for (k = K_L2; k < K_L2 + bad_kinds(); k++)
		assert_true(r->drops[r->exp[k - K_L2].reason] >= 8);
	worker_flush_tx(w);
	check_output(r);
	assert_int_equal(r->good, 0);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
	free(r);
	rte_free(w);
}

/* burst 32, bursts above 32 split as the RX loop would. */
static void
test_split_bursts(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	run_scenario(r, 32, 4, 1, 0x5eed0002);
	print_message("%u packets, %u forwarded\n", r->n, r->good);
	assert_true(r->good > 50);
	assert_true(r->n - r->good > 50);
	free(r);
}

/* burst 256: the 67-packet burst goes through in one call. */
static void
test_bursts_whole(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	run_scenario(r, 256, 4, 0, 0x5eed0003);
	assert_true(r->good > 50);
	free(r);
}

/* Small bursts: the TX buffer flushes at every packet. */
static void
test_burst_one(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	run_scenario(r, 1, 0, 1, 0x5eed0004);
	free(r);
}

/* The prefetch distance changes nothing in what is sent or counted. */
static void
test_prefetch_distance(void **state)
{
	static const uint16_t dists[] = { 0, 1, 8, 32 };
	struct run *ref = calloc(1, sizeof(*ref));
	struct run *r = calloc(1, sizeof(*r));
	unsigned int d, p;

	(void)state;
	assert_non_null(ref);
	assert_non_null(r);
	for (d = 0; d < RTE_DIM(dists); d++) {
		struct run *cur = d == 0 ? ref : r;

		run_scenario(cur, 32, dists[d], 1, 0x5eed0005);
		if (d == 0)
			continue;
		assert_int_equal(r->n, ref->n);
		assert_int_equal(r->good, ref->good);
		assert_memory_equal(r->drops, ref->drops, sizeof(r->drops));
		for (p = 0; p < N_PORTS; p++) {
			assert_int_equal(r->per_port[p], ref->per_port[p]);
			if (r->hash[p] != ref->hash[p])
				fail_msg("prefetch %u: port %u output differs from prefetch 0",
					 dists[d], p);
		}
	}
	/* And with the burst left whole. */
	run_scenario(r, 256, 8, 0, 0x5eed0005);
	for (p = 0; p < N_PORTS; p++)
		assert_int_equal(r->hash[p], ref->hash[p]);
	free(r);
	free(ref);
}

/*
 * N IPv4/UDP packets, packet i to DST | i with i % TAGS_MOD VLAN tags
 * (TAGS_MOD 1: all untagged).
 */
static void
make_udp4(struct rte_mbuf **pkts, unsigned int n, unsigned int tags_mod, uint32_t dst)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct pkt p;
		char *d;

		put_l2(&p, i % tags_mod, RTE_ETHER_TYPE_IPV4);
		put_ipv4(&p, 5, 64, IPPROTO_UDP, dst | i);
		put_bytes(&p, 12);
		fix_ipv4(&p);
		pkts[i] = rte_pktmbuf_alloc(pool);
		assert_non_null(pkts[i]);
		d = rte_pktmbuf_append(pkts[i], p.len);
		assert_non_null(d);
		memcpy(d, p.b, p.len);
	}
}

/* A full TX ring: what it refuses is counted as tx_full and freed. */
static void
test_tx_full(void **state)
{
	const unsigned int cap = rte_ring_get_capacity(rings[N_PORTS - 1]);
	struct rte_mbuf *pkts[40], *out[SMALL_RING];
	struct worker *w = worker_new(32, 4);
	unsigned int i, n;

	(void)state;
	assert_int_equal(cap, SMALL_RING - 1);
	make_udp4(pkts, 40, 3, 0xc6120000); /* 198.18/15 */
	/* 40 packets, burst 32: one flush at 32, one at the end. */
	pipeline_run(&w->b, &w->tx, pkts, 20);
	assert_int_equal(w->tx.buf[N_PORTS - 1].n, 20);
	pipeline_run(&w->b, &w->tx, pkts + 20, 20);
	assert_int_equal(w->stats.tx_pkts, cap);
	assert_int_equal(w->stats.drops[LF_DROP_TX_FULL], 32 - cap);
	assert_int_equal(w->tx.buf[N_PORTS - 1].n, 8);
	worker_flush_tx(w);
	assert_int_equal(w->stats.tx_pkts, cap);
	assert_int_equal(w->stats.drops[LF_DROP_TX_FULL], 40 - cap);
	n = rte_ring_dequeue_burst(rings[N_PORTS - 1], (void **)out, SMALL_RING, NULL);
	assert_int_equal(n, cap);
	/*
	 * The first packets got through, rewritten for next hop 9, in order
	 * within each tag count (packet i has i % 3 tags): a burst's untagged
	 * packets leave before its tagged ones.
	 */
	{
		int last[3] = { -1, -1, -1 };

		for (i = 0; i < n; i++) {
			const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);
			const unsigned int idx = d[14 + 19];

			assert_memory_equal(d, &nexthops[4].dst, 6);
			assert_memory_equal(d + 6, &port_mac[3], 6);
			assert_int_equal(d[14 + 8], 63);
			assert_true(idx < 20);
			assert_true((int)idx > last[idx % 3]);
			last[idx % 3] = (int)idx;
		}
	}
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
	rte_free(w);
}

/*
 * TX of one port's bursts (burst 32): less than half a burst waits in the
 * port's buffer, and so does anything that follows it while the buffer
 * holds packets; the next whole burst sends the buffer first, then itself,
 * and leaves the buffer empty, rather than topping it up and carrying the
 * same remainder into every burst after it. Half a burst or more into an
 * empty buffer (a burst short by a punted or dropped packet at full load)
 * is sent at once, as l3fwd sends it. Order is kept throughout.
 */
static void
test_tx_short_then_whole(void **state)
{
	struct rte_mbuf *pkts[95], *out[96];
	struct worker *w = worker_new(32, 4);
	unsigned int i, n;

	(void)state;
	make_udp4(pkts, RTE_DIM(pkts), 1, 0x0a020000); /* 10/8: port 0 */
	pipeline_run(&w->b, &w->tx, pkts, 15);
	assert_int_equal(w->tx.buf[0].n, 15);
	assert_int_equal(rte_ring_count(rings[0]), 0);
	/* Half a burst, but the buffer holds some: appended behind them. */
	pipeline_run(&w->b, &w->tx, pkts + 15, 16);
	assert_int_equal(w->tx.buf[0].n, 31);
	assert_int_equal(rte_ring_count(rings[0]), 0);
	pipeline_run(&w->b, &w->tx, pkts + 31, 32);
	assert_int_equal(w->tx.buf[0].n, 0);
	assert_int_equal(rte_ring_count(rings[0]), 63);
	/* Into the empty buffer: 31 and 16 go at once, 15 waits. */
	pipeline_run(&w->b, &w->tx, pkts + 63, 31);
	assert_int_equal(w->tx.buf[0].n, 0);
	assert_int_equal(rte_ring_count(rings[0]), 94);
	pipeline_run(&w->b, &w->tx, pkts + 94, 1);
	assert_int_equal(w->tx.buf[0].n, 1);
	assert_int_equal(rte_ring_count(rings[0]), 94);
	worker_flush_tx(w);
	assert_int_equal(w->tx.buf[0].n, 0);
	assert_int_equal(w->stats.tx_pkts, RTE_DIM(pkts));
	n = rte_ring_dequeue_burst(rings[0], (void **)out, RTE_DIM(out), NULL);
	assert_int_equal(n, RTE_DIM(pkts));
	/* In the order they came: the destination's last byte is the index. */
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(out[i], const uint8_t *);

		assert_memory_equal(d, &nexthops[0].dst, 6);
		assert_int_equal(d[14 + 19], i);
	}
	rte_pktmbuf_free_bulk(out, n);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
	rte_free(w);
}

/*
 * IPv6 packets and frames that carry no IP (ARP, runts) among plain IPv4
 * ones, and IPv6-only bursts, with b->local unset and on a routed port:
 * pipeline_run sorts them by family and runs each family's fused stage
 * (split_bursts counts it), and meets the independent expectations with
 * the same output, order within each family and counters as the staged
 * path alone. The all-bad burst (packets every fused stage refuses) runs
 * staged whole.
 */
static void
test_split_aside_frames(void **state)
{
	struct run *split = calloc(1, sizeof(*split)), *staged = calloc(1, sizeof(*staged));
	unsigned int mode, v6;

	(void)state;
	assert_non_null(split);
	assert_non_null(staged);
	plain_only = 1;
	aside_frames = 1;
	for (mode = LOCAL_NONE; mode <= LOCAL_ROUTED; mode++)
		for (v6 = 0; v6 < 3; v6++) {
			const uint64_t seed = 0x5eed0a00 + mode * 4 + v6;

			/* v6: IPv6 with extension headers (staged), without
			 * (the fused IPv6 stage), or an IPv6-only link. */
			local_mode = (int)mode;
			v6_plain = v6 != 0;
			v6_only = v6 == 2;
			run_both_paths(split, staged, seed);
			print_message("%lu bursts split, %lu staged whole\n",
				      (unsigned long)split->split_bursts,
				      (unsigned long)split->staged_bursts);
			assert_true(split->split_bursts > 0);
			assert_int_equal(staged->split_bursts, 0);
			if (v6 != 2) {
				assert_true(split->drops[LF_DROP_L2_MALFORMED] > 0);
				assert_true(split->staged_bursts > 0);
			} else {
				/* Every IPv6-only burst is the fused IPv6 stage's
				 * but the all-bad one. */
				assert_int_equal(split->staged_bursts, 1);
			}
		}
	staged_only = 0;
	aside_frames = 0;
	v6_plain = 0;
	v6_only = 0;
	plain_only = 0;
	local_mode = LOCAL_NONE;
	free(split);
	free(staged);
}

static int
check_pool(void **state)
{
	unsigned int p;

	(void)state;
	for (p = 0; p < N_PORTS; p++)
		if (rte_ring_count(rings[p]) != 0)
			return -1;
	return rte_mempool_avail_count(pool) == POOL_SIZE ? 0 : -1;
}

/*
 * The fused fast path (fastpath.h) against the staged pipeline on the same
 * plain-IPv4 bursts (with no-route, no-next-hop, bad-checksum and TTL drops
 * mixed in): both meet the independent expectations, and their outputs and
 * counters are identical.
 */
static void
test_fastpath_matches_staged(void **state)
{
	struct run *fused = calloc(1, sizeof(*fused)), *staged = calloc(1, sizeof(*staged));
	struct rte_mbuf *pkts[8];
	struct worker *w;
	unsigned int i, p;

	(void)state;
	assert_non_null(fused);
	assert_non_null(staged);
	plain_only = 1;
	for (p = 0; p < 3; p++) {
		uint64_t seed = 0x5eed0100 + p;

		staged_only = 0;
		run_scenario(fused, 32, p * 4, 1, seed);
		staged_only = 1;
		run_scenario(staged, 32, p * 4, 1, seed);
		assert_int_equal(fused->n, staged->n);
		assert_memory_equal(fused->hash, staged->hash, sizeof(fused->hash));
		assert_memory_equal(fused->per_port, staged->per_port, sizeof(fused->per_port));
		assert_memory_equal(fused->drops, staged->drops, sizeof(fused->drops));
		assert_int_equal(fused->sw, staged->sw);
	}
	staged_only = 0;

	/*
	 * A plain burst is taken by the fast path, its unrouted packets
	 * dropped there; an IPv6 burst is not taken.
	 */
	w = worker_new(32, 4);
	memset(fused, 0, sizeof(*fused));
	for (i = 0; i < RTE_DIM(pkts); i++) {
		if (i < RTE_DIM(pkts) - 2) {
			pkts[i] = make_packet(fused, K_GOOD4);
			continue;
		}
		/* K_NOROUTE makes IPv4 or IPv6: keep an IPv4 one. */
		for (;;) {
			pkts[i] = make_packet(fused, K_NOROUTE);
			if (*rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, 12) == 0x08)
				break;
			rte_pktmbuf_free(pkts[i]);
		}
	}
	assert_true(pipeline_run_fused(&w->b, &w->tx, pkts, RTE_DIM(pkts)));
	assert_int_equal(w->stats.drops[LF_DROP_NO_ROUTE], 2);
	assert_int_equal(w->b.n_dropped, 0);
	worker_flush_tx(w);
	assert_int_equal(w->stats.tx_pkts, RTE_DIM(pkts) - 2);
	plain_only = 0;
	for (i = 0; i < RTE_DIM(pkts); i++) {
		pkts[i] = make_packet(fused, K_GOOD6);
	}
	assert_false(pipeline_run_fused(&w->b, &w->tx, pkts, RTE_DIM(pkts)));
	assert_int_equal(w->b.n_dropped, 0);
	rte_pktmbuf_free_bulk(pkts, RTE_DIM(pkts));
	/* Drain what the first burst sent. */
	for (i = 0; i < N_PORTS; i++) {
		struct rte_mbuf *out[64];
		unsigned int got;

		while ((got = rte_ring_dequeue_burst(rings[i], (void **)out, 64, NULL)) != 0)
			rte_pktmbuf_free_bulk(out, got);
	}
	rte_free(w);
	free(fused);
	free(staged);
}

/*
 * The two header checksums that the one-add TTL update gets wrong, 0xffff
 * and 0xfeff (lf_ipv4_ttl_cksum_dec_le), in plain bursts of 32, 13, 8 and
 * 7: the fused path takes every burst, the eight-packet groups computing the
 * new TTL/checksum word and the tail updating in place, and every header
 * comes out as a full recompute gives it (check_output).
 */
static void
test_fastpath_cksum_edges(void **state)
{
	static const uint16_t sizes[] = { 32, 13, 8, 7 };
	struct run *r = calloc(1, sizeof(*r));
	struct rte_mbuf *pkts[32];
	struct worker *w;
	unsigned int b, i;

	(void)state;
	assert_non_null(r);
	plain_only = 1;
	cksum_edges = 1;
	cksum_edges_made = 0;
	rng_state = 0x5eed0300;
	w = worker_new(32, 0);
	for (b = 0; b < 6 * RTE_DIM(sizes); b++) {
		const uint16_t n = sizes[b % RTE_DIM(sizes)];

		for (i = 0; i < n; i++)
			pkts[i] = make_packet(r, K_GOOD4);
		assert_true(pipeline_run_fused(&w->b, &w->tx, pkts, n));
		assert_int_equal(w->b.n_dropped, 0);
	}
	worker_flush_tx(w);
	assert_int_equal(w->stats.tx_pkts, r->good);
	assert_int_equal(r->good, r->n);
	print_message("cksum edges: %u of %u packets with 0xffff or 0xfeff\n", cksum_edges_made,
		      r->n);
	assert_true(cksum_edges_made > r->n / 3);
	check_output(r);
	cksum_edges = 0;
	plain_only = 0;
	rte_free(w);
	free(r);
}

/*
 * The ACL stage in the pipeline: mixed bursts of 0, 1, 3, 4, 5, 31, 32, 33
 * and 67 packets (split at 32, and whole with burst 256), then all-good
 * bursts. Denied IPv4 and IPv6 packets are counted as acl_deny and freed (no
 * mbuf leaked), the others come out once, in order, rewritten as usual. The
 * fused fast path never takes a burst of a worker with an IPv4 ACL. With an
 * IPv6 ACL alone, IPv4 is not classified and plain IPv4 bursts still take
 * the fast path.
 */
static void
test_acl_stage(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	struct rte_mbuf *pkts[4];
	struct worker *w;
	unsigned int i, split, p, six = 0;

	(void)state;
	assert_non_null(r);
	assert_int_equal(acl_num_rules(test_acl), RTE_DIM(acl_lines));
	assert_int_equal(acl_num_rules(test_acl6), RTE_DIM(acl6_lines));
	acl_on = 1;
	good_bursts = 4;
	for (split = 0; split < 2; split++) {
		acl6_denied = 0;
		run_scenario(r, split ? 32 : 256, 4, split, 0x5eed0200 + split);
		print_message("acl: %u packets, %u forwarded, %" PRIu64 " acl_deny, %u of them "
			      "IPv6\n",
			      r->n, r->good, r->drops[LF_DROP_ACL_DENY], acl6_denied);
		assert_true(r->drops[LF_DROP_ACL_DENY] > acl6_denied + 10);
		assert_true(acl6_denied > 10);
		assert_true(r->good > 50);
		for (i = 0; i < r->n; i++)
			six += r->exp[i].good && r->exp[i].out[12] == 0x86;
	}
	assert_true(six > 20);
	/* Plain IPv4 bursts too: the fast path must leave them to the ACL. */
	plain_only = 1;
	run_scenario(r, 32, 4, 1, 0x5eed0202);
	assert_true(r->drops[LF_DROP_ACL_DENY] > 10);
	w = worker_new(32, 4);
	memset(r, 0, sizeof(*r));
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = make_packet(r, K_GOOD4);
	assert_false(pipeline_run_fused(&w->b, &w->tx, pkts, RTE_DIM(pkts)));
	assert_int_equal(w->b.n_dropped, 0);
	rte_pktmbuf_free_bulk(pkts, RTE_DIM(pkts));
	rte_free(w);
	plain_only = 0;

	/* The IPv6 ACL alone: only IPv6 packets are denied. */
	acl_on = 2;
	acl6_denied = 0;
	run_scenario(r, 32, 4, 1, 0x5eed0203);
	assert_true(acl6_denied > 10);
	assert_int_equal(r->drops[LF_DROP_ACL_DENY], acl6_denied);
	plain_only = 1;
	run_scenario(r, 32, 4, 1, 0x5eed0204);
	assert_int_equal(r->drops[LF_DROP_ACL_DENY], 0);
	/* A plain IPv4 burst is the fast path's. */
	w = worker_new(32, 4);
	memset(r, 0, sizeof(*r));
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = make_packet(r, K_GOOD4);
	assert_true(pipeline_run_fused(&w->b, &w->tx, pkts, RTE_DIM(pkts)));
	worker_flush_tx(w);
	assert_int_equal(w->stats.tx_pkts, RTE_DIM(pkts));
	for (p = 0; p < N_PORTS; p++) {
		struct rte_mbuf *out[64];
		unsigned int got;

		while ((got = rte_ring_dequeue_burst(rings[p], (void **)out, 64, NULL)) != 0)
			rte_pktmbuf_free_bulk(out, got);
	}
	rte_free(w);
	plain_only = 0;
	good_bursts = 1;
	acl_on = 0;
	free(r);
}

/* Free whatever the ports sent. */
static void
drain_rings(void)
{
	unsigned int p;

	for (p = 0; p < N_PORTS; p++) {
		struct rte_mbuf *out[64];
		unsigned int got;

		while ((got = rte_ring_dequeue_burst(rings[p], (void **)out, 64, NULL)) != 0)
			rte_pktmbuf_free_bulk(out, got);
	}
}

/* Lookups, hits and misses of the shared flow table so far. */
static void
flow_counts(uint64_t *lookups, uint64_t *hits, uint64_t *misses)
{
	const struct lf_flow_stats *st = lf_flow_stats(test_flows);

	*lookups = st->lookups;
	*hits = st->hits;
	*misses = st->misses;
}

/*
 * Run the scenario of seed twice with the current ACL and generation: the
 * first pass leaves a verdict for every flow (or finds it), the second must
 * be all hits; both must give the output and counters the reference
 * expects, and the same output. Without an ACL the cache must stay idle:
 * not one lookup, the output still as the reference expects.
 */
static void
flow_two_passes(struct run *r1, struct run *r2, uint64_t seed, const char *what)
{
	const bool idle = acl_on == 0;
	uint64_t l0, h0, m0, l1, h1, m1;
	unsigned int p;

	run_scenario(r1, 32, 4, 1, seed);
	flow_counts(&l0, &h0, &m0);
	run_scenario(r2, 32, 4, 1, seed);
	flow_counts(&l1, &h1, &m1);
	print_message("flow cache, %s: second pass %" PRIu64 " lookups, %" PRIu64 " hits\n", what,
		      l1 - l0, h1 - h0);
	if (idle) {
		assert_int_equal(l1, 0);
		assert_int_equal(m1, 0);
	} else {
		assert_true(l1 - l0 > 100);
		assert_int_equal(h1 - h0, l1 - l0);
	}
	for (p = 0; p < N_PORTS; p++)
		assert_int_equal(r2->hash[p], r1->hash[p]);
}

/*
 * The flow cache gives the decisions of the tables in force, never older
 * ones. The same flows go through a worker with a flow table: without any
 * ACL (the cache stays idle), with the IPv6 ACL alone (IPv4 forward
 * verdicts cached), then under a new generation with the IPv4 ACL too (the
 * flows it denies must now be dropped, not forwarded by a cached verdict),
 * then under a third generation with the IPv6 ACL alone again. Each step
 * checks the output against the reference, and that a second pass is all
 * hits. Last, a table far smaller than the flow count: evictions, same
 * output.
 */
static void
test_flow_cache(void **state)
{
	struct lf_flow_params fp = {
		.name = "lfut_flows",
		.capacity = 4096,
		.socket = SOCKET_ID_ANY,
		.evict = LF_FLOW_EVICT_OLDEST,
	};
	struct run *r1 = calloc(1, sizeof(*r1)), *r2 = calloc(1, sizeof(*r2));
	const uint64_t seed = 0x5eed0300;
	uint64_t plain_hash[N_PORTS];
	unsigned int p;

	(void)state;
	assert_non_null(r1);
	assert_non_null(r2);
	good_bursts = 4;
	test_flows = lf_flow_create(&fp);
	assert_non_null(test_flows);

	acl_on = 0;
	flow_two_passes(r1, r2, seed, "no ACL: idle");
	assert_int_equal(r1->drops[LF_DROP_ACL_DENY], 0);

	test_gen++;
	acl_on = 2;
	acl6_denied = 0;
	flow_two_passes(r1, r2, seed, "IPv6 ACL");
	assert_true(r1->drops[LF_DROP_NO_ROUTE] > 0);
	for (p = 0; p < N_PORTS; p++)
		plain_hash[p] = r1->hash[p];

	test_gen++;
	acl_on = 1;
	flow_two_passes(r1, r2, seed, "ACL, new generation");
	assert_true(r1->drops[LF_DROP_ACL_DENY] > 10);
	assert_int_equal(r2->drops[LF_DROP_ACL_DENY], r1->drops[LF_DROP_ACL_DENY]);

	test_gen++;
	acl_on = 2;
	flow_two_passes(r1, r2, seed, "IPv6 ACL, third generation");
	for (p = 0; p < N_PORTS; p++)
		assert_int_equal(r1->hash[p], plain_hash[p]);
	lf_flow_free(test_flows);

	/* Bursts of plain IPv4 only: the fused flow path
	 * (flow_stage_fused_burst) takes them, hits and misses alike, and must
	 * agree with the reference too, with the IPv4 ACL and without it. */
	plain_only = 1;
	test_flows = lf_flow_create(&fp);
	assert_non_null(test_flows);
	for (p = 0; p < 2; p++) {
		struct rte_mbuf *pkts[4];
		struct worker *w;
		unsigned int i;

		acl_on = p ? 1 : 2;
		test_gen++;
		flow_two_passes(r1, r2, seed + 1, p ? "plain IPv4, ACL" : "plain IPv4, IPv6 ACL");
		w = worker_new(32, 4);
		memset(r1, 0, sizeof(*r1));
		for (i = 0; i < RTE_DIM(pkts); i++)
			pkts[i] = make_packet(r1, K_GOOD4);
		assert_true(pipeline_run_fused(&w->b, &w->tx, pkts, RTE_DIM(pkts)));
		worker_flush_tx(w);
		drain_rings();
		rte_free(w);
	}
	plain_only = 0;
	acl_on = 0;
	lf_flow_free(test_flows);

	/* Far more flows than entries: evictions, and still every packet as
	 * the reference expects, in order. */
	acl_on = 2;
	fp.capacity = 16;
	test_flows = lf_flow_create(&fp);
	assert_non_null(test_flows);
	run_scenario(r1, 32, 4, 1, seed);
	run_scenario(r2, 32, 4, 1, seed);
	for (p = 0; p < N_PORTS; p++)
		assert_int_equal(r2->hash[p], plain_hash[p]);
	assert_true(lf_flow_stats(test_flows)->evictions > 0);
	acl_on = 0;
	lf_flow_free(test_flows);
	test_flows = NULL;
	good_bursts = 1;
	free(r1);
	free(r2);
}

/* Each test under both builds of the fused stages (fastpath.h): the one
 * this CPU picks (the AVX-512 one where it can run it), and the scalar one,
 * which any x86-64 CPU runs. */
/*
 * The receive checks (issue 15) in the fused and the staged path: martian
 * sources, frames to another MAC or to a group, ARP and TTL 1 mixed into
 * plain and mixed bursts, with b->local unset, on a routed port and on a
 * promiscuous one, [icmp] time_exceeded on and off. Both paths meet the
 * independent expectations and give the same output and counters. Then
 * the fused path's own verdict: it takes a plain burst to the router's
 * MAC, and refuses, writing nothing, one with a single packet to another
 * MAC (on a routed port) or to a group, at every position of bursts of 8,
 * 13 and 16 (the eight-packet groups and the one-by-one tail).
 */
static void
test_rx_checks_fused_matches_staged(void **state)
{
	static const uint16_t sizes[] = { 8, 13, 16 };
	struct run *fused = calloc(1, sizeof(*fused)), *staged = calloc(1, sizeof(*staged));
	struct rte_mbuf *pkts[16];
	unsigned int mode, te, plain, s, pos, i, local_drops = 0;

	(void)state;
	assert_non_null(fused);
	assert_non_null(staged);
	rx_checks = 1;
	for (mode = LOCAL_NONE; mode <= LOCAL_PROMISC; mode++)
		for (te = 0; te < 2; te++)
			for (plain = 0; plain < 2; plain++) {
				const uint64_t seed = 0x5eed0900 + mode * 4 + te * 2 + plain;

				local_mode = (int)mode;
				time_exc = (int)te;
				plain_only = (int)plain;
				run_both_paths(fused, staged, seed);
				assert_true(fused->drops[LF_DROP_MARTIAN_SRC] > 0);
				local_drops += fused->drops[LF_DROP_L2_NOT_OURS] +
					fused->drops[LF_DROP_L2_MCAST_UNICAST_IP];
			}
	assert_true(local_drops > 0);
	staged_only = 0;

	/* The fused path's verdict on single packets, at each position. */
	plain_only = 1;
	for (mode = LOCAL_NONE; mode <= LOCAL_PROMISC; mode++) {
		struct worker *w;

		local_mode = (int)mode;
		w = worker_new(32, 4);
		for (s = 0; s < RTE_DIM(sizes); s++) {
			const uint16_t n = sizes[s];

			for (pos = 0; pos <= n; pos++) {
				unsigned int odd;

				for (odd = 0; odd < 2; odd++) {
					const enum kind k = odd ? K_GROUPMAC : K_FOREIGN;
					const bool takes = pos == n || mode == LOCAL_NONE ||
						(mode == LOCAL_PROMISC && k == K_FOREIGN);
					struct run *r = fused;

					memset(r, 0, sizeof(*r));
					for (i = 0; i < n; i++)
						pkts[i] = make_packet(r, i == pos ? k : K_GOOD4);
					if (!takes) {
						assert_false(
							pipeline_run_fused(&w->b, &w->tx, pkts, n));
						assert_int_equal(w->b.n_dropped, 0);
						/* Untouched: the staged path gets it as it came. */
						pipeline_run_staged(&w->b, &w->tx, pkts, n);
					} else {
						assert_true(
							pipeline_run_fused(&w->b, &w->tx, pkts, n));
					}
					worker_flush_tx(w);
					check_output(r);
				}
			}
		}
		rte_free(w);
	}
	plain_only = 0;
	local_mode = LOCAL_NONE;
	time_exc = 0;
	rx_checks = 0;
	free(fused);
	free(staged);
}

static int
use_selected(void **state)
{
	(void)state;
	fused_simd = LF_FUSED_AUTO;
	return 0;
}

static int
use_scalar(void **state)
{
	(void)state;
	fused_simd = LF_FUSED_SCALAR;
	return 0;
}

#define T(f)                                                                 \
	{ #f, f, use_selected, check_pool, NULL },                           \
	{                                                                    \
#f " (scalar fused stages)", f, use_scalar, check_pool, NULL \
	}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_nexthop_table),
		T(test_each_drop_reason),
		T(test_empty_burst),
		T(test_split_bursts),
		T(test_bursts_whole),
		T(test_burst_one),
		T(test_prefetch_distance),
		/* TX buffering. */
		T(test_tx_full),
		T(test_tx_short_then_whole),
		T(test_fastpath_matches_staged),
		T(test_fastpath_cksum_edges),
		T(test_acl_stage),
		T(test_flow_cache),
		T(test_rx_checks_fused_matches_staged),
		T(test_split_aside_frames),
	};

	return cmocka_run_group_tests_name("pipeline", tests, group_setup, group_teardown);
}
