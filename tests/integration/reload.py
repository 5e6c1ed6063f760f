"""Hot-reload checks of reload.sh (see its header for the phases).

reload.py setup --dir D --prefix P --p0 IF --p1 IF   write lanefwd.conf and its files
reload.py recv --dir D                               (in ns2) count UDP datagrams per port
reload.py send --dst A --port N --count C --pps R    (in ns1) send C datagrams
reload.py run --dir D --prefix P --ns1 NS --pid PID  the phases and their checks

The oracle is what arrives in ns2 (a plain UDP socket) and what lanefwd's
counters say, never lanefwd's own idea of the tables.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lftest  # noqa: E402

NS2_ADDR = "10.10.2.2"
PORTS = (9000, 9001)
SRC_PORT_BASE = 40000
ROUTES_OK = "10.10.1.0/24 1\n10.10.2.0/24 2\n"
ROUTES_NO_NS2 = "10.10.1.0/24 1\n"
ACL_PERMIT = "# permit everything\n@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\tpermit\n"
ACL_DENY_9001 = ("@0.0.0.0/0\t10.10.2.2/32\t0 : 65535\t9001 : 9001\t0x11/0xFF\tdeny\n"
                 + ACL_PERMIT)
NS2_MAC = "02:00:0a:0a:02:02"
WRONG_MAC = "02:00:0a:0a:02:99"

CONF = """[eal]
main_lcore = 0
file_prefix = {prefix}
telemetry = yes
huge = yes
iova_mode = va

[pipeline]
burst = {burst}
prefetch_distance = 4

[routes]
ipv4 = routes4.txt
fib_lookup = {fib}
ipv4_max_routes = 1024
ipv4_tbl8 = 256
ipv6_max_routes = 1024
ipv6_tbl8 = 256

[acl]
ipv4 = acl4.txt
default = permit

# The flow cache on: every datagram after a flow's first is a hit on a cached
# verdict, which a reload must invalidate.
[flow]
entries = 4096

[port p0]
vdev = net_af_xdp0,iface={p0},start_queue=0,queue_count=1

[port p1]
vdev = net_af_xdp1,iface={p1},start_queue=0,queue_count=1

[worker 1]
rx = p0:0 p1:0

[nexthop 1]
port = p0
mac = 02:00:0a:0a:01:02

