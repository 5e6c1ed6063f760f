/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The workers' rx modes on the control thread (rxmode_setup.h): probe what
 * each port's driver and the CPU can do, refuse a mode they cannot, and set
 * up what the worker waits on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_power.h>
#include <rte_power_pmd_mgmt.h>
#include <rte_power_intrinsics.h>

#include "lf_log.h"
#include "rxmode_setup.h"

static bool
mode_sleeps(enum lf_rx_mode m)
{
	return m == LF_RX_INTERRUPT || m == LF_RX_HYBRID;
}

bool
rxmode_port_needs_intr(const struct lf_config *cfg, unsigned int p)
{
	unsigned int i, k;

	for (i = 0; i < cfg->n_workers; i++)
		for (k = 0; k < cfg->workers[i].n_rxq && mode_sleeps(cfg->workers[i].rx_mode); k++)
			if (cfg->workers[i].rxq[k].port == p)
				return true;
	return false;
}

/* "FILE: [worker N] rx_mode = M: port P queue Q (driver D): WHY". */
static int __rte_format_printf(7, 8)
	refuse(const struct lf_app *a, const struct lf_worker_conf *wc, unsigned int p,
	       unsigned int q, char *err, size_t errlen, const char *fmt, ...)
{
	char why[LF_ERR_LEN / 2], mode[48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (wc->rx_mode == LF_RX_PMD_MGMT)
		snprintf(mode, sizeof(mode), "pmd-mgmt, pmd_mgmt = %s",
			 lf_pmd_mgmt_names[wc->pmd_mgmt]);
	else
		snprintf(mode, sizeof(mode), "%s", lf_rx_mode_names[wc->rx_mode]);
	snprintf(err, errlen, "%s: [%s] rx_mode = %s: port %s queue %u (driver %s): %s",
		 a->cfg.path, wc->section, mode, a->cfg.ports[p].name, q, a->ports[p].driver, why);
	return -ENOTSUP;
}

static const enum rte_power_pmd_mgmt_type pmgmt_type[LF_PMGMT_COUNT] = {
	[LF_PMGMT_PAUSE] = RTE_POWER_MGMT_TYPE_PAUSE,
	[LF_PMGMT_MONITOR] = RTE_POWER_MGMT_TYPE_MONITOR,
	[LF_PMGMT_SCALE] = RTE_POWER_MGMT_TYPE_SCALE,
};

/* What the CPU or the driver lacks for this scheme on this queue, or NULL. */
static const char *
pmgmt_lacks(const struct lf_worker_conf *wc, uint16_t port_id, uint16_t q)
{
	struct rte_power_monitor_cond pmc;
	struct rte_cpu_intrinsics in;

	switch (wc->pmd_mgmt) {
	case LF_PMGMT_MONITOR:
		rte_cpu_get_intrinsics_support(&in);
		if (!in.power_monitor)
			return "the CPU cannot wait on a memory address (rte_cpu_get_intrinsics_support: no power_monitor; on x86 that needs WAITPKG, UMONITOR/UMWAIT); use pmd_mgmt = pause";
		if (wc->n_rxq > 1 && !in.power_monitor_multi)
			return "the CPU cannot monitor several queues at once (no power_monitor_multi: WAITPKG and RTM); give the worker one queue or use pmd_mgmt = pause";
		if (rte_eth_get_monitor_addr(port_id, q, &pmc) == -ENOTSUP)
			return "the driver has no monitor address for its RX ring (rte_eth_get_monitor_addr: not supported); use pmd_mgmt = pause";
		return NULL;
	case LF_PMGMT_SCALE:
		if (rte_power_check_env_supported(PM_ENV_ACPI_CPUFREQ) != 1 &&
		    rte_power_check_env_supported(PM_ENV_PSTATE_CPUFREQ) != 1 &&
		    rte_power_check_env_supported(PM_ENV_CPPC_CPUFREQ) != 1)
			return "no cpufreq driver rte_power can drive (acpi-cpufreq, intel_pstate or cppc_cpufreq under /sys/devices/system/cpu/cpuN/cpufreq); use pmd_mgmt = pause";
		return NULL;
	case LF_PMGMT_PAUSE:
	default:
		return NULL;
	}
}

int
rxmode_port_pmgmt_enable(struct lf_app *a, unsigned int p, char *err, size_t errlen)
{
	const struct lf_config *cfg = &a->cfg;
	const uint16_t port_id = a->ports[p].port_id;
	unsigned int i, k;

	for (i = 0; i < cfg->n_workers; i++) {
		const struct lf_worker_conf *wc = &cfg->workers[i];

		if (wc->rx_mode != LF_RX_PMD_MGMT)
			continue;
		for (k = 0; k < wc->n_rxq; k++) {
			const uint16_t q = wc->rxq[k].queue;
			const char *why;
			int ret;

			if (wc->rxq[k].port != p)
				continue;
			why = pmgmt_lacks(wc, port_id, q);
			if (why != NULL)
				return refuse(a, wc, p, q, err, errlen, "%s", why);
			ret = rte_power_ethdev_pmgmt_queue_enable(wc->lcore, port_id, q,
								  pmgmt_type[wc->pmd_mgmt]);
			if (ret != 0)
				return refuse(a, wc, p, q, err, errlen,
					      "rte_power_ethdev_pmgmt_queue_enable on lcore %u: %s",
					      wc->lcore, strerror(-ret));
			LF_LOG(INFO, port, "port %s queue %u: rte_power_pmd_mgmt %s for lcore %u",
			       cfg->ports[p].name, q, lf_pmd_mgmt_names[wc->pmd_mgmt], wc->lcore);
		}
	}
	return 0;
}

void
rxmode_port_pmgmt_disable(struct lf_app *a, unsigned int p)
{
	const struct lf_config *cfg = &a->cfg;
	unsigned int i, k;

	for (i = 0; i < cfg->n_workers; i++)
		for (k = 0; k < cfg->workers[i].n_rxq; k++)
			if (cfg->workers[i].rx_mode == LF_RX_PMD_MGMT &&
			    cfg->workers[i].rxq[k].port == p)
				rte_power_ethdev_pmgmt_queue_disable(cfg->workers[i].lcore,
								     a->ports[p].port_id,
								     cfg->workers[i].rxq[k].queue);
}

/* One worker's epoll set: every port queue's event fd, probed. */
static int
worker_epoll_setup(struct lf_app *a, struct worker *w, char *err, size_t errlen)
{
	const struct lf_worker_conf *wc = &a->cfg.workers[w->index];
	struct lf_rxm *r = &w->rxm;
	const struct timespec zero = { 0, 0 };
	struct epoll_event ev;
	unsigned int k;

	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0) {
		snprintf(err, errlen, "[%s]: epoll_create1: %s", wc->section, strerror(errno));
		return -errno;
	}
	for (k = 0; k < wc->n_rxq; k++) {
		const unsigned int p = wc->rxq[k].port;
		const uint16_t port_id = a->ports[p].port_id, q = wc->rxq[k].queue;
		int ret = rte_eth_dev_rx_intr_ctl_q(port_id, q, r->epfd, RTE_INTR_EVENT_ADD, NULL);

		if (ret != 0)
			return refuse(a, wc, p, q, err, errlen,
				      "the driver has no RX interrupt for it (rte_eth_dev_rx_intr_ctl_q: %s; in DPDK 22.11 AF_XDP, memif and pcap have none); use rx_mode = poll or pmd-mgmt",
				      strerror(-ret));
		/*
		 * Queues with an interrupt to arm are armed around each sleep
		 * only. A driver without the enable op (net_tap: its queue fd
		 * is the TAP's own, readable whenever a frame waits) needs
		 * nothing armed.
		 */
		ret = rte_eth_dev_rx_intr_enable(port_id, q);
		if (ret == -ENOTSUP)
			continue;
		if (ret != 0)
			return refuse(a, wc, p, q, err, errlen, "rte_eth_dev_rx_intr_enable: %s",
				      strerror(-ret));
		rte_eth_dev_rx_intr_disable(port_id, q);
		r->arm_port[r->n_arm] = port_id;
		r->arm_queue[r->n_arm] = q;
		r->n_arm++;
	}
	/* epoll_pwait2 (Linux 5.11) takes a timespec; older kernels: ms. */
	r->pwait2 = epoll_pwait2(r->epfd, &ev, 1, &zero, NULL) >= 0 || errno != ENOSYS;
	return 0;
}

