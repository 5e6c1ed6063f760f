/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lanefwd-gen, the project's traffic generator: the logic that needs no EAL
 * (flow keys and flow selection, Zipf sampling, packet sizes and IMIX, TSC
 * pacing, the payload stamp, per-flow loss/reorder/duplicate accounting and
 * the NDR search). The unit tests link exactly these functions; the data path
 * (src/gen/gen_run.c) calls them per packet, so the per-packet ones are
 * inline and none allocates.
 */
#ifndef LF_GEN_H
#define LF_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

/** Most flows a run may have (per-flow state: 12 bytes each). */
#define GEN_MAX_FLOWS (1u << 26)

/* ---------------------------------------------------------------- random */

/** xorshift64* generator; one per lcore. State must not be 0. */
static inline uint64_t
gen_rand64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/** Uniform double in [0, 1) with 53 random bits. */
static inline double
gen_rand_unit(uint64_t *s)
{
	return (double)(gen_rand64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/** Uniform integer in [0, n) (Lemire's multiply-shift; bias below 2^-32). */
static inline uint32_t
gen_rand_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((gen_rand64(s) >> 32) * (uint64_t)n) >> 32);
}

/* ----------------------------------------------------------------- flows */

/** What varies per flow: offsets from the base addresses, source port. */
struct gen_flow_tuple {
	uint32_t dst_off; /**< Added to the base destination address. */
	uint32_t src_off; /**< Added to the base source address. */
	uint16_t sport; /**< Source port. */
};

/**
 * How flow ids map to 5-tuples. Flow f is the mixed-radix number
 * (sport - sport_base, src_off, dst_off) with digits of sizes
 * (sports, n_src, n_dst): dst_off = f % n_dst, src_off = (f / n_dst) % n_src,
 * sport = sport_base + f / (n_dst * n_src). So the n_flows flows are n_flows
 * distinct 5-tuples, deterministic for a given configuration.
 */
struct gen_flows {
	uint32_t n_flows;
	uint32_t n_dst; /**< Destination addresses (>= 1). */
	uint32_t n_src; /**< Source addresses (>= 1). */
	uint16_t sport_base;
};

/**
 * Check and set a flow layout. n_src == 0 picks min(ceil(n_flows / n_dst),
 * 65536). Returns 0, or -EINVAL with a message in err when the flows do not
 * fit in the source port range [sport_base, 65535].
 */
int gen_flows_init(struct gen_flows *fl, uint32_t n_flows, uint32_t n_dst, uint32_t n_src,
		   uint16_t sport_base, char *err, size_t errlen);

/** The 5-tuple of flow f (f < n_flows). */
static inline void
gen_flow_tuple(const struct gen_flows *fl, uint32_t f, struct gen_flow_tuple *t)
{
	uint32_t g = f / fl->n_dst;

	t->dst_off = f - g * fl->n_dst;
	t->src_off = g % fl->n_src;
	t->sport = (uint16_t)(fl->sport_base + g / fl->n_src);
}

/* ------------------------------------------------------- flow selection */

enum gen_dist {
	GEN_DIST_UNIFORM, /**< Every flow equally likely, independently. */
	GEN_DIST_ZIPF, /**< Flow k-1 with probability proportional to 1/k^s. */
	GEN_DIST_SEQ, /**< 0, 1, ..., n-1, 0, 1, ... */
	GEN_DIST_COUNT
};

/** Names of enum gen_dist ("uniform", "zipf", "seq"). */
extern const char *const gen_dist_names[GEN_DIST_COUNT];

/**
 * Rejection-inversion Zipf sampler (W. Hormann, G. Derflinger, "Rejection-
 * inversion to generate variates from monotone discrete distributions",
 * ACM TOMACS 6(3), 1996): O(1) per sample and no table, so 16M flows cost
 * nothing to set up. Ranks 1..n.
 */
struct gen_zipf {
	double s; /**< Exponent (skew), > 0. */
	double n; /**< Number of ranks. */
	double h_x1; /**< H(1.5) - 1. */
	double h_n; /**< H(n + 0.5). */
	double shortcut; /**< 2 - H^-1(H(2.5) - h(2)). */
};

