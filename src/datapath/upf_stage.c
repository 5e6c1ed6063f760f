/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UPF stages (upf_stage.h). Both run the same three passes over a
 * burst: check each packet and build its session key, look the keys up in
 * bulk (the TEID table, lib/upf_teid.h, or the UE table, lib/upf_uetab.h:
 * direct entries, then lock-free rte_hash readers 64 at a time), then for
 * each packet in order find its PDR and apply the FAR, QERs and URRs. A session object
 * is immutable and freed only after every worker has passed a quiescent
 * state (upf.h), so the pointers found in pass 2 stay valid for the burst.
 *
 * Every read of the packet is bounded by its first segment's length:
 * a packet that does not hold what its headers claim is a counted drop.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_meter.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "cksum.h"
#include "gtpu.h"
#include "rewrite_pkt.h"
#include "upf_stage.h"

/*
 * A packet's direction: the index of its counters and gate bits. DIR_DL_TUN
 * is DIR_DL's PDRs matched for a downlink G-PDU over N9 (pdr_match only).
 */
enum { DIR_UL = 0, DIR_DL = 1, DIR_DL_TUN = 2 };

/* What the stages learn of a packet in pass 1. */
struct upf_pkt {
	uint16_t inner_off; /* Offset of the inner (user) IP header. */
	uint16_t inner_len; /* Its total length. */
	uint16_t l4_off; /* Offset of its L4 header; 0 when it has no ports. */
	uint8_t af;
	uint8_t proto;
	uint8_t tos;
	uint8_t qfi; /* From the PDU Session Container; UPF_QFI_NONE without one. */
	uint8_t verdict; /* PKT_* */
	uint8_t pad;
	uint16_t ue_port, remote_port; /* Host order. */
	uint32_t teid; /* Uplink: the local TEID, host order. */
};

#define UPF_QFI_NONE 0xff

enum { PKT_LOOKUP, PKT_REPLY, PKT_DROPPED };

static __rte_always_inline void
upf_drop(struct lf_burst *b, struct rte_mbuf *m, enum upf_drop reason)
{
	LF_STAT_ADD(b->upf_wk->stats.drops[reason], 1);
	lf_burst_drop(b, m, LF_DROP_UPF);
}

/*
 * The inner IP packet at p (avail bytes there, at offset off of the frame):
 * family, length, protocol, ToS and ports (source first; the caller orients
 * them). An IPv6 packet's ports are read only when no extension header
 * comes first. cksum: verify the IPv4 header checksum (the uplink's user
 * packet; parse has checked a downlink packet's already).
 * @return 0 or -1 (malformed).
 */
static __rte_always_inline int
inner_parse(const uint8_t *p, unsigned int avail, unsigned int off, struct upf_pkt *k,
	    const bool cksum)
{
	unsigned int hl, tot;
	const uint8_t *l4;

	if (avail < 1)
		return -1;
	if ((p[0] >> 4) == 4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;

		if (avail < sizeof(*ip))
			return -1;
		hl = (ip->version_ihl & 0xf) * 4u;
		tot = rte_be_to_cpu_16(ip->total_length);
		if (hl < sizeof(*ip) || tot < hl || tot > avail ||
		    (cksum && !lf_ipv4_hdr_ok(ip, hl)))
			return -1;
		k->af = 4;
		k->proto = ip->next_proto_id;
		k->tos = ip->type_of_service;
		/* Only the first fragment carries the ports. */
		if ((ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)) != 0)
			hl = tot;
	} else if ((p[0] >> 4) == 6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)p;

		if (avail < sizeof(*ip))
			return -1;
		hl = sizeof(*ip);
		tot = hl + rte_be_to_cpu_16(ip->payload_len);
		if (tot > avail)
			return -1;
		k->af = 6;
		k->proto = ip->proto;
		k->tos = (uint8_t)(rte_be_to_cpu_32(ip->vtc_flow) >> 20);
	} else {
		return -1;
	}
	k->inner_off = (uint16_t)off;
	k->inner_len = (uint16_t)tot;
	k->l4_off = 0;
	k->ue_port = k->remote_port = 0;
	if ((k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP || k->proto == IPPROTO_SCTP) &&
	    tot >= hl + 4) {
		l4 = p + hl;
		k->l4_off = (uint16_t)(off + hl);
		/* Filled as source/destination here; the caller orients them. */
		k->ue_port = (uint16_t)(l4[0] << 8 | l4[1]);
		k->remote_port = (uint16_t)(l4[2] << 8 | l4[3]);
	}
	return 0;
}

/* Addresses of the inner packet: source and destination. */
static inline const uint8_t *
inner_src(const uint8_t *ip, uint8_t af)
{
	return af == 4 ? ip + offsetof(struct rte_ipv4_hdr, src_addr)
		       : ip + offsetof(struct rte_ipv6_hdr, src_addr);
}

static inline const uint8_t *
inner_dst(const uint8_t *ip, uint8_t af)
{
	return af == 4 ? ip + offsetof(struct rte_ipv4_hdr, dst_addr)
		       : ip + offsetof(struct rte_ipv6_hdr, dst_addr);
}

/* One SDF filter against the packet (ue/remote already oriented). */
static inline bool
sdf_match(const struct upf_sdf *f, const struct upf_pkt *k, const uint8_t *ue,
	  const uint8_t *remote)
{
	if (!f->any_proto && f->proto != k->proto)
		return false;
	if (!upf_prefix_has(&f->remote, k->af, remote) || !upf_prefix_has(&f->ue, k->af, ue))
		return false;
	if (f->has_tos && ((k->tos ^ f->tos) & f->tos_mask) != 0)
		return false;
	if (f->rport_lo != 0 || f->rport_hi != UINT16_MAX || f->uport_lo != 0 ||
	    f->uport_hi != UINT16_MAX) {
		if (k->l4_off == 0)
			return false;
		if (k->remote_port < f->rport_lo || k->remote_port > f->rport_hi ||
		    k->ue_port < f->uport_lo || k->ue_port > f->uport_hi)
			return false;
	}
	return true;
}

/*
 * Whether an IPv6 UE address that is not the PDR's /64 is in its delegated
 * prefix (UPF_PDR_UE6_PFX), a /48 to a /63: the match entry has the prefix
 * with its host bits zero, the whole PDR (read only here) its length.
 */
