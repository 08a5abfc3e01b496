"""``report_triscale_examples`` takes the names of the example runs from the
configurations table (not through the grouping of every trial): the same rows as the
query that carried them, on random measurements with ties in the iteration counts."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

from perfwarehouse.warehouse import sqlfiles

#: the query as it was, names carried through the grouping: the obvious twin
CARRIED = """
WITH sizes AS (
    SELECT campaign, hardware_type, config_id, any_value(benchmark) AS benchmark,
           any_value(settings) AS settings, any_value(metric) AS metric,
           any_value(unit) AS unit, run_id, position, min(started_at) AS started_at,
           count(*) AS n
    FROM measurements
    WHERE ($campaign IS NULL OR campaign = $campaign) AND status = 'ok'
      AND value IS NOT NULL AND isfinite(value)
    GROUP BY campaign, hardware_type, config_id, run_id, position
    HAVING count(*) >= $min_iterations
),
first_trial AS (
    SELECT * FROM sizes
    QUALIFY row_number() OVER (PARTITION BY campaign, hardware_type, config_id
                               ORDER BY started_at, run_id, position) = 1
)
SELECT campaign, hardware_type, config_id, benchmark, settings, metric, unit, run_id,
       position, n
FROM first_trial
QUALIFY row_number() OVER (PARTITION BY benchmark ORDER BY n DESC, hardware_type, config_id) = 1
ORDER BY n DESC, benchmark, hardware_type
LIMIT $examples
"""


def _warehouse(seed: int) -> duckdb.DuckDBPyConnection:
    rng = np.random.default_rng(seed)
    con = duckdb.connect()
    configs = [(i, f"bench{rng.integers(0, 4)}", '{"n": %d}' % (i % 3), "time",
                None if i % 2 else "s", None) for i in range(1, 9)]
    con.execute("CREATE TABLE configurations (config_id UBIGINT, benchmark VARCHAR, "
                "settings JSON, metric VARCHAR, unit VARCHAR, higher_is_better BOOLEAN)")
    con.executemany("INSERT INTO configurations VALUES (?, ?, ?, ?, ?, ?)", configs)
    rows = []
    for config_id, benchmark, settings, metric, unit, _ in configs:
        # a configuration in one campaign: in two, the query's pick between equal trials
        # of the two campaigns is DuckDB's (either query's, alike)
        campaign = ["c1", "c2"][config_id % 3 == 0]
        for trial in range(int(rng.integers(1, 5))):
            iterations = int(rng.choice([3, 10, 12, 12, 20]))
            start = int(rng.integers(0, 5))  # tied starts
            position = int(rng.integers(0, 2))
            for _ in range(iterations):
                value = float("nan") if rng.random() < 0.05 else float(rng.normal(10, 1))
                rows.append((campaign, ["hw-a", "hw-b"][trial % 2], config_id, benchmark,
                             settings, metric, unit, f"run{trial}", position,
                             f"2026-01-0{start + 1} 00:00:00+00",
                             "ok" if rng.random() < 0.95 else "failed", value))
    con.execute("CREATE TABLE measurements (campaign VARCHAR, hardware_type VARCHAR, "
                "config_id UBIGINT, benchmark VARCHAR, settings VARCHAR, metric VARCHAR, "
                "unit VARCHAR, run_id VARCHAR, position INTEGER, started_at TIMESTAMPTZ, "
                "status VARCHAR, value DOUBLE)")
    con.executemany("INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows)
    return con


@pytest.mark.parametrize("seed", range(12))
def test_the_examples_equal_those_of_the_query_that_carried_the_names(seed: int) -> None:
    con = _warehouse(seed)
    query = sqlfiles.load("queries/report_triscale_examples")
    for campaign in (None, "c1"):
        for min_iterations in (1, 10, 13):
            for examples in (1, 3, 10):
                params = {"campaign": campaign, "min_iterations": min_iterations,
                          "examples": examples}
                got = con.execute(query, params).fetchall()
                assert got == con.execute(CARRIED, params).fetchall(), params
    assert con.execute(query, {"campaign": None, "min_iterations": 10, "examples": 3}
                       ).fetchall(), "the data gave no example to compare"
