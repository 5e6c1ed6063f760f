/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The UPF stages (docs/upf.md): uplink (LF_KIND_UPF_UL, packets the FIB
 * gave to an N3 address) and downlink (LF_KIND_UPF_DL, packets the FIB gave
 * to a UE pool). Each finds the packet's session in the store (upf.h), its
 * PDR, and applies the FAR, QERs and URRs; what goes on is an IP packet to
 * route (a decapsulated uplink packet, an encapsulated downlink one, or a
 * GTP-U reply lanefwd built: Echo Response, Error Indication), with its
 * meta set for the FIB and rewrite stages. What a stage does not pass on is
 * dropped (counted as "upf" in the worker's drops and by reason in
 * upf_wk_stats) or handed to the control thread (FAR BUFF).
 */
#ifndef LF_UPF_STAGE_H
#define LF_UPF_STAGE_H

#include "dp.h"

uint16_t upf_ul_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);
uint16_t upf_dl_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_UPF_STAGE_H */
