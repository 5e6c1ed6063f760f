/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFCP (TS 29.244) codec: the decoder of what the UPF receives and the
 * writer of what it sends (pfcp.h).
 *
 * The decoder never trusts a length: every read is of a value whose length
 * was checked against its IE, every IE against its parent, the message
 * against the datagram. It runs in two passes. The first (frame_check) walks
 * the TLV framing of the whole message, recursing into every grouped IE type
 * with a depth limit, so a malformed nest is rejected whatever its context.
 * The second walks the IEs each message and each grouped IE takes through a
 * table per group (struct group: type, minimum length, mandatory or
 * repeatable, handler) and fills the model structs of upf.h. An IE a group
 * does not list is skipped, as are enterprise IEs; a repeated single IE is
 * taken once (the first), as TS 29.244 7.6 asks of receivers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp.h"

/* ---- Reading -------------------------------------------------------- */

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t
rd24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
rd40(const uint8_t *p)
{
	return (uint64_t)p[0] << 32 | rd32(p + 1);
}

static inline uint64_t
rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

/* The decoder's state: where errors go, and the rule being decoded (Failed Rule ID). */
struct dec {
	struct pfcp_msg *m;
	struct pfcp_err *e;
	uint8_t rule_type;
	uint32_t rule_id;
};

static const char *ie_name(uint16_t type);

static void
err_init(struct pfcp_err *e)
{
	memset(e, 0, sizeof(*e));
	e->rule_type = PFCP_RULE_NONE;
}

/* Record the first error (cause, offending IE, the rule for Cause 73) and return -1. */
static int __attribute__((format(printf, 4, 5)))
fail(struct dec *d, uint8_t cause, uint16_t ie, const char *fmt, ...)
{
	struct pfcp_err *e = d->e;
	va_list ap;

	if (e->cause != 0)
		return -1;
	e->cause = cause;
	e->ie = ie;
	if (cause == PFCP_CAUSE_RULE_FAILURE) {
		e->rule_type = d->rule_type;
		e->rule_id = d->rule_id;
	}
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* A rule this UPF does not implement: Cause 73 naming the IE and the rule. */
static int
fail_rule(struct dec *d, uint16_t ie, const char *what)
{
	return fail(d, PFCP_CAUSE_RULE_FAILURE, ie, "%s: %s", ie_name(ie), what);
}

static int
fail_ie(struct dec *d, uint16_t ie, const char *what)
{
	return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, ie, "%s: %s", ie_name(ie), what);
}

/* ---- Pass 1: the framing of the whole message ----------------------- */

/* IE types whose value is a list of IEs (8.1.2, "Grouped"). */
static const uint16_t grouped_types[] = {
	1,  2,  3,  4,  5,   6,   7,   8,   9,   10,  11,  12,  13,  14,
	15, 16, 17, 18, 51,  54,  58,  59,  68,  77,  78,  79,  80,  83,
	85, 86, 87, 99, 102, 105, 118, 127, 128, 129, 130, 132, 143, 147,
};

static bool
is_grouped(uint16_t type)
{
	unsigned int i;

	for (i = 0; i < sizeof(grouped_types) / sizeof(grouped_types[0]); i++)
		if (grouped_types[i] == type)
			return true;
	return false;
}

/*
 * Every IE header within len, every IE within its parent, enterprise IEs
 * long enough for their Enterprise ID, grouped IEs no deeper than
 * PFCP_MAX_DEPTH (depth is that of the IEs in p).
 */
static int
frame_check(struct dec *d, const uint8_t *p, size_t len, unsigned int depth)
{
	size_t off = 0;

	while (off < len) {
		uint16_t t, n;

		if (len - off < 4)
			return fail(d, PFCP_CAUSE_INVALID_LENGTH, 0,
				    "%zu bytes after the last IE: short of an IE header",
				    len - off);
		t = rd16(p + off);
		n = rd16(p + off + 2);
		if (n > len - off - 4)
			return fail(d, PFCP_CAUSE_INVALID_LENGTH, t,
				    "%s (type %u) length %u runs %zu bytes past its end",
				    ie_name(t), t, n, n - (len - off - 4));
		if (t & 0x8000) {
			if (n < 2)
				return fail(d, PFCP_CAUSE_INVALID_LENGTH, t,
					    "enterprise IE %u of length %u: no Enterprise ID", t,
					    n);
		} else if (is_grouped(t)) {
			if (depth > PFCP_MAX_DEPTH)
				return fail(d, PFCP_CAUSE_REJECTED, t,
					    "%s nested deeper than %d grouped IEs", ie_name(t),
					    PFCP_MAX_DEPTH);
			if (frame_check(d, p + off + 4, n, depth + 1) < 0)
				return -1;
		}
		off += 4 + (size_t)n;
	}
	return 0;
}

/* ---- Pass 2: table-driven decoding ---------------------------------- */

typedef int (*ie_fn)(struct dec *d, void *obj, uint16_t type, const uint8_t *v, uint16_t n);

#define IE_MAND 0x01 /* Missing: Cause 66. */
#define IE_MULTI 0x02 /* May repeat: each instance handled. */

struct ie_desc {
	uint16_t type;
	uint8_t min_len;
	uint8_t flags;
	ie_fn fn;
};

struct group {
	const char *name;
	const struct ie_desc *ie;
	unsigned int n;
};

#define GROUP(nm, tbl)                                \
	{                                             \
		nm, tbl, sizeof(tbl) / sizeof(tbl[0]) \
	}

/* Decode the IEs of p (one group's value) into obj with g's table. */
static int
walk(struct dec *d, const struct group *g, void *obj, const uint8_t *p, size_t len)
{
	uint64_t seen = 0;
	size_t off = 0;
	unsigned int i;

	while (off < len) {
		const uint8_t *v;
		uint16_t t, n;

		/* Pass 1 checked this, but the walk stands on its own. */
		if (len - off < 4)
			return fail(d, PFCP_CAUSE_INVALID_LENGTH, 0, "%s: short IE header",
				    g->name);
		t = rd16(p + off);
		n = rd16(p + off + 2);
		if (n > len - off - 4)
			return fail(d, PFCP_CAUSE_INVALID_LENGTH, t, "%s: %s runs past its end",
				    g->name, ie_name(t));
		v = p + off + 4;
		off += 4 + (size_t)n;
		if (t & 0x8000)
			continue;
		for (i = 0; i < g->n && g->ie[i].type != t; i++)
			;
		if (i == g->n)
			continue;
		if ((seen & (1ull << i)) && !(g->ie[i].flags & IE_MULTI))
			continue;
		seen |= 1ull << i;
		if (n < g->ie[i].min_len)
			return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, t,
				    "%s: %s of length %u, shorter than %u", g->name, ie_name(t), n,
				    g->ie[i].min_len);
		if (g->ie[i].fn(d, obj, t, v, n) < 0)
			return -1;
	}
	for (i = 0; i < g->n; i++)
		if ((g->ie[i].flags & IE_MAND) && !(seen & (1ull << i)))
			return fail(d, PFCP_CAUSE_MANDATORY_IE_MISSING, g->ie[i].type,
				    "%s without %s", g->name, ie_name(g->ie[i].type));
	return 0;
}

/* The value of the first IE of type t directly in p, for the Failed Rule ID before the walk. */
static bool
find_id(const uint8_t *p, size_t len, uint16_t type, uint32_t *id)
{
	size_t off = 0;

	while (len - off >= 4) {
		uint16_t t = rd16(p + off), n = rd16(p + off + 2);

		if (n > len - off - 4)
			return false;
		if (t == type) {
			/* A PDR ID is two octets, a BAR ID one, the other rule IDs four. */
			const uint16_t w = type == PFCP_IE_PDR_ID ? 2
				: type == PFCP_IE_BAR_ID          ? 1
								  : 4;

			if (n < w)
				return false;
			*id = w == 2 ? rd16(p + off + 4) : w == 1 ? p[off + 4] : rd32(p + off + 4);
			return true;
		}
		off += 4 + (size_t)n;
	}
	return false;
}

static void
rule_enter(struct dec *d, uint8_t type, uint16_t id_ie, const uint8_t *v, uint16_t n)
{
	d->rule_type = type;
	d->rule_id = 0;
	if (!find_id(v, n, id_ie, &d->rule_id))
		d->rule_type = PFCP_RULE_NONE;
}

static void
rule_leave(struct dec *d)
{
	d->rule_type = PFCP_RULE_NONE;
	d->rule_id = 0;
}

/* Text of a Network Instance or FQDN: DNS labels (TS 23.003 9.1) or plain text. */
static int
name_text(const uint8_t *v, uint16_t n, char *out, size_t cap)
{
	size_t off = 0, o = 0, l;
	bool labels = n > 0 && v[0] > 0 && v[0] < 64;

	/* Labels must cover the value exactly; else it is plain text. */
	while (labels && off < n) {
		uint8_t ll = v[off];

		if (ll == 0 || ll > 63 || ll > n - off - 1)
			labels = false;
		off += 1 + (size_t)ll;
	}
	if (labels && off != n)
		labels = false;
	off = 0;
	while (off < n) {
		size_t j;

		l = n - off;
		if (labels) {
			l = v[off++];
			if (o > 0) {
				if (o + 1 >= cap)
					return -1;
				out[o++] = '.';
			}
		}
		for (j = 0; j < l; j++) {
			uint8_t c = v[off + j];

			if (c < 0x21 || c > 0x7e || o + 1 >= cap)
				return -1;
			out[o++] = (char)c;
		}
		off += l;
	}
	if (o == 0)
		return -1;
	out[o] = '\0';
	/* Dotted labels of 1 to 63 characters, as the writer encodes them again. */
	for (off = 0, l = 0; off <= o; off++) {
		if (off == o || out[off] == '.') {
			if (l == 0 || l > 63)
				return -1;
			l = 0;
		} else {
			l++;
		}
	}
	return 0;
}

/* -- Message-level IEs (obj: struct pfcp_msg). -- */

static int
h_node_id(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_node_id *id = &((struct pfcp_msg *)obj)->node_id;

	memset(id, 0, sizeof(*id));
	id->type = v[0] & 0x0f;
	switch (id->type) {
	case PFCP_NODE_ID_IPV4:
		if (n < 5)
			return fail_ie(d, t, "IPv4 type shorter than 5 octets");
		id->ip.af = 4;
		memcpy(id->ip.a, v + 1, 4);
		break;
	case PFCP_NODE_ID_IPV6:
		if (n < 17)
			return fail_ie(d, t, "IPv6 type shorter than 17 octets");
		id->ip.af = 6;
		memcpy(id->ip.a, v + 1, 16);
		break;
	case PFCP_NODE_ID_FQDN:
		if (name_text(v + 1, n - 1, id->fqdn, sizeof(id->fqdn)) < 0)
			return fail_ie(d, t, "FQDN empty, too long or not printable");
		break;
	default:
		return fail_ie(d, t, "unknown Node ID type");
	}
	((struct pfcp_msg *)obj)->present |= PFCP_M_NODE_ID;
	return 0;
}

static int
h_recovery(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;

	(void)d, (void)t, (void)n;
	m->recovery_ts = rd32(v);
	m->present |= PFCP_M_RECOVERY;
	return 0;
}

static int
h_cause(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;

	(void)d, (void)t, (void)n;
	m->cause = v[0];
	m->present |= PFCP_M_CAUSE;
	return 0;
}

static uint64_t
features(const uint8_t *v, uint16_t n)
{
	uint64_t f = 0;
	unsigned int i;

	for (i = 0; i < n && i < 8; i++)
		f |= (uint64_t)v[i] << (8 * i);
	return f;
}

static int
h_features(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;

	(void)d;
	if (t == PFCP_IE_UP_FUNCTION_FEATURES) {
		m->up_features = features(v, n);
		m->present |= PFCP_M_UP_FEATURES;
	} else {
		m->cp_features = features(v, n);
		m->present |= PFCP_M_CP_FEATURES;
	}
	return 0;
}

static int
h_cp_fseid(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;
	struct pfcp_fseid *f = &m->cp_fseid;
	size_t need = 9 + (v[0] & 0x02 ? 4 : 0) + (v[0] & 0x01 ? 16 : 0);
	size_t off = 9;

	if (n < need)
		return fail_ie(d, t, "shorter than its V4 / V6 flags say");
	if (!(v[0] & 0x03))
		return fail_ie(d, t, "neither V4 nor V6 set");
	memset(f, 0, sizeof(*f));
	f->seid = rd64(v + 1);
	if (v[0] & 0x02) {
		f->v4.af = 4;
		memcpy(f->v4.a, v + off, 4);
		off += 4;
	}
	if (v[0] & 0x01) {
		f->v6.af = 6;
		memcpy(f->v6.a, v + off, 16);
	}
	m->present |= PFCP_M_CP_FSEID;
	return 0;
}

static int
h_msg_u8(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;

	(void)d, (void)n;
	switch (t) {
	case PFCP_IE_PDN_TYPE:
		m->pdn_type = v[0] & 0x07;
		m->present |= PFCP_M_PDN_TYPE;
		break;
	case PFCP_IE_PFCPSMREQ_FLAGS:
		m->smreq_flags = v[0];
		m->present |= PFCP_M_SMREQ_FLAGS;
		break;
	case PFCP_IE_PFCPSRRSP_FLAGS:
		m->srrsp_flags = v[0];
		m->present |= PFCP_M_SRRSP_FLAGS;
		break;
	case PFCP_IE_ASSOC_RELEASE_REQUEST:
		m->assoc_rel_req = v[0];
		m->present |= PFCP_M_ASSOC_REL_REQ;
		break;
	case PFCP_IE_GRACEFUL_RELEASE_PERIOD:
		m->graceful_rel = v[0];
		m->present |= PFCP_M_GRACEFUL_REL;
		break;
	default:
		break;
	}
	return 0;
}

