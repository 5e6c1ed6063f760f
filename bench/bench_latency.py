#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lanefwd latency suite: burst size against tail latency, with DPDK l3fwd
as the peer, on the memif harness driven by lanefwd-gen.

Run it through bench/bench-latency.sh, which installs dependencies,
reserves hugepages and builds lanefwd and lanefwd-gen first.

Harness (the tests/integration/gen_memif.sh set-up): the forwarder has two
memif ports in the server role, a (ethdev 0) and b (ethdev 1), polled by one
forwarding lcore on CPU 1; lanefwd-gen connects to both as the client from
lcore 0 (CPU 0, shared with the forwarder's main lcore / control threads),
sends 64-byte UDP/IPv4 frames to 198.18.1.0/24 on a and receives them on b.
Both forwarders route 198.18.1.0/24 out of b (l3fwd's built-in route).

Per forwarder configuration (lanefwd at each burst, then l3fwd):
  1. start it; NDR search with lanefwd-gen --search (loss <= --ndr-loss %);
  2. offered loads: --loads percent of the reference NDR (lanefwd at burst
     32, measured first), the same absolute rates for every configuration;
     one generator run per load: --warmup s, then a --window s measured
     window. lanefwd's /lanefwd/latency is reset right after a histogram
     collection at the start of the window and read after the run, so its
     since-reset percentiles cover the window (and at most the few ms of
     warm-up between the collection and the reset);
  3. during each window: the CPU time of the forwarding thread and of the
     generator (/proc/PID/task/TID/schedstat); a window in which either had
     a CPU less than --min-share of the time is marked contended.

Each forwarder's runs hold /tmp/lanefwd-bench.lock (flock), so that only one
benchmark runs at a time on the machine. Exit status 1 when any run fails or
the generator loses more than --ndr-loss percent at the lowest load (after
--retries reruns).
"""
import argparse
import datetime
import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (bench/bench.py: telemetry client, l3fwd build, machine)
from bench import COMMANDS, PY, Telemetry, busiest, log, out, thread_times  # noqa: E402

ROOT = bench.ROOT
GEN_CPU = 0          # generator lcore; the forwarders' main lcore / control threads
FWD_CPU = 1          # the forwarding lcore
LOCK = "/tmp/lanefwd-bench.lock"
DST_IP = "198.18.1.1"     # l3fwd's built-in 198.18.1.0/24 -> port 1
SETTINGS = ("window", "warmup", "trial", "ndr_loss", "precision", "flows", "min_share",
            "retries", "max_wait", "bursts", "loads", "lock")
PCTS = (("p50", "p50_ns"), ("p99", "p99_ns"), ("p99.9", "p99_9_ns"),
        ("p99.99", "p99_99_ns"))
DRAIN = 2.6          # generator --drain on load runs, s


class Fail(Exception):
    """A run that failed: reported, and the suite exits 1."""


def set_affinity_all():
    os.sched_setaffinity(0, range(os.cpu_count()))


def quote(argv):
    return " ".join(shlex.quote(c) for c in argv)


def wait_line(path, pattern, proc, timeout):
    """Wait until `pattern` (a regex) appears in the log at `path`."""
    end = time.monotonic() + timeout
    rx = re.compile(pattern, re.M)
    while True:
        try:
            with open(path, errors="replace") as f:
                if rx.search(f.read()):
                    return time.monotonic()
        except OSError:
            pass
        if proc.poll() is not None:
            raise Fail("exited (status %s) before '%s'" % (proc.returncode, pattern))
        if time.monotonic() > end:
            raise Fail("no '%s' within %.0f s" % (pattern, timeout))
        time.sleep(0.01)


def tail(path, n=2000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return ""


def all_tasks():
    """{tid: (pid, comm, ns on a CPU, last CPU)} of every thread on the machine."""
    res = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            tids = os.listdir("/proc/%s/task" % pid)
        except OSError:
            continue
        for tid in tids:
            d = "/proc/%s/task/%s" % (pid, tid)
            try:
                with open(d + "/schedstat") as f:
                    run = int(f.read().split()[0])
                with open(d + "/stat") as f:
                    st = f.read()
                comm = st[st.index("(") + 1:st.rindex(")")]
                cpu = int(st[st.rindex(")") + 2:].split()[36])
                res[int(tid)] = (int(pid), comm, run, cpu)
            except (OSError, ValueError, IndexError):
                pass
    return res


def cpu_busy_ticks():
    """{cpu: busy clock ticks} from /proc/stat (user nice system irq softirq steal)."""
    res = {}
    with open("/proc/stat") as f:
        for line in f:
            m = re.match(r"cpu(\d+) (.*)", line)
            if m:
                v = [int(x) for x in m.group(2).split()]
                res[int(m.group(1))] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return res


def snapshot():
    return all_tasks(), cpu_busy_ticks()


def others(before, after, window, exclude):
    """CPU use of everything but the processes in `exclude` between two
    snapshot()s: ({cpu: share of the window}, top 'comm(pid) share@cpuN').
    The per-CPU figure is /proc/stat's busy time minus our threads' run time,
    so it includes processes that started and ended within the window (a
    build's compilers); the names are those of processes alive at both ends."""
    (tb, sb), (ta, sa) = before, after
    hz = os.sysconf("SC_CLK_TCK")
    mine, per_proc = {}, {}
    for tid, (pid, comm, run, cpu) in ta.items():
        d = (run - tb[tid][2]) if tid in tb else 0
        if d <= 0:
            continue
        share = d / 1e9 / window
        if pid in exclude:
            mine[cpu] = mine.get(cpu, 0.0) + share
            continue
        k = (pid, comm, cpu)
        per_proc[k] = per_proc.get(k, 0.0) + share
    per_cpu = {c: max(0.0, (sa[c] - sb.get(c, sa[c])) / hz / window - mine.get(c, 0.0))
               for c in sa}
    top = sorted(per_proc.items(), key=lambda kv: -kv[1])
    return per_cpu, ["%s(%d) %.2f@cpu%d" % (c, p, v, cpu) for (p, c, cpu), v in top[:3]
                     if v >= 0.03]


def who(r):
    """'other load cpu0 0.31 cpu1 0.02 (ld(123) 0.30@cpu0)' for a run or search."""
    o = r.get("others") or {}
    return "other load cpu0 %.2f cpu1 %.2f%s" % (
        o.get(GEN_CPU, o.get(str(GEN_CPU), 0.0)), o.get(FWD_CPU, o.get(str(FWD_CPU), 0.0)),
        " (%s)" % ", ".join(r["contenders"]) if r.get("contenders") else "")


class BenchLock:
    """flock(2) on LOCK, the lock flock(1) takes; a no-op when a parent
    (`flock LOCK bench/bench-latency.sh`) already holds it for us."""

    def __init__(self, path):
        self.path, self.fd = path, None
        self.inherited = False
        if path:
            real = os.path.realpath(path)
            for fd in os.listdir("/proc/self/fd"):
                try:
                    if os.readlink("/proc/self/fd/" + fd) == real:
                        self.inherited = True
                except OSError:
                    pass

    def __enter__(self):
        if not self.path or self.inherited:
            return self
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("  waiting for %s (another benchmark is running)" % self.path)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)       # releases the lock
            self.fd = None


class Fwd:
    """One forwarder configuration."""

    def __init__(self, key, label, kind, burst):
        self.key, self.label, self.kind, self.burst = key, label, kind, burst
        self.search = None     # the NDR search (the last attempt)
        self.searches = []     # every attempt
        self.crashes = []      # SIGSEGV after the generator disconnected
        self.runs = []         # every load run, retries included
        self.cmd = None        # argv as run (the last instance)
        self.conf = None       # lanefwd configuration text
        self.error = None


class LatBench(bench.Bench):
    """Reuses bench.Bench's l3fwd build, machine description and stop()."""

    def __init__(self, a):
        super().__init__(a)
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = __import__("tempfile").mkdtemp(prefix="lanefwd-lat.")
        self.tag = "lflat%d" % os.getpid()
        self.gen_live = None
        self.loads = None      # offered pps, from the reference NDR
        self.ref_ndr = None
        self.loopback = None
        self.failures = []
        self.seq = 0
        self.lf_info = None
        self.l3fwd_march = "-"

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
        self.lf_version = out("%s -V" % shlex.quote(self.lanefwd))
        self.git_head = out("git -C %s rev-parse --short HEAD" % shlex.quote(ROOT))
        self.git_dirty = bool(out("git -C %s status --porcelain -- src include meson.build"
                                  % shlex.quote(ROOT)))
        with open(os.path.join(self.tmp, "routes4.txt"), "w") as f:
            f.write("# l3fwd 22.11 ipv4_l3fwd_route_array, ports 0-1\n"
                    "198.18.0.0/24 0\n198.18.1.0/24 1\n")
        self.fwds = [Fwd("lf%d" % b, "lanefwd burst %d" % b, "lanefwd", b)
                     for b in a.bursts]
        if a.l3fwd:
            self.build_l3fwd()
            self.fwds.append(Fwd("l3fwd", "DPDK l3fwd (LPM, burst 32)", "l3fwd", 32))

    def lanefwd_conf(self, f, prefix, socks):
        return """\
# lanefwd latency benchmark configuration, generated by bench/bench_latency.py
[eal]
main_lcore = {main}
file_prefix = {prefix}
huge = yes

[pipeline]
burst = {burst}
prefetch_distance = 4
latency = yes

[routes]
ipv4 = {r4}
ipv4_max_routes = 1024
ipv4_tbl8 = 256
ipv6_max_routes = 1024
ipv6_tbl8 = 256

[port a]
vdev = net_memif0,role=server,socket={a},socket-abstract=no

[port b]
vdev = net_memif1,role=server,socket={b},socket-abstract=no

[worker {cpu}]
rx = a:0 b:0

# l3fwd's default destination MACs 02:00:00:00:00:<port>.
[nexthop 0]
port = a
mac = 02:00:00:00:00:00

[nexthop 1]
port = b
mac = 02:00:00:00:00:01
""".format(main=GEN_CPU, prefix=prefix, burst=f.burst,
           r4=os.path.join(self.tmp, "routes4.txt"), a=socks[0], b=socks[1], cpu=FWD_CPU)

    # ------------------------------------------------------------ processes
    def start_fwd(self, f):
        self.seq += 1
        prefix = "%s_%d_%s" % (self.tag, self.seq, f.key)
        socks = [os.path.join(self.tmp, "%s.%s.sock" % (prefix, p)) for p in "ab"]
        logpath = os.path.join(self.tmp, "%s.log" % prefix)
        if f.kind == "lanefwd":
            conf = os.path.join(self.tmp, "%s.ini" % prefix)
            f.conf = self.lanefwd_conf(f, prefix, socks)
            with open(conf, "w") as fh:
                fh.write(f.conf)
            cmd = [self.lanefwd, "-c", conf]
            ready = r"^lanefwd: running"
        else:
            # -l 1: l3fwd opens one TX queue per lcore and the memif client
            # has one ring per direction; its main lcore is its forwarding
            # lcore, and EAL puts its control threads on CPU 0.
            cmd = [self.l3fwd, "-l", str(FWD_CPU), "--no-pci", "--file-prefix", prefix,
                   "--vdev", "net_memif0,role=server,socket=%s,socket-abstract=no" % socks[0],
                   "--vdev", "net_memif1,role=server,socket=%s,socket-abstract=no" % socks[1],
                   "--", "-p", "0x3", "--config", "(0,0,%d),(1,0,%d)" % (FWD_CPU, FWD_CPU),
                   "--lookup", "lpm", "--parse-ptype"]
            ready = r"entering main loop"
        f.cmd = cmd
        logf = open(logpath, "w")
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=logf,
                             stderr=subprocess.STDOUT, preexec_fn=set_affinity_all)
        logf.close()
        self.live = (p, prefix)
        try:
            wait_line(logpath, ready, p, 60)
        except Fail as e:
            raise Fail("%s did not start: %s\n%s" % (f.label, e, tail(logpath)))
        tel = None
        if f.kind == "lanefwd":
            end = time.monotonic() + 20
            while True:
                tel = Telemetry(prefix)
                try:
                    info, _ = tel.query("/lanefwd/info")
                    break
                except RuntimeError:
                    # The socket file can exist a moment before it listens.
                    tel.close()
                    if time.monotonic() > end:
                        raise Fail("%s: no telemetry\n%s" % (f.label, tail(logpath)))
                    time.sleep(0.2)
            if info is None or info.get("burst") != f.burst:
                raise Fail("%s: /lanefwd/info says %s" % (f.label, info))
            if self.lf_info is None:
                self.lf_info = info
        return p, prefix, socks, logpath, tel

    def gen_argv(self, prefix, socks, opts):
        return [self.gen, "-l", str(GEN_CPU), "--no-pci", "--file-prefix", prefix,
                "--vdev", "net_memif0,role=client,socket=%s,socket-abstract=no,rsize=12" % socks[0],
                "--vdev", "net_memif1,role=client,socket=%s,socket-abstract=no,rsize=12" % socks[1],
                "--", "--dst-ip", DST_IP, "--dst-ips", "254", "--flows", str(self.a.flows),
                "--size", "64", "--quiet"] + opts

    def gen_start(self, argv, name):
        self.seq += 1
        prefix = "%s_%d_g" % (self.tag, self.seq)
        argv = [c.replace("GENPREFIX", prefix) for c in argv]
        js = os.path.join(self.tmp, "%s.%s.json" % (prefix, name))
        argv = argv + ["--json", js]
        logpath = os.path.join(self.tmp, "%s.%s.log" % (prefix, name))
        logf = open(logpath, "w")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf,
                             stderr=subprocess.STDOUT, preexec_fn=set_affinity_all)
        logf.close()
        self.gen_live = (p, prefix)
        return p, js, logpath

    def gen_finish(self, p, js, logpath, timeout):
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            rc = "timeout"
        prefix = self.gen_live[1]
        self.gen_live = None
        shutil.rmtree(os.path.join(bench.RUNDIR, prefix), ignore_errors=True)
        if rc != 0:
            raise Fail("lanefwd-gen exited with status %s\n%s" % (rc, tail(logpath)))
        with open(js) as f:
            return json.load(f)

    def gen_kill(self):
        if self.gen_live and self.gen_live[0].poll() is None:
            self.gen_live[0].send_signal(signal.SIGINT)     # its own pid only
            try:
                self.gen_live[0].wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.gen_live[0].kill()
                self.gen_live[0].wait()
        self.gen_live = None

    # --------------------------------------------------------------- runs
    def run_loopback(self):
        """The generator's own ceiling: a ring port looped back, unpaced."""
        argv = [self.gen, "-l", str(GEN_CPU), "--no-pci", "--file-prefix", "GENPREFIX",
                "--", "--loopback", "--rate", "max", "--duration", "%g" % self.a.window,
                "--flows", str(self.a.flows), "--size", "64", "--quiet"]
        COMMANDS.append(quote(argv) + " --json FILE   # the generator alone")
        p, js, logpath = self.gen_start(argv, "loopback")
        j = self.gen_finish(p, js, logpath, self.a.window + 60)
        self.loopback = j["result"]
        log("generator ceiling (--loopback, unpaced): %.2f Mpps, p99.99 %s ns" %
            (self.loopback["rx_pps"] / 1e6, self.loopback["latency"]["p99_99_ns"]))

    def run_search(self, f, pid, tel, socks, attempt):
        a = self.a
        opts = ["--search", "--trial", "%g" % a.trial, "--warmup", "0.5",
                "--ndr-loss", "%g" % a.ndr_loss, "--search-precision", "%g" % a.precision]
        argv = self.gen_argv("GENPREFIX", socks, opts)
        self.wait_quiet(self.ours(pid, tel))
        t0, o0 = thread_times(pid), snapshot()
        m0 = time.monotonic()
        p, js, logpath = self.gen_start(argv, "search")
        g0 = None
        try:
            wait_line(logpath, r"TX lcore", p, 30)
            g0 = thread_times(p.pid)
            m1 = time.monotonic()
            g1 = thread_times(p.pid)
            end = time.monotonic() + 30 + 20 * (a.trial + 1.5)
            while p.poll() is None and time.monotonic() < end:
                g1 = thread_times(p.pid)
                m1 = time.monotonic()
                time.sleep(0.2)
        except Fail as e:
            raise Fail("NDR search: %s\n%s" % (e, tail(logpath)))
        t1, o1 = thread_times(pid), snapshot()
        m2 = time.monotonic()
        use, top = others(o0, o1, m2 - m0, self.ours(pid, tel) | {p.pid})
        j = self.gen_finish(p, js, logpath, 1)
        trials = j["trials"]
        first = trials[0] if trials else {}
        s = {"argv": argv, "ndr_pps": j["ndr_pps"], "trials": trials,
             "result": j["result"],
             "unpaced_pps": first.get("tx_pps"),
             "unpaced_pass": bool(first.get("pass")),
             "fwd_share": busiest(t0, t1, m2 - m0)[1],
             "gen_share": busiest(g0, g1, max(m1 - m0, 0.1))[1] if g0 else None,
             "others": use, "contenders": top, "attempt": attempt}
        s["contended"] = min(s["fwd_share"], s["gen_share"] or 0) < self.a.min_share
        # Generator-bound: the first, unpaced trial passed, so the forwarder
        # took everything the generator could send through memif.
        s["gen_bound"] = s["unpaced_pass"]
        f.search = s
        f.searches.append(s)
        log("  NDR %.3f Mpps (%d trials; unpaced first trial %.3f Mpps %s)%s, "
            "cpu share fwd %.2f gen %.2f%s" %
            (s["ndr_pps"] / 1e6, len(trials), (s["unpaced_pps"] or 0) / 1e6,
             "passed" if s["unpaced_pass"] else "failed",
             " GENERATOR-BOUND" if s["gen_bound"] else "", s["fwd_share"],
             s["gen_share"] or 0, "  CONTENDED: %s" % who(s) if s["contended"]
             else ""))
        return s

    def lat_aligned_reset(self, tel, deadline):
        """Reset /lanefwd/latency right after the control thread's next
        histogram collection (about once a second): the worker's buffer then
        holds only the few ms since that collection."""
        def mark():
            r, _ = tel.query("/lanefwd/latency")
            w = (r or {}).get(str(FWD_CPU), {})
            return (r or {}).get("interval_ms"), w.get("interval_count"), \
                w.get("interval_max_ns"), w.get("interval_p50_ns")
        m0 = mark()
        while time.monotonic() < deadline:
            time.sleep(0.03)
            if mark() != m0:
                break
        tel.query("/lanefwd/latency_reset")

    def ours(self, pid, tel):
        return {os.getpid(), pid} | ({tel.p.pid} if tel else set())

    def wait_quiet(self, exclude):
        """Wait (up to --max-wait s) until other processes use less than 15%
        of each of CPUs 0 and 1; return what they used in the last 0.5 s."""
        end = time.monotonic() + self.a.max_wait
        warned = False
        while True:
            t0 = snapshot()
            time.sleep(0.5)
            use, top = others(t0, snapshot(), 0.5, exclude)
            busy = max(use.get(GEN_CPU, 0.0), use.get(FWD_CPU, 0.0))
            if busy < 0.15 or time.monotonic() > end:
                return busy
            if not warned:
                log("  machine busy (%s); waiting up to %.0f s" % (", ".join(top),
                                                                   self.a.max_wait))
                warned = True

    def run_load(self, f, pid, tel, socks, pps, pct, attempt):
        a = self.a
        self.wait_quiet(self.ours(pid, tel))
        # --drain: the generator stays connected while lanefwd's histograms
        # are read (two collections after the last packet).
        opts = ["--rate", str(int(pps)), "--duration", "%g" % a.window,
                "--warmup", "%g" % a.warmup, "--drain", "%g" % DRAIN]
        argv = self.gen_argv("GENPREFIX", socks, opts)
        run = {"fwd": f.key, "pct": pct, "offered": int(pps), "attempt": attempt,
               "loadavg": None}
        p, js, logpath = self.gen_start(argv, "load%d" % pct)
        try:
            t_hdr = wait_line(logpath, r"TX lcore", p, 30)
            w_start = t_hdr + a.warmup
            w_end = w_start + a.window
            time.sleep(max(0.0, w_start - time.monotonic()))
            w0 = None
            if tel:
                self.lat_aligned_reset(tel, w_start + 1.2)
                w0, _ = tel.query("/lanefwd/workers,%d" % FWD_CPU)
            m0 = time.monotonic()
            f0, g0, o0 = thread_times(pid), thread_times(p.pid), snapshot()
            time.sleep(max(0.0, w_end - time.monotonic()))
            f1, g1, o1 = thread_times(pid), thread_times(p.pid), snapshot()
            m1 = time.monotonic()
            run["others"], run["contenders"] = others(o0, o1, m1 - m0,
                                                      self.ours(pid, tel) | {p.pid})
            w1 = None
            if tel:
                w1, _ = tel.query("/lanefwd/workers,%d" % FWD_CPU)
            with open("/proc/loadavg") as fh:
                run["loadavg"] = float(fh.read().split()[0])
            if tel:
                # Every packet of the window merged, and the generator still
                # connected (it drains for DRAIN s after its window).
                time.sleep(max(0.0, w_end + DRAIN - 0.4 - time.monotonic()))
                if p.poll() is not None:
                    raise Fail("lanefwd-gen exited before lanefwd's histograms were read")
                lat, _ = tel.query("/lanefwd/latency")
                run["res"] = lat[str(FWD_CPU)]
        except Fail as e:
            self.gen_kill()
            raise Fail("load %d%%: %s\n%s" % (pct, e, tail(logpath)))
        j = self.gen_finish(p, js, logpath, a.warmup + a.window + 60)
        r = j["result"]
        run.update(argv=argv, tx_pps=r["tx_pps"], rx_pps=r["rx_pps"], tx=r["tx"], rx=r["rx"],
                   loss=r["loss"], loss_ratio=r["loss_ratio"], reorder=r["reorder"],
                   e2e=r["latency"], window_s=m1 - m0)
        _, run["fwd_share"], run["fwd_wait"], run["fwd_cpu"] = busiest(f0, f1, m1 - m0)
        _, run["gen_share"], run["gen_wait"], run["gen_cpu"] = busiest(g0, g1, m1 - m0)
        if tel:
            polls = w1["busy_polls"] - w0["busy_polls"]
            run["pkts_per_poll"] = (w1["rx_packets"] - w0["rx_packets"]) / polls if polls else 0
            run["tx_full"] = w1.get("drop_tx_full", 0) - w0.get("drop_tx_full", 0)
            run["busy_percent"] = w1.get("busy_percent")
        run["contended"] = min(run["fwd_share"], run["gen_share"]) < a.min_share
        return run

    def one(self, f, what, *args):
        """One generator invocation against a fresh forwarder process.

        The memif PMD of 22.11 can crash the server's polling thread when
        the client disconnects (it unmaps the rings under rx_burst): every
        figure is taken while the generator is still connected, and a
        forwarder killed by SIGSEGV after the generator has exited is
        recorded (f.crashes) rather than failed. Any other exit status, or
        a crash before the generator exits, fails the run."""
        p, prefix, socks, logpath, tel = self.start_fwd(f)
        tids = set(thread_times(p.pid))
        ok = False
        try:
            if what == "search":
                r = self.run_search(f, p.pid, tel, socks, *args)
            else:
                r = self.run_load(f, p.pid, tel, socks, *args)
            ok = True
        finally:
            if tel:
                tel.close()
            self.gen_kill()
            rc = self.stop()
            if ok and rc == -signal.SIGSEGV:
                seg = [ln for ln in out("dmesg 2>/dev/null | tail -100").splitlines()
                       if any("[%d]: segfault" % t in ln for t in tids)]
                f.crashes.append({"after": what, "dmesg": seg[-1] if seg else None})
                log("  note: %s died of SIGSEGV after the generator disconnected: %s" %
                    (f.label, seg[-1].split("]: ", 1)[-1] if seg else "(no dmesg line)"))
            elif ok and rc not in (0, None):
                raise Fail("%s exited with status %s\n%s" % (f.label, rc, tail(logpath)))
            elif not ok and rc not in (0, None):
                log("  %s exited with status %s" % (f.label, rc))
        f.final = tail(logpath, 600)
        return r

    def run_fwd(self, f):
        a = self.a
        log("== %s" % f.label)
        for attempt in range(1, a.retries + 2):
            if not self.one(f, "search", attempt)["contended"]:
                break
        if self.loads is None:
            if not f.search["ndr_pps"]:
                raise Fail("%s: no NDR (no trial passed)" % f.label)
            self.ref_ndr = (f.label, f.search["ndr_pps"])
            self.loads = [(pct, f.search["ndr_pps"] * pct / 100.0) for pct in a.loads]
        for pct, pps in self.loads:
            for attempt in range(1, a.retries + 2):
                r = self.one(f, "load", pps, pct, attempt)
                f.runs.append(r)
                lossy = r["loss"] > 0 and pct == min(a.loads)
                log("  %d%% (%.3f Mpps): rx %.3f Mpps, loss %d, e2e p99 %s p99.99 %s ns%s, "
                    "cpu share fwd %.2f gen %.2f%s%s" %
                    (pct, pps / 1e6, r["rx_pps"] / 1e6, r["loss"], r["e2e"]["p99_ns"],
                     r["e2e"]["p99_99_ns"],
                     "; residence p99 %s p99.99 %s ns" % (r["res"]["p99_ns"],
                                                        r["res"]["p99_99_ns"])
                     if "res" in r else "",
                     r["fwd_share"], r["gen_share"],
                     "  CONTENDED: %s" % who(r) if r["contended"]
                     else "", "  LOSS" if lossy else ""))
                if not r["contended"] and not lossy:
                    break

    def run_all(self):
        with BenchLock(self.a.lock):
            self.run_loopback()
        for f in self.fwds:
            try:
                with BenchLock(self.a.lock):
                    self.run_fwd(f)
            except Fail as e:
                f.error = str(e)
                self.failures.append("%s: %s" % (f.label, e))
                log("  FAILED: %s" % e)
                if self.loads is None:
                    break       # no reference NDR: nothing else can run
        for f in self.fwds:
            lo = [r for r in self.best_runs(f) if r["pct"] == min(self.a.loads)]
            for r in lo:
                # The NDR's own criterion: a few packets lost to a VM
                # scheduling hiccup do not fail the run; the doc shows them.
                if r["loss"] > r["tx"] * self.a.ndr_loss / 100.0:
                    self.failures.append("%s: loss %d of %d at %d%% load (%.3f Mpps)" %
                                         (f.label, r["loss"], r["tx"], r["pct"],
                                          r["offered"] / 1e6))

    # ------------------------------------------------------------- results
    def best_runs(self, f):
        """Per load, the last attempt (attempts stop at the first clean one)."""
        best = {}
        for r in f.runs:
            best[r["pct"]] = r
        return [best[k] for k in sorted(best)]

    def run_at(self, key, pct):
        for f in self.fwds:
            if f.key == key:
                for r in self.best_runs(f):
                    if r["pct"] == pct:
                        return r
        return None

    def fwd(self, key):
        return next((f for f in self.fwds if f.key == key), None)

    def finalize(self):
        """Everything the report needs, with temporary paths and EAL prefixes
        replaced, so that results.json alone regenerates the report."""
        self.commands = [self.clean(c) for c in COMMANDS]
        self.machine_rows = self.machine()
        for f in self.fwds:
            f.cmd_shown = self.clean(quote(f.cmd)) if f.cmd else None
            f.conf_shown = self.clean(f.conf) if f.conf else None
            for r in f.searches + f.runs:
                if "argv" in r:
                    r["cmd"] = self.clean(quote(r.pop("argv"))) + " --json FILE"

    def results_json(self):
        return {
            "date": self.date, "git": self.git_head, "command": self.command,
            "elapsed_s": self.elapsed, "machine": self.machine_rows,
            "commands": self.commands, "loopback": self.loopback,
            "ref_ndr": self.ref_ndr, "loads": self.loads, "failures": self.failures,
            "settings": {k: getattr(self.a, k) for k in SETTINGS},
            "forwarders": [{"key": f.key, "label": f.label, "kind": f.kind, "burst": f.burst,
                            "error": f.error, "searches": f.searches, "runs": f.runs,
                            "crashes": f.crashes, "cmd": f.cmd_shown, "conf": f.conf_shown}
                           for f in self.fwds],
        }

    @classmethod
    def from_json(cls, path):
        """A report-only instance from a results.json (--report)."""
        with open(path) as fh:
            j = json.load(fh)
        b = cls.__new__(cls)
        b.a = argparse.Namespace(**j["settings"])
        for k in ("date", "command", "loopback", "ref_ndr", "loads", "failures", "commands"):
            setattr(b, k, j[k])
        b.git_head, b.elapsed, b.machine_rows = j["git"], j["elapsed_s"], j["machine"]
        b.fwds = []
        for x in j["forwarders"]:
            f = Fwd(x["key"], x["label"], x["kind"], x["burst"])
            f.error, f.searches, f.runs, f.crashes = x["error"], x["searches"], x["runs"], \
                x["crashes"]
            f.search = f.searches[-1] if f.searches else None
            f.cmd_shown, f.conf_shown = x["cmd"], x["conf"]
            b.fwds.append(f)
        return b

    def print_summary(self):
        print("\n%-28s %9s %5s | %s" % ("forwarder", "NDR Mpps", "gen?",
                                      "load: rx Mpps loss e2e p99/p99.99 us | "
                                      "residence p99/p99.99 us | cpu fwd/gen"))
        for f in self.fwds:
            s = f.search
            head = "%-28s %9s %5s" % (f.label, "%.3f" % (s["ndr_pps"] / 1e6) if s else "-",
                                      ("yes" if s["gen_bound"] else "no") if s else "-")
            for r in self.best_runs(f):
                res = r.get("res")
                print("%s | %d%%: %.3f %d %.1f/%.1f | %s | %.2f/%.2f%s" % (
                    head, r["pct"], r["rx_pps"] / 1e6, r["loss"], r["e2e"]["p99_ns"] / 1e3,
                    r["e2e"]["p99_99_ns"] / 1e3,
                    "%.1f/%.1f" % (res["p99_ns"] / 1e3, res["p99_99_ns"] / 1e3) if res else "-",
                    r["fwd_share"], r["gen_share"], " contended" if r["contended"] else ""))
                head = " " * len(head)
            if f.error:
                print("%s FAILED" % head)
        if self.failures:
            print("\nFAILURES:\n  " + "\n  ".join(x.splitlines()[0] for x in self.failures))

    # ------------------------------------------------------------- plots
    def plots(self, outdir):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        lfs = [f for f in self.fwds if f.kind == "lanefwd" and f.runs]
        l3 = self.fwd("l3fwd")
        files = []
        colors = {min(self.a.loads): "tab:blue", max(self.a.loads): "tab:red"}
        # 1. p99.99 against burst, both loads, end to end and residence.
        fig, ax = plt.subplots(figsize=(8, 5))
        for pct, _ in self.loads:
            c = colors.get(pct, "tab:green")
            pts = [(f.burst, self.run_at(f.key, pct)) for f in lfs]
            pts = [(b, r) for b, r in pts if r]
            ax.plot([b for b, _ in pts], [r["e2e"]["p99_99_ns"] / 1e3 for _, r in pts], "-o",
                    color=c, label="lanefwd end to end, %d%% load" % pct)
            ax.plot([b for b, r in pts if "res" in r],
                    [r["res"]["p99_99_ns"] / 1e3 for _, r in pts if "res" in r], "--s",
                    color=c, alpha=0.7, label="lanefwd residence, %d%% load" % pct)
            for b, r in pts:
                if r["contended"]:
                    ax.plot([b], [r["e2e"]["p99_99_ns"] / 1e3], "x", color="black",
                            markersize=12)
            r3 = self.run_at("l3fwd", pct) if l3 else None
            if r3:
                ax.plot([32], [r3["e2e"]["p99_99_ns"] / 1e3], "D", color=c, markersize=9,
                        markerfacecolor="none", label="l3fwd end to end, %d%% load" % pct)
        ax.plot([], [], "x", color="black", label="contended window")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        bursts = [f.burst for f in lfs]
        ax.set_xticks(bursts)
        ax.set_xticklabels([str(b) for b in bursts])
        ax.set_xlabel("lanefwd [pipeline] burst")
        ax.set_ylabel("p99.99 latency, µs (log)")
        ax.set_title("p99.99 against burst, memif, offered %s of %.2f Mpps" %
                     (" and ".join("%d%%" % p for p, _ in self.loads), self.ref_ndr[1] / 1e6))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "p9999-vs-burst.png"), dpi=110)
        plt.close(fig)
        files.append("p9999-vs-burst.png")
        # 2. Every percentile at the highest load, per burst (end to end).
        pct = max(self.a.loads)
        fig, ax = plt.subplots(figsize=(8, 5))
        cmap = plt.get_cmap("viridis")
        for i, f in enumerate(lfs + ([l3] if l3 and l3.runs else [])):
            r = self.run_at(f.key, pct)
            if not r:
                continue
            style = ":" if f.kind == "l3fwd" else "-"
            color = "black" if f.kind == "l3fwd" else cmap(i / max(1, len(lfs) - 1))
            ax.plot(range(len(PCTS)), [r["e2e"][k] / 1e3 for _, k in PCTS], style,
                    marker="o", color=color,
                    label=f.label + (" (contended)" if r["contended"] else ""))
        ax.set_xticks(range(len(PCTS)))
        ax.set_xticklabels([n for n, _ in PCTS])
        ax.set_yscale("log")
        ax.set_ylabel("end-to-end latency, µs (log)")
        ax.set_title("Generator end-to-end percentiles at %d%% load" % pct)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "percentiles-%d.png" % pct), dpi=110)
        plt.close(fig)
        files.append("percentiles-%d.png" % pct)
        # 3. NDR against burst.
        fig, ax = plt.subplots(figsize=(8, 4.5))
        pts = [(f.burst, f.search["ndr_pps"] / 1e6) for f in lfs if f.search]
        ax.plot([b for b, _ in pts], [v for _, v in pts], "-o", label="lanefwd NDR")
        if l3 and l3.search:
            ax.axhline(l3.search["ndr_pps"] / 1e6, color="black", ls=":",
                       label="l3fwd NDR (burst 32)")
        ups = [(f.burst, f.search["unpaced_pps"] / 1e6) for f in lfs
               if f.search and f.search["unpaced_pps"]]
        ax.plot([b for b, _ in ups], [v for _, v in ups], "--^", color="gray",
                label="generator unpaced through lanefwd (its memif ceiling)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(bursts)
        ax.set_xticklabels([str(b) for b in bursts])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("lanefwd [pipeline] burst")
        ax.set_ylabel("Mpps")
        ax.set_title("NDR (loss <= %g%%) over memif" % self.a.ndr_loss)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "ndr-vs-burst.png"), dpi=110)
        plt.close(fig)
        files.append("ndr-vs-burst.png")
        return files

    # ------------------------------------------------------------- report
    def fmt_us(self, ns):
        if ns is None:
            return "-"
        us = ns / 1e3
        return "%.2f" % us if us < 10 else "%.1f" % us if us < 1000 else "{:,.0f}".format(us)

    def pct_cells(self, lat):
        return [self.fmt_us(lat[k]) if lat else "-" for _, k in PCTS]

    def mark(self, r):
        return " (c)" if r and r["contended"] else ""

    def ratio(self, a, b):
        return "%.2fx" % (a / b) if a and b else "-"

    def headline(self):
        """Sentences with the figures the issue asks for; None where missing."""
        hi = max(self.a.loads)
        L = []
        r32, r128 = self.run_at("lf32", hi), self.run_at("lf128", hi)
        if r32 and r128:
            L.append("**Burst 32 → 128 at %d%% load (%.3f Mpps offered):** end-to-end "
                     "p99.99 %s µs → %s µs (%s), lanefwd residence p99.99 %s µs → %s µs "
                     "(%s); p99 end to end %s → %s µs.%s" % (
                         hi, r32["offered"] / 1e6,
                         self.fmt_us(r32["e2e"]["p99_99_ns"]),
                         self.fmt_us(r128["e2e"]["p99_99_ns"]),
                         self.ratio(r128["e2e"]["p99_99_ns"], r32["e2e"]["p99_99_ns"]),
                         self.fmt_us(r32["res"]["p99_99_ns"]),
                         self.fmt_us(r128["res"]["p99_99_ns"]),
                         self.ratio(r128["res"]["p99_99_ns"], r32["res"]["p99_99_ns"]),
                         self.fmt_us(r32["e2e"]["p99_ns"]), self.fmt_us(r128["e2e"]["p99_ns"]),
                         " One of the two windows was contended (see the CPU shares)."
                         if r32["contended"] or r128["contended"] else
                         " Neither window was contended."))
        lf, l3 = self.fwd("lf32"), self.fwd("l3fwd")
        if lf and l3 and lf.search and l3.search:
            parts = ["NDR %.3f / %.3f Mpps = %s%s" % (
                lf.search["ndr_pps"] / 1e6, l3.search["ndr_pps"] / 1e6,
                self.ratio(lf.search["ndr_pps"], l3.search["ndr_pps"]),
                " (both generator-bound: the ratio compares the generator with itself)"
                if lf.search["gen_bound"] and l3.search["gen_bound"] else
                " (lanefwd's NDR is generator-bound)" if lf.search["gen_bound"] else
                " (l3fwd's NDR is generator-bound)" if l3.search["gen_bound"] else "")]
            for pct, _ in self.loads:
                a, b = self.run_at("lf32", pct), self.run_at("l3fwd", pct)
                if a and b:
                    parts.append("at %d%% load end-to-end p99 %s, p99.99 %s%s" % (
                        pct, self.ratio(a["e2e"]["p99_ns"], b["e2e"]["p99_ns"]),
                        self.ratio(a["e2e"]["p99_99_ns"], b["e2e"]["p99_99_ns"]),
                        " (contended)" if a["contended"] or b["contended"] else ""))
            L.append("**lanefwd (burst 32) / l3fwd:** " + "; ".join(parts) +
                     " (below 1 is better for latency, above 1 for NDR).")
        return L

    def write_doc(self, path, files):
        a = self.a
        rel = os.path.basename(os.path.splitext(path)[0])
        hi, lo = max(a.loads), min(a.loads)
        L = ["# Latency benchmarks: burst size against tail latency\n",
             "<!-- Generated by bench/bench-latency.sh; do not edit by hand: rerun it. -->\n"]
        L.append("Seed 002's lesson: a UPF raised its RX burst from 32 to 128, gained about "
                 "2% throughput, and its p99.99 went from 118 µs to 7.6 ms. This page "
                 "measures that trade on lanefwd over the memif harness, with DPDK l3fwd as "
                 "the peer, and is written whole by one command:\n")
        L.append("```sh\n%s\n```\n" % self.command)
        L.append("Run of %s, git `%s`, %d min wall time. Raw figures: "
                 "[%s/results.json](%s/results.json). **Read the caveats below before "
                 "quoting any figure: this is a 2-vCPU shared VM and memif, not a NIC.**\n" %
                 (self.date, self.git_head, max(1, round(self.elapsed / 60)), rel, rel))
        L.append("## Headline\n")
        L += [x + "\n" for x in self.headline()]
        if self.failures:
            L.append("**Failures in this run:**\n")
            L += ["* %s" % x.splitlines()[0] for x in self.failures]
            L.append("")
        L.append("## Throughput: NDR over memif\n")
        lb = self.loopback
        L.append("NDR: the highest offered rate whose loss stays at or below %g%% "
                 "(`lanefwd-gen --search`, %g s trials, %g%% precision). The search starts "
                 "unpaced: when that first trial passes, the forwarder kept up with all the "
                 "generator could send through memif and the NDR is **generator-bound** "
                 "(the forwarder's capacity is higher). The generator's own ceiling, a ring "
                 "port looped back on itself (`--loopback --rate max`, no memif, no "
                 "forwarder): **%.2f Mpps** (end-to-end p50 %s µs, p99.99 %s µs).\n" %
                 (a.ndr_loss, a.trial, a.precision, lb["rx_pps"] / 1e6,
                  self.fmt_us(lb["latency"]["p50_ns"]), self.fmt_us(lb["latency"]["p99_99_ns"])))
        L.append("| forwarder | NDR Mpps | x l3fwd | unpaced first trial Mpps (loss) | "
                 "generator-bound | trials | cpu fwd / gen during the search |")
        L.append("|---|---:|---:|---:|---|---:|---:|")
        l3 = self.fwd("l3fwd")
        for f in self.fwds:
            s = f.search
            if not s:
                L.append("| %s | FAILED | | | | | |" % f.label)
                continue
            first = s["trials"][0] if s["trials"] else {}
            L.append("| %s%s | %.3f | %s | %.3f (%.4f%%) | %s | %d | %.2f / %.2f |" % (
                f.label, self.mark(s), s["ndr_pps"] / 1e6,
                self.ratio(s["ndr_pps"], l3.search["ndr_pps"]) if l3 and l3.search else "-",
                (s["unpaced_pps"] or 0) / 1e6, first.get("loss_ratio", 0) * 100,
                "**yes**" if s["gen_bound"] else "no", len(s["trials"]), s["fwd_share"],
                s["gen_share"] or 0))
        L.append("")
        L.append("![NDR against burst](%s/ndr-vs-burst.png)\n" % rel)
        L.append("## Latency against burst\n")
        L.append("Offered loads: %s of the reference NDR (%s, %.3f Mpps), the same "
                 "absolute rates for every burst and for l3fwd. Each load is one generator "
                 "run: %g s of warm-up, then a %g s measured window. End to end: the "
                 "generator's stamp-to-receive latency (two memif hops, the forwarder, "
                 "the generator's own RX poll). Residence: lanefwd's "
                 "`/lanefwd/latency` (RX burst return to TX hand-over) since a "
                 "`/lanefwd/latency_reset` at the start of the window. Percentiles in µs. "
                 "cpu fwd / gen: share of the window the forwarding thread / the "
                 "generator had a CPU; (c) marks a contended window (either below %.2f).\n" %
                 (", ".join("%d%%" % p for p, _ in self.loads), self.ref_ndr[0],
                  self.ref_ndr[1] / 1e6, a.warmup, a.window, a.min_share))
        for pct, pps in self.loads:
            L.append("### %d%% load: %.3f Mpps offered\n" % (pct, pps / 1e6))
            L.append("| forwarder | Mpps rx | loss | e2e p50 | e2e p99 | e2e p99.9 | "
                     "e2e p99.99 | res p50 | res p99 | res p99.9 | res p99.99 | "
                     "pkts / busy poll | cpu fwd / gen |")
            L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            for f in self.fwds:
                r = self.run_at(f.key, pct)
                if not r:
                    L.append("| %s | FAILED |" % f.label + " |" * 11)
                    continue
                L.append("| %s%s | %.3f | %d | %s | %s | %s | %.2f / %.2f |" % (
                    f.label, self.mark(r), r["rx_pps"] / 1e6, r["loss"],
                    " | ".join(self.pct_cells(r["e2e"])),
                    " | ".join(self.pct_cells(r.get("res"))),
                    "%.1f" % r["pkts_per_poll"] if "pkts_per_poll" in r else "-",
                    r["fwd_share"], r["gen_share"]))
            L.append("")
        L.append("![p99.99 against burst](%s/p9999-vs-burst.png)\n" % rel)
        L.append("![percentiles at %d%% load](%s/percentiles-%d.png)\n" % (hi, rel, hi))
        L.append("## lanefwd against l3fwd at equal load\n")
        if l3 and l3.runs and self.fwd("lf32") and self.fwd("lf32").runs:
            L.append("lanefwd at its default burst 32 against l3fwd, whose burst is fixed "
                     "at 32 (`MAX_PKT_BURST` in l3fwd.h; 22.11's l3fwd has no burst "
                     "option). Ratio = lanefwd / l3fwd of the generator's end-to-end "
                     "figures (l3fwd has no residence histogram).\n")
            L.append("| load | p50 | p99 | p99.9 | p99.99 | contended |")
            L.append("|---|---:|---:|---:|---:|---|")
            for pct, _ in self.loads:
                x, y = self.run_at("lf32", pct), self.run_at("l3fwd", pct)
                if x and y:
                    L.append("| %d%% | %s |" % (pct, " | ".join(
                        self.ratio(x["e2e"][k], y["e2e"][k]) for _, k in PCTS)) +
                        " %s |" % ("yes" if x["contended"] or y["contended"] else "no"))
            L.append("")
        else:
            L.append("No comparison: lanefwd burst 32 or l3fwd did not run.\n")
        L.append("## What the figures can and cannot say\n")
        L += self.discussion()
        L.append("## Machine\n")
        L.append("| | |\n|---|---|")
        for k, v in self.machine_rows:
            L.append("| %s | %s |" % (k, v.replace("|", "/")))
        L.append("")
        L.append("## Harness and commands\n")
        L.append("* Ports: two memif interfaces per forwarder, `net_memif0` (a, ethdev 0) and "
                 "`net_memif1` (b, ethdev 1), the forwarder in the server role, lanefwd-gen "
                 "the client (`rsize=12`: 4096-slot rings). memif copies every frame between "
                 "the mbuf and the shared ring on both sides.")
        L.append("* CPUs: lanefwd-gen sends and receives on lcore %d (CPU %d), one "
                 "run-to-completion loop. The forwarder polls both ports from one lcore on "
                 "CPU %d. lanefwd's main lcore (control thread, telemetry) is CPU %d. "
                 "l3fwd runs with `-l %d` (it opens one TX queue per lcore and the memif "
                 "client has one ring per direction), so its EAL control threads go to "
                 "CPU %d. The benchmark driver and the telemetry client are pinned to "
                 "CPU %d." % (GEN_CPU, GEN_CPU, FWD_CPU, GEN_CPU, FWD_CPU, GEN_CPU, GEN_CPU))
        L.append("* Traffic: 64-byte UDP/IPv4 frames (with FCS), %d flows (uniform), to "
                 "198.18.1.1-254, which both forwarders route out of port b (l3fwd's "
                 "built-in 198.18.1.0/24 route; lanefwd gets l3fwd's routes and "
                 "destination MACs)." % a.flows)
        L.append("* Each generator invocation (the NDR search, each load, each retry) "
                 "runs against a fresh forwarder process, started for it and stopped "
                 "(SIGINT) after it. lanefwd's figures are read while the generator is "
                 "still connected (it drains %g s after its window). Before each "
                 "invocation the script waits up to %g s for other processes to leave "
                 "both CPUs (below 15%% busy each). Each forwarder configuration's runs "
                 "hold `%s` (flock), so no other benchmark that takes the lock ran "
                 "meanwhile; other users' builds and tests could, and the tables say "
                 "when they did." % (DRAIN, a.max_wait, a.lock or "no lock"))
        crashes = [(f, c) for f in self.fwds for c in f.crashes]
        if crashes:
            L.append("* **The memif PMD crashed the forwarder at a disconnect %d time(s)** "
                     "(after the generator had exited and every figure of the run had "
                     "been read): %s. The kernel's line points into "
                     "`librte_net_memif.so` in the forwarding thread: a client "
                     "disconnecting while the server polls its rings. This is why every "
                     "invocation gets a fresh forwarder." % (len(crashes), "; ".join(
                         "%s after its %s: `%s`" % (f.label, c["after"],
                                                   (c["dmesg"] or "no dmesg line")
                                                   .split("] ", 1)[-1])
                         for f, c in crashes)))
        L.append("")
        L.append("Run from the repository root (`$T` is the script's temporary directory, "
                 "`PREFIX`/`GPREFIX` unique EAL file prefixes):\n")
        L.append("```sh")
        L += self.commands
        for f in self.fwds:
            if f.cmd_shown is None:
                continue
            L.append("# %s: for each command below, start the forwarder, run it, stop the "
                     "forwarder (kill -INT PID)" % f.label)
            if f.kind == "lanefwd":
                L.append("$T/lanefwd -c $T/PREFIX.ini   # the configuration below, "
                         "burst = %d" % f.burst)
            else:
                L.append(f.cmd_shown)
            for r in ([f.search] if f.search else []) + self.best_runs(f):
                if "cmd" in r:
                    L.append(r["cmd"])
        L.append("# lanefwd only, per load, with one connection of the stock client:")
        L.append("dpdk-telemetry.py -f PREFIX   # reads from stdin: /lanefwd/latency until "
                 "its interval changes, /lanefwd/latency_reset and /lanefwd/workers,%d at "
                 "the start of the window; /lanefwd/workers,%d at its end; "
                 "/lanefwd/latency 2.2 s after the generator exits" % (FWD_CPU, FWD_CPU))
        L.append("```\n")
        lf = next((f for f in self.fwds if f.conf_shown), None)
        if lf:
            L.append("lanefwd configuration (%s; the other bursts differ only in `burst`):\n"
                     % lf.label)
            L.append("```ini")
            L.append(lf.conf_shown.rstrip())
            L.append("```\n")
        L.append("## Every run\n")
        L.append("Retries included: a window that was contended, or lost packets at the "
                 "%d%% load, was rerun up to %d time(s) and the last attempt is the one in "
                 "the tables above. cpu share: time on a CPU / window "
                 "(`/proc/PID/task/TID/schedstat` of the busiest thread); wait: time "
                 "runnable while another thread had the CPU; load: 1-minute load average "
                 "at the end of the window; other processes: each CPU's busy time in "
                 "`/proc/stat` minus our threads' (so it counts compilers that started "
                 "and ended inside the window), then the busiest other processes alive "
                 "at both ends.\n" % (lo, a.retries))
        L.append("| forwarder | load | try | offered Mpps | rx Mpps | loss | e2e p99.99 | "
                 "res p99.99 | cpu fwd | wait fwd | cpu gen | wait gen | load | "
                 "contended | other processes |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
        for f in self.fwds:
            for r in f.runs:
                L.append("| %s | %d%% | %d | %.3f | %.3f | %d | %s | %s | %.2f | %.2f | "
                         "%.2f | %.2f | %.2f | %s | %s |" % (
                             f.label, r["pct"], r["attempt"], r["offered"] / 1e6,
                             r["rx_pps"] / 1e6, r["loss"], self.fmt_us(r["e2e"]["p99_99_ns"]),
                             self.fmt_us(r["res"]["p99_99_ns"]) if "res" in r else "-",
                             r["fwd_share"], r["fwd_wait"], r["gen_share"], r["gen_wait"],
                             r["loadavg"], "yes" if r["contended"] else "no",
                             who(r)))
        L.append("")
        L.append("NDR searches (every attempt; offered Mpps, loss %, pass per trial):\n")
        for f in self.fwds:
            for s in f.searches:
                L.append("* %s, try %d (cpu fwd %.2f, gen %.2f%s): %s" % (
                    f.label, s["attempt"], s["fwd_share"], s["gen_share"] or 0,
                    "; contended: " + who(s) if s["contended"] else "",
                    ", ".join("%.3f %.4f%% %s" % (t["tx_pps"] / 1e6, t["loss_ratio"] * 100,
                                                  "pass" if t["pass"] else "fail")
                              for t in s["trials"])))
        L.append("")
        with open(path, "w") as fh:
            fh.write("\n".join(L))
        log("wrote %s" % path)

    def clean(self, s):
        s = re.sub(re.escape(self.tag) + r"_\d+_g\b", "GPREFIX", s)
        s = re.sub(re.escape(self.tag) + r"_\d+_[a-z0-9]+", "PREFIX", s)
        return s.replace(self.tmp, "$T").replace("GENPREFIX", "GPREFIX")

    def discussion(self):
        a = self.a
        runs = [r for f in self.fwds for r in self.best_runs(f)]
        cont = [r for r in runs if r["contended"]]
        L = []
        L.append("* **A 2-vCPU shared VM, not a NIC.** The generator and the forwarder "
                 "each busy-poll one vCPU; both vCPUs are also the machine's only CPUs for "
                 "everything else (the forwarder's control thread, this script, other "
                 "users' builds and tests). Every frame is copied twice per memif hop. "
                 "Absolute Mpps and µs are this harness's, not what lanefwd does on an "
                 "E810; the comparison between bursts and against l3fwd on the same "
                 "harness, run minutes apart, is the point.")
        L.append("* **Beyond p99, the scheduler.** A forwarder or generator descheduled "
                 "for one time slice (milliseconds) holds every packet in flight for that "
                 "long. At 1 Mpps a 4 ms gap is 4,000 packets, 0.02%% of a %g s window: "
                 "enough to set p99.9 and p99.99 by itself. %d of %d windows in the "
                 "tables were contended (a CPU share below %.2f); their tails say more "
                 "about the machine than about the forwarder. Residence (lanefwd's own "
                 "histogram) is measured inside the forwarding loop and is hit only "
                 "when the worker itself is preempted mid-burst; end to end is hit by "
                 "either process." % (a.window, len(cont), len(runs), a.min_share))
        gb = [f.label for f in self.fwds if f.search and f.search["gen_bound"]]
        if gb:
            L.append("* **Generator-bound NDR:** %s. There the NDR is what lanefwd-gen "
                     "sends and receives through two memif ports on one lcore (compare its "
                     "%.2f Mpps ceiling on a ring port), and the forwarder's capacity is "
                     "higher; the loads derived from it are still equal for all "
                     "configurations." % (", ".join(gb), self.loopback["rx_pps"] / 1e6))
        else:
            L.append("* **Not generator-bound:** every search's unpaced first trial lost "
                     "packets, so each NDR is below what the generator sent unpaced; on "
                     "this machine that loss can be a descheduled forwarder as much as its "
                     "capacity (see the cpu share during the search).")
        ref = self.fwds[0] if self.fwds and self.fwds[0].search else None
        if ref and ref.search["gen_bound"]:
            L.append("* **The reference NDR is the generator's limit**, so the %d%% load "
                     "runs lanefwd-gen itself at about %d%% of what it can send and "
                     "receive on its one lcore. Its RX poll shares a loop with TX, so at "
                     "that load a packet can wait in the memif ring while the generator "
                     "builds and sends a burst: the end-to-end figures then include the "
                     "generator's own queueing, and loss there can be the generator's. "
                     "lanefwd's residence histogram is the forwarder-only figure; l3fwd "
                     "has none, so the lanefwd/l3fwd ratios at that load compare two "
                     "runs of the same saturated generator." % (max(a.loads), max(a.loads)))
        L.append("* **Head-of-line blocking is a property of full bursts.** At a load the "
                 "forwarder handles easily most polls return a few packets (pkts / busy "
                 "poll), whatever the configured burst: a larger burst changes only what "
                 "happens when a backlog has built up (after a scheduler gap, or near "
                 "the NDR), when the first packet of a burst waits for the whole burst. "
                 "That is where seed 002's p99.99 came from, and why the difference "
                 "between bursts shows at the high load and in the deepest percentiles "
                 "first.")
        L.append("* **What is not measured here:** a NIC's descriptor rings and DMA, "
                 "interrupt moderation, several workers, IMIX. One repetition per point "
                 "(`--reps` does not exist: rerun the script for a second sample).")
        L.append("")
        return L

    def machine(self):
        rows = bench.Bench.machine(self)
        fixed = []
        for k, v in rows:
            if k == "lanefwd":
                v = "%s, git %s%s, build/lanefwd and build/lanefwd-gen as built by " \
                    "bench/bench-latency.sh (meson release)" % (
                        self.lf_version, self.git_head,
                        " with uncommitted changes in src/include" if self.git_dirty else "")
            if k == "Build":
                v = v.replace("; testpmd and the DPDK libraries", "; the DPDK libraries")
            fixed.append((k, v))
        return fixed

    def cleanup(self):
        self.gen_kill()
        self.stop()
        if not self.a.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            log("kept %s" % self.tmp)


def main():
    ap = argparse.ArgumentParser(
        description="lanefwd burst size against tail latency, with DPDK l3fwd, over memif "
        "with lanefwd-gen; writes docs/benchmarks-latency.md")
    ap.add_argument("--quick", action="store_true",
                    help="bursts 32 and 128 and l3fwd, 2 s windows, 1 s trials, no retries, "
                    "docs not written: iteration")
    ap.add_argument("--bursts", help="lanefwd bursts, comma-separated (default "
                    "8,16,32,64,128,256; 32 is always run, first: the reference NDR)")
    ap.add_argument("--loads", default="50,90",
                    help="offered loads, percent of the reference NDR (default 50,90)")
    ap.add_argument("--window", type=float, help="measured seconds per load (default 5)")
    ap.add_argument("--warmup", type=float, help="warm-up seconds per load (default 1)")
    ap.add_argument("--trial", type=float, help="seconds per NDR trial (default 2)")
    ap.add_argument("--ndr-loss", type=float, default=0.001,
                    help="loss allowed in a passing NDR trial, percent (default 0.001)")
    ap.add_argument("--precision", type=float, default=5,
                    help="NDR search precision, percent (default 5)")
    ap.add_argument("--flows", type=int, default=1024)
    ap.add_argument("--min-share", type=float, default=0.90,
                    help="least share of a window the forwarding thread and the generator "
                    "must each have a CPU, else the window is contended (default 0.90)")
    ap.add_argument("--retries", type=int,
                    help="reruns of a contended window or of loss at the lowest load "
                    "(default 1)")
    ap.add_argument("--max-wait", type=float,
                    help="longest wait for quiet CPUs before each search and load, s "
                    "(default 10)")
    ap.add_argument("--no-l3fwd", dest="l3fwd", action="store_false")
    ap.add_argument("--lock", default=LOCK, help="flock file held around each forwarder's "
                    "runs (default %s; '' for none)" % LOCK)
    ap.add_argument("--doc", help="write the report here (default docs/benchmarks-latency.md,"
                    " not with --quick)")
    ap.add_argument("--no-doc", action="store_true")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--report", metavar="RESULTS_JSON",
                    help="run nothing: rewrite the report (--doc, default "
                    "docs/benchmarks-latency.md) and its plots from a results.json")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--lanefwd", default=os.path.join(ROOT, "build", "lanefwd"))
    ap.add_argument("--lanefwd-gen", default=os.path.join(ROOT, "build", "lanefwd-gen"))
    a = ap.parse_args()
    if a.report:
        b = LatBench.from_json(a.report)
        doc = a.doc or os.path.join(ROOT, "docs", "benchmarks-latency.md")
        outdir = os.path.splitext(doc)[0]
        os.makedirs(outdir, exist_ok=True)
        b.plots(outdir)
        if os.path.realpath(a.report) != os.path.realpath(os.path.join(outdir,
                                                                         "results.json")):
            shutil.copy(a.report, os.path.join(outdir, "results.json"))
        b.write_doc(doc, None)
        return 0
    argv_shown = "bench/bench-latency.sh" + ("" if len(sys.argv) == 1 else " " +
                                                 quote(sys.argv[1:]))
    if a.quick:
        a.bursts = a.bursts or "32,128"
        a.window = a.window or 2.0
        a.warmup = a.warmup or 0.5
        a.trial = a.trial or 1.0
        a.retries = a.retries if a.retries is not None else 0
        a.max_wait = a.max_wait if a.max_wait is not None else 3
    a.bursts = [int(x) for x in (a.bursts or "8,16,32,64,128,256").split(",")]
    a.bursts = [32] + sorted(b for b in set(a.bursts) if b != 32)
    a.loads = sorted(int(x) for x in a.loads.split(","))
    a.window = a.window or 5.0
    a.warmup = a.warmup if a.warmup is not None else 1.0
    a.trial = a.trial or 2.0
    a.retries = a.retries if a.retries is not None else 1
    a.max_wait = a.max_wait if a.max_wait is not None else 10
    # profile/main_only/flows are read by bench.Bench
    a.profile, a.main_only = False, True
    doc = None
    if not a.no_doc and (a.doc or not a.quick):
        doc = a.doc or os.path.join(ROOT, "docs", "benchmarks-latency.md")
    if os.geteuid() != 0:
        sys.exit("bench-latency: run as root (hugepages, vdevs)")
    for p in (a.lanefwd, a.lanefwd_gen):
        if not os.access(p, os.X_OK):
            sys.exit("bench-latency: %s not built (ninja -C build)" % p)
    if os.cpu_count() < 2:
        sys.exit("bench-latency: needs 2 CPUs (generator on 0, forwarder on 1)")

    os.chdir(ROOT)
    b = LatBench(a)
    b.command = argv_shown
    t0 = time.monotonic()

    def on_signal(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    try:
        try:
            b.setup()
            b.run_all()
        except Fail as e:
            b.failures.append(str(e))
            log("FAILED: %s" % e)
        b.elapsed = time.monotonic() - t0
        b.tsc_hz, b.tsc_src = b.tsc()
        b.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        b.print_summary()
        b.finalize()
        res = b.results_json()
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
        if doc and b.loads and not b.failures:
            outdir = os.path.splitext(doc)[0]      # docs/benchmarks-latency/
            os.makedirs(outdir, exist_ok=True)
            files = b.plots(outdir)
            with open(os.path.join(outdir, "results.json"), "w") as f:
                json.dump(res, f, indent=1)
                f.write("\n")
            b.write_doc(doc, files)
        elif doc:
            log("bench-latency: %s not written (failures above)" % doc)
    except KeyboardInterrupt:
        log("bench-latency: interrupted")
        return 130
    finally:
        b.cleanup()
    if b.failures:
        log("bench-latency: FAILED:\n  " + "\n  ".join(x.splitlines()[0] for x in b.failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
