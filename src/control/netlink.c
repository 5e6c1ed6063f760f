/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes and neighbours from the kernel (netlink.h, docs/control-plane.md).
 *
 * One thread owns an event socket subscribed to the route, neighbour,
 * address and link groups, and a second socket for dumps. What it holds:
 * every kernel route of [netlink] table on a mirrored interface, by prefix
 * (one route per prefix: the lowest metric), with the state it has in the
 * FIB in force: installed, shadowed (the route file has the prefix and
 * wins), or pending (no next hop to give it, or the FIB was full).
 *
 * Changes are applied in batches under app->ctl_lock (reloads and
 * telemetry take it too) with fib_apply(): the FIB is updated without
 * being rebuilt and the workers never pause (fib.h says how it stays safe
 * with DPDK 22.11's rte_fib). The neighbour code is called with ctl_lock
 * held for next hops (neigh_nh_get/put) and without it for neighbours
 * (neigh_learn/forget).
 *
 * Overflow: the socket's buffer is large and NETLINK_NO_ENOBUFS is off, so
 * a lost message shows as ENOBUFS; the thread then dumps the table again,
 * marks what it sees and removes what it did not (a resync). The same
 * happens when a mirrored interface changes (the kernel removes IPv4
 * routes of an interface going down without a message per route).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <rte_jhash.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "lanefwd.h"
#include "lf_log.h"
#include "neigh.h"
#include "netlink.h"
#include "netlink_msg.h"
#include "tables.h"

const char *const lf_nl_ignore_names[LF_NL_IGN_COUNT] = {
#define X(e, s) [LF_NL_IGN_##e] = s,
	LF_NL_IGNORES(X)
#undef X
};

/* ------------------------------------------------------------ parsing */

static void
prefix_clear_host(uint8_t *a, unsigned int alen, unsigned int depth)
{
	unsigned int i;

	for (i = 0; i < alen; i++) {
		if (depth >= 8 * (i + 1))
			continue;
		if (depth <= 8 * i)
			a[i] = 0;
		else
			a[i] &= (uint8_t)(0xff << (8 - (depth - 8 * i)));
	}
}

/* The attributes after offset fill the message exactly: mnl_attr_parse()
 * stops quietly at one that runs past the end. */
static bool
attrs_whole(const struct nlmsghdr *nlh, size_t offset)
{
	const char *tail = mnl_nlmsg_get_payload_tail(nlh);
	const struct nlattr *attr = mnl_nlmsg_get_payload_offset(nlh, offset);

	while (mnl_attr_ok(attr, (int)(tail - (const char *)attr)))
		attr = mnl_attr_next(attr);
	return (const char *)attr >= tail;
}

struct route_attrs {
	const struct nlattr *tb[RTA_MAX + 1];
};

static int
route_attr_cb(const struct nlattr *attr, void *data)
{
	struct route_attrs *ra = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, RTA_MAX) < 0)
		return MNL_CB_OK; /* newer than these headers: not ours */
	ra->tb[type] = attr;
	return MNL_CB_OK;
}

/* A gateway attribute of the route's family (RTA_GATEWAY) or RTA_VIA. */
static int
route_gw_read(struct lf_nl_route *r, const struct nlattr *gw, const struct nlattr *via,
	      unsigned int alen)
{
	if (gw != NULL) {
		if (mnl_attr_get_payload_len(gw) != alen)
			return -EINVAL;
		memcpy(r->gw, mnl_attr_get_payload(gw), alen);
		r->has_gw = true;
	} else if (via != NULL) {
		const struct rtvia *v = mnl_attr_get_payload(via);
		uint16_t vlen = mnl_attr_get_payload_len(via);

		if (vlen < sizeof(*v))
			return -EINVAL;
		if ((r->af == 4 && v->rtvia_family == AF_INET6) ||
		    (r->af == 6 && v->rtvia_family == AF_INET))
			r->gw_other_family = true;
		else if (vlen - sizeof(*v) == alen) {
			memcpy(r->gw, v->rtvia_addr, alen);
			r->has_gw = true;
		} else
			return -EINVAL;
	}
	return 0;
}

int
nl_route_parse(const struct nlmsghdr *nlh, struct lf_nl_route *r)
{
	const struct rtmsg *rm;
	struct route_attrs ra;
	unsigned int alen;

	memset(r, 0, sizeof(*r));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rm)))
		return -EINVAL;
	rm = mnl_nlmsg_get_payload(nlh);
	r->af = rm->rtm_family == AF_INET ? 4 : rm->rtm_family == AF_INET6 ? 6 : 0;
	r->depth = rm->rtm_dst_len;
	r->type = rm->rtm_type;
	r->protocol = rm->rtm_protocol;
	r->scope = rm->rtm_scope;
	r->table = rm->rtm_table;
	r->cloned = (rm->rtm_flags & RTM_F_CLONED) != 0;
	r->n_nexthops = 1;
	if (r->af == 0)
		return 0;
	alen = r->af == 4 ? 4 : 16;
	if (r->depth > 8 * alen)
		return -EINVAL;
	memset(&ra, 0, sizeof(ra));
	if (!attrs_whole(nlh, sizeof(*rm)) ||
	    mnl_attr_parse(nlh, sizeof(*rm), route_attr_cb, &ra) < 0)
		return -EINVAL;
	if (ra.tb[RTA_TABLE] != NULL) {
		if (mnl_attr_validate(ra.tb[RTA_TABLE], MNL_TYPE_U32) < 0)
			return -EINVAL;
		r->table = mnl_attr_get_u32(ra.tb[RTA_TABLE]);
	}
	if (ra.tb[RTA_DST] != NULL) {
		if (mnl_attr_get_payload_len(ra.tb[RTA_DST]) != alen)
			return -EINVAL;
		memcpy(r->dst, mnl_attr_get_payload(ra.tb[RTA_DST]), alen);
		prefix_clear_host(r->dst, alen, r->depth);
	}
	if (ra.tb[RTA_OIF] != NULL) {
		if (mnl_attr_validate(ra.tb[RTA_OIF], MNL_TYPE_U32) < 0)
			return -EINVAL;
		r->oif = mnl_attr_get_u32(ra.tb[RTA_OIF]);
	}
	if (ra.tb[RTA_PRIORITY] != NULL) {
		if (mnl_attr_validate(ra.tb[RTA_PRIORITY], MNL_TYPE_U32) < 0)
			return -EINVAL;
		r->metric = mnl_attr_get_u32(ra.tb[RTA_PRIORITY]);
	}
	if (route_gw_read(r, ra.tb[RTA_GATEWAY], ra.tb[RTA_VIA], alen) != 0)
		return -EINVAL;
	if (ra.tb[RTA_MULTIPATH] != NULL) {
		/* ECMP: the first next hop only (docs/control-plane.md). */
		const uint8_t *p = mnl_attr_get_payload(ra.tb[RTA_MULTIPATH]);
		size_t left = mnl_attr_get_payload_len(ra.tb[RTA_MULTIPATH]), step;
		unsigned int n = 0;

		while (left >= sizeof(struct rtnexthop)) {
			const struct rtnexthop *nh = (const void *)p;

			if (nh->rtnh_len < sizeof(*nh) || nh->rtnh_len > left)
				return -EINVAL;
			if (n == 0) {
				struct route_attrs na;

				memset(&na, 0, sizeof(na));
				if (mnl_attr_parse_payload(RTNH_DATA(nh),
							   nh->rtnh_len - sizeof(*nh),
							   route_attr_cb, &na) < 0)
					return -EINVAL;
				r->oif = (uint32_t)nh->rtnh_ifindex;
				if (route_gw_read(r, na.tb[RTA_GATEWAY], na.tb[RTA_VIA], alen) != 0)
					return -EINVAL;
			}
			n++;
			step = RTNH_ALIGN((size_t)nh->rtnh_len);
			if (step > left)
				step = left;
			left -= step;
			p += step;
		}
		if (n == 0)
			return -EINVAL;
		r->n_nexthops = n;
	}
	return 0;
}

