/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * [port] exception = kernel (xdp.h): lanefwd's XDP program's maps, found
 * through the program attached to the interface, and the port's addresses
 * on the interface. The AF_XDP PMD owns the program (it loads, attaches and
 * detaches it, and fills xsks_map); lanefwd only fills lf_local_addrs and
 * reads lf_xdp_stats. Control thread only.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libmnl/libmnl.h>

#include "config.h"
#include "lanefwd.h"
#include "lf_log.h"
#include "neigh_core.h"
#include "xdp.h"

/* Maps the program may use: its three and room for what a later one adds. */
#define XDP_MAX_MAP_IDS 16

struct xdp_port {
	bool active; /**< Set up: the descriptors below are open. */
	int ifindex;
	int addrs_fd; /**< lf_local_addrs */
	int stats_fd; /**< lf_xdp_stats */
	unsigned int n_added;
	/** Addresses lanefwd put on the interface: [port] address and its link-local. */
	struct lf_ip_addr added[LF_PORT_MAX_ADDRS + 1];
};

static struct xdp_port xdp_ports[LF_MAX_PORTS];

const char *const lf_xdp_stat_names[LF_XDP_STAT_COUNT] = {
#define LF_XDP_STAT_NAME(e, n) n,
	LF_XDP_STATS(LF_XDP_STAT_NAME)
#undef LF_XDP_STAT_NAME
};

static bool
ip6_is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

int
lf_if_addr_change(int ifindex, const struct lf_ip_addr *ad, bool add, char *err, size_t errlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	unsigned int seq = (unsigned int)time(NULL), portid;
	size_t alen = ad->af == 4 ? 4 : 16;
	ssize_t n;
	int ret = 0;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (nl == NULL || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		snprintf(err, errlen, "rtnetlink socket: %s", strerror(errno));
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	nlh->nlmsg_seq = seq;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = ad->af == 4 ? AF_INET : AF_INET6;
	ifa->ifa_prefixlen = ad->plen;
	/* The router's addresses answer at once: lanefwd's own ND answers
	 * for them without DAD on its other ports as well. */
	ifa->ifa_flags = ad->af == 6 ? IFA_F_NODAD : 0;
	ifa->ifa_scope =
		ad->af == 6 && ip6_is_link_local(ad->a) ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned int)ifindex;
	mnl_attr_put(nlh, IFA_ADDRESS, alen, ad->a);
	if (ad->af == 4) {
		mnl_attr_put(nlh, IFA_LOCAL, alen, ad->a);
		if (ad->plen <= 30) {
			uint32_t a4, bc;

			memcpy(&a4, ad->a, 4);
			bc = a4 | htonl(UINT32_MAX >> ad->plen);
			mnl_attr_put_u32(nlh, IFA_BROADCAST, bc);
		}
	}
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		snprintf(err, errlen, "rtnetlink send: %s", strerror(errno));
		goto out;
	}
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0 || mnl_cb_run(buf, (size_t)n, seq, portid, NULL, NULL) < 0) {
		ret = -errno;
		if (ret != -EEXIST)
			snprintf(err, errlen, "the kernel refused to %s the address: %s",
				 add ? "add" : "remove", strerror(errno));
	}
out:
	if (nl != NULL)
		mnl_socket_close(nl);
	return ret;
}

/* The modified EUI-64 link-local address of a MAC (RFC 4291 appendix A). */
static void
xdp_link_local(const struct rte_ether_addr *mac, struct lf_ip_addr *ad)
{
	memset(ad, 0, sizeof(*ad));
	ad->af = 6;
	ad->plen = 64;
	neigh_link_local(mac, ad->a);
}

static int
map_put(int fd, const uint8_t *a, unsigned int af)
{
	struct lf_xdp_addr_key k;
	uint8_t one = 1;

	memset(&k, 0, sizeof(k));
	if (af == 4) {
		k.a[10] = 0xff;
		k.a[11] = 0xff;
		memcpy(&k.a[12], a, 4);
	} else {
		memcpy(k.a, a, 16);
	}
	return bpf_map_update_elem(fd, &k, &one, BPF_ANY) == 0 ? 0 : -errno;
}

/*
 * The program attached to ifindex, checked to be lanefwd's, and the
 * descriptors of its address and counter maps, found among the maps that
 * program uses (never by name across the system: another lanefwd on
 * another interface has maps of the same names).
 */
