# SPDX-License-Identifier: BSD-3-Clause
# Shell helpers of the benchmarks that drive lanefwd-pipebench
# (bench-pipeline.sh, bench-prefetch.sh, bench-fib.sh). Sourced; runs nothing
# itself.

# A route table the FIB holds in cache whatever the destinations: the 256
# /16s of 10.0.0.0/8, next hops 0-15.
small_routes() {
	local i
	for i in $(seq 0 255); do echo "10.$i.0.0/16 $((i % 16))"; done
}

# [nexthop 0] to [nexthop N-1], all on port p0, MAC 02:00:00:00:01:<id>.
nexthops_p0() {
	local i
	for i in $(seq 0 $(($1 - 1))); do
		printf '[nexthop %d]\nport = p0\nmac = 02:00:00:00:01:%02x\n' "$i" "$i"
	done
}

# csv_tag_round FILE ROUND: put the round in front of every row of FILE
# (the header gets 'round').
csv_tag_round() {
	sed "s/^/$2,/; 1s/^$2,/round,/" "$1" > "$1.tmp" && mv "$1.tmp" "$1"
}

# csv_merge DIR: DIR/*.csv as one CSV on stdout, the first file's header once.
csv_merge() {
	local first=1 f
	for f in "$1"/*.csv; do
		if [ "$first" -eq 1 ]; then head -1 "$f"; first=0; fi
		tail -n +2 "$f"
	done
}
