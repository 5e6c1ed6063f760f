/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * netlink.c's message reading, on rtnetlink messages built here with
 * libmnl, and the incremental FIB (fib_apply) against a brute-force
 * longest-prefix match over random add/delete batches, with a reader
 * thread looking up while batches are applied.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "fib.h"
#include "lf_log.h"
#include "netlink_msg.h"

static uint8_t buf[8192];

/* ---- messages ---- */

static struct nlmsghdr *
route_msg(uint16_t type, uint8_t family, const char *dst, uint8_t len, uint8_t table, uint8_t rtype,
	  uint8_t proto)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rm;
	uint8_t a[16];

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	rm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rm));
	rm->rtm_family = family;
	rm->rtm_dst_len = len;
	rm->rtm_table = table;
	rm->rtm_type = rtype;
	rm->rtm_protocol = proto;
	rm->rtm_scope = RT_SCOPE_UNIVERSE;
	if (dst != NULL) {
		assert_int_equal(inet_pton(family, dst, a), 1);
		mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, a);
	}
	return nlh;
}

static void
put_addr(struct nlmsghdr *nlh, uint16_t type, int family, const char *txt)
{
	uint8_t a[16];

	assert_int_equal(inet_pton(family, txt, a), 1);
	mnl_attr_put(nlh, type, family == AF_INET ? 4 : 16, a);
}

static void
test_route_basic(void **state)
{
	struct nlmsghdr *nlh;
	struct lf_nl_route r;
	uint8_t want[4] = { 198, 51, 100, 0 }, gw[4] = { 10, 0, 0, 2 };

	(void)state;
	/* Host bits past the length are cleared. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "198.51.100.77", 24, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_STATIC);
	put_addr(nlh, RTA_GATEWAY, AF_INET, "10.0.0.2");
	mnl_attr_put_u32(nlh, RTA_OIF, 5);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 20);
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(r.af, 4);
	assert_int_equal(r.depth, 24);
	assert_memory_equal(r.dst, want, 4);
	assert_true(r.has_gw);
	assert_memory_equal(r.gw, gw, 4);
	assert_int_equal(r.oif, 5);
	assert_int_equal(r.metric, 20);
	assert_int_equal(r.table, RT_TABLE_MAIN);
	assert_int_equal(r.n_nexthops, 1);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_OK);
	assert_int_equal(nl_route_check(&r, 100), LF_NL_IGN_TABLE);

	/* RTA_TABLE (tables past 255) wins over rtm_table. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "0.0.0.0", 0, RT_TABLE_UNSPEC, RTN_UNICAST,
			RTPROT_BGP);
	mnl_attr_put_u32(nlh, RTA_TABLE, 1000);
	put_addr(nlh, RTA_GATEWAY, AF_INET, "10.0.0.2");
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(r.table, 1000);
	assert_int_equal(r.depth, 0);
	assert_int_equal(nl_route_check(&r, 1000), LF_NL_OK);

	/* IPv6 via a link-local gateway. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET6, "2001:db8:1::", 48, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_ZEBRA);
	put_addr(nlh, RTA_GATEWAY, AF_INET6, "fe80::1");
	mnl_attr_put_u32(nlh, RTA_OIF, 7);
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(r.af, 6);
	assert_int_equal(r.depth, 48);
	assert_int_equal(r.gw[0], 0xfe);
	assert_int_equal(r.gw[15], 1);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_OK);
}

static void
test_route_ignored(void **state)
{
	struct nlmsghdr *nlh;
	struct lf_nl_route r;
	struct rtmsg *rm;
	uint8_t via[2 + 16];

	(void)state;
	/* Connected: no gateway. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "10.0.0.0", 24, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_KERNEL);
	mnl_attr_put_u32(nlh, RTA_OIF, 5);
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_IGN_CONNECTED);
	/* Blackhole, local. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, RT_TABLE_MAIN, RTN_BLACKHOLE,
			RTPROT_STATIC);
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_IGN_TYPE);
	/* A kernel-made route with a gateway (redirect). */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_REDIRECT);
	put_addr(nlh, RTA_GATEWAY, AF_INET, "10.0.0.2");
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_IGN_PROTOCOL);
	/* A cache clone. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET6, "2001:db8::1", 128, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_STATIC);
	rm = mnl_nlmsg_get_payload(nlh);
	rm->rtm_flags |= RTM_F_CLONED;
	put_addr(nlh, RTA_GATEWAY, AF_INET6, "fe80::1");
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_IGN_CLONED);
	/* IPv4 via an IPv6 gateway (RFC 5549). */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "203.0.113.0", 24, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_BGP);
	/* struct rtvia: a 2-byte family (host order), then the address. */
	memset(via, 0, sizeof(via));
	via[0] = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, "fe80::2", via + 2), 1);
	mnl_attr_put(nlh, RTA_VIA, sizeof(via), via);
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_IGN_VIA_FAMILY);
	/* Another family (MPLS). */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, NULL, 0, RT_TABLE_MAIN, RTN_UNICAST, RTPROT_STATIC);
	rm = mnl_nlmsg_get_payload(nlh);
	rm->rtm_family = 28;
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_IGN_FAMILY);
}