/* -- BAR (obj: struct pfcp_bar). -- */

static int
h_bar_ie(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_bar *b = obj;

	(void)d, (void)n;
	switch (t) {
	case PFCP_IE_BAR_ID:
		b->id = v[0];
		break;
	case PFCP_IE_SUGGESTED_BUFFERING_COUNT:
		b->has_count = true;
		b->count = v[0];
		break;
	default:
		b->has_ddn_delay = true;
		b->ddn_delay = v[0];
		break;
	}
	return 0;
}

static const struct ie_desc bar_ies[] = {
	{ PFCP_IE_BAR_ID, 1, IE_MAND, h_bar_ie },
	{ PFCP_IE_DL_DATA_NOTIFICATION_DELAY, 1, 0, h_bar_ie },
	{ PFCP_IE_SUGGESTED_BUFFERING_COUNT, 1, 0, h_bar_ie },
};
static const struct group g_create_bar = GROUP("Create BAR", bar_ies);
static const struct group g_update_bar = GROUP("Update BAR", bar_ies);
static const struct ie_desc bar_id_ies[] = { { PFCP_IE_BAR_ID, 1, IE_MAND, h_bar_ie } };
static const struct group g_remove_bar = GROUP("Remove BAR", bar_id_ies);

/*
 * Create / Update / Remove BAR into the message; the Update BAR of a
 * Session Report Response (DL Buffering Duration, its packet count) is
 * accepted and not applied.
 */
static int
h_bar(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;
	struct pfcp_bar *b, one;
	uint32_t bit;
	const struct group *g;

	switch (t) {
	case PFCP_IE_CREATE_BAR:
		b = &m->create_bar, bit = PFCP_M_CREATE_BAR, g = &g_create_bar;
		break;
	case PFCP_IE_UPDATE_BAR_SMR:
		b = &m->update_bar, bit = PFCP_M_UPDATE_BAR, g = &g_update_bar;
		break;
	case PFCP_IE_REMOVE_BAR:
		b = &one, bit = PFCP_M_REMOVE_BAR, g = &g_remove_bar;
		break;
	default:
		m->present |= PFCP_M_UPDATE_BAR_SRR;
		return 0;
	}
	memset(b, 0, sizeof(*b));
	rule_enter(d, PFCP_RULE_BAR, PFCP_IE_BAR_ID, v, n);
	if (walk(d, g, b, v, n) < 0)
		return -1;
	rule_leave(d);
	if (t == PFCP_IE_REMOVE_BAR)
		m->remove_bar = b->id;
	m->present |= bit;
	return 0;
}

/* What the UPF cannot do and must not ignore: Cause 73 naming the IE. */
static int
h_unsupported(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	(void)obj, (void)v, (void)n;
	return fail_rule(d, t, "not supported by this UPF");
}

/* -- PDR (obj: struct pfcp_pdr). -- */

static int
h_pdr_id(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;

	(void)d, (void)t, (void)n;
	p->c.id = rd16(v);
	p->present |= PFCP_PDR_ID;
	return 0;
}

static int
h_precedence(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;

	(void)d, (void)t, (void)n;
	p->c.precedence = rd32(v);
	p->present |= PFCP_PDR_PRECEDENCE;
	return 0;
}

static int
h_ohr(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;

	(void)n;
	/* GTP-U/UDP/IPv4, GTP-U/UDP/IPv6, GTP-U/UDP/IP: the ones a UPF removes. */
	if (v[0] != 0 && v[0] != 1 && v[0] != 6)
		return fail_rule(d, t, "only GTP-U/UDP/IP removal is supported");
	p->c.outer_hdr_removal = true;
	p->present |= PFCP_PDR_OHR;
	return 0;
}

static int
h_pdr_ref(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;
	uint32_t id = rd32(v);

	(void)n;
	switch (t) {
	case PFCP_IE_FAR_ID:
		p->c.has_far = true;
		p->c.far_id = id;
		p->present |= PFCP_PDR_FAR_ID;
		break;
	case PFCP_IE_QER_ID:
		if (p->c.n_qer >= UPF_MAX_PDR_QER)
			return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "PDR %u names more than %d QERs",
				    p->c.id, UPF_MAX_PDR_QER);
		p->c.qer_id[p->c.n_qer++] = id;
		p->present |= PFCP_PDR_QER_ID;
		break;
	case PFCP_IE_URR_ID:
		if (p->c.n_urr >= UPF_MAX_PDR_URR)
			return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "PDR %u names more than %d URRs",
				    p->c.id, UPF_MAX_PDR_URR);
		p->c.urr_id[p->c.n_urr++] = id;
		p->present |= PFCP_PDR_URR_ID;
		break;
	default:
		break;
	}
	return 0;
}

static int
h_src_iface(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;
	uint8_t i = v[0] & 0x0f;

	(void)n;
	if (i > UPF_IF_CP)
		return fail_rule(d, t, "interface value not supported");
	p->c.src_iface = i;
	return 0;
}

static int
h_fteid(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;
	uint8_t f = v[0];
	size_t off = 1;

	if (f & 0x04) {
		/* CH: the UP allocates; V4 / V6 say which families; no TEID, no address. */
		if (!(f & 0x03))
			return fail_ie(d, t, "CH without V4 or V6");
		p->c.fteid_choose = true;
		if (f & 0x01)
			p->c.fteid4.af = 4;
		if (f & 0x02)
			p->c.fteid6.af = 6;
		if (f & 0x08) {
			if (n < 2)
				return fail_ie(d, t, "CHID without a CHOOSE ID");
			p->c.has_choose_id = true;
			p->c.choose_id = v[1];
		}
	} else {
		size_t need = 5 + (f & 0x01 ? 4 : 0) + (f & 0x02 ? 16 : 0);

		if (f & 0x08)
			return fail_ie(d, t, "CHID without CH");
		if (!(f & 0x03))
			return fail_ie(d, t, "neither V4 nor V6 set");
		if (n < need)
			return fail_ie(d, t, "shorter than its V4 / V6 flags say");
		p->c.teid = rd32(v + off);
		off += 4;
		if (f & 0x01) {
			p->c.fteid4.af = 4;
			memcpy(p->c.fteid4.a, v + off, 4);
			off += 4;
		}
		if (f & 0x02) {
			p->c.fteid6.af = 6;
			memcpy(p->c.fteid6.a, v + off, 16);
		}
	}
	p->c.has_fteid = true;
	p->present |= PFCP_PDR_FTEID;
	return 0;
}

static int
h_pdr_ni(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;

	if (name_text(v, n, p->ni_name, sizeof(p->ni_name)) < 0)
		return fail_rule(d, t, "empty, longer than 63 or not printable");
	p->present |= PFCP_PDR_NI;
	return 0;
}

/* UE IP address Pool Identity: a 2-octet length, then the identity. */
static int
h_pool_id(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;
	uint16_t l = rd16(v), i;

	if (l > n - 2)
		return fail(d, PFCP_CAUSE_INVALID_LENGTH, t,
			    "UE IP address Pool Identity of %u octets runs past the IE", l);
	if (l == 0)
		return fail_ie(d, t, "an empty UE IP address Pool Identity");
	if (l >= sizeof(p->pool_id[0]))
		return fail_rule(d, t, "a UE IP address Pool Identity longer than 63 octets");
	for (i = 0; i < l; i++)
		if (v[2 + i] <= ' ' || v[2 + i] > '~')
			return fail_rule(d, t, "a UE IP address Pool Identity not printable text");
	if (p->n_pool_id == RTE_DIM(p->pool_id))
		return fail_rule(d, t, "more than two UE IP address Pool Identities");
	memcpy(p->pool_id[p->n_pool_id], v + 2, l);
	p->pool_id[p->n_pool_id++][l] = '\0';
	return 0;
}

static int
h_ue_ip(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;
	uint8_t f = v[0];
	/* 8.2.62: the flags, IPv4, IPv6, the IPv6 Prefix Delegation Bits
	 * (IPv6D) and the IPv6 Prefix Length (IP6PL), each when its flag is set. */
	size_t need = 1 + (f & 0x02 ? 4 : 0) + (f & 0x01 ? 16 : 0) + (f & 0x08 ? 1 : 0) +
		(f & 0x40 ? 1 : 0);
	size_t off = 1;
	unsigned int dbits = 0;

	/* CHV4 / CHV6: the UP allocates (5.21.3); the address is then absent. */
	if ((f & 0x12) == 0x12 || (f & 0x21) == 0x21)
		return fail_ie(d, t, "CHV4 with V4, or CHV6 with V6");
	if (!(f & 0x33))
		return fail_ie(d, t, "none of V4, V6, CHV4 and CHV6 set");
	if (n < need)
		return fail_ie(d, t, "shorter than its V4 / V6 flags say");
	/* A second UE IP Address IE may add the other family, never replace one. */
	if (((f & 0x12) && (p->c.ue4.af != 0 || (p->c.ue_choose & UPF_UE_CHOOSE4))) ||
	    ((f & 0x21) && (p->c.ue6.af != 0 || (p->c.ue_choose & UPF_UE_CHOOSE6))))
		return fail_rule(d, t, "two UE addresses of one family");
	if (f & 0x10)
		p->c.ue_choose |= UPF_UE_CHOOSE4;
	if (f & 0x20)
		p->c.ue_choose |= UPF_UE_CHOOSE6;
	if (f & 0x02) {
		p->c.ue4.af = 4;
		memcpy(p->c.ue4.a, v + off, 4);
		off += 4;
	}
	if (f & 0x01) {
		p->c.ue6.af = 6;
		memcpy(p->c.ue6.a, v + off, 16);
		off += 16;
	}
	/*
	 * The UE's IPv6 prefix: its /64 (TS 23.501 5.8.2.2.2), or a prefix
	 * delegated to it (5.8.2.2.4) of IPv6D bits, or of an IP6PL length,
	 * each meaning a /(64 - bits): up to a /48 (UPF_UE6_DBITS_MAX), one
	 * key of the UE table (upf_uetab.h). Both fields given must say the
	 * same length.
	 */
	if ((f & 0x48) && !(f & 0x21))
		return fail_ie(d, t, "IPv6D or IP6PL without V6 or CHV6");
	if (f & 0x08) {
		dbits = v[off++];
		if (dbits > 64)
			return fail_ie(d, t, "IPv6 Prefix Delegation Bits above 64");
	}
	if (f & 0x40) {
		if (v[off] > 128)
			return fail_ie(d, t, "an IPv6 Prefix Length above 128");
		if ((f & 0x08) && v[off] != 64 - dbits)
			return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, t,
				    "%s: IPv6 Prefix Delegation Bits %u (a /%d) and IPv6 Prefix "
				    "Length /%u disagree",
				    ie_name(t), dbits, 64 - (int)dbits, v[off]);
		if (v[off] > 64)
			return fail(d, PFCP_CAUSE_RULE_FAILURE, t,
				    "%s: an IPv6 prefix length of /%u (IP6PL): the UE table "
				    "keys a /64 or a shorter prefix",
				    ie_name(t), v[off]);
		dbits = 64 - v[off];
	}
	if (dbits > UPF_UE6_DBITS_MAX)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t,
			    "%s: an IPv6 prefix of /%u: at most a /%u is implemented", ie_name(t),
			    64 - dbits, 64 - UPF_UE6_DBITS_MAX);
	if (dbits != 0) {
		/* The prefix as a key: its host bits zero (the UE table's mask). */
		upf_ue6_mask(p->c.ue6.a, dbits);
		memset(&p->c.ue6.a[8], 0, 8);
		p->c.ue6_dbits = (uint8_t)dbits;
	}
	p->ue_sd = (f & 0x04) != 0;
	p->present |= PFCP_PDR_UE_IP;
	return 0;
}

static int
h_pdr_qfi(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;

	(void)n;
	/* Several QFIs in one PDI cannot be matched by one qfi field: refuse, not half-match. */
	if (p->c.has_qfi && p->c.qfi != (v[0] & 0x3f))
		return fail_rule(d, t, "more than one QFI in a PDI");
	p->c.has_qfi = true;
	p->c.qfi = v[0] & 0x3f;
	p->present |= PFCP_PDR_QFI;
	return 0;
}

/* The Traffic Endpoint a PDI names (PDIU), or the ID of one being created or changed. */
static int
h_te_id(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;

	(void)n;
	/* Several in one PDI is MTE (multi-access), not advertised. */
	if (p->c.has_te)
		return fail_rule(d, t, "more than one Traffic Endpoint ID in a PDI (MTE)");
	p->c.has_te = true;
	p->c.te_id = v[0];
	return 0;
}

/* The ports of one side of a Flow Description: ranges, any one matching. */
struct sdf_ports {
	unsigned int n;
	uint16_t lo[UPF_MAX_SDF], hi[UPF_MAX_SDF];
};

/* One port or a range "a-b". */
static int
sdf_port_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	unsigned long a, b;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	a = strtoul(s, &end, 10);
	b = a;
	if (*end == '-') {
		s = end + 1;
		if (*s < '0' || *s > '9')
			return -1;
		b = strtoul(s, &end, 10);
	}
	if (*end != '\0' || a > 65535 || b > 65535 || a > b)
		return -1;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

/*
 * A port list of RFC 6733's IPFilterRule: ranges separated by commas, "80",
 * "1000-2000", "53,80,443-445", at most UPF_MAX_SDF of them (a PDR holds no
 * more filters). s is cut at the commas.
 */
