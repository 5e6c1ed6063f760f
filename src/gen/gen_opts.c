/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: command-line options (after the EAL arguments and "--"). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_app.h"

enum {
	OPT_TX_PORT = 256,
	OPT_RX_PORT,
	OPT_TX_LCORE,
	OPT_RX_LCORE,
	OPT_DST_MAC,
	OPT_SRC_MAC,
	OPT_DST_IP,
	OPT_SRC_IP,
	OPT_DST_IPS,
	OPT_SRC_IPS,
	OPT_SPORT,
	OPT_DPORT,
	OPT_PROTO,
	OPT_TTL,
	OPT_FLOWS,
	OPT_DIST,
	OPT_ZIPF_S,
	OPT_SIZE,
	OPT_RATE,
	OPT_BURST,
	OPT_ON_US,
	OPT_OFF_US,
	OPT_DURATION,
	OPT_WARMUP,
	OPT_DRAIN,
	OPT_SEARCH,
	OPT_TRIALS,
	OPT_NDR_LOSS,
	OPT_TRIAL,
	OPT_PRECISION,
	OPT_SEARCH_MAX,
	OPT_SEARCH_TRIALS,
	OPT_NDR_AT,
	OPT_JSON,
	OPT_QUIET,
	OPT_LOOPBACK,
	OPT_SEED,
	OPT_LINK_WAIT,
	OPT_LINGER,
	OPT_MBUFS,
	OPT_GTPU_UL,
	OPT_GTPU_DL,
	OPT_N3_IP,
	OPT_GNB_IP,
	OPT_GNB_IPS,
	OPT_UE_IP,
	OPT_TEID_BASE,
	OPT_QFI,
	OPT_HELP,
};

static const struct option longopts[] = {
	{ "tx-port", required_argument, NULL, OPT_TX_PORT },
	{ "rx-port", required_argument, NULL, OPT_RX_PORT },
	{ "tx-lcore", required_argument, NULL, OPT_TX_LCORE },
	{ "rx-lcore", required_argument, NULL, OPT_RX_LCORE },
	{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
	{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
	{ "dst-ip", required_argument, NULL, OPT_DST_IP },
	{ "src-ip", required_argument, NULL, OPT_SRC_IP },
	{ "dst-ips", required_argument, NULL, OPT_DST_IPS },
	{ "src-ips", required_argument, NULL, OPT_SRC_IPS },
	{ "sport", required_argument, NULL, OPT_SPORT },
	{ "dport", required_argument, NULL, OPT_DPORT },
	{ "proto", required_argument, NULL, OPT_PROTO },
	{ "ttl", required_argument, NULL, OPT_TTL },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "dist", required_argument, NULL, OPT_DIST },
	{ "zipf-s", required_argument, NULL, OPT_ZIPF_S },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "on-us", required_argument, NULL, OPT_ON_US },
	{ "off-us", required_argument, NULL, OPT_OFF_US },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "drain", required_argument, NULL, OPT_DRAIN },
	{ "search", no_argument, NULL, OPT_SEARCH },
	{ "trials", no_argument, NULL, OPT_TRIALS },
	{ "ndr-loss", required_argument, NULL, OPT_NDR_LOSS },
	{ "trial", required_argument, NULL, OPT_TRIAL },
	{ "search-precision", required_argument, NULL, OPT_PRECISION },
	{ "search-max", required_argument, NULL, OPT_SEARCH_MAX },
	{ "search-trials", required_argument, NULL, OPT_SEARCH_TRIALS },
	{ "ndr-at", required_argument, NULL, OPT_NDR_AT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "loopback", no_argument, NULL, OPT_LOOPBACK },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "link-wait", required_argument, NULL, OPT_LINK_WAIT },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "mbufs", required_argument, NULL, OPT_MBUFS },
	{ "gtpu-ul", required_argument, NULL, OPT_GTPU_UL },
	{ "gtpu-dl", required_argument, NULL, OPT_GTPU_DL },
	{ "n3-ip", required_argument, NULL, OPT_N3_IP },
	{ "gnb-ip", required_argument, NULL, OPT_GNB_IP },
	{ "gnb-ips", required_argument, NULL, OPT_GNB_IPS },
	{ "ue-ip", required_argument, NULL, OPT_UE_IP },
	{ "teid-base", required_argument, NULL, OPT_TEID_BASE },
	{ "qfi", required_argument, NULL, OPT_QFI },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

