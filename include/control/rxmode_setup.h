/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Setting up the workers' rx modes ([worker N] rx_mode) on the control
 * thread, and refusing, at start, a mode a port's driver or the CPU cannot
 * do: the error names the port, the queue, the mode and why. Each check is
 * a probe of what DPDK offers, not a list of driver names:
 *   interrupt, hybrid  rte_eth_dev_rx_intr_ctl_q() on the queue (the port
 *                      configured with intr_conf.rxq);
 *   pmd-mgmt monitor   rte_cpu_get_intrinsics_support() (x86: WAITPKG) and
 *                      rte_eth_get_monitor_addr() on the queue;
 *   pmd-mgmt scale     a cpufreq driver rte_power can drive, then
 *                      rte_power_ethdev_pmgmt_queue_enable()'s own checks;
 *   pmd-mgmt pause     any CPU (TPAUSE with WAITPKG, else rte_pause()).
 */
#ifndef LF_RXMODE_SETUP_H
#define LF_RXMODE_SETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "lanefwd.h"

/** Does port p need intr_conf.rxq (an interrupt or hybrid worker polls one of its queues)? */
bool rxmode_port_needs_intr(const struct lf_config *cfg, unsigned int p);

/**
 * pmd-mgmt: enable rte_power_pmd_mgmt on the queues of port p that
 * pmd-mgmt workers poll. Between queue setup and rte_eth_dev_start: the
 * library wants the queues stopped, and each queue bound to the one lcore
 * that polls it, every queue of an lcore in the same scheme.
 * @return 0, or -errno with err naming port, queue, mode and why.
 */
int rxmode_port_pmgmt_enable(struct lf_app *a, unsigned int p, char *err, size_t errlen);

/** Undo rxmode_port_pmgmt_enable once port p is stopped. */
void rxmode_port_pmgmt_disable(struct lf_app *a, unsigned int p);

/**
 * interrupt, hybrid: each worker's epoll set of its queues' event fds, and
 * what each queue needs armed. After the ports started and the workers
 * exist (their kernel mirror queues included: those are served at least
 * every sleep_max_us, not woken on); sets w->rxm for every worker.
 * @return 0, or -errno with err naming port, queue, mode and why.
 */
int rxmode_workers_setup(struct lf_app *a, char *err, size_t errlen);

/** Close the workers' epoll fds (after the ports are closed). */
void rxmode_workers_free(struct lf_app *a);

#endif /* LF_RXMODE_SETUP_H */