[nexthop 2]
port = p1
mac = {ns2_mac}
"""

errors = []


def need(cond, msg):
    if not cond:
        errors.append(msg)
        print("FAIL: " + msg, file=sys.stderr, flush=True)


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_conf(d, prefix, p0, p1, burst=32, ns2_mac=NS2_MAC, fib="auto"):
    write(os.path.join(d, "lanefwd.conf"),
          CONF.format(prefix=prefix, p0=p0, p1=p1, burst=burst, ns2_mac=ns2_mac, fib=fib))
    # Keep the interface names for later rewrites.
    write(os.path.join(d, "ifaces.json"), json.dumps({"p0": p0, "p1": p1}))


# ------------------------------------------------------------------ receiver

def recv(d):
    socks = []
    for port in PORTS:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind(("0.0.0.0", port))
        socks.append(s)
    counts = {str(p): 0 for p in PORTS}
    lock = threading.Lock()
    path = os.path.join(d, "recv.json")

    def loop(s, port):
        while True:
            s.recv(2048)
            with lock:
                counts[str(port)] += 1
                write(path, json.dumps(counts))

    write(path, json.dumps(counts))
    threads = [threading.Thread(target=loop, args=(s, p), daemon=True)
               for s, p in zip(socks, PORTS)]
    for t in threads:
        t.start()
    while True:
        time.sleep(3600)


def send(dst, port, count, pps):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # A fixed source port: every phase sends the same flow to a port, so
    # the verdict cached before a reload is there to be (wrongly) used after.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", SRC_PORT_BASE + port - PORTS[0]))
    gap = 1.0 / pps
    t0 = time.monotonic()
    for i in range(count):
        s.sendto(b"lanefwd-reload %08d" % i, (dst, port))
        pause = t0 + (i + 1) * gap - time.monotonic()
        if pause > 0:
            time.sleep(pause)


# ------------------------------------------------------------------- checks

class Lanefwd:
    def __init__(self, d, prefix, ns1, pid):
        self.d, self.prefix, self.ns1, self.pid = d, prefix, ns1, pid

    def tel(self, cmd):
        out = subprocess.run(["dpdk-telemetry.py", "-f", self.prefix], input=cmd + "\n",
                             capture_output=True, text=True, timeout=120).stdout
        line = out.strip().splitlines()[-1]
        reply = json.loads(line)
        return reply[cmd.split(",")[0]]

    def stats(self):
        return self.tel("/lanefwd/stats")

    def received(self):
        with open(os.path.join(self.d, "recv.json")) as f:
            return {int(k): v for k, v in json.load(f).items()}

    def send(self, port, count, pps=500):
        subprocess.run(["ip", "netns", "exec", self.ns1, sys.executable, __file__, "send",
                        "--dst", NS2_ADDR, "--port", str(port), "--count", str(count),
                        "--pps", str(pps)], check=True, timeout=120)

    def phase(self, name, sends, arrive, drops):
        """Send {port: count}; expect arrive {port: count} and drop deltas {reason: count}."""
        s0, r0 = self.stats(), self.received()
        for port, count in sends.items():
            self.send(port, count)
        # Until lanefwd has received and accounted for every datagram sent,
        # all that should arrive has, and every drop is counted (a busy
        # machine can be slow to run the receiver or the worker).
        deadline = time.monotonic() + 30
        want = {p: r0[p] + arrive.get(p, 0) for p in PORTS}
        sent = sum(sends.values())

        def done():
            s = self.stats()
            return (self.received() == want and s["rx_packets"] - s0["rx_packets"] >= sent
                    and lftest.balance(s["rx_packets"], s["tx_packets"], s["drops"], s) is None
                    and all(s["drop_" + r] - s0["drop_" + r] >= n for r, n in drops.items()))

        while time.monotonic() < deadline and not done():
            time.sleep(0.1)
        time.sleep(0.3)  # anything late or extra shows up now
        s1, r1 = self.stats(), self.received()
        got = {p: r1[p] - r0[p] for p in PORTS}
        need(got == {p: arrive.get(p, 0) for p in PORTS},
             f"{name}: ns2 received {got}, expected {arrive}")
        for reason, n in drops.items():
            k = "drop_" + reason
            need(s1[k] - s0[k] == n,
                 f"{name}: lanefwd {k} grew by {s1[k] - s0[k]}, expected {n}")
        print(f"{name}: received {got}, drops " +
              ", ".join(f"{r} +{s1['drop_' + r] - s0['drop_' + r]}" for r in drops), flush=True)

    def reload(self, expect_ok, gen, what):
        t0 = time.monotonic()
        r = self.tel("/lanefwd/reload")
        ms = (time.monotonic() - t0) * 1e3
        need(r.get("status") == ("ok" if expect_ok else "error"),
             f"{what}: /lanefwd/reload answered {r}, expected status "
             f"{'ok' if expect_ok else 'error'}")
        need(r.get("generation") == gen,
             f"{what}: /lanefwd/reload answered generation {r.get('generation')}, expected {gen}")
        print(f"{what}: {r} ({ms:.0f} ms)", flush=True)
        return r

    def info(self):
        return self.tel("/lanefwd/info")


def files(d, routes=None, acl=None):
    if routes is not None:
        write(os.path.join(d, "routes4.txt"), routes)
    if acl is not None:
        write(os.path.join(d, "acl4.txt"), acl)


def run(a):
    lf = Lanefwd(a.dir, a.prefix, a.ns1, a.pid)
    with open(os.path.join(a.dir, "ifaces.json")) as f:
        ifs = json.load(f)
    deadline = time.monotonic() + 10
    while not os.path.exists(os.path.join(a.dir, "recv.json")) and time.monotonic() < deadline:
        time.sleep(0.1)
    info = lf.info()
    need(info["generation"] == 1 and info["reloads"] == 0 and info["reload_failures"] == 0,
         f"start: /lanefwd/info generation/reloads/failures {info['generation']}/"
         f"{info['reloads']}/{info['reload_failures']}, expected 1/0/0")

    lf.phase("1 start", {9000: 50, 9001: 50}, {9000: 50, 9001: 50},
             {"no_route": 0, "acl_deny": 0})

    files(a.dir, routes=ROUTES_NO_NS2)
    lf.reload(True, 2, "2 reload without the route to ns2")
    lf.phase("2 no route", {9000: 50}, {}, {"no_route": 50, "acl_deny": 0})

    files(a.dir, routes=ROUTES_OK + "10.10.3.0/33 2\n")
    r = lf.reload(False, 2, "3 reload with a bad route line")
    err = r.get("error", "")
    need("routes4.txt:3" in err and "10.10.3.0/33" in err,
         f"3: the error does not name routes4.txt:3 and the bad value: {err!r}")
    lf.phase("3 still no route", {9000: 50}, {}, {"no_route": 50})

    files(a.dir, routes=ROUTES_OK)
    write_conf(a.dir, a.prefix, ifs["p0"], ifs["p1"], burst=64)
    r = lf.reload(False, 2, "4 reload with [pipeline] changed")
    need("[pipeline]" in r.get("error", "") and "restart" in r.get("error", ""),
         f"4: the error does not say [pipeline] needs a restart: {r.get('error')!r}")
    lf.phase("4 still no route", {9000: 20}, {}, {"no_route": 20})
    write_conf(a.dir, a.prefix, ifs["p0"], ifs["p1"])

    files(a.dir, acl=ACL_DENY_9001)
    lf.reload(True, 3, "5 reload: route back, deny UDP to port 9001")
    lf.phase("5 route back, acl deny", {9000: 50, 9001: 50}, {9000: 50},
             {"no_route": 0, "acl_deny": 50})

    files(a.dir, acl=ACL_PERMIT)
    os.kill(a.pid, signal.SIGHUP)
    deadline = time.monotonic() + 20
    while lf.info()["generation"] != 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    need(lf.info()["generation"] == 4, "6: SIGHUP did not bring generation 4")
    lf.phase("6 after SIGHUP, permit", {9001: 50}, {9001: 50}, {"acl_deny": 0})

    write_conf(a.dir, a.prefix, ifs["p0"], ifs["p1"], ns2_mac=WRONG_MAC)
    lf.reload(True, 5, "7 reload: next hop 2 with a wrong MAC")
    s0 = lf.stats()
    lf.phase("7 wrong MAC", {9000: 30}, {}, {"no_route": 0, "acl_deny": 0})
    s1 = lf.stats()
    need(s1["tx_packets"] - s0["tx_packets"] >= 30,
         f"7: lanefwd sent {s1['tx_packets'] - s0['tx_packets']} packets, expected >= 30 "
         "(forwarded to a MAC ns2 does not own)")
    write_conf(a.dir, a.prefix, ifs["p0"], ifs["p1"])
    lf.reload(True, 6, "7 reload: next hop 2 right again")
    lf.phase("7 right MAC", {9000: 30}, {9000: 30}, {"no_route": 0})

    # 8: traffic keeps flowing while reloads build and publish tables.
    r0 = lf.received()
    s0 = lf.stats()
    sender = subprocess.Popen(["ip", "netns", "exec", a.ns1, sys.executable, __file__, "send",
                               "--dst", NS2_ADDR, "--port", "9000", "--count", "3000",
                               "--pps", "1000"])
    # The reloads alternate [routes] fib_lookup: each new generation's FIB
    # takes the lookup its configuration names.
    for g in range(7, 12):
        time.sleep(0.4)
        fib = "scalar" if g % 2 else "auto"
        write_conf(a.dir, a.prefix, ifs["p0"], ifs["p1"], fib=fib)
        lf.reload(True, g, f"8 reload under traffic ({g}, fib_lookup = {fib})")
        want = lftest.expected_fib_lookup(fib)
        got = lf.info()
        need((got["fib_lookup"], got["fib_lookup_mode"]) == (want, fib),
             f"8: generation {g} with fib_lookup = {fib}: /lanefwd/info fib_lookup "
             f"{got['fib_lookup']!r} ({got['fib_lookup_mode']!r}), expected {want!r}")
    sender.wait(timeout=60)
    deadline = time.monotonic() + 30
    while lf.received()[9000] - r0[9000] < 3000 and time.monotonic() < deadline:
        time.sleep(0.1)
    s1 = lf.stats()
    got = lf.received()[9000] - r0[9000]
    lost = s1["drops"] - s0["drops"]
    need(got == 3000, f"8: ns2 received {got} of 3000 datagrams sent during 5 reloads "
         f"(lanefwd drops +{lost})")
    print(f"8 under traffic: received {got} of 3000 during 5 reloads", flush=True)

    flows = lf.tel("/lanefwd/flows")["1"]
    need(flows["hits"] > 3000 and flows["inserts"] <= 4,
         f"end: the flow cache served {flows['hits']} hits for {flows['inserts']} flows; "
         "the phases above must have run on the same two flows' cached verdicts")
    print(f"flow cache: {flows['hits']} hits, {flows['misses']} misses, "
          f"{flows['inserts']} inserts", flush=True)

    info = lf.info()
    need(info["generation"] == 11 and info["reloads"] == 10 and info["reload_failures"] == 2,
         f"end: /lanefwd/info generation/reloads/failures {info['generation']}/"
         f"{info['reloads']}/{info['reload_failures']}, expected 11/10/2")
    need(info["last_reload_error"] == "",
         f"end: last_reload_error is {info['last_reload_error']!r} after a good reload")
    return 1 if errors else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("setup")
    p.add_argument("--dir", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--p0", required=True)
    p.add_argument("--p1", required=True)
    p = sub.add_parser("recv")
    p.add_argument("--dir", required=True)
    p = sub.add_parser("send")
    p.add_argument("--dst", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--pps", type=float, required=True)
    p = sub.add_parser("run")
    p.add_argument("--dir", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--ns1", required=True)
    p.add_argument("--pid", type=int, required=True)
    a = ap.parse_args()
    if a.cmd == "setup":
        write_conf(a.dir, a.prefix, a.p0, a.p1)
        files(a.dir, routes=ROUTES_OK, acl=ACL_PERMIT)
        return 0
    if a.cmd == "recv":
        recv(a.dir)
        return 0
    if a.cmd == "send":
        send(a.dst, a.port, a.count, a.pps)
        return 0
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
