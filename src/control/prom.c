/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder until the exporter lands (prom.h). */
#include "prom.h"

int
prom_start(struct lf_app *a, char *err, size_t errlen)
{
	(void)a, (void)err, (void)errlen;
	return 0;
}

void
prom_stop(void)
{
}
