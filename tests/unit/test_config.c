/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the configuration loader (src/control/config.c): config_load() on
 * invalid files first (every error must name the file, the line, the
 * section, the key and the bad value where the loader knows them), then valid
 * files with their resolved values and defaults, relative route paths,
 * config_dump() round trips and the EAL argument vector of config_eal_args().
 * Every file is written by the test into its own temporary directory.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"

/* Temporary directory of this run and every file written into it. */
static char tmp_dir[256];
static char *tmp_files[256];
static unsigned int n_tmp_files;
static char *tmp_dirs[8];
static unsigned int n_tmp_dirs;

/* A port and a worker that make an otherwise valid file. */
#define TAIL_PORT "[port p0]\nvdev = net_null0\n"
#define TAIL_WORKER "[worker 1]\nrx = p0:0\n"
#define TAIL TAIL_PORT TAIL_WORKER
/* 266 characters: more than a value may hold (CFG_VALUE_LEN - 1), less than a line. */
#define LONG_VALUE                                                                     \
	"--a-long-eal-argument-0123456789-0123456789-0123456789-0123456789-0123456789" \
	"-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-012345678" \
	"-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-012345678" \
	"-0123456789-0123456789-0123456789-0123"

static void
remember(char *path)
{
	assert_true(n_tmp_files < sizeof(tmp_files) / sizeof(tmp_files[0]));
	tmp_files[n_tmp_files++] = path;
}

/* Write TEXT to DIR/NAME (DIR relative to the temp dir, may be "") and return its path. */
static char *
write_file(const char *dir, const char *name, const char *text)
{
	char *path;
	FILE *f;

	path = malloc(PATH_MAX);
	assert_non_null(path);
	if (dir[0] != '\0') {
		snprintf(path, PATH_MAX, "%s/%s", tmp_dir, dir);
		if (mkdir(path, 0700) == 0) {
			assert_true(n_tmp_dirs < sizeof(tmp_dirs) / sizeof(tmp_dirs[0]));
			tmp_dirs[n_tmp_dirs++] = strdup(path);
		}
		snprintf(path, PATH_MAX, "%s/%s/%s", tmp_dir, dir, name);
	} else {
		snprintf(path, PATH_MAX, "%s/%s", tmp_dir, name);
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	remember(path);
	return path;
}

/*
 * Write TEXT to DIR/NAME and load it into cfg; a rejection fails the test
 * with what config_load said, WHAT naming the input. Returns the path.
 */
static char *
load_valid(struct lf_config *cfg, const char *dir, const char *name, const char *text,
	   const char *what)
{
	char err[LF_ERR_LEN];
	char *path = write_file(dir, name, text);

	if (config_load(path, cfg, err, sizeof(err)) != 0)
		fail_msg("%s rejected: %s", what, err);
	return path;
}

static int
group_setup(void **state)
{
	(void)state;
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/lfut_config.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmp_dir) == NULL)
		return -1;
	/* Paths are compared with resolved ones: resolve a symlinked TMPDIR. */
	{
		char real[PATH_MAX];

		if (realpath(tmp_dir, real) == NULL || strlen(real) >= sizeof(tmp_dir))
			return -1;
		strcpy(tmp_dir, real);
	}
	return 0;
}

static int
group_teardown(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < n_tmp_files; i++) {
		unlink(tmp_files[i]);
		free(tmp_files[i]);
	}
	n_tmp_files = 0;
	for (i = n_tmp_dirs; i > 0; i--) {
		rmdir(tmp_dirs[i - 1]);
		free(tmp_dirs[i - 1]);
	}
	n_tmp_dirs = 0;
	return rmdir(tmp_dir);
}

/*
 * Invalid files. Each needle must appear in the message; a leading '@' stands
 * for the path of the file, so "@:2: [pipeline] burst = '0'" checks file,
 * line, section, key and value at once.
 */
struct bad_case {
	const char *name;
	const char *text;
	const char *needles[5];
};

