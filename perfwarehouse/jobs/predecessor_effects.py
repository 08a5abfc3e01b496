"""``perfwarehouse analyze predecessor-effects``: *which* test leaves state that changes the next?

Seed 000 leaves this as future work; SPEC 5.1 ("beyond the paper") defines it.
Within the random-order runs of a campaign, every trial of a configuration is
labelled with the test that ran immediately before it in its run (the
predecessor; the first trial of a run follows the reset, "start of run"). Per
configuration and hardware type:

* Kruskal-Wallis H (tie-corrected) across its predecessor groups, with its
  chi-square(k - 1) p-value, eta^2_H = (H - k + 1)/(n - k), ``reject_alpha`` and
  ``reject_bonferroni`` (p < alpha/m, m = configurations tested in the family).
* The worst predecessor: among groups with at least ``--min-trials`` trials, the
  one whose median is furthest (relative) from the median of all the
  configuration's random trials. It is then compared with the *rest* (the
  configuration's trials after any other predecessor): the median shift
  (median_group - median_rest)/median_rest x 100, both medians' CIs
  (distribution-free, exact binomial), their CI case (as in order-effects), and
  a two-sided Mann-Whitney U test of the group against the rest
  (``mwu_p``; ``mwu_p_adjusted`` multiplies it by the number of candidate
  groups, a Bonferroni correction for having picked the largest shift).

A trial whose predecessor trial left no row (it failed without a value) has an
unknown predecessor and is left out (``n_unknown_predecessor``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.configurations import (
    ConfigurationIndex,
    check_alpha,
    confidence_value,
    family_query_params,
    size_families,
)
from perfwarehouse.jobs.framework import Job, param
from perfwarehouse.jobs.order_effects import (
    _ci_case,
    _median,
    _median_cis,
    _nullable,
    _nullable_int,
    campaign_block,
    cube_minus,
    describe,
    family_label,
    label_codes,
)

OUTPUT = "predecessor_effects"
RUN_START = -1  # predecessor code of a run's first trial
UNKNOWN = -2  # no row at position - 1 (the trial before failed without a value)
NO_WORST = -3  # no predecessor group had enough trials
NO_SEED = np.empty(0, np.uint64)  # dense_codes without seeds


@dataclass(frozen=True)
class PredecessorParams:
    campaign: str | None = param(None, "Analyse only this campaign.  [default: every campaign]")
    alpha: float = param(0.05, "Family-wise error rate of the Kruskal-Wallis decisions.")
    family_by: str = param(
        "campaign", "What makes a family of comparisons (m, Bonferroni): campaign, benchmark, "
        "metric, unit, higher_is_better, hardware_type or settings.KEY (e.g. settings.kind).")
    ci_confidence: str = param(
        "0.95", "Confidence of the worst predecessor's and the rest's median CIs (0.95 or 95); "
        "predecessor groups are small, so this is not family-wise by default.")
    min_trials: int = param(3, "Trials a predecessor group needs to be a worst-predecessor "
                            "candidate.")
    family_sizes: tuple = param((), "(campaign, family, m) found by prepare.", internal=True)
    configurations: Any = param(None, "Configuration names found by prepare.", internal=True)


def query_params(params: PredecessorParams) -> dict[str, Any]:
    check_alpha(params.alpha)
    if confidence_value(params.ci_confidence) is None:
        raise UsageError("--ci-confidence needs a value such as 0.95")
    if int(params.min_trials) < 1:
        raise UsageError(f"--min-trials must be at least 1, got {params.min_trials}")
    return family_query_params(params.family_by)


def prepare(table: pa.Table, params: Any) -> Any:
    families = size_families(table)
    return dataclasses.replace(params, family_sizes=families.sizes,
                               configurations=ConfigurationIndex(families.table))


def compute(table: pa.Table, params: PredecessorParams) -> dict[str, pa.Table]:
    """One campaign's random-order rows -> its predecessor_effects rows."""
    from perfwarehouse.kernels import order_effects as kernels

    labels, codes = label_codes(table, params)
    n_labels = labels.num_rows
    # a test = (benchmark, settings) on a hardware type; each label row is one metric of one
    test_key = labels.column("test_key").to_numpy()
    label_test, test_first_label = kernels.dense_codes(
        test_key, labels.column("partition_key").to_numpy(), NO_SEED, NO_SEED)
    run_key = table.column("run_key").to_numpy()
    run, _ = kernels.dense_codes(run_key, run_key, NO_SEED, NO_SEED)
    position = table.column("position").to_numpy().astype(np.int64)
    predecessor = kernels.predecessor_tests(run, position, label_test.astype(np.int64)[codes],
                                            int(run.max()) + 1 if run.size else 0)
    values = table.column("value").to_numpy(zero_copy_only=False)
    ok = np.asarray(table.column("ok").to_numpy(zero_copy_only=False), dtype=bool)
    ok &= ~np.isnan(values)
    unknown = np.bincount(codes[ok & (predecessor == UNKNOWN)], minlength=n_labels)
    keep = ok & (predecessor != UNKNOWN)
    result = compare_predecessors(
        codes[keep], predecessor[keep], np.ascontiguousarray(values[keep]), n_labels,
        alpha=params.alpha, confidence=confidence_value(params.ci_confidence) or 0.95,
        min_trials=int(params.min_trials))
    start, stop = campaign_block(labels, int(codes[0]), np.bincount(codes, minlength=n_labels))
    block = slice(start, stop)
    names = labels.select(["campaign", "hardware_type", "config_id", "benchmark", "settings",
                           "metric", "unit", "higher_is_better", "family"])
    names = names.slice(start, stop - start)
    out = names.append_column("family_by",
                              pa.array([params.family_by] * names.num_rows, pa.string()))
    out = out.append_column("n_unknown_predecessor", pa.array(unknown[block], pa.int64()))
    worst = result.pop("worst_test")[block]
    is_start = worst == RUN_START
    label_of_worst = np.where(worst >= 0, test_first_label[np.maximum(worst, 0)], 0)
    bench = labels.column("benchmark").take(pa.array(label_of_worst))
    sett = labels.column("settings").take(pa.array(label_of_worst))
    named = worst >= 0
    out = out.append_column("worst_predecessor_benchmark",
                            pc.if_else(pa.array(named), bench, pa.scalar(None, pa.string())))
    out = out.append_column("worst_predecessor_settings",
                            pc.if_else(pa.array(named), sett, pa.scalar(None, pa.string())))
    out = out.append_column("worst_is_run_start", pa.array(is_start, mask=worst == NO_WORST))
    for name, column in result.items():
        out = out.append_column(name, column.slice(start, stop - start))
    return {OUTPUT: out}


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
    pooled_median = _median(pooled, offsets[:-1], n)
    group_median = _median(by_group, group_offsets[:-1], group_n)
    with np.errstate(divide="ignore", invalid="ignore"):
        reference = pooled_median[group_config]
        shift = np.abs(group_median - reference) / np.abs(reference)
    candidate = (group_n >= min_trials) & tested[group_config] & np.isfinite(shift)
    n_candidates = np.bincount(group_config[candidate], minlength=n_configs)
    chosen = np.full(n_configs, -1, np.int64)
    cand = np.flatnonzero(candidate)
    if cand.size:
        order = np.lexsort((group_test[cand], -shift[cand], group_config[cand]))
        ranked = cand[order]
        firsts = np.flatnonzero(np.r_[True, np.diff(group_config[ranked]) != 0])
        chosen[group_config[ranked[firsts]]] = ranked[firsts]
    rest, rest_offsets = kernels.exclude_sorted(pooled, offsets, by_group, group_offsets, chosen)
    has = chosen >= 0
    pick = np.maximum(chosen, 0)
    worst_n = np.where(has, group_n[pick], 0)
    rest_n = np.diff(rest_offsets)
    conf = np.full(n_configs, confidence)
    worst_start = np.where(has, group_offsets[pick], 0)
    worst_median = np.where(has, _median(by_group, worst_start, worst_n), np.nan)
    rest_median = _median(rest, rest_offsets[:-1], rest_n)
    worst_ci = _median_cis(by_group, worst_start, worst_n, conf, "exact")
    rest_ci = _median_cis(rest, rest_offsets[:-1], rest_n, conf, "exact")
    case = np.where(has, _ci_case(worst_median, worst_ci, rest_median, rest_ci), -1)
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
        "kw_h": _nullable(h),
        "kw_df": pa.array(np.maximum(k - 1, 0), pa.int64(), mask=~tested),
        "kw_p": _nullable(p),
        "all_tied": pa.array(all_tied),
        "eta2": _nullable(eta2),
        "alpha": pa.array(np.full(n_configs, alpha)),
        "reject_alpha": pa.array(reject_alpha),
        "min_trials": pa.array(np.full(n_configs, min_trials), pa.int64()),
        "n_candidates": pa.array(n_candidates, pa.int64()),
        "worst_n": pa.array(worst_n, pa.int64(), mask=~has),
        "worst_median": _nullable(worst_median),
        "worst_ci_low": _nullable(worst_ci["low"]),
        "worst_ci_high": _nullable(worst_ci["high"]),
        "worst_ci_coverage": _nullable(np.where(has, worst_ci["coverage"], np.nan)),
        "rest_n": pa.array(rest_n, pa.int64(), mask=~has),
        "rest_median": _nullable(rest_median),
        "rest_ci_low": _nullable(rest_ci["low"]),
        "rest_ci_high": _nullable(rest_ci["high"]),
        "median_shift_pct": _nullable(np.where(np.isfinite(shift_pct), shift_pct, np.nan)),
        "ci_case": _nullable_int(case),
        "ci_confidence": pa.array(conf),
        "mwu_p": _nullable(mwu),
        "mwu_p_adjusted": _nullable(np.minimum(mwu * np.maximum(n_candidates, 1), 1.0)),
    }


