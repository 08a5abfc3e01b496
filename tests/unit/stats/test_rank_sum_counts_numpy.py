"""The numpy twin of the exact rank-sum null (used by ``mannwhitneyu(method="auto")`` on
small tied samples, so ``perfwarehouse compare`` need not import numba) gives the
kernel's counts, float for float."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfwarehouse.kernels.rank_exact import rank_sum_counts
from perfwarehouse.stats.rank_tests import rank_sum_counts_numpy


@pytest.mark.parametrize("seed", range(40))
def test_the_numpy_counts_are_the_kernels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 51))
    n1 = int(rng.integers(1, n))
    pooled = np.round(rng.normal(0.0, rng.uniform(0.3, 5.0), n))
    _, sizes = np.unique(pooled, return_counts=True)
    sizes = sizes.astype(np.int64)
    ends = np.cumsum(sizes)
    ranks2 = (2 * ends - sizes + 1).astype(np.int64)
    ranks2 //= int(np.gcd.reduce(ranks2))
    ours = rank_sum_counts_numpy(sizes, ranks2, n1)
    assert np.array_equal(ours, rank_sum_counts(sizes, ranks2, n1))
    assert ours.sum() == pytest.approx(float(math.comb(n, n1)), rel=1e-12)