static const struct bad_case bad_cases[] = {
	{ "burst_zero",
	  "[pipeline]\nburst = 0\n" TAIL,
	  { "@:2: [pipeline] burst = '0'", "1 to 256" } },
	{ "burst_too_big",
	  "# comment\n[pipeline]\nburst = 300\n" TAIL,
	  { "@:3: [pipeline] burst = '300'", "1 to 256" } },
	{ "burst_not_number",
	  "[pipeline]\nprefetch_distance = 2\nburst = abc\n" TAIL,
	  { "@:3: [pipeline] burst = 'abc'", "1 to 256" } },
	{ "burst_negative", "[pipeline]\nburst = -1\n" TAIL, { "@:2: [pipeline] burst = '-1'" } },
	{ "burst_trailing_text",
	  "[pipeline]\nburst = 32k\n" TAIL,
	  { "@:2: [pipeline] burst = '32k'" } },
	{ "burst_auto_typo",
	  "[pipeline]\nburst = automatic\n" TAIL,
	  { "@:2: [pipeline] burst = 'automatic'", "1 to 256, or auto" } },
	{ "burst_max_fixed",
	  "[pipeline]\nburst = 32\nburst_max = 128\n" TAIL,
	  { "@:3: [pipeline] burst_max = '128'", "only with burst = auto", "burst = 32" } },
	{ "burst_min_default_fixed",
	  "[pipeline]\nburst_min = 8\n" TAIL,
	  { "@:2: [pipeline] burst_min = '8'", "only with burst = auto" } },
	{ "latency_target_fixed",
	  "[pipeline]\nlatency_target_us = 20\nburst = 64\n" TAIL,
	  { "@:2: [pipeline] latency_target_us = '20'", "only with burst = auto" } },
	{ "latency_percentile_fixed",
	  "[pipeline]\nlatency_percentile = 99.9\n" TAIL,
	  { "@:2: [pipeline] latency_percentile = '99.9'", "only with burst = auto" } },
	{ "burst_min_over_max",
	  "[pipeline]\nburst = auto\nburst_max = 64\nburst_min = 65\n" TAIL,
	  { "@:4: [pipeline] burst_min = '65'", "greater than burst_max = 64" } },
	{ "burst_max_too_big",
	  "[pipeline]\nburst = auto\nburst_max = 257\n" TAIL,
	  { "@:3: [pipeline] burst_max = '257'", "1 to 256" } },
	{ "burst_min_zero",
	  "[pipeline]\nburst = auto\nburst_min = 0\n" TAIL,
	  { "@:3: [pipeline] burst_min = '0'", "1 to 256" } },
	{ "latency_target_zero",
	  "[pipeline]\nburst = auto\nlatency_target_us = 0\n" TAIL,
	  { "@:3: [pipeline] latency_target_us = '0'", "1 to 1000000" } },
	{ "latency_percentile_100",
	  "[pipeline]\nburst = auto\nlatency_percentile = 100\n" TAIL,
	  { "@:3: [pipeline] latency_percentile = '100'", "above 0 and below 100" } },
	{ "latency_percentile_zero",
	  "[pipeline]\nburst = auto\nlatency_percentile = 0\n" TAIL,
	  { "@:3: [pipeline] latency_percentile = '0'", "above 0 and below 100" } },
	{ "latency_percentile_text",
	  "[pipeline]\nburst = auto\nlatency_percentile = 99.99%\n" TAIL,
	  { "@:3: [pipeline] latency_percentile = '99.99%'", "e.g. 99.99" } },
	{ "latency_percentile_nan",
	  "[pipeline]\nburst = auto\nlatency_percentile = nan\n" TAIL,
	  { "@:3: [pipeline] latency_percentile = 'nan'" } },
	{ "burst_auto_no_latency",
	  "[pipeline]\nlatency = no\nburst = auto\n" TAIL,
	  { "@:3: [pipeline] burst = 'auto'", "needs latency = yes" } },
	{ "burst_auto_hw_clock",
	  "[pipeline]\nburst = auto\nlatency_clock = hw\n" TAIL,
	  { "@:2: [pipeline] burst = 'auto'", "needs latency_clock = tsc" } },
	{ "prefetch_too_big",
	  "[pipeline]\nprefetch_distance = 33\n" TAIL,
	  { "@:2: [pipeline] prefetch_distance = '33'", "0 (off) to 32", "or auto" } },
	{ "prefetch_not_auto",
	  "[pipeline]\nburst = 32\nprefetch_distance = automatic\n" TAIL,
	  { "@:3: [pipeline] prefetch_distance = 'automatic'", "0 (off) to 32", "or auto" } },
	{ "tx_drain_too_big",
	  "[pipeline]\ntx_drain_us = 1000001\n" TAIL,
	  { "@:2: [pipeline] tx_drain_us = '1000001'", "0 to 1000000" } },
	{ "mbuf_cache_too_big",
	  "[pipeline]\nmbuf_cache = 513\n" TAIL,
	  { "@:2: [pipeline] mbuf_cache = '513'", "0 to 512" } },
	{ "unknown_key",
	  "[pipeline]\nburst = 32\nbrust = 64\n" TAIL,
	  { "@:3: [pipeline] brust = '64'", "unknown key", "burst, prefetch_distance" } },
	{ "unknown_key_in_port",
	  TAIL_PORT "speed = 100G\n" TAIL_WORKER,
	  { "@:3: [port p0] speed = '100G'", "unknown key" } },
	{ "unknown_section",
	  TAIL "[piepline]\nburst = 32\n",
	  { "@:5: [piepline]", "unknown section" } },
	{ "line_without_equals",
	  "[pipeline]\nburst 32\n" TAIL,
	  { "@:2: 'burst 32'", "key = value" } },
	{ "key_outside_section",
	  "burst = 32\n" TAIL,
	  { "@:1: 'burst = 32'", "outside of any [section]" } },
	{ "duplicate_key",
	  "[pipeline]\nburst = 32\nprefetch_distance = 1\nburst = 64\n" TAIL,
	  { "@:4: [pipeline] burst = '64'", "already set at line 2" } },
	{ "duplicate_section",
	  "[pipeline]\nburst = 32\n[pipeline]\nprefetch_distance = 2\n" TAIL,
	  { "@:3: section [pipeline]", "already defined at line 1" } },
	{ "empty_value",
	  "[pipeline]\nburst =\n" TAIL,
	  { "@:2: [pipeline] burst = ''", "empty value" } },
	{ "empty_value_blanks",
	  "[eal]\nfile_prefix =   # nothing\n" TAIL,
	  { "@:2: [eal] file_prefix = ''", "empty value" } },
	{ "empty_key", "[eal]\n = 3\n" TAIL, { "@:2: [eal]", "empty key" } },
	{ "bad_section_header", "[pipeline\nburst = 32\n" TAIL, { "@:1: '[pipeline'", "[name]" } },
	{ "empty_section_name", "[ ]\nburst = 32\n" TAIL, { "@:1:", "section name" } },
	{ "upf_no_n3",
	  "[upf]\npfcp_port = 8805\n" TAIL,
	  { "@:1: [upf]", "missing key 'n3_ipv4' or 'n3_ipv6'" } },
	{ "upf_bad_n3",
	  "[upf]\nn3_ipv4 = 192.168.3.300\n" TAIL,
	  { "@:2: [upf] n3_ipv4 = '192.168.3.300'", "IPv4 address" } },
	{ "upf_v6_as_v4",
	  "[upf]\nn3_ipv4 = fd00::1\n" TAIL,
	  { "@:2: [upf] n3_ipv4 = 'fd00::1'", "IPv4 address" } },
	/* The router's own side (docs/control-plane.md). */
	{ "port_address_martian",
	  "[port p0]\nvdev = net_null0\naddress = 10.0.1.1/24, 127.0.0.1/8\n" TAIL_WORKER,
	  { "@:3: [port p0] address = '10.0.1.1/24, 127.0.0.1/8'", "'127.0.0.1/8'",
	    "not a unicast IPv4 address" } },
	{ "port_address_no_len",
	  "[port p0]\nvdev = net_null0\naddress = 10.0.1.1\n" TAIL_WORKER,
	  { "@:3: [port p0] address = '10.0.1.1'", "prefix length" } },
	{ "port_address_twice",
	  "[port p0]\nvdev = net_null0\naddress = fd00::1/64 fd00::1/48\n" TAIL_WORKER,
	  { "@:3: [port p0] address", "'fd00::1/48' listed twice" } },
	{ "port_exception_bad",
	  "[port p0]\nvdev = net_null0\nexception = kernal\n" TAIL_WORKER,
	  { "@:3: [port p0] exception = 'kernal'", "none, tap or kernel" } },
	{ "port_exception_kernel_not_afxdp",
	  "[port p0]\nvdev = net_null0\nexception = kernel\n" TAIL_WORKER,
	  { "[port p0] exception = 'kernel'", "needs an AF_XDP port" } },
	{ "port_exception_if_slash",
	  "[port p0]\nvdev = net_null0\nexception = tap\nexception_if = a/b\n" TAIL_WORKER,
	  { "[port p0] exception_if = 'a/b'", "kernel interface name" } },
	{ "nexthop_via_bad",
	  TAIL "[nexthop 1]\nport = p0\nvia = 10.0.1.300\n",
	  { "@:7: [nexthop 1] via = '10.0.1.300'", "IPv4 or IPv6 address" } },
	{ "nexthop_neither_mac_nor_via",
	  TAIL "[nexthop 1]\nport = p0\n",
	  { "[nexthop 1]", "missing key 'mac' or 'via'" } },
	{ "nexthop_via_kernel_without_netlink",
	  "[port p0]\nvdev = net_af_xdp0,iface=v0\nexception = kernel\n" TAIL_WORKER
	  "[nexthop 1]\nport = p0\nvia = 10.0.1.2\n",
	  { "@:8: [nexthop 1] via = '10.0.1.2'", "exception = kernel", "[netlink]" } },
	{ "icmp_rate_too_big",
	  "[icmp]\nrate_pps = 99999999\n" TAIL,
	  { "@:2: [icmp] rate_pps = '99999999'", "0 (none) to 10000000" } },
	{ "neighbour_unknown_key",
	  "[neighbour]\nretry = 3\n" TAIL,
	  { "@:2: [neighbour] retry = '3'", "unknown key", "retries" } },
	{ "netlink_priority_bad",
	  "[netlink]\npriority = bgp\n" TAIL,
	  { "@:2: [netlink] priority = 'bgp'", "file or kernel" } },
	{ "prometheus_address_name",
	  "[prometheus]\naddress = localhost\n" TAIL,
	  { "[prometheus] address = 'localhost'", "numeric IPv4 or IPv6" } },
	{ "upf_bad_pfcp_addr",
	  "[upf]\nn3_ipv4 = 10.0.0.1\npfcp_addr = localhost\n" TAIL,
	  { "[upf] pfcp_addr = 'localhost'", "numeric IPv4 or IPv6" } },
	{ "upf_port_zero",
	  "[upf]\nn3_ipv4 = 10.0.0.1\npfcp_port = 0\n" TAIL,
	  { "@:3: [upf] pfcp_port = '0'", "1 to 65535" } },
	{ "upf_urrs_zero",
	  "[upf]\nn3_ipv4 = 10.0.0.1\nurrs_per_session = 0\n" TAIL,
	  { "@:3: [upf] urrs_per_session = '0'", "1 to 16" } },
	{ "upf_unknown_key",
	  "[upf]\nn3_ipv4 = 10.0.0.1\nn4_addr = 1.2.3.4\n" TAIL,
	  { "@:3: [upf] n4_addr = '1.2.3.4'", "unknown key", "n3_ipv4" } },
	{ "ni_without_upf",
	  "[network_instance internet]\nue_pool = 10.45.0.0/16\n" TAIL,
	  { "@:1: [network_instance internet]", "needs an [upf] section" } },
	{ "ni_bad_pool",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16, "
	  "10.46.0.0\n" TAIL,
	  { "@:4: [network_instance internet] ue_pool", "'10.46.0.0' is not a prefix" } },
	{ "ni_host_bits",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.1/16\n" TAIL,
	  { "@:4: [network_instance internet] ue_pool = '10.45.0.1/16'", "host bits" } },
	{ "ni_pool_len",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance ims]\nue_pool = fd00:45::/129\n" TAIL,
	  { "@:4: [network_instance ims] ue_pool = 'fd00:45::/129'", "not a prefix" } },
	{ "ni_alloc_outside_pool",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_alloc = 10.46.0.0/24\n"
	  "ue_pool = 10.45.0.0/16\n" TAIL,
	  { "@:4: [network_instance internet] ue_alloc = '10.46.0.0/24'",
	    "'10.46.0.0/24' is not inside any ue_pool prefix" } },
	{ "ni_alloc_too_big",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.0.0.0/7, "
	  "fd00::/16\nue_alloc = 10.0.0.0/8, 12.0.0.0/7\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc = '10.0.0.0/8, 12.0.0.0/7'",
	    "'12.0.0.0/7': the UP allocates from IPv4 /8 to /32" } },
	{ "ni_alloc_v6_len",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00::/16\n"
	  "ue_alloc = fd00:45::/80\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc = 'fd00:45::/80'", "IPv6 /32 to /64" } },
	{ "ni_alloc_host_bits",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc = 10.45.0.1/24\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc = '10.45.0.1/24'", "host bits" } },
	{ "ni_pool_id_no_alloc",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc_pool_id = pool-a\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc_pool_id = 'pool-a'", "no ue_alloc" } },
	{ "ni_pool_id_chars",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc = 10.45.0.0/24\nue_alloc_pool_id = pool*a\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc_pool_id = 'pool*a'", "character 5" } },
	{ "ni_pool_id_long",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc = 10.45.0.0/24\nue_alloc_pool_id = "
	  "p123456789012345678901234567890123456789012345678901234567890123\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc_pool_id", "1 to 63 characters" } },
	{ "ni_pool_id_twice",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc = 10.45.0.0/24\nue_alloc_pool_id = p1\n[network_instance ims]\n"
	  "ue_pool = 10.46.0.0/16\nue_alloc = 10.46.0.0/24\nue_alloc_pool_id = p1\n" TAIL,
	  { "@:10: [network_instance ims] ue_alloc_pool_id = 'p1'",
	    "[network_instance internet] has the same pool identity" } },
	{ "ni_named_outside_pool",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc.ent-a = 10.46.0.0/24\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc.ent-a = '10.46.0.0/24'",
	    "'10.46.0.0/24' is not inside any ue_pool prefix" } },
	{ "ni_named_v6_len",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00::/16\n"
	  "ue_alloc.ent-a = fd00:45::/72\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc.ent-a = 'fd00:45::/72'",
	    "IPv6 /32 to /64" } },
	{ "ni_named_overlaps_alloc",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc = 10.45.0.0/24\nue_alloc.ent-a = 10.45.1.0/24, 10.45.0.128/25\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc.ent-a = '10.45.1.0/24, 10.45.0.128/25'",
	    "'10.45.0.128/25' overlaps ue_alloc's '10.45.0.0/24'" } },
	{ "ni_named_overlap_each_other",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00:45::/48\n"
	  "ue_alloc.ent-a = fd00:45:0:100::/56\nue_alloc.ent-b = fd00:45::/52\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc.ent-b = 'fd00:45::/52'",
	    "overlaps ue_alloc.ent-a's 'fd00:45:0:100::/56'" } },
	{ "ni_named_overlap_itself",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc.ent-a = 10.45.0.0/23, 10.45.1.0/24\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc.ent-a", "overlaps ue_alloc.ent-a's" } },
	{ "ni_alloc_len_range",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00:45::/48\n"
	  "ue_alloc = fd00:45::/56\nue_alloc_ipv6_len = 47\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc_ipv6_len = '47'", "48 to 64" } },
	{ "ni_alloc_len_junk",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00:45::/48\n"
	  "ue_alloc = fd00:45::/56\nue_alloc_ipv6_len = 56x\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc_ipv6_len = '56x'", "48 to 64" } },
	{ "ni_alloc_len_no_alloc",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00:45::/48\n"
	  "ue_alloc_ipv6_len = 56\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc_ipv6_len = '56'", "names no pool" } },
	{ "ni_alloc_len_no_named",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00:45::/48\n"
	  "ue_alloc_ipv6_len.fwa = 56\nue_alloc.fw = fd00:45::/52\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc_ipv6_len.fwa = '56'",
	    "there is no ue_alloc.fwa" } },
	{ "ni_alloc_len_v4_pool",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc = 10.45.0.0/24\nue_alloc_ipv6_len = 56\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc_ipv6_len = '56'", "no IPv6 prefix" } },
	{ "ni_alloc_len_longer_prefix",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = fd00:45::/48\n"
	  "ue_alloc.fwa = fd00:45::/52, fd00:45:0:1ff0::/60\nue_alloc_ipv6_len.fwa = 56\n" TAIL,
	  { "@:6: [network_instance internet] ue_alloc_ipv6_len.fwa = '56'",
	    "'fd00:45:0:1ff0::/60' holds no /56" } },
	{ "ni_named_same_as_pool_id",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc = 10.45.0.0/24\nue_alloc_pool_id = p1\nue_alloc.p1 = 10.45.1.0/24\n" TAIL,
	  { "@:7: [network_instance internet] ue_alloc.p1 = '10.45.1.0/24'",
	    "[network_instance internet] has the same pool identity" } },
	{ "ni_pool_id_same_as_named",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc.p1 = 10.45.1.0/24\n[network_instance ims]\nue_pool = 10.46.0.0/16\n"
	  "ue_alloc = 10.46.0.0/24\nue_alloc_pool_id = p1\n" TAIL,
	  { "@:9: [network_instance ims] ue_alloc_pool_id = 'p1'",
	    "[network_instance internet] has the same pool identity (ue_alloc.p1)" } },
	{ "ni_named_bad_id",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc.p*q = 10.45.1.0/24\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc.p*q = '10.45.1.0/24'",
	    "pool identity character 2" } },
	{ "ni_named_no_id",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc. = 10.45.1.0/24\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc. = '10.45.1.0/24'", "1 to 63 characters" } },
	{ "ni_named_not_prefix",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nue_pool = 10.45.0.0/16\n"
	  "ue_alloc.ent-a = 10.45.1.0\n" TAIL,
	  { "@:5: [network_instance internet] ue_alloc.ent-a = '10.45.1.0'", "not a prefix" } },
	{ "ni_bad_name",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance in/ternet]\nue_pool = 10.45.0.0/16\n" TAIL,
	  { "@:3: [network_instance in/ternet]", "NAME of letters" } },
	{ "ni_unknown_key",
	  "[upf]\nn3_ipv4 = 10.0.0.1\n[network_instance internet]\nvrf = 3\n" TAIL,
	  { "@:4: [network_instance internet] vrf = '3'", "unknown key", "ue_pool" } },
	{ "port_bad_mac",
	  TAIL_PORT "mac = 02:00:00:00:00\n" TAIL_WORKER,
	  { "@:3: [port p0] mac = '02:00:00:00:00'", "MAC address" } },
	{ "port_bad_mac_hex",
	  TAIL_PORT "mac = 02:00:00:00:00:0g\n" TAIL_WORKER,
	  { "@:3: [port p0] mac = '02:00:00:00:00:0g'", "MAC address" } },
	{ "port_multicast_mac",
	  TAIL_PORT "mac = 01:00:5e:00:00:01\n" TAIL_WORKER,
	  { "@:3: [port p0] mac = '01:00:5e:00:00:01'", "unicast" } },
	{ "port_zero_mac",
	  TAIL_PORT "mac = 00:00:00:00:00:00\n" TAIL_WORKER,
	  { "@:3: [port p0] mac = '00:00:00:00:00:00'", "non-zero" } },
	{ "pci_and_vdev",
	  "[port p0]\npci = 0000:3b:00.0\nvdev = net_null0\n" TAIL_WORKER,
	  { "@:3: [port p0] vdev = 'net_null0'", "not both" } },
	{ "bad_pci_short",
	  "[port p0]\npci = 0000:3b:00\n" TAIL_WORKER,
	  { "@:2: [port p0] pci = '0000:3b:00'", "PCI address" } },
	{ "bad_pci_device",
	  "[port p0]\npci = 0000:3b:20.0\n" TAIL_WORKER,
	  { "@:2: [port p0] pci = '0000:3b:20.0'", "PCI address" } },
	{ "bad_pci_function",
	  "[port p0]\npci = 0000:3b:00.8\n" TAIL_WORKER,
	  { "@:2: [port p0] pci = '0000:3b:00.8'", "PCI address" } },
	{ "bad_pci_no_domain",
	  "[port p0]\npci = 3b:00.0\n" TAIL_WORKER,
	  { "@:2: [port p0] pci = '3b:00.0'", "PCI address" } },
	{ "bad_vdev",
	  "[port p0]\nvdev = null0\n" TAIL_WORKER,
	  { "@:2: [port p0] vdev = 'null0'", "driver name" } },
	{ "port_without_device",
	  "[port p0]\nmtu = 1500\n" TAIL_WORKER,
	  { "@:1: [port p0]", "missing key 'pci' or 'vdev'" } },
	{ "same_device_twice",
	  TAIL_PORT "[port p1]\nvdev = net_null0,size=64\n" TAIL_WORKER,
	  { "@:3: [port p1]", "'net_null0'", "[port p0]" } },
	{ "port_defined_twice",
	  TAIL_PORT "[port  p0]\nvdev = net_null1\n" TAIL_WORKER,
	  { "@:3: [port  p0]", "'p0' defined twice" } },
	{ "rx_desc_not_pow2",
	  TAIL_PORT "rx_desc = 1000\n" TAIL_WORKER,
	  { "@:3: [port p0] rx_desc = '1000'", "power of two" } },
	{ "rx_desc_too_small",
	  TAIL_PORT "rx_desc = 32\n" TAIL_WORKER,
	  { "@:3: [port p0] rx_desc = '32'", "power of two from 64 to 32768" } },
	{ "tx_desc_too_big",
	  TAIL_PORT "tx_desc = 65536\n" TAIL_WORKER,
	  { "@:3: [port p0] tx_desc = '65536'", "power of two from 64 to 32768" } },
	{ "mtu_too_small",
	  TAIL_PORT "mtu = 67\n" TAIL_WORKER,
	  { "@:3: [port p0] mtu = '67'", "68 to 9600" } },
	{ "rx_queues_zero",
	  TAIL_PORT "rx_queues = 0\n" TAIL_WORKER,
	  { "@:3: [port p0] rx_queues = '0'", "1 to 64" } },
	{ "port_bad_bool",
	  TAIL_PORT "promiscuous = sometimes\n" TAIL_WORKER,
	  { "@:3: [port p0] promiscuous = 'sometimes'", "yes or no" } },
	{ "port_name_dash",
	  "[port p-0]\nvdev = net_null0\n[worker 1]\nrx = p0:0\n",
	  { "@:1: [port p-0]", "letters, digits or '_'" } },
	{ "port_name_too_long",
	  "[port p23456789012345678901234567890123]\nvdev = net_null0\n" TAIL_WORKER,
	  { "@:1: [port p23456789012345678901234567890123]", "1 to 31" } },
	{ "queue_owned_twice",
	  TAIL "[worker 2]\nrx = p0:0\n",
	  { "@:6: [worker 2] rx = 'p0:0'", "p0:0", "already polled by [worker 1]" } },
	{ "queue_listed_twice",
	  TAIL_PORT "[worker 1]\nrx = p0:0 p0:0\n",
	  { "@:4: [worker 1] rx = 'p0:0 p0:0'", "p0:0 listed twice" } },
	{ "worker_unknown_port",
	  TAIL_PORT "[worker 1]\nrx = p0:0 p9:0\n",
	  { "@:4: [worker 1] rx = 'p0:0 p9:0'", "no [port p9] section" } },
	{ "worker_bad_queue",
	  TAIL_PORT "[worker 1]\nrx = p0:64\n",
	  { "@:4: [worker 1] rx = 'p0:64'", "queue '64' of port p0" } },
	{ "worker_not_pair",
	  TAIL_PORT "[worker 1]\nrx = p0\n",
	  { "@:4: [worker 1] rx = 'p0'", "'p0' is not PORT:QUEUE" } },
	{ "worker_missing_rx", TAIL_PORT "[worker 1]\n", { "@:3: [worker 1]", "missing key 'rx'" } },
	{ "worker_bad_name",
	  TAIL_PORT "[worker one]\nrx = p0:0\n",
	  { "@:3: [worker one]", "lcore id" } },
	{ "worker_lcore_too_big",
	  TAIL_PORT "[worker 128]\nrx = p0:0\n",
	  { "@:3: [worker 128]", "0 to 127" } },
	{ "worker_twice",
	  TAIL "[worker  1]\nrx = p0:1\n",
	  { "@:5: [worker  1]", "lcore 1 has two [worker] sections" } },
	{ "worker_unknown_key",
	  TAIL_PORT "[worker 1]\nrx = p0:0\ntx = p0:0\n",
	  { "@:5: [worker 1] tx = 'p0:0'", "unknown key" } },
	{ "queue_not_polled",
	  "[port p0]\nvdev = net_null0\nrx_queues = 2\n" TAIL_WORKER,
	  { "@:3: [port p0] rx_queues = '2'", "queue 1 is polled by no [worker]" } },
	/*
	 * Queue 0 unpolled while queue 1 is: the section is named, but the line
	 * is not asserted here as it is wrong (the [worker 1] line, 3, instead
	 * of the [port p0] line, 1): reported as a bug in src/control/config.c.
	 */
	{ "queue_gap",
	  TAIL_PORT "[worker 1]\nrx = p0:1\n",
	  { "@:", "[port p0]: queue 0 is polled by no [worker] but higher queues are" } },
	{ "queue_gap_two_workers",
	  TAIL_PORT "[worker 1]\nrx = p0:0\n[worker 2]\nrx = p0:2\n",
	  { "@:", "[port p0]: queue 1 is polled by no [worker]" } },
	{ "queue_beyond_rx_queues",
	  "[port p0]\nvdev = net_null0\nrx_queues = 1\n"
	  "[worker 1]\nrx = p0:0 p0:1\n",
	  { "@:5: [worker 1] rx = 'p0:0 p0:1'",
	    "polls queue p0:1 but [port p0] has rx_queues = 1" } },
	{ "worker_is_main_lcore",
	  "[eal]\nmain_lcore = 1\n" TAIL,
	  { "@:5: [worker 1]", "lcore 1 is also [eal] main_lcore = 1" } },
	{ "worker_is_default_main_lcore",
	  TAIL_PORT "[worker 0]\nrx = p0:0\n",
	  { "@:3: [worker 0]", "lcore 0 is also [eal] main_lcore = 0" } },
	{ "main_lcore_too_big",
	  "[eal]\nmain_lcore = 128\n" TAIL,
	  { "@:2: [eal] main_lcore = '128'", "0 to 127" } },
	{ "nexthop_unknown_port",
	  TAIL "[nexthop 1]\nport = p9\nmac = 02:00:00:00:00:02\n",
	  { "@:6: [nexthop 1] port = 'p9'", "no [port p9] section" } },
	{ "nexthop_missing_mac",
	  TAIL "[nexthop 1]\nport = p0\n",
	  { "@:5: [nexthop 1]", "missing key 'mac'" } },
	{ "nexthop_missing_port",
	  TAIL "[nexthop 1]\nmac = 02:00:00:00:00:02\n",
	  { "@:5: [nexthop 1]", "missing key 'port'" } },
	{ "nexthop_bad_mac",
	  TAIL "[nexthop 1]\nport = p0\nmac = 02-00-00-00-00-02\n",
	  { "@:7: [nexthop 1] mac = '02-00-00-00-00-02'", "MAC address" } },
	{ "nexthop_multicast_src_mac",
	  TAIL "[nexthop 1]\nport = p0\nmac = 02:00:00:00:00:02\nsrc_mac = ff:ff:ff:ff:ff:ff\n",
	  { "@:8: [nexthop 1] src_mac = 'ff:ff:ff:ff:ff:ff'", "unicast" } },
	{ "nexthop_id_too_big",
	  TAIL "[nexthop 32767]\nport = p0\nmac = 02:00:00:00:00:02\n",
	  { "@:5: [nexthop 32767]", "0 to 32766" } },
	{ "nexthop_twice",
	  TAIL "[nexthop 1]\nport = p0\nmac = 02:00:00:00:00:02\n"
	       "[nexthop  1]\nport = p0\nmac = 02:00:00:00:00:03\n",
	  { "@:8: [nexthop  1]", "next hop 1 defined twice" } },
	{ "nexthop_unknown_key",
	  TAIL "[nexthop 1]\nport = p0\nmac = 02:00:00:00:00:02\n"
	       "weight = 3\n",
	  { "@:8: [nexthop 1] weight = '3'", "unknown key" } },
	{ "no_ports", "[pipeline]\nburst = 32\n", { "@: ", "no [port NAME] section" } },
	{ "no_workers", TAIL_PORT, { "@: ", "no [worker LCORE] section" } },
	{ "missing_route_file",
	  "[routes]\nipv4 = no-such-routes.txt\n" TAIL,
	  { "@:2: [routes] ipv4 = 'no-such-routes.txt'", "cannot read", "No such file" } },
	{ "missing_route_file_abs",
	  "[routes]\nipv6 = /nonexistent/lfut/r6.txt\n" TAIL,
	  { "@:2: [routes] ipv6 = '/nonexistent/lfut/r6.txt'", "cannot read" } },
	{ "acl_no_rule_file",
	  "[acl]\ndefault = deny\n" TAIL,
	  { "@:1: [acl]", "missing key 'ipv4' or 'ipv6'" } },
	{ "acl_missing_ipv6_file",
	  "[acl]\nipv6 = no-such-acl6.rules\n" TAIL,
	  { "@:2: [acl] ipv6 = 'no-such-acl6.rules'", "cannot read", "No such file" } },
	{ "acl_bad_default",
	  "[acl]\ndefault = allow\nipv6 = /nonexistent/lfut/acl6\n" TAIL,
	  { "@:2: [acl] default = 'allow'", "expected permit or deny" } },
	{ "fib_lookup_bad",
	  "[routes]\nfib_lookup = vector\n" TAIL,
	  { "@:2: [routes] fib_lookup = 'vector'", "expected auto", "scalar or avx512" } },
	{ "latency_clock_bad",
	  "[pipeline]\nlatency_clock = hardware\n" TAIL,
	  { "@:2: [pipeline] latency_clock = 'hardware'", "expected tsc", "or hw" } },
	{ "flow_entries_zero",
	  "[flow]\nentries = 0\n" TAIL,
	  { "@:2: [flow] entries = '0'", "1 to 268435456" } },
	{ "flow_entries_too_big",
	  "[flow]\nentries = 268435457\n" TAIL,
	  { "@:2: [flow] entries = '268435457'", "1 to 268435456" } },
	{ "flow_timeout_text",
	  "[flow]\nidle_timeout_ms = 30s\n" TAIL,
	  { "@:2: [flow] idle_timeout_ms = '30s'", "0 (never) to 86400000" } },
	{ "flow_evict_bad",
	  "[flow]\nentries = 64\nevict = lru\n" TAIL,
	  { "@:3: [flow] evict = 'lru'", "expected oldest or none" } },
	{ "flow_layout_bad",
	  "[flow]\nlayout = compact\n" TAIL,
	  { "@:2: [flow] layout = 'compact'", "expected hotcold or fat" } },
	{ "flow_unknown_key",
	  "[flow]\nsize = 64\n" TAIL,
	  { "@:2: [flow] size = '64'", "unknown key", "entries, idle_timeout_ms, evict, layout" } },
	{ "max_routes_zero",
	  "[routes]\nipv4_max_routes = 0\n" TAIL,
	  { "@:2: [routes] ipv4_max_routes = '0'", "1 to 67108864" } },
	{ "bad_bool", "[eal]\nhuge = maybe\n" TAIL, { "@:2: [eal] huge = 'maybe'", "yes or no" } },
	{ "iova_mode_bogus",
	  "[eal]\nmain_lcore = 0\niova_mode = bogus\n" TAIL,
	  { "@:3: [eal] iova_mode = 'bogus'", "va or pa" } },
	{ "value_too_long",
	  "[eal]\nextra = " LONG_VALUE "\n" TAIL,
	  { "@:2: [eal] extra", "longer than 255" } },
	{ "file_prefix_slash",
	  "[eal]\nfile_prefix = a/b\n" TAIL,
	  { "@:2: [eal] file_prefix = 'a/b'", "letters, digits" } },
	{ "file_prefix_too_long",
	  "[eal]\nfile_prefix = "
	  "p123456789012345678901234567890123456789012345678901234567890123\n" TAIL,
	  { "@:2: [eal] file_prefix = 'p1234567890", "longer than 63" } },
	{ "memory_too_big", "[eal]\nmemory = 1048577\n" TAIL, { "@:2: [eal] memory = '1048577'" } },
	{ "eal_unknown_key",
	  "[eal]\nlcores = 0-3\n" TAIL,
	  { "@:2: [eal] lcores = '0-3'", "unknown key", "main_lcore" } },
	/* [eal] extra: what loads code or writes files needs the opt-in. */
	{ "extra_driver",
	  "[eal]\nmain_lcore = 0\nextra = --no-shconf -d /tmp/evil.so\n" TAIL,
	  { "@:3: [eal] extra = '--no-shconf -d /tmp/evil.so'", "'-d' loads a shared object",
	    "allow_unsafe_extra = yes" } },
	{ "extra_driver_attached",
	  "[eal]\nextra = -d/tmp/evil.so\n" TAIL,
	  { "@:2: [eal] extra = '-d/tmp/evil.so'", "'-d' loads a shared object" } },
	{ "extra_driver_path",
	  "[eal]\nextra = --driver-path=/opt/pmds\n" TAIL,
	  { "@:2: [eal] extra = '--driver-path=/opt/pmds'", "'--driver-path' loads" } },
	{ "extra_vdev_pcap",
	  "[eal]\nextra = --vdev net_pcap9,tx_pcap=/etc/passwd\n" TAIL,
	  { "@:2: [eal] extra = '--vdev net_pcap9,tx_pcap=/etc/passwd'", "'--vdev' creates",
	    "[port] section" } },
	{ "extra_trace_dir",
	  "[eal]\nextra = --trace-dir=/etc\n" TAIL,
	  { "@:2: [eal] extra = '--trace-dir=/etc'", "writes trace files" } },
	{ "extra_allow_dev",
	  "[eal]\nextra = -a 0000:3b:00.0\n" TAIL,
	  { "@:2: [eal] extra = '-a 0000:3b:00.0'", "'-a' names a device" } },
	{ "extra_unknown",
	  "[eal]\nextra = --no-shconf --plugin-everything\n" TAIL,
	  { "@:2: [eal] extra = '--no-shconf --plugin-everything'",
	    "'--plugin-everything' is not an EAL option extra may pass" } },
	{ "extra_missing_value",
	  "[eal]\nextra = --log-level\n" TAIL,
	  { "@:2: [eal] extra = '--log-level'", "'--log-level' needs a value" } },
	{ "extra_value_on_flag",
	  "[eal]\nextra = --no-shconf=1\n" TAIL,
	  { "@:2: [eal] extra = '--no-shconf=1'", "takes no value" } },
	{ "extra_optin_not_bool",
	  "[eal]\nallow_unsafe_extra = please\n" TAIL,
	  { "@:2: [eal] allow_unsafe_extra = 'please'", "yes or no" } },
	/* [worker] rx_mode and its keys (issue 16). */
	{ "rx_mode_unknown",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = sleepy\n",
	  { "@:5: [worker 1] rx_mode = 'sleepy'", "poll, interrupt, hybrid or pmd-mgmt" } },
	{ "rx_mode_case",
	  TAIL_PORT "[worker 1]\nrx_mode = Interrupt\nrx = p0:0\n",
	  { "@:4: [worker 1] rx_mode = 'Interrupt'" } },
	{ "spin_us_range",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = hybrid\nspin_us = 1000001\n",
	  { "@:6: [worker 1] spin_us = '1000001'", "0 to 1000000" } },
	{ "spin_us_not_number",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = hybrid\nspin_us = 50us\n",
	  { "@:6: [worker 1] spin_us = '50us'" } },
	{ "sleep_max_us_zero",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = interrupt\nsleep_max_us = 0\n",
	  { "@:6: [worker 1] sleep_max_us = '0'", "1 to 5000" } },
	{ "sleep_max_us_too_long",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = hybrid\nsleep_max_us = 5001\n",
	  { "@:6: [worker 1] sleep_max_us = '5001'", "1 to 5000" } },
	{ "spin_us_without_hybrid",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = interrupt\nspin_us = 10\n",
	  { "@:6: [worker 1] spin_us = '10'", "only rx_mode = hybrid spins",
	    "rx_mode = interrupt" } },
	{ "spin_us_default_mode",
	  TAIL_PORT "[worker 1]\nspin_us = 10\nrx = p0:0\n",
	  { "@:4: [worker 1] spin_us = '10'", "rx_mode = poll" } },
	{ "sleep_max_us_poll",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = poll\nsleep_max_us = 100\n",
	  { "@:6: [worker 1] sleep_max_us = '100'", "only rx_mode = interrupt or hybrid sleeps" } },
	{ "sleep_max_us_pmd_mgmt",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = pmd-mgmt\nsleep_max_us = 100\n",
	  { "@:6: [worker 1] sleep_max_us = '100'", "rx_mode = pmd-mgmt" } },
	{ "pmd_mgmt_unknown",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = pmd-mgmt\npmd_mgmt = doze\n",
	  { "@:6: [worker 1] pmd_mgmt = 'doze'", "pause, monitor or scale" } },
	{ "pmd_mgmt_without_mode",
	  TAIL_PORT "[worker 1]\nrx = p0:0\nrx_mode = hybrid\npmd_mgmt = pause\n",
	  { "@:6: [worker 1] pmd_mgmt = 'pause'", "needs rx_mode = pmd-mgmt",
	    "rx_mode = hybrid" } },
};

