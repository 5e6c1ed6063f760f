# check_config: lanefwd -c FILE --check-config.
#
# - Every config/*.conf in the repository is valid (exit 0, "configuration is
#   valid"), and the resolved configuration it prints is itself a valid
#   configuration that resolves to the same thing.
# - Invalid configurations exit with status 2, say nothing is valid, and name the
#   file and line (found here with grep, not taken from lanefwd), the
#   section, the key and the value; syntax errors name the file and line.
# - Invalid route files (host bits set on line 3, a next hop without a
#   [nexthop] section, a repeated prefix, ...) exit with status 2 naming
#   FILE:LINE.
# - Route files that are a FIFO, /dev/zero or hold a NUL byte are refused
#   at once, naming the file (and line).
# - --check-config prints a memory estimate, and refuses a million ACL rules
#   in [eal] memory = 256, naming that key, in well under a minute.
# - --check-config never starts EAL: no /var/run/dpdk/PREFIX appears.
. "$(dirname "$0")/lib.sh"

D=$LF_TMP
FAILS=0
fail() {
	echo "FAIL: $*" >&2
	FAILS=$((FAILS + 1))
}

# check_valid FILE: --check-config accepts FILE, and its own output.
check_valid() {
	local f=$1 out="$D/valid.out" err="$D/valid.err" rc=0
	"$LANEFWD" -c "$f" --check-config > "$out" 2> "$err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$f: --check-config exit $rc: $(cat "$err")"
		return
	fi
	grep -q "configuration is valid" "$out" || fail "$f: no 'configuration is valid' line"
	# The resolved configuration round-trips.
	cp "$out" "$D/resolved.conf"
	rc=0
	"$LANEFWD" -c "$D/resolved.conf" --check-config > "$D/resolved.out" 2> "$err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$f: its resolved configuration is rejected (exit $rc): $(cat "$err")"
	elif ! diff <(tail -n +2 "$out") <(tail -n +2 "$D/resolved.out") > "$D/diff"; then
		fail "$f: the resolved configuration resolves differently: $(cat "$D/diff")"
	fi
}

