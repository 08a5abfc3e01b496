"""``perfwarehouse analyze order-effects``: does the order of trials change the results?

The method of seed 000 (OrderSage, ATC 2023), sections 3 and 5, as SPEC 5.1
defines it. For every configuration on every hardware type, all fixed-order
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
instead (the README section "``--ordersage-compat``: OrderSage's own numbers" lists
each difference).

Speed: the job reads each campaign once (four columns), and the statistics of
all its configurations come from one packed ``np.sort`` and a few numba passes
(:mod:`perfwarehouse.kernels.order_effects`); no Python loop per configuration.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.errors import AnalysisError
from perfwarehouse.jobs.configurations import (
    ConfigurationIndex,
    check_alpha,
    confidence_value,
    family_query_params,
    size_families,
)
from perfwarehouse.jobs.framework import Job, param

# scipy, numba and the kernels are imported where they are used: the CLI imports
# every job module to build its options, and --help should not compile or load them.

OUTPUT = "order_effects"


@dataclass(frozen=True)
class OrderEffectsParams:
    campaign: str | None = param(None, "Analyse only this campaign.  [default: every campaign]")
    alpha: float = param(0.05, "Family-wise error rate of the Kruskal-Wallis decisions.")
    family_by: str = param(
        "campaign", "What makes a family of comparisons (m, Bonferroni): campaign, benchmark, "
        "metric, unit, higher_is_better, hardware_type or settings.KEY (e.g. settings.kind).")
    ci_confidence: str | None = param(
        None, "Confidence of the median CIs, 0.95 or 95.  [default: 1 - alpha/m, family-wise]")
    ci_method: str = param("exact", "Median CI: exact binomial order statistics or Le Boudec's "
                           "normal approximation.", choices=("exact", "le-boudec"))
    correction: str = param("bonferroni", "Multiple-comparison correction of reject_adjusted "
                            "and of the family verdict.", choices=("bonferroni", "holm", "bh"))
    ordersage_compat: bool = param(
        False, "Reproduce the OrderSage tool's node_stats.csv numbers (eta^2 = H/(n-1), its CI "
        "indices and CI case rule, its failure handling, p <= alpha decisions).")
    family_sizes: tuple = param((), "(campaign, family, m) found by prepare.", internal=True)
    configurations: Any = param(None, "Configuration names found by prepare.", internal=True)


def query_params(params: OrderEffectsParams) -> dict[str, Any]:
    """Bound parameters of both queries (validates the user's options first)."""
    check_alpha(params.alpha)
    confidence_value(params.ci_confidence)
    return {**family_query_params(params.family_by),
            "ordersage_compat": bool(params.ordersage_compat)}


def prepare(table: pa.Table, params: Any) -> Any:
    families = size_families(table)
    return dataclasses.replace(params, family_sizes=families.sizes,
                               configurations=ConfigurationIndex(families.table))


# ------------------------------------------------------------ the computation
def compute(table: pa.Table, params: OrderEffectsParams) -> dict[str, pa.Table]:
    """One campaign's rows (row_key, grp, value) -> its order_effects rows."""
    labels, codes = label_codes(table, params)
    first_code = int(codes[0])  # the framework calls compute with rows only
    groups = table.column("grp").to_numpy()
    values = table.column("value").to_numpy()
    keep = ~np.isnan(values)
    if not keep.all():
        codes, groups, values = codes[keep], groups[keep], values[keep]
    result = compare_orders(
        codes, np.ascontiguousarray(groups, dtype=np.uint8), values, labels.num_rows,
        m=labels.column("m").to_numpy(), alpha=params.alpha,
        ci_confidence=confidence_value(params.ci_confidence), ci_method=params.ci_method,
        ordersage_compat=params.ordersage_compat)
    rows = (result["n_fixed"].to_numpy(zero_copy_only=False)
            + result["n_random"].to_numpy(zero_copy_only=False))
    start, stop = campaign_block(labels, first_code, rows)
    out = labels.select(["campaign", "hardware_type", "config_id", "benchmark", "settings",
                         "metric", "unit", "higher_is_better", "family", "m"])
    out = out.slice(start, stop - start)
    out = out.append_column("family_by", pa.array([params.family_by] * out.num_rows, pa.string()))
    for name, column in result.items():
        out = out.append_column(name, column.slice(start, stop - start))
    return {OUTPUT: out}


def label_codes(table: pa.Table, params: Any) -> tuple[pa.Table, np.ndarray]:
    """The configurations found by prepare, and each row's index among them.

    Rows carry ``row_key`` = hash(campaign, hardware type) XOR config_id; the
    numba hash coder is seeded with the configurations' keys, so a row's code is
    its configuration's row number. The keys of the configurations are distinct
    (checked) and every row's configuration is one of them (the first pass read
    the same files), so a row's key names its configuration exactly.
    """
    from perfwarehouse.kernels import order_effects as kernels

    index = params.configurations
    if not isinstance(index, ConfigurationIndex):
        raise AnalysisError("this job needs its prepare step (run it with run_job)")
    labels = index.table
    seeds = labels.column("row_key").to_numpy()
    rows = table.column("row_key").to_numpy()
    codes, first_row = kernels.dense_codes(rows, rows, seeds, seeds)
    if first_row.size != labels.num_rows:
        raise AnalysisError("the measurements changed while the job ran (a configuration "
                            "appeared that the first pass did not see); run it again")
    return labels, codes


def campaign_block(labels: pa.Table, code: int, rows: np.ndarray) -> tuple[int, int]:
    """The rows [start, stop) of the configurations of the campaign of configuration
    ``code`` (the prepare table is sorted by campaign); ``rows`` (values per
    configuration) must be zero outside."""
    campaign = labels.column("campaign")[code].as_py()
    block = np.flatnonzero(pc.equal(labels.column("campaign"), campaign).to_numpy(
        zero_copy_only=False))
    start, stop = int(block[0]), int(block[-1]) + 1
    if block.size != stop - start or rows[:start].any() or rows[stop:].any():
        raise AnalysisError("a partition of the order-effects jobs holds more than one campaign")
    return start, stop


def compare_orders(
    codes: np.ndarray, groups: np.ndarray, values: np.ndarray, n_configs: int, *,
    m: np.ndarray, alpha: float = 0.05, ci_confidence: float | None = None,
    ci_method: str = "exact", ordersage_compat: bool = False,
) -> dict[str, pa.Array]:
    """Fixed vs random order, every configuration at once (the pure function of the job).

    Parameters
    ----------
    codes:
        int32 configuration of each value, 0..n_configs-1.
    groups:
        uint8, 0 = fixed-order trial, 1 = random-order trial.
    values:
        float64 values (no NaN).
    m:
        int64[n_configs], the size of each configuration's family.
    alpha, ci_confidence, ci_method, ordersage_compat:
        as the job's options (``ci_confidence`` a fraction, None = 1 - alpha/m).

    Returns
    -------
    Arrow columns of the order_effects table (everything but the names), one
    row per configuration, in code order.
    """
    from scipy import special

    from perfwarehouse.kernels import order_effects as kernels

    codes = np.ascontiguousarray(codes, dtype=np.int32)
    values = np.ascontiguousarray(values, dtype=np.float64)
    counts, rank_sum, tie_term, total, by_group, group_offsets = kernels.two_group_ranks(
        codes, groups, values, n_configs)
    n_f, n_r = counts[:, 0], counts[:, 1]
    n = n_f + n_r
    compared = (n_f > 0) & (n_r > 0)
    m = np.asarray(m, dtype=np.int64)

    with np.errstate(divide="ignore", invalid="ignore"):
        # Kruskal-Wallis, scipy's operations in scipy's order (k = 2)
        ssbn = rank_sum[:, 0] ** 2 / n_f + rank_sum[:, 1] ** 2 / n_r
        h = 12.0 / (n * (n + 1)) * ssbn - 3 * (n + 1)
        tie_correction = 1 - tie_term / cube_minus(n)
        all_tied = compared & (tie_correction == 0)
        h = np.where(compared & ~all_tied, h / tie_correction, np.nan)
        p = special.chdtrc(1.0, h)
        mean_f, mean_r = total[:, 0] / n_f, total[:, 1] / n_r
        if ordersage_compat:
            eta2 = (h - 1 + 1) / (n - 1)  # toolstats' (H - k + 1)/(n - k) with k = 1
        else:
            eta2 = np.where(n > 2, (h - 1) / (n - 2), np.nan)
        delta = _percent_change(mean_f, mean_r)

    median_f = _median(by_group, group_offsets[:, 0], n_f)
    median_r = _median(by_group, group_offsets[:, 1], n_r)
    confidence = (np.full(n_configs, ci_confidence) if ci_confidence is not None
                  else 1.0 - alpha / np.maximum(m, 1))
    method = "ordersage" if ordersage_compat else ci_method
    ci_f = _median_cis(by_group, group_offsets[:, 0], n_f, confidence, method)
    ci_r = _median_cis(by_group, group_offsets[:, 1], n_r, confidence, method)
    if ordersage_compat:
        case, inner = _ordersage_ci_case(median_f, ci_f, median_r, ci_r)
        reject_alpha = p <= alpha  # OrderSage: 'same' if p > 0.05 else 'different'
    else:
        case, inner = _ci_case(median_f, ci_f, median_r, ci_r), None
        reject_alpha = p < alpha
    with np.errstate(invalid="ignore"):
        reject_bonferroni = p < alpha / np.maximum(m, 1)
    valid_p = ~np.isnan(p)
    reject_alpha = np.where(valid_p, reject_alpha, False)
    reject_bonferroni = np.where(valid_p, reject_bonferroni, False)

    columns: dict[str, pa.Array] = {
        "n_fixed": pa.array(n_f, pa.int64()),
        "n_random": pa.array(n_r, pa.int64()),
        "mean_fixed": _nullable(mean_f),
        "mean_random": _nullable(mean_r),
        "kw_h": _nullable(h),
        "kw_df": pa.array(np.ones(n_configs, np.int64), mask=~compared),
        "kw_p": _nullable(p),
        "all_tied": pa.array(all_tied),
        "small_sample": pa.array(compared & ((n_f < 5) | (n_r < 5))),
        "alpha": pa.array(np.full(n_configs, alpha)),
        "reject_alpha": pa.array(np.where(compared, reject_alpha, False)),
        "reject_bonferroni": pa.array(np.where(compared, reject_bonferroni, False)),
        "eta2": _nullable(eta2),
        "delta_pct": _nullable(delta),
        "delta_median_pct": _nullable(_percent_change(median_f, median_r)),
        "median_fixed": _nullable(median_f),
        "median_random": _nullable(median_r),
        "ci_method": pa.array([method] * n_configs, pa.string()),
        "ci_confidence": pa.array(confidence),
        "ci_fixed_low": _nullable(ci_f["low"]),
        "ci_fixed_high": _nullable(ci_f["high"]),
        "ci_fixed_coverage": _nullable(ci_f["coverage"]),
        "ci_fixed_n_required": _nullable_int(ci_f["n_required"]),
        "ci_random_low": _nullable(ci_r["low"]),
        "ci_random_high": _nullable(ci_r["high"]),
        "ci_random_coverage": _nullable(ci_r["coverage"]),
        "ci_random_n_required": _nullable_int(ci_r["n_required"]),
        "ci_case": _nullable_int(case),
        "ordersage_compat": pa.array(np.full(n_configs, bool(ordersage_compat))),
    }
    if ordersage_compat:
        # by_group holds each configuration's fixed then random values: segments in counts order
        cv = _population_cv(by_group, counts.ravel(), np.column_stack([mean_f, mean_r]).ravel())
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_all = (total[:, 0] + total[:, 1]) / n
        columns["cv_fixed"] = _nullable(cv[0::2])
        columns["cv_random"] = _nullable(cv[1::2])
        columns["cv_all"] = _nullable(_population_cv(by_group, n, mean_all))
        columns["inner_diff"] = _nullable(inner)
    return columns


def cube_minus(n: np.ndarray) -> np.ndarray:
    """n^3 - n as float64, as scipy gets it from Python integers (exact below 2^21, where
    int64 cannot overflow; beyond, float arithmetic)."""
    n = np.asarray(n, dtype=np.int64)
    small = n < 2**21
    out = np.empty(n.shape)
    out[small] = n[small] ** 3 - n[small]
    big = n[~small].astype(np.float64)
    out[~small] = big**3 - big
    return out


def _percent_change(fixed: np.ndarray, random: np.ndarray) -> np.ndarray:
    """(fixed - random)/fixed x 100; NaN where fixed is 0 or missing."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (fixed - random) / fixed * 100
    return np.where(np.isfinite(out), out, np.nan)


def _median(by_group: np.ndarray, start: np.ndarray, n: np.ndarray) -> np.ndarray:
    """numpy's median of each sorted segment (mean of the two middle values); NaN if empty."""
    ok = n > 0
    lo = np.where(ok, start + (n - 1) // 2, 0)
    hi = np.where(ok, start + n // 2, 0)
    if by_group.size == 0:
        return np.full(n.size, np.nan)
    return np.where(ok, (by_group[lo] + by_group[hi]) / 2, np.nan)


def _median_cis(by_group: np.ndarray, start: np.ndarray, n: np.ndarray, confidence: np.ndarray,
                method: str) -> dict[str, np.ndarray]:
    """Median CI of each sorted segment: low, high, coverage, n_required (vectorised).

    Index functions are evaluated once per distinct (n, confidence).
    """
    from perfwarehouse.stats.order_statistics import _n_required_le_boudec, n_required_median

    size = n.size
    low_index = np.zeros(size, np.int64)  # 1-based, 0 = no interval
    high_index = np.zeros(size, np.int64)
    coverage = np.full(size, np.nan)
    n_required = np.full(size, -1, np.int64)
    for conf in np.unique(confidence):
        rows = np.flatnonzero((confidence == conf) & (n > 0))
        if rows.size == 0:
            continue
        distinct, inverse = np.unique(n[rows], return_inverse=True)
        lo, hi, cov = _interval_indices(distinct, float(conf), method)
        low_index[rows], high_index[rows], coverage[rows] = lo[inverse], hi[inverse], cov[inverse]
        missing = rows[low_index[rows] == 0]
        if missing.size:
            n_required[missing] = (n_required_median(float(conf)) if method == "exact"
                                   else _n_required_le_boudec(float(conf)))
    has = low_index > 0
    if by_group.size == 0:
        has[:] = False
    lo_pos = np.where(has, start + low_index - 1, 0)
    hi_pos = np.where(has, start + high_index - 1, 0)
    values = by_group if by_group.size else np.zeros(1)
    return {
        "low": np.where(has, values[lo_pos], np.nan),
        "high": np.where(has, values[hi_pos], np.nan),
        "coverage": coverage,
        "n_required": n_required,
    }


def _interval_indices(n: np.ndarray, confidence: float, method: str
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """1-based (low, high) order statistics of the median's interval and its coverage.

    ``exact``: [x(j), x(n-j+1)], largest j with binomial coverage >= confidence.
    ``le-boudec``: Le Boudec's j = floor(n/2 - z sqrt(n)/2), k = ceil(n/2 + 1 +
    z sqrt(n)/2); none when outside 1..n. ``ordersage``: OrderSage's get_ci, whose
    0-based ranks max(floor(n/2 - z sqrt(n/4)), 0) and min(ceil(n/2 + z sqrt(n/4))
    + 1, n - 1) are Le Boudec's 1-based indices used as 0-based ones, clipped.
    """
    from scipy import stats as sps

    from perfwarehouse.stats.order_statistics import le_boudec_indices, median_interval_index

    if method == "exact":
        j, coverage = median_interval_index(n, confidence)
        return j, np.where(j > 0, n - j + 1, 0), coverage
    if method == "le-boudec":
        j, k = le_boudec_indices(n, confidence)
        ok = (j >= 1) & (k <= n)
        coverage = sps.binom.cdf(k - 1, n, 0.5) - sps.binom.cdf(j - 1, n, 0.5)
        best = 1.0 - 2.0 * 0.5 ** n.astype(np.float64)
        return np.where(ok, j, 0), np.where(ok, k, 0), np.where(ok, coverage, best)
    if method == "ordersage":
        p = 0.5
        eta = sps.norm.ppf((1 + confidence) / 2.0)
        nf = n.astype(np.float64)
        lo = np.maximum(np.floor(nf * p - eta * np.sqrt(nf * p * (1 - p))).astype(np.int64), 0)
        hi = np.minimum(np.ceil(nf * p + eta * np.sqrt(nf * p * (1 - p))).astype(np.int64) + 1,
                        n - 1)
        coverage = sps.binom.cdf(hi, n, 0.5) - sps.binom.cdf(lo, n, 0.5)
        return lo + 1, hi + 1, coverage
    raise ValueError(f"unknown CI method {method!r}")


def _ci_case(median_f: np.ndarray, ci_f: dict[str, np.ndarray], median_r: np.ndarray,
             ci_r: dict[str, np.ndarray]) -> np.ndarray:
    """SPEC 5.1 / seed 000 Algorithm 2 text: 1 disjoint, 2 a median strictly inside the
    other interval, 3 otherwise; -1 (NULL) without both intervals."""
    f_lo, f_hi, r_lo, r_hi = ci_f["low"], ci_f["high"], ci_r["low"], ci_r["high"]
    with np.errstate(invalid="ignore"):
        disjoint = (f_lo > r_hi) | (f_hi < r_lo)
        inside = ((f_lo < median_r) & (median_r < f_hi)) | ((r_lo < median_f) & (median_f < r_hi))
    case = np.where(disjoint, 1, np.where(inside, 2, 3))
    defined = ~(np.isnan(f_lo) | np.isnan(r_lo))
    return np.where(defined, case, -1)


def _ordersage_ci_case(median_f: np.ndarray, ci_f: dict[str, np.ndarray], median_r: np.ndarray,
                       ci_r: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """OrderSage's toolstats CI_fixed_vs_random case rule and its inner_diff."""
    f_lo, f_hi, r_lo, r_hi = ci_f["low"], ci_f["high"], ci_r["low"], ci_r["high"]
    f_m, r_m = median_f, median_r
    with np.errstate(invalid="ignore"):
        upper = r_hi > f_hi
        inner = np.where(upper, r_lo - f_hi, f_lo - r_hi)
        median_in = np.where(upper, (f_m >= r_lo) | (r_m <= f_hi), (r_m > f_lo) | (f_m < r_hi))
        case = np.where(inner > 0, 1, np.where(median_in, 2, 3))
    defined = ~(np.isnan(f_lo) | np.isnan(r_lo))
    return np.where(defined, case, -1), np.where(defined & (case == 1), inner, np.nan)


def _population_cv(values: np.ndarray, sizes: np.ndarray, means: np.ndarray) -> np.ndarray:
    """sd/mean with the population sd (``scipy.stats.variation``) of consecutive segments of
    ``values`` (sizes ``sizes``), rounded to 3 decimals as OrderSage prints it; NaN if empty."""
    segment = np.repeat(np.arange(sizes.size), sizes)
    deviation = values - means[segment]
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = np.bincount(segment, weights=deviation * deviation, minlength=sizes.size) / sizes
        return np.round(np.sqrt(variance) / means, 3)


def _nullable(values: np.ndarray) -> pa.Array:
    values = np.asarray(values, dtype=np.float64)
    return pa.array(values, mask=np.isnan(values))


def _nullable_int(values: np.ndarray) -> pa.Array:
    values = np.asarray(values, dtype=np.int64)
    return pa.array(values, mask=values < 0)


# ------------------------------------------------------------- across campaigns
def finalize(tables: dict[str, pa.Table], params: OrderEffectsParams) -> dict[str, pa.Table]:
    """Adjusted p-values per family (Bonferroni, Holm or Benjamini-Hochberg) and the
    family verdict of Algorithm 1; rows sorted by their names."""
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return tables
    table = table.sort_by([("campaign", "ascending"), ("family", "ascending"),
                           ("hardware_type", "ascending"), ("benchmark", "ascending"),
                           ("settings", "ascending"), ("metric", "ascending")])
    p = table.column("kw_p").to_numpy(zero_copy_only=False).astype(np.float64)
    compared = (table.column("n_fixed").to_numpy() > 0) & (table.column("n_random").to_numpy() > 0)
    keys = pc.binary_join_element_wise(table.column("campaign"), table.column("family"), "\x1f")
    family = pc.dictionary_encode(keys).combine_chunks().indices.to_numpy(zero_copy_only=False)
    adjusted = adjust_pvalues(p, compared, family, params.correction)
    alpha = params.alpha
    with np.errstate(invalid="ignore"):
        if params.correction == "bonferroni":
            reject = table.column("reject_bonferroni").to_numpy(zero_copy_only=False)
        else:
            reject = np.where(np.isnan(adjusted), False, adjusted < alpha)
    reject = np.asarray(reject, dtype=bool)
    any_reject = np.bincount(family, weights=reject.astype(np.float64)) > 0
    table = table.append_column("correction", pa.array([params.correction] * table.num_rows))
    table = table.append_column("p_adjusted", _nullable(adjusted))
    table = table.append_column("reject_adjusted", pa.array(reject))
    table = table.append_column("order_matters", pa.array(any_reject[family]))
    return {**tables, OUTPUT: table}


# ------------------------------------------------------------------ summary
def summarize(tables: dict[str, pa.Table], params: OrderEffectsParams) -> list[str]:
    """Per family: configurations compared, rejections at alpha/m, verdict, largest effects."""
    table = tables.get(OUTPUT)
    if table is None or table.num_rows == 0:
        return ["order-effects: no configuration has both fixed- and random-order trials"]
    rows = table.to_pylist()
    lines: list[str] = []
    families: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        families.setdefault((row["campaign"], row["family"]), []).append(row)
    for (campaign, family), members in families.items():
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


def family_label(campaign: str, family: str, family_by: str) -> str:
    return campaign if family_by == "campaign" else f"{campaign} [{family_by}={family}]"


def describe(row: dict[str, Any], prefix: str = "") -> str:
    """benchmark [settings] [metric] of a result row, without the empty parts."""
    settings = row[f"{prefix}settings"]
    metric = row.get(f"{prefix}metric", "result")
    return (f"{row[f'{prefix}benchmark']}"
            + ("" if settings in (None, "{}") else f" {settings}")
            + ("" if metric in (None, "result") else f" {metric}"))


JOB = Job(
    name="order-effects",
    help="Does trial order change the results? Kruskal-Wallis fixed vs random order per "
         "configuration and hardware type, Bonferroni per family, median CIs and CI cases "
         "(OrderSage, seed 000 sections 3 and 5). Writes the order_effects table.",
    params=OrderEffectsParams,
    query="order_effects",
    compute=compute,
    outputs=(OUTPUT,),
    finalize=finalize,
    summarize=summarize,
    partition_by=("campaign",),
    query_params=query_params,
    prepare_query="order_effects_configurations",
    prepare=prepare,
)


def adjust_pvalues(p: np.ndarray, compared: np.ndarray, family: np.ndarray,
                   method: str) -> np.ndarray:
    """:func:`perfwarehouse.stats.corrections.adjust_pvalues` (imported on use: the
    ``perfwarehouse.stats`` package loads scipy)."""
    from perfwarehouse.stats.corrections import adjust_pvalues as adjust

    return adjust(p, compared, family, method)
