# systemd_unit: `meson install` installs lanefwd@.service, systemd accepts
# it, and lanefwd runs its life cycle under the unit's commands and
# capabilities.
#
# 1. meson install --no-rebuild --destdir into a scratch root: the unit lands
#    in PREFIX/lib/systemd/system with @BINDIR@ replaced by PREFIX/bin, next
#    to the installed lanefwd, and docs/deploy.md (its Documentation=) in
#    PREFIX/share/doc/lanefwd.
# 2. A small parser reads the unit's keys: ExecStartPre runs --check-config
#    and ExecStart runs lanefwd on /etc/lanefwd/%i.conf, ExecReload sends
#    SIGHUP to $MAINPID, Restart=on-failure, LimitMEMLOCK=infinity, a
#    CapabilityBoundingSet, NoNewPrivileges=yes.
# 3. systemd-analyze verify (systemd's own parser; this test needs it)
#    accepts the unit without a word: unknown keys, bad values and missing
#    executables all print something. The copy it reads names the binary in
#    the scratch root, the only difference.
# 4. The unit's life cycle without systemd as PID 1: with /etc/lanefwd
#    mapped to a scratch directory and %i to an instance name, the unit's
#    ExecStartPre and ExecStart run the installed lanefwd under setpriv
#    with exactly the unit's CapabilityBoundingSet and no new privileges,
#    on AF_XDP ports (scripts/topology.sh). Pings cross it; ExecReload's
#    command (SIGHUP) makes it load a route added to the file; it then
#    stops on SIGTERM, systemd's stop signal, with exit status 0 and its
#    final counters. A bad configuration makes ExecStartPre exit
#    2, the status RestartPreventExitStatus names.
#
# Needs root, meson, systemd-analyze, setpriv, iproute2, ping and 128 MiB of
# free hugepages; exits 77 (SKIP) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (capabilities, network namespaces, AF_XDP)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
BUILD=$(dirname "$LANEFWD")
TOPO=$LF_SRCDIR/scripts/topology.sh
TP=su$$
NS1=$TP-ns1
TOPO_UP=0

for t in meson systemd-analyze setpriv ip ping; do
	command -v "$t" >/dev/null || lf_skip "$t is not installed"
done
free_mb=$(lf_hugepages_free_mb)
[ "$free_mb" -ge 128 ] ||
	lf_skip "needs 128 MiB of free hugepages on a mounted hugetlbfs, has $free_mb MiB (run scripts/hugepages.sh)"

su_cleanup() {
	if [ "$TOPO_UP" -eq 1 ]; then
		"$TOPO" down "$TP" >/dev/null || true
	fi
}
LF_CLEANUP_HOOK=su_cleanup

step() { echo "---- $*"; }

# ------------------------------------------------------------------ install
step "meson install --destdir"
ROOT=$D/root
meson install -C "$BUILD" --no-rebuild --destdir "$ROOT" --quiet > "$D/install.log" 2>&1 ||
	die "meson install failed: $(tail -n 5 "$D/install.log")"
PREFIX=$(meson introspect "$BUILD" --buildoptions | $PY -c '
import json, sys
print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
UNIT=$ROOT$PREFIX/lib/systemd/system/lanefwd@.service
[ -f "$UNIT" ] || die "no $PREFIX/lib/systemd/system/lanefwd@.service after meson install: $(
	cd "$ROOT" && find . -name '*.service')"
[ -x "$ROOT$PREFIX/bin/lanefwd" ] || die "meson install did not install $PREFIX/bin/lanefwd"
[ -f "$ROOT$PREFIX/share/doc/lanefwd/deploy.md" ] ||
	die "meson install did not install $PREFIX/share/doc/lanefwd/deploy.md"
echo "installed $PREFIX/lib/systemd/system/lanefwd@.service"

# --------------------------------------------------------------- the keys
step "the unit's keys"
# unit.py UNIT PREFIX: checks the keys, prints "KEY<TAB>VALUE" lines of
# those the life cycle below runs.
cat > "$D/unit.py" <<'PYEOF'
import re
import sys

unit, prefix = sys.argv[1], sys.argv[2]
keys = {}
section = None
cont = ""
for n, raw in enumerate(open(unit), 1):
    line = cont + raw.rstrip("\n")
    cont = ""
    if line.endswith("\\"):
        cont = line[:-1] + " "
        continue
    s = line.strip()
    if not s or s[0] in "#;":
        continue
    m = re.fullmatch(r"\[(\w+)\]", s)
    if m:
        section = m.group(1)
        continue
    if section is None or "=" not in s:
        sys.exit(f"{unit}:{n}: not a section or KEY=VALUE line: {s!r}")
    k, v = s.split("=", 1)
    keys.setdefault(f"{section}.{k.strip()}", []).append(v.strip())

