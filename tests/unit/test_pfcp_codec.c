/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PFCP codec (pfcp.h). Invalid input first: headers that cannot be
 * read, lengths past the datagram and past their parent IE, groups nested
 * past the depth limit, grouped IEs holding what is not IEs, missing
 * mandatory and conditional IEs, counts past the model's limits, each with
 * its Cause and Offending IE; every prefix of every message. Then messages
 * made by an independent encoder (scapy, tests/data/pfcp/make_vectors.py)
 * decoded field by field, Flow Descriptions, and round trips of what the
 * writer builds, with the writer's bound checked at every buffer size.
 * tests/unit/pfcp_wire_check.py checks the responses against scapy and
 * tshark.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pfcp.h"

static struct pfcp_msg msg;
static struct pfcp_err err;
static uint8_t buf[8192];

static int
dec(const uint8_t *b, size_t n)
{
	return pfcp_decode(b, n, &msg, &err);
}

/* Decode and expect a rejection with this Cause and Offending IE. */
#define REJECTS(b, n, cause_, ie_)                                                            \
	do {                                                                                  \
		int rc_ = dec((b), (n));                                                      \
		if (rc_ != PFCP_DEC_REJECT || err.cause != (cause_) || err.ie != (ie_))       \
			fail_msg("line %d: rc %d cause %u ie %u (%s), want cause %u ie %u",   \
				 __LINE__, rc_, err.cause, err.ie, err.why, (cause_), (ie_)); \
	} while (0)

static size_t
load(const char *name, uint8_t *out, size_t cap)
{
	const char *dir = getenv("LF_TESTDATA");
	char path[512];
	size_t n;
	FILE *f;

	if (dir == NULL)
		fail_msg("LF_TESTDATA is not set (run the tests with meson test)");
	snprintf(path, sizeof(path), "%s/pfcp/%s.bin", dir, name);
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("%s: cannot open", path);
	n = fread(out, 1, cap, f);
	fclose(f);
	assert_true(n > 0 && n < cap);
	return n;
}

static uint32_t
ip4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void
assert_ip(const struct upf_ip *ip, const char *s)
{
	uint8_t a[16];

	if (strchr(s, ':') != NULL) {
		assert_int_equal(inet_pton(AF_INET6, s, a), 1);
		assert_int_equal(ip->af, 6);
		assert_memory_equal(ip->a, a, 16);
	} else {
		assert_int_equal(inet_pton(AF_INET, s, a), 1);
		assert_int_equal(ip->af, 4);
		assert_memory_equal(ip->a, a, 4);
	}
}

/* ---- Message builders for the invalid-input tests ------------------- */

/* Session Establishment Request header, Node ID and CP F-SEID. */
static void
est_begin(struct pfcp_w *w)
{
	struct pfcp_node_id id = { .type = PFCP_NODE_ID_IPV4, .ip = { .af = 4 } };
	struct pfcp_fseid f = { .seid = 0x77, .v4 = { .af = 4 } };
	uint32_t a = ip4("10.0.0.5");

	memcpy(id.ip.a, &a, 4);
	memcpy(f.v4.a, &a, 4);
	pfcp_w_init(w, buf, sizeof(buf));
	pfcp_w_hdr_begin(w, PFCP_SESS_EST_REQ, true, 0, 9);
	pfcp_w_node_id(w, &id);
	pfcp_w_fseid(w, &f);
}

/* Create FAR id with Apply Action DROP. */
static void
far_drop(struct pfcp_w *w, uint32_t id)
{
	size_t o = pfcp_w_ie_begin(w, PFCP_IE_CREATE_FAR);

	pfcp_w_ie_u32(w, PFCP_IE_FAR_ID, id);
	pfcp_w_ie_u8(w, PFCP_IE_APPLY_ACTION, UPF_FAR_DROP);
	pfcp_w_ie_end(w, o);
}

/* Open a Create PDR (id, precedence, FAR 1) and its PDI (source CORE). *pdi: the PDI's offset. */
static size_t
pdr_begin(struct pfcp_w *w, uint16_t id, size_t *pdi)
{
	size_t o = pfcp_w_ie_begin(w, PFCP_IE_CREATE_PDR);

	pfcp_w_ie_u16(w, PFCP_IE_PDR_ID, id);
	pfcp_w_ie_u32(w, PFCP_IE_PRECEDENCE, 10);
	pfcp_w_ie_u32(w, PFCP_IE_FAR_ID, 1);
	*pdi = pfcp_w_ie_begin(w, PFCP_IE_PDI);
	pfcp_w_ie_u8(w, PFCP_IE_SOURCE_INTERFACE, UPF_IF_CORE);
	return o;
}

static void
pdr_end(struct pfcp_w *w, size_t o, size_t pdi)
{
	pfcp_w_ie_end(w, pdi);
	pfcp_w_ie_end(w, o);
}

static int
est_end(struct pfcp_w *w)
{
	int n = pfcp_w_hdr_end(w);

	assert_true(n > 0);
	return n;
}

/* A whole valid establishment: PDR 1 (with the PDI IE given raw), FAR 1. */
static int
est_with_pdi_ie(uint16_t type, const void *v, size_t n)
{
	struct pfcp_w w;
	size_t o, pdi;

	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pfcp_w_ie_bytes(&w, type, v, n);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	return est_end(&w);
}

/* An SDF Filter IE with a Flow Description. */
static int
est_with_flow(const char *fd)
{
	uint8_t v[300];
	size_t l = strlen(fd);

	assert_true(l + 4 <= sizeof(v));
	v[0] = 0x01;
	v[1] = 0;
	v[2] = (uint8_t)(l >> 8);
	v[3] = (uint8_t)l;
	memcpy(v + 4, fd, l);
	return est_with_pdi_ie(PFCP_IE_SDF_FILTER, v, l + 4);
}

/* ---- Invalid input -------------------------------------------------- */

static void
test_header_invalid(void **state)
{
	uint8_t b[64];
	int n;

	(void)state;
	assert_int_equal(pfcp_decode(NULL, 10, &msg, &err), PFCP_DEC_DROP);
	assert_int_equal(dec(b, 0), PFCP_DEC_DROP);
	memset(b, 0, sizeof(b));
	b[0] = 0x20;
	b[1] = PFCP_HEARTBEAT_REQ;
	assert_int_equal(dec(b, 3), PFCP_DEC_DROP);
	assert_int_equal(dec(b, 7), PFCP_DEC_DROP); /* short of the 8-byte header */
	/* Length field 0: shorter than the header itself. */
	assert_int_equal(dec(b, 8), PFCP_DEC_DROP);
	/* S flag: 16-byte header, datagram of 12. */
	b[0] = 0x21;
	b[1] = PFCP_SESS_DEL_REQ;
	b[3] = 12;
	assert_int_equal(dec(b, 12), PFCP_DEC_DROP);
	/* Length field past the datagram: the header is read, Cause 68. */
	b[3] = 40;
	b[12] = 0x01;
	b[13] = 0x02;
	b[14] = 0x03;
	REJECTS(b, 16, PFCP_CAUSE_INVALID_LENGTH, 0);
	assert_int_equal(msg.h.seq, 0x010203);
	assert_int_equal(msg.h.type, PFCP_SESS_DEL_REQ);
	/* Version 2: Version Not Supported, with the sequence number. */
	b[0] = 0x41;
	b[3] = 12;
	assert_int_equal(dec(b, 16), PFCP_DEC_VERSION);
	assert_int_equal(msg.h.seq, 0x010203);
	/* A session message without SEID: nothing to answer it with. */
	b[0] = 0x20;
	b[3] = 4;
	assert_int_equal(dec(b, 8), PFCP_DEC_DROP);
	/* A type this codec does not decode (PFD Management, Node Report). */
	b[1] = PFCP_PFD_MGMT_REQ;
	assert_int_equal(dec(b, 8), PFCP_DEC_UNKNOWN);
	b[1] = 200;
	assert_int_equal(dec(b, 8), PFCP_DEC_UNKNOWN);
	/* Message priority and trailing bytes past the length (Follow On). */
	b[0] = 0x20 | 0x04 | 0x02;
	b[1] = PFCP_HEARTBEAT_REQ;
	b[3] = 12;
	b[7] = 0x50;
	b[8] = 0;
	b[9] = PFCP_IE_RECOVERY_TIME_STAMP;
	b[10] = 0;
	b[11] = 4;
	b[12] = 0xe8;
	b[13] = b[14] = b[15] = 0;
	assert_int_equal(dec(b, 40), PFCP_DEC_OK);
	assert_true(msg.h.mp && msg.h.fo);
	assert_int_equal(msg.h.prio, 5);
	assert_int_equal(msg.h.msg_len, 16);
	assert_int_equal(msg.recovery_ts, 0xe8000000u);
	n = pfcp_decode_header(b, 40, &msg.h, &err);
	assert_int_equal(n, PFCP_DEC_OK);
}

/* Every prefix of every vector: dropped or refused for its length, never read past. */
static void
test_truncated(void **state)
{
	static const char *const names[] = {
		"heartbeat_req",   "assoc_setup_req", "assoc_update_req", "sess_est_req",
		"sess_est_req_v6", "sess_mod_req",    "sess_report_resp",
	};
	uint8_t full[2048];
	unsigned int i;
	size_t n, l;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = load(names[i], full, sizeof(full));
		for (l = 0; l < n; l++) {
			/* A heap copy of exactly l bytes: ASan sees any read past it. */
			uint8_t *p = malloc(l ? l : 1);
			int rc;

			memcpy(p, full, l);
			rc = dec(p, l);
			free(p);
			if (rc == PFCP_DEC_REJECT)
				assert_int_equal(err.cause, PFCP_CAUSE_INVALID_LENGTH);
			else
				assert_int_equal(rc, PFCP_DEC_DROP);
		}
		assert_int_equal(dec(full, n), PFCP_DEC_OK);
	}
}

/* An IE whose length runs past its parent, with the message length kept consistent. */
static void
test_ie_length_past_end(void **state)
{
	struct pfcp_w w;
	size_t o, pdi, sdf_len_at;
	int n;

	(void)state;
	/* Past the message: the last IE claims 2 more bytes than there are. */
	est_begin(&w);
	far_drop(&w, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 1);
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	buf[n - 5] = 6; /* URR ID length 4 -> 6, inside a Create URR of 8 */
	REJECTS(buf, n, PFCP_CAUSE_INVALID_LENGTH, PFCP_IE_URR_ID);
	buf[n - 5] = 4;
	buf[n - 9] = 9; /* the Create URR itself: 8 -> 9, past the message */
	REJECTS(buf, n, PFCP_CAUSE_INVALID_LENGTH, PFCP_IE_CREATE_URR);

	/* Past a nested group: an SDF Filter longer than its PDI. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	sdf_len_at = w.len + 2;
	pfcp_w_ie_bytes(&w, PFCP_IE_SDF_FILTER, "\x02\x00\x10\xff", 4);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = est_end(&w);
	buf[sdf_len_at + 1] = 40;
	REJECTS(buf, n, PFCP_CAUSE_INVALID_LENGTH, PFCP_IE_SDF_FILTER);

	/* A Flow Description length past its SDF Filter IE. */
	n = est_with_pdi_ie(PFCP_IE_SDF_FILTER, "\x01\x00\x00\x30permit", 10);
	REJECTS(buf, n, PFCP_CAUSE_INVALID_LENGTH, PFCP_IE_SDF_FILTER);

	/* Three stray bytes after the last IE: short of an IE header. */
	est_begin(&w);
	far_drop(&w, 1);
	pfcp_w_raw(&w, "\x00\x01\x00", 3);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_INVALID_LENGTH, 0);

	/* An enterprise IE too short for its Enterprise ID; one just long enough is skipped. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	pfcp_w_ie_bytes(&w, 0x8123, "\x01", 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_INVALID_LENGTH, 0x8123);
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pfcp_w_ie_bytes(&w, 0x8123, "\x01\x02", 2);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	pfcp_w_ie_bytes(&w, 0xffff, "\x00\x00junk", 6);
	n = est_end(&w);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(msg.n_create_pdr, 1);
}

/* A grouped IE nested n deep (its innermost holding a Recovery Time Stamp). */
static void
nest(struct pfcp_w *w, uint16_t type, unsigned int n)
{
	size_t off[16];
	unsigned int i;

	for (i = 0; i < n; i++)
		off[i] = pfcp_w_ie_begin(w, type);
	pfcp_w_ie_u32(w, PFCP_IE_RECOVERY_TIME_STAMP, 1);
	while (n-- > 0)
		pfcp_w_ie_end(w, off[n]);
}

static void
test_depth(void **state)
{
	struct pfcp_w w;
	size_t o, pdi;
	int n;

	(void)state;
	/* Grouped IEs this message does not take (an Ethernet Packet Filter
	 * outside a PDI) are skipped, but their framing still counts:
	 * PFCP_MAX_DEPTH deep passes, one more is refused. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	nest(&w, PFCP_IE_ETHERNET_PACKET_FILTER, PFCP_MAX_DEPTH);
	n = est_end(&w);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);

	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	nest(&w, PFCP_IE_ETHERNET_PACKET_FILTER, PFCP_MAX_DEPTH + 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_REJECTED, PFCP_IE_ETHERNET_PACKET_FILTER);

	/* Create PDR in a PDI in a Create PDR ... ten deep, inside a real PDR. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	nest(&w, PFCP_IE_CREATE_PDR, 10);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_REJECTED, PFCP_IE_CREATE_PDR);
}

static void
test_wrong_group_content(void **state)
{
	struct pfcp_w w;
	size_t o, o2, pdi;
	int n;

	(void)state;
	/* A Create PDR holding three bytes that are not an IE. */
	est_begin(&w);
	pfcp_w_ie_bytes(&w, PFCP_IE_CREATE_PDR, "abc", 3);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_INVALID_LENGTH, 0);

	/* A Create PDR holding a Cause and nothing it needs. */
	est_begin(&w);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_PDR);
	pfcp_w_ie_u8(&w, PFCP_IE_CAUSE, 1);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PDR_ID);

	/* A PDR ID of one octet. */
	est_begin(&w);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_PDR);
	pfcp_w_ie_u8(&w, PFCP_IE_PDR_ID, 1);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_PDR_ID);

	/* A PDI without Source Interface. */
	est_begin(&w);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_PDR);
	pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, 1);
	pfcp_w_ie_u32(&w, PFCP_IE_PRECEDENCE, 1);
	o2 = pfcp_w_ie_begin(&w, PFCP_IE_PDI);
	pfcp_w_ie_end(&w, o2);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_SOURCE_INTERFACE);

	/* FORW without Forwarding Parameters: conditional IE missing. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_FAR);
	pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, 1);
	pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, UPF_FAR_FORW);
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_FORWARDING_PARAMS);

	/* Forwarding Parameters without Destination Interface. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_FAR);
	pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, 1);
	pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, UPF_FAR_FORW);
	o2 = pfcp_w_ie_begin(&w, PFCP_IE_FORWARDING_PARAMS);
	pfcp_w_ie_end(&w, o2);
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_DESTINATION_INTERFACE);

	/* A URR with a volume threshold trigger but no Volume Threshold. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 4);
	pfcp_w_ie_u8(&w, PFCP_IE_MEASUREMENT_METHOD, UPF_MM_VOLUM);
	pfcp_w_ie_u16(&w, PFCP_IE_REPORTING_TRIGGERS, 0x0200); /* VOLTH in octet 5 */
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_VOLUME_THRESHOLD);

	/* An F-SEID shorter than its flags say. */
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_EST_REQ, true, 0, 1);
	pfcp_w_ie_bytes(&w, PFCP_IE_F_SEID, "\x03\x00\x00\x00\x00\x00\x00\x00\x01\x0a\x00\x00\x01",
			13);
	n = pfcp_w_hdr_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_F_SEID);
}

