"""The detectable-regression sections of the variability page (:mod:`perfwarehouse.
reports.variability`): from ``detectable_regression`` and its curve, the smallest
regression each configuration can detect, as heatmaps (Laaber et al., Tables 6-7) and
distributions (Figures 8-9)."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import variability_charts
from perfwarehouse.reports.page import (
    Figure,
    Missing,
    Notice,
    Section,
    Table,
)

MAX_HEATMAP_CONFIGS = 40
"""More configurations than this: the heatmap shows benchmarks (the median
configuration of each), so a large campaign still gives a readable table."""
MAX_HEATMAP_ROWS_AGGREGATED = 40
STRATEGIES = {
    "instance": ("Instance-based sampling (Laaber et al. (PeerJ Preprints 2018) Table 6, Figure 8)",
                 "instance-based sampling (control and test on different nodes, one trial each)"),
    "trial": ("Trial-based sampling (Laaber et al. (PeerJ Preprints 2018) Table 7, Figure 9)",
              "trial-based sampling (the same nodes for control and test, several trials each)"),
}


# ------------------------------------------------------ detectable regressions
def mode_notice(df: pl.DataFrame, modes: set[str]) -> Notice | None:
    """What the page must say about higher-is-better metrics (throughput): how they were
    compared, with the counts."""
    hib = df.filter(pl.col("higher_is_better").fill_null(False)
                    & (pl.col("status") != "insufficient"))
    if hib.height == 0:
        return None
    none = count(hib.filter(pl.col("status") == "none"))
    counts = (f"{none:,} of {count(hib):,} higher-is-better configuration cells cannot "
              "detect even 100 %")
    if modes == {"cost"}:
        return Notice(
            "Higher-is-better metrics (throughput) are compared as costs (1/value, "
            "--higher-is-better-mode cost, the default): a regression of r % means the cost per "
            f"unit of work grows by r %, exactly as for a time. {counts}.")
    return Notice(
        "Higher-is-better metrics were slowed by division (--higher-is-better-mode divide): at "
        "r = 100 % a halved throughput moves by exactly the r/2 % threshold, so such "
        f"configurations come out 'none' by construction, not because the regression is "
        f"undetectable ({counts}); rerun `perfwarehouse analyze detectable-regression` "
        "without --higher-is-better-mode divide.", "missing")


def detectable_sections(df: pl.DataFrame, curve: pa.Table | Missing,
                        modes: set[str] | None = None,
                        counts: pl.DataFrame | None = None) -> list[Section]:
    """The sections from the heatmaps' rows ``df`` (every row, or those
    ``report_detectable_heatmap.sql`` keeps) and the ``counts`` of every cell
    (``report_detectable_counts.sql``; default: ``df``'s rows)."""
    counts = df if counts is None else counts
    sections = []
    for strategy, (title, text) in STRATEGIES.items():
        part = df.filter(pl.col("strategy") == strategy)
        counted = counts.filter(pl.col("strategy") == strategy)
        if counted.height == 0:
            continue
        blocks: list[Figure | Notice | Table] = []
        configs = configurations(counted if "configs" in counted.columns else part)
        heat, aggregated = heatmap_rows(part, configs)
        if aggregated:
            blocks.append(Notice(
                f"{configs:,} configurations: each cell shows the median "
                "configuration of a benchmark on that hardware type ('no' when more than half "
                "cannot detect 100 %)."))
        blocks.append(Figure(variability_charts.detectable_heatmap(
            heat, title=f"Minimal detectable regression, {text.split(' (')[0]}",
            strategy_text=text), f"detectable-{strategy}"))
        dist = distribution(counted)
        if dist.height:
            blocks.append(Figure(variability_charts.detectable_distribution(
                dist, title=f"How small a regression can be found, {text.split(' (')[0]}",
                strategy_text=text), f"detectable-distribution-{strategy}"))
        insufficient = count(counted.filter(pl.col("status") == "insufficient"))
        if insufficient:
            blocks.append(Notice(f"{insufficient:,} cells had too few nodes or trials for "
                                 "their group size (shown as '–')."))
        sections.append(Section(title, "", tuple(blocks)))
    note = mode_notice(counts, modes or {"cost"})
    if note is not None and sections:
        first = sections[0]
        sections[0] = Section(first.title, first.intro, (note, *first.blocks))
    if isinstance(curve, Missing):
        sections.append(Section("False and true positives", "", (curve.notice(),)))
    else:
        c = pl.from_arrow(curve)
        assert isinstance(c, pl.DataFrame)
        long = (c.with_columns(group=pl.col("strategy") + pl.lit(" · ")
                               + nodes_text(pl.col("n_nodes")))
                .group_by(["group", "r_pct"])
                .agg(pl.col("fp_rate_pct").mean().alias("false positives"),
                     pl.col("tp_rate_pct").mean().alias("true positives"))
                .unpivot(index=["group", "r_pct"], variable_name="rate", value_name="rate_pct")
                .sort(["group", "rate", "r_pct"]))
        sections.append(Section(
            "False and true positives against the regression size",
            "Laaber et al. (PeerJ Preprints 2018) Figures 6 and 7, averaged over every configuration and hardware type.",
            (Figure(variability_charts.fp_tp_curves(long, title="Mean FP and TP rate per regression tested"),
                    "fp-tp"),)))
    return sections


def count(rows: pl.DataFrame) -> int:
    """The cells ``rows`` stand for: one each, or ``n`` each when they were counted in
    DuckDB (``report_detectable_counts.sql``: one row per distinct value, issue 44)."""
    return int(rows["n"].sum()) if "n" in rows.columns else rows.height


def configurations(part: pl.DataFrame) -> int:
    """The configurations of one strategy's rows (``configs``, counted in DuckDB by
    ``report_detectable_counts.sql`` and ``report_detectable_heatmap.sql``)."""
    if "configs" in part.columns and part.height:
        return int(part["configs"][0])
    return part["config"].n_unique()


def heatmap_rows(part: pl.DataFrame, configs: int | None = None
                 ) -> tuple[pl.DataFrame, bool]:
    """Rows ``configuration · k nodes`` (or ``benchmark · k nodes`` when there are too
    many configurations: ``configs``, default :func:`configurations`) × hardware type, with
    the cell text (the number, ``no``, ``–``)."""
    aggregated = (configurations(part) if configs is None else configs) > MAX_HEATMAP_CONFIGS
    key = "benchmark" if aggregated else "config"
    if aggregated:
        # median over the benchmark's configurations, "none" counted as above 100 %
        part = (part.filter(pl.col("status") != "insufficient")
                .with_columns(r=pl.when(pl.col("status") == "none").then(pl.lit(float("inf")))
                              .otherwise(pl.col("detectable_pct")))
                .group_by(["benchmark", "n_nodes", "hardware_type"])
                .agg(r=pl.col("r").sort().get((pl.len() - 1) // 2))
                .with_columns(
                    status=pl.when(pl.col("r").is_infinite()).then(pl.lit("none"))
                    .otherwise(pl.lit("detectable")),
                    detectable_pct=pl.when(pl.col("r").is_infinite()).then(None)
                    .otherwise(pl.col("r"))))
        keep = part["benchmark"].unique().sort().head(MAX_HEATMAP_ROWS_AGGREGATED)
        part = part.filter(pl.col("benchmark").is_in(keep.implode()))
    text = (pl.when(pl.col("status") == "insufficient").then(pl.lit("–"))
            .when(pl.col("detectable_pct").is_null()).then(pl.lit("no"))
            .otherwise(pl.col("detectable_pct").round(1).cast(pl.String)
                       .str.strip_suffix(".0")))
    rows = (part.with_columns(text=text,
                              detectable_pct=pl.when(pl.col("status") == "insufficient")
                              .then(None).otherwise(pl.col("detectable_pct")))
            .with_columns(row=pl.col(key) + pl.lit(" · ") + nodes_text(pl.col("n_nodes")))
            .sort([key, "n_nodes", "hardware_type"]))
    return rows.select("row", "hardware_type", "detectable_pct", "text", "status"), aggregated


def nodes_text(n: pl.Expr) -> pl.Expr:
    return n.cast(pl.String) + pl.when(n == 1).then(pl.lit(" node")).otherwise(pl.lit(" nodes"))


def distribution(part: pl.DataFrame) -> pl.DataFrame:
    """Counts of combinations per minimal detectable regression and number of nodes."""
    usable = part.filter(pl.col("status") != "insufficient")
    out = (usable.with_columns(
        r_label=pl.when(pl.col("detectable_pct").is_null()).then(pl.lit("no"))
        .otherwise(pl.col("detectable_pct").round(3).cast(pl.String).str.strip_suffix(".0")),
        r_order=pl.when(pl.col("detectable_pct").is_null()).then(pl.lit(1e9))
        .otherwise(pl.col("detectable_pct")))
        .group_by(["r_label", "r_order", "n_nodes"])
        .agg(n=pl.col("n").sum() if "n" in usable.columns else pl.len())
        .sort(["r_order", "n_nodes"])
        .with_columns(nodes=pl.col("n_nodes").cast(pl.String)))
    return out.select("r_label", "r_order", "nodes", "n")


