#!/usr/bin/env bash
# check-portable.sh BINARY...: the binaries run on any x86-64-v2 server.
# No instruction of theirs may use a 256- or 512-bit register or an AVX-512
# mask register, except in functions whose name ends in _avx512: those are
# the builds fastpath_select() runs only on a CPU that has AVX-512. (DPDK's
# own run-time choices live in its shared libraries, not in these files.)
set -euo pipefail
[ "$#" -ge 1 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }
bad=0
for bin in "$@"; do
	out=$(objdump -d --no-show-raw-insn "$bin" | awk '
		/^[0-9a-f]+ <[^>]+>:$/ { fn = $2; gsub(/[<>:]/, "", fn); next }
		/%[yz]mm[0-9]|%k[1-7]/ && fn !~ /_avx512$/ { n[fn]++ }
		END { for (f in n) printf "%s: %d instructions\n", f, n[f] }')
	if [ -n "$out" ]; then
		echo "check-portable: $bin has wide-vector code outside the _avx512 builds:"
		echo "$out" | sort | head -n 20 | sed 's/^/  /'
		bad=1
	fi
done
[ "$bad" -eq 0 ] && echo "portable: ok ($*)"
exit "$bad"