static void
test_missing_mandatory(void **state)
{
	struct pfcp_w w;
	size_t o, pdi;
	int n;

	(void)state;
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_HEARTBEAT_REQ, false, 0, 1);
	n = pfcp_w_hdr_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_RECOVERY_TIME_STAMP);

	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_ASSOC_SETUP_REQ, false, 0, 1);
	pfcp_w_ie_u32(&w, PFCP_IE_RECOVERY_TIME_STAMP, 5);
	n = pfcp_w_hdr_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_NODE_ID);

	/* Establishment without CP F-SEID. */
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_EST_REQ, true, 0, 1);
	pfcp_w_node_id(&w, &(struct pfcp_node_id){ .type = PFCP_NODE_ID_FQDN, .fqdn = "smf" });
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = pfcp_w_hdr_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_F_SEID);

	/* Establishment without any Create PDR. */
	est_begin(&w);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_PDR);

	/* A Remove PDR without its PDR ID. */
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 5, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_REMOVE_PDR);
	pfcp_w_ie_end(&w, o);
	n = pfcp_w_hdr_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_PDR_ID);

	/* Session Report Response without Cause. */
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_REPORT_RESP, true, 5, 1);
	n = pfcp_w_hdr_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CAUSE);
}

static void
test_counts(void **state)
{
	struct pfcp_w w;
	size_t o, pdi;
	unsigned int i;
	int n;

	(void)state;
	/* UPF_MAX_PDR PDRs pass, one more is refused (Cause 73, the 33rd PDR named). */
	est_begin(&w);
	for (i = 0; i < UPF_MAX_PDR; i++) {
		o = pdr_begin(&w, (uint16_t)(i + 1), &pdi);
		pdr_end(&w, o, pdi);
	}
	far_drop(&w, 1);
	n = est_end(&w);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(msg.n_create_pdr, UPF_MAX_PDR);
	est_begin(&w);
	for (i = 0; i < UPF_MAX_PDR + 1; i++) {
		o = pdr_begin(&w, (uint16_t)(i + 1), &pdi);
		pdr_end(&w, o, pdi);
	}
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_PDR);
	assert_int_equal(err.rule_type, PFCP_RULE_PDR);
	assert_int_equal(err.rule_id, UPF_MAX_PDR + 1);

	/* Huge counts: 1,000 Create FARs in one 16 KiB message. */
	{
		static uint8_t big[65536];

		pfcp_w_init(&w, big, sizeof(big));
		pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 1, 1);
		for (i = 0; i < 1000; i++) {
			o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_FAR);
			pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, i);
			pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, UPF_FAR_DROP);
			pfcp_w_ie_end(&w, o);
		}
		n = pfcp_w_hdr_end(&w);
		assert_true(n > 0);
		REJECTS(big, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_FAR);
		assert_int_equal(err.rule_type, PFCP_RULE_FAR);
		assert_int_equal(err.rule_id, UPF_MAX_FAR);
		/* 1,000 Remove URRs and 1,000 Query URRs. */
		pfcp_w_init(&w, big, sizeof(big));
		pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 1, 1);
		for (i = 0; i < 1000; i++) {
			o = pfcp_w_ie_begin(&w, PFCP_IE_QUERY_URR);
			pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, i);
			pfcp_w_ie_end(&w, o);
		}
		n = pfcp_w_hdr_end(&w);
		REJECTS(big, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_QUERY_URR);
		pfcp_w_init(&w, big, sizeof(big));
		pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 1, 1);
		for (i = 0; i < 1000; i++) {
			o = pfcp_w_ie_begin(&w, PFCP_IE_REMOVE_URR);
			pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, i);
			pfcp_w_ie_end(&w, o);
		}
		n = pfcp_w_hdr_end(&w);
		REJECTS(big, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REMOVE_URR);
	}

	/* UPF_MAX_SDF + 1 SDF filters in one PDR. */
	est_begin(&w);
	o = pdr_begin(&w, 7, &pdi);
	for (i = 0; i < UPF_MAX_SDF + 1; i++)
		pfcp_w_ie_bytes(&w, PFCP_IE_SDF_FILTER, "\x02\x00\x10\xff", 4);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SDF_FILTER);
	assert_int_equal(err.rule_type, PFCP_RULE_PDR);
	assert_int_equal(err.rule_id, 7);

	/* Three QER IDs in one PDR. */
	est_begin(&w);
	o = pdr_begin(&w, 8, &pdi);
	pfcp_w_ie_end(&w, pdi);
	for (i = 0; i < UPF_MAX_PDR_QER + 1; i++)
		pfcp_w_ie_u32(&w, PFCP_IE_QER_ID, i);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_QER_ID);

	/* Two Create PDRs with one id. */
	est_begin(&w);
	o = pdr_begin(&w, 3, &pdi);
	pdr_end(&w, o, pdi);
	o = pdr_begin(&w, 3, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_PDR);
	assert_int_equal(err.rule_id, 3);
}

/* Values the model cannot hold: Cause 73 naming the IE and the rule, never ignored. */

/* A session with Create URR 4 (VOLUM, VOLQU) holding the Volume Threshold th and Quota q (raw; NULL: none). */
static int
est_with_urr_vols(const char *th, size_t thn, const char *q, size_t qn)
{
	struct pfcp_w w;
	size_t o, pdi;

	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 4);
	pfcp_w_ie_u8(&w, PFCP_IE_MEASUREMENT_METHOD, UPF_MM_VOLUM);
	pfcp_w_ie_u16(&w, PFCP_IE_REPORTING_TRIGGERS, 0x0200);
	pfcp_w_ie_bytes(&w, PFCP_IE_VOLUME_THRESHOLD, th, thn);
	if (q != NULL)
		pfcp_w_ie_bytes(&w, PFCP_IE_VOLUME_QUOTA, q, qn);
	pfcp_w_ie_end(&w, o);
	return est_end(&w);
}
static void
test_unsupported(void **state)
{
	struct pfcp_w w;
	size_t o, o2, pdi;
	int n;

	(void)state;
	/* SDF with a flow label, with an SPI. */
	n = est_with_pdi_ie(PFCP_IE_SDF_FILTER, "\x08\x00\x00\x00\x01", 5);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SDF_FILTER);
	assert_int_equal(err.rule_type, PFCP_RULE_PDR);
	assert_int_equal(err.rule_id, 1);
	n = est_with_pdi_ie(PFCP_IE_SDF_FILTER, "\x04\x00\x00\x00\x00\x01", 6);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SDF_FILTER);
	/* An SDF Filter ID (BID) alone names a filter: nothing to match on. */
	n = est_with_pdi_ie(PFCP_IE_SDF_FILTER, "\x10\x00\x00\x00\x00\x01", 6);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_SDF_FILTER);
	/* An Application ID, an Ethernet Packet Filter in the PDI. */
	n = est_with_pdi_ie(PFCP_IE_APPLICATION_ID, "app", 3);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_APPLICATION_ID);
	n = est_with_pdi_ie(PFCP_IE_ETHERNET_PACKET_FILTER, "", 0);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_ETHERNET_PACKET_FILTER);
	/* An IPv6 prefix length other than /64 (IP6PL), prefix delegation (IPv6D). */
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x60\x50", 2);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x28\x30", 2);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	/* CHOOSE with the address of the same family; nothing set at all. */
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x12\x0a\x2d\x00\x01", 5);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x04", 1);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	/* CHV4, and CHV6 beside a given IPv4 address: decoded for the agent. */
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x14", 1);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.create_pdr[0].c.ue_choose, UPF_UE_CHOOSE4);
	assert_int_equal(msg.create_pdr[0].c.ue4.af, 0);
	assert_true(msg.create_pdr[0].ue_sd);
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x22\x0a\x2d\x00\x01", 5);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.create_pdr[0].c.ue_choose, UPF_UE_CHOOSE6);
	assert_int_equal(msg.create_pdr[0].c.ue4.af, 4);
	assert_int_equal(msg.create_pdr[0].c.ue6.af, 0);
	/* A source interface past CP-function. */
	est_begin(&w);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_PDR);
	pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, 2);
	pfcp_w_ie_u32(&w, PFCP_IE_PRECEDENCE, 1);
	o2 = pfcp_w_ie_begin(&w, PFCP_IE_PDI);
	pfcp_w_ie_u8(&w, PFCP_IE_SOURCE_INTERFACE, 9);
	pfcp_w_ie_end(&w, o2);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SOURCE_INTERFACE);
	assert_int_equal(err.rule_id, 2);

	/* Outer header creation UDP/IPv4, and both GTP-U v4 and v6 at once; removal of UDP/IPv4. */
	{
		static const struct {
			const char *v;
			size_t n;
		} ohc[] = {
			{ "\x04\x00\x01\x02\x03\x04\x13\x88", 8 },
			{ "\x03\x00\x00\x00\x00\x01\x01\x02\x03\x04"
			  "\xfd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01",
			  26 },
		};
		unsigned int i;

		for (i = 0; i < 2; i++) {
			est_begin(&w);
			o = pdr_begin(&w, 1, &pdi);
			pdr_end(&w, o, pdi);
			o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_FAR);
			pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, 1);
			pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, UPF_FAR_FORW);
			o2 = pfcp_w_ie_begin(&w, PFCP_IE_FORWARDING_PARAMS);
			pfcp_w_ie_u8(&w, PFCP_IE_DESTINATION_INTERFACE, UPF_IF_ACCESS);
			pfcp_w_ie_bytes(&w, PFCP_IE_OUTER_HEADER_CREATION, ohc[i].v, ohc[i].n);
			pfcp_w_ie_end(&w, o2);
			pfcp_w_ie_end(&w, o);
			n = est_end(&w);
			REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HEADER_CREATION);
			assert_int_equal(err.rule_type, PFCP_RULE_FAR);
			assert_int_equal(err.rule_id, 1);
		}
	}
	est_begin(&w);
	o = pdr_begin(&w, 4, &pdi);
	pfcp_w_ie_end(&w, pdi);
	pfcp_w_ie_u8(&w, PFCP_IE_OUTER_HEADER_REMOVAL, 2);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HEADER_REMOVAL);

	/* Apply Action IPMA; none at all. Redirect Information. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_FAR);
	pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, 6);
	pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, 0x20 | UPF_FAR_FORW);
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_APPLY_ACTION);
	assert_int_equal(err.rule_id, 6);
	buf[n - 1] = 0;
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_APPLY_ACTION);
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_FAR);
	pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, 1);
	pfcp_w_ie_u8(&w, PFCP_IE_APPLY_ACTION, UPF_FAR_FORW);
	o2 = pfcp_w_ie_begin(&w, PFCP_IE_FORWARDING_PARAMS);
	pfcp_w_ie_u8(&w, PFCP_IE_DESTINATION_INTERFACE, UPF_IF_CORE);
	pfcp_w_ie_bytes(&w, PFCP_IE_REDIRECT_INFO, "\x00\x00\x01x", 4);
	pfcp_w_ie_end(&w, o2);
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_REDIRECT_INFO);

	/*
	 * Volumes by direction: a threshold with only an uplink value, a
	 * quota with uplink and downlink (in that order after the flags), and
	 * a threshold whose flags promise more values than it has.
	 */
	n = est_with_urr_vols("\x02\x00\x00\x00\x00\x00\x00\x10\x00", 9,
			      "\x06\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x09",
			      17);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(msg.create_urr[0].c.vol_thresh.flags, UPF_VOL_UL);
	assert_int_equal(msg.create_urr[0].c.vol_thresh.ul, 0x1000);
	assert_int_equal(msg.create_urr[0].c.vol_thresh.total, 0);
	assert_int_equal(msg.create_urr[0].c.vol_quota.flags, UPF_VOL_UL | UPF_VOL_DL);
	assert_int_equal(msg.create_urr[0].c.vol_quota.ul, 7);
	assert_int_equal(msg.create_urr[0].c.vol_quota.dl, 9);
	n = est_with_urr_vols("\x03\x00\x00\x00\x00\x00\x00\x10\x00", 9, NULL, 0);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_VOLUME_THRESHOLD);
}

