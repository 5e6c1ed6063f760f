# rxmode: the workers' rx modes ([worker N] rx_mode, docs/configuration.md).
#
# lanefwd runs in a network namespace the test makes (LFNS) with two net_tap
# ports, whose TAP interfaces it creates there:
#
#   raw socket -> tA (kernel TX = lanefwd RX) [lanefwd] tB (lanefwd TX =
#   kernel RX) -> raw socket
#
# A sender writes UDP frames to 10.30.2.2 out of tA with AF_PACKET; lanefwd
# routes them out of tB, where a raw socket counts them by tag and sequence
# number. The kernel's IPv6 is off in LFNS, so nothing else crosses. Checks:
#  1. the capability check at start, each refusal naming port, queue, mode
#     and why: interrupt on a pcap and on a memif port (no RX interrupts in
#     DPDK 22.11); pmd-mgmt monitor on a TAP (refused for the CPU when
#     /proc/cpuinfo has no waitpkg flag, else for the driver); pmd-mgmt
#     scale (refused unless the core has a cpufreq driver rte_power uses);
#  2. for interrupt and hybrid:
#     a. idle: the worker sleeps (sleeps and timeout wakeups > 0) and its
#        thread uses well under a core (< 50%, the kernel's count);
#     b. 3,000 frames in bursts of 50 with gaps: every one arrives (the
#        raw socket's count), lanefwd's counters balance, and the worker
#        was woken by the queues' interrupts (wakeups_interrupt > 0);
#     c. a reload while the worker sleeps completes (the sleeping worker is
#        offline to RCU), a reload that changes rx_mode is refused, and
#        another 1,000 frames all arrive;
#  3. pmd-mgmt pause on the TAP ports forwards every frame.
#
# Needs root, iproute2, python3, dpdk-telemetry.py, /dev/net/tun and
# 128 MiB of free hugepages; exits 77 (SKIP) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces, TAP)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
T=rx$$
LFNS=$T-lf
TA=$T-a TB=$T-b
MAC_A=02:00:1e:01:01:01 MAC_B=02:00:1e:02:01:01 MAC_NH=02:00:1e:02:02:02
HELPER="$(dirname "$0")/rxmode.py"

lf_need_tools ip dpdk-telemetry.py
[ -c /dev/net/tun ] || lf_skip "no /dev/net/tun"
lf_need_hugepages 128

inlf() { ip netns exec "$LFNS" "$@"; }

lf_netns_add "$LFNS"
# No IPv6 on the TAPs lanefwd creates: no router solicitations, no DAD.
inlf sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1

printf '10.30.2.0/24 2\n' > "$D/routes4.txt"
: > "$D/routes6.txt"

# conf FILE PORTS_TEXT WORKER_LINES: a configuration with the given ports
# (tA and tB must be among them) and one worker on lcore 1 polling tA and tB.
conf() {
	cat > "$1" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
telemetry = yes
huge = yes

$(lf_conf_routes)
$2
[worker 1]
$3

[nexthop 2]
port = tB
mac = $MAC_NH
EOF
}
TAPS="
[port tA]
vdev = net_tap0,iface=$TA
mac = $MAC_A

[port tB]
vdev = net_tap1,iface=$TB
mac = $MAC_B
"

lf_lanefwd_in_netns "$LFNS"

# refused NAME CONF NEEDLE...: lanefwd must refuse to start, its error
# holding every NEEDLE.
refused() {
	local name=$1 c=$2 rc n
	shift 2
	set +e
	timeout 60 "$LANEFWD" -c "$c" > "$D/$name.log" 2>&1
	rc=$?
	set -e
	# Exit status 1: refused and torn down cleanly (not killed, not crashed).
	[ "$rc" -eq 1 ] ||
		die "$name: lanefwd did not refuse with exit status 1 (exit $rc): $(tail -n 5 "$D/$name.log")"
	for n in "$@"; do
		grep -qF -- "$n" "$D/$name.log" ||
			die "$name: '$n' not in the error: $(grep -i 'rx_mode' "$D/$name.log" | tail -n 3)"
	done
	echo "$name: refused: $(grep -o '\[worker 1\] rx_mode.*' "$D/$name.log" | head -n 1)"
}

