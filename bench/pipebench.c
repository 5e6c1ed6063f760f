/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-pipebench: cycles per packet of the real burst pipeline
 * (pipeline_run: parse, flow cache, ACL, FIB, rewrite, TX) on one
 * core, from a normal lanefwd configuration file, without a NIC.
 *
 * The configuration's tables are built as the daemon builds them
 * (tables_load_files + tables_build: routes, next hops, ACL) and its [flow]
 * section gives the worker its flow table (flow_stage_create). No configured
 * port is created: one struct worker is set up by hand, as
 * tests/unit/test_pipeline.c does, and every port index the next hops name
 * sends to one net_null port, which frees what it is given. The [eal] and
 * [port] sections are not used (EAL takes the command line's arguments).
 *
 * Traffic: N IPv4 UDP flows of 64-byte frames. Each flow id gives a
 * distinct 5-tuple whose destination lies in one of the route file's
 * prefixes (so it routes); the traffic is shaped so that the ACL (the
 * config's, or --traffic-acl's, so that configurations without one can send
 * the same flows) permits it, except a fraction of the flows (--deny-share)
 * made to match a rule that denies UDP. A trace of flow ids (uniform, or Zipf over a
 * fixed permutation of the flows, so popular flows are spread over memory)
 * is pre-generated. For each burst the program allocates the mbufs, writes
 * each frame from its flow id (template, addresses, ports, IPv4 checksum),
 * then times pipeline_run() and the housekeeping the worker loop does
 * between bursts (TX drain, flow aging) with the TSC. "pipeline" cycles are
 * that timed region (the null port's TX, which frees the mbufs, included);
 * "total" adds the mbuf allocation and the frame writing.
 *
 * Before measuring, one pass over all flows in id order fills the flow
 * table (its cost per packet is printed: the miss path). After measuring, a
 * sample is run again and checked, not timed: what the null port sent and
 * the drop counters must equal what the tables decide for each packet,
 * worked out separately (acl_classify, rte_fib_lookup_bulk, the next-hop
 * table), and with a flow table every sample packet must be a hit. A
 * failed check prints FAIL and exits with status 3, so a broken pipeline
 * cannot produce a number. bench/bench-pipeline.sh runs the matrix behind
 * docs/pipeline-scale.md.
 *
 * usage: lanefwd-pipebench [EAL args] -- -c CONFIG [--flows N] [--dist uniform,zipf]
 *        [--zipf-s S] [--packets N] [--burst N] [--reps N] [--prefetch D,D,...]
 *        [--deny-share F] [--traffic-acl FILE] [--label TEXT] [--csv FILE] [--cold-data]
 *        [--flood-kind syn,echo,arp] [--flood-share F,F,...]
 *
 * Flood (--flood-kind syn,echo,arp, --flood-share F,F,...): a fraction F of
 * the packets, each one picked at random, is a flood at the first IPv4
 * [port] address of the configuration's first port instead of a transit
 * packet: TCP SYNs to port 179 (to the kernel: the local stage punts them
 * to the port's mirror while [exception] punt_pps lasts, then drops them
 * punt_ratelimit), ICMP echo requests (answered while [icmp] rate_pps lasts,
 * the replies routed back to their sources, the rest dropped) or broadcast
 * ARP requests for it (onto a real ring as the control thread's, while
 * [neighbour] punt_pps lasts, drained and freed after each burst, outside
 * the timed region). Their sources lie in the route file's prefixes, so a
 * reply is routed. The router's own side (struct lf_local, its token
 * buckets at the config's rates) is set up by hand as src/control/local.c
 * does, with each port's mirror a port index past the configured ones that
 * sends to the null port; with it set up, parse also makes its link-layer
 * checks. Share 0 (always run, the reference) sends the same transit
 * traffic with the same set-up and no flood. Each round runs every (kind,
 * share) in a rotating order; the transit packets follow the trace whatever
 * the share, and "cycles per transit packet" are the timed cycles over the
 * transit packets only. The check then also accounts for every flood
 * packet: replies, punts and rate-limit drops must add up to the flood, be
 * no more than the bucket allows in the time the sample took, and
 * tx + drops + punt_ctrl must equal the packets sent. Each burst's timed
 * cycles are also kept by class (one that holds a flood packet, the one
 * right after it, the others: the CSV's burst_*_cycles, per-burst means,
 * median round), which shows where a flood's cost lands. bench/bench-punt.sh
 * runs the matrix behind docs/punt-flood.md.
 *
 * The transit traffic never goes to the tables' own routes (the router's
 * addresses, the martian prefixes) nor to a route file prefix that overlaps
 * one of them: those are not transit.
 *
 * --cold-data flushes each frame's data line out of every cache level
 * (clflush) after writing it and before the timed region, as a NIC's DMA
 * into DRAM leaves it (no DDIO, or its LLC ways used up); the mbuf header
 * stays hot, as the driver's own RX writes leave it. This is the case
 * packet prefetch is for: what [pipeline] prefetch_distance buys or costs
 * there, against data already in L1 (the default, and the pcap harness).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ring.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "acl.h"
#include "config.h"
#include "fib.h"
#include "flow_stage.h"
#include "gen.h"
#include "hist.h"
#include "pipeline.h"
#include "tables.h"
#include "worker.h"

#define MAX_LIST 16
#define TRACE_LEN (8u << 20) /* Flow ids per trace: 32 MiB, read sequentially. */
#define FRAME_LEN 64
#define POOL_SIZE 8191
#define SAMPLE_MAX 65536 /* Packets the final check sends. */
#define NULL_DEV "net_null_pb0"
#define EXIT_CHECK 3
#define MAX_FC (1 + 3 * MAX_LIST) /* Flood configurations: none, then kind x share. */
#define FLOOD_RING_SIZE 4096 /* As src/control/local.c's to_ctrl rings. */
#define FLOOD_TCP_PORT 179 /* BGP: what a flood at a router aims at. */

enum flood_kind { FLOOD_NONE, FLOOD_SYN, FLOOD_ECHO, FLOOD_ARP, FLOOD_COUNT };
static const char *const flood_names[FLOOD_COUNT] = { "none", "syn", "echo", "arp" };

enum dist { DIST_UNIFORM, DIST_ZIPF, DIST_COUNT };
static const char *const dist_names[DIST_COUNT] = { "uniform", "zipf" };

struct opts {
	const char *config;
	uint32_t flows;
	bool dist[DIST_COUNT];
	double zipf_s;
	uint64_t packets;
	unsigned int burst; /* 0: [pipeline] burst. */
	unsigned int reps;
	unsigned int prefetch[MAX_LIST];
	unsigned int n_prefetch; /* 0: [pipeline] prefetch_distance. */
	double deny_share;
	const char *label;
	const char *csv;
	const char *traffic_acl; /* Rules the traffic avoids; default: the config's. */
	bool cold_data; /* Flush each frame's data line before the timed region. */
	bool flood[FLOOD_COUNT]; /* --flood-kind; any: the router's own side is set up. */
	double share[MAX_LIST]; /* --flood-share, besides 0. */
	unsigned int n_share;
};

/* ---- flows ---- */

/* A destination prefix of the route file, host order. */
struct prefix {
	uint32_t addr;
	uint32_t host_mask;
};

/* What a flow id becomes; everything but the flow id is derived. */
struct traffic {
	uint32_t flows;
	struct prefix *pfx;
	uint32_t n_pfx;
	struct acl_rule *deny; /* Rules that deny UDP, to aim flows at. */
	uint32_t n_deny;
	uint64_t deny_below; /* A flow whose hash is below this is aimed at a rule. */
	uint32_t src_block; /* Sources of the other flows: this /8. */
	uint32_t near_rules; /* Deny rules whose sources overlap it. */
	uint32_t routes; /* Route prefixes, before those near_rules exclude. */
	uint8_t tmpl[FRAME_LEN];
	uint32_t tmpl_sum; /* IPv4 header sum without the addresses. */
};

struct flow_fields {
	uint32_t src, dst; /* Host order. */
	uint16_t sport, dport;
};

static inline uint64_t
mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint32_t
in_range(uint64_t r, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(r % ((uint64_t)hi - lo + 1));
}

/* A number below n from 32 random bits (multiply-shift, no division). */
static inline uint32_t
below(uint64_t r, uint32_t n)
{
	return (uint32_t)(((r & 0xffffffff) * n) >> 32);
}

static inline uint64_t
flow_hash1(uint32_t id)
{
	return mix64(id + 0x9e3779b97f4a7c15ull);
}

/* The route prefix flow id goes to, for prefetching before flow_of(). */
static inline const struct prefix *
flow_prefix(const struct traffic *tr, uint32_t id)
{
	return &tr->pfx[below(mix64(flow_hash1(id)), tr->n_pfx)];
}

/*
 * Flow id to addresses and ports. The low 24 bits of the source address
 * are a bijection of the id's, and the source port's high bits are the rest
 * of the id, so N ids are N distinct flows (except those aimed at a deny
 * rule, whose prefixes and ports they must respect).
 */
static inline void
flow_of(const struct traffic *tr, uint32_t id, struct flow_fields *f)
{
	uint64_t h = flow_hash1(id);
	uint64_t h2 = mix64(h);

	if (unlikely((h >> 40) < tr->deny_below)) {
		const struct acl_rule *r = &tr->deny[below(h2 >> 32, tr->n_deny)];
		uint32_t sm = r->src_len == 0 ? 0 : ~0u << (32 - r->src_len);
		uint32_t dm = r->dst_len == 0 ? 0 : ~0u << (32 - r->dst_len);

		f->src = (r->src & sm) | ((uint32_t)h & ~sm);
		f->dst = (r->dst & dm) | ((uint32_t)(h >> 32) & ~dm);
		f->sport = (uint16_t)in_range(h2 & 0xffff, r->sport_lo, r->sport_hi);
		f->dport = (uint16_t)in_range((h2 >> 16) & 0xffff, r->dport_lo, r->dport_hi);
		return;
	}
	{
		const struct prefix *p = &tr->pfx[below(h2, tr->n_pfx)];

		f->src = tr->src_block | (((id * 2654435761u) ^ 0x5bd1e995u) & 0xffffff);
		f->dst = p->addr | ((uint32_t)(h >> 16) & p->host_mask);
		f->sport = (uint16_t)(1024 + ((id >> 24) << 8) + (h & 0xff));
		f->dport = (uint16_t)(h2 >> 48);
	}
}

static void
traffic_template(struct traffic *tr)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)tr->tmpl;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	unsigned int i;

	memset(tr->tmpl, 0, sizeof(tr->tmpl));
	eth->dst_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xee, 0x00 } };
	eth->src_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0x99, 0x01 } };
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(FRAME_LEN - RTE_ETHER_HDR_LEN);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	udp->dgram_len = rte_cpu_to_be_16(FRAME_LEN - RTE_ETHER_HDR_LEN - sizeof(*ip));
	/* The header sum with zero addresses and checksum, in memory order. */
	tr->tmpl_sum = 0;
	for (i = 0; i < sizeof(*ip); i += 2) {
		uint16_t w;

		memcpy(&w, tr->tmpl + RTE_ETHER_HDR_LEN + i, sizeof(w));
		tr->tmpl_sum += w;
	}
}