static int
sdf_ports(char *s, struct sdf_ports *l)
{
	char *p = s, *comma;

	l->n = 0;
	for (;;) {
		comma = strchr(p, ',');
		if (comma != NULL)
			*comma = '\0';
		if (l->n == UPF_MAX_SDF || sdf_port_range(p, &l->lo[l->n], &l->hi[l->n]) < 0)
			return -1;
		l->n++;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

/*
 * "any", "assigned" (ue side only), or an IPv4 / IPv6 address with an
 * optional /len, host bits cleared. Also a Framed-Route's prefix.
 */
static int
sdf_addr(const char *s, bool ue, struct upf_prefix *px)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	size_t l = slash != NULL ? (size_t)(slash - s) : strlen(s);
	unsigned long plen;
	unsigned int i, max;
	char *end;

	memset(px, 0, sizeof(*px));
	if (strcmp(s, "any") == 0)
		return 0;
	if (strcmp(s, "assigned") == 0)
		return ue ? 0 : -1;
	if (l == 0 || l >= sizeof(buf))
		return -1;
	memcpy(buf, s, l);
	buf[l] = '\0';
	if (inet_pton(AF_INET, buf, px->a) == 1)
		px->af = 4;
	else if (inet_pton(AF_INET6, buf, px->a) == 1)
		px->af = 6;
	else
		return -1;
	max = px->af == 4 ? 32 : 128;
	plen = max;
	if (slash != NULL) {
		if (slash[1] < '0' || slash[1] > '9')
			return -1;
		plen = strtoul(slash + 1, &end, 10);
		if (*end != '\0' || plen > max)
			return -1;
	}
	px->plen = (uint8_t)plen;
	/* Host bits cleared, as the model wants: 10.0.0.1/8 is 10.0.0.0/8. */
	for (i = 0; i < max / 8; i++) {
		if (i * 8 >= plen)
			px->a[i] = 0;
		else if (i * 8 + 8 > plen)
			px->a[i] &= (uint8_t)(0xff << (8 - (plen - i * 8)));
	}
	return 0;
}

/*
 * Framed-Route / Framed-IPv6-Route (8.2.109, 8.2.110; FRRT): a network
 * behind the UE, as RADIUS writes it (RFC 2865 5.22, RFC 3162 2.5): the
 * prefix first ("192.0.2.0/24", "2001:db8:1::/48"; no length is a host),
 * then a gateway and metrics, which a UPF has no use for (the session is
 * the next hop). The prefix is read as an SDF filter's address is
 * (sdf_addr): the bits past the length are masked, as the UE address's
 * interface identifier is in a delegated prefix.
 */
static int
h_framed(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;
	const uint8_t af = t == PFCP_IE_FRAMED_ROUTE ? 4 : 6;
	char txt[INET6_ADDRSTRLEN + 8];
	struct upf_prefix f;
	unsigned int i, len;

	for (len = 0; len < n && v[len] != ' '; len++)
		;
	if (len == 0 || len >= sizeof(txt) || memchr(v, '\0', len) != NULL)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "PDR %u: %s: \"%.*s\" is not a prefix",
			    p->c.id, ie_name(t), (int)RTE_MIN(len, 64u), (const char *)v);
	memcpy(txt, v, len);
	txt[len] = '\0';
	if (sdf_addr(txt, false, &f) < 0 || f.af != af)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t,
			    "PDR %u: %s: \"%s\" is not an IPv%u prefix", p->c.id, ie_name(t), txt,
			    af);
	if (af == 6 && f.plen > UPF_FRAMED6_PLEN_MAX)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t,
			    "PDR %u: %s: a /%u: the UE table keys IPv6 by its /64, so at most a "
			    "/%u is implemented",
			    p->c.id, ie_name(t), f.plen, UPF_FRAMED6_PLEN_MAX);
	for (i = 0; i < p->c.n_framed; i++)
		if (memcmp(&p->c.framed[i], &f, sizeof(f)) == 0)
			return 0;
	if (p->c.n_framed == UPF_MAX_PDR_FRAMED)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "PDR %u: more than %u framed routes",
			    p->c.id, UPF_MAX_PDR_FRAMED);
	p->c.framed[p->c.n_framed++] = f;
	p->present |= PFCP_PDR_FRAMED;
	return 0;
}

/*
 * Flow Description (TS 29.212 5.4.2, an IPFilterRule of RFC 6733):
 * "permit out PROTO from ADDR [PORTS] to ADDR [PORTS]" and nothing else.
 * The port lists go to rp (remote) and up (UE); a side without ports gets
 * the one range 0-65535.
 */
static int
sdf_flow(char *s, struct upf_sdf *f, struct sdf_ports *rp, struct sdf_ports *up, const char **why)
{
	char *tok[10], *save = NULL, *w;
	unsigned int nt = 0, i;
	unsigned long proto;
	char *end;

	for (w = strtok_r(s, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
		if (nt == sizeof(tok) / sizeof(tok[0])) {
			*why = "too many words";
			return -1;
		}
		tok[nt++] = w;
	}
	if (nt < 7 || strcmp(tok[0], "permit") != 0 || strcmp(tok[1], "out") != 0) {
		*why = "not \"permit out PROTO from ... to ...\"";
		return -1;
	}
	if (strcmp(tok[2], "ip") == 0) {
		f->any_proto = true;
	} else {
		if (tok[2][0] < '0' || tok[2][0] > '9') {
			*why = "protocol neither \"ip\" nor a number";
			return -1;
		}
		proto = strtoul(tok[2], &end, 10);
		if (*end != '\0' || proto > 255) {
			*why = "protocol neither \"ip\" nor a number";
			return -1;
		}
		f->any_proto = false;
		f->proto = (uint8_t)proto;
	}
	if (strcmp(tok[3], "from") != 0) {
		*why = "no \"from\"";
		return -1;
	}
	if (sdf_addr(tok[4], false, &f->remote) < 0) {
		*why = "bad source address (negation and \"assigned\" are not supported)";
		return -1;
	}
	i = 5;
	rp->n = up->n = 1;
	rp->lo[0] = up->lo[0] = 0;
	rp->hi[0] = up->hi[0] = UINT16_MAX;
	if (strcmp(tok[i], "to") != 0) {
		if (sdf_ports(tok[i], rp) < 0) {
			*why = "bad source ports (ports or ranges a-b, at most 8, separated by commas)";
			return -1;
		}
		i++;
	}
	if (i >= nt || strcmp(tok[i], "to") != 0) {
		*why = "no \"to\"";
		return -1;
	}
	if (++i >= nt || sdf_addr(tok[i], true, &f->ue) < 0) {
		*why = "bad destination address";
		return -1;
	}
	if (++i < nt && sdf_ports(tok[i++], up) < 0) {
		*why = "bad destination ports (ports or ranges a-b, at most 8, separated by commas)";
		return -1;
	}
	if (i != nt) {
		*why = "options after the destination are not supported";
		return -1;
	}
	if (f->remote.af != 0 && f->ue.af != 0 && f->remote.af != f->ue.af) {
		*why = "IPv4 and IPv6 addresses mixed";
		return -1;
	}
	return 0;
}

/*
 * An SDF Filter. A Flow Description with port lists becomes one filter per
 * pair of ranges (remote x UE): the PDR's filters are alternatives, so the
 * pairs match exactly what the lists do.
 */
static int
h_sdf(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;
	struct upf_sdf f;
	struct sdf_ports rp = { 1, { 0 }, { UINT16_MAX } }, up = rp;
	uint8_t fl = v[0];
	size_t off = 2;
	const char *why = NULL;
	unsigned int i, j;

	if (p->c.n_sdf >= UPF_MAX_SDF)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "PDR %u has more than %d SDF filters",
			    p->c.id, UPF_MAX_SDF);
	/* SPI and flow label narrow the match: refuse them rather than widen it. */
	if (fl & 0x04)
		return fail_rule(d, t, "Security Parameter Index (SPI) matching not supported");
	if (fl & 0x08)
		return fail_rule(d, t, "Flow Label matching not supported");
	if (!(fl & 0x03))
		return fail_ie(d, t, "neither a Flow Description nor a ToS Traffic Class");
	memset(&f, 0, sizeof(f));
	f.any_proto = true;
	if (fl & 0x01) {
		char txt[256];
		uint16_t fdl;

		if (n < off + 2)
			return fail_ie(d, t, "no Flow Description length");
		fdl = rd16(v + off);
		off += 2;
		if (fdl > n - off)
			return fail(d, PFCP_CAUSE_INVALID_LENGTH, t,
				    "SDF Filter: Flow Description of %u bytes runs past the IE",
				    fdl);
		if (fdl >= sizeof(txt) || memchr(v + off, '\0', fdl) != NULL)
			return fail_rule(d, t, "Flow Description longer than 255 or with a NUL");
		memcpy(txt, v + off, fdl);
		txt[fdl] = '\0';
		off += fdl;
		if (sdf_flow(txt, &f, &rp, &up, &why) < 0)
			return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "PDR %u: Flow Description: %s",
				    p->c.id, why);
	}
	if (fl & 0x02) {
		if (n < off + 2)
			return fail_ie(d, t, "TTC without ToS Traffic Class octets");
		f.has_tos = true;
		f.tos = v[off];
		f.tos_mask = v[off + 1];
		off += 2;
	}
	/* BID: an SDF Filter ID names the filter; it does not change what matches. */
	if ((fl & 0x10) && n < off + 4)
		return fail_ie(d, t, "BID without an SDF Filter ID");
	if (rp.n * up.n > (unsigned int)(UPF_MAX_SDF - p->c.n_sdf))
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t,
			    "PDR %u: its port lists make more than %d SDF filters", p->c.id,
			    UPF_MAX_SDF);
	for (i = 0; i < rp.n; i++)
		for (j = 0; j < up.n; j++) {
			struct upf_sdf *o = &p->c.sdf[p->c.n_sdf++];

			*o = f;
			o->rport_lo = rp.lo[i];
			o->rport_hi = rp.hi[i];
			o->uport_lo = up.lo[j];
			o->uport_hi = up.hi[j];
		}
	return 0;
}

static const struct ie_desc pdi_ies[] = {
	{ PFCP_IE_SOURCE_INTERFACE, 1, IE_MAND, h_src_iface },
	{ PFCP_IE_F_TEID, 1, 0, h_fteid },
	{ PFCP_IE_NETWORK_INSTANCE, 1, 0, h_pdr_ni },
	{ PFCP_IE_UE_IP_ADDRESS, 1, IE_MULTI, h_ue_ip },
	{ PFCP_IE_SDF_FILTER, 2, IE_MULTI, h_sdf },
	{ PFCP_IE_QFI, 1, IE_MULTI, h_pdr_qfi },
	{ PFCP_IE_APPLICATION_ID, 0, 0, h_unsupported },
	{ PFCP_IE_TRAFFIC_ENDPOINT_ID, 1, IE_MULTI, h_te_id },
	{ PFCP_IE_ETHERNET_PACKET_FILTER, 0, 0, h_unsupported },
	{ PFCP_IE_FRAMED_ROUTE, 1, IE_MULTI, h_framed },
	{ PFCP_IE_FRAMED_IPV6_ROUTE, 1, IE_MULTI, h_framed },
};
static const struct group g_pdi = GROUP("PDI", pdi_ies);

static int
h_pdi(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_pdr *p = obj;

	(void)t;
	/* An Update PDR's PDI replaces the whole PDI. */
	p->c.src_iface = 0;
	p->c.has_fteid = p->c.fteid_choose = p->c.has_choose_id = p->c.has_qfi = false;
	p->c.teid = 0;
	memset(&p->c.fteid4, 0, sizeof(p->c.fteid4));
	memset(&p->c.fteid6, 0, sizeof(p->c.fteid6));
	memset(&p->c.ue4, 0, sizeof(p->c.ue4));
	memset(&p->c.ue6, 0, sizeof(p->c.ue6));
	p->c.ue6_dbits = 0;
	p->c.n_sdf = 0;
	p->c.n_framed = 0;
	p->c.has_te = false;
	p->ni_name[0] = '\0';
	if (walk(d, &g_pdi, p, v, n) < 0)
		return -1;
	/* 7.5.2.2: with a Traffic Endpoint ID these come from the endpoint. */
	if (p->c.has_te &&
	    (p->c.has_fteid || (p->present & (PFCP_PDR_UE_IP | PFCP_PDR_NI | PFCP_PDR_FRAMED))))
		return fail(d, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_TRAFFIC_ENDPOINT_ID,
			    "PDR %u: a PDI with a Traffic Endpoint ID carries an F-TEID, UE IP "
			    "Address, Network Instance or Framed-Route of its own",
			    p->c.id);
	p->present |= PFCP_PDR_PDI;
	return 0;
}

static const struct ie_desc create_pdr_ies[] = {
	{ PFCP_IE_PDR_ID, 2, IE_MAND, h_pdr_id },
	{ PFCP_IE_PRECEDENCE, 4, IE_MAND, h_precedence },
	{ PFCP_IE_PDI, 0, IE_MAND, h_pdi },
	{ PFCP_IE_OUTER_HEADER_REMOVAL, 1, 0, h_ohr },
	{ PFCP_IE_FAR_ID, 4, 0, h_pdr_ref },
	{ PFCP_IE_URR_ID, 4, IE_MULTI, h_pdr_ref },
	{ PFCP_IE_QER_ID, 4, IE_MULTI, h_pdr_ref },
	{ PFCP_IE_UE_IP_POOL_ID, 2, IE_MULTI, h_pool_id },
	{ 106 /* Activate Predefined Rules */, 0, 0, h_unsupported },
};
static const struct group g_create_pdr = GROUP("Create PDR", create_pdr_ies);

