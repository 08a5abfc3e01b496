"""The order-effects report (Duplyakin et al. (OrderSage, USENIX ATC 2023), §3 and §5).

From the ``order_effects`` table (latest ``order-effects`` run per campaign): the
Kruskal-Wallis p-values and η²_H sorted by effect (Figures 2-3), the Δ% curve
(Figure 4), one example per CI case and the case counts (Figures 5-6), a sortable
table of every configuration; from ``predecessor_effects``: which test slows the
one after it.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts, order_effects_charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.columns import CONFIGURATION_COLUMNS, col
from perfwarehouse.reports.drilldown import drilldown_links
from perfwarehouse.reports.order_predecessors import polluter_leaderboard as polluter_leaderboard
from perfwarehouse.reports.order_predecessors import predecessor_data as predecessor_data
from perfwarehouse.reports.order_predecessors import predecessor_frames, predecessor_section
from perfwarehouse.reports.order_predecessors import prepare_predecessors as prepare_predecessors
from perfwarehouse.reports.page import (
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    VerdictLevel,
    capped_table,
)

MAX_CAMPAIGN_CHARTS = 8
ADVICE = "randomise the order of the tests or reset the machine between tests"

INTRO = (
    "Benchmarks that run one after another can influence each other (caches, memory layout, "
    "thermal state). OrderSage runs the same tests in a fixed order and in freshly shuffled "
    "orders; when the two sets of results differ, the order of the runs affects the results and "
    "a single fixed-order experiment can mislead. Each configuration's fixed- and random-order "
    "trials are compared with the Kruskal-Wallis test (p-value, family-wise threshold α/m), its "
    "effect size η²_H, the relative difference of the means Δ%, and the overlap of the "
    "distribution-free confidence intervals of the two medians (Duplyakin et al., USENIX ATC 2023).")


@dataclass(frozen=True)
class OrderFrames:
    """What the page is built from (the read step's result): the rows of both analyses (or
    the command that fills them), the provenance lines, and the drill-down pages written
    viewer of the site the page belongs to (``configuration.html``; None: a page written
    alone, no links)."""

    rows: pa.Table | Missing
    predecessors: pa.Table | Missing
    provenance: tuple[str, ...] = ()
    drilldown: str | None = None


def build(data: ReportData, request: Request) -> Page:
    return build_page(read(data, request))


def read(data: ReportData, request: Request) -> OrderFrames:
    """The read step: the report queries, nothing computed."""
    rows = data.results("order_effects", "order_effects", "perfwarehouse analyze order-effects",
                        request)
    predecessors = data.results("predecessor_effects", "predecessor_effects",
                                "perfwarehouse analyze predecessor-effects", request)
    lines = (provenance(data.job_runs("order-effects", request), "order-effects")
             + provenance(data.job_runs("predecessor-effects", request), "predecessor-effects"))
    return OrderFrames(rows, predecessors, tuple(lines), request.option("drilldown"))


def build_page(frames: OrderFrames) -> Page:
    """The page from the read step's frames (pure)."""
    sections: list[Section] = []
    df = None
    if isinstance(frames.rows, Missing):
        sections.append(Section("Order effects", "", (frames.rows.notice(),)))
    else:
        df = prepare(frames.rows)
        sections.extend(order_sections(df, frames.drilldown))
    pred, polluters = predecessor_frames(frames.predecessors)
    sections.append(predecessor_section(pred, polluters, frames.drilldown))
    lines = list(frames.provenance)
    return Page("Order effects: does the order of the runs change the results?", INTRO,
                tuple(sections), tuple(lines), name="order-effects",
                verdict=verdict(df, polluters))


def _names(counts: pl.DataFrame, column: str, limit: int = 2) -> str:
    names = counts[column].head(limit).to_list()
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def verdict(df: pl.DataFrame | None, polluters: pl.DataFrame | None) -> Verdict:
    """The page's answer: in how many configurations the order matters (at the
    family-wise level), where, what to do, and the worst polluter."""
    if df is None:
        return Verdict("Not analysed yet: run `perfwarehouse analyze order-effects` (and "
                       "`analyze predecessor-effects`), then write this report again.",
                       "missing")
    n, hits = df.height, int(df["significant"].sum())
    level: VerdictLevel
    if hits == 0:
        text = (f"Order does not matter in any of the {n:,} configurations (no Kruskal-Wallis "
                "p-value below α/m): a fixed order of the tests gave the same results as "
                "shuffled orders.")
        level = "ok"
    else:
        sig = df.filter(pl.col("significant"))
        types = sig.group_by("hardware_type").len().sort(["len", "hardware_type"],
                                                          descending=[True, False])
        benches = sig.group_by("benchmark").len().sort(["len", "benchmark"],
                                                       descending=[True, False])
        text = (f"Order matters in {hits:,} of {n:,} configurations, mostly "
                f"{_names(benches, 'benchmark')} on {_names(types, 'hardware_type')}: {ADVICE}.")
        level = "alarm"
    if polluters is not None and polluters.height:
        top = polluters.sort(["victims", "median_worse_pct"], descending=True).row(0, named=True)
        text += (f" Worst polluter: {top['predecessor']} on {top['hardware_type']} "
                 f"({top['victims']:,} victim{'s' if top['victims'] != 1 else ''}, "
                 f"median {top['median_worse_pct']:+.1f} % worse).")
    elif polluters is not None:
        text += " No test significantly worsens the test that runs after it."
    return Verdict(text, level)


