"""numba kernel: pooled latency percentiles of groups of trials, with Woodruff CIs.

Trials come sorted by group (``group_starts``: G + 1 offsets); each trial's
histogram is a slice ``[hist_start, hist_end)`` of the flat, per-trial sorted grid
indices and fractions (see :mod:`perfwarehouse.loadtest.histograms`; an empty slice
means the trial has none). A group's pooled distribution is the ``weight``-weighted
sum of its trials' normalised histograms; percentile p is located where the pooled
cumulative weight reaches p (log-linear inside a bucket). Its CI (Woodruff 1952)
inverts ``F(x_p) -+ q se``, where F_i(x_p) is each trial's CDF at the estimate, se the
linearised standard error of the ratio sum(w F_i)/sum(w) over the k trials
(k/(k-1) sum((w_i/W)^2 (F_i - F)^2)) and q = ``qtab[k]`` (Student's t, k - 1 degrees of
freedom, from the caller). Groups with fewer than two histograms get no CI (NaN).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: relative tolerance within which a cumulative weight reaches a percentile's target
REACHED = 1e-9


@njit(cache=True)
def _locate(acc: np.ndarray, lo: int, hi: int, target: float, tol: float) -> tuple[int, float]:
    """Bucket and in-bucket fraction where the cumulative of ``acc[lo..hi]`` reaches target
    (within ``tol``: when p x n is a whole number of samples the cumulative reaches the
    target exactly at a bucket's end, and rounding must not move it past empty buckets)."""
    c = 0.0
    for i in range(lo, hi + 1):
        m = acc[i]
        if m > 0.0 and c + m >= target - tol:
            f = min(1.0, max(0.0, (target - c) / m))
            return i, f
        c += m
    return hi, 1.0


@njit(cache=True)
def pooled_quantiles(group_starts: np.ndarray, hist_start: np.ndarray, hist_end: np.ndarray,
                     flat_index: np.ndarray, flat_frac: np.ndarray, weight: np.ndarray,
                     ps: np.ndarray, qtab: np.ndarray, n_buckets: int, low_ms: float,
                     per_decade: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(point, low, high) of shape (G, len(ps)) in ms, and the number of histograms per group."""
    n_groups = group_starts.size - 1
    n_p = ps.size
    point = np.full((n_groups, n_p), np.nan)
    low = np.full((n_groups, n_p), np.nan)
    high = np.full((n_groups, n_p), np.nan)
    n_hist = np.zeros(n_groups, dtype=np.int64)
    acc = np.zeros(n_buckets)
    max_trials = 0
    for g in range(n_groups):
        max_trials = max(max_trials, group_starts[g + 1] - group_starts[g])
    f_i = np.empty(max_trials)
    w_i = np.empty(max_trials)
    norm_i = np.empty(max_trials)
    t_i = np.empty(max_trials, dtype=np.int64)
    for g in range(n_groups):
        a, b = group_starts[g], group_starts[g + 1]
        lo_b, hi_b = n_buckets, -1
        total = 0.0
        k = 0
        for t in range(a, b):
            s, e = hist_start[t], hist_end[t]
            if e <= s:
                continue
            norm = 0.0
            for j in range(s, e):
                norm += flat_frac[j]
            if norm <= 0.0:
                continue
            w = weight[t]
            for j in range(s, e):
                i = flat_index[j]
                acc[i] += w * flat_frac[j] / norm
                if i < lo_b:
                    lo_b = i
                if i > hi_b:
                    hi_b = i
            t_i[k] = t
            w_i[k] = w
            norm_i[k] = norm
            total += w
            k += 1
        n_hist[g] = k
        if k == 0 or total <= 0.0:
            continue
        for pi in range(n_p):
            xb, xf = _locate(acc, lo_b, hi_b, ps[pi] * total, REACHED * total)
            point[g, pi] = low_ms * 10.0 ** ((xb + xf) / per_decade)
            if k < 2:
                continue
            fbar = 0.0
            for r in range(k):
                t = t_i[r]
                c = 0.0
                for j in range(hist_start[t], hist_end[t]):
                    i = flat_index[j]
                    if i < xb:
                        c += flat_frac[j]
                    elif i == xb:
                        c += xf * flat_frac[j]
                    else:
                        break
                f_i[r] = c / norm_i[r]
                fbar += w_i[r] * f_i[r]
            fbar /= total
            var = 0.0
            for r in range(k):
                d = w_i[r] / total * (f_i[r] - fbar)
                var += d * d
            var *= k / (k - 1.0)
            half = qtab[k] * np.sqrt(var)
            p_lo = max(0.0, fbar - half)
            p_hi = min(1.0, fbar + half)
            lb, lf = _locate(acc, lo_b, hi_b, p_lo * total, REACHED * total)
            hb, hf = _locate(acc, lo_b, hi_b, p_hi * total, REACHED * total)
            low[g, pi] = low_ms * 10.0 ** ((lb + lf) / per_decade)
            high[g, pi] = low_ms * 10.0 ** ((hb + hf) / per_decade)
        for i in range(lo_b, hi_b + 1):
            acc[i] = 0.0
    return point, low, high, n_hist
