"""Charts of the TriScale page (Jacob et al. (TriScale, JSys 2021)): convergence of a
run, KPIs, variability scores, autocorrelation.

Pure functions like every chart builder (a pre-aggregated table in, an ``alt.Chart``
out); the shared helpers are in :mod:`perfwarehouse.reports.charts`.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import (
    BLUE,
    GREY,
    HEIGHT,
    VERMILLION,
    WIDTH,
    Frame,
    Layered,
    _shape,
    _title,
    by_order,
    frame,
    long_label_axis,
    unit_title,
    with_order,
)


def convergence_run(points: Frame, windows: Frame, fit: Frame, *, title: str,
                    unit: str | None, measure: str,
                    x_title: str = "time since the start of the run (s)") -> Layered:
    """Jacob et al. (TriScale, JSys 2021), Figure 3a: one run's raw values over time, the measure over sliding
    windows, the Theil-Sen line of the window measures and its CI, and the tolerance
    band, all on the raw scale (the test itself works on [-1, 1]).

    ``points``: ``x``, ``value``; ``windows``: ``x``, ``measure``; ``fit``: ``x``,
    ``fit``, ``low``, ``high``, ``tol_low``, ``tol_high`` at the two ends of the run.
    """
    p = frame(points, ["x", "value"])
    w = frame(windows, ["x", "measure"])
    f = frame(fit, ["x", "fit", "low", "high", "tol_low", "tol_high"])
    x = alt.X("x:Q", title=x_title)
    ytitle = unit_title("value", unit)
    raw = alt.Chart(p).mark_point(size=8, opacity=0.35, color="#7f7f7f").encode(
        x=x, y=alt.Y("value:Q", title=ytitle, scale=alt.Scale(zero=False)))
    win = alt.Chart(w).mark_line(color="#1f77b4", point=alt.OverlayMarkDef(size=10)).encode(
        x=x, y="measure:Q", tooltip=[alt.Tooltip("measure:Q", format=".5g", title=measure)])
    tol = alt.Chart(f).mark_area(opacity=0.12, color="#2ca02c").encode(
        x=x, y="tol_low:Q", y2="tol_high:Q")
    ci = alt.Chart(f).mark_area(opacity=0.3, color="#17becf").encode(x=x, y="low:Q", y2="high:Q")
    line = alt.Chart(f).mark_line(color="#8c564b", strokeWidth=2).encode(x=x, y="fit:Q")
    return alt.layer(raw, tol, ci, win, line).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=(f"Grey points are the run's values, blue the {measure} over sliding windows, "
                     "brown the Theil-Sen trend of those window values with its CI (light blue); "
                     "the run has converged when the CI stays inside the green tolerance band."),
    )


def kpi_chart(data: Frame, *, title: str) -> Layered:
    """KPIs (Jacob et al. (TriScale, JSys 2021), §4.3, Figure 3b): each series' one-sided percentile bound
    (diamond) and, when given, its run metrics (ticks).

    ``data``: ``label``, ``kind`` (``metric`` | ``KPI``), ``value_pct`` (relative to
    the series' median, in %), ``independent``.
    """
    df = with_order(frame(data, ["label", "kind", "value_pct", "independent"]), "label")
    y = alt.Y("label:N", sort=by_order(), title="series (hardware type · configuration · series)",
              axis=long_label_axis())
    x = alt.X("value_pct:Q", title="run metric relative to the series median (%)")
    kpi = alt.Chart(df.filter(pl.col("kind") == "KPI")).mark_point(
        filled=True, size=90).encode(
        y=y, x=x, color=alt.Color("independent:N", title="runs independent",
                                  scale=alt.Scale(domain=["yes", "no"],
                                                  range=[BLUE, VERMILLION])),
        shape=_shape("independent", "runs independent", ["yes", "no"], ["diamond", "cross"]),
        tooltip=["label:N", alt.Tooltip("value_pct:Q", format=".3g", title="KPI (% of median)"),
                 "independent:N"])
    layers = [kpi]
    runs = df.filter(pl.col("kind") == "metric")
    if runs.height:  # the run metrics, when the table has them
        layers.insert(0, alt.Chart(runs).mark_tick(color=GREY, thickness=1).encode(y=y, x=x))
        what = "Grey ticks are the run metrics of a series and the diamond its KPI"
    else:  # the caption says only what is drawn
        what = "Each diamond is a series' KPI relative to the series' median run metric"
    return alt.layer(*layers).properties(
        width=WIDTH - 220, height=alt.Step(18), title=_title(title),
        description=(f"{what}, a bound that the chosen percentile of the runs stays on one side "
                     "of with the stated confidence; a vermillion cross instead of a blue diamond "
                     "marks a KPI whose runs failed the independence test, to be read as "
                     "descriptive only."),
    )


def variability_scores(data: Frame, *, title: str) -> alt.Chart:
    """Variability scores across sequels (Jacob et al. (TriScale, JSys 2021), §4.4, Figure 3c): the
    interval covering the chosen percentile range of the KPIs, as % of its midpoint.

    ``data``: ``label``, ``low_pct``, ``high_pct`` (bounds relative to the midpoint, %),
    ``relative_pct``, ``independent``.
    """
    df = frame(data, ["label", "low_pct", "high_pct", "relative_pct", "independent"])
    df = df.with_columns(label=pl.when(pl.col("independent") == "no")
                         .then(pl.col("label") + pl.lit(" (not independent)"))
                         .otherwise(pl.col("label")))
    df = with_order(df, "label", by="relative_pct", descending=True)
    y = alt.Y("label:N", sort=by_order(), title="hardware type · configuration",
              axis=long_label_axis())
    bars = alt.Chart(df).mark_bar(size=10).encode(
        y=y, x=alt.X("low_pct:Q", title="variability interval around its midpoint (%)"),
        x2="high_pct:Q",
        color=alt.Color("independent:N", title="KPIs independent",
                        scale=alt.Scale(domain=["yes", "no"], range=[BLUE, VERMILLION])),
        tooltip=["label:N", alt.Tooltip("relative_pct:Q", format=".3g",
                                        title="relative score (%)"), "independent:N"])
    return bars.properties(
        width=WIDTH - 220, height=alt.Step(18), title=_title(title),
        description=("Each bar spans the interval that holds the chosen percentile range of the "
                     "KPIs of repeated series, relative to its midpoint: the wider the bar, the "
                     "less reproducible the result across time; blue bars are of independent "
                     "KPIs, vermillion ones (also marked \"not independent\") are not."),
    )


def autocorrelation(data: Frame, periods: Frame, *, title: str, lag_unit: str) -> Layered:
    """Jacob et al. (TriScale, JSys 2021), Figure 5: sample autocorrelation against lag with its 95 % band; the
    lags reported as seasonal periods are marked.

    ``data``: ``lag`` (in ``lag_unit``), ``acf``, ``band``; ``periods``: ``lag``,
    ``label``.
    """
    df = frame(data, ["lag", "acf", "band"])
    per = frame(periods, ["lag", "label"])
    x = alt.X("lag:Q", title=f"lag ({lag_unit})", scale=alt.Scale(domainMin=0, nice=False))
    y = alt.Y("acf:Q", title="autocorrelation (-1 to 1)", scale=alt.Scale(domain=[-1, 1]))
    band = alt.Chart(df).transform_calculate(neg="-datum.band").mark_area(
        opacity=0.18, color="#1f77b4").encode(
        x=x, y=alt.Y("neg:Q", title="autocorrelation (-1 to 1)", scale=alt.Scale(domain=[-1, 1])),
        y2="band:Q")
    bars = alt.Chart(df).mark_bar(size=2, color="#333").encode(
        x=x, y=y,
        tooltip=[alt.Tooltip("lag:Q", format=".3g"), alt.Tooltip("acf:Q", format=".3f")])
    marks = alt.Chart(per).mark_rule(color="#d62728", strokeDash=[4, 3]).encode(
        x="lag:Q", tooltip=["label:N"])
    labels = alt.Chart(per).mark_text(color="#d62728", dy=-6, align="left", dx=3,
                                      fontSize=10).encode(
        x="lag:Q", y=alt.value(8), text="label:N")
    return alt.layer(band, bars, marks, labels).properties(
        width=WIDTH, height=HEIGHT - 60, title=_title(title),
        description=("Bars are the autocorrelation of the environment series at each lag and the "
                     "shaded band the 95 % range expected without any dependence; peaks above the "
                     "band (red) are candidate seasonal periods, and a series should span them."),
    )
