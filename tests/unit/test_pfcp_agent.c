/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PFCP agent (src/control/pfcp_agent.c) with a real store on a --no-huge
 * EAL, over loopback UDP. This thread is the SMF: its requests are built with
 * the codec's writer (pfcp.h), the answers are read with a small TLV walker
 * of its own. Where a test needs traffic it also plays worker 0: it adds to
 * the URR counters the store gave the session, hands packets over on
 * to_ctrl and takes released ones from from_ctrl.
 *
 * Invalid input first: start errors, session requests without an
 * association, rules the agent refuses (and the store left as it was),
 * unknown SEIDs, malformed and unknown messages. Then the association,
 * establishment with CHOOSE, retransmitted requests answered from the cache,
 * modification, usage reports (volume threshold, quota with its drop,
 * period, query, deletion), BUFF/NOCP with one Downlink Data Report per
 * episode and release, a peer restart, the association's release, the
 * telemetry commands; last, a burst of establishments whose rate is printed
 * (a figure, not an assertion).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "config.h"
#include "pfcp.h"
#include "pfcp_agent.h"
#include "upf.h"

#define MAX_SESS 40000
#define N3_V4 0xc0a80301u /* 192.168.3.1 */
#define GNB_V4 0xc0a80302u
#define UE_POOL 0x0a2d0000u /* 10.45.0.0/16, network instance "internet" */
#define UE_ALLOC 0x0a2d8000u /* 10.45.128.0/29 of it: .1 to .6 for CHV4 */
#define UE_ENT_A 0x0a2d8100u /* 10.45.129.0/30 of it: pool "ent-a", .1 and .2 */
#define CP_NODE "10.0.0.9"

static struct lf_config cfg;
static struct upf_store *st;
static struct rte_rcu_qsbr *qsv;
static struct rte_mempool *mp;
static int sk = -1; /* The SMF's socket. */
static struct sockaddr_in agent;
static uint32_t seq = 1;
static uint8_t rb[65536]; /* The last message received. */
static size_t rn;
static struct pfcp_w w;
static uint8_t wb[8192];
static uint32_t cp_recovery = 3900000000u;
static uint32_t heartbeat_s; /* [upf] heartbeat_s of the agent the next group starts. */

/* ---- The wire: send, receive, read IEs ---- */

static void
begin(uint8_t type, bool has_seid, uint64_t seid)
{
	pfcp_w_init(&w, wb, sizeof(wb));
	pfcp_w_hdr_begin(&w, type, has_seid, seid, seq++);
}

static size_t
end_send(void)
{
	int n = pfcp_w_hdr_end(&w);

	assert_true(n > 0);
	assert_int_equal(sendto(sk, wb, (size_t)n, 0, (struct sockaddr *)&agent, sizeof(agent)), n);
	return (size_t)n;
}

static uint8_t
msg_type(const uint8_t *m)
{
	return m[1];
}

static size_t
hdr_len(const uint8_t *m)
{
	return (m[0] & 0x01) ? 16 : 8;
}

static uint64_t
msg_seid(const uint8_t *m)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | m[4 + i];
	return v;
}

static uint32_t
msg_seq(const uint8_t *m)
{
	const uint8_t *p = m + hdr_len(m) - 4;

	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* Receive the next message of this type within timeout_ms (others are skipped); its length. */
static size_t
recv_type(uint8_t type, int timeout_ms)
{
	struct pollfd p = { .fd = sk, .events = POLLIN };

	for (;;) {
		ssize_t n;

		if (poll(&p, 1, timeout_ms) <= 0)
			fail_msg("no %s within %d ms", pfcp_msg_name(type), timeout_ms);
		n = recv(sk, rb, sizeof(rb), 0);
		assert_true(n >= 8);
		rn = (size_t)n;
		if (msg_type(rb) == type)
			return rn;
	}
}

/* Nothing arrives within ms. */
static void
recv_none(int ms)
{
	struct pollfd p = { .fd = sk, .events = POLLIN };

	if (poll(&p, 1, ms) > 0) {
		ssize_t n = recv(sk, rb, sizeof(rb), 0);

		fail_msg("unexpected message: %s (%zd bytes)", n > 1 ? pfcp_msg_name(rb[1]) : "?",
			 n);
	}
}

struct tlv {
	uint16_t type;
	uint16_t len;
	const uint8_t *v;
};

/* The nth (0-based) IE of this type in [p, p + n), not recursing. */
static bool
ie_find(const uint8_t *p, size_t n, uint16_t type, unsigned int nth, struct tlv *out)
{
	static const uint8_t none[32];
	size_t off = 0;

	out->type = 0;
	out->len = 0;
	out->v = none;

	while (off + 4 <= n) {
		uint16_t t = (uint16_t)(p[off] << 8 | p[off + 1]);
		uint16_t l = (uint16_t)(p[off + 2] << 8 | p[off + 3]);

		assert_true(off + 4 + l <= n);
		if (t == type && nth-- == 0) {
			out->type = t;
			out->len = l;
			out->v = p + off + 4;
			return true;
		}
		off += 4 + (size_t)l;
	}
	return false;
}

static bool
msg_ie(uint16_t type, unsigned int nth, struct tlv *out)
{
	return ie_find(rb + hdr_len(rb), rn - hdr_len(rb), type, nth, out);
}

static uint64_t
be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

static unsigned int
msg_cause(void)
{
	struct tlv t;

	if (!msg_ie(PFCP_IE_CAUSE, 0, &t))
		fail_msg("%s without a Cause", pfcp_msg_name(msg_type(rb)));
	return t.v[0];
}

#define assert_cause(want)                                                               \
	do {                                                                             \
		unsigned int c_ = msg_cause();                                           \
		if (c_ != (want))                                                        \
			fail_msg("line %d: %s cause %u, want %u", __LINE__,              \
				 pfcp_msg_name(msg_type(rb)), c_, (unsigned int)(want)); \
	} while (0)

/* ---- Requests ---- */

static void
w_node_id(void)
{
	struct pfcp_node_id id;

	memset(&id, 0, sizeof(id));
	id.type = PFCP_NODE_ID_IPV4;
	id.ip.af = 4;
	inet_pton(AF_INET, CP_NODE, id.ip.a);
	pfcp_w_node_id(&w, &id);
}

static void
w_cp_fseid(uint64_t seid)
{
	struct pfcp_fseid f;

	memset(&f, 0, sizeof(f));
	f.seid = seid;
	f.v4.af = 4;
	inet_pton(AF_INET, "127.0.0.1", f.v4.a);
	pfcp_w_fseid(&w, &f);
}

struct pdr_spec {
	uint16_t id;
	uint32_t prec;
	uint8_t src;
	bool choose;
	int chid; /* < 0: none */
	uint32_t teid; /* Given by the CP (with choose false); 0: no F-TEID. */
	const char *ni;
	uint32_t ue4;
	uint8_t ue_ch; /* CHV4 (0x10) / CHV6 (0x20) of a UE IP Address IE without ue4. */
	const char *pool; /* A UE IP address Pool Identity IE, or NULL. */
	const char *pool2; /* A second one, or NULL. */
	const char *ue6; /* A UE IPv6 address (V6), or NULL, */
	uint8_t dbits; /* with IPv6 Prefix Delegation Bits (IPv6D) if not 0. */
	uint32_t far;
	uint32_t urr;
	uint8_t te; /* The PDI names Traffic Endpoint te (and has no F-TEID, NI, UE address); 0: none. */
	const char *framed[3]; /* Framed-Route (IPv6 if it has a ':') texts, or NULL. */
};

/* With CHV6: an IPv6 Prefix Length (IP6PL) field of this value (0: none). */
static uint8_t w_ip6pl;

static void
w_create_pdr(const struct pdr_spec *p)
{
	size_t g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_PDR), pdi, o;

	pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, p->id);
	pfcp_w_ie_u32(&w, PFCP_IE_PRECEDENCE, p->prec);
	pdi = pfcp_w_ie_begin(&w, PFCP_IE_PDI);
	pfcp_w_ie_u8(&w, PFCP_IE_SOURCE_INTERFACE, p->src);
	if (p->te != 0) {
		pfcp_w_ie_u8(&w, PFCP_IE_TRAFFIC_ENDPOINT_ID, p->te);
	} else if (p->choose) {
		o = pfcp_w_ie_begin(&w, PFCP_IE_F_TEID);
		pfcp_w_raw8(&w, (uint8_t)(0x05 | (p->chid >= 0 ? 0x08 : 0)));
		if (p->chid >= 0)
			pfcp_w_raw8(&w, (uint8_t)p->chid);
		pfcp_w_ie_end(&w, o);
	} else if (p->teid != 0) {
		o = pfcp_w_ie_begin(&w, PFCP_IE_F_TEID);
		pfcp_w_raw8(&w, 0x01);
		pfcp_w_raw32(&w, p->teid);
		pfcp_w_raw32(&w, N3_V4);
		pfcp_w_ie_end(&w, o);
	}
	if (p->ni != NULL && p->te == 0)
		pfcp_w_ie_bytes(&w, PFCP_IE_NETWORK_INSTANCE, p->ni, strlen(p->ni));
	if (p->te == 0 && (p->ue4 != 0 || p->ue_ch != 0 || p->ue6 != NULL)) {
		o = pfcp_w_ie_begin(&w, PFCP_IE_UE_IP_ADDRESS);
		const bool pl = w_ip6pl != 0 && (p->ue_ch & 0x20);
		uint8_t a6[16];

		pfcp_w_raw8(&w,
			    (uint8_t)((p->ue4 != 0 ? 0x02 : 0) | (p->ue6 != NULL ? 0x01 : 0) |
				      (p->dbits != 0 ? 0x08 : 0) | p->ue_ch | (pl ? 0x40 : 0) |
				      (p->src == UPF_IF_CORE ? 0x04 : 0)));
		if (p->ue4 != 0)
			pfcp_w_raw32(&w, p->ue4);
		if (p->ue6 != NULL) {
			assert_int_equal(inet_pton(AF_INET6, p->ue6, a6), 1);
			pfcp_w_raw(&w, a6, 16);
		}
		if (p->dbits != 0)
			pfcp_w_raw8(&w, p->dbits);
		if (pl)
			pfcp_w_raw8(&w, w_ip6pl);
		pfcp_w_ie_end(&w, o);
	}
	for (unsigned int i = 0; i < RTE_DIM(p->framed) && p->te == 0; i++)
		if (p->framed[i] != NULL)
			pfcp_w_ie_bytes(&w,
					strchr(p->framed[i], ':') != NULL
						? PFCP_IE_FRAMED_IPV6_ROUTE
						: PFCP_IE_FRAMED_ROUTE,
					p->framed[i], strlen(p->framed[i]));
	pfcp_w_ie_end(&w, pdi);
	for (unsigned int i = 0; i < 2; i++) {
		const char *id = i == 0 ? p->pool : p->pool2;
		size_t l;

		if (id == NULL)
			continue;
		l = strlen(id);
		o = pfcp_w_ie_begin(&w, PFCP_IE_UE_IP_POOL_ID);
		pfcp_w_raw8(&w, (uint8_t)(l >> 8));
		pfcp_w_raw8(&w, (uint8_t)l);
		pfcp_w_raw(&w, id, l);
		pfcp_w_ie_end(&w, o);
	}
	if (p->src == UPF_IF_ACCESS)
		pfcp_w_ie_u8(&w, PFCP_IE_OUTER_HEADER_REMOVAL, 0);
	if (p->far != 0)
		pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, p->far);
	if (p->urr != 0)
		pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, p->urr);
	pfcp_w_ie_end(&w, g);
}

static void
w_fwd(uint16_t group, uint8_t dst, uint32_t ohc_teid)
{
	size_t fp = pfcp_w_ie_begin(&w, group), o;

	if (group == PFCP_IE_FORWARDING_PARAMS)
		pfcp_w_ie_u8(&w, PFCP_IE_DESTINATION_INTERFACE, dst);
	if (ohc_teid != 0) {
		o = pfcp_w_ie_begin(&w, PFCP_IE_OUTER_HEADER_CREATION);
		pfcp_w_raw16(&w, UPF_OHC_GTPU_UDP_IPV4);
		pfcp_w_raw32(&w, ohc_teid);
		pfcp_w_raw32(&w, GNB_V4);
		pfcp_w_ie_end(&w, o);
	}
	pfcp_w_ie_end(&w, fp);
}

static void
w_create_far(uint32_t id, uint8_t apply, uint8_t dst, uint32_t ohc_teid)
{
	size_t g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_FAR);

	pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, id);
	pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, apply);
	if (apply & UPF_FAR_FORW)
		w_fwd(PFCP_IE_FORWARDING_PARAMS, dst, ohc_teid);
	pfcp_w_ie_end(&w, g);
}

static void
w_update_far(uint32_t id, uint8_t apply, uint32_t ohc_teid)
{
	size_t g = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_FAR);

	pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, id);
	pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, apply);
	if (ohc_teid != 0)
		w_fwd(PFCP_IE_UPDATE_FORWARDING_PARAMS, 0, ohc_teid);
	pfcp_w_ie_end(&w, g);
}

static void
w_vol(uint16_t type, uint64_t v)
{
	size_t o = pfcp_w_ie_begin(&w, type);

	pfcp_w_raw8(&w, 0x01);
	pfcp_w_raw64(&w, v);
	pfcp_w_ie_end(&w, o);
}

/* A Volume Threshold / Quota with the uplink (ULVOL) and/or downlink (DLVOL) count only. */
static void
w_vol_dir(uint16_t type, uint64_t ul, uint64_t dl)
{
	size_t o = pfcp_w_ie_begin(&w, type);

	pfcp_w_raw8(&w, (uint8_t)((ul != 0 ? UPF_VOL_UL : 0) | (dl != 0 ? UPF_VOL_DL : 0)));
	if (ul != 0)
		pfcp_w_raw64(&w, ul);
	if (dl != 0)
		pfcp_w_raw64(&w, dl);
	pfcp_w_ie_end(&w, o);
}

/* A URR's first IEs inside an open Create / Update URR: its ID, the method and triggers unless 0. */
static void
w_urr_head(uint32_t id, uint8_t method, uint16_t trig)
{
	size_t o;

	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, id);
	if (method != 0)
		pfcp_w_ie_u8(&w, PFCP_IE_MEASUREMENT_METHOD, method);
	if (trig == 0)
		return;
	o = pfcp_w_ie_begin(&w, PFCP_IE_REPORTING_TRIGGERS);
	pfcp_w_raw8(&w, (uint8_t)trig);
	pfcp_w_raw8(&w, (uint8_t)(trig >> 8));
	pfcp_w_ie_end(&w, o);
}

static void
w_create_urr(uint32_t id, uint16_t trig, uint64_t thresh, uint64_t quota, uint32_t period)
{
	size_t g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);

	w_urr_head(id, UPF_MM_VOLUM | UPF_MM_DURAT, trig);
	if (thresh != 0)
		w_vol(PFCP_IE_VOLUME_THRESHOLD, thresh);
	if (quota != 0)
		w_vol(PFCP_IE_VOLUME_QUOTA, quota);
	if (period != 0)
		pfcp_w_ie_u32(&w, PFCP_IE_MEASUREMENT_PERIOD, period);
	pfcp_w_ie_end(&w, g);
}

static void
w_id_group(uint16_t group, uint16_t id_type, uint32_t id)
{
	size_t g = pfcp_w_ie_begin(&w, group);

	if (id_type == PFCP_IE_PDR_ID)
		pfcp_w_ie_u16(&w, id_type, (uint16_t)id);
	else if (id_type == PFCP_IE_TRAFFIC_ENDPOINT_ID || id_type == PFCP_IE_BAR_ID)
		pfcp_w_ie_u8(&w, id_type, (uint8_t)id);
	else
		pfcp_w_ie_u32(&w, id_type, id);
	pfcp_w_ie_end(&w, g);
}

static void
assoc_setup(uint32_t recovery)
{
	begin(PFCP_ASSOC_SETUP_REQ, false, 0);
	w_node_id();
	pfcp_w_ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, recovery);
	end_send();
	recv_type(PFCP_ASSOC_SETUP_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
}

/*
 * A plain session: uplink PDR 1 (F-TEID CHOOSE) -> FAR 1 to the core,
 * downlink PDR 2 -> FAR 2, both with the UE address ue, or, with ue 0, UE
 * IP Address CHOOSE flags ue_ch (CHV4 0x10, CHV6 0x20).
 */
/*
 * An establishment of uplink PDR 1 as ul (FAR 1, FORW to the core) and
 * downlink PDR 2 like it (CORE, no F-TEID, FAR 2: dl_apply, down a tunnel
 * of TEID 0x5000 + cp_seid).
 */
static void
w_session_of(uint64_t cp_seid, const struct pdr_spec *ul, uint8_t dl_apply)
{
	struct pdr_spec dl = *ul;

	dl.id = 2;
	dl.src = UPF_IF_CORE;
	dl.choose = false;
	dl.far = 2;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(cp_seid);
	w_create_pdr(ul);
	w_create_pdr(&dl);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	w_create_far(2, dl_apply, UPF_IF_ACCESS, 0x5000 + (uint32_t)cp_seid);
}

