"""Which test leaves state that changes the next one? The predecessor analysis.

OrderSage (Duplyakin et al., USENIX ATC 2023) leaves which test disturbs which as future work (section 9);
perfwarehouse defines it as follows. Within random-order runs, each trial of a
configuration is labelled with the test that ran just before it; per configuration:
Kruskal-Wallis across predecessor groups, and the worst predecessor (the group whose
median is furthest from the configuration's random-order median) against the rest with
a Mann-Whitney U test, median CIs and their CI case.

Pure: arrays in, Arrow columns out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse.ordersage.orders import (
    ci_case,
    cube_minus,
    segment_median_cis,
    segment_medians,
)
from perfwarehouse.ordersage.results import NO_WORST, nullable, nullable_int


def compare_predecessors(
    codes: np.ndarray, predecessor: np.ndarray, values: np.ndarray, n_configs: int, *,
    alpha: float, confidence: float, min_trials: int,
) -> dict[str, Any]:
    """Kruskal-Wallis across predecessor groups and the worst predecessor, every
    configuration at once (the pure function of the job).

    Parameters
    ----------
    codes:
        int32 configuration of each value (random-order trials), 0..n_configs-1.
    predecessor:
        int64 test that ran before each trial (>= 0), or -1 for a run's first trial.
    values:
        float64, no NaN.

    Returns
    -------
    Arrow columns, one row per configuration, plus ``worst_test`` (numpy: the
    worst predecessor's test, -1 = start of run, -3 = none).
    """
    from scipy import special

    from perfwarehouse.kernels import order_effects as kernels
    from perfwarehouse.stats.rank_tests import mannwhitney_p

    codes = np.ascontiguousarray(codes, dtype=np.int32)
    by_value = np.argsort(values)  # numpy's vectorised argsort, once
    # rows by configuration (in value order), then by (configuration, predecessor) group
    pooled_rows, offsets = kernels.stable_segment_order(by_value, codes, n_configs)
    second = predecessor + 2  # -1 (start of run) -> 1; tests -> 2...
    group, group_config, group_second = kernels.pair_groups(
        pooled_rows, offsets, second, int(second.max()) + 1 if second.size else 1)
    group_test = group_second - 2
    n_groups = group_config.size
    group_rows, group_offsets = kernels.stable_segment_order(pooled_rows, group, n_groups)
    pooled, by_group = values[pooled_rows], values[group_rows]
    rank_of_row, tie_term = kernels.mid_ranks(values, pooled_rows, offsets)
    group_n = np.diff(group_offsets)
    rank_sum = np.bincount(group, weights=rank_of_row, minlength=n_groups)
    n = np.diff(offsets)
    k = np.bincount(group_config, minlength=n_configs)
    tested = k >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        ssbn = np.bincount(group_config, weights=rank_sum**2 / group_n, minlength=n_configs)
        h = 12.0 / (n * (n + 1)) * ssbn - 3 * (n + 1)
        correction = 1 - tie_term / cube_minus(n)
        all_tied = tested & (correction == 0)
        h = np.where(tested & ~all_tied, h / correction, np.nan)
        p = special.chdtrc((k - 1).astype(np.float64), h)
        eta2 = np.where(n > k, (h - k + 1) / (n - k), np.nan)

    # the worst predecessor: largest |median shift| from the configuration's median
    pooled_median = segment_medians(pooled, offsets[:-1], n)
    group_median = segment_medians(by_group, group_offsets[:-1], group_n)
    with np.errstate(divide="ignore", invalid="ignore"):
        reference = pooled_median[group_config]
        shift = np.abs(group_median - reference) / np.abs(reference)
    candidate = (group_n >= min_trials) & tested[group_config] & np.isfinite(shift)
    n_candidates = np.bincount(group_config[candidate], minlength=n_configs)
    chosen = worst_groups(np.flatnonzero(candidate), group_config, shift, group_test, n_configs)
    rest, rest_offsets = kernels.exclude_sorted(pooled, offsets, by_group, group_offsets, chosen)
    has = chosen >= 0
    pick = np.maximum(chosen, 0)
    worst_n = np.where(has, group_n[pick], 0)
    rest_n = np.diff(rest_offsets)
    conf = np.full(n_configs, confidence)
    worst_start = np.where(has, group_offsets[pick], 0)
    worst_median = np.where(has, segment_medians(by_group, worst_start, worst_n), np.nan)
    rest_median = segment_medians(rest, rest_offsets[:-1], rest_n)
    worst_ci = segment_median_cis(by_group, worst_start, worst_n, conf, "exact")
    rest_ci = segment_median_cis(rest, rest_offsets[:-1], rest_n, conf, "exact")
    case = np.where(has, ci_case(worst_median, worst_ci, rest_median, rest_ci), -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        shift_pct = (worst_median - rest_median) / rest_median * 100
    u1 = rank_sum[pick] - worst_n * (worst_n + 1) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        _z, mwu = mannwhitney_p(u1, worst_n, rest_n, tie_term)
    mwu = np.where(has & (rest_n > 0), mwu, np.nan)
    worst_test = np.where(has, group_test[pick], NO_WORST)

    with np.errstate(invalid="ignore"):
        reject_alpha = np.where(np.isnan(p), False, p < alpha)
    return {
        "worst_test": worst_test,
        "n_random": pa.array(n, pa.int64()),
        "n_predecessors": pa.array(k, pa.int64()),
        "kw_h": nullable(h),
        "kw_df": pa.array(np.maximum(k - 1, 0), pa.int64(), mask=~tested),
        "kw_p": nullable(p),
        "all_tied": pa.array(all_tied),
        "eta2": nullable(eta2),
        "alpha": pa.array(np.full(n_configs, alpha)),
        "reject_alpha": pa.array(reject_alpha),
        "min_trials": pa.array(np.full(n_configs, min_trials), pa.int64()),
        "n_candidates": pa.array(n_candidates, pa.int64()),
        "worst_n": pa.array(worst_n, pa.int64(), mask=~has),
        "worst_median": nullable(worst_median),
        "worst_ci_low": nullable(worst_ci["low"]),
        "worst_ci_high": nullable(worst_ci["high"]),
        "worst_ci_coverage": nullable(np.where(has, worst_ci["coverage"], np.nan)),
        "rest_n": pa.array(rest_n, pa.int64(), mask=~has),
        "rest_median": nullable(rest_median),
        "rest_ci_low": nullable(rest_ci["low"]),
        "rest_ci_high": nullable(rest_ci["high"]),
        "median_shift_pct": nullable(np.where(np.isfinite(shift_pct), shift_pct, np.nan)),
        "ci_case": nullable_int(case),
        "ci_confidence": pa.array(conf),
        "mwu_p": nullable(mwu),
        "mwu_p_adjusted": nullable(np.minimum(mwu * np.maximum(n_candidates, 1), 1.0)),
    }


def worst_groups(cand: np.ndarray, group_config: np.ndarray, shift: np.ndarray,
                 group_test: np.ndarray, n_configs: int) -> np.ndarray:
    """Each configuration's worst candidate group: the largest ``shift``, ties to the
    smallest test (-1 = none). ``cand`` ascending; groups are numbered configuration
    after configuration (``group_config`` non-decreasing), so each configuration's
    candidates are one run of ``cand`` and segmented reductions pick them (what a lexsort
    by (configuration, -shift, test) and its first row per configuration give, without
    the sort)."""
    chosen = np.full(n_configs, -1, np.int64)
    if cand.size == 0:
        return chosen
    config = group_config[cand]
    starts = np.flatnonzero(np.r_[True, config[1:] != config[:-1]])
    sizes = np.diff(np.r_[starts, cand.size])
    cand_shift = shift[cand]
    largest = np.repeat(np.maximum.reduceat(cand_shift, starts), sizes)
    test = np.where(cand_shift == largest, group_test[cand], np.iinfo(np.int64).max)
    smallest = np.repeat(np.minimum.reduceat(test, starts), sizes)
    pick = cand[test == smallest]  # one per configuration: its tests are distinct
    chosen[group_config[pick]] = pick
    return chosen
