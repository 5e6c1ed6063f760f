/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-upfbench: cycles per packet of the UPF's uplink and downlink
 * through the real burst pipeline (pipeline_run) on one core, against
 * plain L3 forwarding of the same user packets on the same harness, in
 * one process, so that the ratio to L3 comes from one run.
 *
 * The configuration's tables are built as the daemon builds them
 * (tables_load_files + tables_build, which add the [upf] N3 address and
 * the UE pools to the FIB). A session store is created as main.c's
 * upf_create() sizes it, without a QSBR variable (one thread: nothing is
 * ever deleted here), and S sessions are put straight into it
 * (upf_store_put, no PFCP). Session i:
 *
 *   uplink PDR:   ACCESS, local F-TEID, QFI 9, UE address, outer header
 *                 removal, FAR FORW to CORE. The TEID is the one the
 *                 store's allocator gives for F-TEID CHOOSE (--teids
 *                 chosen, the default: the TEID table's direct array,
 *                 lib/upf_teid.h), which in a fresh store is
 *                 0x40000000 + i (checked), or --teid-base + i (--teids
 *                 given: as a CP assigns them, in the table's rte_hash);
 *   downlink PDR: CORE, UE address (the pool's first + 1 + i: with the
 *                 config's ue_alloc starting at the pool, the address
 *                 CHOOSE gives session i of a fresh pool, in the UE
 *                 table's direct array, lib/upf_uetab.h; --ues given
 *                 keeps the array away, as for addresses the CP assigns
 *                 from its own pool: the table's rte_hash), FAR FORW
 *                 with outer header creation GTP-U/UDP/IPv4 to a gNB
 *                 address the routes reach, TEID 0x80000000 + i;
 *   one QER (QFI 9, gates open, an MBR with --mbr) on both, a URR (volume)
 *   on every PDR.
 *
 * With --pdrs 4, each direction has 3 more PDRs of higher priority
 * (precedence 10, 20, 30 against 255), each with the same F-TEID, QFI and
 * UE address and one SDF filter on UDP, the remote's /8 and the UE's /32
 * whose remote port range (1-99, 100-199, 200-299) the traffic never uses:
 * every condition but the last is evaluated and holds, and the packet's
 * PDR is the last of its direction. That is the worst case of a linear
 * scan: the store keeps each direction's PDRs together, so a packet visits
 * the 4 of its own direction of the session's 8.
 *
 * No configured port is created: one struct worker is set up by hand as
 * pipebench.c does, every port index a next hop names sends to one
 * net_null port, and b.upf / b.upf_wk are set as upf_create() sets them.
 *
 * Traffic (--mode, interleaved within each round, order rotating):
 *   l3: 64-byte IPv4/UDP frames from the UE address of session i to its
 *       remote (N6) address: plain routed packets, the fused fast path;
 *   ul: the same user packet (50 bytes of IPv4) as a G-PDU from the
 *       session's gNB to the N3 address, with a PDU Session Container
 *       (UL, QFI 9): 108-byte frames; out come the 64-byte l3 frames;
 *   dl: 64-byte IPv4/UDP frames from the remote to the UE; out come
 *       108-byte G-PDUs.
 * Session ids come from a pre-generated trace, uniform or Zipf (over a
 * fixed permutation). For each burst the mbufs are allocated and the frames
 * written (not timed); then pipeline_run() and the loop's housekeeping
 * after a busy poll (TX drain, the from_ctrl ring test of worker 0) are
 * timed with the TSC. The frame data is hot, as in pipebench.c's default.
 *
 * After timing, a sample of each (mode, trace) is run again, untimed, with
 * a TX callback on the null port that checks every frame (addresses,
 * ports, TTL, checksums, the next hop's MACs; for the downlink the outer
 * header, the TEID of the session and the QFI in the container), and the
 * counters are checked: frames out = frames in, no drop of any reason,
 * the UPF's forwarded counts, and the URRs (the matched PDR's URR counts
 * every packet, the other PDRs' none). The timed runs must drop nothing
 * either. A failed check prints FAIL and exits with status 3, so a broken
 * pipeline cannot produce a number.
 *
 * Memory: upf_store_counts() bytes, and the rte_malloc heap (hash tables,
 * session objects, per-worker arrays, rings) and libc heap growth from
 * before the store was created to after the puts, per session.
 * bench/bench-upf.sh runs the matrix behind docs/upf-bench.md.
 *
 * usage: lanefwd-upfbench [EAL args] -- -c CONFIG [--sessions N] [--pdrs 1|4]
 *        [--mode l3,ul,dl,lk_ul,lk_dl] [--dist uniform,zipf] [--zipf-s S] [--packets N]
 *        [--reps N] [--burst N] [--mbr KBPS] [--gnbs N] [--label TEXT] [--csv FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
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
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "config.h"
#include "fib.h"
#include "gen.h"
#include "gtpu.h"
#include "pipeline.h"
#include "tables.h"
#include "upf.h"
#include "upf_uepool.h"
#include "worker.h"

#define TRACE_LEN (8u << 20) /* Session ids per trace: 32 MiB, read sequentially. */
#define FRAME_LEN 64 /* The user's frame: Ethernet + 50 bytes of IPv4/UDP. */
#define INNER_LEN (FRAME_LEN - RTE_ETHER_HDR_LEN)
#define GTP_LEN (8 + 4 + 4) /* Header, optional fields, PDU Session Container. */
#define OUTER_HDR (20 + 8 + GTP_LEN) /* IPv4 + UDP + GTP-U before the user's packet. */
#define GPDU_LEN (FRAME_LEN + OUTER_HDR) /* 108 */
#define POOL_SIZE 8191
#define SAMPLE_MAX 65536
#define NULL_DEV "net_null_ub0"
#define EXIT_CHECK 3
#define MAX_REPS 100
#define QFI 9
#define GNB_TEID_BASE 0x80000000u
#define EXTRA_PDRS 3 /* Per direction with --pdrs 4. */
#define PREC_MAIN 255
#define PORT_MIN 1024 /* Traffic ports; the extra SDFs' remote ranges lie below 300. */

/*
 * lk_ul, lk_dl: no packets, only the store's bulk lookup the stage makes
 * (upf_teid_lookup_bulk on the TEID table, rte_hash_lookup_bulk_data on
 * the UE table), of the keys of the same trace, burst by burst: what the
 * session lookup alone costs per key.
 */
enum mode { MODE_L3, MODE_UL, MODE_DL, MODE_LK_UL, MODE_LK_DL, MODE_COUNT };
static const char *const mode_names[MODE_COUNT] = { "l3", "ul", "dl", "lk_ul", "lk_dl" };
enum dist { DIST_UNIFORM, DIST_ZIPF, DIST_COUNT };
static const char *const dist_names[DIST_COUNT] = { "uniform", "zipf" };

struct opts {
	const char *config;
	uint32_t sessions;
	unsigned int pdrs; /* Per direction: 1 or 4. */
	bool mode[MODE_COUNT];
	bool dist[DIST_COUNT];
	double zipf_s;
	uint64_t packets;
	unsigned int reps;
	unsigned int burst; /* 0: [pipeline] burst. */
	uint64_t mbr_kbps; /* 0: no MBR on the QER. */
	unsigned int gnbs;
	bool teids_given; /* --teids given: teid_base + i, not the allocator's. */
	bool ues_given; /* --ues given: no direct UE range, the addresses in the hash. */
	uint32_t teid_base;
	const char *label;
	const char *csv;
};

/* ---- the sessions and their packets ---- */

/* A remote (N6) destination prefix of the route file, host order. */
struct prefix {
	uint32_t addr;
	uint32_t host_mask;
};

#define MAX_GNBS 256

/* Everything of session i is derived from i. Addresses host order. */
struct space {
	uint32_t n;
	uint32_t ue_base; /* Session i's UE address: ue_base + i. */
	uint32_t n3;
	uint32_t teid_base;
	uint32_t gnb[MAX_GNBS];
	unsigned int n_gnb;
	struct prefix *pfx; /* Remote prefixes: routed, not the UPF's. */
	uint32_t n_pfx;
	uint8_t tmpl_ip[FRAME_LEN]; /* Ethernet + the user's IPv4/UDP, zero addresses. */
	uint8_t tmpl_gpdu[GPDU_LEN]; /* Ethernet + outer IPv4/UDP/GTP-U + the user's packet. */
	uint32_t sum_inner; /* IPv4 header sums without the addresses. */
	uint32_t sum_outer;
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

/* A number below n from 32 random bits (multiply-shift, no division). */
static inline uint32_t
below(uint64_t r, uint32_t n)
{
	return (uint32_t)(((r & 0xffffffff) * n) >> 32);
}

static inline uint32_t
ue_of(const struct space *sp, uint32_t i)
{
	return sp->ue_base + i;
}

static inline uint32_t
gnb_of(const struct space *sp, uint32_t i)
{
	return sp->gnb[i % sp->n_gnb];
}

static inline uint32_t
teid_of(const struct space *sp, uint32_t i)
{
	return sp->teid_base + i;
}

static inline uint32_t
gnb_teid_of(uint32_t i)
{
	return GNB_TEID_BASE + i;
}

/* The session's user flow: remote address and the two ports. */
struct uflow {
	uint32_t remote;
	uint16_t ue_port, remote_port;
};

static inline void
uflow_of(const struct space *sp, uint32_t i, struct uflow *f)
{
	const uint64_t h = mix64(i + 0x9e3779b97f4a7c15ull);
	const struct prefix *p = &sp->pfx[below(h >> 32, sp->n_pfx)];

	f->remote = p->addr | ((uint32_t)h & p->host_mask);
	f->ue_port = (uint16_t)(PORT_MIN + ((h >> 16) & 0x7fff));
	f->remote_port = (uint16_t)(PORT_MIN + ((h >> 8) % (65536 - PORT_MIN)));
}

/* Header sum of the IPv4 header at p with zero addresses and checksum, in memory order. */
static uint32_t
ip_tmpl_sum(const uint8_t *p)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < sizeof(struct rte_ipv4_hdr); i += 2) {
		uint16_t w;

		memcpy(&w, p + i, sizeof(w));
		sum += w;
	}
	return sum;
}

static void
ip_tmpl(uint8_t *p, uint16_t total, uint8_t proto)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(total);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
}

static void
space_templates(struct space *sp)
{
	struct rte_ether_hdr *eth;
	struct rte_udp_hdr *udp;
	uint8_t *g;

	memset(sp->tmpl_ip, 0, sizeof(sp->tmpl_ip));
	eth = (struct rte_ether_hdr *)sp->tmpl_ip;
	eth->dst_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xee, 0x00 } };
	eth->src_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0x99, 0x01 } };
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip_tmpl(sp->tmpl_ip + RTE_ETHER_HDR_LEN, INNER_LEN, IPPROTO_UDP);
	udp = (struct rte_udp_hdr *)(sp->tmpl_ip + RTE_ETHER_HDR_LEN + 20);
	udp->dgram_len = rte_cpu_to_be_16(INNER_LEN - 20);
	sp->sum_inner = ip_tmpl_sum(sp->tmpl_ip + RTE_ETHER_HDR_LEN);

	/* The G-PDU: the same Ethernet header, then IPv4/UDP/GTP-U, then the user's packet. */
	memset(sp->tmpl_gpdu, 0, sizeof(sp->tmpl_gpdu));
	memcpy(sp->tmpl_gpdu, sp->tmpl_ip, RTE_ETHER_HDR_LEN);
	ip_tmpl(sp->tmpl_gpdu + RTE_ETHER_HDR_LEN, GPDU_LEN - RTE_ETHER_HDR_LEN, IPPROTO_UDP);
	sp->sum_outer = ip_tmpl_sum(sp->tmpl_gpdu + RTE_ETHER_HDR_LEN);
	udp = (struct rte_udp_hdr *)(sp->tmpl_gpdu + RTE_ETHER_HDR_LEN + 20);
	udp->src_port = rte_cpu_to_be_16(GTPU_PORT);
	udp->dst_port = rte_cpu_to_be_16(GTPU_PORT);
	udp->dgram_len = rte_cpu_to_be_16(8 + GTP_LEN + INNER_LEN);
	g = (uint8_t *)(udp + 1);
	g[0] = GTPU_V1 | GTPU_PT | GTPU_E;
	g[1] = GTPU_GPDU;
	g[2] = 0;
	g[3] = GTP_LEN - 8 + INNER_LEN;
	/* g[4..7]: the TEID. Sequence and N-PDU number 0, then the container. */
	g[11] = GTPU_EXT_PSC;
	g[12] = 1;
	g[13] = GTPU_PSC_UL << 4;
	g[14] = QFI;
	g[15] = GTPU_EXT_NONE;
	memcpy(g + GTP_LEN, sp->tmpl_ip + RTE_ETHER_HDR_LEN, INNER_LEN);
}

