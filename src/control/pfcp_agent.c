/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PFCP (N4) agent (TS 29.244): one control thread that serves PFCP on
 * [upf] pfcp_addr:pfcp_port, keeps associations and sessions in control
 * form, publishes sessions through the store (upf.h), sends Session Reports
 * (usage thresholds, quotas, periods, downlink data), holds the buffered
 * downlink packets the workers hand over and hands them back on release.
 *
 * Everything here runs on the agent thread, except the telemetry callbacks
 * (DPDK's telemetry thread). Both take pa_lock: the agent holds it while it
 * handles one receive batch, drains the rings and runs its timers, so a
 * telemetry reader waits at most one batch. Workers never take it.
 *
 * Per-message work is O(rules of the message): sessions are found by index
 * (the UP SEID carries it), associations are few, the duplicate-request
 * cache is a hash, timers sit in a heap and volume thresholds are polled
 * from a list of the sessions that have them, a bounded share per loop.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_jhash.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_telemetry.h>

#include "config.h"
#include "pfcp.h"
#include "pfcp_agent.h"
#include "upf.h"
#include "upf_uepool.h"

#define PA_NONE UINT32_MAX
#define PA_POLL_MS 1 /* Idle wait: bounds the timer and ring-drain latency. */
#define PA_RX_BATCH 32 /* Datagrams per recvmmsg. */
#define PA_RX_ROUNDS 8 /* Batches per loop before the rings and timers get a turn. */
#define PA_RX_MAX 65536 /* Largest UDP payload. */
#define PA_TX_N 64 /* Messages queued for one sendmmsg. */
#define PA_TX_MAX 8192 /* Largest message we build (32 Created PDRs, 16 Usage Reports fit). */
#define PA_MAX_ASSOC 64
#define PA_TEL_ASSOC 16 /* Associations shown in /lanefwd/upf. */
#define PA_CACHE_N 32768 /* Responses kept for retransmitted requests. */
#define PA_CACHE_INLINE 256 /* Bytes of a response kept in its entry; longer ones on the heap. */
#define PA_CACHE_BUCKETS 65536
#define PA_CACHE_TTL_MS 5000
#define PA_PEND_N 4096 /* Our outstanding requests (reports, heartbeats), by sequence number. */
#define PA_RETX_N (4 * PA_PEND_N)
#define PA_T1_MS 3000 /* Request retransmission timer (TS 29.244 7.6: T1, N1). */
#define PA_N1 3
#define PA_SCAN_PERIOD_MS 100 /* Each volume-watched session is checked this often... */
#define PA_SCAN_MAX_PER_S 2000000 /* ...unless that would be more checks than this. */
#define PA_DRAIN_BURST 64
#define PA_QUOTA_FAR_ID 0xffffffffu /* The DROP FAR that quota-exhausted PDRs are moved to. */
#define PA_NTP_OFFSET 2208988800u /* 1900 to 1970. */
#define PA_MAX_REPORTS (2 * UPF_MAX_URR)
#define PA_SLAB_STEP 64 /* Session allocations come in multiples of this... */
#define PA_SLAB_CLASSES 64 /* ...up to this many steps (4 KiB); larger ones from malloc. */
#define PA_SLAB_CHUNK (2u << 20) /* Carved into sessions; mapped and faulted in at once. */

static int pa_logtype = RTE_LOGTYPE_USER1;
#define PA_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, pa_logtype, "lanefwd.pfcp: " fmt "\n", ##__VA_ARGS__)

/* A UDP endpoint. */
struct pa_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* A PFCP association with a CP function, keyed by its Node ID. */
struct pa_assoc {
	bool used;
	struct pfcp_node_id node;
	struct pa_addr peer; /* Where its Association Setup came from; reports go there. */
	struct upf_ip ip; /* The peer's address: session requests from it belong here. */
	uint32_t recovery_ts;
	uint64_t cp_features;
	uint64_t since; /* Wall clock, seconds. */
	uint32_t n_sess;
	uint32_t head; /* First session index of its list, PA_NONE. */
	uint64_t hb_due_ms;
	uint32_t hb_missed; /* Heartbeat Requests that went unanswered (N1 tries each). */
	uint64_t hb_sent, hb_answered;
};

/* Reporting state of one URR. */
struct pa_urr_st {
	struct upf_usage base; /* Usage at the last report: reports carry what follows. */
	struct upf_usage qbase; /* Usage when the quota was provisioned. */
	uint64_t start_ms; /* Monotonic time of the last report (or creation). */
	uint32_t start_ntp; /* The same, wall clock, NTP seconds. */
	uint32_t seqn; /* UR-SEQN of the next report. */
	uint64_t perio_due; /* Monotonic ms of the next periodic report; 0: none. */
	uint64_t timth_due; /* Of the time threshold; 0: none. */
	uint64_t tq_start_ms; /* Monotonic ms the time quota was given. */
	uint64_t timqu_due; /* When it runs out; 0: none (or run out). */
	bool exhausted; /* The volume quota was used up and reported. */
	bool tq_exhausted; /* The time quota ran out and was reported. */
	/* START: reported once the URR's packets pass start_pkts. */
	bool start_done;
	uint64_t start_pkts;
	/* QUHTI: the packets last seen, since when (monotonic ms), reported for this lull. */
	uint64_t seen_pkts;
	uint64_t seen_ms;
	bool idle_reported;
	/* QUVTI: when the validity time was given, its timer, reported. */
	uint64_t qv_start_ms;
	uint64_t quvti_due;
	bool qv_reported;
	/* DROTH: downlink packets and bytes dropped while buffering since the last such report. */
	uint64_t drop_pkts, drop_bytes;
};

/*
 * The session's BAR (one at most): its Suggested Buffering Packets Count
 * bounds what a BUFF FAR holds, below [upf] buffer_packets.
 */
struct pa_bar {
	bool on;
	uint8_t id;
	bool has_count;
	uint8_t count;
	uint8_t ddn_delay; /* Downlink Data Notification Delay, 50 ms units; 0: none. */
};

/*
 * A session. One allocation holds the header, the FAR, QER and URR arrays,
 * the URR states and the PDRs, packed: a PDR keeps only its n_sdf SDF
 * filters (a full struct upf_pdr_conf has room for 8 and is mostly that).
 * A modification builds a new allocation; lists link sessions by index, so
 * the move changes nothing but sess[idx].
 */
struct pa_sess {
	struct upf_sess_conf c; /* c.pdr is NULL: PDRs are packed at pdr_packed. */
	struct pa_urr_st *ust; /* [c.n_urr]. */
	uint8_t *pdr_packed;
	size_t bytes; /* Of the allocation. */
	uint32_t idx;
	uint16_t assoc;
	bool watched; /* In the volume-check list. */
	bool dldr_sent; /* Downlink Data Report sent in this buffering episode. */
	bool quota_drop; /* Published with PDRs moved to the quota DROP FAR. */
	uint8_t n_te; /* Traffic Endpoints, packed after the PDRs (most sessions: none). */
	struct pa_bar bar;
	uint64_t ddn_due; /* Monotonic ms the delayed Downlink Data Report is due; 0: none. */
	uint32_t a_prev, a_next; /* Association's session list. */
	uint32_t w_prev, w_next; /* Volume-check list. */
	uint32_t n_timed; /* Armed URR timers. */
	uint32_t n_held;
	struct rte_mbuf **held; /* [buffer_packets], allocated on the first one. */
	uint64_t since; /* Wall clock, seconds. */
};

/* Most ue_held keys one session can have: an IPv4 address and a /64 per instance. */
#define PA_UE_HELD_PER_SESS (2 * LF_UPF_MAX_NI)

/* Addresses a->ue_held holds at most; a request that needs more gets Cause 75. */
#define PA_UE_HELD_MAX 65536u

/* A session being built or changed: full-size arrays, on the agent's heap. */
struct pa_work {
	struct upf_sess_conf c;
	struct upf_pdr_conf pdr[UPF_MAX_PDR];
	struct upf_far_conf far[UPF_MAX_FAR];
	struct upf_qer_conf qer[UPF_MAX_QER];
	struct upf_urr_conf urr[UPF_MAX_URR];
	struct pa_urr_st ust[UPF_MAX_URR];
	bool urr_new[UPF_MAX_URR]; /* Created here, or its period changed: re-arm PERIO. */
	uint32_t choose; /* Bit i: pdr[i] gets its TEID from us (CHOOSE) in this request. */
	/*
	 * Traffic Endpoints: the PDI fields PDRs share by naming one (id is
	 * the Traffic Endpoint ID; src_iface, SDF and the rule fields unused).
	 */
	uint8_t n_te;
	struct upf_pdr_conf te[PFCP_MAX_TE];
	struct pa_bar bar;
};

/* A timer: a URR's periodic report or time threshold. Stale when due differs from the state. */
enum { PA_TM_PERIO, PA_TM_TIMTH, PA_TM_TIMQU, PA_TM_QUVTI, PA_TM_DDN };
struct pa_timer {
	uint64_t due;
	uint64_t seid;
	uint32_t urr_id;
	uint32_t kind;
};

/* One response kept for a retransmitted request. */
struct pa_cache_ent {
	uint64_t t_ms;
	uint32_t seq;
	uint32_t crc; /* Of the request: a new request that reuses a number is not a duplicate. */
	uint16_t port;
	uint8_t af;
	uint8_t type;
	uint8_t ip[16];
	int32_t next; /* Bucket chain. */
	uint32_t bucket;
	bool used;
	uint16_t len;
	uint16_t cap; /* Of heap, 0: none. */
	uint8_t *heap; /* A response longer than inl. */
	uint8_t inl[PA_CACHE_INLINE];
};

/* A request we sent and wait to have answered. */
enum { PA_REQ_REPORT, PA_REQ_HEARTBEAT };
struct pa_pend {
	bool used;
	uint8_t kind;
	uint8_t tries;
	uint16_t assoc;
	uint32_t seq;
	uint64_t seid; /* UP SEID of the report's session. */
	struct pa_addr to;
	uint16_t len;
	uint16_t cap;
	uint8_t *buf;
};

struct pa_retx {
	uint64_t due;
	uint32_t seq;
};

struct pa_tx {
	struct pa_addr to;
	uint16_t len;
	uint8_t buf[PA_TX_MAX];
};

struct pa_counters {
	uint64_t rx_msgs[256];
	uint64_t tx_msgs[256];
	uint64_t causes[256]; /* In the responses we sent. */
	uint64_t report_resp_causes[256]; /* In the Session Report Responses we got. */
	uint64_t rx_datagrams, rx_bytes, tx_bytes, tx_errors;
	uint64_t malformed_dropped; /* Header unreadable. */
	uint64_t unknown_dropped; /* A message type we do not take. */
	uint64_t unexpected_resp; /* A response to no request of ours. */
	uint64_t duplicates; /* Answered from the response cache. */
	uint64_t sess_established, sess_modified, sess_deleted, sess_purged;
	uint64_t sess_rejected;
	uint64_t assoc_setups, assoc_releases;
	uint64_t reports_sent, usage_reports, dl_data_reports;
	uint64_t report_retransmits, requests_timed_out, requests_overrun;
	uint64_t heartbeats_sent, heartbeats_missed;
	uint64_t quota_exhausted, quota_publish_failed;
	uint64_t buffered, buffer_full, buffer_released, buffer_release_failed;
	uint64_t buffer_discarded; /* Freed: session gone, DROBU, NOCP only. */
	uint64_t ctrl_orphans; /* Handed over for a session that no longer exists. */
	uint64_t discard_lost; /* Freed here: worker 0's ring was full (not counted as drops). */
	uint64_t teids_chosen;
	uint64_t ue_ips_chosen; /* Addresses (IPv4) and /64s (IPv6) handed out. */
	uint64_t scans;
};

struct pa_agent {
	struct lf_upf_conf uc;
	/* The named pools of uc's instances (ue_alloc with a
	 * ue_alloc_pool_id, and each ue_alloc.ID), as the Association Setup
	 * Response announces them (into uc's strings). */
	struct pfcp_pool_info pools[LF_UPF_MAX_NI * LF_UPF_POOLS_PER_NI];
	unsigned int n_pools;
	struct upf_store *st;
	int fd;
	pthread_t thread;
	bool thread_started;
	bool quit; /* Atomic: stop asked. */
	uint64_t now_ms; /* Monotonic, updated once per loop step. */
	uint32_t recovery_ts; /* Our start, NTP seconds. */
	uint64_t started; /* Wall clock. */
	struct pfcp_node_id node_id;
	struct pfcp_fseid up_fseid_addr; /* Our N4 address for the UP F-SEIDs. */
	uint64_t up_features;
	/*
	 * UE IP Address CHOOSE: [network instance][pool][0: IPv4, 1: IPv6],
	 * pool 0 the instance's ue_alloc (a CHOOSE naming no pool), pool k
	 * its ue_alloc.ID k - 1 (only a CHOOSE that names ID).
	 */
	struct upf_uepool uepool[LF_UPF_MAX_NI][LF_UPF_POOLS_PER_NI][2];
	/*
	 * The ue_alloc addresses live sessions name, chosen or given, that
	 * none of their downlink PDRs names (struct upf_ue_key;
	 * ue_held_keys()), each with the count of sessions as its data: the
	 * UE table, which has every downlink PDR's, does not know they are in
	 * use. NULL without a ue_alloc.
	 */
	struct rte_hash *ue_held;

	/* Sessions, by index: up_seid = gen << 32 | (idx + 1). */
	uint32_t max_sess;
	struct pa_sess **sess;
	uint32_t *gen;
	uint32_t *free_idx;
	uint32_t n_free;
	uint32_t n_sess;
	uint64_t sess_bytes; /* Agent memory of the sessions (control form). */
	/*
	 * Session memory: size classes carved from chunks faulted in at once,
	 * freed allocations kept per class. Growing the heap a page at a time
	 * (a thread's malloc arena does) costs a system call and a fault per
	 * page, more than the rest of an establishment.
	 */
	void *slab_free[PA_SLAB_CLASSES];
	uint8_t *chunk_cur;
	size_t chunk_left;
	void **chunks;
	uint32_t n_chunks;

	/* Sessions with volume thresholds or quotas, checked round robin. */
	uint32_t watch_head;
	uint32_t watch_cursor;
	uint32_t n_watch;
	uint64_t scan_acc;
	uint64_t scan_last_ms;

	struct pa_assoc assoc[PA_MAX_ASSOC];
	uint32_t n_assoc;
	int last_assoc;

	struct pa_timer *heap;
	uint32_t heap_n, heap_cap;
	uint64_t n_timed;

	struct pa_cache_ent *cache; /* [PA_CACHE_N], mapped and faulted in at start. */
	int32_t *cache_bucket;
	uint32_t cache_pos;

	struct pa_pend *pend;
	struct pa_retx *retx;
	uint32_t retx_head, retx_n;
	uint32_t seq_next;

	struct pa_tx *tx;
	uint32_t tx_n;
	uint8_t (*rxbuf)[PA_RX_MAX];
	struct pa_addr rxaddr[PA_RX_BATCH];

	struct pfcp_msg msg;
	struct pa_work work; /* The session being built or changed. */
	struct pa_work eff; /* Its published form when quotas moved PDRs to DROP. */
	struct pa_work tel; /* Telemetry's unpacked copy. */

	struct pa_counters n;
};

/* The running agent; pa_lock guards it and everything in it. */
static pthread_mutex_t pa_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pa_agent *pa_agent;
static bool pa_tel_registered;

/* ---- Small helpers --------------------------------------------------- */

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint32_t
ntp_now(void)
{
	return (uint32_t)((uint64_t)time(NULL) + PA_NTP_OFFSET);
}

static void
addr_ip(const struct pa_addr *p, struct upf_ip *ip, uint16_t *port)
{
	memset(ip, 0, sizeof(*ip));
	*port = 0;
	if (p->ss.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)&p->ss;

		ip->af = 4;
		memcpy(ip->a, &s->sin_addr, 4);
		*port = ntohs(s->sin_port);
	} else if (p->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&p->ss;

		ip->af = 6;
		memcpy(ip->a, &s->sin6_addr, 16);
		*port = ntohs(s->sin6_port);
	}
}

static bool
ip_eq(const struct upf_ip *x, const struct upf_ip *y)
{
	return x->af == y->af && memcmp(x->a, y->a, x->af == 4 ? 4 : 16) == 0;
}

static const char *
ip_str(const struct upf_ip *ip, char *buf, size_t len)
{
	if (ip->af == 4 || ip->af == 6)
		return inet_ntop(ip->af == 4 ? AF_INET : AF_INET6, ip->a, buf, (socklen_t)len);
	snprintf(buf, len, "-");
	return buf;
}

static const char *
addr_str(const struct pa_addr *p, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	struct upf_ip a;
	uint16_t port;

	addr_ip(p, &a, &port);
	ip_str(&a, ip, sizeof(ip));
	snprintf(buf, len, a.af == 6 ? "[%s]:%u" : "%s:%u", ip, port);
	return buf;
}

static const char *
node_str(const struct pfcp_node_id *n, char *buf, size_t len)
{
	if (n->type == PFCP_NODE_ID_FQDN)
		snprintf(buf, len, "%s", n->fqdn);
	else
		ip_str(&n->ip, buf, len);
	return buf;
}

static bool
node_eq(const struct pfcp_node_id *x, const struct pfcp_node_id *y)
{
	if (x->type != y->type)
		return false;
	if (x->type == PFCP_NODE_ID_FQDN)
		return strcasecmp(x->fqdn, y->fqdn) == 0;
	return ip_eq(&x->ip, &y->ip);
}

static int pa_fail(struct pfcp_err *e, uint8_t cause, uint16_t ie, uint8_t rule_type,
		   uint32_t rule_id, const char *fmt, ...) __rte_format_printf(6, 7);

/* Fill e for a rejection; @return -1 so that callers can "return pa_fail(...)". */
static int
pa_fail(struct pfcp_err *e, uint8_t cause, uint16_t ie, uint8_t rule_type, uint32_t rule_id,
	const char *fmt, ...)
{
	va_list ap;

	e->cause = cause;
	e->ie = ie;
	e->rule_type = rule_type;
	e->rule_id = rule_id;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	return -1;
}

static void
err_init(struct pfcp_err *e)
{
	memset(e, 0, sizeof(*e));
	e->rule_type = PFCP_RULE_NONE;
}

static bool
is_request(uint8_t type)
{
	switch (type) {
	case PFCP_HEARTBEAT_REQ:
	case PFCP_PFD_MGMT_REQ:
	case PFCP_ASSOC_SETUP_REQ:
	case PFCP_ASSOC_UPDATE_REQ:
	case PFCP_ASSOC_RELEASE_REQ:
	case PFCP_SESS_SET_DEL_REQ:
	case PFCP_SESS_EST_REQ:
	case PFCP_SESS_MOD_REQ:
	case PFCP_SESS_DEL_REQ:
		return true;
	default:
		return false;
	}
}

/* ---- Packed PDRs ------------------------------------------------------ */

/*
 * A packed PDR: the fields before sdf, its n_sdf filters, its n_framed
 * routes, the fields from outer_hdr_removal on. Most PDRs have no framed
 * route and one filter or none.
 */
#define PDR_HEAD offsetof(struct upf_pdr_conf, sdf)
#define PDR_TAIL_OFF offsetof(struct upf_pdr_conf, outer_hdr_removal)
#define PDR_TAIL (sizeof(struct upf_pdr_conf) - PDR_TAIL_OFF)

static size_t
pdr_packed_size(const struct upf_pdr_conf *h)
{
	return RTE_ALIGN(PDR_HEAD + h->n_sdf * sizeof(struct upf_sdf) +
				 h->n_framed * sizeof(struct upf_prefix) + PDR_TAIL,
			 8);
}

static size_t
pdr_pack(uint8_t *dst, const struct upf_pdr_conf *p)
{
	const size_t sdf = p->n_sdf * sizeof(struct upf_sdf);
	const size_t fr = p->n_framed * sizeof(struct upf_prefix);

	memcpy(dst, p, PDR_HEAD);
	memcpy(dst + PDR_HEAD, p->sdf, sdf);
	memcpy(dst + PDR_HEAD + sdf, p->framed, fr);
	memcpy(dst + PDR_HEAD + sdf + fr, (const uint8_t *)p + PDR_TAIL_OFF, PDR_TAIL);
	return pdr_packed_size(p);
}

static size_t
pdr_unpack(struct upf_pdr_conf *p, const uint8_t *src)
{
	size_t sdf, fr;

	memcpy(p, src, PDR_HEAD);
	sdf = p->n_sdf * sizeof(struct upf_sdf);
	fr = p->n_framed * sizeof(struct upf_prefix);
	memcpy(p->sdf, src + PDR_HEAD, sdf);
	memset(&p->sdf[p->n_sdf], 0, sizeof(p->sdf) - sdf);
	memcpy(p->framed, src + PDR_HEAD + sdf, fr);
	memset(&p->framed[p->n_framed], 0, sizeof(p->framed) - fr);
	memcpy((uint8_t *)p + PDR_TAIL_OFF, src + PDR_HEAD + sdf + fr, PDR_TAIL);
	return pdr_packed_size(p);
}

/* ---- Sessions --------------------------------------------------------- */

static struct pa_sess *
sess_find(const struct pa_agent *a, uint64_t seid)
{
	uint32_t lo = (uint32_t)seid;
	struct pa_sess *s;

	if (lo == 0 || lo > a->max_sess)
		return NULL;
	s = a->sess[lo - 1];
	return s != NULL && s->c.up_seid == seid ? s : NULL;
}

/* Unpack a session into w (the full-size form the store and the rules code take). */
static void
sess_unpack(const struct pa_sess *s, struct pa_work *w)
{
	const uint8_t *p = s->pdr_packed;
	unsigned int i;

	w->c = s->c;
	w->c.pdr = w->pdr;
	w->c.far = w->far;
	w->c.qer = w->qer;
	w->c.urr = w->urr;
	for (i = 0; i < s->c.n_pdr; i++)
		p += pdr_unpack(&w->pdr[i], p);
	for (i = 0; i < s->n_te; i++)
		p += pdr_unpack(&w->te[i], p);
	w->n_te = s->n_te;
	w->bar = s->bar;
	memcpy(w->far, s->c.far, s->c.n_far * sizeof(w->far[0]));
	memcpy(w->qer, s->c.qer, s->c.n_qer * sizeof(w->qer[0]));
	memcpy(w->urr, s->c.urr, s->c.n_urr * sizeof(w->urr[0]));
	memcpy(w->ust, s->ust, s->c.n_urr * sizeof(w->ust[0]));
	memset(w->urr_new, 0, sizeof(w->urr_new));
	w->choose = 0;
}

