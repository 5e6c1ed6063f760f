# acl: the [acl] stage on the wire, and [acl] configuration errors.
#
# lanefwd forwards a scapy-built pcap (acl.py gen: a few hundred IPv4
# UDP/TCP/ICMP/GRE packets, first and non-first fragments, and IPv6
# UDP/TCP/ICMPv6 packets, some behind Hop-by-Hop and Destination Options
# headers, first and non-first fragments) through an [acl] of 20 IPv4 and
# 15 IPv6 ClassBench rules with port ranges, prefixes, protocol masks, permit
# and deny, once with default = deny and once with default = permit, then
# with the IPv6 file alone (IPv4 not classified). acl.py check computes each
# packet's decision by a linear first-match scan of the same rule files
# (independent of lanefwd) and checks that exactly the permitted packets
# left, once each and in order, that drop_acl_deny (final counters and
# /lanefwd/stats) counts the denied ones, and /lanefwd/info's acl_rules,
# acl6_rules and acl_default.
#
# Then --check-config: the rule counts in the summary line; bad rule files
# (IPv4 and IPv6), 'default = maybe' and an [acl] without a rule file exit 2
# naming FILE:LINE.
. "$(dirname "$0")/lib.sh"

D=$LF_TMP
cat > "$D/routes4.txt" <<'EOF'
10.0.0.0/8 1
172.16.0.0/12 0
EOF
cat > "$D/routes6.txt" <<'EOF'
2001:db8:1::/48 1
2001:db8:2::/48 0
EOF
# Priority is line order: earlier rules shadow later ones on purpose.
cat > "$D/acl.rules" <<'EOF'
# ClassBench rules, with lanefwd's permit/deny extension
@192.168.1.0/24	10.1.0.0/16	0 : 65535	53 : 53	0x11/0xFF	0x0000/0x0000	permit
@192.168.1.0/24	10.1.0.0/16	0 : 65535	0 : 65535	0x11/0xFF	0x0000/0x0000	deny
@192.168.0.0/16	10.0.0.0/8	1024 : 65535	80 : 80	0x06/0xFF	0x0000/0x0000	permit
@192.168.0.0/16	10.0.0.0/8	0 : 1023	80 : 80	0x06/0xFF	0x0000/0x0000	deny
@192.168.2.77/32	0.0.0.0/0	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000	deny
@192.168.0.0/16	10.2.0.0/16	0 : 65535	1000 : 1999	0x00/0x00	0x0000/0x0000	permit
@192.168.0.0/16	10.2.0.0/16	2000 : 2999	0 : 65535	0x11/0xFF	0x0000/0x0000	deny
@0.0.0.0/0	10.3.0.0/16	0 : 65535	0 : 65535	0x01/0xFF	0x0000/0x0000	permit
@0.0.0.0/0	10.3.0.0/16	0 : 65535	0 : 65535	0x2F/0xFF	0x0000/0x0000	deny
@198.51.100.0/24	10.4.0.0/15	0 : 65535	0 : 0	0x11/0xFF	0x0000/0x0000	permit
@198.51.100.0/24	10.4.0.0/15	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000	deny
@203.0.113.0/25	0.0.0.0/0	0 : 65535	443 : 443	0x06/0xFF	0x0000/0x0000	permit
@203.0.113.128/25	0.0.0.0/0	0 : 65535	443 : 443	0x06/0xFF	0x0000/0x0000	deny
@0.0.0.0/0	172.16.0.0/12	5000 : 5999	0 : 65535	0x10/0xF0	0x0000/0x0000	permit
@0.0.0.0/0	172.16.0.0/12	0 : 65535	0 : 65535	0x11/0xFF	0x0000/0x0000	deny
@10.200.0.0/16	10.5.5.0/24	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000
@192.168.3.0/24	10.6.0.0/16	100 : 200	300 : 400	0x06/0xFF	0x0000/0x0000	permit
@192.168.3.0/24	10.6.0.0/16	0 : 65535	0 : 65535	0x06/0xFF	0x0000/0x0000	deny
@0.0.0.0/0	10.7.0.0/16	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000	permit
@0.0.0.0/0	10.8.0.0/16	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000	deny
EOF
# The same for IPv6. Rule 12 is on protocol 0, the Hop-by-Hop Options next
# header: it must never match, since the ACL sees the upper-layer protocol.
# 2001:db8:d::/47 has a host bit set: it is 2001:db8:c::/47.
cat > "$D/acl6.rules" <<'EOF'
# IPv6 ClassBench rules (dpdk-test-acl --ipv6 format), with permit/deny
@2001:db8:a::/48	2001:db8:1::/48	0 : 65535	53 : 53	0x11/0xFF	0x0000/0x0000	permit
@2001:db8:a::/48	2001:db8:1::/48	0 : 65535	0 : 65535	0x11/0xFF	0x0000/0x0000	deny
@2001:db8:b::/48	2001:db8::/32	1024 : 65535	80 : 80	0x06/0xFF	0x0000/0x0000	permit
@2001:db8:b::/48	2001:db8::/32	0 : 1023	80 : 80	0x06/0xFF	0x0000/0x0000	deny
@2001:db8:c::77/128	::/0	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000	deny
@::/0	2001:db8:2::/48	0 : 65535	0 : 65535	0x3A/0xFF	0x0000/0x0000	permit
@::/0	2001:db8:2:0:8000::/65	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000	deny
@2001:db8:d::/47	2001:db8:1::/48	0 : 65535	0 : 0	0x11/0xFF	0x0000/0x0000	permit
@2001:db8:d::/47	::/0	0 : 65535	0 : 65535	0x11/0xFF	0x0000/0x0000	deny
@::/0	2001:db8:1::ff00/120	5000 : 5999	0 : 65535	0x10/0xF0	0x0000/0x0000	permit
@::/0	2001:db8:1::/48	0 : 65535	0 : 65535	0x06/0xFF	0x0000/0x0000
@::/0	::/0	0 : 65535	0 : 65535	0x00/0xFF	0x0000/0x0000	deny
@2001:0db8:000e:0000:0000:0000:0000:0000/48	::/0	0 : 65535	0 : 65535	0x00/0x00	0x0000/0x0000	permit
@2001:db8:f::/48	2001:db8:1::/48	0 : 65535	1000 : 65535	0x00/0x00	0x0000/0x0000	permit
@2001:db8:a::/48	2001:db8:2::/48	0 : 65535	0 : 65535	0x06/0xFF	0x0000/0x0000	permit
EOF