void
gen_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] -- [options]\n"
		"ports and lcores:\n"
		"  --tx-port N          ethdev port to send on (default 0)\n"
		"  --rx-port N          ethdev port to receive on (default 1 with two ports, else 0)\n"
		"  --tx-lcore N         lcore that sends (default: the main lcore when EAL has one\n"
		"                       lcore, else the first worker lcore)\n"
		"  --rx-lcore N         lcore that receives (default: the TX lcore, or the second\n"
		"                       worker lcore when there is one)\n"
		"  --loopback           add a ring port whose TX comes back on its RX and use it for\n"
		"                       both (the generator's own measurement floor)\n"
		"  --link-wait S        seconds to wait for link up (default 10)\n"
		"  --linger S           after the run, keep the ports open until every link is\n"
		"                       down (the peer closed them) or S seconds pass (default 0)\n"
		"  --mbufs N            mbufs per pool (default 16383)\n"
		"packets:\n"
		"  --dst-mac MAC        destination MAC (default 02:00:00:00:00:01)\n"
		"  --src-mac MAC        source MAC (default the TX port's)\n"
		"  --dst-ip ADDR        first destination; IPv4 or IPv6 sets the family (default 10.1.0.1)\n"
		"  --src-ip ADDR        first source (default 198.18.0.1 or 2001:db8:ffff::1)\n"
		"  --dst-ips N          destinations ADDR, ADDR+1, ... (default 1)\n"
		"  --src-ips N          sources (default min(flows / dst-ips, 65536))\n"
		"  --sport P            first source port (default 1024)\n"
		"  --dport P            destination port (default 5001)\n"
		"  --proto udp|tcp      L4 protocol (default udp)\n"
		"  --ttl N              IPv4 TTL / IPv6 hop limit (default 64)\n"
		"  --size SPEC          frame bytes with FCS: N, 'imix' (64:7,570:4,1518:1) or\n"
		"                       SIZE:WEIGHT,... (default 64); raised to the smallest frame\n"
		"                       that holds the headers and the 18-byte stamp\n"
		"GTP-U (a UPF under test; --size is the inner packet's frame, as sent on N6):\n"
		"  --gtpu-ul N          uplink: G-PDUs of N sessions to --n3-ip, inner packets\n"
		"                       from the UEs to --dst-ip; expects them back decapsulated\n"
		"  --gtpu-dl N          downlink: plain IP from --src-ip to N UEs; expects G-PDUs\n"
		"                       back from --n3-ip to the gNB with the session's TEID\n"
		"  --n3-ip ADDR         the UPF's N3 address (default 192.168.3.1)\n"
		"  --gnb-ip ADDR        first gNB address (default 192.168.3.2 or fd00:3::2)\n"
		"  --gnb-ips N          gNB addresses; session s uses --gnb-ip + s %% N (default 1)\n"
		"  --ue-ip ADDR         first UE; session s is ADDR + s, IPv6: + s /64s\n"
		"                       (default 10.45.0.1); sets the inner family\n"
		"  --teid-base N        session s has TEID N + s, both directions (default 1)\n"
		"  --qfi N              QFI sent uplink and expected downlink, 0-63 (default 9)\n"
		"flows:\n"
		"  --flows N            distinct 5-tuples, 1-%u (default 1; GTP-U: one per\n"
		"                       session and remote address)\n"
		"  --dist D             uniform, zipf or seq (default uniform)\n"
		"  --zipf-s S           Zipf exponent (default 1.0)\n"
		"  --seed N             random seed (default 1)\n"
		"rate and time:\n"
		"  --rate R             packets/s (k, M, G suffixes) or 'max' (default max)\n"
		"  --burst N            packets per TX and RX burst, 1-%u (default 32)\n"
		"  --on-us U --off-us U send only U us of every on+off period\n"
		"  --duration S         measured seconds (default 10)\n"
		"  --warmup S           seconds of warm-up traffic first, not measured (default 0)\n"
		"  --drain S            seconds RX goes on after TX stops (default 0.5)\n"
		"NDR search:\n"
		"  --search             binary search for the highest rate within --ndr-loss\n"
		"  --ndr-loss PCT       allowed loss in percent (default 0.001)\n"
		"  --trial S            seconds per trial (default 2)\n"
		"  --search-precision PCT  stop when the bounds are this close (default 1%% of max)\n"
		"  --search-max R       upper bound (default: measured by an unpaced first trial)\n"
		"  --search-trials N    at most N trials (default 20)\n"
		"  --ndr-at PCT,...     then a run of --duration at each PCT%% of the NDR (latency\n"
		"                       at a known load; e.g. 50,90)\n"
		"trial server (a search driven by another program, e.g. bench/mlrsearch.py):\n"
		"  --trials             read 'RATE DURATION' lines on stdin (RATE pps, 0 or max =\n"
		"                       unpaced; DURATION s), run each as a trial (after --warmup\n"
		"                       s, drained for --drain s) and write one JSON line per\n"
		"                       trial on stdout; ends at end of input\n"
		"output:\n"
		"  --json FILE          machine-readable result ('-' for stdout)\n"
		"  --quiet              no progress line\n",
		prog, GEN_MAX_FLOWS, GEN_BURST_MAX);
}

