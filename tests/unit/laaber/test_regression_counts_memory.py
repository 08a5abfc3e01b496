"""detectable-regression's counts in slices of configurations (issue 44, H5): the same
counts as the whole-array computation, without its configurations x draws x R
temporaries (1.2 GB at 20,000 configurations, 22.7 GB at 10^6 one-trial ones)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from perfwarehouse import laaber
from perfwarehouse.laaber import analysis


def _whole(mc: np.ndarray, mt: np.ndarray, hib: np.ndarray, r: np.ndarray,
           mode: str) -> tuple[np.ndarray, np.ndarray]:
    """The computation of d99f738: every configuration at once."""
    return analysis._counts(mc, mt, hib, r, mode)


@pytest.mark.parametrize("mode", laaber.HIGHER_IS_BETTER_MODES)
def test_sliced_counts_equal_the_whole_computation(mode: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(44)
    n, draws = 1003, 50
    mc = rng.lognormal(0, 0.05, (n, draws))
    mt = rng.lognormal(0.01, 0.05, (n, draws))
    mc[::97] = np.nan  # configurations with too few nodes
    hib = rng.random(n) < 0.3
    r = np.asarray(laaber.REGRESSIONS_PCT, dtype=np.float64)
    monkeypatch.setattr(analysis, "COUNT_CELLS", draws * r.size * 7)  # slices of 7, ragged end
    fp, tp = laaber.regression_counts(mc, mt, hib, r, mode)  # type: ignore[arg-type]
    want_fp, want_tp = _whole(mc, mt, hib, r, mode)
    assert fp.shape == tp.shape == (n, r.size)
    np.testing.assert_array_equal(fp, want_fp)
    np.testing.assert_array_equal(tp, want_tp)
    empty = laaber.regression_counts(mc[:0], mt[:0], hib[:0], r, mode)  # type: ignore[arg-type]
    assert empty[0].shape == (0, r.size)


def test_memory_stays_below_one_whole_temporary() -> None:
    n, draws = 5000, 100
    rng = np.random.default_rng(5)
    mc = rng.lognormal(0, 0.05, (n, draws))
    mt = rng.lognormal(0, 0.05, (n, draws))
    hib = np.zeros(n, dtype=bool)
    r = np.asarray(laaber.REGRESSIONS_PCT, dtype=np.float64)
    whole_temporary = n * draws * r.size * 8  # 48 MB; the old code held several at once
    tracemalloc.start()
    try:
        laaber.regression_counts(mc, mt, hib, r, "cost")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < whole_temporary, f"{peak / 1e6:.1f} MB"  # about 18 MB now, 190 MB before
