"""What the OrderSage analyses return (:mod:`.orders`, :mod:`.predecessors`): Arrow
columns, one row per configuration; NULL where a statistic is undefined."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

NO_WORST = -3  # no predecessor group had enough trials


def nullable(values: np.ndarray) -> pa.Array:
    """A float64 column, NULL where the value is NaN."""
    values = np.asarray(values, dtype=np.float64)
    return pa.array(values, mask=np.isnan(values))


def nullable_int(values: np.ndarray) -> pa.Array:
    """An int64 column, NULL where the value is negative (the kernels' "none")."""
    values = np.asarray(values, dtype=np.int64)
    return pa.array(values, mask=values < 0)
