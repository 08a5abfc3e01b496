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

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl
import pyarrow as pa

from perfwarehouse.reports import _stats, charts
from perfwarehouse.reports.base import ReportData, Request
from perfwarehouse.reports.page import (
    Column,
    Figure,
    Notice,
    Page,
    Section,
    Table,
    capped_table,
)

DEFAULT_PERIOD_DAYS = 90
TOP_DRIFTING = 40
DAY_S = 86400.0


@dataclass(frozen=True)
class FleetParams:
    """Decision rules of the fleet report."""

    alpha: float = 0.05
    """Family-wise error rate, split over the configurations of a campaign (Bonferroni)."""
    drift_threshold_pct: float = 0.5
    """Smallest trend (% of the median per 30 days) worth calling a drift."""
    min_trials: int = 10
    """Fewest trials in a period for a trend or an RSD."""
    min_trend_span: float = 0.25
    """Fewest fraction of the period the trials must span for a trend: a slope fitted
    over a few hours says nothing about 30 days."""
    trend_bins: int = 300
    """The trend is fitted to the medians of the trials in this many equal time bins of
    the period (fewer where bins are empty): robust, and fast for any number of trials."""
    min_group: int = 3
    """Fewest fixed- and random-order trials in a period for the order comparison."""
    outlier_factor: float = 10.0
    """Values at least this many times the median are outliers for the RSD (SPEC 5.2)."""


@dataclass(frozen=True)
class Period:
    """The reported period [since, until) and the previous one [previous_since, since)."""

    since: datetime
    until: datetime

    @property
    def previous_since(self) -> datetime:
        return self.since - (self.until - self.since)

    @property
    def days(self) -> float:
        return (self.until - self.since).total_seconds() / DAY_S


def choose_period(request: Request, last_at: datetime | None,
                  default_days: int = DEFAULT_PERIOD_DAYS) -> Period | None:
    """The period asked for; missing ends default to the UTC day after the newest trial
    and to ``default_days`` before the end. None when there is no data and no end."""
    until = request.until
    if until is None and request.since is not None and last_at is None:
        return None
    if until is None:
        if last_at is None:
            return None
        day = last_at.astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        # the warehouse holds times up to 9999-12-31 (UTC): the day after may not exist
        until = day + timedelta(days=1) if day.year < 9999 or day.month < 12 or day.day < 31 \
            else datetime.max.replace(tzinfo=timezone.utc)
    since = request.since or until - timedelta(days=default_days)
    return Period(since, until)


# ------------------------------------------------------------------ analysis
KEYS = ["campaign", "hardware_type", "config_id"]


