/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The bottom of the datapath: what every stage may read or write while it
 * works on a burst. Drop reasons and the worker's counters, the per-packet
 * meta, the table generation in use, and struct lf_burst, the per-burst
 * context a stage is handed. Every stage includes this header and the lib/
 * headers of the tables it reads; none includes the loop (worker.h) or the
 * pipeline (pipeline.h), and none calls another stage: a stage returns how
 * many packets go on, and pipeline.c decides what runs next.
 *
 * A stage is
 *
 *     uint16_t <stage>_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);
 *
 * pkts[0..n) and b->meta[0..n) in, the packets that go on compacted to the
 * front of both (input order kept), their number returned. A packet a stage
 * does not pass on is either dropped (lf_burst_drop, counted by reason and
 * freed after the burst) or handed to another packet kind (lf_burst_divert).
 */
#ifndef LF_DP_H
#define LF_DP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "acl.h"
#include "config.h"
#include "flow.h"
#include "tbucket.h"
#include "upf.h"

/** Drop reasons, each defined once: yields the enum and the names. */
#define LF_DROP_REASONS(X)                                                   \
	X(L2_MALFORMED, "l2_malformed")                                      \
	X(L3_MALFORMED, "l3_malformed")                                      \
	X(L4_MALFORMED, "l4_malformed")                                      \
	X(BAD_CHECKSUM, "bad_checksum")                                      \
	X(TTL_EXPIRED, "ttl_expired")                                        \
	X(NO_ROUTE, "no_route")                                              \
	X(NO_NEXTHOP, "no_nexthop")                                          \
	X(NON_IP, "non_ip")                                                  \
	X(ACL_DENY, "acl_deny")                                              \
	X(UPF, "upf") /* By the UPF: its reasons are in upf_wk_stats. */     \
	X(LOOP, "loop") /* Routed back into a kind it has passed. */         \
	X(TX_FULL, "tx_full")                                                \
	/* RFC 1812 5.3.7, RFC 4291: a source a router must not forward  \
	 * from (0/8, 127/8, 224/4, 240/4; ::, ::1, ff00::/8). */   \
	X(MARTIAN_SRC, "martian_src")                                        \
	/* A destination it must not forward to (127/8, 0/8, 240/4,      \
	 * multicast; ::1, ::, other multicast, link-local not ours). */   \
	X(MARTIAN_DST, "martian_dst")                                        \
	/* A unicast frame to another MAC on a port not promiscuous. */      \
	X(L2_NOT_OURS, "l2_not_ours")                                        \
	/* A unicast IP packet in a link-layer broadcast/multicast frame. */ \
	X(L2_MCAST_UNICAST_IP, "l2_mcast_unicast_ip")                        \
	X(MTU, "mtu_exceeded") /* Over the egress MTU (no fragmenting). */   \
	/* For the router, with no exception path ([port] exception). */     \
	X(NO_EXCEPTION, "no_exception")                                      \
	/* Over [exception] or [neighbour] punt_pps. */                      \
	X(PUNT_RATE, "punt_ratelimit")                                       \
	X(PUNT_FULL, "punt_full") /* The control thread's ring was full. */  \
	/* Held for a next hop being resolved, past queue_packets or     \
	 * after resolution failed (counted by the neighbour code). */   \
	X(NEIGH_UNRESOLVED, "neigh_unresolved")

/**
 * Events of the router's own side that are not drops, per worker: the ICMP
 * messages sent, what went to the kernel or the control thread, and what
 * came back. With them every packet is accounted for:
 *   rx + ctrl_tx + ctrl_rerun + exc_rx = tx + drops + punt_ctrl
 * once nothing is held (a held packet is punt_ctrl until it is rerun).
 */
