#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Traffic and CPU-time helpers of tests/integration/rxmode.sh.

  send IFACE DST_MAC N BURST GAP_MS TAG   N UDP frames out of IFACE (AF_PACKET),
                                          BURST at a time, GAP_MS between bursts
  sniff IFACE N TIMEOUT_S TAG OUT         count the frames tagged TAG that IFACE
                                          receives, until N or the timeout; the
                                          count goes to OUT
  cpu PID LCORE SECONDS                   CPU seconds the EAL thread of LCORE used
                                          over SECONDS of wall time, as a share of
                                          one core (from /proc, the kernel's count)
"""
import os
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lftest import inet_checksum, mac_bytes  # noqa: E402

ETH_P_ALL = 0x0003
SRC_MAC = mac_bytes("02:00:1e:01:01:02")


def frame(dst_mac, tag, seq):
    payload = struct.pack("!4sI", tag.encode()[:4].ljust(4, b"_"), seq) + bytes(18)
    udp = struct.pack("!HHHH", 40000, 7777, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), seq & 0xFFFF, 0, 64, 17, 0,
                     bytes([10, 30, 1, 2]), bytes([10, 30, 2, 2]))
    ip = ip[:10] + struct.pack("!H", inet_checksum(ip)) + ip[12:]
    return mac_bytes(dst_mac) + SRC_MAC + b"\x08\x00" + ip + udp


def send(iface, dst_mac, n, burst, gap_ms, tag):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    for i in range(n):
        s.send(frame(dst_mac, tag, i))
        if (i + 1) % burst == 0:
            time.sleep(gap_ms / 1000.0)


def sniff(iface, n, timeout, tag, out):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(0.2)
    # Tell the shell the socket listens (the sender waits for this file).
    open(out + ".ready", "w").close()
    want = tag.encode()[:4].ljust(4, b"_")
    seen = set()
    end = time.monotonic() + timeout
    while len(seen) < n and time.monotonic() < end:
        try:
            data, addr = s.recvfrom(2048)
        except socket.timeout:
            continue
        # Frames the interface received (not those it sent), ours by tag.
        if addr[2] == socket.PACKET_OUTGOING or len(data) < 50:
            continue
        if data[12:14] == b"\x08\x00" and data[23] == 17 and data[42:46] == want:
            seen.add(struct.unpack("!I", data[46:50])[0])
    with open(out, "w") as f:
        f.write("%d\n" % len(seen))


def thread_of(pid, lcore):
    """EAL's thread of LCORE: named lcore-worker-N, or else the one thread
    pinned to that CPU alone (EAL pins each lcore; lcore N is CPU N here)."""
    names = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            names[int(tid)] = f.read().strip()
        if names[int(tid)].endswith("worker-%d" % lcore):
            return int(tid)
    for tid in names:
        with open("/proc/%d/task/%d/status" % (pid, tid)) as f:
            if "Cpus_allowed_list:\t%d\n" % lcore in f.read():
                return tid
    sys.exit("no thread of lcore %d in process %d: %s" % (lcore, pid, names))


def cpu_ticks(pid, tid):
    with open("/proc/%d/task/%d/stat" % (pid, tid)) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def cpu(pid, lcore, seconds):
    tid = thread_of(pid, lcore)
    hz = os.sysconf("SC_CLK_TCK")
    t0, c0 = time.monotonic(), cpu_ticks(pid, tid)
    time.sleep(seconds)
    t1, c1 = time.monotonic(), cpu_ticks(pid, tid)
    print("%.3f" % ((c1 - c0) / hz / (t1 - t0)))


if __name__ == "__main__":
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "send":
        send(a[0], a[1], int(a[2]), int(a[3]), float(a[4]), a[5])
    elif cmd == "sniff":
        sniff(a[0], int(a[1]), float(a[2]), a[3], a[4])
    elif cmd == "cpu":
        cpu(int(a[0]), int(a[1]), float(a[2]))
    else:
        sys.exit(__doc__)
