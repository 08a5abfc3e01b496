"""TriScale as warehouse jobs (Jacob et al. (TriScale, JSys 2021), §4).

In the warehouse a TriScale *run* is one trial with its measurements over time
(iterations), a *series* is the trials of one configuration in one campaign or
time window (``--series-by``), and *sequels* are several such series.

* ``analyze convergence``: each trial with enough iterations as a run: its
  metric over sliding windows and the convergence test.
* ``analyze kpi``: per series, the KPI (a one-sided bound of a percentile of the
  trial values) and the independence test of the values in time order.
* ``analyze variability-score``: per configuration, the variability score of the
  KPIs of its sequels (one per ``--series-by`` window).
* ``analyze independence``: per series, the independence test alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse import triscale as ts
from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.framework import Job, JobParams, param
from perfwarehouse.jobs.series import (
    SERIES_BY,
    TRIAL_VALUES_ORDER,
    Trials,
    split_windows,
    window_labels,
)
from perfwarehouse.stats.fractions import confidence as as_confidence
from perfwarehouse.stats.fractions import fraction
from perfwarehouse.stats.order_statistics import percentile_bound
from perfwarehouse.warehouse import contracts

METHODS = ("default", "triscale")


def _table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=schema)


# ------------------------------------------------------------------ convergence
@dataclass(frozen=True)
class ConvergenceParams(JobParams):
    measure: str = param("0.5", "Run metric: a percentile (0.5 or 50) or mean, min, max.")
    confidence: float = param(0.95, "Confidence of the slope's CI (95 or 0.95).")
    tolerance: float = param(0.05, "Tolerance on the [-1, 1] slope (5 or 0.05).")
    min_values: int = param(10, "Analyse trials with at least this many measurements.")


def _measure(text: str) -> float | str:
    if text in ("mean", "min", "max", "minimum", "maximum"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--measure must be a percentile or mean/min/max, got {text!r}") from None
    return value if value in (0.0, 1.0) else fraction(value, "--measure")


CONVERGENCE_SCHEMA = contracts.TRISCALE_CONVERGENCE.schema


def compute_convergence(table: pa.Table, params: ConvergenceParams) -> dict[str, pa.Table]:
    measure = _measure(params.measure)
    confidence = as_confidence(params.confidence, "--confidence")
    tolerance = fraction(params.tolerance, "--tolerance", zero=True)
    values = table.column("values").combine_chunks()
    offsets = values.offsets.to_numpy()
    flat = values.values.to_numpy(zero_copy_only=False).astype(np.float64)
    cols = {name: table.column(name).to_pylist() for name in
            ("campaign", "hardware_type", "config_id", "benchmark", "settings", "metric", "node",
             "run_id", "t")}
    rows = []
    for i in range(table.num_rows):
        y = flat[offsets[i]: offsets[i + 1]]
        res = ts.metric(y, measure=measure, converge=True, confidence=confidence,
                        tolerance=tolerance)
        rows.append({**{k: cols[k][i] for k in cols if k != "t"}, "started_at_s": cols["t"][i],
                     "n_values": int(y.size), "measure": str(params.measure),
                     "metric_value": res.value, "converged": res.converged, "slope": res.slope,
                     "ci_low": res.low, "ci_high": res.high, "confidence": confidence,
                     "tolerance": tolerance})
    return {"triscale_convergence": _table(rows, CONVERGENCE_SCHEMA)}


def summarize_convergence(tables: dict[str, pa.Table], params: ConvergenceParams) -> list[str]:
    t = tables["triscale_convergence"]
    if t.num_rows == 0:
        return [f"convergence: no trial has {params.min_values} or more measurements; a TriScale "
                "run needs iterations (values over time), so nothing was tested"]
    converged = sum(bool(v) for v in t.column("converged").to_pylist())
    return [f"convergence: {converged:,} of {t.num_rows:,} trials with >= {params.min_values} "
            f"values converged ({100 * converged / t.num_rows:.1f} %)"]


def convergence_query_params(params: ConvergenceParams) -> dict[str, int]:
    if params.min_values < 2:
        raise UsageError("--min-values must be at least 2 (the convergence test fits a slope)")
    return {"min_values": int(params.min_values)}


JOB_CONVERGENCE = Job(
    name="convergence", help="TriScale run metrics with the convergence test, one row per trial "
    "with iterations (Jacob et al. (TriScale, JSys 2021), §4.1).", params=ConvergenceParams, query="triscale_trial_runs",
    compute=compute_convergence, outputs=("triscale_convergence",),
    summarize=summarize_convergence, query_params=convergence_query_params,
    per_configuration=True)


# ------------------------------------------------------------------------- KPI
@dataclass(frozen=True)
class KPIParams(JobParams):
    percentile: float = param(0.5, "Percentile of the KPI (50 or 0.5).")
    confidence: float = param(0.95, "Confidence of the KPI (95 or 0.95).")
    bound: str = param("auto", "Which bound: auto = the worse side (lower bound when higher is "
                       "better, else upper; for p != 0.5 the side of p).",
                       choices=("auto", "lower", "upper"))
    series_by: str = param("campaign", "A series = a configuration's trials in one ...",
                           choices=SERIES_BY)
    method: str = param("default", "Independence rule: default (Bonferroni band + trend) or "
                        "triscale (the original's).", choices=METHODS)


KPI_SCHEMA = contracts.TRISCALE_KPI.schema


def _side(bound: str, p: float, higher_is_better: bool | None) -> str:
    if bound != "auto":
        return bound
    if p != 0.5:
        return "upper" if p > 0.5 else "lower"
    return "upper" if higher_is_better is False else "lower"


def _series(trials: Trials, series_by: str):
    """(key, higher_is_better, label, values in time order) of every series."""
    hib = trials.table.column("higher_is_better").to_pylist()
    for start, end in trials.configurations():
        key = trials.key(start)
        labels = window_labels(trials.t[start:end], series_by, str(key["campaign"]))
        for label, rows in split_windows(labels):
            yield key, hib[start], label, trials.value[start:end][rows]


def compute_kpi(table: pa.Table, params: KPIParams) -> dict[str, pa.Table]:
    p = fraction(params.percentile, "--percentile")
    confidence = as_confidence(params.confidence, "--confidence")
    rows = []
    for key, hib, label, values in _series(Trials.of(table), params.series_by):
        side = _side(params.bound, p, hib)
        res = ts.kpi(values, p, confidence, bound=side, method=params.method)  # type: ignore[arg-type]
        rows.append({**key, "series_by": params.series_by, "series": label, "n": res.n,
                     "percentile": p, "confidence": confidence, "side": side, "kpi": res.value,
                     "kpi_index": res.index or None, "coverage": res.coverage,
                     "n_required": res.n_required, "independent": res.independent,
                     "weakly_stationary": res.weakly_stationary,
                     "violating_lags": list(res.violating_lags),
                     "descriptive_only": res.descriptive_only, "method": params.method})
    return {"triscale_kpi": _table(rows, KPI_SCHEMA)}


def summarize_kpi(tables: dict[str, pa.Table], params: KPIParams) -> list[str]:
    t = tables["triscale_kpi"]
    if t.num_rows == 0:
        return ["kpi: no series"]
    independent = sum(bool(v) for v in t.column("independent").to_pylist())
    missing = t.column("kpi").null_count
    return [f"kpi: {t.num_rows:,} series; {independent:,} appear i.i.d., "
            f"{t.num_rows - independent:,} are descriptive only; {missing:,} too short for a KPI"]


JOB_KPI = Job(name="kpi", help="TriScale KPI of each series: a one-sided bound of a percentile with "
          "the independence test (Jacob et al. (TriScale, JSys 2021), §4.2).", params=KPIParams, query="triscale_trial_values",
          compute=compute_kpi, outputs=("triscale_kpi",), summarize=summarize_kpi,
          per_configuration=True, row_order=TRIAL_VALUES_ORDER, relative_cost=2.0)


# --------------------------------------------------------- variability score
@dataclass(frozen=True)
class VariabilityParams(JobParams):
    series_by: str = param("month", "Sequels: a configuration's series per ...",
                           choices=SERIES_BY[1:])
    kpi_percentile: float = param(0.5, "Percentile of each sequel's KPI.")
    kpi_confidence: float = param(0.95, "Confidence of each sequel's KPI (95 or 0.95).")
    bound: str = param("auto", "KPI bound side (see analyze kpi).",
                       choices=("auto", "lower", "upper"))
    percentile: float = param(0.25, "The score covers [P_p, P_(1-p)] of the KPIs (25 or 0.25).")
    confidence: float = param(0.75, "Confidence of the score (75 or 0.75).")
    method: str = param("default", "default: joint coverage >= C; triscale: the original's m.",
                        choices=METHODS)


VARIABILITY_SCHEMA = contracts.TRISCALE_VARIABILITY.schema


def compute_variability(table: pa.Table, params: VariabilityParams) -> dict[str, pa.Table]:
    kp = fraction(params.kpi_percentile, "--kpi-percentile")
    kc = as_confidence(params.kpi_confidence, "--kpi-confidence")
    p = fraction(params.percentile, "--percentile")
    c = as_confidence(params.confidence, "--confidence")
    trials = Trials.of(table)
    hib = trials.table.column("higher_is_better").to_pylist()
    rows = []
    for start, end in trials.configurations():
        key = trials.key(start)
        side = _side(params.bound, kp, hib[start])
        labels = window_labels(trials.t[start:end], params.series_by, str(key["campaign"]))
        kpis = []
        for _label, idx in split_windows(labels):
            b = percentile_bound(trials.value[start:end][idx], kp, kc, side)  # type: ignore[arg-type]
            if b.value is not None:
                kpis.append(b.value)
        base = {**key, "series_by": params.series_by, "n_sequels": len(kpis),
                "kpi_percentile": kp, "kpi_confidence": kc, "percentile": p, "confidence": c,
                "method": params.method}
        if not kpis:
            rows.append(base)
            continue
        res = ts.variability_score(kpis, p, c, method=params.method)  # type: ignore[arg-type]
        rows.append({**base, "low": res.low, "high": res.high, "score": res.score,
                     "relative_score": res.relative, "coverage": res.coverage,
                     "n_required": res.n_required, "independent": res.independent})
    return {"triscale_variability": _table(rows, VARIABILITY_SCHEMA)}


def summarize_variability(tables: dict[str, pa.Table], params: VariabilityParams) -> list[str]:
    t = tables["triscale_variability"]
    scores = [v for v in t.column("relative_score").to_pylist() if v is not None]
    if not scores:
        return [f"variability-score: no configuration has enough sequels (by {params.series_by})"]
    return [f"variability-score: {len(scores):,} of {t.num_rows:,} configurations scored; median "
            f"relative score {100 * float(np.median(np.abs(scores))):.2f} %"]


JOB_VARIABILITY_SCORE = Job(
    name="variability-score", help="TriScale variability score of each configuration across its "
    "sequels' KPIs (Jacob et al. (TriScale, JSys 2021), §4.3).", params=VariabilityParams, query="triscale_trial_values",
    compute=compute_variability, outputs=("triscale_variability",),
    summarize=summarize_variability, per_configuration=True, row_order=TRIAL_VALUES_ORDER)


# ---------------------------------------------------------------- independence
@dataclass(frozen=True)
class IndependenceParams(JobParams):
    series_by: str = param("campaign", "A series = a configuration's trials in one ...",
                           choices=SERIES_BY)
    method: str = param("default", "default (Bonferroni band + trend) or triscale.",
                        choices=METHODS)


INDEPENDENCE_SCHEMA = contracts.TRISCALE_INDEPENDENCE.schema


def compute_independence(table: pa.Table, params: IndependenceParams) -> dict[str, pa.Table]:
    rows = []
    for key, _hib, label, values in _series(Trials.of(table), params.series_by):
        res = ts.independence_test(values, params.method)  # type: ignore[arg-type]
        rows.append({**key, "series_by": params.series_by, "series": label, "n": res.n,
                     "independent": res.independent, "weakly_stationary": res.weakly_stationary,
                     "violating_lags": list(res.violating_lags), "band": res.band,
                     "max_lag": res.max_lag, "method": params.method})
    return {"triscale_independence": _table(rows, INDEPENDENCE_SCHEMA)}


def summarize_independence(tables: dict[str, pa.Table], params: IndependenceParams) -> list[str]:
    t = tables["triscale_independence"]
    if t.num_rows == 0:
        return ["independence: no series"]
    ok = t.column("independent").to_pylist()
    trend = t.column("weakly_stationary").to_pylist()
    lags = Counter(k for ls in t.column("violating_lags").to_pylist() for k in (ls or []))
    common = ", ".join(f"{k} ({c})" for k, c in lags.most_common(3))
    return [f"independence: {sum(map(bool, ok)):,} of {t.num_rows:,} series appear i.i.d.; "
            f"{sum(not v for v in trend):,} have a trend; most violated lags: {common or 'none'}"]


JOB_INDEPENDENCE = Job(
    name="independence", help="Independence test of each series of trial values in time order "
    "(Jacob et al. (TriScale, JSys 2021), §4.5).", params=IndependenceParams, query="triscale_trial_values",
    compute=compute_independence, outputs=("triscale_independence",),
    summarize=summarize_independence, per_configuration=True,
    row_order=TRIAL_VALUES_ORDER)
