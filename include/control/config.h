/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lanefwd configuration: the INI file (read with rte_cfgfile) resolved into
 * plain structures. Every value is validated here, before EAL starts, so that
 * nothing runs on a half-valid configuration.
 */
#ifndef LF_CONFIG_H
#define LF_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>

#define LF_MAX_PORTS 32 /**< Ports in one configuration. */
/**
 * Port indexes the datapath knows: the configured ports, then the kernel
 * TAP mirrors lanefwd creates for [port] exception = tap (lf_app.ports).
 */
#define LF_MAX_DP_PORTS (2 * LF_MAX_PORTS)
#define LF_MAX_WORKERS 64 /**< Worker lcores. */
#define LF_MAX_RXQ_PER_WORKER 32 /**< (port, queue) pairs one worker polls. */
#define LF_MAX_QUEUES 64 /**< RX queues of one port. */
#define LF_MAX_NEXTHOPS 32767 /**< Next-hop ids 0..32766 (2-byte FIB entries). */
#define LF_MAX_LCORE 128 /**< Highest lcore id + 1 accepted in config. */
#define LF_BURST_MAX 256 /**< Largest [pipeline] burst. */
#define LF_PREFETCH_MAX 32 /**< Largest [pipeline] prefetch_distance. */
#define LF_FIB4_MAX_TBL8 32767 /**< rte_fib DIR24_8 limit with 2-byte next hops. */
#define LF_NAME_LEN 32
#define LF_PATH_LEN 256
#define LF_ERR_LEN 512
/**
 * Largest configuration file read (16 MiB): room for every next hop
 * (LF_MAX_NEXTHOPS sections of about 50 bytes) ten times over, and a bound
 * on what a file that is not a configuration can make the loader read.
 */
#define LF_CONFIG_MAX (16u << 20)

/** One (port, queue) pair owned by a worker. */
struct lf_rxq_conf {
	uint16_t port; /**< Index into lf_config.ports. */
	uint16_t queue;
};

/** An interface address: [port] address, or a [nexthop] via. */
struct lf_ip_addr {
	uint8_t af; /**< 4 or 6. */
	uint8_t plen; /**< Prefix length (of an interface address), 32/128 for a via. */
	uint8_t a[16]; /**< Network order. */
};

#define LF_PORT_MAX_ADDRS 8 /**< Addresses of one port. */

/**
 * Where packets addressed to the router that the data plane does not answer
 * itself go ([port] exception, docs/control-plane.md).
 */
enum lf_exception {
	LF_EXC_NONE, /**< Nowhere: counted and dropped (no_exception). */
	LF_EXC_TAP, /**< A kernel TAP mirror of the port (net_tap), lanefwd creates it. */
	LF_EXC_KERNEL, /**< The port's own kernel interface (AF_XDP): the XDP program passes them. */
};

struct lf_port_conf {
	char name[LF_NAME_LEN]; /**< NAME of [port NAME]. */
	char section[64]; /**< The section as written, for errors. */
	char devargs[LF_PATH_LEN]; /**< PCI address or vdev devargs. */
	char devname[LF_PATH_LEN]; /**< What EAL names the device. */
	bool is_pci;
	uint16_t rx_queues;
	uint16_t tx_queues; /**< One per worker: no TX locks. */
	uint16_t rx_desc;
	uint16_t tx_desc;
	uint16_t mtu;
	bool has_mac;
	struct rte_ether_addr mac;
	/**
	 * Accept every unicast MAC (a switch port). A routed port (no) takes
	 * only frames to its own MAC, broadcast and the multicast groups it
	 * joined; parse drops the rest as l2_not_ours.
	 */
	bool promiscuous;
	unsigned int n_addrs; /**< [port] address: the router's own addresses here. */
	struct lf_ip_addr addr[LF_PORT_MAX_ADDRS];
	enum lf_exception exception; /**< Default none. */
	/**
	 * The kernel interface of the exception path: the TAP to create
	 * (default lf-NAME), or for exception = kernel the AF_XDP port's own
	 * interface (its iface= devarg). Also the interface netlink maps to
	 * this port.
	 */
	char exception_if[16];
};