# ------------------------------------------------------------ 1. refusals
step "capability check at start"
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x01\0\0\0' > "$D/empty.pcap"
conf "$D/pcap.conf" "$TAPS
[port pc]
vdev = net_pcap0,rx_pcap=$D/empty.pcap,tx_pcap=$D/pc-out.pcap
" "rx = tA:0 pc:0 tB:0
rx_mode = interrupt"
refused pcap "$D/pcap.conf" "[worker 1] rx_mode = interrupt: port pc queue 0 (driver net_pcap)" \
	"no RX interrupt"
conf "$D/memif.conf" "$TAPS
[port mf]
vdev = net_memif0,role=server,socket=$D/memif.sock
" "rx = tA:0 tB:0 mf:0
rx_mode = hybrid"
refused memif "$D/memif.conf" "[worker 1] rx_mode = hybrid: port mf queue 0 (driver net_memif)" \
	"no RX interrupt"

# The oracle for monitor: /proc/cpuinfo's waitpkg flag (DPDK 22.11's
# rte_power_monitor needs it on x86); with it, net_tap still lacks the
# monitor address.
conf "$D/monitor.conf" "$TAPS" "rx = tA:0
rx_mode = pmd-mgmt
pmd_mgmt = monitor"
if grep -qw waitpkg /proc/cpuinfo; then
	why="the driver has no monitor address"
else
	why="the CPU cannot wait on a memory address"
fi
refused monitor "$D/monitor.conf" \
	"[worker 1] rx_mode = pmd-mgmt, pmd_mgmt = monitor: port tA queue 0 (driver net_tap)" "$why"

# scale: rte_power needs a cpufreq driver it knows on the worker's core.
conf "$D/scale.conf" "$TAPS" "rx = tA:0
rx_mode = pmd-mgmt
pmd_mgmt = scale"
drv=$(cat /sys/devices/system/cpu/cpu1/cpufreq/scaling_driver 2>/dev/null || true)
case "$drv" in
acpi-cpufreq | intel_pstate | intel_cpufreq | cppc_cpufreq)
	echo "scale: cpu1 has cpufreq driver $drv: not checked for refusal"
	;;
*)
	refused scale "$D/scale.conf" \
		"[worker 1] rx_mode = pmd-mgmt, pmd_mgmt = scale: port tA queue 0 (driver net_tap)" \
		"no cpufreq driver"
	;;
esac

# ------------------------------------------------------- 2. interrupt, hybrid
SEQ_TAG=0
# worker_field KEY: one field of worker 1 in /lanefwd/workers.
worker_field() {
	lf_tel /lanefwd/workers,1 | $PY -c '
import json, sys
print(json.load(sys.stdin)["/lanefwd/workers"][sys.argv[1]])' "$1"
}

# burst N BURST GAP_MS: N frames through lanefwd, every one must arrive.
burst() {
	local n=$1 tag got i
	SEQ_TAG=$((SEQ_TAG + 1))
	tag=$(printf 'r%03d' "$SEQ_TAG")
	rm -f "$D/sniff.$tag" "$D/sniff.$tag.ready"
	inlf $PY "$HELPER" sniff "$TB" "$n" 60 "$tag" "$D/sniff.$tag" &
	local spid=$!
	for i in $(seq 1 100); do
		[ -f "$D/sniff.$tag.ready" ] && break
		sleep 0.1
	done
	inlf $PY "$HELPER" send "$TA" "$MAC_A" "$n" "$2" "$3" "$tag"
	wait "$spid" || die "the sniffer on $TB failed"
	got=$(cat "$D/sniff.$tag")
	[ "$got" -eq "$n" ] || die "$n frames sent out of $TA, $got arrived on $TB"
	echo "$n frames sent, $got arrived"
}

