"""The results of change-point detection (:func:`perfwarehouse.changepoints.detect`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChangePoint:
    """A change between ``position - 1`` and ``position`` (0-based index of the first point
    after it). ``change_pct`` = 100 (after / before - 1) of the typical value;
    ``ci_low_pct``/``ci_high_pct`` its interval (None when undefined)."""

    position: int
    p_value: float
    statistic: float
    n_before: int
    n_after: int
    median_before: float
    median_after: float
    change_pct: float
    ci_low_pct: float | None
    ci_high_pct: float | None


@dataclass(frozen=True)
class ChangePointResult:
    """Change points of one series, in order. ``reason`` says why there are none (too few
    points, no significant split, all values equal); ``p_value`` is that of the first test
    (None when none was run)."""

    n: int
    change_points: tuple[ChangePoint, ...]
    p_value: float | None
    reason: str | None
    alpha: float
    min_size: int
    permutations: int