static const struct ie_desc update_pdr_ies[] = {
	{ PFCP_IE_PDR_ID, 2, IE_MAND, h_pdr_id },
	{ PFCP_IE_PRECEDENCE, 4, 0, h_precedence },
	{ PFCP_IE_PDI, 0, 0, h_pdi },
	{ PFCP_IE_OUTER_HEADER_REMOVAL, 1, 0, h_ohr },
	{ PFCP_IE_FAR_ID, 4, 0, h_pdr_ref },
	{ PFCP_IE_URR_ID, 4, IE_MULTI, h_pdr_ref },
	{ PFCP_IE_QER_ID, 4, IE_MULTI, h_pdr_ref },
	{ 106 /* Activate Predefined Rules */, 0, 0, h_unsupported },
	{ 107 /* Deactivate Predefined Rules */, 0, 0, h_unsupported },
};
static const struct group g_update_pdr = GROUP("Update PDR", update_pdr_ies);

/* -- FAR (obj: struct pfcp_far). -- */

static int
h_far_id(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;

	(void)d, (void)t, (void)n;
	f->c.id = rd32(v);
	f->present |= PFCP_FAR_ID;
	return 0;
}

static int
h_apply(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;

	(void)n;
	/* IPMA / IPMD / DFRT (multicast, forwarding-rule timers): not implemented. */
	if (v[0] & 0xe0)
		return fail_rule(d, t, "IPMA, IPMD or DFRT not supported");
	if (!(v[0] & (UPF_FAR_DROP | UPF_FAR_FORW | UPF_FAR_BUFF | UPF_FAR_NOCP | UPF_FAR_DUPL)))
		return fail_ie(d, t, "no action set");
	f->c.apply = v[0];
	f->present |= PFCP_FAR_APPLY;
	return 0;
}

static int
h_dst_iface(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;
	uint8_t i = v[0] & 0x0f;

	(void)n;
	if (i > UPF_IF_LI)
		return fail_rule(d, t, "interface value not supported");
	f->c.dst_iface = i;
	f->present |= PFCP_FAR_DST_IFACE;
	return 0;
}

static int
h_far_ni(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;

	if (name_text(v, n, f->ni_name, sizeof(f->ni_name)) < 0)
		return fail_rule(d, t, "empty, longer than 63 or not printable");
	f->present |= PFCP_FAR_NI;
	return 0;
}

static int
h_ohc(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;
	uint16_t desc = rd16(v);

	if (desc != UPF_OHC_GTPU_UDP_IPV4 && desc != UPF_OHC_GTPU_UDP_IPV6)
		return fail_rule(d, t, "only GTP-U/UDP/IPv4 or GTP-U/UDP/IPv6, one of them");
	if (n < (desc == UPF_OHC_GTPU_UDP_IPV4 ? 10 : 22))
		return fail_ie(d, t, "shorter than its description says");
	f->c.ohc = desc;
	f->c.ohc_teid = rd32(v + 2);
	memset(&f->c.ohc_peer, 0, sizeof(f->c.ohc_peer));
	if (desc == UPF_OHC_GTPU_UDP_IPV4) {
		f->c.ohc_peer.af = 4;
		memcpy(f->c.ohc_peer.a, v + 6, 4);
	} else {
		f->c.ohc_peer.af = 6;
		memcpy(f->c.ohc_peer.a, v + 6, 16);
	}
	f->present |= PFCP_FAR_OHC;
	return 0;
}

static int
h_far_smreq(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;

	(void)d, (void)t, (void)n;
	if (v[0] & PFCP_SMREQ_SNDEM)
		f->present |= PFCP_FAR_SNDEM;
	return 0;
}

static const struct ie_desc fwd_ies[] = {
	{ PFCP_IE_DESTINATION_INTERFACE, 1, IE_MAND, h_dst_iface },
	{ PFCP_IE_NETWORK_INSTANCE, 1, 0, h_far_ni },
	{ PFCP_IE_OUTER_HEADER_CREATION, 2, 0, h_ohc },
	{ PFCP_IE_REDIRECT_INFO, 0, 0, h_unsupported },
	{ PFCP_IE_FORWARDING_POLICY, 0, 0, h_unsupported },
	{ PFCP_IE_HEADER_ENRICHMENT, 0, 0, h_unsupported },
};
static const struct group g_fwd = GROUP("Forwarding Parameters", fwd_ies);

static const struct ie_desc upd_fwd_ies[] = {
	{ PFCP_IE_DESTINATION_INTERFACE, 1, 0, h_dst_iface },
	{ PFCP_IE_NETWORK_INSTANCE, 1, 0, h_far_ni },
	{ PFCP_IE_OUTER_HEADER_CREATION, 2, 0, h_ohc },
	{ PFCP_IE_REDIRECT_INFO, 0, 0, h_unsupported },
	{ PFCP_IE_FORWARDING_POLICY, 0, 0, h_unsupported },
	{ PFCP_IE_HEADER_ENRICHMENT, 0, 0, h_unsupported },
	{ PFCP_IE_PFCPSMREQ_FLAGS, 1, 0, h_far_smreq },
};
static const struct group g_upd_fwd = GROUP("Update Forwarding Parameters", upd_fwd_ies);

static int
h_fwd(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;

	if (walk(d, t == PFCP_IE_FORWARDING_PARAMS ? &g_fwd : &g_upd_fwd, f, v, n) < 0)
		return -1;
	f->present |= PFCP_FAR_FWD;
	return 0;
}

static int
h_dupl(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	(void)d, (void)t, (void)v, (void)n;
	((struct pfcp_far *)obj)->present |= PFCP_FAR_DUPL;
	return 0;
}

static int
h_bar_id(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_far *f = obj;

	(void)d, (void)t, (void)n;
	f->bar_id = v[0];
	f->present |= PFCP_FAR_BAR;
	return 0;
}

static const struct ie_desc create_far_ies[] = {
	{ PFCP_IE_FAR_ID, 4, IE_MAND, h_far_id },
	{ PFCP_IE_APPLY_ACTION, 1, IE_MAND, h_apply },
	{ PFCP_IE_FORWARDING_PARAMS, 0, 0, h_fwd },
	{ PFCP_IE_DUPLICATING_PARAMS, 0, IE_MULTI, h_dupl },
	{ PFCP_IE_BAR_ID, 1, 0, h_bar_id },
};
static const struct group g_create_far = GROUP("Create FAR", create_far_ies);

static const struct ie_desc update_far_ies[] = {
	{ PFCP_IE_FAR_ID, 4, IE_MAND, h_far_id },
	{ PFCP_IE_APPLY_ACTION, 1, 0, h_apply },
	{ PFCP_IE_UPDATE_FORWARDING_PARAMS, 0, 0, h_fwd },
	{ PFCP_IE_UPDATE_DUPLICATING_PARAMS, 0, IE_MULTI, h_dupl },
	{ PFCP_IE_BAR_ID, 1, 0, h_bar_id },
};
static const struct group g_update_far = GROUP("Update FAR", update_far_ies);

/* -- QER (obj: struct pfcp_qer). -- */

static int
h_qer(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_qer *q = obj;

	(void)d, (void)n;
	switch (t) {
	case PFCP_IE_QER_ID:
		q->c.id = rd32(v);
		q->present |= PFCP_QER_ID;
		break;
	case PFCP_IE_GATE_STATUS:
		/* UL gate in bits 4-3, DL gate in bits 2-1; 0 is open, any other value closed. */
		q->c.gate_ul_closed = ((v[0] >> 2) & 0x03) != 0;
		q->c.gate_dl_closed = (v[0] & 0x03) != 0;
		q->present |= PFCP_QER_GATE;
		break;
	case PFCP_IE_MBR:
		q->c.mbr_ul = rd40(v);
		q->c.mbr_dl = rd40(v + 5);
		q->present |= PFCP_QER_MBR;
		break;
	case PFCP_IE_GBR:
		q->c.gbr_ul = rd40(v);
		q->c.gbr_dl = rd40(v + 5);
		q->present |= PFCP_QER_GBR;
		break;
	case PFCP_IE_QFI:
		q->c.has_qfi = true;
		q->c.qfi = v[0] & 0x3f;
		q->present |= PFCP_QER_QFI;
		break;
	default:
		break;
	}
	return 0;
}

static const struct ie_desc create_qer_ies[] = {
	{ PFCP_IE_QER_ID, 4, IE_MAND, h_qer }, { PFCP_IE_GATE_STATUS, 1, IE_MAND, h_qer },
	{ PFCP_IE_MBR, 10, 0, h_qer },         { PFCP_IE_GBR, 10, 0, h_qer },
	{ PFCP_IE_QFI, 1, 0, h_qer },          { 94 /* Packet Rate */, 0, 0, h_unsupported },
};
static const struct group g_create_qer = GROUP("Create QER", create_qer_ies);

static const struct ie_desc update_qer_ies[] = {
	{ PFCP_IE_QER_ID, 4, IE_MAND, h_qer }, { PFCP_IE_GATE_STATUS, 1, 0, h_qer },
	{ PFCP_IE_MBR, 10, 0, h_qer },         { PFCP_IE_GBR, 10, 0, h_qer },
	{ PFCP_IE_QFI, 1, 0, h_qer },          { 94 /* Packet Rate */, 0, 0, h_unsupported },
};
static const struct group g_update_qer = GROUP("Update QER", update_qer_ies);

/* -- URR (obj: struct pfcp_urr). -- */

/* Volume Threshold / Quota: TOVOL, ULVOL, DLVOL, each with its 8 octets in that order. */
static int
vol_parse(struct dec *d, uint16_t t, const uint8_t *v, uint16_t n, struct upf_vol *out)
{
	size_t need = 1 + 8 * (size_t)(!!(v[0] & 1) + !!(v[0] & 2) + !!(v[0] & 4)), off = 1;

	if (n < need)
		return fail_ie(d, t, "shorter than its flags say");
	if (!(v[0] & 0x07))
		return fail_ie(d, t, "no volume flag set");
	memset(out, 0, sizeof(*out));
	out->flags = v[0] & (UPF_VOL_TOTAL | UPF_VOL_UL | UPF_VOL_DL);
	if (v[0] & UPF_VOL_TOTAL) {
		out->total = rd64(v + off);
		off += 8;
	}
	if (v[0] & UPF_VOL_UL) {
		out->ul = rd64(v + off);
		off += 8;
	}
	if (v[0] & UPF_VOL_DL)
		out->dl = rd64(v + off);
	return 0;
}

static int
h_urr(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_urr *u = obj;

	switch (t) {
	case PFCP_IE_URR_ID:
		u->c.id = rd32(v);
		u->present |= PFCP_URR_ID;
		break;
	case PFCP_IE_MEASUREMENT_METHOD:
		if (v[0] & 0x04)
			return fail_rule(d, t, "event measurement (EVENT) not supported");
		u->c.method = v[0] & (UPF_MM_DURAT | UPF_MM_VOLUM);
		u->present |= PFCP_URR_METHOD;
		break;
	case PFCP_IE_REPORTING_TRIGGERS:
		u->c.triggers = (uint16_t)(v[0] | (n > 1 ? v[1] << 8 : 0));
		u->present |= PFCP_URR_TRIGGERS;
		break;
	case PFCP_IE_MEASUREMENT_PERIOD:
		u->c.period_s = rd32(v);
		u->present |= PFCP_URR_PERIOD;
		break;
	case PFCP_IE_VOLUME_THRESHOLD:
		if (vol_parse(d, t, v, n, &u->c.vol_thresh) < 0)
			return -1;
		u->c.has_vol_thresh = true;
		u->present |= PFCP_URR_VOL_THRESH;
		break;
	case PFCP_IE_VOLUME_QUOTA:
		if (vol_parse(d, t, v, n, &u->c.vol_quota) < 0)
			return -1;
		u->c.has_vol_quota = true;
		u->present |= PFCP_URR_VOL_QUOTA;
		break;
	case PFCP_IE_TIME_THRESHOLD:
		u->c.has_time_thresh = true;
		u->c.time_thresh_s = rd32(v);
		u->present |= PFCP_URR_TIME_THRESH;
		break;
	case PFCP_IE_TIME_QUOTA:
		u->c.has_time_quota = true;
		u->c.time_quota_s = rd32(v);
		u->present |= PFCP_URR_TIME_QUOTA;
		break;
	case PFCP_IE_QUOTA_HOLDING_TIME:
		u->c.has_qht = true;
		u->c.qht_s = rd32(v);
		u->present |= PFCP_URR_QHT;
		break;
	case PFCP_IE_QUOTA_VALIDITY_TIME:
		u->c.has_qvt = true;
		u->c.qvt_s = rd32(v);
		u->present |= PFCP_URR_QVT;
		break;
	case PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD: {
		/* Flags, then the packets (DLPA) and the bytes (DLBY), 8 octets each. */
		const unsigned int pa = !!(v[0] & UPF_DROTH_DLPA), by = !!(v[0] & UPF_DROTH_DLBY);

		if (pa + by == 0)
			return fail_ie(d, t, "neither DLPA nor DLBY");
		if (n < 1 + 8 * (pa + by))
			return fail_ie(d, t, "shorter than its DLPA / DLBY counts");
		u->c.droth_flags = v[0] & (UPF_DROTH_DLPA | UPF_DROTH_DLBY);
		u->c.droth_pkts = pa ? rd64(v + 1) : 0;
		u->c.droth_bytes = by ? rd64(v + 1 + 8 * pa) : 0;
		u->present |= PFCP_URR_DROTH;
		break;
	}
	case PFCP_IE_LINKED_URR_ID:
		if (u->c.n_linked == UPF_MAX_URR_LINKED)
			return fail(d, PFCP_CAUSE_RULE_FAILURE, t,
				    "URR %u: more than %d Linked URR IDs", u->c.id,
				    UPF_MAX_URR_LINKED);
		u->c.linked[u->c.n_linked++] = rd32(v);
		u->present |= PFCP_URR_LINKED;
		break;
	default:
		break;
	}
	return 0;
}

