# telemetry: lanefwd's telemetry commands, read with the stock client
# (dpdk-telemetry.py -f PREFIX), report the traffic that was sent.
#
# 3000 frames (forwarded to two ports, and dropped for five reasons) are read
# once from a pcap (no infinite_rx, so the count is exact). Once rx_packets
# has stopped growing, telemetry_check.py checks /lanefwd/stats,
# /lanefwd/workers and /lanefwd/workers,1 against the frames sent and against
# each other (sum of workers = stats, cycles_per_packet = busy_cycles /
# rx_packets rounded and > 0, histogram buckets sum to polls, no poll above
# the configured burst), /lanefwd/info against the configuration, meson.build
# and DPDK's /ethdev/info, and the PMDs' /ethdev/stats against the traffic;
# that bad parameters (/lanefwd/workers,99 ,abc ,-1 ,1x) get an error dict
# while lanefwd keeps running and answering; and that the final counter lines
# agree with telemetry. Last, [routes] fib_lookup under an EAL SIMD width
# forced to 256 bits: avx512 refuses to start, auto runs the scalar lookup.
. "$(dirname "$0")/lib.sh"

D=$LF_TMP
N=3000
now() { date +%s.%N; }

cat > "$D/routes4.txt" <<'EOF'
10.1.0.0/16 1
10.2.0.0/16 0
10.9.0.0/24 1
EOF
cat > "$D/routes6.txt" <<'EOF'
2001:db8:1::/48 1
EOF
cat > "$D/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = no
memory = 256
telemetry = yes

[pipeline]
burst = 16
# auto: 8 (half the burst), and no packet data prefetch on the pcap ports
prefetch_distance = auto
tx_drain_us = 50

$(lf_conf_routes)

# The capture's frames are not addressed to the pcap port's MAC: take them
# as a switch port does (a routed port, the default, takes only its own).
[port p0]
vdev = net_pcap0,rx_pcap=$D/in.pcap,tx_pcap=$D/out_p0.pcap
promiscuous = yes
# No gratuitous ARP / unsolicited NA at start: tx is the forwarded frames.
[neighbour]
gratuitous = no

[port p1]
vdev = net_pcap1,rx_pcap=$D/empty.pcap,tx_pcap=$D/out_p1.pcap

[worker 1]
rx = p0:0 p1:0

[nexthop 0]
port = p0
mac = 02:00:00:00:0b:00

[nexthop 1]
port = p1
mac = 02:00:00:00:0b:01

# Expired TTLs counted as ttl_expired drops, not turned into ICMP errors.
[icmp]
time_exceeded = no
EOF

$PY "$LF_SRCDIR/tests/integration/telemetry_check.py" gen "$D" "$N" || die "cannot generate traffic"

T_START=$(now)
lf_start "$D/lanefwd.conf"
T_RUNNING=$(now)
lf_wait_settled

lf_tel_save /lanefwd/workers,1 "$D/tel_worker1_a.json"
lf_tel_save /lanefwd/stats "$D/tel_stats.json"
lf_tel_save /lanefwd/workers "$D/tel_workers.json"
T_B_START=$(now)
lf_tel_save /lanefwd/workers,1 "$D/tel_worker1_b.json"
T_B_END=$(now)
lf_tel_save /lanefwd/info "$D/tel_info.json"
T_INFO=$(now)
for p in 0 1; do
	lf_tel_save "/ethdev/info,$p" "$D/tel_ethdev_info_$p.json"
	lf_tel_save "/ethdev/stats,$p" "$D/tel_ethdev_stats_$p.json"
done

lf_tel_save /lanefwd/workers,99 "$D/tel_bad_99.json"
lf_tel_save /lanefwd/workers,abc "$D/tel_bad_abc.json"
lf_tel_save /lanefwd/workers,-1 "$D/tel_bad_neg.json"
lf_tel_save /lanefwd/workers,1x "$D/tel_bad_1x.json"
kill -0 "$LF_PID" 2>/dev/null || die "lanefwd died after a bad telemetry parameter"
lf_tel_save /lanefwd/stats "$D/tel_stats_after.json"
lf_tel_save /lanefwd/workers,1 "$D/tel_worker1_c.json"

