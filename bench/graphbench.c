/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-graphbench: what DPDK's rte_graph costs per packet against a fixed
 * list of stage functions, for the same per-packet work, on one core and
 * without a NIC (docs/graph-vs-stages.md, bench/bench-graph.sh).
 *
 * The work is N stages (1 to 5). Each stage either touches one mbuf field
 * ("triv": adds to hash.rss) or reads 16 bytes of the frame, hashes them with
 * the previous stage's result and looks the hash up in a 256-entry table of
 * its own ("real"; the result goes to hash.rss for the next stage). A
 * stage drops a packet when its value has every bit of drop_mask set; the
 * timed runs use a mask no value matches, so nothing drops, but no shape
 * can leave its drop path out.
 *
 * The same work runs in four shapes, in one process:
 *  - list: stage functions uint16_t stage(ctx, pkts, n), called in order
 *    through a table of function pointers chosen once per setting; each
 *    compacts from its first drop on and returns how many go on, as
 *    lanefwd's stages do.
 *  - graph: the stages as rte_graph nodes (RTE_NODE_REGISTER), a source node
 *    that hands out a burst, a sink that counts; a node whose packets all
 *    go on moves its stream to the next node (rte_node_next_stream_move);
 *    rte_graph_walk() once per burst, as Debian's DPDK builds it (per-node
 *    statistics on: RTE_LIBRTE_GRAPH_STATS 1).
 *  - graph-nostats: the same graph, walked by rte_graph_walk() compiled
 *    with the statistics off (graphbench_walk.c).
 *  - fused: one function that does every stage's work per packet in one
 *    loop.
 * and for three traffic mixes: "single" (one kind, no classifier), and
 * "splitP" where a classifier reads the EtherType and sends each packet to
 * the stage list (or node chain) of its kind, P percent of them kind B.
 * A burst of one kind goes on whole (run as it is; in the graph,
 * rte_node_next_stream_move); a mixed one is split into two vectors (in the
 * graph, rte_node_enqueue_x4 when four neighbours share a kind, else x1).
 *
 * The mbufs are allocated once: per mix a pool of --pool frames that the
 * source hands out in turn, burst after burst, so only dispatch and work
 * are timed, with everything hot in cache. One timed block is --packets
 * packets of one shape and mix; a round times every (mix, shape) block once,
 * in an order that rotates and reverses from round to round; figures are
 * medians over --rounds rounds of TSC cycles per packet, and the
 * differences (graph - list, split - single) are medians of the per-round
 * differences, so they are paired in time.
 *
 * Before timing, every shape runs the pool twice with a drop mask that drops
 * about one packet in eight per stage, from the same starting hash.rss
 * values: the forwarded and dropped counts and the sum of the pool's final
 * hash.rss values must equal the list shape's. A failed check prints FAIL
 * and exits with status 3. Each timed block must also forward every packet.
 * Each round also times a chain of dependent adds: its TSC cycles per add
 * (tsc_per_cycle) show how fast the core ran against the TSC, which on a
 * shared VM moves the absolute figures from one setting or run to the next.
 *
 * usage: lanefwd-graphbench [EAL args] -- [--stages 1,3,5] [--burst 32,256]
 *        [--work triv,real] [--mix single,0,50] [--rounds N] [--packets N]
 *        [--pool N] [--csv FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_udp.h>
#include <rte_version.h>

#include "graphbench.h"

#define GB_STAGES_MAX 5
#define GB_BURST_MAX RTE_GRAPH_BURST_SIZE /* A node's stream holds this many at first. */
#define GB_TABLE_BITS 8
#define GB_TABLE_SIZE (1u << GB_TABLE_BITS)
#define GB_FRAME_LEN 64
#define GB_LIST_MAX 8
#define GB_ROUNDS_MAX 101
/* Work values keep bit 31 clear, so this mask never drops. */
#define GB_NEVER_DROP (UINT32_C(1) << 31)
#define GB_VALUE_MASK (GB_NEVER_DROP - 1)
#define GB_CHECK_DROP UINT32_C(0x7) /* About one in eight. */
#define EXIT_CHECK 3

enum gb_work { GB_WORK_TRIV, GB_WORK_REAL, GB_WORK_COUNT };
static const char *const gb_work_names[GB_WORK_COUNT] = { "triv", "real" };

enum gb_kind { GB_KIND_A, GB_KIND_B, GB_KIND_COUNT };

enum gb_shape {
	GB_SHAPE_LIST,
	GB_SHAPE_GRAPH,
	GB_SHAPE_GRAPH_NOSTATS,
	GB_SHAPE_FUSED,
	GB_SHAPE_COUNT
};
static const char *const gb_shape_names[GB_SHAPE_COUNT] = { "list", "graph", "graph-nostats",
							    "fused" };

/* A stage node's edges. */
enum gb_edge { GB_EDGE_NEXT, GB_EDGE_DROP, GB_EDGE_COUNT };

/* What every stage, node and shape reads and counts; one per process. */
struct gb_ctx {
	uint32_t table[GB_KIND_COUNT][GB_STAGES_MAX][GB_TABLE_SIZE];
	uint32_t drop_mask; /* A value with all of these bits set is dropped. */
	/* The traffic source: pool[pos..pos+burst) is the next burst. */
	struct rte_mbuf **pool;
	uint32_t pos;
	uint32_t pool_mask;
	uint16_t burst;
	uint64_t forwarded; /* The list's end, the fused loop and the sink add. */
	uint64_t dropped;
} __rte_cache_aligned;

typedef uint16_t (*gb_stage_fn)(struct gb_ctx *ctx, struct rte_mbuf **pkts, uint16_t n);

struct gb_opts {
	unsigned int stages[GB_LIST_MAX], n_stages;
	unsigned int burst[GB_LIST_MAX], n_burst;
	bool work[GB_WORK_COUNT];
	int mix[GB_LIST_MAX]; /* Percent of kind B; -1: one kind, no classifier. */
	unsigned int n_mix;
	unsigned int rounds;
	uint32_t packets; /* Per timed block. */
	uint32_t pool; /* Frames per mix; a power of two. */
	const char *csv;
	bool verbose; /* Print every round's figures too. */
};

/* One way to run a setting: the single-kind path or the split one. */
struct gb_plan {
	bool split;
	unsigned int nstages;
	gb_stage_fn list[GB_KIND_COUNT][GB_STAGES_MAX];
	gb_stage_fn fused;
	rte_graph_t graph_id;
	struct rte_graph *graph;
	uint64_t reallocs; /* The graph's stream reallocations before timing. */
};

/* ---- the work ---- */

static inline unsigned int
gb_kind_of(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6);
}

