#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""lanefwd benchmark: lanefwd against DPDK l3fwd (LPM) and dpdk-testpmd (io).

Run it through bench/bench.sh, which installs dependencies, reserves
hugepages and builds lanefwd first. Every program gets the same harness:

  RX  net_pcap0,rx_pcap=FILE,infinite_rx=1  (a generated pcap replayed from
      memory: 4096 flows of 64-byte UDP/IPv4 frames to 198.18.1.0/24)
  TX  net_null0,no-rx=1                     (drops what it is given; no-rx so
      that it never injects packets back)
  one forwarding core, lcore 1; lcore 0 for the main/control threads.

Measurement, identical for each program: start it, wait until the null port
transmits, let it warm up, read the null port's TX opackets over
/ethdev/stats,<port> twice, a fixed window apart, with the stock
dpdk-telemetry.py (one client connection per run, so the timestamps are
those of the queries and not of a Python start-up). Mpps = delta / window.
Cycles/packet all-in = TSC Hz / pps (the forwarding core busy-polls, so it
is 100% busy). For lanefwd, its own cycles/packet = delta busy_cycles /
delta rx_packets of /lanefwd/workers over the same window.

Programs are run interleaved (lanefwd, l3fwd, testpmd, lanefwd prefetch 16,
lanefwd prefetch 4, lanefwd with latency recording off, then again) and the median of the repetitions is
reported. The machine is shared: before each run the script waits for CPU 1
to be quiet, and after it checks from /proc/<pid>/task/*/schedstat which
share of the window the forwarding thread was really on a CPU. A run below
--min-share is contended: it is repeated (--retries) and kept out of the
median.
"""
import argparse
import datetime
import glob
import json
import os
import random
import re
import select
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"
TELEMETRY = shutil.which("dpdk-telemetry.py") or "/usr/bin/dpdk-telemetry.py"
TESTPMD = shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd"
L3FWD_SRC = "/usr/share/dpdk/examples"
RUNDIR = "/var/run/dpdk"
HUGEDIR = "/dev/hugepages"
# lanefwd's default [pipeline] prefetch_distance: the headline row runs it.
# auto gives the pcap port no packet-data prefetch (its driver copies each
# frame into the mbuf on the polling core); the explicit rows force one.
PREFETCH = "auto"
FWD_CPU = 1          # the forwarding lcore / CPU
CTRL_CPU = 0         # main lcore; the driver and the telemetry client too
PCAP_PORT, NULL_PORT = 0, 1   # ethdev ids: vdevs are probed in argv order

# Every command this run executes that matters for the figures, in order.
COMMANDS = []


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def sh(cmd, cwd=None, record=True):
    """Run a shell command, record it for the report, fail loudly."""
    if record:
        COMMANDS.append(cmd if cwd is None else "cd %s && %s" % (cwd, cmd))
    r = subprocess.run(cmd, shell=True, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("bench: command failed (%d): %s\n%s" % (r.returncode, cmd,
                                                         r.stdout[-3000:]))
    return r.stdout


def out(cmd):
    try:
        return subprocess.run(cmd, shell=True, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip()
    except OSError:
        return ""


def read_line(pipe, buf, timeout, on_chunk=None):
    """The next line from a child's stdout pipe, as (line, what is left of
    buf): reads what is there within timeout s; on_chunk sees every read.
    RuntimeError when nothing comes in time or the child closed its end."""
    end = time.monotonic() + timeout
    while b"\n" not in buf:
        left = end - time.monotonic()
        if left <= 0:
            raise RuntimeError("no reply within %.0f s" % timeout)
        r, _, _ = select.select([pipe], [], [], left)
        if r:
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                raise RuntimeError("exited: %s" % buf.decode(errors="replace").strip()[-300:])
            if on_chunk:
                on_chunk(chunk)
            buf += chunk
    line, buf = buf.split(b"\n", 1)
    return line.decode(errors="replace"), buf


class Telemetry:
    """One connection through the stock dpdk-telemetry.py client.

    The client reads commands from stdin and prints one JSON line per reply
    when stdin is not a terminal; -u keeps its stdout unbuffered.
    """

    def __init__(self, prefix):
        self.p = subprocess.Popen([PY, "-u", TELEMETRY, "-f", prefix],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.buf = b""

    def _line(self, timeout):
        line, self.buf = read_line(self.p.stdout, self.buf, timeout)
        return line

    def query(self, cmd, timeout=5.0):
        """Return (reply dict, monotonic time at the middle of the query)."""
        t0 = time.monotonic()
        self.p.stdin.write((cmd + "\n").encode())
        self.p.stdin.flush()
        line = self._line(timeout)
        t1 = time.monotonic()
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            raise RuntimeError("telemetry: unexpected reply to %s: %s" % (cmd, line))
        return reply.get(cmd.split(",")[0]), (t0 + t1) / 2

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()
            self.p.wait()


def cpu_busy(cpu, interval):
    """Fraction of `interval` seconds that CPU `cpu` was not idle."""
    def sample():
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith("cpu%d " % cpu):
                    v = [int(x) for x in line.split()[1:]]
                    idle = v[3] + v[4]
                    return sum(v[:8]), idle
        return 0, 0
    t0, i0 = sample()
    time.sleep(interval)
    t1, i1 = sample()
    return 0.0 if t1 == t0 else 1.0 - (i1 - i0) / (t1 - t0)


def busy_others(cpu, exclude=()):
    """Threads that last ran on `cpu` and use CPU: 'comm(pid/tid, pcpu%)'."""
    rows = out("ps -eLo pid=,tid=,psr=,pcpu=,comm=").splitlines()
    found = []
    for r in rows:
        f = r.split(None, 4)
        if len(f) == 5 and f[2] == str(cpu) and float(f[3]) > 10 and \
                int(f[0]) not in exclude:
            found.append("%s(%s/%s, %s%%)" % (f[4], f[0], f[1], f[3]))
    return found


def wait_quiet(max_wait):
    """Wait until the forwarding CPU is idle; return the busy fraction seen."""
    end = time.monotonic() + max_wait
    busy = cpu_busy(FWD_CPU, 0.5)
    warned = False
    while busy > 0.15 and time.monotonic() < end:
        if not warned:
            log("  cpu%d is %.0f%% busy before the run (%s); waiting up to %.0f s" %
                (FWD_CPU, busy * 100, ", ".join(busy_others(FWD_CPU)) or "?",
                 max_wait))
            warned = True
        time.sleep(1)
        busy = cpu_busy(FWD_CPU, 0.5)
    return busy


def thread_times(pid):
    """{tid: (ns on cpu, ns waiting on a runqueue, last cpu)} of a process."""
    res = {}
    for d in glob.glob("/proc/%d/task/*" % pid):
        try:
            with open(d + "/schedstat") as f:
                run, wait = [int(x) for x in f.read().split()[:2]]
            with open(d + "/stat") as f:
                st = f.read()
            cpu = int(st[st.rindex(")") + 2:].split()[36])
            res[int(os.path.basename(d))] = (run, wait, cpu)
        except (OSError, ValueError, IndexError):
            pass
    return res


def busiest(before, after, window):
    """(tid, share of window on cpu, share waiting, cpu) of the busiest thread."""
    best = (None, 0.0, 0.0, -1)
    for tid, (run, wait, cpu) in after.items():
        if tid not in before:
            continue
        share = (run - before[tid][0]) / 1e9 / window
        if share > best[1]:
            best = (tid, share, (wait - before[tid][1]) / 1e9 / window, cpu)
    return best


def median_interval(xs, draws=10000, level=0.95):
    """Percentile bootstrap interval of the median of xs (fixed seed: the
    same figures give the same interval), or None for fewer than 5."""
    if len(xs) < 5:
        return None
    rng = random.Random(1)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(draws))
    tail = int(draws * (1 - level) / 2)
    return meds[tail], meds[draws - 1 - tail]


def set_affinity_all():
    os.sched_setaffinity(0, range(os.cpu_count()))


class Variant:
    def __init__(self, key, label, kind, main, prefetch=None, latency=True, flow=0,
                 fib="auto"):
        self.key, self.label, self.kind, self.main = key, label, kind, main
        self.prefetch = prefetch
        self.fib = fib         # [routes] fib_lookup
        self.latency = latency
        self.flow = flow       # [flow] entries; 0: no flow table
        self.cmd = None        # argv with PREFIX placeholders
        self.conf = None       # lanefwd config text (for the report)
        self.runs = []


class Bench:
    def __init__(self, args):
        self.a = args
        self.tmp = tempfile.mkdtemp(prefix="lanefwd-bench.")
        self.tag = "lfb%d" % os.getpid()
        self.live = None       # (Popen, prefix) being measured
        self.tsc_hz = None
        self.tsc_src = None
        self.lf_info = None
        self.lf_cksum = None
        self.profiles = {}
        self.seq = 0

    # ---------------------------------------------------------------- setup
    def gen_pcap(self):
        self.pcap = os.path.join(self.tmp, "bench.pcap")
        sh("%s bench/bench_gen_pcap.py %s --flows %d --ipv6-share %g" %
           (PY, self.pcap, self.a.flows, self.a.ipv6_share))

    def build_l3fwd(self):
        """Copy the 22.11 l3fwd example here, patch out the RX checksum
        offload request (the vdevs cannot do it and l3fwd would fail
        rte_eth_dev_configure), build it with its own Makefile."""
        src = os.path.join(L3FWD_SRC, "l3fwd")
        if not os.path.isdir(src):
            sys.exit("bench: %s is missing: install dpdk-doc (scripts/deps.sh)" % src)
        work = os.path.join(self.tmp, "examples")
        os.makedirs(work)
        sh("cp -r %s/l3fwd %s/common %s/" % (L3FWD_SRC, L3FWD_SRC, work))
        d = os.path.join(work, "l3fwd")
        sh(r"sed -i 's/\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,/.offloads = 0, \/* bench: vdevs have no RX checksum offload *\//' main.c",
           cwd=d)
        with open(os.path.join(d, "main.c")) as f:
            text = f.read()
        if "RTE_ETH_RX_OFFLOAD_CHECKSUM" in text or "bench: vdevs" not in text:
            sys.exit("bench: the l3fwd patch did not apply (not DPDK 22.11 l3fwd?)")
        march = self.lanefwd_march()
        if march:
            # Same code generation as lanefwd: the Makefile's last -march
            # (pkg-config's, -march=corei7 on Debian) is what gcc uses, so
            # add lanefwd's after it. The DPDK libraries are the same
            # Debian builds for all three programs.
            sh(r"sed -i 's|^CFLAGS += -I../common$|&\nCFLAGS += %s|' Makefile" % march, cwd=d)
        build = sh("make -j%d" % max(1, os.cpu_count()), cwd=d)
        if march and march not in build:
            sys.exit("bench: l3fwd was not built with %s:\n%s" % (march, build))
        self.l3fwd_march = march or [f for f in out("pkg-config --cflags libdpdk").split()
                                     if f.startswith("-march")][-1:]
        self.l3fwd = os.path.join(d, "build", "l3fwd")

    def lanefwd_conf(self, v):
        routes4 = os.path.join(self.tmp, "routes4.txt")
        routes6 = os.path.join(self.tmp, "routes6.txt")
        if not os.path.exists(routes4):
            # l3fwd's built-in routes for the enabled ports 0 and 1 (it skips
            # routes whose port is not in -p): same prefixes, same ports.
            with open(routes4, "w") as f:
                f.write("# l3fwd 22.11 ipv4_l3fwd_route_array, ports 0-1\n"
                        "198.18.0.0/24 0\n198.18.1.0/24 1\n")
            with open(routes6, "w") as f:
                f.write("# l3fwd 22.11 ipv6_l3fwd_route_array, ports 0-1\n"
                        "2001:200::/64 0\n2001:200:0:1::/64 1\n")
        conf = """\
# lanefwd benchmark configuration, generated by bench/bench.py
[eal]
file_prefix = PREFIX
huge = yes
# telemetry: default (on)

[pipeline]
burst = 32
prefetch_distance = {pf}
# RX->TX residence histograms (/lanefwd/latency)
latency = {lat}

[routes]
ipv4 = {r4}
ipv6 = {r6}
# l3fwd's table sizes (IPV4_L3FWD_LPM_MAX_RULES 1024, NUMBER_TBL8S 256)
# rather than lanefwd's full-table defaults: same work for the FIB setup,
# and the /24 lookups here never reach a tbl8 anyway.
ipv4_max_routes = 1024
ipv4_tbl8 = 256
ipv6_max_routes = 1024
ipv6_tbl8 = 256
# rte_fib's bulk lookup: auto is AVX-512 where the CPU has it
fib_lookup = {fib}

[port p0]
vdev = net_pcap0,rx_pcap={pcap},infinite_rx=1
# The capture's frames go to 02:00:00:00:00:01, not to the pcap port's MAC:
# take them as a switch port would (routed ports take only their own MAC).
promiscuous = yes

# Transmit only: no worker polls it (net_null with no-rx never receives).
[port p1]
vdev = net_null0,no-rx=1

[worker {cpu}]
rx = p0:0

# l3fwd's default destination MACs 02:00:00:00:00:<port>.
[nexthop 0]
port = p0
mac = 02:00:00:00:00:00

[nexthop 1]
port = p1
mac = 02:00:00:00:00:01
{flow}""".format(flow=("\n# Flow cache: every packet after the first of its flow is a hit.\n"
                     "# It runs only in front of an ACL: one rule that permits all.\n"
                     "[flow]\nentries = %d\n[acl]\nipv4 = %s\ndefault = permit\n"
                     % (v.flow, self.permit_acl())) if v.flow else "",
                 pf=v.prefetch, fib=v.fib, lat="yes" if v.latency else "no", r4=routes4, r6=routes6, pcap=self.pcap, cpu=FWD_CPU)
        return conf

    def permit_acl(self):
        """A one-rule ACL that permits every IPv4 packet, for the flow-cache
        run: the cache fronts only an ACL (without one it stays idle)."""
        path = os.path.join(self.tmp, "permit.acl")
        with open(path, "w") as f:
            f.write("@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t"
                    "0x0000/0x0000\tpermit\n")
        return path

    def setup(self):
        os.sched_setaffinity(0, {CTRL_CPU})
        self.gen_pcap()
        if not self.a.ab_mode:
            self.build_l3fwd()
        # A snapshot: build/ may be rebuilt while the benchmark runs, and
        # every repetition must run the same binary.
        lanefwd = os.path.join(self.tmp, "lanefwd")
        shutil.copy2(self.a.lanefwd, lanefwd)
        self.lf_version = out("%s -V" % shlex.quote(lanefwd))
        self.git_head = out("git -C %s rev-parse --short HEAD" % shlex.quote(ROOT))
        self.git_dirty = bool(out("git -C %s status --porcelain -- src include meson.build"
                                  % shlex.quote(ROOT)))
        COMMANDS.append("cp build/lanefwd %s/lanefwd   # snapshot of the binary" % self.tmp)
        vdevs = ["--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1" % self.pcap,
                 "--vdev", "net_null0,no-rx=1"]
        vs = [Variant("lanefwd", "lanefwd (burst 32, prefetch %s)" % PREFETCH, "lanefwd", True,
                      PREFETCH),
              Variant("l3fwd", "DPDK l3fwd (LPM)", "l3fwd", True),
              Variant("testpmd", "dpdk-testpmd io (ceiling)", "testpmd", True)]
        lanefwd_b = None
        if self.a.ab_mode:
            # lanefwd alone, twice: A is --lanefwd, B is --ab (or --lanefwd
            # again); each runs burst 32 at its --ab-prefetch value (default
            # PREFETCH for both) and --ab-fib-lookup value (default auto).
            lanefwd_b = os.path.join(self.tmp, "lanefwd-b")
            shutil.copy2(self.a.ab or self.a.lanefwd, lanefwd_b)
            pa, pb = self.a.ab_prefetch or (PREFETCH, PREFETCH)
            fa, fb = self.a.ab_fib_lookup or ("auto", "auto")
            vs = [Variant("lanefwd", "A %s, prefetch %s, fib_lookup %s"
                          % (self.a.lanefwd, pa, fa), "lanefwd", True, pa, fib=fa),
                  Variant("lanefwd-b", "B %s, prefetch %s, fib_lookup %s"
                          % (self.a.ab or self.a.lanefwd, pb, fb), "lanefwd", True, pb,
                          fib=fb)]
        elif not self.a.main_only:
            vs += [Variant("lanefwd-pf16", "lanefwd (burst 32, prefetch 16)", "lanefwd", False,
                           16),
                   Variant("lanefwd-pf4", "lanefwd (burst 32, prefetch 4)", "lanefwd", False, 4),
                   Variant("lanefwd-scalar",
                           "lanefwd (burst 32, prefetch %s, scalar FIB lookup)" % PREFETCH,
                           "lanefwd", False, PREFETCH, fib="scalar"),
                   Variant("lanefwd-nolat",
                           "lanefwd (burst 32, prefetch %s, latency off)" % PREFETCH,
                           "lanefwd", False, PREFETCH, latency=False),
                   Variant("lanefwd-flow",
                           "lanefwd (burst 32, prefetch %s, flow cache)" % PREFETCH,
                           "lanefwd", False, PREFETCH, flow=65536)]
        for v in vs:
            if v.kind == "lanefwd":
                v.conf = self.lanefwd_conf(v)
                path = os.path.join(self.tmp, "%s.ini" % v.key)
                v.conf_path = path
                v.cmd = [lanefwd_b if v.key == "lanefwd-b" else lanefwd, "-c", path]
            elif v.kind == "l3fwd":
                # -l 1: the pcap vdev offers one TX queue and l3fwd asks for
                # one per enabled lcore, so with -l 0,1 configure fails
                # (nb_tx_queues=2 > 1). With -l 1 the main lcore is the
                # forwarding lcore; EAL's control threads (telemetry,
                # interrupts) go to CPU 0, as in the other programs.
                # --parse-ptype: the vdevs report no packet types.
                # No -P (pcap and null do no MAC filtering), default
                # --eth-dest (02:00:00:00:00:<port>).
                # --config "(0,0,1)": port 0 queue 0 on lcore 1; port 1
                # gets no RX queue (l3fwd only creates the RX queues named
                # in --config), one TX queue per port.
                v.cmd = [self.l3fwd, "-l", str(FWD_CPU), "--no-pci",
                         "--file-prefix", "PREFIX"] + vdevs + \
                        ["--", "-p", "0x3", "--config", "(0,0,%d)" % FWD_CPU,
                         "--lookup", "lpm", "--parse-ptype"]
            else:
                # Default paired topology: port 0 -> 1 and 1 -> 0, both
                # streams on lcore 1; polling the no-rx null port returns
                # nothing at once. --stats-period keeps testpmd running
                # without a terminal (it would otherwise exit when stdin
                # reaches EOF); 3600 s means it never prints during a run.
                v.cmd = [TESTPMD, "-l", "%d,%d" % (CTRL_CPU, FWD_CPU), "--no-pci",
                         "--file-prefix", "PREFIX"] + vdevs + \
                        ["--", "--forward-mode=io", "--auto-start",
                         "--nb-cores=1", "--burst=32", "--port-topology=paired",
                         "--stats-period", "3600"]
        self.variants = vs
        for v in vs:
            if v.conf is not None:
                with open(v.conf_path, "w") as f:
                    f.write(v.conf.replace("PREFIX", "%s_%s" % (self.tag, v.key.replace("-", "_"))))

    # ------------------------------------------------------------- one run
    def start(self, v, prefix, logpath):
        cmd = [c.replace("PREFIX", prefix) for c in v.cmd]
        if v.kind == "lanefwd":
            # The prefix lives in the config file: one file per run.
            path = os.path.join(self.tmp, "%s.ini" % prefix)
            with open(path, "w") as f:
                f.write(v.conf.replace("PREFIX", prefix))
            cmd = [cmd[0], "-c", path]
        logf = open(logpath, "w")
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=logf,
                             stderr=subprocess.STDOUT, preexec_fn=set_affinity_all)
        logf.close()
        self.live = (p, prefix)
        return p

    def stop(self):
        if self.live is None:
            return None
        p, prefix = self.live
        self.live = None
        if p.poll() is None:
            p.send_signal(signal.SIGINT)          # its own pid only
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        # What an EAL that died could leave behind, under our prefix only.
        shutil.rmtree(os.path.join(RUNDIR, prefix), ignore_errors=True)
        for f in glob.glob(os.path.join(HUGEDIR, prefix + "map_*")):
            try:
                os.unlink(f)
            except OSError:
                pass
        return p.returncode

    def wait_ready(self, p, prefix, logpath, tx_port):
        sock = os.path.join(RUNDIR, prefix, "dpdk_telemetry.v2")
        end = time.monotonic() + 60
        while not os.path.exists(sock):
            if p.poll() is not None or time.monotonic() > end:
                raise RuntimeError("did not start (exit %s)" % p.poll())
            time.sleep(0.1)
        tel = None
        while True:
            if tel is None:
                time.sleep(0.2)
                tel = Telemetry(prefix)
            try:
                st, _ = tel.query("/ethdev/stats,%d" % tx_port)
            except RuntimeError:
                # The socket file can exist a moment before it listens.
                tel.close()
                tel = None
                if p.poll() is not None or time.monotonic() > end:
                    raise
                continue
            if st and st.get("opackets", 0) > 0:
                return tel
            if p.poll() is not None or time.monotonic() > end:
                tel.close()
                raise RuntimeError("no packets transmitted on port %d (exit %s)" %
                                   (tx_port, p.poll()))
            time.sleep(0.2)

    def sample(self, tel, v, pid):
        s = {}
        s["tx"], s["t"] = tel.query("/ethdev/stats,%d" % NULL_PORT)
        s["threads"] = thread_times(pid)
        s["rx"], _ = tel.query("/ethdev/stats,%d" % PCAP_PORT)
        if v.kind == "lanefwd":
            s["w"], _ = tel.query("/lanefwd/workers,%d" % FWD_CPU)
        return s

    def run_once(self, v, rep, attempt, window, warmup, profile=False):
        self.seq += 1
        prefix = "%s_%d_%s" % (self.tag, self.seq, v.key.replace("-", "_"))
        logpath = os.path.join(self.tmp, "%s.log" % prefix)
        before = wait_quiet(self.a.max_wait)
        p = self.start(v, prefix, logpath)
        run = {"variant": v.key, "rep": rep, "attempt": attempt, "prefix": prefix,
               "cpu_busy_before": before}
        tel = None
        try:
            tel = self.wait_ready(p, prefix, logpath, NULL_PORT)
            if v.kind == "lanefwd" and self.lf_info is None:
                self.lf_info, _ = tel.query("/lanefwd/info")
            time.sleep(warmup)
            a = self.sample(tel, v, p.pid)
            if profile:
                t1 = thread_times(p.pid)
                time.sleep(0.5)
                tid = busiest(t1, thread_times(p.pid), 0.5)[0]
                data = os.path.join(self.tmp, "%s.perf" % prefix)
                self.perf(v, tid or p.pid, data, window)
            else:
                time.sleep(window)
            b = self.sample(tel, v, p.pid)
        except RuntimeError as e:
            if tel:
                tel.close()
            self.stop()
            with open(logpath, errors="replace") as f:
                tail = f.read()[-2500:]
            log("  %s: FAILED: %s\n%s" % (v.label, e, tail))
            run.update(ok=False, error=str(e), log_tail=tail)
            return run
        tel.close()
        rc = self.stop()
        with open(logpath, errors="replace") as f:
            text = f.read()
        dt = b["t"] - a["t"]
        tx = b["tx"]["opackets"] - a["tx"]["opackets"]
        rx = b["rx"]["ipackets"] - a["rx"]["ipackets"]
        tid, share, waitq, cpu = busiest(a["threads"], b["threads"], dt)
        run.update(ok=True, window=dt, tx=tx, rx=rx, pps=tx / dt, rx_pps=rx / dt,
                   share=share, runq_wait=waitq, fwd_cpu=cpu, exit=rc,
                   oerrors=b["tx"]["oerrors"] - a["tx"]["oerrors"],
                   imissed=b["rx"]["imissed"] - a["rx"]["imissed"],
                   rx_nombuf=b["rx"]["rx_nombuf"] - a["rx"]["rx_nombuf"])
        if v.kind == "lanefwd":
            wa, wb = a["w"], b["w"]
            drx = wb["rx_packets"] - wa["rx_packets"]
            run["own_cpp"] = (wb["busy_cycles"] - wa["busy_cycles"]) / drx if drx else None
            run["busy_percent"] = wb["busy_percent"]
            run["cksum_sw"] = wb["ipv4_cksum_sw"] - wa["ipv4_cksum_sw"]
            run["lf_rx"] = drx
            run["lf_drops"] = sum(wb[k] - wa[k] for k in wb if k.startswith("drop_"))
            run["burst_full"] = (wb["burst_32_63"] - wa["burst_32_63"]) / \
                max(1, wb["polls"] - wa["polls"])
            m = re.search(r"^lanefwd: total: (.*)$", text, re.M)
            run["final"] = m.group(1) if m else None
        run["contended"] = share < self.a.min_share
        return run

    def perf(self, v, tid, data, window):
        """Sample the forwarding thread with the cpu-clock software event
        (this VM exposes no hardware counters)."""
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-t", str(tid),
               "-o", data, "--", "sleep", "%g" % window]
        COMMANDS.append(" ".join(shlex.quote(c) for c in cmd).replace(str(tid), "TID"))
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            self.profiles[v.key] = "perf record failed: " + r.stdout[-500:]
            return
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                              "--sort", "dso,sym", "--percent-limit", "0.7"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        lines = [ln.rstrip() for ln in rep.stdout.splitlines()
                 if ln.strip() and not ln.startswith("#")]
        self.profiles[v.key] = "\n".join(lines[:25])

    # ---------------------------------------------------------------- all
    def run_all(self):
        a = self.a
        total = len(self.variants) * a.reps
        n = 0
        for rep in range(1, a.reps + 1):
            # A/B: A first in odd repetitions, B first in even ones.
            order = self.variants if not a.ab_mode or rep % 2 else self.variants[::-1]
            for v in order:
                n += 1
                for attempt in range(1, a.retries + 2):
                    log("[%d/%d] %s, repetition %d%s" %
                        (n, total, v.label, rep,
                         "" if attempt == 1 else " (retry %d: contended)" % (attempt - 1)))
                    r = self.run_once(v, rep, attempt, a.window, a.warmup)
                    v.runs.append(r)
                    if not r["ok"]:
                        break
                    log("  %.3f Mpps (rx %.3f), cpu share %.2f, runqueue wait %.2f%s%s" %
                        (r["pps"] / 1e6, r["rx_pps"] / 1e6, r["share"], r["runq_wait"],
                         ", own %.1f cycles/packet" % r["own_cpp"] if r.get("own_cpp") else "",
                         "  CONTENDED" if r["contended"] else ""))
                    if not r["contended"]:
                        break
        if a.profile and shutil.which("perf"):
            for v in self.variants:
                if v.key in ("lanefwd", "l3fwd"):
                    log("profile: %s (perf record -e cpu-clock, %g s)" % (v.label, a.window))
                    r = self.run_once(v, 0, 1, a.window, a.warmup, profile=True)
                    if not r["ok"]:
                        self.profiles[v.key] = "run failed: " + r.get("error", "")

    def tsc(self):
        if self.lf_info and self.lf_info.get("tsc_hz"):
            return self.lf_info["tsc_hz"], "lanefwd /lanefwd/info tsc_hz"
        m = re.search(r"cpu MHz\s*:\s*([\d.]+)", open("/proc/cpuinfo").read())
        return (float(m.group(1)) * 1e6 if m else 0), "/proc/cpuinfo cpu MHz"

    def summarize(self):
        self.tsc_hz, self.tsc_src = self.tsc()
        res = {}
        for v in self.variants:
            ok = [r for r in v.runs if r["ok"]]
            clean = [r for r in ok if not r["contended"]]
            use = clean
            note = ""
            if not clean and ok:
                # Every attempt contended: keep the best of each repetition.
                best = {}
                for r in ok:
                    if r["rep"] not in best or r["share"] > best[r["rep"]]["share"]:
                        best[r["rep"]] = r
                use = list(best.values())
                note = "contended"
            if not use:
                res[v.key] = None
                continue
            pps = statistics.median(r["pps"] for r in use)
            own = [r["own_cpp"] for r in use if r.get("own_cpp")]
            res[v.key] = {
                "pps": pps, "n": len(use), "note": note,
                # Every measured run, contended ones too, scaled by the share
                # of the window its forwarding thread had a CPU.
                "alone": statistics.median(r["pps"] / max(r["share"], 0.01) for r in ok),
                "min": min(r["pps"] for r in use), "max": max(r["pps"] for r in use),
                "cpp": self.tsc_hz / pps if pps else None,
                "own": statistics.median(own) if own else None,
            }
        self.res = res
        return res

    # ------------------------------------------------------------- output
    def ratio(self, key):
        """Mpps of `key` over l3fwd's, and whether both are clean medians."""
        r, l3 = self.res.get(key), self.res.get("l3fwd")
        if not r or not l3:
            return None, False
        return r["pps"] / l3["pps"], not r["note"] and not l3["note"]

    def table(self):
        res = self.res
        rows = [("program", "Mpps", "cycles/pkt all-in", "lanefwd own cycles/pkt",
                 "x l3fwd", "runs (min-max Mpps)", "Mpps / cpu share")]
        for v in self.variants:
            r = res.get(v.key)
            if r is None:
                rows.append((v.label, "FAILED", "-", "-", "-", "-", "-"))
                continue
            rows.append((v.label, "%.2f" % (r["pps"] / 1e6),
                         "%.1f" % r["cpp"] if r["cpp"] else "-",
                         "%.1f" % r["own"] if r["own"] else "-",
                         "-" if self.ratio(v.key)[0] is None else
                         "%.2fx%s" % (self.ratio(v.key)[0],
                                      "" if self.ratio(v.key)[1] else " (contended)"),
                         "%d (%.2f-%.2f)%s" % (r["n"], r["min"] / 1e6, r["max"] / 1e6,
                                               " " + r["note"] if r["note"] else ""),
                         "%.2f" % (r["alone"] / 1e6)))
        return rows

    def clean_by_rep(self, key):
        """The clean (ok, not contended) runs of variant `key`, by repetition."""
        return {r["rep"]: r for v in self.variants if v.key == key
                for r in v.runs if r["ok"] and not r["contended"]}

    def paired(self):
        """lanefwd / l3fwd per repetition, each pair run back to back (clean runs only)."""
        lf, l3 = self.clean_by_rep("lanefwd"), self.clean_by_rep("l3fwd")
        return [lf[k]["pps"] / l3[k]["pps"] for k in sorted(lf) if k in l3 and l3[k]["pps"]]

    def paired_line(self):
        p = self.paired()
        if not p:
            return None
        line = ("lanefwd / l3fwd per repetition (run back to back): %s; %d of %d at or "
                "above 1.0, median %.3fx." % (" ".join("%.3f" % x for x in p),
                                              sum(x >= 1.0 for x in p), len(p),
                                              statistics.median(p)))
        ci = median_interval(p)
        if ci is None:
            return line
        lo, hi = ci
        return line + (" 95%% bootstrap interval of that median: %.3f-%.3f, %s." % (
            lo, hi, "lanefwd ahead" if lo > 1.0 else "l3fwd ahead" if hi < 1.0 else
            "it includes 1.0: the two are level within this harness's noise"))

    def verdict(self, markdown):
        b = (lambda t: "**%s**" % t) if markdown else (lambda t: t)
        lf, l3 = self.res.get("lanefwd"), self.res.get("l3fwd")
        if not lf or not l3:
            return "lanefwd / l3fwd: no figure (a program failed to run)"
        ratio, clean = self.ratio("lanefwd")
        est = lf["alone"] / l3["alone"]
        if clean:
            return ("%s at burst 32, prefetch %s (the default), telemetry on. Target >= "
                    "1.0x: %s." % (b("lanefwd / l3fwd = %.3fx" % ratio), PREFETCH,
                     b("met" if ratio >= 1.0 else "not met")))
        return ("lanefwd / l3fwd: no clean comparison, CPU %d was shared during every "
                "attempt of %s; from Mpps / cpu share the estimate is %s (target >= "
                "1.0x: %s)." % (FWD_CPU, " and ".join(k for k, r in (("lanefwd", lf), ("l3fwd", l3))
                                                  if r["note"]),
                                b("%.3fx" % est), b("met" if est >= 1.0 else "not met")))

    def print_ab(self):
        """Own cycles/packet of A and B per repetition (each pair back to back)."""
        def by_rep(key):
            return {k: r["own_cpp"] for k, r in self.clean_by_rep(key).items()
                    if r.get("own_cpp")}
        a, b = by_rep("lanefwd"), by_rep("lanefwd-b")
        reps = [k for k in sorted(a) if k in b]
        print("%s\n%s" % (self.variant("lanefwd").label, self.variant("lanefwd-b").label))
        print("rep   A cyc/pkt  B cyc/pkt   B - A")
        for k in reps:
            print("%3d  %9.2f  %9.2f  %+6.2f" % (k, a[k], b[k], b[k] - a[k]))
        if reps:
            d = [b[k] - a[k] for k in reps]
            print("B - A: median %+.2f, mean %+.2f cycles/packet; B faster in %d of %d "
                  "pairs" % (statistics.median(d), statistics.mean(d),
                             sum(x < 0 for x in d), len(d)))

    def print_table(self):
        if self.a.ab_mode:
            self.print_ab()
            return
        rows = self.table()
        w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for k, r in enumerate(rows):
            print("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i])
                            for i, c in enumerate(r)))
            if k == 0:
                print("  ".join("-" * x for x in w))
        print("\n" + self.verdict(markdown=False))
        if self.paired_line():
            print(self.paired_line())
        print("TSC %.3f GHz (%s); medians of %d repetition(s), %.0f s window"
              % (self.tsc_hz / 1e9, self.tsc_src, self.a.reps, self.a.window))

    def machine(self):
        lscpu = out("lscpu")

        def field(name):
            m = re.search(r"^%s:\s*(.*)$" % re.escape(name), lscpu, re.M)
            return m.group(1).strip() if m else "?"
        return [
            ("CPU", "%s (family %s, model %s)" % (field("Model name"), field("CPU family"),
                                                  field("Model"))),
            ("CPUs", "%s (%s core(s) per socket, %s thread(s) per core, %s socket(s))" %
             (field("CPU(s)"), field("Core(s) per socket"), field("Thread(s) per core"),
              field("Socket(s)"))),
            ("Hypervisor", field("Hypervisor vendor")),
            ("Caches", "L1d %s, L2 %s, L3 %s" % (field("L1d cache"), field("L2 cache"),
                                                 field("L3 cache"))),
            ("Kernel", out("uname -sr")),
            ("OS", out(". /etc/os-release && echo $PRETTY_NAME")),
            ("DPDK", out("pkg-config --modversion libdpdk") + " (Debian packages)"),
            ("Compiler", out("cc --version | head -1")),
            ("lanefwd", "%s, git %s%s, build/lanefwd as built by bench/bench.sh "
             "(meson release)" % (self.lf_version, self.git_head,
                                  " with uncommitted changes in src/include"
                                  if self.git_dirty else "")),
            ("Build", "lanefwd: %s; l3fwd: its Makefile, `-O3 $(pkg-config --cflags "
             "libdpdk)` then %s; testpmd and the DPDK libraries: the Debian builds (%s)" %
             (self.lanefwd_flags(), self.l3fwd_march,
              " ".join(f for f in out("pkg-config --cflags libdpdk").split()
                       if f.startswith("-march")))),
            ("TSC", "%.3f GHz (%s)" % (self.tsc_hz / 1e9, self.tsc_src)),
            ("Date", datetime.datetime.now(datetime.timezone.utc)
             .strftime("%Y-%m-%d %H:%M UTC")),
        ]

    def lanefwd_march(self):
        """The -march gcc used for lanefwd (the last one on its compile line)."""
        try:
            with open(os.path.join(ROOT, "build", "compile_commands.json")) as f:
                cmds = json.load(f)
            cmd = [c["command"] for c in cmds if c["file"].endswith("worker.c")][0]
        except (OSError, ValueError, IndexError, KeyError):
            return None
        march = [f for f in shlex.split(cmd) if f.startswith("-march=")]
        return march[-1] if march else None

    def lanefwd_flags(self):
        """-O and the -march that wins (the last one) in lanefwd's compile line."""
        try:
            with open(os.path.join(ROOT, "build", "compile_commands.json")) as f:
                cmds = json.load(f)
            cmd = [c["command"] for c in cmds if c["file"].endswith("worker.c")][0]
        except (OSError, ValueError, IndexError, KeyError):
            return "?"
        opt = [f for f in cmd.split() if re.match(r"-O[0-9s]", f)]
        march = [f for f in cmd.split() if f.startswith("-march=")]
        if len(march) > 1:
            return "meson, %s, %s (the last of %s wins)" % (
                opt[-1] if opt else "?", march[-1], ", ".join(march))
        return "meson, %s, %s" % (opt[-1] if opt else "?",
                                  march[-1] if march else "no -march")

    def write_doc(self, path):
        a, res = self.a, self.res
        lf, l3, tp = res.get("lanefwd"), res.get("l3fwd"), res.get("testpmd")
        L = []
        cmd = " ".join(["sudo bench/bench.sh"] + [shlex.quote(x) for x in sys.argv[1:]])
        L.append("# Benchmarks%s\n" % (": a dual-stack mix, %g%% of the flows IPv6" %
                                        (100 * a.ipv6_share) if a.ipv6_share else ""))
        L.append("<!-- Generated by bench/bench.sh; do not edit by hand: rerun it. -->\n")
        L.append("lanefwd against DPDK's own l3fwd (LPM) and dpdk-testpmd io forwarding on "
                 "one forwarding core, with the same virtual-device harness for all three. "
                 "Regenerate with `%s` (this run took %d min); "
                 "`bench/bench.sh --quick` gives one short repetition for iteration "
                 "and leaves this file alone.\n" % (cmd, max(1, round(self.elapsed / 60))))
        if a.ipv6_share:
            L.append("The pcap mixes IPv6 flows into the IPv4 ones (Harness, below), so "
                     "most bursts hold both families. l3fwd handles each packet by its "
                     "type in one pass; lanefwd sorts such a burst by family and runs "
                     "each part through its fused stage, IPv4 and IPv6 "
                     "(`split_bursts` in `/lanefwd/workers`; "
                     "[architecture.md](architecture.md#the-fused-fast-path)).\n")
        L.append("## Results\n")
        rows = self.table()
        L.append("| " + " | ".join(rows[0]) + " |")
        L.append("|" + "|".join(["---"] + ["---:"] * (len(rows[0]) - 1)) + "|")
        for r in rows[1:]:
            L.append("| " + " | ".join(r) + " |")
        L.append("")
        L.append(self.verdict(markdown=True) + "\n")
        if self.paired_line():
            L.append(self.paired_line() + " The two programs' Mpps move by a few per cent "
                     "from run to run on this shared machine; the spread of these ratios "
                     "is how far one comparison can be trusted. The interval covers the "
                     "repetitions of this run only: whole runs of this script have "
                     "differed by more than it (a machine-wide shift that moves every "
                     "repetition of a run).\n")
        L.append("* Mpps: packets transmitted on the null port per second, median of %d "
                 "repetitions of a %g s window after %g s of warm-up; programs interleaved." %
                 (a.reps, a.window, a.warmup))
        L.append("* cycles/pkt all-in: TSC Hz / packets per second; the forwarding core "
                 "busy-polls, so every cycle of it is counted, RX and TX drivers included.")
        L.append("* lanefwd own cycles/pkt: `busy_cycles / rx_packets` of "
                 "`/lanefwd/workers` over the same window: the loop iterations that "
                 "received packets, which here is all of them.")
        L.append("* runs: repetitions in the median (min-max). A run whose forwarding "
                 "thread was on a CPU less than %.0f%% of the window (another process "
                 "shared CPU %d) was repeated and left out; 'contended' means every "
                 "attempt was, and the best of each repetition is shown." %
                 (a.min_share * 100, FWD_CPU))
        L.append("* Mpps / cpu share: the median over every run, contended ones "
                 "included, of Mpps divided by the share of the window the forwarding "
                 "thread was on a CPU: an estimate of the program alone on its core, "
                 "for when the machine was too busy for clean runs.")
        L.append("")
        if lf and l3 and tp:
            L.append("### Reference figures\n")
            L.append("dpdk-testpmd io forwarding is the ceiling of this harness: it does no "
                     "per-packet work beyond the two drivers, so its %.1f cycles/packet are "
                     "what the pcap RX path (mbuf allocation and a copy of each frame from "
                     "the replay ring) and the null TX path (mbuf free) cost. Above that "
                     "ceiling, forwarding itself costs:\n" % tp["cpp"])
            L.append("| program | cycles/pkt all-in | above testpmd io |")
            L.append("|---|---:|---:|")
            for k in ("lanefwd", "l3fwd", "lanefwd-pf16", "lanefwd-pf4"):
                r = res.get(k)
                if r:
                    L.append("| %s | %.1f | %.1f |" % ([v.label for v in self.variants
                                                        if v.key == k][0], r["cpp"],
                                                       r["cpp"] - tp["cpp"]))
            L.append("")
            L.append("The two forwarders do not do the same work per packet. l3fwd (LPM, "
                     "SSE path): a software packet-type parse in an RX callback "
                     "(`--parse-ptype`), rte_lpm lookups four at a time, then per packet "
                     "`time_to_live--; hdr_checksum++` (the RFC 1141 shortcut), a bad-port "
                     "check on the header length only, and an SSE MAC rewrite; it leaves "
                     "the IPv4 header checksum to the NIC, so with the offload patched "
                     "out no checksum is verified, and it does not drop TTL 1. Its SSE "
                     "path prefetches no packet data (only its scalar path, not built "
                     "on x86, does). lanefwd: "
                     "Ethernet/VLAN parse, RFC 1812 IPv4 checks including a software "
                     "header-checksum verification (below) and the TTL-expiry drop, a "
                     "bulk rte_fib DIR24_8 lookup (AVX-512 under the default `fib_lookup = "
                     "auto` where the CPU has it: `fib_lookup` below; the scalar FIB "
                     "lookup row runs the scalar one), TTL decrement with an RFC 1624 "
                     "incremental checksum update, next-hop MAC rewrite, per-port TX "
                     "buffering, per-burst counters and residence histograms, and a "
                     "software prefetch of each packet's data where the port's driver "
                     "does not copy the frame itself. Under the default "
                     "`prefetch_distance = auto` the pcap port gets none (its driver "
                     "copies each frame into the mbuf on the polling core: `rx_prefetch` "
                     "below), so in that respect the first row is like for like with "
                     "l3fwd; the prefetch 16 and 4 rows force a prefetch and show what it "
                     "costs on data already in cache (docs/prefetch.md has the cold "
                     "case).\n")
        L.append("## IPv4 checksum path, packet-data prefetch and FIB lookup\n")
        if self.lf_info:
            L.append("* `/lanefwd/info`: `fib_lookup` = `%s` (`fib_lookup_mode` %s)" %
                     (self.lf_info.get("fib_lookup"), self.lf_info.get("fib_lookup_mode")))
            ports = {k: v for k, v in self.lf_info.items() if k.startswith("port_")}
            for k, pv in ports.items():
                L.append("* `/lanefwd/info` %s (%s, %s): `ipv4_cksum` = `%s`, "
                         "`rx_prefetch` = %s (`prefetch_mode` %s)" %
                         (k, pv.get("device"), pv.get("driver"), pv.get("ipv4_cksum"),
                          pv.get("rx_prefetch"), self.lf_info.get("prefetch_mode")))
        lr = [r for r in self.variant("lanefwd").runs if r["ok"]]
        if lr:
            r = lr[-1]
            L.append("* `/lanefwd/workers` over one window: `ipv4_cksum_sw` +%d for "
                     "`rx_packets` +%d: every IPv4 header was checked in software (the "
                     "vdevs have no RX checksum offload)." % (r["cksum_sw"], r["lf_rx"]))
            L.append("* lanefwd drops in the window: %d; last run's final line: `%s`" %
                     (r["lf_drops"], r.get("final")))
        L.append("")
        if self.profiles:
            L.append("## Where the forwarding core spends its time\n")
            L.append("`perf record -e cpu-clock` on the forwarding thread for one window "
                     "(this VM exposes no hardware counters, so no IPC or cache-miss "
                     "figures; symbols of the Debian DPDK libraries are their exported "
                     "ones, static PMD functions show as addresses in their library).\n")
            for k, txt in self.profiles.items():
                L.append("### %s\n" % [v.label for v in self.variants if v.key == k][0])
                L.append("```\n%s\n```\n" % txt)
        L.append("## Machine\n")
        L.append("| | |\n|---|---|")
        for k, v in self.machine():
            L.append("| %s | %s |" % (k, v.replace("|", "/")))
        L.append("\nA shared virtual machine: figures move by a few per cent between "
                 "runs, which is why the programs are interleaved and medians reported. "
                 "Virtual devices, not NICs: absolute Mpps say nothing about a real port; "
                 "the ratios and the cycles above the testpmd ceiling are the point.\n")
        L.append("## Harness\n")
        L.append("* RX: `net_pcap0,rx_pcap=bench.pcap,infinite_rx=1`: the pcap is loaded "
                 "into mbufs once and replayed from memory forever. It holds %d flows "
                 "(distinct source address and port, destinations spread over "
                 "198.18.1.1-254) of 64-byte UDP/IPv4 frames (pkt_len 64: 14 + 20 + 8 + "
                 "22 bytes of payload), valid IPv4 checksums, TTL 64." % a.flows +
                 (" A share of %g of the flows, spread evenly through the file, are "
                  "64-byte UDP/IPv6 frames to 2001:200:0:1::/64 (port 1) instead "
                  "(`--ipv6-share`)." % a.ipv6_share if a.ipv6_share else ""))
        L.append("* TX: `net_null0,no-rx=1`: frees what it is given and counts it; no-rx "
                 "so that it never feeds packets back into the forwarder.")
        L.append("* One forwarding core: lcore %d; lcore %d for the main and control "
                 "threads (telemetry included). The benchmark driver and the telemetry "
                 "client are pinned to CPU %d." % (FWD_CPU, CTRL_CPU, CTRL_CPU))
        L.append("* Routes: l3fwd adds its built-in routes for the enabled ports only "
                 "(`-p 0x3`): 198.18.0.0/24 -> 0, 198.18.1.0/24 -> 1 and two IPv6 /64s; "
                 "lanefwd gets the same four routes and l3fwd's default destination "
                 "MACs.")
        L.append("* The null port is the TX port for all three; its `opackets` from "
                 "`/ethdev/stats,%d` is the figure; the pcap port's `ipackets` "
                 "(`/ethdev/stats,%d`) over the same window is in the table of every run "
                 "(a few ms apart, so they differ slightly)." %
                 (NULL_PORT, PCAP_PORT))
        L.append("")
        L.append("## Commands\n")
        L.append("Run from the repository root (`PREFIX` is a unique EAL file prefix per "
                 "run, `$T` the script's temporary directory).\n")
        L.append("```sh")
        for c in COMMANDS:
            if not c.startswith("perf "):
                L.append(c.replace(self.tmp, "$T"))
        for v in self.variants:
            L.append("# %s" % v.label)
            cmd = v.cmd if v.kind != "lanefwd" else v.cmd[:2] + ["%s/%s.ini" % (self.tmp, v.key)]
            L.append(" ".join(shlex.quote(c) for c in cmd).replace(self.tmp, "$T"))
        perf = [c for c in COMMANDS if c.startswith("perf ")]
        if perf:
            L.append("# profiles: one more run of lanefwd and of l3fwd, TID = the "
                     "forwarding thread")
            L += [re.sub(r"-o \S+", "-o FILE", c) for c in perf]
        L.append("# per run, with one connection of the stock client:")
        L.append("dpdk-telemetry.py -f PREFIX   # reads these from stdin:")
        L.append("#   /ethdev/stats,%d   (null port: opackets)" % NULL_PORT)
        L.append("#   /ethdev/stats,%d   (pcap port: ipackets)" % PCAP_PORT)
        L.append("#   /lanefwd/info, /lanefwd/workers,%d   (lanefwd only)" % FWD_CPU)
        L.append("kill -INT PID   # each program by its own pid")
        L.append("```\n")
        L.append("The l3fwd patch replaces `.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,` in "
                 "`port_conf` by `.offloads = 0,`: 22.11 l3fwd requests the offload "
                 "unconditionally and the vdevs do not offer it. Its Makefile gets "
                 "lanefwd's `-march` after pkg-config's, so that both forwarders are "
                 "compiled alike. Nothing else is changed and the copy is never "
                 "committed.\n")
        L.append("lanefwd configuration (prefetch %s, the default; the prefetch 16 and 4 runs "
                 "differ only in" % PREFETCH + " `prefetch_distance`, the scalar FIB "
                 "lookup run only in `fib_lookup = scalar`, the latency-off run "
                 "only in `latency = no`, the "
                 "flow-cache run only by a `[flow]` section with `entries = 65536` and "
                 "the one-rule permit-all `[acl]` the cache needs in front of it: its "
                 "4096 flows miss once each and hit from then on, so it measures the "
                 "flow-cache hit path (parse, flow lookup, rewrite from the entry) "
                 "against the fused IPv4 path of the first row):\n")
        L.append("```ini")
        L.append(self.variant("lanefwd").conf.replace(self.tmp, "$T").rstrip())
        L.append("```\n")
        L.append("## Every run\n")
        L.append("cpu share: time the forwarding thread was on a CPU / window "
                 "(`/proc/PID/task/TID/schedstat`); runqueue wait: time it was runnable "
                 "but another thread had the CPU. Mpps / share estimates what the "
                 "program would do alone; it is not used in the results.\n")
        L.append("| # | program | rep | Mpps TX | Mpps RX | cpu share | runqueue wait "
                 "| Mpps / share | own cycles/pkt | in median |")
        L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
        k = 0
        for v in self.variants:
            for r in v.runs:
                k += 1
                if not r["ok"]:
                    L.append("| %d | %s | %d | failed | | | | | | %s |" %
                             (k, v.label, r["rep"], r.get("error", "")))
                    continue
                L.append("| %d | %s | %d | %.3f | %.3f | %.2f | %.2f | %.2f | %s | %s |" % (
                    k, v.label, r["rep"], r["pps"] / 1e6, r["rx_pps"] / 1e6, r["share"],
                    r["runq_wait"], r["pps"] / 1e6 / max(r["share"], 0.01),
                    "%.1f" % r["own_cpp"] if r.get("own_cpp") else "",
                    "no (contended)" if r["contended"] else "yes"))
        L.append("")
        with open(path, "w") as f:
            f.write("\n".join(L))
        log("wrote %s" % path)

    def variant(self, key):
        return [v for v in self.variants if v.key == key][0]

    def cleanup(self):
        self.stop()
        if not self.a.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            log("kept %s" % self.tmp)


def main():
    ap = argparse.ArgumentParser(
        description="lanefwd vs DPDK l3fwd vs dpdk-testpmd on pcap/null vdevs")
    ap.add_argument("--quick", action="store_true",
                    help="1 repetition, 2 s window, 1 s warm-up, lanefwd prefetch %s "
                    "only" % PREFETCH + ", no profile, docs/benchmarks.md not written")
    ap.add_argument("--reps", type=int, help="repetitions (default 5)")
    ap.add_argument("--window", type=float, help="measurement window, s (default 5)")
    ap.add_argument("--warmup", type=float, help="warm-up after start, s (default 2)")
    ap.add_argument("--flows", type=int, default=4096)
    ap.add_argument("--ipv6-share", type=float, default=0.0,
                    help="share of the flows that are UDP/IPv6 to l3fwd's IPv6 route to "
                    "port 1, spread through the pcap (default 0: all IPv4)")
    ap.add_argument("--min-share", type=float, default=0.90,
                    help="least share of the window the forwarding thread must be on "
                    "a CPU for a run to count (default 0.90)")
    ap.add_argument("--retries", type=int, default=2,
                    help="reruns of a contended run (default 2)")
    ap.add_argument("--max-wait", type=float, default=60,
                    help="longest wait for a quiet CPU %d before a run, s" % FWD_CPU)
    ap.add_argument("--main-only", action="store_true",
                    help="skip the lanefwd prefetch 16 and 4 runs")
    ap.add_argument("--no-profile", dest="profile", action="store_false",
                    help="skip the perf profile of lanefwd and l3fwd")
    ap.add_argument("--doc", help="write the report here (default docs/benchmarks.md, "
                    "not with --quick)")
    ap.add_argument("--no-doc", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--lanefwd", default=os.path.join(ROOT, "build", "lanefwd"))
    ap.add_argument("--ab", metavar="BIN",
                    help="A/B: run --lanefwd (A) and BIN (B) alone, alternating which "
                    "goes first, and print each pair's own cycles/packet (default 8 "
                    "repetitions of 4 s; no l3fwd, testpmd, profile or report)")
    ap.add_argument("--ab-prefetch", metavar="A,B",
                    help="A/B as --ab does, of prefetch_distance A against B (0-32 or "
                    "auto), on --lanefwd (or on --lanefwd and --ab)")
    ap.add_argument("--ab-fib-lookup", metavar="A,B",
                    help="A/B as --ab does, of [routes] fib_lookup A against B (auto, "
                    "scalar or avx512), on --lanefwd (or on --lanefwd and --ab)")
    a = ap.parse_args()
    if a.ab_fib_lookup:
        fl = a.ab_fib_lookup.split(",")
        if len(fl) != 2 or not all(f in ("auto", "scalar", "avx512") for f in fl):
            sys.exit("bench: --ab-fib-lookup %s: expected A,B, each auto, scalar or avx512"
                     % a.ab_fib_lookup)
        a.ab_fib_lookup = fl
    if a.ab_prefetch:
        pf = a.ab_prefetch.split(",")
        if len(pf) != 2 or not all(p == "auto" or (p.isdigit() and int(p) <= 32) for p in pf):
            sys.exit("bench: --ab-prefetch %s: expected A,B, each 0 to 32 or auto"
                     % a.ab_prefetch)
        a.ab_prefetch = pf
    a.ab_mode = bool(a.ab or a.ab_prefetch or a.ab_fib_lookup)
    if a.ab_mode:
        if a.ab and not os.access(a.ab, os.X_OK):
            sys.exit("bench: --ab %s is not an executable" % a.ab)
        a.reps = a.reps or 8
        a.window = a.window or 4.0
        a.profile = False
        a.no_doc = True
    if a.quick:
        a.reps = a.reps or 1
        a.window = a.window or 2.0
        a.warmup = a.warmup or 1.0
        a.main_only = True
        a.profile = False
        a.max_wait = min(a.max_wait, 15)
    a.reps = a.reps or 5
    a.window = a.window or 5.0
    a.warmup = a.warmup if a.warmup is not None else 2.0
    doc = None
    if not a.no_doc and (a.doc or not a.quick):
        doc = a.doc or os.path.join(ROOT, "docs", "benchmarks.md")
    if os.geteuid() != 0:
        sys.exit("bench: run as root (hugepages, vdevs)")
    if not os.access(a.lanefwd, os.X_OK):
        sys.exit("bench: %s not built (ninja -C build)" % a.lanefwd)

    os.chdir(ROOT)      # commands in the report are relative to the repository
    b = Bench(a)
    t0 = time.monotonic()

    def on_signal(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    try:
        b.setup()
        b.run_all()
        b.elapsed = time.monotonic() - t0
        b.summarize()
        print()
        b.print_table()
        if doc:
            b.write_doc(doc)
    except KeyboardInterrupt:
        log("bench: interrupted")
        return 130
    finally:
        b.cleanup()
    main_ok = all(b.res.get(k) for k in (("lanefwd", "lanefwd-b") if a.ab_mode else
                                         ("lanefwd", "l3fwd", "testpmd")))
    return 0 if main_ok else 1


if __name__ == "__main__":
    sys.exit(main())
