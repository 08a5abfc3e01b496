"""The periodic fleet report: for a period [since, until) against the
previous period of the same length, per hardware type,

* **what drifted**: the Theil-Sen trend of each configuration's trials over the
  period (% of the median per 30 days), drifting when its family-wise CI
  (confidence 1 − α/m) excludes zero and the trend is at least ``drift_threshold``;
* **what became order-dependent**: the fixed- against random-order comparison of
  Duplyakin et al. (OrderSage, USENIX ATC 2023) (Kruskal-Wallis, Bonferroni α/m per campaign), run on each period's
  trials, so a configuration is *new* (dependent now, not before), *persisting* or
  *resolved*;
* **variability against the previous period**: the RSD of each configuration's
  trial values in both periods (after the outlier rule of Laaber et al., PeerJ Preprints 2018).

The analysis key is (campaign, hardware type, configuration); a trial counts once
(the median of its measurements). The numbers come from the measurements of the two
periods, because the analysis tables hold whole campaigns, not periods: :func:`build`
is the query step, which reads them and has :mod:`perfwarehouse.fleet.analysis`
(pure) compute the numbers; :func:`build_page` presents them and computes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from perfwarehouse.errors import UsageError
from perfwarehouse.reports import charts, fleet_charts
from perfwarehouse.reports.base import CAMPAIGN, OUT, PNG, SINCE, UNTIL, Report, ReportData, Request
from perfwarehouse.reports.columns import col
from perfwarehouse.reports.page import (
    Figure,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    VerdictLevel,
    capped_table,
)

if TYPE_CHECKING:
    from perfwarehouse.fleet import FleetParams, FleetSummary, Period

TOP_DRIFTING = 40
OVER_TIME = 4
"""Configurations whose values over time are drawn (the strongest drifts)."""


# ---------------------------------------------------------------------- page
INTRO = (
    "A periodic look at the fleet: for every hardware type, which configurations drifted "
    "during the period, which became dependent on the order of the runs, and whether results "
    "became more or less variable than in the previous period of the same length. Each trial "
    "counts once (the median of its measurements). Decisions control the family-wise error: "
    "with m configurations in a campaign, a drift needs the 1 − α/m CI of its Theil-Sen trend "
    "to exclude zero (and a trend of at least the threshold), an order dependence a "
    "Kruskal-Wallis p-value below α/m (fixed against random order, Duplyakin et al. (OrderSage, USENIX ATC 2023)).")


LINKS = (("History: when each configuration changed, over revisions (perfwarehouse report "
          "history, written next to this page as history.html)", "history.html"),)


@dataclass(frozen=True)
class FleetData:
    """What the fleet page shows, as found by the query step."""

    scope: str
    last_at: datetime | None
    period: Period
    params: FleetParams
    result: pl.DataFrame  # one labelled row per configuration (analyse, then label)
    over_time: pl.DataFrame  # the strongest drifts' values (empty if none)
    summary: FleetSummary
    campaign: str | None = None


def page(data: ReportData, request: Request, params: FleetParams | None = None) -> Page:
    """The page: the query step :func:`build`, then :func:`build_page`."""
    found = build(data, request, params)
    return found if isinstance(found, Page) else build_page(found)


def build(data: ReportData, request: Request,
          params: FleetParams | None = None) -> FleetData | Page:
    """The query step (the only code here that calls :mod:`perfwarehouse.fleet`): the trials of the period and the previous one, analysed by
    :mod:`perfwarehouse.fleet.analysis` (a page that says so when there is no data).

    The default period is the last 90 days of the campaign's own data (of the newest
    campaign's without ``--campaign``: the report site builds this page per campaign)."""
    from perfwarehouse.fleet import (
        FleetParams,
        analyse,
        choose_period,
        relative_values,
        summarise,
    )

    params = params or FleetParams()
    span = data.query("fleet_span", campaign=request.campaign).to_pylist()[0]
    scope = f"campaign {request.campaign}" if request.campaign else "every campaign"
    last = span["last_at"]
    if request.since is not None and request.until is None and last is not None \
            and request.since > last:
        raise UsageError(f"--since {request.since:%Y-%m-%d %H:%M} is after the newest trial "
                         f"({scope}: {last:%Y-%m-%d %H:%M} UTC); choose an earlier --since or "
                         "give --until")
    period = choose_period(request.since, request.until, last)
    if period is None:
        text = (f"The warehouse has no successful measurements ({scope}): ingest trials "
                "(perfwarehouse ingest ...) first, then write this report again.")
        return Page("Fleet report", INTRO, (Section("No data", "", (Notice(text, "missing"),)),),
                    name="fleet")
    trials = data.query("fleet_trials", campaign=request.campaign,
                        prev_since=period.previous_since, since=period.since,
                        until=period.until)
    names = data.query("fleet_configurations")
    result = label(analyse(trials, period, params), names)
    over = relative_values(trials, strongest_drifts(result), period.since.timestamp(),
                           period.until.timestamp())
    return FleetData(scope, last, period, params, result, over, summarise(result),
                     request.campaign)