/* Load the file of one bad case and check the error message. */
static void
test_bad_case(void **state)
{
	const struct bad_case *bc = *state;
	struct lf_config *cfg;
	char err[LF_ERR_LEN];
	char needle[PATH_MAX + 128];
	char name[64];
	unsigned int i;
	char *path;
	int ret;

	snprintf(name, sizeof(name), "%s.ini", bc->name);
	path = write_file("", name, bc->text);
	cfg = calloc(1, sizeof(*cfg));
	assert_non_null(cfg);
	memset(err, 0, sizeof(err));
	ret = config_load(path, cfg, err, sizeof(err));
	print_message("%s -> %s\n", bc->name, err);
	assert_true(ret < 0);
	assert_int_equal(ret, -EINVAL);
	/* Every message starts with the file. */
	assert_memory_equal(err, path, strlen(path));
	for (i = 0; i < RTE_DIM(bc->needles) && bc->needles[i] != NULL; i++) {
		const char *n = bc->needles[i];
		char alt[PATH_MAX + 128];
		unsigned int line;
		int used = 0;

		if (n[0] != '@') {
			snprintf(needle, sizeof(needle), "%s", n);
			alt[0] = '\0';
		} else if (sscanf(n, "@:%u:%n", &line, &used) == 1 && used > 0) {
			/* "FILE:LINE: rest", also accepted as "FILE: line LINE: rest". */
			snprintf(needle, sizeof(needle), "%s%s", path, n + 1);
			snprintf(alt, sizeof(alt), "%s: line %u:%s", path, line, n + used);
		} else {
			snprintf(needle, sizeof(needle), "%s%s", path, n + 1);
			alt[0] = '\0';
		}
		if (strstr(err, needle) == NULL && (alt[0] == '\0' || strstr(err, alt) == NULL))
			fail_msg("case %s: '%s' not in '%s'", bc->name, needle, err);
	}
	/* A failed load leaves nothing allocated. */
	assert_null(cfg->nexthops);
	assert_int_equal(cfg->n_nexthops, 0);
	free(cfg);
}

