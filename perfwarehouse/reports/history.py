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

import textwrap
from typing import Any, cast

import altair as alt
import numpy as np
import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.history_mixed import mixed_notice
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
    format_settings,
)

TOP_SERIES = 12
"""Configurations drawn (largest change first); the index table lists every change."""
MAX_POINTS = 1200
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
    elif (drawn := unchanged_series_section(df, series)) is not None:
        sections.append(drawn)
    sections.append(unchanged_section(df))
    return Page("History: change points", INTRO, tuple(sections), lines, name="history",
                verdict=verdict(df, changes))


def _key(df: pl.DataFrame) -> pl.Expr:
    return pl.concat_str([pl.col("campaign"), pl.col("hardware_type"),
                          pl.col("config_id").cast(pl.String)], separator="\x1f")


VERDICT_CHANGES = 5
"""Changes the verdict names (the largest regressions, then the largest improvements)."""


def normalised(changes: pl.DataFrame) -> pl.DataFrame:
    """The change and its CI made "+ = worse" by the metric's direction (a longer time or a
    lower throughput), as on the other pages: ``worse_pct``, ``worse_low_pct``,
    ``worse_high_pct``."""
    return charts.plus_is_worse(changes, "change_pct", "ci_low_pct", "ci_high_pct",
                                ("worse_pct", "worse_low_pct", "worse_high_pct"))


def _when(row: dict) -> str:
    """Where a change starts: its first revision after and that trial's date."""
    started = row["started_at"]
    date = started.strftime("%Y-%m-%d") if hasattr(started, "strftime") else str(started or "")
    return (f"from revision {row['revision']} ({date})" if row["revision"]
            else f"from {date}")


def steps(changes: pl.DataFrame) -> pl.DataFrame:
    """The change points that are steps: not level shifts of a drifting or cycling series,
    nor the last points of a series at no new revision (``shift``; NULL in runs before it
    existed counts as a step), nor the change points of a series that mixes what should
    be apart (``mixed``)."""
    if "mixed" in changes.columns:
        changes = changes.filter(pl.col("mixed").is_null())
    if "shift" not in changes.columns:
        return changes
    return changes.filter(pl.col("shift").is_null() | (pl.col("shift") == "step"))


def words(changes: pl.DataFrame) -> tuple[str, str]:
    """What a worse and a better step are called: regression and improvement where the
    series are ordered by revision, else (no revision to blame) level shifts."""
    if changes.height and changes["revision"].null_count() == changes.height:
        return "worse level shift", "better level shift"
    return "regression", "improvement"


def verdict(df: pl.DataFrame, changes: pl.DataFrame) -> Verdict:
    """The changes that matter: the largest regressions (then improvements), each with its
    size (+ = worse), configuration, revision and date; alarm when there is a regression
    (a step for the worse)."""
    section = verdict_section(df, changes)
    regressions = steps(changes).filter(pl.col("direction") == "regression").height
    level: VerdictLevel = "alarm" if regressions else "ok" if changes.height == 0 else "info"
    text = " ".join(b.text for b in section.blocks if isinstance(b, Notice))
    if df.height and df.filter(pl.col("reason").str.starts_with("too short")).height == df.height:
        # nothing was tested: not "nothing found"
        level, text = "info", ("Could not test: every series is shorter than the test needs "
                               "(twice --min-size trials). " + text)
    return Verdict(text, level)