static void
test_route_multipath(void **state)
{
	struct nlmsghdr *nlh;
	struct lf_nl_route r;
	struct nlattr *mp;
	struct rtnexthop *nh;
	uint8_t gw[4] = { 10, 0, 0, 2 };
	unsigned int i;

	(void)state;
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_ZEBRA);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	for (i = 0; i < 3; i++) {
		char txt[16];

		nh = mnl_nlmsg_get_payload_tail(nlh);
		nlh->nlmsg_len += RTNH_ALIGN(sizeof(*nh));
		memset(nh, 0, sizeof(*nh));
		nh->rtnh_ifindex = 5 + (int)i;
		snprintf(txt, sizeof(txt), "10.0.%u.2", i);
		put_addr(nlh, RTA_GATEWAY, AF_INET, txt);
		nh->rtnh_len = (unsigned short)((uint8_t *)mnl_nlmsg_get_payload_tail(nlh) -
						(uint8_t *)nh);
	}
	mnl_attr_nest_end(nlh, mp);
	assert_int_equal(nl_route_parse(nlh, &r), 0);
	assert_int_equal(r.n_nexthops, 3);
	assert_int_equal(r.oif, 5); /* the first */
	assert_memory_equal(r.gw, gw, 4);
	assert_int_equal(nl_route_check(&r, RT_TABLE_MAIN), LF_NL_OK);
	/* A next hop longer than the list. */
	nh = (struct rtnexthop *)mnl_attr_get_payload(mp);
	nh->rtnh_len = 200;
	assert_int_equal(nl_route_parse(nlh, &r), -EINVAL);
}

static void
test_route_malformed(void **state)
{
	struct nlmsghdr *nlh;
	struct lf_nl_route r;
	uint8_t a[3] = { 1, 2, 3 };

	(void)state;
	/* An IPv4 destination of 3 bytes. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, NULL, 24, RT_TABLE_MAIN, RTN_UNICAST, RTPROT_STATIC);
	mnl_attr_put(nlh, RTA_DST, sizeof(a), a);
	assert_int_equal(nl_route_parse(nlh, &r), -EINVAL);
	/* A prefix length past the family's. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "10.0.0.0", 33, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_STATIC);
	assert_int_equal(nl_route_parse(nlh, &r), -EINVAL);
	/* A gateway of the wrong length. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET6, "2001:db8::", 32, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_STATIC);
	put_addr(nlh, RTA_GATEWAY, AF_INET, "10.0.0.1");
	assert_int_equal(nl_route_parse(nlh, &r), -EINVAL);
	/* Truncated: shorter than its rtmsg. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "10.0.0.0", 8, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_STATIC);
	nlh->nlmsg_len = sizeof(*nlh) + 4;
	assert_int_equal(nl_route_parse(nlh, &r), -EINVAL);
	/* An attribute running past the message. */
	nlh = route_msg(RTM_NEWROUTE, AF_INET, "10.0.0.0", 8, RT_TABLE_MAIN, RTN_UNICAST,
			RTPROT_STATIC);
	nlh->nlmsg_len -= 4; /* libmnl rounds lengths up to 4 */
	assert_int_equal(nl_route_parse(nlh, &r), -EINVAL);
}

static struct nlmsghdr *
neigh_msg(uint16_t type, int family, const char *ip, const char *mac, uint16_t state)
{
	struct nlmsghdr *nlh;
	struct ndmsg *nd;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = (uint8_t)family;
	nd->ndm_ifindex = 9;
	nd->ndm_state = state;
	put_addr(nlh, NDA_DST, family, ip);
	if (mac != NULL) {
		unsigned int m[6], i;
		uint8_t b[6];

		assert_int_equal(sscanf(mac, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
					&m[5]),
				 6);
		for (i = 0; i < 6; i++)
			b[i] = (uint8_t)m[i];
		mnl_attr_put(nlh, NDA_LLADDR, 6, b);
	}
	return nlh;
}

