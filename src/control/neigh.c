/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbours: ARP (RFC 826) and IPv6 ND (RFC 4861) on a control thread
 * (neigh.h). The first half is the core (neigh_core.h): wire formats and
 * the state machine, on bytes and opaque packet pointers with the clock
 * passed in, so that its unit test drives it without threads. The second
 * half is lanefwd's side: the thread that drains the workers' rings, the
 * mbufs it sends through worker 0, the next-hop table writes (RCU), the
 * kernel asked over netlink for exception = kernel ports, and telemetry.
 *
 * Locks: the core is guarded by neigh_lock, the netlink thread and
 * telemetry call in under it; the thread takes app->ctl_lock first and
 * then neigh_lock whenever it may write the tables in force (a reload
 * takes ctl_lock and then calls neigh_tables_fill, which takes neigh_lock:
 * the same order). Workers take neither.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_telemetry.h>
#include <rte_thread.h>

#include "lanefwd.h"
#include "lf_log.h"
#include "neigh.h"
#include "neigh_core.h"

const char *const neigh_counter_names[NEIGH_C_COUNT] = {
#define X(e, s) s,
	NEIGH_COUNTERS(X)
#undef X
};

const char *const neigh_state_names[LF_NEIGH_STATE_COUNT] = {
#define X(e, s) s,
	LF_NEIGH_STATES(X)
#undef X
};

/* ==== Wire formats ==== */

#define ETH_HLEN 14
#define ARP_LEN 28
#define IP6_HLEN 40
#define ND_HLEN 24 /* NS/NA: type, code, sum, flags/reserved, target. */
#define ICMP6_RS 133
#define ICMP6_RA 134
#define ICMP6_NS 135
#define ICMP6_NA 136
#define ICMP6_REDIRECT 137
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define NA_R 0x80
#define NA_S 0x40
#define NA_O 0x20

static const struct rte_ether_addr mac_bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
static const struct rte_ether_addr mac_zero;
static const uint8_t ip6_all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t ip6_any[16];

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
eth_put(uint8_t *f, const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
	uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, type);
}

uint16_t
neigh_arp_build(uint8_t *f, const struct rte_ether_addr *eth_dst,
		const struct rte_ether_addr *eth_src, uint16_t op, const struct rte_ether_addr *sha,
		const uint8_t *spa, const struct rte_ether_addr *tha, const uint8_t *tpa)
{
	uint8_t *a = f + ETH_HLEN;

	memset(f, 0, NEIGH_ARP_FRAME_LEN);
	eth_put(f, eth_dst, eth_src, RTE_ETHER_TYPE_ARP);
	put16(a, 1); /* Ethernet */
	put16(a + 2, RTE_ETHER_TYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	return NEIGH_ARP_FRAME_LEN;
}

int
neigh_arp_parse(const uint8_t *f, uint32_t len, struct neigh_arp *arp)
{
	const uint8_t *a = f + ETH_HLEN;

	if (len < ETH_HLEN + ARP_LEN || get16(f + 12) != RTE_ETHER_TYPE_ARP)
		return -EINVAL;
	if (get16(a) != 1 || get16(a + 2) != RTE_ETHER_TYPE_IPV4 || a[4] != 6 || a[5] != 4)
		return -EINVAL;
	arp->op = get16(a + 6);
	if (arp->op != 1 && arp->op != 2)
		return -EINVAL;
	memcpy(&arp->sha, a + 8, 6);
	memcpy(arp->spa, a + 14, 4);
	memcpy(&arp->tha, a + 18, 6);
	memcpy(arp->tpa, a + 24, 4);
	/* A sender hardware address is one station's: never a group, never zero. */
	if (rte_is_multicast_ether_addr(&arp->sha) || rte_is_zero_ether_addr(&arp->sha))
		return -EINVAL;
	return 0;
}

/* The ICMPv6 checksum over the pseudo-header and len bytes of message m. */
static uint16_t
icmp6_sum(const uint8_t *src, const uint8_t *dst, const uint8_t *m, uint32_t len)
{
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < 16; i += 2)
		s += get16(src + i) + get16(dst + i);
	s += len + 58;
	for (i = 0; i + 1 < len; i += 2)
		s += get16(m + i);
	if (len & 1)
		s += (uint32_t)m[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

uint16_t
neigh_nd_build(uint8_t *f, const struct rte_ether_addr *eth_dst,
	       const struct rte_ether_addr *eth_src, const uint8_t *src, const uint8_t *dst,
	       uint8_t type, uint8_t na_flags, const uint8_t *target,
	       const struct rte_ether_addr *lla)
{
	uint8_t *ip = f + ETH_HLEN, *m = ip + IP6_HLEN;
	uint16_t mlen = ND_HLEN + (lla != NULL ? 8 : 0);

	memset(f, 0, NEIGH_ND_FRAME_LEN);
	eth_put(f, eth_dst, eth_src, RTE_ETHER_TYPE_IPV6);
	ip[0] = 0x60;
	put16(ip + 4, mlen);
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	m[0] = type;
	if (type == ICMP6_NA)
		m[4] = na_flags;
	memcpy(m + 8, target, 16);
	if (lla != NULL) {
		m[24] = type == ICMP6_NA ? ND_OPT_TLLA : ND_OPT_SLLA;
		m[25] = 1;
		memcpy(m + 26, lla, 6);
	}
	put16(m + 2, icmp6_sum(src, dst, m, mlen));
	return (uint16_t)(ETH_HLEN + IP6_HLEN + mlen);
}

static bool
ip6_is_mcast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static bool
ip6_is_any(const uint8_t *a)
{
	return memcmp(a, ip6_any, 16) == 0;
}

void
neigh_solicited_node(const uint8_t *ip, uint8_t *snm, struct rte_ether_addr *mac)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	memcpy(snm, pfx, 13);
	memcpy(snm + 13, ip + 13, 3);
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], snm + 12, 4);
}

