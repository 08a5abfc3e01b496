"""``analyze profile`` (Jacob et al. (TriScale, JSys 2021), §4.6): seasonal components of an environment.

TriScale profiles an environment from a reference measurement taken at regular
intervals. A campaign has no such series, but every trial is a measurement of
its environment, so one is built per hardware type (or per node, ``--by node``):

1. each trial value becomes a relative performance score
   z = +-ln(value / median of its configuration in the partition), with the sign
   making higher better (a lower-is-better metric is flipped; unknown direction
   counts as higher-is-better). Logs make configurations of any scale and unit
   comparable, and the configuration median removes each one's level.
2. trials are pooled on a regular grid of ``--bin-hours`` (default 1 h): the
   median z of the trials started in each bin (robust to the long tails and to
   the few drifting configurations); empty bins stay empty and each lag's
   autocorrelation comes from the pairs of observed bins (TriScale fills gaps
   with the median, which flattens a sparse series; interpolating invents
   smooth stretches).
3. the TriScale profile of that series: the convergence test over time, the ACF
   at every lag with its 95 % band, and the seasonal periods (peaks above the
   band, confirmed above the Bonferroni band over the lags searched), searched up
   to ``--max-period-days`` (14) after removing wander slower than
   ``--highpass-days`` (28) with a moving average.

Periods are found when the environment is sampled often enough: at least a few
runs per period (a type with one run every few days shows no daily cycle).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.framework import Job, JobParams, param
from perfwarehouse.jobs.series import with_time
from perfwarehouse.triscale.profiling import profile
from perfwarehouse.warehouse import contracts

PROFILE_SCHEMA = contracts.TRISCALE_PROFILE.schema
ACF_SCHEMA = contracts.TRISCALE_PROFILE_ACF.schema


MIN_BINS = 3  # the least a profile (an ACF and a trend) is computed from


@dataclass(frozen=True)
class ProfileParams(JobParams):
    by: str = param("hardware_type", "Profile each hardware type, or each node.",
                    choices=("hardware_type", "node"))
    bin_hours: float = param(1.0, "Width of the regular time grid's bins, in hours.")
    min_bins: int = param(72, "Skip environments whose series spans fewer bins.")
    max_period_days: float = param(14.0, "Longest seasonal period searched, in days.")
    short_range_hours: float = param(3.0, "Correlation within this span widens the confirming "
                                     "band (Bartlett).")
    highpass_days: float = param(28.0, "Remove slower wander first: subtract a moving average "
                                 "over this many days (0: off).")


def relative_scores(table: pa.Table) -> np.ndarray:
    """z = ln(value / configuration median), sign flipped for lower-is-better metrics."""
    config = table.column("config_id").to_numpy()
    value = table.column("value").to_numpy().astype(np.float64)
    hib = pc.fill_null(table.column("higher_is_better"), True).to_numpy(zero_copy_only=False)
    z = np.full(value.size, np.nan)
    positive = value > 0
    edges = np.flatnonzero(config[1:] != config[:-1]) + 1
    for start, end in zip(np.r_[0, edges], np.r_[edges, config.size]):
        part = value[start:end]
        ok = positive[start:end]
        if ok.any():
            z[start:end][ok] = np.log(part[ok] / np.median(part[ok]))
    return np.where(hib, z, -z)


def compute_profile(table: pa.Table, params: ProfileParams) -> dict[str, pa.Table]:
    if not params.bin_hours > 0:
        raise UsageError("--bin-hours must be positive")
    table = with_time(table)
    if table.num_rows == 0:  # no trial of the piece has a start time
        return {"triscale_profile": PROFILE_SCHEMA.empty_table(),
                "triscale_profile_acf": ACF_SCHEMA.empty_table()}
    z = relative_scores(table)
    t = table.column("t").to_numpy().astype(np.float64)
    campaign = table.column("campaign")[0].as_py()  # the partition's, on every row
    hw = table.column("hardware_type")[0].as_py()
    step = params.bin_hours * 3600.0
    groups = [(None, np.flatnonzero(~np.isnan(z)))]
    if params.by == "node":
        nodes = pc.dictionary_encode(table.column("node")).combine_chunks()
        codes = nodes.indices.to_numpy(zero_copy_only=False)
        names = nodes.dictionary.to_pylist()
        groups = [(names[c], np.flatnonzero((codes == c) & ~np.isnan(z)))
                  for c in sorted(range(len(names)), key=names.__getitem__)]
    rows, acf_rows = [], []
    for node, idx in groups:
        if idx.size < 3:
            continue
        bins = np.floor((t[idx] - t[idx].min()) / step).astype(np.int64)
        if bins.max() + 1 < max(MIN_BINS, params.min_bins):
            continue
        order = np.lexsort((z[idx], bins))
        b, zz = bins[order], z[idx][order]
        starts = np.r_[0, np.flatnonzero(b[1:] != b[:-1]) + 1]
        ends = np.r_[starts[1:], b.size]
        medians = np.array([np.median(zz[s:e]) for s, e in zip(starts, ends)])
        times = t[idx].min() + b[starts] * step
        res = profile(times, medians, step=step, max_period_s=params.max_period_days * 86400.0,
                      highpass_s=params.highpass_days * 86400.0 if params.highpass_days else None,
                      short_range_s=params.short_range_hours * 3600.0, fill="none")
        periods = res.seasonal_periods
        rows.append({"campaign": campaign, "hardware_type": hw, "node": node, "n_bins": res.n,
                     "step_s": res.step_s, "filled_bins": res.filled, "trials": int(idx.size),
                     "converged": res.converged, "slope": res.slope, "ci_low": res.low,
                     "ci_high": res.high, "band": res.band, "strict_band": res.strict_band,
                     "seasonal_periods": [p.label for p in periods],
                     "seasonal_period_s": [p.period_s for p in periods],
                     "seasonal_acf": [p.acf for p in periods],
                     "candidate_periods": [p.label for p in res.candidates]})
        lags = np.arange(res.acf.size)
        acf_rows.append(pa.table({
            "campaign": pa.array([campaign] * lags.size, pa.string()),
            "hardware_type": pa.array([hw] * lags.size, pa.string()),
            "node": pa.array([node] * lags.size, pa.string()),
            "lag": pa.array(lags, pa.int64()), "lag_s": pa.array(lags * res.step_s),
            "acf": pa.array(res.acf), "band": pa.array(res.lag_band)}))
    acf_table = pa.concat_tables(acf_rows) if acf_rows else ACF_SCHEMA.empty_table()
    return {"triscale_profile": pa.Table.from_pylist(rows, schema=PROFILE_SCHEMA),
            "triscale_profile_acf": acf_table}


def summarize_profile(tables: dict[str, pa.Table], params: ProfileParams) -> list[str]:
    t = tables["triscale_profile"]
    if t.num_rows == 0:
        return ["profile: no environment has a long enough series"]
    lines = []
    for row in t.to_pylist():
        if row["seasonal_periods"]:
            where = row["hardware_type"] + (f" {row['node']}" if row["node"] else "")
            lines.append(f"profile: {where}: seasonal periods {', '.join(row['seasonal_periods'])}")
    return lines or [f"profile: {t.num_rows} environments, no seasonal period found"]


JOB = Job(
    name="profile", help="Profile each hardware type (or node) over time: convergence, "
    "autocorrelation and seasonal periods (Jacob et al. (TriScale, JSys 2021), §4.6).", params=ProfileParams,
    query="profile_trials", compute=compute_profile, row_order=("config_id", "t"),
    outputs=("triscale_profile", "triscale_profile_acf"), summarize=summarize_profile,
    over_time=True)
