/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The PFCP (N4) agent: a control thread (rte_ctrl_thread_create) that
 * serves PFCP on [upf] pfcp_addr:pfcp_port, keeps associations and sessions
 * in control form (upf.h), publishes them through the store, and sends
 * Session Reports (usage thresholds, downlink data). It also drains the
 * workers' to_ctrl rings (buffered downlink packets) and feeds their
 * from_ctrl rings (released buffers). Its counters and state are in
 * telemetry under /lanefwd/upf.
 */
#ifndef LF_PFCP_AGENT_H
#define LF_PFCP_AGENT_H

#include <stddef.h>

#include "config.h"
#include "upf.h"

/**
 * Bind the socket, register the telemetry commands and start the thread.
 * @return 0, or -errno with err naming the address and port.
 */
int pfcp_agent_start(const struct lf_config *cfg, struct upf_store *store, char *err,
		     size_t errlen);

/** Stop the thread and free the sessions (the store is the caller's). */
void pfcp_agent_stop(void);

#endif /* LF_PFCP_AGENT_H */