void
neigh_link_local(const struct rte_ether_addr *mac, uint8_t *a)
{
	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = mac->addr_bytes[0] ^ 0x02;
	a[9] = mac->addr_bytes[1];
	a[10] = mac->addr_bytes[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = mac->addr_bytes[3];
	a[14] = mac->addr_bytes[4];
	a[15] = mac->addr_bytes[5];
}

/* Minimum message length of each ND type (RFC 4861 4.1-4.5). */
static uint32_t
nd_min_len(uint8_t type)
{
	switch (type) {
	case ICMP6_RS:
		return 8;
	case ICMP6_RA:
		return 16;
	case ICMP6_NS:
	case ICMP6_NA:
		return 24;
	case ICMP6_REDIRECT:
		return 40;
	}
	return UINT32_MAX;
}

int
neigh_nd_parse(const uint8_t *f, uint32_t len, struct neigh_nd *nd)
{
	const uint8_t *ip = f + ETH_HLEN, *m;
	uint32_t plen, mlen, off;

	if (len < ETH_HLEN + IP6_HLEN || get16(f + 12) != RTE_ETHER_TYPE_IPV6)
		return -EINVAL;
	if ((ip[0] >> 4) != 6 || ip[6] != 58 || ip[7] != 255)
		return -EINVAL;
	plen = get16(ip + 4);
	if (plen > len - ETH_HLEN - IP6_HLEN)
		return -EINVAL;
	m = ip + IP6_HLEN;
	mlen = plen;
	if (mlen < 8 || mlen < nd_min_len(m[0]) || m[1] != 0)
		return -EINVAL;
	memset(nd, 0, sizeof(*nd));
	nd->type = m[0];
	memcpy(nd->src, ip + 8, 16);
	memcpy(nd->dst, ip + 24, 16);
	memcpy(&nd->eth_src, f + 6, 6);
	if (icmp6_sum(nd->src, nd->dst, m, mlen) != 0)
		return -EINVAL;
	switch (nd->type) {
	case ICMP6_RS:
		off = 8;
		break;
	case ICMP6_RA:
		off = 16;
		break;
	case ICMP6_NS:
	case ICMP6_NA:
		memcpy(nd->target, m + 8, 16);
		if (ip6_is_mcast(nd->target))
			return -EINVAL;
		nd->flags = nd->type == ICMP6_NA ? (uint8_t)(m[4] & (NA_R | NA_S | NA_O)) : 0;
		off = 24;
		break;
	default: /* redirect */
		memcpy(nd->target, m + 8, 16);
		off = 40;
		break;
	}
	/* Options: each at least 8 bytes and within the message (RFC 4861 4.6). */
	while (off < mlen) {
		uint32_t olen;

		if (mlen - off < 2)
			return -EINVAL;
		olen = (uint32_t)m[off + 1] * 8;
		if (olen == 0 || olen > mlen - off)
			return -EINVAL;
		if ((m[off] == ND_OPT_SLLA && nd->type != ICMP6_NA) ||
		    (m[off] == ND_OPT_TLLA && nd->type == ICMP6_NA)) {
			if (olen != 8)
				return -EINVAL;
			nd->has_lla = true;
			memcpy(&nd->lla, m + off + 2, 6);
		}
		off += olen;
	}
	if (nd->type == ICMP6_NS && ip6_is_any(nd->src)) {
		/* DAD (RFC 4861 7.1.1): to a solicited-node group, no SLLA. */
		if (nd->has_lla ||
		    !(nd->dst[0] == 0xff && nd->dst[1] == 0x02 && nd->dst[11] == 0x01 &&
		      nd->dst[12] == 0xff))
			return -EINVAL;
	}
	/* RFC 4861 7.1.2: a multicast NA is never solicited. */
	if (nd->type == ICMP6_NA && ip6_is_mcast(nd->dst) && (nd->flags & NA_S))
		return -EINVAL;
	if (nd->has_lla && rte_is_multicast_ether_addr(&nd->lla))
		return -EINVAL;
	return 0;
}

/* ==== State machine ==== */

#define NONE UINT32_MAX
#define EVICT_SCAN 64 /* Entries looked at from the oldest for one to age out. */

struct nentry {
	uint8_t ip[16];
	uint16_t port;
	uint8_t af; /* 0: free. */
	uint8_t state; /* enum lf_neigh_state */
	bool has_mac;
	bool from_kernel;
	struct rte_ether_addr mac;
	uint32_t hnext; /* Hash chain. */
	uint32_t prev, next; /* In use: oldest first. Free: the free list (next). */
	uint32_t nh_head; /* Next hops bound to it. */
	uint32_t refs;
	uint32_t probes;
	uint32_t n_held;
	void **held;
	uint64_t confirmed_ms; /* Last confirmed (or learnt). */
	uint64_t next_ms; /* INCOMPLETE/PROBE: next solicitation. */
};

struct nbind {
	uint32_t entry; /* NONE: no entry (not bound, or the table was full). */
	uint32_t next; /* Next binding of the same entry. */
	struct rte_ether_addr src;
	bool bound; /* Resolve (port, af, ip) for it, with or without an entry yet. */
	uint8_t af;
	uint16_t port;
	uint8_t ip[16];
};

struct neigh_core {
	struct neigh_params prm;
	const struct neigh_ops *ops;
	void *u;
	unsigned int n_ports;
	struct neigh_port ports[LF_MAX_DP_PORTS];
	struct nentry *e;
	uint32_t *bucket;
	uint32_t hmask;
	uint32_t free_head;
	uint32_t old_head, old_tail; /* Entries in use, least recently updated first. */
	uint32_t n_used;
	struct nbind *b; /* Indexed by next-hop id. */
	uint64_t now;
	uint64_t cnt[NEIGH_C_COUNT];
};

static uint32_t
key_hash(uint16_t port, uint8_t af, const uint8_t *ip)
{
	uint32_t h = 2166136261u ^ port ^ ((uint32_t)af << 16);
	unsigned int i;

	for (i = 0; i < (af == 4 ? 4u : 16u); i++)
		h = (h ^ ip[i]) * 16777619u;
	return h ^ (h >> 15);
}

static unsigned int
alen(uint8_t af)
{
	return af == 4 ? 4 : 16;
}

static struct nentry *
entry_find(const struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip)
{
	uint32_t i = c->bucket[key_hash(port, af, ip) & c->hmask];

	for (; i != NONE; i = c->e[i].hnext) {
		const struct nentry *e = &c->e[i];

		if (e->port == port && e->af == af && memcmp(e->ip, ip, alen(af)) == 0)
			return &c->e[i];
	}
	return NULL;
}

static uint32_t
eidx(const struct neigh_core *c, const struct nentry *e)
{
	return (uint32_t)(e - c->e);
}

static void
old_unlink(struct neigh_core *c, struct nentry *e)
{
	if (e->prev != NONE)
		c->e[e->prev].next = e->next;
	else
		c->old_head = e->next;
	if (e->next != NONE)
		c->e[e->next].prev = e->prev;
	else
		c->old_tail = e->prev;
	e->prev = e->next = NONE;
}

static void
old_append(struct neigh_core *c, struct nentry *e)
{
	uint32_t i = eidx(c, e);

	e->next = NONE;
	e->prev = c->old_tail;
	if (c->old_tail != NONE)
		c->e[c->old_tail].next = i;
	else
		c->old_head = i;
	c->old_tail = i;
}

/* Most recently updated: the last to age out. */
static void
entry_touch(struct neigh_core *c, struct nentry *e)
{
	if (c->old_tail != eidx(c, e)) {
		old_unlink(c, e);
		old_append(c, e);
	}
}

static void
held_drop_all(struct neigh_core *c, struct nentry *e)
{
	uint32_t i;

	for (i = 0; i < e->n_held; i++)
		c->ops->drop(c->u, e->held[i]);
	c->cnt[NEIGH_C_HELD_DROPPED] += e->n_held;
	e->n_held = 0;
	free(e->held);
	e->held = NULL;
}

static void
entry_delete(struct neigh_core *c, struct nentry *e)
{
	uint32_t *p = &c->bucket[key_hash(e->port, e->af, e->ip) & c->hmask];
	uint32_t i = eidx(c, e);

	held_drop_all(c, e);
	while (*p != i)
		p = &c->e[*p].hnext;
	*p = e->hnext;
	old_unlink(c, e);
	memset(e, 0, sizeof(*e));
	e->next = c->free_head;
	e->prev = e->hnext = e->nh_head = NONE;
	c->free_head = i;
	c->n_used--;
}

/* An entry for (port, af, ip): a free one, else the oldest unused one aged out. */
static struct nentry *
entry_new(struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip)
{
	struct nentry *e;
	uint32_t i, h, k;

	if (c->free_head == NONE) {
		for (i = c->old_head, k = 0; i != NONE && k < EVICT_SCAN; i = c->e[i].next, k++) {
			e = &c->e[i];
			if (e->refs == 0 && e->n_held == 0 && e->state != LF_NEIGH_PERMANENT)
				break;
		}
		if (i == NONE || k == EVICT_SCAN) {
			c->cnt[NEIGH_C_TABLE_FULL]++;
			return NULL;
		}
		entry_delete(c, &c->e[i]);
	}
	i = c->free_head;
	e = &c->e[i];
	c->free_head = e->next;
	memset(e, 0, sizeof(*e));
	e->port = port;
	e->af = af;
	memcpy(e->ip, ip, alen(af));
	e->state = LF_NEIGH_INCOMPLETE;
	e->nh_head = NONE;
	h = key_hash(port, af, ip) & c->hmask;
	e->hnext = c->bucket[h];
	c->bucket[h] = i;
	old_append(c, e);
	c->n_used++;
	return e;
}

static bool
state_usable(const struct nentry *e)
{
	return e->has_mac && e->state != LF_NEIGH_INCOMPLETE && e->state != LF_NEIGH_FAILED;
}

static bool
bind_publish(struct neigh_core *c, uint32_t nh, const struct nentry *e)
{
	return c->ops->nh_set(c->u, nh, e->port, state_usable(e) ? &e->mac : NULL, &c->b[nh].src);
}

static void
entry_publish(struct neigh_core *c, const struct nentry *e)
{
	uint32_t nh;

	for (nh = e->nh_head; nh != NONE; nh = c->b[nh].next)
		bind_publish(c, nh, e);
}

/* Held packets go back to the data plane once their next hops are written. */
static void
held_release(struct neigh_core *c, struct nentry *e)
{
	uint32_t i;

	for (i = 0; i < e->n_held; i++) {
		if (c->ops->release(c->u, e->held[i])) {
			c->cnt[NEIGH_C_RELEASED]++;
		} else {
			c->ops->drop(c->u, e->held[i]);
			c->cnt[NEIGH_C_HELD_DROPPED]++;
		}
	}
	e->n_held = 0;
	free(e->held);
	e->held = NULL;
}

/* The port's address of family af to source from towards ip: on ip's subnet if any. */
static const uint8_t *
port_src_addr(const struct neigh_port *p, uint8_t af, const uint8_t *ip)
{
	const uint8_t *first = NULL;
	unsigned int i;

	for (i = 0; i < p->n_addrs; i++) {
		const struct lf_ip_addr *a = &p->addr[i];
		unsigned int bits = a->plen, k;
		bool match = true;

		if (a->af != af)
			continue;
		if (first == NULL)
			first = a->a;
		for (k = 0; k < bits / 8 && match; k++)
			match = a->a[k] == ip[k];
		if (match && bits % 8)
			match = ((a->a[k] ^ ip[k]) & (0xff00 >> (bits % 8))) == 0;
		if (match)
			return a->a;
	}
	return first;
}

/* Whether ip is one of the port's addresses. */
static bool
port_has(const struct neigh_port *p, uint8_t af, const uint8_t *ip)
{
	unsigned int i;

	for (i = 0; i < p->n_addrs; i++)
		if (p->addr[i].af == af && memcmp(p->addr[i].a, ip, alen(af)) == 0)
			return true;
	return false;
}

/* Whether ip is on a subnet connected to the port (IPv6 link-local: always). */
static bool
port_onlink(const struct neigh_port *p, uint8_t af, const uint8_t *ip)
{
	unsigned int i, k;

	if (af == 6 && ip[0] == 0xfe && (ip[1] & 0xc0) == 0x80)
		return true;
	for (i = 0; i < p->n_addrs; i++) {
		const struct lf_ip_addr *a = &p->addr[i];
		bool match = true;

		if (a->af != af || (af == 6 && a->a[0] == 0xfe && (a->a[1] & 0xc0) == 0x80))
			continue;
		for (k = 0; k < a->plen / 8u && match; k++)
			match = a->a[k] == ip[k];
		if (match && a->plen % 8)
			match = ((a->a[k] ^ ip[k]) & (0xff00 >> (a->plen % 8))) == 0;
		if (match)
			return true;
	}
	return false;
}

static void
send_frame(struct neigh_core *c, uint16_t port, const uint8_t *f, uint16_t len,
	   enum neigh_counter what)
{
	if (c->ops->send(c->u, port, f, len))
		c->cnt[what]++;
	else
		c->cnt[NEIGH_C_TX_FAILED]++;
}

/* One ARP request or NS for e: broadcast / multicast while INCOMPLETE, unicast probe after. */
static void
solicit(struct neigh_core *c, struct nentry *e)
{
	const struct neigh_port *p = &c->ports[e->port];
	bool unicast = e->state == LF_NEIGH_PROBE && e->has_mac;
	uint8_t f[NEIGH_ND_FRAME_LEN];
	const uint8_t *src;
	uint16_t len;

	if (p->kernel) {
		if (c->ops->kernel_resolve != NULL)
			c->ops->kernel_resolve(c->u, e->port, e->af, e->ip);
		c->cnt[NEIGH_C_KERNEL_ASKED]++;
		return;
	}
	src = port_src_addr(p, e->af, e->ip);
	if (src == NULL) /* No address of the family here: nothing to ask from. */
		return;
	if (e->af == 4) {
		len = neigh_arp_build(f, unicast ? &e->mac : &mac_bcast, &p->mac, 1, &p->mac, src,
				      &mac_zero, e->ip);
		send_frame(c, e->port, f, len, NEIGH_C_ARP_REQ_OUT);
	} else {
		uint8_t snm[16];
		struct rte_ether_addr smac;

		neigh_solicited_node(e->ip, snm, &smac);
		len = neigh_nd_build(f, unicast ? &e->mac : &smac, &p->mac, src,
				     unicast ? e->ip : snm, ICMP6_NS, 0, e->ip, &p->mac);
		send_frame(c, e->port, f, len, NEIGH_C_NS_OUT);
	}
}

/* Start (or restart) resolving e: INCOMPLETE, first solicitation now. */
static void
entry_resolve(struct neigh_core *c, struct nentry *e)
{
	bool was_usable = state_usable(e);

	e->state = LF_NEIGH_INCOMPLETE;
	e->probes = 1;
	e->next_ms = c->now + c->prm.retrans_ms;
	if (was_usable)
		entry_publish(c, e);
	solicit(c, e);
}

/* Resolution or probing ran out of retries. */
static void
entry_fail(struct neigh_core *c, struct nentry *e)
{
	bool was_usable = state_usable(e);

	e->state = LF_NEIGH_FAILED;
	c->cnt[NEIGH_C_FAILED]++;
	held_drop_all(c, e);
	if (was_usable)
		entry_publish(c, e);
	if (e->refs == 0)
		entry_delete(c, e);
}

/* e has mac in state st (confirmed now): write its next hops, release what waits. */
static void
entry_set(struct neigh_core *c, struct nentry *e, const struct rte_ether_addr *mac,
	  enum lf_neigh_state st)
{
	bool was_usable = state_usable(e);
	bool changed = !e->has_mac || !rte_is_same_ether_addr(&e->mac, mac);

	if (!was_usable)
		/* Resolved: we had asked (or it had failed); else learnt from its own frames. */
		c->cnt[e->probes > 0 || e->state == LF_NEIGH_FAILED ? NEIGH_C_RESOLVED
								    : NEIGH_C_LEARNT]++;
	if (e->has_mac && changed)
		c->cnt[NEIGH_C_MAC_CHANGED]++;
	e->mac = *mac;
	e->has_mac = true;
	e->state = (uint8_t)st;
	e->probes = 0;
	if (st == LF_NEIGH_REACHABLE || st == LF_NEIGH_PERMANENT || !was_usable)
		e->confirmed_ms = c->now;

	if (!was_usable || changed)
		entry_publish(c, e);
	held_release(c, e);
	entry_touch(c, e);
}

/* What a MAC claim is worth. */
enum claim {
	CLAIM_SOLICITED, /* An answer to our solicitation (ARP reply, NA with S). */
	CLAIM_TARGETED, /* A request / NS to us, or an unsolicited answer to us. */
	CLAIM_UNSOLICITED, /* Gratuitous, or not addressed to us. */
	CLAIM_KERNEL, /* The kernel's own resolution (exception = kernel). */
};

/*
 * A neighbour claims mac for e (RFC 4861 7.2.5 / 7.3.3, and RFC 826's
 * merge for ARP). A different MAC is taken while the entry is unresolved
 * or STALE; on a REACHABLE entry it is refused (counted spoof_refused) and
 * the old MAC probed, and a probe in flight refuses it too: a neighbour
 * that really changed its MAC fails the probe and is then resolved again
 * by broadcast. override: an NA without O does not change a MAC.
 */
static void
entry_claim(struct neigh_core *c, struct nentry *e, const struct rte_ether_addr *mac,
	    enum claim how, bool override)
{
	bool same = e->has_mac && rte_is_same_ether_addr(&e->mac, mac);

	if (e->state == LF_NEIGH_PERMANENT) {
		if (!same)
			c->cnt[NEIGH_C_SPOOF_REFUSED]++;
		return;
	}
	if (how == CLAIM_KERNEL) {
		entry_set(c, e, mac, LF_NEIGH_REACHABLE);
		return;
	}
	switch (e->state) {
	case LF_NEIGH_INCOMPLETE:
	case LF_NEIGH_FAILED:
		entry_set(c, e, mac, how == CLAIM_SOLICITED ? LF_NEIGH_REACHABLE : LF_NEIGH_STALE);
		return;
	case LF_NEIGH_REACHABLE:
		if (same) {
			if (how == CLAIM_SOLICITED)
				e->confirmed_ms = c->now;
			return;
		}
		if (!override) {
			e->state = LF_NEIGH_STALE;
			return;
		}
		c->cnt[NEIGH_C_SPOOF_REFUSED]++;
		e->state = LF_NEIGH_PROBE;
		e->probes = 1;
		e->next_ms = c->now + c->prm.retrans_ms;
		solicit(c, e);
		return;
	case LF_NEIGH_PROBE:
		if (same) {
			if (how == CLAIM_SOLICITED)
				entry_set(c, e, mac, LF_NEIGH_REACHABLE);
			return;
		}
		if (override)
			c->cnt[NEIGH_C_SPOOF_REFUSED]++;
		return;
	default: /* STALE */
		if (same) {
			if (how == CLAIM_SOLICITED)
				entry_set(c, e, mac, LF_NEIGH_REACHABLE);
			return;
		}
		if (override)
			entry_set(c, e, mac,
				  how == CLAIM_SOLICITED ? LF_NEIGH_REACHABLE : LF_NEIGH_STALE);
		return;
	}
}

static void
mirror_copy(struct neigh_core *c, uint16_t port, const uint8_t *f, uint32_t len)
{
	uint16_t m = c->ports[port].mirror;

	if (m == UINT16_MAX || len > UINT16_MAX)
		return;
	send_frame(c, m, f, (uint16_t)len, NEIGH_C_MIRRORED);
}

static bool
any_port_has(const struct neigh_core *c, uint8_t af, const uint8_t *ip)
{
	unsigned int p;

	for (p = 0; p < c->n_ports; p++)
		if (port_has(&c->ports[p], af, ip))
			return true;
	return false;
}

static void
arp_input(struct neigh_core *c, uint16_t port, const uint8_t *f, uint32_t len)
{
	const struct neigh_port *p = &c->ports[port];
	static const uint8_t zero4[4];
	struct neigh_arp a;
	struct nentry *e;
	bool for_us, gratuitous;
	uint8_t out[NEIGH_ARP_FRAME_LEN];

	if (neigh_arp_parse(f, len, &a) != 0) {
		c->cnt[NEIGH_C_MALFORMED]++;
		return;
	}
	c->cnt[a.op == 1 ? NEIGH_C_ARP_REQ_IN : NEIGH_C_ARP_REP_IN]++;
	for_us = port_has(p, 4, a.tpa);
	gratuitous = memcmp(a.spa, a.tpa, 4) == 0;
	if (memcmp(a.spa, zero4, 4) == 0) {
		/* An address probe (RFC 5227): defend ours, learn nothing. */
		if (a.op == 1 && for_us) {
			neigh_arp_build(out, &a.sha, &p->mac, 2, &p->mac, a.tpa, &a.sha, a.spa);
			send_frame(c, port, out, NEIGH_ARP_FRAME_LEN, NEIGH_C_ARP_REP_OUT);
		} else {
			c->cnt[NEIGH_C_IGNORED]++;
		}
		return;
	}
	if (any_port_has(c, 4, a.spa)) {
		c->cnt[NEIGH_C_CONFLICT]++;
		return;
	}
	e = entry_find(c, port, 4, a.spa);
	if (port_onlink(p, 4, a.spa) && !p->kernel) {
		/* RFC 826: merge into an entry we have; add one only when we are the target. */
		if (e != NULL)
			entry_claim(c, e, &a.sha,
				    a.op == 2 && for_us &&
						    (e->state == LF_NEIGH_INCOMPLETE ||
						     e->state == LF_NEIGH_PROBE)
					    ? CLAIM_SOLICITED
					    : for_us ? CLAIM_TARGETED
						     : CLAIM_UNSOLICITED,
				    true);
		else if (for_us && (e = entry_new(c, port, 4, a.spa)) != NULL)
			entry_set(c, e, &a.sha, LF_NEIGH_STALE);
	} else if (!for_us) {
		c->cnt[NEIGH_C_IGNORED]++;
	}
	if (a.op == 1 && for_us) {
		neigh_arp_build(out, &a.sha, &p->mac, 2, &p->mac, a.tpa, &a.sha, a.spa);
		send_frame(c, port, out, NEIGH_ARP_FRAME_LEN, NEIGH_C_ARP_REP_OUT);
	} else if (for_us || gratuitous) {
		/* Replies to us and announcements: the kernel's own table learns them too. */
		mirror_copy(c, port, f, len);
	} else if (e == NULL) {
		c->cnt[NEIGH_C_IGNORED]++;
	}
}

static void
nd_input(struct neigh_core *c, uint16_t port, const uint8_t *f, uint32_t len)
{
	const struct neigh_port *p = &c->ports[port];
	struct neigh_nd nd;
	struct nentry *e;
	uint8_t out[NEIGH_ND_FRAME_LEN];
	uint16_t olen;

	if (neigh_nd_parse(f, len, &nd) != 0) {
		c->cnt[NEIGH_C_MALFORMED]++;
		return;
	}
	switch (nd.type) {
	case ICMP6_RS:
	case ICMP6_RA:
	case ICMP6_REDIRECT:
		c->cnt[nd.type == ICMP6_REDIRECT ? NEIGH_C_REDIRECT_IN : NEIGH_C_RS_RA_IN]++;
		if (p->mirror != UINT16_MAX)
			mirror_copy(c, port, f, len);
		else
			c->cnt[NEIGH_C_NO_MIRROR]++;
		return;
	case ICMP6_NS: {
		bool dad = ip6_is_any(nd.src);

		c->cnt[NEIGH_C_NS_IN]++;
		if (!port_has(p, 6, nd.target)) {
			c->cnt[NEIGH_C_IGNORED]++;
			return;
		}
		if (!dad && nd.has_lla && !any_port_has(c, 6, nd.src) &&
		    port_onlink(p, 6, nd.src) && !p->kernel) {
			/* RFC 4861 7.2.3: create or update, STALE. */
			e = entry_find(c, port, 6, nd.src);
			if (e != NULL)
				entry_claim(c, e, &nd.lla, CLAIM_TARGETED, true);
			else if ((e = entry_new(c, port, 6, nd.src)) != NULL)
				entry_set(c, e, &nd.lla, LF_NEIGH_STALE);
		}
		/* 7.2.4: solicited NA to the sender, or to all nodes for DAD. */
		olen = neigh_nd_build(out,
				      dad ? &(struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } }
					      : nd.has_lla ? &nd.lla
							   : &nd.eth_src,
				      &p->mac, nd.target, dad ? ip6_all_nodes : nd.src, ICMP6_NA,
				      dad ? NA_R | NA_O : NA_R | NA_S | NA_O, nd.target, &p->mac);
		send_frame(c, port, out, olen, NEIGH_C_NA_OUT);
		return;
	}
	default: /* NA */
		c->cnt[NEIGH_C_NA_IN]++;
		if (any_port_has(c, 6, nd.target)) {
			c->cnt[NEIGH_C_CONFLICT]++;
			return;
		}
		mirror_copy(c, port, f, len);
		e = entry_find(c, port, 6, nd.target);
		if (e == NULL || p->kernel) {
			/* 7.2.5: no entry, nothing to update. */
			c->cnt[NEIGH_C_IGNORED]++;
			return;
		}
		if (!nd.has_lla) {
			/* Only confirms an entry that has a MAC. */
			if (e->has_mac && e->state != LF_NEIGH_INCOMPLETE && (nd.flags & NA_S))
				entry_claim(c, e, &e->mac, CLAIM_SOLICITED, true);
			return;
		}
		entry_claim(c, e, &nd.lla, (nd.flags & NA_S) ? CLAIM_SOLICITED : CLAIM_UNSOLICITED,
			    (nd.flags & NA_O) || e->state == LF_NEIGH_INCOMPLETE ||
				    e->state == LF_NEIGH_FAILED);
		return;
	}
}

