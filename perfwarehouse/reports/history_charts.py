"""The charts of the history page (:mod:`perfwarehouse.reports.history`): a
configuration's trial values over its revisions (or time) with the change points, the
segment medians and labels that do not overlap, and the plain series of one without
change points. A regression is red with a downward triangle, an improvement green with
an upward one (the page reads without colour)."""

from __future__ import annotations

import textwrap
from typing import Any, cast

import altair as alt
import numpy as np
import polars as pl

from perfwarehouse.reports import charts
from perfwarehouse.reports.page import format_settings

MAX_POINTS = 1200
"""Trial values drawn per series at most (evenly thinned by position beyond)."""
DIRECTIONS = ("regression", "improvement")
DIRECTION_COLORS = ("#d62728", "#1a9641")
DIRECTION_SHAPES = ("triangle-down", "triangle-up")


def plain_series_chart(points: pl.DataFrame, row: dict, *, title: str | list[str],
                       subtitle: str) -> charts.Layered:
    """One configuration's trial values over time (the revision's time for a series ordered
    by revision, else the trial's start) with its median, for a series without change
    points; ``row``: its change_points row (``unit``, ``metric``, ``ordered_by``)."""
    by_revision = (row["ordered_by"] == "revision"
                   and points["revision_time"].is_not_null().any())
    pts = points.sort("idx").with_columns(
        x=(pl.coalesce(_ms("revision_time"), _ms("started_at")) if by_revision
           else _ms("started_at")),
        date=pl.col("started_at").dt.strftime("%Y-%m-%d %H:%M"),
        commit=pl.col("revision").fill_null("—"))
    median = float(cast(float, pts["value"].median()))
    pts = charts.frame(charts.thin_sorted(pts, MAX_POINTS), ["x", "value", "commit", "date"])
    x = alt.X("x:T", title="revision (by commit time)" if by_revision else "trial start (UTC)",
              scale=alt.Scale(nice=False), axis=charts.time_axis())
    y = alt.Y("value:Q", title=charts.unit_title(row["metric"] or "value", row["unit"]),
              scale=alt.Scale(zero=False))
    dots = alt.Chart(pts).mark_circle(size=14, color="#7f7f7f", opacity=0.6).encode(
        x=x, y=y, tooltip=[alt.Tooltip("commit:N", title="commit"),
                           alt.Tooltip("date:N", title="started (UTC)"),
                           alt.Tooltip("value:Q", format=".4g", title="value")])
    line = alt.Chart(charts.frame(pl.DataFrame({"median": [median]}), ["median"])).mark_rule(
        strokeWidth=3, color="#222").encode(
        y="median:Q", tooltip=[alt.Tooltip("median:Q", format=".4g", title="median")])
    return alt.layer(dots, line).properties(
        width=WIDTH_PX, height=charts.HEIGHT,
        title=alt.Title(title, subtitle=subtitle, anchor="start"),
        description=("Grey points: trial values over time (a series ordered by revision: at "
                     "its revision's commit time); black line: the series' median. No change "
                     "point was found in it."))


def normalised(changes: pl.DataFrame) -> pl.DataFrame:
    """The change and its CI made "+ = worse" by the metric's direction (a longer time or a
    lower throughput), as on the other pages: ``worse_pct``, ``worse_low_pct``,
    ``worse_high_pct``."""
    return charts.plus_is_worse(changes, "change_pct", "ci_low_pct", "ci_high_pct",
                                ("worse_pct", "worse_low_pct", "worse_high_pct"))


def full_name(row: dict) -> str:
    """A configuration's full name: the benchmark, every setting (k=v) and the metric."""
    settings = format_settings(row["settings"])
    return " ".join(x for x in (row["benchmark"], settings, f"[{row['metric']}]") if x)


def wrap(text: str, width: int = 95) -> list[str]:
    """A chart title as lines of at most ``width`` characters (never cut)."""
    return textwrap.wrap(text, width) or [""]


def segments(cps: pl.DataFrame, n_points: int) -> pl.DataFrame:
    """The segments between change points: first and last trial (positions, inclusive) and
    median."""
    rows = []
    start = 0
    for cp in cps.iter_rows(named=True):
        rows.append({"first": start, "last": int(cp["position"]) - 1,
                     "median": cp["median_before"]})
        start = int(cp["position"])
    last = cps.row(cps.height - 1, named=True)
    rows.append({"first": start, "last": n_points - 1, "median": last["median_after"]})
    return pl.DataFrame(rows, schema={"first": pl.Int64, "last": pl.Int64,
                                      "median": pl.Float64})


