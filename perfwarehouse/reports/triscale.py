"""The TriScale report (Jacob et al. (TriScale, JSys 2021), §4 and 6).

* **Run metric with convergence** (Figure 3a): example runs (a run is one trial with
  its iterations) with the measure over TriScale's sliding windows, the Theil-Sen
  trend of the window measures with its CI, and the tolerance band
  (:func:`perfwarehouse.triscale.convergence.convergence_view`, called by the query
  step: the examples are not a job's table).
* **KPIs and variability scores** (Figures 3b and 3c): from the TriScale jobs' tables.
* **Environment profile** (Figure 5): from the ``profile`` job's tables, per hardware
  type the autocorrelation of its performance over time with the band, and the
  seasonal periods found.

:func:`build` is the query step (the tables, and the convergence of the example runs);
:func:`build_page` presents what it found and computes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts, triscale_charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.columns import CONFIGURATION_COLUMNS, col
from perfwarehouse.reports.page import (
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    capped_table,
)

if TYPE_CHECKING:
    from perfwarehouse.triscale.convergence import ConvergenceView

MEASURE = 0.5
CONFIDENCE = 0.95
TOLERANCE = 0.05
MIN_ITERATIONS = 10
EXAMPLES = 3
MAX_PROFILE_CHARTS = 6
MAX_KPI_ROWS = 60
DAY_S = 86400.0


INTRO = (
    "TriScale (Jacob et al., JSys 2021) separates three timescales: within a run, the metric "
    "is only meaningful once the run has converged; across runs, a KPI is a percentile bound "
    "that holds with a stated confidence if the runs are independent; across series taken at "
    "different times, the variability score says how reproducible the KPI is. Profiling the "
    "environment over time reveals seasonal components (daily, weekly) that a series must span.")


@dataclass(frozen=True)
class RunExample:
    """One example run: its row of ``report_triscale_examples``, its values (``x``,
    ``value``) and its convergence (None when too short to test)."""

    row: dict[str, Any]
    points: pl.DataFrame
    view: ConvergenceView | None


@dataclass(frozen=True)
class TriScaleData:
    """What the page shows, as found by the query step."""

    lines: tuple[str, ...]
    examples: tuple[RunExample, ...]
    kpi: pa.Table | Missing
    variability: pa.Table | Missing
    profiles: pa.Table | Missing
    acf: pl.DataFrame | None  # the profiles' autocorrelation (None if profiles are missing)


def build(data: ReportData, request: Request) -> Page:
    """The query step: the TriScale jobs' tables and a few example runs, each tested for
    convergence by :func:`perfwarehouse.triscale.convergence.convergence_view`; then
    :func:`build_page`."""
    from perfwarehouse.triscale.convergence import convergence_view

    lines: list[str] = []
    for job in ("kpi", "variability-score"):
        lines += provenance(data.job_runs(job, request), job)
    runs: list[RunExample] = []
    examples = data.query("triscale_examples", campaign=request.campaign,
                          min_iterations=MIN_ITERATIONS, examples=EXAMPLES)
    for row in examples.to_pylist():
        values = data.query("triscale_run_values", campaign=row["campaign"],
                            hardware_type=row["hardware_type"], config_id=row["config_id"],
                            run_id=row["run_id"], position=row["position"])
        x = np.asarray(values.column("iteration").to_numpy(), dtype=np.float64)
        y = np.asarray(values.column("value").to_numpy(), dtype=np.float64)
        runs.append(RunExample(row, pl.DataFrame({"x": x, "value": y}),
                               convergence_view(y, x, MEASURE, CONFIDENCE, TOLERANCE)))
    kpi = data.results("triscale_kpi", "triscale_kpi", "perfwarehouse analyze kpi", request)
    var = data.results("triscale_variability", "triscale_variability_score",
                       "perfwarehouse analyze variability-score", request)
    prof = data.results("triscale_profile", "triscale_profile", "perfwarehouse analyze profile",
                        request)
    acf: pl.DataFrame | None = None
    if not isinstance(prof, Missing):
        acf_frame = pl.from_arrow(data.query("triscale_profile_acf", campaign=request.campaign))
        assert isinstance(acf_frame, pl.DataFrame)
        acf = acf_frame
    return build_page(TriScaleData(tuple(lines), tuple(runs), kpi, var, prof, acf))


def build_page(found: TriScaleData) -> Page:
    """The page from what the query step found (pure)."""
    sections = [convergence_section(found.examples), kpi_section(found.kpi),
                variability_section(found.variability),
                profile_section(found.profiles, found.acf)]
    return Page("TriScale: convergence, KPIs, variability and seasonality", INTRO,
                tuple(sections), found.lines, name="triscale", verdict=verdict(found))


def verdict(found: TriScaleData) -> Verdict:
    """How many KPIs can be trusted (independent runs), how reproducible they are, and
    which seasonal periods a series must span."""
    parts = []
    kpi, var, prof = found.kpi, found.variability, found.profiles
    if not isinstance(kpi, Missing):
        df = pl.from_arrow(kpi)
        assert isinstance(df, pl.DataFrame)
        ok = df.filter(pl.col("kpi").is_not_null())
        indep = int(ok["independent"].fill_null(False).sum())
        parts.append(f"{ok.height:,} of {df.height:,} series have a KPI; {indep:,} of them "
                     "come from independent runs and can be trusted as a bound"
                     + ("" if indep == ok.height else ", the others are descriptive only")
                     + ".")
    if not isinstance(var, Missing):
        vf = charts.labelled(var).filter(pl.col("relative").is_not_null())
        if vf.height:
            worst = vf.sort("relative", descending=True).row(0, named=True)
            median = cast(float, vf["relative"].median())  # a non-empty float column's
            parts.append(f"Median variability score {median * 100:.2g} % of the "
                         f"KPI; least reproducible: {worst['config']} on "
                         f"{worst['hardware_type']} ({worst['relative'] * 100:.2g} %).")
    if not isinstance(prof, Missing):
        rows = prof.to_pylist()
        seasonal = sorted({p for r in rows for p in (r["seasonal_periods"] or [])})
        types = sorted({r["hardware_type"] for r in rows if r["seasonal_periods"]})
        if seasonal:
            parts.append(f"Seasonal periods ({', '.join(seasonal)}) on {len(types)} of "
                         f"{len({r['hardware_type'] for r in rows})} hardware types: a series "
                         "must span them.")
        else:
            parts.append("No seasonal period found in the environment profiles.")
    if not parts:
        return Verdict("Not analysed yet: run `perfwarehouse analyze kpi`, "
                       "`analyze variability-score` and `analyze profile`, then write this "
                       "report again.", "missing")
    return Verdict(" ".join(parts), "info")


# ------------------------------------------------------------- convergence
def convergence_section(examples: tuple[RunExample, ...]) -> Section:
    title = "Run metric and convergence"
    intro = (f"Jacob et al. (TriScale, JSys 2021), Figure 3a. A run is one trial with its iterations; its metric is the "
             f"median (percentile {MEASURE:g}) over sliding windows, and the run has converged "
             f"when "
             f"the {CONFIDENCE:.0%} CI of the Theil-Sen trend of the window medians, on the "
             f"[-1, 1] scale, stays within ±{TOLERANCE:g}.")
    if not examples:
        return Section(title, intro, (Notice(
            f"No trial has {MIN_ITERATIONS} or more measurements (iterations), so no run can be "
            "tested for convergence; TriScale's run metric needs runs with many values."),))
    blocks: list[Figure | Notice | Table] = []
    labels = charts.config_labels([e.row["benchmark"] for e in examples],
                                  [e.row["settings"] for e in examples],
                                  [e.row["metric"] for e in examples])
    for example, label in zip(examples, labels):
        row, view = example.row, example.view
        if view is None:
            continue
        verdict = "converged" if view.converged else "did not converge"
        blocks.append(Figure(triscale_charts.convergence_run(
            example.points, view.windows, view.fit,
            title=f"{label} on {row['hardware_type']}: {verdict} (slope {view.slope:+.3f}, "
                  f"CI [{view.low:+.3f}, {view.high:+.3f}])",
            unit=row["unit"], measure="window median", x_title="iteration within the trial "
            "(index)"), f"convergence-{label}"))
    if not blocks:
        blocks.append(Notice("The example runs are too short to test."))
    return Section(title, intro, tuple(blocks))


# --------------------------------------------------------------------- KPIs
#: "yes"/"no" of the independence flag, for tables and tooltips
YES_NO = pl.when(pl.col("independent")).then(pl.lit("yes")).otherwise(pl.lit("no"))


def kpi_section(rows: pa.Table | Missing) -> Section:
    title = "KPIs"
    intro = ("Jacob et al. (TriScale, JSys 2021), §4.3 and Figure 3b: a KPI is a one-sided bound of a percentile of "
             "a series' run metrics, valid with the stated confidence when the runs are "
             "independent.")
    if isinstance(rows, Missing):
        return Section(title, intro, (rows.notice(),))
    df = charts.labelled(rows).with_columns(
        independent=YES_NO,
        value_pct=(pl.col("kpi") / pl.col("metric_median") - 1) * 100)
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config")
                         + pl.lit(" · ") + pl.col("series").cast(pl.String))
    shown = df.filter(pl.col("value_pct").is_not_null()).sort(
        pl.col("value_pct").abs(), descending=True).head(MAX_KPI_ROWS)
    blocks: list[Figure | Table | Notice] = []
    if shown.height:
        blocks.append(Figure(triscale_charts.kpi_chart(shown.with_columns(kind=pl.lit("KPI")),
                                              title="KPIs relative to the series' median run "
                                                    "metric"), "kpi"))
    blocks.append(capped_table(
        "KPIs", "One row per series; n required: the runs needed for a bound at this "
        "confidence when there are too few.",
        (*CONFIGURATION_COLUMNS, col("series"),
         col("percentile"), col("confidence"),
         col("kpi"), col("n_runs"),
         col("independent_runs"), col("n_required")),
        df))
    return Section(title, intro, tuple(blocks))


def variability_section(rows: pa.Table | Missing) -> Section:
    title = "Variability scores"
    intro = ("Jacob et al. (TriScale, JSys 2021), §4.4 and Figure 3c: the interval that holds the chosen percentile "
             "range of the KPIs of repeated series (sequels); the narrower, the more "
             "reproducible.")
    if isinstance(rows, Missing):
        return Section(title, intro, (rows.notice(),))
    mid = (pl.col("low") + pl.col("high")) / 2
    df = charts.labelled(rows).with_columns(
        independent=YES_NO,
        low_pct=(pl.col("low") / mid - 1) * 100, high_pct=(pl.col("high") / mid - 1) * 100,
        relative_pct=pl.col("relative") * 100)
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config"))
    shown = df.filter(pl.col("relative_pct").is_not_null()).sort(
        "relative_pct", descending=True).head(MAX_KPI_ROWS)
    blocks: list[Figure | Table | Notice] = []
    if shown.height:
        blocks.append(Figure(triscale_charts.variability_scores(
            shown, title="Variability scores, least reproducible first"), "variability-scores"))
    blocks.append(capped_table(
        "Variability scores", "score = high − low, relative = score / the midpoint.",
        (*CONFIGURATION_COLUMNS,
         col("percentile"), col("confidence"),
         col("low"), col("high"),
         col("score"), col("relative_pct"),
         col("n_series"), col("independent_kpis")),
        df))
    return Section(title, intro, tuple(blocks))


# ------------------------------------------------------------------ profile
def profile_section(profiles: pa.Table | Missing, acf: pl.DataFrame | None) -> Section:
    title = "Environment profile: seasonal components"
    intro = ("Jacob et al. (TriScale, JSys 2021), §4.6 and Figure 5: for each hardware type, the performance of its "
             "runs over time on a regular grid, its autocorrelation, and the lags whose peak "
             "rises above the band: candidate seasonal periods. A series (and an A/B "
             "comparison) should span these periods.")
    if isinstance(profiles, Missing):
        return Section(title, intro, (profiles.notice(),))
    assert acf is not None
    rows = profiles.to_pylist()
    seasonal = [r for r in rows if r["seasonal_periods"]]
    blocks: list[Figure | Table | Notice] = []
    for row in seasonal[:MAX_PROFILE_CHARTS]:
        part = acf.filter((pl.col("campaign") == row["campaign"])
                          & (pl.col("hardware_type") == row["hardware_type"])
                          & (pl.col("node").eq_missing(row["node"])))
        longest = float(cast("float | None", part["lag_s"].max()) or 0.0)
        scale, unit = (DAY_S, "days") if longest >= 2 * DAY_S else (3600.0, "hours")
        # a lag no two observed points are apart (a gappy series) has no autocorrelation
        # and an infinite band: not drawn
        acf_df = part.filter(pl.col("acf").is_finite() & pl.col("band").is_finite()).select(
            (pl.col("lag_s") / scale).alias("lag"), "acf", "band")
        per = pl.DataFrame({"lag": [p / scale for p in row["seasonal_period_s"]],
                            "label": list(row["seasonal_periods"])},
                           schema={"lag": pl.Float64, "label": pl.String})
        where = row["hardware_type"] + (f", node {row['node']}" if row["node"] else "")
        blocks.append(Figure(triscale_charts.autocorrelation(
            acf_df, per, title=f"Autocorrelation of run performance, {where} ({row['campaign']})",
            lag_unit=unit), f"acf-{row['campaign']}-{where}"))
    if len(seasonal) > MAX_PROFILE_CHARTS:
        blocks.append(Notice(f"Charts for {MAX_PROFILE_CHARTS} of the {len(seasonal)} profiles "
                             "with seasonal components; the table lists them all."))
    if not seasonal:
        blocks.append(Notice("No profile shows an autocorrelation peak above the band: no "
                             "seasonal component was found."))
    table = pa.Table.from_pylist([
        {"campaign": r["campaign"], "hardware_type": r["hardware_type"], "node": r["node"],
         "trials": r["trials"], "step_h": r["step_s"] / 3600, "converged": r["converged"],
         "periods": ", ".join(r["seasonal_periods"]) or "none"} for r in rows],
        schema=pa.schema([("campaign", pa.string()), ("hardware_type", pa.string()),
                          ("node", pa.string()), ("trials", pa.int64()),
                          ("step_h", pa.float64()), ("converged", pa.bool_()),
                          ("periods", pa.string())]))
    blocks.append(Table(
        "Seasonal periods per hardware type",
        "step: the grid of the series; converged: the convergence test over time; periods: "
        "the lags whose autocorrelation peaks above the band (perfwarehouse analyze profile).",
        (col("campaign"), col("hardware_type"),
         col("node"), col("trials"),
         col("step_h"), col("converged"),
         col("periods")), table))
    return Section(title, intro, tuple(blocks))


REPORT = Report(
    "triscale",
    "TriScale: run metrics with convergence, KPIs, variability scores, environment "
    "autocorrelation and seasonal periods.",
    build)
