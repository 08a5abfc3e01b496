"""Latency distributions of load-test trials on one log-bucket grid, pooled across trials.

A load generator reports a trial's latency distribution in one of three shapes, all
accepted as the ``latency`` key of a native trial-log record (the ``throughput``
record of the trial; see ``perfwarehouse/ingest/formats/records.py``):

* ``{"unit": "ms", "samples": [...]}``: one latency per request (JMeter, Locust);
* ``{"unit": "ms", "percentiles": [[q, value], ...], "count": n}``: a percentile
  spectrum, q in [0, 100] (wrk ``--latency``, the HdrHistogram spectrum of wrk2, k6);
* ``{"unit": "ms", "buckets": [[upper, count], ...]}``: a histogram, ``count``
  requests with latency in (previous upper, upper].

``unit`` is one of ``ns``, ``us``, ``ms`` (default), ``s``; optional ``count`` (requests
behind the distribution) and ``mean`` (ms, exact when the tool knows it).

Each is stored as the fraction of requests in each bucket of one fixed grid: bucket i
covers ``[LOW_MS 10^(i/PER_DECADE), LOW_MS 10^((i+1)/PER_DECADE))`` ms, 200 buckets a
decade (1.16 % wide, like an HdrHistogram with two significant digits) from 1 us to
1000 s; values below go to bucket 0, above to the last one. Only non-empty buckets are
kept (sparse, sorted bucket indices and fractions). A spectrum's mass between two of
its points is spread evenly over the buckets between them (in log scale); the mass
at or below its first point sits in that point's bucket, and what lies above its last
point (a spectrum ending below 100) in the last point's bucket: a coarse spectrum
(wrk's four percentiles) gives exact percentiles at its own points only.

Pooling trials means adding their distributions, each weighted by its number of
requests (the distribution's ``count``, else the trial's ``requests`` metric; equal
weights in a level where some trial has neither): the pooled percentiles
are those of all requests of the load level, not averages of per-trial percentiles.
Their confidence interval treats the trial as the independent unit (requests within
a trial are correlated): Woodruff's method (R. S. Woodruff, "Confidence intervals for
medians and other position measures", Journal of the American Statistical
Association 47(260), 1952) inverts the CI of the pooled CDF at the estimated
percentile, whose standard error is that of a ratio of means over trials (the
cluster-sampling linearisation), with Student's t at n_trials - 1 degrees of freedom.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

LOW_MS = 1e-3
PER_DECADE = 200
DECADES = 9
N_BUCKETS = PER_DECADE * DECADES
UNITS_TO_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}
KINDS = ("samples", "percentiles", "buckets")


@dataclass(frozen=True)
class Histogram:
    """One trial's latency distribution on the grid: sorted ``index`` (uint16) and the
    fraction of requests in each (``frac``, summing to 1); ``n`` requests (None when
    unknown), ``mean_ms``/``min_ms``/``max_ms`` when the source knows them."""

    kind: str
    index: np.ndarray
    frac: np.ndarray
    n: float | None
    mean_ms: float | None
    min_ms: float | None
    max_ms: float | None


def bucket_of(values_ms: np.ndarray) -> np.ndarray:
    """Grid bucket of each latency (ms); non-positive values go to bucket 0."""
    v = np.asarray(values_ms, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pos = np.floor(np.log10(np.maximum(v, LOW_MS * 1e-3) / LOW_MS) * PER_DECADE)
    return np.clip(pos, 0, N_BUCKETS - 1).astype(np.int64)


def bucket_low_ms(index: np.ndarray | int) -> np.ndarray:
    """Lower edge (ms) of grid bucket ``index``."""
    return LOW_MS * 10.0 ** (np.asarray(index, dtype=np.float64) / PER_DECADE)


def _numbers(value: Any, what: str) -> np.ndarray:
    if not isinstance(value, list) or not value:
        raise ValueError(f"latency.{what} must be a non-empty list")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"latency.{what} must hold numbers") from None
    if not np.isfinite(arr).all():
        raise ValueError(f"latency.{what} holds a non-finite number")
    if (arr < 0).any():
        raise ValueError(f"latency.{what} holds a negative number")
    return arr


def _pairs(value: Any, what: str) -> np.ndarray:
    arr = _numbers(value, what)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"latency.{what} must be a list of [x, y] pairs")
    return arr


def _spread(index_from: np.ndarray, index_to: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """Dense grid with each ``mass`` spread evenly over buckets (from, to] (or ``to``
    alone when from >= to)."""
    dense = np.zeros(N_BUCKETS)
    for a, b, m in zip(index_from.tolist(), index_to.tolist(), mass.tolist()):
        if m <= 0:
            continue
        if b <= a:
            dense[b] += m
        else:
            dense[a + 1: b + 1] += m / (b - a)
    return dense


def from_latency(latency: Any) -> Histogram:
    """The grid histogram of a record's ``latency`` value; ``ValueError`` saying what is
    wrong when it is not one of the three shapes of the module docstring."""
    if not isinstance(latency, dict):
        raise ValueError("latency must be an object with samples, percentiles or buckets")
    kinds = [k for k in KINDS if k in latency]
    if len(kinds) != 1:
        raise ValueError("latency must have exactly one of samples, percentiles, buckets")
    kind = kinds[0]
    unit = latency.get("unit", "ms")
    if unit not in UNITS_TO_MS:
        raise ValueError(f"latency.unit is {unit!r}; expected one of ns, us, ms, s")
    scale = UNITS_TO_MS[unit]
    count = latency.get("count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, (int, float))
                              or not count > 0 or not math.isfinite(count)):
        raise ValueError("latency.count must be a positive number")
    mean = latency.get("mean")
    if mean is not None and (isinstance(mean, bool) or not isinstance(mean, (int, float))
                             or not math.isfinite(mean) or mean < 0):
        raise ValueError("latency.mean must be a number >= 0")
    mean_ms = None if mean is None else float(mean) * scale
    n: float | None
    if kind == "samples":
        values = _numbers(latency["samples"], "samples") * scale
        if values.ndim != 1:
            raise ValueError("latency.samples must be a flat list of numbers")
        dense = np.bincount(bucket_of(values), minlength=N_BUCKETS).astype(np.float64)
        n = float(values.size)
        return _sparse(kind, dense, n, float(values.mean()), float(values.min()),
                       float(values.max()))
    if kind == "percentiles":
        pts = _pairs(latency["percentiles"], "percentiles")
        q, v = pts[:, 0], pts[:, 1] * scale
        order = np.argsort(q, kind="stable")
        q, v = q[order], v[order]
        if (q > 100).any():
            raise ValueError("latency.percentiles: a percentile above 100")
        if (np.diff(v) < 0).any():
            raise ValueError("latency.percentiles: latency decreases as the percentile grows")
        idx = bucket_of(v)
        mass = np.diff(q, prepend=0.0) / 100.0
        dense = _spread(np.concatenate([[idx[0]], idx[:-1]]), idx, mass)
        dense[idx[-1]] += max(0.0, 1.0 - q[-1] / 100.0)
        n = None if count is None else float(count)
        low = float(v[0]) if q[0] == 0 else None
        high = float(v[-1]) if q[-1] >= 100 else None
        return _sparse(kind, dense, n, mean_ms, low, high)
    pts = _pairs(latency["buckets"], "buckets")
    order = np.argsort(pts[:, 0], kind="stable")
    upper, counts = pts[order, 0] * scale, pts[order, 1]
    if counts.sum() <= 0:
        raise ValueError("latency.buckets hold no requests")
    idx = bucket_of(upper)
    dense = _spread(np.concatenate([[idx[0]], idx[:-1]]), idx, counts)
    n = float(counts.sum()) if count is None else float(count)
    return _sparse(kind, dense, n, mean_ms, None, None)


def _sparse(kind: str, dense: np.ndarray, n: float | None, mean_ms: float | None,
            min_ms: float | None, max_ms: float | None) -> Histogram:
    nz = np.flatnonzero(dense > 0)
    frac = dense[nz] / dense[nz].sum()
    return Histogram(kind, nz.astype(np.uint16), frac, n, mean_ms, min_ms, max_ms)


# ------------------------------------------------------------------ read back
def quantile(index: np.ndarray, weight: np.ndarray, p: float) -> float:
    """The p-quantile (p in [0, 1]) of a (pooled) grid histogram: the bucket where the
    cumulative weight reaches p (within a relative ``REACHED``, as the jobs' kernel
    :func:`perfwarehouse.kernels.latency.pooled_quantiles` does), interpolated
    log-linearly inside it."""
    from perfwarehouse.kernels.latency import REACHED

    order = np.argsort(index, kind="stable")
    idx, w = np.asarray(index)[order].astype(np.int64), np.asarray(weight, float)[order]
    total = w.sum()
    if total <= 0:
        return math.nan
    target = p * total
    cum = np.cumsum(w)
    b = int(np.searchsorted(cum, target - REACHED * total, side="left"))
    b = min(b, idx.size - 1)
    before = cum[b] - w[b]
    f = 0.0 if w[b] <= 0 else min(1.0, max(0.0, (target - before) / w[b]))
    return float(LOW_MS * 10.0 ** ((idx[b] + f) / PER_DECADE))


def mean_ms(index: np.ndarray, frac: np.ndarray) -> float:
    """Mean latency of a grid histogram (bucket geometric midpoints), ms."""
    mid = LOW_MS * 10.0 ** ((np.asarray(index, dtype=np.float64) + 0.5) / PER_DECADE)
    return float(np.sum(mid * frac) / np.sum(frac))
