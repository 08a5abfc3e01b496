"""The tabulated null that settles the tests of long untied parts (changepoints.tabled_tail,
parameters.NULL_QUANTILES): checked against fresh permutations drawn with another seed,
and detect with it against detect that draws every test."""

from __future__ import annotations

import numpy as np
import pytest

from perfwarehouse.changepoints import analysis as changepoints
from perfwarehouse.changepoints.analysis import detect, split_segment, tabled_tail
from perfwarehouse.changepoints.parameters import (
    DEFAULT_MIN_SIZE,
    NULL_DECADE,
    NULL_QUANTILE_TAIL,
    NULL_QUANTILES,
    TABLED_SETTLED,
)
from perfwarehouse.kernels.changepoints import permutation_maxima


def fresh_maxima(m: int, draws: int, seed: int) -> np.ndarray:
    """max Q / m of ``draws`` random orders of 1..m from a stream the table did not use."""
    maxima, _ = permutation_maxima(np.arange(1.0, m + 1.0), np.arange(m, dtype=np.int64), m,
                                   DEFAULT_MIN_SIZE, draws, np.uint64(seed), np.inf, draws + 1)
    return maxima / m


def test_the_table_rises_with_the_length() -> None:
    lengths = [m for m, _ in NULL_QUANTILES]
    quantiles = [q for _, q in NULL_QUANTILES]
    assert lengths == sorted(set(lengths))
    assert quantiles == sorted(quantiles) and quantiles[0] > 1.0


@pytest.mark.parametrize("m", [700, 1_024])
def test_the_tabulated_quantile_holds_on_fresh_draws(m: int) -> None:
    """At the quantile of the next tabulated length, fresh draws exceed it at most at its
    rate: 60,000 draws expect <= 60 (a Poisson(60) exceeds 92 with probability < 1e-4)."""
    draws = 60_000
    q = fresh_maxima(m, draws, seed=20261127 + m)
    row = next(value for length, value in NULL_QUANTILES if length >= m)
    assert int(np.sum(q >= row)) <= 92
    # and the table is not so high that it settles nothing: the fresh 1e-2 quantile is
    # within a tenfold step below it
    assert row - NULL_DECADE <= np.quantile(q, 1 - 1e-2) < row


def test_the_extension_beyond_the_table_holds_on_fresh_draws() -> None:
    """One tenfold step beyond the tabulated quantile (where a split test at R = 199 is
    settled) the estimated tail is 1e-4: 200,000 fresh draws at 700 points (the row of
    1,024) expect at most 20 maxima there (a Poisson(20) exceeds 40 with probability
    < 1e-4), and some (the step is not so long that the estimate is far too high)."""
    q = fresh_maxima(700, 200_000, seed=4242)
    row = next(value for length, value in NULL_QUANTILES if length >= 700)
    beyond = int(np.sum(q >= row + NULL_DECADE))
    assert 1 <= beyond <= 40
    assert tabled_tail((row + NULL_DECADE) * 700, 700, DEFAULT_MIN_SIZE) == pytest.approx(
        NULL_QUANTILE_TAIL / 10)


def test_tabled_tail_where_it_applies() -> None:
    first, row = NULL_QUANTILES[0]
    last = NULL_QUANTILES[-1][0]
    assert tabled_tail(row * first, first, 4) == 1.0  # at the quantile: not beyond it
    assert tabled_tail((row + NULL_DECADE) * first, first, 4) == pytest.approx(
        NULL_QUANTILE_TAIL / 10)
    # a length between rows takes the longer row
    between = first + 1
    longer = NULL_QUANTILES[1][1]
    assert tabled_tail((longer + 2 * NULL_DECADE) * between, between, 4) == pytest.approx(
        NULL_QUANTILE_TAIL / 100)
    # decreasing in q
    qs = np.linspace(row, row + 5, 20) * first
    tails = [tabled_tail(q, first, 4) for q in qs]
    assert tails == sorted(tails, reverse=True)
    # not applicable: outside the table, min_size below the tabulated one
    assert tabled_tail(1e9, first - 1, 4) == 1.0
    assert tabled_tail(1e12, last + 1, 4) == 1.0
    assert tabled_tail(1e9, first, 3) == 1.0
    assert tabled_tail(1e9, first, 10) < 1.0  # a larger min_size has fewer splits


def test_stationary_series_are_never_settled_by_the_table() -> None:
    rng = np.random.default_rng(8)
    for m in (600, 2_000, 6_000):
        for _ in range(20):
            x = rng.lognormal(0.0, 0.5, m)
            split, observed, *_ = changepoints.segment_split(x, DEFAULT_MIN_SIZE)
            assert tabled_tail(observed, m, DEFAULT_MIN_SIZE) * 199 > TABLED_SETTLED


def drifting(rng: np.random.Generator, n: int) -> np.ndarray:
    """A history whose level wanders slowly (a random walk of small steps) with noise:
    E-divisive cuts it into a staircase, whose long parts' tests the table settles."""
    level = np.cumsum(rng.normal(0.0, 0.004, n))
    return 100 * np.exp(level + rng.normal(0.0, 0.02, n))


def test_a_settled_test_gives_what_its_draws_give(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(0.0, 1.0, 3_000)
    x[1_700:] += 0.25  # a step the Hoeffding bound cannot settle, the table can
    m = x.size
    split, observed, *_ = changepoints.segment_split(x, DEFAULT_MIN_SIZE)
    assert changepoints.tail_bound(observed, m, DEFAULT_MIN_SIZE) == 1.0
    assert tabled_tail(observed, m, DEFAULT_MIN_SIZE) * 199 <= TABLED_SETTLED
    settled = split_segment(x, DEFAULT_MIN_SIZE, 199)
    monkeypatch.setattr(changepoints, "TABLED_SETTLED", 0.0)
    assert split_segment(x, DEFAULT_MIN_SIZE, 199) == settled == (split, observed, 1 / 200)


def test_detect_with_the_table_equals_detect_with_draws(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Drifting histories (the 10x campaign's shape): the same change points and p-values
    whether the table settles the long parts' tests or every test draws."""
    rng = np.random.default_rng(11)
    series = [drifting(rng, 6_000) for _ in range(2)]
    calls = []
    real = changepoints.tabled_tail

    def counted(q: float, m: int, min_size: int) -> float:
        tail = real(q, m, min_size)
        calls.append(tail * 199 <= TABLED_SETTLED)
        return tail

    monkeypatch.setattr(changepoints, "tabled_tail", counted)
    with_table = [detect(x) for x in series]
    assert sum(calls) >= 10  # the table did settle tests here
    monkeypatch.setattr(changepoints, "TABLED_SETTLED", 0.0)
    changepoints._NULL_CACHE.clear()
    drawn = [detect(x) for x in series]
    assert sum(len(r.change_points) for r in drawn) >= 20
    assert with_table == drawn