enum lf_nl_ignore
nl_route_check(const struct lf_nl_route *r, uint32_t table)
{
	if (r->af == 0)
		return LF_NL_IGN_FAMILY;
	if (r->table != table)
		return LF_NL_IGN_TABLE;
	if (r->type != RTN_UNICAST)
		return LF_NL_IGN_TYPE;
	if (r->cloned)
		return LF_NL_IGN_CLONED;
	if (r->gw_other_family)
		return LF_NL_IGN_VIA_FAMILY;
	if (!r->has_gw)
		return LF_NL_IGN_CONNECTED;
	if (r->protocol == RTPROT_KERNEL || r->protocol == RTPROT_REDIRECT)
		return LF_NL_IGN_PROTOCOL;
	return LF_NL_OK;
}

struct neigh_attrs {
	const struct nlattr *tb[NDA_MAX + 1];
};

static int
neigh_attr_cb(const struct nlattr *attr, void *data)
{
	struct neigh_attrs *na = data;

	if (mnl_attr_type_valid(attr, NDA_MAX) < 0)
		return MNL_CB_OK;
	na->tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

int
nl_neigh_parse(const struct nlmsghdr *nlh, struct lf_nl_neigh *n)
{
	const struct ndmsg *nd;
	struct neigh_attrs na;
	unsigned int alen;

	memset(n, 0, sizeof(*n));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nd)))
		return -EINVAL;
	nd = mnl_nlmsg_get_payload(nlh);
	n->af = nd->ndm_family == AF_INET ? 4 : nd->ndm_family == AF_INET6 ? 6 : 0;
	n->state = nd->ndm_state;
	n->ifindex = (uint32_t)nd->ndm_ifindex;
	if (n->af == 0)
		return 0;
	alen = n->af == 4 ? 4 : 16;
	memset(&na, 0, sizeof(na));
	if (!attrs_whole(nlh, sizeof(*nd)) ||
	    mnl_attr_parse(nlh, sizeof(*nd), neigh_attr_cb, &na) < 0)
		return -EINVAL;
	if (na.tb[NDA_DST] == NULL || mnl_attr_get_payload_len(na.tb[NDA_DST]) != alen)
		return -EINVAL;
	memcpy(n->ip, mnl_attr_get_payload(na.tb[NDA_DST]), alen);
	if (na.tb[NDA_LLADDR] != NULL && mnl_attr_get_payload_len(na.tb[NDA_LLADDR]) == 6) {
		memcpy(n->lladdr, mnl_attr_get_payload(na.tb[NDA_LLADDR]), 6);
		n->has_lladdr = true;
	}
	return 0;
}

int
nl_neigh_usable(const struct lf_nl_neigh *n, bool *permanent)
{
	const uint16_t ok =
		NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | NUD_NOARP;
	static const uint8_t zero[6];

	*permanent = (n->state & (NUD_PERMANENT | NUD_NOARP)) != 0;
	if (n->af == 0 || !n->has_lladdr || (n->state & ok) == 0)
		return 0;
	/* NOARP entries of multicast/broadcast groups and all-zero MACs
	 * (tunnels) are not neighbours. */
	if ((n->lladdr[0] & 1) != 0 || memcmp(n->lladdr, zero, 6) == 0)
		return 0;
	return 1;
}

struct link_attrs {
	const struct nlattr *tb[IFLA_MAX + 1];
};