/** [worker N] rx_mode: how the worker waits for packets (docs/configuration.md). */
enum lf_rx_mode {
	LF_RX_POLL, /**< Busy polling (default). */
	LF_RX_INTERRUPT, /**< Sleep on the RX queues' interrupts after an empty round. */
	LF_RX_HYBRID, /**< Spin spin_us after the last packet, then as interrupt. */
	LF_RX_PMD_MGMT, /**< rte_power_pmd_mgmt's callbacks (pmd_mgmt). */
	LF_RX_MODE_COUNT
};

/** [worker N] pmd_mgmt, with rx_mode = pmd-mgmt. */
enum lf_pmd_mgmt {
	LF_PMGMT_PAUSE, /**< Pause (TPAUSE or rte_pause) after empty polls (default). */
	LF_PMGMT_MONITOR, /**< Wait for the next descriptor write (UMWAIT/MONITORX). */
	LF_PMGMT_SCALE, /**< Lower the core's frequency while idle (cpufreq). */
	LF_PMGMT_COUNT
};

/** Names of the rx modes and pmd_mgmt schemes as the config writes them. */
extern const char *const lf_rx_mode_names[LF_RX_MODE_COUNT];
extern const char *const lf_pmd_mgmt_names[LF_PMGMT_COUNT];

#define LF_SPIN_US_DEFAULT 50
#define LF_SLEEP_MAX_US_DEFAULT 1000
/**
 * Longest sleep_max_us: the latency hand-over (latency.c) waits about
 * 10 ms for a worker's answer, so a sleeping worker must wake well within.
 */
#define LF_SLEEP_MAX_US_MAX 5000

struct lf_worker_conf {
	unsigned int lcore;
	char section[64]; /**< The section as written, for errors. */
	char rx_text[256]; /**< The rx value as written, for errors. */
	unsigned int n_rxq;
	struct lf_rxq_conf rxq[LF_MAX_RXQ_PER_WORKER];
	/* Restart-only, like every [worker] key (reload.c). */
	enum lf_rx_mode rx_mode;
	enum lf_pmd_mgmt pmd_mgmt;
	uint32_t spin_us; /**< hybrid: spin this long after the last packet. */
	uint32_t sleep_max_us; /**< interrupt, hybrid: the longest sleep. */
};

struct lf_nexthop_conf {
	uint32_t id;
	uint16_t port; /**< Index into lf_config.ports. */
	/**
	 * via = ADDRESS: the next hop's IP address, its MAC resolved by ARP/ND
	 * (neigh.h) rather than given; has_mac then false. A [nexthop] has mac
	 * or via (or both: the MAC is then static and via only names it).
	 */
	bool has_mac;
	bool has_via;
	struct lf_ip_addr via;
	struct rte_ether_addr dst_mac;
	bool has_src_mac; /**< Otherwise the port's own MAC. */
	struct rte_ether_addr src_mac;
};

struct lf_eal_conf {
	unsigned int main_lcore;
	char file_prefix[64];
	unsigned int memory_mb; /**< 0: EAL default. */
	bool huge;
	bool in_memory;
	bool telemetry;
	char iova_mode[8]; /**< "", "va" or "pa". */
	char log_level[64];
	char extra[LF_PATH_LEN]; /**< Extra EAL arguments, split on spaces. */
	/**
	 * extra may pass any EAL option, also those that load code (-d) or
	 * write files (--vdev devargs, --trace-dir); otherwise only those of
	 * an allow-list (docs/security.md).
	 */
	bool allow_unsafe_extra;
	/**
	 * pdump = yes (default): rte_pdump is initialised so that dpdk-dumpcap
	 * and dpdk-pdump can capture on the ports. Needs shared config (not
	 * in_memory).
	 */
	bool pdump;
	int memory_line; /**< Line of [eal] memory, 0 if not set (for errors). */
	int huge_line; /**< Line of [eal] huge, 0 if not set. */
};