def build_page(found: FleetData) -> Page:
    """The page from what the query step found (pure)."""
    period, params, result, scope = found.period, found.params, found.result, found.scope
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
    now = result.filter(pl.col("n_now") > 0)
    if now.height == 0:
        text = (f"No successful trials in this period ({scope}); the newest trial started at "
                f"{found.last_at}. Choose --since/--until around the data.")
        return Page(title, INTRO, (Section("No data in the period", "",
                                           (Notice(text, "missing"),)),), provenance,
                    name="fleet")
    sections = [summary_section(found.summary), drift_section(now, params, found.over_time),
                order_section(result), variability_section(result, found.summary)]
    quiet = sorted(set(result["campaign"].to_list()) - set(now["campaign"].to_list()))
    if quiet and not found.campaign:
        sections[0] = Section(sections[0].title, sections[0].intro, (Notice(
            f"{len(quiet)} campaign(s) have no trials in this period ({', '.join(quiet)}): the "
            "period ends at the newest trial of any campaign; give --campaign to report on one "
            "campaign with its own period."), *sections[0].blocks))
    return Page(title, INTRO, tuple(sections), provenance, name="fleet", links=LINKS,
                verdict=verdict(result, now, period.days, found.summary))


def verdict(result: pl.DataFrame, now: pl.DataFrame, days: float,
            summary: FleetSummary) -> Verdict:
    """What drifted (worse or better, by the metric's direction), what became
    order-dependent, and how variability moved."""
    drifting = now.filter(pl.col("drifting"))
    worse = drifting.filter(pl.col("worse_pct") > 0)
    parts = [f"In these {days:g} days, {drifting.height:,} of {now.height:,} configurations "
             f"drifted ({worse.height:,} got worse, {drifting.height - worse.height:,} better)"]
    if worse.height:
        top = worse.sort("worse_pct", descending=True).row(0, named=True)
        parts[0] += (f"; worst: {top['config']} on {top['hardware_type']} "
                     f"({top['worse_pct']:+.2g} % per 30 days)")
    parts[0] += "."
    new = int((result["change"] == "new").sum())
    dependent = int(result["dependent_now"].fill_null(False).sum())
    parts.append(f"{dependent:,} configurations are order-dependent ({new:,} new).")
    if summary.rsd_prev_median is not None and summary.rsd_now_median is not None:
        parts.append(f"Median RSD {summary.rsd_prev_median:.2g} % before, "
                     f"{summary.rsd_now_median:.2g} % now.")
    level: VerdictLevel = "alarm" if worse.height or new else "ok"
    return Verdict(" ".join(parts), level)


