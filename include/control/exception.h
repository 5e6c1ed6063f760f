/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The exception path to the kernel ([port] exception, docs/control-plane.md):
 *
 * - tap: lanefwd creates a net_tap port per such port (lf_app.ports after
 *   the configured ones), named exception_if, with the port's MAC, its
 *   addresses and MTU, up. The workers send it what is addressed to the
 *   router and not answered by the data plane; worker 0 polls it and sends
 *   what the kernel sends out of the mirrored port.
 * - kernel: an AF_XDP port whose own interface is the mirror. lanefwd's XDP
 *   program (bpf/lanefwd_xdp.c, loaded through the PMD's xdp_prog=) passes
 *   to the kernel stack what is addressed to the port's addresses and
 *   redirects the rest to the XSK socket; the addresses are put on the
 *   interface.
 */
#ifndef LF_EXCEPTION_H
#define LF_EXCEPTION_H

#include <stddef.h>

struct lf_app;

/**
 * mbufs each RX queue of a TAP mirror holds: net_tap reads a frame into a
 * chain of this many segments, and one holds any frame up to the largest
 * MTU (port_pools_create sizes data room for it); the second is slack.
 * port_pools_create counts them.
 */
#define LF_EXC_RX_DESC 2

/**
 * Once the configured ports run (main.c, after port_init_all): creates and
 * starts a net_tap mirror per exception = tap port, port index
 * cfg.n_ports + i, with the port's MAC and MTU and one TX queue per worker
 * (and as many RX queues, net_tap needs equal counts; the kernel is made to
 * send on queue 0 only, the one worker 0 polls). Fills lf_app.n_exc,
 * exc_of[] and exc_port[] (LF_NH_INVALID for every other port, exception =
 * kernel ones included: their kernel side is their own interface).
 * @return 0, or -errno with err naming the port and interface.
 */
int exception_ports_create(struct lf_app *a, char *err, size_t errlen);

/**
 * Once the workers run: each mirror's kernel side over rtnetlink: MTU, up,
 * every [port] address with its prefix length (IPv4 with its subnet
 * broadcast, IPv6 without DAD). Idempotent: a second call changes nothing.
 * @return 0, or -errno with err naming the port and interface.
 */
int exception_kernel_setup(struct lf_app *a, char *err, size_t errlen);

/** Stop, close and remove the mirrors: their kernel interfaces go with them. */
void exception_free(struct lf_app *a);

#endif /* LF_EXCEPTION_H */
