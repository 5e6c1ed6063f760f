#!/usr/bin/env bash
# Reserve 2 MiB hugepages (default 1024 = 2 GiB) and make sure hugetlbfs is
# mounted. Only raises the reservation, never lowers it.
set -euo pipefail
want=${1:-1024}
cur=$(cat /proc/sys/vm/nr_hugepages)
if [ "$cur" -lt "$want" ]; then
	echo "$want" > /proc/sys/vm/nr_hugepages
fi
if ! grep -q hugetlbfs /proc/mounts; then
	mkdir -p /dev/hugepages
	mount -t hugetlbfs nodev /dev/hugepages
fi
grep -E 'HugePages_(Total|Free)' /proc/meminfo
