# top: tools/lanefwd-top reads a running lanefwd over the telemetry socket,
# checked against counts that hold however slow or busy the machine is (no
# comparison of rates measured over different windows).
#
# 1. Exact totals: lanefwd forwards a finite pcap of N packets once to a null
#    port. Once every packet is accounted for, lanefwd-top --json must report
#    the worker's cumulative counts as exactly N received, N sent, no drop,
#    and over its interval (after the traffic) 0 Mpps, 0 cycles/packet, 100 %
#    idle and 0 drops/s.
# 2. Its arithmetic: lanefwd-top loaded as a module computes its rows from a
#    made-up pair of samples with known answers, and from two samples it read
#    over its one telemetry connection from lanefwd replaying the pcap
#    forever; every figure must be what those same counts give.
# 3. The command on the endless replay (-n 2): in each row the packets the
#    worker received over the interval are Mpps x interval, the cumulative
#    count lies between /lanefwd/workers read before and after the command,
#    and cycles/packet, idle %, drops and residence percentiles are
#    plausible.
# 4. A wrong file prefix fails with a clear message.
. "$(dirname "$0")/lib.sh"

D=$LF_TMP
TOP=$LF_SRCDIR/tools/lanefwd-top
N=10000
$PY - "$D" "$N" <<'PYEOF'
import struct
import sys
from scapy.all import Ether, IP, UDP, Raw

d, n = sys.argv[1], int(sys.argv[2])
frames = [bytes(Ether(dst="02:00:00:00:00:01") / IP(src="10.9.0.%d" % (i + 1), dst="10.1.0.1") /
                UDP(sport=1000 + i, dport=53) / Raw(b"x" * 18)) for i in range(64)]


def pcap(path, count):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(count):
            x = frames[i % len(frames)]
            f.write(struct.pack("<IIII", 1700000000, i, len(x), len(x)))
            f.write(x)


pcap(d + "/finite.pcap", n)
pcap(d + "/loop.pcap", len(frames))
PYEOF
printf '10.1.0.0/16 1\n' > "$D/routes4.txt"
# conf PCAP DEVARGS: the configuration, reading PCAP.
conf() {
	cat > "$D/lanefwd.conf" <<-CONF
		[eal]
		file_prefix = $LF_PREFIX
		huge = no
		memory = 256
		[routes]
		ipv4 = routes4.txt
		ipv4_max_routes = 1024
		ipv4_tbl8 = 256
		ipv6_max_routes = 1024
		ipv6_tbl8 = 256
		# The frames go to 02:00:00:00:00:01, not to the pcap port's MAC.
		[port p0]
		vdev = net_pcap0,rx_pcap=$D/$1$2
		promiscuous = yes
		# No gratuitous ARP / unsolicited NA at start: tx is the forwarded frames.
		[neighbour]
		gratuitous = no
		[port p1]
		vdev = net_null0,no-rx=1
		[worker 1]
		rx = p0:0
		[nexthop 1]
		port = p1
		mac = 02:00:00:00:0b:01
	CONF
}

# ---------------------------------------------------------- 1. exact totals
conf finite.pcap ""
lf_start "$D/lanefwd.conf"
lf_wait_settled "$N"
"$TOP" -f "$LF_PREFIX" -i 0.5 -n 1 --json > "$D/finite.json" || die "lanefwd-top failed"
$PY - "$D/finite.json" "$N" <<'PYEOF' || die "lanefwd-top's totals are not the packets sent"
import json
import sys

n = int(sys.argv[2])
rows = [json.loads(line)["workers"] for line in open(sys.argv[1])]
assert len(rows) == 1 and len(rows[0]) == 1, rows
w = rows[0][0]
assert w["lcore"] == 1, w
assert (w["rx_packets"], w["tx_packets"], w["drops"]) == (n, n, 0), (w, n)
# The traffic was over before the interval began.
assert w["mpps"] == 0 and w["cycles_per_packet"] == 0 and w["drops_per_s"] == 0, w
assert w["idle_percent"] == 100.0, w
assert w["interval_s"] >= 0.5, w
print(f"top totals: rx {w['rx_packets']} tx {w['tx_packets']} drops {w['drops']} of {n} sent")
PYEOF
lf_stop

# ------------------------------------------------------ 2, 3. endless replay
conf loop.pcap ",infinite_rx=1"
lf_start "$D/lanefwd.conf"
# Percentiles need a latency interval with traffic in it: wait for one
# (however long the control thread takes on a busy machine).
for i in $(seq 1 300); do
	lf_tel /lanefwd/latency | $PY -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)["/lanefwd/latency"]["1"]["interval_count"] > 0 else 1)' \
		2>/dev/null && break
	[ "$i" -lt 300 ] || die "no latency interval with traffic within 60 s"
	sleep 0.2
done

$PY - "$TOP" "$LF_PREFIX" <<'PYEOF' || die "lanefwd-top's figures are not what its samples give"
import importlib.util
import math
import sys
import time
from importlib.machinery import SourceFileLoader

loader = SourceFileLoader("lanefwd_top", sys.argv[1])
top = importlib.util.module_from_spec(importlib.util.spec_from_loader("lanefwd_top", loader))
loader.exec_module(top)


