"""What the load-test analysis returns besides its tables: the operational-law checks of
each trial (:mod:`.laws`), a rank-based CI (:mod:`.intervals`), and the columns of the
``peak_rate`` table (:mod:`.curve`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

#: The operational laws a trial is checked against (:mod:`.laws`).
LAW_NAMES = ("N = X(R+Z)", "flow balance", "offered load", "U = XS")


@dataclass(frozen=True)
class LawChecks:
    """Per trial: ``law_code`` of the law checked (the worst one; an index of
    :data:`LAW_NAMES`, ``len(LAW_NAMES)`` when nothing could be checked), its ``expected``
    value (requests in the system for the closed loop, arrival rate for the open loop,
    utilization), the relative ``residual``, ``checked`` and ``ok`` (within tolerance), and
    ``reason`` (None when consistent)."""

    law_code: np.ndarray
    expected: np.ndarray
    residual: np.ndarray
    checked: np.ndarray
    ok: np.ndarray
    reason: np.ndarray

    @property
    def law(self) -> np.ndarray:
        """The law names (None when nothing was checked)."""
        return np.array(LAW_NAMES + (None,), dtype=object)[self.law_code]

    @property
    def consistent(self) -> np.ndarray:
        """True, False, or None (not checked), as an object array."""
        out = self.ok.astype(object)
        out[~self.checked] = None
        return out


@dataclass(frozen=True)
class RankInterval:
    """Distribution-free CI ``[low, high]`` of the p-quantile of a sample.

    ``point`` is the sample p-quantile (numpy's linear interpolation), ``coverage``
    the exact binomial coverage of ``[x(low_index), x(high_index)]`` (1-based);
    ``low = high = None`` when no pair of order statistics reaches the confidence,
    with ``n_required`` the smallest sample size that would.
    """

    point: float
    low: float | None
    high: float | None
    p: float
    n: int
    coverage: float
    low_index: int
    high_index: int
    n_required: int | None
    accuracy: float | None


# ------------------------------------------------------------------ the peak
PEAK_FIELDS = (
    ("campaign", pa.string()), ("hardware_type", pa.string()), ("benchmark", pa.string()),
    ("family", pa.string()), ("loop", pa.string()), ("n_levels", pa.int64()),
    ("n_inconsistent_levels", pa.int64()), ("confidence", pa.float64()),
    ("peak_throughput", pa.float64()), ("peak_low", pa.float64()), ("peak_high", pa.float64()),
    ("peak_clients", pa.float64()), ("knee_clients", pa.float64()),
    ("knee_fraction", pa.float64()), ("falls_after_peak", pa.bool_()),
    ("last_throughput", pa.float64()), ("drop_pct", pa.float64()),
    ("response_metric", pa.string()), ("r_sat_ms", pa.float64()), ("width", pa.float64()),
    ("lambda_star", pa.float64()), ("lambda_low", pa.float64()), ("lambda_high", pa.float64()),
    ("r_star_ms", pa.float64()), ("r_star_low_ms", pa.float64()),
    ("r_star_high_ms", pa.float64()), ("accuracy", pa.float64()), ("region", pa.string()),
    ("reason", pa.string()),
)
