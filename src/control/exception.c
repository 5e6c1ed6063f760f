/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exception path's TAP mirrors (exception.h): one net_tap port per
 * [port] exception = tap, and its kernel side (addresses, MTU, up) set over
 * rtnetlink with libmnl. exception = kernel ports have no mirror here: their
 * own interface is the kernel side (xdp.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/bpf.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>

#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "exception.h"
#include "lanefwd.h"
#include "lf_log.h"
#include "port.h"

/* Device names of the mirrors, for rte_eal_hotplug_remove (net_tap_lf<i>). */
static char exc_vdev[LF_MAX_PORTS][RTE_DEV_NAME_MAX_LEN];

static void
tap_remove(const char *vdev)
{
	uint16_t id;

	if (rte_eth_dev_get_port_by_name(vdev, &id) == 0) {
		rte_eth_dev_stop(id);
		rte_eth_dev_close(id);
	}
	rte_eal_hotplug_remove("vdev", vdev);
}

/*
 * net_tap's queues are queues of one multi-queue tun device, and the kernel
 * spreads what it sends over them by flow (the queue a flow was last written
 * from). Worker 0 polls queue 0 only, so a socket filter program that returns
 * 0 steers every frame there (TUNSETSTEERINGEBPF: the device's queue is the
 * program's return value modulo the queue count). The program is set through
 * any of the device's queue file descriptors; net_tap keeps them to itself,
 * so they are found among the process's /dev/net/tun descriptors by name.
 */
static int
tap_steer_queue0(const char *ifname, char *err, size_t errlen)
{
	struct bpf_insn prog[2];
	union bpf_attr attr;
	struct dirent *de;
	int pfd, ret = -ENOENT;
	DIR *dir;

	memset(prog, 0, sizeof(prog));
	prog[0].code = BPF_ALU64 | BPF_MOV | BPF_K; /* r0 = 0 */
	prog[0].dst_reg = BPF_REG_0;
	prog[1].code = BPF_JMP | BPF_EXIT;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = RTE_DIM(prog);
	attr.license = (uintptr_t) "BSD";
	pfd = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (pfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot load the TAP queue steering program: %s",
			 strerror(errno));
		return ret;
	}
	dir = opendir("/proc/self/fd");
	if (dir == NULL) {
		ret = -errno;
		snprintf(err, errlen, "/proc/self/fd: %s", strerror(errno));
		close(pfd);
		return ret;
	}
	while (ret == -ENOENT && (de = readdir(dir)) != NULL) {
		char path[sizeof(de->d_name) + 16], target[32];
		struct ifreq ifr;
		ssize_t n;
		int fd = atoi(de->d_name);

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || fd == dirfd(dir))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		memset(&ifr, 0, sizeof(ifr));
		if (strcmp(target, "/dev/net/tun") != 0 || ioctl(fd, TUNGETIFF, &ifr) != 0 ||
		    strncmp(ifr.ifr_name, ifname, IFNAMSIZ) != 0)
			continue;
		ret = ioctl(fd, TUNSETSTEERINGEBPF, &pfd) == 0 ? 0 : -errno;
		if (ret != 0)
			snprintf(err, errlen, "TUNSETSTEERINGEBPF on %s: %s", ifname,
				 strerror(-ret));
	}
	closedir(dir);
	close(pfd); /* The device holds its own reference. */
	if (ret == -ENOENT)
		snprintf(err, errlen, "no open queue of TAP %s found in /proc/self/fd", ifname);
	return ret;
}

/*
 * One mirror of configured port p as port index a->cfg.n_ports + i: a TAP
 * named exception_if with the port's MAC, as many RX as TX queues (net_tap
 * insists on it) and one TX queue per worker. Only RX queue 0 is polled, by
 * worker 0; the others hold LF_EXC_RX_DESC mbufs each and get nothing.
 */
