"""What each change point carries besides its position: the medians of the segments
before and after it (between its neighbours) and the change in percent with its interval
(:mod:`.analysis`, module docstring)."""

from __future__ import annotations

import math

import numpy as np

from perfwarehouse.changepoints.results import ChangePoint
from perfwarehouse.kernels.shift import tie_term as _loads_shift_kernels  # noqa: F401
from perfwarehouse.stats.shift import hodges_lehmann_sorted

# _loads_shift_kernels: the shifts of small segments take the numba kernels once they are
# loaded, rather than numpy's listing (perfwarehouse.stats.shift._use_kernels)


def _sorted_median(s: np.ndarray) -> float:
    return float(0.5 * (s[(s.size - 1) // 2] + s[s.size // 2]))


def _change(before: np.ndarray, after: np.ndarray, confidence: float
            ) -> tuple[float, float | None, float | None]:
    """Change in percent after vs before, with its interval; both samples sorted.

    Positive values: 100 (exp(s) - 1) of the Hodges-Lehmann shift s of the log values
    (a ratio). Otherwise, as :func:`perfwarehouse.compare.change_interval` defines it, the
    shift of the raw values divided by the magnitude of the level before, |median before|,
    so the sign is the sign of the change whatever the sign of the values (-10 -> -20 is
    -100 %, -1 -> +1 is +200 %). From a level of 0 (errors 0 -> 2) the divisor is
    |median after| (0 -> 2 is +100 %: all of the level after is new), or, when both
    medians are 0, the mean |value| of the two segments; 0 % only for a zero shift."""
    if before[0] > 0 and after[0] > 0:
        shift = hodges_lehmann_sorted(np.log(before), np.log(after), confidence)
        pct = 100.0 * math.expm1(shift.estimate)
        if shift.low is None or shift.high is None:
            return pct, None, None
        return pct, 100.0 * math.expm1(shift.low), 100.0 * math.expm1(shift.high)
    shift = hodges_lehmann_sorted(before, after, confidence)
    scale = abs(_sorted_median(before)) or abs(_sorted_median(after))
    if scale == 0:
        scale = float(np.mean(np.abs(np.concatenate([before, after]))))
    if scale == 0:  # both segments all zero: no change to describe
        return 0.0, None, None
    pct = 100.0 * shift.estimate / scale
    if shift.low is None or shift.high is None:
        return pct, None, None
    return pct, 100.0 * shift.low / scale, 100.0 * shift.high / scale


def describe(values: np.ndarray, found: list[tuple[int, float, float]],
              confidence: float) -> list[ChangePoint]:
    bounds = [0] + [pos for pos, _, _ in found] + [values.size]
    out = []
    for i, (pos, p, stat) in enumerate(found):
        before = np.sort(values[bounds[i]:pos])
        after = np.sort(values[pos:bounds[i + 2]])
        pct, low, high = _change(before, after, confidence)
        out.append(ChangePoint(pos, p, stat, before.size, after.size, _sorted_median(before),
                               _sorted_median(after), pct, low, high))
    return out
