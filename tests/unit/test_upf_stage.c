/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UPF packet kinds through the real pipeline (pipeline_run): tables
 * built by tables_build() from a configuration with [upf] (so the N3
 * address and the UE pool are routes to the UPF kinds), sessions put in a
 * real store (upf_store_put), frames crafted byte by byte here and read back
 * from net_ring ports. Expected bytes follow TS 29.281 and TS 38.415 as
 * written out in this file, not lanefwd's own encoder.
 *
 * Ports: p0 toward the gNBs (192.168.3.0/24 via next hop 0), p1 toward
 * the data network (default route, next hop 1). N3 address 192.168.3.1,
 * UE pool 10.45.0.0/16 of network instance "internet".
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "config.h"
#include "lf_log.h"
#include "pipeline.h"
#include "tables.h"
#include "upf.h"
#include "worker.h"

#define N_PORTS 2
static struct rte_mempool *pool;
static struct rte_ring *rings[N_PORTS];
static uint16_t port_ids[N_PORTS];
static struct lf_config *cfg;
static struct lf_tables *tables;
static struct upf_store *store;
static struct worker *w;

static const uint8_t gnb_mac[6] = { 0x02, 0, 0, 0, 0x0b, 0x01 };
static const uint8_t dn_mac[6] = { 0x02, 0, 0, 0, 0x0d, 0x01 };
static const uint8_t port_mac[N_PORTS][6] = { { 0x02, 0, 0, 0, 0xaa, 0 },
					      { 0x02, 0, 0, 0, 0xaa, 1 } };

/* RTE_IPV4 shifts an int into the sign bit (UB for 192 << 24): our own. */
#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define N3 IP4(192, 168, 3, 1)
#define GNB IP4(192, 168, 3, 2)
#define UE(i) IP4(10, 45, 0, (i))
#define REMOTE IP4(8, 8, 8, 8)

static int
make_port(unsigned int i)
{
	struct rte_eth_conf conf;
	char name[32];
	int id;

	snprintf(name, sizeof(name), "lfut_upf%u", i);
	rings[i] = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (rings[i] == NULL)
		return -1;
	id = rte_eth_from_ring(rings[i]);
	if (id < 0)
		return -1;
	port_ids[i] = id;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(id, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(id, 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(id, 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(id) != 0)
		return -1;
	return 0;
}

/* The IPv6 UE pool, fd00:45::/32. */
static const uint8_t UE6_POOL[16] = { 0xfd, 0x00, 0x00, 0x45 };

static int
route(struct lf_route_table *t, uint32_t a, uint8_t depth, uint32_t nh)
{
	t->r = realloc(t->r, (t->n + 1) * sizeof(*t->r));
	if (t->r == NULL)
		return -1;
	memset(&t->r[t->n], 0, sizeof(t->r[0]));
	t->r[t->n].addr4 = a;
	t->r[t->n].depth = depth;
	t->r[t->n].nh = nh;
	t->r[t->n].line = (uint32_t)t->n + 1;
	t->n++;
	t->cap = t->n;
	return 0;
}

static int
group_setup(void **state)
{
	struct lf_table_src src;
	struct rte_ether_addr macs[N_PORTS];
	struct upf_store_params p;
	char lcore[16], err[512];
	char *argv[] = {
		"test_upf_stage",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_upf",
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	cpu_set_t cpus;
	unsigned int i;
	int cpu = 0;

	(void)state;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	lf_log_init();
	pool = rte_pktmbuf_pool_create("lfut_upf", 4096, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		return -1;
	for (i = 0; i < N_PORTS; i++)
		if (make_port(i) != 0)
			return -1;

	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL)
		return -1;
	cfg->n_ports = N_PORTS;
	cfg->routes.ipv4_max_routes = 1024;
	cfg->routes.ipv4_tbl8 = 64;
	cfg->routes.ipv6_max_routes = 1024;
	cfg->routes.ipv6_tbl8 = 64;
	cfg->nexthops = calloc(2, sizeof(*cfg->nexthops));
	if (cfg->nexthops == NULL)
		return -1;
	cfg->n_nexthops = 2;
	cfg->nexthops[0].id = 0;
	cfg->nexthops[0].port = 0;
	memcpy(&cfg->nexthops[0].dst_mac, gnb_mac, 6);
	cfg->nexthops[1].id = 1;
	cfg->nexthops[1].port = 1;
	memcpy(&cfg->nexthops[1].dst_mac, dn_mac, 6);
	cfg->upf.enabled = true;
	cfg->upf.has_n3_ipv4 = true;
	memcpy(cfg->upf.n3_ipv4, (const uint8_t[]){ 192, 168, 3, 1 }, 4);
	cfg->upf.n_ni = 1;
	strcpy(cfg->upf.ni[0].name, "internet");
	strcpy(cfg->upf.ni[0].section, "network_instance internet");
	cfg->upf.ni[0].n_pools = 2;
	cfg->upf.ni[0].pool[0].af = 4;
	cfg->upf.ni[0].pool[0].plen = 16;
	memcpy(cfg->upf.ni[0].pool[0].a, (const uint8_t[]){ 10, 45, 0, 0 }, 4);
	cfg->upf.ni[0].pool[1].af = 6;
	cfg->upf.ni[0].pool[1].plen = 32;
	memcpy(cfg->upf.ni[0].pool[1].a, UE6_POOL, 4);

	memset(&src, 0, sizeof(src));
	src.r4.af = 4;
	src.r6.af = 6;
	if (route(&src.r4, IP4(192, 168, 3, 0), 24, 0) != 0 || route(&src.r4, 0, 0, 1) != 0)
		return -1;
	/* ::/0 to the data network (route()'s address 0 is all of addr6). */
	if (route(&src.r6, 0, 0, 1) != 0)
		return -1;
	if (tables_add_upf_routes(cfg, &src, err, sizeof(err)) != 0) {
		fprintf(stderr, "tables_add_upf_routes: %s\n", err);
		return -1;
	}
	for (i = 0; i < N_PORTS; i++)
		memcpy(&macs[i], port_mac[i], 6);
	tables = tables_build(cfg, &src, macs, SOCKET_ID_ANY, 1, err, sizeof(err));
	if (tables == NULL) {
		fprintf(stderr, "tables_build: %s\n", err);
		return -1;
	}

	memset(&p, 0, sizeof(p));
	p.max_sessions = 64;
	p.max_urrs = 128;
	p.max_qers = 128;
	p.n_workers = 1;
	p.socket = SOCKET_ID_ANY;
	p.n3_ipv4 = rte_cpu_to_be_32(N3);
	p.ring_size = 64;
	store = upf_store_create(&p, err, sizeof(err));
	if (store == NULL) {
		fprintf(stderr, "upf_store_create: %s\n", err);
		return -1;
	}

	w = rte_zmalloc("lfut_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (w == NULL)
		return -1;
	w->burst = 32;
	worker_adopt(w, tables);
	w->tx.n_ports = N_PORTS;
	for (i = 0; i < N_PORTS; i++) {
		w->tx.buf[i].port_id = port_ids[i];
		w->tx.buf[i].queue_id = 0;
	}
	worker_ready(w);
	w->b.upf = store;
	w->b.upf_wk = &store->wk[0];
	w->b.upf_err_ind_cycles = 1; /* Every unknown TEID gets one here. */
	return 0;
}

static int
group_teardown(void **state)
{
	unsigned int i;

	(void)state;
	rte_free(w);
	upf_store_free(store);
	tables_free(tables);
	config_free(cfg);
	free(cfg);
	for (i = 0; i < N_PORTS; i++) {
		rte_eth_dev_stop(port_ids[i]);
		rte_eth_dev_close(port_ids[i]);
		rte_ring_free(rings[i]);
	}
	rte_mempool_free(pool);
	return rte_eal_cleanup();
}

/* ---- frames ---- */

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A 32-bit big-endian field at any alignment. */
static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* The IPv4 header checksum of p (RFC 1071): rte_raw_cksum sums in host order, stored as is. */
static void
ip_cksum(uint8_t *p)
{
	uint16_t c;

	p[10] = p[11] = 0;
	c = (uint16_t)~rte_raw_cksum(p, 20);
	memcpy(p + 10, &c, 2);
}

/* IPv4 header (20 bytes) with its checksum. */
static void
ipv4(uint8_t *p, uint16_t tot, uint8_t ttl, uint8_t proto, uint32_t src, uint32_t dst)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, tot);
	p[8] = ttl;
	p[9] = proto;
	put32(p + 12, src);
	put32(p + 16, dst);
	ip_cksum(p);
}

/* A 64-byte-ish user packet: IPv4/UDP sport->dport with len bytes of payload. */
static unsigned int
user_pkt(uint8_t *p, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport, unsigned int len)
{
	unsigned int i;

	ipv4(p, (uint16_t)(28 + len), 64, IPPROTO_UDP, src, dst);
	put16(p + 20, sport);
	put16(p + 22, dport);
	put16(p + 24, (uint16_t)(8 + len));
	put16(p + 26, 0);
	for (i = 0; i < len; i++)
		p[28 + i] = (uint8_t)(i * 7);
	return 28 + len;
}

static unsigned int
eth(uint8_t *p, const uint8_t *dst, const uint8_t *src)
{
	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	return 14;
}

/*
 * A G-PDU from the gNB to N3: GTP-U with flags, then gl bytes of optional
 * fields and extension headers as given, then inner.
 */
static struct rte_mbuf *
gpdu_raw(uint32_t teid, uint8_t flags, const uint8_t *opt, unsigned int gl, const uint8_t *inner,
	 unsigned int ilen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;
	unsigned int off;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 20 + 8 + 8 + gl + ilen));
	assert_non_null(p);
	off = eth(p, port_mac[0], gnb_mac);
	ipv4(p + off, (uint16_t)(20 + 8 + 8 + gl + ilen), 64, IPPROTO_UDP, GNB, N3);
	off += 20;
	put16(p + off, 2152);
	put16(p + off + 2, 2152);
	put16(p + off + 4, (uint16_t)(8 + 8 + gl + ilen));
	put16(p + off + 6, 0);
	off += 8;
	p[off] = flags;
	p[off + 1] = 255;
	put16(p + off + 2, (uint16_t)(gl + ilen));
	put32(p + off + 4, teid);
	off += 8;
	if (gl != 0)
		memcpy(p + off, opt, gl);
	memcpy(p + off + gl, inner, ilen);
	m->port = port_ids[0];
	return m;
}