static void
test_fteid(void **state)
{
	int n;

	(void)state;
	/* Given: TEID and IPv4. */
	n = est_with_pdi_ie(PFCP_IE_F_TEID, "\x01\x00\x00\x12\x34\xc0\xa8\x03\x01", 9);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_true(msg.create_pdr[0].c.has_fteid && !msg.create_pdr[0].c.fteid_choose);
	assert_int_equal(msg.create_pdr[0].c.teid, 0x1234);
	assert_ip(&msg.create_pdr[0].c.fteid4, "192.168.3.1");
	assert_int_equal(msg.create_pdr[0].c.fteid6.af, 0);
	/* CHOOSE v4 and v6, no CHOOSE ID. */
	n = est_with_pdi_ie(PFCP_IE_F_TEID, "\x07", 1);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_true(msg.create_pdr[0].c.fteid_choose && !msg.create_pdr[0].c.has_choose_id);
	assert_int_equal(msg.create_pdr[0].c.fteid4.af, 4);
	assert_int_equal(msg.create_pdr[0].c.fteid6.af, 6);
	/* Faulty: CH without a family, CHID without CH, CHID without its octet, short v4. */
	n = est_with_pdi_ie(PFCP_IE_F_TEID, "\x04", 1);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_F_TEID);
	n = est_with_pdi_ie(PFCP_IE_F_TEID, "\x09\x00\x00\x00\x01\x01\x02\x03\x04\x05", 10);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_F_TEID);
	n = est_with_pdi_ie(PFCP_IE_F_TEID, "\x0d", 1);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_F_TEID);
	n = est_with_pdi_ie(PFCP_IE_F_TEID, "\x01\x00\x00\x00\x01\x01\x02\x03", 8);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_F_TEID);
	n = est_with_pdi_ie(PFCP_IE_F_TEID, "\x00\x00\x00\x00\x01", 5);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_F_TEID);
}

static void
test_network_instance(void **state)
{
	static const struct {
		const char *v;
		size_t n;
		const char *want; /* NULL: refused */
	} cases[] = {
		{ "internet", 8, "internet" },
		{ "\x08internet", 9, "internet" },
		{ "\x03ims\x03mnc\x03"
		  "001",
		  12, "ims.mnc.001" },
		{ "5gc.example", 11, "5gc.example" }, /* '5' is not a label length that fits */
		{ "\x03"
		  "abc\x05x",
		  6, NULL }, /* not labels (runs past), not printable text */
		{ "with space", 10, NULL },
		{ "a..b", 4, NULL }, /* an empty label */
		{ "\x02"
		  "a.\x01"
		  "b",
		  5, NULL }, /* labels "a." and "b" read "a..b" */
		{ "", 0, NULL },
		{ "0123456789012345678901234567890123456789012345678901234567890123", 64, NULL },
	};
	unsigned int i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = est_with_pdi_ie(PFCP_IE_NETWORK_INSTANCE, cases[i].v, cases[i].n);
		if (cases[i].want == NULL) {
			if (cases[i].n == 0)
				REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT,
					PFCP_IE_NETWORK_INSTANCE);
			else
				REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_NETWORK_INSTANCE);
			continue;
		}
		assert_int_equal(dec(buf, n), PFCP_DEC_OK);
		assert_string_equal(msg.create_pdr[0].ni_name, cases[i].want);
		assert_true(msg.create_pdr[0].present & PFCP_PDR_NI);
		assert_int_equal(msg.create_pdr[0].c.ni, UPF_NI_NONE);
	}
}

/* Flow Descriptions: what is taken, and into which fields; what is refused. */
static void
test_flow_description(void **state)
{
	static const struct {
		const char *fd;
		bool ok;
		int proto; /* -1: any */
		const char *remote, *ue; /* "prefix/len" or NULL for any */
		uint16_t rlo, rhi, ulo, uhi;
	} cases[] = {
		{ "permit out ip from any to assigned", true, -1, NULL, NULL, 0, 65535, 0, 65535 },
		{ "permit out 17 from 10.1.0.0/16 to 10.45.0.2", true, 17, "10.1.0.0/16",
		  "10.45.0.2/32", 0, 65535, 0, 65535 },
		{ "permit out 6 from 10.1.2.3/8 80-90 to any 1024", true, 6, "10.0.0.0/8", NULL, 80,
		  90, 1024, 1024 },
		{ "permit out 58 from 2001:db8::1/33 to fd00:45::7/128 5-5", true, 58,
		  "2001:db8::/33", "fd00:45::7/128", 0, 65535, 5, 5 },
		{ "permit  out\t0 from any 0-65535 to assigned", true, 0, NULL, NULL, 0, 65535, 0,
		  65535 },
		{ "permit out ip from 0.0.0.0/0 to assigned", true, -1, "0.0.0.0/0", NULL, 0, 65535,
		  0, 65535 },
		{ .fd = "deny out ip from any to assigned" },
		{ .fd = "permit in ip from any to assigned" },
		{ .fd = "permit out tcp from any to assigned" },
		{ .fd = "permit out 256 from any to assigned" },
		{ .fd = "permit out 17 from any 53,,54 to assigned" },
		{ .fd = "permit out 17 from any 53, to assigned" },
		{ .fd = "permit out 17 from any ,53 to assigned" },
		{ .fd = "permit out 17 from any 53- to assigned" },
		{ .fd = "permit out 17 from any 53,55-54 to assigned" },
		{ .fd = "permit out 17 from any to assigned 1,2,3,4,5,6,7,8,9" },
		{ .fd = "permit out 17 from any 54-53 to assigned" },
		{ .fd = "permit out 17 from any 70000 to assigned" },
		{ .fd = "permit out 17 from !10.0.0.0/8 to assigned" },
		{ .fd = "permit out 17 from assigned to any" },
		{ .fd = "permit out 17 from 10.0.0.0/33 to any" },
		{ .fd = "permit out 17 from 10.0.0.0/ to any" },
		{ .fd = "permit out 17 from 10.0.0.1 to fd00::1" },
		{ .fd = "permit out 17 from any to assigned frag" },
		{ .fd = "permit out 17 from any to" },
		{ .fd = "permit out 17 from any" },
		{ .fd = "permit out" },
		{ .fd = "" },
	};
	unsigned int i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct upf_sdf *f = &msg.create_pdr[0].c.sdf[0];

		n = est_with_flow(cases[i].fd);
		if (!cases[i].ok) {
			if (dec(buf, n) != PFCP_DEC_REJECT ||
			    err.cause != PFCP_CAUSE_RULE_FAILURE || err.ie != PFCP_IE_SDF_FILTER ||
			    err.rule_type != PFCP_RULE_PDR)
				fail_msg("\"%s\" not refused with Cause 73: %u (%s)", cases[i].fd,
					 err.cause, err.why);
			continue;
		}
		if (dec(buf, n) != PFCP_DEC_OK)
			fail_msg("\"%s\": %s", cases[i].fd, err.why);
		assert_int_equal(msg.create_pdr[0].c.n_sdf, 1);
		assert_int_equal(f->any_proto, cases[i].proto < 0);
		if (cases[i].proto >= 0)
			assert_int_equal(f->proto, cases[i].proto);
		assert_int_equal(f->rport_lo, cases[i].rlo);
		assert_int_equal(f->rport_hi, cases[i].rhi);
		assert_int_equal(f->uport_lo, cases[i].ulo);
		assert_int_equal(f->uport_hi, cases[i].uhi);
		assert_false(f->has_tos);
		for (unsigned int side = 0; side < 2; side++) {
			const struct upf_prefix *px = side ? &f->ue : &f->remote;
			const char *want = side ? cases[i].ue : cases[i].remote;
			char a[64], got[80];

			if (want == NULL) {
				assert_int_equal(px->af, 0);
				continue;
			}
			inet_ntop(px->af == 4 ? AF_INET : AF_INET6, px->a, a, sizeof(a));
			snprintf(got, sizeof(got), "%s/%u", a, px->plen);
			assert_string_equal(got, want);
		}
	}
}

/* Write an SDF Filter IE: a Flow Description, and a ToS Traffic Class when tos_mask != 0. */
static void
sdf_ie(struct pfcp_w *w, const char *fd, uint8_t tos, uint8_t tos_mask)
{
	uint8_t v[300];
	size_t l = strlen(fd), o = 4;

	assert_true(l + 6 <= sizeof(v));
	v[0] = 0x01 | (tos_mask != 0 ? 0x02 : 0);
	v[1] = 0;
	v[2] = (uint8_t)(l >> 8);
	v[3] = (uint8_t)l;
	memcpy(v + 4, fd, l);
	o += l;
	if (tos_mask != 0) {
		v[o++] = tos;
		v[o++] = tos_mask;
	}
	pfcp_w_ie_bytes(w, PFCP_IE_SDF_FILTER, v, o);
}

/* A Create PDR 5 whose PDI holds the SDF Filters fds (ToS on the first). */
static int
est_with_flows(const char *const *fds, unsigned int n_fd, uint8_t tos, uint8_t tos_mask)
{
	struct pfcp_w w;
	size_t o, pdi;
	unsigned int i;

	est_begin(&w);
	o = pdr_begin(&w, 5, &pdi);
	for (i = 0; i < n_fd; i++)
		sdf_ie(&w, fds[i], i == 0 ? tos : 0, i == 0 ? tos_mask : 0);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	return est_end(&w);
}

/*
 * Port lists (RFC 6733: ranges separated by commas): one filter per pair
 * of remote and UE ranges, remote-major, each a copy of the rest of the
 * filter (protocol, addresses, ToS); at most UPF_MAX_SDF filters in the PDR
 * after the expansion, counting the PDR's other SDF Filters, else Cause 73
 * naming the PDR.
 */
static void
test_flow_port_lists(void **state)
{
	static const char *const six[] = {
		"permit out 6 from 10.0.0.0/8 80,443,8000-8080 to assigned 1000,2000-2001"
	};
	static const uint16_t rlo[] = { 80, 80, 443, 443, 8000, 8000 };
	static const uint16_t rhi[] = { 80, 80, 443, 443, 8080, 8080 };
	static const uint16_t ulo[] = { 1000, 2000, 1000, 2000, 1000, 2000 };
	static const uint16_t uhi[] = { 1000, 2001, 1000, 2001, 1000, 2001 };
	static const char *const eight[] = { "permit out 17 from any to assigned 1,2,3,4,5,6,7,8" };
	static const char *const fits[] = { "permit out 17 from any 1,2 to any 3,4",
					    "permit out 17 from any 5,6 to any 7,8" };
	static const char *const over[] = { "permit out 17 from any 1,2 to any 3,4",
					    "permit out 17 from any 5-6 to any",
					    "permit out 6 from any 5,6 to any 7,8" };
	const struct pfcp_pdr *p = &msg.create_pdr[0];
	unsigned int i;
	int n;

	(void)state;
	n = est_with_flows(six, 1, 0xb8, 0xfc);
	if (dec(buf, n) != PFCP_DEC_OK)
		fail_msg("%s", err.why);
	assert_int_equal(p->c.n_sdf, 6);
	for (i = 0; i < 6; i++) {
		const struct upf_sdf *f = &p->c.sdf[i];

		assert_false(f->any_proto);
		assert_int_equal(f->proto, 6);
		assert_int_equal(f->remote.af, 4);
		assert_int_equal(f->remote.plen, 8);
		assert_int_equal(f->remote.a[0], 10);
		assert_int_equal(f->ue.af, 0);
		assert_true(f->has_tos);
		assert_int_equal(f->tos, 0xb8);
		assert_int_equal(f->tos_mask, 0xfc);
		assert_int_equal(f->rport_lo, rlo[i]);
		assert_int_equal(f->rport_hi, rhi[i]);
		assert_int_equal(f->uport_lo, ulo[i]);
		assert_int_equal(f->uport_hi, uhi[i]);
	}

	n = est_with_flows(eight, 1, 0, 0);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(p->c.n_sdf, 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(p->c.sdf[i].uport_lo, i + 1);
		assert_int_equal(p->c.sdf[i].uport_hi, i + 1);
		assert_int_equal(p->c.sdf[i].rport_lo, 0);
		assert_int_equal(p->c.sdf[i].rport_hi, 65535);
		assert_false(p->c.sdf[i].has_tos);
	}

	/* Two filters of four each fill the PDR; one more filter is refused. */
	n = est_with_flows(fits, 2, 0, 0);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(p->c.n_sdf, 8);
	assert_int_equal(p->c.sdf[7].rport_lo, 6);
	assert_int_equal(p->c.sdf[7].uport_lo, 8);
	n = est_with_flows(over, 3, 0, 0);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SDF_FILTER);
	assert_int_equal(err.rule_type, PFCP_RULE_PDR);
	assert_int_equal(err.rule_id, 5);
	/* 4 + 1 + 4 > 8: the third is the one that does not fit. */
	assert_non_null(strstr(err.why, "port lists"));
}

/* A Create PDR 6 with the UE IP address Pool Identity IEs v[0..n) (raw values). */
static int
est_with_pools(const char *const *v, const size_t *len, unsigned int n)
{
	struct pfcp_w w;
	size_t o, pdi;
	unsigned int i;

	est_begin(&w);
	o = pdr_begin(&w, 6, &pdi);
	pfcp_w_ie_end(&w, pdi);
	for (i = 0; i < n; i++)
		pfcp_w_ie_bytes(&w, PFCP_IE_UE_IP_POOL_ID, v[i], len[i]);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	return est_end(&w);
}

/* A Create / Update Traffic Endpoint: id, F-TEID CHOOSE (V4) or TEID teid, NI, UE CHV4 or ue4. */
static void
w_te(struct pfcp_w *w, uint16_t type, uint8_t id, uint32_t teid, const char *ni, uint32_t ue4)
{
	size_t o = pfcp_w_ie_begin(w, type), f;

	pfcp_w_ie_u8(w, PFCP_IE_TRAFFIC_ENDPOINT_ID, id);
	f = pfcp_w_ie_begin(w, PFCP_IE_F_TEID);
	if (teid == 0) {
		pfcp_w_raw8(w, 0x05);
	} else {
		pfcp_w_raw8(w, 0x01);
		pfcp_w_raw32(w, teid);
		pfcp_w_raw32(w, ntohl(ip4("192.0.2.1")));
	}
	pfcp_w_ie_end(w, f);
	if (ni != NULL)
		pfcp_w_ie_bytes(w, PFCP_IE_NETWORK_INSTANCE, ni, strlen(ni));
	f = pfcp_w_ie_begin(w, PFCP_IE_UE_IP_ADDRESS);
	pfcp_w_raw8(w, ue4 == 0 ? 0x10 : 0x02);
	if (ue4 != 0)
		pfcp_w_raw32(w, ue4);
	pfcp_w_ie_end(w, f);
	pfcp_w_ie_u8(w, PFCP_IE_QFI, 9);
	pfcp_w_ie_end(w, o);
}