#define LF_EVENTS(X)                                                                 \
	X(ICMP_ECHO_REPLY, "icmp_echo_reply")                                        \
	X(ICMP_TIME_EXCEEDED, "icmp_time_exceeded")                                  \
	X(ICMP_UNREACHABLE, "icmp_unreachable")                                      \
	X(ICMP_FRAG_NEEDED, "icmp_frag_needed")                                      \
	/* An ICMP error or reply not sent: turned off, rate-limited, or not   \
	 * allowed (about an ICMP error, a fragment, a broadcast); the packet   \
	 * is dropped by its own reason. */     \
	X(ICMP_SUPPRESSED, "icmp_suppressed")                                        \
	X(PUNT_EXCEPTION, "punt_exception") /* Sent to the kernel (TAP), in tx. */   \
	X(PUNT_CTRL, "punt_ctrl") /* Handed to the control thread (ARP/ND, held). */ \
	X(EXC_RX, "exception_rx") /* From the kernel's TAP, sent out its port. */    \
	X(CTRL_TX, "ctrl_tx") /* Frames the control thread built, sent. */           \
	X(CTRL_RERUN, "ctrl_rerun") /* Held packets the control thread released. */

enum lf_event {
#define X(e, s) LF_EV_##e,
	LF_EVENTS(X)
#undef X
		LF_EV_COUNT
};

/** Names of the events, indexed by enum lf_event. */
extern const char *const lf_event_names[LF_EV_COUNT];

enum lf_drop {
#define X(e, s) LF_DROP_##e,
	LF_DROP_REASONS(X)
#undef X
		LF_DROP_COUNT
};

/** Names of the drop reasons, indexed by enum lf_drop. */
extern const char *const lf_drop_names[LF_DROP_COUNT];

/**
 * Packet kinds: which stage list of pipeline.c a packet takes after parse.
 * A stage may hand a packet on to a later kind (lf_burst_divert); the
 * kinds run in this order, so a packet never goes back. Order is kept
 * within a kind (so within a flow), not across kinds.
 */
#define LF_KINDS(X)                                                            \
	X(IP, "ip") /* IPv4/IPv6 to route: acl -> fib -> rewrite -> tx. */     \
	X(UPF_UL, "upf_ul") /* To an N3 address: GTP-U (upf_stage.h). */       \
	X(UPF_DL, "upf_dl") /* To a UE pool: downlink (upf_stage.h). */        \
	/* An ICMP error to build about it (meta.nh: enum lf_icmp_why):      \
	 * TTL expired, no route, over the MTU (icmp_stage.h). */ \
	X(ICMP, "icmp")                                                        \
	/* To the router itself (a next hop of kind local, lf_nh.arg says    \
	 * deliver or martian): echo answered, ND on to neigh, the rest to   \
	 * the kernel (local_stage.h). */ \
	X(LOCAL, "local")                                                      \
	/* ARP, IPv6 ND, and packets whose next hop is not resolved yet      \
	 * (meta.nh): to the control thread (neigh_stage.h). */ \
	X(NEIGH, "neigh")                                                      \
	/* To the kernel: sent as is out of meta.out, the mirror of the   \
	 * port it came in on (local_stage.h). */    \
	X(PUNT, "punt")                                                        \
	X(OTHER, "other") /* Nothing lanefwd handles: counted non_ip. */

enum lf_kind {
#define X(e, s) LF_KIND_##e,
	LF_KINDS(X)
#undef X
		LF_KIND_COUNT
};

/** 64-bit words of the per-kind diverted counts (lf_burst.n_div), four each. */
#define LF_DIV_WORDS ((LF_KIND_COUNT + 3) / 4)

/** Packets-per-poll histogram: 0, 1, 2-3, 4-7, ..., 128-255, 256. */
#define LF_BURST_HIST_BUCKETS 10

/** Bucket of a poll that returned n packets (n <= 256). */
static inline unsigned int
lf_burst_bucket(unsigned int n)
{
	return n == 0 ? 0 : 32 - __builtin_clz(n);
}

/**
 * Counters of one worker. Single writer (the worker); readers (control
 * thread, telemetry) load each 64-bit field on its own. The worker updates
 * them with plain stores, once per burst where it can.
 */