static void
w_session(uint64_t cp_seid, const char *ni, uint32_t ue, uint8_t ue_ch, uint8_t dl_apply,
	  uint32_t urr)
{
	struct pdr_spec ul = { .id = 1,
			       .prec = 100,
			       .src = UPF_IF_ACCESS,
			       .choose = true,
			       .chid = -1,
			       .ni = ni,
			       .ue4 = ue,
			       .ue_ch = ue_ch,
			       .far = 1,
			       .urr = urr };

	w_session_of(cp_seid, &ul, dl_apply);
}

static void
w_plain_session(uint64_t cp_seid, uint32_t ue, uint8_t dl_apply, uint32_t urr)
{
	w_session(cp_seid, "internet", ue, 0, dl_apply, urr);
}

/* The UP SEID of the accepted Session Establishment Response in rb. */
static uint64_t
est_ok(uint64_t cp_seid)
{
	struct tlv t;

	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_int_equal(msg_seid(rb), cp_seid);
	assert_true(msg_ie(PFCP_IE_F_SEID, 0, &t));
	assert_true(t.len >= 13);
	assert_int_equal(t.v[0] & 0x02, 0x02); /* V4: our N4 address. */
	return be(t.v + 1, 8);
}

/* The Session Establishment Response refuses a PDR: Cause 73, offending IE ie, no F-SEID. */
static void
refused_on_rule(uint16_t ie)
{
	struct tlv t;

	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	assert_true(msg_ie(PFCP_IE_OFFENDING_IE, 0, &t));
	assert_int_equal(be(t.v, 2), ie);
	assert_true(msg_ie(PFCP_IE_FAILED_RULE_ID, 0, &t));
	assert_int_equal(t.v[0] & 0x0f, PFCP_RULE_PDR);
	assert_false(msg_ie(PFCP_IE_F_SEID, 0, &t));
}

static uint64_t
establish(uint64_t cp_seid, uint32_t ue, uint8_t dl_apply, uint32_t urr, uint16_t trig,
	  uint64_t thresh, uint64_t quota, uint32_t period)
{
	w_plain_session(cp_seid, ue, dl_apply, urr);
	if (urr != 0)
		w_create_urr(urr, trig, thresh, quota, period);
	end_send();
	return est_ok(cp_seid);
}

static void delete (uint64_t up_seid)
{
	begin(PFCP_SESS_DEL_REQ, true, up_seid);
	end_send();
	recv_type(PFCP_SESS_DEL_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
}

static struct upf_store_counts
counts(void)
{
	struct upf_store_counts c;

	upf_store_counts(st, &c);
	return c;
}

/* ---- Playing worker 0 ---- */

/* Wait until the agent has published a session (it answers before the test looks). */
static const struct upf_sess_dp *
dp_of_teid(uint32_t teid)
{
	const void *k = &teid;
	void *d;

	/* As a worker looks it up. */
	upf_teid_lookup_bulk(&st->teid, &k, 1, &d);
	if (d == NULL)
		fail_msg("TEID 0x%x is in no session", teid);
	return d;
}

static const struct upf_sess_dp *
dp_of_ue(uint32_t ue)
{
	struct upf_ue_key k;
	void *d;

	memset(&k, 0, sizeof(k));
	k.ni = 0;
	k.af = 4;
	ue = htonl(ue);
	memcpy(k.a, &ue, 4);
	/* As a worker looks it up. */
	upf_ue_lookup_bulk(&st->ue, (const void *[]){ &k }, 1, &d);
	if (d == NULL)
		fail_msg("UE address in no session");
	return d;
}

/* Whether the UE table (the downlink's) has IPv4 address ue of instance 0. */
static bool
ue_in_table(uint32_t ue)
{
	struct upf_ue_key k;

	memset(&k, 0, sizeof(k));
	k.af = 4;
	ue = htonl(ue);
	memcpy(k.a, &ue, 4);
	return upf_ue_find(&st->ue, &k) != NULL;
}

static void
traffic(const struct upf_sess_dp *s, unsigned int urr_idx, uint64_t ul, uint64_t dl)
{
	struct upf_urr_ctr *c = &st->wk[0].urr[s->urr[urr_idx].slot];

	__atomic_store_n(&c->bytes[0], c->bytes[0] + ul, __ATOMIC_RELAXED);
	__atomic_store_n(&c->bytes[1], c->bytes[1] + dl, __ATOMIC_RELAXED);
	__atomic_store_n(&c->pkts[0], c->pkts[0] + (ul ? 1 : 0), __ATOMIC_RELAXED);
	__atomic_store_n(&c->pkts[1], c->pkts[1] + (dl ? 1 : 0), __ATOMIC_RELAXED);
}

/* The Usage Report (of IE type) in rb: trigger, total/UL/DL volume. */
struct urep {
	uint32_t urr, seqn, trigger;
	uint64_t tot, ul, dl, pkts;
	bool has_volume;
};

static bool
usage(uint16_t type, unsigned int nth, struct urep *u)
{
	struct tlv g, t;

	if (!msg_ie(type, nth, &g))
		return false;
	memset(u, 0, sizeof(*u));
	assert_true(ie_find(g.v, g.len, PFCP_IE_URR_ID, 0, &t));
	u->urr = (uint32_t)be(t.v, 4);
	assert_true(ie_find(g.v, g.len, PFCP_IE_UR_SEQN, 0, &t));
	u->seqn = (uint32_t)be(t.v, 4);
	assert_true(ie_find(g.v, g.len, PFCP_IE_USAGE_REPORT_TRIGGER, 0, &t));
	u->trigger = t.v[0] | (uint32_t)(t.len > 1 ? t.v[1] << 8 : 0) |
		(uint32_t)(t.len > 2 ? t.v[2] << 16 : 0);
	if (ie_find(g.v, g.len, PFCP_IE_VOLUME_MEASUREMENT, 0, &t)) {
		assert_int_equal(t.v[0] & 0x07, 0x07);
		u->has_volume = true;
		u->tot = be(t.v + 1, 8);
		u->ul = be(t.v + 9, 8);
		u->dl = be(t.v + 17, 8);
		if (t.v[0] & 0x08)
			u->pkts = be(t.v + 25, 8);
	}
	return true;
}

static void
report_ack(uint8_t cause)
{
	uint32_t s = msg_seq(rb);
	uint64_t seid = msg_seid(rb);

	pfcp_w_init(&w, wb, sizeof(wb));
	pfcp_w_hdr_begin(&w, PFCP_SESS_REPORT_RESP, true, seid, s);
	pfcp_w_ie_u8(&w, PFCP_IE_CAUSE, cause);
	end_send();
}

/* ---- Telemetry, through its socket ---- */

static int
tel_query(const char *cmd, char *out, size_t cap)
{
	struct sockaddr_un sun;
	ssize_t n;
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		close(fd);
		return -1;
	}
	n = recv(fd, out, cap - 1, 0); /* The greeting. */
	if (n <= 0 || send(fd, cmd, strlen(cmd), 0) < 0) {
		close(fd);
		return -1;
	}
	n = recv(fd, out, cap - 1, 0);
	close(fd);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	return 0;
}

static void
tel_has(const char *cmd, const char *want)
{
	static char out[65536];

	if (tel_query(cmd, out, sizeof(out)) != 0)
		fail_msg("telemetry %s: no answer", cmd);
	if (strstr(out, want) == NULL)
		fail_msg("telemetry %s: \"%s\" not in %s", cmd, want, out);
}

/* Poll telemetry cmd until its answer has want (the agent runs on its own thread). */
static void
tel_wait(const char *cmd, const char *want, int timeout_ms)
{
	static char out[65536];
	int t;

	for (t = 0; t < timeout_ms; t += 10) {
		if (tel_query(cmd, out, sizeof(out)) == 0 && strstr(out, want) != NULL)
			return;
		usleep(10000);
	}
	fail_msg("telemetry %s: no \"%s\" within %d ms", cmd, want, timeout_ms);
}

/* ---- Start ---- */

static uint16_t
free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	uint16_t port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* An IPv6 prefix of the [upf] configuration. */
static void
prefix6(struct lf_upf_prefix *p, const char *a, uint8_t plen)
{
	p->af = 6;
	p->plen = plen;
	assert_int_equal(inet_pton(AF_INET6, a, p->a), 1);
}

static void
conf_init(void)
{
	struct lf_upf_conf *u = &cfg.upf;
	uint32_t n3 = htonl(N3_V4), pool = htonl(UE_POOL);

	memset(&cfg, 0, sizeof(cfg));
	u->enabled = true;
	u->has_n3_ipv4 = true;
	memcpy(u->n3_ipv4, &n3, 4);
	snprintf(u->pfcp_addr, sizeof(u->pfcp_addr), "127.0.0.1");
	u->pfcp_port = free_port();
	snprintf(u->node_id, sizeof(u->node_id), "upf.test");
	u->max_sessions = MAX_SESS;
	u->buffer_packets = 4;
	u->heartbeat_s = heartbeat_s;
	u->n_ni = 2;
	snprintf(u->ni[0].name, sizeof(u->ni[0].name), "internet");
	u->ni[0].n_pools = 1;
	u->ni[0].pool[0].af = 4;
	u->ni[0].pool[0].plen = 16;
	memcpy(u->ni[0].pool[0].a, &pool, 4);
	snprintf(u->ni[1].name, sizeof(u->ni[1].name), "ims");
	/* CHV4 from a /29 (six addresses), CHV6 from a /63 (two /64s). */
	u->ni[0].n_alloc = 2;
	u->ni[0].alloc[0].af = 4;
	u->ni[0].alloc[0].plen = 29;
	pool = htonl(UE_ALLOC);
	memcpy(u->ni[0].alloc[0].a, &pool, 4);
	prefix6(&u->ni[0].alloc[1], "fd00:45:0:8::", 63);
	u->ni[0].n_pools = 2;
	prefix6(&u->ni[0].pool[1], "fd00:45::", 48);
	snprintf(u->ni[0].pool_id, sizeof(u->ni[0].pool_id), "pool-a");
	/* "ims" allocates IPv6 only (two /64s), from its pool "pool-i". */
	u->ni[1].n_pools = 1;
	prefix6(&u->ni[1].pool[0], "fd00:99::", 48);
	u->ni[1].n_alloc = 1;
	prefix6(&u->ni[1].alloc[0], "fd00:99:0:2::", 63);
	snprintf(u->ni[1].pool_id, sizeof(u->ni[1].pool_id), "pool-i");
	/* Named pools beside them: "ent-a" of "internet" (IPv4 10.45.129.0/30,
	 * two addresses, and one IPv6 /64), "ims-2" of "ims" (one /64). */
	u->ni[0].n_named = 1;
	snprintf(u->ni[0].named[0].id, sizeof(u->ni[0].named[0].id), "ent-a");
	u->ni[0].named[0].n = 2;
	u->ni[0].named[0].p[0].af = 4;
	u->ni[0].named[0].p[0].plen = 30;
	pool = htonl(UE_ENT_A);
	memcpy(u->ni[0].named[0].p[0].a, &pool, 4);
	prefix6(&u->ni[0].named[0].p[1], "fd00:45:0:10::", 64);
	/* "fwa" of "internet" delegates /56s: the four of a /54 and one more. */
	u->ni[0].n_named = 2;
	snprintf(u->ni[0].named[1].id, sizeof(u->ni[0].named[1].id), "fwa");
	u->ni[0].named[1].n = 2;
	prefix6(&u->ni[0].named[1].p[0], "fd00:45:2::", 54);
	prefix6(&u->ni[0].named[1].p[1], "fd00:45:3:500::", 56);
	u->ni[0].named[1].ipv6_len = 56;
	u->ni[1].n_named = 1;
	snprintf(u->ni[1].named[0].id, sizeof(u->ni[1].named[0].id), "ims-2");
	u->ni[1].named[0].n = 1;
	prefix6(&u->ni[1].named[0].p[0], "fd00:99:0:4::", 64);
}

static void
test_start_errors(void **state)
{
	char err[256];
	int fd;

	(void)state;
	conf_init();
	assert_int_equal(pfcp_agent_start(NULL, st, err, sizeof(err)), -EINVAL);
	snprintf(cfg.upf.pfcp_addr, sizeof(cfg.upf.pfcp_addr), "localhost");
	assert_true(pfcp_agent_start(&cfg, st, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "localhost"));
	/* The port is taken: the error names address and port. */
	conf_init();
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	agent.sin_family = AF_INET;
	agent.sin_port = htons(cfg.upf.pfcp_port);
	agent.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&agent, sizeof(agent)), 0);
	assert_int_equal(pfcp_agent_start(&cfg, st, err, sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, "127.0.0.1"));
	{
		char port[8];

		snprintf(port, sizeof(port), "%u", cfg.upf.pfcp_port);
		assert_non_null(strstr(err, port));
	}
	close(fd);
	pfcp_agent_stop(); /* Not running: nothing to do. */
}

static int
start(void **state)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	int buf = 4 << 20;
	char err[256];

	(void)state;
	conf_init();
	if (pfcp_agent_start(&cfg, st, err, sizeof(err)) != 0) {
		fprintf(stderr, "pfcp_agent_start: %s\n", err);
		return -1;
	}
	agent.sin_family = AF_INET;
	agent.sin_port = htons(cfg.upf.pfcp_port);
	agent.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sk = socket(AF_INET, SOCK_DGRAM, 0);
	/* Room for a window of answers sent in one burst. */
	if (setsockopt(sk, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) != 0)
		(void)setsockopt(sk, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sk < 0 || bind(sk, (struct sockaddr *)&me, sizeof(me)) != 0)
		return -1;
	return 0;
}

static int
stop(void **state)
{
	(void)state;
	pfcp_agent_stop();
	close(sk);
	sk = -1;
	return 0;
}

/* ---- Invalid input ---- */

static void
test_no_association(void **state)
{
	(void)state;
	w_plain_session(7, UE_POOL + 1, UPF_FAR_FORW, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_NO_ASSOCIATION);
	assert_int_equal(msg_seid(rb), 7);
	begin(PFCP_ASSOC_RELEASE_REQ, false, 0);
	w_node_id();
	end_send();
	recv_type(PFCP_ASSOC_RELEASE_RESP, 2000);
	assert_cause(PFCP_CAUSE_NO_ASSOCIATION);
	assert_int_equal(counts().sessions, 0);
}

static void
test_heartbeat(void **state)
{
	struct tlv t;

	(void)state;
	begin(PFCP_HEARTBEAT_REQ, false, 0);
	pfcp_w_ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, cp_recovery);
	end_send();
	recv_type(PFCP_HEARTBEAT_RESP, 2000);
	assert_int_equal(msg_seq(rb), seq - 1);
	assert_true(msg_ie(PFCP_IE_RECOVERY_TIME_STAMP, 0, &t));
	/* Our start, in NTP seconds: within a minute of now. */
	assert_true(be(t.v, 4) + 60 > (uint64_t)time(NULL) + 2208988800u);
}

static void
test_association(void **state)
{
	struct tlv t;

	(void)state;
	assoc_setup(cp_recovery);
	assert_true(msg_ie(PFCP_IE_NODE_ID, 0, &t));
	assert_int_equal(t.v[0], PFCP_NODE_ID_FQDN);
	assert_true(msg_ie(PFCP_IE_UP_FUNCTION_FEATURES, 0, &t));
	assert_true(t.v[0] & PFCP_UPF_FTUP);
	assert_true(t.v[1] & (PFCP_UPF_PDIU >> 8));
	/* UEIP (octet 7 bit 3): "internet" has a ue_alloc. */
	assert_true(t.len >= 3);
	assert_int_equal(t.v[2] & 0x04, 0x04);
	/* FRRT (octet 6 bit 6): Framed Routing. */
	assert_true(t.v[1] & (PFCP_UPF_FRRT >> 8));
	/* VTIME (octet 8 bit 3): Quota Validity Time. */
	assert_true(t.len >= 4);
	assert_int_equal(t.v[3] & 0x04, 0x04);
	/* "internet"'s pool, announced: Pool Identity and Network Instance. */
	assert_true(msg_ie(PFCP_IE_UE_IP_POOL_INFO, 0, &t));
	assert_int_equal(t.len, 4 + 8 + 4 + 8);
	assert_memory_equal(t.v, "\x00\xb1\x00\x08\x00\x06pool-a\x00\x16\x00\x08internet", 24);
	/* Then its named pools, then "ims"'s two. */
	assert_true(msg_ie(PFCP_IE_UE_IP_POOL_INFO, 1, &t));
	assert_int_equal(t.len, 4 + 7 + 4 + 8);
	assert_memory_equal(t.v,
			    "\x00\xb1\x00\x07\x00\x05"
			    "ent-a\x00\x16\x00\x08internet",
			    23);
	assert_true(msg_ie(PFCP_IE_UE_IP_POOL_INFO, 2, &t));
	assert_memory_equal(t.v,
			    "\x00\xb1\x00\x05\x00\x03"
			    "fwa\x00\x16\x00\x08internet",
			    21);
	assert_true(msg_ie(PFCP_IE_UE_IP_POOL_INFO, 3, &t));
	assert_int_equal(t.len, 4 + 8 + 4 + 3);
	assert_memory_equal(t.v, "\x00\xb1\x00\x08\x00\x06pool-i\x00\x16\x00\x03ims", 19);
	assert_true(msg_ie(PFCP_IE_UE_IP_POOL_INFO, 4, &t));
	assert_memory_equal(t.v,
			    "\x00\xb1\x00\x07\x00\x05"
			    "ims-2\x00\x16\x00\x03ims",
			    18);
	assert_false(msg_ie(PFCP_IE_UE_IP_POOL_INFO, 5, &t));
	assert_true(msg_ie(PFCP_IE_RECOVERY_TIME_STAMP, 0, &t));
	tel_has("/lanefwd/upf", "\"associations\":1");
}