/*
 * A G-PDU with E set and an uplink PDU Session Container carrying qfi
 * (qfi < 0: no extension at all), around inner.
 */
static struct rte_mbuf *
gpdu(uint32_t teid, int qfi, const uint8_t *inner, unsigned int ilen)
{
	/* Sequence and N-PDU number 0, then the container: UL PDU SESSION INFORMATION. */
	const uint8_t psc[8] = { 0, 0, 0, 0x85, 1, 0x10, (uint8_t)qfi, 0 };

	return qfi >= 0 ? gpdu_raw(teid, 0x34, psc, sizeof(psc), inner, ilen)
			: gpdu_raw(teid, 0x30, NULL, 0, inner, ilen);
}

/* A downlink packet from the data network, with its Ethernet header. */
static struct rte_mbuf *
dl_frame(const uint8_t *inner, unsigned int ilen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + ilen));
	assert_non_null(p);
	eth(p, port_mac[1], dn_mac);
	if ((inner[0] >> 4) == 6) {
		p[12] = 0x86;
		p[13] = 0xdd;
	}
	memcpy(p + 14, inner, ilen);
	return m;
}

/* Run frames received on port rx through the pipeline and flush TX. */
static void
run(unsigned int rx, struct rte_mbuf **pkts, uint16_t n)
{
	w->b.rx_port = (uint16_t)rx;
	w->b.prefetch_distance = 0;
	w->b.rx_tsc = rte_rdtsc();
	pipeline_run(&w->b, &w->tx, pkts, n);
	worker_flush_tx(w);
}

/* What port i sent, one frame (NULL if none). */
static struct rte_mbuf *
sent(unsigned int i)
{
	void *m = NULL;

	if (rte_ring_dequeue(rings[i], &m) != 0)
		return NULL;
	return m;
}

static uint64_t
upf_drops(enum upf_drop r)
{
	return store->wk[0].stats.drops[r];
}

/*
 * The 58 bytes a downlink G-PDU to the gNB starts with: Ethernet from p0,
 * IPv4 N3 -> gNB (TTL 64, UDP), UDP 2152 -> 2152 without a checksum,
 * GTP-U (version 1, PT, E) with teid, and a DL PDU Session Container
 * (PDU type 0) with qfi, around an inner packet of ilen bytes.
 */
static void
dl_gpdu_ref(uint8_t *hdr, unsigned int ilen, uint32_t teid, uint8_t qfi)
{
	eth(hdr, gnb_mac, port_mac[0]);
	ipv4(hdr + 14, (uint16_t)(20 + 8 + 16 + ilen), 64, IPPROTO_UDP, N3, GNB);
	put16(hdr + 34, 2152);
	put16(hdr + 36, 2152);
	put16(hdr + 38, (uint16_t)(8 + 16 + ilen));
	put16(hdr + 40, 0);
	hdr[42] = 0x34; /* Version 1, PT, E */
	hdr[43] = 255;
	put16(hdr + 44, (uint16_t)(8 + ilen));
	put32(hdr + 46, teid);
	memcpy(hdr + 50, (const uint8_t[]){ 0, 0, 0, 0x85, 1, 0x00, qfi, 0 }, 8);
}

/* ---- sessions ---- */

/*
 * Session seid: uplink PDR 1 (TEID teid, outer header removal, FAR 1
 * FORW), downlink PDR 2 (UE ue, FAR 2 FORW with GTP-U/IPv4 to the gNB
 * TEID gnb_teid), QER 1 with QFI 9 on both, URR 1 on both.
 */
static struct upf_pdr_conf pdrs[8];
static struct upf_far_conf fars[4];
static struct upf_qer_conf qers[2];
static struct upf_urr_conf urrs[2];

static void
basic_session(struct upf_sess_conf *c, uint64_t seid, uint32_t teid, uint32_t ue, uint32_t gnb_teid)
{
	memset(c, 0, sizeof(*c));
	memset(pdrs, 0, sizeof(pdrs));
	memset(fars, 0, sizeof(fars));
	memset(qers, 0, sizeof(qers));
	memset(urrs, 0, sizeof(urrs));
	c->up_seid = seid;
	c->cp_seid = seid + 1000;
	c->pdr = pdrs;
	c->far = fars;
	c->qer = qers;
	c->urr = urrs;
	c->n_pdr = 2;
	c->n_far = 2;
	c->n_qer = 1;
	c->n_urr = 1;
	pdrs[0].id = 1;
	pdrs[0].precedence = 100;
	pdrs[0].src_iface = UPF_IF_ACCESS;
	pdrs[0].ni = 0;
	pdrs[0].has_fteid = true;
	pdrs[0].teid = teid;
	pdrs[0].outer_hdr_removal = true;
	pdrs[0].has_far = true;
	pdrs[0].far_id = 1;
	pdrs[0].n_qer = 1;
	pdrs[0].qer_id[0] = 1;
	pdrs[0].n_urr = 1;
	pdrs[0].urr_id[0] = 1;
	pdrs[1].id = 2;
	pdrs[1].precedence = 100;
	pdrs[1].src_iface = UPF_IF_CORE;
	pdrs[1].ni = 0;
	pdrs[1].ue4.af = 4;
	put32(pdrs[1].ue4.a, ue);
	pdrs[1].has_far = true;
	pdrs[1].far_id = 2;
	pdrs[1].n_qer = 1;
	pdrs[1].qer_id[0] = 1;
	pdrs[1].n_urr = 1;
	pdrs[1].urr_id[0] = 1;
	fars[0].id = 1;
	fars[0].apply = UPF_FAR_FORW;
	fars[0].dst_iface = UPF_IF_CORE;
	fars[0].ni = UPF_NI_NONE;
	fars[1].id = 2;
	fars[1].apply = UPF_FAR_FORW;
	fars[1].dst_iface = UPF_IF_ACCESS;
	fars[1].ni = UPF_NI_NONE;
	fars[1].ohc = UPF_OHC_GTPU_UDP_IPV4;
	fars[1].ohc_teid = gnb_teid;
	fars[1].ohc_peer.af = 4;
	put32(fars[1].ohc_peer.a, GNB);
	qers[0].id = 1;
	qers[0].has_qfi = true;
	qers[0].qfi = 9;
	urrs[0].id = 1;
	urrs[0].method = UPF_MM_VOLUM;
}

static void
put_session(const struct upf_sess_conf *c)
{
	char err[256];
	int ret = upf_store_put(store, c, err, sizeof(err));

	if (ret != 0)
		fail_msg("upf_store_put: %d %s", ret, err);
}

/* ---- tests ---- */

/* Uplink: the G-PDU's inner packet leaves on N6, decapsulated, TTL down by one. */
static void
test_uplink_decap(void **state)
{
	struct upf_sess_conf c;
	struct upf_usage u;
	uint8_t inner[128], want[128];
	struct rte_mbuf *m, *out;
	const uint8_t *o;
	unsigned int ilen;

	(void)state;
	basic_session(&c, 1, 0x1001, UE(1), 0x5001);
	put_session(&c);
	ilen = user_pkt(inner, UE(1), REMOTE, 40000, 53, 30);
	m = gpdu(0x1001, 9, inner, ilen);
	run(0, &m, 1);
	assert_null(sent(0));
	out = sent(1);
	assert_non_null(out);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + ilen);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	assert_memory_equal(o, dn_mac, 6);
	assert_memory_equal(o + 6, port_mac[1], 6);
	assert_int_equal(o[12], 0x08);
	assert_int_equal(o[13], 0x00);
	/* The inner packet routed: TTL 63 and a checksum recomputed from scratch. */
	memcpy(want, inner, ilen);
	want[8] = 63;
	ip_cksum(want);
	assert_memory_equal(o + 14, want, ilen);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_usage(store, 1, 1, &u), 0);
	assert_int_equal(u.pkts[0], 1);
	assert_int_equal(u.bytes[0], ilen);
	assert_int_equal(u.pkts[1], 0);
	assert_int_equal(upf_store_del(store, 1), 0);
}