static void *
sess_mem_get(struct pa_agent *a, size_t *size)
{
	size_t c = (*size + PA_SLAB_STEP - 1) / PA_SLAB_STEP;
	void *p;

	if (c > PA_SLAB_CLASSES)
		return malloc(*size);
	*size = c * PA_SLAB_STEP;
	p = a->slab_free[c - 1];
	if (p != NULL) {
		a->slab_free[c - 1] = *(void **)p;
		return p;
	}
	if (a->chunk_left < *size) {
		void **ch = realloc(a->chunks, (a->n_chunks + 1) * sizeof(*ch));

		if (ch == NULL)
			return NULL;
		a->chunks = ch;
		p = mmap(NULL, PA_SLAB_CHUNK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		a->chunks[a->n_chunks++] = p;
		a->chunk_cur = p;
		a->chunk_left = PA_SLAB_CHUNK;
	}
	p = a->chunk_cur;
	a->chunk_cur += *size;
	a->chunk_left -= *size;
	return p;
}

static void
sess_mem_put(struct pa_agent *a, void *p, size_t size)
{
	size_t c = size / PA_SLAB_STEP;

	if (size > (size_t)PA_SLAB_CLASSES * PA_SLAB_STEP) {
		free(p);
		return;
	}
	*(void **)p = a->slab_free[c - 1];
	a->slab_free[c - 1] = p;
}

/* A session allocation holding w's rules; the links are the caller's. */
static struct pa_sess *
sess_alloc(struct pa_agent *a, const struct pa_work *w)
{
	size_t off_far, off_qer, off_urr, off_ust, off_pdr, size;
	const struct upf_sess_conf *c = &w->c;
	struct pa_sess *s;
	uint8_t *b, *p;
	unsigned int i;

	off_far = RTE_ALIGN(sizeof(*s), 8);
	off_qer = off_far + RTE_ALIGN(c->n_far * sizeof(struct upf_far_conf), 8);
	off_urr = off_qer + RTE_ALIGN(c->n_qer * sizeof(struct upf_qer_conf), 8);
	off_ust = off_urr + RTE_ALIGN(c->n_urr * sizeof(struct upf_urr_conf), 8);
	off_pdr = off_ust + RTE_ALIGN(c->n_urr * sizeof(struct pa_urr_st), 8);
	size = off_pdr;
	for (i = 0; i < c->n_pdr; i++)
		size += pdr_packed_size(&c->pdr[i]);
	for (i = 0; i < w->n_te; i++)
		size += pdr_packed_size(&w->te[i]);
	b = sess_mem_get(a, &size);
	if (b == NULL)
		return NULL;
	s = (struct pa_sess *)b;
	memset(s, 0, sizeof(*s));
	s->c = *c;
	s->c.pdr = NULL;
	s->c.far = (struct upf_far_conf *)(b + off_far);
	s->c.qer = (struct upf_qer_conf *)(b + off_qer);
	s->c.urr = (struct upf_urr_conf *)(b + off_urr);
	s->ust = (struct pa_urr_st *)(b + off_ust);
	s->pdr_packed = b + off_pdr;
	s->bytes = size;
	memcpy(s->c.far, c->far, c->n_far * sizeof(struct upf_far_conf));
	memcpy(s->c.qer, c->qer, c->n_qer * sizeof(struct upf_qer_conf));
	memcpy(s->c.urr, c->urr, c->n_urr * sizeof(struct upf_urr_conf));
	memcpy(s->ust, w->ust, c->n_urr * sizeof(struct pa_urr_st));
	for (i = 0, p = s->pdr_packed; i < c->n_pdr; i++)
		p += pdr_pack(p, &c->pdr[i]);
	for (i = 0; i < w->n_te; i++)
		p += pdr_pack(p, &w->te[i]);
	s->n_te = w->n_te;
	s->bar = w->bar;
	return s;
}

static uint32_t
sess_idx_get(struct pa_agent *a)
{
	return a->n_free == 0 ? PA_NONE : a->free_idx[--a->n_free];
}

static void
sess_idx_put(struct pa_agent *a, uint32_t idx)
{
	a->gen[idx]++;
	if (a->gen[idx] == 0)
		a->gen[idx] = 1;
	a->free_idx[a->n_free++] = idx;
}

static uint64_t
sess_seid(const struct pa_agent *a, uint32_t idx)
{
	return (uint64_t)a->gen[idx] << 32 | (idx + 1);
}

static void
assoc_link(struct pa_agent *a, struct pa_sess *s)
{
	struct pa_assoc *as = &a->assoc[s->assoc];

	s->a_prev = PA_NONE;
	s->a_next = as->head;
	if (as->head != PA_NONE)
		a->sess[as->head]->a_prev = s->idx;
	as->head = s->idx;
	as->n_sess++;
}

static void
assoc_unlink(struct pa_agent *a, struct pa_sess *s)
{
	struct pa_assoc *as = &a->assoc[s->assoc];

	if (s->a_prev != PA_NONE)
		a->sess[s->a_prev]->a_next = s->a_next;
	else
		as->head = s->a_next;
	if (s->a_next != PA_NONE)
		a->sess[s->a_next]->a_prev = s->a_prev;
	as->n_sess--;
}

static void
watch_link(struct pa_agent *a, struct pa_sess *s)
{
	s->w_prev = PA_NONE;
	s->w_next = a->watch_head;
	if (a->watch_head != PA_NONE)
		a->sess[a->watch_head]->w_prev = s->idx;
	a->watch_head = s->idx;
	s->watched = true;
	a->n_watch++;
}

static void
watch_unlink(struct pa_agent *a, struct pa_sess *s)
{
	if (!s->watched)
		return;
	if (a->watch_cursor == s->idx)
		a->watch_cursor = s->w_next;
	if (s->w_prev != PA_NONE)
		a->sess[s->w_prev]->w_next = s->w_next;
	else
		a->watch_head = s->w_next;
	if (s->w_next != PA_NONE)
		a->sess[s->w_next]->w_prev = s->w_prev;
	s->watched = false;
	a->n_watch--;
}

/* Does the session have a URR whose volume must be polled? */
static bool
sess_needs_watch(const struct upf_sess_conf *c, const struct pa_urr_st *ust)
{
	unsigned int i;

	for (i = 0; i < c->n_urr; i++) {
		const struct upf_urr_conf *u = &c->urr[i];

		if ((u->triggers & UPF_RT_VOLTH) && u->has_vol_thresh)
			return true;
		if ((u->triggers & UPF_RT_VOLQU) && u->has_vol_quota && !ust[i].exhausted)
			return true;
		if ((u->triggers & UPF_RT_START) && !ust[i].start_done)
			return true;
		if ((u->triggers & UPF_RT_QUHTI) && u->has_qht && u->qht_s != 0)
			return true;
	}
	return false;
}

/*
 * A packet a worker handed over that will not be sent: back to worker 0
 * marked as a discard (upf.h, UPF_CTRL_DISCARD), which counts it as a drop
 * by reason, so that received = sent + dropped holds for the process once
 * nothing is held. Freed here only if that ring is full (counted).
 */
static void
pa_discard(struct pa_agent *a, struct rte_mbuf *m, enum upf_drop why)
{
	struct rte_ring *r = a->st->p.n_workers != 0 ? a->st->wk[0].from_ctrl : NULL;

	m->hash.usr = UPF_CTRL_DISCARD;
	m->hash.fdir.hi = why;
	if (r == NULL || rte_ring_sp_enqueue(r, m) != 0) {
		rte_pktmbuf_free(m);
		a->n.discard_lost++;
	}
}

static void
held_free(struct pa_agent *a, struct pa_sess *s)
{
	uint32_t i;

	for (i = 0; i < s->n_held; i++)
		pa_discard(a, s->held[i], UPF_DROP_BUFFER_DISCARD);
	a->n.buffer_discarded += s->n_held;
	s->n_held = 0;
}

static unsigned int sess_held_keys(const struct pa_agent *a, const struct pa_sess *s,
				   struct upf_ue_key *k);
static void ue_held_set(struct pa_agent *a, const struct upf_ue_key *old, unsigned int n_old,
			const struct upf_ue_key *now, unsigned int n_now);

/* Forget a session the store no longer has (or never had). */
static void
sess_destroy(struct pa_agent *a, struct pa_sess *s)
{
	struct upf_ue_key k[PA_UE_HELD_PER_SESS];

	if (a->ue_held != NULL)
		ue_held_set(a, k, sess_held_keys(a, s, k), NULL, 0);
	held_free(a, s);
	free(s->held);
	watch_unlink(a, s);
	assoc_unlink(a, s);
	a->n_timed -= s->n_timed;
	a->sess[s->idx] = NULL;
	sess_idx_put(a, s->idx);
	a->n_sess--;
	a->sess_bytes -= s->bytes;
	sess_mem_put(a, s, s->bytes);
}

/* Remove a session from the store and forget it. */
static void
sess_delete(struct pa_agent *a, struct pa_sess *s)
{
	int rc = upf_store_del(a->st, s->c.up_seid);

	if (rc != 0)
		PA_LOG(WARNING, "session 0x%" PRIx64 ": store delete: %s", s->c.up_seid,
		       strerror(-rc));
	sess_destroy(a, s);
}

/* ---- Associations ----------------------------------------------------- */

static int
assoc_by_node(const struct pa_agent *a, const struct pfcp_node_id *n)
{
	unsigned int i;

	for (i = 0; i < PA_MAX_ASSOC; i++)
		if (a->assoc[i].used && node_eq(&a->assoc[i].node, n))
			return (int)i;
	return -1;
}

static int
assoc_by_ip(struct pa_agent *a, const struct upf_ip *ip)
{
	unsigned int i;

	if (a->last_assoc >= 0 && a->assoc[a->last_assoc].used &&
	    ip_eq(&a->assoc[a->last_assoc].ip, ip))
		return a->last_assoc;
	for (i = 0; i < PA_MAX_ASSOC; i++)
		if (a->assoc[i].used && ip_eq(&a->assoc[i].ip, ip)) {
			a->last_assoc = (int)i;
			return (int)i;
		}
	return -1;
}

/* Delete every session of an association (release, or the peer restarted). */
static void
assoc_purge(struct pa_agent *a, int i, const char *why)
{
	struct pa_assoc *as = &a->assoc[i];
	uint32_t n = as->n_sess;
	char nb[PFCP_FQDN_LEN];

	while (as->head != PA_NONE)
		sess_delete(a, a->sess[as->head]);
	a->n.sess_purged += n;
	if (n != 0)
		PA_LOG(INFO, "association %s: %u sessions deleted (%s)",
		       node_str(&as->node, nb, sizeof(nb)), n, why);
}

static void
assoc_free(struct pa_agent *a, int i)
{
	assoc_purge(a, i, "association released");
	memset(&a->assoc[i], 0, sizeof(a->assoc[i]));
	a->assoc[i].head = PA_NONE;
	a->n_assoc--;
}

/* A Recovery Time Stamp from a known peer: a new one means it restarted. */
static void
assoc_recovery(struct pa_agent *a, int i, uint32_t ts)
{
	struct pa_assoc *as = &a->assoc[i];

	if (as->recovery_ts != 0 && ts != as->recovery_ts)
		assoc_purge(a, i, "the peer's Recovery Time Stamp changed");
	as->recovery_ts = ts;
}

/* ---- Sending ---------------------------------------------------------- */

static void
tx_flush(struct pa_agent *a)
{
	struct mmsghdr mm[PA_TX_N];
	struct iovec iov[PA_TX_N];
	uint32_t i, done = 0;

	for (i = 0; i < a->tx_n; i++) {
		iov[i].iov_base = a->tx[i].buf;
		iov[i].iov_len = a->tx[i].len;
		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_name = &a->tx[i].to.ss;
		mm[i].msg_hdr.msg_namelen = a->tx[i].to.len;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	while (done < a->tx_n) {
		int r = sendmmsg(a->fd, mm + done, a->tx_n - done, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* Skip the one the kernel refused (an unreachable peer), send the rest. */
			a->n.tx_errors++;
			done++;
			continue;
		}
		done += (uint32_t)r;
	}
	a->tx_n = 0;
}

/* The next free transmit slot; the message is built in it, then tx_commit(). */
static struct pa_tx *
tx_slot(struct pa_agent *a)
{
	if (a->tx_n == PA_TX_N)
		tx_flush(a);
	return &a->tx[a->tx_n];
}

static void
tx_commit(struct pa_agent *a, struct pa_tx *t, const struct pa_addr *to, int len)
{
	t->to = *to;
	t->len = (uint16_t)len;
	a->tx_n++;
	a->n.tx_msgs[t->buf[1]]++;
	a->n.tx_bytes += (uint64_t)len;
}

/* ---- Response cache --------------------------------------------------- */

/* CRC-32C of a request; a message chained after another (FO) may start at any byte. */
static uint32_t
msg_crc(const uint8_t *p, size_t n)
{
	uint32_t c = 0;
	uint64_t v;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&v, p + i, 8);
		c = rte_hash_crc_8byte(v, c);
	}
	for (; i < n; i++)
		c = rte_hash_crc_1byte(p[i], c);
	return c;
}

static uint32_t
cache_hash(const struct upf_ip *ip, uint16_t port, uint32_t seq)
{
	uint32_t k[4];

	memcpy(k, ip->a, sizeof(k)); /* ip->a is not 4-byte aligned. */
	return rte_jhash_32b(k, 4, seq ^ ((uint32_t)port << 24) ^ ip->af) & (PA_CACHE_BUCKETS - 1);
}

static const struct pa_cache_ent *
cache_find(const struct pa_agent *a, const struct upf_ip *ip, uint16_t port, uint8_t type,
	   uint32_t seq, uint32_t crc)
{
	int32_t i = a->cache_bucket[cache_hash(ip, port, seq)];

	while (i >= 0) {
		const struct pa_cache_ent *e = &a->cache[i];

		if (e->seq == seq && e->port == port && e->af == ip->af && e->type == type &&
		    e->crc == crc && memcmp(e->ip, ip->a, 16) == 0)
			return a->now_ms - e->t_ms <= PA_CACHE_TTL_MS ? e : NULL;
		i = e->next;
	}
	return NULL;
}

static void
cache_add(struct pa_agent *a, const struct upf_ip *ip, uint16_t port, uint8_t type, uint32_t seq,
	  uint32_t crc, const uint8_t *resp, uint16_t len)
{
	struct pa_cache_ent *e = &a->cache[a->cache_pos];
	int32_t *pp;

	if (e->used) {
		/* The oldest entry makes room: unlink it from its chain. */
		for (pp = &a->cache_bucket[e->bucket]; *pp >= 0; pp = &a->cache[*pp].next)
			if (*pp == (int32_t)a->cache_pos) {
				*pp = e->next;
				break;
			}
		e->used = false;
	}
	if (len > PA_CACHE_INLINE && e->cap < len) {
		uint8_t *b = realloc(e->heap, len);

		if (b == NULL)
			return;
		e->heap = b;
		e->cap = len;
	}
	memcpy(len > PA_CACHE_INLINE ? e->heap : e->inl, resp, len);
	e->len = len;
	e->t_ms = a->now_ms;
	e->seq = seq;
	e->crc = crc;
	e->port = port;
	e->af = ip->af;
	e->type = type;
	memcpy(e->ip, ip->a, 16);
	e->bucket = cache_hash(ip, port, seq);
	e->next = a->cache_bucket[e->bucket];
	a->cache_bucket[e->bucket] = (int32_t)a->cache_pos;
	e->used = true;
	a->cache_pos = (a->cache_pos + 1) % PA_CACHE_N;
}

/* ---- Our requests: Session Reports and Heartbeats --------------------- */

static uint32_t
seq_alloc(struct pa_agent *a)
{
	uint32_t s = a->seq_next;

	a->seq_next = (a->seq_next + 1) & 0xffffff;
	if (a->seq_next == 0)
		a->seq_next = 1;
	return s;
}

static void
retx_push(struct pa_agent *a, uint32_t seq)
{
	uint32_t i;

	if (a->retx_n == PA_RETX_N) {
		a->retx_head = (a->retx_head + 1) % PA_RETX_N;
		a->retx_n--;
	}
	i = (a->retx_head + a->retx_n) % PA_RETX_N;
	a->retx[i].due = a->now_ms + PA_T1_MS;
	a->retx[i].seq = seq;
	a->retx_n++;
}

/* Send the request built in t and keep it until it is answered or N1 tries are spent. */
static void
req_send(struct pa_agent *a, struct pa_tx *t, int len, const struct pa_addr *to, uint8_t kind,
	 uint16_t assoc, uint64_t seid, uint32_t seq)
{
	struct pa_pend *p = &a->pend[seq % PA_PEND_N];

	if (len < 0) {
		a->n.tx_errors++;
		return;
	}
	if (p->used)
		a->n.requests_overrun++; /* PA_PEND_N newer requests: stop waiting for it. */
	if (p->cap < len) {
		uint8_t *b = realloc(p->buf, (size_t)len);

		if (b == NULL) {
			p->used = false;
			tx_commit(a, t, to, len);
			return;
		}
		p->buf = b;
		p->cap = (uint16_t)len;
	}
	memcpy(p->buf, t->buf, (size_t)len);
	p->len = (uint16_t)len;
	p->used = true;
	p->kind = kind;
	p->tries = 1;
	p->assoc = assoc;
	p->seq = seq;
	p->seid = seid;
	p->to = *to;
	retx_push(a, seq);
	tx_commit(a, t, to, len);
}

/* The request a response answers, taken off the list; NULL if none. */
static struct pa_pend *
pend_take(struct pa_agent *a, uint32_t seq, uint8_t kind)
{
	struct pa_pend *p = &a->pend[seq % PA_PEND_N];

	if (!p->used || p->seq != seq || p->kind != kind)
		return NULL;
	p->used = false;
	return p;
}

static void
retx_run(struct pa_agent *a)
{
	while (a->retx_n != 0) {
		const struct pa_retx *r = &a->retx[a->retx_head];
		struct pa_pend *p;
		struct pa_tx *t;
		uint32_t seq;

		if (r->due > a->now_ms)
			break;
		seq = r->seq;
		a->retx_head = (a->retx_head + 1) % PA_RETX_N;
		a->retx_n--;
		p = &a->pend[seq % PA_PEND_N];
		if (!p->used || p->seq != seq)
			continue;
		if (p->tries >= PA_N1) {
			p->used = false;
			a->n.requests_timed_out++;
			if (p->kind == PA_REQ_HEARTBEAT && a->assoc[p->assoc].used) {
				struct pa_assoc *as = &a->assoc[p->assoc];
				char nb[PFCP_FQDN_LEN];

				as->hb_missed++;
				a->n.heartbeats_missed++;
				PA_LOG(WARNING, "association %s: no Heartbeat Response (%u missed)",
				       node_str(&as->node, nb, sizeof(nb)), as->hb_missed);
			}
			continue;
		}
		t = tx_slot(a);
		memcpy(t->buf, p->buf, p->len);
		tx_commit(a, t, &p->to, p->len);
		p->tries++;
		a->n.report_retransmits++;
		retx_push(a, seq);
	}
}

static void
heartbeats_run(struct pa_agent *a)
{
	unsigned int i;

	if (a->uc.heartbeat_s == 0)
		return;
	for (i = 0; i < PA_MAX_ASSOC; i++) {
		struct pa_assoc *as = &a->assoc[i];
		struct pfcp_w w;
		struct pa_tx *t;
		uint32_t seq;

		if (!as->used || as->hb_due_ms > a->now_ms)
			continue;
		as->hb_due_ms = a->now_ms + (uint64_t)a->uc.heartbeat_s * 1000;
		seq = seq_alloc(a);
		t = tx_slot(a);
		pfcp_w_init(&w, t->buf, PA_TX_MAX);
		req_send(a, t, pfcp_build_heartbeat_req(&w, seq, a->recovery_ts), &as->peer,
			 PA_REQ_HEARTBEAT, (uint16_t)i, 0, seq);
		as->hb_sent++;
		a->n.heartbeats_sent++;
	}
}

static void send_dldr(struct pa_agent *a, struct pa_sess *s);

/* ---- URR timers (and delayed Downlink Data Reports): a binary heap; entries
 * whose due no longer matches are stale. */

/* @return 0, or -1 without memory for the timer (logged). */
static int
heap_push(struct pa_agent *a, uint64_t due, uint64_t seid, uint32_t urr_id, uint32_t kind)
{
	struct pa_timer t = { .due = due, .seid = seid, .urr_id = urr_id, .kind = kind };
	uint32_t i;

	if (a->heap_n == a->heap_cap) {
		uint32_t cap = a->heap_cap ? a->heap_cap * 2 : 1024;
		struct pa_timer *h = realloc(a->heap, cap * sizeof(*h));

		if (h == NULL) {
			PA_LOG(ERR,
			       "out of memory for a URR timer; session 0x%" PRIx64
			       " URR %u will not report on time",
			       seid, urr_id);
			return -1;
		}
		a->heap = h;
		a->heap_cap = cap;
	}
	i = a->heap_n++;
	while (i > 0 && a->heap[(i - 1) / 2].due > due) {
		a->heap[i] = a->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	a->heap[i] = t;
	return 0;
}

static void
heap_down(struct pa_timer *h, uint32_t n, uint32_t i)
{
	struct pa_timer t = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1].due < h[c].due)
			c++;
		if (h[c].due >= t.due)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = t;
}

static void
heap_pop(struct pa_agent *a)
{
	a->heap[0] = a->heap[--a->heap_n];
	if (a->heap_n > 1)
		heap_down(a->heap, a->heap_n, 0);
}

static int
urr_index(const struct upf_sess_conf *c, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < c->n_urr; i++)
		if (c->urr[i].id == id)
			return (int)i;
	return -1;
}

static bool
timer_live(const struct pa_agent *a, const struct pa_timer *t)
{
	const struct pa_sess *s = sess_find(a, t->seid);
	int k;

	if (s == NULL)
		return false;
	if (t->kind == PA_TM_DDN)
		return t->due == s->ddn_due;
	k = urr_index(&s->c, t->urr_id);
	if (k < 0)
		return false;
	switch (t->kind) {
	case PA_TM_PERIO:
		return t->due == s->ust[k].perio_due;
	case PA_TM_TIMTH:
		return t->due == s->ust[k].timth_due;
	case PA_TM_QUVTI:
		return t->due == s->ust[k].quvti_due;
	default:
		return t->due == s->ust[k].timqu_due;
	}
}

/* Drop the stale entries (deleted sessions, changed periods), amortised over their number. */
static void
heap_compact(struct pa_agent *a)
{
	uint32_t i, n = 0;

	for (i = 0; i < a->heap_n; i++)
		if (timer_live(a, &a->heap[i]))
			a->heap[n++] = a->heap[i];
	a->heap_n = n;
	for (i = n / 2; i-- > 0;)
		heap_down(a->heap, n, i);
}

/* ---- Usage reports ------------------------------------------------------ */

static void
usage_read(const struct pa_agent *a, uint64_t seid, uint32_t urr_id, struct upf_usage *u)
{
	if (upf_store_usage(a->st, seid, urr_id, u) != 0)
		memset(u, 0, sizeof(*u)); /* A URR the store does not have yet counted nothing. */
}

static uint64_t
usage_total(const struct upf_usage *u)
{
	return u->bytes[0] + u->bytes[1];
}

/*
 * Fill a Usage Report of URR u from the usage now, and start the next
 * measurement there: reports carry what was measured since the previous
 * one, and the time threshold counts from it.
 */
static void
usage_report(struct pa_agent *a, uint64_t seid, const struct upf_urr_conf *u, struct pa_urr_st *st,
	     const struct upf_usage *now_u, uint32_t trigger, uint32_t now_ntp,
	     struct pfcp_usage_report *r)
{
	unsigned int j;

	memset(r, 0, sizeof(*r));
	r->urr_id = u->id;
	r->ur_seqn = st->seqn++;
	r->trigger = trigger;
	r->start_time = st->start_ntp;
	r->end_time = now_ntp;
	r->has_volume = (u->method & UPF_MM_VOLUM) != 0 || u->method == 0;
	for (j = 0; j < 2; j++) {
		r->vol.bytes[j] = now_u->bytes[j] - st->base.bytes[j];
		r->vol.pkts[j] = now_u->pkts[j] - st->base.pkts[j];
	}
	r->has_duration = (u->method & UPF_MM_DURAT) != 0;
	r->duration_s = (uint32_t)((a->now_ms - st->start_ms) / 1000);
	st->base = *now_u;
	st->start_ms = a->now_ms;
	st->start_ntp = now_ntp;
	if ((u->triggers & UPF_RT_TIMTH) && u->has_time_thresh && u->time_thresh_s != 0) {
		st->timth_due = a->now_ms + (uint64_t)u->time_thresh_s * 1000;
		heap_push(a, st->timth_due, seid, u->id, PA_TM_TIMTH);
	}
}

/*
 * Linked usage reporting (LIUSA): each URR of s whose Linked URR IDs name
 * one that reports in rep[0..*n) reports with it (trigger LIUSA), once.
 * rep has room for every URR of the session.
 */
static void
linked_reports(struct pa_agent *a, struct pa_sess *s, struct pfcp_usage_report *rep,
	       unsigned int *n, uint32_t ntp)
{
	const unsigned int n0 = *n;
	unsigned int k, i, j;

	for (k = 0; k < s->c.n_urr; k++) {
		const struct upf_urr_conf *u = &s->c.urr[k];
		struct upf_usage now_u;
		bool hit = false;

		if (!(u->triggers & UPF_RT_LIUSA) || u->n_linked == 0)
			continue;
		for (j = 0; j < *n && rep[j].urr_id != u->id; j++)
			;
		if (j < *n)
			continue; /* It reports already. */
		for (i = 0; i < u->n_linked && !hit; i++)
			for (j = 0; j < n0 && !hit; j++)
				hit = rep[j].urr_id == u->linked[i];
		if (!hit)
			continue;
		usage_read(a, s->c.up_seid, u->id, &now_u);
		usage_report(a, s->c.up_seid, u, &s->ust[k], &now_u, PFCP_URT_LIUSA, ntp,
			     &rep[(*n)++]);
	}
}

/* A Session Report Request to the session's CP. */
static void
send_report(struct pa_agent *a, const struct pa_sess *s, uint8_t type, const uint16_t *dl_pdr,
	    unsigned int n_dl, const struct pfcp_usage_report *u, unsigned int n_u)
{
	const struct pa_assoc *as = &a->assoc[s->assoc];
	struct pfcp_sess_report r;
	struct pfcp_w w;
	struct pa_tx *t;

	if (!as->used)
		return;
	memset(&r, 0, sizeof(r));
	r.seid = s->c.cp_seid;
	r.seq = seq_alloc(a);
	r.report_type = type;
	r.n_dl_pdr = RTE_MIN(n_dl, (unsigned int)PFCP_MAX_DL_PDR);
	if (r.n_dl_pdr != 0)
		memcpy(r.dl_pdr, dl_pdr, r.n_dl_pdr * sizeof(r.dl_pdr[0]));
	r.n_usage = n_u;
	r.usage = u;
	t = tx_slot(a);
	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	req_send(a, t, pfcp_build_sess_report_req(&w, &r), &as->peer, PA_REQ_REPORT, s->assoc,
		 s->c.up_seid, r.seq);
	a->n.reports_sent++;
	a->n.usage_reports += n_u;
	if (type & PFCP_REPORT_DLDR)
		a->n.dl_data_reports++;
}

/* ---- Publishing --------------------------------------------------------- */

/*
 * Hand w's session to the store. While a URR's volume quota is used up, the
 * PDRs that count into it are moved to a DROP FAR of the agent's own (or,
 * where the session already has UPF_MAX_FAR FARs, their FAR turns DROP):
 * the CP's rules stay as the CP wrote them, only the published form differs.
 */
