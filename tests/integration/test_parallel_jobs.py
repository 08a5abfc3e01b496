"""Several jobs at once in worker processes (``run_jobs``, ``analyze all``, the demo): each
job gives the tables it gives alone and writes them once; the jobs really overlap; the
costliest start first; the first error stops the run with that error, one line on the
command line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psutil
import pyarrow as pa
import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs import CATALOG, get
from perfwarehouse.jobs.parallel import job_workers, run_jobs
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.conftest import ORDERSAGE_DIRS
from tests.integration.jobs_support import (
    FEWER_DRAWS,
    JOB_NAMES,
    assert_same_tables,
    generated_warehouse,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def longterm(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return generated_warehouse(tmp_path_factory.mktemp("parallel"), {"ordersage-longterm": 0.005})


def _runs() -> list[tuple[object, object]]:
    return [(get(n), get(n).params(**FEWER_DRAWS.get(n, {}))) for n in JOB_NAMES]


def _job_runs(wh: Warehouse) -> pa.Table:
    with wh.catalog() as con:
        return fetch_arrow(con, "SELECT job_run_id, job, started_at, duration_s, rows_out "
                                "FROM job_runs ORDER BY job_run_id")


def test_jobs_in_processes_give_and_write_what_each_gives_alone(longterm: Warehouse) -> None:
    here = {job.name: result for job, result in run_jobs(longterm, _runs(), processes=1)}
    first_parallel_id = max(r.job_run_id for r in here.values()) + 1
    there = {job.name: result for job, result in run_jobs(longterm, _runs(), processes=2)}
    assert sorted(there) == sorted(JOB_NAMES)
    for name in JOB_NAMES:
        tables = here[name].tables
        assert name == "convergence" or all(t.num_rows for t in tables.values()), name
        assert_same_tables(tables, there[name].tables)
        assert here[name].summary == there[name].summary, name

    runs = _job_runs(longterm).to_pylist()
    parallel = [r for r in runs if r["job_run_id"] >= first_parallel_id]
    # one job_runs row per job, with the rows it sent back, in its output tables
    assert sorted(r["job"] for r in parallel) == sorted(JOB_NAMES)
    for r in parallel:
        result = there[r["job"]]
        assert r["job_run_id"] == result.job_run_id
        assert r["rows_out"] == sum(t.num_rows for t in result.tables.values())
        with longterm.catalog() as con:
            for table in get(r["job"]).outputs:
                stored = con.execute(f"SELECT count(*) FROM {table} WHERE job_run_id = ?",
                                     [r["job_run_id"]]).fetchone()
                assert stored is not None
                assert stored[0] == there[r["job"]].tables[table].num_rows, (r["job"], table)
    # two at a time: some job started before another one had finished
    spans = sorted((r["started_at"], r["started_at"] + timedelta(seconds=r["duration_s"]))
                   for r in parallel)
    assert any(b[0] < a[1] for a, b in zip(spans, spans[1:]))
    # the costliest job (change-points) started first, before the cheap ones ahead of it
    # in the registry
    started = {r["job"]: r["started_at"] for r in parallel}
    assert started["change-points"] < started["order-effects"]


def test_the_first_error_is_raised_here(longterm: Warehouse) -> None:
    runs = _runs()
    bad = get("order-effects")
    runs[1] = (bad, bad.params(alpha=2.0))
    with pytest.raises(UsageError, match="alpha"):
        for _ in run_jobs(longterm, runs, processes=2):
            pass


def test_one_worker_per_core_or_as_asked_and_one_with_a_scheduler() -> None:
    assert job_workers(14, processes=3) == 3
    assert job_workers(2, processes=8) == 2
    assert job_workers(14, processes=3, scheduler="tcp://127.0.0.1:1") == 1
    assert job_workers(0) == 1


def test_analyze_all_in_processes_names_a_bad_campaign_in_one_line(cli, tmp_path: Path) -> None:
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), "--campaign", "ufs", "-q",
        check=True)
    out = cli("analyze", "all", "--campaign", "nope", "--processes", "2")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [out.stderr.strip()]  # one line, no traceback
    assert "unknown campaign 'nope'" in out.stderr
    done = cli("analyze", "all", "--processes", "2", check=True)
    finished = {line.split(":")[0] for line in done.stdout.splitlines()}
    assert {e.name for e in CATALOG} <= finished


def test_ctrl_c_stops_every_worker_and_no_job_finishes_after_it(longterm: Warehouse) -> None:
    """Ctrl-C reaches the whole process group; the parent stops the workers (before, the
    workers went on with the queued jobs and the parent waited for them)."""
    before = _job_runs(longterm).num_rows
    run = subprocess.Popen(
        [sys.executable, "-m", "perfwarehouse", "--warehouse", str(longterm.root), "analyze",
         "all", "--processes", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    parent = psutil.Process(run.pid)
    deadline = time.monotonic() + 60
    while len(parent.children()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = parent.children(recursive=True)
    assert len(workers) >= 2, "the workers did not start"
    time.sleep(1.0)  # the workers are importing or running their first jobs
    assert run.poll() is None, "analyze all ended before it could be interrupted"
    interrupted_at = datetime.now(timezone.utc)
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 130 and err.strip() == "interrupted", (out, err)
    psutil.wait_procs(workers, timeout=10)
    assert not [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    finished = [r for r in _job_runs(longterm).to_pylist()[before:]
                if r["started_at"] + timedelta(seconds=r["duration_s"]) > interrupted_at]
    assert finished == [], "jobs went on after Ctrl-C"


def _job_workers(parent: psutil.Process, count: int) -> list[psutil.Process]:
    """The spawned job workers of ``parent`` (not multiprocessing's helper processes), once
    ``count`` of them run."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        workers = [p for p in parent.children() if "spawn_main" in " ".join(p.cmdline())]
        if len(workers) >= count:
            return workers
        time.sleep(0.05)
    raise AssertionError("the workers did not start")


def test_a_worker_killed_from_outside_stops_the_run_with_one_line(longterm: Warehouse) -> None:
    """The out-of-memory killer's SIGKILL on a worker: the run stops with an error naming
    the job, instead of waiting for ever for a result that never comes (a
    ``multiprocessing.Pool`` replaced the dead worker and never reported its job)."""
    before = _job_runs(longterm).num_rows
    run = subprocess.Popen(
        [sys.executable, "-m", "perfwarehouse", "--warehouse", str(longterm.root), "analyze",
         "all", "--processes", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        workers = _job_workers(psutil.Process(run.pid), 2)
        time.sleep(1.0)  # both are importing or running their first jobs
        assert run.poll() is None, "analyze all ended before a worker could be killed"
        workers[0].kill()
        out, err = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 1, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line, no traceback
    assert "a job worker process was killed by SIGKILL while running " in lines[0], err
    assert "out-of-memory killer" in lines[0]
    killed_job = lines[0].split("while running ")[1].split(" ")[0].rstrip(";")
    assert killed_job in JOB_NAMES, lines[0]
    psutil.wait_procs(workers, timeout=10)
    assert not [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    written = {r["job"] for r in _job_runs(longterm).to_pylist()[before:]}
    assert killed_job not in written  # a job stopped mid-way writes nothing
