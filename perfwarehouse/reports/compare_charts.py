"""The chart of the compare page: each configuration's change with its interval.

A pure function (a pre-aggregated table in, an ``alt.Chart`` out), like every chart
builder; the shared helpers are in :mod:`perfwarehouse.reports.charts`.
"""

from __future__ import annotations

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import (
    BLUE,
    GREEN,
    GREY,
    SKY,
    VERMILLION,
    WIDTH,
    _color,
    _shape,
    _title,
    by_order,
    long_label_axis,
    with_order,
)

VERDICTS = ("slower", "faster", "no change", "no significant change", "inconclusive")
"""Every verdict of :mod:`perfwarehouse.compare` (a verdict outside the scale's domain
was drawn without colour or shape: "no significant change" was missing)."""
COLORS = (VERMILLION, GREEN, BLUE, SKY, GREY)
SHAPES = ("triangle-down", "triangle-up", "circle", "diamond", "square")


def changes_chart(rows: pl.DataFrame, *, confidence: float, title: str) -> alt.TopLevelMixin:
    """One row per configuration (``config``, ``worse_pct``, ``worse_low_pct``,
    ``worse_high_pct``: the change and its interval signed + = worse, ``verdict``,
    ``ratio``), in the given order: the change as a point (colour and shape by verdict),
    its interval as a bar, a rule at 0."""
    df = with_order(rows.select("config", "worse_pct", "worse_low_pct", "worse_high_pct",
                                "verdict", "ratio"), "config")
    y = alt.Y("config:N", sort=by_order(), title="configuration", axis=long_label_axis())
    base = alt.Chart(df)
    interval = base.mark_rule(strokeWidth=2, opacity=0.6).encode(
        y=y, x=alt.X("worse_low_pct:Q", title="change of the contender, + = worse (%)"),
        x2="worse_high_pct:Q",
        color=_color("verdict", "verdict", VERDICTS, COLORS))
    point = base.mark_point(filled=True, size=60).encode(
        y=y, x="worse_pct:Q", color=_color("verdict", "verdict", VERDICTS, COLORS),
        shape=_shape("verdict", "verdict", VERDICTS, SHAPES),
        tooltip=[alt.Tooltip("config:N", title="configuration"),
                 alt.Tooltip("worse_pct:Q", format="+.2f", title="change, + = worse %"),
                 alt.Tooltip("worse_low_pct:Q", format="+.2f", title="CI low %"),
                 alt.Tooltip("worse_high_pct:Q", format="+.2f", title="CI high %"),
                 alt.Tooltip("ratio:N", title="ratio"), alt.Tooltip("verdict:N")])
    zero = alt.Chart(pl.DataFrame({"x": [0.0]})).mark_rule(color="#444").encode(x="x:Q")
    height = max(60, 18 * df.height)
    return alt.layer(zero, interval, point).properties(
        width=WIDTH, height=height, title=_title(title),
        description=(f"Each configuration's change (contender against baseline, percent of "
                     f"the typical value, + = worse) with its {100 * confidence:g} % "
                     "interval; vermillion down-triangles are slower, green up-triangles "
                     "faster, blue circles no change, light-blue diamonds no significant "
                     "change, grey squares inconclusive."))