def verdict_section(df: pl.DataFrame, changes: pl.DataFrame) -> Section:
    n_series = df.select(_key(df).n_unique()).item() if df.height else 0
    n_changed = changes.select(_key(changes).n_unique()).item() if changes.height else 0
    stepped = steps(changes)
    regressions = stepped.filter(pl.col("direction") == "regression")
    improvements = stepped.filter(pl.col("direction") == "improvement")
    worse, better = words(changes)
    n_mixed = (changes.filter(pl.col("mixed").is_not_null()).height
               if "mixed" in changes.columns else 0)
    shifted = changes.height - stepped.height - n_mixed
    short = df.filter(pl.col("reason").str.starts_with("too short")).height
    alpha = cast("float | None", df["alpha"].max()) if df.height else None  # a Float64 column
    blocks: list[Notice] = []
    if (mixed := mixed_notice(df)) is not None:
        blocks.append(mixed)
    ranked = normalised(regressions).sort(pl.col("worse_pct").abs(), descending=True)
    if ranked.height:
        items = [f"{r['worse_pct']:+.1f} % {r['config']} on {r['hardware_type']} {_when(r)}"
                 for r in ranked.head(VERDICT_CHANGES).iter_rows(named=True)]
        more = (f" (and {ranked.height - VERDICT_CHANGES:,} smaller)"
                if ranked.height > VERDICT_CHANGES else "")
        blocks.append(Notice(f"{ranked.height:,} {worse}{'s' if ranked.height != 1 else ''}"
                             f", the largest first (+ = worse): " + "; ".join(items) + more
                             + "."))
    gains = normalised(improvements).sort(pl.col("worse_pct").abs(), descending=True)
    if gains.height:
        top = gains.row(0, named=True)
        blocks.append(Notice(f"{gains.height:,} {better}{'s' if gains.height != 1 else ''}"
                             f"; the largest {top['worse_pct']:+.1f} % {top['config']} on "
                             f"{top['hardware_type']} {_when(top)}."))
    if shifted:
        kinds = (changes.filter(pl.col("mixed").is_null()) if n_mixed else changes).filter(
            pl.col("shift").is_in(["level shift", "tail"]))
        drift = kinds.filter(pl.col("shift") == "level shift").height
        blocks.append(Notice(
            f"{shifted:,} change point{'s' if shifted != 1 else ''} not counted as steps: "
            f"{drift:,} level shift{'s' if drift != 1 else ''} of series that drift or cycle "
            f"(a smooth model of time explains them; the permutation test assumes a "
            f"stationary series), {shifted - drift:,} in the last points of a series at no "
            f"new revision. The index lists them with the reason."))
    blocks.append(Notice(
        f"{changes.height:,} change point{'s' if changes.height != 1 else ''} in {n_changed:,} "
        f"of {n_series:,} series: {regressions.height:,} {worse}"
        f"{'s' if regressions.height != 1 else ''} (▼), {improvements.height:,} {better}"
        f"{'s' if improvements.height != 1 else ''} (▲)"
        + (f", {shifted:,} not steps" if shifted else "")
        + (f", {n_mixed:,} in mixed series" if n_mixed else "")
        + (f"; {short:,} series too short to test" if short else "")
        + (f" (α = {alpha:g} per series)." if alpha is not None else ".")))
    return Section("Verdict", "", tuple(blocks))


def series_section(changes: pl.DataFrame, series: pa.Table) -> Section:
    points = pl.from_arrow(series)
    assert isinstance(points, pl.DataFrame)
    is_step = (pl.col("shift").is_null() | (pl.col("shift") == "step")
               if "shift" in changes.columns else pl.lit(True))
    order = (changes.with_columns(step=is_step)
             .group_by(["campaign", "hardware_type", "config_id"], maintain_order=True)
             .agg(stepped=pl.col("step").any(), size=pl.col("change_pct").abs().max())
             .sort(["stepped", "size"], descending=True).head(charts_limit()))
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
        title = wrap(f"{full_name(first)} on {first['hardware_type']} ({first['campaign']})")
        worst = normalised(cps.filter(pl.col("position") == biggest["position"])).row(0, named=True)
        subtitle = (f"{cps.height} change point{'s' if cps.height != 1 else ''}; largest "
                    f"{worst['worse_pct']:+.2f} %, + = worse ({biggest['direction']})")
        blocks.append(Figure(series_chart(pts, cps, title=title, subtitle=subtitle),
                             f"history-{len(blocks)}"))
    n_changed = changes.select(_key(changes).n_unique()).item()
    if n_changed > len(blocks):
        blocks.append(Notice(f"{n_changed - len(blocks):,} more configurations changed; the "
                             "index table below lists every change."))
    return Section("Configurations with changes, largest first",
                   "Each point is one trial; the horizontal lines are the medians of the "
                   "segments between change points, the vertical lines the change points. "
                   "Series with a step come first, then those whose changes are only level "
                   "shifts of a drift or cycle (the index says which is which).",
                   tuple(blocks))