static int
prog_maps(const struct lf_port_conf *pc, int ifindex, struct xdp_port *xp, char *err, size_t errlen)
{
	struct bpf_prog_info pinfo;
	uint32_t ids[XDP_MAX_MAP_IDS];
	uint32_t prog_id = 0, len, i, n;
	int prog_fd, fd, ret;

	ret = bpf_xdp_query_id(ifindex, 0, &prog_id);
	if (ret != 0 || prog_id == 0) {
		snprintf(err, errlen,
			 "[%s]: exception = kernel: no XDP program on %s (%s); the AF_XDP PMD should have attached lanefwd's (xdp_prog=)",
			 pc->section, pc->exception_if,
			 ret != 0 ? strerror(-ret) : "none attached");
		return ret != 0 ? ret : -ENOENT;
	}
	prog_fd = bpf_prog_get_fd_by_id(prog_id);
	if (prog_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "[%s]: XDP program %u on %s: %s", pc->section, prog_id,
			 pc->exception_if, strerror(errno));
		return ret;
	}
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.nr_map_ids = XDP_MAX_MAP_IDS;
	pinfo.map_ids = (uint64_t)(uintptr_t)ids;
	len = sizeof(pinfo);
	ret = bpf_obj_get_info_by_fd(prog_fd, &pinfo, &len) == 0 ? 0 : -errno;
	close(prog_fd);
	if (ret != 0) {
		snprintf(err, errlen, "[%s]: XDP program %u on %s: %s", pc->section, prog_id,
			 pc->exception_if, strerror(-ret));
		return ret;
	}
	if (strcmp(pinfo.name, LF_XDP_PROG_NAME) != 0) {
		snprintf(err, errlen,
			 "[%s]: exception = kernel: the XDP program on %s is '%s' (id %u), not lanefwd's %s",
			 pc->section, pc->exception_if, pinfo.name, prog_id, LF_XDP_PROG_NAME);
		return -EINVAL;
	}
	n = pinfo.nr_map_ids < XDP_MAX_MAP_IDS ? pinfo.nr_map_ids : XDP_MAX_MAP_IDS;
	for (i = 0; i < n; i++) {
		struct bpf_map_info minfo;

		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		memset(&minfo, 0, sizeof(minfo));
		len = sizeof(minfo);
		if (bpf_obj_get_info_by_fd(fd, &minfo, &len) == 0) {
			if (strcmp(minfo.name, LF_XDP_ADDRS_MAP) == 0 && xp->addrs_fd < 0) {
				xp->addrs_fd = fd;
				continue;
			}
			if (strcmp(minfo.name, LF_XDP_STATS_MAP) == 0 && xp->stats_fd < 0) {
				xp->stats_fd = fd;
				continue;
			}
		}
		close(fd);
	}
	if (xp->addrs_fd < 0 || xp->stats_fd < 0) {
		snprintf(err, errlen, "[%s]: the XDP program on %s (id %u) has no map %s",
			 pc->section, pc->exception_if, prog_id,
			 xp->addrs_fd < 0 ? LF_XDP_ADDRS_MAP : LF_XDP_STATS_MAP);
		return -ENOENT;
	}
	return 0;
}

/* lf_local_addrs of port p: what the kernel must receive through it. */
static int
fill_addrs(const struct lf_app *a, unsigned int p, int fd)
{
	const struct lf_config *cfg = &a->cfg;
	const struct lf_port_conf *pc = &cfg->ports[p];
	struct lf_ip_addr ll;
	unsigned int q, k;
	int ret;

	/* Any router address of a kernel port: Linux takes a packet for any
	 * of its addresses on any interface, so one for another port's
	 * address that comes in here is the kernel's too. */
	for (q = 0; q < cfg->n_ports; q++) {
		if (cfg->ports[q].exception != LF_EXC_KERNEL)
			continue;
		for (k = 0; k < cfg->ports[q].n_addrs; k++) {
			ret = map_put(fd, cfg->ports[q].addr[k].a, cfg->ports[q].addr[k].af);
			if (ret != 0)
				return ret;
		}
	}
	/* This link's own: its link-local and its subnets' broadcasts. */
	xdp_link_local(&a->ports[p].mac, &ll);
	ret = map_put(fd, ll.a, 6);
	for (k = 0; k < pc->n_addrs && ret == 0; k++) {
		const struct lf_ip_addr *ad = &pc->addr[k];
		uint32_t a4, bc;

		if (ad->af != 4 || ad->plen > 30)
			continue;
		memcpy(&a4, ad->a, 4);
		bc = a4 | htonl(UINT32_MAX >> ad->plen);
		ret = map_put(fd, (const uint8_t *)&bc, 4);
	}
	return ret;
}

/* Put one address on the interface, remembering it when lanefwd added it. */
static int
addr_add(const struct lf_port_conf *pc, struct xdp_port *xp, const struct lf_ip_addr *ad, char *err,
	 size_t errlen)
{
	char txt[INET6_ADDRSTRLEN], why[160];
	int ret;

	ret = lf_if_addr_change(xp->ifindex, ad, true, why, sizeof(why));
	if (ret == 0) {
		xp->added[xp->n_added++] = *ad;
		return 0;
	}
	if (ret == -EEXIST)
		return 0;
	inet_ntop(ad->af == 4 ? AF_INET : AF_INET6, ad->a, txt, sizeof(txt));
	snprintf(err, errlen, "[%s]: cannot put %s/%u on %s: %s%s", pc->section, txt, ad->plen,
		 pc->exception_if, why,
		 ad->af == 6 ? " (is IPv6 off there? net.ipv6.conf.IF.disable_ipv6)" : "");
	return ret;
}