static int
publish(struct pa_agent *a, const struct pa_work *w, const struct pa_urr_st *ust, bool *quota_drop,
	char *err, size_t errlen)
{
	const struct upf_sess_conf *c = &w->c;
	struct pa_work *e = &a->eff;
	uint32_t ex = 0, drop_id = PA_QUOTA_FAR_ID;
	unsigned int i, j, k;
	bool own = false;

	for (k = 0; k < c->n_urr; k++)
		if (ust[k].exhausted || ust[k].tq_exhausted)
			ex |= 1u << k;
	*quota_drop = ex != 0;
	if (ex == 0)
		return upf_store_put(a->st, c, err, errlen);

	e->c = *c;
	e->c.pdr = e->pdr;
	e->c.far = e->far;
	e->c.qer = e->qer;
	e->c.urr = e->urr;
	memcpy(e->pdr, c->pdr, c->n_pdr * sizeof(e->pdr[0]));
	memcpy(e->far, c->far, c->n_far * sizeof(e->far[0]));
	memcpy(e->qer, c->qer, c->n_qer * sizeof(e->qer[0]));
	memcpy(e->urr, c->urr, c->n_urr * sizeof(e->urr[0]));
	for (i = 0; i < e->c.n_far; i++)
		if (e->far[i].id == drop_id) {
			drop_id--;
			i = UINT32_MAX; /* Start over: the new id must be free too. */
		}
	if (e->c.n_far < UPF_MAX_FAR) {
		struct upf_far_conf *f = &e->far[e->c.n_far++];

		memset(f, 0, sizeof(*f));
		f->id = drop_id;
		f->apply = UPF_FAR_DROP;
		f->ni = UPF_NI_NONE;
		own = true;
	}
	for (i = 0; i < e->c.n_pdr; i++) {
		struct upf_pdr_conf *p = &e->pdr[i];
		bool hit = false;

		for (j = 0; j < p->n_urr; j++) {
			int x = urr_index(c, p->urr_id[j]);

			if (x >= 0 && (ex & (1u << x)))
				hit = true;
		}
		if (!hit || !p->has_far)
			continue;
		if (own) {
			p->far_id = drop_id;
			continue;
		}
		for (k = 0; k < e->c.n_far; k++)
			if (e->far[k].id == p->far_id)
				e->far[k].apply = UPF_FAR_DROP;
	}
	return upf_store_put(a->st, &e->c, err, errlen);
}

/* Publish a session again after its quota state changed (not its rules). */
static void
sess_republish(struct pa_agent *a, struct pa_sess *s)
{
	char err[256];
	bool qd;
	int rc;

	sess_unpack(s, &a->work);
	rc = publish(a, &a->work, s->ust, &qd, err, sizeof(err));
	if (rc != 0) {
		a->n.quota_publish_failed++;
		PA_LOG(WARNING, "session 0x%" PRIx64 ": quota drop not applied: %s", s->c.up_seid,
		       err);
		return;
	}
	s->quota_drop = qd;
}

/*
 * Has the usage since base reached v? Any count v sets does it: the total,
 * the uplink or the downlink octets (8.2.13). A threshold count of 0 never
 * does (it would report on every look); a quota of 0 is used up at once.
 */
static bool
vol_reached(const struct upf_vol *v, const struct upf_usage *now, const struct upf_usage *base,
	    bool quota)
{
	const uint64_t ul = now->bytes[0] - base->bytes[0], dl = now->bytes[1] - base->bytes[1];

	if ((v->flags & UPF_VOL_TOTAL) && (quota || v->total != 0) && ul + dl >= v->total)
		return true;
	if ((v->flags & UPF_VOL_UL) && (quota || v->ul != 0) && ul >= v->ul)
		return true;
	return (v->flags & UPF_VOL_DL) && (quota || v->dl != 0) && dl >= v->dl;
}

/* Volume threshold and quota of one session's URRs. */
static void
sess_check_volume(struct pa_agent *a, struct pa_sess *s)
{
	struct pfcp_usage_report rep[UPF_MAX_URR];
	unsigned int k, n = 0;
	bool quota = false, rewatch = false;
	uint32_t ntp = 0;

	for (k = 0; k < s->c.n_urr; k++) {
		const struct upf_urr_conf *u = &s->c.urr[k];
		struct pa_urr_st *st = &s->ust[k];
		bool vth = (u->triggers & UPF_RT_VOLTH) && u->has_vol_thresh;
		bool vq = (u->triggers & UPF_RT_VOLQU) && u->has_vol_quota && !st->exhausted;
		bool start = (u->triggers & UPF_RT_START) && !st->start_done;
		bool qht = (u->triggers & UPF_RT_QUHTI) && u->has_qht && u->qht_s != 0;
		struct upf_usage now_u;
		uint32_t trig = 0;
		uint64_t pkts;

		if (!vth && !vq && !start && !qht)
			continue;
		if (upf_store_usage(a->st, s->c.up_seid, u->id, &now_u) != 0)
			continue;
		pkts = now_u.pkts[0] + now_u.pkts[1];
		if (start && pkts > st->start_pkts) {
			trig |= PFCP_URT_START;
			st->start_done = true;
			rewatch = true;
		}
		/* A lull of qht_s without a packet: one report, then none until traffic resumes. */
		if (qht && pkts != st->seen_pkts) {
			st->seen_pkts = pkts;
			st->seen_ms = a->now_ms;
			st->idle_reported = false;
		} else if (qht && !st->idle_reported &&
			   a->now_ms - st->seen_ms >= (uint64_t)u->qht_s * 1000) {
			trig |= PFCP_URT_QUHTI;
			st->idle_reported = true;
		}
		if (vth && vol_reached(&u->vol_thresh, &now_u, &st->base, false))
			trig |= PFCP_URT_VOLTH;
		if (vq && vol_reached(&u->vol_quota, &now_u, &st->qbase, true)) {
			trig |= PFCP_URT_VOLQU;
			st->exhausted = true;
			quota = true;
			a->n.quota_exhausted++;
		}
		if (trig == 0)
			continue;
		if (ntp == 0)
			ntp = ntp_now();
		usage_report(a, s->c.up_seid, u, st, &now_u, trig, ntp, &rep[n++]);
	}
	if (n != 0) {
		linked_reports(a, s, rep, &n, ntp);
		send_report(a, s, PFCP_REPORT_USAR, NULL, 0, rep, n);
	}
	if (quota)
		sess_republish(a, s);
	if ((quota || rewatch) && !sess_needs_watch(&s->c, s->ust))
		watch_unlink(a, s);
}

/*
 * Check a share of the watched sessions: enough that each is seen every
 * PA_SCAN_PERIOD_MS, at most PA_SCAN_MAX_PER_S a second.
 */
static void
scan_run(struct pa_agent *a)
{
	uint64_t el = a->now_ms - a->scan_last_ms, n, cap;

	if (el == 0)
		return;
	a->scan_last_ms = a->now_ms;
	if (a->n_watch == 0) {
		a->scan_acc = 0;
		return;
	}
	a->scan_acc += (uint64_t)a->n_watch * el;
	n = a->scan_acc / PA_SCAN_PERIOD_MS;
	a->scan_acc -= n * PA_SCAN_PERIOD_MS;
	cap = RTE_MAX((uint64_t)PA_SCAN_MAX_PER_S * el / 1000, (uint64_t)1);
	n = RTE_MIN(RTE_MIN(n, cap), (uint64_t)a->n_watch);
	while (n-- > 0 && a->n_watch != 0) {
		struct pa_sess *s;

		if (a->watch_cursor == PA_NONE)
			a->watch_cursor = a->watch_head;
		s = a->sess[a->watch_cursor];
		a->watch_cursor = s->w_next;
		sess_check_volume(a, s);
		a->n.scans++;
	}
}

/* A URR deadline: *cur = due (and a timer for it) when on and changed, 0 when off. */
static void
arm_due(struct pa_agent *a, uint64_t *cur, bool on, uint64_t due, uint64_t seid, uint32_t urr_id,
	uint32_t kind)
{
	if (!on) {
		*cur = 0;
		return;
	}
	if (due != *cur) {
		*cur = due;
		heap_push(a, due, seid, urr_id, kind);
	}
}

/* Arm the URR timers of a session just committed; fresh[k]: URR k is new or its period changed. */
static void
sess_arm(struct pa_agent *a, struct pa_sess *s, const bool *fresh)
{
	uint32_t n = 0;
	unsigned int k;

	for (k = 0; k < s->c.n_urr; k++) {
		const struct upf_urr_conf *u = &s->c.urr[k];
		struct pa_urr_st *st = &s->ust[k];

		if (!(u->triggers & UPF_RT_PERIO) || u->period_s == 0) {
			st->perio_due = 0;
		} else if (fresh[k] || st->perio_due == 0) {
			st->perio_due = a->now_ms + (uint64_t)u->period_s * 1000;
			heap_push(a, st->perio_due, s->c.up_seid, u->id, PA_TM_PERIO);
		}
		arm_due(a, &st->timth_due,
			(u->triggers & UPF_RT_TIMTH) && u->has_time_thresh && u->time_thresh_s != 0,
			st->start_ms + (uint64_t)u->time_thresh_s * 1000, s->c.up_seid, u->id,
			PA_TM_TIMTH);
		arm_due(a, &st->timqu_due,
			(u->triggers & UPF_RT_TIMQU) && u->has_time_quota && !st->tq_exhausted,
			st->tq_start_ms + (uint64_t)u->time_quota_s * 1000, s->c.up_seid, u->id,
			PA_TM_TIMQU);
		arm_due(a, &st->quvti_due,
			(u->triggers & UPF_RT_QUVTI) && u->has_qvt && u->qvt_s != 0 &&
				!st->qv_reported,
			st->qv_start_ms + (uint64_t)u->qvt_s * 1000, s->c.up_seid, u->id,
			PA_TM_QUVTI);
		n += (st->perio_due != 0) + (st->timth_due != 0) + (st->timqu_due != 0) +
			(st->quvti_due != 0);
	}
	a->n_timed += n;
	a->n_timed -= s->n_timed;
	s->n_timed = n;
}

static void
timers_run(struct pa_agent *a)
{
	while (a->heap_n != 0 && a->heap[0].due <= a->now_ms) {
		struct pa_timer t = a->heap[0];
		struct pfcp_usage_report rep[UPF_MAX_URR];
		unsigned int n_rep = 1;
		uint32_t ntp;
		const struct upf_urr_conf *u;
		struct upf_usage now_u;
		struct pa_urr_st *st;
		struct pa_sess *s;
		uint32_t trig;
		int k;

		heap_pop(a);
		s = sess_find(a, t.seid);
		if (s == NULL)
			continue;
		if (t.kind == PA_TM_DDN) {
			if (s->ddn_due == t.due) {
				s->ddn_due = 0;
				if (!s->dldr_sent)
					send_dldr(a, s);
			}
			continue;
		}
		k = urr_index(&s->c, t.urr_id);
		if (k < 0)
			continue;
		u = &s->c.urr[k];
		st = &s->ust[k];
		if (t.kind == PA_TM_PERIO) {
			if (st->perio_due != t.due)
				continue;
			trig = PFCP_URT_PERIO;
			/* The next period starts where this one ended, not when we got here. */
			st->perio_due += (uint64_t)u->period_s * 1000;
			if (st->perio_due <= a->now_ms)
				st->perio_due = a->now_ms + (uint64_t)u->period_s * 1000;
			heap_push(a, st->perio_due, t.seid, u->id, PA_TM_PERIO);
		} else if (t.kind == PA_TM_TIMTH) {
			if (st->timth_due != t.due)
				continue;
			trig = PFCP_URT_TIMTH;
		} else if (t.kind == PA_TM_QUVTI) {
			/* Reported once; the quota stays until the SMF says otherwise. */
			if (st->quvti_due != t.due || st->qv_reported)
				continue;
			trig = PFCP_URT_QUVTI;
			st->qv_reported = true;
			st->quvti_due = 0;
		} else {
			if (st->timqu_due != t.due || st->tq_exhausted)
				continue;
			trig = PFCP_URT_TIMQU;
			st->tq_exhausted = true;
			a->n.quota_exhausted++;
		}
		usage_read(a, t.seid, u->id, &now_u);
		ntp = ntp_now();
		usage_report(a, t.seid, u, st, &now_u, trig, ntp, &rep[0]);
		linked_reports(a, s, rep, &n_rep, ntp);
		send_report(a, s, PFCP_REPORT_USAR, NULL, 0, rep, n_rep);
		/* Used up: the PDRs counting into it drop, as for a volume quota. */
		if (trig == PFCP_URT_TIMQU)
			sess_republish(a, s);
	}
	if (a->heap_n > 4 * a->n_timed + 4096)
		heap_compact(a);
}

/* ---- Buffered downlink packets ------------------------------------------ */

/* id, source interface and FAR of a packed PDR; @return its packed size. */
static size_t
pdr_peek(const uint8_t *p, uint16_t *id, uint8_t *src, uint32_t *far)
{
	struct upf_pdr_conf h;
	size_t tail;

	memcpy(&h, p, PDR_HEAD);
	tail = PDR_HEAD + h.n_sdf * sizeof(struct upf_sdf) + h.n_framed * sizeof(struct upf_prefix);
	memcpy(far, p + tail + offsetof(struct upf_pdr_conf, far_id) - PDR_TAIL_OFF, sizeof(*far));
	*id = h.id;
	*src = h.src_iface;
	return pdr_packed_size(&h);
}

/*
 * The Downlink Data Report: the downlink PDRs whose FAR notifies the CP
 * (failing those, any PDR whose FAR does: the report needs one).
 */
static void
send_dldr(struct pa_agent *a, struct pa_sess *s)
{
	uint16_t ids[PFCP_MAX_DL_PDR];
	unsigned int i, k, n = 0, pass;

	for (pass = 0; pass < 2 && n == 0; pass++) {
		const uint8_t *p = s->pdr_packed;

		for (i = 0; i < s->c.n_pdr && n < PFCP_MAX_DL_PDR; i++) {
			uint32_t far;
			uint16_t id;
			uint8_t src;

			p += pdr_peek(p, &id, &src, &far);
			if (pass == 0 && src != UPF_IF_CORE && src != UPF_IF_SGI_LAN)
				continue;
			for (k = 0; k < s->c.n_far; k++)
				if (s->c.far[k].id == far && (s->c.far[k].apply & UPF_FAR_NOCP))
					ids[n++] = id;
		}
	}
	if (n != 0)
		send_report(a, s, PFCP_REPORT_DLDR, ids, n, NULL, 0);
	s->dldr_sent = true;
}

/* Packets a BUFF FAR of s holds at most: [upf] buffer_packets, or its BAR's count below it. */
static unsigned int
sess_buffer_limit(const struct pa_agent *a, const struct pa_sess *s)
{
	return s->bar.on && s->bar.has_count
		? RTE_MIN((unsigned int)s->bar.count, a->uc.buffer_packets)
		: a->uc.buffer_packets;
}

/*
 * DROTH: a downlink packet of s dropped while buffering (over the bound, or
 * for a NOCP FAR without BUFF) counts toward each of the session's URRs
 * with a Dropped DL Traffic Threshold; one that reaches its packets or
 * bytes reports (Usage Report Trigger DROTH) and counts again from 0. The
 * worker hands over the frame and the session, not the PDR, so every such
 * URR of the session counts it: an SMF puts DROTH on the downlink's URR.
 * Bytes are the IP packet's, as the volume counts are.
 */
static void
sess_dropped(struct pa_agent *a, struct pa_sess *s, const struct rte_mbuf *m)
{
	struct pfcp_usage_report rep[UPF_MAX_URR];
	const uint32_t len = rte_pktmbuf_pkt_len(m) > RTE_ETHER_HDR_LEN
		? rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN
		: 0;
	unsigned int k, n = 0;
	uint32_t ntp = 0;

	for (k = 0; k < s->c.n_urr; k++) {
		const struct upf_urr_conf *u = &s->c.urr[k];
		struct pa_urr_st *st = &s->ust[k];
		struct upf_usage now_u;

		if (!(u->triggers & UPF_RT_DROTH) || u->droth_flags == 0)
			continue;
		st->drop_pkts++;
		st->drop_bytes += len;
		if (!((u->droth_flags & UPF_DROTH_DLPA) && st->drop_pkts >= u->droth_pkts) &&
		    !((u->droth_flags & UPF_DROTH_DLBY) && st->drop_bytes >= u->droth_bytes))
			continue;
		st->drop_pkts = 0;
		st->drop_bytes = 0;
		if (ntp == 0)
			ntp = ntp_now();
		usage_read(a, s->c.up_seid, u->id, &now_u);
		usage_report(a, s->c.up_seid, u, st, &now_u, PFCP_URT_DROTH, ntp, &rep[n++]);
	}
	if (n != 0) {
		linked_reports(a, s, rep, &n, ntp);
		send_report(a, s, PFCP_REPORT_USAR, NULL, 0, rep, n);
	}
}

/*
 * A packet a worker handed over for a BUFF or NOCP FAR. The worker says
 * which session, not which FAR: the session's FARs decide. BUFF holds it
 * (up to sess_buffer_limit); NOCP reports once per buffering episode
 * (until the CP updates a FAR), after the BAR's delay if it has one; NOCP
 * without BUFF frees it after the report.
 */

static void
sess_buffer(struct pa_agent *a, struct pa_sess *s, struct rte_mbuf *m)
{
	uint8_t any = 0;
	unsigned int k;

	for (k = 0; k < s->c.n_far; k++)
		if (!(s->c.far[k].apply & UPF_FAR_FORW))
			any |= s->c.far[k].apply;
	/* The BAR's Downlink Data Notification Delay holds the report back (a timer). */
	if ((any & UPF_FAR_NOCP) && !s->dldr_sent && s->ddn_due == 0) {
		if (s->bar.on && s->bar.ddn_delay != 0) {
			s->ddn_due = a->now_ms + (uint64_t)s->bar.ddn_delay * 50;
			if (heap_push(a, s->ddn_due, s->c.up_seid, 0, PA_TM_DDN) != 0) {
				s->ddn_due = 0;
				send_dldr(a, s);
			}
		} else {
			send_dldr(a, s);
		}
	}
	if (!(any & UPF_FAR_BUFF)) {
		sess_dropped(a, s, m);
		pa_discard(a, m, UPF_DROP_BUFFER_DISCARD);
		a->n.buffer_discarded++;
		return;
	}
	if (s->n_held >= sess_buffer_limit(a, s)) {
		sess_dropped(a, s, m);
		pa_discard(a, m, UPF_DROP_BUFFER_FULL);
		a->n.buffer_full++;
		return;
	}
	if (s->held == NULL) {
		s->held = malloc(a->uc.buffer_packets * sizeof(s->held[0]));
		if (s->held == NULL) {
			sess_dropped(a, s, m);
			pa_discard(a, m, UPF_DROP_BUFFER_FULL);
			a->n.buffer_full++;
			return;
		}
	}
	s->held[s->n_held++] = m;
	a->n.buffered++;
}

/* The held packets go back to worker 0, which runs them through its pipeline anew. */
static void
held_release(struct pa_agent *a, struct pa_sess *s)
{
	struct rte_ring *r = a->st->p.n_workers != 0 ? a->st->wk[0].from_ctrl : NULL;
	uint32_t i, n = 0;

	if (s->n_held == 0)
		return;
	if (r != NULL)
		n = rte_ring_enqueue_burst(r, (void **)s->held, s->n_held, NULL);
	a->n.buffer_released += n;
	for (i = n; i < s->n_held; i++) {
		/* The ring is full: the discard cannot go through it either. */
		rte_pktmbuf_free(s->held[i]);
		a->n.discard_lost++;
	}
	a->n.buffer_release_failed += s->n_held - n;
	s->n_held = 0;
}

static void
drain_run(struct pa_agent *a)
{
	struct rte_mbuf *pkts[PA_DRAIN_BURST];
	unsigned int w, i, n, rounds;

	for (w = 0; w < a->st->p.n_workers; w++) {
		struct rte_ring *r = a->st->wk[w].to_ctrl;

		if (r == NULL)
			continue;
		rounds = 0;
		do {
			n = rte_ring_dequeue_burst(r, (void **)pkts, PA_DRAIN_BURST, NULL);
			for (i = 0; i < n; i++) {
				uint64_t seid = upf_store_slot_seid(a->st, pkts[i]->hash.usr);
				struct pa_sess *s = seid != 0 ? sess_find(a, seid) : NULL;

				if (s == NULL) {
					pa_discard(a, pkts[i], UPF_DROP_BUFFER_DISCARD);
					a->n.ctrl_orphans++;
					continue;
				}
				sess_buffer(a, s, pkts[i]);
			}
		} while (n == PA_DRAIN_BURST && ++rounds < 16);
	}
}

/* ---- Rules: from the decoded message to a session ----------------------- */

static int
ni_find(const struct pa_agent *a, const char *name)
{
	unsigned int i;

	for (i = 0; i < a->uc.n_ni; i++)
		if (strcasecmp(a->uc.ni[i].name, name) == 0)
			return (int)i;
	return -1;
}

static bool
prefix_has(const uint8_t *pfx, unsigned int plen, const uint8_t *addr)
{
	unsigned int full = plen / 8, rest = plen % 8;

	if (memcmp(pfx, addr, full) != 0)
		return false;
	return rest == 0 || ((pfx[full] ^ addr[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/*
 * The first of instance ni's allocating pools (ue_alloc, ue_alloc.ID) the
 * prefix pfx/plen of family af overlaps (the two agree on the bits of the
 * shorter): its index, or -1 for none.
 */
static int
alloc_overlap(const struct pa_agent *a, unsigned int ni, uint8_t af, const uint8_t *pfx,
	      unsigned int plen)
{
	unsigned int j, r;

	for (j = 0; j < LF_UPF_POOLS_PER_NI; j++) {
		const struct upf_uepool *p = &a->uepool[ni][j][af == 6];

		for (r = 0; r < p->n_range; r++)
			if (prefix_has(p->r[r].a, RTE_MIN(plen, (unsigned int)p->r[r].plen), pfx))
				return (int)j;
	}
	return -1;
}

/*
 * A PDR without a Network Instance: the one whose UE pool holds its UE
 * address, so that the downlink lookup (by network instance and address)
 * finds it; UPF_NI_NONE if no pool does.
 */
static uint8_t
ni_of_ue(const struct pa_agent *a, const struct upf_pdr_conf *p)
{
	unsigned int i, j;

	for (i = 0; i < a->uc.n_ni; i++)
		for (j = 0; j < a->uc.ni[i].n_pools; j++) {
			const typeof(a->uc.ni[i].pool[0]) *pl = &a->uc.ni[i].pool[j];

			if (pl->af == 4 && p->ue4.af == 4 && prefix_has(pl->a, pl->plen, p->ue4.a))
				return (uint8_t)i;
			if (pl->af == 6 && p->ue6.af == 6 && prefix_has(pl->a, pl->plen, p->ue6.a))
				return (uint8_t)i;
		}
	return UPF_NI_NONE;
}

static int
pdr_find(const struct pa_work *w, uint16_t id)
{
	unsigned int i;

	for (i = 0; i < w->c.n_pdr; i++)
		if (w->pdr[i].id == id)
			return (int)i;
	return -1;
}

static int
far_find(const struct pa_work *w, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < w->c.n_far; i++)
		if (w->far[i].id == id)
			return (int)i;
	return -1;
}

static int
qer_find(const struct pa_work *w, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < w->c.n_qer; i++)
		if (w->qer[i].id == id)
			return (int)i;
	return -1;
}

/* The pool named id: its instance *ni and its index *pool there (uepool[][pool]). */
static bool
pool_by_id(const struct pa_agent *a, const char *id, unsigned int *ni, unsigned int *pool)
{
	unsigned int k, j;

	for (k = 0; k < a->uc.n_ni; k++) {
		const struct lf_upf_ni_conf *c = &a->uc.ni[k];

		*ni = k;
		*pool = 0;
		if (c->n_alloc != 0 && strcmp(c->pool_id, id) == 0)
			return true;
		for (j = 0; j < c->n_named; j++) {
			*pool = j + 1;
			if (strcmp(c->named[j].id, id) == 0)
				return true;
		}
	}
	return false;
}

/*
 * UE IP address Pool Identities with CHV4 / CHV6: each names a pool
 * (ue_alloc with its ue_alloc_pool_id, or a ue_alloc.ID), all of one
 * instance (a PDR has one), the one its Network Instance IE names if it
 * has one. A family takes the first named pool that has it; a family no
 * named pool has comes from the instance's ue_alloc. Without CHOOSE they
 * name nothing the UP does, and are not looked at.
 */
static int
pdr_set_pool(const struct pa_agent *a, struct upf_pdr_conf *dst, const struct pfcp_pdr *src,
	     uint8_t rt, struct pfcp_err *e)
{
	const char *what = rt == PFCP_RULE_PDR ? "PDR" : "Traffic Endpoint";
	int ni = -1;
	unsigned int i, k, j, f, set = 0;

	for (i = 0; i < src->n_pool_id; i++) {
		if (!pool_by_id(a, src->pool_id[i], &k, &j))
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_POOL_ID, rt,
				       dst->id,
				       "%s %u: UE IP address pool \"%s\" is not configured", what,
				       dst->id, src->pool_id[i]);
		if (ni >= 0 && (unsigned int)ni != k)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_POOL_ID, rt,
				       dst->id,
				       "%s %u: UE IP address pools \"%s\" and \"%s\" are of two "
				       "network instances",
				       what, dst->id, src->pool_id[0], src->pool_id[i]);
		ni = (int)k;
		/* The first that has the family (ue_alloc is pool 0 too). */
		for (f = 0; f < 2; f++)
			if (!(set & (1u << f)) && a->uepool[k][j][f].total != 0) {
				dst->ue_pool[f] = (uint8_t)j;
				set |= 1u << f;
			}
	}
	if (src->ni_name[0] != '\0' && dst->ni != ni)
		return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_POOL_ID, rt, dst->id,
			       "%s %u: UE IP address pool \"%s\" is network instance \"%s\"'s, "
			       "not \"%s\"",
			       what, dst->id, src->pool_id[0], a->uc.ni[ni].name, src->ni_name);
	dst->ni = (uint8_t)ni;
	return 0;
}