/* Downlink: GTP-U/UDP/IPv4 to the gNB's TEID with a DL PDU Session Container, QFI 9. */
static void
test_downlink_encap(void **state)
{
	struct upf_sess_conf c;
	struct upf_usage u;
	uint8_t inner[128], hdr[64];
	struct rte_mbuf *m, *out;
	const uint8_t *o;
	unsigned int ilen;

	(void)state;
	basic_session(&c, 2, 0x1002, UE(2), 0x5002);
	put_session(&c);
	ilen = user_pkt(inner, REMOTE, UE(2), 53, 40000, 40);
	m = dl_frame(inner, ilen);
	run(1, &m, 1);
	assert_null(sent(1));
	out = sent(0);
	assert_non_null(out);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + 20 + 8 + 16 + ilen);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	dl_gpdu_ref(hdr, ilen, 0x5002, 9);
	assert_memory_equal(o, hdr, 58);
	/* The user's packet untouched (the UPF does not route it as a hop). */
	assert_memory_equal(o + 58, inner, ilen);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_usage(store, 2, 1, &u), 0);
	assert_int_equal(u.pkts[1], 1);
	assert_int_equal(u.bytes[1], ilen);
	assert_int_equal(upf_store_del(store, 2), 0);
}

/* PDR precedence and SDF filters: the first matching PDR in precedence order wins. */
static void
test_pdr_precedence(void **state)
{
	struct upf_sess_conf c;
	uint8_t inner[128];
	struct rte_mbuf *m, *out;
	uint64_t no_pdr;
	unsigned int ilen, port;

	(void)state;
	basic_session(&c, 3, 0x1003, UE(3), 0x5003);
	/* PDR 3, precedence 10: UDP from remote port 1000-1999 -> FAR 3 (TEID 0x6003). */
	pdrs[2] = pdrs[1];
	pdrs[2].id = 3;
	pdrs[2].precedence = 10;
	pdrs[2].far_id = 3;
	pdrs[2].n_sdf = 1;
	pdrs[2].sdf[0].proto = IPPROTO_UDP;
	pdrs[2].sdf[0].rport_lo = 1000;
	pdrs[2].sdf[0].rport_hi = 1999;
	pdrs[2].sdf[0].uport_lo = 0;
	pdrs[2].sdf[0].uport_hi = 65535;
	/* PDR 4, precedence 5 (first): TCP only -> FAR 4 DROP. */
	pdrs[3] = pdrs[2];
	pdrs[3].id = 4;
	pdrs[3].precedence = 5;
	pdrs[3].far_id = 4;
	pdrs[3].sdf[0].proto = IPPROTO_TCP;
	pdrs[3].sdf[0].rport_lo = 0;
	pdrs[3].sdf[0].rport_hi = 65535;
	/* The catch-all PDR 2 now only takes port 53 (others: no PDR). */
	pdrs[1].n_sdf = 1;
	pdrs[1].sdf[0].any_proto = true;
	pdrs[1].sdf[0].rport_lo = 53;
	pdrs[1].sdf[0].rport_hi = 53;
	pdrs[1].sdf[0].uport_hi = 65535;
	c.n_pdr = 4;
	fars[2] = fars[1];
	fars[2].id = 3;
	fars[2].ohc_teid = 0x6003;
	fars[3].id = 4;
	fars[3].apply = UPF_FAR_DROP;
	c.n_far = 4;
	put_session(&c);

	for (port = 50; port < 2100; port += 7) {
		const uint64_t far_drop = upf_drops(UPF_DROP_FAR_DROP);
		uint32_t teid;

		no_pdr = upf_drops(UPF_DROP_NO_PDR);
		ilen = user_pkt(inner, REMOTE, UE(3), (uint16_t)port, 40000, 10);
		m = dl_frame(inner, ilen);
		run(1, &m, 1);
		out = sent(0);
		if (port >= 1000 && port <= 1999) {
			teid = 0x6003;
		} else if (port == 53) {
			teid = 0x5003;
		} else {
			assert_null(out);
			assert_int_equal(upf_drops(UPF_DROP_NO_PDR), no_pdr + 1);
			continue;
		}
		assert_non_null(out);
		assert_int_equal(get32(rte_pktmbuf_mtod(out, const uint8_t *) + 46), teid);
		rte_pktmbuf_free(out);
		assert_int_equal(upf_drops(UPF_DROP_FAR_DROP), far_drop);
	}
	/* TCP hits PDR 4 first: FAR DROP, whatever the port. */
	ilen = user_pkt(inner, REMOTE, UE(3), 1500, 40000, 30); /* A TCP header fits. */
	inner[9] = IPPROTO_TCP;
	ip_cksum(inner);
	no_pdr = upf_drops(UPF_DROP_FAR_DROP);
	m = dl_frame(inner, ilen);
	run(1, &m, 1);
	assert_null(sent(0));
	assert_int_equal(upf_drops(UPF_DROP_FAR_DROP), no_pdr + 1);
	assert_int_equal(upf_store_del(store, 3), 0);
}

/*
 * Precedences interleaved across the directions, and a CP-function PDR
 * ahead of them all: each packet gets the first matching PDR of its own
 * direction, or none. Uplink PDR 3 has no TEID condition and the DL PDRs
 * and the CP one none either, so each of them would also match packets of
 * the other direction (the UE address is the source of an uplink packet,
 * the destination of a downlink one): a scan that strayed out of its
 * direction's PDRs, before them or past them, would pick them, and the
 * packet would leave elsewhere, be dropped for its FAR, or not be the
 * no_pdr drop it must be (ports 3000 and up).
 *
 *   CP 7 (1): the UE address, any packet       -> FAR 4 DROP
 *   DL 4 (5): remote port 1000-1999            -> FAR 3 (TEID 0x6011)
 *   UL 3 (10): remote port 1000-1999, no TEID  -> FAR 4 DROP
 *   DL 6 (20): remote port 2000-2999           -> FAR 4 DROP
 *   UL 1 (100): remote port 53                 -> FAR 1 (N6)
 *   DL 2 (100): remote port 0-2999             -> FAR 2 (TEID 0x5011)
 *   UL 5 (300): remote port 0-2999             -> FAR 3 (N9, TEID 0x6011)
 */
static void
test_pdr_directions(void **state)
{
	static const uint16_t want_ids[] = { 3, 1, 5, 4, 6, 2, 7 };
	const struct upf_sess_dp *d;
	struct upf_sess_conf c;
	uint8_t inner[128];
	struct rte_mbuf *m, *out;
	unsigned int i, p;

	(void)state;
	basic_session(&c, 11, 0x1011, UE(11), 0x5011);
	pdrs[0].n_sdf = 1;
	pdrs[0].sdf[0].any_proto = true;
	pdrs[0].sdf[0].rport_lo = 53;
	pdrs[0].sdf[0].rport_hi = 53;
	pdrs[0].sdf[0].uport_hi = 65535;
	pdrs[1].n_sdf = 1;
	pdrs[1].sdf[0] = pdrs[0].sdf[0];
	pdrs[1].sdf[0].rport_lo = 0;
	pdrs[1].sdf[0].rport_hi = 2999;
	pdrs[2] = pdrs[0];
	pdrs[2].id = 3;
	pdrs[2].precedence = 10;
	pdrs[2].has_fteid = false;
	pdrs[2].ue4 = pdrs[1].ue4;
	pdrs[2].far_id = 4;
	pdrs[2].sdf[0].rport_lo = 1000;
	pdrs[2].sdf[0].rport_hi = 1999;
	pdrs[3] = pdrs[1];
	pdrs[3].id = 4;
	pdrs[3].precedence = 5;
	pdrs[3].far_id = 3;
	pdrs[3].sdf[0] = pdrs[2].sdf[0];
	pdrs[4] = pdrs[0];
	pdrs[4].id = 5;
	pdrs[4].precedence = 300;
	pdrs[4].far_id = 3;
	pdrs[4].sdf[0] = pdrs[1].sdf[0];
	pdrs[5] = pdrs[3];
	pdrs[5].id = 6;
	pdrs[5].precedence = 20;
	pdrs[5].far_id = 4;
	pdrs[5].sdf[0].rport_lo = 2000;
	pdrs[5].sdf[0].rport_hi = 2999;
	pdrs[6] = pdrs[1];
	pdrs[6].id = 7;
	pdrs[6].precedence = 1;
	pdrs[6].src_iface = UPF_IF_CP;
	pdrs[6].far_id = 4;
	pdrs[6].n_sdf = 0;
	c.n_pdr = 7;
	fars[2] = fars[1];
	fars[2].id = 3;
	fars[2].ohc_teid = 0x6011;
	fars[3].id = 4;
	fars[3].apply = UPF_FAR_DROP;
	c.n_far = 4;
	put_session(&c);

	d = upf_store_get(store, 11);
	assert_non_null(d);
	assert_int_equal(d->n_pdr, 7);
	assert_int_equal(d->n_pdr_ul, 3);
	assert_int_equal(d->n_pdr_dl, 3);
	for (i = 0; i < RTE_DIM(want_ids); i++)
		assert_int_equal(d->pdr[i].id, want_ids[i]);

	/* From port 40 in steps of 13: 53 among them, and each range. */
	for (p = 40; p < 3100; p += 13) {
		uint64_t no_pdr = upf_drops(UPF_DROP_NO_PDR);
		uint64_t far_drop = upf_drops(UPF_DROP_FAR_DROP);
		unsigned int ilen;

		/* Uplink: UE port 40000 to the remote's port p. */
		ilen = user_pkt(inner, UE(11), REMOTE, 40000, (uint16_t)p, 10);
		m = gpdu(0x1011, 9, inner, ilen);
		run(0, &m, 1);
		if (p >= 3000) {
			assert_null(sent(0));
			assert_null(sent(1));
			assert_int_equal(upf_drops(UPF_DROP_NO_PDR), no_pdr + 1);
		} else if (p >= 1000 && p <= 1999) {
			assert_null(sent(0));
			assert_null(sent(1));
			assert_int_equal(upf_drops(UPF_DROP_FAR_DROP), far_drop + 1);
		} else if (p == 53) {
			assert_null(sent(0));
			out = sent(1);
			assert_non_null(out);
			assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + ilen);
			rte_pktmbuf_free(out);
		} else {
			assert_null(sent(1));
			out = sent(0);
			assert_non_null(out);
			assert_int_equal(get32(rte_pktmbuf_mtod(out, const uint8_t *) + 46),
					 0x6011);
			rte_pktmbuf_free(out);
		}

		/* Downlink: from the remote's port p to the UE's 40000. */
		no_pdr = upf_drops(UPF_DROP_NO_PDR);
		far_drop = upf_drops(UPF_DROP_FAR_DROP);
		ilen = user_pkt(inner, REMOTE, UE(11), (uint16_t)p, 40000, 10);
		m = dl_frame(inner, ilen);
		run(1, &m, 1);
		assert_null(sent(1));
		out = sent(0);
		if (p >= 3000) {
			assert_null(out);
			assert_int_equal(upf_drops(UPF_DROP_NO_PDR), no_pdr + 1);
		} else if (p >= 2000) {
			assert_null(out);
			assert_int_equal(upf_drops(UPF_DROP_FAR_DROP), far_drop + 1);
		} else {
			assert_non_null(out);
			assert_int_equal(get32(rte_pktmbuf_mtod(out, const uint8_t *) + 46),
					 p >= 1000 ? 0x6011 : 0x5011);
			rte_pktmbuf_free(out);
		}
		assert_int_equal(upf_drops(UPF_DROP_FAR_DROP), far_drop + (p >= 2000 && p < 3000));
	}
	assert_int_equal(upf_store_del(store, 11), 0);
}

