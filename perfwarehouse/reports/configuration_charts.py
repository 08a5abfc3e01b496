"""Chart builders of the per-configuration page (``report configuration``). Pure functions:
small tables in, an Altair chart out, with a title, axis titles with units and a caption
(the Vega-Lite ``description``), as in :mod:`perfwarehouse.reports.charts`.

Fixed and random order are told apart by colour *and* by shape and dash (fixed: solid
line, circles; random: dashed line, triangles), so the charts read without colour.
"""

from __future__ import annotations

from functools import cache

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import (
    BLUE,
    ORANGE,
    Frame,
    _title,
    frame,
    time_axis,
    unit_title,
)

ORDER_KINDS = ("fixed", "random")
ORDER_COLORS = (BLUE, ORANGE)
ORDER_SHAPES = ("circle", "triangle-up")
ORDER_DASHES = ([1, 0], [6, 3])
PANEL_WIDTH = 440
PANEL_HEIGHT = 220
COLUMNS = 2

ECDF_CAPTION = (
    "For each hardware type, the share of the configuration's values at or below each "
    "value, in fixed order (blue, solid line, circles) and in random order (orange, "
    "dashed line, triangles). Curves that lie on each other: the order of the runs did "
    "not change the distribution; a curve shifted right has larger values.")
TIME_CAPTION = (
    "Each point is one trial (the median of its values) at the time it started, in "
    "fixed order (blue circles) or random order (orange triangles); the black line is "
    "the Theil-Sen trend of the `trends` analysis (its slope, drawn through the series "
    "median at the middle of the series' time span), labelled with the slope in % of "
    "the median per 30 days. No line: the trends analysis has no row for that "
    "hardware type.")


def _ecdf_layer(chart: alt.Chart, x_title: str) -> alt.LayerChart:
    """The fixed-vs-random ECDF of ``chart``'s rows (value, ecdf, order_kind): a step line
    dashed by order and its points."""
    base = chart.encode(
        x=alt.X("value:Q", title=x_title, scale=alt.Scale(zero=False)),
        y=alt.Y("ecdf:Q", title="fraction of values ≤ x", scale=alt.Scale(domain=[0, 1])),
        color=_order_color(),
        tooltip=[alt.Tooltip("order_kind:N", title="order"),
                 alt.Tooltip("value:Q", format=".4g"),
                 alt.Tooltip("ecdf:Q", format=".3f", title="fraction ≤ value")])
    line = base.mark_line(interpolate="step-after", strokeWidth=2).encode(
        strokeDash=alt.StrokeDash("order_kind:N", title="order of the runs",
                                  scale=alt.Scale(domain=list(ORDER_KINDS),
                                                  range=list(ORDER_DASHES)),
                                  legend=alt.Legend(orient="top")))
    points = base.mark_point(size=22, filled=True, opacity=0.8).encode(shape=_order_shape())
    return alt.LayerChart(layer=[line, points])


def _order_color() -> alt.Color:
    return alt.Color("order_kind:N", title="order of the runs",
                     scale=alt.Scale(domain=list(ORDER_KINDS), range=list(ORDER_COLORS)),
                     legend=alt.Legend(orient="top"))


def _order_shape() -> alt.Shape:
    return alt.Shape("order_kind:N", title="order of the runs",
                     scale=alt.Scale(domain=list(ORDER_KINDS), range=list(ORDER_SHAPES)),
                     legend=alt.Legend(orient="top"))


def order_ecdf(data: Frame, *, title: str, metric: str, unit: str | None,
               subtitle: str | None = None) -> alt.ConcatChart:
    """The empirical distribution (ECDF) of the values in fixed and in random order, one
    panel per hardware type.

    ``data``: ``hardware_type``, ``order_kind`` (fixed / random), ``value`` and ``ecdf``
    (the fraction of that group's values at or below ``value``), already thinned.
    """
    df = frame(data, ["hardware_type", "order_kind", "value", "ecdf"])
    panels = []
    for hardware_type in df["hardware_type"].unique(maintain_order=True).to_list():
        part = df.filter(pl.col("hardware_type") == hardware_type)
        panels.append(_ecdf_layer(alt.Chart(part), unit_title(metric, unit)).properties(
            width=PANEL_WIDTH, height=PANEL_HEIGHT,
            title=alt.Title(f"hardware type {hardware_type}", anchor="start", fontSize=12)))
    return alt.concat(*panels, columns=COLUMNS).properties(
        title=_title(title, subtitle),
        description=ECDF_CAPTION
    ).resolve_scale(x="independent")