static int
port_setup(struct lf_app *a, unsigned int p, char *err, size_t errlen)
{
	const struct lf_port_conf *pc = &a->cfg.ports[p];
	struct xdp_port *xp = &xdp_ports[p];
	struct lf_ip_addr ll;
	bool any6 = false;
	unsigned int k;
	int ret;

	memset(xp, 0, sizeof(*xp));
	xp->addrs_fd = -1;
	xp->stats_fd = -1;
	xp->active = true;
	xp->ifindex = (int)if_nametoindex(pc->exception_if);
	if (xp->ifindex == 0) {
		ret = -errno;
		snprintf(err, errlen, "[%s]: exception = kernel: no interface %s: %s", pc->section,
			 pc->exception_if, strerror(errno));
		return ret;
	}
	ret = prog_maps(pc, xp->ifindex, xp, err, errlen);
	if (ret != 0)
		return ret;
	ret = fill_addrs(a, p, xp->addrs_fd);
	if (ret != 0) {
		snprintf(err, errlen, "[%s]: cannot fill %s of the XDP program on %s: %s",
			 pc->section, LF_XDP_ADDRS_MAP, pc->exception_if, strerror(-ret));
		return ret;
	}
	for (k = 0; k < pc->n_addrs; k++) {
		any6 |= pc->addr[k].af == 6;
		ret = addr_add(pc, xp, &pc->addr[k], err, errlen);
		if (ret != 0)
			return ret;
	}
	/* The link-local lanefwd's tables and ND use: the kernel makes the
	 * same one unless addr_gen_mode says otherwise. Only where IPv6 is
	 * in use: an interface with IPv6 off refuses it. */
	if (any6) {
		xdp_link_local(&a->ports[p].mac, &ll);
		ret = addr_add(pc, xp, &ll, err, errlen);
		if (ret != 0)
			return ret;
	}
	LF_LOG(INFO, port, "[%s]: exception = kernel on %s: XDP program %s, %u addresses put on it",
	       pc->section, pc->exception_if, LF_XDP_PROG_NAME, xp->n_added);
	return 0;
}

int
xdp_kernel_setup(struct lf_app *a, char *err, size_t errlen)
{
	unsigned int p;
	int ret;

	for (p = 0; p < a->cfg.n_ports; p++) {
		if (a->cfg.ports[p].exception != LF_EXC_KERNEL)
			continue;
		ret = port_setup(a, p, err, errlen);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int
xdp_kernel_stats(unsigned int p, uint64_t st[LF_XDP_STAT_COUNT])
{
	const struct xdp_port *xp;
	int ncpu = libbpf_num_possible_cpus();
	uint32_t k;
	int c;

	if (p >= LF_MAX_PORTS || !xdp_ports[p].active || xdp_ports[p].stats_fd < 0 || ncpu <= 0)
		return -ENOENT;
	xp = &xdp_ports[p];
	{
		uint64_t v[ncpu];

		for (k = 0; k < LF_XDP_STAT_COUNT; k++) {
			st[k] = 0;
			if (bpf_map_lookup_elem(xp->stats_fd, &k, v) != 0)
				return -errno;
			for (c = 0; c < ncpu; c++)
				st[k] += v[c];
		}
	}
	return 0;
}

void
xdp_kernel_free(struct lf_app *a)
{
	uint64_t st[LF_XDP_STAT_COUNT];
	char why[160];
	unsigned int p, i;

	for (p = 0; p < LF_MAX_PORTS; p++) {
		struct xdp_port *xp = &xdp_ports[p];

		if (!xp->active)
			continue;
		if (xdp_kernel_stats(p, st) == 0)
			LF_LOG(INFO, port,
			       "[%s] on %s: XDP pass_arp %" PRIu64 " pass_nd %" PRIu64
			       " pass_local %" PRIu64 " redirect %" PRIu64 " drop_no_xsk %" PRIu64,
			       a->cfg.ports[p].section, a->cfg.ports[p].exception_if,
			       st[LF_XDP_PASS_ARP], st[LF_XDP_PASS_ND], st[LF_XDP_PASS_LOCAL],
			       st[LF_XDP_REDIRECT], st[LF_XDP_DROP_NO_XSK]);
		for (i = xp->n_added; i-- > 0;)
			if (lf_if_addr_change(xp->ifindex, &xp->added[i], false, why,
					      sizeof(why)) != 0)
				LF_LOG(WARNING, port, "[%s]: %s: %s", a->cfg.ports[p].section,
				       a->cfg.ports[p].exception_if, why);
		if (xp->addrs_fd >= 0)
			close(xp->addrs_fd);
		if (xp->stats_fd >= 0)
			close(xp->stats_fd);
		memset(xp, 0, sizeof(*xp));
	}
}
