/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The neighbour code's core (neigh.c), apart from its thread, rings, mbufs
 * and tables so that tests drive it with a fake clock and fake outputs: the
 * ARP / ND parsers and builders on plain bytes, and the state machine
 * (RFC 4861 7.3.2 states for both families). neigh.h is the contract the
 * rest of lanefwd uses; this header is for neigh.c and its unit test.
 */
#ifndef LF_NEIGH_CORE_H
#define LF_NEIGH_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "config.h"
#include "neigh.h"

/** The neighbour code's counters, as telemetry names them. */
#define NEIGH_COUNTERS(X)                                                                  \
	X(ARP_REQ_IN, "arp_requests_in")                                                   \
	X(ARP_REP_IN, "arp_replies_in")                                                    \
	X(ARP_REQ_OUT, "arp_requests_out")                                                 \
	X(ARP_REP_OUT, "arp_replies_out")                                                  \
	X(NS_IN, "ns_in")                                                                  \
	X(NA_IN, "na_in")                                                                  \
	X(NS_OUT, "ns_out")                                                                \
	X(NA_OUT, "na_out")                                                                \
	X(RS_RA_IN, "rs_ra_in") /* Router solicitations/advertisements (to the mirror). */ \
	X(REDIRECT_IN, "redirect_in") /* ICMPv6 redirects: a router ignores them. */       \
	X(RESOLVED, "resolved") /* A neighbour we solicited got a usable MAC. */           \
	X(LEARNT, "learnt") /* A new one learnt from its request, NS, or the kernel. */    \
	X(FAILED, "failed") /* Resolution or a probe ran out of retries. */                \
	X(HELD, "held") /* Packets queued for an unresolved neighbour. */                  \
	X(HELD_DROPPED, "held_dropped") /* Past queue_packets, failed, or no next hop. */  \
	X(RELEASED, "released") /* Held packets handed back to worker 0 (rerun). */        \
	X(SPOOF_REFUSED, "spoof_refused") /* A MAC change the state machine refused. */    \
	X(MAC_CHANGED, "mac_changed") /* A MAC change accepted. */                         \
	X(CONFLICT, "address_conflict") /* Someone else claims one of our addresses. */    \
	X(MALFORMED, "malformed") /* Bad length, field, hop limit, checksum, option. */    \
	X(IGNORED, "ignored") /* Well formed, but not for us and no entry to refresh. */   \
	X(TABLE_FULL, "table_full") /* No entry free and none unused to age out. */        \
	X(MIRRORED, "mirrored") /* Copies handed to the port's kernel mirror. */           \
	X(NO_MIRROR, "no_mirror") /* RS/RA/redirect dropped: the port has no mirror. */    \
	X(TX_FAILED, "tx_failed") /* No mbuf, or worker 0's ring was full. */              \
	X(KERNEL_ASKED, "kernel_requests") /* Resolutions asked of the kernel (NTF_USE). */

enum neigh_counter {
#define X(e, s) NEIGH_C_##e,
	NEIGH_COUNTERS(X)
#undef X
		NEIGH_C_COUNT
};

extern const char *const neigh_counter_names[NEIGH_C_COUNT];
extern const char *const neigh_state_names[LF_NEIGH_STATE_COUNT];

/** One port as the core sees it. */
struct neigh_port {
	struct rte_ether_addr mac;
	unsigned int n_addrs; /**< addr[]: the [port] addresses, then its IPv6 link-local. */
	struct lf_ip_addr addr[LF_PORT_MAX_ADDRS + 1];
	/** Port index of its kernel TAP mirror, or UINT16_MAX. */
	uint16_t mirror;
	/** exception = kernel: the kernel resolves (neigh_ops.kernel_resolve), not us. */
	bool kernel;
};

struct neigh_params {
	uint32_t max_entries;
	uint32_t reachable_ms;
	uint32_t retrans_ms;
	uint32_t retries;
	uint32_t queue_packets;
	uint32_t nh_limit; /**< Next-hop ids bound are below it. */
};

/** What the core does to the world; u is neigh_core_create's user pointer. */
struct neigh_ops {
	/** Send a frame out of port index port; false if it could not. */
	bool (*send)(void *u, uint16_t port, const uint8_t *frame, uint16_t len);
	/** Hand a held packet back to the data plane (rerun). */
	bool (*release)(void *u, void *pkt);
	/** Free a held packet. */
	void (*drop)(void *u, void *pkt);
	/**
	 * Next hop nh: unresolved (dst NULL) or out of port with dst and src.
	 * @return false when the tables in force have no such next hop.
	 */
	bool (*nh_set)(void *u, uint32_t nh, uint16_t port, const struct rte_ether_addr *dst,
		       const struct rte_ether_addr *src);
	/** exception = kernel ports: ask the kernel to resolve ip (NULL: never asked). */
	void (*kernel_resolve)(void *u, uint16_t port, uint8_t af, const uint8_t *ip);
};

struct neigh_core;

/** @return the core, or NULL (out of memory). */
struct neigh_core *neigh_core_create(const struct neigh_params *prm, const struct neigh_port *ports,
				     unsigned int n_ports, const struct neigh_ops *ops, void *u);
/** Free it and drop what it holds. NULL allowed. */
void neigh_core_free(struct neigh_core *c);

/** An ARP frame or ND message (the whole Ethernet frame) that came in on port. */
void neigh_core_input(struct neigh_core *c, uint16_t port, const uint8_t *frame, uint32_t len,
		      uint64_t now_ms);
