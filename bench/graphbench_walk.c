/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The graph walk of lanefwd-graphbench without per-node statistics.
 * Debian's DPDK 22.11 sets RTE_LIBRTE_GRAPH_STATS to 1 in rte_config.h, so
 * the inline rte_graph_walk() reads the TSC twice around every node call.
 * An application can turn that off in its own build, as this file does;
 * graphbench.c walks the same graph both ways, so the table shows what the
 * statistics cost. The loop over walks is here, not in the caller, so that
 * both ways make one call per timed block and none per walk.
 */
#include <rte_common.h>

#undef RTE_LIBRTE_GRAPH_STATS

#include <rte_graph_worker.h>

#include "graphbench.h"

void
gb_walk_nostats(struct rte_graph *graph, uint32_t walks)
{
	uint32_t i;

	for (i = 0; i < walks; i++)
		rte_graph_walk(graph);
}
