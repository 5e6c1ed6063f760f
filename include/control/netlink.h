/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Routes and neighbours from the kernel ([netlink], libmnl): lanefwd follows
 * the kernel's routing table [netlink] table for the interfaces it mirrors
 * (each [port]'s exception_if: its TAP, or for exception = kernel its AF_XDP
 * interface), so that a routing daemon (FRR, BIRD) that installs routes in
 * the kernel routes lanefwd's data plane too (docs/control-plane.md).
 *
 * RTM_NEWROUTE/DELROUTE become single route changes of the FIB in force,
 * published to the workers under RCU without rebuilding the table;
 * RTM_NEWNEIGH/DELNEIGH feed neigh.h; addresses are logged and checked. A
 * full resync (dump) runs at start and after the socket overflows
 * (ENOBUFS). Routes from the route files and from the kernel coexist:
 * [netlink] priority says whose wins on the same prefix.
 */
#ifndef LF_NETLINK_H
#define LF_NETLINK_H

#include <stddef.h>

struct lf_app;
struct lf_tables;

/** Open the socket, dump, start the thread; telemetry /lanefwd/netlink. */
int netlink_start(struct lf_app *a, char *err, size_t errlen);

/** Stop the thread and close the socket. Safe if never started. */
void netlink_stop(struct lf_app *a);

/**
 * A reload built t from the files (under ctl_lock, before it is
 * published): add the kernel's routes to it.
 * @return 0, or -errno with err set (the reload then fails whole).
 */
int netlink_tables_fill(struct lf_app *a, struct lf_tables *t, char *err, size_t errlen);

#endif /* LF_NETLINK_H */