def values_over_time(points: Frame, trends: Frame, *, title: str, metric: str,
                     unit: str | None, subtitle: str | None = None) -> alt.ConcatChart:
    """The trial values against the time they ran, one panel per hardware type, with the
    Theil-Sen trend line of the ``trends`` table.

    ``points``: ``hardware_type``, ``order_kind``, ``time`` (ISO text, UTC), ``value``;
    ``trends``: ``hardware_type``, ``time`` (ISO text), ``trend`` (two rows per hardware
    type: the line's ends) and ``label`` (the slope in words).
    """
    pts = frame(points, ["hardware_type", "order_kind", "time", "value"])
    line_df = frame(trends, ["hardware_type", "time", "trend", "label"])
    panels = []
    for hardware_type in pts["hardware_type"].unique(maintain_order=True).to_list():
        part = pts.filter(pl.col("hardware_type") == hardware_type)
        x = alt.X("time:T", title="start of the trial (UTC)", axis=time_axis())
        dots = alt.Chart(part).mark_point(size=36, filled=True, opacity=0.75).encode(
            x=x, y=alt.Y("value:Q", title=unit_title(metric, unit), scale=alt.Scale(zero=False)),
            color=_order_color(), shape=_order_shape(),
            tooltip=[alt.Tooltip("time:T", format="%Y-%m-%d %H:%M", title="started"),
                     alt.Tooltip("order_kind:N", title="order"),
                     alt.Tooltip("value:Q", format=".4g")])
        layers: list[alt.Chart] = [dots]
        trend = line_df.filter(pl.col("hardware_type") == hardware_type)
        if trend.height:
            layers.append(alt.Chart(trend).mark_line(color="#000000", strokeWidth=2.5).encode(
                x=x, y="trend:Q", tooltip=[alt.Tooltip("label:N", title="Theil-Sen trend")]))
            layers.append(alt.Chart(trend.tail(1)).mark_text(
                align="right", dy=-10, fontSize=11, fontWeight="bold", color="#000000").encode(
                x=x, y="trend:Q", text="label:N"))
        panels.append(alt.layer(*layers).properties(
            width=PANEL_WIDTH, height=PANEL_HEIGHT,
            title=alt.Title(f"hardware type {hardware_type}", anchor="start", fontSize=12)))
    return alt.concat(*panels, columns=COLUMNS).properties(
        title=_title(title, subtitle),
        description=TIME_CAPTION
    ).resolve_scale(x="independent", y="independent")


# ------------------------------------------------ the site's drill-down viewer
UNIT_TITLE = "@@UNIT_TITLE@@"
"""Where the viewer (``assets/viewer.js``) writes the configuration's metric and unit into
a template's axis titles."""


@cache
def viewer_templates() -> dict[str, dict[str, object]]:
    """The two charts of the site's configuration viewer as Vega-Lite templates: the same
    marks, colours and captions as :func:`order_ecdf` and :func:`values_over_time`, one
    panel per hardware type (a facet), over the named datasets ``ecdf`` (hardware_type,
    order_kind, value, ecdf) and ``trials`` (hardware_type, order_kind, time in ms, value;
    trend rows: time, trend, label, ``end`` on the line's last point), which the viewer
    fills from the campaign's data file. Built once per process (do not change the
    dicts returned), not per configuration."""
    facet = alt.Facet("hardware_type:N", title=None,
                      header=alt.Header(labelAnchor="start", labelFontSize=12,
                                        labelFontWeight="bold", labelExpr="'hardware type ' + "
                                        "datum.label"))
    ecdf = _ecdf_layer(alt.Chart(alt.NamedData("ecdf")), UNIT_TITLE).properties(
        width=PANEL_WIDTH, height=PANEL_HEIGHT).facet(
        facet=facet, columns=COLUMNS).resolve_scale(x="independent").properties(
        title=_title("The values in fixed and in random order (ECDF), per hardware type", " "),
        description=ECDF_CAPTION)
    x = alt.X("time:T", title="start of the trial (UTC)", axis=time_axis())
    trials = alt.Chart(alt.NamedData("trials"))
    dots = trials.mark_point(size=36, filled=True, opacity=0.75).encode(
        x=x, y=alt.Y("value:Q", title=UNIT_TITLE, scale=alt.Scale(zero=False)),
        color=_order_color(), shape=_order_shape(),
        tooltip=[alt.Tooltip("time:T", format="%Y-%m-%d %H:%M", title="started"),
                 alt.Tooltip("order_kind:N", title="order"),
                 alt.Tooltip("value:Q", format=".4g")]).transform_filter("isValid(datum.value)")
    trend = trials.mark_line(color="#000000", strokeWidth=2.5).encode(
        x=x, y="trend:Q", tooltip=[alt.Tooltip("label:N", title="Theil-Sen trend")]
    ).transform_filter("isValid(datum.trend)")
    label = trials.mark_text(align="right", dy=-10, fontSize=11, fontWeight="bold",
                             color="#000000").encode(x=x, y="trend:Q", text="label:N"
                                                     ).transform_filter("datum.end")
    over_time = alt.layer(dots, trend, label).properties(
        width=PANEL_WIDTH, height=PANEL_HEIGHT).facet(facet=facet, columns=COLUMNS
                                                      ).resolve_scale(
        x="independent", y="independent").properties(
        title=_title("Trial values over time, with the Theil-Sen trend", " "),
        description=TIME_CAPTION)
    return {"ecdf": ecdf.to_dict(), "trials": over_time.to_dict()}
