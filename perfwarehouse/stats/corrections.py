"""Multiple-comparison corrections of p-values within families.

Bonferroni; Holm's step-down (Holm, Scandinavian Journal of Statistics 6, 1979);
Benjamini & Hochberg's step-up false discovery rate (JRSS B 57, 1995).
"""

from __future__ import annotations

import numpy as np

METHODS = ("bonferroni", "holm", "bh")


def adjust_pvalues(p: np.ndarray, compared: np.ndarray, family: np.ndarray,
                   method: str) -> np.ndarray:
    """Family-wise adjusted p-values; m = compared configurations of the family.

    A compared configuration without a p-value (all values tied) counts in m and
    ranks last (p = 1). Holm: step-down max(p_(i) (m - i + 1)); BH: step-up
    min(p_(i) m / i); both capped at 1.
    """
    out = np.full(p.size, np.nan)
    rows = np.flatnonzero(compared)
    if rows.size == 0:
        return out
    fam = family[rows]
    pv = np.where(np.isnan(p[rows]), 1.0, p[rows])
    m = np.bincount(fam)[fam].astype(np.float64)
    if method == "bonferroni":
        adj = np.minimum(pv * m, 1.0)
    else:
        order = np.lexsort((pv, fam))
        fam_sorted, p_sorted, m_sorted = fam[order], pv[order], m[order]
        start = np.searchsorted(fam_sorted, fam_sorted, side="left")
        rank = np.arange(order.size) - start + 1  # 1-based rank inside the family
        if method == "holm":
            raw = np.minimum(p_sorted * (m_sorted - rank + 1), 1.0)
            adj_sorted = _segment_accumulate(raw, fam_sorted, np.maximum, forward=True)
        elif method == "bh":
            raw = np.minimum(p_sorted * m_sorted / rank, 1.0)
            adj_sorted = _segment_accumulate(raw, fam_sorted, np.minimum, forward=False)
        else:
            raise ValueError(f"unknown correction {method!r}")
        adj = np.empty_like(adj_sorted)
        adj[order] = adj_sorted
    out[rows] = np.where(np.isnan(p[rows]), np.nan, adj)
    return out


def _segment_accumulate(values: np.ndarray, segment: np.ndarray, ufunc: np.ufunc,
                        forward: bool) -> np.ndarray:
    """Running max/min of ``values`` restarting at each new segment (segments contiguous)."""
    out = values.copy()
    bounds = np.flatnonzero(np.diff(segment)) + 1
    for part in np.split(np.arange(values.size), bounds):  # one slice per family
        seq = values[part] if forward else values[part][::-1]
        acc = ufunc.accumulate(seq)
        out[part] = acc if forward else acc[::-1]
    return out