void
neigh_core_input(struct neigh_core *c, uint16_t port, const uint8_t *f, uint32_t len,
		 uint64_t now_ms)
{
	c->now = now_ms;
	if (port >= c->n_ports || len < ETH_HLEN) {
		c->cnt[NEIGH_C_MALFORMED]++;
		return;
	}
	if (get16(f + 12) == RTE_ETHER_TYPE_ARP)
		arp_input(c, port, f, len);
	else
		nd_input(c, port, f, len);
}

static bool bind_attach(struct neigh_core *c, uint32_t nh);

void
neigh_core_held(struct neigh_core *c, uint32_t nh, void *pkt, uint64_t now_ms)
{
	struct nentry *e;

	c->now = now_ms;
	if (nh >= c->prm.nh_limit || !c->b[nh].bound ||
	    (c->b[nh].entry == NONE && !bind_attach(c, nh))) {
		c->ops->drop(c->u, pkt);
		c->cnt[NEIGH_C_HELD_DROPPED]++;
		return;
	}
	e = &c->e[c->b[nh].entry];
	if (state_usable(e)) {
		/* Resolved while it was on its way here: write it (again) and rerun. */
		if (bind_publish(c, nh, e) && c->ops->release(c->u, pkt)) {
			c->cnt[NEIGH_C_RELEASED]++;
		} else {
			c->ops->drop(c->u, pkt);
			c->cnt[NEIGH_C_HELD_DROPPED]++;
		}
		return;
	}
	if (e->n_held >= c->prm.queue_packets) {
		c->ops->drop(c->u, pkt);
		c->cnt[NEIGH_C_HELD_DROPPED]++;
	} else {
		if (e->held == NULL) {
			e->held = calloc(c->prm.queue_packets, sizeof(*e->held));
			if (e->held == NULL) {
				c->ops->drop(c->u, pkt);
				c->cnt[NEIGH_C_HELD_DROPPED]++;
				return;
			}
		}
		e->held[e->n_held++] = pkt;
		c->cnt[NEIGH_C_HELD]++;
	}
	/* New traffic to a failed neighbour tries again (RFC 4861 7.3.3). */
	if (e->state == LF_NEIGH_FAILED)
		entry_resolve(c, e);
}