static void
test_missing_file(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char path[PATH_MAX];
	char err[LF_ERR_LEN];

	(void)state;
	assert_non_null(cfg);
	snprintf(path, sizeof(path), "%s/does-not-exist.ini", tmp_dir);
	assert_true(config_load(path, cfg, err, sizeof(err)) != 0);
	assert_memory_equal(err, path, strlen(path));
	assert_non_null(strstr(err, "cannot open"));
	assert_non_null(strstr(err, "No such file"));
	free(cfg);
}

static void
test_line_too_long(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char text[1024];
	char err[LF_ERR_LEN];
	char needle[PATH_MAX], alt[PATH_MAX];
	char *path;
	int off;

	(void)state;
	assert_non_null(cfg);
	off = snprintf(text, sizeof(text), "[eal]\nlog_level = ");
	memset(text + off, 'x', 500);
	snprintf(text + off + 500, sizeof(text) - off - 500, "\n" TAIL);
	path = write_file("", "long_line.ini", text);
	assert_true(config_load(path, cfg, err, sizeof(err)) != 0);
	snprintf(needle, sizeof(needle), "%s:2:", path);
	snprintf(alt, sizeof(alt), "%s: line 2:", path);
	assert_true(strstr(err, needle) != NULL || strstr(err, alt) != NULL);
	assert_non_null(strstr(err, "longer than"));
	free(cfg);
}

/*
 * What is not a configuration file is refused without reading it for ever:
 * a FIFO (the open alone used to block), a device, a directory, a NUL byte
 * (rte_cfgfile would stop reading its line there), and a file larger than
 * LF_CONFIG_MAX. The alarm turns a hang into a failure.
 */