static inline bool
ue6_in_prefix(const struct upf_sess_dp *s, unsigned int i, const struct upf_pdr_match *p,
	      const uint8_t *ue)
{
	uint64_t a, b;

	if (!(p->flags & UPF_PDR_UE6_PFX))
		return false;
	memcpy(&a, ue, 8);
	memcpy(&b, p->ue6, 8);
	return ((rte_be_to_cpu_64(a) ^ rte_be_to_cpu_64(b)) >> s->pdr[i].ue6_dbits) == 0;
}

/*
 * Whether a UE-side address that is not PDR i's UE address is in one of
 * its framed routes (UPF_PDR_FRAMED): networks behind the UE. Out of line,
 * from pdr_match_framed only.
 */
static __rte_noinline bool
framed_scan(const struct upf_sess_dp *s, unsigned int i, uint8_t af, const uint8_t *ue)
{
	const struct upf_prefix *f = upf_sess_framed(s);
	unsigned int j;

	for (j = 0; j < i; j++)
		f += s->pdr[j].n_framed;
	for (j = 0; j < s->pdr[i].n_framed; j++)
		if (upf_prefix_has(&f[j], af, ue))
			return true;
	return false;
}

/* The first of the session's PDRs of direction dir (upf.h: one group each). */
static inline unsigned int
pdr_first(const struct upf_sess_dp *s, unsigned int dir)
{
	return dir == DIR_UL ? 0 : s->n_pdr_ul;
}

/* One past the last of them; never past n_pdr, as the store counts them. */
static inline unsigned int
pdr_end(const struct upf_sess_dp *s, unsigned int dir)
{
	return dir == DIR_UL ? s->n_pdr_ul : (unsigned int)s->n_pdr_ul + s->n_pdr_dl;
}

/*
 * Whether PDR i's conditions all hold for the packet. Its address
 * condition holds for its UE address and, with framed, for its framed
 * routes; without framed a PDR with routes holds for its UE address alone
 * (the session has none in this direction: pdr_match).
 */
static __rte_always_inline bool
pdr_holds(const struct upf_sess_dp *s, unsigned int i, unsigned int dir, const struct upf_pkt *k,
	  const uint8_t *ue, const uint8_t *remote, bool framed)
{
	const struct upf_pdr_match *p = &s->match[i];
	unsigned int j;

	/* A plain downlink packet has no TEID (dl_check leaves k->teid
	 * unset), so a PDR that names one is not its. */
	if ((p->flags & UPF_PDR_TEID) && (dir == DIR_DL || p->teid != k->teid))
		return false;
	/* A downlink G-PDU over N9 is only such a PDR's. */
	if (dir == DIR_DL_TUN && !(p->flags & UPF_PDR_TEID))
		return false;
	if ((p->flags & UPF_PDR_QFI) && p->qfi != k->qfi)
		return false;
	/* A dual-stack PDR has both: the packet's family decides. */
	if ((p->flags & (UPF_PDR_UE4 | UPF_PDR_UE6 | UPF_PDR_FRAMED)) &&
	    (k->af == 4 ? !(p->flags & UPF_PDR_UE4) || memcmp(ue, &p->ue4, 4) != 0
			: !(p->flags & UPF_PDR_UE6) ||
			     (memcmp(ue, p->ue6, 8) != 0 && !ue6_in_prefix(s, i, p, ue))) &&
	    (!framed || !(p->flags & UPF_PDR_FRAMED) || !framed_scan(s, i, k->af, ue)))
		return false;
	if (p->n_sdf != 0) {
		for (j = 0; j < p->n_sdf; j++)
			if (sdf_match(&s->sdf[p->sdf + j], k, ue, remote))
				return true;
		return false;
	}
	return true;
}

/*
 * pdr_match for a session with framed routes in the packet's direction:
 * the same scan, reading a PDR's routes when its UE address does not
 * match. Out of line: only such sessions' packets come here.
 */
static __rte_noinline int
pdr_match_framed(const struct upf_sess_dp *s, unsigned int dir, const struct upf_pkt *k,
		 const uint8_t *ue, const uint8_t *remote)
{
	const unsigned int end = pdr_end(s, dir);
	unsigned int i;

	for (i = pdr_first(s, dir); i < end; i++)
		if (pdr_holds(s, i, dir, k, ue, remote, true))
			return (int)i;
	return -1;
}

/*
 * The packet's PDR: the first of its direction's, in precedence order, whose
 * conditions all hold, or NULL. The lists are short (a handful of PDRs per
 * session), and a scan of one session's rules does not grow with the
 * number of sessions. The store groups the PDRs by source interface, so
 * every one scanned here is of the packet's direction; DIR_DL_TUN scans
 * the downlink PDRs for a G-PDU that came down N9 (ul_no_pdr). A session
 * with framed routes in the direction (upf_sess_dp.framed_dirs, in the
 * line already read) takes pdr_match_framed instead, so that this loop is
 * what it was before routes: with them in it, even as a deferred second
 * scan, it cost the uplink with 4 PDRs 6-13 cycles/packet (upf-bench.md).
 */
static inline int
pdr_match(const struct upf_sess_dp *s, unsigned int dir, const struct upf_pkt *k, const uint8_t *ue,
	  const uint8_t *remote)
{
	const unsigned int end = pdr_end(s, dir);
	unsigned int i;

	if (unlikely(s->framed_dirs & (dir == DIR_UL ? 1u : 2u)))
		return pdr_match_framed(s, dir, k, ue, remote);
	for (i = pdr_first(s, dir); i < end; i++)
		if (pdr_holds(s, i, dir, k, ue, remote, false))
			return (int)i;
	return -1;
}

/*
 * The PDR's QERs in order, for a packet of len bytes whose direction one
 * of them meters: gate, MBR, QFI of each. Returns UPF_DROP_COUNT to go on,
 * or the drop reason. *qfi: the QFI to mark, from the first QER with one.
 */
