# pcap_forward: lanefwd forwards a crafted pcap between two pcap ports.
#
# The input (pcap_forward.py gen) holds IPv4 UDP/TCP/ICMP/GRE, IPv4 with
# options and fragments, IPv6 with and without extension headers, 802.1Q and
# QinQ tagged frames, checksum corner cases, 300 random frames, and frames
# for every drop reason reachable from the wire (l2/l3/l4_malformed,
# bad_checksum, ttl_expired, no_route, non_ip). Port p0 reads it; p0 and p1
# write what lanefwd sends. pcap_forward.py check then verifies, against its
# own LPM, rewrite and checksum code and against tshark's decoding, that every
# forwarded frame left on the right port exactly once and in order, with
# TTL/hop limit one lower, a valid IPv4 checksum, the next hop's MAC as
# destination, the port's (or the next hop's src_mac) as source, no VLAN tag
# and the rest of the bytes unchanged; and that the final counter lines,
# /lanefwd/stats, /lanefwd/workers and the PMDs' /ethdev/stats all count
# rx = input frames, tx = forwarded frames and each drop under its reason,
# ARP frames as handed to the control thread (punt_ctrl).
#
# The pcap PMD cannot change its MAC address, so the ports keep theirs
# (no 'mac =' key); the expected source MAC is the one DPDK's ethdev layer
# reports (/ethdev/info), and next hop 2 sets src_mac to cover that key.
. "$(dirname "$0")/lib.sh"

D=$LF_TMP
cat > "$D/routes4.txt" <<'EOF'
# IPv4 routes: prefix/len next-hop
10.1.0.0/16 1
10.2.0.0/16 2

10.3.0.0/24 3
10.3.0.128/25 4   # more specific than the /24
10.4.0.0/16 0
10.5.5.5/32 4
EOF
cat > "$D/routes6.txt" <<'EOF'
2001:db8:1::/48 1
2001:db8:3::/48 3
2001:db8:3:8000::/49 4
EOF
cat > "$D/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = no
memory = 256

[pipeline]
burst = 32
prefetch_distance = 4

$(lf_conf_routes)

# The capture's frames are not addressed to the pcap port's MAC: take them
# as a switch port does (a routed port, the default, takes only its own).
[port p0]
vdev = net_pcap0,rx_pcap=$D/in.pcap,tx_pcap=$D/out_p0.pcap
promiscuous = yes
# No gratuitous ARP / unsolicited NA at start: tx is the forwarded frames.
[neighbour]
gratuitous = no

[port p1]
vdev = net_pcap1,rx_pcap=$D/empty.pcap,tx_pcap=$D/out_p1.pcap

[worker 1]
rx = p0:0 p1:0

[nexthop 0]
port = p0
mac = 02:00:00:00:0b:00

[nexthop 1]
port = p1
mac = 02:00:00:00:0b:01

[nexthop 2]
port = p1
mac = 02:00:00:00:0b:02
src_mac = 02:00:00:00:5c:02

[nexthop 3]
port = p0
mac = 02:00:00:00:0b:03

[nexthop 4]
port = p1
mac = 02:00:00:00:0b:04

# Expired TTLs counted as ttl_expired drops, not turned into ICMP errors.
[icmp]
time_exceeded = no
EOF

$PY "$LF_SRCDIR/tests/integration/pcap_forward.py" gen "$D" || die "cannot generate traffic"
# Three copies of the input back to back: every flow comes back, which the
# flow-cache run below needs, and the checks cover each copy alike. The
# checker tells forwarded frames apart by IPv4 id or IPv6 flow label (not
# part of a flow's key), so the copies get new ones (IPv4 checksum updated
# as RFC 1624 does, so it stays exactly as right or wrong as it was).
$PY - "$D" <<'PYEOF' || die "cannot repeat the input"
import json, os, struct, sys
sys.path.insert(0, os.path.join(os.environ["LF_SRCDIR"], "tests", "integration"))
import lftest
d = sys.argv[1]
frames = lftest.read_pcap(os.path.join(d, "in.pcap"))
manifest = json.load(open(os.path.join(d, "manifest.json")))
out, seen = [], set()
for c in range(3):
    for fr, m in zip(frames, manifest):
        fr = bytearray(fr)
        if m["reason"] is None:
            et, off = lftest.l3_of(bytes(fr))
            if et == lftest.ETH_IPV4:
                old_id, ck = struct.unpack("!H", fr[off + 4:off + 6])[0], \
                    struct.unpack("!H", fr[off + 10:off + 12])[0]
                new_id = (old_id + c * 4099) & 0xFFFF
                s = (~ck & 0xFFFF) + (~old_id & 0xFFFF) + new_id
                s = (s & 0xFFFF) + (s >> 16)
                s = (s & 0xFFFF) + (s >> 16)
                fr[off + 4:off + 6] = struct.pack("!H", new_id)
                fr[off + 10:off + 12] = struct.pack("!H", ~s & 0xFFFF)
            else:
                w = struct.unpack("!I", fr[off:off + 4])[0]
                label = ((w & 0xFFFFF) + c * 0x40000) & 0xFFFFF
                fr[off:off + 4] = struct.pack("!I", (w & ~0xFFFFF) | label)
            key = lftest.packet_key(bytes(fr))
            assert key not in seen, "copy %d: key %s twice" % (c, key)
            seen.add(key)
        out.append(bytes(fr))
