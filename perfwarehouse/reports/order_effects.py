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
from perfwarehouse.reports.configuration import page_name
from perfwarehouse.reports.page import (
    CONFIGURATION_COLUMNS,
    Column,
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    VerdictLevel,
    capped_table,
    format_settings,
)

MAX_CAMPAIGN_CHARTS = 8
POLLUTERS_PER_TYPE = 5
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
        "red points reject equal distributions at the family-wise level.", tuple(figures)))

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
        (Column("campaign", "campaign"), Column("hardware_types", "hardware types", "int"),
         Column("configurations", "configurations", "int"),
         Column("significant", "p < α/m (count)", "int"),
         Column("significant_pct", "p < α/m (%)", "pct"),
         Column("alpha_family", "α/m", "pvalue"),
         Column("median_abs_delta", "median |Δ%| (%)", "pct"),
         Column("max_abs_delta", "max |Δ%| (%)", "pct"),
         Column("case1_pct", "CI case 1 (%)", "pct")),
        summary.to_arrow())


def drilldown_links(df: pl.DataFrame, viewer: str) -> pl.Series:
    """Each row's drill-down in the site's configuration ``viewer`` (relative to this
    page): ``viewer#<the configuration page's name>``."""
    return pl.Series([f"{viewer}#{page_name(c, b, i)}" for c, b, i in
                      zip(df["campaign"], df["benchmark"], df["config_id"])], dtype=pl.String)


def configuration_table(df: pl.DataFrame, drilldown: str | None = None) -> Table:
    ordered = df.sort(["eta2", "kw_p"], descending=[True, False], nulls_last=True)
    if "config_id" in ordered.columns and drilldown:
        ordered = ordered.with_columns(drilldown=drilldown_links(ordered, drilldown))
    keys = tuple(c for c in CONFIGURATION_COLUMNS if c.key)
    rest = tuple(c for c in CONFIGURATION_COLUMNS if not c.key)
    link = ((Column("drilldown", "drill-down", "link"),) if "drilldown" in ordered.columns
            else ())
    return capped_table(
        "Configurations",
        "Click a column header to sort, type in the box to filter. Sorted by effect size η²_H; "
        "Δ% > 0: the fixed order had the larger mean. Medians and CIs are in the unit shown. "
        "drill-down: the configuration's own page (its distribution in fixed and random order "
        "and its values over time; written alone with `perfwarehouse report configuration "
        "--campaign C --benchmark B --metric M --settings 'k=v ...'`).",
        (*keys, *link, *rest,
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
            (Column("hardware_type", "hardware type", key=True),
             Column("predecessor", "polluter (test that ran just before)", key=True),
             Column("victims", "victims", "int"),
             Column("median_worse_pct", "median worse (%)", "pct"),
             Column("max_worse_pct", "max worse (%)", "pct"),
             Column("worst_victim", "worst victim"), Column("campaigns", "campaigns")),
            polluters.to_arrow()))
    else:
        blocks.append(Notice("No test is a significant worst predecessor of another (after "
                             "the family-wise correction): no polluter found."))
    ordered = df.sort(["polluted", "worse_pct"], descending=True, nulls_last=True)
    link: tuple[Column, ...] = ()
    if "config_id" in ordered.columns and drilldown:
        ordered = ordered.with_columns(drilldown=drilldown_links(ordered, drilldown))
        link = (Column("drilldown", "drill-down", "link"),)
    blocks.append(capped_table(
        "Predecessor effects of every configuration",
        "One row per configuration: the Kruskal-Wallis test across predecessors and the "
        "predecessor after which the median moves most, in % of the median after any other test "
        "(+ = worse by the metric's direction; CI: the CI of the median after that predecessor, "
        "on the same scale); adjusted p: the Mann-Whitney test of that predecessor against the "
        "rest, times the candidates tried; polluted: adjusted p below α and worse; p: the "
        "Kruskal-Wallis test across every predecessor (shown, not required).",
        (Column("config", "configuration", key=True),
         Column("hardware_type", "hardware type", key=True), *link,
         Column("campaign", "campaign"),
         Column("predecessor", "worst predecessor"),
         Column("polluted", "polluted", "bool"),
         Column("n_predecessors", "predecessors", "int"), Column("kw_p", "p", "pvalue"),
         Column("worse_pct", "median worse (%)", "pct"),
         Column("worse_low_pct", "CI low (%)", "pct"),
         Column("worse_high_pct", "CI high (%)", "pct"),
         Column("mwu_p_adjusted", "adjusted p (worst vs rest)", "pvalue"),
         Column("ci_case", "CI case", "int")),
        ordered))
    return Section(title, intro, tuple(blocks))


REPORT = Report(
    "order-effects",
    "Order effects (OrderSage): p-values, effect sizes, Δ%, CI cases, polluter leaderboard.",
    build)