static const struct ie_desc create_urr_ies[] = {
	{ PFCP_IE_URR_ID, 4, IE_MAND, h_urr },
	{ PFCP_IE_MEASUREMENT_METHOD, 1, IE_MAND, h_urr },
	{ PFCP_IE_REPORTING_TRIGGERS, 1, IE_MAND, h_urr },
	{ PFCP_IE_MEASUREMENT_PERIOD, 4, 0, h_urr },
	{ PFCP_IE_VOLUME_THRESHOLD, 1, 0, h_urr },
	{ PFCP_IE_VOLUME_QUOTA, 1, 0, h_urr },
	{ PFCP_IE_TIME_THRESHOLD, 4, 0, h_urr },
	{ PFCP_IE_TIME_QUOTA, 4, 0, h_urr },
	{ PFCP_IE_QUOTA_HOLDING_TIME, 4, 0, h_urr },
	{ PFCP_IE_QUOTA_VALIDITY_TIME, 4, 0, h_urr },
	{ PFCP_IE_LINKED_URR_ID, 4, IE_MULTI, h_urr },
	{ PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD, 1, 0, h_urr },
};
static const struct group g_create_urr = GROUP("Create URR", create_urr_ies);

static const struct ie_desc update_urr_ies[] = {
	{ PFCP_IE_URR_ID, 4, IE_MAND, h_urr },
	{ PFCP_IE_MEASUREMENT_METHOD, 1, 0, h_urr },
	{ PFCP_IE_REPORTING_TRIGGERS, 1, 0, h_urr },
	{ PFCP_IE_MEASUREMENT_PERIOD, 4, 0, h_urr },
	{ PFCP_IE_VOLUME_THRESHOLD, 1, 0, h_urr },
	{ PFCP_IE_VOLUME_QUOTA, 1, 0, h_urr },
	{ PFCP_IE_TIME_THRESHOLD, 4, 0, h_urr },
	{ PFCP_IE_TIME_QUOTA, 4, 0, h_urr },
	{ PFCP_IE_QUOTA_HOLDING_TIME, 4, 0, h_urr },
	{ PFCP_IE_QUOTA_VALIDITY_TIME, 4, 0, h_urr },
	{ PFCP_IE_LINKED_URR_ID, 4, IE_MULTI, h_urr },
	{ PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD, 1, 0, h_urr },
};
static const struct group g_update_urr = GROUP("Update URR", update_urr_ies);

/* A Create URR's triggers need their values (Cause 67 naming the missing IE). */
static int
urr_check(struct dec *d, const struct pfcp_urr *u)
{
	static const struct {
		uint16_t trigger;
		uint32_t present;
		uint16_t ie;
	} need[] = {
		{ UPF_RT_PERIO, PFCP_URR_PERIOD, PFCP_IE_MEASUREMENT_PERIOD },
		{ UPF_RT_VOLTH, PFCP_URR_VOL_THRESH, PFCP_IE_VOLUME_THRESHOLD },
		{ UPF_RT_TIMTH, PFCP_URR_TIME_THRESH, PFCP_IE_TIME_THRESHOLD },
		{ UPF_RT_VOLQU, PFCP_URR_VOL_QUOTA, PFCP_IE_VOLUME_QUOTA },
		{ UPF_RT_TIMQU, PFCP_URR_TIME_QUOTA, PFCP_IE_TIME_QUOTA },
		{ UPF_RT_QUHTI, PFCP_URR_QHT, PFCP_IE_QUOTA_HOLDING_TIME },
		{ UPF_RT_QUVTI, PFCP_URR_QVT, PFCP_IE_QUOTA_VALIDITY_TIME },
		{ UPF_RT_LIUSA, PFCP_URR_LINKED, PFCP_IE_LINKED_URR_ID },
		{ UPF_RT_DROTH, PFCP_URR_DROTH, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD },
	};
	unsigned int i;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if ((u->c.triggers & need[i].trigger) && !(u->present & need[i].present))
			return fail(d, PFCP_CAUSE_CONDITIONAL_IE_MISSING, need[i].ie,
				    "URR %u: a reporting trigger without its %s", u->c.id,
				    ie_name(need[i].ie));
	return 0;
}

/* -- Rules into the message (obj: struct pfcp_msg). -- */

static int
h_rule(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;
	const struct group *g;
	uint8_t *cnt, max, rt;
	uint16_t id_ie;
	void *slot;
	int rc;

	switch (t) {
	case PFCP_IE_CREATE_PDR:
	case PFCP_IE_UPDATE_PDR: {
		bool cr = t == PFCP_IE_CREATE_PDR;
		struct pfcp_pdr *p = cr ? m->create_pdr : m->update_pdr;

		cnt = cr ? &m->n_create_pdr : &m->n_update_pdr;
		g = cr ? &g_create_pdr : &g_update_pdr;
		max = UPF_MAX_PDR, rt = PFCP_RULE_PDR, id_ie = PFCP_IE_PDR_ID;
		slot = *cnt < max ? &p[*cnt] : NULL;
		break;
	}
	case PFCP_IE_CREATE_FAR:
	case PFCP_IE_UPDATE_FAR: {
		bool cr = t == PFCP_IE_CREATE_FAR;
		struct pfcp_far *f = cr ? m->create_far : m->update_far;

		cnt = cr ? &m->n_create_far : &m->n_update_far;
		g = cr ? &g_create_far : &g_update_far;
		max = UPF_MAX_FAR, rt = PFCP_RULE_FAR, id_ie = PFCP_IE_FAR_ID;
		slot = *cnt < max ? &f[*cnt] : NULL;
		break;
	}
	case PFCP_IE_CREATE_QER:
	case PFCP_IE_UPDATE_QER: {
		bool cr = t == PFCP_IE_CREATE_QER;
		struct pfcp_qer *q = cr ? m->create_qer : m->update_qer;

		cnt = cr ? &m->n_create_qer : &m->n_update_qer;
		g = cr ? &g_create_qer : &g_update_qer;
		max = UPF_MAX_QER, rt = PFCP_RULE_QER, id_ie = PFCP_IE_QER_ID;
		slot = *cnt < max ? &q[*cnt] : NULL;
		break;
	}
	default: {
		bool cr = t == PFCP_IE_CREATE_URR;
		struct pfcp_urr *u = cr ? m->create_urr : m->update_urr;

		cnt = cr ? &m->n_create_urr : &m->n_update_urr;
		g = cr ? &g_create_urr : &g_update_urr;
		max = UPF_MAX_URR, rt = PFCP_RULE_URR, id_ie = PFCP_IE_URR_ID;
		slot = *cnt < max ? &u[*cnt] : NULL;
		break;
	}
	}
	rule_enter(d, rt, id_ie, v, n);
	if (slot == NULL)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "more than %u %s in one message", max,
			    ie_name(t));
	switch (rt) {
	case PFCP_RULE_PDR:
		memset(slot, 0, sizeof(struct pfcp_pdr));
		((struct pfcp_pdr *)slot)->c.ni = UPF_NI_NONE;
		break;
	case PFCP_RULE_FAR:
		memset(slot, 0, sizeof(struct pfcp_far));
		((struct pfcp_far *)slot)->c.ni = UPF_NI_NONE;
		break;
	case PFCP_RULE_QER:
		memset(slot, 0, sizeof(struct pfcp_qer));
		break;
	default:
		memset(slot, 0, sizeof(struct pfcp_urr));
		break;
	}
	rc = walk(d, g, slot, v, n);
	if (rc == 0 && t == PFCP_IE_CREATE_FAR) {
		const struct pfcp_far *f = slot;

		if ((f->c.apply & UPF_FAR_FORW) && !(f->present & PFCP_FAR_FWD))
			rc = fail(d, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_FORWARDING_PARAMS,
				  "FAR %u: FORW without Forwarding Parameters", f->c.id);
	}
	if (rc == 0 && t == PFCP_IE_CREATE_URR)
		rc = urr_check(d, slot);
	if (rc < 0)
		return -1;
	(*cnt)++;
	rule_leave(d);
	return 0;
}

/* Remove PDR/FAR/QER/URR and Query URR: a group holding only the rule's ID. */
static int
h_id(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	(void)d, (void)n;
	*(uint32_t *)obj = t == PFCP_IE_PDR_ID ? rd16(v) : rd32(v);
	return 0;
}

static const struct ie_desc pdr_id_ies[] = { { PFCP_IE_PDR_ID, 2, IE_MAND, h_id } };
static const struct ie_desc far_id_ies[] = { { PFCP_IE_FAR_ID, 4, IE_MAND, h_id } };
static const struct ie_desc qer_id_ies[] = { { PFCP_IE_QER_ID, 4, IE_MAND, h_id } };
static const struct ie_desc urr_id_ies[] = { { PFCP_IE_URR_ID, 4, IE_MAND, h_id } };
static const struct group g_remove_pdr = GROUP("Remove PDR", pdr_id_ies);
static const struct group g_remove_far = GROUP("Remove FAR", far_id_ies);
static const struct group g_remove_qer = GROUP("Remove QER", qer_id_ies);
static const struct group g_remove_urr = GROUP("Remove URR", urr_id_ies);
static const struct group g_query_urr = GROUP("Query URR", urr_id_ies);

static int
h_remove(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;
	const struct group *g;
	unsigned int max;
	uint8_t *cnt;
	uint32_t id;

	switch (t) {
	case PFCP_IE_REMOVE_PDR:
		g = &g_remove_pdr, cnt = &m->n_remove_pdr, max = UPF_MAX_PDR;
		break;
	case PFCP_IE_REMOVE_FAR:
		g = &g_remove_far, cnt = &m->n_remove_far, max = UPF_MAX_FAR;
		break;
	case PFCP_IE_REMOVE_QER:
		g = &g_remove_qer, cnt = &m->n_remove_qer, max = UPF_MAX_QER;
		break;
	case PFCP_IE_REMOVE_URR:
		g = &g_remove_urr, cnt = &m->n_remove_urr, max = UPF_MAX_URR;
		break;
	default:
		g = &g_query_urr, cnt = &m->n_query_urr, max = PFCP_MAX_QUERY_URR;
		break;
	}
	if (*cnt >= max)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "more than %u %s in one message", max,
			    ie_name(t));
	if (walk(d, g, &id, v, n) < 0)
		return -1;
	switch (t) {
	case PFCP_IE_REMOVE_PDR:
		m->remove_pdr[*cnt] = (uint16_t)id;
		break;
	case PFCP_IE_REMOVE_FAR:
		m->remove_far[*cnt] = id;
		break;
	case PFCP_IE_REMOVE_QER:
		m->remove_qer[*cnt] = id;
		break;
	case PFCP_IE_REMOVE_URR:
		m->remove_urr[*cnt] = id;
		break;
	default:
		m->query_urr[*cnt] = id;
		break;
	}
	(*cnt)++;
	return 0;
}

/*
 * Create / Update Traffic Endpoint (PDI optimisation, 7.5.2.7 and
 * 7.5.4.13): the part of a PDI that PDRs share by naming the endpoint's
 * ID. Decoded into a struct pfcp_pdr with the PDI's own handlers; the
 * multi-access IEs are refused as in a PDI.
 */
static const struct ie_desc create_te_ies[] = {
	{ PFCP_IE_TRAFFIC_ENDPOINT_ID, 1, IE_MAND, h_te_id },
	{ PFCP_IE_F_TEID, 1, 0, h_fteid },
	{ PFCP_IE_NETWORK_INSTANCE, 1, 0, h_pdr_ni },
	{ PFCP_IE_UE_IP_ADDRESS, 1, IE_MULTI, h_ue_ip },
	{ PFCP_IE_QFI, 1, IE_MULTI, h_pdr_qfi },
	{ PFCP_IE_UE_IP_POOL_ID, 2, IE_MULTI, h_pool_id },
	{ PFCP_IE_FRAMED_ROUTE, 1, IE_MULTI, h_framed },
	{ PFCP_IE_FRAMED_IPV6_ROUTE, 1, IE_MULTI, h_framed },
};
static const struct group g_create_te = GROUP("Create Traffic Endpoint", create_te_ies);
static const struct group g_update_te = GROUP("Update Traffic Endpoint", create_te_ies);

static const struct ie_desc te_id_ies[] = { { PFCP_IE_TRAFFIC_ENDPOINT_ID, 1, IE_MAND, h_te_id } };
static const struct group g_remove_te = GROUP("Remove Traffic Endpoint", te_id_ies);

static int
h_te(struct dec *d, void *obj, uint16_t t, const uint8_t *v, uint16_t n)
{
	struct pfcp_msg *m = obj;
	struct pfcp_pdr *arr, *p, one;
	const struct group *g;
	uint8_t *cnt;

	switch (t) {
	case PFCP_IE_CREATE_TRAFFIC_ENDPOINT:
		g = &g_create_te, cnt = &m->n_create_te, arr = m->create_te;
		break;
	case PFCP_IE_UPDATE_TRAFFIC_ENDPOINT:
		g = &g_update_te, cnt = &m->n_update_te, arr = m->update_te;
		break;
	default:
		g = &g_remove_te, cnt = &m->n_remove_te, arr = NULL;
		break;
	}
	if (*cnt >= PFCP_MAX_TE)
		return fail(d, PFCP_CAUSE_RULE_FAILURE, t, "more than %u %s in one message",
			    PFCP_MAX_TE, ie_name(t));
	p = arr != NULL ? &arr[*cnt] : &one;
	memset(p, 0, sizeof(*p));
	p->c.ni = UPF_NI_NONE;
	/* No Failed Rule ID names a Traffic Endpoint: the Offending IE does. */
	rule_leave(d);
	if (walk(d, g, p, v, n) < 0)
		return -1;
	if (t == PFCP_IE_REMOVE_TRAFFIC_ENDPOINT)
		m->remove_te[*cnt] = p->c.te_id;
	(*cnt)++;
	return 0;
}