/* A Create PDR whose PDI names Traffic Endpoint te, with extra IE (type, v, n) in the PDI. */
static void
w_pdr_te(struct pfcp_w *w, uint16_t id, uint8_t te, uint16_t type, const void *v, size_t n)
{
	size_t o, pdi;

	o = pdr_begin(w, id, &pdi);
	pfcp_w_ie_u8(w, PFCP_IE_TRAFFIC_ENDPOINT_ID, te);
	if (type != 0)
		pfcp_w_ie_bytes(w, type, v, n);
	pdr_end(w, o, pdi);
}

/* An establishment whose PDR 1 names Traffic Endpoint 7, with IE (type, v, n) in its PDI. */
static int
est_pdi_te(uint16_t type, const void *v, size_t n)
{
	struct pfcp_w w;

	est_begin(&w);
	w_pdr_te(&w, 1, 7, type, v, n);
	far_drop(&w, 1);
	return est_end(&w);
}

/* End an establishment begun with endpoints in it: PDR 1 naming endpoint 1, FAR 1. */
static int
est_te_end(struct pfcp_w *w)
{
	w_pdr_te(w, 1, 1, 0, NULL, 0);
	far_drop(w, 1);
	return est_end(w);
}

/*
 * Traffic Endpoints (PDI optimisation, PDIU): Create in an establishment,
 * Create / Update / Remove in a modification, a PDI naming one. A PDI
 * with a Traffic Endpoint ID and an F-TEID, UE IP Address or Network
 * Instance of its own is Cause 69 (7.5.2.2: they shall not be present);
 * two IDs in one PDI (MTE) and more than PFCP_MAX_TE endpoints in a
 * message are Cause 73; an endpoint without its ID is 66. A Framed-Route
 * is an endpoint's like the rest, and 69 in a PDI naming one.
 */
static void
test_traffic_endpoint(void **state)
{
	static const uint8_t fteid[] = { 0x01, 0, 0, 0, 9, 192, 0, 2, 1 };
	struct pfcp_w w;
	size_t o;
	unsigned int i;
	int n;

	(void)state;
	est_begin(&w);
	w_te(&w, PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 7, 0, "internet", 0);
	w_te(&w, PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 8, 0x1234, NULL, ntohl(ip4("10.45.0.9")));
	w_pdr_te(&w, 1, 7, 0, NULL, 0);
	w_pdr_te(&w, 2, 8, PFCP_IE_QFI, "\x05", 1);
	far_drop(&w, 1);
	n = est_end(&w);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.n_create_te, 2);
	assert_int_equal(msg.create_te[0].c.te_id, 7);
	assert_true(msg.create_te[0].c.fteid_choose);
	assert_int_equal(msg.create_te[0].c.fteid4.af, 4);
	assert_string_equal(msg.create_te[0].ni_name, "internet");
	assert_int_equal(msg.create_te[0].c.ue_choose, UPF_UE_CHOOSE4);
	assert_true(msg.create_te[0].c.has_qfi);
	assert_int_equal(msg.create_te[0].c.qfi, 9);
	assert_int_equal(msg.create_te[0].present &
				 (PFCP_PDR_FTEID | PFCP_PDR_NI | PFCP_PDR_UE_IP | PFCP_PDR_QFI),
			 PFCP_PDR_FTEID | PFCP_PDR_NI | PFCP_PDR_UE_IP | PFCP_PDR_QFI);
	assert_int_equal(msg.create_te[1].c.te_id, 8);
	assert_false(msg.create_te[1].c.fteid_choose);
	assert_int_equal(msg.create_te[1].c.teid, 0x1234);
	assert_ip(&msg.create_te[1].c.fteid4, "192.0.2.1");
	assert_ip(&msg.create_te[1].c.ue4, "10.45.0.9");
	assert_int_equal(msg.create_te[1].present & PFCP_PDR_NI, 0);
	assert_true(msg.create_pdr[0].c.has_te);
	assert_int_equal(msg.create_pdr[0].c.te_id, 7);
	assert_false(msg.create_pdr[0].c.has_fteid);
	assert_int_equal(msg.create_pdr[1].c.te_id, 8);
	assert_int_equal(msg.create_pdr[1].c.qfi, 5); /* A QFI of its own may stay (7.5.2.2). */

	/* A modification: Remove, Update, Create, and an Update PDR naming one. */
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 1, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_REMOVE_TRAFFIC_ENDPOINT);
	pfcp_w_ie_u8(&w, PFCP_IE_TRAFFIC_ENDPOINT_ID, 8);
	pfcp_w_ie_end(&w, o);
	o = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_TRAFFIC_ENDPOINT);
	pfcp_w_ie_u8(&w, PFCP_IE_TRAFFIC_ENDPOINT_ID, 7);
	pfcp_w_ie_bytes(&w, PFCP_IE_NETWORK_INSTANCE, "ims", 3);
	pfcp_w_ie_end(&w, o);
	w_te(&w, PFCP_IE_CREATE_TRAFFIC_ENDPOINT, 9, 0, NULL, 0);
	n = pfcp_w_hdr_end(&w);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.n_remove_te, 1);
	assert_int_equal(msg.remove_te[0], 8);
	assert_int_equal(msg.n_update_te, 1);
	assert_int_equal(msg.update_te[0].c.te_id, 7);
	/* Only what it carries is marked: the agent keeps the rest. */
	assert_int_equal(msg.update_te[0].present, PFCP_PDR_NI);
	assert_string_equal(msg.update_te[0].ni_name, "ims");
	assert_int_equal(msg.n_create_te, 1);
	assert_int_equal(msg.create_te[0].c.te_id, 9);

	/* The PDI's own F-TEID, UE IP Address or Network Instance beside an endpoint: 69. */
	n = est_pdi_te(PFCP_IE_F_TEID, fteid, sizeof(fteid));
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	n = est_pdi_te(PFCP_IE_UE_IP_ADDRESS, "\x06\x0a\x2d\x00\x09", 5);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	n = est_pdi_te(PFCP_IE_NETWORK_INSTANCE, "ims", 3);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	/* Two endpoints in one PDI: multi-access (MTE), not advertised. */
	n = est_pdi_te(PFCP_IE_TRAFFIC_ENDPOINT_ID, "\x08", 1);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	assert_int_equal(err.rule_type, PFCP_RULE_PDR);
	assert_int_equal(err.rule_id, 1);
	/* A Framed-Route in an endpoint is the endpoint's; beside one in a PDI, 69. */
	est_begin(&w);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_TRAFFIC_ENDPOINT);
	pfcp_w_ie_u8(&w, PFCP_IE_TRAFFIC_ENDPOINT_ID, 1);
	pfcp_w_ie_bytes(&w, PFCP_IE_FRAMED_ROUTE, "10.9.0.0/16", 11);
	pfcp_w_ie_end(&w, o);
	n = est_te_end(&w);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.create_te[0].c.n_framed, 1);
	assert_int_equal(msg.create_te[0].c.framed[0].plen, 16);
	assert_int_equal(msg.create_te[0].present & PFCP_PDR_FRAMED, PFCP_PDR_FRAMED);
	n = est_pdi_te(PFCP_IE_FRAMED_IPV6_ROUTE, "2001:db8:9::/48", 15);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	/* Without its ID: 66 naming the ID. */
	est_begin(&w);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_TRAFFIC_ENDPOINT);
	pfcp_w_ie_bytes(&w, PFCP_IE_NETWORK_INSTANCE, "ims", 3);
	pfcp_w_ie_end(&w, o);
	n = est_te_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_TRAFFIC_ENDPOINT_ID);
	/* One more than PFCP_MAX_TE: 73 naming Create Traffic Endpoint. */
	est_begin(&w);
	for (i = 0; i <= PFCP_MAX_TE; i++)
		w_te(&w, PFCP_IE_CREATE_TRAFFIC_ENDPOINT, (uint8_t)i, 0, NULL, 0);
	n = est_te_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_TRAFFIC_ENDPOINT);
}

/*
 * BARs: Create BAR with its Suggested Buffering Packets Count and
 * Downlink Data Notification Delay, Update BAR and Remove BAR of a
 * modification; one without its BAR ID is Cause 66 naming the BAR ID; the
 * Update BAR of a Session Report Response is accepted and marked.
 */
static void
test_bar(void **state)
{
	struct pfcp_w w;
	size_t o, pdi;
	int n;

	(void)state;
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_BAR);
	pfcp_w_ie_u8(&w, PFCP_IE_BAR_ID, 5);
	pfcp_w_ie_u8(&w, PFCP_IE_DL_DATA_NOTIFICATION_DELAY, 3);
	pfcp_w_ie_u8(&w, PFCP_IE_SUGGESTED_BUFFERING_COUNT, 12);
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	if (dec(buf, (size_t)n) != PFCP_DEC_OK)
		fail_msg("%s", err.why);
	assert_int_equal(msg.present & (PFCP_M_CREATE_BAR | PFCP_M_UPDATE_BAR | PFCP_M_REMOVE_BAR),
			 PFCP_M_CREATE_BAR);
	assert_int_equal(msg.create_bar.id, 5);
	assert_true(msg.create_bar.has_count);
	assert_int_equal(msg.create_bar.count, 12);
	assert_true(msg.create_bar.has_ddn_delay);
	assert_int_equal(msg.create_bar.ddn_delay, 3);

	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 1, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_BAR_SMR);
	pfcp_w_ie_u8(&w, PFCP_IE_BAR_ID, 5);
	pfcp_w_ie_u8(&w, PFCP_IE_SUGGESTED_BUFFERING_COUNT, 0);
	pfcp_w_ie_end(&w, o);
	o = pfcp_w_ie_begin(&w, PFCP_IE_REMOVE_BAR);
	pfcp_w_ie_u8(&w, PFCP_IE_BAR_ID, 4);
	pfcp_w_ie_end(&w, o);
	n = pfcp_w_hdr_end(&w);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.present & (PFCP_M_CREATE_BAR | PFCP_M_UPDATE_BAR | PFCP_M_REMOVE_BAR),
			 PFCP_M_UPDATE_BAR | PFCP_M_REMOVE_BAR);
	assert_int_equal(msg.update_bar.id, 5);
	assert_true(msg.update_bar.has_count);
	assert_int_equal(msg.update_bar.count, 0);
	assert_false(msg.update_bar.has_ddn_delay);
	assert_int_equal(msg.remove_bar, 4);

	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 1, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_BAR);
	pfcp_w_ie_u8(&w, PFCP_IE_SUGGESTED_BUFFERING_COUNT, 12);
	pfcp_w_ie_end(&w, o);
	n = pfcp_w_hdr_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_BAR_ID);

	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_REPORT_RESP, true, 1, 1);
	pfcp_w_ie_u8(&w, PFCP_IE_CAUSE, PFCP_CAUSE_ACCEPTED);
	o = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_BAR_SRR);
	pfcp_w_ie_u8(&w, PFCP_IE_BAR_ID, 5);
	pfcp_w_ie_end(&w, o);
	n = pfcp_w_hdr_end(&w);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_true(msg.present & PFCP_M_UPDATE_BAR_SRR);
}

/* A Create URR 4 with triggers trig and, when v is not NULL, the IE type holding v (raw). */
static int
est_with_urr_ie(uint16_t trig, uint16_t type, const void *v, size_t vn)
{
	struct pfcp_w w;
	size_t o, pdi, r;

	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 4);
	pfcp_w_ie_u8(&w, PFCP_IE_MEASUREMENT_METHOD, UPF_MM_VOLUM);
	r = pfcp_w_ie_begin(&w, PFCP_IE_REPORTING_TRIGGERS);
	pfcp_w_raw8(&w, (uint8_t)trig);
	pfcp_w_raw8(&w, (uint8_t)(trig >> 8));
	pfcp_w_ie_end(&w, r);
	if (v != NULL)
		pfcp_w_ie_bytes(&w, type, v, vn);
	pfcp_w_ie_end(&w, o);
	return est_end(&w);
}

/* A Create URR with triggers trig and, when qht != 0, a Quota Holding Time. */
static int
est_with_urr(uint16_t trig, uint32_t qht)
{
	const uint8_t v[4] = { (uint8_t)(qht >> 24), (uint8_t)(qht >> 16), (uint8_t)(qht >> 8),
			       (uint8_t)qht };

	return est_with_urr_ie(trig, PFCP_IE_QUOTA_HOLDING_TIME, qht != 0 ? v : NULL, 4);
}

/*
 * START and QUHTI with its Quota Holding Time decode; QUHTI, QUVTI or
 * LIUSA without its IE is 67 naming it.
 */
static void
test_urr_start_holding(void **state)
{
	int n;

	(void)state;
	n = est_with_urr(UPF_RT_START | UPF_RT_QUHTI, 45);
	if (dec(buf, (size_t)n) != PFCP_DEC_OK)
		fail_msg("%s", err.why);
	assert_int_equal(msg.n_create_urr, 1);
	assert_int_equal(msg.create_urr[0].c.triggers, UPF_RT_START | UPF_RT_QUHTI);
	assert_true(msg.create_urr[0].c.has_qht);
	assert_int_equal(msg.create_urr[0].c.qht_s, 45);
	assert_true(msg.create_urr[0].present & PFCP_URR_QHT);
	n = est_with_urr(UPF_RT_QUHTI, 0);
	REJECTS(buf, n, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_QUOTA_HOLDING_TIME);
	/* QUVTI (octet 6 bit 8) needs its Quota Validity Time too. */
	n = est_with_urr(UPF_RT_QUVTI, 0);
	REJECTS(buf, n, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_QUOTA_VALIDITY_TIME);
	/* LIUSA needs a Linked URR ID. */
	n = est_with_urr(UPF_RT_LIUSA, 0);
	REJECTS(buf, n, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_LINKED_URR_ID);
}

/* A Create URR 4 with DROTH and the Dropped DL Traffic Threshold value v (raw; NULL: none). */
static int
est_with_droth(const void *v, size_t vn)
{
	return est_with_urr_ie(UPF_RT_DROTH, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD, v, vn);
}

/*
 * DROTH with its Dropped DL Traffic Threshold (8.2.49): packets (DLPA),
 * bytes (DLBY) or both, in that order. Without the IE: 67; neither flag,
 * or a count cut off: 69.
 */
