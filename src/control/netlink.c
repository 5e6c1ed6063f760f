/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder until the netlink code lands (netlink.h). */
#include "netlink.h"

int
netlink_start(struct lf_app *a, char *err, size_t errlen)
{
	(void)a, (void)err, (void)errlen;
	return 0;
}

void
netlink_stop(struct lf_app *a)
{
	(void)a;
}

int
netlink_tables_fill(struct lf_app *a, struct lf_tables *t, char *err, size_t errlen)
{
	(void)a, (void)t, (void)err, (void)errlen;
	return 0;
}
