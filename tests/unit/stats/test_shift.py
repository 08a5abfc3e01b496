"""Hodges-Lehmann shift and interval against the enumerating twin and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.stats.shift import hodges_lehmann, interval_index, kth_difference, u_cdf
from tests.naive.shift import hodges_lehmann_naive, u_cdf_naive


@pytest.mark.parametrize(("n1", "n2"), [(1, 1), (1, 5), (3, 4), (5, 5), (6, 8), (2, 11)])
def test_u_cdf_equals_enumeration(n1: int, n2: int) -> None:
    np.testing.assert_allclose(u_cdf(n1, n2), [float(f) for f in u_cdf_naive(n1, n2)],
                               rtol=1e-12)


@pytest.mark.parametrize(("n1", "n2"), [(8, 9), (20, 20), (15, 25)])
def test_u_cdf_matches_scipy_exact(n1: int, n2: int) -> None:
    rng = np.random.default_rng(n1)
    x, y = rng.normal(size=n1), rng.normal(size=n2) + 0.5
    u = sps.mannwhitneyu(x, y, method="exact", alternative="less").statistic
    p = sps.mannwhitneyu(x, y, method="exact", alternative="less").pvalue
    assert u_cdf(n1, n2)[int(u)] == pytest.approx(p, rel=1e-9)


@pytest.mark.parametrize(("n1", "n2"), [(2, 2), (3, 5), (6, 6), (4, 9), (10, 3)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_hodges_lehmann_equals_twin(n1: int, n2: int, confidence: float) -> None:
    rng = np.random.default_rng(n1 * 100 + n2)
    for _ in range(3):
        x, y = rng.lognormal(size=n1), rng.lognormal(size=n2) * 1.3
        ours = hodges_lehmann(x, y, confidence)
        est, low, high = hodges_lehmann_naive(list(x), list(y), confidence)
        assert ours.estimate == pytest.approx(est, rel=1e-12)
        assert ours.low == (None if low is None else pytest.approx(low, rel=1e-12))
        assert ours.high == (None if high is None else pytest.approx(high, rel=1e-12))
        if low is not None:
            assert ours.coverage >= confidence


@pytest.mark.parametrize("kind", ["continuous", "ties", "tiny", "large", "large ties",
                                  "subnormal"])
def test_selection_equals_sorted_differences(kind: str) -> None:
    """Small samples are listed at once; large ones (n1 n2 >> n1 + n2) are first narrowed
    by bisection, and with many ties or values near the smallest float the bisection runs
    out of room: every path must give exactly the sorted differences' k-th."""
    rng = np.random.default_rng(len(kind))
    hi = 700 if kind.startswith("large") or kind == "subnormal" else 60
    for _ in range(5):
        n1, n2 = (1, 1) if kind == "tiny" else (int(rng.integers(1, hi)), int(rng.integers(1, hi)))
        x, y = rng.normal(size=n1) * 1e3, rng.normal(size=n2) * 1e3 + 0.2
        if kind.endswith("ties"):
            x, y = np.round(x / 300), np.round(y / 300)
        if kind == "subnormal":
            x, y = x * 1e-320, y * 1e-320
        xs, ys = np.sort(x), np.sort(y)
        d = np.sort((ys[None, :] - xs[:, None]).ravel())
        for k in {1, 2, d.size // 2 + 1, d.size, int(rng.integers(1, d.size + 1))} - {0}:
            k = min(k, d.size)
            assert kth_difference(xs, ys, k) == d[k - 1]


def test_ties_and_normal_approximation() -> None:
    x = [1.0, 1.0, 2.0, 2.0, 3.0] * 10
    y = [2.0, 2.0, 3.0, 3.0, 4.0] * 10
    r = hodges_lehmann(x, y, 0.95)
    assert not r.exact and r.estimate == 1.0 and r.low <= 1.0 <= r.high
    c, coverage, exact = interval_index(200, 300, 0.99)
    assert not exact and 0.989 < coverage < 0.992 and c > 0
    assert hodges_lehmann([1.0], [2.0], 0.95).low is None
    assert hodges_lehmann([5.0] * 4, [5.0] * 4, 0.5).estimate == 0.0
    with pytest.raises(ValueError):
        hodges_lehmann([], [1.0])


def test_tie_term_equals_counting_the_pooled_values() -> None:
    from perfwarehouse.kernels.shift import tie_term

    rng = np.random.default_rng(5)
    for n1, n2 in [(1, 1), (3, 0), (0, 4), (10, 12), (200, 150)]:
        x = np.sort(np.round(rng.normal(size=n1) * 2))
        y = np.sort(np.round(rng.normal(size=n2) * 2))
        counts = np.unique(np.concatenate([x, y]), return_counts=True)[1].astype(float)
        assert tie_term(x, y) == float(np.sum(counts ** 3 - counts))


def test_consecutive_order_statistics_in_one_call() -> None:
    """kth_differences finds k + 1 from k's answer: equal to selecting it alone, with and
    without ties at the pair."""
    from perfwarehouse.stats.shift import kth_differences

    rng = np.random.default_rng(9)
    for tied in (False, True):
        for _ in range(20):
            n1, n2 = int(rng.integers(1, 300)), int(rng.integers(1, 300))
            x, y = rng.normal(size=n1), rng.normal(size=n2)
            if tied:
                x, y = np.round(x * 2), np.round(y * 2)
            xs, ys = np.sort(x), np.sort(y)
            d = np.sort((ys[None, :] - xs[:, None]).ravel())
            k = int(rng.integers(1, d.size + 1))
            ks = [k, k + 1] if k < d.size else [k]
            assert kth_differences(xs, ys, ks) == [float(d[i - 1]) for i in ks]
