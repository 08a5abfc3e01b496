"""TriScale's window measures and the convergence geometry the report draws (moved
from tests/unit/reports/test_page_helpers.py with the function, out of the report)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from perfwarehouse.triscale.analysis import window_measures
from perfwarehouse.triscale.convergence import convergence_view

TOLERANCE = 0.05  # convergence_view's default, the TriScale report's tolerance


def naive_windows(y: list[float], x: list[float], q: float) -> tuple[list[float], list[float]]:
    n = len(y)
    width = n // 2
    count = min(width + 1, 100)
    xs, ys = [], []
    for i in range(count):
        s = math.floor(i * width / (count - 1))
        window = sorted(y[s:s + width])
        xs.append(x[s + width // 2])
        # numpy's "midpoint": halfway between the two order statistics around q·(m−1)
        pos = q * (len(window) - 1)
        ys.append((window[math.floor(pos)] + window[math.ceil(pos)]) / 2)
    return xs, ys


@pytest.mark.parametrize("n", [4, 5, 6, 7, 50, 201, 1001])
@pytest.mark.parametrize("q", [0.5, 0.95, 0.0])
def test_window_measures_follow_spec_8(n: int, q: float) -> None:
    rng = np.random.default_rng(n)
    y = np.round(rng.normal(10, 1, n), 1)  # ties
    x = np.cumsum(rng.uniform(0.5, 1.5, n))
    got_x, got_y = window_measures(y, x, q)
    want_x, want_y = naive_windows(list(y), list(x), q)
    assert np.array_equal(got_x, want_x)
    assert np.allclose(got_y, want_y, rtol=0, atol=1e-12)
    assert got_x.size == min(n // 2 + 1, 100)


def test_window_measures_small_example() -> None:
    # n = 6: W = 3, 4 windows starting at 0, 1, 2, 3, placed at x[s + 1]
    y = np.array([1.0, 5.0, 2.0, 8.0, 3.0, 9.0])
    wx, wy = window_measures(y, np.arange(6.0), 0.5)
    assert list(wx) == [1.0, 2.0, 3.0, 4.0]
    assert list(wy) == [2.0, 5.0, 3.0, 8.0]


def test_convergence_view() -> None:
    rng = np.random.default_rng(2)
    flat = 100 + rng.normal(0, 1, 400)
    view = convergence_view(flat)
    assert view is not None and view.converged
    assert view.low >= -TOLERANCE and view.high <= TOLERANCE
    # the slope is Theil-Sen of the window medians mapped to [-1, 1]
    wx, wy = window_measures(flat, np.arange(400.0), 0.5)
    xu = 2 * (wx - wx.min()) / (wx.max() - wx.min()) - 1
    yu = 2 * (wy - flat.min()) / (flat.max() - flat.min()) - 1
    ref = stats.theilslopes(yu, xu, alpha=0.95, method="joint")
    assert math.isclose(view.slope, ref.slope, rel_tol=1e-12)
    assert math.isclose(view.low, ref.low_slope, rel_tol=1e-12)
    # the fitted line passes through the middle of the window medians, on the raw scale
    assert view.fit["fit"][1] == pytest.approx(float(np.median(wy)), rel=0.01)
    assert (view.fit["tol_low"] <= view.fit["tol_high"]).all()

    rising = flat + np.linspace(0, 30, 400)
    view = convergence_view(rising)
    assert view is not None and not view.converged and view.low > TOLERANCE
    assert convergence_view(np.array([1.0, 2.0, 3.0])) is None