struct lf_pipeline_conf {
	/** Packets per RX burst; with burst_auto the largest (burst_max). */
	uint16_t burst;
	/**
	 * burst = auto: each poll's burst chosen between burst_min and
	 * burst_max so that latency_percentile of the residence stays under
	 * latency_target_us (burstctl.h).
	 */
	bool burst_auto;
	uint16_t burst_min;
	uint16_t burst_max;
	uint32_t latency_target_us;
	double latency_percentile;
	/**
	 * Packets prefetched ahead: the flow table's burst lookup, and the
	 * packet data of queues whose port DMAs it (lf_port_prefetch_distance()). With
	 * prefetch_auto (prefetch_distance = auto, the default) it is half the
	 * burst, at most LF_PREFETCH_MAX.
	 */
	uint16_t prefetch_distance;
	bool prefetch_auto;
	uint32_t tx_drain_us;
	uint32_t mbufs; /**< Per socket; 0: computed. */
	uint16_t mbuf_cache;
	bool latency; /**< Record RX->TX residence histograms. */
	char latency_clock[16]; /**< "tsc" or "hw" (RX timestamps of the ports). */
	bool latency_hw; /**< latency_clock = hw. */
};

/** [routes] fib_lookup: which rte_fib/rte_fib6 bulk lookup workers call. */
enum lf_fib_lookup {
	LF_FIB_LOOKUP_AUTO, /**< AVX-512 where rte_fib offers it here, else scalar. */
	LF_FIB_LOOKUP_SCALAR,
	LF_FIB_LOOKUP_AVX512, /**< AVX-512 or refuse to start. */
};

struct lf_routes_conf {
	char ipv4[LF_PATH_LEN]; /**< Resolved path or "". */
	char ipv6[LF_PATH_LEN];
	uint32_t ipv4_max_routes;
	uint32_t ipv4_tbl8;
	uint32_t ipv6_max_routes;
	uint32_t ipv6_tbl8;
	char fib_lookup[16]; /**< "auto", "scalar" or "avx512". */
	enum lf_fib_lookup lookup;
};

/**
 * [acl]: IPv4 and IPv6 5-tuple ACLs (acl.h) run after parse. A family
 * without a rule file is not classified: its packets pass.
 */
struct lf_acl_conf {
	char ipv4[LF_PATH_LEN]; /**< Resolved IPv4 rule file, or "" (IPv4 not classified). */
	char ipv6[LF_PATH_LEN]; /**< Resolved IPv6 rule file, or "" (IPv6 not classified). */
	bool deny; /**< default = deny: action of packets no rule of their family's file matches. */
};

/** [flow]: a flow table per worker caching ACL and FIB decisions (flow.h). */
struct lf_flow_conf {
	bool enabled; /**< The section is there. */
	uint32_t entries; /**< Flows per worker. */
	uint32_t idle_timeout_ms; /**< 0: flows never age. */
	bool evict; /**< evict = oldest (true) or none. */
	bool fat; /**< layout = fat (measurements only) rather than hotcold. */
};

/** [network_instance NAME]: a DNN / APN and the UE pools routed to it. */
#define LF_UPF_MAX_NI 16
#define LF_UPF_MAX_POOLS 8
/** ue_alloc.ID keys per network instance. */
#define LF_UPF_MAX_NAMED 8
/**
 * Bytes the UE IP address Pool Information IEs of all named pools may take
 * in the Association Setup Response (the PFCP agent builds messages of up
 * to 8 KiB; the rest is for the header, Node ID and features).
 */