static void
test_not_a_config_file(void **state)
{
	static const char nul_text[] =
		"[eal]\nmain_lcore = 0\n" TAIL "[worker 2]\nrx = p0:1\0junk\n";
	struct {
		const char *path;
		const char *needle;
	} cases[] = {
		{ NULL, "a FIFO, expected a regular file" },
		{ "/dev/zero", "/dev/zero: a character device, expected a regular file" },
		{ NULL, "a directory, expected a regular file" },
		{ NULL, ":8: NUL byte at column 10" },
		{ NULL, "more than the limit of 16 MiB" },
	};
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char fifo[PATH_MAX], nul[PATH_MAX], big[PATH_MAX];
	char err[LF_ERR_LEN];
	unsigned int i;
	FILE *f;

	(void)state;
	assert_non_null(cfg);
	snprintf(fifo, sizeof(fifo), "%s/config.fifo", tmp_dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	cases[0].path = fifo;
	cases[2].path = tmp_dir;
	snprintf(nul, sizeof(nul), "%s/nul.ini", tmp_dir);
	f = fopen(nul, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(nul_text, 1, sizeof(nul_text) - 1, f), sizeof(nul_text) - 1);
	assert_int_equal(fclose(f), 0);
	cases[3].path = nul;
	snprintf(big, sizeof(big), "%s/big.ini", tmp_dir);
	f = fopen(big, "w");
	assert_non_null(f);
	assert_int_equal(fputs("[eal]\n", f) >= 0, 1);
	assert_int_equal(ftruncate(fileno(f), LF_CONFIG_MAX + 1), 0);
	assert_int_equal(fclose(f), 0);
	cases[4].path = big;

	alarm(20);
	for (i = 0; i < RTE_DIM(cases); i++) {
		int ret = config_load(cases[i].path, cfg, err, sizeof(err));

		print_message("%s -> %s\n", cases[i].path, err);
		if (ret >= 0 || strncmp(err, cases[i].path, strlen(cases[i].path)) != 0 ||
		    strstr(err, cases[i].needle) == NULL)
			fail_msg("%s: %d '%s', expected '%s'", cases[i].path, ret, err,
				 cases[i].needle);
		assert_null(cfg->nexthops);
	}
	alarm(0);
	unlink(fifo);
	unlink(nul);
	unlink(big);
	free(cfg);
}

/* [eal] extra: the allow-list lets tuning options through, the opt-in anything. */
static void
test_eal_extra_allow_list(void **state)
{
	static const char *const allowed[] = {
		"--no-shconf",
		"-n 4 -r2 --socket-mem 1024,1024 --log-level=lib.eal:debug",
		"--force-max-simd-bitwidth=256 --huge-unlink --huge-unlink=never",
		"--legacy-mem --single-file-segments --iova-mode va --no-telemetry",
	};
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char text[1024];
	unsigned int i;

	(void)state;
	assert_non_null(cfg);
	for (i = 0; i < RTE_DIM(allowed); i++) {
		snprintf(text, sizeof(text), "[eal]\nextra = %s\n" TAIL, allowed[i]);
		load_valid(cfg, "", "extra_ok.ini", text, allowed[i]);
		assert_string_equal(cfg->eal.extra, allowed[i]);
		assert_false(cfg->eal.allow_unsafe_extra);
		config_free(cfg);
	}
	load_valid(cfg, "", "extra_unsafe.ini",
		   "[eal]\nextra = -d /opt/pmd.so --vdev net_pcap9,tx_pcap=/tmp/x.pcap\n"
		   "allow_unsafe_extra = yes\n" TAIL,
		   "opt-in");
	assert_true(cfg->eal.allow_unsafe_extra);
	config_free(cfg);
	free(cfg);
}

/*
 * The memory estimate: FIB and flow figures follow the keys, and tables
 * that cannot fit in [eal] memory (or the 64 MiB EAL gives with huge = no)
 * are refused naming that key and its line. A 1M-rule ACL used to pass
 * --check-config and fail only after a minute of rte_acl_build().
 */
static void
test_mem_estimate(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	struct lf_mem_estimate e;
	char err[LF_ERR_LEN];
	char want[PATH_MAX + 64];
	char *path;

	(void)state;
	assert_non_null(cfg);
	/* Small tables in 256 MiB: FIB IPv4 32 MiB + IPv6 64 MiB and change. */
	path = load_valid(cfg, "", "mem_ok.ini",
			  "[eal]\nhuge = no\nmemory = 256\n"
			  "[routes]\nipv4_max_routes = 1024\nipv4_tbl8 = 256\n"
			  "ipv6_max_routes = 1024\nipv6_tbl8 = 256\n"
			  "[flow]\nentries = 4096\n" TAIL,
			  "small tables");
	config_mem_estimate(cfg, 1000, 0, &e);
	assert_int_equal(e.fib4, (32u << 20) + 256 * 512 + 1024 * 424);
	assert_int_equal(e.fib6, (64u << 20) + 256 * 1024 + 1024 * 424);
	assert_int_equal(e.flow, 4096 * 148);
	assert_int_equal(e.acl4, 1000 * 4608);
	assert_int_equal(e.total, e.fib4 + e.fib6 + e.acl4 + e.flow);
	assert_int_equal(e.limit, 256u << 20);
	assert_int_equal(config_mem_check(cfg, &e, err, sizeof(err)), 0);

	/* The same with a million ACL rules: about 4.4 GiB, refused. */
	config_mem_estimate(cfg, 1u << 20, 0, &e);
	assert_int_equal(config_mem_check(cfg, &e, err, sizeof(err)), -E2BIG);
	snprintf(want, sizeof(want), "%s:3: [eal] memory = '256': the tables need about 4705 MiB",
		 path);
	if (strstr(err, want) == NULL || strstr(err, "ACL 4608") == NULL)
		fail_msg("'%s' lacks '%s'", err, want);
	config_free(cfg);

	/* No hugepages and no memory key: EAL's 64 MiB, said but not enforced. */
	load_valid(cfg, "", "mem_nohuge.ini", "[eal]\nmain_lcore = 0\nhuge = no\n" TAIL,
		   "defaults");
	config_mem_estimate(cfg, 0, 0, &e);
	assert_int_equal(e.limit, 0);
	assert_true(e.no_huge_default);
	assert_int_equal(config_mem_check(cfg, &e, err, sizeof(err)), 0);
	config_free(cfg);

	/* Hugepages and no memory key: not bounded by the configuration. */
	load_valid(cfg, "", "mem_huge.ini", "[flow]\nentries = 1048576\n" TAIL, "hugepages");
	config_mem_estimate(cfg, 0, 0, &e);
	assert_int_equal(e.limit, 0);
	assert_int_equal(e.flow, 1048576ull * 148);
	assert_int_equal(config_mem_check(cfg, &e, err, sizeof(err)), 0);
	config_free(cfg);

	/* The UE table's direct arrays: 8 bytes per address of each instance's
	 * first IPv4 ue_alloc prefix of /10 or longer; IPv6, later prefixes and
	 * a /9 none. */
	{
		uint64_t no_alloc;

		load_valid(cfg, "", "mem_upf0.ini",
			   "[upf]\nn3_ipv4 = 10.0.0.1\nmax_sessions = 1000\n"
			   "[network_instance internet]\nue_pool = 10.45.0.0/16, fd00:45::/48\n"
			   "[network_instance ims]\nue_pool = 10.46.0.0/16\n"
			   "[network_instance big]\nue_pool = 11.0.0.0/8\n" TAIL,
			   "upf");
		config_mem_estimate(cfg, 0, 0, &e);
		no_alloc = e.upf;
		assert_true(no_alloc > 0);
		config_free(cfg);
		load_valid(cfg, "", "mem_upf1.ini",
			   "[upf]\nn3_ipv4 = 10.0.0.1\nmax_sessions = 1000\n"
			   "[network_instance internet]\nue_pool = 10.45.0.0/16, fd00:45::/48\n"
			   "ue_alloc = fd00:45::/56, 10.45.128.0/18, 10.45.64.0/18\n"
			   "[network_instance ims]\nue_pool = 10.46.0.0/16\nue_alloc = 10.46.0.0/24\n"
			   "[network_instance big]\nue_pool = 11.0.0.0/8\nue_alloc = 11.0.0.0/9\n" TAIL,
			   "upf with ue_alloc");
		config_mem_estimate(cfg, 0, 0, &e);
		assert_int_equal(e.upf - no_alloc, 8 * (16384 + 256));
		config_free(cfg);
	}
	free(cfg);
}

/* The error buffer is never overrun, even when it is tiny. */
static void
test_small_error_buffer(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char err[16 + 8];
	char *path;

	(void)state;
	assert_non_null(cfg);
	path = write_file("", "small_err.ini", "[pipeline]\nburst = 0\n" TAIL);
	memset(err, 'Z', sizeof(err));
	assert_true(config_load(path, cfg, err, 16) != 0);
	assert_true(strlen(err) < 16);
	assert_memory_equal(err + 16, "ZZZZZZZZ", 8);
	free(cfg);
}

/* ---- valid files ---- */

/*
 * prefetch_distance = auto (or left out) is half the burst, at most 32; a
 * number is taken as it is. Per port, auto leaves out the packet data of
 * drivers that copy each frame into its mbuf, and only those.
 */
static void
test_prefetch_auto(void **state)
{
	static const struct {
		const char *pipeline;
		bool is_auto;
		uint16_t distance;
	} cases[] = {
		{ "", true, 16 },
		{ "burst = 64\n", true, 32 },
		{ "burst = 256\nprefetch_distance = auto\n", true, 32 },
		{ "prefetch_distance = auto\nburst = 8\n", true, 4 },
		{ "burst = 1\n", true, 0 },
		{ "burst = 64\nprefetch_distance = 8\n", false, 8 },
		{ "prefetch_distance = 0\n", false, 0 },
	};
	static const struct {
		const char *driver;
		const char *devargs;
		bool copies;
	} drivers[] = {
		{ "net_pcap", "net_pcap0,rx_pcap=in.pcap", true },
		{ "net_tap", "net_tap0,iface=lf0", true },
		{ "net_af_packet", "net_af_packet0,iface=veth0", true },
		{ "net_memif", "net_memif0,role=client,socket=/run/m.sock", true },
		{ "net_memif", "net_memif0,role=client,zero-copy=yes", false },
		{ "net_af_xdp", "net_af_xdp0,iface=veth0", false },
		{ "net_ice", "0000:3b:00.0", false },
		{ "net_null", "net_null0", false },
		{ "net_ring", "net_ring0", false },
	};
	char text[256];
	unsigned int i, j;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct lf_config *cfg = calloc(1, sizeof(*cfg));

		assert_non_null(cfg);
		snprintf(text, sizeof(text), "[pipeline]\n%s" TAIL, cases[i].pipeline);
		load_valid(cfg, "", "prefetch.ini", text, text);
		if (cfg->pipeline.prefetch_auto != cases[i].is_auto ||
		    cfg->pipeline.prefetch_distance != cases[i].distance)
			fail_msg("case %u: auto %d distance %u, expected %d %u", i,
				 cfg->pipeline.prefetch_auto, cfg->pipeline.prefetch_distance,
				 cases[i].is_auto, cases[i].distance);
		for (j = 0; j < RTE_DIM(drivers); j++) {
			uint16_t want = cfg->pipeline.prefetch_auto && drivers[j].copies
				? 0
				: cfg->pipeline.prefetch_distance;

			assert_int_equal(lf_driver_copies_rx(drivers[j].driver, drivers[j].devargs),
					 drivers[j].copies);
			assert_int_equal(lf_port_prefetch_distance(&cfg->pipeline,
								   drivers[j].driver,
								   drivers[j].devargs),
					 want);
		}
		config_free(cfg);
		free(cfg);
	}
}

/* burst = auto: defaults, the largest burst sizes what the burst sizes,
 * --check-config shows the keys; a fixed burst shows none of them. */
static void
test_burst_auto(void **state)
{
	static const struct {
		const char *pipeline;
		uint16_t burst, min, max, prefetch;
		uint32_t target;
		double pct;
		const char *dumped;
	} cases[] = {
		{ "burst = auto\n", 256, 4, 256, 32, 50, 99.99,
		  "burst = auto\nburst_min = 4\nburst_max = 256\nlatency_target_us = 50\n"
		  "latency_percentile = 99.99\n" },
		{ "burst = auto\nburst_min = 16\nburst_max = 16\nlatency_target_us = 20\n"
		  "latency_percentile = 99.9999\n",
		  16, 16, 16, 8, 20, 99.9999,
		  "burst = auto\nburst_min = 16\nburst_max = 16\nlatency_target_us = 20\n"
		  "latency_percentile = 99.9999\n" },
		{ "burst_max = 64\nlatency_percentile = 50\nburst = auto\n", 64, 4, 64, 32, 50, 50,
		  "burst_max = 64\nlatency_target_us = 50\nlatency_percentile = 50\n" },
	};
	char text[512], dump[4096];
	struct lf_config *cfg;
	unsigned int i;
	FILE *f;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		cfg = calloc(1, sizeof(*cfg));
		assert_non_null(cfg);
		snprintf(text, sizeof(text), "[pipeline]\n%s" TAIL, cases[i].pipeline);
		load_valid(cfg, "", "burst_auto.ini", text, text);
		assert_true(cfg->pipeline.burst_auto);
		assert_int_equal(cfg->pipeline.burst, cases[i].burst);
		assert_int_equal(cfg->pipeline.burst_min, cases[i].min);
		assert_int_equal(cfg->pipeline.burst_max, cases[i].max);
		assert_int_equal(cfg->pipeline.prefetch_distance, cases[i].prefetch);
		assert_int_equal(cfg->pipeline.latency_target_us, cases[i].target);
		assert_true(cfg->pipeline.latency_percentile == cases[i].pct);
		f = fmemopen(dump, sizeof(dump), "w");
		assert_non_null(f);
		config_dump(cfg, f);
		fclose(f);
		if (strstr(dump, cases[i].dumped) == NULL)
			fail_msg("case %u: '%s' not in '%s'", i, cases[i].dumped, dump);
		config_free(cfg);
		free(cfg);
	}
	cfg = calloc(1, sizeof(*cfg));
	assert_non_null(cfg);
	load_valid(cfg, "", "burst_fixed.ini", "[pipeline]\nburst = 64\n" TAIL, "burst = 64");
	assert_false(cfg->pipeline.burst_auto);
	assert_int_equal(cfg->pipeline.burst, 64);
	f = fmemopen(dump, sizeof(dump), "w");
	assert_non_null(f);
	config_dump(cfg, f);
	fclose(f);
	assert_non_null(strstr(dump, "[pipeline]\nburst = 64\n"));
	assert_null(strstr(dump, "burst_max"));
	assert_null(strstr(dump, "latency_target_us"));
	config_free(cfg);
	free(cfg);
}

static void
test_fib_lookup_key(void **state)
{
	static const struct {
		const char *routes;
		enum lf_fib_lookup lookup;
		const char *dumped;
	} cases[] = {
		{ "", LF_FIB_LOOKUP_AUTO, "fib_lookup = auto\n" },
		{ "fib_lookup = auto\n", LF_FIB_LOOKUP_AUTO, "fib_lookup = auto\n" },
		{ "fib_lookup = scalar\n", LF_FIB_LOOKUP_SCALAR, "fib_lookup = scalar\n" },
		{ "fib_lookup = avx512\n", LF_FIB_LOOKUP_AVX512, "fib_lookup = avx512\n" },
	};
	char text[256], dump[4096];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct lf_config *cfg = calloc(1, sizeof(*cfg));
		FILE *f;

		assert_non_null(cfg);
		snprintf(text, sizeof(text), "[routes]\n%s" TAIL, cases[i].routes);
		load_valid(cfg, "", "fib_lookup.ini", text, text);
		assert_int_equal(cfg->routes.lookup, cases[i].lookup);
		/* --check-config shows it under [routes]. */
		f = fmemopen(dump, sizeof(dump), "w");
		assert_non_null(f);
		config_dump(cfg, f);
		fclose(f);
		assert_non_null(strstr(strstr(dump, "[routes]\n"), cases[i].dumped));
		config_free(cfg);
		free(cfg);
	}
}

