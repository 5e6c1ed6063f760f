# top: scripts/lanefwd-top reads a running lanefwd over the telemetry socket
# and reports per-worker rates that match the device counters.
#
# lanefwd forwards a pcap replayed forever (infinite_rx) to a null port.
# lanefwd-top --json takes one 2 s sample; its Mpps must match the null
# port's transmitted packets over the same window (read with the stock
# dpdk-telemetry.py from DPDK's own /ethdev/stats) within 25%, and its
# cycles/packet, idle % and residence percentiles must be plausible. A wrong
# file prefix must fail with a clear message.
. "$(dirname "$0")/lib.sh"

D=$LF_TMP
$PY - "$D" <<'PYEOF'
import sys
from scapy.all import Ether, IP, UDP, Raw, wrpcap
d = sys.argv[1]
wrpcap(d + "/in.pcap", [Ether(dst="02:00:00:00:00:01") / IP(src="10.9.0.%d" % (i + 1), dst="10.1.0.1") /
                        UDP(sport=1000 + i, dport=53) / Raw(b"x" * 18) for i in range(64)])
PYEOF
printf '10.1.0.0/16 1\n' > "$D/routes4.txt"
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
	[port p0]
	vdev = net_pcap0,rx_pcap=$D/in.pcap,infinite_rx=1
	[port p1]
	vdev = net_null0,no-rx=1
	[worker 1]
	rx = p0:0
	[nexthop 1]
	port = p1
	mac = 02:00:00:00:0b:01
	CONF
lf_start "$D/lanefwd.conf"
sleep 1.5
t0=$(date +%s.%N)
lf_tel_save /ethdev/stats,1 "$D/e0.json"
"$LF_SRCDIR/scripts/lanefwd-top" -f "$LF_PREFIX" -i 2 -n 1 --json > "$D/top.json" ||
	die "lanefwd-top failed"
lf_tel_save /ethdev/stats,1 "$D/e1.json"
t1=$(date +%s.%N)
$PY - "$D" "$t0" "$t1" <<'PYEOF' || die "lanefwd-top figures do not match the device counters"
import json, sys
d = sys.argv[1]
e0 = json.load(open(d + "/e0.json"))["/ethdev/stats"]["opackets"]
e1 = json.load(open(d + "/e1.json"))["/ethdev/stats"]["opackets"]
top = json.loads(open(d + "/top.json").read())["workers"]
assert len(top) == 1 and top[0]["lcore"] == 1, top
w = top[0]
# Steady traffic: the device rate over a window that brackets lanefwd-top's
# sample is the same rate, within the noise of a shared machine.
dev_mpps = (e1 - e0) / (float(sys.argv[3]) - float(sys.argv[2])) / 1e6
assert w["mpps"] > 0.1, w
assert 0.75 <= w["mpps"] / dev_mpps <= 1.25, (w["mpps"], dev_mpps)
assert 10 < w["cycles_per_packet"] < 100000, w
assert 0 <= w["idle_percent"] <= 100, w
assert w["drops_per_s"] == 0, w
assert 0 < w["p99_us"] <= w["p99_99_us"], w
print("top:", w)
PYEOF
if "$LF_SRCDIR/scripts/lanefwd-top" -f "nosuch$$" -n 1 > "$D/bad.txt" 2>&1; then
	die "lanefwd-top should fail on an unknown file prefix"
fi
grep -q "cannot connect to /var/run/dpdk/nosuch$$/dpdk_telemetry.v2" "$D/bad.txt" ||
	die "unclear error: $(cat "$D/bad.txt")"
lf_stop
echo "top: ok"
