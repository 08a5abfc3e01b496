"""The compare page: one kept comparison (``perfwarehouse compare``, table
``comparisons``) as a reader wants it: the verdict first, the changes with their
intervals drawn, and the table with the geometric mean per unit.

The numbers are those ``compare`` printed (the table keeps them); the geometric-mean
rows are computed from the kept medians by :func:`perfwarehouse.compare.summary.geomean_rows`.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from perfwarehouse.options import Option
from perfwarehouse.reports import charts
from perfwarehouse.reports.base import PNG, Report, ReportData, Request
from perfwarehouse.reports.columns import CONFIGURATION_COLUMNS, col
from perfwarehouse.reports.compare_charts import changes_chart
from perfwarehouse.reports.page import (
    Figure,
    Notice,
    Page,
    Section,
    Verdict,
    VerdictLevel,
    capped_table,
)

INTRO = (
    "Is the contender slower than the baseline, by how much, and how sure is it? For every "
    "configuration and hardware type: the change of the typical trial value (log-scale "
    "Hodges-Lehmann shift) with its distribution-free interval, the exact Mann-Whitney "
    "p-value adjusted over the configurations, and a verdict: slower or faster when the "
    "interval lies beyond the threshold and the adjusted p-value is below the level, no change "
    "when the interval lies inside it, otherwise inconclusive (with how many more trials "
    "would settle it). See docs/compare.md for the defaults and their calibration.")
LINKS = (("all reports", "index.html"), ("history", "history.html"))
TOP_DRAWN = 60
"""Configurations drawn (largest change first); the table lists every one."""

OUT = Option(("--out",), kind="file",
             help="The HTML file to write.  [default: reports/compare.html]")
CAMPAIGN = Option(("--campaign",),
                  help="Show the latest comparison of this campaign.  [default: the latest "
                       "of any]")
COMPARISON_ID = Option(("--comparison-id", "comparison_id"), kind="int",
                       help="The kept comparison to show.  [default: the latest (of "
                            "--campaign's, when given)]")


def build(data: ReportData, request: Request) -> Page:
    """Read the comparison and compute what the page shows beside the kept numbers (the
    verdict line, ratios, readable values, the geometric means)."""
    from perfwarehouse.compare import verdict_line
    from perfwarehouse.compare.summary import geomean_rows, ratio_text, readable

    rows = data.query("compare", campaign=request.campaign,
                      comparison_id=request.option("comparison_id"))
    if rows.num_rows == 0:
        text = ("No comparison kept yet: run `perfwarehouse compare --campaign C --baseline A "
                "--contender B`, then write this report again.")
        return Page("Compare", INTRO, (Section("No comparison yet", "",
                                                (Notice(text, "missing"),)),),
                    name="compare", verdict=Verdict(text, "missing"), links=LINKS)
    records = rows.to_pylist()
    confidence = float(records[0]["confidence"])
    shown = pl.DataFrame({
        "ratio": [ratio_text(r["change_pct"], r["higher_is_better"]) for r in records],
        "baseline": [readable(r["median_baseline"], r["unit"]) for r in records],
        "contender": [readable(r["median_contender"], r["unit"]) for r in records]},
        schema={"ratio": pl.String, "baseline": pl.String, "contender": pl.String})
    geo = [{**g, "ratio": ratio_text(g["change_pct"], g["higher_is_better"]),
            "baseline": readable(g["geomean_baseline"], g["unit"]),
            "contender": readable(g["geomean_contender"], g["unit"])}
           for g in geomean_rows(records, confidence)]
    return build_page(rows, verdict_line(rows), shown, geo)


def build_page(rows: pa.Table, counts: str, shown: pl.DataFrame,
               geo: list[dict[str, object]]) -> Page:
    """The page from the rows of one comparison (``report_compare.sql``), its verdict line,
    the display columns ``shown`` (ratio, baseline, contender; one row each) and the
    geometric-mean rows (pure)."""
    df = _worse(pl.concat([charts.labelled(rows), shown], how="horizontal"))
    # a row's campaign when both sides are of one (the site links its drill-down there)
    df = df.with_columns(campaign=pl.when(
        pl.col("baseline_campaign") == pl.col("contender_campaign")).then(
        pl.col("contender_campaign")).otherwise(pl.lit(None, pl.String)))
    first = df.row(0, named=True)
    confidence = float(first["confidence"])
    sides = (f"{_side(first, 'contender')} against {_side(first, 'baseline')}; "
             f"{100 * confidence:g} % intervals, threshold ±{first['threshold_pct']:g} %, "
             f"correction {first['correction']}")
    slower = df.filter(pl.col("verdict") == "slower").height
    level: VerdictLevel = "alarm" if slower else "ok"
    drawn = df.filter(pl.col("worse_low_pct").is_not_null() & pl.col("worse_pct").is_finite()
                      ).head(TOP_DRAWN)
    blocks: list[Figure | Notice] = []
    if drawn.height:
        blocks.append(Figure(changes_chart(drawn, confidence=confidence,
                                           title="Change of each configuration"), "changes"))
    if drawn.height < df.height:
        blocks.append(Notice(f"{df.height - drawn.height} configurations are not drawn (no "
                             "interval, or beyond the largest drawn); the table lists every one."))
    geo_df = _worse(pl.DataFrame(geo)) if geo else None
    sections = [Section("Changes", sides, tuple(blocks))]
    if geo_df is not None:
        sections.append(Section("Geometric mean per unit", (
            "The geometric means of the two sides' medians and the change of the geometric "
            "mean (benchstat's geomean row), with a Student-t interval over the configurations "
            "of the mean log ratio."), (capped_table(
                "Geometric mean", "", (
                    col("hardware_type", key=True),
                    col("metric", key=True), col("unit"),
                    col("configurations"),
                    col("baseline"), col("contender"),
                    col("worse_pct"), col("ratio"),
                    col("worse_low_pct"),
                    col("worse_high_pct")), geo_df),)))
    table_cols = (*CONFIGURATION_COLUMNS[:4],
                  col("baseline_median"),
                  col("contender_median"),
                  col("worse_pct"), col("ratio"),
                  col("worse_low_pct"),
                  col("worse_high_pct"),
                  col("p_adjusted"), col("verdict"),
                  col("more_trials"), col("reason_why"),
                  col("n_baseline"),
                  col("n_contender"))
    sections.append(Section("Every configuration", "Largest change first.", (
        capped_table("Configurations", "", table_cols, df),)))
    return Page("Compare: " + _side(first, "contender") + " vs " + _side(first, "baseline"),
                INTRO, tuple(sections),
                (f"comparison_id {first['comparison_id']} ({first['created_at']})",),
                name="compare", verdict=Verdict(f"{counts} ({sides}).", level), links=LINKS)


def _worse(df: pl.DataFrame) -> pl.DataFrame:
    """The change and its interval signed + = worse (``worse_pct``, ``worse_low_pct``,
    ``worse_high_pct``), as on every page of the site (issue 40): a slower contender is +
    whether the metric is a time or a throughput; the ratio keeps contender/baseline."""
    if "higher_is_better" not in df.columns:
        df = df.with_columns(higher_is_better=pl.lit(None, pl.Boolean))
    return charts.plus_is_worse(df, "change_pct", "ci_low_pct", "ci_high_pct",
                                ("worse_pct", "worse_low_pct", "worse_high_pct"))


def _side(row: dict[str, object], side: str) -> str:
    text = str(row[f"{side}_campaign"])
    if row[f"{side}_revision"]:
        text += f"@{row[f'{side}_revision']}"
    if row[f"{side}_where"]:
        text += f" where {row[f'{side}_where']}"
    return text


REPORT = Report(
    "compare",
    "Compare: the latest kept comparison (or --comparison-id), verdict first, each "
    "configuration's change with its interval, the geometric mean per unit.",
    build, options=(OUT, CAMPAIGN, COMPARISON_ID, PNG))