static inline unsigned int
qer_meter(struct lf_burst *b, const struct upf_sess_dp *s, unsigned int pi, unsigned int dir,
	  uint32_t len, uint8_t *qfi)
{
	struct upf_wk *wk = b->upf_wk;
	unsigned int i;

	for (i = 0; i < s->match[pi].n_qer; i++) {
		const struct upf_qer_dp *q = &s->qer[s->act[pi].qer[i]];

		if (q->gate & (1u << dir))
			return UPF_DROP_GATE_CLOSED;
		if (q->has_mbr & (1u << dir)) {
			struct upf_meter *mt = &wk->meters[q->meter];
			/* rte_meter only reads the profile; its API is not const. */
			struct rte_meter_trtcm_profile *prof =
				(struct rte_meter_trtcm_profile *)(uintptr_t)q->prof;

			/* A new or changed QER: arm this worker's meters for it. */
			if (unlikely(mt->gen != q->meter_gen)) {
				rte_meter_trtcm_config(&mt->m[0], &prof[0]);
				rte_meter_trtcm_config(&mt->m[1], &prof[1]);
				mt->gen = q->meter_gen;
			}
			if (rte_meter_trtcm_color_blind_check(&mt->m[dir], &prof[dir], b->rx_tsc,
							      len) == RTE_COLOR_RED)
				return UPF_DROP_MBR_EXCEEDED;
		}
		if (*qfi == 0 && q->qfi != 0)
			*qfi = q->qfi;
	}
	return UPF_DROP_COUNT;
}

/*
 * The QERs and URRs of PDR pi for one packet of len bytes: gate, MBR, then
 * the volume counts of what passed. Returns UPF_DROP_COUNT to go on, or the
 * drop reason. *qfi: the QFI to mark (downlink), from the first QER with
 * one. Without an MBR on the direction, the gates and the QFI resolved
 * into the match entry decide as the QERs would, one by one, and the QER
 * array is not read.
 */
static inline unsigned int
qer_urr_apply(struct lf_burst *b, const struct upf_sess_dp *s, unsigned int pi, unsigned int dir,
	      uint32_t len, uint8_t *qfi)
{
	const struct upf_pdr_match *p = &s->match[pi];
	struct upf_wk *wk = b->upf_wk;
	unsigned int i;

	if (unlikely(p->qer_mbr & (1u << dir))) {
		const unsigned int why = qer_meter(b, s, pi, dir, len, qfi);

		if (why != UPF_DROP_COUNT)
			return why;
	} else {
		if (p->qer_gate & (1u << dir))
			return UPF_DROP_GATE_CLOSED;
		*qfi = p->qer_qfi;
	}
	/* The first URR's slot is in the match entry: no act line to read. */
	for (i = 0; i < p->n_urr; i++) {
		struct upf_urr_ctr *c = &wk->urr[i == 0 ? p->urr_slot0 : s->act[pi].urr_slot[i]];

		LF_STAT_ADD(c->bytes[dir], len);
		LF_STAT_ADD(c->pkts[dir], 1);
	}
	return UPF_DROP_COUNT;
}

/* FAR BUFF / NOCP: the frame goes to the control thread, which holds or reports it. */
static inline void
to_ctrl(struct lf_burst *b, struct rte_mbuf *m, const struct upf_sess_dp *s)
{
	m->hash.usr = s->slot;
	m->hash.fdir.hi = b->rx_port;
	if (rte_ring_sp_enqueue(b->upf_wk->to_ctrl, m) != 0) {
		upf_drop(b, m, UPF_DROP_BUFFER_FULL);
		return;
	}
	LF_STAT_ADD(b->upf_wk->stats.buffered, 1);
}

/* The PDR of packet m of session s in direction dir (pdr_match), or -1. */
static inline int
pkt_pdr(const struct rte_mbuf *m, const struct upf_sess_dp *s, unsigned int dir,
	const struct upf_pkt *k)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, k->inner_off);
	const uint8_t *src = inner_src(ip, k->af), *dst = inner_dst(ip, k->af);

	/* The UE is the source of an uplink packet, the destination of a downlink one. */
	return dir == DIR_UL ? pdr_match(s, dir, k, src, dst) : pdr_match(s, dir, k, dst, src);
}

/*
 * A packet of session s in direction dir, of PDR pi (pkt_pdr; -1: none):
 * the FAR, QERs and URRs. Returns the FAR when the packet is to be
 * forwarded (*qfi: what to mark), or NULL when it was dropped (counted) or
 * handed to the control thread.
 */
static __rte_always_inline const struct upf_far_dp *
rules_apply(struct lf_burst *b, struct rte_mbuf *m, const struct upf_sess_dp *s, unsigned int dir,
	    const struct upf_pkt *k, int pi, uint8_t *qfi)
{
	unsigned int apply, why;

	if (pi < 0) {
		upf_drop(b, m, UPF_DROP_NO_PDR);
		return NULL;
	}
	/* The FAR's action from the match entry: the act line is read only
	 * by what needs it (a tunnel to create; upf_sess_dp.act_need). */
	apply = s->match[pi].far_apply;
	if (!(apply & UPF_FAR_FORW)) {
		if (apply & (UPF_FAR_BUFF | UPF_FAR_NOCP))
			to_ctrl(b, m, s);
		else
			upf_drop(b, m, UPF_DROP_FAR_DROP);
		return NULL;
	}
	why = qer_urr_apply(b, s, (unsigned int)pi, dir, k->inner_len, qfi);
	if (why != UPF_DROP_COUNT) {
		upf_drop(b, m, (enum upf_drop)why);
		return NULL;
	}
	return &s->act[pi].fwd;
}

/*
 * The downlink's rules_apply, out of line: inlined into upf_dl_burst it
 * cost the 4-PDR downlink 3 cycles/packet while the uplink, which inlines
 * it, gained 4-5 (upf-bench.md, "rules_apply inlined on the uplink").
 */
static __rte_noinline const struct upf_far_dp *
rules_apply_dl(struct lf_burst *b, struct rte_mbuf *m, const struct upf_sess_dp *s,
	       const struct upf_pkt *k, int pi, uint8_t *qfi)
{
	return rules_apply(b, m, s, DIR_DL, k, pi, qfi);
}

/* Outer UDP checksum of an IPv6 encapsulation (mandatory there). */
static inline void
udp6_cksum(struct rte_ipv6_hdr *ip, struct rte_udp_hdr *udp)
{
	udp->dgram_cksum = 0;
	udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
	if (udp->dgram_cksum == 0)
		udp->dgram_cksum = 0xffff;
}

/* With a QFI to gtpu_encap: its PDU Session Container is uplink-format. */
#define ENCAP_PSC_UL 0x40

