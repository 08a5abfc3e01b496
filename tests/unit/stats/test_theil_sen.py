"""Exact Theil-Sen: scipy's numbers, with and without selection, ties, NaN, tiny n."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.stats import theil_sen
from tests.naive.theil_sen import theil_sen_naive


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _data(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    x = rng.normal(size=n) * 10
    y = 0.3 * x + rng.standard_t(2, size=n)
    if kind == "integers":
        x, y = np.round(x), np.round(y)
    elif kind == "coarse":  # few distinct values: many equal slopes and tied x
        x, y = np.round(x / 5), np.round(y / 3) / 3
    elif kind == "time":  # large offsets, like epoch seconds
        x = 1.6e9 + np.sort(rng.uniform(0, 2.3e7, n))
        y = 100 + 1e-7 * (x - 1.6e9) + rng.normal(size=n)
    return x, y


@pytest.mark.parametrize("kind", ["continuous", "integers", "coarse", "time"])
@pytest.mark.parametrize("n", [2, 3, 4, 7, 30, 200, 1000])
@pytest.mark.parametrize("selection", [False, True])
def test_equals_scipy(n: int, kind: str, selection: bool) -> None:
    rng = np.random.default_rng(n * 31 + len(kind))
    x, y = _data(rng, n, kind)
    for confidence in (0.95, 0.5, 0.99):
        ours = theil_sen(y, x, confidence, brute_force_pairs=0 if selection else 10**9)
        ref = sps.theilslopes(y, x, alpha=confidence, method="joint")
        assert _same(ours.slope, ref.slope), (ours, ref)
        assert _same(ours.intercept, ref.intercept)
        assert _same(ours.low, ref.low_slope) and _same(ours.high, ref.high_slope), (ours, ref)
        assert ours.n == n


@pytest.mark.parametrize("kind", ["continuous", "integers", "coarse", "time"])
def test_the_selection_threads_give_scipys_numbers(kind: str, monkeypatch) -> None:
    """Series of 8,000+ points count the slopes of two thresholds on two threads; the
    same path on 3,000 points (threshold lowered: it starts thread pools there) gives
    scipy's numbers exactly."""
    import importlib

    module = importlib.import_module("perfwarehouse.stats.slope_selection")
    monkeypatch.setattr(module, "_WORKERS", 2)
    monkeypatch.setattr(module, "_THREADS_FROM_POINTS", 0)
    rng = np.random.default_rng(len(kind))
    x, y = _data(rng, 3000, kind)
    for confidence in (0.95, 0.99):
        ours = theil_sen(y, x, confidence, brute_force_pairs=0)
        ref = sps.theilslopes(y, x, alpha=confidence, method="joint")
        assert _same(ours.slope, ref.slope) and _same(ours.intercept, ref.intercept)
        assert _same(ours.low, ref.low_slope) and _same(ours.high, ref.high_slope), (ours, ref)


@pytest.mark.parametrize("seed", range(6))
def test_selection_equals_naive_on_moderate_n(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(150, 400))
    x, y = _data(rng, n, ["continuous", "integers", "coarse", "time"][seed % 4])
    ours = theil_sen(y, x, brute_force_pairs=0, seed=seed)
    ref = theil_sen_naive(list(y), list(x))
    assert (ours.slope, ours.intercept) == pytest.approx(ref[:2], rel=0, abs=0)
    assert _same(ours.low, ref[2]) and _same(ours.high, ref[3])


def test_equals_scipy_on_3000_points_by_selection() -> None:
    rng = np.random.default_rng(3000)
    x = rng.uniform(0, 100, 3000)
    y = 0.01 * x + rng.lognormal(0, 1, 3000)
    ours = theil_sen(y, x, brute_force_pairs=0)
    ref = sps.theilslopes(y, x, method="joint")
    assert (ours.slope, ours.intercept, ours.low, ours.high) == (
        ref.slope, ref.intercept, ref.low_slope, ref.high_slope)


