"""TriScale's convergence test on one run, with what is needed to draw it (Jacob et al.,
JSys 2021, Figure 3a): the window measures, and the Theil-Sen line, its CI and the
tolerance band mapped back from [-1, 1] to the run's scale. Pure: arrays in, a frozen
:class:`ConvergenceView` (small frames) out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from perfwarehouse.triscale.analysis import convergence_test, window_measures


@dataclass(frozen=True)
class ConvergenceView:
    """What Figure 3a draws for one run, on the raw scale."""

    windows: pl.DataFrame
    fit: pl.DataFrame
    converged: bool
    slope: float
    low: float
    high: float


def convergence_view(y: np.ndarray, x: np.ndarray | None = None, measure: float = 0.5,
                     confidence: float = 0.95,
                     tolerance: float = 0.05) -> ConvergenceView | None:
    """The convergence test of TriScale on one run, with what is needed to draw it: the
    window measures, and the Theil-Sen line, its CI and the tolerance band mapped back
    from [-1, 1] to the run's scale (pivoting on the fitted centre). None when the run
    is too short (fewer than 4 values) or constant in x."""
    y = np.asarray(y, dtype=np.float64)
    x = np.arange(y.size, dtype=np.float64) if x is None else np.asarray(x, dtype=np.float64)
    if y.size < 4:
        return None
    wx, wy = window_measures(y, x, measure)
    y_lo, y_hi = float(y.min()), float(y.max())
    x_lo, x_hi = float(wx.min()), float(wx.max())
    if x_hi == x_lo:
        return None
    trend = convergence_test(wy, wx, confidence, tolerance, bounds=(y_lo, y_hi))
    converged = trend.converged
    # the fitted line's centre on the [-1, 1] scale, to draw it on the raw scale
    xu = 2 * (wx - x_lo) / (x_hi - x_lo) - 1
    yu = np.zeros_like(wy) if y_hi == y_lo else 2 * (wy - y_lo) / (y_hi - y_lo) - 1
    centre = float(np.median(yu - trend.slope * xu))

    def raw_y(v: np.ndarray) -> np.ndarray:
        return (v + 1) / 2 * (y_hi - y_lo) + y_lo

    ends = np.array([-1.0, 0.0, 1.0])
    lines = {name: raw_y(centre + s * ends) for name, s in
             (("fit", trend.slope), ("a", trend.low), ("b", trend.high),
              ("t1", -tolerance), ("t2", tolerance))}
    fit = pl.DataFrame({
        "x": (ends + 1) / 2 * (x_hi - x_lo) + x_lo, "fit": lines["fit"],
        "low": np.minimum(lines["a"], lines["b"]), "high": np.maximum(lines["a"], lines["b"]),
        "tol_low": np.minimum(lines["t1"], lines["t2"]),
        "tol_high": np.maximum(lines["t1"], lines["t2"])})
    windows = pl.DataFrame({"x": wx, "measure": wy})
    return ConvergenceView(windows, fit, bool(converged), trend.slope, trend.low, trend.high)
