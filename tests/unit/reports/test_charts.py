"""Chart builders: snapshot of every chart's Vega-Lite spec, and the rules every chart
obeys (a title, a caption, axis titles with units, no NaN, bounded data).

The snapshots live in ``tests/snapshots/reports/<chart>.json``. After an intended
change of a chart, refresh them and review the diff::

    PERFWAREHOUSE_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/unit/reports/test_charts.py
    git diff tests/snapshots/

A missing snapshot fails the test (it is never written silently on a normal run).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np
import polars as pl
import pytest

from perfwarehouse.reports import (
    charts,
    fleet_charts,
    load_charts,
    order_effects_charts,
    triscale_charts,
    variability_charts,
)

SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots" / "reports"
UPDATE = os.environ.get("PERFWAREHOUSE_UPDATE_SNAPSHOTS") == "1"


# ------------------------------------------------------------- sample tables
def _order_rows(n: int = 12) -> pl.DataFrame:
    rng = np.random.default_rng(5)
    p = np.concatenate([[0.0, 1e-40], rng.uniform(1e-9, 1, n - 2)])
    return pl.DataFrame({
        "config": [f"bench-{i} threads={i % 3}" for i in range(n)],
        "hardware_type": ["c220g2" if i % 2 else "m510" for i in range(n)],
        "kw_p": p, "eta2": np.round(rng.uniform(-0.05, 0.6, n), 4),
        "significant": p < 0.05 / n,
        "group": ["camp-a" if i < n // 2 else "camp-b" for i in range(n)],
        "delta_pct": np.round(rng.normal(0, 5, n), 3),
    })


def chart_order_pvalues() -> alt.TopLevelMixin:
    return order_effects_charts.order_pvalues_effects(_order_rows(), alpha_family=0.05 / 12,
                                        title="Kruskal-Wallis p-values and η²_H, camp-a")


def chart_order_delta() -> alt.TopLevelMixin:
    return order_effects_charts.order_delta_curve(_order_rows(), title="Δ% of every configuration")


def chart_ci_examples() -> alt.TopLevelMixin:
    rows = []
    for case, (mf, mr) in zip(order_effects_charts.CI_CASES[:3], [(10.0, 12.0), (10.0, 10.1), (10.0, 10.6)]):
        rows += [{"case_label": case, "config": f"cfg {case[:6]}", "unit": "MB/s",
                  "order_kind": "fixed", "median": mf, "low": mf - 0.5, "high": mf + 0.5,
                  "confidence_pct": 99.5},
                 {"case_label": case, "config": f"cfg {case[:6]}", "unit": "MB/s",
                  "order_kind": "random", "median": mr, "low": mr - 0.5, "high": mr + 0.5,
                  "confidence_pct": 99.5}]
    return order_effects_charts.ci_examples(pl.DataFrame(rows), title="One configuration per CI case")


def chart_ci_case_counts() -> alt.TopLevelMixin:
    return order_effects_charts.ci_case_counts(pl.DataFrame({
        "group": ["a", "a", "a", "b", "b"],
        "case_label": [order_effects_charts.CI_CASES[0], order_effects_charts.CI_CASES[1], order_effects_charts.CI_CASES[3],
                       order_effects_charts.CI_CASES[0], order_effects_charts.CI_CASES[2]],
        "n": [5, 3, 1, 2, 7]}), title="Configurations in each CI case")


def chart_polluters() -> alt.TopLevelMixin:
    return order_effects_charts.polluters(pl.DataFrame({
        "hardware_type": ["c220g2", "c220g2", "m510"],
        "predecessor": ["npb-lu class=C threads=16", "stream", "membench-copy size=1GiB"],
        "victims": [73, 5, 12], "median_worse_pct": [19.9, 2.5, 7.0]}),
        title="The worst polluters per hardware type")


def chart_rsd_heatmap() -> alt.TopLevelMixin:
    return variability_charts.rsd_heatmap(pl.DataFrame({
        "benchmark": ["etcd-1", "etcd-1", "bleve-2", "bleve-2"],
        "hardware_type": ["aws-cpu", "gce-mem", "aws-cpu", "gce-mem"],
        "rsd_pct": [1.5, 12.0, 0.4, float("nan")], "n_configs": [1, 1, 2, 2]}),
        title="Median RSD per benchmark and hardware type")


def chart_hardware_ranking() -> alt.TopLevelMixin:
    return variability_charts.hardware_ranking(pl.DataFrame({
        "hardware_type": ["gce-mem", "aws-cpu", "bm"], "median_rsd_pct": [12.0, 3.5, 0.4],
        "p90_rsd_pct": [30.0, 8.0, 1.1], "configurations": [19, 19, 19]}),
        title="Hardware types ranked by variability")


def chart_rsd_sources() -> alt.TopLevelMixin:
    return variability_charts.rsd_sources(pl.DataFrame({
        "group": ["aws-cpu"] * 3 + ["bm"] * 3,
        "source": ["between nodes", "between runs", "within runs"] * 2,
        "share_pct": [60.0, 10.0, 30.0, 5.0, 5.0, 90.0], "n_configs": [19] * 6}),
        title="Where the variance comes from")


def chart_rsd_components() -> alt.TopLevelMixin:
    return variability_charts.rsd_components(pl.DataFrame({
        "config": ["etcd-1"] * 3 + ["log4j2-5"] * 3,
        "hardware_type": ["gce-mem"] * 3 + ["aws-cpu"] * 3,
        "component": ["total", "per node", "per run"] * 2,
        "rsd_pct": [20.0, 12.0, 4.0, 9.0, 8.0, 7.0], "low_pct": [20.0, 8.0, 3.0, 9.0, 6.0, 5.0],
        "high_pct": [20.0, 16.0, 5.0, 9.0, 10.0, 9.0]}), title="Most variable configurations")


def _detectable() -> pl.DataFrame:
    return pl.DataFrame({
        "row": ["etcd-1 · 1 node"] * 3 + ["etcd-1 · 20 nodes"] * 3,
        "hardware_type": ["aws", "gce", "bm"] * 2,
        "detectable_pct": [10.0, None, 1.0, 2.0, 50.0, None],
        "text": ["10", "no", "1", "2", "50", "–"],
        "status": ["detectable", "none", "detectable", "detectable", "detectable",
                   "insufficient"]})


def chart_detectable_heatmap() -> alt.TopLevelMixin:
    return variability_charts.detectable_heatmap(_detectable(), title="Minimal detectable regression",
                                     strategy_text="instance-based sampling")


def chart_detectable_distribution() -> alt.TopLevelMixin:
    return variability_charts.detectable_distribution(pl.DataFrame({
        "r_label": ["1", "10", "no", "2"], "r_order": [1.0, 10.0, 1e9, 2.0],
        "nodes": ["1", "1", "1", "20"], "n": [3, 5, 2, 9]}),
        title="How small a regression can be found", strategy_text="trial-based sampling")


def chart_aa() -> alt.TopLevelMixin:
    return variability_charts.aa_false_positives(pl.DataFrame({
        "strategy": ["instance", "trial"], "nodes": ["1", "20"], "q0": [0.0, 0.0],
        "q1": [20.0, 2.0], "q2": [50.0, 4.0], "q3": [70.0, 6.0], "q4": [100.0, 11.0],
        "n": [190, 190]}), title="A/A false-positive rate")


def chart_fp_tp() -> alt.TopLevelMixin:
    return variability_charts.fp_tp_curves(pl.DataFrame({
        "r_pct": [1.0, 10.0, 100.0] * 2, "group": ["trial · 20 nodes"] * 6,
        "rate": ["false positives"] * 3 + ["true positives"] * 3,
        "rate_pct": [30.0, 2.0, 0.0, 40.0, 97.0, 100.0]}), title="Mean FP and TP rate")


def chart_convergence() -> alt.TopLevelMixin:
    x = np.arange(8.0)
    return triscale_charts.convergence_run(
        pl.DataFrame({"x": x, "value": 10 + np.sin(x)}),
        pl.DataFrame({"x": [2.0, 3.0, 4.0, 5.0], "measure": [10.1, 10.2, 10.0, 10.1]}),
        pl.DataFrame({"x": [2.0, 3.5, 5.0], "fit": [10.0, 10.1, 10.2],
                      "low": [9.9, 10.1, 10.1], "high": [10.1, 10.1, 10.3],
                      "tol_low": [9.8, 10.1, 10.0], "tol_high": [10.2, 10.1, 10.4]}),
        title="bleve-1 on aws: converged", unit="ns/op", measure="window median",
        x_title="iteration within the trial (index)")


def chart_kpi() -> alt.TopLevelMixin:
    return triscale_charts.kpi_chart(pl.DataFrame({
        "label": ["a", "a", "a", "b"], "kind": ["metric", "metric", "KPI", "KPI"],
        "value_pct": [-1.0, 1.0, 2.5, 4.0], "independent": ["yes", "yes", "yes", "no"]}),
        title="KPIs")


def chart_variability_scores() -> alt.TopLevelMixin:
    return triscale_charts.variability_scores(pl.DataFrame({
        "label": ["a", "b"], "low_pct": [-3.0, -0.5], "high_pct": [3.0, 0.5],
        "relative_pct": [6.0, 1.0], "independent": ["yes", "no"]}), title="Variability scores")


def chart_acf() -> alt.TopLevelMixin:
    lag = np.arange(6.0)
    return triscale_charts.autocorrelation(
        pl.DataFrame({"lag": lag / 2, "acf": [1.0, 0.5, 0.7, 0.1, -0.2, 0.0],
                      "band": [0.3] * 6}),
        pl.DataFrame({"lag": [1.0], "label": ["1 day"]}), title="Autocorrelation",
        lag_unit="days")


def _fleet() -> pl.DataFrame:
    return pl.DataFrame({
        "hardware_type": ["c220g2", "c220g2", "m510"], "config": ["a", "b", "c"],
        "slope_pct": [2.5, 0.1, -1.5], "low_pct": [1.0, -0.5, -2.0],
        "high_pct": [4.0, 0.7, -1.0], "drifting": [True, False, True],
        "rsd_prev_pct": [1.0, 2.0, 0.5], "rsd_now_pct": [1.5, 1.9, 0.0]})


def chart_drift_overview() -> alt.TopLevelMixin:
    return fleet_charts.drift_overview(_fleet(), title="Trend of every configuration")


def chart_drift_top() -> alt.TopLevelMixin:
    return fleet_charts.drift_top(_fleet().filter(pl.col("drifting")), title="Strongest drifts")


def chart_values_over_time() -> alt.TopLevelMixin:
    return fleet_charts.values_over_time(pl.DataFrame({
        "series": ["c220g2 · a"] * 3 + ["m510 · c"] * 3, "day": [0.5, 10.0, 20.0] * 2,
        "value_pct": [-1.0, 0.5, 2.0, 0.2, -0.3, 0.1],
        "trend_pct": [-1.2, 0.1, 1.4, 0.0, 0.0, 0.0]}), title="Values over time")


def chart_order_changes() -> alt.TopLevelMixin:
    return fleet_charts.order_dependence_changes(pl.DataFrame({
        "hardware_type": ["c220g2", "c220g2", "m510"], "change": ["new", "resolved", "persisting"],
        "n": [3, 1, 4]}), title="Order dependence now and before")


def chart_variability_change() -> alt.TopLevelMixin:
    return fleet_charts.variability_change(_fleet(), title="RSD now against before")


def chart_variability_by_type() -> alt.TopLevelMixin:
    return fleet_charts.variability_by_type(pl.DataFrame({
        "hardware_type": ["c220g2", "c220g2"], "period": ["previous", "this"],
        "rsd_pct": [1.0, 1.2]}), title="Median RSD per hardware type")


# ------------------------------------------- workbench (load report, Shivam et al. 2008)
def chart_search_trace() -> alt.TopLevelMixin:
    loads = {"s-0": [50.0, 50.0, 100.0, 100.0, 200.0, 150.0, 150.0, 150.0],
             "s-1": [140.0, 140.0, 280.0, 210.0, 175.0, 175.0]}
    rows = []
    for search, policy, seeding, lam in (("s-0", "binsearch", "without seeding", 150.0),
                                         ("s-1", "model", "with seeding", 175.0)):
        for n, load in enumerate(loads[search], 1):
            rows.append({"policy": policy, "seeding": seeding, "search": search,
                         "label": f"c: cap={search}", "trial_number": n,
                         "load_factor": load / lam, "load": load, "unit": "req/s",
                         "step": n, "picked_by": "binsearch",
                         "outcome": "failed" if load == 280.0 else "measured"})
    return load_charts.search_trace(pl.DataFrame(rows), title="Search trace")


def chart_policy_costs() -> alt.TopLevelMixin:
    return load_charts.policy_costs(pl.DataFrame({
        "group": ["binsearch, without seeding", "binsearch, with seeding", "linear, without seeding"],
        "seeding": ["without seeding", "with seeding", "without seeding"],
        "searches": [3, 5, 2], "trials": [13.0, 4.0, 26.5], "generator_s": [130.0, 40.0, 265.0],
        "loads": [5.0, 1.0, 10.0]}), title="Cost of a search per policy")


def chart_surface_heatmap() -> alt.TopLevelMixin:
    cells = [(a, b, 100 + 40 * a + 20 * b) for a in (1.0, 2.0, 3.0) for b in (1.0, 2.0)]
    measured = {(1.0, 1.0): 158.0, (3.0, 2.0): 262.0, (2.0, 1.0): 201.0}
    return load_charts.surface_heatmap(pl.DataFrame({
        "x": [c[0] for c in cells], "y": [c[1] for c in cells],
        "estimate": [float(c[2]) for c in cells],
        "measured": [measured.get((c[0], c[1])) for c in cells],
        "label": [f"{c[2]:.0f}" for c in cells],
        "sample": ["measured sample" if (c[0], c[1]) in measured else None for c in cells]}),
        title="Predicted λ* over a and b", x_title="a", y_title="b", unit="req/s",
        n_samples=3, loo_mape=0.042, r_squared=0.99)


CHARTS: dict[str, Callable[[], alt.TopLevelMixin]] = {
    name[len("chart_"):]: fn for name, fn in sorted(globals().items())
    if name.startswith("chart_") and callable(fn)}


# ------------------------------------------------------------------- helpers
def encodings(spec: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every (channel, definition) of every encoding in a (nested) spec."""
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "encoding" and isinstance(value, dict):
                out += [(ch, d) for ch, d in value.items() if isinstance(d, dict)]
            elif key != "datasets":
                out += encodings(value)
    elif isinstance(spec, list):
        for item in spec:
            out += encodings(item)
    return out


