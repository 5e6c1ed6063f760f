/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pfcp_samples DIR: write one file per message the PFCP agent sends, built by
 * the codec's builders (pfcp.h), for tests/unit/pfcp_wire_check.py to read
 * back with scapy and tshark. The values here are the ones that script
 * checks; change both together.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pfcp.h"

static const char *dir;
static int failed;

static void
put(const char *name, const uint8_t *b, int n)
{
	char path[512];
	FILE *f;

	if (n <= 0) {
		fprintf(stderr, "pfcp_samples: %s: builder failed (%d)\n", name, n);
		failed = 1;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(b, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) {
		perror(path);
		failed = 1;
	}
}

int
main(int argc, char **argv)
{
	static const uint8_t v6a[16] = { 0xfd, 0x00, 0, 3, [15] = 1 };
	struct pfcp_node_id n4 = { .type = PFCP_NODE_ID_IPV4,
				   .ip = { .af = 4, .a = { 192, 168, 0, 1 } } };
	struct pfcp_node_id nf = { .type = PFCP_NODE_ID_FQDN, .fqdn = "upf.example.net" };
	/* Announced on the accepted setup only (the rejected one must leave them out). */
	static const struct pfcp_pool_info pools[] = { { "pool-a", "internet" },
						       { "ims.v6", "ims" } };
	struct pfcp_fseid up = { .seid = 0x1000000000000001ull,
				 .v4 = { .af = 4, .a = { 192, 168, 0, 1 } },
				 .v6 = { .af = 6 } };
	struct pfcp_created_pdr cr[2] = {
		{ .pdr_id = 1, .teid = 0x01020304, .v4 = { .af = 4, .a = { 192, 168, 3, 1 } } },
		/* With the UE address and /64 the UP chose (CHV4 + CHV6). */
		{ .pdr_id = 2,
		  .teid = 0x05060708,
		  .v6 = { .af = 6 },
		  .ue4 = { .af = 4, .a = { 10, 45, 200, 1 } },
		  .ue6 = { .af = 6, .a = { 0xfd, 0x00, 0x00, 0x45, 0x00, 0x00, 0xff, 0x00 } } },
	};
	struct pfcp_usage_report ur[2] = {
		{
			.urr_id = 3,
			.ur_seqn = 4,
			.trigger = PFCP_URT_VOLTH,
			.start_time = 3900000000u,
			.end_time = 3900000060u,
			.has_volume = true,
			.vol = { .bytes = { 1000, 2000 }, .pkts = { 10, 20 } },
			.has_duration = true,
			.duration_s = 60,
		},
		{
			.urr_id = 5,
			.ur_seqn = 6,
			.trigger = PFCP_URT_TERMR,
			.has_volume = true,
			.vol = { .bytes = { 7, 0 }, .pkts = { 1, 0 } },
		},
	};
	struct pfcp_sess_resp r;
	struct pfcp_sess_report rep;
	struct pfcp_hdr req;
	struct pfcp_err e;
	struct pfcp_w w;
	uint8_t b[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: pfcp_samples DIR\n");
		return 2;
	}
	dir = argv[1];
	memcpy(up.v6.a, v6a, 16);
	memcpy(cr[1].v6.a, v6a, 16);

#define W() pfcp_w_init(&w, b, sizeof(b))
	W();
	put("heartbeat_req", b, pfcp_build_heartbeat_req(&w, 1, 3900000000u));
	W();
	put("heartbeat_resp", b, pfcp_build_heartbeat_resp(&w, 2, 3900000000u));
	W();
	put("version_not_supported", b, pfcp_build_version_not_supported(&w, 3));
	W();
	put("assoc_setup_resp", b,
	    pfcp_build_assoc_setup_resp(&w, 4, &n4, PFCP_CAUSE_ACCEPTED, 3900000000u,
					PFCP_UPF_FTUP | PFCP_UPF_EMPU, 2, pools, 2));
	W();
	put("assoc_setup_resp_fqdn", b,
	    pfcp_build_assoc_setup_resp(&w, 5, &nf, PFCP_CAUSE_REJECTED, 3900000000u, 0, 0, pools,
					2));
	W();
	put("assoc_update_resp", b,
	    pfcp_build_assoc_update_resp(&w, 6, &n4, PFCP_CAUSE_ACCEPTED, PFCP_UPF_FTUP, 1));
	W();
	put("assoc_release_resp", b,
	    pfcp_build_assoc_release_resp(&w, 7, &n4, PFCP_CAUSE_ACCEPTED));

	memset(&r, 0, sizeof(r));
	r.seid = 0x55;
	r.seq = 8;
	r.cause = PFCP_CAUSE_ACCEPTED;
	r.failed_rule_type = PFCP_RULE_NONE;
	r.node_id = &n4;
	r.up_fseid = &up;
	r.n_created = 2;
	r.created = cr;
	W();
	put("sess_est_resp", b, pfcp_build_sess_est_resp(&w, &r));

	memset(&r, 0, sizeof(r));
	r.seid = 0x55;
	r.seq = 9;
	r.cause = PFCP_CAUSE_RULE_FAILURE;
	r.offending_ie = PFCP_IE_SDF_FILTER;
	r.failed_rule_type = PFCP_RULE_PDR;
	r.failed_rule_id = 5;
	r.node_id = &n4;
	W();
	put("sess_est_resp_err", b, pfcp_build_sess_est_resp(&w, &r));

	memset(&r, 0, sizeof(r));
	r.seid = 0x55;
	r.seq = 10;
	r.cause = PFCP_CAUSE_ACCEPTED;
	r.failed_rule_type = PFCP_RULE_NONE;
	r.n_created = 1;
	r.created = cr;
	r.n_usage = 1;
	r.usage = ur;
	W();
	put("sess_mod_resp", b, pfcp_build_sess_mod_resp(&w, &r));

	r.seq = 11;
	r.n_created = 0;
	r.n_usage = 2;
	W();
	put("sess_del_resp", b, pfcp_build_sess_del_resp(&w, &r));

	memset(&rep, 0, sizeof(rep));
	rep.seid = 0x55;
	rep.seq = 12;
	rep.report_type = PFCP_REPORT_DLDR;
	rep.n_dl_pdr = 2;
	rep.dl_pdr[0] = 2;
	rep.dl_pdr[1] = 4;
	W();
	put("sess_report_req_dldr", b, pfcp_build_sess_report_req(&w, &rep));
	rep.seq = 13;
	rep.report_type = PFCP_REPORT_USAR;
	rep.n_usage = 1;
	rep.usage = ur;
	W();
	put("sess_report_req_usar", b, pfcp_build_sess_report_req(&w, &rep));

	memset(&req, 0, sizeof(req));
	memset(&e, 0, sizeof(e));
	req.type = PFCP_SESS_MOD_REQ;
	req.seq = 14;
	e.cause = PFCP_CAUSE_MANDATORY_IE_INCORRECT;
	e.ie = PFCP_IE_F_TEID;
	e.rule_type = PFCP_RULE_NONE;
	W();
	put("err_sess_mod_resp", b, pfcp_build_error_resp(&w, &req, 0x55, NULL, &e));
	req.type = PFCP_ASSOC_UPDATE_REQ;
	req.seq = 15;
	e.cause = PFCP_CAUSE_MANDATORY_IE_MISSING;
	e.ie = PFCP_IE_NODE_ID;
	W();
	put("err_assoc_update_resp", b, pfcp_build_error_resp(&w, &req, 0, &n4, &e));
	return failed;
}
