"""Fixed vs random order, every configuration at once: the statistics of OrderSage.

Duplyakin, Ramesh, Imburgia et al., "Avoiding the Ordering Trap in Systems Performance
Measurement", USENIX ATC 2023, sections 3 and 5 (Algorithms 1 and 2):

* Kruskal-Wallis H with tie correction and its chi-square(1) p-value (the numbers of
  ``scipy.stats.kruskal``), ``reject_alpha`` = p < alpha and ``reject_bonferroni`` =
  p < alpha/m, m = configurations compared in the family (Algorithm 1 line 14);
* eta^2_H = (H - k + 1)/(n - k), k = 2 (Tomczak & Tomczak 2014);
* Delta% = (mean_fixed - mean_random)/mean_fixed x 100 (section 5.1.3) and the same
  with medians;
* each group's median with a distribution-free CI from order statistics (exact
  binomial, or Le Boudec's normal approximation) and the CI case of Algorithm 2.

Pure: arrays in, Arrow columns out. The sorting and counting run in the numba kernels of
:mod:`perfwarehouse.kernels.order_effects`; no Python loop per configuration.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from perfwarehouse.ordersage.parameters import DEFAULT_ALPHA, DEFAULT_CI_METHOD, check_ci_method
from perfwarehouse.ordersage.results import nullable, nullable_int


def compare_orders(
    codes: np.ndarray, groups: np.ndarray, values: np.ndarray, n_configs: int, *,
    m: np.ndarray, alpha: float = DEFAULT_ALPHA, ci_confidence: float | None = None,
    ci_method: str = DEFAULT_CI_METHOD, ordersage_compat: bool = False,
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
    from perfwarehouse.kernels import order_effects as kernels

    codes = np.ascontiguousarray(codes, dtype=np.int32)
    values = np.ascontiguousarray(values, dtype=np.float64)
    ranks = kernels.two_group_ranks(codes, groups, values, n_configs)
    return compare_ranked(ranks, m=m, alpha=alpha, ci_confidence=ci_confidence,
                          ci_method=ci_method, ordersage_compat=ordersage_compat)


def compare_ranked(
    ranks: tuple[np.ndarray, ...], *, m: np.ndarray, alpha: float = DEFAULT_ALPHA,
    ci_confidence: float | None = None, ci_method: str = DEFAULT_CI_METHOD,
    ordersage_compat: bool = False,
) -> dict[str, pa.Array]:
    """:func:`compare_orders` from the configurations' ranks: ``(counts, rank_sum,
    tie_term, total, by_group, group_offsets)`` of
    :func:`~perfwarehouse.kernels.pooled_ranks.two_group_ranks` (or of
    :func:`~perfwarehouse.kernels.order_rows.ranks_of_batches`, which the job uses)."""
    from scipy import special

    counts, rank_sum, tie_term, total, by_group, group_offsets = ranks
    n_configs = counts.shape[0]
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

    median_f = segment_medians(by_group, group_offsets[:, 0], n_f)
    median_r = segment_medians(by_group, group_offsets[:, 1], n_r)
    confidence = (np.full(n_configs, ci_confidence) if ci_confidence is not None
                  else 1.0 - alpha / np.maximum(m, 1))
    method = "ordersage" if ordersage_compat else ci_method
    ci_f = segment_median_cis(by_group, group_offsets[:, 0], n_f, confidence, method)
    ci_r = segment_median_cis(by_group, group_offsets[:, 1], n_r, confidence, method)
    if ordersage_compat:
        case, inner = _ordersage_ci_case(median_f, ci_f, median_r, ci_r)
        reject_alpha = p <= alpha  # OrderSage: 'same' if p > 0.05 else 'different'
    else:
        case, inner = ci_case(median_f, ci_f, median_r, ci_r), None
        reject_alpha = p < alpha
    with np.errstate(invalid="ignore"):
        reject_bonferroni = p < alpha / np.maximum(m, 1)
    valid_p = ~np.isnan(p)
    reject_alpha = np.where(valid_p, reject_alpha, False)
    reject_bonferroni = np.where(valid_p, reject_bonferroni, False)

    columns: dict[str, pa.Array] = {
        "n_fixed": pa.array(n_f, pa.int64()),
        "n_random": pa.array(n_r, pa.int64()),
        "mean_fixed": nullable(mean_f),
        "mean_random": nullable(mean_r),
        "kw_h": nullable(h),
        "kw_df": pa.array(np.ones(n_configs, np.int64), mask=~compared),
        "kw_p": nullable(p),
        "all_tied": pa.array(all_tied),
        "small_sample": pa.array(compared & ((n_f < 5) | (n_r < 5))),
        "alpha": pa.array(np.full(n_configs, alpha)),
        "reject_alpha": pa.array(np.where(compared, reject_alpha, False)),
        "reject_bonferroni": pa.array(np.where(compared, reject_bonferroni, False)),
        "eta2": nullable(eta2),
        "delta_pct": nullable(delta),
        "delta_median_pct": nullable(_percent_change(median_f, median_r)),
        "median_fixed": nullable(median_f),
        "median_random": nullable(median_r),
        "ci_method": pa.array([method] * n_configs, pa.string()),
        "ci_confidence": pa.array(confidence),
        "ci_fixed_low": nullable(ci_f["low"]),
        "ci_fixed_high": nullable(ci_f["high"]),
        "ci_fixed_coverage": nullable(ci_f["coverage"]),
        "ci_fixed_n_required": nullable_int(ci_f["n_required"]),
        "ci_random_low": nullable(ci_r["low"]),
        "ci_random_high": nullable(ci_r["high"]),
        "ci_random_coverage": nullable(ci_r["coverage"]),
        "ci_random_n_required": nullable_int(ci_r["n_required"]),
        "ci_case": nullable_int(case),
        "ordersage_compat": pa.array(np.full(n_configs, bool(ordersage_compat))),
    }
    if ordersage_compat:
        # by_group holds each configuration's fixed then random values: segments in counts order
        cv = _population_cv(by_group, counts.ravel(), np.column_stack([mean_f, mean_r]).ravel())
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_all = (total[:, 0] + total[:, 1]) / n
        columns["cv_fixed"] = nullable(cv[0::2])
        columns["cv_random"] = nullable(cv[1::2])
        columns["cv_all"] = nullable(_population_cv(by_group, n, mean_all))
        assert inner is not None  # the OrderSage CI case gives the inner distances
        columns["inner_diff"] = nullable(inner)
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


def segment_medians(by_group: np.ndarray, start: np.ndarray, n: np.ndarray) -> np.ndarray:
    """numpy's median of each sorted segment (mean of the two middle values); NaN if empty."""
    ok = n > 0
    lo = np.where(ok, start + (n - 1) // 2, 0)
    hi = np.where(ok, start + n // 2, 0)
    if by_group.size == 0:
        return np.full(n.size, np.nan)
    return np.where(ok, (by_group[lo] + by_group[hi]) / 2, np.nan)


def segment_median_cis(by_group: np.ndarray, start: np.ndarray, n: np.ndarray, confidence: np.ndarray,
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
        lo, hi, cov = interval_indices(distinct, float(conf), method)
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


def interval_indices(n: np.ndarray, confidence: float, method: str
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """1-based (low, high) order statistics of the median's interval and its coverage.

    ``exact``: [x(j), x(n-j+1)], largest j with binomial coverage >= confidence.
    ``le-boudec``: Le Boudec's j = floor(n/2 - z sqrt(n)/2), k = ceil(n/2 + 1 +
    z sqrt(n)/2); none when outside 1..n. ``ordersage``: OrderSage's get_ci, whose
    0-based ranks max(floor(n/2 - z sqrt(n/4)), 0) and min(ceil(n/2 + z sqrt(n/4))
    + 1, n - 1) are Le Boudec's 1-based indices used as 0-based ones, clipped.
    """
    from perfwarehouse.stats import binomial
    from perfwarehouse.stats.order_statistics import le_boudec_indices, median_interval_index

    check_ci_method(method)
    if method == "exact":
        j, coverage = median_interval_index(n, confidence)
        return j, np.where(j > 0, n - j + 1, 0), coverage
    if method == "le-boudec":
        j, k = le_boudec_indices(n, confidence)
        ok = (j >= 1) & (k <= n)
        coverage = binomial.cdf(k - 1, n, 0.5) - binomial.cdf(j - 1, n, 0.5)
        best = 1.0 - 2.0 * 0.5 ** n.astype(np.float64)
        return np.where(ok, j, 0), np.where(ok, k, 0), np.where(ok, coverage, best)
    if method == "ordersage":
        p = 0.5
        eta = binomial.norm_ppf((1 + confidence) / 2.0)
        nf = n.astype(np.float64)
        lo = np.maximum(np.floor(nf * p - eta * np.sqrt(nf * p * (1 - p))).astype(np.int64), 0)
        hi = np.minimum(np.ceil(nf * p + eta * np.sqrt(nf * p * (1 - p))).astype(np.int64) + 1,
                        n - 1)
        coverage = binomial.cdf(hi, n, 0.5) - binomial.cdf(lo, n, 0.5)
        return lo + 1, hi + 1, coverage
    raise AssertionError(f"unhandled CI method {method!r}")


def ci_case(median_f: np.ndarray, ci_f: dict[str, np.ndarray], median_r: np.ndarray,
             ci_r: dict[str, np.ndarray]) -> np.ndarray:
    """The CI case of Duplyakin et al. (OrderSage, USENIX ATC 2023), Algorithm 2 and the text after it: 1 disjoint, 2 a median strictly inside the
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