lftest.write_pcap(os.path.join(d, "in.pcap"), out)
json.dump(manifest * 3, open(os.path.join(d, "manifest.json"), "w"))
PYEOF
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > /dev/null || die "config rejected"

# run_check CONFIG: forward the input once, then check every output.
run_check() {
	rm -f "$D"/out_p*.pcap "$D"/tel_*.json
	lf_start "$1"
	lf_wait_settled
	lf_tel_save /lanefwd/stats "$D/tel_stats.json"
	lf_tel_save /lanefwd/workers "$D/tel_workers.json"
	lf_tel_save /lanefwd/info "$D/tel_info.json"
	lf_tel_save /lanefwd/flows "$D/tel_flows.json"
	lf_tel_save /eal/params "$D/tel_eal_params.json"
	for p in 0 1; do
		lf_tel_save "/ethdev/info,$p" "$D/tel_ethdev_info_$p.json"
		lf_tel_save "/ethdev/stats,$p" "$D/tel_ethdev_stats_$p.json"
	done
	lf_stop_rc
	[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT after SIGINT"
	$PY "$LF_SRCDIR/tests/integration/pcap_forward.py" check "$D" || die "output check failed ($1)"
}

run_check "$D/lanefwd.conf"
cp "$D/out_p0.pcap" "$D/slow_p0.pcap"
cp "$D/out_p1.pcap" "$D/slow_p1.pcap"

# The same input with a [flow] section but no ACL: the cache has nothing
# to front, so it stays idle (not one lookup) and the frames are the same.
{ cat "$D/lanefwd.conf"; printf '\n[flow]\nentries = 1024\n'; } > "$D/lanefwd-flow.conf"
run_check "$D/lanefwd-flow.conf"
$PY - "$D" <<'PYEOF' || die "flow cache without an ACL: output or figures"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["LF_SRCDIR"], "tests", "integration"))
import lftest
d = sys.argv[1]
inp = lftest.read_pcap(os.path.join(d, "in.pcap"))
for p in ("p0", "p1"):
    # Per family and tagging in input order (a burst's families may leave
    # a port in another order: lftest.order_class).
    assert lftest.same_output(lftest.read_pcap(os.path.join(d, "out_%s.pcap" % p)),
                              lftest.read_pcap(os.path.join(d, "slow_%s.pcap" % p)), inp), \
        "%s: frames differ" % p
w = json.load(open(os.path.join(d, "tel_flows.json")))["/lanefwd/flows"]["1"]
assert w["state"] == "idle (no ACL)", w
assert w["lookups"] == 0 and w["inserts"] == 0, w
PYEOF

# And in front of an ACL that permits everything (one rule, default
# permit): the first packet of a flow takes the slow path and leaves its
# verdict, the rest of the flow takes the cached one. Same checks, and the
# same frames as the run without either; the second and third copies are
# (almost) all hits. Eviction: tests/unit/test_pipeline.c.
printf '@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\tpermit\n' \
	> "$D/permit.acl"
{ cat "$D/lanefwd-flow.conf"; printf '\n[acl]\nipv4 = permit.acl\ndefault = permit\n'; } \
	> "$D/lanefwd-flow-acl.conf"
run_check "$D/lanefwd-flow-acl.conf"
$PY - "$D" <<'PYEOF' || die "flow cache output or figures"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["LF_SRCDIR"], "tests", "integration"))
import lftest
d = sys.argv[1]
inp = lftest.read_pcap(os.path.join(d, "in.pcap"))
for p in ("p0", "p1"):
    slow = lftest.read_pcap(os.path.join(d, "slow_%s.pcap" % p))
    fast = lftest.read_pcap(os.path.join(d, "out_%s.pcap" % p))
    assert lftest.same_output(fast, slow, inp), "%s: the frames differ with the flow cache" % p
d = json.load(open(os.path.join(d, "tel_flows.json")))["/lanefwd/flows"]
w = d["1"]
print("pcap_forward, flow cache: %(lookups)d lookups, %(hits)d hits, %(inserts)d inserts, "
      "%(evictions)d evictions, %(flows)d flows of %(capacity)d" % w)
assert w["state"] == "active", w
assert w["capacity"] == 1024, w
assert w["inserts"] > 0, w
assert w["hits"] >= 2 * w["inserts"] - 10, w
assert w["lookups"] == w["hits"] + w["misses"], w
PYEOF
echo "PASS: pcap_forward"