/* Addresses (host order) and checksum of the IPv4 header at p. */
static inline void
ip_addrs(uint8_t *p, uint32_t tmpl_sum, uint32_t src, uint32_t dst)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	const uint32_t s = rte_cpu_to_be_32(src), d = rte_cpu_to_be_32(dst);
	uint32_t sum = tmpl_sum + (s & 0xffff) + (s >> 16) + (d & 0xffff) + (d >> 16);

	ip->src_addr = s;
	ip->dst_addr = d;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->hdr_checksum = (uint16_t)~sum;
}

static inline void
udp_ports(uint8_t *ip, uint16_t sport, uint16_t dport)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 20);

	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
}

/* Write session i's frame of mode md into m. */
static inline void
write_frame(const struct space *sp, enum mode md, struct rte_mbuf *m, uint32_t i)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *ip = d + RTE_ETHER_HDR_LEN;
	struct uflow f;
	uint32_t teid;

	uflow_of(sp, i, &f);
	if (md == MODE_DL) {
		memcpy(d, sp->tmpl_ip, FRAME_LEN);
		ip_addrs(ip, sp->sum_inner, f.remote, ue_of(sp, i));
		udp_ports(ip, f.remote_port, f.ue_port);
	} else {
		if (md == MODE_UL) {
			memcpy(d, sp->tmpl_gpdu, GPDU_LEN);
			ip_addrs(ip, sp->sum_outer, gnb_of(sp, i), sp->n3);
			teid = rte_cpu_to_be_32(teid_of(sp, i));
			memcpy(ip + 20 + 8 + 4, &teid, 4);
			ip += OUTER_HDR;
		} else {
			memcpy(d, sp->tmpl_ip, FRAME_LEN);
		}
		/* The uplink's user packet is the l3 frame's. */
		ip_addrs(ip, sp->sum_inner, ue_of(sp, i), f.remote);
		udp_ports(ip, f.ue_port, f.remote_port);
	}
	m->data_len = m->pkt_len = md == MODE_UL ? GPDU_LEN : FRAME_LEN;
}

