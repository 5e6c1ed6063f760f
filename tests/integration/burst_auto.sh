# burst_auto: [pipeline] burst = auto through the whole pipeline, lanefwd-gen
# driving lanefwd over two memif ports (memif_lib.sh).
#
# An unpaced flood: lanefwd received exactly what the generator sent, sent
# or dropped every packet of it, and the generator received what lanefwd
# sent; /lanefwd/burst shows the controller ran (polls counted, windows
# judged, the burst within [burst_min, burst_max]) and that the backlog
# pulled the burst above burst_min (steps up, time spent at 8 or more).
# Then a paced run of 8-packet bursts: every packet forwarded, and the
# burst stays small (no poll asks for more than the load brings). Counts
# and generous bounds only: the figures belong to bench/.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/memif_lib.sh"

D=$LF_TMP
# A target that a loaded 2-vCPU VM holds at any burst, so that what is
# checked is the backlog's pull, not the machine's hiccups.
memif_conf "$D/lanefwd.conf" "burst = auto
burst_min = 4
burst_max = 256
latency_target_us = 2000
latency_percentile = 99.99"

# burst_run NAME flood|paced OPTIONS...: one generator run, the telemetry
# before and after it in $D/NAME.*.json, then the checks.
burst_run() {
	local name=$1 mode=$2
	shift 2
	lf_start "$D/lanefwd.conf"
	grep -q "burst auto up to 256" "$LF_TMP/lanefwd.log" ||
		die "$name: the worker did not start with burst = auto"
	lf_tel_save /lanefwd/stats "$D/$name.stats0.json"
	memif_gen "$D" "$name" "$@"
	lf_wait_settled
	# The controller's counts are folded in at each window's end: an idle
	# window ends within 100 ms.
	sleep 0.5
	lf_tel_save /lanefwd/stats "$D/$name.stats1.json"
	lf_tel_save /lanefwd/burst "$D/$name.burst.json"
	lf_tel_save /lanefwd/workers "$D/$name.workers.json"
	lf_stop
	memif_gen_end "$D" "$name"
	$PY - "$D" "$name" "$mode" <<'PYEOF' || { cat "$D/$name.gen.log" >&2; die "burst $name: checks failed"; }
import json
import sys

d, name, mode = sys.argv[1:]


def tel(suffix):
    return next(iter(json.load(open(f"{d}/{name}.{suffix}.json")).values()))


r = json.load(open(f"{d}/{name}.gen.json"))["result"]
s0, s1 = tel("stats0"), tel("stats1")
b = tel("burst")["1"]
w = tel("workers")["1"]
d_rx = s1["rx_packets"] - s0["rx_packets"]
d_tx = s1["tx_packets"] - s0["tx_packets"]
d_drops = s1["drops"] - s0["drops"]
# Counts balance: memif does not lose what the generator sent (a full ring
# refuses it), lanefwd sends or drops each packet, the generator gets what
# lanefwd sent (its warm-up packets included: an unpaced run has some).
gen_tx = r["tx"] + r["tx_warmup"]
assert r["tx"] > 0 and d_rx == gen_tx, ("lanefwd rx", d_rx, "gen tx", gen_tx, r)
assert d_rx == d_tx + d_drops, (d_rx, d_tx, d_drops)
assert r["rx_all"] == d_tx, ("gen rx", r["rx_all"], "lanefwd tx", d_tx)
# The controller ran, within its bounds.
assert b["mode"] == "auto", b
assert (b["burst_min"], b["burst_max"]) == (4, 256), b
assert 4 <= b["burst"] <= 256 and 4 <= w["burst"] <= 256, (b["burst"], w["burst"])
assert b["busy_polls"] > 0 and b["full_polls"] <= b["busy_polls"], b
assert b["windows"] >= 1 and b["windows_missed"] <= b["windows"], b
judged = b["target_hits"] + b["target_misses"]
assert 0 < judged <= d_tx, (judged, d_tx)
big = sum(v for k, v in b.items() if k.startswith("us_at_") and k not in
          ("us_at_1", "us_at_2_3", "us_at_4_7"))
if mode == "flood":
    assert d_tx > 0 and r["tx"] >= 100000, r["tx"]
    # A backlog pulled the burst up: full polls, steps up, time at >= 8.
    assert b["full_polls"] > 0 and b["grown"] >= 1 and big > 0, b
else:
    assert r["loss"] == 0 and d_drops == 0 and r["rx"] == r["tx"], r
    # 8-packet bursts: the burst stays near them.
    assert b["burst"] <= 64, b
print(f"burst {name}: gen tx {r['tx']} rx {r['rx_all']}, lanefwd drops {d_drops}; burst now "
      f"{b['burst']}, grown {b['grown']} shrunk {b['shrunk']} decayed {b['decayed']}, "
      f"full polls {b['full_polls']}/{b['busy_polls']}, windows {b['windows']}, "
      f"hits {b['target_hits']} misses {b['target_misses']}, us at >= 8: {big}")
PYEOF
}

burst_run flood flood --rate max --duration 2 --drain 1 --flows 256 --size 64
burst_run paced paced --rate 20000 --burst 8 --duration 1 --drain 1 --flows 64 --size 64
echo "PASS: burst_auto"
