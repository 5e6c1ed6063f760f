/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What lanefwd's XDP program (bpf/lanefwd_xdp.c) and its loader side
 * (xdp.c) share: the program's name, its maps' names, the address key and
 * the counters. Plain C on <linux/types.h> only: clang -target bpf compiles
 * it as well.
 */
#ifndef LF_XDP_ABI_H
#define LF_XDP_ABI_H

#include <linux/types.h>

/** The program's name as the kernel reports it (bpf_prog_info.name, 15 characters at most). */
#define LF_XDP_PROG_NAME "lanefwd_xdp"
/**
 * The XSKMAP the DPDK AF_XDP PMD fills with its sockets, keyed by queue
 * index: the PMD looks it up by this name (drivers/net/af_xdp, xdp_prog=).
 */
#define LF_XDP_XSKS_MAP "xsks_map"
/** Queue indexes the XSKMAP holds: start_queue + queue_count must stay below. */
#define LF_XDP_MAX_QUEUES 256
/** The hash of addresses whose packets go to the kernel (lf_xdp_addr_key). */
#define LF_XDP_ADDRS_MAP "lf_local_addrs"
/**
 * Addresses that map holds: every [port] address of the exception = kernel
 * ports (LF_MAX_PORTS x LF_PORT_MAX_ADDRS), and per port its link-local and
 * its subnets' broadcasts, with room to spare.
 */
#define LF_XDP_MAX_ADDRS 1024
/** The per-CPU counters (enum lf_xdp_stat). */
#define LF_XDP_STATS_MAP "lf_xdp_stats"

/** An address, IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d), network order. */
struct lf_xdp_addr_key {
	__u8 a[16];
};

/**
 * What the program did with a frame, one per-CPU __u64 each: X(ENUM, name).
 * - PASS_ARP: ARP, to the kernel, which answers and learns;
 * - PASS_ND: ICMPv6 133-137 (RS, RA, NS, NA, redirect), to the kernel;
 * - PASS_LOCAL: to an address of the map, 224.0.0.0/24, ff02::/16 or
 *   255.255.255.255, to the kernel;
 * - REDIRECT: to lanefwd's socket of the receiving queue;
 * - DROP_NO_XSK: lanefwd has no socket on the receiving queue: dropped.
 */
#define LF_XDP_STATS(X)             \
	X(PASS_ARP, "pass_arp")     \
	X(PASS_ND, "pass_nd")       \
	X(PASS_LOCAL, "pass_local") \
	X(REDIRECT, "redirect")     \
	X(DROP_NO_XSK, "drop_no_xsk")

enum lf_xdp_stat {
#define LF_XDP_STAT_ENUM(e, n) LF_XDP_##e,
	LF_XDP_STATS(LF_XDP_STAT_ENUM)
#undef LF_XDP_STAT_ENUM
		LF_XDP_STAT_COUNT
};

#endif /* LF_XDP_ABI_H */
