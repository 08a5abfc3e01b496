"""The periodic fleet report (SPEC 6): for a period [since, until) against the
previous period of the same length, per hardware type,

* **what drifted**: the Theil-Sen trend of each configuration's trials over the
  period (SPEC 5.5: % of the median per 30 days), drifting when its family-wise CI
  (confidence 1 − α/m) excludes zero and the trend is at least ``drift_threshold``;
* **what became order-dependent**: the fixed- against random-order comparison of
  seed 000 (Kruskal-Wallis, Bonferroni α/m per campaign), run on each period's
  trials, so a configuration is *new* (dependent now, not before), *persisting* or
  *resolved*;
* **variability against the previous period**: the RSD of each configuration's
  trial values in both periods (after the outlier rule of seed 001 / SPEC 5.2).

The analysis key is (campaign, hardware type, configuration); a trial counts once
(the median of its measurements). The numbers come from the measurements of the two
periods, computed in-process by :func:`analyse` (a pure function) with the stable
statistics API (``stats.kruskal``, ``stats.theil_sen``), because the analysis tables
hold whole campaigns, not periods.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from perfwarehouse.fleet.analysis import FleetParams, analyse, choose_period
from perfwarehouse.reports import charts
from perfwarehouse.reports.base import CAMPAIGN, OUT, PNG, SINCE, UNTIL, Report, ReportData, Request
from perfwarehouse.reports.page import (
    Column,
    Figure,
    Notice,
    Page,
    Section,
    Table,
    capped_table,
)

TOP_DRIFTING = 40


# ---------------------------------------------------------------------- page
INTRO = (
    "A periodic look at the fleet: for every hardware type, which configurations drifted "
    "during the period, which became dependent on the order of the runs, and whether results "
    "became more or less variable than in the previous period of the same length. Each trial "
    "counts once (the median of its measurements). Decisions control the family-wise error: "
    "with m configurations in a campaign, a drift needs the 1 − α/m CI of its Theil-Sen trend "
    "to exclude zero (and a trend of at least the threshold), an order dependence a "
    "Kruskal-Wallis p-value below α/m (fixed against random order, seed 000).")


LINKS = (("History: when each configuration changed, over revisions (perfwarehouse report "
          "history, written next to this page as history.html)", "history.html"),)


def build(data: ReportData, request: Request, params: FleetParams = FleetParams()) -> Page:
    span = data.query("fleet_span", campaign=request.campaign).to_pylist()[0]
    period = choose_period(request.since, request.until, span["last_at"])
    scope = f"campaign {request.campaign}" if request.campaign else "every campaign"
    if period is None:
        text = (f"The warehouse has no successful measurements ({scope}): ingest trials "
                "(perfwarehouse ingest ...) first, then write this report again.")
        return Page("Fleet report", INTRO, (Section("No data", "", (Notice(text, "missing"),)),),
                    name="fleet")
    trials = data.query("fleet_trials", campaign=request.campaign,
                        prev_since=period.previous_since, since=period.since,
                        until=period.until)
    names = data.query("fleet_configurations")
    title = (f"Fleet report, {period.since:%Y-%m-%d %H:%M} to {period.until:%Y-%m-%d %H:%M} UTC "
             f"({period.days:g} days)")
    provenance = (
        f"Scope: {scope}. This period: [{period.since:%Y-%m-%d %H:%M}, "
        f"{period.until:%Y-%m-%d %H:%M}) UTC; previous period: "
        f"[{period.previous_since:%Y-%m-%d %H:%M}, {period.since:%Y-%m-%d %H:%M}) UTC.",
        f"Rules: α = {params.alpha:g} per campaign (Bonferroni); drift threshold "
        f"{params.drift_threshold_pct:g} % per 30 days; at least {params.min_trials} trials for "
        f"a trend or an RSD, spanning {params.min_trend_span:.0%} of the period for a trend, "
        f"{params.min_group} per order for the order comparison; RSD after "
        f"dropping values ≥ {params.outlier_factor:g} × the median.",
        "Computed from the measurements at report time (not from a stored job run).",
    )
    result = label(analyse(trials, period, params), names)
    now = result.filter(pl.col("n_now") > 0)
    if now.height == 0:
        text = (f"No successful trials in this period ({scope}); the newest trial started at "
                f"{span['last_at']}. Choose --since/--until around the data.")
        return Page(title, INTRO, (Section("No data in the period", "",
                                           (Notice(text, "missing"),)),), provenance,
                    name="fleet")
    sections = [summary_section(result), drift_section(now, params),
                order_section(result), variability_section(result)]
    return Page(title, INTRO, tuple(sections), provenance, name="fleet", links=LINKS)


def label(result: pl.DataFrame, names: pa.Table) -> pl.DataFrame:
    named = pl.from_arrow(names)
    assert isinstance(named, pl.DataFrame)
    out = result.join(named, on="config_id", how="left")
    return out.with_columns(config=pl.Series(
        charts.config_labels(out["benchmark"].fill_null("?"), out["settings"], out["metric"]),
        dtype=pl.String))


def summary_section(result: pl.DataFrame) -> Section:
    summary = (result.group_by("hardware_type").agg(
        configurations=(pl.col("n_now") > 0).sum(),
        trials_now=pl.col("n_now").sum(), trials_prev=pl.col("n_prev").sum(),
        drifting=pl.col("drifting").sum(),
        dependent_now=pl.col("dependent_now").sum(),
        new=(pl.col("change") == "new").sum(),
        resolved=(pl.col("change") == "resolved").sum(),
        rsd_prev=pl.col("rsd_prev_pct").median(), rsd_now=pl.col("rsd_now_pct").median())
        .with_columns(rsd_change=(pl.col("rsd_now") / pl.col("rsd_prev") - 1) * 100)
        .sort("hardware_type"))
    return Section("Summary per hardware type", "", (capped_table(
        "Hardware types",
        "Drifting and order-dependent counts are for this period; 'new' were not order-"
        "dependent in the previous period, 'resolved' were and are no longer. RSD: the median "
        "over the type's configurations.",
        (Column("hardware_type", "hardware type"),
         Column("configurations", "configurations", "int"),
         Column("trials_now", "trials (this period)", "int"),
         Column("trials_prev", "trials (previous)", "int"),
         Column("drifting", "drifting", "int"),
         Column("dependent_now", "order-dependent", "int"),
         Column("new", "of which new", "int"), Column("resolved", "resolved", "int"),
         Column("rsd_prev", "median RSD before (%)", "pct"),
         Column("rsd_now", "median RSD now (%)", "pct"),
         Column("rsd_change", "RSD change (%)", "pct")),
        summary),))


def drift_section(now: pl.DataFrame, params: FleetParams) -> Section:
    with_trend = now.filter(pl.col("slope_pct").is_not_null())
    drifting = with_trend.filter(pl.col("drifting")).sort(
        pl.col("slope_pct").abs(), descending=True)
    blocks: list[Figure | Table | Notice] = []
    if with_trend.height:
        blocks.append(Figure(charts.drift_overview(
            with_trend, title="Trend of every configuration in the period"), "drift-overview"))
    if drifting.height:
        top = drifting.head(TOP_DRIFTING)
        blocks.append(Figure(charts.drift_top(
            top, title=f"The {top.height} strongest drifts (of {drifting.height})"), "drift-top"))
    else:
        blocks.append(Notice("No configuration drifted in this period."))
    blocks.append(capped_table(
        "Drifting configurations",
        "Trend in % of the median per 30 days, CI at the family-wise confidence; for "
        "throughput a negative trend is a slowdown, for run times a positive one.",
        (Column("hardware_type", "hardware type"), Column("campaign", "campaign"),
         Column("benchmark", "benchmark"), Column("settings", "settings", "json"),
         Column("metric", "metric"), Column("unit", "unit"),
         Column("higher_is_better", "higher is better", "bool"),
         Column("n_now", "trials", "int"),
         Column("slope_pct", "trend (%/30 days)", "pct"), Column("low_pct", "CI low", "pct"),
         Column("high_pct", "CI high", "pct"),
         Column("level_change_pct", "median vs previous period (%)", "pct")),
        drifting))
    untested = now.height - with_trend.height
    if untested:
        blocks.append(Notice(f"{untested:,} configurations had fewer than {params.min_trials} "
                             "trials in the period: no trend."))
    return Section("What drifted", "The Theil-Sen trend of each configuration's trials over "
                   "the period (SPEC 5.5), as % of its median per 30 days.", tuple(blocks))


def order_section(result: pl.DataFrame) -> Section:
    changes = (result.filter(pl.col("change").is_not_null())
               .group_by(["hardware_type", "change"]).agg(n=pl.len())
               .sort(["hardware_type", "change"]))
    dependent = result.filter(pl.col("dependent_now")).sort(
        ["change", "hardware_type", "p_now"], descending=[False, False, False])
    resolved = result.filter(pl.col("change") == "resolved")
    blocks: list[Figure | Table | Notice] = []
    if changes.height:
        blocks.append(Figure(charts.order_dependence_changes(
            changes, title="Order dependence now and in the previous period"), "order-changes"))
    else:
        blocks.append(Notice("No configuration is order-dependent in either period."))
    columns = (Column("hardware_type", "hardware type"), Column("change", "change"),
               Column("campaign", "campaign"), Column("benchmark", "benchmark"),
               Column("settings", "settings", "json"), Column("metric", "metric"),
               Column("n_now", "trials", "int"), Column("p_now", "p now", "pvalue"),
               Column("p_prev", "p before", "pvalue"), Column("eta2_now", "η²_H", "float"),
               Column("delta_now_pct", "Δ% fixed vs random (%)", "pct"))
    blocks.append(capped_table(
        "Order-dependent configurations in this period",
        "Fixed- against random-order trials of the period, Kruskal-Wallis p below α/m; Δ% > 0: "
        "the fixed order had the larger mean.", columns, dependent))
    if resolved.height:
        blocks.append(capped_table("No longer order-dependent",
                                   "Order-dependent in the previous period only.", columns,
                                   resolved))
    return Section("What became order-dependent", "Seed 000's comparison of fixed- and random-"
                   "order runs, on each period's trials.", tuple(blocks))


def variability_section(result: pl.DataFrame) -> Section:
    both = result.filter(pl.col("rsd_now_pct").is_not_null()
                         & pl.col("rsd_prev_pct").is_not_null())
    blocks: list[Figure | Table | Notice] = []
    if both.height == 0:
        return Section("Variability against the previous period", "", (Notice(
            "No configuration has enough trials in both periods to compare its RSD."),))
    by_type = pl.concat([
        both.group_by("hardware_type").agg(rsd_pct=pl.col("rsd_prev_pct").median())
        .with_columns(period=pl.lit("previous")),
        both.group_by("hardware_type").agg(rsd_pct=pl.col("rsd_now_pct").median())
        .with_columns(period=pl.lit("this")),
    ]).sort(["hardware_type", "period"])
    blocks.append(Figure(charts.variability_by_type(
        by_type, title="Median RSD per hardware type, previous and this period"), "rsd-by-type"))
    blocks.append(Figure(charts.variability_change(
        both, title="RSD of every configuration, this period against the previous"), "rsd-change"))
    ranked = both.with_columns(ratio=pl.col("rsd_now_pct") / pl.col("rsd_prev_pct")).sort(
        "ratio", descending=True)
    blocks.append(capped_table(
        "Configurations by change of RSD",
        "Largest increase first; ratio = RSD now / RSD before.",
        (Column("hardware_type", "hardware type"), Column("campaign", "campaign"),
         Column("benchmark", "benchmark"), Column("settings", "settings", "json"),
         Column("metric", "metric"), Column("n_prev", "trials before", "int"),
         Column("n_now", "trials now", "int"),
         Column("rsd_prev_pct", "RSD before (%)", "pct"),
         Column("rsd_now_pct", "RSD now (%)", "pct"), Column("ratio", "ratio", "float")),
        ranked))
    return Section("Variability against the previous period",
                   "The relative standard deviation (100·σ/μ) of each configuration's trials.",
                   tuple(blocks))


REPORT = Report(
    "fleet",
    "Fleet report for a period [--since, --until) against the previous period of the same "
    "length: per hardware type, what drifted, what became order-dependent, how variability "
    "changed.",
    build, options=(OUT, CAMPAIGN, SINCE, UNTIL, PNG))
