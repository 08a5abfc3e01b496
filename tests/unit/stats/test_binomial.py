"""perfwarehouse.stats.binomial gives scipy.stats.binom's and norm's numbers bit for bit."""

from __future__ import annotations

import numpy as np
import scipy.stats

from perfwarehouse.stats import binomial


def _grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = np.array([0, 1, 2, 3, 5, 10, 31, 100, 257, 1000, 4999, 30_000])
    k = np.array([-3, -1, -0.5, 0, 0.5, 1, 2, 4.7, 9, 15, 50, 128, 499, 999, 1000, 2500,
                  15_000, 30_000, 40_000])
    p = np.array([0.0, 1e-6, 0.05, 0.25, 0.5, 0.75, 0.99, 1.0])
    return np.meshgrid(k, n, p, indexing="ij")


def test_cdf_sf_pmf_equal_scipy() -> None:
    k, n, p = _grid()
    np.testing.assert_array_equal(binomial.cdf(k, n, p), scipy.stats.binom.cdf(k, n, p))
    np.testing.assert_array_equal(binomial.sf(k, n, p), scipy.stats.binom.sf(k, n, p))
    np.testing.assert_array_equal(binomial.pmf(k, n, p), scipy.stats.binom.pmf(k, n, p))


def test_ppf_equal_scipy() -> None:
    q = np.array([0.0, 1e-12, 1e-5, 0.0125, 0.025, 0.3, 0.5, 0.9, 0.999999, 1.0])
    qq, n, p = np.meshgrid(q, [1, 2, 7, 64, 1000, 30_000], [0.01, 0.3, 0.5, 0.8],
                           indexing="ij")
    np.testing.assert_array_equal(binomial.ppf(qq, n, p), scipy.stats.binom.ppf(qq, n, p))


def test_scalars_and_norm_ppf() -> None:
    assert float(binomial.cdf(3, 10, 0.5)) == scipy.stats.binom.cdf(3, 10, 0.5)
    assert float(binomial.ppf(0.025, 101, 0.5)) == scipy.stats.binom.ppf(0.025, 101, 0.5)
    q = np.array([1e-10, 0.025, 0.5, 0.975, 0.9999999])
    np.testing.assert_array_equal(binomial.norm_ppf(q), scipy.stats.norm.ppf(q))
