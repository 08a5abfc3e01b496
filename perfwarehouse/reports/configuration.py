"""The per-configuration drill-down: ``perfwarehouse report configuration --campaign C
--benchmark B [--metric M] [--settings ...] [--hardware-type H]``.

One configuration of one campaign (named as in :func:`perfwarehouse.warehouse.lookup.
resolve_configuration`; an unknown or ambiguous name is a one-line error with the known
ones and the closest match), written to ``reports/configuration-<short>.html``:

* a verdict that says what the warehouse's analyses found for it, and only what they
  found: the order effect (``order_effects``: order matters or not, Δ %, p against α/m),
  the variability (``variability``: RSD of all values), the trend (``trends``: Theil-Sen
  slope with its CI, drifting or not) and the change points (``change_points``);
* its distribution in fixed and in random order (ECDF) per hardware type, from the raw
  values;
* its trial values over time with the trend line of the ``trends`` table.

No statistic is computed here: the numbers come from the analysis tables; the charts
draw the raw values (the ECDF is the sorted values themselves).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timezone

import polars as pl
import pyarrow as pa

from perfwarehouse.errors import UsageError
from perfwarehouse.options import Option
from perfwarehouse.reports import charts
from perfwarehouse.reports import configuration_charts as ccharts
from perfwarehouse.reports.base import PNG, Report, ReportData, Request, provenance
from perfwarehouse.reports.charts import thin_sorted
from perfwarehouse.reports.page import (
    Column,
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    capped_table,
    format_settings,
)
from perfwarehouse.reports.render import format_number, format_pvalue, p_statement
from perfwarehouse.warehouse.lookup import (
    Configuration,
    ConfigurationQuery,
    parse_settings,
    resolve_configuration,
)

ECDF_POINTS = 250
"""Points drawn per hardware type and order kind at most (evenly spaced by rank)."""
TIME_POINTS = 800
"""Trials drawn per hardware type at most (evenly spaced in time)."""
DAY_S = 86_400.0

#: the analyses a verdict reads: (table, job, query name, command that fills it)
ANALYSES = (
    ("order_effects", "order-effects", "configuration_order_effects",
     "perfwarehouse analyze order-effects"),
    ("variability", "variability", "configuration_variability",
     "perfwarehouse analyze variability"),
    ("trends", "trends", "configuration_trends", "perfwarehouse analyze trends"),
    ("change_points", "change-points", "configuration_change_points",
     "perfwarehouse analyze change-points"),
)

INTRO = (
    "One configuration (a benchmark with its settings and metric) of one campaign, on every "
    "hardware type it ran on (or the one asked for): what the warehouse's analyses say about "
    "it, then its raw values: their distribution in fixed and in random order, and the "
    "trials over time with the Theil-Sen trend of the trends analysis.")


def page_name(campaign: str, benchmark: str, config_id: int) -> str:
    """The page's name (and file name without ``.html``): ``configuration-<benchmark>-<id>``,
    where ``<id>`` is the configuration id (16 hex digits: unique in a warehouse, so two
    configurations of a campaign never share a name, where a 32-bit hash lost 124 of 10^6
    drill-downs, issue 44 H8) and 64 bits of the campaign's SHA-256 (so two campaigns never
    share a file)."""
    slug = re.sub(r"[^a-z0-9]+", "-", benchmark.lower()).strip("-")[:40] or "benchmark"
    digest = hashlib.sha256(campaign.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"configuration-{slug}-{int(config_id) & (2**64 - 1):016x}{digest}"


def command(campaign: str, benchmark: str, settings: str, metric: str) -> str:
    """The command that writes the page of one configuration (for links and notices)."""
    text = format_settings(settings)
    quoted = f" --settings '{text}'" if text else ""
    return (f"perfwarehouse report configuration --campaign '{campaign}' --benchmark "
            f"'{benchmark}' --metric '{metric}'{quoted}")


@dataclass(frozen=True)
class Frames:
    """What the page is built from (the query step's result)."""

    config: Configuration
    analyses: dict[str, pa.Table | Missing]
    values: pa.Table
    trials: pa.Table
    provenance: tuple[str, ...] = ()


# ---------------------------------------------------------------- query step
def build(data: ReportData, request: Request) -> Page:
    return build_page(read(data, request))


def selection(request: Request) -> ConfigurationQuery:
    if request.campaign is None or request.option("benchmark") is None:
        raise UsageError("report configuration: give --campaign and --benchmark (and "
                         "--metric, --settings when the benchmark has several configurations)")
    return ConfigurationQuery(request.campaign, request.option("benchmark"),
                              request.option("metric"),
                              parse_settings(request.option("settings") or ()),
                              request.option("hardware_type"))


def read(data: ReportData, request: Request) -> Frames:
    return read_configuration(data, resolve_configuration(data.con, selection(request)),
                              request)


def read_configuration(data: ReportData, config: Configuration, request: Request) -> Frames:
    """The query step for one configuration already named (the site writes several)."""
    params = {"campaign": config.campaign, "config_id": config.config_id,
              "hardware_type": config.hardware_type}
    analyses: dict[str, pa.Table | Missing] = {}
    lines: list[str] = []
    detail = f" for this configuration in campaign {config.campaign}"
    for table, job, query, fill in ANALYSES:
        if not data.has_table(table):
            analyses[table] = Missing(table, fill, detail)
            continue
        rows = data.query(query, **params)
        analyses[table] = rows if rows.num_rows else Missing(table, fill, detail)
        lines += provenance(data.job_runs(job, request), job)
    return Frames(config, analyses, data.query("configuration_values", **params),
                  data.query("configuration_trials", **params), tuple(lines))


# ------------------------------------------------------------------- the page
def build_page(frames: Frames) -> Page:
    """The page from the query step's frames (pure)."""
    c = frames.config
    label = " ".join(x for x in (c.benchmark, format_settings(c.settings)) if x)
    sections = [analyses_section(frames), distribution_section(frames), time_section(frames)]
    cps = frames.analyses["change_points"]
    if isinstance(cps, pa.Table):
        sections.append(change_points_section(pl.from_arrow(cps),  # type: ignore[arg-type]
                                              c.higher_is_better))
    where = c.hardware_type or ", ".join(c.hardware_types)
    intro = (f"{INTRO} Campaign {c.campaign}; metric {c.metric}"
             f"{f' ({c.unit})' if c.unit else ''}, "
             f"{_direction(c.higher_is_better)} (every change and drift on this page is "
             f"signed + = worse, as on the other pages); hardware type"
             f"{'s' if not c.hardware_type and len(c.hardware_types) != 1 else ''} {where}; "
             f"config_id {c.config_id}.")
    links = (("order effects", "order-effects.html"), ("variability", "variability.html"),
             ("history", "history.html"), ("all reports", "index.html"))
    return Page(f"Configuration {label} [{c.metric}]", intro, tuple(sections),
                frames.provenance, name=page_name(c.campaign, c.benchmark, c.config_id),
                verdict=verdict(frames), links=links)


def _direction(higher_is_better: bool | None) -> str:
    if higher_is_better is None:
        return "direction not recorded"
    return "higher is better" if higher_is_better else "lower is better"


def _frame(table: pa.Table | Missing) -> pl.DataFrame | None:
    if isinstance(table, Missing):
        return None
    df = pl.from_arrow(table)
    assert isinstance(df, pl.DataFrame)
    return df


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def verdict(frames: Frames) -> Verdict:
    """What the analyses say about the configuration, with their numbers; only the
    analyses that have rows for it are cited, the others are named as not run."""
    parts: list[str] = []
    alarm = False
    missing = [m.command for m in frames.analyses.values() if isinstance(m, Missing)]
    order = _frame(frames.analyses["order_effects"])
    if order is not None:
        text, hit = _order_verdict(order)
        parts.append(text)
        alarm |= hit
    var = _frame(frames.analyses["variability"])
    if var is not None:
        parts.append(_variability_verdict(var))
    trends = _frame(frames.analyses["trends"])
    if trends is not None:
        text, hit = _trend_verdict(trends, frames.config.higher_is_better)
        parts.append(text)
        alarm |= hit
    cps = _frame(frames.analyses["change_points"])
    if cps is not None:
        text, hit = _change_verdict(cps, frames.config.higher_is_better)
        parts.append(text)
        alarm |= hit
    if not parts:
        return Verdict("No analysis has results for this configuration yet: run "
                       + ", ".join(f"`{m}`" for m in missing)
                       + ", then write this page again.", "missing")
    if missing:
        parts.append("Not analysed yet: " + ", ".join(f"`{m}`" for m in missing) + ".")
    return Verdict(" ".join(parts), "alarm" if alarm else "ok")


def _order_numbers(r: dict[str, object], named: bool = True) -> str:
    where = f"{r['hardware_type']}: " if named else ""
    parts = [f"{where}Δ {r['delta_pct']:+.2f} %" if r["delta_pct"] is not None
             else f"{where}Δ undefined"]
    if r["kw_p"] is not None:
        parts.append(p_statement(float(r["kw_p"])))  # type: ignore[arg-type]
    if r["p_adjusted"] is not None:
        parts.append(f"adjusted {format_pvalue(float(r['p_adjusted']))}")  # type: ignore[arg-type]
    return ", ".join(parts)


def _order_verdict(df: pl.DataFrame) -> tuple[str, bool]:
    """Order matters where the configuration's adjusted p is below α (the job's
    correction over its family, as on the order-effects page)."""
    hits = df.filter(pl.col("significant").fill_null(False))
    rest = df.filter(~pl.col("significant").fill_null(False))
    alpha, correction = df["alpha"][0], df["correction"][0]
    words = []
    if hits.height:
        words.append(f"Order matters on {_names(hits['hardware_type'].to_list())} ("
                     + "; ".join(_order_numbers(r, hits.height > 1)
                                 for r in hits.iter_rows(named=True))
                     + "; Δ > 0: the fixed order's mean is larger)")
    if rest.height == 1:
        words.append(("order does not matter" if hits.height else "Order does not matter")
                     + f" on {rest['hardware_type'][0]} ("
                     + _order_numbers(rest.row(0, named=True), False) + f"; adjusted p ≥ α = "
                     f"{alpha:g}, {correction})")
    elif rest.height:  # the numbers of each are in the table below
        ps = [p for p in rest["kw_p"].to_list() if p is not None]
        smallest = f"; smallest {p_statement(min(ps))}" if ps else ""
        words.append(("order does not matter" if hits.height else "Order does not matter")
                     + f" on {_names(rest['hardware_type'].to_list())} (adjusted p ≥ α = "
                     f"{alpha:g}, {correction}{smallest})")
    return "; ".join(words) + ".", bool(hits.height)


def _variability_verdict(df: pl.DataFrame) -> str:
    ok = df.filter(pl.col("rsd_total_pct").is_not_null()).sort("rsd_total_pct",
                                                                  descending=True)
    if ok.height == 0:
        return "Variability: undefined (" + str(df["reason"][0] or "no values") + ")."
    items = [f"{r['hardware_type']} {format_number(r['rsd_total_pct'])} %"
             for r in ok.iter_rows(named=True)]
    return ("Variability (RSD of all values, most variable first): " + ", ".join(items) + ".")


def _trend_verdict(df: pl.DataFrame, higher_is_better: bool | None) -> tuple[str, bool]:
    drifting = charts.plus_is_worse(
        df.filter(pl.col("drifting").fill_null(False)), "slope_pct_per_30d",
        "ci_low_pct_per_30d", "ci_high_pct_per_30d", ("worse", "worse_low", "worse_high"),
        pl.lit(higher_is_better))
    if drifting.height == 0:
        return (f"No drift over time on {_names(df['hardware_type'].to_list())} (every "
                "Theil-Sen CI includes 0)."), False
    items = [f"{r['hardware_type']} {r['worse']:+.2f} % per 30 days (CI "
             f"{r['worse_low']:+.2f} to {r['worse_high']:+.2f} %)"
             for r in drifting.iter_rows(named=True)]
    return "Drifts over time: " + "; ".join(items) + ".", True


def _change_verdict(df: pl.DataFrame, higher_is_better: bool | None) -> tuple[str, bool]:
    changes = df.filter(pl.col("position").is_not_null())
    if changes.height == 0:
        return "No change point in any series.", False
    big = charts.plus_is_worse(
        changes.sort(pl.col("change_pct").abs(), descending=True).head(1), "change_pct",
        None, None, ("worse_pct", "", ""), pl.lit(higher_is_better)).row(0, named=True)
    regressions = changes.filter(pl.col("direction") == "regression").height
    return (f"{changes.height} change point{'s' if changes.height != 1 else ''} "
            f"({regressions} regression{'s' if regressions != 1 else ''}); largest "
            f"{big['worse_pct']:+.2f} %, + = worse ({big['direction']}) on "
            f"{big['hardware_type']}."), regressions > 0


# ---------------------------------------------------------------- sections
SUMMARY_COLUMNS = (
    Column("hardware_type", "hardware type", key=True),
    Column("significant", "order matters (p adjusted < α)", "bool"),
    Column("delta_pct", "Δ% fixed vs random (%)", "pct"),
    Column("kw_p", "p (Kruskal-Wallis)", "pvalue"),
    Column("p_adjusted", "p adjusted", "pvalue"),
    Column("eta2", "η²_H", "float"),
    Column("n_fixed", "n fixed", "int"), Column("n_random", "n random", "int"),
    Column("median_fixed", "median fixed", "float"),
    Column("median_random", "median random", "float"),
    Column("rsd_total_pct", "RSD total (%)", "pct"),
    Column("slope_pct_per_30d", "trend (% per 30 days)", "pct"),
    Column("ci_low_pct_per_30d", "trend CI low (%)", "pct"),
    Column("ci_high_pct_per_30d", "trend CI high (%)", "pct"),
    Column("drifting", "drifting", "bool"),
    Column("change_points", "change points", "int"),
)


def summary_rows(frames: Frames) -> pl.DataFrame:
    """One row per hardware type with the numbers of every analysis that has them."""
    c = frames.config
    types = [c.hardware_type] if c.hardware_type else list(c.hardware_types)
    out = pl.DataFrame({"hardware_type": types}, schema={"hardware_type": pl.String})
    picks = {"order_effects": ["significant", "delta_pct", "kw_p", "p_adjusted", "eta2",
                               "n_fixed", "n_random", "median_fixed", "median_random"],
             "variability": ["rsd_total_pct"],
             "trends": ["slope_pct_per_30d", "ci_low_pct_per_30d", "ci_high_pct_per_30d",
                        "drifting"]}
    for table, cols in picks.items():
        df = _frame(frames.analyses[table])
        if df is not None:
            out = out.join(df.select(["hardware_type", *cols]), on="hardware_type", how="left")
    cps = _frame(frames.analyses["change_points"])
    if cps is not None:
        counts = cps.group_by("hardware_type").agg(
            change_points=pl.col("position").is_not_null().sum().cast(pl.Int64))
        out = out.join(counts, on="hardware_type", how="left")
    return out


def analyses_section(frames: Frames) -> Section:
    rows = summary_rows(frames)
    columns = tuple(col for col in SUMMARY_COLUMNS if col.field in rows.columns)
    blocks: list[Table | Notice] = [Table(
        "What each analysis says, per hardware type",
        "From the latest run of each analysis for this campaign: order effects (Δ% > 0: the "
        "fixed order's mean is larger; order matters: the p-value adjusted for the job's "
        "family of comparisons is below α), "
        "RSD of all values (variability), the Theil-Sen trend in % of the median per 30 days "
        "with its CI (trends), the number of change points (change-points). Empty: that "
        "analysis has no row for the hardware type.", columns, rows.to_arrow())]
    blocks += [m.notice() for m in frames.analyses.values() if isinstance(m, Missing)]
    return Section("What the analyses say", "", tuple(blocks))


def ecdf_points(values: pa.Table) -> pl.DataFrame:
    """Each hardware type's and order kind's values (sorted) with the fraction of the
    group at or below each, thinned to :data:`ECDF_POINTS` per group."""
    df = pl.from_arrow(values)
    assert isinstance(df, pl.DataFrame)
    if df.height == 0:
        return df.with_columns(ecdf=pl.lit(None, pl.Float64))
    df = df.sort(["hardware_type", "order_kind", "value"]).with_columns(
        ecdf=(pl.int_range(1, pl.len() + 1).over(["hardware_type", "order_kind"])
              / pl.len().over(["hardware_type", "order_kind"])).cast(pl.Float64))
    parts = [thin_sorted(part, ECDF_POINTS)
             for part in df.partition_by(["hardware_type", "order_kind"], maintain_order=True)]
    return pl.concat(parts)


def distribution_section(frames: Frames) -> Section:
    c = frames.config
    title = "Is the distribution the same in fixed and in random order?"
    points = ecdf_points(frames.values)
    if points.height == 0:
        return Section(title, "", (Notice("This configuration has no successful values."),))
    kinds = set(points["order_kind"].unique().to_list())
    blocks: list[Figure | Notice] = [Figure(ccharts.order_ecdf(
        points, title="The values in fixed and in random order (ECDF), per hardware type",
        subtitle=f"{c.benchmark} {format_settings(c.settings)} [{c.metric}]",
        metric=c.metric, unit=c.unit), "ecdf")]
    if not {"fixed", "random"} <= kinds:
        blocks.append(Notice("Only " + ", ".join(sorted(kinds)) + "-order runs hold this "
                             "configuration: the two orders cannot be compared."))
    return Section(title, "Every successful value (each iteration of each trial), as the "
                   "order-effects analysis compares them.", tuple(blocks))


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def trend_lines(trends: pl.DataFrame | None, higher_is_better: bool | None = None
                ) -> pl.DataFrame:
    """The ends of each hardware type's Theil-Sen line from the ``trends`` rows: the
    slope (``slope_per_day``) through the series median at the middle of its time span
    (first and last trial); its label signed + = worse by ``higher_is_better``."""
    schema = {"hardware_type": pl.String, "time": pl.String, "trend": pl.Float64,
              "label": pl.String}
    rows = []
    for r in (trends.iter_rows(named=True) if trends is not None else ()):
        if r["slope_per_day"] is None or r["median"] is None or r["first_s"] is None:
            continue
        mid = (r["first_s"] + r["last_s"]) / 2
        worse = -r["slope_pct_per_30d"] if higher_is_better else r["slope_pct_per_30d"]
        label = (f"{worse:+.2f} % / 30 days, + = worse"
                 + (" (drifting)" if r["drifting"] else " (no drift)"))
        for t in (r["first_s"], r["last_s"]):
            rows.append({"hardware_type": r["hardware_type"], "time": _iso(t),
                         "trend": r["median"] + r["slope_per_day"] * (t - mid) / DAY_S,
                         "label": label})
    return pl.DataFrame(rows, schema=schema)


def time_section(frames: Frames) -> Section:
    c = frames.config
    title = "Values over time"
    trials = pl.from_arrow(frames.trials)
    assert isinstance(trials, pl.DataFrame)
    if trials.height == 0:
        return Section(title, "", (Notice("This configuration has no successful trials."),))
    parts = [thin_sorted(p, TIME_POINTS)
             for p in trials.sort(["hardware_type", "t"]).partition_by("hardware_type",
                                                                       maintain_order=True)]
    points = pl.concat(parts).with_columns(
        time=pl.col("t").map_elements(_iso, return_dtype=pl.String))
    trends = _frame(frames.analyses["trends"])
    blocks: list[Figure | Notice] = [Figure(ccharts.values_over_time(
        points, trend_lines(trends, frames.config.higher_is_better), title="Trial values over time, with the Theil-Sen trend",
        subtitle=f"{c.benchmark} {format_settings(c.settings)} [{c.metric}]",
        metric=c.metric, unit=c.unit), "over-time")]
    if trends is None:
        blocks.append(Notice("No trend line: run `perfwarehouse analyze trends` first."))
    return Section(title, "Each trial's median value at the time it started.", tuple(blocks))


def change_points_section(cps: pl.DataFrame, higher_is_better: bool | None) -> Section:
    changes = cps.filter(pl.col("position").is_not_null())
    if changes.height == 0:
        return Section("Change points", "", (Notice(
            "No change point: " + "; ".join(
                f"{r['hardware_type']}: {r['reason']}" for r in cps.iter_rows(named=True)
                if r["reason"]) + "."),))
    rows = charts.plus_is_worse(changes, "change_pct", "ci_low_pct", "ci_high_pct",
                                ("worse_pct", "worse_low_pct", "worse_high_pct"),
                                pl.lit(higher_is_better))
    rows = rows.with_columns(direction=pl.when(pl.col("direction") == "regression")
                                .then(pl.lit("▼ regression"))
                                .when(pl.col("direction") == "improvement")
                                .then(pl.lit("▲ improvement")).otherwise(pl.lit("")))
    return Section("Change points", "The history page draws each series with its segments.", (
        capped_table("Change points of this configuration",
                     "From the change-points analysis: the change in % of the typical value "
                     "after against before (+ = worse by the metric's direction, as on the "
                     "history page), its CI and the permutation p-value.",
                     (Column("hardware_type", "hardware type", key=True),
                      Column("direction", "change"),
                      Column("worse_pct", "change, + = worse (%)", "pct"),
                      Column("worse_low_pct", "CI low (%)", "pct"),
                      Column("worse_high_pct", "CI high (%)", "pct"),
                      Column("revision_before", "last revision before"),
                      Column("revision", "first revision after"),
                      Column("started_at", "first trial after"),
                      Column("median_before", "median before", "float"),
                      Column("median_after", "median after", "float"),
                      Column("p_value", "p", "pvalue")), rows),))


# ------------------------------------------------------------------ options
CONFIG_CAMPAIGN = Option(("--campaign",), required=True,
                         help="The campaign the configuration belongs to.")
BENCHMARK = Option(("--benchmark",), required=True, help="The configuration's benchmark.")
METRIC = Option(("--metric",), help="Its metric (needed when the benchmark has several).")
SETTINGS = Option(("--settings",), multiple=True, metavar="JSON|KEY=VALUE",
                  help="Its settings, as one JSON object or KEY=VALUE words (repeatable; "
                       "the keys given must match, the others may be anything).")
HARDWARE_TYPE = Option(("--hardware-type", "hardware_type"),
                       help="Only this hardware type.  [default: every one it ran on]")
CONFIG_OUT = Option(("--out",), kind="file", help="The HTML file to write.  [default: "
                                                  "reports/configuration-<benchmark>-<hash>.html]")

REPORT = Report(
    "configuration",
    "One configuration (campaign, benchmark, metric, settings): what the analyses say, its "
    "values in fixed vs random order (ECDF) and over time with the Theil-Sen trend.",
    build, options=(CONFIG_OUT, CONFIG_CAMPAIGN, BENCHMARK, METRIC, SETTINGS, HARDWARE_TYPE, PNG),
    in_all=False)
