/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exception path's device alone (bench/bench-exception.sh,
 * docs/exception-path.md): a DPDK process sends UDP datagrams into a kernel
 * socket through a kernel-facing device, a thread of the same process echoes
 * them from that socket, and the DPDK side reads the echoes back.
 *
 *   DPDK lcore --tx--> device --> kernel IP/UDP --> echo socket (thread)
 *   DPDK lcore <--rx-- device <-- kernel IP/UDP <--------'
 *
 * Devices: tap (net_tap, lanefwd's mirror) or virtio (virtio_user on
 * /dev/vhost-net: the kernel's vhost-net thread moves the frames).
 *   pps: keep WINDOW datagrams in flight for SECS seconds (after one of
 *        warm-up); echoes per second, datagrams lost (none back in 50 ms);
 *   rtt: one datagram at a time, COUNT times; round trip in microseconds.
 * One JSON line on stdout. --setup CMD runs once the device is up, to give
 * the kernel side its address (10.99.0.1/24, MAC 02:00:00:99:00:01) and a
 * neighbour entry for the DPDK side (10.99.0.2, 02:00:00:99:00:02).
 *
 * usage: excbench EAL-ARGS -- --dev tap|virtio --ifname NAME --mode pps|rtt
 *        [--secs N] [--window N] [--size BYTES] [--count N] [--echo-cpu N]
 *        [--setup CMD]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#define KERNEL_IP "10.99.0.1"
#define DPDK_IP "10.99.0.2"
#define ECHO_PORT 9000
#define SRC_PORT 10000
#define FLOWS 64
#define BURST 32
#define RING 1024

static const struct rte_ether_addr kmac = { { 0x02, 0x00, 0x00, 0x99, 0x00, 0x01 } };
static const struct rte_ether_addr dmac = { { 0x02, 0x00, 0x00, 0x99, 0x00, 0x02 } };

struct opts {
	const char *dev, *ifname, *mode, *setup;
	unsigned int secs, window, size, count;
	int echo_cpu;
};

static volatile bool echo_quit;
static volatile uint64_t echo_pkts;
static int echo_fd = -1;

static void
fail(const char *what)
{
	fprintf(stderr, "excbench: %s\n", what);
	exit(1);
}

/* The kernel side: echo every datagram to where it came from, in batches. */
static void *
echo_main(void *arg)
{
	struct mmsghdr msg[64];
	struct iovec iov[64];
	struct sockaddr_in from[64];
	static char buf[64][2048];
	const int cpu = *(const int *)arg;
	cpu_set_t cs;
	int i, n;

	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs);
	while (!echo_quit) {
		for (i = 0; i < 64; i++) {
			iov[i].iov_base = buf[i];
			iov[i].iov_len = sizeof(buf[i]);
			memset(&msg[i], 0, sizeof(msg[i]));
			msg[i].msg_hdr.msg_iov = &iov[i];
			msg[i].msg_hdr.msg_iovlen = 1;
			msg[i].msg_hdr.msg_name = &from[i];
			msg[i].msg_hdr.msg_namelen = sizeof(from[i]);
		}
		n = recvmmsg(echo_fd, msg, 64, MSG_WAITFORONE, NULL);
		if (n <= 0)
			continue; /* EINTR (net_tap's RX signal), or the 100 ms timeout */
		for (i = 0; i < n; i++)
			iov[i].iov_len = msg[i].msg_len;
		sendmmsg(echo_fd, msg, (unsigned int)n, 0);
		echo_pkts += (uint64_t)n;
	}
	return NULL;
}

static struct rte_mbuf *
build(struct rte_mempool *mp, unsigned int size, uint64_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint64_t *pl;
	const uint16_t l3 = (uint16_t)(size - sizeof(*eth));

	if (m == NULL)
		return NULL;
	eth = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)size);
	memset(eth, 0, size);
	eth->dst_addr = kmac;
	eth->src_addr = dmac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(l3);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	inet_pton(AF_INET, DPDK_IP, &ip->src_addr);
	inet_pton(AF_INET, KERNEL_IP, &ip->dst_addr);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(SRC_PORT + seq % FLOWS));
	udp->dst_port = rte_cpu_to_be_16(ECHO_PORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(l3 - sizeof(*ip)));
	pl = (uint64_t *)(udp + 1);
	pl[0] = seq;
	pl[1] = rte_rdtsc();
	return m;
}

