"""The pure helpers of the page modules: the order-effects CI examples; the
detectable-regression heatmap rows and counts. (TriScale's windows and convergence
geometry: tests/unit/triscale/test_convergence_view.py.)"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from perfwarehouse.reports import (
    charts,
    order_effects,
    order_effects_charts,
    triscale_charts,
    variability,
    variability_charts,
    variability_detect,
)


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
    assert df["case_label"].to_list()[3] == order_effects_charts.CI_CASES[3]
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
    monkeypatch.setattr(variability_detect, "MAX_HEATMAP_CONFIGS", 2)
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


# ------------------------------------------------- verdicts, polluters, formats
def _predecessors() -> pl.DataFrame:
    """Six configurations on two hardware types; the worst predecessor of each, with
    the metric's direction and both tests' outcomes."""
    return pl.DataFrame({
        "campaign": ["c"] * 6, "hardware_type": ["h1"] * 4 + ["h2"] * 2,
        "config": [f"cfg{i}" for i in range(6)],
        "worst_predecessor_benchmark": ["npb-lu", "npb-lu", "npb-lu", "stream", "npb-lu",
                                        None],
        "worst_predecessor_settings": ['{"class":"C","threads":16}'] * 3 + ["{}", "{}", None],
        "worst_is_run_start": [False, False, False, False, False, True],
        "higher_is_better": [False, False, True, False, False, False],
        # cfg2 is a throughput that went *up* after npb-lu: better, not a victim
        "shift_pct": [19.9, 10.0, 5.0, 3.0, 8.0, 40.0],
        "low_pct": [15.0, 8.0, 4.0, 1.0, 6.0, 30.0], "high_pct": [25.0, 12.0, 6.0, 5.0, 9.0,
                                                                    50.0],
        "reject_bonferroni": [True, True, True, True, False, True],
        "mwu_p_adjusted": [1e-9, 1e-4, 1e-6, 0.5, 1e-9, 1e-9], "alpha": [0.05] * 6,
    })


def test_polluter_leaderboard_counts_significant_worse_victims_with_full_names() -> None:
    df = order_effects.prepare_predecessors(_predecessors())
    board = order_effects.polluter_leaderboard(df)
    rows = board.to_dicts()
    # cfg0, cfg1: victims of npb-lu on h1; cfg2 got better (throughput up); cfg3's
    # adjusted p is 0.5; cfg5 follows the run start; cfg4 (h2) is a victim although the
    # Kruskal-Wallis test across predecessors does not reject: that test is not required
    # (issue 30: with ~150 predecessors it has no power and hid every planted polluter)
    assert rows == [{"hardware_type": "h1", "predecessor": "npb-lu class=C threads=16",
                     "victims": 2, "median_worse_pct": pytest.approx(14.95),
                     "max_worse_pct": 19.9, "campaigns": "c", "worst_victim": "cfg0"},
                    {"hardware_type": "h2", "predecessor": "npb-lu", "victims": 1,
                     "median_worse_pct": 8.0, "max_worse_pct": 8.0, "campaigns": "c",
                     "worst_victim": "cfg4"}]
    assert df.filter(pl.col("config") == "cfg2")["worse_pct"].item() == -5.0
    assert df.filter(pl.col("config") == "cfg2")["worse_low_pct"].item() == -6.0


def test_order_effects_verdict_names_counts_where_and_the_worst_polluter() -> None:
    df = pl.DataFrame({"hardware_type": ["c220g5", "c220g5", "c240g5", "m510"],
                       "benchmark": ["stream", "stream", "stream", "npb-cg"],
                       "significant": [True, True, True, False]})
    board = order_effects.polluter_leaderboard(order_effects.prepare_predecessors(
        _predecessors()))
    v = order_effects.verdict(df, board)
    assert v.level == "alarm"
    assert v.text.startswith("Order matters in 3 of 4 configurations, mostly stream on c220g5 "
                             "and c240g5: randomise the order")
    assert "Worst polluter: npb-lu class=C threads=16 on h1 (2 victims, median +14.9 % worse)" \
        in v.text or "(2 victims, median +15.0 % worse)" in v.text
    one = order_effects.verdict(df, board.with_columns(victims=pl.lit(1, pl.UInt32)))
    assert "(1 victim, median" in one.text
    quiet = order_effects.verdict(df.with_columns(significant=pl.lit(False)), board.head(0))
    assert quiet.level == "ok" and "any of the 4 configurations" in quiet.text
    assert order_effects.verdict(None, None).level == "missing"


@pytest.mark.parametrize(("pct", "text"), [
    (95.0, "95"), (99.0, "99"), (99.5, "99.5"), (99.997, "99.997"), (99.99734, "99.997"),
    (99.9999, "99.9999"), (100.0, "100"), (90.12, "90.12")])
def test_confidences_never_round_up_to_100(pct: float, text: str) -> None:
    assert charts.format_confidence(pct) == text


def test_ci_axis_says_the_true_confidence() -> None:
    rows = pl.DataFrame({"case_label": [order_effects_charts.CI_CASES[0]] * 2, "config": ["a"] * 2,
                         "unit": ["s"] * 2, "order_kind": ["fixed", "random"],
                         "median": [1.0, 2.0], "low": [0.9, 1.9], "high": [1.1, 2.1],
                         "confidence_pct": [99.997, 99.997]})
    spec = str(order_effects_charts.ci_examples(rows, title="t").to_dict())
    assert "99.997 % CI" in spec and "100 % CI" not in spec


def test_kpi_caption_says_what_is_drawn() -> None:
    only_kpis = pl.DataFrame({"label": ["a"], "kind": ["KPI"], "value_pct": [2.0],
                              "independent": ["yes"]})
    caption = triscale_charts.kpi_chart(only_kpis, title="t").to_dict()["description"]
    assert "tick" not in caption.lower() and "diamond" in caption
    with_runs = pl.concat([only_kpis, pl.DataFrame({
        "label": ["a"], "kind": ["metric"], "value_pct": [0.5], "independent": ["yes"]})])
    spec = triscale_charts.kpi_chart(with_runs, title="t").to_dict()
    assert "Grey ticks" in spec["description"]
    assert any(layer["mark"].get("type") == "tick" for layer in spec["layer"])


def test_rsd_heatmap_scale_spans_the_data() -> None:
    """Not uniformly one colour: the log scale runs from the data's 5th to its 95th
    percentile, so cells of 2 % and 20 % differ even when every RSD is above 1 %."""
    df = pl.DataFrame({"benchmark": [f"b{i}" for i in range(20)], "hardware_type": ["h"] * 20,
                       "rsd_pct": list(np.geomspace(2, 20, 20)), "n_configs": [1] * 20})
    spec = variability_charts.rsd_heatmap(df, title="t").to_dict()
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert scale["type"] == "log" and scale["scheme"] == "viridis"
    lo, hi = scale["domain"]
    assert 2 <= lo < 3 and 15 < hi <= 20


def test_node_counts_sort_as_numbers() -> None:
    assert charts.numeric_sort(["1", "20", "5"]) == ["1", "5", "20"]
    spec = variability_charts.detectable_distribution(pl.DataFrame({
        "r_label": ["1", "1", "1"], "r_order": [1.0] * 3, "nodes": ["1", "20", "5"],
        "n": [1, 2, 3]}), title="t", strategy_text="s").to_dict()
    assert spec["encoding"]["color"]["sort"] == ["1", "5", "20"]


def test_variability_verdict_ranks_hardware_types() -> None:
    df = pl.DataFrame({"hardware_type": ["aws", "aws", "bm", "gce"],
                       "rsd_total_pct": [10.0, 30.0, 0.5, 4.0],
                       "share_nodes_pct": [50.0, 60.0, 5.0, 20.0]})
    ranking = variability.hardware_ranking(df)
    assert ranking["hardware_type"].to_list() == ["aws", "gce", "bm"]
    detect = pl.DataFrame({"strategy": ["trial"] * 3 + ["instance"],
                           "n_nodes": [20, 20, 1, 20],
                           "status": ["detectable", "none", "detectable", "detectable"],
                           "detectable_pct": [5.0, None, 50.0, 2.0]})
    v = variability.verdict(ranking, detect)
    assert v.text == ("The most variable hardware type is aws (median RSD 20 % over 2 "
                      "configurations), the least bm (0.5 %); compare performance only within "
                      "one hardware type. With trial-based sampling on 20 nodes, the median "
                      "configuration detects a 5 % slowdown; 1 of 2 benchmark settings with "
                      "hardware type cannot detect even 100 %.")
