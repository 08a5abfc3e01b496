"""The order-effects report (seed 000, sections 3 and 5; SPEC 6).

From the ``order_effects`` table (latest ``order-effects`` run per campaign): the
Kruskal-Wallis p-values and η²_H sorted by effect (Figures 2-3), the Δ% curve
(Figure 4), one example per CI case and the case counts (Figures 5-6), a sortable
table of every configuration; from ``predecessor_effects``: which test slows the
one after it.
"""

from __future__ import annotations

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
    Table,
    capped_table,
)

MAX_CAMPAIGN_CHARTS = 8
PREDECESSOR_ROWS = 40

INTRO = (
    "Benchmarks that run one after another can influence each other (caches, memory layout, "
    "thermal state). OrderSage runs the same tests in a fixed order and in freshly shuffled "
    "orders; when the two sets of results differ, the order of the runs affects the results and "
    "a single fixed-order experiment can mislead. Each configuration's fixed- and random-order "
    "trials are compared with the Kruskal-Wallis test (p-value, family-wise threshold α/m), its "
    "effect size η²_H, the relative difference of the means Δ%, and the overlap of the "
    "distribution-free confidence intervals of the two medians (Ahmed et al., ATC 2023).")


def build(data: ReportData, request: Request) -> Page:
    sections: list[Section] = []
    rows = data.results("order_effects", "order_effects", "perfwarehouse analyze order-effects",
                        request)
    lines = provenance(data.job_runs("order-effects", request), "order-effects")
    if isinstance(rows, Missing):
        sections.append(Section("Order effects", "", (rows.notice(),)))
    else:
        sections.extend(order_sections(prepare(rows)))
    sections.append(predecessor_section(data, request))
    lines += provenance(data.job_runs("predecessor-effects", request), "predecessor-effects")
    return Page("Order effects: does the order of the runs change the results?", INTRO,
                tuple(sections), tuple(lines), name="order-effects")


def prepare(rows: pa.Table) -> pl.DataFrame:
    """Add the configuration label, the group a chart shows (the campaign, or
    ``campaign · family`` when the job's family of comparisons is narrower), the
    family-wise threshold α/m and the CI case label."""
    df = charts.labelled(rows)
    case_label = (pl.when(pl.col("ci_case").is_null()).then(pl.lit(charts.CI_CASES[3]))
                  .otherwise(pl.col("ci_case").cast(pl.Int64).replace_strict(
                      [1, 2, 3], list(charts.CI_CASES[:3]), default=charts.CI_CASES[3])))
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


def order_sections(df: pl.DataFrame) -> list[Section]:
    groups = df["group"].unique(maintain_order=True).to_list()
    sizes = df.group_by("group").len().sort("len", descending=True)
    shown = sizes["group"].head(MAX_CAMPAIGN_CHARTS).to_list()
    cap_note = None
    if len(groups) > len(shown):
        cap_note = Notice(f"Charts are drawn for the {len(shown)} largest of {len(groups)} "
                          "campaigns; the table below has every campaign.")
    sections = [Section("Summary", "One row per campaign; the numbers behind the charts below.",
                        (summary_table(df),))]

    figures: list[Figure | Notice] = []
    for group in shown:
        part = df.filter(pl.col("group") == group)
        alpha_family = float(part["alpha_family"][0])
        figures.append(Figure(charts.order_pvalues_effects(
            part, alpha_family=alpha_family,
            title=f"Kruskal-Wallis p-values and η²_H, {group} ({part.height:,} configurations, "
                  f"α/m = {alpha_family:.3g})"), f"pvalues-{group}"))
    if cap_note:
        figures.append(cap_note)
    sections.append(Section(
        "Do fixed and random order give the same distribution?",
        "Seed 000 Figures 2 and 3: the configurations of each campaign sorted by effect size; "
        "red points reject equal distributions at the family-wise level.", tuple(figures)))

    sections.append(Section(
        "How large are the differences?",
        "Seed 000 Figure 4: the relative difference of the fixed- and random-order means.",
        (Figure(charts.order_delta_curve(df.filter(pl.col("group").is_in(shown)),
                                         title="Δ% of every configuration, sorted"), "delta"),)))

    blocks: list[Figure | Notice | Table] = []
    for group in shown:
        examples = ci_examples(df.filter(pl.col("group") == group))
        if examples.height:
            blocks.append(Figure(charts.ci_examples(
                examples, title=f"One configuration per CI case, {group}"), f"ci-cases-{group}"))
        else:
            blocks.append(Notice(f"{group}: no configuration has CIs for both orders (too few "
                                 "trials for the requested confidence)."))
    counts = (df.group_by(["group", "case_label"]).len("n")
              .sort(["group", "case_label"]))
    blocks.append(Figure(charts.ci_case_counts(
        counts, title="Configurations in each CI case"), "ci-case-counts"))
    sections.append(Section(
        "Would the conclusion change?",
        "Seed 000 Figures 5 and 6 (Algorithm 2): compare the confidence intervals of the fixed- "
        "and random-order medians.", tuple(blocks)))
    sections.append(Section("Every configuration", "", (configuration_table(df),)))
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
    common = ["case_label", "config", "unit", pl.col("confidence") * 100]
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
        (Column("campaign", "campaign"), Column("hardware_types", "hardware types", "int"),
         Column("configurations", "configurations", "int"),
         Column("significant", "p < α/m (count)", "int"),
         Column("significant_pct", "p < α/m (%)", "pct"),
         Column("alpha_family", "α/m", "pvalue"),
         Column("median_abs_delta", "median |Δ%| (%)", "pct"),
         Column("max_abs_delta", "max |Δ%| (%)", "pct"),
         Column("case1_pct", "CI case 1 (%)", "pct")),
        summary.to_arrow())