static void
test_urr_droth(void **state)
{
	static const uint8_t both[17] = {
		0x03, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0x12, 0x34
	};
	static const uint8_t bytes[9] = { 0x02, 0, 0, 0, 0, 0, 0, 0x01, 0 };
	const struct upf_urr_conf *u = &msg.create_urr[0].c;
	int n;

	(void)state;
	n = est_with_droth(both, sizeof(both));
	if (dec(buf, (size_t)n) != PFCP_DEC_OK)
		fail_msg("%s", err.why);
	assert_int_equal(u->triggers, UPF_RT_DROTH);
	assert_int_equal(u->droth_flags, UPF_DROTH_DLPA | UPF_DROTH_DLBY);
	assert_int_equal(u->droth_pkts, 7);
	assert_int_equal(u->droth_bytes, 0x1234);
	assert_true(msg.create_urr[0].present & PFCP_URR_DROTH);
	/* Bytes alone: the count right after the flags. */
	n = est_with_droth(bytes, sizeof(bytes));
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(u->droth_flags, UPF_DROTH_DLBY);
	assert_int_equal(u->droth_bytes, 256);
	assert_int_equal(u->droth_pkts, 0);
	n = est_with_droth(NULL, 0);
	REJECTS(buf, n, PFCP_CAUSE_CONDITIONAL_IE_MISSING, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD);
	n = est_with_droth("\x00", 1);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD);
	n = est_with_droth(both, sizeof(both) - 1);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD);
	n = est_with_droth(bytes, 8);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD);
}

/*
 * UE IP Address with the IPv6 Prefix Delegation Bits (IPv6D) and the IPv6
 * Prefix Length (IP6PL) fields (8.2.62): a /64, or a delegated prefix of
 * up to 16 bits (a /48), kept with its host bits zero, and CHV6 asking for
 * one (the agent checks that the pool hands out that length); a shorter
 * prefix or a longer length is Cause 73 naming the PDR;
 * a field cut off, out of range, without an IPv6 family or disagreeing
 * with the other is Cause 69.
 */
static void
test_ue_ipv6_prefix_fields(void **state)
{
	/* fd00:45:0:37:55::, an interface identifier beyond the /64. */
	static const uint8_t a6[16] = { 0xfd, 0x00, 0x00, 0x45, 0, 0, 0, 0x37, 0, 0x55 };
	static const struct {
		uint8_t flags;
		int n_tail;
		uint8_t tail[2];
		uint8_t cause; /* 0: accepted */
		uint8_t dbits; /* Accepted with V6: the delegation bits, and */
		const char *ue6; /* the prefix kept. */
	} c[] = {
		{ 0x09, 1, { 0 }, 0, 0, "fd00:45:0:37:55::" }, /* V6, IPv6D 0 bits */
		{ 0x41, 1, { 64 }, 0, 0, "fd00:45:0:37:55::" }, /* V6, IP6PL /64 */
		{ 0x49, 2, { 0, 64 }, 0, 0, "fd00:45:0:37:55::" }, /* V6, both */
		{ 0x60, 1, { 64 }, 0, 0, NULL }, /* CHV6, IP6PL /64 (no address) */
		{ 0x09, 1, { 8 }, 0, 8, "fd00:45::" }, /* a delegated /56 */
		{ 0x09, 1, { 4 }, 0, 4, "fd00:45:0:30::" }, /* a /60 */
		{ 0x41, 1, { 56 }, 0, 8, "fd00:45::" }, /* a /56 by its length */
		{ 0x49, 2, { 7, 57 }, 0, 7, "fd00:45::" }, /* both, agreeing */
		{ 0x0d, 1, { 1 }, 0, 1, "fd00:45:0:36::" }, /* S/D set: a /63 */
		{ 0x09, 1, { 16 }, 0, 16, "fd00:45::" }, /* a /48 */
		{ 0x41, 1, { 52 }, 0, 12, "fd00:45::" }, /* a /52 */
		{ 0x09, 1, { 17 }, PFCP_CAUSE_RULE_FAILURE, 0, NULL }, /* a /47 */
		{ 0x41, 1, { 40 }, PFCP_CAUSE_RULE_FAILURE, 0, NULL },
		{ 0x41, 1, { 128 }, PFCP_CAUSE_RULE_FAILURE, 0, NULL },
		{ 0x41, 1, { 65 }, PFCP_CAUSE_RULE_FAILURE, 0, NULL },
		{ 0x28, 1, { 4 }, 0, 4, NULL }, /* CHV6 for a /60 (the agent checks the pool) */
		{ 0x60, 1, { 56 }, 0, 8, NULL }, /* CHV6 for a /56 by its length */
		{ 0x28, 1, { 17 }, PFCP_CAUSE_RULE_FAILURE, 0, NULL }, /* CHV6 for a /47 */
		{ 0x49, 2, { 0, 60 }, PFCP_CAUSE_MANDATORY_IE_INCORRECT, 0, NULL }, /* disagree */
		{ 0x41, 1, { 129 }, PFCP_CAUSE_MANDATORY_IE_INCORRECT, 0, NULL },
		{ 0x09, 1, { 65 }, PFCP_CAUSE_MANDATORY_IE_INCORRECT, 0, NULL },
		{ 0x49, 1, { 0 }, PFCP_CAUSE_MANDATORY_IE_INCORRECT, 0, NULL }, /* IP6PL cut off */
		{ 0x41, 0, { 0 }, PFCP_CAUSE_MANDATORY_IE_INCORRECT, 0, NULL },
		{ 0x42, 1, { 64 }, PFCP_CAUSE_MANDATORY_IE_INCORRECT, 0, NULL }, /* V4 only */
		{ 0x18, 1, { 0 }, PFCP_CAUSE_MANDATORY_IE_INCORRECT, 0, NULL }, /* CHV4 only */
	};
	uint8_t v[1 + 4 + 16 + 2];
	unsigned int i;
	size_t l;
	int n;

	(void)state;
	for (i = 0; i < RTE_DIM(c); i++) {
		l = 0;
		v[l++] = c[i].flags;
		if (c[i].flags & 0x02) {
			memcpy(v + l, "\x0a\x2d\x00\x01", 4);
			l += 4;
		}
		if (c[i].flags & 0x01) {
			memcpy(v + l, a6, sizeof(a6));
			l += sizeof(a6);
		}
		memcpy(v + l, c[i].tail, (size_t)c[i].n_tail);
		l += (size_t)c[i].n_tail;
		n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, v, l);
		if (c[i].cause != 0) {
			REJECTS(buf, n, c[i].cause, PFCP_IE_UE_IP_ADDRESS);
			if (c[i].cause == PFCP_CAUSE_RULE_FAILURE) {
				assert_int_equal(err.rule_type, PFCP_RULE_PDR);
				assert_int_equal(err.rule_id, 1);
			}
			continue;
		}
		if (dec(buf, (size_t)n) != PFCP_DEC_OK)
			fail_msg("case %u: cause %u (%s)", i, err.cause, err.why);
		if (c[i].flags & 0x01) {
			assert_ip(&msg.create_pdr[0].c.ue6, c[i].ue6);
			assert_int_equal(msg.create_pdr[0].c.ue6_dbits, c[i].dbits);
			assert_int_equal(msg.create_pdr[0].c.ue_choose, 0);
		} else {
			assert_int_equal(msg.create_pdr[0].c.ue6.af, 0);
			assert_int_equal(msg.create_pdr[0].c.ue6_dbits, c[i].dbits);
			assert_int_equal(msg.create_pdr[0].c.ue_choose, UPF_UE_CHOOSE6);
		}
	}
	/* A /48 whose address has bits set in both of the /64's last two
	 * octets: all 16 host bits are cleared, not only the last octet's. */
	v[0] = 0x09;
	memcpy(v + 1, a6, sizeof(a6));
	v[7] = 0x12;
	v[17] = 16;
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, v, 18);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_ip(&msg.create_pdr[0].c.ue6, "fd00:45::");
	assert_int_equal(msg.create_pdr[0].c.ue6_dbits, 16);
}

/*
 * UE IP address Pool Identity (8.2.153): a 2-octet length, then the text.
 * Two are kept (an IPv4 and an IPv6 pool); a length past the IE is Cause
 * 68 (invalid length), an empty or 1-octet one 69, one the model cannot hold (a third,
 * over 63 octets, not printable) 73 naming the PDR.
 */
static void
test_pool_identity(void **state)
{
	static const char *const two[] = { "\x00\x06pool-a", "\x00\x03v6p" };
	static const size_t two_len[] = { 8, 5 };
	static const struct {
		const char *v;
		size_t len;
		uint8_t cause;
	} bad[] = {
		{ "\x00\x07pool-a", 8, PFCP_CAUSE_INVALID_LENGTH },
		{ "\x00\x00", 2, PFCP_CAUSE_MANDATORY_IE_INCORRECT },
		{ "\x00\x02"
		  "a\x01",
		  4, PFCP_CAUSE_RULE_FAILURE },
		{ "\x00\x02"
		  "a ",
		  4, PFCP_CAUSE_RULE_FAILURE },
		{ "\x00", 1, PFCP_CAUSE_MANDATORY_IE_INCORRECT },
	};
	char longest[2 + 64];
	const char *three[] = { two[0], two[1], two[0] };
	const size_t three_len[] = { 8, 5, 8 };
	const char *one[1];
	size_t one_len[1];
	unsigned int i;
	int n;

	(void)state;
	n = est_with_pools(two, two_len, 2);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(msg.create_pdr[0].n_pool_id, 2);
	assert_string_equal(msg.create_pdr[0].pool_id[0], "pool-a");
	assert_string_equal(msg.create_pdr[0].pool_id[1], "v6p");
	n = est_with_pools(three, three_len, 3);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_POOL_ID);
	assert_int_equal(err.rule_id, 6);
	for (i = 0; i < RTE_DIM(bad); i++) {
		one[0] = bad[i].v;
		one_len[0] = bad[i].len;
		n = est_with_pools(one, one_len, 1);
		REJECTS(buf, n, bad[i].cause, PFCP_IE_UE_IP_POOL_ID);
	}
	/* 63 octets fit; 64 do not. */
	memset(longest, 'p', sizeof(longest));
	longest[0] = 0;
	longest[1] = 63;
	one[0] = longest;
	one_len[0] = 65;
	n = est_with_pools(one, one_len, 1);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(strlen(msg.create_pdr[0].pool_id[0]), 63);
	longest[1] = 64;
	one_len[0] = 66;
	n = est_with_pools(one, one_len, 1);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_POOL_ID);
}

/* Smaller IE rules: a repeated single IE counts once (the first); faulty Node IDs, UE addresses,
 * QFIs, measurement methods and volumes. */
static void
test_ie_details(void **state)
{
	struct pfcp_w w;
	size_t o, pdi;
	int n;

	(void)state;
	/* Two Precedence IEs: the first is taken, the second ignored (TS 29.244 7.6). */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pfcp_w_ie_end(&w, pdi);
	pfcp_w_ie_u32(&w, PFCP_IE_PRECEDENCE, 99);
	pfcp_w_ie_end(&w, o);
	far_drop(&w, 1);
	n = est_end(&w);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(msg.create_pdr[0].c.precedence, 10);

	/* Node IDs: IPv4 of 4 octets, IPv6 of 16, an FQDN "a..b", type 3. */
	{
		static const struct {
			const char *v;
			size_t n;
		} bad[] = {
			{ "\x00\x0a\x00\x00", 4 },
			{ "\x01\xfd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 16 },
			{ "\x02\x01"
			  "a\x00",
			  4 },
			{ "\x03\x01\x02\x03\x04", 5 },
		};
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			pfcp_w_init(&w, buf, sizeof(buf));
			pfcp_w_hdr_begin(&w, PFCP_ASSOC_RELEASE_REQ, false, 0, 1);
			pfcp_w_ie_bytes(&w, PFCP_IE_NODE_ID, bad[i].v, bad[i].n);
			n = pfcp_w_hdr_end(&w);
			REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_NODE_ID);
		}
	}

	/* UE IP Address: IPv6D without its address or bits, no family, short, the
	 * same family twice; the other family adds. */
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x09", 1);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x04", 1);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	n = est_with_pdi_ie(PFCP_IE_UE_IP_ADDRESS, "\x02\x0a\x2d\x00", 4);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_UE_IP_ADDRESS);
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pfcp_w_ie_bytes(&w, PFCP_IE_UE_IP_ADDRESS, "\x02\x0a\x2d\x00\x01", 5);
	pfcp_w_ie_bytes(&w, PFCP_IE_UE_IP_ADDRESS,
			"\x01\xfd\x00\x00\x45\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01", 17);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = est_end(&w);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_ip(&msg.create_pdr[0].c.ue4, "10.45.0.1");
	assert_ip(&msg.create_pdr[0].c.ue6, "fd00:45::1");
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pfcp_w_ie_bytes(&w, PFCP_IE_UE_IP_ADDRESS, "\x02\x0a\x2d\x00\x01", 5);
	pfcp_w_ie_bytes(&w, PFCP_IE_UE_IP_ADDRESS, "\x02\x0a\x2d\x00\x02", 5);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);

	/* Two different QFIs in one PDI; the same one twice is one. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pfcp_w_ie_u8(&w, PFCP_IE_QFI, 5);
	pfcp_w_ie_u8(&w, PFCP_IE_QFI, 5);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	n = est_end(&w);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	buf[n - 18] = 6; /* the second QFI's value: PDI ends there, FAR (17 bytes) follows */
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_QFI);

	/* Measurement Method EVENT; a Volume Quota with no flag. */
	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 4);
	pfcp_w_ie_u8(&w, PFCP_IE_REPORTING_TRIGGERS, 0);
	pfcp_w_ie_bytes(&w, PFCP_IE_VOLUME_QUOTA, "\x00", 1);
	pfcp_w_ie_u8(&w, PFCP_IE_MEASUREMENT_METHOD, 0x04);
	pfcp_w_ie_end(&w, o);
	n = est_end(&w);
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_VOLUME_QUOTA);
	buf[n - 6] = 0x01; /* the quota's flags: TOVOL, and no value */
	REJECTS(buf, n, PFCP_CAUSE_MANDATORY_IE_INCORRECT, PFCP_IE_VOLUME_QUOTA);

	/* Session Report Response flags. */
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_REPORT_RESP, true, 5, 1);
	pfcp_w_ie_u8(&w, PFCP_IE_CAUSE, PFCP_CAUSE_SESSION_NOT_FOUND);
	pfcp_w_ie_u8(&w, PFCP_IE_PFCPSRRSP_FLAGS, 0x01);
	n = pfcp_w_hdr_end(&w);
	assert_int_equal(dec(buf, n), PFCP_DEC_OK);
	assert_int_equal(msg.cause, PFCP_CAUSE_SESSION_NOT_FOUND);
	assert_int_equal(msg.srrsp_flags, 0x01);
}

