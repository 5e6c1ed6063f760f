/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Neighbours: ARP (RFC 826) and IPv6 ND (RFC 4861), run by a control thread
 * off the workers' fast path (docs/control-plane.md).
 *
 * What reaches it: the workers' NEIGH kind puts ARP frames, ND messages
 * (ICMPv6 133-137) and packets held for an unresolved next hop on each
 * worker's lf_burst.to_ctrl ring, tagged (dp.h LF_CTRL_*). What it sends:
 * frames it builds (replies, requests, solicitations, gratuitous ARP,
 * unsolicited NA) and held packets released go on worker 0's from_ctrl
 * ring (LF_CTRL_TX, LF_CTRL_RERUN).
 *
 * Next hops: a [nexthop] with via and no mac, and a next hop netlink asks
 * for (neigh_nh_get), starts unresolved: its lf_nh entry has no output port
 * and kind LF_KIND_NEIGH, so the workers hold its packets here. Once
 * resolved, the entry gets the MAC and then (release store) the port. A MAC
 * that changes, or a neighbour that fails, first takes the port away
 * (kind NEIGH again), waits for the workers' RCU grace period, then writes
 * the new MAC: no worker ever sends with a torn or stale MAC. Entries of
 * the current generation are written under app->ctl_lock; a reload fills
 * the new generation (neigh_tables_fill) before it is published.
 */
#ifndef LF_NEIGH_H
#define LF_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

struct lf_app;
struct lf_tables;

/** Neighbour states (RFC 4861 7.3.2), as telemetry names them. */
#define LF_NEIGH_STATES(X)          \
	X(INCOMPLETE, "incomplete") \
	X(REACHABLE, "reachable")   \
	X(STALE, "stale")           \
	X(PROBE, "probe")           \
	X(FAILED, "failed")         \
	X(PERMANENT, "permanent") /* static: [nexthop] mac, or the kernel's NUD_PERMANENT */

enum lf_neigh_state {
#define X(e, s) LF_NEIGH_##e,
	LF_NEIGH_STATES(X)
#undef X
		LF_NEIGH_STATE_COUNT
};

/**
 * Start the neighbour code: its table ([neighbour] max_entries), the
 * [nexthop] via entries, its thread (polls the rings about every 100 us,
 * runs the timers), gratuitous ARP / unsolicited NA for every port address
 * when [neighbour] gratuitous, and telemetry /lanefwd/neigh. After the
 * workers are created with their rings, before or after they launch.
 * @return 0, or -errno with err set.
 */
int neigh_start(struct lf_app *a, char *err, size_t errlen);

/** Stop the thread and free everything (held packets too). Safe if never started. */
void neigh_stop(struct lf_app *a);

/**
 * A reload is about to publish t (under ctl_lock): give its via next hops
 * the MACs resolved so far (unresolved ones stay kind NEIGH), and its
 * netlink next hops theirs.
 */
void neigh_tables_fill(struct lf_app *a, struct lf_tables *t);

/**
 * A neighbour learnt elsewhere (netlink: the kernel's RTM_NEWNEIGH on a
 * mirrored interface). permanent: the kernel's NUD_PERMANENT/NOARP.
 * @return 0, or -ENOSPC when the table is full (counted).
 */
int neigh_learn(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *ip,
		const struct rte_ether_addr *mac, bool permanent);

/** The kernel deleted a neighbour (RTM_DELNEIGH): forget a learnt one. */
void neigh_forget(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *ip);

/**
 * A next-hop id for gateway gw on port (netlink routes), resolved like a
 * [nexthop] via; one id per (port, af, gw), reference-counted. Ids come
 * from the tables' dynamic range (lf_tables.dyn_base, dyn_count).
 * @return 0 with *nh set, or -ENOSPC.
 */
int neigh_nh_get(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *gw, uint32_t *nh);

/** Drop a reference neigh_nh_get() gave. */
void neigh_nh_put(struct lf_app *a, uint32_t nh);

#endif /* LF_NEIGH_H */
