"""Helpers of frr_bgp.sh and frr_ecmp.sh.

  frr_bgp.py wait-fib FIRST N SECS STATE
      Poll lanefwd's /lanefwd/netlink (FRR_LF_PREFIX's telemetry socket, one
      connection) until routes_installed is N (STATE "in"), or 0 with 50
      sampled prefixes of the N /24s from FIRST (A.B) without a route
      (STATE "out"); print the seconds it took.
  frr_bgp.py fib FIRST N SAMPLE STATE PORT MAC
      Look SAMPLE of the N /24s from FIRST (A.B) up with /lanefwd/fib/lookup:
      STATE "in": each one's route is that /24, learnt from the kernel, out
      of PORT to MAC; "out": no route. Prints the counts.
  frr_bgp.py fib6 N STATE PORT MAC
      The same for every one of the N /48s 2001:db8:100::/48,
      2001:db8:101::/48, ... (address ::77 of each).
  frr_bgp.py stats
      /lanefwd/stats as one JSON line.
  frr_bgp.py send FIRST N FLOWS PORT0
      (in the hosts' namespace) FLOWS UDP datagrams, flow i to address .77 of
      /24 number i mod N and destination port PORT0 + i, through the kernel's
      default route; the source port varies with the socket.
The telemetry client speaks DPDK's v2 protocol (SOCK_SEQPACKET, JSON), as
dpdk-telemetry.py does, but keeps one connection for many commands: a few
hundred lookups through dpdk-telemetry.py would each start Python.
"""
import json
import os
import random
import socket
import sys
import time


def tel_connect():
    path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % os.environ["FRR_LF_PREFIX"]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    info = json.loads(s.recv(16384).decode())
    return s, info["max_output_len"]


def tel(conn, cmd):
    s, maxlen = conn
    s.send(cmd.encode())
    return json.loads(s.recv(maxlen).decode())[cmd.split(",")[0]]


def addrs(first, n):
    a, b = (int(x) for x in first.split("."))
    return ["%d.%d.%d" % (a, b + i // 256, i % 256) for i in range(n)]


def sample(first, n, k):
    nets = addrs(first, n)
    rnd = random.Random(15)
    # Always the first and the last, the rest spread at random.
    pick = sorted(set([0, n - 1] + rnd.sample(range(n), min(k, n) - 2)))
    return [nets[i] for i in pick]


def lookup_state(conn, net):
    r = tel(conn, "/lanefwd/fib/lookup,%s.77" % net)
    return r


def main():
    cmd = sys.argv[1]
    if cmd == "wait-fib":
        first, n, secs, state = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
        conn = tel_connect()
        t0 = time.monotonic()
        nets = sample(first, n, 50)
        last = {}
        while time.monotonic() - t0 < secs:
            last = tel(conn, "/lanefwd/netlink")
            if state == "in" and last.get("routes_installed") == n:
                break
            if state == "out" and last.get("routes_installed") == 0 and all(
                    lookup_state(conn, x).get("route") == "none" for x in nets):
                break
            time.sleep(0.1)
        else:
            sys.exit("after %.0f s /lanefwd/netlink says %s" % (secs, json.dumps(last)))
        print("%.1f" % (time.monotonic() - t0))
    elif cmd == "fib":
        first, n, k, state, port, mac = (sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                                         sys.argv[5], sys.argv[6], sys.argv[7].lower())
        conn = tel_connect()
        bad = []
        nets = sample(first, n, k)
        for net in nets:
            r = lookup_state(conn, net)
            if state == "in":
                ok = (r.get("prefix") == net + ".0/24" and r.get("source") == "kernel" and
                      r.get("port") == port and r.get("dst_mac", "").lower() == mac)
            else:
                ok = r.get("route") == "none"
            if not ok:
                bad.append((net, r))
        print("%d of %d sampled prefixes %s lanefwd's FIB as expected" %
              (len(nets) - len(bad), len(nets), "in" if state == "in" else "out of"))
        if bad:
            for net, r in bad[:5]:
                print("  %s.77: %s" % (net, json.dumps(r)), file=sys.stderr)
            sys.exit("%d sampled prefixes wrong" % len(bad))
    elif cmd == "fib6":
        n, state, port, mac = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5].lower()
        conn = tel_connect()
        bad = []
        for i in range(n):
            net = "2001:db8:%x::" % (0x100 + i)
            r = tel(conn, "/lanefwd/fib/lookup,%s77" % net)
            if state == "in":
                ok = (r.get("prefix") == net + "/48" and r.get("source") == "kernel" and
                      r.get("port") == port and r.get("dst_mac", "").lower() == mac)
            else:
                ok = r.get("route") == "none"
            if not ok:
                bad.append((net, r))
        print("%d of %d IPv6 prefixes %s lanefwd's FIB as expected" %
              (n - len(bad), n, "in" if state == "in" else "out of"))
        if bad:
            for net, r in bad[:5]:
                print("  %s77: %s" % (net, json.dumps(r)), file=sys.stderr)
            sys.exit("%d IPv6 prefixes wrong" % len(bad))
    elif cmd == "stats":
        conn = tel_connect()
        print(json.dumps(tel(conn, "/lanefwd/stats")))
    elif cmd == "send":
        first, n, flows, port0 = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        nets = addrs(first, n)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sent = 0
        for i in range(flows):
            try:
                s.sendto(b"lanefwd-frr %d" % i, (nets[i % n] + ".77", port0 + i % 20000))
                sent += 1
            except OSError as e:
                sys.exit("send %d: %s" % (i, e))
            if i % 50 == 49:
                time.sleep(0.005)
        print(sent)
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
