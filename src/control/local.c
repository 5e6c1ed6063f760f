/* SPDX-License-Identifier: BSD-3-Clause */
/* The router's own side handed to the workers (local.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "lanefwd.h"
#include "local.h"

/* Frames in flight between a worker and the control thread: a punt_pps
 * second's worth is more than the control thread lets pile up. */
#define LOCAL_RING_SIZE 4096

static void
port_l3_fill(const struct lf_app *a, unsigned int p, struct lf_port_l3 *l3)
{
	const struct lf_port_conf *pc = &a->cfg.ports[p];
	unsigned int k;

	l3->mac = a->ports[p].mac;
	l3->mtu = pc->mtu;
	l3->promisc = pc->promiscuous;
	l3->exc_out = a->exc_port[p];
	for (k = 0; k < pc->n_addrs; k++) {
		const struct lf_ip_addr *ad = &pc->addr[k];

		if (ad->af == 4 && !l3->has_ip4) {
			memcpy(l3->ip4, ad->a, 4);
			l3->has_ip4 = true;
		} else if (ad->af == 6 && !l3->has_ip6 &&
			   !(ad->a[0] == 0xfe && (ad->a[1] & 0xc0) == 0x80)) {
			memcpy(l3->ip6, ad->a, 16);
			l3->has_ip6 = true;
		}
	}
	/* No link-local fallback: an error from fe80:: would not reach a
	 * source beyond the link, and a port without addresses is not the
	 * router's to speak from (its errors are suppressed, counted). */
	if (!l3->has_ip6)
		for (k = 0; k < pc->n_addrs; k++)
			if (pc->addr[k].af == 6) {
				memcpy(l3->ip6, pc->addr[k].a, 16);
				l3->has_ip6 = true;
				break;
			}
}

int
local_create(struct lf_app *a, char *err, size_t errlen)
{
	const struct lf_config *cfg = &a->cfg;
	const uint64_t hz = rte_get_tsc_hz();
	struct lf_local *l;
	unsigned int p, i;
	char name[RTE_RING_NAMESIZE];

	l = rte_zmalloc_socket("lf_local", sizeof(*l), RTE_CACHE_LINE_SIZE,
			       a->n_workers ? a->workers[0]->socket : SOCKET_ID_ANY);
	if (l == NULL) {
		snprintf(err, errlen, "cannot allocate the router's local state");
		return -ENOMEM;
	}
	a->local = l;
	l->echo = cfg->icmp.echo;
	l->time_exceeded = cfg->icmp.time_exceeded;
	l->unreachable = cfg->icmp.unreachable;
	l->frag_needed = cfg->icmp.frag_needed;
	l->n_ports = (uint16_t)(cfg->n_ports + a->n_exc);
	for (p = 0; p < cfg->n_ports; p++) {
		port_l3_fill(a, p, &l->port[p]);
		if (cfg->ports[p].mtu != cfg->ports[0].mtu)
			l->mtu_check = true;
	}
	/* A mirror is never routed to: it has no address of its own here. */
	for (i = 0; i < a->n_exc; i++) {
		struct lf_port_l3 *m = &l->port[cfg->n_ports + i];

		m->mac = a->ports[cfg->n_ports + i].mac;
		m->mtu = cfg->ports[a->exc_of[i]].mtu;
		m->exc_out = LF_NH_INVALID;
	}

	snprintf(name, sizeof(name), "lf_from_ctrl");
	a->from_ctrl = rte_ring_create(name, LOCAL_RING_SIZE, a->workers[0]->socket,
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (a->from_ctrl == NULL) {
		snprintf(err, errlen, "cannot create ring %s: %s", name, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (i = 0; i < a->n_workers; i++) {
		struct worker *w = a->workers[i];

		snprintf(name, sizeof(name), "lf_to_ctrl_%u", i);
		a->to_ctrl[i] = rte_ring_create(name, LOCAL_RING_SIZE, w->socket,
						RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (a->to_ctrl[i] == NULL) {
			snprintf(err, errlen, "cannot create ring %s: %s", name,
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
		w->b.local = l;
		w->b.to_ctrl = a->to_ctrl[i];
		lf_tbucket_init(&w->b.icmp_tb, hz, cfg->icmp.rate_pps, cfg->icmp.burst);
		lf_tbucket_init(&w->b.exc_tb, hz, cfg->exception.punt_pps,
				cfg->exception.punt_burst);
		lf_tbucket_init(&w->b.neigh_tb, hz, cfg->neigh.punt_pps, cfg->neigh.punt_burst);
		/* Every worker may send to a mirror (its TX queue i there). */
		w->tx.n_ports = l->n_ports;
		for (p = cfg->n_ports; p < l->n_ports; p++) {
			w->tx.buf[p].port_id = a->ports[p].port_id;
			w->tx.buf[p].queue_id = i;
		}
	}
	a->workers[0]->from_ctrl = a->from_ctrl;
	/* Worker 0 polls each mirror's one RX queue: what the kernel sends. */
	for (i = 0; i < a->n_exc; i++) {
		struct worker *w = a->workers[0];
		struct lf_rxq *rq;

		if (w->n_rxq == LF_MAX_RXQ_PER_WORKER) {
			snprintf(err, errlen,
				 "[worker %u] polls %u queues already: no room for the TAP mirror of [port %s]",
				 w->lcore, w->n_rxq, cfg->ports[a->exc_of[i]].name);
			return -ENOSPC;
		}
		rq = &w->rxq[w->n_rxq++];
		rq->port_id = a->ports[cfg->n_ports + i].port_id;
		rq->queue_id = 0;
		rq->port_idx = (uint16_t)(cfg->n_ports + i);
		rq->prefetch_distance = 0;
		rq->exc_of = a->exc_of[i];
	}
	return 0;
}

/* Free the frames left on a ring nobody will read any more. */
static void
ring_drain_free(struct rte_ring *r)
{
	void *m[64];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, m, RTE_DIM(m), NULL)) != 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)m, n);
}

void
local_free(struct lf_app *a)
{
	unsigned int i;

	ring_drain_free(a->from_ctrl);
	for (i = 0; i < LF_MAX_WORKERS; i++) {
		ring_drain_free(a->to_ctrl[i]);
		rte_ring_free(a->to_ctrl[i]);
		a->to_ctrl[i] = NULL;
	}
	rte_ring_free(a->from_ctrl);
	a->from_ctrl = NULL;
	rte_free(a->local);
	a->local = NULL;
}