# A stall: the whole process stopped for 0.3 s (SIGSTOP to our own lanefwd)
# is one loop iteration of at least 0.3 s once the worker runs again, which
# it counts (stalls, stall_max_cycles; dp.h LF_STALL_US). Lower bounds only:
# a stopped process cannot run sooner, and a loaded machine only adds.
lf_tel_save /lanefwd/workers,1 "$D/tel_stall_0.json"
kill -STOP "$LF_PID"
sleep 0.3
kill -CONT "$LF_PID"
sleep 0.3
lf_tel_save /lanefwd/workers,1 "$D/tel_stall_1.json"
$PY - "$D/tel_stall_0.json" "$D/tel_stall_1.json" "$D/tel_info.json" <<'PYEOF' || die "the worker did not count the stall"
import json, sys
a, b = (json.load(open(f))["/lanefwd/workers"] for f in sys.argv[1:3])
hz = json.load(open(sys.argv[3]))["/lanefwd/info"]["tsc_hz"]
print("stall: stalls %d -> %d, longest %.3f s" % (a["stalls"], b["stalls"],
                                                 b["stall_max_cycles"] / hz))
assert b["stalls"] >= a["stalls"] + 1, (a["stalls"], b["stalls"])
assert b["stall_max_cycles"] >= 0.29 * hz, b["stall_max_cycles"]
assert b["stall_cycles"] >= a["stall_cycles"] + 0.29 * hz
PYEOF

printf '{"start": %s, "running": %s, "b_start": %s, "b_end": %s, "info": %s}\n' \
	"$T_START" "$T_RUNNING" "$T_B_START" "$T_B_END" "$T_INFO" > "$D/times.json"

lf_stop_rc
[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT after SIGINT"
$PY "$LF_SRCDIR/tests/integration/telemetry_check.py" check "$D" || die "telemetry check failed"

# [routes] fib_lookup under a SIMD width the operator forced below 512 bits
# (EAL --force-max-simd-bitwidth=256): avx512 refuses to start, naming the
# key and the width; auto starts with the scalar lookup.
forced() { # FIB_LOOKUP > CONFIG
	sed -e "s/^telemetry = yes$/&\nextra = --force-max-simd-bitwidth=256/" \
		-e "s/^ipv6_tbl8 = 256$/&\nfib_lookup = $1/" "$D/lanefwd.conf"
}
forced avx512 > "$D/forced_avx512.conf"
grep -q "^fib_lookup = avx512" "$D/forced_avx512.conf" || die "forced_avx512.conf lacks fib_lookup"
rc=0
timeout 60 "$LANEFWD" -c "$D/forced_avx512.conf" > "$D/forced_avx512.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || die "fib_lookup = avx512 at a forced 256-bit width: exit $rc"
grep -qF "[routes] fib_lookup = avx512" "$D/forced_avx512.log" &&
	grep -qF "forced to 256 bits" "$D/forced_avx512.log" ||
	die "fib_lookup = avx512 at 256 bits: no error naming the key and width: $(tail -n 3 "$D/forced_avx512.log")"
echo "ok: fib_lookup = avx512 at a forced 256-bit width: exit $rc, $(grep -oF "[routes] fib_lookup = avx512" "$D/forced_avx512.log" | head -n 1)"
rm -rf "/var/run/dpdk/$LF_PREFIX"
forced auto > "$D/forced_auto.conf"
lf_start "$D/forced_auto.conf"
fib=$(lf_tel /lanefwd/info | $PY -c 'import json, sys; i = json.load(sys.stdin)["/lanefwd/info"]; print(i["fib_lookup"], i["fib_lookup_mode"], i["fused_stages"])')
lf_stop
[ "$fib" = "scalar auto scalar" ] || die "fib_lookup = auto at a forced 256-bit width: /lanefwd/info says '$fib', expected 'scalar auto scalar' (FIB lookup, its mode, fused stages)"
echo "ok: at a forced 256-bit width, fib_lookup = auto runs the scalar lookup and the fused stages their scalar build"
echo "PASS: telemetry"
