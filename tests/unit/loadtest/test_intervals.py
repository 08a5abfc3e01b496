"""perfwarehouse.loadtest.intervals against scipy and the slow twins of tests/naive."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.loadtest import intervals as iv
from tests.naive import loadtest as naive

RNG = np.random.default_rng(14)


@pytest.mark.parametrize("p", [0.5, 0.9, 0.99, 0.1])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_rank_indices_match_naive(p: float, confidence: float) -> None:
    for n in list(range(1, 25)) + [40, 57]:
        j, k, cov = iv.quantile_rank_indices(n, p, confidence)
        assert (j, k) == naive.quantile_rank_indices(n, p, confidence), n
        if j:
            exact = sps.binom.cdf(k - 1, n, p) - sps.binom.cdf(j - 1, n, p)
            assert cov == pytest.approx(exact) and cov >= confidence - 1e-12


def test_percentile_rank_ci_values_and_too_few() -> None:
    xs = RNG.normal(10, 2, 40)
    got = iv.percentile_rank_ci(xs, 0.5, 0.95)
    s = np.sort(xs)
    assert (got.low, got.high) == (s[got.low_index - 1], s[got.high_index - 1])
    assert got.low <= np.median(xs) <= got.high
    few = iv.percentile_rank_ci([1.0, 2.0, 3.0], 0.5, 0.95)
    assert few.low is None and few.n_required == 6
    p99 = iv.percentile_rank_ci(np.arange(10.0), 0.99, 0.95)
    assert p99.low is None and p99.n_required is not None
    assert iv.quantile_rank_indices(p99.n_required, 0.99, 0.95)[0] > 0
    assert iv.quantile_rank_indices(p99.n_required - 1, 0.99, 0.95)[0] == 0


def test_region_decision_matches_naive() -> None:
    lows = np.concatenate([RNG.uniform(20, 50, 200), [np.nan, 35.0]])
    highs = lows + np.concatenate([RNG.uniform(0, 10, 200), [1.0, np.nan]])
    got = iv.region_decision(lows, highs, 40.0, 0.1)
    want = [naive.region(a, b, 40.0, 0.1) for a, b in zip(lows, highs)]
    assert list(got) == want
    assert iv.region_decision(35.9, 35.95, 40.0, 0.1) == "below"
    assert iv.region_decision(36.0, 36.5, 40.0, 0.1) == "overlap"
    assert iv.region_decision(44.01, 50.0, 40.0, 0.1) == "above"
    with pytest.raises(ValueError):
        iv.peak_region(-1.0, 0.1)
    with pytest.raises(ValueError):
        iv.peak_region(40.0, 1.5)