/* Write the frame of flow id into m. */
static inline void
write_frame(const struct traffic *tr, struct rte_mbuf *m, uint32_t id)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	struct flow_fields f;
	uint32_t src, dst, sum;

	flow_of(tr, id, &f);
	memcpy(d, tr->tmpl, FRAME_LEN);
	src = rte_cpu_to_be_32(f.src);
	dst = rte_cpu_to_be_32(f.dst);
	ip->src_addr = src;
	ip->dst_addr = dst;
	sum = tr->tmpl_sum + (src & 0xffff) + (src >> 16) + (dst & 0xffff) + (dst >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->hdr_checksum = (uint16_t)~sum;
	udp->src_port = rte_cpu_to_be_16(f.sport);
	udp->dst_port = rte_cpu_to_be_16(f.dport);
	m->data_len = FRAME_LEN;
	m->pkt_len = FRAME_LEN;
}

static inline uint32_t
prefix_mask(unsigned int len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

/* Whether two prefixes share an address (one contains the other). */
static inline bool
prefix_overlap(uint32_t a, unsigned int alen, uint32_t b, unsigned int blen)
{
	uint32_t m = prefix_mask(RTE_MIN(alen, blen));

	return (a & m) == (b & m);
}

/* Whether rule r denies some UDP packet. */
static inline bool
rule_denies_udp(const struct acl_rule *r)
{
	return r->action == ACL_DENY && (r->proto & r->proto_mask) == (IPPROTO_UDP & r->proto_mask);
}

/*
 * Shape the traffic so that the ACL permits it, except the flows aimed at a
 * deny rule on purpose: sources come from the /8 that the fewest UDP deny
 * rules' sources overlap (weighted by the size of their destinations), and
 * destinations from the route prefixes that none of those rules'
 * destinations overlaps. Port ranges are ignored (conservative). The deny
 * rules are also kept, for the flows --deny-share aims at them. Everything
 * is copied: tables_build() consumes the routes and rules.
 */
static int
traffic_setup(struct traffic *tr, const struct lf_route_table *r4, const struct acl_rule_set *s,
	      double share)
{
	const struct acl_rule **near = NULL;
	const struct lf_route **own;
	double best_cost = -1;
	uint32_t blk, best = 1, n_near = 0, n_own = 0;
	struct prefix *p;
	size_t i, k;

	if (r4->n == 0)
		return -ENOENT;
	tr->deny = malloc((s->n + 1) * sizeof(*tr->deny));
	near = malloc((s->n + 1) * sizeof(*near));
	if (tr->deny == NULL || near == NULL) {
		free(near);
		return -ENOMEM;
	}
	tr->n_deny = 0;
	for (i = 0; i < s->n; i++)
		if (rule_denies_udp(&s->r[i]))
			tr->deny[tr->n_deny++] = s->r[i];
	/* Blocks 1-223 but 127: no "this network", loopback or multicast sources. */
	for (blk = 1; blk < 224; blk++) {
		double cost = 0;

		if (blk == 127)
			continue;
		for (i = 0; i < tr->n_deny && cost >= 0; i++) {
			const struct acl_rule *r = &tr->deny[i];

			if (!prefix_overlap(blk << 24, 8, r->src, r->src_len))
				continue;
			if (r->dst_len == 0)
				cost = -1; /* It would deny every destination. */
			else
				cost += ldexp(1.0, 32 - r->dst_len);
		}
		if (cost >= 0 && (best_cost < 0 || cost < best_cost)) {
			best_cost = cost;
			best = blk;
		}
	}
	tr->src_block = best << 24;
	for (i = 0; i < tr->n_deny; i++)
		if (prefix_overlap(tr->src_block, 8, tr->deny[i].src, tr->deny[i].src_len))
			near[n_near++] = &tr->deny[i];
	tr->near_rules = n_near;
	own = malloc(r4->n * sizeof(*own));
	if (own == NULL) {
		free(near);
		return -ENOMEM;
	}
	for (i = 0; i < r4->n; i++)
		if (r4->r[i].line == 0)
			own[n_own++] = &r4->r[i];

	p = rte_malloc("pb_prefixes", r4->n * sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (p == NULL) {
		free(own);
		free(near);
		return -ENOMEM;
	}
	tr->n_pfx = 0;
	for (i = 0; i < r4->n; i++) {
		const struct lf_route *rt = &r4->r[i];
		bool hit = false;

		/* The tables' own routes (line 0: the router's addresses, the
		 * martians, the UPF's) and what overlaps them are not transit. */
		for (k = 0; k < n_own && !hit; k++)
			hit = prefix_overlap(rt->addr4, rt->depth, own[k]->addr4, own[k]->depth);
		for (k = 0; k < n_near && !hit; k++)
			hit = prefix_overlap(rt->addr4, rt->depth, near[k]->dst, near[k]->dst_len);
		if (hit)
			continue;
		p[tr->n_pfx].addr = rt->addr4;
		p[tr->n_pfx].host_mask = ~prefix_mask(rt->depth);
		tr->n_pfx++;
	}
	tr->routes = (uint32_t)r4->n;
	free(own);
	free(near);
	tr->pfx = p;
	if (tr->n_pfx == 0)
		return -ENOENT;
	tr->deny_below = 0;
	if (share > 0 && tr->n_deny != 0)
		tr->deny_below = (uint64_t)(share * (double)(1ull << 24));
	return 0;
}

/* ---- traces ---- */

static uint32_t *
make_trace(uint32_t flows, enum dist d, double s)
{
	uint32_t *t = malloc(TRACE_LEN * sizeof(*t));
	struct gen_select sel;
	uint32_t i;

	if (t == NULL)
		return NULL;
	gen_select_init(&sel, d == DIST_ZIPF ? GEN_DIST_ZIPF : GEN_DIST_UNIFORM, flows, s,
			0x2545f4914f6cdd1dull + d);
	for (i = 0; i < TRACE_LEN; i++) {
		uint32_t f = gen_select_next(&sel);

		/* Zipf ranks to flow ids: a fixed permutation (2654435761 is prime). */
		if (d == DIST_ZIPF)
			f = (uint32_t)(((uint64_t)f * 2654435761u) % flows);
		t[i] = f;
	}
	return t;
}

/* ---- the measured loop ---- */

/* One flood configuration: its kind and the share of packets it takes. */
struct flood_conf {
	enum flood_kind kind;
	double share;
};

struct bench {
	struct worker *w;
	struct rte_mempool *pool;
	const struct traffic *tr;
	uint16_t null_port;
	bool cold_data;
	/* The flood under way (FLOOD_NONE: none) and what it needs. */
	enum flood_kind flood;
	uint64_t flood_below; /* A packet whose 32-bit draw is below this is a flood. */
	uint64_t flood_seq; /* Draws made: the flood pattern goes on across runs. */
	uint8_t flood_tmpl[FLOOD_COUNT][FRAME_LEN];
	uint32_t flood_dst; /* The address flooded (network order). */
	struct rte_ring *to_ctrl; /* The worker's ring to the control thread, or NULL. */
	uint64_t ctrl_drained; /* Frames taken off it and freed. */
};

/*
 * Under a flood, each burst's timed cycles by class: one that holds a flood
 * packet, the one right after it (what a flood burst leaves behind, such as
 * a TX buffer to send, is paid there), and the others.
 */
enum burst_class { BURST_FLOOD, BURST_AFTER, BURST_OTHER, BURST_CLASSES };

/* One (dist, prefetch, flood) configuration over the rounds. */
struct result {
	uint64_t pipe[100];
	uint64_t total[100];
	uint64_t transit[100]; /* Transit packets of each round. */
	uint64_t flood_pkts, taken; /* Flood packets, and those that took a token. */
	uint64_t hits, lookups, drops;
	/* Mean timed cycles of a burst of each class (run.cls), each round. */
	double cls[BURST_CLASSES][100];
};

struct run {
	uint64_t cls_cycles[BURST_CLASSES], cls_bursts[BURST_CLASSES];
	uint64_t pipe; /* Cycles in the timed region. */
	uint64_t total; /* Cycles of the whole loop. */
	uint64_t pkts;
	uint64_t transit; /* Of pkts, transit packets (the rest: flood). */
	uint64_t bursts, fused_bursts; /* With check set: bursts that took the fused path. */
	bool fused; /* Every burst took the fused fast path. */
};

/*
 * The prefetch distance under test, for the flow table and the packet data
 * alike: there is no RX port whose driver could call for another.
 */
static void
set_prefetch(struct worker *w, unsigned int d)
{
	w->b.flow_prefetch_distance = (uint16_t)d;
	w->b.prefetch_distance = (uint16_t)d;
}

#if defined(RTE_ARCH_X86)
#include <immintrin.h>
#define HAVE_CLFLUSH 1
/*
 * Evict the frames' data (each line that holds any of it) from every cache
 * level; the fence orders the flushes before the timed loads.
 */
static void
flush_frames(struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t j;

	for (j = 0; j < n; j++) {
		const uintptr_t a = rte_pktmbuf_mtod(pkts[j], uintptr_t);
		uintptr_t l;

		for (l = RTE_ALIGN_FLOOR(a, RTE_CACHE_LINE_SIZE); l < a + pkts[j]->data_len;
		     l += RTE_CACHE_LINE_SIZE)
			_mm_clflush((const void *)l);
	}
	_mm_mfence();
}
#else
#define HAVE_CLFLUSH 0
static void
flush_frames(struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
}
#endif

/* ---- the flood ---- */

/*
 * The frame of each flood kind but its source: to the port's MAC (ARP: to
 * broadcast), for the address dst (network order), 64 bytes.
 */
static void
flood_templates(struct bench *b, const struct rte_ether_addr *mac, const uint8_t *dst)
{
	unsigned int k;

	memcpy(&b->flood_dst, dst, sizeof(b->flood_dst));
	for (k = FLOOD_SYN; k < FLOOD_COUNT; k++) {
		uint8_t *t = b->flood_tmpl[k];
		struct rte_ether_hdr *eth = (struct rte_ether_hdr *)t;
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(eth + 1);
		struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(ip + 1);
		struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)(ip + 1);

		memset(t, 0, FRAME_LEN);
		eth->dst_addr = *mac;
		eth->src_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0x99, 0x02 } };
		if (k == FLOOD_ARP) {
			memset(&eth->dst_addr, 0xff, sizeof(eth->dst_addr));
			eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
			arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
			arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
			arp->arp_hlen = RTE_ETHER_ADDR_LEN;
			arp->arp_plen = 4;
			arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
			arp->arp_data.arp_sha = eth->src_addr;
			arp->arp_data.arp_tip = b->flood_dst;
			continue;
		}
		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(FRAME_LEN - RTE_ETHER_HDR_LEN);
		ip->time_to_live = 64;
		ip->dst_addr = b->flood_dst;
		if (k == FLOOD_SYN) {
			ip->next_proto_id = IPPROTO_TCP;
			tcp->dst_port = rte_cpu_to_be_16(FLOOD_TCP_PORT);
			tcp->data_off = 5 << 4;
			tcp->tcp_flags = RTE_TCP_SYN_FLAG;
			tcp->rx_win = rte_cpu_to_be_16(65535);
		} else {
			ip->next_proto_id = IPPROTO_ICMP;
			ic->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
			ic->icmp_ident = rte_cpu_to_be_16(0x4c46);
			ic->icmp_seq_nb = rte_cpu_to_be_16(1);
			ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic,
								  FRAME_LEN - RTE_ETHER_HDR_LEN -
									  sizeof(*ip));
		}
	}
}