/** A packet held for next hop nh: the core owns pkt from now on. */
void neigh_core_held(struct neigh_core *c, uint32_t nh, void *pkt, uint64_t now_ms);
/** Retransmissions, ageing, probes: call every few milliseconds. */
void neigh_core_timer(struct neigh_core *c, uint64_t now_ms);
/** Gratuitous ARP and unsolicited NA for every address of every port. */
void neigh_core_announce(struct neigh_core *c);

/**
 * Resolve next hop nh as neighbour ip on port (src: the source MAC to
 * write with it). Starts resolving at once. @return 0 or -ENOSPC.
 */
int neigh_core_bind(struct neigh_core *c, uint32_t nh, uint16_t port, uint8_t af, const uint8_t *ip,
		    const struct rte_ether_addr *src, uint64_t now_ms);
/** Stop resolving next hop nh (its entry stays, unused, until aged out). */
void neigh_core_unbind(struct neigh_core *c, uint32_t nh);
/** Whether nh is bound, and to which (port, af, ip). */
bool neigh_core_bound(const struct neigh_core *c, uint32_t nh, uint16_t *port, uint8_t *af,
		      uint8_t *ip);
/** Write every bound next hop again (another table generation). */
void neigh_core_republish(struct neigh_core *c);

int neigh_core_learn(struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip,
		     const struct rte_ether_addr *mac, bool permanent, uint64_t now_ms);
void neigh_core_forget(struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip);

/** A neighbour as telemetry and tests see it. */
struct neigh_view {
	uint16_t port;
	uint8_t af;
	uint8_t ip[16];
	enum lf_neigh_state state;
	bool has_mac;
	struct rte_ether_addr mac;
	uint64_t age_ms; /**< Since it was last confirmed or learnt. */
	uint32_t held; /**< Packets waiting for it. */
	uint32_t refs; /**< Next hops bound to it. */
};

/** @return whether (port, af, ip) has an entry; *v filled. */
bool neigh_core_lookup(const struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip,
		       uint64_t now_ms, struct neigh_view *v);
/** Call fn for each entry (at most max); @return entries in the table. */
uint32_t neigh_core_walk(const struct neigh_core *c, uint64_t now_ms, uint32_t max,
			 void (*fn)(void *arg, const struct neigh_view *v), void *arg);
const uint64_t *neigh_core_counters(const struct neigh_core *c);
/** Count an event the caller saw (a deferred send that failed). */
void neigh_core_count(struct neigh_core *c, enum neigh_counter what);

/* ---- Wire formats (RFC 826, RFC 4861), on plain bytes ---- */

#define NEIGH_ARP_FRAME_LEN 60 /**< An ARP frame padded to the Ethernet minimum. */
#define NEIGH_ND_FRAME_LEN 86 /**< NS or NA with one link-layer address option. */

/** Build an ARP frame (op 1 request, 2 reply) into f; @return its length (NEIGH_ARP_FRAME_LEN). */
uint16_t neigh_arp_build(uint8_t *f, const struct rte_ether_addr *eth_dst,
			 const struct rte_ether_addr *eth_src, uint16_t op,
			 const struct rte_ether_addr *sha, const uint8_t *spa,
			 const struct rte_ether_addr *tha, const uint8_t *tpa);

/**
 * Build an NS (type 135) or NA (136) into f (>= NEIGH_ND_FRAME_LEN), with a
 * source (NS) or target (NA) link-layer address option unless lla is NULL.
 * na_flags: the NA's R, S, O bits (0x80, 0x40, 0x20). @return its length.
 */
uint16_t neigh_nd_build(uint8_t *f, const struct rte_ether_addr *eth_dst,
			const struct rte_ether_addr *eth_src, const uint8_t *src,
			const uint8_t *dst, uint8_t type, uint8_t na_flags, const uint8_t *target,
			const struct rte_ether_addr *lla);

/** A parsed ARP frame. */
struct neigh_arp {
	uint16_t op;
	struct rte_ether_addr sha, tha;
	uint8_t spa[4], tpa[4];
};

/** @return 0, or -EINVAL for a frame that is not a well-formed Ethernet/IPv4 ARP. */
int neigh_arp_parse(const uint8_t *f, uint32_t len, struct neigh_arp *a);

/** A parsed ND message. */
struct neigh_nd {
	uint8_t type; /**< 133-137. */
	uint8_t flags; /**< NA: R, S, O. */
	uint8_t src[16], dst[16];
	uint8_t target[16]; /**< NS, NA (and redirect). */
	bool has_lla; /**< Source (NS, RS, RA) or target (NA) link-layer address option. */
	struct rte_ether_addr lla;
	struct rte_ether_addr eth_src;
};

/**
 * Parse and check an ND message (RFC 4861 6.1, 7.1): IPv6 next header 58
 * directly, hop limit 255, code 0, checksum, lengths, options (none of
 * length 0, none past the end). @return 0, or -EINVAL.
 */
int neigh_nd_parse(const uint8_t *f, uint32_t len, struct neigh_nd *nd);

/** Solicited-node multicast address of ip (ff02::1:ffXX:XXXX), and its MAC. */
void neigh_solicited_node(const uint8_t *ip, uint8_t *snm, struct rte_ether_addr *mac);

/** The modified EUI-64 link-local address of mac (RFC 4291 appendix A). */
void neigh_link_local(const struct rte_ether_addr *mac, uint8_t *ip);

#endif /* LF_NEIGH_CORE_H */
