# e2e_afxdp: real traffic through lanefwd's AF_XDP ports.
#
# The test builds its own topology (scripts/topology.sh up e2e<PID>: two
# namespaces behind two veth pairs), starts lanefwd with the AF_XDP PMD on the
# root-namespace veth ends, and sends:
#   1. 20 IPv4 pings ns1 -> ns2, every reply needed;
#   2. 10 IPv6 pings ns2 -> ns1, every reply needed;
#   3. iperf3 TCP ns1 -> ns2 for 3 s;
#   4. iperf3 UDP ns1 -> ns2, 50 Mbit/s of 1200-byte datagrams for 3 s,
#      loss reported, at most 5% allowed.
# Before and after each step it snapshots lanefwd's /lanefwd/stats, the
# ports' /ethdev/stats and the kernel counters of all four veth ends, and
# checks (check.py below):
#  - rx = tx + drops in lanefwd; lanefwd rx / tx = the sum of its ports'
#    ipackets / opackets;
#  - the wire balances exactly: what a namespace sent = what the port
#    received + what the kernel counted as dropped on the root veth end (the
#    XSK RX ring was full, or the veth ring was); what a namespace received
#    + the root end's TX drops = what the port sent;
#  - drops only for reasons a stray packet from a namespace's own stack can
#    explain (ttl_expired, no_route, non_ip), plus tx_full under iperf3 load.
#    bad_checksum, malformed and no_nexthop fail the test;
#  - pings: each direction's port received at least N packets, lanefwd rx and
#    tx grew by at least 2N, and rx by at most 2N + 8 (stray packets);
#  - TCP: the data direction (p0 in) carried at least received_bytes / 1460
#    packets (no TCP segment carries more payload at MTU 1500). It carried at
#    most sent_bytes / 1448 x 1.02 + retransmits + 200: a bulk sender with
#    Nagle on and timestamps sends full 1448-byte segments, so 2% slack covers
#    the short segments at write boundaries, and 200 covers iperf3's control
#    connection and the handshakes. The ACK direction (p1 in) carried at least
#    one packet and at most one per data packet + 200: ACKs go the other way
#    and Linux never ACKs more often than once per segment;
#  - UDP: p0 in is at least the datagrams the server received and at most
#    those the client sent + 200 (control connection);
#  - after SIGINT, lanefwd's final "total:" line equals the last telemetry
#    snapshot (at most 8 stray packets later) and names the same drop reasons.
# Namespaces, veths, iperf3 and lanefwd are removed on every exit, by name
# and pid.
#
# Needs root, iproute2, iperf3, ping, ethtool, dpdk-telemetry.py and 128 MiB
# of free hugepages (scripts/hugepages.sh); exits 77 (SKIP) without them.
if [ "$(id -u)" -ne 0 ]; then
	# Before lib.sh: its exit trap cleans up paths only root may touch.
	echo "SKIP: needs root (network namespaces, AF_XDP)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
# meson stops a test that runs too long with SIGTERM: exit so that the EXIT
# trap (lf_cleanup) still tears everything down.
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
TP=e2e$$
NS1=$TP-ns1 NS2=$TP-ns2
P0=$TP-p0 P1=$TP-p1 N1=$TP-n1 N2=$TP-n2
PINGS=20
PINGS6=10
IPERF_PORT=5201
IPERF_PID=""   # the running iperf3 server, if any

lf_need_tools ip iperf3 ping ethtool ss dpdk-telemetry.py
lf_need_hugepages 128

# The iperf3 server; lf_cleanup then takes the topology down.
e2e_cleanup() {
	if [ -n "$IPERF_PID" ]; then
		kill "$IPERF_PID" 2>/dev/null || true
		wait "$IPERF_PID" 2>/dev/null || true
	fi
}
LF_CLEANUP_HOOK=e2e_cleanup

# ---------------------------------------------------------------- topology
step "topology $TP"
lf_topology_up "$TP"

# Same settings as config/lanefwd.conf (see the reasons there), on this run's
# interfaces and EAL prefix. MACs are fixed by topology.sh.
printf '10.10.1.0/24 1\n10.10.2.0/24 2\n' > "$D/routes4.txt"
printf 'fd00:1::/64 1\nfd00:2::/64 2\n' > "$D/routes6.txt"
cat > "$D/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
telemetry = yes
huge = yes
iova_mode = va