static void
test_neigh(void **state)
{
	struct lf_nl_neigh n;
	bool perm;

	(void)state;
	assert_int_equal(nl_neigh_parse(neigh_msg(RTM_NEWNEIGH, AF_INET, "10.0.0.2",
						  "02:00:00:00:00:02", NUD_REACHABLE),
					&n),
			 0);
	assert_int_equal(n.af, 4);
	assert_int_equal(n.ifindex, 9);
	assert_int_equal(n.ip[3], 2);
	assert_int_equal(n.lladdr[5], 2);
	assert_int_equal(nl_neigh_usable(&n, &perm), 1);
	assert_false(perm);
	nl_neigh_parse(neigh_msg(RTM_NEWNEIGH, AF_INET6, "2001:db8::2", "02:00:00:00:00:03",
				 NUD_STALE),
		       &n);
	assert_int_equal(nl_neigh_usable(&n, &perm), 1);
	nl_neigh_parse(neigh_msg(RTM_NEWNEIGH, AF_INET, "10.0.0.3", "02:00:00:00:00:04",
				 NUD_PERMANENT),
		       &n);
	assert_int_equal(nl_neigh_usable(&n, &perm), 1);
	assert_true(perm);
	/* Failed, incomplete (no lladdr), a multicast MAC: not learnt. */
	nl_neigh_parse(neigh_msg(RTM_NEWNEIGH, AF_INET, "10.0.0.4", "02:00:00:00:00:05",
				 NUD_FAILED),
		       &n);
	assert_int_equal(nl_neigh_usable(&n, &perm), 0);
	nl_neigh_parse(neigh_msg(RTM_NEWNEIGH, AF_INET, "10.0.0.5", NULL, NUD_INCOMPLETE), &n);
	assert_int_equal(nl_neigh_usable(&n, &perm), 0);
	nl_neigh_parse(neigh_msg(RTM_NEWNEIGH, AF_INET, "224.0.0.22", "01:00:5e:00:00:16",
				 NUD_NOARP),
		       &n);
	assert_int_equal(nl_neigh_usable(&n, &perm), 0);
	/* No destination: malformed. */
	{
		struct nlmsghdr *nlh;
		struct ndmsg *nd;

		memset(buf, 0, sizeof(buf));
		nlh = mnl_nlmsg_put_header(buf);
		nlh->nlmsg_type = RTM_NEWNEIGH;
		nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
		nd->ndm_family = AF_INET;
		assert_int_equal(nl_neigh_parse(nlh, &n), -EINVAL);
	}
}

static void
test_link_addr(void **state)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct ifaddrmsg *ifa;
	struct lf_nl_link l;
	struct lf_nl_addr ad;

	(void)state;
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 12;
	ifi->ifi_flags = IFF_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "lf-p0");
	assert_int_equal(nl_link_parse(nlh, &l), 0);
	assert_int_equal(l.ifindex, 12);
	assert_true(l.flags & IFF_UP);
	assert_string_equal(l.name, "lf-p0");

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWADDR;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 24;
	ifa->ifa_index = 12;
	put_addr(nlh, IFA_ADDRESS, AF_INET, "10.0.0.9");
	put_addr(nlh, IFA_LOCAL, AF_INET, "10.0.0.1");
	assert_int_equal(nl_addr_parse(nlh, &ad), 0);
	assert_int_equal(ad.plen, 24);
	assert_int_equal(ad.addr[3], 1); /* IFA_LOCAL */
}

/* ---- incremental FIB ---- */

struct oroute {
	uint8_t a[16];
	uint8_t depth;
	uint32_t nh;
};

#define ORACLE_MAX 4096
static struct oroute oracle[ORACLE_MAX];
static unsigned int n_oracle;

static bool
covers(const uint8_t *p, uint8_t depth, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < depth / 8u; i++)
		if (p[i] != a[i])
			return false;
	if (depth % 8 != 0) {
		uint8_t m = (uint8_t)(0xff << (8 - depth % 8));

		if ((p[i] & m) != (a[i] & m))
			return false;
	}
	return true;
}

