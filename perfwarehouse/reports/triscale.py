"""The TriScale report (seed 003, sections 4 and 6; SPEC 6 and 8).

* **Run metric with convergence** (Figure 3a): example runs (a run is one trial with
  its iterations) with the measure over TriScale's sliding windows, the Theil-Sen
  trend of the window measures with its CI, and the tolerance band. The geometry is
  computed here for drawing, by the rules of SPEC 8.
* **KPIs and variability scores** (Figures 3b and 3c): from the TriScale jobs' tables.
* **Environment profile** (Figure 5): per hardware type, the relative performance of
  each run over time, its autocorrelation with the 95 % band, and the peaks above it
  as candidate seasonal periods. ``perfwarehouse.triscale.profile`` decides the
  periods when it is installed; otherwise the ACF peaks above the band are listed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
from scipy import stats as scipy_stats

from perfwarehouse.reports import _stats, charts
from perfwarehouse.reports.base import ReportData, Request, provenance
from perfwarehouse.reports.page import (
    Column,
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Table,
    capped_table,
)

MEASURE = 0.5
CONFIDENCE = 0.95
TOLERANCE = 0.05
MIN_ITERATIONS = 10
EXAMPLES = 3
MAX_PROFILE_CHARTS = 6
MAX_KPI_ROWS = 60
DAY_S = 86400.0

try:  # the TriScale API of SPEC 9, when installed
    from perfwarehouse.triscale import (  # type: ignore[import-not-found]
        profile as _triscale_profile,
    )
except ImportError:  # pragma: no cover - depends on which work is merged
    _triscale_profile = None

INTRO = (
    "TriScale (Jacob et al., JSys 2021) separates three timescales: within a run, the metric "
    "is only meaningful once the run has converged; across runs, a KPI is a percentile bound "
    "that holds with a stated confidence if the runs are independent; across series taken at "
    "different times, the variability score says how reproducible the KPI is. Profiling the "
    "environment over time reveals seasonal components (daily, weekly) that a series must span.")


def build(data: ReportData, request: Request) -> Page:
    lines: list[str] = []
    for job in ("triscale-kpi", "triscale-variability"):
        lines += provenance(data.job_runs(job, request), job)
    sections = [convergence_section(data, request), kpi_section(data, request),
                variability_section(data, request), profile_section(data, request)]
    return Page("TriScale: convergence, KPIs, variability and seasonality", INTRO,
                tuple(sections), tuple(lines), name="triscale")


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


def window_measures(y: np.ndarray, x: np.ndarray, measure: float) -> tuple[np.ndarray, np.ndarray]:
    """TriScale's sliding windows (SPEC 8): W = ⌊n/2⌋ points, w = min(⌊n/2⌋ + 1, 100)
    windows starting at ⌊i·W/(w−1)⌋, placed at x[start + ⌊W/2⌋]; the percentile
    ``measure`` of each window with numpy's ``midpoint`` rule."""
    n = y.size
    width = n // 2
    count = min(width + 1, 100)
    starts = np.array([(i * width) // (count - 1) for i in range(count)]) if count > 1 \
        else np.array([0])
    wx = x[starts + width // 2]
    wy = np.array([np.quantile(y[s:s + width], measure, method="midpoint") for s in starts])
    return wx, wy


def convergence_view(y: np.ndarray, x: np.ndarray | None = None, measure: float = MEASURE,
                     confidence: float = CONFIDENCE,
                     tolerance: float = TOLERANCE) -> ConvergenceView | None:
    """The convergence test of SPEC 8 on one run, with what is needed to draw it: the
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
    xu = 2 * (wx - x_lo) / (x_hi - x_lo) - 1
    yu = np.zeros_like(wy) if y_hi == y_lo else 2 * (wy - y_lo) / (y_hi - y_lo) - 1
    trend = _stats.theil_sen(yu, xu, confidence)
    if trend is None:
        return None
    converged = trend.low >= -tolerance and trend.high <= tolerance
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
    intro = (f"Seed 003 Figure 3a. A run is one trial with its iterations; its metric is the "
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
        blocks.append(Figure(charts.convergence_run(
            points, view.windows, view.fit,
            title=f"{label} on {row['hardware_type']}: {verdict} (slope {view.slope:+.3f}, "
                  f"CI [{view.low:+.3f}, {view.high:+.3f}])",
            unit=row["unit"], measure="window median", x_title="iteration within the trial "
            "(index)"), f"convergence-{label}"))
    if not blocks:
        blocks.append(Notice("The example runs are too short to test."))
    return Section(title, intro, tuple(blocks))


# --------------------------------------------------------------------- KPIs
def kpi_section(data: ReportData, request: Request) -> Section:
    title = "KPIs"
    intro = ("Seed 003 section 4.3 and Figure 3b: a KPI is a one-sided bound of a percentile of "
             "a series' run metrics, valid with the stated confidence when the runs are "
             "independent.")
    rows = data.results("triscale_kpi", "triscale_kpi", "perfwarehouse analyze triscale-kpi",
                        request)
    if isinstance(rows, Missing):
        return Section(title, intro, (rows.notice(),))
    df = pl.from_arrow(rows)
    assert isinstance(df, pl.DataFrame)
    df = df.with_columns(
        config=pl.Series(charts.config_labels(df["benchmark"], df["settings"], df["metric"]),
                         dtype=pl.String),
        independent=pl.when(pl.col("independent")).then(pl.lit("yes")).otherwise(pl.lit("no")),
        value_pct=(pl.col("kpi") / pl.col("metric_median") - 1) * 100)
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config")
                         + pl.lit(" · ") + pl.col("series").cast(pl.String))
    shown = df.filter(pl.col("value_pct").is_not_null()).sort(
        pl.col("value_pct").abs(), descending=True).head(MAX_KPI_ROWS)
    blocks: list[Figure | Table | Notice] = []
    if shown.height:
        blocks.append(Figure(charts.kpi_chart(shown.with_columns(kind=pl.lit("KPI")),
                                              title="KPIs relative to the series' median run "
                                                    "metric"), "kpi"))
    blocks.append(capped_table(
        "KPIs", "One row per series; n required: the runs needed for a bound at this "
        "confidence when there are too few.",
        (Column("campaign", "campaign"), Column("hardware_type", "hardware type"),
         Column("benchmark", "benchmark"), Column("settings", "settings", "json"),
         Column("metric", "metric"), Column("unit", "unit"), Column("series", "series"),
         Column("percentile", "percentile", "float"), Column("confidence", "confidence", "float"),
         Column("kpi", "KPI", "float"), Column("n_runs", "runs", "int"),
         Column("independent", "runs independent"), Column("n_required", "n required", "int")),
        df))
    return Section(title, intro, tuple(blocks))


def variability_section(data: ReportData, request: Request) -> Section:
    title = "Variability scores"
    intro = ("Seed 003 section 4.4 and Figure 3c: the interval that holds the chosen percentile "
             "range of the KPIs of repeated series (sequels); the narrower, the more "
             "reproducible.")
    rows = data.results("triscale_variability_score", "triscale_variability_score",
                        "perfwarehouse analyze triscale-variability", request)
    if isinstance(rows, Missing):
        return Section(title, intro, (rows.notice(),))
    df = pl.from_arrow(rows)
    assert isinstance(df, pl.DataFrame)
    mid = (pl.col("low") + pl.col("high")) / 2
    df = df.with_columns(
        config=pl.Series(charts.config_labels(df["benchmark"], df["settings"], df["metric"]),
                         dtype=pl.String),
        independent=pl.when(pl.col("independent")).then(pl.lit("yes")).otherwise(pl.lit("no")),
        low_pct=(pl.col("low") / mid - 1) * 100, high_pct=(pl.col("high") / mid - 1) * 100,
        relative_pct=pl.col("relative") * 100)
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config"))
    shown = df.filter(pl.col("relative_pct").is_not_null()).sort(
        "relative_pct", descending=True).head(MAX_KPI_ROWS)
    blocks: list[Figure | Table | Notice] = []
    if shown.height:
        blocks.append(Figure(charts.variability_scores(
            shown, title="Variability scores, least reproducible first"), "variability-scores"))
    blocks.append(capped_table(
        "Variability scores", "score = high − low, relative = score / the midpoint.",
        (Column("campaign", "campaign"), Column("hardware_type", "hardware type"),
         Column("benchmark", "benchmark"), Column("settings", "settings", "json"),
         Column("metric", "metric"), Column("unit", "unit"),
         Column("percentile", "percentile", "float"), Column("confidence", "confidence", "float"),
         Column("low", "low", "float"), Column("high", "high", "float"),
         Column("score", "score", "float"), Column("relative_pct", "relative (%)", "pct"),
         Column("n_series", "series", "int"), Column("independent", "KPIs independent")),
        df))
    return Section(title, intro, tuple(blocks))


# ------------------------------------------------------------------ profile
@dataclass(frozen=True)
class Profile:
    """An environment series on a regular grid: ACF, its 95 % band and the periods."""

    acf: np.ndarray
    band: float
    step_s: float
    periods: tuple[tuple[float, str], ...]  # (period in seconds, label)
    n: int


def regular_grid(times_s: np.ndarray, values: np.ndarray, step_s: float) -> np.ndarray:
    """The series on a grid of ``step_s`` seconds: the mean of the values in each step,
    empty steps filled by linear interpolation (as TriScale's profiling does)."""
    slot = np.floor((times_s - times_s.min()) / step_s + 0.5).astype(np.int64)
    size = int(slot.max()) + 1
    sums = np.bincount(slot, weights=values, minlength=size)
    counts = np.bincount(slot, minlength=size)
    have = counts > 0
    grid = np.empty(size)
    grid[have] = sums[have] / counts[have]
    idx = np.arange(size)
    grid[~have] = np.interp(idx[~have], idx[have], grid[have])
    return grid


def autocorrelation(x: np.ndarray) -> np.ndarray:
    """Sample ACF at lags 0 … N−1 of the mean-centred series, sums not divided by N − k,
    normalised by lag 0 (SPEC 8); a constant series: 1 at lag 0, 0 elsewhere."""
    centred = x - x.mean()
    denom = float(np.dot(centred, centred))
    out = np.zeros(x.size)
    out[0] = 1.0
    if denom == 0:
        return out
    full = np.correlate(centred, centred, mode="full")[x.size - 1:]
    return full / denom


def peak_lags(rho: np.ndarray, band: float, max_lag: int) -> list[int]:
    """Lags 2 … max_lag whose ACF is above ``band`` and the highest within
    [lag/2, 3·lag/2] (so the multiples of a period are not reported again unless they
    stand out): the candidate seasonal periods."""
    out = []
    for k in range(2, min(max_lag, rho.size - 1) + 1):
        lo, hi = max(1, k // 2), min(rho.size - 1, (3 * k) // 2)
        if rho[k] > band and rho[k] >= rho[lo:hi + 1].max():
            out.append(k)
    return out


def period_label(seconds: float) -> str:
    days = seconds / DAY_S
    if days >= 0.75:
        return f"{days:.1f} days" if abs(days - round(days)) > 0.1 else \
            (f"{round(days)} day" if round(days) == 1 else f"{round(days)} days")
    return f"{seconds / 3600:.1f} hours"


def environment_profile(times_s: np.ndarray, values: np.ndarray) -> Profile | None:
    """Profile one environment series (seed 003 section 4.6): the step is the median
    spacing of the runs; the candidate periods come from
    ``perfwarehouse.triscale.profile`` when installed, else from :func:`peak_lags` with
    the band Bonferroni-corrected for the N/3 lags searched."""
    order = np.argsort(times_s, kind="stable")
    t, v = times_s[order], values[order]
    gaps = np.diff(np.unique(t))
    if gaps.size < 2:
        return None
    step = float(np.median(gaps))
    if _triscale_profile is not None:
        result = _triscale_profile(t, v, step=step)
        periods = tuple((float(p.period_s), str(p.label)) for p in result.seasonal_periods)
        return Profile(np.asarray(result.acf), float(result.band), float(result.step_s),
                       periods, int(result.n))
    grid = regular_grid(t, v, step)
    if grid.size < 6:
        return None
    rho = autocorrelation(grid)
    band = 1.96 / math.sqrt(grid.size)
    max_lag = grid.size // 3
    # a peak must clear the band corrected for the max_lag lags searched (Bonferroni):
    # white noise puts about 5 % of its lags above the plain 95 % band
    strict = float(scipy_stats.norm.ppf(1 - 0.05 / (2 * max(max_lag, 1)))) / math.sqrt(grid.size)
    periods = tuple((k * step, period_label(k * step)) for k in peak_lags(rho, strict, max_lag))
    return Profile(rho, band, step, periods, grid.size)


def profile_section(data: ReportData, request: Request) -> Section:
    title = "Environment profile: seasonal components"
    intro = ("Seed 003 section 4.6 and Figure 5: for each hardware type, the relative performance "
             "of every run (the median over its trials of value / the configuration's usual "
             "value, so above 1 is faster than usual) over time, its autocorrelation, and the "
             "lags whose peak rises above the 95 % band. A series (and an A/B comparison) "
             "should span these periods.")
    env = pl.from_arrow(data.query("triscale_environment", campaign=request.campaign))
    assert isinstance(env, pl.DataFrame)
    if env.height == 0:
        return Section(title, intro, (Notice("No successful measurements to profile.",
                                             "missing"),))
    results = []
    for (campaign, hardware), part in env.group_by(["campaign", "hardware_type"],
                                                  maintain_order=True):
        prof = environment_profile(part["started_s"].to_numpy().astype(np.float64),
                                   part["performance"].to_numpy().astype(np.float64))
        if prof is not None:
            results.append((str(campaign), str(hardware), part.height, prof))
    blocks: list[Figure | Table | Notice] = []
    seasonal = [r for r in results if r[3].periods]
    for campaign, hardware, _n, prof in seasonal[:MAX_PROFILE_CHARTS]:
        max_lag = max(1, prof.acf.size // 3)
        lags = np.arange(max_lag + 1)
        scale, unit = (DAY_S, "days") if prof.step_s * max_lag >= 2 * DAY_S else (3600.0, "hours")
        acf_df = pl.DataFrame({"lag": lags * prof.step_s / scale, "acf": prof.acf[:max_lag + 1],
                               "band": np.full(lags.size, prof.band)})
        per = pl.DataFrame({"lag": [p / scale for p, _ in prof.periods],
                            "label": [label for _, label in prof.periods]},
                           schema={"lag": pl.Float64, "label": pl.String})
        blocks.append(Figure(charts.autocorrelation(
            acf_df, per, title=f"Autocorrelation of run performance, {hardware} ({campaign})",
            lag_unit=unit), f"acf-{campaign}-{hardware}"))
    if len(seasonal) > MAX_PROFILE_CHARTS:
        blocks.append(Notice(f"Charts for {MAX_PROFILE_CHARTS} of the {len(seasonal)} hardware "
                             "types with seasonal components; the table lists them all."))
    if not seasonal:
        blocks.append(Notice("No hardware type shows an autocorrelation peak above the band: "
                             "no seasonal component was found."))
    table = pa.Table.from_pylist([
        {"campaign": c, "hardware_type": h, "runs": n, "step_h": prof.step_s / 3600,
         "periods": ", ".join(label for _, label in prof.periods) or "none"}
        for c, h, n, prof in results],
        schema=pa.schema([("campaign", pa.string()), ("hardware_type", pa.string()),
                          ("runs", pa.int64()), ("step_h", pa.float64()),
                          ("periods", pa.string())]))
    blocks.append(Table(
        "Seasonal periods per hardware type",
        "step: the grid of the series (the median spacing of the runs); periods: the lags whose "
        "autocorrelation peaks above the band.",
        (Column("campaign", "campaign"), Column("hardware_type", "hardware type"),
         Column("runs", "runs", "int"), Column("step_h", "step (hours)", "float"),
         Column("periods", "candidate seasonal periods")), table))
    return Section(title, intro, tuple(blocks))