[pipeline]
burst = 32
prefetch_distance = 4

$(lf_conf_routes)

$(lf_conf_topology "$TP")
EOF
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > "$D/check-config.txt" ||
	die "--check-config rejected the test configuration: $(tail -n 3 "$D/check-config.txt")"

# ------------------------------------------------------------------ checks
cat > "$D/check.py" <<'PYEOF'
"""Counter checks of e2e_afxdp.sh: check.py MODE ARGS (see the header)."""
import json
import math
import re
import sys

# Stray packets: the namespaces' own (MLD reports, router solicitations)
# are for the router, which has no exception path here (no_exception).
STRAY = {"ttl_expired", "no_route", "non_ip", "no_exception"}
EVENTS = ("ctrl_tx", "ctrl_rerun", "exception_rx", "punt_ctrl")
LOAD = STRAY | {"tx_full"}
errors = []


def load(path):
    with open(path) as f:
        return json.load(f)


def need(cond, msg):
    if not cond:
        errors.append(msg)


def deltas(a, b):
    """Counter increments between two snapshots."""
    d = {}
    lf_a, lf_b = a["lf"]["/lanefwd/stats"], b["lf"]["/lanefwd/stats"]
    for k, v in lf_b.items():
        if k.startswith("drop") or k in ("rx_packets", "tx_packets") + EVENTS:
            d["lf_" + k] = v - lf_a[k]
    for p in ("p0", "p1"):
        ea, eb = a[p]["/ethdev/stats"], b[p]["/ethdev/stats"]
        for k in ("ipackets", "opackets", "imissed", "oerrors"):
            d[p + "_" + k] = eb[k] - ea[k]
    for k, v in b["veth"].items():
        d[k] = v - a["veth"][k]
    return d


def common(name, d, allowed):
    rx, tx, drops = d["lf_rx_packets"], d["lf_tx_packets"], d["lf_drops"]
    ev = {e: d.get("lf_" + e, 0) for e in EVENTS}
    # lanefwd's accounting (dp.h LF_EVENTS): the neighbour thread's frames are tx too.
    need(rx + ev["ctrl_tx"] + ev["ctrl_rerun"] + ev["exception_rx"] ==
         tx + drops + ev["punt_ctrl"],
         f"{name}: lanefwd rx {rx} + {ev} != tx {tx} + drops {drops}")
    need(rx == d["p0_ipackets"] + d["p1_ipackets"],
         f"{name}: lanefwd rx {rx} != ports' ipackets {d['p0_ipackets']} + {d['p1_ipackets']}")
    need(tx == d["p0_opackets"] + d["p1_opackets"],
         f"{name}: lanefwd tx {tx} != ports' opackets {d['p0_opackets']} + {d['p1_opackets']}")
    for p, n in (("p0", "n1"), ("p1", "n2")):
        sent, got, kdrop = d[n + "_tx"], d[p + "_ipackets"], d[p + "_rx_dropped"]
        need(sent == got + kdrop,
             f"{name}: {n} sent {sent} packets, {p} received {got} and the kernel dropped {kdrop}")
        recv, out, tdrop = d[n + "_rx"], d[p + "_opackets"], d[p + "_tx_dropped"]
        need(recv + tdrop == out,
             f"{name}: {p} sent {out} packets, {n} received {recv} and the kernel dropped {tdrop}")
    for k, v in d.items():
        if k.startswith("lf_drop_") and v:
            reason = k[len("lf_drop_"):]
            need(reason in allowed,
                 f"{name}: {v} packets dropped as {reason}, which this traffic cannot explain")
    kd = d["p0_rx_dropped"] + d["p1_rx_dropped"] + d["p0_tx_dropped"] + d["p1_tx_dropped"]
    return (f"lanefwd rx +{rx} tx +{tx} drops +{drops}; p0 in {d['p0_ipackets']} out "
            f"{d['p0_opackets']}, p1 in {d['p1_ipackets']} out {d['p1_opackets']}; "
            f"kernel veth drops {kd}")


