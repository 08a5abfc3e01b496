"""The TriScale report (Jacob et al. (TriScale, JSys 2021), §4 and 6).

* **Run metric with convergence** (Figure 3a): example runs (a run is one trial with
  its iterations) with the measure over TriScale's sliding windows, the Theil-Sen
  trend of the window measures with its CI, and the tolerance band
  (``perfwarehouse.triscale``'s window measures and convergence test).
* **KPIs and variability scores** (Figures 3b and 3c): from the TriScale jobs' tables.
* **Environment profile** (Figure 5): from the ``profile`` job's tables, per hardware
  type the autocorrelation of its performance over time with the band, and the
  seasonal periods found.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts, triscale_charts
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
    Verdict,
    capped_table,
)
from perfwarehouse.triscale import convergence_test
from perfwarehouse.triscale.analysis import window_measures

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


def build(data: ReportData, request: Request) -> Page:
    lines: list[str] = []
    for job in ("kpi", "variability-score"):
        lines += provenance(data.job_runs(job, request), job)
    sections = [convergence_section(data, request), kpi_section(data, request),
                variability_section(data, request), profile_section(data, request)]
    return Page("TriScale: convergence, KPIs, variability and seasonality", INTRO,
                tuple(sections), tuple(lines), name="triscale", verdict=verdict(data, request))


def verdict(data: ReportData, request: Request) -> Verdict:
    """How many KPIs can be trusted (independent runs), how reproducible they are, and
    which seasonal periods a series must span."""
    parts = []
    kpi = data.results("triscale_kpi", "triscale_kpi", "perfwarehouse analyze kpi", request)
    if not isinstance(kpi, Missing):
        df = pl.from_arrow(kpi)
        assert isinstance(df, pl.DataFrame)
        ok = df.filter(pl.col("kpi").is_not_null())
        indep = int(ok["independent"].fill_null(False).sum())
        parts.append(f"{ok.height:,} of {df.height:,} series have a KPI; {indep:,} of them "
                     "come from independent runs and can be trusted as a bound"
                     + ("" if indep == ok.height else ", the others are descriptive only")
                     + ".")
    var = data.results("triscale_variability", "triscale_variability_score",
                       "perfwarehouse analyze variability-score", request)
    if not isinstance(var, Missing):
        vf = charts.labelled(var).filter(pl.col("relative").is_not_null())
        if vf.height:
            worst = vf.sort("relative", descending=True).row(0, named=True)
            parts.append(f"Median variability score {vf['relative'].median() * 100:.2g} % of the "
                         f"KPI; least reproducible: {worst['config']} on "
                         f"{worst['hardware_type']} ({worst['relative'] * 100:.2g} %).")
    prof = data.results("triscale_profile", "triscale_profile", "perfwarehouse analyze profile",
                        request)
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
@dataclass(frozen=True)
class ConvergenceView:
    """What Figure 3a draws for one run, on the raw scale."""

    windows: pl.DataFrame
    fit: pl.DataFrame
    converged: bool
    slope: float
    low: float
    high: float


def convergence_view(y: np.ndarray, x: np.ndarray | None = None, measure: float = MEASURE,
                     confidence: float = CONFIDENCE,
                     tolerance: float = TOLERANCE) -> ConvergenceView | None:
    """The convergence test of TriScale on one run, with what is needed to draw it: the
    window measures, and the Theil-Sen line, its CI and the tolerance band mapped back
    from [-1, 1] to the run's scale (pivoting on the fitted centre). None when the run
    is too short (fewer than 4 values) or constant in x."""
    y = np.asarray(y, dtype=np.float64)
    x = np.arange(y.size, dtype=np.float64) if x is None else np.asarray(x, dtype=np.float64)
    if y.size < 4:
        return None
    wx, wy = window_measures(y, x, measure)
    y_lo, y_hi = float(y.min()), float(y.max())
    x_lo, x_hi = float(wx.min()), float(wx.max())
    if x_hi == x_lo:
        return None
    trend = convergence_test(wy, wx, confidence, tolerance, bounds=(y_lo, y_hi))
    converged = trend.converged
    # the fitted line's centre on the [-1, 1] scale, to draw it on the raw scale
    xu = 2 * (wx - x_lo) / (x_hi - x_lo) - 1
    yu = np.zeros_like(wy) if y_hi == y_lo else 2 * (wy - y_lo) / (y_hi - y_lo) - 1
    centre = float(np.median(yu - trend.slope * xu))

    def raw_y(v: np.ndarray) -> np.ndarray:
        return (v + 1) / 2 * (y_hi - y_lo) + y_lo

    ends = np.array([-1.0, 0.0, 1.0])
    lines = {name: raw_y(centre + s * ends) for name, s in
             (("fit", trend.slope), ("a", trend.low), ("b", trend.high),
              ("t1", -tolerance), ("t2", tolerance))}
    fit = pl.DataFrame({
        "x": (ends + 1) / 2 * (x_hi - x_lo) + x_lo, "fit": lines["fit"],
        "low": np.minimum(lines["a"], lines["b"]), "high": np.maximum(lines["a"], lines["b"]),
        "tol_low": np.minimum(lines["t1"], lines["t2"]),
        "tol_high": np.maximum(lines["t1"], lines["t2"])})
    windows = pl.DataFrame({"x": wx, "measure": wy})
    return ConvergenceView(windows, fit, bool(converged), trend.slope, trend.low, trend.high)


def convergence_section(data: ReportData, request: Request) -> Section:
    title = "Run metric and convergence"
    intro = (f"Jacob et al. (TriScale, JSys 2021), Figure 3a. A run is one trial with its iterations; its metric is the "
             f"median (percentile {MEASURE:g}) over sliding windows, and the run has converged "
             f"when "
             f"the {CONFIDENCE:.0%} CI of the Theil-Sen trend of the window medians, on the "
             f"[-1, 1] scale, stays within ±{TOLERANCE:g}.")
    examples = data.query("triscale_examples", campaign=request.campaign,
                          min_iterations=MIN_ITERATIONS, examples=EXAMPLES)
    if examples.num_rows == 0:
        return Section(title, intro, (Notice(
            f"No trial has {MIN_ITERATIONS} or more measurements (iterations), so no run can be "
            "tested for convergence; TriScale's run metric needs runs with many values."),))
    blocks: list[Figure | Notice | Table] = []
    labels = charts.config_labels(examples.column("benchmark").to_pylist(),
                                  examples.column("settings").to_pylist(),
                                  examples.column("metric").to_pylist())
    for row, label in zip(examples.to_pylist(), labels):
        values = data.query("triscale_run_values", campaign=row["campaign"],
                            hardware_type=row["hardware_type"], config_id=row["config_id"],
                            run_id=row["run_id"], position=row["position"])
        x = np.asarray(values.column("iteration").to_numpy(), dtype=np.float64)
        y = np.asarray(values.column("value").to_numpy(), dtype=np.float64)
        view = convergence_view(y, x)
        if view is None:
            continue
        verdict = "converged" if view.converged else "did not converge"
        points = pl.DataFrame({"x": x, "value": y})
        blocks.append(Figure(triscale_charts.convergence_run(
            points, view.windows, view.fit,
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


def kpi_section(data: ReportData, request: Request) -> Section:
    title = "KPIs"
    intro = ("Jacob et al. (TriScale, JSys 2021), §4.3 and Figure 3b: a KPI is a one-sided bound of a percentile of "
             "a series' run metrics, valid with the stated confidence when the runs are "
             "independent.")
    rows = data.results("triscale_kpi", "triscale_kpi", "perfwarehouse analyze kpi", request)
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
        (*CONFIGURATION_COLUMNS, Column("series", "series"),
         Column("percentile", "percentile", "float"), Column("confidence", "confidence", "float"),
         Column("kpi", "KPI", "float"), Column("n_runs", "runs", "int"),
         Column("independent", "runs independent"), Column("n_required", "n required", "int")),
        df))
    return Section(title, intro, tuple(blocks))


def variability_section(data: ReportData, request: Request) -> Section:
    title = "Variability scores"
    intro = ("Jacob et al. (TriScale, JSys 2021), §4.4 and Figure 3c: the interval that holds the chosen percentile "
             "range of the KPIs of repeated series (sequels); the narrower, the more "
             "reproducible.")
    rows = data.results("triscale_variability", "triscale_variability_score",
                        "perfwarehouse analyze variability-score", request)
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
         Column("percentile", "percentile", "float"), Column("confidence", "confidence", "float"),
         Column("low", "low", "float"), Column("high", "high", "float"),
         Column("score", "score", "float"), Column("relative_pct", "relative (%)", "pct"),
         Column("n_series", "series", "int"), Column("independent", "KPIs independent")),
        df))
    return Section(title, intro, tuple(blocks))


# ------------------------------------------------------------------ profile
def profile_section(data: ReportData, request: Request) -> Section:
    title = "Environment profile: seasonal components"
    intro = ("Jacob et al. (TriScale, JSys 2021), §4.6 and Figure 5: for each hardware type, the performance of its "
             "runs over time on a regular grid, its autocorrelation, and the lags whose peak "
             "rises above the band: candidate seasonal periods. A series (and an A/B "
             "comparison) should span these periods.")
    profiles = data.results("triscale_profile", "triscale_profile", "perfwarehouse analyze profile",
                            request)
    if isinstance(profiles, Missing):
        return Section(title, intro, (profiles.notice(),))
    acf = pl.from_arrow(data.query("triscale_profile_acf", campaign=request.campaign))
    assert isinstance(acf, pl.DataFrame)
    rows = profiles.to_pylist()
    seasonal = [r for r in rows if r["seasonal_periods"]]
    blocks: list[Figure | Table | Notice] = []
    for row in seasonal[:MAX_PROFILE_CHARTS]:
        part = acf.filter((pl.col("campaign") == row["campaign"])
                          & (pl.col("hardware_type") == row["hardware_type"])
                          & (pl.col("node").eq_missing(row["node"])))
        longest = float(part["lag_s"].max() or 0.0)
        scale, unit = (DAY_S, "days") if longest >= 2 * DAY_S else (3600.0, "hours")
        acf_df = part.select((pl.col("lag_s") / scale).alias("lag"), "acf", "band")
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
        (Column("campaign", "campaign"), Column("hardware_type", "hardware type"),
         Column("node", "node"), Column("trials", "trials", "int"),
         Column("step_h", "step (hours)", "float"), Column("converged", "converged"),
         Column("periods", "seasonal periods")), table))
    return Section(title, intro, tuple(blocks))


REPORT = Report(
    "triscale",
    "TriScale: run metrics with convergence, KPIs, variability scores, environment "
    "autocorrelation and seasonal periods.",
    build)