def configuration_table(df: pl.DataFrame) -> Table:
    ordered = df.sort(["eta2", "kw_p"], descending=[True, False], nulls_last=True)
    return capped_table(
        "Configurations",
        "Click a column header to sort, type in the box to filter. Sorted by effect size η²_H; "
        "Δ% > 0: the fixed order had the larger mean. Medians and CIs are in the unit shown.",
        (*CONFIGURATION_COLUMNS,
         Column("n_fixed", "n fixed", "int"), Column("n_random", "n random", "int"),
         Column("kw_p", "p", "pvalue"), Column("significant", "p < α/m", "bool"),
         Column("eta2", "η²_H", "float"), Column("delta_pct", "Δ% (%)", "pct"),
         Column("delta_median_pct", "Δ% of medians (%)", "pct"),
         Column("median_fixed", "median fixed", "float"),
         Column("ci_fixed_low", "CI fixed low", "float"),
         Column("ci_fixed_high", "CI fixed high", "float"),
         Column("median_random", "median random", "float"),
         Column("ci_random_low", "CI random low", "float"),
         Column("ci_random_high", "CI random high", "float"),
         Column("ci_case", "CI case", "int")),
        ordered)


# ------------------------------------------------------------- predecessors
def predecessor_labels(df: pl.DataFrame) -> list[str | None]:
    """The worst predecessor's name ("the start of the run" after the reset)."""
    names = charts.config_labels(df["worst_predecessor_benchmark"].fill_null(""),
                                 df["worst_predecessor_settings"], None, 60)
    return ["the start of the run" if start else (name if bench is not None else None)
            for name, bench, start in zip(names, df["worst_predecessor_benchmark"],
                                          df["worst_is_run_start"])]


def predecessor_section(data: ReportData, request: Request) -> Section:
    title = "Which test slows the next one? (predecessor effects)"
    intro = ("Beyond the paper (its future work): within random-order runs, each configuration's "
             "trials are grouped by the test that ran immediately before; a shift of the median "
             "after one particular predecessor names a test that leaves state behind.")
    rows = data.results("predecessor_effects", "predecessor_effects",
                        "perfwarehouse analyze predecessor-effects", request)
    if isinstance(rows, Missing):
        return Section(title, intro, (rows.notice(),))
    df = charts.labelled(rows)
    df = df.with_columns(predecessor=pl.Series(predecessor_labels(df), dtype=pl.String))
    top = (df.filter(pl.col("shift_pct").is_not_null())
           .sort(pl.col("shift_pct").abs(), descending=True).head(PREDECESSOR_ROWS))
    blocks: list[Figure | Table | Notice] = []
    if top.height:
        blocks.append(Figure(charts.predecessor_shifts(
            top, title=f"The {top.height} largest median shifts after one predecessor"),
            "predecessors"))
    ordered = df.sort(pl.col("shift_pct").abs(), descending=True, nulls_last=True)
    blocks.append(capped_table(
        "Predecessor effects",
        "One row per configuration: the Kruskal-Wallis test across predecessors and the "
        "predecessor after which the median moves most, in % of the median after any other test "
        "(CI: the CI of the median after that predecessor, on the same scale); adjusted p: the "
        "Mann-Whitney test of that predecessor against the rest, times the candidates tried.",
        (Column("campaign", "campaign"), Column("hardware_type", "hardware type"),
         Column("config", "configuration"), Column("predecessor", "worst predecessor"),
         Column("n_predecessors", "predecessors", "int"), Column("kw_p", "p", "pvalue"),
         Column("shift_pct", "median shift (%)", "pct"), Column("low_pct", "CI low (%)", "pct"),
         Column("high_pct", "CI high (%)", "pct"),
         Column("mwu_p_adjusted", "adjusted p (worst vs rest)", "pvalue"),
         Column("ci_case", "CI case", "int")),
        ordered))
    return Section(title, intro, tuple(blocks))


REPORT = Report(
    "order-effects",
    "Order effects (OrderSage): p-values, effect sizes, Δ%, CI cases, predecessor effects.",
    build)