/* Rules the agent refuses: the right Cause, and nothing left in the store. */
static void
test_rejected_rules(void **state)
{
	struct pdr_spec p = { .id = 1,
			      .prec = 10,
			      .src = UPF_IF_ACCESS,
			      .choose = true,
			      .chid = -1,
			      .ni = "nowhere",
			      .far = 1 };
	struct upf_store_counts before = counts();
	struct tlv t;

	(void)state;
	/* An unknown network instance. */
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(11);
	w_create_pdr(&p);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	refused_on_rule(PFCP_IE_NETWORK_INSTANCE);

	/* A PDR naming a FAR the session lacks. */
	p.ni = "internet";
	p.far = 9;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(12);
	w_create_pdr(&p);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	assert_true(msg_ie(PFCP_IE_FAILED_RULE_ID, 0, &t));
	assert_int_equal(be(t.v + 1, 2), 1);

	/* DUPL: rejected, not ignored. */
	p.far = 1;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(13);
	w_create_pdr(&p);
	w_create_far(1, UPF_FAR_FORW | UPF_FAR_DUPL, UPF_IF_CORE, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	assert_true(msg_ie(PFCP_IE_FAILED_RULE_ID, 0, &t));
	assert_int_equal(t.v[0] & 0x0f, PFCP_RULE_FAR);

	/* Forwarding to the access side without outer header creation. */
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(14);
	w_create_pdr(&p);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_ACCESS, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_CONDITIONAL_IE_MISSING);

	/* A TEID another session holds: the second session is refused whole. */
	p.choose = false;
	p.teid = 0x77;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(15);
	w_create_pdr(&p);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	est_ok(15);
	before = counts();
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(16);
	p.id = 5;
	w_create_pdr(&p);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	assert_true(msg_ie(PFCP_IE_FAILED_RULE_ID, 0, &t));
	assert_int_equal(be(t.v + 1, 2), 5);
	assert_int_equal(counts().sessions, before.sessions);
	assert_int_equal(counts().pdrs, before.pdrs);
}

static void
test_unknown_seid(void **state)
{
	(void)state;
	begin(PFCP_SESS_MOD_REQ, true, 0x1234567800000001ull);
	w_update_far(1, UPF_FAR_DROP, 0);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_SESSION_NOT_FOUND);
	assert_int_equal(msg_seid(rb), 0);
	begin(PFCP_SESS_DEL_REQ, true, 99);
	end_send();
	recv_type(PFCP_SESS_DEL_RESP, 2000);
	assert_cause(PFCP_CAUSE_SESSION_NOT_FOUND);
	assert_int_equal(msg_seid(rb), 0);
}

static void
test_malformed(void **state)
{
	uint8_t junk[4] = { 0x20, 0x32, 0x00, 0x00 };
	struct tlv t;
	size_t n;

	(void)state;
	/* Unreadable: dropped and counted. */
	assert_int_equal(sendto(sk, junk, sizeof(junk), 0, (struct sockaddr *)&agent,
				sizeof(agent)),
			 sizeof(junk));
	recv_none(100);
	tel_has("/lanefwd/upf", "\"malformed_dropped\":1");
	/* Readable header, a Create PDR without its PDI: the codec's Cause, same message type. */
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(21);
	{
		size_t g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_PDR);

		pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, 1);
		pfcp_w_ie_u32(&w, PFCP_IE_PRECEDENCE, 1);
		pfcp_w_ie_end(&w, g);
	}
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_MANDATORY_IE_MISSING);
	assert_true(msg_ie(PFCP_IE_OFFENDING_IE, 0, &t));
	assert_int_equal(be(t.v, 2), PFCP_IE_PDI);
	/* Version 2: Version Not Supported. */
	begin(PFCP_HEARTBEAT_REQ, false, 0);
	pfcp_w_ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, cp_recovery);
	n = (size_t)pfcp_w_hdr_end(&w);
	wb[0] = (uint8_t)((wb[0] & 0x1f) | 0x40);
	assert_int_equal(sendto(sk, wb, n, 0, (struct sockaddr *)&agent, sizeof(agent)),
			 (ssize_t)n);
	recv_type(PFCP_VERSION_NOT_SUPPORTED, 2000);
	/* The agent still serves. */
	test_heartbeat(state);
}

/* ---- Sessions ---- */

static void
test_establish_choose(void **state)
{
	struct pdr_spec p1 = { .id = 1,
			       .prec = 10,
			       .src = UPF_IF_ACCESS,
			       .choose = true,
			       .chid = 7,
			       .ni = "internet",
			       .far = 1 };
	struct pdr_spec p2 = p1, p3 = p1;
	struct tlv c[3], t;
	uint32_t teid[3];
	uint64_t up;
	unsigned int i;
	size_t n;

	(void)state;
	p2.id = 2;
	p2.prec = 20;
	p3.id = 3;
	p3.chid = -1;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(31);
	w_create_pdr(&p1);
	w_create_pdr(&p2);
	w_create_pdr(&p3);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	n = end_send();
	up = est_ok(31);
	for (i = 0; i < 3; i++) {
		assert_true(msg_ie(PFCP_IE_CREATED_PDR, i, &c[i]));
		assert_true(ie_find(c[i].v, c[i].len, PFCP_IE_F_TEID, 0, &t));
		assert_int_equal(t.v[0] & 0x01, 0x01);
		teid[i] = (uint32_t)be(t.v + 1, 4);
		assert_int_equal(be(t.v + 5, 4), N3_V4);
	}
	/* Same CHOOSE ID, same TEID; without one, another. */
	assert_int_equal(teid[0], teid[1]);
	assert_int_not_equal(teid[0], teid[2]);
	/* Chosen from the range the TEID table indexes directly. */
	assert_true(upf_teid_is_direct(teid[0]) && upf_teid_is_direct(teid[2]));
	assert_int_equal(dp_of_teid(teid[0])->up_seid, up);
	assert_int_equal(dp_of_teid(teid[2])->up_seid, up);

	/* The same request again (a retransmission): the same answer, applied once. */
	{
		uint8_t first[4096];
		size_t fl = rn;
		struct upf_store_counts before = counts();

		memcpy(first, rb, rn);
		assert_int_equal(sendto(sk, wb, n, 0, (struct sockaddr *)&agent, sizeof(agent)),
				 (ssize_t)n);
		recv_type(PFCP_SESS_EST_RESP, 2000);
		assert_int_equal(rn, fl);
		assert_memory_equal(rb, first, fl);
		assert_int_equal(counts().sessions, before.sessions);
		tel_has("/lanefwd/upf", "\"duplicates_answered\":1");
	}
	delete (up);
}

/*
 * A Create / Update Traffic Endpoint id: F-TEID CHOOSE (V4) with teid 0,
 * else that TEID at N3_V4 (UINT32_MAX: no F-TEID), network instance ni,
 * UE IPv4 ue4, else UE IP Address flags ue_ch (CHV4 0x10), neither: none.
 */
static void
w_te(uint16_t type, uint8_t id, uint32_t teid, const char *ni, uint32_t ue4, uint8_t ue_ch)
{
	size_t g = pfcp_w_ie_begin(&w, type), o;

	pfcp_w_ie_u8(&w, PFCP_IE_TRAFFIC_ENDPOINT_ID, id);
	if (teid != UINT32_MAX) {
		o = pfcp_w_ie_begin(&w, PFCP_IE_F_TEID);
		pfcp_w_raw8(&w, teid == 0 ? 0x05 : 0x01);
		if (teid != 0) {
			pfcp_w_raw32(&w, teid);
			pfcp_w_raw32(&w, N3_V4);
		}
		pfcp_w_ie_end(&w, o);
	}
	if (ni != NULL)
		pfcp_w_ie_bytes(&w, PFCP_IE_NETWORK_INSTANCE, ni, strlen(ni));
	if (ue4 != 0 || ue_ch != 0) {
		o = pfcp_w_ie_begin(&w, PFCP_IE_UE_IP_ADDRESS);
		pfcp_w_raw8(&w, ue4 != 0 ? 0x02 : ue_ch);
		if (ue4 != 0)
			pfcp_w_raw32(&w, ue4);
		pfcp_w_ie_end(&w, o);
	}
	pfcp_w_ie_end(&w, g);
}

/*
 * The Created Traffic Endpoint id in rb: whether there is one, and its
 * F-TEID's TEID (at N3_V4) and UE IPv4 address, 0 where it has none.
 */
static bool
created_te(uint8_t id, uint32_t *teid, uint32_t *ue4)
{
	struct tlv c, t;
	unsigned int i;

	for (i = 0; msg_ie(PFCP_IE_CREATED_TRAFFIC_ENDPOINT, i, &c); i++) {
		assert_true(ie_find(c.v, c.len, PFCP_IE_TRAFFIC_ENDPOINT_ID, 0, &t));
		assert_int_equal(t.len, 1);
		if (t.v[0] != id)
			continue;
		*teid = *ue4 = 0;
		if (ie_find(c.v, c.len, PFCP_IE_F_TEID, 0, &t)) {
			assert_int_equal(t.v[0], 0x01);
			*teid = (uint32_t)be(t.v + 1, 4);
			assert_int_equal(be(t.v + 5, 4), N3_V4);
		}
		if (ie_find(c.v, c.len, PFCP_IE_UE_IP_ADDRESS, 0, &t)) {
			assert_int_equal(t.v[0], 0x02);
			*ue4 = (uint32_t)be(t.v + 1, 4);
		}
		return true;
	}
	return false;
}

/* A Session Modification Request's answer: cause, and the Offending IE where refused. */
static void
mod_answer(unsigned int cause, uint16_t ie)
{
	struct tlv t;

	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(cause);
	if (ie != 0) {
		assert_true(msg_ie(PFCP_IE_OFFENDING_IE, 0, &t));
		assert_int_equal(be(t.v, 2), ie);
	}
}

/*
 * Traffic Endpoints (PDI optimisation, PDIU advertised): PDRs that name an
 * endpoint match on its F-TEID, UE address and network instance. What
 * the UP chooses for it is chosen once, shared by its PDRs, and sent in a
 * Created Traffic Endpoint (no Created PDR); a second endpoint with CHV4
 * in the same instance gets the session's address. An Update Traffic
 * Endpoint moves every PDR that names it; removing one a PDR still names,
 * updating or removing one the session lacks, creating one twice, and
 * leaving one the UP chose for without a PDR are Cause 73, with nothing
 * applied.
 */
static void
test_traffic_endpoint(void **state)
{
	struct pdr_spec p1 = { .id = 1, .prec = 10, .src = UPF_IF_ACCESS, .far = 1, .te = 1 };
	struct pdr_spec p2 = p1, p3 = p1, p4 = p1;
	struct upf_store_counts before = counts();
	const uint32_t teids = upf_teid_count(&st->teid);
	uint32_t teid1, teid2, ue1, ue2, x;
	char cmd[64];
	struct tlv t;
	uint64_t up;

	(void)state;
	p2.id = 2;
	p2.prec = 20;
	p3.id = 3;
	p3.src = UPF_IF_CORE;
	p3.far = 2;
	p3.te = 2;
	p4.id = 4;
	p4.prec = 30;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(901);
	w_te(PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 1, 0, "internet", 0, 0x10);
	w_te(PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 2, UINT32_MAX, "internet", 0, 0x10);
	w_create_pdr(&p1);
	w_create_pdr(&p2);
	w_create_pdr(&p3);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	w_create_far(2, UPF_FAR_FORW, UPF_IF_ACCESS, 0x5901);
	end_send();
	up = est_ok(901);
	assert_false(msg_ie(PFCP_IE_CREATED_PDR, 0, &t));
	assert_true(created_te(1, &teid1, &ue1));
	assert_true(created_te(2, &x, &ue2));
	assert_int_not_equal(teid1, 0);
	assert_true(upf_teid_is_direct(teid1));
	assert_int_equal(x, 0);
	assert_true(ue1 >= UE_ALLOC + 1 && ue1 <= UE_ALLOC + 6);
	assert_int_equal(ue2, ue1);
	assert_int_equal(dp_of_teid(teid1)->up_seid, up);
	assert_int_equal(dp_of_ue(ue1)->up_seid, up);
	/* PDRs 1 and 2 share it: the session holds one TEID. */
	assert_int_equal(upf_teid_count(&st->teid), teids + 1);
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up);
	tel_has(cmd, "\"traffic_endpoints\":2");
	tel_has(cmd, "\"traffic_endpoint\":2");
	tel_has(cmd, "\"traffic_endpoint_1\":{\"network_instance\":\"internet\",\"teid\":");

	/* A new F-TEID for endpoint 1: both its PDRs move, and PDR 4 joins them. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_te(PFCP_IE_UPDATE_TRAFFIC_ENDPOINT, 1, 0, NULL, 0, 0);
	w_create_pdr(&p4);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	assert_false(msg_ie(PFCP_IE_CREATED_PDR, 0, &t));
	assert_true(created_te(1, &teid2, &x));
	assert_int_equal(x, 0); /* The UE address stays the one chosen. */
	assert_false(created_te(2, &x, &x));
	assert_int_not_equal(teid2, teid1);
	assert_int_equal(dp_of_teid(teid2)->up_seid, up);
	/* No PDR kept the old one. */
	assert_null(upf_teid_find(&st->teid, teid1));
	assert_int_equal(upf_teid_count(&st->teid), teids + 1);
	assert_int_equal(dp_of_ue(ue1)->up_seid, up);
	tel_has(cmd, "\"pdrs\":4");

	/* Refused, and nothing changes: endpoint 2 still named by PDR 3... */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_TRAFFIC_ENDPOINT, PFCP_IE_TRAFFIC_ENDPOINT_ID, 2);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	assert_true(msg_ie(PFCP_IE_FAILED_RULE_ID, 0, &t));
	assert_int_equal(t.v[0] & 0x0f, PFCP_RULE_PDR);
	assert_int_equal(be(t.v + 1, 2), 3);
	/* ...an endpoint the session lacks, updated or removed; one created twice... */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_te(PFCP_IE_UPDATE_TRAFFIC_ENDPOINT, 5, 0, NULL, 0, 0);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_TRAFFIC_ENDPOINT);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_TRAFFIC_ENDPOINT, PFCP_IE_TRAFFIC_ENDPOINT_ID, 5);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_TRAFFIC_ENDPOINT);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_te(PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 1, 0, NULL, 0, 0);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_TRAFFIC_ENDPOINT);
	/* ...and endpoint 1, whose F-TEID the UP chose, left without a PDR. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_PDR, PFCP_IE_PDR_ID, 1);
	w_id_group(PFCP_IE_REMOVE_PDR, PFCP_IE_PDR_ID, 2);
	w_id_group(PFCP_IE_REMOVE_PDR, PFCP_IE_PDR_ID, 4);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	assert_int_equal(dp_of_teid(teid2)->up_seid, up);
	assert_int_equal(dp_of_ue(ue1)->up_seid, up);
	tel_has(cmd, "\"pdrs\":4");

	/* PDR 3 and its endpoint go together: the downlink no longer finds the UE. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_PDR, PFCP_IE_PDR_ID, 3);
	w_id_group(PFCP_IE_REMOVE_TRAFFIC_ENDPOINT, PFCP_IE_TRAFFIC_ENDPOINT_ID, 2);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	assert_false(ue_in_table(ue1));
	assert_int_equal(dp_of_teid(teid2)->up_seid, up);
	tel_has(cmd, "\"traffic_endpoints\":1");
	delete (up);
	assert_null(upf_teid_find(&st->teid, teid2));

	/* Given, not chosen: the CP's TEID and UE address. */
	p3.te = 1;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(902);
	w_te(PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 1, 0x7707, NULL, UE_POOL + 77, 0);
	w_create_pdr(&p1);
	w_create_pdr(&p3);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	w_create_far(2, UPF_FAR_FORW, UPF_IF_ACCESS, 0x5902);
	end_send();
	up = est_ok(902);
	assert_false(msg_ie(PFCP_IE_CREATED_TRAFFIC_ENDPOINT, 0, &t));
	assert_false(msg_ie(PFCP_IE_CREATED_PDR, 0, &t));
	assert_int_equal(dp_of_teid(0x7707)->up_seid, up);
	assert_int_equal(dp_of_ue(UE_POOL + 77)->up_seid, up);
	/* The instance came from the UE address, as a PDI's does. */
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up);
	tel_has(cmd, "\"traffic_endpoint_1\":{\"network_instance\":\"internet\"");
	delete (up);

	/* A PDR naming an endpoint the session does not have. */
	p1.te = 9;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(903);
	w_create_pdr(&p1);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	refused_on_rule(PFCP_IE_TRAFFIC_ENDPOINT_ID);
	/* An endpoint with F-TEID CHOOSE that no PDR names: what would hold its TEID? */
	p1.te = 0;
	p1.choose = true;
	p1.chid = -1;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(904);
	w_te(PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 3, 0, NULL, 0, 0);
	w_create_pdr(&p1);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	assert_true(msg_ie(PFCP_IE_OFFENDING_IE, 0, &t));
	assert_int_equal(be(t.v, 2), PFCP_IE_TRAFFIC_ENDPOINT_ID);
	assert_false(msg_ie(PFCP_IE_F_SEID, 0, &t));
	assert_int_equal(counts().sessions, before.sessions);
	assert_int_equal(counts().pdrs, before.pdrs);
}

