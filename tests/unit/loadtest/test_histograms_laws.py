"""Latency histograms, the pooled-percentile kernel and the operational-law checks
against numpy, scipy and the slow twins of tests/naive."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.kernels.latency import pooled_quantiles
from perfwarehouse.loadtest import histograms as hg
from perfwarehouse.loadtest import laws
from tests.naive import loadtest as naive

RNG = np.random.default_rng(3)


def test_samples_histogram_quantiles_within_bucket_resolution() -> None:
    x = RNG.lognormal(1.0, 0.8, 5000)
    h = hg.from_latency({"unit": "ms", "samples": x.tolist()})
    assert h.kind == "samples" and h.n == 5000 and h.frac.sum() == pytest.approx(1.0)
    assert np.all(np.diff(h.index.astype(int)) > 0)
    for p in (0.5, 0.9, 0.99):
        got = hg.quantile(h.index, h.frac, p)
        assert got == pytest.approx(np.quantile(x, p), rel=0.03)
    assert h.mean_ms == pytest.approx(x.mean())
    assert hg.mean_ms(h.index, h.frac) == pytest.approx(x.mean(), rel=0.02)


def test_units_and_spectrum_points_are_recovered() -> None:
    spectrum = [[50, 1.2], [75, 1.9], [90, 3.1], [99, 9.0]]
    h = hg.from_latency({"unit": "ms", "percentiles": spectrum, "count": 1000})
    for q, v in spectrum:
        assert hg.quantile(h.index, h.frac, q / 100) == pytest.approx(v, rel=0.025)
    us = hg.from_latency({"unit": "us", "percentiles": [[q, v * 1000] for q, v in spectrum]})
    assert np.array_equal(us.index, h.index) and us.n is None
    b = hg.from_latency({"buckets": [[1.0, 10], [2.0, 30], [10.0, 60]]})
    assert b.n == 100 and hg.quantile(b.index, b.frac, 0.25) < 2.0 < hg.quantile(
        b.index, b.frac, 0.5)


@pytest.mark.parametrize("bad", [
    [1, 2], {"samples": []}, {"samples": [1, -2]}, {"samples": [1, "x"]},
    {"percentiles": [[50, 2.0], [90, 1.0]]}, {"percentiles": [[150, 2.0]]},
    {"percentiles": [1, 2]}, {"samples": [1], "percentiles": [[50, 1]]},
    {"samples": [1.0], "unit": "min"}, {"buckets": [[1.0, 0]]}, {"samples": [1], "count": -3},
])
def test_bad_latency_is_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        hg.from_latency(bad)


def _kernel_vs_naive(groups: list[list[tuple[np.ndarray, np.ndarray, float]]]) -> None:
    ps = np.array([0.5, 0.9, 0.99, 0.999])
    starts, b, e, idx, frac, w = [0], [], [], [], [], []
    pos = 0
    for g in groups:
        for index, fr, weight in g:
            b.append(pos)
            pos += index.size
            e.append(pos)
            idx.append(index.astype(np.int64))
            frac.append(fr)
            w.append(weight)
        starts.append(starts[-1] + len(g))
    qtab = np.full(20, np.nan)
    qtab[2:] = sps.t.ppf(0.975, np.arange(1, 19))
    point, low, high, n = pooled_quantiles(
        np.array(starts, np.int64), np.array(b, np.int64), np.array(e, np.int64),
        np.concatenate(idx), np.concatenate(frac), np.array(w), ps, qtab, hg.N_BUCKETS,
        hg.LOW_MS, float(hg.PER_DECADE))
    for gi, g in enumerate(groups):
        assert n[gi] == len(g)
        for pi, p in enumerate(ps):
            want = naive.pooled_quantile_ci([(list(i), list(f)) for i, f, _ in g],
                                            [x for _, _, x in g], p, qtab[len(g)],
                                            hg.LOW_MS, hg.PER_DECADE)
            assert point[gi, pi] == pytest.approx(want[0], rel=1e-9)
            if len(g) < 2:
                assert math.isnan(low[gi, pi]) and math.isnan(want[1])
            else:
                assert (low[gi, pi], high[gi, pi]) == pytest.approx(want[1:], rel=1e-9)
                assert low[gi, pi] <= point[gi, pi] <= high[gi, pi]


@pytest.mark.parametrize("seed", range(30))
def test_pooled_kernel_matches_naive_twin(seed: int) -> None:
    # a generator per seed: with the module's one, which draws a test got depended on
    # the order the tests ran in (the twin's missing tolerance showed up in CI only)
    rng = np.random.default_rng(seed)
    groups = []
    for k in (1, 2, 3, 7):
        g = []
        for _ in range(k):
            h = hg.from_latency({"samples": rng.lognormal(rng.normal(1, 0.2), 0.5, 300).tolist()})
            g.append((h.index, h.frac, float(rng.integers(100, 1000))))
        groups.append(g)
    same = hg.from_latency({"samples": [2.0, 2.0, 2.0]})  # identical trials: zero variance
    groups.append([(same.index, same.frac, 1.0)] * 3)
    _kernel_vs_naive(groups)


@pytest.mark.parametrize("seed", range(40))
def test_pooled_single_trial_equals_its_quantiles(seed: int) -> None:
    """2,000 samples: 0.5 and 0.99 are whole numbers of samples, so the cumulative weight
    reaches them exactly at a bucket's end (about one seed in five put the two computations
    a bucket apart before both took "reaches" within a relative 1e-9)."""
    x = np.random.default_rng(seed).exponential(5.0, 2000)
    h = hg.from_latency({"samples": x.tolist()})
    point, low, _high, _n = pooled_quantiles(
        np.array([0, 1]), np.array([0]), np.array([h.index.size]), h.index.astype(np.int64),
        h.frac, np.array([1.0]), np.array([0.5, 0.99]), np.full(3, np.nan), hg.N_BUCKETS,
        hg.LOW_MS, float(hg.PER_DECADE))
    assert point[0, 0] == pytest.approx(hg.quantile(h.index, h.frac, 0.5))
    assert point[0, 1] == pytest.approx(hg.quantile(h.index, h.frac, 0.99))
    assert np.isnan(low).all()


def test_woodruff_ci_covers_the_true_percentile_most_of_the_time() -> None:
    true_p90 = sps.expon.ppf(0.9, scale=4.0)
    covered = 0
    for _rep in range(60):
        g = []
        for _t in range(5):
            h = hg.from_latency({"samples": RNG.exponential(4.0, 400).tolist()})
            g.append((h.index.astype(np.int64), h.frac))
        starts = np.cumsum([0] + [i.size for i, _ in g])
        _p, lo, hi, _n = pooled_quantiles(
            np.array([0, 5]), starts[:-1], starts[1:], np.concatenate([i for i, _ in g]),
            np.concatenate([f for _, f in g]), np.ones(5), np.array([0.9]),
            np.concatenate([[np.nan, np.nan], sps.t.ppf(0.975, np.arange(1, 6))]),
            hg.N_BUCKETS, hg.LOW_MS, float(hg.PER_DECADE))
        covered += lo[0, 0] <= true_p90 <= hi[0, 0]
    assert covered >= 48  # nominal 95 % of 60 = 57; generous for bucket resolution


def test_closed_loop_law_matches_naive_and_flags_client_bottleneck() -> None:
    n = 200
    N = RNG.choice([1.0, 4.0, 16.0, 64.0], n)
    Z = RNG.choice([0.0, 0.005], n)
    R = RNG.uniform(0.5, 30.0, n)
    X = N / (R / 1000 + Z) * RNG.uniform(0.5, 1.3, n)
    got = laws.check(np.array(["closed"] * n, dtype=object), clients=N, think_time_s=Z,
                     throughput=X, mean_ms=R, tolerance=0.1)
    want = [naive.closed_law_residual(*a) for a in zip(N, Z, X, R)]
    assert np.allclose(got.residual, want)
    for res, ok, why in zip(want, got.consistent, got.reason):
        assert ok is bool(abs(res) <= 0.1)
        assert (why is None) is ok
        if res < -0.1:
            assert "client bottleneck" in why


def test_open_loop_flow_balance_offered_load_and_utilization() -> None:
    loop = np.array(["open"] * 4 + ["closed", "other"], dtype=object)
    got = laws.check(
        loop, rate_rps=np.array([100.0, 100.0, 100.0, 100.0, np.nan, np.nan]),
        throughput=np.array([99.0, 70.0, 80.0, 100.0, 10.0, 5.0]),
        arrival_rate=np.array([np.nan, np.nan, 80.0, 100.0, np.nan, np.nan]),
        utilization=np.array([np.nan, np.nan, np.nan, 50.0, np.nan, np.nan]),
        service_time_ms=np.array([np.nan, np.nan, np.nan, 7.0, np.nan, np.nan]),
        clients=np.array([np.nan] * 4 + [1.0, np.nan]), mean_ms=np.array([1.0] * 6))
    assert list(got.consistent) == [True, False, False, False, False, None]
    assert got.law[1] == "flow balance" and "did not keep up" in got.reason[1]
    assert got.law[2] == "offered load" and "load generator" in got.reason[2]
    assert got.law[3] == "U = XS" and got.residual[3] == pytest.approx(100 * 0.007 / 0.5 - 1)
    assert got.reason[5] == "not a load-test trial"
    with pytest.raises(ValueError):
        laws.check(loop, tolerance=0.0)