def label(result: pl.DataFrame, names: pa.Table) -> pl.DataFrame:
    named = pl.from_arrow(names)
    assert isinstance(named, pl.DataFrame)
    out = result.join(named, on="config_id", how="left")
    # directions normalised: + = worse by the metric's direction (a slower time or a
    # lower throughput), for the trend, its CI and the level change
    sign = pl.when(pl.col("higher_is_better").fill_null(False)).then(-1.0).otherwise(1.0)
    hib = pl.col("higher_is_better").fill_null(False)
    out = out.with_columns(
        worse_pct=pl.col("slope_pct") * sign,
        worse_low_pct=pl.when(hib).then(-pl.col("high_pct")).otherwise(pl.col("low_pct")),
        worse_high_pct=pl.when(hib).then(-pl.col("low_pct")).otherwise(pl.col("high_pct")),
        level_worse_pct=pl.col("level_change_pct") * sign)
    return out.with_columns(config=pl.Series(
        charts.config_labels(out["benchmark"].fill_null("?"), out["settings"], out["metric"]),
        dtype=pl.String))


def summary_section(summary: FleetSummary) -> Section:
    return Section("Summary per hardware type", "", (capped_table(
        "Hardware types",
        "Drifting and order-dependent counts are for this period; 'new' were not order-"
        "dependent in the previous period, 'resolved' were and are no longer. RSD: the median "
        "over the type's configurations; now vs before: the relative change of that median "
        "(+50 %: 1.5 times as variable as before).",
        (col("hardware_type", key=True),
         col("configurations"),
         col("trials_now"),
         col("trials_prev"),
         col("drifting_count"),
         col("dependent_now"),
         col("new"), col("resolved"),
         col("rsd_prev"),
         col("rsd_now"),
         col("rsd_change")),
        summary.by_type),))


def strongest_drifts(result: pl.DataFrame) -> pl.DataFrame:
    """The configurations whose values over time are drawn: the strongest drifts of this
    period (keys, label, sign-normalised trend and direction)."""
    drifting = (result.filter(pl.col("n_now") > 0).filter(pl.col("slope_pct").is_not_null())
                .filter(pl.col("drifting")).sort(pl.col("worse_pct").abs(), descending=True))
    top = drifting.sort(pl.col("worse_pct").abs(), descending=True).head(OVER_TIME)
    return top.select("campaign", "hardware_type", "config_id", "config", "worse_pct",
                      "higher_is_better")


def drift_section(now: pl.DataFrame, params: FleetParams,
                  over_time: pl.DataFrame | None = None) -> Section:
    with_trend = now.filter(pl.col("slope_pct").is_not_null())
    drifting = with_trend.filter(pl.col("drifting")).sort(
        pl.col("worse_pct").abs(), descending=True)
    blocks: list[Figure | Table | Notice] = []
    if with_trend.height:
        blocks.append(Figure(fleet_charts.drift_overview(
            with_trend.with_columns(slope_pct=pl.col("worse_pct")),
            title="Trend of every configuration in the period"), "drift-overview"))
    if drifting.height:
        top = drifting.head(TOP_DRIFTING)
        blocks.append(Figure(fleet_charts.drift_top(
            top.with_columns(slope_pct=pl.col("worse_pct"), low_pct=pl.col("worse_low_pct"),
                             high_pct=pl.col("worse_high_pct")),
            title=f"The {top.height} strongest drifts (of {drifting.height})"), "drift-top"))
        if over_time is not None and over_time.height:
            over = over_time.with_columns(
                series=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config"),
            ).select("series", "day", "value_pct", "trend_pct")
            if over.height:
                blocks.append(Figure(fleet_charts.values_over_time(
                    over, title=f"Values over time of the {over['series'].n_unique()} "
                                "strongest drifts"), "values-over-time"))
    else:
        blocks.append(Notice("No configuration drifted in this period."))
    blocks.append(capped_table(
        "Drifting configurations",
        "Trend in % of the median per 30 days, CI at the family-wise confidence; + = worse by "
        "the metric's direction (a longer time or a lower throughput), − = better.",
        (col("benchmark", key=True),
         col("settings", key=True),
         col("hardware_type", key=True), col("metric", key=True),
         col("campaign"), col("unit"),
         col("higher_is_better"),
         col("n_now"),
         col("worse_pct_trend"),
         col("worse_low_pct_short"), col("worse_high_pct_short"),
         col("level_worse_pct")),
        drifting))
    untested = now.height - with_trend.height
    if untested:
        blocks.append(Notice(f"{untested:,} configurations had fewer than {params.min_trials} "
                             "trials in the period: no trend."))
    return Section("What drifted", "The Theil-Sen trend of each configuration's trials over "
                   "the period, as % of its median per 30 days.", tuple(blocks))


