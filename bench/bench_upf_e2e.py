#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lanefwd as a UPF end to end (issue 14): sessions established over PFCP by
a real SMF-side script, then GTP-U uplink and downlink through the worker,
against plain L3 forwarding by the same lanefwd on the same harness. Run it
through bench/bench-upf-e2e.sh (dependencies, hugepages, build).

Harness: bench_latency.py's memif one (its process handling, MLRsearch and
stall classification are reused as they are):

    lanefwd-gen (CPU 0)                       lanefwd worker (CPU 1)
    memif client 0  --N3: G-PDUs to 192.168.3.1-->  port a (N3, access)
    memif client 1  <--N6: the user packets-------  port b (N6, core)

and the other way round for the downlink. lanefwd's [upf] section makes
port a's 192.168.3.1 the N3 address and 10.32.0.0/11 the UE pool; its
control threads are moved to the worker's CPU, so the PFCP agent and the
rest of the forwarder's cost land on its own core.

Configurations: `l3` (64-byte UDP frames from port a to 10.1.0.0/24 on port
b, routed by the same UPF-configured lanefwd: the peer), and `ul` / `dl` at
each --sessions count and --pdrs per direction. For every start of a UPF
configuration bench/upf_sessions.py establishes the sessions over PFCP
(127.0.0.1) before any traffic, and its establishments per second are kept.

  1. each configuration: --searches MLRsearches (bench/mlrsearch.py, NDR
     and PDR), interleaved across configurations;
  2. each configuration at --loads percent of its own median NDR, --reps
     rounds interleaved, a fresh forwarder per run: the generator's
     end-to-end percentiles, lanefwd's residence histogram and the worker's
     counters over a --window s window: cycles per packet is busy TSC
     cycles over packets received in that window.

The UPF's cost is reported as its cycles/packet over plain L3's at the same
load percentage (issue 14's target: at most 1.5x at 100K sessions with 1
PDR, 2x with 4). Exit status 1 when a run fails.
"""
import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import bench_latency as bl  # noqa: E402  (the memif suite: processes, MLRsearch runs)
from bench import COMMANDS, Telemetry, log  # noqa: E402

ROOT = bench.ROOT
GEN_CPU, FWD_CPU = bl.GEN_CPU, bl.FWD_CPU
PORT_A_MAC = bl.PORT_A_MAC          # N3
PORT_B_MAC = "02:00:00:00:bb:0b"    # N6
N3_IP, UE_IP, REMOTE_IP = "192.168.3.1", "10.32.0.1", "10.1.0.1"
DIRS = {"l3": "plain L3", "ul": "uplink", "dl": "downlink"}
TARGETS = {1: 1.5, 4: 2.0}          # issue 14: UPF / plain L3 cycles per packet
FULL_FILL = 28                      # packets per busy poll (of 32) for "full bursts"


def count(s):
    s = s.strip().upper()
    mult = {"K": 1000, "M": 1000000}.get(s[-1:], 1)
    return int(float(s.rstrip("KM")) * mult)


def short(n):
    return "%dM" % (n // 1000000) if n >= 1000000 and n % 1000000 == 0 else \
        "%dK" % (n // 1000) if n >= 1000 and n % 1000 == 0 else str(n)


class UpfBench(bl.LatBench):
    def __init__(self, a):
        super().__init__(a)
        self.tag = "lfupf%d" % os.getpid()
        self.pfcp_port = 18805 + os.getpid() % 1000
        self.estab = {}    # fwd key -> [establishments/s per start]
        self.estab_cpu = {}  # fwd key -> [upf_sessions.py's CPU share per start]

    # ---------------------------------------------------------------- setup
    def setup(self):
        a = self.a
        os.sched_setaffinity(0, {GEN_CPU})
        for name in ("lanefwd", "lanefwd-gen"):
            shutil.copy2(getattr(a, name.replace("-", "_")), os.path.join(self.tmp, name))
            COMMANDS.append("cp build/%s %s/%s   # snapshot of the binary" %
                            (name, self.tmp, name))
        self.lanefwd = os.path.join(self.tmp, "lanefwd")
        self.gen = os.path.join(self.tmp, "lanefwd-gen")
        self.lf_version = bench.out("%s -V" % shlex.quote(self.lanefwd))
        self.git_head = bench.out("git -C %s rev-parse --short HEAD" % shlex.quote(ROOT))
        self.git_dirty = bool(bench.out("git -C %s status --porcelain -- src include meson.build"
                                        % shlex.quote(ROOT)))
        with open(os.path.join(self.tmp, "routes4.txt"), "w") as f:
            # The remote side of the user packets on N6, the gNBs on N3.
            f.write("10.1.0.0/16 2\n192.168.3.0/24 1\n")
        self.fwds = []
        f = bl.Fwd("l3", "plain L3", "lanefwd", 32)
        f.dir, f.sessions, f.pdrs = "l3", 0, 0
        self.fwds.append(f)
        for n in a.sessions:
            for p in a.pdrs:
                for d in ("ul", "dl"):
                    f = bl.Fwd("%s-%s-%d" % (d, short(n), p), "%s, %s sessions, %d PDR%s" % (
                        DIRS[d], short(n), p, "" if p == 1 else "s"), "lanefwd", 32)
                    f.dir, f.sessions, f.pdrs = d, n, p
                    self.fwds.append(f)

    def lanefwd_conf(self, f, prefix, socks):
        # The plain-L3 peer is the same UPF (sized for the largest count):
        # only its traffic differs.
        n = f.sessions or max(self.a.sessions)
        return """\