static void
test_minimal_defaults(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char real[PATH_MAX];
	const struct lf_port_conf *p;
	char *path;

	(void)state;
	assert_non_null(cfg);
	path = load_valid(cfg, "", "minimal.ini", TAIL, "valid file");
	assert_non_null(realpath(path, real));
	assert_string_equal(cfg->path, real);

	/* [eal] */
	assert_int_equal(cfg->eal.main_lcore, 0);
	assert_string_equal(cfg->eal.file_prefix, "lanefwd");
	assert_int_equal(cfg->eal.memory_mb, 0);
	assert_true(cfg->eal.huge);
	assert_false(cfg->eal.in_memory);
	assert_true(cfg->eal.telemetry);
	assert_string_equal(cfg->eal.iova_mode, "");
	assert_string_equal(cfg->eal.log_level, "");
	assert_string_equal(cfg->eal.extra, "");
	/* [pipeline] */
	assert_int_equal(cfg->pipeline.burst, 32);
	assert_true(cfg->pipeline.prefetch_auto);
	assert_int_equal(cfg->pipeline.prefetch_distance, 16); /* auto: half the burst */
	assert_int_equal(cfg->pipeline.tx_drain_us, 100);
	assert_int_equal(cfg->pipeline.mbufs, 0);
	assert_int_equal(cfg->pipeline.mbuf_cache, 256);
	/* [routes] */
	assert_string_equal(cfg->routes.ipv4, "");
	assert_string_equal(cfg->routes.ipv6, "");
	assert_int_equal(cfg->routes.ipv4_max_routes, 1 << 20);
	assert_int_equal(cfg->routes.ipv4_tbl8, 4096);
	assert_int_equal(cfg->routes.ipv6_max_routes, 1 << 18);
	assert_int_equal(cfg->routes.ipv6_tbl8, 1 << 16);
	/* [port p0] */
	assert_int_equal(cfg->n_ports, 1);
	p = &cfg->ports[0];
	assert_string_equal(p->name, "p0");
	assert_string_equal(p->devargs, "net_null0");
	assert_string_equal(p->devname, "net_null0");
	assert_false(p->is_pci);
	assert_int_equal(p->rx_queues, 1);
	assert_int_equal(p->tx_queues, 1);
	assert_int_equal(p->rx_desc, 1024);
	assert_int_equal(p->tx_desc, 1024);
	assert_int_equal(p->mtu, 1500);
	assert_false(p->has_mac);
	/* Routed by default: only its own MAC (issue 15). */
	assert_false(p->promiscuous);
	/* [worker 1] */
	assert_int_equal(cfg->n_workers, 1);
	assert_int_equal(cfg->workers[0].lcore, 1);
	assert_int_equal(cfg->workers[0].n_rxq, 1);
	assert_int_equal(cfg->workers[0].rxq[0].port, 0);
	assert_int_equal(cfg->workers[0].rxq[0].queue, 0);
	assert_int_equal(cfg->n_nexthops, 0);

	assert_int_equal(config_port_index(cfg, "p0"), 0);
	assert_int_equal(config_port_index(cfg, "p1"), -1);
	assert_int_equal(config_port_index(cfg, ""), -1);
	config_free(cfg);
	assert_null(cfg->nexthops);
	free(cfg);
}

static const char full_text[] = "# full configuration, every key set\n"
				"[eal]\n"
				"main_lcore = 3\n"
				"file_prefix = lf_test-1\n"
				"memory = 2048\n"
				"huge = no\n"
				"in_memory = Yes\n"
				"telemetry = off\n"
				"iova_mode = va\n"
				"log_level = lanefwd.*:debug\n"
				"extra = --no-shconf  -d\tfoo.so\n"
				"allow_unsafe_extra = yes\n"
				"\n"
				"[pipeline]\n"
				"burst = 64   # trailing comment\n"
				"prefetch_distance = 0\n"
				"tx_drain_us = 250\n"
				"mbufs = 65536\n"
				"mbuf_cache = 0\n"
				"\n"
				"[routes]\n"
				"ipv4 = r4.txt\n"
				"ipv6 = ./r6.txt\n"
				"ipv4_max_routes = 1000\n"
				"ipv4_tbl8 = 128\n"
				"ipv6_max_routes = 2000\n"
				"ipv6_tbl8 = 256\n"
				"\n"
				"  [port wan0]  \n"
				"pci = 0000:3b:00.1\n"
				"rx_queues = 2\n"
				"rx_desc = 2048\n"
				"tx_desc = 512\n"
				"mtu = 9000\n"
				"mac = 02:AA:bb:cc:dd:01\n"
				"promiscuous = false\n"
				"\n"
				"[port lan_1]\n"
				"\tvdev=net_af_xdp0,iface=veth0,start_queue=0\n"
				"promiscuous = yes\n"
				"\n"
				"[worker 1]\n"
				"rx = wan0:0 lan_1:0\n"
				"\n"
				"[worker 2]\n"
				"rx = wan0:1\n"
				"\n"
				"[nexthop 7]\n"
				"port = wan0\n"
				"mac = 02:00:00:00:00:07\n"
				"\n"
				"[nexthop 0]\n"
				"port = lan_1\n"
				"mac = 02:00:00:00:00:10\n"
				"src_mac = 02:00:00:00:00:11\n";

static void
check_full(const struct lf_config *cfg, const char *r4, const char *r6)
{
	const struct rte_ether_addr wan_mac = { { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0x01 } };
	const struct rte_ether_addr nh7 = { { 0x02, 0, 0, 0, 0, 0x07 } };
	const struct rte_ether_addr nh0 = { { 0x02, 0, 0, 0, 0, 0x10 } };
	const struct rte_ether_addr nh0_src = { { 0x02, 0, 0, 0, 0, 0x11 } };
	char got[PATH_MAX], want[PATH_MAX];
	const struct lf_port_conf *p;

	assert_int_equal(cfg->eal.main_lcore, 3);
	assert_string_equal(cfg->eal.file_prefix, "lf_test-1");
	assert_int_equal(cfg->eal.memory_mb, 2048);
	assert_false(cfg->eal.huge);
	assert_true(cfg->eal.in_memory);
	assert_false(cfg->eal.telemetry);
	assert_string_equal(cfg->eal.iova_mode, "va");
	assert_string_equal(cfg->eal.log_level, "lanefwd.*:debug");

	assert_int_equal(cfg->pipeline.burst, 64);
	assert_int_equal(cfg->pipeline.prefetch_distance, 0);
	assert_false(cfg->pipeline.prefetch_auto);
	assert_int_equal(cfg->pipeline.tx_drain_us, 250);
	assert_int_equal(cfg->pipeline.mbufs, 65536);
	assert_int_equal(cfg->pipeline.mbuf_cache, 0);

	/* Route files resolve to the files next to the configuration. */
	assert_non_null(realpath(cfg->routes.ipv4, got));
	assert_non_null(realpath(r4, want));
	assert_string_equal(got, want);
	assert_non_null(realpath(cfg->routes.ipv6, got));
	assert_non_null(realpath(r6, want));
	assert_string_equal(got, want);
	assert_int_equal(cfg->routes.ipv4_max_routes, 1000);
	assert_int_equal(cfg->routes.ipv4_tbl8, 128);
	assert_int_equal(cfg->routes.ipv6_max_routes, 2000);
	assert_int_equal(cfg->routes.ipv6_tbl8, 256);

	assert_int_equal(cfg->n_ports, 2);
	p = &cfg->ports[0];
	assert_string_equal(p->name, "wan0");
	assert_true(p->is_pci);
	assert_string_equal(p->devargs, "0000:3b:00.1");
	assert_string_equal(p->devname, "0000:3b:00.1");
	assert_int_equal(p->rx_queues, 2);
	assert_int_equal(p->tx_queues, 2);
	assert_int_equal(p->rx_desc, 2048);
	assert_int_equal(p->tx_desc, 512);
	assert_int_equal(p->mtu, 9000);
	assert_true(p->has_mac);
	assert_memory_equal(&p->mac, &wan_mac, sizeof(wan_mac));
	assert_false(p->promiscuous);
	p = &cfg->ports[1];
	assert_string_equal(p->name, "lan_1");
	assert_false(p->is_pci);
	assert_string_equal(p->devargs, "net_af_xdp0,iface=veth0,start_queue=0");
	assert_string_equal(p->devname, "net_af_xdp0");
	assert_int_equal(p->rx_queues, 1);
	assert_int_equal(p->tx_queues, 2);
	assert_int_equal(p->rx_desc, 1024);
	assert_int_equal(p->tx_desc, 1024);
	assert_int_equal(p->mtu, 1500);
	assert_false(p->has_mac);
	assert_true(p->promiscuous);

	assert_int_equal(cfg->n_workers, 2);
	assert_int_equal(cfg->workers[0].lcore, 1);
	assert_int_equal(cfg->workers[0].n_rxq, 2);
	assert_int_equal(cfg->workers[0].rxq[0].port, 0);
	assert_int_equal(cfg->workers[0].rxq[0].queue, 0);
	assert_int_equal(cfg->workers[0].rxq[1].port, 1);
	assert_int_equal(cfg->workers[0].rxq[1].queue, 0);
	assert_int_equal(cfg->workers[1].lcore, 2);
	assert_int_equal(cfg->workers[1].n_rxq, 1);
	assert_int_equal(cfg->workers[1].rxq[0].port, 0);
	assert_int_equal(cfg->workers[1].rxq[0].queue, 1);

	assert_int_equal(cfg->n_nexthops, 2);
	assert_non_null(cfg->nexthops);
	assert_int_equal(cfg->nexthops[0].id, 7);
	assert_int_equal(cfg->nexthops[0].port, 0);
	assert_memory_equal(&cfg->nexthops[0].dst_mac, &nh7, sizeof(nh7));
	assert_false(cfg->nexthops[0].has_src_mac);
	assert_int_equal(cfg->nexthops[1].id, 0);
	assert_int_equal(cfg->nexthops[1].port, 1);
	assert_memory_equal(&cfg->nexthops[1].dst_mac, &nh0, sizeof(nh0));
	assert_true(cfg->nexthops[1].has_src_mac);
	assert_memory_equal(&cfg->nexthops[1].src_mac, &nh0_src, sizeof(nh0_src));

	assert_int_equal(config_port_index(cfg, "wan0"), 0);
	assert_int_equal(config_port_index(cfg, "lan_1"), 1);
	assert_int_equal(config_port_index(cfg, "lan"), -1);
}

static void
test_full_file(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char want[PATH_MAX];
	char *r4, *r6;

	(void)state;
	assert_non_null(cfg);
	r4 = write_file("full", "r4.txt", "10.0.0.0/8 7\n");
	r6 = write_file("full", "r6.txt", "2001:db8::/32 0\n");
	load_valid(cfg, "full", "lanefwd.ini", full_text, "valid file");
	check_full(cfg, r4, r6);
	/* The config path is absolute, so is the resolved relative route path. */
	snprintf(want, sizeof(want), "%s/full/r4.txt", tmp_dir);
	assert_string_equal(cfg->routes.ipv4, want);
	assert_string_equal(cfg->eal.extra, "--no-shconf  -d\tfoo.so");
	config_free(cfg);
	free(cfg);
}

/* Relative route paths follow the configuration file, not the working directory. */
static void
test_relative_route_paths(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char err[LF_ERR_LEN];
	char cwd[PATH_MAX], got[PATH_MAX], want[PATH_MAX];
	char *r4, *other, *abs_r6;
	char text[1024];

	(void)state;
	assert_non_null(cfg);
	r4 = write_file("rel", "routes4.txt", "10.0.0.0/8 1\n");
	/* A file of the same name in the working directory must not be used. */
	other = write_file("", "routes4.txt", "10.0.0.0/8 2\n");
	abs_r6 = write_file("", "abs6.txt", "::/0 1\n");
	snprintf(text, sizeof(text), "[routes]\nipv4 = routes4.txt\nipv6 = %s\n" TAIL, abs_r6);
	write_file("rel", "rel.ini", text);

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(tmp_dir), 0);
	/* Loaded by a relative path from another directory. */
	if (config_load("rel/rel.ini", cfg, err, sizeof(err)) != 0) {
		assert_int_equal(chdir(cwd), 0);
		fail_msg("valid file rejected: %s", err);
	}
	assert_non_null(realpath(cfg->routes.ipv4, got));
	assert_int_equal(chdir(cwd), 0);
	assert_non_null(realpath(r4, want));
	assert_string_equal(got, want);
	assert_non_null(realpath(other, want));
	assert_string_not_equal(got, want);
	/* An absolute path is kept as written. */
	assert_string_equal(cfg->routes.ipv6, abs_r6);
	config_free(cfg);
	free(cfg);
}

