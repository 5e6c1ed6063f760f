/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL stage: build one struct acl_key per IPv4 packet from the packet and
 * its meta, classify the burst with one acl_classify() call, drop what the
 * ACL denies. IPv6 packets pass without a lookup.
 */
#include <netinet/in.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "acl.h"
#include "acl_stage.h"

uint16_t
acl_stage_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct acl_ctx *acl = w->acl;
	uint16_t i, k, n4 = 0;

	for (i = 0; i < n; i++) {
		const struct lf_meta *meta = &w->meta[i];
		const struct rte_ipv4_hdr *ip;
		struct acl_key *key;
		const uint8_t *data;

		if (meta->af != 4)
			continue;
		data = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		ip = (const struct rte_ipv4_hdr *)(data + meta->l3_off);
		key = &w->acl_key[n4];
		key->proto = meta->l4_proto;
		key->src = ip->src_addr;
		key->dst = ip->dst_addr;
		if (meta->l4_off != 0 &&
		    (meta->l4_proto == IPPROTO_UDP || meta->l4_proto == IPPROTO_TCP)) {
			/* UDP and TCP both start with the source and destination ports. */
			const uint16_t *ports = (const uint16_t *)(data + meta->l4_off);

			key->sport = ports[0];
			key->dport = ports[1];
		} else {
			key->sport = 0;
			key->dport = 0;
		}
		w->acl_data[n4] = (const uint8_t *)key;
		w->acl_idx[n4] = i;
		n4++;
	}
	if (n4 == 0)
		return n;
	/* rte_acl fails only on bad arguments, which a built context excludes. */
	if (unlikely(acl_classify(acl, w->acl_data, w->acl_res, n4) != 0)) {
		for (i = 0; i < n4; i++)
			w->acl_res[i] = ACL_NO_MATCH;
	}

	/* Mark the denied packets, then compact pkts and meta in one pass. */
	for (i = 0; i < n4; i++)
		if (acl_action(acl, w->acl_res[i]) == ACL_DENY)
			w->acl_deny[w->acl_idx[i]] = 1;
	for (i = 0, k = 0; i < n; i++) {
		if (unlikely(w->acl_deny[i])) {
			w->acl_deny[i] = 0;
			lf_drop(w, pkts[i], LF_DROP_ACL_DENY);
			continue;
		}
		if (k != i) {
			pkts[k] = pkts[i];
			w->meta[k] = w->meta[i];
		}
		k++;
	}
	return k;
}