/*
 * A CORE PDR that names a local F-TEID never matches a plain downlink
 * packet, which has no TEID. The match used to compare the PDR's TEID with
 * the downlink's per-packet state, where nothing had set one (an
 * uninitialised read, found by reading the code: it does not fail here
 * deterministically, since what the stack held rarely equals the TEID).
 * The G-PDU before each packet is to the same TEID, which is in the
 * session's TEID table but names no ACCESS PDR; its inner packet is from
 * the UE, not to it, so the CORE PDR (a downlink over N9) does not take
 * it either.
 */
static void
test_dl_pdr_with_fteid(void **state)
{
	struct upf_sess_conf c;
	uint8_t inner[128];
	struct rte_mbuf *m, *out;
	unsigned int i, ilen;

	(void)state;
	basic_session(&c, 12, 0x1012, UE(12), 0x5012);
	pdrs[2] = pdrs[1];
	pdrs[2].id = 3;
	pdrs[2].precedence = 1;
	pdrs[2].has_fteid = true;
	pdrs[2].teid = 0x7012;
	pdrs[2].far_id = 3;
	c.n_pdr = 3;
	fars[2].id = 3;
	fars[2].apply = UPF_FAR_DROP;
	c.n_far = 3;
	put_session(&c);

	for (i = 0; i < 4; i++) {
		uint64_t no_pdr = upf_drops(UPF_DROP_NO_PDR);
		uint64_t far_drop = upf_drops(UPF_DROP_FAR_DROP);

		/* To the CORE PDR's TEID: the session's, but no ACCESS PDR's. */
		ilen = user_pkt(inner, UE(12), REMOTE, 40000, 53, 10);
		m = gpdu(0x7012, 9, inner, ilen);
		run(0, &m, 1);
		assert_null(sent(0));
		assert_null(sent(1));
		assert_int_equal(upf_drops(UPF_DROP_NO_PDR), no_pdr + 1);

		/* Plain IP to the UE: the catch-all downlink PDR's, encapsulated. */
		ilen = user_pkt(inner, REMOTE, UE(12), 53, 40000, 10);
		m = dl_frame(inner, ilen);
		run(1, &m, 1);
		assert_null(sent(1));
		out = sent(0);
		assert_non_null(out);
		assert_int_equal(get32(rte_pktmbuf_mtod(out, const uint8_t *) + 46), 0x5012);
		rte_pktmbuf_free(out);
		assert_int_equal(upf_drops(UPF_DROP_FAR_DROP), far_drop);
	}
}

/* Echo Request -> Echo Response with the same sequence number and Recovery. */
static void
test_echo(void **state)
{
	struct rte_mbuf *m = gpdu(0, -1, (const uint8_t *)"", 0), *out;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	const uint8_t *o;

	(void)state;
	/* Turn it into an Echo Request: S set, sequence 0x1234, type 1. */
	assert_non_null(rte_pktmbuf_append(m, 4));
	p[42] = 0x32;
	p[43] = 1;
	put16(p + 44, 4);
	put32(p + 46, 0);
	memcpy(p + 50, (const uint8_t[]){ 0x12, 0x34, 0, 0 }, 4);
	put16(p + 38, 8 + 12);
	put16(p + 16, 20 + 8 + 12);
	ip_cksum(p + 14);
	run(0, &m, 1);
	out = sent(0);
	assert_non_null(out);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + 20 + 8 + 14);
	assert_memory_equal(o, gnb_mac, 6);
	assert_int_equal(get32(o + 26), N3);
	assert_int_equal(get32(o + 30), GNB);
	assert_int_equal(rte_raw_cksum(o + 14, 20), 0xffff);
	assert_memory_equal(o + 42,
			    ((const uint8_t[]){ 0x32, 2, 0, 6, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 14,
						0 }),
			    14);
	rte_pktmbuf_free(out);
}

/* Unknown TEID -> Error Indication to the sender with TEID Data I and the peer address. */
static void
test_error_indication(void **state)
{
	uint8_t inner[64];
	struct rte_mbuf *m, *out;
	const uint8_t *o;
	const uint64_t before = upf_drops(UPF_DROP_UNKNOWN_TEID);
	const uint64_t sent_before = store->wk[0].stats.err_ind_sent;

	(void)state;
	m = gpdu(0xdead, 9, inner, user_pkt(inner, UE(9), REMOTE, 1, 2, 8));
	run(0, &m, 1);
	out = sent(0);
	assert_non_null(out);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + 20 + 8 + 8 + 4 + 5 + 7);
	assert_int_equal(get32(o + 30), GNB);
	assert_memory_equal(o + 42, ((const uint8_t[]){ 0x32, 26,  0, 16, 0,   0,   0, 0,
							0,    0,   0, 0,  16,  0,   0, 0xde,
							0xad, 133, 0, 4,  192, 168, 3, 1 }),
			    24);
	rte_pktmbuf_free(out);
	/* Answered, not dropped. */
	assert_int_equal(upf_drops(UPF_DROP_UNKNOWN_TEID), before);
	assert_int_equal(store->wk[0].stats.err_ind_sent, sent_before + 1);
}

/*
 * A G-PDU with flags and, after the optional fields (whose next-type octet
 * is ext[0]), the extension chain ext[1..elen): the shapes a gNB may send
 * beside gpdu()'s one container.
 */
static struct rte_mbuf *
gpdu_ext(uint32_t teid, uint8_t flags, const uint8_t *ext, unsigned int elen, const uint8_t *inner,
	 unsigned int ilen)
{
	uint8_t opt[32] = { 0, 0, 0, ext[0] };

	assert_true(elen - 1 <= sizeof(opt) - 4);
	memcpy(opt + 4, ext + 1, elen - 1);
	return gpdu_raw(teid, flags, opt, 4 + elen - 1, inner, ilen);
}

/*
 * Extension chains: the QFI is read from the PDU Session Container wherever
 * it sits in the chain and however long it is, and a PDR on QFI 9 takes the
 * packet only when that QFI is 9. The common chain (the container alone,
 * one unit) is read in one test, the others by the loop; both must agree.
 */
