#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Derive IPv6 ClassBench-format rule sets from the IPv4 ones in acl/.

  acl6_derive.py           write acl/NAME_v6 for every NAME in SETS
  acl6_derive.py --check   exit 1 unless every acl/NAME_v6 is what this
                           script writes (run by meson test as acl6_data)

There are no public IPv6 ClassBench sets of the same provenance, so each
IPv4 rule becomes one IPv6 rule, in the same order, with the same port
ranges, protocol, flags field and trailing tab. Only the two prefixes
change, by a deterministic expansion that keeps the structure of the set
(nested and overlapping prefixes stay nested and overlapping) while making
all four 32-bit words of an address matter:

* Bit i of the IPv4 address (i = 0 the most significant) becomes nibble i
  of the IPv6 address: its top bit is the IPv4 bit, its low 3 bits are
  (3 * i + C) mod 8, with C = 0 for the source and 5 for the destination.
  The whole address is expanded, host bits too, so most derived prefixes
  have host bits set past their length (the loader masks them off).
* A length L > 0 becomes 4 * L - (K mod 4), K the 0-based rule index: a
  /32 becomes /128, /127, /126 or /125; a /24 becomes /93 to /96; a /8
  /29 to /32; the cut falls inside a nibble for three rules in four, and
  every cut keeps the IPv4 bits of the prefix (the top bit of each nibble).
  L = 0 (any address) becomes ::/0.
* The address is written in RFC 5952 compressed form, except for every
  fifth rule (K mod 5 == 4), written in full (8 groups of 4 hex digits), so
  that both forms are read.
"""

import ipaddress
import os
import sys

SETS = ["acl1_1k", "fw1_1k", "ipc1_1k", "acl1_10k"]
HERE = os.path.dirname(os.path.abspath(__file__))


def expand(addr4, length, k, c):
    """The IPv6 prefix text for IPv4 prefix addr4/length of rule k."""
    if length == 0:
        return "::/0"
    v = 0
    for i in range(32):
        bit = (addr4 >> (31 - i)) & 1
        v = (v << 4) | (bit << 3) | ((3 * i + c) % 8)
    a = ipaddress.IPv6Address(v)
    text = a.exploded if k % 5 == 4 else a.compressed
    return f"{text}/{4 * length - k % 4}"


def derive_line(line, k):
    fields = line.split("\t")
    if not fields[0].startswith("@") or len(fields) < 3:
        raise ValueError(f"rule {k + 1}: not a ClassBench line: {line!r}")
    out = []
    for text, c in ((fields[0][1:], 0), (fields[1], 5)):
        net = ipaddress.IPv4Network(text, strict=False)
        addr4 = int(ipaddress.IPv4Address(text.split("/")[0]))
        out.append(expand(addr4, net.prefixlen, k, c))
    return "@" + "\t".join(out + fields[2:])


def derive(name):
    with open(os.path.join(HERE, "acl", name)) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "".join(derive_line(line, k) + "\n" for k, line in enumerate(lines))


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for name in SETS:
        text = derive(name)
        path = os.path.join(HERE, "acl", name + "_v6")
        if check:
            try:
                with open(path) as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                print(f"{path}: differs from what {sys.argv[0]} writes", file=sys.stderr)
                bad = 1
        else:
            with open(path, "w") as f:
                f.write(text)
    if check and not bad:
        print(f"acl6_derive: {len(SETS)} IPv6 sets match their IPv4 sources")
    return bad


if __name__ == "__main__":
    sys.exit(main())
