# reload: hot reload of routes, next hops and ACL rules under live traffic.
#
# Topology as e2e_afxdp (scripts/topology.sh: two namespaces, two veth pairs,
# lanefwd on AF_XDP). A UDP receiver in ns2 counts datagrams per port; each
# phase sends a known number from ns1 and compares what arrived with what
# lanefwd counted (reload.py has the phases and the checks):
#   1. the starting tables forward to ns2;
#   2. a reload that drops the route to ns2: the reply says generation 2, and
#      every later datagram is a no_route drop, none arrives;
#   3. a reload with a bad route line (and the route restored): rejected with
#      file:line, generation 2 stays in force (datagrams still no_route);
#   4. a reload that changes [pipeline]: rejected, restart needed;
#   5. a reload that restores the route and adds an ACL deny rule: port 9000
#      arrives, port 9001 is acl_deny;
#   6. SIGHUP after removing the deny rule: port 9001 arrives again;
#   7. a next-hop change (ns2's MAC rewritten wrong, then right): the wrong
#      MAC is dropped by ns2's kernel, the right one arrives;
#   8. continuous traffic to ns2 while five reloads run: nothing lost.
# /lanefwd/info must report the generation, reloads and failures throughout.
# The flow cache is on ([flow]): most datagrams take a cached verdict, so
# every phase also checks that a reload invalidates cached decisions.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces, AF_XDP)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
TOPO=$LF_SRCDIR/scripts/topology.sh
TP=rl$$
NS1=$TP-ns1 NS2=$TP-ns2
P0=$TP-p0 P1=$TP-p1
RECV_PID=""
TOPO_UP=0

for t in ip ethtool dpdk-telemetry.py; do
	command -v "$t" >/dev/null || lf_skip "$t is not installed (scripts/deps.sh)"
done
free_mb=$(lf_hugepages_free_mb)
[ "$free_mb" -ge 128 ] ||
	lf_skip "needs 128 MiB of free hugepages on a mounted hugetlbfs, has $free_mb MiB (run scripts/hugepages.sh)"

reload_cleanup() {
	if [ -n "$RECV_PID" ]; then
		kill "$RECV_PID" 2>/dev/null || true
		wait "$RECV_PID" 2>/dev/null || true
	fi
	if [ "$TOPO_UP" -eq 1 ]; then
		"$TOPO" down "$TP" >/dev/null || true
	fi
}
LF_CLEANUP_HOOK=reload_cleanup

TOPO_UP=1
"$TOPO" up "$TP" >/dev/null || die "scripts/topology.sh up $TP failed"
# IPv4 only: no MLD or other IPv6 chatter to blur the drop counters.
for ns in "$NS1" "$NS2"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done

# reload.py writes the configuration and every file it names.
$PY "$LF_SRCDIR/tests/integration/reload.py" setup --dir "$D" --prefix "$LF_PREFIX" \
	--p0 "$P0" --p1 "$P1" || die "reload.py setup failed"
lf_start "$D/lanefwd.conf"
ip netns exec "$NS2" $PY "$LF_SRCDIR/tests/integration/reload.py" recv --dir "$D" \
	> "$D/recv.log" 2>&1 &
RECV_PID=$!
$PY "$LF_SRCDIR/tests/integration/reload.py" run --dir "$D" --prefix "$LF_PREFIX" \
	--ns1 "$NS1" --pid "$LF_PID" || die "reload checks failed"
echo "PASS: reload"
