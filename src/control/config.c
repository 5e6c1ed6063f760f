/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration loader. The file is parsed by rte_cfgfile; a line scan before
 * it catches what rte_cfgfile silently skips (lines that are neither a section
 * nor key = value, duplicate sections and keys) and remembers the line of every
 * key so that each error can name file, line, section, key and value.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_string_fns.h>

#include "config.h"
#include "linefile.h"
#include "upf.h"

#define COMMENT_CHAR '#'

/* Where each section and key was found: filled by the line scan. */
struct key_line {
	char section[CFG_NAME_LEN];
	char key[CFG_NAME_LEN];
	int line;
};

struct ctx {
	const char *path; /* As the user gave it, for messages. */
	const char *realpath; /* Absolute, to resolve relative paths. */
	char *err;
	size_t errlen;
	struct key_line *lines;
	unsigned int n_lines;
	const char *section; /* Section being read. */
	int section_line;
};

static int __rte_format_printf(2, 3) fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int off;

	off = snprintf(c->err, c->errlen, "%s: ", c->path);
	if (off < 0 || (size_t)off >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + off, c->errlen - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Error at a line found by the line scan: "FILE:LINE: WHAT". */
static int __rte_format_printf(3, 4) line_fail(struct ctx *c, int lineno, const char *fmt, ...)
{
	va_list ap;
	int off;

	off = snprintf(c->err, c->errlen, "%s:%d: ", c->path, lineno);
	if (off < 0 || (size_t)off >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + off, c->errlen - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int
key_lineno(const struct ctx *c, const char *section, const char *key)
{
	unsigned int i;

	for (i = 0; i < c->n_lines; i++)
		if (strcmp(c->lines[i].section, section) == 0 && strcmp(c->lines[i].key, key) == 0)
			return c->lines[i].line;
	return 0;
}

/* Error about one key: "FILE:LINE: [section] key = 'value': WHAT". */
static int __rte_format_printf(4, 5)
	key_fail(struct ctx *c, const char *key, const char *value, const char *fmt, ...)
{
	char what[LF_ERR_LEN / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%d: [%s] %s = '%s': %s", c->path,
		 key_lineno(c, c->section, key), c->section, key, value, what);
	return -EINVAL;
}

static int __rte_format_printf(2, 3) section_fail(struct ctx *c, const char *fmt, ...)
{
	char what[LF_ERR_LEN / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%d: [%s]: %s", c->path, c->section_line, c->section, what);
	return -EINVAL;
}

static char *
strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * Line scan: syntax that rte_cfgfile would drop or accept silently becomes an
 * error with a line number.
 */
static int
prescan(struct ctx *c)
{
	/* Longest line rte_cfgfile reads whole, newline not counted. */
	const size_t line_max = CFG_NAME_LEN + CFG_VALUE_LEN + 2;
	char section[CFG_NAME_LEN] = "";
	unsigned int cap = 0;
	uint64_t total = 0;
	char *buf = NULL;
	size_t buf_cap = 0;
	ssize_t got;
	int lineno = 0;
	FILE *f = NULL;
	int ret = 0;

	/* A FIFO or a device is refused here, before rte_cfgfile opens it. */
	ret = lf_open_regular(c->path, LF_CONFIG_MAX, &f, c->err, c->errlen);
	if (ret < 0)
		return ret;

	while ((got = getline(&buf, &buf_cap, f)) > 0) {
		size_t len = (size_t)got;
		char *s, *hash, *eq, *key, *val, *nul;
		unsigned int i;

		lineno++;
		total += len;
		if (total > LF_CONFIG_MAX) {
			ret = line_fail(c, lineno, "file grew past the %u KiB limit while read",
					LF_CONFIG_MAX >> 10);
			break;
		}
		/* rte_cfgfile and the scan below would stop at a NUL. */
		nul = memchr(buf, '\0', len);
		if (nul != NULL) {
			ret = line_fail(c, lineno, "NUL byte at column %zu",
					(size_t)(nul - buf) + 1);
			break;
		}
		if (len - (buf[len - 1] == '\n') > line_max) {
			ret = line_fail(c, lineno, "longer than %zu characters", line_max);
			break;
		}
		hash = strchr(buf, COMMENT_CHAR);
		if (hash != NULL)
			*hash = '\0';
		s = strip(buf);
		if (*s == '\0')
			continue;
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (end == NULL || strip(end + 1)[0] != '\0') {
				ret = line_fail(c, lineno, "'%s': a section header is [name]", s);
				break;
			}
			*end = '\0';
			s = strip(s + 1);
			if (*s == '\0' || strlen(s) >= CFG_NAME_LEN) {
				ret = line_fail(c, lineno,
						"section name must be 1 to %d characters",
						CFG_NAME_LEN - 1);
				break;
			}
			for (i = 0; i < c->n_lines; i++)
				if (c->lines[i].key[0] == '\0' &&
				    strcmp(c->lines[i].section, s) == 0)
					break;
			if (i < c->n_lines) {
				ret = line_fail(c, lineno,
						"section [%s] already defined at line %d", s,
						c->lines[i].line);
				break;
			}
			strlcpy(section, s, sizeof(section));
			key = (char *)"";
			val = NULL;
		} else {
			eq = strchr(s, '=');
			if (eq == NULL) {
				ret = line_fail(c, lineno,
						"'%s': expected [section] or key = value", s);
				break;
			}
			if (section[0] == '\0') {
				ret = line_fail(c, lineno, "'%s': key outside of any [section]", s);
				break;
			}
			*eq = '\0';
			key = strip(s);
			val = strip(eq + 1);
			if (*key == '\0') {
				ret = line_fail(c, lineno, "[%s]: empty key", section);
				break;
			}
			if (strlen(key) >= CFG_NAME_LEN || strlen(val) >= CFG_VALUE_LEN) {
				ret = line_fail(c, lineno,
						"[%s] %.40s = '%.40s...': key longer than %d or value longer than %d characters",
						section, key, val, CFG_NAME_LEN - 1,
						CFG_VALUE_LEN - 1);
				break;
			}
			if (*val == '\0') {
				ret = line_fail(c, lineno, "[%s] %s = '': empty value", section,
						key);
				break;
			}
			for (i = 0; i < c->n_lines; i++)
				if (strcmp(c->lines[i].section, section) == 0 &&
				    strcmp(c->lines[i].key, key) == 0)
					break;
			if (i < c->n_lines) {
				ret = line_fail(c, lineno,
						"[%s] %s = '%s': key already set at line %d",
						section, key, val, c->lines[i].line);
				break;
			}
		}
		if (c->n_lines == cap) {
			struct key_line *n;

			cap = cap ? cap * 2 : 64;
			n = realloc(c->lines, cap * sizeof(*n));
			if (n == NULL) {
				ret = fail(c, "out of memory");
				break;
			}
			c->lines = n;
		}
		strlcpy(c->lines[c->n_lines].section, section, CFG_NAME_LEN);
		strlcpy(c->lines[c->n_lines].key, key, CFG_NAME_LEN);
		c->lines[c->n_lines].line = lineno;
		c->n_lines++;
	}
	if (ret == 0 && ferror(f))
		ret = fail(c, "read error: %s", strerror(errno));
	free(buf);
	fclose(f);
	return ret;
}

/* Value parsers: they only say whether the text is valid. */
static int
parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)v[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0')
		return -EINVAL;
	return 0;
}

static int
parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int
parse_mac(const char *v, struct rte_ether_addr *mac)
{
	unsigned int b[RTE_ETHER_ADDR_LEN];
	char tail;
	int i;

	if (strlen(v) != 17 ||
	    sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6)
		return -EINVAL;
	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		if (!isxdigit((unsigned char)v[i * 3]) || !isxdigit((unsigned char)v[i * 3 + 1]))
			return -EINVAL;
		mac->addr_bytes[i] = b[i];
	}
	return 0;
}

/* Table-driven keys: one definition per key, with its range and help. */
enum key_type { KT_UINT, KT_BOOL, KT_STR, KT_MAC, KT_PATH, KT_SPECIAL };

struct key_def {
	const char *key;
	enum key_type type;
	size_t off;
	size_t size;
	uint64_t min;
	uint64_t max;
	const char *help;
};

#define FSIZE(st, f) sizeof(((struct st *)0)->f)
#define K_UINT(st, k, f, lo, hi, h)                                         \
	{                                                                   \
		k, KT_UINT, offsetof(struct st, f), FSIZE(st, f), lo, hi, h \
	}
#define K_BOOL(st, k, f, h)                                               \
	{                                                                 \
		k, KT_BOOL, offsetof(struct st, f), FSIZE(st, f), 0, 0, h \
	}
#define K_STR(st, k, f, h)                                               \
	{                                                                \
		k, KT_STR, offsetof(struct st, f), FSIZE(st, f), 0, 0, h \
	}
#define K_PATH(st, k, f, h)                                               \
	{                                                                 \
		k, KT_PATH, offsetof(struct st, f), FSIZE(st, f), 0, 0, h \
	}
#define K_SPECIAL(k, h)                      \
	{                                    \
		k, KT_SPECIAL, 0, 0, 0, 0, h \
	}

static const struct key_def eal_keys[] = {
	K_UINT(lf_eal_conf, "main_lcore", main_lcore, 0, LF_MAX_LCORE - 1,
	       "an lcore id from 0 to 127"),
	K_STR(lf_eal_conf, "file_prefix", file_prefix,
	      "letters, digits, '-' and '_' (EAL --file-prefix)"),
	K_UINT(lf_eal_conf, "memory", memory_mb, 0, 1 << 20,
	       "MiB of memory for EAL (-m), 0 for EAL's default"),
	K_BOOL(lf_eal_conf, "huge", huge, "yes or no (no adds --no-huge)"),
	K_BOOL(lf_eal_conf, "in_memory", in_memory, "yes or no (--in-memory)"),
	K_BOOL(lf_eal_conf, "telemetry", telemetry, "yes or no"),
	K_STR(lf_eal_conf, "iova_mode", iova_mode, "va or pa"),
	K_STR(lf_eal_conf, "log_level", log_level, "an EAL --log-level value"),
	K_STR(lf_eal_conf, "extra", extra, "extra EAL arguments separated by spaces"),
	K_BOOL(lf_eal_conf, "allow_unsafe_extra", allow_unsafe_extra,
	       "yes or no (yes lets extra load code and write files: docs/security.md)"),
	K_BOOL(lf_eal_conf, "pdump", pdump, "yes or no (capture with dpdk-dumpcap)"),
};

static const struct key_def pipeline_keys[] = {
	K_SPECIAL("burst", "packets per RX burst, 1 to 256, or auto"),
	K_SPECIAL("prefetch_distance", "packets to prefetch ahead, 0 (off) to 32, or auto"),
	K_UINT(lf_pipeline_conf, "tx_drain_us", tx_drain_us, 0, 1000000,
	       "microseconds a partial TX burst may wait, 0 to 1000000"),
	K_UINT(lf_pipeline_conf, "mbufs", mbufs, 0, 16 << 20,
	       "mbufs per NUMA socket, 0 to size automatically, at most 16777216"),
	K_UINT(lf_pipeline_conf, "mbuf_cache", mbuf_cache, 0, 512,
	       "per-lcore mbuf cache, 0 to 512"),
	K_BOOL(lf_pipeline_conf, "latency", latency, "yes or no"),
	K_STR(lf_pipeline_conf, "latency_clock", latency_clock, "tsc or hw"),
	K_UINT(lf_pipeline_conf, "burst_min", burst_min, 1, LF_BURST_MAX,
	       "the smallest burst of burst = auto, 1 to 256"),
	K_UINT(lf_pipeline_conf, "burst_max", burst_max, 1, LF_BURST_MAX,
	       "the largest burst of burst = auto, 1 to 256"),
	K_UINT(lf_pipeline_conf, "latency_target_us", latency_target_us, 1, 1000000,
	       "the residence burst = auto holds, microseconds, 1 to 1000000"),
	K_SPECIAL("latency_percentile",
		  "the percentile burst = auto holds under "
		  "latency_target_us, above 0 and below 100, e.g. 99.99"),
};

static const struct key_def routes_keys[] = {
	K_PATH(lf_routes_conf, "ipv4", ipv4, "a route file: 'prefix/len nexthop' per line"),
	K_PATH(lf_routes_conf, "ipv6", ipv6, "a route file: 'prefix/len nexthop' per line"),
	K_UINT(lf_routes_conf, "ipv4_max_routes", ipv4_max_routes, 1, 1 << 26, "1 to 67108864"),
	K_UINT(lf_routes_conf, "ipv4_tbl8", ipv4_tbl8, 1, LF_FIB4_MAX_TBL8,
	       "1 to 32767 (DIR24_8 with 2-byte next hops)"),
	K_UINT(lf_routes_conf, "ipv6_max_routes", ipv6_max_routes, 1, 1 << 26, "1 to 67108864"),
	K_UINT(lf_routes_conf, "ipv6_tbl8", ipv6_tbl8, 1, 1 << 24, "1 to 16777216"),
	K_STR(lf_routes_conf, "fib_lookup", fib_lookup, "auto, scalar or avx512"),
};

static const struct key_def acl_keys[] = {
	K_PATH(lf_acl_conf, "ipv4", ipv4, "an IPv4 ClassBench rule file (see README.md)"),
	K_PATH(lf_acl_conf, "ipv6", ipv6, "an IPv6 ClassBench rule file (see README.md)"),
	K_SPECIAL("default", "permit or deny"),
};

static const struct key_def flow_keys[] = {
	K_UINT(lf_flow_conf, "entries", entries, 1, 1u << 28, "flows per worker, 1 to 268435456"),
	K_UINT(lf_flow_conf, "idle_timeout_ms", idle_timeout_ms, 0, 86400000,
	       "milliseconds a flow may stay unseen, 0 (never) to 86400000"),
	K_SPECIAL("evict", "oldest or none"),
	K_SPECIAL("layout", "hotcold or fat"),
};

static const struct key_def upf_keys[] = {
	K_SPECIAL("n3_ipv4", "our N3/N9 GTP-U IPv4 address, e.g. 192.168.3.1"),
	K_SPECIAL("n3_ipv6", "our N3/N9 GTP-U IPv6 address, e.g. fd00:3::1"),
	K_STR(lf_upf_conf, "pfcp_addr", pfcp_addr, "a numeric IPv4 or IPv6 address"),
	K_UINT(lf_upf_conf, "pfcp_port", pfcp_port, 1, 65535, "a UDP port, 1 to 65535"),
	K_STR(lf_upf_conf, "node_id", node_id, "an IP address or an FQDN"),
	K_UINT(lf_upf_conf, "max_sessions", max_sessions, 1, 1u << 24, "sessions, 1 to 16777216"),
	K_UINT(lf_upf_conf, "buffer_packets", buffer_packets, 0, 65536,
	       "downlink packets held per buffering session, 0 to 65536"),
	K_UINT(lf_upf_conf, "err_ind_pps", err_ind_pps, 0, 1000000,
	       "Error Indications per second per worker, 0 (none) to 1000000"),
	K_UINT(lf_upf_conf, "urrs_per_session", urrs_per_session, 1, 16,
	       "URR slots per session on average, 1 to 16"),
	K_UINT(lf_upf_conf, "qers_per_session", qers_per_session, 1, 8,
	       "QER slots per session on average, 1 to 8"),
	K_UINT(lf_upf_conf, "heartbeat_s", heartbeat_s, 0, 3600,
	       "seconds between Heartbeat Requests to peers, 0 (none) to 3600"),
};

static const struct key_def ni_keys[] = {
	K_SPECIAL("ue_pool",
		  "UE prefixes routed to this network instance, e.g. "
		  "'10.45.0.0/16, fd00:45::/48'"),
	K_SPECIAL("ue_alloc",
		  "prefixes inside ue_pool that the UP hands out on UE IP Address CHOOSE, "
		  "e.g. '10.45.128.0/17, fd00:45:8000::/49'"),
	K_SPECIAL("ue_alloc_pool_id",
		  "the UE IP address Pool Identity of ue_alloc, 1 to 63 letters, digits "
		  "and -_.:/@, unique among all pools (further pools: ue_alloc.ID = prefixes)"),
	K_SPECIAL("ue_alloc_ipv6_len",
		  "the length of the IPv6 prefixes ue_alloc hands out, 48 to 64 (default 64; "
		  "of a further pool: ue_alloc_ipv6_len.ID)"),
};

static const struct key_def port_keys[] = {
	K_SPECIAL("pci", "a PCI address in the form 0000:3b:00.0"),
	K_SPECIAL("vdev", "vdev devargs such as net_af_xdp0,iface=veth0"),
	K_UINT(lf_port_conf, "rx_queues", rx_queues, 1, LF_MAX_QUEUES,
	       "1 to 64, each polled by exactly one worker"),
	K_UINT(lf_port_conf, "rx_desc", rx_desc, 64, 32768,
	       "RX ring size, a power of two from 64 to 32768"),
	K_UINT(lf_port_conf, "tx_desc", tx_desc, 64, 32768,
	       "TX ring size, a power of two from 64 to 32768"),
	K_UINT(lf_port_conf, "mtu", mtu, 68, 9600, "68 to 9600"),
	K_SPECIAL("mac", "a MAC address such as 02:00:00:00:00:01"),
	K_BOOL(lf_port_conf, "promiscuous", promiscuous, "yes or no"),
	K_SPECIAL("address",
		  "the router's addresses on this port, e.g. '10.0.1.1/24, 2001:db8:1::1/64'"),
	K_SPECIAL("exception", "none, tap or kernel"),
	K_STR(lf_port_conf, "exception_if", exception_if,
	      "a kernel interface name, at most 15 characters"),
};

static const struct key_def worker_keys[] = {
	K_SPECIAL("rx", "space-separated PORT:QUEUE pairs, e.g. 'p0:0 p1:0'"),
	K_SPECIAL("rx_mode", "poll, interrupt, hybrid or pmd-mgmt"),
	K_UINT(lf_worker_conf, "spin_us", spin_us, 0, 1000000,
	       "microseconds to spin after the last packet, 0 to 1000000"),
	K_UINT(lf_worker_conf, "sleep_max_us", sleep_max_us, 1, LF_SLEEP_MAX_US_MAX,
	       "the longest sleep in microseconds, 1 to 5000"),
	K_SPECIAL("pmd_mgmt", "pause, monitor or scale"),
};

const char *const lf_rx_mode_names[LF_RX_MODE_COUNT] = {
	[LF_RX_POLL] = "poll",
	[LF_RX_INTERRUPT] = "interrupt",
	[LF_RX_HYBRID] = "hybrid",
	[LF_RX_PMD_MGMT] = "pmd-mgmt",
};

const char *const lf_pmd_mgmt_names[LF_PMGMT_COUNT] = {
	[LF_PMGMT_PAUSE] = "pause",
	[LF_PMGMT_MONITOR] = "monitor",
	[LF_PMGMT_SCALE] = "scale",
};

/* Index of val in names[0..n), or -1. */
static int
name_index(const char *const *names, unsigned int n, const char *val)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], val) == 0)
			return (int)i;
	return -1;
}

