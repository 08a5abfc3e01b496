"""Slow, obvious twins of perfwarehouse.loadtest: loops over every point, exact binomial
sums with fractions, no vectorisation."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction
from math import comb


def mean_ci(xs: list[float], t_quantile: float) -> tuple[float, float, float]:
    """(mean, low, high) with the given critical value, by the textbook formula."""
    m = statistics.fmean(xs)
    sd = statistics.stdev(xs)
    half = t_quantile * sd / math.sqrt(len(xs))
    return m, m - half, m + half


def accuracy(low: float, high: float) -> float:
    """Equation 2 of Shivam et al.: 1 - (high - low)/(high + low)."""
    return 1.0 - (high - low) / (high + low)


def quantile_rank_indices(n: int, p: float, confidence: float) -> tuple[int, int]:
    """Equal-tailed pair (j, k): j the largest index with P(B <= j - 1) <= (1 - C)/2 and
    k the smallest with P(B >= k) <= (1 - C)/2, B ~ Bin(n, p); (0, 0) if none exists.
    For p = 1/2 the symmetric pair with P(j <= B <= n - j) >= C."""
    pf = Fraction(p)
    pmf = [comb(n, i) * pf**i * (1 - pf) ** (n - i) for i in range(n + 1)]
    if p == 0.5:
        best = 0
        for j in range(1, (n + 1) // 2 + 1):
            if sum(pmf[j:n - j + 1]) >= Fraction(confidence):
                best = j
        return (best, n - best + 1) if best else (0, 0)
    tail = (1 - Fraction(confidence)) / 2
    j = 0
    for cand in range(1, n + 1):
        if sum(pmf[:cand]) <= tail:
            j = cand
    k = 0
    for cand in range(n, 0, -1):
        if sum(pmf[cand:]) <= tail:
            k = cand
    if j == 0 or k == 0 or j > k:
        return 0, 0
    return j, k


def region(low: float, high: float, r_sat: float, s: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return "unknown"
    if high < r_sat - s * r_sat:
        return "below"
    if low > r_sat + s * r_sat:
        return "above"
    return "overlap"


def pooled_quantile_ci(hists: list[tuple[list[int], list[float]]], weights: list[float],
                       p: float, t_quantile: float, low_ms: float, per_decade: float
                       ) -> tuple[float, float, float]:
    """Pooled p-quantile of grid histograms and its Woodruff CI, with dicts and loops.

    The cumulative weight reaches a target within a relative ``REACHED`` of the total, as
    in the kernel (the definition: when p x n is a whole number of samples the cumulative
    reaches it exactly at a bucket's end, and rounding must not move it past empty
    buckets); the in-bucket fraction is clipped to [0, 1]."""
    from perfwarehouse.kernels.latency import REACHED

    pooled: dict[int, float] = {}
    total = sum(weights)
    norm = [sum(f) for _i, f in hists]
    for (idx, frac), w, s in zip(hists, weights, norm):
        for i, f in zip(idx, frac):
            pooled[i] = pooled.get(i, 0.0) + w * f / s
    keys = sorted(pooled)

    def locate(target: float) -> tuple[int, float]:
        c = 0.0
        for i in keys:
            m = pooled[i]
            if m > 0 and c + m >= target - REACHED * total:
                return i, min(1.0, max(0.0, (target - c) / m))
            c += m
        return keys[-1], 1.0

    def value(bf: tuple[int, float]) -> float:
        return low_ms * 10.0 ** ((bf[0] + bf[1]) / per_decade)

    xb, xf = locate(p * total)
    point = value((xb, xf))
    k = len(hists)
    if k < 2:
        return point, math.nan, math.nan
    cdfs = []
    for (idx, frac), s in zip(hists, norm):
        c = sum(f for i, f in zip(idx, frac) if i < xb)
        c += sum(xf * f for i, f in zip(idx, frac) if i == xb)
        cdfs.append(c / s)
    fbar = sum(w * c for w, c in zip(weights, cdfs)) / total
    var = k / (k - 1) * sum((w / total * (c - fbar)) ** 2 for w, c in zip(weights, cdfs))
    half = t_quantile * math.sqrt(var)
    lo = value(locate(max(0.0, fbar - half) * total))
    hi = value(locate(min(1.0, fbar + half) * total))
    return point, lo, hi


def closed_law_residual(clients: float, think_s: float, throughput: float, mean_ms: float) -> float:
    """X (R + Z) / N - 1."""
    return throughput * (mean_ms / 1000.0 + think_s) / clients - 1.0


def load_curve(rows: list[dict], confidence: float, tolerance: float,
               n_buckets: int, low_ms: float, per_decade: float) -> dict[tuple, dict]:
    """The load curve the straightforward way: a dict of groups, a loop over them, numpy
    and scipy inside each (t CIs, law checks, pooled percentiles with Woodruff CIs on a
    dense grid). ``rows``: one dict per trial with the columns of load_trials.sql."""
    import json

    import numpy as np
    from scipy import stats as sps

    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        s = json.loads(r["settings"])
        loop = s.get("loop")
        key_name = {"closed": "clients", "open": "rate_rps"}.get(loop)
        if key_name is None or s.get(key_name) is None:
            continue
        fam = json.dumps({k: v for k, v in s.items() if k != key_name}, sort_keys=True,
                         separators=(",", ":"))
        r = dict(r, _loop=loop, _s=s)
        groups.setdefault((r["campaign"], r["hardware_type"], r["benchmark"], fam, loop,
                           float(s[key_name])), []).append(r)
    out = {}
    q = (1 + confidence) / 2
    for key, trials in groups.items():
        res = []
        for r in trials:  # the operational laws, one trial at a time
            s = r["_s"]
            x, mean = r.get("throughput"), r.get("mean_ms")
            if r["_loop"] == "closed":
                if x is None or mean is None:
                    res.append(None)
                    continue
                res.append(x * (mean / 1000 + (s.get("think_time_s") or 0.0))
                           / (s["clients"] * (s.get("outstanding") or 1)) - 1)
            else:
                arrivals = r.get("arrival_rate") or s["rate_rps"]
                res.append(None if x is None else x / arrivals - 1)
        ok = [res_i is None or abs(res_i) <= tolerance for res_i in res]
        used = [t for t, o in zip(trials, ok) if o] or trials
        row: dict = {"n_trials": len(trials), "n_used": len(used) if any(ok) else len(trials),
                     "consistent": any(ok), "residuals": res}
        for name, col in (("throughput", "throughput"), ("mean_ms", "mean_ms")):
            v = np.array([t[col] for t in used if t.get(col) is not None], dtype=float)
            m = v.mean() if v.size else math.nan
            if v.size >= 2:
                half = sps.t.ppf(q, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size)
            else:
                half = math.nan
            row[name] = (m, m - half, m + half)
        hists = [t for t in used if t.get("hist_index") is not None and len(t["hist_index"])]
        if hists:
            weights = [t["hist_n"] if t["hist_n"] is not None else t.get("requests")
                       for t in hists]
            if any(w is None or (isinstance(w, float) and math.isnan(w)) for w in weights):
                weights = [1.0] * len(hists)
            tq = sps.t.ppf(q, len(hists) - 1) if len(hists) >= 2 else math.nan
            for name, p in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999)):
                row[name] = _dense_pooled(hists, weights, p, tq, n_buckets, low_ms, per_decade)
        out[key] = row
    return out


def _dense_pooled(hists: list[dict], weights: list[float], p: float, tq: float, n_buckets: int,
                  low_ms: float, per_decade: float) -> tuple[float, float, float]:
    import numpy as np

    from perfwarehouse.kernels.latency import REACHED  # "reaches", as pooled_quantile_ci

    dense = np.zeros((len(hists), n_buckets))
    for i, t in enumerate(hists):
        np.add.at(dense[i], np.asarray(t["hist_index"], dtype=int), t["hist_frac"])
        dense[i] /= dense[i].sum()
    w = np.asarray(weights, dtype=float)
    pooled = (w[:, None] * dense).sum(axis=0)
    total = w.sum()
    cum = np.cumsum(pooled)

    def locate(target: float) -> tuple[int, float]:
        nz = np.flatnonzero((cum >= target - REACHED * total) & (pooled > 0))
        b = int(nz[0]) if nz.size else int(np.flatnonzero(pooled > 0)[-1])
        before = cum[b] - pooled[b]
        f = min(1.0, max(0.0, (target - before) / pooled[b])) if nz.size else 1.0
        return b, f

    def value(b: int, f: float) -> float:
        return low_ms * 10.0 ** ((b + f) / per_decade)

    b, f = locate(p * total)
    point = value(b, f)
    if len(hists) < 2:
        return point, math.nan, math.nan
    cdf = dense[:, :b].sum(axis=1) + f * dense[:, b]
    fbar = (w * cdf).sum() / total
    var = len(hists) / (len(hists) - 1) * (((w / total) * (cdf - fbar)) ** 2).sum()
    half = tq * math.sqrt(var)
    return (point, value(*locate(max(0.0, fbar - half) * total)),
            value(*locate(min(1.0, fbar + half) * total)))
