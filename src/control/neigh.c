/* SPDX-License-Identifier: BSD-3-Clause */
/* Placeholder until the neighbour code lands (neigh.h). */
#include <errno.h>

#include "neigh.h"

int
neigh_start(struct lf_app *a, char *err, size_t errlen)
{
	(void)a, (void)err, (void)errlen;
	return 0;
}

void
neigh_stop(struct lf_app *a)
{
	(void)a;
}

void
neigh_tables_fill(struct lf_app *a, struct lf_tables *t)
{
	(void)a, (void)t;
}

int
neigh_learn(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *ip,
	    const struct rte_ether_addr *mac, bool permanent)
{
	(void)a, (void)port, (void)af, (void)ip, (void)mac, (void)permanent;
	return -ENOTSUP;
}

void
neigh_forget(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *ip)
{
	(void)a, (void)port, (void)af, (void)ip;
}

int
neigh_nh_get(struct lf_app *a, uint16_t port, uint8_t af, const uint8_t *gw, uint32_t *nh)
{
	(void)a, (void)port, (void)af, (void)gw, (void)nh;
	return -ENOTSUP;
}

void
neigh_nh_put(struct lf_app *a, uint32_t nh)
{
	(void)a, (void)nh;
}
