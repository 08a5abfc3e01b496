"""The fleet analysis: for a period [since, until) against the previous period of the
same length, per hardware type and configuration,

* **what drifted**: the Theil-Sen trend of each configuration's trials over the period
  (% of the median per 30 days), drifting when its family-wise CI (confidence 1 − α/m)
  excludes zero and the trend is at least ``drift_threshold_pct``;
* **what became order-dependent**: the fixed- against random-order comparison of
  OrderSage (Duplyakin et al., USENIX ATC 2023, §5; Kruskal-Wallis, Bonferroni α/m per
  campaign) on each period's trials, so a configuration is *new* (dependent now, not
  before), *persisting* or *resolved*;
* **variability against the previous period**: the RSD of each configuration's trial
  values in both periods, after the outlier rule of Laaber et al. (PeerJ Preprints 2018, §4.1).

The key is (campaign, hardware type, configuration); a trial counts once (the median of
its measurements). Pure: the trials of both periods in, one row per configuration out.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pyarrow as pa

from perfwarehouse.fleet.parameters import DAY_S, FleetParams, Period
from perfwarehouse.fleet.results import FleetSummary, Trend, TwoGroupTest
from perfwarehouse.stats import kruskal
from perfwarehouse.stats import theil_sen as _theil_sen

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
    test = kruskal_two(fixed, random)
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
        fit = trend(y, days, confidence)
        if fit is None:
            continue
        rows.append((*key, fit.slope * 30, fit.low * 30, fit.high * 30, confidence))
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


def summarise(result: pl.DataFrame) -> FleetSummary:
    """The per-hardware-type and fleet-wide summaries of :func:`analyse`'s ``result``."""
    by_type = (result.group_by("hardware_type").agg(
        configurations=(pl.col("n_now") > 0).sum(),
        trials_now=pl.col("n_now").sum(), trials_prev=pl.col("n_prev").sum(),
        drifting=pl.col("drifting").sum(),
        dependent_now=pl.col("dependent_now").sum(),
        new=(pl.col("change") == "new").sum(),
        resolved=(pl.col("change") == "resolved").sum(),
        rsd_prev=pl.col("rsd_prev_pct").median(), rsd_now=pl.col("rsd_now_pct").median())
        .with_columns(rsd_change=(pl.col("rsd_now") / pl.col("rsd_prev") - 1) * 100)
        .sort("hardware_type"))
    both = result.filter(pl.col("rsd_now_pct").is_not_null()
                         & pl.col("rsd_prev_pct").is_not_null())
    rsd_by_type = pl.concat([
        both.group_by("hardware_type").agg(rsd_pct=pl.col("rsd_prev_pct").median())
        .with_columns(period=pl.lit("previous")),
        both.group_by("hardware_type").agg(rsd_pct=pl.col("rsd_now_pct").median())
        .with_columns(period=pl.lit("this")),
    ]).sort(["hardware_type", "period"])
    prev = now = None
    if both.height:
        prev, now = both["rsd_prev_pct"].median(), both["rsd_now_pct"].median()
    return FleetSummary(by_type, rsd_by_type,
                        None if prev is None else float(prev),  # type: ignore[arg-type]
                        None if now is None else float(now))  # type: ignore[arg-type]


def relative_values(trials: pa.Table | pl.DataFrame, keys: pl.DataFrame, since_s: float,
                    until_s: float) -> pl.DataFrame:
    """This period's trials of the configurations in ``keys`` (``campaign``,
    ``hardware_type``, ``config_id``, ``worse_pct`` = the trend with + = worse,
    ``higher_is_better``; other columns are carried along), with ``day`` (since the
    period's start), ``value_pct`` (the value as % of its configuration's median, + =
    worse) and ``trend_pct`` (the trend drawn through the median at the middle of the
    period). Empty (no columns) when none of them has a trial in the period."""
    t = trials if isinstance(trials, pl.DataFrame) else pl.from_arrow(trials)
    assert isinstance(t, pl.DataFrame)
    rows = (t.filter(pl.col("period") == 1)
            .join(keys, on=["campaign", "hardware_type", "config_id"], how="inner"))
    if rows.height == 0:
        return pl.DataFrame()
    sign = pl.when(pl.col("higher_is_better").fill_null(False)).then(-1.0).otherwise(1.0)
    mid = (since_s + until_s) / 2
    return rows.with_columns(
        median=pl.col("value").median().over(["campaign", "hardware_type", "config_id"]),
    ).with_columns(
        day=(pl.col("started_s") - since_s) / DAY_S,
        value_pct=(pl.col("value") / pl.col("median") - 1) * 100 * sign,
        trend_pct=pl.col("worse_pct") * (pl.col("started_s") - mid) / (30 * DAY_S),
    )


def kruskal_two(a: np.ndarray, b: np.ndarray) -> TwoGroupTest | None:
    """Kruskal-Wallis of ``a`` against ``b``; None when every value is tied (H is 0/0)."""
    if np.ptp(np.concatenate([a, b])) == 0:
        return None
    n = a.size + b.size
    result = kruskal(a, b)
    h, p = float(result.statistic), float(result.pvalue)
    eta2 = (h - 1) / (n - 2) if n > 2 else math.nan
    return TwoGroupTest(p, eta2)


def trend(y: np.ndarray, x: np.ndarray, confidence: float) -> Trend | None:
    """Theil-Sen slope of ``y`` on ``x`` with its ``confidence`` CI; None when every x is
    the same (no slope is defined)."""
    if np.ptp(x) == 0:
        return None
    r = _theil_sen(y, x, confidence=confidence)
    return Trend(float(r.slope), float(r.low), float(r.high))
