/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the configuration loader: the input is the INI
 * file given to config_load(). An accepted configuration is also dumped
 * (config_dump()), turned into EAL arguments (config_eal_args()) and has
 * its route and ACL files read (tables_load_files()), as --check-config and
 * start-up do; a rejected one must leave a message. The run's directory
 * holds small route and ACL files that relative paths in the input (r4.txt,
 * r6.txt, acl4.txt, acl6.txt) find.
 */
#include <errno.h>
#include <string.h>

#include "config.h"
#include "fuzz_common.h"
#include "tables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lf_config cfg;
	struct lf_table_src src;
	static FILE *devnull;
	char err[LF_ERR_LEN];
	char argv0[] = "lanefwd";
	char *argv[128];
	char buf[4096];
	int ret;

	if (devnull == NULL) {
		static const char r4[] = "10.0.0.0/8 0\n0.0.0.0/0 7\n";
		static const char r6[] = "2001:db8::/32 0\n";
		static const char a4[] =
			"@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x06/0xFF\n";
		static const char a6[] = "@2001:db8::/32\t::/0\t0 : 65535\t0 : 65535\t0x11/0xFF\n";

		devnull = fopen("/dev/null", "w");
		if (devnull == NULL)
			abort();
		fuzz_write("r4.txt", r4, sizeof(r4) - 1);
		fuzz_write("r6.txt", r6, sizeof(r6) - 1);
		fuzz_write("acl4.txt", a4, sizeof(a4) - 1);
		fuzz_write("acl6.txt", a6, sizeof(a6) - 1);
	}
	memset(err, 0x55, sizeof(err));
	ret = config_load(fuzz_file(data, size), &cfg, err, sizeof(err));
	if (ret != 0) {
		fuzz_check_err(err, sizeof(err));
		if (err[0] == '\0' || cfg.nexthops != NULL)
			abort();
		return 0;
	}
	if (cfg.n_ports == 0 || cfg.n_workers == 0 || cfg.n_ports > LF_MAX_PORTS ||
	    cfg.n_workers > LF_MAX_WORKERS || cfg.pipeline.burst == 0 ||
	    cfg.pipeline.burst > LF_BURST_MAX)
		abort();
	config_dump(&cfg, devnull);
	ret = config_eal_args(&cfg, argv0, argv, RTE_DIM(argv), buf, sizeof(buf));
	if (ret != -ENOSPC && (ret < 1 || argv[ret] != NULL))
		abort();
	memset(err, 0x55, sizeof(err));
	if (tables_load_files(&cfg, &src, err, sizeof(err)) == 0)
		tables_src_free(&src);
	else
		fuzz_check_err(err, sizeof(err));
	config_free(&cfg);
	return 0;
}
