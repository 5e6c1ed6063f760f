/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * GTP-U (TS 29.281) as the UPF stages read and write it: the header, the
 * optional fields, the extension header chain and the PDU Session
 * Container (TS 38.415).
 */
#ifndef LF_GTPU_H
#define LF_GTPU_H

#include <stdint.h>

#define GTPU_PORT 2152

/* Flags octet: version (3 bits), PT, spare, E, S, PN. */
#define GTPU_V1 0x20
#define GTPU_VER_MASK 0xe0
#define GTPU_PT 0x10
#define GTPU_E 0x04
#define GTPU_S 0x02
#define GTPU_PN 0x01
#define GTPU_OPT (GTPU_E | GTPU_S | GTPU_PN)

/* Message types. */
#define GTPU_ECHO_REQ 1
#define GTPU_ECHO_RESP 2
#define GTPU_ERR_IND 26
#define GTPU_SUPP_EXT_NOTIF 31
#define GTPU_END_MARKER 254
#define GTPU_GPDU 255

/* Extension header types. */
#define GTPU_EXT_NONE 0x00
#define GTPU_EXT_PSC 0x85 /**< PDU Session Container. */
/* The two top bits of a type say who must understand it (29.281 5.2.1). */
#define GTPU_EXT_COMPREHENSION_REQUIRED 0x80
#define GTPU_EXT_MAX 8 /**< Extension headers one packet may chain. */

/* Information elements (29.281 8). */
#define GTPU_IE_RECOVERY 14
#define GTPU_IE_TEID_DATA_I 16
#define GTPU_IE_PEER_ADDR 133

/* PDU Session Container: PDU type in the high nibble of its first octet. */
#define GTPU_PSC_DL 0
#define GTPU_PSC_UL 1
#define GTPU_PSC_QFI_MASK 0x3f

/** The mandatory 8 octets. */
struct gtpu_hdr {
	uint8_t flags;
	uint8_t type;
	uint16_t len; /**< Octets after these 8, network order. */
	uint32_t teid; /**< Network order. */
} __attribute__((__packed__));

/** The optional 4 octets, present when any of E, S, PN is set. */
struct gtpu_opt {
	uint16_t seq;
	uint8_t npdu;
	uint8_t next_ext;
} __attribute__((__packed__));

#endif /* LF_GTPU_H */
