/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the PFCP decoder (pfcp_decode()): the input is one
 * UDP payload to port 8805. Besides "no crash, no read past the input":
 * the header agrees with pfcp_decode_header(); a refusal carries one of the
 * causes the decoder gives, an offending IE and a terminated reason, and its
 * error response (pfcp_build_error_resp()) reads back with the request's
 * sequence number; an accepted message keeps every count within the model's
 * limits and every text terminated, and the answers built from it (the
 * Association Setup Response with its Node ID, a Session Establishment
 * Response naming its PDRs) decode again, into a buffer just large enough
 * and, cut one byte short, fail cleanly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pfcp_msg m, m2;

static void
check_str(const char *s, size_t cap)
{
	if (memchr(s, '\0', cap) == NULL)
		abort();
}

static void
check_pdrs(const struct pfcp_pdr *p, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (p[i].c.n_sdf > UPF_MAX_SDF || p[i].c.n_qer > UPF_MAX_PDR_QER ||
		    p[i].c.n_urr > UPF_MAX_PDR_URR || p[i].c.ni != UPF_NI_NONE ||
		    p[i].c.src_iface > UPF_IF_CP || p[i].c.qfi > 63)
			abort();
		check_str(p[i].ni_name, sizeof(p[i].ni_name));
		for (j = 0; j < p[i].c.n_sdf; j++) {
			const struct upf_sdf *f = &p[i].c.sdf[j];

			if (f->rport_lo > f->rport_hi || f->uport_lo > f->uport_hi)
				abort();
			if ((f->remote.af != 0 &&
			     f->remote.plen > (f->remote.af == 4 ? 32 : 128)) ||
			    (f->ue.af != 0 && f->ue.plen > (f->ue.af == 4 ? 32 : 128)))
				abort();
		}
	}
}

static void
check_fars(const struct pfcp_far *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (f[i].c.ni != UPF_NI_NONE || f[i].c.dst_iface > UPF_IF_LI)
			abort();
		if (f[i].c.ohc != 0 && f[i].c.ohc != UPF_OHC_GTPU_UDP_IPV4 &&
		    f[i].c.ohc != UPF_OHC_GTPU_UDP_IPV6)
			abort();
		check_str(f[i].ni_name, sizeof(f[i].ni_name));
	}
}

/* Build with b into exactly the size it needs, and one byte less. */
static int
build_tight(int (*b)(struct pfcp_w *, const void *), const void *arg, uint8_t *out, size_t cap)
{
	struct pfcp_w w;
	int n;

	pfcp_w_init(&w, out, cap);
	n = b(&w, arg);
	if (n <= 0)
		abort();
	pfcp_w_init(&w, out, (size_t)n - 1);
	if (b(&w, arg) != -ENOSPC)
		abort();
	pfcp_w_init(&w, out, (size_t)n);
	if (b(&w, arg) != n)
		abort();
	return n;
}

/* The pools it announces: the decoded Create PDR's Pool Identities and Network Instance. */
static int
b_assoc(struct pfcp_w *w, const void *arg)
{
	struct pfcp_pool_info pools[2];
	unsigned int i, n = 0;

	for (i = 0; m.n_create_pdr != 0 && i < m.create_pdr[0].n_pool_id; i++) {
		pools[n].id = m.create_pdr[0].pool_id[i];
		pools[n++].ni = m.create_pdr[0].ni_name;
	}
	return pfcp_build_assoc_setup_resp(w, m.h.seq, arg, PFCP_CAUSE_ACCEPTED, 1, PFCP_UPF_FTUP,
					   2, pools, n);
}