void
neigh_core_timer(struct neigh_core *c, uint64_t now_ms)
{
	uint32_t i, next;

	c->now = now_ms;
	for (i = c->old_head; i != NONE; i = next) {
		struct nentry *e = &c->e[i];
		bool kernel = c->ports[e->port].kernel;

		next = e->next; /* e may be deleted. */
		switch (e->state) {
		case LF_NEIGH_INCOMPLETE:
		case LF_NEIGH_PROBE:
			if (now_ms < e->next_ms)
				break;
			if (e->probes >= c->prm.retries) {
				entry_fail(c, e);
				break;
			}
			e->probes++;
			e->next_ms = now_ms + c->prm.retrans_ms;
			solicit(c, e);
			break;
		case LF_NEIGH_REACHABLE:
			/* The kernel ages what it resolved and tells us (neigh_learn/forget). */
			if (!kernel && now_ms - e->confirmed_ms >= c->prm.reachable_ms)
				e->state = LF_NEIGH_STALE;
			break;
		case LF_NEIGH_STALE:
			/* Used (next hops route through it): verify it. Unused: left to age out. */
			if (e->refs > 0 && !kernel) {
				e->state = LF_NEIGH_PROBE;
				e->probes = 1;
				e->next_ms = now_ms + c->prm.retrans_ms;
				solicit(c, e);
			}
			break;
		default:
			break;
		}
	}
}

void
neigh_core_announce(struct neigh_core *c)
{
	uint8_t f[NEIGH_ND_FRAME_LEN];
	unsigned int p, i;
	uint16_t len;

	for (p = 0; p < c->n_ports; p++) {
		const struct neigh_port *np = &c->ports[p];

		if (np->kernel)
			continue; /* The kernel announces its own interface. */
		for (i = 0; i < np->n_addrs; i++) {
			const struct lf_ip_addr *a = &np->addr[i];

			if (a->af == 4) {
				/* Gratuitous ARP as a request (RFC 5227 3): spa = tpa. */
				len = neigh_arp_build(f, &mac_bcast, &np->mac, 1, &np->mac, a->a,
						      &mac_zero, a->a);
				send_frame(c, (uint16_t)p, f, len, NEIGH_C_ARP_REQ_OUT);
			} else {
				len = neigh_nd_build(f,
						     &(struct rte_ether_addr){
							     { 0x33, 0x33, 0, 0, 0, 1 } },
						     &np->mac, a->a, ip6_all_nodes, ICMP6_NA,
						     NA_R | NA_O, a->a, &np->mac);
				send_frame(c, (uint16_t)p, f, len, NEIGH_C_NA_OUT);
			}
		}
	}
}