/*
 * [acl] with only an IPv6 rule file: the path follows the configuration
 * file, IPv4 stays unset, and the dump writes the section back.
 */
static void
test_acl_ipv6_only(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	struct lf_config *back = calloc(1, sizeof(*back));
	char err[LF_ERR_LEN], got[PATH_MAX], want[PATH_MAX], dump_path[PATH_MAX];
	char *rules;
	FILE *f;

	(void)state;
	assert_non_null(cfg);
	assert_non_null(back);
	rules = write_file("acl6", "v6.rules", "@::/0\t::/0\t0 : 65535\t0 : 65535\t0x00/0x00\n");
	load_valid(cfg, "acl6", "acl6.ini", "[acl]\nipv6 = v6.rules\ndefault = deny\n" TAIL,
		   "valid file");
	assert_string_equal(cfg->acl.ipv4, "");
	assert_non_null(realpath(cfg->acl.ipv6, got));
	assert_non_null(realpath(rules, want));
	assert_string_equal(got, want);
	assert_true(cfg->acl.deny);

	snprintf(dump_path, sizeof(dump_path), "%s/acl6/dumped.ini", tmp_dir);
	f = fopen(dump_path, "w");
	assert_non_null(f);
	config_dump(cfg, f);
	assert_int_equal(fclose(f), 0);
	remember(strdup(dump_path));
	if (config_load(dump_path, back, err, sizeof(err)) != 0)
		fail_msg("dumped file rejected: %s", err);
	assert_memory_equal(&back->acl, &cfg->acl, sizeof(cfg->acl));
	config_free(back);
	config_free(cfg);
	free(back);
	free(cfg);
}

/* rx_queues defaults to the highest polled queue + 1. */
static void
test_rx_queues_from_workers(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));

	(void)state;
	assert_non_null(cfg);
	load_valid(cfg, "", "rxq.ini",
		   "[port a]\nvdev = net_null0\n"
		   "[port b]\nvdev = net_null1\n"
		   "[worker 2]\nrx = a:2, a:0 b:0\n"
		   "[worker 5]\nrx = a:1\n",
		   "valid file");
	assert_int_equal(cfg->ports[0].rx_queues, 3);
	assert_int_equal(cfg->ports[1].rx_queues, 1);
	assert_int_equal(cfg->ports[0].tx_queues, 2);
	assert_int_equal(cfg->ports[1].tx_queues, 2);
	assert_int_equal(cfg->workers[0].n_rxq, 3);
	assert_int_equal(cfg->workers[0].rxq[0].queue, 2);
	assert_int_equal(cfg->workers[0].rxq[1].queue, 0);
	assert_int_equal(cfg->workers[0].rxq[2].port, 1);
	assert_int_equal(cfg->workers[1].lcore, 5);
	config_free(cfg);
	free(cfg);
}

/* [worker] rx_mode: defaults, each mode with its keys, per worker, dumped back. */
static void
test_rx_modes(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	struct lf_config *again = calloc(1, sizeof(*again));
	char *dump = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(cfg);
	assert_non_null(again);
	load_valid(cfg, "", "rxmode.ini",
		   "[port a]\nvdev = net_null0\n[port b]\nvdev = net_null1\n"
		   "[worker 1]\nrx = a:0\n"
		   "[worker 2]\nrx = b:0\nrx_mode = interrupt\nsleep_max_us = 200\n"
		   "[worker 3]\nrx = a:1\nrx_mode = hybrid\nspin_us = 0\n"
		   "[worker 4]\nrx = b:1\nrx_mode = pmd-mgmt\n"
		   "[worker 5]\nrx = a:2\nrx_mode = pmd-mgmt\npmd_mgmt = scale\n"
		   "[worker 6]\nrx = b:2\nrx_mode = hybrid\nspin_us = 1000000\nsleep_max_us = 5000\n",
		   "rx modes");
	assert_int_equal(cfg->workers[0].rx_mode, LF_RX_POLL);
	assert_int_equal(cfg->workers[0].spin_us, LF_SPIN_US_DEFAULT);
	assert_int_equal(cfg->workers[0].sleep_max_us, LF_SLEEP_MAX_US_DEFAULT);
	assert_int_equal(cfg->workers[1].rx_mode, LF_RX_INTERRUPT);
	assert_int_equal(cfg->workers[1].sleep_max_us, 200);
	assert_int_equal(cfg->workers[2].rx_mode, LF_RX_HYBRID);
	assert_int_equal(cfg->workers[2].spin_us, 0);
	assert_int_equal(cfg->workers[2].sleep_max_us, 1000);
	assert_int_equal(cfg->workers[3].rx_mode, LF_RX_PMD_MGMT);
	assert_int_equal(cfg->workers[3].pmd_mgmt, LF_PMGMT_PAUSE);
	assert_int_equal(cfg->workers[4].pmd_mgmt, LF_PMGMT_SCALE);
	assert_int_equal(cfg->workers[5].spin_us, 1000000);
	assert_int_equal(cfg->workers[5].sleep_max_us, 5000);

	/* --check-config's dump reads back to the same workers. */
	f = open_memstream(&dump, &len);
	assert_non_null(f);
	config_dump(cfg, f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(dump,
			       "[worker 3]\nrx = a:1\nrx_mode = hybrid\nspin_us = 0\n"
			       "sleep_max_us = 1000\n"));
	assert_non_null(
		strstr(dump, "[worker 5]\nrx = a:2\nrx_mode = pmd-mgmt\npmd_mgmt = scale\n"));
	load_valid(again, "", "rxmode_dump.ini", dump, "dumped rx modes");
	assert_memory_equal(again->workers + 0, cfg->workers + 0,
			    cfg->n_workers * sizeof(cfg->workers[0]));
	free(dump);
	config_free(again);
	config_free(cfg);
	free(again);
	free(cfg);
}

/* A port no worker polls is TX-only (README): valid, one RX queue configured. */
static void
test_tx_only_port(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));

	(void)state;
	assert_non_null(cfg);
	load_valid(cfg, "", "txonly.ini",
		   TAIL "[port out]\nvdev = net_null1\n"
			"[nexthop 3]\nport = out\nmac = 02:00:00:00:00:03\n",
		   "valid file");
	assert_int_equal(cfg->n_ports, 2);
	assert_string_equal(cfg->ports[1].name, "out");
	assert_int_equal(cfg->ports[1].rx_queues, 1);
	assert_int_equal(cfg->ports[1].tx_queues, 1);
	assert_int_equal(cfg->n_nexthops, 1);
	assert_int_equal(cfg->nexthops[0].id, 3);
	assert_int_equal(cfg->nexthops[0].port, 1);
	config_free(cfg);
	free(cfg);
}

/* Every spelling of a boolean. */
static void
test_bool_spellings(void **state)
{
	static const char *const yes[] = { "yes", "YES", "true", "True", "on", "1" };
	static const char *const no[] = { "no", "No", "false", "FALSE", "off", "0" };
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char text[512];
	unsigned int i;

	(void)state;
	assert_non_null(cfg);
	for (i = 0; i < RTE_DIM(yes); i++) {
		snprintf(text, sizeof(text), "[eal]\nhuge = %s\nin_memory = %s\n" TAIL, no[i],
			 yes[i]);
		load_valid(cfg, "", i % 2 ? "bool1.ini" : "bool0.ini", text, text);
		assert_false(cfg->eal.huge);
		assert_true(cfg->eal.in_memory);
		config_free(cfg);
	}
	free(cfg);
}

/*
 * ue_alloc.ID: further named pools of an instance, parsed in order beside
 * ue_alloc, written back by config_dump(); an instance may have named
 * pools only. Pools whose announcement would not fit the Association
 * Setup Response are refused on the key that overflows it.
 */
static void
test_upf_named_pools(void **state)
{
	static const char text[] =
		"[upf]\nn3_ipv4 = 10.0.0.1\n"
		"[network_instance internet]\nue_pool = 10.45.0.0/16, fd00:45::/48\n"
		"ue_alloc = 10.45.0.0/24\nue_alloc_pool_id = inet\n"
		"ue_alloc.ent-a = 10.45.1.0/24, fd00:45:0:100::/56\n"
		"ue_alloc.ent-b@corp = 10.45.2.0/25\n"
		"[network_instance ims]\nue_alloc_ipv6_len.ims-v6 = 60\nue_pool = fd00:99::/48\n"
		"ue_alloc.ims-v6 = fd00:99::/56\n" TAIL;
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	struct lf_config *back = calloc(1, sizeof(*back));
	const struct lf_upf_ni_conf *ni;
	char err[LF_ERR_LEN], path[PATH_MAX];
	static char big[64 * 1024];
	size_t o = 0;
	unsigned int i, k;
	FILE *f;

	(void)state;
	assert_non_null(cfg);
	assert_non_null(back);
	load_valid(cfg, "", "named_pools.ini", text, "named pools");
	assert_int_equal(cfg->upf.n_ni, 2);
	ni = &cfg->upf.ni[0];
	assert_string_equal(ni->pool_id, "inet");
	assert_int_equal(ni->n_alloc, 1);
	assert_int_equal(ni->n_named, 2);
	assert_string_equal(ni->named[0].id, "ent-a");
	assert_int_equal(ni->named[0].n, 2);
	assert_int_equal(ni->named[0].p[0].af, 4);
	assert_int_equal(ni->named[0].p[0].plen, 24);
	assert_memory_equal(ni->named[0].p[0].a, "\x0a\x2d\x01\x00", 4);
	assert_int_equal(ni->named[0].p[1].af, 6);
	assert_int_equal(ni->named[0].p[1].plen, 56);
	assert_memory_equal(ni->named[0].p[1].a, "\xfd\x00\x00\x45\x00\x00\x01\x00", 8);
	assert_string_equal(ni->named[1].id, "ent-b@corp");
	assert_int_equal(ni->named[1].n, 1);
	assert_int_equal(ni->named[1].p[0].plen, 25);
	/* IPv6 /64s unless ue_alloc_ipv6_len(.ID) says otherwise. */
	assert_int_equal(ni->alloc_ipv6_len, 64);
	assert_int_equal(ni->named[0].ipv6_len, 64);
	ni = &cfg->upf.ni[1];
	assert_int_equal(ni->n_alloc, 0);
	assert_string_equal(ni->pool_id, "");
	assert_int_equal(ni->n_named, 1);
	assert_string_equal(ni->named[0].id, "ims-v6");
	/* Given before the pool it names. */
	assert_int_equal(ni->named[0].ipv6_len, 60);
	assert_int_equal(lf_upf_ni_alloc_len6(ni, 1), 60);

	snprintf(path, sizeof(path), "%s/named_pools_dump.ini", tmp_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	config_dump(cfg, f);
	assert_int_equal(fclose(f), 0);
	remember(strdup(path));
	if (config_load(path, back, err, sizeof(err)) != 0)
		fail_msg("dumped file rejected: %s", err);
	assert_int_equal(back->upf.n_ni, cfg->upf.n_ni);
	for (i = 0; i < cfg->upf.n_ni; i++)
		assert_memory_equal(&back->upf.ni[i], &cfg->upf.ni[i], sizeof(cfg->upf.ni[i]));
	config_free(back);
	config_free(cfg);

	/* Instances of 9 pools, names of 40 characters (a section name is
	 * 63 at most), identities of 60 (ue_alloc_pool_id) and 50 (a key is
	 * 63 at most): 946 bytes of Pool Information each, so 6 fit
	 * LF_UPF_POOL_INFO_MAX and the 7th does not (6622 bytes): refused on
	 * its last pool key. */
	o += (size_t)snprintf(big + o, sizeof(big) - o, "[upf]\nn3_ipv4 = 10.0.0.1\n");
	for (i = 0; i < 7; i++) {
		o += (size_t)snprintf(big + o, sizeof(big) - o,
				      "[network_instance n%u%038u]\nue_pool = 10.%u.0.0/16\n"
				      "ue_alloc = 10.%u.0.0/24\nue_alloc_pool_id = p%u%058u\n",
				      i, 0u, i, i, i, 0u);
		for (k = 1; k < 9; k++)
			o += (size_t)snprintf(big + o, sizeof(big) - o,
					      "ue_alloc.q%u%u%047u = 10.%u.%u.0/24\n", i, k, 0u, i,
					      k);
	}
	o += (size_t)snprintf(big + o, sizeof(big) - o, "%s", TAIL);
	assert_true(o < sizeof(big));
	snprintf(path, sizeof(path), "%s/named_pools_big.ini", tmp_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(big, f) >= 0);
	assert_int_equal(fclose(f), 0);
	remember(strdup(path));
	assert_int_not_equal(config_load(path, back, err, sizeof(err)), 0);
	print_message("named_pools_big -> %s\n", err);
	assert_non_null(strstr(err, "[network_instance n6"));
	assert_non_null(strstr(err, "ue_alloc.q68"));
	assert_non_null(strstr(err, "take 6622 bytes"));
	assert_non_null(strstr(err, "over 6144"));
	free(back);
	free(cfg);
}

/* config_dump() writes a file that loads back into the same configuration. */
static void
test_dump_round_trip(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	struct lf_config *back = calloc(1, sizeof(*back));
	char err[LF_ERR_LEN];
	char dump_path[PATH_MAX];
	char *r4, *r6;
	FILE *f;
	unsigned int i;

	(void)state;
	assert_non_null(cfg);
	assert_non_null(back);
	r4 = write_file("dump", "r4.txt", "10.0.0.0/8 7\n");
	r6 = write_file("dump", "r6.txt", "2001:db8::/32 0\n");
	load_valid(cfg, "dump", "lanefwd.ini", full_text, "valid file");

	snprintf(dump_path, sizeof(dump_path), "%s/dump/dumped.ini", tmp_dir);
	f = fopen(dump_path, "w");
	assert_non_null(f);
	config_dump(cfg, f);
	assert_int_equal(fclose(f), 0);
	remember(strdup(dump_path));

	if (config_load(dump_path, back, err, sizeof(err)) != 0)
		fail_msg("dumped file rejected: %s", err);
	/* extra is the only [eal] value the dump writes in a changed form. */
	check_full(back, r4, r6);
	assert_memory_equal(&back->eal, &cfg->eal, offsetof(struct lf_eal_conf, extra));
	assert_memory_equal(&back->pipeline, &cfg->pipeline, sizeof(cfg->pipeline));
	assert_memory_equal(&back->routes, &cfg->routes, sizeof(cfg->routes));
	assert_int_equal(back->n_ports, cfg->n_ports);
	for (i = 0; i < cfg->n_ports; i++)
		assert_memory_equal(&back->ports[i], &cfg->ports[i], sizeof(cfg->ports[i]));
	assert_int_equal(back->n_nexthops, cfg->n_nexthops);
	for (i = 0; i < cfg->n_nexthops; i++)
		assert_memory_equal(&back->nexthops[i], &cfg->nexthops[i],
				    sizeof(cfg->nexthops[i]));
	config_free(back);
	config_free(cfg);
	free(back);
	free(cfg);
}

/* ---- config_eal_args() ---- */

static int
find_arg(char **argv, int argc, const char *a)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], a) == 0)
			return i;
	return -1;
}

