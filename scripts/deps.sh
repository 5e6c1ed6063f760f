#!/usr/bin/env bash
# Install what lanefwd needs to build, test and benchmark on Debian 12.
# clang, libclang-rt-14-dev (libFuzzer and the sanitizer runtimes) and llvm
# (llvm-symbolizer, for sanitizer stacks) are for the fuzz suite and
# scripts/fuzz.sh; GCC's own ASan/UBSan runtimes come with build-essential.
# Idempotent: installs only what is missing. Run as root.
set -euo pipefail

PKGS=(
	build-essential pkg-config meson ninja-build
	dpdk dpdk-dev dpdk-doc libnuma-dev libbpf-dev libxdp-dev libpcap-dev
	libcmocka-dev
	clang libclang-rt-14-dev llvm
	python3 python3-scapy python3-matplotlib tshark clang-format git
	iproute2 iputils-ping iperf3 ethtool procps
	libmnl-dev
	# Real peers of the control-plane tests (docs/control-plane.md): a
	# routing daemon on each side, and a Prometheus server to scrape.
	frr bird2 prometheus traceroute
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ "${#missing[@]}" -ne 0 ]; then
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer no.
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	apt-get update -qq
	# frr, bird2 and prometheus come with services; the tests run their
	# own instances in namespaces, so none is started on the host:
	# policy-rc.d refuses service starts for the length of the install.
	policy=/usr/sbin/policy-rc.d
	had_policy=0
	[ -e "$policy" ] && had_policy=1
	if [ "$had_policy" -eq 0 ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod +x "$policy"
		trap 'rm -f "$policy"' EXIT
	fi
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
	if [ "$had_policy" -eq 0 ]; then
		rm -f "$policy"
		trap - EXIT
	fi
fi
