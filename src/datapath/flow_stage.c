/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow stage: cached ACL + FIB decisions per flow (include/flow_stage.h). */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>

#include "flow_stage.h"
#include "rewrite.h"
#include "tx.h"

int
flow_stage_init(struct worker *w, const struct lf_flow_conf *conf, char *err, size_t errlen)
{
	char name[32];
	struct lf_flow_params p = {
		.name = name,
		.capacity = conf->entries,
		.socket = w->socket,
		.idle_timeout_tsc = rte_get_tsc_hz() / 1000 * conf->idle_timeout_ms,
		.evict = conf->evict ? LF_FLOW_EVICT_OLDEST : LF_FLOW_EVICT_NONE,
		.layout = conf->fat ? LF_FLOW_LAYOUT_FAT : LF_FLOW_LAYOUT_HOTCOLD,
	};

	snprintf(name, sizeof(name), "lf_flow_w%u", w->index);
	w->flows = lf_flow_create(&p);
	if (w->flows == NULL) {
		snprintf(err, errlen,
			 "[flow] entries = %u: cannot create the flow table of lcore %u on socket %d: %s",
			 conf->entries, w->lcore, w->socket, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

void
flow_stage_free(struct worker *w)
{
	lf_flow_free(w->flows);
	w->flows = NULL;
}

/* Outer VLAN id of a parsed packet, 0 if untagged. */
static inline uint16_t
flow_vlan(const struct rte_mbuf *m, const struct lf_meta *meta)
{
	uint16_t tci;

	if (likely(meta->l3_off == RTE_ETHER_HDR_LEN))
		return 0;
	memcpy(&tci, rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN), sizeof(tci));
	return rte_be_to_cpu_16(tci) & 0xfff;
}

uint16_t
flow_stage_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct lf_flow_table *t = w->flows;
	struct lf_meta *meta = w->meta;
	const uint32_t gen = w->gen;
	uint64_t hash[LF_BURST_MAX];
	uint16_t i, first, hit = 0;

	/*
	 * Build the keys; with prefetch on, hash each one and prefetch its
	 * bucket at once, so that the bucket loads (a DRAM access each in a
	 * large table) overlap the building of the next keys rather than wait
	 * for the lookup to start.
	 */
	for (i = 0; i < n; i++) {
		lf_flow_key_from_pkt(pkts[i], &meta[i], w->rx_port, flow_vlan(pkts[i], &meta[i]),
				     &w->flow_keys[i]);
		if (w->prefetch != 0)
			hash[i] = lf_flow_hash_prefetch(t, &w->flow_keys[i]);
	}
	if (w->prefetch != 0)
		lf_flow_lookup_burst_hashed(t, w->flow_keys, hash, n, w->prefetch, w->rx_tsc,
					    w->flow_hit);
	else
		lf_flow_lookup_burst(t, w->flow_keys, n, 0, w->rx_tsc, w->flow_hit);

	/*
	 * The packets up to the first miss (or stale verdict) take their cached
	 * verdict; from the first miss on, all go down the slow path, so that
	 * the output keeps the input order (a warm table makes whole bursts of
	 * hits; a new flow sends the rest of its burst the slow way).
	 */
	for (first = 0; first < n; first++) {
		const struct lf_flow_hot *e = w->flow_hit[first];

		if (e == NULL || !lf_flow_verdict_valid(e, gen))
			break;
	}
	for (i = 0; i < first; i++) {
		struct lf_flow_hot *e = w->flow_hit[i];
		struct rte_mbuf *m = pkts[i];

		if (unlikely(e->action != LF_FLOW_FORWARD)) {
			lf_flow_count(e, m->pkt_len);
			lf_drop(w, m, (enum lf_drop)e->action);
			continue;
		}
		lf_rewrite_packet(m, &meta[i], &e->dst_mac, e->out_port);
		lf_flow_count(e, m->pkt_len);
		pkts[hit] = m;
		meta[hit++] = meta[i];
	}
	if (hit != 0)
		tx_burst(w, pkts, hit);
	/* The rest go on through the slow path; their keys stay where they are. */
	for (i = first; i < n; i++) {
		pkts[i - first] = pkts[i];
		meta[i - first] = meta[i];
		meta[i - first].fkey = i;
	}
	return n - first;
}

void
flow_learn_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct lf_meta *meta = w->meta;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct lf_flow_hot *e =
			lf_flow_insert(w->flows, &w->flow_keys[meta[i].fkey], w->rx_tsc);

		if (e == NULL)
			continue; /* Table full: counted as overflow; forwarded anyway. */
		e->gen = w->gen;
		e->action = LF_FLOW_FORWARD;
		e->out_port = meta[i].out;
		/* The rewrite stage took these from the next hop meta[i].nh. */
		memcpy(&e->dst_mac, &w->nh_table[meta[i].nh].dst, 2 * RTE_ETHER_ADDR_LEN);
		lf_flow_count(e, pkts[i]->pkt_len);
	}
}

void
flow_learn_drop(struct worker *w, const struct rte_mbuf *m, const struct lf_meta *meta,
		enum lf_drop reason)
{
	struct lf_flow_hot *e = lf_flow_insert(w->flows, &w->flow_keys[meta->fkey], w->rx_tsc);

	if (e == NULL)
		return;
	e->gen = w->gen;
	e->action = reason;
	e->out_port = LF_NH_INVALID;
	lf_flow_count(e, m->pkt_len);
}

void
flow_stage_expire(struct worker *w, uint64_t now, unsigned int budget)
{
	lf_flow_expire(w->flows, now, budget);
}