/* The PDI of src (source interface, F-TEID, UE address, SDF, QFI, network instance) into dst. */
static int
pdr_set_pdi(const struct pa_agent *a, struct upf_pdr_conf *dst, const struct pfcp_pdr *src,
	    uint8_t rt, struct pfcp_err *e)
{
	const char *what = rt == PFCP_RULE_PDR ? "PDR" : "Traffic Endpoint";
	const struct upf_pdr_conf *c = &src->c;

	dst->src_iface = c->src_iface;
	dst->has_fteid = c->has_fteid;
	dst->teid = c->teid;
	dst->fteid4 = c->fteid4;
	dst->fteid6 = c->fteid6;
	dst->fteid_choose = c->fteid_choose;
	dst->has_choose_id = c->has_choose_id;
	dst->choose_id = c->choose_id;
	dst->ue4 = c->ue4;
	dst->ue6 = c->ue6;
	dst->ue6_dbits = c->ue6_dbits;
	dst->ue_choose = c->ue_choose;
	dst->ue_chosen = 0;
	dst->ue_pool[0] = dst->ue_pool[1] = 0;
	dst->has_qfi = c->has_qfi;
	dst->qfi = c->qfi;
	dst->has_te = c->has_te;
	dst->te_id = c->te_id;
	dst->n_sdf = c->n_sdf;
	memcpy(dst->sdf, c->sdf, sizeof(dst->sdf));
	dst->n_framed = c->n_framed;
	memcpy(dst->framed, c->framed, sizeof(dst->framed));
	if (src->ni_name[0] != '\0') {
		int ni = ni_find(a, src->ni_name);

		if (ni < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_NETWORK_INSTANCE, rt,
				       dst->id, "%s %u: network instance \"%s\" is not configured",
				       what, dst->id, src->ni_name);
		dst->ni = (uint8_t)ni;
	} else {
		dst->ni = ni_of_ue(a, dst);
	}
	/*
	 * Inside an allocating pool every UE prefix is one of the pool's
	 * candidates, of its length, so that whether CHV6 may hand one out is
	 * one exact lookup (ue_taken). One the SMF gives of another length
	 * there (a /56 over a pool of /64s, a /64 inside a pool of /56s)
	 * would overlap what CHV6 hands out to other sessions.
	 */
	if (dst->ue6.af == 6 && dst->ni < a->uc.n_ni) {
		const unsigned int plen = 64u - dst->ue6_dbits;
		const int j = alloc_overlap(a, dst->ni, 6, dst->ue6.a, plen);

		if (j >= 0 && a->uepool[dst->ni][j][1].blen != plen) {
			char b[INET6_ADDRSTRLEN], kb[80];

			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS, rt,
				       dst->id,
				       "%s %u: the UE prefix %s/%u overlaps %s of network "
				       "instance \"%s\", whose /%us CHV6 hands out",
				       what, dst->id, ip_str(&dst->ue6, b, sizeof(b)), plen,
				       lf_upf_ni_alloc_key(&a->uc.ni[dst->ni], (unsigned int)j, kb,
							   sizeof(kb)),
				       a->uc.ni[dst->ni].name, a->uepool[dst->ni][j][1].blen);
		}
	}
	if (src->n_pool_id != 0 && c->ue_choose != 0)
		return pdr_set_pool(a, dst, src, rt, e);
	return 0;
}

static int
far_set_ni(const struct pa_agent *a, struct upf_far_conf *dst, const struct pfcp_far *src,
	   struct pfcp_err *e)
{
	int ni;

	if (src->ni_name[0] == '\0') {
		dst->ni = UPF_NI_NONE;
		return 0;
	}
	ni = ni_find(a, src->ni_name);
	if (ni < 0)
		return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_NETWORK_INSTANCE, PFCP_RULE_FAR,
			       dst->id, "FAR %u: network instance \"%s\" is not configured",
			       dst->id, src->ni_name);
	dst->ni = (uint8_t)ni;
	return 0;
}

/* ---- Traffic Endpoints (PDI optimisation, PDIU) ------------------------- */

/*
 * A Traffic Endpoint is the part of a PDI that several PDRs share (the
 * local F-TEID, the UE address, the network instance, the QFI), created
 * once and named by ID from each PDR's PDI. The store never sees one:
 * te_resolve() copies it into every PDR that names it, so the datapath
 * matches those PDRs as any other, and a changed endpoint reaches the
 * workers as a changed session. What the UP chooses for an endpoint
 * (F-TEID, UE address) is chosen through its PDRs and held by them, as a
 * PDR's own is.
 */

static int
te_find(const struct pa_work *w, uint8_t id)
{
	unsigned int i;

	for (i = 0; i < w->n_te; i++)
		if (w->te[i].id == id)
			return (int)i;
	return -1;
}

/* A Create Traffic Endpoint into dst. */
static int
te_create(const struct pa_agent *a, struct upf_pdr_conf *dst, const struct pfcp_pdr *src,
	  struct pfcp_err *e)
{
	memset(dst, 0, sizeof(*dst));
	dst->id = src->c.te_id;
	if (pdr_set_pdi(a, dst, src, PFCP_RULE_NONE, e) != 0)
		return -1;
	dst->has_te = false;
	return 0;
}

/*
 * An Update Traffic Endpoint: the IEs it carries replace the endpoint's;
 * the rest stays, what the UP chose included. A new F-TEID CHOOSE or UE
 * address CHOOSE is chosen again.
 */
static int
te_update(const struct pa_agent *a, struct upf_pdr_conf *d, const struct pfcp_pdr *u,
	  struct pfcp_err *e)
{
	const struct upf_pdr_conf old = *d;
	struct pfcp_pdr m;

	memset(&m, 0, sizeof(m));
	m.c = old;
	if (u->present & PFCP_PDR_FTEID) {
		m.c.has_fteid = u->c.has_fteid;
		m.c.teid = u->c.teid;
		m.c.fteid4 = u->c.fteid4;
		m.c.fteid6 = u->c.fteid6;
		m.c.fteid_choose = u->c.fteid_choose;
		m.c.has_choose_id = u->c.has_choose_id;
		m.c.choose_id = u->c.choose_id;
	}
	if (u->present & PFCP_PDR_UE_IP) {
		m.c.ue4 = u->c.ue4;
		m.c.ue6 = u->c.ue6;
		m.c.ue6_dbits = u->c.ue6_dbits;
		m.c.ue_choose = u->c.ue_choose;
		m.n_pool_id = u->n_pool_id;
		memcpy(m.pool_id, u->pool_id, sizeof(m.pool_id));
	}
	if (u->present & PFCP_PDR_QFI) {
		m.c.has_qfi = u->c.has_qfi;
		m.c.qfi = u->c.qfi;
	}
	/* The Framed-Routes it carries replace the endpoint's. */
	if (u->present & PFCP_PDR_FRAMED) {
		m.c.n_framed = u->c.n_framed;
		memcpy(m.c.framed, u->c.framed, sizeof(m.c.framed));
	}
	/* Without a Network Instance IE a new UE address names its own. */
	if (u->present & PFCP_PDR_NI)
		memcpy(m.ni_name, u->ni_name, sizeof(m.ni_name));
	else if (!(u->present & PFCP_PDR_UE_IP) && old.ni < a->uc.n_ni)
		snprintf(m.ni_name, sizeof(m.ni_name), "%s", a->uc.ni[old.ni].name);
	if (pdr_set_pdi(a, d, &m, PFCP_RULE_NONE, e) != 0) {
		*d = old;
		return -1;
	}
	d->id = old.id;
	d->has_te = false;
	if (!(u->present & PFCP_PDR_UE_IP)) {
		d->ue_chosen = old.ue_chosen;
		memcpy(d->ue_pool, old.ue_pool, sizeof(d->ue_pool));
	}
	return 0;
}

/*
 * Every PDR that names a Traffic Endpoint gets its F-TEID, UE address,
 * network instance and (when the endpoint has one) QFI; one whose F-TEID
 * is still to be chosen marks the PDR for choose_teids().
 */
static int
te_resolve(struct pa_work *w, struct pfcp_err *e)
{
	unsigned int i;

	for (i = 0; i < w->c.n_pdr; i++) {
		struct upf_pdr_conf *p = &w->pdr[i];
		const struct upf_pdr_conf *t;
		int k;

		if (!p->has_te)
			continue;
		k = te_find(w, p->te_id);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_TRAFFIC_ENDPOINT_ID,
				       PFCP_RULE_PDR, p->id,
				       "PDR %u names Traffic Endpoint %u, which the session does "
				       "not have",
				       p->id, p->te_id);
		t = &w->te[k];
		p->has_fteid = t->has_fteid;
		p->teid = t->teid;
		p->fteid4 = t->fteid4;
		p->fteid6 = t->fteid6;
		p->fteid_choose = t->fteid_choose;
		p->has_choose_id = t->has_choose_id;
		p->choose_id = t->choose_id;
		p->ue4 = t->ue4;
		p->ue6 = t->ue6;
		p->ue6_dbits = t->ue6_dbits;
		p->ue_choose = t->ue_choose;
		p->ue_chosen = t->ue_chosen;
		memcpy(p->ue_pool, t->ue_pool, sizeof(p->ue_pool));
		p->ni = t->ni;
		if (t->has_qfi) {
			p->has_qfi = true;
			p->qfi = t->qfi;
		}
		p->n_framed = t->n_framed;
		memcpy(p->framed, t->framed, sizeof(p->framed));
		/* Its own PDI has no F-TEID (the codec refuses one): no bit was set. */
		if (t->fteid_choose && t->teid == 0)
			w->choose |= 1u << i;
	}
	return 0;
}

/*
 * After the choosing: what was chosen for an endpoint through its first
 * PDR goes into the endpoint and into a Created Traffic Endpoint. An
 * endpoint the UP chooses for must be named by a PDR, which holds what
 * was chosen; one named by none would hold a TEID or address no table
 * reserves.
 */
static int
te_created(struct pa_work *w, struct pfcp_created_pdr *out, unsigned int *n_out, struct pfcp_err *e)
{
	unsigned int k, i;

	for (k = 0; k < w->n_te; k++) {
		struct upf_pdr_conf *t = &w->te[k];
		const struct upf_pdr_conf *p = NULL;
		struct pfcp_created_pdr *o;
		bool teid_new;
		uint8_t ue_new;

		for (i = 0; i < w->c.n_pdr && p == NULL; i++)
			if (w->pdr[i].has_te && w->pdr[i].te_id == t->id)
				p = &w->pdr[i];
		if (p == NULL) {
			if (t->fteid_choose || t->ue_choose != 0)
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE,
					       PFCP_IE_TRAFFIC_ENDPOINT_ID, PFCP_RULE_NONE, 0,
					       "Traffic Endpoint %u: the UP chooses its F-TEID or UE "
					       "address, and no PDR names it to hold them",
					       t->id);
			continue;
		}
		teid_new = t->fteid_choose && t->teid == 0;
		ue_new = (uint8_t)(t->ue_choose & ~t->ue_chosen);
		if (!teid_new && ue_new == 0)
			continue;
		o = &out[(*n_out)++];
		memset(o, 0, sizeof(*o));
		o->te = true;
		o->pdr_id = t->id;
		if (teid_new) {
			t->teid = p->teid;
			t->fteid4 = p->fteid4;
			t->fteid6 = p->fteid6;
			o->teid = t->teid;
			o->v4 = t->fteid4;
			o->v6 = t->fteid6;
		}
		if (ue_new != 0) {
			t->ue4 = p->ue4;
			t->ue6 = p->ue6;
			t->ue_chosen = p->ue_chosen;
			t->ni = p->ni;
			if (ue_new & UPF_UE_CHOOSE4)
				o->ue4 = t->ue4;
			if (ue_new & UPF_UE_CHOOSE6) {
				o->ue6 = t->ue6;
				o->ue6_dbits = t->ue6_dbits;
			}
		}
	}
	return 0;
}

static void
ust_init(const struct pa_agent *a, struct pa_urr_st *st, uint32_t ntp)
{
	memset(st, 0, sizeof(*st));
	st->start_ms = a->now_ms;
	st->tq_start_ms = a->now_ms;
	st->start_ntp = ntp;
	st->seen_ms = a->now_ms;
	st->qv_start_ms = a->now_ms;
}

/*
 * Remove, Update and Create BAR, in that order. A session has one BAR;
 * Update and Remove name it (Cause 73 otherwise), Create needs none.
 */
static int
apply_bar(struct pa_work *w, const struct pfcp_msg *m, struct pfcp_err *e)
{
	if (m->present & PFCP_M_REMOVE_BAR) {
		if (!w->bar.on || w->bar.id != m->remove_bar)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_BAR,
				       PFCP_RULE_BAR, m->remove_bar, "Remove BAR %u: no such BAR",
				       m->remove_bar);
		memset(&w->bar, 0, sizeof(w->bar));
	}
	if (m->present & PFCP_M_UPDATE_BAR) {
		const struct pfcp_bar *u = &m->update_bar;

		if (!w->bar.on || w->bar.id != u->id)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_BAR_SMR,
				       PFCP_RULE_BAR, u->id, "Update BAR %u: no such BAR", u->id);
		if (u->has_count) {
			w->bar.has_count = true;
			w->bar.count = u->count;
		}
		if (u->has_ddn_delay)
			w->bar.ddn_delay = u->ddn_delay;
	}
	if (m->present & PFCP_M_CREATE_BAR) {
		const struct pfcp_bar *c = &m->create_bar;

		if (w->bar.on)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_BAR,
				       PFCP_RULE_BAR, c->id,
				       "Create BAR %u: the session has BAR %u (one at most)", c->id,
				       w->bar.id);
		w->bar.on = true;
		w->bar.id = c->id;
		w->bar.has_count = c->has_count;
		w->bar.count = c->count;
		w->bar.ddn_delay = c->has_ddn_delay ? c->ddn_delay : 0;
	}
	return 0;
}

/* Create PDR / FAR / QER / URR: appended; an id the session has is a failure. */
static int
apply_creates(struct pa_agent *a, struct pa_work *w, const struct pfcp_msg *m, uint32_t ntp,
	      struct pfcp_err *e)
{
	unsigned int i;

	for (i = 0; i < m->n_create_te; i++) {
		const struct pfcp_pdr *t = &m->create_te[i];

		if (te_find(w, t->c.te_id) >= 0 || w->n_te >= PFCP_MAX_TE)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_TRAFFIC_ENDPOINT,
				       PFCP_RULE_NONE, 0, "Traffic Endpoint %u: %s", t->c.te_id,
				       w->n_te >= PFCP_MAX_TE ? "too many Traffic Endpoints"
							      : "id in use");
		if (te_create(a, &w->te[w->n_te], t, e) != 0)
			return -1;
		w->n_te++;
	}
	for (i = 0; i < m->n_create_far; i++) {
		const struct pfcp_far *f = &m->create_far[i];

		if (f->present & PFCP_FAR_DUPL)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_DUPLICATING_PARAMS,
				       PFCP_RULE_FAR, f->c.id,
				       "FAR %u: duplicating parameters are not supported", f->c.id);
		if (far_find(w, f->c.id) >= 0 || w->c.n_far >= UPF_MAX_FAR)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_FAR,
				       PFCP_RULE_FAR, f->c.id, "FAR %u: %s", f->c.id,
				       w->c.n_far >= UPF_MAX_FAR ? "too many FARs" : "id in use");
		w->far[w->c.n_far] = f->c;
		if (far_set_ni(a, &w->far[w->c.n_far], f, e) != 0)
			return -1;
		w->c.n_far++;
	}
	for (i = 0; i < m->n_create_qer; i++) {
		const struct pfcp_qer *q = &m->create_qer[i];

		if (qer_find(w, q->c.id) >= 0 || w->c.n_qer >= UPF_MAX_QER)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_QER,
				       PFCP_RULE_QER, q->c.id, "QER %u: %s", q->c.id,
				       w->c.n_qer >= UPF_MAX_QER ? "too many QERs" : "id in use");
		w->qer[w->c.n_qer++] = q->c;
	}
	for (i = 0; i < m->n_create_urr; i++) {
		const struct pfcp_urr *u = &m->create_urr[i];
		unsigned int k = w->c.n_urr;

		if (urr_index(&w->c, u->c.id) >= 0 || k >= UPF_MAX_URR)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_URR,
				       PFCP_RULE_URR, u->c.id, "URR %u: %s", u->c.id,
				       k >= UPF_MAX_URR ? "too many URRs" : "id in use");
		w->urr[k] = u->c;
		ust_init(a, &w->ust[k], ntp);
		w->urr_new[k] = true;
		w->c.n_urr++;
	}
	for (i = 0; i < m->n_create_pdr; i++) {
		const struct pfcp_pdr *p = &m->create_pdr[i];
		unsigned int k = w->c.n_pdr;

		if (pdr_find(w, p->c.id) >= 0 || k >= UPF_MAX_PDR)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_PDR,
				       PFCP_RULE_PDR, p->c.id, "PDR %u: %s", p->c.id,
				       k >= UPF_MAX_PDR ? "too many PDRs" : "id in use");
		w->pdr[k] = p->c;
		if (pdr_set_pdi(a, &w->pdr[k], p, PFCP_RULE_PDR, e) != 0)
			return -1;
		if (w->pdr[k].fteid_choose)
			w->choose |= 1u << k;
		w->c.n_pdr++;
	}
	return 0;
}

#define REMOVE_AT(arr, n, k) memmove(&(arr)[k], &(arr)[(k) + 1], ((n) - (k)-1) * sizeof((arr)[0]))

/*
 * A removed QER or URR leaves the PDRs that named it (a FAR does not: a PDR
 * needs one, so removing a FAR still in use fails validation).
 */
/* Drop id from the list ids[0..*cnt). */
static void
ids_drop(uint32_t *ids, uint8_t *cnt, uint32_t id)
{
	unsigned int j, n;

	for (j = n = 0; j < *cnt; j++)
		if (ids[j] != id)
			ids[n++] = ids[j];
	*cnt = (uint8_t)n;
}

static void
pdrs_forget(struct pa_work *w, uint32_t id, bool urr)
{
	unsigned int i;

	for (i = 0; i < w->c.n_pdr; i++) {
		struct upf_pdr_conf *p = &w->pdr[i];

		if (urr)
			ids_drop(p->urr_id, &p->n_urr, id);
		else
			ids_drop(p->qer_id, &p->n_qer, id);
	}
}

/* A removed URR is no longer one the others link their reports to. */
static void
urrs_unlink(struct pa_work *w, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < w->c.n_urr; i++)
		ids_drop(w->urr[i].linked, &w->urr[i].n_linked, id);
}

/* Remove PDR / FAR / QER / URR; a removed URR's last usage goes into rep (TERMR). */
static int
apply_removes(struct pa_agent *a, struct pa_work *w, const struct pfcp_msg *m, uint32_t ntp,
	      struct pfcp_usage_report *rep, unsigned int *n_rep, struct pfcp_err *e)
{
	unsigned int i;
	int k;

	for (i = 0; i < m->n_remove_pdr; i++) {
		k = pdr_find(w, m->remove_pdr[i]);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_PDR,
				       PFCP_RULE_PDR, m->remove_pdr[i],
				       "Remove PDR %u: no such PDR", m->remove_pdr[i]);
		REMOVE_AT(w->pdr, w->c.n_pdr, k);
		w->c.n_pdr--;
	}
	/* A PDR still naming a removed endpoint fails te_resolve(). */
	for (i = 0; i < m->n_remove_te; i++) {
		k = te_find(w, m->remove_te[i]);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_TRAFFIC_ENDPOINT,
				       PFCP_RULE_NONE, 0,
				       "Remove Traffic Endpoint %u: no such Traffic Endpoint",
				       m->remove_te[i]);
		REMOVE_AT(w->te, w->n_te, k);
		w->n_te--;
	}
	for (i = 0; i < m->n_remove_far; i++) {
		k = far_find(w, m->remove_far[i]);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_FAR,
				       PFCP_RULE_FAR, m->remove_far[i],
				       "Remove FAR %u: no such FAR", m->remove_far[i]);
		REMOVE_AT(w->far, w->c.n_far, k);
		w->c.n_far--;
	}
	for (i = 0; i < m->n_remove_qer; i++) {
		k = qer_find(w, m->remove_qer[i]);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_QER,
				       PFCP_RULE_QER, m->remove_qer[i],
				       "Remove QER %u: no such QER", m->remove_qer[i]);
		REMOVE_AT(w->qer, w->c.n_qer, k);
		w->c.n_qer--;
		pdrs_forget(w, m->remove_qer[i], false);
	}
	for (i = 0; i < m->n_remove_urr; i++) {
		struct upf_usage u;

		k = urr_index(&w->c, m->remove_urr[i]);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_URR,
				       PFCP_RULE_URR, m->remove_urr[i],
				       "Remove URR %u: no such URR", m->remove_urr[i]);
		usage_read(a, w->c.up_seid, w->urr[k].id, &u);
		usage_report(a, w->c.up_seid, &w->urr[k], &w->ust[k], &u, PFCP_URT_TERMR, ntp,
			     &rep[(*n_rep)++]);
		REMOVE_AT(w->urr, w->c.n_urr, k);
		REMOVE_AT(w->ust, w->c.n_urr, k);
		REMOVE_AT(w->urr_new, w->c.n_urr, k);
		w->c.n_urr--;
		pdrs_forget(w, m->remove_urr[i], true);
		urrs_unlink(w, m->remove_urr[i]);
	}
	return 0;
}

/* Update PDR / FAR / QER / URR: what the IE carries replaces what the rule had. */
static int
apply_updates(struct pa_agent *a, struct pa_work *w, const struct pfcp_msg *m, bool *release,
	      bool *far_updated, struct pfcp_err *e)
{
	unsigned int i;
	int k;

	for (i = 0; i < m->n_update_te; i++) {
		const struct pfcp_pdr *t = &m->update_te[i];

		k = te_find(w, t->c.te_id);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_TRAFFIC_ENDPOINT,
				       PFCP_RULE_NONE, 0,
				       "Update Traffic Endpoint %u: no such Traffic Endpoint",
				       t->c.te_id);
		if (te_update(a, &w->te[k], t, e) != 0)
			return -1;
	}
	for (i = 0; i < m->n_update_pdr; i++) {
		const struct pfcp_pdr *p = &m->update_pdr[i];
		struct upf_pdr_conf *d;

		k = pdr_find(w, p->c.id);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_PDR,
				       PFCP_RULE_PDR, p->c.id, "Update PDR %u: no such PDR",
				       p->c.id);
		d = &w->pdr[k];
		if (p->present & PFCP_PDR_PRECEDENCE)
			d->precedence = p->c.precedence;
		if (p->present & PFCP_PDR_PDI) {
			if (pdr_set_pdi(a, d, p, PFCP_RULE_PDR, e) != 0)
				return -1;
			if (d->fteid_choose)
				w->choose |= 1u << k;
		}
		if (p->present & PFCP_PDR_OHR)
			d->outer_hdr_removal = p->c.outer_hdr_removal;
		if (p->present & PFCP_PDR_FAR_ID) {
			d->has_far = p->c.has_far;
			d->far_id = p->c.far_id;
		}
		if (p->present & PFCP_PDR_QER_ID) {
			d->n_qer = p->c.n_qer;
			memcpy(d->qer_id, p->c.qer_id, sizeof(d->qer_id));
		}
		if (p->present & PFCP_PDR_URR_ID) {
			d->n_urr = p->c.n_urr;
			memcpy(d->urr_id, p->c.urr_id, sizeof(d->urr_id));
		}
	}
	for (i = 0; i < m->n_update_far; i++) {
		const struct pfcp_far *f = &m->update_far[i];
		struct upf_far_conf *d;
		uint8_t old;

		k = far_find(w, f->c.id);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_FAR,
				       PFCP_RULE_FAR, f->c.id, "Update FAR %u: no such FAR",
				       f->c.id);
		if (f->present & PFCP_FAR_DUPL)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE,
				       PFCP_IE_UPDATE_DUPLICATING_PARAMS, PFCP_RULE_FAR, f->c.id,
				       "FAR %u: duplicating parameters are not supported", f->c.id);
		d = &w->far[k];
		old = d->apply;
		if (f->present & PFCP_FAR_APPLY)
			d->apply = f->c.apply;
		if (f->present & PFCP_FAR_DST_IFACE)
			d->dst_iface = f->c.dst_iface;
		if ((f->present & PFCP_FAR_NI) && far_set_ni(a, d, f, e) != 0)
			return -1;
		if (f->present & PFCP_FAR_OHC) {
			d->ohc = f->c.ohc;
			d->ohc_teid = f->c.ohc_teid;
			d->ohc_peer = f->c.ohc_peer;
		}
		*far_updated = true;
		if ((old & UPF_FAR_BUFF) && !(d->apply & UPF_FAR_BUFF))
			*release = true;
	}
	for (i = 0; i < m->n_update_qer; i++) {
		const struct pfcp_qer *q = &m->update_qer[i];
		struct upf_qer_conf *d;

		k = qer_find(w, q->c.id);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_QER,
				       PFCP_RULE_QER, q->c.id, "Update QER %u: no such QER",
				       q->c.id);
		d = &w->qer[k];
		if (q->present & PFCP_QER_GATE) {
			d->gate_ul_closed = q->c.gate_ul_closed;
			d->gate_dl_closed = q->c.gate_dl_closed;
		}
		if (q->present & PFCP_QER_MBR) {
			d->mbr_ul = q->c.mbr_ul;
			d->mbr_dl = q->c.mbr_dl;
		}
		if (q->present & PFCP_QER_GBR) {
			d->gbr_ul = q->c.gbr_ul;
			d->gbr_dl = q->c.gbr_dl;
		}
		if (q->present & PFCP_QER_QFI) {
			d->has_qfi = q->c.has_qfi;
			d->qfi = q->c.qfi;
		}
	}
	for (i = 0; i < m->n_update_urr; i++) {
		const struct pfcp_urr *u = &m->update_urr[i];
		struct upf_urr_conf *d;

		k = urr_index(&w->c, u->c.id);
		if (k < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_URR,
				       PFCP_RULE_URR, u->c.id, "Update URR %u: no such URR",
				       u->c.id);
		d = &w->urr[k];
		if (u->present & PFCP_URR_METHOD)
			d->method = u->c.method;
		if ((u->present & PFCP_URR_TRIGGERS) && d->triggers != u->c.triggers) {
			/* A START newly asked for is the start from now on. */
			if ((u->c.triggers & ~d->triggers & UPF_RT_START) != 0) {
				struct upf_usage now_u;

				usage_read(a, w->c.up_seid, d->id, &now_u);
				w->ust[k].start_pkts = now_u.pkts[0] + now_u.pkts[1];
				w->ust[k].start_done = false;
			}
			d->triggers = u->c.triggers;
			w->urr_new[k] = true;
		}
		if ((u->present & PFCP_URR_PERIOD) && d->period_s != u->c.period_s) {
			d->period_s = u->c.period_s;
			w->urr_new[k] = true;
		}
		if (u->present & PFCP_URR_VOL_THRESH) {
			d->has_vol_thresh = u->c.has_vol_thresh;
			d->vol_thresh = u->c.vol_thresh;
		}
		if (u->present & PFCP_URR_VOL_QUOTA) {
			/* A new quota counts from now. */
			d->has_vol_quota = u->c.has_vol_quota;
			d->vol_quota = u->c.vol_quota;
			usage_read(a, w->c.up_seid, d->id, &w->ust[k].qbase);
			w->ust[k].exhausted = false;
		}
		if (u->present & PFCP_URR_TIME_THRESH) {
			d->has_time_thresh = u->c.has_time_thresh;
			d->time_thresh_s = u->c.time_thresh_s;
		}
		if (u->present & PFCP_URR_LINKED) {
			d->n_linked = u->c.n_linked;
			memcpy(d->linked, u->c.linked, sizeof(d->linked));
		}
		if (u->present & PFCP_URR_QVT) {
			/* A new validity time runs from now. */
			d->has_qvt = u->c.has_qvt;
			d->qvt_s = u->c.qvt_s;
			w->ust[k].qv_start_ms = a->now_ms;
			w->ust[k].qv_reported = false;
		}
		if (u->present & PFCP_URR_DROTH) {
			/* A new threshold counts the drops from now. */
			d->droth_flags = u->c.droth_flags;
			d->droth_pkts = u->c.droth_pkts;
			d->droth_bytes = u->c.droth_bytes;
			w->ust[k].drop_pkts = 0;
			w->ust[k].drop_bytes = 0;
		}
		if (u->present & PFCP_URR_QHT) {
			/* The holding time counts from now. */
			d->has_qht = u->c.has_qht;
			d->qht_s = u->c.qht_s;
			w->ust[k].seen_ms = a->now_ms;
			w->ust[k].idle_reported = false;
		}
		if (u->present & PFCP_URR_TIME_QUOTA) {
			/* A new time quota runs from now. */
			d->has_time_quota = u->c.has_time_quota;
			d->time_quota_s = u->c.time_quota_s;
			w->ust[k].tq_start_ms = a->now_ms;
			w->ust[k].tq_exhausted = false;
		}
	}
	return 0;
}