def finalize(tables: dict[str, pa.Table], params: PredecessorParams) -> dict[str, pa.Table]:
    """m = configurations tested (>= 2 predecessor groups) per family; Bonferroni."""
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return tables
    table = table.sort_by([("campaign", "ascending"), ("family", "ascending"),
                           ("hardware_type", "ascending"), ("benchmark", "ascending"),
                           ("settings", "ascending"), ("metric", "ascending")])
    p = table.column("kw_p").to_numpy(zero_copy_only=False).astype(np.float64)
    tested = table.column("kw_df").is_valid().to_numpy(zero_copy_only=False)
    keys = pc.binary_join_element_wise(table.column("campaign"), table.column("family"), "\x1f")
    family = pc.dictionary_encode(keys).combine_chunks().indices.to_numpy(zero_copy_only=False)
    m = np.bincount(family, weights=tested.astype(np.float64)).astype(np.int64)[family]
    with np.errstate(invalid="ignore"):
        reject = np.where(np.isnan(p), False, p < params.alpha / np.maximum(m, 1))
    any_reject = np.bincount(family, weights=reject.astype(np.float64)) > 0
    table = table.append_column("m", pa.array(m, pa.int64()))
    table = table.append_column("reject_bonferroni", pa.array(reject))
    table = table.append_column("order_matters", pa.array(any_reject[family]))
    return {**tables, OUTPUT: table}


