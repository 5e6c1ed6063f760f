/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control side of the residence-time histograms. Each worker records into
 * one of two buffers; once a second the control thread asks it to switch,
 * waits for the acknowledgement, and then owns the other buffer: it merges
 * it into the "since start" histogram, keeps it as "last interval" and
 * clears it. Workers never wait and never see a lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "latency.h"
#include "lf_log.h"

int
latency_init(struct lf_app *app)
{
	unsigned int i, b;

	app->lat_last_tsc = rte_rdtsc();
	for (i = 0; i < app->n_workers; i++) {
		struct worker *w = app->workers[i];

		for (b = 0; b < 2; b++) {
			w->lat[b] = rte_malloc_socket("lf_lat", sizeof(struct lf_hist),
						      RTE_CACHE_LINE_SIZE, w->socket);
			if (w->lat[b] == NULL)
				return -ENOMEM;
			lf_hist_reset(w->lat[b]);
		}
		app->lat_total[i] = malloc(sizeof(struct lf_hist));
		app->lat_interval[i] = malloc(sizeof(struct lf_hist));
		if (app->lat_total[i] == NULL || app->lat_interval[i] == NULL)
			return -ENOMEM;
		lf_hist_reset(app->lat_total[i]);
		lf_hist_reset(app->lat_interval[i]);
		w->latency = app->cfg.pipeline.latency;
	}
	return 0;
}

void
latency_collect(struct lf_app *app)
{
	const uint64_t now = rte_rdtsc();
	unsigned int i, spins;

	for (i = 0; i < app->n_workers; i++) {
		struct worker *w = app->workers[i];
		uint32_t req = w->lat_req + 1;
		struct lf_hist *done;

		__atomic_store_n(&w->lat_req, req, __ATOMIC_RELEASE);
		for (spins = 0; spins < 1000; spins++) {
			if (__atomic_load_n(&w->lat_ack, __ATOMIC_ACQUIRE) == req)
				break;
			usleep(10);
		}
		if (spins == 1000) {
			/* The worker did not come round (stopping?): try next time. */
			LF_LOG(DEBUG, main, "worker %u did not swap its latency buffer", w->lcore);
			continue;
		}
		/* The worker now writes lat[req & 1]; the other one is ours. */
		done = w->lat[(req & 1) ^ 1];
		pthread_mutex_lock(&app->lat_lock);
		lf_hist_add(app->lat_total[i], done);
		memcpy(app->lat_interval[i], done, sizeof(*done));
		pthread_mutex_unlock(&app->lat_lock);
		lf_hist_reset(done);
	}
	pthread_mutex_lock(&app->lat_lock);
	app->lat_interval_ms = (now - app->lat_last_tsc) * 1000 / rte_get_tsc_hz();
	pthread_mutex_unlock(&app->lat_lock);
	app->lat_last_tsc = now;
}

void
latency_drain(struct lf_app *app)
{
	unsigned int i, b;

	pthread_mutex_lock(&app->lat_lock);
	for (i = 0; i < app->n_workers; i++) {
		struct worker *w = app->workers[i];

		for (b = 0; b < 2; b++) {
			if (w->lat[b] == NULL)
				continue;
			lf_hist_add(app->lat_total[i], w->lat[b]);
			lf_hist_reset(w->lat[b]);
		}
	}
	pthread_mutex_unlock(&app->lat_lock);
}

void
latency_reset(struct lf_app *app)
{
	unsigned int i;

	pthread_mutex_lock(&app->lat_lock);
	for (i = 0; i < app->n_workers; i++) {
		if (app->lat_total[i] != NULL)
			lf_hist_reset(app->lat_total[i]);
		if (app->lat_interval[i] != NULL)
			lf_hist_reset(app->lat_interval[i]);
	}
	pthread_mutex_unlock(&app->lat_lock);
}

void
latency_free(struct lf_app *app)
{
	unsigned int i;

	pthread_mutex_lock(&app->lat_lock);
	for (i = 0; i < LF_MAX_WORKERS; i++) {
		free(app->lat_total[i]);
		free(app->lat_interval[i]);
		app->lat_total[i] = NULL;
		app->lat_interval[i] = NULL;
	}
	pthread_mutex_unlock(&app->lat_lock);
	for (i = 0; i < app->n_workers; i++) {
		rte_free(app->workers[i]->lat[0]);
		rte_free(app->workers[i]->lat[1]);
		app->workers[i]->lat[0] = NULL;
		app->workers[i]->lat[1] = NULL;
	}
}
