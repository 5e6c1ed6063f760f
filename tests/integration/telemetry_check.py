#!/usr/bin/python3
"""Traffic and checker for telemetry.sh.

  telemetry_check.py gen DIR N   write DIR/in.pcap (N frames), DIR/empty.pcap
                                 and DIR/expect.json (what lanefwd must count)
  telemetry_check.py check DIR   check the telemetry replies DIR/tel_*.json,
                                 DIR/times.json and the final counter lines in
                                 DIR/lanefwd.log

The expected figures come from how the frames were built, and are checked
against the PMDs' own counters (/ethdev/stats) too.
"""

import json
import os
import random
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lftest  # noqa: E402
from lftest import CheckError, check  # noqa: E402

BUCKETS = [("0", 0, 0), ("1", 1, 1), ("2_3", 2, 3), ("4_7", 4, 7), ("8_15", 8, 15),
           ("16_31", 16, 31), ("32_63", 32, 63), ("64_127", 64, 127),
           ("128_255", 128, 255), ("256", 256, 256)]


def gen(d, n):
    from scapy.all import ARP, ICMP, IP, TCP, UDP, Ether, IPv6, Raw

    rnd = random.Random(7)
    frames = []
    exp = {"rx": n, "tx_port": {"p0": 0, "p1": 0}, "ipv4_cksum_sw": 0,
           "drops": {r: 0 for r in lftest.DROP_REASONS}, "punt_ctrl": 0}
    e = Ether(src="02:00:00:00:aa:01", dst="02:00:00:00:aa:00")
    for i in range(n):
        k = rnd.random()
        pay = Raw(bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 64))))
        if k < 0.45:                       # IPv4 to next hop 1 on p1
            frames.append(e / IP(src="192.0.2.1", dst="10.1.%d.%d" % (i >> 8 & 255, i & 255),
                                 ttl=rnd.randrange(2, 256)) / UDP() / pay)
            exp["tx_port"]["p1"] += 1
            exp["ipv4_cksum_sw"] += 1
        elif k < 0.65:                     # IPv4 to next hop 0 on p0
            frames.append(e / IP(src="192.0.2.1", dst="10.2.0.%d" % (i & 255)) / TCP() / pay)
            exp["tx_port"]["p0"] += 1
            exp["ipv4_cksum_sw"] += 1
        elif k < 0.80:                     # IPv6 to next hop 1 on p1
            frames.append(e / IPv6(src="2001:db8:ffff::1", dst="2001:db8:1::%x" % i) / UDP()
                          / pay)
            exp["tx_port"]["p1"] += 1
        elif k < 0.84:
            frames.append(e / IP(src="192.0.2.1", dst="10.1.0.1", ttl=1) / ICMP())
            exp["drops"]["ttl_expired"] += 1
            exp["ipv4_cksum_sw"] += 1
        elif k < 0.88:
            frames.append(e / IP(src="192.0.2.1", dst="10.1.0.1", chksum=0x1234) / UDP())
            exp["drops"]["bad_checksum"] += 1
            exp["ipv4_cksum_sw"] += 1
        elif k < 0.92:
            frames.append(e / IP(src="192.0.2.1", dst="198.51.100.%d" % (i & 255)) / UDP())
            exp["drops"]["no_route"] += 1
            exp["ipv4_cksum_sw"] += 1
        elif k < 0.94:
            frames.append(e / IPv6(src="2001:db8:ffff::1", dst="2001:db8:9::1") / UDP())
            exp["drops"]["no_route"] += 1
        elif k < 0.97:
            # ARP is the neighbour code's: handed to the control thread.
            frames.append(e / ARP(psrc="192.0.2.1", pdst="192.0.2.%d" % (i & 255)))
            exp["punt_ctrl"] += 1
        else:                              # IPv4 datagram longer than the frame
            frames.append(bytes(e / IP(src="192.0.2.1", dst="10.1.0.1") / UDP() / Raw(bytes(40)))
                          [:-8])
            exp["drops"]["l3_malformed"] += 1
    lftest.write_pcap(os.path.join(d, "in.pcap"), [bytes(f) for f in frames])
    lftest.write_pcap(os.path.join(d, "empty.pcap"), [])
    exp["tx"] = sum(exp["tx_port"].values())
    with open(os.path.join(d, "expect.json"), "w") as f:
        json.dump(exp, f)
    print("telemetry: %d frames, %d to forward" % (n, exp["tx"]))