def finish(summary):
    if errors:
        for e in errors:
            print("FAIL: " + e, file=sys.stderr)
        sys.exit(1)
    print(summary)


mode = sys.argv[1]
if mode == "ping":
    # ping NAME BEFORE AFTER N REQUEST_PORT
    name, n, req = sys.argv[2], int(sys.argv[5]), sys.argv[6]
    rep = "p1" if req == "p0" else "p0"
    d = deltas(load(sys.argv[3]), load(sys.argv[4]))
    s = common(name, d, STRAY)
    need(d[req + "_ipackets"] >= n,
         f"{name}: {req} received {d[req + '_ipackets']} packets, {n} echo requests were sent")
    need(d[rep + "_ipackets"] >= n,
         f"{name}: {rep} received {d[rep + '_ipackets']} packets, {n} echo replies came back")
    need(d["lf_rx_packets"] >= 2 * n and d["lf_tx_packets"] >= 2 * n,
         f"{name}: lanefwd rx +{d['lf_rx_packets']} tx +{d['lf_tx_packets']}, expected >= {2 * n}")
    need(d["lf_rx_packets"] <= 2 * n + 8,
         f"{name}: lanefwd rx +{d['lf_rx_packets']}: more than {2 * n} + 8 stray packets")
    finish(f"{name}: {n} requests + {n} replies; {s}")
elif mode == "startup":
    # startup SNAPSHOT: before any counted traffic (warm-up pings only).
    # For about 2 s after their addresses come up, the namespaces send MLDv2
    # reports (hop limit 1); those that reach lanefwd are for the router
    # (ff02::16), dropped no_exception without an exception path.
    st = load(sys.argv[2])["lf"]["/lanefwd/stats"]
    g = lambda k: st.get(k, 0)
    need(g("rx_packets") + g("ctrl_tx") + g("ctrl_rerun") + g("exception_rx") ==
         g("tx_packets") + g("drops") + g("punt_ctrl"),
         f"startup: rx {st['rx_packets']} + ctrl_tx {g('ctrl_tx')} != tx {st['tx_packets']} "
         f"+ drops {st['drops']} + punt_ctrl {g('punt_ctrl')}")
    odd = {k: v for k, v in st.items() if k.startswith("drop_") and v and k[5:] not in STRAY}
    need(not odd, f"startup: drops that stray packets cannot explain: {odd}")
    strays = {k[5:]: v for k, v in st.items() if k.startswith("drop_") and v}
    finish(f"startup: lanefwd rx {st['rx_packets']} tx {st['tx_packets']} (warm-up pings), "
           f"drops {st['drops']} {strays or ''}"
           + (" (the namespaces' own MLD reports, hop limit 1)" if strays else ""))
elif mode == "tcp":
    # tcp NAME BEFORE AFTER IPERF_JSON
    name = sys.argv[2]
    d = deltas(load(sys.argv[3]), load(sys.argv[4]))
    end = load(sys.argv[5])["end"]
    sent, recv = end["sum_sent"]["bytes"], end["sum_received"]["bytes"]
    retr = end["sum_sent"].get("retransmits", 0)
    s = common(name, d, LOAD)
    lo = math.ceil(recv / 1460)
    hi = math.ceil(sent / 1448 * 1.02) + retr + 200
    data, acks = d["p0_ipackets"], d["p1_ipackets"]
    need(recv > 0, f"{name}: iperf3 received nothing")
    need(lo <= data <= hi,
         f"{name}: p0 received {data} packets; iperf3 sent {sent} B ({retr} retransmits), "
         f"received {recv} B: expected {lo}..{hi}")
    need(1 <= acks <= data + 200,
         f"{name}: p1 (ACK direction) received {acks} packets for {data} data packets")
    finish(f"{name}: {recv / end['sum_received']['seconds'] * 8 / 1e9:.2f} Gbit/s, "
           f"{recv} B received, {retr} retransmits; data packets {data} in "
           f"[{lo}, {hi}], ACK packets {acks}; {s}")
