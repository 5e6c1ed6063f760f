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
classify_mark(uint8_t *deny, const struct acl_ctx *acl, const uint8_t **data, uint32_t *res,
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
			deny[idx[i]] = 1;
}

/*
 * The stage's own scratch, on the stack: keys, their packets' burst indexes
 * and the classifier's results, per family.
 */
struct acl_scratch {
	struct acl_key key[LF_BURST_MAX];
	const uint8_t *data[LF_BURST_MAX];
	uint32_t res[LF_BURST_MAX];
	uint16_t idx[LF_BURST_MAX];
	struct acl6_key key6[LF_BURST_MAX];
	const uint8_t *data6[LF_BURST_MAX];
	uint32_t res6[LF_BURST_MAX];
	uint16_t idx6[LF_BURST_MAX];
	uint8_t deny[LF_BURST_MAX];
};

uint16_t
acl_stage_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const struct acl_ctx *acl4 = b->view.acl, *acl6 = b->view.acl6;
	struct acl_scratch s;
	uint16_t i, k, n4 = 0, n6 = 0;

	if (acl4 == NULL && acl6 == NULL)
		return n;
	for (i = 0; i < n; i++) {
		const struct lf_meta *meta = &b->meta[i];
		const uint8_t *data = rte_pktmbuf_mtod(pkts[i], const uint8_t *);

		if (meta->af == 4 && acl4 != NULL) {
			const struct rte_ipv4_hdr *ip =
				(const struct rte_ipv4_hdr *)(data + meta->l3_off);
			struct acl_key *key = &s.key[n4];

			key->proto = meta->l4_proto;
			key->src = ip->src_addr;
			key->dst = ip->dst_addr;
			key_ports(meta, data, &key->sport, &key->dport);
			s.data[n4] = (const uint8_t *)key;
			s.idx[n4] = i;
			n4++;
		} else if (meta->af == 6 && acl6 != NULL) {
			const struct rte_ipv6_hdr *ip =
				(const struct rte_ipv6_hdr *)(data + meta->l3_off);
			struct acl6_key *key = &s.key6[n6];

			/* The upper-layer protocol, after any extension headers. */
			key->proto = meta->l4_proto;
			memcpy(key->src, ip->src_addr, sizeof(key->src));
			memcpy(key->dst, ip->dst_addr, sizeof(key->dst));
			key_ports(meta, data, &key->sport, &key->dport);
			s.data6[n6] = (const uint8_t *)key;
			s.idx6[n6] = i;
			n6++;
		}
	}
	if (n4 == 0 && n6 == 0)
		return n;
	memset(s.deny, 0, n);
	if (n4 != 0)
		classify_mark(s.deny, acl4, s.data, s.res, s.idx, n4);
	if (n6 != 0)
		classify_mark(s.deny, acl6, s.data6, s.res6, s.idx6, n6);

	/* Compact pkts and meta to the packets that pass, in one pass. */
	for (i = 0, k = 0; i < n; i++) {
		if (unlikely(s.deny[i])) {
			lf_burst_drop_decided(b, pkts[i], &b->meta[i], LF_DROP_ACL_DENY);
			continue;
		}
		k = lf_burst_keep(b, pkts, i, k);
	}
	return k;
}