/*
 * Give bound next hop nh its entry: the neighbour's, or a new one, which
 * starts resolving. @return false when the table is full (nh stays bound
 * without one, unresolved; its next packet tries again).
 */
static bool
bind_attach(struct neigh_core *c, uint32_t nh)
{
	struct nbind *b = &c->b[nh];
	struct nentry *e = entry_find(c, b->port, b->af, b->ip);

	if (e == NULL && (e = entry_new(c, b->port, b->af, b->ip)) == NULL)
		return false;
	b->entry = eidx(c, e);
	b->next = e->nh_head;
	e->nh_head = nh;
	e->refs++;
	bind_publish(c, nh, e);
	if ((e->state == LF_NEIGH_INCOMPLETE && e->probes == 0) || e->state == LF_NEIGH_FAILED)
		entry_resolve(c, e);
	return true;
}

int
neigh_core_bind(struct neigh_core *c, uint32_t nh, uint16_t port, uint8_t af, const uint8_t *ip,
		const struct rte_ether_addr *src, uint64_t now_ms)
{
	struct nbind *b;

	c->now = now_ms;
	if (nh >= c->prm.nh_limit || port >= c->n_ports || (af != 4 && af != 6))
		return -EINVAL;
	neigh_core_unbind(c, nh);
	b = &c->b[nh];
	b->bound = true;
	b->port = port;
	b->af = af;
	memset(b->ip, 0, sizeof(b->ip));
	memcpy(b->ip, ip, alen(af));
	b->src = *src;
	if (!bind_attach(c, nh)) {
		/* Unresolved until an entry frees up: its packets are dropped. */
		c->ops->nh_set(c->u, nh, port, NULL, src);
		return -ENOSPC;
	}
	return 0;
}

void
neigh_core_unbind(struct neigh_core *c, uint32_t nh)
{
	struct nentry *e;
	uint32_t *p;

	if (nh >= c->prm.nh_limit)
		return;
	c->b[nh].bound = false;
	if (c->b[nh].entry == NONE)
		return;
	e = &c->e[c->b[nh].entry];
	for (p = &e->nh_head; *p != nh; p = &c->b[*p].next)
		;
	*p = c->b[nh].next;
	c->b[nh].entry = NONE;
	c->b[nh].next = NONE;
	e->refs--;
	if (e->refs == 0 && !state_usable(e) && e->state != LF_NEIGH_PERMANENT)
		entry_delete(c, e);
}

bool
neigh_core_bound(const struct neigh_core *c, uint32_t nh, uint16_t *port, uint8_t *af, uint8_t *ip)
{
	const struct nbind *b;

	if (nh >= c->prm.nh_limit || !c->b[nh].bound)
		return false;
	b = &c->b[nh];
	*port = b->port;
	*af = b->af;
	memcpy(ip, b->ip, alen(b->af));
	return true;
}

void
neigh_core_republish(struct neigh_core *c)
{
	uint32_t i;

	for (i = c->old_head; i != NONE; i = c->e[i].next)
		entry_publish(c, &c->e[i]);
}

int
neigh_core_learn(struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip,
		 const struct rte_ether_addr *mac, bool permanent, uint64_t now_ms)
{
	struct nentry *e;

	c->now = now_ms;
	if (port >= c->n_ports || (af != 4 && af != 6) || rte_is_multicast_ether_addr(mac) ||
	    rte_is_zero_ether_addr(mac))
		return -EINVAL;
	e = entry_find(c, port, af, ip);
	if (e == NULL && (e = entry_new(c, port, af, ip)) == NULL)
		return -ENOSPC;
	e->from_kernel = true;
	if (permanent) {
		entry_set(c, e, mac, LF_NEIGH_PERMANENT);
		return 0;
	}
	if (e->state == LF_NEIGH_PERMANENT)
		e->state = LF_NEIGH_STALE; /* No longer static in the kernel. */
	entry_claim(c, e, mac, c->ports[port].kernel ? CLAIM_KERNEL : CLAIM_UNSOLICITED, true);
	return 0;
}

void
neigh_core_forget(struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip)
{
	struct nentry *e;

	if (port >= c->n_ports || (af != 4 && af != 6))
		return;
	e = entry_find(c, port, af, ip);
	if (e == NULL || !e->from_kernel)
		return;
	if (e->refs == 0) {
		entry_delete(c, e);
	} else if (c->ports[port].kernel) {
		/* Unresolved again: the next packet asks the kernel. */
		bool was_usable = state_usable(e);

		e->state = LF_NEIGH_FAILED;
		e->has_mac = false;
		if (was_usable)
			entry_publish(c, e);
	} else if (state_usable(e)) {
		e->state = LF_NEIGH_STALE; /* Ours to verify: probed as it is used. */
	}
}

static void
view_fill(const struct neigh_core *c, const struct nentry *e, uint64_t now, struct neigh_view *v)
{
	memset(v, 0, sizeof(*v));
	v->port = e->port;
	v->af = e->af;
	memcpy(v->ip, e->ip, alen(e->af));
	v->state = (enum lf_neigh_state)e->state;
	v->has_mac = e->has_mac;
	v->mac = e->mac;
	v->age_ms = now >= e->confirmed_ms ? now - e->confirmed_ms : 0;
	v->held = e->n_held;
	v->refs = e->refs;
	(void)c;
}

bool
neigh_core_lookup(const struct neigh_core *c, uint16_t port, uint8_t af, const uint8_t *ip,
		  uint64_t now_ms, struct neigh_view *v)
{
	const struct nentry *e = entry_find(c, port, af, ip);

	if (e == NULL)
		return false;
	view_fill(c, e, now_ms, v);
	return true;
}

uint32_t
neigh_core_walk(const struct neigh_core *c, uint64_t now_ms, uint32_t max,
		void (*fn)(void *arg, const struct neigh_view *v), void *arg)
{
	struct neigh_view v;
	uint32_t i, k = 0;

	for (i = c->old_head; i != NONE && k < max; i = c->e[i].next, k++) {
		view_fill(c, &c->e[i], now_ms, &v);
		fn(arg, &v);
	}
	return c->n_used;
}

const uint64_t *
neigh_core_counters(const struct neigh_core *c)
{
	return c->cnt;
}

void
neigh_core_count(struct neigh_core *c, enum neigh_counter what)
{
	c->cnt[what]++;
}

