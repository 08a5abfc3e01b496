"""The fleet report's per-period analysis, the slow obvious way: a dictionary per
configuration, scipy for the statistics, loops for the bins."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
from scipy import stats


def bin_medians(x: list[float], y: list[float], width: float) -> tuple[list[float], list[float]]:
    bins: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for xi, yi in zip(x, y):
        bins[math.floor(xi / width)].append((xi, yi))
    keys = sorted(bins)
    return ([sum(p[0] for p in bins[k]) / len(bins[k]) for k in keys],
            [float(np.median([p[1] for p in bins[k]])) for k in keys])


def analyse(rows: list[dict[str, Any]], since_s: float, days: float, *, alpha: float = 0.05,
            threshold: float = 0.5, min_trials: int = 10, min_group: int = 3,
            outlier_factor: float = 10.0, trend_bins: int = 300,
            min_trend_span: float = 0.25) -> dict[tuple, dict[str, Any]]:
    """``rows``: campaign, hardware_type, config_id, period, is_random, started_s, value."""
    series: dict[tuple, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: {0: [], 1: []})
    for r in rows:
        series[(r["campaign"], r["hardware_type"], r["config_id"])][r["period"]].append(r)
    out: dict[tuple, dict[str, Any]] = {}
    for key, periods in series.items():
        res: dict[str, Any] = {}
        for period, name in ((0, "prev"), (1, "now")):
            trials = sorted(periods[period], key=lambda r: r["started_s"])
            values = [t["value"] for t in trials]
            res[f"n_{name}"] = len(values)
            res[f"rsd_{name}"] = res[f"p_{name}"] = res[f"median_{name}"] = None
            if not values:
                continue
            median = float(np.median(values))
            res[f"median_{name}"] = median
            kept = [v for v in values if not (median > 0 and v >= outlier_factor * median)]
            if len(kept) >= max(min_trials, 2) and np.mean(kept) != 0:
                res[f"rsd_{name}"] = 100 * np.std(kept, ddof=1) / abs(np.mean(kept))
            fixed = [t["value"] for t in trials if not t["is_random"]]
            random = [t["value"] for t in trials if t["is_random"]]
            if len(fixed) >= min_group and len(random) >= min_group and \
                    len(set(fixed + random)) > 1:
                res[f"p_{name}"] = float(stats.kruskal(fixed, random).pvalue)
            span_days = (trials[-1]["started_s"] - trials[0]["started_s"]) / 86400
            if period == 1 and len(values) >= min_trials and median and \
                    span_days >= min_trend_span * days:
                x = [(t["started_s"] - since_s) / 86400 for t in trials]
                y = [v / abs(median) * 100 for v in values]
                res["trend_xy"] = bin_medians(x, y, days / trend_bins)
        out[key] = res
    # family sizes per campaign
    m: dict[tuple[str, str], int] = defaultdict(int)
    m_trend: dict[str, int] = defaultdict(int)
    for key, res in out.items():
        for name in ("prev", "now"):
            if res.get(f"p_{name}") is not None:
                m[(key[0], name)] += 1
        if "trend_xy" in res:
            m_trend[key[0]] += 1
    for key, res in out.items():
        for name in ("prev", "now"):
            p = res.get(f"p_{name}")
            res[f"dependent_{name}"] = p is not None and p < alpha / m[(key[0], name)]
        res["slope"] = res["low"] = res["high"] = None
        if "trend_xy" in res:
            x, y = res.pop("trend_xy")
            if len(set(x)) > 1:
                conf = 1 - alpha / m_trend[key[0]]
                slope, _, low, high = stats.theilslopes(y, x, alpha=conf, method="joint")
                res["slope"], res["low"], res["high"] = 30 * slope, 30 * low, 30 * high
        res["drifting"] = (res["slope"] is not None and (res["low"] > 0 or res["high"] < 0)
                           and abs(res["slope"]) >= threshold)
        now, prev = res["dependent_now"], res["dependent_prev"]
        res["change"] = ("new" if now and not prev else "persisting" if now and prev else
                         "resolved" if prev and res.get("p_now") is not None else None)
    return out