static void
test_eal_args_vdev_only(void **state)
{
	static const char *const want[] = {
		"prog",          "-l",      "0,1",    "--main-lcore", "0",
		"--file-prefix", "lanefwd", "--vdev", "net_null0",    "--no-pci",
	};
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char argv0[] = "prog";
	char *argv[64];
	char buf[1024];
	int argc, i;

	(void)state;
	assert_non_null(cfg);
	load_valid(cfg, "", "eal_vdev.ini", TAIL, "valid file");
	argc = config_eal_args(cfg, argv0, argv, RTE_DIM(argv), buf, sizeof(buf));
	assert_int_equal(argc, RTE_DIM(want));
	for (i = 0; i < argc; i++)
		assert_string_equal(argv[i], want[i]);
	assert_ptr_equal(argv[0], argv0);
	assert_null(argv[argc]);
	assert_int_equal(find_arg(argv, argc, "-a"), -1);
	config_free(cfg);
	free(cfg);
}

static void
test_eal_args_full(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char argv0[] = "lanefwd";
	char *argv[64];
	char buf[1024];
	int argc, i;

	(void)state;
	assert_non_null(cfg);
	write_file("eal", "r4.txt", "10.0.0.0/8 7\n");
	write_file("eal", "r6.txt", "2001:db8::/32 0\n");
	load_valid(cfg, "eal", "lanefwd.ini", full_text, "valid file");
	argc = config_eal_args(cfg, argv0, argv, RTE_DIM(argv), buf, sizeof(buf));
	assert_true(argc > 0);
	assert_null(argv[argc]);
	assert_string_equal(argv[0], "lanefwd");

	/* Main lcore first, then the workers. */
	i = find_arg(argv, argc, "-l");
	assert_true(i > 0 && i + 1 < argc);
	assert_string_equal(argv[i + 1], "3,1,2");
	i = find_arg(argv, argc, "--main-lcore");
	assert_true(i > 0);
	assert_string_equal(argv[i + 1], "3");
	i = find_arg(argv, argc, "--file-prefix");
	assert_true(i > 0);
	assert_string_equal(argv[i + 1], "lf_test-1");
	i = find_arg(argv, argc, "-m");
	assert_true(i > 0);
	assert_string_equal(argv[i + 1], "2048");
	assert_true(find_arg(argv, argc, "--no-huge") > 0);
	assert_true(find_arg(argv, argc, "--in-memory") > 0);
	assert_true(find_arg(argv, argc, "--no-telemetry") > 0);
	i = find_arg(argv, argc, "--iova-mode");
	assert_true(i > 0);
	assert_string_equal(argv[i + 1], "va");
	i = find_arg(argv, argc, "--log-level");
	assert_true(i > 0);
	assert_string_equal(argv[i + 1], "lanefwd.*:debug");
	/* The PCI port is allowed by address, the vdev created, PCI not disabled. */
	i = find_arg(argv, argc, "-a");
	assert_true(i > 0);
	assert_string_equal(argv[i + 1], "0000:3b:00.1");
	i = find_arg(argv, argc, "--vdev");
	assert_true(i > 0);
	assert_string_equal(argv[i + 1], "net_af_xdp0,iface=veth0,start_queue=0");
	assert_int_equal(find_arg(argv, argc, "--no-pci"), -1);
	/* extra is split on blanks and comes last. */
	assert_true(argc >= 3);
	assert_string_equal(argv[argc - 3], "--no-shconf");
	assert_string_equal(argv[argc - 2], "-d");
	assert_string_equal(argv[argc - 1], "foo.so");
	/* The configuration itself is untouched by the split. */
	assert_string_equal(cfg->eal.extra, "--no-shconf  -d\tfoo.so");
	config_free(cfg);
	free(cfg);
}

static void
test_eal_args_one_per_port(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char argv0[] = "lanefwd";
	char *argv[64];
	char buf[1024];
	int argc, i, n_a = 0, n_vdev = 0;

	(void)state;
	assert_non_null(cfg);
	load_valid(cfg, "", "eal_ports.ini",
		   "[eal]\nmain_lcore = 4\nfile_prefix = fp\n"
		   "[port a]\npci = 0000:00:1f.7\n"
		   "[port b]\nvdev = net_null0\n"
		   "[port c]\nvdev = net_ring0\n"
		   "[port d]\npci = 0001:af:00.0\n"
		   "[worker 6]\nrx = a:0 b:0\n"
		   "[worker 5]\nrx = c:0 d:0\n",
		   "valid file");
	argc = config_eal_args(cfg, argv0, argv, RTE_DIM(argv), buf, sizeof(buf));
	assert_true(argc > 0);
	for (i = 0; i < argc - 1; i++) {
		if (strcmp(argv[i], "-a") == 0) {
			n_a++;
			assert_true(strcmp(argv[i + 1], "0000:00:1f.7") == 0 ||
				    strcmp(argv[i + 1], "0001:af:00.0") == 0);
		} else if (strcmp(argv[i], "--vdev") == 0) {
			n_vdev++;
			assert_true(strcmp(argv[i + 1], "net_null0") == 0 ||
				    strcmp(argv[i + 1], "net_ring0") == 0);
		}
	}
	assert_int_equal(n_a, 2);
	assert_int_equal(n_vdev, 2);
	assert_int_equal(find_arg(argv, argc, "--no-pci"), -1);
	i = find_arg(argv, argc, "-l");
	assert_string_equal(argv[i + 1], "4,6,5");
	i = find_arg(argv, argc, "--file-prefix");
	assert_string_equal(argv[i + 1], "fp");
	/* Defaults add no optional argument. */
	assert_int_equal(find_arg(argv, argc, "-m"), -1);
	assert_int_equal(find_arg(argv, argc, "--no-huge"), -1);
	assert_int_equal(find_arg(argv, argc, "--in-memory"), -1);
	assert_int_equal(find_arg(argv, argc, "--no-telemetry"), -1);
	assert_int_equal(find_arg(argv, argc, "--iova-mode"), -1);
	assert_int_equal(find_arg(argv, argc, "--log-level"), -1);
	config_free(cfg);
	free(cfg);
}

static void
test_eal_args_no_space(void **state)
{
	struct lf_config *cfg = calloc(1, sizeof(*cfg));
	char argv0[] = "prog";
	char *argv[64];
	char buf[1024];
	int argc, full;

	(void)state;
	assert_non_null(cfg);
	load_valid(cfg, "", "eal_nospace.ini", TAIL, "valid file");
	full = config_eal_args(cfg, argv0, argv, RTE_DIM(argv), buf, sizeof(buf));
	assert_int_equal(full, 10);
	/* argv needs argc + 1 slots for the terminating NULL. */
	assert_int_equal(config_eal_args(cfg, argv0, argv, full + 1, buf, sizeof(buf)), full);
	argc = config_eal_args(cfg, argv0, argv, full, buf, sizeof(buf));
	assert_int_equal(argc, -ENOSPC);
	assert_int_equal(config_eal_args(cfg, argv0, argv, 3, buf, sizeof(buf)), -ENOSPC);
	/* Too small a string buffer. */
	assert_int_equal(config_eal_args(cfg, argv0, argv, RTE_DIM(argv), buf, 2), -ENOSPC);
	config_free(cfg);
	free(cfg);
}

int
main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_line_too_long),
		cmocka_unit_test(test_not_a_config_file),
		cmocka_unit_test(test_eal_extra_allow_list),
		cmocka_unit_test(test_mem_estimate),
		cmocka_unit_test(test_small_error_buffer),
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_prefetch_auto),
		cmocka_unit_test(test_burst_auto),
		cmocka_unit_test(test_fib_lookup_key),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_relative_route_paths),
		cmocka_unit_test(test_acl_ipv6_only),
		cmocka_unit_test(test_rx_queues_from_workers),
		cmocka_unit_test(test_rx_modes),
		cmocka_unit_test(test_tx_only_port),
		cmocka_unit_test(test_bool_spellings),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_upf_named_pools),
		cmocka_unit_test(test_eal_args_vdev_only),
		cmocka_unit_test(test_eal_args_full),
		cmocka_unit_test(test_eal_args_one_per_port),
		cmocka_unit_test(test_eal_args_no_space),
	};
	const size_t n_bad = RTE_DIM(bad_cases);
	struct CMUnitTest *tests;
	size_t i;
	int ret;

	/* Invalid files first, one named test each, then the valid ones. */
	tests = calloc(n_bad + RTE_DIM(fixed), sizeof(*tests));
	if (tests == NULL)
		return 1;
	for (i = 0; i < n_bad; i++) {
		tests[i].name = bad_cases[i].name;
		tests[i].test_func = test_bad_case;
		tests[i].initial_state = (void *)(uintptr_t)&bad_cases[i];
	}
	memcpy(&tests[n_bad], fixed, sizeof(fixed));
	ret = _cmocka_run_group_tests("config", tests, n_bad + RTE_DIM(fixed), group_setup,
				      group_teardown);
	free(tests);
	return ret;
}