struct neigh_core *
neigh_core_create(const struct neigh_params *prm, const struct neigh_port *ports,
		  unsigned int n_ports, const struct neigh_ops *ops, void *u)
{
	struct neigh_core *c;
	uint32_t i, nb = 1;

	if (n_ports > LF_MAX_DP_PORTS || prm->max_entries == 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->prm = *prm;
	if (c->prm.retries == 0)
		c->prm.retries = 1;
	c->ops = ops;
	c->u = u;
	c->n_ports = n_ports;
	memcpy(c->ports, ports, n_ports * sizeof(*ports));
	while (nb < prm->max_entries)
		nb <<= 1;
	c->hmask = nb - 1;
	c->e = calloc(prm->max_entries, sizeof(*c->e));
	c->bucket = malloc(nb * sizeof(*c->bucket));
	c->b = malloc((prm->nh_limit ? prm->nh_limit : 1) * sizeof(*c->b));
	if (c->e == NULL || c->bucket == NULL || c->b == NULL) {
		neigh_core_free(c);
		return NULL;
	}
	for (i = 0; i < nb; i++)
		c->bucket[i] = NONE;
	for (i = 0; i < prm->nh_limit; i++) {
		c->b[i].entry = NONE;
		c->b[i].next = NONE;
		c->b[i].bound = false;
	}
	for (i = 0; i < prm->max_entries; i++) {
		c->e[i].next = i + 1 < prm->max_entries ? i + 1 : NONE;
		c->e[i].prev = c->e[i].hnext = c->e[i].nh_head = NONE;
	}
	c->free_head = 0;
	c->old_head = c->old_tail = NONE;
	return c;
}

void
neigh_core_free(struct neigh_core *c)
{
	uint32_t i;

	if (c == NULL)
		return;
	if (c->e != NULL)
		for (i = c->old_head; i != NONE; i = c->e[i].next)
			held_drop_all(c, &c->e[i]);
	free(c->e);
	free(c->bucket);
	free(c->b);
	free(c);
}

/* ==== lanefwd's side: the thread, mbufs, tables, kernel, telemetry ==== */

/*
 * The thread polls the workers' rings every POLL_US while there is work
 * and backs off, doubling, to POLL_IDLE_MAX_US when there is none: at a
 * fixed 100 us it woke about 7,000 times a second on an idle router, on
 * the CPU it shares with the main lcore (bench-latency saw it preempt the
 * generator there). An ARP/ND frame or a held packet then waits at most
 * 2 ms more for the first answer of a burst.
 */
#define POLL_US 100u
#define POLL_IDLE_MAX_US 2000u
#define TIMER_MS 10
#define RX_BURST 64
#define FRAME_MAX 2048 /* Larger ARP/ND frames are not ND: malformed. */
#define STASH_MAX 1024 /* Frames sent off the thread: every port address announced. */

struct neigh_glue {
	struct lf_app *a;
	struct neigh_core *core;
	pthread_t thread;
	bool running;
	volatile bool stop;
	/* Reload or netlink left next hops for the thread to write. */
	volatile bool dirty;
	bool need_sync; /* A next hop lost its port since the last grace period. */
	uint32_t applied_gen; /* Generation the thread last wrote in. */
	uint32_t n_cfg; /* Config next hops bound: their ids. */
	uint32_t *cfg_nh;
	/* Dynamic ids: use counts (neigh_nh_get); a FIFO of free ones. */
	uint32_t dyn_base, dyn_count;
	uint32_t *dyn_refs;
	uint32_t *dyn_free;
	uint32_t dyn_free_head, dyn_free_n;
	/*
	 * Ids released (neigh_nh_put) while ctl_lock was not ours: the thread
	 * takes their port away (republish only writes bound ids). One flag
	 * per id, so an id released twice is listed once.
	 */
	uint8_t *dyn_unset;
	bool unset_pending;
	struct mnl_socket *nl;
	uint64_t nl_errors; /* Requests the kernel refused. */
	unsigned int ifindex[LF_MAX_PORTS];
	/*
	 * from_ctrl has one producer, this thread: what the core sends or
	 * releases while called from another thread (netlink, start) waits
	 * here, and so do table writes when ctl_lock was not ours.
	 */
	bool on_thread; /* The core runs on the thread, under ctl_lock. */
	bool tables_ok; /* ctl_lock is held: the tables in force may be written. */
	uint32_t n_stash;
	struct rte_mbuf *stash[STASH_MAX];
};

static pthread_mutex_t neigh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct neigh_glue *neigh_g; /* Under neigh_lock. */
static bool neigh_tel_registered;

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct rte_mempool *
port_pool(const struct lf_app *a, uint16_t port)
{
	int s = a->ports[port].socket;
	unsigned int i;

	if (s >= 0 && s < LF_MAX_SOCKETS && a->pools[s] != NULL)
		return a->pools[s];
	for (i = 0; i < LF_MAX_SOCKETS; i++)
		if (a->pools[i] != NULL)
			return a->pools[i];
	return NULL;
}

/* Onto worker 0's ring, or into the stash when called off the thread. */
static bool
glue_out(struct neigh_glue *g, struct rte_mbuf *m)
{
	if (g->on_thread)
		return rte_ring_sp_enqueue(g->a->from_ctrl, m) == 0;
	if (g->n_stash == STASH_MAX)
		return false;
	g->stash[g->n_stash++] = m;
	return true;
}

static void
stash_flush(struct neigh_glue *g)
{
	uint32_t i;

	for (i = 0; i < g->n_stash; i++) {
		if (rte_ring_sp_enqueue(g->a->from_ctrl, g->stash[i]) != 0) {
			rte_pktmbuf_free(g->stash[i]);
			neigh_core_count(g->core, NEIGH_C_TX_FAILED);
		}
	}
	g->n_stash = 0;
}

static bool
op_send(void *u, uint16_t port, const uint8_t *f, uint16_t len)
{
	struct neigh_glue *g = u;
	struct rte_mempool *mp = port_pool(g->a, port);
	struct rte_mbuf *m = mp != NULL ? rte_pktmbuf_alloc(mp) : NULL;
	char *d;

	if (m == NULL)
		return false;
	d = rte_pktmbuf_append(m, len);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return false;
	}
	memcpy(d, f, len);
	m->hash.usr = LF_CTRL_TX;
	m->hash.fdir.hi = port;
	if (!glue_out(g, m)) {
		rte_pktmbuf_free(m);
		return false;
	}
	return true;
}

static bool
op_release(void *u, void *pkt)
{
	struct neigh_glue *g = u;
	struct rte_mbuf *m = pkt;

	/* fdir.hi still names the port it came in on. */
	m->hash.usr = LF_CTRL_RERUN;
	return glue_out(g, m);
}

static void
op_drop(void *u, void *pkt)
{
	(void)u;
	rte_pktmbuf_free(pkt);
}

/*
 * Write next hop nh of the tables in force (neigh.h's protocol): a port
 * taken away is a release store of LF_NH_INVALID; MACs are written only
 * while no worker can be using the entry (out invalid since a grace
 * period), then the port is stored with release. Caller: ctl_lock (or, for
 * a fresh dynamic id nobody routes to yet, neigh_lock alone).
 */
static bool
op_nh_set(void *u, uint32_t nh, uint16_t port, const struct rte_ether_addr *dst,
	  const struct rte_ether_addr *src)
{
	struct neigh_glue *g = u;
	struct lf_tables *t = __atomic_load_n(&g->a->tables, __ATOMIC_ACQUIRE);
	struct lf_nh *e;
	uint16_t out;

	if (!g->tables_ok) {
		g->dirty = true; /* The thread writes it, under ctl_lock. */
		return true;
	}
	if (t == NULL || nh >= t->nh_count)
		return false;
	e = &t->nh_table[nh];
	out = __atomic_load_n(&e->out, __ATOMIC_RELAXED);
	if (dst != NULL && out == port && rte_is_same_ether_addr(&e->dst, dst) &&
	    rte_is_same_ether_addr(&e->src, src))
		return true;
	if (out != LF_NH_INVALID) {
		e->kind = LF_KIND_NEIGH;
		__atomic_store_n(&e->out, LF_NH_INVALID, __ATOMIC_RELEASE);
		/* Flow caches may hold its old MAC: their verdicts go stale. */
		__atomic_store_n(&t->nh_epoch, t->nh_epoch + 1, __ATOMIC_RELEASE);
		g->need_sync = true;
	} else if (e->kind != LF_KIND_NEIGH) {
		e->kind = LF_KIND_NEIGH;
	}
	if (dst == NULL)
		return true;
	if (g->need_sync && g->a->qsv != NULL) {
		rte_rcu_qsbr_synchronize(g->a->qsv, RTE_QSBR_THRID_INVALID);
		g->need_sync = false;
	}
	e->dst = *dst;
	e->src = *src;
	__atomic_store_n(&e->out, port, __ATOMIC_RELEASE);
	return true;
}

/* Read what the kernel said to our requests (errors only: no ACK asked), and log it once. */
static void
kernel_errors(struct neigh_glue *g, char *buf, size_t len)
{
	ssize_t n;

	while ((n = recv(mnl_socket_get_fd(g->nl), buf, len, MSG_DONTWAIT)) > 0) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		int left = (int)n;

		for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

			if (h->nlmsg_type != NLMSG_ERROR || e->error == 0)
				continue;
			g->nl_errors++;
			if (g->nl_errors == 1)
				LF_LOG(WARNING, main,
				       "neigh: the kernel refused to resolve a neighbour: %s (logged once)",
				       strerror(-e->error));
		}
	}
}

/* exception = kernel: RTM_NEWNEIGH with NTF_USE makes the kernel resolve ip on its interface. */
static void
op_kernel_resolve(void *u, uint16_t port, uint8_t af, const uint8_t *ip)
{
	struct neigh_glue *g = u;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ndmsg *nd;

	if (g->nl == NULL || port >= LF_MAX_PORTS || g->ifindex[port] == 0)
		return;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWNEIGH;
	/* As `ip neigh replace IP dev IF nud none use`: create if missing, then resolve. */
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE;
	nd = mnl_nlmsg_put_extra_header(nlh, sizeof(*nd));
	nd->ndm_family = af == 4 ? AF_INET : AF_INET6;
	nd->ndm_ifindex = (int)g->ifindex[port];
	nd->ndm_state = NUD_NONE;
	nd->ndm_flags = NTF_USE;
	mnl_attr_put(nlh, NDA_DST, alen(af), ip);
	if (mnl_socket_sendto(g->nl, nlh, nlh->nlmsg_len) < 0) {
		LF_LOG(WARNING, main, "neigh: asking the kernel to resolve on port %u: %s", port,
		       strerror(errno));
		return;
	}
	kernel_errors(g, buf, sizeof(buf));
}

static const struct neigh_ops neigh_glue_ops = {
	.send = op_send,
	.release = op_release,
	.drop = op_drop,
	.nh_set = op_nh_set,
	.kernel_resolve = op_kernel_resolve,
};

/* Bind the configuration's [nexthop] via ... without mac (again, after a reload). */
static void
bind_config(struct neigh_glue *g)
{
	const struct lf_config *cfg = &g->a->cfg;
	uint32_t i, n = 0;
	uint32_t *ids;

	for (i = 0; i < g->n_cfg; i++)
		neigh_core_unbind(g->core, g->cfg_nh[i]);
	ids = realloc(g->cfg_nh, (cfg->n_nexthops ? cfg->n_nexthops : 1) * sizeof(*ids));
	if (ids == NULL) {
		g->n_cfg = 0;
		return;
	}
	g->cfg_nh = ids;
	for (i = 0; i < cfg->n_nexthops; i++) {
		const struct lf_nexthop_conf *nc = &cfg->nexthops[i];
		const struct rte_ether_addr *src =
			nc->has_src_mac ? &nc->src_mac : &g->a->ports[nc->port].mac;

		if (!nc->has_via || nc->has_mac)
			continue;
		if (neigh_core_bind(g->core, nc->id, nc->port, nc->via.af, nc->via.a, src,
				    mono_ms()) != 0)
			LF_LOG(WARNING, main,
			       "neigh: [nexthop %u] via: neighbour table full ([neighbour] max_entries)",
			       nc->id);
		ids[n++] = nc->id;
	}
	g->n_cfg = n;
}

