/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The per-lcore worker: its queues, scratch arrays for one burst, TX buffers
 * and counters. One struct worker per lcore, written only by that lcore once
 * running; the control thread and telemetry only read the stats block.
 */
#ifndef LF_WORKER_H
#define LF_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "acl.h"
#include "config.h"
#include "flow.h"
#include "hist.h"

/** Residence entries a worker keeps between two TSC reads (worker_lat_pend). */
#define LF_LAT_PEND_MAX 64

/** Drop reasons, each defined once: yields the enum and the names. */
#define LF_DROP_REASONS(X)              \
	X(L2_MALFORMED, "l2_malformed") \
	X(L3_MALFORMED, "l3_malformed") \
	X(L4_MALFORMED, "l4_malformed") \
	X(BAD_CHECKSUM, "bad_checksum") \
	X(TTL_EXPIRED, "ttl_expired")   \
	X(NO_ROUTE, "no_route")         \
	X(NO_NEXTHOP, "no_nexthop")     \
	X(NON_IP, "non_ip")             \
	X(ACL_DENY, "acl_deny")         \
	X(TX_FULL, "tx_full")

enum lf_drop {
#define X(e, s) LF_DROP_##e,
	LF_DROP_REASONS(X)
#undef X
		LF_DROP_COUNT
};

/** Names of the drop reasons, indexed by enum lf_drop. */
extern const char *const lf_drop_names[LF_DROP_COUNT];

/** Packets-per-poll histogram: 0, 1, 2-3, 4-7, ..., 128-255, 256. */
#define LF_BURST_HIST_BUCKETS 10

/** Bucket of a poll that returned n packets (n <= 256). */
static inline unsigned int
lf_burst_bucket(unsigned int n)
{
	return n == 0 ? 0 : 32 - __builtin_clz(n);
}

/**
 * Counters of one worker. Single writer (the worker); readers (control
 * thread, telemetry) load each 64-bit field on its own. The worker updates
 * them with plain stores, once per burst where it can.
 */
struct lf_worker_stats {
	uint64_t rx_pkts;
	uint64_t tx_pkts;
	uint64_t polls; /**< rx_burst calls, empty ones included. */
	uint64_t busy_polls; /**< rx_burst calls that returned packets. */
	uint64_t busy_cycles; /**< TSC cycles of loop iterations with packets. */
	uint64_t idle_cycles; /**< TSC cycles of empty iterations. */
	uint64_t ipv4_cksum_sw; /**< IPv4 headers checked in software. */
	uint64_t rx_hw_stamped; /**< Bursts timed from a hardware RX timestamp. */
	uint64_t drops[LF_DROP_COUNT];
	uint64_t burst_hist[LF_BURST_HIST_BUCKETS];
} __rte_cache_aligned;

/** Single-writer counter update: a plain load and store, never a locked RMW. */
#define LF_STAT_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
/** Reader side of LF_STAT_ADD. */
#define LF_STAT_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/**
 * What parse found out about a packet, carried through later stages.
 * l3_off..out are 8 contiguous bytes that the parse fast path writes at once.
 */
struct lf_meta {
	uint32_t nh; /**< Next-hop id, set by the FIB stage. */
	uint16_t l3_off; /**< Offset of the IP header. */
	uint16_t l4_off; /**< Offset of the L4 header, 0 if none. */
	uint8_t af; /**< 4 or 6. */
	uint8_t l4_proto; /**< IPPROTO_*, after IPv6 extension headers. */
	uint16_t out; /**< Output port index, set by rewrite. */
	uint16_t fkey; /**< With a flow table: index of its key in w->flow_keys. */
};

/** One RX queue a worker polls. */
struct lf_rxq {
	uint16_t port_id; /**< ethdev port id. */
	uint16_t queue_id;
	uint16_t port_idx; /**< Index in the configuration. */
	uint16_t prefetch; /**< Packet-data prefetch distance (lf_port.rx_prefetch). */
};

/** TX buffer of one worker for one output port (its own TX queue). */
struct lf_txbuf {
	uint16_t port_id;
	uint16_t queue_id;
	uint16_t n;
	struct rte_mbuf *pkts[LF_BURST_MAX];
	/** With latency on: runs of buffered packets that share an RX time. */
	uint16_t n_runs;
	struct {
		uint64_t rx_tsc; /**< RX time of their burst (w->rx_tsc). */
		uint16_t n;
	} runs[LF_BURST_MAX];
};