/*
 * Write a flood frame into m from the random draw h: its source is a host
 * of a route prefix (a routable address: an echo reply goes somewhere).
 */
static inline void
write_flood(const struct bench *b, struct rte_mbuf *m, uint64_t h)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	const struct prefix *p = &b->tr->pfx[below(h, b->tr->n_pfx)];
	const uint32_t src = rte_cpu_to_be_32(p->addr | ((uint32_t)(h >> 32) & p->host_mask));

	memcpy(d, b->flood_tmpl[b->flood], FRAME_LEN);
	if (b->flood == FLOOD_ARP) {
		struct rte_arp_hdr *arp = (struct rte_arp_hdr *)(d + RTE_ETHER_HDR_LEN);

		arp->arp_data.arp_sip = src;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + RTE_ETHER_HDR_LEN);

		ip->src_addr = src;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		if (b->flood == FLOOD_SYN) {
			struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(ip + 1);

			tcp->src_port = rte_cpu_to_be_16((uint16_t)(1024 + (h >> 16) % 60000));
			tcp->sent_seq = (uint32_t)h;
			tcp->cksum = rte_ipv4_udptcp_cksum(ip, tcp);
		}
	}
	m->data_len = FRAME_LEN;
	m->pkt_len = FRAME_LEN;
}

