/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of hot reload and its RCU (src/control/reload.c, tables.c) with a
 * fake worker thread. The fake worker is no struct worker: it is a pthread
 * registered on the application's RCU variable that reads app.tables as the
 * real worker loop does (one acquire load of the published generation per
 * iteration, lookups in that generation only, rte_rcu_qsbr_quiescent() once
 * it holds nothing), and checks every generation it sees.
 *
 * The route file of generation g has one /24 per generation so far:
 * 10.j.0/24 (j = 1..g) via next hop (j + g) % 8 + 1, and next hop i's MAC
 * carries g and i. So a lookup, the next-hop table and the generation number
 * agree only when all three belong to the same generation, a route added in
 * generation j is there in every g >= j, and 10.j.0/24 for j > g is not.
 *
 * The control side (this thread) runs reload_run() over and over, rewriting
 * the files in between; every tenth attempt a bad route line, a route to an
 * undefined next hop or a bad [nexthop] key, which must be rejected with an
 * error that names the file, the line and the value, and leave the old
 * generation in force. tables_free() is wrapped (-Wl,--wrap): a generation
 * must never be freed while the worker holds it, generations must be freed
 * once each, oldest first, and the wrapper poisons what it frees, so that a
 * worker still reading it would see a wrong generation number or MAC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_ip.h>
#include <rte_rcu_qsbr.h>

#include "config.h"
#include "fib.h"
#include "lanefwd.h"
#include "lf_log.h"
#include "reload.h"
#include "tables.h"

#define N_NH 8 /* Next hops 1..N_NH; the table has N_NH + 1 entries. */
#define N_ATTEMPTS 150 /* Reloads, every tenth of them bad. */
#define LOOKUPS 16 /* Addresses the worker looks up per iteration. */
#define POISON_GEN 0xdeadbeefu
#define MAX_GEN 1024

static struct lf_app app;
/* The CPUs this process may use, before EAL pins the main thread to one:
 * the fake worker runs on any of them, beside the reloads. */
static cpu_set_t all_cpus;
static char dir[64];
static char conf_path[128];
static char routes_path[128];

/* What the fake worker records; the control thread reads it after join,
 * or (held) from inside reload_run() through the tables_free() wrapper. */
static struct {
	pthread_t thread;
	bool quit;
	const struct lf_tables *held; /* The generation in use; NULL between iterations. */
	uint32_t last_gen; /* The newest generation it has seen. */
	uint64_t iterations;
	uint64_t lookups;
	uint32_t gens_seen;
	uint64_t failures;
	char first_failure[512];
} fw;

/* What the tables_free() wrapper saw. */
static struct {
	uint32_t n; /* Calls. */
	uint32_t gen[MAX_GEN]; /* Generation freed by each call. */
	uint32_t held_violations; /* Freed while the worker held it. */
} freed;

void __real_tables_free(struct lf_tables *t);
void __wrap_tables_free(struct lf_tables *t);

void
__wrap_tables_free(struct lf_tables *t)
{
	uint32_t i;

	if (t == NULL) {
		__real_tables_free(t);
		return;
	}
	/* After the grace period the worker may hold the new generation, or
	 * none, never this one. */
	if (__atomic_load_n(&fw.held, __ATOMIC_SEQ_CST) == t)
		freed.held_violations++;
	if (freed.n < MAX_GEN)
		freed.gen[freed.n] = t->gen;
	freed.n++;
	/* Poison: a worker still reading this generation sees a generation
	 * number and next-hop MACs that no generation has. */
	__atomic_store_n(&t->gen, POISON_GEN, __ATOMIC_RELAXED);
	for (i = 0; i < t->nh_count; i++)
		memset(&t->nh_table[i].dst, 0xee, sizeof(t->nh_table[i].dst));
	__real_tables_free(t);
}

/* Next hop of 10.j.0/24 in generation g. */
static uint32_t
route_nh(uint32_t j, uint32_t g)
{
	return (j + g) % N_NH + 1;
}

/* Next hop i's MAC in generation g: 02:gg:gg:gg:gg:ii. */
static void
nh_mac(uint32_t g, uint32_t i, struct rte_ether_addr *m)
{
	m->addr_bytes[0] = 0x02;
	m->addr_bytes[1] = g >> 24;
	m->addr_bytes[2] = g >> 16;
	m->addr_bytes[3] = g >> 8;
	m->addr_bytes[4] = g;
	m->addr_bytes[5] = i;
}

static uint32_t
route_addr(uint32_t j, uint32_t host)
{
	return RTE_IPV4(10, (j >> 8) & 0xff, j & 0xff, host);
}

