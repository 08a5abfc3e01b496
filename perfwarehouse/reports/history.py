"""The history report: when did performance change, over revisions (or time)?

From ``change_points`` (job ``analyze change-points``: E-divisive means with a permutation
test, Matteson & James, JASA 2014): a verdict (how many series changed, regressions and
improvements), the configurations with the largest changes drawn as their series of trial
values with the change points and the segment medians, and an index table of every change.
A regression is drawn red with a downward triangle and the word "regression", an
improvement green with an upward triangle and "improvement" (the direction comes from the
metric: for a throughput a drop is a regression, for a run time a rise), so the page
reads without colour.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.page import (
    CONFIGURATION_COLUMNS,
    Column,
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Verdict,
    VerdictLevel,
    capped_table,
)

TOP_SERIES = 12
"""Configurations drawn (largest change first); the index table lists every change."""
MAX_POINTS = 3000
"""Trial values drawn per series at most (evenly thinned by position beyond)."""
DIRECTIONS = ("regression", "improvement")
DIRECTION_COLORS = ("#d62728", "#1a9641")
DIRECTION_SHAPES = ("triangle-down", "triangle-up")

INTRO = (
    "When did each configuration's performance change? The trial values of every configuration "
    "and hardware type (the median of each trial's iterations), ordered by the time of their "
    "revision and then by start (or by start only), are searched for change points with "
    "E-divisive means (Matteson & James 2014, as Otava and MongoDB use it) on ranks, each split "
    "tested by permutations of the segment: a series without any change gets a change point "
    "with probability at most α. A change is the ratio of the typical values after and before "
    "it (log-scale Hodges-Lehmann shift, with its distribution-free CI); regressions are red "
    "(▼), improvements green (▲), by the direction of the metric.")


def build(data: ReportData, request: Request) -> Page:
    lines = provenance(data.job_runs("change-points", request), "change-points")
    rows = data.results("change_points", "history_changes",
                        "perfwarehouse analyze change-points", request)
    if isinstance(rows, Missing):
        return Page("History: change points", INTRO,
                    (Section("No change-point analysis yet", "", (rows.notice(),)),),
                    tuple(lines), name="history", verdict=Verdict(
                        "Not analysed yet: run `perfwarehouse analyze change-points`, then "
                        "write this report again.", "missing"))
    series = data.query("history_series", campaign=request.campaign, top=TOP_SERIES)
    return build_page(rows, series, tuple(lines))


def build_page(rows: pa.Table, series: pa.Table, lines: tuple[str, ...] = ()) -> Page:
    """The page from the rows of ``report_history_changes.sql`` and
    ``report_history_series.sql`` (pure)."""
    df = charts.labelled(rows)
    changes = df.filter(pl.col("position").is_not_null())
    sections = []
    if changes.height:
        sections.append(series_section(changes, series))
        sections.append(index_section(changes))
    sections.append(unchanged_section(df))
    return Page("History: change points", INTRO, tuple(sections), lines, name="history",
                verdict=verdict(df, changes))


def _key(df: pl.DataFrame) -> pl.Series:
    return pl.concat_str([pl.col("campaign"), pl.col("hardware_type"),
                          pl.col("config_id").cast(pl.String)], separator="\x1f")


def verdict(df: pl.DataFrame, changes: pl.DataFrame) -> Verdict:
    """How many series changed, regressions and improvements, and the largest change
    (alarm when there is a regression)."""
    section = verdict_section(df, changes)
    regressions = changes.filter(pl.col("direction") == "regression").height
    level: VerdictLevel = "alarm" if regressions else "ok" if changes.height == 0 else "info"
    return Verdict(" ".join(b.text for b in section.blocks if isinstance(b, Notice)), level)


def verdict_section(df: pl.DataFrame, changes: pl.DataFrame) -> Section:
    n_series = df.select(_key(df).n_unique()).item() if df.height else 0
    n_changed = changes.select(_key(changes).n_unique()).item() if changes.height else 0
    regressions = changes.filter(pl.col("direction") == "regression").height
    improvements = changes.filter(pl.col("direction") == "improvement").height
    short = df.filter(pl.col("reason").str.starts_with("too short")).height
    alpha = df["alpha"].max() if df.height else None
    text = (f"{changes.height:,} change point{'s' if changes.height != 1 else ''} in "
            f"{n_changed:,} of {n_series:,} series: {regressions:,} regression"
            f"{'s' if regressions != 1 else ''} (▼), {improvements:,} improvement"
            f"{'s' if improvements != 1 else ''} (▲)"
            + (f"; {short:,} series too short to test" if short else "")
            + (f" (α = {alpha:g} per series)." if alpha is not None else "."))
    blocks: list[Notice] = [Notice(text)]
    if changes.height:
        big = changes.sort(pl.col("change_pct").abs(), descending=True).row(0, named=True)
        where = big["revision"] or f"{big['started_at']}"
        blocks.append(Notice(
            f"Largest: {big['config']} on {big['hardware_type']}: {big['change_pct']:+.2f} % "
            f"({big['direction']}) from {where} on (median {big['median_before']:.4g} → "
            f"{big['median_after']:.4g} {big['unit'] or ''})."))
    return Section("Verdict", "", tuple(blocks))


def series_section(changes: pl.DataFrame, series: pa.Table) -> Section:
    points = pl.from_arrow(series)
    assert isinstance(points, pl.DataFrame)
    order = (changes.group_by(["campaign", "hardware_type", "config_id"], maintain_order=True)
             .agg(size=pl.col("change_pct").abs().max())
             .sort("size", descending=True).head(charts_limit()))
    blocks: list[Figure | Notice] = []
    for key in order.iter_rows(named=True):
        cps = changes.filter((pl.col("campaign") == key["campaign"])
                             & (pl.col("hardware_type") == key["hardware_type"])
                             & (pl.col("config_id") == key["config_id"])).sort("position")
        pts = points.filter((pl.col("campaign") == key["campaign"])
                            & (pl.col("hardware_type") == key["hardware_type"])
                            & (pl.col("config_id") == key["config_id"])).sort("idx")
        if pts.height == 0:
            continue
        first = cps.row(0, named=True)
        biggest = cps.sort(pl.col("change_pct").abs(), descending=True).row(0, named=True)
        title = f"{first['config']} on {first['hardware_type']} ({first['campaign']})"
        subtitle = (f"{cps.height} change point{'s' if cps.height != 1 else ''}; largest "
                    f"{biggest['change_pct']:+.2f} % ({biggest['direction']})")
        blocks.append(Figure(series_chart(pts, cps, title=title, subtitle=subtitle),
                             f"history-{len(blocks)}"))
    n_changed = changes.select(_key(changes).n_unique()).item()
    if n_changed > len(blocks):
        blocks.append(Notice(f"{n_changed - len(blocks):,} more configurations changed; the "
                             "index table below lists every change."))
    return Section("Configurations with changes, largest first",
                   "Each point is one trial; the horizontal lines are the medians of the "
                   "segments between change points, the vertical lines the change points.",
                   tuple(blocks))


def charts_limit() -> int:
    return TOP_SERIES


def segments(cps: pl.DataFrame, n_points: int) -> pl.DataFrame:
    """The segments between change points: start, end (exclusive) and median."""
    rows = []
    start = 0
    for cp in cps.iter_rows(named=True):
        rows.append({"start": float(start) - 0.5, "end": float(cp["position"]) - 0.5,
                     "median": cp["median_before"]})
        start = cp["position"]
    last = cps.row(cps.height - 1, named=True)
    rows.append({"start": float(start) - 0.5, "end": float(n_points) - 0.5,
                 "median": last["median_after"]})
    return pl.DataFrame(rows, schema={"start": pl.Float64, "end": pl.Float64,
                                      "median": pl.Float64})


def series_chart(points: pl.DataFrame, cps: pl.DataFrame, *, title: str,
                 subtitle: str) -> alt.LayerChart:
    """One configuration's trial values with its change points and segment medians.

    ``points``: ``idx``, ``value``, ``revision``, ``started_at``; ``cps``: the rows of its
    change points (``position``, ``median_before``, ``median_after``, ``change_pct``,
    ``direction``, ``revision``, ``unit``, ``ordered_by``).
    """
    first = cps.row(0, named=True)
    unit = first["unit"]
    order_text = ("revision order (by revision time, then start)"
                  if first["ordered_by"] == "revision" else "order of start")
    n_points = int(first["n_points"])
    pts = charts.thin_sorted(points.select(["idx", "value", "revision", "started_at"])
                             .with_columns(pl.col("started_at").cast(pl.String)), MAX_POINTS)
    pts = charts.frame(pts, ["idx", "value", "revision", "started_at"])
    x = alt.X("idx:Q", title=f"trial, in {order_text}",
              scale=alt.Scale(domain=[-0.5, n_points - 0.5], nice=False))
    y_title = charts.unit_title(first["metric"] or "value", unit)
    dots = alt.Chart(pts).mark_circle(size=14, color="#7f7f7f", opacity=0.6).encode(
        x=x, y=alt.Y("value:Q", title=y_title, scale=alt.Scale(zero=False)),
        tooltip=[alt.Tooltip("idx:Q", title="trial #"), "revision:N",
                 alt.Tooltip("started_at:N", title="started at"),
                 alt.Tooltip("value:Q", format=".4g")])
    seg = charts.frame(segments(cps, n_points), ["start", "end", "median"])
    medians = alt.Chart(seg).mark_rule(strokeWidth=3, color="#222").encode(
        x="start:Q", x2="end:Q", y="median:Q",
        tooltip=[alt.Tooltip("median:Q", format=".4g", title="segment median")])
    marks = cps.select(["position", "change_pct", "ci_low_pct", "ci_high_pct", "direction",
                        "revision", "revision_before", "median_before", "median_after",
                        "p_value"]).with_columns(
        at=pl.col("position").cast(pl.Float64) - 0.5,
        label=pl.format("{}{} % {}", pl.when(pl.col("change_pct") >= 0).then(pl.lit("+"))
                        .otherwise(pl.lit("")), pl.col("change_pct").round(2),
                        pl.col("direction").fill_null("")))
    marks = marks.with_columns(label=pl.when(pl.Series(label_fits(
        marks["at"].to_numpy(), marks["change_pct"].to_numpy(), marks["label"].str.len_chars()
        .to_numpy(), n_points, WIDTH_PX))).then(pl.col("label")).otherwise(pl.lit("")))
    marks = charts.frame(marks, marks.columns)
    color_scale = alt.Scale(domain=list(DIRECTIONS), range=list(DIRECTION_COLORS))
    color = alt.Color("direction:N", title="change", scale=color_scale)
    shape = alt.Shape("direction:N", title="change",
                      scale=alt.Scale(domain=list(DIRECTIONS), range=list(DIRECTION_SHAPES)))
    tip = [alt.Tooltip("change_pct:Q", format="+.2f", title="change %"),
           alt.Tooltip("ci_low_pct:Q", format="+.2f", title="CI low %"),
           alt.Tooltip("ci_high_pct:Q", format="+.2f", title="CI high %"),
           alt.Tooltip("revision_before:N", title="last revision before"),
           alt.Tooltip("revision:N", title="first revision after"),
           alt.Tooltip("median_before:Q", format=".4g", title="median before"),
           alt.Tooltip("median_after:Q", format=".4g", title="median after"),
           alt.Tooltip("p_value:Q", format=".3g", title="p")]
    rules = alt.Chart(marks).mark_rule(strokeWidth=2, strokeDash=[5, 3]).encode(
        x="at:Q", color=color, tooltip=tip)
    glyphs = alt.Chart(marks).mark_point(filled=True, size=120, opacity=1).encode(
        x="at:Q", y=alt.value(8), color=color, shape=shape, tooltip=tip)
    style = {"align": "left", "dx": LABEL_GAP_PX, "dy": 0, "fontSize": 11, "fontWeight": "bold"}
    halo = alt.Chart(marks).mark_text(**style, stroke="white", strokeWidth=4).encode(
        x="at:Q", y=alt.value(8), text="label:N")  # legible over lines and triangles
    text = alt.Chart(marks).mark_text(**style).encode(
        x="at:Q", y=alt.value(8), text="label:N", color=alt.Color("direction:N", legend=None,
                                                                   scale=color_scale))
    return alt.layer(dots, medians, rules, glyphs, halo, text).properties(
        width=WIDTH_PX, height=charts.HEIGHT,
        title=charts._title(title, subtitle),
        description=(
            "Grey points: trial values in order; black lines: the median of each segment "
            "between change points; dashed vertical lines: change points, red with ▼ for a "
            "regression and green with ▲ for an improvement (by the metric's direction), "
            "the largest labelled with the change in % of the typical value (those whose "
            "label has room; every one has its tooltip)."),
    )


WIDTH_PX = charts.WIDTH + 180  # a series chart's plot width
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


INDEX_COLUMNS = (
    *CONFIGURATION_COLUMNS,
    Column("direction", "change"), Column("change_pct", "change (%)", "pct"),
    Column("ci_low_pct", "CI low (%)", "pct"), Column("ci_high_pct", "CI high (%)", "pct"),
    Column("revision_before", "last revision before"), Column("revision", "first revision after"),
    Column("revision_time", "revision time"), Column("started_at", "first trial after"),
    Column("position", "position", "int"), Column("n_points", "trials", "int"),
    Column("median_before", "median before", "float"),
    Column("median_after", "median after", "float"), Column("p_value", "p", "pvalue"),
)


def index_section(changes: pl.DataFrame) -> Section:
    rows = changes.with_columns(direction=pl.when(pl.col("direction") == "regression")
                                .then(pl.lit("▼ regression"))
                                .when(pl.col("direction") == "improvement")
                                .then(pl.lit("▲ improvement")).otherwise(pl.lit("")))
    rows = rows.sort(pl.col("change_pct").abs(), descending=True, nulls_last=True)
    return Section("Every change", "", (capped_table(
        "Change points, largest first",
        "One row per change point: the revisions either side of it, the change in % of the "
        "typical value after against before with its CI, the segment medians, the "
        "permutation p-value. Click a header to sort, type to filter.",
        INDEX_COLUMNS, rows),))


UNCHANGED_COLUMNS = (*CONFIGURATION_COLUMNS, Column("n_points", "trials", "int"),
                     Column("p_value", "p of the first test", "pvalue"),
                     Column("reason", "why no change point"))


def unchanged_section(df: pl.DataFrame) -> Section:
    rest = df.filter(pl.col("position").is_null())
    if rest.height == 0:
        return Section("Series without change points", "",
                       (Notice("Every series has at least one change point."),))
    rest = rest.sort(["campaign", "hardware_type", "benchmark", "settings", "metric"])
    return Section("Series without change points", "", (capped_table(
        "Series without change points",
        "Series with no significant change, or too short to test (the test needs twice the "
        "minimum segment size).", UNCHANGED_COLUMNS, rest),))


REPORT = Report(
    "history",
    "History: the change points of every configuration over revisions (or time), largest "
    "first, drawn with their segment medians, and an index of every change "
    "(run `perfwarehouse analyze change-points` first).",
    build)