run_mode() {
	local mode=$1 extra=$2 cpu s0 s1 wi gen
	step "rx_mode = $mode"
	conf "$D/$mode.conf" "$TAPS" "rx = tA:0 tB:0
rx_mode = $mode$extra"
	"$LF_REAL_LANEFWD" -c "$D/$mode.conf" --check-config > "$D/$mode.check" ||
		die "--check-config rejected $mode: $(tail -n 3 "$D/$mode.check")"
	lf_start "$D/$mode.conf"
	grep -q "rx_mode $mode" "$D/lanefwd.log" || die "no 'rx_mode $mode' in the worker's start line"
	sleep 1
	s0=$(worker_field sleeps)
	cpu=$(inlf $PY "$HELPER" cpu "$LF_PID" 1 3)
	s1=$(worker_field sleeps)
	echo "idle: worker thread used $cpu of a core over 3 s, slept $((s1 - s0)) times; telemetry cpu_percent $(worker_field cpu_percent)"
	[ "$s1" -gt "$s0" ] || die "$mode: the idle worker did not sleep ($s0 -> $s1 sleeps)"
	[ "$(worker_field wakeups_timeout)" -gt 0 ] || die "$mode: no timeout wakeups at idle"
	$PY -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 0.5 else 1)' "$cpu" ||
		die "$mode: the idle worker used $cpu of a core (bound 0.5)"
	[ "$(worker_field rx_mode)" = "$mode" ] || die "$mode: telemetry rx_mode is $(worker_field rx_mode)"

	burst 3000 50 20
	lf_wait_settled
	wi=$(worker_field wakeups_interrupt)
	echo "wakeups: interrupt $wi, timeout $(worker_field wakeups_timeout); sleeps $(worker_field sleeps); rearm_rx $(worker_field rearm_rx)"
	[ "$wi" -gt 0 ] || die "$mode: frames came but no interrupt wakeup"
	lf_tel /lanefwd/stats > "$D/$mode.stats"
	$PY - "$D/$mode.stats" <<'PYEOF' || die "$mode: counters do not balance"
import json, sys
s = json.load(open(sys.argv[1]))["/lanefwd/stats"]
g = lambda k: s.get(k, 0)
print("lanefwd: rx", g("rx_packets"), "tx", g("tx_packets"), "drops", g("drops"),
      "ctrl_tx", g("ctrl_tx"), "punt_ctrl", g("punt_ctrl"))
assert g("rx_packets") >= 3000 and g("tx_packets") >= 3000, s
# Every packet accounted for (dp.h LF_EVENTS; the neighbour thread's own
# frames are ctrl_tx).
assert (g("rx_packets") + g("ctrl_tx") + g("ctrl_rerun") + g("exception_rx") ==
        g("tx_packets") + g("drops") + g("punt_ctrl")), s
PYEOF

	# Reload while the worker sleeps: it is offline to RCU, so the grace
	# period does not wait for it; the new route then carries traffic.
	sleep 0.5
	gen=$(lf_tel /lanefwd/info | $PY -c 'import json,sys; print(json.load(sys.stdin)["/lanefwd/info"]["generation"])')
	s0=$(worker_field sleeps)
	printf '10.30.2.0/24 2\n10.30.9.0/24 2\n' > "$D/routes4.txt"
	lf_tel /lanefwd/reload > "$D/$mode.reload"
	grep -q '"status": "ok"' "$D/$mode.reload" || die "$mode: reload failed: $(cat "$D/$mode.reload")"
	[ "$(lf_tel /lanefwd/info | $PY -c 'import json,sys; print(json.load(sys.stdin)["/lanefwd/info"]["generation"])')" -eq $((gen + 1)) ] ||
		die "$mode: the reload did not bring generation $((gen + 1))"
	echo "reload: generation $gen -> $((gen + 1)) while the worker slept ($s0 sleeps before, $(worker_field sleeps) after)"
	# rx_mode is restart-only.
	sed -i "s/^rx_mode = $mode/rx_mode = poll/; /^spin_us\|^sleep_max_us/d" "$D/$mode.conf"
	lf_tel /lanefwd/reload > "$D/$mode.reload2"
	grep -q 'needs a restart' "$D/$mode.reload2" ||
		die "$mode: a reload changing rx_mode was not refused: $(cat "$D/$mode.reload2")"
	printf '10.30.2.0/24 2\n' > "$D/routes4.txt"
	burst 1000 100 10
	lf_wait_settled
	lf_stop
	grep -q "^lanefwd: total:" "$D/lanefwd.log" || die "$mode: lanefwd did not stop cleanly"
}

run_mode interrupt "
sleep_max_us = 2000"
run_mode hybrid "
spin_us = 50"

# ------------------------------------------------------------ 3. pmd-mgmt pause
step "rx_mode = pmd-mgmt, pmd_mgmt = pause"
conf "$D/pause.conf" "$TAPS" "rx = tA:0 tB:0
rx_mode = pmd-mgmt"
lf_start "$D/pause.conf"
grep -q "rte_power_pmd_mgmt pause for lcore 1" "$D/lanefwd.log" || die "pause was not enabled"
[ "$(worker_field pmd_mgmt)" = pause ] || die "telemetry pmd_mgmt is $(worker_field pmd_mgmt)"
burst 2000 100 5
lf_wait_settled
lf_stop
echo "rxmode: ok"
