"""Order-statistic CIs and bounds against exact slow twins and published numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwarehouse.stats.order_statistics import (
    le_boudec_indices,
    lower_bound_index,
    median_ci,
    median_interval_index,
    percentile_bound,
    percentile_interval,
    range_coverage,
)
from tests.naive import order_statistics as naive


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99, 1 - 0.05 / 20])
def test_median_index_matches_exact_search(confidence: float) -> None:
    ns = np.arange(1, 90)
    j, _ = median_interval_index(ns, confidence)
    assert [int(v) for v in j] == [naive.median_j(int(n), confidence) for n in ns]


@pytest.mark.parametrize("p", [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.99])
def test_lower_bound_index_matches_exact_search(p: float, confidence: float) -> None:
    ns = np.array([1, 2, 3, 5, 8, 13, 21, 34, 59, 60, 89])
    m, _ = lower_bound_index(ns, p, confidence)
    assert [int(v) for v in m] == [naive.lower_bound_m(int(n), p, confidence) for n in ns]


def test_too_few_samples_give_no_interval_and_say_how_many() -> None:
    result = median_ci([3.0, 1.0, 2.0, 5.0, 4.0], confidence=0.95)  # 1 - 2/32 < 0.95
    assert result.low is None and result.high is None
    assert result.coverage == pytest.approx(1 - 2 / 32)
    assert result.n_required == 6
    six = median_ci([3.0, 1.0, 2.0, 5.0, 4.0, 6.0], confidence=0.95)
    assert (six.low, six.high) == (1.0, 6.0) and six.coverage == pytest.approx(1 - 2 / 64)


def test_thompson_sample_sizes_of_triscale_table_2() -> None:
    """Seed 003 Table 2: one-sided bounds need 59 runs for (0.95, 0.95), 90 for (0.95, 0.99),
    299 for (0.99, 0.95), 29 for (0.90, 0.95) and 5 for the median at 0.95."""
    for p, c, n in [(0.95, 0.95, 59), (0.95, 0.99, 90), (0.99, 0.95, 299), (0.9, 0.95, 29),
                    (0.5, 0.95, 5)]:
        below = percentile_bound(np.arange(n - 1.0), p, c, "upper")
        enough = percentile_bound(np.arange(float(n)), p, c, "upper")
        assert below.value is None and below.n_required == n
        assert enough.value == n - 1.0 and enough.index == n


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=60), st.sampled_from([0.5, 0.9, 0.95, 0.99]))
def test_median_ci_contains_the_median_and_uses_sorted_values(values: list[int], c: float) -> None:
    x = np.array(values, dtype=float)
    result = median_ci(x, c)
    if result.low is not None:
        xs = np.sort(x)
        assert result.low == xs[result.low_index - 1] and result.high == xs[result.high_index - 1]
        assert result.low <= np.median(x) <= result.high
        assert result.coverage >= c


def test_nan_is_dropped_and_empty_is_an_error() -> None:
    assert median_ci([np.nan, 1, 2, 3, 4, 5, 6]).n == 6
    with pytest.raises(ValueError, match="empty"):
        median_ci([np.nan])


def test_le_boudec_indices_follow_the_book() -> None:
    """n = 31, 95 %: j = floor(15.5 - 1.96 * sqrt(7.75)) = 10, k = ceil(16.5 + 5.456) = 22."""
    j, k = le_boudec_indices(31, 0.95)
    assert (int(j[0]), int(k[0])) == (10, 22)
    result = median_ci(np.arange(31.0), 0.95, method="le-boudec")
    assert (result.low, result.high) == (9.0, 21.0)


@pytest.mark.parametrize("n, p, m", [(10, 0.1, 1), (20, 0.25, 2), (15, 0.05, 1), (12, 0.5, 3)])
def test_range_coverage_matches_multinomial_sum(n: int, p: float, m: int) -> None:
    assert range_coverage(n, p, m) == pytest.approx(naive.range_coverage(n, p, m), rel=1e-9)


@pytest.mark.parametrize("n", [30, 46, 60, 100])
def test_percentile_interval_joint_coverage_versus_triscale(n: int) -> None:
    """TriScale takes m from one one-sided bound, so both sides hold only with about 2C - 1;
    the default keeps the joint coverage >= C (and differs at, e.g., n = 30 and 46)."""
    x = np.arange(float(n))
    exact = percentile_interval(x, 0.1, 0.95)
    triscale = percentile_interval(x, 0.1, 0.95, method="triscale")
    assert exact.low is None or exact.coverage >= 0.95
    assert triscale.coverage >= 2 * 0.95 - 1 - 1e-9
    if exact.low_index != triscale.low_index:
        assert triscale.coverage < 0.95
    assert exact.low_index == naive_joint_m(n, 0.1, 0.95)


def naive_joint_m(n: int, p: float, confidence: float) -> int:
    best = 0
    for m in range(1, (n + 1) // 2 + 1):
        if naive.range_coverage(n, p, m) >= confidence:
            best = m
    return best