/*
 * Stage s of a kind: its value for m, also left in hash.rss for the next
 * stage. The constant arguments pick the variant at compile time.
 */
static inline uint32_t
gb_work(const struct gb_ctx *ctx, struct rte_mbuf *m, const enum gb_work work,
	const enum gb_kind kind, const unsigned int s)
{
	uint64_t w0, w1, h;
	uint32_t v;

	if (work == GB_WORK_TRIV) {
		v = (m->hash.rss + s + 1) & GB_VALUE_MASK;
	} else {
		const uint8_t *p =
			rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN + 4 * s);

		memcpy(&w0, p, sizeof(w0));
		memcpy(&w1, p + sizeof(w0), sizeof(w1));
		h = (w0 ^ (w1 << 29 | w1 >> 35) ^ m->hash.rss) * UINT64_C(0x9e3779b97f4a7c15);
		v = ctx->table[kind][s][h >> (64 - GB_TABLE_BITS)];
	}
	m->hash.rss = v;
	return v;
}

static inline bool
gb_dropped(const struct gb_ctx *ctx, uint32_t v)
{
	return (v & ctx->drop_mask) == ctx->drop_mask;
}

/* ---- shape: stage list ---- */

/*
 * One stage over a burst. Up to the first drop every packet stays where it
 * is; from there on the kept ones move down over the dropped, as lanefwd's
 * stages do (lf_burst_keep). Dropped mbufs are only counted: the pool keeps
 * them.
 */
static inline uint16_t
gb_stage_body(struct gb_ctx *ctx, struct rte_mbuf **pkts, uint16_t n, const enum gb_work work,
	      const enum gb_kind kind, const unsigned int s)
{
	uint16_t i, k;

	for (i = 0; i < n; i++)
		if (unlikely(gb_dropped(ctx, gb_work(ctx, pkts[i], work, kind, s))))
			break;
	if (likely(i == n))
		return n;
	ctx->dropped++;
	for (k = i++; i < n; i++) {
		if (gb_dropped(ctx, gb_work(ctx, pkts[i], work, kind, s))) {
			ctx->dropped++;
			continue;
		}
		pkts[k++] = pkts[i];
	}
	return k;
}

/* ---- shape: graph ---- */

struct gb_node_ctx {
	struct gb_ctx *ctx;
};

/* What node init callbacks put in each node's context. */
static struct gb_ctx *gb_ctx_for_init;

static int
gb_node_init(const struct rte_graph *graph, struct rte_node *node)
{
	RTE_BUILD_BUG_ON(sizeof(struct gb_node_ctx) > RTE_NODE_CTX_SZ);
	RTE_SET_USED(graph);
	((struct gb_node_ctx *)node->ctx)->ctx = gb_ctx_for_init;
	return 0;
}

static inline struct gb_ctx *
gb_node_ctx(struct rte_node *node)
{
	return ((struct gb_node_ctx *)node->ctx)->ctx;
}

/*
 * One stage as a node: if no packet drops, the whole stream moves to the
 * next node (a pointer swap); from the first drop on, each packet is
 * enqueued to its own edge.
 */
static inline uint16_t
gb_node_body(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n,
	     const enum gb_work work, const enum gb_kind kind, const unsigned int s)
{
	struct gb_ctx *ctx = gb_node_ctx(node);
	uint16_t i;

	for (i = 0; i < n; i++)
		if (unlikely(gb_dropped(ctx, gb_work(ctx, objs[i], work, kind, s))))
			break;
	if (likely(i == n)) {
		rte_node_next_stream_move(graph, node, GB_EDGE_NEXT);
		return n;
	}
	if (i != 0)
		rte_node_enqueue(graph, node, GB_EDGE_NEXT, objs, i);
	rte_node_enqueue_x1(graph, node, GB_EDGE_DROP, objs[i]);
	for (i++; i < n; i++) {
		const uint32_t v = gb_work(ctx, objs[i], work, kind, s);

		rte_node_enqueue_x1(graph, node, gb_dropped(ctx, v) ? GB_EDGE_DROP : GB_EDGE_NEXT,
				    objs[i]);
	}
	return n;
}

/*
 * Every (work, kind, stage) as a list function and as a registered node
 * (gb_<work>_<kind><stage>). Edge 0 goes to the next stage or the sink, as
 * gb_wire() sets it for a setting; edge 1 to the drop node.
 */
#define GB_W_triv GB_WORK_TRIV
#define GB_W_real GB_WORK_REAL
#define GB_K_a GB_KIND_A
#define GB_K_b GB_KIND_B