/* -- Messages. -- */

static const struct ie_desc heartbeat_ies[] = {
	{ PFCP_IE_RECOVERY_TIME_STAMP, 4, IE_MAND, h_recovery },
};

static const struct ie_desc assoc_setup_req_ies[] = {
	{ PFCP_IE_NODE_ID, 1, IE_MAND, h_node_id },
	{ PFCP_IE_RECOVERY_TIME_STAMP, 4, IE_MAND, h_recovery },
	{ PFCP_IE_UP_FUNCTION_FEATURES, 1, 0, h_features },
	{ PFCP_IE_CP_FUNCTION_FEATURES, 1, 0, h_features },
};

static const struct ie_desc assoc_setup_resp_ies[] = {
	{ PFCP_IE_NODE_ID, 1, IE_MAND, h_node_id },
	{ PFCP_IE_CAUSE, 1, IE_MAND, h_cause },
	{ PFCP_IE_RECOVERY_TIME_STAMP, 4, IE_MAND, h_recovery },
	{ PFCP_IE_UP_FUNCTION_FEATURES, 1, 0, h_features },
	{ PFCP_IE_CP_FUNCTION_FEATURES, 1, 0, h_features },
};

static const struct ie_desc assoc_update_req_ies[] = {
	{ PFCP_IE_NODE_ID, 1, IE_MAND, h_node_id },
	{ PFCP_IE_UP_FUNCTION_FEATURES, 1, 0, h_features },
	{ PFCP_IE_CP_FUNCTION_FEATURES, 1, 0, h_features },
	{ PFCP_IE_ASSOC_RELEASE_REQUEST, 1, 0, h_msg_u8 },
	{ PFCP_IE_GRACEFUL_RELEASE_PERIOD, 1, 0, h_msg_u8 },
};

static const struct ie_desc node_cause_ies[] = {
	{ PFCP_IE_NODE_ID, 1, IE_MAND, h_node_id },
	{ PFCP_IE_CAUSE, 1, IE_MAND, h_cause },
	{ PFCP_IE_UP_FUNCTION_FEATURES, 1, 0, h_features },
	{ PFCP_IE_CP_FUNCTION_FEATURES, 1, 0, h_features },
};

static const struct ie_desc node_only_ies[] = {
	{ PFCP_IE_NODE_ID, 1, IE_MAND, h_node_id },
};

static const struct ie_desc sess_est_ies[] = {
	{ PFCP_IE_NODE_ID, 1, IE_MAND, h_node_id },
	{ PFCP_IE_F_SEID, 9, IE_MAND, h_cp_fseid },
	{ PFCP_IE_CREATE_PDR, 0, IE_MAND | IE_MULTI, h_rule },
	{ PFCP_IE_CREATE_FAR, 0, IE_MAND | IE_MULTI, h_rule },
	{ PFCP_IE_CREATE_URR, 0, IE_MULTI, h_rule },
	{ PFCP_IE_CREATE_QER, 0, IE_MULTI, h_rule },
	{ PFCP_IE_CREATE_BAR, 0, 0, h_bar },
	{ PFCP_IE_PDN_TYPE, 1, 0, h_msg_u8 },
	{ PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 0, IE_MULTI, h_te },
};

static const struct ie_desc sess_mod_ies[] = {
	{ PFCP_IE_F_SEID, 9, 0, h_cp_fseid },
	{ PFCP_IE_REMOVE_PDR, 0, IE_MULTI, h_remove },
	{ PFCP_IE_REMOVE_FAR, 0, IE_MULTI, h_remove },
	{ PFCP_IE_REMOVE_URR, 0, IE_MULTI, h_remove },
	{ PFCP_IE_REMOVE_QER, 0, IE_MULTI, h_remove },
	{ PFCP_IE_CREATE_PDR, 0, IE_MULTI, h_rule },
	{ PFCP_IE_CREATE_FAR, 0, IE_MULTI, h_rule },
	{ PFCP_IE_CREATE_URR, 0, IE_MULTI, h_rule },
	{ PFCP_IE_CREATE_QER, 0, IE_MULTI, h_rule },
	{ PFCP_IE_UPDATE_PDR, 0, IE_MULTI, h_rule },
	{ PFCP_IE_UPDATE_FAR, 0, IE_MULTI, h_rule },
	{ PFCP_IE_UPDATE_URR, 0, IE_MULTI, h_rule },
	{ PFCP_IE_UPDATE_QER, 0, IE_MULTI, h_rule },
	{ PFCP_IE_QUERY_URR, 0, IE_MULTI, h_remove },
	{ PFCP_IE_PFCPSMREQ_FLAGS, 1, 0, h_msg_u8 },
	{ PFCP_IE_CREATE_BAR, 0, 0, h_bar },
	{ PFCP_IE_UPDATE_BAR_SMR, 0, 0, h_bar },
	{ PFCP_IE_REMOVE_BAR, 0, 0, h_bar },
	{ PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 0, IE_MULTI, h_te },
	{ PFCP_IE_UPDATE_TRAFFIC_ENDPOINT, 0, IE_MULTI, h_te },
	{ PFCP_IE_REMOVE_TRAFFIC_ENDPOINT, 0, IE_MULTI, h_te },
};

static const struct ie_desc sess_report_resp_ies[] = {
	{ PFCP_IE_CAUSE, 1, IE_MAND, h_cause },
	{ PFCP_IE_PFCPSRRSP_FLAGS, 1, 0, h_msg_u8 },
	{ PFCP_IE_F_SEID, 9, 0, h_cp_fseid },
	{ PFCP_IE_UPDATE_BAR_SRR, 0, 0, h_bar },
};

/* Session Deletion Request: no IE of its own (the header SEID names the session). */
static const struct ie_desc none_ies[] = {
	{ 0, 0, 0, NULL },
};

struct msg_desc {
	uint8_t type;
	bool session; /* S flag required. */
	struct group g;
};

static const struct msg_desc msgs[] = {
	{ PFCP_HEARTBEAT_REQ, false, GROUP("Heartbeat Request", heartbeat_ies) },
	{ PFCP_HEARTBEAT_RESP, false, GROUP("Heartbeat Response", heartbeat_ies) },
	{ PFCP_ASSOC_SETUP_REQ, false, GROUP("Association Setup Request", assoc_setup_req_ies) },
	{ PFCP_ASSOC_SETUP_RESP, false, GROUP("Association Setup Response", assoc_setup_resp_ies) },
	{ PFCP_ASSOC_UPDATE_REQ, false, GROUP("Association Update Request", assoc_update_req_ies) },
	{ PFCP_ASSOC_UPDATE_RESP, false, GROUP("Association Update Response", node_cause_ies) },
	{ PFCP_ASSOC_RELEASE_REQ, false, GROUP("Association Release Request", node_only_ies) },
	{ PFCP_ASSOC_RELEASE_RESP, false, GROUP("Association Release Response", node_cause_ies) },
	{ PFCP_SESS_EST_REQ, true, GROUP("Session Establishment Request", sess_est_ies) },
	{ PFCP_SESS_MOD_REQ, true, GROUP("Session Modification Request", sess_mod_ies) },
	{ PFCP_SESS_DEL_REQ, true, { "Session Deletion Request", none_ies, 0 } },
	{ PFCP_SESS_REPORT_RESP, true, GROUP("Session Report Response", sess_report_resp_ies) },
};

/* Two rules of one kind with one id in a message: the model could not tell them apart. */
static int
dup_ids(struct dec *d, const struct pfcp_msg *m)
{
	unsigned int i, j;

#define DUP(arr, n, ie, rt, what)                                                    \
	for (i = 0; i < (n); i++)                                                    \
		for (j = 0; j < i; j++)                                              \
			if ((arr)[i].c.id == (arr)[j].c.id) {                        \
				d->rule_type = (rt), d->rule_id = (arr)[i].c.id;     \
				return fail(d, PFCP_CAUSE_RULE_FAILURE, (ie),        \
					    "%s id %u twice in one message", (what), \
					    (unsigned int)(arr)[i].c.id);            \
			}
	DUP(m->create_pdr, m->n_create_pdr, PFCP_IE_CREATE_PDR, PFCP_RULE_PDR, "Create PDR");
	DUP(m->create_far, m->n_create_far, PFCP_IE_CREATE_FAR, PFCP_RULE_FAR, "Create FAR");
	DUP(m->create_qer, m->n_create_qer, PFCP_IE_CREATE_QER, PFCP_RULE_QER, "Create QER");
	DUP(m->create_urr, m->n_create_urr, PFCP_IE_CREATE_URR, PFCP_RULE_URR, "Create URR");
	DUP(m->update_pdr, m->n_update_pdr, PFCP_IE_UPDATE_PDR, PFCP_RULE_PDR, "Update PDR");
	DUP(m->update_far, m->n_update_far, PFCP_IE_UPDATE_FAR, PFCP_RULE_FAR, "Update FAR");
	DUP(m->update_qer, m->n_update_qer, PFCP_IE_UPDATE_QER, PFCP_RULE_QER, "Update QER");
	DUP(m->update_urr, m->n_update_urr, PFCP_IE_UPDATE_URR, PFCP_RULE_URR, "Update URR");
#undef DUP
	return 0;
}

int
pfcp_decode_header(const uint8_t *buf, size_t len, struct pfcp_hdr *h, struct pfcp_err *err)
{
	struct dec d = { .e = err, .rule_type = PFCP_RULE_NONE };
	size_t off;

	memset(h, 0, sizeof(*h));
	err_init(err);
	if (buf == NULL || len < 4) {
		fail(&d, 0, 0, "datagram of %zu bytes: no PFCP header", buf == NULL ? 0 : len);
		return PFCP_DEC_DROP;
	}
	h->version = buf[0] >> 5;
	h->fo = (buf[0] & 0x04) != 0;
	h->mp = (buf[0] & 0x02) != 0;
	h->s = (buf[0] & 0x01) != 0;
	h->type = buf[1];
	h->msg_len = (uint32_t)rd16(buf + 2) + 4;
	h->hdr_len = h->s ? PFCP_HDR_SEID_LEN : PFCP_HDR_LEN;
	if (len < h->hdr_len) {
		fail(&d, 0, 0, "datagram of %zu bytes: short of a %u-byte header", len, h->hdr_len);
		return PFCP_DEC_DROP;
	}
	off = 4;
	if (h->s) {
		h->seid = rd64(buf + off);
		off += 8;
	}
	h->seq = rd24(buf + off);
	if (h->mp)
		h->prio = buf[off + 3] >> 4;
	if (h->version != PFCP_VERSION) {
		fail(&d, 0, 0, "version %u", h->version);
		return PFCP_DEC_VERSION;
	}
	if (h->msg_len < h->hdr_len) {
		fail(&d, 0, 0, "length field %u shorter than the header", h->msg_len - 4);
		return PFCP_DEC_DROP;
	}
	if (h->msg_len > len) {
		fail(&d, PFCP_CAUSE_INVALID_LENGTH, 0,
		     "message length %u past the %zu-byte datagram", h->msg_len, len);
		return PFCP_DEC_REJECT;
	}
	return PFCP_DEC_OK;
}

int
pfcp_decode(const uint8_t *buf, size_t len, struct pfcp_msg *m, struct pfcp_err *err)
{
	struct dec d = { .m = m, .e = err, .rule_type = PFCP_RULE_NONE };
	const struct msg_desc *md = NULL;
	const uint8_t *body;
	size_t blen;
	unsigned int i;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = pfcp_decode_header(buf, len, &m->h, err);
	if (rc != PFCP_DEC_OK)
		return rc;
	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		if (msgs[i].type == m->h.type)
			md = &msgs[i];
	if (md == NULL) {
		fail(&d, 0, 0, "message type %u not decoded", m->h.type);
		return PFCP_DEC_UNKNOWN;
	}
	if (md->session && !m->h.s) {
		fail(&d, 0, 0, "%s without a SEID", md->g.name);
		return PFCP_DEC_DROP;
	}
	body = buf + m->h.hdr_len;
	blen = m->h.msg_len - m->h.hdr_len;
	if (frame_check(&d, body, blen, 1) < 0 || walk(&d, &md->g, m, body, blen) < 0 ||
	    dup_ids(&d, m) < 0)
		return PFCP_DEC_REJECT;
	return PFCP_DEC_OK;
}

