"""The peak-rate search as a state machine (Shivam et al., USENIX ATC 2008, Algorithm 2).

The *peak rate* λ* is the highest load that does not saturate the server; a load
is a peak candidate when the confidence interval (at confidence c) of the chosen
response-time statistic overlaps the peak-rate region [R_sat ± s·R_sat]
(section 4). At each load the controller

1. runs ``min_trials`` trials (at least two, for a first interval);
2. classifies the load: interval entirely *below* the region, entirely *above*
   it, or overlapping it (*candidate*); the interval is Student's t on the
   logarithms of the trials (:mod:`.results`: response times are positive and
   skewed past the knee), so a load is decided as soon as its trials allow; a load whose trials failed
   ``max_failures`` times (the generator timed out or broke) counts as above;
3. at a candidate, adds trials while the accuracy of the interval (equation 2)
   is below the target ``accuracy`` (at most ``max_trials``); the search ends when
   the target is met. More trials may also move the interval out of the region,
   and the load is then concluded below or above after all;
4. otherwise asks the policy (:mod:`perfwarehouse.workbench.policies`) for the
   next load.

Besides a candidate meeting the accuracy target, a search converges on a
**step knee**: when the bracket [highest load below, lowest load above] has an
accuracy (equation 2 applied to the two loads) at or above the target, no load
inside it needs to be tried (nor more trials at a candidate inside it); λ* is
the bracket's lower end, with the bracket as its interval. Real servers behind
a rate limiter or admission control jump from 2 ms to 40 ms within 1 req/s, so
no load ever lands inside the region: this is how such searches end. A bracket
that cannot be narrowed because loads are multiples of ``resolution`` (one client
in a closed loop) ends the search too: with exit status 0 when its accuracy meets
the target, otherwise as a budget.

Budgets end a search without meeting the target (status ``budget``, exit code
3) with the best estimate so far and the bracket found, with its confidence
(each end decided at c: at least 1 - 2(1 - c) for both): ``max_trials`` at one candidate load,
``max_loads`` distinct loads, ``budget_s`` load-generator seconds, or a server
saturated at the smallest load (``floor``).

Units: loads in whatever the load generator takes (requests per second in an
open loop, clients in a closed loop), response times in the unit of ``r_sat``
(ms by convention), seconds of generator time as measured by the runner.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from perfwarehouse.errors import UsageError
from perfwarehouse.stats.means import accuracy_of, crosses_zero, log_trials_for, trials_for
from perfwarehouse.workbench import policies
from perfwarehouse.workbench.parameters import SearchSpec
from perfwarehouse.workbench.results import (
    ABOVE,
    BELOW,
    CANDIDATE,
    PENDING,
    LoadSummary,
    SearchResult,
    Trial,
    bracket_confidence,
)


@dataclass(frozen=True)
class Run:
    """Action: run one more trial at ``load`` (the ``trial``-th there; the ``step``-th load)."""

    load: float
    step: int
    trial: int
    how: str
    note: str = ""


@dataclass(frozen=True)
class Done:
    """Action: the search is over."""

    result: SearchResult


Action = Run | Done


@dataclass(frozen=True)
class Search:
    """The state of one search: the loads visited so far and the next action.

    Start with :meth:`start`, feed each trial's result to :meth:`observe` (which
    returns the next state), stop when :attr:`action` is :class:`Done`.
    """

    spec: SearchSpec
    loads: tuple[LoadSummary, ...]
    action: Action
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def start(cls, spec: SearchSpec, seed_load: float | None = None,
              seed_note: str = "") -> Search:
        """A new search at ``seed_load`` (section 5.4), else at ``spec.start_load``."""
        spec.check()
        if seed_load is not None and not (math.isfinite(seed_load) and seed_load > 0):
            raise UsageError(f"the seed load {seed_load!r} is not a positive number")
        first = spec.round_load(seed_load if seed_load is not None else spec.start_load)
        how = "seed" if seed_load is not None else "start"
        return cls(spec, (), Run(first, 1, 1, how, seed_note))

    @property
    def done(self) -> bool:
        return isinstance(self.action, Done)

    def observe(self, trial: Trial) -> Search:
        """The state after ``trial``, which must be at the load the action asked for."""
        action = self.action
        if isinstance(action, Done):
            raise UsageError("the search is over; it takes no more trials")
        if not math.isclose(trial.load, action.load, rel_tol=1e-9, abs_tol=1e-9):
            raise UsageError(
                f"a trial at load {trial.load:g} arrived where the search runs load "
                f"{action.load:g}: the trials do not belong to this search (same options, "
                "seed and policy?)")
        loads = list(self.loads)
        if loads and loads[-1].step == action.step:
            loads[-1] = loads[-1].add(trial, self.spec)
        else:
            visit = LoadSummary(action.step, action.load, action.how, action.note)
            loads.append(visit.add(trial, self.spec))
        notes = self.notes + ((action.note,) if action.note and action.trial == 1 else ())
        return _advance(self.spec, tuple(loads), notes)


def replay(spec: SearchSpec, trials: Iterable[Trial], seed_load: float | None = None,
           seed_note: str = "") -> Search:
    """The state after ``trials`` (in order) of a search started like :meth:`Search.start`."""
    state = Search.start(spec, seed_load, seed_note)
    for trial in trials:
        state = state.observe(trial)
    return state


# ------------------------------------------------------------------ the step
def describe_interval(low: float | None, high: float | None, acc: float | None) -> str:
    """``accuracy 0.853`` or, for an interval of a positive quantity that reaches zero,
    ``CI [-0.3, 9.1] crosses zero`` (its accuracy is void, never negative)."""
    if low is not None and high is not None and crosses_zero(low, high):
        return f"CI [{low:.4g}, {high:.4g}] crosses zero"
    return f"accuracy {acc:.3f}" if acc is not None else "no interval"


def _bracket_text(spec: SearchSpec, low: float | None, high: float | None) -> str:
    """`` (λ* lies in [low, high] at confidence >= ..., accuracy ...)``, or nothing
    without both ends (the bracket's confidence: see :attr:`SearchResult.bracket_confidence`)."""
    if low is None or high is None:
        return ""
    both = bracket_confidence(spec.confidence, 2)
    return (f" (λ* lies in [{low:g}, {high:g}] at confidence >= {both:.2f}, accuracy "
            f"{accuracy_of(low, high):.3f})")


def _max_trials_note(spec: SearchSpec, loads: tuple[LoadSummary, ...],
                     current: LoadSummary) -> str:
    """Why a candidate load ran out of trials and what would settle it."""
    what = describe_interval(current.ci_low, current.ci_high, current.accuracy)
    if what.startswith("CI"):
        what += " (no accuracy yet), so its accuracy"
    text = (f"load {current.load:g} is a candidate but its {what} stayed below "
            f"{spec.accuracy:g} after {current.trials} trials")
    positive = all(r > 0 for r in current.responses)
    needed = (log_trials_for if positive else trials_for)(
        current.responses, spec.confidence, spec.accuracy)
    if needed is not None:
        text += (f"; about {needed} trials of this spread would meet it (--max-trials "
                 f"{needed})")
    lows = [v.load for v in loads if v.verdict == BELOW and v.load < current.load]
    highs = [v.load for v in loads if v.verdict == ABOVE and v.load > current.load]
    bracket_text = _bracket_text(spec, max(lows) if lows else None,
                                 min(highs) if highs else None)
    return text + ", or a longer --duration (less noise per trial)" + bracket_text


def _advance(spec: SearchSpec, loads: tuple[LoadSummary, ...], notes: tuple[str, ...]) -> Search:
    def done(status: str, reason: str, note: str = "") -> Search:
        all_notes = notes + ((note,) if note else ())
        return Search(spec, loads, Done(_result(spec, loads, status, reason, all_notes)),
                      all_notes)

    def again() -> Search:
        return Search(spec, loads, Run(current.load, current.step, current.trials + 1,
                                       current.how, current.note), notes)

    def out_of_time_note() -> str:
        low, high = policies.bracket(loads)
        return (f"{spent:.1f} s of load generator spent (--budget-s {spec.budget_s:g}); "
                f"a larger --budget-s would settle it{_bracket_text(spec, low, high)}")

    current = loads[-1]
    spent = math.fsum(v.seconds for v in loads)
    out_of_time = spec.budget_s is not None and spent >= spec.budget_s
    if current.verdict == PENDING:
        return done("budget", "budget-s", out_of_time_note()) if out_of_time else again()
    if current.verdict == CANDIDATE:
        assert current.accuracy is not None
        if current.accuracy >= spec.accuracy:
            return done("converged", "candidate")
        low, high = policies.bracket(loads)
        if low is not None and high is not None and accuracy_of(low, high) >= spec.accuracy:
            return done("converged", "step-knee",
                        f"load {current.load:g} is a candidate (accuracy {current.accuracy:.3f}) "
                        f"inside the bracket [{low:g}, {high:g}], which meets the target")
        if current.trials >= spec.max_trials:
            return done("budget", "max-trials", _max_trials_note(spec, loads, current))
        return done("budget", "budget-s", out_of_time_note()) if out_of_time else again()
    if current.failures >= spec.max_failures:
        notes = notes + (f"load {current.load:g}: the load generator failed "
                         f"{current.failures} times; counted as saturated",)
    low, high = policies.bracket(loads)
    if low is not None and high is not None and accuracy_of(low, high) >= spec.accuracy:
        return done("converged", "step-knee")
    if out_of_time:
        return done("budget", "budget-s", out_of_time_note())
    if len(loads) >= spec.max_loads:
        return done("budget", "max-loads",
                    f"{len(loads)} loads visited (--max-loads {spec.max_loads}); a larger "
                    f"--max-loads would settle it{_bracket_text(spec, low, high)}")
    proposal = policies.propose(spec, loads)
    load, how, note = spec.round_load(proposal.load), proposal.how, proposal.note
    visited = {v.load for v in loads}
    if load in visited:  # rounding (or a policy) revisits a load: halve the bracket instead
        middle = ((low or 0.0) + high) / 2.0 if high is not None else 2.0 * (low or load)
        load = spec.round_load(middle)
        how, note = ("binsearch" if how == "binsearch" else f"{spec.policy}->binsearch",
                     f"{proposal.how} proposed load {spec.round_load(proposal.load):g} again; "
                     "binsearch step instead")
    if load in visited:
        if high is not None and low is None:
            return done("budget", "floor", f"the server is saturated already at the smallest "
                                           f"load {high:g}: a smaller --start-load (or a larger "
                                           "--r-sat) would settle it")
        assert low is not None and high is not None
        met = accuracy_of(low, high) >= spec.accuracy
        return done("converged" if met else "budget", "resolution",
                    f"the bracket [{low:g}, {high:g}] cannot narrow below the load resolution "
                    f"{spec.resolution:g}")
    return Search(spec, loads, Run(load, len(loads) + 1, 1, how, note), notes)


def _result(spec: SearchSpec, loads: tuple[LoadSummary, ...], status: str, reason: str,
            notes: tuple[str, ...]) -> SearchResult:
    current = loads[-1] if loads else None
    low, high = policies.bracket(loads)
    if current is not None and current.verdict == CANDIDATE and reason != "step-knee":
        assert current.ci_low is not None and current.ci_high is not None
        lows = [v.load for v in loads if v.verdict == BELOW and v.load < current.load]
        highs = [v.load for v in loads if v.verdict == ABOVE and v.load > current.load]
        return SearchResult(status, reason, current.load, max(lows) if lows else None,
                            min(highs) if highs else None, (current.ci_low, current.ci_high),
                            current.accuracy, "response", loads, notes, spec.confidence)
    bracket_accuracy = accuracy_of(low, high) if low is not None and high is not None else None
    return SearchResult(status, reason, low, low, high, None, bracket_accuracy,
                        "bracket" if bracket_accuracy is not None else "", loads, notes,
                        spec.confidence)
