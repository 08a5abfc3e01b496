"""``perfwarehouse plan runs``: TriScale's experiment sizing as sentences (Jacob et al. (TriScale, JSys 2021), eq. 4, 6)."""

from __future__ import annotations

from perfwarehouse.stats.fractions import confidence as as_confidence
from perfwarehouse.stats.fractions import fraction
from perfwarehouse.triscale.sizing import experiment_sizing


def plan_runs_text(percentile: float, confidence: float, robustness: int = 0) -> str:
    """The one-sided and two-sided run counts, with what they mean (95 or 0.95 accepted)."""
    p = fraction(percentile, "percentile")
    c = as_confidence(confidence, "confidence")
    size = experiment_sizing(p, c, robustness)
    q = min(p, 1 - p)
    discard = (f", even after discarding the {robustness} most extreme run(s)"
               if robustness else "")
    pct, conf = f"{100 * p:g}th percentile", f"{100 * c:g} %"
    nth = _ordinal(1 + robustness)
    lines = [f"one-sided: {size.one_sided} runs",
             f"two-sided: {size.two_sided} runs", ""]
    if p == 0.5:
        lines.append(f"With {size.one_sided} runs, the {nth}smallest (or largest) "
                     f"run metric is a lower (or upper) bound of the median with {conf} "
                     f"confidence{discard}; with {size.two_sided} runs, the {nth}"
                     f"smallest and {nth}largest bracket the median with {conf} confidence.")
    else:
        side = "upper" if p > 0.5 else "lower"
        extreme = "largest" if p > 0.5 else "smallest"
        lines.append(f"With {size.one_sided} runs, the {nth}{extreme} run metric "
                     f"is an {side} bound of the {pct} with {conf} confidence{discard}. "
                     f"The two-sided count is the same: the interval of the range "
                     f"[P{100 * q:g}, P{100 * (1 - q):g}] uses this bound and its mirror.")
    lines.append("Runs must be independent (check with perfwarehouse analyze independence); "
                 "more runs give tighter bounds and a more reliable independence test.")
    return "\n".join(lines)


def _ordinal(k: int) -> str:
    """'' for 1 (the smallest), else '2nd ', '3rd ', '4th ' ..."""
    if k == 1:
        return ""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix} "