static inline uint32_t
prefix_mask(unsigned int len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

static inline bool
prefix_overlap(uint32_t a, unsigned int alen, uint32_t b, unsigned int blen)
{
	const uint32_t m = prefix_mask(RTE_MIN(alen, blen));

	return (a & m) == (b & m);
}

static inline uint32_t
be_addr(const uint8_t *a)
{
	return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
}

/*
 * The address space of the sessions from the configuration and the route
 * file (read before tables_build consumes it): the N3 address, the first
 * IPv4 UE pool, remote prefixes that are neither the UPF's nor overlap it,
 * and the gNBs (one address in each of the first n_gnb remote prefixes).
 */
static int
space_setup(struct space *sp, const struct lf_config *cfg, const struct lf_route_table *r4,
	    const struct opts *o, char *err, size_t errlen)
{
	const struct lf_upf_conf *u = &cfg->upf;
	const struct lf_upf_ni_conf *ni0 = &u->ni[0];
	uint32_t pool = 0, plen = 0, i, k;
	bool found = false;

	if (!u->enabled || !u->has_n3_ipv4) {
		snprintf(err, errlen, "%s: no [upf] section with n3_ipv4", cfg->path);
		return -EINVAL;
	}
	sp->n3 = be_addr(u->n3_ipv4);
	/* Network instance 0: the downlink PDRs name it, and its pools route to it. */
	for (k = 0; u->n_ni != 0 && k < ni0->n_pools && !found; k++)
		if (ni0->pool[k].af == 4) {
			pool = be_addr(ni0->pool[k].a);
			plen = ni0->pool[k].plen;
			found = true;
		}
	if (!found) {
		snprintf(err, errlen,
			 "%s: the first [network_instance] needs an IPv4 ue_pool (the sessions' UE addresses)",
			 cfg->path);
		return -EINVAL;
	}
	if (plen < 8 || (1ull << (32 - plen)) < (uint64_t)o->sessions + 2) {
		snprintf(err, errlen, "%s: the IPv4 ue_pool /%u cannot hold %u sessions", cfg->path,
			 plen, o->sessions);
		return -EINVAL;
	}
	sp->n = o->sessions;
	sp->ue_base = pool + 1;
	sp->teid_base = o->teid_base;
	sp->pfx = malloc((r4->n + 1) * sizeof(*sp->pfx));
	if (sp->pfx == NULL)
		return -ENOMEM;
	sp->n_pfx = 0;
	for (i = 0; i < r4->n; i++) {
		const struct lf_route *rt = &r4->r[i];

		/*
		 * A route of the file (line 0: one tables_load_files adds, such
		 * as the martian and group prefixes the router does not
		 * forward to), not the N3 address, not a UE pool, not inside
		 * either.
		 */
		if (rt->line == 0 || rt->depth < 8 ||
		    prefix_overlap(rt->addr4, rt->depth, sp->n3, 32) ||
		    prefix_overlap(rt->addr4, rt->depth, pool, plen))
			continue;
		sp->pfx[sp->n_pfx].addr = rt->addr4 & prefix_mask(rt->depth);
		sp->pfx[sp->n_pfx].host_mask = ~prefix_mask(rt->depth);
		sp->n_pfx++;
	}
	if (sp->n_pfx < o->gnbs) {
		snprintf(err, errlen,
			 "%s: %u IPv4 routes usable for remote and gNB addresses (/8 or longer, not the UPF's); %u gNBs need as many",
			 cfg->routes.ipv4, sp->n_pfx, o->gnbs);
		return -ENOENT;
	}
	/* One gNB in each of the first prefixes: host 1 (or the /32 itself). */
	sp->n_gnb = o->gnbs;
	for (i = 0; i < sp->n_gnb; i++)
		sp->gnb[i] = sp->pfx[i].addr | (sp->pfx[i].host_mask & 1);
	space_templates(sp);
	return 0;
}

/* ---- the sessions ---- */

/* One session's control form, patched per session from a template. */
struct sess_tmpl {
	struct upf_sess_conf c;
	struct upf_pdr_conf pdr[2 * (1 + EXTRA_PDRS)];
	struct upf_far_conf far[2];
	struct upf_qer_conf qer[1];
	struct upf_urr_conf urr[2 * (1 + EXTRA_PDRS)];
};

static void
ip4_set(struct upf_ip *a, uint32_t host)
{
	const uint32_t be = rte_cpu_to_be_32(host);

	memset(a, 0, sizeof(*a));
	a->af = 4;
	memcpy(a->a, &be, 4);
}

static void
prefix4_set(struct upf_prefix *p, uint32_t host, unsigned int plen)
{
	const uint32_t be = rte_cpu_to_be_32(host & prefix_mask(plen));

	memset(p, 0, sizeof(*p));
	p->af = 4;
	p->plen = (uint8_t)plen;
	memcpy(p->a, &be, 4);
}

/* PDR k (0: uplink, 1: downlink; then the extra ones) of the template. */
static void
tmpl_init(struct sess_tmpl *t, const struct opts *o)
{
	unsigned int k, n_pdr = 2 * o->pdrs;

	memset(t, 0, sizeof(*t));
	t->c.n_pdr = (uint16_t)n_pdr;
	t->c.n_far = 2;
	t->c.n_qer = 1;
	t->c.n_urr = (uint16_t)n_pdr;
	t->c.pdr = t->pdr;
	t->c.far = t->far;
	t->c.qer = t->qer;
	t->c.urr = t->urr;
	ip4_set(&t->c.cp_ip, 0x7f000001);
	for (k = 0; k < n_pdr; k++) {
		struct upf_pdr_conf *p = &t->pdr[k];
		const bool ul = k % 2 == 0;

		p->id = (uint16_t)(k + 1);
		/* The extra ones come first in precedence order, the main one last. */
		p->precedence = k < 2 ? PREC_MAIN : 10 * (k / 2);
		p->src_iface = ul ? UPF_IF_ACCESS : UPF_IF_CORE;
		p->ni = 0;
		p->has_far = true;
		p->far_id = ul ? 1 : 2;
		p->n_qer = 1;
		p->qer_id[0] = 1;
		p->n_urr = 1;
		p->urr_id[0] = p->id;
		if (ul) {
			p->has_fteid = true;
			p->has_qfi = true;
			p->qfi = QFI;
			p->outer_hdr_removal = true;
		}
		if (k >= 2) {
			struct upf_sdf *f = &p->sdf[0];

			p->n_sdf = 1;
			f->proto = IPPROTO_UDP;
			f->rport_lo = (uint16_t)(100 * (k / 2 - 1) + 1);
			f->rport_hi = (uint16_t)(100 * (k / 2) - 1);
			f->uport_lo = 0;
			f->uport_hi = UINT16_MAX;
		}
		t->urr[k].id = p->id;
		t->urr[k].method = UPF_MM_VOLUM;
	}
	t->far[0].id = 1;
	t->far[0].apply = UPF_FAR_FORW;
	t->far[0].dst_iface = UPF_IF_CORE;
	t->far[0].ni = 0;
	t->far[1].id = 2;
	t->far[1].apply = UPF_FAR_FORW;
	t->far[1].dst_iface = UPF_IF_ACCESS;
	t->far[1].ni = UPF_NI_NONE;
	t->far[1].ohc = UPF_OHC_GTPU_UDP_IPV4;
	t->qer[0].id = 1;
	t->qer[0].has_qfi = true;
	t->qer[0].qfi = QFI;
	t->qer[0].mbr_ul = o->mbr_kbps;
	t->qer[0].mbr_dl = o->mbr_kbps;
}

static void
tmpl_session(struct sess_tmpl *t, const struct space *sp, uint32_t i)
{
	struct uflow f;
	unsigned int k;

	uflow_of(sp, i, &f);
	t->c.up_seid = (uint64_t)i + 1;
	t->c.cp_seid = (uint64_t)i + 1;
	for (k = 0; k < t->c.n_pdr; k++) {
		struct upf_pdr_conf *p = &t->pdr[k];

		ip4_set(&p->ue4, ue_of(sp, i));
		if (p->has_fteid) {
			p->teid = teid_of(sp, i);
			ip4_set(&p->fteid4, sp->n3);
		}
		if (p->n_sdf != 0) {
			prefix4_set(&p->sdf[0].remote, f.remote, 8);
			prefix4_set(&p->sdf[0].ue, ue_of(sp, i), 32);
		}
	}
	t->far[1].ohc_teid = gnb_teid_of(i);
	ip4_set(&t->far[1].ohc_peer, gnb_of(sp, i));
}

/*
 * PDR entries a packet of PDR id's direction visits up to its match (the
 * scan starts at the first of that direction's group, upf.h), and in *n
 * how many that group has. 0 if the session or the PDR is not there.
 */
static unsigned int
pdr_visits(const struct upf_store *s, uint64_t seid, uint16_t id, unsigned int *n)
{
	const struct upf_sess_dp *d = upf_store_get(s, seid);
	unsigned int i;

	*n = 0;
	for (i = 0; d != NULL && i < d->n_pdr; i++) {
		if (d->pdr[i].id != id)
			continue;
		if (i < d->n_pdr_ul) {
			*n = d->n_pdr_ul;
			return i + 1;
		}
		if (i < (unsigned int)d->n_pdr_ul + d->n_pdr_dl) {
			*n = d->n_pdr_dl;
			return i - d->n_pdr_ul + 1;
		}
		return 0;
	}
	return 0;
}

/* ---- the measured loop ---- */

struct bench {
	struct worker *w;
	struct rte_mempool *pool;
	const struct space *sp;
	struct upf_store *store;
	unsigned int n_urr; /* Per session: URR id k is PDR id k's. */
	uint16_t null_port;
};

struct run {
	uint64_t pipe; /* Cycles in the timed region. */
	uint64_t total; /* Cycles of the whole loop. */
};

static uint32_t *
make_trace(uint32_t n, enum dist d, double s, uint64_t len)
{
	uint32_t *t = malloc(len * sizeof(*t));
	struct gen_select sel;
	uint64_t i;

	if (t == NULL)
		return NULL;
	gen_select_init(&sel, d == DIST_ZIPF ? GEN_DIST_ZIPF : GEN_DIST_UNIFORM, n, s,
			0x2545f4914f6cdd1dull + d);
	for (i = 0; i < len; i++) {
		uint32_t f = gen_select_next(&sel);

		/* Zipf ranks to session ids: a fixed permutation (2654435761 is prime). */
		if (d == DIST_ZIPF)
			f = (uint32_t)(((uint64_t)f * 2654435761u) % n);
		t[i] = f;
	}
	return t;
}

/*
 * The lookup modes: the keys of n session ids from ids[], a burst at a
 * time, looked up in the store's table as the stage does. Misses are
 * counted in *miss (there should be none).
 */
static void
run_lookups(struct bench *b, enum mode md, const uint32_t *ids, uint64_t len, uint64_t *pos,
	    uint64_t n, struct run *r, uint64_t *miss)
{
	const uint16_t burst = RTE_MIN(b->w->burst, (uint16_t)RTE_HASH_LOOKUP_BULK_MAX);
	struct upf_ue_key ue[RTE_HASH_LOOKUP_BULK_MAX];
	uint32_t teid[RTE_HASH_LOOKUP_BULK_MAX];
	const void *keys[RTE_HASH_LOOKUP_BULK_MAX];
	void *obj[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t i, p = *pos, start;
	unsigned int j;

	memset(r, 0, sizeof(*r));
	memset(ue, 0, sizeof(ue));
	start = rte_rdtsc();
	for (i = 0; i < n; i += burst) {
		const unsigned int k = (unsigned int)RTE_MIN((uint64_t)burst, n - i);
		uint64_t t0;

		for (j = 0; j < k; j++) {
			const uint32_t id = ids[p];

			p = p + 1 == len ? 0 : p + 1;
			if (md == MODE_LK_UL) {
				teid[j] = teid_of(b->sp, id);
				keys[j] = &teid[j];
			} else {
				const uint32_t a = rte_cpu_to_be_32(ue_of(b->sp, id));

				ue[j].af = 4;
				memcpy(ue[j].a, &a, 4);
				keys[j] = &ue[j];
			}
		}
		t0 = rte_rdtsc();
		if (md == MODE_LK_UL)
			upf_teid_lookup_bulk(&b->store->teid, keys, k, obj);
		else
			upf_ue_lookup_bulk(&b->store->ue, keys, k, obj);
		r->pipe += rte_rdtsc() - t0;
		for (j = 0; j < k; j++)
			*miss += obj[j] == NULL;
	}
	r->total = rte_rdtsc() - start;
	*pos = p;
}

/* Send n packets of mode md, session ids from ids[] (wrapping at len, from *pos). */
static int
run_packets(struct bench *b, enum mode md, const uint32_t *ids, uint64_t len, uint64_t *pos,
	    uint64_t n, struct run *r)
{
	struct worker *w = b->w;
	struct rte_mbuf *pkts[LF_BURST_MAX];
	const uint16_t burst = w->burst;
	uint64_t i, p = *pos, start;
	unsigned int j;

	memset(r, 0, sizeof(*r));
	start = rte_rdtsc();
	for (i = 0; i < n; i += burst) {
		const uint16_t k = (uint16_t)RTE_MIN((uint64_t)burst, n - i);
		uint64_t t0, t1;

		if (rte_pktmbuf_alloc_bulk(b->pool, pkts, k) != 0) {
			fprintf(stderr, "upfbench: mbuf pool empty: mbufs are leaking\n");
			return -ENOMEM;
		}
		for (j = 0; j < k; j++) {
			write_frame(b->sp, md, pkts[j], ids[p]);
			p = p + 1 == len ? 0 : p + 1;
		}
		t0 = rte_rdtsc();
		w->b.rx_port = 0;
		w->b.rx_tsc = t0;
		pipeline_run(&w->b, &w->tx, pkts, k);
		/* The worker loop's housekeeping after a busy poll (worker.c). */
		if (unlikely(!rte_ring_empty(w->b.upf_wk->from_ctrl)))
			fprintf(stderr, "upfbench: packets handed back by no control thread\n");
		if (t0 - w->last_drain >= w->drain_tsc) {
			worker_flush_tx(w);
			w->last_drain = t0;
		}
		t1 = rte_rdtsc();
		r->pipe += t1 - t0;
	}
	r->total = rte_rdtsc() - start;
	*pos = p;
	return 0;
}

/* ---- the check ---- */

struct counts {
	uint64_t opackets, tx;
	uint64_t drops, upf_drops;
	uint64_t ul_pkts, dl_pkts;
	uint64_t urr_main[2]; /* Packets of the main PDRs' URRs: [0] uplink, [1] downlink. */
	uint64_t urr_extra; /* Packets of the other PDRs' URRs, both directions. */
};

/* The counters; the URRs' summed over the sessions ids[0..n) (distinct). */
static void
counts_take(const struct bench *b, struct counts *c, const uint32_t *ids, uint32_t n)
{
	const struct upf_wk_stats *us = &b->w->b.upf_wk->stats;
	struct rte_eth_stats es;
	unsigned int k;
	uint32_t i, id;

	worker_flush_tx(b->w);
	memset(c, 0, sizeof(*c));
	if (rte_eth_stats_get(b->null_port, &es) == 0)
		c->opackets = es.opackets;
	c->tx = b->w->stats.tx_pkts;
	for (k = 0; k < LF_DROP_COUNT; k++)
		c->drops += b->w->stats.drops[k];
	for (k = 0; k < UPF_DROP_COUNT; k++)
		c->upf_drops += us->drops[k];
	c->ul_pkts = us->ul_pkts;
	c->dl_pkts = us->dl_pkts;
	for (i = 0; i < n; i++) {
		for (id = 1; id <= b->n_urr; id++) {
			struct upf_usage u;

			if (upf_store_usage(b->store, (uint64_t)ids[i] + 1, id, &u) != 0)
				continue;
			if (id <= 2)
				c->urr_main[id - 1] += u.pkts[id - 1];
			else
				c->urr_extra += u.pkts[0] + u.pkts[1];
		}
	}
}

/* What the TX callback checks against, and what it found. */
struct check {
	const struct bench *b;
	enum mode md;
	uint64_t seen, bad;
	char why[200];
};

static bool
ip_ok(const uint8_t *ip, uint16_t total, uint8_t ttl)
{
	const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)ip;

	return h->version_ihl == RTE_IPV4_VHL_DEF && rte_be_to_cpu_16(h->total_length) == total &&
		h->time_to_live == ttl && h->next_proto_id == IPPROTO_UDP &&
		rte_raw_cksum(ip, 20) == 0xffff;
}

static inline uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return rte_be_to_cpu_32(v);
}

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The next hop's MACs for dst: what the rewrite must have written. */
static bool
eth_ok(const struct bench *b, const uint8_t *d, uint32_t dst)
{
	const struct lf_view *v = &b->w->b.view;
	uint64_t nh = LF_NH_NONE;

	rte_fib_lookup_bulk(v->fib->v4, &dst, &nh, 1);
	if (lf_nh_out(v->nh_table, v->nh_count, nh) == LF_NH_INVALID)
		return false;
	return memcmp(d, &v->nh_table[nh].dst, 2 * RTE_ETHER_ADDR_LEN) == 0 &&
		get16(d + 12) == RTE_ETHER_TYPE_IPV4;
}