/*
 * [worker] rx_mode and its keys: a key the mode does not use is an error
 * rather than silently ignored (spin_us without hybrid, ...).
 */
static int
worker_rx_mode_check(struct ctx *c, struct lf_worker_conf *w)
{
	const bool sleeps = w->rx_mode == LF_RX_INTERRUPT || w->rx_mode == LF_RX_HYBRID;
	char v[16];

	if (w->rx_mode != LF_RX_HYBRID && key_lineno(c, c->section, "spin_us") != 0) {
		snprintf(v, sizeof(v), "%u", w->spin_us);
		return key_fail(c, "spin_us", v,
				"only rx_mode = hybrid spins; this worker has rx_mode = %s",
				lf_rx_mode_names[w->rx_mode]);
	}
	if (!sleeps && key_lineno(c, c->section, "sleep_max_us") != 0) {
		snprintf(v, sizeof(v), "%u", w->sleep_max_us);
		return key_fail(c, "sleep_max_us", v,
				"only rx_mode = interrupt or hybrid sleeps; this worker has rx_mode = %s",
				lf_rx_mode_names[w->rx_mode]);
	}
	if (w->rx_mode != LF_RX_PMD_MGMT && key_lineno(c, c->section, "pmd_mgmt") != 0)
		return key_fail(c, "pmd_mgmt", lf_pmd_mgmt_names[w->pmd_mgmt],
				"needs rx_mode = pmd-mgmt; this worker has rx_mode = %s",
				lf_rx_mode_names[w->rx_mode]);
	return 0;
}

static const struct key_def nexthop_keys[] = {
	K_SPECIAL("port", "the name of a [port NAME] section"),
	K_SPECIAL("mac", "the next hop's MAC address, e.g. 02:00:00:00:00:02"),
	K_SPECIAL("src_mac", "source MAC to write, default the port's MAC"),
	K_SPECIAL("via", "the next hop's IPv4 or IPv6 address, its MAC resolved by ARP/ND"),
};

static const struct key_def icmp_keys[] = {
	K_BOOL(lf_icmp_conf, "echo", echo, "yes or no"),
	K_BOOL(lf_icmp_conf, "time_exceeded", time_exceeded, "yes or no"),
	K_BOOL(lf_icmp_conf, "unreachable", unreachable, "yes or no"),
	K_BOOL(lf_icmp_conf, "frag_needed", frag_needed, "yes or no"),
	K_UINT(lf_icmp_conf, "rate_pps", rate_pps, 0, 10000000,
	       "ICMP messages per second per worker, 0 (none) to 10000000"),
	K_UINT(lf_icmp_conf, "burst", burst, 1, 1000000, "token bucket depth, 1 to 1000000"),
};

static const struct key_def neigh_keys[] = {
	K_UINT(lf_neigh_conf, "max_entries", max_entries, 16, 1u << 20,
	       "neighbours, 16 to 1048576"),
	K_UINT(lf_neigh_conf, "reachable_ms", reachable_ms, 1000, 3600000,
	       "milliseconds, 1000 to 3600000"),
	K_UINT(lf_neigh_conf, "retrans_ms", retrans_ms, 100, 60000, "milliseconds, 100 to 60000"),
	K_UINT(lf_neigh_conf, "retries", retries, 1, 100, "1 to 100"),
	K_UINT(lf_neigh_conf, "queue_packets", queue_packets, 0, 1024,
	       "packets held per unresolved neighbour, 0 to 1024"),
	K_BOOL(lf_neigh_conf, "gratuitous", gratuitous, "yes or no"),
	K_UINT(lf_neigh_conf, "punt_pps", punt_pps, 1, 10000000,
	       "ARP/ND frames per second per worker, 1 to 10000000"),
	K_UINT(lf_neigh_conf, "punt_burst", punt_burst, 1, 1000000,
	       "token bucket depth, 1 to 1000000"),
};

static const struct key_def exception_keys[] = {
	K_UINT(lf_exception_conf, "punt_pps", punt_pps, 1, 10000000,
	       "packets per second per worker to the kernel, 1 to 10000000"),
	K_UINT(lf_exception_conf, "punt_burst", punt_burst, 1, 1000000,
	       "token bucket depth, 1 to 1000000"),
};

static const struct key_def prom_keys[] = {
	K_STR(lf_prom_conf, "address", addr, "a numeric IPv4 or IPv6 address to listen on"),
	K_UINT(lf_prom_conf, "port", port, 1, 65535, "a TCP port, 1 to 65535"),
};

static const struct key_def netlink_keys[] = {
	K_UINT(lf_netlink_conf, "table", table, 1, UINT32_MAX - 1,
	       "a kernel routing table id (254 is main)"),
	K_SPECIAL("priority", "file or kernel (whose route wins on the same prefix)"),
	K_UINT(lf_netlink_conf, "max_routes", max_routes, 1, 1u << 24,
	       "kernel routes held, 1 to 16777216"),
	K_UINT(lf_netlink_conf, "max_nexthops", max_nexthops, 1, 16384,
	       "next hops kernel routes may use, 1 to 16384"),
};

static void
allowed_keys(const struct key_def *defs, unsigned int n, char *buf, size_t len)
{
	unsigned int i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "", defs[i].key);
}

static int
file_readable(const char *path)
{
	return access(path, R_OK) == 0 ? 0 : -errno;
}

/*
 * Set one table-driven key. Special keys are left to the section's own
 * handler; return 1 for them. Not inlined: inlined into load_flow(), GCC 12
 * with -fsanitize=address takes obj for the section's first field and
 * warns (-Wstringop-overflow) about stores to the fields after it.
 */
static __rte_noinline int
set_key(struct ctx *c, const struct key_def *defs, unsigned int n_defs, void *obj, const char *key,
	const char *val)
{
	const struct key_def *d = NULL;
	char allowed[256];
	unsigned int i;
	uint64_t u;
	bool b;

	for (i = 0; i < n_defs; i++)
		if (strcmp(defs[i].key, key) == 0)
			d = &defs[i];
	if (d == NULL) {
		allowed_keys(defs, n_defs, allowed, sizeof(allowed));
		return key_fail(c, key, val, "unknown key; allowed keys: %s", allowed);
	}

	switch (d->type) {
	case KT_UINT:
		if (parse_u64(val, &u) != 0 || u < d->min || u > d->max)
			return key_fail(c, key, val, "expected %s", d->help);
		if (d->size == sizeof(uint16_t))
			*(uint16_t *)((char *)obj + d->off) = u;
		else if (d->size == sizeof(uint32_t))
			*(uint32_t *)((char *)obj + d->off) = u;
		else
			*(uint64_t *)((char *)obj + d->off) = u;
		return 0;
	case KT_BOOL:
		if (parse_bool(val, &b) != 0)
			return key_fail(c, key, val, "expected %s", d->help);
		*(bool *)((char *)obj + d->off) = b;
		return 0;
	case KT_STR:
		if (strlen(val) >= d->size)
			return key_fail(c, key, val, "longer than %zu characters", d->size - 1);
		strlcpy((char *)obj + d->off, val, d->size);
		return 0;
	case KT_PATH: {
		char full[PATH_MAX];
		char dir[PATH_MAX];

		if (val[0] == '/') {
			strlcpy(full, val, sizeof(full));
		} else {
			strlcpy(dir, c->realpath, sizeof(dir));
			snprintf(full, sizeof(full), "%s/%s", dirname(dir), val);
		}
		if (strlen(full) >= d->size)
			return key_fail(c, key, val, "path longer than %zu characters",
					d->size - 1);
		if (file_readable(full) != 0)
			return key_fail(c, key, val, "cannot read %s: %s", full, strerror(errno));
		strlcpy((char *)obj + d->off, full, d->size);
		return 0;
	}
	case KT_MAC:
	case KT_SPECIAL:
		return 1;
	}
	return 1;
}

/* [pipeline] prefetch_distance: 0 to LF_PREFETCH_MAX, or auto. */
static int
set_prefetch(struct ctx *c, struct lf_pipeline_conf *p, const char *key, const char *val)
{
	uint64_t u;

	if (strcmp(val, "auto") == 0) {
		p->prefetch_auto = true;
		return 0;
	}
	if (parse_u64(val, &u) != 0 || u > LF_PREFETCH_MAX)
		return key_fail(c, key, val,
				"expected packets to prefetch ahead, 0 (off) to 32, or auto (half the burst; no packet data prefetch on ports whose driver copies each frame)");
	p->prefetch_distance = (uint16_t)u;
	p->prefetch_auto = false;
	return 0;
}

/* [pipeline] burst (1 to 256, or auto) and latency_percentile. */
static int
set_pipeline_special(struct ctx *c, struct lf_pipeline_conf *p, const char *key, const char *val)
{
	uint64_t u;
	double d;
	char *end;

	if (strcmp(key, "prefetch_distance") == 0)
		return set_prefetch(c, p, key, val);
	if (strcmp(key, "burst") == 0) {
		p->burst_auto = strcmp(val, "auto") == 0;
		if (p->burst_auto)
			return 0;
		if (parse_u64(val, &u) != 0 || u < 1 || u > LF_BURST_MAX)
			return key_fail(c, key, val,
					"expected packets per RX burst, 1 to 256, or auto");
		p->burst = (uint16_t)u;
		return 0;
	}
	errno = 0;
	d = strtod(val, &end);
	if (errno != 0 || end == val || *end != '\0' || !(d > 0.0 && d < 100.0))
		return key_fail(c, key, val,
				"expected a percentile above 0 and below 100, e.g. 99.99");
	p->latency_percentile = d;
	return 0;
}