/*
 * UE IP Address CHOOSE: CHV4 sessions get addresses of the /29's six in
 * pool order, one per session shared by its PDRs (later ones too); a full
 * pool is Cause 75, a freed address comes back only after the cursor has
 * gone round; an instance without ue_alloc is Cause 73.
 */
static struct tlv ue_ie;

/* The UE IP Address of the Created PDR of PDR pdr in rb: its flags octet. */
static uint8_t
created_ue(uint16_t pdr)
{
	struct tlv c, t;
	unsigned int i;

	for (i = 0; msg_ie(PFCP_IE_CREATED_PDR, i, &c); i++) {
		if (!ie_find(c.v, c.len, PFCP_IE_PDR_ID, 0, &t) || be(t.v, 2) != pdr)
			continue;
		if (!ie_find(c.v, c.len, PFCP_IE_UE_IP_ADDRESS, 0, &ue_ie))
			fail_msg("Created PDR %u without a UE IP Address", pdr);
		return ue_ie.v[0];
	}
	fail_msg("no Created PDR %u", pdr);
	return 0;
}

/* A session of w_session() with UE IP CHOOSE ch on both PDRs: its IPv4 address, or 0 with cause. */
static uint32_t
establish_chv4(uint64_t cp_seid, const char *ni, uint8_t ch, unsigned int want_cause, uint64_t *up)
{
	struct tlv t;
	uint32_t a;

	w_session(cp_seid, ni, 0, ch, UPF_FAR_FORW, 0);
	end_send();
	if (want_cause != PFCP_CAUSE_ACCEPTED) {
		recv_type(PFCP_SESS_EST_RESP, 2000);
		assert_cause(want_cause);
		assert_false(msg_ie(PFCP_IE_CREATED_PDR, 0, &t));
		return 0;
	}
	*up = est_ok(cp_seid);
	/* Both PDRs: V4 (and V6 with CHV6; S/D 0 outside a PDI), the same address. */
	assert_int_equal(created_ue(1), ch == 0x30 ? 0x03 : 0x02);
	a = (uint32_t)be(ue_ie.v + 1, 4);
	assert_int_equal(created_ue(2), ch == 0x30 ? 0x03 : 0x02);
	assert_int_equal(be(ue_ie.v + 1, 4), a);
	/* The uplink PDR's Created PDR also has its chosen F-TEID. */
	assert_true(msg_ie(PFCP_IE_CREATED_PDR, 0, &t));
	assert_int_equal(dp_of_ue(a)->up_seid, *up);
	return a;
}

/*
 * CHV4 sessions cp_seid.. until the /29 pool (six addresses) is full, held
 * being the one address a session holds already: the other 5, each once,
 * then Cause 75 for the next (cp_seid + 5). up[0..5) are their UP SEIDs.
 */
static void
fill_pool_but(uint64_t cp_seid, uint32_t held, uint64_t *up)
{
	uint32_t got[5];
	uint64_t up_x;
	unsigned int i, j;

	for (i = 0; i < 5; i++) {
		got[i] = establish_chv4(cp_seid + i, "internet", 0x10, PFCP_CAUSE_ACCEPTED, &up[i]);
		assert_int_not_equal(got[i], held);
		for (j = 0; j < i; j++)
			assert_int_not_equal(got[i], got[j]);
	}
	establish_chv4(cp_seid + 5, "internet", 0x10, PFCP_CAUSE_NO_RESOURCES, &up_x);
}

/*
 * The last session that held addr has gone: nothing is held, and a CHV4
 * session (cp_seid) gets addr, the pool's one free address. Then it and
 * fill_pool_but()'s sessions up[0..5) go.
 */
static void
last_free_is(uint64_t cp_seid, uint32_t addr, const uint64_t *up)
{
	uint64_t up_x;
	unsigned int i;

	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":0");
	assert_int_equal(establish_chv4(cp_seid, "internet", 0x10, PFCP_CAUSE_ACCEPTED, &up_x),
			 addr);
	delete (up_x);
	for (i = 0; i < 5; i++)
		delete (up[i]);
}

/*
 * An address chosen for a session's uplink PDR alone is in use, though no
 * downlink PDR names it (the UE table does not have it): no other session
 * is given it. Once the session's downlink PDR names it (the UE table has
 * it), after that PDR is removed again, and after the session ends, the
 * pool counts it as any other. The /29 pool has 6 addresses.
 */
static void
test_choose_ue_uplink_only(void **state)
{
	struct pdr_spec ul = { .id = 1,
			       .prec = 100,
			       .src = UPF_IF_ACCESS,
			       .choose = true,
			       .chid = -1,
			       .ni = "internet",
			       .ue_ch = 0x10,
			       .far = 1 };
	struct pdr_spec dl = { .id = 2,
			       .prec = 100,
			       .src = UPF_IF_CORE,
			       .chid = -1,
			       .ni = "internet",
			       .ue_ch = 0x10,
			       .far = 2 };
	const uint32_t base = counts().sessions;
	uint64_t up[6], up_ul, up_x;
	uint32_t a;

	(void)state;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(300);
	w_create_pdr(&ul);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	up_ul = est_ok(300);
	assert_int_equal(created_ue(1), 0x02);
	a = (uint32_t)be(ue_ie.v + 1, 4);
	assert_false(ue_in_table(a));
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":1");

	/* The other 5 addresses, each once; then the pool is full. */
	fill_pool_but(301, a, up);

	/* The session's downlink PDR asks too: its address, now in the UE table. */
	begin(PFCP_SESS_MOD_REQ, true, up_ul);
	w_create_pdr(&dl);
	w_create_far(2, UPF_FAR_FORW, UPF_IF_ACCESS, 0x5300);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_int_equal(created_ue(2), 0x02);
	assert_int_equal(be(ue_ie.v + 1, 4), a);
	assert_int_equal(dp_of_ue(a)->up_seid, up_ul);
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":0");
	establish_chv4(307, "internet", 0x10, PFCP_CAUSE_NO_RESOURCES, &up_x);

	/* The downlink PDR removed: the uplink PDR alone holds it again. */
	begin(PFCP_SESS_MOD_REQ, true, up_ul);
	w_id_group(PFCP_IE_REMOVE_PDR, PFCP_IE_PDR_ID, 2);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_false(ue_in_table(a));
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":1");
	establish_chv4(308, "internet", 0x10, PFCP_CAUSE_NO_RESOURCES, &up_x);

	/* The session ends: its address is the one free. */
	delete (up_ul);
	last_free_is(309, a, up);
	assert_int_equal(counts().sessions, base);
}

/* A session whose one PDR is an uplink one naming the SMF-given UE address ue. */
static uint64_t
establish_ul_given(uint64_t cp_seid, uint32_t ue)
{
	struct pdr_spec ul = { .id = 1,
			       .prec = 100,
			       .src = UPF_IF_ACCESS,
			       .choose = true,
			       .chid = -1,
			       .ni = "internet",
			       .ue4 = ue,
			       .far = 1 };

	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(cp_seid);
	w_create_pdr(&ul);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	return est_ok(cp_seid);
}

/*
 * An address of the ue_alloc pool that the SMF gave, named by uplink PDRs
 * alone, is in use as a chosen one is: CHOOSE does not hand it out while
 * any session names it (two do here), and does once the last is gone. A
 * given address outside the pool is not held at all.
 */
static void
test_choose_ue_given_uplink_only(void **state)
{
	const uint32_t x = UE_ALLOC + 3, outside = UE_POOL + 77;
	const uint32_t base = counts().sessions;
	uint64_t up[6], up_a, up_b, up_c, up_x;

	(void)state;
	up_a = establish_ul_given(400, x);
	assert_false(ue_in_table(x));
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":1");
	up_c = establish_ul_given(401, x);
	up_b = establish_ul_given(402, outside);
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":1");

	/* The pool's other 5 addresses, each once; then it is full. */
	fill_pool_but(403, x, up);

	/* One of the two sessions that name it goes: the other still holds it. */
	delete (up_a);
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":1");
	establish_chv4(409, "internet", 0x10, PFCP_CAUSE_NO_RESOURCES, &up_x);

	/* The last goes: it is the one free. */
	delete (up_c);
	last_free_is(410, x, up);
	delete (up_b);
	assert_int_equal(counts().sessions, base);
}

/* Send a Session Establishment Request of PDRs ul and dl, to FARs 1 and 2. */
static void
pool_session(const struct pdr_spec *ul, const struct pdr_spec *dl, uint64_t cp_seid)
{
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(cp_seid);
	w_create_pdr(ul);
	w_create_pdr(dl);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	w_create_far(2, UPF_FAR_FORW, UPF_IF_ACCESS, 0x6000);
	end_send();
}

/*
 * An uplink PDR with CHOOSE (F-TEID) and CHV4 naming pool, to FAR 1, and
 * a downlink one with CHV4 naming it too, to FAR 2 (pool_session()).
 */
static void
pool_pdrs(const char *pool, struct pdr_spec *ul, struct pdr_spec *dl)
{
	*ul = (struct pdr_spec){ .id = 1,
				 .prec = 100,
				 .src = UPF_IF_ACCESS,
				 .choose = true,
				 .chid = -1,
				 .ue_ch = 0x10,
				 .pool = pool,
				 .far = 1 };
	*dl = *ul;
	dl->id = 2;
	dl->src = UPF_IF_CORE;
	dl->choose = false;
	dl->far = 2;
}

/*
 * UE IP address Pool Identity with CHV4: the pool names the instance (no
 * Network Instance IE needed); a pool not configured, or another
 * instance's than the Network Instance IE names, is Cause 73 naming the
 * IE and the PDR, and leaves no session behind.
 */
static void
test_choose_ue_pool_id(void **state)
{
	struct pdr_spec ul, dl;
	const uint32_t base = counts().sessions;
	uint64_t up;
	uint32_t a;

	(void)state;
	pool_pdrs("pool-a", &ul, &dl);
	for (unsigned int k = 0; k < 3; k++) {
		/* k: the pool; an unknown one; the pool with another instance named. */
		ul.pool = dl.pool = k == 1 ? "pool-b" : "pool-a";
		ul.ni = dl.ni = k == 2 ? "ims" : NULL;
		pool_session(&ul, &dl, 600 + k);
		if (k != 0) {
			refused_on_rule(PFCP_IE_UE_IP_POOL_ID);
			continue;
		}
		up = est_ok(600);
		assert_int_equal(created_ue(2), 0x02);
		a = (uint32_t)be(ue_ie.v + 1, 4);
		assert_true(a > UE_ALLOC && a < UE_ALLOC + 7);
		assert_int_equal(dp_of_ue(a)->up_seid, up);
		delete (up);
	}

	/* CHV4 and CHV6 naming a pool of each of two instances: Cause 73 on
	 * the Pool Identity, nothing left; "ims"'s IPv6 pool alone gives a
	 * /64 of it, the instance named by the pool. */
	for (unsigned int k = 0; k < 2; k++) {
		ul.ue_ch = dl.ue_ch = k == 0 ? 0x30 : 0x20;
		ul.pool = dl.pool = k == 0 ? "pool-a" : "pool-i";
		ul.pool2 = dl.pool2 = k == 0 ? "pool-i" : NULL;
		ul.ni = dl.ni = NULL;
		pool_session(&ul, &dl, 610 + k);
		if (k == 0) {
			refused_on_rule(PFCP_IE_UE_IP_POOL_ID);
			assert_int_equal(counts().sessions, base);
			continue;
		}
		up = est_ok(610 + k);
		/* V6 (S/D 0): a /64 of fd00:99:0:2::/63. */
		assert_int_equal(created_ue(2), 0x01);
		assert_memory_equal(ue_ie.v + 1, "\xfd\x00\x00\x99\x00\x00\x00", 7);
		assert_int_equal(ue_ie.v[8] & 0xfe, 0x02);
		delete (up);
	}
	assert_int_equal(counts().sessions, base);
}

/*
 * A named pool (ue_alloc.ID) beside the instance's ue_alloc: a CHOOSE that
 * names it takes from it, in pool order, one that names none never does;
 * an address the SMF gave from it is not handed out; a full one is Cause
 * 75 (no resources). A family the named pool lacks comes from the
 * instance's ue_alloc, or is Cause 73 on the UE IP Address where that has
 * none. Of two pools named for one family, the first gives.
 */
static void
test_choose_ue_named_pool(void **state)
{
	struct pdr_spec ul, dl;
	const uint32_t base = counts().sessions;
	uint64_t up[3];
	uint32_t a;

	(void)state;
	pool_pdrs("ent-a", &ul, &dl);
	/* CHV4 from "ent-a": .1, then .2 (network and broadcast left out). */
	for (unsigned int k = 0; k < 2; k++) {
		pool_session(&ul, &dl, 700 + k);
		up[k] = est_ok(700 + k);
		assert_int_equal(created_ue(2), 0x02);
		a = (uint32_t)be(ue_ie.v + 1, 4);
		assert_int_equal(a, UE_ENT_A + 1 + k);
		assert_int_equal(dp_of_ue(a)->up_seid, up[k]);
	}
	/* Full: no resources, nothing left; one naming no pool still gets
	 * an address of ue_alloc. */
	pool_session(&ul, &dl, 702);
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_NO_RESOURCES);
	assert_int_equal(counts().sessions, base + 2);
	ul.pool = dl.pool = NULL;
	ul.ni = dl.ni = "internet";
	pool_session(&ul, &dl, 703);
	up[2] = est_ok(703);
	assert_int_equal(created_ue(2), 0x02);
	a = (uint32_t)be(ue_ie.v + 1, 4);
	assert_true(a > UE_ALLOC && a < UE_ALLOC + 7);
	for (unsigned int k = 0; k < 3; k++)
		delete (up[k]);

	/* An address of "ent-a" the SMF gave (a downlink PDR's, .1) is not
	 * handed out: the pool gives .2, then is full. */
	{
		struct pdr_spec gul = ul, gdl = dl;

		gul.ue_ch = gdl.ue_ch = 0;
		gdl.ue4 = UE_ENT_A + 1;
		pool_session(&gul, &gdl, 710);
		up[0] = est_ok(710);
	}
	ul.pool = dl.pool = "ent-a";
	ul.ni = dl.ni = NULL;
	pool_session(&ul, &dl, 711);
	up[1] = est_ok(711);
	assert_int_equal(created_ue(2), 0x02);
	assert_int_equal((uint32_t)be(ue_ie.v + 1, 4), UE_ENT_A + 2);
	pool_session(&ul, &dl, 712);
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_NO_RESOURCES);
	delete (up[0]);
	delete (up[1]);

	/* CHV4 and CHV6 naming "ent-a": both from it, the /64 its one. */
	ul.ue_ch = dl.ue_ch = 0x30;
	pool_session(&ul, &dl, 720);
	up[0] = est_ok(720);
	assert_int_equal(created_ue(2), 0x03);
	assert_true((uint32_t)be(ue_ie.v + 1, 4) >= UE_ENT_A + 1 &&
		    (uint32_t)be(ue_ie.v + 1, 4) <= UE_ENT_A + 2);
	assert_memory_equal(ue_ie.v + 5, "\xfd\x00\x00\x45\x00\x00\x00\x10", 8);
	delete (up[0]);

	/* "ims-2" (IPv6 only) with CHV6: its /64; with CHV4 as well, IPv4
	 * would come from "ims"'s ue_alloc, which has none: Cause 73. */
	ul.pool = dl.pool = "ims-2";
	ul.ue_ch = dl.ue_ch = 0x20;
	pool_session(&ul, &dl, 730);
	up[0] = est_ok(730);
	assert_int_equal(created_ue(2), 0x01);
	assert_memory_equal(ue_ie.v + 1, "\xfd\x00\x00\x99\x00\x00\x00\x04", 8);
	delete (up[0]);
	ul.ue_ch = dl.ue_ch = 0x30;
	pool_session(&ul, &dl, 731);
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);

	/* "pool-a" (ue_alloc) then "ent-a", both IPv4: the first named. */
	ul.pool = dl.pool = "pool-a";
	ul.pool2 = dl.pool2 = "ent-a";
	ul.ue_ch = dl.ue_ch = 0x10;
	pool_session(&ul, &dl, 740);
	up[0] = est_ok(740);
	assert_int_equal(created_ue(2), 0x02);
	a = (uint32_t)be(ue_ie.v + 1, 4);
	assert_true(a > UE_ALLOC && a < UE_ALLOC + 7);
	delete (up[0]);
	assert_int_equal(counts().sessions, base);
}