/* One frame out of the pipeline; NULL when it is right, else what is wrong. */
static const char *
check_frame(const struct check *ck, const struct rte_mbuf *m)
{
	const struct space *sp = ck->b->sp;
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = d + RTE_ETHER_HDR_LEN, *in;
	struct uflow f;
	uint32_t i;

	if (m->nb_segs != 1 || m->data_len != m->pkt_len)
		return "not one segment";
	if (ck->md != MODE_DL) {
		/* The user's packet, routed: TTL decremented once. */
		if (m->pkt_len != FRAME_LEN || !ip_ok(ip, INNER_LEN, 63))
			return "not the 64-byte user frame with TTL 63 and a valid checksum";
		i = get32(ip + 12) - sp->ue_base;
		if (i >= sp->n)
			return "source not a session's UE address";
		uflow_of(sp, i, &f);
		if (get32(ip + 16) != f.remote || get16(ip + 20) != f.ue_port ||
		    get16(ip + 22) != f.remote_port)
			return "destination or ports not the session's";
		return eth_ok(ck->b, d, f.remote) ? NULL : "MACs or EtherType not the next hop's";
	}
	/* Downlink: GTP-U/UDP/IPv4 to the session's gNB around the user's packet. */
	if (m->pkt_len != GPDU_LEN || !ip_ok(ip, GPDU_LEN - RTE_ETHER_HDR_LEN, 64))
		return "not a 108-byte IPv4 frame with TTL 64 and a valid checksum";
	in = ip + OUTER_HDR;
	i = get32(in + 16) - sp->ue_base;
	if (i >= sp->n)
		return "inner destination not a session's UE address";
	uflow_of(sp, i, &f);
	if (get32(ip + 12) != sp->n3 || get32(ip + 16) != gnb_of(sp, i))
		return "outer addresses not N3 -> the session's gNB";
	if (get16(ip + 20) != GTPU_PORT || get16(ip + 22) != GTPU_PORT ||
	    get16(ip + 24) != 8 + GTP_LEN + INNER_LEN)
		return "outer UDP not 2152 -> 2152 of the right length";
	if (ip[28] != (GTPU_V1 | GTPU_PT | GTPU_E) || ip[29] != GTPU_GPDU ||
	    get16(ip + 30) != GTP_LEN - 8 + INNER_LEN)
		return "GTP-U header not a G-PDU with E set and the right length";
	if (get32(ip + 32) != gnb_teid_of(i))
		return "TEID not the session's FAR's";
	if (ip[39] != GTPU_EXT_PSC || ip[40] != 1 || ip[41] != GTPU_PSC_DL << 4 ||
	    (ip[42] & GTPU_PSC_QFI_MASK) != QFI || ip[43] != GTPU_EXT_NONE)
		return "no downlink PDU Session Container with QFI 9";
	if (rte_raw_cksum(in, 20) != 0xffff || get32(in + 12) != f.remote ||
	    get16(in + 20) != f.remote_port || get16(in + 22) != f.ue_port)
		return "inner packet not the one sent";
	return eth_ok(ck->b, d, gnb_of(sp, i)) ? NULL : "MACs or EtherType not the gNB next hop's";
}

