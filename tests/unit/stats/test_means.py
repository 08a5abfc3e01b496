"""perfwarehouse.stats.means (the CI of a mean and its accuracy, Shivam et al. equations
1 and 2) against scipy and the slow twins of tests/naive; moved from
tests/unit/loadtest/test_intervals.py with the helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.stats import means as iv
from tests.naive import loadtest as naive

RNG = np.random.default_rng(14)


def _samples() -> list[np.ndarray]:
    out = [np.array([3.0, 3.0]), np.array([1.0, 2.0]), np.array([5.0, 5.0, 5.0]),
           np.array([1.0, 1.0, 2.0, 2.0, 2.0, 9.0])]
    for n in (2, 3, 5, 10, 31):
        out.append(RNG.lognormal(3.0, 0.4, n))
        out.append(np.round(RNG.normal(20, 3, n)))  # ties
    return out


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_mean_ci_matches_scipy_t_interval(confidence: float) -> None:
    for xs in _samples():
        got = iv.mean_ci(xs, confidence)
        if np.std(xs) == 0:
            assert got.low == got.high == got.mean
            continue
        low, high = sps.t.interval(confidence, len(xs) - 1, loc=np.mean(xs), scale=sps.sem(xs))
        assert got.low == pytest.approx(low, rel=1e-12)
        assert got.high == pytest.approx(high, rel=1e-12)
        m, lo2, hi2 = naive.mean_ci(list(xs), sps.t.ppf((1 + confidence) / 2, len(xs) - 1))
        assert (got.mean, got.low, got.high) == pytest.approx((m, lo2, hi2), rel=1e-12)
        assert got.accuracy == pytest.approx(naive.accuracy(lo2, hi2), rel=1e-12)


def test_z_interval_is_equation_1_and_narrower_than_t() -> None:
    xs = np.array([20.0, 24.0, 27.0])
    z = iv.mean_ci(xs, 0.95, method="z")
    t = iv.mean_ci(xs, 0.95, method="t")
    half = 1.959963984540054 * np.std(xs, ddof=1) / math.sqrt(3)
    assert z.low == pytest.approx(np.mean(xs) - half)
    assert (t.high - t.low) > (z.high - z.low)
    assert t.quantile == pytest.approx(sps.t.ppf(0.975, 2))


def test_mean_ci_tiny_and_nan() -> None:
    one = iv.mean_ci([5.0, np.nan], 0.95)
    assert one.n == 1 and one.low is None and one.accuracy is None
    with pytest.raises(ValueError):
        iv.mean_ci([np.nan], 0.95)
    with pytest.raises(ValueError):
        iv.mean_ci([1.0, 2.0], 1.5)


def test_vectorised_half_width_matches_scalar() -> None:
    sd = np.array([1.0, 2.0, np.nan, 3.0])
    n = np.array([2, 5, 4, 1])
    hw = iv.mean_half_width(sd, n, 0.95)
    assert hw[0] == pytest.approx(sps.t.ppf(0.975, 1) * 1.0 / math.sqrt(2))
    assert hw[1] == pytest.approx(sps.t.ppf(0.975, 4) * 2.0 / math.sqrt(5))
    assert np.isnan(hw[2]) and np.isnan(hw[3])


def test_accuracy_equation_2() -> None:
    # the paper's example: 95 % confidence that 20 < R < 27 is 85.1 % accuracy
    assert iv.accuracy(20.0, 27.0) == pytest.approx(0.851, abs=5e-4)
    assert iv.accuracy(21.0, 24.0) == pytest.approx(0.933, abs=5e-4)
    assert np.isnan(iv.accuracy(np.nan, 3.0))
    assert np.isnan(iv.accuracy(-1.0, 1.0))
    lo, hi = RNG.uniform(1, 5, 50), RNG.uniform(5, 9, 50)
    got = iv.accuracy(lo, hi)
    assert np.allclose(got, [naive.accuracy(a, b) for a, b in zip(lo, hi)])