static void
test_establish_choose_ue(void **state)
{
	static const uint8_t v6_0[8] = { 0xfd, 0x00, 0x00, 0x45, 0, 0, 0, 8 };
	uint64_t up[8], up_x;
	uint32_t a;
	unsigned int i;
	struct pdr_spec dl3 = { .id = 3,
				.prec = 50,
				.src = UPF_IF_CORE,
				.chid = -1,
				.ni = "internet",
				.ue_ch = 0x10,
				.far = 2 };

	const uint32_t base = counts().sessions;

	(void)state;
	/* In pool order, the network address (.0) left out. */
	for (i = 0; i < 5; i++) {
		a = establish_chv4(200 + i, "internet", 0x10, PFCP_CAUSE_ACCEPTED, &up[i]);
		assert_int_equal(a, UE_ALLOC + 1 + i);
	}
	/* Without a Network Instance: "internet" is the one instance that allocates. */
	a = establish_chv4(205, NULL, 0x10, PFCP_CAUSE_ACCEPTED, &up[5]);
	assert_int_equal(a, UE_ALLOC + 6);
	/* Full (the broadcast address .7 is not handed out). */
	establish_chv4(206, "internet", 0x10, PFCP_CAUSE_NO_RESOURCES, &up_x);
	assert_int_equal(counts().sessions, base + 6);
	tel_has("/lanefwd/upf", "\"ue_ips_chosen\":6");

	/* A PDR added later with CHV4: the session's address again. */
	begin(PFCP_SESS_MOD_REQ, true, up[0]);
	w_create_pdr(&dl3);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_int_equal(created_ue(3), 0x02);
	assert_int_equal(be(ue_ie.v + 1, 4), UE_ALLOC + 1);
	tel_has("/lanefwd/upf", "\"ue_ips_chosen\":6");

	/* Freed: .2 and .5. The failed request took the cursor round to .1,
	 * so .2 comes first. */
	delete (up[1]);
	delete (up[4]);
	assert_int_equal(establish_chv4(207, "internet", 0x10, PFCP_CAUSE_ACCEPTED, &up[1]),
			 UE_ALLOC + 2);
	/* .1 freed behind the cursor: .5 first, .1 only after the wrap. */
	delete (up[0]);
	assert_int_equal(establish_chv4(208, "internet", 0x10, PFCP_CAUSE_ACCEPTED, &up[4]),
			 UE_ALLOC + 5);
	assert_int_equal(establish_chv4(209, "internet", 0x10, PFCP_CAUSE_ACCEPTED, &up[0]),
			 UE_ALLOC + 1);
	for (i = 0; i < 6; i++)
		delete (up[i]);
	assert_int_equal(counts().sessions, base);

	/* CHV4 and CHV6 on the downlink PDR: an IPv4 address and a /64. */
	/* (All free again; the cursor is where .1 left it.) */
	a = establish_chv4(210, "internet", 0x30, PFCP_CAUSE_ACCEPTED, &up[0]);
	assert_int_equal(a, UE_ALLOC + 2);
	assert_memory_equal(ue_ie.v + 5, v6_0, 8);
	{
		static const uint8_t zero[8];

		assert_memory_equal(ue_ie.v + 13, zero, 8);
	}
	delete (up[0]);
	/* The same with an IPv6 Prefix Length saying /64: a /64 of the pool
	 * (the other one of the /63, the allocator walking on); any other
	 * length is a rule this UPF cannot hold, and nothing is left behind. */
	w_ip6pl = 64;
	a = establish_chv4(213, "internet", 0x30, PFCP_CAUSE_ACCEPTED, &up[0]);
	assert_int_equal(a, UE_ALLOC + 3);
	assert_memory_equal(ue_ie.v + 5, v6_0, 7);
	assert_int_equal(ue_ie.v[12] & 0xfe, v6_0[7]);
	delete (up[0]);
	w_ip6pl = 56;
	establish_chv4(214, "internet", 0x30, PFCP_CAUSE_RULE_FAILURE, &up_x);
	w_ip6pl = 0;
	assert_int_equal(counts().sessions, base);

	/* "ims" has no IPv4 ue_alloc: the rule cannot be created. */
	establish_chv4(211, "ims", 0x10, PFCP_CAUSE_RULE_FAILURE, &up_x);
	/* CHV4 with V4 set: the IE is wrong. */
	{
		struct pdr_spec dl = { .id = 2,
				       .prec = 100,
				       .src = UPF_IF_CORE,
				       .chid = -1,
				       .ni = "internet",
				       .ue4 = UE_POOL + 99,
				       .ue_ch = 0x10,
				       .far = 1 };

		begin(PFCP_SESS_EST_REQ, true, 0);
		w_node_id();
		w_cp_fseid(212);
		w_create_pdr(&dl);
		w_create_far(1, UPF_FAR_FORW, UPF_IF_ACCESS, 0x7000);
		end_send();
		recv_type(PFCP_SESS_EST_RESP, 2000);
		assert_cause(PFCP_CAUSE_MANDATORY_IE_INCORRECT);
	}
	assert_int_equal(counts().sessions, base);
}

static void
test_modify_and_reports(void **state)
{
	const struct upf_sess_dp *s;
	struct urep u;
	uint64_t up;

	(void)state;
	/* URR 1: a volume threshold of 1000 bytes, on both PDRs. */
	up = establish(41, UE_POOL + 41, UPF_FAR_FORW, 1, UPF_RT_VOLTH, 1000, 0, 0);
	s = dp_of_ue(UE_POOL + 41);
	assert_int_equal(s->up_seid, up);
	traffic(s, 0, 600, 0);
	recv_none(300);
	traffic(s, 0, 0, 500);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_int_equal(msg_seid(rb), 41);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.urr, 1);
	assert_true(u.trigger & PFCP_URT_VOLTH);
	assert_int_equal(u.tot, 1100);
	assert_int_equal(u.ul, 600);
	assert_int_equal(u.dl, 500);
	report_ack(PFCP_CAUSE_ACCEPTED);
	/* Once per crossing: the next report after another 1000 bytes. */
	traffic(s, 0, 999, 0);
	recv_none(300);
	traffic(s, 0, 1, 0);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.tot, 1000);
	assert_int_equal(u.seqn, 1);
	report_ack(PFCP_CAUSE_ACCEPTED);

	/* Query URR: what was counted since the last report, IMMER. */
	traffic(s, 0, 7, 3);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_QUERY_URR, PFCP_IE_URR_ID, 1);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_int_equal(msg_seid(rb), 41);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SMR, 0, &u));
	assert_true(u.trigger & PFCP_URT_IMMER);
	assert_int_equal(u.tot, 10);

	/* A modification that fails leaves the session as it was. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_FORW, 0x9999);
	w_id_group(PFCP_IE_REMOVE_FAR, PFCP_IE_FAR_ID, 77);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(dp_of_ue(UE_POOL + 41)->far[1].teid, 0x5000 + 41);

	/* Update FAR: the new outer TEID is published. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_FORW, 0x9999);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 41);
	assert_int_equal(s->far[0].teid == 0x9999 || s->far[1].teid == 0x9999, 1);
	/* Remove URR: the PDRs stop counting into it, its last usage is in the response. */
	traffic(s, 0, 5, 0);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_URR, PFCP_IE_URR_ID, 1);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SMR, 0, &u));
	assert_true(u.trigger & PFCP_URT_TERMR);
	assert_int_equal(u.tot, 5);
	s = dp_of_ue(UE_POOL + 41);
	assert_int_equal(s->n_urr, 0);
	assert_int_equal(s->pdr[0].n_urr + s->pdr[1].n_urr, 0);

	/* URR 2 created by a modification, on PDR 2. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_create_urr(2, UPF_RT_VOLTH, 1 << 20, 0, 0);
	{
		size_t g = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_PDR);

		pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, 2);
		pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 2);
		pfcp_w_ie_end(&w, g);
	}
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 41);
	assert_int_equal(s->n_urr, 1);
	traffic(s, 0, 0, 42);

	/* Deletion: the final usage, TERMR. */
	begin(PFCP_SESS_DEL_REQ, true, up);
	end_send();
	recv_type(PFCP_SESS_DEL_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SDR, 0, &u));
	assert_true(u.trigger & PFCP_URT_TERMR);
	assert_int_equal(u.urr, 2);
	assert_int_equal(u.dl, 42);
	assert_int_equal(u.tot, 42);
	assert_int_equal(counts().sessions, 1); /* Session 15 of test_rejected_rules. */
}

/*
 * Volumes by direction (8.2.13): a downlink-only threshold is not reached
 * by any amount of uplink, and is by the downlink alone; an uplink-only
 * quota likewise, and then its PDRs drop. The report counts both ways.
 */
static void
test_volume_by_direction(void **state)
{
	const struct upf_sess_dp *s;
	struct urep u;
	uint64_t up;

	(void)state;
	w_plain_session(61, UE_POOL + 61, UPF_FAR_FORW, 6);
	{
		size_t g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);

		w_urr_head(6, UPF_MM_VOLUM, UPF_RT_VOLTH | UPF_RT_VOLQU);
		w_vol_dir(PFCP_IE_VOLUME_THRESHOLD, 0, 1000);
		w_vol_dir(PFCP_IE_VOLUME_QUOTA, 3000, 0);
		pfcp_w_ie_end(&w, g);
	}
	end_send();
	up = est_ok(61);
	s = dp_of_ue(UE_POOL + 61);
	traffic(s, 0, 2000, 999);
	recv_none(300);
	traffic(s, 0, 0, 1);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.trigger & (PFCP_URT_VOLTH | PFCP_URT_VOLQU), PFCP_URT_VOLTH);
	assert_int_equal(u.ul, 2000);
	assert_int_equal(u.dl, 1000);
	report_ack(PFCP_CAUSE_ACCEPTED);
	/* The quota is the uplink's: 5,000 more downlink octets use none of it. */
	traffic(s, 0, 0, 5000);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.trigger & (PFCP_URT_VOLTH | PFCP_URT_VOLQU), PFCP_URT_VOLTH);
	report_ack(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 61);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_FORW);
	traffic(s, 0, 1000, 0);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_true(u.trigger & PFCP_URT_VOLQU);
	report_ack(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 61);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_DROP);
	delete (up);
}

/* URR 8 of session cp_seid: TIMQU with a time quota of q seconds (Create or Update URR). */
/* Milliseconds since t0 (CLOCK_MONOTONIC). */
static long
ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * URR id with one time IE ie of secs seconds; a Create URR also gets the
 * method and the trigger trig (an Update URR changes the time alone).
 */
static void
w_timed_urr(uint16_t group, uint32_t id, uint8_t method, uint16_t trig, uint16_t ie, uint32_t secs)
{
	size_t g = pfcp_w_ie_begin(&w, group);
	const bool cr = group == PFCP_IE_CREATE_URR;

	w_urr_head(id, cr ? method : 0, cr ? trig : 0);
	pfcp_w_ie_u32(&w, ie, secs);
	pfcp_w_ie_end(&w, g);
}

static void
w_time_quota_urr(uint16_t group, uint32_t q)
{
	w_timed_urr(group, 8, UPF_MM_DURAT | UPF_MM_VOLUM, UPF_RT_TIMQU, PFCP_IE_TIME_QUOTA, q);
}

/*
 * A time quota (TIMQU): one report when it runs out, never before its 2 s
 * from when it was given (a lower bound only, which a loaded machine keeps),
 * then the PDRs counting into it drop; a new quota forwards again and runs
 * from when it came.
 */
static void
test_time_quota(void **state)
{
	const struct upf_sess_dp *s;
	struct timespec t0;
	struct urep u;
	uint64_t up;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	w_plain_session(71, UE_POOL + 71, UPF_FAR_FORW, 8);
	w_time_quota_urr(PFCP_IE_CREATE_URR, 2);
	end_send();
	up = est_ok(71);
	s = dp_of_ue(UE_POOL + 71);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_FORW);
	traffic(s, 0, 100, 200);
	recv_type(PFCP_SESS_REPORT_REQ, 10000);
	assert_true(ms_since(&t0) >= 2000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.urr, 8);
	assert_true(u.trigger & PFCP_URT_TIMQU);
	assert_int_equal(u.ul, 100);
	assert_int_equal(u.dl, 200);
	report_ack(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 71);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_DROP);
	assert_int_equal(s->far[s->pdr[1].far].apply, UPF_FAR_DROP);
	recv_none(1500);
	/* A new quota of 60 s: forwarding again, nothing reported now. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_time_quota_urr(PFCP_IE_UPDATE_URR, 60);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 71);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_FORW);
	recv_none(1500);
	delete (up);
}

/* URR 9: volume, triggers trig, Quota Holding Time qht (0: none; Create or Update URR). */
static void
w_start_urr(uint16_t group, uint16_t trig, uint32_t qht)
{
	size_t g = pfcp_w_ie_begin(&w, group);

	w_urr_head(9, group == PFCP_IE_CREATE_URR ? UPF_MM_VOLUM : 0, trig);
	if (qht != 0)
		pfcp_w_ie_u32(&w, PFCP_IE_QUOTA_HOLDING_TIME, qht);
	pfcp_w_ie_end(&w, g);
}

/* The next Session Report Request: one Usage Report of URR 9 with trigger want; acked. */
static void
report_of(uint32_t want, struct urep *u)
{
	recv_type(PFCP_SESS_REPORT_REQ, 5000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, u));
	assert_false(usage(PFCP_IE_USAGE_REPORT_SRR, 1, u + 1));
	assert_int_equal(u->urr, 9);
	if (u->trigger != want)
		fail_msg("Usage Report trigger 0x%x, want 0x%x", u->trigger, want);
	report_ack(PFCP_CAUSE_ACCEPTED);
}

/*
 * Start of traffic (START) and Quota Holding Time (QUHTI): one START report
 * at the URR's first packet, none after; a QUHTI report once no packet has
 * come for the holding time (1 s: a lower bound only, which a loaded
 * machine keeps), one per lull, again after traffic resumed; a START asked
 * for again by an Update URR is the start from then on. QUHTI without a
 * Quota Holding Time is Cause 67 naming it.
 */
static void
test_start_and_holding(void **state)
{
	const struct upf_sess_dp *s;
	struct timespec t0;
	struct urep u[2];
	uint64_t up;

	(void)state;
	w_plain_session(73, UE_POOL + 73, UPF_FAR_FORW, 9);
	w_start_urr(PFCP_IE_CREATE_URR, UPF_RT_QUHTI, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_CONDITIONAL_IE_MISSING);

	w_plain_session(73, UE_POOL + 73, UPF_FAR_FORW, 9);
	w_start_urr(PFCP_IE_CREATE_URR, UPF_RT_START | UPF_RT_QUHTI, 1);
	end_send();
	up = est_ok(73);
	s = dp_of_ue(UE_POOL + 73);
	recv_none(300); /* No traffic yet: no START. */
	traffic(s, 0, 100, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	report_of(PFCP_URT_START, u);
	assert_int_equal(u[0].ul, 100);
	/* Then quiet: the holding time runs from the last packet. */
	report_of(PFCP_URT_QUHTI, u);
	assert_true(ms_since(&t0) >= 1000);
	assert_int_equal(u[0].ul, 0);
	recv_none(1500); /* One report per lull, and START once. */
	traffic(s, 0, 0, 300);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	report_of(PFCP_URT_QUHTI, u);
	assert_true(ms_since(&t0) >= 1000);
	assert_int_equal(u[0].dl, 300);
	/* START dropped, then asked for again: from now on. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_start_urr(PFCP_IE_UPDATE_URR, UPF_RT_QUHTI, 0);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_start_urr(PFCP_IE_UPDATE_URR, UPF_RT_QUHTI | UPF_RT_START, 30);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	recv_none(300);
	traffic(s, 0, 40, 0);
	report_of(PFCP_URT_START, u);
	assert_int_equal(u[0].ul, 40);
	recv_none(1500); /* The holding time is 30 s now. */
	delete (up);
}

/* URR 10: volume, QUVTI with a Quota Validity Time of qvt seconds (Create or Update URR). */
static void
w_validity_urr(uint16_t group, uint32_t qvt)
{
	w_timed_urr(group, 10, UPF_MM_VOLUM, UPF_RT_QUVTI, PFCP_IE_QUOTA_VALIDITY_TIME, qvt);
}

/*
 * Quota Validity Time (QUVTI, VTIME advertised): one report no earlier
 * than the time after the URR got it (1 s: a lower bound only), with the
 * usage so far, then none, a modification of other rules included; an
 * Update URR with a new time starts it again.
 */
static void
test_quota_validity(void **state)
{
	const struct upf_sess_dp *s;
	struct timespec t0;
	struct urep u;
	uint64_t up;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	w_plain_session(74, UE_POOL + 74, UPF_FAR_FORW, 10);
	w_validity_urr(PFCP_IE_CREATE_URR, 1);
	end_send();
	up = est_ok(74);
	s = dp_of_ue(UE_POOL + 74);
	traffic(s, 0, 70, 0);
	recv_type(PFCP_SESS_REPORT_REQ, 5000);
	assert_true(ms_since(&t0) >= 1000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.urr, 10);
	assert_int_equal(u.trigger, PFCP_URT_QUVTI);
	assert_int_equal(u.ul, 70);
	report_ack(PFCP_CAUSE_ACCEPTED);
	/* A modification that does not give a new time does not report again. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_FORW, 0x4474);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	recv_none(1500);
	/* Forwarding goes on: the quota is the SMF's to change. */
	s = dp_of_ue(UE_POOL + 74);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_FORW);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_validity_urr(PFCP_IE_UPDATE_URR, 1);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	recv_type(PFCP_SESS_REPORT_REQ, 5000);
	assert_true(ms_since(&t0) >= 1000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.trigger, PFCP_URT_QUVTI);
	report_ack(PFCP_CAUSE_ACCEPTED);
	delete (up);
}

/* A Create URR id (volume): VOLTH at thresh bytes when thresh != 0, else LIUSA linked to link. */
static void
w_linked_urr(uint32_t id, uint64_t thresh, uint32_t link)
{
	size_t g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);

	w_urr_head(id, UPF_MM_VOLUM, thresh != 0 ? UPF_RT_VOLTH : UPF_RT_LIUSA);
	if (thresh != 0)
		w_vol(PFCP_IE_VOLUME_THRESHOLD, thresh);
	else
		pfcp_w_ie_u32(&w, PFCP_IE_LINKED_URR_ID, link);
	pfcp_w_ie_end(&w, g);
}