/* ---- Messages from scapy (make_vectors.py) -------------------------- */

static void
test_vector_node_messages(void **state)
{
	uint8_t b[512];
	size_t n;

	(void)state;
	n = load("heartbeat_req", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_HEARTBEAT_REQ);
	assert_false(msg.h.s);
	assert_int_equal(msg.h.seq, 1);
	assert_int_equal(msg.recovery_ts, 3900000000u);
	assert_int_equal(msg.present, PFCP_M_RECOVERY);

	n = load("assoc_setup_req", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_ASSOC_SETUP_REQ);
	assert_int_equal(msg.h.seq, 2);
	assert_int_equal(msg.node_id.type, PFCP_NODE_ID_IPV4);
	assert_ip(&msg.node_id.ip, "10.0.0.5");
	assert_int_equal(msg.recovery_ts, 3900000001u);
	assert_int_equal(msg.present, PFCP_M_NODE_ID | PFCP_M_RECOVERY | PFCP_M_CP_FEATURES);
	assert_int_equal(msg.cp_features, 0x01); /* LOAD */

	n = load("assoc_setup_req_fqdn", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.node_id.type, PFCP_NODE_ID_FQDN);
	assert_string_equal(msg.node_id.fqdn, "smf.example.org");
	assert_int_equal(msg.recovery_ts, 3900000002u);

	n = load("assoc_update_req", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_ASSOC_UPDATE_REQ);
	assert_ip(&msg.node_id.ip, "fd00::5");
	assert_true(msg.present & PFCP_M_ASSOC_REL_REQ);
	assert_int_equal(msg.assoc_rel_req & 0x01, 1);
	assert_int_equal(msg.graceful_rel, 1 << 5 | 3);

	n = load("assoc_release_req", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_ASSOC_RELEASE_REQ);
	assert_ip(&msg.node_id.ip, "10.0.0.5");

	n = load("sess_del_req", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_SESS_DEL_REQ);
	assert_true(msg.h.s);
	assert_int_equal(msg.h.seid, 0x42);
	assert_int_equal(msg.h.seq, 102);

	n = load("sess_report_resp", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_SESS_REPORT_RESP);
	assert_int_equal(msg.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(msg.h.seq, 103);
}

static void
test_vector_sess_est(void **state)
{
	const struct pfcp_pdr *p;
	const struct pfcp_far *f;
	const struct pfcp_qer *q;
	const struct pfcp_urr *u;
	uint8_t b[2048];
	size_t n;

	(void)state;
	n = load("sess_est_req", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_SESS_EST_REQ);
	assert_int_equal(msg.h.seid, 0);
	assert_int_equal(msg.h.seq, 100);
	assert_ip(&msg.node_id.ip, "10.0.0.5");
	assert_int_equal(msg.cp_fseid.seid, 0x1122334455667788ull);
	assert_ip(&msg.cp_fseid.v4, "10.0.0.5");
	assert_int_equal(msg.cp_fseid.v6.af, 0);
	assert_int_equal(msg.pdn_type, 1);
	assert_int_equal(msg.n_create_pdr, 2);
	assert_int_equal(msg.n_create_far, 2);
	assert_int_equal(msg.n_create_qer, 1);
	assert_int_equal(msg.n_create_urr, 1);

	p = &msg.create_pdr[0];
	assert_int_equal(p->c.id, 1);
	assert_int_equal(p->c.precedence, 100);
	assert_int_equal(p->c.src_iface, UPF_IF_ACCESS);
	assert_true(p->c.has_fteid && p->c.fteid_choose && p->c.has_choose_id);
	assert_int_equal(p->c.choose_id, 7);
	assert_int_equal(p->c.fteid4.af, 4);
	assert_int_equal(p->c.fteid6.af, 0);
	assert_string_equal(p->ni_name, "internet");
	assert_int_equal(p->c.ni, UPF_NI_NONE);
	assert_ip(&p->c.ue4, "10.45.0.2");
	assert_false(p->ue_sd);
	assert_true(p->c.has_qfi);
	assert_int_equal(p->c.qfi, 9);
	assert_true(p->c.outer_hdr_removal);
	assert_true(p->c.has_far);
	assert_int_equal(p->c.far_id, 1);
	assert_int_equal(p->c.n_qer, 1);
	assert_int_equal(p->c.qer_id[0], 1);
	assert_int_equal(p->c.n_urr, 1);
	assert_int_equal(p->c.urr_id[0], 1);
	assert_int_equal(p->c.n_sdf, 1);
	assert_false(p->c.sdf[0].any_proto);
	assert_int_equal(p->c.sdf[0].proto, 17);
	assert_int_equal(p->c.sdf[0].remote.af, 4);
	assert_int_equal(p->c.sdf[0].remote.plen, 24);
	assert_memory_equal(p->c.sdf[0].remote.a, "\x08\x08\x08\x00", 4);
	assert_int_equal(p->c.sdf[0].rport_lo, 53);
	assert_int_equal(p->c.sdf[0].rport_hi, 53);
	assert_int_equal(p->c.sdf[0].ue.af, 0);
	assert_int_equal(p->c.sdf[0].uport_lo, 1000);
	assert_int_equal(p->c.sdf[0].uport_hi, 2000);
	assert_int_equal(p->present,
			 PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_OHR |
				 PFCP_PDR_FAR_ID | PFCP_PDR_QER_ID | PFCP_PDR_URR_ID |
				 PFCP_PDR_UE_IP | PFCP_PDR_NI | PFCP_PDR_FTEID | PFCP_PDR_QFI);

	p = &msg.create_pdr[1];
	assert_int_equal(p->c.id, 2);
	assert_int_equal(p->c.precedence, 200);
	assert_int_equal(p->c.src_iface, UPF_IF_CORE);
	assert_false(p->c.has_fteid);
	assert_true(p->ue_sd);
	assert_ip(&p->c.ue4, "10.45.0.2");
	assert_false(p->c.outer_hdr_removal);
	assert_int_equal(p->c.far_id, 2);
	assert_int_equal(p->c.n_sdf, 1);
	assert_true(p->c.sdf[0].any_proto);
	assert_true(p->c.sdf[0].has_tos);
	assert_int_equal(p->c.sdf[0].tos, 0xb8);
	assert_int_equal(p->c.sdf[0].tos_mask, 0xfc);
	assert_int_equal(p->c.sdf[0].rport_hi, 65535);

	f = &msg.create_far[0];
	assert_int_equal(f->c.id, 1);
	assert_int_equal(f->c.apply, UPF_FAR_FORW);
	assert_int_equal(f->c.dst_iface, UPF_IF_CORE);
	assert_string_equal(f->ni_name, "internet");
	assert_int_equal(f->c.ohc, 0);
	assert_int_equal(f->present,
			 PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD | PFCP_FAR_DST_IFACE |
				 PFCP_FAR_NI);
	f = &msg.create_far[1];
	assert_int_equal(f->c.id, 2);
	assert_int_equal(f->c.dst_iface, UPF_IF_ACCESS);
	assert_int_equal(f->c.ohc, UPF_OHC_GTPU_UDP_IPV4);
	assert_int_equal(f->c.ohc_teid, 0xabcdef01u);
	assert_ip(&f->c.ohc_peer, "192.168.3.2");
	assert_int_equal(f->c.ni, UPF_NI_NONE);

	q = &msg.create_qer[0];
	assert_int_equal(q->c.id, 1);
	assert_false(q->c.gate_ul_closed);
	assert_true(q->c.gate_dl_closed);
	assert_int_equal(q->c.mbr_ul, 100000);
	assert_int_equal(q->c.mbr_dl, 200000);
	assert_int_equal(q->c.gbr_ul, 1000);
	assert_int_equal(q->c.gbr_dl, 2000);
	assert_true(q->c.has_qfi);
	assert_int_equal(q->c.qfi, 9);

	u = &msg.create_urr[0];
	assert_int_equal(u->c.id, 1);
	assert_int_equal(u->c.method, UPF_MM_VOLUM | UPF_MM_DURAT);
	assert_int_equal(u->c.triggers, UPF_RT_PERIO | UPF_RT_VOLTH | UPF_RT_VOLQU);
	assert_int_equal(u->c.period_s, 60);
	assert_true(u->c.has_vol_thresh);
	assert_int_equal(u->c.vol_thresh.flags, UPF_VOL_TOTAL);
	assert_int_equal(u->c.vol_thresh.total, 1000000);
	assert_true(u->c.has_vol_quota);
	assert_int_equal(u->c.vol_quota.flags, UPF_VOL_TOTAL);
	assert_int_equal(u->c.vol_quota.total, 5000000);
	assert_false(u->c.has_time_thresh);
}

static void
test_vector_sess_est_v6(void **state)
{
	const struct pfcp_pdr *p;
	uint8_t b[2048];
	size_t n;

	(void)state;
	n = load("sess_est_req_v6", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.node_id.type, PFCP_NODE_ID_IPV6);
	assert_int_equal(msg.cp_fseid.seid, 0x0102030405060708ull);
	assert_int_equal(msg.cp_fseid.v4.af, 0);
	assert_ip(&msg.cp_fseid.v6, "fd00::5");
	p = &msg.create_pdr[0];
	assert_int_equal(p->c.id, 11);
	assert_true(p->c.has_fteid && !p->c.fteid_choose);
	assert_int_equal(p->c.teid, 0x100);
	assert_ip(&p->c.fteid6, "fd00:3::1");
	assert_ip(&p->c.ue6, "fd00:45::1");
	assert_int_equal(p->c.ue4.af, 0);
	assert_true(p->c.outer_hdr_removal);
	assert_int_equal(p->c.sdf[0].proto, 6);
	assert_int_equal(p->c.sdf[0].remote.af, 6);
	assert_int_equal(p->c.sdf[0].remote.plen, 32);
	assert_memory_equal(p->c.sdf[0].remote.a, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	assert_int_equal(p->c.sdf[0].rport_lo, 443);
	assert_int_equal(p->c.sdf[0].ue.plen, 64);
	assert_memory_equal(p->c.sdf[0].ue.a, "\xfd\x00\x00\x45\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	assert_int_equal(msg.n_create_far, 3);
	assert_int_equal(msg.create_far[1].c.ohc, UPF_OHC_GTPU_UDP_IPV6);
	assert_int_equal(msg.create_far[1].c.ohc_teid, 0x200);
	assert_ip(&msg.create_far[1].c.ohc_peer, "fd00:3::2");
	assert_int_equal(msg.create_far[2].c.apply, UPF_FAR_BUFF | UPF_FAR_NOCP);
	assert_false(msg.create_far[2].present & PFCP_FAR_FWD);
}

static void
test_vector_sess_mod(void **state)
{
	uint8_t b[2048];
	size_t n;

	(void)state;
	n = load("sess_mod_req", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_SESS_MOD_REQ);
	assert_int_equal(msg.h.seid, 0x42);
	assert_int_equal(msg.h.seq, 101);
	assert_false(msg.present & PFCP_M_CP_FSEID);
	assert_int_equal(msg.n_remove_pdr, 1);
	assert_int_equal(msg.remove_pdr[0], 2);
	assert_int_equal(msg.n_remove_far, 1);
	assert_int_equal(msg.remove_far[0], 2);
	assert_int_equal(msg.n_remove_qer, 1);
	assert_int_equal(msg.remove_qer[0], 5);
	assert_int_equal(msg.n_remove_urr, 1);
	assert_int_equal(msg.remove_urr[0], 6);
	assert_int_equal(msg.n_create_pdr, 1);
	assert_int_equal(msg.create_pdr[0].c.id, 3);
	assert_int_equal(msg.n_create_far, 1);
	assert_int_equal(msg.create_far[0].c.apply, UPF_FAR_DROP);

	assert_int_equal(msg.n_update_pdr, 1);
	assert_int_equal(msg.update_pdr[0].c.id, 1);
	assert_int_equal(msg.update_pdr[0].present,
			 PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_FAR_ID);
	assert_int_equal(msg.update_pdr[0].c.precedence, 10);
	assert_int_equal(msg.update_pdr[0].c.far_id, 3);

	assert_int_equal(msg.n_update_far, 1);
	assert_int_equal(msg.update_far[0].c.id, 1);
	assert_int_equal(msg.update_far[0].present,
			 PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD | PFCP_FAR_OHC |
				 PFCP_FAR_SNDEM);
	assert_int_equal(msg.update_far[0].c.ohc_teid, 0x55);
	assert_ip(&msg.update_far[0].c.ohc_peer, "1.2.3.4");

	assert_int_equal(msg.n_update_qer, 1);
	assert_int_equal(msg.update_qer[0].present, PFCP_QER_ID | PFCP_QER_GATE);
	assert_true(msg.update_qer[0].c.gate_ul_closed);
	assert_false(msg.update_qer[0].c.gate_dl_closed);

	assert_int_equal(msg.n_update_urr, 1);
	assert_int_equal(msg.update_urr[0].present, PFCP_URR_ID | PFCP_URR_TIME_THRESH);
	assert_int_equal(msg.update_urr[0].c.time_thresh_s, 30);

	assert_int_equal(msg.n_query_urr, 1);
	assert_int_equal(msg.query_urr[0], 1);
	assert_int_equal(msg.smreq_flags, PFCP_SMREQ_QAURR);
}

static void
test_vector_refused(void **state)
{
	uint8_t b[2048];
	size_t n;

	(void)state;
	n = load("sess_est_req_spi", b, sizeof(b));
	REJECTS(b, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SDF_FILTER);
	assert_int_equal(err.rule_type, PFCP_RULE_PDR);
	assert_int_equal(err.rule_id, 5);
	assert_int_equal(msg.h.seq, 120);
	/* scapy's port list "53,54": two filters, one per port (test_flow_port_lists). */
	n = load("sess_est_req_portlist", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.create_pdr[0].c.id, 5);
	assert_int_equal(msg.create_pdr[0].c.n_sdf, 2);
	assert_int_equal(msg.create_pdr[0].c.sdf[0].rport_lo, 53);
	assert_int_equal(msg.create_pdr[0].c.sdf[0].rport_hi, 53);
	assert_int_equal(msg.create_pdr[0].c.sdf[1].rport_lo, 54);
	assert_int_equal(msg.create_pdr[0].c.sdf[1].rport_hi, 54);
	assert_int_equal(msg.create_pdr[0].c.sdf[1].uport_hi, 65535);
	/* scapy-built volumes by direction. */
	n = load("sess_est_req_voldir", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.n_create_urr, 1);
	assert_int_equal(msg.create_urr[0].c.vol_thresh.flags,
			 UPF_VOL_TOTAL | UPF_VOL_UL | UPF_VOL_DL);
	assert_int_equal(msg.create_urr[0].c.vol_thresh.total, 3000);
	assert_int_equal(msg.create_urr[0].c.vol_thresh.ul, 1000);
	assert_int_equal(msg.create_urr[0].c.vol_thresh.dl, 2000);
	assert_int_equal(msg.create_urr[0].c.vol_quota.flags, UPF_VOL_DL);
	assert_int_equal(msg.create_urr[0].c.vol_quota.dl, 77777);
	/* scapy-built Pool Identities, two (an IPv4 and an IPv6 pool). */
	n = load("sess_est_req_pool", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_int_equal(msg.create_pdr[0].n_pool_id, 2);
	assert_string_equal(msg.create_pdr[0].pool_id[0], "pool-a");
	assert_string_equal(msg.create_pdr[0].pool_id[1], "pool-b.ipv6");
	/* A delegated /56 (IPv6D 8 bits), kept as the prefix. */
	n = load("sess_est_req_delegated", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_ip(&msg.create_pdr[0].c.ue6, "fd00:45:0:700::");
	assert_int_equal(msg.create_pdr[0].c.ue6_dbits, 8);
	assert_true(msg.create_pdr[0].ue_sd);
	n = load("sess_est_req_nofar", b, sizeof(b));
	REJECTS(b, n, PFCP_CAUSE_MANDATORY_IE_MISSING, PFCP_IE_CREATE_FAR);
	/* DUPL decodes, marked for the agent to refuse. */
	n = load("sess_est_req_dupl", b, sizeof(b));
	assert_int_equal(dec(b, n), PFCP_DEC_OK);
	assert_true(msg.create_far[0].c.apply & UPF_FAR_DUPL);
	assert_true(msg.create_far[0].present & PFCP_FAR_DUPL);
}

/* ---- Round trips ---------------------------------------------------- */

/* Requests written with the writer decode to what was written. */
static void
test_roundtrip_request(void **state)
{
	struct pfcp_w w;
	size_t o, o2, o3;
	int n;

	(void)state;
	pfcp_w_init(&w, buf, sizeof(buf));
	pfcp_w_hdr_begin(&w, PFCP_SESS_MOD_REQ, true, 0xfeedfacecafebeefull, 0xabcdef);
	pfcp_w_fseid(&w,
		     &(struct pfcp_fseid){ .seid = 99,
					   .v6 = { .af = 6, .a = { 0xfd, [15] = 9 } } });
	o = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_PDR);
	pfcp_w_ie_u16(&w, PFCP_IE_PDR_ID, 65535);
	o2 = pfcp_w_ie_begin(&w, PFCP_IE_PDI);
	pfcp_w_ie_u8(&w, PFCP_IE_SOURCE_INTERFACE, UPF_IF_ACCESS);
	pfcp_w_fteid(&w, 0xdeadbeef, &(struct upf_ip){ .af = 4, .a = { 10, 0, 0, 1 } }, NULL);
	pfcp_w_ie_u8(&w, PFCP_IE_QFI, 0xc5); /* spare bits set: QFI 5 */
	pfcp_w_ie_bytes(&w, PFCP_IE_UE_IP_ADDRESS, "\x06\x0a\x2d\x00\x09", 5);
	pfcp_w_ie_end(&w, o2);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 11);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 12);
	pfcp_w_ie_end(&w, o);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_URR);
	pfcp_w_ie_u32(&w, PFCP_IE_URR_ID, 11);
	pfcp_w_ie_u8(&w, PFCP_IE_MEASUREMENT_METHOD, UPF_MM_DURAT);
	pfcp_w_ie_bytes(&w, PFCP_IE_REPORTING_TRIGGERS, "\x04\x02", 2); /* TIMTH, TIMQU */
	pfcp_w_ie_u32(&w, PFCP_IE_TIME_THRESHOLD, 600);
	pfcp_w_ie_u32(&w, PFCP_IE_TIME_QUOTA, 3600);
	pfcp_w_ie_end(&w, o);
	o = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_QER);
	pfcp_w_ie_u32(&w, PFCP_IE_QER_ID, 0xffffffff);
	pfcp_w_ie_bytes(&w, PFCP_IE_MBR, "\xff\xff\xff\xff\xff\x00\x00\x00\x00\x01", 10);
	pfcp_w_ie_end(&w, o);
	o = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_FAR);
	pfcp_w_ie_u32(&w, PFCP_IE_FAR_ID, 8);
	o2 = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_DUPLICATING_PARAMS);
	pfcp_w_ie_end(&w, o2);
	o2 = pfcp_w_ie_begin(&w, PFCP_IE_UPDATE_FORWARDING_PARAMS);
	pfcp_w_ie_u8(&w, PFCP_IE_DESTINATION_INTERFACE, UPF_IF_LI);
	pfcp_w_ie_bytes(&w, PFCP_IE_NETWORK_INSTANCE, "\x02n6", 3);
	pfcp_w_ie_end(&w, o2);
	pfcp_w_ie_u8(&w, PFCP_IE_BAR_ID, 3);
	pfcp_w_ie_end(&w, o);
	o = pfcp_w_ie_begin(&w, PFCP_IE_CREATE_BAR);
	o3 = pfcp_w_ie_begin(&w, PFCP_IE_BAR_ID);
	pfcp_w_raw8(&w, 3);
	pfcp_w_ie_end(&w, o3);
	pfcp_w_ie_end(&w, o);
	n = pfcp_w_hdr_end(&w);
	assert_int_equal(n, (int)w.len);

	if (dec(buf, (size_t)n) != PFCP_DEC_OK)
		fail_msg("%s", err.why);
	assert_int_equal(msg.h.seid, 0xfeedfacecafebeefull);
	assert_int_equal(msg.h.seq, 0xabcdef);
	assert_int_equal(msg.cp_fseid.seid, 99);
	assert_int_equal(msg.cp_fseid.v6.a[15], 9);
	assert_true(msg.present & PFCP_M_CREATE_BAR);
	assert_int_equal(msg.create_bar.id, 3);
	assert_false(msg.create_bar.has_count);
	assert_int_equal(msg.n_update_pdr, 1);
	assert_int_equal(msg.update_pdr[0].c.id, 65535);
	assert_int_equal(msg.update_pdr[0].present,
			 PFCP_PDR_ID | PFCP_PDR_PDI | PFCP_PDR_URR_ID | PFCP_PDR_UE_IP |
				 PFCP_PDR_FTEID | PFCP_PDR_QFI);
	assert_int_equal(msg.update_pdr[0].c.teid, 0xdeadbeef);
	assert_int_equal(msg.update_pdr[0].c.qfi, 5);
	assert_ip(&msg.update_pdr[0].c.ue4, "10.45.0.9");
	assert_true(msg.update_pdr[0].ue_sd);
	assert_int_equal(msg.update_pdr[0].c.n_urr, 2);
	assert_int_equal(msg.update_pdr[0].c.urr_id[1], 12);
	assert_int_equal(msg.create_urr[0].c.triggers, UPF_RT_TIMTH | UPF_RT_TIMQU);
	assert_int_equal(msg.create_urr[0].c.time_thresh_s, 600);
	assert_true(msg.create_urr[0].c.has_time_quota);
	assert_int_equal(msg.create_urr[0].c.time_quota_s, 3600);
	assert_int_equal(msg.update_qer[0].c.id, 0xffffffffu);
	assert_int_equal(msg.update_qer[0].c.mbr_ul, 0xffffffffffull);
	assert_int_equal(msg.update_qer[0].c.mbr_dl, 1);
	assert_int_equal(msg.update_qer[0].present, PFCP_QER_ID | PFCP_QER_MBR);
	assert_int_equal(msg.update_far[0].present,
			 PFCP_FAR_ID | PFCP_FAR_FWD | PFCP_FAR_DST_IFACE | PFCP_FAR_NI |
				 PFCP_FAR_DUPL | PFCP_FAR_BAR);
	assert_int_equal(msg.update_far[0].c.dst_iface, UPF_IF_LI);
	assert_string_equal(msg.update_far[0].ni_name, "n6");
	assert_int_equal(msg.update_far[0].bar_id, 3);
}

