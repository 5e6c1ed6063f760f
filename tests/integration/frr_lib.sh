# Real routing daemons for the integration tests (sourced, not run): FRR
# (Debian's frr 8.4: zebra + bgpd) and BIRD 2, each run as plain processes
# inside a network namespace, with everything they write under a directory
# of the test's own: configuration, pid files, logs, vty sockets, zebra's
# zserv socket, BIRD's control socket. Nothing in /etc/frr, /etc/bird or
# /var/run/frr is read or written and no system service is started, so the
# tests can run beside an FRR or BIRD the host runs itself.
#
#   frr_start NAME NS BGPD_BODY             zebra, then bgpd with BGPD_BODY
#                                           (its "router bgp" section)
#   bird_start NAME NS BODY                 bird with BODY as its configuration
#   frr_vtysh NAME CMD...                   vtysh -c CMD against NAME's daemons
#   bird_cmd NAME CMD...                    birdc against NAME's socket
#   frr_wait_established NAME PEER SECS     until bgpd has PEER Established
#   bird_wait_established NAME PROTO SECS   until BIRD's PROTO is Established
#   frr_wait_routes NS PREFIX N SECS        until NS's kernel has N routes
#                                           of proto bgp within PREFIX
#   ns_bgp_routes NS [PREFIX]               how many it has now
#   bird_static_routes NAME N FIRST_OCTETS  a "protocol static NAME" of N /24s
#   frr_stop_all                            SIGTERM every daemon started
#                                           here (by pid), SIGKILL after 10 s
#
# Each daemon's pid is the one the shell started ("ip netns exec" execs, so
# it is the daemon's own); the daemons run in the foreground (no -d) and are
# stopped by those pids only. FRR_DIR (default a fresh mktemp directory) holds
# one directory per NAME. Needs root.

FRR_BIN=${FRR_BIN:-/usr/lib/frr}
BIRD_BIN=${BIRD_BIN:-/usr/sbin/bird}
FRR_DIR=${FRR_DIR:-$(mktemp -d /tmp/lanefwd-frr.XXXXXX)}
FRR_PIDS=""

if ! declare -F die >/dev/null; then
	die() {
		echo "FAIL: $*" >&2
		exit 1
	}
fi

frr_have_tools() {
	local t
	for t in "$FRR_BIN/zebra" "$FRR_BIN/bgpd" "$BIRD_BIN"; do
		[ -x "$t" ] || { echo "$t is not installed (scripts/deps.sh: frr, bird2)"; return 1; }
	done
	for t in vtysh birdc ip; do
		command -v "$t" >/dev/null || { echo "$t is not installed (scripts/deps.sh)"; return 1; }
	done
}

# frr_spawn NAME WHAT NS CMD...: start CMD in NS in the background, its
# output in NAME's WHAT.out, its pid kept for frr_stop_all.
frr_spawn() {
	local name=$1 what=$2 ns=$3 pid
	shift 3
	ip netns exec "$ns" "$@" > "$FRR_DIR/$name/$what.out" 2>&1 &
	pid=$!
	FRR_PIDS="$FRR_PIDS $pid"
	echo "$pid" > "$FRR_DIR/$name/$what.spawned"
}

# frr_wait_file NAME WHAT FILE SECS: until FILE exists while NAME's WHAT runs.
frr_wait_file() {
	local name=$1 what=$2 f=$3 secs=$4 pid i
	pid=$(cat "$FRR_DIR/$name/$what.spawned")
	for i in $(seq 1 $((secs * 10))); do
		[ -e "$f" ] && return 0
		kill -0 "$pid" 2>/dev/null ||
			die "$what of $name exited during start-up: $(tail -n 5 "$FRR_DIR/$name/$what.out")"
		sleep 0.1
	done
	die "$what of $name did not create $f within $secs s: $(tail -n 5 "$FRR_DIR/$name/$what.out")"
}

frr_start() {
	local name=$1 ns=$2 body=$3 d=$FRR_DIR/$1
	mkdir -p "$d"
	cat > "$d/zebra.conf" <<EOF
hostname $name
log file $d/zebra.log informational
EOF
	cat > "$d/bgpd.conf" <<EOF
hostname $name
log file $d/bgpd.log informational
$body
EOF
	# The daemons drop to Debian's frr user (privs_init insists that the
	# user they run as is in the frrvty group, which root is not), so the
	# directory is theirs; -P 0: no vty TCP port, only the socket under $d.
	chmod 755 "$FRR_DIR"
	# vtysh --config_dir reads vtysh.conf there (not /etc/frr's).
	: > "$d/vtysh.conf"
	chown -R frr:frr "$d"
	frr_spawn "$name" zebra "$ns" "$FRR_BIN/zebra" -f "$d/zebra.conf" -i "$d/zebra.pid" \
		-z "$d/zserv.api" --vty_socket "$d" -P 0
	frr_wait_file "$name" zebra "$d/zserv.api" 20
	frr_spawn "$name" bgpd "$ns" "$FRR_BIN/bgpd" -f "$d/bgpd.conf" -i "$d/bgpd.pid" \
		-z "$d/zserv.api" --vty_socket "$d" -P 0
	frr_wait_file "$name" bgpd "$d/bgpd.vty" 20
}