/* The released ids neigh_nh_put could not write: no port any more, unless taken again since. */
static void
unset_flush(struct neigh_glue *g)
{
	uint32_t i;

	if (!g->unset_pending)
		return;
	g->unset_pending = false;
	for (i = 0; i < g->dyn_count; i++) {
		if (!g->dyn_unset[i])
			continue;
		g->dyn_unset[i] = 0;
		if (g->dyn_refs[i] == 0)
			op_nh_set(g, g->dyn_base + i, 0, NULL, &mac_zero);
	}
}

/* The tables in force changed (a reload): bind its next hops and write them. */
static void
tables_follow(struct neigh_glue *g)
{
	const struct lf_tables *t = g->a->tables;

	if (t == NULL || (t->gen == g->applied_gen && !g->dirty))
		return;
	if (t->gen != g->applied_gen)
		bind_config(g);
	g->applied_gen = t->gen;
	g->dirty = false;
	neigh_core_republish(g->core);
	unset_flush(g);
}

static void
ring_input(struct neigh_glue *g, struct rte_mbuf **m, unsigned int n, uint64_t now)
{
	static uint8_t buf[FRAME_MAX];
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t tag = m[i]->hash.usr & LF_CTRL_TAG_MASK;
		uint16_t port = (uint16_t)m[i]->hash.fdir.hi;
		const uint8_t *f;

		if (tag == LF_CTRL_HELD) {
			neigh_core_held(g->core, m[i]->hash.usr & ~LF_CTRL_TAG_MASK, m[i], now);
			continue;
		}
		f = m[i]->pkt_len <= FRAME_MAX ? rte_pktmbuf_read(m[i], 0, m[i]->pkt_len, buf)
					       : NULL;
		if (f == NULL || (tag != LF_CTRL_ARP && tag != LF_CTRL_ND) ||
		    port >= g->a->cfg.n_ports)
			neigh_core_input(g->core, UINT16_MAX, NULL, 0, now); /* counted malformed */
		else
			neigh_core_input(g->core, port, f, m[i]->pkt_len, now);
		rte_pktmbuf_free(m[i]);
	}
}

static void *
neigh_main(void *arg)
{
	struct neigh_glue *g = arg;
	struct lf_app *a = g->a;
	struct rte_mbuf *m[RX_BURST];
	uint64_t last_timer = 0;
	unsigned int idle_us = POLL_US;

	while (!g->stop) {
		uint64_t now = mono_ms();
		bool timer = now - last_timer >= TIMER_MS;
		bool work = timer || g->dirty ||
			(a->tables != NULL && a->tables->gen != g->applied_gen);
		unsigned int w, n;

		for (w = 0; w < a->n_workers && !work; w++)
			work = a->to_ctrl[w] != NULL && !rte_ring_empty(a->to_ctrl[w]);
		if (!work) {
			usleep(idle_us);
			idle_us = RTE_MIN(idle_us * 2, POLL_IDLE_MAX_US);
			continue;
		}
		idle_us = POLL_US;
		pthread_mutex_lock(&a->ctl_lock);
		pthread_mutex_lock(&neigh_lock);
		g->on_thread = true;
		g->tables_ok = true;
		stash_flush(g);
		tables_follow(g);
		for (w = 0; w < a->n_workers; w++) {
			if (a->to_ctrl[w] == NULL)
				continue;
			while ((n = rte_ring_sc_dequeue_burst(a->to_ctrl[w], (void **)m, RX_BURST,
							      NULL)) != 0)
				ring_input(g, m, n, now);
		}
		if (timer) {
			neigh_core_timer(g->core, now);
			last_timer = now;
		}
		g->on_thread = false;
		g->tables_ok = false;
		pthread_mutex_unlock(&neigh_lock);
		pthread_mutex_unlock(&a->ctl_lock);
		if (!timer)
			usleep(POLL_US);
	}
	return NULL;
}

struct tel_walk {
	struct rte_tel_data *arr;
};

static void
tel_entry(void *arg, const struct neigh_view *v)
{
	struct tel_walk *tw = arg;
	char ip[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE], s[160];

	inet_ntop(v->af == 4 ? AF_INET : AF_INET6, v->ip, ip, sizeof(ip));
	if (v->has_mac)
		rte_ether_format_addr(mac, sizeof(mac), &v->mac);
	else
		snprintf(mac, sizeof(mac), "-");
	snprintf(s, sizeof(s), "port=%u ip=%s mac=%s state=%s age_ms=%" PRIu64 " held=%u refs=%u",
		 v->port, ip, mac, neigh_state_names[v->state], v->age_ms, v->held, v->refs);
	rte_tel_data_add_array_string(tw->arr, s);
}

/* Entries listed by /lanefwd/neigh: a telemetry array holds at most 512. */
#define TEL_MAX_ENTRIES 256

static int
tel_neigh(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tel_walk tw;
	uint32_t n;
	unsigned int i;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	pthread_mutex_lock(&neigh_lock);
	if (neigh_g == NULL) {
		pthread_mutex_unlock(&neigh_lock);
		rte_tel_data_add_dict_string(d, "error", "neighbour code not running");
		return 0;
	}
	for (i = 0; i < NEIGH_C_COUNT; i++)
		rte_tel_data_add_dict_u64(d, neigh_counter_names[i],
					  neigh_core_counters(neigh_g->core)[i]);
	tw.arr = rte_tel_data_alloc();
	if (tw.arr == NULL) {
		pthread_mutex_unlock(&neigh_lock);
		return -ENOMEM;
	}
	rte_tel_data_start_array(tw.arr, RTE_TEL_STRING_VAL);
	n = neigh_core_walk(neigh_g->core, mono_ms(), TEL_MAX_ENTRIES, tel_entry, &tw);
	pthread_mutex_unlock(&neigh_lock);
	rte_tel_data_add_dict_u64(d, "n_entries", n);
	rte_tel_data_add_dict_container(d, "entries", tw.arr, 0);
	return 0;
}

static void
glue_free(struct neigh_glue *g)
{
	uint32_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n_stash; i++)
		rte_pktmbuf_free(g->stash[i]);
	neigh_core_free(g->core);
	if (g->nl != NULL)
		mnl_socket_close(g->nl);
	free(g->cfg_nh);
	free(g->dyn_refs);
	free(g->dyn_free);
	free(g->dyn_unset);
	free(g);
}