/*
 * Encapsulate the IP packet at inner_off (inner_len bytes) in
 * GTP-U/UDP/IP(v4 or v6) to the FAR's peer TEID, with a PDU Session
 * Container carrying qfi when it is not 0: downlink-format (PDU type 0,
 * TS 38.415 5.5.2.1) toward a gNB or down N9, uplink-format (type 1) up
 * N9 where qfi has ENCAP_PSC_UL set (a flag beside the 6-bit QFI rather
 * than another argument: the uplink calls it out of line (gtpu_encap_ool),
 * and an eighth argument would go on the stack). The frame becomes Ethernet
 * (MACs left to rewrite) + outer headers + the inner packet.
 * @return 0, or -1 when the mbuf has no room (headroom) for the headers.
 */
static __rte_always_inline int
gtpu_encap(struct rte_mbuf *m, struct lf_meta *meta, const struct upf_far_dp *far, uint8_t qfi,
	   unsigned int inner_off, unsigned int inner_len, uint8_t type)
{
	const bool v4 = (far->ohc & UPF_OHC_GTPU_UDP_IPV4) != 0;
	const unsigned int ipl = v4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
	const unsigned int gtpl = sizeof(struct gtpu_hdr) + (qfi != 0 ? 8 : 0);
	const unsigned int hdr = RTE_ETHER_HDR_LEN + ipl + sizeof(struct rte_udp_hdr) + gtpl;
	struct rte_ether_hdr *eth;
	struct rte_udp_hdr *udp;
	struct gtpu_hdr *gh;
	uint8_t *p;

	if (hdr > inner_off) {
		if (rte_pktmbuf_prepend(m, (uint16_t)(hdr - inner_off)) == NULL)
			return -1;
	} else if (hdr < inner_off) {
		rte_pktmbuf_adj(m, (uint16_t)(inner_off - hdr));
	}
	if (m->pkt_len > hdr + inner_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - hdr - inner_len));
	p = rte_pktmbuf_mtod(m, uint8_t *);
	eth = (struct rte_ether_hdr *)p;
	eth->ether_type = rte_cpu_to_be_16(v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	udp = (struct rte_udp_hdr *)(p + RTE_ETHER_HDR_LEN + ipl);
	gh = (struct gtpu_hdr *)(udp + 1);
	gh->flags = GTPU_V1 | GTPU_PT | (qfi != 0 ? GTPU_E : 0);
	gh->type = type;
	gh->len = rte_cpu_to_be_16((uint16_t)(gtpl - sizeof(*gh) + inner_len));
	gh->teid = rte_cpu_to_be_32(far->teid);
	if (qfi != 0) {
		uint8_t *o = (uint8_t *)(gh + 1);

		/* Sequence and N-PDU number unused, then the container. */
		o[0] = o[1] = o[2] = 0;
		o[3] = GTPU_EXT_PSC;
		o[4] = 1; /* Length in 4-octet units. */
		/* The type in the high nibble: GTPU_PSC_UL (1) or GTPU_PSC_DL (0). */
		RTE_BUILD_BUG_ON((ENCAP_PSC_UL >> 2) != GTPU_PSC_UL << 4 || GTPU_PSC_DL != 0);
		o[5] = (uint8_t)((qfi & ENCAP_PSC_UL) >> 2);
		o[6] = qfi & GTPU_PSC_QFI_MASK;
		o[7] = GTPU_EXT_NONE;
	}
	if (v4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
		const uint16_t tl =
			rte_cpu_to_be_16((uint16_t)(hdr - RTE_ETHER_HDR_LEN + inner_len));

		/* The FAR's IPv4 and UDP headers, then the lengths and the
		 * checksum: its sum of the rest plus the total length (upf.h). */
		memcpy(ip, far->hdr4, UPF_FAR_HDR4);
		ip->total_length = tl;
		ip->hdr_checksum =
			lf_ipv4_cksum_add_len(((const struct rte_ipv4_hdr *)far->hdr4)->hdr_checksum,
					      tl);
		udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + gtpl + inner_len));
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);

		udp->src_port = rte_cpu_to_be_16(GTPU_PORT);
		udp->dst_port = rte_cpu_to_be_16(GTPU_PORT);
		udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + gtpl + inner_len));
		udp->dgram_cksum = 0;
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = udp->dgram_len;
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = 64;
		memcpy(ip->src_addr, far->src6, 16);
		memcpy(ip->dst_addr, far->peer6, 16);
		udp6_cksum(ip, udp);
	}
	meta->l3_off = RTE_ETHER_HDR_LEN;
	meta->l4_off = (uint16_t)(RTE_ETHER_HDR_LEN + ipl);
	meta->af = v4 ? 4 : 6;
	meta->l4_proto = IPPROTO_UDP;
	meta->flags = LF_META_TTL_DONE;
	return 0;
}

/*
 * gtpu_encap out of line, for the uplink's tunnels (N9, End Markers):
 * inlined there it cost the uplink up to a cycle/packet, while the
 * downlink, which inlines it, gained 2-6 (upf-bench.md, "gtpu_encap
 * inlined on the downlink").
 */
static __rte_noinline int
gtpu_encap_ool(struct rte_mbuf *m, struct lf_meta *meta, const struct upf_far_dp *far, uint8_t qfi,
	       unsigned int inner_off, unsigned int inner_len, uint8_t type)
{
	return gtpu_encap(m, meta, far, qfi, inner_off, inner_len, type);
}

/*
 * Turn a GTP-U packet at its outer IP header into a reply to its sender:
 * addresses swapped, UDP from 2152 to dport, the GTP-U message of gtp_len
 * bytes (already written at the GTP-U offset) as its payload.
 */
static inline void
reply_outer(struct rte_mbuf *m, struct lf_meta *meta, uint16_t dport, unsigned int gtp_len)
{
	uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, meta->l3_off);
	struct rte_udp_hdr *udp = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, meta->l4_off);
	const unsigned int end = meta->l4_off + sizeof(*udp) + gtp_len;
	uint8_t tmp[16];

	if (m->pkt_len > end)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - end));
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->src_port = rte_cpu_to_be_16(GTPU_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + gtp_len));
	udp->dgram_cksum = 0;
	if (meta->af == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;
		const uint32_t a = ip->src_addr;

		ip->src_addr = ip->dst_addr;
		ip->dst_addr = a;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(end - meta->l3_off));
		ip->time_to_live = 64;
		ip->fragment_offset = 0;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		memcpy(tmp, ip->src_addr, 16);
		memcpy(ip->src_addr, ip->dst_addr, 16);
		memcpy(ip->dst_addr, tmp, 16);
		ip->payload_len = udp->dgram_len;
		ip->hop_limits = 64;
		/* Only a header without extensions is replied to (ul_check). */
		udp6_cksum(ip, udp);
	}
	meta->flags = LF_META_TTL_DONE;
}