def summarize(tables: dict[str, pa.Table], params: PredecessorParams) -> list[str]:
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return ["predecessor-effects: no random-order trials"]
    rows = [r for r in table.to_pylist() if r["kw_df"] is not None]
    lines = []
    families: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        families.setdefault((row["campaign"], row["family"]), []).append(row)
    for (campaign, family), members in families.items():
        rejected = sum(bool(r["reject_bonferroni"]) for r in members)
        label = family_label(campaign, family, params.family_by)
        lines.append(f"{label}: {len(members)} configurations tested across predecessors, "
                     f"{rejected} reject at alpha/m")
        shifted = sorted((r for r in members if r["median_shift_pct"] is not None
                          and r["mwu_p_adjusted"] is not None),
                         key=lambda r: (r["mwu_p_adjusted"], -abs(r["median_shift_pct"])))[:3]
        for r in shifted:
            before = ("the start of the run" if r["worst_is_run_start"] else
                      describe(r, "worst_predecessor_"))
            lines.append(f"    {describe(r)} on {r['hardware_type']}: "
                         f"{r['median_shift_pct']:+.1f}% after {before} "
                         f"(n = {r['worst_n']}, Mann-Whitney p = "
                         f"{r['mwu_p_adjusted']:.3g} adjusted)")
    return lines


JOB = Job(
    name="predecessor-effects",
    help="Which test leaves state that changes the next? Within random-order runs, each "
         "configuration's trials grouped by the test that ran just before: Kruskal-Wallis "
         "across predecessors and the predecessor with the largest median shift, with CIs. "
         "Writes the predecessor_effects table.",
    params=PredecessorParams,
    query="predecessor_effects",
    compute=compute,
    outputs=(OUTPUT,),
    finalize=finalize,
    summarize=summarize,
    partition_by=("campaign",),
    query_params=query_params,
    prepare_query="order_effects_configurations",
    prepare=prepare,
)
