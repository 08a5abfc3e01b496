"""E-divisive kernel and search against the slow twins; calibration and power."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.changepoints import FEW_TIES, detect, min_points, search_values
from perfwarehouse.changepoints import analysis as changepoints
from perfwarehouse.kernels.changepoints import permutation_maxima, q_curve, segment_split
from tests.naive.changepoints import (
    edivisive_naive,
    permutation_maxima_naive,
    q_naive,
    search_values_naive,
)


def _series(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "normal":
        return rng.normal(100.0, 1.0, n)
    if kind == "lognormal":
        return rng.lognormal(3.0, 0.5, n)
    if kind == "ties":
        return np.round(rng.normal(10.0, 1.0, n))
    if kind == "constant":
        return np.full(n, 7.0)
    raise ValueError(kind)


def _levels(ranks: np.ndarray) -> tuple[np.ndarray, int]:
    uniq, levels = np.unique(ranks, return_inverse=True)
    return levels.astype(np.int64), int(uniq.size)


@pytest.mark.parametrize("kind", ["normal", "ties", "constant"])
@pytest.mark.parametrize("n", [4, 5, 9, 10, 17, 40])
@pytest.mark.parametrize("min_size", [2, 3, 5])
def test_q_curve_equals_twin(n: int, kind: str, min_size: int) -> None:
    rng = np.random.default_rng(n * 7 + min_size)
    for _ in range(3):
        ranks = sps.rankdata(_series(rng, n, kind))
        levels, n_levels = _levels(ranks)
        ours = q_curve(ranks, levels, n_levels, min_size)
        ref = np.array(q_naive(list(ranks), min_size))
        assert np.array_equal(np.isnan(ours), np.isnan(ref))
        np.testing.assert_allclose(ours[~np.isnan(ours)], ref[~np.isnan(ref)],
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["normal", "ties", "constant"])
@pytest.mark.parametrize("n", [4, 9, 10, 40])
@pytest.mark.parametrize("min_size", [2, 5])
def test_segment_split_is_a_maximum_of_the_twin(n: int, kind: str, min_size: int) -> None:
    """The split maximises Q over the allowed taus (among exactly equal maxima, as with
    ties, rounding picks one)."""
    rng = np.random.default_rng(n * 11 + min_size)
    for _ in range(3):
        values = _series(rng, n, kind)
        split, stat, ranks, n_levels = segment_split(values, min_size)
        np.testing.assert_array_equal(ranks, sps.rankdata(values))
        assert n_levels == np.unique(values).size
        ref = [v for v in q_naive(list(sps.rankdata(values)), min_size)]
        allowed = [(tau, q) for tau, q in enumerate(ref) if not math.isnan(q)]
        if n_levels == 1 or not allowed:
            assert split == -1 and math.isnan(stat)
            continue
        best = max(q for _, q in allowed)
        assert min_size <= split <= n - min_size
        assert ref[split] == pytest.approx(best, rel=1e-12)
        assert stat == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("kind", ["normal", "ties"])
def test_permutations_equal_twin(kind: str) -> None:
    rng = np.random.default_rng(3)
    for n in (4, 11, 23):
        ranks = np.sort(sps.rankdata(_series(rng, n, kind)))
        levels, n_levels = _levels(ranks)
        ours, _ = permutation_maxima(ranks.copy(), levels.copy(), n_levels, 2, 25,
                                     np.uint64(12345), math.inf, 1)
        ref = permutation_maxima_naive(list(ranks), 2, 25, 12345)
        np.testing.assert_allclose(ours, ref, rtol=1e-12)
        # resuming the stream gives the same sequence as one long call
        px, pl = ranks.copy(), levels.copy()
        first, state = permutation_maxima(px, pl, n_levels, 2, 10, np.uint64(12345),
                                          math.inf, 1)
        rest, _ = permutation_maxima(px, pl, n_levels, 2, 15, np.uint64(state), math.inf, 1)
        np.testing.assert_allclose(np.concatenate([first, rest]), ours, rtol=0)
        # early stop after the second maximum >= a threshold
        stop = float(np.median(ours))
        short, _ = permutation_maxima(ranks.copy(), levels.copy(), n_levels, 2, 25,
                                      np.uint64(12345), stop, 2)
        ref_short = permutation_maxima_naive(list(ranks), 2, 25, 12345, stop, 2)
        np.testing.assert_allclose(short, ref_short, rtol=1e-12)


def _small_exact_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Exact tests only for segments the twin can enumerate in Python (code and twin read
    the limits from the module at call time)."""
    monkeypatch.setattr(changepoints, "EXACT_ARRANGEMENTS", 720)
    monkeypatch.setattr(changepoints, "EXACT_TIED_ARRANGEMENTS", 2_000)


