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
 * Before the configured ports start: the devargs of the TAP mirrors
 * (probed with rte_dev_probe), and the xdp_prog= of exception = kernel
 * ports. Fills lf_app.n_exc, exc_of[] and exc_port[] (port.c calls it).
 * @return 0, or -errno with err naming the port.
 */
int exception_ports_create(struct lf_app *a, char *err, size_t errlen);

/**
 * Once the ports run: each mirror's kernel side (addresses, MTU, up) and
 * the XDP program's address map.
 * @return 0, or -errno with err naming the port and interface.
 */
int exception_kernel_setup(struct lf_app *a, char *err, size_t errlen);

/** Undo the kernel side (addresses put on an AF_XDP interface) and close the mirrors. */
void exception_free(struct lf_app *a);

#endif /* LF_EXCEPTION_H */