static void
test_ext_chains(void **state)
{
	static const struct {
		const char *what;
		uint8_t flags;
		uint8_t ext[24];
		unsigned int elen;
		bool fwd;
	} cases[] = {
		{ "container alone", 0x34, { 0x85, 1, 0x10, 9, 0 }, 5, true },
		{ "container alone, QFI 5", 0x34, { 0x85, 1, 0x10, 5, 0 }, 5, false },
		{ "container alone, QFI 9 with RQI", 0x34, { 0x85, 1, 0x10, 0x40 | 9, 0 }, 5, true },
		{ "S and PN set too", 0x37, { 0x85, 1, 0x10, 9, 0 }, 5, true },
		{ "container, then UDP Port",
		  0x34,
		  { 0x85, 1, 0x10, 9, 0x40, 1, 0x12, 0x34, 0 },
		  9,
		  true },
		{ "UDP Port, then the container",
		  0x34,
		  { 0x40, 1, 0x12, 0x34, 0x85, 1, 0x10, 9, 0 },
		  9,
		  true },
		{ "UDP Port, then the container, QFI 5",
		  0x34,
		  { 0x40, 1, 0x12, 0x34, 0x85, 1, 0x10, 5, 0 },
		  9,
		  false },
		{ "a two-unit container", 0x34, { 0x85, 2, 0x10, 9, 0, 0, 0, 0, 0 }, 9, true },
		{ "a two-unit container, QFI 5",
		  0x34,
		  { 0x85, 2, 0x10, 5, 0, 0, 0, 0, 0 },
		  9,
		  false },
		/* The next-type octet says a container, but E is clear: none. */
		{ "S set, E clear", 0x32, { 0x85 }, 1, false },
	};
	struct upf_sess_conf c;
	uint8_t inner[128];
	struct rte_mbuf *m, *out;
	unsigned int i, ilen;

	(void)state;
	basic_session(&c, 40, 0x1040, UE(40), 0x5040);
	pdrs[0].has_qfi = true;
	pdrs[0].qfi = 9;
	put_session(&c);
	ilen = user_pkt(inner, UE(40), REMOTE, 40000, 53, 20);
	for (i = 0; i < RTE_DIM(cases); i++) {
		const uint64_t no_pdr = upf_drops(UPF_DROP_NO_PDR);

		m = gpdu_ext(0x1040, cases[i].flags, cases[i].ext, cases[i].elen, inner, ilen);
		run(0, &m, 1);
		out = sent(1);
		if (cases[i].fwd != (out != NULL))
			fail_msg("%s: %s", cases[i].what,
				 out != NULL ? "forwarded" : "not forwarded");
		if (out != NULL) {
			assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + ilen);
			rte_pktmbuf_free(out);
		} else {
			assert_int_equal(upf_drops(UPF_DROP_NO_PDR), no_pdr + 1);
		}
		assert_null(sent(0));
	}
	assert_int_equal(upf_store_del(store, 40), 0);
}

/* Malformed GTP-U: each a counted drop by its reason, nothing sent. */
static void
test_malformed(void **state)
{
	uint8_t inner[64];
	const unsigned int ilen = user_pkt(inner, UE(1), REMOTE, 1, 2, 8);
	struct rte_mbuf *m;
	uint8_t *p;
	uint64_t before;

	(void)state;
	/* GTP length past the UDP payload. */
	before = upf_drops(UPF_DROP_GTPU_MALFORMED);
	m = gpdu(1, 9, inner, ilen);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	put16(p + 44, 500);
	run(0, &m, 1);
	assert_int_equal(upf_drops(UPF_DROP_GTPU_MALFORMED), before + 1);
	/* An extension whose length runs off the packet. */
	m = gpdu(1, 9, inner, ilen);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	p[54] = 200;
	run(0, &m, 1);
	assert_int_equal(upf_drops(UPF_DROP_GTPU_MALFORMED), before + 2);
	/* A zero-length extension. */
	m = gpdu(1, 9, inner, ilen);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	p[54] = 0;
	run(0, &m, 1);
	assert_int_equal(upf_drops(UPF_DROP_GTPU_MALFORMED), before + 3);
	/* An unknown extension that must be understood. */
	before = upf_drops(UPF_DROP_GTPU_EXT_UNKNOWN);
	m = gpdu(1, 9, inner, ilen);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	p[53] = 0xc1;
	run(0, &m, 1);
	assert_int_equal(upf_drops(UPF_DROP_GTPU_EXT_UNKNOWN), before + 1);
	/* GTPv2 (version 2). */
	before = upf_drops(UPF_DROP_GTPU_VERSION);
	m = gpdu(1, 9, inner, ilen);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	p[42] = 0x54;
	run(0, &m, 1);
	assert_int_equal(upf_drops(UPF_DROP_GTPU_VERSION), before + 1);
	/* The inner packet shorter than its IP header says. */
	before = upf_drops(UPF_DROP_INNER_MALFORMED);
	m = gpdu(1, 9, inner, ilen);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	put16(p + 58 + 2, 200);
	run(0, &m, 1);
	assert_int_equal(upf_drops(UPF_DROP_INNER_MALFORMED), before + 1);
	/* UDP to N3 that is not GTP-U. */
	before = upf_drops(UPF_DROP_NOT_LOCAL);
	m = gpdu(1, 9, inner, ilen);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	put16(p + 36, 9999);
	run(0, &m, 1);
	assert_int_equal(upf_drops(UPF_DROP_NOT_LOCAL), before + 1);
	assert_null(sent(0));
	assert_null(sent(1));
}

/* QER gate closed on the downlink: gate_closed, nothing sent, uplink still open. */
static void
test_gate(void **state)
{
	struct upf_sess_conf c;
	uint8_t inner[64];
	struct rte_mbuf *m, *out;
	const uint64_t before = upf_drops(UPF_DROP_GATE_CLOSED);

	(void)state;
	basic_session(&c, 4, 0x1004, UE(4), 0x5004);
	qers[0].gate_dl_closed = true;
	put_session(&c);
	m = dl_frame(inner, user_pkt(inner, REMOTE, UE(4), 1, 2, 8));
	run(1, &m, 1);
	assert_null(sent(0));
	assert_int_equal(upf_drops(UPF_DROP_GATE_CLOSED), before + 1);
	m = gpdu(0x1004, 9, inner, user_pkt(inner, UE(4), REMOTE, 1, 2, 8));
	run(0, &m, 1);
	out = sent(1);
	assert_non_null(out);
	rte_pktmbuf_free(out);
	/* A modification opens it: the next packet passes. */
	qers[0].gate_dl_closed = false;
	put_session(&c);
	m = dl_frame(inner, user_pkt(inner, REMOTE, UE(4), 1, 2, 8));
	run(1, &m, 1);
	out = sent(0);
	assert_non_null(out);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_del(store, 4), 0);
}

/* The QFI a downlink frame from run() carries in its PDU Session Container. */
static uint8_t
sent_qfi(struct rte_mbuf *out)
{
	const uint8_t *o = rte_pktmbuf_mtod(out, const uint8_t *);

	/* Ethernet, IPv4, UDP, GTP-U with E: the container's QFI octet. */
	assert_int_equal(o[42] & 0x04, 0x04);
	assert_int_equal(o[53], 0x85);
	return o[56] & 0x3f;
}

/*
 * Two QERs on each PDR, without and with an MBR: the gate of either one
 * closes the direction, the QFI marked is the first QER's that has one,
 * whether the packet takes the resolved path (no MBR on the direction) or
 * the metered one. An MBR far above the test's rate drops nothing.
 */
static void
test_two_qers(void **state)
{
	static const uint64_t mbr[] = { 0, 1000000000 };
	const uint64_t gate_before = upf_drops(UPF_DROP_GATE_CLOSED);
	const uint64_t mbr_before = upf_drops(UPF_DROP_MBR_EXCEEDED);
	uint64_t closed = 0;
	struct upf_sess_conf c;
	uint8_t inner[64];
	struct rte_mbuf *m, *out;
	unsigned int k;

	(void)state;
	for (k = 0; k < RTE_DIM(mbr); k++) {
		basic_session(&c, 20, 0x1014, UE(20), 0x5014);
		c.n_qer = 2;
		qers[0].has_qfi = false; /* The first marks nothing: the second's QFI. */
		qers[0].mbr_dl = mbr[k];
		qers[0].mbr_ul = mbr[k];
		qers[1].id = 2;
		qers[1].has_qfi = true;
		qers[1].qfi = 5;
		pdrs[0].n_qer = 2;
		pdrs[0].qer_id[1] = 2;
		pdrs[1].n_qer = 2;
		pdrs[1].qer_id[1] = 2;
		put_session(&c);
		m = dl_frame(inner, user_pkt(inner, REMOTE, UE(20), 1, 2, 8));
		run(1, &m, 1);
		out = sent(0);
		assert_non_null(out);
		assert_int_equal(sent_qfi(out), 5);
		rte_pktmbuf_free(out);

		/* The second QER's downlink gate closes the downlink only. */
		qers[1].gate_dl_closed = true;
		put_session(&c);
		m = dl_frame(inner, user_pkt(inner, REMOTE, UE(20), 1, 2, 8));
		run(1, &m, 1);
		assert_null(sent(0));
		closed++;
		assert_int_equal(upf_drops(UPF_DROP_GATE_CLOSED), gate_before + closed);
		m = gpdu(0x1014, 9, inner, user_pkt(inner, UE(20), REMOTE, 1, 2, 8));
		run(0, &m, 1);
		out = sent(1);
		assert_non_null(out);
		rte_pktmbuf_free(out);

		/* And the first QER's uplink gate the uplink. */
		qers[0].gate_ul_closed = true;
		put_session(&c);
		m = gpdu(0x1014, 9, inner, user_pkt(inner, UE(20), REMOTE, 1, 2, 8));
		run(0, &m, 1);
		assert_null(sent(1));
		closed++;
		assert_int_equal(upf_drops(UPF_DROP_GATE_CLOSED), gate_before + closed);
		assert_int_equal(upf_drops(UPF_DROP_MBR_EXCEEDED), mbr_before);
		assert_int_equal(upf_store_del(store, 20), 0);
	}
}