def test_nan_pairs_are_dropped_like_scipy_omit() -> None:
    x = np.array([0, 1, 2, 3, 4, 5, np.nan, 7.0])
    y = np.array([1, 2, np.nan, 4, 3, 6, 7, 9.0])
    ours = theil_sen(y, x)
    ref = sps.theilslopes(y, x, method="joint", nan_policy="omit")
    assert ours.n == 6
    assert (ours.slope, ours.intercept, ours.low, ours.high) == tuple(ref)


def test_constant_y_and_default_x() -> None:
    r = theil_sen([5.0] * 10)
    assert (r.slope, r.low, r.high, r.intercept) == (0.0, 0.0, 0.0, 5.0)


def test_all_x_equal_has_no_slope() -> None:
    r = theil_sen([1.0, 2.0, 3.0], [4.0, 4.0, 4.0])
    assert r.n_slopes == 0 and math.isnan(r.slope) and math.isnan(r.low)


def test_heavy_ties_give_nan_ci_like_scipy() -> None:
    x, y = [0, 0, 1, 1], [0, 0, 0, 0]
    r = theil_sen(y, x)
    ref = sps.theilslopes(y, x, method="joint")
    assert r.slope == ref.slope and math.isnan(r.low) and math.isnan(ref.low_slope)


def test_invalid_input() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        theil_sen([1.0, np.nan], [0.0, 1.0])
    with pytest.raises(ValueError, match="finite"):
        theil_sen([1.0, np.inf, 2.0])
    with pytest.raises(ValueError, match="length"):
        theil_sen([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="confidence"):
        theil_sen([1.0, 2.0], confidence=95)


def test_slope_shifts_by_c_when_c_x_is_added() -> None:
    rng = np.random.default_rng(5)
    x = np.arange(500, dtype=float)
    y = rng.normal(size=500)
    a = theil_sen(y, x, brute_force_pairs=0)
    b = theil_sen(y + 0.5 * x, x, brute_force_pairs=0)
    assert b.slope == pytest.approx(a.slope + 0.5, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_trend_test_by_counts_equals_the_ci(seed: int) -> None:
    from perfwarehouse.stats.theil_sen import trend_ci_contains_zero

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 300))
    y = rng.normal(size=n) + rng.choice([0.0, 0.002, 0.01]) * np.arange(n)
    if seed % 3 == 0:
        y = np.round(y * 2)
    for confidence in (0.975, 0.5, 0.9):
        fit = theil_sen(y, confidence=confidence)
        assert trend_ci_contains_zero(y, confidence) == (fit.low <= 0 <= fit.high)


@pytest.mark.parametrize("seed", range(4))
def test_selection_with_ties_equals_scipy_at_a_few_thousand_points(seed: int) -> None:
    """Large enough for every stage of the selection (sampling, orders, insertion listing)."""
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(1500, 2500))
    x, y = _data(rng, n, ["continuous", "integers", "coarse", "time"][seed])
    if seed % 2:
        rng.shuffle(x)  # unsorted x with ties
    ours = theil_sen(y, x, brute_force_pairs=0, seed=seed)
    ref = sps.theilslopes(y, x, method="joint")
    assert (ours.slope, ours.intercept) == (ref.slope, ref.intercept)
    assert _same(ours.low, ref.low_slope) and _same(ours.high, ref.high_slope)


SELECTION = importlib.import_module("perfwarehouse.stats.slope_selection")
PAIRS = importlib.import_module("perfwarehouse.kernels.slope_pairs")


