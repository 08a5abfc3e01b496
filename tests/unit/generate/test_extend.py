"""``generate ordersage-longterm --extend-days N`` (issue 41: "one more night"): the days
after the campaign ended, drawn from the campaign's own model, the same days whatever N;
and the JSON Lines writer's progress."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.generate import generate
from perfwarehouse.generate.ordersage_longterm import DAY_S, HARDWARE, SPAN_DAYS, START
from perfwarehouse.generate.trials import Generated, write_generated

SEED, SCALE = 7, 0.2


@pytest.fixture(scope="module")
def campaign() -> Generated:
    return generate("ordersage-longterm", seed=SEED, scale=SCALE)


@pytest.fixture(scope="module")
def three_days() -> Generated:
    return generate("ordersage-longterm", seed=SEED, scale=SCALE, extend_days=3)


def _rows(table: pa.Table) -> list[tuple[Any, ...]]:
    """The records as sorted plain tuples (the dictionary encodings of two tables differ)."""
    return sorted(tuple(r.values()) for r in table.to_pylist())


def test_the_first_days_are_the_same_whatever_n(three_days: Generated) -> None:
    one = generate("ordersage-longterm", seed=SEED, scale=SCALE, extend_days=1).records
    first = three_days.records.filter(
        pc.match_substring(three_days.records.column("run_id").cast(pa.string()), "-d270-"))
    assert one.num_rows > 0 and _rows(first) == _rows(one)
    assert three_days.records.num_rows > one.num_rows


def test_the_extension_starts_where_the_campaign_ended(campaign: Generated,
                                                       three_days: Generated) -> None:
    ext, truth = three_days.records, three_days.truth
    start_us = (START.timestamp() + SPAN_DAYS * DAY_S) * 1e6
    started = ext.column("started_at").cast(pa.int64()).to_numpy()
    assert started.min() >= start_us and started.max() < start_us + 4 * DAY_S * 1e6
    assert np.all(np.diff(started) >= 0)  # in time order, as the campaign's file
    # run indexes continue after the campaign's runs, one per run
    runs = pc.unique(ext.column("run_index")).to_numpy()
    assert runs.min() == campaign.truth["counts"]["runs"] == truth["extension"]["first_run_index"]
    assert len(runs) == truth["extension"]["runs"] == runs.max() - runs.min() + 1
    assert truth["extension"]["trials"] == ext.num_rows
    # what is planted is the campaign's: the same truth lists
    for key in ("order_dependent", "drifting", "polluters", "seasonality"):
        assert truth[key] == campaign.truth[key]


def test_the_extension_continues_the_campaigns_levels(campaign: Generated,
                                                      three_days: Generated) -> None:
    """Each configuration's median in the new days is near its median in the campaign's
    last 30 days (a model drawn afresh would move levels by tens of percent)."""
    con = duckdb.connect()
    con.register("old", campaign.records)
    con.register("new", three_days.records)
    ratios = con.execute("""
        WITH o AS (SELECT hardware_type, benchmark, settings, metric,
                          median(values[1]) AS m FROM old
                   WHERE started_at >= (SELECT max(started_at) FROM old) - INTERVAL 30 DAY
                   GROUP BY ALL),
             n AS (SELECT hardware_type, benchmark, settings, metric,
                          median(values[1]) AS m FROM new GROUP BY ALL)
        SELECT n.m / o.m FROM o JOIN n USING (hardware_type, benchmark, settings, metric)
    """).fetchnumpy()
    ratio = next(iter(ratios.values()))
    assert len(ratio) > 500
    assert np.median(np.abs(np.log(ratio))) < 0.03
    # on the hardware type's own machines
    size = {hw: n for hw, n, *_rest in HARDWARE}
    pairs = set(zip(three_days.records.column("hardware_type").to_pylist(),
                    three_days.records.column("node").to_pylist()))
    assert all(node.startswith(f"{hw}-") and 1 <= int(node.rsplit("-", 1)[1]) <= size[hw]
               for hw, node in pairs)


def test_extend_days_is_refused_where_it_does_not_apply() -> None:
    with pytest.raises(UsageError, match="extend-days applies to ordersage-longterm"):
        generate("laaber-cloud", scale=0.05, extend_days=1)
    with pytest.raises(UsageError, match="no run falls"):
        generate("ordersage-longterm", scale=0.001, extend_days=1, seed=3)


class _Task:
    def __init__(self) -> None:
        self.seen: list[tuple[float | None, float | None]] = []

    def advance(self, amount: float = 1) -> None:
        raise AssertionError("the writer reports sizes, not steps")

    def update(self, completed: float | None = None, total: float | None = None) -> None:
        self.seen.append((completed, total))


def test_the_writer_reports_megabytes_and_writes_what_one_copy_writes(
        three_days: Generated, tmp_path: Path) -> None:
    task = _Task()
    write_generated(three_days, tmp_path / "watched.jsonl", task=task)
    write_generated(three_days, tmp_path / "plain.jsonl")
    watched = (tmp_path / "watched.jsonl").read_bytes()
    assert watched == (tmp_path / "plain.jsonl").read_bytes()
    assert watched.count(b"\n") == three_days.records.num_rows
    total = task.seen[0][1]
    assert total is not None and task.seen[-1][0] == total
    # the estimate from the first 1,000 records is within 5 % of the file's size
    assert abs(total - len(watched) / 1e6) < 0.05 * len(watched) / 1e6
