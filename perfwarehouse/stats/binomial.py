"""The binomial distribution's cdf, sf, pmf and ppf, and the normal quantile, without
importing ``scipy.stats``.

``scipy.stats.binom`` evaluates Boost's binomial functions, which scipy ships as
ufuncs in ``scipy.special._ufuncs`` (``_binom_cdf``, ``_binom_sf``, ``_binom_pmf``,
``_binom_ppf``); the functions here call those same ufuncs with ``rv_discrete``'s
handling of the support (floor of k, 0 and 1 outside [0, n], ppf(0) = -1 and
ppf(1) = n), so they return scipy's numbers bit for bit (tests/unit/stats/
test_binomial.py checks equality over a grid). ``norm_ppf`` is ``special.ndtri``, which
``scipy.stats.norm.ppf`` evaluates.

Why: ``import scipy.stats`` costs about 1 s of CPU (0.3 s for ``scipy.special``), paid
by every command that picks an order-statistic index, and inside the order-effects
job's recorded duration since ``perfwarehouse.stats`` imports its modules on first use
(1d0d81d): 0.3-0.5 s -> 1.0-3.0 s in a fresh process, the regression of issue 38.
Parameters are assumed valid (0 <= p <= 1, integral n >= 0), as every caller here
guarantees; ``scipy.stats`` would give NaN otherwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special
from scipy.special import _ufuncs

Array = Any  # a number or a numpy array


def cdf(k: Array, n: Array, p: Array) -> np.ndarray:
    """P(B <= k), B ~ Bin(n, p) (``scipy.stats.binom.cdf``)."""
    k, n, p = np.broadcast_arrays(np.floor(np.asarray(k, dtype=np.float64)),
                                  np.asarray(n, dtype=np.float64), np.asarray(p, np.float64))
    inside = (k >= 0) & (k < n)
    out = np.where(k >= n, 1.0, 0.0)
    out[inside] = _ufuncs._binom_cdf(k[inside], n[inside], p[inside])
    return out


def sf(k: Array, n: Array, p: Array) -> np.ndarray:
    """P(B > k), B ~ Bin(n, p) (``scipy.stats.binom.sf``)."""
    k, n, p = np.broadcast_arrays(np.floor(np.asarray(k, dtype=np.float64)),
                                  np.asarray(n, dtype=np.float64), np.asarray(p, np.float64))
    inside = (k >= 0) & (k < n)
    out = np.where(k < 0, 1.0, 0.0)
    out[inside] = _ufuncs._binom_sf(k[inside], n[inside], p[inside])
    return out


def pmf(k: Array, n: Array, p: Array) -> np.ndarray:
    """P(B = k), B ~ Bin(n, p) (``scipy.stats.binom.pmf``; 0 off the integers 0..n)."""
    k, n, p = np.broadcast_arrays(np.asarray(k, dtype=np.float64),
                                  np.asarray(n, dtype=np.float64), np.asarray(p, np.float64))
    inside = (k >= 0) & (k <= n) & (k == np.floor(k))
    out = np.zeros(k.shape)
    out[inside] = _ufuncs._binom_pmf(k[inside], n[inside], p[inside])
    return out


def ppf(q: Array, n: Array, p: Array) -> np.ndarray:
    """Smallest k with P(B <= k) >= q, B ~ Bin(n, p) (``scipy.stats.binom.ppf``)."""
    q, n, p = np.broadcast_arrays(np.asarray(q, dtype=np.float64),
                                  np.asarray(n, dtype=np.float64), np.asarray(p, np.float64))
    inside = (q > 0) & (q < 1)
    out = np.where(q >= 1, n, np.where(q == 0, -1.0, np.nan))
    out[inside] = _ufuncs._binom_ppf(q[inside], n[inside], p[inside])
    return out


def norm_ppf(q: Array) -> np.ndarray:
    """The standard normal quantile (``scipy.stats.norm.ppf``)."""
    return np.asarray(special.ndtri(q))
