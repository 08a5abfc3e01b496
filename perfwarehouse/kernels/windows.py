"""numba kernel: TriScale's sliding-window measures of a run ("Convergence test")."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def window_starts(n: int) -> np.ndarray:
    """0-based starts s_i = floor(i W / (w - 1)), W = floor(n/2), w = min(W + 1, 100)."""
    width = n // 2
    count = min(width + 1, 100)
    starts = np.empty(count, dtype=np.int64)
    for i in range(count):
        starts[i] = (i * width) // (count - 1)
    return starts


@njit(cache=True)
def midpoint_quantile(sorted_values: np.ndarray, q: float) -> float:
    """numpy's ``quantile(..., method="midpoint")`` of already sorted values."""
    n = sorted_values.size
    position = (n - 1) * q
    below = np.floor(position)
    above = np.ceil(position)
    if below == above:
        return sorted_values[int(below)]
    a = sorted_values[int(below)]
    b = sorted_values[int(below) + 1]
    return b - (b - a) * 0.5


@njit(cache=True)
def window_measures(y: np.ndarray, q: float, kind: int) -> np.ndarray:
    """Measure of each window: kind 0 = quantile q (midpoint), 1 = min, 2 = max."""
    n = y.size
    width = n // 2
    starts = window_starts(n)
    out = np.empty(starts.size)
    for i in range(starts.size):
        part = y[starts[i]: starts[i] + width]
        if kind == 1:
            out[i] = part.min()
        elif kind == 2:
            out[i] = part.max()
        else:
            out[i] = midpoint_quantile(np.sort(part), q)
    return out