def _ms(column: str) -> pl.Expr:
    return pl.col(column).dt.epoch("ms").cast(pl.Float64)


def timeline(points: pl.DataFrame, cps: pl.DataFrame, by_revision: bool
             ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The series on a time axis: each trial at its revision's time (a revision-ordered
    series: the trials of a commit in one column) or its start, with its segment's median;
    the segments' ends and each change point between the last trial before it and the first
    after (``at``), in milliseconds since the epoch."""
    pts = points.sort("idx").with_columns(
        x=(pl.coalesce(_ms("revision_time"), _ms("started_at")) if by_revision
           else _ms("started_at")))
    seg = segments(cps, pts.height)
    which = np.searchsorted(np.asarray(cps["position"].to_list(), dtype=np.int64),
                            pts["idx"].to_numpy(), side="right")
    pts = pts.with_columns(segment_median=pl.Series(seg["median"].to_numpy()[which]),
                           date=pl.col("started_at").dt.strftime("%Y-%m-%d %H:%M"),
                           commit=pl.col("revision").fill_null("—"))
    x = pts["x"].to_numpy()
    n = x.size
    seg = seg.with_columns(
        start=pl.Series([x[min(max(i, 0), n - 1)] for i in seg["first"]], dtype=pl.Float64),
        end=pl.Series([x[min(max(i, 0), n - 1)] for i in seg["last"]], dtype=pl.Float64))
    at = [(x[max(p - 1, 0)] + x[min(p, n - 1)]) / 2 for p in cps["position"].to_list()]
    marks = normalised(cps).with_columns(at=pl.Series(at, dtype=pl.Float64))
    return pts, seg, marks


def series_chart(points: pl.DataFrame, cps: pl.DataFrame, *, title: str | list[str],
                 subtitle: str) -> charts.Layered:
    """One configuration's trial values with its change points and segment medians, over
    time: the revision's time for a series ordered by revision, else the trial's start.

    ``points``: ``idx``, ``value``, ``revision``, ``revision_time``, ``started_at``;
    ``cps``: the rows of its change points (``position``, ``median_before``,
    ``median_after``, ``change_pct``, ``direction``, ``revision``, ``unit``,
    ``ordered_by``, ``higher_is_better``).
    """
    first = cps.row(0, named=True)
    unit = first["unit"]
    by_revision = (first["ordered_by"] == "revision"
                   and points["revision_time"].is_not_null().any())
    pts, seg, marks = timeline(points, cps, by_revision)
    pts = charts.frame(charts.thin_sorted(pts, MAX_POINTS),
                       ["x", "value", "commit", "date", "segment_median"])
    x = alt.X("x:T", title="revision (by commit time)" if by_revision else "trial start (UTC)",
              scale=alt.Scale(nice=False), axis=charts.time_axis())
    y_title = charts.unit_title(first["metric"] or "value", unit)
    dots = alt.Chart(pts).mark_circle(size=14, color="#7f7f7f", opacity=0.6).encode(
        x=x, y=alt.Y("value:Q", title=y_title, scale=alt.Scale(zero=False)),
        tooltip=[alt.Tooltip("commit:N", title="commit"),
                 alt.Tooltip("date:N", title="started (UTC)"),
                 alt.Tooltip("value:Q", format=".4g", title="value"),
                 alt.Tooltip("segment_median:Q", format=".4g", title="segment median")])
    seg = charts.frame(seg, ["start", "end", "median"])
    medians = alt.Chart(seg).mark_rule(strokeWidth=3, color="#222").encode(
        x="start:T", x2="end:T", y="median:Q",
        tooltip=[alt.Tooltip("median:Q", format=".4g", title="segment median")])
    marks = marks.select(["at", "position", "worse_pct", "worse_low_pct", "worse_high_pct",
                          "direction", "revision", "revision_before", "median_before",
                          "median_after", "p_value", "started_at"]).with_columns(
        date=pl.col("started_at").cast(pl.String).str.slice(0, 16),
        label=pl.format("{}{} % {}", pl.when(pl.col("worse_pct") >= 0).then(pl.lit("+"))
                        .otherwise(pl.lit("")), pl.col("worse_pct").round(2),
                        pl.col("direction").fill_null("")))
    # x is a Float64 column (ms since the epoch): its min and max are floats
    span = (float(cast(float, pts["x"].max()) - cast(float, pts["x"].min()))
            if pts.height > 1 else 1.0)
    x_min = float(cast(float, pts["x"].min()))
    fits = label_fits(((marks["at"] - x_min) / (span or 1.0) * 1000).to_numpy(),
                      marks["worse_pct"].to_numpy(), marks["label"].str.len_chars().to_numpy(),
                      1000, WIDTH_PX)
    marks = marks.with_columns(label=pl.when(pl.Series(fits)).then(pl.col("label"))
                               .otherwise(pl.lit(""))).drop("started_at")
    marks = charts.frame(marks, marks.columns)
    color_scale = alt.Scale(domain=list(DIRECTIONS), range=list(DIRECTION_COLORS))
    color = alt.Color("direction:N", title="change", scale=color_scale)
    shape = alt.Shape("direction:N", title="change",
                      scale=alt.Scale(domain=list(DIRECTIONS), range=list(DIRECTION_SHAPES)))
    tip = [alt.Tooltip("worse_pct:Q", format="+.2f", title="change, + = worse (%)"),
           alt.Tooltip("worse_low_pct:Q", format="+.2f", title="CI low (%)"),
           alt.Tooltip("worse_high_pct:Q", format="+.2f", title="CI high (%)"),
           alt.Tooltip("revision_before:N", title="last revision before"),
           alt.Tooltip("revision:N", title="first revision after"),
           alt.Tooltip("date:N", title="first trial after (UTC)"),
           alt.Tooltip("median_before:Q", format=".4g", title="segment median before"),
           alt.Tooltip("median_after:Q", format=".4g", title="segment median after"),
           alt.Tooltip("p_value:Q", format=".3g", title="p")]
    rules = alt.Chart(marks).mark_rule(strokeWidth=2, strokeDash=[5, 3]).encode(
        x="at:T", color=color, tooltip=tip)
    glyphs = alt.Chart(marks).mark_point(filled=True, size=120, opacity=1).encode(
        x="at:T", y=alt.value(8), color=color, shape=shape, tooltip=tip)
    style: dict[str, Any] = {"align": "left", "dx": LABEL_GAP_PX, "dy": 0, "fontSize": 11, "fontWeight": "bold"}
    halo = alt.Chart(marks).mark_text(**style, stroke="white", strokeWidth=4).encode(
        x="at:T", y=alt.value(8), text="label:N")  # legible over lines and triangles
    text = alt.Chart(marks).mark_text(**style).encode(
        x="at:T", y=alt.value(8), text="label:N", color=alt.Color("direction:N", legend=None,
                                                                   scale=color_scale))
    return alt.layer(dots, medians, rules, glyphs, halo, text).properties(
        width=WIDTH_PX, height=charts.HEIGHT,
        title=alt.Title(title, subtitle=subtitle, anchor="start"),
        description=(
            "Grey points: trial values over time (a series ordered by revision: at its "
            "revision's commit time); black lines: the median of each segment between change "
            "points; dashed vertical lines: change points, red with ▼ for a regression and "
            "green with ▲ for an improvement (by the metric's direction), the largest labelled "
            "with the change in % of the typical value, + = worse (those whose label has room; "
            "every one has its tooltip, as every point: commit, date, value, segment median)."),
    )


WIDTH_PX = charts.WIDTH + 120  # a series chart's plot width (with its legend: the page width)
LABEL_CHAR_PX = 7.0  # width of a character of the bold 11 px labels (DejaVu Sans: 6.2-7.0)
LABEL_GAP_PX = 8.0  # the label's offset right of its change point (mark_text dx)


def label_fits(at: np.ndarray, change_pct: np.ndarray, label_chars: np.ndarray,
               n_points: int, width_px: float) -> np.ndarray:
    """Which change points get their label: largest |change| first, each label placed right
    of its change point (``at``, in trials on an axis of ``n_points`` trials ``width_px``
    wide) and kept only if it overlaps no label kept before (one row of labels, drawn over
    the triangles with a white halo)."""
    left = np.asarray(at, dtype=np.float64) * (width_px / max(n_points, 1)) + LABEL_GAP_PX
    right = left + np.asarray(label_chars, dtype=np.float64) * LABEL_CHAR_PX
    size = np.abs(np.nan_to_num(np.asarray(change_pct, dtype=np.float64), nan=-1.0))
    keep = np.zeros(left.size, dtype=bool)
    taken: list[tuple[float, float]] = []
    for i in np.argsort(-size, kind="stable"):
        if all(right[i] + LABEL_GAP_PX <= a or left[i] >= b + LABEL_GAP_PX for a, b in taken):
            keep[i] = True
            taken.append((left[i], right[i]))
    return keep