/*
 * Linked usage reporting (LIUSA): URR 12, linked to URR 11, reports in the
 * same Session Report Request as 11's volume threshold report, with its own
 * usage since its last report; URRs not linked do not. A Linked URR ID
 * naming a URR the session lacks is Cause 73 naming the URR; removing the
 * URR it links to unlinks it.
 */
static void
test_linked_usage(void **state)
{
	const struct upf_sess_dp *s;
	struct urep u[3];
	uint64_t up;

	(void)state;
	w_plain_session(75, UE_POOL + 75, UPF_FAR_FORW, 11);
	w_linked_urr(11, 1000, 0);
	w_linked_urr(12, 0, 99);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	assert_true(msg_ie(PFCP_IE_OFFENDING_IE, 0, &ue_ie));
	assert_int_equal(be(ue_ie.v, 2), PFCP_IE_LINKED_URR_ID);

	w_plain_session(75, UE_POOL + 75, UPF_FAR_FORW, 11);
	w_linked_urr(11, 1000, 0);
	w_linked_urr(12, 0, 11);
	w_linked_urr(13, 0, 12); /* Linked to 12, which is not the one reporting first. */
	end_send();
	up = est_ok(75);
	s = dp_of_ue(UE_POOL + 75);
	assert_int_equal(s->n_urr, 3);
	traffic(s, 2, 20, 0);
	traffic(s, 1, 50, 0);
	recv_none(300);
	traffic(s, 0, 600, 600);
	recv_type(PFCP_SESS_REPORT_REQ, 3000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u[0]));
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 1, &u[1]));
	assert_false(usage(PFCP_IE_USAGE_REPORT_SRR, 2, &u[2]));
	assert_int_equal(u[0].urr, 11);
	assert_int_equal(u[0].trigger, PFCP_URT_VOLTH);
	assert_int_equal(u[1].urr, 12);
	assert_int_equal(u[1].trigger, PFCP_URT_LIUSA);
	assert_int_equal(u[1].ul, 50);
	report_ack(PFCP_CAUSE_ACCEPTED);
	recv_none(300);
	/* URR 11 goes: 12 is linked to nothing, and the session is accepted. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_URR, PFCP_IE_URR_ID, 11);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	delete (up);
}

static void
test_quota_and_period(void **state)
{
	const struct upf_sess_dp *s;
	struct urep u;
	uint64_t up;

	(void)state;
	/* A 2000-byte quota: reported once, then the PDRs counting into it drop. */
	up = establish(51, UE_POOL + 51, UPF_FAR_FORW, 3, UPF_RT_VOLQU, 0, 2000, 0);
	s = dp_of_ue(UE_POOL + 51);
	traffic(s, 0, 2500, 0);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_true(u.trigger & PFCP_URT_VOLQU);
	assert_int_equal(u.tot, 2500);
	report_ack(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 51);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_DROP);
	assert_int_equal(s->far[s->pdr[1].far].apply, UPF_FAR_DROP);
	recv_none(300);
	/* A new quota: forwarding again. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	{
		size_t g = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_URR);

		pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 3);
		w_vol(PFCP_IE_VOLUME_QUOTA, 10000);
		pfcp_w_ie_end(&w, g);
	}
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	s = dp_of_ue(UE_POOL + 51);
	assert_int_equal(s->far[s->pdr[0].far].apply, UPF_FAR_FORW);
	delete (up);

	/* PERIO every second: each report carries that period's volume. */
	up = establish(52, UE_POOL + 52, UPF_FAR_FORW, 4, UPF_RT_PERIO, 0, 0, 1);
	s = dp_of_ue(UE_POOL + 52);
	traffic(s, 0, 100, 200);
	recv_type(PFCP_SESS_REPORT_REQ, 2500);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_true(u.trigger & PFCP_URT_PERIO);
	assert_int_equal(u.tot, 300);
	report_ack(PFCP_CAUSE_ACCEPTED);
	traffic(s, 0, 1, 0);
	recv_type(PFCP_SESS_REPORT_REQ, 2500);
	assert_true(usage(PFCP_IE_USAGE_REPORT_SRR, 0, &u));
	assert_int_equal(u.tot, 1);
	report_ack(PFCP_CAUSE_ACCEPTED);
	delete (up);
	recv_none(1300);
}

static void
test_buffering(void **state)
{
	struct rte_mbuf *m[6], *out[8];
	const struct upf_sess_dp *s;
	struct tlv t, p;
	unsigned int i, n;
	uint64_t up;

	(void)state;
	up = establish(61, UE_POOL + 61, UPF_FAR_BUFF | UPF_FAR_NOCP, 0, 0, 0, 0, 0);
	s = dp_of_ue(UE_POOL + 61);
	/* Six packets held for a BUFF FAR; buffer_packets is 4. */
	for (i = 0; i < 6; i++) {
		m[i] = rte_pktmbuf_alloc(mp);
		assert_non_null(m[i]);
		m[i]->hash.usr = s->slot;
		assert_int_equal(rte_ring_enqueue(st->wk[0].to_ctrl, m[i]), 0);
	}
	/* One Downlink Data Report for the episode, naming the downlink PDR. */
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_int_equal(msg_seid(rb), 61);
	assert_true(msg_ie(PFCP_IE_REPORT_TYPE, 0, &t));
	assert_int_equal(t.v[0] & PFCP_REPORT_DLDR, PFCP_REPORT_DLDR);
	assert_true(msg_ie(PFCP_IE_DOWNLINK_DATA_REPORT, 0, &t));
	assert_true(ie_find(t.v, t.len, PFCP_IE_PDR_ID, 0, &p));
	assert_int_equal(be(p.v, 2), 2);
	report_ack(PFCP_CAUSE_ACCEPTED);
	recv_none(200);
	tel_has("/lanefwd/upf", "\"buffer_full\":2");
	/* FORW: the four held packets go back to worker 0, in order. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_FORW, 0x4444);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	/* Worker 0's ring: first the two over the bound, marked as discards for
	 * it to count as drops, then the four held, in order. */
	n = rte_ring_dequeue_burst(st->wk[0].from_ctrl, (void **)out, 8, NULL);
	assert_int_equal(n, 6);
	for (i = 0; i < n; i++) {
		if (i < 2) {
			assert_ptr_equal(out[i], m[4 + i]);
			assert_int_equal(out[i]->hash.usr, UPF_CTRL_DISCARD);
			assert_int_equal(out[i]->hash.fdir.hi, UPF_DROP_BUFFER_FULL);
		} else {
			assert_ptr_equal(out[i], m[i - 2]);
			assert_int_not_equal(out[i]->hash.usr, UPF_CTRL_DISCARD);
		}
		rte_pktmbuf_free(out[i]);
	}
	/* A new episode: BUFF again, one more report. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_BUFF | UPF_FAR_NOCP, 0);
	end_send();
	recv_type(PFCP_SESS_MOD_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	m[0] = rte_pktmbuf_alloc(mp);
	m[0]->hash.usr = dp_of_ue(UE_POOL + 61)->slot;
	assert_int_equal(rte_ring_enqueue(st->wk[0].to_ctrl, m[0]), 0);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	report_ack(PFCP_CAUSE_ACCEPTED);
	/* Deleting the session discards what it held, through worker 0's ring. */
	delete (up);
	n = rte_ring_dequeue_burst(st->wk[0].from_ctrl, (void **)out, 8, NULL);
	assert_int_equal(n, 1);
	assert_ptr_equal(out[0], m[0]);
	assert_int_equal(out[0]->hash.usr, UPF_CTRL_DISCARD);
	assert_int_equal(out[0]->hash.fdir.hi, UPF_DROP_BUFFER_DISCARD);
	rte_pktmbuf_free(out[0]);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

/* A new Recovery Time Stamp from the peer: it restarted, its sessions go. */
/*
 * A Create / Update BAR id with a Suggested Buffering Packets Count and a
 * Downlink Data Notification Delay in 50 ms units (< 0: none).
 */
static void
w_bar_ddn(uint16_t type, uint8_t id, int count, int ddn)
{
	size_t g = pfcp_w_ie_begin(&w, type);

	pfcp_w_ie_u8(&w, PFCP_IE_BAR_ID, id);
	if (ddn >= 0)
		pfcp_w_ie_u8(&w, PFCP_IE_DL_DATA_NOTIFICATION_DELAY, (uint8_t)ddn);
	if (count >= 0)
		pfcp_w_ie_u8(&w, PFCP_IE_SUGGESTED_BUFFERING_COUNT, (uint8_t)count);
	pfcp_w_ie_end(&w, g);
}

static void
w_bar(uint16_t type, uint8_t id, int count)
{
	w_bar_ddn(type, id, count, -1);
}

/*
 * A BAR's Suggested Buffering Packets Count bounds what the session's BUFF
 * FAR holds, below [upf] buffer_packets (4); an Update BAR changes it, a
 * Remove BAR leaves buffer_packets. A second Create BAR, or an Update or
 * Remove of a BAR the session lacks, is Cause 73 with the Failed Rule ID
 * of type BAR, nothing applied.
 */
static void
test_bar(void **state)
{
	struct rte_mbuf *m[4], *out[8];
	const struct upf_sess_dp *s;
	unsigned int i, n;
	char cmd[64];
	struct tlv t;
	uint64_t up;

	(void)state;
	w_plain_session(63, UE_POOL + 63, UPF_FAR_BUFF | UPF_FAR_NOCP, 0);
	w_bar(PFCP_IE_CREATE_BAR, 5, 2);
	end_send();
	up = est_ok(63);
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up);
	tel_has(cmd, "\"buffer_limit\":2,\"bar\":5");
	s = dp_of_ue(UE_POOL + 63);
	for (i = 0; i < 4; i++) {
		m[i] = rte_pktmbuf_alloc(mp);
		assert_non_null(m[i]);
		m[i]->hash.usr = s->slot;
		assert_int_equal(rte_ring_enqueue(st->wk[0].to_ctrl, m[i]), 0);
	}
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	report_ack(PFCP_CAUSE_ACCEPTED);
	recv_none(200);
	/* Two held, the two beyond the BAR's count discarded (buffer_packets is 4). */
	tel_has(cmd, "\"held_packets\":2");
	n = rte_ring_dequeue_burst(st->wk[0].from_ctrl, (void **)out, 8, NULL);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_ptr_equal(out[i], m[2 + i]);
		assert_int_equal(out[i]->hash.usr, UPF_CTRL_DISCARD);
		assert_int_equal(out[i]->hash.fdir.hi, UPF_DROP_BUFFER_FULL);
		rte_pktmbuf_free(out[i]);
	}
	/* Above buffer_packets: buffer_packets. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_bar(PFCP_IE_UPDATE_BAR_SMR, 5, 200);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	tel_has(cmd, "\"buffer_limit\":4,\"bar\":5");
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_bar(PFCP_IE_UPDATE_BAR_SMR, 5, 1);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	tel_has(cmd, "\"buffer_limit\":1,\"bar\":5");
	/* Refused, nothing applied: another BAR, or one the session lacks. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_bar(PFCP_IE_CREATE_BAR, 6, 3);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_BAR);
	assert_true(msg_ie(PFCP_IE_FAILED_RULE_ID, 0, &t));
	assert_int_equal(t.v[0] & 0x0f, PFCP_RULE_BAR);
	assert_int_equal(t.v[1], 6);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_bar(PFCP_IE_UPDATE_BAR_SMR, 6, 3);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UPDATE_BAR_SMR);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_BAR, PFCP_IE_BAR_ID, 6);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_BAR);
	tel_has(cmd, "\"buffer_limit\":1,\"bar\":5");
	/* Removed: buffer_packets again; a Create BAR may follow in the same request. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_BAR, PFCP_IE_BAR_ID, 5);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	tel_has(cmd, "\"buffer_limit\":4,\"dl_data_report_sent\"");
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_id_group(PFCP_IE_REMOVE_BAR, PFCP_IE_BAR_ID, 5);
	w_bar(PFCP_IE_CREATE_BAR, 7, -1);
	mod_answer(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_BAR);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_bar(PFCP_IE_CREATE_BAR, 7, -1);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	tel_has(cmd, "\"buffer_limit\":4,\"bar\":7");
	/* The two held go as the session does. */
	delete (up);
	n = rte_ring_dequeue_burst(st->wk[0].from_ctrl, (void **)out, 8, NULL);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_ptr_equal(out[i], m[i]);
		assert_int_equal(out[i]->hash.fdir.hi, UPF_DROP_BUFFER_DISCARD);
		rte_pktmbuf_free(out[i]);
	}
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

/* Put one downlink packet of session dp, len bytes (0: empty), on worker 0's ring to the agent. */
static struct rte_mbuf *
to_agent_len(const struct upf_sess_dp *dp, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	if (len != 0)
		assert_non_null(rte_pktmbuf_append(m, len));
	m->hash.usr = dp->slot;
	assert_int_equal(rte_ring_enqueue(st->wk[0].to_ctrl, m), 0);
	return m;
}

static struct rte_mbuf *
to_agent(const struct upf_sess_dp *dp)
{
	return to_agent_len(dp, 0);
}

/*
 * The BAR's Downlink Data Notification Delay: the Downlink Data Report of a
 * buffering episode goes no earlier than the delay after its first packet
 * (10 x 50 ms: a lower bound only), once; a FAR changed before it is due
 * (the SMF released the buffer) cancels it, also for the episode after;
 * without a delay it goes at once.
 */
static void
test_bar_ddn(void **state)
{
	struct rte_mbuf *out[8];
	const struct upf_sess_dp *s;
	struct timespec t0;
	unsigned int i, n;
	char cmd[64];
	uint64_t up;

	(void)state;
	w_plain_session(64, UE_POOL + 64, UPF_FAR_BUFF | UPF_FAR_NOCP, 0);
	w_bar_ddn(PFCP_IE_CREATE_BAR, 1, -1, 10);
	end_send();
	up = est_ok(64);
	s = dp_of_ue(UE_POOL + 64);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	to_agent(s);
	to_agent(s);
	recv_none(250);
	recv_type(PFCP_SESS_REPORT_REQ, 3000);
	assert_true(ms_since(&t0) >= 500);
	report_ack(PFCP_CAUSE_ACCEPTED);
	recv_none(700);
	/* Released, and a new episode released before its report was due. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_FORW, 0x4464);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_BUFF | UPF_FAR_NOCP, 0);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	to_agent(dp_of_ue(UE_POOL + 64));
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up);
	tel_wait(cmd, "\"held_packets\":1", 2000);
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_FORW, 0x4465);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	/* Buffering again, with no packet yet: the cancelled report stays cancelled. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_update_far(2, UPF_FAR_BUFF | UPF_FAR_NOCP, 0);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	recv_none(900);
	/* No delay: at once. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_bar_ddn(PFCP_IE_UPDATE_BAR_SMR, 1, -1, 0);
	w_update_far(2, UPF_FAR_BUFF | UPF_FAR_NOCP, 0);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	to_agent(dp_of_ue(UE_POOL + 64));
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	report_ack(PFCP_CAUSE_ACCEPTED);
	delete (up);
	/* Worker 0 gets back the released and discarded packets: free them. */
	while ((n = rte_ring_dequeue_burst(st->wk[0].from_ctrl, (void **)out, 8, NULL)) != 0)
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(out[i]);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

static void
test_peer_restart(void **state)
{
	uint64_t up;

	(void)state;
	up = establish(71, UE_POOL + 71, UPF_FAR_FORW, 0, 0, 0, 0, 0);
	assert_true(counts().sessions >= 2);
	cp_recovery++;
	begin(PFCP_HEARTBEAT_REQ, false, 0);
	pfcp_w_ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, cp_recovery);
	end_send();
	recv_type(PFCP_HEARTBEAT_RESP, 2000);
	assert_int_equal(counts().sessions, 0);
	begin(PFCP_SESS_DEL_REQ, true, up);
	end_send();
	recv_type(PFCP_SESS_DEL_RESP, 2000);
	assert_cause(PFCP_CAUSE_SESSION_NOT_FOUND);
}

static void
test_release(void **state)
{
	(void)state;
	establish(81, UE_POOL + 81, UPF_FAR_FORW, 0, 0, 0, 0, 0);
	establish(82, UE_POOL + 82, UPF_FAR_FORW, 0, 0, 0, 0, 0);
	assert_int_equal(counts().sessions, 2);
	tel_has("/lanefwd/upf", "\"sessions\":2");
	begin(PFCP_ASSOC_RELEASE_REQ, false, 0);
	w_node_id();
	end_send();
	recv_type(PFCP_ASSOC_RELEASE_RESP, 2000);
	assert_cause(PFCP_CAUSE_ACCEPTED);
	assert_int_equal(counts().sessions, 0);
	w_plain_session(83, UE_POOL + 83, UPF_FAR_FORW, 0);
	end_send();
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_NO_ASSOCIATION);
	assoc_setup(cp_recovery);
}

