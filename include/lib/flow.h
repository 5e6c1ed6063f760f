/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Flow table: exact match on the 5-tuple (IPv4 or IPv6) plus the ingress
 * context (port, VLAN, tunnel id), one table per worker (RSS keeps a flow on
 * one worker), no locks and no atomic read-modify-write.
 *
 * A flow lives in an entry split in two:
 *  - struct lf_flow_hot, one 64-byte cache line: the head of the key (the
 *    whole key for IPv4), the cached verdict and its generation, the output
 *    port, the next-hop MACs, last-seen time and the packet/byte counters;
 *    everything a hit touches;
 *  - struct lf_flow_cold, elsewhere: the full key copy (the rest of an IPv6
 *    key is compared there), the creation time, where the entry sits in the
 *    bucket array.
 * The buckets are a separate array of 64-byte lines, 8 slots each, holding a
 * 16-bit signature and a 32-bit entry index per slot (bucketized cuckoo hash,
 * two candidate buckets per key). A lookup of a burst runs as a pipeline:
 * hash and prefetch the bucket of key i, match the signatures and prefetch
 * the entry of key i - d, compare the key of entry i - 2d.
 *
 * For measurements the table can also be built with one fat 128-byte entry
 * per flow (LF_FLOW_LAYOUT_FAT: cold data first, then the hot line): the
 * naive layout docs/flow-scale.md compares against.
 *
 * Everything but lf_flow_create/lf_flow_free is called by the owning worker
 * only. The fast path functions do not allocate, lock or log.
 */
#ifndef LF_FLOW_H
#define LF_FLOW_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

/**
 * Flow key: 48 bytes, fixed layout, every unused byte zero so that two keys
 * are equal exactly when memcmp() says so. Addresses are in network byte
 * order; an IPv4 address takes the first 4 bytes of its 16 and the other 12
 * are zero. Ports are in network byte order (0 when the packet has none:
 * not UDP/TCP/SCTP, or a non-first fragment). in_port, vlan and tunnel_id
 * are in host byte order.
 */
struct lf_flow_key {
	uint8_t af; /**< 4 or 6. */
	uint8_t proto; /**< IPPROTO_*. */
	uint16_t in_port; /**< Ingress port index. */
	uint16_t vlan; /**< Outer VLAN id, 0 if untagged. */
	uint16_t rsvd; /**< Zero. */
	uint16_t sport; /**< Source port, network byte order. */
	uint16_t dport; /**< Destination port, network byte order. */
	uint32_t tunnel_id; /**< VXLAN VNI / GTP-U TEID; 0 for now. */
	uint8_t src[16]; /**< Source address. */
	uint8_t dst[16]; /**< Destination address. */
};

/** First 24 bytes of a key as a hot entry keeps them: all of an IPv4 key. */
struct lf_flow_khead {
	uint64_t w0; /**< af, proto, in_port, vlan, rsvd. */
	uint64_t w1; /**< sport, dport, tunnel_id. */
	uint32_t src; /**< src[0..3]. */
	uint32_t dst; /**< dst[0..3]. */
};

/** Hot part of a flow: everything one packet of the flow reads or writes. */
struct lf_flow_hot {
	struct lf_flow_khead key; /**< Table: compared on lookup. */
	uint32_t gen; /**< Caller: tables generation the verdict was made under. */
	uint16_t out_port; /**< Caller: output port index. */
	uint8_t action; /**< Caller: cached verdict (its own encoding). */
	uint8_t flags; /**< Caller: free for its use. */
	struct rte_ether_addr dst_mac; /**< Caller: next-hop destination MAC. */
	struct rte_ether_addr src_mac; /**< Caller: source MAC. */
	uint32_t last_seen; /**< Table: time of the last hit, TSC >> LF_FLOW_TIME_SHIFT. */
	uint64_t pkts; /**< Caller: packets of the flow. */
	uint64_t bytes; /**< Caller: bytes of the flow. */
} __rte_cache_aligned;

/** Cold part of a flow: read on insert, delete, expiry and for IPv6 keys. */
struct lf_flow_cold {
	struct lf_flow_key key; /**< Full key copy. */
	uint64_t created; /**< TSC at insertion. */
	uint32_t bucket; /**< Bucket holding the entry. */
	uint8_t slot; /**< Slot in the bucket; LF_FLOW_SLOT_FREE when unused. */
	uint8_t pad[3];
} __rte_cache_aligned;

#define LF_FLOW_SLOT_FREE 0xff

/** Timestamps in entries are TSC >> LF_FLOW_TIME_SHIFT (32 bits). */
#define LF_FLOW_TIME_SHIFT 16

