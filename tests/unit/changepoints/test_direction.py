"""Change and direction of change points on negative, zero-crossing and zero-based series
(issue 31 item 2): the sign of ``change_pct`` is the sign of the change, as ``compare``
defines it, and the job's direction follows the metric's direction."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from perfwarehouse.changepoints import detect
from perfwarehouse.compare import change_interval
from perfwarehouse.jobs.change_points import ChangePointParams, compute


def _step(before: float, after: float, n: int = 60, noise: float = 0.05,
          seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([before + noise * rng.standard_normal(n // 2),
                           after + noise * rng.standard_normal(n - n // 2)])


@pytest.mark.parametrize(("before", "after", "pct"), [
    (-10.0, -20.0, -100.0), (-20.0, -10.0, 50.0), (-1.0, 1.0, 200.0), (1.0, -1.0, -200.0),
    (10.0, 20.0, 100.0)])
def test_change_has_the_sign_of_the_shift(before: float, after: float, pct: float) -> None:
    result = detect(_step(before, after))
    [cp] = result.change_points
    assert cp.position == 30
    assert cp.change_pct == pytest.approx(pct, rel=0.05)
    assert math.copysign(1.0, cp.change_pct) == math.copysign(1.0, after - before)
    assert cp.ci_low_pct is not None and cp.ci_high_pct is not None
    assert cp.ci_low_pct <= cp.change_pct <= cp.ci_high_pct


def test_change_from_zero_is_finite_and_signed() -> None:
    up = np.array([0.0] * 20 + [2.0] * 20)
    [cp] = detect(up).change_points
    assert cp.position == 20 and cp.change_pct == pytest.approx(100.0)
    [down] = detect(up[::-1].copy()).change_points
    assert down.position == 20 and down.change_pct < 0 and math.isfinite(down.change_pct)


@pytest.mark.parametrize("seed", range(20))
def test_change_agrees_with_compare_on_random_segments(seed: int) -> None:
    """Where compare defines the change (a non-zero baseline median), the change of a
    change point is compare's change of the segment after against the one before."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 80))
    k = int(rng.integers(8, n - 8))
    loc = rng.normal(0, 3, 2)
    x = np.concatenate([loc[0] + rng.standard_normal(k), loc[1] + 5 + rng.standard_normal(n - k)])
    if seed % 3 == 0:
        x = np.round(x)  # ties, zeros
    result = detect(x, min_size=5)
    for i, cp in enumerate(result.change_points):
        lo = result.change_points[i - 1].position if i else 0
        hi = (result.change_points[i + 1].position if i + 1 < len(result.change_points)
              else n)
        pct, low, high = change_interval(x[lo:cp.position], x[cp.position:hi], 0.99)
        if math.isnan(pct):  # compare leaves a zero baseline undefined
            assert math.isfinite(cp.change_pct)
            continue
        assert cp.change_pct == pytest.approx(pct, rel=1e-9, abs=1e-9)
        assert (cp.ci_low_pct is None) == (low is None)
        if low is not None:
            assert cp.ci_low_pct == pytest.approx(low, rel=1e-9, abs=1e-9)
            assert cp.ci_high_pct == pytest.approx(high, rel=1e-9, abs=1e-9)


def _table(values: np.ndarray, higher_is_better: bool) -> pa.Table:
    from datetime import datetime, timedelta, timezone
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    n = values.size
    return pa.table({
        "campaign": ["c"] * n, "hardware_type": ["hw"] * n,
        "config_id": pa.array([1] * n, pa.uint64()), "benchmark": ["b"] * n,
        "settings": ["{}"] * n, "metric": ["m"] * n, "unit": ["u"] * n,
        "higher_is_better": [higher_is_better] * n,
        "revision": [f"r{i:03d}" for i in range(n)],
        "revision_time": pa.array([start + timedelta(days=i) for i in range(n)],
                                  pa.timestamp("us", tz="UTC")),
        "started_at": pa.array([start + timedelta(days=i) for i in range(n)],
                               pa.timestamp("us", tz="UTC")),
        "value": values})


@pytest.mark.parametrize(("before", "after", "hib", "direction"), [
    (-10.0, -20.0, False, "improvement"), (-10.0, -20.0, True, "regression"),
    (-1.0, 1.0, False, "regression"), (-1.0, 1.0, True, "improvement"),
    (0.0, 2.0, False, "regression"), (0.0, 2.0, True, "improvement")])
def test_job_direction_follows_the_sign_of_the_change(before: float, after: float, hib: bool,
                                                       direction: str) -> None:
    values = _step(before, after, noise=0.0 if before == 0 else 0.05)
    [row] = compute(_table(values, hib), ChangePointParams())["change_points"].to_pylist()
    assert row["position"] == 30 and row["direction"] == direction
    assert math.isfinite(row["change_pct"])
    assert math.copysign(1.0, row["change_pct"]) == math.copysign(1.0, after - before)


def test_action_list_names_the_changes_beyond_min_effect() -> None:
    """A 0.3 % step measured precisely is a change point but needs no action at the
    default --min-effect 1 %; a 5 % one does; abs_change_pct sorts them."""
    values = np.concatenate([_step(100.0, 100.3, 80, 0.01, 1), _step(100.3, 105.3, 80, 0.01, 2)[40:]])
    out = compute(_table(values, False), ChangePointParams())["change_points"].to_pylist()
    assert [r["position"] for r in out] == [40, 80]
    small, big = out
    assert small["abs_change_pct"] == pytest.approx(abs(small["change_pct"]))
    assert not small["action"] and big["action"]
    assert big["abs_change_pct"] > small["abs_change_pct"]
    loose = compute(_table(values, False), ChangePointParams(min_effect=0.1))["change_points"]
    assert all(loose.column("action").to_pylist())


@pytest.mark.parametrize("bad", [-1.0, math.nan])
def test_min_effect_must_be_a_non_negative_number(bad: float) -> None:
    from perfwarehouse.errors import AnalysisError
    with pytest.raises(AnalysisError, match="--min-effect"):
        compute(_table(_step(1.0, 2.0), False), ChangePointParams(min_effect=bad))
