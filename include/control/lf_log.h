/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Log types, one per component, and the wrapper macro used everywhere.
 * Never log on the per-packet path.
 */
#ifndef LF_LOG_H
#define LF_LOG_H

#include <rte_log.h>

extern int lf_logtype_main;
extern int lf_logtype_config;
extern int lf_logtype_port;
extern int lf_logtype_fib;
extern int lf_logtype_worker;
extern int lf_logtype_tel;

/** Log at LEVEL (ERR, WARNING, INFO, DEBUG) for component COMP (main, port, ...). */
#define LF_LOG(level, comp, fmt, ...) \
	rte_log(RTE_LOG_##level, lf_logtype_##comp, "lanefwd.%s: " fmt "\n", #comp, ##__VA_ARGS__)

/** Register the log types; called once before EAL init returns control. */
void lf_log_init(void);

#endif /* LF_LOG_H */