/* Free what the worker handed the control thread, as the thread would. */
static void
flood_drain(struct bench *b)
{
	void *m[64];
	unsigned int n;

	if (b->to_ctrl == NULL)
		return;
	while ((n = rte_ring_sc_dequeue_burst(b->to_ctrl, m, RTE_DIM(m), NULL)) != 0) {
		rte_pktmbuf_free_bulk((struct rte_mbuf **)m, n);
		b->ctrl_drained += n;
	}
}

/*
 * Send n packets, flow ids from ids[] (wrapping at len, starting at *pos),
 * through the pipeline in bursts. With check set, the burst is run as
 * pipeline_run() does, but with the fused path called directly so
 * that it can be told which one ran. Under a flood, each packet is a flood
 * one with its share's odds, and only transit packets take ids.
 */
static int
run_packets(struct bench *b, const uint32_t *ids, uint64_t len, uint64_t *pos, uint64_t n,
	    bool check, struct run *r)
{
	struct worker *w = b->w;
	struct rte_mbuf *pkts[LF_BURST_MAX];
	uint32_t id[LF_BURST_MAX];
	uint64_t fh[LF_BURST_MAX]; /* A flood packet's draw; 0 for transit. */
	const uint16_t burst = w->burst;
	uint64_t i, p = *pos, start;
	unsigned int j;
	bool flood_before = false;

	memset(r, 0, sizeof(*r));
	r->fused = true;
	start = rte_rdtsc();
	for (i = 0; i < n; i += burst) {
		uint16_t k = (uint16_t)RTE_MIN((uint64_t)burst, n - i);
		uint64_t t0, t1;

		if (rte_pktmbuf_alloc_bulk(b->pool, pkts, k) != 0) {
			fprintf(stderr, "pipebench: mbuf pool empty: mbufs are leaking\n");
			return -ENOMEM;
		}
		/* Prefetch the prefixes the frames need, then write them. */
		for (j = 0; j < k; j++) {
			fh[j] = 0;
			if (b->flood != FLOOD_NONE) {
				const uint64_t h = mix64(b->flood_seq++ ^ 0x6c616e65666c6f6full);

				if ((h >> 32) < b->flood_below) {
					fh[j] = h | 1;
					continue;
				}
			}
			id[j] = ids[p];
			p = p + 1 == len ? 0 : p + 1;
			rte_prefetch0(flow_prefix(b->tr, id[j]));
			r->transit++;
		}
		for (j = 0; j < k; j++) {
			if (fh[j] != 0)
				write_flood(b, pkts[j], fh[j]);
			else
				write_frame(b->tr, pkts[j], id[j]);
		}
		if (b->cold_data)
			flush_frames(pkts, k);
		t0 = rte_rdtsc();
		w->b.rx_port = 0;
		w->b.rx_tsc = t0;
		if (!check) {
			pipeline_run(&w->b, &w->tx, pkts, k);
		} else if (!pipeline_run_fused(&w->b, &w->tx, pkts, k)) {
			r->fused = false;
			pipeline_run_staged(&w->b, &w->tx, pkts, k);
		} else {
			r->fused_bursts++;
		}
		r->bursts++;
		/* The worker loop's housekeeping after a busy poll. */
		if (t0 - w->last_drain >= w->drain_tsc) {
			worker_flush_tx(w);
			w->last_drain = t0;
		}
		if (w->flows != NULL && t0 >= w->flow_expire_tsc) {
			lf_flow_expire(w->flows, t0, LF_FLOW_EXPIRE_BUDGET);
			w->flow_expire_tsc = t0 + w->flow_expire_period;
		}
		t1 = rte_rdtsc();
		r->pipe += t1 - t0;
		if (b->flood != FLOOD_NONE) {
			bool flood_here = false;
			enum burst_class c;

			for (j = 0; j < k; j++)
				flood_here |= fh[j] != 0;
			c = flood_here ? BURST_FLOOD : flood_before ? BURST_AFTER : BURST_OTHER;
			r->cls_cycles[c] += t1 - t0;
			r->cls_bursts[c]++;
			flood_before = flood_here;
		}
		/* The control thread's part, not the worker's: untimed. */
		flood_drain(b);
	}
	r->total = rte_rdtsc() - start;
	r->pkts = n;
	*pos = p;
	return 0;
}

/* ---- the check ---- */

struct counts {
	uint64_t opackets;
	uint64_t tx;
	uint64_t drops[LF_DROP_COUNT];
	uint64_t ev[LF_EV_COUNT];
	struct lf_flow_stats fs;
};

static void
counts_take(const struct bench *b, struct counts *c)
{
	struct rte_eth_stats es;

	worker_flush_tx(b->w);
	memset(c, 0, sizeof(*c));
	if (rte_eth_stats_get(b->null_port, &es) == 0)
		c->opackets = es.opackets;
	c->tx = b->w->stats.tx_pkts;
	memcpy(c->drops, b->w->stats.drops, sizeof(c->drops));
	memcpy(c->ev, b->w->stats.ev, sizeof(c->ev));
	if (b->w->flows != NULL)
		c->fs = *lf_flow_stats(b->w->flows);
}

/* What the tables decide for flow id: -1 forward, else the drop reason. */
static void
expected_verdicts(const struct bench *b, const uint32_t *ids, uint32_t n, int *verdict)
{
	const struct worker *w = b->w;
	uint32_t i;

	for (i = 0; i < n; i += 64) {
		uint32_t k = RTE_MIN(64u, n - i), j;
		struct acl_key key[64];
		const uint8_t *data[64];
		uint32_t res[64], dst[64];
		uint64_t nh[64];

		for (j = 0; j < k; j++) {
			struct flow_fields f;

			flow_of(b->tr, ids[i + j], &f);
			memset(&key[j], 0, sizeof(key[j]));
			key[j].proto = IPPROTO_UDP;
			key[j].src = rte_cpu_to_be_32(f.src);
			key[j].dst = rte_cpu_to_be_32(f.dst);
			key[j].sport = rte_cpu_to_be_16(f.sport);
			key[j].dport = rte_cpu_to_be_16(f.dport);
			data[j] = (const uint8_t *)&key[j];
			dst[j] = f.dst;
			verdict[i + j] = -1;
		}
		if (w->b.view.acl != NULL) {
			acl_classify(w->b.view.acl, data, res, k);
			for (j = 0; j < k; j++)
				if (acl_action(w->b.view.acl, res[j]) == ACL_DENY)
					verdict[i + j] = LF_DROP_ACL_DENY;
		}
		rte_fib_lookup_bulk(w->b.view.fib->v4, dst, nh, k);
		for (j = 0; j < k; j++) {
			if (verdict[i + j] != -1)
				continue;
			if (nh[j] == LF_NH_NONE)
				verdict[i + j] = LF_DROP_NO_ROUTE;
			else if (lf_nh_out(w->b.view.nh_table, w->b.view.nh_count, nh[j]) ==
				 LF_NH_INVALID)
				verdict[i + j] = LF_DROP_NO_NEXTHOP;
		}
	}
}

/* The event a flood packet that took a token counts, and the bucket it took it from. */
static enum lf_event
flood_event(const struct bench *b, const struct lf_tbucket **tb)
{
	switch (b->flood) {
	case FLOOD_SYN:
		*tb = &b->w->b.exc_tb;
		return LF_EV_PUNT_EXCEPTION;
	case FLOOD_ECHO:
		*tb = &b->w->b.icmp_tb;
		return LF_EV_ICMP_ECHO_REPLY;
	default:
		*tb = &b->w->b.neigh_tb;
		return LF_EV_PUNT_CTRL;
	}
}

/* The most tokens bucket tb gives in cycles TSC cycles, starting full. */
static uint64_t
bucket_bound(const struct lf_tbucket *tb, uint64_t cycles)
{
	if (tb->period == 0)
		return 0;
	return tb->slack / tb->period + 1 + cycles / tb->period + 1;
}

/*
 * Run a sample of the trace again and check it against the tables, and the
 * flood packets against their buckets. Returns true when everything adds
 * up; prints what it found either way.
 */
