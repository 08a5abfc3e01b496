"""``analyze trends``: what drifts, per configuration and hardware type.

For each series (a configuration's trials on one hardware type in one campaign),
the exact Theil-Sen slope of the trial values against time and against run
index, with Sen's CI, expressed as % of the series median per 30 days (per 100
runs). ``drifting`` when the time CI excludes 0. With ``--correction
bonferroni`` (default) each CI is at confidence 1 - (1 - C)/m, m = the number of
series analysed, so that the whole table has at most a (1 - C) chance of one
false "drifting" flag; ``none`` gives per-series CIs.
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from perfwarehouse.jobs.framework import Job, JobParams, param
from perfwarehouse.jobs.series import DAY_S, TRIAL_VALUES_ORDER, Trials, with_time
from perfwarehouse.stats.fractions import confidence as as_confidence
from perfwarehouse.stats.theil_sen import TheilSenResult, theil_sen
from perfwarehouse.warehouse import contracts


@dataclass(frozen=True)
class TrendParams(JobParams):
    confidence: float = param(0.95, "Family-wise confidence of the CIs (95 or 0.95).")
    correction: str = param("bonferroni", "Multiple-comparison correction across series.",
                            choices=("bonferroni", "none"))
    min_points: int = param(10, "Skip series with fewer trials.")
    family_size: int = param(1, "number of series (set by prepare)", internal=True)


TREND_SCHEMA = contracts.TRENDS.schema


def series_confidence(params: TrendParams) -> float:
    c = as_confidence(params.confidence, "--confidence")
    if params.correction == "bonferroni":
        return 1.0 - (1.0 - c) / max(1, params.family_size)
    return c


def compute_trends(table: pa.Table, params: TrendParams) -> dict[str, pa.Table]:
    table = with_time(table)
    if table.num_rows == 0:  # no trial of the piece has a start time
        return {"trends": TREND_SCHEMA.empty_table()}
    trials = Trials.of(table)
    run_index = trials.table.column("run_index").to_numpy().astype(np.float64)
    confidence = series_confidence(params)
    series = [(s, e) for s, e in trials.configurations() if e - s >= params.min_points]

    def fits(bounds: tuple[int, int]) -> tuple[TheilSenResult, TheilSenResult]:
        start, end = bounds
        t, y = trials.t[start:end], trials.value[start:end]
        return (theil_sen(y, (t - t[0]) / DAY_S, confidence),
                theil_sen(y, run_index[start:end], confidence))

    # the Theil-Sen kernels release the GIL: one thread per core
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(fits, series))
    rows = []
    for (start, end), (fit, by_run) in zip(series, results):
        t, y = trials.t[start:end], trials.value[start:end]
        median = float(np.median(y))
        scale = 100.0 / abs(median) if median != 0 else float("nan")
        rows.append({
            **trials.key(start), "n": end - start, "median": median,
            "first_s": float(t.min()), "last_s": float(t.max()),
            "slope_per_day": fit.slope, "slope_pct_per_30d": 30 * fit.slope * scale,
            "ci_low_pct_per_30d": 30 * fit.low * scale, "ci_high_pct_per_30d": 30 * fit.high * scale,
            "slope_pct_per_100_runs": 100 * by_run.slope * scale,
            "ci_low_pct_per_100_runs": 100 * by_run.low * scale,
            "ci_high_pct_per_100_runs": 100 * by_run.high * scale,
            "confidence": confidence, "drifting": bool(fit.low > 0 or fit.high < 0)})
    return {"trends": pa.Table.from_pylist(rows, schema=TREND_SCHEMA)}


def prepare_trends(table: pa.Table, params: TrendParams) -> TrendParams:
    """The family size m: the sum of the pieces' counts (``trend_family_size.sql``, run
    on each piece: a series lies in exactly one partition and configuration slice)."""
    m = sum(int(v or 0) for v in table.column("family_size").to_pylist()) if table.num_rows else 0
    return dataclasses.replace(params, family_size=max(1, m))


def summarize_trends(tables: dict[str, pa.Table], params: TrendParams) -> list[str]:
    t = tables["trends"]
    if t.num_rows == 0:
        return [f"trends: no series with {params.min_points} or more trials"]
    drifting = [i for i, d in enumerate(t.column("drifting").to_pylist()) if d]
    confidence = t.column("confidence")[0].as_py()  # as computed (after the family size)
    lines = [f"trends: {len(drifting):,} of {t.num_rows:,} series drift (CI at "
             f"{100 * confidence:.6g} %, {params.correction})"]
    slopes = t.column("slope_pct_per_30d").to_pylist()
    for i in sorted(drifting, key=lambda i: -abs(slopes[i]))[:3]:
        lines.append(f"  {t.column('hardware_type')[i]} {t.column('benchmark')[i]} "
                     f"{t.column('metric')[i]}: {slopes[i]:+.2f} % per 30 days")
    return lines


JOB = Job(
    name="trends", help="Theil-Sen slope of each configuration's values against time and run "
    "index, as % of the median per 30 days, with CI.", params=TrendParams,
    query="triscale_trial_values", compute=compute_trends, outputs=("trends",),
    summarize=summarize_trends, prepare_query="trend_family_size", prepare=prepare_trends,
    prepare_by_piece=True, over_time=True,
    query_params=lambda p: {"min_points": int(p.min_points)}, per_configuration=True,
    row_order=TRIAL_VALUES_ORDER, relative_cost=2.0)
