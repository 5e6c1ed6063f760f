/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [port] exception = kernel without DPDK: lanefwd's XDP program
 * (bpf/lanefwd_xdp.c, the object meson built) loaded and attached with
 * libbpf to two veth ends in a network namespace of the test's own
 * (unshare), as the AF_XDP PMD does; then xdp_kernel_setup() on them (it
 * must find the program's maps through the interface, fill them and put
 * the addresses on the interfaces, as the kernel reports them with
 * getifaddrs), every rule of the program run on crafted frames with
 * BPF_PROG_TEST_RUN (no socket is bound, so what lanefwd would get is
 * XDP_DROP), its counters through xdp_kernel_stats(), and
 * xdp_kernel_free() taking off only what it added. Needs root (77, SKIP,
 * without).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <netinet/in.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "config.h"
#include "lanefwd.h"
#include "xdp.h"

static struct lf_app app;
static struct bpf_object *objs[2];
static int prog_fd[2];
static char obj_path[PATH_MAX];

static void
addr(struct lf_ip_addr *a, const char *s, uint8_t plen)
{
	a->af = strchr(s, ':') != NULL ? 6 : 4;
	a->plen = plen;
	assert_int_equal(inet_pton(a->af == 4 ? AF_INET : AF_INET6, s, a->a), 1);
}

/* Is TEXT an address of interface IF (getifaddrs)? */
static bool
has_addr(const char *ifname, const char *text)
{
	struct ifaddrs *ifa, *i;
	char buf[INET6_ADDRSTRLEN];
	bool found = false;

	assert_int_equal(getifaddrs(&ifa), 0);
	for (i = ifa; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || strcmp(i->ifa_name, ifname) != 0)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf,
				  sizeof(buf));
		else if (i->ifa_addr->sa_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, buf,
				  sizeof(buf));
		else
			continue;
		found = strcmp(buf, text) == 0;
	}
	freeifaddrs(ifa);
	return found;
}

/* Load the object and attach its program to IF, as the PMD's xdp_prog= does. */
static void
attach(unsigned int i, const char *ifname)
{
	struct bpf_program *p;

	objs[i] = bpf_object__open_file(obj_path, NULL);
	assert_non_null(objs[i]);
	assert_int_equal(libbpf_get_error(objs[i]), 0);
	assert_int_equal(bpf_object__load(objs[i]), 0);
	p = bpf_object__next_program(objs[i], NULL);
	assert_non_null(p);
	assert_non_null(bpf_object__find_map_by_name(objs[i], LF_XDP_XSKS_MAP));
	prog_fd[i] = bpf_program__fd(p);
	assert_int_equal(bpf_xdp_attach((int)if_nametoindex(ifname), prog_fd[i], 0, NULL), 0);
}

/* Frames: Ethernet + IPv4/IPv6 header, all else zero. */
static size_t
frame4(uint8_t *f, const char *dst)
{
	memset(f, 0, 128);
	f[12] = 0x08;
	f[14] = 0x45;
	assert_int_equal(inet_pton(AF_INET, dst, &f[14 + 16]), 1);
	return 64;
}

static size_t
frame6(uint8_t *f, const char *dst, uint8_t icmp6_type)
{
	memset(f, 0, 128);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[14 + 6] = 58;
	assert_int_equal(inet_pton(AF_INET6, dst, &f[14 + 24]), 1);
	f[54] = icmp6_type;
	return 90;
}

static int
run(unsigned int i, uint8_t *f, size_t len)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = (uint32_t)len, .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(prog_fd[i], &o), 0);
	return (int)o.retval;
}

static void
test_no_program(void **state)
{
	char err[LF_ERR_LEN] = "";

	(void)state;
	assert_int_equal(xdp_kernel_setup(&app, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "[port p0]: exception = kernel: no XDP program on ut-x0"));
}