struct lf_worker_stats {
	uint64_t rx_pkts;
	uint64_t tx_pkts;
	uint64_t polls; /**< rx_burst calls, empty ones included. */
	uint64_t busy_polls; /**< rx_burst calls that returned packets. */
	uint64_t busy_cycles; /**< TSC cycles of loop iterations with packets. */
	uint64_t idle_cycles; /**< TSC cycles of empty iterations. */
	uint64_t ipv4_cksum_sw; /**< IPv4 headers checked in software. */
	uint64_t rx_hw_stamped; /**< Bursts timed from a hardware RX timestamp. */
	/**
	 * Bursts the fused IPv4 stage did not take whole (pipeline.h): run
	 * staged whole (a non-plain packet of each family, an ACL without a
	 * flow cache), or split, sorted by family: the IPv4 and the IPv6
	 * packets each through their fused stage, the rest (ARP, tagged)
	 * staged. The other bursts run (busy_polls' and the held packets
	 * released to the pipeline) ran fused whole.
	 */
	uint64_t staged_bursts;
	uint64_t split_bursts;
	/**
	 * Loop iterations (housekeeping and the gap to the next included,
	 * sleeps excluded) longer than LF_STALL_US: the worker lost its CPU
	 * to the kernel or the hypervisor, or did far more than a burst's
	 * work. A guest cannot see a host preemption any other way.
	 */
	uint64_t stalls;
	uint64_t stall_cycles; /**< TSC cycles those iterations took. */
	uint64_t stall_max_cycles; /**< The longest of them. */
	/**
	 * Iterations that ended before they began: the TSC stepped back
	 * (tbucket.h lf_tsc_due). Counted in neither the cycles above nor
	 * busy_cycles or idle_cycles; the timers re-anchor.
	 */
	uint64_t clock_steps;
	uint64_t drops[LF_DROP_COUNT];
	uint64_t ev[LF_EV_COUNT];
	uint64_t burst_hist[LF_BURST_HIST_BUCKETS];
} __rte_cache_aligned;

/**
 * What counts as a stall, in µs. A full iteration (every queue's burst of
 * 256 through the dearest stages) is tens of µs; at 1 ms, as OVS's
 * "suspicious iteration" default, a 4096-slot RX ring at 4 Mpps is full.
 */
#define LF_STALL_US 1000

/** Single-writer counter update: a plain load and store, never a locked RMW. */
#define LF_STAT_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
/** Reader side of LF_STAT_ADD. */
#define LF_STAT_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/**
 * What parse found out about a packet, carried through later stages.
 * l3_off..kind are 8 contiguous bytes that the parse fast path writes at
 * once (lf_meta_plain_ipv4).
 */
struct lf_meta {
	uint32_t nh; /**< Next-hop id, set by the FIB stage. */
	uint16_t l3_off; /**< Offset of the IP header. */
	uint16_t l4_off; /**< Offset of the L4 header, 0 if none. */
	uint8_t af; /**< 4 or 6. */
	uint8_t l4_proto; /**< IPPROTO_*, after IPv6 extension headers. */
	uint8_t kind; /**< enum lf_kind. */
	uint8_t flags; /**< LF_META_*. */
	uint16_t out; /**< Output port index, set by rewrite. */
	uint16_t fkey; /**< With a flow cache: index of its key in b->flow_keys. */
};

/**
 * lf_meta.flags: the TTL is final, no decrement on the way out: lanefwd
 * built this IP header (an encapsulation, a reply) or has already counted
 * this hop (a decapsulated uplink packet).
 */
#define LF_META_TTL_DONE 0x01
/** lf_meta.flags: an ICMPv6 ND message the local stage hands to the neigh kind. */
#define LF_META_ND 0x02

/** Why a packet was diverted to LF_KIND_ICMP: its meta.nh. */
enum lf_icmp_why {
	LF_ICMP_TTL, /**< TTL / hop limit expired in transit: time exceeded. */
	LF_ICMP_NO_ROUTE, /**< No route: destination (network) unreachable. */
	LF_ICMP_MTU, /**< Over meta.out's MTU: fragmentation needed / packet too big. */
};

/** lf_nh.arg of a next hop of kind LF_KIND_LOCAL. */
enum lf_local_arg {
	LF_LOCAL_DELIVER, /**< One of the router's own unicast addresses. */
	LF_LOCAL_MARTIAN, /**< A destination no router forwards to: martian_dst. */
	/** A group or broadcast address it receives (224.0.0.0/24, ff02::/16,
	 * broadcasts): to the kernel, never answered by the data plane. */
	LF_LOCAL_GROUP,
	LF_LOCAL_COUNT
};

