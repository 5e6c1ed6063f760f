"""Oracles shared by the lanefwd integration tests.

Nothing here uses lanefwd's code or its idea of a packet: pcap files are read
with a plain struct reader, frames are decoded by tshark, the route lookup is
a longest-prefix match over Python's ipaddress module, the IPv4 checksum is
recomputed from scratch (RFC 1071), and the configuration is read with
configparser.
"""

import configparser
import ipaddress
import json
import os
import re
import struct
import subprocess

DROP_REASONS = [
    "l2_malformed", "l3_malformed", "l4_malformed", "bad_checksum",
    "ttl_expired", "no_route", "no_nexthop", "non_ip", "acl_deny", "upf", "loop",
    "tx_full", "martian_src", "martian_dst", "l2_not_ours", "l2_mcast_unicast_ip",
    "mtu_exceeded", "no_exception", "punt_ratelimit", "punt_full", "neigh_unresolved",
]

# Routes every FIB holds besides the route files' (tables.c special_prefixes:
# martian destinations, link-scope groups, the limited broadcast); IPv6 adds
# each port's link-local address.
OWN_ROUTES4 = 7
OWN_ROUTES6 = 5

# The router's own events (dp.h LF_EVENTS): in /lanefwd/stats and the workers'
# dicts, and on lanefwd's final "lanefwd: events:" line.
EVENTS = [
    "icmp_echo_reply", "icmp_time_exceeded", "icmp_unreachable", "icmp_frag_needed",
    "icmp_suppressed", "punt_exception", "punt_ctrl", "exception_rx", "ctrl_tx", "ctrl_rerun",
]

ETH_IPV4 = 0x0800
ETH_IPV6 = 0x86DD
ETH_VLAN_TAGS = (0x8100, 0x88A8)


class CheckError(Exception):
    """A failed assertion about lanefwd's behaviour."""


def check(cond, msg):
    if not cond:
        raise CheckError(msg)


# ---------------------------------------------------------------- pcap files

def read_pcap(path):
    """Frames of a classic pcap file (micro- or nanosecond, either byte order)."""
    with open(path, "rb") as f:
        data = f.read()
    check(len(data) >= 24, f"{path}: not a pcap file ({len(data)} bytes)")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise CheckError(f"{path}: unknown pcap magic {magic.hex()}")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    check(linktype == 1, f"{path}: link type {linktype}, expected Ethernet (1)")
    frames = []
    off = 24
    while off < len(data):
        check(off + 16 <= len(data), f"{path}: truncated record header")
        _, _, caplen, origlen = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        check(off + caplen <= len(data), f"{path}: truncated record")
        check(caplen == origlen, f"{path}: frame captured short ({caplen} of {origlen})")
        frames.append(data[off:off + caplen])
        off += caplen
    return frames


# ------------------------------------------------------------ configuration

def load_config(path):
    """The parts of a lanefwd INI file the oracles need."""
    cp = configparser.ConfigParser(inline_comment_prefixes=("#",),
                                   comment_prefixes=("#",), strict=True)
    cp.optionxform = str
    with open(path) as f:
        cp.read_file(f)
    base = os.path.dirname(os.path.abspath(path))
    cfg = {"ports": [], "nexthops": {}, "routes4": [], "routes6": [],
           "pipeline": dict(cp["pipeline"]) if cp.has_section("pipeline") else {}}
    for sec in cp.sections():
        kind, _, arg = sec.partition(" ")
        if kind == "port":
            cfg["ports"].append(arg.strip())
        elif kind == "nexthop":
            s = cp[sec]
            cfg["nexthops"][int(arg)] = {
                "port": s["port"], "mac": s["mac"].lower(),
                "src_mac": s.get("src_mac", "").lower() or None}
    cfg["fib_lookup"] = (cp["routes"].get("fib_lookup", "auto")
                         if cp.has_section("routes") else "auto")
    if cp.has_section("routes"):
        for af in ("4", "6"):
            name = cp["routes"].get("ipv" + af)
            if name:
                full = name if name.startswith("/") else os.path.join(base, name)
                cfg["routes" + af] = read_routes(full)
    return cfg


