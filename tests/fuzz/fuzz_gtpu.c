/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the UPF stages through the real pipeline
 * (pipeline_run): the GTP-U parser, the extension header chain, the inner
 * packet checks, the PDR/SDF match, Echo and Error Indication replies,
 * End Marker, decapsulation and encapsulation.
 *
 * Tables as the daemon builds them (tables_build with [upf]: N3 address
 * 192.168.3.1, UE pool 10.45.0.0/16 with ue_alloc 10.45.0.0/30 in the UE
 * table's direct array), a real store with a few sessions covering every
 * FAR action (FORW with removal, FORW to N9, DROP, BUFF), a downlink PDR
 * on a tunnel of its own (TEID 0x14, down N9),
 * QERs with a closed gate and an MBR, URRs and SDF filters. Output ports
 * are net_ring devices drained after each input; what the stage hands to
 * the control thread is drained too, so a leak is an mbuf the harness
 * cannot find (LeakSanitizer sees the pool, not mbufs: each input also
 * checks that every mbuf came back).
 *
 * The first input byte chooses how the rest becomes a frame:
 *   0: uplink: Ethernet, IPv4 to the N3 address with a valid checksum,
 *      UDP 2152, then the input (a GTP-U header and what follows);
 *   1: downlink: Ethernet, IPv4 from 8.8.8.8 to 10.45.0.(byte 1) with a
 *      valid checksum and the input's protocol (byte 2), then the input;
 *   2: the input as a whole frame.
 *
 * The packet's buffer is poisoned for ASan outside its data, except 64
 * bytes on each side: the stages may prepend an encapsulation into the
 * headroom and append a reply's last bytes, as rte_pktmbuf_prepend and
 * _append allow. A read more than 64 bytes out of the data is reported.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "config.h"
#include "pipeline.h"
#include "tables.h"
#include "upf.h"
#include "worker.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_PORTS 2
#define POOL_SIZE 256
#define MARGIN 64

static struct rte_mempool *pool;
static struct rte_ring *rings[N_PORTS];
static struct upf_store *store;
static struct worker *w;

static struct lf_tables *tables;

static const uint8_t port_mac[6] = { 0x02, 0, 0, 0, 0xaa, 0 };

/* At exit: what LeakSanitizer would otherwise report (the store's heap part). */
static void
cleanup(void)
{
	upf_store_free(store);
	tables_free(tables);
}

static void
die(const char *what)
{
	fprintf(stderr, "fuzz_gtpu: %s\n", what);
	abort();
}

static void
make_port(unsigned int i)
{
	struct rte_eth_conf conf;
	char name[32];
	int id;

	snprintf(name, sizeof(name), "fz_upf%u", i);
	rings[i] = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (rings[i] == NULL)
		die("ring");
	id = rte_eth_from_ring(rings[i]);
	memset(&conf, 0, sizeof(conf));
	if (id < 0 || rte_eth_dev_configure(id, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(id, 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(id, 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(id) != 0)
		die("port");
	w->tx.buf[i].port_id = (uint16_t)id;
	w->tx.buf[i].queue_id = 0;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Sessions 1..4: every FAR action, QERs, URRs and SDF filters. */
static void
sessions(void)
{
	static struct upf_pdr_conf pdr[4];
	static struct upf_far_conf far[4];
	static struct upf_qer_conf qer[2];
	static struct upf_urr_conf urr[1];
	struct upf_sess_conf c;
	char err[256];
	unsigned int s;

	for (s = 1; s <= 4; s++) {
		memset(&c, 0, sizeof(c));
		memset(pdr, 0, sizeof(pdr));
		memset(far, 0, sizeof(far));
		memset(qer, 0, sizeof(qer));
		memset(urr, 0, sizeof(urr));
		c.up_seid = s;
		c.pdr = pdr;
		c.far = far;
		c.qer = qer;
		c.urr = urr;
		c.n_pdr = 4;
		c.n_far = 4;
		c.n_qer = 2;
		c.n_urr = 1;
		/* Uplink: an SDF-filtered PDR first, then the catch-all. */
		pdr[0].id = 1;
		pdr[0].precedence = 10;
		pdr[0].src_iface = UPF_IF_ACCESS;
		pdr[0].has_fteid = true;
		pdr[0].teid = s;
		pdr[0].has_qfi = s == 2;
		pdr[0].qfi = 9;
		pdr[0].n_sdf = 1;
		pdr[0].sdf[0].proto = IPPROTO_UDP;
		pdr[0].sdf[0].rport_lo = 1000;
		pdr[0].sdf[0].rport_hi = 2000;
		pdr[0].sdf[0].uport_hi = 65535;
		pdr[0].sdf[0].has_tos = true;
		pdr[0].sdf[0].tos_mask = 0xfc;
		pdr[0].outer_hdr_removal = true;
		pdr[0].has_far = true;
		pdr[0].far_id = 3; /* DROP */
		pdr[1] = pdr[0];
		pdr[1].id = 2;
		pdr[1].precedence = 20;
		pdr[1].n_sdf = 0;
		pdr[1].far_id = s == 4 ? 4 : 1; /* session 4: on to N9 */
		pdr[1].n_qer = 1;
		pdr[1].qer_id[0] = 1;
		pdr[1].n_urr = 1;
		pdr[1].urr_id[0] = 1;
		/* Downlink: by UE address, an IPv6-prefix SDF first. */
		pdr[2].id = 3;
		pdr[2].precedence = 5;
		pdr[2].src_iface = UPF_IF_CORE;
		pdr[2].ue4.af = 4;
		put32(pdr[2].ue4.a, 0x0a2d0000 | s);
		pdr[2].n_sdf = 1;
		pdr[2].sdf[0].any_proto = true;
		pdr[2].sdf[0].remote.af = 4;
		pdr[2].sdf[0].remote.plen = 8;
		pdr[2].sdf[0].remote.a[0] = 9;
		pdr[2].sdf[0].uport_hi = pdr[2].sdf[0].rport_hi = 65535;
		pdr[2].has_far = true;
		pdr[2].far_id = 3;
		pdr[3] = pdr[2];
		pdr[3].id = 4;
		pdr[3].precedence = 50;
		pdr[3].n_sdf = 0;
		pdr[3].far_id = s == 3 ? 5 : 2; /* session 3 buffers */
		pdr[3].n_qer = 2;
		pdr[3].qer_id[0] = 1;
		pdr[3].qer_id[1] = 2;
		pdr[3].n_urr = 1;
		pdr[3].urr_id[0] = 1;
		if (s == 4) {
			/* An intermediate UPF's: the catch-all downlink PDR
			 * takes G-PDUs on TEID 0x14 (down N9), not N6 packets. */
			pdr[3].has_fteid = true;
			pdr[3].teid = 0x14;
			pdr[3].outer_hdr_removal = true;
		}
		far[0].id = 1;
		far[0].apply = UPF_FAR_FORW;
		far[1].id = 2;
		far[1].apply = UPF_FAR_FORW;
		far[1].ohc = s == 2 ? UPF_OHC_GTPU_UDP_IPV6 : UPF_OHC_GTPU_UDP_IPV4;
		far[1].ohc_teid = 100 + s;
		far[1].ohc_peer.af = s == 2 ? 6 : 4;
		if (s == 2)
			memcpy(far[1].ohc_peer.a, (const uint8_t[]){ 0xfd, 0, 0, 3, [15] = 2 }, 16);
		else
			put32(far[1].ohc_peer.a, 0xc0a80302);
		far[2].id = 3;
		far[2].apply = UPF_FAR_DROP;
		far[3].id = s == 3 ? 5 : 4;
		far[3].apply = s == 3 ? UPF_FAR_BUFF | UPF_FAR_NOCP : UPF_FAR_FORW;
		far[3].ohc = UPF_OHC_GTPU_UDP_IPV4;
		far[3].ohc_teid = 200 + s;
		far[3].ohc_peer.af = 4;
		put32(far[3].ohc_peer.a, 0xc0a80309);
		qer[0].id = 1;
		qer[0].has_qfi = true;
		qer[0].qfi = 9;
		qer[0].gate_ul_closed = s == 1;
		qer[1].id = 2;
		qer[1].mbr_dl = 8; /* 1000 bytes/s: most packets exceed it */
		urr[0].id = 1;
		urr[0].method = UPF_MM_VOLUM;
		if (s == 3) {
			/* FAR 4 is 5 here: keep the references straight. */
			pdr[1].far_id = 1;
		}
		if (upf_store_put(store, &c, err, sizeof(err)) != 0) {
			fprintf(stderr, "fuzz_gtpu: session %u: %s\n", s, err);
			abort();
		}
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char lcore[16], err[512];
	char *eal_argv[] = {
		"fuzz_gtpu",      "--no-huge",   "-m", "256", "--no-pci", "--no-shconf",
		"--no-telemetry", "--log-level", "3",  "-l",  lcore,      NULL,
	};
	static struct lf_config cfg;
	struct lf_nexthop_conf nh[2];
	struct lf_table_src src;
	struct rte_ether_addr macs[N_PORTS];
	struct upf_store_params p;
	cpu_set_t cpus;
	unsigned int i;
	int cpu = 0;

	(void)argc;
	(void)argv;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(eal_argv) - 1, eal_argv) < 0)
		die("rte_eal_init");
	pool = rte_pktmbuf_pool_create("fz_upf", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	w = rte_zmalloc("fz_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (pool == NULL || w == NULL)
		die("memory");
	for (i = 0; i < N_PORTS; i++)
		make_port(i);

	cfg.n_ports = N_PORTS;
	cfg.routes.ipv4_max_routes = 64;
	cfg.routes.ipv4_tbl8 = 16;
	cfg.routes.ipv6_max_routes = 64;
	cfg.routes.ipv6_tbl8 = 16;
	memset(nh, 0, sizeof(nh));
	nh[1].id = 1;
	nh[1].port = 1;
	cfg.nexthops = nh;
	cfg.n_nexthops = 2;
	cfg.upf.enabled = true;
	cfg.upf.has_n3_ipv4 = true;
	memcpy(cfg.upf.n3_ipv4, (const uint8_t[]){ 192, 168, 3, 1 }, 4);
	cfg.upf.n_ni = 1;
	strcpy(cfg.upf.ni[0].name, "internet");
	cfg.upf.ni[0].n_pools = 1;
	cfg.upf.ni[0].pool[0].af = 4;
	cfg.upf.ni[0].pool[0].plen = 16;
	memcpy(cfg.upf.ni[0].pool[0].a, (const uint8_t[]){ 10, 45, 0, 0 }, 4);
	/* 10.45.0.0-3 in the UE table's direct array, 10.45.0.4-7 in its hash. */
	cfg.upf.ni[0].n_alloc = 1;
	cfg.upf.ni[0].alloc[0] = cfg.upf.ni[0].pool[0];
	cfg.upf.ni[0].alloc[0].plen = 30;
	memset(&src, 0, sizeof(src));
	src.r4.af = 4;
	src.r6.af = 6;
	src.r4.r = calloc(2, sizeof(*src.r4.r));
	src.r6.r = calloc(1, sizeof(*src.r6.r));
	if (src.r4.r == NULL || src.r6.r == NULL)
		die("memory");
	src.r4.n = src.r4.cap = 2;
	src.r4.r[0].addr4 = 0xc0a80300; /* 192.168.3.0/24: toward the gNBs */
	src.r4.r[0].depth = 24;
	src.r4.r[0].nh = 0;
	src.r4.r[1].nh = 1; /* default: the data network */
	src.r6.n = src.r6.cap = 1;
	src.r6.r[0].nh = 0; /* ::/0 toward the gNBs */
	if (tables_add_upf_routes(&cfg, &src, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_gtpu: %s\n", err);
		abort();
	}
	for (i = 0; i < N_PORTS; i++)
		memcpy(&macs[i], port_mac, 6);
	tables = tables_build(&cfg, &src, macs, SOCKET_ID_ANY, 1, err, sizeof(err));
	if (tables == NULL) {
		fprintf(stderr, "fuzz_gtpu: %s\n", err);
		abort();
	}
	memset(&p, 0, sizeof(p));
	p.max_sessions = 8;
	p.max_urrs = 16;
	p.max_qers = 16;
	p.n_workers = 1;
	p.socket = SOCKET_ID_ANY;
	p.n3_ipv4 = rte_cpu_to_be_32(0xc0a80301);
	memcpy(p.n3_ipv6, (const uint8_t[]){ 0xfd, 0, 0, 3, [15] = 1 }, 16);
	p.ring_size = 64;
	upf_store_ue_dirs(&p, &cfg.upf);
	store = upf_store_create(&p, err, sizeof(err));
	if (store == NULL) {
		fprintf(stderr, "fuzz_gtpu: %s\n", err);
		abort();
	}
	sessions();
	atexit(cleanup);
	w->burst = 32;
	worker_adopt(w, tables);
	w->tx.n_ports = N_PORTS;
	worker_ready(w);
	w->b.upf = store;
	w->b.upf_wk = &store->wk[0];
	w->b.upf_err_ind_cycles = 1;
	return 0;
}

static uint16_t
ip_cksum(const uint8_t *ip)
{
	return (uint16_t)~rte_raw_cksum(ip, 20);
}

/* An IPv4 header of tot bytes from src to dst with protocol proto. */
static void
ipv4(uint8_t *p, size_t tot, uint8_t proto, uint32_t src, uint32_t dst)
{
	uint16_t c;

	memset(p, 0, 20);
	p[0] = 0x45;
	p[2] = (uint8_t)(tot >> 8);
	p[3] = (uint8_t)tot;
	p[8] = 64;
	p[9] = proto;
	put32(p + 12, src);
	put32(p + 16, dst);
	c = ip_cksum(p);
	memcpy(p + 10, &c, 2);
}

static void
drain(void)
{
	void *objs[64];
	unsigned int i, n;

	for (i = 0; i < N_PORTS; i++)
		while ((n = rte_ring_dequeue_burst(rings[i], objs, RTE_DIM(objs), NULL)) != 0)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	while ((n = rte_ring_dequeue_burst(store->wk[0].to_ctrl, objs, RTE_DIM(objs), NULL)) != 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *m;
	uint8_t *p, *buf;
	size_t hdr, len;
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0] % 3;
	data++;
	size--;
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		die("mbuf");
	hdr = mode == 0 ? 14 + 20 + 8 : mode == 1 ? 14 + 20 : 0;
	len = RTE_MIN(hdr + size, (size_t)rte_pktmbuf_tailroom(m) - MARGIN);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	memcpy(p + hdr, data, len - hdr);
	if (mode != 2) {
		memcpy(p, port_mac, 6);
		memset(p + 6, 0x22, 6);
		p[12] = 0x08;
		p[13] = 0x00;
	}
	if (mode == 0) {
		ipv4(p + 14, len - 14, IPPROTO_UDP, 0xc0a80302, 0xc0a80301);
		p[34] = 0x08;
		p[35] = 0x68; /* 2152 */
		p[36] = 0x08;
		p[37] = 0x68;
		p[38] = (uint8_t)((len - 34) >> 8);
		p[39] = (uint8_t)(len - 34);
		p[40] = p[41] = 0;
	} else if (mode == 1) {
		ipv4(p + 14, len - 14, size > 1 ? data[1] : IPPROTO_UDP, 0x08080808,
		     0x0a2d0000 | (size > 0 ? data[0] % 8 : 1));
	}
	buf = m->buf_addr;
	ASAN_POISON_MEMORY_REGION(buf, (size_t)(p - buf) - MARGIN);
	ASAN_POISON_MEMORY_REGION(p + len + MARGIN,
				  (size_t)(buf + m->buf_len - (p + len + MARGIN)));

	w->b.rx_port = mode == 1 ? 1 : 0;
	w->b.prefetch_distance = 0;
	w->b.rx_tsc = rte_rdtsc();
	pipeline_run(&w->b, &w->tx, &m, 1);
	worker_flush_tx(w);
	ASAN_UNPOISON_MEMORY_REGION(buf, m->buf_len);
	drain();
	/* Every mbuf is back: nothing leaked or freed twice. */
	if (rte_mempool_avail_count(pool) + rte_mempool_in_use_count(pool) != POOL_SIZE ||
	    rte_mempool_in_use_count(pool) != 0)
		die("an mbuf did not come back");
	return 0;
}