#define LF_UPF_POOL_INFO_MAX 6144
struct lf_upf_prefix {
	uint8_t af;
	uint8_t plen;
	uint8_t a[16]; /**< Network order; host bits zero. */
};
struct lf_upf_ni_conf {
	char name[64]; /**< The Network Instance IE's text (e.g. "internet"). */
	char section[96];
	unsigned int n_pools;
	struct lf_upf_prefix pool[LF_UPF_MAX_POOLS]; /**< ue_pool: routed to the downlink. */
	/**
	 * ue_alloc: what the UP hands out on UE IP Address CHOOSE (CHV4 /
	 * CHV6), each inside one of pool[]: IPv4 /8 to /32, IPv6 /32 to /64
	 * (in /64s).
	 */
	unsigned int n_alloc;
	struct lf_upf_prefix alloc[LF_UPF_MAX_POOLS];
	/**
	 * ue_alloc_pool_id: the UE IP address Pool Identity (29.244 8.2.153)
	 * that names ue_alloc to the SMF; "" for none. Unique among instances.
	 */
	char pool_id[64];
	/**
	 * ue_alloc_ipv6_len: the length of the IPv6 prefixes ue_alloc hands
	 * out, 48 to 64 (64: the session's /64; shorter: a prefix delegated
	 * to the UE, asked for with CHV6 and IPv6D / IP6PL). 64 by default.
	 */
	uint8_t alloc_ipv6_len;
	/**
	 * ue_alloc.ID: further pools of this instance, each named to the SMF
	 * by its Pool Identity ID and taken only by a CHOOSE that names it
	 * (ue_alloc is what a CHOOSE without one takes). IDs are unique among
	 * all instances' pools; no two pools of an instance overlap.
	 */
	unsigned int n_named;
	struct lf_upf_named_pool {
		char id[64];
		unsigned int n;
		struct lf_upf_prefix p[LF_UPF_MAX_POOLS];
		uint8_t ipv6_len; /**< ue_alloc_ipv6_len.ID, as alloc_ipv6_len. */
	} named[LF_UPF_MAX_NAMED];
};

/** An instance's allocating pools: 0 is ue_alloc, k the ue_alloc.ID named[k - 1]. */
#define LF_UPF_POOLS_PER_NI (1 + LF_UPF_MAX_NAMED)

/** The prefixes of ni's allocating pool k (k <= ni->n_named) into *p; their count. */
static inline unsigned int
lf_upf_ni_alloc(const struct lf_upf_ni_conf *ni, unsigned int k, const struct lf_upf_prefix **p)
{
	*p = k == 0 ? ni->alloc : ni->named[k - 1].p;
	return k == 0 ? ni->n_alloc : ni->named[k - 1].n;
}

/** The config key of ni's allocating pool k: "ue_alloc", or "ue_alloc.ID" written into buf. */
static inline const char *
lf_upf_ni_alloc_key(const struct lf_upf_ni_conf *ni, unsigned int k, char *buf, size_t len)
{
	if (k == 0)
		return "ue_alloc";
	snprintf(buf, len, "ue_alloc.%s", ni->named[k - 1].id);
	return buf;
}

/**
 * The length of the IPv6 prefixes ni's allocating pool k hands out (48 to
 * 64; a configuration built by hand, with the field 0, gets 64).
 */
static inline uint8_t
lf_upf_ni_alloc_len6(const struct lf_upf_ni_conf *ni, unsigned int k)
{
	const uint8_t l = k == 0 ? ni->alloc_ipv6_len : ni->named[k - 1].ipv6_len;

	return l != 0 ? l : 64;
}

/**
 * [upf]: lanefwd as a 5G UPF (docs/upf.md). The N3 addresses receive
 * GTP-U (uplink) and are the outer source of downlink encapsulation; the UE
 * pools of the network instances receive downlink. PFCP (N4) is served on
 * pfcp_addr:pfcp_port by a control thread.
 */
