# dumpcap: Debian's dpdk-dumpcap captures on a running lanefwd's ports.
#
# lanefwd runs as a DPDK primary on huge pages ([eal] pdump = yes, the
# default, so it calls rte_pdump_init()) with AF_XDP ports on the veth pairs
# of scripts/topology.sh. dpdk-dumpcap attaches as a secondary process
# (--file-prefix = lanefwd's [eal] file_prefix) while UDP datagrams and pings
# from the namespaces cross lanefwd. A UDP receiver in the second namespace
# logs every datagram it gets. Each capture is decoded by tshark, the
# independent oracle, and compared with the plan of what was sent:
#   A. -i net_af_xdp0 (by name) -f 'udp dst port 7777' -c 20: IPv4 and IPv6
#      datagrams to 7777 interleaved with datagrams to 8888 and pings.
#      dumpcap stops by itself; the file holds exactly the 20 datagrams to
#      7777, in the order sent, as received on p0 (inbound, the namespace's
#      MAC as source, TTL / hop limit 64, source port and payload as sent).
#   B. -i <port id of p1> -f 'udp src port 40001', stopped with SIGINT: the
#      file holds exactly the datagrams from port 40001 as p1 sent them
#      (outbound, p1's MAC to the next hop's, TTL / hop limit 63), none of
#      those from port 40000.
#   C. After the captures: lanefwd still forwards every datagram, its
#      counters account for every packet (rx + frames its control thread
#      sent = tx + drops + punts, dp.h), only drop reasons stray packets
#      explain, and the ports'
#      promiscuity is what it was before (every capture passes -p: without
#      it, dpdk-dumpcap 22.11 turns promiscuous mode off on exit even on a
#      port that had it on before; docs/deploy.md).
#   D. lanefwd stops (SIGINT) while a capture runs: lanefwd exits 0 and its
#      final counters account for every packet; dpdk-dumpcap notices the primary is gone and
#      exits 0 by itself, its file holding what it captured.
#   E. lanefwd restarts on the same prefix, over what D left in its runtime
#      directory and huge pages, and a capture with -f 'ip6 and udp' holds
#      exactly the IPv6 datagrams; dumpcap, then lanefwd exit 0.
# The receiver must have got every datagram of every plan: capturing does
# not stop forwarding.
#
# Needs root, iproute2, ping, ethtool, dpdk-dumpcap, tshark,
# dpdk-telemetry.py and 192 MiB of free hugepages (scripts/hugepages.sh);
# exits 77 (SKIP) without them. Namespaces, veths, the receiver, dumpcap and
# lanefwd are removed on every exit, by name and pid.
if [ "$(id -u)" -ne 0 ]; then
	# Before lib.sh: its exit trap cleans up paths only root may touch.
	echo "SKIP: needs root (network namespaces, AF_XDP, huge pages)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
# meson stops a test that runs too long with SIGTERM: exit so that the EXIT
# trap (lf_cleanup) still tears everything down.
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
TP=dc$$
NS1=$TP-ns1 NS2=$TP-ns2
P0=$TP-p0 P1=$TP-p1
RECV_PID="" # the UDP receiver in $NS2
DC_PID=""   # the running dpdk-dumpcap

lf_need_tools ip ping ethtool ss tshark dpdk-dumpcap dpdk-telemetry.py
# lanefwd's pools and dumpcap's capture pool, both in lanefwd's huge pages.
lf_need_hugepages 192