static int
tap_create(struct lf_app *a, unsigned int p, unsigned int i, char *err, size_t errlen)
{
	const struct lf_port_conf *pc = &a->cfg.ports[p];
	const struct rte_ether_addr *mac = &a->ports[p].mac;
	const unsigned int idx = a->cfg.n_ports + i;
	const int s = port_lcore_socket(a->cfg.workers[0].lcore);
	struct lf_port *port = &a->ports[idx];
	const uint16_t nq = (uint16_t)a->cfg.n_workers;
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	char args[128];
	uint16_t id, q;
	int ret;

	/* net_tap would attach to a TAP of that name left by someone else. */
	if (if_nametoindex(pc->exception_if) != 0) {
		snprintf(err, errlen,
			 "[port %s] exception_if = %s: an interface of that name exists already",
			 pc->name, pc->exception_if);
		return -EEXIST;
	}
	snprintf(exc_vdev[i], sizeof(exc_vdev[i]), "net_tap_lf%u", i);
	snprintf(args, sizeof(args), "iface=%s,mac=" RTE_ETHER_ADDR_PRT_FMT, pc->exception_if,
		 RTE_ETHER_ADDR_BYTES(mac));
	ret = rte_eal_hotplug_add("vdev", exc_vdev[i], args);
	if (ret != 0) {
		snprintf(err, errlen, "[port %s] exception = tap: cannot create %s (%s): %s",
			 pc->name, pc->exception_if, args, strerror(ret < 0 ? -ret : ret));
		exc_vdev[i][0] = '\0';
		return ret < 0 ? ret : -ret;
	}
	ret = rte_eth_dev_get_port_by_name(exc_vdev[i], &id);
	if (ret != 0)
		goto fail_call;
	ret = rte_eth_dev_info_get(id, &info);
	if (ret != 0)
		goto fail_call;
	if (nq > info.max_rx_queues || nq > info.max_tx_queues) {
		snprintf(err, errlen,
			 "[port %s] exception = tap: %u workers need %u TX queues on %s, net_tap has %u",
			 pc->name, nq, nq, pc->exception_if, info.max_tx_queues);
		ret = -EINVAL;
		goto fail;
	}
	conf.rxmode.mtu = pc->mtu;
	ret = rte_eth_dev_configure(id, nq, nq, &conf);
	if (ret != 0)
		goto fail_call;
	/* configure only records the MTU; net_tap sets the kernel's here. */
	ret = rte_eth_dev_set_mtu(id, pc->mtu);
	if (ret != 0)
		goto fail_call;
	/* Queue 0 first: the tun device's queue 0 is the first one attached. */
	for (q = 0; q < nq; q++) {
		ret = rte_eth_rx_queue_setup(id, q, LF_EXC_RX_DESC, s, NULL, a->pools[s]);
		if (ret != 0)
			goto fail_call;
	}
	for (q = 0; q < nq; q++) {
		ret = rte_eth_tx_queue_setup(id, q, 512, s, NULL);
		if (ret != 0)
			goto fail_call;
	}
	ret = rte_eth_dev_start(id);
	if (ret != 0)
		goto fail_call;
	if (nq > 1) {
		ret = tap_steer_queue0(pc->exception_if, err, errlen);
		if (ret != 0) {
			char why[LF_ERR_LEN / 2];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "[port %s] exception = tap: %s", pc->name, why);
			goto fail;
		}
	}
	port->port_id = id;
	port->socket = rte_eth_dev_socket_id(id);
	port->mac = *mac;
	port->started = true;
	snprintf(port->driver, sizeof(port->driver), "%s", info.driver_name);
	port->prefetch_distance = lf_port_prefetch_distance(&a->cfg.pipeline, port->driver, args);
	a->exc_of[i] = (uint16_t)p;
	a->exc_port[p] = (uint16_t)idx;
	a->n_exc = i + 1;
	LF_LOG(INFO, port,
	       "port %s: kernel mirror %s (ethdev %u, %s, port index %u): MAC " RTE_ETHER_ADDR_PRT_FMT
	       ", MTU %u, %u RX / TX queues, RX queue 0 polled by worker lcore %u",
	       pc->name, pc->exception_if, id, info.driver_name, idx, RTE_ETHER_ADDR_BYTES(mac),
	       pc->mtu, nq, a->cfg.workers[0].lcore);
	return 0;

fail_call:
	snprintf(err, errlen, "[port %s] exception = tap: setting up %s failed: %s", pc->name,
		 pc->exception_if, strerror(ret < 0 ? -ret : ret));
	ret = ret < 0 ? ret : -ret;
fail:
	tap_remove(exc_vdev[i]);
	exc_vdev[i][0] = '\0';
	return ret;
}

int
exception_ports_create(struct lf_app *a, char *err, size_t errlen)
{
	unsigned int p;
	int ret;

	a->n_exc = 0;
	for (p = 0; p < LF_MAX_PORTS; p++)
		a->exc_port[p] = LF_NH_INVALID;
	for (p = 0; p < a->cfg.n_ports; p++) {
		if (a->cfg.ports[p].exception != LF_EXC_TAP)
			continue;
		ret = tap_create(a, p, a->n_exc, err, errlen);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------ rtnetlink */

/* One request, its ACK read back: 0 or -errno. */
static int
nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh, uint32_t seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	ssize_t n;
	int ret;

	nlh->nlmsg_seq = seq;
	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, n, seq, mnl_socket_get_portid(nl), NULL, NULL);
		if (ret <= MNL_CB_STOP)
			return ret < 0 ? -errno : 0;
	}
}

