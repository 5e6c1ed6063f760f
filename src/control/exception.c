/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder until the exception path lands (exception.h). */
#include "exception.h"
#include "lanefwd.h"

int
exception_ports_create(struct lf_app *a, char *err, size_t errlen)
{
	unsigned int p;

	(void)err, (void)errlen;
	a->n_exc = 0;
	for (p = 0; p < LF_MAX_PORTS; p++)
		a->exc_port[p] = LF_NH_INVALID;
	return 0;
}

int
exception_kernel_setup(struct lf_app *a, char *err, size_t errlen)
{
	(void)a, (void)err, (void)errlen;
	return 0;
}

void
exception_free(struct lf_app *a)
{
	(void)a;
}