static int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A rate: a number with an optional k/M/G suffix, or "max" (0). */
static int
parse_rate(const char *s, uint64_t *out)
{
	char *end;
	double v, mult = 1;

	if (strcmp(s, "max") == 0) {
		*out = 0;
		return 0;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return -1;
	if (*end == 'k' || *end == 'K')
		mult = 1e3;
	else if (*end == 'm' || *end == 'M')
		mult = 1e6;
	else if (*end == 'g' || *end == 'G')
		mult = 1e9;
	if (mult != 1)
		end++;
	if (*end != '\0' || !isfinite(v) || v * mult < 1 || v * mult > 1e12)
		return -1;
	*out = (uint64_t)llround(v * mult);
	return 0;
}

static int
parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/* --ndr-at: comma-separated percentages of the NDR. */
static int
parse_pcts(const char *s, struct gen_opts *o)
{
	char buf[256], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	o->n_ndr_at = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_ndr_at == GEN_NDR_AT_MAX ||
		    parse_double(tok, 0.1, 100, &o->ndr_at[o->n_ndr_at]) != 0)
			return -1;
		o->n_ndr_at++;
	}
	return o->n_ndr_at != 0 ? 0 : -1;
}

/* An IPv4 or IPv6 address; returns its family (4 or 6) or -1. */
static int
parse_ip(const char *s, uint8_t *addr)
{
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, addr) == 1)
		return 6;
	return -1;
}