/* The echo's seq, or UINT64_MAX for anything else (IPv6, ARP, ...). */
static uint64_t
echo_seq(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eth + 1);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
	uint64_t seq;

	if (m->data_len < sizeof(*eth) + sizeof(*ip) + sizeof(*udp) + 16 ||
	    eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->next_proto_id != IPPROTO_UDP || udp->src_port != rte_cpu_to_be_16(ECHO_PORT))
		return UINT64_MAX;
	memcpy(&seq, udp + 1, sizeof(seq));
	return seq;
}

static void
run_pps(uint16_t port, struct rte_mempool *mp, const struct opts *o)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t sent = 0, got = 0, lost = 0, stalls = 0, seq = 0;
	uint64_t t0 = rte_rdtsc(), t_meas = t0 + hz, t_end = t_meas + o->secs * hz;
	uint64_t got_meas = 0, sent_meas = 0, lost_meas = 0, last_rx = t0, e0 = 0;
	bool measuring = false;
	struct rte_mbuf *tx[BURST], *rx[BURST];

	for (;;) {
		uint64_t now = rte_rdtsc(), inflight = sent - got - lost;
		uint16_t n, k, i;

		if (!measuring && now >= t_meas) {
			measuring = true;
			got_meas = got, sent_meas = sent, lost_meas = lost, e0 = echo_pkts;
		}
		if (now >= t_end)
			break;
		if (inflight < o->window) {
			n = (uint16_t)RTE_MIN((uint64_t)BURST, o->window - inflight);
			for (k = 0; k < n; k++) {
				tx[k] = build(mp, o->size, seq++);
				if (tx[k] == NULL)
					break;
			}
			i = rte_eth_tx_burst(port, 0, tx, k);
			sent += i;
			seq -= (uint64_t)(k - i);
			if (i < k)
				rte_pktmbuf_free_bulk(tx + i, k - i);
		}
		n = rte_eth_rx_burst(port, 0, rx, BURST);
		for (i = 0; i < n; i++)
			got += echo_seq(rx[i]) != UINT64_MAX;
		if (n != 0) {
			rte_pktmbuf_free_bulk(rx, n);
			last_rx = now;
		} else if (inflight != 0 && now - last_rx > hz / 20) {
			/* Nothing back for 50 ms: what is in flight is lost. */
			lost += inflight;
			stalls++;
			last_rx = now;
		}
	}
	printf("{\"dev\": \"%s\", \"mode\": \"pps\", \"size\": %u, \"window\": %u, \"secs\": %u, "
	       "\"echoes_per_s\": %.0f, \"sent\": %" PRIu64 ", \"echoed\": %" PRIu64
	       ", \"lost\": %" PRIu64 ", \"stalls\": %" PRIu64 ", \"kernel_echoed\": %" PRIu64
	       "}\n",
	       o->dev, o->size, o->window, o->secs, (double)(got - got_meas) / o->secs,
	       sent - sent_meas, got - got_meas, lost - lost_meas, stalls, echo_pkts - e0);
}