static void
test_setup_and_rules(void **state)
{
	uint64_t st[LF_XDP_STAT_COUNT];
	char err[LF_ERR_LEN] = "";
	uint8_t f[128];
	int pass = 0, drop = 0;

	(void)state;
	attach(0, "ut-x0");
	attach(1, "ut-x1");
	assert_int_equal(xdp_kernel_setup(&app, err, sizeof(err)), 0);

	/* The addresses, as the kernel has them: the port's own and, with
	 * IPv6 in use, the EUI-64 link-local of 02:00:0b:0b:01:01. */
	assert_true(has_addr("ut-x0", "10.20.1.1"));
	assert_true(has_addr("ut-x0", "fd20:1::1"));
	assert_true(has_addr("ut-x0", "fe80::bff:fe0b:101"));
	assert_true(has_addr("ut-x1", "10.20.2.1"));
	assert_false(has_addr("ut-x0", "10.20.2.1"));

	/* Through p0's program (XDP_PASS 2, and with no socket bound
	 * anything for lanefwd is XDP_DROP 1). */
	memset(f, 0, sizeof(f));
	f[12] = 0x08, f[13] = 0x06;
	assert_int_equal(run(0, f, 42), XDP_PASS);
	assert_int_equal(run(0, f, frame4(f, "10.20.1.1")), XDP_PASS);
	assert_int_equal(run(0, f, frame4(f, "10.20.2.1")), XDP_PASS); /* p1's: weak host */
	assert_int_equal(run(0, f, frame4(f, "10.20.1.255")), XDP_PASS); /* p0's broadcast */
	assert_int_equal(run(0, f, frame4(f, "255.255.255.255")), XDP_PASS);
	assert_int_equal(run(0, f, frame4(f, "224.0.0.5")), XDP_PASS);
	pass = 6;
	assert_int_equal(run(0, f, frame4(f, "10.20.2.3")), XDP_DROP); /* p1's broadcast */
	assert_int_equal(run(0, f, frame4(f, "10.20.2.2")), XDP_DROP); /* transit */
	assert_int_equal(run(0, f, frame4(f, "224.0.1.1")), XDP_DROP);
	assert_int_equal(run(0, f, 14 + 19), XDP_DROP); /* IPv4 header cut short */
	frame4(f, "10.20.1.1");
	f[12] = 0x81, f[13] = 0x00; /* VLAN-tagged: lanefwd's */
	assert_int_equal(run(0, f, 64), XDP_DROP);
	/* Shorter than an Ethernet header BPF_PROG_TEST_RUN refuses (EINVAL). */
	drop = 5;
	assert_int_equal(run(0, f, frame6(f, "fd20:9::9", 135)), XDP_PASS); /* NS */
	assert_int_equal(run(0, f, frame6(f, "fd20:9::9", 133)), XDP_PASS); /* RS */
	assert_int_equal(run(0, f, frame6(f, "fd20:9::9", 137)), XDP_PASS); /* redirect */
	assert_int_equal(run(0, f, frame6(f, "fd20:1::1", 128)), XDP_PASS);
	assert_int_equal(run(0, f, frame6(f, "fe80::bff:fe0b:101", 128)), XDP_PASS);
	assert_int_equal(run(0, f, frame6(f, "ff02::1", 128)), XDP_PASS);
	pass += 6;
	assert_int_equal(run(0, f, frame6(f, "fd20:9::9", 138)), XDP_DROP);
	assert_int_equal(run(0, f, frame6(f, "fd20:9::9", 128)), XDP_DROP);
	assert_int_equal(run(0, f, frame6(f, "fe80::1", 128)), XDP_DROP); /* not ours */
	assert_int_equal(run(0, f, frame6(f, "ff05::1", 128)), XDP_DROP);
	assert_int_equal(run(0, f, 14 + 39), XDP_DROP); /* IPv6 header cut short */
	drop += 5;

	/* p1's program has p1's own broadcast and no IPv6 link-local (p1 has
	 * no IPv6 address), but p0's addresses (weak host). */
	assert_int_equal(run(1, f, frame4(f, "10.20.2.3")), XDP_PASS);
	assert_int_equal(run(1, f, frame4(f, "10.20.1.1")), XDP_PASS);
	assert_int_equal(run(1, f, frame4(f, "10.20.1.255")), XDP_DROP);
	assert_int_equal(run(1, f, frame6(f, "fd20:1::1", 128)), XDP_PASS);

	/* Counters of p0's program. */
	assert_int_equal(xdp_kernel_stats(0, st), 0);
	assert_int_equal(st[LF_XDP_PASS_ARP], 1);
	assert_int_equal(st[LF_XDP_PASS_ND], 3);
	assert_int_equal(st[LF_XDP_PASS_LOCAL], pass - 4);
	assert_int_equal(st[LF_XDP_REDIRECT], 0);
	assert_int_equal(st[LF_XDP_DROP_NO_XSK], drop);
	assert_int_equal(xdp_kernel_stats(1, st), 0);
	assert_int_equal(st[LF_XDP_PASS_LOCAL], 3);
	assert_int_equal(st[LF_XDP_DROP_NO_XSK], 1);
	assert_int_equal(xdp_kernel_stats(2, st), -ENOENT);
	assert_string_equal(lf_xdp_stat_names[LF_XDP_DROP_NO_XSK], "drop_no_xsk");

	/* Free: lanefwd's addresses go, the one that was there before stays. */
	xdp_kernel_free(&app);
	assert_false(has_addr("ut-x0", "10.20.1.1"));
	assert_false(has_addr("ut-x0", "fd20:1::1"));
	assert_true(has_addr("ut-x1", "10.20.2.1"));
	assert_int_equal(xdp_kernel_stats(0, st), -ENOENT);
	xdp_kernel_free(&app); /* twice: nothing left to do */
}

