"""The result types of ``perfwarehouse compare`` (:mod:`.analysis`): one
:class:`Comparison` per configuration, its table columns and its verdicts."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

VERDICTS = ("slower", "faster", "no change", "no significant change", "inconclusive")


@dataclass(frozen=True)
class Comparison:
    """One configuration's comparison (:mod:`perfwarehouse.compare.analysis` states each field)."""

    n_baseline: int
    n_contender: int
    median_baseline: float
    median_contender: float
    change_pct: float
    ci_low_pct: float | None
    ci_high_pct: float | None
    p_value: float
    p_adjusted: float
    verdict: str
    more_trials: int | None
    reason: str | None
    one_invocation: bool = False


FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("n_baseline", pa.int64()), ("n_contender", pa.int64()),
    ("median_baseline", pa.float64()), ("median_contender", pa.float64()),
    ("change_pct", pa.float64()), ("ci_low_pct", pa.float64()), ("ci_high_pct", pa.float64()),
    ("p_value", pa.float64()), ("p_adjusted", pa.float64()), ("verdict", pa.string()),
    ("more_trials", pa.int64()), ("reason", pa.string()), ("one_invocation", pa.bool_()),
)
