/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which build of the fused stages runs (fastpath.h): chosen once, at start,
 * from the CPU's flags. Compiled for any x86-64 CPU, like everything but
 * the AVX-512 build of fastpath.c.
 */
#include <errno.h>

#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "fastpath.h"

bool
fastpath_avx512_usable(void)
{
#ifdef LF_HAVE_FUSED_AVX512
	const uint16_t width = rte_vect_get_max_simd_bitwidth();

	/*
	 * EAL's default width is 256 (drivers read it to pick their paths); a
	 * width the operator forced (--force-max-simd-bitwidth) makes setting
	 * it fail, and below 512 it rules AVX-512 out here too.
	 */
	if (width < RTE_VECT_SIMD_512 && rte_vect_set_max_simd_bitwidth(width) != 0)
		return false;
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0 &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512VL) > 0 &&
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512VBMI) > 0;
#else
	return false;
#endif
}

int
fastpath_select(struct lf_burst *b, enum lf_fused_simd want)
{
	bool avx512 = want != LF_FUSED_SCALAR && fastpath_avx512_usable();

	if (want == LF_FUSED_AVX512 && !avx512)
		return -ENOTSUP;
#ifdef LF_HAVE_FUSED_AVX512
	if (avx512) {
		b->fused_ip4 = fastpath_burst_avx512;
		b->fused_flow = fastpath_flow_burst_avx512;
		b->fused_avx512 = true;
		return 0;
	}
#endif
	b->fused_ip4 = fastpath_burst_scalar;
	b->fused_flow = fastpath_flow_burst_scalar;
	b->fused_avx512 = false;
	return 0;
}
