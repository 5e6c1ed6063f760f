#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# lanefwd quickstart, for a fresh Debian 12 machine, as root:
#
#   scripts/quickstart.sh
#
# 1. installs what is missing (scripts/deps.sh);
# 2. reserves and mounts hugepages if fewer than 256 MiB are free
#    (scripts/hugepages.sh);
# 3. builds (meson setup build, if needed; ninja -C build);
# 4. validates config/lanefwd.conf (--check-config);
# 5. creates the test topology (scripts/topology.sh up: namespaces lf-ns1 and
#    lf-ns2 behind veth pairs lf-p0 and lf-p1);
# 6. starts lanefwd with config/lanefwd.conf (AF_XDP on lf-p0 and lf-p1);
# 7. sends traffic through it: ping, ping6, iperf3 TCP and UDP (3 s each);
# 8. prints the per-worker telemetry and lanefwd's final counters.
# Everything it started or created is removed on exit, success or not, by pid
# and by name. Exit status 0 means every step passed.
#
# Environment: QUICKSTART_SECONDS (iperf3 duration, default 3),
# QUICKSTART_UDP_RATE (default 50M).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

CONF=config/lanefwd.conf
PREFIX=lanefwd            # [eal] file_prefix of config/lanefwd.conf
TOPO=lf                   # scripts/topology.sh prefix that config names
NS1=$TOPO-ns1 NS2=$TOPO-ns2
SECS=${QUICKSTART_SECONDS:-3}
UDP_RATE=${QUICKSTART_UDP_RATE:-50M}
IPERF_PORT=5201
STEPS=8
STEP=0

if [ -t 1 ]; then
	B=$'\e[1m' G=$'\e[32m' R=$'\e[31m' Y=$'\e[33m' N=$'\e[0m'
else
	B='' G='' R='' Y='' N=''
fi

step() {
	STEP=$((STEP + 1))
	echo
	echo "${B}==> [$STEP/$STEPS] $*${N}"
}
ok() { echo "    ${G}ok${N}: $*"; }
info() { echo "    $*"; }
fail() {
	echo "${R}${B}FAILED${N}${R} in step $STEP: $*${N}" >&2
	exit 1
}

LOG=$(mktemp /tmp/lanefwd-quickstart.XXXXXX)
LF_PID=""
LF_STARTED=0
IPERF_PID=""
TOPO_UP=0

stop_lanefwd() {
	[ -n "$LF_PID" ] || return 0
	kill -INT "$LF_PID" 2>/dev/null || true
	local i
	for i in $(seq 1 100); do
		kill -0 "$LF_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$LF_PID" 2>/dev/null; then
		echo "    lanefwd did not stop on SIGINT within 10 s; killing it" >&2
		kill -KILL "$LF_PID" 2>/dev/null || true
	fi
	LF_RC=0
	wait "$LF_PID" 2>/dev/null || LF_RC=$?
	LF_PID=""
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "$IPERF_PID" ]; then
		kill "$IPERF_PID" 2>/dev/null || true
		wait "$IPERF_PID" 2>/dev/null || true
	fi
	stop_lanefwd
	if [ "$TOPO_UP" -eq 1 ]; then
		echo
		echo "${B}==> teardown${N}"
		scripts/topology.sh down "$TOPO" | sed 's/^/    /' || true
	fi
	if [ "$rc" -eq 0 ]; then
		rm -f "$LOG"
		echo
		echo "${G}${B}quickstart passed${N}: lanefwd forwarded ping, ping6, TCP and UDP between two namespaces over AF_XDP."
		echo "Next: README.md; scripts/topology.sh up, then build/lanefwd -c $CONF to keep it running;"
		echo "      meson test -C build --print-errorlogs for the test suite."
	elif [ "$LF_STARTED" -eq 1 ]; then
		echo "    lanefwd's log: $LOG" >&2
	else
		rm -f "$LOG"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# tel CMD: one telemetry command, its JSON reply on stdout.
tel() {
	echo "$1" | dpdk-telemetry.py -f "$PREFIX" 2>/dev/null | tail -n 1
}

# wait_listen NS PORT: until something listens on TCP PORT in NS (10 s).
wait_listen() {
	local i
	for i in $(seq 1 100); do
		ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	fail "iperf3 server in $1 does not listen on port $2"
}