/* What the store's datapath cannot do, or a rule that names what is not there. */
/*
 * The framed routes of the core side's PDRs. The downlink reaches the UE
 * table only for addresses in an instance's ue_pool (tables.c routes those
 * to it), so a route outside them would never see a packet: refused, not
 * accepted and black-holed. Inside an allocating pool a route would share
 * addresses with what CHOOSE hands to other sessions: refused too. At
 * most UPF_MAX_SESS_FRAMED distinct routes per session (its UE table keys).
 */
static int
framed_check(const struct pa_agent *a, const struct pa_work *w, struct pfcp_err *e)
{
	struct upf_prefix seen[UPF_MAX_SESS_FRAMED];
	unsigned int i, j, k, n_seen = 0;

	for (i = 0; i < w->c.n_pdr; i++) {
		const struct upf_pdr_conf *p = &w->pdr[i];
		const unsigned int ni = p->ni == UPF_NI_NONE ? 0 : p->ni;

		if (p->src_iface != UPF_IF_CORE && p->src_iface != UPF_IF_SGI_LAN)
			continue;
		for (j = 0; j < p->n_framed; j++) {
			const struct upf_prefix *f = &p->framed[j];
			const uint16_t ie =
				f->af == 4 ? PFCP_IE_FRAMED_ROUTE : PFCP_IE_FRAMED_IPV6_ROUTE;
			char b[INET6_ADDRSTRLEN], kb[80];
			bool routed = false;
			int x;

			for (k = 0; ni < a->uc.n_ni && k < a->uc.ni[ni].n_pools; k++) {
				const struct lf_upf_prefix *pl = &a->uc.ni[ni].pool[k];

				routed |= pl->af == f->af && pl->plen <= f->plen &&
					prefix_has(pl->a, pl->plen, f->a);
			}
			x = routed ? alloc_overlap(a, ni, f->af, f->a, f->plen) : -1;
			if (!routed || x >= 0) {
				/* The text only for the refusal. */
				inet_ntop(f->af == 4 ? AF_INET : AF_INET6, f->a, b, sizeof(b));
				if (!routed)
					return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, ie,
						       PFCP_RULE_PDR, p->id,
						       "PDR %u: framed route %s/%u is outside the "
						       "ue_pool of network instance \"%s\": no downlink "
						       "packet would reach it",
						       p->id, b, f->plen,
						       ni < a->uc.n_ni ? a->uc.ni[ni].name
								       : "(none)");
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, ie, PFCP_RULE_PDR, p->id,
					       "PDR %u: framed route %s/%u overlaps %s of network "
					       "instance \"%s\", whose addresses CHOOSE hands out",
					       p->id, b, f->plen,
					       lf_upf_ni_alloc_key(&a->uc.ni[ni], (unsigned int)x,
								   kb, sizeof(kb)),
					       a->uc.ni[ni].name);
			}
			for (k = 0; k < n_seen && memcmp(&seen[k], f, sizeof(*f)) != 0; k++)
				;
			if (k < n_seen)
				continue;
			if (n_seen == UPF_MAX_SESS_FRAMED)
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, ie, PFCP_RULE_PDR, p->id,
					       "PDR %u: the session has more than %u framed routes",
					       p->id, UPF_MAX_SESS_FRAMED);
			seen[n_seen++] = *f;
		}
	}
	return 0;
}

static int
validate(const struct pa_agent *a, const struct pa_work *w, struct pfcp_err *e)
{
	const uint16_t ohc_ok = UPF_OHC_GTPU_UDP_IPV4 | UPF_OHC_GTPU_UDP_IPV6;
	unsigned int i, j;

	for (i = 0; i < w->c.n_far; i++) {
		const struct upf_far_conf *f = &w->far[i];
		unsigned int acts = !!(f->apply & UPF_FAR_DROP) + !!(f->apply & UPF_FAR_FORW) +
			!!(f->apply & UPF_FAR_BUFF);

		if (f->apply & UPF_FAR_DUPL)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_APPLY_ACTION,
				       PFCP_RULE_FAR, f->id,
				       "FAR %u: DUPL (duplicating) is not supported", f->id);
		if (acts > 1 || (acts == 0 && !(f->apply & UPF_FAR_NOCP)))
			return pa_fail(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_APPLY_ACTION,
				       PFCP_RULE_NONE, 0,
				       "FAR %u: Apply Action 0x%02x needs one of DROP, FORW, BUFF",
				       f->id, f->apply);
		if (!(f->apply & UPF_FAR_FORW))
			continue;
		if ((f->ohc & ~ohc_ok) != 0 || f->ohc == ohc_ok)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HEADER_CREATION,
				       PFCP_RULE_FAR, f->id,
				       "FAR %u: outer header creation 0x%04x is not supported",
				       f->id, f->ohc);
		if ((f->ohc == UPF_OHC_GTPU_UDP_IPV4 && f->ohc_peer.af != 4) ||
		    (f->ohc == UPF_OHC_GTPU_UDP_IPV6 && f->ohc_peer.af != 6))
			return pa_fail(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
				       PFCP_IE_OUTER_HEADER_CREATION, PFCP_RULE_NONE, 0,
				       "FAR %u: outer header creation without a peer address of its family",
				       f->id);
		if ((f->ohc == UPF_OHC_GTPU_UDP_IPV4 && !a->uc.has_n3_ipv4) ||
		    (f->ohc == UPF_OHC_GTPU_UDP_IPV6 && !a->uc.has_n3_ipv6))
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HEADER_CREATION,
				       PFCP_RULE_FAR, f->id,
				       "FAR %u: GTP-U over IPv%c and [upf] has no n3_ipv%c", f->id,
				       f->ohc == UPF_OHC_GTPU_UDP_IPV4 ? '4' : '6',
				       f->ohc == UPF_OHC_GTPU_UDP_IPV4 ? '4' : '6');
		if (f->ohc == 0 && f->dst_iface == UPF_IF_ACCESS)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				       PFCP_IE_OUTER_HEADER_CREATION, PFCP_RULE_NONE, 0,
				       "FAR %u forwards to the access side without outer header creation",
				       f->id);
	}
	for (i = 0; i < w->c.n_qer; i++)
		if (w->qer[i].has_qfi && w->qer[i].qfi > 63)
			return pa_fail(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_QFI,
				       PFCP_RULE_NONE, 0, "QER %u: QFI %u", w->qer[i].id,
				       w->qer[i].qfi);
	for (i = 0; i < w->c.n_urr; i++) {
		const struct upf_urr_conf *u = &w->urr[i];

		if ((u->triggers & UPF_RT_PERIO) && u->period_s == 0)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				       PFCP_IE_MEASUREMENT_PERIOD, PFCP_RULE_NONE, 0,
				       "URR %u: PERIO without a measurement period", u->id);
		if ((u->triggers & UPF_RT_VOLTH) && !u->has_vol_thresh)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				       PFCP_IE_VOLUME_THRESHOLD, PFCP_RULE_NONE, 0,
				       "URR %u: VOLTH without a volume threshold", u->id);
		if ((u->triggers & UPF_RT_VOLQU) && !u->has_vol_quota)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_VOLUME_QUOTA,
				       PFCP_RULE_NONE, 0, "URR %u: VOLQU without a volume quota",
				       u->id);
		if ((u->triggers & UPF_RT_TIMQU) && !u->has_time_quota)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_TIME_QUOTA,
				       PFCP_RULE_NONE, 0, "URR %u: TIMQU without a time quota",
				       u->id);
		if ((u->triggers & UPF_RT_TIMTH) && !u->has_time_thresh)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_TIME_THRESHOLD,
				       PFCP_RULE_NONE, 0, "URR %u: TIMTH without a time threshold",
				       u->id);
		for (j = 0; j < u->n_linked; j++)
			if (u->linked[j] == u->id || urr_index(&w->c, u->linked[j]) < 0)
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_LINKED_URR_ID,
					       PFCP_RULE_URR, u->id,
					       "URR %u: Linked URR ID %u is %s", u->id,
					       u->linked[j],
					       u->linked[j] == u->id ? "itself"
								     : "not the session's");
		if ((u->triggers & UPF_RT_QUVTI) && !u->has_qvt)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				       PFCP_IE_QUOTA_VALIDITY_TIME, PFCP_RULE_NONE, 0,
				       "URR %u: QUVTI without a quota validity time", u->id);
		if ((u->triggers & UPF_RT_QUHTI) && !u->has_qht)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				       PFCP_IE_QUOTA_HOLDING_TIME, PFCP_RULE_NONE, 0,
				       "URR %u: QUHTI without a quota holding time", u->id);
		if ((u->triggers & UPF_RT_DROTH) && u->droth_flags == 0)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
				       PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD, PFCP_RULE_NONE, 0,
				       "URR %u: DROTH without a dropped DL traffic threshold",
				       u->id);
	}
	for (i = 0; i < w->c.n_pdr; i++) {
		const struct upf_pdr_conf *p = &w->pdr[i];

		if (p->src_iface != UPF_IF_ACCESS && p->src_iface != UPF_IF_CORE &&
		    p->src_iface != UPF_IF_SGI_LAN)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SOURCE_INTERFACE,
				       PFCP_RULE_PDR, p->id,
				       "PDR %u: source interface %u is not supported", p->id,
				       p->src_iface);
		if (!p->has_far)
			return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_FAR_ID,
				       PFCP_RULE_NONE, 0, "PDR %u has no FAR ID", p->id);
		if (far_find(w, p->far_id) < 0)
			return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_FAR_ID, PFCP_RULE_PDR,
				       p->id,
				       "PDR %u names FAR %u, which the session does not have",
				       p->id, p->far_id);
		for (j = 0; j < p->n_qer; j++)
			if (qer_find(w, p->qer_id[j]) < 0)
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_QER_ID,
					       PFCP_RULE_PDR, p->id,
					       "PDR %u names QER %u, which the session does not have",
					       p->id, p->qer_id[j]);
		for (j = 0; j < p->n_urr; j++)
			if (urr_index(&w->c, p->urr_id[j]) < 0)
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_URR_ID,
					       PFCP_RULE_PDR, p->id,
					       "PDR %u names URR %u, which the session does not have",
					       p->id, p->urr_id[j]);
		if (p->has_qfi && p->qfi > 63)
			return pa_fail(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_QFI,
				       PFCP_RULE_NONE, 0, "PDR %u: QFI %u", p->id, p->qfi);
		if (p->has_fteid && !(w->choose & (1u << i)) && p->teid == 0)
			return pa_fail(e, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_F_TEID,
				       PFCP_RULE_NONE, 0, "PDR %u: F-TEID with TEID 0", p->id);
	}
	return framed_check(a, w, e);
}

/*
 * The PDR before pdr[i] that chooses the F-TEID of the Traffic Endpoint
 * pdr[i] names, in this request: they share it. -1 if none.
 */
static int
te_chooser(const struct pa_work *w, unsigned int i)
{
	unsigned int k;

	if (!w->pdr[i].has_te)
		return -1;
	for (k = 0; k < i; k++)
		if ((w->choose & (1u << k)) && w->pdr[k].has_te &&
		    w->pdr[k].te_id == w->pdr[i].te_id)
			return (int)k;
	return -1;
}

/*
 * F-TEID allocation by the UP (CHOOSE): a TEID per PDR, the same one for
 * PDRs of one request with the same CHOOSE ID, with our N3 address of each
 * family the CP asked for. Each goes into a Created PDR.
 */
static int
choose_teids(struct pa_agent *a, struct pa_work *w, struct pfcp_created_pdr *out,
	     unsigned int *n_out, struct pfcp_err *e)
{
	uint8_t seen_id[UPF_MAX_PDR];
	uint16_t seen_pdr[UPF_MAX_PDR];
	unsigned int i, j, n_seen = 0;
	int k;

	*n_out = 0;
	for (i = 0; i < w->c.n_pdr; i++) {
		struct upf_pdr_conf *p = &w->pdr[i];
		struct pfcp_created_pdr *o;
		bool want4, want6;

		if (!(w->choose & (1u << i)))
			continue;
		for (j = 0; j < n_seen && !(p->has_choose_id && seen_id[j] == p->choose_id); j++)
			;
		k = j < n_seen ? seen_pdr[j] : te_chooser(w, i);
		if (k >= 0) {
			const struct upf_pdr_conf *q = &w->pdr[k];

			p->teid = q->teid;
			p->fteid4 = q->fteid4;
			p->fteid6 = q->fteid6;
		} else {
			want4 = p->fteid4.af == 4;
			want6 = p->fteid6.af == 6;
			if (!want4 && !want6)
				want4 = want6 = true;
			want4 = want4 && a->uc.has_n3_ipv4;
			want6 = want6 && a->uc.has_n3_ipv6;
			if (!want4 && !want6)
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_F_TEID,
					       PFCP_RULE_PDR, p->id,
					       "PDR %u: CHOOSE for an address family [upf] has no N3 address of",
					       p->id);
			/* In the direct range of the TEID table (upf_teid.h): the
			 * uplink finds the session in one line. */
			p->teid = upf_teid_alloc(&a->st->teid);
			if (p->teid == 0)
				return pa_fail(e, PFCP_CAUSE_NO_RESOURCES, PFCP_IE_F_TEID,
					       PFCP_RULE_PDR, p->id, "PDR %u: CHOOSE: no free TEID",
					       p->id);
			memset(&p->fteid4, 0, sizeof(p->fteid4));
			memset(&p->fteid6, 0, sizeof(p->fteid6));
			if (want4) {
				p->fteid4.af = 4;
				memcpy(p->fteid4.a, a->uc.n3_ipv4, 4);
			}
			if (want6) {
				p->fteid6.af = 6;
				memcpy(p->fteid6.a, a->uc.n3_ipv6, 16);
			}
			a->n.teids_chosen++;
			if (p->has_choose_id) {
				seen_id[n_seen] = p->choose_id;
				seen_pdr[n_seen++] = (uint16_t)i;
			}
		}
		p->has_fteid = true;
		if (p->has_te)
			continue; /* A Created Traffic Endpoint says it (te_created). */
		o = &out[(*n_out)++];
		memset(o, 0, sizeof(*o));
		o->pdr_id = p->id;
		o->teid = p->teid;
		o->v4 = p->fteid4;
		o->v6 = p->fteid6;
	}
	return 0;
}

/* The Created PDR of PDR id in out[*n], added if it is not there yet. */
static struct pfcp_created_pdr *
created_of(struct pfcp_created_pdr *out, unsigned int *n, uint16_t id)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (out[i].pdr_id == id)
			return &out[i];
	memset(&out[*n], 0, sizeof(out[0]));
	out[*n].pdr_id = id;
	return &out[(*n)++];
}

struct ue_taken_ctx {
	const struct pa_agent *a;
	uint8_t ni, af;
	uint8_t dbits; /**< IPv6: the pool hands out /(64 - dbits)s. */
};

/*
 * Whether a session holds the address or prefix: a downlink PDR of any
 * session (the UE table), or a chosen one that only uplink PDRs name
 * (a->ue_held). Exact keys suffice: inside an allocating pool every UE
 * prefix is one of the pool's own length (pdr_set_pdi refuses others).
 */
static bool
ue_taken(void *arg, const uint8_t addr[16])
{
	const struct ue_taken_ctx *t = arg;
	struct upf_ue_key key;

	upf_ue_key_make(&key, t->ni, t->af, addr, t->dbits);
	return upf_ue_find(&t->a->st->ue, &key) != NULL ||
		(t->a->ue_held != NULL && rte_hash_lookup(t->a->ue_held, &key) >= 0);
}

/* Whether addr (upf_uepool_contains) is in one of instance ni's pools of family f. */
static bool
ni_alloc_contains(const struct pa_agent *a, unsigned int ni, unsigned int f, const uint8_t *addr)
{
	unsigned int j;

	for (j = 0; j < LF_UPF_POOLS_PER_NI; j++)
		if (upf_uepool_contains(&a->uepool[ni][j][f], addr))
			return true;
	return false;
}

/*
 * Append to k[0..n) (each once) the addresses p names that CHOOSE could
 * hand out: those the UP chose, and those the SMF gave from a ue_alloc
 * prefix of the PDR's network instance (others can never be chosen, so
 * they need no holding). Returns the new n.
 */
static unsigned int
pool_keys(const struct pa_agent *a, const struct upf_pdr_conf *p, struct upf_ue_key *k,
	  unsigned int n)
{
	unsigned int f, j;

	for (f = 0; f < 2; f++) {
		const struct upf_ip *ue = f == 0 ? &p->ue4 : &p->ue6;
		struct upf_ue_key key;

		if (ue->af != (f == 0 ? 4 : 6))
			continue;
		/* As the UE table keys a downlink PDR's address (upf_store.c). */
		upf_ue_key_make(&key, p->ni == UPF_NI_NONE ? 0 : p->ni, ue->af, ue->a,
				f == 0 ? 0 : p->ue6_dbits);
		if (!(p->ue_chosen & (f == 0 ? UPF_UE_CHOOSE4 : UPF_UE_CHOOSE6)) &&
		    (key.ni >= a->uc.n_ni || !ni_alloc_contains(a, key.ni, f, ue->a)))
			continue;
		for (j = 0; j < n && memcmp(&k[j], &key, sizeof(key)) != 0; j++)
			;
		if (j == n && n < PA_UE_HELD_PER_SESS)
			k[n++] = key;
	}
	return n;
}

/*
 * The pool addresses (pool_keys()) a session's PDRs name that none of its
 * downlink PDRs names, into k (PA_UE_HELD_PER_SESS): what a->ue_held must
 * hold for it. An address some downlink PDR names is in the UE table, as
 * the store keys it (upf_store.c: CORE and SGi-LAN PDRs).
 */
static unsigned int
ue_held_keys(const struct pa_agent *a, const struct upf_pdr_conf *pdr, unsigned int n_pdr,
	     struct upf_ue_key *k)
{
	struct upf_ue_key dl[PA_UE_HELD_PER_SESS];
	unsigned int i, j, n = 0, n_dl = 0, out = 0;

	for (i = 0; i < n_pdr; i++) {
		if (pdr[i].src_iface == UPF_IF_CORE || pdr[i].src_iface == UPF_IF_SGI_LAN)
			n_dl = pool_keys(a, &pdr[i], dl, n_dl);
		n = pool_keys(a, &pdr[i], k, n);
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n_dl && memcmp(&k[i], &dl[j], sizeof(k[i])) != 0; j++)
			;
		if (j == n_dl)
			k[out++] = k[i];
	}
	return out;
}

/* ue_held_keys() of a stored session (its PDRs packed). */
static unsigned int
sess_held_keys(const struct pa_agent *a, const struct pa_sess *s, struct upf_ue_key *k)
{
	struct upf_pdr_conf pdr[UPF_MAX_PDR];
	const uint8_t *p = s->pdr_packed;
	unsigned int i;

	for (i = 0; i < s->c.n_pdr && i < UPF_MAX_PDR; i++)
		p += pdr_unpack(&pdr[i], p);
	return ue_held_keys(a, pdr, i, k);
}

/* Whether k[0..n) has key. */
static bool
ue_key_in(const struct upf_ue_key *k, unsigned int n, const struct upf_ue_key *key)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (memcmp(&k[i], key, sizeof(*key)) == 0)
			return true;
	return false;
}

/*
 * Whether a->ue_held has room for w's keys, given that the session held
 * old[0..n_old) before: checked before the request is applied, so that
 * ue_held_set() after it cannot fail.
 */
static int
ue_held_room(const struct pa_agent *a, const struct pa_work *w, const struct upf_ue_key *old,
	     unsigned int n_old, struct pfcp_err *e)
{
	struct upf_ue_key k[PA_UE_HELD_PER_SESS];
	const unsigned int n = ue_held_keys(a, w->pdr, w->c.n_pdr, k);
	unsigned int i, add = 0;

	if (a->ue_held == NULL)
		return 0;
	for (i = 0; i < n; i++)
		add += !ue_key_in(old, n_old, &k[i]) && rte_hash_lookup(a->ue_held, &k[i]) < 0;
	if (add != 0 && (uint32_t)rte_hash_count(a->ue_held) + add > PA_UE_HELD_MAX)
		return pa_fail(e, PFCP_CAUSE_NO_RESOURCES, PFCP_IE_UE_IP_ADDRESS, PFCP_RULE_NONE, 0,
			       "%u ue_alloc addresses are held by uplink PDRs alone (at most %u)",
			       (unsigned int)rte_hash_count(a->ue_held), PA_UE_HELD_MAX);
	return 0;
}

/*
 * The session held old[0..n_old), now now[0..n_now): a->ue_held follows.
 * Each address counts the sessions that hold it (its data): the SMF may
 * name one it gave in the uplink PDRs of several.
 */
static void
ue_held_set(struct pa_agent *a, const struct upf_ue_key *old, unsigned int n_old,
	    const struct upf_ue_key *now, unsigned int n_now)
{
	unsigned int i;
	void *d;

	if (a->ue_held == NULL)
		return;
	for (i = 0; i < n_old; i++) {
		if (ue_key_in(now, n_now, &old[i]) ||
		    rte_hash_lookup_data(a->ue_held, &old[i], &d) < 0)
			continue;
		if ((uintptr_t)d > 1)
			(void)rte_hash_add_key_data(a->ue_held, &old[i],
						    (void *)((uintptr_t)d - 1));
		else
			(void)rte_hash_del_key(a->ue_held, &old[i]);
	}
	for (i = 0; i < n_now; i++) {
		if (ue_key_in(old, n_old, &now[i]))
			continue;
		if (rte_hash_lookup_data(a->ue_held, &now[i], &d) < 0)
			d = NULL;
		/* Room was checked (ue_held_room), and the table has an
		 * extendable bucket table, so this cannot fail. */
		(void)rte_hash_add_key_data(a->ue_held, &now[i], (void *)((uintptr_t)d + 1));
	}
}

