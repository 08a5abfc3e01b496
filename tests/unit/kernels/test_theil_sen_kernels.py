"""Theil-Sen selection kernels against brute force on random inputs with ties."""

from __future__ import annotations

import numpy as np
import pytest

from perfwarehouse.kernels import slope_pairs as pairs
from perfwarehouse.kernels import theil_sen as kern
from perfwarehouse.stats.theil_sen import _sorted_by_x_then_y, _tie_sizes


def _points(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x-sorted points (ties in x and y for odd seeds), group starts, every pair's slope."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 120))
    x, y = rng.normal(size=n) * 5, rng.standard_t(2, size=n)
    if seed % 2:
        x, y = np.round(x), np.round(y * 2) / 2
    xs, ys = _sorted_by_x_then_y(x, y)
    order = np.lexsort((y, x))
    assert np.array_equal(xs, x[order]) and np.array_equal(ys, y[order])
    group_start = np.concatenate(([0], np.cumsum(_tie_sizes(xs)))).astype(np.int64)
    slopes = np.array([(ys[j] - ys[i]) / (xs[j] - xs[i]) for i in range(n)
                       for j in range(i + 1, n) if xs[i] != xs[j]])
    return xs, ys, group_start, slopes


@pytest.mark.parametrize("seed", range(30))
def test_order_and_count_counts_slopes_at_most_t(seed: int) -> None:
    xs, ys, group_start, slopes = _points(seed)
    rng = np.random.default_rng(seed + 100)
    distinct = np.unique(slopes)
    # thresholds well between computed slopes (the count is of the exact slopes)
    gaps = (distinct[1:] - distinct[:-1]) > 1e-9 * np.maximum(1.0, np.abs(distinct[1:]))
    middles = ((distinct[1:] + distinct[:-1]) / 2)[gaps]
    candidates = np.concatenate((middles, rng.normal(size=3) * 100, [0.5]))
    for t in rng.choice(candidates, size=min(8, candidates.size), replace=False):
        order, count = kern.order_and_count(xs, ys, group_start, float(t))
        assert count == int(np.sum(slopes <= t))
        assert sorted(order.tolist()) == list(range(xs.size))


@pytest.mark.parametrize("seed", range(30))
def test_advance_and_sample_list_the_slopes_between(seed: int) -> None:
    xs, ys, group_start, slopes = _points(seed)
    if slopes.size < 2:
        return
    lower, upper = np.sort(np.random.default_rng(seed).choice(slopes, 2))
    lower -= 1e-9 * max(1.0, abs(lower))  # strictly between computed slopes: no rounding doubt
    upper += 1e-9 * max(1.0, abs(upper))
    expected = np.sort(slopes[(slopes > lower) & (slopes <= upper)])
    order_l, count_l = kern.order_and_count(xs, ys, group_start, float(lower))
    order_u, count_u = kern.order_and_count(xs, ys, group_start, float(upper))
    order, met, listed, overflow = pairs.advance_order(xs, ys, order_l, float(upper), 10**6)
    assert not overflow and np.array_equal(order, order_u) and count_l + met == count_u
    assert np.array_equal(np.sort(listed), expected)
    listed, overflow = pairs.list_between_orders(xs, ys, order_l, order_u, 10**6)
    assert not overflow and np.array_equal(np.sort(listed), expected)
    sampled, overflow = pairs.sample_between_orders(xs, ys, order_l, order_u, 1.0, 10**6, seed)
    assert not overflow and np.array_equal(np.sort(sampled), expected)
    if expected.size > 3:
        _, _, _, overflow = pairs.advance_order(xs, ys, order_l, float(upper), 2)
        assert overflow


def test_random_pair_slopes_are_slopes() -> None:
    xs, ys, _, slopes = _points(3)
    drawn = pairs.random_pair_slopes(xs, ys, 500, 7)
    assert drawn.size == 500 and np.isin(drawn, slopes).all()


def test_random_pair_slopes_draw_every_pair_alike() -> None:
    """The pairs are uniform over those with distinct x (the first points are drawn, then
    sorted by counting): chi-square of 60,000 draws over the 15 pairs of 6 points."""
    from scipy import stats as sps

    xs = np.array([0.0, 1.0, 2.0, 4.0, 7.0, 11.0])
    ys = np.array([0.0, 1.0, 5.0, 2.0, 30.0, 3.0])
    slopes = np.array([(ys[j] - ys[i]) / (xs[j] - xs[i])
                       for i in range(6) for j in range(i + 1, 6)])
    assert np.unique(slopes).size == slopes.size  # one slope, one pair
    drawn = pairs.random_pair_slopes(xs, ys, 60_000, 11)
    counts = np.array([np.count_nonzero(drawn == s) for s in slopes])
    assert counts.sum() == drawn.size == 60_000
    assert sps.chisquare(counts).pvalue > 0.001
