# Shared helpers for the integration tests (sourced, not run).
# Each test gets its own EAL file prefix and scratch directory, starts
# lanefwd in the background, and stops only the pid it started.
set -euo pipefail

: "${LANEFWD:?LANEFWD must point at the lanefwd binary}"
: "${LF_SRCDIR:?LF_SRCDIR must point at the source tree}"
PY=/usr/bin/python3
LF_PID=""
LF_TMP=$(mktemp -d /tmp/lanefwd-test.XXXXXX)
LF_PREFIX="lft$$"
LF_NETNS=""  # the namespaces lf_netns_add made
LF_TOPO=""   # the scripts/topology.sh prefix lf_topology_up brought up

# On exit: lanefwd first, then the test's own hook (it stops what runs in
# the namespaces), then the namespaces and the topology the helpers made.
lf_cleanup() {
	local rc=$? ns
	lf_stop || true
	if [ -n "${LF_CLEANUP_HOOK:-}" ]; then
		$LF_CLEANUP_HOOK || true
	fi
	# Deleting a namespace deletes the veth pairs in it, and their peers.
	for ns in $LF_NETNS; do
		ip netns del "$ns" 2>/dev/null || true
	done
	if [ -n "$LF_TOPO" ]; then
		"$LF_SRCDIR/scripts/topology.sh" down "$LF_TOPO" >/dev/null || true
	fi
	rm -rf "$LF_TMP" "/var/run/dpdk/$LF_PREFIX"
	exit $rc
}
trap lf_cleanup EXIT

die() {
	echo "FAIL: $*" >&2
	if [ -f "$LF_TMP/lanefwd.log" ]; then
		echo "---- lanefwd log ----" >&2
		tail -n 40 "$LF_TMP/lanefwd.log" >&2
	fi
	exit 1
}

# lf_start CONFIG: start lanefwd and wait until its workers run.
lf_start() {
	# Empty the log first: a restart must not find the last run's "running"
	# line before the new process has truncated the file.
	: > "$LF_TMP/lanefwd.log"
	"$LANEFWD" -c "$1" > "$LF_TMP/lanefwd.log" 2>&1 &
	LF_PID=$!
	local i
	for i in $(seq 1 600); do
		if grep -q "^lanefwd: running" "$LF_TMP/lanefwd.log"; then
			return 0
		fi
		kill -0 "$LF_PID" 2>/dev/null || die "lanefwd exited during start-up"
		sleep 0.1
	done
	die "lanefwd did not start within 60 s"
}

# lf_stop: SIGINT the lanefwd we started and wait (at most 30 s) for its
# final counters.
lf_stop() {
	[ -n "$LF_PID" ] || return 0
	kill -INT "$LF_PID" 2>/dev/null || true
	local i
	for i in $(seq 1 300); do
		kill -0 "$LF_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$LF_PID" 2>/dev/null; then
		kill -KILL "$LF_PID" 2>/dev/null || true
	fi
	wait "$LF_PID" 2>/dev/null || true
	LF_PID=""
}

# lf_tel COMMAND: one telemetry command through the stock DPDK client.
lf_tel() {
	echo "$1" | dpdk-telemetry.py -f "$LF_PREFIX" 2>/dev/null | tail -n 1
}

# lf_stop_rc: like lf_stop, but keep lanefwd's exit status in LF_EXIT
# (137 when it had to be killed).
lf_stop_rc() {
	LF_EXIT=""
	[ -n "$LF_PID" ] || return 0
	kill -INT "$LF_PID" 2>/dev/null || true
	local i
	for i in $(seq 1 300); do
		kill -0 "$LF_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$LF_PID" 2>/dev/null; then
		kill -KILL "$LF_PID" 2>/dev/null || true
	fi
	LF_EXIT=0
	wait "$LF_PID" 2>/dev/null || LF_EXIT=$?
	LF_PID=""
}

# lf_tel_save COMMAND FILE: one telemetry command, its JSON reply in FILE;
# fails unless the reply is a JSON object.
lf_tel_save() {
	lf_tel "$1" > "$2"
	$PY -c 'import json, sys; d = json.load(open(sys.argv[1])); assert isinstance(d, dict)' \
		"$2" 2>/dev/null || die "telemetry $1: no JSON reply: $(cat "$2")"
}

