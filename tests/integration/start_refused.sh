# start_refused: every way lanefwd refuses to start, or gives up after its
# ports started, ends with exit status 1 and the error that says why; never
# a crash (status 139), never a sanitizer report.
#
# Each case runs RUNS times (LF_REFUSED_RUNS, default 3), each run with its
# own MALLOC_PERTURB_ (glibc fills what malloc hands out and what free takes
# back with that byte, so a use of freed or uninitialised memory reads
# garbage rather than a lucky zero); a failure names the value. The cases,
# from the earliest failure to the latest:
#   not_probed     a [port] vdev that EAL could not probe (no ethdev yet);
#   hw_clock       latency_clock = hw: port p0 (polled by no worker) set up
#                  and started, then p1 refused for lacking RX timestamps;
#   pmgmt_monitor  rx_mode = pmd-mgmt, pmd_mgmt = monitor on a TAP: refused
#                  between a port's queue setup and its start;
#   exc_exists     exception = tap with an interface name that exists: the
#                  ports started, the mirror refused;
#   pcap_interrupt rx_mode = interrupt on a pcap port;
#   memif_hybrid   rx_mode = hybrid on a memif port (server role);
#   tap_pcap_intr  rx_mode = interrupt over tA:0 pc:0 tB:0: the TAP's queue
#                  is in the worker's epoll set when pc is refused (the
#                  rxmode test's case);
#   prom_bind      [prometheus] on an address the namespace does not have:
#                  refused after the workers were launched.
# Under the sanitize suite ASan reports with exit status 1 too, so the log
# is also searched for sanitizer reports.
#
# lanefwd runs in a network namespace the test makes: its TAPs are created
# there, and 192.0.2.1 is nobody's address. Needs root, iproute2 and
# /dev/net/tun; exits 77 (SKIP) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces, TAP)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
NS=rf$$-lf
RUNS=${LF_REFUSED_RUNS:-3}

lf_need_tools ip
[ -c /dev/net/tun ] || lf_skip "no /dev/net/tun"

lf_netns_add "$NS"
# No IPv6 on the TAPs lanefwd creates: no router solicitations, no DAD.
ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 \
	net.ipv6.conf.all.disable_ipv6=1

printf '10.30.2.0/24 2\n' > "$D/routes4.txt"
: > "$D/routes6.txt"
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\xff\xff\0\0\x01\0\0\0' > "$D/empty.pcap"

# conf FILE EXTRA PORTS WORKER: a configuration with the given ports (p1
# among them), one worker on lcore 1 with the WORKER lines, EXTRA sections
# before the ports.
conf() {
	cat > "$1" << EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = no
memory = 256
$2
$(lf_conf_routes)
$3
[worker 1]
$4

[nexthop 2]
port = p1
mac = 02:00:1e:02:02:02
EOF
}
PCAPS="
[port p0]
vdev = net_pcap0,rx_pcap=$D/empty.pcap,tx_pcap=$D/p0-out.pcap
[port p1]
vdev = net_pcap1,rx_pcap=$D/empty.pcap,tx_pcap=$D/p1-out.pcap
"
TAPS="
[port tA]
vdev = net_tap0,iface=rf$$a
[port p1]
vdev = net_tap1,iface=rf$$b
"

