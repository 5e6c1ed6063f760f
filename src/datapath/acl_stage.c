/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACL stage: build one key per packet of a family that has a classifier
 * (struct acl_key for IPv4, struct acl6_key for IPv6) from the packet and
 * its meta, classify each family with one acl_classify() call per burst,
 * drop what the ACL denies. Packets of a family without a classifier pass
 * without a lookup.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "acl.h"
#include "acl_stage.h"
#include "flow_stage.h"

/* Ports of a UDP or TCP packet whose L4 header parse found; 0 otherwise. */
static inline void
key_ports(const struct lf_meta *meta, const uint8_t *data, uint16_t *sport, uint16_t *dport)
{
	if (meta->l4_off != 0 && (meta->l4_proto == IPPROTO_UDP || meta->l4_proto == IPPROTO_TCP)) {
		/* UDP and TCP both start with the source and destination ports. */
		const uint16_t *ports = (const uint16_t *)(data + meta->l4_off);

		*sport = ports[0];
		*dport = ports[1];
	} else {
		*sport = 0;
		*dport = 0;
	}
}

/* Classify n keys with acl and mark the denied packets (by burst index). */
static inline void
classify_mark(struct worker *w, const struct acl_ctx *acl, const uint8_t **data, uint32_t *res,
	      const uint16_t *idx, uint16_t n)
{
	uint16_t i;

	/* rte_acl fails only on bad arguments, which a built context excludes. */
	if (unlikely(acl_classify(acl, data, res, n) != 0)) {
		for (i = 0; i < n; i++)
			res[i] = ACL_NO_MATCH;
	}
	for (i = 0; i < n; i++)
		if (acl_action(acl, res[i]) == ACL_DENY)
			w->acl_deny[idx[i]] = 1;
}

uint16_t
acl_stage_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct acl_ctx *acl4 = w->acl, *acl6 = w->acl6;
	uint16_t i, k, n4 = 0, n6 = 0;

	for (i = 0; i < n; i++) {
		const struct lf_meta *meta = &w->meta[i];
		const uint8_t *data = rte_pktmbuf_mtod(pkts[i], const uint8_t *);

		if (meta->af == 4 && acl4 != NULL) {
			const struct rte_ipv4_hdr *ip =
				(const struct rte_ipv4_hdr *)(data + meta->l3_off);
			struct acl_key *key = &w->acl_key[n4];

			key->proto = meta->l4_proto;
			key->src = ip->src_addr;
			key->dst = ip->dst_addr;
			key_ports(meta, data, &key->sport, &key->dport);
			w->acl_data[n4] = (const uint8_t *)key;
			w->acl_idx[n4] = i;
			n4++;
		} else if (meta->af == 6 && acl6 != NULL) {
			const struct rte_ipv6_hdr *ip =
				(const struct rte_ipv6_hdr *)(data + meta->l3_off);
			struct acl6_key *key = &w->acl6_key[n6];

			/* The upper-layer protocol, after any extension headers. */
			key->proto = meta->l4_proto;
			memcpy(key->src, ip->src_addr, sizeof(key->src));
			memcpy(key->dst, ip->dst_addr, sizeof(key->dst));
			key_ports(meta, data, &key->sport, &key->dport);
			w->acl6_data[n6] = (const uint8_t *)key;
			w->acl6_idx[n6] = i;
			n6++;
		}
	}
	if (n4 == 0 && n6 == 0)
		return n;
	if (n4 != 0)
		classify_mark(w, acl4, w->acl_data, w->acl_res, w->acl_idx, n4);
	if (n6 != 0)
		classify_mark(w, acl6, w->acl6_data, w->acl6_res, w->acl6_idx, n6);

	/* Compact pkts and meta to the packets that pass, in one pass. */
	for (i = 0, k = 0; i < n; i++) {
		if (unlikely(w->acl_deny[i])) {
			w->acl_deny[i] = 0;
			lf_drop_decided(w, pkts[i], &w->meta[i], LF_DROP_ACL_DENY);
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