static uint16_t
check_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	struct check *ck = arg;
	uint16_t j;

	RTE_SET_USED(port);
	RTE_SET_USED(queue);
	for (j = 0; j < n; j++) {
		const char *why = check_frame(ck, pkts[j]);

		ck->seen++;
		if (why != NULL && ck->bad++ == 0)
			snprintf(ck->why, sizeof(ck->why), "%s", why);
	}
	return n;
}

/*
 * Run a sample of the trace again with every frame checked. sess[0..n_sess):
 * the distinct sessions of the sample, whose URRs are summed.
 */
static bool
check_sample(struct bench *b, enum mode md, const uint32_t *trace, uint32_t n, const uint32_t *sess,
	     uint32_t n_sess)
{
	struct check ck = { .b = b, .md = md };
	const struct rte_eth_rxtx_callback *cb;
	struct counts c0, c1;
	uint64_t pos = 0, want_main[2] = { 0, 0 };
	struct run r;
	bool ok = true;

	cb = rte_eth_add_tx_callback(b->null_port, 0, check_cb, &ck);
	if (cb == NULL) {
		printf("cannot add a TX callback: %s: FAIL\n", rte_strerror(rte_errno));
		return false;
	}
	counts_take(b, &c0, sess, md != MODE_L3 ? n_sess : 0);
	if (run_packets(b, md, trace, n, &pos, n, &r) != 0)
		ok = false;
	counts_take(b, &c1, sess, md != MODE_L3 ? n_sess : 0);
	rte_eth_remove_tx_callback(b->null_port, 0, cb);
	/* The callback is not freed: ethdev leaves that to when no TX can still run it. */
	if (md != MODE_L3)
		want_main[md == MODE_UL ? 0 : 1] = n;
	printf("%u packets: frames out %" PRIu64 " (null port %" PRIu64 ", worker tx %" PRIu64
	       "), bad %" PRIu64 ", drops %" PRIu64 " (upf %" PRIu64 ")",
	       n, ck.seen, c1.opackets - c0.opackets, c1.tx - c0.tx, ck.bad, c1.drops - c0.drops,
	       c1.upf_drops - c0.upf_drops);
	if (ck.seen != n || c1.opackets - c0.opackets != n || c1.tx - c0.tx != n || ck.bad != 0 ||
	    c1.drops != c0.drops || c1.upf_drops != c0.upf_drops)
		ok = false;
	if (md != MODE_L3) {
		const uint64_t fwd =
			md == MODE_UL ? c1.ul_pkts - c0.ul_pkts : c1.dl_pkts - c0.dl_pkts;

		printf(", upf %s_pkts %" PRIu64 ", URR packets: main ul %" PRIu64 " dl %" PRIu64
		       ", other PDRs %" PRIu64,
		       mode_names[md], fwd, c1.urr_main[0] - c0.urr_main[0],
		       c1.urr_main[1] - c0.urr_main[1], c1.urr_extra - c0.urr_extra);
		if (fwd != n || c1.urr_main[0] - c0.urr_main[0] != want_main[0] ||
		    c1.urr_main[1] - c0.urr_main[1] != want_main[1] || c1.urr_extra != c0.urr_extra)
			ok = false;
	}
	if (ck.bad != 0)
		printf("; first bad frame: %s", ck.why);
	printf(": %s\n", ok ? "ok" : "FAIL");
	return ok;
}