/**
 * mbuf tags on the control thread's rings (lf_burst.to_ctrl, and the
 * worker's from_ctrl ring, worker.h): m->hash.usr is the tag in its top
 * byte (for LF_CTRL_HELD the next-hop id in its low 24 bits), and
 * m->hash.fdir.hi the port index: the port the frame came in on, or for
 * LF_CTRL_TX the port to send it out of. (hash.usr and fdir.hi are the two
 * 32-bit words of the mbuf's hash; RSS is not read past RX.)
 */
#define LF_CTRL_TAG_MASK 0xff000000u
#define LF_CTRL_ARP 0x01000000u /**< worker -> control: an ARP frame. */
#define LF_CTRL_ND 0x02000000u /**< worker -> control: an ICMPv6 ND message (133-137). */
#define LF_CTRL_HELD 0x03000000u /**< worker -> control: waits for next hop (usr & 0xffffff). */
#define LF_CTRL_TX 0x81000000u /**< control -> worker: send as is out of port fdir.hi. */
#define LF_CTRL_RERUN \
	0x82000000u /**< control -> worker: run through the pipeline again, as from port fdir.hi. */

/**
 * The router's own side of one datapath port, as the stages read it.
 */
struct lf_port_l3 {
	struct rte_ether_addr mac;
	uint16_t mtu; /**< IP MTU: larger packets are not sent out of it. */
	/** Port index of its kernel TAP mirror, LF_NH_INVALID without one. */
	uint16_t exc_out;
	bool promisc; /**< Accept frames to any unicast MAC. */
	bool has_ip4;
	bool has_ip6;
	uint8_t ip4[4]; /**< Its first IPv4 address: the source of ICMP errors it sends. */
	uint8_t ip6[16]; /**< Its first global IPv6 address, else its first link-local one. */
};

/**
 * What the router answers itself and how: set once before launch (main.c),
 * read by the stages. NULL in lf_burst: none of it (tests, benchmarks).
 */
struct lf_local {
	bool echo; /**< [icmp] echo ... frag_needed */
	bool time_exceeded;
	bool unreachable;
	bool frag_needed;
	/**
	 * The ports' MTUs differ, so a packet may be larger than its egress
	 * port takes: rewrite checks each one, and the fused stages and
	 * flow-cache hits (which do not) are not used.
	 */
	bool mtu_check;
	uint16_t n_ports; /**< Datapath ports: configured ones and their mirrors. */
	struct lf_port_l3 port[LF_MAX_DP_PORTS];
};

/**
 * A next hop as the rewrite stage reads it: one 16-byte entry. An entry
 * without an output port either is undefined (kind LF_KIND_IP) or hands
 * the packet to another packet kind (the FIB routes an N3 address or a UE
 * pool there, tables.c): kind names it and arg is the kind's own argument
 * (for LF_KIND_UPF_DL the network instance).
 */
struct lf_nh {
	struct rte_ether_addr dst;
	struct rte_ether_addr src;
	uint16_t out; /**< Output port index; LF_NH_INVALID if undefined. */
	uint8_t kind; /**< enum lf_kind the packet goes to when out is LF_NH_INVALID. */
	uint8_t arg;
};
#define LF_NH_INVALID UINT16_MAX

/**
 * Output port of next hop nh in a table of count entries, or LF_NH_INVALID
 * when there is none: no route (LF_NH_NONE is past every table) or an id
 * without a [nexthop] section. The one validity test of a next hop.
 */
static inline unsigned int
lf_nh_out(const struct lf_nh *table, uint64_t count, uint64_t nh)
{
	return nh < count ? table[nh].out : LF_NH_INVALID;
}

/**
 * The kind a next hop without an output port hands its packets to, or
 * LF_KIND_IP (0) when it is simply undefined. Only called once out is
 * LF_NH_INVALID, off the forwarding path.
 */
static inline unsigned int
lf_nh_kind(const struct lf_nh *table, uint64_t count, uint64_t nh)
{
	return nh < count ? table[nh].kind : 0;
}

struct lf_fib;

/**
 * The table generation a worker uses (tables.h), adopted whole between two
 * loop iterations (worker.c), never during a burst.
 */
