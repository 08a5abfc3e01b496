"""What the Laaber jobs (``variability``, ``aa-fpr``, ``detectable-regression``; Laaber
et al. (PeerJ Preprints 2018), section 4) share: their query and the assembly of a result
table from a partition's names and the analysis's columns. Not a job module: job modules
import helpers from here, never from each other.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

#: ``sql/queries/laaber_measurements.sql``: one row per measurement with its node and run.
QUERY = "laaber_measurements"


def with_columns(meta: pa.Table, columns: dict[str, object],
                 fields: tuple[tuple[str, pa.DataType], ...]) -> pa.Table:
    """``meta`` plus ``columns`` typed by ``fields`` (NaN becomes NULL for floats)."""
    table = meta
    for name, dtype in fields:
        values = columns[name]
        if isinstance(values, np.ndarray) and values.dtype.kind == "f":
            array = pa.array(values, dtype, mask=np.isnan(values))
        elif isinstance(values, np.ndarray):
            array = pa.array(values.astype(dtype.to_pandas_dtype()), dtype)
        else:
            array = pa.array(values, dtype)
        table = table.append_column(name, array)
    return table


def floats(column: pa.ChunkedArray) -> np.ndarray:
    """A numeric column as float64 with NaN for null (8 bytes a row, no Python objects: a
    summary of a million configurations reads it from the memory-mapped results)."""
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)


def equal_to(column: pa.ChunkedArray, value: object) -> np.ndarray:
    """Whether each row of ``column`` equals ``value`` (False for null), as a bool array."""
    import pyarrow.compute as pc

    return np.asarray(pc.fill_null(pc.equal(column, pa.scalar(value, column.type)), False)
                      .to_numpy(zero_copy_only=False), dtype=bool)