/* FAR BUFF: the frame goes to the control thread's ring, tagged with the session's slot. */
static void
test_buffer(void **state)
{
	struct upf_sess_conf c;
	uint8_t inner[64];
	struct rte_mbuf *m;
	void *got = NULL;
	const struct upf_sess_dp *s;

	(void)state;
	basic_session(&c, 5, 0x1005, UE(5), 0x5005);
	fars[1].apply = UPF_FAR_BUFF | UPF_FAR_NOCP;
	put_session(&c);
	s = upf_store_get(store, 5);
	assert_non_null(s);
	m = dl_frame(inner, user_pkt(inner, REMOTE, UE(5), 1, 2, 8));
	run(1, &m, 1);
	assert_null(sent(0));
	assert_int_equal(rte_ring_dequeue(store->wk[0].to_ctrl, &got), 0);
	assert_ptr_equal(got, m);
	assert_int_equal(m->hash.usr, s->slot);
	assert_int_equal(upf_store_slot_seid(store, s->slot), 5);
	rte_pktmbuf_free(m);
	assert_int_equal(upf_store_del(store, 5), 0);
}

/* Routed traffic next to the UPF's is untouched; unknown UEs are counted. */
static void
test_plain_and_unknown(void **state)
{
	uint8_t inner[64];
	struct rte_mbuf *m, *out;
	const uint64_t before = upf_drops(UPF_DROP_UNKNOWN_UE);

	(void)state;
	m = dl_frame(inner, user_pkt(inner, REMOTE, IP4(192, 168, 3, 77), 1, 2, 8));
	run(1, &m, 1);
	out = sent(0);
	assert_non_null(out);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + 36);
	assert_int_equal(rte_pktmbuf_mtod(out, const uint8_t *)[14 + 8], 63);
	rte_pktmbuf_free(out);
	m = dl_frame(inner, user_pkt(inner, REMOTE, UE(200), 1, 2, 8));
	run(1, &m, 1);
	assert_null(sent(0));
	assert_int_equal(upf_drops(UPF_DROP_UNKNOWN_UE), before + 1);
}

/* A G-PDU for an N9 session: on to the next UPF in a tunnel of its own (no decapsulated copy). */
static void
test_n9_and_end_marker(void **state)
{
	struct upf_sess_conf c;
	uint8_t inner[64];
	struct rte_mbuf *m, *out;
	const uint8_t *o;
	const unsigned int ilen = user_pkt(inner, UE(6), REMOTE, 1, 2, 8);
	uint64_t before;

	(void)state;
	basic_session(&c, 6, 0x1006, UE(6), 0x5006);
	fars[0].ohc = UPF_OHC_GTPU_UDP_IPV4;
	fars[0].ohc_teid = 0x7006;
	fars[0].ohc_peer.af = 4;
	put32(fars[0].ohc_peer.a, IP4(192, 168, 3, 9));
	put_session(&c);
	m = gpdu(0x1006, 9, inner, ilen);
	run(0, &m, 1);
	assert_null(sent(1));
	out = sent(0);
	assert_non_null(out);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	assert_int_equal(get32(o + 30), IP4(192, 168, 3, 9));
	assert_int_equal(o[43], 255);
	assert_int_equal(get32(o + 46), 0x7006);
	/* The QER's QFI goes on in an uplink-format container (PDU type 1,
	 * TS 38.415 5.5.2.2), up N9; the user's packet follows. */
	assert_memory_equal(o + 50, ((const uint8_t[]){ 0, 0, 0, 0x85, 1, 0x10, 9, 0 }), 8);
	assert_memory_equal(o + 58, inner, ilen);
	rte_pktmbuf_free(out);

	/* An End Marker on that tunnel is relayed down the next one, empty. */
	m = gpdu(0x1006, -1, inner, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[43] = 254;
	run(0, &m, 1);
	out = sent(0);
	assert_non_null(out);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + 20 + 8 + 8);
	assert_memory_equal(o + 42, ((const uint8_t[]){ 0x30, 254, 0, 0, 0, 0, 0x70, 0x06 }), 8);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_del(store, 6), 0);

	/* At the anchor (the uplink decapsulates), it ends here, counted. */
	basic_session(&c, 7, 0x1007, UE(7), 0x5007);
	put_session(&c);
	before = upf_drops(UPF_DROP_END_MARKER);
	m = gpdu(0x1007, -1, inner, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[43] = 254;
	run(0, &m, 1);
	assert_null(sent(0));
	assert_null(sent(1));
	assert_int_equal(upf_drops(UPF_DROP_END_MARKER), before + 1);
	/* For an unknown TEID: dropped, and no Error Indication. */
	before = upf_drops(UPF_DROP_UNKNOWN_TEID);
	m = gpdu(0x9999, -1, inner, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[43] = 254;
	run(0, &m, 1);
	assert_null(sent(0));
	assert_int_equal(upf_drops(UPF_DROP_UNKNOWN_TEID), before + 1);
	assert_int_equal(upf_store_del(store, 7), 0);
}

/*
 * An intermediate UPF (TS 23.501 5.6.4, the N9 downlink): the session's
 * CORE PDR names a local F-TEID, the tunnel from the anchor UPF. A G-PDU
 * on it is decapsulated and goes down the gNB's tunnel with the QER's QFI
 * in a downlink container, counted as downlink by the URR and the
 * downlink gate; its End Marker is relayed down the same way. The uplink
 * PDR and a G-PDU on that TEID whose inner packet is not to the UE still
 * decide as before.
 */
static void
test_n9_downlink(void **state)
{
	struct upf_sess_conf c;
	struct upf_usage u;
	uint8_t inner[128], hdr[64];
	struct rte_mbuf *m, *out;
	const uint8_t *o;
	unsigned int ilen;
	uint64_t before, dl_before;

	(void)state;
	basic_session(&c, 13, 0x1013, UE(13), 0x5013);
	/* Uplink up N9 to the anchor, downlink from it on local TEID 0x2013. */
	fars[0].ohc = UPF_OHC_GTPU_UDP_IPV4;
	fars[0].ohc_teid = 0x7013;
	fars[0].ohc_peer.af = 4;
	put32(fars[0].ohc_peer.a, IP4(192, 168, 3, 9));
	pdrs[1].has_fteid = true;
	pdrs[1].teid = 0x2013;
	pdrs[1].outer_hdr_removal = true;
	put_session(&c);

	dl_before = store->wk[0].stats.dl_pkts;
	ilen = user_pkt(inner, REMOTE, UE(13), 53, 40000, 20);
	m = gpdu(0x2013, 5, inner, ilen);
	rte_pktmbuf_mtod(m, uint8_t *)[55] = 0x00; /* The anchor's DL container. */
	run(0, &m, 1);
	assert_null(sent(1));
	out = sent(0);
	assert_non_null(out);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + 20 + 8 + 16 + ilen);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	/* The QER's QFI (9), not the one that came in (5). */
	dl_gpdu_ref(hdr, ilen, 0x5013, 9);
	assert_memory_equal(o, hdr, 58);
	assert_memory_equal(o + 58, inner, ilen);
	rte_pktmbuf_free(out);
	assert_int_equal(store->wk[0].stats.dl_pkts, dl_before + 1);
	assert_int_equal(upf_store_usage(store, 13, 1, &u), 0);
	assert_int_equal(u.pkts[1], 1);
	assert_int_equal(u.bytes[1], ilen);
	assert_int_equal(u.pkts[0], 0);

	/* On that tunnel but not to the UE: no PDR of the session takes it. */
	before = upf_drops(UPF_DROP_NO_PDR);
	ilen = user_pkt(inner, REMOTE, UE(14), 53, 40000, 20);
	m = gpdu(0x2013, 9, inner, ilen);
	run(0, &m, 1);
	assert_null(sent(0));
	assert_null(sent(1));
	assert_int_equal(upf_drops(UPF_DROP_NO_PDR), before + 1);

	/* The uplink on the N3 TEID still goes up N9, in an uplink container. */
	ilen = user_pkt(inner, UE(13), REMOTE, 40000, 53, 20);
	m = gpdu(0x1013, 9, inner, ilen);
	run(0, &m, 1);
	out = sent(0);
	assert_non_null(out);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	assert_int_equal(get32(o + 30), IP4(192, 168, 3, 9));
	assert_int_equal(get32(o + 46), 0x7013);
	assert_int_equal(o[55], 0x10);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_usage(store, 13, 1, &u), 0);
	assert_int_equal(u.pkts[0], 1);
	assert_int_equal(u.pkts[1], 1);

	/* The anchor's End Marker goes on down to the gNB, empty. */
	m = gpdu(0x2013, -1, inner, 0);
	rte_pktmbuf_mtod(m, uint8_t *)[43] = 254;
	run(0, &m, 1);
	out = sent(0);
	assert_non_null(out);
	o = rte_pktmbuf_mtod(out, const uint8_t *);
	assert_int_equal(rte_pktmbuf_pkt_len(out), 14 + 20 + 8 + 8);
	assert_int_equal(get32(o + 30), GNB);
	assert_memory_equal(o + 42, ((const uint8_t[]){ 0x30, 254, 0, 0, 0, 0, 0x50, 0x13 }), 8);
	rte_pktmbuf_free(out);

	/* The downlink gate closes the N9 downlink, not the uplink. */
	assert_int_equal(upf_store_del(store, 13), 0);
	qers[0].gate_dl_closed = true;
	put_session(&c);
	before = upf_drops(UPF_DROP_GATE_CLOSED);
	ilen = user_pkt(inner, REMOTE, UE(13), 53, 40000, 20);
	m = gpdu(0x2013, 9, inner, ilen);
	run(0, &m, 1);
	assert_null(sent(0));
	assert_int_equal(upf_drops(UPF_DROP_GATE_CLOSED), before + 1);
	ilen = user_pkt(inner, UE(13), REMOTE, 40000, 53, 20);
	m = gpdu(0x1013, 9, inner, ilen);
	run(0, &m, 1);
	out = sent(0);
	assert_non_null(out);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_del(store, 13), 0);
}

