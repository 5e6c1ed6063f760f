/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * [port] exception = kernel: an AF_XDP port's own kernel interface is its
 * exception path (docs/exception-path.md). The AF_XDP PMD loads lanefwd's
 * XDP program (bpf/lanefwd_xdp.c, the xdp_prog= devarg config_eal_args()
 * adds), which passes to the kernel stack ARP, ND and what is addressed to
 * the router, and redirects the rest to lanefwd's sockets. Here, once the
 * ports run: the program's address map is filled and the port's addresses
 * are put on the interface, so that the kernel answers for them; at exit
 * the addresses lanefwd added are taken off again.
 */
#ifndef LF_XDP_H
#define LF_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xdp_abi.h"

struct lf_app;
struct lf_ip_addr;

/**
 * For each exception = kernel port: find lanefwd's program attached to its
 * interface (exception_if) and the maps it uses, fill lf_local_addrs with
 * the router's addresses on those ports (every such port's, as Linux
 * accepts any of its addresses on any interface) and this port's
 * link-local and subnet broadcasts, and add the port's addresses to the
 * interface (rtnetlink; IPv6 without DAD). Call once the ports have
 * started (the PMD attaches the program when it sets up the queues).
 * @return 0, or -errno with err naming the port and interface.
 */
int xdp_kernel_setup(struct lf_app *a, char *err, size_t errlen);

/**
 * Log each port's program counters, take off the interfaces the addresses
 * xdp_kernel_setup() added (not those that were there before) and close
 * the map descriptors. Safe if setup never ran or failed half-way.
 */
void xdp_kernel_free(struct lf_app *a);

/**
 * The program's counters on configured port p, summed over the CPUs.
 * @return 0, or -ENOENT when p is not an exception = kernel port set up.
 */
int xdp_kernel_stats(unsigned int p, uint64_t st[LF_XDP_STAT_COUNT]);

/** Names of enum lf_xdp_stat, for logs and telemetry. */
extern const char *const lf_xdp_stat_names[LF_XDP_STAT_COUNT];

/**
 * Add (RTM_NEWADDR, create-exclusive) or remove (RTM_DELADDR) an address of
 * a kernel interface; IPv4 with its subnet broadcast, IPv6 without DAD.
 * @return 0, -EEXIST when adding one that is there already, or -errno with
 *         err saying what the kernel refused.
 */
int lf_if_addr_change(int ifindex, const struct lf_ip_addr *ad, bool add, char *err, size_t errlen);

#endif /* LF_XDP_H */