def axis_titles(spec: dict[str, Any]) -> dict[str, list[tuple[str | None, str]]]:
    """(title, type) of the first x and y field of each layer."""
    titles: dict[str, list[tuple[str | None, str]]] = {"x": [], "y": []}
    for channel, definition in encodings(spec):
        if channel in titles and "field" in definition:
            titles[channel].append((definition.get("title"), definition.get("type", "")))
    return titles


def numbers(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in numbers(v)]
    return []


# --------------------------------------------------------------------- tests
@pytest.mark.parametrize("name", sorted(CHARTS))
def test_chart_matches_snapshot(name: str) -> None:
    spec = CHARTS[name]().to_dict()
    path = SNAPSHOTS / f"{name}.json"
    text = json.dumps(spec, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), (f"no snapshot {path.name}; create it with "
                           "PERFWAREHOUSE_UPDATE_SNAPSHOTS=1 and review it")
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(text)


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_chart_has_title_caption_and_axis_titles(name: str) -> None:
    spec = CHARTS[name]().to_dict()
    title = spec.get("title")
    assert title and (title if isinstance(title, str) else title.get("text"))
    caption = spec.get("description", "")
    assert caption.endswith(".") and len(caption) > 60 and caption.count(". ") == 0, \
        "the caption is one sentence on how to read the chart"
    titles = axis_titles(spec)
    assert titles["x"] and titles["y"]
    for channel, found in titles.items():
        for t, kind in found[:1]:  # a layer's first field titles the shared axis
            assert t, f"{channel} axis of {name} has no title"
            if kind == "quantitative":
                assert "(" in t and t.endswith(")"), \
                    f"{channel} axis of {name} needs its unit in parentheses: {t!r}"


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_chart_data_are_finite(name: str) -> None:
    spec = CHARTS[name]().to_dict()
    assert all(math.isfinite(v) for v in numbers(spec.get("datasets", {})))


