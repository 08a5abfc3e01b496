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

from typing import cast

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.columns import CONFIGURATION_COLUMNS, col
from perfwarehouse.reports.history_charts import (
    full_name,
    normalised,
    plain_series_chart,
    series_chart,
    wrap,
)
from perfwarehouse.reports.history_mixed import mixed_notice
from perfwarehouse.reports.page import (
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
        pts, cps = _readable(pts, cps)
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


def _readable(points: pl.DataFrame, rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A series' values (and its rows' segment medians) in a unit that reads without a
    row of zeros (31.3 µs, not 0.0000313 s: :func:`charts.readable_unit`)."""
    factor, unit = charts.readable_unit(points["value"], rows["unit"][0])
    if factor == 1.0:
        return points, rows
    medians = [c for c in ("median_before", "median_after") if c in rows.columns]
    return (points.with_columns(pl.col("value") * factor),
            rows.with_columns(*(pl.col(c) * factor for c in medians),
                              unit=pl.lit(unit, pl.String)))


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
        pts, meta = _readable(pts, meta)
        row = meta.row(0, named=True)
        title = wrap(f"{full_name(row)} on {row['hardware_type']} ({row['campaign']})")
        blocks.append(Figure(plain_series_chart(pts, row, title=title,
                                                subtitle=row["reason"] or "no change point"),
                             f"history-{len(blocks)}"))
    return Section("Series, longest first (no change point found)",
                   "Each point is one trial; the horizontal line is the series' median.",
                   tuple(blocks))


def charts_limit() -> int:
    return TOP_SERIES


INDEX_COLUMNS = (
    *CONFIGURATION_COLUMNS,
    col("direction"), col("shift"),
    col("worse_pct"),
    col("worse_low_pct"), col("worse_high_pct"),
    col("revision_before"), col("revision"),
    col("revision_time"), col("started_at"),
    col("position"), col("n_points"),
    col("median_before"),
    col("median_after"), col("p_value"),
    col("reason_not_step"),
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


UNCHANGED_COLUMNS = (*CONFIGURATION_COLUMNS, col("n_points"),
                     col("p_value_first"),
                     col("reason_no_change"))


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
