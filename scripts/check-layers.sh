#!/usr/bin/env bash
# The datapath's layering, checked on the includes (docs/architecture.md):
#   lib       includes lib headers only (and config.h, lf_log.h for types
#             and logging);
#   stages    include dp.h, the shared packet helpers, lib headers and their
#             own header: never the loop (worker.h), the pipeline, TX, or
#             another stage;
#   tx        includes dp.h and lib headers;
#   pipeline  may include any datapath header but the loop's;
#   worker.c  the top: anything.
# A violation prints file: header and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bad=0
lib_h=$(cd include/lib && ls ./*.h | sed 's|^\./||')
shared_h="dp.h gtpu.h fused.h parse_fast.h parse_fast_x8.h cksum.h rewrite_pkt.h flow_lookup.h config.h lf_log.h"
stages="parse fastpath flow_stage acl_stage fib_stage rewrite unhandled upf_stage icmp_stage local_stage neigh_stage"

includes() { sed -n 's/^#include "\([^"]*\)".*/\1/p' "$@"; }
in_list() { local x=$1; shift; for y in "$@"; do [ "$x" = "$y" ] && return 0; done; return 1; }
check() { # file, allowed headers...
	local f=$1 h
	shift
	for h in $(includes "$f"); do
		if ! in_list "$h" "$@"; then
			echo "check-layers: $f includes $h, which its layer may not"
			bad=1
		fi
	done
}

for f in src/lib/*.c include/lib/*.h; do
	check "$f" $lib_h config.h lf_log.h
done
for s in $stages; do
	for f in "src/datapath/$s.c" "include/datapath/$s.h"; do
		check "$f" $lib_h $shared_h "$s.h"
	done
done
# The fused stages' build selector and the fused IPv6 stage belong to the
# fastpath stage.
check src/datapath/fastpath_select.c $lib_h $shared_h fastpath.h
check src/datapath/fastpath6.c $lib_h $shared_h fastpath.h
for f in include/datapath/dp.h include/datapath/fused.h include/datapath/parse_fast.h \
	include/datapath/flow_lookup.h include/datapath/gtpu.h \
	include/datapath/parse_fast_x8.h include/datapath/cksum.h include/datapath/rewrite_pkt.h \
	src/datapath/tx.c include/datapath/tx.h; do
	check "$f" $lib_h $shared_h tx.h
done
for f in src/datapath/pipeline.c include/datapath/pipeline.h; do
	check "$f" $lib_h $shared_h tx.h pipeline.h $(for s in $stages; do echo "$s.h"; done)
done
# Every datapath file is covered by one of the rules above or is the loop.
for f in src/datapath/*.c include/datapath/*.h; do
	b=$(basename "$f")
	b=${b%.*}
	case " $stages fastpath_select fastpath6 tx pipeline worker rxmode dp gtpu fused parse_fast parse_fast_x8 cksum rewrite_pkt flow_lookup " in
	*" $b "*) ;;
	*)
		echo "check-layers: $f belongs to no layer: add it to scripts/check-layers.sh"
		bad=1
		;;
	esac
done
# Only the pipeline and the loop transmit.
if grep -ln 'tx_burst\|tx_flush' src/datapath/*.c | grep -qv 'src/datapath/\(pipeline\|worker\|tx\)\.c'; then
	grep -ln 'tx_burst\|tx_flush' src/datapath/*.c | grep -v 'src/datapath/\(pipeline\|worker\|tx\)\.c' |
		sed 's/^/check-layers: transmits outside the pipeline: /'
	bad=1
fi
[ "$bad" -eq 0 ] && echo "layers: ok"
exit "$bad"
