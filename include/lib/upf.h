/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The UPF's session model (TS 29.244): sessions and their PDR, FAR, QER and
 * URR rules, in two forms.
 *
 * - The control form (struct upf_sess_conf and the *_conf rules) is what the
 *   PFCP agent decodes, keeps per session and edits on a modification. It
 *   lives in the control thread's heap.
 * - The datapath form (struct upf_sess_dp) is what workers read: one
 *   immutable, contiguous object per session, compiled from the control
 *   form by the store (upf_store_*) and published through its TEID table
 *   (lib/upf_teid.h) and its UE table (lib/upf_uetab.h), with lock-free
 *   readers. A modification compiles a new object and swaps it in every
 *   entry that names the session; the old one is freed after an
 *   RCU grace period (the workers' QSBR variable), so no packet ever uses a
 *   removed or superseded rule once the swap is visible, and no worker is
 *   paused or locked.
 *
 * What workers change per packet (URR volume counters, QER meter state) is
 * not in the immutable object: it lives per worker (struct upf_wk), indexed
 * by a slot the store allocates per rule (single writer, no atomics).
 *
 * This header is in lib/: it depends on no datapath or control header.
 */
#ifndef LF_UPF_H
#define LF_UPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_meter.h>

#include "upf_teid.h"
#include "upf_uetab.h"

/* Limits of one session, checked by the agent (Cause 73 / 69 past them). */
#define UPF_MAX_PDR 32
#define UPF_MAX_FAR 32
#define UPF_MAX_QER 8
#define UPF_MAX_URR 8
#define UPF_MAX_SDF 8 /**< SDF filters of one PDR. */
#define UPF_MAX_PDR_QER 2 /**< QERs one PDR names. */
#define UPF_MAX_PDR_URR 2 /**< URRs one PDR names. */
#define UPF_MAX_URR_LINKED 4 /**< Linked URR IDs of one URR (LIUSA). */
/** Framed routes of one PDR (Framed-Route / Framed-IPv6-Route, FRRT). */
#define UPF_MAX_PDR_FRAMED 8
/** Distinct framed routes of one session: its UE table keys beyond the UE addresses. */
#define UPF_MAX_SESS_FRAMED 16
/** The longest IPv6 framed route: the UE table keys IPv6 by its /64. */
#define UPF_FRAMED6_PLEN_MAX 64
#define UPF_MAX_NI 16 /**< Network instances ([network_instance NAME]). */
/**
 * IPv6 prefix delegation bits a UE prefix may have (TS 29.244 8.2.62
 * IPv6D): at most a /48. The UE table holds a delegated prefix as one key
 * (upf_uetab.h).
 */
#define UPF_UE6_DBITS_MAX 16
#define UPF_NI_NONE UINT8_MAX

/** Source / destination interface values (TS 29.244 8.2.2, 8.2.24). */
enum upf_iface {
	UPF_IF_ACCESS = 0,
	UPF_IF_CORE = 1,
	UPF_IF_SGI_LAN = 2, /**< N6-LAN; treated as CORE. */
	UPF_IF_CP = 3,
	UPF_IF_LI = 4,
};

/** An IP address: af 4 (a[0..3], network order) or 6, or 0 for none. */
struct upf_ip {
	uint8_t af;
	uint8_t a[16];
};

/** A prefix: an address with a prefix length (32 / 128 for a host). */
struct upf_prefix {
	uint8_t af; /**< 0: any address. */
	uint8_t plen;
	uint8_t a[16]; /**< Host bits zero. */
};

/*
 * Whether address a (of family af) is in prefix p: its first plen bits
 * are p's. Words compared under a shift: a memcmp of plen / 8 bytes, a
 * length the compiler cannot see, is a call into libc, and the PDR scan
 * makes two per SDF filter. p's length is within its family's (the store
 * checks).
 */
static inline bool
upf_prefix_has(const struct upf_prefix *p, uint8_t af, const uint8_t *a)
{
	const unsigned int plen = p->plen;
	uint64_t x, y;

	if (p->af == 0)
		return true;
	if (p->af != af)
		return false;
	if (af == 4) {
		uint32_t u, v;

		memcpy(&u, a, 4);
		memcpy(&v, p->a, 4);
		/* (A shift by the word's width is undefined: /0 is every address.) */
		return plen == 0 || (rte_be_to_cpu_32(u ^ v) >> (32 - plen)) == 0;
	}
	memcpy(&x, a, 8);
	memcpy(&y, p->a, 8);
	if (plen <= 64)
		return plen == 0 || (rte_be_to_cpu_64(x ^ y) >> (64 - plen)) == 0;
	if (x != y)
		return false;
	memcpy(&x, a + 8, 8);
	memcpy(&y, p->a + 8, 8);
	return (rte_be_to_cpu_64(x ^ y) >> (128 - plen)) == 0;
}

/**
 * The UE table key of framed route f (IPv4, or IPv6 of at most a /64) of
 * instance ni: a prefix key of its length, a /32 or /64 a plain key.
 */
static inline void
upf_framed_key(struct upf_ue_key *k, uint8_t ni, const struct upf_prefix *f)
{
	upf_ue_key_make(k, ni, f->af, f->a, (f->af == 4 ? 32u : 64u) - f->plen);
}

/**
 * One SDF filter, from a Flow Description "permit out PROTO from A [PORTS]
 * to B [PORTS]" (TS 29.244 5.2.1A.2, TS 29.212 5.4.2): written for the
 * downlink, A is the remote side and B the UE. An uplink packet matches with
 * its source as B and its destination as A.
 */
struct upf_sdf {
	uint8_t proto; /**< IPPROTO_*; with any_proto, ignored. */
	bool any_proto; /**< "ip". */
	struct upf_prefix remote; /**< A; af 0 is "any". */
	struct upf_prefix ue; /**< B; af 0 is "any" (also "assigned"). */
	uint16_t rport_lo, rport_hi; /**< Remote ports; 0..65535 when unset. */
	uint16_t uport_lo, uport_hi; /**< UE ports. */
	bool has_tos;
	uint8_t tos, tos_mask; /**< ToS / Traffic Class (TTC IE). */
};

/** PDR (Create PDR, TS 29.244 7.5.2.2). Ids are the PFCP rule ids. */
struct upf_pdr_conf {
	uint16_t id;
	uint32_t precedence; /**< Lower wins. */
	uint8_t src_iface; /**< enum upf_iface. */
	uint8_t ni; /**< Network instance index, or UPF_NI_NONE. */
	bool has_fteid;
	uint32_t teid; /**< Local F-TEID (after CHOOSE: the one allocated). */
	struct upf_ip fteid4, fteid6; /**< Local F-TEID addresses given / chosen. */
	bool fteid_choose; /**< CH flag: the UP allocates the TEID. */
	bool has_choose_id;
	uint8_t choose_id; /**< Same CHOOSE ID in one request: same TEID. */
	struct upf_ip ue4, ue6; /**< UE IP address (af 0: none). */
	/**
	 * IPv6 prefix delegation bits (IPv6D, or IP6PL below 64): ue6 is a
	 * /(64 - ue6_dbits), 0 to UPF_UE6_DBITS_MAX; 0 is the UE's /64.
	 */
	uint8_t ue6_dbits;
	/**
	 * UE IP Address CHOOSE (CHV4 / CHV6) as the request asked it
	 * (UPF_UE_CHOOSE_*), and which of ue4 / ue6 the UP allocated
	 * (kept, so that a later CHOOSE in the session gets the same one).
	 */
	uint8_t ue_choose, ue_chosen;
	/**
	 * Per family (0: IPv4), the pool a CHOOSE takes from: 0 the network
	 * instance's ue_alloc, k its ue_alloc.ID k - 1 (a UE IP address Pool
	 * Identity named it). The agent's; the store does not look.
	 */
	uint8_t ue_pool[2];
	/**
	 * The PDI names a Traffic Endpoint (PDI optimisation): the agent
	 * copies its F-TEID, UE address, network instance and QFI into the
	 * fields above. The agent's; the store does not look.
	 */
	bool has_te;
	uint8_t te_id;
	bool has_qfi;
	uint8_t qfi;
	uint8_t n_framed;
	uint8_t n_sdf;
	struct upf_sdf sdf[UPF_MAX_SDF]; /**< Any one matching suffices. */
	/**
	 * Framed routes (TS 29.244 5.2.1, FRRT): networks behind the UE that
	 * are the session's as its address is. A packet whose UE-side address
	 * (inner source uplink, destination downlink) is in one matches the
	 * PDR's address condition; the core side's are UE table keys, so the
	 * downlink finds the session by them. Host bits zero; IPv6 at most
	 * /UPF_FRAMED6_PLEN_MAX.
	 */
	struct upf_prefix framed[UPF_MAX_PDR_FRAMED];
	bool outer_hdr_removal; /**< GTP-U/UDP/IP removed (uplink). */
	bool has_far;
	uint32_t far_id;
	uint8_t n_qer;
	uint32_t qer_id[UPF_MAX_PDR_QER];
	uint8_t n_urr;
	uint32_t urr_id[UPF_MAX_PDR_URR];
};

#define UPF_UE_CHOOSE4 0x01
#define UPF_UE_CHOOSE6 0x02

/** FAR Apply Action bits (TS 29.244 8.2.26, octet 5). */
#define UPF_FAR_DROP 0x01
#define UPF_FAR_FORW 0x02
#define UPF_FAR_BUFF 0x04
#define UPF_FAR_NOCP 0x08
#define UPF_FAR_DUPL 0x10

/** Outer Header Creation description bits we implement (8.2.56, octet 5). */
#define UPF_OHC_GTPU_UDP_IPV4 0x0100
#define UPF_OHC_GTPU_UDP_IPV6 0x0200

/** FAR (Create FAR, 7.5.2.3). */
struct upf_far_conf {
	uint32_t id;
	uint8_t apply; /**< UPF_FAR_* bits. */
	uint8_t dst_iface; /**< enum upf_iface (Forwarding Parameters). */
	uint8_t ni; /**< Network instance, or UPF_NI_NONE. */
	uint16_t ohc; /**< UPF_OHC_* or 0: no outer header creation. */
	uint32_t ohc_teid;
	struct upf_ip ohc_peer; /**< The gNB's (or peer UPF's) address. */
};

/** QER (Create QER, 7.5.2.5). Rates in kbit/s as PFCP carries them. */
struct upf_qer_conf {
	uint32_t id;
	bool gate_ul_closed, gate_dl_closed;
	uint64_t mbr_ul, mbr_dl; /**< 0: no MBR. */
	uint64_t gbr_ul, gbr_dl; /**< Accepted and reported, not enforced. */
	bool has_qfi;
	uint8_t qfi; /**< Marked on downlink encapsulation. */
};

/** Measurement Method bits (8.2.40). */
#define UPF_MM_DURAT 0x01
#define UPF_MM_VOLUM 0x02

/** Reporting Triggers bits (8.2.41): octet 5 in the low byte, octet 6 next. */
#define UPF_RT_PERIO 0x0001
#define UPF_RT_VOLTH 0x0002
#define UPF_RT_TIMTH 0x0004
#define UPF_RT_QUHTI 0x0008 /**< Quota Holding Time: no traffic for qht_s. */
#define UPF_RT_START 0x0010 /**< Start of traffic. */
#define UPF_RT_DROTH 0x0040 /**< Dropped DL traffic threshold (octet 5 bit 7). */
#define UPF_RT_QUVTI 0x8000 /**< Quota Validity Time (octet 6 bit 8). */
#define UPF_RT_LIUSA 0x0080 /**< Linked usage reporting (octet 5 bit 8). */
#define UPF_RT_VOLQU 0x0100
#define UPF_RT_TIMQU 0x0200

/** Volume Threshold / Quota flags (8.2.13, 8.2.50): which octet counts are set. */
#define UPF_VOL_TOTAL 0x01
#define UPF_VOL_UL 0x02
#define UPF_VOL_DL 0x04

/** A Volume Threshold or Volume Quota: any of total, uplink and downlink octets. */
struct upf_vol {
	uint8_t flags; /**< UPF_VOL_*: at least one. */
	uint64_t total, ul, dl;
};

/** URR (Create URR, 7.5.2.4). */
struct upf_urr_conf {
	uint32_t id;
	uint8_t method; /**< UPF_MM_*. */
	uint16_t triggers; /**< UPF_RT_*. */
	uint32_t period_s; /**< Measurement Period, PERIO. */
	bool has_vol_thresh;
	struct upf_vol vol_thresh; /**< VOLTH: any count it sets reached. */
	bool has_vol_quota;
	struct upf_vol vol_quota; /**< VOLQU: any count it sets used up. */
	bool has_time_thresh;
	uint32_t time_thresh_s; /**< TIMTH. */
	bool has_time_quota;
	uint32_t time_quota_s; /**< TIMQU: seconds of use from when it was given. */
	bool has_qht;
	uint32_t qht_s; /**< QUHTI: Quota Holding Time, seconds without a packet. */
	bool has_qvt;
	uint32_t qvt_s; /**< QUVTI: Quota Validity Time, seconds from when it was given. */
	uint8_t n_linked;
	uint32_t linked[UPF_MAX_URR_LINKED]; /**< LIUSA: report when one of these does. */
	/**
	 * DROTH: Dropped DL Traffic Threshold (8.2.49), the downlink packets
	 * (UPF_DROTH_DLPA) and / or bytes (UPF_DROTH_DLBY) dropped while
	 * buffering (over the buffer's bound, or for a NOCP FAR alone) at
	 * which to report; 0 flags: none.
	 */
	uint8_t droth_flags;
	uint64_t droth_pkts, droth_bytes;
};

#define UPF_DROTH_DLPA 0x01
#define UPF_DROTH_DLBY 0x02

/**
 * A session in control form. The arrays are the agent's (heap, exactly
 * n_* long); the store only reads them.
 */
struct upf_sess_conf {
	uint64_t up_seid; /**< Ours (the F-SEID we gave). */
	uint64_t cp_seid; /**< The SMF's. */
	struct upf_ip cp_ip;
	uint16_t n_pdr, n_far, n_qer, n_urr;
	struct upf_pdr_conf *pdr;
	struct upf_far_conf *far;
	struct upf_qer_conf *qer;
	struct upf_urr_conf *urr;
};

/* ---- Datapath form -------------------------------------------------- */

#define UPF_PDR_TEID 0x01 /**< Match the local TEID. */
#define UPF_PDR_QFI 0x02 /**< Match the QFI of the PDU Session Container. */
#define UPF_PDR_UE4 0x04 /**< Match the UE IPv4 address (inner src UL, dst DL). */
#define UPF_PDR_UE6 0x08 /**< Match the UE IPv6 address (/64 prefix). */
#define UPF_PDR_OHR 0x10 /**< Remove the outer header. */
/** ue6 is a delegated prefix: upf_pdr_dp.ue6_dbits says how short. */
#define UPF_PDR_UE6_PFX 0x20
/** Framed routes: the address is also the PDR's when in one (upf_sess_framed()). */
#define UPF_PDR_FRAMED 0x40

#define UPF_IDX_NONE UINT16_MAX

/** A compiled FAR. */
struct upf_far_dp {
	uint32_t id;
	uint8_t apply; /**< UPF_FAR_* bits. */
	uint8_t dst_iface;
	uint16_t ohc; /**< UPF_OHC_GTPU_UDP_IPV4 / _IPV6 or 0. */
	uint32_t teid; /**< Outer TEID, host order. */
	uint32_t peer4; /**< Network order. */
	uint32_t src4; /**< Our N3 address (network order), the outer source. */
	union {
		/** GTP-U/UDP/IPv6 creation: the peer and our N3 address. */
		struct {
			uint8_t peer6[16];
			uint8_t src6[16];
		};
		/**
		 * GTP-U/UDP/IPv4 creation: the outer IPv4 and UDP headers
		 * (UPF_FAR_HDR4 bytes) as the packet gets them, but with the
		 * IPv4 total length and the UDP length 0 and, in the IPv4
		 * checksum field, the ones' complement sum of the rest
		 * (folded, not inverted): the encapsulation copies them and
		 * adds the length to the sum (built by upf_store.c's
		 * far_hdr4()). Valid when ohc has UPF_OHC_GTPU_UDP_IPV4.
		 */
		uint8_t hdr4[32];
	};
};

/** Bytes of upf_far_dp.hdr4 that are a header: IPv4 (20) and UDP (8). */
#define UPF_FAR_HDR4 28

/**
 * A compiled PDR, whole: what telemetry and the control side read. Rule
 * references are indexes into the session object. A packet reads the same
 * PDR's upf_pdr_match and upf_pdr_act instead.
 */
struct upf_pdr_dp {
	uint32_t precedence;
	uint16_t id;
	uint8_t src_iface; /**< As given, but UPF_IF_SGI_LAN is UPF_IF_CORE. */
	uint8_t flags; /**< UPF_PDR_*. */
	uint32_t teid;
	uint32_t ue4; /**< Network order. */
	uint8_t ue6[8]; /**< The UE's /64, or its delegated prefix (host bits zero). */
	uint8_t ue6_dbits; /**< As upf_pdr_conf.ue6_dbits. */
	uint8_t qfi;
	uint8_t n_sdf;
	/** Its framed routes: the session's framed array holds each PDR's in
	 * turn, so the first is the sum of the PDRs' before it (read only on
	 * the framed path). In what was padding: the struct keeps its size. */
	uint8_t n_framed;
	uint16_t sdf; /**< First of n_sdf in the session's sdf array. */
	uint16_t far; /**< Index in the session's far array (always valid). */
	uint8_t n_qer, n_urr;
	uint16_t qer[UPF_MAX_PDR_QER];
	uint16_t urr[UPF_MAX_PDR_URR];
};

/**
 * What the scan reads of a PDR: its conditions, and its QERs' gates and
 * QFI resolved (with no MBR on the packet's direction, the QERs decide
 * nothing else). 32 bytes: a session's match entries are an array of their
 * own, two to a line, so that a scan of 4 PDRs reads 2 lines.
 */
struct upf_pdr_match {
	uint8_t flags; /**< UPF_PDR_*. */
	uint8_t qfi;
	uint8_t n_sdf;
	uint8_t n_urr;
	uint8_t n_qer;
	uint8_t qer_gate; /**< Bit per direction (1 << DIR): any of its QERs closed. */
	uint8_t qer_mbr; /**< Bit per direction: any of its QERs meters. */
	uint8_t qer_qfi; /**< First QFI its QERs mark; 0: none. */
	uint16_t sdf; /**< First of n_sdf in the session's sdf array. */
	/* What a packet needs of the act line when it is not encapsulated
	 * (uplink to N6): the FAR's action, whether it creates a tunnel, and
	 * the first URR's counter slot. Such a packet does not read the act
	 * line unless the PDR meters or has a second URR (upf_sess_dp.act_need). */
	uint8_t far_apply; /**< act.fwd.apply. */
	uint8_t far_tunnel; /**< act.fwd.ohc != 0. */
	uint32_t teid;
	uint32_t ue4; /**< Network order. */
	/** The UE's /64; a delegated prefix's first (UPF_PDR_UE6_PFX). */
	uint8_t ue6[8];
	uint32_t urr_slot0; /**< act.urr_slot[0]. */
};

/**
 * What a packet of a PDR needs once matched, in one line of its own: a
 * copy of the FAR, the QERs (for the MBR path) and the URR counter slots.
 * Sessions are recompiled whole on every change (upf_sess_dp), so the
 * copy cannot go stale.
 */
struct upf_pdr_act {
	struct upf_far_dp fwd; /**< far[upf_pdr_dp.far]. */
	uint16_t qer[UPF_MAX_PDR_QER]; /**< As upf_pdr_dp.qer. */
	uint32_t urr_slot[UPF_MAX_PDR_URR]; /**< Counter slots (upf_wk.urr) of its URRs. */
} __rte_cache_aligned;

/** A compiled QER. */
struct upf_qer_dp {
	uint32_t id;
	uint8_t gate; /**< Bit 0: uplink closed; bit 1: downlink closed. */
	uint8_t qfi; /**< 0: none to mark. */
	uint8_t has_mbr; /**< Bit 0: uplink MBR, bit 1: downlink MBR. */
	uint8_t pad;
	uint32_t meter; /**< Meter slot (upf_wk.meters), both directions: 2 per slot. */
	uint32_t meter_gen; /**< The worker re-arms its meter state when this changes. */
	struct rte_meter_trtcm_profile prof[2]; /**< [0] uplink, [1] downlink. */
};

/** A compiled URR: only its counter slot is per packet. */
struct upf_urr_dp {
	uint32_t id;
	uint32_t slot; /**< Counter slot (upf_wk.urr). */
};

/**
 * One session's compiled rules, immutable once published. pdr[] (and
 * match[] and act[], index for index) holds the PDRs in groups by source
 * interface, each group sorted by precedence (ascending; equal precedences
 * in the order given), so that a packet scans only its own direction's,
 * and the first PDR there whose every condition holds is the packet's:
 *
 * - [0, n_pdr_ul): ACCESS, the uplink's;
 * - [n_pdr_ul, n_pdr_ul + n_pdr_dl): CORE and SGI_LAN, the downlink's;
 * - the rest, up to n_pdr: any other source interface (CP-function), which
 *   no packet of the datapath matches.
 *
 * A packet reads the first line of this struct (upf_store.c checks that
 * the fields before up_seid fit in it), its direction's match entries,
 * then the matched PDR's act line and its URR counters: 4 lines with one
 * PDR per direction, the SDF filters on top when they are scanned. An
 * uplink packet to N6 skips the act line (upf_pdr_match, act_need): 3.
 */
struct upf_sess_dp {
	/* The packet's. */
	uint8_t n_pdr_ul; /**< Uplink PDRs, from index 0. */
	uint8_t n_pdr_dl; /**< Downlink PDRs, from index n_pdr_ul. */
	uint16_t n_pdr;
	uint32_t slot; /**< Session slot (0..max_sessions-1). */
	const struct upf_pdr_match *match;
	const struct upf_pdr_act *act;
	const struct upf_sdf *sdf;
	const struct upf_qer_dp *qer;
	/**
	 * Bit per direction (1 << 0 uplink, 1 << 1 downlink): some PDR of it
	 * needs its act line (a tunnel to create, an MBR, a second URR), so
	 * the worker fetches act lines for its packets; an uplink to N6 alone
	 * does without them (upf_pdr_match).
	 */
	uint8_t act_need;
	/**
	 * Bit 0: some uplink PDR has framed routes; bit 1: some downlink PDR.
	 * A packet of such a direction takes the scan that reads them
	 * (upf_stage.c), the others one that does not.
	 */
	uint8_t framed_dirs;
	/* The control side's and telemetry's. */
	uint64_t up_seid;
	uint16_t n_far, n_qer, n_urr, n_sdf;
	const struct upf_pdr_dp *pdr;
	const struct upf_far_dp *far;
	const struct upf_urr_dp *urr;
	/* The arrays follow in the same allocation. */
};

/**
 * The session's framed routes, each PDR's in turn (upf_pdr_dp.n_framed):
 * right after its SDF filters, so that neither a field of this header nor
 * a byte of a session without routes pays for them. A packet reads them
 * only when its address is not its PDR's UE address (UPF_PDR_FRAMED).
 */
static inline const struct upf_prefix *
upf_sess_framed(const struct upf_sess_dp *s)
{
	return (const struct upf_prefix *)
		RTE_PTR_ADD(s->sdf, RTE_ALIGN((size_t)s->n_sdf * sizeof(struct upf_sdf), 8));
}

/** Volume counters of one URR slot on one worker; single writer. */
struct upf_urr_ctr {
	uint64_t bytes[2]; /**< [0] uplink, [1] downlink. */
	uint64_t pkts[2];
};

/** Meter state of one QER slot on one worker. */
struct upf_meter {
	struct rte_meter_trtcm m[2]; /**< [0] uplink, [1] downlink. */
	uint32_t gen; /**< upf_qer_dp.meter_gen it was armed for; 0: never. */
};

/**
 * UPF drop reasons (counted per worker, in struct upf_wk): each defined
 * once, yielding the enum and the telemetry names.
 */
#define UPF_DROP_REASONS(X)                                                            \
	X(GTPU_MALFORMED, "gtpu_malformed") /* Header, length or ext chain. */         \
	X(GTPU_VERSION, "gtpu_version") /* Not GTPv1 / PT=0. */                        \
	X(GTPU_EXT_UNKNOWN, "gtpu_ext_unknown") /* Comprehension required. */          \
	X(GTPU_NOT_GPDU, "gtpu_not_gpdu") /* A message type we do not take. */         \
	X(INNER_MALFORMED, "inner_malformed") /* The user's IP packet. */              \
	X(UNKNOWN_TEID, "unknown_teid")                                                \
	X(UNKNOWN_UE, "unknown_ue")                                                    \
	X(NO_PDR, "no_pdr") /* Session found, no PDR matched. */                       \
	X(FAR_DROP, "far_drop")                                                        \
	X(GATE_CLOSED, "gate_closed")                                                  \
	X(MBR_EXCEEDED, "mbr_exceeded")                                                \
	X(BUFFER_FULL, "buffer_full") /* Over [upf] buffer_packets. */                 \
	X(BUFFER_DISCARD, "buffer_discard") /* Not kept (NOCP alone, session gone). */ \
	X(NOT_LOCAL, "not_local") /* To an N3 address, not GTP-U. */                   \
	X(LOOP, "loop") /* Would re-enter the UPF (e.g. UE to UE). */                  \
	X(END_MARKER, "end_marker") /* Ended here: this UPF anchors it. */             \
	X(NO_HEADROOM, "no_headroom")

enum upf_drop {
#define X(e, s) UPF_DROP_##e,
	UPF_DROP_REASONS(X)
#undef X
		UPF_DROP_COUNT
};

extern const char *const upf_drop_names[UPF_DROP_COUNT];

/** What one worker counts for the UPF; single writer, read by telemetry. */
struct upf_wk_stats {
	uint64_t ul_pkts, ul_bytes; /**< Uplink forwarded (after decap). */
	uint64_t dl_pkts, dl_bytes; /**< Downlink forwarded (after encap). */
	uint64_t echo_replies;
	uint64_t err_ind_sent;
	uint64_t end_markers;
	uint64_t buffered; /**< Handed to the control thread (BUFF). */
	uint64_t drops[UPF_DROP_COUNT];
};

struct rte_ring;

/**
 * mbuf.hash.usr of a packet the control thread hands back on from_ctrl not
 * to send but to count as a drop (its hash.fdir.hi: the enum upf_drop).
 * Other packets there are released buffers (hash.usr: their session slot).
 */
#define UPF_CTRL_DISCARD UINT32_MAX

/** One worker's mutable UPF state. Only that worker writes it. */
struct upf_wk {
	struct upf_wk_stats stats;
	struct upf_urr_ctr *urr; /**< [max_urrs]. */
	struct upf_meter *meters; /**< [max_qers]. */
	/**
	 * Packets the worker hands to the control thread (single producer,
	 * single consumer): BUFF / NOCP downlink packets, GTP-U signalling it
	 * does not answer itself (Error Indication from peers).
	 */
	struct rte_ring *to_ctrl;
	/**
	 * Packets the control thread hands back: released buffers to run
	 * through the pipeline again, and discards to count (UPF_CTRL_DISCARD).
	 */
	struct rte_ring *from_ctrl;
	uint64_t err_ind_tsc; /**< Token bucket for Error Indications: next allowed. */
} __rte_cache_aligned;

/* ---- The store ------------------------------------------------------ */

/** Sizes, from [upf]. */
struct upf_store_params {
	uint32_t max_sessions;
	uint32_t max_urrs; /**< Counter slots, all sessions. */
	uint32_t max_qers; /**< Meter slots, all sessions. */
	unsigned int n_workers;
	int socket;
	struct rte_rcu_qsbr *qsv; /**< The workers' QSBR variable. */
	uint32_t n3_ipv4; /**< Our N3 address, network order (0: none): FAR outer source. */
	uint8_t n3_ipv6[16]; /**< All zero: none. */
	uint32_t ring_size; /**< upf_wk rings. */
	/** The UE table's direct ranges (upf_uetab.h): upf_store_ue_dirs(). */
	unsigned int n_ue_dir;
	struct upf_ue_dir_conf ue_dir[UPF_UE_DIR_NI];
};

struct lf_upf_conf;
/**
 * The UE table's direct ranges of an [upf] configuration into p: each
 * network instance's first IPv4 ue_alloc prefix of /UPF_UE_DIR_MIN_PLEN
 * or longer, the addresses CHOOSE hands out first.
 */
void upf_store_ue_dirs(struct upf_store_params *p, const struct lf_upf_conf *u);

/** The store: the lookup tables workers read, and what the control side owns. */
struct upf_store {
	struct upf_teid_tab teid; /**< TEID (host order) -> struct upf_sess_dp *. */
	struct upf_ue_tab ue; /**< struct upf_ue_key -> struct upf_sess_dp *. */
	struct upf_wk *wk; /**< [n_workers]. */
	struct upf_store_params p;
	void *priv; /**< Slot allocators, session index, RCU defer queue. */
};

/** Create the store; NULL with err set on failure (nothing left allocated). */
struct upf_store *upf_store_create(const struct upf_store_params *p, char *err, size_t errlen);
void upf_store_free(struct upf_store *s);

/**
 * Publish a session: compile c into a new datapath object and install its
 * TEIDs and UE addresses, replacing the object of the same up_seid if one
 * exists (a modification). All or nothing: on error nothing changes.
 * TEIDs and UE addresses the old object had and the new one does not are
 * removed. Rule slots (URR counters, QER meters) of rules that keep their
 * id are kept, so counts carry over a modification.
 * @return 0, or -ENOSPC (no slot), -EEXIST (a TEID or UE address that
 *         another session holds), -EINVAL (a PDR names a FAR, QER or URR
 *         id the session does not have) with err saying which.
 */
int upf_store_put(struct upf_store *s, const struct upf_sess_conf *c, char *err, size_t errlen);

/** Remove a session. The old object is freed after a grace period. */
int upf_store_del(struct upf_store *s, uint64_t up_seid);

/** Usage of one URR of a session, summed over the workers, since the session began. */
struct upf_usage {
	uint64_t bytes[2], pkts[2]; /**< [0] uplink, [1] downlink. */
};
int upf_store_usage(const struct upf_store *s, uint64_t up_seid, uint32_t urr_id,
		    struct upf_usage *u);

/**
 * The order of c's PDRs in the compiled object (struct upf_sess_dp.pdr):
 * the uplink's, the downlink's, then the others, each group by precedence,
 * equal ones as c gives them. order[i] is the index in c->pdr of the i-th
 * (the first UPF_MAX_PDR of them); *n_ul and *n_dl, where not NULL, get
 * the sizes of the first two groups. Any thread: it only reads c.
 */
void upf_pdr_order(const struct upf_sess_conf *c, uint8_t order[UPF_MAX_PDR], unsigned int *n_ul,
		   unsigned int *n_dl);

/** The published object of a session (control thread only), or NULL. */
const struct upf_sess_dp *upf_store_get(const struct upf_store *s, uint64_t up_seid);

/** up_seid of the session holding slot now, or 0 if none (control thread). */
uint64_t upf_store_slot_seid(const struct upf_store *s, uint32_t slot);

/** Sessions, and rule slots in use. */
struct upf_store_counts {
	uint32_t sessions, pdrs, fars, qers, urrs;
	uint64_t bytes; /**< Datapath objects and tables, for memory per session. */
	/** Hugepage heap the session objects hold: their slab blocks, kept
	 * for reuse when sessions go, and objects too large for the slab. */
	uint64_t held_bytes;
};
void upf_store_counts(const struct upf_store *s, struct upf_store_counts *c);

/** Reclaim what the grace period allows; call from the control thread now and then. */
void upf_store_reclaim(struct upf_store *s);

#endif /* LF_UPF_H */
