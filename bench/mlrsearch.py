#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""MLRsearch (Multiple Loss Ratio search), FD.io CSIT's throughput search,
as described in draft-ietf-bmwg-mlrsearch, for the lanefwd benchmarks.

Pure logic: the caller measures. `Search.run(measure)` calls
`measure(load_pps, duration_s)` (load None: unpaced) and gets a trial dict
back (the fields of a lanefwd-gen --trials JSON line, plus the CPU shares
the caller measured during it: fwd_share, gen_share).

What is taken from MLRsearch:
  * several goals found in one search, sharing trials: NDR (loss ratio 0, or
    the stated one) and PDR (0.5%);
  * phases of growing trial duration with a shrinking width goal: short
    trials find the neighbourhood cheaply, only the final phase's trials
    decide the result;
  * at the final duration a load is classified from a duration sum of
    trials (`final_trials` x the final duration) and an exceed ratio (0.5):
    it is a lower bound when, even if every missing trial failed, at most
    half of the sum would exceed the goal's loss ratio, an upper bound when
    more than half already does. So the final rates are repeated, and one
    unlucky trial cannot move the result;
  * the result of a goal is its relevant lower bound (the highest load
    classified as a lower bound below the lowest upper bound) once the
    bounds are within the goal width.

What this harness adds (a 2-vCPU VM where both processes share CPUs with
other work):
  * classification of a trial: pass (loss and backpressure within the
    ratio), fail (over it), invalid (it failed while the forwarding thread
    or the generator had less than min_share of a CPU, or the generator fell
    behind its schedule without backpressure: the load was never offered).
    Invalid trials are re-run and never counted as a loss; a trial that
    passed while descheduled still passed;
  * backpressure (packets the forwarder's RX ring refused, tx_refused) counts
    against the forwarder exactly as loss does: on a NIC those packets would
    have been dropped at its RX ring.
"""

PASS, FAIL, INVALID = "pass", "fail", "invalid"


class Goal:
    """One search goal: a name and the loss ratio a passing trial stays within."""

    def __init__(self, name, loss_ratio):
        self.name, self.loss_ratio = name, loss_ratio

    def __repr__(self):
        return "Goal(%s, %g)" % (self.name, self.loss_ratio)


def classify(trial, loss_ratio, min_share, short=0.98, max_wait_ms=None):
    """(PASS | FAIL | INVALID, reason) of one trial against a loss ratio.

    trial: tx (measured packets sent), rx (unique ones received),
    tx_refused (packets the PMD refused at least once), target_pps (0:
    unpaced), tx_pps (achieved), fwd_share / gen_share (share of the trial
    each process had a CPU; None when unknown), fwd_wait_ms / gen_wait_ms
    (time each busy-polling thread spent runnable but off its CPU: one
    descheduling of a few ms overflows a ring long before it shows in a
    share; with max_wait_ms, more than that makes a failure invalid),
    fwd_stall_ms and ring_hold_ms (the time the forwarder's loop stalled,
    by its own clock, and how long its RX ring holds the offered load:
    a failure with more of the first than the second is invalid),
    tester_loss (packets the forwarder dropped because its TX ring toward
    the generator was full: a failure made only of those is invalid)."""
    tx = trial.get("tx", 0)
    if tx <= 0:
        return INVALID, "nothing sent"
    lost = max(0, tx - trial.get("rx", 0))
    refused = trial.get("tx_refused", 0)
    # Lost on the way back to the generator (the forwarder's TX ring toward
    # it was full: the generator's RX did not keep up), when the forwarder
    # says so: the tester's limit, not the forwarder's.
    tester = min(lost, trial.get("tester_loss") or 0)
    over = []
    if lost > loss_ratio * tx:
        over.append("loss %.4f%%" % (100.0 * lost / tx))
    if refused > loss_ratio * tx:
        over.append("refused %.4f%%" % (100.0 * refused / tx))
    target = trial.get("target_pps") or 0
    behind = target and trial.get("tx_pps", 0) < short * target and refused == 0
    low = ["%s %.3f" % (k, trial[k + "_share"]) for k in ("fwd", "gen")
           if trial.get(k + "_share") is not None and trial[k + "_share"] < min_share]
    # The forwarding thread is alone on its CPU: any runqueue wait there is a
    # descheduling. The generator shares its CPU with the driver and the
    # telemetry client (about 1.5% of a trial, in short waits), so it is
    # judged by its share only.
    if max_wait_ms is not None and (trial.get("fwd_wait_ms") or 0) > max_wait_ms:
        low.append("fwd waited %.2f ms" % trial["fwd_wait_ms"])
    # What the forwarder's own clock saw (lanefwd's stall counter: loop
    # iterations over 1 ms, which include a hypervisor's preemption that no
    # guest schedstat shows): off its CPU for longer than its RX ring holds
    # at this load, it could not have carried it whatever its speed.
    stall, hold = trial.get("fwd_stall_ms"), trial.get("ring_hold_ms")
    if stall is not None and hold is not None and stall > hold:
        low.append("fwd stalled %.2f ms, its RX ring holds %.2f ms" % (stall, hold))
    if behind:
        why = "generator behind schedule (%.3f of %.3f Mpps, nothing refused)" % (
            trial.get("tx_pps", 0) / 1e6, target / 1e6)
        if low:
            return INVALID, "%s; %s" % (why, ", ".join(low))
        # It had its CPU and still could not send the load: beyond what this
        # generator can offer, the top of what the harness can measure.
        return FAIL, why + ": the generator's own limit"
    if not over:
        return PASS, "within %g%%" % (100 * loss_ratio)
    if low:
        return INVALID, "%s while descheduled (%s)" % (", ".join(over), ", ".join(low))
    if refused <= loss_ratio * tx and lost - tester <= loss_ratio * tx:
        return INVALID, "%s, %d of them lost toward the generator (its RX did not keep up)" % (
            ", ".join(over), tester)
    return FAIL, ", ".join(over)


class Search:
    """One MLRsearch over goals (NDR and PDR by default).

    max_load: the highest load to offer (pps); None: measured by the
    initial unpaced trial. min_load: below it a goal's result is 0.
    durations: the phases' trial durations, the last one final. widths:
    the phases' relative width goals (same length). final_trials: trials
    of the final duration summed to classify a load (with exceed ratio
    0.5: 3 means 2 passes make a lower bound, 2 fails an upper bound).
    max_trials / max_invalid: give up (the search is then incomplete)."""

    def __init__(self, goals=None, min_share=0.98, max_wait_ms=None, durations=(0.5, 1.0),
                 widths=(0.04, 0.02),
                 initial_duration=1.0, final_trials=3, exceed_ratio=0.5, max_load=None,
                 min_load=10000, max_trials=80, max_invalid=24, log=None):
        self.goals = goals or [Goal("NDR", 0.0), Goal("PDR", 0.005)]
        assert len(durations) == len(widths) and durations
        self.min_share, self.max_wait_ms = min_share, max_wait_ms
        self.durations, self.widths = list(durations), list(widths)
        self.initial_duration = initial_duration
        self.final_trials, self.exceed_ratio = final_trials, exceed_ratio
        self.max_load, self.min_load = max_load, min_load
        self.max_trials, self.max_invalid = max_trials, max_invalid
        self.log = log or (lambda msg: None)
        self.trials = []          # every trial, invalid ones included, in order
        self.results = {}         # goal name -> result dict
        self.incomplete = None    # why the search stopped early, or None
        self.unpaced = None       # the initial trial

    # ------------------------------------------------------------ bookkeeping
    def _measure(self, measure, load, duration, phase):
        """One valid trial at load (invalid ones re-run); None when out of budget."""
        while True:
            if len(self.trials) >= self.max_trials:
                self.incomplete = "trial budget (%d) spent" % self.max_trials
                return None
            if self.n_invalid() >= self.max_invalid:
                self.incomplete = "%d invalid trials" % self.n_invalid()
                return None
            t = dict(measure(load, duration))
            t["load"] = load
            t["duration"] = duration
            t["phase"] = phase
            t["class"] = {}
            invalid = None
            for g in self.goals:
                c, why = classify(t, g.loss_ratio, self.min_share,
                                  max_wait_ms=self.max_wait_ms)
                t["class"][g.name] = c
                if c == INVALID:
                    invalid = why
            # A trial invalid for one goal is invalid for all: it did not
            # measure the forwarder (the stricter goal's pass still stands
            # for the looser one, so INVALID can only come from a failure
            # or from the generator falling behind).
            t["valid"] = invalid is None
            t["why"] = invalid or "; ".join("%s %s" % (g.name, classify(
                t, g.loss_ratio, self.min_share, max_wait_ms=self.max_wait_ms)[1])
                for g in self.goals)
            self.trials.append(t)
            self.log("  trial %d: %s %.3f Mpps %.2f s: %s (%s)" % (
                len(self.trials), "phase %d" % phase if phase >= 0 else "initial",
                (load if load else t.get("tx_pps", 0)) / 1e6, duration,
                "invalid" if invalid else ", ".join(
                    "%s %s" % (g.name, t["class"][g.name]) for g in self.goals), t["why"]))
            if invalid is None:
                return t

    def n_invalid(self):
        return sum(1 for t in self.trials if not t["valid"])

    def _state(self, goal, load, duration, need):
        """'lower', 'upper', None (undecided) or 'none' (no trial of this
        phase's duration: earlier phases' trials are only hints) for a load."""
        good = bad = 0.0
        for t in self.trials:
            if t["valid"] and t["load"] == load and t["duration"] >= duration - 1e-9:
                if t["class"][goal.name] == PASS:
                    good += t["duration"]
                else:
                    bad += t["duration"]
        if good + bad == 0:
            return "none"
        total = need * duration
        missing = max(0.0, total - good - bad)
        if bad > self.exceed_ratio * total + 1e-9:
            return "upper"
        if bad + missing <= self.exceed_ratio * total + 1e-9:
            return "lower"
        return None

    def _bounds(self, goal, duration, need):
        """(relevant lower bound, relevant upper bound, undecided loads) at a phase."""
        loads = sorted({t["load"] for t in self.trials if t["valid"] and t["load"]})
        states = {ld: self._state(goal, ld, duration, need) for ld in loads}
        uppers = [ld for ld, s in states.items() if s == "upper"]
        ub = min(uppers) if uppers else None
        lowers = [ld for ld, s in states.items() if s == "lower" and (ub is None or ld < ub)]
        lb = max(lowers) if lowers else None
        undecided = [ld for ld, s in states.items() if s is None and
                     (lb is None or ld > lb) and (ub is None or ld < ub)]
        return lb, ub, undecided

    # ------------------------------------------------------------- the search
    def _disturbed(self, t):
        """Either process descheduled during a trial (whatever its result)."""
        for k in ("fwd", "gen"):
            sh = t.get(k + "_share")
            if sh is not None and sh < self.min_share:
                return True
        return self.max_wait_ms is not None and (t.get("fwd_wait_ms") or 0) > self.max_wait_ms

    def run(self, measure):
        # The initial unpaced trial sets the highest load: one that passed
        # while a process was descheduled only shows how slow the generator
        # was then, so it too is re-run (and counted invalid).
        while True:
            t = self._measure(measure, None, self.initial_duration, -1)
            if t is None:
                return self.summary()
            if not self._disturbed(t):
                break
            t["valid"] = False
            t["why"] = "initial trial while descheduled: it cannot set the highest load"
            self.log("  (initial trial disturbed: re-run)")
        self.unpaced = t
        if self.max_load is None:
            self.max_load = int(t.get("tx_pps", 0))
        # The forwarder's received rate with the generator unpaced (CSIT's MRR):
        # the first guess for every goal's lower bound.
        mrr = int(min(t.get("rx_pps", 0), self.max_load))
        hints = {g.name: (max(self.min_load, mrr), self.max_load) for g in self.goals}
        n = len(self.durations)
        for phase, (d, w) in enumerate(zip(self.durations, self.widths)):
            need = self.final_trials if phase == n - 1 else 1
            for g in self.goals:
                res = self._goal_phase(measure, g, phase, d, w, need, hints[g.name])
                if res is None:
                    return self.summary()
                hints[g.name] = res
        last = n - 1
        for g in self.goals:
            lb, ub = hints[g.name]
            at_ub = [t for t in self.trials if t["valid"] and t["load"] == ub and
                     t["phase"] == last and t["class"][g.name] == FAIL]
            self.results[g.name] = {
                # Every failure at the upper bound was the generator falling
                # behind with nothing refused: the harness's limit, not the
                # forwarder's.
                "generator_limit": bool(at_ub) and all(
                    "generator's own limit" in t["why"] for t in at_ub),
                "load": lb, "upper": ub, "loss_ratio": g.loss_ratio,
                "width": (ub - lb) / ub if ub and lb else None,
                "max_load": self.max_load,
                "at_max": lb is not None and lb >= self.max_load,
                "final_trials": [i for i, t in enumerate(self.trials)
                                 if t["phase"] == last and t["load"] in (lb, ub)],
            }
        return self.summary()

    def _goal_phase(self, measure, g, phase, d, w, need, hint):
        """Narrow one goal's bounds at one phase; (lb, ub) or None (gave up)."""
        hint_lb, hint_ub = hint
        k_down = k_up = 0
        while True:
            lb, ub, undecided = self._bounds(g, d, need)
            if undecided:
                # A load with too few trials to decide: measure it again
                # (the lowest first: it decides what the search does next).
                load = min(undecided)
            elif lb is not None and lb >= self.max_load:
                return lb, None                       # passes at the highest load
            elif lb is not None and ub is not None and (ub - lb) <= w * ub:
                return lb, ub
            elif lb is None and ub is not None and ub <= self.min_load:
                return 0, ub                          # fails at the lowest load
            elif lb is None and ub is None:
                load = hint_lb if hint_lb else self.max_load
            elif lb is None:
                # External search down from the upper bound, widening.
                k_down += 1
                load = int(ub * (1 - w * 2 ** k_down))
                if hint_lb and hint_lb < ub and k_down == 1:
                    load = hint_lb
                load = max(self.min_load, load)
            elif ub is None:
                k_up += 1
                load = int(lb * (1 + w * 2 ** k_up))
                if hint_ub and hint_ub > lb and k_up == 1:
                    load = hint_ub
                load = min(self.max_load, load)
            else:
                load = (lb + ub) // 2
            if self._measure(measure, load, d, phase) is None:
                return None

    def summary(self):
        return {
            "goals": [{"name": g.name, "loss_ratio": g.loss_ratio} for g in self.goals],
            "results": self.results,
            "max_load": self.max_load,
            "unpaced": self.unpaced,
            "incomplete": self.incomplete,
            "trials": self.trials,
            "n_trials": len(self.trials),
            "n_invalid": self.n_invalid(),
            "settings": {"durations": self.durations, "widths": self.widths,
                         "initial_duration": self.initial_duration,
                         "final_trials": self.final_trials,
                         "exceed_ratio": self.exceed_ratio, "min_share": self.min_share,
                         "max_wait_ms": self.max_wait_ms},
        }