static int
cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
run_rtt(uint16_t port, struct rte_mempool *mp, const struct opts *o)
{
	const uint64_t hz = rte_get_tsc_hz();
	const unsigned int warm = 100;
	uint64_t *rtt = calloc(o->count, sizeof(*rtt));
	unsigned int s, n_ok = 0, lost = 0;
	struct rte_mbuf *rx[BURST], *m;
	double sum = 0;

	if (rtt == NULL)
		fail("out of memory");
	for (s = 0; s < warm + o->count; s++) {
		uint64_t t0, t1, deadline;
		bool back = false;

		m = build(mp, o->size, s);
		if (m == NULL)
			fail("mbuf pool empty");
		t0 = rte_rdtsc();
		if (rte_eth_tx_burst(port, 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			lost++;
			continue;
		}
		deadline = t0 + hz / 10;
		do {
			uint16_t n = rte_eth_rx_burst(port, 0, rx, BURST), i;

			t1 = rte_rdtsc();
			for (i = 0; i < n; i++)
				back |= echo_seq(rx[i]) == s;
			rte_pktmbuf_free_bulk(rx, n);
		} while (!back && t1 < deadline);
		if (!back) {
			lost++;
			continue;
		}
		if (s >= warm)
			rtt[n_ok++] = t1 - t0;
		rte_delay_us_block(20);
	}
	if (n_ok == 0)
		fail("no echo came back");
	qsort(rtt, n_ok, sizeof(*rtt), cmp_u64);
	for (s = 0; s < n_ok; s++)
		sum += (double)rtt[s];
#define US(c) ((double)(c)*1e6 / (double)hz)
	printf("{\"dev\": \"%s\", \"mode\": \"rtt\", \"size\": %u, \"samples\": %u, \"lost\": %u, "
	       "\"min_us\": %.2f, \"p50_us\": %.2f, \"p90_us\": %.2f, \"p99_us\": %.2f, "
	       "\"mean_us\": %.2f}\n",
	       o->dev, o->size, n_ok, lost, US(rtt[0]), US(rtt[n_ok / 2]),
	       US(rtt[(size_t)n_ok * 9 / 10]), US(rtt[(size_t)n_ok * 99 / 100]), US(sum / n_ok));
#undef US
	free(rtt);
}

static void
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "ifname", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, 'm' },
		{ "secs", required_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' },
		{ "size", required_argument, NULL, 'z' },
		{ "count", required_argument, NULL, 'n' },
		{ "echo-cpu", required_argument, NULL, 'e' },
		{ "setup", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .dev = "tap",
			    .ifname = "exb0",
			    .mode = "pps",
			    .secs = 5,
			    .window = 256,
			    .size = 64,
			    .count = 5000,
			    .echo_cpu = 0 };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'i':
			o->ifname = optarg;
			break;
		case 'm':
			o->mode = optarg;
			break;
		case 's':
			o->secs = (unsigned int)atoi(optarg);
			break;
		case 'w':
			o->window = (unsigned int)atoi(optarg);
			break;
		case 'z':
			o->size = (unsigned int)atoi(optarg);
			break;
		case 'n':
			o->count = (unsigned int)atoi(optarg);
			break;
		case 'e':
			o->echo_cpu = atoi(optarg);
			break;
		case 'u':
			o->setup = optarg;
			break;
		default:
			fail("bad option (see the header of bench/excbench.c)");
		}
	}
	if (o->size < 60 || o->size > 1514 || o->secs == 0 || o->window == 0 || o->count == 0)
		fail("--size must be 60..1514, --secs, --window and --count above 0");
}

int
main(int argc, char **argv)
{
	struct rte_eth_conf conf = { 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(ECHO_PORT) };
	struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
	char name[64], args[256];
	struct rte_mempool *mp;
	struct opts o;
	pthread_t echo;
	uint16_t port;
	int ret, rcvbuf = 8 << 20;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		fail(rte_strerror(rte_errno));
	parse(argc - ret, argv + ret, &o);
	if (strcmp(o.dev, "tap") == 0) {
		snprintf(name, sizeof(name), "net_tap_exb");
		snprintf(args, sizeof(args), "iface=%s,mac=" RTE_ETHER_ADDR_PRT_FMT, o.ifname,
			 RTE_ETHER_ADDR_BYTES(&kmac));
	} else if (strcmp(o.dev, "virtio") == 0) {
		snprintf(name, sizeof(name), "virtio_user_exb");
		snprintf(args, sizeof(args),
			 "path=/dev/vhost-net,queues=1,queue_size=%u,iface=%s,mac=" RTE_ETHER_ADDR_PRT_FMT,
			 RING, o.ifname, RTE_ETHER_ADDR_BYTES(&dmac));
	} else {
		fail("--dev is tap or virtio");
	}
	if (rte_eal_hotplug_add("vdev", name, args) != 0 ||
	    rte_eth_dev_get_port_by_name(name, &port) != 0) {
		fprintf(stderr, "excbench: cannot create %s,%s\n", name, args);
		return 1;
	}
	mp = rte_pktmbuf_pool_create("exb", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL)
		fail(rte_strerror(rte_errno));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, strcmp(o.dev, "tap") == 0 ? 2 : RING,
				   rte_eth_dev_socket_id(port), NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, RING, rte_eth_dev_socket_id(port), NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		fail("device setup failed");
	if (o.setup != NULL && system(o.setup) != 0)
		fail("--setup failed");

	echo_fd = socket(AF_INET, SOCK_DGRAM, 0);
	inet_pton(AF_INET, KERNEL_IP, &sa.sin_addr);
	setsockopt(echo_fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	setsockopt(echo_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (echo_fd < 0 || bind(echo_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		fail("cannot bind the echo socket to " KERNEL_IP);
	if (pthread_create(&echo, NULL, echo_main, &o.echo_cpu) != 0)
		fail("cannot start the echo thread");
	sleep(1); /* The kernel's own chatter (IPv6 autoconf) settles. */

	if (strcmp(o.mode, "pps") == 0)
		run_pps(port, mp, &o);
	else
		run_rtt(port, mp, &o);
	fflush(stdout);
	echo_quit = true;
	pthread_join(echo, NULL);
	close(echo_fd);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_hotplug_remove("vdev", name);
	rte_eal_cleanup();
	return 0;
}