def expected_fib_lookup(mode):
    """The [routes] fib_lookup that lanefwd should report in use for MODE:
    avx512 when asked for, or for auto where the CPU has AVX-512F (the
    kernel's flags; Debian's DPDK is built with the AVX-512 lookups)."""
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^flags\s*:(.*)$", f.read(), re.M)
    avx512f = m is not None and "avx512f" in m[1].split()
    return "avx512" if mode == "avx512" or (mode == "auto" and avx512f) else "scalar"


def expected_fused_stages():
    """The build of the fused IPv4 stages lanefwd should pick at EAL's default
    SIMD width: avx512 where the kernel's CPU flags show AVX-512 F, BW, VL and
    VBMI, scalar elsewhere."""
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^flags\s*:(.*)$", f.read(), re.M)
    flags = set(m[1].split()) if m is not None else set()
    need = {"avx512f", "avx512bw", "avx512vl", "avx512vbmi"}
    return "avx512" if need <= flags else "scalar"


def read_routes(path):
    routes = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            prefix, nh = line.split()
            routes.append((ipaddress.ip_network(prefix, strict=True), int(nh)))
    return routes


def lpm(routes, addr):
    """Next-hop id of the longest matching prefix, or None."""
    a = ipaddress.ip_address(addr)
    best = None
    for net, nh in routes:
        if a in net and (best is None or net.prefixlen > best[0].prefixlen):
            best = (net, nh)
    return None if best is None else best[1]


# ------------------------------------------------------------ frame oracles