# refused NAME CONF NEEDLE...: RUNS starts of CONF, each must exit with
# status 1, its output holding every NEEDLE and no sanitizer report.
refused() {
	local name=$1 c=$2 rc n run perturb log="$D/$1.log"
	shift 2
	for run in $(seq 1 "$RUNS"); do
		perturb=$((RANDOM % 255 + 1))
		set +e
		MALLOC_PERTURB_=$perturb timeout 60 ip netns exec "$NS" "$LANEFWD" -c "$c" \
			> "$log" 2>&1
		rc=$?
		set -e
		[ "$rc" -eq 1 ] ||
			die "$name run $run (MALLOC_PERTURB_=$perturb): exit status $rc, not 1: $(tail -n 8 "$log")"
		! grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: [A-Za-z]+Sanitizer' \
			"$log" ||
			die "$name run $run (MALLOC_PERTURB_=$perturb): sanitizer report: $(grep -E -A 12 'Sanitizer|runtime error' "$log" | head -n 30)"
		for n in "$@"; do
			grep -qF -- "$n" "$log" ||
				die "$name run $run (MALLOC_PERTURB_=$perturb): '$n' not in the output: $(tail -n 5 "$log")"
		done
		! grep -q '^lanefwd: running' "$log" ||
			die "$name run $run: says it is running"
	done
	echo "$name: $RUNS runs, each exit 1: $(grep -F -- "$1" "$log" | head -n 1)"
}

conf "$D/not_probed.conf" "" "
[port p0]
vdev = net_pcap0,rx_pcap=$D/empty.pcap,tx_pcap=$D/p0-out.pcap
[port p1]
vdev = net_pcap1,rx_pcap=$D/missing.pcap,tx_pcap=$D/p1-out.pcap
" "rx = p0:0 p1:0"
refused not_probed "$D/not_probed.conf" "[port p1]: device 'net_pcap1' was not probed by EAL"

conf "$D/hw_clock.conf" "
[pipeline]
latency_clock = hw
" "$PCAPS" "rx = p1:0"
refused hw_clock "$D/hw_clock.conf" \
	"[port p1] (net_pcap1, driver net_pcap): [pipeline] latency_clock = hw needs RX timestamps"

conf "$D/pmgmt_monitor.conf" "" "$TAPS" "rx = tA:0 p1:0
rx_mode = pmd-mgmt
pmd_mgmt = monitor"
refused pmgmt_monitor "$D/pmgmt_monitor.conf" \
	"[worker 1] rx_mode = pmd-mgmt, pmd_mgmt = monitor: port tA queue 0 (driver net_tap)"

conf "$D/exc_exists.conf" "" "$PCAPS
exception = tap
exception_if = lo
" "rx = p0:0 p1:0"
refused exc_exists "$D/exc_exists.conf" \
	"[port p1] exception_if = lo: an interface of that name exists already"

conf "$D/pcap_interrupt.conf" "" "$PCAPS" "rx = p0:0 p1:0
rx_mode = interrupt"
refused pcap_interrupt "$D/pcap_interrupt.conf" \
	"[worker 1] rx_mode = interrupt: port p0 queue 0 (driver net_pcap)" "no RX interrupt"

conf "$D/memif_hybrid.conf" "" "
[port mf]
vdev = net_memif0,role=server,socket=$D/memif.sock
[port p1]
vdev = net_pcap1,rx_pcap=$D/empty.pcap,tx_pcap=$D/p1-out.pcap
" "rx = mf:0 p1:0
rx_mode = hybrid"
refused memif_hybrid "$D/memif_hybrid.conf" \
	"[worker 1] rx_mode = hybrid: port mf queue 0 (driver net_memif)" "no RX interrupt"

conf "$D/tap_pcap_intr.conf" "" "$TAPS
[port pc]
vdev = net_pcap0,rx_pcap=$D/empty.pcap,tx_pcap=$D/pc-out.pcap
" "rx = tA:0 pc:0 p1:0
rx_mode = interrupt"
refused tap_pcap_intr "$D/tap_pcap_intr.conf" \
	"[worker 1] rx_mode = interrupt: port pc queue 0 (driver net_pcap)" "no RX interrupt"

conf "$D/prom_bind.conf" "
[prometheus]
address = 192.0.2.1
port = 9109
" "$PCAPS" "rx = p0:0 p1:0"
refused prom_bind "$D/prom_bind.conf" "[prometheus] cannot listen on 192.0.2.1 port 9109"

echo "start_refused: ok"
