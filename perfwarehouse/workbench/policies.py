"""Load-picking policies (Shivam et al., "Cutting Corners", USENIX ATC 2008, section 5).

Each policy sees the loads concluded so far (every one classified *below* or
*above* the peak-rate region; a load that is a peak candidate never reaches a
policy) and proposes the next load. Pure functions of that history, so a search
replayed from its trials picks the same loads again.

* **binsearch** (Algorithm 3): double the load while it is below the region;
  after the first load above it, halve the bracket [highest load below, lowest
  load above] (the lower end is 0 when no load below is known yet).
* **linear** (section 5.2): the same, except that the initial phase walks by a
  fixed step (up from the start while below, down while above) until it has a
  load on each side; then it halves the bracket.
* **model** (Algorithm 4): after the first load (then ×2 if it was below, /2 if
  above), fit the open-loop queueing shape R = a + b/λ through two tuples — the
  last load (the previous prediction) and, among the others, the one whose mean
  response time is nearest R_sat — and return λ = b / (R_sat - a). The paper
  notes that this is not guaranteed to converge; we take a binsearch step
  instead (and say why in the note) when the fit is degenerate (equal loads or
  responses, R_sat = a), the prediction is not a positive finite load, lies
  outside the current bracket, is more than 8 times the largest load tried, or
  when two model steps in a row did not halve the bracket.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfwarehouse.workbench.parameters import SearchSpec
from perfwarehouse.workbench.results import ABOVE, BELOW, LoadSummary

MODEL_GROWTH_LIMIT = 8.0


@dataclass(frozen=True)
class Proposal:
    load: float
    how: str  # the policy that picked it: binsearch, linear, model, model->binsearch
    note: str = ""


def bracket(loads: Sequence[LoadSummary]) -> tuple[float | None, float | None]:
    """(highest load below the region that is under ``high``, lowest load above it)."""
    aboves = [v.load for v in loads if v.verdict == ABOVE]
    high = min(aboves) if aboves else None
    belows = [v.load for v in loads if v.verdict == BELOW and (high is None or v.load < high)]
    return (max(belows) if belows else None), high


def bracket_width(loads: Sequence[LoadSummary]) -> float:
    low, high = bracket(loads)
    return math.inf if high is None else high - (low or 0.0)


def propose(spec: SearchSpec, loads: Sequence[LoadSummary]) -> Proposal:
    """The next load after ``loads`` (at least one, all concluded) under ``spec.policy``."""
    if spec.policy == "binsearch":
        return Proposal(_binsearch(loads), "binsearch")
    if spec.policy == "linear":
        return _linear(spec, loads)
    if spec.policy == "model":
        return _model(spec, loads)
    raise ValueError(f"unknown policy {spec.policy!r}")


def _binsearch(loads: Sequence[LoadSummary]) -> float:
    low, high = bracket(loads)
    if high is None:  # geometric phase
        assert low is not None
        return 2.0 * low
    return ((low or 0.0) + high) / 2.0  # binary-search phase


def _linear(spec: SearchSpec, loads: Sequence[LoadSummary]) -> Proposal:
    step = spec.step or spec.start_load
    low, high = bracket(loads)
    if high is None:
        assert low is not None
        return Proposal(low + step, "linear")
    if low is None and high - step > 0:
        return Proposal(high - step, "linear")
    return Proposal(((low or 0.0) + high) / 2.0, "linear")


def _model(spec: SearchSpec, loads: Sequence[LoadSummary]) -> Proposal:
    current = loads[-1]
    if len(loads) == 1:
        factor = 2.0 if current.verdict == BELOW else 0.5
        return Proposal(current.load * factor, "model")

    def fallback(why: str) -> Proposal:
        return Proposal(_binsearch(loads), "model->binsearch",
                        f"model: {why}; binsearch step instead")

    if (len(loads) >= 3 and loads[-1].how == "model" and loads[-2].how == "model"
            and bracket_width(loads) > 0.5 * bracket_width(loads[:-2])):
        return fallback("two model steps did not halve the bracket (not converging)")
    others = loads[:-1]
    nearest = min(reversed(others), key=lambda v: abs(_mean(v) - spec.r_sat))
    l1, r1 = current.load, _mean(current)
    l2, r2 = nearest.load, _mean(nearest)
    if l1 == l2 or r1 == r2:
        return fallback(f"degenerate tuples (λ={l1:g}, R={r1:.4g}) and (λ={l2:g}, R={r2:.4g})")
    b = (r1 - r2) / (1.0 / l1 - 1.0 / l2)
    a = r1 - b / l1
    if a == spec.r_sat:
        return fallback("R = a + b/λ never reaches R_sat")
    predicted = b / (spec.r_sat - a)
    low, high = bracket(loads)
    largest = max(v.load for v in loads)
    if not math.isfinite(predicted) or predicted <= 0:
        return fallback(f"R = {a:.4g} + {b:.4g}/λ predicts no positive load")
    if predicted <= (low or 0.0) or (high is not None and predicted >= high):
        where = f"[{low or 0:g}, {high:g}]" if high is not None else f"above {low:g}"
        return fallback(f"prediction {predicted:.4g} lies outside the bracket {where}")
    if predicted > MODEL_GROWTH_LIMIT * largest:
        return fallback(f"prediction {predicted:.4g} is more than {MODEL_GROWTH_LIMIT:g} times "
                        "the largest load tried")
    return Proposal(predicted, "model", f"R = {a:.4g} + {b:.4g}/λ")


def _mean(v: LoadSummary) -> float:
    return v.mean if v.mean is not None else math.inf