static void
test_telemetry_params(void **state)
{
	static char out[4096];
	uint64_t up;

	(void)state;
	up = establish(91, UE_POOL + 91, UPF_FAR_FORW, 0, 0, 0, 0, 0);
	snprintf(out, sizeof(out), "/lanefwd/upf/session,%" PRIu64, up);
	tel_has(out, "\"cp_seid\":91");
	snprintf(out, sizeof(out), "/lanefwd/upf/session,0x%" PRIx64, up);
	tel_has(out, "\"pdr_1\":{");
	tel_has(out, "\"far_2\":{");
	/* PDRs listed in the datapath's order: uplink, downlink, each by precedence. */
	{
		const struct pdr_spec ul = { .id = 3,
					     .prec = 10,
					     .src = UPF_IF_ACCESS,
					     .choose = true,
					     .chid = -1,
					     .ni = "internet",
					     .ue4 = UE_POOL + 91,
					     .far = 1 };
		const struct pdr_spec dl = { .id = 4,
					     .prec = 5,
					     .src = UPF_IF_CORE,
					     .chid = -1,
					     .ni = "internet",
					     .ue4 = UE_POOL + 91,
					     .far = 2 };
		static const char *const want[] = { "\"pdr_3\"", "\"pdr_1\"", "\"pdr_4\"",
						    "\"pdr_2\"" };
		static char json[65536];
		const char *at = json;
		unsigned int i;

		begin(PFCP_SESS_MOD_REQ, true, up);
		w_create_pdr(&ul);
		w_create_pdr(&dl);
		end_send();
		recv_type(PFCP_SESS_MOD_RESP, 2000);
		assert_cause(PFCP_CAUSE_ACCEPTED);
		assert_int_equal(tel_query(out, json, sizeof(json)), 0);
		for (i = 0; i < RTE_DIM(want); i++) {
			at = strstr(at, want[i]);
			if (at == NULL)
				fail_msg("%s: %s missing or out of order in %s", out, want[i],
					 json);
		}
	}
	/* Bad parameters: no data. */
	tel_has("/lanefwd/upf/session,", "null");
	tel_has("/lanefwd/upf/session,12x", "null");
	tel_has("/lanefwd/upf/session,-1", "null");
	tel_has("/lanefwd/upf/session,0x", "null");
	tel_has("/lanefwd/upf/session,5", "null");
	tel_has("/lanefwd/upf", "\"causes_sent\":{");
	tel_has("/lanefwd/upf", "\"datapath\":{");
	delete (up);
}

/*
 * Send n requests built beforehand, at most window unanswered, in bursts
 * (sendmmsg / recvmmsg, so that the SMF side costs little); count the
 * accepted answers and keep the UP SEIDs they carry. @return seconds.
 */
static double
rate_blast(uint8_t *const *req, const uint16_t *len, unsigned int n, uint8_t resp_type,
	   uint64_t *ups, unsigned int *n_ok)
{
	static uint8_t ans[32][1024];
	const unsigned int window = 512;
	struct mmsghdr mm[32];
	struct iovec iov[32];
	struct pollfd p = { .fd = sk, .events = POLLIN };
	unsigned int sent = 0, got = 0, i;
	struct timespec t0, t1;
	struct tlv t;
	int r;

	*n_ok = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n) {
		while (sent < n && sent - got < window) {
			unsigned int k = RTE_MIN(RTE_MIN(32u, n - sent), window - (sent - got));

			memset(mm, 0, sizeof(mm));
			for (i = 0; i < k; i++) {
				iov[i].iov_base = req[sent + i];
				iov[i].iov_len = len[sent + i];
				mm[i].msg_hdr.msg_name = &agent;
				mm[i].msg_hdr.msg_namelen = sizeof(agent);
				mm[i].msg_hdr.msg_iov = &iov[i];
				mm[i].msg_hdr.msg_iovlen = 1;
			}
			r = sendmmsg(sk, mm, k, 0);
			assert_true(r > 0);
			sent += (unsigned int)r;
		}
		if (poll(&p, 1, 5000) <= 0)
			fail_msg("%u of %u answered, then nothing for 5 s", got, n);
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < 32; i++) {
			iov[i].iov_base = ans[i];
			iov[i].iov_len = sizeof(ans[i]);
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		r = recvmmsg(sk, mm, 32, MSG_DONTWAIT, NULL);
		assert_true(r > 0);
		for (i = 0; i < (unsigned int)r; i++) {
			memcpy(rb, ans[i], mm[i].msg_len);
			rn = mm[i].msg_len;
			assert_int_equal(msg_type(rb), resp_type);
			if (msg_cause() != PFCP_CAUSE_ACCEPTED)
				continue;
			if (ups != NULL) {
				assert_true(msg_ie(PFCP_IE_F_SEID, 0, &t));
				ups[*n_ok] = be(t.v + 1, 8);
			}
			(*n_ok)++;
		}
		got += (unsigned int)r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/*
 * Establishments as fast as the agent takes them, then deletions; twice:
 * the first round also pays for the memory first touched (the agent's and
 * the store's), the second reuses it.
 */
static void
test_establish_rate(void **state)
{
	enum { TOTAL = 30000 };
	struct pdr_spec ul = { .id = 1,
			       .prec = 100,
			       .src = UPF_IF_ACCESS,
			       .choose = true,
			       .chid = -1,
			       .ni = "internet",
			       .far = 1 };
	struct pdr_spec dl = { .id = 2,
			       .prec = 100,
			       .src = UPF_IF_CORE,
			       .chid = -1,
			       .ni = "internet",
			       .far = 2 };
	static uint8_t *est[TOTAL], *del[TOTAL];
	static uint16_t est_len[TOTAL], del_len[TOTAL];
	static uint64_t ups[TOTAL];
	unsigned int i, ok, round;
	double s;

	(void)state;
	for (i = 0; i < TOTAL; i++) {
		dl.ue4 = ul.ue4 = UE_POOL + 1000 + i;
		begin(PFCP_SESS_EST_REQ, true, 0);
		w_node_id();
		w_cp_fseid(100000 + i);
		w_create_pdr(&ul);
		w_create_pdr(&dl);
		w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
		w_create_far(2, UPF_FAR_FORW, UPF_IF_ACCESS, 0x100 + i);
		est_len[i] = (uint16_t)pfcp_w_hdr_end(&w);
		est[i] = malloc(est_len[i]);
		assert_non_null(est[i]);
		memcpy(est[i], wb, est_len[i]);
	}
	for (round = 1; round <= 2; round++) {
		/* New sequence numbers: the same ones would be answered from the cache. */
		for (i = 0; i < TOTAL; i++) {
			est[i][PFCP_HDR_SEID_LEN - 4] = (uint8_t)(seq >> 16);
			est[i][PFCP_HDR_SEID_LEN - 3] = (uint8_t)(seq >> 8);
			est[i][PFCP_HDR_SEID_LEN - 2] = (uint8_t)seq++;
		}
		s = rate_blast(est, est_len, TOTAL, PFCP_SESS_EST_RESP, ups, &ok);
		printf("[ INFO     ] round %u: %u Session Establishments (2 PDRs, 2 FARs, CHOOSE) "
		       "in %.3f s: %.0f/s\n",
		       round, TOTAL, s, TOTAL / s);
		assert_int_equal(ok, TOTAL);
		assert_int_equal(counts().sessions, TOTAL);
		for (i = 0; i < TOTAL; i++) {
			begin(PFCP_SESS_DEL_REQ, true, ups[i]);
			del_len[i] = (uint16_t)pfcp_w_hdr_end(&w);
			free(del[i]);
			del[i] = malloc(del_len[i]);
			assert_non_null(del[i]);
			memcpy(del[i], wb, del_len[i]);
		}
		s = rate_blast(del, del_len, TOTAL, PFCP_SESS_DEL_RESP, NULL, &ok);
		printf("[ INFO     ] round %u: %u Session Deletions in %.3f s: %.0f/s\n", round,
		       TOTAL, s, TOTAL / s);
		assert_int_equal(ok, TOTAL);
		assert_int_equal(counts().sessions, 0);
	}
	for (i = 0; i < TOTAL; i++) {
		free(est[i]);
		free(del[i]);
	}
}

/* heartbeat_s = 1: the agent asks each associated peer; a new Recovery Time Stamp purges. */
static void
test_heartbeat_to_peer(void **state)
{
	struct tlv t;
	uint32_t ours;
	uint64_t up;

	(void)state;
	assoc_setup(cp_recovery);
	assert_true(msg_ie(PFCP_IE_RECOVERY_TIME_STAMP, 0, &t));
	ours = (uint32_t)be(t.v, 4);
	up = establish(101, UE_POOL + 101, UPF_FAR_FORW, 0, 0, 0, 0, 0);
	recv_type(PFCP_HEARTBEAT_REQ, 2500);
	assert_true(msg_ie(PFCP_IE_RECOVERY_TIME_STAMP, 0, &t));
	assert_int_equal(be(t.v, 4), ours);
	pfcp_w_init(&w, wb, sizeof(wb));
	pfcp_w_hdr_begin(&w, PFCP_HEARTBEAT_RESP, false, 0, msg_seq(rb));
	pfcp_w_ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, cp_recovery);
	end_send();
	recv_type(PFCP_HEARTBEAT_REQ, 2500);
	assert_int_equal(counts().sessions, 1);
	/* The peer answers with a new Recovery Time Stamp: it restarted. */
	pfcp_w_init(&w, wb, sizeof(wb));
	pfcp_w_hdr_begin(&w, PFCP_HEARTBEAT_RESP, false, 0, msg_seq(rb));
	pfcp_w_ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, cp_recovery + 5);
	end_send();
	recv_none(200);
	assert_int_equal(counts().sessions, 0);
	tel_has("/lanefwd/upf", "\"heartbeats_answered\":2");
	begin(PFCP_SESS_DEL_REQ, true, up);
	end_send();
	recv_type(PFCP_SESS_DEL_RESP, 2000);
	assert_cause(PFCP_CAUSE_SESSION_NOT_FOUND);
}

static int
start_heartbeat(void **state)
{
	heartbeat_s = 1;
	return start(state);
}

static int
setup(void **state)
{
	char prefix[32], lcore[16];
	char *argv[] = {
		"test_pfcp_agent",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--file-prefix",
		prefix,
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	struct upf_store_params p = {
		.max_sessions = MAX_SESS,
		.max_urrs = 1024,
		.max_qers = 1024,
		.n_workers = 1,
		.socket = SOCKET_ID_ANY,
		.n3_ipv4 = 0,
		.ring_size = 64,
		/* UE_ALLOC's /29 in the UE table's direct array, as
		 * upf_store_ue_dirs() makes it of conf_init()'s ue_alloc. */
		.n_ue_dir = 1,
		.ue_dir = { { .ni = 0, .plen = 29, .base = UE_ALLOC } },
	};
	char err[256];
	cpu_set_t cpus;
	int cpu = 0;

	(void)state;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return -1;
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
		cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	snprintf(prefix, sizeof(prefix), "lfut_pfcp%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	/* A QSBR variable with no reader registered: every grace period is over at once. */
	qsv = rte_zmalloc("test_qsv", rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	if (qsv == NULL || rte_rcu_qsbr_init(qsv, 1) != 0)
		return -1;
	p.qsv = qsv;
	p.n3_ipv4 = htonl(N3_V4);
	st = upf_store_create(&p, err, sizeof(err));
	if (st == NULL) {
		fprintf(stderr, "upf_store_create: %s\n", err);
		return -1;
	}
	mp = rte_pktmbuf_pool_create("test_pfcp_mp", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	return mp == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	upf_store_free(st);
	rte_mempool_free(mp);
	rte_free(qsv);
	rte_eal_cleanup();
	return 0;
}

/* The session the downlink finds for IPv6 address a of instance 0, or NULL. */
static const struct upf_sess_dp *
dp_of_ue6(const char *a)
{
	struct upf_ue_key k;
	uint8_t ip[16];
	void *d;

	assert_int_equal(inet_pton(AF_INET6, a, ip), 1);
	upf_ue_key_make(&k, 0, 6, ip, 0);
	upf_ue_lookup_bulk(&st->ue, (const void *[]){ &k }, 1, &d);
	return d;
}

/* A session whose downlink PDR's UE address is pfx6, delegated by dbits bits. */
static void
w_pfx_session(uint64_t cp_seid, const char *pfx6, uint8_t dbits)
{
	struct pdr_spec ul = { .id = 1,
			       .prec = 100,
			       .src = UPF_IF_ACCESS,
			       .choose = true,
			       .chid = -1,
			       .ni = "internet",
			       .ue6 = pfx6,
			       .dbits = dbits,
			       .far = 1 };

	w_session_of(cp_seid, &ul, UPF_FAR_FORW);
	end_send();
}

/*
 * A prefix delegated to a UE (V6 with IPv6D): the downlink finds the session
 * for every /64 of it; telemetry shows its length. The same prefix in a
 * second session, or one that overlaps a ue_alloc pool (whose /64s CHV6
 * hands out), is Cause 73 naming the PDR's UE IP Address, with nothing left
 * behind. A /64 of another session inside it wins for its addresses.
 */
static void
test_delegated_prefix(void **state)
{
	const uint32_t base = counts().sessions;
	uint64_t up_a, up_b;
	char cmd[64];

	(void)state;
	w_pfx_session(600, "fd00:45:1:1ab::9", 8);
	up_a = est_ok(600);
	assert_int_equal(dp_of_ue6("fd00:45:1:100::1")->up_seid, up_a);
	assert_int_equal(dp_of_ue6("fd00:45:1:1ab::77")->up_seid, up_a);
	assert_int_equal(dp_of_ue6("fd00:45:1:1ff::")->up_seid, up_a);
	assert_null(dp_of_ue6("fd00:45:1:200::1"));
	assert_null(dp_of_ue6("fd00:45:1:ff::1"));
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up_a);
	tel_has(cmd, "\"ue_ipv6\":\"fd00:45:1:100::\"");
	tel_has(cmd, "\"ue_ipv6_prefix_len\":56");
	tel_has("/lanefwd/upf", "\"ue_prefix_keys\":1");
	tel_has("/lanefwd/upf", "\"ue_prefix_lengths6\":\"/56\"");

	/* The same /56 again (given as another address in it). */
	w_pfx_session(601, "fd00:45:1:100::", 8);
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);
	/* A /60 around the ue_alloc /63 fd00:45:0:8::. */
	w_pfx_session(602, "fd00:45:0:0::", 4);
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);
	assert_int_equal(counts().sessions, base + 1);

	/* A /64 inside it, another session's: the longest prefix wins. */
	w_pfx_session(603, "fd00:45:1:1c0::", 0);
	up_b = est_ok(603);
	assert_int_equal(dp_of_ue6("fd00:45:1:1c0::5")->up_seid, up_b);
	assert_int_equal(dp_of_ue6("fd00:45:1:1c1::5")->up_seid, up_a);
	delete (up_a);
	assert_null(dp_of_ue6("fd00:45:1:1ab::77"));
	assert_int_equal(dp_of_ue6("fd00:45:1:1c0::5")->up_seid, up_b);
	delete (up_b);
	assert_int_equal(st->ue.dlen6, 0);
	tel_has("/lanefwd/upf", "\"ue_prefix_keys\":0");
	tel_has("/lanefwd/upf", "\"ue_prefix_lengths6\":\"none\"");
	assert_int_equal(counts().sessions, base);
}

/* The UE IP Address of Created PDR 2 in rb: a delegated prefix (V6, IPv6D), its 8 bytes. */
static void
created_pfx(const char *want, uint8_t dbits)
{
	uint8_t a[16];

	assert_int_equal(created_ue(2), 0x09);
	assert_int_equal(ue_ie.len, 1 + 16 + 1);
	assert_int_equal(inet_pton(AF_INET6, want, a), 1);
	assert_memory_equal(ue_ie.v + 1, a, 16);
	assert_int_equal(ue_ie.v[17], dbits);
}

/*
 * CHV6 for a delegated prefix (IPv6D or IP6PL), from a pool that hands out
 * /56s ("fwa": the four of a /54, then fd00:45:3:500::/56): aligned /56s in
 * pool order, each once, Cause 75 when all are held; the downlink finds
 * the session for every address in its /56. A length the pool does not
 * hand out, or a /56 from a pool of /64s: Cause 73. What the SMF gives
 * inside the pool must be one of its /56s (then CHOOSE passes it over);
 * a /64 in it, or a /52 over it, is Cause 73. A /56 that only an uplink
 * PDR names is held as well. Nothing is left behind by a refusal.
 */
static void
test_choose_delegated(void **state)
{
	static const char *const want[] = { "fd00:45:2::", "fd00:45:2:100::", "fd00:45:2:200::",
					    "fd00:45:2:300::", "fd00:45:3:500::" };
	const uint32_t base = counts().sessions;
	struct pdr_spec ul, dl;
	uint64_t up[6], up_x;
	char cmd[64];
	unsigned int k;

	(void)state;
	pool_pdrs("fwa", &ul, &dl);
	ul.ue_ch = dl.ue_ch = 0x20;
	ul.dbits = dl.dbits = 8;
	for (k = 0; k < 5; k++) {
		pool_session(&ul, &dl, 800 + k);
		up[k] = est_ok(800 + k);
		created_pfx(want[k], 8);
		/* The uplink PDR has the same. */
		assert_int_equal(created_ue(1), 0x09);
	}
	assert_int_equal(dp_of_ue6("fd00:45:2:1ab::7")->up_seid, up[1]);
	assert_int_equal(dp_of_ue6("fd00:45:2:3ff::1")->up_seid, up[3]);
	assert_int_equal(dp_of_ue6("fd00:45:3:5c0::1")->up_seid, up[4]);
	assert_null(dp_of_ue6("fd00:45:3:400::1"));
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up[2]);
	tel_has(cmd, "\"ue_ipv6\":\"fd00:45:2:200::\"");
	tel_has(cmd, "\"ue_ipv6_prefix_len\":56");
	/* Full. */
	pool_session(&ul, &dl, 805);
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_NO_RESOURCES);
	assert_int_equal(counts().sessions, base + 5);
	/* One freed is the one free; as IP6PL 56 instead of IPv6D 8. */
	delete (up[1]);
	assert_null(dp_of_ue6("fd00:45:2:1ab::7"));
	ul.dbits = dl.dbits = 0;
	w_ip6pl = 56;
	pool_session(&ul, &dl, 806);
	up[1] = est_ok(806);
	created_pfx(want[1], 8);
	w_ip6pl = 0;
	/* Lengths the pools do not hand out. */
	pool_session(&ul, &dl, 807); /* a /64 from "fwa" */
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);
	ul.dbits = dl.dbits = 4;
	pool_session(&ul, &dl, 808); /* a /60 from "fwa" */
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);
	ul.dbits = dl.dbits = 8;
	ul.pool = dl.pool = "ims-2";
	pool_session(&ul, &dl, 809); /* a /56 from a pool of /64s */
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);
	ul.pool = dl.pool = "fwa";
	assert_int_equal(counts().sessions, base + 5);
	for (k = 0; k < 5; k++)
		delete (up[k]);

	/* Given by the SMF inside the pool: a /64 in it, a /52 over it. */
	w_pfx_session(810, "fd00:45:2:300::", 0);
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);
	w_pfx_session(811, "fd00:45:2::", 12);
	refused_on_rule(PFCP_IE_UE_IP_ADDRESS);
	/* One of its /56s: taken, and CHOOSE passes it over. */
	w_pfx_session(812, "fd00:45:2:3ab::", 8);
	up_x = est_ok(812);
	assert_int_equal(dp_of_ue6("fd00:45:2:301::1")->up_seid, up_x);
	/* Held by an uplink PDR alone: a session of CHV6 on PDR 1 only. */
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(813);
	w_create_pdr(&ul);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	end_send();
	up[5] = est_ok(813);
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":1");
	/* The cursor stood after fd00:45:2:100:: (806): the uplink-only
	 * session took fd00:45:2:200::; then fd00:45:2:300:: (the SMF's) is
	 * passed over, and the pool goes round to its last two free. */
	assert_int_equal(created_ue(1), 0x09);
	assert_memory_equal(ue_ie.v + 1, "\xfd\x00\x00\x45\x00\x02\x02\x00", 8);
	assert_null(dp_of_ue6("fd00:45:2:200::1"));
	for (k = 0; k < 3; k++) {
		static const unsigned int next[] = { 4, 0, 1 };

		pool_session(&ul, &dl, 814 + k);
		up[k] = est_ok(814 + k);
		created_pfx(want[next[k]], 8);
	}
	pool_session(&ul, &dl, 817);
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_NO_RESOURCES);
	for (k = 0; k < 3; k++)
		delete (up[k]);
	delete (up[5]);
	delete (up_x);
	tel_has("/lanefwd/upf", "\"ue_ips_held_uplink_only\":0");
	assert_int_equal(st->ue.dlen6, 0);
	assert_int_equal(counts().sessions, base);
}

