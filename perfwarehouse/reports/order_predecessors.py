"""The predecessor section of the order-effects page (:mod:`perfwarehouse.reports.
order_effects`): from ``predecessor_effects``, which test slows the one that runs just
after it (a polluter and its victims), with the leaderboard of polluters, most victims
first."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts, order_effects_charts
from perfwarehouse.reports.base import ReportData, Request
from perfwarehouse.reports.columns import col
from perfwarehouse.reports.drilldown import drilldown_links
from perfwarehouse.reports.page import (
    Column,
    Figure,
    Missing,
    Notice,
    Section,
    Table,
    capped_table,
    format_settings,
)

POLLUTERS_PER_TYPE = 5
"""Polluters the chart shows per hardware type (the table lists every one)."""


# ------------------------------------------------------------- predecessors
def predecessor_name(benchmark: str | None, settings: str | None, run_start: bool | None) -> str:
    """The full name of a predecessor test: the benchmark and all its settings (k=v)."""
    if run_start:
        return "the start of the run"
    if benchmark is None:
        return "?"
    text = format_settings(settings)
    return f"{benchmark} {text}" if text else str(benchmark)


def predecessor_data(data: ReportData, request: Request
                     ) -> tuple[pl.DataFrame | Missing, pl.DataFrame | None]:
    """The predecessor rows (with the full predecessor name, the shift made "+ = worse" by
    the metric's direction, and whether the predecessor is a significant polluter) and the
    polluter leaderboard; a :class:`Missing` and None when the job has not run."""
    return predecessor_frames(data.results("predecessor_effects", "predecessor_effects",
                                           "perfwarehouse analyze predecessor-effects", request))


def predecessor_frames(rows: pa.Table | Missing
                       ) -> tuple[pl.DataFrame | Missing, pl.DataFrame | None]:
    """:func:`predecessor_data` from the rows already read (pure)."""
    if isinstance(rows, Missing):
        return rows, None
    df = prepare_predecessors(charts.labelled(rows))
    return df, polluter_leaderboard(df)


def prepare_predecessors(df: pl.DataFrame) -> pl.DataFrame:
    names = [predecessor_name(b, s, r) for b, s, r in zip(
        df["worst_predecessor_benchmark"], df["worst_predecessor_settings"],
        df["worst_is_run_start"])]
    sign = pl.when(pl.col("higher_is_better").fill_null(False)).then(-1.0).otherwise(1.0)
    hib = pl.col("higher_is_better").fill_null(False)
    return df.with_columns(predecessor=pl.Series(names, dtype=pl.String)).with_columns(
        worse_pct=pl.col("shift_pct") * sign,
        worse_low_pct=pl.when(hib).then(-pl.col("high_pct")).otherwise(pl.col("low_pct")),
        worse_high_pct=pl.when(hib).then(-pl.col("low_pct")).otherwise(pl.col("high_pct")),
        polluted=((pl.col("mwu_p_adjusted") < pl.col("alpha")).fill_null(False)
                  & (pl.col("shift_pct") * sign > 0).fill_null(False)))


POLLUTER_GATE = (
    "A configuration is a victim of the test that ran just before it when its trials after "
    "that test are worse (by the metric's direction) than after any other test, with the "
    "Mann-Whitney p-value of that test against the rest, multiplied by the number of "
    "candidate predecessors tried (Bonferroni for having picked the worst), below α. The "
    "Kruskal-Wallis test across all predecessors is not required: with ~150 predecessors of "
    "a few trials each it has almost no power (on the demo's long-term campaign it rejects "
    "for none of 1,880 configurations at α/m, while a planted polluter slows its followers "
    "by 8-20 %). About α of the configurations without a polluter pass by chance, spread "
    "over all their predecessors, so a chance polluter has one victim; the worst polluter "
    "is the test with the most victims in the campaign.")
"""How a victim is decided, as the page says it (:func:`prepare_predecessors`)."""


def polluter_leaderboard(df: pl.DataFrame) -> pl.DataFrame:
    """Per hardware type, each test that is the significant worst predecessor of some
    configurations ("victims", :data:`POLLUTER_GATE`: the worst-vs-rest Mann-Whitney p
    times the candidates is below α and the median after it is worse by the metric's
    direction), most victims first."""
    victims = df.filter(pl.col("polluted") & ~pl.col("worst_is_run_start").fill_null(False))
    return (victims.group_by(["hardware_type", "predecessor"])
            .agg(victims=pl.len(), median_worse_pct=pl.col("worse_pct").median(),
                 max_worse_pct=pl.col("worse_pct").max(),
                 campaigns=pl.col("campaign").unique().sort().str.join(", "),
                 worst_victim=pl.col("config").sort_by("worse_pct", descending=True).first())
            .sort(["hardware_type", "victims", "median_worse_pct"],
                  descending=[False, True, True]))


def predecessor_section(df: pl.DataFrame | Missing, polluters: pl.DataFrame | None,
                        drilldown: str | None = None) -> Section:
    title = "Which test slows the next one? The polluter leaderboard (predecessor effects)"
    intro = ("Beyond the paper (its future work): within random-order runs, each configuration's "
             "trials are grouped by the test that ran immediately before; when the median after "
             "one predecessor is significantly worse than after any other, that predecessor "
             "leaves state behind (a polluter) and the configuration is its victim. Worse is "
             "by the metric's direction: a longer time or a lower throughput. "
             + POLLUTER_GATE)
    if isinstance(df, Missing):
        return Section(title, intro, (df.notice(),))
    assert polluters is not None
    blocks: list[Figure | Table | Notice] = []
    top = polluters.group_by("hardware_type", maintain_order=True).head(POLLUTERS_PER_TYPE)
    if top.height:
        blocks.append(Figure(order_effects_charts.polluters(
            top, title=f"The worst polluters per hardware type (up to {POLLUTERS_PER_TYPE} "
                       "each)"), "polluters"))
        blocks.append(Table(
            "Polluters", "One row per hardware type and predecessor test with at least one "
            "significant victim; median/max worse: how much worse the victims' median is after "
            "this test than after any other (% of the latter, + = worse).",
            (col("hardware_type", key=True),
             col("predecessor_polluter", key=True),
             col("victims"),
             col("median_worse_pct"),
             col("max_worse_pct"),
             col("worst_victim"), col("campaigns")),
            polluters.to_arrow()))
    else:
        blocks.append(Notice("No test is a significant worst predecessor of another (after "
                             "the family-wise correction): no polluter found."))
    ordered = df.sort(["polluted", "worse_pct"], descending=True, nulls_last=True)
    link: tuple[Column, ...] = ()
    if "config_id" in ordered.columns and drilldown:
        ordered = ordered.with_columns(drilldown=drilldown_links(ordered, drilldown))
        link = (col("drilldown"),)
    blocks.append(capped_table(
        "Predecessor effects of every configuration",
        "One row per configuration: the Kruskal-Wallis test across predecessors and the "
        "predecessor after which the median moves most, in % of the median after any other test "
        "(+ = worse by the metric's direction; CI: the CI of the median after that predecessor, "
        "on the same scale); adjusted p: the Mann-Whitney test of that predecessor against the "
        "rest, times the candidates tried; polluted: adjusted p below α and worse; p: the "
        "Kruskal-Wallis test across every predecessor (shown, not required).",
        (col("config", key=True),
         col("hardware_type", key=True), *link,
         col("campaign"),
         col("predecessor"),
         col("polluted"),
         col("n_predecessors"), col("kw_p"),
         col("worse_pct_median"),
         col("worse_low_pct"),
         col("worse_high_pct"),
         col("mwu_p_adjusted"),
         col("ci_case")),
        ordered))
    return Section(title, intro, tuple(blocks))