def prepare(rows: pa.Table) -> pl.DataFrame:
    """Add the configuration label, the group a chart shows (the campaign, or
    ``campaign · family`` when the job's family of comparisons is narrower), the
    family-wise threshold α/m and the CI case label."""
    df = charts.labelled(rows)
    case_label = (pl.when(pl.col("ci_case").is_null()).then(pl.lit(order_effects_charts.CI_CASES[3]))
                  .otherwise(pl.col("ci_case").cast(pl.Int64).replace_strict(
                      [1, 2, 3], list(order_effects_charts.CI_CASES[:3]), default=order_effects_charts.CI_CASES[3])))
    group = (pl.when(pl.col("family").is_null() | (pl.col("family") == pl.col("campaign")))
             .then(pl.col("campaign"))
             .otherwise(pl.col("campaign") + pl.lit(" · ") + pl.col("family")))
    return df.with_columns(
        group=group,
        alpha_family=pl.col("alpha") / pl.max_horizontal(pl.col("m"), pl.lit(1)),
        case_label=case_label,
        confidence=pl.col("ci_confidence"),
        significant=pl.col("reject_bonferroni").fill_null(False),
    )


def order_sections(df: pl.DataFrame, drilldown: str | None = None) -> list[Section]:
    # a campaign without a tested configuration (no fixed- and random-order trials of one
    # configuration, e.g. a load test) gets a line, not an empty chart
    tested = df.filter(pl.col("kw_p").is_not_null())
    groups = tested["group"].unique(maintain_order=True).to_list()
    tested_groups = set(groups)
    untested = [g for g in df["group"].unique(maintain_order=True).to_list() if g not in tested_groups]
    sizes = tested.group_by("group").len().sort("len", descending=True)
    shown = sizes["group"].head(MAX_CAMPAIGN_CHARTS).to_list()
    cap_note = None
    if len(groups) > len(shown):
        cap_note = Notice(f"Charts are drawn for the {len(shown)} largest of {len(groups)} "
                          "campaigns; the table below has every campaign.")
    untested_note = None
    if untested:
        untested_note = Notice(
            f"Not tested, so not drawn: {', '.join(untested)} (no configuration has trials "
            "in both a fixed-order and a random-order run).")
    sections = [Section("Summary", "One row per campaign; the numbers behind the charts below.",
                        (summary_table(df),))]

    figures: list[Figure | Notice] = []
    for group in shown:
        part = df.filter(pl.col("group") == group)
        alpha_family = float(part["alpha_family"][0])
        figures.append(Figure(order_effects_charts.order_pvalues_effects(
            part, alpha_family=alpha_family,
            title=f"Kruskal-Wallis p-values and η²_H, {group} ({part.height:,} configurations, "
                  f"α/m = {alpha_family:.3g})"), f"pvalues-{group}"))
    figures += [note for note in (cap_note, untested_note) if note]
    sections.append(Section(
        "Do fixed and random order give the same distribution?",
        "Duplyakin et al. (OrderSage, USENIX ATC 2023) Figures 2 and 3: the configurations of each campaign sorted by effect size; "
        "vermillion (red-orange) triangles reject equal distributions at the family-wise "
        "level.", tuple(figures)))

    sections.append(Section(
        "How large are the differences?",
        "Duplyakin et al. (OrderSage, USENIX ATC 2023) Figure 4: the relative difference of the fixed- and random-order means.",
        (Figure(order_effects_charts.order_delta_curve(df.filter(pl.col("group").is_in(shown)),
                                         title="Δ% of every configuration, sorted"), "delta"),)))

    blocks: list[Figure | Notice | Table] = []
    for group in shown:
        examples = ci_examples(df.filter(pl.col("group") == group))
        if examples.height:
            blocks.append(Figure(order_effects_charts.ci_examples(
                examples, title=f"One configuration per CI case, {group}"), f"ci-cases-{group}"))
        else:
            blocks.append(Notice(f"{group}: no configuration has CIs for both orders (too few "
                                 "trials for the requested confidence)."))
    counts = (df.group_by(["group", "case_label"]).len("n")
              .sort(["group", "case_label"]))
    blocks.append(Figure(order_effects_charts.ci_case_counts(
        counts, title="Configurations in each CI case"), "ci-case-counts"))
    sections.append(Section(
        "Would the conclusion change?",
        "Duplyakin et al. (OrderSage, USENIX ATC 2023) Figures 5 and 6 (Algorithm 2): compare the confidence intervals of the fixed- "
        "and random-order medians.", tuple(blocks)))
    sections.append(Section("Every configuration", "", (configuration_table(df, drilldown),)))
    return sections


