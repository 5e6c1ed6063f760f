/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-gen internals: options, the per-lcore TX and RX state, one trial's
 * result, and the functions of gen_opts.c, gen_port.c, gen_run.c and
 * gen_report.c. The pure logic they use is in include/gen.h.
 */
#ifndef LF_GEN_APP_H
#define LF_GEN_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "gen.h"
#include "hist.h"

#define GEN_BURST_MAX 256

/** Single-writer counter update (as LF_STAT_ADD): a plain load and a relaxed store. */
#define GEN_STAT_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
/** Reader side of GEN_STAT_ADD. */
#define GEN_STAT_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define GEN_NO_LCORE UINT32_MAX
#define GEN_RATE_UNPACED UINT64_MAX /**< Search: the first trial, as fast as possible. */
#define GEN_NDR_AT_MAX 8 /**< --ndr-at: loads after a search. */

/** Everything the command line sets (after the EAL arguments). */
struct gen_opts {
	int tx_port; /**< ethdev id; -1 = default. */
	int rx_port;
	unsigned int tx_lcore; /**< GEN_NO_LCORE = default. */
	unsigned int rx_lcore;
	uint8_t dst_mac[6];
	bool src_mac_set;
	uint8_t src_mac[6];
	uint8_t family;
	uint8_t dst_ip[16];
	uint8_t src_ip[16];
	uint32_t dst_ips;
	uint32_t src_ips; /**< 0 = automatic. */
	uint16_t sport;
	uint16_t dport;
	uint8_t proto;
	uint8_t ttl;
	uint32_t flows;
	enum gen_dist dist;
	double zipf_s;
	char size_spec[256];
	uint64_t rate; /**< pps; 0 = as fast as possible. */
	unsigned int burst;
	uint64_t on_us, off_us;
	double duration_s;
	double warmup_s;
	double drain_s;
	bool search;
	double ndr_loss_pct; /**< Allowed loss in percent. */
	double trial_s;
	double search_precision_pct;
	uint64_t search_max; /**< pps; 0 = measure with an unpaced first trial. */
	unsigned int search_trials;
	unsigned int n_ndr_at; /**< --ndr-at: runs after the search, at these % of the NDR. */
	double ndr_at[GEN_NDR_AT_MAX];
	bool trials; /**< --trials: run the trials read from stdin (server mode). */
	const char *json; /**< File, "-" for stdout, NULL for none. */
	bool quiet;
	bool loopback;
	uint64_t seed;
	double link_wait_s;
	double linger_s; /**< After the run: wait this long for the peer to go down. */
	unsigned int mbufs;
	struct gen_gtpu gtpu; /**< mode GEN_GTPU_NONE: plain IP. */
	uint8_t ue_ip[16]; /**< GTP-U: the first UE (also in src_ip uplink, dst_ip downlink). */
};

/** Parse argv (the part after the EAL arguments). Returns 0, 1 after --help, -EINVAL. */
int gen_opts_parse(struct gen_opts *o, int argc, char **argv, char *err, size_t errlen);
void gen_usage(FILE *f, const char *prog);

/** TX counters; single writer (the TX lcore). */
struct gen_tx_counts {
	uint64_t tx; /**< Measured packets sent. */
	uint64_t tx_warmup; /**< Warm-up packets sent. */
	uint64_t bytes; /**< Bytes of measured packets, FCS included. */
	uint64_t alloc_fail; /**< Bursts not built for want of mbufs. */
	uint64_t unsent; /**< Built, refused by the PMD until the end, freed. */
	/**
	 * Backpressure: measured packets the PMD refused at least once (each
	 * counted once; they stay pending and are retried), and the tx_burst
	 * calls that took fewer than offered. On memif a refusal is the peer's
	 * RX ring being full: the forwarder's limit, a drop on a NIC.
	 */
	uint64_t refused;
	uint64_t refused_calls;
	/**
	 * How far the sender fell behind its schedule: per measured packet, TSC
	 * at the send that took it minus its due time (unpaced: minus the time
	 * it was built), summed, and the largest.
	 */
	uint64_t lag_sum;
	uint64_t lag_max;
	uint64_t first_tsc; /**< TSC of the first measured send. */
	uint64_t last_tsc; /**< TSC of the last measured send. */
};

/** The TX side; owned by the TX lcore during a trial. */
struct gen_txer {
	/* Set by the control thread between trials, read-only in a trial. */
	uint16_t port;
	uint16_t queue;
	uint16_t burst;
	struct rte_mempool *pool;
	struct gen_pkt_tmpl tmpl;
	struct gen_flows flows;
	uint64_t pps; /**< 0 = as fast as possible. */
	uint64_t on_us, off_us;
	uint64_t t_measure; /**< TSC at which warm-up ends. */
	uint64_t t_end; /**< TSC at which TX stops. */
	uint64_t t_give_up; /**< TSC after which unsent packets are freed. */
	volatile bool *quit;
	/* TX lcore: writes; control: reads stats. */
	struct gen_select sel;
	struct gen_sizes sizes;
	struct gen_pace pace;
	uint32_t *seq; /**< Next sequence number per flow. */
	uint16_t n_pend, pend_off;
	bool pend_warm;
	bool pend_refused; /**< The pending packets were refused once (counted). */
	uint64_t pend_due; /**< TSC the pending burst was due (its first packet). */
	bool done;
	struct rte_mbuf *pend[GEN_BURST_MAX];
	struct gen_tx_counts st __rte_cache_aligned;
} __rte_cache_aligned;