def order_section(result: pl.DataFrame) -> Section:
    changes = (result.filter(pl.col("change").is_not_null())
               .group_by(["hardware_type", "change"]).agg(n=pl.len())
               .sort(["hardware_type", "change"]))
    dependent = result.filter(pl.col("dependent_now")).sort(
        ["change", "hardware_type", "p_now"], descending=[False, False, False])
    resolved = result.filter(pl.col("change") == "resolved")
    blocks: list[Figure | Table | Notice] = []
    if changes.height:
        blocks.append(Figure(fleet_charts.order_dependence_changes(
            changes, title="Order dependence now and in the previous period"), "order-changes"))
    else:
        blocks.append(Notice("No configuration is order-dependent in either period."))
    columns = (col("benchmark", key=True),
               col("settings", key=True),
               col("hardware_type", key=True),
               col("metric", key=True), col("change"),
               col("campaign"),
               col("n_now"), col("p_now"),
               col("p_prev"), col("eta2_now"),
               col("delta_now_pct"))
    blocks.append(capped_table(
        "Order-dependent configurations in this period",
        "Fixed- against random-order trials of the period, Kruskal-Wallis p below α/m; Δ% > 0: "
        "the fixed order had the larger mean.", columns, dependent))
    if resolved.height:
        blocks.append(capped_table("No longer order-dependent",
                                   "Order-dependent in the previous period only.", columns,
                                   resolved))
    return Section("What became order-dependent", "Duplyakin et al. (OrderSage, USENIX ATC 2023)'s comparison of fixed- and random-"
                   "order runs, on each period's trials.", tuple(blocks))


def variability_section(result: pl.DataFrame, summary: FleetSummary) -> Section:
    both = result.filter(pl.col("rsd_now_pct").is_not_null()
                         & pl.col("rsd_prev_pct").is_not_null())
    blocks: list[Figure | Table | Notice] = []
    if both.height == 0:
        return Section("Variability against the previous period", "", (Notice(
            "No configuration has enough trials in both periods to compare its RSD."),))
    blocks.append(Figure(fleet_charts.variability_by_type(
        summary.rsd_by_type, title="Median RSD per hardware type, previous and this period"), "rsd-by-type"))
    blocks.append(Figure(fleet_charts.variability_change(
        both, title="RSD of every configuration, this period against the previous"), "rsd-change"))
    ranked = both.with_columns(ratio=pl.col("rsd_now_pct") / pl.col("rsd_prev_pct")).sort(
        "ratio", descending=True)
    blocks.append(capped_table(
        "Configurations by change of RSD",
        "Largest increase first; ratio = RSD now / RSD before.",
        (col("benchmark", key=True),
         col("settings", key=True),
         col("hardware_type", key=True), col("metric", key=True),
         col("campaign"), col("n_prev"),
         col("n_now_long"),
         col("rsd_prev_pct"),
         col("rsd_now_pct"), col("ratio_number")),
        ranked))
    return Section("Variability against the previous period",
                   "The relative standard deviation (100·σ/μ) of each configuration's trials.",
                   tuple(blocks))


REPORT = Report(
    "fleet",
    "Fleet report for a period [--since, --until) against the previous period of the same "
    "length: per hardware type, what drifted, what became order-dependent, how variability "
    "changed.",
    page, options=(OUT, CAMPAIGN, SINCE, UNTIL, PNG))