def _record(monkeypatch, owner: Any, name: str,  # type: ignore[no-untyped-def]
            note: Callable[[tuple, dict, Any], Any]) -> list[Any]:
    """Wrap ``owner.name`` for the test: each call appends ``note(args, kwargs, result)``
    to the list returned."""
    calls: list[Any] = []
    real = getattr(owner, name)

    def wrapped(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real(*args, **kwargs)
        calls.append(note(args, kwargs, result))
        return result

    monkeypatch.setattr(owner, name, wrapped)
    return calls


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_slopes_a_few_ulps_apart_are_listed_in_their_interval_not_all(seed: int,
                                                                      monkeypatch) -> None:
    """Tied x (whole days) and tied y (one decimal): near the median, many slopes differ
    only in their last bits, so no sample narrows the interval and no plateau stands
    alone. That interval is listed, never every slope (at 20,000 points every slope was
    200M of them, 1.6 GB and 7 s); scipy's numbers either way. The listing bound is
    lowered so that 3,000 points reach the path (these seeds do)."""
    listed = _record(monkeypatch, PAIRS, "list_between_orders", lambda a, k, r: int(a[4]))
    forced = _record(monkeypatch, SELECTION._Selector, "_solve",
                     lambda a, k, r: k.get("force_list", False))
    _record(monkeypatch, SELECTION._Selector, "__init__",
            lambda a, k, r: setattr(a[0], "enumerate_at", 1_000))
    rng = np.random.default_rng(seed)
    n = 3000
    x = np.round(np.sort(rng.uniform(0, 365, n)))
    y = np.round(100 + 0.01 * x + rng.standard_t(3, n), 1)
    ours = theil_sen(y, x, 0.999, brute_force_pairs=0)
    ref = sps.theilslopes(y, x, alpha=0.999, method="joint")
    assert (ours.slope, ours.intercept) == (ref.slope, ref.intercept)
    assert _same(ours.low, ref.low_slope) and _same(ours.high, ref.high_slope)
    assert any(forced), "the tied data did not reach the interval that no sample narrows"
    assert max(listed, default=0) < ours.n_slopes // 10


@pytest.mark.parametrize("kind", ["coarse", "few values"])
def test_a_plateau_of_zero_slopes_is_counted_not_walked(kind: str, monkeypatch) -> None:
    """Coarse values (multiples of 5 over whole days) or three values only: over a third
    of the pairs have a slope of exactly 0 and the median is on that plateau. Its slopes
    are counted (pairs of equal y less those of equal x and y), never listed nor walked
    one by one (at 100,000 points that was 2.5e9 slopes: 6.8 s, or every slope listed:
    out of memory); scipy's numbers."""
    walked = _record(monkeypatch, PAIRS, "slope_range_between_orders",
                     lambda a, k, r: int(r[2]))
    listed = _record(monkeypatch, PAIRS, "list_between_orders", lambda a, k, r: int(a[4]))
    zeros = _record(monkeypatch, SELECTION._Selector, "_zero_slopes", lambda a, k, r: r)
    rng = np.random.default_rng(len(kind))
    n = 3000
    x = np.sort(rng.uniform(0, 365, n))
    if kind == "coarse":
        x, y = np.floor(x), np.round((100 + 0.01 * x + rng.standard_t(3, n)) / 5) * 5
    else:
        y = rng.integers(0, 3, n).astype(float)
    for confidence in (0.95, 0.999):
        ours = theil_sen(y, x, confidence, brute_force_pairs=0)
        ref = sps.theilslopes(y, x, alpha=confidence, method="joint")
        assert (ours.slope, ours.intercept) == (ref.slope, ref.intercept) and ours.slope == 0
        assert _same(ours.low, ref.low_slope) and _same(ours.high, ref.high_slope)
    assert zeros, "the median did not land on the plateau of zero slopes"
    assert max(walked + listed, default=0) < ours.n_slopes // 10


@pytest.mark.parametrize("seed", range(30))
def test_the_zero_slopes_counted_are_the_pairs_with_equal_y_and_different_x(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    x = rng.integers(0, 2 + seed % 7, n).astype(float)
    x[:2] = 0.0, 1.0  # a selector needs two x values
    y = rng.choice([0.0, -0.0, 1.5, 2.0, -3.0][: 1 + seed % 5], n)
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    selector = SELECTION._Selector(xs, ys, np.array([0, n]), 1, 0)
    naive = sum(1 for i in range(n) for j in range(i + 1, n) if ys[i] == ys[j] and xs[i] != xs[j])
    assert selector._zero_slopes() == naive