errors = []


def one(k):
    v = keys.get(k, [])
    if len(v) != 1:
        errors.append(f"{k}: {len(v)} values {v}, expected one")
        return ""
    return v[0]


def want(k, value):
    got = one(k)
    if got != value:
        errors.append(f"{k}={got!r}, expected {value!r}")


bin_ = f"{prefix}/bin/lanefwd"
conf = "/etc/lanefwd/%i.conf"
want("Service.ExecStartPre", f"{bin_} --check-config -c {conf}")
want("Service.ExecStart", f"{bin_} -c {conf}")
want("Service.ExecReload", "/bin/kill -HUP $MAINPID")
want("Service.Restart", "on-failure")
want("Service.RestartPreventExitStatus", "2")
want("Service.LimitMEMLOCK", "infinity")
want("Service.NoNewPrivileges", "yes")
want("Unit.ConditionPathExists", conf)
want("Install.WantedBy", "multi-user.target")
want("Unit.Documentation", f"file://{prefix}/share/doc/lanefwd/deploy.md")
caps = one("Service.CapabilityBoundingSet").split()
if not caps or any(not re.fullmatch(r"CAP_[A-Z_]+", c) for c in caps):
    errors.append(f"CapabilityBoundingSet: {caps}")
left = re.findall(r"@[A-Z_]+@", open(unit).read())
if left:
    errors.append(f"left unsubstituted: {left}")
if errors:
    for e in errors:
        print(f"FAIL: {unit}: {e}", file=sys.stderr)
    sys.exit(1)
for k in ("ExecStartPre", "ExecStart", "ExecReload"):
    print(f"{k}\t{one('Service.' + k)}")
print("caps\t" + ",".join("+" + c[4:].lower() for c in caps))
PYEOF
$PY "$D/unit.py" "$UNIT" "$PREFIX" > "$D/keys.txt" || die "the unit's keys are wrong"
cat "$D/keys.txt"
key() { awk -F '\t' -v k="$1" '$1 == k { print $2 }' "$D/keys.txt"; }

# --------------------------------------------------------- systemd-analyze
step "systemd-analyze verify"
mkdir -p "$D/verify"
sed "s|$PREFIX/bin/|$ROOT$PREFIX/bin/|g" "$UNIT" > "$D/verify/lanefwd@.service"
systemd-analyze verify --man=no "$D/verify/lanefwd@.service" > "$D/verify.txt" 2>&1 ||
	die "systemd-analyze verify rejected the unit: $(cat "$D/verify.txt")"
[ ! -s "$D/verify.txt" ] || die "systemd-analyze verify has objections: $(cat "$D/verify.txt")"
echo "systemd-analyze verify: no objection"

# -------------------------------------------------------------- life cycle
step "life cycle under the unit's commands and capabilities"
TOPO_UP=1
"$TOPO" up "$TP" > /dev/null || die "scripts/topology.sh up $TP failed"
ETC=$D/etc/lanefwd
INSTANCE=edge
mkdir -p "$ETC"
printf '10.10.1.0/24 1\n10.10.2.0/24 2\n' > "$ETC/routes4.txt"
printf 'fd00:1::/64 1\nfd00:2::/64 2\n' > "$ETC/routes6.txt"
cat > "$ETC/$INSTANCE.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = yes
iova_mode = va

$(lf_conf_routes)

[port p0]
vdev = net_af_xdp0,iface=$TP-p0,start_queue=0,queue_count=1

[port p1]
vdev = net_af_xdp1,iface=$TP-p1,start_queue=0,queue_count=1

[worker 1]
rx = p0:0 p1:0

[nexthop 1]
port = p0
mac = 02:00:0a:0a:01:02

[nexthop 2]
port = p1
mac = 02:00:0a:0a:02:02
EOF

# cmd KEY: the unit's command line of KEY, as systemd would run it for
# instance $INSTANCE, with /etc/lanefwd and the binary in the scratch root.
cmd() {
	key "$1" | sed -e "s|%i|$INSTANCE|g" -e "s|/etc/lanefwd/|$ETC/|g" \
		-e "s|^$PREFIX/bin/|$ROOT$PREFIX/bin/|"
}
CAPS=$(key caps)
# shellcheck disable=SC2046 # the command line is split into words, as systemd does
setpriv --bounding-set=-all,"${CAPS#,}" --inh-caps=-all --no-new-privs \
	$(cmd ExecStartPre) > "$D/pre.log" 2>&1 ||
	die "ExecStartPre failed: $(tail -n 3 "$D/pre.log")"