struct lf_upf_conf {
	bool enabled; /**< The section is there. */
	bool has_n3_ipv4, has_n3_ipv6;
	uint8_t n3_ipv4[4]; /**< Network order. */
	uint8_t n3_ipv6[16];
	char pfcp_addr[64]; /**< Numeric IPv4 or IPv6; default 127.0.0.1. */
	uint16_t pfcp_port; /**< Default 8805. */
	char node_id[256]; /**< Node ID: an IP address or an FQDN; default pfcp_addr. */
	uint32_t max_sessions; /**< Default 100000. */
	uint32_t buffer_packets; /**< BUFF: downlink packets held per session (default 64). */
	uint32_t err_ind_pps; /**< Error Indications per second per worker (default 100). */
	uint32_t heartbeat_s; /**< Heartbeat to associated peers; 0: none (default 0). */
	/**
	 * URR counter and QER meter slots the store holds, per session of
	 * max_sessions, on average (default 2 each): what the sessions' rules
	 * may use in all. A session beyond them is refused (Cause 73).
	 */
	uint32_t urrs_per_session;
	uint32_t qers_per_session;
	unsigned int n_ni;
	struct lf_upf_ni_conf ni[LF_UPF_MAX_NI];
};

/**
 * [icmp]: what ICMP/ICMPv6 the data plane sends itself (docs/control-plane.md).
 * Each kind can be turned off; all share one token bucket per worker.
 */
struct lf_icmp_conf {
	bool echo; /**< Echo replies for the router's own addresses (default yes). */
	bool time_exceeded; /**< On TTL / hop-limit expiry (default yes). */
	bool unreachable; /**< Destination (network) unreachable on no route (default yes). */
	bool frag_needed; /**< Fragmentation needed / packet too big over the egress MTU (default yes). */
	uint32_t rate_pps; /**< Per worker, all kinds together (default 1000); 0: none sent. */
	uint32_t burst; /**< Token bucket depth (default 100). */
};

/** [neighbour]: ARP / IPv6 ND (neigh.h). */
struct lf_neigh_conf {
	uint32_t max_entries; /**< Neighbours held (default 4096). */
	uint32_t reachable_ms; /**< REACHABLE -> STALE after this (default 30000). */
	uint32_t retrans_ms; /**< Between solicitations (default 1000). */
	uint32_t retries; /**< Solicitations before FAILED (default 3). */
	uint32_t queue_packets; /**< Held per unresolved neighbour (default 16). */
	bool gratuitous; /**< Gratuitous ARP / unsolicited NA at start (default yes). */
	uint32_t punt_pps; /**< ARP/ND frames per worker per second to the control thread (default 10000). */
	uint32_t punt_burst; /**< Its token bucket depth (default 1000). */
};

/** [exception]: the punt path to the kernel ([port] exception). */
struct lf_exception_conf {
	uint32_t punt_pps; /**< Packets per worker per second to the kernel (default 20000). */
	uint32_t punt_burst; /**< Its token bucket depth (default 2000). */
};

/** [prometheus]: the HTTP exporter (prom.h). */
struct lf_prom_conf {
	bool enabled; /**< The section is there. */
	char addr[64]; /**< Numeric IPv4/IPv6 to listen on (default 127.0.0.1). */
	uint16_t port; /**< Default 9469. */
};

/** [netlink]: routes and neighbours learnt from the kernel (netlink.h). */
struct lf_netlink_conf {
	bool enabled; /**< The section is there. */
	uint32_t table; /**< Kernel routing table to follow (default 254, main). */
	/**
	 * On the same prefix, the route file's route wins (default, false) or
	 * the kernel's (true): priority = file | kernel.
	 */
	bool kernel_wins;
	uint32_t max_routes; /**< Kernel routes held at most (default 1000000). */
	uint32_t max_nexthops; /**< Next hops they may use (default 1024). */
};

struct lf_config {
	char path[LF_PATH_LEN];
	struct lf_eal_conf eal;
	struct lf_pipeline_conf pipeline;
	struct lf_routes_conf routes;
	struct lf_acl_conf acl;
	struct lf_flow_conf flow;
	struct lf_upf_conf upf;
	struct lf_icmp_conf icmp;
	struct lf_neigh_conf neigh;
	struct lf_exception_conf exception;
	struct lf_prom_conf prom;
	struct lf_netlink_conf netlink;
	unsigned int n_ports;
	struct lf_port_conf ports[LF_MAX_PORTS];
	unsigned int n_workers;
	struct lf_worker_conf workers[LF_MAX_WORKERS];
	unsigned int n_nexthops;
	struct lf_nexthop_conf *nexthops; /**< malloc'd, n_nexthops long. */
};