frr_vtysh() {
	local name=$1
	shift
	local args=() c
	for c in "$@"; do
		args+=(-c "$c")
	done
	vtysh --config_dir "$FRR_DIR/$name" --vty_socket "$FRR_DIR/$name" "${args[@]}"
}

bird_start() {
	local name=$1 ns=$2 body=$3 d=$FRR_DIR/$1
	mkdir -p "$d"
	{
		echo "log \"$d/bird.log\" all;"
		echo "$body"
	} > "$d/bird.conf"
	bird -p -c "$d/bird.conf" > "$d/parse.out" 2>&1 ||
		die "BIRD refused the configuration of $name: $(cat "$d/parse.out")"
	# -f: foreground, so that the pid kept is BIRD's.
	frr_spawn "$name" bird "$ns" "$BIRD_BIN" -f -c "$d/bird.conf" -s "$d/bird.ctl" \
		-P "$d/bird.pid"
	frr_wait_file "$name" bird "$d/bird.ctl" 20
}

bird_cmd() {
	local name=$1
	shift
	birdc -s "$FRR_DIR/$name/bird.ctl" "$@"
}

# bird_static_routes NAME N A.B: a static protocol NAME announcing N /24s,
# A.B.0.0/24, A.B.1.0/24, ... (A.(B+1).0.0/24 after 256), as blackholes:
# what BIRD's own kernel table does with them does not matter, it exports
# none to its kernel.
bird_static_routes() {
	local name=$1 n=$2 a=${3%%.*} b=${3#*.}
	awk -v n="$n" -v a="$a" -v b="$b" -v name="$name" 'BEGIN {
		printf "protocol static %s {\n\tipv4;\n", name
		for (i = 0; i < n; i++)
			printf "\troute %d.%d.%d.0/24 blackhole;\n", a, b + int(i / 256), i % 256
		print "}"
	}'
}

# bird_static_routes6 NAME N: a static protocol NAME announcing N /48s,
# 2001:db8:100::/48, 2001:db8:101::/48, ...
bird_static_routes6() {
	awk -v n="$2" -v name="$1" 'BEGIN {
		printf "protocol static %s {\n\tipv6;\n", name
		for (i = 0; i < n; i++)
			printf "\troute 2001:db8:%x::/48 blackhole;\n", 256 + i
		print "}"
	}'
}

frr_wait_established() {
	local name=$1 peer=$2 secs=$3 i st=""
	for i in $(seq 1 $((secs * 5))); do
		st=$(frr_vtysh "$name" "show bgp neighbors $peer json" 2>/dev/null |
			/usr/bin/python3 -c 'import json, sys
try:
	print(json.load(sys.stdin)[sys.argv[1]]["bgpState"])
except Exception:
	print("unknown")' "$peer")
		[ "$st" = Established ] && return 0
		sleep 0.2
	done
	die "FRR $name: the session with $peer is $st after $secs s"
}

bird_wait_established() {
	local name=$1 proto=$2 secs=$3 i
	for i in $(seq 1 $((secs * 5))); do
		bird_cmd "$name" show protocols "$proto" 2>/dev/null | grep -q Established && return 0
		sleep 0.2
	done
	die "BIRD $name: protocol $proto is not Established after $secs s: $(bird_cmd "$name" show protocols "$proto" 2>&1 | tail -n 1)"
}

# ns_bgp_routes NS [PREFIX]: IPv4 routes of proto bgp in NS's main table
# (within PREFIX if given).
ns_bgp_routes() {
	if [ -n "${2:-}" ]; then
		ip netns exec "$1" ip -4 route show proto bgp root "$2" | wc -l
	else
		ip netns exec "$1" ip -4 route show proto bgp | wc -l
	fi
}

# frr_wait_routes NS PREFIX N SECS: until NS's kernel holds exactly N bgp
# routes within PREFIX; prints the seconds it took (1/10 s resolution).
frr_wait_routes() {
	local ns=$1 pfx=$2 n=$3 secs=$4 i c=0 t0 t1
	t0=$(date +%s%N)
	for i in $(seq 1 $((secs * 10))); do
		c=$(ns_bgp_routes "$ns" "$pfx")
		if [ "$c" -eq "$n" ]; then
			t1=$(date +%s%N)
			echo $(((t1 - t0) / 100000000)) | sed 's/\(.\)$/.\1/; s/^\./0./'
			return 0
		fi
		sleep 0.1
	done
	die "namespace $ns: $c bgp routes within $pfx after $secs s, $n expected"
}

frr_stop_all() {
	local p i
	[ -n "$FRR_PIDS" ] || return 0
	for p in $FRR_PIDS; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for i in $(seq 1 100); do
		local alive=0
		for p in $FRR_PIDS; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ "$alive" -eq 0 ] && break
		sleep 0.1
	done
	for p in $FRR_PIDS; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	FRR_PIDS=""
}