echo "ExecStartPre: --check-config accepted $INSTANCE.conf"

# lf_start runs "$LANEFWD" -c FILE: a wrapper that execs ExecStart's binary
# under the unit's capabilities keeps lanefwd's pid, which is $MAINPID.
START=$(cmd ExecStart)
cat > "$D/start.sh" <<EOF
#!/bin/sh
exec setpriv --bounding-set=-all,${CAPS#,} --inh-caps=-all --no-new-privs ${START%% *} "\$@"
EOF
chmod +x "$D/start.sh"
LANEFWD=$D/start.sh
lf_start "$ETC/$INSTANCE.conf"
echo "ExecStart: lanefwd running with capabilities ${CAPS//+/}"
for i in $(seq 1 10); do
	ip netns exec "$NS1" ping -c 1 -W 1 10.10.2.2 > /dev/null && break
	[ "$i" -lt 10 ] || die "no ping reply through lanefwd within 10 tries"
done
ip netns exec "$NS1" ping -c 5 -i 0.1 -W 2 10.10.2.2 > "$D/ping.txt" ||
	die "ping through lanefwd: $(tail -n 2 "$D/ping.txt")"

# The FIB holds the file's routes and lanefwd's own (addresses, martians):
# a reload of the file with one more route has one more IPv4 route.
n4=$(sed -n 's/.*installed \([0-9]*\) IPv4 and .*/\1/p' "$LF_TMP/lanefwd.log" | head -n 1)
[ -n "$n4" ] || die "lanefwd logged no 'installed N IPv4' line at start"
printf '10.10.3.0/24 2\n' >> "$ETC/routes4.txt"
RELOAD=$(cmd ExecReload)
RELOAD=${RELOAD//\$MAINPID/$LF_PID}
# shellcheck disable=SC2086 # split into words, as systemd does
$RELOAD || die "ExecReload ($RELOAD) failed"
for i in $(seq 1 100); do
	grep -q 'reload: generation 2 in force' "$LF_TMP/lanefwd.log" && break
	grep -q 'reload rejected' "$LF_TMP/lanefwd.log" &&
		die "the reload was rejected: $(grep 'reload rejected' "$LF_TMP/lanefwd.log")"
	[ "$i" -lt 100 ] || die "no reload within 10 s of $RELOAD"
	sleep 0.1
done
grep -q "reload: generation 2 in force ($((n4 + 1)) IPv4" "$LF_TMP/lanefwd.log" ||
	die "the reload did not add the route: $n4 IPv4 routes before, $(grep -o 'generation 2 in force ([0-9]* IPv4' "$LF_TMP/lanefwd.log") after"
echo "ExecReload: generation 2 in force, IPv4 routes $n4 -> $((n4 + 1))"

# systemd stops a service with SIGTERM (KillSignal= is not set).
kill -TERM "$LF_PID"
LF_EXIT=0
for i in $(seq 1 300); do
	kill -0 "$LF_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$LF_PID" 2>/dev/null && die "lanefwd did not stop within 30 s of SIGTERM"
wait "$LF_PID" || LF_EXIT=$?
LF_PID=""
[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT on SIGTERM"
total=$(lf_total_line)
[[ "$total" =~ ^lanefwd:\ total:\ rx\ ([0-9]+)\ tx\ ([0-9]+) ]] ||
	die "lanefwd printed no 'lanefwd: total:' line on SIGTERM"
# The 5 counted pings and their replies at least (and the warm-up's).
if [ "${BASH_REMATCH[1]}" -lt 10 ] || [ "${BASH_REMATCH[2]}" -lt 10 ]; then
	die "final counters: $total, expected at least 10 packets each way"
fi
echo "stop (SIGTERM): exit 0, $total"

# A configuration error stops the unit at ExecStartPre with status 2, the
# status RestartPreventExitStatus= names.
printf '[eal]\nno_such_key = 1\n' > "$ETC/bad.conf"
INSTANCE=bad
rc=0
# shellcheck disable=SC2046
setpriv --bounding-set=-all,"${CAPS#,}" --inh-caps=-all --no-new-privs \
	$(cmd ExecStartPre) > "$D/bad.log" 2>&1 || rc=$?
[ "$rc" = 2 ] || die "ExecStartPre on a bad file exited $rc, expected 2: $(cat "$D/bad.log")"
echo "ExecStartPre on a bad file: exit 2, $(head -n 1 "$D/bad.log")"
echo "PASS: systemd_unit"