static int
b_est(struct pfcp_w *w, const void *arg)
{
	return pfcp_build_sess_est_resp(w, arg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t causes[] = { 64, 66, 67, 68, 69, 73 };
	static uint8_t out[65536 + 64];
	struct pfcp_err err, e2;
	struct pfcp_hdr h;
	struct pfcp_w w;
	unsigned int i;
	int rc, rh, n;

	rc = pfcp_decode(data, size, &m, &err);
	check_str(err.why, sizeof(err.why));
	rh = pfcp_decode_header(data, size, &h, &e2);
	if (rc == PFCP_DEC_DROP) {
		if (rh != PFCP_DEC_DROP && rh != PFCP_DEC_OK)
			abort();
		return 0;
	}
	if (memcmp(&h, &m.h, sizeof(h)) != 0)
		abort();
	if (rc == PFCP_DEC_VERSION || rc == PFCP_DEC_UNKNOWN)
		return 0;
	if (m.h.msg_len < m.h.hdr_len)
		abort();
	if (rc == PFCP_DEC_REJECT) {
		struct pfcp_hdr req = m.h;

		if (memchr(causes, err.cause, sizeof(causes)) == NULL)
			abort();
		if (err.rule_type != PFCP_RULE_NONE && err.cause != PFCP_CAUSE_RULE_FAILURE)
			abort();
		/* Answer as the agent would (a request type whatever it was). */
		req.type = PFCP_SESS_MOD_REQ;
		pfcp_w_init(&w, out, sizeof(out));
		n = pfcp_build_error_resp(&w, &req, m.h.seid, NULL, &err);
		if (n <= 0 || pfcp_decode_header(out, (size_t)n, &h, &e2) != PFCP_DEC_OK ||
		    h.seq != m.h.seq || h.type != PFCP_SESS_MOD_RESP)
			abort();
		return 0;
	}
	if (rc != PFCP_DEC_OK || m.h.msg_len > size)
		abort();
	if (m.n_create_pdr > UPF_MAX_PDR || m.n_update_pdr > UPF_MAX_PDR ||
	    m.n_create_far > UPF_MAX_FAR || m.n_update_far > UPF_MAX_FAR ||
	    m.n_create_qer > UPF_MAX_QER || m.n_update_qer > UPF_MAX_QER ||
	    m.n_create_urr > UPF_MAX_URR || m.n_update_urr > UPF_MAX_URR ||
	    m.n_remove_pdr > UPF_MAX_PDR || m.n_remove_far > UPF_MAX_FAR ||
	    m.n_remove_qer > UPF_MAX_QER || m.n_remove_urr > UPF_MAX_URR ||
	    m.n_query_urr > PFCP_MAX_QUERY_URR)
		abort();
	check_pdrs(m.create_pdr, m.n_create_pdr);
	check_pdrs(m.update_pdr, m.n_update_pdr);
	check_fars(m.create_far, m.n_create_far);
	check_fars(m.update_far, m.n_update_far);
	check_str(m.node_id.fqdn, sizeof(m.node_id.fqdn));

	if (m.present & PFCP_M_NODE_ID) {
		struct pfcp_node_id id = m.node_id;

		n = build_tight(b_assoc, &id, out, sizeof(out));
		if (pfcp_decode(out, (size_t)n, &m2, &e2) != PFCP_DEC_OK ||
		    m2.node_id.type != id.type ||
		    (id.type == PFCP_NODE_ID_FQDN && strcmp(m2.node_id.fqdn, id.fqdn) != 0) ||
		    (id.type != PFCP_NODE_ID_FQDN &&
		     memcmp(&m2.node_id.ip, &id.ip, sizeof(id.ip)) != 0))
			abort();
	}
	if (m.h.type == PFCP_SESS_EST_REQ) {
		struct pfcp_created_pdr cr[UPF_MAX_PDR];
		struct pfcp_fseid up = { .seid = m.cp_fseid.seid,
					 .v4 = m.cp_fseid.v4,
					 .v6 = m.cp_fseid.v6 };
		struct pfcp_sess_resp r = { .seid = m.cp_fseid.seid,
					    .seq = m.h.seq,
					    .cause = 1,
					    .failed_rule_type = PFCP_RULE_NONE,
					    .node_id = &m.node_id,
					    .up_fseid = &up,
					    .n_created = m.n_create_pdr,
					    .created = cr };

		memset(cr, 0, sizeof(cr));
		for (i = 0; i < m.n_create_pdr; i++) {
			cr[i].pdr_id = m.create_pdr[i].c.id;
			cr[i].teid = m.create_pdr[i].c.teid;
			cr[i].v4 = m.create_pdr[i].c.fteid4;
			cr[i].v6 = m.create_pdr[i].c.fteid6;
		}
		n = build_tight(b_est, &r, out, sizeof(out));
		if (pfcp_decode_header(out, (size_t)n, &h, &e2) != PFCP_DEC_OK ||
		    h.msg_len != (uint32_t)n || h.seq != m.h.seq)
			abort();
	}
	return 0;
}