def expect(prev, cur):
    """Each figure from the two samples' counts, as documented."""
    (t0, w0, _), (t1, w1, lat) = prev, cur
    dt = t1 - t0
    out = []
    for lcore in sorted(w1, key=int):
        a, b = w0[lcore], w1[lcore]
        rx = b["rx_packets"] - a["rx_packets"]
        busy = b["busy_cycles"] - a["busy_cycles"]
        idle = b["idle_cycles"] - a["idle_cycles"]
        drop = sum(b[k] - a[k] for k in b if k.startswith("drop_"))
        out.append({"lcore": int(lcore), "mpps": rx / dt / 1e6,
                    "cycles_per_packet": busy / rx if rx else 0.0,
                    "idle_percent": 100.0 * idle / (busy + idle) if busy + idle else 100.0,
                    "drops_per_s": round(drop / dt),
                    "p99_us": lat[lcore]["interval_p99_ns"] / 1000.0,
                    "p99_99_us": lat[lcore]["interval_p99_99_ns"] / 1000.0,
                    "interval_s": dt, "rx_packets": b["rx_packets"],
                    "tx_packets": b["tx_packets"],
                    "drops": sum(v for k, v in b.items() if k.startswith("drop_"))})
    return out


def same(got, want, what):
    assert len(got) == len(want), (what, got, want)
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w), (what, sorted(g), sorted(w))
        for k in w:
            assert math.isclose(g[k], w[k], rel_tol=1e-12), (what, k, g[k], w[k])


# Made-up samples with known answers: 3 M packets in 2 s is 1.5 Mpps, at
# 150 M busy cycles 50 cycles/packet, 150 M idle cycles 50 % idle, 200 drops
# 100 per s.
w0 = {"1": {"rx_packets": 1000, "tx_packets": 900, "busy_cycles": 10, "idle_cycles": 20,
            "drop_no_route": 100, "drop_ttl_expired": 0}}
w1 = {"1": {"rx_packets": 3001000, "tx_packets": 3000700, "busy_cycles": 150000010,
            "idle_cycles": 150000020, "drop_no_route": 250, "drop_ttl_expired": 50}}
lat = {"1": {"interval_p99_ns": 2500, "interval_p99_99_ns": 7000}}
r = top.rows((10.0, w0, lat), (12.0, w1, lat))
same(r, [{"lcore": 1, "mpps": 1.5, "cycles_per_packet": 50.0, "idle_percent": 50.0,
          "drops_per_s": 100, "p99_us": 2.5, "p99_99_us": 7.0, "interval_s": 2.0,
          "rx_packets": 3001000, "tx_packets": 3000700, "drops": 300}], "made-up samples")

# Live samples over one connection: the rows are what those counts give.
tel = top.Telemetry(sys.argv[2])
s0 = top.sample(tel)
time.sleep(0.5)
s1 = top.sample(tel)
live = top.rows(s0, s1)
same(live, expect(s0, s1), "live samples")
assert live[0]["rx_packets"] > s0[1]["1"]["rx_packets"], (live, s0)
print("top arithmetic: made-up and live samples agree:", live[0])
PYEOF

lf_tel_save /lanefwd/workers "$D/w0.json"
"$TOP" -f "$LF_PREFIX" -i 1 -n 2 --json > "$D/top.json" || die "lanefwd-top failed"
lf_tel_save /lanefwd/workers "$D/w1.json"
$PY - "$D" <<'PYEOF' || die "lanefwd-top's live figures are not consistent or plausible"
import json
import math
import sys

d = sys.argv[1]
before = json.load(open(d + "/w0.json"))["/lanefwd/workers"]["1"]["rx_packets"]
after = json.load(open(d + "/w1.json"))["/lanefwd/workers"]["1"]["rx_packets"]
rows = [json.loads(line)["workers"] for line in open(d + "/top.json")]
assert len(rows) == 2 and all(len(r) == 1 and r[0]["lcore"] == 1 for r in rows), rows
a, b = rows[0][0], rows[1][0]
# Counters only grow: what lanefwd-top read lies between the two reads
# around it, and its second row's interval holds exactly the packets
# between its two cumulative counts.
assert before <= a["rx_packets"] < b["rx_packets"] <= after, (before, a, b, after)
got = b["mpps"] * 1e6 * b["interval_s"]
assert math.isclose(got, b["rx_packets"] - a["rx_packets"], rel_tol=1e-9), (got, a, b)
for w in (a, b):
    assert w["mpps"] > 0 and w["interval_s"] >= 1, w
    assert 10 < w["cycles_per_packet"] < 100000, w
    assert 0 <= w["idle_percent"] <= 100, w
    assert w["drops_per_s"] == 0 and w["drops"] == 0, w
    assert 0 < w["p99_us"] <= w["p99_99_us"], w
print("top live:", b)
PYEOF

# ------------------------------------------------------- 4. wrong prefix
if "$TOP" -f "nosuch$$" -n 1 > "$D/bad.txt" 2>&1; then
	die "lanefwd-top should fail on an unknown file prefix"
fi
grep -q "cannot connect to /var/run/dpdk/nosuch$$/dpdk_telemetry.v2" "$D/bad.txt" ||
	die "unclear error: $(cat "$D/bad.txt")"
lf_stop
echo "top: ok"