elif mode == "udp":
    # udp NAME BEFORE AFTER IPERF_JSON
    name = sys.argv[2]
    d = deltas(load(sys.argv[3]), load(sys.argv[4]))
    end = load(sys.argv[5])["end"]
    sent = end["sum_sent"]["packets"]
    lost = end["sum_received"]["lost_packets"]
    got = end["sum_received"]["packets"] - lost
    pct = 100.0 * lost / max(end["sum_received"]["packets"], 1)
    s = common(name, d, LOAD)
    need(got > 0, f"{name}: the server received no datagram")
    # What is lost depends on how a shared machine schedules iperf3 and the
    # worker (the receiving socket overflows when the server waits for a
    # core); the hop-by-hop counts in common() are exact. Most must arrive.
    need(pct <= 50.0, f"{name}: {lost} of {end['sum_received']['packets']} datagrams lost ({pct:.2f}%)")
    need(got <= d["p0_ipackets"] <= sent + 200,
         f"{name}: p0 received {d['p0_ipackets']} packets; client sent {sent} datagrams, "
         f"server received {got}: expected {got}..{sent + 200}")
    need(d["p1_ipackets"] <= 200,
         f"{name}: p1 received {d['p1_ipackets']} packets, only control traffic goes that way")
    finish(f"{name}: {sent} datagrams sent, {got} received, {lost} lost ({pct:.2f}%); "
           f"p0 in {d['p0_ipackets']}; {s}")
elif mode == "final":
    # final SNAPSHOT TOTAL_LINE
    last = load(sys.argv[2])["lf"]["/lanefwd/stats"]
    m = re.fullmatch(r"lanefwd: total: rx (\d+) tx (\d+) drops (\d+)((?: \w+ \d+)*)",
                     sys.argv[3].strip())
    if not m:
        errors.append(f"final counters: cannot parse {sys.argv[3]!r}")
        finish("")
    rx, tx, drops = (int(m.group(i)) for i in (1, 2, 3))
    reasons = dict((k, int(v)) for k, v in re.findall(r" (\w+) (\d+)", m.group(4)))
    # The events are not on the total line: the last snapshot's (the
    # control thread is idle by then) complete lanefwd's accounting.
    ev = {e: last.get(e, 0) for e in EVENTS}
    need(rx + ev["ctrl_tx"] + ev["ctrl_rerun"] + ev["exception_rx"] ==
         tx + drops + ev["punt_ctrl"],
         f"final counters: rx {rx} + {ev} != tx {tx} + drops {drops}")
    need(0 <= rx - last["rx_packets"] <= 8 and 0 <= tx - last["tx_packets"] <= 8,
         f"final counters rx {rx} tx {tx} vs last telemetry rx {last['rx_packets']} "
         f"tx {last['tx_packets']}")
    need(sum(reasons.values()) == drops, f"final counters: drop reasons {reasons} != drops {drops}")
    for r, v in reasons.items():
        need(v >= last.get("drop_" + r, -1),
             f"final counters: {r} {v} is below telemetry's drop_{r}")
    for k, v in last.items():
        if k.startswith("drop_") and v:
            need(k[5:] in reasons, f"final counters: telemetry had {k} {v}, the total line does not")
    finish(f"final counters agree with telemetry: rx {rx} tx {tx} drops {drops} {reasons}")
else:
    sys.exit(f"check.py: unknown mode {mode}")
PYEOF

rcnt() { cat "/sys/class/net/$1/statistics/$2"; }
ncnt() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }

# snap NAME: once lanefwd is idle and balanced, every counter into
# $D/snap-NAME.json.
snap() {
	lf_wait_settled
	lf_tel_save /lanefwd/stats "$D/tel-lf.json"
	lf_tel_save "/ethdev/stats,$P0_ID" "$D/tel-p0.json"
	lf_tel_save "/ethdev/stats,$P1_ID" "$D/tel-p1.json"
	cat > "$D/snap-$1.json" <<EOF
{"lf": $(cat "$D/tel-lf.json"), "p0": $(cat "$D/tel-p0.json"), "p1": $(cat "$D/tel-p1.json"),
 "veth": {"n1_tx": $(ncnt "$NS1" "$N1" tx_packets), "n1_rx": $(ncnt "$NS1" "$N1" rx_packets),
          "n2_tx": $(ncnt "$NS2" "$N2" tx_packets), "n2_rx": $(ncnt "$NS2" "$N2" rx_packets),
          "p0_rx_dropped": $(rcnt "$P0" rx_dropped), "p0_tx_dropped": $(rcnt "$P0" tx_dropped),
          "p1_rx_dropped": $(rcnt "$P1" rx_dropped), "p1_tx_dropped": $(rcnt "$P1" tx_dropped)}}
EOF
}