def test_thin_sorted_keeps_ends_and_spacing() -> None:
    df = pl.DataFrame({"v": np.arange(10_000)})
    thin = charts.thin_sorted(df, 101)
    assert thin.height == 101
    assert thin["v"][0] == 0 and thin["v"][-1] == 9999
    assert set(np.diff(thin["v"].to_numpy())) <= {99, 100}
    assert charts.thin_sorted(df.head(50), 101).height == 50


def test_pvalue_chart_is_capped_and_floors_zero() -> None:
    n = 20_000
    rows = pl.DataFrame({"config": [f"c{i}" for i in range(n)], "hardware_type": ["h"] * n,
                         "kw_p": np.linspace(0, 1, n), "eta2": np.linspace(1, 0, n),
                         "significant": [False] * n})
    spec = order_effects_charts.order_pvalues_effects(rows, alpha_family=1e-5, title="t",
                                        max_points=500).to_dict()
    data = [d for d in spec["datasets"].values() if d and "p_shown" in d[0]][0]
    assert len(data) == 500
    assert min(d["p_shown"] for d in data) == order_effects_charts.P_FLOOR
    assert [d["rank"] for d in data] == sorted(d["rank"] for d in data)


def test_config_labels_show_only_what_differs() -> None:
    labels = charts.config_labels(
        ["stream", "stream", "npb-cg"],
        ['{"threads":1,"socket":0}', '{"threads":8,"socket":0}', '{"threads":1,"socket":0}'],
        ["copy", "triad", "runtime"])
    assert labels == ["stream threads=1 [copy]", "stream threads=8 [triad]",
                      "npb-cg threads=1 [runtime]"]
    assert charts.config_labels(["./a.sh", "./b.sh"], ["{}", "{}"], ["result", "result"]) == \
        ["./a.sh", "./b.sh"]
    long = charts.config_labels(["x" * 200], [None], None, max_len=20)[0]
    assert len(long) == 20 and long.endswith("…")
    # text that is not JSON is shown when it differs
    assert charts.config_labels(["a", "a"], ["-O2", "-O3"], None) == ["a -O2", "a -O3"]