/* The node responses this codec also decodes, through builder and decoder. */
static void
test_roundtrip_node(void **state)
{
	struct pfcp_node_id id = { .type = PFCP_NODE_ID_FQDN, .fqdn = "upf1.example.net" };
	struct pfcp_node_id id6 = { .type = PFCP_NODE_ID_IPV6,
				    .ip = { .af = 6, .a = { 0xfd, 1 } } };
	struct pfcp_w w;
	int n;

	(void)state;
	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_assoc_setup_resp(&w, 77, &id, PFCP_CAUSE_ACCEPTED, 3912345678u,
					PFCP_UPF_FTUP | PFCP_UPF_EMPU, 2, NULL, 0);
	assert_true(n > 0);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_ASSOC_SETUP_RESP);
	assert_int_equal(msg.h.seq, 77);
	assert_string_equal(msg.node_id.fqdn, "upf1.example.net");
	assert_int_equal(msg.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(msg.recovery_ts, 3912345678u);
	assert_int_equal(msg.up_features, PFCP_UPF_FTUP | PFCP_UPF_EMPU);

	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_assoc_setup_resp(&w, 78, &id6, PFCP_CAUSE_REJECTED, 1, PFCP_UPF_FTUP, 2,
					NULL, 0);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.cause, PFCP_CAUSE_REJECTED);
	assert_false(msg.present & PFCP_M_UP_FEATURES);
	assert_int_equal(msg.node_id.ip.a[1], 1);

	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_heartbeat_resp(&w, 0xffffff, 42);
	assert_int_equal(n, 16);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_HEARTBEAT_RESP);
	assert_int_equal(msg.h.seq, 0xffffff);
	assert_int_equal(msg.recovery_ts, 42);
	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_heartbeat_req(&w, 5, 43);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_HEARTBEAT_REQ);

	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_assoc_release_resp(&w, 6, &id6, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_ASSOC_RELEASE_RESP);
	assert_int_equal(msg.cause, 1);
	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_assoc_update_resp(&w, 7, &id, PFCP_CAUSE_ACCEPTED, 0, 0);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(msg.h.type, PFCP_ASSOC_UPDATE_RESP);

	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_version_not_supported(&w, 9);
	assert_int_equal(n, 8);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_UNKNOWN);
	assert_int_equal(msg.h.type, PFCP_VERSION_NOT_SUPPORTED);
	assert_int_equal(msg.h.seq, 9);
}

/* Read one IE of type t at p[*off] (within end); return its value and length. */
static const uint8_t *
next_ie(const uint8_t *p, size_t *off, size_t end, uint16_t t, uint16_t *len)
{
	const uint8_t *v;

	assert_true(*off + 4 <= end);
	assert_int_equal(p[*off] << 8 | p[*off + 1], t);
	*len = (uint16_t)(p[*off + 2] << 8 | p[*off + 3]);
	assert_true(*off + 4 + *len <= end);
	v = p + *off + 4;
	*off += 4 + (size_t)*len;
	return v;
}