static void
addr_text(const struct lf_ip_addr *ad, char *s, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(ad->af == 4 ? AF_INET : AF_INET6, ad->a, ip, sizeof(ip));
	snprintf(s, len, "%s/%u", ip, ad->plen);
}

/*
 * Put one address on ifindex. NLM_F_REPLACE makes it idempotent. IPv4 gets
 * its subnet broadcast, as `ip address add ... brd +` does. IPv6 skips DAD:
 * the address is lanefwd's port's, which answers ND for it; DAD on the
 * mirror would only probe through lanefwd itself, and leave the address
 * tentative (unusable) for a second or more.
 */
static int
nl_addr_set(struct mnl_socket *nl, unsigned int ifindex, const struct lf_ip_addr *ad, uint32_t seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;

	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = ad->af == 4 ? AF_INET : AF_INET6;
	ifa->ifa_prefixlen = ad->plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	if (ad->af == 4) {
		uint32_t a4, bcast;

		memcpy(&a4, ad->a, 4);
		mnl_attr_put(nlh, IFA_LOCAL, 4, &a4);
		mnl_attr_put(nlh, IFA_ADDRESS, 4, &a4);
		if (ad->plen <= 30) {
			bcast = a4 |
				htonl(ad->plen == 0 ? UINT32_MAX : (1u << (32 - ad->plen)) - 1);
			mnl_attr_put(nlh, IFA_BROADCAST, 4, &bcast);
		}
	} else {
		ifa->ifa_flags = IFA_F_NODAD;
		mnl_attr_put(nlh, IFA_LOCAL, 16, ad->a);
		mnl_attr_put(nlh, IFA_ADDRESS, 16, ad->a);
		mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
	}
	return nl_talk(nl, nlh, seq);
}

/* MTU and IFF_UP on ifindex (idempotent). */
static int
nl_link_set(struct mnl_socket *nl, unsigned int ifindex, uint32_t mtu, uint32_t seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	return nl_talk(nl, nlh, seq);
}

/* The kernel side of configured port p's mirror: MTU, up, every [port] address. */
static int
kernel_if_setup(struct mnl_socket *nl, const struct lf_port_conf *pc, uint32_t *seq, char *err,
		size_t errlen)
{
	unsigned int ifindex = if_nametoindex(pc->exception_if);
	unsigned int k;
	int ret;

	if (ifindex == 0) {
		ret = -errno;
		snprintf(err, errlen, "[port %s] exception_if %s: %s", pc->name, pc->exception_if,
			 strerror(errno));
		return ret;
	}
	ret = nl_link_set(nl, ifindex, pc->mtu, (*seq)++);
	if (ret != 0) {
		snprintf(err, errlen, "[port %s] exception_if %s: MTU %u and up: %s", pc->name,
			 pc->exception_if, pc->mtu, strerror(-ret));
		return ret;
	}
	for (k = 0; k < pc->n_addrs; k++) {
		char text[INET6_ADDRSTRLEN + 8];

		ret = nl_addr_set(nl, ifindex, &pc->addr[k], (*seq)++);
		if (ret != 0) {
			addr_text(&pc->addr[k], text, sizeof(text));
			snprintf(err, errlen, "[port %s] exception_if %s: address %s: %s", pc->name,
				 pc->exception_if, text, strerror(-ret));
			return ret;
		}
	}
	LF_LOG(INFO, port, "port %s: %s is up, MTU %u, %u addresses", pc->name, pc->exception_if,
	       pc->mtu, pc->n_addrs);
	return 0;
}

int
exception_kernel_setup(struct lf_app *a, char *err, size_t errlen)
{
	struct mnl_socket *nl;
	uint32_t seq = (uint32_t)time(NULL);
	unsigned int i;
	int ret = 0;

	if (a->n_exc == 0)
		return 0;
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (nl == NULL || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		snprintf(err, errlen, "exception path: rtnetlink socket: %s", strerror(errno));
		if (nl != NULL)
			mnl_socket_close(nl);
		return ret;
	}
	for (i = 0; i < a->n_exc && ret == 0; i++)
		ret = kernel_if_setup(nl, &a->cfg.ports[a->exc_of[i]], &seq, err, errlen);
	mnl_socket_close(nl);
	return ret;
}

void
exception_free(struct lf_app *a)
{
	unsigned int i;

	for (i = 0; i < a->n_exc; i++) {
		struct lf_port *port = &a->ports[a->cfg.n_ports + i];

		if (exc_vdev[i][0] == '\0')
			continue;
		/* Closing net_tap's queues removes the kernel interface. */
		tap_remove(exc_vdev[i]);
		exc_vdev[i][0] = '\0';
		port->started = false;
		a->exc_port[a->exc_of[i]] = LF_NH_INVALID;
	}
	a->n_exc = 0;
}
