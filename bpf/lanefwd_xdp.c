// SPDX-License-Identifier: BSD-3-Clause
/*
 * lanefwd's XDP program for [port] exception = kernel (docs/exception-path.md).
 *
 * The DPDK AF_XDP PMD loads it with libbpf when the port's devargs carry
 * xdp_prog= (config_eal_args() adds it), attaches it to the interface and
 * puts its socket of queue q at xsks_map[q]. lanefwd (xdp.c) then fills
 * lf_local_addrs. Per frame:
 *
 * - XDP_PASS to the kernel stack what the kernel handles for the router:
 *   ARP, ICMPv6 133-137 (ND, RS/RA, redirect), and IPv4/IPv6 packets to an
 *   address of lf_local_addrs (the router's addresses, this port's
 *   link-local and subnet broadcasts), to 224.0.0.0/24, ff02::/16 or
 *   255.255.255.255;
 * - everything else, VLAN-tagged and truncated frames included, to lanefwd's
 *   socket of the receiving queue: lanefwd parses, forwards or counts them
 *   as drops under its own reasons.
 *
 * A frame for lanefwd on a queue where it has no socket is dropped, not
 * passed (the PMD's default program passes it): passed, transit traffic
 * would reach the kernel's forwarding, a second router beside lanefwd that
 * its ACL, FIB and counters do not see, and the kernel forwards as soon as
 * ip_forward is on, as it is on most hosts that run a routing daemon. Such
 * a queue is a configuration error (queue_count below the interface's
 * channels); LF_XDP_DROP_NO_XSK counts it so it can be found.
 *
 * Every header read is bounds-checked against data_end (the verifier
 * refuses the program otherwise); nothing is written to the frame.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_abi.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, LF_XDP_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LF_XDP_MAX_ADDRS);
	__type(key, struct lf_xdp_addr_key);
	__type(value, __u8);
} lf_local_addrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LF_XDP_STAT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} lf_xdp_stats SEC(".maps");

/* Header layouts by offset: linux/ip.h and linux/ipv6.h pull in more than
 * a BPF target has headers for, and only the fields below are read. */
#define IP4_DADDR_OFF 16 /* struct iphdr daddr */
#define IP4_HDR_MIN 20
#define IP6_NEXTHDR_OFF 6
#define IP6_DADDR_OFF 24
#define IP6_HDR_LEN 40
#define PROTO_ICMPV6 58
#define ND_TYPE_FIRST 133 /* router solicitation */
#define ND_TYPE_LAST 137 /* redirect */

static __always_inline int
count(enum lf_xdp_stat s, int action)
{
	__u32 k = s;
	__u64 *c = bpf_map_lookup_elem(&lf_xdp_stats, &k);

	/* Per-CPU: this CPU is the only writer, no atomic needed. */
	if (c != NULL)
		*c += 1;
	return action;
}

static __always_inline int
is_local(const struct lf_xdp_addr_key *k)
{
	return bpf_map_lookup_elem(&lf_local_addrs, k) != NULL;
}

static __always_inline int
ip4_to_kernel(const __u8 *ip, const void *end)
{
	struct lf_xdp_addr_key k = {};
	__u32 dst;

	if ((const void *)(ip + IP4_HDR_MIN) > end)
		return 0;
	__builtin_memcpy(&dst, ip + IP4_DADDR_OFF, sizeof(dst));
	if (dst == 0xffffffff)
		return 1;
	/* 224.0.0.0/24: link-local multicast (IGMP, OSPF, VRRP, RIP). */
	if ((bpf_ntohl(dst) & 0xffffff00) == 0xe0000000)
		return 1;
	k.a[10] = 0xff;
	k.a[11] = 0xff;
	__builtin_memcpy(&k.a[12], &dst, sizeof(dst));
	return is_local(&k);
}

static __always_inline enum lf_xdp_stat
ip6_to_kernel(const __u8 *ip, const void *end)
{
	struct lf_xdp_addr_key k;

	if ((const void *)(ip + IP6_HDR_LEN) > end)
		return LF_XDP_REDIRECT;
	/* ND carries no extension header (RFC 4861 §6.1 checks hop limit
	 * 255 on exactly these), so its type follows the fixed header. */
	if (ip[IP6_NEXTHDR_OFF] == PROTO_ICMPV6 && (const void *)(ip + IP6_HDR_LEN + 1) <= end &&
	    ip[IP6_HDR_LEN] >= ND_TYPE_FIRST && ip[IP6_HDR_LEN] <= ND_TYPE_LAST)
		return LF_XDP_PASS_ND;
	/* ff02::/16: link-scope multicast (all nodes, all routers, MLD, OSPFv3). */
	if (ip[IP6_DADDR_OFF] == 0xff && ip[IP6_DADDR_OFF + 1] == 0x02)
		return LF_XDP_PASS_LOCAL;
	__builtin_memcpy(k.a, ip + IP6_DADDR_OFF, sizeof(k.a));
	return is_local(&k) ? LF_XDP_PASS_LOCAL : LF_XDP_REDIRECT;
}

SEC("xdp")
int
lanefwd_xdp(struct xdp_md *ctx)
{
	const void *data = (const void *)(long)ctx->data;
	const void *end = (const void *)(long)ctx->data_end;
	const struct ethhdr *eth = data;
	enum lf_xdp_stat s = LF_XDP_REDIRECT;
	int ret;

	if ((const void *)(eth + 1) <= end) {
		switch (eth->h_proto) {
		case bpf_htons(ETH_P_ARP):
			s = LF_XDP_PASS_ARP;
			break;
		case bpf_htons(ETH_P_IP):
			if (ip4_to_kernel((const __u8 *)(eth + 1), end))
				s = LF_XDP_PASS_LOCAL;
			break;
		case bpf_htons(ETH_P_IPV6):
			s = ip6_to_kernel((const __u8 *)(eth + 1), end);
			break;
		default:
			/* VLAN tags and the rest: lanefwd parses them. */
			break;
		}
	}
	if (s != LF_XDP_REDIRECT)
		return count(s, XDP_PASS);
	/* The flags' low bits are the action when the queue has no socket. */
	ret = bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_DROP);
	return count(ret == XDP_REDIRECT ? LF_XDP_REDIRECT : LF_XDP_DROP_NO_XSK, ret);
}

char _license[] SEC("license") = "Dual BSD/GPL";