/**
 * Load and validate a configuration file.
 *
 * @param path  INI file.
 * @param cfg   Filled on success; left freed on failure.
 * @param err   On failure, one line naming file, line, section, key, value
 *              and what is allowed.
 * @return 0 or -errno.
 */
int config_load(const char *path, struct lf_config *cfg, char *err, size_t errlen);

/** Free what config_load allocated. */
void config_free(struct lf_config *cfg);

/** Print the resolved configuration, defaults included, in INI form. */
void config_dump(const struct lf_config *cfg, FILE *f);

/**
 * Does the port's driver write each frame into its mbuf on the polling
 * core during rx_burst (a copy: net_pcap, net_tap, net_af_packet, net_memif
 * unless zero-copy=yes)? Then the data is in that core's L1 when the burst
 * returns and prefetching it only costs instructions.
 * @param driver   rte_eth_dev_info.driver_name.
 * @param devargs  The port's vdev devargs or PCI address.
 */
bool lf_driver_copies_rx(const char *driver, const char *devargs);

/**
 * Packet-data prefetch distance for the RX queues of a port: with
 * prefetch_distance = auto, 0 where the driver copies each frame
 * (lf_driver_copies_rx()) and prefetch_distance elsewhere; a number
 * applies to every port.
 */
uint16_t lf_port_prefetch_distance(const struct lf_pipeline_conf *p, const char *driver,
				   const char *devargs);

/**
 * What the lookup tables of a configuration need, in bytes: a rough
 * estimate from constants measured on DPDK 22.11 (docs/security.md,
 * "Memory estimate"). The FIB figures follow from the table sizes and are
 * close; the ACL figures are per rule, and real rule sets vary several
 * times around them. Mbuf pools are not included.
 */
struct lf_mem_estimate {
	uint64_t fib4; /**< DIR24_8: tbl24, tbl8 groups, RIB nodes. */
	uint64_t fib6; /**< Trie: tbl24, tbl8 groups, RIB nodes. */
	uint64_t acl4; /**< IPv4 classifier, built. */
	uint64_t acl6; /**< IPv6 classifier, built. */
	uint64_t acl_build; /**< Heap (not EAL memory) rte_acl_build() takes while it runs. */
	uint64_t flow; /**< Flow tables of all workers. */
	uint64_t upf; /**< [upf]: the session store and the workers' rule slots. */
	uint64_t total; /**< EAL memory: all but acl_build. */
	uint64_t limit; /**< [eal] memory in bytes, 0: not set. */
	bool no_huge_default; /**< huge = no without memory: EAL gives 64 MiB. */
};

/**
 * Estimate what the tables of cfg need with the given rule counts.
 */
void config_mem_estimate(const struct lf_config *cfg, size_t acl4_rules, size_t acl6_rules,
			 struct lf_mem_estimate *e);

/**
 * Refuse tables that cannot fit: an estimate above [eal] memory, where the
 * configuration sets it.
 * @return 0, or -E2BIG with the reason in err naming the file, line, key
 *         and value.
 */
int config_mem_check(const struct lf_config *cfg, const struct lf_mem_estimate *e, char *err,
		     size_t errlen);

/** Print the estimate as '#' comment lines (--check-config). */
void config_mem_print(const struct lf_mem_estimate *e, FILE *f);

/** Index of the port called NAME, or -1. */
int config_port_index(const struct lf_config *cfg, const char *name);

/**
 * Build the EAL argument vector from the [eal] and [port] sections.
 * @return argc, or -ENOSPC if it does not fit in max.
 */
int config_eal_args(const struct lf_config *cfg, char *argv0, char **argv, int max, char *buf,
		    size_t buflen);

#endif /* LF_CONFIG_H */