/* The distinct ids of ids[0..n) (each below max) into out; UINT32_MAX without memory. */
static uint32_t
distinct(const uint32_t *ids, uint32_t n, uint32_t max, uint32_t *out)
{
	uint64_t *seen = calloc(max / 64 + 1, sizeof(*seen));
	uint32_t i, k = 0;

	if (seen == NULL)
		return UINT32_MAX;
	for (i = 0; i < n; i++)
		if (!(seen[ids[i] / 64] & (1ull << (ids[i] % 64)))) {
			seen[ids[i] / 64] |= 1ull << (ids[i] % 64);
			out[k++] = ids[i];
		}
	free(seen);
	return k;
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
		v *= 1000, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1000000, end++;
	if (*end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_list(const char *arg, const char *const *names, unsigned int n, bool *set)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	unsigned int k;
	int ret = 0;

	if (copy == NULL)
		return -1;
	memset(set, 0, n * sizeof(*set));
	for (tok = strtok_r(copy, ",", &save); tok != NULL && ret == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < n && strcmp(tok, names[k]) != 0; k++)
			;
		if (k == n)
			ret = -1;
		else
			set[k] = true;
	}
	free(copy);
	return ret;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "sessions", required_argument, NULL, 'S' },
		{ "pdrs", required_argument, NULL, 'P' },
		{ "mode", required_argument, NULL, 'm' },
		{ "dist", required_argument, NULL, 'd' },
		{ "zipf-s", required_argument, NULL, 's' },
		{ "packets", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "mbr", required_argument, NULL, 'M' },
		{ "gnbs", required_argument, NULL, 'g' },
		{ "teid-base", required_argument, NULL, 'T' },
		{ "teids", required_argument, NULL, 't' },
		{ "ues", required_argument, NULL, 'U' },
		{ "label", required_argument, NULL, 'L' },
		{ "csv", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	*o = (struct opts){
		.sessions = 100000,
		.pdrs = 1,
		.mode = { true, true, true },
		.dist = { true, false },
		.zipf_s = 0.99,
		.packets = 2000000,
		.reps = 5,
		.gnbs = 16,
		.teid_base = 0,
		.label = "-",
	};
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'S':
			if (parse_u64(optarg, 1u << 24, &v) < 0 || v == 0)
				return -1;
			o->sessions = (uint32_t)v;
			break;
		case 'P':
			if (parse_u64(optarg, 4, &v) < 0 || (v != 1 && v != 4))
				return -1;
			o->pdrs = (unsigned int)v;
			break;
		case 'm':
			if (parse_list(optarg, mode_names, MODE_COUNT, o->mode) < 0)
				return -1;
			break;
		case 'd':
			if (parse_list(optarg, dist_names, DIST_COUNT, o->dist) < 0)
				return -1;
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
		case 'r':
			if (parse_u64(optarg, MAX_REPS, &v) < 0 || v == 0)
				return -1;
			o->reps = (unsigned int)v;
			break;
		case 'b':
			if (parse_u64(optarg, LF_BURST_MAX, &v) < 0 || v == 0)
				return -1;
			o->burst = (unsigned int)v;
			break;
		case 'M':
			if (parse_u64(optarg, UINT32_MAX * 1000ull, &v) < 0)
				return -1;
			o->mbr_kbps = v;
			break;
		case 'g':
			if (parse_u64(optarg, MAX_GNBS, &v) < 0 || v == 0)
				return -1;
			o->gnbs = (unsigned int)v;
			break;
		case 'T':
			if (parse_u64(optarg, UINT32_MAX, &v) < 0 || v == 0)
				return -1;
			o->teid_base = (uint32_t)v;
			break;
		case 't':
			if (strcmp(optarg, "chosen") != 0 && strcmp(optarg, "given") != 0)
				return -1;
			o->teids_given = strcmp(optarg, "given") == 0;
			break;
		case 'U':
			if (strcmp(optarg, "chosen") != 0 && strcmp(optarg, "given") != 0)
				return -1;
			o->ues_given = strcmp(optarg, "given") == 0;
			break;
		case 'L':
			o->label = optarg;
			break;
		case 'C':
			o->csv = optarg;
			break;
		default:
			return -1;
		}
	}
	/* --teid-base only for given TEIDs: chosen ones are the allocator's. */
	if (o->teid_base != 0 && !o->teids_given)
		return -1;
	if (o->teid_base == 0)
		o->teid_base = o->teids_given ? 0x100000 : UPF_TEID_DIRECT;
	if (o->config == NULL || optind != argc ||
	    (uint64_t)o->teid_base + o->sessions > GNB_TEID_BASE)
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

/* Heap use: the rte_malloc heap of socket, and libc's (arena and mmap'd chunks). */
struct heap {
	uint64_t rte, libc;
};

static void
heap_take(int socket, struct heap *h)
{
	struct rte_malloc_socket_stats ms;
	const struct mallinfo2 mi = mallinfo2();

	memset(&ms, 0, sizeof(ms));
	rte_malloc_get_socket_stats(socket, &ms);
	h->rte = ms.heap_allocsz_bytes;
	h->libc = mi.uordblks + mi.hblkhd;
}

/*
 * The store as main.c's upf_create() sizes it (URR and QER slots twice the
 * sessions), with room for what the sessions here need if that is more
 * (--pdrs 4: 8 URRs per session), and worker 0's view of it.
 */
static struct upf_store *
store_create(const struct lf_config *cfg, const struct opts *o, struct worker *w, int socket,
	     char *err, size_t errlen)
{
	const struct lf_upf_conf *u = &cfg->upf;
	struct upf_store_params p;
	struct upf_store *s;

	memset(&p, 0, sizeof(p));
	p.max_sessions = u->max_sessions;
	p.max_urrs = RTE_MAX(u->max_sessions * 2, o->sessions * 2 * o->pdrs);
	p.max_qers = u->max_sessions * 2;
	p.n_workers = 1;
	p.socket = socket;
	p.qsv = NULL;
	memcpy(&p.n3_ipv4, u->n3_ipv4, 4);
	p.ring_size = 4096;
	if (!o->ues_given)
		upf_store_ue_dirs(&p, u);
	s = upf_store_create(&p, err, errlen);
	if (s == NULL)
		return NULL;
	w->b.upf = s;
	w->b.upf_wk = &s->wk[0];
	w->b.upf_err_ind_cycles = u->err_ind_pps ? rte_get_tsc_hz() / u->err_ind_pps : 0;
	return s;
}

