"""A job's results are written to disk piece by piece (jobs/spill.py) and give the tables
an in-memory concatenation gives: the same rows in the same order for the same pieces,
the same rows (in any order) and the same stored rows in many small pieces as in one."""

from __future__ import annotations

import gc
import os
import pickle
from pathlib import Path

import pyarrow as pa
import pytest

from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import framework, get, run_job
from perfwarehouse.jobs.framework import assemble, compute_piece, plan_job
from perfwarehouse.jobs.spill import SPILL, ResultTables, remove_stale
from perfwarehouse.warehouse.contracts import contract
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.integration.jobs_support import assert_same_tables

pytestmark = pytest.mark.integration

JOBS = {"variability": {}, "detectable-regression": {"draws": 10}}


@pytest.fixture(scope="module")
def laaber(small_laaber: Path, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    wh = Warehouse(tmp_path_factory.mktemp("spill") / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [small_laaber])
    return wh


def _stored(wh: Warehouse, name: str, job_run_id: int) -> pa.Table:
    with wh.catalog() as con:
        return fetch_arrow(con, f"SELECT * EXCLUDE (job_run_id) FROM {contract(name).stored_as}"
                                " WHERE job_run_id = ? ORDER BY ALL", [job_run_id])


@pytest.mark.parametrize("name", sorted(JOBS))
def test_spilled_tables_equal_the_in_memory_ones(laaber: Warehouse, name: str) -> None:
    job = get(name)
    params = job.params(**JOBS[name])
    plan = plan_job(laaber, job, params, laaber.snapshot(), slice_configurations=10)
    assert len(plan.pieces) >= 20
    in_memory = assemble(job, plan, (compute_piece(job, plan, p) for p in plan.pieces))
    spilled = framework.spill(job, plan, (compute_piece(job, plan, p) for p in plan.pieces))
    assert isinstance(spilled, ResultTables)
    assert spilled.directory.parent == laaber.root / SPILL
    assert list(spilled) == list(in_memory)
    for output, table in in_memory.items():
        assert table.num_rows > 0 and spilled.rows(output) == table.num_rows
        assert spilled[output].equals(table), output  # same rows, same order, same schema
        assert pa.concat_tables(spilled.parts(output)).equals(table)
    directory = spilled.directory
    del spilled
    gc.collect()
    assert not directory.exists()


@pytest.mark.parametrize("name", sorted(JOBS))
def test_many_small_pieces_give_the_tables_of_one(
        laaber: Warehouse, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    job = get(name)
    params = job.params(**JOBS[name])
    one = run_job(laaber, job, params)
    monkeypatch.setattr(framework, "SLICE_CONFIGURATIONS", 10)
    many = run_job(laaber, job, params)
    assert isinstance(many.tables, ResultTables)
    assert len(list(many.tables.directory.rglob("*.arrow"))) >= 20 * len(job.outputs)
    assert_same_tables(dict(one.tables), dict(many.tables))
    assert many.summary == one.summary
    for output in job.outputs:
        stored = _stored(laaber, output, many.job_run_id)
        assert stored.num_rows == many.tables.rows(output) > 0
        assert stored.equals(_stored(laaber, output, one.job_run_id)), output


def test_a_result_sent_to_another_process_keeps_its_files(tmp_path: Path) -> None:
    tables = ResultTables.create(tmp_path, ["a"])
    tables.add({"a": pa.table({"x": [1, 2]})})
    tables.add({"a": pa.table({"x": [None], "y": ["z"]})})
    sent = pickle.dumps(tables)
    old = tables.directory
    del tables
    gc.collect()
    assert old.exists()  # handed over: the sender no longer removes it
    received = pickle.loads(sent)
    # renamed to the receiver's process id (here the same process: the same name)
    assert received.directory.name.startswith(f"job-{os.getpid()}-")
    assert received.directory.exists()
    assert received["a"].to_pylist() == [{"x": 1, "y": None}, {"x": 2, "y": None},
                                         {"x": None, "y": "z"}]
    received.close()
    assert not received.directory.exists()


def test_a_dead_process_spill_is_removed(tmp_path: Path) -> None:
    area = tmp_path / SPILL
    dead = area / "job-999999999-abc"  # no such process id (above the kernel's limit)
    (dead / "a").mkdir(parents=True)
    other = area / "not-a-spill"
    other.mkdir()
    live = ResultTables.create(tmp_path, ["a"])
    assert not dead.exists() and other.exists() and live.directory.exists()
    remove_stale(area)
    assert live.directory.exists()  # this process's own: kept