@pytest.mark.parametrize("kind", ["normal", "lognormal", "ties"])
def test_detect_equals_twin(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _small_exact_limits(monkeypatch)
    rng = np.random.default_rng(11)
    for trial in range(8):
        n = int(rng.integers(10, 36))
        x = _series(rng, n, kind)
        if trial % 2:
            x[int(rng.integers(3, n - 3)):] *= 1.5
        ours = detect(x, alpha=0.05, permutations=99, split_permutations=39, min_size=5)
        ref = edivisive_naive(list(x), 0.05, 5, 99, 39)
        assert [(c.position, c.p_value) for c in ours.change_points] == ref


@pytest.mark.parametrize("kind", ["small-ties", "ties"])
def test_detect_with_ties_broken_equals_twin(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Short series with ties, the threshold raised so that their ties count as small
    (twin and code read it from the module): the same change points and p-values."""
    monkeypatch.setattr(changepoints, "FEW_TIES", 0.25)
    _small_exact_limits(monkeypatch)
    rng = np.random.default_rng(12)
    broken = 0
    for trial in range(8):
        n = int(rng.integers(12, 36))
        x = np.round(rng.normal(10.0, 1.0, n), 1) if kind == "small-ties" else _series(rng, n, kind)
        if trial % 2:
            x[int(rng.integers(3, n - 3)):] += 2.0
        broken += search_values(x) is not x
        ours = detect(x, alpha=0.05, permutations=99, split_permutations=39, min_size=5)
        ref = edivisive_naive(list(x), 0.05, 5, 99, 39)
        assert [(c.position, c.p_value) for c in ours.change_points] == ref
    assert broken >= 4 if kind == "small-ties" else broken == 0


@pytest.mark.parametrize("seed", range(20))
def test_search_values_breaks_small_ties_only_and_keeps_the_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    decimals = int(rng.integers(0, 4))
    x = np.round(rng.lognormal(3.0, 0.5, n), decimals)
    z = search_values(x)
    assert z.tolist() == search_values_naive(x.tolist())
    largest = int(np.unique(x, return_counts=True)[1].max())
    if largest == 1 or largest > FEW_TIES * n:
        assert z is x
        return
    assert sorted(z.tolist()) == list(range(1, n + 1))  # ranks 1..n, no ties left
    # distinct values keep their order; equal values get consecutive ranks
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(x[order][np.argsort(z[order])]) >= 0)
    assert np.array_equal(search_values(x.copy()), z)  # the same series, the same keys


def test_small_ties_share_the_untied_stream_of_their_length() -> None:
    """Two series with a few different ties draw no stream of their own: both tests use the
    stream of their length (before, one stream per tie pattern); many ties keep theirs."""
    rng = np.random.default_rng(3)
    changepoints._NULL_CACHE.clear()
    for _ in range(2):
        x = rng.normal(0.0, 1.0, 400)
        x[[10, 200, 300]] = x[[11, 201, 5]]  # three pairs: 0.5 % of the points each
        detect(x, min_size=5)
    assert list(changepoints._NULL_CACHE) == [(5, 400)]
    detect(np.round(rng.normal(0.0, 1.0, 400), 1), min_size=5)  # ties: ~5 % of the points
    assert len(changepoints._NULL_CACHE) == 2
    assert isinstance(list(changepoints._NULL_CACHE)[1][1], bytes)  # its tie pattern


def test_small_ties_calibrated_and_planted_steps_found() -> None:
    """Series of 300-600 values rounded to 0.001 sd, so that they hold small ties (broken at
    random): stationary ones get a change point at the rate alpha = 1 % (bound: 6 of 150);
    a planted step of 2 sd is found within two positions as often as in the same series
    unrounded (no power lost to the random order inside ties), and in >= 95 %."""
    rng = np.random.default_rng(77)
    alarms, found, found_unrounded, broken = 0, 0, 0, 0

    def near(series: np.ndarray, k: int) -> bool:
        return any(abs(c.position - k) <= 2 for c in detect(series).change_points)

    for _ in range(150):
        n = int(rng.integers(300, 600))
        exact = rng.normal(50.0, 1.0, n)
        x = np.round(exact, 3)
        broken += search_values(x) is not x
        alarms += bool(detect(x).change_points)
        k = int(rng.integers(20, n - 20))
        step = np.where(np.arange(n) >= k, 2.0, 0.0)
        found += near(x + step, k)
        found_unrounded += near(exact + step, k)
    assert broken >= 140  # the path under test
    assert alarms <= 6  # P(>= 7 of 150 | rate 1 %) < 1e-3
    assert found >= found_unrounded - 3 and found >= 0.95 * 150


def test_too_short_and_constant_series_say_why() -> None:
    short = detect([1.0, 2.0, 3.0])
    assert short.change_points == () and "too short: 3 points" in short.reason
    assert str(min_points()) in short.reason
    flat = detect(np.full(50, 3.0))
    assert flat.change_points == () and flat.reason == "all values equal"
    with pytest.raises(ValueError):
        detect([1.0, math.nan] * 10)


def test_min_change_drops_small_changes_and_describes_segments() -> None:
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.normal(100, 0.1, 100), rng.normal(100.5, 0.1, 100),
                        rng.normal(120, 0.1, 100)])
    both = detect(x)
    assert [c.position for c in both.change_points] == [100, 200]
    big = detect(x, min_change=5.0)
    assert [c.position for c in big.change_points] == [200]
    cp = big.change_points[0]
    assert cp.n_before == 200 and cp.n_after == 100
    assert cp.median_before == pytest.approx(np.median(x[:200]))
    assert cp.change_pct == pytest.approx(100 * (120 / 100.25 - 1), abs=0.5)
    assert cp.ci_low_pct < cp.change_pct < cp.ci_high_pct
    none = detect(x, min_change=50.0)
    assert none.change_points == () and "at least 50 %" in none.reason


def test_calibrated_false_alarm_rate() -> None:
    """Stationary series of several lengths and shapes: the share with any change point
    stays near alpha = 1 % (bound 5 %); 600 series."""
    rng = np.random.default_rng(2024)
    alarms, total = 0, 0
    for n in (20, 50, 120, 400):
        for kind in ("normal", "lognormal", "ties"):
            cell = sum(bool(detect(_series(rng, n, kind)).change_points) for _ in range(50))
            assert cell <= 3, (n, kind, cell)  # P(>= 4 of 50 | rate 1 %) < 2e-3
            alarms += cell
            total += 50
    assert alarms / total <= 0.03


def test_planted_steps_found_within_two_positions() -> None:
    rng = np.random.default_rng(99)
    found, total = 0, 0
    for n in (100, 250, 500, 1000):
        for _ in range(40):
            x = rng.normal(0.0, 1.0, n) + 50.0
            k = int(rng.integers(10, n - 10))
            x[k:] += 3.0
            result = detect(x)
            found += any(abs(c.position - k) <= 2 for c in result.change_points)
            total += 1
    assert found / total >= 0.95


def test_series_tested_on_many_threads_give_the_sequential_results() -> None:
    """The job tests series on several threads (``detect_all``); they share the cached
    permutation streams (one per length and tie pattern). Whatever the interleaving, every
    series gets the change points and p-values it gets alone, from an empty cache both
    times."""
    from perfwarehouse.changepoints import analysis as cp

    rng = np.random.default_rng(11)
    series = []
    for i in range(48):
        n = (40, 60, 90)[i % 3]  # few lengths: the threads meet on the same streams
        x = rng.normal(0, 1, n)
        if i % 2:
            x[n // 2:] += 3.0
        series.append(np.round(x, 1) if i % 4 == 3 else x)  # some with ties

    def summary(result: cp.ChangePointResult) -> tuple:
        return result.p_value, tuple((c.position, c.p_value) for c in result.change_points)

    options = {"permutations": 199, "split_permutations": 99}
    cp._NULL_CACHE.clear()
    alone = [summary(detect(x, **options)) for x in series]
    for _ in range(4):  # a race shows in some interleavings only
        cp._NULL_CACHE.clear()
        together = [summary(r) for r in cp.detect_all(series, threads=4, **options)]
        assert together == alone
    assert sum(1 for _, points in alone if points) >= 20  # the planted steps are found