/** Set a Zipf sampler over ranks 1..n with exponent s (0 < s <= 20). */
void gen_zipf_init(struct gen_zipf *z, uint32_t n, double s);
/** One rank in [1, n]. */
uint32_t gen_zipf_sample(const struct gen_zipf *z, uint64_t *rng);

/** Flow selection state; one per TX lcore. */
struct gen_select {
	enum gen_dist dist;
	uint32_t n; /**< Flows. */
	uint32_t next; /**< GEN_DIST_SEQ: the next flow. */
	uint64_t rng;
	struct gen_zipf zipf;
};

/** Set flow selection over n flows; s is the Zipf exponent (unused otherwise). */
void gen_select_init(struct gen_select *sel, enum gen_dist dist, uint32_t n, double s,
		     uint64_t seed);

/** The next flow id, in [0, n). */
static inline uint32_t
gen_select_next(struct gen_select *sel)
{
	uint32_t f;

	switch (sel->dist) {
	case GEN_DIST_SEQ:
		f = sel->next;
		sel->next = f + 1 == sel->n ? 0 : f + 1;
		return f;
	case GEN_DIST_ZIPF:
		return gen_zipf_sample(&sel->zipf, &sel->rng) - 1;
	default:
		return gen_rand_below(&sel->rng, sel->n);
	}
}

/* ----------------------------------------------------------------- sizes */

#define GEN_SIZES_MAX 16 /**< Distinct sizes in a mix. */
#define GEN_SIZE_CYCLE_MAX 4096 /**< Sum of the weights of a mix. */
#define GEN_FRAME_MIN 64 /**< Smallest Ethernet frame, FCS included. */
#define GEN_FRAME_MAX 9600 /**< Largest frame, FCS included. */
#define GEN_FCS_LEN 4 /**< Frame sizes count the FCS; mbufs do not hold it. */

/**
 * Frame sizes (FCS included, as in RFC 2544 and the IMIX definitions) and
 * their weights. Packets cycle through a precomputed sequence of
 * sum(weights) sizes spread evenly (smooth weighted round robin), so every
 * cycle holds each size exactly weight times.
 */
struct gen_sizes {
	unsigned int n;
	uint16_t size[GEN_SIZES_MAX];
	uint16_t weight[GEN_SIZES_MAX];
	uint16_t cycle_len;
	uint16_t pos; /**< Next index in cycle. */
	uint16_t cycle[GEN_SIZE_CYCLE_MAX];
};

/**
 * Parse a size specification: "64" (one size), "imix" (simple IMIX:
 * 64:7,570:4,1518:1) or "SIZE:WEIGHT,SIZE:WEIGHT,..." and build the cycle.
 * Sizes below min are raised to min (the smallest frame that holds the
 * headers and the stamp); *raised tells whether any was. Returns 0, or
 * -EINVAL with a message naming the bad item in err.
 */
int gen_sizes_parse(struct gen_sizes *sz, const char *spec, uint16_t min, bool *raised, char *err,
		    size_t errlen);

/** The next frame size (FCS included). */
static inline uint16_t
gen_sizes_next(struct gen_sizes *sz)
{
	uint16_t s = sz->cycle[sz->pos];

	sz->pos = sz->pos + 1 == sz->cycle_len ? 0 : sz->pos + 1;
	return s;
}

/** Mean frame size of the mix (FCS included). */
double gen_sizes_mean(const struct gen_sizes *sz);

/* ---------------------------------------------------------------- pacing */

/**
 * TSC pacing. Packet i of an "on" period is due at start + floor(i * hz /
 * pps) cycles, kept exactly with an integer quotient and remainder (no drift
 * however long the run). With on/off bursts, packets are due only in the
 * first on_cycles of every period_cycles; the off time is not caught up.
 * pps == 0 means as fast as possible (everything is always due).
 */
struct gen_pace {
	uint64_t hz;
	uint64_t pps;
	uint64_t q, r; /**< hz / pps and hz % pps. */
	uint64_t rem; /**< Accumulated remainder, < pps. */
	uint64_t next; /**< TSC at which the next packet is due. */
	uint64_t period; /**< On+off cycles; 0 = always on. */
	uint64_t on; /**< On cycles of a period. */
	uint64_t phase; /**< TSC at which the current period started. */
};

