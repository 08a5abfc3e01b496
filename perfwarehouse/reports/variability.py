"""The variability report (Laaber et al., PeerJ Preprints 2018, §4).

From ``variability``: the RSD per benchmark and hardware type and where the
variance comes from (nodes, runs, the benchmark itself); from ``aa_fpr``: how often
an A/A test cries wolf; from ``detectable_regression`` (and its curve): the smallest
regression each configuration can detect, as heatmaps (Tables 6-7) and
distributions (Figures 8-9).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts, variability_charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.columns import CONFIGURATION_COLUMNS, col
from perfwarehouse.reports.page import (
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    capped_table,
)
from perfwarehouse.reports.variability_detect import (
    MAX_HEATMAP_CONFIGS,
    MAX_HEATMAP_ROWS_AGGREGATED,
    count,
    detectable_sections,
)
from perfwarehouse.reports.variability_detect import distribution as distribution
from perfwarehouse.reports.variability_detect import heatmap_rows as heatmap_rows

TOP_VARIABLE = 30
MAX_RSD_HEATMAP_BENCHMARKS = 60
"""Benchmarks (rows) of the RSD heatmap at most: the most variable ones (by their largest
median RSD over hardware types), with a note saying how many were left out. A heatmap of
every benchmark of a campaign of 10^4 one-benchmark configurations was a chart of 10^4
rows that Altair refused (``MaxRowsError``, issue 44)."""

INTRO = (
    "How much do repeated measurements of the same code vary, where does the variation come "
    "from, and how large must a slowdown be before a performance test can tell it from noise? "
    "Following Laaber et al. (\"Performance Testing in the Cloud. How Bad is it Really?\"): the "
    "relative standard deviation (RSD = 100·σ/μ) per configuration and hardware type, A/A tests "
    "with the Wilcoxon rank-sum test, and the minimal detectable regression: the smallest "
    "slowdown r that is caught in at least 95 % of random draws while the r/2 % threshold "
    "flags at most 5 % of unchanged draws, for instance-based sampling (different nodes for "
    "control and test) and trial-based sampling (the same nodes, several trials each).")

@dataclass(frozen=True)
class VariabilityFrames:
    """What the page is built from (the read step's result): the rows of each analysis
    table (or the command that fills it), how higher-is-better metrics were compared, and
    the provenance lines."""

    rsd: pa.Table | Missing
    aa: pa.Table | Missing
    detect: pa.Table | Missing
    curve: pa.Table | Missing
    modes: frozenset[str]
    provenance: tuple[str, ...] = ()
    counts: pa.Table | None = None
    """Every detectable-regression cell, counted (``report_detectable_counts.sql``);
    ``detect`` then holds the heatmaps' rows only (``report_detectable_heatmap.sql``)."""


def build(data: ReportData, request: Request) -> Page:
    return build_page(read(data, request))


def read(data: ReportData, request: Request) -> VariabilityFrames:
    """The read step: the report queries, nothing computed."""
    lines: list[str] = []
    for job in ("variability", "aa-fpr", "detectable-regression"):
        lines += provenance(data.job_runs(job, request), job)
    modes = frozenset(json.loads(p or "{}").get("higher_is_better_mode", "divide") for p in
                      data.job_runs("detectable-regression", request).column("params")
                      .to_pylist())
    command = "perfwarehouse analyze detectable-regression"
    # counted in DuckDB, and the rows of the heatmaps only: 5 rows per configuration
    counts = data.results("detectable_regression", "detectable_counts", command, request)
    detect = counts if isinstance(counts, Missing) else data.query(
        "detectable_heatmap", campaign=request.campaign, max_configs=MAX_HEATMAP_CONFIGS,
        max_benchmarks=MAX_HEATMAP_ROWS_AGGREGATED)
    return VariabilityFrames(
        data.results("variability", "variability", "perfwarehouse analyze variability",
                     request),
        data.results("aa_fpr", "aa_fpr_summary", "perfwarehouse analyze aa-fpr", request),
        detect,
        data.results("detectable_regression_curve", "detectable_regression_curve", command,
                     request),
        modes, tuple(lines), None if isinstance(counts, Missing) else counts)


def build_page(frames: VariabilityFrames) -> Page:
    """The page from the read step's frames (pure)."""
    sections: list[Section] = []
    ranking = None
    if isinstance(frames.rsd, Missing):
        sections.append(Section("Variability (RSD)", "", (frames.rsd.notice(),)))
    else:
        df = charts.labelled(frames.rsd)
        ranking = hardware_ranking(df)
        sections.extend(rsd_sections(df, ranking))
    sections.append(aa_section(frames.aa))
    detect_df = None
    if isinstance(frames.detect, Missing):
        sections.append(Section("Detectable regressions", "", (frames.detect.notice(),)))
    else:
        detect_df = charts.labelled(frames.detect)
        if frames.counts is not None:
            counted = pl.from_arrow(frames.counts)
            assert isinstance(counted, pl.DataFrame)
            detect_df, heat = counted, detect_df
        else:
            heat = detect_df
        sections.extend(detectable_sections(heat, frames.curve, set(frames.modes),
                                            counts=detect_df))
    return Page("Variability and detectable regressions", INTRO, tuple(sections),
                frames.provenance, name="variability", verdict=verdict(ranking, detect_df))


def hardware_ranking(df: pl.DataFrame) -> pl.DataFrame:
    """Hardware types from the most to the least variable: the median (and 90th
    percentile) of their configurations' total RSD, and the mean share of the variance
    between nodes."""
    return (df.filter(pl.col("rsd_total_pct").is_not_null())
            .group_by("hardware_type")
            .agg(configurations=pl.len(), median_rsd_pct=pl.col("rsd_total_pct").median(),
                 p90_rsd_pct=pl.col("rsd_total_pct").quantile(0.9, "linear"),
                 share_nodes_pct=pl.col("share_nodes_pct").mean())
            .sort(["median_rsd_pct", "hardware_type"], descending=[True, False])
            .with_columns(rank=pl.int_range(1, pl.len() + 1)))


def detect_cell(detect: pl.DataFrame) -> tuple[str, int] | None:
    """The cell the verdict quotes: trial-based sampling with the most nodes that could
    be drawn (else instance-based)."""
    usable = detect.filter(pl.col("status") != "insufficient")
    for strategy in ("trial", "instance"):
        nodes = usable.filter(pl.col("strategy") == strategy)["n_nodes"]
        if nodes.len():
            return strategy, int(nodes.max())  # type: ignore[arg-type]
    return None


def verdict(ranking: pl.DataFrame | None, detect: pl.DataFrame | None) -> Verdict:
    parts = []
    if ranking is not None and ranking.height:
        top = ranking.row(0, named=True)
        text = (f"The most variable hardware type is {top['hardware_type']} (median RSD "
                f"{top['median_rsd_pct']:.2g} % over {top['configurations']:,} configurations)")
        if ranking.height > 1:
            low = ranking.row(-1, named=True)
            text += (f", the least {low['hardware_type']} ({low['median_rsd_pct']:.2g} %); "
                     "compare performance only within one hardware type")
        parts.append(text + ".")
    if detect is not None:
        cell = detect_cell(detect)
        if cell is not None:
            strategy, k = cell
            part = detect.filter((pl.col("strategy") == strategy) & (pl.col("n_nodes") == k)
                                 & (pl.col("status") != "insufficient"))
            found = part.filter(pl.col("status") == "detectable").select(
                pl.col("detectable_pct").repeat_by(pl.col("n")).explode()
                if "n" in part.columns else pl.col("detectable_pct"))["detectable_pct"]
            none = count(part.filter(pl.col("status") == "none"))
            if part.height:
                median = (f"{float(found.median()):.3g} %"  # type: ignore[arg-type]
                          if found.len() else "no regression")
                parts.append(
                    f"With {strategy}-based sampling on {k} node{'s' if k != 1 else ''}, the "
                    f"median configuration detects a {median} slowdown; {none:,} of "
                    f"{count(part):,} benchmark settings with hardware type cannot detect "
                    "even 100 %.")
    if not parts:
        return Verdict("Not analysed yet: run `perfwarehouse analyze variability` and "
                       "`analyze detectable-regression`, then write this report again.",
                       "missing")
    return Verdict(" ".join(parts), "info")


# ---------------------------------------------------------------------- RSD
def most_variable_benchmarks(heat: pl.DataFrame, limit: int) -> tuple[pl.DataFrame, int]:
    """The heatmap's rows of the ``limit`` benchmarks with the largest median RSD on any
    hardware type (ties by name), in ``heat``'s order, and how many benchmarks were left
    out."""
    ranked = (heat.group_by("benchmark").agg(top=pl.col("rsd_pct").max())
              .sort(["top", "benchmark"], descending=[True, False], nulls_last=True))
    if ranked.height <= limit:
        return heat, 0
    keep = ranked["benchmark"].head(limit)
    return heat.filter(pl.col("benchmark").is_in(keep.implode())), ranked.height - limit


def rsd_sections(df: pl.DataFrame, ranking: pl.DataFrame) -> list[Section]:
    ok = df.filter(pl.col("rsd_total_pct").is_not_null())
    heat = (ok.group_by(["benchmark", "hardware_type"])
            .agg(rsd_pct=pl.col("rsd_total_pct").median(), n_configs=pl.len())
            .sort(["benchmark", "hardware_type"]))
    shares = (ok.filter(pl.col("share_nodes_pct").is_not_null())
              .group_by("hardware_type")
              .agg(pl.col("share_nodes_pct").mean().alias("between nodes"),
                   pl.col("share_runs_pct").mean().alias("between runs"),
                   pl.col("share_within_pct").mean().alias("within runs"),
                   n_configs=pl.len())
              .unpivot(index=["hardware_type", "n_configs"], variable_name="source",
                       value_name="share_pct")
              .rename({"hardware_type": "group"}).sort(["group", "source"]))
    top = ok.sort("rsd_total_pct", descending=True).head(TOP_VARIABLE)
    components = pl.concat([
        top.select("config", "hardware_type", component=pl.lit("total"),
                   rsd_pct=pl.col("rsd_total_pct"), low_pct=pl.col("rsd_total_pct"),
                   high_pct=pl.col("rsd_total_pct")),
        top.select("config", "hardware_type", component=pl.lit("per node"),
                   rsd_pct=pl.col("rsd_node_mean_pct"),
                   low_pct=(pl.col("rsd_node_mean_pct") - pl.col("rsd_node_sd_pct").fill_null(0))
                   .clip(lower_bound=0),
                   high_pct=pl.col("rsd_node_mean_pct") + pl.col("rsd_node_sd_pct").fill_null(0)),
        top.select("config", "hardware_type", component=pl.lit("per run"),
                   rsd_pct=pl.col("rsd_run_mean_pct"),
                   low_pct=(pl.col("rsd_run_mean_pct") - pl.col("rsd_run_sd_pct").fill_null(0))
                   .clip(lower_bound=0),
                   high_pct=pl.col("rsd_run_mean_pct") + pl.col("rsd_run_sd_pct").fill_null(0)),
    ]).filter(pl.col("rsd_pct").is_not_null())
    blocks: list[Figure | Table | Notice] = []
    if ranking.height:
        blocks.append(Figure(variability_charts.hardware_ranking(
            ranking, title="Hardware types ranked by variability"), "hardware-ranking"))
        blocks.append(Table(
            "Hardware types by variability", "Most variable first: the median and 90th "
            "percentile of the total RSD of the type's configurations, and the mean share of "
            "their variance that lies between nodes.",
            (col("rank"), col("hardware_type", key=True),
             col("configurations"),
             col("median_rsd_pct"),
             col("p90_rsd_pct"),
             col("share_nodes_pct_long")),
            ranking.to_arrow()))
    if heat.height:
        heat, left_out = most_variable_benchmarks(heat, MAX_RSD_HEATMAP_BENCHMARKS)
        blocks.append(Figure(variability_charts.rsd_heatmap(
            heat, title="Median RSD per benchmark and hardware type"), "rsd-heatmap"))
        if left_out:
            blocks.append(Notice(
                f"The heatmap shows the {heat['benchmark'].n_unique():,} most variable of the "
                f"campaign's {heat['benchmark'].n_unique() + left_out:,} benchmarks (by their "
                f"largest median RSD); the other {left_out:,} are left out of it. The table "
                "\"Variability of every configuration\" below lists the configurations, most "
                "variable first; all of them: perfwarehouse sql \"SELECT * FROM variability\"."))
    if shares.height:
        blocks.append(Figure(variability_charts.rsd_sources(
            shares, title="Where the variance comes from"), "rsd-sources"))
    if components.height:
        blocks.append(Figure(variability_charts.rsd_components(
            components, title=f"The {top.height} most variable configurations"),
            "rsd-components"))
    undefined = df.height - ok.height
    if undefined:
        blocks.append(Notice(f"{undefined:,} configurations have no RSD (see the reason column "
                             "of the table)."))
    ordered = df.sort("rsd_total_pct", descending=True, nulls_last=True)
    blocks.append(capped_table(
        "Variability of every configuration",
        "RSD = 100·σ/μ in %; per node / per run: the mean (± sd) of the RSD within one node / "
        "one run; shares: how the sum of squares splits between nodes, runs of a node and "
        "within runs (they add to 100 %).",
        (*CONFIGURATION_COLUMNS,
         col("n_values"), col("n_outliers"),
         col("n_nodes"), col("n_runs"),
         col("median"),
         col("rsd_total_pct"),
         col("rsd_node_mean_pct"),
         col("rsd_node_sd_pct"),
         col("rsd_run_mean_pct"),
         col("rsd_run_sd_pct"),
         col("share_nodes_pct"),
         col("share_runs_pct"),
         col("share_within_pct"),
         col("reason")),
        ordered))
    return [Section("Variability (RSD)",
                    "Laaber et al. (PeerJ Preprints 2018), §4.1: the relative standard deviation of each configuration "
                    "after removing outliers (values ≥ 10 × the median), and its sources.",
                    tuple(blocks))]


# -------------------------------------------------------------------- A/A
def aa_section(aa: pa.Table | Missing) -> Section:
    title = "A/A tests: false positives"
    intro = ("Laaber et al. (PeerJ Preprints 2018), §4.2.1: control and test samples drawn from the same "
             "configuration; every rejection by the rank-sum test at α = 0.05 is a false alarm.")
    if isinstance(aa, Missing):
        return Section(title, intro, (aa.notice(),))
    df = pl.from_arrow(aa)  # report_aa_fpr_summary.sql: the quartiles, aggregated there
    assert isinstance(df, pl.DataFrame)
    quantiles = (df.filter(pl.col("n") > 0).drop("missing")
                 .with_columns(nodes=pl.col("n_nodes").cast(pl.String)))
    blocks: list[Figure | Notice] = []
    if quantiles.height:
        blocks.append(Figure(variability_charts.aa_false_positives(
            quantiles, title="A/A false-positive rate by sampling strategy and nodes"), "aa-fpr"))
    missing = int(df["missing"].sum())
    if missing:
        blocks.append(Notice(f"{missing:,} strategy × node-count cells had too few nodes to draw "
                             "the groups and are left out."))
    return Section(title, intro, tuple(blocks))


REPORT = Report(
    "variability",
    "Variability (Laaber et al.): RSD and its sources, A/A false positives, detectable "
    "regressions as heatmaps.",
    build)
