"""Charts of the fleet page: drifts, values over time, order-dependence changes,
variability against the previous period.

Pure functions like every chart builder (a pre-aggregated table in, an ``alt.Chart``
out); the shared helpers are in :mod:`perfwarehouse.reports.charts`.
"""

from __future__ import annotations

import math

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import (
    BLUE,
    CATEGORY,
    HEIGHT,
    ORANGE,
    SKY,
    VERMILLION,
    WIDTH,
    Frame,
    Layered,
    _color,
    _shape,
    _title,
    by_order,
    frame,
    long_label_axis,
    with_order,
)

CHANGE = ("new", "persisting", "resolved")
CHANGE_COLORS = (VERMILLION, ORANGE, BLUE)


def drift_overview(data: Frame, *, title: str) -> alt.Chart:
    """Every configuration's trend over the period, per hardware type; drifting ones
    (CI excludes 0 and the slope is above the threshold) highlighted.

    ``data``: ``hardware_type``, ``config``, ``slope_pct``, ``drifting`` (bool).
    """
    df = frame(data, ["hardware_type", "config", "slope_pct", "drifting"])
    df = df.with_columns(status=pl.when(pl.col("drifting")).then(pl.lit("drifting"))
                         .otherwise(pl.lit("stable")))
    return alt.Chart(df.drop("drifting")).mark_point(filled=True, size=18).encode(
        x=alt.X("slope_pct:Q",
                title="trend over the period, + = worse (% of the median per 30 days)"),
        y=alt.Y("hardware_type:N", title="hardware type"),
        yOffset=alt.YOffset("jitter:Q"),
        color=_color("status", "trend", ["drifting", "stable"], [VERMILLION, "#c7c7c7"]),
        shape=_shape("status", "trend", ["drifting", "stable"], ["triangle-up", "circle"]),
        tooltip=["config:N", "hardware_type:N",
                 alt.Tooltip("slope_pct:Q", format=".2f", title="trend (%/30 days)")],
    ).transform_calculate(jitter="random()").properties(
        width=WIDTH, height=alt.Step(26), title=_title(title),
        description=("Each point is one configuration on one hardware type, placed at its trend in "
                     "% of its median per 30 days (+ = worse by the metric's direction); "
                     "vermillion (red-orange) up-triangles drift (the CI of the trend "
                     "excludes zero and the trend exceeds the threshold), so their results "
                     "depend on when they were measured; light-grey circles are stable."),
    )


def drift_top(data: Frame, *, title: str) -> Layered:
    """The configurations with the largest significant trends, with their CIs.

    ``data``: ``config``, ``hardware_type``, ``slope_pct``, ``low_pct``, ``high_pct``.
    """
    df = frame(data, ["config", "hardware_type", "slope_pct", "low_pct", "high_pct"])
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config"))
    df = with_order(df, "label", by="slope_pct")
    y = alt.Y("label:N", sort=by_order(), title="hardware type · configuration",
              axis=long_label_axis())
    ci = alt.Chart(df).mark_rule(strokeWidth=2, color="#555").encode(
        y=y, x=alt.X("low_pct:Q", title="trend with its CI, + = worse (% of the median per 30 "
                     "days)"),
        x2="high_pct:Q")
    point = alt.Chart(df).mark_point(filled=True, size=50).encode(
        y=y, x="slope_pct:Q", color=alt.Color("hardware_type:N", title="hardware type",
                                              scale=alt.Scale(range=list(CATEGORY))),
        tooltip=["config:N", "hardware_type:N",
                 alt.Tooltip("slope_pct:Q", format=".2f", title="trend (%/30 days)"),
                 alt.Tooltip("low_pct:Q", format=".2f", title="CI low"),
                 alt.Tooltip("high_pct:Q", format=".2f", title="CI high")])
    zero = alt.Chart(pl.DataFrame({"zero": [0.0]})).mark_rule(color="#333").encode(x="zero:Q")
    return alt.layer(ci, zero, point).properties(
        width=WIDTH - 240, height=alt.Step(16), title=_title(title),
        description=("Each row is a drifting configuration with its trend and the CI of the "
                     "trend, signed by the metric's direction: right of zero the results got "
                     "worse (slower, or less throughput), left of it better."),
    )


def values_over_time(data: Frame, *, title: str) -> Layered:
    """The trials of a few drifting configurations over the period, as % of each one's
    median (+ = worse by the metric's direction), with its trend line.

    ``data``: ``series`` (hardware type · configuration), ``day`` (days since the
    start of the period), ``value_pct``, ``trend_pct``.
    """
    df = frame(data, ["series", "day", "value_pct", "trend_pct"])
    color = alt.Color("series:N", title="hardware type · configuration",
                      scale=alt.Scale(range=list(CATEGORY)), legend=alt.Legend(
                          orient="bottom", direction="vertical", labelLimit=0))
    shape = alt.Shape("series:N", legend=None)  # a second carrier besides the colour
    x = alt.X("day:Q", title="time since the start of the period (days)")
    points = alt.Chart(df).mark_point(size=14, opacity=0.45).encode(
        x=x, y=alt.Y("value_pct:Q", title="trial value against the configuration's median, "
                     "+ = worse (%)"), color=color, shape=shape,
        tooltip=["series:N", alt.Tooltip("day:Q", format=".1f", title="day"),
                 alt.Tooltip("value_pct:Q", format=".2f", title="worse than median (%)")])
    trend = alt.Chart(df).mark_line(strokeWidth=2.5).encode(
        x=x, y="trend_pct:Q", color=color, detail="series:N")
    return alt.layer(points, trend).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=("Each point is one trial of a drifting configuration, as % of its median "
                     "(up = worse, slower or less throughput) against the day it ran, and each "
                     "line the configuration's Theil-Sen trend drawn through its median at the "
                     "middle of the period."),
    )