/** Start pacing at TSC start; on_us/off_us both 0 for continuous traffic. */
void gen_pace_init(struct gen_pace *p, uint64_t hz, uint64_t pps, uint64_t on_us, uint64_t off_us,
		   uint64_t start);

/**
 * How many packets (at most max) are due at TSC now; the schedule moves on
 * by that many. A caller that falls behind gets max per call until it has
 * caught up (the offered rate is kept, not the spacing).
 */
static inline unsigned int
gen_pace_due(struct gen_pace *p, uint64_t now, unsigned int max)
{
	uint64_t end = UINT64_MAX;
	unsigned int n = 0;

	if (p->period != 0) {
		if (now - p->phase >= p->period) {
			p->phase += (now - p->phase) / p->period * p->period;
			if (p->next < p->phase) {
				p->next = p->phase;
				p->rem = 0;
			}
		}
		end = p->phase + p->on;
		if (now >= end)
			return 0;
	}
	if (p->pps == 0)
		return max;
	while (n < max && p->next <= now && p->next < end) {
		n++;
		p->next += p->q;
		p->rem += p->r;
		if (p->rem >= p->pps) {
			p->rem -= p->pps;
			p->next++;
		}
	}
	return n;
}

/* ----------------------------------------------------------------- stamp */

/**
 * The payload stamp, right after the L4 header, 18 bytes (all big endian):
 *
 *   0  magic    16  GEN_MAGIC, or GEN_MAGIC_WARMUP for warm-up packets
 *   2  flow     32  flow id
 *   6  seq      32  per-flow sequence number (wraps)
 *  10  tsc      48  low 48 bits of the TSC at TX
 *  16  check    16  ones'-complement sum of bytes 0..15, complemented
 *
 * 18 bytes is what a 64-byte IPv4/UDP frame has after its headers
 * (64 - 4 FCS - 14 - 20 - 8). The rest of the payload is zeros.
 */
#define GEN_STAMP_LEN 18
#define GEN_MAGIC 0x4c46u /**< "LF": a measured packet. */
#define GEN_MAGIC_WARMUP 0x4c57u /**< "LW": a warm-up packet. */
#define GEN_TSC_MASK ((1ull << 48) - 1)

/** A decoded stamp. */
struct gen_stamp {
	uint16_t magic;
	uint32_t flow;
	uint32_t seq;
	uint64_t tsc; /**< 48 bits. */
};

/** Write the id part (magic, flow, seq) of a stamp. */
static inline void
gen_stamp_put_id(uint8_t *b, uint16_t magic, uint32_t flow, uint32_t seq)
{
	b[0] = magic >> 8;
	b[1] = magic & 0xff;
	b[2] = flow >> 24;
	b[3] = (flow >> 16) & 0xff;
	b[4] = (flow >> 8) & 0xff;
	b[5] = flow & 0xff;
	b[6] = seq >> 24;
	b[7] = (seq >> 16) & 0xff;
	b[8] = (seq >> 8) & 0xff;
	b[9] = seq & 0xff;
}

