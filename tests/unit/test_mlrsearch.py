#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of bench/mlrsearch.py: trial classification (pass, fail,
invalid; backpressure as the forwarder's limit) and the search on a
synthetic SUT, deterministic and with descheduled trials injected."""
import os
import random
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from mlrsearch import FAIL, INVALID, PASS, Search, classify  # noqa: E402


def trial(tx=1000000, rx=None, refused=0, target=1000000, tx_pps=None, fwd=1.0, gen=1.0):
    return {"tx": tx, "rx": tx if rx is None else rx, "tx_refused": refused,
            "target_pps": target, "tx_pps": target if tx_pps is None else tx_pps,
            "fwd_share": fwd, "gen_share": gen}


class Classify(unittest.TestCase):
    def test_pass_and_loss(self):
        self.assertEqual(classify(trial(), 0.0, 0.98)[0], PASS)
        self.assertEqual(classify(trial(rx=999999), 0.0, 0.98)[0], FAIL)
        self.assertEqual(classify(trial(rx=995000), 0.005, 0.98)[0], PASS)
        self.assertEqual(classify(trial(rx=994999), 0.005, 0.98)[0], FAIL)

    def test_backpressure_is_the_forwarders_limit(self):
        # Nothing lost, but the forwarder's RX ring refused packets: a failure,
        # exactly as loss (a NIC would have dropped them), never a pass.
        c, why = classify(trial(refused=1), 0.0, 0.98)
        self.assertEqual(c, FAIL)
        self.assertIn("refused", why)
        self.assertEqual(classify(trial(refused=5000), 0.005, 0.98)[0], PASS)
        self.assertEqual(classify(trial(refused=5001), 0.005, 0.98)[0], FAIL)
        # Unpaced (target 0) with refusals: the forwarder's limit as well.
        self.assertEqual(classify(trial(target=0, tx_pps=5e6, refused=30), 0.0, 0.98)[0], FAIL)
        # A generator behind its schedule *because* of refusals: the forwarder's.
        self.assertEqual(classify(trial(tx_pps=800000, refused=200000), 0.005, 0.98)[0], FAIL)

    def test_invalid(self):
        # Failed while a process was descheduled: invalid, not a loss.
        c, why = classify(trial(rx=900000, fwd=0.80), 0.0, 0.98)
        self.assertEqual(c, INVALID)
        self.assertIn("fwd", why)
        self.assertEqual(classify(trial(refused=10, gen=0.5), 0.0, 0.98)[0], INVALID)
        # Passed while descheduled: still a pass (it carried the load anyway).
        self.assertEqual(classify(trial(fwd=0.5), 0.0, 0.98)[0], PASS)
        # Behind schedule with nothing refused: the load was never offered.
        # Invalid when the generator was descheduled; its own limit otherwise.
        self.assertEqual(classify(trial(tx_pps=900000, gen=0.9), 0.0, 0.98)[0], INVALID)
        c, why = classify(trial(tx_pps=900000), 0.0, 0.98)
        self.assertEqual(c, FAIL)
        self.assertIn("generator's own limit", why)
        # Lost only toward the generator (the forwarder's TX ring to it was
        # full): the tester's RX limit, invalid; any other loss is a failure.
        t = trial(rx=999000)
        t["tester_loss"] = 1000
        self.assertEqual(classify(t, 0.0, 0.98)[0], INVALID)
        t["tester_loss"] = 999
        self.assertEqual(classify(t, 0.0, 0.98)[0], FAIL)
        t["tester_loss"] = 1000
        t["tx_refused"] = 5
        self.assertEqual(classify(t, 0.0, 0.98)[0], FAIL)
        self.assertEqual(classify(trial(tx=0), 0.0, 0.98)[0], INVALID)
        # A few ms off the CPU fail a trial long before they show in a share:
        # with max_wait_ms a failure after such a wait is invalid, a pass stays.
        t = trial(rx=999990)
        t.update(fwd_wait_ms=3.0, gen_wait_ms=30.0)
        self.assertEqual(classify(t, 0.0, 0.98)[0], FAIL)
        c, why = classify(t, 0.0, 0.98, max_wait_ms=0.5)
        self.assertEqual(c, INVALID)
        self.assertIn("fwd waited 3.00 ms", why)
        t.update(rx=t["tx"])
        self.assertEqual(classify(t, 0.0, 0.98, max_wait_ms=0.5)[0], PASS)
        # The generator's wait alone (it shares its CPU with the driver) is not.
        t.update(rx=999990, fwd_wait_ms=0.2)
        self.assertEqual(classify(t, 0.0, 0.98, max_wait_ms=0.5)[0], FAIL)
        # A stall the forwarder's own clock saw (a host preemption no guest
        # schedstat shows) longer than its RX ring holds: invalid; shorter,
        # or on a pass, it changes nothing.
        t = trial(rx=999990)
        t.update(fwd_stall_ms=2.8, ring_hold_ms=2.79)
        c, why = classify(t, 0.0, 0.98)
        self.assertEqual(c, INVALID)
        self.assertIn("fwd stalled 2.80 ms", why)
        t.update(ring_hold_ms=4.0)
        self.assertEqual(classify(t, 0.0, 0.98)[0], FAIL)
        t.update(ring_hold_ms=1.0, rx=t["tx"])
        self.assertEqual(classify(t, 0.0, 0.98)[0], PASS)
        # Unknown shares never make a trial invalid.
        self.assertEqual(classify(trial(rx=1, fwd=None, gen=None), 0.0, 0.98)[0], FAIL)


class Sut:
    """A forwarder that takes up to c0 pps without loss, loses 0.3% up to
    c1, more above it (the excess over c1 plus 0.3%), and whose RX ring
    refuses what exceeds cap = 1.1 c1 (so the generator is held back, as
    memif does). The generator sends at most gen_max pps. inject(n) tells
    whether trial n is descheduled: it then loses 5% and reports a CPU
    share of 0.6."""

    def __init__(self, c0, c1, gen_max=None, inject=None, noise=None, seed=1):
        self.c0, self.c1, self.cap = c0, c1, int(c1 * 1.1)
        self.gen_max = gen_max or 10 * c1
        self.inject = inject or (lambda n: False)
        self.noise = noise
        self.rng = random.Random(seed)
        self.n = 0
        self.loads = []

    def __call__(self, load, d):
        self.n += 1
        self.loads.append((load, d))
        offered = min(load, self.gen_max) if load else self.gen_max
        taken = min(offered, self.cap)
        tx = int(taken * d)
        refused = int(max(0, offered - self.cap) * d)
        lost = 0
        if taken > self.c0:
            lost = int(tx * 0.003)
        if taken > self.c1:
            lost += int((taken - self.c1) * d)
        share = 1.0
        if self.inject(self.n):
            lost, share = tx // 20, 0.6
        elif self.noise and self.rng.random() < self.noise:
            lost = max(lost, 1)      # a valid, unlucky trial
        return {"tx": tx, "rx": tx - lost, "tx_refused": refused,
                "target_pps": load or 0, "tx_pps": taken if load is None else offered,
                "rx_pps": (tx - lost) / d, "fwd_share": share, "gen_share": 1.0}


def search(**kw):
    return Search(durations=(0.5, 1.0), widths=(0.04, 0.02), final_trials=3, **kw)


class SearchTest(unittest.TestCase):
    C0, C1 = 7_000_000, 8_000_000

    def check(self, res, sut):
        ndr, pdr = res["results"]["NDR"], res["results"]["PDR"]
        self.assertIsNone(res["incomplete"])
        # Within the final width below the true limits, never above.
        self.assertLessEqual(ndr["load"], self.C0)
        self.assertGreaterEqual(ndr["load"], self.C0 * 0.98)
        self.assertLessEqual(pdr["load"], self.C1)
        self.assertGreaterEqual(pdr["load"], self.C1 * 0.98)
        self.assertLessEqual(ndr["width"], 0.02)
        self.assertLessEqual(pdr["width"], 0.02)
        # The final rates were repeated at the final duration: at least two
        # passes at each lower bound, two failures at each upper bound.
        for name, r in res["results"].items():
            fin = [res["trials"][i] for i in r["final_trials"]]
            at_lb = [t for t in fin if t["load"] == r["load"] and t["valid"] and
                     t["class"][name] == PASS]
            at_ub = [t for t in fin if t["load"] == r["upper"] and t["valid"] and
                     t["class"][name] == FAIL]
            self.assertGreaterEqual(len(at_lb), 2, name)
            self.assertGreaterEqual(len(at_ub), 2, name)
            self.assertTrue(all(t["duration"] == 1.0 for t in fin))
        self.assertFalse(ndr["at_max"])
        return ndr["load"], pdr["load"]

    def test_deterministic(self):
        sut = Sut(self.C0, self.C1)
        res = search().run(sut)
        self.assertEqual(res["n_invalid"], 0)
        # The unpaced first trial was held back by backpressure: it failed,
        # and the generator's unpaced rate (the forwarder's) is the top load.
        self.assertEqual(res["unpaced"]["class"]["NDR"], FAIL)
        self.assertEqual(res["max_load"], int(self.C1 * 1.1))
        a = self.check(res, sut)
        # Deterministic: the same SUT gives the same answer and the same trials.
        sut2 = Sut(self.C0, self.C1)
        res2 = search().run(sut2)
        self.assertEqual(a, self.check(res2, sut2))
        self.assertEqual(sut.loads, sut2.loads)

    def test_descheduled_trials_are_rerun_not_lost(self):
        clean = Sut(self.C0, self.C1)
        want = self.check(search().run(clean), clean)
        # Every third trial descheduled (5% loss, CPU share 0.6).
        sut = Sut(self.C0, self.C1, inject=lambda n: n % 3 == 0)
        res = search().run(sut)
        self.assertGreater(res["n_invalid"], 0)
        self.assertEqual(self.check(res, sut), want)
        inv = [t for t in res["trials"] if not t["valid"]]
        self.assertTrue(all("descheduled" in t["why"] for t in inv))
        # Each invalid trial was followed by a valid one at the same load.
        for i, t in enumerate(res["trials"]):
            if not t["valid"]:
                nxt = res["trials"][i + 1]
                self.assertEqual((nxt["load"], nxt["duration"]), (t["load"], t["duration"]))

    def test_single_unlucky_trial_does_not_move_the_result(self):
        # 10% of valid trials lose one packet anywhere: the exceed ratio
        # (2 of 3 at the final duration) absorbs them; the NDR stays within
        # the final width plus one external step of the limit.
        sut = Sut(self.C0, self.C1, noise=0.1, seed=3)
        res = search().run(sut)
        self.assertIsNone(res["incomplete"])
        ndr = res["results"]["NDR"]["load"]
        self.assertLessEqual(ndr, self.C0)
        self.assertGreaterEqual(ndr, self.C0 * 0.9)

    def test_generator_bound(self):
        # A forwarder faster than the generator: the unpaced trial passes
        # with nothing refused; both goals end at the highest load.
        sut = Sut(50_000_000, 60_000_000, gen_max=9_000_000)
        res = Search(durations=(0.5, 1.0), widths=(0.04, 0.02)).run(sut)
        for r in res["results"].values():
            self.assertTrue(r["at_max"])
            self.assertEqual(r["load"], 9_000_000)
        self.assertEqual(res["unpaced"]["class"]["NDR"], PASS)

    def test_disturbed_initial_trial_is_rerun(self):
        # The first unpaced trial passed at a third of the rate while the
        # generator was descheduled: it must not set the highest load.
        sut = Sut(self.C0, self.C1)
        real = sut.__call__

        def measure(load, d):
            t = real(load, d)
            if sut.n == 1:
                t.update(tx=t["tx"] // 3, rx=t["tx"] // 3, tx_refused=0, tx_pps=t["tx_pps"] / 3,
                         gen_share=0.5)
            return t
        res = search().run(measure)
        self.assertEqual(res["n_invalid"], 1)
        self.assertEqual(res["max_load"], int(self.C1 * 1.1))
        self.check(res, sut)

    def test_gives_up_when_always_descheduled(self):
        sut = Sut(self.C0, self.C1, inject=lambda n: n > 1)
        res = Search(durations=(0.5, 1.0), widths=(0.04, 0.02), max_invalid=5).run(sut)
        self.assertIn("invalid", res["incomplete"])
        self.assertEqual(res["n_invalid"], 5)
        self.assertEqual(res["results"], {})


if __name__ == "__main__":
    unittest.main(verbosity=2)