/*
 * Drivers whose rx_burst copies each frame into its mbuf on the calling
 * core; memif does unless the mbufs are its shared ring's own buffers.
 */
static const char *const copying_drivers[] = { "net_pcap", "net_tap", "net_af_packet" };
#define MEMIF_DRIVER "net_memif"
#define MEMIF_ZERO_COPY "zero-copy=yes"

bool
lf_driver_copies_rx(const char *driver, const char *devargs)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(copying_drivers); i++)
		if (strcmp(driver, copying_drivers[i]) == 0)
			return true;
	return strcmp(driver, MEMIF_DRIVER) == 0 && strstr(devargs, MEMIF_ZERO_COPY) == NULL;
}

uint16_t
lf_port_prefetch_distance(const struct lf_pipeline_conf *p, const char *driver, const char *devargs)
{
	if (p->prefetch_auto && lf_driver_copies_rx(driver, devargs))
		return 0;
	return p->prefetch_distance;
}

/* Section name "kind NAME": return NAME, or NULL if the kind differs. */
static const char *
section_arg(const char *section, const char *kind)
{
	size_t n = strlen(kind);

	if (strncmp(section, kind, n) != 0 || !isspace((unsigned char)section[n]))
		return NULL;
	section += n;
	while (isspace((unsigned char)*section))
		section++;
	return section;
}

static bool
valid_ident(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool
is_pow2(uint32_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static int
valid_pci(const char *v)
{
	/* DDDD:BB:DD.F, hex digits only, device <= 0x1f, function <= 7. */
	static const char shape[] = "xxxx:xx:xx.x";
	unsigned int i;

	if (strlen(v) != sizeof(shape) - 1)
		return -EINVAL;
	for (i = 0; shape[i] != '\0'; i++) {
		if (shape[i] == 'x' ? !isxdigit((unsigned char)v[i]) : v[i] != shape[i])
			return -EINVAL;
	}
	if (strtoul(v + 8, NULL, 16) > 0x1f || v[11] > '7')
		return -EINVAL;
	return 0;
}

static int parse_ip(const char *v, int af, uint8_t *out);
static int parse_prefix(const char *v, uint8_t *af, uint8_t *plen, uint8_t *a);

/*
 * An interface address "a/len" (host bits allowed: it is an address with
 * its subnet): unicast, not unspecified, loopback, multicast or class E.
 */
static const char *
parse_if_addr(const char *tok, struct lf_ip_addr *ad)
{
	char buf[64];
	char *slash, *end;
	unsigned long len;

	if (strlcpy(buf, tok, sizeof(buf)) >= sizeof(buf) || (slash = strchr(buf, '/')) == NULL)
		return "is not an address with a prefix length, e.g. 10.0.1.1/24 or 2001:db8::1/64";
	*slash = '\0';
	memset(ad, 0, sizeof(*ad));
	if (parse_ip(buf, 4, ad->a) == 0)
		ad->af = 4;
	else if (parse_ip(buf, 6, ad->a) == 0)
		ad->af = 6;
	else
		return "is not an address with a prefix length, e.g. 10.0.1.1/24 or 2001:db8::1/64";
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno != 0 || end == slash + 1 || *end != '\0' || len == 0 ||
	    len > (ad->af == 4 ? 32u : 128u))
		return "has a prefix length out of range (1 to 32, or 1 to 128)";
	ad->plen = (uint8_t)len;
	if (ad->af == 4) {
		if (ad->a[0] == 0 || ad->a[0] == 127 || ad->a[0] >= 224)
			return "is not a unicast IPv4 address (0/8, 127/8, 224/4 and 240/4 are not)";
	} else {
		static const uint8_t zero[16], one[16] = { [15] = 1 };

		if (memcmp(ad->a, zero, 16) == 0 || memcmp(ad->a, one, 16) == 0 || ad->a[0] == 0xff)
			return "is not a unicast IPv6 address (::, ::1 and ff00::/8 are not)";
	}
	return NULL;
}

/* [port] address: a comma- or space-separated list. */
static int
set_port_addrs(struct ctx *c, struct lf_port_conf *p, const char *key, const char *val)
{
	char list[LF_PATH_LEN];
	char *tok, *save = NULL;
	unsigned int i;

	if (strlcpy(list, val, sizeof(list)) >= sizeof(list))
		return key_fail(c, key, val, "longer than %zu characters", sizeof(list) - 1);
	p->n_addrs = 0;
	for (tok = strtok_r(list, ", \t", &save); tok != NULL;
	     tok = strtok_r(NULL, ", \t", &save)) {
		struct lf_ip_addr *ad = &p->addr[p->n_addrs];
		const char *why;

		if (p->n_addrs == LF_PORT_MAX_ADDRS)
			return key_fail(c, key, val, "more than %u addresses", LF_PORT_MAX_ADDRS);
		why = parse_if_addr(tok, ad);
		if (why != NULL)
			return key_fail(c, key, val, "'%s' %s", tok, why);
		for (i = 0; i < p->n_addrs; i++)
			if (p->addr[i].af == ad->af && memcmp(p->addr[i].a, ad->a, 16) == 0)
				return key_fail(c, key, val, "'%s' listed twice", tok);
		p->n_addrs++;
	}
	if (p->n_addrs == 0)
		return key_fail(c, key, val, "expected at least one address, e.g. 10.0.1.1/24");
	return 0;
}

/* A kernel interface name: what IFNAMSIZ and the kernel's dev_valid_name() take. */
static bool
valid_ifname(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= 16 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s != '\0'; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return false;
	return true;
}

static int
load_port(struct ctx *c, struct lf_config *cfg, const char *name, struct rte_cfgfile_entry *e,
	  int n)
{
	struct lf_port_conf *p;
	unsigned int i;
	int k, ret;

	if (!valid_ident(name) || strlen(name) >= LF_NAME_LEN)
		return section_fail(c, "port name must be 1 to %d letters, digits or '_'",
				    LF_NAME_LEN - 1);
	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return section_fail(c, "port '%s' defined twice", name);
	if (cfg->n_ports == LF_MAX_PORTS)
		return section_fail(c, "more than %d ports", LF_MAX_PORTS);

	p = &cfg->ports[cfg->n_ports];
	memset(p, 0, sizeof(*p));
	strlcpy(p->name, name, sizeof(p->name));
	strlcpy(p->section, c->section, sizeof(p->section));
	p->rx_desc = 1024;
	p->tx_desc = 1024;
	p->mtu = 1500;
	/* A routed port: its own MAC, broadcast and groups (issue 15). */
	p->promiscuous = false;

	for (k = 0; k < n; k++) {
		const char *key = e[k].name, *val = e[k].value;

		ret = set_key(c, port_keys, RTE_DIM(port_keys), p, key, val);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if ((strcmp(key, "rx_desc") == 0 && !is_pow2(p->rx_desc)) ||
			    (strcmp(key, "tx_desc") == 0 && !is_pow2(p->tx_desc)))
				return key_fail(c, key, val,
						"expected a power of two from 64 to 32768");
			continue;
		}
		if (strcmp(key, "pci") == 0 || strcmp(key, "vdev") == 0) {
			if (p->devargs[0] != '\0')
				return key_fail(c, key, val,
						"a port has either pci or vdev, not both");
			if (strlen(val) >= sizeof(p->devargs))
				return key_fail(c, key, val, "too long");
			if (strcmp(key, "pci") == 0) {
				if (valid_pci(val) != 0)
					return key_fail(c, key, val,
							"expected a PCI address in the form 0000:3b:00.0");
				p->is_pci = true;
				strlcpy(p->devname, val, sizeof(p->devname));
			} else {
				size_t dl = strcspn(val, ",");

				if (strncmp(val, "net_", 4) != 0 || dl <= 4)
					return key_fail(c, key, val,
							"expected vdev devargs starting with a driver name such as net_af_xdp0,iface=veth0");
				memcpy(p->devname, val, dl);
				p->devname[dl] = '\0';
			}
			strlcpy(p->devargs, val, sizeof(p->devargs));
		} else if (strcmp(key, "mac") == 0) {
			if (parse_mac(val, &p->mac) != 0)
				return key_fail(c, key, val,
						"expected a MAC address such as 02:00:00:00:00:01");
			if (!rte_is_valid_assigned_ether_addr(&p->mac))
				return key_fail(c, key, val,
						"expected a unicast, non-zero MAC address");
			p->has_mac = true;
		} else if (strcmp(key, "address") == 0) {
			ret = set_port_addrs(c, p, key, val);
			if (ret < 0)
				return ret;
		} else if (strcmp(key, "exception") == 0) {
			if (strcmp(val, "none") == 0)
				p->exception = LF_EXC_NONE;
			else if (strcmp(val, "tap") == 0)
				p->exception = LF_EXC_TAP;
			else if (strcmp(val, "kernel") == 0)
				p->exception = LF_EXC_KERNEL;
			else
				return key_fail(c, key, val, "expected none, tap or kernel");
		}
	}
	if (p->devargs[0] == '\0')
		return section_fail(c, "missing key 'pci' or 'vdev'");
	if (p->exception_if[0] != '\0' && !valid_ifname(p->exception_if))
		return key_fail(c, "exception_if", p->exception_if,
				"expected a kernel interface name: 1 to 15 characters, no '/', ':' or blanks");
	if (p->exception == LF_EXC_KERNEL) {
		const char *iface = strstr(p->devargs, "iface=");

		if (strncmp(p->devargs, "net_af_xdp", 10) != 0 || iface == NULL)
			return key_fail(c, "exception", "kernel",
					"needs an AF_XDP port (vdev net_af_xdpN,iface=IF): only it has a kernel interface to pass packets to; use tap");
		if (p->exception_if[0] == '\0') {
			size_t l = strcspn(iface + 6, ",");

			if (l == 0 || l >= sizeof(p->exception_if))
				return key_fail(c, "vdev", p->devargs,
						"the iface= name must be 1 to 15 characters");
			memcpy(p->exception_if, iface + 6, l);
			p->exception_if[l] = '\0';
		}
	} else if (p->exception == LF_EXC_TAP && p->exception_if[0] == '\0') {
		if (strlen(name) + 3 >= sizeof(p->exception_if))
			return section_fail(c,
					    "the TAP name lf-%s is longer than 15 characters; set exception_if",
					    name);
		strlcpy(p->exception_if, "lf-", sizeof(p->exception_if));
		strlcat(p->exception_if, name, sizeof(p->exception_if));
	}
	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].devname, p->devname) == 0)
			return section_fail(c, "device '%s' is already used by [port %s]",
					    p->devname, cfg->ports[i].name);
	cfg->n_ports++;
	return 0;
}