def analyse(trials: pa.Table | pl.DataFrame, period: Period,
            params: FleetParams = FleetParams()) -> pl.DataFrame:
    """One row per (campaign, hardware type, configuration) seen in either period.

    ``trials``: the rows of ``report_fleet_trials.sql`` (``campaign``,
    ``hardware_type``, ``config_id``, ``period`` 0 = previous / 1 = this,
    ``is_random``, ``started_s``, ``value``), each configuration's period contiguous.

    Columns: ``n_prev``, ``n_now``; ``median_prev``, ``median_now``, ``rsd_prev_pct``,
    ``rsd_now_pct``; ``p_prev``, ``p_now``, ``eta2_now``, ``delta_now_pct`` (Δ% of the
    means, fixed against random), ``dependent_prev``, ``dependent_now``, ``change``
    (``new`` | ``persisting`` | ``resolved`` | null); ``slope_pct``, ``low_pct``,
    ``high_pct`` (trend in this period, % of its median per 30 days, with its CI at
    ``drift_confidence``), ``drifting``; ``level_change_pct`` (median now against before).
    """
    df = trials if isinstance(trials, pl.DataFrame) else pl.from_arrow(trials)
    assert isinstance(df, pl.DataFrame)
    if df.height == 0:
        return _decide(pl.DataFrame(schema=_PERIOD_SCHEMA), pl.DataFrame(schema=_TREND_SCHEMA),
                       params)
    df = df.with_row_index("i")
    segments = (df.group_by([*KEYS, "period"], maintain_order=True)
                .agg(start=pl.col("i").first(), stop=pl.col("i").last() + 1))
    values = df["value"].to_numpy()
    random = df["is_random"].to_numpy().astype(bool)
    seconds = df["started_s"].to_numpy().astype(np.float64)
    period_start = {0: period.previous_since.timestamp(), 1: period.since.timestamp()}

    rows = []
    trend_inputs: list[tuple[tuple[str, str, int], np.ndarray, np.ndarray]] = []
    for seg in segments.iter_rows(named=True):
        lo, hi, which = seg["start"], seg["stop"], seg["period"]
        y, r = values[lo:hi], random[lo:hi]
        row = {k: seg[k] for k in KEYS} | {"period": which, "n": hi - lo}
        row |= _level(y, params)
        row |= _order(y[~r], y[r], params)
        rows.append(row)
        median = row["median"]
        spanned = (seconds[hi - 1] - seconds[lo]) / DAY_S >= params.min_trend_span * period.days
        if which == 1 and y.size >= params.min_trials and median and spanned:
            days = (seconds[lo:hi] - period_start[1]) / DAY_S
            x_bins, y_bins = bin_medians(days, y / abs(median) * 100,
                                         period.days / params.trend_bins)
            trend_inputs.append((tuple(seg[k] for k in KEYS), y_bins, x_bins))
    per_period = pl.DataFrame(rows, schema=_PERIOD_SCHEMA, orient="row")
    return _decide(per_period, _trends(trend_inputs, params), params)


_PERIOD_SCHEMA = {
    "campaign": pl.String, "hardware_type": pl.String, "config_id": pl.UInt64,
    "period": pl.Int64, "n": pl.Int64, "median": pl.Float64, "rsd_pct": pl.Float64,
    "p": pl.Float64, "eta2": pl.Float64, "delta_pct": pl.Float64,
}
_TREND_SCHEMA = {
    "campaign": pl.String, "hardware_type": pl.String, "config_id": pl.UInt64,
    "slope_pct": pl.Float64, "low_pct": pl.Float64, "high_pct": pl.Float64,
    "drift_confidence": pl.Float64,
}