def unchanged_series_section(df: pl.DataFrame, series: pa.Table) -> Section | None:
    """The longest series when none has a change point: each trial's value over time with
    the series' median, so a page without changes still shows what was tested (None when
    there is no series to draw)."""
    points = pl.from_arrow(series)
    assert isinstance(points, pl.DataFrame)
    blocks: list[Figure | Notice] = []
    if points.height == 0:
        return None
    keys = points.select(["campaign", "hardware_type", "config_id"]).unique(maintain_order=True)
    for key in keys.iter_rows(named=True):
        meta = df.filter((pl.col("campaign") == key["campaign"])
                         & (pl.col("hardware_type") == key["hardware_type"])
                         & (pl.col("config_id") == key["config_id"]))
        pts = points.filter((pl.col("campaign") == key["campaign"])
                            & (pl.col("hardware_type") == key["hardware_type"])
                            & (pl.col("config_id") == key["config_id"])).sort("idx")
        if meta.height == 0 or pts.height == 0:
            continue
        row = meta.row(0, named=True)
        title = wrap(f"{full_name(row)} on {row['hardware_type']} ({row['campaign']})")
        blocks.append(Figure(plain_series_chart(pts, row, title=title,
                                                subtitle=row["reason"] or "no change point"),
                             f"history-{len(blocks)}"))
    return Section("Series, longest first (no change point found)",
                   "Each point is one trial; the horizontal line is the series' median.",
                   tuple(blocks))


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
              scale=alt.Scale(nice=False))
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


def full_name(row: dict) -> str:
    """A configuration's full name: the benchmark, every setting (k=v) and the metric."""
    settings = format_settings(row["settings"])
    return " ".join(x for x in (row["benchmark"], settings, f"[{row['metric']}]") if x)


def wrap(text: str, width: int = 95) -> list[str]:
    """A chart title as lines of at most ``width`` characters (never cut)."""
    return textwrap.wrap(text, width) or [""]


def charts_limit() -> int:
    return TOP_SERIES


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
              scale=alt.Scale(nice=False))
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


INDEX_COLUMNS = (
    *CONFIGURATION_COLUMNS,
    Column("direction", "change"), Column("shift", "kind"),
    Column("worse_pct", "change, + = worse (%)", "pct"),
    Column("worse_low_pct", "CI low (%)", "pct"), Column("worse_high_pct", "CI high (%)", "pct"),
    Column("revision_before", "last revision before"), Column("revision", "first revision after"),
    Column("revision_time", "revision time"), Column("started_at", "first trial after"),
    Column("position", "position", "int"), Column("n_points", "trials", "int"),
    Column("median_before", "median before", "float"),
    Column("median_after", "median after", "float"), Column("p_value", "p", "pvalue"),
    Column("reason", "why not a step"),
)


def index_section(changes: pl.DataFrame) -> Section:
    rows = normalised(changes).with_columns(direction=pl.when(pl.col("direction") == "regression")
                                .then(pl.lit("▼ regression"))
                                .when(pl.col("direction") == "improvement")
                                .then(pl.lit("▲ improvement")).otherwise(pl.lit("")))
    rows = rows.sort(pl.col("change_pct").abs(), descending=True, nulls_last=True)
    return Section("Every change", "", (capped_table(
        "Change points, largest first",
        "One row per change point: the revisions either side of it, the change in % of the "
        "typical value after against before with its CI (+ = worse by the metric's direction: "
        "a longer time or a lower throughput), the segment medians, the "
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
