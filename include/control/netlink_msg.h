/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What netlink.c reads of the kernel's rtnetlink messages, apart from the
 * socket and the tables so that it can be tested on messages built by hand
 * (tests/unit/test_netlink.c).
 */
#ifndef LF_NETLINK_MSG_H
#define LF_NETLINK_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/netlink.h>

/** Why a kernel route is not followed (telemetry /lanefwd/netlink "ignored"). */
#define LF_NL_IGNORES(X)                                                               \
	X(FAMILY, "family") /* Neither IPv4 nor IPv6. */                               \
	X(TABLE, "table") /* Another table than [netlink] table. */                    \
	X(TYPE, "type") /* Not unicast: blackhole, unreachable, local, multicast... */ \
	X(CLONED, "cloned") /* A cache entry (RTM_F_CLONED), not a route. */           \
	X(INTERFACE, "interface") /* Its next hop is on an interface not mirrored. */  \
	X(CONNECTED, "connected") /* No gateway: the port's own subnet. */             \
	X(PROTOCOL, "protocol") /* Made by the kernel (proto kernel, redirect). */     \
	X(VIA_FAMILY, "via_family") /* An IPv4 route via an IPv6 gateway (RTA_VIA). */ \
	X(MAX_ROUTES, "max_routes") /* [netlink] max_routes held already. */           \
	X(MALFORMED, "malformed") /* Attributes that do not parse. */

enum lf_nl_ignore {
	LF_NL_OK = -1,
#define X(e, s) LF_NL_IGN_##e,
	LF_NL_IGNORES(X)
#undef X
		LF_NL_IGN_COUNT
};

extern const char *const lf_nl_ignore_names[LF_NL_IGN_COUNT];

/** A route message (RTM_NEWROUTE, RTM_DELROUTE), as read. */
struct lf_nl_route {
	uint8_t af; /**< 4 or 6; 0 for another family. */
	uint8_t depth;
	uint8_t type; /**< RTN_*. */
	uint8_t protocol; /**< RTPROT_*. */
	uint8_t scope;
	bool cloned;
	bool has_gw;
	bool gw_other_family; /**< RTA_VIA of another family than the route's. */
	uint32_t table; /**< RTA_TABLE, else rtm_table. */
	uint32_t oif; /**< Of the first next hop; 0 if none. */
	uint32_t metric; /**< RTA_PRIORITY, 0 if none. */
	unsigned int n_nexthops; /**< 1, or how many RTA_MULTIPATH lists. */
	uint8_t dst[16]; /**< Network order, host bits cleared. */
	uint8_t gw[16]; /**< Of the first next hop, network order. */
};

/**
 * Read a route message.
 * @return 0, or -EINVAL for a truncated or malformed one.
 */
int nl_route_parse(const struct nlmsghdr *nlh, struct lf_nl_route *r);

/**
 * Whether lanefwd follows the route, apart from its interface (that is the
 * caller's, which knows the mirrored interfaces): LF_NL_OK or a reason.
 */
enum lf_nl_ignore nl_route_check(const struct lf_nl_route *r, uint32_t table);

/** A neighbour message (RTM_NEWNEIGH, RTM_DELNEIGH). */
struct lf_nl_neigh {
	uint8_t af; /**< 4 or 6; 0 for another family (bridge FDB...). */
	bool has_lladdr;
	uint16_t state; /**< NUD_*. */
	uint32_t ifindex;
	uint8_t ip[16];
	uint8_t lladdr[6];
};

/** @return 0, or -EINVAL. */
int nl_neigh_parse(const struct nlmsghdr *nlh, struct lf_nl_neigh *n);

/**
 * What a RTM_NEWNEIGH says to do: 1 learn (a usable state with a unicast
 * MAC), 0 ignore (incomplete, failed, none, a multicast MAC). *permanent:
 * NUD_PERMANENT or NUD_NOARP.
 */
int nl_neigh_usable(const struct lf_nl_neigh *n, bool *permanent);

/** A link message (RTM_NEWLINK, RTM_DELLINK). */
struct lf_nl_link {
	uint32_t ifindex;
	uint32_t flags; /**< IFF_*. */
	char name[16]; /**< "" if absent. */
};

/** @return 0, or -EINVAL. */
int nl_link_parse(const struct nlmsghdr *nlh, struct lf_nl_link *l);

/** An address message (RTM_NEWADDR, RTM_DELADDR). */
struct lf_nl_addr {
	uint8_t af;
	uint8_t plen;
	uint32_t ifindex;
	uint8_t addr[16];
};

/** @return 0, or -EINVAL. */
int nl_addr_parse(const struct nlmsghdr *nlh, struct lf_nl_addr *ad);

#endif /* LF_NETLINK_MSG_H */
