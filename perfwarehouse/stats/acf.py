"""Sample autocorrelation ("Independence test" ``stats.acf``).

rho_k = c_k / c_0 with c_k = sum_{i < N-k} (x_i - mean)(x_{i+k} - mean): the sums
are not divided by N - k (biased estimator), as in TriScale (Jacob et al., JSys 2021, §4.5,
after Brockwell & Davis). A constant series has rho_0 = 1 and rho_k = 0 for k >= 1
(TriScale returns 0 at lag 0 too: it skips the normalisation when c_0 = 0).
"""

from __future__ import annotations

import numpy as np

#: above this N * nlags, the autocovariance is computed by FFT (O(N log N))
DIRECT_WORK = 20_000_000


def acf(x: object, nlags: int | None = None) -> np.ndarray:
    """Autocorrelation at lags 0 .. ``nlags`` (default N - 1), as a float64 array.

    NaN is refused (an autocorrelation needs an evenly spaced series: fill gaps
    first); an empty series is a ``ValueError``.
    """
    arr = np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())
    n = arr.size
    if n == 0:
        raise ValueError("acf of an empty series")
    if np.isnan(arr).any() or not np.isfinite(arr).all():
        raise ValueError("acf needs finite values: fill or interpolate missing ones first")
    if nlags is None:
        nlags = n - 1
    if not 0 <= nlags <= n - 1:
        raise ValueError(f"nlags must be in 0..{n - 1}, got {nlags}")
    if arr.min() == arr.max():
        out = np.zeros(nlags + 1)
        out[0] = 1.0
        return out
    if n * (nlags + 1) <= DIRECT_WORK:
        from perfwarehouse.kernels.acf import autocovariance_sums  # numba: imported on use

        sums = autocovariance_sums(arr, nlags)
    else:
        d = arr - arr.mean()
        size = 1 << int(2 * n - 1).bit_length()
        spectrum = np.fft.rfft(d, size)
        sums = np.fft.irfft(spectrum * np.conj(spectrum), size)[: nlags + 1]
    return sums / sums[0]
