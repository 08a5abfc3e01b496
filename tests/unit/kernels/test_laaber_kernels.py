"""numba kernels of perfwarehouse.kernels.laaber against their plain twins and scipy."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy import stats

from perfwarehouse import laaber
from perfwarehouse.kernels import laaber as k
from perfwarehouse.kernels import ranksum as rs
from tests.naive import laaber as naive


def _samples(rng: np.random.Generator):
    """Random inputs with ties, tiny n and constant data."""
    yield np.array([3.0])
    yield np.array([2.0, 1.0])
    yield np.full(7, 4.25)
    yield np.full(8, -1.0)
    yield np.array([5.0, 1.0, 5.0, 1.0, 5.0, 1.0])
    for n in (1, 2, 3, 4, 5, 10, 11, 50, 51, 1000, 1001):
        yield rng.normal(size=n)
        yield rng.integers(0, 4, size=n).astype(float)  # heavy ties
        yield np.sort(rng.lognormal(size=n))  # sorted input
        yield np.sort(rng.lognormal(size=n))[::-1].copy()  # reversed input


def test_median_by_selection_equals_numpy_median():
    rng = np.random.default_rng(1)
    for x in _samples(rng):
        got = k.median_inplace(x.copy())
        assert got == np.median(x), x  # bit-identical, including the even-n mean


def test_median_of_empty_is_nan():
    assert np.isnan(k.median_inplace(np.empty(0)))


def test_segment_medians_and_moments_equal_plain_loops():
    rng = np.random.default_rng(2)
    values = np.concatenate([rng.integers(0, 5, 40).astype(float), rng.normal(size=300)])
    values[[3, 17, 200]] = np.nan
    cuts = np.unique(np.concatenate([[0, len(values)], rng.integers(0, len(values), 30)]))
    cuts = np.insert(cuts, 5, cuts[4])  # an empty segment
    offsets = cuts.astype(np.int64)
    clean = np.where(np.isnan(values), 0.0, values)
    np.testing.assert_array_equal(k.segment_medians(clean, offsets),
                                  naive.segment_medians(clean, offsets))
    count, mean, sd = k.segment_moments(values, offsets)
    n_count, n_mean, n_sd = naive.segment_moments(values, offsets)
    np.testing.assert_array_equal(count, n_count)
    np.testing.assert_allclose(mean, n_mean, rtol=1e-12, atol=1e-15, equal_nan=True)
    np.testing.assert_allclose(sd, n_sd, rtol=1e-10, atol=1e-15, equal_nan=True)


def test_segment_moments_of_constant_and_single_values():
    count, mean, sd = k.segment_moments(np.array([2.0, 2.0, 2.0, 7.0]), np.array([0, 3, 4]))
    assert list(count) == [3, 1]
    assert list(mean) == [2.0, 7.0]
    assert sd[0] == 0.0 and np.isnan(sd[1])


@pytest.mark.parametrize("n1,n2", [(1, 1), (1, 3), (2, 2), (3, 7), (10, 10), (50, 49),
                                   (250, 250), (1000, 300)])
def test_ranksum_matches_scipy_asymptotic(n1, n2):
    rng = np.random.default_rng(n1 * 1000 + n2)
    cases = [
        (rng.normal(size=n1), rng.normal(0.3, 1, size=n2)),
        (rng.integers(0, 3, n1).astype(float), rng.integers(0, 3, n2).astype(float)),
        (np.full(n1, 1.5), np.full(n2, 1.5)),
        (np.round(rng.lognormal(size=n1), 1), np.round(rng.lognormal(0.2, size=n2), 1)),
    ]
    for x, y in cases:
        ref = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
        u, p = rs.mannwhitneyu(x, y)
        assert u == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12)
        assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
        nu, np_ = naive.ranksum(x, y)
        assert (u, p) == pytest.approx((nu, np_), rel=1e-12, abs=1e-15)


def test_ranksum_sorted_is_the_same_test_and_rejects_nan_and_empty():
    rng = np.random.default_rng(5)
    x, y = np.sort(rng.normal(size=40)), np.sort(rng.normal(size=33))
    assert rs.ranksum_sorted(x, y) == rs.mannwhitneyu(x[::-1].copy(), y)
    assert all(np.isnan(v) for v in rs.ranksum_sorted(np.empty(0), y))
    assert all(np.isnan(v) for v in rs.mannwhitneyu(np.array([1.0, np.nan]), y))


def test_random_stream_replays_in_plain_python():
    for seed, key, strategy, kk, draw in [(0, 0, 0, 1, 0), (1, 2**64 - 1, 1, 20, 99),
                                          (123456789, 987654321, 0, 5, 7)]:
        state = k.draw_state(np.uint64(seed), np.uint64(key), strategy, kk, draw)
        assert int(state) == naive.draw_state(seed, key, strategy, kk, draw)
        arr = np.array([state], dtype=np.uint64)
        stream = naive.Stream(int(state))
        for n in (1, 2, 3, 10, 50, 1000, 2**40):
            assert k._below(arr, n) == stream.below(n)


def test_stream_is_uniform_enough():
    arr = np.array([k.draw_state(np.uint64(3), np.uint64(4), 0, 1, 0)], dtype=np.uint64)
    counts = np.bincount([k._below(arr, 10) for _ in range(20000)], minlength=10)
    assert stats.chisquare(counts).pvalue > 1e-4


def _layout(rng, n_configs=4, nodes=(1, 3, 12, 25), trials=(1, 4, 10, 12), iters=(1, 3, 20)):
    """A random multi-configuration layout with ragged nodes, trials and iterations."""
    values, new_config, new_node, new_trial = [], [], [], []
    for _c in range(n_configs):
        for n in range(int(rng.choice(nodes))):
            for t in range(int(rng.choice(trials))):
                m = int(rng.choice(iters))
                x = rng.lognormal(3, 0.2, m)
                if rng.random() < 0.3:
                    x = np.round(x)  # ties
                values.append(x)
                first = np.zeros(m, bool)
                first[0] = True
                new_trial.append(first)
                new_node.append(first & (t == 0))
                new_config.append(first & (t == 0) & (n == 0))
    cat = np.concatenate
    return laaber.layout_from_breaks(cat(values), cat(new_config), cat(new_node), cat(new_trial),
                                     outlier_factor=0)


@pytest.mark.parametrize("strategy,kk,per_node,disjoint", [
    ("instance", 1, 1, False), ("instance", 5, 1, False), ("instance", 3, 1, True),
    ("trial", 1, 5, False), ("trial", 2, 2, False), ("trial", 3, 1, False),
])
def test_sampling_kernel_equals_replayed_twin(strategy, kk, per_node, disjoint):
    rng = np.random.default_rng(zlib.crc32(repr((strategy, kk, per_node, disjoint)).encode()))
    layout = _layout(rng, n_configs=6)
    keys = rng.integers(0, 2**63, layout.n_configs).astype(np.uint64)
    el, mc, mt, p = laaber.sample_medians(layout, keys, strategy=strategy, k=kk,
                                          trials_per_node=per_node, draws=15, seed=42,
                                          disjoint=disjoint)
    n_mc, n_mt, n_p = naive.sample_group_statistics(layout, keys, 42, strategy, kk, per_node,
                                                    disjoint, 15, True)
    np.testing.assert_array_equal(mc, n_mc)
    np.testing.assert_array_equal(mt, n_mt)
    assert np.isnan(p).all()
    # the rank-sum path: the same draws, the p-values of the pooled groups
    _el, mc2, _mt2, p2 = laaber.sample_medians(layout, keys, strategy=strategy, k=kk,
                                               trials_per_node=per_node, draws=15, seed=42,
                                               disjoint=disjoint, with_ranksum=True)
    np.testing.assert_allclose(p2, n_p, rtol=1e-12, equal_nan=True)
    assert np.isnan(mc2).all()
    drawn = el.count >= el.need_nodes
    assert np.isfinite(mc[drawn]).all() and np.isnan(mc[~drawn]).all()
    assert np.isfinite(p2[drawn]).all() and np.isnan(p2[~drawn]).all()


@pytest.mark.parametrize("ties", [False, True])
def test_rank_sum_from_counts_and_from_sorted_samples_agree_bitwise(ties):
    # few distinct values send big groups through the counting path, many through sorting
    rng = np.random.default_rng(int(ties))
    for n1, n2 in [(1, 1), (3, 2), (40, 60), (500, 700)]:
        x = rng.integers(0, 6, n1).astype(float) if ties else rng.normal(size=n1)
        y = rng.integers(1, 7, n2).astype(float) if ties else rng.normal(0.1, 1, n2)
        distinct, codes = np.unique(np.concatenate([x, y]), return_inverse=True)
        cx = np.bincount(codes[:n1], minlength=len(distinct))
        cy = np.bincount(codes[n1:], minlength=len(distinct))
        assert rs._ranksum_counts(cx, cy) == rs.ranksum_sorted(np.sort(x), np.sort(y))
    assert all(np.isnan(v) for v in rs._ranksum_counts(np.zeros(3, np.int64), np.ones(3, np.int64)))


def test_dense_ranks():
    layout = laaber.layout_from_breaks(
        np.array([5.0, 3.0, 5.0, 1.0, 7.0, 7.0, 2.0]),
        np.array([1, 0, 0, 0, 1, 0, 0], bool), np.array([1, 0, 1, 0, 1, 0, 0], bool),
        np.array([1, 0, 1, 0, 1, 0, 1], bool), outlier_factor=0)
    ranks, distinct = laaber.dense_ranks(layout)
    assert list(distinct) == [3, 2]
    assert list(ranks) == [2, 1, 2, 0, 1, 1, 0]


def test_draws_depend_on_seed_and_key_only():
    rng = np.random.default_rng(9)
    layout = _layout(rng, n_configs=5, nodes=(12, 25), trials=(10, 12))
    keys = rng.integers(0, 2**63, layout.n_configs).astype(np.uint64)
    args = dict(strategy="trial", k=2, trials_per_node=5, draws=20)
    _, mc, mt, _ = laaber.sample_medians(layout, keys, seed=1, **args)
    _, mc_again, _, _ = laaber.sample_medians(layout, keys, seed=1, **args)
    _, mc_other, _, _ = laaber.sample_medians(layout, keys, seed=2, **args)
    np.testing.assert_array_equal(mc, mc_again)
    assert not np.array_equal(mc, mc_other)
    # configuration 2 alone (same key) draws exactly what it drew inside the partition
    lo, hi = layout.config_offsets[2], layout.config_offsets[3]
    trials = layout.node_offsets[lo:hi + 1]
    rows = layout.trial_offsets[trials]
    alone = laaber.Layout(
        layout.values[rows[0]:rows[-1]], layout.trial_offsets[trials[0]:trials[-1] + 1] - rows[0],
        layout.node_offsets[lo:hi + 1] - trials[0], np.array([0, hi - lo]),
        layout.n_values[2:3], layout.n_outliers[2:3], layout.outlier_median[2:3])
    _, mc_alone, mt_alone, _ = laaber.sample_medians(alone, keys[2:3], seed=1, **args)
    np.testing.assert_array_equal(mc_alone[0], mc[2])
    np.testing.assert_array_equal(mt_alone[0], mt[2])


def test_sort_segments_sorts_each_segment_only():
    rng = np.random.default_rng(12)
    values = np.round(rng.normal(size=500), 1)
    offsets = np.array([0, 1, 3, 70, 70, 200, 500])
    want = np.concatenate([np.sort(values[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])
    k.sort_segments(values, offsets)
    np.testing.assert_array_equal(values, want)