int
rxmode_workers_setup(struct lf_app *a, char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	for (i = 0; i < a->n_workers; i++)
		a->workers[i]->rxm.epfd = -1;
	for (i = 0; i < a->n_workers; i++) {
		const struct lf_worker_conf *wc = &a->cfg.workers[i];
		struct lf_rxm *r = &a->workers[i]->rxm;

		r->mode = wc->rx_mode;
		r->pmd_mgmt = wc->pmd_mgmt;
		r->sleep_ns = (uint64_t)wc->sleep_max_us * 1000;
		r->spin_tsc = wc->rx_mode == LF_RX_HYBRID
			? (uint64_t)wc->spin_us * rte_get_tsc_hz() / 1000000
			: 0;
		if (!mode_sleeps(wc->rx_mode))
			continue;
		ret = worker_epoll_setup(a, a->workers[i], err, errlen);
		if (ret != 0)
			return ret;
		LF_LOG(INFO, main,
		       "worker lcore %u: rx_mode %s, %u queues in epoll (%u armed per sleep), sleep at most %u us%s",
		       wc->lcore, lf_rx_mode_names[wc->rx_mode], wc->n_rxq, r->n_arm,
		       wc->sleep_max_us, r->pwait2 ? "" : " (ms resolution: no epoll_pwait2)");
	}
	return 0;
}

void
rxmode_workers_free(struct lf_app *a)
{
	unsigned int i;

	/* Workers come zeroed: only a sleeping mode's setup made epfd. */
	for (i = 0; i < a->n_workers; i++) {
		struct lf_rxm *r = &a->workers[i]->rxm;

		if (mode_sleeps(r->mode) && r->epfd >= 0)
			close(r->epfd);
		r->epfd = -1;
	}
}