# iperf NAME CLIENT_ARGS...: one iperf3 test from lf-ns1 to the server in
# lf-ns2; prints the summary lines.
iperf() {
	local name=$1 out
	shift
	ip netns exec "$NS2" iperf3 -s -1 -p "$IPERF_PORT" > /dev/null 2>&1 &
	IPERF_PID=$!
	wait_listen "$NS2" "$IPERF_PORT"
	out=$(ip netns exec "$NS1" timeout $((SECS + 30)) iperf3 -c 10.10.2.2 \
		-p "$IPERF_PORT" -t "$SECS" -f m "$@" 2>&1) ||
		fail "iperf3 $name: $(echo "$out" | tail -n 3)"
	wait "$IPERF_PID" 2>/dev/null || true
	IPERF_PID=""
	echo "$out" | grep -E ' (sender|receiver)$' | sed 's/^/    /'
}

[ "$(id -u)" -eq 0 ] || { echo "quickstart: run as root (it installs packages, reserves hugepages, creates namespaces)" >&2; exit 1; }

# ---------------------------------------------------------------------------
step "Dependencies (scripts/deps.sh)"
scripts/deps.sh || fail "scripts/deps.sh could not install the packages"
ok "build, test and traffic tools are installed"

# ---------------------------------------------------------------------------
step "Hugepages"
free_mb() {
	if ! grep -q ' hugetlbfs ' /proc/mounts; then
		echo 0
		return
	fi
	awk '/^HugePages_Free:/ { n = $2 } /^Hugepagesize:/ { kb = $2 }
		END { print int(n * kb / 1024) }' /proc/meminfo
}
# config/lanefwd.conf uses about 90 MiB; the AF_XDP PMD needs hugepages (see
# the [eal] section there for why).
if [ "$(free_mb)" -lt 256 ]; then
	info "fewer than 256 MiB of free hugepages: running scripts/hugepages.sh"
	scripts/hugepages.sh 2>&1 | sed 's/^/    /' || fail "scripts/hugepages.sh failed"
	[ "$(free_mb)" -ge 256 ] || fail "still fewer than 256 MiB of free hugepages; free memory or raise scripts/hugepages.sh's count"
fi
ok "$(free_mb) MiB of hugepages free"

# ---------------------------------------------------------------------------
step "Build"
if [ ! -f build/build.ninja ]; then
	meson setup build || fail "meson setup build failed"
fi
ninja -C build || fail "the build failed"
ok "build/lanefwd $(build/lanefwd --version | awk '{print $2}')"

# ---------------------------------------------------------------------------
step "Configuration ($CONF)"
build/lanefwd -c "$CONF" --check-config > "$LOG" 2>&1 || fail "$(cat "$LOG")"
ok "$(tail -n 1 "$LOG" | sed 's/^# //')"

# ---------------------------------------------------------------------------
step "Topology (scripts/topology.sh up)"
# A lanefwd already running on this topology (same EAL file prefix) is left
# alone: stop it first.
if [ -S "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" ] && tel /eal/params | grep -q '^{'; then
	fail "a lanefwd with EAL file prefix '$PREFIX' is already running; stop it (Ctrl-C or kill -INT) and run again"
fi
# A previous run that was killed may have left the topology; down removes
# only what carries topology.sh's own mark.
if ip netns list | grep -qE "^($NS1|$NS2)( |$)"; then
	info "removing a topology left over from an earlier run"
	scripts/topology.sh down "$TOPO" 2>&1 | sed 's/^/    /' || true
fi
TOPO_UP=1
scripts/topology.sh up "$TOPO" 2>&1 | sed 's/^/    /' ||
	fail "scripts/topology.sh up $TOPO failed (names in use by something else?)"
ok "lf-ns1 10.10.1.2 / fd00:1::2 <-> lanefwd <-> lf-ns2 10.10.2.2 / fd00:2::2"