def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def inet_checksum(data):
    """RFC 1071 Internet checksum of data (checksum field already zeroed)."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def l3_of(frame):
    """(ethertype, L3 offset) after up to any number of VLAN tags."""
    off = 12
    et = struct.unpack("!H", frame[off:off + 2])[0]
    off += 2
    while et in ETH_VLAN_TAGS:
        et = struct.unpack("!H", frame[off + 2:off + 4])[0]
        off += 4
    return et, off


def dst_addr(frame):
    et, off = l3_of(frame)
    if et == ETH_IPV4:
        return str(ipaddress.IPv4Address(frame[off + 16:off + 20]))
    return str(ipaddress.IPv6Address(frame[off + 24:off + 40]))


def forwarded_frame(frame, dst_mac, src_mac):
    """What a router must emit for frame: new MACs, no VLAN tags, TTL or hop
    limit one lower, IPv4 header checksum valid, everything else as it was."""
    et, off = l3_of(frame)
    l3 = bytearray(frame[off:])
    if et == ETH_IPV4:
        ihl = (l3[0] & 0x0F) * 4
        l3[8] -= 1
        l3[10:12] = b"\0\0"
        l3[10:12] = struct.pack("!H", inet_checksum(bytes(l3[:ihl])))
    else:
        l3[7] -= 1
    return mac_bytes(dst_mac) + mac_bytes(src_mac) + struct.pack("!H", et) + bytes(l3)


def packet_key(frame):
    """("4", IP id) or ("6", flow label): the tests make them unique."""
    et, off = l3_of(frame)
    if et == ETH_IPV4:
        return ("4", struct.unpack("!H", frame[off + 4:off + 6])[0])
    return ("6", struct.unpack("!I", frame[off:off + 4])[0] & 0xFFFFF)


def order_class(frame):
    """What lanefwd keeps in order on a port: a flow is of one family and one
    VLAN, and pipeline_run may send a burst's untagged IPv4 packets before
    its others (IPv6, tagged frames)."""
    et, off = l3_of(frame)
    return ("4" if et == ETH_IPV4 else "6", off > 14)


def same_order_per_class(got, want, cls):
    """got and want hold the same items, once each, and the items of each
    class cls(item) come in the same order in both."""
    if len(got) != len(want) or set(got) != set(want):
        return False
    return all([g for g in got if cls(g) == c] == [w for w in want if cls(w) == c]
               for c in {cls(w) for w in want})


def same_output(got, want, in_frames):
    """Two runs' frames out of one port (lists of bytes) are the same frames,
    in the same order within each order class of the input frame they came
    from (in_frames: the input, whose IP frames have unique packet_keys)."""
    cls = {}
    for f in in_frames:
        try:
            cls[packet_key(f)] = order_class(f)
        except (struct.error, IndexError):
            pass
    kg, kw = [packet_key(f) for f in got], [packet_key(f) for f in want]
    return same_order_per_class(kg, kw, cls.get) and dict(zip(kg, got)) == dict(zip(kw, want))


# ------------------------------------------------------------------ tshark

TSHARK_OPTS = ["-o", "ip.check_checksum:TRUE", "-o", "ip.defragment:FALSE",
               "-o", "ipv6.defragment:FALSE"]


def tshark(path, fields):
    """One dict per frame of the fields tshark decodes (all occurrences,
    comma-separated)."""
    cmd = ["tshark", "-n", "-r", path, *TSHARK_OPTS, "-T", "fields",
           "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        vals = line.split("|")
        check(len(vals) == len(fields), f"tshark: unexpected line {line!r}")
        rows.append(dict(zip(fields, vals)))
    return rows


# --------------------------------------------------------- lanefwd outputs

def load_tel(path):
    """The reply of one telemetry command, without the command key."""
    with open(path) as f:
        text = f.read()
    try:
        d = json.loads(text)
    except ValueError:
        raise CheckError(f"{path}: not JSON: {text!r}")
    check(isinstance(d, dict) and len(d) == 1, f"{path}: unexpected reply {text!r}")
    return next(iter(d.values()))


FINAL_TOTAL = re.compile(r"^lanefwd: total: rx (\d+) tx (\d+) drops (\d+)((?: \w+ \d+)*)$")
FINAL_EVENTS = re.compile(r"^lanefwd: events:((?: \w+ \d+)*)$")
FINAL_WORKER = re.compile(r"^lanefwd: worker lcore (\d+): rx (\d+) tx (\d+) "
                          r"busy_cycles (\d+) idle_cycles (\d+) cycles/packet ([\d.]+)$")


def parse_final(log_path):
    """lanefwd's final counters: (totals, {lcore: worker})."""
    total = None
    workers = {}
    with open(log_path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = FINAL_TOTAL.match(line)
            if m:
                check(total is None, "two 'lanefwd: total:' lines")
                total = {"rx": int(m[1]), "tx": int(m[2]), "drops": int(m[3])}
                total.update({r: 0 for r in DROP_REASONS})
                words = m[4].split()
                for name, count in zip(words[0::2], words[1::2]):
                    check(name in DROP_REASONS, f"unknown drop reason {name!r} in {line!r}")
                    total[name] = int(count)
                continue
            m = FINAL_WORKER.match(line)
            if m:
                workers[int(m[1])] = {
                    "rx": int(m[2]), "tx": int(m[3]), "busy_cycles": int(m[4]),
                    "idle_cycles": int(m[5]), "cycles_per_packet": float(m[6])}
    check(total is not None, f"{log_path}: no 'lanefwd: total:' line")
    return total, workers


def parse_final_events(log_path):
    """The events of lanefwd's final "lanefwd: events:" line."""
    events = None
    with open(log_path) as f:
        for line in f:
            m = FINAL_EVENTS.match(line.rstrip("\n"))
            if m:
                check(events is None, "two 'lanefwd: events:' lines")
                events = {e: 0 for e in EVENTS}
                words = m[1].split()
                for name, count in zip(words[0::2], words[1::2]):
                    check(name in EVENTS, f"unknown event {name!r} in {line!r}")
                    events[name] = int(count)
    check(events is not None, f"{log_path}: no 'lanefwd: events:' line")
    return events


def balance(rx, tx, drops, ev):
    """lanefwd's accounting (dp.h LF_EVENTS): what came in (received, built
    by the control thread, released by it, sent by the kernel) went out or
    was dropped or is with the control thread. None, or why not."""
    into = rx + ev.get("ctrl_tx", 0) + ev.get("ctrl_rerun", 0) + ev.get("exception_rx", 0)
    out = tx + drops + ev.get("punt_ctrl", 0)
    if into == out:
        return None
    return (f"rx {rx} + ctrl_tx {ev.get('ctrl_tx', 0)} + ctrl_rerun {ev.get('ctrl_rerun', 0)} "
            f"+ exception_rx {ev.get('exception_rx', 0)} != tx {tx} + drops {drops} "
            f"+ punt_ctrl {ev.get('punt_ctrl', 0)}")


def write_pcap(path, frames):
    """A classic microsecond pcap file of Ethernet frames (bytes)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000000, i % 1000000,
                                len(fr), len(fr)))
            f.write(fr)