static const char *
ie_name(uint16_t type)
{
	static const struct {
		uint16_t t;
		const char *n;
	} names[] = {
		{ PFCP_IE_CREATE_PDR, "Create PDR" },
		{ PFCP_IE_PDI, "PDI" },
		{ PFCP_IE_CREATE_FAR, "Create FAR" },
		{ PFCP_IE_FORWARDING_PARAMS, "Forwarding Parameters" },
		{ PFCP_IE_DUPLICATING_PARAMS, "Duplicating Parameters" },
		{ PFCP_IE_CREATE_URR, "Create URR" },
		{ PFCP_IE_CREATE_QER, "Create QER" },
		{ PFCP_IE_UPDATE_PDR, "Update PDR" },
		{ PFCP_IE_UPDATE_FAR, "Update FAR" },
		{ PFCP_IE_UPDATE_FORWARDING_PARAMS, "Update Forwarding Parameters" },
		{ PFCP_IE_UPDATE_URR, "Update URR" },
		{ PFCP_IE_UPDATE_QER, "Update QER" },
		{ PFCP_IE_REMOVE_PDR, "Remove PDR" },
		{ PFCP_IE_REMOVE_FAR, "Remove FAR" },
		{ PFCP_IE_REMOVE_URR, "Remove URR" },
		{ PFCP_IE_REMOVE_QER, "Remove QER" },
		{ PFCP_IE_CAUSE, "Cause" },
		{ PFCP_IE_SOURCE_INTERFACE, "Source Interface" },
		{ PFCP_IE_F_TEID, "F-TEID" },
		{ PFCP_IE_NETWORK_INSTANCE, "Network Instance" },
		{ PFCP_IE_SDF_FILTER, "SDF Filter" },
		{ PFCP_IE_APPLICATION_ID, "Application ID" },
		{ PFCP_IE_GATE_STATUS, "Gate Status" },
		{ PFCP_IE_MBR, "MBR" },
		{ PFCP_IE_GBR, "GBR" },
		{ PFCP_IE_PRECEDENCE, "Precedence" },
		{ PFCP_IE_VOLUME_THRESHOLD, "Volume Threshold" },
		{ PFCP_IE_TIME_THRESHOLD, "Time Threshold" },
		{ PFCP_IE_REPORTING_TRIGGERS, "Reporting Triggers" },
		{ PFCP_IE_REDIRECT_INFO, "Redirect Information" },
		{ PFCP_IE_FORWARDING_POLICY, "Forwarding Policy" },
		{ PFCP_IE_DESTINATION_INTERFACE, "Destination Interface" },
		{ PFCP_IE_UP_FUNCTION_FEATURES, "UP Function Features" },
		{ PFCP_IE_APPLY_ACTION, "Apply Action" },
		{ PFCP_IE_PFCPSMREQ_FLAGS, "PFCPSMReq-Flags" },
		{ PFCP_IE_PFCPSRRSP_FLAGS, "PFCPSRRsp-Flags" },
		{ PFCP_IE_PDR_ID, "PDR ID" },
		{ PFCP_IE_F_SEID, "F-SEID" },
		{ PFCP_IE_NODE_ID, "Node ID" },
		{ PFCP_IE_MEASUREMENT_METHOD, "Measurement Method" },
		{ PFCP_IE_MEASUREMENT_PERIOD, "Measurement Period" },
		{ PFCP_IE_VOLUME_QUOTA, "Volume Quota" },
		{ PFCP_IE_TIME_QUOTA, "Time Quota" },
		{ PFCP_IE_QUOTA_HOLDING_TIME, "Quota Holding Time" },
		{ PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD, "Dropped DL Traffic Threshold" },
		{ PFCP_IE_QUOTA_VALIDITY_TIME, "Quota Validity Time" },
		{ PFCP_IE_LINKED_URR_ID, "Linked URR ID" },
		{ PFCP_IE_QUERY_URR, "Query URR" },
		{ PFCP_IE_URR_ID, "URR ID" },
		{ PFCP_IE_OUTER_HEADER_CREATION, "Outer Header Creation" },
		{ PFCP_IE_CREATE_BAR, "Create BAR" },
		{ PFCP_IE_BAR_ID, "BAR ID" },
		{ PFCP_IE_UPDATE_BAR_SMR, "Update BAR" },
		{ PFCP_IE_REMOVE_BAR, "Remove BAR" },
		{ PFCP_IE_DL_DATA_NOTIFICATION_DELAY, "Downlink Data Notification Delay" },
		{ PFCP_IE_SUGGESTED_BUFFERING_COUNT, "Suggested Buffering Packets Count" },
		{ PFCP_IE_CP_FUNCTION_FEATURES, "CP Function Features" },
		{ PFCP_IE_UE_IP_ADDRESS, "UE IP Address" },
		{ 94, "Packet Rate" },
		{ PFCP_IE_OUTER_HEADER_REMOVAL, "Outer Header Removal" },
		{ PFCP_IE_RECOVERY_TIME_STAMP, "Recovery Time Stamp" },
		{ PFCP_IE_HEADER_ENRICHMENT, "Header Enrichment" },
		{ PFCP_IE_UPDATE_DUPLICATING_PARAMS, "Update Duplicating Parameters" },
		{ 106, "Activate Predefined Rules" },
		{ 107, "Deactivate Predefined Rules" },
		{ PFCP_IE_FAR_ID, "FAR ID" },
		{ PFCP_IE_QER_ID, "QER ID" },
		{ PFCP_IE_PDN_TYPE, "PDN Type" },
		{ PFCP_IE_QFI, "QFI" },
		{ PFCP_IE_CREATE_TRAFFIC_ENDPOINT, "Create Traffic Endpoint" },
		{ PFCP_IE_UPDATE_TRAFFIC_ENDPOINT, "Update Traffic Endpoint" },
		{ PFCP_IE_REMOVE_TRAFFIC_ENDPOINT, "Remove Traffic Endpoint" },
		{ PFCP_IE_CREATED_TRAFFIC_ENDPOINT, "Created Traffic Endpoint" },
		{ PFCP_IE_TRAFFIC_ENDPOINT_ID, "Traffic Endpoint ID" },
		{ PFCP_IE_ETHERNET_PACKET_FILTER, "Ethernet Packet Filter" },
		{ PFCP_IE_FRAMED_ROUTE, "Framed-Route" },
		{ PFCP_IE_FRAMED_IPV6_ROUTE, "Framed-IPv6-Route" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].t == type)
			return names[i].n;
	return "IE";
}

const char *
pfcp_msg_name(uint8_t type)
{
	static const char *const names[] = {
		[PFCP_HEARTBEAT_REQ] = "heartbeat_req",
		[PFCP_HEARTBEAT_RESP] = "heartbeat_resp",
		[PFCP_PFD_MGMT_REQ] = "pfd_mgmt_req",
		[PFCP_PFD_MGMT_RESP] = "pfd_mgmt_resp",
		[PFCP_ASSOC_SETUP_REQ] = "assoc_setup_req",
		[PFCP_ASSOC_SETUP_RESP] = "assoc_setup_resp",
		[PFCP_ASSOC_UPDATE_REQ] = "assoc_update_req",
		[PFCP_ASSOC_UPDATE_RESP] = "assoc_update_resp",
		[PFCP_ASSOC_RELEASE_REQ] = "assoc_release_req",
		[PFCP_ASSOC_RELEASE_RESP] = "assoc_release_resp",
		[PFCP_VERSION_NOT_SUPPORTED] = "version_not_supported",
		[PFCP_NODE_REPORT_REQ] = "node_report_req",
		[PFCP_NODE_REPORT_RESP] = "node_report_resp",
		[PFCP_SESS_SET_DEL_REQ] = "sess_set_del_req",
		[PFCP_SESS_SET_DEL_RESP] = "sess_set_del_resp",
		[PFCP_SESS_EST_REQ] = "sess_est_req",
		[PFCP_SESS_EST_RESP] = "sess_est_resp",
		[PFCP_SESS_MOD_REQ] = "sess_mod_req",
		[PFCP_SESS_MOD_RESP] = "sess_mod_resp",
		[PFCP_SESS_DEL_REQ] = "sess_del_req",
		[PFCP_SESS_DEL_RESP] = "sess_del_resp",
		[PFCP_SESS_REPORT_REQ] = "sess_report_req",
		[PFCP_SESS_REPORT_RESP] = "sess_report_resp",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type] != NULL)
		return names[type];
	return "unknown";
}

/* ---- Encoding ------------------------------------------------------- */

void
pfcp_w_init(struct pfcp_w *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = buf != NULL ? cap : 0;
	w->len = 0;
	w->overflow = false;
	w->hdr = 0;
}