# ---------------------------------------------------------------------------
step "Start lanefwd (build/lanefwd -c $CONF)"
build/lanefwd -c "$CONF" > "$LOG" 2>&1 &
LF_PID=$!
LF_STARTED=1
for i in $(seq 1 300); do
	grep -q '^lanefwd: running' "$LOG" && break
	kill -0 "$LF_PID" 2>/dev/null || { LF_PID=""; fail "lanefwd exited during start-up:
$(grep -v '^libbpf: elf: skipping' "$LOG" | tail -n 15)"; }
	[ "$i" -lt 300 ] || fail "lanefwd did not start within 30 s"
	sleep 0.1
done
grep -E '^lanefwd\.(port|worker): (port|worker) ' "$LOG" | sed 's/^/    /' || true
ok "lanefwd runs (pid $LF_PID); telemetry: echo /lanefwd/stats | dpdk-telemetry.py -f $PREFIX"

# ---------------------------------------------------------------------------
step "Traffic through lanefwd"
# The first packets prove the path; retry briefly while the sockets settle.
for i in $(seq 1 10); do
	ip netns exec "$NS1" ping -c 1 -W 1 10.10.2.2 > /dev/null 2>&1 && break
	[ "$i" -lt 10 ] || fail "no ping reply from 10.10.2.2 through lanefwd"
done
info "${B}ping${N} lf-ns1 -> 10.10.2.2 (10 packets)"
out=$(ip netns exec "$NS1" ping -c 10 -i 0.1 -W 2 10.10.2.2 2>&1) || fail "ping: $(echo "$out" | tail -n 2)"
echo "$out" | tail -n 2 | sed 's/^/    /'
info "${B}ping6${N} lf-ns2 -> fd00:1::2 (10 packets)"
out=$(ip netns exec "$NS2" ping -6 -c 10 -i 0.1 -W 2 fd00:1::2 2>&1) || fail "ping6: $(echo "$out" | tail -n 2)"
echo "$out" | tail -n 2 | sed 's/^/    /'
info "${B}iperf3 TCP${N} lf-ns1 -> lf-ns2, $SECS s"
iperf TCP
info "${B}iperf3 UDP${N} lf-ns1 -> lf-ns2, -b $UDP_RATE of 1200-byte datagrams, $SECS s"
iperf UDP -u -b "$UDP_RATE" -l 1200
ok "ping, ping6, TCP and UDP went through lanefwd"

# ---------------------------------------------------------------------------
step "Counters"
info "${B}telemetry /lanefwd/workers${N} (echo /lanefwd/workers | dpdk-telemetry.py -f $PREFIX):"
tel /lanefwd/workers > "$LOG.tel"
/usr/bin/python3 - "$LOG.tel" <<'EOF' || fail "no JSON from /lanefwd/workers: $(cat "$LOG.tel")"
import json, sys
d = json.load(open(sys.argv[1]))["/lanefwd/workers"]
for line in json.dumps(d, indent=2).splitlines():
    print("    " + line)
EOF
rm -f "$LOG.tel"
rm -f "$LOG.tel"
stop_lanefwd
[ "$LF_RC" -eq 0 ] || fail "lanefwd exited with status $LF_RC on SIGINT"
info "${B}final counters${N} (printed by lanefwd on SIGINT):"
grep -E '^lanefwd: (worker|total|events)' "$LOG" | sed 's/^/    /'
total=$(grep '^lanefwd: total:' "$LOG" | tail -n 1)
events=$(grep '^lanefwd: events:' "$LOG" | tail -n 1)
[ -n "$total" ] || fail "lanefwd printed no final counters"
read -r rx tx drops <<< "$(echo "$total" | awk '{print $4, $6, $8}')"
# Every packet accounted for (docs/control-plane.md#accounting): what the
# neighbour thread sent and released and the kernel's frames came in too;
# what it took (ARP, ND) went out neither as tx nor as a drop.
ev() { echo "$events" | awk -v k="$1" '{for (i = 3; i < NF; i += 2) if ($i == k) v = $(i + 1)} END {print v + 0}'; }
into=$((rx + $(ev ctrl_tx) + $(ev ctrl_rerun) + $(ev exception_rx)))
out=$((tx + drops + $(ev punt_ctrl)))
[ "$rx" -gt 0 ] && [ "$into" -eq "$out" ] || fail "counters do not add up: $total; $events"
# Drop reasons: "lanefwd: total: rx N tx N drops N [REASON COUNT]...".
reasons=$(echo "$total" | cut -d' ' -f9-)
case " $reasons " in
*" ttl_expired "*)
	info "${Y}note${N}: the ttl_expired drops are the namespaces' own IPv6 MLD reports (hop"
	info "      limit 1), sent just after the topology came up; a router must drop them."
	;;
esac
for r in l2_malformed l3_malformed l4_malformed bad_checksum no_nexthop; do
	case " $reasons " in
	*" $r "*) fail "lanefwd dropped packets as $r, which this traffic cannot explain: $total" ;;
	esac
done
ok "every packet is accounted for: rx $rx + what the control thread and kernel sent = tx $tx + drops $drops + what the control thread took ($into = $out)"