static void
write_text(const char *path, const char *text)
{
	char tmp[160];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

/*
 * The configuration of generation g. bad_nh_key: [nexthop 3]'s mac line
 * carries a bad value (a config error).
 */
static void
write_conf(uint32_t g, bool bad_nh_key)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	struct rte_ether_addr m;
	uint32_t i;

	assert_non_null(f);
	fprintf(f,
		"[eal]\nfile_prefix = lfut_reload\nhuge = no\n"
		"[routes]\nipv4 = routes4.txt\nipv4_max_routes = %u\nipv4_tbl8 = 16\n"
		/* Room for the router's own routes (tables_add_local_routes). */
		"ipv6_max_routes = 16\nipv6_tbl8 = 64\n"
		"[port p0]\nvdev = net_null0\n"
		"[worker 1]\nrx = p0:0\n",
		MAX_GEN + 32);
	for (i = 1; i <= N_NH; i++) {
		nh_mac(g, i, &m);
		if (bad_nh_key && i == 3)
			fprintf(f, "[nexthop %u]\nport = p0\nmac = 02:00:zz:00:00:03\n", i);
		else
			fprintf(f, "[nexthop %u]\nport = p0\nmac = " RTE_ETHER_ADDR_PRT_FMT "\n", i,
				RTE_ETHER_ADDR_BYTES(&m));
	}
	assert_int_equal(fclose(f), 0);
	write_text(conf_path, text);
	free(text);
}

/* The routes of generation g; bad (when not NULL) replaces line 3. */
static void
write_routes(uint32_t g, const char *bad)
{
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	uint32_t j;

	assert_non_null(f);
	for (j = 1; j <= g; j++) {
		if (bad != NULL && j == 3)
			fprintf(f, "%s\n", bad);
		else
			fprintf(f, "10.%u.%u.0/24 %u\n", (j >> 8) & 0xff, j & 0xff, route_nh(j, g));
	}
	assert_int_equal(fclose(f), 0);
	write_text(routes_path, text);
	free(text);
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Check that generation t is whole: its number, next-hop table and FIB
 * belong together. Returns NULL or what is wrong (in buf).
 */
static const char *
check_generation(const struct lf_tables *t, uint64_t *rng, char *buf, size_t len)
{
	uint32_t ips[LOOKUPS], g = __atomic_load_n(&t->gen, __ATOMIC_RELAXED);
	uint64_t nhs[LOOKUPS];
	struct rte_ether_addr m;
	uint32_t i;

	if (g == POISON_GEN) {
		snprintf(buf, len, "a freed generation in use");
		return buf;
	}
	/* The router's own routes and next hops come with every generation
	 * (tables_add_local_routes: 7 IPv4 prefixes, LF_LOCAL_COUNT ids). */
	if (g == 0 || g > MAX_GEN || t->fib.n4 != g + 7 ||
	    t->nh_count != N_NH + 1 + LF_LOCAL_COUNT) {
		snprintf(buf, len, "generation %u with %u routes and %u next hops", g, t->fib.n4,
			 t->nh_count);
		return buf;
	}
	if (t->nh_table[0].out != LF_NH_INVALID) {
		snprintf(buf, len, "generation %u: next hop 0 is defined", g);
		return buf;
	}
	for (i = 1; i <= N_NH; i++) {
		nh_mac(g, i, &m);
		if (!rte_is_same_ether_addr(&m, &t->nh_table[i].dst) || t->nh_table[i].out != 0) {
			snprintf(buf, len,
				 "generation %u: next hop %u is " RTE_ETHER_ADDR_PRT_FMT
				 " on port %u, expected " RTE_ETHER_ADDR_PRT_FMT " on port 0",
				 g, i, RTE_ETHER_ADDR_BYTES(&t->nh_table[i].dst),
				 t->nh_table[i].out, RTE_ETHER_ADDR_BYTES(&m));
			return buf;
		}
	}
	/* Routes of this generation and a few of the next ones. */
	for (i = 0; i < LOOKUPS; i++)
		ips[i] = route_addr(xorshift(rng) % (g + 4) + 1, xorshift(rng) & 0xff);
	if (rte_fib_lookup_bulk(t->fib.v4, ips, nhs, LOOKUPS) != 0) {
		snprintf(buf, len, "generation %u: rte_fib_lookup_bulk failed", g);
		return buf;
	}
	for (i = 0; i < LOOKUPS; i++) {
		uint32_t j = (ips[i] >> 8) & 0xffff;
		uint64_t want = j <= g ? route_nh(j, g) : LF_NH_NONE;

		if (nhs[i] != want) {
			snprintf(buf, len,
				 "generation %u: 10.%u.%u.%u -> next hop %" PRIu64
				 ", expected %" PRIu64,
				 g, j >> 8, j & 0xff, ips[i] & 0xff, nhs[i], want);
			return buf;
		}
	}
	/* Still the same generation after the lookups (not freed under us). */
	if (__atomic_load_n(&t->gen, __ATOMIC_RELAXED) != g) {
		snprintf(buf, len, "generation %u changed to %u while in use", g,
			 __atomic_load_n(&t->gen, __ATOMIC_RELAXED));
		return buf;
	}
	return NULL;
}

/* The fake worker's loop: the real one's reading of app.tables, no packets. */
static void *
fake_worker_main(void *arg)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	char buf[256];

	(void)arg;
	rte_rcu_qsbr_thread_online(app.qsv, 0);
	while (!__atomic_load_n(&fw.quit, __ATOMIC_ACQUIRE)) {
		const struct lf_tables *t = __atomic_load_n(&app.tables, __ATOMIC_ACQUIRE);
		const char *why;

		__atomic_store_n(&fw.held, t, __ATOMIC_SEQ_CST);
		why = check_generation(t, &rng, buf, sizeof(buf));
		if (why == NULL && t->gen < fw.last_gen) {
			snprintf(buf, sizeof(buf), "generation %u after generation %u", t->gen,
				 fw.last_gen);
			why = buf;
		}
		if (why != NULL) {
			if (__atomic_fetch_add(&fw.failures, 1, __ATOMIC_RELAXED) == 0)
				snprintf(fw.first_failure, sizeof(fw.first_failure), "%s", why);
		} else if (t->gen != fw.last_gen) {
			fw.gens_seen++;
			__atomic_store_n(&fw.last_gen, t->gen, __ATOMIC_RELEASE);
		}
		fw.iterations++;
		fw.lookups += LOOKUPS;
		/* It holds nothing now: the quiescent state says so. */
		__atomic_store_n(&fw.held, NULL, __ATOMIC_RELEASE);
		rte_rcu_qsbr_quiescent(app.qsv, 0);
	}
	rte_rcu_qsbr_thread_offline(app.qsv, 0);
	return NULL;
}

