"""The bound that settles a permutation test without drawing (changepoints.tail_bound):
each step of its derivation checked on its own, then the tests it settles checked against
the draws they replace."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.changepoints import analysis as changepoints
from perfwarehouse.changepoints.analysis import SETTLED, detect, split_segment, tail_bound
from perfwarehouse.kernels.changepoints import q_curve


def _ranked(rng: np.random.Generator, m: int, ties: bool) -> tuple[np.ndarray, np.ndarray, int]:
    x = np.round(rng.normal(0.0, 2.0, m)) if ties else rng.normal(0.0, 1.0, m)
    ranks = sps.rankdata(x)
    levels = np.unique(ranks, return_inverse=True)[1].astype(np.int64)
    return ranks, levels, int(levels.max()) + 1


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("m", [9, 40, 301])
def test_q_is_at_most_the_energy_form_and_its_maximum_form(m: int, ties: bool) -> None:
    """Q(tau) (U-statistic means, the kernel) <= (2ab/m) sum_l g_l d_l^2 (V-statistic
    means: the energy distance as an integral of (F_X - F_Y)^2 over the ranks) <=
    (2m(m-1)/(ab)) max_l (H_l - c_l a/m)^2, for every tau of random series with and
    without ties."""
    rng = np.random.default_rng(m + 7 * ties)
    for _ in range(5):
        ranks, levels, n_levels = _ranked(rng, m, ties)
        q = q_curve(ranks, levels, n_levels, 2)
        values = np.unique(ranks)
        for tau in range(2, m - 1):
            a, b = tau, m - tau
            x = ranks[:tau]
            h = np.array([np.sum(x <= v) for v in values[:-1]], dtype=float)
            c = np.array([np.sum(ranks <= v) for v in values[:-1]], dtype=float)
            d = h / a - (c - h) / b
            energy = 2.0 * a * b / m * float(np.sum(np.diff(values) * d ** 2))
            maximum = 2.0 * m * (m - 1) / (a * b) * float(np.max((h - c * a / m) ** 2))
            assert q[tau] <= energy * (1 + 1e-12) + 1e-9
            assert energy <= maximum * (1 + 1e-12) + 1e-9


@pytest.mark.parametrize("m", [20, 57, 200])
def test_hoeffding_bounds_the_hypergeometric_tail(m: int) -> None:
    """P(|H - E H| >= s) <= 2 exp(-2 s^2 / min(a, b)) for H ~ hypergeometric (m points,
    a in X, the c smallest), every a, c and s on a grid: the inequality the union bound
    sums (exact tails from scipy)."""
    for a in range(1, m, max(1, m // 9)):
        b = m - a
        for c in range(1, m, max(1, m // 7)):
            dist = sps.hypergeom(m, a, c)
            mean = c * a / m
            support = np.arange(max(0, c - b), min(a, c) + 1)
            pmf = dist.pmf(support)
            for s in np.linspace(0.5, max(1.0, min(a, c)), 9):
                exact = float(pmf[np.abs(support - mean) >= s - 1e-12].sum())
                assert exact <= 2.0 * math.exp(-2.0 * s * s / min(a, b)) + 1e-12


@pytest.mark.parametrize("m,min_size", [(8, 4), (100, 4), (1_000, 2), (5_000, 10)])
def test_tail_bound_is_the_union_of_the_terms(m: int, min_size: int) -> None:
    for q in (0.0, 1.0, 10.0 * m, 0.05 * m * m, 0.2 * m * m):
        total = sum(2.0 * (m - 1) * math.exp(-q * max(t, m - t) / (m * (m - 1.0)))
                    for t in range(min_size, m - min_size + 1))
        expected = 1.0 if q <= 0 else min(1.0, total)
        assert tail_bound(q, m, min_size) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_stationary_series_are_never_settled() -> None:
    """Without a change the observed maximum is far below what the bound needs: every
    test draws (the bound settles only what its draws would all have confirmed)."""
    rng = np.random.default_rng(5)
    for m in (200, 1_000, 5_000):
        for _ in range(20):
            x = rng.standard_t(3, m)
            split, observed, *_ = changepoints.segment_split(x, changepoints.DEFAULT_MIN_SIZE)
            assert tail_bound(observed, m, changepoints.DEFAULT_MIN_SIZE) * 999 > SETTLED


@pytest.mark.parametrize("m,shift", [(600, 3.0), (1_000, 2.0), (3_000, 1.0), (20_000, 0.5)])
def test_settled_tests_equal_their_draws(m: int, shift: float,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A step the bound settles gets the split and the p-value that all its draws give
    (SETTLED = 0 with TABLED_SETTLED = 0 forces the draws), and no draw is made for it."""
    rng = np.random.default_rng(m)
    x = rng.normal(0.0, 1.0, m)
    x[m // 3:] += shift
    settled = split_segment(x, changepoints.DEFAULT_MIN_SIZE, 199)
    monkeypatch.setattr(changepoints, "SETTLED", 0.0)
    monkeypatch.setattr(changepoints, "TABLED_SETTLED", 0.0)
    drawn = split_segment(x, changepoints.DEFAULT_MIN_SIZE, 199)
    assert settled == drawn == (settled[0], settled[1], 1.0 / 200)

    def no_draws(*args: object) -> None:
        raise AssertionError("a settled test drew permutations")

    monkeypatch.setattr(changepoints, "SETTLED", 1e-6)
    monkeypatch.setattr(changepoints, "_stream", no_draws)
    monkeypatch.setattr(changepoints, "tabled_tail", lambda *args: 1.0)  # the bound alone
    assert split_segment(x, changepoints.DEFAULT_MIN_SIZE, 199) == settled


def test_detect_with_settled_tests_equals_detect_with_draws(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Long histories with many changes: the same change points and p-values whether the
    bound settles the tests of long parts or every test draws."""
    rng = np.random.default_rng(17)
    series = []
    for _ in range(3):
        n = 4_000
        level = np.zeros(n)
        for p in rng.choice(np.arange(50, n - 50), 12, replace=False):
            level[p:] += rng.choice([-1.0, 1.0]) * rng.uniform(0.03, 0.1)
        series.append(np.round(100 * np.exp(level + rng.normal(0.0, 0.02, n)), 2))
    settled = [detect(x) for x in series]
    monkeypatch.setattr(changepoints, "SETTLED", 0.0)
    monkeypatch.setattr(changepoints, "TABLED_SETTLED", 0.0)
    changepoints._NULL_CACHE.clear()
    drawn = [detect(x) for x in series]
    assert sum(len(r.change_points) for r in settled) >= 24
    assert settled == drawn