/** A next hop as the rewrite stage reads it: one 16-byte entry. */
struct lf_nh {
	struct rte_ether_addr dst;
	struct rte_ether_addr src;
	uint16_t out; /**< Output port index; LF_NH_INVALID if undefined. */
	uint16_t pad;
};
#define LF_NH_INVALID UINT16_MAX

struct lf_fib;
struct lf_tables;
struct lf_hwclock;
struct rte_rcu_qsbr;

struct worker {
	/* control: writes before launch; worker: reads. */
	unsigned int lcore;
	unsigned int index;
	int socket;
	uint16_t burst;
	uint16_t prefetch; /* The flow table's lookup distance. */
	uint64_t drain_tsc;
	/*
	 * The worker's view of the current table generation (tables.h):
	 * worker only once running; it adopts a new generation between loop
	 * iterations (tables_adopt()). Unit tests set these directly.
	 */
	const struct lf_fib *fib;
	/* [acl] classifiers; a family without one is not classified, and with
	 * neither the ACL stage is skipped. */
	const struct acl_ctx *acl; /* IPv4 (struct acl_key), or NULL. */
	const struct acl_ctx *acl6; /* IPv6 (struct acl6_key), or NULL. */
	const struct lf_nh *nh_table;
	uint32_t nh_count;
	uint32_t gen; /* Generation of the tables above. */
	const struct lf_tables *cur_tables;
	/*
	 * Hot reload (reload.h). control: publishes *tables (release store)
	 * and waits on qsv; worker: loads *tables once per loop iteration and
	 * reports a quiescent state on qsv after it, holding no table
	 * reference across. NULL tables: fixed tables (unit tests).
	 */
	struct lf_tables *const *tables;
	struct rte_rcu_qsbr *qsv;
	/* [flow]: the worker's own flow table (flow_stage.h), NULL without
	 * one. control: creates and frees it; worker: the only user. */
	struct lf_flow_table *flows;
	uint64_t flow_expire_tsc; /* worker only: next incremental aging. */
	uint64_t flow_expire_period; /* control: writes before launch. */
	uint16_t rx_port; /* worker only: port index of the burst in hand. */
	/* worker only: packet-data prefetch distance for the burst in hand
	 * (its queue's lf_rxq.prefetch). */
	uint16_t data_prefetch;
	unsigned int n_rxq;
	struct lf_rxq rxq[LF_MAX_RXQ_PER_WORKER];
	unsigned int n_tx;
	const volatile bool *quit;
	bool latency; /* Record residence times. */
	/*
	 * latency_clock = hw: a burst's RX time is the hardware timestamp of
	 * its first packet, mapped to the TSC through hwclk[port index]
	 * (hwclock.h). control: sets these before launch and publishes the
	 * maps; worker: reads. hwclk NULL: the TSC (worker_main says which read).
	 */
	const struct lf_hwclock *hwclk;
	int ts_off;
	uint64_t ts_flag;

	/*
	 * Residence (RX time -> end of the iteration that handed it to TX)
	 * histograms, double-buffered: the worker records into lat[lat_cur].
	 * The control thread asks for a swap by bumping lat_req; the worker
	 * flips lat_cur between bursts and echoes lat_req into lat_ack, after
	 * which the other buffer is the control thread's to read and clear.
	 */
	struct lf_hist *lat[2]; /* control: allocates; worker: records into one. */
	uint32_t lat_req; /* control: writes; worker: reads. */
	uint32_t lat_ack; /* worker: writes; control: reads. */
	unsigned int lat_cur; /* worker only. */
	uint64_t rx_tsc; /* worker only: when the current burst arrived. */
	/*
	 * worker only: packets sent since the last TSC read, by RX time; their
	 * residence is recorded at the next read (worker_lat_record), so that
	 * one read per loop iteration serves the cycle accounting, the next
	 * burst's RX time and every TX of the iteration.
	 */
	uint16_t lat_pend_n;
	struct {
		uint64_t rx_tsc;
		uint32_t n;
	} lat_pend[LF_LAT_PEND_MAX];

