#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of bench/bench_upf_e2e.py's report: which trials count as
full bursts, and the split of a configuration's trials into the host's two
regimes (docs/upf-e2e.md, "Full-burst cost by regime")."""
import os
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from bench_upf_e2e import FULL_FILL, REGIME_GAP, UpfBench  # noqa: E402


def trial(cycles_per_packet, fill=32.0, valid=True, rx=3200000):
    polls = int(rx / fill)
    return {"valid": valid, "fwd_counters": {
        "rx_packets": rx, "busy_polls": polls,
        "busy_cycles": int(cycles_per_packet * rx)}}


class Config:
    def __init__(self, trials):
        self.searches = [{"trials": trials}]


class FullCosts(unittest.TestCase):
    def test_only_valid_full_trials(self):
        c = Config([trial(100), trial(300, fill=FULL_FILL - 1), trial(200, valid=False),
                    trial(150, fill=FULL_FILL), {"valid": True}])
        self.assertEqual([round(x) for x in UpfBench.full_costs(c)], [100, 150])


class Regimes(unittest.TestCase):
    def test_two_clusters(self):
        # The run of 866d664's plain L3: 84 and 182 cycles/packet.
        cs = [83, 83, 84, 84, 85, 85, 91, 170, 170, 172, 181, 182, 183, 186, 193, 201]
        fast, slow = UpfBench.regimes(cs)
        self.assertEqual(fast, cs[:7])
        self.assertEqual(slow, cs[7:])

    def test_one_cluster_is_slow_side(self):
        cs = [291, 292, 296, 305, 309, 318, 327]
        self.assertEqual(UpfBench.regimes(cs), ([], cs))

    def test_split_at_the_widest_step_only(self):
        # Two steps above the gap: the wider one splits.
        cs = [100, 100 * (REGIME_GAP + 0.01), 300, 310]
        fast, slow = UpfBench.regimes(cs)
        self.assertEqual(slow, [300, 310])
        self.assertEqual(len(fast), 2)

    def test_below_the_gap_no_split(self):
        cs = [100, 100 * (REGIME_GAP - 0.01)]
        self.assertEqual(UpfBench.regimes(cs), ([], cs))

    def test_short(self):
        self.assertEqual(UpfBench.regimes([]), ([], []))
        self.assertEqual(UpfBench.regimes([5]), ([], [5]))


if __name__ == "__main__":
    unittest.main()