static int
link_attr_cb(const struct nlattr *attr, void *data)
{
	struct link_attrs *la = data;

	if (mnl_attr_type_valid(attr, IFLA_MAX) < 0)
		return MNL_CB_OK;
	la->tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

int
nl_link_parse(const struct nlmsghdr *nlh, struct lf_nl_link *l)
{
	const struct ifinfomsg *ifi;
	struct link_attrs la;

	memset(l, 0, sizeof(*l));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return -EINVAL;
	ifi = mnl_nlmsg_get_payload(nlh);
	l->ifindex = (uint32_t)ifi->ifi_index;
	l->flags = ifi->ifi_flags;
	memset(&la, 0, sizeof(la));
	if (!attrs_whole(nlh, sizeof(*ifi)) ||
	    mnl_attr_parse(nlh, sizeof(*ifi), link_attr_cb, &la) < 0)
		return -EINVAL;
	if (la.tb[IFLA_IFNAME] != NULL) {
		if (mnl_attr_validate(la.tb[IFLA_IFNAME], MNL_TYPE_NUL_STRING) < 0)
			return -EINVAL;
		snprintf(l->name, sizeof(l->name), "%s", mnl_attr_get_str(la.tb[IFLA_IFNAME]));
	}
	return 0;
}

struct addr_attrs {
	const struct nlattr *tb[IFA_MAX + 1];
};

static int
addr_attr_cb(const struct nlattr *attr, void *data)
{
	struct addr_attrs *aa = data;

	if (mnl_attr_type_valid(attr, IFA_MAX) < 0)
		return MNL_CB_OK;
	aa->tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

int
nl_addr_parse(const struct nlmsghdr *nlh, struct lf_nl_addr *ad)
{
	const struct ifaddrmsg *ifa;
	const struct nlattr *a;
	struct addr_attrs aa;
	unsigned int alen;

	memset(ad, 0, sizeof(*ad));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return -EINVAL;
	ifa = mnl_nlmsg_get_payload(nlh);
	ad->af = ifa->ifa_family == AF_INET ? 4 : ifa->ifa_family == AF_INET6 ? 6 : 0;
	ad->plen = ifa->ifa_prefixlen;
	ad->ifindex = ifa->ifa_index;
	if (ad->af == 0)
		return 0;
	alen = ad->af == 4 ? 4 : 16;
	memset(&aa, 0, sizeof(aa));
	if (!attrs_whole(nlh, sizeof(*ifa)) ||
	    mnl_attr_parse(nlh, sizeof(*ifa), addr_attr_cb, &aa) < 0)
		return -EINVAL;
	/* IFA_LOCAL is the interface's own address on point-to-point links. */
	a = aa.tb[IFA_LOCAL] != NULL ? aa.tb[IFA_LOCAL] : aa.tb[IFA_ADDRESS];
	if (a == NULL || mnl_attr_get_payload_len(a) != alen)
		return -EINVAL;
	memcpy(ad->addr, mnl_attr_get_payload(a), alen);
	return 0;
}

/* ------------------------------------------------------------- state */

enum kr_state {
	KR_INSTALLED, /* In the FIB with nh. */
	KR_SHADOWED, /* The route file has the prefix and wins ([netlink] priority). */
	KR_PENDING, /* No next hop to give it, or the FIB had no room. */
};

/* A kernel route lanefwd holds, one per prefix. */
struct kroute {
	uint8_t af;
	uint8_t depth;
	uint8_t dst[16];
	bool used;
	uint8_t state; /* enum kr_state */
	bool nh_ref; /* nh came from neigh_nh_get(): put it back */
	bool other_metric; /* The kernel has had this prefix at another metric too. */
	uint16_t port;
	uint8_t gw[16];
	uint32_t metric;
	uint32_t nh; /* KR_INSTALLED: what the FIB has */
	uint32_t base_nh; /* The route file's next hop of the prefix, LF_NH_NONE if none */
	uint32_t seen; /* Resync pass that saw it */
};

#define NL_BATCH 4096 /* FIB changes published at once */
#define NL_NEIGH_BATCH 512
#define NL_RCVBUF_DEFAULT (32 << 20)
#define NL_BUF_SIZE (64 << 10)

struct nl_counters {
	uint64_t added, removed, changed;
	uint64_t ignored[LF_NL_IGN_COUNT];
	uint64_t ecmp_first_only;
	uint64_t no_nexthop, fib_full, shadowed;
	uint64_t resyncs, enobufs, dump_retries;
	uint64_t neigh_learnt, neigh_forgotten, neigh_ignored, neigh_refused;
	uint64_t addr_events, link_events, batches;
	uint64_t errors;
};

struct neigh_job {
	bool learn, permanent;
	uint8_t af;
	uint16_t port;
	uint8_t ip[16];
	struct rte_ether_addr mac;
};

struct nl_state {
	struct lf_app *a;
	struct mnl_socket *ev; /* events */
	struct mnl_socket *dump; /* dumps, so that events keep queueing meanwhile */
	uint32_t dump_seq;
	pthread_t thread;
	bool running;
	volatile bool stop;
	bool resync_req;
	bool neigh_dump_req; /* after a resync: neighbours were lost too */
	/* Mirrored interfaces: ifindex of each port's exception_if (0: none now). */
	uint32_t ifindex[LF_MAX_PORTS];
	bool up[LF_MAX_PORTS];
	/* The routes: entries, and an open-addressing index on the prefix. */
	struct kroute *kr;
	uint32_t kr_cap, kr_hwm, kr_n;
	uint32_t *free_idx;
	uint32_t n_free;
	uint32_t *slot; /* 0 empty, else entry index + 1 */
	uint32_t slot_mask;
	uint32_t pass;
	/* The generation the entries' states describe, and the configuration
	 * generation their [nexthop] via next hops were taken from. */
	const struct lf_tables *cur;
	uint32_t cur_gen;
	uint32_t via_gen;
	/* The batch being built. */
	struct lf_fib_op ops[NL_BATCH];
	uint32_t op_entry[NL_BATCH]; /* entry index of each op, UINT32_MAX if none */
	unsigned int n_ops;
	uint32_t puts[NL_BATCH]; /* neigh_nh_put() once the batch is in */
	unsigned int n_puts;
	struct neigh_job njobs[NL_NEIGH_BATCH];
	unsigned int n_njobs;
	struct nl_counters c;
	uint8_t buf[NL_BUF_SIZE];
};

static struct nl_state *nls;
static pthread_mutex_t nl_tel_lock = PTHREAD_MUTEX_INITIALIZER; /* nls vs. telemetry */

static unsigned int
af_len(uint8_t af)
{
	return af == 4 ? 4 : 16;
}

static uint32_t
kr_hash(uint8_t af, uint8_t depth, const uint8_t *dst)
{
	uint32_t key[5];

	key[0] = (uint32_t)af << 8 | depth;
	memcpy(&key[1], dst, 16);
	return rte_jhash_32b(key, RTE_DIM(key), 0x6c66);
}

static bool
kr_match(const struct kroute *e, uint8_t af, uint8_t depth, const uint8_t *dst)
{
	return e->af == af && e->depth == depth && memcmp(e->dst, dst, af_len(af)) == 0;
}

static uint32_t
kr_find(const struct nl_state *st, uint8_t af, uint8_t depth, const uint8_t *dst)
{
	uint32_t s = kr_hash(af, depth, dst) & st->slot_mask;

	while (st->slot[s] != 0) {
		if (kr_match(&st->kr[st->slot[s] - 1], af, depth, dst))
			return st->slot[s] - 1;
		s = (s + 1) & st->slot_mask;
	}
	return UINT32_MAX;
}

static uint32_t
kr_insert(struct nl_state *st, uint8_t af, uint8_t depth, const uint8_t *dst)
{
	struct kroute *e;
	uint32_t i, s;

	if (st->n_free > 0)
		i = st->free_idx[--st->n_free];
	else if (st->kr_hwm < st->kr_cap)
		i = st->kr_hwm++;
	else
		return UINT32_MAX;
	e = &st->kr[i];
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->af = af;
	e->depth = depth;
	memcpy(e->dst, dst, af_len(af));
	e->nh = LF_NH_NONE;
	e->base_nh = LF_NH_NONE;
	s = kr_hash(af, depth, dst) & st->slot_mask;
	while (st->slot[s] != 0)
		s = (s + 1) & st->slot_mask;
	st->slot[s] = i + 1;
	st->kr_n++;
	return i;
}

/* Remove entry i from the index (backward-shift deletion) and free it. */
static void
kr_remove(struct nl_state *st, uint32_t i)
{
	struct kroute *e = &st->kr[i];
	uint32_t s = kr_hash(e->af, e->depth, e->dst) & st->slot_mask, j, h;

	while (st->slot[s] != i + 1)
		s = (s + 1) & st->slot_mask;
	j = s;
	for (;;) {
		j = (j + 1) & st->slot_mask;
		if (st->slot[j] == 0)
			break;
		e = &st->kr[st->slot[j] - 1];
		h = kr_hash(e->af, e->depth, e->dst) & st->slot_mask;
		/* Move j back to s unless its home lies cyclically in (s, j]. */
		if ((s <= j) ? (s < h && h <= j) : (s < h || h <= j))
			continue;
		st->slot[s] = st->slot[j];
		s = j;
	}
	st->slot[s] = 0;
	st->kr[i].used = false;
	st->free_idx[st->n_free++] = i;
	st->kr_n--;
}

/* ------------------------------------------------------- FIB batches */

static void
batch_flush(struct nl_state *st, struct lf_tables *t, bool live)
{
	struct lf_app *a = st->a;
	unsigned int i;
	int ret;

	if (st->n_ops > 0) {
		ret = fib_apply(&t->fib, st->ops, st->n_ops, live ? a->qsv : NULL);
		st->c.batches++;
		if (ret < 0) {
			LF_LOG(ERR, fib, "netlink: the FIB is not updatable (%s): %u changes lost",
			       strerror(-ret), st->n_ops);
			st->c.errors += st->n_ops;
			for (i = 0; i < st->n_ops; i++)
				st->ops[i].result = ret;
		}
		for (i = 0; i < st->n_ops; i++) {
			const struct lf_fib_op *op = &st->ops[i];
			struct kroute *e;

			if (op->result == 0)
				continue;
			if (op->del || st->op_entry[i] == UINT32_MAX) {
				/* A prefix that was not there: counted, harmless. */
				st->c.errors++;
				continue;
			}
			e = &st->kr[st->op_entry[i]];
			if (e->used && e->state == KR_INSTALLED && e->nh == op->nh) {
				/* No room (tbl8 groups): held, tried again at the next
				 * resync. */
				st->c.fib_full++;
				e->state = KR_PENDING;
			}
		}
		st->n_ops = 0;
	}
	/* Next hops no route of the FIB uses any more, now that both copies
	 * have the batch. */
	for (i = 0; i < st->n_puts; i++)
		neigh_nh_put(a, st->puts[i]);
	st->n_puts = 0;
}

static void
op_add(struct nl_state *st, const struct kroute *e, uint32_t idx, bool del, uint32_t nh)
{
	struct lf_fib_op *op = &st->ops[st->n_ops];

	memset(op, 0, sizeof(*op));
	op->af = e->af;
	op->depth = e->depth;
	op->del = del;
	op->nh = nh;
	if (e->af == 4) {
		uint32_t v;

		memcpy(&v, e->dst, 4);
		op->addr4 = ntohl(v);
	} else {
		memcpy(op->addr6, e->dst, 16);
	}
	st->op_entry[st->n_ops] = idx;
	st->n_ops++;
}

/* Room for one entry's changes (two ops, two puts) in the batch. */
static void
batch_room(struct nl_state *st, struct lf_tables *t, bool live)
{
	if (st->n_ops + 2 > NL_BATCH || st->n_puts + 2 > NL_BATCH)
		batch_flush(st, t, live);
}

/* The next hop for gateway gw on port: a [nexthop] with that via first
 * (the operator named it), else one from the neighbour code. */
static int
nh_resolve(struct nl_state *st, const struct kroute *e, uint32_t *nh, bool *ref)
{
	const struct lf_config *cfg = &st->a->cfg;
	unsigned int i;
	int ret;

	for (i = 0; i < cfg->n_nexthops; i++) {
		const struct lf_nexthop_conf *n = &cfg->nexthops[i];

		if (n->has_via && n->port == e->port && n->via.af == e->af &&
		    memcmp(n->via.a, e->gw, af_len(e->af)) == 0 && n->id < LF_FIB_MAX_NH) {
			*nh = n->id;
			*ref = false;
			return 0;
		}
	}
	ret = neigh_nh_get(st->a, e->port, e->af, e->gw, nh);
	if (ret == 0 && *nh >= LF_FIB_MAX_NH) {
		neigh_nh_put(st->a, *nh);
		return -ERANGE;
	}
	*ref = ret == 0;
	return ret;
}

/* Let go of e's next hop once the batch is in. */
static void
kr_nh_release(struct nl_state *st, struct kroute *e)
{
	if (e->nh_ref)
		st->puts[st->n_puts++] = e->nh;
	e->nh_ref = false;
	e->nh = LF_NH_NONE;
}

/* Take entry e out of the FIB of t (restoring the route file's route). */
static void
kr_uninstall(struct nl_state *st, struct lf_tables *t, bool live, struct kroute *e, uint32_t idx)
{
	batch_room(st, t, live);
	if (e->state == KR_INSTALLED) {
		if (e->base_nh != LF_NH_NONE)
			op_add(st, e, idx, false, e->base_nh);
		else
			op_add(st, e, idx, true, 0);
	}
	kr_nh_release(st, e);
}

/*
 * Bring entry e's state in t to what it should be: installed with its
 * gateway's next hop, shadowed by the route file, or pending. resolve: take
 * its next hop again (its gateway or port changed, or the [nexthop]
 * sections may have); else the one it holds is kept.
 */
static void
kr_settle(struct nl_state *st, struct lf_tables *t, bool live, uint32_t idx, bool resolve)
{
	struct kroute *e = &st->kr[idx];
	bool ref = false, changed = false;
	uint32_t nh;
	int ret;

	batch_room(st, t, live);
	if (e->base_nh != LF_NH_NONE && !st->a->cfg.netlink.kernel_wins) {
		if (e->state != KR_SHADOWED)
			st->c.shadowed++;
		kr_uninstall(st, t, live, e, idx);
		e->state = KR_SHADOWED;
		return;
	}
	if (resolve || e->nh == LF_NH_NONE) {
		ret = nh_resolve(st, e, &nh, &ref);
		if (ret != 0) {
			if (e->state != KR_PENDING)
				st->c.no_nexthop++;
			kr_uninstall(st, t, live, e, idx);
			e->state = KR_PENDING;
			return;
		}
		if (nh == e->nh && ref && e->nh_ref) {
			/* The same one: the reference held is enough (the
			 * count was 2, so this put frees nothing). */
			neigh_nh_put(st->a, nh);
		} else if (nh != e->nh) {
			kr_nh_release(st, e);
			e->nh = nh;
			e->nh_ref = ref;
			changed = true;
		}
	}
	if (e->state != KR_INSTALLED || changed) {
		op_add(st, e, idx, false, e->nh);
		e->state = KR_INSTALLED;
	}
}

static int
port_of_ifindex(const struct nl_state *st, uint32_t ifindex)
{
	unsigned int p;

	if (ifindex == 0)
		return -1;
	for (p = 0; p < st->a->cfg.n_ports; p++)
		if (st->ifindex[p] == ifindex)
			return (int)p;
	return -1;
}

/* The kernel route r was added or changed (RTM_NEWROUTE, or seen in a dump). */
static void
route_new(struct nl_state *st, struct lf_tables *t, const struct lf_nl_route *r, bool dump)
{
	enum lf_nl_ignore why = nl_route_check(r, st->a->cfg.netlink.table);
	unsigned int alen = af_len(r->af);
	bool gw_changed;
	struct kroute *e;
	uint32_t idx;
	int port = -1;

	if (why == LF_NL_OK) {
		port = port_of_ifindex(st, r->oif);
		if (port < 0)
			why = LF_NL_IGN_INTERFACE;
	}
	if (why != LF_NL_OK) {
		st->c.ignored[why]++;
		/* The prefix may have been ours until now (moved elsewhere). */
		if (r->af != 0 && r->table == st->a->cfg.netlink.table) {
			idx = kr_find(st, r->af, r->depth, r->dst);
			if (idx != UINT32_MAX && st->kr[idx].metric == r->metric) {
				kr_uninstall(st, t, true, &st->kr[idx], idx);
				kr_remove(st, idx);
				st->c.removed++;
			}
		}
		return;
	}
	if (r->n_nexthops > 1)
		st->c.ecmp_first_only++;
	idx = kr_find(st, r->af, r->depth, r->dst);
	if (idx == UINT32_MAX) {
		uint32_t base;

		idx = kr_insert(st, r->af, r->depth, r->dst);
		if (idx == UINT32_MAX) {
			st->c.ignored[LF_NL_IGN_MAX_ROUTES]++;
			return;
		}
		e = &st->kr[idx];
		/* No kernel route has the prefix yet: what the FIB has is the
		 * route file's. */
		e->base_nh = fib_route_get(&t->fib, r->af, r->dst, r->depth, &base) == 0
			? base
			: LF_NH_NONE;
		e->state = KR_PENDING;
		gw_changed = true;
		st->c.added++;
	} else {
		e = &st->kr[idx];
		if (e->metric != r->metric) {
			e->other_metric = true;
			/* The kernel keeps both; the lower metric is the one it
			 * uses. Within a dump, the first seen of this pass stays
			 * unless this one is lower. */
			if (r->metric > e->metric && (!dump || e->seen == st->pass)) {
				e->seen = st->pass;
				return;
			}
		}
		gw_changed = e->port != port || memcmp(e->gw, r->gw, alen) != 0;
		if (gw_changed || e->metric != r->metric)
			st->c.changed++;
	}
	e->seen = st->pass;
	e->metric = r->metric;
	if (gw_changed) {
		e->port = (uint16_t)port;
		memset(e->gw, 0, sizeof(e->gw));
		memcpy(e->gw, r->gw, alen);
	}
	kr_settle(st, t, true, idx, gw_changed);
}

static void
route_del(struct nl_state *st, struct lf_tables *t, const struct lf_nl_route *r)
{
	uint32_t idx;
	struct kroute *e;

	if (r->af == 0 || r->table != st->a->cfg.netlink.table)
		return;
	idx = kr_find(st, r->af, r->depth, r->dst);
	if (idx == UINT32_MAX)
		return;
	e = &st->kr[idx];
	if (e->metric != r->metric)
		return; /* another metric's route of the prefix went; ours stays */
	kr_uninstall(st, t, true, e, idx);
	/* The kernel may still have the prefix at another metric: ask it. */
	if (e->other_metric)
		st->resync_req = true;
	kr_remove(st, idx);
	st->c.removed++;
}

/* Every entry against generation t (fresh from the files, or the same one
 * after the configuration changed): base next hops and states again. */
static void
kr_resettle_all(struct nl_state *st, struct lf_tables *t, bool live, bool fresh)
{
	uint32_t i, base;

	for (i = 0; i < st->kr_hwm; i++) {
		struct kroute *e = &st->kr[i];

		if (!e->used)
			continue;
		if (fresh) {
			/* t has none of the kernel routes yet. */
			e->base_nh = fib_route_get(&t->fib, e->af, e->dst, e->depth, &base) == 0
				? base
				: LF_NH_NONE;
			/* Its next hop is kept (neighbour ids are the same in
			 * every generation) and installed in t. */
			if (e->state == KR_INSTALLED)
				e->state = KR_PENDING;
		}
		kr_settle(st, t, live, i, !fresh);
	}
	batch_flush(st, t, live);
}

/* ---------------------------------------------------------- interfaces */

static bool
if_up(const char *name)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool up = false;

	if (fd < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		up = (ifr.ifr_flags & IFF_UP) != 0;
	close(fd);
	return up;
}

/* Map each port's exception_if to its ifindex; true if the map changed. */
static bool
ifmap_refresh(struct nl_state *st)
{
	const struct lf_config *cfg = &st->a->cfg;
	bool changed = false;
	unsigned int p;

	for (p = 0; p < cfg->n_ports; p++) {
		uint32_t idx = 0;

		if (cfg->ports[p].exception != LF_EXC_NONE && cfg->ports[p].exception_if[0] != '\0')
			idx = if_nametoindex(cfg->ports[p].exception_if);
		if (idx != st->ifindex[p]) {
			LF_LOG(INFO, fib, "netlink: port %s follows %s (ifindex %u)",
			       cfg->ports[p].name, cfg->ports[p].exception_if, idx);
			st->ifindex[p] = idx;
			changed = true;
		}
		st->up[p] = idx != 0 && if_up(cfg->ports[p].exception_if);
	}
	return changed;
}

static void
link_msg(struct nl_state *st, const struct nlmsghdr *nlh)
{
	const struct lf_config *cfg = &st->a->cfg;
	struct lf_nl_link l;
	unsigned int p;

	if (nl_link_parse(nlh, &l) != 0) {
		st->c.errors++;
		return;
	}
	for (p = 0; p < cfg->n_ports; p++) {
		bool named = l.name[0] != '\0' && cfg->ports[p].exception != LF_EXC_NONE &&
			strcmp(l.name, cfg->ports[p].exception_if) == 0;
		bool up = (l.flags & IFF_UP) != 0;

		if (!named && st->ifindex[p] != l.ifindex)
			continue;
		st->c.link_events++;
		/* Deleted, renamed, recreated or taken down: the kernel drops
		 * its routes without a message for each; dump again. */
		if (nlh->nlmsg_type == RTM_DELLINK || !named || st->ifindex[p] != l.ifindex ||
		    up != st->up[p])
			st->resync_req = true;
		st->up[p] = up && nlh->nlmsg_type != RTM_DELLINK;
	}
}

static void
addr_msg(struct nl_state *st, const struct nlmsghdr *nlh)
{
	const struct lf_config *cfg = &st->a->cfg;
	char txt[INET6_ADDRSTRLEN];
	struct lf_nl_addr ad;
	unsigned int i;
	bool ours = false;
	int p;

	if (nl_addr_parse(nlh, &ad) != 0) {
		st->c.errors++;
		return;
	}
	p = port_of_ifindex(st, ad.ifindex);
	if (p < 0 || ad.af == 0)
		return;
	st->c.addr_events++;
	for (i = 0; i < cfg->ports[p].n_addrs; i++)
		if (cfg->ports[p].addr[i].af == ad.af &&
		    memcmp(cfg->ports[p].addr[i].a, ad.addr, af_len(ad.af)) == 0)
			ours = true;
	inet_ntop(ad.af == 4 ? AF_INET : AF_INET6, ad.addr, txt, sizeof(txt));
	if (nlh->nlmsg_type == RTM_DELADDR) {
		/* IPv4 routes using it go without a message each. */
		st->resync_req = true;
		LF_LOG(INFO, fib, "netlink: %s/%u removed from %s", txt, ad.plen,
		       cfg->ports[p].exception_if);
	} else if (!ours && !(ad.af == 6 && ad.addr[0] == 0xfe && (ad.addr[1] & 0xc0) == 0x80)) {
		/* The data plane answers only [port] address: the kernel's
		 * other addresses are reached through the exception path. */
		LF_LOG(NOTICE, fib,
		       "netlink: %s has %s/%u, not a [port %s] address: only the kernel answers it",
		       cfg->ports[p].exception_if, txt, ad.plen, cfg->ports[p].name);
	}
}

/* ---------------------------------------------------------- neighbours */

static void
neigh_msg(struct nl_state *st, const struct nlmsghdr *nlh)
{
	struct lf_nl_neigh n;
	struct neigh_job *j;
	bool permanent = false; /* a deletion carries no state */
	int p;

	if (nl_neigh_parse(nlh, &n) != 0) {
		st->c.errors++;
		return;
	}
	p = port_of_ifindex(st, n.ifindex);
	if (p < 0 || n.af == 0)
		return;
	if (nlh->nlmsg_type == RTM_NEWNEIGH && nl_neigh_usable(&n, &permanent) == 0) {
		st->c.neigh_ignored++;
		return;
	}
	j = &st->njobs[st->n_njobs++];
	j->learn = nlh->nlmsg_type == RTM_NEWNEIGH;
	j->permanent = permanent;
	j->af = n.af;
	j->port = (uint16_t)p;
	memcpy(j->ip, n.ip, sizeof(j->ip));
	memcpy(j->mac.addr_bytes, n.lladdr, 6);
}

/* Called without ctl_lock: the neighbour code takes it as it needs. */
static void
neigh_jobs_run(struct nl_state *st)
{
	unsigned int i;
	int ret;

	for (i = 0; i < st->n_njobs; i++) {
		const struct neigh_job *j = &st->njobs[i];

		if (!j->learn) {
			neigh_forget(st->a, j->port, j->af, j->ip);
			__atomic_fetch_add(&st->c.neigh_forgotten, 1, __ATOMIC_RELAXED);
			continue;
		}
		ret = neigh_learn(st->a, j->port, j->af, j->ip, &j->mac, j->permanent);
		if (ret == 0)
			__atomic_fetch_add(&st->c.neigh_learnt, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&st->c.neigh_refused, 1, __ATOMIC_RELAXED);
	}
	st->n_njobs = 0;
}

/* ------------------------------------------------------------ messages */

struct msg_ctx {
	struct nl_state *st;
	struct lf_tables *t;
	bool dump;
};

static int
msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct msg_ctx *mc = data;
	struct nl_state *st = mc->st;
	struct lf_nl_route r;

	switch (nlh->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		if (nl_route_parse(nlh, &r) != 0) {
			st->c.ignored[LF_NL_IGN_MALFORMED]++;
			return MNL_CB_OK;
		}
		if (nlh->nlmsg_type == RTM_NEWROUTE)
			route_new(st, mc->t, &r, mc->dump);
		else
			route_del(st, mc->t, &r);
		break;
	case RTM_NEWNEIGH:
	case RTM_DELNEIGH:
		if (st->n_njobs < NL_NEIGH_BATCH)
			neigh_msg(st, nlh);
		else
			st->c.errors++; /* not reached: the caller drains in time */
		break;
	case RTM_NEWLINK:
	case RTM_DELLINK:
		link_msg(st, nlh);
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		addr_msg(st, nlh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

/* One dump request on the dump socket, its answer applied. */
static int
dump_one(struct nl_state *st, struct lf_tables *t, uint16_t type, uint8_t family)
{
	char req[MNL_SOCKET_BUFFER_SIZE];
	struct msg_ctx mc = { .st = st, .t = t, .dump = true };
	struct nlmsghdr *nlh;
	struct rtgenmsg *g;
	uint32_t portid = mnl_socket_get_portid(st->dump);
	ssize_t n;
	int ret;

	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++st->dump_seq;
	/* rtmsg / ndmsg both start with the family byte; the kernel reads
	 * the full header length of each. */
	g = mnl_nlmsg_put_extra_header(nlh,
				       type == RTM_GETROUTE ? sizeof(struct rtmsg)
							    : sizeof(struct ndmsg));
	g->rtgen_family = family;
	if (mnl_socket_sendto(st->dump, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(st->dump, st->buf, sizeof(st->buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(st->buf, (size_t)n, st->dump_seq, portid, msg_cb, &mc);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret < 0)
			return -errno; /* EINTR: NLM_F_DUMP_INTR, the table changed meanwhile */
		/* Neighbour dumps run without ctl_lock: hand them over as they come. */
		if (type == RTM_GETNEIGH)
			neigh_jobs_run(st);
	}
}

/*
 * Dump the kernel's routes (and neighbours) again: every route seen is
 * added or updated, every entry not seen is removed. Under ctl_lock.
 */
static int
resync_locked(struct nl_state *st, struct lf_tables *t)
{
	static const uint16_t types[] = { RTM_GETROUTE, RTM_GETROUTE };
	static const uint8_t fams[] = { AF_INET, AF_INET6 };
	unsigned int i, try;
	uint32_t k;
	int ret = 0;

	st->resync_req = false;
	/*
	 * What is queued is older than the dump about to be made, and the
	 * messages lost at an overflow lay among it: replayed after the dump,
	 * a queued RTM_NEWROUTE whose RTM_DELROUTE was lost would bring the
	 * route back for good. Drop it all; what comes after this point is
	 * an unbroken sequence (or overflows again, and another resync runs).
	 */
	while (recv(mnl_socket_get_fd(st->ev), st->buf, sizeof(st->buf), MSG_DONTWAIT) >= 0 ||
	       errno == ENOBUFS || errno == EINTR)
		;
	if (ifmap_refresh(st))
		kr_resettle_all(st, t, true, false);
	for (try = 0; try < 3; try++) {
		st->pass++;
		for (i = 0; i < RTE_DIM(types); i++) {
			ret = dump_one(st, t, types[i], fams[i]);
			if (ret != 0)
				break;
		}
		if (ret != -EINTR)
			break;
		st->c.dump_retries++;
	}
	if (ret != 0) {
		/* Keep what is held; try again on the next round. */
		LF_LOG(WARNING, fib, "netlink: route dump failed: %s", strerror(-ret));
		st->c.errors++;
		st->resync_req = true;
		batch_flush(st, t, true);
		return ret;
	}
	for (k = 0; k < st->kr_hwm; k++) {
		struct kroute *e = &st->kr[k];

		if (!e->used)
			continue;
		if (e->seen != st->pass) {
			kr_uninstall(st, t, true, e, k);
			kr_remove(st, k);
			st->c.removed++;
		} else if (e->state == KR_PENDING) {
			kr_settle(st, t, true, k, true); /* a next hop or room now? */
		}
	}
	batch_flush(st, t, true);
	st->c.resyncs++;
	st->neigh_dump_req = true;
	return 0;
}

/* Neighbours: dumped without a diff (the neighbour code ages its own);
 * without ctl_lock. */
static void
neigh_dump(struct nl_state *st)
{
	static const uint8_t fams[] = { AF_INET, AF_INET6 };
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(fams); i++) {
		ret = dump_one(st, NULL, RTM_GETNEIGH, fams[i]);
		if (ret != 0) {
			LF_LOG(WARNING, fib, "netlink: neighbour dump failed: %s", strerror(-ret));
			st->c.errors++;
		}
	}
}

/*
 * The generation in force is not the one the entries describe: a reload
 * published one without netlink_tables_fill() (or it was never filled).
 * Make it updatable and install the kernel routes in it, live.
 */
static int
adopt_locked(struct nl_state *st)
{
	struct lf_tables *t = st->a->tables;
	char err[LF_ERR_LEN];
	int ret;

	if (t == NULL)
		return -ESHUTDOWN;
	if (t == st->cur && t->gen == st->cur_gen)
		return 0;
	ret = fib_updates_enable(&t->fib, err, sizeof(err));
	if (ret != 0) {
		LF_LOG(ERR, fib, "netlink: %s", err);
		st->c.errors++;
		return ret;
	}
	kr_resettle_all(st, t, true, true);
	st->cur = t;
	st->cur_gen = t->gen;
	st->via_gen = t->gen;
	return 0;
}

/* Read what the event socket has (at most a round's worth), apply it. */
static void
events_drain(struct nl_state *st)
{
	struct lf_app *a = st->a;
	struct msg_ctx mc = { .st = st, .dump = false };
	int fd = mnl_socket_get_fd(st->ev);
	unsigned int rounds;
	ssize_t n;

	pthread_mutex_lock(&a->ctl_lock);
	if (adopt_locked(st) != 0) {
		pthread_mutex_unlock(&a->ctl_lock);
		return;
	}
	mc.t = a->tables;
	if (st->via_gen != a->tables->gen) {
		/* A reload may have changed [nexthop] via: take them again. */
		kr_resettle_all(st, mc.t, true, false);
		st->via_gen = a->tables->gen;
	}
	for (rounds = 0; rounds < 256 && !st->resync_req; rounds++) {
		n = recv(fd, st->buf, sizeof(st->buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				/* Messages were lost: the table must be read again. */
				st->c.enobufs++;
				st->resync_req = true;
			} else if (errno != EAGAIN && errno != EINTR) {
				st->c.errors++;
			}
			break;
		}
		if (mnl_cb_run(st->buf, (size_t)n, 0, 0, msg_cb, &mc) < 0)
			st->c.errors++;
		if (st->n_njobs > NL_NEIGH_BATCH - 64)
			break;
	}
	if (st->resync_req)
		resync_locked(st, mc.t);
	batch_flush(st, mc.t, true);
	pthread_mutex_unlock(&a->ctl_lock);
	neigh_jobs_run(st);
	if (st->neigh_dump_req) {
		st->neigh_dump_req = false;
		neigh_dump(st);
	}
}

static void *
nl_thread(void *arg)
{
	struct nl_state *st = arg;
	struct pollfd pfd = { .fd = mnl_socket_get_fd(st->ev), .events = POLLIN };

	while (!st->stop) {
		/* A short timeout: stop, reloads and resync requests are
		 * noticed without a message. */
		poll(&pfd, 1, 100);
		events_drain(st);
	}
	return NULL;
}

/* ----------------------------------------------------------- telemetry */

static int
tel_netlink(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *ign;
	struct nl_state *st;
	uint32_t inst = 0, sh = 0, pend = 0, i;
	unsigned int k;

	(void)cmd, (void)params;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&nl_tel_lock);
	st = nls;
	rte_tel_data_add_dict_int(d, "enabled", st != NULL);
	if (st == NULL) {
		pthread_mutex_unlock(&nl_tel_lock);
		return 0;
	}
	pthread_mutex_lock(&st->a->ctl_lock);
	for (i = 0; i < st->kr_hwm; i++) {
		if (!st->kr[i].used)
			continue;
		inst += st->kr[i].state == KR_INSTALLED;
		sh += st->kr[i].state == KR_SHADOWED;
		pend += st->kr[i].state == KR_PENDING;
	}
	rte_tel_data_add_dict_u64(d, "table", st->a->cfg.netlink.table);
	rte_tel_data_add_dict_string(d, "priority",
				     st->a->cfg.netlink.kernel_wins ? "kernel" : "file");
	rte_tel_data_add_dict_u64(d, "routes_held", st->kr_n);
	rte_tel_data_add_dict_u64(d, "routes_installed", inst);
	rte_tel_data_add_dict_u64(d, "routes_shadowed", sh);
	rte_tel_data_add_dict_u64(d, "routes_pending", pend);
	rte_tel_data_add_dict_u64(d, "routes_added", st->c.added);
	rte_tel_data_add_dict_u64(d, "routes_removed", st->c.removed);
	rte_tel_data_add_dict_u64(d, "routes_changed", st->c.changed);
	rte_tel_data_add_dict_u64(d, "ecmp_first_only", st->c.ecmp_first_only);
	rte_tel_data_add_dict_u64(d, "no_nexthop", st->c.no_nexthop);
	rte_tel_data_add_dict_u64(d, "fib_full", st->c.fib_full);
	rte_tel_data_add_dict_u64(d, "shadowed_by_file", st->c.shadowed);
	ign = rte_tel_data_alloc();
	if (ign != NULL) {
		rte_tel_data_start_dict(ign);
		for (k = 0; k < LF_NL_IGN_COUNT; k++)
			rte_tel_data_add_dict_u64(ign, lf_nl_ignore_names[k], st->c.ignored[k]);
		rte_tel_data_add_dict_container(d, "ignored", ign, 0);
	}
	rte_tel_data_add_dict_u64(d, "resyncs", st->c.resyncs);
	rte_tel_data_add_dict_u64(d, "enobufs", st->c.enobufs);
	rte_tel_data_add_dict_u64(d, "dump_retries", st->c.dump_retries);
	rte_tel_data_add_dict_u64(d, "fib_batches", st->c.batches);
	rte_tel_data_add_dict_u64(d, "neigh_learnt",
				  __atomic_load_n(&st->c.neigh_learnt, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "neigh_forgotten",
				  __atomic_load_n(&st->c.neigh_forgotten, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "neigh_refused",
				  __atomic_load_n(&st->c.neigh_refused, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "neigh_ignored", st->c.neigh_ignored);
	rte_tel_data_add_dict_u64(d, "addr_events", st->c.addr_events);
	rte_tel_data_add_dict_u64(d, "link_events", st->c.link_events);
	rte_tel_data_add_dict_u64(d, "errors", st->c.errors);
	if (st->a->tables != NULL) {
		rte_tel_data_add_dict_u64(d, "fib_ipv4_routes", st->a->tables->fib.n4);
		rte_tel_data_add_dict_u64(d, "fib_ipv6_routes", st->a->tables->fib.n6);
		rte_tel_data_add_dict_u64(d, "fib_epoch", st->a->tables->fib.epoch);
	}
	pthread_mutex_unlock(&st->a->ctl_lock);
	pthread_mutex_unlock(&nl_tel_lock);
	return 0;
}

static struct lf_app *tel_app;

static int
tel_fib_lookup(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static const char *const kinds[] = {
#define X(e, s) s,
		LF_KINDS(X)
#undef X
	};
	struct lf_app *a = tel_app;
	char txt[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	const struct lf_tables *t;
	uint8_t addr[16] = { 0 };
	uint8_t af;
	uint32_t nh;
	int depth;

	(void)cmd;
	if (params == NULL || a == NULL)
		return -EINVAL;
	if (inet_pton(AF_INET, params, addr) == 1)
		af = 4;
	else if (inet_pton(AF_INET6, params, addr) == 1)
		af = 6;
	else
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "addr", params);
	/* nl_tel_lock before ctl_lock, as everywhere. */
	pthread_mutex_lock(&nl_tel_lock);
	pthread_mutex_lock(&a->ctl_lock);
	t = a->tables;
	if (t == NULL) {
		pthread_mutex_unlock(&a->ctl_lock);
		pthread_mutex_unlock(&nl_tel_lock);
		return -ESHUTDOWN;
	}
	fib_lookup_one(&t->fib, af, addr, &nh, &depth);
	rte_tel_data_add_dict_u64(d, "gen", t->gen);
	if (nh == LF_NH_NONE || depth < 0) {
		rte_tel_data_add_dict_string(d, "route", "none");
		pthread_mutex_unlock(&a->ctl_lock);
		pthread_mutex_unlock(&nl_tel_lock);
		return 0;
	}
	rte_tel_data_add_dict_u64(d, "nh", nh);
	prefix_clear_host(addr, af_len(af), (unsigned int)depth);
	inet_ntop(af == 4 ? AF_INET : AF_INET6, addr, txt, sizeof(txt));
	snprintf(txt + strlen(txt), sizeof(txt) - strlen(txt), "/%d", depth);
	rte_tel_data_add_dict_string(d, "prefix", txt);
	if (nls != NULL) {
		uint32_t i = kr_find(nls, af, (uint8_t)depth, addr);

		rte_tel_data_add_dict_string(d, "source",
					     i != UINT32_MAX && nls->kr[i].state == KR_INSTALLED
						     ? "kernel"
						     : "file");
	} else {
		rte_tel_data_add_dict_string(d, "source", "file");
	}
	if (nh < t->nh_count) {
		const struct lf_nh *n = &t->nh_table[nh];

		if (n->out != LF_NH_INVALID) {
			rte_tel_data_add_dict_u64(d, "port_index", n->out);
			if (n->out < a->cfg.n_ports)
				rte_tel_data_add_dict_string(d, "port", a->cfg.ports[n->out].name);
			rte_ether_format_addr(mac, sizeof(mac), &n->dst);
			rte_tel_data_add_dict_string(d, "dst_mac", mac);
			rte_ether_format_addr(mac, sizeof(mac), &n->src);
			rte_tel_data_add_dict_string(d, "src_mac", mac);
		} else {
			rte_tel_data_add_dict_string(d, "port", "none");
			rte_tel_data_add_dict_string(d, "kind",
						     n->kind < RTE_DIM(kinds) ? kinds[n->kind]
									      : "?");
			rte_tel_data_add_dict_u64(d, "arg", n->arg);
		}
	} else {
		rte_tel_data_add_dict_string(d, "port", "undefined next hop");
	}
	pthread_mutex_unlock(&a->ctl_lock);
	pthread_mutex_unlock(&nl_tel_lock);
	return 0;
}

static void
tel_register(struct lf_app *a)
{
	static bool done;

	tel_app = a;
	if (done)
		return;
	done = true;
	if (rte_telemetry_register_cmd("/lanefwd/netlink", tel_netlink,
				       "Kernel routes and neighbours followed over netlink") != 0 ||
	    rte_telemetry_register_cmd("/lanefwd/fib/lookup", tel_fib_lookup,
				       "Longest-prefix match of an address in the FIB in force. Parameter: address") !=
		    0)
		LF_LOG(WARNING, fib, "cannot register the netlink telemetry commands");
}

/* -------------------------------------------------------- start / stop */

static int
sock_open(struct mnl_socket **out, bool events, char *err, size_t errlen)
{
	static unsigned int groups[] = { RTNLGRP_IPV4_ROUTE,  RTNLGRP_IPV6_ROUTE,  RTNLGRP_NEIGH,
					 RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, RTNLGRP_LINK };
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	const char *env;
	unsigned int i;
	int zero = 0, rcvbuf = NL_RCVBUF_DEFAULT;

	if (nl == NULL || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(err, errlen, "[netlink]: netlink socket: %s", strerror(errno));
		goto fail;
	}
	fcntl(mnl_socket_get_fd(nl), F_SETFD, FD_CLOEXEC);
	if (!events) {
		*out = nl;
		return 0;
	}
	/* Test-only: a small buffer makes overflow easy to provoke
	 * (tests/integration/netlink.sh). */
	env = getenv("LANEFWD_NETLINK_RCVBUF");
	if (env != NULL && atoi(env) > 0)
		rcvbuf = atoi(env);
	/* SO_RCVBUFFORCE passes net.core.rmem_max (lanefwd has
	 * CAP_NET_ADMIN); SO_RCVBUF as a fallback. */
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) != 0)
		setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* Overflow must show (ENOBUFS) so that a resync follows. */
	mnl_socket_setsockopt(nl, NETLINK_NO_ENOBUFS, &zero, sizeof(zero));
	for (i = 0; i < RTE_DIM(groups); i++) {
		if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &groups[i],
					  sizeof(groups[i])) < 0) {
			snprintf(err, errlen, "[netlink]: joining rtnetlink group %u: %s",
				 groups[i], strerror(errno));
			goto fail;
		}
	}
	*out = nl;
	return 0;
fail:
	if (nl != NULL)
		mnl_socket_close(nl);
	return -EIO;
}

static void
state_free(struct nl_state *st)
{
	if (st == NULL)
		return;
	if (st->ev != NULL)
		mnl_socket_close(st->ev);
	if (st->dump != NULL)
		mnl_socket_close(st->dump);
	free(st->kr);
	free(st->free_idx);
	free(st->slot);
	free(st);
}

int
netlink_start(struct lf_app *a, char *err, size_t errlen)
{
	const struct lf_netlink_conf *nc = &a->cfg.netlink;
	struct nl_state *st;
	uint32_t slots = 1;
	int ret;

	tel_register(a);
	if (!nc->enabled)
		return 0;
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		goto nomem;
	st->a = a;
	st->kr_cap = nc->max_routes ? nc->max_routes : 1;
	/* At most half full, so that probes stay short. Untouched pages of
	 * these (calloc: mmap) cost nothing until routes come. */
	while (slots < 2 * st->kr_cap)
		slots <<= 1;
	st->slot_mask = slots - 1;
	st->kr = calloc(st->kr_cap, sizeof(*st->kr));
	st->free_idx = calloc(st->kr_cap, sizeof(*st->free_idx));
	st->slot = calloc(slots, sizeof(*st->slot));
	if (st->kr == NULL || st->free_idx == NULL || st->slot == NULL)
		goto nomem;
	/* Subscribe before the dump, so that no change falls between. */
	ret = sock_open(&st->ev, true, err, errlen);
	if (ret == 0)
		ret = sock_open(&st->dump, false, err, errlen);
	if (ret != 0) {
		state_free(st);
		return ret;
	}
	ifmap_refresh(st);
	pthread_mutex_lock(&a->ctl_lock);
	ret = adopt_locked(st);
	if (ret == 0)
		ret = resync_locked(st, a->tables);
	pthread_mutex_unlock(&a->ctl_lock);
	if (ret != 0) {
		snprintf(err, errlen, "[netlink]: the first dump of table %u failed: %s", nc->table,
			 strerror(-ret));
		state_free(st);
		return ret;
	}
	st->neigh_dump_req = false;
	neigh_dump(st);
	LF_LOG(INFO, fib, "netlink: following table %u: %u routes held (%s wins on a prefix)",
	       nc->table, st->kr_n, nc->kernel_wins ? "the kernel" : "the route file");
	pthread_mutex_lock(&nl_tel_lock);
	nls = st;
	pthread_mutex_unlock(&nl_tel_lock);
	ret = rte_ctrl_thread_create(&st->thread, "lf-netlink", NULL, nl_thread, st);
	if (ret != 0) {
		snprintf(err, errlen, "[netlink]: cannot create its thread: %s", strerror(ret));
		pthread_mutex_lock(&nl_tel_lock);
		nls = NULL;
		pthread_mutex_unlock(&nl_tel_lock);
		state_free(st);
		return -ret;
	}
	st->running = true;
	return 0;
nomem:
	state_free(st);
	snprintf(err, errlen, "[netlink]: out of memory for max_routes = %u", nc->max_routes);
	return -ENOMEM;
}

void
netlink_stop(struct lf_app *a)
{
	struct nl_state *st = nls;
	uint32_t i;

	if (st == NULL)
		return;
	st->stop = true;
	if (st->running)
		pthread_join(st->thread, NULL);
	pthread_mutex_lock(&nl_tel_lock);
	nls = NULL;
	pthread_mutex_unlock(&nl_tel_lock);
	/* The routes stay in the FIB (freed with it); their next hops'
	 * references go back. */
	for (i = 0; i < st->kr_hwm; i++)
		if (st->kr[i].used && st->kr[i].nh_ref)
			neigh_nh_put(a, st->kr[i].nh);
	state_free(st);
}

int
netlink_tables_fill(struct lf_app *a, struct lf_tables *t, char *err, size_t errlen)
{
	struct nl_state *st = nls;
	int ret;

	if (st == NULL)
		return 0;
	ret = fib_updates_enable(&t->fib, err, errlen);
	if (ret != 0)
		return ret;
	/* t is not published yet: no one reads it, no grace period. The
	 * entries now describe t, which the caller publishes next. */
	(void)a;
	kr_resettle_all(st, t, false, true);
	st->cur = t;
	st->cur_gen = t->gen;
	return 0;
}