static bool
check_sample(struct bench *b, const uint32_t *trace, uint32_t n, bool expect_all_hits)
{
	static int verdict[SAMPLE_MAX];
	struct counts c0, c1;
	uint64_t exp_drop[LF_DROP_COUNT] = { 0 }, exp_fwd = 0, pos = 0, drops = 0;
	uint64_t ctrl0, t0, cycles, nf;
	struct run r;
	bool ok = true;
	uint32_t i;

	counts_take(b, &c0);
	ctrl0 = b->ctrl_drained;
	t0 = rte_rdtsc();
	if (run_packets(b, trace, n, &pos, n, true, &r) != 0)
		return false;
	cycles = rte_rdtsc() - t0;
	counts_take(b, &c1);
	/* The transit packets took trace[0..transit), in order. */
	expected_verdicts(b, trace, (uint32_t)r.transit, verdict);
	for (i = 0; i < r.transit; i++) {
		if (verdict[i] < 0)
			exp_fwd++;
		else
			exp_drop[verdict[i]]++;
	}
	nf = n - r.transit;
	if (b->flood != FLOOD_NONE) {
		const struct lf_tbucket *tb;
		const enum lf_event ev = flood_event(b, &tb);
		const uint64_t taken = c1.ev[ev] - c0.ev[ev], bound = bucket_bound(tb, cycles);

		printf("flood %s: %" PRIu64 " packets, %" PRIu64 " %s (at most %" PRIu64
		       " in %.2f ms)",
		       flood_names[b->flood], nf, taken, lf_event_names[ev], bound,
		       (double)cycles * 1e3 / (double)rte_get_tsc_hz());
		if (taken > nf || taken > bound)
			ok = false;
		else
			exp_drop[LF_DROP_PUNT_RATE] += nf - taken;
		/* Punts and echo replies leave through the (null) ports. */
		if (b->flood != FLOOD_ARP)
			exp_fwd += taken;
		if (b->flood == FLOOD_ECHO &&
		    c1.ev[LF_EV_ICMP_SUPPRESSED] - c0.ev[LF_EV_ICMP_SUPPRESSED] != nf - taken)
			ok = false;
		if (b->flood == FLOOD_ARP) {
			printf(", %" PRIu64 " off the ring", b->ctrl_drained - ctrl0);
			if (b->ctrl_drained - ctrl0 != taken)
				ok = false;
		}
		printf("; ");
	}
	printf("%u packets (%" PRIu64 " transit): sent %" PRIu64 " (expected %" PRIu64
	       "), null port opackets %" PRIu64,
	       n, r.transit, c1.tx - c0.tx, exp_fwd, c1.opackets - c0.opackets);
	if (c1.tx - c0.tx != exp_fwd || c1.opackets - c0.opackets != exp_fwd)
		ok = false;
	for (i = 0; i < LF_DROP_COUNT; i++) {
		uint64_t got = c1.drops[i] - c0.drops[i];

		drops += got;
		if (got != 0 || exp_drop[i] != 0)
			printf(", %s %" PRIu64 " (expected %" PRIu64 ")", lf_drop_names[i], got,
			       exp_drop[i]);
		if (got != exp_drop[i])
			ok = false;
	}
	/* Every packet accounted for: rx = tx + drops + punt_ctrl. */
	if (c1.tx - c0.tx + drops + c1.ev[LF_EV_PUNT_CTRL] - c0.ev[LF_EV_PUNT_CTRL] != n) {
		printf(", tx + drops + punt_ctrl != %u", n);
		ok = false;
	}
	printf("; path: %s", r.fused ? "fused" : "staged");
	if (!r.fused)
		printf(" (%" PRIu64 " of %" PRIu64 " bursts fused)", r.fused_bursts, r.bursts);
	if (b->w->flows != NULL) {
		uint64_t hits = c1.fs.hits - c0.fs.hits, lookups = c1.fs.lookups - c0.fs.lookups;

		printf("; flow lookups %" PRIu64 " hits %" PRIu64 " inserts %" PRIu64, lookups,
		       hits, c1.fs.inserts - c0.fs.inserts);
		if (lookups != n || (expect_all_hits && hits != n))
			ok = false;
	}
	printf(": %s\n", ok ? "ok" : "FAIL");
	return ok;
}

/* ---- options ---- */

static int
parse_u64(const char *arg, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 0);

	if (end == arg)
		return -1;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "flows", required_argument, NULL, 'f' },
		{ "dist", required_argument, NULL, 'd' },
		{ "zipf-s", required_argument, NULL, 's' },
		{ "packets", required_argument, NULL, 'n' },
		{ "burst", required_argument, NULL, 'b' },
		{ "reps", required_argument, NULL, 'r' },
		{ "prefetch", required_argument, NULL, 'p' },
		{ "deny-share", required_argument, NULL, 'D' },
		{ "label", required_argument, NULL, 'L' },
		{ "csv", required_argument, NULL, 'C' },
		{ "traffic-acl", required_argument, NULL, 'T' },
		{ "cold-data", no_argument, NULL, 'K' },
		{ "flood-kind", required_argument, NULL, 'F' },
		{ "flood-share", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	char *copy, *tok, *save;
	uint64_t v;
	int c;

	*o = (struct opts){
		.flows = 1u << 20,
		.dist = { true, false },
		.zipf_s = 0.99,
		.packets = 4u << 20,
		.reps = 3,
		.label = "-",
		.share = { 0.1, 0.5, 0.9 },
		.n_share = 3,
	};
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'f':
			if (parse_u64(optarg, LF_FLOW_MAX_CAPACITY, &v) < 0 || v == 0)
				return -1;
			o->flows = (uint32_t)v;
			break;
		case 'd':
			memset(o->dist, 0, sizeof(o->dist));
			copy = strdup(optarg);
			save = NULL;
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				if (strcmp(tok, "uniform") == 0) {
					o->dist[DIST_UNIFORM] = true;
				} else if (strcmp(tok, "zipf") == 0) {
					o->dist[DIST_ZIPF] = true;
				} else {
					free(copy);
					return -1;
				}
			}
			free(copy);
			break;
		case 's':
			o->zipf_s = strtod(optarg, NULL);
			if (!(o->zipf_s > 0 && o->zipf_s <= 20))
				return -1;
			break;
		case 'n':
			if (parse_u64(optarg, 1ull << 34, &v) < 0 || v == 0)
				return -1;
			o->packets = v;
			break;
		case 'b':
			if (parse_u64(optarg, LF_BURST_MAX, &v) < 0 || v == 0)
				return -1;
			o->burst = (unsigned int)v;
			break;
		case 'r':
			if (parse_u64(optarg, 100, &v) < 0 || v == 0)
				return -1;
			o->reps = (unsigned int)v;
			break;
		case 'p':
			o->n_prefetch = 0;
			copy = strdup(optarg);
			save = NULL;
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				if (o->n_prefetch == MAX_LIST ||
				    parse_u64(tok, LF_PREFETCH_MAX, &v) < 0) {
					free(copy);
					return -1;
				}
				o->prefetch[o->n_prefetch++] = (unsigned int)v;
			}
			free(copy);
			if (o->n_prefetch == 0)
				return -1;
			break;
		case 'D':
			o->deny_share = strtod(optarg, NULL);
			if (!(o->deny_share >= 0 && o->deny_share <= 1))
				return -1;
			break;
		case 'L':
			o->label = optarg;
			break;
		case 'C':
			o->csv = optarg;
			break;
		case 'T':
			o->traffic_acl = optarg;
			break;
		case 'F':
			memset(o->flood, 0, sizeof(o->flood));
			copy = strdup(optarg);
			save = NULL;
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				unsigned int k;

				for (k = FLOOD_SYN; k < FLOOD_COUNT; k++)
					if (strcmp(tok, flood_names[k]) == 0)
						break;
				if (k == FLOOD_COUNT) {
					free(copy);
					return -1;
				}
				o->flood[k] = true;
			}
			free(copy);
			break;
		case 'S':
			o->n_share = 0;
			copy = strdup(optarg);
			save = NULL;
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				char *end;
				double f = strtod(tok, &end);

				/* 0 is always run; a share of 1 would leave no transit. */
				if (*end != '\0' || !(f >= 0 && f < 1) || o->n_share == MAX_LIST) {
					free(copy);
					return -1;
				}
				if (f > 0)
					o->share[o->n_share++] = f;
			}
			free(copy);
			break;
		case 'K':
			if (!HAVE_CLFLUSH) {
				fprintf(stderr,
					"pipebench: --cold-data: no cache flush on this "
					"architecture\n");
				return -1;
			}
			o->cold_data = true;
			break;
		default:
			return -1;
		}
	}
	if (o->config == NULL || optind != argc)
		return -1;
	return 0;
}