def order_dependence_changes(data: Frame, *, title: str) -> alt.Chart:
    """Per hardware type, how many configurations became order-dependent in the
    period (new), stayed so (persisting) or stopped being so (resolved).

    ``data``: ``hardware_type``, ``change`` (one of :data:`CHANGE`), ``n``.
    """
    df = frame(data, ["hardware_type", "change", "n"])
    df = df.with_columns(change_order=pl.col("change").replace_strict(
        list(CHANGE), [0, 1, 2], default=9))
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("n:Q", title="configurations (count)", stack="zero",
                axis=alt.Axis(tickMinStep=1, format="d")),
        y=alt.Y("hardware_type:N", title="hardware type"),
        color=_color("change", "order dependence", CHANGE, CHANGE_COLORS),
        order=alt.Order("change_order:Q"),
        tooltip=["hardware_type:N", "change:N", alt.Tooltip("n:Q", title="configurations")],
    ).properties(
        width=WIDTH, height=alt.Step(24), title=_title(title),
        description=("Each bar counts a hardware type's configurations whose fixed- and random-"
                     "order results differ (Kruskal-Wallis at α/m), split as the legend names: "
                     "new (only in this period), persisting (in both), resolved (only before)."),
    )


def variability_change(data: Frame, *, title: str, max_points: int = 3000) -> Layered:
    """RSD in the period against RSD in the previous period, one point per
    configuration (log-log, the diagonal = unchanged).

    ``data``: ``hardware_type``, ``config``, ``rsd_prev_pct``, ``rsd_now_pct``.
    """
    df = frame(data, ["hardware_type", "config", "rsd_prev_pct", "rsd_now_pct"])
    df = df.filter((pl.col("rsd_prev_pct") > 0) & (pl.col("rsd_now_pct") > 0))
    if df.height > max_points:  # keep the largest changes, they are what a reader looks for
        df = df.with_columns(change=(pl.col("rsd_now_pct") / pl.col("rsd_prev_pct")).log().abs()) \
            .sort("change", descending=True).head(max_points).drop("change")
    both = pl.concat([df["rsd_prev_pct"], df["rsd_now_pct"]])
    lo = float(both.min()) if both.len() else 0.01  # type: ignore[arg-type]
    hi = float(both.max()) if both.len() else 1.0  # type: ignore[arg-type]
    scale = alt.Scale(type="log", domain=[_floor_decade(lo), _ceil_decade(hi)])
    points = alt.Chart(df).mark_point(filled=True, size=16, opacity=0.6).encode(
        x=alt.X("rsd_prev_pct:Q", title="RSD in the previous period (%, log)", scale=scale),
        y=alt.Y("rsd_now_pct:Q", title="RSD in this period (%, log)", scale=scale),
        color=alt.Color("hardware_type:N", title="hardware type",
                        scale=alt.Scale(range=list(CATEGORY))),
        tooltip=["config:N", "hardware_type:N",
                 alt.Tooltip("rsd_prev_pct:Q", format=".3g", title="RSD before (%)"),
                 alt.Tooltip("rsd_now_pct:Q", format=".3g", title="RSD now (%)")])
    diag = alt.Chart(pl.DataFrame({"v": [_floor_decade(lo), _ceil_decade(hi)]})) \
        .mark_line(color="#333", strokeDash=[4, 3]).encode(x="v:Q", y="v:Q")
    return alt.layer(points, diag).properties(
        width=WIDTH - 140, height=WIDTH - 140, title=_title(title),
        description=("Each point is one configuration's relative standard deviation now (y) "
                     "against the previous period (x); points above the dashed diagonal became "
                     "noisier, below it steadier."),
    )


def variability_by_type(data: Frame, *, title: str) -> alt.Chart:
    """Median RSD per hardware type in the period and in the previous period.

    ``data``: ``hardware_type``, ``period`` (``previous`` | ``this``), ``rsd_pct``.
    """
    df = frame(data, ["hardware_type", "period", "rsd_pct"])
    return alt.Chart(df).mark_bar().encode(
        y=alt.Y("hardware_type:N", title="hardware type"),
        yOffset=alt.YOffset("period:N", sort=["previous", "this"]),
        x=alt.X("rsd_pct:Q", title="median RSD over the configurations (%)"),
        color=alt.Color("period:N", title="period", sort=["previous", "this"],
                        scale=alt.Scale(domain=["previous", "this"], range=[SKY, BLUE])),
        tooltip=["hardware_type:N", "period:N",
                 alt.Tooltip("rsd_pct:Q", format=".3g", title="median RSD (%)")],
    ).properties(
        width=WIDTH, height=alt.Step(14), title=_title(title),
        description=("For each hardware type the light bar is the median relative standard "
                     "deviation of its configurations in the previous period and the dark bar in "
                     "this one; a longer dark bar means the machines of that type became "
                     "noisier."),
    )


def _floor_decade(x: float) -> float:
    return 10.0 ** math.floor(math.log10(x)) if x > 0 else 0.01


def _ceil_decade(x: float) -> float:
    return 10.0 ** math.ceil(math.log10(x)) if x > 0 else 1.0