struct lf_view {
	const struct lf_fib *fib;
	/* [acl] classifiers; a family without one is not classified. */
	const struct acl_ctx *acl; /**< IPv4 (struct acl_key), or NULL. */
	const struct acl_ctx *acl6; /**< IPv6 (struct acl6_key), or NULL. */
	const struct lf_nh *nh_table;
	uint32_t nh_count;
	uint32_t gen; /**< Generation of the tables above. */
};

/** A verdict the tables made, to be cached for its flow (flow_stage.h). */
struct lf_decided {
	uint16_t fkey; /**< Index of the flow key in b->flow_keys. */
	uint8_t reason; /**< enum lf_drop. */
	uint32_t pkt_len;
};

/** Output of a burst a stage left for TX: all to one port, or meta[].out. */
#define LF_OUT_MIXED UINT16_MAX

/** What a fused stage returns for a burst it does not take (bursts are <= 256). */
#define LF_REFUSED UINT16_MAX

struct lf_burst;

/** A stage's burst function (dp.h's contract). */
typedef uint16_t (*lf_stage_fn)(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

/**
 * The per-burst context: everything a stage may read or write. One per
 * worker, owned by it alone (the worker embeds it); the fields above the
 * scratch are set by the loop before each burst or at table adoption.
 */
struct lf_burst {
	/* Set once, before launch. */
	struct lf_worker_stats *stats; /**< The worker's counters. */
	/** The worker's flow cache (flow_stage.h) while it fronts an ACL, else NULL. */
	struct lf_flow_table *flows;
	uint16_t flow_prefetch_distance; /**< Flow lookups in flight. */
	/** The fused IPv4 stages of the build the CPU runs (fastpath_select). */
	lf_stage_fn fused_ip4;
	lf_stage_fn fused_flow;
	bool fused_avx512; /**< They are the AVX-512 build. */
	/** The UPF's sessions (upf.h) and this worker's UPF state, or NULL without [upf]. */
	const struct upf_store *upf;
	struct upf_wk *upf_wk;
	uint64_t upf_err_ind_cycles; /**< TSC cycles between Error Indications; 0: none. */
	/** The router's own side (issue 15), or NULL: nothing answered, nothing punted. */
	const struct lf_local *local;
	/** This worker's rate limits: ICMP sent, punts to the kernel and to the control thread. */
	struct lf_tbucket icmp_tb;
	struct lf_tbucket exc_tb;
	struct lf_tbucket neigh_tb;
	/** NEIGH kind -> control thread (SP/SC: this worker produces), or NULL. */
	struct rte_ring *to_ctrl;

	/* Set by the loop for each burst. */
	uint16_t rx_port; /**< Port index the burst came from. */
	uint16_t prefetch_distance; /**< Packet data, its RX queue's. */
	uint64_t rx_tsc; /**< When the burst arrived. */

	/* Adopted between iterations. */
	struct lf_view view;

	/* Results for the pipeline. */
	uint16_t out; /**< A fused stage's output: the one port or LF_OUT_MIXED. */
	uint16_t n_dropped;
	uint16_t n_decided;
	/** Packets diverted to each kind; padded to LF_DIV_WORDS whole 64-bit
	 * words, which pipeline_diverted tests at once. */
	uint16_t n_div[LF_DIV_WORDS * 4];
	/** Frames the fused IPv4 check set aside as not IPv4: IPv6 (aside6[]), other (aside[]). */
	uint16_t n_aside6;
	uint16_t n_aside;

	/* Scratch. */
	uint32_t n_cksum_sw; /**< Parse: software checksum checks off the fast check. */
	struct lf_meta meta[LF_BURST_MAX];
	uint32_t ip4[LF_BURST_MAX];
	uint8_t *data[LF_BURST_MAX]; /**< The fused stage: each packet's mtod. */
	uint32_t ttlw[LF_BURST_MAX]; /**< Its decremented TTL/protocol/checksum word. */
	uint64_t nh4[LF_BURST_MAX];
	uint8_t ip6[LF_BURST_MAX][16];
	uint64_t nh6[LF_BURST_MAX];
	uint16_t idx4[LF_BURST_MAX];
	uint16_t idx6[LF_BURST_MAX];
	struct lf_flow_key flow_keys[LF_BURST_MAX];
	struct lf_flow_hot *flow_hit[LF_BURST_MAX];
	struct rte_mbuf *dropped[LF_BURST_MAX];
	struct lf_decided decided[LF_BURST_MAX];
	struct rte_mbuf *div[LF_KIND_COUNT][LF_BURST_MAX];
	struct lf_meta div_meta[LF_KIND_COUNT][LF_BURST_MAX];
	struct rte_mbuf *aside6[LF_BURST_MAX];
	struct rte_mbuf *aside[LF_BURST_MAX];
} __rte_cache_aligned;

/** Count a drop and queue the mbuf to be freed at the end of the burst. */
static inline void
lf_burst_drop(struct lf_burst *b, struct rte_mbuf *m, enum lf_drop reason)
{
	LF_STAT_ADD(b->stats->drops[reason], 1);
	b->dropped[b->n_dropped++] = m;
}

/**
 * Drop a packet for a reason the tables decided (ACL, FIB, next hop). With
 * a flow cache the verdict is noted, and the pipeline caches it for the
 * packet's flow once the burst's lookups are over.
 */
static inline void
lf_burst_drop_decided(struct lf_burst *b, struct rte_mbuf *m, const struct lf_meta *meta,
		      enum lf_drop reason)
{
	/* Only the IP kind's packets have flow keys (parse made them). */
	if (b->flows != NULL && meta->kind == LF_KIND_IP) {
		struct lf_decided *d = &b->decided[b->n_decided++];

		d->fkey = meta->fkey;
		d->reason = (uint8_t)reason;
		d->pkt_len = m->pkt_len;
	}
	lf_burst_drop(b, m, reason);
}

/** Hand a packet and its meta to a later kind's stage list. */
static inline void
lf_burst_divert(struct lf_burst *b, struct rte_mbuf *m, const struct lf_meta *meta,
		enum lf_kind kind)
{
	uint16_t k = b->n_div[kind]++;

	b->div[kind][k] = m;
	b->div_meta[kind][k] = *meta;
	b->div_meta[kind][k].kind = (uint8_t)kind;
}

/**
 * The compaction step every stage shares: packet i (and its meta) goes on,
 * as the k-th. Returns k + 1.
 */
static inline uint16_t
lf_burst_keep(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t i, uint16_t k)
{
	if (k != i) {
		pkts[k] = pkts[i];
		b->meta[k] = b->meta[i];
	}
	return k + 1;
}

/**
 * A packet whose next hop has no output port: hand it to the kind the next
 * hop names if that kind comes after the packet's (kinds only go forward),
 * else drop it (no_nexthop, or loop when it names a kind already passed).
 * The cold path of every stage that resolves next hops.
 */
static inline void
lf_burst_nh_miss(struct lf_burst *b, struct rte_mbuf *m, const struct lf_meta *meta,
		 unsigned int kind)
{
	if (kind > meta->kind)
		lf_burst_divert(b, m, meta, (enum lf_kind)kind);
	else if (kind == 0 && meta->kind == 0)
		lf_burst_drop_decided(b, m, meta, LF_DROP_NO_NEXTHOP);
	else
		lf_burst_drop(b, m, kind == 0 ? LF_DROP_NO_NEXTHOP : LF_DROP_LOOP);
}

/** Do the ports' MTUs differ (lf_local.mtu_check)? */
static inline bool
lf_burst_mtu_check(const struct lf_burst *b)
{
	return b->local != NULL && b->local->mtu_check;
}

/**
 * A packet without a route: to the ICMP kind for a destination
 * unreachable ([icmp] unreachable, with the router's own side set up), else
 * dropped no_route (a decision a flow cache may keep).
 */
static inline void
lf_burst_no_route(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta)
{
	if (b->local != NULL && b->local->unreachable && meta->kind < LF_KIND_ICMP) {
		meta->nh = LF_ICMP_NO_ROUTE;
		lf_burst_divert(b, m, meta, LF_KIND_ICMP);
		return;
	}
	lf_burst_drop_decided(b, m, meta, LF_DROP_NO_ROUTE);
}

/** Free what the stages dropped during this burst. */
static inline void
lf_burst_drops_flush(struct lf_burst *b)
{
	if (b->n_dropped != 0) {
		rte_pktmbuf_free_bulk(b->dropped, b->n_dropped);
		b->n_dropped = 0;
	}
}

#endif /* LF_DP_H */
