/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the two files of lanefwd-graphbench share: the graph walk without
 * per-node statistics lives in graphbench_walk.c, because rte_graph_walk()
 * is an inline function whose statistics are chosen when its header is
 * compiled (RTE_LIBRTE_GRAPH_STATS), once per translation unit.
 */
#ifndef LF_GRAPHBENCH_H
#define LF_GRAPHBENCH_H

#include <stdint.h>

struct rte_graph;

/** @p walks calls of rte_graph_walk(@p graph), compiled with RTE_LIBRTE_GRAPH_STATS off. */
void gb_walk_nostats(struct rte_graph *graph, uint32_t walks);

#endif /* LF_GRAPHBENCH_H */