/* ---- set-up ---- */

static int
null_port_create(uint16_t *port)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_dev_probe(NULL_DEV ",no-rx=1");
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_get_port_by_name(NULL_DEV, port);
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_configure(*port, 0, 1, &conf);
	if (ret != 0)
		return ret;
	ret = rte_eth_tx_queue_setup(*port, 0, 512, (unsigned int)rte_socket_id(), NULL);
	if (ret != 0)
		return ret;
	return rte_eth_dev_start(*port);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The router's own side for a flood, as src/control/local.c builds it: each
 * configured port gets a mirror at index n_ports + p that sends to the null
 * port, and the worker its token buckets at the config's rates and a ring
 * to the control thread. The flood is at port 0's first IPv4 address.
 */
static int
flood_setup(struct bench *b, const struct lf_config *cfg, const struct rte_ether_addr *macs,
	    struct lf_local **local)
{
	struct worker *w = b->w;
	const uint64_t hz = rte_get_tsc_hz();
	const uint8_t *dst = NULL;
	struct lf_local *l;
	unsigned int p, k;

	for (k = 0; k < cfg->ports[0].n_addrs && dst == NULL; k++)
		if (cfg->ports[0].addr[k].af == 4)
			dst = cfg->ports[0].addr[k].a;
	if (dst == NULL) {
		fprintf(stderr, "pipebench: --flood-kind: [%s] has no IPv4 address to flood\n",
			cfg->ports[0].section);
		return -EINVAL;
	}
	if (w->flows != NULL) {
		fprintf(stderr,
			"pipebench: --flood-kind: not with a [flow] table (its check "
			"counts transit lookups only)\n");
		return -EINVAL;
	}
	l = rte_zmalloc_socket("pb_local", sizeof(*l), RTE_CACHE_LINE_SIZE, w->socket);
	if (l == NULL)
		return -ENOMEM;
	*local = l;
	l->echo = cfg->icmp.echo;
	l->time_exceeded = cfg->icmp.time_exceeded;
	l->unreachable = cfg->icmp.unreachable;
	l->frag_needed = cfg->icmp.frag_needed;
	l->n_ports = (uint16_t)(2 * cfg->n_ports);
	for (p = 0; p < cfg->n_ports; p++) {
		const struct lf_port_conf *pc = &cfg->ports[p];
		struct lf_port_l3 *l3 = &l->port[p], *m = &l->port[cfg->n_ports + p];

		l3->mac = macs[p];
		l3->mtu = pc->mtu;
		l3->promisc = pc->promiscuous;
		l3->exc_out = (uint16_t)(cfg->n_ports + p);
		for (k = 0; k < pc->n_addrs; k++) {
			if (pc->addr[k].af == 4 && !l3->has_ip4) {
				memcpy(l3->ip4, pc->addr[k].a, 4);
				l3->has_ip4 = true;
			} else if (pc->addr[k].af == 6 && !l3->has_ip6) {
				memcpy(l3->ip6, pc->addr[k].a, 16);
				l3->has_ip6 = true;
			}
		}
		if (pc->mtu != cfg->ports[0].mtu)
			l->mtu_check = true;
		m->mac = macs[p];
		m->mtu = pc->mtu;
		m->exc_out = LF_NH_INVALID;
		w->tx.buf[cfg->n_ports + p].port_id = b->null_port;
		w->tx.buf[cfg->n_ports + p].queue_id = 0;
	}
	w->tx.n_ports = l->n_ports;
	b->to_ctrl = rte_ring_create("pb_to_ctrl", FLOOD_RING_SIZE, w->socket,
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (b->to_ctrl == NULL)
		return -ENOMEM;
	w->b.local = l;
	w->b.to_ctrl = b->to_ctrl;
	lf_tbucket_init(&w->b.icmp_tb, hz, cfg->icmp.rate_pps, cfg->icmp.burst);
	lf_tbucket_init(&w->b.exc_tb, hz, cfg->exception.punt_pps, cfg->exception.punt_burst);
	lf_tbucket_init(&w->b.neigh_tb, hz, cfg->neigh.punt_pps, cfg->neigh.punt_burst);
	flood_templates(b, &macs[0], dst);
	printf("# flood at %u.%u.%u.%u (port 0's MAC; ARP to broadcast): [icmp] rate_pps %u "
	       "burst %u, [exception] punt_pps %u punt_burst %u, [neighbour] punt_pps %u "
	       "punt_burst %u per worker\n",
	       dst[0], dst[1], dst[2], dst[3], cfg->icmp.rate_pps, cfg->icmp.burst,
	       cfg->exception.punt_pps, cfg->exception.punt_burst, cfg->neigh.punt_pps,
	       cfg->neigh.punt_burst);
	return 0;
}

/* Make fc's flood the one under way. */
static void
flood_set(struct bench *b, const struct flood_conf *fc)
{
	b->flood = fc->kind;
	b->flood_below = (uint64_t)(fc->share * 4294967296.0);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static const char *
pipeline_desc(const struct worker *w)
{
	/* The flow cache runs only in front of an ACL (worker.c). */
	if (w->b.flows != NULL)
		return "parse>flow>(acl>fib>rewrite on miss)>tx";
	if (w->b.view.acl != NULL)
		return "parse>acl>fib>rewrite>tx";
	return "fused (parse+fib+rewrite)>tx";
}

int
main(int argc, char **argv)
{
	static struct lf_config cfg;
	struct lf_table_src src = { 0 };
	struct acl_rule_set traffic_rules = { 0 };
	struct rte_ether_addr macs[LF_MAX_PORTS];
	struct traffic tr = { 0 };
	struct lf_tables *tables = NULL;
	struct worker *w = NULL;
	struct bench b = { 0 };
	uint32_t *trace[DIST_COUNT] = { NULL };
	char err[LF_ERR_LEN];
	struct opts o;
	FILE *csv = NULL;
	static struct result res[DIST_COUNT][MAX_LIST][MAX_FC];
	struct flood_conf fcs[MAX_FC] = { { FLOOD_NONE, 0 } };
	struct lf_local *local = NULL;
	bool flooding = false;
	unsigned int n_fc = 1, f;
	const char *layout = "none";
	double hz, fill_cyc;
	uint64_t pos[DIST_COUNT] = { 0 }, ramp;
	unsigned int p, d, pi, r, n_pf;
	int ret, socket, exit_code = 1;
	bool ok = true, port_up = false;
	struct run fill;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "pipebench: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr,
			"usage: lanefwd-pipebench [EAL args] -- -c CONFIG [--flows N] "
			"[--dist uniform,zipf] [--zipf-s S] [--packets N] [--burst N] [--reps N] "
			"[--prefetch D,D,...] [--deny-share F] [--traffic-acl FILE] [--label TEXT] "
			"[--csv FILE] [--cold-data] [--flood-kind syn,echo,arp] "
			"[--flood-share F,F,...]\n");
		rte_eal_cleanup();
		return 2;
	}
	hz = (double)rte_get_tsc_hz();
	socket = (int)rte_socket_id();