# expect_error NAME FILE PATTERN...: --check-config rejects FILE, without a
# crash, and stderr holds every fixed-string PATTERN.
expect_error() {
	local name=$1 f=$2 rc=0 p
	shift 2
	"$LANEFWD" -c "$f" --check-config > "$D/bad.out" 2> "$D/bad.err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "$name: accepted: $(cat "$D/bad.out" | tail -n 1)"
		return
	fi
	# README: a config or route file error exits with status 2.
	[ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2: $(cat "$D/bad.err")"
	! grep -q "configuration is valid" "$D/bad.out" || fail "$name: says it is valid"
	for p in "$@"; do
		grep -qF -- "$p" "$D/bad.err" || fail "$name: stderr lacks \"$p\": $(cat "$D/bad.err")"
	done
	echo "ok: $name: $(head -n 1 "$D/bad.err")"
}

# ---- the repository's configurations
shopt -s nullglob
confs=("$LF_SRCDIR"/config/*.conf)
[ ${#confs[@]} -gt 0 ] || die "no config/*.conf in $LF_SRCDIR"
for f in "${confs[@]}"; do
	check_valid "$(realpath "$f")"
	echo "ok: valid: $f"
done

# ---- a valid base, then one fault at a time
printf '# IPv4 routes\n10.0.0.0/8 1\n10.1.0.0/16 2\n' > "$D/r4.txt"
printf '2001:db8::/32 1\n' > "$D/r6.txt"
cat > "$D/base.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = no
memory = 256

[pipeline]
burst = 32
prefetch_distance = 4

[routes]
ipv4 = r4.txt
ipv6 = r6.txt
ipv4_max_routes = 1024
ipv4_tbl8 = 256
ipv6_max_routes = 1024
ipv6_tbl8 = 256

[port p0]
vdev = net_pcap0,rx_pcap=$D/in.pcap,tx_pcap=$D/out0.pcap

[port p1]
vdev = net_pcap1,rx_pcap=$D/in1.pcap,tx_pcap=$D/out1.pcap

[worker 1]
rx = p0:0 p1:0

[nexthop 1]
port = p1
mac = 02:00:00:00:0b:01

[nexthop 2]
port = p0
mac = 02:00:00:00:0b:02
EOF
check_valid "$D/base.conf"
echo "ok: valid: base configuration"

B="$D/bad.conf"
mutate() {
	sed "$1" "$D/base.conf" > "$B"
	cmp -s "$B" "$D/base.conf" && die "test bug: '$1' changes nothing"
	return 0
}
line_of() {
	local n
	n=$(grep -n -x -F -- "$1" "$B" | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || die "test bug: no line '$1' in $B"
	echo "$n"
}

# bad_key NAME SED SECTION KEY VALUE: FILE:LINE: [SECTION] KEY = 'VALUE'
bad_key() {
	local name=$1 expr=$2 sec=$3 key=$4 val=$5
	mutate "$expr"
	expect_error "$name" "$B" "$B:$(line_of "$key = $val"): [$sec] $key = '$val'"
}

bad_key "burst 0" 's/^burst = 32$/burst = 0/' pipeline burst 0
bad_key "burst 257" 's/^burst = 32$/burst = 257/' pipeline burst 257
bad_key "burst not a number" 's/^burst = 32$/burst = 32k/' pipeline burst 32k
bad_key "negative prefetch" 's/^prefetch_distance = 4$/prefetch_distance = -1/' \
	pipeline prefetch_distance -1
bad_key "unknown key" 's/^burst = 32$/burts = 32/' pipeline burts 32
bad_key "bad bool" 's/^huge = no$/huge = maybe/' eal huge maybe
bad_key "file_prefix with /" "s/^file_prefix = .*/file_prefix = a\\/b/" eal file_prefix a/b
bad_key "iova_mode" 's/^\[eal\]$/[eal]\niova_mode = xx/' eal iova_mode xx
bad_key "missing route file" 's/^ipv4 = r4.txt$/ipv4 = nosuch.txt/' routes ipv4 nosuch.txt
bad_key "tbl8 0" 's/^ipv4_tbl8 = 256$/ipv4_tbl8 = 0/' routes ipv4_tbl8 0
bad_key "rx_desc not a power of two" 's/^\[port p1\]$/[port p1]\nrx_desc = 100/' \
	"port p1" rx_desc 100
bad_key "multicast port mac" 's/^\[port p1\]$/[port p1]\nmac = 01:00:00:00:00:01/' \
	"port p1" mac 01:00:00:00:00:01
bad_key "mtu" 's/^\[port p1\]$/[port p1]\nmtu = 10000/' "port p1" mtu 10000
bad_key "bad pci address" 's/^\[port p1\]$/[port p1]\npci = 0000:00:1f.9/' \
	"port p1" pci 0000:00:1f.9

# burst = auto: accepted, shown with its keys, and its resolved form
# resolves the same; its keys without it, or inconsistent, are refused.
mutate 's/^burst = 32$/burst = auto\nburst_max = 128\nlatency_target_us = 20/'
cp "$B" "$D/auto.conf"
check_valid "$D/auto.conf"
grep -qz "burst = auto.burst_min = 4.burst_max = 128.latency_target_us = 20.latency_percentile = 99.99" \
	"$D/valid.out" || fail "burst = auto: --check-config shows $(grep -A4 '^burst' "$D/valid.out")"
echo "ok: valid: burst = auto"
bad_key "burst_max with a fixed burst" 's/^burst = 32$/burst = 32\nburst_max = 64/' pipeline \
	burst_max 64
bad_key "burst_min over burst_max" \
	's/^burst = 32$/burst = auto\nburst_max = 16\nburst_min = 32/' pipeline burst_min 32
bad_key "latency_percentile 100" 's/^burst = 32$/burst = auto\nlatency_percentile = 100/' \
	pipeline latency_percentile 100
bad_key "vdev without a driver" 's/^vdev = net_pcap0,\(.*\)$/vdev = pcap0,\1/' \
	"port p0" vdev "pcap0,rx_pcap=$D/in.pcap,tx_pcap=$D/out0.pcap"
bad_key "rx queue not a number" 's/^rx = p0:0 p1:0$/rx = p0:x p1:0/' "worker 1" rx "p0:x p1:0"
bad_key "rx unknown port" 's/^rx = p0:0 p1:0$/rx = p0:0 p7:0/' "worker 1" rx "p0:0 p7:0"
bad_key "rx_mode unknown" 's/^rx = p0:0 p1:0$/rx = p0:0 p1:0\nrx_mode = doze/' "worker 1" rx_mode doze
bad_key "spin_us without hybrid" 's/^rx = p0:0 p1:0$/rx = p0:0 p1:0\nrx_mode = interrupt\nspin_us = 5/' \
	"worker 1" spin_us 5
bad_key "next hop unknown port" 's/^port = p1$/port = p9/' "nexthop 1" port p9
bad_key "short next-hop mac" 's/^mac = 02:00:00:00:0b:01$/mac = 02:00:00:00:0b/' \
	"nexthop 1" mac 02:00:00:00:0b
bad_key "broadcast src_mac" 's/^\[nexthop 2\]$/[nexthop 2]\nsrc_mac = ff:ff:ff:ff:ff:ff/' \
	"nexthop 2" src_mac ff:ff:ff:ff:ff:ff

# The main lcore may not be a worker: the error names the worker's section
# or the main_lcore line, and the value.
mutate 's/^main_lcore = 0$/main_lcore = 1/'
expect_error "main lcore is a worker" "$B" "main_lcore = 1"
where="($(line_of "main_lcore = 1"): \[eal\]|$(line_of "[worker 1]"): \[worker 1\])"
grep -qE "^lanefwd: config error: ${B//./\\.}:$where" "$D/bad.err" ||
	fail "main lcore is a worker: no FILE:LINE: [eal] or [worker 1]: $(cat "$D/bad.err")"
# The same with main_lcore left at its default (0): no main_lcore line to
# name, so the worker's section it is.
mutate '/^main_lcore = 0$/d; s/^\[worker 1\]$/[worker 0]/'
expect_error "default main lcore is a worker" "$B" "$B:$(line_of "[worker 0]"): [worker 0]:" \
	"main_lcore = 0"

# Section-level errors: FILE:LINE: [SECTION]:
mutate 's/^\[pipeline\]$/[pipe]/'
expect_error "unknown section" "$B" "$B:$(line_of "[pipe]"): [pipe]:" "unknown section"
mutate '/^rx = p0:0 p1:0$/d'
expect_error "worker without rx" "$B" "$B:$(line_of "[worker 1]"): [worker 1]:" "'rx'"
mutate '/^mac = 02:00:00:00:0b:02$/d'
expect_error "next hop without mac" "$B" "$B:$(line_of "[nexthop 2]"): [nexthop 2]:" "'mac'"
mutate 's/^\[nexthop 2\]$/[nexthop 40000]/'
expect_error "next-hop id too large" "$B" "$B:$(line_of "[nexthop 40000]"): [nexthop 40000]:"
mutate 's/^\[worker 1\]$/[worker x]/'
expect_error "worker not an lcore" "$B" "$B:$(line_of "[worker x]"): [worker x]:"

# Syntax errors (caught by the line scan): FILE:N: ...
mutate 's/^memory = 256$/memory = 256\nmemory = 128/'
expect_error "repeated key" "$B" "$B:$(line_of "memory = 128"): [eal] memory" \
	"line $(line_of "memory = 256")"
mutate 's/^burst = 32$/burst = 32\nthis is not a key/'
expect_error "not key = value" "$B" "$B:$(line_of "this is not a key"): 'this is not a key'"
mutate 's/^burst = 32$/burst =/'
expect_error "empty value" "$B" "$B:$(line_of "burst ="): [pipeline] burst"
mutate 's/^\[routes\]$/[routes/'
expect_error "broken section header" "$B" "$B:$(line_of "[routes"):"
mutate 's/^\[nexthop 2\]$/[port p0]/'
second=$(grep -n -x -F "[port p0]" "$B" | sed -n 2p | cut -d: -f1)
expect_error "repeated section" "$B" "$B:$second:" "[port p0]" \
	"line $(line_of "[port p0]")"

# Cross-section errors name the file and what is wrong.
bad_key "queue polled by nobody" 's/^\[port p1\]$/[port p1]\nrx_queues = 2/' \
	"port p1" rx_queues 2
bad_key "queue listed twice" 's/^rx = p0:0 p1:0$/rx = p0:0 p1:0 p0:0/' "worker 1" rx \
	"p0:0 p1:0 p0:0"
bad_key "queue past rx_queues" \
	's/^rx = p0:0 p1:0$/rx = p0:0 p1:0 p1:1/; s/^\[port p1\]$/[port p1]\nrx_queues = 1/' \
	"worker 1" rx "p0:0 p1:0 p1:1"
mutate '/^\[worker 1\]$/,/^rx = /d'
expect_error "no worker" "$B" "$B:" "[worker"

# Route files: FILE:LINE.
route_case() {
	local name=$1 af=$2 text=$3
	shift 3
	printf "$text" > "$D/routes.bad"
	mutate "s|^ipv$af = r$af.txt\$|ipv$af = routes.bad|"
	expect_error "$name" "$B" "$@"
}
route_case "host bits set (line 3)" 4 '# routes\n10.0.0.0/8 1\n10.1.0.1/16 2\n' \
	"routes.bad:3:" "10.1.0.1/16 2" "host bits"
# This is why the no_nexthop drop cannot happen on the wire.
route_case "next hop without a section" 4 '10.0.0.0/8 1\n\n10.2.0.0/16 5\n' \
	"routes.bad:3:" "10.2.0.0/16 5" "[nexthop 5]"
route_case "prefix given twice" 4 '10.0.0.0/8 1\n10.1.0.0/16 2\n10.0.0.0/8 2\n' \
	"routes.bad:3:" "line 1"
route_case "prefix length 33" 4 '10.0.0.0/8 1\n10.0.0.0/33 1\n' "routes.bad:2:" "10.0.0.0/33 1"
route_case "no next hop" 4 '10.0.0.0/8\n' "routes.bad:1:" "10.0.0.0/8"
route_case "trailing text" 4 '10.0.0.0/8 1 2\n' "routes.bad:1:" "10.0.0.0/8 1 2"
route_case "IPv6 host bits" 6 '2001:db8::/32 1\n# x\n2001:db8::1/64 2\n' \
	"routes.bad:3:" "2001:db8::1/64 2" "host bits"
route_case "IPv4 prefix in the IPv6 file" 6 '10.0.0.0/8 1\n' "routes.bad:1:" "10.0.0.0/8 1"

# Files that are not files: refused at once, never read (a FIFO used to hang
# lanefwd for good). timeout turns a hang into a failure.
mkfifo "$D/routes.fifo"
mutate 's|^ipv4 = r4.txt$|ipv4 = routes.fifo|'
rc=0
timeout 20 "$LANEFWD" -c "$B" --check-config > /dev/null 2> "$D/fifo.err" || rc=$?
[ "$rc" -eq 2 ] && grep -qF "$D/routes.fifo: a FIFO, expected a regular file" "$D/fifo.err" ||
	fail "route file is a FIFO: exit $rc: $(cat "$D/fifo.err")"
mutate 's|^ipv4 = r4.txt$|ipv4 = /dev/zero|'
expect_error "route file /dev/zero" "$B" "/dev/zero: a character device, expected a regular file"
printf '10.0.0.0/8 1\n10.1.0.0/16 2\0junk\n' > "$D/routes.nul"
mutate 's|^ipv4 = r4.txt$|ipv4 = routes.nul|'
expect_error "NUL byte in a route file" "$B" "routes.nul:2: NUL byte at column 14"

# The memory estimate: printed by --check-config; a million ACL rules do
# not fit the base's 256 MiB and are refused before rte_acl_build runs
# (it used to take a minute and 2.7 GB to fail).
"$LANEFWD" -c "$D/base.conf" --check-config > "$D/est.out" 2>&1 ||
	fail "base configuration rejected: $(cat "$D/est.out")"
grep -q '^# memory estimate (docs/security.md): FIB IPv4 32 MiB, IPv6 64 MiB; .*; \[eal\] memory allows 256 MiB$' "$D/est.out" ||
	fail "no memory estimate: $(grep -i memory "$D/est.out")"
python3 - "$D/acl_1m.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1 << 20):
        f.write("@%d.%d.%d.0/24\t0.0.0.0/0\t0 : 65535\t%d : %d\t0x06/0xFF\n"
                % (10 + (i >> 16), (i >> 8) & 255, i & 255, i & 1023, i & 1023))
PY
mutate 's|^ipv6_tbl8 = 256$|ipv6_tbl8 = 256\n\n[acl]\nipv4 = acl_1m.txt|'
start=$(date +%s)
expect_error "a million ACL rules in 256 MiB" "$B" \
	"$B:$(line_of "memory = 256"): [eal] memory = '256': the tables need about" \
	"ACL 4608" "more than the 256 MiB"
[ $(($(date +%s) - start)) -lt 60 ] || fail "the 1M-rule refusal took $(($(date +%s) - start)) s"
rm -f "$D/acl_1m.txt"

# Command line and startup.
expect_error "missing file" "$D/nosuch.conf" "$D/nosuch.conf"
rc=0
"$LANEFWD" --check-config > /dev/null 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -lt 126 ] || fail "--check-config without -c: exit $rc"
# Without --check-config an invalid file stops lanefwd before EAL starts.
mutate 's/^burst = 32$/burst = 0/'
rc=0
timeout 20 "$LANEFWD" -c "$B" > "$D/run.out" 2> "$D/run.err" || rc=$?
[ "$rc" -eq 2 ] || fail "invalid config, no --check-config: exit $rc, expected 2"
grep -qF "$B:$(line_of "burst = 0"): [pipeline] burst = '0'" "$D/run.err" ||
	fail "invalid config, no --check-config: $(cat "$D/run.err")"
grep -q "^EAL:" "$D/run.out" "$D/run.err" && fail "invalid config, but EAL started"
[ ! -e "/var/run/dpdk/$LF_PREFIX" ] || fail "EAL ran: /var/run/dpdk/$LF_PREFIX exists"

[ "$FAILS" -eq 0 ] || die "$FAILS check(s) failed"
echo "PASS: check_config"