/* A rejected reload: ret, the error's parts, and nothing changed. */
static void
expect_rejected(const char *what, const char *part1, const char *part2)
{
	struct lf_tables *before = app.tables;
	uint32_t gen = before->gen, nfreed = freed.n;
	uint64_t failures = app.reload_failures;
	char err[LF_ERR_LEN];
	int ret;

	err[0] = '\0';
	ret = reload_run(&app, err, sizeof(err));
	if (ret >= 0 || strstr(err, part1) == NULL || strstr(err, part2) == NULL)
		fail_msg("%s: reload_run returned %d, error '%s'; expected an error naming '%s' "
			 "and '%s'",
			 what, ret, err, part1, part2);
	assert_ptr_equal(app.tables, before);
	assert_int_equal(app.tables->gen, gen);
	assert_int_equal(freed.n, nfreed);
	assert_int_equal(app.reload_failures, failures + 1);
	assert_string_equal(app.reload_error, err);
}

static void
test_reload_under_rcu(void **state)
{
	struct rte_ether_addr macs[LF_MAX_PORTS] = { 0 };
	struct lf_table_src src;
	pthread_attr_t attr;
	uint32_t gen = 1, k, i, good = 0, bad = 0;
	uint64_t rng = 12345;
	char err[LF_ERR_LEN], buf[256];
	int ret;

	(void)state;
	/* Generation 1, built the way main.c builds it. */
	write_conf(1, false);
	write_routes(1, NULL);
	if (config_load(conf_path, &app.cfg, err, sizeof(err)) != 0)
		fail_msg("config_load: %s", err);
	if (tables_load_files(&app.cfg, &src, err, sizeof(err)) != 0)
		fail_msg("tables_load_files: %s", err);
	app.tables = tables_build(&app.cfg, &src, macs, SOCKET_ID_ANY, 1, err, sizeof(err));
	if (app.tables == NULL)
		fail_msg("tables_build: %s", err);
	assert_null(check_generation(app.tables, &rng, buf, sizeof(buf)));
	/* No struct worker: the RCU variable for one reader, registered here. */
	app.n_workers = 0;
	assert_int_equal(reload_init(&app), 0);
	assert_int_equal(rte_rcu_qsbr_thread_register(app.qsv, 0), 0);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof(all_cpus), &all_cpus), 0);
	assert_int_equal(pthread_create(&fw.thread, &attr, fake_worker_main, NULL), 0);
	pthread_attr_destroy(&attr);

	for (k = 1; k <= N_ATTEMPTS; k++) {
		if (k % 30 == 10) {
			write_routes(gen + 1, "10.0.3.0/33 1");
			expect_rejected("a bad prefix length", "routes4.txt:3", "10.0.3.0/33");
			bad++;
			continue;
		}
		if (k % 30 == 20) {
			write_routes(gen + 1, "10.0.3.0/24 99");
			expect_rejected("an undefined next hop", "routes4.txt:3", "99");
			bad++;
			continue;
		}
		if (k % 30 == 0) {
			write_conf(gen + 1, true);
			expect_rejected("a bad [nexthop] mac", "reload.conf:", "02:00:zz:00:00:03");
			bad++;
			continue;
		}
		write_conf(gen + 1, false);
		write_routes(gen + 1, NULL);
		ret = reload_run(&app, err, sizeof(err));
		if (ret != 0)
			fail_msg("reload %u (generation %u): %d: %s", k, gen + 1, ret, err);
		gen++;
		good++;
		/* The new generation is in force, whole, and the old one is gone. */
		assert_int_equal(app.tables->gen, gen);
		if (check_generation(app.tables, &rng, buf, sizeof(buf)) != NULL)
			fail_msg("control: %s", buf);
		if (freed.held_violations != 0)
			fail_msg("reload %u freed generation %u while the worker held it", k,
				 gen - 1);
		assert_int_equal(freed.n, good);
		assert_int_equal(freed.gen[good - 1], gen - 1);
		/* Let the worker adopt this generation before the next reload on
		 * every other one, so that it sees many, and skips some. */
		if (gen % 2 == 0)
			while (__atomic_load_n(&fw.last_gen, __ATOMIC_ACQUIRE) != gen &&
			       __atomic_load_n(&fw.failures, __ATOMIC_RELAXED) == 0)
				sched_yield();
	}

	__atomic_store_n(&fw.quit, true, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(fw.thread, NULL), 0);
	print_message("%u reloads, %u rejected; the worker ran %" PRIu64 " iterations (%" PRIu64
		      " lookups) and saw %u generations, up to %u\n",
		      good, bad, fw.iterations, fw.lookups, fw.gens_seen, fw.last_gen);
	if (fw.failures != 0)
		fail_msg("the worker saw %" PRIu64 " bad generations, the first: %s", fw.failures,
			 fw.first_failure);
	assert_int_equal(freed.held_violations, 0);
	/* Monotonic: generations 1..gen-1 freed once each, in order. */
	assert_int_equal(freed.n, gen - 1);
	for (i = 0; i < freed.n; i++)
		assert_int_equal(freed.gen[i], i + 1);
	assert_int_equal(app.reloads, good);
	assert_int_equal(app.reload_failures, bad);
	assert_int_equal(gen, good + 1);
	/* The worker saw at least the generations it was made to wait for. */
	assert_true(fw.gens_seen >= good / 2);
	assert_int_equal(fw.last_gen, gen);

	/* burst = auto and its keys are [pipeline]: a reload refuses them and
	 * says a restart applies them. */
	write_conf(gen, false);
	{
		FILE *f = fopen(conf_path, "a");

		assert_non_null(f);
		assert_true(fputs("[pipeline]\nburst = auto\nlatency_target_us = 20\n", f) >= 0);
		assert_int_equal(fclose(f), 0);
	}
	expect_rejected("burst = auto", "[pipeline] changed", "needs a restart");

	/* So are [upf] and its network instances (the agent's pools and the
	 * routes to them would part). */
	write_conf(gen, false);
	{
		FILE *f = fopen(conf_path, "a");

		assert_non_null(f);
		assert_true(fputs("[upf]\nn3_ipv4 = 192.168.3.1\n"
				  "[network_instance internet]\nue_pool = 10.45.0.0/16\n",
				  f) >= 0);
		assert_int_equal(fclose(f), 0);
	}
	expect_rejected("[upf]", "[upf] or a [network_instance] changed", "needs a restart");
}

static int
setup(void **state)
{
	char prefix[32];
	char *argv[] = {
		"test_reload",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		prefix,
		"--log-level",
		"3",
		"-l",
		"0",
		NULL,
	};
	char lcore[16];
	int cpu = 0;

	(void)state;
	/* The first CPU this process may run on, as EAL's main lcore. */
	if (sched_getaffinity(0, sizeof(all_cpus), &all_cpus) != 0)
		return -1;
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &all_cpus))
		cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	argv[RTE_DIM(argv) - 2] = lcore;
	snprintf(prefix, sizeof(prefix), "lfut_reload%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	lf_log_init();
	snprintf(dir, sizeof(dir), "/tmp/lfut_reload.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(conf_path, sizeof(conf_path), "%s/reload.conf", dir);
	snprintf(routes_path, sizeof(routes_path), "%s/routes4.txt", dir);
	pthread_mutex_init(&app.ctl_lock, NULL);
	pthread_mutex_init(&app.lat_lock, NULL);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tables_free(app.tables);
	app.tables = NULL;
	reload_free(&app);
	config_free(&app.cfg);
	unlink(conf_path);
	unlink(routes_path);
	rmdir(dir);
	rte_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reload_under_rcu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
