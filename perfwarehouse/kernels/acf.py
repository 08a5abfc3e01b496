"""numba kernel: biased sample autocovariance sums, lag by lag (O(N * nlags))."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def autocovariance_sums(x: np.ndarray, nlags: int) -> np.ndarray:
    """c_k = sum_{i=0}^{N-1-k} d_i d_{i+k} with d = x - mean(x), for k = 0..nlags.

    The sums are not divided by N - k (the "biased" estimator of Brockwell &
    Davis 1991, the one TriScale's independence test uses).
    """
    n = x.size
    mean = 0.0
    for i in range(n):
        mean += x[i]
    mean /= n
    d = x - mean
    out = np.zeros(nlags + 1)
    for k in range(nlags + 1):
        s = 0.0
        for i in range(n - k):
            s += d[i] * d[i + k]
        out[k] = s
    return out
