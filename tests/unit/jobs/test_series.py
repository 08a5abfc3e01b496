"""jobs.series.trial_table: one row per trial, its value the median of its measurements,
checked against np.median per trial (a slow obvious twin)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from perfwarehouse.jobs.series import trial_table


def measurement_rows(rng: np.random.Generator, trials: int, *, nan: bool) -> pa.Table:
    """Rows of ``trials`` trials (1-7 measurements each, in trial order), values with
    ties; with ``nan``, some measurements NaN."""
    sizes = rng.integers(1, 8, trials)
    n = int(sizes.sum())
    trial = np.repeat(np.arange(trials), sizes)
    config = (trial // 5).astype(np.uint64)
    run_index = (trial % 5 // 2).astype(np.int32)  # two trials share a run_index ...
    run_id = [f"run-{t % 5}" for t in trial]  # ... and differ by run_id
    value = rng.integers(0, 4, n).astype(float)
    if nan:
        value[rng.random(n) < 0.05] = np.nan
    return pa.table({
        "campaign": ["c"] * n, "hardware_type": ["h"] * n, "config_id": config,
        "benchmark": [f"b{c}" for c in config], "settings": ["{}"] * n, "metric": ["m"] * n,
        "higher_is_better": np.zeros(n, bool), "run_id": run_id, "run_index": run_index,
        "t": trial.astype(float), "iteration": np.concatenate([np.arange(s) for s in sizes]),
        "value": value,
    })


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("nan", [False, True])
def test_one_row_per_trial_with_the_median_of_its_values(seed: int, nan: bool) -> None:
    rng = np.random.default_rng(seed)
    rows = measurement_rows(rng, int(rng.integers(1, 60)), nan=nan)
    out = trial_table(rows)
    t = rows.column("t").to_numpy()
    value = rows.column("value").to_numpy()
    trials = np.unique(t)
    expected = [np.median(value[t == k]) for k in trials]
    np.testing.assert_array_equal(out.column("value").to_numpy(), expected)
    assert out.column("t").to_pylist() == trials.tolist()
    first = [int(np.flatnonzero(t == k)[0]) for k in trials]
    for name in ("config_id", "benchmark", "run_id", "run_index"):
        assert out.column(name).to_pylist() == rows.column(name).take(first).to_pylist()
    assert "iteration" not in out.column_names


def test_one_value_per_trial_is_kept_as_it_is() -> None:
    rows = measurement_rows(np.random.default_rng(1), 40, nan=False)
    single = rows.filter(pa.compute.equal(rows.column("iteration"), 0))
    out = trial_table(single)
    assert out.num_rows == single.num_rows
    np.testing.assert_array_equal(out.column("value").to_numpy(), single.column("value").to_numpy())