int
neigh_start(struct lf_app *a, char *err, size_t errlen)
{
	const struct lf_config *cfg = &a->cfg;
	struct neigh_port ports[LF_MAX_DP_PORTS];
	struct neigh_params prm;
	struct neigh_glue *g;
	bool any_kernel = false;
	unsigned int p, i;
	int ret;

	if (a->from_ctrl == NULL)
		return 0; /* No rings: nothing reaches us. */
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		snprintf(err, errlen, "neigh: out of memory");
		return -ENOMEM;
	}
	g->a = a;
	memset(ports, 0, sizeof(ports));
	for (p = 0; p < cfg->n_ports; p++) {
		const struct lf_port_conf *pc = &cfg->ports[p];
		struct neigh_port *np = &ports[p];

		np->mac = a->ports[p].mac;
		np->n_addrs = pc->n_addrs;
		memcpy(np->addr, pc->addr, pc->n_addrs * sizeof(pc->addr[0]));
		np->addr[np->n_addrs].af = 6;
		np->addr[np->n_addrs].plen = 64;
		neigh_link_local(&np->mac, np->addr[np->n_addrs].a);
		if (!port_has(np, 6, np->addr[np->n_addrs].a))
			np->n_addrs++;
		np->mirror = a->exc_port[p] != LF_NH_INVALID ? a->exc_port[p] : UINT16_MAX;
		np->kernel = pc->exception == LF_EXC_KERNEL;
		if (np->kernel) {
			any_kernel = true;
			g->ifindex[p] = if_nametoindex(pc->exception_if);
			if (g->ifindex[p] == 0)
				LF_LOG(WARNING, main,
				       "neigh: [port %s] exception_if %s: no such interface; its neighbours cannot be resolved",
				       pc->name, pc->exception_if);
		}
	}
	memset(&prm, 0, sizeof(prm));
	prm.max_entries = cfg->neigh.max_entries;
	prm.reachable_ms = cfg->neigh.reachable_ms;
	prm.retrans_ms = cfg->neigh.retrans_ms;
	prm.retries = cfg->neigh.retries;
	prm.queue_packets = cfg->neigh.queue_packets;
	prm.nh_limit = LF_MAX_NEXTHOPS;
	if (a->tables != NULL) {
		g->dyn_base = a->tables->dyn_base;
		g->dyn_count = a->tables->dyn_count;
		if (a->tables->nh_count > prm.nh_limit)
			prm.nh_limit = a->tables->nh_count;
		if (g->dyn_base + g->dyn_count > prm.nh_limit)
			prm.nh_limit = g->dyn_base + g->dyn_count;
	}
	g->core = neigh_core_create(&prm, ports, cfg->n_ports, &neigh_glue_ops, g);
	if (g->core == NULL) {
		snprintf(err, errlen, "neigh: cannot allocate %u neighbour entries",
			 prm.max_entries);
		glue_free(g);
		return -ENOMEM;
	}
	if (g->dyn_count > 0) {
		g->dyn_refs = calloc(g->dyn_count, sizeof(*g->dyn_refs));
		g->dyn_free = calloc(g->dyn_count, sizeof(*g->dyn_free));
		g->dyn_unset = calloc(g->dyn_count, sizeof(*g->dyn_unset));
		if (g->dyn_refs == NULL || g->dyn_free == NULL || g->dyn_unset == NULL) {
			snprintf(err, errlen, "neigh: out of memory");
			glue_free(g);
			return -ENOMEM;
		}
		for (i = 0; i < g->dyn_count; i++)
			g->dyn_free[i] = g->dyn_base + i;
		g->dyn_free_n = g->dyn_count;
	}
	if (any_kernel) {
		g->nl = mnl_socket_open(NETLINK_ROUTE);
		if (g->nl == NULL || mnl_socket_bind(g->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
			snprintf(err, errlen, "neigh: netlink socket: %s", strerror(errno));
			glue_free(g);
			return -errno;
		}
	}

	pthread_mutex_lock(&a->ctl_lock);
	pthread_mutex_lock(&neigh_lock);
	neigh_g = g;
	g->applied_gen = a->tables != NULL ? a->tables->gen : 0;
	g->tables_ok = true;
	/* Stashed, the thread sends them: announcements first, then requests. */
	if (cfg->neigh.gratuitous)
		neigh_core_announce(g->core);
	bind_config(g);
	g->tables_ok = false;
	g->dirty = true;
	pthread_mutex_unlock(&neigh_lock);
	pthread_mutex_unlock(&a->ctl_lock);

	if (!neigh_tel_registered) {
		/* DPDK 22.11 cannot unregister: the callback answers an error while stopped. */
		ret = rte_telemetry_register_cmd("/lanefwd/neigh", tel_neigh,
						 "Neighbours (ARP, ND): counters and entries (port, address, MAC, state, age)");
		if (ret == 0)
			neigh_tel_registered = true;
		else
			LF_LOG(WARNING, main, "neigh: telemetry command: %s", strerror(-ret));
	}
	ret = rte_ctrl_thread_create(&g->thread, "lf-neigh", NULL, neigh_main, g);
	if (ret != 0) {
		snprintf(err, errlen, "neigh: cannot start its thread: %s", strerror(ret));
		neigh_stop(a);
		return -ret;
	}
	g->running = true;
	LF_LOG(INFO, main, "neigh: %u next hops to resolve, %u entries at most", g->n_cfg,
	       prm.max_entries);
	return 0;
}

void
neigh_stop(struct lf_app *a)
{
	struct neigh_glue *g;

	(void)a;
	pthread_mutex_lock(&neigh_lock);
	g = neigh_g;
	pthread_mutex_unlock(&neigh_lock);
	if (g == NULL)
		return;
	if (g->running) {
		g->stop = true;
		pthread_join(g->thread, NULL);
	}
	pthread_mutex_lock(&neigh_lock);
	neigh_g = NULL;
	pthread_mutex_unlock(&neigh_lock);
	glue_free(g); /* Held packets freed. */
}

void
neigh_tables_fill(struct lf_app *a, struct lf_tables *t)
{
	struct neigh_glue *g;
	uint32_t i;

	pthread_mutex_lock(&neigh_lock);
	g = neigh_g;
	if (g == NULL) {
		pthread_mutex_unlock(&neigh_lock);
		return;
	}
	/*
	 * The dynamic next hops are ours whatever the files say: write them
	 * into t before it is published. The [nexthop] via ones stay
	 * unresolved (kind NEIGH) in t: the thread binds the new
	 * configuration's once it is in force and writes them, and their
	 * packets wait for it.
	 */
	for (i = 0; i < g->dyn_count; i++) {
		uint32_t nh = g->dyn_base + i;
		uint16_t port;
		uint8_t af, ip[16];
		struct neigh_view v;

		if (g->dyn_refs[i] == 0 || nh >= t->nh_count ||
		    !neigh_core_bound(g->core, nh, &port, &af, ip))
			continue;
		t->nh_table[nh].kind = LF_KIND_NEIGH;
		t->nh_table[nh].out = LF_NH_INVALID;
		if (neigh_core_lookup(g->core, port, af, ip, 0, &v) && v.has_mac &&
		    v.state != LF_NEIGH_INCOMPLETE && v.state != LF_NEIGH_FAILED) {
			t->nh_table[nh].dst = v.mac;
			t->nh_table[nh].src = a->ports[port].mac;
			t->nh_table[nh].out = port;
		}
	}
	g->dirty = true;
	pthread_mutex_unlock(&neigh_lock);
}

/*
 * Called from other threads (netlink): the tables are written here only
 * when ctl_lock is free (the caller may hold it), else by the thread soon
 * after; what the core sends waits in the stash for the thread.
 */
static struct neigh_glue *
glue_enter(struct lf_app *a, bool *locked)
{
	struct neigh_glue *g;

	pthread_mutex_lock(&neigh_lock);
	g = neigh_g;
	*locked = false;
	if (g == NULL) {
		pthread_mutex_unlock(&neigh_lock);
		return NULL;
	}
	*locked = pthread_mutex_trylock(&a->ctl_lock) == 0;
	g->tables_ok = *locked;
	return g;
}

static void
glue_leave(struct lf_app *a, struct neigh_glue *g, bool locked)
{
	g->tables_ok = false;
	if (g->n_stash != 0)
		g->dirty = true;
	if (locked)
		pthread_mutex_unlock(&a->ctl_lock);
	pthread_mutex_unlock(&neigh_lock);
}

int
neigh_learn(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *ip,
	    const struct rte_ether_addr *mac, bool permanent)
{
	bool locked;
	struct neigh_glue *g = glue_enter(a, &locked);
	int ret;

	if (g == NULL)
		return -ENODEV;
	ret = neigh_core_learn(g->core, port, af, ip, mac, permanent, mono_ms());
	glue_leave(a, g, locked);
	return ret;
}

void
neigh_forget(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *ip)
{
	bool locked;
	struct neigh_glue *g = glue_enter(a, &locked);

	if (g == NULL)
		return;
	neigh_core_forget(g->core, port, af, ip);
	glue_leave(a, g, locked);
}

int
neigh_nh_get(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *gw, uint32_t *nh)
{
	bool locked;
	struct neigh_glue *g = glue_enter(a, &locked);
	uint32_t i, id;
	int ret = 0;

	if (g == NULL)
		return -ENODEV;
	if (port >= a->cfg.n_ports || (af != 4 && af != 6)) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < g->dyn_count; i++) {
		uint16_t bp;
		uint8_t baf, bip[16];

		if (g->dyn_refs[i] != 0 &&
		    neigh_core_bound(g->core, g->dyn_base + i, &bp, &baf, bip) && bp == port &&
		    baf == af && memcmp(bip, gw, alen(af)) == 0) {
			g->dyn_refs[i]++;
			*nh = g->dyn_base + i;
			goto out;
		}
	}
	if (g->dyn_free_n == 0) {
		ret = -ENOSPC;
		goto out;
	}
	id = g->dyn_free[g->dyn_free_head];
	ret = neigh_core_bind(g->core, id, port, af, gw, &a->ports[port].mac, mono_ms());
	if (ret != 0)
		goto out;
	g->dyn_free_head = (g->dyn_free_head + 1) % g->dyn_count;
	g->dyn_free_n--;
	g->dyn_refs[id - g->dyn_base] = 1;
	*nh = id;
out:
	glue_leave(a, g, locked);
	return ret;
}

void
neigh_nh_put(struct lf_app *a, uint32_t nh)
{
	bool locked;
	struct neigh_glue *g = glue_enter(a, &locked);
	uint32_t i;

	if (g == NULL)
		return;
	if (nh >= g->dyn_base && nh - g->dyn_base < g->dyn_count &&
	    g->dyn_refs[nh - g->dyn_base] != 0) {
		i = nh - g->dyn_base;
		if (--g->dyn_refs[i] == 0) {
			/* No port any more: a packet still routed to it is
			 * dropped. Without ctl_lock op_nh_set only marks the
			 * tables dirty, and the thread's republish writes bound
			 * ids only: list it for the thread (unset_flush). */
			op_nh_set(g, nh, 0, NULL, &mac_zero);
			if (!locked) {
				g->dyn_unset[i] = 1;
				g->unset_pending = true;
			}
			neigh_core_unbind(g->core, nh);
			/* Reused last (FIFO): routes that still named it are long gone by then. */
			g->dyn_free[(g->dyn_free_head + g->dyn_free_n) % g->dyn_count] = nh;
			g->dyn_free_n++;
		}
	}
	glue_leave(a, g, locked);
}
