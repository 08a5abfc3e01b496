"""``perfwarehouse analyze predecessor-effects``: *which* test leaves state that changes the next?

Duplyakin et al. (OrderSage, USENIX ATC 2023) leave this as future work (§9);
perfwarehouse defines it as follows.
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

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.configurations import (
    FamilyParams,
    any_in_family,
    block_rows,
    campaign_block,
    check_alpha,
    confidence_value,
    describe,
    family_label,
    family_query_params,
    label_codes,
    prepare_families,
    rows_by_family,
    sorted_by_family,
)
from perfwarehouse.jobs.framework import Job, param
from perfwarehouse.ordersage import NO_WORST, compare_predecessors

OUTPUT = "predecessor_effects"
RUN_START = -1  # predecessor code of a run's first trial
UNKNOWN = -2  # no row at position - 1 (the trial before failed without a value)
NO_SEED = np.empty(0, np.uint64)  # dense_codes without seeds


@dataclass(frozen=True)
class PredecessorParams(FamilyParams):
    ci_confidence: str = param(
        "0.95", "Confidence of the worst predecessor's and the rest's median CIs (0.95 or 95); "
        "predecessor groups are small, so this is not family-wise by default.")
    min_trials: int = param(3, "Trials a predecessor group needs to be a worst-predecessor "
                            "candidate.")


def query_params(params: PredecessorParams) -> dict[str, Any]:
    check_alpha(params.alpha)
    if confidence_value(params.ci_confidence) is None:
        raise UsageError("--ci-confidence needs a value such as 0.95")
    if int(params.min_trials) < 1:
        raise UsageError(f"--min-trials must be at least 1, got {params.min_trials}")
    return family_query_params(params.family_by)


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
    out = block_rows(labels, start, stop, params.family_by, {})
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


def finalize(tables: dict[str, pa.Table], params: PredecessorParams) -> dict[str, pa.Table]:
    """m = configurations tested (>= 2 predecessor groups) per family; Bonferroni."""
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return tables
    table, family = sorted_by_family(table)
    p = table.column("kw_p").to_numpy(zero_copy_only=False).astype(np.float64)
    tested = table.column("kw_df").is_valid().to_numpy(zero_copy_only=False)
    m = np.bincount(family, weights=tested.astype(np.float64)).astype(np.int64)[family]
    with np.errstate(invalid="ignore"):
        reject = np.where(np.isnan(p), False, p < params.alpha / np.maximum(m, 1))
    table = table.append_column("m", pa.array(m, pa.int64()))
    table = table.append_column("reject_bonferroni", pa.array(reject))
    table = table.append_column("order_matters", pa.array(any_in_family(family, reject)))
    return {**tables, OUTPUT: table}


def summarize(tables: dict[str, pa.Table], params: PredecessorParams) -> list[str]:
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return ["predecessor-effects: no random-order trials"]
    rows = [r for r in table.to_pylist() if r["kw_df"] is not None]
    lines = []
    for (campaign, family), members in rows_by_family(rows).items():
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
    prepare=prepare_families,
)
