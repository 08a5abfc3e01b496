"""What is *not* new at a refresh, on small synthetic cases: a change point moved by a
couple of positions, re-classified, or re-placed in the history judged before (same_changes);
a drift that the series' steps explain (refresh.drifts). And what stays new: a change in the
new points, a change that was still being judged (a tail, the last points), a real drift."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from perfwarehouse.refresh.drifts import explained_by_steps, within_segments_sen
from perfwarehouse.refresh.findings import (
    SETTLED,
    ChangePoint,
    Finding,
    new_findings,
    same_changes,
)

N_BEFORE, N_NOW = 100, 108  # a series of 100 points, then 8 more


def _cp(position: int, n: int, direction: str = "regression", shift: str = "step",
        config: int = 1) -> ChangePoint:
    return ChangePoint("c", "hw", config, direction, position, n, shift)


def _finding(position: int, direction: str = "regression", config: int = 1) -> Finding:
    return Finding(direction, "c", "hw", "a", "{}", "runtime", config, 5.0, 4.0, 6.0,
                   f"r{position}", f"r{position - 1}", "c/history.html",
                   f"{direction}|{config}|r{position}", position)


def _new(now: list[int], before: list[ChangePoint], found: list[int],
         reported: list[int] = ()) -> list[int]:  # type: ignore[assignment]
    """Positions of the findings at ``found`` that are new (every change point of now is a
    regression step at ``now``)."""
    points = [_cp(p, N_NOW) for p in now]
    fresh = new_findings([_finding(p) for p in found], [_finding(p) for p in reported],
                         (points, before))
    return [f.position for f in fresh if f.position is not None]


def test_a_change_point_moved_by_two_positions_is_the_same_one() -> None:
    before = [_cp(96, N_BEFORE)]  # reported at the previous refresh, at the old end
    assert _new([98], before, [98], reported=[96]) == []
    assert _new([99], before, [99], reported=[96]) == [99]  # three away: another change


def test_a_settled_change_reclassified_or_now_needing_action_is_not_new() -> None:
    for shift in ("level shift", "step"):  # a level shift then, or a step inside +-1 %
        before = [_cp(40, N_BEFORE, shift=shift)]
        assert _new([40], before, [40]) == []
    # the same change in the last points before (not yet judged) is new once it needs
    # action, whatever it was; and a tail is never judged
    late = N_BEFORE - SETTLED + 1
    for shift in ("level shift", "step", "tail"):
        assert _new([late], [_cp(late, N_BEFORE, shift=shift)], [late]) == [late]
    assert _new([40], [_cp(40, N_BEFORE, shift="tail")], [40]) == [40]


def test_an_old_change_replaced_in_the_judged_history_is_the_same_one() -> None:
    before = [_cp(20, N_BEFORE, "improvement"), _cp(37, N_BEFORE)]
    assert _new([20, 52], before, [52], reported=[37]) == []  # 15 positions, as bench1240
    # ... unless another change point now lies between them, or the direction differs
    assert _new([20, 45, 52], before, [52], reported=[37]) == [52]
    assert _new([20, 52], [_cp(37, N_BEFORE, "improvement")], [52]) == [52]


def test_a_change_in_the_new_points_is_new_even_beside_a_moved_old_one() -> None:
    before = [_cp(60, N_BEFORE)]  # an old regression, re-placed by one
    assert _new([61, 102], before, [61, 102], reported=[60]) == [102]
    # each old change point stands for one change point of now (closest first)
    assert same_changes([_cp(61, N_NOW), _cp(63, N_NOW)], before) == {("c", "hw", 1, 61)}
    # another series or configuration is never matched
    assert same_changes([_cp(60, N_NOW, config=2)], before) == set()


def test_within_segments_sen_without_cuts_is_scipys_theilslopes() -> None:
    rng = np.random.default_rng(3)
    t = np.sort(rng.uniform(0, 50, 40))
    y = 0.02 * t + rng.normal(0, 0.3, 40)
    for confidence in (0.9, 0.95, 0.999):
        slope, low, high = within_segments_sen(t, y, [], confidence)
        ref = stats.theilslopes(y, t, confidence)
        assert (slope, low, high) == pytest.approx((ref.slope, ref.low_slope,
                                                    ref.high_slope), rel=1e-12)


def test_pairs_across_a_step_make_no_slope() -> None:
    t = np.arange(10.0)
    y = np.where(t >= 5, 10.0, 0.0) + 0.1 * (t % 5)  # a step, and 0.1 a day within
    assert within_segments_sen(t, y, [5.0], 0.95)[0] == pytest.approx(0.1)
    assert within_segments_sen(t, y, [], 0.95)[0] > 1.0  # the step as a slope


def _nights(step_at: int | None, drift_pct_per_day: float, seed: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """A year of nights (start times in seconds), 1.5 % noise, a 15 % step."""
    rng = np.random.default_rng(seed)
    days = np.arange(368.0)
    y = 50.0 * (1 + drift_pct_per_day / 100 * days) * np.exp(rng.normal(0, 0.015, days.size))
    if step_at is not None:
        y[step_at:] *= 1.15
    return days * 86400.0, y


def test_a_drift_that_the_steps_explain_is_not_new_a_real_one_is() -> None:
    level = 1 - 0.05 / 1500  # the trends row's Bonferroni level over 1,500 series
    t, y = _nights(300, 0.0, 1)
    fit = stats.theilslopes(y, t / 86400.0, level)
    assert fit.low_slope > 0  # one slope over the whole series: "drifting"
    assert explained_by_steps(t, y, [t[300]], level)
    t, y = _nights(300, 0.02, 2)  # +0.02 % a night (7 % a year), and the step
    assert not explained_by_steps(t, y, [t[300]], level)
    t, y = _nights(None, 0.0, 3)
    assert not explained_by_steps(t, y, [], level)  # no step: nothing explains a drift