/* config_eal_args() adds xdp_prog= with the build tree's object: this test
 * runs from the build tree. A port without exception = kernel keeps its
 * devargs as written. */
static void
test_eal_args(void **state)
{
	struct lf_config cfg;
	char *argv[64], buf[4096], want[PATH_MAX + 64], *real;
	int argc, i, found = 0;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.n_ports = 2;
	snprintf(cfg.ports[0].devargs, sizeof(cfg.ports[0].devargs), "net_af_xdp0,iface=ut-x0");
	cfg.ports[0].exception = LF_EXC_KERNEL;
	snprintf(cfg.ports[1].devargs, sizeof(cfg.ports[1].devargs), "net_af_xdp1,iface=ut-x1");
	real = realpath(obj_path, NULL);
	assert_non_null(real);
	snprintf(want, sizeof(want), "net_af_xdp0,iface=ut-x0,xdp_prog=%s", real);
	free(real);
	argc = config_eal_args(&cfg, (char *)"lanefwd", argv, 64, buf, sizeof(buf));
	assert_true(argc > 0);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i - 1], "--vdev") != 0)
			continue;
		if (found == 0)
			assert_string_equal(argv[i], want);
		else
			assert_string_equal(argv[i], "net_af_xdp1,iface=ut-x1");
		found++;
	}
	assert_int_equal(found, 2);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eal_args),
		cmocka_unit_test(test_no_program),
		cmocka_unit_test(test_setup_and_rules),
	};
	char exe[PATH_MAX], *slash;
	ssize_t n;

	(void)argc, (void)argv;
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (BPF, a network namespace)\n");
		return 77;
	}
	/* The object meson built: BUILD/bpf/, this test being BUILD/tests/unit/. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	if ((size_t)snprintf(obj_path, sizeof(obj_path), "%.*s/../../bpf/lanefwd_xdp.o",
			     PATH_MAX - 64, exe) >= sizeof(obj_path))
		return 1;
	if (access(obj_path, R_OK) != 0) {
		fprintf(stderr, "%s: %s\n", obj_path, strerror(errno));
		return 1;
	}
	if (unshare(CLONE_NEWNET) != 0) {
		fprintf(stderr, "SKIP: unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return 77;
	}
	/* ut-x1 carries 10.20.2.1/30 before lanefwd: xdp_kernel_free must
	 * leave it. The peers stay down: nothing they would send (DAD, MLD,
	 * router solicitations) reaches the programs and their counters. */
	if (system("set -e; ip link set lo up;"
		   "ip link add ut-x0 address 02:00:0b:0b:01:01 numtxqueues 1 numrxqueues 1"
		   " type veth peer name ut-y0 numtxqueues 1 numrxqueues 1;"
		   "ip link add ut-x1 address 02:00:0b:0b:02:01 numtxqueues 1 numrxqueues 1"
		   " type veth peer name ut-y1 numtxqueues 1 numrxqueues 1;"
		   "sysctl -qw net.ipv6.conf.ut-x1.disable_ipv6=1;"
		   "ip addr add 10.20.2.1/30 dev ut-x1;"
		   "ip link set ut-x0 up; ip link set ut-x1 up") != 0) {
		fprintf(stderr, "cannot make the veth pairs\n");
		return 1;
	}
	app.cfg.n_ports = 2;
	snprintf(app.cfg.ports[0].section, sizeof(app.cfg.ports[0].section), "port p0");
	snprintf(app.cfg.ports[0].exception_if, sizeof(app.cfg.ports[0].exception_if), "ut-x0");
	app.cfg.ports[0].exception = LF_EXC_KERNEL;
	app.cfg.ports[0].n_addrs = 2;
	snprintf(app.cfg.ports[1].section, sizeof(app.cfg.ports[1].section), "port p1");
	snprintf(app.cfg.ports[1].exception_if, sizeof(app.cfg.ports[1].exception_if), "ut-x1");
	app.cfg.ports[1].exception = LF_EXC_KERNEL;
	app.cfg.ports[1].n_addrs = 1;
	{
		struct lf_ip_addr *a0 = app.cfg.ports[0].addr, *a1 = app.cfg.ports[1].addr;
		static const struct rte_ether_addr m0 = { { 0x02, 0x00, 0x0b, 0x0b, 0x01, 0x01 } };
		static const struct rte_ether_addr m1 = { { 0x02, 0x00, 0x0b, 0x0b, 0x02, 0x01 } };

		addr(&a0[0], "10.20.1.1", 24);
		addr(&a0[1], "fd20:1::1", 64);
		addr(&a1[0], "10.20.2.1", 30);
		app.ports[0].mac = m0;
		app.ports[1].mac = m1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
