# prometheus: a real Prometheus server (Debian's prometheus package) scrapes
# lanefwd's exporter ([prometheus]) and its HTTP API gives back lanefwd's
# counters, equal to what lanefwd's own telemetry reports.
#
# 3000 frames (telemetry_check.py gen: forwarded to two ports and dropped
# for several reasons) are read once from a pcap. Once lanefwd has received
# all of them and rx = tx + drops holds:
#  - /metrics by hand: HTTP 200 with Content-Type text/plain; version=0.0.4,
#    accepted by `promtool check metrics`; HEAD answers headers only; 404 for
#    another path, 405 for POST, 400 for a bad request line, 431 for an
#    oversized header, and a client that connects and sends nothing gets a
#    408 within seconds while a scrape behind it is still answered;
#  - Prometheus (scrape_interval 1 s, its own tmp TSDB, a free port on
#    127.0.0.1) has scraped lanefwd after the traffic stopped; then through
#    its /api/v1/query: per worker rx/tx packets, busy polls and every drop
#    reason equal /lanefwd/workers; the sums equal /lanefwd/stats and the
#    frame count; per port packets, bytes and errors equal /ethdev/stats;
#    the latency histogram's _count and +Inf bucket equal /lanefwd/latency's
#    count, its buckets are cumulative, and histogram_quantile(0.5) lies in
#    the bucket of telemetry's p50; a reload through telemetry shows up as
#    lanefwd_reloads_total 1 and a new lanefwd_table_generation;
#  - after SIGINT lanefwd exits 0, logs its scrapes and no longer listens;
#  - the exporter on ::1 answers over IPv6; with its port taken lanefwd
#    fails to start, naming [prometheus], the address and the port.
# Prometheus and lanefwd are stopped by pid; the TSDB lives in the test's
# scratch directory.
. "$(dirname "$0")/lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

for t in prometheus promtool dpdk-telemetry.py; do
	command -v "$t" > /dev/null || lf_skip "$t is not installed (scripts/deps.sh)"
done

D=$LF_TMP
N=3000
PROM_PID=""

prom_cleanup() {
	if [ -n "$PROM_PID" ]; then
		kill "$PROM_PID" 2> /dev/null || true
		wait "$PROM_PID" 2> /dev/null || true
	fi
}
LF_CLEANUP_HOOK=prom_cleanup