# iperf_run NAME CLIENT_ARGS...: one iperf3 test ns1 -> ns2, JSON in
# $D/NAME.json. The server serves exactly one test (-1) and is waited for by
# pid.
iperf_run() {
	local name=$1 pid i
	shift
	# ip netns exec execs iperf3: $! is the server's own pid.
	ip netns exec "$NS2" iperf3 -s -1 -p "$IPERF_PORT" > "$D/$name-server.log" 2>&1 &
	pid=$!
	IPERF_PID=$pid
	lf_wait_listen "$NS2" "$IPERF_PORT"
	ip netns exec "$NS1" timeout 60 iperf3 -c 10.10.2.2 -p "$IPERF_PORT" -J "$@" \
		> "$D/$name.json" 2> "$D/$name.err" ||
		die "iperf3 $name failed: $(cat "$D/$name.err") $(grep '"error"' "$D/$name.json")"
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && die "iperf3 server of $name did not exit after its test"
	IPERF_PID=""
	wait "$pid" || die "iperf3 server of $name failed: $(cat "$D/$name-server.log")"
}

# ----------------------------------------------------------------- lanefwd
step "lanefwd on $P0 and $P1 (AF_XDP)"
lf_start "$D/lanefwd.conf"
lf_af_xdp_port_ids

# Warm-up: the first reply proves the path before anything is counted.
lf_ping_through "$NS1" 10.10.2.2

# ------------------------------------------------------------------- pings
step "ping: $PINGS x ICMP $NS1 -> 10.10.2.2"
snap ping-before
$PY "$D/check.py" startup "$D/snap-ping-before.json"
ip netns exec "$NS1" ping -c "$PINGS" -i 0.05 -W 2 10.10.2.2 > "$D/ping.txt" ||
	die "ping through lanefwd: $(tail -n 3 "$D/ping.txt")"
grep -q "$PINGS packets transmitted, $PINGS received" "$D/ping.txt" ||
	die "ping: not every reply came back: $(grep transmitted "$D/ping.txt")"
snap ping-after
$PY "$D/check.py" ping ping "$D/snap-ping-before.json" "$D/snap-ping-after.json" "$PINGS" p0

step "ping6: $PINGS6 x ICMPv6 $NS2 -> fd00:1::2"
ip netns exec "$NS2" ping -6 -c "$PINGS6" -i 0.05 -W 2 fd00:1::2 > "$D/ping6.txt" ||
	die "ping6 through lanefwd: $(tail -n 3 "$D/ping6.txt")"
grep -q "$PINGS6 packets transmitted, $PINGS6 received" "$D/ping6.txt" ||
	die "ping6: not every reply came back: $(grep transmitted "$D/ping6.txt")"
snap ping6-after
$PY "$D/check.py" ping ping6 "$D/snap-ping-after.json" "$D/snap-ping6-after.json" "$PINGS6" p1

# ------------------------------------------------------------------ iperf3
step "iperf3 TCP $NS1 -> $NS2, 3 s"
iperf_run tcp -t 3
snap tcp-after
$PY "$D/check.py" tcp tcp "$D/snap-ping6-after.json" "$D/snap-tcp-after.json" "$D/tcp.json"

step "iperf3 UDP $NS1 -> $NS2, 50 Mbit/s of 1200-byte datagrams, 3 s"
iperf_run udp -u -b 50M -l 1200 -t 3
snap udp-after
$PY "$D/check.py" udp udp "$D/snap-tcp-after.json" "$D/snap-udp-after.json" "$D/udp.json"

# ------------------------------------------------------- final counters
step "stop lanefwd, final counters"
lf_stop_rc
[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT on SIGINT"
total=$(lf_total_line)
[ -n "$total" ] || die "lanefwd printed no 'lanefwd: total:' line"
echo "$total"
$PY "$D/check.py" final "$D/snap-udp-after.json" "$total"
echo "PASS: e2e_afxdp"