/* The session responses and report byte by byte (what scapy and tshark see: pfcp_wire_check.py). */
static void
test_session_builders(void **state)
{
	struct pfcp_node_id id = { .type = PFCP_NODE_ID_IPV4,
				   .ip = { .af = 4, .a = { 192, 168, 0, 1 } } };
	struct pfcp_fseid up = { .seid = 0x1000000000000001ull,
				 .v4 = { .af = 4, .a = { 192, 168, 0, 1 } } };
	struct pfcp_created_pdr cr[2] = {
		{ .pdr_id = 1, .teid = 0x01020304, .v4 = up.v4 },
		/* A Created Traffic Endpoint: its ID (one octet), F-TEID, UE address. */
		{ .pdr_id = 7,
		  .te = true,
		  .teid = 0x0a0b0c0d,
		  .v4 = up.v4,
		  .ue4 = { .af = 4, .a = { 10, 45, 0, 2 } } },
	};
	struct pfcp_usage_report ur = {
		.urr_id = 3,
		.ur_seqn = 4,
		.trigger = PFCP_URT_VOLTH,
		.start_time = 3900000000u,
		.end_time = 3900000060u,
		.has_volume = true,
		.vol = { .bytes = { 1000, 2000 }, .pkts = { 10, 20 } },
		.has_duration = true,
		.duration_s = 60,
	};
	struct pfcp_sess_resp r = {
		.seid = 0x55,
		.seq = 300,
		.cause = PFCP_CAUSE_ACCEPTED,
		.failed_rule_type = PFCP_RULE_NONE,
		.node_id = &id,
		.up_fseid = &up,
		.n_created = 2,
		.created = cr,
	};
	struct pfcp_sess_report rep = { .seid = 0x55,
					.seq = 301,
					.report_type = PFCP_REPORT_DLDR | PFCP_REPORT_USAR,
					.n_dl_pdr = 1,
					.dl_pdr = { 2 },
					.n_usage = 1,
					.usage = &ur };
	struct pfcp_hdr req = { .type = PFCP_SESS_MOD_REQ, .seq = 302 };
	struct pfcp_err e = { .cause = PFCP_CAUSE_RULE_FAILURE,
			      .ie = PFCP_IE_SDF_FILTER,
			      .rule_type = PFCP_RULE_PDR,
			      .rule_id = 9 };
	const uint8_t *v;
	struct pfcp_w w;
	uint16_t l;
	size_t off, end;
	int n;

	(void)state;
	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_sess_est_resp(&w, &r);
	assert_true(n > 0);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_UNKNOWN); /* a response we never receive */
	assert_int_equal(msg.h.type, PFCP_SESS_EST_RESP);
	assert_int_equal(msg.h.seid, 0x55);
	assert_int_equal(msg.h.seq, 300);
	off = 16;
	end = (size_t)n;
	v = next_ie(buf, &off, end, PFCP_IE_NODE_ID, &l);
	assert_int_equal(l, 5);
	v = next_ie(buf, &off, end, PFCP_IE_CAUSE, &l);
	assert_int_equal(v[0], 1);
	v = next_ie(buf, &off, end, PFCP_IE_F_SEID, &l);
	assert_int_equal(l, 13);
	assert_int_equal(v[0], 0x02);
	assert_memory_equal(v + 1, "\x10\0\0\0\0\0\0\x01\xc0\xa8\x00\x01", 12);
	v = next_ie(buf, &off, end, PFCP_IE_CREATED_PDR, &l);
	assert_int_equal(l, 6 + 13);
	assert_memory_equal(v, "\x00\x38\x00\x02\x00\x01\x00\x15\x00\x09\x01\x01\x02\x03\x04", 15);
	v = next_ie(buf, &off, end, PFCP_IE_CREATED_TRAFFIC_ENDPOINT, &l);
	assert_int_equal(l, 5 + 13 + 9);
	assert_memory_equal(v,
			    "\x00\x83\x00\x01\x07"
			    "\x00\x15\x00\x09\x01\x0a\x0b\x0c\x0d\xc0\xa8\x00\x01"
			    "\x00\x5d\x00\x05\x02\x0a\x2d\x00\x02",
			    27);
	assert_int_equal(off, end);

	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_sess_report_req(&w, &rep);
	off = 16;
	end = (size_t)n;
	v = next_ie(buf, &off, end, PFCP_IE_REPORT_TYPE, &l);
	assert_int_equal(v[0], 0x03);
	v = next_ie(buf, &off, end, PFCP_IE_DOWNLINK_DATA_REPORT, &l);
	assert_memory_equal(v, "\x00\x38\x00\x02\x00\x02", 6);
	v = next_ie(buf, &off, end, PFCP_IE_USAGE_REPORT_SRR, &l);
	{
		size_t o2 = (size_t)(v - buf), e2 = o2 + l;
		const uint8_t *x;
		uint16_t l2;

		x = next_ie(buf, &o2, e2, PFCP_IE_URR_ID, &l2);
		assert_memory_equal(x, "\0\0\0\x03", 4);
		x = next_ie(buf, &o2, e2, PFCP_IE_UR_SEQN, &l2);
		assert_memory_equal(x, "\0\0\0\x04", 4);
		x = next_ie(buf, &o2, e2, PFCP_IE_USAGE_REPORT_TRIGGER, &l2);
		assert_int_equal(l2, 3);
		assert_memory_equal(x, "\x02\0\0", 3);
		next_ie(buf, &o2, e2, PFCP_IE_START_TIME, &l2);
		next_ie(buf, &o2, e2, PFCP_IE_END_TIME, &l2);
		x = next_ie(buf, &o2, e2, PFCP_IE_VOLUME_MEASUREMENT, &l2);
		assert_int_equal(l2, 49);
		assert_int_equal(x[0], 0x3f);
		assert_int_equal(x[8], 3000 & 0xff); /* total octets, low byte */
		assert_int_equal(x[7], 3000 >> 8);
		assert_int_equal(x[32], 30); /* total packets */
		assert_int_equal(x[40], 10); /* uplink packets */
		assert_int_equal(x[48], 20); /* downlink packets */
		x = next_ie(buf, &o2, e2, PFCP_IE_DURATION_MEASUREMENT, &l2);
		assert_memory_equal(x, "\0\0\0\x3c", 4);
		assert_int_equal(o2, e2);
	}
	assert_int_equal(off, end);

	/* An error response: Cause, Offending IE, Failed Rule ID. */
	pfcp_w_init(&w, buf, sizeof(buf));
	n = pfcp_build_error_resp(&w, &req, 0x77, NULL, &e);
	assert_true(n > 0);
	assert_int_equal(buf[1], PFCP_SESS_MOD_RESP);
	off = 16;
	end = (size_t)n;
	v = next_ie(buf, &off, end, PFCP_IE_CAUSE, &l);
	assert_int_equal(v[0], 73);
	v = next_ie(buf, &off, end, PFCP_IE_OFFENDING_IE, &l);
	assert_memory_equal(v, "\x00\x17", 2);
	v = next_ie(buf, &off, end, PFCP_IE_FAILED_RULE_ID, &l);
	assert_memory_equal(v, "\x00\x00\x09", 3);
	assert_int_equal(off, end);
	req.type = PFCP_HEARTBEAT_REQ;
	assert_int_equal(pfcp_build_error_resp(&w, &req, 0, NULL, &e), -EINVAL);
}

/* Every builder at every buffer size below its need: -ENOSPC, nothing written past cap. */
static void
test_writer_bounds(void **state)
{
	struct pfcp_node_id id = { .type = PFCP_NODE_ID_FQDN, .fqdn = "upf.example.net" };
	struct pfcp_usage_report ur[2] = { { .urr_id = 1, .has_volume = true, .has_duration = true },
					   { .urr_id = 2, .start_time = 1, .end_time = 2 } };
	struct pfcp_created_pdr cr[2] = {
		{ .pdr_id = 1, .v4 = { .af = 4 } },
		{ .pdr_id = 2, .v6 = { .af = 6 }, .ue6 = { .af = 6 }, .ue6_dbits = 8 }
	};
	struct pfcp_fseid up = { .seid = 1, .v4 = { .af = 4 }, .v6 = { .af = 6 } };
	struct pfcp_sess_resp r = { .cause = 1,
				    .failed_rule_type = PFCP_RULE_NONE,
				    .node_id = &id,
				    .up_fseid = &up,
				    .n_created = 2,
				    .created = cr,
				    .n_usage = 2,
				    .usage = ur };
	struct pfcp_sess_report rep = { .report_type = 3, .n_dl_pdr = 2, .n_usage = 2, .usage = ur };
	uint8_t out[1024];
	unsigned int b;

	(void)state;
	for (b = 0; b < 8; b++) {
		struct pfcp_w w;
		size_t need, cap;
		int n = 0;

		for (cap = 0;; cap++) {
			memset(out, 0xa5, sizeof(out));
			pfcp_w_init(&w, out, cap);
			switch (b) {
			case 0:
				n = pfcp_build_heartbeat_req(&w, 1, 2);
				break;
			case 1:
				n = pfcp_build_assoc_setup_resp(&w, 1, &id, 1, 2, 0x10, 3, NULL, 0);
				break;
			case 2:
				n = pfcp_build_assoc_release_resp(&w, 1, &id, 1);
				break;
			case 3:
				n = pfcp_build_sess_est_resp(&w, &r);
				break;
			case 4:
				n = pfcp_build_sess_mod_resp(&w, &r);
				break;
			case 5:
				n = pfcp_build_sess_del_resp(&w, &r);
				break;
			case 6:
				n = pfcp_build_sess_report_req(&w, &rep);
				break;
			default:
				n = pfcp_build_version_not_supported(&w, 1);
				break;
			}
			for (need = cap; need < sizeof(out); need++)
				if (out[need] != 0xa5)
					fail_msg("builder %u wrote past cap %zu", b, cap);
			if (n >= 0)
				break;
			assert_int_equal(n, -ENOSPC);
			assert_true(w.overflow);
			assert_true(cap < 600);
		}
		assert_int_equal((size_t)n, cap);
	}
	/* A NULL buffer is a zero-capacity one. */
	{
		struct pfcp_w w;

		pfcp_w_init(&w, NULL, 100);
		assert_int_equal(pfcp_build_heartbeat_req(&w, 1, 2), -ENOSPC);
	}
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(pfcp_msg_name(PFCP_SESS_EST_REQ), "sess_est_req");
	assert_string_equal(pfcp_msg_name(PFCP_HEARTBEAT_REQ), "heartbeat_req");
	assert_string_equal(pfcp_msg_name(0), "unknown");
	assert_string_equal(pfcp_msg_name(49), "unknown");
	assert_string_equal(pfcp_msg_name(255), "unknown");
}

/* An establishment whose PDR 1 has the n Framed-Routes (IE type) given as text. */
static int
est_framed(uint16_t type, const char *const *routes, unsigned int n)
{
	struct pfcp_w w;
	size_t o, pdi;
	unsigned int i;

	est_begin(&w);
	o = pdr_begin(&w, 1, &pdi);
	for (i = 0; i < n; i++)
		pfcp_w_ie_bytes(&w, type, routes[i], strlen(routes[i]));
	pdr_end(&w, o, pdi);
	far_drop(&w, 1);
	return est_end(&w);
}

/*
 * Framed-Route / Framed-IPv6-Route (FRRT), as RADIUS writes them: the
 * prefix, then a gateway and metrics that are ignored; no length is a
 * host route; the bits past the length are masked; the same route twice
 * is one. What is not a prefix of the IE's family, an IPv6 one longer
 * than /64, or more than UPF_MAX_PDR_FRAMED routes is Cause 73 naming the
 * IE and the PDR.
 */
static void
test_framed_route(void **state)
{
	static const char *const ok4[] = { "10.9.0.0/16", "10.9.1.7/16 0.0.0.0 1", "192.0.2.5",
					   "0.0.0.0/0 0.0.0.0 5" };
	static const char *const ok6[] = { "2001:db8:9::/48 :: 1", "2001:db8:a:b:c:d:e:f/64" };
	static const char *const bad4[] = {
		"10.9.0.0/33",  "10.9.0.0/",     "10.9.0.0/1x", "300.1.1.1/8",        "/16",
		" 10.9.0.0/16", "2001:db8::/48", "10.9.0.0/-1", "10.9.0.0/016777216",
	};
	static const char *const bad6[] = { "2001:db8::/65", "10.9.0.0/16", "2001:db8::/129",
					    "2001:db8::/128" };
	const char *many[UPF_MAX_PDR_FRAMED + 1];
	char txt[UPF_MAX_PDR_FRAMED + 1][32];
	const struct upf_pdr_conf *c = &msg.create_pdr[0].c;
	unsigned int i;
	int n;

	(void)state;
	n = est_framed(PFCP_IE_FRAMED_ROUTE, ok4, RTE_DIM(ok4));
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	/* 10.9.1.7/16 is 10.9.0.0/16 again. */
	assert_int_equal(c->n_framed, 3);
	assert_int_equal(c->framed[0].af, 4);
	assert_int_equal(c->framed[0].plen, 16);
	assert_memory_equal(c->framed[0].a, "\x0a\x09\x00\x00", 4);
	assert_int_equal(c->framed[1].plen, 32);
	assert_memory_equal(c->framed[1].a, "\xc0\x00\x02\x05", 4);
	assert_int_equal(c->framed[2].plen, 0);
	assert_memory_equal(c->framed[2].a, "\x00\x00\x00\x00", 4);
	n = est_framed(PFCP_IE_FRAMED_IPV6_ROUTE, ok6, RTE_DIM(ok6));
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(c->n_framed, 2);
	assert_int_equal(c->framed[0].af, 6);
	assert_int_equal(c->framed[0].plen, 48);
	assert_memory_equal(c->framed[0].a, "\x20\x01\x0d\xb8\x00\x09\x00\x00", 8);
	assert_int_equal(c->framed[1].plen, 64);
	/* The interface identifier masked off: the /64 alone. */
	assert_memory_equal(c->framed[1].a,
			    "\x20\x01\x0d\xb8\x00\x0a\x00\x0b\x00\x00\x00\x00\x00\x00\x00\x00", 16);

	for (i = 0; i < RTE_DIM(bad4); i++) {
		n = est_framed(PFCP_IE_FRAMED_ROUTE, &bad4[i], 1);
		REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_FRAMED_ROUTE);
		assert_int_equal(err.rule_type, PFCP_RULE_PDR);
		assert_int_equal(err.rule_id, 1);
	}
	for (i = 0; i < RTE_DIM(bad6); i++) {
		n = est_framed(PFCP_IE_FRAMED_IPV6_ROUTE, &bad6[i], 1);
		REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_FRAMED_IPV6_ROUTE);
	}
	/* An empty value is below the IE's length: 69. */
	n = est_with_pdi_ie(PFCP_IE_FRAMED_ROUTE, "", 0);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_REJECT);
	/* A NUL inside the prefix. */
	n = est_with_pdi_ie(PFCP_IE_FRAMED_ROUTE, "10.9\0.0.0/16", 12);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_FRAMED_ROUTE);
	/* UPF_MAX_PDR_FRAMED distinct routes fit; one more does not. */
	for (i = 0; i <= UPF_MAX_PDR_FRAMED; i++) {
		snprintf(txt[i], sizeof(txt[i]), "10.%u.0.0/16", i + 1);
		many[i] = txt[i];
	}
	n = est_framed(PFCP_IE_FRAMED_ROUTE, many, UPF_MAX_PDR_FRAMED);
	assert_int_equal(dec(buf, (size_t)n), PFCP_DEC_OK);
	assert_int_equal(c->n_framed, UPF_MAX_PDR_FRAMED);
	n = est_framed(PFCP_IE_FRAMED_ROUTE, many, UPF_MAX_PDR_FRAMED + 1);
	REJECTS(buf, n, PFCP_CAUSE_RULE_FAILURE, PFCP_IE_FRAMED_ROUTE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_invalid),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_ie_length_past_end),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_wrong_group_content),
		cmocka_unit_test(test_missing_mandatory),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_fteid),
		cmocka_unit_test(test_network_instance),
		cmocka_unit_test(test_flow_description),
		cmocka_unit_test(test_flow_port_lists),
		cmocka_unit_test(test_pool_identity),
		cmocka_unit_test(test_ue_ipv6_prefix_fields),
		cmocka_unit_test(test_traffic_endpoint),
		cmocka_unit_test(test_framed_route),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_urr_start_holding),
		cmocka_unit_test(test_urr_droth),
		cmocka_unit_test(test_ie_details),
		cmocka_unit_test(test_vector_node_messages),
		cmocka_unit_test(test_vector_sess_est),
		cmocka_unit_test(test_vector_sess_est_v6),
		cmocka_unit_test(test_vector_sess_mod),
		cmocka_unit_test(test_vector_refused),
		cmocka_unit_test(test_roundtrip_request),
		cmocka_unit_test(test_roundtrip_node),
		cmocka_unit_test(test_session_builders),
		cmocka_unit_test(test_writer_bounds),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("pfcp_codec", tests, NULL, NULL);
}