/* Echo Response (29.281 7.2.2) in place of an Echo Request: its sequence number, Recovery 0. */
static inline void
echo_reply(struct rte_mbuf *m, struct lf_meta *meta, struct gtpu_hdr *gh)
{
	const struct rte_udp_hdr *udp =
		rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, meta->l4_off);
	uint8_t *o = (uint8_t *)(gh + 1);

	gh->flags = GTPU_V1 | GTPU_PT | GTPU_S;
	gh->type = GTPU_ECHO_RESP;
	gh->len = rte_cpu_to_be_16(4 + 2);
	gh->teid = 0;
	/* o[0..1]: the request's sequence number, kept. */
	o[2] = 0;
	o[3] = GTPU_EXT_NONE;
	o[4] = GTPU_IE_RECOVERY;
	o[5] = 0;
	reply_outer(m, meta, rte_be_to_cpu_16(udp->src_port), sizeof(*gh) + 6);
}

/*
 * Error Indication (29.281 7.3.1) in place of a G-PDU for an unknown TEID:
 * TEID Data I with that TEID and the GTP-U Peer Address it was sent to.
 */
static inline void
err_ind_reply(struct rte_mbuf *m, struct lf_meta *meta, struct gtpu_hdr *gh, uint32_t teid)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
	const unsigned int alen = meta->af == 4 ? 4 : 16;
	uint8_t *o = (uint8_t *)(gh + 1);
	uint8_t local[16];

	memcpy(local, inner_dst(l3, meta->af), alen);
	gh->flags = GTPU_V1 | GTPU_PT | GTPU_S;
	gh->type = GTPU_ERR_IND;
	gh->len = rte_cpu_to_be_16((uint16_t)(4 + 5 + 3 + alen));
	gh->teid = 0;
	o[0] = o[1] = o[2] = 0;
	o[3] = GTPU_EXT_NONE;
	o[4] = GTPU_IE_TEID_DATA_I;
	o[5] = (uint8_t)(teid >> 24);
	o[6] = (uint8_t)(teid >> 16);
	o[7] = (uint8_t)(teid >> 8);
	o[8] = (uint8_t)teid;
	o[9] = GTPU_IE_PEER_ADDR;
	o[10] = 0;
	o[11] = (uint8_t)alen;
	memcpy(&o[12], local, alen);
	reply_outer(m, meta, GTPU_PORT, sizeof(*gh) + 12 + alen);
}

/* Make the first segment at least need bytes long (a reply longer than its request). */
static inline int
ensure_len(struct rte_mbuf *m, unsigned int need)
{
	const unsigned int have = rte_pktmbuf_data_len(m);

	if (have >= need)
		return 0;
	if (m->nb_segs != 1 || rte_pktmbuf_append(m, (uint16_t)(need - have)) == NULL)
		return -1;
	return 0;
}

/*
 * Whether the 8 bytes after a GTP-U header with E set are the optional
 * fields and a PDU Session Container alone, as a gNB sends every G-PDU:
 * next type 0x85, a container of one 4-octet unit, no type after it. The
 * loop in ul_check reads that chain the same way, one branch per field.
 */
static inline bool
psc_only(const uint8_t *o)
{
	uint64_t v;

	memcpy(&v, o, sizeof(v));
	/* As a little-endian word: o[3] is bits 24-31, o[4] 32-39, o[7] 56-63. */
	return (rte_le_to_cpu_64(v) & 0xff0000ffff000000ull) ==
		((uint64_t)GTPU_EXT_NONE << 56 | 1ull << 32 | (uint64_t)GTPU_EXT_PSC << 24);
}

/*
 * Pass 1 of the uplink for one packet: a GTP-U message to an N3 address.
 * G-PDUs get their TEID, QFI and inner packet in k (PKT_LOOKUP); an Echo
 * Request becomes its response (PKT_REPLY); everything else is dropped
 * (PKT_DROPPED, counted).
 */