# lanefwd UPF end-to-end benchmark configuration, generated by bench/bench_upf_e2e.py
[eal]
main_lcore = {main}
file_prefix = {prefix}
huge = yes

[pipeline]
burst = 32
prefetch_distance = 4
latency = yes

[routes]
ipv4 = {r4}
ipv4_max_routes = 1024
ipv4_tbl8 = 256
ipv6_max_routes = 1024
ipv6_tbl8 = 256

[port a]
vdev = net_memif0,role=server,socket={a},socket-abstract=no,mac={amac}

[port b]
vdev = net_memif1,role=server,socket={b},socket-abstract=no,mac={bmac}

[worker {cpu}]
rx = a:0 b:0

[nexthop 1]
port = a
mac = 02:00:00:00:0a:01

[nexthop 2]
port = b
mac = 02:00:00:00:0b:01

[upf]
n3_ipv4 = {n3}
pfcp_addr = 127.0.0.1
pfcp_port = {pfcp}
max_sessions = {n}

[network_instance internet]
ue_pool = 10.32.0.0/11
""".format(main=GEN_CPU, prefix=prefix, r4=os.path.join(self.tmp, "routes4.txt"),
           a=socks[0], b=socks[1], amac=PORT_A_MAC, bmac=PORT_B_MAC, cpu=FWD_CPU, n3=N3_IP,
           pfcp=self.pfcp_port, n=n)

    def start_fwd(self, f):
        p, prefix, socks, logpath, tel = super().start_fwd(f)
        if f.dir == "l3":
            return p, prefix, socks, logpath, tel
        js = os.path.join(self.tmp, "%s.sess.json" % prefix)
        argv = [sys.executable, os.path.join(ROOT, "bench", "upf_sessions.py"),
                "--port", str(self.pfcp_port), "--sessions", str(f.sessions),
                "--pdrs", str(f.pdrs), "--ue-ip", UE_IP, "--n3-ip", N3_IP, "--quiet",
                "--json", js]
        if not any("upf_sessions.py" in c for c in COMMANDS):
            COMMANDS.append(bl.quote(argv[:-2]).replace(str(f.sessions), "N", 1) +
                            "   # before each UPF run: the sessions over PFCP")
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=600)
        if r.returncode != 0:
            self.stop()
            raise bl.Fail("%s: upf_sessions.py exited %d\n%s" % (f.label, r.returncode,
                                                                 r.stdout[-2000:]))
        with open(js) as fh:
            ph = json.load(fh)["phases"][0]
        self.estab.setdefault(f.key, []).append(ph["rate_per_s"])
        # Near 1: the Python SMF, not lanefwd's agent, set the pace.
        self.estab_cpu.setdefault(f.key, []).append(ph["client_cpu_share"])
        up, _ = tel.query("/lanefwd/upf")
        if (up or {}).get("sessions") != f.sessions:
            self.stop()
            raise bl.Fail("%s: /lanefwd/upf has %s sessions after the PFCP script, not %d" %
                          (f.label, (up or {}).get("sessions"), f.sessions))
        return p, prefix, socks, logpath, tel

    def gen_argv(self, prefix, socks, opts, rsize=12):
        f = self.cur
        common = [self.gen, "-l", str(GEN_CPU), "--no-pci", "--file-prefix", prefix,
                  "--vdev", "net_memif0,role=client,socket=%s,socket-abstract=no,rsize=%d" % (
                      socks[0], rsize),
                  "--vdev", "net_memif1,role=client,socket=%s,socket-abstract=no,rsize=%d" % (
                      socks[1], rsize), "--"]
        if f.dir == "l3":
            traffic = ["--dst-mac", PORT_A_MAC, "--dst-ip", REMOTE_IP, "--dst-ips", "254",
                       "--flows", str(self.a.flows)]
        elif f.dir == "ul":
            # One flow per session (its UE to REMOTE_IP), in G-PDUs with a
            # PDU Session Container, QFI 9.
            traffic = ["--dst-mac", PORT_A_MAC, "--gtpu-ul", str(f.sessions), "--ue-ip", UE_IP,
                       "--n3-ip", N3_IP, "--dst-ip", REMOTE_IP]
        else:
            traffic = ["--tx-port", "1", "--rx-port", "0", "--dst-mac", PORT_B_MAC,
                       "--gtpu-dl", str(f.sessions), "--ue-ip", UE_IP, "--n3-ip", N3_IP]
        return common + traffic + ["--size", "64", "--quiet"] + opts

    # ----------------------------------------------------------------- runs
    def run_mlr(self, f, rep):
        self.cur = f
        return super().run_mlr(f, rep)

    def one(self, f, what, *args):
        self.cur = f
        return super().one(f, what, *args)

    def run_all(self):
        a = self.a
        for rep in range(a.searches):
            for f in self.search_order(rep):
                if f.error:
                    continue
                log("== search %d of %d: %s" % (rep + 1, a.searches, f.label))
                try:
                    with bl.BenchLock(a.lock):
                        self.run_mlr(f, rep + 1)
                except bl.Fail as e:
                    f.error = str(e)
                    self.failures.append("%s search %d: %s" % (f.label, rep + 1, e))
                    log("  FAILED: %s" % e)
        for f in self.fwds:
            st = self.stat(f, "NDR")
            f.loads = [(pct, st[0] * pct / 100.0) for pct in a.loads] if st and st[0] else []
            if not f.loads and not f.error:
                f.error = "no complete search"
                self.failures.append("%s: no complete search" % f.label)
        for rep in range(a.reps):
            for f in self.search_order(rep):
                if f.error:
                    continue
                log("== round %d of %d: %s" % (rep + 1, a.reps, f.label))
                for pct, pps in f.loads:
                    try:
                        with bl.BenchLock(a.lock):
                            r = self.one(f, "load", pps, pct, rep + 1)
                    except bl.Fail as e:
                        f.error = str(e)
                        self.failures.append("%s at %d%%: %s" % (f.label, pct, e))
                        log("  FAILED: %s" % e)
                        break
                    f.runs.append(r)
                    log("  %d%% (%.0f kpps): rx %.0f kpps, loss %d; %s cycles/packet, %.1f "
                        "packets/poll; e2e p50 %s p99 %s ns; residence p50 %s p99 %s ns" % (
                            pct, pps / 1e3, r["rx_pps"] / 1e3, r["loss"],
                            self.fmt(self.cpp(r)), r.get("pkts_per_poll", 0),
                            r["e2e"]["p50_ns"], r["e2e"]["p99_ns"],
                            r.get("res", {}).get("p50_ns"), r.get("res", {}).get("p99_ns")))
        self.loads = [(p, None) for p in a.loads]

    # -------------------------------------------------------------- results
    @staticmethod
    def cpp(r):
        w = r.get("worker") or {}
        return w["busy_cycles"] / w["rx_packets"] if w.get("rx_packets") else None

    @staticmethod
    def fmt(x, f="%.0f"):
        return "-" if x is None else f % x

    def cell(self, key, pct, get):
        f = self.fwd(key)
        xs = [get(r) for r in (f.runs if f else []) if r["pct"] == pct]
        xs = [x for x in xs if x is not None]
        return statistics.median(xs) if xs else None

    def smf_cpu(self, f):
        c = self.estab_cpu.get(f.key)
        return ", SMF script at %.0f%% of a CPU" % (statistics.median(c) * 100) if c else ""

    def ndr(self, f):
        st = self.stat(f, "NDR")
        return st[0] if st else None

    def ratio(self, f, pct):
        u, l3 = self.cell(f.key, pct, self.cpp), self.cell("l3", pct, self.cpp)
        return u / l3 if u and l3 else None

    @staticmethod
    def full(f):
        """(median cycles/packet, median packets/poll, trials) over f's valid
        search trials whose bursts were at least FULL_FILL full: the worker
        saturated (the generator unpaced or past the NDR), so every packet
        pays its share of a full burst's fixed costs, as in upf-bench.md's
        bursts of 32: the one cost comparable across configurations whose
        NDRs differ."""
        cs, fills = [], []
        for s in f.searches:
            for t in s.get("trials", []):
                c = t.get("fwd_counters") or {}
                if not t.get("valid") or not c.get("rx_packets") or not c.get("busy_polls"):
                    continue
                fill = c["rx_packets"] / c["busy_polls"]
                if fill >= FULL_FILL:
                    cs.append(c["busy_cycles"] / c["rx_packets"])
                    fills.append(fill)
        if not cs:
            return None, None, 0
        return statistics.median(cs), statistics.median(fills), len(cs)

    def full_ratio(self, f):
        u, l3 = self.full(f)[0], self.full(self.fwd("l3"))[0]
        return u / l3 if u and l3 else None

    def targets(self):
        """[(text, met)]: issue 14's cycles/packet ratios with full bursts
        (the worker saturated), for each direction at the largest session
        count of 100K or fewer; the ratio at the highest load shown too."""
        res = []
        pct = max(self.a.loads)
        for f in self.fwds:
            if f.dir == "l3" or f.pdrs not in TARGETS or f.sessions != self.target_sessions():
                continue
            r = self.full_ratio(f)
            if r is None:
                continue
            t = TARGETS[f.pdrs]
            at = self.ratio(f, pct)
            res.append(("%s, full bursts: %.2f× plain L3's cycles/packet (%s against %s; "
                        "target ≤ %g×%s; at %d%% of its NDR %s)" % (
                            f.label, r, self.fmt(self.full(f)[0]),
                            self.fmt(self.full(self.fwd("l3"))[0]), t,
                            "" if r <= t else ", missed by %.0f%%" % ((r / t - 1) * 100), pct,
                            self.fmt(at, "%.2f×")), r <= t))
        return res

    def target_sessions(self):
        c = [n for n in self.a.sessions if n <= 100000]
        return max(c) if c else min(self.a.sessions)

    def results_json(self):
        return {"date": self.date, "command": self.command, "elapsed_s": self.elapsed,
                "machine": self.machine(), "git": self.git_head, "dirty": self.git_dirty,
                "lanefwd": self.lf_version, "tsc_hz": self.tsc_hz,
                "settings": {k: getattr(self.a, k) for k in
                             ("sessions", "pdrs", "loads", "window", "warmup", "reps",
                              "searches", "flows", "ndr_loss", "pdr_loss")},
                "commands": COMMANDS, "failures": self.failures,
                "configs": [{"key": f.key, "label": f.label, "dir": f.dir,
                             "sessions": f.sessions, "pdrs": f.pdrs, "conf": f.conf,
                             "loads": getattr(f, "loads", []), "searches": f.searches,
                             "runs": f.runs, "error": f.error, "crashes": f.crashes,
                             "establish_per_s": self.estab.get(f.key, []),
                             "establish_client_cpu": self.estab_cpu.get(f.key, [])}
                            for f in self.fwds]}

    @classmethod
    def from_json(cls, path, a):
        with open(path) as fh:
            r = json.load(fh)
        b = cls.__new__(cls)
        b.a = a
        for k, v in r["settings"].items():
            setattr(a, k, v)
        b.date, b.command, b.elapsed = r["date"], r["command"], r["elapsed_s"]
        b.git_head, b.git_dirty, b.lf_version = r["git"], r["dirty"], r["lanefwd"]
        b.tsc_hz, b.failures = r["tsc_hz"], r["failures"]
        b.machine_rows = [tuple(x) for x in r["machine"]]
        b.fwds, b.estab, b.estab_cpu = [], {}, {}
        for c in r["configs"]:
            f = bl.Fwd(c["key"], c["label"], "lanefwd", 32)
            f.dir, f.sessions, f.pdrs, f.conf = c["dir"], c["sessions"], c["pdrs"], c["conf"]
            f.loads, f.searches, f.runs, f.error = c["loads"], c["searches"], c["runs"], \
                c["error"]
            f.crashes = c.get("crashes", [])
            b.estab[f.key] = c["establish_per_s"]
            b.estab_cpu[f.key] = c.get("establish_client_cpu", [])
            b.fwds.append(f)
        COMMANDS[:] = r["commands"]
        text = "\n".join(COMMANDS)
        m = re.search(r"/tmp/lanefwd-lat\.\w+", text)
        b.tmp = m.group(0) if m else "/nonexistent"
        m = re.search(r"lfupf\d+", text)
        b.tag = m.group(0) if m else "lfupf-none"
        return b

    def machine(self):
        rows = getattr(self, "machine_rows", None)
        return rows if rows is not None else super().machine()

    def plots(self, outdir):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        pcts = list(self.a.loads)
        upf = [f for f in self.fwds if f.dir != "l3"]
        l3 = self.fwd("l3")
        fig, axs = plt.subplots(1, 3, figsize=(15, 4.8))
        # 1: NDR per configuration, the peer first.
        ax = axs[0]
        fs = [l3] + upf
        xs = range(len(fs))
        ys = [(self.ndr(f) or 0) / 1e6 for f in fs]
        cols = ["tab:gray" if f.dir == "l3" else "tab:blue" if f.dir == "ul" else "tab:orange"
                for f in fs]
        ax.bar(xs, ys, color=cols)
        for f, x in zip(fs, xs):
            v = [s["results"]["NDR"]["load"] / 1e6 for s in self.complete(f)]
            ax.plot([x] * len(v), v, "k.", ms=4)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f.key for f in fs], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("NDR, Mpps (bar: median; dots: searches)")
        ax.set_title("no-drop rate, 64-byte user packets")
        ax.grid(True, axis="y", alpha=0.3)
        # 2: cycles/packet ratio to plain L3 at each load.
        ax = axs[1]
        series = [("full bursts (worker saturated)", self.full_ratio)] + [
            ("at %d%% of each NDR" % pct, lambda f, pct=pct: self.ratio(f, pct)) for pct in pcts]
        w = 0.8 / len(series)
        for i, (label, get) in enumerate(series):
            ax.bar([x + i * w for x in range(len(upf))], [get(f) or 0 for f in upf], w,
                   label=label)
        for p, t in TARGETS.items():
            ax.axhline(t, ls=":", lw=1, color="red" if p == 1 else "darkred")
            ax.text(len(upf) - 0.5, t, "target %g× (%d PDR%s)" % (t, p, "" if p == 1 else "s"),
                    fontsize=7, va="bottom", ha="right")
        ax.set_xticks([x + w * (len(series) - 1) / 2 for x in range(len(upf))])
        ax.set_xticklabels([f.key for f in upf], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("cycles/packet ÷ plain L3's at the same load %")
        ax.set_title("worker cycles/packet against plain L3's")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
        # 3: end-to-end latency at each load.
        ax = axs[2]
        for i, pct in enumerate(pcts):
            for k, m in (("p50_ns", "o"), ("p99_ns", "^")):
                ax.plot(range(len(fs)), [(self.cell(f.key, pct, lambda r, k=k: r["e2e"][k])
                                          or float("nan")) / 1e3 for f in fs],
                        m + ("-" if i else "--"), label="%s at %d%%" % (k[:-3], pct), ms=4)
        ax.set_yscale("log")
        ax.set_xticks(list(range(len(fs))))
        ax.set_xticklabels([f.key for f in fs], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("end-to-end latency, µs (log)")
        ax.set_title("latency at 50% and 90% of each NDR")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.suptitle("lanefwd as a UPF over memif, one worker core (key: dir-sessions-PDRs)")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "ndr-cycles-latency.png"), dpi=110)
        plt.close(fig)
        return ["ndr-cycles-latency.png"]

    def write_doc(self, path, files):
        a = self.a
        L = []
        L.append("# UPF end to end: PFCP sessions, then GTP-U through a worker, against plain "
                 "L3\n")
        L.append("Generated by `%s` on %s (%.0f min), %s (git %s%s). Regenerate the report: "
                 "`/usr/bin/python3 bench/bench_upf_e2e.py --report docs/upf-e2e/results.json`."
                 " The isolated per-stage cost (no ports, no generator) is in "
                 "[upf-bench.md](upf-bench.md); the UPF itself in [upf.md](upf.md).\n" % (
                     self.command, self.date, self.elapsed / 60, self.lf_version, self.git_head,
                     ", uncommitted changes" if self.git_dirty else ""))
        L.append("## Harness\n")
        L.append("The memif harness of [benchmarks-latency.md](benchmarks-latency.md): lanefwd's "
                 "one worker (CPU %d) polls two memif ports, a (N3) and b (N6), as the server; "
                 "lanefwd-gen (CPU %d) is the client of both. lanefwd's control threads (the "
                 "PFCP agent among them) are moved to the worker's CPU. Before any traffic, "
                 "`bench/upf_sessions.py` establishes the sessions over PFCP on 127.0.0.1, "
                 "every time a UPF configuration starts (a fresh forwarder per search and per "
                 "run), and the script checks `/lanefwd/upf` holds them all.\n" % (
                     FWD_CPU, GEN_CPU))
        L.append("* **plain L3** (`l3`): 64-byte UDP frames into port a to 10.1.0.1-254, %d "
                 "flows, routed out of port b by the same UPF-configured lanefwd: the peer.\n"
                 "* **uplink** (`ul-N-P`): `lanefwd-gen --gtpu-ul N`: G-PDUs from the gNB "
                 "192.168.3.2 to the N3 address 192.168.3.1 with a PDU Session Container (QFI "
                 "9), one flow per session (TEID s + 1, UE 10.32.0.1 + s, to 10.1.0.1): 108-byte "
                 "frames in, the 64-byte user frame out of port b.\n"
                 "* **downlink** (`dl-N-P`): `lanefwd-gen --gtpu-dl N`: 64-byte frames into "
                 "port b to the N UEs, out of port a as 108-byte G-PDUs to the session's "
                 "gNB F-TEID with the QFI in a PDU Session Container.\n"
                 "* **P PDRs** per direction: with 4, three more of higher precedence whose SDF "
                 "filter the traffic fails (bench/upf_sessions.py): every packet is matched "
                 "against all of them and taken by the last, the worst case.\n" % a.flows)
        L.append("Each configuration: %d MLRsearch%s (NDR: no loss; PDR: %g%%), interleaved; "
                 "then %d round%s at %s of its own median NDR, a fresh forwarder per run, a "
                 "%g s window after %g s of warm-up. *Cycles/packet* is the worker's busy TSC "
                 "cycles (iterations that received packets) over the packets it received in "
                 "that window, so it holds the per-burst costs at that load's burst fill "
                 "(*packets/poll*). Each cell is the median over the rounds.\n" % (
                     a.searches, "" if a.searches == 1 else "es", a.pdr_loss, a.reps,
                     "" if a.reps == 1 else "s", " and ".join("%d%%" % p for p in a.loads),
                     a.window, a.warmup))
        L.append("## Targets (issue 14)\n")
        for text, met in self.targets():
            L.append("- %s: **%s**" % (text, "met" if met else "missed"))
        L.append("")
        if files:
            L.append("![NDR, cycles/packet ratio and latency](upf-e2e/%s)\n" % files[0])
        L.append("## Throughput and session set-up\n")
        L.append("| configuration | NDR Mpps (median) | NDR per search | PDR Mpps | "
                 "cycles/packet, full bursts | ÷ plain L3 | packets/poll (trials) | PFCP "
                 "establishments/s (median, starts) |")
        L.append("|" + " --- |" * 8)
        for f in self.fwds:
            c = self.complete(f)
            pdr = self.stat(f, "PDR")
            est = self.estab.get(f.key, [])
            fc, ff, fn = self.full(f)
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                f.label, self.fmt(self.ndr(f) and self.ndr(f) / 1e6, "%.3f"),
                ", ".join("%.3f" % (s["results"]["NDR"]["load"] / 1e6) for s in c) or "-",
                self.fmt(pdr and pdr[0] and pdr[0] / 1e6, "%.3f"), self.fmt(fc),
                self.fmt(self.full_ratio(f) if f.dir != "l3" else None, "%.2f×"),
                "%.1f (%d)" % (ff, fn) if fn else "-",
                "%.0f (%d)%s" % (statistics.median(est), len(est), self.smf_cpu(f))
                if est else "-"))
        L.append("")
        L.append("*Full bursts*: the median over the search trials (valid ones) in which the "
                 "worker received at least %d packets per busy poll of 32: saturated, the "
                 "generator unpaced or past the NDR. Every configuration is then measured at "
                 "the same burst fill whatever its NDR, which is what the targets compare; "
                 "at a fixed share of each NDR the fill differs (the table below).\n" %
                 FULL_FILL)
        L.append("## Cost and latency at load\n")
        L.append("| configuration | load | rx kpps | loss | cycles/packet | ÷ plain L3 | "
                 "packets/poll | e2e p50 µs | p99 | p99.99 | residence p50 µs | p99 | rounds |")
        L.append("|" + " --- |" * 13)
        for f in self.fwds:
            for pct, pps in getattr(f, "loads", []):
                n = sum(1 for r in f.runs if r["pct"] == pct)
                if not n:
                    continue

                def c(get):
                    return self.cell(f.key, pct, get)
                rt = self.ratio(f, pct) if f.dir != "l3" else None
                L.append("| %s | %d%% (%.0f kpps) | %.0f | %d | %s | %s | %s | %s | %s | %s | "
                         "%s | %s | %d |" % (
                             f.label, pct, pps / 1e3, c(lambda r: r["rx_pps"]) / 1e3,
                             c(lambda r: r["loss"]), self.fmt(c(self.cpp)),
                             self.fmt(rt, "%.2f×"),
                             self.fmt(c(lambda r: r.get("pkts_per_poll")), "%.1f"),
                             self.fmt_us(c(lambda r: r["e2e"]["p50_ns"])),
                             self.fmt_us(c(lambda r: r["e2e"]["p99_ns"])),
                             self.fmt_us(c(lambda r: r["e2e"]["p99_99_ns"])),
                             self.fmt_us(c(lambda r: r.get("res", {}).get("p50_ns"))),
                             self.fmt_us(c(lambda r: r.get("res", {}).get("p99_ns"))), n))
        L.append("")
        fa = os.path.join(os.path.dirname(path), "upf-e2e", "findings.md")
        if os.path.exists(fa):
            with open(fa) as fh:
                L.append(fh.read().rstrip() + "\n")
        L.append("## Machine\n")
        L.append("| | |")
        L.append("| --- | --- |")
        for k, v in self.machine():
            L.append("| %s | %s |" % (k, v.replace("|", "/").replace(
                "bench/bench-latency.sh", "bench/bench-upf-e2e.sh")))
        L.append("")
        L.append("## Commands\n")
        L.append("```")
        L.extend(self.clean(c) for c in COMMANDS)
        L.append("```")
        if self.failures:
            L.append("\n## Failures\n")
            L.extend("- " + x.splitlines()[0] for x in self.failures)
        with open(path, "w") as fh:
            fh.write("\n".join(L) + "\n")
        log("wrote %s" % path)


def main():
    ap = argparse.ArgumentParser(description="lanefwd as a UPF end to end over memif (PFCP "
                                 "sessions, GTP-U uplink and downlink) against plain L3 "
                                 "forwarding; writes docs/upf-e2e.md")
    ap.add_argument("--quick", action="store_true", help="1K sessions, 1 PDR, one search, one "
                    "round, 2 s windows, no docs")
    ap.add_argument("--sessions", default="1K,100K", help="session counts (default 1K,100K)")
    ap.add_argument("--pdrs", default="1,4", help="PDRs per direction (default 1,4)")
    ap.add_argument("--loads", default="50,90", help="percent of each NDR (default 50,90)")
    ap.add_argument("--window", type=float, help="measured seconds per run (default 5)")
    ap.add_argument("--warmup", type=float, help="warm-up seconds per run (default 1)")
    ap.add_argument("--reps", type=int, help="rounds of every configuration and load "
                    "(default 2)")
    ap.add_argument("--searches", type=int, help="MLRsearches per configuration (default 2)")
    ap.add_argument("--flows", type=int, default=1024, help="plain L3 flows (default 1024)")
    ap.add_argument("--ndr-loss", type=float, default=0.0)
    ap.add_argument("--pdr-loss", type=float, default=0.5)
    ap.add_argument("--min-share", type=float, default=0.98)
    ap.add_argument("--max-wait-ms", type=float, default=1.0)
    ap.add_argument("--max-invalid", type=int, default=40,
                    help="invalid trials after which a search gives up (default 40: this "
                    "VM's host stalls the vCPU 1.6 ms at a time, longer than a 4096-slot memif "
                    "ring holds past 5 Mpps, so a high-rate trial is often invalid)")
    ap.add_argument("--max-wait", type=float, default=5)
    ap.add_argument("--lock", default=bl.LOCK)
    ap.add_argument("--doc", help="default docs/upf-e2e.md (not with --quick)")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--report", metavar="RESULTS_JSON", help="run nothing: rewrite the report "
                    "(--doc, default docs/upf-e2e.md) and its plot from a results.json")
    ap.add_argument("--lanefwd", default=os.path.join(ROOT, "build", "lanefwd"))
    ap.add_argument("--lanefwd-gen", default=os.path.join(ROOT, "build", "lanefwd-gen"))
    a = ap.parse_args()
    if a.quick:
        a.sessions, a.pdrs = "1K", "1"
    a.sessions = [count(x) for x in a.sessions.split(",")]
    a.pdrs = [int(x) for x in a.pdrs.split(",")]
    a.loads = sorted(int(x) for x in a.loads.split(","))
    a.window = a.window or (2.0 if a.quick else 5.0)
    a.warmup = a.warmup if a.warmup is not None else (0.5 if a.quick else 1.0)
    a.reps = a.reps or (1 if a.quick else 2)
    a.searches = a.searches or (1 if a.quick else 2)
    a.durations, a.widths = ([0.5], [0.04]) if a.quick else ([0.5, 1.0], [0.04, 0.02])
    a.initial, a.final_trials = (0.5 if a.quick else 1.0), 3
    a.trial_warmup, a.trial_drain, a.search_rsize = 0.1, 0.2, 12
    a.retries = 0
    a.profile, a.main_only, a.l3fwd, a.compare, a.findings = False, True, False, [], None
    doc = None if a.quick else (a.doc or os.path.join(ROOT, "docs", "upf-e2e.md"))
    if a.report:
        doc = a.doc or os.path.join(ROOT, "docs", "upf-e2e.md")
        b = UpfBench.from_json(a.report, a)
        outdir = os.path.splitext(doc)[0]
        os.makedirs(outdir, exist_ok=True)
        b.write_doc(doc, b.plots(outdir))
        return 0
    if os.geteuid() != 0:
        sys.exit("bench-upf-e2e: run as root (hugepages, vdevs, telemetry socket)")
    for p in (a.lanefwd, a.lanefwd_gen):
        if not os.access(p, os.X_OK):
            sys.exit("bench-upf-e2e: %s not built (ninja -C build)" % p)
    os.chdir(ROOT)
    b = UpfBench(a)
    b.command = "bench/bench-upf-e2e.sh" + ("" if len(sys.argv) == 1 else " " +
                                               bl.quote(sys.argv[1:]))
    t0 = time.monotonic()

    def on_signal(sig, frame):
        raise KeyboardInterrupt
    import signal
    signal.signal(signal.SIGTERM, on_signal)
    try:
        try:
            b.setup()
            b.run_all()
        except bl.Fail as e:
            b.failures.append(str(e))
            log("FAILED: %s" % e)
        b.elapsed = time.monotonic() - t0
        b.tsc_hz, b.tsc_src = b.tsc()
        b.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        res = b.results_json()
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
                f.write("\n")
        for f in b.fwds:
            est = b.estab.get(f.key, [])
            log("%s: NDR %s Mpps%s" % (f.label, b.fmt(b.ndr(f) and b.ndr(f) / 1e6, "%.3f"),
                                        ", PFCP %.0f establishments/s (median of %d)" % (
                                            statistics.median(est), len(est)) if est else ""))
        for text, met in b.targets():
            log("target: %s: %s" % (text, "met" if met else "MISSED"))
        if doc and not b.failures:
            outdir = os.path.splitext(doc)[0]
            os.makedirs(outdir, exist_ok=True)
            with open(os.path.join(outdir, "results.json"), "w") as f:
                json.dump(res, f, indent=1)
                f.write("\n")
            b.write_doc(doc, b.plots(outdir))
    except KeyboardInterrupt:
        log("bench-upf-e2e: interrupted")
        return 130
    finally:
        b.cleanup()
    if b.failures:
        log("bench-upf-e2e: FAILED:\n  " + "\n  ".join(x.splitlines()[0] for x in b.failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
