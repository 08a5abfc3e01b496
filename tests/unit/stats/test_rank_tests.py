"""stats.kruskal and stats.mannwhitneyu against scipy and the slow twins."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwarehouse.stats import kruskal, mannwhitneyu
from tests.naive import order_effects as naive


def random_sample(rng: np.random.Generator, n: int) -> np.ndarray:
    """Ties, constant samples, mixed signs, wide ranges."""
    kind = rng.integers(0, 6)
    if kind == 0:
        return rng.integers(0, 4, n).astype(float)  # many ties
    if kind == 1:
        return rng.normal(size=n)
    if kind == 2:
        return np.full(n, float(rng.integers(0, 3)))  # constant
    if kind == 3:
        return np.round(rng.lognormal(3, 1, n), 1)
    if kind == 4:
        return rng.standard_cauchy(n) * 1e6
    return np.where(rng.random(n) < 0.5, -0.0, 0.0) + rng.integers(-1, 2, n)


def scipy_kruskal(*samples: np.ndarray) -> scipy.stats._stats_py.KruskalResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scipy.stats.kruskal(*samples)


def test_kruskal_equals_scipy_on_random_inputs() -> None:
    rng = np.random.default_rng(2023)
    checked = 0
    for _ in range(2000):
        samples = [random_sample(rng, int(rng.integers(1, 40))) for _ in range(rng.integers(2, 7))]
        ref = scipy_kruskal(*samples)
        mine = kruskal(*samples)
        if mine.all_tied:  # scipy: 0/0, nan or +-inf by rounding
            assert math.isnan(mine.statistic) and not math.isfinite(ref.statistic)
            continue
        assert mine.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
        assert mine.pvalue == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300)
        assert mine.df == len(samples) - 1
        checked += 1
    assert checked > 1500


def test_kruskal_large_samples_and_tiny_p() -> None:
    rng = np.random.default_rng(1)
    a = rng.lognormal(0, 0.1, 5000)
    b = rng.lognormal(0.05, 0.1, 7000)
    ref = scipy.stats.kruskal(a, b)
    mine = kruskal(a, b)
    assert ref.pvalue < 1e-100
    assert mine.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert mine.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_kruskal_equals_the_slow_twin() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        samples = [random_sample(rng, int(rng.integers(1, 12))) for _ in range(rng.integers(2, 5))]
        h, p = naive.kruskal(samples)
        mine = kruskal(*samples)
        if math.isnan(h):
            assert mine.all_tied
        else:
            assert mine.statistic == pytest.approx(h, rel=1e-12, abs=1e-12)
            assert mine.pvalue == pytest.approx(p, rel=1e-12)


def test_kruskal_tiny_and_constant_groups() -> None:
    assert kruskal([1.0], [2.0]).pvalue == pytest.approx(scipy.stats.kruskal([1.0], [2.0]).pvalue)
    constant_groups = ([3.0, 3.0, 3.0], [5.0, 5.0])  # each constant, different: defined
    ref = scipy.stats.kruskal(*constant_groups)
    assert kruskal(*constant_groups).statistic == pytest.approx(ref.statistic)
    assert kruskal(*constant_groups).pvalue == pytest.approx(ref.pvalue)
    everything_equal = kruskal([2.0, 2.0], [2.0], [2.0, 2.0, 2.0])
    assert everything_equal.all_tied and math.isnan(everything_equal.statistic)
    assert math.isnan(everything_equal.pvalue) and everything_equal.tie_correction == 0.0


def test_kruskal_nan_policy() -> None:
    a, b = [1.0, np.nan, 3.0, 4.0], [2.0, 5.0, np.nan, 6.0]
    ref = scipy.stats.kruskal(a, b, nan_policy="omit")
    assert kruskal(a, b).statistic == pytest.approx(ref.statistic)
    assert kruskal(a, b).sizes == (3, 3)
    assert math.isnan(kruskal(a, b, nan_policy="propagate").pvalue)
    with pytest.raises(ValueError, match="NaN"):
        kruskal(a, b, nan_policy="raise")
    with pytest.raises(ValueError, match="empty"):
        kruskal([np.nan], [1.0, 2.0])
    with pytest.raises(ValueError, match="empty"):
        kruskal([], [1.0])
    with pytest.raises(ValueError, match="two samples"):
        kruskal([1.0, 2.0])


def test_kruskal_eta_squared() -> None:
    a, b, c = [1.0, 2, 3, 4], [5.0, 6, 7], [2.5, 8, 9]
    res = kruskal(a, b, c)
    assert res.eta_squared == pytest.approx((res.statistic - 3 + 1) / (10 - 3))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(-5, 5), min_size=1, max_size=15), min_size=2, max_size=5),
       st.sampled_from(["exp", "affine", "cube"]))
def test_h_is_unchanged_by_a_monotone_transform(samples: list[list[int]], kind: str) -> None:
    """Ranks, hence H and p, depend only on the order of the values."""
    base = [np.array(s, dtype=float) / 2 for s in samples]
    transform = {"exp": np.exp, "affine": lambda x: 3 * x + 7, "cube": lambda x: x**3}[kind]
    before = kruskal(*base)
    after = kruskal(*[transform(s) for s in base])
    if before.all_tied:
        assert after.all_tied
    else:
        assert after.statistic == pytest.approx(before.statistic, rel=1e-12, abs=1e-12)
        assert after.pvalue == pytest.approx(before.pvalue, rel=1e-12)


def test_mannwhitneyu_equals_scipy_asymptotic() -> None:
    rng = np.random.default_rng(11)
    for _ in range(2000):
        x = random_sample(rng, int(rng.integers(1, 40)))
        y = random_sample(rng, int(rng.integers(1, 40)))
        ref = scipy.stats.mannwhitneyu(x, y, method="asymptotic")
        mine = mannwhitneyu(x, y)
        assert mine.statistic == ref.statistic
        assert mine.pvalue == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300)


def test_mannwhitneyu_slow_twin_and_edge_cases() -> None:
    rng = np.random.default_rng(3)
    for _ in range(100):
        x = random_sample(rng, int(rng.integers(1, 10)))
        y = random_sample(rng, int(rng.integers(1, 10)))
        u, p = naive.mannwhitneyu(x, y)
        mine = mannwhitneyu(x, y)
        assert mine.statistic == pytest.approx(u) and mine.pvalue == pytest.approx(p, rel=1e-12)
    tied = mannwhitneyu([1.0, 1.0, 1.0], [1.0, 1.0])
    assert tied.pvalue == 1.0
    assert scipy.stats.mannwhitneyu([1, 1, 1], [1, 1], method="asymptotic").pvalue == 1.0
    ref = scipy.stats.mannwhitneyu([1.0, 2.0, 3.0], [4.0, 5.0], method="asymptotic",
                                   nan_policy="omit")
    assert mannwhitneyu([1.0, np.nan, 2.0, 3.0], [4.0, 5.0]).pvalue == pytest.approx(ref.pvalue)
    with pytest.raises(ValueError, match="empty"):
        mannwhitneyu([], [1.0])
