"""``trends``' family size (the m of its Bonferroni correction) is counted in the pieces,
where the data is, instead of by one query over every measurement on the client
(issue 32: 3.4 GB on the client for the 10x campaign). The tables are those of the old
whole-data count, locally, in slices and on a real 2-worker Dask cluster; on the
cluster the client never reads a measurement file (the client's peak memory is measured
in benchmarks/bench_scaling.py, not asserted here)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.jobs import get, run_job
from perfwarehouse.jobs.framework import Plan, plan_job
from perfwarehouse.jobs.trends import TrendParams
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.integration.jobs_support import assert_same_tables, generated_warehouse, local_cluster

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

# the query trends ran once over every measurement before its count moved into the
# pieces (sql/queries/trend_family_size.sql at 04494c9): the twin the tables must match
WHOLE_DATA_FAMILY = """
SELECT count(*) AS family_size FROM (
    SELECT campaign, hardware_type, config_id
    FROM measurements
    WHERE status = 'ok'
    GROUP BY campaign, hardware_type, config_id
    HAVING count(DISTINCT run_id) >= $min_points
)"""


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """Two generated campaigns (several partitions, series of every length)."""
    return generated_warehouse(tmp_path_factory.mktemp("trends_family"),
                               {"ordersage-longterm": 0.004, "laaber-cloud": 0.05})


def whole_data_family(wh: Warehouse, min_points: int) -> int:
    files = wh.snapshot().files
    con = wh.reader(files, wh.snapshot().configurations)
    try:
        table = fetch_arrow(con, WHOLE_DATA_FAMILY, {"min_points": min_points})
    finally:
        con.close()
    return int(table.column("family_size")[0].as_py())


def before(wh: Warehouse, params: TrendParams) -> dict[str, Any]:
    """The trends tables as the old code made them: m from the whole-data count, then the
    pieces computed with it (the job without its prepare step)."""
    m = whole_data_family(wh, params.min_points)
    plain = dataclasses.replace(get("trends"), prepare_query=None, prepare=None,
                                prepare_by_piece=False)
    return run_job(wh, plain, dataclasses.replace(params, family_size=m), write=False).tables


@pytest.mark.parametrize("params", [TrendParams(), TrendParams(min_points=5, confidence=90),
                                    TrendParams(min_points=3, confidence=0.9)],
                         ids=["default", "min_points=5", "min_points=3"])
@pytest.mark.parametrize("slice_rows", [2_000_000, 3_000], ids=["whole", "slices"])
def test_the_tables_are_those_of_the_whole_data_count(
        warehouse: Warehouse, params: TrendParams, slice_rows: int) -> None:
    now = run_job(warehouse, get("trends"), params, write=False, slice_rows=slice_rows).tables
    assert now["trends"].num_rows > 0
    assert_same_tables(now, before(warehouse, params))
    m = whole_data_family(warehouse, params.min_points)
    assert m > 1
    # the confidence written is the Bonferroni one of the whole family, not of a piece
    c = params.confidence / 100 if params.confidence > 1 else params.confidence
    expected = 1 - (1 - c) / m
    got = now["trends"].column("confidence").to_pylist()
    assert got == [pytest.approx(expected, rel=1e-12)] * len(got)


def test_the_plan_defers_the_count_to_the_pieces(warehouse: Warehouse) -> None:
    job = get("trends")
    files = warehouse.snapshot().files
    plan = plan_job(warehouse, job, job.params(), files, slice_rows=3_000)
    assert len({p.key for p in plan.pieces}) > 1
    assert any(p.config_slice for p in plan.pieces)
    assert plan.prepare_query and plan.params.family_size == 1  # not yet prepared


def test_no_series_long_enough_gives_an_empty_table(warehouse: Warehouse) -> None:
    result = run_job(warehouse, get("trends"), TrendParams(min_points=10**6), write=False)
    assert result.tables["trends"].num_rows == 0
    assert "no series with" in result.summary[0]


distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two worker processes, one thread each (as tests/integration/test_dask.py)."""
    yield from local_cluster()


def test_on_the_cluster_the_client_reads_no_measurement(
        warehouse: Warehouse, client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    params = TrendParams(min_points=5)
    expected = before(warehouse, params)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the client opened a reader of the measurements")

    # this process is the client; the workers are other processes, with their own code
    monkeypatch.setattr(Warehouse, "reader", refuse)
    monkeypatch.setattr(Plan, "reader", refuse)
    there = run_job(warehouse, get("trends"), params, write=False, scheduler=client,
                    slice_rows=3_000).tables
    assert_same_tables(expected, there)


def test_a_local_run_reads_the_measurements(  # the guard above can fail
        warehouse: Warehouse, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("reader")

    monkeypatch.setattr(Plan, "reader", refuse)
    with pytest.raises(AssertionError, match="reader"):
        run_job(warehouse, get("trends"), TrendParams(), write=False)
