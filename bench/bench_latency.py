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

Configurations: lanefwd at each burst (and burst = auto when lanefwd
--check-config takes it), then l3fwd.
  1. throughput: --searches MLRsearches per configuration (bench/mlrsearch.py:
     NDR and PDR together, phases of growing trial duration, the final rates
     repeated), interleaved round robin across configurations; each search
     is one fresh forwarder and one lanefwd-gen --trials process, and every
     trial is classified pass / fail / invalid from its loss, the
     generator's refused TX (backpressure: the forwarder's limit) and the
     CPU time both processes had during it (/proc/PID/task/TID/schedstat);
     invalid trials are re-run. Reported: median and min-max per goal;
  2. offered loads: --loads percent of the reference NDR (lanefwd at burst
     32, its median), the same absolute rates for every configuration; one
     generator run per load: --warmup s, then a --window s measured window.
     lanefwd's /lanefwd/latency is reset right after a histogram collection
     at the start of the window and read after the run, so its since-reset
     percentiles cover the window (and at most the few ms of warm-up between
     the collection and the reset);
  3. during each window: the CPU time of the forwarding thread and of the
     generator; a window in which either had a CPU less than --min-share of
     the time is marked contended.

Each search and each forwarder's latency runs hold /tmp/lanefwd-bench.lock
(flock), so that only one benchmark runs at a time on the machine. Exit
status 1 when any run fails, lanefwd at burst 32 has no complete search, or
the generator loses more than --pdr-loss percent at the lowest load (after
--retries reruns).
"""
import argparse
import datetime
import fcntl
import glob
import json
import os
import re
import shlex
import statistics
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (bench/bench.py: telemetry client, l3fwd build, machine)
import mlrsearch  # noqa: E402  (bench/mlrsearch.py: the throughput search)
from bench import COMMANDS, Telemetry, busiest, log, out, thread_times  # noqa: E402

ROOT = bench.ROOT
GEN_CPU = 0          # generator lcore; the forwarders' main lcore / control threads
FWD_CPU = 1          # the forwarding lcore
LOCK = "/tmp/lanefwd-bench.lock"
DST_IP = "198.18.1.1"     # l3fwd's built-in 198.18.1.0/24 -> port 1
# The forwarders' memif port a MAC (set with the PMD's mac= devarg): lanefwd's
# ports are routed, not promiscuous, and drop unicast frames to another MAC
# (l2_not_ours), so the generator sends to this one.
PORT_A_MAC = "02:00:00:00:aa:0a"
SETTINGS = ("window", "warmup", "ndr_loss", "pdr_loss", "flows", "min_share", "max_wait_ms",
            "search_rsize", "search_budget", "max_invalid",
            "retries",
            "max_wait", "bursts", "loads", "lock", "searches", "durations", "widths",
            "initial", "final_trials", "trial_warmup", "trial_drain", "auto")
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
        self.searches = []     # every MLRsearch (bench/mlrsearch.py summaries)
        self.crashes = []      # SIGSEGV after the generator disconnected
        self.runs = []         # every load run, retries included
        self.cmd = None        # argv as run (the last instance)
        self.conf = None       # lanefwd configuration text
        self.error = None


class TrialServer:
    """lanefwd-gen --trials: one process, one memif connection, for a whole
    search; a trial is a "RATE DURATION" line in, a JSON line out."""

    def __init__(self, argv, logpath):
        self.log = open(logpath, "wb")
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, preexec_fn=set_affinity_all)
        self.buf = b""

    def line(self, timeout):
        try:
            line, self.buf = bench.read_line(self.p.stdout, self.buf, timeout, self.log.write)
        except RuntimeError as e:
            raise Fail("lanefwd-gen --trials: %s (status %s)" % (e, self.p.poll()))
        self.log.flush()
        return line

    def ready(self, timeout=40):
        while "--trials: ready" not in self.line(timeout):
            pass

    def trial(self, pps, duration, timeout):
        self.p.stdin.write(b"%d %g\n" % (pps, duration))
        self.p.stdin.flush()
        while True:
            ln = self.line(timeout)
            if ln.startswith("{"):
                j = json.loads(ln)
                if "error" in j:
                    raise Fail("lanefwd-gen --trials: %s" % j["error"])
                return j

    def close(self, timeout=20):
        """End of input; the generator lingers until the forwarder closes the links."""
        try:
            self.p.stdin.close()
        except OSError:
            pass

    def wait(self, timeout):
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.send_signal(signal.SIGINT)     # its own pid only
            try:
                rc = self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                rc = self.p.wait()
        try:
            rest = os.read(self.p.stdout.fileno(), 65536)
            self.log.write(rest)
        except OSError:
            pass
        self.log.close()
        return rc


def med_iv(xs):
    """(median, min, max, q1, q3) of a list, None when empty."""
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    if len(xs) >= 4:
        q = statistics.quantiles(xs, n=4, method="inclusive")
        q1, q3 = q[0], q[2]
    else:
        q1, q3 = xs[0], xs[-1]
    return statistics.median(xs), xs[0], xs[-1], q1, q3


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
        self.ctrl_moved_logged = False
        self.stall_check = True    # judge failed trials by lanefwd's stalls

    # ---------------------------------------------------------------- setup
    def snapshot(self, record=True):
        """Pin this process to the generator's CPU and copy the binaries into
        the temporary directory (a rebuild during the run changes nothing);
        their version and the tree's git state for the report."""
        a = self.a
        os.sched_setaffinity(0, {GEN_CPU})
        for name in ("lanefwd", "lanefwd-gen"):
            shutil.copy2(getattr(a, name.replace("-", "_")), os.path.join(self.tmp, name))
            if record:
                COMMANDS.append("cp build/%s %s/%s   # snapshot of the binary" %
                                (name, self.tmp, name))
        self.lanefwd = os.path.join(self.tmp, "lanefwd")
        self.gen = os.path.join(self.tmp, "lanefwd-gen")
        self.lf_version = out("%s -V" % shlex.quote(self.lanefwd))
        self.git_head = out("git -C %s rev-parse --short HEAD" % shlex.quote(ROOT))
        self.git_dirty = bool(out("git -C %s status --porcelain -- src include meson.build"
                                  % shlex.quote(ROOT)))

    def setup(self):
        a = self.a
        self.snapshot()
        with open(os.path.join(self.tmp, "routes4.txt"), "w") as f:
            f.write("# l3fwd 22.11 ipv4_l3fwd_route_array, ports 0-1\n"
                    "198.18.0.0/24 0\n198.18.1.0/24 1\n")
        self.fwds = [Fwd("lf%d" % b, "lanefwd burst %d" % b, "lanefwd", b)
                     for b in a.bursts]
        a.auto = self.auto_supported() if a.auto is None else a.auto
        log("lanefwd [pipeline] burst = auto: %s" % (
            "accepted by --check-config, benchmarked" if a.auto else "not accepted by this "
            "lanefwd's --check-config (the adaptive burst is not in this build): skipped"))
        if a.auto:
            self.fwds.append(Fwd("lfauto", "lanefwd burst auto", "lanefwd", "auto"))
        if a.l3fwd:
            self.build_l3fwd()
            self.fwds.append(Fwd("l3fwd", "DPDK l3fwd (LPM, burst 32)", "l3fwd", 32))

    def auto_supported(self):
        """Whether this lanefwd takes [pipeline] burst = auto (the adaptive
        burst of issue 16, on its own branch): ask --check-config."""
        f = Fwd("probe", "probe", "lanefwd", "auto")
        prefix = "%s_probe" % self.tag
        conf = os.path.join(self.tmp, "%s.ini" % prefix)
        socks = [os.path.join(self.tmp, "%s.%s.sock" % (prefix, x)) for x in "ab"]
        with open(conf, "w") as fh:
            fh.write(self.lanefwd_conf(f, prefix, socks))
        r = subprocess.run([self.lanefwd, "--check-config", "-c", conf], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        COMMANDS.append("%s --check-config -c $T/PREFIX.ini   # burst = auto accepted? "
                        "(exit %d)" % (self.lanefwd, r.returncode))
        return r.returncode == 0

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
vdev = net_memif0,role=server,socket={a},socket-abstract=no,mac={amac}

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
           r4=os.path.join(self.tmp, "routes4.txt"), a=socks[0], b=socks[1], cpu=FWD_CPU,
           amac=PORT_A_MAC)

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
                   "--vdev", "net_memif0,role=server,socket=%s,socket-abstract=no,mac=%s" % (
                       socks[0], PORT_A_MAC),
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
        self.ctrl_to_fwd_cpu(p.pid, f)
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
            if info is None or (f.burst != "auto" and info.get("burst") != f.burst):
                raise Fail("%s: /lanefwd/info says %s" % (f.label, info))
            if self.lf_info is None:
                self.lf_info = info
        return p, prefix, socks, logpath, tel

    def ctrl_to_fwd_cpu(self, pid, f):
        """Move the forwarder's threads other than its forwarding one to the
        forwarding CPU. EAL puts control threads on the main lcore's CPU, the
        generator's here: lanefwd's lf-neigh alone wakes ~7,000 times a second
        and took 10-20% of that CPU, which capped the generator (and so every
        generator-bound NDR) about 30% below what it reaches against l3fwd.
        The forwarder's control plane is its own cost: it runs on its core."""
        moved = []
        for d in glob.glob("/proc/%d/task/*" % pid):
            tid = int(os.path.basename(d))
            try:
                with open(d + "/comm") as fh:
                    comm = fh.read().strip()
                # lanefwd forwards on rte-worker-N; l3fwd (-l 1) on its main thread.
                if comm.startswith("rte-worker") or (f.kind == "l3fwd" and tid == pid):
                    continue
                os.sched_setaffinity(tid, {FWD_CPU})
                moved.append(comm)
            except OSError:
                pass
        if not self.ctrl_moved_logged:
            COMMANDS.append("taskset -p -c %d TID   # each forwarder thread but the forwarding "
                            "one, once it runs (%s)" % (FWD_CPU, ", ".join(sorted(set(moved)))))
            self.ctrl_moved_logged = True
        return moved

    def gen_argv(self, prefix, socks, opts, rsize=12):
        return [self.gen, "-l", str(GEN_CPU), "--no-pci", "--file-prefix", prefix,
                "--vdev", "net_memif0,role=client,socket=%s,socket-abstract=no,rsize=%d" % (
                    socks[0], rsize),
                "--vdev", "net_memif1,role=client,socket=%s,socket-abstract=no,rsize=%d" % (
                    socks[1], rsize),
                "--", "--dst-mac", PORT_A_MAC, "--dst-ip", DST_IP, "--dst-ips", "254",
                "--flows", str(self.a.flows),
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

    def search_params(self):
        a = self.a
        return dict(goals=[mlrsearch.Goal("NDR", a.ndr_loss / 100.0),
                           mlrsearch.Goal("PDR", a.pdr_loss / 100.0)],
                    min_share=a.min_share, max_wait_ms=a.max_wait_ms, max_invalid=a.max_invalid,
                    durations=a.durations, widths=a.widths,
                    initial_duration=a.initial, final_trials=a.final_trials)

    def run_mlr(self, f, rep):
        """One MLRsearch against a fresh forwarder, through one lanefwd-gen
        --trials process: the per-trial CPU shares of the forwarding thread and
        of the generator (schedstat) classify each trial (bench/mlrsearch.py)."""
        a = self.a
        p, prefix, socks, logpath, tel = self.start_fwd(f)
        pid = p.pid
        opts = ["--trials", "--warmup", "%g" % a.trial_warmup, "--drain", "%g" % a.trial_drain,
                "--ndr-loss", "%g" % a.ndr_loss, "--linger", "20"]
        argv = self.gen_argv("GENPREFIX", socks, opts, a.search_rsize)
        self.seq += 1
        gprefix = "%s_%d_g" % (self.tag, self.seq)
        argv = [c.replace("GENPREFIX", gprefix) for c in argv]
        srv = None
        t_start = time.monotonic()
        waits = []

        def measure(load, duration):
            last = search.trials[-1] if search.trials else None
            if last is not None and not last["valid"]:
                # The last trial was invalid: give the machine a moment.
                waits.append(self.wait_quiet(self.ours(pid, tel) | {srv.p.pid},
                                             min(3.0, a.max_wait)))
            c0 = tel.query("/lanefwd/workers,%d" % FWD_CPU)[0] if tel else None
            f0, g0, o0 = thread_times(pid), thread_times(srv.p.pid), snapshot()
            m0 = time.monotonic()
            j = srv.trial(load or 0, duration, duration + a.trial_warmup + a.trial_drain + 30)
            m1 = time.monotonic()
            f1, g1, o1 = thread_times(pid), thread_times(srv.p.pid), snapshot()
            c1 = tel.query("/lanefwd/workers,%d" % FWD_CPU)[0] if tel else None
            t = {k: j[k] for k in ("target_pps", "duration_s", "tx", "rx", "loss", "loss_ratio",
                                   "tx_refused", "tx_refused_calls", "refused_ratio",
                                   "tx_lag_mean_ns", "tx_lag_max_ns", "tx_pps", "rx_pps",
                                   "reorder", "dup", "tx_unsent", "tx_alloc_fail")}
            t["e2e"] = {k: j["latency"][k] for k in ("p50_ns", "p99_ns", "p99_99_ns", "max_ns")}
            win = m1 - m0
            ftid, t["fwd_share"], t["fwd_wait"], _ = busiest(f0, f1, win)
            _, t["gen_share_raw"], t["gen_wait"], _ = busiest(g0, g1, win)
            # The forwarder's own control threads (lanefwd's main lcore and
            # lf-neigh) share CPU 0 with the generator on this 2-CPU machine:
            # what they take is the SUT's cost, not the machine's noise, so
            # it does not make a trial invalid.
            t["sut_ctrl_share"] = sum(
                max(0, f1[tid][0] - f0[tid][0]) for tid in f1
                if tid != ftid and tid in f0 and f1[tid][2] == GEN_CPU) / 1e9 / win
            t["gen_share"] = min(1.0, t["gen_share_raw"] + t["sut_ctrl_share"])
            # The same on the forwarding CPU, where ctrl_to_fwd_cpu put them:
            # the forwarder's own control plane is its cost, not noise.
            t["sut_own_share"] = sum(
                max(0, f1[tid][0] - f0[tid][0]) for tid in f1
                if tid != ftid and tid in f0 and f1[tid][2] == FWD_CPU) / 1e9 / win
            t["fwd_share_raw"] = t["fwd_share"]
            t["fwd_share"] = min(1.0, t["fwd_share"] + t["sut_own_share"])
            # Runqueue waits in ms; the generator's net of what the
            # forwarder's own control threads took from it.
            t["fwd_wait_ms"] = max(0.0, t["fwd_wait"] - t["sut_own_share"]) * win * 1e3
            # Net of what the forwarder's own threads took (none once
            # ctrl_to_fwd_cpu moved them off the generator's CPU).
            t["gen_wait_ms"] = max(0.0, t["gen_wait"] - t["sut_ctrl_share"]) * win * 1e3
            t["window_s"] = win
            use, top = others(o0, o1, win, self.ours(pid, tel) | {srv.p.pid})
            t["others"] = {str(k): round(v, 3) for k, v in use.items()}
            t["contenders"] = top
            if c0 and c1:
                t["fwd_counters"] = {k: c1[k] - c0[k] for k in c1
                                     if isinstance(c1.get(k), int) and
                                     isinstance(c0.get(k), int) and c1[k] != c0[k]}
                t["tester_loss"] = t["fwd_counters"].get("drop_tx_full", 0)
                # lanefwd's stall counter (iterations over 1 ms), against
                # how long the memif RX ring holds this load.
                if self.stall_check and "stall_cycles" in c1 and j.get("tsc_hz") and load:
                    t["fwd_stall_ms"] = t["fwd_counters"].get("stall_cycles", 0) / \
                        j["tsc_hz"] * 1e3
                    t["ring_hold_ms"] = (1 << (a.search_rsize or 12)) / load * 1e3
            return t

        search = mlrsearch.Search(log=log, **self.search_params())
        try:
            self.wait_quiet(self.ours(pid, tel))
            srv = TrialServer(argv, os.path.join(self.tmp, "%s.trials.log" % gprefix))
            self.gen_live = (srv.p, gprefix)
            srv.ready()
            res = search.run(measure)
        except Fail as e:
            raise Fail("MLRsearch: %s\n%s" % (e, tail(os.path.join(self.tmp, "%s.trials.log"
                                                                  % gprefix))))
        finally:
            if tel:
                tel.close()
            if srv is not None:
                srv.close()
            # The forwarder goes first: the generator, lingering with its
            # links up, polls nothing, so the memif disconnect is harmless.
            rc = self.stop()
            if srv is not None:
                grc = srv.wait(30)
                self.gen_live = None
                shutil.rmtree(os.path.join(bench.RUNDIR, gprefix), ignore_errors=True)
        if rc not in (0, None):
            raise Fail("%s exited with status %s\n%s" % (f.label, rc, tail(logpath)))
        if grc != 0:
            log("  note: lanefwd-gen --trials exited with status %s" % grc)
        f.final = tail(logpath, 600)
        res.update(rep=rep, elapsed_s=time.monotonic() - t_start, argv=argv,
                   quiet_waits=len(waits))
        f.searches.append(res)
        r = res["results"]
        log("  %s search %d: %s; %d trials (%d invalid), %.0f s%s" % (
            f.label, rep, ", ".join("%s %.3f Mpps%s" % (
                k, (v["load"] or 0) / 1e6, " (at the highest load)" if v["at_max"] else "")
                for k, v in r.items()) or "no result", res["n_trials"], res["n_invalid"],
            res["elapsed_s"], "; INCOMPLETE: %s" % res["incomplete"] if res["incomplete"]
            else ""))
        return res

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

    def wait_quiet(self, exclude, max_wait=None):
        """Wait (up to max_wait, default --max-wait s) until other processes
        use less than 15% of each of CPUs 0 and 1; return what they used in
        the last 0.5 s."""
        max_wait = self.a.max_wait if max_wait is None else max_wait
        end = time.monotonic() + max_wait
        warned = False
        while True:
            t0 = snapshot()
            time.sleep(0.5)
            use, top = others(t0, snapshot(), 0.5, exclude)
            busy = max(use.get(GEN_CPU, 0.0), use.get(FWD_CPU, 0.0))
            if busy < 0.15 or time.monotonic() > end:
                return busy
            if not warned:
                log("  machine busy (%s); waiting up to %.0f s" % (", ".join(top), max_wait))
                warned = True

    def run_load(self, f, pid, tel, socks, pps, pct, attempt):
        a = self.a
        self.wait_quiet(self.ours(pid, tel))
        # --drain: the generator stays connected while lanefwd's histograms
        # are read (two collections after the last packet).
        opts = ["--rate", str(int(pps)), "--duration", "%g" % a.window,
                "--warmup", "%g" % a.warmup, "--drain", "%g" % DRAIN, "--linger", "20"]
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
        # The generator writes its result, then lingers with its links up
        # (--linger) until the forwarder has closed them: the forwarder goes
        # first, so the memif disconnect never happens under its polling.
        end = time.monotonic() + 60
        while not os.path.exists(js) and p.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.1)
        self.fwd_rc = self.stop()
        j = self.gen_finish(p, js, logpath, 40)
        r = j["result"]
        run.update(argv=argv, tx_pps=r["tx_pps"], rx_pps=r["rx_pps"], tx=r["tx"], rx=r["rx"],
                   loss=r["loss"], loss_ratio=r["loss_ratio"], reorder=r["reorder"],
                   e2e=r["latency"], window_s=m1 - m0)
        _, run["fwd_share"], run["fwd_wait"], run["fwd_cpu"] = busiest(f0, f1, m1 - m0)
        _, run["gen_share"], run["gen_wait"], run["gen_cpu"] = busiest(g0, g1, m1 - m0)
        # Every thread of the forwarder (its control plane included): what
        # the operator's core bill sees.
        run["fwd_total_share"] = sum(max(0, f1[t][0] - f0[t][0]) for t in f1
                                     if t in f0) / 1e9 / (m1 - m0)
        if tel:
            # The worker's counters over the window (rx-mode sleeps and
            # wakeups among them).
            run["worker"] = {k: w1[k] - w0[k] for k in w1 if isinstance(w1[k], int) and
                             isinstance(w0.get(k), int)}
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
        self.fwd_rc = None
        try:
            r = self.run_load(f, p.pid, tel, socks, *args)
            ok = True
        finally:
            if tel:
                tel.close()
            self.gen_kill()
            rc = self.stop()
            rc = self.fwd_rc if rc is None else rc
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

    def run_loads(self, f):
        a = self.a
        log("== %s: latency at %s" % (f.label, ", ".join("%d%%" % p for p, _ in self.loads)))
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

    def search_order(self, rep):
        """Round-robin, each round starting one configuration further on, so no
        configuration always runs first (right after the previous round's
        last) or always last."""
        n = len(self.fwds)
        return [self.fwds[(rep + i) % n] for i in range(n)]

    def run_all(self):
        a = self.a
        with BenchLock(a.lock):
            self.run_loopback()
        # 1. Throughput: --searches MLRsearches per configuration, interleaved.
        t0 = time.monotonic()
        self.skipped = []
        for rep in range(a.searches):
            log("== search round %d of %d" % (rep + 1, a.searches))
            for f in self.search_order(rep):
                if f.error:
                    continue
                if rep > 0 and time.monotonic() - t0 > a.search_budget * 60:
                    # A busy machine makes invalid trials, and re-running them
                    # takes time: past the budget, later rounds are cut short
                    # (the first always runs whole) and the report says so.
                    self.skipped.append((f.label, rep + 1))
                    continue
                try:
                    with BenchLock(a.lock):
                        self.run_mlr(f, rep + 1)
                except Fail as e:
                    f.error = str(e)
                    self.failures.append("%s: %s" % (f.label, e))
                    log("  FAILED: %s" % e)
        # 2. Latency at fractions of the reference NDR (lanefwd burst 32's median).
        ref = self.fwd("lf32")
        st = self.stat(ref, "NDR") if ref else None
        if not st or not st[0]:
            self.failures.append("no reference NDR (lanefwd burst 32 has no complete search)")
            return
        self.ref_ndr = (ref.label, st[0])
        self.loads = [(pct, st[0] * pct / 100.0) for pct in a.loads]
        for f in self.fwds:
            if f.error:
                continue
            try:
                with BenchLock(a.lock):
                    self.run_loads(f)
            except Fail as e:
                f.error = str(e)
                self.failures.append("%s: %s" % (f.label, e))
                log("  FAILED: %s" % e)
        for f in self.fwds:
            for r in self.best_runs(f):
                # Loss at the lowest load beyond the PDR ratio is a malfunction;
                # a few packets lost to a scheduling hiccup are shown, not failed.
                if r["pct"] == min(a.loads) and r["loss"] > r["tx"] * a.pdr_loss / 100.0:
                    self.failures.append("%s: loss %d of %d at %d%% load (%.3f Mpps)" %
                                         (f.label, r["loss"], r["tx"], r["pct"],
                                          r["offered"] / 1e6))

    def complete(self, f):
        return [s for s in f.searches if not s["incomplete"] and s["results"]]

    def stat(self, f, goal):
        """(median, min, max, q1, q3) of a goal's result over f's complete searches."""
        return med_iv([s["results"][goal]["load"] for s in self.complete(f)]) if f else None

    def gen_bound(self, f):
        """Searches whose NDR is the generator's limit: it ended at the highest
        load with an unpaced trial that lost nothing and was refused nothing,
        or its upper bound failed only by the generator falling behind."""
        return [s for s in self.complete(f) if s["results"]["NDR"].get("generator_limit") or
                (s["results"]["NDR"]["at_max"] and s["unpaced"] and
                 s["unpaced"]["class"]["NDR"] == "pass")]

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
            "skipped": getattr(self, "skipped", []),
            "settings": {k: getattr(self.a, k) for k in SETTINGS},
            "forwarders": [{"key": f.key, "label": f.label, "kind": f.kind, "burst": f.burst,
                            "error": f.error, "searches": f.searches, "runs": f.runs,
                            "crashes": f.crashes, "cmd": f.cmd_shown, "conf": f.conf_shown}
                           for f in self.fwds],
        }

    def set_report_inputs(self, a):
        """Earlier runs to compare with (--compare) and the findings text."""
        self.compare = [LatBench.from_json(c) for c in a.compare]
        self.compare_paths = a.compare
        self.findings = read_findings(a.findings)

    @classmethod
    def from_json(cls, path):
        """A report-only instance from a results.json (--report)."""
        with open(path) as fh:
            j = json.load(fh)
        b = cls.__new__(cls)
        b.a = argparse.Namespace(**j["settings"])
        for k in ("date", "command", "loopback", "ref_ndr", "loads", "failures", "commands"):
            setattr(b, k, j[k])
        b.skipped = j.get("skipped", [])
        b.git_head, b.elapsed, b.machine_rows = j["git"], j["elapsed_s"], j["machine"]
        b.fwds = []
        for x in j["forwarders"]:
            f = Fwd(x["key"], x["label"], x["kind"], x["burst"])
            f.error, f.searches, f.runs, f.crashes = x["error"], x["searches"], x["runs"], \
                x["crashes"]
            f.cmd_shown, f.conf_shown = x["cmd"], x["conf"]
            b.fwds.append(f)
        return b

    def print_summary(self):
        print("\n%-24s %-26s %-26s %9s | %s" % (
            "forwarder", "NDR Mpps median [min-max]", "PDR Mpps median [min-max]",
            "trials(inv)", "load: rx Mpps loss e2e p99/p99.99 us | res p99/p99.99 us | "
            "cpu fwd/gen"))
        for f in self.fwds:
            cells = []
            for g in ("NDR", "PDR"):
                st = self.stat(f, g)
                cells.append("%.3f [%.3f-%.3f] n=%d" % (st[0] / 1e6, st[1] / 1e6, st[2] / 1e6,
                                                         len(self.complete(f)))
                             if st else "-")
            head = "%-24s %-26s %-26s %9s" % (
                f.label, cells[0], cells[1], "%d(%d)" % (
                    sum(s["n_trials"] for s in f.searches),
                    sum(s["n_invalid"] for s in f.searches)))
            for r in self.best_runs(f):
                res = r.get("res")
                print("%s | %d%%: %.3f %d %.1f/%.1f | %s | %.2f/%.2f%s" % (
                    head, r["pct"], r["rx_pps"] / 1e6, r["loss"], r["e2e"]["p99_ns"] / 1e3,
                    r["e2e"]["p99_99_ns"] / 1e3,
                    "%.1f/%.1f" % (res["p99_ns"] / 1e3, res["p99_99_ns"] / 1e3) if res else "-",
                    r["fwd_share"], r["gen_share"], " contended" if r["contended"] else ""))
                head = " " * len(head)
            if not f.runs:
                print(head)
            if f.error:
                print("%s FAILED" % head)
        if self.failures:
            print("\nFAILURES:\n  " + "\n  ".join(x.splitlines()[0] for x in self.failures))

    # ------------------------------------------------------------- plots
    @staticmethod
    def xpos(f):
        """Where a configuration sits on a burst axis: burst = auto right of 256."""
        return f.burst if isinstance(f.burst, int) else 512

    def plots(self, outdir):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        lfs = [f for f in self.fwds if f.kind == "lanefwd" and (f.runs or f.searches)]
        l3 = self.fwd("l3fwd")
        ticks = [self.xpos(f) for f in lfs]
        ticklabels = [str(f.burst) for f in lfs]
        files = []
        colors = {min(self.a.loads): "tab:blue", max(self.a.loads): "tab:red"}
        if self.loads:
            # 1. p99.99 against burst, both loads, end to end and residence.
            fig, ax = plt.subplots(figsize=(8, 5))
            for pct, _ in self.loads:
                c = colors.get(pct, "tab:green")
                pts = [(self.xpos(f), self.run_at(f.key, pct)) for f in lfs]
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
            ax.set_xticks(ticks)
            ax.set_xticklabels(ticklabels)
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
        # 3. NDR and PDR against burst: median and min-max over the searches.
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for goal, color, off in (("NDR", "tab:blue", 0.97), ("PDR", "tab:orange", 1.03)):
            pts = [(self.xpos(f) * off, self.stat(f, goal)) for f in lfs]
            pts = [(x, st) for x, st in pts if st]
            if not pts:
                continue
            ax.errorbar([x for x, _ in pts], [st[0] / 1e6 for _, st in pts],
                        yerr=[[(st[0] - st[1]) / 1e6 for _, st in pts],
                              [(st[2] - st[0]) / 1e6 for _, st in pts]],
                        fmt="o", color=color, capsize=4,
                        label="lanefwd %s (median, min-max of %d searches)" % (goal,
                                                                                self.a.searches))
            for (x, st), f in zip(pts, lfs):
                for sr in self.complete(f):
                    ax.plot([x], [sr["results"][goal]["load"] / 1e6], ".", color=color,
                            alpha=0.35)
        st3 = self.stat(l3, "NDR") if l3 else None
        if st3:
            ax.axhspan(st3[1] / 1e6, st3[2] / 1e6, color="black", alpha=0.08)
            ax.axhline(st3[0] / 1e6, color="black", ls=":", label="l3fwd NDR median (band: "
                       "min-max)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks)
        ax.set_xticklabels(ticklabels)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("lanefwd [pipeline] burst")
        ax.set_ylabel("Mpps (offered load)")
        ax.set_title("MLRsearch NDR (loss %g%%) and PDR (%g%%) over memif" %
                     (self.a.ndr_loss, self.a.pdr_loss))
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
        a, b = self.stat(lf, "NDR"), self.stat(l3, "NDR")
        if a and b:
            pa, pb = self.stat(lf, "PDR"), self.stat(l3, "PDR")
            parts = ["median NDR %.3f / %.3f Mpps = %s, median PDR %s" % (
                a[0] / 1e6, b[0] / 1e6, self.ratio(a[0], b[0]),
                "%.3f / %.3f Mpps = %s" % (pa[0] / 1e6, pb[0] / 1e6, self.ratio(pa[0], pb[0]))
                if pa and pb else "-")]
            for pct, _ in self.loads or []:
                x, y = self.run_at("lf32", pct), self.run_at("l3fwd", pct)
                if x and y:
                    parts.append("at %d%% load end-to-end p99 %s, p99.99 %s%s" % (
                        pct, self.ratio(x["e2e"]["p99_ns"], y["e2e"]["p99_ns"]),
                        self.ratio(x["e2e"]["p99_99_ns"], y["e2e"]["p99_99_ns"]),
                        " (contended)" if x["contended"] or y["contended"] else ""))
            L.append("**lanefwd (burst 32) / l3fwd, same run:** " + "; ".join(parts) +
                     " (below 1 is better for latency, above 1 for throughput).")
        auto = self.fwd("lfauto")
        if auto:
            # Issue 16's targets for the adaptive burst, as ratios in this run.
            parts = []
            fixed = [(f, self.stat(f, "NDR")) for f in self.fwds
                     if f.kind == "lanefwd" and f.burst != "auto"]
            fixed = [(f, st) for f, st in fixed if st]
            sa = self.stat(auto, "NDR")
            if fixed and sa:
                bf, bst = max(fixed, key=lambda x: x[1][0])
                parts.append("median NDR %.3f Mpps, %s the best fixed burst's (%s, %.3f Mpps; "
                             "target ≥ 0.97×: %s)" % (
                                 sa[0] / 1e6, self.ratio(sa[0], bst[0]), bf.label, bst[0] / 1e6,
                                 "met" if sa[0] >= 0.97 * bst[0] else "missed"))
            ra, r32 = self.run_at("lfauto", hi), self.run_at("lf32", hi)
            if ra and r32 and ra.get("res") and r32.get("res"):
                x, y = ra["res"]["p99_99_ns"], r32["res"]["p99_99_ns"]
                parts.append("residence p99.99 at %d%% load %s µs, %s burst 32's %s µs "
                             "(target ≤ 1.2×: %s%s)" % (
                                 hi, self.fmt_us(x), self.ratio(x, y), self.fmt_us(y),
                                 "met" if x <= 1.2 * y else "missed",
                                 "; a window was contended" if ra["contended"] or
                                 r32["contended"] else ""))
            if parts:
                L.append("**`burst = auto` against the targets:** " + "; ".join(parts) + ".")
        rows = [(f, self.stat(f, "NDR")) for f in self.fwds]
        rows = [(f, st) for f, st in rows if st]
        if rows:
            L.append("**Median NDR by configuration (Mpps, min-max over its complete "
                     "searches, n):** %s." % ", ".join("%s %.2f (%.2f-%.2f, n=%d)" % (
                         f.label.replace("lanefwd ", "").replace("DPDK ", ""), st[0] / 1e6,
                         st[1] / 1e6, st[2] / 1e6, len(self.complete(f))) for f, st in rows))
        return L

    def limit_cell(self, f):
        """What bounded the unpaced trials of f's searches (backpressure or not)."""
        un = [s["unpaced"] for s in f.searches if s.get("unpaced") and s["unpaced"]["valid"]]
        if not un:
            return "-"
        refused = [u for u in un if u.get("tx_refused", 0) > 0]
        return "%.2f Mpps, %s" % (
            statistics.median(u["tx_pps"] for u in un) / 1e6,
            "refused in %d/%d: forwarder" % (len(refused), len(un)) if refused else
            "nothing refused: generator")

    def throughput_section(self):
        a = self.a
        lb = self.loopback
        L = ["## Throughput: MLRsearch NDR and PDR over memif\n"]
        L.append("Method: FD.io CSIT's MLRsearch (draft-ietf-bmwg-mlrsearch; "
                 "`bench/mlrsearch.py`), **%d searches per configuration, interleaved** "
                 "(round robin over the configurations, each round starting one "
                 "configuration further on). One search: a fresh forwarder and one "
                 "`lanefwd-gen --trials` process (EAL and the memif connection set up once per "
                 "search; each trial is a `RATE DURATION` request answered by one JSON line, "
                 "%g s warm-up and %g s drain around it). An initial unpaced %g s trial gives "
                 "the highest load (what the generator sent) and the first guess (what came "
                 "back); then phases of %s s trials with relative width goals %s, both goals "
                 "narrowed in every phase from the same trials. Final phase: a load is a lower "
                 "bound when at least half of %d final-duration trials pass, an upper bound "
                 "when more than half fail (exceed ratio 0.5), so the final rates are "
                 "repeated and one unlucky trial does not move the result. The result is the "
                 "relevant lower bound (an offered load).\n" % (
                     a.searches, a.trial_warmup, a.trial_drain, a.initial,
                     " → ".join("%g" % d for d in a.durations),
                     " → ".join("%g%%" % (100 * w) for w in a.widths), a.final_trials))
        L.append("A trial **passes** a goal when both its loss and its backpressure (packets "
                 "the forwarder's memif RX ring refused: the generator counts every packet "
                 "`tx_burst` took only on a retry; on a NIC they would have been dropped at "
                 "its RX ring) stay within the goal's ratio: **NDR %g%%, PDR %g%%**. It "
                 "**fails** otherwise, and is **invalid** (re-run, never counted as a loss) "
                 "when it failed while the forwarding thread or the generator had less than "
                 "%.2f of a CPU during it, or the forwarding thread (alone on its CPU) spent "
                 "more than %g ms runnable but off it (`/proc/PID/task/TID/schedstat`, read "
                 "before the request and after the answer; a single descheduling of a few ms "
                 "overflows a 4096-slot memif ring at these rates long before it shows in a "
                 "share), or when the generator fell behind its schedule without any refusal "
                 "while descheduled (with its CPU, that is its own limit: a failure), or when "
                 "all the loss was lanefwd's TX ring toward the generator overflowing "
                 "(`drop_tx_full`: the generator's RX did not keep up). What the forwarder's "
                 "own other threads (lanefwd's main lcore, `lf-neigh`) run on the forwarding "
                 "CPU is its cost, not noise. The initial unpaced trial is re-run until "
                 "neither process was descheduled: it sets the highest load. A trial that "
                 "passed while descheduled still passed. Before each "
                 "search and after an invalid trial the script waits (up to %g s / 3 s) for "
                 "other processes to leave both CPUs.\n" % (
                     a.ndr_loss, a.pdr_loss, a.min_share, a.max_wait_ms, a.max_wait))
        L.append("The generator alone (a ring port looped back, `--loopback --rate max`, no "
                 "memif, no forwarder): **%.2f Mpps** (end-to-end p50 %s µs, p99.99 %s µs).\n" %
                 (lb["rx_pps"] / 1e6, self.fmt_us(lb["latency"]["p50_ns"]),
                  self.fmt_us(lb["latency"]["p99_99_ns"])))
        L.append("| forwarder | NDR median Mpps | NDR min-max | PDR median Mpps | PDR min-max | "
                 "NDR x l3fwd | searches complete | trials (invalid) | unpaced trial: sent, "
                 "what held it |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        l3 = self.stat(self.fwd("l3fwd"), "NDR")
        for f in self.fwds:
            n, p = self.stat(f, "NDR"), self.stat(f, "PDR")
            L.append("| %s | %s | %s | %s | %s | %s | %d/%d | %d (%d) | %s |" % (
                f.label, "%.3f" % (n[0] / 1e6) if n else "-",
                "%.3f-%.3f" % (n[1] / 1e6, n[2] / 1e6) if n else "-",
                "%.3f" % (p[0] / 1e6) if p else "-",
                "%.3f-%.3f" % (p[1] / 1e6, p[2] / 1e6) if p else "-",
                self.ratio(n[0], l3[0]) if n and l3 else "-",
                len(self.complete(f)), len(f.searches),
                sum(s["n_trials"] for s in f.searches),
                sum(s["n_invalid"] for s in f.searches), self.limit_cell(f)))
        L.append("")
        L.append("![NDR and PDR against burst](%s/ndr-vs-burst.png)\n" % self.rel)
        return L

    def repeat_section(self):
        """This run's medians against earlier runs' (--compare)."""
        if not getattr(self, "compare", None):
            return []
        L = ["## Repeatability: this run against earlier ones\n"]
        L.append("The issue's done-criterion: the same configuration's median NDR in two "
                 "runs of the script, minutes apart, differs by less than 10% (difference "
                 "relative to the earlier run).\n")
        for c, path in zip(self.compare, self.compare_paths):
            L.append("Against `%s` (run of %s, git `%s`):\n" % (
                os.path.relpath(path, ROOT) if os.path.isabs(path) else path, c.date,
                c.git_head))
            L.append("| configuration | NDR this run | NDR earlier | NDR diff | PDR this run | "
                     "PDR earlier | PDR diff | NDR within 10% |")
            L.append("|---|---:|---:|---:|---:|---:|---:|---|")
            for f in self.fwds:
                g = c.fwd(f.key)
                row, ok = [f.label], None
                for goal in ("NDR", "PDR"):
                    x, y = self.stat(f, goal), c.stat(g, goal) if g else None
                    if x and y:
                        d = (x[0] - y[0]) / y[0]
                        row += ["%.3f" % (x[0] / 1e6), "%.3f" % (y[0] / 1e6), "%+.1f%%" %
                                (100 * d)]
                        if goal == "NDR":
                            ok = abs(d) < 0.10
                    else:
                        row += ["%.3f" % (x[0] / 1e6) if x else "-",
                                "%.3f" % (y[0] / 1e6) if y else "-", "-"]
                row.append("-" if ok is None else "yes" if ok else "**no**")
                L.append("| " + " | ".join(row) + " |")
            L.append("")
        return L

    def anatomy_section(self):
        """What each configuration's unpaced trials show: the forwarder's
        capacity through memif, what held the generator, how full its polls were."""
        L = ["## What burst does: the unpaced trials\n"]
        L.append("Per configuration, over the valid unpaced (initial) trials of its searches "
                 "(medians): what the generator sent and got back, how much the forwarder's "
                 "RX ring refused, lanefwd's own counters over the trial (RX packets per busy "
                 "poll, polls that came back full, drops by reason). With the generator "
                 "unpaced the forwarder is saturated when anything is refused: its packets "
                 "per poll then say what its burst really is.\n")
        L.append("| configuration | unpaced trials | sent Mpps | received Mpps | refused % | "
                 "pkts / busy poll | full polls % | lanefwd drops |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---|")
        for f in self.fwds:
            un = [s["unpaced"] for s in f.searches if s.get("unpaced") and s["unpaced"]["valid"]]
            if not un:
                continue
            med = statistics.median
            ppp, full, drops = [], [], {}
            for u in un:
                c = u.get("fwd_counters") or {}
                if c.get("busy_polls"):
                    ppp.append(c.get("rx_packets", 0) / c["busy_polls"])
                    if isinstance(f.burst, int):
                        top = [k for k in c if k.startswith("burst_") and
                               (k == "burst_%d" % f.burst or k.startswith("burst_%d_" % f.burst)
                                or k.endswith("_%d" % (f.burst * 2 - 1)))]
                        full.append(100.0 * sum(c[k] for k in top) / c["busy_polls"])
                for k, v in c.items():
                    if k.startswith("drop_"):
                        drops[k[5:]] = drops.get(k[5:], 0) + v
            L.append("| %s | %d | %.3f | %.3f | %.4f | %s | %s | %s |" % (
                f.label, len(un), med(u["tx_pps"] for u in un) / 1e6,
                med(u["rx_pps"] for u in un) / 1e6,
                100 * med(u.get("refused_ratio", 0) for u in un),
                "%.1f" % med(ppp) if ppp else "-", "%.0f" % med(full) if full else "-",
                ", ".join("%s %d" % kv for kv in sorted(drops.items())) or
                ("none" if f.kind == "lanefwd" else "-")))
        L.append("")
        if getattr(self, "findings", None):
            L.append(self.findings.rstrip() + "\n")
        return L

    def search_listing(self):
        L = ["MLRsearches (every trial: offered Mpps or `u` unpaced, duration s, NDR/PDR "
             "class p/f or `inv`, with loss % and refused % of what was sent):\n"]
        for f in self.fwds:
            for s in f.searches:
                r = s["results"]
                L.append("* %s, search %d (%.0f s%s): %s. Trials: %s" % (
                    f.label, s["rep"], s["elapsed_s"],
                    "; **incomplete: %s**" % s["incomplete"] if s["incomplete"] else "",
                    ", ".join("%s %.3f" % (k, (v["load"] or 0) / 1e6) for k, v in r.items())
                    or "no result",
                    ", ".join("%s/%g %s %.3f%%/%.3f%%" % (
                        "%.3f" % (t["load"] / 1e6) if t["load"] else "u", t["duration"],
                        "/".join(c[0] for c in t["class"].values()) if t["valid"] else "inv",
                        100 * t["loss_ratio"], 100 * t.get("refused_ratio", 0))
                        for t in s["trials"])))
        L.append("")
        return L

    def write_doc(self, path, files):
        a = self.a
        rel = self.rel = os.path.basename(os.path.splitext(path)[0])
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
        L += self.throughput_section()
        L += self.repeat_section()
        L += self.anatomy_section()
        if not self.loads:
            L.append("## Latency against burst\n")
            L.append("Not measured in this run: lanefwd burst 32 had no complete search, so "
                     "there is no reference NDR to take the loads from.\n")
        else:
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
        l3 = self.fwd("l3fwd")
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
                 "CPU %d. Every other thread of the forwarder (lanefwd's main lcore, "
                 "`lf-neigh`, telemetry; l3fwd's EAL threads) is moved to CPU %d once it "
                 "runs: EAL starts them on the main lcore's CPU %d, the generator's, where "
                 "lanefwd's `lf-neigh` (a 100 µs sleep loop, ~7,000 wake-ups a second) cost "
                 "the generator about 30%% of its rate. l3fwd runs with `-l %d` (it opens one "
                 "TX queue per lcore and the memif client has one ring per direction). The "
                 "benchmark driver and the telemetry client are pinned to CPU %d." % (
                     GEN_CPU, GEN_CPU, FWD_CPU, FWD_CPU, GEN_CPU, FWD_CPU, GEN_CPU))
        L.append("* Traffic: 64-byte UDP/IPv4 frames (with FCS), %d flows (uniform), to "
                 "198.18.1.1-254, which both forwarders route out of port b (l3fwd's "
                 "built-in 198.18.1.0/24 route; lanefwd gets l3fwd's routes and "
                 "destination MACs)." % a.flows)
        L.append("* Each generator invocation (one whole MLRsearch through `--trials`, each "
                 "load, each retry) runs against a fresh forwarder process, started for it "
                 "and stopped (SIGINT) after it, **before** the generator disconnects: the "
                 "generator runs with `--linger` and closes its memif ports only once the "
                 "forwarder has closed the links (DPDK 22.11's memif PMD can crash a server "
                 "still polling when its client goes away). lanefwd's figures are read while "
                 "the generator is still connected (it drains %g s after its window). Before "
                 "each search and load the script waits up to %g s for other processes to "
                 "leave both CPUs (below 15%% busy each). Each search and each forwarder's "
                 "latency runs hold `%s` (flock), so no other benchmark that takes the lock "
                 "ran meanwhile; other users' builds and tests could, and the tables say "
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
                         "burst = %s" % f.burst)
            else:
                L.append(f.cmd_shown)
            for r in f.searches[:1] + self.best_runs(f):
                if "cmd" in r:
                    L.append(r["cmd"] + ("   # one MLRsearch: 'RATE DURATION' lines on "
                                         "stdin, a JSON line per trial" if r in f.searches
                                         else ""))
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
        L += self.search_listing()
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
        gb = ["%s (%d of %d)" % (f.label, len(self.gen_bound(f)), len(self.complete(f)))
              for f in self.fwds if self.gen_bound(f)]
        if gb:
            L.append("* **Generator-bound NDR:** %s. There the unpaced trial lost nothing and "
                     "the forwarder refused nothing, and the NDR is the highest load "
                     "lanefwd-gen could send through two memif ports on one lcore (compare "
                     "its %.2f Mpps on a ring port): the forwarder's capacity is higher." % (
                         ", ".join(gb), self.loopback["rx_pps"] / 1e6))
        else:
            L.append("* **No NDR is generator-bound:** in every search the forwarder's RX "
                     "ring refused part of what the unpaced generator offered (the "
                     "\"what held it\" column), so the highest load is the forwarder's, "
                     "not the generator's.")
        skipped = getattr(self, "skipped", None) or []
        if skipped:
            L.append("* **Searches not run:** the searches took longer than their budget "
                     "(%g min; invalid trials are re-run), so %d were not started: %s." % (
                         a.search_budget, len(skipped), ", ".join(
                             "%s round %d" % tuple(x) for x in skipped)))
        inv = sum(s["n_invalid"] for f in self.fwds for s in f.searches)
        tot = sum(s["n_trials"] for f in self.fwds for s in f.searches)
        L.append("* **Invalid trials:** %d of %d search trials were invalid (failed while a "
                 "process had less than %.2f of a CPU, or the generator fell behind without "
                 "backpressure) and were re-run; %d search(es) ran out of their invalid "
                 "budget and are left out of the medians." % (
                     inv, tot, a.min_share,
                     sum(1 for f in self.fwds for s in f.searches if s["incomplete"])))
        L.append("* **Head-of-line blocking is a property of full bursts.** At a load the "
                 "forwarder handles easily most polls return a few packets (pkts / busy "
                 "poll), whatever the configured burst: a larger burst changes only what "
                 "happens when a backlog has built up (after a scheduler gap, or near "
                 "the NDR), when the first packet of a burst waits for the whole burst. "
                 "That is where seed 002's p99.99 came from, and why the difference "
                 "between bursts shows at the high load and in the deepest percentiles "
                 "first.")
        L.append("* **What is not measured here:** a NIC's descriptor rings and DMA, "
                 "interrupt moderation, several workers, IMIX. The latency windows are one "
                 "repetition per point (the throughput figures are %d searches each)." %
                 a.searches)
        L.append("")
        return L

    def cell(self, key, pct, get):
        """Median of get(run) over the runs of configuration key at load pct."""
        f = self.fwd(key)
        xs = [get(r) for r in (f.runs if f else []) if r["pct"] == pct]
        xs = [x for x in xs if x is not None]
        return statistics.median(xs) if xs else None

    def machine(self):
        # A report rewritten from a results.json describes that run's machine.
        rows = getattr(self, "machine_rows", None)
        if rows is not None:
            return rows
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


def read_findings(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def run_main(b, a, doc, name, summary, report_ok):
    """The run of a LatBench subclass (bench_rxmode.py, bench_upf_e2e.py):
    setup and runs, --json, summary() lines, then results.json, plots and
    the doc under doc's name when report_ok() holds and nothing failed.
    Returns the exit status."""
    b.command = "bench/%s.sh" % name + ("" if len(sys.argv) == 1 else " " +
                                         quote(sys.argv[1:]))
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
        res = b.results_json()
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
                f.write("\n")
        summary()
        if doc and report_ok() and not b.failures:
            outdir = os.path.splitext(doc)[0]
            os.makedirs(outdir, exist_ok=True)
            # The figures first: a report that fails can be rewritten from them.
            with open(os.path.join(outdir, "results.json"), "w") as f:
                json.dump(res, f, indent=1)
                f.write("\n")
            b.write_doc(doc, b.plots(outdir))
    except KeyboardInterrupt:
        log("%s: interrupted" % name)
        return 130
    finally:
        b.cleanup()
    if b.failures:
        log("%s: FAILED:\n  " % name + "\n  ".join(x.splitlines()[0] for x in b.failures))
        return 1
    return 0


def floats(x):
    return [float(v) for v in x.split(",")]


def main():
    ap = argparse.ArgumentParser(
        description="lanefwd burst size against throughput (MLRsearch NDR and PDR) and tail "
        "latency, with DPDK l3fwd, over memif with lanefwd-gen; writes "
        "docs/benchmarks-latency.md")
    ap.add_argument("--quick", action="store_true",
                    help="bursts 32 and 128 and l3fwd, 2 searches each with one 0.5 s phase, "
                    "2 s latency windows, no retries, docs not written: iteration")
    ap.add_argument("--bursts", help="lanefwd bursts, comma-separated (default "
                    "8,16,32,64,128,256; 32 is always run: the reference NDR)")
    ap.add_argument("--auto", dest="auto", action="store_true", default=None,
                    help="also burst = auto (default: when lanefwd --check-config takes it)")
    ap.add_argument("--no-auto", dest="auto", action="store_false")
    ap.add_argument("--loads", default="50,90",
                    help="offered loads, percent of the reference NDR (default 50,90)")
    ap.add_argument("--window", type=float, help="measured seconds per load (default 5)")
    ap.add_argument("--warmup", type=float, help="warm-up seconds per load (default 1)")
    ap.add_argument("--searches", type=int,
                    help="MLRsearches per configuration, interleaved (default 3)")
    ap.add_argument("--ndr-loss", type=float, default=0.0,
                    help="NDR: loss (and backpressure) allowed in a passing trial, percent "
                    "(default 0)")
    ap.add_argument("--pdr-loss", type=float, default=0.5,
                    help="PDR: the same, percent (default 0.5)")
    ap.add_argument("--durations", type=floats,
                    help="MLRsearch phases' trial durations, s, the last the final one "
                    "(default 0.5,1)")
    ap.add_argument("--widths", type=floats,
                    help="the phases' relative width goals (default 0.04,0.02)")
    ap.add_argument("--initial", type=float,
                    help="the initial unpaced trial, s (default 1)")
    ap.add_argument("--final-trials", type=int, default=3,
                    help="final-duration trials summed per load (exceed ratio 0.5: 2 passes "
                    "make a lower bound, 2 failures an upper bound; default 3)")
    ap.add_argument("--trial-warmup", type=float, default=0.1,
                    help="warm-up before each search trial, s (default 0.1)")
    ap.add_argument("--trial-drain", type=float, default=0.2,
                    help="drain after each search trial, s (default 0.2)")
    ap.add_argument("--flows", type=int, default=1024)
    ap.add_argument("--min-share", type=float, default=0.98,
                    help="least share of a trial or window the forwarding thread and the "
                    "generator must each have a CPU: a failed trial below it is invalid "
                    "(re-run), a latency window contended (default 0.98)")
    ap.add_argument("--max-wait-ms", type=float, default=1.0,
                    help="a failed search trial in which the forwarding thread or the "
                    "generator waited on a runqueue longer than this (ms) is invalid: one "
                    "descheduling overflows a 4096-slot memif ring in 0.5-4 ms (default 1)")
    ap.add_argument("--search-rsize", type=int, default=12,
                    help="log2 of the memif ring size during the searches (the client sets "
                    "it; default 12, 4096 slots, as the latency runs; 14 made the unpaced "
                    "generator ten times slower through memif here)")
    ap.add_argument("--search-budget", type=float, default=12,
                    help="minutes for all the searches: past it, no further search starts "
                    "after the first round (default 12)")
    ap.add_argument("--max-invalid", type=int, default=16,
                    help="invalid trials after which a search gives up, incomplete (default "
                    "16)")
    ap.add_argument("--retries", type=int,
                    help="reruns of a contended latency window or of loss at the lowest "
                    "load (default 1)")
    ap.add_argument("--max-wait", type=float,
                    help="longest wait for quiet CPUs before each search and load, s "
                    "(default 5)")
    ap.add_argument("--no-l3fwd", dest="l3fwd", action="store_false")
    ap.add_argument("--lock", default=LOCK, help="flock file held around each search and "
                    "each forwarder's latency runs (default %s; '' for none)" % LOCK)
    ap.add_argument("--doc", help="write the report here (default docs/benchmarks-latency.md,"
                    " not with --quick)")
    ap.add_argument("--no-doc", action="store_true")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--compare", action="append", default=[], metavar="RESULTS_JSON",
                    help="earlier runs' results.json: the report compares this run's medians "
                    "with theirs (repeatability); may repeat")
    ap.add_argument("--findings", metavar="MARKDOWN",
                    default=os.path.join(ROOT, "docs", "benchmarks-latency", "findings.md"),
                    help="what the burst investigation found, included in the report under "
                    "the unpaced-trial table (default docs/benchmarks-latency/findings.md, "
                    "when it exists)")
    ap.add_argument("--report", metavar="RESULTS_JSON",
                    help="run nothing: rewrite the report (--doc, default "
                    "docs/benchmarks-latency.md) and its plots from a results.json")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--lanefwd", default=os.path.join(ROOT, "build", "lanefwd"))
    ap.add_argument("--lanefwd-gen", default=os.path.join(ROOT, "build", "lanefwd-gen"))
    a = ap.parse_args()
    if a.report:
        b = LatBench.from_json(a.report)
        b.set_report_inputs(a)
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
        a.searches = a.searches or 2
        a.durations = a.durations or [0.5]
        a.widths = a.widths or [0.04]
        a.initial = a.initial or 0.5
        a.retries = a.retries if a.retries is not None else 0
        a.max_wait = a.max_wait if a.max_wait is not None else 3
    a.bursts = [int(x) for x in (a.bursts or "8,16,32,64,128,256").split(",")]
    a.bursts = [32] + sorted(b for b in set(a.bursts) if b != 32)
    a.loads = sorted(int(x) for x in a.loads.split(","))
    a.window = a.window or 5.0
    a.warmup = a.warmup if a.warmup is not None else 1.0
    a.searches = a.searches or 3
    a.durations = a.durations or [0.5, 1.0]
    a.widths = a.widths or [0.04, 0.02]
    if len(a.widths) != len(a.durations):
        sys.exit("bench-latency: --durations and --widths need as many values")
    a.initial = a.initial or 1.0
    a.retries = a.retries if a.retries is not None else 1
    a.max_wait = a.max_wait if a.max_wait is not None else 5
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
    b.set_report_inputs(a)
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
                f.write("\n")
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