def ci_examples(df: pl.DataFrame) -> pl.DataFrame:
    """For each CI case, the configuration with the most trials (then the largest |Δ%|),
    as two rows (fixed, random) with the median and its CI."""
    complete = df.filter(pl.col("ci_case").is_not_null()
                         & pl.all_horizontal(pl.col(c).is_not_null() for c in
                                             ("ci_fixed_low", "ci_fixed_high",
                                              "ci_random_low", "ci_random_high")))
    picked = (complete.with_columns(n=pl.col("n_fixed") + pl.col("n_random"),
                                    abs_delta=pl.col("delta_pct").abs())
              .sort(["ci_case", "n", "abs_delta", "config"], descending=[False, True, True, False])
              .group_by("ci_case", maintain_order=True).head(1))
    common: list[str | pl.Expr] = ["case_label", "config", "unit", pl.col("confidence") * 100]
    fixed = picked.select(*common, order_kind=pl.lit("fixed"), median=pl.col("median_fixed"),
                          low=pl.col("ci_fixed_low"), high=pl.col("ci_fixed_high"))
    random = picked.select(*common, order_kind=pl.lit("random"), median=pl.col("median_random"),
                           low=pl.col("ci_random_low"), high=pl.col("ci_random_high"))
    return pl.concat([fixed, random]).rename({"confidence": "confidence_pct"})


def summary_table(df: pl.DataFrame) -> Table:
    summary = df.group_by("campaign", maintain_order=True).agg(
        hardware_types=pl.col("hardware_type").n_unique(),
        configurations=pl.len(),
        significant=pl.col("significant").sum(),
        significant_pct=pl.col("significant").mean() * 100,
        median_abs_delta=pl.col("delta_pct").abs().median(),
        max_abs_delta=pl.col("delta_pct").abs().max(),
        case1_pct=(pl.col("ci_case") == 1).mean() * 100,
        alpha_family=pl.col("alpha_family").first(),
    )
    return Table(
        "Campaigns", "α/m is the Bonferroni threshold for the campaign's m configurations.",
        (col("campaign"), col("hardware_types"),
         col("configurations"),
         col("significant_count"),
         col("significant_pct"),
         col("alpha_family"),
         col("median_abs_delta"),
         col("max_abs_delta"),
         col("case1_pct")),
        summary.to_arrow())


def configuration_table(df: pl.DataFrame, drilldown: str | None = None) -> Table:
    ordered = df.sort(["eta2", "kw_p"], descending=[True, False], nulls_last=True)
    if "config_id" in ordered.columns and drilldown:
        ordered = ordered.with_columns(drilldown=drilldown_links(ordered, drilldown))
    keys = tuple(c for c in CONFIGURATION_COLUMNS if c.key)
    rest = tuple(c for c in CONFIGURATION_COLUMNS if not c.key)
    link = ((col("drilldown"),) if "drilldown" in ordered.columns
            else ())
    return capped_table(
        "Configurations",
        "Click a column header to sort, type in the box to filter. Sorted by effect size η²_H; "
        "Δ% > 0: the fixed order had the larger mean. Medians and CIs are in the unit shown. "
        "drill-down: the configuration's own page (its distribution in fixed and random order "
        "and its values over time; written alone with `perfwarehouse report configuration "
        "--campaign C --benchmark B --metric M --settings 'k=v ...'`).",
        (*keys, *link, *rest,
         col("n_fixed"), col("n_random"),
         col("kw_p"), col("significant_family"),
         col("eta2"), col("delta_pct_short"),
         col("delta_median_pct"),
         col("median_fixed"),
         col("ci_fixed_low"),
         col("ci_fixed_high"),
         col("median_random"),
         col("ci_random_low"),
         col("ci_random_high"),
         col("ci_case")),
        ordered)


REPORT = Report(
    "order-effects",
    "Order effects (OrderSage): p-values, effect sizes, Δ%, CI cases, polluter leaderboard.",
    build)
