#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Independent checks of the PFCP messages lanefwd sends (the pfcp_wire test).

  pfcp_wire_check.py PFCP_SAMPLES

Runs PFCP_SAMPLES (tests/unit/pfcp_samples.c), which writes one message per
builder of src/control/pfcp_codec.c, then

* decodes each with scapy.contrib.pfcp and checks the message type, the
  header, the IEs in order and their values (the values pfcp_samples.c put);
* wraps them all in UDP/8805 in one pcap and runs tshark's pfcp dissector
  over it: every frame must be PFCP of the expected message type, and the
  verbose output must hold no "Malformed" and no Expert Info at all.

Exit 0 when every check holds. Run with /usr/bin/python3 (python3-scapy).
"""

import logging
import os
import subprocess
import sys
import tempfile

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.all import IP, UDP, Ether, Raw, wrpcap  # noqa: E402
from scapy.contrib import pfcp as P  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def ies(msg):
    return list(getattr(msg.payload, "IE_list", None) or [])


def types(lst):
    return [ie.ietype for ie in lst]


def tlvs(b):
    """The IEs of a grouped IE's value as (type, value) pairs, by hand."""
    out = []
    while len(b) >= 4:
        t, n = int.from_bytes(b[0:2], "big"), int.from_bytes(b[2:4], "big")
        out.append((t, b[4:4 + n]))
        b = b[4 + n:]
    check(len(b) == 0, "grouped IE with %d bytes left over" % len(b))
    return out


def usage(ur, urr_id, seqn, trig, vol, dur):
    """A Usage Report's IEs: URR ID, UR-SEQN, trigger, [times], volume, [duration]."""
    sub = {ie.ietype: ie for ie in ur.IE_list}
    check(sub[81].id == urr_id, "usage report URR ID %d" % sub[81].id)
    check(sub[104].number == seqn, "usage report UR-SEQN")
    check(getattr(sub[63], trig) == 1, "usage report trigger %s" % trig)
    v = sub[66]
    check((v.TOVOL, v.ULVOL, v.DLVOL) == (1, 1, 1), "volume flags")
    check((v.total, v.uplink, v.downlink) == vol, "volume %s" % ((v.total, v.uplink, v.downlink),))
    # scapy knows no packet counts (TONOP..): they follow as extra data.
    check(len(bytes(v.extra_data)) == 24, "packet counts present")
    if dur is None:
        check(67 not in sub, "no duration")
    else:
        check(sub[67].duration == dur, "duration")


