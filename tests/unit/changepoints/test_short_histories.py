"""Short, stepped histories (benchmarks/bench_change_points_histories.py): the rows of the
tabulated null at 32-256 points hold on fresh permutations, detect with them equals
detect that draws every test, and the exact null of 10 untied points taken from a
quarter of its arrangements equals the one of all of them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfwarehouse.changepoints import analysis as changepoints
from perfwarehouse.changepoints.analysis import detect, tabled_tail
from perfwarehouse.changepoints.parameters import (
    DEFAULT_MIN_SIZE,
    NULL_DECADE,
    NULL_QUANTILES,
    TABLED_SETTLED,
)
from perfwarehouse.kernels.changepoints import (
    arrangement_maxima,
    permutation_maxima,
    untied_arrangement_maxima,
)


def fresh_maxima(m: int, draws: int, seed: int) -> np.ndarray:
    """max Q / m of ``draws`` random orders of 1..m from a stream the table did not use."""
    maxima, _ = permutation_maxima(np.arange(1.0, m + 1.0), np.arange(m, dtype=np.int64), m,
                                   DEFAULT_MIN_SIZE, draws, np.uint64(seed), np.inf, draws + 1)
    return maxima / m


@pytest.mark.parametrize("m", [40, 100, 300])
def test_the_short_rows_hold_on_fresh_draws(m: int) -> None:
    """At the row of the next tabulated length, 60,000 fresh draws expect <= 60 maxima (a
    Poisson(60) exceeds 92 with probability < 1e-4); one tenfold step beyond it, where a
    split test is settled, 200,000 draws expect <= 20 (Poisson(20) > 40: < 1e-4)."""
    row = next(value for length, value in NULL_QUANTILES if length >= m)
    q = fresh_maxima(m, 60_000, seed=20261128 + m)
    assert int(np.sum(q >= row)) <= 92
    beyond = fresh_maxima(m, 200_000, seed=38 + m)
    assert int(np.sum(beyond >= row + NULL_DECADE)) <= 40


def stepped(rng: np.random.Generator, n: int, steps: int) -> np.ndarray:
    """A nightly history: steps of 2-10 % at random, lognormal noise of 1-3 %, 2 decimals."""
    cuts = np.sort(rng.choice(np.arange(20, n - 20), steps, replace=False))
    log_level = np.zeros(n)
    for c in cuts:
        log_level[c:] += rng.choice([-1.0, 1.0]) * rng.uniform(0.02, 0.10)
    return np.round(100 * np.exp(log_level + rng.normal(0.0, rng.uniform(0.01, 0.03), n)), 2)


def test_detect_with_the_short_rows_equals_detect_with_draws(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(38)
    series = [stepped(rng, int(rng.integers(300, 480)), int(rng.integers(1, 5)))
              for _ in range(12)]
    settled = []
    real = changepoints.tabled_tail

    def counted(q: float, m: int, min_size: int) -> float:
        tail = real(q, m, min_size)
        settled.append(m < 512 and tail * 199 <= TABLED_SETTLED)
        return tail

    monkeypatch.setattr(changepoints, "tabled_tail", counted)
    with_table = [detect(x) for x in series]
    assert sum(settled) >= 10  # the short rows did settle tests here
    monkeypatch.setattr(changepoints, "TABLED_SETTLED", 0.0)
    changepoints._NULL_CACHE.clear()
    drawn = [detect(x) for x in series]
    assert sum(len(r.change_points) for r in drawn) >= 20
    assert with_table == drawn


def test_a_stationary_short_series_is_not_settled() -> None:
    rng = np.random.default_rng(9)
    for m in (40, 150, 400):
        for _ in range(20):
            x = rng.normal(0.0, 1.0, m)
            observed = changepoints.segment_split(x, DEFAULT_MIN_SIZE)[1]
            assert tabled_tail(observed, m, DEFAULT_MIN_SIZE) * 199 > TABLED_SETTLED


@pytest.mark.parametrize(("n", "min_size"), [(6, 2), (7, 3), (8, 4), (9, 2), (10, 4)])
def test_untied_arrangements_by_symmetry_equal_all_of_them(n: int, min_size: int) -> None:
    """The weighted maxima of about a quarter of the arrangements give every tail count of
    the maxima of all n!, at 0 too (where rounding alone separates equal maxima)."""
    everything = arrangement_maxima(np.arange(1.0, n + 1.0), np.arange(n, dtype=np.int64), n,
                                    min_size, math.factorial(n))
    maxima, weights = untied_arrangement_maxima(n, min_size)
    assert weights.sum() == math.factorial(n) == everything.size
    assert maxima.size < everything.size / 2
    for v in np.unique(everything):
        threshold = v - 1e-9 * abs(v)
        assert int(np.sum(everything >= threshold)) == int(weights[maxima >= threshold].sum())


def test_the_tabulated_exact_null_is_the_enumeration() -> None:
    """The table of 10 untied points (min_size 4) is every arrangement's maximum, float
    for float, and detect's exact p of such a part comes from it."""
    from perfwarehouse.changepoints.exact_null import TABLED, UNTIED_10_MIN_SIZE_4, tabulate

    assert TABLED == (10, DEFAULT_MIN_SIZE)
    assert tabulate(*TABLED) == UNTIED_10_MIN_SIZE_4
    assert sum(c for _, c in UNTIED_10_MIN_SIZE_4) == math.factorial(10)
    changepoints._EXACT_CACHE.clear()
    x = np.array([3.0, 1.0, 2.0, 4.0, 5.0, 10.0, 8.0, 9.0, 7.0, 6.0])
    stream = changepoints._stream(x, 10, DEFAULT_MIN_SIZE)
    assert isinstance(stream, changepoints._Exact) and stream.total == math.factorial(10)