/* The network instance a PDR's CHOOSE allocates in for family f (0: IPv4). */
static int
choose_ni(const struct pa_agent *a, const struct upf_pdr_conf *p, unsigned int f)
{
	unsigned int i;
	int found = -1;

	if (p->ni != UPF_NI_NONE)
		return p->ni;
	/* Without a Network Instance IE: the one instance that allocates
	 * (its ue_alloc: a pool naming none), if one. */
	for (i = 0; i < a->uc.n_ni; i++)
		if (a->uepool[i][0][f].total != 0) {
			if (found >= 0)
				return -1;
			found = (int)i;
		}
	return found;
}

/*
 * UE IP address allocation by the UP (CHV4 / CHV6, 29.244 5.21.3): one
 * address (IPv4) or /64 (IPv6) per family and network instance for the
 * session, shared by all its PDRs that ask, including PDRs of later
 * requests; from the instance's ue_alloc prefixes. Each PDR that asked
 * gets it in its Created PDR.
 */
static int
choose_ue(struct pa_agent *a, struct pa_work *w, struct pfcp_created_pdr *out, unsigned int *n_out,
	  struct pfcp_err *e)
{
	unsigned int i, j, f;

	for (i = 0; i < w->c.n_pdr; i++) {
		struct upf_pdr_conf *p = &w->pdr[i];
		const uint8_t want = (uint8_t)(p->ue_choose & ~p->ue_chosen);
		struct pfcp_created_pdr *o;

		if (want == 0)
			continue;
		for (f = 0; f < 2; f++) {
			const uint8_t bit = f == 0 ? UPF_UE_CHOOSE4 : UPF_UE_CHOOSE6;
			struct upf_ip *ue = f == 0 ? &p->ue4 : &p->ue6;
			struct upf_uepool *pool;
			struct ue_taken_ctx t;
			uint8_t addr[16];
			int ni;

			if (!(want & bit))
				continue;
			ni = choose_ni(a, p, f);
			if (ni < 0)
				return pa_fail(e, PFCP_CAUSE_CONDITIONAL_IE_MISSING,
					       PFCP_IE_NETWORK_INSTANCE, PFCP_RULE_NONE, 0,
					       "PDR %u: CHV%c without a Network Instance, and not "
					       "one instance allocates",
					       p->id, f == 0 ? '4' : '6');
			pool = &a->uepool[ni][p->ue_pool[f]][f];
			if (pool->total == 0)
				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS,
					       PFCP_RULE_PDR, p->id,
					       "PDR %u: CHV%c: network instance \"%s\" has no "
					       "IPv%c ue_alloc",
					       p->id, f == 0 ? '4' : '6', a->uc.ni[ni].name,
					       f == 0 ? '4' : '6');
			/* A pool of /56s hands out /56s only (CHV6 with IPv6D 8, or IP6PL 56). */
			if (f == 1 && pool->blen != 64 - p->ue6_dbits) {
				char kb[80];

				return pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS,
					       PFCP_RULE_PDR, p->id,
					       "PDR %u: CHV6 for a /%u: %s of network instance "
					       "\"%s\" hands out /%us",
					       p->id, 64 - p->ue6_dbits,
					       lf_upf_ni_alloc_key(&a->uc.ni[ni], p->ue_pool[f], kb,
								   sizeof(kb)),
					       a->uc.ni[ni].name, pool->blen);
			}
			p->ni = (uint8_t)ni;
			/* The session's own, if one of its PDRs has it already. */
			for (j = 0; j < w->c.n_pdr; j++) {
				const struct upf_pdr_conf *q = &w->pdr[j];

				if (j != i && (q->ue_chosen & bit) && q->ni == ni)
					break;
			}
			if (j < w->c.n_pdr) {
				if (f == 1 && w->pdr[j].ue6_dbits != p->ue6_dbits)
					return pa_fail(e, PFCP_CAUSE_RULE_FAILURE,
						       PFCP_IE_UE_IP_ADDRESS, PFCP_RULE_PDR, p->id,
						       "PDR %u: CHV6 for a /%u, but the session's "
						       "prefix in network instance \"%s\" is a /%u "
						       "(PDR %u)",
						       p->id, 64 - p->ue6_dbits, a->uc.ni[ni].name,
						       64 - w->pdr[j].ue6_dbits, w->pdr[j].id);
				*ue = f == 0 ? w->pdr[j].ue4 : w->pdr[j].ue6;
			} else {
				t.a = a;
				t.ni = (uint8_t)ni;
				t.af = f == 0 ? 4 : 6;
				t.dbits = f == 0 ? 0 : p->ue6_dbits;
				if (upf_uepool_alloc(pool, ue_taken, &t, 0, addr) != 0) {
					char kb[80];

					return pa_fail(e, PFCP_CAUSE_NO_RESOURCES,
						       PFCP_IE_UE_IP_ADDRESS, PFCP_RULE_NONE, 0,
						       "PDR %u: CHV%c: every address of \"%s\"'s "
						       "%s is in use",
						       p->id, f == 0 ? '4' : '6', a->uc.ni[ni].name,
						       lf_upf_ni_alloc_key(&a->uc.ni[ni],
									   p->ue_pool[f], kb,
									   sizeof(kb)));
				}
				memset(ue, 0, sizeof(*ue));
				ue->af = t.af;
				memcpy(ue->a, addr, 16);
				a->n.ue_ips_chosen++;
			}
			p->ue_chosen |= bit;
		}
		if (p->has_te)
			continue; /* A Created Traffic Endpoint says it (te_created). */
		o = created_of(out, n_out, p->id);
		if (want & UPF_UE_CHOOSE4)
			o->ue4 = p->ue4;
		if (want & UPF_UE_CHOOSE6) {
			o->ue6 = p->ue6;
			o->ue6_dbits = p->ue6_dbits;
		}
	}
	return 0;
}

/* Why the store refused: a TEID or UE address another session holds names its PDR. */
static void
store_fail(struct pa_agent *a, const struct pa_work *w, int rc, const char *msg, struct pfcp_err *e)
{
	unsigned int i, k;

	if (rc == -ENOSPC || rc == -ENOMEM) {
		pa_fail(e, PFCP_CAUSE_NO_RESOURCES, 0, PFCP_RULE_NONE, 0, "%s", msg);
		return;
	}
	for (i = 0; rc == -EEXIST && i < w->c.n_pdr; i++) {
		const struct upf_pdr_conf *p = &w->pdr[i];
		const struct upf_ip *ue[2] = { &p->ue4, &p->ue6 };
		void *d;

		if (p->has_fteid && (d = upf_teid_find(&a->st->teid, p->teid)) != NULL &&
		    ((const struct upf_sess_dp *)d)->up_seid != w->c.up_seid) {
			pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_F_TEID, PFCP_RULE_PDR, p->id,
				"PDR %u: TEID 0x%08x is another session's", p->id, p->teid);
			return;
		}
		for (k = 0; k < 2; k++) {
			struct upf_ue_key key;

			if (ue[k]->af != 4 && ue[k]->af != 6)
				continue;
			/* A delegated prefix is one key of its length (the store's). */
			upf_ue_key_make(&key, p->ni == UPF_NI_NONE ? 0 : p->ni, ue[k]->af, ue[k]->a,
					k == 1 ? p->ue6_dbits : 0);
			d = upf_ue_find(&a->st->ue, &key);
			if (d != NULL && ((const struct upf_sess_dp *)d)->up_seid != w->c.up_seid) {
				pa_fail(e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS,
					PFCP_RULE_PDR, p->id,
					"PDR %u: the UE %s is another session's", p->id,
					k == 1 && p->ue6_dbits != 0 ? "prefix" : "address");
				return;
			}
		}
	}
	pa_fail(e, PFCP_CAUSE_RULE_FAILURE, 0, PFCP_RULE_NONE, 0, "%s", msg);
}

/*
 * The UE table's prefix keys (upf_uetab.h): delegated prefixes and framed
 * routes. How many there are, and their lengths per family ("/56,/60";
 * "none"), each length one more probe for a downlink address that misses.
 */
static void
tel_prefix_lens(struct rte_tel_data *d, const char *name, const uint32_t *cnt, unsigned int width,
		uint64_t *n)
{
	char lens[4 * (UPF_UE_DBITS6_MAX + 1)];
	size_t o = 0;
	unsigned int b;

	lens[0] = '\0';
	for (b = 1; b <= width; b++) {
		if (cnt[b] == 0)
			continue;
		*n += cnt[b];
		o += (size_t)snprintf(lens + o, sizeof(lens) - o, "%s/%u", o != 0 ? "," : "",
				      width - b);
	}
	rte_tel_data_add_dict_string(d, name, o != 0 ? lens : "none");
}

static void
tel_prefixes(struct rte_tel_data *d, const struct upf_ue_tab *t)
{
	uint64_t n = 0;

	tel_prefix_lens(d, "ue_prefix_lengths6", t->n_dlen6, UPF_UE_DBITS6_MAX, &n);
	tel_prefix_lens(d, "ue_prefix_lengths4", t->n_dlen4, UPF_UE_DBITS4_MAX, &n);
	rte_tel_data_add_dict_u64(d, "ue_prefix_keys", n);
}

/* ---- Requests and their responses --------------------------------------- */

/* The request being handled. */
struct pa_req {
	const struct pa_addr *from;
	struct upf_ip ip;
	uint16_t port;
	struct pfcp_hdr h;
	uint32_t crc; /* Of the request's bytes, for the response cache. */
};

/* Send the response built in t, and keep it for a retransmission of the request. */
static void
reply_send(struct pa_agent *a, const struct pa_req *rq, struct pa_tx *t, int len, uint8_t cause)
{
	if (len < 0) {
		a->n.tx_errors++;
		PA_LOG(ERR, "response to %s seq %u does not fit in %u bytes",
		       pfcp_msg_name(rq->h.type), rq->h.seq, PA_TX_MAX);
		return;
	}
	if (cause != 0)
		a->n.causes[cause]++;
	cache_add(a, &rq->ip, rq->port, rq->h.type, rq->h.seq, rq->crc, t->buf, (uint16_t)len);
	tx_commit(a, t, rq->from, len);
}

static void
reply_vns(struct pa_agent *a, const struct pa_addr *to, uint32_t seq)
{
	struct pa_tx *t = tx_slot(a);
	struct pfcp_w w;
	int len;

	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	len = pfcp_build_version_not_supported(&w, seq);
	if (len < 0)
		a->n.tx_errors++;
	else
		tx_commit(a, t, to, len);
}

static void
reply_error(struct pa_agent *a, const struct pa_req *rq, uint64_t seid, const struct pfcp_err *e)
{
	const uint8_t type = rq->h.type;
	struct pa_tx *t;
	struct pfcp_w w;
	int len;

	PA_LOG(DEBUG, "%s seq %u: cause %u: %s", pfcp_msg_name(type), rq->h.seq, e->cause, e->why);
	if (type == PFCP_HEARTBEAT_REQ) {
		/* A Heartbeat Response has no Cause to say what was wrong. */
		a->n.malformed_dropped++;
		return;
	}
	t = tx_slot(a);
	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	switch (type) {
	case PFCP_ASSOC_SETUP_REQ:
		len = pfcp_build_assoc_setup_resp(&w, rq->h.seq, &a->node_id, e->cause,
						  a->recovery_ts, 0, 0, NULL, 0);
		break;
	case PFCP_PFD_MGMT_REQ:
	case PFCP_SESS_SET_DEL_REQ:
		pfcp_w_hdr_begin(&w, (uint8_t)(type + 1), false, 0, rq->h.seq);
		if (type == PFCP_SESS_SET_DEL_REQ)
			pfcp_w_node_id(&w, &a->node_id);
		pfcp_w_ie_u8(&w, PFCP_IE_CAUSE, e->cause);
		if (e->ie != 0)
			pfcp_w_ie_u16(&w, PFCP_IE_OFFENDING_IE, e->ie);
		len = pfcp_w_hdr_end(&w);
		break;
	default:
		len = pfcp_build_error_resp(&w, &rq->h, seid,
					    type == PFCP_SESS_EST_REQ ||
							    type == PFCP_ASSOC_UPDATE_REQ ||
							    type == PFCP_ASSOC_RELEASE_REQ
						    ? &a->node_id
						    : NULL,
					    e);
		break;
	}
	reply_send(a, rq, t, len, e->cause);
}

static void
reply_sess(struct pa_agent *a, const struct pa_req *rq, const struct pfcp_sess_resp *r)
{
	struct pa_tx *t = tx_slot(a);
	struct pfcp_w w;
	int len;

	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	if (rq->h.type == PFCP_SESS_EST_REQ)
		len = pfcp_build_sess_est_resp(&w, r);
	else if (rq->h.type == PFCP_SESS_MOD_REQ)
		len = pfcp_build_sess_mod_resp(&w, r);
	else
		len = pfcp_build_sess_del_resp(&w, r);
	reply_send(a, rq, t, len, r->cause);
}

static void
resp_init(struct pfcp_sess_resp *r, const struct pa_req *rq, struct pfcp_err *e)
{
	memset(r, 0, sizeof(*r));
	r->seq = rq->h.seq;
	r->failed_rule_type = PFCP_RULE_NONE;
	err_init(e);
	e->cause = PFCP_CAUSE_ACCEPTED;
}

static void
resp_err(struct pfcp_sess_resp *r, const struct pfcp_err *e)
{
	r->cause = e->cause;
	r->offending_ie = e->ie;
	r->failed_rule_type = e->rule_type;
	r->failed_rule_id = e->rule_id;
}

static void
on_heartbeat_req(struct pa_agent *a, const struct pa_req *rq, const struct pfcp_msg *m)
{
	int i = assoc_by_ip(a, &rq->ip);
	struct pa_tx *t;
	struct pfcp_w w;

	if (i >= 0 && (m->present & PFCP_M_RECOVERY))
		assoc_recovery(a, i, m->recovery_ts);
	t = tx_slot(a);
	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	reply_send(a, rq, t, pfcp_build_heartbeat_resp(&w, rq->h.seq, a->recovery_ts), 0);
}

static void
on_heartbeat_resp(struct pa_agent *a, const struct pfcp_msg *m)
{
	struct pa_pend *p = pend_take(a, m->h.seq, PA_REQ_HEARTBEAT);
	struct pa_assoc *as;

	if (p == NULL) {
		a->n.unexpected_resp++;
		return;
	}
	as = &a->assoc[p->assoc];
	if (!as->used)
		return;
	as->hb_missed = 0;
	as->hb_answered++;
	if (m->present & PFCP_M_RECOVERY)
		assoc_recovery(a, p->assoc, m->recovery_ts);
}

/* Octets of UP Function Features to send: through octet 7 once UEIP is set. */
static unsigned int
feat_octets(const struct pa_agent *a)
{
	return a->up_features > 0xffffff ? 4 : a->up_features > 0xffff ? 3 : 2;
}

static void
on_assoc_setup(struct pa_agent *a, const struct pa_req *rq, const struct pfcp_msg *m)
{
	struct pa_assoc *as;
	char nb[PFCP_FQDN_LEN], pb[64];
	uint8_t cause = PFCP_CAUSE_ACCEPTED;
	struct pa_tx *t;
	struct pfcp_w w;
	int i, j;

	i = assoc_by_node(a, &m->node_id);
	if (i < 0) {
		/* Another Node ID from the address of an association: the peer came back as someone else. */
		j = assoc_by_ip(a, &rq->ip);
		if (j >= 0)
			assoc_free(a, j);
		for (j = 0; j < PA_MAX_ASSOC && a->assoc[j].used; j++)
			;
		if (j == PA_MAX_ASSOC) {
			cause = PFCP_CAUSE_NO_RESOURCES;
			goto reply;
		}
		i = j;
		as = &a->assoc[i];
		memset(as, 0, sizeof(*as));
		as->used = true;
		as->node = m->node_id;
		as->head = PA_NONE;
		as->since = (uint64_t)time(NULL);
		a->n_assoc++;
		PA_LOG(INFO, "association with %s (%s) set up",
		       node_str(&m->node_id, nb, sizeof(nb)), addr_str(rq->from, pb, sizeof(pb)));
	}
	as = &a->assoc[i];
	if (m->present & PFCP_M_RECOVERY)
		assoc_recovery(a, i, m->recovery_ts);
	as->peer = *rq->from;
	as->ip = rq->ip;
	as->cp_features = m->cp_features;
	as->hb_due_ms = a->now_ms + (uint64_t)a->uc.heartbeat_s * 1000;
	as->hb_missed = 0;
	a->last_assoc = -1;
	a->n.assoc_setups++;
reply:
	t = tx_slot(a);
	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	reply_send(a, rq, t,
		   pfcp_build_assoc_setup_resp(&w, rq->h.seq, &a->node_id, cause, a->recovery_ts,
					       a->up_features,
					       cause == PFCP_CAUSE_ACCEPTED ? feat_octets(a) : 0,
					       a->pools, a->n_pools),
		   cause);
}

static void
on_assoc_update(struct pa_agent *a, const struct pa_req *rq, const struct pfcp_msg *m)
{
	int i = assoc_by_node(a, &m->node_id);
	uint8_t cause = PFCP_CAUSE_ACCEPTED;
	struct pa_tx *t;
	struct pfcp_w w;

	if (i < 0)
		cause = PFCP_CAUSE_NO_ASSOCIATION;
	else if (m->present & PFCP_M_CP_FEATURES)
		a->assoc[i].cp_features = m->cp_features;
	t = tx_slot(a);
	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	reply_send(a, rq, t,
		   pfcp_build_assoc_update_resp(&w, rq->h.seq, &a->node_id, cause, a->up_features,
						cause == PFCP_CAUSE_ACCEPTED ? feat_octets(a) : 0),
		   cause);
}

static void
on_assoc_release(struct pa_agent *a, const struct pa_req *rq, const struct pfcp_msg *m)
{
	int i = assoc_by_node(a, &m->node_id);
	uint8_t cause = PFCP_CAUSE_ACCEPTED;
	char nb[PFCP_FQDN_LEN];
	struct pa_tx *t;
	struct pfcp_w w;

	if (i < 0) {
		cause = PFCP_CAUSE_NO_ASSOCIATION;
	} else {
		PA_LOG(INFO, "association with %s released",
		       node_str(&a->assoc[i].node, nb, sizeof(nb)));
		assoc_free(a, i);
		a->last_assoc = -1;
		a->n.assoc_releases++;
	}
	t = tx_slot(a);
	pfcp_w_init(&w, t->buf, PA_TX_MAX);
	reply_send(a, rq, t, pfcp_build_assoc_release_resp(&w, rq->h.seq, &a->node_id, cause),
		   cause);
}

static void
on_sess_est(struct pa_agent *a, const struct pa_req *rq, const struct pfcp_msg *m)
{
	struct pfcp_created_pdr created[UPF_MAX_PDR + PFCP_MAX_TE];
	struct upf_ue_key held[PA_UE_HELD_PER_SESS];
	struct pa_work *w = &a->work;
	struct pa_sess *s = NULL;
	struct pfcp_sess_resp r;
	unsigned int n_created = 0;
	uint32_t idx = PA_NONE;
	struct pfcp_fseid up;
	struct pfcp_err e;
	char err[256];
	int as, rc;
	bool qd;

	resp_init(&r, rq, &e);
	r.node_id = &a->node_id;
	r.seid = (m->present & PFCP_M_CP_FSEID) ? m->cp_fseid.seid : 0;
	as = assoc_by_ip(a, &rq->ip);
	if (as < 0) {
		pa_fail(&e, PFCP_CAUSE_NO_ASSOCIATION, 0, PFCP_RULE_NONE, 0, "no association");
		goto reply;
	}
	if (!(m->present & PFCP_M_CP_FSEID)) {
		pa_fail(&e, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_F_SEID, PFCP_RULE_NONE, 0,
			"no CP F-SEID");
		goto reply;
	}
	idx = sess_idx_get(a);
	if (idx == PA_NONE) {
		pa_fail(&e, PFCP_CAUSE_NO_RESOURCES, 0, PFCP_RULE_NONE, 0,
			"max_sessions (%u) reached", a->max_sess);
		goto reply;
	}
	memset(&w->c, 0, sizeof(w->c));
	w->c.up_seid = sess_seid(a, idx);
	w->c.cp_seid = m->cp_fseid.seid;
	w->c.cp_ip = m->cp_fseid.v4.af != 0 ? m->cp_fseid.v4 : m->cp_fseid.v6;
	w->c.pdr = w->pdr;
	w->c.far = w->far;
	w->c.qer = w->qer;
	w->c.urr = w->urr;
	w->choose = 0;
	w->n_te = 0;
	memset(&w->bar, 0, sizeof(w->bar));
	if (apply_bar(w, m, &e) != 0 || apply_creates(a, w, m, ntp_now(), &e) != 0 ||
	    te_resolve(w, &e) != 0 || validate(a, w, &e) != 0 ||
	    choose_teids(a, w, created, &n_created, &e) != 0 ||
	    choose_ue(a, w, created, &n_created, &e) != 0 ||
	    te_created(w, created, &n_created, &e) != 0 || ue_held_room(a, w, NULL, 0, &e) != 0)
		goto reply;
	s = sess_alloc(a, w);
	if (s == NULL) {
		pa_fail(&e, PFCP_CAUSE_NO_RESOURCES, 0, PFCP_RULE_NONE, 0, "out of memory");
		goto reply;
	}
	rc = publish(a, w, w->ust, &qd, err, sizeof(err));
	if (rc != 0) {
		store_fail(a, w, rc, err, &e);
		goto reply;
	}
	s->idx = idx;
	s->assoc = (uint16_t)as;
	s->since = (uint64_t)time(NULL);
	s->quota_drop = qd;
	ue_held_set(a, NULL, 0, held, ue_held_keys(a, w->pdr, w->c.n_pdr, held));
	a->sess[idx] = s;
	a->n_sess++;
	a->sess_bytes += s->bytes;
	assoc_link(a, s);
	if (sess_needs_watch(&s->c, s->ust))
		watch_link(a, s);
	sess_arm(a, s, w->urr_new);
	memset(&up, 0, sizeof(up));
	up.seid = s->c.up_seid;
	up.v4 = a->up_fseid_addr.v4;
	up.v6 = a->up_fseid_addr.v6;
	r.up_fseid = &up;
	r.n_created = n_created;
	r.created = created;
	a->n.sess_established++;
	s = NULL;
	idx = PA_NONE;
reply:
	if (s != NULL)
		sess_mem_put(a, s, s->bytes);
	if (idx != PA_NONE)
		sess_idx_put(a, idx);
	if (e.cause != PFCP_CAUSE_ACCEPTED) {
		a->n.sess_rejected++;
		PA_LOG(DEBUG, "Session Establishment seq %u: cause %u: %s", rq->h.seq, e.cause,
		       e.why);
	}
	resp_err(&r, &e);
	reply_sess(a, rq, &r);
}

/* The session a Modification or Deletion names, or NULL with e set (72, 65). */
static struct pa_sess *
req_sess(struct pa_agent *a, const struct pa_req *rq, struct pfcp_sess_resp *r, struct pfcp_err *e)
{
	struct pa_sess *s = sess_find(a, rq->h.seid);
	int as = assoc_by_ip(a, &rq->ip);

	if (as < 0) {
		pa_fail(e, PFCP_CAUSE_NO_ASSOCIATION, 0, PFCP_RULE_NONE, 0, "no association");
		r->seid = s != NULL ? s->c.cp_seid : 0;
		return NULL;
	}
	if (s == NULL || s->assoc != as) {
		pa_fail(e, PFCP_CAUSE_SESSION_NOT_FOUND, 0, PFCP_RULE_NONE, 0,
			"no session 0x%" PRIx64, rq->h.seid);
		r->seid = 0;
		return NULL;
	}
	r->seid = s->c.cp_seid;
	return s;
}

static bool
sess_has_buff(const struct pa_sess *s)
{
	unsigned int k;

	for (k = 0; k < s->c.n_far; k++)
		if (s->c.far[k].apply & UPF_FAR_BUFF)
			return true;
	return false;
}

