/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TAP mirrors (exception.c) against the real net_tap PMD and the real
 * kernel, in a network namespace of the test's own (unshare), so nothing
 * shows on the host: the mirror's MAC, MTU, flags and addresses as the
 * kernel reports them (ioctl, getifaddrs), exception_kernel_setup run twice,
 * the queue steering (every frame the kernel sends lands on RX queue 0, the
 * one worker 0 polls, though the mirror has a queue per worker), a name that
 * is taken, and the interface gone after exception_free. Needs root (77,
 * SKIP, without).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <netinet/in.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "exception.h"
#include "lanefwd.h"

#define TAP_NAME "ut-t0"
#define UDP_DPORT 9999
#define FLOWS 32

static struct lf_app app;

static void
addr4(struct lf_ip_addr *a, const char *s, uint8_t plen)
{
	a->af = 4;
	a->plen = plen;
	assert_int_equal(inet_pton(AF_INET, s, a->a), 1);
}

static void
addr6(struct lf_ip_addr *a, const char *s, uint8_t plen)
{
	a->af = 6;
	a->plen = plen;
	assert_int_equal(inet_pton(AF_INET6, s, a->a), 1);
}

/* Port p0 with a TAP mirror, p1 without; two workers. */
static void
app_init(void)
{
	struct lf_config *cfg = &app.cfg;
	struct lf_port_conf *p0 = &cfg->ports[0], *p1 = &cfg->ports[1];
	const struct rte_ether_addr mac = { { 0x02, 0x00, 0x00, 0x30, 0x00, 0x01 } };

	memset(&app, 0, sizeof(app));
	cfg->n_ports = 2;
	cfg->n_workers = 2;
	cfg->workers[0].lcore = rte_get_main_lcore();
	cfg->workers[1].lcore = rte_get_main_lcore();
	snprintf(p0->name, sizeof(p0->name), "p0");
	p0->exception = LF_EXC_TAP;
	snprintf(p0->exception_if, sizeof(p0->exception_if), TAP_NAME);
	p0->mtu = 1400;
	p0->n_addrs = 2;
	addr4(&p0->addr[0], "10.30.1.1", 24);
	addr6(&p0->addr[1], "fd00:30::1", 64);
	snprintf(p1->name, sizeof(p1->name), "p1");
	p1->mtu = 1500;
	app.ports[0].mac = mac;
	app.ports[1].mac = mac;
	app.ports[1].mac.addr_bytes[5] = 2;
	app.pools[0] = rte_mempool_lookup("ut_exc");
}

static int
if_ioctl(unsigned long req, struct ifreq *ifr)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret;

	assert_true(s >= 0);
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", TAP_NAME);
	ret = ioctl(s, req, ifr);
	close(s);
	return ret;
}

static void
test_create_and_kernel_side(void **state)
{
	char err[LF_ERR_LEN] = "";
	struct rte_eth_dev_info info;
	struct ifaddrs *ifs, *i;
	bool has4 = false, has6 = false;
	struct ifreq ifr;
	int k;

	(void)state;
	app_init();
	assert_int_equal(exception_ports_create(&app, err, sizeof(err)), 0);
	assert_int_equal(app.n_exc, 1);
	assert_int_equal(app.exc_of[0], 0);
	assert_int_equal(app.exc_port[0], 2);
	assert_int_equal(app.exc_port[1], LF_NH_INVALID);
	assert_int_equal(app.exc_port[LF_MAX_PORTS - 1], LF_NH_INVALID);
	assert_true(app.ports[2].started);
	assert_string_equal(app.ports[2].driver, "net_tap");
	assert_memory_equal(&app.ports[2].mac, &app.ports[0].mac, sizeof(app.ports[0].mac));
	assert_int_equal(rte_eth_dev_info_get(app.ports[2].port_id, &info), 0);
	assert_int_equal(info.nb_rx_queues, 2);
	assert_int_equal(info.nb_tx_queues, 2);

	/* The kernel's view, before and after exception_kernel_setup (twice). */
	assert_int_equal(if_ioctl(SIOCGIFHWADDR, &ifr), 0);
	assert_memory_equal(ifr.ifr_hwaddr.sa_data, app.ports[0].mac.addr_bytes, 6);
	assert_int_equal(if_ioctl(SIOCGIFMTU, &ifr), 0);
	assert_int_equal(ifr.ifr_mtu, 1400);
	for (k = 0; k < 2; k++)
		assert_int_equal(exception_kernel_setup(&app, err, sizeof(err)), 0);
	assert_int_equal(if_ioctl(SIOCGIFFLAGS, &ifr), 0);
	assert_true(ifr.ifr_flags & IFF_UP);
	assert_int_equal(getifaddrs(&ifs), 0);
	for (i = ifs; i != NULL; i = i->ifa_next) {
		char a[INET6_ADDRSTRLEN] = "", m[INET6_ADDRSTRLEN] = "", b[INET6_ADDRSTRLEN] = "";

		if (i->ifa_addr == NULL || strcmp(i->ifa_name, TAP_NAME) != 0)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a,
				  sizeof(a));
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_netmask)->sin_addr, m,
				  sizeof(m));
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_broadaddr)->sin_addr, b,
				  sizeof(b));
			assert_string_equal(a, "10.30.1.1");
			assert_string_equal(m, "255.255.255.0");
			assert_string_equal(b, "10.30.1.255");
			has4 = true;
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a,
				  sizeof(a));
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr, m,
				  sizeof(m));
			if (strcmp(a, "fd00:30::1") == 0) {
				assert_string_equal(m, "ffff:ffff:ffff:ffff::");
				has6 = true;
			}
		}
	}
	freeifaddrs(ifs);
	assert_true(has4);
	assert_true(has6);
}

