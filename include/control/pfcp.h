/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * PFCP (N4, TS 29.244) codec: a bounds-checked, table-driven TLV decoder
 * of the requests (and the few responses) the UPF takes, straight into the
 * session model of upf.h, and a bounded writer with the message builders the
 * agent sends. No allocation: the decoded message is one fixed-size struct
 * (large, about 48 KiB: keep one per agent, not on a thread's stack).
 *
 * Decoding runs in two passes over the datagram: the first checks the TLV
 * framing of every IE, recursing into every grouped IE type up to
 * PFCP_MAX_DEPTH (lengths past their parent, enterprise IEs too short); the
 * second decodes the IEs each message takes, each grouped IE through its
 * own table of children. Unknown IEs and enterprise IEs (type bit 0x8000)
 * are skipped.
 */
#ifndef LF_PFCP_H
#define LF_PFCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* upf.h uses __rte_cache_aligned without including its definition. */
#include <rte_common.h>

#include "upf.h"

#define PFCP_PORT 8805
#define PFCP_VERSION 1
#define PFCP_HDR_LEN 8 /**< Without SEID. */
#define PFCP_HDR_SEID_LEN 16 /**< With SEID (S flag). */
#define PFCP_MAX_DEPTH 5 /**< Grouped IE nesting accepted (top-level IEs are depth 1). */
#define PFCP_NI_LEN 64 /**< Network Instance text, with its NUL. */
#define PFCP_FQDN_LEN 256 /**< Node ID FQDN text, with its NUL. */
#define PFCP_MAX_QUERY_URR UPF_MAX_URR
#define PFCP_MAX_DL_PDR 8 /**< PDR IDs in one Downlink Data Report we send. */
/** Traffic Endpoints one session holds, and Create / Update / Remove of them in one message. */
#define PFCP_MAX_TE 8

/** Message types (TS 29.244 7.3). */
enum pfcp_msg_type {
	PFCP_HEARTBEAT_REQ = 1,
	PFCP_HEARTBEAT_RESP = 2,
	PFCP_PFD_MGMT_REQ = 3,
	PFCP_PFD_MGMT_RESP = 4,
	PFCP_ASSOC_SETUP_REQ = 5,
	PFCP_ASSOC_SETUP_RESP = 6,
	PFCP_ASSOC_UPDATE_REQ = 7,
	PFCP_ASSOC_UPDATE_RESP = 8,
	PFCP_ASSOC_RELEASE_REQ = 9,
	PFCP_ASSOC_RELEASE_RESP = 10,
	PFCP_VERSION_NOT_SUPPORTED = 11,
	PFCP_NODE_REPORT_REQ = 12,
	PFCP_NODE_REPORT_RESP = 13,
	PFCP_SESS_SET_DEL_REQ = 14,
	PFCP_SESS_SET_DEL_RESP = 15,
	PFCP_SESS_EST_REQ = 50,
	PFCP_SESS_EST_RESP = 51,
	PFCP_SESS_MOD_REQ = 52,
	PFCP_SESS_MOD_RESP = 53,
	PFCP_SESS_DEL_REQ = 54,
	PFCP_SESS_DEL_RESP = 55,
	PFCP_SESS_REPORT_REQ = 56,
	PFCP_SESS_REPORT_RESP = 57,
};

/**
 * Cause values (8.2.1). The decoder gives 68 for a length past the
 * datagram or past the IE's parent, 66 / 67 for a missing mandatory /
 * conditional IE, 69 for an IE shorter than its fields or with values that
 * contradict each other, 73 for a rule the model cannot hold or past the
 * UPF_MAX_* counts (with the Failed Rule ID), and 64 for grouped IEs nested
 * deeper than PFCP_MAX_DEPTH.
 */
enum pfcp_cause {
	PFCP_CAUSE_ACCEPTED = 1,
	PFCP_CAUSE_MORE_USAGE_REPORT = 2,
	PFCP_CAUSE_REJECTED = 64,
	PFCP_CAUSE_SESSION_NOT_FOUND = 65,
	PFCP_CAUSE_MANDATORY_IE_MISSING = 66,
	PFCP_CAUSE_CONDITIONAL_IE_MISSING = 67,
	PFCP_CAUSE_INVALID_LENGTH = 68,
	PFCP_CAUSE_MANDATORY_IE_INCORRECT = 69,
	PFCP_CAUSE_INVALID_FWD_POLICY = 70,
	PFCP_CAUSE_INVALID_FTEID_ALLOC = 71,
	PFCP_CAUSE_NO_ASSOCIATION = 72,
	PFCP_CAUSE_RULE_FAILURE = 73,
	PFCP_CAUSE_CONGESTION = 74,
	PFCP_CAUSE_NO_RESOURCES = 75,
	PFCP_CAUSE_NOT_SUPPORTED = 76,
	PFCP_CAUSE_SYSTEM_FAILURE = 77,
};

/** IE types (8.1.2) the codec reads or writes. */
enum pfcp_ie_type {
	PFCP_IE_CREATE_PDR = 1,
	PFCP_IE_PDI = 2,
	PFCP_IE_CREATE_FAR = 3,
	PFCP_IE_FORWARDING_PARAMS = 4,
	PFCP_IE_DUPLICATING_PARAMS = 5,
	PFCP_IE_CREATE_URR = 6,
	PFCP_IE_CREATE_QER = 7,
	PFCP_IE_CREATED_PDR = 8,
	PFCP_IE_UPDATE_PDR = 9,
	PFCP_IE_UPDATE_FAR = 10,
	PFCP_IE_UPDATE_FORWARDING_PARAMS = 11,
	PFCP_IE_UPDATE_BAR_SRR = 12,
	PFCP_IE_UPDATE_URR = 13,
	PFCP_IE_UPDATE_QER = 14,
	PFCP_IE_REMOVE_PDR = 15,
	PFCP_IE_REMOVE_FAR = 16,
	PFCP_IE_REMOVE_URR = 17,
	PFCP_IE_REMOVE_QER = 18,
	PFCP_IE_CAUSE = 19,
	PFCP_IE_SOURCE_INTERFACE = 20,
	PFCP_IE_F_TEID = 21,
	PFCP_IE_NETWORK_INSTANCE = 22,
	PFCP_IE_SDF_FILTER = 23,
	PFCP_IE_APPLICATION_ID = 24,
	PFCP_IE_GATE_STATUS = 25,
	PFCP_IE_MBR = 26,
	PFCP_IE_GBR = 27,
	PFCP_IE_PRECEDENCE = 29,
	PFCP_IE_TRANSPORT_LEVEL_MARKING = 30,
	PFCP_IE_VOLUME_THRESHOLD = 31,
	PFCP_IE_TIME_THRESHOLD = 32,
	PFCP_IE_REPORTING_TRIGGERS = 37,
	PFCP_IE_REDIRECT_INFO = 38,
	PFCP_IE_REPORT_TYPE = 39,
	PFCP_IE_OFFENDING_IE = 40,
	PFCP_IE_FORWARDING_POLICY = 41,
	PFCP_IE_DESTINATION_INTERFACE = 42,
	PFCP_IE_UP_FUNCTION_FEATURES = 43,
	PFCP_IE_APPLY_ACTION = 44,
	PFCP_IE_PFCPSMREQ_FLAGS = 49,
	PFCP_IE_PFCPSRRSP_FLAGS = 50,
	PFCP_IE_PDR_ID = 56,
	PFCP_IE_F_SEID = 57,
	PFCP_IE_NODE_ID = 60,
	PFCP_IE_MEASUREMENT_METHOD = 62,
	PFCP_IE_USAGE_REPORT_TRIGGER = 63,
	PFCP_IE_MEASUREMENT_PERIOD = 64,
	PFCP_IE_VOLUME_MEASUREMENT = 66,
	PFCP_IE_DURATION_MEASUREMENT = 67,
	PFCP_IE_VOLUME_QUOTA = 73,
	PFCP_IE_QUOTA_HOLDING_TIME = 71,
	PFCP_IE_DROPPED_DL_TRAFFIC_THRESHOLD = 72,
	PFCP_IE_TIME_QUOTA = 74,
	PFCP_IE_START_TIME = 75,
	PFCP_IE_END_TIME = 76,
	PFCP_IE_QUERY_URR = 77,
	PFCP_IE_USAGE_REPORT_SMR = 78,
	PFCP_IE_USAGE_REPORT_SDR = 79,
	PFCP_IE_USAGE_REPORT_SRR = 80,
	PFCP_IE_URR_ID = 81,
	PFCP_IE_LINKED_URR_ID = 82,
	PFCP_IE_DOWNLINK_DATA_REPORT = 83,
	PFCP_IE_OUTER_HEADER_CREATION = 84,
	PFCP_IE_CREATE_BAR = 85,
	PFCP_IE_UPDATE_BAR_SMR = 86,
	PFCP_IE_REMOVE_BAR = 87,
	PFCP_IE_BAR_ID = 88,
	PFCP_IE_DL_DATA_NOTIFICATION_DELAY = 46,
	PFCP_IE_SUGGESTED_BUFFERING_COUNT = 140, /**< Suggested Buffering Packets Count. */
	PFCP_IE_CP_FUNCTION_FEATURES = 89,
	PFCP_IE_UE_IP_ADDRESS = 93,
	PFCP_IE_OUTER_HEADER_REMOVAL = 95,
	PFCP_IE_RECOVERY_TIME_STAMP = 96,
	PFCP_IE_HEADER_ENRICHMENT = 98,
	PFCP_IE_UR_SEQN = 104,
	PFCP_IE_UPDATE_DUPLICATING_PARAMS = 105,
	PFCP_IE_FAR_ID = 108,
	PFCP_IE_QER_ID = 109,
	PFCP_IE_ASSOC_RELEASE_REQUEST = 111,
	PFCP_IE_GRACEFUL_RELEASE_PERIOD = 112,
	PFCP_IE_PDN_TYPE = 113,
	PFCP_IE_FAILED_RULE_ID = 114,
	PFCP_IE_QFI = 124,
	PFCP_IE_CREATE_TRAFFIC_ENDPOINT = 127,
	PFCP_IE_CREATED_TRAFFIC_ENDPOINT = 128,
	PFCP_IE_UPDATE_TRAFFIC_ENDPOINT = 129,
	PFCP_IE_REMOVE_TRAFFIC_ENDPOINT = 130,
	PFCP_IE_TRAFFIC_ENDPOINT_ID = 131,
	PFCP_IE_ETHERNET_PACKET_FILTER = 132,
	PFCP_IE_FRAMED_ROUTE = 153,
	PFCP_IE_FRAMED_IPV6_ROUTE = 155,
	PFCP_IE_UE_IP_POOL_ID = 177, /**< UE IP address Pool Identity (8.2.153). */
	PFCP_IE_QUOTA_VALIDITY_TIME = 181,
	PFCP_IE_UE_IP_POOL_INFO = 233, /**< UE IP address Pool Information (7.4.4.1-3). */
};

/** Node ID types (8.2.38). */
enum pfcp_node_id_type {
	PFCP_NODE_ID_IPV4 = 0,
	PFCP_NODE_ID_IPV6 = 1,
	PFCP_NODE_ID_FQDN = 2,
};

/** UP Function Features (8.2.25): octet 5 in bits 0-7, octet 6 in bits 8-15... */
#define PFCP_UPF_BUCP 0x0001
#define PFCP_UPF_DDND 0x0002
#define PFCP_UPF_DLBD 0x0004
#define PFCP_UPF_TRST 0x0008
#define PFCP_UPF_FTUP 0x0010 /**< F-TEID allocation by the UP (CHOOSE). */
#define PFCP_UPF_PFDM 0x0020
#define PFCP_UPF_HEEU 0x0040
#define PFCP_UPF_TREU 0x0080
#define PFCP_UPF_EMPU 0x0100
#define PFCP_UPF_PDIU 0x0200
#define PFCP_UPF_UDBC 0x0400
#define PFCP_UPF_QUOAC 0x0800
#define PFCP_UPF_FRRT 0x2000 /**< Octet 6 bit 6: Framed Routing. */
#define PFCP_UPF_UEIP 0x040000 /**< Octet 7 bit 3: UE IP address allocation by the UP. */
#define PFCP_UPF_VTIME 0x04000000 /**< Octet 8 bit 3: Quota Validity Time. */

/** Report Type (8.2.21). */
#define PFCP_REPORT_DLDR 0x01
#define PFCP_REPORT_USAR 0x02
#define PFCP_REPORT_ERIR 0x04
#define PFCP_REPORT_UPIR 0x08

/** Usage Report Trigger (8.2.41): octet 5 in bits 0-7, octet 6 next, octet 7 next. */
#define PFCP_URT_PERIO 0x000001
#define PFCP_URT_VOLTH 0x000002
#define PFCP_URT_TIMTH 0x000004
#define PFCP_URT_QUHTI 0x000008
#define PFCP_URT_START 0x000010
#define PFCP_URT_STOPT 0x000020
#define PFCP_URT_DROTH 0x000040
#define PFCP_URT_IMMER 0x000080 /**< Immediate report (Query URR). */
#define PFCP_URT_VOLQU 0x000100
#define PFCP_URT_TIMQU 0x000200
#define PFCP_URT_LIUSA 0x000400
#define PFCP_URT_TERMR 0x000800 /**< Termination (Session Deletion). */
#define PFCP_URT_QUVTI 0x080000 /**< Quota Validity Time (octet 7 bit 4). */

/** PFCPSMReq-Flags (8.2.31). */
#define PFCP_SMREQ_DROBU 0x01
#define PFCP_SMREQ_SNDEM 0x02
#define PFCP_SMREQ_QAURR 0x04

/** Failed Rule ID rule types (8.2.80). */
enum pfcp_rule_type {
	PFCP_RULE_PDR = 0,
	PFCP_RULE_FAR = 1,
	PFCP_RULE_QER = 2,
	PFCP_RULE_URR = 3,
	PFCP_RULE_BAR = 4,
	PFCP_RULE_NONE = 0xff,
};

/** The message header (7.2.2). */
struct pfcp_hdr {
	uint8_t version;
	uint8_t type; /**< enum pfcp_msg_type. */
	bool s; /**< SEID present. */
	bool mp; /**< Message priority present. */
	bool fo; /**< Follow On: another message follows in the datagram. */
	uint8_t prio; /**< Message priority (with mp). */
	uint64_t seid;
	uint32_t seq; /**< 24 bits. */
	uint16_t hdr_len; /**< 8 or 16. */
	uint32_t msg_len; /**< Length field + 4: this message's bytes in the datagram. */
};

/** Node ID (8.2.38). */
struct pfcp_node_id {
	uint8_t type; /**< enum pfcp_node_id_type. */
	struct upf_ip ip; /**< IPv4 / IPv6 types. */
	char fqdn[PFCP_FQDN_LEN]; /**< FQDN type: dotted text (labels decoded). */
};

/** F-SEID (8.2.37). */
struct pfcp_fseid {
	uint64_t seid;
	struct upf_ip v4, v6; /**< af 0 where absent. */
};

/* Presence bits of a decoded PDR (Create: what the IE carried; Update: what changes). */
#define PFCP_PDR_ID 0x0001
#define PFCP_PDR_PRECEDENCE 0x0002
#define PFCP_PDR_PDI 0x0004 /**< Source interface, F-TEID, NI, UE IP, SDF, QFI: all replaced. */
#define PFCP_PDR_OHR 0x0008
#define PFCP_PDR_FAR_ID 0x0010
#define PFCP_PDR_QER_ID 0x0020 /**< The QER id list (replaced as a whole on update). */
#define PFCP_PDR_URR_ID 0x0040 /**< The URR id list (replaced as a whole on update). */
#define PFCP_PDR_UE_IP 0x0080 /**< Within the PDI. */
#define PFCP_PDR_NI 0x0100 /**< Within the PDI. */
#define PFCP_PDR_FTEID 0x0200 /**< Within the PDI (or a Traffic Endpoint). */
#define PFCP_PDR_QFI 0x0400 /**< Within the PDI (or a Traffic Endpoint). */
#define PFCP_PDR_FRAMED 0x0800 /**< A Framed-Route within the PDI (or a Traffic Endpoint). */

/**
 * A Create PDR or Update PDR. c.ni is UPF_NI_NONE: the agent resolves
 * ni_name. c.ue4 / c.ue6 come from the UE IP Address IE whatever its S/D
 * flag (ue_sd keeps it). With c.fteid_choose (CH), c.fteid4.af / c.fteid6.af
 * say which families the CP asked for (addresses zero) and c.teid is 0.
 *
 * What the model cannot hold is refused at decode with Cause 73 naming the
 * IE and the rule, never dropped silently: SDF filters with an SPI or a flow
 * label, Flow Descriptions other than "permit out PROTO from A [P] to B [P]"
 * (P: ports or ranges a-b separated by commas, each pair of a remote and a
 * UE range one filter of the PDR's at most UPF_MAX_SDF; no negation or
 * options), Application ID,
 * Ethernet Packet Filter, several Traffic Endpoint IDs in one PDI (MTE),
 * a Framed-Route or Framed-IPv6-Route that is not a prefix (an IPv6 one
 * longer than /64; more than UPF_MAX_PDR_FRAMED), predefined rules, a UE
 * IPv6 prefix longer than a /64 or shorter than a /48 (IPv6D bits or
 * IP6PL; c.ue6_dbits has a delegated prefix's bits, with CHV6 too), outer
 * header removal other than GTP-U/UDP/IP, several QFIs in one PDI. With
 * CHV4 / CHV6 (c.ue_choose) the UE address of that family is absent: the
 * agent allocates it (a CHV6 prefix of c.ue6_dbits bits from a pool that
 * hands out that length).
 *
 * A PDI with a Traffic Endpoint ID (c.has_te, c.te_id) carries no F-TEID,
 * UE IP Address or Network Instance of its own (Cause 69 otherwise, as
 * 7.5.2.2 says they shall not be present): the agent takes them from the
 * endpoint. A Create or Update Traffic Endpoint decodes into this struct
 * too: c.te_id, and the PDI fields it may carry (F-TEID, Network
 * Instance, UE IP Address, QFI, UE IP address Pool Identity), with their
 * PFCP_PDR_* bits in present.
 */
struct pfcp_pdr {
	struct upf_pdr_conf c;
	uint32_t present; /**< PFCP_PDR_* bits. */
	char ni_name[PFCP_NI_LEN]; /**< "" when no Network Instance IE. */
	bool ue_sd; /**< UE IP Address S/D flag: true = destination. */
	/**
	 * UE IP address Pool Identity IEs of the Create PDR (one per family
	 * at most: an IPv4 and an IPv6 pool), text of 1 to 63 printable
	 * characters: the pools the UP chooses the UE address from (CHV4 /
	 * CHV6); the agent resolves them to a network instance.
	 */
	uint8_t n_pool_id;
	char pool_id[2][PFCP_NI_LEN];
};

#define PFCP_FAR_ID 0x0001
#define PFCP_FAR_APPLY 0x0002
#define PFCP_FAR_FWD 0x0004 /**< (Update) Forwarding Parameters IE present. */
#define PFCP_FAR_DST_IFACE 0x0008
#define PFCP_FAR_NI 0x0010
#define PFCP_FAR_OHC 0x0020
#define PFCP_FAR_DUPL 0x0040 /**< (Update) Duplicating Parameters: the agent rejects. */
#define PFCP_FAR_BAR 0x0080 /**< BAR ID (kept in bar_id, not applied). */
#define PFCP_FAR_SNDEM 0x0100 /**< Update Forwarding Parameters' PFCPSMReq-Flags SNDEM. */

/**
 * A Create FAR or Update FAR. c.ni is UPF_NI_NONE: the agent resolves
 * ni_name. DUPL in c.apply and Duplicating Parameters (PFCP_FAR_DUPL) are
 * decoded, for the agent to refuse. Refused at decode (Cause 73): Apply
 * Action IPMA / IPMD / DFRT, outer header creation other than exactly one of
 * GTP-U/UDP/IPv4 and GTP-U/UDP/IPv6, Redirect Information, Forwarding
 * Policy, Header Enrichment.
 */
struct pfcp_far {
	struct upf_far_conf c;
	uint32_t present; /**< PFCP_FAR_* bits. */
	char ni_name[PFCP_NI_LEN];
	uint8_t bar_id;
};

#define PFCP_QER_ID 0x01
#define PFCP_QER_GATE 0x02
#define PFCP_QER_MBR 0x04
#define PFCP_QER_GBR 0x08
#define PFCP_QER_QFI 0x10

/** A Create QER or Update QER. */
struct pfcp_qer {
	struct upf_qer_conf c;
	uint32_t present; /**< PFCP_QER_* bits. */
};

#define PFCP_URR_ID 0x01
#define PFCP_URR_METHOD 0x02
#define PFCP_URR_TRIGGERS 0x04
#define PFCP_URR_PERIOD 0x08
#define PFCP_URR_VOL_THRESH 0x10
#define PFCP_URR_VOL_QUOTA 0x20
#define PFCP_URR_TIME_THRESH 0x40
#define PFCP_URR_TIME_QUOTA 0x80
#define PFCP_URR_QHT 0x100 /**< Quota Holding Time. */
#define PFCP_URR_QVT 0x200 /**< Quota Validity Time. */
#define PFCP_URR_LINKED 0x400 /**< Linked URR IDs (replaced as a whole on update). */
#define PFCP_URR_DROTH 0x800 /**< Dropped DL Traffic Threshold. */

/** A Create URR or Update URR. */
struct pfcp_urr {
	struct upf_urr_conf c;
	uint32_t present; /**< PFCP_URR_* bits. */
};

/* Top-level IEs present in a decoded message (pfcp_msg.present). */
#define PFCP_M_NODE_ID 0x0001
#define PFCP_M_RECOVERY 0x0002
#define PFCP_M_CAUSE 0x0004
#define PFCP_M_UP_FEATURES 0x0008
#define PFCP_M_CP_FEATURES 0x0010
#define PFCP_M_CP_FSEID 0x0020
#define PFCP_M_PDN_TYPE 0x0040
#define PFCP_M_SMREQ_FLAGS 0x0080
#define PFCP_M_SRRSP_FLAGS 0x0100
#define PFCP_M_ASSOC_REL_REQ \
	0x0200 /**< Association Update Request: PFCP Association Release Request. */
#define PFCP_M_GRACEFUL_REL 0x0400
#define PFCP_M_CREATE_BAR 0x0800 /**< Create BAR (create_bar). */
#define PFCP_M_UPDATE_BAR 0x1000 /**< Update BAR of a Session Modification (update_bar). */
#define PFCP_M_REMOVE_BAR 0x2000 /**< Remove BAR (remove_bar). */
#define PFCP_M_UPDATE_BAR_SRR 0x4000 /**< Update BAR of a Session Report Response: not applied. */

/**
 * A Create BAR or Update BAR (7.5.2.6, 7.5.4.11): the Suggested Buffering
 * Packets Count bounds what a BUFF FAR holds for the session (below
 * [upf] buffer_packets); the Downlink Data Notification Delay holds the
 * Downlink Data Report back.
 */
struct pfcp_bar {
	uint8_t id;
	bool has_count;
	uint8_t count; /**< Suggested Buffering Packets Count. */
	bool has_ddn_delay;
	uint8_t ddn_delay; /**< Downlink Data Notification Delay, in 50 ms. */
};

/**
 * A decoded message. Which fields are meaningful depends on h.type and
 * present; the rule arrays hold n_* entries in the order of the request.
 */
struct pfcp_msg {
	struct pfcp_hdr h;
	uint32_t present; /**< PFCP_M_* bits. */
	struct pfcp_node_id node_id;
	uint32_t recovery_ts; /**< Recovery Time Stamp, NTP seconds (since 1900). */
	uint8_t cause;
	uint64_t up_features; /**< PFCP_UPF_* layout; octet 5 in the low byte. */
	uint64_t cp_features;
	struct pfcp_fseid cp_fseid;
	uint8_t pdn_type;
	uint8_t smreq_flags; /**< PFCP_SMREQ_* (Session Modification Request). */
	uint8_t srrsp_flags; /**< PFCPSRRsp-Flags (Session Report Response). */
	uint8_t assoc_rel_req; /**< PFCP Association Release Request octet 5 (SARR bit 0x01). */
	uint32_t graceful_rel; /**< Graceful Release Period, the timer octet as sent. */

	uint8_t n_create_pdr, n_create_far, n_create_qer, n_create_urr;
	uint8_t n_update_pdr, n_update_far, n_update_qer, n_update_urr;
	uint8_t n_remove_pdr, n_remove_far, n_remove_qer, n_remove_urr;
	uint8_t n_query_urr;
	struct pfcp_pdr create_pdr[UPF_MAX_PDR];
	struct pfcp_far create_far[UPF_MAX_FAR];
	struct pfcp_qer create_qer[UPF_MAX_QER];
	struct pfcp_urr create_urr[UPF_MAX_URR];
	struct pfcp_pdr update_pdr[UPF_MAX_PDR];
	struct pfcp_far update_far[UPF_MAX_FAR];
	struct pfcp_qer update_qer[UPF_MAX_QER];
	struct pfcp_urr update_urr[UPF_MAX_URR];
	uint16_t remove_pdr[UPF_MAX_PDR];
	uint32_t remove_far[UPF_MAX_FAR];
	uint32_t remove_qer[UPF_MAX_QER];
	uint32_t remove_urr[UPF_MAX_URR];
	uint32_t query_urr[PFCP_MAX_QUERY_URR];
	/* Traffic Endpoints (PDI optimisation, PDIU): see struct pfcp_pdr. */
	uint8_t n_create_te, n_update_te, n_remove_te;
	struct pfcp_pdr create_te[PFCP_MAX_TE];
	struct pfcp_pdr update_te[PFCP_MAX_TE];
	uint8_t remove_te[PFCP_MAX_TE];
	/* A session has one BAR at most (PFCP_M_*_BAR say which are here). */
	struct pfcp_bar create_bar, update_bar;
	uint8_t remove_bar;
};

/**
 * Why a message was rejected: the Cause to answer with, the IE to name in
 * the Offending IE IE (0: none), and for a rule that could not be created
 * or changed (Cause 73) the Failed Rule ID.
 */
struct pfcp_err {
	uint8_t cause; /**< enum pfcp_cause. */
	uint16_t ie; /**< Offending IE type, 0: none. */
	uint8_t rule_type; /**< enum pfcp_rule_type; PFCP_RULE_NONE: none. */
	uint32_t rule_id;
	char why[128]; /**< For the log: what was wrong. */
};

/** pfcp_decode() results. */
enum pfcp_dec_rc {
	PFCP_DEC_OK = 0,
	PFCP_DEC_DROP = -1, /**< Header unreadable: drop and count, nothing to answer. */
	PFCP_DEC_VERSION = -2, /**< Version not 1: answer Version Not Supported (h.seq is read). */
	PFCP_DEC_REJECT = -3, /**< Header read (m->h), body faulty: answer with err. */
	PFCP_DEC_UNKNOWN = -4, /**< Header read, a message type this codec does not decode. */
};

/**
 * Read the header of the first message of a datagram (for the response
 * cache before a full decode).
 * @return PFCP_DEC_OK, PFCP_DEC_DROP, PFCP_DEC_VERSION, or PFCP_DEC_REJECT
 *         with err (the length field runs past the datagram: Cause 68).
 */
int pfcp_decode_header(const uint8_t *buf, size_t len, struct pfcp_hdr *h, struct pfcp_err *err);

/**
 * Decode the first message of a datagram into m (wholly overwritten).
 * Messages decoded: Heartbeat Request/Response, Association Setup / Update
 * / Release Request and Response, Session Establishment / Modification /
 * Deletion Request, Session Report Response.
 * @return enum pfcp_dec_rc; err is set for PFCP_DEC_REJECT (and DROP / VERSION / UNKNOWN,
 *         with err->why only).
 */
int pfcp_decode(const uint8_t *buf, size_t len, struct pfcp_msg *m, struct pfcp_err *err);

/** Name of a message type for logs and telemetry ("unknown" if none). */
const char *pfcp_msg_name(uint8_t type);

/* ---- Encoding ------------------------------------------------------- */

/** A bounded writer: nothing is written past cap; overflow sticks. */
struct pfcp_w {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;
	size_t hdr; /**< Offset of the open message header. */
};

void pfcp_w_init(struct pfcp_w *w, void *buf, size_t cap);
/** Start a message: seid is written when has_seid (session messages). */
void pfcp_w_hdr_begin(struct pfcp_w *w, uint8_t type, bool has_seid, uint64_t seid, uint32_t seq);
/** Patch the open message's length. @return its total length, or -ENOSPC on overflow. */
int pfcp_w_hdr_end(struct pfcp_w *w);
/** Raw bytes (inside an open IE). */
void pfcp_w_raw(struct pfcp_w *w, const void *p, size_t n);
void pfcp_w_raw8(struct pfcp_w *w, uint8_t v);
void pfcp_w_raw16(struct pfcp_w *w, uint16_t v); /**< Network order. */
void pfcp_w_raw32(struct pfcp_w *w, uint32_t v);
void pfcp_w_raw64(struct pfcp_w *w, uint64_t v);
/** Open an IE (grouped or composite): @return the offset to pass to pfcp_w_ie_end(). */
size_t pfcp_w_ie_begin(struct pfcp_w *w, uint16_t type);
void pfcp_w_ie_end(struct pfcp_w *w, size_t off);
/** Whole IEs with a fixed-size value (network order). */
void pfcp_w_ie_u8(struct pfcp_w *w, uint16_t type, uint8_t v);
void pfcp_w_ie_u16(struct pfcp_w *w, uint16_t type, uint16_t v);
void pfcp_w_ie_u32(struct pfcp_w *w, uint16_t type, uint32_t v);
void pfcp_w_ie_u64(struct pfcp_w *w, uint16_t type, uint64_t v);
void pfcp_w_ie_bytes(struct pfcp_w *w, uint16_t type, const void *p, size_t n);

/* IE writers. */
void pfcp_w_node_id(struct pfcp_w *w, const struct pfcp_node_id *id);
void pfcp_w_fseid(struct pfcp_w *w, const struct pfcp_fseid *f);
/** F-TEID with a TEID and v4 / v6 (af 0: absent). */
void pfcp_w_fteid(struct pfcp_w *w, uint32_t teid, const struct upf_ip *v4,
		  const struct upf_ip *v6);
/** UP Function Features: n octets (1..8) of f, octet 5 from the low byte. */
void pfcp_w_features(struct pfcp_w *w, uint16_t type, uint64_t f, unsigned int n);
void pfcp_w_failed_rule(struct pfcp_w *w, uint8_t rule_type, uint32_t rule_id);

/** One Usage Report to send. */
struct pfcp_usage_report {
	uint32_t urr_id;
	uint32_t ur_seqn;
	uint32_t trigger; /**< PFCP_URT_* */
	uint32_t start_time, end_time; /**< NTP seconds; 0: not sent. */
	bool has_volume;
	struct upf_usage vol; /**< [0] uplink, [1] downlink; the total is their sum. */
	bool has_duration;
	uint32_t duration_s;
};

/** Usage Report IE of type PFCP_IE_USAGE_REPORT_SMR, _SDR or _SRR. */
void pfcp_w_usage_report(struct pfcp_w *w, uint16_t type, const struct pfcp_usage_report *u);

/**
 * A Created PDR, or a Created Traffic Endpoint (te; pdr_id is then its
 * Traffic Endpoint ID): the F-TEID and UE address the UP chose.
 */
struct pfcp_created_pdr {
	uint16_t pdr_id;
	bool te;
	uint32_t teid; /**< The chosen local F-TEID; 0: none (no F-TEID IE). */
	struct upf_ip v4, v6; /**< Its addresses; af 0: absent. */
	struct upf_ip ue4, ue6; /**< Chosen UE address / IPv6 prefix; af 0: absent. */
	uint8_t ue6_dbits; /**< ue6 is a /(64 - ue6_dbits) (IPv6D); 0: a /64. */
};

/** What a Session Establishment / Modification / Deletion Response carries. */
struct pfcp_sess_resp {
	uint64_t seid; /**< Header SEID: the CP's F-SEID (0 if unknown). */
	uint32_t seq;
	uint8_t cause;
	uint16_t offending_ie; /**< 0: none. */
	uint8_t failed_rule_type; /**< PFCP_RULE_NONE: none. */
	uint32_t failed_rule_id;
	const struct pfcp_node_id *node_id; /**< Establishment only (mandatory there). */
	const struct pfcp_fseid *up_fseid; /**< Establishment, accepted: NULL otherwise. */
	unsigned int n_created;
	const struct pfcp_created_pdr *created;
	unsigned int n_usage;
	const struct pfcp_usage_report *usage; /**< Modification / Deletion. */
};

/** What a Session Report Request carries. */
struct pfcp_sess_report {
	uint64_t seid; /**< The CP's SEID. */
	uint32_t seq;
	uint8_t report_type; /**< PFCP_REPORT_* */
	unsigned int n_dl_pdr; /**< DLDR: PDR IDs of the Downlink Data Report (1..PFCP_MAX_DL_PDR). */
	uint16_t dl_pdr[PFCP_MAX_DL_PDR];
	unsigned int n_usage; /**< USAR. */
	const struct pfcp_usage_report *usage;
};

/*
 * Message builders: each appends one whole message to w.
 * @return the message's length, or -ENOSPC if w overflowed.
 */
int pfcp_build_heartbeat_req(struct pfcp_w *w, uint32_t seq, uint32_t recovery_ts);
int pfcp_build_heartbeat_resp(struct pfcp_w *w, uint32_t seq, uint32_t recovery_ts);
int pfcp_build_version_not_supported(struct pfcp_w *w, uint32_t seq);
/** A UE IP address pool as the Association Setup Response announces it. */
struct pfcp_pool_info {
	const char *id; /**< UE IP address Pool Identity. */
	const char *ni; /**< The Network Instance it belongs to, as text. */
};

/**
 * Association Setup Response; with cause 1 only, the UP Function Features
 * (n_feat_octets 0: none) and a UE IP address Pool Information IE per pool.
 */
int pfcp_build_assoc_setup_resp(struct pfcp_w *w, uint32_t seq, const struct pfcp_node_id *id,
				uint8_t cause, uint32_t recovery_ts, uint64_t up_features,
				unsigned int n_feat_octets, const struct pfcp_pool_info *pools,
				unsigned int n_pools);
int pfcp_build_assoc_update_resp(struct pfcp_w *w, uint32_t seq, const struct pfcp_node_id *id,
				 uint8_t cause, uint64_t up_features, unsigned int n_feat_octets);
int pfcp_build_assoc_release_resp(struct pfcp_w *w, uint32_t seq, const struct pfcp_node_id *id,
				  uint8_t cause);
int pfcp_build_sess_est_resp(struct pfcp_w *w, const struct pfcp_sess_resp *r);
int pfcp_build_sess_mod_resp(struct pfcp_w *w, const struct pfcp_sess_resp *r);
int pfcp_build_sess_del_resp(struct pfcp_w *w, const struct pfcp_sess_resp *r);
int pfcp_build_sess_report_req(struct pfcp_w *w, const struct pfcp_sess_report *r);
/**
 * A response to a request whose body could not be decoded, of the
 * request's response type (type + 1), with the Node ID (where given), Cause,
 * Offending IE (err->ie, if not 0) and, for Cause 73 with a rule, the Failed
 * Rule ID. For the agent's PFCP_DEC_REJECT path: Session Establishment
 * (pass the Node ID), Modification and Deletion Requests, Association Update
 * and Release Requests (Node ID needed). -EINVAL for other types: a Heartbeat
 * Response has no Cause, an Association Setup Response needs its Recovery
 * Time Stamp (pfcp_build_assoc_setup_resp() with err->cause).
 */
int pfcp_build_error_resp(struct pfcp_w *w, const struct pfcp_hdr *req, uint64_t seid,
			  const struct pfcp_node_id *id, const struct pfcp_err *err);

#endif /* LF_PFCP_H */