static void
on_sess_mod(struct pa_agent *a, const struct pa_req *rq, const struct pfcp_msg *m)
{
	struct upf_ue_key held_old[PA_UE_HELD_PER_SESS], held_new[PA_UE_HELD_PER_SESS];
	struct pfcp_created_pdr created[UPF_MAX_PDR + PFCP_MAX_TE];
	struct pfcp_usage_report rep[PA_MAX_REPORTS];
	unsigned int n_rep = 0, n_created = 0, n_held_old, i;
	struct pa_work *w = &a->work;
	bool release = false, far_updated = false, qd;
	struct pa_sess *s, *ns = NULL;
	struct pfcp_sess_resp r;
	struct pfcp_err e;
	uint32_t ntp = ntp_now();
	char err[256];
	int rc;

	resp_init(&r, rq, &e);
	s = req_sess(a, rq, &r, &e);
	if (s == NULL)
		goto reply;
	sess_unpack(s, w);
	n_held_old = ue_held_keys(a, w->pdr, w->c.n_pdr, held_old);
	if (m->present & PFCP_M_CP_FSEID) {
		w->c.cp_seid = m->cp_fseid.seid;
		w->c.cp_ip = m->cp_fseid.v4.af != 0 ? m->cp_fseid.v4 : m->cp_fseid.v6;
	}
	if (apply_bar(w, m, &e) != 0 || apply_removes(a, w, m, ntp, rep, &n_rep, &e) != 0 ||
	    apply_updates(a, w, m, &release, &far_updated, &e) != 0 ||
	    apply_creates(a, w, m, ntp, &e) != 0 || te_resolve(w, &e) != 0 ||
	    validate(a, w, &e) != 0 || choose_teids(a, w, created, &n_created, &e) != 0 ||
	    choose_ue(a, w, created, &n_created, &e) != 0 ||
	    te_created(w, created, &n_created, &e) != 0 ||
	    ue_held_room(a, w, held_old, n_held_old, &e) != 0)
		goto reply;
	if ((m->present & PFCP_M_SMREQ_FLAGS) && (m->smreq_flags & PFCP_SMREQ_QAURR)) {
		for (i = 0; i < w->c.n_urr; i++) {
			struct upf_usage u;

			usage_read(a, w->c.up_seid, w->urr[i].id, &u);
			usage_report(a, w->c.up_seid, &w->urr[i], &w->ust[i], &u, PFCP_URT_IMMER,
				     ntp, &rep[n_rep++]);
		}
	} else {
		for (i = 0; i < m->n_query_urr; i++) {
			int k = urr_index(&w->c, m->query_urr[i]);
			struct upf_usage u;

			if (k < 0) {
				pa_fail(&e, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_QUERY_URR,
					PFCP_RULE_URR, m->query_urr[i], "Query URR %u: no such URR",
					m->query_urr[i]);
				goto reply;
			}
			if (n_rep == PA_MAX_REPORTS)
				break;
			usage_read(a, w->c.up_seid, w->urr[k].id, &u);
			usage_report(a, w->c.up_seid, &w->urr[k], &w->ust[k], &u, PFCP_URT_IMMER,
				     ntp, &rep[n_rep++]);
		}
	}
	ns = sess_alloc(a, w);
	if (ns == NULL) {
		pa_fail(&e, PFCP_CAUSE_NO_RESOURCES, 0, PFCP_RULE_NONE, 0, "out of memory");
		goto reply;
	}
	rc = publish(a, w, w->ust, &qd, err, sizeof(err));
	if (rc != 0) {
		sess_mem_put(a, ns, ns->bytes);
		store_fail(a, w, rc, err, &e);
		goto reply;
	}
	ue_held_set(a, held_old, n_held_old, held_new,
		    ue_held_keys(a, w->pdr, w->c.n_pdr, held_new));
	/* The new allocation takes the old one's place in every list (they link by index). */
	ns->idx = s->idx;
	ns->assoc = s->assoc;
	ns->watched = s->watched;
	ns->dldr_sent = s->dldr_sent && !far_updated;
	/* A FAR changed before a delayed report was due: a new episode, no report. */
	ns->ddn_due = far_updated ? 0 : s->ddn_due;
	ns->quota_drop = qd;
	ns->a_prev = s->a_prev;
	ns->a_next = s->a_next;
	ns->w_prev = s->w_prev;
	ns->w_next = s->w_next;
	ns->n_timed = s->n_timed;
	ns->n_held = s->n_held;
	ns->held = s->held;
	ns->since = s->since;
	a->sess[s->idx] = ns;
	a->sess_bytes += ns->bytes;
	a->sess_bytes -= s->bytes;
	sess_mem_put(a, s, s->bytes);
	s = ns;
	if (sess_needs_watch(&s->c, s->ust) != s->watched) {
		if (s->watched)
			watch_unlink(a, s);
		else
			watch_link(a, s);
	}
	sess_arm(a, s, w->urr_new);
	if ((m->present & PFCP_M_SMREQ_FLAGS) && (m->smreq_flags & PFCP_SMREQ_DROBU))
		held_free(a, s);
	else if (release || !sess_has_buff(s))
		held_release(a, s);
	r.n_usage = n_rep;
	r.usage = rep;
	r.n_created = n_created;
	r.created = created;
	a->n.sess_modified++;
reply:
	if (e.cause != PFCP_CAUSE_ACCEPTED) {
		a->n.sess_rejected++;
		PA_LOG(DEBUG, "Session Modification seq %u: cause %u: %s", rq->h.seq, e.cause,
		       e.why);
	}
	resp_err(&r, &e);
	reply_sess(a, rq, &r);
}

static void
on_sess_del(struct pa_agent *a, const struct pa_req *rq)
{
	struct pfcp_usage_report rep[UPF_MAX_URR];
	struct pfcp_sess_resp r;
	struct pfcp_err e;
	struct pa_sess *s;
	unsigned int k;
	uint32_t ntp;

	resp_init(&r, rq, &e);
	s = req_sess(a, rq, &r, &e);
	if (s != NULL) {
		ntp = ntp_now();
		for (k = 0; k < s->c.n_urr; k++) {
			struct upf_usage u;

			usage_read(a, s->c.up_seid, s->c.urr[k].id, &u);
			usage_report(a, s->c.up_seid, &s->c.urr[k], &s->ust[k], &u, PFCP_URT_TERMR,
				     ntp, &rep[k]);
		}
		r.n_usage = s->c.n_urr;
		r.usage = rep;
		sess_delete(a, s);
		a->n.sess_deleted++;
	}
	resp_err(&r, &e);
	reply_sess(a, rq, &r);
}

static void
on_report_resp(struct pa_agent *a, const struct pfcp_msg *m)
{
	struct pa_pend *p = pend_take(a, m->h.seq, PA_REQ_REPORT);
	struct pa_sess *s;

	if (p == NULL) {
		a->n.unexpected_resp++;
		return;
	}
	a->n.report_resp_causes[m->cause]++;
	/* PFCPSRRsp-Flags DROBU: the CP wants the buffered packets dropped. */
	s = sess_find(a, p->seid);
	if (s != NULL && (m->present & PFCP_M_SRRSP_FLAGS) && (m->srrsp_flags & 0x01))
		held_free(a, s);
}

/* The header SEID of an error response: the CP's SEID where we know it. */
static uint64_t
err_seid(const struct pa_agent *a, const struct pa_req *rq, const struct pfcp_msg *m)
{
	const struct pa_sess *s;

	if (rq->h.type == PFCP_SESS_EST_REQ)
		return m != NULL && (m->present & PFCP_M_CP_FSEID) ? m->cp_fseid.seid : 0;
	if (rq->h.type != PFCP_SESS_MOD_REQ && rq->h.type != PFCP_SESS_DEL_REQ)
		return 0;
	s = sess_find(a, rq->h.seid);
	return s != NULL ? s->c.cp_seid : 0;
}

/* One message (of a datagram that may chain several with the FO flag). */
static void
handle_msg(struct pa_agent *a, struct pa_req *rq, const uint8_t *buf, size_t len)
{
	struct pfcp_msg *m = &a->msg;
	const struct pa_cache_ent *c;
	struct pfcp_err e;
	int rc;

	a->n.rx_msgs[rq->h.type]++;
	rq->crc = 0;
	if (is_request(rq->h.type)) {
		rq->crc = msg_crc(buf, len);
		c = cache_find(a, &rq->ip, rq->port, rq->h.type, rq->h.seq, rq->crc);
		if (c != NULL) {
			/* A retransmission: the same answer, nothing applied again. */
			struct pa_tx *t = tx_slot(a);

			memcpy(t->buf, c->len > PA_CACHE_INLINE ? c->heap : c->inl, c->len);
			tx_commit(a, t, rq->from, c->len);
			a->n.duplicates++;
			return;
		}
	}
	err_init(&e);
	rc = pfcp_decode(buf, len, m, &e);
	switch (rc) {
	case PFCP_DEC_OK:
		break;
	case PFCP_DEC_DROP:
		a->n.malformed_dropped++;
		return;
	case PFCP_DEC_VERSION:
		reply_vns(a, rq->from, rq->h.seq);
		return;
	case PFCP_DEC_UNKNOWN:
		if (rq->h.type == PFCP_PFD_MGMT_REQ || rq->h.type == PFCP_SESS_SET_DEL_REQ) {
			pa_fail(&e, PFCP_CAUSE_NOT_SUPPORTED, 0, PFCP_RULE_NONE, 0, "%s",
				"not supported");
			reply_error(a, rq, 0, &e);
		} else {
			a->n.unknown_dropped++;
		}
		return;
	default:
		if (!is_request(rq->h.type)) {
			a->n.malformed_dropped++;
			return;
		}
		reply_error(a, rq, err_seid(a, rq, m), &e);
		return;
	}
	switch (rq->h.type) {
	case PFCP_HEARTBEAT_REQ:
		on_heartbeat_req(a, rq, m);
		break;
	case PFCP_HEARTBEAT_RESP:
		on_heartbeat_resp(a, m);
		break;
	case PFCP_ASSOC_SETUP_REQ:
		on_assoc_setup(a, rq, m);
		break;
	case PFCP_ASSOC_UPDATE_REQ:
		on_assoc_update(a, rq, m);
		break;
	case PFCP_ASSOC_RELEASE_REQ:
		on_assoc_release(a, rq, m);
		break;
	case PFCP_SESS_EST_REQ:
		on_sess_est(a, rq, m);
		break;
	case PFCP_SESS_MOD_REQ:
		on_sess_mod(a, rq, m);
		break;
	case PFCP_SESS_DEL_REQ:
		on_sess_del(a, rq);
		break;
	case PFCP_SESS_REPORT_RESP:
		on_report_resp(a, m);
		break;
	default:
		a->n.unexpected_resp++; /* A response to a request we never send. */
		break;
	}
}

static void
handle_dgram(struct pa_agent *a, const struct pa_addr *from, const uint8_t *buf, size_t len)
{
	struct pa_req rq;
	size_t off = 0;
	unsigned int n;

	a->n.rx_datagrams++;
	a->n.rx_bytes += len;
	rq.from = from;
	addr_ip(from, &rq.ip, &rq.port);
	for (n = 0; n < 64 && off < len; n++) {
		struct pfcp_err e;
		int rc;

		err_init(&e);
		rc = pfcp_decode_header(buf + off, len - off, &rq.h, &e);
		if (rc == PFCP_DEC_DROP) {
			a->n.malformed_dropped++;
			return;
		}
		if (rc == PFCP_DEC_VERSION) {
			a->n.rx_msgs[rq.h.type]++;
			reply_vns(a, from, rq.h.seq);
			return;
		}
		if (rc != PFCP_DEC_OK) {
			a->n.rx_msgs[rq.h.type]++;
			if (!is_request(rq.h.type)) {
				a->n.malformed_dropped++;
				return;
			}
			rq.crc = msg_crc(buf + off, len - off);
			reply_error(a, &rq, err_seid(a, &rq, NULL), &e);
			return;
		}
		handle_msg(a, &rq, buf + off, rq.h.msg_len);
		if (!rq.h.fo)
			break;
		off += rq.h.msg_len;
	}
}

/* ---- The thread ------------------------------------------------------- */