def check_one(name, m):
    h = m
    expect = {
        "heartbeat_req": (1, 1, False),
        "heartbeat_resp": (2, 2, False),
        "version_not_supported": (11, 3, False),
        "assoc_setup_resp": (6, 4, False),
        "assoc_setup_resp_fqdn": (6, 5, False),
        "assoc_update_resp": (8, 6, False),
        "assoc_release_resp": (10, 7, False),
        "sess_est_resp": (51, 8, True),
        "sess_est_resp_err": (51, 9, True),
        "sess_mod_resp": (53, 10, True),
        "sess_del_resp": (55, 11, True),
        "sess_report_req_dldr": (56, 12, True),
        "sess_report_req_usar": (56, 13, True),
        "err_sess_mod_resp": (53, 14, True),
        "err_assoc_update_resp": (8, 15, False),
    }[name]
    check(h.version == 1, name + ": version")
    check(h.message_type == expect[0], name + ": type %d" % h.message_type)
    check(h.seq == expect[1], name + ": seq %d" % h.seq)
    check(h.S == int(expect[2]), name + ": S flag")
    if expect[2]:
        check(h.seid == 0x55, name + ": SEID %#x" % h.seid)
    check(h.length == len(bytes(h)) - 4, name + ": length field")
    lst = ies(h)
    t = types(lst)
    want_types = {
        "heartbeat_req": [96],
        "heartbeat_resp": [96],
        "version_not_supported": [],
        "assoc_setup_resp": [60, 19, 96, 43, 233, 233],
        "assoc_setup_resp_fqdn": [60, 19, 96],
        "assoc_update_resp": [60, 19, 43],
        "assoc_release_resp": [60, 19],
        "sess_est_resp": [60, 19, 57, 8, 8],
        "sess_est_resp_err": [60, 19, 40, 114],
        "sess_mod_resp": [19, 8, 78],
        "sess_del_resp": [19, 79, 79],
        "sess_report_req_dldr": [39, 83],
        "sess_report_req_usar": [39, 80],
        "err_sess_mod_resp": [19, 40],
        "err_assoc_update_resp": [60, 19, 40],
    }[name]
    check(t == want_types, name + ": IEs %s, want %s" % (t, want_types))
    if t != want_types:
        return
    if name.startswith("heartbeat"):
        check(lst[0].timestamp == 3900000000, name + ": recovery")
    if name == "assoc_setup_resp":
        check(lst[0].id_type == 0 and lst[0].ipv4 == "192.168.0.1", name + ": node id")
        check(lst[1].cause == 1, name + ": cause")
        check(lst[2].timestamp == 3900000000, name + ": recovery")
        check(lst[3].FTUP == 1 and lst[3].EMPU == 1 and lst[3].BUCP == 0, name + ": features")
        # scapy has no UE IP address Pool Information (233): its bytes, read here.
        for ie, pid, ni in ((lst[4], b"pool-a", b"internet"), (lst[5], b"ims.v6", b"ims")):
            got = tlvs(bytes(ie)[4:])
            want = [(177, len(pid).to_bytes(2, "big") + pid), (22, ni)]
            check(got == want, name + ": pool information %r, want %r" % (got, want))
    if name == "assoc_setup_resp_fqdn":
        check(lst[0].id_type == 2 and lst[0].id in (b"upf.example.net", "upf.example.net"),
              name + ": FQDN node id %r" % (lst[0].id,))
        check(lst[1].cause == 64, name + ": cause")
    if name == "assoc_update_resp":
        check(lst[2].FTUP == 1, name + ": features")
    if name == "sess_est_resp":
        f = lst[2]
        check(f.seid == 0x1000000000000001 and f.v4 == 1 and f.v6 == 1, name + ": F-SEID")
        check(f.ipv4 == "192.168.0.1" and f.ipv6 == "fd00:3::1", name + ": F-SEID addresses")
        for ie, pdr, teid, v4, v6 in ((lst[3], 1, 0x01020304, "192.168.3.1", None),
                                      (lst[4], 2, 0x05060708, None, "fd00:3::1")):
            sub = {s.ietype: s for s in ie.IE_list}
            check(sub[56].id == pdr, name + ": created PDR id")
            ft = sub[21]
            check(ft.CH == 0 and ft.TEID == teid, name + ": created F-TEID TEID")
            check((ft.V4 == 1) == (v4 is not None) and (ft.V6 == 1) == (v6 is not None),
                  name + ": created F-TEID flags")
            check(v4 is None or ft.ipv4 == v4, name + ": created F-TEID v4")
            check(v6 is None or ft.ipv6 == v6, name + ": created F-TEID v6")
            # PDR 2 also has the UE IP Address the UP chose; PDR 1 none.
            ue = sub.get(93)
            if pdr == 1:
                check(ue is None, name + ": UE IP Address in created PDR 1")
            else:
                check(ue is not None and ue.V4 == 1 and ue.V6 == 1 and ue.SD == 0 and
                      ue.spare == 0, name + ": created UE IP Address flags")
                check(ue.ipv4 == "10.45.200.1" and ue.ipv6 == "fd00:45:0:ff00::",
                      name + ": created UE IP Address %s %s" % (ue.ipv4, ue.ipv6))
    if name == "sess_est_resp_err":
        check(lst[1].cause == 73, name + ": cause")
        check(lst[2].type == 23, name + ": offending IE")
        check(lst[3].type == 0 and lst[3].pdr_id == 5, name + ": failed rule")
    if name == "sess_mod_resp":
        usage(lst[2], 3, 4, "VOLTH", (3000, 1000, 2000), 60)
    if name == "sess_del_resp":
        usage(lst[1], 3, 4, "VOLTH", (3000, 1000, 2000), 60)
        usage(lst[2], 5, 6, "TERMR", (7, 7, 0), None)
    if name == "sess_report_req_dldr":
        check(lst[0].DLDR == 1 and lst[0].USAR == 0, name + ": report type")
        check([s.id for s in lst[1].IE_list if s.ietype == 56] == [2, 4], name + ": DLDR PDRs")
    if name == "sess_report_req_usar":
        check(lst[0].USAR == 1 and lst[0].DLDR == 0, name + ": report type")
        usage(lst[1], 3, 4, "VOLTH", (3000, 1000, 2000), 60)
    if name == "err_sess_mod_resp":
        check(lst[0].cause == 69 and lst[1].type == 21, name + ": cause / offending IE")
    if name == "err_assoc_update_resp":
        check(lst[1].cause == 66 and lst[2].type == 60, name + ": cause / offending IE")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.argv[1], d], check=True)
        names = sorted(f[:-4] for f in os.listdir(d) if f.endswith(".bin"))
        check(len(names) == 15, "pfcp_samples wrote %d messages, want 15" % len(names))
        frames = []
        for name in names:
            with open(os.path.join(d, name + ".bin"), "rb") as f:
                data = f.read()
            m = P.PFCP(data)
            check(bytes(m) == data, name + ": scapy does not rebuild the same bytes")
            try:
                check_one(name, m)
            except (AttributeError, KeyError, IndexError) as e:
                failures.append("%s: scapy reads it otherwise (%r)" % (name, e))
            frames.append(Ether() / IP(src="192.168.0.1", dst="10.0.0.5") /
                          UDP(sport=8805, dport=8805) / Raw(data))
        pcap = os.path.join(d, "pfcp.pcap")
        wrpcap(pcap, frames)
        out = subprocess.run(["tshark", "-n", "-r", pcap, "-V"], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            if "Malformed" in line or "Expert Info" in line:
                failures.append("tshark: " + line.strip())
        got = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-e", "pfcp.msg_type",
                              "-e", "pfcp.seqno"], check=True, capture_output=True,
                             text=True).stdout.split("\n")
        for i, name in enumerate(names):
            m = P.PFCP(frames[i][Raw].load)
            want = "%d\t%d" % (m.message_type, m.seq)
            check(got[i] == want, "tshark frame %d (%s): %r, want %r" % (i + 1, name, got[i], want))
        # tshark's reading of the pools of the setup response.
        i = names.index("assoc_setup_resp")
        got = subprocess.run(["tshark", "-n", "-r", pcap, "-Y", "frame.number == %d" % (i + 1),
                              "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=;",
                              "-e", "pfcp.ue_ip_address_pool_identity",
                              "-e", "pfcp.network_instance"],
                             check=True, capture_output=True, text=True).stdout.strip()
        ids, nis = (got.split("\t") + [""])[:2]
        check(ids.split(";") == ["706f6f6c2d61", "696d732e7636"] or
              ids.split(";") == ["70:6f:6f:6c:2d:61", "69:6d:73:2e:76:36"],
              "tshark pool identities %r" % ids)
        check(nis.split(";") == ["internet", "ims"], "tshark network instances %r" % nis)
    for f in failures:
        print("FAIL", f)
    if not failures:
        print("pfcp wire: %d messages ok (scapy fields, tshark without expert info)" % len(names))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