/*
 * UE to UE: the uplink packet is routed to the other UE's pool and goes
 * down that UE's tunnel, its TTL down by one (one hop), not two or none.
 */
static void
test_ue_to_ue(void **state)
{
	struct upf_sess_conf c;
	uint8_t inner[64], want[64];
	struct rte_mbuf *m, *out;
	unsigned int ilen;

	(void)state;
	basic_session(&c, 8, 0x1008, UE(8), 0x5008);
	put_session(&c);
	basic_session(&c, 9, 0x1009, UE(9), 0x5009);
	put_session(&c);
	ilen = user_pkt(inner, UE(8), UE(9), 1, 2, 8);
	m = gpdu(0x1008, 9, inner, ilen);
	run(0, &m, 1);
	assert_null(sent(1));
	out = sent(0);
	assert_non_null(out);
	assert_int_equal(get32(rte_pktmbuf_mtod(out, const uint8_t *) + 46), 0x5009);
	memcpy(want, inner, ilen);
	want[8] = 63;
	ip_cksum(want);
	assert_memory_equal(rte_pktmbuf_mtod(out, const uint8_t *) + 58, want, ilen);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_del(store, 8), 0);
	assert_int_equal(upf_store_del(store, 9), 0);
}

/* A dual-stack PDR (UE IPv4 and IPv6): an IPv4 packet matches on its IPv4 address. */
static void
test_dual_stack(void **state)
{
	struct upf_sess_conf c;
	uint8_t inner[64];
	struct rte_mbuf *m, *out;

	(void)state;
	basic_session(&c, 10, 0x100a, UE(10), 0x500a);
	pdrs[1].ue6.af = 6;
	memcpy(pdrs[1].ue6.a, (const uint8_t[]){ 0xfd, 0, 0, 0x45, 0, 0, 0, 10 }, 8);
	pdrs[0].ue4 = pdrs[1].ue4;
	pdrs[0].ue6 = pdrs[1].ue6;
	put_session(&c);
	m = dl_frame(inner, user_pkt(inner, REMOTE, UE(10), 1, 2, 8));
	run(1, &m, 1);
	out = sent(0);
	assert_non_null(out);
	rte_pktmbuf_free(out);
	m = gpdu(0x100a, 9, inner, user_pkt(inner, UE(10), REMOTE, 1, 2, 8));
	run(0, &m, 1);
	out = sent(1);
	assert_non_null(out);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_del(store, 10), 0);
}

/* An IPv6/UDP user packet src -> dst with 8 bytes of payload; its length. */
static unsigned int
user_pkt6(uint8_t *p, const uint8_t *src, const uint8_t *dst)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)p;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(p, 0, 40 + 8 + 8);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(16);
	ip->proto = IPPROTO_UDP;
	ip->hop_limits = 64;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	udp->src_port = rte_cpu_to_be_16(1000);
	udp->dst_port = rte_cpu_to_be_16(2000);
	udp->dgram_len = rte_cpu_to_be_16(16);
	udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip, udp);
	return 40 + 16;
}

/* fd00:45:0:HI LO::IID, a UE address in the IPv6 pool. */
static void
ue6(uint8_t *a, uint8_t hi, uint8_t lo, uint8_t iid)
{
	memset(a, 0, 16);
	memcpy(a, UE6_POOL, 4);
	a[6] = hi;
	a[7] = lo;
	a[15] = iid;
}

/*
 * basic_session() seid (TEID 0x2000 + seid, down to 0x6000 + seid) with
 * both PDRs' UE address fd00:45:0:1LO::IID, a prefix of 64 - dbits bits.
 */
static void
pfx_session(uint64_t seid, uint8_t lo, uint8_t iid, uint8_t dbits)
{
	struct upf_sess_conf c;
	unsigned int k;

	basic_session(&c, seid, 0x2000 + (uint32_t)seid, UE(seid), 0x6000 + (uint32_t)seid);
	for (k = 0; k < 2; k++) {
		memset(&pdrs[k].ue4, 0, sizeof(pdrs[k].ue4));
		ue6(pdrs[k].ue6.a, 0x01, lo, iid);
		pdrs[k].ue6.af = 6;
		pdrs[k].ue6_dbits = dbits;
	}
	put_session(&c);
}

/*
 * A prefix delegated to a UE (TS 23.501 5.8.2.2.4): a /56 is the PDRs' UE
 * address. Downlink to any /64 in it is the session's, encapsulated; beside
 * it, nothing. Uplink from an address in it matches the uplink PDR; from
 * outside, no PDR (the uplink PDR's UE address is a condition). A /60 of
 * another session inside the /56 takes its addresses (the longest prefix).
 */
