"""The load curve and the peak throughput / peak rate of load-test campaigns.

A load-test trial is one run of a load generator at one load level: settings
``loop`` = ``closed`` (``clients`` N, ``think_time_s`` Z, optional ``outstanding``) or
``open`` (offered rate ``rate_rps``). A *configuration family* is everything but the
load: the benchmark and all settings except ``clients`` (closed loop) or
``rate_rps`` (open loop), on one hardware type. The essay "On Performance Evaluation"
(a blog essay of July 24, 2019, "Two Experiments You Must Do") asks for two curves per
family: throughput against N in a closed loop (its Figure 2: the peak throughput, the N
at the peak, and whether throughput falls after it from per-connection overhead) and
latency against the offered load in an open loop (Figures 3 and 5: the knee).
Shivam, Marupadi, Chase, Subramaniam and Babu ("Cutting Corners: Workbench Automation
for Server Benchmarking", USENIX Annual Technical Conference 2008, sections 2 and 3)
define the peak rate lambda* as the highest arrival rate whose (mean, or percentile)
response time does not exceed a threshold R_sat, and judge a CI by its accuracy
(equation 2).

:func:`analyse` takes one table of trials (one row per trial; the columns of
``sql/queries/load_trials.sql``) and returns three tables:

* ``load_law_checks``: per trial, the operational-law check of :mod:`.laws`;
* ``load_curve``: per family x load level: trials, throughput, latency mean and
  percentiles with CIs, error rate, the law check of the level and the peak-region
  decision; statistics use the consistent trials only (inconsistent ones are counted
  and named, never silently used; a level without a consistent trial is computed from
  all of its trials and marked inconsistent, and takes no part in the peak);
* ``peak_rate``: per family: closed loop, the highest throughput with its CI, the N at
  the peak, the knee (smallest N reaching ``knee_fraction`` of the peak) and whether
  throughput falls after the peak (a larger N whose CI lies wholly below the peak's).
  With ``ci_method="t"`` the peak's CI is simultaneous over the family's k consistent
  levels (Bonferroni, each at 1 - (1 - c)/k): the largest of k noisy means is biased
  upwards, and its own CI at c would miss a plateau's true value too often; open loop, lambda* with the bracket of loads that
  are surely below / above R_sat at the confidence, the response time at lambda* with
  its CI and accuracy.

CIs: ``ci_method="t"``: the mean over trials with Student's t (see
:mod:`.intervals` for why not the paper's z); ``"rank"``: the median over trials with
the distribution-free order-statistic interval (None with fewer than 6 trials at
95 %). Latency percentiles are pooled from the trials' full distributions where
stored (:mod:`.histograms`, Woodruff CIs over trials); a level without any is
summarised from the trials' own percentile metrics with ``ci_method``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.kernels.latency import pooled_quantiles
from perfwarehouse.loadtest import histograms, intervals, laws, mixing
from perfwarehouse.loadtest.parameters import PERCENTILES, Options
from perfwarehouse.loadtest.peak import _f, _response_name, peak_rate
from perfwarehouse.loadtest.settings import LOOPS, parse_settings
from perfwarehouse.stats import means


# ---------------------------------------------------------------- utilities
def _codes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list[Any]]:
    """Dense codes of a string column (Arrow's dictionary encoding; nulls get their own
    code) and the distinct values."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr, null_encoding="encode")
    codes = np.asarray(arr.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return codes, arr.dictionary.to_pylist()


def _strings(codes: np.ndarray, values: Sequence[object]) -> pa.Array:
    """``values[codes]`` as an Arrow string array (without a Python list per row)."""
    return pc.take(pa.array(values, pa.string()), pa.array(codes, pa.int64()))


@dataclass(frozen=True)
class GroupStats:
    n: np.ndarray
    estimate: np.ndarray
    mean: np.ndarray
    median: np.ndarray
    low: np.ndarray
    high: np.ndarray


def group_stats(values: np.ndarray, gid: np.ndarray, n_groups: int, confidence: float,
                method: str) -> GroupStats:
    """Per group (``gid`` in 0..G-1, -1 = left out): n, mean, median and the CI of the
    mean (t) or of the median (rank); ``estimate`` is the one the CI belongs to. NaN
    values are left out."""
    keep = ~np.isnan(values) & (gid >= 0)
    v, g = values[keep], gid[keep]
    order = np.lexsort((v, g))
    v, g = v[order], g[order]
    n = np.bincount(g, minlength=n_groups).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(g, weights=v, minlength=n_groups) / n
        ss = np.bincount(g, weights=(v - mean[g]) ** 2, minlength=n_groups)
        sd = np.sqrt(ss / (n - 1))
    has = n > 0
    median = np.full(n_groups, np.nan)
    lo_i = starts + (n - 1) // 2
    hi_i = starts + n // 2
    median[has] = (v[lo_i[has]] + v[hi_i[has]]) / 2.0
    low = np.full(n_groups, np.nan)
    high = np.full(n_groups, np.nan)
    if method == "t":
        half = means.mean_half_width(sd, n, confidence)
        low, high = mean - half, mean + half
        estimate = mean
    else:
        for size in np.unique(n[n > 0]).tolist():
            j, k, _ = intervals.quantile_rank_indices(int(size), 0.5, confidence)
            if j == 0:
                continue
            sel = n == size
            low[sel] = v[starts[sel] + j - 1]
            high[sel] = v[starts[sel] + k - 1]
        estimate = median
    return GroupStats(n, estimate, mean, median, low, high)


# ------------------------------------------------------------------ analysis
def analyse(trials: pa.Table, options: Options) -> dict[str, pa.Table]:
    """``load_law_checks``, ``load_curve`` and ``peak_rate`` of ``trials`` (see module)."""
    n = trials.num_rows
    settings_codes, settings_values = _codes(trials.column("settings"))
    parsed = [parse_settings(s or "") for s in settings_values]
    loop_of_setting = np.array([LOOPS.index(p.loop) for p in parsed], dtype=np.int64)
    loop_codes = loop_of_setting[settings_codes] if n else np.zeros(0, dtype=np.int64)
    loop = np.array(LOOPS, dtype=object)[loop_codes]

    def per_setting(attr: str) -> np.ndarray:
        if not n:
            return np.zeros(0)
        return np.array([getattr(p, attr) for p in parsed], dtype=np.float64)[settings_codes]

    load = per_setting("load")
    clients, think = per_setting("clients"), per_setting("think_time_s")
    outstanding, rate = per_setting("outstanding"), per_setting("rate_rps")
    fam_of_setting, fam_values = _codes(pa.array([p.family for p in parsed], pa.string()))
    fam_codes = fam_of_setting[settings_codes] if n else np.zeros(0, dtype=np.int64)
    X = _f(trials, "throughput")
    mean_ms = _f(trials, "mean_ms")
    hist_mean = _f(trials, "hist_mean_ms")
    mean_ms = np.where(np.isnan(mean_ms), hist_mean, mean_ms)
    requests = _f(trials, "requests")
    generator = (np.array([p.generator for p in parsed], dtype=object)[settings_codes] if n
                 else np.zeros(0, dtype=object))
    unfit = laws.closed_law_unfit(generator, clients, X, options.law_tolerance)
    checks = laws.check(
        loop, clients=clients, think_time_s=think, outstanding=outstanding, rate_rps=rate,
        throughput=X, mean_ms=mean_ms, arrival_rate=_f(trials, "arrival_rate"),
        utilization=_f(trials, "utilization"), service_time_ms=_f(trials, "service_time_ms"),
        busy_s=_f(trials, "busy_s"), requests=requests, tolerance=options.law_tolerance,
        unfit=unfit)
    key_cols = ("campaign", "hardware_type", "benchmark")
    law_table = pa.table({
        **{k: trials.column(k) for k in key_cols},
        "family": _strings(fam_codes, fam_values),
        "loop": _strings(loop_codes, LOOPS),
        "load": _float_array(load),
        "run_id": trials.column("run_id"),
        "position": trials.column("position"),
        "node": trials.column("node") if "node" in trials.column_names
        else pa.nulls(n, pa.string()),
        "throughput": _float_array(X),
        "mean_ms": _float_array(mean_ms),
        "law": _strings(checks.law_code, laws.LAW_NAMES + (None,)),
        "expected": _float_array(checks.expected),
        "residual": _float_array(checks.residual),
        "consistent": pa.array(checks.ok, pa.bool_(), mask=~checks.checked),
        "reason": pa.array(checks.reason.tolist(), pa.string()),
    })

    # ------------------------------------------------------------- groups
    usable = (loop_codes < 2) & ~np.isnan(load)
    key_codes = [_codes(trials.column(k))[0] for k in key_cols]
    idx = np.flatnonzero(usable)
    order = idx[np.lexsort((load[idx], fam_codes[idx], key_codes[2][idx], key_codes[1][idx],
                            key_codes[0][idx]))]
    if order.size:
        keys = np.vstack([key_codes[0][order], key_codes[1][order], key_codes[2][order],
                          fam_codes[order]]).astype(np.float64)
        keys = np.vstack([keys, load[order]])
        change = np.any(keys[:, 1:] != keys[:, :-1], axis=0)
        starts = np.concatenate([[0], np.flatnonzero(change) + 1])
    else:
        starts = np.zeros(0, dtype=np.int64)
    n_groups = starts.size
    group_sizes = np.diff(np.concatenate([starts, [order.size]]))
    gid_sorted = np.repeat(np.arange(n_groups), group_sizes)
    gid = np.full(n, -1, dtype=np.int64)
    gid[order] = gid_sorted
    first = order[starts] if n_groups else np.zeros(0, dtype=np.int64)

    inconsistent = checks.checked & ~checks.ok
    n_trials = np.bincount(gid[gid >= 0], minlength=n_groups)
    n_bad = np.bincount(gid[(gid >= 0) & inconsistent], minlength=n_groups)
    level_ok = n_bad < n_trials  # at least one trial that is not inconsistent
    level_of_trial = level_ok[np.maximum(gid, 0)] if n_groups else np.ones(n, dtype=bool)
    use = (gid >= 0) & (~inconsistent | ~level_of_trial)
    ugid = np.where(use, gid, -1)
    conf, method = options.confidence, options.ci_method

    thr = group_stats(X, ugid, n_groups, conf, method)
    rt = group_stats(mean_ms, ugid, n_groups, conf, method)
    arr = group_stats(_f(trials, "arrival_rate"), ugid, n_groups, conf, "t")
    residual_med = group_stats(checks.residual, gid, n_groups, conf, "t").median
    errors = _f(trials, "errors")
    both = ~np.isnan(errors) & ~np.isnan(requests) & (ugid >= 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        err_rate = (np.bincount(ugid[both], weights=errors[both], minlength=n_groups)
                    / np.bincount(ugid[both], weights=requests[both], minlength=n_groups))
    max_ms = np.full(n_groups, np.nan)
    mx = _f(trials, "max_ms")
    okm = ~np.isnan(mx) & (ugid >= 0)
    if okm.any():
        np.fmax.at(max_ms, ugid[okm], mx[okm])

    # pooled percentiles from the stored distributions
    pts, lows, highs, n_hist = _pooled(trials, order, ugid, n_groups, conf)
    pct: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    # numpy's stubs accept no None in where(); at run time it makes an object array
    source = np.where(n_hist > 0, "histogram", None).astype(object)  # type: ignore[call-overload]
    for j, (name, _p) in enumerate(PERCENTILES):
        per_trial = group_stats(_f(trials, name), ugid, n_groups, conf, method)
        use_hist = n_hist > 0
        point = np.where(use_hist, pts[:, j], per_trial.estimate)
        lo = np.where(use_hist, lows[:, j], per_trial.low)
        hi = np.where(use_hist, highs[:, j], per_trial.high)
        pct[name] = (point, lo, hi)
        source = np.where(~use_hist & (per_trial.n > 0), "trial-percentiles", source)

    g_loop = loop[first] if n_groups else np.array([], dtype=object)
    g_clients, g_think, g_rate = clients[first], np.nan_to_num(think[first]), rate[first]
    with np.errstate(invalid="ignore", divide="ignore"):
        law_line = np.where(g_loop == "closed",
                            g_clients * np.where(np.isnan(outstanding[first]), 1.0,
                                                 outstanding[first])
                            / (rt.estimate / 1e3 + g_think), np.nan)
    unfit_any = np.bincount(gid[(gid >= 0) & (unfit != None)], minlength=n_groups) > 0  # noqa: E711
    law_line = np.where(unfit_any, np.nan, law_line)  # the law does not hold for the tool
    resp_name = _response_name(options)
    resp = (rt.estimate, rt.low, rt.high) if options.percentile is None else pct[resp_name]
    if options.r_sat_ms is not None:
        region = intervals.region_decision(resp[1], resp[2], options.r_sat_ms, options.width)
    else:
        region = np.full(n_groups, None, dtype=object)
    reasons = _level_reasons(checks.reason, inconsistent, gid, n_groups, n_bad, n_trials)
    curve = pa.table({
        **{k: trials.column(k).take(pa.array(first)) for k in key_cols},
        "family": _strings(fam_codes[first], fam_values),
        "loop": pa.array(g_loop.tolist(), pa.string()),
        "load": _float_array(load[first]),
        "clients": _float_array(g_clients),
        "think_time_s": _float_array(think[first]),
        "rate_rps": _float_array(g_rate),
        "n_trials": pa.array(n_trials.astype(np.int64), pa.int64()),
        "n_used": pa.array(np.bincount(ugid[ugid >= 0], minlength=n_groups), pa.int64()),
        "n_inconsistent": pa.array(n_bad.astype(np.int64), pa.int64()),
        "consistent": pa.array(level_ok.tolist(), pa.bool_()),
        "reason": pa.array(reasons, pa.string()),
        "confidence": pa.array(np.full(n_groups, conf), pa.float64()),
        "ci_method": pa.array([method] * n_groups, pa.string()),
        "throughput": _float_array(thr.estimate),
        "throughput_median": _float_array(thr.median),
        "throughput_low": _float_array(thr.low),
        "throughput_high": _float_array(thr.high),
        "throughput_law": _float_array(law_line),
        "arrival_rate": _float_array(arr.mean),
        "mean_ms": _float_array(rt.estimate),
        "mean_low_ms": _float_array(rt.low),
        "mean_high_ms": _float_array(rt.high),
        "mean_accuracy": _float_array(means.accuracy(rt.low, rt.high)),
        **{f"{name}_{part}": _float_array(vals[i]) for name, vals in pct.items()
           for i, part in enumerate(("ms", "low_ms", "high_ms"))},
        "max_ms": _float_array(max_ms),
        "latency_source": pa.array(source.tolist(), pa.string()),
        "error_rate": _float_array(err_rate),
        "law_residual": _float_array(residual_med),
        "region": pa.array(region.tolist(), pa.string()),
    })
    notes = _law_notes(trials, fam_codes, fam_values, loop, gid, unfit, key_cols)
    fam_key = list(zip(*(curve.column(k).to_pylist() for k in (*key_cols, "family", "loop"))))
    mixed = mixing.family_notes(trials, ugid, fam_key, load[first], X)
    return {"load_law_checks": law_table, "load_curve": curve,
            "peak_rate": peak_rate(curve, options, notes, mixed)}


def _law_notes(trials: pa.Table, fam_codes: np.ndarray, fam_values: list[object],
               loop: np.ndarray, gid: np.ndarray, unfit: np.ndarray,
               key_cols: tuple[str, ...]) -> dict[tuple[object, ...], str]:
    """Family key -> one sentence on the trials whose tool cannot satisfy N = X(R+Z)
    (said once per family instead of flagging every trial)."""
    notes: dict[tuple[object, ...], list[object]] = {}
    picked = np.flatnonzero(gid >= 0)
    if not picked.size:
        return {}
    keys = {k: trials.column(k).take(pa.array(picked)).to_pylist() for k in key_cols}
    for j, i in enumerate(picked.tolist()):
        key = (*(keys[k][j] for k in key_cols), fam_values[fam_codes[i]], loop[i])
        entry = notes.setdefault(key, [0, 0, None])
        entry[1] += 1  # type: ignore[operator]
        if unfit[i] is not None:
            entry[0] += 1  # type: ignore[operator]
            entry[2] = entry[2] or unfit[i]
    return {key: f"N = X(R+Z) not checked on {bad} of {total} trials: {why}"
            for key, (bad, total, why) in notes.items() if bad}


def _float_array(values: np.ndarray) -> pa.Array:
    v = np.asarray(values, dtype=np.float64)
    return pa.array(v, pa.float64(), mask=np.isnan(v))


def _level_reasons(reason: np.ndarray, inconsistent: np.ndarray, gid: np.ndarray,
                   n_groups: int, n_bad: np.ndarray, n_trials: np.ndarray) -> list[str | None]:
    out: list[str | None] = [None] * n_groups
    for i in np.flatnonzero(inconsistent & (gid >= 0)).tolist():
        g = int(gid[i])
        if out[g] is None:
            out[g] = (f"{n_bad[g]} of {n_trials[g]} trials inconsistent"
                      + (" (all: the level is shown but not used for the peak)"
                         if n_bad[g] == n_trials[g] else " (left out)")
                      + f"; first: {reason[i]}")
    return out


def _pooled(trials: pa.Table, order: np.ndarray, ugid: np.ndarray, n_groups: int,
            confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pooled percentiles (G x 4) with Woodruff CIs, from the trials' stored histograms."""
    ps = np.array([p / 100.0 for _n, p in PERCENTILES])
    empty = np.full((n_groups, ps.size), np.nan)
    if "hist_index" not in trials.column_names or n_groups == 0:
        return empty, empty.copy(), empty.copy(), np.zeros(n_groups, dtype=np.int64)
    index_col = trials.column("hist_index").combine_chunks()
    frac_col = trials.column("hist_frac").combine_chunks()
    lengths = np.asarray(pc.fill_null(pc.list_value_length(index_col), 0), dtype=np.int64)
    flat_index = np.asarray(pc.list_flatten(index_col), dtype=np.int64)
    flat_frac = np.asarray(pc.list_flatten(frac_col), dtype=np.float64)
    ends = np.cumsum(lengths)
    begins = ends - lengths
    # only the trials used at their level, in group order
    used = order[ugid[order] >= 0]
    gsorted = ugid[used]
    group_starts = np.searchsorted(gsorted, np.arange(n_groups + 1)).astype(np.int64)
    # a trial's weight: the requests behind its distribution, else its requests metric
    hist_n = _f(trials, "hist_n")
    hist_n = np.where(np.isnan(hist_n), _f(trials, "requests"), hist_n)[used]
    weight = np.where(np.isnan(hist_n), 1.0, hist_n)
    # equal weights in a group where some trial's request count is unknown
    unknown = np.bincount(gsorted, weights=(np.isnan(hist_n) & (lengths[used] > 0))
                          .astype(np.float64), minlength=n_groups) > 0
    weight = np.where(unknown[gsorted], 1.0, weight)
    max_k = int(np.max(np.diff(group_starts), initial=1)) + 1
    qtab = np.full(max_k + 1, np.nan)
    qtab[2:] = means.critical_value(confidence, np.arange(2, max_k + 1))
    return pooled_quantiles(group_starts, begins[used].astype(np.int64),
                            ends[used].astype(np.int64), flat_index, flat_frac, weight, ps,
                            qtab, histograms.N_BUCKETS, histograms.LOW_MS,
                            float(histograms.PER_DECADE))