def bin_medians(x: np.ndarray, y: np.ndarray, width: float) -> tuple[np.ndarray, np.ndarray]:
    """Per time bin ``[k·width, (k+1)·width)`` holding data: the mean of ``x`` and the
    median of ``y`` in it. ``x`` must be sorted."""
    bins = np.floor(x / width).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, bins[1:] != bins[:-1]])
    counts = np.diff(np.r_[starts, bins.size])
    x_mean = np.add.reduceat(x, starts) / counts
    ordered = y[np.lexsort((y, bins))]
    y_median = (ordered[starts + (counts - 1) // 2] + ordered[starts + counts // 2]) / 2
    return x_mean, y_median


def _level(y: np.ndarray, params: FleetParams) -> dict[str, float | None]:
    median = float(np.median(y))
    kept = y[y < params.outlier_factor * median] if median > 0 else y
    rsd = None
    if kept.size >= max(params.min_trials, 2):
        mean = float(np.mean(kept))
        if mean != 0:
            rsd = 100 * float(np.std(kept, ddof=1)) / abs(mean)
    return {"median": median, "rsd_pct": rsd}


def _order(fixed: np.ndarray, random: np.ndarray, params: FleetParams) -> dict[str, float | None]:
    out: dict[str, float | None] = {"p": None, "eta2": None, "delta_pct": None}
    if fixed.size < params.min_group or random.size < params.min_group:
        return out
    test = _stats.kruskal_two(fixed, random)
    mean_fixed = float(np.mean(fixed))
    if mean_fixed != 0:
        out["delta_pct"] = (mean_fixed - float(np.mean(random))) / mean_fixed * 100
    if test is not None:
        out["p"], out["eta2"] = test.pvalue, test.eta2
    return out


def _trends(inputs: list[tuple[tuple[str, str, int], np.ndarray, np.ndarray]],
            params: FleetParams) -> pl.DataFrame:
    """Theil-Sen trend (% of the period median per 30 days) of each input, with its CI
    at 1 − α/m, m = the inputs of the same campaign."""
    m: dict[str, int] = {}
    for key, _y, _x in inputs:
        m[key[0]] = m.get(key[0], 0) + 1
    rows = []
    for key, y, days in inputs:
        confidence = 1 - params.alpha / m[key[0]]
        trend = _stats.theil_sen(y, days, confidence)
        if trend is None:
            continue
        rows.append((*key, trend.slope * 30, trend.low * 30, trend.high * 30, confidence))
    return pl.DataFrame(rows, schema=_TREND_SCHEMA, orient="row")


def _decide(per_period: pl.DataFrame, trends: pl.DataFrame, params: FleetParams) -> pl.DataFrame:
    # family sizes per campaign and period: the configurations actually compared
    per_period = per_period.join(
        per_period.group_by(["campaign", "period"]).agg(m=pl.col("p").is_not_null().sum()),
        on=["campaign", "period"], how="left")
    now = per_period.filter(pl.col("period") == 1).select(
        *KEYS, n_now="n", median_now="median", rsd_now_pct="rsd_pct", p_now="p",
        eta2_now="eta2", delta_now_pct="delta_pct", m_now="m")
    prev = per_period.filter(pl.col("period") == 0).select(
        *KEYS, n_prev="n", median_prev="median", rsd_prev_pct="rsd_pct", p_prev="p",
        m_prev="m")
    out = (now.join(prev, on=KEYS, how="full", coalesce=True)
           .join(trends, on=KEYS, how="left"))
    dependent_now = (pl.col("p_now") < params.alpha / pl.col("m_now")).fill_null(False)
    dependent_prev = (pl.col("p_prev") < params.alpha / pl.col("m_prev")).fill_null(False)
    out = out.with_columns(dependent_now=dependent_now, dependent_prev=dependent_prev)
    change = (pl.when(pl.col("dependent_now") & ~pl.col("dependent_prev")).then(pl.lit("new"))
              .when(pl.col("dependent_now") & pl.col("dependent_prev")).then(pl.lit("persisting"))
              .when(~pl.col("dependent_now") & pl.col("dependent_prev")
                    & pl.col("p_now").is_not_null()).then(pl.lit("resolved"))
              .otherwise(None))
    drifting = (((pl.col("low_pct") > 0) | (pl.col("high_pct") < 0))
                & (pl.col("slope_pct").abs() >= params.drift_threshold_pct)).fill_null(False)
    level = (pl.col("median_now") - pl.col("median_prev")) / pl.col("median_prev").abs() * 100
    return out.with_columns(
        change=change, drifting=drifting,
        level_change_pct=pl.when(pl.col("median_prev") != 0).then(level).otherwise(None),
        n_now=pl.col("n_now").fill_null(0), n_prev=pl.col("n_prev").fill_null(0),
    ).sort(KEYS)


# ---------------------------------------------------------------------- page
INTRO = (
    "A periodic look at the fleet: for every hardware type, which configurations drifted "
    "during the period, which became dependent on the order of the runs, and whether results "
    "became more or less variable than in the previous period of the same length. Each trial "
    "counts once (the median of its measurements). Decisions control the family-wise error: "
    "with m configurations in a campaign, a drift needs the 1 − α/m CI of its Theil-Sen trend "
    "to exclude zero (and a trend of at least the threshold), an order dependence a "
    "Kruskal-Wallis p-value below α/m (fixed against random order, seed 000).")


def build(data: ReportData, request: Request, params: FleetParams = FleetParams()) -> Page:
    span = data.query("fleet_span", campaign=request.campaign).to_pylist()[0]
    period = choose_period(request, span["last_at"])
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
    return Page(title, INTRO, tuple(sections), provenance, name="fleet")


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