	if (config_load(o.config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "pipebench: config error: %s\n", err);
		goto out_eal;
	}
	if (tables_load_files(&cfg, &src, err, sizeof(err)) != 0) {
		fprintf(stderr, "pipebench: %s\n", err);
		goto out_cfg;
	}
	if (o.traffic_acl != NULL &&
	    acl_load(o.traffic_acl, &traffic_rules, err, sizeof(err)) < 0) {
		fprintf(stderr, "pipebench: --traffic-acl: %s\n", err);
		tables_src_free(&src);
		goto out_cfg;
	}
	ret = traffic_setup(&tr, &src.r4, o.traffic_acl != NULL ? &traffic_rules : &src.acl,
			    o.deny_share);
	acl_rule_set_free(&traffic_rules);
	if (ret != 0) {
		fprintf(stderr, "pipebench: %s: %s\n", o.config,
			ret == -ENOENT ? "no IPv4 route the traffic can use" : strerror(-ret));
		tables_src_free(&src);
		goto out_traffic;
	}
	if (o.deny_share > 0 && tr.n_deny == 0)
		fprintf(stderr, "pipebench: --deny-share: no ACL rule denies UDP; ignored\n");
	tr.flows = o.flows;
	traffic_template(&tr);
	for (p = 0; p < LF_MAX_PORTS; p++)
		macs[p] = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xee, (uint8_t)p } };
	tables = tables_build(&cfg, &src, macs, socket, 1, err, sizeof(err));
	if (tables == NULL) {
		fprintf(stderr, "pipebench: %s\n", err);
		goto out_traffic;
	}

	b.tr = &tr;
	b.cold_data = o.cold_data;
	b.pool = rte_pktmbuf_pool_create("pb_pool", POOL_SIZE, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					 socket);
	if (b.pool == NULL) {
		fprintf(stderr, "pipebench: mbuf pool: %s\n", rte_strerror(rte_errno));
		goto out_tables;
	}
	ret = null_port_create(&b.null_port);
	if (ret != 0) {
		fprintf(stderr, "pipebench: %s: %s\n", NULL_DEV, rte_strerror(-ret));
		goto out_port;
	}
	port_up = true;

	/* The worker, as main.c's workers_create() makes it, with one TX port. */
	w = rte_zmalloc_socket("pb_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
	if (w == NULL)
		goto out_port;
	b.w = w;
	w->lcore = rte_lcore_id();
	w->socket = socket;
	w->burst = o.burst != 0 ? (uint16_t)o.burst : cfg.pipeline.burst;
	set_prefetch(w, cfg.pipeline.prefetch_distance);
	w->drain_tsc = ((uint64_t)hz + 999999) / 1000000 * cfg.pipeline.tx_drain_us;
	worker_adopt(w, tables);
	if (cfg.flow.enabled) {
		w->flows = flow_stage_create(&cfg.flow, 0, w->lcore, socket, err, sizeof(err));
		if (w->flows == NULL) {
			fprintf(stderr, "pipebench: %s\n", err);
			goto out_worker;
		}
		w->flow_expire_period = (uint64_t)hz / 1000000 * LF_FLOW_EXPIRE_US;
	}
	if (cfg.pipeline.latency) {
		for (p = 0; p < 2; p++) {
			w->lat[p] = rte_malloc_socket("pb_lat", sizeof(struct lf_hist),
						      RTE_CACHE_LINE_SIZE, socket);
			if (w->lat[p] == NULL)
				goto out_worker;
			lf_hist_reset(w->lat[p]);
		}
		w->latency = true;
	}
	/* Every port index a next hop names goes to the null port. */
	w->tx.n_ports = cfg.n_ports;
	for (p = 0; p < cfg.n_ports; p++) {
		w->tx.buf[p].port_id = b.null_port;
		w->tx.buf[p].queue_id = 0;
	}
	worker_ready(w);
	for (f = FLOOD_SYN; f < FLOOD_COUNT; f++)
		flooding = flooding || o.flood[f];
	if (flooding) {
		if (flood_setup(&b, &cfg, macs, &local) != 0)
			goto out_worker;
		for (f = FLOOD_SYN; f < FLOOD_COUNT; f++) {
			for (p = 0; o.flood[f] && p < o.n_share; p++) {
				fcs[n_fc].kind = (enum flood_kind)f;
				fcs[n_fc++].share = o.share[p];
			}
		}
	}

	for (d = 0; d < DIST_COUNT; d++) {
		if (!o.dist[d])
			continue;
		trace[d] = make_trace(o.flows, (enum dist)d, o.zipf_s);
		if (trace[d] == NULL) {
			fprintf(stderr, "pipebench: out of memory for the trace\n");
			goto out_worker;
		}
	}
	if (o.n_prefetch == 0) {
		o.prefetch[0] = w->b.flow_prefetch_distance;
		o.n_prefetch = 1;
	}
	n_pf = o.n_prefetch;

	if (w->flows != NULL)
		layout = cfg.flow.fat ? "fat" : "hotcold";
	printf("# config %s; %u flows, %u IPv4 routes, %u IPv4 ACL rules, flow table %s; "
	       "burst %u, TSC %.3f GHz, lcore %u, latency %s, deny-share %.3f (%u UDP deny rules), "
	       "packet data %s\n",
	       o.config, o.flows, tables->fib.n4, tables->acl_rules, layout, w->burst, hz / 1e9,
	       rte_lcore_id(), w->latency ? "on" : "off", o.deny_share, tr.n_deny,
	       o.cold_data ? "cold (flushed after writing)" : "hot (just written)");
	printf("# traffic: sources in %u.0.0.0/8 (%u UDP deny rules overlap it), destinations "
	       "in %u of %u route prefixes (the others overlap those rules or the tables' own)\n",
	       tr.src_block >> 24, tr.near_rules, tr.n_pfx, tr.routes);
	if (w->flows != NULL)
		printf("# flow table: %u entries, %.1f MiB\n", lf_flow_capacity(w->flows),
		       lf_flow_mem_bytes(w->flows) / 1048576.0);
	printf("# pipeline: %s\n", pipeline_desc(w));
	fflush(stdout);

	/* Fill: every flow once, in id order (the miss path with a flow table). */
	{
		uint32_t *ids = malloc((size_t)o.flows * sizeof(*ids));
		uint64_t zpos = 0;
		uint32_t i;

		if (ids == NULL)
			goto out_trace;
		for (i = 0; i < o.flows; i++)
			ids[i] = i;
		ret = run_packets(&b, ids, o.flows, &zpos, o.flows, false, &fill);
		free(ids);
		if (ret != 0)
			goto out_trace;
		fill_cyc = (double)fill.pipe / (double)fill.pkts;
		printf("# fill: %u packets (one per flow), %.1f cycles/packet pipeline", o.flows,
		       fill_cyc);
		if (w->flows != NULL)
			printf(", flows in table %" PRIu64 ", overflow %" PRIu64,
			       lf_flow_stats(w->flows)->count, lf_flow_stats(w->flows)->overflow);
		printf("\n");
	}

	printf("# cycles: per packet, median of %u rounds; pipeline = pipeline_run + "
	       "drain/aging + null TX; total = + mbuf alloc + frame write\n",
	       o.reps);
	fflush(stdout);

	/*
	 * Rounds go over every (dist, prefetch) in turn, and within each over
	 * every flood configuration in an order that rotates from round to
	 * round, so that each flood's run and its reference (share 0) are
	 * measured side by side.
	 */
	ramp = RTE_MAX(o.packets / 4, (uint64_t)w->burst);
	for (r = 0; r < o.reps; r++) {
		for (d = 0; d < DIST_COUNT; d++) {
			if (!o.dist[d])
				continue;
			for (pi = 0; pi < n_pf; pi++) {
				for (f = 0; f < n_fc; f++) {
					const unsigned int fi = (f + r) % n_fc;
					struct result *x = &res[d][pi][fi];
					const struct lf_tbucket *tb;
					struct counts c0, c1;
					struct run run;
					enum lf_event ev;
					unsigned int k;

					set_prefetch(w, o.prefetch[pi]);
					flood_set(&b, &fcs[fi]);
					/* Warm caches and TLBs for this trace first. */
					if (run_packets(&b, trace[d], TRACE_LEN, &pos[d], ramp,
							false, &run) != 0)
						goto out_trace;
					counts_take(&b, &c0);
					if (run_packets(&b, trace[d], TRACE_LEN, &pos[d], o.packets,
							false, &run) != 0)
						goto out_trace;
					counts_take(&b, &c1);
					x->pipe[r] = run.pipe;
					x->total[r] = run.total;
					x->transit[r] = run.transit;
					for (k = 0; k < BURST_CLASSES; k++)
						x->cls[k][r] = run.cls_bursts[k] != 0
							? (double)run.cls_cycles[k] /
								(double)run.cls_bursts[k]
							: 0;
					x->flood_pkts += o.packets - run.transit;
					if (fcs[fi].kind != FLOOD_NONE) {
						ev = flood_event(&b, &tb);
						x->taken += c1.ev[ev] - c0.ev[ev];
					}
					x->hits += c1.fs.hits - c0.fs.hits;
					x->lookups += c1.fs.lookups - c0.fs.lookups;
					for (k = 0; k < LF_DROP_COUNT; k++)
						x->drops += c1.drops[k] - c0.drops[k];
				}
			}
		}
	}

	/* The check, on a sample of each trace (and flood): not timed. */
	for (d = 0; d < DIST_COUNT; d++) {
		uint32_t n = (uint32_t)RTE_MIN((uint64_t)SAMPLE_MAX, o.packets);
		bool all_hits = w->flows != NULL && lf_flow_capacity(w->flows) >= o.flows &&
			lf_flow_stats(w->flows)->overflow == 0;

		if (!o.dist[d])
			continue;
		set_prefetch(w, o.prefetch[0]);
		for (f = 0; f < n_fc; f++) {
			flood_set(&b, &fcs[f]);
			printf("# check %s", dist_names[d]);
			if (flooding)
				printf(" share %.2f", fcs[f].share);
			printf(", ");
			ok = check_sample(&b, trace[d], n, all_hits) && ok;
		}
	}

	if (o.csv != NULL) {
		csv = fopen(o.csv, "w");
		if (csv == NULL) {
			fprintf(stderr, "pipebench: %s: %s\n", o.csv, strerror(errno));
			goto out_trace;
		}
		fprintf(csv,
			"label,flows,dist,prefetch,layout,burst,routes,acl_rules,flow_entries,"
			"cycles,min_cycles,total_cycles,mpps,mpps_total,hit_ratio,drop_ratio,"
			"fill_cycles,mem_bytes,reps,packets,check,flood,share,transit,"
			"cycles_transit,transit_mpps,transit_ratio,flood_cycles,taken,"
			"burst_flood_cycles,burst_after_cycles,burst_other_cycles\n");
	}
	printf("%-10s %9s %-8s %3s %8s %8s %8s %8s %8s %6s %6s", "label", "flows", "dist", "pf",
	       "cycles", "min", "total", "Mpps", "Mpps_tot", "hit%", "drop%");
	if (flooding)
		printf(" %-5s %5s %8s %8s %8s %7s %8s %8s", "flood", "share", "transit", "cyc/tr",
		       "tr_Mpps", "tr_x", "cyc/fl", "taken");
	printf("\n");
	for (d = 0; d < DIST_COUNT; d++) {
		if (!o.dist[d])
			continue;
		for (pi = 0; pi < n_pf; pi++) {
			/* Paired with the reference of the same round: the ratio of
			 * transit rates, and what a flood packet adds. */
			static double ratio[MAX_FC][100], fcyc[MAX_FC][100];
			const struct result *x0 = &res[d][pi][0];

			for (f = 0; f < n_fc; f++) {
				const struct result *x = &res[d][pi][f];

				for (r = 0; r < o.reps; r++) {
					const double c0 =
						(double)x0->pipe[r] / (double)x0->transit[r];
					const double ct =
						(double)x->pipe[r] / (double)x->transit[r];
					const double nfl = (double)(o.packets - x->transit[r]);

					ratio[f][r] = c0 / ct;
					fcyc[f][r] = nfl > 0 ? ((double)x->pipe[r] -
								(double)x->transit[r] * c0) /
							nfl
							     : 0;
				}
				qsort(ratio[f], o.reps, sizeof(double), cmp_double);
				qsort(fcyc[f], o.reps, sizeof(double), cmp_double);
			}
			for (f = 0; f < n_fc; f++) {
				struct result *x = &res[d][pi][f];
				double np = (double)o.packets, med, min, tot, hit, drop, tr, ctr;
				unsigned int c;

				tr = 0;
				for (r = 0; r < o.reps; r++)
					tr += (double)x->transit[r];
				tr /= o.reps;
				for (c = 0; c < BURST_CLASSES; c++)
					qsort(x->cls[c], o.reps, sizeof(double), cmp_double);
				qsort(x->pipe, o.reps, sizeof(uint64_t), cmp_u64);
				qsort(x->total, o.reps, sizeof(uint64_t), cmp_u64);
				med = (double)x->pipe[o.reps / 2] / np;
				min = (double)x->pipe[0] / np;
				tot = (double)x->total[o.reps / 2] / np;
				hit = x->lookups != 0 ? (double)x->hits / (double)x->lookups : 0.0;
				drop = (double)x->drops / (np * o.reps);
				/* Cycles per transit packet: the median round's cycles over
				 * the mean transit count (it varies by a few 0.1%). */
				ctr = (double)x->pipe[o.reps / 2] / tr;
				printf("%-10s %9u %-8s %3u %8.1f %8.1f %8.1f %8.2f %8.2f %6.1f %6.2f",
				       o.label, o.flows, dist_names[d], o.prefetch[pi], med, min,
				       tot, hz / med / 1e6, hz / tot / 1e6, hit * 100, drop * 100);
				if (flooding)
					printf(" %-5s %5.2f %8.0f %8.1f %8.2f %7.3f %8.1f %8" PRIu64,
					       flood_names[fcs[f].kind], fcs[f].share, tr, ctr,
					       hz / ctr / 1e6, ratio[f][o.reps / 2],
					       fcyc[f][o.reps / 2], x->taken);
				printf("\n");
				if (csv != NULL)
					fprintf(csv,
						"%s,%u,%s,%u,%s,%u,%u,%u,%u,%.2f,%.2f,%.2f,%.3f,%.3f,"
						"%.5f,%.5f,%.1f,%zu,%u,%" PRIu64
						",%s,%s,%.3f,%.0f,%.2f,%.3f,%.4f,%.2f,%" PRIu64
						",%.1f,%.1f,%.1f\n",
						o.label, o.flows, dist_names[d], o.prefetch[pi],
						layout, w->burst, tables->fib.n4, tables->acl_rules,
						w->flows != NULL ? lf_flow_capacity(w->flows) : 0,
						med, min, tot, hz / med / 1e6, hz / tot / 1e6, hit,
						drop, fill_cyc,
						w->flows != NULL ? lf_flow_mem_bytes(w->flows) : 0,
						o.reps, o.packets, ok ? "ok" : "FAIL",
						flood_names[fcs[f].kind], fcs[f].share, tr, ctr,
						hz / ctr / 1e6, ratio[f][o.reps / 2],
						fcyc[f][o.reps / 2], x->taken,
						x->cls[BURST_FLOOD][o.reps / 2],
						x->cls[BURST_AFTER][o.reps / 2],
						x->cls[BURST_OTHER][o.reps / 2]);
			}
		}
	}
	if (csv != NULL)
		fclose(csv);
	fflush(stdout);
	exit_code = ok ? 0 : EXIT_CHECK;

out_trace:
	for (d = 0; d < DIST_COUNT; d++)
		free(trace[d]);
out_worker:
	rte_ring_free(b.to_ctrl);
	rte_free(local);
	if (w != NULL) {
		lf_flow_free(w->flows);
		rte_free(w->lat[0]);
		rte_free(w->lat[1]);
		rte_free(w);
	}
out_port:
	if (port_up) {
		rte_eth_dev_stop(b.null_port);
		rte_eth_dev_close(b.null_port);
	}
	rte_mempool_free(b.pool);
out_tables:
	tables_free(tables);
out_traffic:
	rte_free(tr.pfx);
	free(tr.deny);
out_cfg:
	config_free(&cfg);
out_eal:
	rte_eal_cleanup();
	return exit_code;
}