#define GB_STAGE(W, K, S)                                                                        \
	static __rte_noinline uint16_t gb_stage_##W##_##K##S(struct gb_ctx *ctx,                 \
							     struct rte_mbuf **pkts, uint16_t n) \
	{                                                                                        \
		return gb_stage_body(ctx, pkts, n, GB_W_##W, GB_K_##K, S - 1);                   \
	}                                                                                        \
	static uint16_t gb_node_##W##_##K##S(struct rte_graph *graph, struct rte_node *node,     \
					     void **objs, uint16_t n)                            \
	{                                                                                        \
		return gb_node_body(graph, node, objs, n, GB_W_##W, GB_K_##K, S - 1);            \
	}                                                                                        \
	static struct rte_node_register gb_reg_##W##_##K##S = {                                  \
		.name = "gb_" #W "_" #K #S,                                                      \
		.process = gb_node_##W##_##K##S,                                                 \
		.init = gb_node_init,                                                            \
		.nb_edges = GB_EDGE_COUNT,                                                       \
		.next_nodes = { "gb_sink", "gb_drop" },                                          \
	};                                                                                       \
	RTE_NODE_REGISTER(gb_reg_##W##_##K##S)

#define GB_STAGES(W, K)    \
	GB_STAGE(W, K, 1); \
	GB_STAGE(W, K, 2); \
	GB_STAGE(W, K, 3); \
	GB_STAGE(W, K, 4); \
	GB_STAGE(W, K, 5)

GB_STAGES(triv, a);
GB_STAGES(triv, b);
GB_STAGES(real, a);
GB_STAGES(real, b);

#define GB_STAGE_FNS(W, K)                                                           \
	{                                                                            \
		gb_stage_##W##_##K##1, gb_stage_##W##_##K##2, gb_stage_##W##_##K##3, \
			gb_stage_##W##_##K##4, gb_stage_##W##_##K##5                 \
	}

static const gb_stage_fn gb_stage_fns[GB_WORK_COUNT][GB_KIND_COUNT][GB_STAGES_MAX] = {
	[GB_WORK_TRIV] = { GB_STAGE_FNS(triv, a), GB_STAGE_FNS(triv, b) },
	[GB_WORK_REAL] = { GB_STAGE_FNS(real, a), GB_STAGE_FNS(real, b) },
};

static inline uint16_t
gb_rx(struct gb_ctx *ctx, struct rte_mbuf **pkts)
{
	const uint16_t n = ctx->burst;

	rte_memcpy(pkts, &ctx->pool[ctx->pos], n * sizeof(pkts[0]));
	ctx->pos = (ctx->pos + n) & ctx->pool_mask;
	return n;
}

/* The source: the next burst of the pool, written into the next node's stream. */
static uint16_t
gb_src_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb_objs)
{
	struct gb_ctx *ctx = gb_node_ctx(node);
	const uint16_t n = ctx->burst;
	void **to;

	RTE_SET_USED(objs);
	RTE_SET_USED(nb_objs);
	to = rte_node_next_stream_get(graph, node, 0, n);
	rte_memcpy(to, &ctx->pool[ctx->pos], n * sizeof(to[0]));
	ctx->pos = (ctx->pos + n) & ctx->pool_mask;
	rte_node_next_stream_put(graph, node, 0, n);
	return n;
}

static struct rte_node_register gb_src_node = {
	.name = "gb_src",
	.flags = RTE_NODE_SOURCE_F,
	.process = gb_src_process,
	.init = gb_node_init,
	.nb_edges = 1,
	.next_nodes = { "gb_sink" },
};
RTE_NODE_REGISTER(gb_src_node);

/*
 * The classifier: edge k goes to kind k's first stage. It is fed only by
 * the source, so it never holds more than GB_BURST_MAX packets.
 */
static uint16_t
gb_cls_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	uint8_t kind[GB_BURST_MAX];
	uint16_t i, nb = 0;
	uint32_t q;

	RTE_ASSERT(n <= GB_BURST_MAX);
	for (i = 0; i < n; i++) {
		kind[i] = gb_kind_of(objs[i]);
		nb += kind[i];
	}
	if (nb == 0 || nb == n) {
		rte_node_next_stream_move(graph, node, nb == 0 ? GB_KIND_A : GB_KIND_B);
		return n;
	}
	for (i = 0; i + 4 <= n; i += 4) {
		memcpy(&q, &kind[i], sizeof(q));
		if (q == 0 || q == UINT32_C(0x01010101)) {
			rte_node_enqueue_x4(graph, node, kind[i], objs[i], objs[i + 1], objs[i + 2],
					    objs[i + 3]);
			continue;
		}
		rte_node_enqueue_x1(graph, node, kind[i], objs[i]);
		rte_node_enqueue_x1(graph, node, kind[i + 1], objs[i + 1]);
		rte_node_enqueue_x1(graph, node, kind[i + 2], objs[i + 2]);
		rte_node_enqueue_x1(graph, node, kind[i + 3], objs[i + 3]);
	}
	for (; i < n; i++)
		rte_node_enqueue_x1(graph, node, kind[i], objs[i]);
	return n;
}

static struct rte_node_register gb_cls_node = {
	.name = "gb_cls",
	.process = gb_cls_process,
	.nb_edges = GB_KIND_COUNT,
	.next_nodes = { "gb_sink", "gb_drop" },
};
RTE_NODE_REGISTER(gb_cls_node);

static uint16_t
gb_sink_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	RTE_SET_USED(graph);
	RTE_SET_USED(objs);
	gb_node_ctx(node)->forwarded += n;
	return n;
}

static struct rte_node_register gb_sink_node = {
	.name = "gb_sink",
	.process = gb_sink_process,
	.init = gb_node_init,
};
RTE_NODE_REGISTER(gb_sink_node);

static uint16_t
gb_drop_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t n)
{
	RTE_SET_USED(graph);
	RTE_SET_USED(objs);
	gb_node_ctx(node)->dropped += n;
	return n;
}

static struct rte_node_register gb_drop_node = {
	.name = "gb_drop",
	.process = gb_drop_process,
	.init = gb_node_init,
};
RTE_NODE_REGISTER(gb_drop_node);

/* ---- shape: fused ---- */

static inline bool
gb_fused_one(const struct gb_ctx *ctx, struct rte_mbuf *m, const enum gb_work work,
	     const enum gb_kind kind, const unsigned int nstages)
{
	unsigned int s;

	for (s = 0; s < nstages; s++)
		if (unlikely(gb_dropped(ctx, gb_work(ctx, m, work, kind, s))))
			return false;
	return true;
}

static inline bool
gb_fused_pkt(const struct gb_ctx *ctx, struct rte_mbuf *m, const enum gb_work work,
	     const unsigned int nstages, const bool split)
{
	if (split && gb_kind_of(m) == GB_KIND_B)
		return gb_fused_one(ctx, m, work, GB_KIND_B, nstages);
	return gb_fused_one(ctx, m, work, GB_KIND_A, nstages);
}

/* Every stage of a packet before the next packet; compacts as the stages do. */
static inline uint16_t
gb_fused_body(struct gb_ctx *ctx, struct rte_mbuf **pkts, uint16_t n, const enum gb_work work,
	      const unsigned int nstages, const bool split)
{
	uint16_t i, k;

	for (i = 0; i < n; i++)
		if (unlikely(!gb_fused_pkt(ctx, pkts[i], work, nstages, split)))
			break;
	if (likely(i == n))
		return n;
	ctx->dropped++;
	for (k = i++; i < n; i++) {
		if (!gb_fused_pkt(ctx, pkts[i], work, nstages, split)) {
			ctx->dropped++;
			continue;
		}
		pkts[k++] = pkts[i];
	}
	return k;
}