/* Frames on RX queue q of the mirror; *ours counts our UDP datagrams. */
static unsigned int
rx_count(uint16_t q, unsigned int *ours)
{
	struct rte_mbuf *m[32];
	unsigned int total = 0;
	uint16_t n, j;

	while ((n = rte_eth_rx_burst(app.ports[2].port_id, q, m, RTE_DIM(m))) != 0) {
		for (j = 0; j < n; j++) {
			const struct rte_ipv4_hdr *ip =
				rte_pktmbuf_mtod_offset(m[j], struct rte_ipv4_hdr *, 14);
			const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
			const uint16_t et = *rte_pktmbuf_mtod_offset(m[j], uint16_t *, 12);

			if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
			    ip->next_proto_id == IPPROTO_UDP &&
			    udp->dst_port == rte_cpu_to_be_16(UDP_DPORT))
				(*ours)++;
		}
		total += n;
		rte_pktmbuf_free_bulk(m, n);
	}
	return total;
}

/*
 * FLOWS datagrams from as many sockets (source ports) to the subnet
 * broadcast: without steering the kernel spreads new flows over both
 * queues by hash (about half on each); with it they all land on queue 0.
 */
static void
test_steering_to_queue0(void **state)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(UDP_DPORT) };
	unsigned int q0 = 0, q1 = 0, ours0 = 0, ours1 = 0, f;
	int one = 1, t;

	(void)state;
	assert_int_equal(app.n_exc, 1);
	inet_pton(AF_INET, "10.30.1.255", &dst.sin_addr);
	for (f = 0; f < FLOWS; f++) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);

		assert_true(s >= 0);
		assert_int_equal(setsockopt(s, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)), 0);
		assert_int_equal(sendto(s, "x", 1, 0, (struct sockaddr *)&dst, sizeof(dst)), 1);
		close(s);
	}
	/* net_tap reads on the kernel's signal; give it a moment. */
	for (t = 0; t < 100 && ours0 + ours1 < FLOWS; t++) {
		q0 += rx_count(0, &ours0);
		q1 += rx_count(1, &ours1);
		usleep(10000);
	}
	print_message("queue 0: %u frames (%u of our %u datagrams), queue 1: %u frames (%u)\n", q0,
		      ours0, FLOWS, q1, ours1);
	assert_int_equal(ours0, FLOWS);
	assert_int_equal(q1, 0);
}

static void
test_free_and_taken_name(void **state)
{
	char err[LF_ERR_LEN] = "";
	struct ifreq ifr;
	int fd;

	(void)state;
	exception_free(&app);
	assert_int_equal(app.n_exc, 0);
	assert_int_equal(app.exc_port[0], LF_NH_INVALID);
	assert_int_equal(if_nametoindex(TAP_NAME), 0);

	/* A TAP of that name held by someone else: refused, naming both. */
	fd = open("/dev/net/tun", O_RDWR);
	assert_true(fd >= 0);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", TAP_NAME);
	assert_int_equal(ioctl(fd, TUNSETIFF, &ifr), 0);
	app_init();
	assert_int_equal(exception_ports_create(&app, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "[port p0] exception_if = " TAP_NAME));
	assert_int_equal(app.n_exc, 0);
	assert_int_equal(app.exc_port[0], LF_NH_INVALID);
	close(fd);
	exception_free(&app);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_kernel_side),
		cmocka_unit_test(test_steering_to_queue0),
		cmocka_unit_test(test_free_and_taken_name),
	};
	char lcore[16];
	char *argv[] = {
		"test_exception",
		"--no-huge",
		"-m",
		"256",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_exception",
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	cpu_set_t cpus;
	int cpu = 0, ret;

	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (a network namespace and a TAP)\n");
		return 77;
	}
	/* Before EAL: its threads then live in the test's namespace too. */
	if (unshare(CLONE_NEWNET) != 0) {
		fprintf(stderr, "SKIP: unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return 77;
	}
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	if (rte_pktmbuf_pool_create("ut_exc", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0) == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return ret;
}
