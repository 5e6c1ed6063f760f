# gen_memif: lanefwd-gen drives lanefwd over two memif interfaces and its
# figures agree with lanefwd's own telemetry.
#
# lanefwd has two memif ports in the server role (a, b) and routes
# 10.1.0.0/16 and 2001:db8:1::/48 out of b. lanefwd-gen connects as the
# client to both, sends on a and receives on b, at a low fixed rate (the
# machine may have two cores, shared with lanefwd's worker; the rate it
# reaches is not checked, only counts). For each run
# (IPv4/UDP/64 B/sequential flows, IPv4/TCP/IMIX/uniform, IPv6/UDP/Zipf)
# the generator's JSON must show exactly rate x duration packets sent, all
# received, no loss, reordering, duplicates or foreign frames, and, against
# the deltas of lanefwd's /lanefwd/stats and /lanefwd/workers: lanefwd
# received what the generator sent and sent what the generator received;
# lanefwd's /lanefwd/latency counts every forwarded packet, and each of the
# generator's end-to-end percentiles is at least lanefwd's residence
# percentile (per packet, end to end contains the residence, so every order
# statistic does too). The flows the generator received equal --flows when
# every flow is sent. A last run uses --loopback and --search without
# lanefwd: the ring port loses nothing, so the first trial passes. One run
# holds the generator's memif disconnect to check its order of shutdown.
# (The memif set-up and the order of shutdown: memif_lib.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/memif_lib.sh"

D=$LF_TMP
RATE=20000
DUR=1

memif_conf "$D/lanefwd.conf" "burst = 32
latency = yes"

# gen_run NAME all|some OPTIONS...: one generator run against lanefwd, with
# the telemetry before and after it in $D/NAME.*.json; "all" when every flow
# must have been received (sequential or dense uniform), "some" for Zipf.
gen_run() {
	local name=$1 flows_mode=$2
	shift 2
	lf_start "$D/lanefwd.conf"
	lf_tel_save /lanefwd/stats "$D/$name.stats0.json"
	lf_tel_save /lanefwd/workers "$D/$name.workers0.json"
	lf_tel_save /lanefwd/latency_reset "$D/$name.reset.json"
	memif_gen "$D" "$name" --rate $RATE --duration $DUR --drain 1 "$@"
	lf_wait_settled
	lf_tel_save /lanefwd/stats "$D/$name.stats1.json"
	lf_tel_save /lanefwd/workers "$D/$name.workers1.json"
	# The residence histogram counts every packet the worker sent since the
	# reset, once the control thread has collected them all.
	lf_wait_latency 1 "$($PY -c '
import json, sys
w0, w1 = (json.load(open(f))["/lanefwd/workers"]["1"] for f in sys.argv[1:])
print(w1["tx_packets"] - w0["tx_packets"])' "$D/$name.workers0.json" "$D/$name.workers1.json")"
	lf_tel_save /lanefwd/latency "$D/$name.lat.json"
	lf_stop
	grep -q "^lanefwd: total: rx $((RATE * DUR)) tx $((RATE * DUR)) drops 0" \
		"$LF_TMP/lanefwd.log" || die "gen $name: lanefwd's final totals: $(lf_total_line)"
	memif_gen_end "$D" "$name"
	$PY - "$D" "$name" "$RATE" "$DUR" "$flows_mode" <<'PYEOF' || { cat "$D/$name.gen.log" >&2; die "gen $name: checks failed"; }
import json
import sys

d, name, rate, dur, flows_all = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]


def tel(suffix):
    return next(iter(json.load(open(f"{d}/{name}.{suffix}.json")).values()))


