/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow stage: cached ACL + FIB verdicts per flow (include/datapath/flow_stage.h). */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ether.h>

#include "flow_lookup.h"
#include "flow_stage.h"
#include "rewrite_pkt.h"

struct lf_flow_table *
flow_stage_create(const struct lf_flow_conf *conf, unsigned int index, unsigned int lcore,
		  int socket, char *err, size_t errlen)
{
	char name[32];
	struct lf_flow_params p = {
		.name = name,
		.capacity = conf->entries,
		.socket = socket,
		.idle_timeout_tsc = rte_get_tsc_hz() / 1000 * conf->idle_timeout_ms,
		.evict = conf->evict ? LF_FLOW_EVICT_OLDEST : LF_FLOW_EVICT_NONE,
		.layout = conf->fat ? LF_FLOW_LAYOUT_FAT : LF_FLOW_LAYOUT_HOTCOLD,
	};
	struct lf_flow_table *t;

	snprintf(name, sizeof(name), "lf_flow_w%u", index);
	t = lf_flow_create(&p);
	if (t == NULL)
		snprintf(err, errlen,
			 "[flow] entries = %u: cannot create the flow table of lcore %u on socket %d: %s",
			 conf->entries, lcore, socket, rte_strerror(rte_errno));
	return t;
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
flow_stage_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t hash[LF_BURST_MAX];
	uint16_t i;

	/*
	 * Build the keys; with prefetch on, hash each one and prefetch its
	 * bucket at once, so that the bucket loads (a DRAM access each in a
	 * large table) overlap the building of the next keys rather than wait
	 * for the lookup to start.
	 */
	for (i = 0; i < n; i++) {
		const struct lf_meta *meta = &b->meta[i];

		lf_flow_key_from_pkt(pkts[i], meta->af, meta->l4_proto, meta->l3_off, meta->l4_off,
				     b->rx_port, flow_vlan(pkts[i], meta), &b->flow_keys[i]);
		if (b->flow_prefetch_distance != 0)
			hash[i] = lf_flow_hash_prefetch(b->flows, &b->flow_keys[i]);
	}
	return lf_flow_lookup_leading(b, hash, n);
}

uint16_t
flow_stage_hits(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t hits, bool plain)
{
	uint16_t i, k, out = 0, out_or = 0, out_and = UINT16_MAX;

	for (i = 0, k = 0; i < hits; i++) {
		struct lf_flow_hot *e = b->flow_hit[i];
		struct rte_mbuf *m = pkts[i];

		lf_flow_count(e, m->pkt_len);
		if (unlikely(e->action != LF_FLOW_FORWARD)) {
			lf_burst_drop(b, m, (enum lf_drop)e->action);
			continue;
		}
		out = e->out_port;
		if (plain)
			lf_rewrite_ipv4_plain_at(b->data[i], &e->dst_mac);
		else
			lf_rewrite_packet(m, &b->meta[i], &e->dst_mac, out);
		b->meta[k].out = out;
		out_or |= out;
		out_and &= out;
		pkts[k++] = m;
	}
	/* All to one port (out_or == out_and): TX takes them as they are. */
	b->out = out_or == out_and ? out : LF_OUT_MIXED;
	return k;
}

uint16_t
flow_stage_misses(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t first, uint16_t n)
{
	uint16_t i, k;

	/* meta[i] for i >= first is untouched by the hits, which only fill
	 * meta[0..first); the keys stay where they are. */
	for (i = first, k = 0; i < n; i++, k++) {
		pkts[k] = pkts[i];
		b->meta[k] = b->meta[i];
		b->meta[k].fkey = i;
	}
	return k;
}

void
flow_stage_learn(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const struct lf_meta *meta = b->meta;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct lf_flow_hot *e =
			lf_flow_insert(b->flows, &b->flow_keys[meta[i].fkey], b->rx_tsc);

		if (e == NULL)
			continue; /* Table full: counted as overflow; forwarded anyway. */
		e->gen = b->view.gen;
		e->action = LF_FLOW_FORWARD;
		e->out_port = meta[i].out;
		/* The rewrite stage took these from the next hop meta[i].nh. */
		memcpy(&e->dst_mac, &b->view.nh_table[meta[i].nh].dst, 2 * RTE_ETHER_ADDR_LEN);
		lf_flow_count(e, pkts[i]->pkt_len);
	}
}

void
flow_stage_learn_decided(struct lf_burst *b)
{
	uint16_t i;

	for (i = 0; i < b->n_decided; i++) {
		const struct lf_decided *d = &b->decided[i];
		struct lf_flow_hot *e = lf_flow_insert(b->flows, &b->flow_keys[d->fkey], b->rx_tsc);

		if (e == NULL)
			continue;
		e->gen = b->view.gen;
		e->action = d->reason;
		e->out_port = LF_NH_INVALID;
		lf_flow_count(e, d->pkt_len);
	}
	b->n_decided = 0;
}
