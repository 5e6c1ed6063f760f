#!/usr/bin/env bash
# check-portable.sh [--allow-from ARCHIVE] BINARY...: the binaries run on any
# x86-64-v2 server. No instruction of theirs may use a 256- or 512-bit
# register or an AVX-512 mask register, except in functions whose name ends
# in _avx512, or that ARCHIVE (the AVX-512 build of the fused stages,
# liblanefwd_avx512.a) defines: those run only on a CPU that has AVX-512,
# chosen by fastpath_select(). An unoptimised or sanitizer build leaves that
# build's inline helpers out of line, which is why the archive's own
# symbols count too. (DPDK's own run-time choices live in its shared
# libraries, not in these files.)
set -euo pipefail
allow=""
if [ "${1:-}" = "--allow-from" ]; then
	allow=$(nm --defined-only "$2" 2>/dev/null | awk '$2 ~ /^[tT]$/ {print $3}' | sort -u | tr '\n' ' ')
	shift 2
fi
[ "$#" -ge 1 ] || { echo "usage: $0 [--allow-from ARCHIVE] BINARY..." >&2; exit 2; }
bad=0
for bin in "$@"; do
	out=$(objdump -d --no-show-raw-insn "$bin" | awk -v allow="$allow" '
		/^[0-9a-f]+ <[^>]+>:$/ { fn = $2; gsub(/[<>:]/, "", fn); next }
		/%[yz]mm[0-9]|%k[1-7]/ && fn !~ /_avx512$/ && index(" " allow " ", " " fn " ") == 0 { n[fn]++ }
		END { for (f in n) printf "%s: %d instructions\n", f, n[f] }')
	if [ -n "$out" ]; then
		echo "check-portable: $bin has wide-vector code outside the _avx512 builds:"
		echo "$out" | sort | head -n 20 | sed 's/^/  /'
		bad=1
	fi
done
[ "$bad" -eq 0 ] && echo "portable: ok ($*)"
exit "$bad"