static inline void
ul_check(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta, struct upf_pkt *k)
{
	const unsigned int len = rte_pktmbuf_data_len(m);
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	const struct rte_udp_hdr *udp;
	struct gtpu_hdr *gh;
	unsigned int off, end, udp_len, gtp_end, next, n_ext = 0;

	k->verdict = PKT_DROPPED;
	if (meta->l4_proto != IPPROTO_UDP || meta->l4_off == 0 ||
	    len < meta->l4_off + sizeof(*udp)) {
		upf_drop(b, m, UPF_DROP_NOT_LOCAL);
		return;
	}
	udp = (const struct rte_udp_hdr *)(d + meta->l4_off);
	if (udp->dst_port != rte_cpu_to_be_16(GTPU_PORT)) {
		upf_drop(b, m, UPF_DROP_NOT_LOCAL);
		return;
	}
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	off = meta->l4_off + sizeof(*udp);
	end = meta->l4_off + udp_len;
	if (udp_len < sizeof(*udp) + sizeof(*gh) || end > len) {
		upf_drop(b, m, UPF_DROP_GTPU_MALFORMED);
		return;
	}
	gh = (struct gtpu_hdr *)(d + off);
	if ((gh->flags & (GTPU_VER_MASK | GTPU_PT)) != (GTPU_V1 | GTPU_PT)) {
		upf_drop(b, m, UPF_DROP_GTPU_VERSION);
		return;
	}
	gtp_end = off + sizeof(*gh) + rte_be_to_cpu_16(gh->len);
	if (gtp_end > end) {
		upf_drop(b, m, UPF_DROP_GTPU_MALFORMED);
		return;
	}
	off += sizeof(*gh);
	k->qfi = UPF_QFI_NONE;
	if (gh->flags & GTPU_OPT) {
		if (off + sizeof(struct gtpu_opt) > gtp_end) {
			upf_drop(b, m, UPF_DROP_GTPU_MALFORMED);
			return;
		}
		if ((gh->flags & GTPU_E) && off + 8 <= gtp_end && psc_only(d + off)) {
			/* The common chain in one test: no loop to run. */
			k->qfi = d[off + 6] & GTPU_PSC_QFI_MASK;
			next = GTPU_EXT_NONE;
			off += 8;
		} else {
			next = (gh->flags & GTPU_E) ? d[off + 3] : GTPU_EXT_NONE;
			off += sizeof(struct gtpu_opt);
		}
		/* The extension header chain: each is a length in 4-octet units,
		 * its content, and the next type in its last octet. */
		while (next != GTPU_EXT_NONE) {
			unsigned int elen;

			if (off + 4 > gtp_end || ++n_ext > GTPU_EXT_MAX) {
				upf_drop(b, m, UPF_DROP_GTPU_MALFORMED);
				return;
			}
			elen = d[off] * 4u;
			if (elen == 0 || off + elen > gtp_end) {
				upf_drop(b, m, UPF_DROP_GTPU_MALFORMED);
				return;
			}
			if (next == GTPU_EXT_PSC)
				k->qfi = d[off + 2] & GTPU_PSC_QFI_MASK;
			else if (next & GTPU_EXT_COMPREHENSION_REQUIRED) {
				upf_drop(b, m, UPF_DROP_GTPU_EXT_UNKNOWN);
				return;
			}
			next = d[off + elen - 1];
			off += elen;
		}
	}
	switch (gh->type) {
	case GTPU_GPDU:
		break;
	case GTPU_ECHO_REQ:
		/* A request carries a sequence number to echo (S set), and only
		 * a plain IPv6 header is rebuilt in place. */
		if (!(gh->flags & GTPU_S) ||
		    (meta->af == 6 && meta->l4_off != meta->l3_off + sizeof(struct rte_ipv6_hdr))) {
			upf_drop(b, m, UPF_DROP_GTPU_MALFORMED);
			return;
		}
		if (ensure_len(m, meta->l4_off + sizeof(*udp) + sizeof(*gh) + 6) != 0) {
			upf_drop(b, m, UPF_DROP_NO_HEADROOM);
			return;
		}
		echo_reply(m, meta, gh);
		LF_STAT_ADD(b->upf_wk->stats.echo_replies, 1);
		k->verdict = PKT_REPLY;
		return;
	case GTPU_END_MARKER:
		/* No user packet: looked up by its TEID alone (ul_end_marker). */
		k->teid = rte_be_to_cpu_32(gh->teid);
		k->af = 0;
		k->inner_off = (uint16_t)off;
		k->inner_len = 0;
		k->verdict = PKT_LOOKUP;
		return;
	default:
		upf_drop(b, m, UPF_DROP_GTPU_NOT_GPDU);
		return;
	}
	if (inner_parse(d + off, gtp_end - off, off, k, true) != 0) {
		upf_drop(b, m, UPF_DROP_INNER_MALFORMED);
		return;
	}
	k->teid = rte_be_to_cpu_32(gh->teid);
	k->verdict = PKT_LOOKUP;
}

/* Pass 1 of the downlink for one packet: the IP packet to a UE itself. */
static inline void
dl_check(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta, struct upf_pkt *k,
	 struct upf_ue_key *key)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const unsigned int len = rte_pktmbuf_data_len(m);

	k->verdict = PKT_DROPPED;
	/* Parse checked the header and its checksum; inner_parse gives what
	 * the PDRs match on. */
	if (meta->l3_off >= len ||
	    inner_parse(d + meta->l3_off, len - meta->l3_off, meta->l3_off, k, false) != 0) {
		upf_drop(b, m, UPF_DROP_INNER_MALFORMED);
		return;
	}
	/* Routed here: the UE is the destination, its port the second. */
	RTE_SWAP(k->ue_port, k->remote_port);
	k->qfi = UPF_QFI_NONE;
	memset(key, 0, sizeof(*key));
	key->ni = lf_nh_kind(b->view.nh_table, b->view.nh_count, meta->nh) == LF_KIND_UPF_DL
		? b->view.nh_table[meta->nh].arg
		: 0;
	key->af = k->af;
	memcpy(key->a, inner_dst(d + meta->l3_off, k->af), k->af == 4 ? 4 : 8);
	k->verdict = PKT_LOOKUP;
}

/*
 * An End Marker on a tunnel of session s (29.281 7.3.2, TS 23.501 5.8.2.9):
 * where the tunnel's PDR forwards to another tunnel (an intermediate UPF on
 * N9, or a path switch the SMF set up), the marker goes on down that
 * tunnel after the G-PDUs before it; where this UPF is the anchor, it ends
 * here. Counted either way. Returns whether m goes on.
 */
static inline bool
ul_end_marker(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta,
	      const struct upf_sess_dp *s, const struct upf_pkt *k)
{
	const struct upf_far_dp *far = NULL;
	unsigned int i;

	LF_STAT_ADD(b->upf_wk->stats.end_markers, 1);
	/* The tunnel's PDR: an uplink one, or a downlink one over N9 (an
	 * intermediate UPF relays the anchor's marker toward the gNB). */
	for (i = 0; i < pdr_end(s, DIR_DL); i++) {
		const struct upf_pdr_match *p = &s->match[i];

		if ((p->flags & UPF_PDR_TEID) && p->teid == k->teid) {
			far = &s->act[i].fwd;
			break;
		}
	}
	if (far == NULL || !(far->apply & UPF_FAR_FORW) || far->ohc == 0) {
		upf_drop(b, m, UPF_DROP_END_MARKER);
		return false;
	}
	if (gtpu_encap_ool(m, meta, far, 0, k->inner_off, 0, GTPU_END_MARKER) != 0) {
		upf_drop(b, m, UPF_DROP_NO_HEADROOM);
		return false;
	}
	return true;
}

/* At most this many lines of a direction's match entries, and of its SDF
 * filters, are prefetched (4 PDRs' worth with 3 filters). */
#define PREFETCH_MATCH_LINES 2
#define PREFETCH_SDF_LINES 3

/*
 * The burst's rules, found before the per-packet loop in passes across the
 * burst, each bringing in the lines the next one reads so that the misses
 * of a pass overlap (upf.h has the layout): the sessions' first lines;
 * their direction's match entries and, where the direction needs act lines
 * (act_need), the first PDR's; the SDF filters the scan may read; then the
 * scan itself, which writes each packet's PDR to pi[] (by lookup index, as
 * obj[]) and brings in that PDR's act line when it is not the first and
 * is needed; then the worker's URR counters, the first URR's slot from
 * the match entry. An uplink packet to N6 reads no act line at all.
 */