/** Entry layouts (chosen at creation; for measurements). */
enum lf_flow_layout {
	LF_FLOW_LAYOUT_HOTCOLD, /**< Hot and cold arrays: one line per hit. */
	LF_FLOW_LAYOUT_FAT, /**< One 128-byte entry, cold line first: two lines per hit. */
};

/** What lf_flow_insert() does when a key's two buckets or the entries are full. */
enum lf_flow_evict {
	LF_FLOW_EVICT_NONE, /**< Reuse only idle entries; else return NULL (overflow). */
	LF_FLOW_EVICT_OLDEST, /**< Evict the least recently seen of the 16 candidates. */
};

/** Creation parameters. */
struct lf_flow_params {
	const char *name; /**< Memory zone name prefix, unique per table. */
	uint32_t capacity; /**< Flows, 1..LF_FLOW_MAX_CAPACITY. */
	int socket; /**< NUMA socket of the memory (the worker's), or SOCKET_ID_ANY. */
	uint64_t idle_timeout_tsc; /**< A flow unseen for longer is idle; 0 = never. */
	enum lf_flow_evict evict;
	enum lf_flow_layout layout;
	/**
	 * Buckets (8 slots each), a power of two; 0 (the default) sizes the
	 * table at 2 slots per flow, so a full table fills half the slots and
	 * almost every flow sits in its primary bucket. Fewer buckets save
	 * 32 bytes per flow per halving and move more flows to their second
	 * bucket, or out of the table.
	 */
	uint32_t buckets;
};

/** Largest capacity (entry indexes and bucket numbers fit in 32 bits). */
#define LF_FLOW_MAX_CAPACITY (1u << 28)

/** Counters of one table. Single writer (the owner); read with LF_STAT_READ. */
struct lf_flow_stats {
	uint64_t lookups; /**< Keys looked up. */
	uint64_t hits;
	uint64_t misses;
	uint64_t inserts; /**< New flows. */
	uint64_t deletes; /**< lf_flow_delete() that found the key. */
	uint64_t evictions; /**< Live flows removed to make room. */
	uint64_t expired; /**< Idle flows removed (lf_flow_expire or reuse on insert). */
	uint64_t overflow; /**< Inserts that returned NULL. */
	uint64_t count; /**< Flows in the table now. */
};

struct lf_flow_table;

/**
 * Build the key of a parsed packet: family af (4 or 6), upper-layer
 * protocol l4_proto, IP header at l3_off, L4 header at l4_off (0: none).
 * Ports are read for UDP, TCP and SCTP when l4_off != 0.
 */
void lf_flow_key_from_pkt(const struct rte_mbuf *m, uint8_t af, uint8_t l4_proto, uint16_t l3_off,
			  uint16_t l4_off, uint16_t in_port, uint16_t vlan, struct lf_flow_key *k);

/**
 * The key lf_flow_key_from_pkt() gives an IPv4 packet, from its fields
 * (addresses and ports as they are in the packet, network order; ports 0
 * when the packet has none), written as six 8-byte stores.
 */
static inline void
lf_flow_key_ipv4(struct lf_flow_key *k, uint8_t proto, uint16_t in_port, uint16_t vlan,
		 uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
	uint64_t *w = (uint64_t *)k;

	RTE_BUILD_BUG_ON(sizeof(*k) != 48);
	RTE_BUILD_BUG_ON(offsetof(struct lf_flow_key, src) != 16);
	RTE_BUILD_BUG_ON(offsetof(struct lf_flow_key, dst) != 32);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	w[0] = 4 | (uint64_t)proto << 8 | (uint64_t)in_port << 16 | (uint64_t)vlan << 32;
	w[1] = sport | (uint64_t)dport << 16;
	w[2] = src;
	w[3] = 0;
	w[4] = dst;
	w[5] = 0;
#else
	memset(k, 0, sizeof(*k));
	k->af = 4;
	k->proto = proto;
	k->in_port = in_port;
	k->vlan = vlan;
	k->sport = sport;
	k->dport = dport;
	memcpy(k->src, &src, 4);
	memcpy(k->dst, &dst, 4);
#endif
}

/**
 * The key lf_flow_key_from_pkt() gives a packet lf_parse_ipv4_plain()
 * accepted (untagged IPv4 without options, not a later fragment, its L4
 * header whole in the first segment), read from the header directly: ports
 * for UDP and TCP, none for other protocols (tests/unit/test_flow.c
 * compares the two).
 */
static inline void
lf_flow_key_plain_ipv4_at(const uint8_t *d, unsigned int proto, uint16_t in_port,
			  struct lf_flow_key *k)
{
	uint16_t ports[2] = { 0, 0 };
	uint32_t src, dst;