static int
load_acl(struct ctx *c, struct lf_config *cfg, struct rte_cfgfile_entry *e, int n)
{
	int k, ret;

	for (k = 0; k < n; k++) {
		const char *key = e[k].name, *val = e[k].value;

		ret = set_key(c, acl_keys, RTE_DIM(acl_keys), &cfg->acl, key, val);
		if (ret <= 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		/* default = permit|deny */
		if (strcmp(val, "permit") == 0)
			cfg->acl.deny = false;
		else if (strcmp(val, "deny") == 0)
			cfg->acl.deny = true;
		else
			return key_fail(c, key, val, "expected permit or deny");
	}
	if (cfg->acl.ipv4[0] == '\0' && cfg->acl.ipv6[0] == '\0')
		return section_fail(c, "missing key 'ipv4' or 'ipv6' (a rule file; at least one)");
	return 0;
}

static int
load_flow(struct ctx *c, struct lf_config *cfg, struct rte_cfgfile_entry *e, int n)
{
	int k, ret;

	cfg->flow.enabled = true;
	for (k = 0; k < n; k++) {
		const char *key = e[k].name, *val = e[k].value;

		ret = set_key(c, flow_keys, RTE_DIM(flow_keys), &cfg->flow, key, val);
		if (ret <= 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		if (strcmp(key, "evict") == 0) {
			if (strcmp(val, "oldest") == 0)
				cfg->flow.evict = true;
			else if (strcmp(val, "none") == 0)
				cfg->flow.evict = false;
			else
				return key_fail(c, key, val, "expected oldest or none");
		} else {
			if (strcmp(val, "hotcold") == 0)
				cfg->flow.fat = false;
			else if (strcmp(val, "fat") == 0)
				cfg->flow.fat = true;
			else
				return key_fail(c, key, val, "expected hotcold or fat");
		}
	}
	return 0;
}

/* One address of af (4 or 6) into out (network order); 0 or -EINVAL. */
static int
parse_ip(const char *v, int af, uint8_t *out)
{
	return inet_pton(af == 4 ? AF_INET : AF_INET6, v, out) == 1 ? 0 : -EINVAL;
}

static int
load_upf(struct ctx *c, struct lf_config *cfg, struct rte_cfgfile_entry *e, int n)
{
	struct lf_upf_conf *u = &cfg->upf;
	uint8_t tmp[16];
	int k, ret;

	u->enabled = true;
	for (k = 0; k < n; k++) {
		const char *key = e[k].name, *val = e[k].value;

		ret = set_key(c, upf_keys, RTE_DIM(upf_keys), u, key, val);
		if (ret <= 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		if (strcmp(key, "n3_ipv4") == 0) {
			if (parse_ip(val, 4, u->n3_ipv4) != 0)
				return key_fail(c, key, val, "expected an IPv4 address");
			u->has_n3_ipv4 = true;
		} else {
			if (parse_ip(val, 6, u->n3_ipv6) != 0)
				return key_fail(c, key, val, "expected an IPv6 address");
			u->has_n3_ipv6 = true;
		}
	}
	if (!u->has_n3_ipv4 && !u->has_n3_ipv6)
		return section_fail(c, "missing key 'n3_ipv4' or 'n3_ipv6' (at least one)");
	if (parse_ip(u->pfcp_addr, 4, tmp) != 0 && parse_ip(u->pfcp_addr, 6, tmp) != 0)
		return key_fail(c, "pfcp_addr", u->pfcp_addr,
				"expected a numeric IPv4 or IPv6 address");
	if (u->node_id[0] == '\0')
		strlcpy(u->node_id, u->pfcp_addr, sizeof(u->node_id));
	return 0;
}

/* "a/len": af, prefix length and address (host bits must be zero). */
static int
parse_prefix(const char *v, uint8_t *af, uint8_t *plen, uint8_t *a)
{
	char buf[64];
	char *slash, *end;
	unsigned long len;
	unsigned int i, max;

	if (strlcpy(buf, v, sizeof(buf)) >= sizeof(buf))
		return -EINVAL;
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -EINVAL;
	*slash = '\0';
	memset(a, 0, 16);
	if (parse_ip(buf, 4, a) == 0)
		*af = 4, max = 32;
	else if (parse_ip(buf, 6, a) == 0)
		*af = 6, max = 128;
	else
		return -EINVAL;
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno != 0 || end == slash + 1 || *end != '\0' || len > max)
		return -EINVAL;
	for (i = 0; i < max; i++)
		if (i >= len && (a[i / 8] & (0x80 >> (i % 8))) != 0)
			return -ERANGE;
	*plen = (uint8_t)len;
	return 0;
}

/* A DNN as sections can carry it: letters, digits, '-', '_' and '.'. */
static bool
valid_dnn(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/* Whether prefix pfx/plen holds address a (both network order). */
static bool
prefix_covers(const uint8_t *pfx, unsigned int plen, const uint8_t *a)
{
	const unsigned int full = plen / 8, rest = plen % 8;

	if (memcmp(pfx, a, full) != 0)
		return false;
	return rest == 0 || ((pfx[full] ^ a[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* A list of prefixes "a/len, a/len" (ue_pool, ue_alloc) into out[*n]. */
static int
prefix_list(struct ctx *c, const char *key, const char *val, struct lf_upf_prefix *out,
	    unsigned int *n)
{
	char list[LF_PATH_LEN];
	char *tok, *save = NULL;
	int ret;

	if (strlcpy(list, val, sizeof(list)) >= sizeof(list))
		return key_fail(c, key, val, "longer than %zu characters", sizeof(list) - 1);
	for (tok = strtok_r(list, ", \t", &save); tok != NULL;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (*n == LF_UPF_MAX_POOLS)
			return key_fail(c, key, val, "more than %u prefixes", LF_UPF_MAX_POOLS);
		ret = parse_prefix(tok, &out[*n].af, &out[*n].plen, out[*n].a);
		if (ret == -ERANGE)
			return key_fail(c, key, val,
					"'%s' has host bits set past the prefix length", tok);
		if (ret != 0)
			return key_fail(c, key, val,
					"'%s' is not a prefix; expected e.g. 10.45.0.0/16 or "
					"fd00:45::/48",
					tok);
		(*n)++;
	}
	return 0;
}

/*
 * A UE IP address Pool Identity (ue_alloc_pool_id, or ID of ue_alloc.ID):
 * letters, digits and "-_.:/@" (nothing the config syntax or a log line
 * would take apart), unique among every instance's pools so far, this
 * one's included (cfg->upf.ni[n_ni - 1] is the instance being loaded).
 */
static int
pool_id_check(struct ctx *c, const struct lf_config *cfg, const char *key, const char *val,
	      const char *id)
{
	const size_t l = strlen(id);
	size_t i, j;

	if (l == 0 || l >= sizeof(cfg->upf.ni[0].pool_id))
		return key_fail(c, key, val, "a pool identity of 1 to %zu characters",
				sizeof(cfg->upf.ni[0].pool_id) - 1);
	for (i = 0; i < l; i++)
		if (!isalnum((unsigned char)id[i]) && strchr("-_.:/@", id[i]) == NULL)
			return key_fail(c, key, val,
					"pool identity character %zu: letters, digits and "
					"-_.:/@ only",
					i + 1);
	for (i = 0; i < cfg->upf.n_ni; i++) {
		const struct lf_upf_ni_conf *o = &cfg->upf.ni[i];

		if (strcmp(o->pool_id, id) == 0)
			return key_fail(c, key, val, "[%s] has the same pool identity", o->section);
		for (j = 0; j < o->n_named; j++)
			if (strcmp(o->named[j].id, id) == 0)
				return key_fail(c, key, val,
						"[%s] has the same pool identity (ue_alloc.%s)",
						o->section, id);
	}
	return 0;
}

/* ue_alloc.ID = prefixes: a further named pool of ni. */
static int
load_named_pool(struct ctx *c, const struct lf_config *cfg, struct lf_upf_ni_conf *ni,
		const char *key, const char *val)
{
	struct lf_upf_named_pool *np;
	int ret;

	if (ni->n_named == LF_UPF_MAX_NAMED)
		return key_fail(c, key, val, "more than %u ue_alloc.ID pools in one instance",
				LF_UPF_MAX_NAMED);
	ret = pool_id_check(c, cfg, key, val, key + strlen("ue_alloc."));
	if (ret != 0)
		return ret;
	np = &ni->named[ni->n_named];
	memset(np, 0, sizeof(*np));
	ret = prefix_list(c, key, val, np->p, &np->n);
	if (ret != 0)
		return ret;
	if (np->n == 0)
		return key_fail(c, key, val, "no prefix");
	strlcpy(np->id, key + strlen("ue_alloc."), sizeof(np->id));
	np->ipv6_len = 64;
	ni->n_named++;
	return 0;
}

#define ALLOC_LEN_KEY "ue_alloc_ipv6_len"

/* Whether key is ue_alloc_ipv6_len or ue_alloc_ipv6_len.ID. */
static bool
is_alloc_len_key(const char *key)
{
	return strncmp(key, ALLOC_LEN_KEY, strlen(ALLOC_LEN_KEY)) == 0 &&
		(key[strlen(ALLOC_LEN_KEY)] == '\0' || key[strlen(ALLOC_LEN_KEY)] == '.');
}

/*
 * ue_alloc_ipv6_len and ue_alloc_ipv6_len.ID, once the section's pools
 * are known (a section's keys come in any order): the length of the IPv6
 * prefixes the pool hands out. Each of its IPv6 prefixes must hold at
 * least one.
 */
static int
alloc_len_set(struct ctx *c, struct lf_upf_ni_conf *ni, const char *key, const char *val)
{
	const char *id = key[strlen(ALLOC_LEN_KEY)] == '.' ? key + strlen(ALLOC_LEN_KEY) + 1 : NULL;
	const struct lf_upf_prefix *p;
	unsigned int k, i, np;
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (*val == '\0' || *end != '\0' || errno != 0 || v < 48 || v > 64)
		return key_fail(c, key, val, "expected a prefix length of 48 to 64");
	if (id == NULL) {
		if (ni->n_alloc == 0)
			return key_fail(c, key, val,
					"names no pool: this network instance has no "
					"ue_alloc");
		k = 0;
	} else {
		for (k = 1; k <= ni->n_named; k++)
			if (strcmp(ni->named[k - 1].id, id) == 0)
				break;
		if (k > ni->n_named)
			return key_fail(c, key, val, "names no pool: there is no ue_alloc.%s", id);
	}
	np = lf_upf_ni_alloc(ni, k, &p);
	for (i = 0; i < np && p[i].af != 6; i++)
		;
	if (i == np)
		return key_fail(c, key, val, "the pool has no IPv6 prefix");
	for (i = 0; i < np; i++)
		if (p[i].af == 6 && p[i].plen > v) {
			char a[INET6_ADDRSTRLEN];

			inet_ntop(AF_INET6, p[i].a, a, sizeof(a));
			return key_fail(c, key, val,
					"the pool's '%s/%u' holds no /%ld: its prefixes must be "
					"/%ld or shorter",
					a, p[i].plen, v, v);
		}
	if (k == 0)
		ni->alloc_ipv6_len = (uint8_t)v;
	else
		ni->named[k - 1].ipv6_len = (uint8_t)v;
	return 0;
}

/*
 * The prefixes of one allocating key (ue_alloc, ue_alloc.ID): lengths the
 * UP hands out from, each routed to this instance's downlink (inside a
 * ue_pool prefix).
 */
static int
alloc_check(struct ctx *c, const struct lf_upf_ni_conf *ni, const char *key, const char *val,
	    const struct lf_upf_prefix *p, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		const struct lf_upf_prefix *x = &p[i];
		char a[INET6_ADDRSTRLEN];

		inet_ntop(x->af == 4 ? AF_INET : AF_INET6, x->a, a, sizeof(a));
		if (x->af == 4 ? x->plen < 8 : x->plen < 32 || x->plen > 64)
			return key_fail(c, key, val,
					"'%s/%u': the UP allocates from IPv4 /8 to /32 and "
					"IPv6 /32 to /64 (in /64s)",
					a, x->plen);
		for (j = 0; j < ni->n_pools; j++)
			if (ni->pool[j].af == x->af && ni->pool[j].plen <= x->plen &&
			    prefix_covers(ni->pool[j].a, ni->pool[j].plen, x->a))
				break;
		if (j == ni->n_pools)
			return key_fail(c, key, val,
					"'%s/%u' is not inside any ue_pool prefix of this "
					"network instance",
					a, x->plen);
	}
	return 0;
}

/* The value of key in the section's entries (the last, as rte_cfgfile gives them). */
static const char *
entry_val(const struct rte_cfgfile_entry *e, int n, const char *key)
{
	const char *v = "";
	int k;

	for (k = 0; k < n; k++)
		if (strcmp(e[k].name, key) == 0)
			v = e[k].value;
	return v;
}

/* Bytes of one UE IP address Pool Information IE (29.244 7.4.4.1-3) for pool id of ni. */
static size_t
pool_info_bytes(const struct lf_upf_ni_conf *ni, const char *id)
{
	/* The grouped IE's header, Pool Identity (header, length, text),
	 * Network Instance (header, text). */
	return 4 + (4 + 2 + strlen(id)) + (4 + strlen(ni->name));
}

/*
 * The Association Setup Response announces every named pool: all of them,
 * the instances so far (this one last), must fit its message.
 */
static int
pool_info_check(struct ctx *c, const struct lf_config *cfg, const struct lf_upf_ni_conf *ni,
		const struct rte_cfgfile_entry *e, int n)
{
	size_t bytes = 0;
	unsigned int i, k;
	const char *key;
	char kb[80];

	for (i = 0; i < cfg->upf.n_ni; i++) {
		const struct lf_upf_ni_conf *o = &cfg->upf.ni[i];

		if (o->pool_id[0] != '\0')
			bytes += pool_info_bytes(o, o->pool_id);
		for (k = 0; k < o->n_named; k++)
			bytes += pool_info_bytes(o, o->named[k].id);
	}
	if (bytes <= LF_UPF_POOL_INFO_MAX)
		return 0;
	/* The instance's last pool key, or the identity of its ue_alloc. */
	key = ni->n_named != 0 ? lf_upf_ni_alloc_key(ni, ni->n_named, kb, sizeof(kb))
			       : "ue_alloc_pool_id";
	return key_fail(c, key, entry_val(e, n, key),
			"the named pools' UE IP address Pool Information would take %zu "
			"bytes of the Association Setup Response, over %u: use shorter pool "
			"identities or instance names, or fewer pools",
			bytes, LF_UPF_POOL_INFO_MAX);
}

/* Prefix y of pool t overlaps prefix x of pool s: the error, on t's key. */
static int
overlap_fail(struct ctx *c, const struct lf_upf_ni_conf *ni, const struct rte_cfgfile_entry *e,
	     int n, unsigned int s, const struct lf_upf_prefix *x, unsigned int t,
	     const struct lf_upf_prefix *y)
{
	char kb[80], ob[80], a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	const char *key = lf_upf_ni_alloc_key(ni, t, kb, sizeof(kb));

	inet_ntop(x->af == 4 ? AF_INET : AF_INET6, x->a, a, sizeof(a));
	inet_ntop(y->af == 4 ? AF_INET : AF_INET6, y->a, b, sizeof(b));
	return key_fail(c, key, entry_val(e, n, key),
			"'%s/%u' overlaps %s's '%s/%u': an address is in one allocating pool "
			"at most",
			b, y->plen, lf_upf_ni_alloc_key(ni, s, ob, sizeof(ob)), a, x->plen);
}

/* Whether prefixes x and y share an address. */
static bool
prefixes_overlap(const struct lf_upf_prefix *x, const struct lf_upf_prefix *y)
{
	return x->af == y->af &&
		(x->plen <= y->plen ? prefix_covers(x->a, x->plen, y->a)
				    : prefix_covers(y->a, y->plen, x->a));
}

/*
 * No address in two of ni's allocating prefixes (ue_alloc and the
 * ue_alloc.ID pools, each against itself too): which pool a CHOOSE took
 * an address from would otherwise not be one answer.
 */
static int
alloc_overlap_check(struct ctx *c, const struct lf_upf_ni_conf *ni,
		    const struct rte_cfgfile_entry *e, int n)
{
	unsigned int s, t, i, j, ns, nt;
	const struct lf_upf_prefix *ps, *pt;

	for (s = 0; s <= ni->n_named; s++) {
		ns = lf_upf_ni_alloc(ni, s, &ps);
		for (t = s; t <= ni->n_named; t++) {
			nt = lf_upf_ni_alloc(ni, t, &pt);
			for (i = 0; i < ns; i++)
				for (j = s == t ? i + 1 : 0; j < nt; j++)
					if (prefixes_overlap(&ps[i], &pt[j]))
						return overlap_fail(c, ni, e, n, s, &ps[i], t,
								    &pt[j]);
		}
	}
	return 0;
}

static int
load_ni(struct ctx *c, struct lf_config *cfg, const char *arg, struct rte_cfgfile_entry *e, int n)
{
	struct lf_upf_ni_conf *ni;
	unsigned int i;
	int k, ret;

	if (!cfg->upf.enabled)
		return section_fail(c, "a network instance needs an [upf] section");
	if (!valid_dnn(arg) || strlen(arg) >= sizeof(ni->name))
		return section_fail(c,
				    "expected [network_instance NAME] with NAME of letters, "
				    "digits, '-', '_' and '.', at most 63 characters");
	for (i = 0; i < cfg->upf.n_ni; i++)
		if (strcmp(cfg->upf.ni[i].name, arg) == 0)
			return section_fail(c, "network instance '%s' defined twice", arg);
	if (cfg->upf.n_ni == LF_UPF_MAX_NI)
		return section_fail(c, "more than %u network instances", LF_UPF_MAX_NI);
	ni = &cfg->upf.ni[cfg->upf.n_ni++];
	strlcpy(ni->name, arg, sizeof(ni->name));
	strlcpy(ni->section, c->section, sizeof(ni->section));
	ni->alloc_ipv6_len = 64;
	for (k = 0; k < n; k++) {
		const char *key = e[k].name, *val = e[k].value;
		const bool alloc = strcmp(key, "ue_alloc") == 0;

		/* After the pools (below). */
		if (is_alloc_len_key(key))
			continue;
		if (strncmp(key, "ue_alloc.", strlen("ue_alloc.")) == 0) {
			ret = load_named_pool(c, cfg, ni, key, val);
			if (ret != 0)
				return ret;
			continue;
		}
		ret = set_key(c, ni_keys, RTE_DIM(ni_keys), ni, key, val);
		if (ret <= 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		if (strcmp(key, "ue_alloc_pool_id") == 0) {
			ret = pool_id_check(c, cfg, key, val, val);
			if (ret != 0)
				return ret;
			strlcpy(ni->pool_id, val, sizeof(ni->pool_id));
			continue;
		}
		ret = prefix_list(c, key, val, alloc ? ni->alloc : ni->pool,
				  alloc ? &ni->n_alloc : &ni->n_pools);
		if (ret != 0)
			return ret;
	}
	/* What the UP hands out must be routed to this instance's downlink. */
	for (i = 0; i <= ni->n_named; i++) {
		const struct lf_upf_prefix *p;
		const unsigned int np = lf_upf_ni_alloc(ni, i, &p);
		char kb[80];
		const char *key = lf_upf_ni_alloc_key(ni, i, kb, sizeof(kb));

		ret = alloc_check(c, ni, key, entry_val(e, n, key), p, np);
		if (ret != 0)
			return ret;
	}
	ret = alloc_overlap_check(c, ni, e, n);
	if (ret != 0)
		return ret;
	for (k = 0; k < n; k++)
		if (is_alloc_len_key(e[k].name)) {
			ret = alloc_len_set(c, ni, e[k].name, e[k].value);
			if (ret != 0)
				return ret;
		}
	ret = pool_info_check(c, cfg, ni, e, n);
	if (ret != 0)
		return ret;
	if (ni->pool_id[0] != '\0' && ni->n_alloc == 0)
		return key_fail(c, "ue_alloc_pool_id", ni->pool_id,
				"names no pool: this network instance has no ue_alloc");
	return 0;
}

/*
 * The sections that are only table-driven keys (and [netlink] priority).
 * set_key() names the section, key and value on a bad one.
 */
static int
load_keys_section(struct ctx *c, struct lf_config *cfg, const char *name,
		  struct rte_cfgfile_entry *e, int n)
{
	const struct key_def *defs;
	unsigned int nd;
	void *obj;
	int k, ret;

	if (strcmp(name, "icmp") == 0) {
		defs = icmp_keys, nd = RTE_DIM(icmp_keys), obj = &cfg->icmp;
	} else if (strcmp(name, "neighbour") == 0) {
		defs = neigh_keys, nd = RTE_DIM(neigh_keys), obj = &cfg->neigh;
	} else if (strcmp(name, "exception") == 0) {
		defs = exception_keys, nd = RTE_DIM(exception_keys), obj = &cfg->exception;
	} else if (strcmp(name, "prometheus") == 0) {
		defs = prom_keys, nd = RTE_DIM(prom_keys), obj = &cfg->prom;
		cfg->prom.enabled = true;
	} else {
		defs = netlink_keys, nd = RTE_DIM(netlink_keys), obj = &cfg->netlink;
		cfg->netlink.enabled = true;
	}
	for (k = 0; k < n; k++) {
		const char *key = e[k].name, *val = e[k].value;

		ret = set_key(c, defs, nd, obj, key, val);
		if (ret < 0)
			return ret;
		if (ret == 0)
			continue;
		/* [netlink] priority */
		if (strcmp(val, "file") == 0)
			cfg->netlink.kernel_wins = false;
		else if (strcmp(val, "kernel") == 0)
			cfg->netlink.kernel_wins = true;
		else
			return key_fail(c, key, val, "expected file or kernel");
	}
	if (obj == &cfg->prom) {
		uint8_t tmp[16];

		if (parse_ip(cfg->prom.addr, 4, tmp) != 0 && parse_ip(cfg->prom.addr, 6, tmp) != 0)
			return key_fail(c, "address", cfg->prom.addr,
					"expected a numeric IPv4 or IPv6 address");
	}
	return 0;
}

static int
parse_lcore_id(const char *s, unsigned int *out)
{
	uint64_t u;

	if (parse_u64(s, &u) != 0 || u >= LF_MAX_LCORE)
		return -EINVAL;
	*out = u;
	return 0;
}

static int
load_worker(struct ctx *c, struct lf_config *cfg, const char *arg, struct rte_cfgfile_entry *e,
	    int n)
{
	struct lf_worker_conf *w;
	unsigned int lcore, i;
	int k, ret;

	if (parse_lcore_id(arg, &lcore) != 0)
		return section_fail(c, "worker name must be its lcore id, 0 to %d",
				    LF_MAX_LCORE - 1);
	for (i = 0; i < cfg->n_workers; i++)
		if (cfg->workers[i].lcore == lcore)
			return section_fail(c, "lcore %u has two [worker] sections", lcore);
	if (cfg->n_workers == LF_MAX_WORKERS)
		return section_fail(c, "more than %d workers", LF_MAX_WORKERS);

	w = &cfg->workers[cfg->n_workers];
	memset(w, 0, sizeof(*w));
	w->lcore = lcore;
	w->spin_us = LF_SPIN_US_DEFAULT;
	w->sleep_max_us = LF_SLEEP_MAX_US_DEFAULT;
	strlcpy(w->section, c->section, sizeof(w->section));

	for (k = 0; k < n; k++) {
		char buf[CFG_VALUE_LEN];
		char *tok, *save = NULL;
		const char *key = e[k].name, *val = e[k].value;

		ret = set_key(c, worker_keys, RTE_DIM(worker_keys), w, key, val);
		if (ret < 0)
			return ret;
		if (ret == 0) /* spin_us, sleep_max_us */
			continue;
		if (strcmp(key, "rx_mode") == 0 || strcmp(key, "pmd_mgmt") == 0) {
			const bool mode = key[3] == 'm';
			const int i = mode ? name_index(lf_rx_mode_names, LF_RX_MODE_COUNT, val)
					   : name_index(lf_pmd_mgmt_names, LF_PMGMT_COUNT, val);

			if (i < 0)
				return key_fail(c, key, val, "expected %s",
						mode ? "poll, interrupt, hybrid or pmd-mgmt"
						     : "pause, monitor or scale");
			if (mode)
				w->rx_mode = (enum lf_rx_mode)i;
			else
				w->pmd_mgmt = (enum lf_pmd_mgmt)i;
			continue;
		}
		/* rx = PORT:QUEUE [PORT:QUEUE ...] */
		strlcpy(w->rx_text, val, sizeof(w->rx_text));
		strlcpy(buf, val, sizeof(buf));
		for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t,", &save)) {
			char *colon = strrchr(tok, ':');
			uint64_t q;
			int port;

			if (colon == NULL)
				return key_fail(c, key, val, "'%s' is not PORT:QUEUE", tok);
			*colon = '\0';
			port = config_port_index(cfg, tok);
			if (port < 0)
				return key_fail(c, key, val, "no [port %s] section", tok);
			if (parse_u64(colon + 1, &q) != 0 || q >= LF_MAX_QUEUES)
				return key_fail(c, key, val,
						"queue '%s' of port %s: expected 0 to %d",
						colon + 1, tok, LF_MAX_QUEUES - 1);
			if (w->n_rxq == LF_MAX_RXQ_PER_WORKER)
				return key_fail(c, key, val, "more than %d queues for one worker",
						LF_MAX_RXQ_PER_WORKER);
			w->rxq[w->n_rxq].port = port;
			w->rxq[w->n_rxq].queue = q;
			w->n_rxq++;
		}
	}
	if (w->n_rxq == 0)
		return section_fail(c, "missing key 'rx' (PORT:QUEUE pairs this worker polls)");
	ret = worker_rx_mode_check(c, w);
	if (ret != 0)
		return ret;
	cfg->n_workers++;
	return 0;
}

static int
load_nexthop(struct ctx *c, struct lf_config *cfg, const char *arg, struct rte_cfgfile_entry *e,
	     int n, unsigned int cap)
{
	struct lf_nexthop_conf *nh;
	bool has_port = false, has_mac = false;
	uint64_t id;
	unsigned int i;
	int k, ret;

	if (parse_u64(arg, &id) != 0 || id >= LF_MAX_NEXTHOPS)
		return section_fail(c, "next-hop id must be 0 to %d", LF_MAX_NEXTHOPS - 1);
	for (i = 0; i < cfg->n_nexthops; i++)
		if (cfg->nexthops[i].id == id)
			return section_fail(c, "next hop %" PRIu64 " defined twice", id);
	RTE_VERIFY(cfg->n_nexthops < cap);

	nh = &cfg->nexthops[cfg->n_nexthops];
	memset(nh, 0, sizeof(*nh));
	nh->id = id;
	for (k = 0; k < n; k++) {
		const char *key = e[k].name, *val = e[k].value;
		int port;

		ret = set_key(c, nexthop_keys, RTE_DIM(nexthop_keys), nh, key, val);
		if (ret <= 0)
			return ret;
		if (strcmp(key, "port") == 0) {
			port = config_port_index(cfg, val);
			if (port < 0)
				return key_fail(c, key, val, "no [port %s] section", val);
			nh->port = port;
			has_port = true;
		} else if (strcmp(key, "via") == 0) {
			memset(&nh->via, 0, sizeof(nh->via));
			if (parse_ip(val, 4, nh->via.a) == 0) {
				nh->via.af = 4, nh->via.plen = 32;
			} else if (parse_ip(val, 6, nh->via.a) == 0) {
				nh->via.af = 6, nh->via.plen = 128;
			} else {
				return key_fail(c, key, val,
						"expected an IPv4 or IPv6 address, e.g. 10.0.1.2");
			}
			nh->has_via = true;
		} else {
			struct rte_ether_addr *mac =
				strcmp(key, "mac") == 0 ? &nh->dst_mac : &nh->src_mac;

			if (parse_mac(val, mac) != 0)
				return key_fail(c, key, val,
						"expected a MAC address such as 02:00:00:00:00:02");
			if (mac == &nh->dst_mac) {
				has_mac = true;
			} else {
				if (!rte_is_valid_assigned_ether_addr(mac))
					return key_fail(c, key, val,
							"expected a unicast, non-zero MAC address");
				nh->has_src_mac = true;
			}
		}
	}
	if (!has_port)
		return section_fail(c, "missing key 'port'");
	if (!has_mac && !nh->has_via)
		return section_fail(c,
				    "missing key 'mac' or 'via' (the next hop's MAC, or its address to resolve it by ARP/ND)");
	nh->has_mac = has_mac;
	cfg->n_nexthops++;
	return 0;
}

/* Checks that span sections: queue ownership, lcores, counts. */
static int
cross_check(struct ctx *c, struct lf_config *cfg)
{
	unsigned int p, i, j, k;
	char v[16];

	if (cfg->n_ports == 0)
		return fail(c, "no [port NAME] section: at least one port is needed");
	if (cfg->n_workers == 0)
		return fail(c, "no [worker LCORE] section: at least one worker is needed");

	/* On an exception = kernel port ARP and ND go to the kernel (the XDP
	 * program passes them): a next hop given by address is resolved from
	 * the kernel's neighbours, which only [netlink] brings. */
	for (i = 0; i < cfg->n_nexthops && !cfg->netlink.enabled; i++) {
		const struct lf_nexthop_conf *nh = &cfg->nexthops[i];
		char sec[32], via[INET6_ADDRSTRLEN];

		if (!nh->has_via || nh->has_mac || cfg->ports[nh->port].exception != LF_EXC_KERNEL)
			continue;
		snprintf(sec, sizeof(sec), "nexthop %u", nh->id);
		c->section = sec;
		c->section_line = key_lineno(c, sec, "");
		inet_ntop(nh->via.af == 4 ? AF_INET : AF_INET6, nh->via.a, via, sizeof(via));
		return key_fail(c, "via", via,
				"[port %s] has exception = kernel: its neighbours are the kernel's, learnt over netlink; add a [netlink] section or give a mac",
				cfg->ports[nh->port].name);
	}

	for (i = 0; i < cfg->n_workers; i++) {
		if (cfg->workers[i].lcore == cfg->eal.main_lcore) {
			c->section = cfg->workers[i].section;
			c->section_line = key_lineno(c, c->section, "");
			snprintf(v, sizeof(v), "%u", cfg->eal.main_lcore);
			return section_fail(c,
					    "lcore %u is also [eal] main_lcore = %s; the main lcore runs the control thread, give the worker another lcore",
					    cfg->workers[i].lcore, v);
		}
	}

	for (p = 0; p < cfg->n_ports; p++) {
		struct lf_port_conf *port = &cfg->ports[p];
		uint8_t owner[LF_MAX_QUEUES];
		unsigned int nq = 0;

		memset(owner, 0, sizeof(owner));
		for (i = 0; i < cfg->n_workers; i++) {
			struct lf_worker_conf *w = &cfg->workers[i];

			c->section = w->section;
			for (k = 0; k < w->n_rxq; k++) {
				unsigned int q = w->rxq[k].queue;

				if (w->rxq[k].port != p)
					continue;
				if (owner[q] == i + 1)
					return key_fail(c, "rx", w->rx_text, "%s:%u listed twice",
							port->name, q);
				if (owner[q] != 0)
					return key_fail(c, "rx", w->rx_text,
							"queue %s:%u is already polled by [%s]; each RX queue has exactly one owner",
							port->name, q,
							cfg->workers[owner[q] - 1].section);
				owner[q] = i + 1;
				if (q + 1 > nq)
					nq = q + 1;
			}
		}
		c->section = port->section;
		snprintf(v, sizeof(v), "%u", port->rx_queues);
		if (port->rx_queues == 0)
			port->rx_queues = nq ? nq : 1;
		for (j = 0; j < LF_MAX_QUEUES; j++) {
			if (j >= port->rx_queues && owner[j] != 0) {
				c->section = cfg->workers[owner[j] - 1].section;
				return key_fail(c, "rx", cfg->workers[owner[j] - 1].rx_text,
						"polls queue %s:%u but [%s] has rx_queues = %u",
						port->name, j, port->section, port->rx_queues);
			}
			if (j < port->rx_queues && owner[j] == 0 && nq != 0) {
				if (key_lineno(c, port->section, "rx_queues") != 0)
					return key_fail(c, "rx_queues", v,
							"queue %u is polled by no [worker]; its packets would be lost",
							j);
				c->section_line = key_lineno(c, port->section, "");
				return section_fail(c,
						    "queue %u is polled by no [worker] but higher queues are; its packets would be lost",
						    j);
			}
		}
		port->tx_queues = cfg->n_workers;
	}
	return 0;
}

static void
set_defaults(struct lf_config *cfg)
{
	cfg->eal.main_lcore = 0;
	strlcpy(cfg->eal.file_prefix, "lanefwd", sizeof(cfg->eal.file_prefix));
	cfg->eal.huge = true;
	cfg->eal.telemetry = true;
	cfg->pipeline.burst = 32;
	cfg->pipeline.burst_min = 4;
	cfg->pipeline.burst_max = LF_BURST_MAX;
	cfg->pipeline.latency_target_us = 50;
	cfg->pipeline.latency_percentile = 99.99;
	cfg->pipeline.prefetch_auto = true;
	cfg->pipeline.tx_drain_us = 100;
	cfg->pipeline.mbufs = 0;
	cfg->pipeline.mbuf_cache = 256;
	cfg->pipeline.latency = true;
	strlcpy(cfg->pipeline.latency_clock, "tsc", sizeof(cfg->pipeline.latency_clock));
	cfg->routes.ipv4_max_routes = 1 << 20;
	cfg->routes.ipv4_tbl8 = 4096;
	cfg->routes.ipv6_max_routes = 1 << 18;
	cfg->routes.ipv6_tbl8 = 1 << 16;
	strlcpy(cfg->routes.fib_lookup, "auto", sizeof(cfg->routes.fib_lookup));
	cfg->flow.entries = 1 << 20;
	cfg->flow.idle_timeout_ms = 30000;
	cfg->flow.evict = true;
	strlcpy(cfg->upf.pfcp_addr, "127.0.0.1", sizeof(cfg->upf.pfcp_addr));
	cfg->upf.pfcp_port = 8805;
	cfg->upf.max_sessions = 100000;
	cfg->upf.buffer_packets = 64;
	cfg->upf.err_ind_pps = 100;
	cfg->upf.urrs_per_session = 2;
	cfg->upf.qers_per_session = 2;
	cfg->eal.pdump = true;
	cfg->icmp.echo = true;
	cfg->icmp.time_exceeded = true;
	cfg->icmp.unreachable = true;
	cfg->icmp.frag_needed = true;
	cfg->icmp.rate_pps = 1000;
	cfg->icmp.burst = 100;
	cfg->neigh.max_entries = 4096;
	cfg->neigh.reachable_ms = 30000;
	cfg->neigh.retrans_ms = 1000;
	cfg->neigh.retries = 3;
	cfg->neigh.queue_packets = 16;
	cfg->neigh.gratuitous = true;
	cfg->neigh.punt_pps = 10000;
	cfg->neigh.punt_burst = 1000;
	cfg->exception.punt_pps = 20000;
	cfg->exception.punt_burst = 2000;
	strlcpy(cfg->prom.addr, "127.0.0.1", sizeof(cfg->prom.addr));
	cfg->prom.port = 9469;
	cfg->netlink.table = 254;
	cfg->netlink.max_routes = 1000000;
	cfg->netlink.max_nexthops = 1024;
}

/*
 * EAL options [eal] extra may pass without allow_unsafe_extra: tuning that
 * neither loads code, nor writes files, nor names devices (devargs such as
 * net_pcap's tx_pcap= write any file). Everything else, -d and --vdev
 * first, needs the opt-in: whoever writes the configuration runs as root.
 */
enum eal_arg { EAL_ARG_NONE, EAL_ARG_REQUIRED, EAL_ARG_OPTIONAL };

static const struct {
	const char *name;
	enum eal_arg arg;
} eal_extra_allowed[] = {
	{ "-n", EAL_ARG_REQUIRED },
	{ "-r", EAL_ARG_REQUIRED },
	{ "--socket-mem", EAL_ARG_REQUIRED },
	{ "--socket-limit", EAL_ARG_REQUIRED },
	{ "--log-level", EAL_ARG_REQUIRED },
	{ "--iova-mode", EAL_ARG_REQUIRED },
	{ "--force-max-simd-bitwidth", EAL_ARG_REQUIRED },
	{ "--base-virtaddr", EAL_ARG_REQUIRED },
	{ "--vfio-intr", EAL_ARG_REQUIRED },
	{ "--vfio-vf-token", EAL_ARG_REQUIRED },
	{ "--mbuf-pool-ops-name", EAL_ARG_REQUIRED },
	{ "--huge-unlink", EAL_ARG_OPTIONAL },
	{ "--legacy-mem", EAL_ARG_NONE },
	{ "--single-file-segments", EAL_ARG_NONE },
	{ "--match-allocations", EAL_ARG_NONE },
	{ "--no-shconf", EAL_ARG_NONE },
	{ "--no-hpet", EAL_ARG_NONE },
	{ "--in-memory", EAL_ARG_NONE },
	{ "--no-telemetry", EAL_ARG_NONE },
	{ "--telemetry", EAL_ARG_NONE },
};

/* Options refused with the reason named, as operators reach for them. */
static const struct {
	const char *name;
	const char *why;
} eal_extra_unsafe[] = {
	{ "-d", "loads a shared object into lanefwd" },
	{ "--driver-path", "loads a shared object into lanefwd" },
	{ "--vdev",
	  "creates a device whose devargs may write files (net_pcap tx_pcap=) or load BPF programs; use a [port] section" },
	{ "-a", "names a device; use a [port] section" },
	{ "--allow", "names a device; use a [port] section" },
	{ "-b", "names a device; use a [port] section" },
	{ "--block", "names a device; use a [port] section" },
	{ "--trace", "writes trace files" },
	{ "--trace-dir", "writes trace files" },
	{ "--trace-bufsz", "writes trace files" },
	{ "--trace-mode", "writes trace files" },
	{ "--huge-dir", "creates files in another directory" },
	{ "--file-prefix", "changes where EAL writes its runtime files; use [eal] file_prefix" },
	{ "--create-uio-dev", "creates device nodes" },
	{ "--syslog", "sends EAL logs to another syslog facility" },
};

/*
 * Check [eal] extra against the allow-list unless allow_unsafe_extra is
 * set. The split is the one config_eal_args() makes: on blanks.
 */
static int
check_eal_extra(struct ctx *c, const struct lf_config *cfg)
{
	char buf[sizeof(cfg->eal.extra)];
	char *tok, *save = NULL;
	unsigned int i;

	if (cfg->eal.allow_unsafe_extra || cfg->eal.extra[0] == '\0')
		return 0;
	strlcpy(buf, cfg->eal.extra, sizeof(buf));
	for (tok = strtok_r(buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		size_t n = strcspn(tok, "=");
		enum eal_arg arg = EAL_ARG_NONE;
		bool known = false, attached = tok[n] == '=';

		/* Short options take their value attached (-n4) or next. */
		if (tok[0] == '-' && tok[1] != '-' && tok[1] != '\0') {
			n = 2;
			attached = tok[2] != '\0';
		}
		for (i = 0; i < RTE_DIM(eal_extra_unsafe); i++)
			if (strlen(eal_extra_unsafe[i].name) == n &&
			    strncmp(tok, eal_extra_unsafe[i].name, n) == 0)
				return key_fail(c, "extra", cfg->eal.extra,
						"'%.*s' %s; set [eal] allow_unsafe_extra = yes to pass it anyway (docs/security.md)",
						(int)n, tok, eal_extra_unsafe[i].why);
		for (i = 0; i < RTE_DIM(eal_extra_allowed); i++)
			if (strlen(eal_extra_allowed[i].name) == n &&
			    strncmp(tok, eal_extra_allowed[i].name, n) == 0) {
				known = true;
				arg = eal_extra_allowed[i].arg;
			}
		if (!known)
			return key_fail(c, "extra", cfg->eal.extra,
					"'%s' is not an EAL option extra may pass without [eal] allow_unsafe_extra = yes (docs/security.md lists them)",
					tok);
		if (arg == EAL_ARG_NONE && attached)
			return key_fail(c, "extra", cfg->eal.extra, "'%.*s' takes no value", (int)n,
					tok);
		if (arg == EAL_ARG_REQUIRED && !attached) {
			/* The value is the next token. */
			if (strtok_r(NULL, " \t", &save) == NULL)
				return key_fail(c, "extra", cfg->eal.extra, "'%s' needs a value",
						tok);
		}
	}
	return 0;
}

static int
check_eal(struct ctx *c, const struct lf_config *cfg)
{
	const char *s;

	c->section = "eal";
	for (s = cfg->eal.file_prefix; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return key_fail(c, "file_prefix", cfg->eal.file_prefix,
					"expected letters, digits, '-' and '_'");
	if (cfg->eal.iova_mode[0] != '\0' && strcmp(cfg->eal.iova_mode, "va") != 0 &&
	    strcmp(cfg->eal.iova_mode, "pa") != 0)
		return key_fail(c, "iova_mode", cfg->eal.iova_mode, "expected va or pa");
	return check_eal_extra(c, cfg);
}

/* burst = auto's keys: only with it, and consistent. */
static int
check_burst_auto(struct ctx *c, struct lf_pipeline_conf *p)
{
	static const char *const auto_keys[] = { "burst_min", "burst_max", "latency_target_us",
						 "latency_percentile" };
	char v[32];
	unsigned int i;

	for (i = 0; !p->burst_auto && i < RTE_DIM(auto_keys); i++) {
		if (key_lineno(c, "pipeline", auto_keys[i]) == 0)
			continue;
		if (i == 0 || i == 1)
			snprintf(v, sizeof(v), "%u", i == 0 ? p->burst_min : p->burst_max);
		else if (i == 2)
			snprintf(v, sizeof(v), "%u", p->latency_target_us);
		else
			snprintf(v, sizeof(v), "%.10g", p->latency_percentile);
		return key_fail(c, auto_keys[i], v,
				"only with burst = auto; burst = %u is every poll's burst",
				p->burst);
	}
	if (!p->burst_auto)
		return 0;
	if (p->burst_min > p->burst_max) {
		snprintf(v, sizeof(v), "%u", p->burst_min);
		return key_fail(c, "burst_min", v, "greater than burst_max = %u", p->burst_max);
	}
	if (!p->latency)
		return key_fail(c, "burst", "auto",
				"needs latency = yes: it steers by the residence times latency records");
	if (p->latency_hw)
		return key_fail(c, "burst", "auto",
				"needs latency_clock = tsc: with hw the ring wait counts in the residence, and a smaller burst, the controller's answer to a miss, makes that longer");
	/* The arrays, TX buffers and mbuf pools are sized for the largest. */
	p->burst = p->burst_max;
	return 0;
}

static int
check_pipeline(struct ctx *c, struct lf_config *cfg)
{
	int ret;

	c->section = "pipeline";
	if (strcmp(cfg->pipeline.latency_clock, "hw") == 0)
		cfg->pipeline.latency_hw = true;
	ret = check_burst_auto(c, &cfg->pipeline);
	if (ret != 0)
		return ret;
	if (cfg->pipeline.prefetch_auto)
		cfg->pipeline.prefetch_distance = RTE_MIN(cfg->pipeline.burst / 2, LF_PREFETCH_MAX);
	if (!cfg->pipeline.latency_hw && strcmp(cfg->pipeline.latency_clock, "tsc") != 0)
		return key_fail(c, "latency_clock", cfg->pipeline.latency_clock,
				"expected tsc (the TSC when the RX burst returns) or hw (the ports' RX timestamps)");
	return 0;
}

static int
check_routes(struct ctx *c, struct lf_config *cfg)
{
	static const char *const names[] = {
		[LF_FIB_LOOKUP_AUTO] = "auto",
		[LF_FIB_LOOKUP_SCALAR] = "scalar",
		[LF_FIB_LOOKUP_AVX512] = "avx512",
	};
	unsigned int i;

	c->section = "routes";
	for (i = 0; i < RTE_DIM(names); i++)
		if (strcmp(cfg->routes.fib_lookup, names[i]) == 0) {
			cfg->routes.lookup = i;
			return 0;
		}
	return key_fail(c, "fib_lookup", cfg->routes.fib_lookup,
			"expected auto (AVX-512 where rte_fib offers it, else scalar), scalar or avx512");
}

int
config_load(const char *path, struct lf_config *cfg, char *err, size_t errlen)
{
	static const struct rte_cfgfile_parameters params = {
		.comment_character = COMMENT_CHAR,
	};
	struct ctx c = { .path = path, .err = err, .errlen = errlen };
	struct rte_cfgfile_entry *entries = NULL;
	struct rte_cfgfile *file = NULL;
	unsigned int n_nh_sections = 0;
	int n_sections, s, pass, ret;

	memset(cfg, 0, sizeof(*cfg));
	err[0] = '\0';
	{
		char real[PATH_MAX];

		if (realpath(path, real) == NULL)
			return fail(&c, "cannot open: %s", strerror(errno));
		if (strlen(real) >= sizeof(cfg->path))
			return fail(&c, "path longer than %zu characters", sizeof(cfg->path) - 1);
		strlcpy(cfg->path, real, sizeof(cfg->path));
		c.realpath = cfg->path;
	}
	set_defaults(cfg);

	ret = prescan(&c);
	if (ret < 0)
		goto out;

	file = rte_cfgfile_load_with_params(path, 0, &params);
	if (file == NULL) {
		ret = fail(&c, "rte_cfgfile could not parse the file");
		goto out;
	}
	n_sections = rte_cfgfile_num_sections(file, NULL, 0);
	for (s = 0; s < n_sections; s++) {
		char name[CFG_NAME_LEN];

		rte_cfgfile_section_num_entries_by_index(file, name, s);
		if (section_arg(name, "nexthop") != NULL)
			n_nh_sections++;
	}
	cfg->nexthops = calloc(n_nh_sections ? n_nh_sections : 1, sizeof(*cfg->nexthops));
	entries = calloc(c.n_lines ? c.n_lines : 1, sizeof(*entries));
	if (cfg->nexthops == NULL || entries == NULL) {
		ret = fail(&c, "out of memory");
		goto out;
	}

	/* Pass 0: everything but workers and next hops, which name ports. */
	for (pass = 0; pass < 2; pass++) {
		for (s = 0; s < n_sections; s++) {
			char name[CFG_NAME_LEN];
			const char *arg;
			int n;

			n = rte_cfgfile_section_entries_by_index(file, s, name, entries, c.n_lines);
			c.section = name;
			c.section_line = key_lineno(&c, name, "");
			if (strcmp(name, "acl") == 0) {
				if (pass == 0 && (ret = load_acl(&c, cfg, entries, n)) < 0)
					goto out;
			} else if (strcmp(name, "flow") == 0) {
				if (pass == 0 && (ret = load_flow(&c, cfg, entries, n)) < 0)
					goto out;
			} else if (strcmp(name, "upf") == 0) {
				if (pass == 0 && (ret = load_upf(&c, cfg, entries, n)) < 0)
					goto out;
			} else if (strcmp(name, "icmp") == 0 || strcmp(name, "neighbour") == 0 ||
				   strcmp(name, "exception") == 0 ||
				   strcmp(name, "prometheus") == 0 ||
				   strcmp(name, "netlink") == 0) {
				if (pass == 0 &&
				    (ret = load_keys_section(&c, cfg, name, entries, n)) < 0)
					goto out;
			} else if ((arg = section_arg(name, "network_instance")) != NULL) {
				if (pass == 1 && (ret = load_ni(&c, cfg, arg, entries, n)) < 0)
					goto out;
			} else if (strcmp(name, "eal") == 0 || strcmp(name, "pipeline") == 0 ||
				   strcmp(name, "routes") == 0) {
				const struct key_def *defs;
				unsigned int nd;
				void *obj;
				int k;

				if (pass != 0)
					continue;
				if (name[0] == 'e') {
					defs = eal_keys, nd = RTE_DIM(eal_keys), obj = &cfg->eal;
				} else if (name[0] == 'p') {
					defs = pipeline_keys, nd = RTE_DIM(pipeline_keys);
					obj = &cfg->pipeline;
				} else {
					defs = routes_keys, nd = RTE_DIM(routes_keys);
					obj = &cfg->routes;
				}
				for (k = 0; k < n; k++) {
					ret = set_key(&c, defs, nd, obj, entries[k].name,
						      entries[k].value);
					if (ret == 1) /* [pipeline] burst, ... */
						ret = set_pipeline_special(&c, &cfg->pipeline,
									   entries[k].name,
									   entries[k].value);
					if (ret != 0)
						goto out;
				}
			} else if ((arg = section_arg(name, "port")) != NULL) {
				if (pass == 0 && (ret = load_port(&c, cfg, arg, entries, n)) < 0)
					goto out;
			} else if ((arg = section_arg(name, "worker")) != NULL) {
				if (pass == 1 && (ret = load_worker(&c, cfg, arg, entries, n)) < 0)
					goto out;
			} else if ((arg = section_arg(name, "nexthop")) != NULL) {
				if (pass == 1 &&
				    (ret = load_nexthop(&c, cfg, arg, entries, n, n_nh_sections)) <
					    0)
					goto out;
			} else {
				ret = section_fail(&c,
						   "unknown section; allowed: [eal], [pipeline], [routes], [acl], [flow], [upf], [network_instance NAME], [icmp], [neighbour], [exception], [prometheus], [netlink], [port NAME], [worker LCORE], [nexthop ID]");
				goto out;
			}
		}
	}
	cfg->eal.memory_line = key_lineno(&c, "eal", "memory");
	cfg->eal.huge_line = key_lineno(&c, "eal", "huge");
	ret = check_eal(&c, cfg);
	if (ret == 0)
		ret = check_pipeline(&c, cfg);
	if (ret == 0)
		ret = check_routes(&c, cfg);
	if (ret == 0)
		ret = cross_check(&c, cfg);
out:
	free(entries);
	free(c.lines);
	if (file != NULL)
		rte_cfgfile_close(file);
	if (ret != 0)
		config_free(cfg);
	return ret;
}

void
config_free(struct lf_config *cfg)
{
	free(cfg->nexthops);
	cfg->nexthops = NULL;
	cfg->n_nexthops = 0;
}

/*
 * Memory estimate. Measured with rte_malloc_get_socket_stats() around
 * rte_fib_create(), rte_fib6_create(), lf_flow_create() and acl_build() on
 * DPDK 22.11 (docs/security.md has the figures and the method).
 */
#define MIB (UINT64_C(1) << 20)
#define EST_FIB4_TBL24 (UINT64_C(1) << 25) /* 2^24 entries of 2 bytes */
#define EST_FIB4_TBL8 512 /* 256 entries of 2 bytes */
#define EST_FIB6_TBL24 (UINT64_C(1) << 26) /* 2^24 entries of 4 bytes */
#define EST_FIB6_TBL8 1024 /* 256 entries of 4 bytes */
#define EST_RIB_NODE 424 /* measured per max_routes, both families */
#define EST_FLOW_ENTRY 148 /* measured, both layouts, 2 slots per flow */
/*
 * [upf], per session of max_sessions: the store's key tables, about 40
 * bytes (measured: rte_malloc's use at start, 1M against 1 session, 245 MiB
 * with one worker, of which 208 the worker's slots, before the TEID array),
 * the TEID array (include/lib/upf_teid.h: 8 bytes a slot, the slots a
 * power of two at least twice max_sessions, so up to 32 bytes), and a
 * session's object once established, about 430 bytes with 2 PDRs
 * (upf_store_counts); per worker, the URR counter and QER meter slots
 * ([upf] urrs_per_session and qers_per_session: 32 and 72 bytes each);
 * and the UE table's direct arrays (include/lib/upf_uetab.h), 8 bytes per
 * address of each instance's first IPv4 ue_alloc prefix of /10 or longer.
 */
#define EST_UPF_SESSION (40 + 32 + 430)
#define EST_UPF_URR_SLOT 32
#define EST_UPF_QER_SLOT 72
/*
 * Per ACL rule: the highest of the ClassBench sets measured (ipc1 1k for
 * the built classifier, ipc1 1k and acl1 10k IPv6 for the build's peak),
 * so that the figure errs high; larger sets measured less per rule.
 */
#define EST_ACL4_RULE 4608
#define EST_ACL6_RULE 5120
#define EST_ACL4_BUILD_RULE (64 * 1024)
#define EST_ACL6_BUILD_RULE (64 * 1024)
/* EAL's memory with --no-huge and no -m (MEMSIZE_IF_NO_HUGE_PAGE). */
#define EAL_NO_HUGE_DEFAULT (64 * MIB)

void
config_mem_estimate(const struct lf_config *cfg, size_t acl4_rules, size_t acl6_rules,
		    struct lf_mem_estimate *e)
{
	memset(e, 0, sizeof(*e));
	e->fib4 = EST_FIB4_TBL24 + (uint64_t)cfg->routes.ipv4_tbl8 * EST_FIB4_TBL8 +
		(uint64_t)cfg->routes.ipv4_max_routes * EST_RIB_NODE;
	e->fib6 = EST_FIB6_TBL24 + (uint64_t)cfg->routes.ipv6_tbl8 * EST_FIB6_TBL8 +
		(uint64_t)cfg->routes.ipv6_max_routes * EST_RIB_NODE;
	e->acl4 = (uint64_t)acl4_rules * EST_ACL4_RULE;
	e->acl6 = (uint64_t)acl6_rules * EST_ACL6_RULE;
	e->acl_build = RTE_MAX((uint64_t)acl4_rules * EST_ACL4_BUILD_RULE,
			       (uint64_t)acl6_rules * EST_ACL6_BUILD_RULE);
	if (cfg->flow.enabled)
		e->flow = (uint64_t)cfg->flow.entries * EST_FLOW_ENTRY * cfg->n_workers;
	if (cfg->upf.enabled)
		e->upf = (uint64_t)cfg->upf.max_sessions *
			(EST_UPF_SESSION +
			 (uint64_t)cfg->n_workers *
				 (cfg->upf.urrs_per_session * EST_UPF_URR_SLOT +
				  cfg->upf.qers_per_session * EST_UPF_QER_SLOT));
	if (cfg->upf.enabled) {
		struct upf_store_params p;
		unsigned int i;

		upf_store_ue_dirs(&p, &cfg->upf);
		for (i = 0; i < p.n_ue_dir; i++)
			e->upf += sizeof(uint64_t) << (32 - p.ue_dir[i].plen);
	}
	e->total = e->fib4 + e->fib6 + e->acl4 + e->acl6 + e->flow + e->upf;
	if (cfg->eal.memory_mb != 0)
		e->limit = (uint64_t)cfg->eal.memory_mb * MIB;
	e->no_huge_default = cfg->eal.memory_mb == 0 && !cfg->eal.huge;
}

int
config_mem_check(const struct lf_config *cfg, const struct lf_mem_estimate *e, char *err,
		 size_t errlen)
{
	if (e->limit == 0 || e->total <= e->limit)
		return 0;
	snprintf(err, errlen,
		 "%s:%d: [eal] memory = '%u': the tables need about %" PRIu64
		 " MiB (FIB IPv4 %" PRIu64 ", IPv6 %" PRIu64 ", ACL %" PRIu64
		 ", flow tables %" PRIu64 ", UPF %" PRIu64 "), more than the %" PRIu64
		 " MiB of EAL memory it allows; raise it or lower [routes] *_max_routes, *_tbl8, [flow] entries, [upf] max_sessions or the rules (docs/security.md)",
		 cfg->path, cfg->eal.memory_line, cfg->eal.memory_mb, e->total / MIB, e->fib4 / MIB,
		 e->fib6 / MIB, (e->acl4 + e->acl6) / MIB, e->flow / MIB, e->upf / MIB,
		 e->limit / MIB);
	return -E2BIG;
}

void
config_mem_print(const struct lf_mem_estimate *e, FILE *f)
{
	fprintf(f,
		"# memory estimate (docs/security.md): FIB IPv4 %" PRIu64 " MiB, IPv6 %" PRIu64
		" MiB; ACL %" PRIu64 " MiB (its build about %" PRIu64
		" MiB more, outside EAL memory); flow tables %" PRIu64 " MiB; UPF %" PRIu64
		" MiB; total %" PRIu64 " MiB of EAL memory, mbuf pools not included",
		e->fib4 / MIB, e->fib6 / MIB, (e->acl4 + e->acl6) / MIB, e->acl_build / MIB,
		e->flow / MIB, e->upf / MIB, e->total / MIB);
	if (e->limit != 0)
		fprintf(f, "; [eal] memory allows %" PRIu64 " MiB\n", e->limit / MIB);
	else if (e->no_huge_default)
		fprintf(f, "; huge = no without memory: EAL gives %" PRIu64 " MiB%s\n",
			EAL_NO_HUGE_DEFAULT / MIB,
			e->total > EAL_NO_HUGE_DEFAULT ? ", too little: set [eal] memory" : "");
	else
		fprintf(f, "; EAL takes hugepages as needed\n");
}

int
config_port_index(const struct lf_config *cfg, const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

static const char *
yesno(bool b)
{
	return b ? "yes" : "no";
}

/* "key = a/len, a/len" of a prefix list. */
static void
prefixes_dump(FILE *f, const char *key, const struct lf_upf_prefix *p, unsigned int n)
{
	char a[INET6_ADDRSTRLEN];
	unsigned int k;

	fprintf(f, "%s =", key);
	for (k = 0; k < n; k++)
		fprintf(f, "%s %s/%u", k ? "," : "",
			inet_ntop(p[k].af == 4 ? AF_INET : AF_INET6, p[k].a, a, sizeof(a)),
			p[k].plen);
	fprintf(f, "\n");
}

static void
upf_dump(const struct lf_upf_conf *u, FILE *f)
{
	char a[INET6_ADDRSTRLEN];
	unsigned int i, k;

	fprintf(f, "\n[upf]\n");
	if (u->has_n3_ipv4)
		fprintf(f, "n3_ipv4 = %s\n", inet_ntop(AF_INET, u->n3_ipv4, a, sizeof(a)));
	if (u->has_n3_ipv6)
		fprintf(f, "n3_ipv6 = %s\n", inet_ntop(AF_INET6, u->n3_ipv6, a, sizeof(a)));
	fprintf(f,
		"pfcp_addr = %s\npfcp_port = %u\nnode_id = %s\nmax_sessions = %u\n"
		"buffer_packets = %u\nerr_ind_pps = %u\nurrs_per_session = %u\n"
		"qers_per_session = %u\nheartbeat_s = %u\n",
		u->pfcp_addr, u->pfcp_port, u->node_id, u->max_sessions, u->buffer_packets,
		u->err_ind_pps, u->urrs_per_session, u->qers_per_session, u->heartbeat_s);
	for (i = 0; i < u->n_ni; i++) {
		fprintf(f, "\n[network_instance %s]\n", u->ni[i].name);
		prefixes_dump(f, "ue_pool", u->ni[i].pool, u->ni[i].n_pools);
		if (u->ni[i].n_alloc != 0)
			prefixes_dump(f, "ue_alloc", u->ni[i].alloc, u->ni[i].n_alloc);
		if (u->ni[i].pool_id[0] != '\0')
			fprintf(f, "ue_alloc_pool_id = %s\n", u->ni[i].pool_id);
		if (u->ni[i].alloc_ipv6_len != 64)
			fprintf(f, ALLOC_LEN_KEY " = %u\n", u->ni[i].alloc_ipv6_len);
		for (k = 1; k <= u->ni[i].n_named; k++) {
			const struct lf_upf_prefix *p;
			const unsigned int np = lf_upf_ni_alloc(&u->ni[i], k, &p);
			char kb[80];

			prefixes_dump(f, lf_upf_ni_alloc_key(&u->ni[i], k, kb, sizeof(kb)), p, np);
			if (u->ni[i].named[k - 1].ipv6_len != 64)
				fprintf(f, ALLOC_LEN_KEY ".%s = %u\n", u->ni[i].named[k - 1].id,
					u->ni[i].named[k - 1].ipv6_len);
		}
	}
}

static const char *const exc_names[] = {
	[LF_EXC_NONE] = "none",
	[LF_EXC_TAP] = "tap",
	[LF_EXC_KERNEL] = "kernel",
};

/* An address, with its prefix length when plen is set, into buf (64 bytes). */
static const char *
ip_str(const struct lf_ip_addr *ad, bool plen, char *buf)
{
	inet_ntop(ad->af == 4 ? AF_INET : AF_INET6, ad->a, buf, INET6_ADDRSTRLEN);
	if (plen)
		snprintf(buf + strlen(buf), 8, "/%u", ad->plen);
	return buf;
}

/* [icmp], [neighbour], [exception], [prometheus], [netlink]. */
static void
l3_dump(const struct lf_config *cfg, FILE *f)
{
	const struct lf_icmp_conf *ic = &cfg->icmp;
	const struct lf_neigh_conf *ne = &cfg->neigh;

	fprintf(f,
		"\n[icmp]\necho = %s\ntime_exceeded = %s\nunreachable = %s\nfrag_needed = %s\n"
		"rate_pps = %u\nburst = %u\n",
		yesno(ic->echo), yesno(ic->time_exceeded), yesno(ic->unreachable),
		yesno(ic->frag_needed), ic->rate_pps, ic->burst);
	fprintf(f,
		"\n[neighbour]\nmax_entries = %u\nreachable_ms = %u\nretrans_ms = %u\nretries = %u\n"
		"queue_packets = %u\ngratuitous = %s\npunt_pps = %u\npunt_burst = %u\n",
		ne->max_entries, ne->reachable_ms, ne->retrans_ms, ne->retries, ne->queue_packets,
		yesno(ne->gratuitous), ne->punt_pps, ne->punt_burst);
	fprintf(f, "\n[exception]\npunt_pps = %u\npunt_burst = %u\n", cfg->exception.punt_pps,
		cfg->exception.punt_burst);
	if (cfg->prom.enabled)
		fprintf(f, "\n[prometheus]\naddress = %s\nport = %u\n", cfg->prom.addr,
			cfg->prom.port);
	if (cfg->netlink.enabled)
		fprintf(f,
			"\n[netlink]\ntable = %u\npriority = %s\nmax_routes = %u\nmax_nexthops = %u\n",
			cfg->netlink.table, cfg->netlink.kernel_wins ? "kernel" : "file",
			cfg->netlink.max_routes, cfg->netlink.max_nexthops);
}

void
config_dump(const struct lf_config *cfg, FILE *f)
{
	char a[64];
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int i, k;

	fprintf(f, "# resolved configuration of %s\n", cfg->path);
	fprintf(f,
		"[eal]\nmain_lcore = %u\nfile_prefix = %s\nmemory = %u\nhuge = %s\n"
		"in_memory = %s\ntelemetry = %s\n",
		cfg->eal.main_lcore, cfg->eal.file_prefix, cfg->eal.memory_mb, yesno(cfg->eal.huge),
		yesno(cfg->eal.in_memory), yesno(cfg->eal.telemetry));
	if (cfg->eal.iova_mode[0] != '\0')
		fprintf(f, "iova_mode = %s\n", cfg->eal.iova_mode);
	if (cfg->eal.log_level[0] != '\0')
		fprintf(f, "log_level = %s\n", cfg->eal.log_level);
	if (cfg->eal.extra[0] != '\0')
		fprintf(f, "extra = %s\n", cfg->eal.extra);
	if (cfg->eal.allow_unsafe_extra)
		fprintf(f, "allow_unsafe_extra = yes\n");
	fprintf(f, "pdump = %s\n", yesno(cfg->eal.pdump));
	if (cfg->pipeline.burst_auto)
		fprintf(f,
			"\n[pipeline]\nburst = auto\nburst_min = %u\nburst_max = %u\n"
			"latency_target_us = %u\nlatency_percentile = %.10g\n",
			cfg->pipeline.burst_min, cfg->pipeline.burst_max,
			cfg->pipeline.latency_target_us, cfg->pipeline.latency_percentile);
	else
		fprintf(f, "\n[pipeline]\nburst = %u\n", cfg->pipeline.burst);
	if (cfg->pipeline.prefetch_auto) {
		unsigned int i;

		fprintf(f,
			"# auto: %u (half the burst); no packet data prefetch on ports whose driver\n"
			"# copies each frame (",
			cfg->pipeline.prefetch_distance);
		for (i = 0; i < RTE_DIM(copying_drivers); i++)
			fprintf(f, "%s, ", copying_drivers[i]);
		fprintf(f, "%s without\n# %s)\nprefetch_distance = auto\n", MEMIF_DRIVER,
			MEMIF_ZERO_COPY);
	} else {
		fprintf(f, "prefetch_distance = %u\n", cfg->pipeline.prefetch_distance);
	}
	fprintf(f,
		"tx_drain_us = %u\nmbufs = %u\nmbuf_cache = %u\nlatency = %s\nlatency_clock = %s\n",
		cfg->pipeline.tx_drain_us, cfg->pipeline.mbufs, cfg->pipeline.mbuf_cache,
		yesno(cfg->pipeline.latency), cfg->pipeline.latency_clock);
	fprintf(f, "\n[routes]\n");
	if (cfg->routes.ipv4[0] != '\0')
		fprintf(f, "ipv4 = %s\n", cfg->routes.ipv4);
	if (cfg->routes.ipv6[0] != '\0')
		fprintf(f, "ipv6 = %s\n", cfg->routes.ipv6);
	fprintf(f, "ipv4_max_routes = %u\nipv4_tbl8 = %u\nipv6_max_routes = %u\nipv6_tbl8 = %u\n",
		cfg->routes.ipv4_max_routes, cfg->routes.ipv4_tbl8, cfg->routes.ipv6_max_routes,
		cfg->routes.ipv6_tbl8);
	fprintf(f, "fib_lookup = %s\n", cfg->routes.fib_lookup);
	if (cfg->acl.ipv4[0] != '\0' || cfg->acl.ipv6[0] != '\0') {
		fprintf(f, "\n[acl]\n");
		if (cfg->acl.ipv4[0] != '\0')
			fprintf(f, "ipv4 = %s\n", cfg->acl.ipv4);
		if (cfg->acl.ipv6[0] != '\0')
			fprintf(f, "ipv6 = %s\n", cfg->acl.ipv6);
		fprintf(f, "default = %s\n", cfg->acl.deny ? "deny" : "permit");
	}
	if (cfg->flow.enabled)
		fprintf(f,
			"\n[flow]\nentries = %u\nidle_timeout_ms = %u\nevict = %s\nlayout = %s\n",
			cfg->flow.entries, cfg->flow.idle_timeout_ms,
			cfg->flow.evict ? "oldest" : "none", cfg->flow.fat ? "fat" : "hotcold");
	if (cfg->upf.enabled)
		upf_dump(&cfg->upf, f);
	l3_dump(cfg, f);
	for (i = 0; i < cfg->n_ports; i++) {
		const struct lf_port_conf *p = &cfg->ports[i];

		fprintf(f,
			"\n[port %s]\n%s = %s\nrx_queues = %u\n# tx_queues = %u (one per worker)\n"
			"rx_desc = %u\ntx_desc = %u\nmtu = %u\npromiscuous = %s\n",
			p->name, p->is_pci ? "pci" : "vdev", p->devargs, p->rx_queues, p->tx_queues,
			p->rx_desc, p->tx_desc, p->mtu, yesno(p->promiscuous));
		if (p->has_mac) {
			rte_ether_format_addr(mac, sizeof(mac), &p->mac);
			fprintf(f, "mac = %s\n", mac);
		}
		if (p->n_addrs != 0) {
			fprintf(f, "address =");
			for (k = 0; k < p->n_addrs; k++)
				fprintf(f, "%s %s", k ? "," : "", ip_str(&p->addr[k], true, a));
			fprintf(f, "\n");
		}
		fprintf(f, "exception = %s\n", exc_names[p->exception]);
		if (p->exception_if[0] != '\0')
			fprintf(f, "exception_if = %s\n", p->exception_if);
	}
	for (i = 0; i < cfg->n_workers; i++) {
		const struct lf_worker_conf *w = &cfg->workers[i];

		fprintf(f, "\n[worker %u]\nrx =", w->lcore);
		for (k = 0; k < w->n_rxq; k++)
			fprintf(f, " %s:%u", cfg->ports[w->rxq[k].port].name, w->rxq[k].queue);
		fprintf(f, "\nrx_mode = %s\n", lf_rx_mode_names[w->rx_mode]);
		if (w->rx_mode == LF_RX_HYBRID)
			fprintf(f, "spin_us = %u\n", w->spin_us);
		if (w->rx_mode == LF_RX_HYBRID || w->rx_mode == LF_RX_INTERRUPT)
			fprintf(f, "sleep_max_us = %u\n", w->sleep_max_us);
		if (w->rx_mode == LF_RX_PMD_MGMT)
			fprintf(f, "pmd_mgmt = %s\n", lf_pmd_mgmt_names[w->pmd_mgmt]);
	}
	for (i = 0; i < cfg->n_nexthops; i++) {
		const struct lf_nexthop_conf *nh = &cfg->nexthops[i];

		fprintf(f, "\n[nexthop %u]\nport = %s\n", nh->id, cfg->ports[nh->port].name);
		if (nh->has_via)
			fprintf(f, "via = %s\n", ip_str(&nh->via, false, a));
		if (nh->has_mac || !nh->has_via) {
			rte_ether_format_addr(mac, sizeof(mac), &nh->dst_mac);
			fprintf(f, "mac = %s\n", mac);
		}
		if (nh->has_src_mac) {
			rte_ether_format_addr(mac, sizeof(mac), &nh->src_mac);
			fprintf(f, "src_mac = %s\n", mac);
		}
	}
}

int
config_eal_args(const struct lf_config *cfg, char *argv0, char **argv, int max, char *buf,
		size_t buflen)
{
	size_t off = 0;
	int argc = 0;
	bool any_pci = false;
	unsigned int i;
	char *tok, *save = NULL;

#define ADD(s)                          \
	do {                            \
		if (argc >= max - 1)    \
			return -ENOSPC; \
		argv[argc++] = (s);     \
	} while (0)
#define ADDF(...)                                                        \
	do {                                                             \
		int _n = snprintf(buf + off, buflen - off, __VA_ARGS__); \
		if (_n < 0 || (size_t)_n >= buflen - off)                \
			return -ENOSPC;                                  \
		ADD(buf + off);                                          \
		off += _n + 1;                                           \
	} while (0)

	ADD(argv0);
	ADD("-l");
	{
		int n = snprintf(buf + off, buflen - off, "%u", cfg->eal.main_lcore);

		for (i = 0; i < cfg->n_workers && n > 0 && (size_t)n < buflen - off; i++)
			n += snprintf(buf + off + n, buflen - off - n, ",%u",
				      cfg->workers[i].lcore);
		if (n < 0 || (size_t)n >= buflen - off)
			return -ENOSPC;
		ADD(buf + off);
		off += n + 1;
	}
	ADD("--main-lcore");
	ADDF("%u", cfg->eal.main_lcore);
	ADD("--file-prefix");
	ADD((char *)(uintptr_t)cfg->eal.file_prefix);
	if (cfg->eal.memory_mb != 0) {
		ADD("-m");
		ADDF("%u", cfg->eal.memory_mb);
	}
	if (!cfg->eal.huge)
		ADD("--no-huge");
	if (cfg->eal.in_memory)
		ADD("--in-memory");
	if (!cfg->eal.telemetry)
		ADD("--no-telemetry");
	if (cfg->eal.iova_mode[0] != '\0') {
		ADD("--iova-mode");
		ADD((char *)(uintptr_t)cfg->eal.iova_mode);
	}
	if (cfg->eal.log_level[0] != '\0') {
		ADD("--log-level");
		ADD((char *)(uintptr_t)cfg->eal.log_level);
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct lf_port_conf *p = &cfg->ports[i];

		ADD(p->is_pci ? "-a" : "--vdev");
		if (p->exception == LF_EXC_KERNEL) {
			/*
			 * lanefwd's XDP program instead of the PMD's default
			 * one (xdp.h). A lanefwd run from the build tree
			 * (the tests) takes the build tree's object, an
			 * installed one the installed object; each the other
			 * if its own is missing.
			 */
			char exe[PATH_MAX];
			ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
			const char *obj[2] = { LF_XDP_OBJ_INSTALLED, LF_XDP_OBJ_BUILD };
			int k;

			if (el > 0) {
				exe[el] = '\0';
				/* sizeof counts the NUL: the root and its slash. */
				if (strncmp(exe, LF_BUILD_ROOT "/", sizeof(LF_BUILD_ROOT)) == 0) {
					obj[0] = LF_XDP_OBJ_BUILD;
					obj[1] = LF_XDP_OBJ_INSTALLED;
				}
			}
			k = access(obj[0], R_OK) == 0 ? 0 : access(obj[1], R_OK) == 0 ? 1 : -1;
			if (k < 0) {
				fprintf(stderr,
					"lanefwd: config error: %s: [%s]: exception = kernel needs lanefwd's XDP program, readable at neither %s nor %s (meson install puts it there)\n",
					cfg->path, p->section, obj[0], obj[1]);
				return -ENOENT;
			}
			/* The PMD splits its devargs on commas. */
			if (strchr(obj[k], ',') != NULL) {
				fprintf(stderr,
					"lanefwd: config error: %s: [%s]: the XDP program's path %s has a comma, which devargs cannot carry\n",
					cfg->path, p->section, obj[k]);
				return -EINVAL;
			}
			ADDF("%s,xdp_prog=%s", p->devargs, obj[k]);
		} else {
			ADD((char *)(uintptr_t)p->devargs);
		}
		any_pci |= p->is_pci;
	}
	/* Only devices the configuration names are ever probed. */
	if (!any_pci)
		ADD("--no-pci");
	if (cfg->eal.extra[0] != '\0') {
		if (strlcpy(buf + off, cfg->eal.extra, buflen - off) >= buflen - off)
			return -ENOSPC;
		for (tok = strtok_r(buf + off, " \t", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t", &save))
			ADD(tok);
	}
	argv[argc] = NULL;
	return argc;
#undef ADD
#undef ADDF
}