static inline void
sess_rules(struct lf_burst *b, struct rte_mbuf **pkts, const struct upf_pkt *k, uint16_t n,
	   void *const *obj, unsigned int nk, int16_t *pi, unsigned int dir)
{
	const struct upf_urr_ctr *ctr = b->upf_wk->urr;
	unsigned int i, j, l;

	for (i = 0; i < nk; i++)
		if (obj[i] != NULL)
			rte_prefetch0(obj[i]);
	for (i = 0; i < nk; i++) {
		const struct upf_sess_dp *s = obj[i];
		unsigned int first, len;

		if (s == NULL)
			continue;
		first = pdr_first(s, dir);
		len = pdr_end(s, dir) - first;
		if (len == 0)
			continue;
		len = RTE_MIN(len * (unsigned int)sizeof(struct upf_pdr_match),
			      PREFETCH_MATCH_LINES * (unsigned int)RTE_CACHE_LINE_SIZE);
		for (l = 0; l < len; l += RTE_CACHE_LINE_SIZE)
			rte_prefetch0(RTE_PTR_ADD(&s->match[first], l));
		if (s->act_need & (1u << dir))
			rte_prefetch0(&s->act[first]);
	}
	for (i = 0; i < nk; i++) {
		const struct upf_sess_dp *s = obj[i];
		const struct upf_pdr_match *p, *last;
		unsigned int len;

		if (s == NULL || pdr_first(s, dir) == pdr_end(s, dir))
			continue;
		/* The direction's filters are one run of the sdf array. */
		p = &s->match[pdr_first(s, dir)];
		last = &s->match[pdr_end(s, dir) - 1];
		len = (unsigned int)(last->sdf + last->n_sdf - p->sdf) * sizeof(struct upf_sdf);
		len = RTE_MIN(len, PREFETCH_SDF_LINES * (unsigned int)RTE_CACHE_LINE_SIZE);
		for (l = 0; l < len; l += RTE_CACHE_LINE_SIZE)
			rte_prefetch0(RTE_PTR_ADD(&s->sdf[p->sdf], l));
	}
	for (i = 0, j = 0; i < n; i++) {
		const struct upf_sess_dp *s;

		if (k[i].verdict != PKT_LOOKUP)
			continue;
		s = obj[j];
		pi[j] = -1;
		/* An End Marker (af 0) has no user packet to match. */
		if (s != NULL && k[i].af != 0) {
			pi[j] = (int16_t)pkt_pdr(pkts[i], s, dir, &k[i]);
			if (pi[j] > (int)pdr_first(s, dir) && (s->act_need & (1u << dir)))
				rte_prefetch0(&s->act[pi[j]]);
		}
		j++;
	}
	for (j = 0; j < nk; j++) {
		const struct upf_sess_dp *s = obj[j];
		const struct upf_pdr_match *p;

		if (pi[j] < 0)
			continue;
		p = &s->match[pi[j]];
		if (p->n_urr != 0)
			rte_prefetch0(&ctr[p->urr_slot0]);
		for (l = 1; l < p->n_urr; l++)
			rte_prefetch0(&ctr[s->act[pi[j]].urr_slot[l]]);
	}
}

/*
 * A G-PDU of session s that no uplink PDR takes: downlink over N9 if a
 * CORE PDR with its F-TEID takes it (this UPF an intermediate one, TS
 * 23.501 5.6.4), then the downlink rules and down the gNB's tunnel, as
 * upf_dl_burst sends a packet from N6, counted as downlink; else a no_pdr
 * drop. Returns whether m goes on. Out of line, its lines not prefetched:
 * an anchor's uplink comes here only for a packet no PDR takes.
 */
static __rte_noinline __rte_cold bool
ul_no_pdr(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta, const struct upf_sess_dp *s,
	  const struct upf_pkt *k)
{
	const int pdr = s->n_pdr_dl != 0 ? pkt_pdr(m, s, DIR_DL_TUN, k) : -1;
	const struct upf_far_dp *far;
	uint8_t qfi = 0;

	far = rules_apply_dl(b, m, s, k, pdr, &qfi);
	if (far == NULL)
		return false;
	if (!s->match[pdr].far_tunnel) {
		/* Without a tunnel the packet, to a UE of this UPF, would be
		 * routed here again (as in upf_dl_burst). */
		upf_drop(b, m, UPF_DROP_LOOP);
		return false;
	}
	if (gtpu_encap_ool(m, meta, far, qfi, k->inner_off, k->inner_len, GTPU_GPDU) != 0) {
		upf_drop(b, m, UPF_DROP_NO_HEADROOM);
		return false;
	}
	LF_STAT_ADD(b->upf_wk->stats.dl_pkts, 1);
	LF_STAT_ADD(b->upf_wk->stats.dl_bytes, k->inner_len);
	return true;
}