static int
cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_dbl(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median_dbl(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether the store's UE table holds an instance-0 IPv4 address (upf_uepool_taken_fn). */
static bool
ue_held(void *arg, const uint8_t addr[16])
{
	const struct upf_store *st = arg;
	struct upf_ue_key k;

	memset(&k, 0, sizeof(k));
	k.af = 4;
	memcpy(k.a, addr, 4);
	return upf_ue_find(&st->ue, &k) != NULL;
}

/* 0 if CHOOSE from pool gives want (host order) next, as the agent's would. */
static int
ue_choose(struct upf_uepool *pool, struct upf_store *st, uint32_t want)
{
	uint8_t a[16];

	if (upf_uepool_alloc(pool, ue_held, st, 0, a) != 0)
		return -1;
	return ((uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3]) == want
		? 0
		: -1;
}

int
main(int argc, char **argv)
{
	static struct lf_config cfg;
	static struct sess_tmpl tmpl;
	static uint64_t pipe[DIST_COUNT][MODE_COUNT][MAX_REPS];
	static uint64_t total[DIST_COUNT][MODE_COUNT][MAX_REPS];
	static uint32_t sess[SAMPLE_MAX];
	struct lf_table_src src = { 0 };
	struct rte_ether_addr macs[LF_MAX_PORTS];
	struct space sp = { 0 };
	struct lf_tables *tables = NULL;
	struct worker *w = NULL;
	struct bench b = { 0 };
	uint64_t chk_t0, chk_cycles = 0;
	struct upf_uepool ue_chk;
	struct upf_store *store = NULL;
	struct upf_store_counts sc;
	uint32_t *trace[DIST_COUNT] = { NULL };
	uint64_t pos[DIST_COUNT][MODE_COUNT] = { { 0 } }, ramp, trace_len;
	struct heap h0, h1, h2;
	struct counts run0, run1;
	uint64_t lk_miss = 0;
	char err[LF_ERR_LEN];
	struct opts o;
	FILE *csv = NULL;
	double hz, put_s;
	unsigned int p, d, m, r, n_modes = 0, visits_ul, visits_dl, group_ul, group_dl;
	enum mode modes[MODE_COUNT];
	int ret, socket, exit_code = 1;
	bool ok = true, port_up = false;
	uint32_t i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "upfbench: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr,
			"usage: lanefwd-upfbench [EAL args] -- -c CONFIG [--sessions N] [--pdrs 1|4] "
			"[--mode l3,ul,dl,lk_ul,lk_dl] [--dist uniform,zipf] [--zipf-s S] [--packets N] "
			"[--reps N] [--burst N] [--mbr KBPS] [--gnbs N] [--teids chosen|given [--teid-base N]] "
			"[--ues chosen|given] "
			"[--label TEXT] [--csv FILE]\n");
		rte_eal_cleanup();
		return 2;
	}
	for (m = 0; m < MODE_COUNT; m++)
		if (o.mode[m])
			modes[n_modes++] = (enum mode)m;
	hz = (double)rte_get_tsc_hz();
	socket = (int)rte_socket_id();

	if (config_load(o.config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "upfbench: config error: %s\n", err);
		goto out_eal;
	}
	if (o.sessions > cfg.upf.max_sessions) {
		fprintf(stderr, "upfbench: %u sessions: [upf] max_sessions is %u\n", o.sessions,
			cfg.upf.max_sessions);
		goto out_cfg;
	}
	if (tables_load_files(&cfg, &src, err, sizeof(err)) != 0) {
		fprintf(stderr, "upfbench: %s\n", err);
		goto out_cfg;
	}
	ret = space_setup(&sp, &cfg, &src.r4, &o, err, sizeof(err));
	if (ret != 0) {
		fprintf(stderr, "upfbench: %s\n", ret == -ENOMEM ? "out of memory" : err);
		tables_src_free(&src);
		goto out_space;
	}
	for (p = 0; p < LF_MAX_PORTS; p++)
		macs[p] = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xee, (uint8_t)p } };
	tables = tables_build(&cfg, &src, macs, socket, 1, err, sizeof(err));
	if (tables == NULL) {
		fprintf(stderr, "upfbench: %s\n", err);
		goto out_space;
	}

	b.sp = &sp;
	b.pool = rte_pktmbuf_pool_create("ub_pool", POOL_SIZE, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					 socket);
	if (b.pool == NULL) {
		fprintf(stderr, "upfbench: mbuf pool: %s\n", rte_strerror(rte_errno));
		goto out_tables;
	}
	ret = null_port_create(&b.null_port);
	if (ret != 0) {
		fprintf(stderr, "upfbench: %s: %s\n", NULL_DEV, rte_strerror(-ret));
		goto out_port;
	}
	port_up = true;

	/* The worker, as main.c's workers_create() makes it, with one TX port. */
	w = rte_zmalloc_socket("ub_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
	if (w == NULL)
		goto out_port;
	b.w = w;
	w->lcore = rte_lcore_id();
	w->socket = socket;
	w->burst = o.burst != 0 ? (uint16_t)o.burst : cfg.pipeline.burst;
	w->b.flow_prefetch_distance = cfg.pipeline.prefetch_distance;
	w->b.prefetch_distance = cfg.pipeline.prefetch_distance;
	w->drain_tsc = ((uint64_t)hz + 999999) / 1000000 * cfg.pipeline.tx_drain_us;
	worker_adopt(w, tables);
	w->tx.n_ports = cfg.n_ports;
	for (p = 0; p < cfg.n_ports; p++) {
		w->tx.buf[p].port_id = b.null_port;
		w->tx.buf[p].queue_id = 0;
	}
	worker_ready(w);

	/* The store and the sessions, with the heaps measured around them. */
	heap_take(socket, &h0);
	store = store_create(&cfg, &o, w, socket, err, sizeof(err));
	if (store == NULL) {
		fprintf(stderr, "upfbench: %s\n", err);
		goto out_worker;
	}
	b.store = store;
	b.n_urr = 2 * o.pdrs;
	heap_take(socket, &h1);
	tmpl_init(&tmpl, &o);
	/* Chosen UEs: the allocator's own, as the agent's CHOOSE gives them. */
	upf_uepool_init(&ue_chk, 4);
	if (!o.ues_given && cfg.upf.n_ni > 0)
		for (i = 0; i < cfg.upf.ni[0].n_alloc; i++)
			if (cfg.upf.ni[0].alloc[i].af == 4)
				(void)upf_uepool_add(&ue_chk, 4, cfg.upf.ni[0].alloc[i].a,
						     cfg.upf.ni[0].alloc[i].plen);
	put_s = (double)rte_rdtsc();
	for (i = 0; i < o.sessions; i++) {
		if (!o.teids_given) {
			/* As the agent does for CHOOSE. teid_of() derives it
			 * again when the packets are written. */
			const uint32_t t = upf_teid_alloc(&store->teid);

			if (t != teid_of(&sp, i)) {
				fprintf(stderr,
					"upfbench: session %u: the allocator gave TEID 0x%08x, not 0x%08x\n",
					i, t, teid_of(&sp, i));
				goto out_store;
			}
		}
		/* The check is not a put: its time is left out of the rate. */
		chk_t0 = rte_rdtsc();
		if (ue_chk.total != 0 && ue_choose(&ue_chk, store, ue_of(&sp, i)) != 0) {
			fprintf(stderr,
				"upfbench: session %u: CHOOSE from the config's ue_alloc would not "
				"give UE 0x%08x (--ues given, or ue_alloc from the pool's start)\n",
				i, ue_of(&sp, i));
			goto out_store;
		}
		chk_cycles += rte_rdtsc() - chk_t0;
		tmpl_session(&tmpl, &sp, i);
		ret = upf_store_put(store, &tmpl.c, err, sizeof(err));
		if (ret != 0) {
			fprintf(stderr, "upfbench: session %u: %s (%s)\n", i, err, strerror(-ret));
			goto out_store;
		}
	}
	put_s = ((double)rte_rdtsc() - put_s - (double)chk_cycles) / hz;
	heap_take(socket, &h2);
	upf_store_counts(store, &sc);
	visits_ul = pdr_visits(store, 1, 1, &group_ul);
	visits_dl = pdr_visits(store, 1, 2, &group_dl);

	trace_len = RTE_MIN((uint64_t)TRACE_LEN, RTE_MAX(o.packets, (uint64_t)SAMPLE_MAX) * 2);
	for (d = 0; d < DIST_COUNT; d++) {
		if (!o.dist[d])
			continue;
		trace[d] = make_trace(o.sessions, (enum dist)d, o.zipf_s, trace_len);
		if (trace[d] == NULL) {
			fprintf(stderr, "upfbench: out of memory for the trace\n");
			goto out_trace;
		}
	}

	printf("# config %s; %u sessions, %u PDR(s) per direction (%u URRs, 1 QER%s per session), "
	       "burst %u, prefetch %u, TSC %.3f GHz, lcore %u, %u IPv4 routes\n",
	       o.config, o.sessions, o.pdrs, 2 * o.pdrs, o.mbr_kbps ? " with MBR" : "", w->burst,
	       w->b.prefetch_distance, hz / 1e9, rte_lcore_id(), tables->fib.n4);
	printf("# PDR scan: an uplink packet's PDR is entry %u of the %u uplink ones it scans, a "
	       "downlink packet's entry %u of %u (of the session's %u: each direction's PDRs "
	       "together, by precedence; the match is the last of its direction)\n",
	       visits_ul, group_ul, visits_dl, group_dl, 2 * o.pdrs);
	printf("# traffic: UEs from %u.%u.%u.%u, N3 %u.%u.%u.%u, %u gNBs, remotes in %u route "
	       "prefixes; user packets %u bytes of IPv4/UDP (frames %u, G-PDUs %u)\n",
	       sp.ue_base >> 24, (sp.ue_base >> 16) & 0xff, (sp.ue_base >> 8) & 0xff,
	       sp.ue_base & 0xff, sp.n3 >> 24, (sp.n3 >> 16) & 0xff, (sp.n3 >> 8) & 0xff,
	       sp.n3 & 0xff, sp.n_gnb, sp.n_pfx, INNER_LEN, FRAME_LEN, GPDU_LEN);
	printf("# store: max_sessions %u, max_urrs %u, max_qers %u; %u sessions put in %.2f s "
	       "(%.0f/s, no PFCP); TEIDs %s: teid table %u keys (%u in the direct array), "
	       "UEs %s: ue table %u keys (%u in the direct arrays)\n",
	       store->p.max_sessions, store->p.max_urrs, store->p.max_qers, sc.sessions, put_s,
	       o.sessions / put_s, o.teids_given ? "given" : "chosen", upf_teid_count(&store->teid),
	       store->teid.n_dir, o.ues_given ? "given" : "chosen", upf_ue_count(&store->ue),
	       store->ue.n_dir);
	printf("# memory: upf_store_counts %.1f MiB (%.0f B/session); rte_malloc heap %.1f MiB "
	       "(%.0f B/session: %.1f MiB at create, %.0f B/session for the puts); libc heap "
	       "%.1f MiB (%.0f B/session)\n",
	       sc.bytes / 1048576.0, (double)sc.bytes / o.sessions, (h2.rte - h0.rte) / 1048576.0,
	       (double)(h2.rte - h0.rte) / o.sessions, (h1.rte - h0.rte) / 1048576.0,
	       (double)(h2.rte - h1.rte) / o.sessions,
	       ((double)h2.libc - (double)h0.libc) / 1048576.0,
	       ((double)h2.libc - (double)h0.libc) / o.sessions);
	printf("# cycles: per packet, median of %u rounds (modes interleaved, order rotating); "
	       "pipeline = pipeline_run + drain + null TX; total = + mbuf alloc + frame write\n",
	       o.reps);
	fflush(stdout);

	counts_take(&b, &run0, NULL, 0);
	ramp = RTE_MAX(o.packets / 4, (uint64_t)w->burst);
	for (r = 0; r < o.reps; r++) {
		for (d = 0; d < DIST_COUNT; d++) {
			if (!o.dist[d])
				continue;
			for (m = 0; m < n_modes; m++) {
				const enum mode md = modes[(m + r) % n_modes];
				struct run run;

				/* Warm caches and TLBs for this mode and trace first. */
				if (md >= MODE_LK_UL) {
					run_lookups(&b, md, trace[d], trace_len, &pos[d][md], ramp,
						    &run, &lk_miss);
					run_lookups(&b, md, trace[d], trace_len, &pos[d][md],
						    o.packets, &run, &lk_miss);
				} else if (run_packets(&b, md, trace[d], trace_len, &pos[d][md],
						       ramp, &run) != 0 ||
					   run_packets(&b, md, trace[d], trace_len, &pos[d][md],
						       o.packets, &run) != 0) {
					goto out_trace;
				}
				pipe[d][md][r] = run.pipe;
				total[d][md][r] = run.total;
			}
		}
	}
	counts_take(&b, &run1, NULL, 0);
	if (run1.drops != run0.drops || run1.upf_drops != run0.upf_drops) {
		printf("# timed runs: %" PRIu64 " drops (%" PRIu64 " by the UPF): FAIL\n",
		       run1.drops - run0.drops, run1.upf_drops - run0.upf_drops);
		ok = false;
	}
	if (lk_miss != 0) {
		printf("# lookup modes: %" PRIu64 " keys not found: FAIL\n", lk_miss);
		ok = false;
	}

	/* The check, on a sample of each trace: not timed. */
	for (d = 0; d < DIST_COUNT; d++) {
		const uint32_t n = (uint32_t)RTE_MIN((uint64_t)SAMPLE_MAX, o.packets);
		uint32_t n_sess;

		if (!o.dist[d])
			continue;
		n_sess = distinct(trace[d], n, o.sessions, sess);
		if (n_sess == UINT32_MAX) {
			fprintf(stderr, "upfbench: out of memory for the check\n");
			goto out_trace;
		}
		for (m = 0; m < n_modes; m++) {
			if (modes[m] >= MODE_LK_UL)
				continue;
			printf("# check %s %s, ", mode_names[modes[m]], dist_names[d]);
			ok = check_sample(&b, modes[m], trace[d], n, sess, n_sess) && ok;
		}
	}

	if (o.csv != NULL) {
		csv = fopen(o.csv, "w");
		if (csv == NULL) {
			fprintf(stderr, "upfbench: %s: %s\n", o.csv, strerror(errno));
			goto out_trace;
		}
		fprintf(csv,
			"label,sessions,pdrs,mode,dist,rep,burst,packets,cycles,total_cycles,"
			"tsc_hz,pdr_visits,store_bytes,heap_bytes,heap_create_bytes,"
			"libc_bytes,max_sessions,put_per_s,check\n");
		for (r = 0; r < o.reps; r++)
			for (d = 0; d < DIST_COUNT; d++)
				for (m = 0; o.dist[d] && m < n_modes; m++) {
					const enum mode md = modes[m];

					fprintf(csv,
						"%s,%u,%u,%s,%s,%u,%u,%" PRIu64
						",%.3f,%.3f,%.0f,%u,%" PRIu64 ",%" PRIu64
						",%" PRIu64 ",%.0f,%u,%.0f,%s\n",
						o.label, o.sessions, o.pdrs, mode_names[md],
						dist_names[d], r, w->burst, o.packets,
						(double)pipe[d][md][r] / o.packets,
						(double)total[d][md][r] / o.packets, hz,
						md == MODE_UL           ? visits_ul
							: md == MODE_DL ? visits_dl
									: 0,
						sc.bytes, h2.rte - h0.rte, h1.rte - h0.rte,
						(double)h2.libc - (double)h0.libc,
						store->p.max_sessions, o.sessions / put_s,
						ok ? "ok" : "FAIL");
				}
		fclose(csv);
	}
	printf("%-10s %8s %4s %-4s %-8s %8s %8s %8s %8s %8s %8s\n", "label", "sessions", "pdrs",
	       "mode", "dist", "cycles", "min", "total", "Mpps", "x_l3", "x_l3_min");
	for (d = 0; d < DIST_COUNT; d++) {
		if (!o.dist[d])
			continue;
		for (m = 0; m < n_modes; m++) {
			const enum mode md = modes[m];
			double ratio[MAX_REPS], med, min, tot, x = 0, xmin = 0;
			uint64_t sp_[MAX_REPS], st_[MAX_REPS];

			for (r = 0; r < o.reps; r++)
				ratio[r] = o.mode[MODE_L3]
					? (double)pipe[d][md][r] / (double)pipe[d][MODE_L3][r]
					: 0;
			memcpy(sp_, pipe[d][md], o.reps * sizeof(uint64_t));
			memcpy(st_, total[d][md], o.reps * sizeof(uint64_t));
			qsort(sp_, o.reps, sizeof(uint64_t), cmp_u64);
			qsort(st_, o.reps, sizeof(uint64_t), cmp_u64);
			med = (double)sp_[o.reps / 2] / o.packets;
			min = (double)sp_[0] / o.packets;
			tot = (double)st_[o.reps / 2] / o.packets;
			if (o.mode[MODE_L3]) {
				uint64_t l3[MAX_REPS];

				x = median_dbl(ratio, o.reps);
				memcpy(l3, pipe[d][MODE_L3], o.reps * sizeof(uint64_t));
				qsort(l3, o.reps, sizeof(uint64_t), cmp_u64);
				xmin = min / ((double)l3[0] / o.packets);
			}
			printf("%-10s %8u %4u %-4s %-8s %8.1f %8.1f %8.1f %8.2f %8.2f %8.2f\n",
			       o.label, o.sessions, o.pdrs, mode_names[md], dist_names[d], med, min,
			       tot, hz / med / 1e6, x, xmin);
		}
	}
	fflush(stdout);
	exit_code = ok ? 0 : EXIT_CHECK;

out_trace:
	for (d = 0; d < DIST_COUNT; d++)
		free(trace[d]);
out_store:
	upf_store_free(store);
out_worker:
	rte_free(w);
out_port:
	if (port_up) {
		rte_eth_dev_stop(b.null_port);
		rte_eth_dev_close(b.null_port);
	}
	rte_mempool_free(b.pool);
out_tables:
	tables_free(tables);
out_space:
	free(sp.pfx);
out_cfg:
	config_free(&cfg);
out_eal:
	rte_eal_cleanup();
	return exit_code;
}