	memcpy(&src, d + RTE_ETHER_HDR_LEN + 12, sizeof(src));
	memcpy(&dst, d + RTE_ETHER_HDR_LEN + 16, sizeof(dst));
	if (proto == IPPROTO_UDP || proto == IPPROTO_TCP)
		memcpy(ports, d + RTE_ETHER_HDR_LEN + 20, sizeof(ports));
	lf_flow_key_ipv4(k, (uint8_t)proto, in_port, 0, src, dst, ports[0], ports[1]);
}

/** lf_flow_key_plain_ipv4_at() on the packet's data. */
static inline void
lf_flow_key_plain_ipv4(const struct rte_mbuf *m, unsigned int proto, uint16_t in_port,
		       struct lf_flow_key *k)
{
	lf_flow_key_plain_ipv4_at(rte_pktmbuf_mtod(m, const uint8_t *), proto, in_port, k);
}

/**
 * Create a table with all memory (buckets, entries, free list) on p->socket.
 * @return the table, or NULL with rte_errno set (EINVAL, ENOMEM).
 */
struct lf_flow_table *lf_flow_create(const struct lf_flow_params *p);

/** Free a table (NULL is allowed). */
void lf_flow_free(struct lf_flow_table *t);

/** Bytes of memory the table holds (buckets, entries, free list, header). */
size_t lf_flow_mem_bytes(const struct lf_flow_table *t);

/** Capacity the table was created with. */
uint32_t lf_flow_capacity(const struct lf_flow_table *t);

/** The table's counters (the owner writes them; others read each field). */
const struct lf_flow_stats *lf_flow_stats(const struct lf_flow_table *t);

/**
 * Look up n keys. out[i] is the hot entry of keys[i], or NULL on a miss.
 * A hit sets the entry's last_seen to now; the caller updates pkts/bytes and
 * checks the verdict's generation (lf_flow_verdict_valid()).
 *
 * @param prefetch pipeline distance in keys: the bucket of key i + 2d and
 *   the entry of key i + d are prefetched while key i is compared; 0 runs
 *   every key to completion without prefetch; values above 32 act as 32
 *   (the pipeline works on chunks of 64 keys).
 * @param now current TSC.
 */
void lf_flow_lookup_burst(struct lf_flow_table *t, const struct lf_flow_key *keys, uint16_t n,
			  unsigned int prefetch, uint64_t now, struct lf_flow_hot **out);

/**
 * Hash a key for lf_flow_lookup_burst_hashed() and prefetch its primary
 * bucket: the first stage of the lookup, run as each key is built so that
 * the bucket loads overlap the building of the other keys.
 */
uint64_t lf_flow_hash_prefetch(const struct lf_flow_table *t, const struct lf_flow_key *key);

/**
 * lf_flow_lookup_burst() for keys whose hashes lf_flow_hash_prefetch()
 * gave (hash[i] for keys[i]). Same results and counters; with the buckets
 * already on their way, each key's entry is prefetched 2 * prefetch keys
 * before it is compared (0: no prefetch).
 */
void lf_flow_lookup_burst_hashed(struct lf_flow_table *t, const struct lf_flow_key *keys,
				 const uint64_t *hash, uint16_t n, unsigned int prefetch,
				 uint64_t now, struct lf_flow_hot **out);

/**
 * Add a flow, or find it if it is there. A new entry has its key set,
 * last_seen = now, and every caller field zero: the caller fills in the
 * verdict, generation, output port and MACs. To make room the table first
 * moves entries to their other bucket, then reuses an idle entry (counted
 * expired), then, with LF_FLOW_EVICT_OLDEST, evicts the least recently seen
 * flow among the key's two buckets (counted evictions).
 * @return the entry, or NULL (counted overflow): the caller forwards the
 *   packet on the slow path and tries again on a later packet.
 */
struct lf_flow_hot *lf_flow_insert(struct lf_flow_table *t, const struct lf_flow_key *key,
				   uint64_t now);

/** Remove a flow. @return 0, or -ENOENT. */
int lf_flow_delete(struct lf_flow_table *t, const struct lf_flow_key *key);

/**
 * Incremental aging: examine up to budget entries, continuing where the last
 * call stopped, and remove those idle for longer than the idle timeout.
 * @return flows removed.
 */
unsigned int lf_flow_expire(struct lf_flow_table *t, uint64_t now, unsigned int budget);

/** Cold data (full key, creation time) of a hot entry of this table. */
const struct lf_flow_cold *lf_flow_cold_of(const struct lf_flow_table *t,
					   const struct lf_flow_hot *e);

/** Whether a cached verdict was made under the current tables generation. */
static inline bool
lf_flow_verdict_valid(const struct lf_flow_hot *e, uint32_t gen)
{
	return e->gen == gen;
}

/** Count one packet of len bytes on a hit. */
static inline void
lf_flow_count(struct lf_flow_hot *e, uint32_t len)
{
	e->pkts++;
	e->bytes += len;
}

#endif /* LF_FLOW_H */