# dumpcap and the receiver; lf_cleanup then takes the topology down.
dc_cleanup() {
	local p i
	for p in "$DC_PID" "$RECV_PID"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null || true
		for i in $(seq 1 100); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
LF_CLEANUP_HOOK=dc_cleanup

# ---------------------------------------------------------------- topology
step "topology $TP"
lf_topology_up "$TP"

printf '10.10.1.0/24 1\n10.10.2.0/24 2\n' > "$D/routes4.txt"
printf 'fd00:1::/64 1\nfd00:2::/64 2\n' > "$D/routes6.txt"
# huge = yes and no in_memory: a secondary process attaches only to a
# primary whose memory lives in hugetlbfs files under its file prefix.
cat > "$D/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
telemetry = yes
huge = yes
in_memory = no
pdump = yes
iova_mode = va
# dpdk-dumpcap (a secondary) must map the primary's memory at the same
# addresses. EAL's default base (4 GiB) lies in AddressSanitizer's shadow
# gap, so an ASan-built lanefwd takes whatever the kernel gives, and the
# secondary then found its own libraries there at random (CI: "Cannot
# reserve 17179869184 bytes at [0x7f711ea00000]"). 32 TiB is free in both.
extra = --base-virtaddr=0x200000000000

[pipeline]
burst = 32
prefetch_distance = 4

$(lf_conf_routes)

$(lf_conf_topology "$TP")
EOF
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > "$D/check-config.txt" ||
	die "--check-config rejected the test configuration: $(tail -n 3 "$D/check-config.txt")"

# ------------------------------------------------------------ the helpers
# plan.py NAME: writes the datagrams of plan NAME, one per line
# "family sport dport tag", in the order they are sent.
cat > "$D/plan.py" <<'PYEOF'
import sys

name = sys.argv[1]
rows = []
if name == "A":
    # 15 IPv4 + 5 IPv6 to 7777 between 20 IPv4 + 10 IPv6 to 8888.
    m = n = 0
    for i in range(50):
        if i % 5 in (1, 3):
            fam = 6 if m % 4 == 3 else 4
            rows.append((fam, 40000, 7777, f"A-m{m:02d}"))
            m += 1
        else:
            fam = 6 if n % 3 == 2 else 4
            rows.append((fam, 40000, 8888, f"A-n{n:02d}"))
            n += 1
elif name == "B":
    # From 40001 (captured) and 40000 (not), both families, both ports.
    for i in range(30):
        fam = 6 if i % 3 == 0 else 4
        sport = 40001 if i % 2 else 40000
        rows.append((fam, sport, 7777 if i % 4 < 2 else 8888, f"B-{i:02d}"))
elif name in ("C", "D", "E"):
    for i in range(20 if name == "C" else 10):
        rows.append((6 if i % 2 else 4, 40000, 7777, f"{name}-{i:02d}"))
else:
    sys.exit(f"plan.py: unknown plan {name}")
for r in rows:
    print(*r)
PYEOF

# send.py PLAN_FILE: sends the plan from this namespace (ns1), 2 ms apart.
cat > "$D/send.py" <<'PYEOF'
import socket
import sys
import time

DST = {4: ("10.10.2.2", socket.AF_INET), 6: ("fd00:2::2", socket.AF_INET6)}
socks = {}
for line in open(sys.argv[1]):
    fam, sport, dport, tag = line.split()
    fam, sport, dport = int(fam), int(sport), int(dport)
    key = (fam, sport)
    if key not in socks:
        s = socket.socket(DST[fam][1], socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0" if fam == 4 else "::", sport))
        socks[key] = s
    socks[key].sendto(tag.encode(), (DST[fam][0], dport))
    time.sleep(0.002)
PYEOF

# recv.py LOG: in ns2, logs "dport tag" of every datagram to 7777 and 8888
# (IPv4 and IPv6) until killed.
cat > "$D/recv.py" <<'PYEOF'
import select
import socket
import sys

log = open(sys.argv[1], "w", buffering=1)
socks = {}
for port in (7777, 8888):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    socks[s] = port
print("ready", flush=True)
while True:
    for s in select.select(list(socks), [], [])[0]:
        data = s.recv(2048)
        log.write(f"{socks[s]} {data.decode(errors='replace')}\n")
PYEOF

# check.py MODE ...: the oracles.
#   cap PCAPNG PLAN DIRECTION IFACE PREDICATE: tshark's decoding of PCAPNG
#     is exactly the plan's datagrams for which PREDICATE (a Python
#     expression of fam, sport, dport) holds, in order, as seen on IFACE
#     in DIRECTION (in: as the namespace sent them; out: as lanefwd
#     rewrote them).
#   recv LOG PLAN...: the receiver got every datagram of every PLAN.
cat > "$D/check.py" <<'PYEOF'
import json
import subprocess
import sys

MAC = {"n1": "02:00:0a:0a:01:02", "p0": "02:00:0a:0a:01:01",
       "p1": "02:00:0a:0a:02:01", "n2": "02:00:0a:0a:02:02"}
SRC = {4: "10.10.1.2", 6: "fd00:1::2"}
DST = {4: "10.10.2.2", 6: "fd00:2::2"}
FIELDS = ["frame.interface_name", "frame.packet_flags_direction", "eth.src", "eth.dst",
          "ip.src", "ip.dst", "ip.ttl", "ipv6.src", "ipv6.dst", "ipv6.hlim",
          "udp.srcport", "udp.dstport", "data.data"]
errors = []


def need(cond, msg):
    if not cond:
        errors.append(msg)


def plan(path):
    out = []
    for line in open(path):
        fam, sport, dport, tag = line.split()
        out.append({"fam": int(fam), "sport": int(sport), "dport": int(dport), "tag": tag})
    return out


def finish(summary):
    if errors:
        for e in errors[:20]:
            print("FAIL: " + e, file=sys.stderr)
        sys.exit(1)
    print(summary)


mode = sys.argv[1]
if mode == "cap":
    pcap, planf, direction, iface, pred = sys.argv[2:7]
    want = [p for p in plan(planf)
            if eval(pred, {}, {"fam": p["fam"], "sport": p["sport"], "dport": p["dport"]})]
    cmd = ["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    res = subprocess.run(cmd, capture_output=True, text=True)
    need(res.returncode == 0, f"tshark -r {pcap}: {res.stderr.strip()}")
    rows = [dict(zip(FIELDS, line.split("\t"))) for line in res.stdout.splitlines()]
    need(len(rows) == len(want),
         f"{pcap}: {len(rows)} packets, expected the {len(want)} that match '{pred}'")
    if direction == "in":
        dirflag, esrc, edst, hops = 1, MAC["n1"], MAC["p0"], "64"
    else:
        dirflag, esrc, edst, hops = 2, MAC["p1"], MAC["n2"], "63"
    for i, (r, w) in enumerate(zip(rows, want)):
        got_tag = bytes.fromhex(r["data.data"]).decode(errors="replace") if r["data.data"] else ""
        where = f"{pcap} packet {i + 1} (expected {w['tag']})"
        need(got_tag == w["tag"], f"{where}: payload {got_tag!r}")
        need(r["frame.interface_name"] == iface,
             f"{where}: interface {r['frame.interface_name']!r}, expected {iface}")
        flags = int(r["frame.packet_flags_direction"] or "0", 16)
        need(flags & 3 == dirflag, f"{where}: direction flags {flags:#x}, expected {dirflag}")
        need(r["eth.src"] == esrc and r["eth.dst"] == edst,
             f"{where}: {r['eth.src']} -> {r['eth.dst']}, expected {esrc} -> {edst}")
        v = "ip" if w["fam"] == 4 else "ipv6"
        hop = r["ip.ttl"] if w["fam"] == 4 else r["ipv6.hlim"]
        need(r[v + ".src"] == SRC[w["fam"]] and r[v + ".dst"] == DST[w["fam"]],
             f"{where}: {r[v + '.src']} -> {r[v + '.dst']}")
        need(hop == hops, f"{where}: TTL / hop limit {hop}, expected {hops}")
        need(r["udp.srcport"] == str(w["sport"]) and r["udp.dstport"] == str(w["dport"]),
             f"{where}: UDP {r['udp.srcport']} -> {r['udp.dstport']}")
    fams = sorted({w["fam"] for w in want})
    finish(f"{pcap.rsplit('/', 1)[-1]}: {len(rows)} packets, exactly the plan's datagrams "
           f"matching {pred} (IPv{' and IPv'.join(map(str, fams))}) as seen {direction} on {iface}")
elif mode == "recv":
    got = {}
    for line in open(sys.argv[2]):
        port, tag = line.split(maxsplit=1)
        got[tag.strip()] = got.get(tag.strip(), 0) + 1
    n = 0
    for planf in sys.argv[3:]:
        for p in plan(planf):
            n += 1
            need(got.get(p["tag"]) == 1,
                 f"receiver got datagram {p['tag']} {got.get(p['tag'], 0)} times, expected once")
    finish(f"receiver: all {n} datagrams arrived once each")
elif mode == "balance":
    # balance STATS_JSON | balance - "TOTAL_LINE" "EVENTS_LINE": every packet
    # accounted for (dp.h): rx + ctrl_tx + ctrl_rerun + exception_rx =
    # tx + drops + punt_ctrl, and no drop reason but those of STRAY.
    STRAY = {"ttl_expired", "no_route", "non_ip", "martian_dst", "no_exception"}
    if sys.argv[2] != "-":
        s = json.load(open(sys.argv[2]))["/lanefwd/stats"]
    else:
        # "lanefwd: total: rx N tx N drops N [REASON N]..." and
        # "lanefwd: events: [EVENT N]..."
        tot = sys.argv[3].split(":", 2)[2].split()
        ev = sys.argv[4].split(":", 2)[2].split() if sys.argv[4] else []
        pairs = dict(zip(tot[::2], map(int, tot[1::2])))
        s = {"rx_packets": pairs.pop("rx"), "tx_packets": pairs.pop("tx"),
             "drops": pairs.pop("drops")}
        s.update(("drop_" + k, v) for k, v in pairs.items())
        s.update(zip(ev[::2], map(int, ev[1::2])))
    g = lambda k: s.get(k, 0)
    lhs = g("rx_packets") + g("ctrl_tx") + g("ctrl_rerun") + g("exception_rx")
    rhs = g("tx_packets") + g("drops") + g("punt_ctrl")
    need(lhs == rhs, f"rx {g('rx_packets')} + ctrl_tx {g('ctrl_tx')} + ctrl_rerun "
         f"{g('ctrl_rerun')} + exception_rx {g('exception_rx')} != tx {g('tx_packets')} + "
         f"drops {g('drops')} + punt_ctrl {g('punt_ctrl')}")
    odd = {k: v for k, v in s.items() if k.startswith("drop_") and v and k[5:] not in STRAY}
    need(not odd, f"drops this traffic cannot explain: {odd}")
    finish(f"lanefwd: rx {g('rx_packets')} tx {g('tx_packets')} drops {g('drops')} "
           f"ctrl_tx {g('ctrl_tx')}, every packet accounted for")
elif mode == "got":
    # got LOG PLAN: exit 0 once the receiver has every datagram of PLAN.
    have = {line.split(maxsplit=1)[1].strip() for line in open(sys.argv[2]) if " " in line}
    sys.exit(0 if all(p["tag"] in have for p in plan(sys.argv[3])) else 1)
else:
    sys.exit(f"check.py: unknown mode {mode}")
PYEOF

# dc_start NAME ARGS...: dpdk-dumpcap on lanefwd's prefix, writing
# $D/NAME.pcapng; returns once the capture is enabled in lanefwd (dumpcap
# prints "Packets captured:" on stderr right after rte_pdump_enable).
dc_start() {
	local name=$1 i
	shift
	dpdk-dumpcap --file-prefix="$LF_PREFIX" "$@" -w "$D/$name.pcapng" \
		> "$D/$name.out" 2> "$D/$name.err" &
	DC_PID=$!
	for i in $(seq 1 300); do
		grep -q 'Packets captured:' "$D/$name.err" && return 0
		kill -0 "$DC_PID" 2>/dev/null ||
			die "dpdk-dumpcap $* exited during start-up: $(cat "$D/$name.err")"
		sleep 0.1
	done
	die "dpdk-dumpcap $* did not start capturing within 30 s: $(cat "$D/$name.err")"
}

# dc_count NAME: the last count dumpcap printed (it rewrites it with
# backspaces).
dc_count() {
	tr '\b' ' ' < "$D/$1.err" | sed -n 's/.*Packets captured: *//p' | awk '{ print $NF }'
}

# dc_wait_exit SECONDS: wait for the running dumpcap to exit by itself;
# its status in DC_RC.
dc_wait_exit() {
	local i
	for i in $(seq 1 $(($1 * 10))); do
		kill -0 "$DC_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$DC_PID" 2>/dev/null && return 1
	DC_RC=0
	wait "$DC_PID" || DC_RC=$?
	DC_PID=""
}

# dc_stats NAME IFACE: dumpcap's closing line for IFACE ("Packets
# received/dropped on interface 'IFACE': R/D"); fails if it dropped any.
dc_stats() {
	local line
	line=$(grep -a "on interface '$2'" "$D/$1.err") ||
		die "dumpcap $1 printed no statistics for $2: $(cat "$D/$1.err")"
	echo "dumpcap $1: $line"
	[[ "$line" =~ :\ [0-9]+/0\  ]] || die "dumpcap $1 dropped packets: $line"
}

# dc_wait_count NAME N: wait (at most 10 s) until dumpcap NAME has written
# N packets; then 1 s more, so that a packet its filter let through wrongly
# would be in the file too.
dc_wait_count() {
	local i
	for i in $(seq 1 100); do
		[ "$(dc_count "$1")" -ge "$2" ] && break
		sleep 0.1
	done
	sleep 1
}

# dc_stop NAME N: once dumpcap NAME has written N packets, stop it with
# SIGINT, as an operator does; it must exit 0.
dc_stop() {
	dc_wait_count "$1" "$2"
	kill -INT "$DC_PID"
	dc_wait_exit 30 || die "dumpcap $1 did not exit on SIGINT"
	[ "$DC_RC" = 0 ] || die "dumpcap $1 exited with status $DC_RC: $(cat "$D/$1.err")"
}

# lf_stop_balanced WHEN: SIGINT lanefwd; it must exit 0 with final counters
# that account for every packet.
lf_stop_balanced() {
	lf_stop_rc
	[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT on SIGINT $1"
	grep '^lanefwd: \(total\|events\):' "$LF_TMP/lanefwd.log" | tail -n 2
	lf_total_line | grep -q . || die "lanefwd printed no 'lanefwd: total:' line $1"
	$PY "$D/check.py" balance - "$(lf_total_line)" \
		"$(grep '^lanefwd: events:' "$LF_TMP/lanefwd.log" | tail -n 1)" ||
		die "lanefwd's final counters $1"
}

# send PLAN: send it from $NS1 and wait (at most 30 s) until the receiver
# in $NS2 has every datagram: lanefwd forwarded them all.
send() {
	local end=$((SECONDS + 30))
	$PY "$D/plan.py" "$1" > "$D/plan-$1.txt"
	ip netns exec "$NS1" "$PY" "$D/send.py" "$D/plan-$1.txt" ||
		die "sending plan $1 from $NS1 failed"
	until $PY "$D/check.py" got "$D/recv.log" "$D/plan-$1.txt"; do
		[ "$SECONDS" -lt "$end" ] || die "the receiver lacks datagrams of plan $1 after 30 s"
		sleep 0.2
	done
}

promisc() { ip -d link show dev "$1" | grep -o 'promiscuity [0-9]*'; }

# ----------------------------------------------------------------- lanefwd
step "lanefwd on $P0 and $P1 (AF_XDP), prefix $LF_PREFIX"
lf_start "$D/lanefwd.conf"
grep -q 'rte_pdump_init' "$LF_TMP/lanefwd.log" &&
	die "lanefwd did not initialise rte_pdump: $(grep rte_pdump_init "$D/lanefwd.log")"
lf_af_xdp_port_ids
PROMISC0=$(promisc "$P0") PROMISC1=$(promisc "$P1")

ip netns exec "$NS2" "$PY" "$D/recv.py" "$D/recv.log" > "$D/recv.out" 2>&1 &
RECV_PID=$!
for i in $(seq 1 100); do
	grep -q ready "$D/recv.out" && break
	kill -0 "$RECV_PID" 2>/dev/null || die "the receiver failed: $(cat "$D/recv.out")"
	sleep 0.1
done
lf_ping_through "$NS1" 10.10.2.2

step "dumpcap lists lanefwd's ports"
timeout 60 dpdk-dumpcap --file-prefix="$LF_PREFIX" -D > "$D/list.txt" 2> "$D/list.err" ||
	die "dpdk-dumpcap -D failed: $(cat "$D/list.err")"
cat "$D/list.txt"
if ! grep -qx "$P0_ID\. net_af_xdp0" "$D/list.txt" ||
	! grep -qx "$P1_ID\. net_af_xdp1" "$D/list.txt"; then
	die "dpdk-dumpcap -D does not list net_af_xdp0 as $P0_ID and net_af_xdp1 as $P1_ID"
fi

# ----------------------------------------------------------------- capture A
step "A: -i net_af_xdp0 -f 'udp dst port 7777' -c 20"
dc_start A -i net_af_xdp0 -p -f 'udp dst port 7777' -c 20
ip netns exec "$NS1" ping -c 3 -i 0.1 -W 2 10.10.2.2 > /dev/null || die "ping during capture A"
send A
dc_wait_exit 30 || die "dumpcap -c 20 did not stop after 20 matching packets: $(dc_count A) captured"
[ "$DC_RC" = 0 ] || die "dumpcap A exited with status $DC_RC: $(cat "$D/A.err")"
dc_stats A net_af_xdp0
$PY "$D/check.py" cap "$D/A.pcapng" "$D/plan-A.txt" in "$P0" "dport == 7777"

# ----------------------------------------------------------------- capture B
step "B: -i $P1_ID (p1's port id) -f 'udp src port 40001', stopped by SIGINT"
dc_start B -i "$P1_ID" -p -f 'udp src port 40001'
send B
dc_stop B "$(awk '$2 == 40001' "$D/plan-B.txt" | wc -l)"
dc_stats B net_af_xdp1
$PY "$D/check.py" cap "$D/B.pcapng" "$D/plan-B.txt" out "$P1" "sport == 40001"

# ------------------------------------------------------------ after captures
step "C: forwarding after the captures"
send C
# Telemetry reads counters the worker stores once per burst: retry a moment.
end=$((SECONDS + 30))
until lf_tel_save /lanefwd/stats "$D/stats-C.json" &&
	$PY "$D/check.py" balance "$D/stats-C.json" 2> "$D/balance.err"; do
	[ "$SECONDS" -lt "$end" ] || die "lanefwd's counters after the captures: $(cat "$D/balance.err")"
	sleep 0.5
done
if [ "$(promisc "$P0")" != "$PROMISC0" ] || [ "$(promisc "$P1")" != "$PROMISC1" ]; then
	die "the captures changed the ports' promiscuity: $P0 $PROMISC0 -> $(promisc "$P0"), $P1 $PROMISC1 -> $(promisc "$P1")"
fi
echo "ports' promiscuity unchanged ($P0 $PROMISC0, $P1 $PROMISC1)"

# --------------------------------------------------- lanefwd stops mid-capture
step "D: lanefwd stops while dumpcap captures on net_af_xdp1"
dc_start D -i net_af_xdp1 -p -f udp
send D
dc_wait_count D "$(wc -l < "$D/plan-D.txt")"
lf_stop_balanced "during a capture"
dc_wait_exit 30 || die "dumpcap did not exit within 30 s of lanefwd"
[ "$DC_RC" = 0 ] || die "dumpcap D exited with status $DC_RC after lanefwd stopped: $(cat "$D/D.err")"
grep -aq 'Primary process is no longer active' "$D/D.err" ||
	die "dumpcap D did not report that lanefwd had gone: $(cat "$D/D.err")"
$PY "$D/check.py" cap "$D/D.pcapng" "$D/plan-D.txt" out "$P1" "True"
# ------------------------------------------------------- restart, capture E
step "E: lanefwd restarted on the same prefix, -f 'ip6 and udp'"
lf_start "$D/lanefwd.conf"
dc_start E -i net_af_xdp0 -p -f 'ip6 and udp'
send E
dc_stop E "$(awk '$1 == 6' "$D/plan-E.txt" | wc -l)"
dc_stats E net_af_xdp0
$PY "$D/check.py" cap "$D/E.pcapng" "$D/plan-E.txt" in "$P0" "fam == 6"
lf_stop_balanced "after capture E"

kill "$RECV_PID" 2>/dev/null || true
wait "$RECV_PID" 2>/dev/null || true
RECV_PID=""
$PY "$D/check.py" recv "$D/recv.log" "$D/plan-A.txt" "$D/plan-B.txt" "$D/plan-C.txt" "$D/plan-D.txt" \
	"$D/plan-E.txt"
echo "PASS: dumpcap"