#define GB_FUSED(W, N)                                                                             \
	static __rte_noinline uint16_t gb_fused_##W##N(struct gb_ctx *ctx, struct rte_mbuf **pkts, \
						       uint16_t n)                                 \
	{                                                                                          \
		return gb_fused_body(ctx, pkts, n, GB_W_##W, N, false);                            \
	}                                                                                          \
	static __rte_noinline uint16_t gb_fused_##W##N##_split(struct gb_ctx *ctx,                 \
							       struct rte_mbuf **pkts, uint16_t n) \
	{                                                                                          \
		return gb_fused_body(ctx, pkts, n, GB_W_##W, N, true);                             \
	}

#define GB_FUSED_ALL(W) \
	GB_FUSED(W, 1)  \
	GB_FUSED(W, 2)  \
	GB_FUSED(W, 3)  \
	GB_FUSED(W, 4)  \
	GB_FUSED(W, 5)

GB_FUSED_ALL(triv)
GB_FUSED_ALL(real)

#define GB_FUSED_FNS(W)                                             \
	{                                                           \
		{ gb_fused_##W##1, gb_fused_##W##1_split },         \
			{ gb_fused_##W##2, gb_fused_##W##2_split }, \
			{ gb_fused_##W##3, gb_fused_##W##3_split }, \
			{ gb_fused_##W##4, gb_fused_##W##4_split }, \
			{ gb_fused_##W##5, gb_fused_##W##5_split }, \
	}

/* [work][stages - 1][split] */
static const gb_stage_fn gb_fused_fns[GB_WORK_COUNT][GB_STAGES_MAX][2] = {
	[GB_WORK_TRIV] = GB_FUSED_FNS(triv),
	[GB_WORK_REAL] = GB_FUSED_FNS(real),
};

/* ---- timed blocks ---- */

static inline uint16_t
gb_list_run(struct gb_ctx *ctx, const gb_stage_fn *list, unsigned int nstages,
	    struct rte_mbuf **pkts, uint16_t n)
{
	unsigned int s;

	for (s = 0; s < nstages && n != 0; s++)
		n = list[s](ctx, pkts, n);
	return n;
}

/*
 * The classifier of the list shape: a burst of one kind runs that kind's
 * list as it is; a mixed one is split into one vector per kind (both
 * written, one index advanced: no branch on the kind), and each kind's
 * list runs on its vector.
 */
static inline uint16_t
gb_list_split(struct gb_ctx *ctx, const struct gb_plan *p, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *va[GB_BURST_MAX], *vb[GB_BURST_MAX];
	uint8_t kind[GB_BURST_MAX];
	uint16_t i, na = 0, nb = 0;

	for (i = 0; i < n; i++) {
		kind[i] = gb_kind_of(pkts[i]);
		nb += kind[i];
	}
	if (nb == 0 || nb == n)
		return gb_list_run(ctx, p->list[nb == 0 ? GB_KIND_A : GB_KIND_B], p->nstages, pkts,
				   n);
	nb = 0;
	for (i = 0; i < n; i++) {
		va[na] = pkts[i];
		vb[nb] = pkts[i];
		na += kind[i] ^ 1;
		nb += kind[i];
	}
	return gb_list_run(ctx, p->list[GB_KIND_A], p->nstages, va, na) +
		gb_list_run(ctx, p->list[GB_KIND_B], p->nstages, vb, nb);
}

static __rte_noinline void
gb_block_list(struct gb_ctx *ctx, const struct gb_plan *p, uint32_t bursts)
{
	struct rte_mbuf *pkts[GB_BURST_MAX];
	uint32_t b;
	uint16_t n;

	for (b = 0; b < bursts; b++) {
		n = gb_rx(ctx, pkts);
		if (p->split)
			n = gb_list_split(ctx, p, pkts, n);
		else
			n = gb_list_run(ctx, p->list[GB_KIND_A], p->nstages, pkts, n);
		ctx->forwarded += n;
	}
}

static __rte_noinline void
gb_block_fused(struct gb_ctx *ctx, gb_stage_fn fused, uint32_t bursts)
{
	struct rte_mbuf *pkts[GB_BURST_MAX];
	uint32_t b;
	uint16_t n;

	for (b = 0; b < bursts; b++) {
		n = gb_rx(ctx, pkts);
		ctx->forwarded += fused(ctx, pkts, n);
	}
}

/* The walk as this build's headers have it: statistics on in Debian's DPDK. */
static __rte_noinline void
gb_walk_stats(struct rte_graph *graph, uint32_t walks)
{
	uint32_t i;

	for (i = 0; i < walks; i++)
		rte_graph_walk(graph);
}

/*
 * TSC cycles per core cycle, near enough: a chain of dependent adds runs one
 * add per core cycle, so this block's TSC cycles per add say at what clock
 * the core ran against the TSC (turbo, a host's share) when it ran.
 */
static __rte_noinline double
gb_tsc_per_cycle(void)
{
	const uint32_t adds = 200000;
	uint64_t x = 0, t0;
	uint32_t i;

	t0 = rte_rdtsc_precise();
	for (i = 0; i < adds; i++) {
		__asm__ volatile("" : "+r"(x));
		x++;
	}
	return (double)(rte_rdtsc_precise() - t0) / adds;
}

struct gb_bench {
	struct gb_opts o;
	struct gb_ctx *ctx;
	struct rte_mbuf **pool[GB_LIST_MAX]; /* One per mix. */
	struct gb_plan plan[2]; /* [split] */
	/* Cycles per packet, [mix][shape][round]. */
	double cpp[GB_LIST_MAX][GB_SHAPE_COUNT][GB_ROUNDS_MAX];
	double clock[GB_ROUNDS_MAX]; /* gb_tsc_per_cycle() once per round. */
	FILE *csv;
};

static const struct gb_plan *
gb_plan_of(const struct gb_bench *gb, unsigned int mix)
{
	return &gb->plan[gb->o.mix[mix] >= 0];
}

/* One shape over @p bursts bursts of mix @p mix's frames; returns TSC cycles. */
static uint64_t
gb_run(struct gb_bench *gb, unsigned int mix, enum gb_shape shape, uint32_t bursts)
{
	const struct gb_plan *p = gb_plan_of(gb, mix);
	struct gb_ctx *ctx = gb->ctx;
	uint64_t t0;

	ctx->pool = gb->pool[mix];
	ctx->pos = 0;
	ctx->forwarded = 0;
	ctx->dropped = 0;
	t0 = rte_rdtsc_precise();
	switch (shape) {
	case GB_SHAPE_LIST:
		gb_block_list(ctx, p, bursts);
		break;
	case GB_SHAPE_GRAPH:
		gb_walk_stats(p->graph, bursts);
		break;
	case GB_SHAPE_GRAPH_NOSTATS:
		gb_walk_nostats(p->graph, bursts);
		break;
	case GB_SHAPE_FUSED:
		gb_block_fused(ctx, p->fused, bursts);
		break;
	case GB_SHAPE_COUNT:
		break;
	}
	return rte_rdtsc_precise() - t0;
}

/* ---- set-up ---- */

static void
gb_node_name(char *buf, size_t len, enum gb_work w, enum gb_kind k, unsigned int s)
{
	snprintf(buf, len, "gb_%s_%c%u", gb_work_names[w], k == GB_KIND_A ? 'a' : 'b', s + 1);
}

static int
gb_edge_set(const char *node, rte_edge_t edge, const char *to)
{
	const char *names[1] = { to };
	rte_node_t id = rte_node_from_name(node);

	if (id == RTE_NODE_ID_INVALID || rte_node_edge_update(id, edge, names, 1) != 1) {
		fprintf(stderr, "graphbench: cannot set edge %u of node %s to %s\n", edge, node,
			to);
		return -1;
	}
	return 0;
}

/*
 * Point the registered nodes at one setting: the source at the classifier
 * (split) or kind A's first stage, the classifier at each kind's first
 * stage, each kind's stage s at stage s + 1 and the last at the sink. A
 * graph created afterwards takes what is reachable from the source.
 */
static int
gb_wire(enum gb_work w, unsigned int nstages, bool split)
{
	char name[RTE_NODE_NAMESIZE], next[RTE_NODE_NAMESIZE];
	unsigned int k, s;

	gb_node_name(next, sizeof(next), w, GB_KIND_A, 0);
	if (gb_edge_set("gb_src", 0, split ? "gb_cls" : next) < 0)
		return -1;
	for (k = 0; k < GB_KIND_COUNT; k++) {
		gb_node_name(next, sizeof(next), w, k, 0);
		if (gb_edge_set("gb_cls", k, next) < 0)
			return -1;
		for (s = 0; s < nstages; s++) {
			gb_node_name(name, sizeof(name), w, k, s);
			if (s + 1 < nstages)
				gb_node_name(next, sizeof(next), w, k, s + 1);
			else
				snprintf(next, sizeof(next), "gb_sink");
			if (gb_edge_set(name, GB_EDGE_NEXT, next) < 0)
				return -1;
		}
	}
	return 0;
}

static uint64_t
gb_graph_reallocs(struct rte_graph *graph)
{
	struct rte_node *node;
	rte_graph_off_t off;
	rte_node_t count;
	uint64_t sum = 0;

	rte_graph_foreach_node(count, off, graph, node) sum += node->realloc_count;
	return sum;
}

static int
gb_plan_make(struct gb_plan *p, enum gb_work w, unsigned int nstages, bool split)
{
	static unsigned int seq;
	const char *patterns[] = { "gb_src" };
	struct rte_graph_param prm = {
		.socket_id = (int)rte_socket_id(),
		.nb_node_patterns = RTE_DIM(patterns),
		.node_patterns = patterns,
	};
	char name[RTE_GRAPH_NAMESIZE];
	unsigned int k, s;

	memset(p, 0, sizeof(*p));
	p->split = split;
	p->nstages = nstages;
	for (k = 0; k < GB_KIND_COUNT; k++)
		for (s = 0; s < nstages; s++)
			p->list[k][s] = gb_stage_fns[w][k][s];
	p->fused = gb_fused_fns[w][nstages - 1][split];
	if (gb_wire(w, nstages, split) < 0)
		return -1;
	snprintf(name, sizeof(name), "gb_graph%u", seq++);
	p->graph_id = rte_graph_create(name, &prm);
	if (p->graph_id == RTE_GRAPH_ID_INVALID) {
		fprintf(stderr, "graphbench: rte_graph_create %s: %s\n", name,
			rte_strerror(rte_errno));
		return -1;
	}
	p->graph = rte_graph_lookup(name);
	if (p->graph == NULL) {
		fprintf(stderr, "graphbench: rte_graph_lookup %s failed\n", name);
		rte_graph_destroy(p->graph_id);
		return -1;
	}
	return 0;
}

static void
gb_plan_free(struct gb_plan *p)
{
	if (p->graph != NULL)
		rte_graph_destroy(p->graph_id);
	p->graph = NULL;
}

/* A fixed-seed generator, so every run sends the same frames. */
static uint64_t
gb_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

/* A 64-byte UDP frame with random addresses and ports; kind B says IPv6. */
static int
gb_frame(struct rte_mbuf *m, unsigned int kind, uint64_t *rnd)
{
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint64_t r = gb_rand(rnd);
	char *p;

	p = rte_pktmbuf_append(m, GB_FRAME_LEN);
	if (p == NULL)
		return -1;
	memset(p, 0, GB_FRAME_LEN);
	eh = (struct rte_ether_hdr *)p;
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	udp = (struct rte_udp_hdr *)(ip + 1);
	eh->dst_addr.addr_bytes[0] = 0x02;
	eh->dst_addr.addr_bytes[5] = 0x01;
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = 0x02;
	eh->ether_type =
		rte_cpu_to_be_16(kind == GB_KIND_B ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(GB_FRAME_LEN - RTE_ETHER_HDR_LEN);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = (uint32_t)r;
	ip->dst_addr = (uint32_t)(r >> 32);
	r = gb_rand(rnd);
	udp->src_port = (uint16_t)r;
	udp->dst_port = (uint16_t)(r >> 16);
	udp->dgram_len = rte_cpu_to_be_16(GB_FRAME_LEN - RTE_ETHER_HDR_LEN - sizeof(*ip));
	return 0;
}

/* The frames of one mix: exactly share percent of them kind B, spread at random. */
static int
gb_pool_fill(struct rte_mempool *mp, struct rte_mbuf **pool, uint32_t n, int share, uint64_t *rnd)
{
	uint8_t *kind;
	uint32_t i, j, nb;
	uint8_t t;
	int ret = 0;

	kind = calloc(n, 1);
	if (kind == NULL)
		return -ENOMEM;
	nb = share < 0 ? 0 : (uint32_t)(((uint64_t)n * (unsigned int)share + 50) / 100);
	for (i = 0; i < nb; i++)
		kind[i] = GB_KIND_B;
	for (i = n - 1; i > 0; i--) {
		j = (uint32_t)(gb_rand(rnd) % (i + 1));
		t = kind[i];
		kind[i] = kind[j];
		kind[j] = t;
	}
	if (rte_pktmbuf_alloc_bulk(mp, pool, n) != 0) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		if (gb_frame(pool[i], kind[i], rnd) < 0) {
			ret = -ENOSPC;
			goto out;
		}
out:
	free(kind);
	return ret;
}

/* The same starting hash.rss in every frame of a pool, for the check. */
static void
gb_pool_seed(struct rte_mbuf **pool, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		pool[i]->hash.rss = (i * UINT32_C(2654435761)) & GB_VALUE_MASK;
}

static uint64_t
gb_pool_sum(struct rte_mbuf **pool, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += pool[i]->hash.rss;
	return sum;
}

/* ---- options ---- */

static int
gb_parse_list(const char *arg, unsigned int *v, unsigned int *n, unsigned int max)
{
	char *copy, *tok, *save = NULL, *end;
	unsigned long x;
	int ret = 0;

	copy = strdup(arg);
	if (copy == NULL)
		return -1;
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		errno = 0;
		x = strtoul(tok, &end, 10);
		if (errno != 0 || *end != '\0' || end == tok || x > max || *n == GB_LIST_MAX) {
			ret = -1;
			break;
		}
		v[(*n)++] = (unsigned int)x;
	}
	free(copy);
	return ret < 0 || *n == 0 ? -1 : 0;
}

static int
gb_parse_mix(const char *arg, struct gb_opts *o)
{
	char *copy, *tok, *save = NULL, *end;
	unsigned long x;
	int ret = 0;

	copy = strdup(arg);
	if (copy == NULL)
		return -1;
	o->n_mix = 0;
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_mix == GB_LIST_MAX) {
			ret = -1;
			break;
		}
		if (strcmp(tok, "single") == 0) {
			o->mix[o->n_mix++] = -1;
			continue;
		}
		errno = 0;
		x = strtoul(tok, &end, 10);
		if (errno != 0 || *end != '\0' || end == tok || x > 100) {
			ret = -1;
			break;
		}
		o->mix[o->n_mix++] = (int)x;
	}
	free(copy);
	return ret < 0 || o->n_mix == 0 ? -1 : 0;
}

static int
gb_parse_opts(int argc, char **argv, struct gb_opts *o)
{
	static const struct option longopts[] = {
		{ "stages", required_argument, NULL, 's' },
		{ "burst", required_argument, NULL, 'b' },
		{ "work", required_argument, NULL, 'w' },
		{ "mix", required_argument, NULL, 'm' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "packets", required_argument, NULL, 'p' },
		{ "pool", required_argument, NULL, 'P' },
		{ "csv", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int v[GB_LIST_MAX], n, i, w;
	char *copy, *tok, *save = NULL;
	int c;

	*o = (struct gb_opts){
		.stages = { 1, 3, 5 },
		.n_stages = 3,
		.burst = { 32, 256 },
		.n_burst = 2,
		.work = { true, true },
		.mix = { -1, 0, 50 },
		.n_mix = 3,
		.rounds = 61,
		.packets = 1u << 15,
		.pool = 512,
	};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (gb_parse_list(optarg, o->stages, &o->n_stages, GB_STAGES_MAX) < 0)
				return -1;
			for (i = 0; i < o->n_stages; i++)
				if (o->stages[i] == 0)
					return -1;
			break;
		case 'b':
			if (gb_parse_list(optarg, o->burst, &o->n_burst, GB_BURST_MAX) < 0)
				return -1;
			for (i = 0; i < o->n_burst; i++)
				if (!rte_is_power_of_2(o->burst[i]))
					return -1;
			break;
		case 'w':
			copy = strdup(optarg);
			if (copy == NULL)
				return -1;
			memset(o->work, 0, sizeof(o->work));
			for (tok = strtok_r(copy, ",", &save); tok != NULL;
			     tok = strtok_r(NULL, ",", &save)) {
				for (w = 0; w < GB_WORK_COUNT; w++)
					if (strcmp(tok, gb_work_names[w]) == 0)
						break;
				if (w == GB_WORK_COUNT) {
					free(copy);
					return -1;
				}
				o->work[w] = true;
			}
			free(copy);
			break;
		case 'm':
			if (gb_parse_mix(optarg, o) < 0)
				return -1;
			break;
		case 'r':
			if (gb_parse_list(optarg, v, &n, GB_ROUNDS_MAX) < 0 || n != 1 || v[0] == 0)
				return -1;
			o->rounds = v[0];
			break;
		case 'p':
			if (gb_parse_list(optarg, v, &n, 1u << 30) < 0 || n != 1 || v[0] == 0)
				return -1;
			o->packets = v[0];
			break;
		case 'P':
			if (gb_parse_list(optarg, v, &n, 1u << 16) < 0 || n != 1 ||
			    !rte_is_power_of_2(v[0]) || v[0] < GB_BURST_MAX)
				return -1;
			o->pool = v[0];
			break;
		case 'c':
			o->csv = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		default:
			return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

/* ---- measuring and reporting ---- */

static int
gb_cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n), linearly interpolated; v is left sorted. */
static double
gb_quantile(double *v, unsigned int n, double q)
{
	double pos = q * (n - 1);
	unsigned int lo = (unsigned int)pos;

	qsort(v, n, sizeof(v[0]), gb_cmp_double);
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

static const char *
gb_mix_name(int share, char *buf, size_t len)
{
	if (share < 0)
		snprintf(buf, len, "single");
	else
		snprintf(buf, len, "split%d", share);
	return buf;
}

/*
 * Every shape runs each pool twice with drops on, from the same hash.rss
 * values; what comes out must match the list shape.
 */
static int
gb_check(struct gb_bench *gb)
{
	struct gb_ctx *ctx = gb->ctx;
	const uint32_t bursts = 2 * gb->o.pool / ctx->burst;
	uint64_t fwd[GB_SHAPE_COUNT], drop[GB_SHAPE_COUNT], sum[GB_SHAPE_COUNT];
	unsigned int mix, sh;
	char name[16];
	int ret = 0;

	ctx->drop_mask = GB_CHECK_DROP;
	for (mix = 0; mix < gb->o.n_mix && ret == 0; mix++) {
		for (sh = 0; sh < GB_SHAPE_COUNT; sh++) {
			gb_pool_seed(gb->pool[mix], gb->o.pool);
			gb_run(gb, mix, sh, bursts);
			fwd[sh] = ctx->forwarded;
			drop[sh] = ctx->dropped;
			sum[sh] = gb_pool_sum(gb->pool[mix], gb->o.pool);
			if (fwd[sh] + drop[sh] != (uint64_t)bursts * ctx->burst || drop[sh] == 0 ||
			    fwd[sh] == 0 || fwd[sh] != fwd[0] || drop[sh] != drop[0] ||
			    sum[sh] != sum[0]) {
				printf("FAIL check %s %s: forwarded %" PRIu64 " dropped %" PRIu64
				       " rss sum %" PRIu64 "; list: %" PRIu64 " %" PRIu64
				       " %" PRIu64 " of %" PRIu64 "\n",
				       gb_mix_name(gb->o.mix[mix], name, sizeof(name)),
				       gb_shape_names[sh], fwd[sh], drop[sh], sum[sh], fwd[0],
				       drop[0], sum[0], (uint64_t)bursts * ctx->burst);
				ret = -1;
				break;
			}
		}
	}
	ctx->drop_mask = GB_NEVER_DROP;
	return ret;
}

/* The median over rounds of x[r] - y[r]. */
static double
gb_median_diff(const double *x, const double *y, unsigned int n)
{
	double d[GB_ROUNDS_MAX];
	unsigned int r;

	for (r = 0; r < n; r++)
		d[r] = x[r] - y[r];
	return gb_quantile(d, n, 0.5);
}

static void
gb_report(struct gb_bench *gb, enum gb_work w, unsigned int nstages, const uint64_t *reallocs)
{
	const unsigned int rounds = gb->o.rounds;
	int single = -1;
	unsigned int mix, sh, r;
	double v[GB_ROUNDS_MAX], tpc, med, p25, p75, d_list, d_single;
	char name[16], dl[32], ds[32];

	for (mix = 0; mix < gb->o.n_mix; mix++)
		if (gb->o.mix[mix] < 0)
			single = (int)mix;
	memcpy(v, gb->clock, rounds * sizeof(v[0]));
	tpc = gb_quantile(v, rounds, 0.5);
	printf("%s burst %u stages %u: cycles/packet, median of %u rounds (IQR); paired medians "
	       "of shape - list and of mix - single; TSC per core cycle %.3f (%.3f-%.3f)\n",
	       gb_work_names[w], gb->ctx->burst, nstages, rounds, tpc, v[0], v[rounds - 1]);
	for (mix = 0; mix < gb->o.n_mix; mix++) {
		gb_mix_name(gb->o.mix[mix], name, sizeof(name));
		for (sh = 0; sh < GB_SHAPE_COUNT; sh++) {
			const double *x = gb->cpp[mix][sh];

			memcpy(v, x, rounds * sizeof(v[0]));
			med = gb_quantile(v, rounds, 0.5);
			p25 = gb_quantile(v, rounds, 0.25);
			p75 = gb_quantile(v, rounds, 0.75);
			d_list = gb_median_diff(x, gb->cpp[mix][GB_SHAPE_LIST], rounds);
			snprintf(dl, sizeof(dl), "%+7.2f", d_list);
			ds[0] = '\0';
			d_single = 0;
			if (single >= 0 && (int)mix != single) {
				d_single = gb_median_diff(x, gb->cpp[single][sh], rounds);
				snprintf(ds, sizeof(ds), "%+7.2f", d_single);
			}
			printf("  %-8s %-13s %7.2f (%6.2f-%6.2f)  -list %s  -single %s\n", name,
			       gb_shape_names[sh], med, p25, p75,
			       sh == GB_SHAPE_LIST ? "      -" : dl,
			       ds[0] != '\0' ? ds : "      -");
			if (gb->o.verbose) {
				printf("    rounds:");
				for (r = 0; r < rounds; r++)
					printf(" %.2f", x[r]);
				printf("\n");
			}
			if (gb->csv != NULL) {
				fprintf(gb->csv, "%s,%u,%u,%s,%s,%.3f,%.3f,%.3f,%.3f,",
					gb_work_names[w], gb->ctx->burst, nstages, name,
					gb_shape_names[sh], med, p25, p75, d_list);
				if (ds[0] != '\0')
					fprintf(gb->csv, "%.3f", d_single);
				fprintf(gb->csv, ",%" PRIu64 ",%.3f\n",
					sh == GB_SHAPE_GRAPH || sh == GB_SHAPE_GRAPH_NOSTATS
						? reallocs[gb->o.mix[mix] >= 0]
						: 0,
					tpc);
			}
		}
	}
}

/* One (work, burst, stages) setting: graphs, check, warm-up, rounds, report. */
static int
gb_setting(struct gb_bench *gb, enum gb_work w, unsigned int burst, unsigned int nstages)
{
	struct gb_ctx *ctx = gb->ctx;
	const uint32_t bursts = gb->o.packets / burst;
	const unsigned int blocks = gb->o.n_mix * GB_SHAPE_COUNT;
	const double packets = (double)bursts * burst;
	uint64_t reallocs[2] = { 0, 0 };
	unsigned int mix, sh, r, j, b, i;
	bool need[2] = { false, false };
	uint64_t cyc;
	char name[16];
	int ret = -1;

	ctx->burst = (uint16_t)burst;
	for (mix = 0; mix < gb->o.n_mix; mix++)
		need[gb->o.mix[mix] >= 0] = true;
	for (i = 0; i < 2; i++)
		if (need[i] && gb_plan_make(&gb->plan[i], w, nstages, i == 1) < 0)
			goto out;
	if (gb_check(gb) < 0) {
		ret = -EXIT_CHECK;
		goto out;
	}
	/* Warm-up: every block once, untimed. */
	for (mix = 0; mix < gb->o.n_mix; mix++)
		for (sh = 0; sh < GB_SHAPE_COUNT; sh++)
			gb_run(gb, mix, sh, bursts);
	for (i = 0; i < 2; i++)
		if (need[i])
			gb->plan[i].reallocs = gb_graph_reallocs(gb->plan[i].graph);
	for (r = 0; r < gb->o.rounds; r++) {
		for (j = 0; j < blocks; j++) {
			/* Rotate the order by one each round, and reverse it every other round. */
			b = (j + r) % blocks;
			if (r & 1)
				b = blocks - 1 - b;
			mix = b / GB_SHAPE_COUNT;
			sh = b % GB_SHAPE_COUNT;
			/* One untimed pass over the pool first: it is hot when timing starts. */
			gb_run(gb, mix, sh, gb->o.pool / burst);
			cyc = gb_run(gb, mix, sh, bursts);
			if (ctx->forwarded != (uint64_t)bursts * burst || ctx->dropped != 0) {
				printf("FAIL %s %s: forwarded %" PRIu64 " dropped %" PRIu64
				       " of %.0f\n",
				       gb_mix_name(gb->o.mix[mix], name, sizeof(name)),
				       gb_shape_names[sh], ctx->forwarded, ctx->dropped, packets);
				ret = -EXIT_CHECK;
				goto out;
			}
			gb->cpp[mix][sh][r] = (double)cyc / packets;
		}
		gb->clock[r] = gb_tsc_per_cycle();
	}
	for (i = 0; i < 2; i++)
		if (need[i])
			reallocs[i] = gb_graph_reallocs(gb->plan[i].graph) - gb->plan[i].reallocs;
	gb_report(gb, w, nstages, reallocs);
	for (i = 0; i < 2; i++)
		if (need[i] && reallocs[i] != 0)
			printf("  note: the %s graph reallocated a stream %" PRIu64
			       " times during the timed rounds\n",
			       i == 0 ? "single" : "split", reallocs[i]);
	fflush(stdout);
	ret = 0;
out:
	for (i = 0; i < 2; i++)
		gb_plan_free(&gb->plan[i]);
	return ret;
}

static int
gb_setup(struct gb_bench *gb)
{
	struct rte_mempool *mp;
	uint64_t rnd = UINT64_C(0x5eed1a9e5eed1a9e);
	unsigned int mix, k, s, i;

	gb->ctx = rte_zmalloc("gb_ctx", sizeof(*gb->ctx), RTE_CACHE_LINE_SIZE);
	if (gb->ctx == NULL)
		return -ENOMEM;
	gb->ctx->drop_mask = GB_NEVER_DROP;
	gb->ctx->pool_mask = gb->o.pool - 1;
	for (k = 0; k < GB_KIND_COUNT; k++)
		for (s = 0; s < GB_STAGES_MAX; s++)
			for (i = 0; i < GB_TABLE_SIZE; i++)
				gb->ctx->table[k][s][i] = (uint32_t)gb_rand(&rnd) & GB_VALUE_MASK;
	gb_ctx_for_init = gb->ctx;
	mp = rte_pktmbuf_pool_create("gb_mbufs", gb->o.n_mix * gb->o.pool + 63, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "graphbench: mbuf pool: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (mix = 0; mix < gb->o.n_mix; mix++) {
		gb->pool[mix] = rte_zmalloc("gb_pool", gb->o.pool * sizeof(struct rte_mbuf *), 0);
		if (gb->pool[mix] == NULL ||
		    gb_pool_fill(mp, gb->pool[mix], gb->o.pool, gb->o.mix[mix], &rnd) < 0) {
			fprintf(stderr, "graphbench: cannot fill the frames of mix %u\n", mix);
			return -ENOMEM;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static struct gb_bench gb;
	unsigned int wi, bi, si;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "graphbench: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (gb_parse_opts(argc, argv, &gb.o) < 0) {
		fprintf(stderr,
			"usage: lanefwd-graphbench [EAL args] -- [--stages 1,3,5] "
			"[--burst 32,256] [--work triv,real] [--mix single,0,50] "
			"[--rounds N] [--packets N] [--pool N] [--csv FILE]\n");
		rte_eal_cleanup();
		return 2;
	}
	ret = 1;
	if (gb_setup(&gb) < 0)
		goto out;
	if (gb.o.csv != NULL) {
		gb.csv = fopen(gb.o.csv, "w");
		if (gb.csv == NULL) {
			fprintf(stderr, "graphbench: %s: %s\n", gb.o.csv, strerror(errno));
			goto out;
		}
		fprintf(gb.csv,
			"work,burst,stages,mix,shape,cpp_median,cpp_p25,cpp_p75,"
			"minus_list,minus_single,timed_reallocs,tsc_per_cycle\n");
	}
	printf("graphbench: %s, lcore %u, TSC %.3f GHz, RTE_GRAPH_BURST_SIZE %d, "
	       "RTE_LIBRTE_GRAPH_STATS %d (walk \"graph\"; \"graph-nostats\" has it off), "
	       "%u rounds of %u packets per block, %u frames per mix\n",
	       rte_version(), rte_lcore_id(), rte_get_tsc_hz() / 1e9, RTE_GRAPH_BURST_SIZE,
	       rte_graph_has_stats_feature(), gb.o.rounds, gb.o.packets, gb.o.pool);
	for (wi = 0; wi < GB_WORK_COUNT; wi++) {
		if (!gb.o.work[wi])
			continue;
		for (bi = 0; bi < gb.o.n_burst; bi++) {
			for (si = 0; si < gb.o.n_stages; si++) {
				ret = gb_setting(&gb, wi, gb.o.burst[bi], gb.o.stages[si]);
				if (ret < 0) {
					ret = ret == -EXIT_CHECK ? EXIT_CHECK : 1;
					goto out;
				}
			}
		}
	}
	ret = 0;
out:
	if (gb.csv != NULL && fclose(gb.csv) != 0 && ret == 0) {
		fprintf(stderr, "graphbench: %s: %s\n", gb.o.csv, strerror(errno));
		ret = 1;
	}
	rte_eal_cleanup();
	return ret;
}
