"""TriScale's rules (SPEC 8) against slow obvious twins, the paper's Table 2 and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfwarehouse import triscale
from perfwarehouse.stats import acf
from tests.naive.triscale import (
    acf_naive,
    convergence_naive,
    independence_naive,
    metric_naive,
    sizing_naive,
)


# ---------------------------------------------------------------- sizing
@pytest.mark.parametrize("p, c, runs", [(0.95, 0.95, 59), (0.95, 0.99, 90), (0.99, 0.95, 299),
                                        (0.90, 0.95, 29), (0.50, 0.95, 5)])
def test_sizing_matches_table_2(p: float, c: float, runs: int) -> None:
    for method in ("default", "triscale"):
        assert triscale.experiment_sizing(p, c, method=method).one_sided == runs
        assert triscale.experiment_sizing(1 - p if p != 0.5 else p, c, method=method).one_sided == runs


def test_sizing_of_the_median_two_sided() -> None:
    # N = ceil(1 - ln(1-C)/ln 2): 0.95 -> 6, 0.75 -> 3, 0.99 -> 8
    assert [triscale.experiment_sizing(0.5, c).two_sided for c in (0.95, 0.75, 0.99)] == [6, 3, 8]


@pytest.mark.parametrize("p", [0.5, 0.25, 0.1, 0.9, 0.05])
@pytest.mark.parametrize("c", [0.6, 0.75, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("r", [0, 1, 3])
def test_sizing_equals_naive(p: float, c: float, r: int) -> None:
    got = triscale.experiment_sizing(p, c, r)
    assert (got.one_sided, got.two_sided) == sizing_naive(p, c, r)
    if c > 0.5:  # TriScale's start at 2(r+1) only overshoots for C <= 0.5
        ts = triscale.experiment_sizing(p, c, r, method="triscale")
        assert (ts.one_sided, ts.two_sided) == (got.one_sided, got.two_sided)


def test_sizing_triscale_overshoot_is_reproduced() -> None:
    assert triscale.experiment_sizing(0.5, 0.5, 2).one_sided == 5
    assert triscale.experiment_sizing(0.5, 0.5, 2, method="triscale").one_sided == 6


def test_sizing_input_checks() -> None:
    with pytest.raises(ValueError, match="fraction"):
        triscale.experiment_sizing(95, 0.95)
    with pytest.raises(ValueError, match="robustness"):
        triscale.experiment_sizing(0.9, 0.95, -1)
    assert triscale.as_fraction(95) == 0.95 and triscale.as_fraction(0.95) == 0.95


# ---------------------------------------------------------- convergence
def _run(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    t = np.arange(n)
    noise = rng.lognormal(0, 0.2, n)
    if kind == "ramp":
        return 50 * (1 - np.exp(-t / (n / 3))) + noise
    if kind == "ties":
        return np.round(10 + noise * 3)
    return 10 + noise


@pytest.mark.parametrize("n", [2, 3, 9, 40, 199, 200, 201, 1000])
@pytest.mark.parametrize("kind", ["flat", "ramp", "ties"])
@pytest.mark.parametrize("measure", [0.5, 0.95, 0.05, "mean", "min", "max"])
def test_metric_equals_naive(n: int, kind: str, measure: object) -> None:
    rng = np.random.default_rng(n + len(kind))
    y = _run(rng, n, kind)
    for converge in (False, True):
        got = triscale.metric(y, measure=measure, converge=converge)
        if not converge and measure in ("min", "max"):
            assert got.value == (y.min() if measure == "min" else y.max())
            continue
        value, converged = metric_naive(list(y), measure, converge)
        assert got.value == pytest.approx(value, rel=1e-15) and got.converged == converged


def test_windows_follow_the_spec() -> None:
    from perfwarehouse.kernels.windows import window_starts

    assert list(window_starts(7)) == [0, 1, 2, 3]  # W = 3, 4 windows, last starts at W
    starts = window_starts(1000)
    assert starts.size == 100 and starts[0] == 0 and starts[-1] == 500
    assert list(starts[:3]) == [0, 5, 10]  # floor(i * 500 / 99)


def test_convergence_test_on_points_equals_naive() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(5, 80))
        x = np.sort(rng.uniform(0, 100, n))
        y = rng.normal(size=n) + rng.choice([0, 0.02, 0.3]) * x
        got = triscale.convergence_test(y, x, 0.95, 0.05)
        ref = convergence_naive(list(y), list(x), 0.95, 0.05)
        assert (got.converged, got.slope, got.low, got.high) == ref


def test_converged_and_not() -> None:
    rng = np.random.default_rng(1)
    flat = 100 + rng.normal(0, 1, 2000)
    ramp = np.linspace(0, 100, 2000) + rng.normal(0, 1, 2000)
    assert triscale.metric(flat, measure="mean", converge=True).converged is True
    failed = triscale.metric(ramp, measure="mean", converge=True)
    assert failed.converged is False and failed.value == pytest.approx(50, abs=3)
    assert math.isnan(triscale.metric(ramp, measure="mean", converge=True, method="triscale").value)
    kept = triscale.metric(flat, measure="mean", converge=True, method="triscale")
    assert kept.value == triscale.metric(flat, measure="mean", converge=True).value


def test_constant_run_converges_and_tolerance_zero_is_allowed() -> None:
    r = triscale.convergence_test([4.0] * 30, tolerance=0.0)
    assert r.converged and r.slope == 0.0
    assert triscale.metric([4.0] * 30, converge=True).value == 4.0


# --------------------------------------------------------------- ACF
def test_acf_equals_naive_and_constant_rule() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 5, 50, 300):
        x = rng.normal(size=n)
        assert acf(x) == pytest.approx(acf_naive(list(x)), abs=1e-12)
    assert list(acf([3.0] * 4)) == [1.0, 0.0, 0.0, 0.0]
    big = rng.normal(size=30_000)  # FFT path
    assert acf(big, 40) == pytest.approx(_acf_direct(big, 40), abs=1e-10)
    with pytest.raises(ValueError):
        acf([1.0, np.nan])


def _acf_direct(x: np.ndarray, nlags: int) -> np.ndarray:
    d = x - x.mean()
    return np.array([np.dot(d[: x.size - k], d[k:]) for k in range(nlags + 1)]) / np.dot(d, d)


# ------------------------------------------------------- independence
@pytest.mark.parametrize("method", ["default", "triscale"])
def test_independence_equals_naive(method: str) -> None:
    rng = np.random.default_rng(11)
    for n in (3, 5, 10, 30, 120):
        for phi in (0.0, 0.6):
            e = rng.normal(size=n)
            x = np.empty(n)
            x[0] = e[0]
            for i in range(1, n):
                x[i] = phi * x[i - 1] + e[i]
            got = triscale.independence_test(x, method)
            assert (got.independent, got.weakly_stationary, got.violating_lags) == \
                independence_naive(list(x), method)


def test_independence_edge_cases() -> None:
    assert triscale.independence_test([2.0] * 7).independent
    assert triscale.independence_test([2.0] * 7, "triscale").independent
    one = triscale.independence_test([1.0])
    assert not one.independent and "fewer than 2" in one.note
    with pytest.raises(ValueError):
        triscale.independence_test([])


def _ar1(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    e = rng.normal(size=n + 50)
    x = np.empty_like(e)
    x[0] = e[0]
    for i in range(1, e.size):
        x[i] = phi * x[i - 1] + e[i]
    return x[50:]


@pytest.mark.parametrize("n, reps", [(30, 400), (100, 400), (1000, 300),
                                     pytest.param(5000, 200, marks=pytest.mark.slow)])
def test_default_independence_false_positive_rate(n: int, reps: int) -> None:
    rng = np.random.default_rng(n)
    rejected = sum(not triscale.independence_test(rng.normal(size=n)).independent
                   for _ in range(reps))
    rate = rejected / reps
    assert 0.005 <= rate <= 0.10, rate
    heavy = sum(not triscale.independence_test(rng.lognormal(0, 1, n), ranks=True).independent
                for _ in range(reps // 2))
    assert heavy / (reps // 2) <= 0.10


def test_default_independence_catches_ar1() -> None:
    rng = np.random.default_rng(42)
    caught = sum(not triscale.independence_test(_ar1(rng, 100, 0.5)).independent for _ in range(300))
    assert caught / 300 >= 0.80


def test_triscale_independence_rejects_iid_often_at_100() -> None:
    rng = np.random.default_rng(7)
    rejected = sum(not triscale.independence_test(rng.normal(size=100), "triscale").independent
                   for _ in range(200))
    assert rejected / 200 > 0.5  # SPEC 8: both halves reject i.i.d. data most of the time


# -------------------------------------------------------------- KPI
def test_kpi_sides_and_values() -> None:
    rng = np.random.default_rng(2)
    v = rng.normal(size=59)
    up = triscale.kpi(v, 0.95, 0.95)
    assert up.side == "upper" and up.value == v.max() and up.index == 59
    low = triscale.kpi(v, 0.05, 0.95)
    assert low.side == "lower" and low.value == v.min()
    with pytest.raises(ValueError, match="bound"):
        triscale.kpi(v, 0.5, 0.95)
    med = triscale.kpi(v, 0.5, 0.95, bound="lower")
    assert med.value == np.sort(v)[med.index - 1] and med.coverage >= 0.95
    for method in ("default", "triscale"):
        r = triscale.kpi(v, 0.75, 0.9, method=method)
        assert r.value == triscale.kpi(v, 0.75, 0.9).value


def test_kpi_too_few_runs_says_how_many() -> None:
    r = triscale.kpi([1.0, 2.0, 3.0], 0.95, 0.95, method="triscale")
    assert r.value is None and r.n_required == 59
    r = triscale.kpi([1.0, 2.0, 3.0], 0.95, 0.95)
    assert r.value is None and r.n_required == 59


def test_kpi_of_dependent_data_is_descriptive_only() -> None:
    r = triscale.kpi(np.arange(60.0), 0.9, 0.95)
    assert not r.independent and r.descriptive_only and r.value is not None


# ------------------------------------------------------- variability
def test_variability_default_uses_joint_coverage_triscale_one_sided() -> None:
    rng = np.random.default_rng(4)
    k = np.sort(rng.normal(10, 1, 40))
    d = triscale.variability_score(k, 0.25, 0.75)
    t = triscale.variability_score(k, 0.25, 0.75, method="triscale")
    assert d.coverage >= 0.75 and t.low_index >= d.low_index
    assert t.coverage < 0.75 <= d.coverage or t.low_index == d.low_index
    assert d.score == d.high - d.low
    assert d.relative == pytest.approx(d.score / ((d.low + d.high) / 2))
    assert (d.low, d.high) == (k[d.low_index - 1], k[d.high_index - 1])
    med = triscale.variability_score(k, 0.5, 0.75)
    assert med.low_index == triscale.variability_score(k, 0.5, 0.75, method="triscale").low_index


def test_variability_too_few_sequels() -> None:
    r = triscale.variability_score([1.0, 2.0], 0.25, 0.95)
    assert r.low is None and r.score is None and r.n_required is not None


# ------------------------------------------------------------ profile
def test_profile_finds_daily_and_weekly_periods() -> None:
    rng = np.random.default_rng(9)
    hours = np.arange(24 * 7 * 10)
    y = (np.sin(2 * np.pi * hours / 24) + 1.5 * np.sin(2 * np.pi * hours / 168)
         + rng.normal(0, 0.8, hours.size))
    keep = rng.random(hours.size) > 0.3  # irregular: 30 % of the hours missing
    r = triscale.profile(hours[keep] * 3600.0, y[keep])
    labels = [p.label for p in r.seasonal_periods]
    assert "1 day" in labels and "7 days" in labels and r.step_s == 3600.0
    assert r.band == pytest.approx(1.96 / math.sqrt(r.n))


def test_profile_of_noise_finds_no_period() -> None:
    rng = np.random.default_rng(10)
    r = triscale.profile(np.arange(2000) * 600.0, rng.normal(size=2000))
    assert r.seasonal_periods == () and len(r.candidates) >= 1


def test_cdf_bounds_are_lower_bounds() -> None:
    rng = np.random.default_rng(12)
    v = rng.normal(size=200)
    c = triscale.cdf_bounds(v, 0.95)
    assert c.percentiles.size == 49 and np.all(np.diff(c.values[~np.isnan(c.values)]) >= 0)
    assert np.all(c.values[~np.isnan(c.values)] <= np.quantile(v, c.percentiles[~np.isnan(c.values)]))
