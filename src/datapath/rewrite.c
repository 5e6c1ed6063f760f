/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour rewrite stage. The next-hop table is small and read-only, so the
 * entry for a packet is one cache line at most; the packet's own header was
 * brought in by the parse stage.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "cksum.h"
#include "rewrite.h"
#include "rewrite_pkt.h"

struct lf_nh *
rewrite_init(const struct lf_config *cfg, const struct rte_ether_addr *port_macs, int socket,
	     uint32_t *count)
{
	struct lf_nh *t;
	uint32_t i, n = 0;

	for (i = 0; i < cfg->n_nexthops; i++)
		if (cfg->nexthops[i].id + 1 > n)
			n = cfg->nexthops[i].id + 1;
	t = rte_zmalloc_socket("lf_nexthops", (n ? n : 1) * sizeof(*t), RTE_CACHE_LINE_SIZE,
			       socket);
	if (t == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		t[i].out = LF_NH_INVALID;
	for (i = 0; i < cfg->n_nexthops; i++) {
		const struct lf_nexthop_conf *c = &cfg->nexthops[i];
		struct lf_nh *e = &t[c->id];

		e->dst = c->dst_mac;
		e->src = c->has_src_mac ? c->src_mac : port_macs[c->port];
		e->out = c->port;
	}
	*count = n;
	return t;
}

void
rewrite_free(struct lf_nh *table)
{
	rte_free(table);
}

/*
 * Both rewrite stages: flagged reads LF_META_TTL_DONE per packet, the
 * plain one (the IP kind's) decrements every TTL without looking.
 */
static __rte_always_inline uint16_t
rewrite_tmpl(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n, const bool flagged)
{
	const struct lf_nh *table = b->view.nh_table;
	const uint32_t count = b->view.nh_count;
	const bool mtu_check = lf_burst_mtu_check(b);
	struct lf_meta *meta = b->meta;
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		const unsigned int out = lf_nh_out(table, count, meta[i].nh);

		if (unlikely(out == LF_NH_INVALID)) {
			lf_burst_nh_miss(b, pkts[i], &meta[i],
					 lf_nh_kind(table, count, meta[i].nh));
			continue;
		}
		/* Over the egress MTU: no fragmenting here; an ICMP error about
		 * it, unless lanefwd built the packet (ICMP kind or later). */
		if (unlikely(mtu_check) &&
		    rte_pktmbuf_pkt_len(pkts[i]) - meta[i].l3_off > b->local->port[out].mtu) {
			if (meta[i].kind < LF_KIND_ICMP) {
				meta[i].nh = LF_ICMP_MTU;
				meta[i].out = (uint16_t)out;
				lf_burst_divert(b, pkts[i], &meta[i], LF_KIND_ICMP);
			} else {
				lf_burst_drop(b, pkts[i], LF_DROP_MTU);
			}
			continue;
		}
		if (flagged && (meta[i].flags & LF_META_TTL_DONE))
			lf_rewrite_packet_tmpl(pkts[i], &meta[i], &table[meta[i].nh].dst, out,
					       false);
		else
			lf_rewrite_packet(pkts[i], &meta[i], &table[meta[i].nh].dst, out);
		k = lf_burst_keep(b, pkts, i, k);
	}
	return k;
}

uint16_t
rewrite_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	return rewrite_tmpl(b, pkts, n, false);
}

uint16_t
rewrite_flagged_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	return rewrite_tmpl(b, pkts, n, true);
}