write_conf() { # FILE DEFAULT
	cat > "$1" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = no
memory = 256

[pipeline]
burst = 32

$(lf_conf_routes)

[acl]
ipv4 = acl.rules
ipv6 = acl6.rules
default = $2

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
EOF
}

$PY "$LF_SRCDIR/tests/integration/acl.py" gen "$D" || die "cannot generate traffic"

for run in deny:46 permit:46 deny:6; do
	def=${run%:*} fam=${run#*:}
	write_conf "$D/lanefwd.conf" "$def"
	summary="acl rules: 20 IPv4, 15 IPv6; configuration is valid"
	if [ "$fam" = 6 ]; then
		sed -i '/^ipv4 = acl.rules/d' "$D/lanefwd.conf"
		summary="acl rules: 0 IPv4, 15 IPv6; configuration is valid"
	fi
	out=$("$LANEFWD" -c "$D/lanefwd.conf" --check-config) || die "config rejected"
	echo "$out" | grep -q "$summary" ||
		die "--check-config summary without '$summary': $(echo "$out" | tail -n 1)"
	echo "$out" | grep -qx "default = $def" || die "--check-config does not print default = $def"
	echo "$out" | grep -qx "ipv6 = $D/acl6.rules" ||
		die "--check-config does not print ipv6 = $D/acl6.rules"
	# The resolved configuration, [acl] included, is valid and the same.
	echo "$out" > "$D/resolved.conf"
	"$LANEFWD" -c "$D/resolved.conf" --check-config > "$D/resolved.out" ||
		die "the resolved configuration is rejected"
	diff <(echo "$out" | tail -n +2) <(tail -n +2 "$D/resolved.out") > /dev/null ||
		die "the resolved configuration resolves differently"
	rm -f "$D/out_p0.pcap" "$D/out_p1.pcap"
	lf_start "$D/lanefwd.conf"
	lf_wait_settled
	lf_tel_save /lanefwd/stats "$D/tel_stats.json"
	lf_tel_save /lanefwd/info "$D/tel_info.json"
	lf_stop_rc
	[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT after SIGINT"
	$PY "$LF_SRCDIR/tests/integration/acl.py" check "$D" "$def" "$fam" ||
		die "default = $def, families $fam: output check failed"
	mv "$D/lanefwd.log" "$D/lanefwd-$def-$fam.log"
done

# Configuration errors: exit 2, FILE:LINE in the message.
expect_error() { # CONF WANTED-REGEX WHAT
	local rc=0
	"$LANEFWD" -c "$1" --check-config > "$D/err.out" 2> "$D/err.txt" || rc=$?
	[ "$rc" = 2 ] || die "$3: exit $rc, expected 2: $(cat "$D/err.txt")"
	grep -Eq "$2" "$D/err.txt" || die "$3: message does not match '$2': $(cat "$D/err.txt")"
	if grep -q "configuration is valid" "$D/err.out"; then
		die "$3: says the configuration is valid"
	fi
}
write_conf "$D/bad_default.conf" maybe
line=$(grep -n '^default = maybe' "$D/bad_default.conf" | cut -d: -f1)
expect_error "$D/bad_default.conf" \
	"bad_default.conf:$line: \[acl\] default = 'maybe': expected permit or deny" "default = maybe"

printf '@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit\n\n' > "$D/bad.rules"
printf '@10.0.0.0/8\t0.0.0.0/0\t9 : 1\t0 : 65535\t0x06/0xFF\tpermit\n' >> "$D/bad.rules"
write_conf "$D/bad_rules.conf" deny
sed -i 's/^ipv4 = acl.rules/ipv4 = bad.rules/' "$D/bad_rules.conf"
expect_error "$D/bad_rules.conf" "bad\.rules:3: " "bad rule on line 3"
rc=0
timeout 20 "$LANEFWD" -c "$D/bad_rules.conf" > "$D/start.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || die "start with a bad rule file: exit $rc, expected 2: $(cat "$D/start.log")"
grep -q "bad\.rules:3: " "$D/start.log" || die "start with a bad rule file: no FILE:LINE"

write_conf "$D/missing.conf" deny
sed -i 's/^ipv4 = acl.rules/ipv4 = nosuch.rules/' "$D/missing.conf"
line=$(grep -n '^ipv4 = nosuch.rules' "$D/missing.conf" | cut -d: -f1)
expect_error "$D/missing.conf" "missing.conf:$line: \[acl\] ipv4 = 'nosuch.rules': cannot read" \
	"missing rule file"
# An IPv6 rule file: a bad port range on line 3, and an IPv4 rule on line 2.
printf '@2001:db8::/32\t::/0\t0 : 65535\t0 : 65535\t0x06/0xFF\tpermit\n\n' > "$D/bad6.rules"
printf '@2001:db8::/32\t::/0\t0 : 65535\t443 : 80\t0x06/0xFF\tpermit\n' >> "$D/bad6.rules"
write_conf "$D/bad6.conf" deny
sed -i 's/^ipv6 = acl6.rules/ipv6 = bad6.rules/' "$D/bad6.conf"
expect_error "$D/bad6.conf" \
	"bad6\.rules:3: .*destination port range: low end above high end: '443 : 80'" \
	"bad IPv6 rule on line 3"
printf '# IPv4 in the IPv6 file\n@10.0.0.0/8\t::/0\t0 : 65535\t0 : 65535\t0x06/0xFF\n' \
	> "$D/bad6.rules"
expect_error "$D/bad6.conf" \
	"bad6\.rules:2: .*source prefix is not an IPv6 address: '10\.0\.0\.0' \(IPv4 rules go in \[acl\] ipv4\)" \
	"IPv4 rule in the IPv6 file"
rc=0
timeout 20 "$LANEFWD" -c "$D/bad6.conf" > "$D/start6.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || die "start with a bad IPv6 rule file: exit $rc, expected 2: $(cat "$D/start6.log")"
grep -q "bad6\.rules:2: " "$D/start6.log" || die "start with a bad IPv6 rule file: no FILE:LINE"

write_conf "$D/no_file.conf" deny
sed -i '/^ipv4 = acl.rules/d; /^ipv6 = acl6.rules/d' "$D/no_file.conf"
line=$(grep -n '^\[acl\]' "$D/no_file.conf" | cut -d: -f1)
expect_error "$D/no_file.conf" "no_file.conf:$line: \[acl\]: missing key 'ipv4' or 'ipv6'" \
	"[acl] without a rule file"
echo "PASS: acl"