static uint32_t
oracle_lpm(const uint8_t *a)
{
	int best = -1;
	uint32_t nh = LF_NH_NONE;
	unsigned int i;

	for (i = 0; i < n_oracle; i++)
		if (oracle[i].depth > best && covers(oracle[i].a, oracle[i].depth, a)) {
			best = oracle[i].depth;
			nh = oracle[i].nh;
		}
	return nh;
}

static int
oracle_find(const uint8_t *a, uint8_t depth)
{
	unsigned int i;

	for (i = 0; i < n_oracle; i++)
		if (oracle[i].depth == depth && memcmp(oracle[i].a, a, 16) == 0)
			return (int)i;
	return -1;
}

static uint32_t rnd = 12345;

static uint32_t
rand32(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 17;
	rnd ^= rnd << 5;
	return rnd;
}

/* A random prefix in a small space (so that prefixes nest and share tbl8
 * groups): IPv4 under 10.1.0.0/20, except 10.1.X.128/25 the reader owns;
 * IPv6 under 2001:db8::/116 likewise. */
static void
rand_prefix(uint8_t af, uint8_t *a, uint8_t *depth)
{
	memset(a, 0, 16);
	if (af == 4) {
		uint32_t v = 0x0a010000u | (rand32() & 0x0f7f);

		*depth = (uint8_t)(17 + rand32() % 16);
		if (*depth < 25)
			*depth = (uint8_t)(25 + rand32() % 8);
		v &= *depth == 32 ? ~0u : ~((1u << (32 - *depth)) - 1);
		a[0] = (uint8_t)(v >> 24);
		a[1] = (uint8_t)(v >> 16);
		a[2] = (uint8_t)(v >> 8);
		a[3] = (uint8_t)v;
	} else {
		uint32_t v = rand32() & 0x0f7f;

		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		a[14] = (uint8_t)(v >> 8);
		a[15] = (uint8_t)v;
		*depth = (uint8_t)(121 + rand32() % 8);
		if (*depth < 128)
			a[15] &= (uint8_t)(0xff << (128 - *depth));
	}
}