# Two free TCP ports on 127.0.0.1: lanefwd's exporter and Prometheus.
read -r LF_PORT PROM_PORT < <($PY -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

cat > "$D/routes4.txt" << 'EOF'
10.1.0.0/16 1
10.2.0.0/16 0
10.9.0.0/24 1
EOF
printf '2001:db8:1::/48 1\n' > "$D/routes6.txt"
cat > "$D/lanefwd.conf" << EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = no
memory = 256
telemetry = yes

[pipeline]
burst = 32
latency = yes

$(lf_conf_routes)

[prometheus]
address = 127.0.0.1
port = $LF_PORT

# The capture's frames are not to p0's MAC: take them as a switch port does.
[port p0]
vdev = net_pcap0,rx_pcap=$D/in.pcap,tx_pcap=$D/out_p0.pcap
promiscuous = yes

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
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > "$D/check-config.txt" ||
	die "config rejected: $(tail -n 3 "$D/check-config.txt")"

lf_start "$D/lanefwd.conf"
grep -q "prometheus: serving http://127.0.0.1:$LF_PORT/metrics" "$D/lanefwd.log" ||
	die "lanefwd does not say it serves /metrics on port $LF_PORT"
lf_wait_settled "$N"
TX=$(lf_tel /lanefwd/stats | $PY -c 'import json, sys; print(json.load(sys.stdin)["/lanefwd/stats"]["tx_packets"])')
lf_wait_latency 1 "$TX"
T_SETTLED=$(date +%s.%N)

# ------------------------------------------------------ /metrics by hand
cat > "$D/http_check.py" << 'PYEOF'
"""HTTP checks of lanefwd's exporter: http_check.py PORT OUT_METRICS."""
import socket
import sys
import time

port, out = int(sys.argv[1]), sys.argv[2]
errors = []


def need(cond, msg):
    if not cond:
        errors.append(msg)


def exchange(data, timeout=15):
    """Send data, read the whole answer (the server closes): status, headers, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        got = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    head, _, body = got.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    hdr = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        hdr[k.strip().lower()] = v.strip()
    return status, hdr, body


st, hdr, body = exchange(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n")
need(st == 200, f"GET /metrics: status {st}")
need(hdr.get("content-type", "").startswith("text/plain; version=0.0.4"),
     f"GET /metrics: Content-Type {hdr.get('content-type')!r}")
need(hdr.get("connection") == "close", f"GET /metrics: Connection {hdr.get('connection')!r}")
need(int(hdr.get("content-length", -1)) == len(body),
     f"GET /metrics: Content-Length {hdr.get('content-length')} for {len(body)} bytes")
need(b"\nlanefwd_worker_rx_packets_total{worker=\"1\"} " in body, "no rx counter of worker 1")
with open(out, "wb") as f:
    f.write(body)

st, hdr, body = exchange(b"HEAD /metrics HTTP/1.0\r\n\r\n")
need(st == 200 and body == b"" and int(hdr.get("content-length", 0)) > 0,
     f"HEAD /metrics: status {st}, {len(body)} body bytes, length {hdr.get('content-length')}")
for req, want in ((b"GET / HTTP/1.1\r\n\r\n", 404),
                  (b"GET /metricsx HTTP/1.1\r\n\r\n", 404),
                  (b"POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 405),
                  (b"BREW /metrics HTTP/1.1\r\n\r\n", 405),
                  (b"GET /metrics\r\n\r\n", 400),
                  (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),
                  (b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n", 431)):
    st, hdr, _ = exchange(req)
    need(st == want, f"{req[:30]!r}...: status {st}, expected {want}")
    if want == 405:
        need(hdr.get("allow") == "GET, HEAD", f"405 without Allow: GET, HEAD: {hdr}")

# A client that connects and says nothing: answered 408 after the server's
# request timeout; a scrape queued behind it still gets its page.
silent = socket.create_connection(("127.0.0.1", port), timeout=30)
time.sleep(0.2)
t0 = time.monotonic()
st, _, body = exchange(b"GET /metrics HTTP/1.1\r\n\r\n", timeout=30)
waited = time.monotonic() - t0
need(st == 200 and b"lanefwd_worker_rx_packets_total" in body,
     f"a scrape behind a silent client: status {st}")
need(waited < 20, f"a scrape behind a silent client took {waited:.1f} s")
got = silent.recv(4096)
need(got.startswith(b"HTTP/1.1 408 "), f"the silent client got {got[:40]!r}, not 408")
silent.close()
# One that sends half a request and stops: the same.
half = socket.create_connection(("127.0.0.1", port), timeout=30)
half.sendall(b"GET /metr")
got = half.recv(4096)
need(got.startswith(b"HTTP/1.1 408 "), f"a half request got {got[:40]!r}, not 408")
half.close()
if errors:
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    sys.exit(1)
print(f"ok: /metrics: 200 text/plain; version=0.0.4 ({len(open(out, 'rb').read())} bytes), "
      f"HEAD, 404, 405, 400, 431; a silent client answered 408, the scrape behind it "
      f"waited {waited:.1f} s")
PYEOF
$PY "$D/http_check.py" "$LF_PORT" "$D/metrics.txt" || die "HTTP checks of /metrics failed"
promtool check metrics < "$D/metrics.txt" > "$D/promtool.txt" 2>&1 ||
	die "promtool check metrics rejects /metrics: $(head -n 20 "$D/promtool.txt")"
echo "ok: promtool check metrics accepts /metrics ($(grep -c '^# TYPE' "$D/metrics.txt") families, $(grep -vc '^#' "$D/metrics.txt") samples)"

# ------------------------------------------------------------ Prometheus
cat > "$D/prometheus.yml" << EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: lanefwd
    static_configs:
      - targets: ['127.0.0.1:$LF_PORT']
EOF
promtool check config "$D/prometheus.yml" > "$D/promtool-config.txt" 2>&1 ||
	die "promtool check config: $(cat "$D/promtool-config.txt")"
prometheus --config.file="$D/prometheus.yml" --storage.tsdb.path="$D/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn \
	> "$D/prometheus.log" 2>&1 &
PROM_PID=$!

cat > "$D/api.py" << 'PYEOF'
"""Prometheus HTTP API helpers: api.py PROM_PORT MODE ARGS."""
import json
import math
import sys
import time
import urllib.parse
import urllib.request

base = "http://127.0.0.1:%s" % sys.argv[1]


def query(q):
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
    assert d["status"] == "success", d
    return d["data"]["result"]


def wait(cond, what, secs=90):
    end = time.monotonic() + secs
    last = None
    while time.monotonic() < end:
        try:
            last = cond()
            if last is True:
                return
        except Exception as e:  # not up yet
            last = repr(e)
        time.sleep(0.5)
    sys.exit(f"FAIL: {what} within {secs} s (last: {last})")


mode = sys.argv[2]
if mode == "ready":
    def ready():
        with urllib.request.urlopen(base + "/-/ready", timeout=5) as r:
            return r.status == 200
    wait(ready, "Prometheus not ready")
elif mode == "scraped-after":
    # A successful scrape of lanefwd later than the given Unix time.
    t = float(sys.argv[3])

    def scraped():
        r = query('up{job="lanefwd"}')
        if not r:
            return "no up series"
        ts, v = r[0]["value"]
        r = query('timestamp(lanefwd_tsc_hz{job="lanefwd"})')
        return (v == "1" and r and float(r[0]["value"][1]) > t) or r
    wait(scraped, "no scrape of lanefwd after the traffic stopped")
elif mode == "wait":
    # wait QUERY VALUE: until the query's single result is VALUE.
    q, want = sys.argv[3], float(sys.argv[4])
    wait(lambda: (len(query(q)) == 1 and float(query(q)[0]["value"][1]) == want) or
         query(q), f"{q} did not become {sys.argv[4]}")
else:
    sys.exit(f"api.py: unknown mode {mode}")
PYEOF
$PY "$D/api.py" "$PROM_PORT" ready || die "Prometheus did not start: $(tail -n 5 "$D/prometheus.log")"
$PY "$D/api.py" "$PROM_PORT" scraped-after "$T_SETTLED" ||
	die "Prometheus did not scrape lanefwd: $(tail -n 5 "$D/prometheus.log")"

# lanefwd's own view, traffic stopped: what Prometheus must report.
lf_tel_save /lanefwd/stats "$D/tel_stats.json"
lf_tel_save /lanefwd/workers "$D/tel_workers.json"
lf_tel_save /lanefwd/latency "$D/tel_latency.json"
lf_tel_save /lanefwd/info "$D/tel_info.json"
P0_ID=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["/lanefwd/info"]["port_p0"]["port_id"])' "$D/tel_info.json")
P1_ID=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["/lanefwd/info"]["port_p1"]["port_id"])' "$D/tel_info.json")
lf_tel_save "/ethdev/stats,$P0_ID" "$D/tel_eth_p0.json"
lf_tel_save "/ethdev/stats,$P1_ID" "$D/tel_eth_p1.json"

cat > "$D/compare.py" << 'PYEOF'
"""Prometheus's answers against lanefwd's telemetry: compare.py PROM_PORT DIR N."""
import json
import math
import os
import sys
import urllib.parse
import urllib.request

base, d, n = "http://127.0.0.1:%s" % sys.argv[1], sys.argv[2], int(sys.argv[3])
errors, checked = [], 0


def query(q):
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=10) as r:
        res = json.load(r)
    assert res["status"] == "success", res
    return res["data"]["result"]


def one(q):
    r = query(q)
    if len(r) != 1:
        errors.append(f"{q}: {len(r)} series, expected 1: {r}")
        return None
    return float(r[0]["value"][1])


def eq(q, want, what):
    global checked
    got = one(q)
    checked += 1
    if got is None or got != want:
        errors.append(f"{q} = {got}, but {what} says {want}")


def tel(name, key):
    return json.load(open(os.path.join(d, name)))[key]


st = tel("tel_stats.json", "/lanefwd/stats")
wk = tel("tel_workers.json", "/lanefwd/workers")["1"]
lat = tel("tel_latency.json", "/lanefwd/latency")["1"]

if st["rx_packets"] != n:
    errors.append(f"/lanefwd/stats rx_packets {st['rx_packets']}, {n} frames were sent")
eq('sum(lanefwd_worker_rx_packets_total{job="lanefwd"})', n, "the pcap")
eq('sum(lanefwd_worker_rx_packets_total)', st["rx_packets"], "/lanefwd/stats rx_packets")
eq('sum(lanefwd_worker_tx_packets_total)', st["tx_packets"], "/lanefwd/stats tx_packets")
eq('sum(lanefwd_worker_drops_total)', st["drops"], "/lanefwd/stats drops")
for k in ("rx_packets", "tx_packets", "busy_polls"):
    eq(f'lanefwd_worker_{k}_total{{worker="1"}}', wk[k], f"/lanefwd/workers {k}")
nonzero = 0
for k, v in st.items():
    if k.startswith("drop_"):
        r = k[5:]
        eq(f'sum by (reason) (lanefwd_worker_drops_total{{reason="{r}"}})', v,
           f"/lanefwd/stats {k}")
        eq(f'lanefwd_worker_drops_total{{worker="1",reason="{r}"}}', wk[k], f"/lanefwd/workers {k}")
        nonzero += v > 0
if nonzero < 3:
    errors.append(f"only {nonzero} drop reasons counted anything; the traffic has more")
for p in ("p0", "p1"):
    e = tel(f"tel_eth_{p}.json", "/ethdev/stats")
    for prom, ek in (("rx_packets", "ipackets"), ("tx_packets", "opackets"),
                     ("rx_bytes", "ibytes"), ("tx_bytes", "obytes"),
                     ("rx_missed", "imissed"), ("rx_errors", "ierrors"),
                     ("tx_errors", "oerrors"), ("rx_nombuf", "rx_nombuf")):
        eq(f'lanefwd_port_{prom}_total{{port="{p}",role="port"}}', e[ek],
           f"/ethdev/stats {p} {ek}")
eq('lanefwd_port_rx_packets_total{port="p0"}', n, "the pcap")

# The latency histogram.
eq('lanefwd_worker_latency_seconds_count{worker="1"}', lat["count"], "/lanefwd/latency count")
eq('lanefwd_worker_latency_seconds_bucket{worker="1",le="+Inf"}', lat["count"],
   "/lanefwd/latency count")
if lat["count"] != st["tx_packets"]:
    errors.append(f"/lanefwd/latency count {lat['count']} != tx_packets {st['tx_packets']}")
buckets = sorted((float(r["metric"]["le"]), float(r["value"][1]))
                 for r in query('lanefwd_worker_latency_seconds_bucket{worker="1"}'))
if len(buckets) < 10 or buckets[-1][0] != math.inf:
    errors.append(f"latency buckets: {buckets}")
if any(b[1] > c[1] for b, c in zip(buckets, buckets[1:])):
    errors.append(f"latency buckets not cumulative: {buckets}")
s = one('lanefwd_worker_latency_seconds_sum{worker="1"}')
mean_tel = None
if s is None or not s > 0:
    errors.append(f"latency _sum {s}")
q50 = one('histogram_quantile(0.5, lanefwd_worker_latency_seconds_bucket{worker="1"})')
p50 = lat["p50_ns"] * 1e-9
if q50 is None or not math.isfinite(q50):
    errors.append(f"histogram_quantile(0.5): {q50}")
else:
    # The Prometheus bucket q50 falls in; telemetry's p50 (the upper end of
    # its 1/64-wide bucket) must lie in it too, give or take that width.
    bounds = [0.0] + [b[0] for b in buckets]
    hi = next(b for b in bounds[1:] if b >= q50)
    lo = bounds[bounds.index(hi) - 1]
    if not (lo * (1 - 1 / 32) <= p50 <= hi * (1 + 1 / 32)):
        errors.append(f"histogram_quantile(0.5) = {q50} s in bucket ({lo}, {hi}], but "
                      f"/lanefwd/latency p50 is {p50} s")
    # The mean from _sum and _count against telemetry's min and max.
    mean = s / lat["count"] if s and lat["count"] else 0
    if not (lat["min_ns"] * 1e-9 * (1 - 1 / 32) <= mean <= lat["max_ns"] * 1e-9 * (1 + 1 / 32)):
        errors.append(f"mean latency {mean} s outside [{lat['min_ns']}, {lat['max_ns']}] ns")
eq('lanefwd_reloads_total', 0, "no reload yet")
events = {r["metric"]["event"] for r in query('lanefwd_worker_events_total{worker="1"}')}
if len(events) < 5:
    errors.append(f"events: {sorted(events)}")
for ev in sorted(events):
    if ev not in st or ev not in wk:
        errors.append(f"event {ev}: not in /lanefwd/stats or /lanefwd/workers")
        continue
    eq(f'sum(lanefwd_worker_events_total{{event="{ev}"}})', st[ev], f"/lanefwd/stats {ev}")
    eq(f'lanefwd_worker_events_total{{worker="1",event="{ev}"}}', wk[ev], f"/lanefwd/workers {ev}")
if errors:
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    sys.exit(1)
print(f"ok: {checked} Prometheus queries equal lanefwd's telemetry: rx {st['rx_packets']} "
      f"tx {st['tx_packets']} drops {st['drops']}; latency count {lat['count']}, "
      f"histogram_quantile(0.5) {q50 * 1e9:.0f} ns (telemetry p50 {lat['p50_ns']} ns), "
      f"mean {s / lat['count'] * 1e9:.0f} ns")
PYEOF
$PY "$D/compare.py" "$PROM_PORT" "$D" "$N" || die "Prometheus and telemetry disagree"

# Every query of the Grafana dashboard in docs parses and names series
# that exist (an expression filtered by '> 0' or about the UPF may be empty).
$PY - "$PROM_PORT" "$LF_SRCDIR/docs/grafana/lanefwd.json" << 'PYEOF' || die "the dashboard's queries"
import json, re, sys, urllib.error, urllib.parse, urllib.request
base, dash = "http://127.0.0.1:%s" % sys.argv[1], json.load(open(sys.argv[2]))
bad, n = [], 0
for p in dash["panels"]:
    for t in p.get("targets", []):
        e = t["expr"].replace("$__rate_interval", "1m").replace("$instance", ".*")
        e = e.replace("$worker", ".*")
        url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": e})
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                ok = json.load(r)["status"] == "success"
        except urllib.error.HTTPError as x:
            ok, e = False, e + ": " + x.read().decode()
        n += 1
        if not ok:
            bad.append(f"{p['title']}: {e}")
        for m in re.findall(r"\b(lanefwd_[a-z_]+)\b", e):
            with urllib.request.urlopen(base + "/api/v1/series?" + urllib.parse.urlencode(
                    {"match[]": m}), timeout=10) as r:
                if not json.load(r)["data"] and not m.startswith("lanefwd_upf_"):
                    bad.append(f"{p['title']}: no series {m}")
if bad:
    sys.exit("FAIL: " + "\n".join(bad))
print(f"ok: the {n} queries of docs/grafana/lanefwd.json run on Prometheus")
PYEOF

# A reload: Prometheus sees the counter and the new generation.
GEN=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["/lanefwd/info"]["generation"])' "$D/tel_info.json")
lf_tel /lanefwd/reload | grep -q '"status": "ok"' || die "reload through telemetry failed"
$PY "$D/api.py" "$PROM_PORT" wait 'lanefwd_reloads_total{job="lanefwd"}' 1 ||
	die "Prometheus does not see the reload"
$PY "$D/api.py" "$PROM_PORT" wait 'lanefwd_table_generation{job="lanefwd"}' "$((GEN + 1))" ||
	die "Prometheus does not see table generation $((GEN + 1))"
echo "ok: a reload shows in Prometheus as lanefwd_reloads_total 1, generation $((GEN + 1))"

lf_stop_rc
[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT after SIGINT"
scrapes=$(sed -n 's/.*prometheus: stopped after \([0-9]*\) scrapes.*/\1/p' "$D/lanefwd.log")
[ -n "$scrapes" ] && [ "$scrapes" -ge 5 ] ||
	die "lanefwd did not log its exporter's stop with at least 5 scrapes: '$scrapes'"
if $PY -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)' \
	"$LF_PORT" 2> /dev/null; then
	die "something still listens on port $LF_PORT after lanefwd stopped"
fi
echo "ok: lanefwd stopped (exit 0) after $scrapes scrapes, port $LF_PORT closed"

# IPv6: the same exporter on ::1.
rm -rf "/var/run/dpdk/$LF_PREFIX"
sed "s/^address = 127.0.0.1$/address = ::1/" "$D/lanefwd.conf" > "$D/lanefwd6.conf"
grep -q "^address = ::1$" "$D/lanefwd6.conf" || die "lanefwd6.conf has no address = ::1"
lf_start "$D/lanefwd6.conf"
grep -q "prometheus: serving http://\[::1\]:$LF_PORT/metrics" "$D/lanefwd.log" ||
	die "lanefwd does not say it serves on [::1]:$LF_PORT"
$PY - "$LF_PORT" << 'PYEOF' || die "GET /metrics over IPv6"
import sys, urllib.request
with urllib.request.urlopen("http://[::1]:%s/metrics" % sys.argv[1], timeout=15) as r:
    body = r.read()
    assert r.status == 200 and r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
assert b'lanefwd_worker_rx_packets_total{worker="1"} ' in body, body[:200]
print("ok: GET http://[::1]:%s/metrics: 200, %d bytes" % (sys.argv[1], len(body)))
PYEOF
lf_stop_rc
[ "$LF_EXIT" = 0 ] || die "lanefwd on ::1 exited with status $LF_EXIT after SIGINT"

# A port already taken: lanefwd says so, naming the section, and fails.
rm -rf "/var/run/dpdk/$LF_PREFIX"
rc=0
$PY - "$LANEFWD" "$D/lanefwd.conf" "$LF_PORT" > "$D/busy.log" 2>&1 << 'PYEOF' || rc=$?
import socket, subprocess, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[3])))
s.listen(1)
p = subprocess.run([sys.argv[1], "-c", sys.argv[2]], timeout=120)
sys.exit(p.returncode)
PYEOF
[ "$rc" -ne 0 ] || die "lanefwd started although port $LF_PORT was taken"
grep -q "\[prometheus\] cannot listen on 127.0.0.1 port $LF_PORT: Address already in use" "$D/busy.log" ||
	die "no error naming [prometheus] and the taken port: $(grep -i prom "$D/busy.log" | tail -n 3)"
echo "ok: with port $LF_PORT taken, lanefwd exits $rc: $(grep -o '\[prometheus\] cannot listen.*' "$D/busy.log" | head -n 1)"
echo "PASS: prometheus"
