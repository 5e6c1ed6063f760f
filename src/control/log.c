/* SPDX-License-Identifier: BSD-3-Clause */
/* Log types of lanefwd's components (lanefwd.main, lanefwd.port, ...). */
#include <rte_log.h>

#include "lf_log.h"

int lf_logtype_main;
int lf_logtype_config;
int lf_logtype_port;
int lf_logtype_fib;
int lf_logtype_worker;
int lf_logtype_tel;

static int
register_one(const char *name)
{
	int t = rte_log_register_type_and_pick_level(name, RTE_LOG_INFO);

	return t < 0 ? RTE_LOGTYPE_USER1 : t;
}

void
lf_log_init(void)
{
	lf_logtype_main = register_one("lanefwd.main");
	lf_logtype_config = register_one("lanefwd.config");
	lf_logtype_port = register_one("lanefwd.port");
	lf_logtype_fib = register_one("lanefwd.fib");
	lf_logtype_worker = register_one("lanefwd.worker");
	lf_logtype_tel = register_one("lanefwd.telemetry");
}
