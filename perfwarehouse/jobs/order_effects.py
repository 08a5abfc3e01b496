"""``perfwarehouse analyze order-effects``: does the order of trials change the results?

The method of Duplyakin et al. (OrderSage, USENIX ATC 2023), §3 and §5, as the
manual (docs/analyses/order-effects.md) states it. For every configuration on every hardware type, all fixed-order
trials are compared with all random-order trials:

* Kruskal-Wallis H with tie correction and its chi-square(1) p-value (the
  numbers of ``scipy.stats.kruskal``), ``reject_alpha`` = p < alpha (the paper's
  filled dots) and ``reject_bonferroni`` = p < alpha/m, m = configurations
  compared in the family (Algorithm 1 line 14). The family (default: the
  campaign) says "order matters" when any of its tests rejects (lines 15-19);
  ``--correction holm|bh`` adds Holm's or Benjamini-Hochberg's adjusted p-values
  and decisions (``p_adjusted``, ``reject_adjusted``) and the verdict uses them.
* eta^2_H = (H - k + 1)/(n - k), k = 2 (Tomczak & Tomczak 2014).
* Delta% = (mean_fixed - mean_random)/mean_fixed x 100 (5.1.3) and the same
  with medians.
* Each group's median with a distribution-free CI from order statistics: the
  exact binomial interval [x(j), x(n-j+1)], largest j with coverage >= the
  confidence (achieved coverage reported; Le Boudec's approximation with
  ``--ci-method le-boudec``). The confidence defaults to the family-wise
  1 - alpha/m. Too few values for the confidence: NULL CI, NULL case.
* CI case (Algorithm 2 and the text after it): 1 = disjoint intervals; 2 =
  they overlap and at least one median lies strictly inside the other group's
  interval; 3 = otherwise.

``--ordersage-compat`` reproduces the OrderSage tool's ``node_stats.csv``
instead (docs/analyses/order-effects.md, "``--ordersage-compat``: OrderSage's own numbers", lists
each difference).

Speed: the job scans the measurements once, each campaign's three columns (its
prepare step reads the configurations table and the files' partition keys only);
the configurations, their counts and the family sizes come from those rows, and the
statistics of all of them from one packed ``np.sort`` and a few numba passes
(:mod:`perfwarehouse.kernels.order_rows`: two passes over the query's record batches as
they are, then the sort and one walk); no Python loop per configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.errors import AnalysisError
from perfwarehouse.jobs.configurations import (
    NO_FAMILY,
    FamilyParams,
    any_in_family,
    block_rows,
    check_alpha,
    confidence_value,
    describe,
    family_codes,
    family_label,
    family_query_params,
    rows_by_family,
    sorted_by_family,
)
from perfwarehouse.jobs.framework import Job, param
from perfwarehouse.ordersage import compare_ranked, nullable
from perfwarehouse.stats.corrections import adjust_pvalues

# scipy, numba and the kernels are imported where they are used: the CLI imports
# every job module to build its options, and --help should not compile or load them.

OUTPUT = "order_effects"


@dataclass(frozen=True)
class OrderEffectsParams(FamilyParams):
    ci_confidence: str | None = param(
        None, "Confidence of the median CIs, 0.95 or 95.  [default: 1 - alpha/m, family-wise]")
    ci_method: str = param("exact", "Median CI: exact binomial order statistics or Le Boudec's "
                           "normal approximation.", choices=("exact", "le-boudec"))
    correction: str = param("bonferroni", "Multiple-comparison correction of reject_adjusted "
                            "and of the family verdict.", choices=("bonferroni", "holm", "bh"))
    ordersage_compat: bool = param(
        False, "Reproduce the OrderSage tool's node_stats.csv numbers (eta^2 = H/(n-1), its CI "
        "indices and CI case rule, its failure handling, p <= alpha decisions).")


def query_params(params: OrderEffectsParams) -> dict[str, Any]:
    """Bound parameters of both queries (validates the user's options first)."""
    check_alpha(params.alpha)
    confidence_value(params.ci_confidence)
    return {**family_query_params(params.family_by),
            "ordersage_compat": bool(params.ordersage_compat)}


# ------------------------------------------------------------ the computation
@dataclass(frozen=True)
class Names:
    """What the prepare step found (``order_effects_names.sql``): the configurations'
    names by config_id, and each (campaign, hardware type)'s partition key."""

    configurations: pa.Table  # config_id, benchmark, ..., family (attribute families)
    partitions: pa.Table  # campaign, hardware_type, partition_key

    def __str__(self) -> str:
        return (f"{self.configurations.num_rows} configurations, "
                f"{self.partitions.num_rows} partitions")

    __repr__ = __str__

    def __deepcopy__(self, memo: dict[int, Any]) -> Names:
        return self  # immutable; dataclasses.asdict deep-copies parameters


def prepare(table: pa.Table, params: OrderEffectsParams) -> OrderEffectsParams:
    """The names the job needs, from the prepare rows (no measurement is read)."""
    import dataclasses

    kind = table.column("kind")
    configs = table.filter(pc.equal(kind, "configuration")).drop_columns(
        ["kind", "campaign", "hardware_type", "partition_key"]).sort_by("config_id")
    partitions = table.filter(pc.equal(kind, "partition")).select(
        ["campaign", "hardware_type", "partition_key"])
    return dataclasses.replace(params, configurations=Names(configs, partitions))


def labels_of(keys: np.ndarray, campaign: str, names: Names, family_by: str) -> pa.Table:
    """The configurations of one campaign's distinct row keys (``hash(campaign,
    hardware_type) XOR config_id``): their names and family, sorted by hardware type
    and config_id, in the columns of :data:`~perfwarehouse.jobs.configurations.NAME_COLUMNS`."""
    parts = names.partitions.filter(pc.equal(names.partitions.column("campaign"), campaign))
    config_ids = names.configurations.column("config_id").to_numpy()
    found = np.full(keys.size, -1, np.int64)
    hardware = np.full(keys.size, -1, np.int64)
    for i, pk in enumerate(parts.column("partition_key").to_numpy()):
        candidate = keys ^ np.uint64(pk)
        position = np.searchsorted(config_ids, candidate) if config_ids.size else candidate * 0
        position = np.minimum(position, max(config_ids.size - 1, 0))
        match = config_ids[position] == candidate if config_ids.size else position < 0
        if (match & (found >= 0)).any():
            raise AnalysisError("two configurations share a 64-bit row key (hash(campaign, "
                                "hardware_type) XOR config_id); please report it")
        found = np.where(match, position, found)
        hardware = np.where(match, i, hardware)
    if (found < 0).any():
        raise AnalysisError("the measurements changed while the job ran (a configuration "
                            "appeared that the first pass did not see); run it again")
    out = names.configurations.take(pa.array(found))
    hw = parts.column("hardware_type").take(pa.array(hardware))
    out = out.add_column(0, "hardware_type", hw)
    out = out.add_column(0, "campaign", pa.array([campaign] * keys.size, pa.string()))
    family = {"campaign": out.column("campaign"), "hardware_type": hw}.get(
        family_by, out.column("family"))
    out = out.set_column(out.schema.get_field_index("family"), "family",
                         pc.fill_null(family.cast(pa.string()), NO_FAMILY))
    return out


def compute(table: pa.Table, params: OrderEffectsParams) -> dict[str, pa.Table]:
    """One campaign's rows (row_key, grp, value) -> its order_effects rows."""
    from perfwarehouse.kernels import order_rows

    names = params.configurations
    if not isinstance(names, Names):
        raise AnalysisError("this job needs its prepare step (run it with run_job)")
    # the query's record batches as they are: two passes over them, no concatenation
    parts = table.select(["row_key", "grp", "value"]).to_batches()  # columns chunked alike
    batches = order_rows.record_batches(
        [[b.column(i).to_numpy(zero_copy_only=False) for b in parts] for i in range(3)])
    codes, keys, counts, kept, key_min, key_max, _ = order_rows.code_batches(batches)
    campaign = _campaign_of(keys[0], names)
    labels = labels_of(keys, campaign, names, params.family_by)
    order = np.lexsort((labels.column("config_id").to_numpy(),
                        labels.column("hardware_type").to_numpy(zero_copy_only=False)))
    labels = labels.take(pa.array(order))
    counts = counts[order]
    # family sizes m from every 'ok' value (NaN and OrderSage's dropped runs, group 2,
    # included: the configurations compared, as the counts of the data say)
    compared = ((counts[:, 0] + counts[:, 2]) > 0) & (counts[:, 1] > 0)
    family = family_codes(labels.column("campaign"), labels.column("family"))
    index = family.indices.to_numpy(zero_copy_only=False)
    m = np.bincount(index, weights=compared.astype(np.float64)).astype(np.int64)[index]
    labels = labels.append_column("m", pa.array(m, pa.int64()))
    ranks = order_rows.ranks_of_batches(batches, codes, order, kept, key_min, key_max)
    result = compare_ranked(
        ranks, m=m, alpha=params.alpha, ci_confidence=confidence_value(params.ci_confidence),
        ci_method=params.ci_method, ordersage_compat=params.ordersage_compat)
    return {OUTPUT: block_rows(labels, 0, labels.num_rows, params.family_by, result,
                               extra=("m",))}


def _campaign_of(key: np.uint64, names: Names) -> str:
    """The campaign of a row key (a piece holds one campaign: every key of it has the
    campaign's partition keys)."""
    config_ids = names.configurations.column("config_id").to_numpy()
    for campaign, pk in zip(names.partitions.column("campaign").to_pylist(),
                            names.partitions.column("partition_key").to_numpy()):
        candidate = key ^ np.uint64(pk)
        position = int(np.searchsorted(config_ids, candidate))
        if position < config_ids.size and config_ids[position] == candidate:
            return str(campaign)
    raise AnalysisError("the measurements changed while the job ran (a configuration "
                        "appeared that the first pass did not see); run it again")


# ------------------------------------------------------------- across campaigns
def finalize(tables: dict[str, pa.Table], params: OrderEffectsParams) -> dict[str, pa.Table]:
    """Adjusted p-values per family (Bonferroni, Holm or Benjamini-Hochberg) and the
    family verdict of Algorithm 1; rows sorted by their names."""
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return tables
    table, family = sorted_by_family(table)
    p = table.column("kw_p").to_numpy(zero_copy_only=False).astype(np.float64)
    compared = (table.column("n_fixed").to_numpy() > 0) & (table.column("n_random").to_numpy() > 0)
    adjusted = adjust_pvalues(p, compared, family, params.correction)
    alpha = params.alpha
    with np.errstate(invalid="ignore"):
        if params.correction == "bonferroni":
            reject = table.column("reject_bonferroni").to_numpy(zero_copy_only=False)
        else:
            reject = np.where(np.isnan(adjusted), False, adjusted < alpha)
    reject = np.asarray(reject, dtype=bool)
    table = table.append_column("correction", pa.array([params.correction] * table.num_rows))
    table = table.append_column("p_adjusted", nullable(adjusted))
    table = table.append_column("reject_adjusted", pa.array(reject))
    table = table.append_column("order_matters", pa.array(any_in_family(family, reject)))
    return {**tables, OUTPUT: table}


# ------------------------------------------------------------------ summary
#: what the summary reads of each row (a third of the table's columns)
SUMMARY_COLUMNS = ("campaign", "family", "hardware_type", "benchmark", "settings", "metric",
                   "n_fixed", "n_random", "reject_bonferroni", "reject_adjusted",
                   "order_matters", "ci_case", "kw_p", "delta_pct", "eta2")


def summarize(tables: dict[str, pa.Table], params: OrderEffectsParams) -> list[str]:
    """Per family: configurations compared, rejections at alpha/m, verdict, largest effects."""
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return ["order-effects: no configuration has both fixed- and random-order trials"]
    rows = table.select([c for c in SUMMARY_COLUMNS if c in table.column_names]).to_pylist()
    lines: list[str] = []
    for (campaign, family), members in rows_by_family(rows).items():
        compared = [r for r in members if r["n_fixed"] and r["n_random"]]
        m = len(compared)
        rejected = sum(bool(r["reject_bonferroni"]) for r in compared)
        adjusted = sum(bool(r["reject_adjusted"]) for r in compared)
        verdict = "ORDER MATTERS" if members[0]["order_matters"] else "order does not matter"
        cases = {c: sum(1 for r in compared if r["ci_case"] == c) for c in (1, 2, 3)}
        no_ci = sum(1 for r in compared if r["ci_case"] is None)
        label = family_label(campaign, family, params.family_by)
        extra = "" if params.correction == "bonferroni" else f", {adjusted} by {params.correction}"
        lines.append(
            f"{label}: {m} configurations compared, {rejected} reject at alpha/m = "
            f"{params.alpha / max(m, 1):.3g}{extra}: {verdict} (Algorithm 1); CI cases "
            f"1/2/3 = {cases[1]}/{cases[2]}/{cases[3]}"
            + (f", {no_ci} without CI" if no_ci else ""))
        strongest = sorted((r for r in compared if r["kw_p"] is not None),
                           key=lambda r: (r["kw_p"], -abs(r["delta_pct"] or 0.0)))[:3]
        for r in strongest:
            delta = "n/a" if r["delta_pct"] is None else f"{r['delta_pct']:+.2f}%"
            eta = "n/a" if r["eta2"] is None else f"{r['eta2']:.3f}"
            lines.append(f"    {describe(r)} on {r['hardware_type']}: "
                         f"p = {r['kw_p']:.3g}, delta = {delta}, eta2 = {eta}, "
                         f"CI case {r['ci_case'] if r['ci_case'] is not None else 'n/a'}")
    return lines


JOB = Job(
    name="order-effects",
    help="Does trial order change the results? Kruskal-Wallis fixed vs random order per "
         "configuration and hardware type, Bonferroni per family, median CIs and CI cases "
         "(Duplyakin et al. (OrderSage, USENIX ATC 2023), §3 and §5). Writes the order_effects table.",
    params=OrderEffectsParams,
    query="order_effects",
    compute=compute,
    outputs=(OUTPUT,),
    finalize=finalize,
    summarize=summarize,
    partition_by=("campaign",),
    query_params=query_params,
    prepare_query="order_effects_names",
    prepare=prepare,
)
