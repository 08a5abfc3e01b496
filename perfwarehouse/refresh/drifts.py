"""A new drift that the series' steps explain is not a new finding.

``trends`` fits one Theil-Sen slope over a whole series: a series with a step (an old one,
or the night's regression) gets a significant slope once enough points follow the step,
although nothing drifts. So a drift that a refresh would call new is tested again on the
series with its steps taken into account: the slope is estimated from the pairs of points
*within* each segment between the series' steps (``change_points.shift = 'step'``), the
seasonal Kendall slope of Hirsch, Slack & Smith (Water Resources Research 18(1), 1982)
with the segments as seasons, and its CI is Sen's (JASA 63, 1968) with the variance of
Kendall's S summed over the segments, at the confidence of the ``trends`` row (its
family-wise Bonferroni level). When that CI holds 0, the steps explain the drift and it is
not reported as new; a series that drifts within its segments is still a new drift.

Assumptions: the segments are cut at the start time of each step's first trial (the
``trends`` series is ordered by time); ties in time make no pair; ties in value are not
corrected for (the values are continuous).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from perfwarehouse.refresh.findings import ChangePoint, Finding
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

DAY_S = 86400.0


def within_segments_sen(t: np.ndarray, y: np.ndarray, cuts: Sequence[float],
                        confidence: float) -> tuple[float, float, float]:
    """(slope, low, high): the median of the slopes (y per unit of t) of the pairs of
    points within each segment of ``t`` cut at ``cuts`` (a segment starts at each cut),
    with Sen's two-sided CI at ``confidence`` (NaN without a pair). With no cut it is the
    Theil-Sen slope and CI of ``scipy.stats.theilslopes``."""
    from scipy.stats import norm

    order = np.argsort(t, kind="stable")
    t, y = np.asarray(t, float)[order], np.asarray(y, float)[order]
    edges = [0, *np.searchsorted(t, sorted(cuts), side="left").tolist(), t.size]
    slopes, variance = [], 0.0
    for a, b in zip(edges[:-1], edges[1:]):
        n = b - a
        if n < 2:
            continue
        i, j = np.triu_indices(n, 1)
        dt = t[a:b][j] - t[a:b][i]
        keep = dt != 0
        slopes.append((y[a:b][j] - y[a:b][i])[keep] / dt[keep])
        variance += n * (n - 1) * (2 * n + 5) / 18.0
    if not slopes or not sum(s.size for s in slopes):
        return float("nan"), float("nan"), float("nan")
    s = np.sort(np.concatenate(slopes))
    z = norm.ppf((1.0 - confidence) / 2.0)  # negative, as scipy's theilslopes
    sigma = float(np.sqrt(variance))
    upper = min(int(np.round((s.size - z * sigma) / 2.0)), s.size - 1)
    lower = max(int(np.round((s.size + z * sigma) / 2.0)) - 1, 0)
    return float(np.median(s)), float(s[lower]), float(s[upper])


def explained_by_steps(t: np.ndarray, y: np.ndarray, steps: Sequence[float],
                       confidence: float) -> bool:
    """Whether the series ``(t, y)`` (``t`` in seconds) shows no drift within the
    segments between ``steps`` (start times, seconds): the CI of
    :func:`within_segments_sen` holds 0 (False without a step, or without a pair)."""
    if not steps:
        return False
    _slope, low, high = within_segments_sen(np.asarray(t, float) / DAY_S, y, [
        s / DAY_S for s in steps], confidence)
    return bool(low <= 0 <= high)


def without_explained_drifts(warehouse: Warehouse, new: list[Finding],
                             points: Sequence[ChangePoint]) -> list[Finding]:
    """``new`` without the drifts of series whose steps explain them
    (:func:`explained_by_steps`); reads only the series of those drifts that have steps,
    in one scan."""
    import pyarrow as pa

    steps: dict[tuple[str, str, int], list[float]] = {}
    for p in points:
        if p.shift == "step" and p.started_at is not None:
            steps.setdefault(p.series, []).append(p.started_at.timestamp())
    candidates = {(f.campaign, f.hardware_type, f.config_id): f for f in new
                  if f.kind == "drift" and (f.campaign, f.hardware_type, f.config_id) in steps}
    if not candidates:
        return new
    keys = pa.table({"campaign": [k[0] for k in candidates],
                     "hardware_type": [k[1] for k in candidates],
                     "config_id": pa.array([k[2] for k in candidates], pa.uint64())})
    with warehouse.catalog() as con:
        con.register("_drifts", keys)
        levels = fetch_arrow(con, sqlfiles.load("queries/refresh_drift_levels")).to_pylist()
        rows = fetch_arrow(con, sqlfiles.load("queries/refresh_drift_series"))
    confidence = {(r["campaign"], r["hardware_type"], int(r["config_id"])): r["confidence"]
                  for r in levels}
    series = list(zip(rows.column("campaign").to_pylist(),
                      rows.column("hardware_type").to_pylist(),
                      [int(c) for c in rows.column("config_id").to_pylist()]))
    t = rows.column("t").to_numpy(zero_copy_only=False).astype(float)
    y = rows.column("y").to_numpy(zero_copy_only=False).astype(float)
    at: dict[tuple[str, str, int], list[int]] = {}
    for i, key in enumerate(series):
        at.setdefault(key, []).append(i)
    explained = set()
    for key, f in candidates.items():
        level, where = confidence.get(key), at.get(key, [])
        if level is not None and len(where) >= 2 and explained_by_steps(
                t[where], y[where], steps[key], float(level)):
            explained.add(f.key)
    return [f for f in new if f.key not in explained]