static void
op_fill(struct lf_fib_op *op, uint8_t af, const uint8_t *a, uint8_t depth, bool del, uint32_t nh)
{
	memset(op, 0, sizeof(*op));
	op->af = af;
	op->depth = depth;
	op->del = del;
	op->nh = nh;
	if (af == 4)
		op->addr4 =
			(uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	else
		memcpy(op->addr6, a, 16);
}

struct reader {
	struct lf_fib *fib;
	struct rte_rcu_qsbr *qsv;
	volatile bool stop;
	uint64_t lookups;
	uint64_t wrong;
};

/* Looks up addresses in 10.1.X.128/25 and 2001:db8::X80/121, covered only
 * by the stable routes 10.1.0.0/16 -> 7 and 2001:db8::/64 -> 7, while the
 * batches change more-specific routes next to them in the same /24s (tbl8
 * groups made and recycled). */
static void *
reader_main(void *arg)
{
	struct reader *r = arg;
	uint32_t ip[64];
	uint8_t ip6[64][16];
	uint64_t nh[64];
	unsigned int i;

	rte_rcu_qsbr_thread_register(r->qsv, 0);
	rte_rcu_qsbr_thread_online(r->qsv, 0);
	while (!r->stop) {
		for (i = 0; i < 64; i++) {
			ip[i] = 0x0a010080u | (i % 16) << 8 | (i * 7 % 128);
			memset(ip6[i], 0, 16);
			ip6[i][0] = 0x20;
			ip6[i][1] = 0x01;
			ip6[i][2] = 0x0d;
			ip6[i][3] = 0xb8;
			ip6[i][14] = (uint8_t)(i % 16);
			ip6[i][15] = (uint8_t)(0x80 | (i * 7 % 128));
		}
		rte_fib_lookup_bulk(lf_fib_v4(r->fib), ip, nh, 64);
		for (i = 0; i < 64; i++)
			r->wrong += nh[i] != 7;
		rte_fib6_lookup_bulk(lf_fib_v6(r->fib), ip6, nh, 64);
		for (i = 0; i < 64; i++)
			r->wrong += nh[i] != 7;
		r->lookups += 128;
		rte_rcu_qsbr_quiescent(r->qsv, 0);
		/* On a loaded machine, let the writer (waiting for this
		 * quiescent state) run. */
		if ((r->lookups & 0x3fff) == 0)
			sched_yield();
	}
	rte_rcu_qsbr_thread_offline(r->qsv, 0);
	rte_rcu_qsbr_thread_unregister(r->qsv, 0);
	return NULL;
}

static void
check_against_oracle(const struct lf_fib *fib, uint8_t af)
{
	unsigned int i, k;

	/* Every prefix's first and last address, and random ones. */
	for (i = 0; i < n_oracle + 200; i++) {
		uint8_t a[16], d;
		uint32_t nh, nh_idle;
		uint64_t v;
		int depth;

		if (i < n_oracle) {
			memcpy(a, oracle[i].a, 16);
			if (rand32() & 1) {
				unsigned int bits = (af == 4 ? 32u : 128u) - oracle[i].depth;

				for (k = 0; k < bits; k++)
					a[(af == 4 ? 3 : 15) - k / 8] |= (uint8_t)(1u << (k % 8));
			}
		} else {
			rand_prefix(af, a, &d);
			a[af == 4 ? 3 : 15] ^= (uint8_t)rand32();
		}
		fib_lookup_one(fib, af, a, &nh, &depth);
		assert_int_equal(nh, oracle_lpm(a));
		/* The idle copy has every change too. */
		if (af == 4) {
			uint32_t ip = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 |
				(uint32_t)a[2] << 8 | a[3];

			rte_fib_lookup_bulk(fib->v4_idle, &ip, &v, 1);
		} else {
			uint8_t ip6[1][16];

			memcpy(ip6[0], a, 16);
			rte_fib6_lookup_bulk(fib->v6_idle, ip6, &v, 1);
		}
		nh_idle = (uint32_t)v;
		assert_int_equal(nh_idle, nh);
	}
}

static void
run_random(uint8_t af, struct rte_rcu_qsbr *qsv, struct lf_fib *fib, unsigned int batches)
{
	static struct lf_fib_op ops[64];
	unsigned int b, i, n;

	for (b = 0; b < batches; b++) {
		n = 1 + rand32() % 64;
		for (i = 0; i < n; i++) {
			uint8_t a[16], d;
			int at;

			rand_prefix(af, a, &d);
			at = oracle_find(a, d);
			if (at >= 0 && rand32() % 3 != 0) {
				op_fill(&ops[i], af, a, d, true, 0);
				oracle[at] = oracle[--n_oracle];
			} else if (n_oracle < ORACLE_MAX - 1) {
				uint32_t nh = rand32() % 100 + 10;

				op_fill(&ops[i], af, a, d, false, nh);
				if (at >= 0) {
					oracle[at].nh = nh;
				} else {
					memcpy(oracle[n_oracle].a, a, 16);
					oracle[n_oracle].depth = d;
					oracle[n_oracle++].nh = nh;
				}
			} else {
				op_fill(&ops[i], af, a, d, false, 9);
				i--, n--;
				continue;
			}
		}
		assert_int_equal(fib_apply(fib, ops, n, qsv), (int)n);
		for (i = 0; i < n; i++)
			assert_int_equal(ops[i].result, 0);
		if (b % 16 == 0 || b == batches - 1)
			check_against_oracle(fib, af);
	}
}

#define RECYCLE_ROUNDS 1500

static void
test_fib_incremental(void **state)
{
	struct lf_routes_conf conf = {
		.ipv4_max_routes = 8192,
		.ipv4_tbl8 = 1024,
		.ipv6_max_routes = 8192,
		.ipv6_tbl8 = 4096,
		.lookup = LF_FIB_LOOKUP_SCALAR,
	};
	struct lf_route_table r4 = { .af = 4 }, r6 = { .af = 6 };
	struct lf_route base4 = { .addr4 = 0x0a010000u, .depth = 16, .nh = 7, .line = 1 };
	struct lf_route base6 = { .depth = 64, .nh = 7, .line = 1 };
	struct reader rd = { 0 };
	struct rte_rcu_qsbr *qsv;
	struct lf_fib_op op;
	struct lf_fib fib;
	pthread_t th;
	char err[256];
	uint8_t a[16] = { 0 };
	unsigned int k;
	uint32_t nh;
	int depth;

	(void)state;
	base6.addr6[0] = 0x20;
	base6.addr6[1] = 0x01;
	base6.addr6[2] = 0x0d;
	base6.addr6[3] = 0xb8;
	r4.r = &base4;
	r4.n = 1;
	r6.r = &base6;
	r6.n = 1;
	assert_int_equal(fib_init(&fib, &conf, SOCKET_ID_ANY, &r4, &r6, err, sizeof(err)), 0);
	/* Not updatable yet. */
	op_fill(&op, 4, a, 0, false, 1);
	assert_int_equal(fib_apply(&fib, &op, 1, NULL), -EINVAL);
	assert_int_equal(fib_updates_enable(&fib, err, sizeof(err)), 0);
	assert_int_equal(fib.n4, 1);

	/* A default route (depth 0) is copied and changed like any other. */
	op_fill(&op, 4, a, 0, false, 3);
	assert_int_equal(fib_apply(&fib, &op, 1, NULL), 1);
	a[0] = 192;
	fib_lookup_one(&fib, 4, a, &nh, &depth);
	assert_int_equal(nh, 3);
	assert_int_equal(depth, 0);
	/* Deleting what is not there: -ENOENT, counted as not applied. */
	a[0] = 203;
	op_fill(&op, 4, a, 24, true, 0);
	assert_int_equal(fib_apply(&fib, &op, 1, NULL), 0);
	assert_int_equal(op.result, -ENOENT);
	memset(a, 0, sizeof(a));
	op_fill(&op, 4, a, 0, true, 0);
	assert_int_equal(fib_apply(&fib, &op, 1, NULL), 1);
	assert_int_equal(fib.n4, 1);
	assert_int_equal(fib_route_get(&fib, 4, (const uint8_t[]){ 10, 1, 0, 0 }, 16, &nh), 0);
	assert_int_equal(nh, 7);

	qsv = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	assert_non_null(qsv);
	assert_int_equal(rte_rcu_qsbr_init(qsv, 1), 0);
	rd.fib = &fib;
	rd.qsv = qsv;
	assert_int_equal(pthread_create(&th, NULL, reader_main, &rd), 0);

	/* A more-specific route added and deleted alone in a /24 (a /120):
	 * each delete empties its tbl8 group, which DPDK 22.11 zeroes at
	 * once and hands to the next add. */
	for (k = 0; k < RECYCLE_ROUNDS; k++) {
		uint8_t p[16] = { 10, 1, (uint8_t)(k % 16), 0 };

		op_fill(&op, 4, p, 28, false, 8);
		assert_int_equal(fib_apply(&fib, &op, 1, qsv), 1);
		op_fill(&op, 4, p, 28, true, 0);
		assert_int_equal(fib_apply(&fib, &op, 1, qsv), 1);
		memcpy(p, base6.addr6, 16);
		p[14] = (uint8_t)(k % 16);
		op_fill(&op, 6, p, 124, false, 8);
		assert_int_equal(fib_apply(&fib, &op, 1, qsv), 1);
		op_fill(&op, 6, p, 124, true, 0);
		assert_int_equal(fib_apply(&fib, &op, 1, qsv), 1);
	}
	assert_int_equal(fib.n4, 1);
	assert_int_equal(fib.n6, 1);
	/* The trie's leaked reservations made its copies again (fib.c). */
	print_message("IPv6 copies made again: %u\n", fib.refreshes);
	assert_true(fib.refreshes > 0);

	memset(oracle[0].a, 0, 16);
	oracle[0].a[0] = 10;
	oracle[0].a[1] = 1;
	oracle[0].depth = 16;
	oracle[0].nh = 7;
	n_oracle = 1;
	run_random(4, qsv, &fib, 400);
	assert_int_equal(fib.n4, n_oracle);

	memcpy(oracle[0].a, base6.addr6, 16);
	oracle[0].depth = 64;
	oracle[0].nh = 7;
	n_oracle = 1;
	run_random(6, qsv, &fib, 400);
	assert_int_equal(fib.n6, n_oracle);

	rd.stop = true;
	pthread_join(th, NULL);
	print_message("reader: %" PRIu64 " lookups during the batches, %" PRIu64 " wrong\n",
		      rd.lookups, rd.wrong);
	assert_true(rd.lookups > 0);
	assert_int_equal(rd.wrong, 0);
	fib_free(&fib);
	assert_null(fib.v4_idle);
	rte_free(qsv);
}

static int
group_setup(void **state)
{
	char lcore[16];
	char *argv[] = {
		"test_netlink",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_nl",
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	cpu_set_t cpus;
	int cpu = 0;

	(void)state;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	lf_log_init();
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	return rte_eal_cleanup();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_basic),     cmocka_unit_test(test_route_ignored),
		cmocka_unit_test(test_route_multipath), cmocka_unit_test(test_route_malformed),
		cmocka_unit_test(test_neigh),           cmocka_unit_test(test_link_addr),
		cmocka_unit_test(test_fib_incremental),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