g = json.load(open(f"{d}/{name}.gen.json"))
r = g["result"]
s0, s1 = tel("stats0"), tel("stats1")
w0, w1 = tel("workers0"), tel("workers1")
lat = tel("lat")["1"]
sent = int(rate * dur)
# The generator: exactly rate x duration, everything back, nothing odd.
assert r["tx"] == sent, ("tx", r["tx"], sent)
assert r["tx_warmup"] == 0 and r["tx_unsent"] == 0 and r["tx_alloc_fail"] == 0, r
assert r["rx"] == r["rx_stamped"] == r["rx_all"] == sent, r
assert r["loss"] == 0 and r["loss_ratio"] == 0, r
assert r["reorder"] == 0 and r["dup"] == 0, r
assert r["rx_foreign"] == 0 and r["rx_corrupt"] == 0 and r["rx_warmup"] == 0, r
assert r["latency"]["count"] == r["rx"], r["latency"]
# The rate the generator achieved depends on how the machine schedules it;
# only its counts are exact.
assert r["tx_pps"] > 0, r["tx_pps"]
# lanefwd saw the same packets: stats and per-worker deltas.
d_rx = s1["rx_packets"] - s0["rx_packets"]
d_tx = s1["tx_packets"] - s0["tx_packets"]
assert d_rx == r["tx"], ("lanefwd rx", d_rx, "gen tx", r["tx"])
assert d_tx == r["rx_all"], ("lanefwd tx", d_tx, "gen rx", r["rx_all"])
assert s1["drops"] == s0["drops"], (s0["drops"], s1["drops"])
wd_rx = w1["1"]["rx_packets"] - w0["1"]["rx_packets"]
wd_tx = w1["1"]["tx_packets"] - w0["1"]["tx_packets"]
assert (wd_rx, wd_tx) == (d_rx, d_tx), (wd_rx, wd_tx, d_rx, d_tx)
# lanefwd's residence histogram counts every forwarded packet (reset before).
assert lat["count"] == d_tx, ("lanefwd latency count", lat["count"], d_tx)
# End to end >= residence, percentile by percentile (1 ns of rounding).
gl = r["latency"]
for k in ["min_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "max_ns"]:
    assert gl[k] + 1 >= lat[k], (k, "gen", gl[k], "lanefwd", lat[k])
flows = g["config"]["flows"]
if flows_all == "all":
    assert r["flows_seen"] == flows, ("flows seen", r["flows_seen"], flows)
else:
    assert 0 < r["flows_seen"] <= flows, r["flows_seen"]
print(f"gen {name}: tx {r['tx']} rx {r['rx']} flows {r['flows_seen']}/{flows} "
      f"e2e p50 {gl['p50_ns']} p99 {gl['p99_ns']} ns; lanefwd residence p50 {lat['p50_ns']} "
      f"p99 {lat['p99_ns']} ns")
PYEOF
}

gen_run v4udp all --flows 1000 --dist seq --size 64
gen_run v4tcp all --flows 500 --dist uniform --proto tcp --size imix
gen_run v6zipf some --flows 4000 --dist zipf --zipf-s 1.1 --dst-ip 2001:db8:1::1 --size 64

# lanefwd closes the links while memif's disconnect in the generator's EAL
# interrupt thread is held (LD_PRELOAD, slow_intr_close.c): the generator
# must wait for it before closing its ports, and exit cleanly.
[ -f "${LF_SLOW_INTR_CLOSE:-}" ] || die "no slow_intr_close shim at '${LF_SLOW_INTR_CLOSE:-}'"
# A sanitizer build's runtime must come first in the library list.
preload=$LF_SLOW_INTR_CLOSE
asan=$(ldd "$GEN" | awk '$1 ~ /^libasan/ { print $3 }')
[ -z "$asan" ] || preload="$asan:$preload"
lf_start "$D/lanefwd.conf"
LD_PRELOAD=$preload memif_gen "$D" slowintr --rate $RATE --duration $DUR --drain 1
lf_stop
memif_gen_end "$D" slowintr

# The generator alone on a ring port: --search passes at the first trial.
timeout 60 "$GEN" -l 0 --no-pci --no-huge -m 512 --file-prefix "${LF_PREFIX}l" -- \
	--loopback --search --trial 0.3 --search-max 200k --drain 0.1 --flows 64 \
	--json "$D/loop.json" > "$D/loop.log" 2>&1 || {
	cat "$D/loop.log" >&2
	die "lanefwd-gen --loopback --search failed"
}
$PY - "$D/loop.json" <<'PYEOF' || die "loopback search checks failed"
import json
import sys

g = json.load(open(sys.argv[1]))
assert g["mode"] == "search" and "net_ring" in g["ports"], g["ports"]
t = g["trials"]
assert len(t) == 1 and t[0]["pass"] and t[0]["loss"] == 0, t
assert t[0]["target_pps"] == 200000 and t[0]["tx"] == 60000, t[0]
assert g["ndr_pps"] == t[0]["tx_pps"] and g["result"]["rx"] == 60000, g
assert g["result"]["flows_seen"] == 64
print("gen loopback search: NDR", g["ndr_pps"], "pps")
PYEOF
echo "PASS: gen_memif"