	/* worker only: per-burst scratch. */
	struct lf_meta meta[LF_BURST_MAX];
	uint32_t ip4[LF_BURST_MAX];
	uint8_t *data[LF_BURST_MAX]; /* fastpath_burst: each packet's mtod. */
	/* fastpath_burst: each packet's TTL/protocol/checksum word, decremented. */
	uint32_t ttlw[LF_BURST_MAX];
	uint8_t ip6[LF_BURST_MAX][16];
	uint64_t nh4[LF_BURST_MAX];
	uint64_t nh6[LF_BURST_MAX];
	uint16_t idx4[LF_BURST_MAX];
	uint16_t idx6[LF_BURST_MAX];
	/* ACL stage: keys of the IPv4 packets, their burst indexes, results. */
	struct acl_key acl_key[LF_BURST_MAX];
	const uint8_t *acl_data[LF_BURST_MAX];
	uint32_t acl_res[LF_BURST_MAX];
	uint16_t acl_idx[LF_BURST_MAX];
	/* The same for the IPv6 packets. */
	struct acl6_key acl6_key[LF_BURST_MAX];
	const uint8_t *acl6_data[LF_BURST_MAX];
	uint32_t acl6_res[LF_BURST_MAX];
	uint16_t acl6_idx[LF_BURST_MAX];
	uint8_t acl_deny[LF_BURST_MAX]; /* All 0 between bursts. */
	/* Flow stage: keys and lookup results of the burst. */
	struct lf_flow_key flow_keys[LF_BURST_MAX];
	struct lf_flow_hot *flow_hit[LF_BURST_MAX];
	uint16_t n_dropped;
	uint32_t n_cksum_sw; /* Software checksum checks on the slow path. */
	struct rte_mbuf *dropped[LF_BURST_MAX];
	uint64_t last_drain;

	/* worker only: one TX buffer per output port, indexed by port index. */
	struct lf_txbuf tx[LF_MAX_PORTS];

	/* worker: writes; control and telemetry: read. */
	struct lf_worker_stats stats;
} __rte_cache_aligned;

/** Count a drop and queue the mbuf to be freed at the end of the burst. */
static inline void
lf_drop(struct worker *w, struct rte_mbuf *m, enum lf_drop reason)
{
	LF_STAT_ADD(w->stats.drops[reason], 1);
	w->dropped[w->n_dropped++] = m;
}

/** Free what the stages dropped during this burst. */
static inline void
lf_drops_flush(struct worker *w)
{
	if (w->n_dropped != 0) {
		rte_pktmbuf_free_bulk(w->dropped, w->n_dropped);
		w->n_dropped = 0;
	}
}

/**
 * Run one received burst: the fused fast path when every packet is plain
 * IPv4 and the worker has no IPv4 ACL (fastpath.h), the staged pipeline
 * otherwise.
 */
void worker_process_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

/**
 * The staged pipeline alone: parse -> acl -> fib -> rewrite -> tx (the
 * reference); the acl stage runs only when w->acl or w->acl6 is set.
 */
void worker_process_staged(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

/**
 * The stages after parse (and the flow stage) for packets that need the
 * tables: acl -> fib -> rewrite -> (with a flow table) verdict cached -> tx.
 * Drops are queued; the caller flushes them.
 */
void worker_slow_tail(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

/** Send every buffered packet now (and record the residence of what left). */
void worker_flush_tx(struct worker *w);

/** Record the pending residences (lat_pend) as ending at now. */
void worker_lat_record(struct worker *w, uint64_t now);

/**
 * Note n packets received at rx_tsc as sent; their residence is recorded at
 * the worker's next TSC read. A full list is first recorded at once, on a
 * fresh TSC read.
 */
static inline void
worker_lat_pend(struct worker *w, uint64_t rx_tsc, uint32_t n)
{
	uint16_t k = w->lat_pend_n;

	if (k != 0 && w->lat_pend[k - 1].rx_tsc == rx_tsc) {
		w->lat_pend[k - 1].n += n;
		return;
	}
	if (unlikely(k == LF_LAT_PEND_MAX)) {
		worker_lat_record(w, rte_rdtsc());
		k = 0;
	}
	w->lat_pend[k].rx_tsc = rx_tsc;
	w->lat_pend[k].n = n;
	w->lat_pend_n = k + 1;
}

/** lcore entry point: the run-to-completion loop. arg is a struct worker. */
int worker_main(void *arg);

#endif /* LF_WORKER_H */
