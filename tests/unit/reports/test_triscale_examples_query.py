"""``report_triscale_examples`` takes the names of the example runs from the
configurations table (not through the grouping of every trial): its rows equal a plain
Python twin of the rule, on random measurements with ties in the iteration counts and
start times, NaN values and failed trials."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pytest

from perfwarehouse.warehouse import sqlfiles


def _examples(configs: list[tuple], rows: list[tuple], campaign: str | None,
              min_iterations: int, examples: int) -> list[tuple]:
    """The rule by hand: a trial's successful finite values counted, the earliest trial of
    each (campaign, hardware type, configuration) with enough of them, per benchmark the
    one with most values (then hardware type, configuration), most values first."""
    trials: dict[tuple, tuple[int, str]] = {}
    for camp, hw, config_id, *_names, run, position, started, status, value in rows:
        if status == "ok" and math.isfinite(value) and campaign in (None, camp):
            n, first = trials.get((camp, hw, config_id, run, position), (0, started))
            trials[(camp, hw, config_id, run, position)] = (n + 1, min(first, started))
    earliest: dict[tuple, tuple] = {}
    for (camp, hw, config_id, run, position), (n, started) in trials.items():
        if n >= min_iterations:
            candidate = (started, run, position, n)
            earliest[(camp, hw, config_id)] = min(
                earliest.get((camp, hw, config_id), candidate), candidate)
    names = {c[0]: c[1:5] for c in configs}
    best: dict[str, tuple] = {}
    for (camp, hw, config_id), (_started, run, position, n) in earliest.items():
        benchmark, settings, metric, unit = names[config_id]
        row = (camp, hw, config_id, benchmark, settings, metric, unit, run, position, n)
        if benchmark not in best or (-n, hw, config_id) < (-best[benchmark][9],
                                                           *best[benchmark][1:3]):
            best[benchmark] = row
    return sorted(best.values(), key=lambda r: (-r[9], r[3], r[1]))[:examples]


def _warehouse(seed: int) -> tuple[duckdb.DuckDBPyConnection, list[tuple], list[tuple]]:
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
        # of the two campaigns is DuckDB's
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
    return con, configs, rows


@pytest.mark.parametrize("seed", range(12))
def test_the_examples_are_those_of_the_rule(seed: int) -> None:
    con, configs, rows = _warehouse(seed)
    query = sqlfiles.load("queries/report_triscale_examples")
    for campaign in (None, "c1"):
        for min_iterations in (1, 10, 13):
            for examples in (1, 3, 10):
                params = {"campaign": campaign, "min_iterations": min_iterations,
                          "examples": examples}
                got = con.execute(query, params).fetchall()
                assert got == _examples(configs, rows, **params), params
    assert con.execute(query, {"campaign": None, "min_iterations": 10, "examples": 3}
                       ).fetchall(), "the data gave no example to compare"