def per_packet(cycles, pkts):
    return (cycles + pkts // 2) // pkts if pkts else 0


def check_worker(name, w, burst, n_rxq):
    check(w.get("lcore") == 1, f"{name}: lcore {w.get('lcore')}")
    check(w["rx_queues"] == "p0:0 p1:0", f"{name}: rx_queues {w['rx_queues']!r}")
    check(w["rx_packets"] > 0 and w["busy_cycles"] > 0, f"{name}: nothing counted: {w}")
    check(w["cycles_per_packet"] == per_packet(w["busy_cycles"], w["rx_packets"]),
          f"{name}: cycles_per_packet {w['cycles_per_packet']} but busy_cycles / rx_packets = "
          f"{w['busy_cycles']} / {w['rx_packets']}")
    check(w["cycles_per_packet"] > 0, f"{name}: cycles_per_packet is 0")
    tot = w["busy_cycles"] + w["idle_cycles"]
    check(w["busy_percent"] == w["busy_cycles"] * 100 // tot,
          f"{name}: busy_percent {w['busy_percent']}, busy {w['busy_cycles']} of {tot}")
    # rx mode (issue 16): a polling worker never sleeps and uses its core.
    check(w["rx_mode"] == "poll" and w["sleeps"] == 0 and w["sleep_cycles"] == 0 and
          w["wakeups_interrupt"] == 0 and w["wakeups_timeout"] == 0,
          f"{name}: a poll worker with rx mode figures {w['rx_mode']} {w['sleeps']}")
    check(w["spin_cycles"] == w["idle_cycles"] and w["cpu_percent"] == 100,
          f"{name}: spin_cycles {w['spin_cycles']}, cpu_percent {w['cpu_percent']}")
    hist = {b: w["burst_" + b] for b, _, _ in BUCKETS}
    check(len([k for k in w if k.startswith("burst_")]) == len(BUCKETS),
          f"{name}: histogram keys {[k for k in w if k.startswith('burst_')]}")
    for b, lo, _ in BUCKETS:
        check(lo <= burst or hist[b] == 0,
              f"{name}: {hist[b]} polls in bucket {b}, more than burst = {burst} packets")
    busy = sum(c for b, c in hist.items() if b != "0")
    # Only p0 has traffic, so each busy loop iteration has exactly one
    # non-empty rx_burst.
    check(busy == w["busy_polls"],
          f"{name}: non-empty polls in the histogram {busy}, busy_polls {w['busy_polls']}")
    lo = sum(hist[b] * l for b, l, _ in BUCKETS)
    hi = sum(hist[b] * min(h, burst) for b, _, h in BUCKETS)
    check(lo <= w["rx_packets"] <= hi,
          f"{name}: rx_packets {w['rx_packets']} cannot come from histogram {hist}")
    check(w["polls"] % n_rxq == 0, f"{name}: polls {w['polls']} is not a multiple of the "
          f"{n_rxq} queues polled per loop")
    check(w["busy_polls"] <= w["polls"] // n_rxq, f"{name}: more busy loops than loops")
    # Each burst ran fused, split or staged, once: a received one, or held
    # packets the control thread released (at least one per burst).
    runs = w["busy_polls"] + w["ctrl_rerun"]
    check(w["staged_bursts"] + w["split_bursts"] <= runs,
          f"{name}: staged_bursts {w['staged_bursts']} + split_bursts {w['split_bursts']} "
          f"over the {runs} bursts run")
    return sum(hist.values())


def check_all(d):
    cfg = lftest.load_config(os.path.join(d, "lanefwd.conf"))
    with open(os.path.join(d, "expect.json")) as f:
        exp = json.load(f)
    with open(os.path.join(d, "times.json")) as f:
        times = json.load(f)
    burst = int(cfg["pipeline"]["burst"])
    n_rxq = 2
    n = exp["rx"]
    check(len(lftest.tshark(os.path.join(d, "in.pcap"), ["frame.number"])) == n,
          "tshark counts a different number of input frames")
    tel = {name[4:-5]: lftest.load_tel(os.path.join(d, name))
           for name in os.listdir(d) if name.startswith("tel_") and name.endswith(".json")}

    # /lanefwd/stats: the traffic sent.
    s = tel["stats"]
    keys = {"rx_packets", "tx_packets", "drops", "busy_cycles", "idle_cycles",
            "cycles_per_packet"} | {"drop_" + r for r in lftest.DROP_REASONS} | set(lftest.EVENTS)
    check(set(s) == keys, f"/lanefwd/stats keys {sorted(s)}")
    want = {"rx_packets": n, "tx_packets": exp["tx"],
            "drops": n - exp["tx"] - exp["punt_ctrl"], "punt_ctrl": exp["punt_ctrl"],
            **{"drop_" + r: c for r, c in exp["drops"].items()}}
    got = {k: s[k] for k in want}
    check(got == want, f"/lanefwd/stats {got}, expected {want}")
    check(s["cycles_per_packet"] == per_packet(s["busy_cycles"], s["rx_packets"])
          and s["cycles_per_packet"] > 0,
          f"/lanefwd/stats cycles_per_packet {s['cycles_per_packet']}, busy_cycles "
          f"{s['busy_cycles']}, rx_packets {s['rx_packets']}")

    # /lanefwd/workers and /lanefwd/workers,1: read in the order A (workers,1),
    # stats, W (workers), B (workers,1), C (workers,1, after the bad
    # parameters). Traffic is over, so packet counters and busy_cycles are
    # fixed; idle cycles and polls only grow.
    check(set(tel["workers"]) == {"1"}, f"/lanefwd/workers: {list(tel['workers'])}")
    snaps = [("workers,1 (A)", tel["worker1_a"]), ("workers (W)", tel["workers"]["1"]),
             ("workers,1 (B)", tel["worker1_b"]), ("workers,1 (C)", tel["worker1_c"])]
    sums = []
    for name, w in snaps:
        sums.append(check_worker(name, w, burst, n_rxq))
        for k in list(want) + ["busy_cycles", "cycles_per_packet"]:
            if k == "drops":
                v = sum(w["drop_" + r] for r in lftest.DROP_REASONS)
            else:
                v = w[k]
            check(v == s[k], f"{name}: {k} {v} but /lanefwd/stats says {s[k]}")
    check(snaps[0][1]["ipv4_cksum_sw"] == snaps[-1][1]["ipv4_cksum_sw"], "ipv4_cksum_sw moved")
    seq = [snaps[0][1], s, snaps[1][1], snaps[2][1], snaps[3][1]]
    check(all(a["idle_cycles"] <= b["idle_cycles"] for a, b in zip(seq, seq[1:])),
          f"idle_cycles not monotonic over successive reads: {[x['idle_cycles'] for x in seq]}")
    polls = [w["polls"] for _, w in snaps]
    check(polls == sorted(polls), f"polls not monotonic: {polls}")
    # Each snapshot reads polls before the histogram and the worker bumps the
    # histogram before polls, so polls <= sum of buckets <= next read's polls
    # + the queues of one loop.
    for i in range(len(snaps) - 1):
        check(polls[i] <= sums[i] <= polls[i + 1] + n_rxq,
              f"{snaps[i][0]}: histogram sums to {sums[i]}, polls {polls[i]} "
              f"(next read {polls[i + 1]})")
    check(polls[-1] <= sums[-1], f"{snaps[-1][0]}: histogram {sums[-1]} < polls {polls[-1]}")

    # /lanefwd/info: what the configuration says.
    info = tel["info"]
    with open(os.path.join(os.environ["LF_SRCDIR"], "meson.build")) as f:
        version = re.search(r"version:\s*'([^']+)'", f.read())[1]
    # prefetch_distance = auto is half the burst; the pcap driver copies each
    # frame into its mbuf, so its queues get no packet data prefetch.
    pf_auto = cfg["pipeline"]["prefetch_distance"] == "auto"
    pf = burst // 2 if pf_auto else int(cfg["pipeline"]["prefetch_distance"])
    fib = cfg["fib_lookup"]
    wanted = {"version": version, "config": os.path.realpath(os.path.join(d, "lanefwd.conf")),
              "workers": 1, "ports": 2, "burst": burst, "prefetch_distance": pf,
              "prefetch_mode": "auto" if pf_auto else "fixed",
              "tx_drain_us": int(cfg["pipeline"]["tx_drain_us"]),
              # The FIB also holds the router's own routes (docs/control-plane.md):
              # 7 IPv4 and 5 IPv6 prefixes, and each port's link-local address.
              "ipv4_routes": len(cfg["routes4"]) + lftest.OWN_ROUTES4,
              "ipv6_routes": len(cfg["routes6"]) + lftest.OWN_ROUTES6 + 2,
              "nexthops": len(cfg["nexthops"]), "acl_rules": 0, "acl6_rules": 0,
              "acl_default": "none", "fib_lookup": lftest.expected_fib_lookup(fib),
              "fib_lookup_mode": fib, "fused_stages": lftest.expected_fused_stages()}
    got = {k: info.get(k) for k in wanted}
    check(got == wanted, f"/lanefwd/info {got}, expected {wanted}")
    elapsed = times["info"] - times["start"]
    check(0 <= info["uptime_s"] <= elapsed + 1,
          f"uptime_s {info['uptime_s']}, but lanefwd started {elapsed:.1f} s before")
    hz = info["tsc_hz"]
    check(hz > 0, "tsc_hz is 0")
    b = snaps[2][1]
    ran = (b["busy_cycles"] + b["idle_cycles"]) / hz
    check(ran <= times["b_end"] - times["start"] + 0.5,
          f"busy + idle cycles of read B make {ran:.2f} s, lanefwd ran "
          f"{times['b_end'] - times['start']:.2f} s")
    check(ran >= 0.8 * (times["b_start"] - times["running"]) - 0.2,
          f"busy + idle cycles of read B make {ran:.2f} s, but the worker ran at least "
          f"{times['b_start'] - times['running']:.2f} s")
    for idx, port in enumerate(cfg["ports"]):
        p = info.get("port_" + port)
        check(p is not None, f"/lanefwd/info lacks port_{port}")
        ed = tel["ethdev_info_%d" % p["port_id"]]
        want_p = {"device": "net_pcap%d" % idx, "driver": "net_pcap", "rx_queues": 1,
                  "tx_queues": 1, "mac": ed["mac_addr"].lower(),
                  "rx_prefetch": 0 if pf_auto else pf}
        got_p = {k: (p[k].lower() if k == "mac" else p[k]) for k in want_p}
        check(got_p == want_p, f"/lanefwd/info port_{port} {got_p}, expected {want_p}")
        check(ed["name"] == want_p["device"], f"ethdev {p['port_id']} is {ed['name']}")
        es = tel["ethdev_stats_%d" % p["port_id"]]
        check(es["ipackets"] == (n if idx == 0 else 0),
              f"port {port}: ethdev ipackets {es['ipackets']}")
        check(es["opackets"] == exp["tx_port"][port],
              f"port {port}: ethdev opackets {es['opackets']}, expected {exp['tx_port'][port]}")

    # The pcap PMD has no checksum offload: every IPv4 header long enough to
    # be checked is checked in software (only p0 receives).
    check(info["port_p0"]["ipv4_cksum"] == "software",
          f"port_p0 ipv4_cksum {info['port_p0']['ipv4_cksum']}: net_pcap has no offload")
    sw = snaps[-1][1]["ipv4_cksum_sw"]
    check(sw == exp["ipv4_cksum_sw"], f"ipv4_cksum_sw {sw}, expected {exp['ipv4_cksum_sw']}")

    # A bad parameter is an error reply, and lanefwd still answers after it.
    for name in ("bad_99", "bad_abc", "bad_neg", "bad_1x"):
        r = tel[name]
        check(isinstance(r, dict) and list(r) == ["error"] and isinstance(r["error"], str),
              f"/lanefwd/workers with a bad parameter ({name}) returned {r}")
    after = tel["stats_after"]
    check({k: after[k] for k in want} == want, f"/lanefwd/stats after the bad parameters: "
          f"{after}")

    # The final lines printed on SIGINT agree.
    total, workers = lftest.parse_final(os.path.join(d, "lanefwd.log"))
    # ARP frames went to the neighbour thread (punt_ctrl): not dropped.
    want_t = {"rx": n, "tx": exp["tx"], "drops": n - exp["tx"] - exp["punt_ctrl"],
              **exp["drops"]}
    check(total == want_t, f"final total line {total}, expected {want_t}")
    ev = lftest.parse_final_events(os.path.join(d, "lanefwd.log"))
    check(ev["punt_ctrl"] == exp["punt_ctrl"],
          f"final events line: punt_ctrl {ev['punt_ctrl']}, expected {exp['punt_ctrl']}")
    check(set(workers) == {1}, f"final worker lines: {workers}")
    fw = workers[1]
    check(fw["rx"] == n and fw["tx"] == exp["tx"] and fw["busy_cycles"] == s["busy_cycles"],
          f"final worker line {fw}, telemetry said {s}")
    check(abs(fw["cycles_per_packet"] - s["busy_cycles"] / n) <= 0.05 + 1e-9,
          f"final cycles/packet {fw['cycles_per_packet']}, busy/rx = {s['busy_cycles'] / n}")
    check(fw["idle_cycles"] >= snaps[-1][1]["idle_cycles"], "final idle_cycles went back")
    print("telemetry: rx %d tx %d drops %d, cycles/packet %d, %d polls: all consistent" %
          (n, exp["tx"], n - exp["tx"], s["cycles_per_packet"], polls[-1]))


def main():
    try:
        if len(sys.argv) == 4 and sys.argv[1] == "gen":
            gen(sys.argv[2], int(sys.argv[3]))
        elif len(sys.argv) == 3 and sys.argv[1] == "check":
            check_all(sys.argv[2])
        else:
            raise SystemExit(__doc__)
    except CheckError as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
