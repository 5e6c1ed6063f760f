# latency: lanefwd's RX->TX residence histograms, read with the stock
# telemetry client, account for every transmitted packet and are
# self-consistent; the reset command clears them; with [pipeline] latency = no
# the command answers with an error and nothing is recorded.
#
# 2000 UDP/IPv4 frames are read once from a pcap. After rx has settled and two
# one-second collections have run, /lanefwd/latency must count exactly the
# packets /lanefwd/stats says were transmitted, with min <= p50 <= ... <=
# p99.99 <= max; /lanefwd/latency,1 must list ascending bucket bounds whose
# counts add up to that count.
. "$(dirname "$0")/lib.sh"

D=$LF_TMP
N=2000

$PY - "$D" "$N" <<'PYEOF'
import struct
import sys
from scapy.all import Ether, IP, UDP, Raw, raw

d, n = sys.argv[1], int(sys.argv[2])
frames = [raw(Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:aa") /
              IP(src="10.9.%d.%d" % (i // 250, i % 250 + 1), dst="10.1.0.%d" % (i % 200 + 1)) /
              UDP(sport=1000 + i, dport=53) / Raw(b"x" * 18)) for i in range(n)]


def write(path, fr):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, x in enumerate(fr):
            f.write(struct.pack("<IIII", 1700000000, i, len(x), len(x)))
            f.write(x)


write(d + "/in.pcap", frames)
write(d + "/empty.pcap", [])
PYEOF

printf '10.1.0.0/16 1\n' > "$D/routes4.txt"
conf() {
	cat > "$D/lanefwd.conf" <<-CONF
	[eal]
	file_prefix = $LF_PREFIX
	huge = no
	memory = 256
	[pipeline]
	burst = 32
	latency = $1
	latency_clock = ${2:-tsc}
	[routes]
	ipv4 = routes4.txt
	ipv4_max_routes = 1024
	ipv4_tbl8 = 256
	ipv6_max_routes = 1024
	ipv6_tbl8 = 256
	# The frames go to 02:00:00:00:00:01, not to the pcap port's MAC.
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
	[nexthop 1]
	port = p1
	mac = 02:00:00:00:0b:01
	CONF
}

# --- latency on ---
conf yes
lf_start "$D/lanefwd.conf"
lf_wait_settled "$N"
lf_wait_latency 1 "$N"
lf_tel_save /lanefwd/stats "$D/stats.json"
lf_tel_save /lanefwd/latency "$D/lat.json"
lf_tel_save /lanefwd/latency,1 "$D/lat1.json"
lf_tel_save /lanefwd/latency,7 "$D/lat7.json"
lf_tel_save /lanefwd/latency,abc "$D/latabc.json"
$PY - "$D" "$N" <<'PYEOF' || die "latency histogram checks failed"
import json
import sys

d, n = sys.argv[1], int(sys.argv[2])


def tel(name):
    return next(iter(json.load(open(f"{d}/{name}.json")).values()))


stats, lat, lat1 = tel("stats"), tel("lat"), tel("lat1")
assert stats["rx_packets"] == n and stats["tx_packets"] == n, stats
w = lat["1"]
assert w["count"] == stats["tx_packets"], (w["count"], stats["tx_packets"])
keys = ["min_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "max_ns"]
vals = [w[k] for k in keys]
assert vals == sorted(vals) and vals[0] > 0, vals
assert w["overflow"] == 0
assert w["interval_count"] <= w["count"]
# Collections are at least 1 s apart; a busy machine can delay one a lot.
assert 900 <= lat["interval_ms"] <= 60000, lat["interval_ms"]
# The per-bucket view of the same histogram.
for k in ["count"] + keys:
    assert lat1[k] == w[k], (k, lat1[k], w[k])
up, cnt = lat1["bucket_upper_ns"], lat1["bucket_count"]
assert len(up) == len(cnt) > 0
assert up == sorted(up) and len(set(up)) == len(up), up
assert sum(cnt) == w["count"] and min(cnt) > 0
assert up[-1] >= w["max_ns"] and up[0] >= w["min_ns"]
# Unknown worker or bad parameter: an error, not a crash.
for bad in ("lat7", "latabc"):
    assert list(tel(bad)) == ["error"], tel(bad)
print("latency: count", w["count"], "p50", w["p50_ns"], "ns, p99.99", w["p99_99_ns"], "ns")
PYEOF
lf_tel_save /lanefwd/latency_reset "$D/reset.json"
lf_tel_save /lanefwd/latency "$D/lat2.json"
$PY -c '
import json, sys
w = json.load(open(sys.argv[1]))["/lanefwd/latency"]["1"]
assert w["count"] == 0 and w["interval_count"] == 0 and w["max_ns"] == 0, w
' "$D/lat2.json" || die "reset did not clear the histograms"
lf_stop
grep -q "^lanefwd: total: rx $N tx $N drops 0" "$LF_TMP/lanefwd.log" || die "final totals"
# Nothing was sent after the reset: no residence line (count 0).
if grep -q "residence ns" "$LF_TMP/lanefwd.log"; then
	die "residence recorded after the reset"
fi

# --- latency off ---
conf no
lf_start "$D/lanefwd.conf"
lf_wait_settled "$N"
lf_tel_save /lanefwd/latency "$D/off.json"
$PY -c '
import json, sys
r = json.load(open(sys.argv[1]))["/lanefwd/latency"]
assert list(r) == ["error"] and "latency = no" in r["error"], r
' "$D/off.json" || die "latency = no should answer with an error"
lf_stop
grep -q "^lanefwd: total: rx $N tx $N drops 0" "$LF_TMP/lanefwd.log" || die "final totals (latency off)"
if grep -q "residence ns" "$LF_TMP/lanefwd.log"; then
	die "residence recorded with latency = no"
fi

# --- latency_clock = hw on ports without RX timestamps: refused at start ---
# (the pcap PMD of DPDK 22.11 offers neither RTE_ETH_RX_OFFLOAD_TIMESTAMP
# nor rte_eth_read_clock; a port that has both is needed for the hw path)
conf yes hw
set +e
"$LANEFWD" -c "$D/lanefwd.conf" > "$D/hw.log" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || die "latency_clock = hw started on pcap ports"
grep -q "\[port p0\] (net_pcap0, driver net_pcap): \[pipeline\] latency_clock = hw needs RX timestamps" \
	"$D/hw.log" || { cat "$D/hw.log" >&2; die "latency_clock = hw: no clear error naming the port"; }
echo "latency: ok"