/** The RX side; owned by the RX lcore during a trial. */
struct gen_rxer {
	/* Set by the control thread between trials. */
	uint16_t port;
	uint16_t queue;
	uint16_t burst;
	uint32_t n_flows;
	struct gen_flows flows; /**< GTP-U: a flow's session. */
	struct gen_gtpu gtpu; /**< What the received frames must look like. */
	uint64_t t_end; /**< TSC at which RX stops (TX end + drain). */
	uint64_t drain_cycles;
	volatile bool *quit;
	/* RX lcore: writes; control: reads st (and the rest after the trial). */
	bool done;
	bool quit_seen;
	struct gen_flow_rx *flow; /**< Per-flow sequence state. */
	struct lf_hist *hist; /**< TX->RX latency of measured packets, TSC cycles. */
	struct gen_rx_counts st __rte_cache_aligned;
} __rte_cache_aligned;

/** What one lcore runs, and whether it prints the progress line. */
struct gen_role {
	struct gen_txer *tx; /**< NULL: no TX on this lcore. */
	struct gen_rxer *rx; /**< NULL: no RX on this lcore. */
	void (*progress)(void *arg); /**< Called about once a second, or NULL. */
	void *progress_arg;
	uint64_t hz;
};

/** lcore entry point (rte_eal_remote_launch or a direct call): runs one trial. */
int gen_lcore_run(void *role);

/** One trial's outcome, as reported. */
struct gen_result {
	uint64_t target_pps; /**< 0 = as fast as possible. */
	double duration_s; /**< Measured window actually sent. */
	struct gen_tx_counts tx;
	struct gen_rx_counts rx;
	uint64_t unique; /**< Measured packets received once. */
	uint64_t lost;
	double loss_ratio;
	double tx_pps, rx_pps, tx_gbps;
	uint64_t flows_seen; /**< Flows with at least one measured packet received. */
	struct lf_hist *hist; /**< Latency in TSC cycles (owned by the caller). */
	double ns_per_cycle;
	bool pass; /**< Search: within the loss ratio. */
};

/** Fill r from a finished trial's TX and RX state. */
void gen_result_collect(struct gen_result *r, const struct gen_txer *tx, const struct gen_rxer *rx,
			uint64_t hz);

/* gen_report.c */
void gen_report_table(FILE *f, const struct gen_opts *o, const struct gen_result *r,
		      const char *title);
/**
 * Write the JSON document. A search passes its trials and NDR, and the runs
 * at --ndr-at of the NDR (at[i] at o->ndr_at[i] percent; n_at of them).
 */
int gen_report_json(const char *path, const struct gen_opts *o, const struct gen_result *r,
		    const struct gen_result *trials, unsigned int n_trials, double ndr_pps,
		    const struct gen_result *at, unsigned int n_at, uint64_t hz,
		    const char *port_desc);

/**
 * One trial as a single JSON line (the fields of a --json result, plus
 * tsc_hz and pass) on f, flushed: what --trials answers per line it reads.
 */
int gen_report_json_line(FILE *f, const struct gen_result *r, uint64_t hz);

/* gen_port.c */
/** Create a pool whose data rooms are zeroed once (the TX pool), or not. */
struct rte_mempool *gen_pool_create(const char *name, unsigned int n, uint16_t data_room,
				    bool zero);
/** Configure and start port with one RX and one TX queue; -errno with err. */
int gen_port_start(uint16_t port, struct rte_mempool *rx_pool, uint16_t max_len, char *err,
		   size_t errlen);
/** Wait until the link of port is up (at most wait_s seconds); whether it is. */
bool gen_port_wait_link(uint16_t port, double wait_s, volatile bool *quit);

/**
 * Wait until port's link is down (the peer closed it), at most wait_s
 * seconds or until *quit. --linger uses it so that the generator closes its
 * memif ports only after the peer stopped polling them: DPDK 22.11's memif
 * PMD unmaps the shared regions on disconnect without waiting for a thread
 * that is inside rx/tx burst on them, so a peer still polling can crash.
 */
bool gen_port_wait_down(uint16_t port, double wait_s, volatile bool *quit);
/**
 * Stop and close every port, once the EAL interrupt thread has finished
 * the callback it is in. memif marks the link down as the first step of a
 * disconnect, which runs in that thread, then closes the queues' event fds
 * and frees the shared regions with nothing to stop rte_eth_dev_stop/close
 * doing the same from this thread at the same moment (a double free,
 * SIGSEGV at exit, seen after --linger saw the peer close the links).
 */
void gen_port_close_all(void);
/** Create a ring port whose TX comes back on its RX (--loopback); port id or -errno. */
int gen_port_loopback(void);

#endif /* LF_GEN_APP_H */