uint16_t
upf_ul_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	struct upf_pkt k[LF_BURST_MAX];
	const void *keys[LF_BURST_MAX];
	void *obj[LF_BURST_MAX];
	int16_t pi[LF_BURST_MAX];
	uint16_t i, nk = 0, out = 0;
	uint64_t bytes = 0, fwd = 0;

	for (i = 0; i < n; i++) {
		ul_check(b, pkts[i], &b->meta[i], &k[i]);
		if (k[i].verdict == PKT_LOOKUP)
			keys[nk++] = &k[i].teid;
	}
	upf_teid_lookup_bulk(&b->upf->teid, keys, nk, obj);
	sess_rules(b, pkts, k, n, obj, nk, pi, DIR_UL);

	for (i = 0, nk = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct lf_meta *meta = &b->meta[i];
		const struct upf_sess_dp *s;
		const struct upf_far_dp *far;
		uint8_t qfi = 0;
		int pdr;

		if (k[i].verdict == PKT_DROPPED)
			continue;
		if (k[i].verdict == PKT_REPLY) {
			out = lf_burst_keep(b, pkts, i, out);
			continue;
		}
		pdr = pi[nk];
		s = obj[nk++];
		if (s == NULL) {
			/* Unknown TEID: tell the sender of a G-PDU (not of an End
			 * Marker), at a bounded rate. */
			if (k[i].af != 0 && b->upf_err_ind_cycles != 0 &&
			    lf_tsc_due(b->rx_tsc, b->upf_wk->err_ind_tsc, b->upf_err_ind_cycles) &&
			    (meta->af == 4 || meta->l4_off == meta->l3_off + 40) &&
			    ensure_len(m,
				       meta->l4_off + 8 + sizeof(struct gtpu_hdr) + 12 +
					       (meta->af == 4 ? 4 : 16)) == 0) {
				b->upf_wk->err_ind_tsc = b->rx_tsc + b->upf_err_ind_cycles;
				err_ind_reply(m, meta,
					      rte_pktmbuf_mtod_offset(m, struct gtpu_hdr *,
								      meta->l4_off + 8),
					      k[i].teid);
				/* Answered, not dropped: counted as err_ind_sent only. */
				LF_STAT_ADD(b->upf_wk->stats.err_ind_sent, 1);
				out = lf_burst_keep(b, pkts, i, out);
			} else {
				upf_drop(b, m, UPF_DROP_UNKNOWN_TEID);
			}
			continue;
		}
		if (unlikely(k[i].af == 0)) {
			if (ul_end_marker(b, m, meta, s, &k[i]))
				out = lf_burst_keep(b, pkts, i, out);
			continue;
		}
		if (unlikely(pdr < 0)) {
			if (ul_no_pdr(b, m, meta, s, &k[i]))
				out = lf_burst_keep(b, pkts, i, out);
			continue;
		}
		far = rules_apply(b, m, s, DIR_UL, &k[i], pdr, &qfi);
		if (far == NULL)
			continue;
		if (s->match[pdr].far_tunnel) {
			/* N9: on to the next UPF, in a tunnel of its own. */
			if (gtpu_encap_ool(m, meta, far, qfi != 0 ? qfi | ENCAP_PSC_UL : 0,
					   k[i].inner_off, k[i].inner_len, GTPU_GPDU) != 0) {
				upf_drop(b, m, UPF_DROP_NO_HEADROOM);
				continue;
			}
		} else {
			/*
			 * N6: the UE's packet, routed like any other. Its hop is
			 * counted here, so that it is counted once whether it
			 * leaves on N6 or goes back down to another UE of this
			 * UPF (the FIB hands that to the downlink kind, which
			 * does not decrement).
			 */
			uint8_t *inner = rte_pktmbuf_mtod_offset(m, uint8_t *, k[i].inner_off);
			const uint8_t ttl = k[i].af == 4 ? inner[8] : inner[7];
			uint8_t *eth;

			if (ttl <= 1) {
				lf_burst_drop(b, m, LF_DROP_TTL_EXPIRED);
				continue;
			}
			if (k[i].af == 4)
				lf_ipv4_ttl_dec((struct rte_ipv4_hdr *)inner);
			else
				inner[7]--;
			rte_pktmbuf_adj(m, (uint16_t)(k[i].inner_off - RTE_ETHER_HDR_LEN));
			if (m->pkt_len > RTE_ETHER_HDR_LEN + (uint32_t)k[i].inner_len)
				rte_pktmbuf_trim(m,
						 (uint16_t)(m->pkt_len - RTE_ETHER_HDR_LEN -
							    k[i].inner_len));
			eth = rte_pktmbuf_mtod(m, uint8_t *);
			eth[12] = k[i].af == 4 ? 0x08 : 0x86;
			eth[13] = k[i].af == 4 ? 0x00 : 0xdd;
			meta->l3_off = RTE_ETHER_HDR_LEN;
			meta->l4_off = k[i].l4_off
				? (uint16_t)(k[i].l4_off - k[i].inner_off + RTE_ETHER_HDR_LEN)
				: 0;
			meta->af = k[i].af;
			meta->l4_proto = k[i].proto;
			meta->flags = LF_META_TTL_DONE;
		}
		bytes += k[i].inner_len;
		fwd++;
		out = lf_burst_keep(b, pkts, i, out);
	}
	LF_STAT_ADD(b->upf_wk->stats.ul_pkts, fwd);
	LF_STAT_ADD(b->upf_wk->stats.ul_bytes, bytes);
	return out;
}

uint16_t
upf_dl_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	struct upf_pkt k[LF_BURST_MAX];
	struct upf_ue_key key[LF_BURST_MAX];
	const void *keys[LF_BURST_MAX];
	void *obj[LF_BURST_MAX];
	int16_t pi[LF_BURST_MAX];
	uint16_t i, nk = 0, out = 0;
	uint64_t bytes = 0, fwd = 0;

	for (i = 0; i < n; i++) {
		dl_check(b, pkts[i], &b->meta[i], &k[i], &key[i]);
		if (k[i].verdict == PKT_LOOKUP)
			keys[nk++] = &key[i];
	}
	upf_ue_lookup_bulk(&b->upf->ue, keys, nk, obj);
	sess_rules(b, pkts, k, n, obj, nk, pi, DIR_DL);

	for (i = 0, nk = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct lf_meta *meta = &b->meta[i];
		const struct upf_sess_dp *s;
		const struct upf_far_dp *far;
		uint8_t qfi = 0;
		int pdr;

		if (k[i].verdict == PKT_DROPPED)
			continue;
		pdr = pi[nk];
		s = obj[nk++];
		if (s == NULL) {
			upf_drop(b, m, UPF_DROP_UNKNOWN_UE);
			continue;
		}
		far = rules_apply_dl(b, m, s, &k[i], pdr, &qfi);
		if (far == NULL)
			continue;
		if (!s->match[pdr].far_tunnel) {
			/* Forwarding to the UE without a tunnel would route it here again. */
			upf_drop(b, m, UPF_DROP_LOOP);
			continue;
		}
		if (gtpu_encap(m, meta, far, qfi, k[i].inner_off, k[i].inner_len, GTPU_GPDU) != 0) {
			upf_drop(b, m, UPF_DROP_NO_HEADROOM);
			continue;
		}
		bytes += k[i].inner_len;
		fwd++;
		out = lf_burst_keep(b, pkts, i, out);
	}
	LF_STAT_ADD(b->upf_wk->stats.dl_pkts, fwd);
	LF_STAT_ADD(b->upf_wk->stats.dl_bytes, bytes);
	return out;
}