/* One recvmmsg batch; @return the datagrams received. */
static int
rx_batch(struct pa_agent *a)
{
	struct mmsghdr mm[PA_RX_BATCH];
	struct iovec iov[PA_RX_BATCH];
	int i, n;

	for (i = 0; i < PA_RX_BATCH; i++) {
		iov[i].iov_base = a->rxbuf[i];
		iov[i].iov_len = PA_RX_MAX;
		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_name = &a->rxaddr[i].ss;
		mm[i].msg_hdr.msg_namelen = sizeof(a->rxaddr[i].ss);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	n = recvmmsg(a->fd, mm, PA_RX_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		a->rxaddr[i].len = mm[i].msg_hdr.msg_namelen;
		if (mm[i].msg_hdr.msg_flags & MSG_TRUNC) {
			a->n.malformed_dropped++;
			continue;
		}
		handle_dgram(a, &a->rxaddr[i], a->rxbuf[i], mm[i].msg_len);
	}
	return n;
}

static void *
pa_main(void *arg)
{
	struct pa_agent *a = arg;
	struct pollfd pfd = { .fd = a->fd, .events = POLLIN };

	while (!__atomic_load_n(&a->quit, __ATOMIC_ACQUIRE)) {
		unsigned int round;

		(void)poll(&pfd, 1, PA_POLL_MS);
		pthread_mutex_lock(&pa_lock);
		a->now_ms = mono_ms();
		for (round = 0; round < PA_RX_ROUNDS; round++) {
			if (rx_batch(a) < PA_RX_BATCH)
				break;
			/* Busy: answer this batch, and let a telemetry reader in between. */
			tx_flush(a);
			pthread_mutex_unlock(&pa_lock);
			pthread_mutex_lock(&pa_lock);
			a->now_ms = mono_ms();
		}
		drain_run(a);
		timers_run(a);
		scan_run(a);
		retx_run(a);
		heartbeats_run(a);
		tx_flush(a);
		upf_store_reclaim(a->st);
		pthread_mutex_unlock(&pa_lock);
	}
	return NULL;
}

/* ---- Telemetry ---------------------------------------------------------- */

static const char *const iface_names[] = { "access", "core", "sgi_lan", "cp", "li" };

static const char *
iface_name(uint8_t i)
{
	return i < RTE_DIM(iface_names) ? iface_names[i] : "unknown";
}

static void
tel_ip(struct rte_tel_data *d, const char *key, const struct upf_ip *ip)
{
	char b[INET6_ADDRSTRLEN];

	if (ip->af == 4 || ip->af == 6)
		rte_tel_data_add_dict_string(d, key, ip_str(ip, b, sizeof(b)));
}

static void
tel_hex(struct rte_tel_data *d, const char *key, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	rte_tel_data_add_dict_string(d, key, b);
}

/* A volume threshold or quota: key (total), key_ul, key_dl, those it sets. */
static void
tel_vol(struct rte_tel_data *d, const char *key, const struct upf_vol *v)
{
	char k[40];

	if (v->flags & UPF_VOL_TOTAL)
		rte_tel_data_add_dict_u64(d, key, v->total);
	snprintf(k, sizeof(k), "%s_ul", key);
	if (v->flags & UPF_VOL_UL)
		rte_tel_data_add_dict_u64(d, k, v->ul);
	snprintf(k, sizeof(k), "%s_dl", key);
	if (v->flags & UPF_VOL_DL)
		rte_tel_data_add_dict_u64(d, k, v->dl);
}

static const char *
apply_str(uint8_t apply, char *b, size_t len)
{
	static const char *const names[] = { "DROP", "FORW", "BUFF", "NOCP", "DUPL" };
	size_t o = 0;
	unsigned int i;

	b[0] = '\0';
	for (i = 0; i < RTE_DIM(names); i++)
		if (apply & (1u << i))
			o += (size_t)snprintf(b + o, len - o, "%s%s", o ? "|" : "", names[i]);
	return b;
}

static const char *
ids_str(const uint32_t *ids, unsigned int n, char *b, size_t len)
{
	size_t o = 0;
	unsigned int i;

	b[0] = '\0';
	for (i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(b + o, len - o, "%s%u", i ? "," : "", ids[i]);
	return b;
}

/* A container dict; NULL (and nothing added) when out of memory. */
static struct rte_tel_data *
tel_dict(void)
{
	struct rte_tel_data *d = rte_tel_data_alloc();

	if (d != NULL)
		rte_tel_data_start_dict(d);
	return d;
}

static void
tel_counts_dict(struct rte_tel_data *d, const char *key, const uint64_t *v, bool by_msg_name)
{
	struct rte_tel_data *c = tel_dict();
	char k[32];
	unsigned int i;

	if (c == NULL)
		return;
	for (i = 0; i < 256; i++) {
		if (v[i] == 0)
			continue;
		if (by_msg_name && strcmp(pfcp_msg_name((uint8_t)i), "unknown") != 0)
			snprintf(k, sizeof(k), "%s", pfcp_msg_name((uint8_t)i));
		else
			snprintf(k, sizeof(k), "%s_%u", by_msg_name ? "type" : "cause", i);
		rte_tel_data_add_dict_u64(c, k, v[i]);
	}
	rte_tel_data_add_dict_container(d, key, c, 0);
}

static void
tel_upf_locked(const struct pa_agent *a, struct rte_tel_data *d)
{
	const struct pa_counters *n = &a->n;
	struct upf_wk_stats sum;
	struct upf_store_counts sc;
	struct rte_tel_data *c;
	char b[PFCP_FQDN_LEN + 64];
	unsigned int i, w;

	rte_tel_data_start_dict(d);
	snprintf(b, sizeof(b), "%s:%u", a->uc.pfcp_addr, a->uc.pfcp_port);
	rte_tel_data_add_dict_string(d, "pfcp", b);
	rte_tel_data_add_dict_string(d, "node_id", node_str(&a->node_id, b, sizeof(b)));
	rte_tel_data_add_dict_u64(d, "recovery_time_stamp", a->recovery_ts);
	rte_tel_data_add_dict_u64(d, "uptime_s", (uint64_t)time(NULL) - a->started);
	tel_hex(d, "up_function_features", a->up_features);
	rte_tel_data_add_dict_u64(d, "associations", a->n_assoc);
	rte_tel_data_add_dict_u64(d, "sessions", a->n_sess);
	rte_tel_data_add_dict_u64(d, "max_sessions", a->max_sess);
	rte_tel_data_add_dict_u64(d, "agent_session_bytes", a->sess_bytes);
	upf_store_counts(a->st, &sc);
	rte_tel_data_add_dict_u64(d, "store_sessions", sc.sessions);
	rte_tel_data_add_dict_u64(d, "pdrs", sc.pdrs);
	rte_tel_data_add_dict_u64(d, "fars", sc.fars);
	rte_tel_data_add_dict_u64(d, "qers", sc.qers);
	rte_tel_data_add_dict_u64(d, "urrs", sc.urrs);
	rte_tel_data_add_dict_u64(d, "store_bytes", sc.bytes);
	rte_tel_data_add_dict_u64(d, "store_held_bytes", sc.held_bytes);
	rte_tel_data_add_dict_u64(d, "bytes_per_session",
				  sc.sessions ? (sc.bytes + a->sess_bytes) / sc.sessions : 0);
	rte_tel_data_add_dict_u64(d, "volume_watched_sessions", a->n_watch);
	rte_tel_data_add_dict_u64(d, "urr_timers", a->n_timed);

	rte_tel_data_add_dict_u64(d, "rx_datagrams", n->rx_datagrams);
	rte_tel_data_add_dict_u64(d, "rx_bytes", n->rx_bytes);
	rte_tel_data_add_dict_u64(d, "tx_bytes", n->tx_bytes);
	rte_tel_data_add_dict_u64(d, "tx_errors", n->tx_errors);
	rte_tel_data_add_dict_u64(d, "malformed_dropped", n->malformed_dropped);
	rte_tel_data_add_dict_u64(d, "unknown_dropped", n->unknown_dropped);
	rte_tel_data_add_dict_u64(d, "unexpected_responses", n->unexpected_resp);
	rte_tel_data_add_dict_u64(d, "duplicates_answered", n->duplicates);
	rte_tel_data_add_dict_u64(d, "sessions_established", n->sess_established);
	rte_tel_data_add_dict_u64(d, "sessions_modified", n->sess_modified);
	rte_tel_data_add_dict_u64(d, "sessions_deleted", n->sess_deleted);
	rte_tel_data_add_dict_u64(d, "sessions_purged", n->sess_purged);
	rte_tel_data_add_dict_u64(d, "session_requests_rejected", n->sess_rejected);
	rte_tel_data_add_dict_u64(d, "association_setups", n->assoc_setups);
	rte_tel_data_add_dict_u64(d, "association_releases", n->assoc_releases);
	rte_tel_data_add_dict_u64(d, "reports_sent", n->reports_sent);
	rte_tel_data_add_dict_u64(d, "usage_reports_sent", n->usage_reports);
	rte_tel_data_add_dict_u64(d, "dl_data_reports_sent", n->dl_data_reports);
	rte_tel_data_add_dict_u64(d, "request_retransmits", n->report_retransmits);
	rte_tel_data_add_dict_u64(d, "requests_timed_out", n->requests_timed_out);
	rte_tel_data_add_dict_u64(d, "requests_overrun", n->requests_overrun);
	rte_tel_data_add_dict_u64(d, "heartbeats_sent", n->heartbeats_sent);
	rte_tel_data_add_dict_u64(d, "heartbeats_missed", n->heartbeats_missed);
	rte_tel_data_add_dict_u64(d, "quota_exhausted", n->quota_exhausted);
	rte_tel_data_add_dict_u64(d, "quota_publish_failed", n->quota_publish_failed);
	rte_tel_data_add_dict_u64(d, "teids_chosen", n->teids_chosen);
	rte_tel_data_add_dict_u64(d, "ue_ips_chosen", n->ue_ips_chosen);
	rte_tel_data_add_dict_u64(d, "ue_ips_held_uplink_only",
				  a->ue_held != NULL ? (uint64_t)rte_hash_count(a->ue_held) : 0);
	tel_prefixes(d, &a->st->ue);
	rte_tel_data_add_dict_u64(d, "volume_checks", n->scans);
	rte_tel_data_add_dict_u64(d, "buffered_held", n->buffered);
	rte_tel_data_add_dict_u64(d, "buffer_full", n->buffer_full);
	rte_tel_data_add_dict_u64(d, "buffer_released", n->buffer_released);
	rte_tel_data_add_dict_u64(d, "buffer_release_failed", n->buffer_release_failed);
	rte_tel_data_add_dict_u64(d, "buffer_discarded", n->buffer_discarded);
	rte_tel_data_add_dict_u64(d, "buffer_orphans", n->ctrl_orphans);
	rte_tel_data_add_dict_u64(d, "discards_lost", n->discard_lost);

	tel_counts_dict(d, "messages_in", n->rx_msgs, true);
	tel_counts_dict(d, "messages_out", n->tx_msgs, true);
	tel_counts_dict(d, "causes_sent", n->causes, false);
	tel_counts_dict(d, "report_response_causes", n->report_resp_causes, false);

	/* The workers' UPF counters, summed. */
	memset(&sum, 0, sizeof(sum));
	for (w = 0; w < a->st->p.n_workers; w++) {
		const struct upf_wk_stats *s = &a->st->wk[w].stats;

		sum.ul_pkts += __atomic_load_n(&s->ul_pkts, __ATOMIC_RELAXED);
		sum.ul_bytes += __atomic_load_n(&s->ul_bytes, __ATOMIC_RELAXED);
		sum.dl_pkts += __atomic_load_n(&s->dl_pkts, __ATOMIC_RELAXED);
		sum.dl_bytes += __atomic_load_n(&s->dl_bytes, __ATOMIC_RELAXED);
		sum.echo_replies += __atomic_load_n(&s->echo_replies, __ATOMIC_RELAXED);
		sum.err_ind_sent += __atomic_load_n(&s->err_ind_sent, __ATOMIC_RELAXED);
		sum.end_markers += __atomic_load_n(&s->end_markers, __ATOMIC_RELAXED);
		sum.buffered += __atomic_load_n(&s->buffered, __ATOMIC_RELAXED);
		for (i = 0; i < UPF_DROP_COUNT; i++)
			sum.drops[i] += __atomic_load_n(&s->drops[i], __ATOMIC_RELAXED);
	}
	c = tel_dict();
	if (c != NULL) {
		uint64_t drops = 0;

		rte_tel_data_add_dict_u64(c, "ul_packets", sum.ul_pkts);
		rte_tel_data_add_dict_u64(c, "ul_bytes", sum.ul_bytes);
		rte_tel_data_add_dict_u64(c, "dl_packets", sum.dl_pkts);
		rte_tel_data_add_dict_u64(c, "dl_bytes", sum.dl_bytes);
		rte_tel_data_add_dict_u64(c, "echo_replies", sum.echo_replies);
		rte_tel_data_add_dict_u64(c, "error_indications_sent", sum.err_ind_sent);
		rte_tel_data_add_dict_u64(c, "end_markers", sum.end_markers);
		rte_tel_data_add_dict_u64(c, "to_control", sum.buffered);
		for (i = 0; i < UPF_DROP_COUNT; i++) {
			snprintf(b, sizeof(b), "drop_%s", upf_drop_names[i]);
			rte_tel_data_add_dict_u64(c, b, sum.drops[i]);
			drops += sum.drops[i];
		}
		rte_tel_data_add_dict_u64(c, "drops", drops);
		rte_tel_data_add_dict_container(d, "datapath", c, 0);
	}

	/* The first PA_TEL_ASSOC associations: all would not fit telemetry's 16 KiB answer. */
	for (i = 0, w = 0; i < PA_MAX_ASSOC && w < PA_TEL_ASSOC; i++) {
		const struct pa_assoc *as = &a->assoc[i];
		char key[32];

		if (!as->used || (c = tel_dict()) == NULL)
			continue;
		w++;
		rte_tel_data_add_dict_string(c, "node_id", node_str(&as->node, b, sizeof(b)));
		rte_tel_data_add_dict_string(c, "peer", addr_str(&as->peer, b, sizeof(b)));
		rte_tel_data_add_dict_u64(c, "recovery_time_stamp", as->recovery_ts);
		rte_tel_data_add_dict_u64(c, "since", as->since);
		rte_tel_data_add_dict_u64(c, "sessions", as->n_sess);
		tel_hex(c, "cp_function_features", as->cp_features);
		rte_tel_data_add_dict_string(c, "state", as->hb_missed ? "unresponsive" : "up");
		rte_tel_data_add_dict_u64(c, "heartbeats_sent", as->hb_sent);
		rte_tel_data_add_dict_u64(c, "heartbeats_answered", as->hb_answered);
		rte_tel_data_add_dict_u64(c, "heartbeats_missed", as->hb_missed);
		snprintf(key, sizeof(key), "association_%u", i);
		rte_tel_data_add_dict_container(d, key, c, 0);
	}
}

static int
tel_upf(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	pthread_mutex_lock(&pa_lock);
	if (pa_agent == NULL) {
		pthread_mutex_unlock(&pa_lock);
		return -ENODEV;
	}
	tel_upf_locked(pa_agent, d);
	pthread_mutex_unlock(&pa_lock);
	return 0;
}

/* "123" or "0x7b": a SEID; -1 for anything else ("", signs, spaces, junk, overflow). */
static int
parse_seid(const char *p, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int base = 10;

	if (p == NULL || p[0] == '\0')
		return -1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!isxdigit((unsigned char)p[0]) || (base == 10 && !isdigit((unsigned char)p[0])))
		return -1;
	errno = 0;
	v = strtoull(p, &end, base);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

static void
tel_pdi(struct rte_tel_data *c, const struct pa_agent *a, const struct upf_pdr_conf *p)
{
	if (p->ni != UPF_NI_NONE && p->ni < a->uc.n_ni)
		rte_tel_data_add_dict_string(c, "network_instance", a->uc.ni[p->ni].name);
	if (p->has_fteid) {
		tel_hex(c, "teid", p->teid);
		tel_ip(c, "fteid_ipv4", &p->fteid4);
		tel_ip(c, "fteid_ipv6", &p->fteid6);
		if (p->fteid_choose)
			rte_tel_data_add_dict_string(c, "fteid", "chosen by the UP");
	}
	tel_ip(c, "ue_ipv4", &p->ue4);
	tel_ip(c, "ue_ipv6", &p->ue6);
	if (p->ue6.af == 6)
		rte_tel_data_add_dict_u64(c, "ue_ipv6_prefix_len", 64 - p->ue6_dbits);
	if (p->has_qfi)
		rte_tel_data_add_dict_u64(c, "qfi", p->qfi);
	if (p->n_framed != 0) {
		struct rte_tel_data *l = rte_tel_data_alloc();
		char b[INET6_ADDRSTRLEN], r[INET6_ADDRSTRLEN + 4];
		unsigned int i;

		if (l == NULL)
			return;
		rte_tel_data_start_array(l, RTE_TEL_STRING_VAL);
		for (i = 0; i < p->n_framed; i++) {
			inet_ntop(p->framed[i].af == 4 ? AF_INET : AF_INET6, p->framed[i].a, b,
				  sizeof(b));
			snprintf(r, sizeof(r), "%s/%u", b, p->framed[i].plen);
			rte_tel_data_add_array_string(l, r);
		}
		rte_tel_data_add_dict_container(c, "framed_routes", l, 0);
	}
}

static void
tel_pdr(struct rte_tel_data *d, const struct pa_agent *a, const struct upf_pdr_conf *p)
{
	struct rte_tel_data *c = tel_dict();
	char key[32], b[96];

	if (c == NULL)
		return;
	rte_tel_data_add_dict_u64(c, "precedence", p->precedence);
	rte_tel_data_add_dict_string(c, "source_interface", iface_name(p->src_iface));
	/* Its F-TEID, UE address, instance and QFI below are the endpoint's. */
	if (p->has_te)
		rte_tel_data_add_dict_u64(c, "traffic_endpoint", p->te_id);
	tel_pdi(c, a, p);
	rte_tel_data_add_dict_u64(c, "sdf_filters", p->n_sdf);
	rte_tel_data_add_dict_u64(c, "outer_header_removal", p->outer_hdr_removal);
	if (p->has_far)
		rte_tel_data_add_dict_u64(c, "far", p->far_id);
	rte_tel_data_add_dict_string(c, "qers", ids_str(p->qer_id, p->n_qer, b, sizeof(b)));
	rte_tel_data_add_dict_string(c, "urrs", ids_str(p->urr_id, p->n_urr, b, sizeof(b)));
	snprintf(key, sizeof(key), "pdr_%u", p->id);
	rte_tel_data_add_dict_container(d, key, c, 0);
}

static void
tel_te(struct rte_tel_data *d, const struct pa_agent *a, const struct upf_pdr_conf *t)
{
	struct rte_tel_data *c = tel_dict();
	char key[32];

	if (c == NULL)
		return;
	tel_pdi(c, a, t);
	snprintf(key, sizeof(key), "traffic_endpoint_%u", t->id);
	rte_tel_data_add_dict_container(d, key, c, 0);
}

static void
tel_far(struct rte_tel_data *d, const struct pa_agent *a, const struct upf_far_conf *f)
{
	struct rte_tel_data *c = tel_dict();
	char key[32], b[64];

	if (c == NULL)
		return;
	rte_tel_data_add_dict_string(c, "apply", apply_str(f->apply, b, sizeof(b)));
	rte_tel_data_add_dict_string(c, "destination_interface", iface_name(f->dst_iface));
	if (f->ni != UPF_NI_NONE && f->ni < a->uc.n_ni)
		rte_tel_data_add_dict_string(c, "network_instance", a->uc.ni[f->ni].name);
	if (f->ohc != 0) {
		rte_tel_data_add_dict_string(c, "outer_header_creation",
					     f->ohc == UPF_OHC_GTPU_UDP_IPV4 ? "gtpu_udp_ipv4"
									     : "gtpu_udp_ipv6");
		tel_hex(c, "outer_teid", f->ohc_teid);
		tel_ip(c, "outer_peer", &f->ohc_peer);
	}
	snprintf(key, sizeof(key), "far_%u", f->id);
	rte_tel_data_add_dict_container(d, key, c, 0);
}

static void
tel_qer(struct rte_tel_data *d, const struct upf_qer_conf *q)
{
	struct rte_tel_data *c = tel_dict();
	char key[32];

	if (c == NULL)
		return;
	rte_tel_data_add_dict_string(c, "gate_ul", q->gate_ul_closed ? "closed" : "open");
	rte_tel_data_add_dict_string(c, "gate_dl", q->gate_dl_closed ? "closed" : "open");
	rte_tel_data_add_dict_u64(c, "mbr_ul_kbps", q->mbr_ul);
	rte_tel_data_add_dict_u64(c, "mbr_dl_kbps", q->mbr_dl);
	rte_tel_data_add_dict_u64(c, "gbr_ul_kbps", q->gbr_ul);
	rte_tel_data_add_dict_u64(c, "gbr_dl_kbps", q->gbr_dl);
	if (q->has_qfi)
		rte_tel_data_add_dict_u64(c, "qfi", q->qfi);
	snprintf(key, sizeof(key), "qer_%u", q->id);
	rte_tel_data_add_dict_container(d, key, c, 0);
}

static void
tel_urr(struct rte_tel_data *d, const struct pa_agent *a, uint64_t seid,
	const struct upf_urr_conf *u, const struct pa_urr_st *st)
{
	struct rte_tel_data *c = tel_dict();
	struct upf_usage now_u;
	char key[32];

	if (c == NULL)
		return;
	usage_read(a, seid, u->id, &now_u);
	tel_hex(c, "method", u->method);
	tel_hex(c, "triggers", u->triggers);
	if (u->period_s != 0)
		rte_tel_data_add_dict_u64(c, "period_s", u->period_s);
	if (u->has_vol_thresh)
		tel_vol(c, "volume_threshold", &u->vol_thresh);
	if (u->has_vol_quota) {
		tel_vol(c, "volume_quota", &u->vol_quota);
		rte_tel_data_add_dict_string(c, "quota", st->exhausted ? "exhausted" : "ok");
	}
	if (u->has_time_quota) {
		rte_tel_data_add_dict_u64(c, "time_quota_s", u->time_quota_s);
		rte_tel_data_add_dict_string(c, "time_quota",
					     st->tq_exhausted ? "exhausted" : "ok");
	}
	if (u->has_time_thresh)
		rte_tel_data_add_dict_u64(c, "time_threshold_s", u->time_thresh_s);
	if (u->has_qht)
		rte_tel_data_add_dict_u64(c, "quota_holding_time_s", u->qht_s);
	if (u->has_qvt)
		rte_tel_data_add_dict_u64(c, "quota_validity_time_s", u->qvt_s);
	if (u->droth_flags != 0) {
		if (u->droth_flags & UPF_DROTH_DLPA)
			rte_tel_data_add_dict_u64(c, "dropped_dl_threshold_packets", u->droth_pkts);
		if (u->droth_flags & UPF_DROTH_DLBY)
			rte_tel_data_add_dict_u64(c, "dropped_dl_threshold_bytes", u->droth_bytes);
		rte_tel_data_add_dict_u64(c, "dropped_dl_packets", st->drop_pkts);
		rte_tel_data_add_dict_u64(c, "dropped_dl_bytes", st->drop_bytes);
	}
	if (u->n_linked != 0) {
		char b[96];

		rte_tel_data_add_dict_string(c, "linked_urrs",
					     ids_str(u->linked, u->n_linked, b, sizeof(b)));
	}
	if (u->triggers & UPF_RT_START)
		rte_tel_data_add_dict_string(c, "start_of_traffic",
					     st->start_done ? "reported" : "waiting");
	rte_tel_data_add_dict_u64(c, "ul_bytes", now_u.bytes[0]);
	rte_tel_data_add_dict_u64(c, "dl_bytes", now_u.bytes[1]);
	rte_tel_data_add_dict_u64(c, "ul_packets", now_u.pkts[0]);
	rte_tel_data_add_dict_u64(c, "dl_packets", now_u.pkts[1]);
	rte_tel_data_add_dict_u64(c, "bytes_since_report",
				  usage_total(&now_u) - usage_total(&st->base));
	rte_tel_data_add_dict_u64(c, "reports", st->seqn);
	snprintf(key, sizeof(key), "urr_%u", u->id);
	rte_tel_data_add_dict_container(d, key, c, 0);
}

static int
tel_session(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct pa_agent *a;
	const struct pa_sess *s;
	struct pa_work *w;
	char b[PFCP_FQDN_LEN + 64];
	uint8_t order[UPF_MAX_PDR];
	unsigned int i;
	uint64_t seid;

	if (parse_seid(params, &seid) != 0)
		return -EINVAL;
	pthread_mutex_lock(&pa_lock);
	a = pa_agent;
	if (a == NULL) {
		pthread_mutex_unlock(&pa_lock);
		return -ENODEV;
	}
	s = sess_find(a, seid);
	if (s == NULL) {
		pthread_mutex_unlock(&pa_lock);
		return -ENOENT;
	}
	w = &a->tel;
	sess_unpack(s, w);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "up_seid", s->c.up_seid);
	tel_hex(d, "up_seid_hex", s->c.up_seid);
	rte_tel_data_add_dict_u64(d, "cp_seid", s->c.cp_seid);
	tel_hex(d, "cp_seid_hex", s->c.cp_seid);
	tel_ip(d, "cp_ip", &s->c.cp_ip);
	if (a->assoc[s->assoc].used) {
		rte_tel_data_add_dict_string(d, "peer_node_id",
					     node_str(&a->assoc[s->assoc].node, b, sizeof(b)));
		rte_tel_data_add_dict_string(d, "peer",
					     addr_str(&a->assoc[s->assoc].peer, b, sizeof(b)));
	}
	rte_tel_data_add_dict_u64(d, "since", s->since);
	rte_tel_data_add_dict_u64(d, "pdrs", s->c.n_pdr);
	rte_tel_data_add_dict_u64(d, "fars", s->c.n_far);
	rte_tel_data_add_dict_u64(d, "qers", s->c.n_qer);
	rte_tel_data_add_dict_u64(d, "urrs", s->c.n_urr);
	rte_tel_data_add_dict_u64(d, "traffic_endpoints", s->n_te);
	rte_tel_data_add_dict_u64(d, "held_packets", s->n_held);
	rte_tel_data_add_dict_u64(d, "buffer_limit", sess_buffer_limit(a, s));
	if (s->bar.on)
		rte_tel_data_add_dict_u64(d, "bar", s->bar.id);
	rte_tel_data_add_dict_u64(d, "dl_data_report_sent", s->dldr_sent);
	rte_tel_data_add_dict_u64(d, "quota_drop", s->quota_drop);
	rte_tel_data_add_dict_u64(d, "agent_bytes", s->bytes);
	/* In the order the datapath tries them: the operator reads which one wins. */
	upf_pdr_order(&w->c, order, NULL, NULL);
	for (i = 0; i < w->c.n_pdr; i++)
		tel_pdr(d, a, &w->pdr[order[i]]);
	for (i = 0; i < w->c.n_far; i++)
		tel_far(d, a, &w->far[i]);
	for (i = 0; i < w->c.n_qer; i++)
		tel_qer(d, &w->qer[i]);
	for (i = 0; i < w->c.n_urr; i++)
		tel_urr(d, a, s->c.up_seid, &w->urr[i], &s->ust[i]);
	for (i = 0; i < w->n_te; i++)
		tel_te(d, a, &w->te[i]);
	pthread_mutex_unlock(&pa_lock);
	return 0;
}

/* ---- Start and stop ----------------------------------------------------- */

static void
agent_free(struct pa_agent *a)
{
	uint32_t i;

	if (a == NULL)
		return;
	if (a->fd >= 0)
		close(a->fd);
	if (a->sess != NULL)
		for (i = 0; i < a->max_sess; i++)
			if (a->sess[i] != NULL) {
				held_free(a, a->sess[i]);
				free(a->sess[i]->held);
				if (a->sess[i]->bytes > (size_t)PA_SLAB_CLASSES * PA_SLAB_STEP)
					free(a->sess[i]);
			}
	for (i = 0; i < a->n_chunks; i++)
		munmap(a->chunks[i], PA_SLAB_CHUNK);
	free(a->chunks);
	if (a->cache != NULL) {
		for (i = 0; i < PA_CACHE_N; i++)
			free(a->cache[i].heap);
		munmap(a->cache, PA_CACHE_N * sizeof(a->cache[0]));
	}
	if (a->pend != NULL)
		for (i = 0; i < PA_PEND_N; i++)
			free(a->pend[i].buf);
	rte_hash_free(a->ue_held);
	free(a->sess);
	free(a->gen);
	free(a->free_idx);
	free(a->heap);
	free(a->cache_bucket);
	free(a->pend);
	free(a->retx);
	free(a->tx);
	free(a->rxbuf);
	free(a);
}

static int
node_id_parse(const char *s, struct pfcp_node_id *n)
{
	memset(n, 0, sizeof(*n));
	if (inet_pton(AF_INET, s, n->ip.a) == 1) {
		n->type = PFCP_NODE_ID_IPV4;
		n->ip.af = 4;
	} else if (inet_pton(AF_INET6, s, n->ip.a) == 1) {
		n->type = PFCP_NODE_ID_IPV6;
		n->ip.af = 6;
	} else {
		if (s[0] == '\0' || strlen(s) >= sizeof(n->fqdn))
			return -EINVAL;
		n->type = PFCP_NODE_ID_FQDN;
		snprintf(n->fqdn, sizeof(n->fqdn), "%s", s);
	}
	return 0;
}

static int
sock_open(struct pa_agent *a, char *err, size_t errlen)
{
	const struct lf_upf_conf *u = &a->uc;
	struct addrinfo hints, *res = NULL;
	char port[8];
	int fd, rc, one = 1, buf = 8 << 20;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	snprintf(port, sizeof(port), "%u", u->pfcp_port);
	rc = getaddrinfo(u->pfcp_addr, port, &hints, &res);
	if (rc != 0 || res == NULL) {
		snprintf(err, errlen, "[upf] pfcp_addr %s: not a numeric IPv4 or IPv6 address (%s)",
			 u->pfcp_addr, gai_strerror(rc));
		return -EINVAL;
	}
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "PFCP socket for %s port %u: %s", u->pfcp_addr, u->pfcp_port,
			 strerror(errno));
		freeaddrinfo(res);
		return rc;
	}
	if (res->ai_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* Bursts of requests (an SMF setting up many sessions) wait in the kernel, not dropped. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
		rc = -errno;
		snprintf(err, errlen,
			 "PFCP: cannot bind %s port %u ([upf] pfcp_addr, pfcp_port): %s",
			 u->pfcp_addr, u->pfcp_port, strerror(errno));
		close(fd);
		freeaddrinfo(res);
		return rc;
	}
	/* Our N4 address for the UP F-SEID: the bound one, or the Node ID's for a wildcard. */
	memset(&a->up_fseid_addr, 0, sizeof(a->up_fseid_addr));
	if (res->ai_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)res->ai_addr;

		if (s->sin_addr.s_addr != 0) {
			a->up_fseid_addr.v4.af = 4;
			memcpy(a->up_fseid_addr.v4.a, &s->sin_addr, 4);
		}
	} else {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)res->ai_addr;

		if (!IN6_IS_ADDR_UNSPECIFIED(&s->sin6_addr)) {
			a->up_fseid_addr.v6.af = 6;
			memcpy(a->up_fseid_addr.v6.a, &s->sin6_addr, 16);
		}
	}
	if (a->up_fseid_addr.v4.af == 0 && a->up_fseid_addr.v6.af == 0 &&
	    a->node_id.type != PFCP_NODE_ID_FQDN) {
		if (a->node_id.ip.af == 4)
			a->up_fseid_addr.v4 = a->node_id.ip;
		else
			a->up_fseid_addr.v6 = a->node_id.ip;
	}
	freeaddrinfo(res);
	a->fd = fd;
	return 0;
}

int
pfcp_agent_start(const struct lf_config *cfg, struct upf_store *store, char *err, size_t errlen)
{
	struct pa_agent *a;
	uint32_t i;
	int rc, t;

	if (cfg == NULL || store == NULL) {
		snprintf(err, errlen, "PFCP agent: no configuration or no store");
		return -EINVAL;
	}
	pthread_mutex_lock(&pa_lock);
	rc = pa_agent != NULL ? -EALREADY : 0;
	pthread_mutex_unlock(&pa_lock);
	if (rc != 0) {
		snprintf(err, errlen, "PFCP agent: already running");
		return rc;
	}
	t = rte_log_register_type_and_pick_level("lanefwd.pfcp", RTE_LOG_INFO);
	if (t >= 0)
		pa_logtype = t;

	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		snprintf(err, errlen, "PFCP agent: out of memory");
		return -ENOMEM;
	}
	a->fd = -1;
	a->uc = cfg->upf;
	for (i = 0; i < a->uc.n_ni; i++) {
		const struct lf_upf_ni_conf *ni = &a->uc.ni[i];
		unsigned int k;

		if (ni->pool_id[0] != '\0' && ni->n_alloc != 0) {
			a->pools[a->n_pools].id = ni->pool_id;
			a->pools[a->n_pools++].ni = ni->name;
		}
		for (k = 0; k < ni->n_named; k++) {
			a->pools[a->n_pools].id = ni->named[k].id;
			a->pools[a->n_pools++].ni = ni->name;
		}
	}
	if (a->uc.pfcp_addr[0] == '\0')
		snprintf(a->uc.pfcp_addr, sizeof(a->uc.pfcp_addr), "127.0.0.1");
	if (a->uc.pfcp_port == 0)
		a->uc.pfcp_port = PFCP_PORT;
	a->st = store;
	a->max_sess = a->uc.max_sessions != 0 ? a->uc.max_sessions : store->p.max_sessions;
	if (store->p.max_sessions != 0)
		a->max_sess = RTE_MIN(a->max_sess, store->p.max_sessions);
	if (a->max_sess == 0)
		a->max_sess = 1;
	rc = node_id_parse(a->uc.node_id[0] != '\0' ? a->uc.node_id : a->uc.pfcp_addr, &a->node_id);
	if (rc != 0) {
		snprintf(err, errlen, "[upf] node_id \"%s\": not an address or an FQDN",
			 a->uc.node_id);
		goto fail;
	}
	rc = sock_open(a, err, errlen);
	if (rc != 0)
		goto fail;

	a->sess = calloc(a->max_sess, sizeof(a->sess[0]));
	a->gen = malloc(a->max_sess * sizeof(a->gen[0]));
	a->free_idx = malloc(a->max_sess * sizeof(a->free_idx[0]));
	a->cache = mmap(NULL, PA_CACHE_N * sizeof(a->cache[0]), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (a->cache == MAP_FAILED)
		a->cache = NULL;
	a->cache_bucket = malloc(PA_CACHE_BUCKETS * sizeof(a->cache_bucket[0]));
	a->pend = calloc(PA_PEND_N, sizeof(a->pend[0]));
	a->retx = calloc(PA_RETX_N, sizeof(a->retx[0]));
	a->tx = malloc(PA_TX_N * sizeof(a->tx[0]));
	a->rxbuf = malloc(PA_RX_BATCH * sizeof(a->rxbuf[0]));
	if (a->sess == NULL || a->gen == NULL || a->free_idx == NULL || a->cache == NULL ||
	    a->cache_bucket == NULL || a->pend == NULL || a->retx == NULL || a->tx == NULL ||
	    a->rxbuf == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "PFCP agent: out of memory for %u sessions", a->max_sess);
		goto fail;
	}
	/* Lowest indexes first; generations start at 1 so that no UP SEID is below 2^32. */
	for (i = 0; i < a->max_sess; i++) {
		a->gen[i] = 1;
		a->free_idx[i] = a->max_sess - 1 - i;
	}
	a->n_free = a->max_sess;
	for (i = 0; i < PA_CACHE_BUCKETS; i++)
		a->cache_bucket[i] = -1;
	for (i = 0; i < PA_MAX_ASSOC; i++)
		a->assoc[i].head = PA_NONE;
	a->last_assoc = -1;
	a->watch_head = a->watch_cursor = PA_NONE;
	a->seq_next = 1;
	a->started = (uint64_t)time(NULL);
	a->recovery_ts = ntp_now();
	a->now_ms = a->scan_last_ms = mono_ms();
	a->up_features = PFCP_UPF_FTUP | PFCP_UPF_PDIU | PFCP_UPF_FRRT | PFCP_UPF_VTIME;
	for (i = 0; i < a->uc.n_ni; i++) {
		const struct lf_upf_ni_conf *ni = &a->uc.ni[i];
		unsigned int j, k;

		for (j = 0; j < LF_UPF_POOLS_PER_NI; j++) {
			const struct lf_upf_prefix *px = NULL;
			const unsigned int n = j <= ni->n_named ? lf_upf_ni_alloc(ni, j, &px) : 0;

			upf_uepool_init(&a->uepool[i][j][0], 4);
			/* The config checked the length (48 to 64). */
			(void)upf_uepool_init6(&a->uepool[i][j][1],
					       j <= ni->n_named ? lf_upf_ni_alloc_len6(ni, j) : 64);
			/* The config checked each prefix's family and length. */
			for (k = 0; k < n; k++)
				(void)upf_uepool_add(&a->uepool[i][j][px[k].af == 4 ? 0 : 1],
						     px[k].af, px[k].a, px[k].plen);
			if (n != 0)
				a->up_features |= PFCP_UPF_UEIP;
		}
	}
	if (a->up_features & PFCP_UPF_UEIP) {
		struct rte_hash_parameters hp = {
			.entries = PA_UE_HELD_MAX,
			.key_len = sizeof(struct upf_ue_key),
			.hash_func = rte_hash_crc,
			.socket_id = SOCKET_ID_ANY,
			/* Extendable buckets: an add within .entries never fails. */
			.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
		};
		char name[RTE_HASH_NAMESIZE];

		snprintf(name, sizeof(name), "pa_ueh_%p", (void *)a);
		hp.name = name;
		a->ue_held = rte_hash_create(&hp);
		if (a->ue_held == NULL) {
			snprintf(err, errlen, "PFCP agent: UE address set: %s",
				 rte_strerror(rte_errno));
			goto fail;
		}
	}

	if (!pa_tel_registered) {
		/* DPDK 22.11 cannot unregister: the callbacks answer -ENODEV while stopped. */
		rc = rte_telemetry_register_cmd("/lanefwd/upf", tel_upf,
						"UPF: PFCP associations, sessions, messages, causes, "
						"reports and the workers' UPF counters");
		if (rc == 0)
			rc = rte_telemetry_register_cmd("/lanefwd/upf/session", tel_session,
							"One UPF session and its rules. Parameter: UP SEID (decimal or 0x hex)");
		if (rc != 0) {
			snprintf(err, errlen, "PFCP agent: telemetry commands: %s", strerror(-rc));
			goto fail;
		}
		pa_tel_registered = true;
	}

	pthread_mutex_lock(&pa_lock);
	pa_agent = a;
	pthread_mutex_unlock(&pa_lock);
	rc = rte_ctrl_thread_create(&a->thread, "lf-pfcp", NULL, pa_main, a);
	if (rc != 0) {
		pthread_mutex_lock(&pa_lock);
		pa_agent = NULL;
		pthread_mutex_unlock(&pa_lock);
		snprintf(err, errlen, "PFCP agent: cannot start its thread: %s", strerror(rc));
		rc = -rc;
		goto fail;
	}
	a->thread_started = true;
	PA_LOG(INFO, "serving PFCP on %s port %u, Node ID %s, up to %u sessions", a->uc.pfcp_addr,
	       a->uc.pfcp_port, a->uc.node_id[0] ? a->uc.node_id : a->uc.pfcp_addr, a->max_sess);
	return 0;
fail:
	agent_free(a);
	return rc;
}

void
pfcp_agent_stop(void)
{
	struct pa_agent *a;

	pthread_mutex_lock(&pa_lock);
	a = pa_agent;
	pthread_mutex_unlock(&pa_lock);
	if (a == NULL)
		return;
	__atomic_store_n(&a->quit, true, __ATOMIC_RELEASE);
	if (a->thread_started)
		pthread_join(a->thread, NULL);
	pthread_mutex_lock(&pa_lock);
	pa_agent = NULL;
	pthread_mutex_unlock(&pa_lock);
	agent_free(a);
}
