"""Jobs over time leave out the trials whose files held no start time (issue 27: time is
never invented; analyses over time say which trials they left out)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from perfwarehouse.jobs.series import with_time
from perfwarehouse.jobs.trends import TrendParams, compute_trends


def trial_rows(seed: int, configs: int = 3, trials: int = 14) -> pa.Table:
    """``triscale_trial_values`` rows: one value per trial, a drift in config 1."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(configs):
        for i in range(trials):
            rows.append({
                "campaign": "c", "hardware_type": "hw", "config_id": c, "benchmark": f"b{c}",
                "settings": "{}", "metric": "time", "higher_is_better": False,
                "run_id": f"r{c}-{i}", "run_index": i, "t": 1.7e9 + 86400.0 * i,
                "iteration": 0, "value": 100 + (2.0 * i if c == 1 else 0) + rng.normal()})
    return pa.Table.from_pylist(rows)


def with_untimed(table: pa.Table, seed: int) -> pa.Table:
    """``table`` with untimed trials (t NULL) of wild values after each configuration's."""
    rng = np.random.default_rng(seed)
    extra = []
    for row in table.to_pylist()[::5]:
        extra.append({**row, "run_id": row["run_id"] + "-untimed", "t": None,
                      "value": float(rng.uniform(-1e6, 1e6))})
    rows = table.to_pylist() + extra
    rows.sort(key=lambda r: (r["config_id"], r["t"] is None, r["t"] or 0))
    return pa.Table.from_pylist(rows, schema=table.schema)


def test_with_time_keeps_exactly_the_timed_rows_in_their_order() -> None:
    for seed in range(5):
        timed = trial_rows(seed)
        mixed = with_untimed(timed, seed)
        assert mixed.column("t").null_count > 0
        assert with_time(mixed).equals(timed)
        assert with_time(timed) is timed  # nothing to leave out: the same table


def test_trends_of_a_series_with_untimed_trials_are_those_of_its_timed_trials() -> None:
    params = TrendParams(min_points=10, family_size=3)
    for seed in range(3):
        timed = trial_rows(seed)
        assert compute_trends(with_untimed(timed, seed), params)["trends"].equals(
            compute_trends(timed, params)["trends"])
    nothing = with_untimed(trial_rows(0), 0).filter(
        pa.compute.is_null(with_untimed(trial_rows(0), 0).column("t")))
    assert compute_trends(nothing, params)["trends"].num_rows == 0