static void
test_delegated_prefix(void **state)
{
	const uint8_t remote[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	uint8_t inner[128], a[16];
	struct rte_mbuf *m, *out;
	uint64_t no_pdr, unknown;
	unsigned int ilen, k;
	static const struct {
		uint8_t hi, lo, iid;
		int teid; /* The gNB TEID it goes down, or -1: dropped as no UE's. */
	} dl[] = {
		{ 0x01, 0x00, 1, 0x6011 }, /* the /56's first /64 */
		{ 0x01, 0xab, 9, 0x6011 }, /* another of its /64s */
		{ 0x01, 0xff, 2, 0x6011 }, /* its last */
		{ 0x01, 0xc3, 4, 0x6012 }, /* in the /60 inside it: the other session */
		{ 0x02, 0x00, 1, -1 }, /* the next /56 */
		{ 0x00, 0xff, 1, -1 }, /* the /64 before it */
	};

	(void)state;
	/* The /56 given as an address with an interface identifier in it. */
	pfx_session(0x11, 0x42, 7, 8);
	pfx_session(0x12, 0xc0, 0, 4);
	assert_int_equal(upf_store_get(store, 0x11)->pdr[1].flags, UPF_PDR_UE6 | UPF_PDR_UE6_PFX);
	assert_int_equal(upf_store_get(store, 0x11)->pdr[1].ue6[7], 0);

	for (k = 0; k < RTE_DIM(dl); k++) {
		unknown = upf_drops(UPF_DROP_UNKNOWN_UE);
		ue6(a, dl[k].hi, dl[k].lo, dl[k].iid);
		m = dl_frame(inner, user_pkt6(inner, remote, a));
		run(1, &m, 1);
		out = sent(0);
		if (dl[k].teid < 0) {
			assert_null(out);
			assert_int_equal(upf_drops(UPF_DROP_UNKNOWN_UE), unknown + 1);
			continue;
		}
		assert_non_null(out);
		/* Ethernet, IPv4, UDP, then the GTP-U TEID. */
		assert_int_equal(get32(rte_pktmbuf_mtod(out, const uint8_t *) + 14 + 20 + 8 + 4),
				 (uint32_t)dl[k].teid);
		rte_pktmbuf_free(out);
	}

	/* Uplink from the /56 matches; from beside it, no PDR. */
	ue6(a, 0x01, 0x77, 3);
	ilen = user_pkt6(inner, a, remote);
	m = gpdu(0x2011, 9, inner, ilen);
	run(0, &m, 1);
	out = sent(1);
	assert_non_null(out);
	assert_memory_equal(rte_pktmbuf_mtod(out, const uint8_t *) + 14 + 8, a, 16);
	rte_pktmbuf_free(out);
	no_pdr = upf_drops(UPF_DROP_NO_PDR);
	ue6(a, 0x02, 0x77, 3);
	m = gpdu(0x2011, 9, inner, user_pkt6(inner, a, remote));
	run(0, &m, 1);
	assert_null(sent(1));
	assert_int_equal(upf_drops(UPF_DROP_NO_PDR), no_pdr + 1);

	/* With the /60's session gone, its addresses are the /56's again. */
	assert_int_equal(upf_store_del(store, 0x12), 0);
	ue6(a, 0x01, 0xc3, 4);
	m = dl_frame(inner, user_pkt6(inner, remote, a));
	run(1, &m, 1);
	out = sent(0);
	assert_non_null(out);
	assert_int_equal(get32(rte_pktmbuf_mtod(out, const uint8_t *) + 14 + 20 + 8 + 4), 0x6011);
	rte_pktmbuf_free(out);
	assert_int_equal(upf_store_del(store, 0x11), 0);
	assert_int_equal(store->ue.dlen6, 0);
}

/* prefix a/plen of family af, host bits zero as the codec leaves them. */
static struct upf_prefix
framed_pfx(uint8_t af, const uint8_t *a, uint8_t plen)
{
	struct upf_prefix f = { .af = af, .plen = plen };

	memcpy(f.a, a, af == 4 ? 4 : 16);
	return f;
}

/* The TEID of what port 0 sent, or -1 if nothing. */
static int64_t
sent_teid(void)
{
	struct rte_mbuf *out = sent(0);
	uint32_t teid;

	if (out == NULL)
		return -1;
	teid = get32(rte_pktmbuf_mtod(out, const uint8_t *) + 14 + 20 + 8 + 4);
	rte_pktmbuf_free(out);
	return teid;
}

/*
 * Framed routes (TS 29.244 5.2.1, FRRT): networks behind the UE. Session
 * 0x21's downlink PDR has 10.45.100.0/24, 10.45.96.0/20 and
 * fd00:45:77::/48 beside its UE address; session 0x22's the /25 of the
 * /24's upper half, which takes those addresses (the longest prefix, across
 * sessions). A downlink PDR of higher precedence with the UE address alone
 * drops: its condition holds for the UE address and not for the routes;
 * one of lower precedence with no address condition drops what neither
 * takes.
 * The uplink PDR's UE address condition holds for sources in its framed
 * route too.
 */
static void
test_framed_routes(void **state)
{
	const uint8_t remote6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	uint8_t inner[128], a6[16] = { 0xfd, 0x00, 0x00, 0x45, 0x00, 0x77, [15] = 5 };
	struct upf_sess_conf c;
	struct rte_mbuf *m;
	uint64_t unknown, far_drop, no_pdr;
	char err[256];
	unsigned int k;
	static const struct {
		uint32_t dst;
		int64_t teid; /* The gNB TEID it goes down, or -1: dropped. */
	} dl[] = {
		{ IP4(10, 45, 100, 5), 0x6021 },   { IP4(10, 45, 100, 127), 0x6021 },
		{ IP4(10, 45, 100, 128), 0x6022 }, { IP4(10, 45, 100, 255), 0x6022 },
		{ IP4(10, 45, 97, 1), 0x6021 },    { IP4(10, 45, 111, 255), 0x6021 },
		{ IP4(10, 45, 112, 0), -1 },       { IP4(10, 45, 95, 255), -1 },
		{ IP4(10, 45, 0, 0x22), 0x6022 },
	};

	(void)state;
	basic_session(&c, 0x21, 0x2021, UE(0x21), 0x6021);
	pdrs[1].n_framed = 3;
	pdrs[1].framed[0] = framed_pfx(4, (const uint8_t[]){ 10, 45, 100, 0 }, 24);
	pdrs[1].framed[1] = framed_pfx(4, (const uint8_t[]){ 10, 45, 96, 0 }, 20);
	pdrs[1].framed[2] = framed_pfx(6, (const uint8_t[16]){ 0xfd, 0, 0, 0x45, 0, 0x77 }, 48);
	pdrs[0].ue4 = pdrs[1].ue4;
	pdrs[0].n_framed = 1;
	pdrs[0].framed[0] = pdrs[1].framed[0];
	/* PDR 3: the UE address alone, before PDR 2, to a DROP FAR. */
	pdrs[2] = pdrs[1];
	pdrs[2].id = 3;
	pdrs[2].precedence = 10;
	pdrs[2].n_framed = 0;
	pdrs[2].far_id = 3;
	fars[2].id = 3;
	fars[2].apply = UPF_FAR_DROP;
	fars[2].ni = UPF_NI_NONE;
	/* PDR 4: no address condition at all, after PDR 2, to the same DROP:
	 * a packet into the routes passes it by for PDR 2, whose precedence
	 * is higher (the fast scan meets PDR 4 first and must look back). */
	pdrs[3] = pdrs[2];
	pdrs[3].id = 4;
	pdrs[3].precedence = 200;
	memset(&pdrs[3].ue4, 0, sizeof(pdrs[3].ue4));
	c.n_pdr = 4;
	c.n_far = 3;
	put_session(&c);
	assert_true(upf_store_get(store, 0x21)->match[2].flags & UPF_PDR_FRAMED);
	assert_true(store->ue.dlen4 == (UINT32_C(1) << 7 | UINT32_C(1) << 11));
	assert_true(store->ue.dlen6 == UINT64_C(1) << 15);

	basic_session(&c, 0x22, 0x2022, UE(0x22), 0x6022);
	pdrs[1].n_framed = 1;
	pdrs[1].framed[0] = framed_pfx(4, (const uint8_t[]){ 10, 45, 100, 128 }, 25);
	put_session(&c);

	/* The same route in another session is refused, and changes nothing. */
	basic_session(&c, 0x23, 0x2023, UE(0x23), 0x6023);
	pdrs[1].n_framed = 1;
	pdrs[1].framed[0] = framed_pfx(4, (const uint8_t[]){ 10, 45, 100, 0 }, 24);
	assert_int_equal(upf_store_put(store, &c, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "10.45.100.0/24"));
	/* Not a prefix (host bits), or an IPv6 one longer than the UE table keys. */
	pdrs[1].framed[0] = framed_pfx(4, (const uint8_t[]){ 10, 45, 101, 1 }, 24);
	assert_int_equal(upf_store_put(store, &c, err, sizeof(err)), -EINVAL);
	pdrs[1].framed[0] = framed_pfx(6, a6, 96);
	assert_int_equal(upf_store_put(store, &c, err, sizeof(err)), -EINVAL);
	assert_null(upf_store_get(store, 0x23));

	for (k = 0; k < RTE_DIM(dl); k++) {
		unknown = upf_drops(UPF_DROP_UNKNOWN_UE);
		m = dl_frame(inner, user_pkt(inner, REMOTE, dl[k].dst, 1, 2, 8));
		run(1, &m, 1);
		if (sent_teid() != dl[k].teid)
			fail_msg("downlink %u (%08x): not TEID %" PRId64, k, dl[k].dst, dl[k].teid);
		if (dl[k].teid < 0)
			assert_int_equal(upf_drops(UPF_DROP_UNKNOWN_UE), unknown + 1);
	}
	/* The UE address itself: PDR 3's DROP. */
	far_drop = upf_drops(UPF_DROP_FAR_DROP);
	m = dl_frame(inner, user_pkt(inner, REMOTE, UE(0x21), 1, 2, 8));
	run(1, &m, 1);
	assert_int_equal(sent_teid(), -1);
	assert_int_equal(upf_drops(UPF_DROP_FAR_DROP), far_drop + 1);
	/* IPv6: in the /48, and beside it. */
	m = dl_frame(inner, user_pkt6(inner, remote6, a6));
	run(1, &m, 1);
	assert_int_equal(sent_teid(), 0x6021);
	a6[5] = 0x78;
	unknown = upf_drops(UPF_DROP_UNKNOWN_UE);
	m = dl_frame(inner, user_pkt6(inner, remote6, a6));
	run(1, &m, 1);
	assert_int_equal(sent_teid(), -1);
	assert_int_equal(upf_drops(UPF_DROP_UNKNOWN_UE), unknown + 1);

	/* Uplink from the framed /24 passes PDR 1's address condition; from beside it, no PDR. */
	m = gpdu(0x2021, 9, inner, user_pkt(inner, IP4(10, 45, 100, 9), REMOTE, 1, 2, 8));
	run(0, &m, 1);
	m = sent(1);
	assert_non_null(m);
	rte_pktmbuf_free(m);
	no_pdr = upf_drops(UPF_DROP_NO_PDR);
	m = gpdu(0x2021, 9, inner, user_pkt(inner, IP4(10, 45, 101, 9), REMOTE, 1, 2, 8));
	run(0, &m, 1);
	assert_null(sent(1));
	assert_int_equal(upf_drops(UPF_DROP_NO_PDR), no_pdr + 1);

	/* Session 0x22 gone: its /25 is 0x21's /24's again. */
	assert_int_equal(upf_store_del(store, 0x22), 0);
	m = dl_frame(inner, user_pkt(inner, REMOTE, IP4(10, 45, 100, 200), 1, 2, 8));
	run(1, &m, 1);
	assert_int_equal(sent_teid(), 0x6021);
	assert_int_equal(upf_store_del(store, 0x21), 0);
	assert_true(store->ue.dlen4 == 0 && store->ue.dlen6 == 0);
	m = dl_frame(inner, user_pkt(inner, REMOTE, IP4(10, 45, 100, 5), 1, 2, 8));
	run(1, &m, 1);
	assert_int_equal(sent_teid(), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uplink_decap),
		cmocka_unit_test(test_downlink_encap),
		cmocka_unit_test(test_pdr_precedence),
		cmocka_unit_test(test_pdr_directions),
		cmocka_unit_test(test_dl_pdr_with_fteid),
		/* GTP-U itself: path management, extension chains, bad input. */
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_error_indication),
		cmocka_unit_test(test_ext_chains),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_two_qers),
		cmocka_unit_test(test_buffer),
		cmocka_unit_test(test_plain_and_unknown),
		cmocka_unit_test(test_n9_and_end_marker),
		cmocka_unit_test(test_n9_downlink),
		cmocka_unit_test(test_ue_to_ue),
		cmocka_unit_test(test_dual_stack),
		cmocka_unit_test(test_delegated_prefix),
		cmocka_unit_test(test_framed_routes),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