void
pfcp_w_raw(struct pfcp_w *w, const void *p, size_t n)
{
	if (w->overflow || n > w->cap - w->len) {
		w->overflow = true;
		return;
	}
	if (n > 0)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void
pfcp_w_raw8(struct pfcp_w *w, uint8_t v)
{
	pfcp_w_raw(w, &v, 1);
}

void
pfcp_w_raw16(struct pfcp_w *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	pfcp_w_raw(w, b, sizeof(b));
}

void
pfcp_w_raw32(struct pfcp_w *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	pfcp_w_raw(w, b, sizeof(b));
}

void
pfcp_w_raw64(struct pfcp_w *w, uint64_t v)
{
	pfcp_w_raw32(w, (uint32_t)(v >> 32));
	pfcp_w_raw32(w, (uint32_t)v);
}

static void
patch16(struct pfcp_w *w, size_t off, size_t v)
{
	if (w->overflow)
		return;
	if (v > UINT16_MAX || off + 2 > w->len) {
		w->overflow = true;
		return;
	}
	w->buf[off] = (uint8_t)(v >> 8);
	w->buf[off + 1] = (uint8_t)v;
}

void
pfcp_w_hdr_begin(struct pfcp_w *w, uint8_t type, bool has_seid, uint64_t seid, uint32_t seq)
{
	w->hdr = w->len;
	pfcp_w_raw8(w, (uint8_t)(PFCP_VERSION << 5 | (has_seid ? 0x01 : 0)));
	pfcp_w_raw8(w, type);
	pfcp_w_raw16(w, 0);
	if (has_seid)
		pfcp_w_raw64(w, seid);
	pfcp_w_raw8(w, (uint8_t)(seq >> 16));
	pfcp_w_raw16(w, (uint16_t)seq);
	pfcp_w_raw8(w, 0);
}

int
pfcp_w_hdr_end(struct pfcp_w *w)
{
	if (!w->overflow)
		patch16(w, w->hdr + 2, w->len - w->hdr - 4);
	if (w->overflow)
		return -ENOSPC;
	return (int)(w->len - w->hdr);
}

size_t
pfcp_w_ie_begin(struct pfcp_w *w, uint16_t type)
{
	size_t off = w->len;

	pfcp_w_raw16(w, type);
	pfcp_w_raw16(w, 0);
	return off;
}

void
pfcp_w_ie_end(struct pfcp_w *w, size_t off)
{
	if (!w->overflow)
		patch16(w, off + 2, w->len - off - 4);
}

void
pfcp_w_ie_u8(struct pfcp_w *w, uint16_t type, uint8_t v)
{
	pfcp_w_raw16(w, type);
	pfcp_w_raw16(w, 1);
	pfcp_w_raw8(w, v);
}

void
pfcp_w_ie_u16(struct pfcp_w *w, uint16_t type, uint16_t v)
{
	pfcp_w_raw16(w, type);
	pfcp_w_raw16(w, 2);
	pfcp_w_raw16(w, v);
}

void
pfcp_w_ie_u32(struct pfcp_w *w, uint16_t type, uint32_t v)
{
	pfcp_w_raw16(w, type);
	pfcp_w_raw16(w, 4);
	pfcp_w_raw32(w, v);
}

void
pfcp_w_ie_u64(struct pfcp_w *w, uint16_t type, uint64_t v)
{
	pfcp_w_raw16(w, type);
	pfcp_w_raw16(w, 8);
	pfcp_w_raw64(w, v);
}

void
pfcp_w_ie_bytes(struct pfcp_w *w, uint16_t type, const void *p, size_t n)
{
	if (n > UINT16_MAX) {
		w->overflow = true;
		return;
	}
	pfcp_w_raw16(w, type);
	pfcp_w_raw16(w, (uint16_t)n);
	pfcp_w_raw(w, p, n);
}

void
pfcp_w_node_id(struct pfcp_w *w, const struct pfcp_node_id *id)
{
	size_t off = pfcp_w_ie_begin(w, PFCP_IE_NODE_ID);

	pfcp_w_raw8(w, id->type);
	switch (id->type) {
	case PFCP_NODE_ID_IPV4:
		pfcp_w_raw(w, id->ip.a, 4);
		break;
	case PFCP_NODE_ID_IPV6:
		pfcp_w_raw(w, id->ip.a, 16);
		break;
	default: {
		/* FQDN as DNS labels (TS 29.244 8.2.38). */
		const char *s = id->fqdn;
		size_t l;

		while (*s != '\0') {
			l = strcspn(s, ".");
			if (l > 63) {
				w->overflow = true;
				return;
			}
			if (l > 0) {
				pfcp_w_raw8(w, (uint8_t)l);
				pfcp_w_raw(w, s, l);
			}
			s += l;
			if (*s == '.')
				s++;
		}
		break;
	}
	}
	pfcp_w_ie_end(w, off);
}

void
pfcp_w_fseid(struct pfcp_w *w, const struct pfcp_fseid *f)
{
	size_t off = pfcp_w_ie_begin(w, PFCP_IE_F_SEID);

	pfcp_w_raw8(w, (uint8_t)((f->v4.af == 4 ? 0x02 : 0) | (f->v6.af == 6 ? 0x01 : 0)));
	pfcp_w_raw64(w, f->seid);
	if (f->v4.af == 4)
		pfcp_w_raw(w, f->v4.a, 4);
	if (f->v6.af == 6)
		pfcp_w_raw(w, f->v6.a, 16);
	pfcp_w_ie_end(w, off);
}

void
pfcp_w_fteid(struct pfcp_w *w, uint32_t teid, const struct upf_ip *v4, const struct upf_ip *v6)
{
	bool has4 = v4 != NULL && v4->af == 4, has6 = v6 != NULL && v6->af == 6;
	size_t off = pfcp_w_ie_begin(w, PFCP_IE_F_TEID);

	pfcp_w_raw8(w, (uint8_t)((has4 ? 0x01 : 0) | (has6 ? 0x02 : 0)));
	pfcp_w_raw32(w, teid);
	if (has4)
		pfcp_w_raw(w, v4->a, 4);
	if (has6)
		pfcp_w_raw(w, v6->a, 16);
	pfcp_w_ie_end(w, off);
}

void
pfcp_w_features(struct pfcp_w *w, uint16_t type, uint64_t f, unsigned int n)
{
	size_t off;
	unsigned int i;

	if (n < 1 || n > 8) {
		w->overflow = true;
		return;
	}
	off = pfcp_w_ie_begin(w, type);
	for (i = 0; i < n; i++)
		pfcp_w_raw8(w, (uint8_t)(f >> (8 * i)));
	pfcp_w_ie_end(w, off);
}

void
pfcp_w_failed_rule(struct pfcp_w *w, uint8_t rule_type, uint32_t rule_id)
{
	size_t off = pfcp_w_ie_begin(w, PFCP_IE_FAILED_RULE_ID);

	pfcp_w_raw8(w, rule_type & 0x1f);
	switch (rule_type) {
	case PFCP_RULE_PDR:
		pfcp_w_raw16(w, (uint16_t)rule_id);
		break;
	case PFCP_RULE_BAR:
		pfcp_w_raw8(w, (uint8_t)rule_id);
		break;
	default:
		pfcp_w_raw32(w, rule_id);
		break;
	}
	pfcp_w_ie_end(w, off);
}

void
pfcp_w_usage_report(struct pfcp_w *w, uint16_t type, const struct pfcp_usage_report *u)
{
	size_t off = pfcp_w_ie_begin(w, type), o2;

	pfcp_w_ie_u32(w, PFCP_IE_URR_ID, u->urr_id);
	pfcp_w_ie_u32(w, PFCP_IE_UR_SEQN, u->ur_seqn);
	o2 = pfcp_w_ie_begin(w, PFCP_IE_USAGE_REPORT_TRIGGER);
	pfcp_w_raw8(w, (uint8_t)u->trigger);
	pfcp_w_raw8(w, (uint8_t)(u->trigger >> 8));
	pfcp_w_raw8(w, (uint8_t)(u->trigger >> 16));
	pfcp_w_ie_end(w, o2);
	if (u->start_time != 0)
		pfcp_w_ie_u32(w, PFCP_IE_START_TIME, u->start_time);
	if (u->end_time != 0)
		pfcp_w_ie_u32(w, PFCP_IE_END_TIME, u->end_time);
	if (u->has_volume) {
		/* TOVOL ULVOL DLVOL TONOP ULNOP DLNOP: all six values. */
		o2 = pfcp_w_ie_begin(w, PFCP_IE_VOLUME_MEASUREMENT);
		pfcp_w_raw8(w, 0x3f);
		pfcp_w_raw64(w, u->vol.bytes[0] + u->vol.bytes[1]);
		pfcp_w_raw64(w, u->vol.bytes[0]);
		pfcp_w_raw64(w, u->vol.bytes[1]);
		pfcp_w_raw64(w, u->vol.pkts[0] + u->vol.pkts[1]);
		pfcp_w_raw64(w, u->vol.pkts[0]);
		pfcp_w_raw64(w, u->vol.pkts[1]);
		pfcp_w_ie_end(w, o2);
	}
	if (u->has_duration)
		pfcp_w_ie_u32(w, PFCP_IE_DURATION_MEASUREMENT, u->duration_s);
	pfcp_w_ie_end(w, off);
}

int
pfcp_build_heartbeat_req(struct pfcp_w *w, uint32_t seq, uint32_t recovery_ts)
{
	pfcp_w_hdr_begin(w, PFCP_HEARTBEAT_REQ, false, 0, seq);
	pfcp_w_ie_u32(w, PFCP_IE_RECOVERY_TIME_STAMP, recovery_ts);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_heartbeat_resp(struct pfcp_w *w, uint32_t seq, uint32_t recovery_ts)
{
	pfcp_w_hdr_begin(w, PFCP_HEARTBEAT_RESP, false, 0, seq);
	pfcp_w_ie_u32(w, PFCP_IE_RECOVERY_TIME_STAMP, recovery_ts);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_version_not_supported(struct pfcp_w *w, uint32_t seq)
{
	pfcp_w_hdr_begin(w, PFCP_VERSION_NOT_SUPPORTED, false, 0, seq);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_assoc_setup_resp(struct pfcp_w *w, uint32_t seq, const struct pfcp_node_id *id,
			    uint8_t cause, uint32_t recovery_ts, uint64_t up_features,
			    unsigned int n_feat_octets, const struct pfcp_pool_info *pools,
			    unsigned int n_pools)
{
	unsigned int i;

	pfcp_w_hdr_begin(w, PFCP_ASSOC_SETUP_RESP, false, 0, seq);
	pfcp_w_node_id(w, id);
	pfcp_w_ie_u8(w, PFCP_IE_CAUSE, cause);
	pfcp_w_ie_u32(w, PFCP_IE_RECOVERY_TIME_STAMP, recovery_ts);
	if (cause == PFCP_CAUSE_ACCEPTED && n_feat_octets > 0)
		pfcp_w_features(w, PFCP_IE_UP_FUNCTION_FEATURES, up_features, n_feat_octets);
	for (i = 0; cause == PFCP_CAUSE_ACCEPTED && i < n_pools; i++) {
		const size_t o = pfcp_w_ie_begin(w, PFCP_IE_UE_IP_POOL_INFO);
		const size_t l = strlen(pools[i].id);
		uint8_t v[2 + PFCP_NI_LEN];

		/* The identity is at most 63 characters (config.h pool_id). */
		if (l + 2 <= sizeof(v)) {
			v[0] = (uint8_t)(l >> 8);
			v[1] = (uint8_t)l;
			memcpy(v + 2, pools[i].id, l);
			pfcp_w_ie_bytes(w, PFCP_IE_UE_IP_POOL_ID, v, l + 2);
		}
		pfcp_w_ie_bytes(w, PFCP_IE_NETWORK_INSTANCE, pools[i].ni, strlen(pools[i].ni));
		pfcp_w_ie_end(w, o);
	}
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_assoc_update_resp(struct pfcp_w *w, uint32_t seq, const struct pfcp_node_id *id,
			     uint8_t cause, uint64_t up_features, unsigned int n_feat_octets)
{
	pfcp_w_hdr_begin(w, PFCP_ASSOC_UPDATE_RESP, false, 0, seq);
	pfcp_w_node_id(w, id);
	pfcp_w_ie_u8(w, PFCP_IE_CAUSE, cause);
	if (cause == PFCP_CAUSE_ACCEPTED && n_feat_octets > 0)
		pfcp_w_features(w, PFCP_IE_UP_FUNCTION_FEATURES, up_features, n_feat_octets);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_assoc_release_resp(struct pfcp_w *w, uint32_t seq, const struct pfcp_node_id *id,
			      uint8_t cause)
{
	pfcp_w_hdr_begin(w, PFCP_ASSOC_RELEASE_RESP, false, 0, seq);
	pfcp_w_node_id(w, id);
	pfcp_w_ie_u8(w, PFCP_IE_CAUSE, cause);
	return pfcp_w_hdr_end(w);
}

/* Cause, Offending IE and Failed Rule ID, as every session response carries them. */
static void
w_cause(struct pfcp_w *w, uint8_t cause, uint16_t ie, uint8_t rule_type, uint32_t rule_id)
{
	pfcp_w_ie_u8(w, PFCP_IE_CAUSE, cause);
	if (ie != 0)
		pfcp_w_ie_u16(w, PFCP_IE_OFFENDING_IE, ie);
	if (cause == PFCP_CAUSE_RULE_FAILURE && rule_type != PFCP_RULE_NONE)
		pfcp_w_failed_rule(w, rule_type, rule_id);
}

/*
 * A UE IP Address IE (8.2.62) of a Created PDR: the addresses the UP
 * chose. S/D is 0, as outside a PDI it must be; an IPv6 entry is the /64,
 * or a delegated prefix with its IPv6 Prefix Delegation Bits (IPv6D).
 */
static void
w_ue_ip(struct pfcp_w *w, const struct upf_ip *v4, const struct upf_ip *v6, uint8_t dbits)
{
	size_t off = pfcp_w_ie_begin(w, PFCP_IE_UE_IP_ADDRESS);
	const bool d = v6->af == 6 && dbits != 0;

	pfcp_w_raw8(w,
		    (uint8_t)((v4->af == 4 ? 0x02 : 0) | (v6->af == 6 ? 0x01 : 0) |
			      (d ? 0x08 : 0)));
	if (v4->af == 4)
		pfcp_w_raw(w, v4->a, 4);
	if (v6->af == 6)
		pfcp_w_raw(w, v6->a, 16);
	if (d)
		pfcp_w_raw8(w, dbits);
	pfcp_w_ie_end(w, off);
}

static void
w_created(struct pfcp_w *w, const struct pfcp_sess_resp *r)
{
	unsigned int i;

	for (i = 0; i < r->n_created; i++) {
		const struct pfcp_created_pdr *c = &r->created[i];
		size_t off = pfcp_w_ie_begin(w,
					     c->te ? PFCP_IE_CREATED_TRAFFIC_ENDPOINT
						   : PFCP_IE_CREATED_PDR);

		if (c->te)
			pfcp_w_ie_u8(w, PFCP_IE_TRAFFIC_ENDPOINT_ID, (uint8_t)c->pdr_id);
		else
			pfcp_w_ie_u16(w, PFCP_IE_PDR_ID, c->pdr_id);
		if (c->teid != 0)
			pfcp_w_fteid(w, c->teid, &c->v4, &c->v6);
		if (c->ue4.af != 0 || c->ue6.af != 0)
			w_ue_ip(w, &c->ue4, &c->ue6, c->ue6_dbits);
		pfcp_w_ie_end(w, off);
	}
}

int
pfcp_build_sess_est_resp(struct pfcp_w *w, const struct pfcp_sess_resp *r)
{
	pfcp_w_hdr_begin(w, PFCP_SESS_EST_RESP, true, r->seid, r->seq);
	if (r->node_id != NULL)
		pfcp_w_node_id(w, r->node_id);
	w_cause(w, r->cause, r->offending_ie, r->failed_rule_type, r->failed_rule_id);
	if (r->up_fseid != NULL)
		pfcp_w_fseid(w, r->up_fseid);
	w_created(w, r);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_sess_mod_resp(struct pfcp_w *w, const struct pfcp_sess_resp *r)
{
	unsigned int i;

	pfcp_w_hdr_begin(w, PFCP_SESS_MOD_RESP, true, r->seid, r->seq);
	w_cause(w, r->cause, r->offending_ie, r->failed_rule_type, r->failed_rule_id);
	w_created(w, r);
	for (i = 0; i < r->n_usage; i++)
		pfcp_w_usage_report(w, PFCP_IE_USAGE_REPORT_SMR, &r->usage[i]);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_sess_del_resp(struct pfcp_w *w, const struct pfcp_sess_resp *r)
{
	unsigned int i;

	pfcp_w_hdr_begin(w, PFCP_SESS_DEL_RESP, true, r->seid, r->seq);
	w_cause(w, r->cause, r->offending_ie, r->failed_rule_type, r->failed_rule_id);
	for (i = 0; i < r->n_usage; i++)
		pfcp_w_usage_report(w, PFCP_IE_USAGE_REPORT_SDR, &r->usage[i]);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_sess_report_req(struct pfcp_w *w, const struct pfcp_sess_report *r)
{
	unsigned int i;

	pfcp_w_hdr_begin(w, PFCP_SESS_REPORT_REQ, true, r->seid, r->seq);
	pfcp_w_ie_u8(w, PFCP_IE_REPORT_TYPE, r->report_type);
	if ((r->report_type & PFCP_REPORT_DLDR) && r->n_dl_pdr > 0) {
		size_t off = pfcp_w_ie_begin(w, PFCP_IE_DOWNLINK_DATA_REPORT);

		for (i = 0; i < r->n_dl_pdr && i < PFCP_MAX_DL_PDR; i++)
			pfcp_w_ie_u16(w, PFCP_IE_PDR_ID, r->dl_pdr[i]);
		pfcp_w_ie_end(w, off);
	}
	if (r->report_type & PFCP_REPORT_USAR)
		for (i = 0; i < r->n_usage; i++)
			pfcp_w_usage_report(w, PFCP_IE_USAGE_REPORT_SRR, &r->usage[i]);
	return pfcp_w_hdr_end(w);
}

int
pfcp_build_error_resp(struct pfcp_w *w, const struct pfcp_hdr *req, uint64_t seid,
		      const struct pfcp_node_id *id, const struct pfcp_err *err)
{
	struct pfcp_sess_resp r = {
		.seid = seid,
		.seq = req->seq,
		.cause = err->cause,
		.offending_ie = err->ie,
		.failed_rule_type = err->rule_type,
		.failed_rule_id = err->rule_id,
		.node_id = id,
	};

	switch (req->type) {
	case PFCP_SESS_EST_REQ:
		return pfcp_build_sess_est_resp(w, &r);
	case PFCP_SESS_MOD_REQ:
		return pfcp_build_sess_mod_resp(w, &r);
	case PFCP_SESS_DEL_REQ:
		return pfcp_build_sess_del_resp(w, &r);
	case PFCP_ASSOC_UPDATE_REQ:
	case PFCP_ASSOC_RELEASE_REQ:
		if (id == NULL)
			return -EINVAL;
		pfcp_w_hdr_begin(w, (uint8_t)(req->type + 1), false, 0, req->seq);
		pfcp_w_node_id(w, id);
		w_cause(w, err->cause, err->ie, PFCP_RULE_NONE, 0);
		return pfcp_w_hdr_end(w);
	default:
		/* Heartbeats carry no Cause; an Association Setup Response needs the
		 * Recovery Time Stamp: pfcp_build_assoc_setup_resp() with err->cause. */
		return -EINVAL;
	}
}