# lf_wait_settled [RX]: wait (at most 60 s) until /lanefwd/stats rx_packets
# stops growing and every received packet is accounted for (rx = tx + drops).
# With RX, until rx_packets is RX, too: a worker that a busy machine leaves
# off its core for a moment must not pass for one that has finished.
lf_wait_settled() {
	local i prev="" cur same=0 want=${1:-}
	for i in $(seq 1 300); do
		kill -0 "$LF_PID" 2>/dev/null || die "lanefwd exited while traffic was running"
		cur=$(lf_tel /lanefwd/stats | $PY -c '
import json, sys
try:
	s = json.load(sys.stdin)["/lanefwd/stats"]
	g = lambda k: s.get(k, 0)
	# Every packet accounted for (dp.h LF_EVENTS): what came in, from the
	# ports, the control thread and the kernel, is sent, dropped or with
	# the control thread (ARP, ND, held).
	print(s["rx_packets"], g("rx_packets") + g("ctrl_tx") + g("ctrl_rerun") +
	      g("exception_rx") == g("tx_packets") + g("drops") + g("punt_ctrl"))
except Exception:
	print("none")')
		if [ "$cur" = "$prev" ] && [ "${cur#* }" = "True" ] &&
			{ [ -z "$want" ] || [ "${cur%% *}" = "$want" ]; }; then
			same=$((same + 1))
			[ "$same" -ge 2 ] && return 0
		else
			same=0
		fi
		prev=$cur
		sleep 0.2
	done
	die "within 60 s, rx_packets did not settle with rx + ctrl_tx + ctrl_rerun + exception_rx = tx + drops + punt_ctrl (last: rx, balanced: $prev)"
}

# lf_wait_latency LCORE COUNT: wait (at most 60 s) until /lanefwd/latency
# has merged COUNT packets for worker LCORE. The control thread collects the
# workers' histograms about once a second, and skips a worker that does not
# hand its buffer over in time, so on a busy machine it can take a while.
# Returns 0 either way: the caller's exact check says what was counted.
lf_wait_latency() {
	local i
	for i in $(seq 1 300); do
		lf_tel /lanefwd/latency | $PY -c '
import json, sys
w = json.load(sys.stdin)["/lanefwd/latency"].get(sys.argv[1], {})
sys.exit(0 if w.get("count") == int(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null && return 0
		sleep 0.2
	done
	return 0
}

# lf_skip REASON: this test cannot run on this machine; meson counts exit
# status 77 as SKIP.
lf_skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# step TEXT: a heading between the stages of a test's output.
step() { echo "---- $*"; }

# lf_need_tools COMMAND...: skip the test unless every COMMAND is installed.
lf_need_tools() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || lf_skip "$t is not installed (scripts/deps.sh)"
	done
}

# lf_need_hugepages MIB: skip the test unless MIB MiB of hugepages are free.
lf_need_hugepages() {
	local free_mb
	free_mb=$(lf_hugepages_free_mb)
	[ "$free_mb" -ge "$1" ] ||
		lf_skip "needs $1 MiB of free hugepages on a mounted hugetlbfs, has $free_mb MiB (run scripts/hugepages.sh)"
}

# lf_hugepages_free_mb: MiB of free hugepages of the default size, 0 when no
# hugetlbfs is mounted (scripts/hugepages.sh reserves and mounts them).
lf_hugepages_free_mb() {
	if ! grep -q ' hugetlbfs ' /proc/mounts; then
		echo 0
		return 0
	fi
	awk '/^HugePages_Free:/ { n = $2 } /^Hugepagesize:/ { kb = $2 }
		END { print int(n * kb / 1024) }' /proc/meminfo
}

# lf_total_line: lanefwd's final "lanefwd: total: rx N tx N drops N ..." line,
# printed when it stops (call after lf_stop / lf_stop_rc).
lf_total_line() {
	grep '^lanefwd: total:' "$LF_TMP/lanefwd.log" | tail -n 1
}

# lf_wait_listen NS PORT: wait (at most 10 s) until something listens on TCP
# PORT in network namespace NS.
lf_wait_listen() {
	local i
	for i in $(seq 1 100); do
		if ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q .; then
			return 0
		fi
		sleep 0.1
	done
	die "nothing listens on TCP port $2 in namespace $1 after 10 s"
}

# lf_conf_routes: the [routes] section of a test's configuration, for a
# $(...) in its heredoc: routes4.txt and routes6.txt beside the
# configuration file, tables sized for a test's few routes.
lf_conf_routes() {
	cat <<'EOF'
[routes]
ipv4 = routes4.txt
ipv6 = routes6.txt
ipv4_max_routes = 1024
ipv4_tbl8 = 256
ipv6_max_routes = 1024
ipv6_tbl8 = 256
EOF
}

# lf_conf_two_nexthops MAC1 MAC2: the [worker 1] and [nexthop] sections of a
# test with ports p0 and p1 (for a $(...) in its heredoc): worker 1 polls
# both, next hop 1 is MAC1 out of p0, next hop 2 is MAC2 out of p1.
lf_conf_two_nexthops() {
	cat <<EOF
[worker 1]
rx = p0:0 p1:0

[nexthop 1]
port = p0
mac = $1

[nexthop 2]
port = p1
mac = $2
EOF
}

# lf_netns_add NS...: new network namespaces, each with lo up; lf_cleanup
# deletes them (after LF_CLEANUP_HOOK), and with them what is in them.
lf_netns_add() {
	local ns
	for ns in "$@"; do
		ip netns add "$ns"
		LF_NETNS="$LF_NETNS $ns"
		ip netns exec "$ns" ip link set lo up
	done
}

# lf_lanefwd_in_netns NS: from here on "$LANEFWD" (and so lf_start) runs
# lanefwd inside NS through a wrapper script; ip netns exec execs it, so the
# pid lf_start keeps is lanefwd's own. LF_REAL_LANEFWD is the binary itself.
lf_lanefwd_in_netns() {
	LF_REAL_LANEFWD=${LF_REAL_LANEFWD:-$LANEFWD}
	cat > "$LF_TMP/lanefwd-in-ns" <<EOF
#!/bin/sh
exec ip netns exec $1 $LF_REAL_LANEFWD "\$@"
EOF
	chmod +x "$LF_TMP/lanefwd-in-ns"
	LANEFWD=$LF_TMP/lanefwd-in-ns
}

# lf_topology_up NAME: scripts/topology.sh up NAME (namespaces NAME-ns1 and
# NAME-ns2 behind the veth ends NAME-p0 and NAME-p1); lf_cleanup takes it
# down again (after LF_CLEANUP_HOOK).
lf_topology_up() {
	LF_TOPO=$1
	"$LF_SRCDIR/scripts/topology.sh" up "$1" || die "scripts/topology.sh up $1 failed"
}

# lf_conf_topology NAME: the [port], [worker] and [nexthop] sections of
# lanefwd on topology NAME (for a $(...) in the heredoc): AF_XDP ports p0 and
# p1 on NAME-p0 and NAME-p1, next hops the namespace ends, whose MACs
# topology.sh fixes.
lf_conf_topology() {
	cat <<EOF
[port p0]
vdev = net_af_xdp0,iface=$1-p0,start_queue=0,queue_count=1

[port p1]
vdev = net_af_xdp1,iface=$1-p1,start_queue=0,queue_count=1

$(lf_conf_two_nexthops 02:00:0a:0a:01:02 02:00:0a:0a:02:02)
EOF
}

# lf_af_xdp_port_ids: P0_ID and P1_ID, the port ids of lanefwd's ports p0
# and p1 (/lanefwd/info); fails unless p0 is an AF_XDP port.
lf_af_xdp_port_ids() {
	lf_tel_save /lanefwd/info "$LF_TMP/info.json"
	read -r P0_ID P1_ID < <($PY -c '
import json, sys
i = json.load(open(sys.argv[1]))["/lanefwd/info"]
assert i["port_p0"]["driver"] == "net_af_xdp", i["port_p0"]
print(i["port_p0"]["port_id"], i["port_p1"]["port_id"])' "$LF_TMP/info.json") ||
		die "/lanefwd/info: no AF_XDP ports p0 and p1: $(cat "$LF_TMP/info.json")"
}

# lf_ping_through NS ADDRESS: a ping from NS to ADDRESS through lanefwd is
# answered within 10 tries (the path works before anything is counted).
lf_ping_through() {
	local i
	for i in $(seq 1 10); do
		ip netns exec "$1" ping -c 1 -W 1 "$2" > /dev/null && break
		[ "$i" -lt 10 ] || die "no ping reply through lanefwd within 10 tries"
	done
}