#define BAD(fmt, ...)                                      \
	do {                                               \
		snprintf(err, errlen, fmt, ##__VA_ARGS__); \
		return -EINVAL;                            \
	} while (0)

/*
 * The GTP-U options, once the rest are parsed: the UEs take the place of the
 * inner sources (uplink) or destinations (downlink), one session each, and
 * every session gets at least one flow.
 */
static int
gtpu_opts(struct gen_opts *o, const char *dst_ip, const char *src_ip, const char *n3_ip,
	  const char *gnb_ip, const char *ue_ip, bool flows_set, bool src_ips_set, char *err,
	  size_t errlen)
{
	struct gen_gtpu *g = &o->gtpu;
	const bool ul = g->mode == GEN_GTPU_UL;
	const char *dir = ul ? "--gtpu-ul" : "--gtpu-dl";
	uint64_t per_ue, need;
	int fam, ofam;

	if (ue_ip == NULL)
		ue_ip = "10.45.0.1";
	fam = parse_ip(ue_ip, o->ue_ip);
	if (fam < 0)
		BAD("--ue-ip %s: not an IPv4 or IPv6 address", ue_ip);
	o->family = (uint8_t)fam;
	if (n3_ip == NULL)
		n3_ip = "192.168.3.1";
	ofam = parse_ip(n3_ip, g->n3_ip);
	if (ofam < 0)
		BAD("--n3-ip %s: not an IPv4 or IPv6 address", n3_ip);
	g->family = (uint8_t)ofam;
	if (gnb_ip == NULL)
		gnb_ip = ofam == 4 ? "192.168.3.2" : "fd00:3::2";
	if (parse_ip(gnb_ip, g->gnb_ip) != ofam)
		BAD("--gnb-ip %s: not an IPv%d address like --n3-ip %s", gnb_ip, ofam, n3_ip);
	if ((uint64_t)g->teid_base + g->sessions - 1 > UINT32_MAX)
		BAD("--teid-base %u with %s %u: TEIDs past 4294967295", g->teid_base, dir,
		    g->sessions);
	if (ul) {
		if (src_ip != NULL || src_ips_set)
			BAD("--src-ip/--src-ips: with --gtpu-ul the inner sources are the UEs "
			    "(--ue-ip)");
		if (dst_ip == NULL)
			dst_ip = fam == 4 ? "10.1.0.1" : "2001:db8:1::1";
		if (parse_ip(dst_ip, o->dst_ip) != fam)
			BAD("--dst-ip %s: not an IPv%d address like --ue-ip %s", dst_ip, fam,
			    ue_ip);
		memcpy(o->src_ip, o->ue_ip, 16);
		o->src_ips = g->sessions;
		per_ue = o->dst_ips;
	} else {
		if (dst_ip != NULL || o->dst_ips != 1)
			BAD("--dst-ip/--dst-ips: with --gtpu-dl the inner destinations are the UEs "
			    "(--ue-ip)");
		if (src_ip == NULL)
			src_ip = fam == 4 ? "198.18.0.1" : "2001:db8:ffff::1";
		if (parse_ip(src_ip, o->src_ip) != fam)
			BAD("--src-ip %s: not an IPv%d address like --ue-ip %s", src_ip, fam,
			    ue_ip);
		memcpy(o->dst_ip, o->ue_ip, 16);
		o->dst_ips = g->sessions;
		per_ue = src_ips_set ? o->src_ips : 1;
	}
	need = per_ue * g->sessions;
	if (!flows_set) {
		if (need > GEN_MAX_FLOWS)
			BAD("%s %u with %" PRIu64 " remote addresses: %" PRIu64
			    " flows, more than %u",
			    dir, g->sessions, per_ue, need, GEN_MAX_FLOWS);
		o->flows = (uint32_t)need;
	} else if (o->flows < need) {
		BAD("--flows %u: %s %u with %" PRIu64 " remote addresses needs at least %" PRIu64
		    " flows, or some sessions get no traffic",
		    o->flows, dir, g->sessions, per_ue, need);
	}
	return 0;
}

int
gen_opts_parse(struct gen_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	static const uint8_t def_dst_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	const char *dst_ip = NULL, *src_ip = NULL, *n3_ip = NULL, *gnb_ip = NULL, *ue_ip = NULL;
	bool flows_set = false, src_ips_set = false, gtpu_opt = false;
	uint64_t v;
	int opt, fam, li = -1;

	memset(o, 0, sizeof(*o));
	o->tx_port = -1;
	o->rx_port = -1;
	o->tx_lcore = GEN_NO_LCORE;
	o->rx_lcore = GEN_NO_LCORE;
	memcpy(o->dst_mac, def_dst_mac, 6);
	o->dst_ips = 1;
	o->sport = 1024;
	o->dport = 5001;
	o->proto = IPPROTO_UDP;
	o->ttl = 64;
	o->flows = 1;
	o->dist = GEN_DIST_UNIFORM;
	o->zipf_s = 1.0;
	snprintf(o->size_spec, sizeof(o->size_spec), "64");
	o->burst = 32;
	o->duration_s = 10;
	o->drain_s = 0.5;
	o->ndr_loss_pct = 0.001;
	o->trial_s = 2;
	o->search_precision_pct = 1;
	o->search_trials = 20;
	o->seed = 1;
	o->link_wait_s = 10;
	o->mbufs = 16383;
	o->gtpu.teid_base = 1;
	o->gtpu.n_gnb = 1;
	o->gtpu.qfi = 9;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
		char name[32];

		/* The option's own name: argv[optind - 1] is its value when given apart. */
		snprintf(name, sizeof(name), "--%s", li >= 0 ? longopts[li].name : "");
		li = -1;

		switch (opt) {
		case OPT_TX_PORT:
		case OPT_RX_PORT:
			if (parse_u64(optarg, 0, RTE_MAX_ETHPORTS - 1, &v) != 0)
				BAD("%s %s: allowed 0-%u", name, optarg, RTE_MAX_ETHPORTS - 1);
			*(opt == OPT_TX_PORT ? &o->tx_port : &o->rx_port) = (int)v;
			break;
		case OPT_TX_LCORE:
		case OPT_RX_LCORE:
			if (parse_u64(optarg, 0, RTE_MAX_LCORE - 1, &v) != 0)
				BAD("%s %s: allowed 0-%u", name, optarg, RTE_MAX_LCORE - 1);
			*(opt == OPT_TX_LCORE ? &o->tx_lcore : &o->rx_lcore) = (unsigned int)v;
			break;
		case OPT_DST_MAC:
			if (parse_mac(optarg, o->dst_mac) != 0)
				BAD("--dst-mac %s: expected xx:xx:xx:xx:xx:xx", optarg);
			break;
		case OPT_SRC_MAC:
			if (parse_mac(optarg, o->src_mac) != 0)
				BAD("--src-mac %s: expected xx:xx:xx:xx:xx:xx", optarg);
			o->src_mac_set = true;
			break;
		case OPT_DST_IP:
			dst_ip = optarg;
			break;
		case OPT_SRC_IP:
			src_ip = optarg;
			break;
		case OPT_DST_IPS:
		case OPT_SRC_IPS:
			if (parse_u64(optarg, 1, GEN_MAX_FLOWS, &v) != 0)
				BAD("%s %s: allowed 1-%u", name, optarg, GEN_MAX_FLOWS);
			*(opt == OPT_DST_IPS ? &o->dst_ips : &o->src_ips) = (uint32_t)v;
			src_ips_set |= opt == OPT_SRC_IPS;
			break;
		case OPT_SPORT:
			if (parse_u64(optarg, 1, 65535, &v) != 0)
				BAD("--sport %s: allowed 1-65535", optarg);
			o->sport = (uint16_t)v;
			break;
		case OPT_DPORT:
			if (parse_u64(optarg, 0, 65535, &v) != 0)
				BAD("--dport %s: allowed 0-65535", optarg);
			o->dport = (uint16_t)v;
			break;
		case OPT_PROTO:
			if (strcmp(optarg, "udp") == 0)
				o->proto = IPPROTO_UDP;
			else if (strcmp(optarg, "tcp") == 0)
				o->proto = IPPROTO_TCP;
			else
				BAD("--proto %s: allowed udp, tcp", optarg);
			break;
		case OPT_TTL:
			if (parse_u64(optarg, 1, 255, &v) != 0)
				BAD("--ttl %s: allowed 1-255", optarg);
			o->ttl = (uint8_t)v;
			break;
		case OPT_FLOWS:
			if (parse_u64(optarg, 1, GEN_MAX_FLOWS, &v) != 0)
				BAD("--flows %s: allowed 1-%u", optarg, GEN_MAX_FLOWS);
			o->flows = (uint32_t)v;
			flows_set = true;
			break;
		case OPT_DIST:
			for (v = 0; v < GEN_DIST_COUNT; v++)
				if (strcmp(optarg, gen_dist_names[v]) == 0)
					break;
			if (v == GEN_DIST_COUNT)
				BAD("--dist %s: allowed uniform, zipf, seq", optarg);
			o->dist = (enum gen_dist)v;
			break;
		case OPT_ZIPF_S:
			if (parse_double(optarg, 0.01, 20, &o->zipf_s) != 0)
				BAD("--zipf-s %s: allowed 0.01-20", optarg);
			break;
		case OPT_SIZE:
			if (strlen(optarg) >= sizeof(o->size_spec))
				BAD("--size: longer than %zu characters", sizeof(o->size_spec) - 1);
			snprintf(o->size_spec, sizeof(o->size_spec), "%s", optarg);
			break;
		case OPT_RATE:
			if (parse_rate(optarg, &o->rate) != 0)
				BAD("--rate %s: allowed 1-1e12 packets/s (k, M, G suffixes) or max",
				    optarg);
			break;
		case OPT_SEARCH_MAX:
			if (parse_rate(optarg, &o->search_max) != 0)
				BAD("--search-max %s: allowed 1-1e12 packets/s (k, M, G suffixes) or "
				    "max",
				    optarg);
			break;
		case OPT_BURST:
			if (parse_u64(optarg, 1, GEN_BURST_MAX, &v) != 0)
				BAD("--burst %s: allowed 1-%u", optarg, GEN_BURST_MAX);
			o->burst = (unsigned int)v;
			break;
		case OPT_ON_US:
		case OPT_OFF_US:
			if (parse_u64(optarg, 1, 3600000000ull, &v) != 0)
				BAD("%s %s: allowed 1-3600000000", name, optarg);
			*(opt == OPT_ON_US ? &o->on_us : &o->off_us) = v;
			break;
		case OPT_DURATION:
			if (parse_double(optarg, 0.001, 86400 * 365, &o->duration_s) != 0)
				BAD("--duration %s: allowed 0.001-31536000 s", optarg);
			break;
		case OPT_WARMUP:
			if (parse_double(optarg, 0, 3600, &o->warmup_s) != 0)
				BAD("--warmup %s: allowed 0-3600 s", optarg);
			break;
		case OPT_DRAIN:
			if (parse_double(optarg, 0, 60, &o->drain_s) != 0)
				BAD("--drain %s: allowed 0-60 s", optarg);
			break;
		case OPT_SEARCH:
			o->search = true;
			break;
		case OPT_TRIALS:
			o->trials = true;
			break;
		case OPT_NDR_LOSS:
			if (parse_double(optarg, 0, 100, &o->ndr_loss_pct) != 0)
				BAD("--ndr-loss %s: allowed 0-100 (percent)", optarg);
			break;
		case OPT_TRIAL:
			if (parse_double(optarg, 0.01, 3600, &o->trial_s) != 0)
				BAD("--trial %s: allowed 0.01-3600 s", optarg);
			break;
		case OPT_PRECISION:
			if (parse_double(optarg, 0.001, 50, &o->search_precision_pct) != 0)
				BAD("--search-precision %s: allowed 0.001-50 (percent)", optarg);
			break;
		case OPT_SEARCH_TRIALS:
			if (parse_u64(optarg, 1, 100, &v) != 0)
				BAD("--search-trials %s: allowed 1-100", optarg);
			o->search_trials = (unsigned int)v;
			break;
		case OPT_NDR_AT:
			if (parse_pcts(optarg, o) != 0)
				BAD("--ndr-at %s: 1 to %u percentages, each 0.1-100, comma-separated",
				    optarg, GEN_NDR_AT_MAX);
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_LOOPBACK:
			o->loopback = true;
			break;
		case OPT_SEED:
			if (parse_u64(optarg, 1, UINT64_MAX, &o->seed) != 0)
				BAD("--seed %s: allowed 1-2^64-1", optarg);
			break;
		case OPT_LINK_WAIT:
			if (parse_double(optarg, 0, 3600, &o->link_wait_s) != 0)
				BAD("--link-wait %s: allowed 0-3600 s", optarg);
			break;
		case OPT_LINGER:
			if (parse_double(optarg, 0, 3600, &o->linger_s) != 0)
				BAD("--linger %s: allowed 0-3600 s", optarg);
			break;
		case OPT_MBUFS:
			if (parse_u64(optarg, 1023, 16777215, &v) != 0)
				BAD("--mbufs %s: allowed 1023-16777215", optarg);
			o->mbufs = (unsigned int)v;
			break;
		case OPT_GTPU_UL:
		case OPT_GTPU_DL:
			if (o->gtpu.mode != GEN_GTPU_NONE)
				BAD("--gtpu-ul and --gtpu-dl: one direction per run");
			if (parse_u64(optarg, 1, GEN_MAX_FLOWS, &v) != 0)
				BAD("%s %s: allowed 1-%u sessions", name, optarg, GEN_MAX_FLOWS);
			o->gtpu.mode = opt == OPT_GTPU_UL ? GEN_GTPU_UL : GEN_GTPU_DL;
			o->gtpu.sessions = (uint32_t)v;
			break;
		case OPT_N3_IP:
			n3_ip = optarg;
			gtpu_opt = true;
			break;
		case OPT_GNB_IP:
			gnb_ip = optarg;
			gtpu_opt = true;
			break;
		case OPT_UE_IP:
			ue_ip = optarg;
			gtpu_opt = true;
			break;
		case OPT_GNB_IPS:
			if (parse_u64(optarg, 1, GEN_MAX_FLOWS, &v) != 0)
				BAD("--gnb-ips %s: allowed 1-%u", optarg, GEN_MAX_FLOWS);
			o->gtpu.n_gnb = (uint32_t)v;
			gtpu_opt = true;
			break;
		case OPT_TEID_BASE:
			if (parse_u64(optarg, 1, UINT32_MAX, &v) != 0)
				BAD("--teid-base %s: allowed 1-4294967295 (TEID 0 is not a session's)",
				    optarg);
			o->gtpu.teid_base = (uint32_t)v;
			gtpu_opt = true;
			break;
		case OPT_QFI:
			if (parse_u64(optarg, 0, 63, &v) != 0)
				BAD("--qfi %s: allowed 0-63", optarg);
			o->gtpu.qfi = (uint8_t)v;
			gtpu_opt = true;
			break;
		case 'h':
		case OPT_HELP:
			return 1;
		default:
			BAD("unknown option or missing value (see --help)");
		}
	}
	if (optind < argc)
		BAD("unexpected argument '%s'", argv[optind]);
	if ((o->on_us != 0) != (o->off_us != 0))
		BAD("--on-us and --off-us go together");
	if (o->n_ndr_at != 0 && !o->search)
		BAD("--ndr-at goes with --search");
	if (o->trials && o->search)
		BAD("--trials and --search: the search is the caller's with --trials");
	if (o->gtpu.mode != GEN_GTPU_NONE)
		return gtpu_opts(o, dst_ip, src_ip, n3_ip, gnb_ip, ue_ip, flows_set, src_ips_set,
				 err, errlen);
	if (gtpu_opt)
		BAD("--n3-ip, --gnb-ip, --gnb-ips, --ue-ip, --teid-base and --qfi go with "
		    "--gtpu-ul or --gtpu-dl");
	if (dst_ip == NULL)
		dst_ip = "10.1.0.1";
	fam = parse_ip(dst_ip, o->dst_ip);
	if (fam < 0)
		BAD("--dst-ip %s: not an IPv4 or IPv6 address", dst_ip);
	o->family = (uint8_t)fam;
	if (src_ip == NULL)
		src_ip = fam == 4 ? "198.18.0.1" : "2001:db8:ffff::1";
	if (parse_ip(src_ip, o->src_ip) != fam)
		BAD("--src-ip %s: not an IPv%d address like --dst-ip %s", src_ip, fam, dst_ip);
	return 0;
}
