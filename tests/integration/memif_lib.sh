# Shared by the tests in which lanefwd-gen drives lanefwd over two memif
# ports (sourced after lib.sh): lanefwd has them in the server role (a, b)
# and routes 10.1.0.0/16 and 2001:db8:1::/48 out of b; the generator
# connects as the client to both, sends on a and receives on b.
#
# Order of shutdown: DPDK 22.11's memif PMD unmaps a connection's shared
# memory when the peer goes away, without waiting for a thread that is in
# rx/tx burst on that port, so the side that still polls can crash. Each run
# therefore starts its own lanefwd, the generator keeps its ports open after
# the run (--linger), lanefwd stops first, and only then the generator closes.

GEN=${LANEFWD_GEN:-$(dirname "$LANEFWD")/lanefwd-gen}
[ -x "$GEN" ] || die "no lanefwd-gen at $GEN"
memif_cleanup() {
	rm -rf "/var/run/dpdk/${LF_PREFIX}g" "/var/run/dpdk/${LF_PREFIX}l"
}
LF_CLEANUP_HOOK=memif_cleanup

# memif_conf FILE PIPELINE: write lanefwd's configuration to FILE (its route
# files beside it), with PIPELINE as the [pipeline] section's keys.
memif_conf() {
	local dir
	dir=$(dirname "$1")
	printf '10.1.0.0/16 1\n' > "$dir/routes4.txt"
	printf '2001:db8:1::/48 1\n' > "$dir/routes6.txt"
	cat > "$1" <<CONF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
huge = no
memory = 512
[pipeline]
$2
$(lf_conf_routes)
# Routed ports take only frames to their own MAC: a's is the generator's
# default destination (memif's own default, 01:ab:23:cd:45:ef, is a group).
[port a]
vdev = net_memif0,role=server,socket=$dir/a.sock,socket-abstract=no,mac=02:00:00:00:00:01
[port b]
vdev = net_memif1,role=server,socket=$dir/b.sock,socket-abstract=no,mac=02:00:00:00:00:02
# No gratuitous ARP / unsolicited NA at start: tx is the forwarded frames.
[neighbour]
gratuitous = no
[worker 1]
rx = a:0 b:0
[nexthop 1]
port = b
mac = 02:00:00:00:0b:01
CONF
}

# memif_gen DIR NAME OPTIONS...: lanefwd-gen against the running lanefwd
# (sockets in DIR) in the background, its pid in GEN_PID; returns once its
# JSON (DIR/NAME.gen.json) is written. The ports stay open (--linger).
memif_gen() {
	local dir=$1 name=$2 i
	shift 2
	# rsize=14: 16384-slot rings hold 0.8 s of gen_memif's rate, so a
	# generator descheduled that long on a loaded 2-vCPU machine does not
	# make lanefwd's TX to it overflow (CI once saw tx_full 33 with 4096).
	timeout 120 "$GEN" -l 0 --no-pci --no-huge -m 512 --file-prefix "${LF_PREFIX}g" \
		--vdev "net_memif0,role=client,socket=$dir/a.sock,socket-abstract=no,rsize=14" \
		--vdev "net_memif1,role=client,socket=$dir/b.sock,socket-abstract=no,rsize=14" \
		-- --quiet --json "$dir/$name.gen.json" --linger 60 "$@" > "$dir/$name.gen.log" 2>&1 &
	GEN_PID=$!
	for i in $(seq 1 600); do
		[ -s "$dir/$name.gen.json" ] && break
		kill -0 "$GEN_PID" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$dir/$name.gen.json" ] || {
		cat "$dir/$name.gen.log" >&2
		die "lanefwd-gen $name wrote no result"
	}
}

# memif_gen_end DIR NAME: after lf_stop, the generator must exit cleanly,
# having seen lanefwd close the links.
memif_gen_end() {
	wait "$GEN_PID" || {
		cat "$1/$2.gen.log" >&2
		die "lanefwd-gen $2 failed"
	}
	grep -q "peer closed the links" "$1/$2.gen.log" ||
		die "gen $2: the generator did not see lanefwd close the links"
}