/** Ones'-complement check over the first 16 bytes of a stamp. */
static inline uint16_t
gen_stamp_check(const uint8_t *b)
{
	uint32_t s = 0;
	unsigned int i;

	for (i = 0; i < 16; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/** Write the TSC part and the check (after gen_stamp_put_id). */
static inline void
gen_stamp_put_tsc(uint8_t *b, uint64_t tsc)
{
	uint16_t c;

	b[10] = (tsc >> 40) & 0xff;
	b[11] = (tsc >> 32) & 0xff;
	b[12] = (tsc >> 24) & 0xff;
	b[13] = (tsc >> 16) & 0xff;
	b[14] = (tsc >> 8) & 0xff;
	b[15] = tsc & 0xff;
	c = gen_stamp_check(b);
	b[16] = c >> 8;
	b[17] = c & 0xff;
}

/** Why a payload is not a valid stamp. */
enum gen_stamp_err {
	GEN_STAMP_OK = 0,
	GEN_STAMP_SHORT = -1, /**< Fewer than GEN_STAMP_LEN bytes. */
	GEN_STAMP_MAGIC = -2, /**< Not our magic: someone else's packet. */
	GEN_STAMP_CORRUPT = -3, /**< Our magic, but the check fails. */
};

/** Decode the stamp at b (len bytes available); GEN_STAMP_OK or an error. */
static inline int
gen_stamp_get(const uint8_t *b, uint32_t len, struct gen_stamp *st)
{
	uint16_t magic;

	if (len < GEN_STAMP_LEN)
		return GEN_STAMP_SHORT;
	magic = (uint16_t)(b[0] << 8 | b[1]);
	if (magic != GEN_MAGIC && magic != GEN_MAGIC_WARMUP)
		return GEN_STAMP_MAGIC;
	if (gen_stamp_check(b) != (uint16_t)(b[16] << 8 | b[17]))
		return GEN_STAMP_CORRUPT;
	st->magic = magic;
	st->flow = (uint32_t)b[2] << 24 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 8 | b[5];
	st->seq = (uint32_t)b[6] << 24 | (uint32_t)b[7] << 16 | (uint32_t)b[8] << 8 | b[9];
	st->tsc = (uint64_t)b[10] << 40 | (uint64_t)b[11] << 32 | (uint64_t)b[12] << 24 |
		(uint64_t)b[13] << 16 | (uint64_t)b[14] << 8 | b[15];
	return GEN_STAMP_OK;
}

/**
 * Offset of the L4 payload of an Ethernet frame (one optional 802.1Q/802.1ad
 * tag; IPv4 with options; IPv6 without extension headers; UDP or TCP), or -1
 * when the frame is not one the generator could have sent.
 */
int gen_payload_offset(const uint8_t *frame, uint32_t len);

/* ----------------------------------------------------------------- GTP-U */

/*
 * GTP-U traffic (TS 29.281) for a UPF under test. Session s (0 <= s <
 * sessions) is UE address ue + s, TEID teid_base + s and gNB address
 * gnb + s % n_gnb. Uplink: the generator is the gNB and sends G-PDUs to the
 * N3 address, each with a PDU Session Container (TS 38.415, UL PDU SESSION
 * INFORMATION, the QFI) around an inner IP packet from the UE; the UPF
 * sends the inner packet on, decapsulated. Downlink: the generator is the
 * data network and sends plain IP packets to the UEs; the UPF sends them on
 * encapsulated toward the gNB F-TEID, which the receiver checks.
 */
#define GEN_GTPU_PORT 2152
#define GEN_GTPU_HDR_LEN 8 /**< Flags, type, length, TEID. */
#define GEN_GTPU_OPT_LEN 4 /**< Sequence number, N-PDU number, next extension type. */
#define GEN_GTPU_PSC_LEN 4 /**< PDU Session Container: length 1 (4 octets). */
#define GEN_GTPU_FLAGS_E 0x34 /**< Version 1, PT 1 (GTP), E set; S and PN clear. */
#define GEN_GTPU_GPDU 0xff
#define GEN_GTPU_EXT_PSC 0x85
#define GEN_PSC_DL 0 /**< PDU type of DL PDU SESSION INFORMATION. */
#define GEN_PSC_UL 1 /**< PDU type of UL PDU SESSION INFORMATION. */
#define GEN_GTPU_EXT_MAX 16 /**< Extension headers the receiver walks at most. */
/** What GTP-U with an IPv4 outer header adds to a frame: IPv4, UDP, GTP-U with a PSC. */
#define GEN_GTPU_ENCAP4 (20 + 8 + GEN_GTPU_HDR_LEN + GEN_GTPU_OPT_LEN + GEN_GTPU_PSC_LEN)
/** The same with an IPv6 outer header. */
#define GEN_GTPU_ENCAP6 (GEN_GTPU_ENCAP4 + 20)

enum gen_gtpu_mode {
	GEN_GTPU_NONE, /**< Plain IP both ways. */
	GEN_GTPU_UL, /**< Send G-PDUs to the N3 address; expect plain IP back. */
	GEN_GTPU_DL, /**< Send plain IP to the UEs; expect G-PDUs back. */
};

/** The GTP-U side of a run: what is sent on N3 and expected back from it. */
struct gen_gtpu {
	uint8_t mode; /**< enum gen_gtpu_mode. */
	uint8_t family; /**< Outer IP version: 4 or 6 (of the N3 address). */
	uint8_t qfi; /**< 0-63: sent in the uplink PSC, expected in the downlink's. */
	uint32_t sessions; /**< UEs, TEIDs. */
	uint32_t teid_base; /**< Session s: TEID teid_base + s (the UPF's uplink, the gNB's downlink). */
	uint32_t n_gnb; /**< gNB addresses (>= 1). */
	uint8_t n3_ip[16]; /**< The UPF's N3 address, network order. */
	uint8_t gnb_ip[16]; /**< The first gNB address. */
};

/** What the receiver found around the stamp of a frame (gen_payload_offset_gtpu). */
struct gen_rx_tun {
	bool encap; /**< A G-PDU: the fields below are set. */
	bool has_psc; /**< It carried a PDU Session Container. */
	uint8_t family; /**< Outer IP version. */
	uint8_t pdu_type; /**< The PSC's PDU type (GEN_PSC_DL, GEN_PSC_UL). */
	uint8_t qfi; /**< The PSC's QFI. */
	uint16_t outer_l3; /**< Offset of the outer IP header in the frame. */
	uint32_t teid; /**< Host order. */
};

/**
 * gen_payload_offset, seeing through GTP-U: a UDP datagram to port 2152
 * that holds a G-PDU (version 1, PT 1, a length within the datagram, an
 * extension header chain that ends within it) is followed to the inner
 * IPv4 or IPv6 packet, and the offset returned is that of the inner L4
 * payload, with tun describing the encapsulation. Other frames are parsed
 * as gen_payload_offset does (tun->encap false). -1 when nothing the
 * generator could have sent is there; never reads past len.
 */
int gen_payload_offset_gtpu(const uint8_t *frame, uint32_t len, struct gen_rx_tun *tun);

/**
 * Whether a received frame of flow id flow is in the form the GTP-U mode
 * expects: uplink, not encapsulated (the UPF removed the outer header);
 * downlink, a G-PDU from the N3 address to the session's gNB address with
 * the session's TEID and a DL PDU Session Container carrying the QFI.
 * The session of a flow is its UE digit (gen_flow_tuple: the source
 * offset uplink, the destination offset downlink).
 */
bool gen_gtpu_rx_ok(const struct gen_gtpu *g, const struct gen_flows *fl, uint32_t flow,
		    const uint8_t *frame, const struct gen_rx_tun *tun);

/* --------------------------------------------------------------- packets */

/**
 * Header template: everything a frame has but the per-flow fields. With
 * GTP-U uplink encapsulation (gen_pkt_tmpl_gtpu), l3_off, l4_off and
 * hdr_len are those of the inner packet, and encap_len bytes of outer IP,
 * UDP and GTP-U headers sit between the Ethernet header and it.
 */
struct gen_pkt_tmpl {
	uint8_t family; /**< 4 or 6 (the inner packet's with GTP-U). */
	uint8_t proto; /**< IPPROTO_UDP or IPPROTO_TCP. */
	uint8_t ttl;
	uint8_t dst_mac[6];
	uint8_t src_mac[6];
	uint8_t dst_ip[16]; /**< IPv4 in the first 4 bytes, network order. */
	uint8_t src_ip[16];
	uint16_t dport;
	uint8_t src_pos; /**< Byte of src_ip whose 32 bits the flow's source offset adds to. */
	uint8_t dst_pos; /**< The same for dst_ip (the last 32 bits, but IPv6 UEs: 4). */
	uint16_t eth_type; /**< Network order: the outermost IP version's. */
	uint16_t l3_off; /**< 14, or 14 + encap_len. */
	uint16_t l4_off; /**< l3_off + 20 or 40. */
	uint16_t hdr_len; /**< l4_off + 8 (UDP) or 20 (TCP): where the stamp goes. */
	uint16_t min_frame; /**< hdr_len - encap_len + stamp + FCS, at least 64. */
	uint16_t encap_len; /**< 0, GEN_GTPU_ENCAP4 or GEN_GTPU_ENCAP6. */
	struct gen_gtpu gtpu; /**< mode GEN_GTPU_UL: the encapsulation to write. */
	uint8_t encap[GEN_GTPU_ENCAP6]; /**< Its constant bytes, from offset 14. */
};

/**
 * Set a template. family 4 or 6, proto IPPROTO_UDP or IPPROTO_TCP, addresses
 * in network order (4 or 16 bytes). Computes the offsets and min_frame.
 */
void gen_pkt_tmpl_init(struct gen_pkt_tmpl *t, uint8_t family, uint8_t proto,
		       const uint8_t *dst_mac, const uint8_t *src_mac, const uint8_t *dst_ip,
		       const uint8_t *src_ip, uint16_t dport, uint8_t ttl);

/**
 * Set the GTP-U side of a template gen_pkt_tmpl_init set. Uplink (g->mode
 * GEN_GTPU_UL): every frame becomes a G-PDU from gNB address
 * gnb_ip + s % n_gnb to n3_ip, UDP port 2152 to 2152, TEID teid_base + s,
 * with an UL PDU Session Container carrying g->qfi, where s is the flow's
 * source offset (its UE); frame sizes keep meaning the inner packet's
 * frame, what the UPF sends on after removing the outer header. Both
 * directions: IPv6 UE addresses step by /64 (the offset is added to bits
 * 32-63: a UPF tells IPv6 UEs apart by their /64 prefix).
 */
void gen_pkt_tmpl_gtpu(struct gen_pkt_tmpl *t, const struct gen_gtpu *g);

/**
 * Write the headers of a frame of frame_size bytes (FCS included, >=
 * min_frame) for flow tuple ft and the stamp's id part into buf; returns the
 * number of bytes the frame has in memory (frame_size - FCS, plus encap_len
 * with GTP-U encapsulation). Sets every checksum (the frame is valid once
 * gen_pkt_finish has stamped it). The payload after the stamp must already
 * be zeros (the generator's TX pool is zeroed once and only headers and
 * stamps are ever written into it).
 */
uint16_t gen_pkt_build(const struct gen_pkt_tmpl *t, uint8_t *buf, const struct gen_flow_tuple *ft,
		       uint16_t frame_size, uint16_t magic, uint32_t flow, uint32_t seq);

/**
 * Write the TSC and the check into the stamp of a frame gen_pkt_build wrote.
 * gen_pkt_build already set the L4 checksum: a complete stamp adds the
 * ones'-complement negative zero to it, whatever its TSC (see gen_pkt.c).
 */
void gen_pkt_finish(const struct gen_pkt_tmpl *t, uint8_t *buf, uint64_t tsc);

/* ------------------------------------------------------------ accounting */

/**
 * Per-flow receive state (8 bytes): the highest sequence number seen and a
 * 32-bit window of which of it and the 31 below it were seen (bit k: max-k).
 * win == 0 means nothing received yet. Sequence numbers compare in serial
 * number arithmetic, so they may wrap.
 */
struct gen_flow_rx {
	uint32_t max;
	uint32_t win;
};

#define GEN_SEQ_WINDOW 32

/** What a received sequence number was. */
enum gen_seq_kind {
	GEN_SEQ_NEW, /**< Above every one seen: in order (gaps are losses so far). */
	GEN_SEQ_LATE, /**< Below the highest seen and not seen before: reordered. */
	GEN_SEQ_DUP, /**< Seen before (within the window): a duplicate. */
	GEN_SEQ_LATE_OLD, /**< More than the window below the highest: reordered,
			       * duplicate or not cannot be told. */
};

/** Account sequence number seq of a flow. */
static inline enum gen_seq_kind
gen_seq_account(struct gen_flow_rx *fr, uint32_t seq)
{
	int32_t d;

	if (unlikely(fr->win == 0)) {
		fr->max = seq;
		fr->win = 1;
		return GEN_SEQ_NEW;
	}
	d = (int32_t)(seq - fr->max);
	if (likely(d > 0)) {
		fr->win = d >= GEN_SEQ_WINDOW ? 1 : fr->win << d | 1;
		fr->max = seq;
		return GEN_SEQ_NEW;
	}
	if (d == 0)
		return GEN_SEQ_DUP;
	if (-(int64_t)d >= GEN_SEQ_WINDOW)
		return GEN_SEQ_LATE_OLD;
	if (fr->win & (1u << -d))
		return GEN_SEQ_DUP;
	fr->win |= 1u << -d;
	return GEN_SEQ_LATE;
}

/** Receive counters; single writer (the RX lcore). */
struct gen_rx_counts {
	uint64_t rx; /**< Every packet received. */
	uint64_t stamped; /**< Measured packets with a valid stamp. */
	uint64_t reordered; /**< GEN_SEQ_LATE + GEN_SEQ_LATE_OLD. */
	uint64_t dup; /**< GEN_SEQ_DUP. */
	uint64_t warmup; /**< Valid stamps with GEN_MAGIC_WARMUP. */
	uint64_t foreign; /**< Not our frame or not our magic. */
	uint64_t corrupt; /**< Our magic, bad check, or flow id out of range. */
	uint64_t mismatch; /**< GTP-U: a valid stamp, but not in the expected form. */
	uint64_t bytes; /**< Bytes of every packet, FCS not included. */
};

/**
 * Unique measured packets received: stamped minus duplicates. Loss is the
 * measured packets sent minus this (it counts late-beyond-window duplicates
 * as delivered, the one case the window cannot tell).
 */
static inline uint64_t
gen_rx_unique(const struct gen_rx_counts *c)
{
	return c->stamped - c->dup;
}

/* ---------------------------------------------------------------- search */

/**
 * RFC 2544 section 26.1 style throughput (NDR) search: a binary search over
 * the offered rate for the highest rate whose trial loses at most loss_ratio
 * of what it sent. The first trial runs at hi; the search ends when
 * hi - lo <= precision (pps) or after max_trials trials. Pure state machine:
 * the caller runs the trials.
 */
struct gen_search {
	double loss_ratio; /**< Allowed loss, e.g. 1e-5 for 0.001%. */
	uint64_t lo; /**< Highest rate that passed (0 = none yet). */
	uint64_t hi; /**< Lowest rate that failed, or the upper bound. */
	uint64_t precision;
	unsigned int trials;
	unsigned int max_trials;
	uint64_t rate; /**< Rate of the trial in progress. */
	bool hi_tested; /**< A trial ran at hi (and failed). */
	bool done;
};

/** Search between min_pps (exclusive lower bound, may be 0) and max_pps. */
void gen_search_init(struct gen_search *s, uint64_t min_pps, uint64_t max_pps, double loss_ratio,
		     uint64_t precision, unsigned int max_trials);

/** The rate of the next trial, or 0 when the search is over. */
uint64_t gen_search_next(struct gen_search *s);

/**
 * Result of the trial at the rate gen_search_next returned: tx measured
 * packets sent, rx unique ones received. offered_pps is what the trial
 * actually achieved (a generator that cannot reach the rate lowers hi to it).
 * Returns whether the trial passed.
 */
bool gen_search_result(struct gen_search *s, uint64_t tx, uint64_t rx, uint64_t offered_pps);

/**
 * gen_search_result for a trial in which the PMD refused `refused` of the tx
 * packets at least once (backpressure, see gen_trial_ok).
 */
bool gen_search_result_bp(struct gen_search *s, uint64_t tx, uint64_t rx, uint64_t refused,
			  uint64_t offered_pps);

/** Whether a trial with tx sent and rx received is within loss_ratio. */
bool gen_loss_ok(uint64_t tx, uint64_t rx, double loss_ratio);

/**
 * Whether a trial passes: within loss_ratio both in what was lost and in
 * what the PMD refused at least once on a TX attempt (retried, so never
 * lost here). A refusal means the forwarder's RX ring was full: on a NIC
 * those packets would have been dropped at its RX ring, so backpressure
 * counts against the forwarder exactly as loss does; it never makes a
 * trial "generator-bound".
 */
bool gen_trial_ok(uint64_t tx, uint64_t rx, uint64_t refused, double loss_ratio);

/** Longest trial a --trials line may ask for, seconds. */
#define GEN_TRIAL_MAX_S 3600.0

/**
 * Parse one --trials request line: "RATE DURATION", RATE in pps (0 or "max"
 * for unpaced) and DURATION in seconds (> 0, at most GEN_TRIAL_MAX_S),
 * separated by blanks, nothing after them but blanks and a newline.
 * Returns 0, 1 for an empty or '#' line (nothing to run), -1 when malformed.
 */
int gen_trial_line(const char *line, uint64_t *pps, double *duration_s);

#endif /* LF_GEN_H */
