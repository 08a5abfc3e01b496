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
from perfwarehouse.reports.columns import col
from perfwarehouse.reports.configuration_verdict import as_frame, verdict
from perfwarehouse.reports.page import (
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Table,
    capped_table,
    format_settings,
)
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
                verdict=verdict(frames.config, frames.analyses), links=links)


def _direction(higher_is_better: bool | None) -> str:
    if higher_is_better is None:
        return "direction not recorded"
    return "higher is better" if higher_is_better else "lower is better"


# ---------------------------------------------------------------- sections
SUMMARY_COLUMNS = (
    col("hardware_type", key=True),
    col("significant"),
    col("delta_pct"),
    col("kw_p_named"),
    col("p_adjusted"),
    col("eta2"),
    col("n_fixed"), col("n_random"),
    col("median_fixed"),
    col("median_random"),
    col("rsd_total_pct"),
    col("slope_pct_per_30d"),
    col("ci_low_pct_per_30d"),
    col("ci_high_pct_per_30d"),
    col("drifting"),
    col("change_points"),
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
        df = as_frame(frames.analyses[table])
        if df is not None:
            out = out.join(df.select(["hardware_type", *cols]), on="hardware_type", how="left")
    cps = as_frame(frames.analyses["change_points"])
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
    trends = as_frame(frames.analyses["trends"])
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
                     (col("hardware_type", key=True),
                      col("direction"),
                      col("worse_pct"),
                      col("worse_low_pct"),
                      col("worse_high_pct"),
                      col("revision_before"),
                      col("revision"),
                      col("started_at"),
                      col("median_before"),
                      col("median_after"),
                      col("p_value")), rows),))


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