/* The session a worker's lookup finds for IPv4 address a of "internet" (longest prefix), 0: none. */
static uint64_t
owner4(uint32_t a)
{
	struct upf_ue_key k;
	void *d;

	a = htonl(a);
	upf_ue_key_make(&k, 0, 4, (const uint8_t *)&a, 0);
	upf_ue_lookup_bulk(&st->ue, (const void *[]){ &k }, 1, &d);
	return d == NULL ? 0 : ((const struct upf_sess_dp *)d)->up_seid;
}

/* An establishment of cp_seid: uplink PDR 1, downlink PDR 2 (UE ue) with dl's framed routes. */
static void
est_framed(uint64_t cp_seid, uint32_t ue, const struct pdr_spec *dl)
{
	struct pdr_spec ul = { .id = 1,
			       .prec = 10,
			       .src = UPF_IF_ACCESS,
			       .choose = true,
			       .chid = -1,
			       .far = 1 };
	struct pdr_spec p = *dl;

	p.id = 2;
	p.prec = 10;
	p.src = UPF_IF_CORE;
	p.ni = "internet";
	p.ue4 = ue;
	p.chid = -1;
	p.far = 2;
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(cp_seid);
	w_create_pdr(&ul);
	w_create_pdr(&p);
	w_create_far(1, UPF_FAR_FORW, UPF_IF_CORE, 0);
	w_create_far(2, UPF_FAR_FORW, UPF_IF_ACCESS, 0x5a01);
	end_send();
}

/*
 * Framed routes (FRRT advertised): a downlink PDR's Framed-Routes are the
 * session's in the UE table, so a worker's lookup finds it for their
 * addresses (the longest prefix), telemetry lists them, an Update PDR's
 * PDI moves them and a deletion frees them. Refused with Cause 73 naming
 * the IE and the PDR, with nothing held: a route outside the instance's
 * ue_pool (no packet would reach it), one overlapping an allocating pool,
 * one another session holds, more than UPF_MAX_SESS_FRAMED in a session.
 */
static void
test_framed_routes(void **state)
{
	struct pdr_spec dl = { .framed = { "10.45.200.0/24", "fd00:45:0:77::/64",
					   "10.45.201.0/24 0.0.0.0 1" } };
	const struct upf_store_counts before = counts();
	const uint32_t ue = UE_POOL + 0x0a0a;
	struct pdr_spec p = { 0 };
	char cmd[64];
	uint64_t up;
	size_t g, pdi, o;
	unsigned int i, k;

	(void)state;
	est_framed(931, ue, &dl);
	up = est_ok(931);
	assert_int_equal(owner4(ue), up);
	assert_int_equal(owner4(UE_POOL + 0xc805), up); /* 10.45.200.5 */
	assert_int_equal(owner4(UE_POOL + 0xc9ff), up); /* 10.45.201.255 */
	assert_int_equal(owner4(UE_POOL + 0xca05), 0); /* 10.45.202.5 */
	assert_int_equal(dp_of_ue6("fd00:45:0:77::9")->up_seid, up);
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up);
	tel_has(cmd,
		"\"framed_routes\":[\"10.45.200.0/24\",\"fd00:45:0:77::/64\","
		"\"10.45.201.0/24\"]");
	tel_has("/lanefwd/upf", "\"ue_prefix_lengths4\":\"/24\"");

	/* Refused, holding nothing: outside the ue_pool... */
	p.framed[0] = "192.168.7.0/24";
	est_framed(932, ue + 1, &p);
	refused_on_rule(PFCP_IE_FRAMED_ROUTE);
	p.framed[0] = "fd00:46::/48";
	est_framed(932, ue + 1, &p);
	refused_on_rule(PFCP_IE_FRAMED_IPV6_ROUTE);
	/* ...over or inside a pool CHOOSE hands out from... */
	p.framed[0] = "10.45.128.0/24";
	est_framed(932, ue + 1, &p);
	refused_on_rule(PFCP_IE_FRAMED_ROUTE);
	p.framed[0] = "10.45.128.4/30";
	est_framed(932, ue + 1, &p);
	refused_on_rule(PFCP_IE_FRAMED_ROUTE);
	p.framed[0] = "fd00:45:2:40::/58"; /* inside "fwa" */
	est_framed(932, ue + 1, &p);
	refused_on_rule(PFCP_IE_FRAMED_IPV6_ROUTE);
	/* ...held by the first session (the store says which)... */
	p.framed[0] = "10.45.200.0/24";
	est_framed(932, ue + 1, &p);
	recv_type(PFCP_SESS_EST_RESP, 2000);
	assert_cause(PFCP_CAUSE_RULE_FAILURE);
	/* ...more than a session may have: 17 over three downlink PDRs. */
	begin(PFCP_SESS_EST_REQ, true, 0);
	w_node_id();
	w_cp_fseid(932);
	for (i = 0; i < 3; i++) {
		g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_PDR);
		pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, (uint16_t)(i + 1));
		pfcp_w_ie_u32(&w, PFCP_IE_PRECEDENCE, 10 + i);
		pdi = pfcp_w_ie_begin(&w, PFCP_IE_PDI);
		pfcp_w_ie_u8(&w, PFCP_IE_SOURCE_INTERFACE, UPF_IF_CORE);
		pfcp_w_ie_bytes(&w, PFCP_IE_NETWORK_INSTANCE, "internet", 8);
		for (k = 0; k < (i < 2 ? 8u : 1u); k++) {
			char r[32];

			snprintf(r, sizeof(r), "10.45.%u.0/24", 64 + i * 8 + k);
			pfcp_w_ie_bytes(&w, PFCP_IE_FRAMED_ROUTE, r, strlen(r));
		}
		pfcp_w_ie_end(&w, pdi);
		pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, 1);
		pfcp_w_ie_end(&w, g);
	}
	w_create_far(1, UPF_FAR_DROP, UPF_IF_ACCESS, 0);
	end_send();
	refused_on_rule(PFCP_IE_FRAMED_ROUTE);
	assert_int_equal(owner4(UE_POOL + 0x4005), 0);
	assert_int_equal(counts().sessions, before.sessions + 1);

	/* An Update PDR's PDI replaces the routes: the old ones go, the new one comes. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	g = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_PDR);
	pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, 2);
	pdi = pfcp_w_ie_begin(&w, PFCP_IE_PDI);
	pfcp_w_ie_u8(&w, PFCP_IE_SOURCE_INTERFACE, UPF_IF_CORE);
	pfcp_w_ie_bytes(&w, PFCP_IE_NETWORK_INSTANCE, "internet", 8);
	o = pfcp_w_ie_begin(&w, PFCP_IE_UE_IP_ADDRESS);
	pfcp_w_raw8(&w, 0x06);
	pfcp_w_raw32(&w, ue);
	pfcp_w_ie_end(&w, o);
	pfcp_w_ie_bytes(&w, PFCP_IE_FRAMED_ROUTE, "10.45.202.0/24", 14);
	pfcp_w_ie_end(&w, pdi);
	pfcp_w_ie_end(&w, g);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	assert_int_equal(owner4(UE_POOL + 0xc805), 0);
	assert_int_equal(owner4(UE_POOL + 0xc9ff), 0);
	assert_int_equal(owner4(UE_POOL + 0xca05), up);
	assert_int_equal(owner4(ue), up);
	assert_null(dp_of_ue6("fd00:45:0:77::9"));
	delete (up);
	assert_int_equal(owner4(ue), 0);
	assert_true(st->ue.dlen4 == 0 && st->ue.dlen6 == 0);
	assert_int_equal(counts().sessions, before.sessions);
}

/* A Create / Update URR 9 with DROTH: packets pk (DLPA) and / or bytes by (DLBY), 0: not set. */
static void
w_droth_urr(uint16_t group, uint64_t pk, uint64_t by)
{
	size_t g = pfcp_w_ie_begin(&w, group), o;

	w_urr_head(9, group == PFCP_IE_CREATE_URR ? UPF_MM_VOLUM : 0, UPF_RT_DROTH);
	o = pfcp_w_ie_begin(&w, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD);
	pfcp_w_raw8(&w, (uint8_t)((pk != 0 ? UPF_DROTH_DLPA : 0) | (by != 0 ? UPF_DROTH_DLBY : 0)));
	if (pk != 0)
		pfcp_w_raw64(&w, pk);
	if (by != 0)
		pfcp_w_raw64(&w, by);
	pfcp_w_ie_end(&w, o);
	pfcp_w_ie_end(&w, g);
}

/* n downlink frames of 14 + 100 bytes for session s to the agent, as a worker hands them over. */
static void
frames_to_agent(const struct upf_sess_dp *s, unsigned int n)
{
	while (n-- > 0)
		to_agent_len(s, 114);
}

/* Free what the agent handed back to worker 0 (released or discarded): how many. */
static unsigned int
drain_from_agent(void)
{
	struct rte_mbuf *out[16];
	unsigned int n, i, all = 0;

	while ((n = rte_ring_dequeue_burst(st->wk[0].from_ctrl, (void **)out, 16, NULL)) != 0) {
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(out[i]);
		all += n;
	}
	return all;
}

/*
 * Dropped DL Traffic Threshold (DROTH): downlink packets dropped while
 * buffering (over buffer_packets, 4 here) count toward it; the URR reports
 * with trigger DROTH when they reach its packets (DLPA) or bytes (DLBY),
 * and counts again from 0. An Update URR's new threshold counts from then.
 * DROTH without the IE in an Update URR of a URR that has none: 67.
 */
static void
test_dropped_dl(void **state)
{
	const struct upf_sess_dp *s;
	struct urep u[2];
	char cmd[64];
	uint64_t up;

	(void)state;
	w_plain_session(74, UE_POOL + 74, UPF_FAR_BUFF | UPF_FAR_NOCP, 9);
	w_droth_urr(PFCP_IE_CREATE_URR, 3, 1000);
	end_send();
	up = est_ok(74);
	s = dp_of_ue(UE_POOL + 74);
	snprintf(cmd, sizeof(cmd), "/lanefwd/upf/session,%" PRIu64, up);
	tel_has(cmd, "\"dropped_dl_threshold_packets\":3,\"dropped_dl_threshold_bytes\":1000");
	/* Four held (the Downlink Data Report), two dropped: not yet 3. */
	frames_to_agent(s, 6);
	recv_type(PFCP_SESS_REPORT_REQ, 2000);
	assert_false(usage(PFCP_IE_USAGE_REPORT_SRR, 0, u));
	report_ack(PFCP_CAUSE_ACCEPTED);
	recv_none(200);
	tel_has(cmd, "\"dropped_dl_packets\":2,\"dropped_dl_bytes\":200");
	/* The third: a report, and the count starts again. */
	frames_to_agent(s, 1);
	report_of(PFCP_URT_DROTH, u);
	tel_has(cmd, "\"dropped_dl_packets\":0,\"dropped_dl_bytes\":0");
	frames_to_agent(s, 2);
	recv_none(200);
	/* Bytes only now, 150: the two before do not count; two more reach it. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	w_droth_urr(PFCP_IE_UPDATE_URR, 0, 150);
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	/* The change published a new object: the packets name it. */
	s = dp_of_ue(UE_POOL + 74);
	frames_to_agent(s, 1);
	recv_none(200);
	frames_to_agent(s, 1);
	report_of(PFCP_URT_DROTH, u);
	/* An Update URR asking DROTH of a URR without a threshold: 67. */
	begin(PFCP_SESS_MOD_REQ, true, up);
	{
		size_t g = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);

		w_urr_head(10, UPF_MM_VOLUM, UPF_RT_VOLTH);
		w_vol(PFCP_IE_VOLUME_THRESHOLD, 1000);
		pfcp_w_ie_end(&w, g);
	}
	mod_answer(PFCP_CAUSE_ACCEPTED, 0);
	begin(PFCP_SESS_MOD_REQ, true, up);
	{
		size_t g = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_URR);

		w_urr_head(10, 0, UPF_RT_DROTH);
		pfcp_w_ie_end(&w, g);
	}
	mod_answer(PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD);
	delete (up);
	/* 4 held discarded at the deletion, and the 2 + 1 + 2 + 1 + 1 dropped. */
	assert_int_equal(drain_from_agent(), 11);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

int
main(void)
{
	const struct CMUnitTest start_tests[] = {
		cmocka_unit_test(test_start_errors),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_association),
		cmocka_unit_test(test_heartbeat),
		cmocka_unit_test(test_association),
		cmocka_unit_test(test_rejected_rules),
		cmocka_unit_test(test_unknown_seid),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_establish_choose),
		cmocka_unit_test(test_establish_choose_ue),
		cmocka_unit_test(test_choose_ue_pool_id),
		cmocka_unit_test(test_choose_ue_named_pool),
		cmocka_unit_test(test_delegated_prefix),
		cmocka_unit_test(test_choose_delegated),
		cmocka_unit_test(test_choose_ue_uplink_only),
		cmocka_unit_test(test_choose_ue_given_uplink_only),
		cmocka_unit_test(test_modify_and_reports),
		cmocka_unit_test(test_volume_by_direction),
		cmocka_unit_test(test_time_quota),
		cmocka_unit_test(test_start_and_holding),
		cmocka_unit_test(test_quota_validity),
		cmocka_unit_test(test_linked_usage),
		cmocka_unit_test(test_quota_and_period),
		cmocka_unit_test(test_buffering),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_bar_ddn),
		cmocka_unit_test(test_peer_restart),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_telemetry_params),
		cmocka_unit_test(test_establish_rate),
		cmocka_unit_test(test_framed_routes),
		cmocka_unit_test(test_dropped_dl),
		/* Last: its CHV4 moves the /29's cursor, which tests above count on. */
		cmocka_unit_test(test_traffic_endpoint),
	};
	const struct CMUnitTest hb_tests[] = {
		cmocka_unit_test(test_heartbeat_to_peer),
	};
	int rc;

	if (setup(NULL) != 0) {
		fprintf(stderr, "EAL or store setup failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests_name("start", start_tests, NULL, NULL);
	rc += cmocka_run_group_tests_name("agent", tests, start, stop);
	rc += cmocka_run_group_tests_name("heartbeat", hb_tests, start_heartbeat, stop);
	teardown(NULL);
	return rc;
}
