"""The pure helpers of the page modules: TriScale's windows, convergence geometry, ACF
and seasonal peaks; the order-effects CI examples; the detectable-regression heatmap
rows and counts."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from scipy import stats

from perfwarehouse.reports import charts, order_effects, triscale, variability


# ------------------------------------------------------------------ TriScale
def naive_windows(y: list[float], x: list[float], q: float) -> tuple[list[float], list[float]]:
    n = len(y)
    width = n // 2
    count = min(width + 1, 100)
    xs, ys = [], []
    for i in range(count):
        s = math.floor(i * width / (count - 1))
        window = sorted(y[s:s + width])
        xs.append(x[s + width // 2])
        # numpy's "midpoint": halfway between the two order statistics around q·(m−1)
        pos = q * (len(window) - 1)
        ys.append((window[math.floor(pos)] + window[math.ceil(pos)]) / 2)
    return xs, ys


@pytest.mark.parametrize("n", [4, 5, 6, 7, 50, 201, 1001])
@pytest.mark.parametrize("q", [0.5, 0.95, 0.0])
def test_window_measures_follow_spec_8(n: int, q: float) -> None:
    rng = np.random.default_rng(n)
    y = np.round(rng.normal(10, 1, n), 1)  # ties
    x = np.cumsum(rng.uniform(0.5, 1.5, n))
    got_x, got_y = triscale.window_measures(y, x, q)
    want_x, want_y = naive_windows(list(y), list(x), q)
    assert np.array_equal(got_x, want_x)
    assert np.allclose(got_y, want_y, rtol=0, atol=1e-12)
    assert got_x.size == min(n // 2 + 1, 100)


def test_window_measures_small_example() -> None:
    # n = 6: W = 3, 4 windows starting at 0, 1, 2, 3, placed at x[s + 1]
    y = np.array([1.0, 5.0, 2.0, 8.0, 3.0, 9.0])
    wx, wy = triscale.window_measures(y, np.arange(6.0), 0.5)
    assert list(wx) == [1.0, 2.0, 3.0, 4.0]
    assert list(wy) == [2.0, 5.0, 3.0, 8.0]


def test_convergence_view() -> None:
    rng = np.random.default_rng(2)
    flat = 100 + rng.normal(0, 1, 400)
    view = triscale.convergence_view(flat)
    assert view is not None and view.converged
    assert view.low >= -triscale.TOLERANCE and view.high <= triscale.TOLERANCE
    # the slope is Theil-Sen of the window medians mapped to [-1, 1]
    wx, wy = triscale.window_measures(flat, np.arange(400.0), 0.5)
    xu = 2 * (wx - wx.min()) / (wx.max() - wx.min()) - 1
    yu = 2 * (wy - flat.min()) / (flat.max() - flat.min()) - 1
    ref = stats.theilslopes(yu, xu, alpha=0.95, method="joint")
    assert math.isclose(view.slope, ref.slope, rel_tol=1e-12)
    assert math.isclose(view.low, ref.low_slope, rel_tol=1e-12)
    # the fitted line passes through the middle of the window medians, on the raw scale
    assert view.fit["fit"][1] == pytest.approx(float(np.median(wy)), rel=0.01)
    assert (view.fit["tol_low"] <= view.fit["tol_high"]).all()

    rising = flat + np.linspace(0, 30, 400)
    view = triscale.convergence_view(rising)
    assert view is not None and not view.converged and view.low > triscale.TOLERANCE
    assert triscale.convergence_view(np.array([1.0, 2.0, 3.0])) is None


# ------------------------------------------------------------- order effects
def order_rows() -> pa.Table:
    base = {"campaign": "c", "hardware_type": "h", "settings": "{}", "metric": "result",
            "unit": "s", "higher_is_better": False, "family": "c", "kw_h": 1.0,
            "reject_alpha": True, "reject_bonferroni": False, "delta_median_pct": 0.0,
            "alpha": 0.05, "m": 4, "ci_confidence": 0.9875}
    rows = []
    for i, (case, n, delta) in enumerate([(1, 10, 5.0), (1, 30, 1.0), (2, 30, 2.0),
                                          (None, 50, 9.0)]):
        rows.append(base | {
            "benchmark": f"b{i}", "n_fixed": n, "n_random": n, "kw_p": 0.01 * (i + 1),
            "eta2": 0.1 * i, "delta_pct": delta, "median_fixed": 10.0, "median_random": 11.0,
            "ci_fixed_low": 9.0 if case else None, "ci_fixed_high": 10.5 if case else None,
            "ci_random_low": 10.6 if case else None, "ci_random_high": 12.0 if case else None,
            "ci_case": case})
    return pa.Table.from_pylist(rows)


def test_ci_examples_take_the_largest_configuration_of_each_case() -> None:
    df = order_effects.prepare(order_rows())
    assert df["alpha_family"].to_list() == [0.0125] * 4
    assert df["case_label"].to_list()[3] == charts.CI_CASES[3]
    examples = order_effects.ci_examples(df)
    assert examples.height == 4  # cases 1 and 2, two orders each; the NULL case has no CI
    assert set(examples["config"]) == {"b1", "b2"}
    assert examples.filter(pl.col("order_kind") == "random")["low"].to_list() == [10.6, 10.6]
    assert examples["confidence_pct"].to_list() == [98.75] * 4


# --------------------------------------------------------------- variability
def detect_rows(values: list[tuple[str, str, float | None, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"benchmark": b, "config": f"{b} {s}", "settings": s, "hardware_type": "aws",
          "n_nodes": 1, "detectable_pct": r, "status": st, "strategy": "instance"}
         for b, s, r, st in values],
        schema={"benchmark": pl.String, "config": pl.String, "settings": pl.String,
                "hardware_type": pl.String, "n_nodes": pl.Int64, "detectable_pct": pl.Float64,
                "status": pl.String, "strategy": pl.String})


def test_heatmap_rows_per_configuration() -> None:
    rows, aggregated = variability.heatmap_rows(detect_rows([
        ("etcd", "a", 10.0, "detectable"), ("etcd", "b", None, "none"),
        ("etcd", "c", None, "insufficient")]))
    assert not aggregated
    assert rows["text"].to_list() == ["10", "no", "–"]
    assert rows["row"].to_list() == ["etcd a · 1 node", "etcd b · 1 node", "etcd c · 1 node"]


def test_heatmap_rows_aggregate_to_the_median_configuration(monkeypatch) -> None:
    monkeypatch.setattr(variability, "MAX_HEATMAP_CONFIGS", 2)
    rows, aggregated = variability.heatmap_rows(detect_rows([
        ("etcd", "a", 5.0, "detectable"), ("etcd", "b", None, "none"),
        ("etcd", "c", None, "none"), ("bleve", "a", 5.0, "detectable"),
        ("bleve", "b", 10.0, "detectable"), ("bleve", "c", None, "none"),
        ("bleve", "d", None, "insufficient")]))
    assert aggregated
    got = dict(zip(rows["row"], rows["text"]))
    # etcd: 5, none, none -> the median is "none"; bleve: 5, 10, none -> 10
    assert got == {"etcd · 1 node": "no", "bleve · 1 node": "10"}


def test_distribution_counts() -> None:
    counts = variability.distribution(detect_rows([
        ("etcd", "a", 5.0, "detectable"), ("etcd", "b", 5.0, "detectable"),
        ("etcd", "c", None, "none"), ("etcd", "d", None, "insufficient"),
        ("etcd", "e", 2.5, "detectable")]))
    assert counts.to_dicts() == [
        {"r_label": "2.5", "r_order": 2.5, "nodes": "1", "n": 1},
        {"r_label": "5", "r_order": 5.0, "nodes": "1", "n": 2},
        {"r_label": "no", "r_order": 1e9, "nodes": "1", "n": 1}]
