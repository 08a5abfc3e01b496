"""Jobs on a real Dask cluster (a scheduler and two worker processes on 127.0.0.1) give
the same tables as local runs; a worker killed with SIGKILL mid-job costs nothing but
time; a piece no worker can read stops the job with one line naming it, and nothing is
written; a worker with other code is refused before any piece runs; the command line's
``--scheduler`` (and ``PERFWAREHOUSE_SCHEDULER``) and ``cluster local`` work."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.errors import AnalysisError
from perfwarehouse.jobs import get, run_job
from perfwarehouse.jobs.framework import plan_job
from perfwarehouse.warehouse.store import Warehouse, fetch_one
from tests.integration.jobs_support import (
    FEWER_DRAWS,
    JOB_NAMES,
    assert_same_tables,
    generated_warehouse,
    local_cluster,
)

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def both_campaigns(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """Both generated campaigns, small (0.2M measurements, every job has rows)."""
    return generated_warehouse(tmp_path_factory.mktemp("dask"),
                               {"ordersage-longterm": 0.005, "laaber-cloud": 0.05})


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two worker processes (one thread each, under nannies that restart a dead one)."""
    yield from local_cluster()


def _job_runs(wh: Warehouse) -> int:
    return _count(wh, "job_runs")


def _count(wh: Warehouse, table: str) -> int:
    with wh.catalog() as con:
        return int(fetch_one(con, f"SELECT count(*) FROM {table}")[0])  # type: ignore[index]


@pytest.mark.parametrize("name", JOB_NAMES)
def test_every_job_gives_the_same_tables_on_the_cluster(
        both_campaigns: Warehouse, client: Any, name: str) -> None:
    job = get(name)
    params = job.params(**FEWER_DRAWS.get(name, {}))
    here = run_job(both_campaigns, job, params, write=False).tables
    there = run_job(both_campaigns, job, params, write=False, scheduler=client).tables
    assert sum(t.num_rows for t in here.values()) > 0
    assert_same_tables(here, there)


class _KillOnFirstPiece:
    """A reporter that SIGKILLs one worker process when the first piece has come back."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.done = 0
        self.killed_after: int | None = None

    @contextmanager
    def task(self, description: str, total: float | None = None,
             unit: str = "rows") -> Iterator[Any]:
        self.total = total
        yield self

    def advance(self, amount: float = 1) -> None:
        self.done += 1
        if self.killed_after is None:
            os.kill(self.pid, signal.SIGKILL)
            self.killed_after = self.done

    def update(self, completed: float | None = None, total: float | None = None) -> None:
        pass

    def note(self, message: str) -> None:
        pass


def test_a_worker_killed_mid_job_costs_only_time(both_campaigns: Warehouse, client: Any) -> None:
    wh = both_campaigns
    job = get("variability")
    params = job.params()
    slice_rows = 4_000  # many small pieces: most are still to come when the kill lands
    here = run_job(wh, job, params, write=False, slice_rows=slice_rows).tables
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    reporter = _KillOnFirstPiece(victim)
    before = _job_runs(wh)
    result = run_job(wh, job, params, slice_rows=slice_rows, scheduler=client, reporter=reporter)
    assert reporter.killed_after == 1 and reporter.total and reporter.total > 20
    assert reporter.done == reporter.total
    with pytest.raises(ProcessLookupError):
        os.kill(victim, 0)  # really dead
    assert_same_tables(here, result.tables)
    assert _job_runs(wh) == before + 1
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it for the next tests


def test_a_worker_with_other_code_is_refused(both_campaigns: Warehouse, client: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from perfwarehouse.jobs import dask_runner

    wh = both_campaigns
    before = _job_runs(wh)
    real = dask_runner.build_fingerprint()
    other = tuple((k, "0" * 16 if k == "code" else v) for k, v in real)
    monkeypatch.setattr(dask_runner, "build_fingerprint", lambda: other)
    submitted: list[Any] = []
    monkeypatch.setattr(client, "submit", lambda *a, **k: submitted.append(a))
    with pytest.raises(AnalysisError, match=r"refusing the Dask cluster: worker tcp://127\.0\.0"
                       r"\.1:\d+ runs code [0-9a-f]{16}, this client code 0{16}"):
        run_job(wh, get("kpi"), get("kpi").params(), scheduler=client)
    assert submitted == []  # refused before any piece
    assert _job_runs(wh) == before


def test_a_worker_from_another_checkout_is_refused(both_campaigns: Warehouse, client: Any,
                                                   tmp_path: Path) -> None:
    """A real worker process whose kernels differ by one comment joins the cluster."""
    import shutil

    other = tmp_path / "other"
    shutil.copytree(REPO / "perfwarehouse", other / "perfwarehouse",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "sql", other / "sql")
    kernel = sorted((other / "perfwarehouse" / "kernels").glob("*.py"))[-1]
    kernel.write_text(kernel.read_text() + "\n# another build\n")
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and Path(p).resolve() != REPO]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(other), *rest])}
    address = client.scheduler.address
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
         "--no-nanny", "--name", "other-build", "--host", "127.0.0.1", "--no-dashboard"],
        env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client.wait_for_workers(3, timeout=120)
        before = _job_runs(both_campaigns)
        with pytest.raises(AnalysisError, match=r"refusing the Dask cluster: worker .* runs "
                           r"code [0-9a-f]{16}, this client code [0-9a-f]{16}; install the same"):
            run_job(both_campaigns, get("convergence"), get("convergence").params(),
                    scheduler=client)
        assert _job_runs(both_campaigns) == before
    finally:
        worker.terminate()
        worker.wait(timeout=60)
        deadline = time.monotonic() + 60
        while len(client.scheduler_info()["workers"]) > 2 and time.monotonic() < deadline:
            time.sleep(0.2)


def _rot_pages(path: Path) -> None:
    """Overwrite everything between a Parquet file's leading magic and its footer (the
    column chunks and their page headers), keeping the footer: the file's schema and row
    counts still read, its data does not."""
    data = bytearray(path.read_bytes())
    assert data[:4] == data[-4:] == b"PAR1"
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    data[4:footer] = b"\xff" * (footer - 4)
    path.write_bytes(bytes(data))


def test_a_piece_no_worker_can_read_stops_the_job_and_writes_nothing(
        both_campaigns: Warehouse, client: Any, tmp_path: Path, cli: Any) -> None:
    """One Parquet file of the snapshot whose data pages rotted on the shared file system
    (its footer, and so the catalog and the plan, still fine): the workers cannot read it,
    so its piece fails on every try; the job stops with one line naming that piece, and
    neither the API nor the command line writes a result or a ``job_runs`` row."""
    wh = Warehouse(tmp_path / "warehouse", lock_timeout_s=30.0)
    shutil.copytree(both_campaigns.root, wh.root)
    job = get("kpi")
    params = job.params()
    files = wh.snapshot().files
    victim = next(f for f in files if f.campaign == "laaber-cloud")
    pieces = [p for p in plan_job(wh, job, params, files).pieces if victim in p.files]
    assert len(pieces) == 1 and len(files) > 1  # one piece of several reads the file
    label = pieces[0].label
    assert label == f"campaign=laaber-cloud hardware_type={victim.hardware_type}"
    _rot_pages(wh.root / victim.path)
    runs, rows = _job_runs(wh), _count(wh, "triscale_kpi_history")

    with pytest.raises(AnalysisError) as info:
        run_job(wh, job, params, scheduler=client)
    message = str(info.value)
    assert message.startswith(f"piece {label} of kpi failed on the cluster: ")
    assert "Error" in message  # then the reader's own first line (DuckDB's, here)
    assert message.endswith("; nothing was written")
    assert len(message.splitlines()) == 1
    assert (_job_runs(wh), _count(wh, "triscale_kpi_history")) == (runs, rows)

    bad = cli("--scheduler", client.scheduler.address, "analyze", "kpi", warehouse=wh.root)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Traceback" not in bad.stderr
    errors = [line for line in bad.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {message}"]
    assert (_job_runs(wh), _count(wh, "triscale_kpi_history")) == (runs, rows)
    client.wait_for_workers(2, timeout=120)  # the cluster is still whole for the next tests


def _start_cluster_cli(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfwarehouse", "cluster", "local", "--workers", "1",
         "--port", "0", "--no-dashboard", "--memory-limit", "2GB"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdout is not None
    found: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Dask scheduler at "):
                found.append(line.split()[3])

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 120
    while not found and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    if not found:
        proc.kill()
        raise AssertionError(f"cluster local did not start: {proc.stderr.read() if proc.stderr else ''}")
    return proc, found[0]


def test_the_command_line_runs_on_a_cluster_local(both_campaigns: Warehouse, tmp_path: Path,
                                                  cli: Any) -> None:
    proc, address = _start_cluster_cli(tmp_path)
    try:
        assert address.startswith("tcp://127.0.0.1:")
        wh = both_campaigns.root
        local = cli("analyze", "kpi", warehouse=wh, check=True)
        remote = cli("--scheduler", address, "analyze", "kpi", warehouse=wh, check=True)
        by_env = cli("analyze", "kpi", warehouse=wh, check=True,
                     extra_env={"PERFWAREHOUSE_SCHEDULER": address})
        ids = [int(r.stdout.split("job_run_id ")[1].split(",")[0]) for r in (local, remote, by_env)]
        assert len(set(ids)) == 3
        with both_campaigns.catalog() as con:
            tables = [con.sql("SELECT * EXCLUDE (job_run_id) FROM triscale_kpi_history "
                              "WHERE job_run_id = ?", params=[i]).to_arrow_table() for i in ids]
        assert tables[0].num_rows > 0
        assert_same_tables({"kpi": tables[0]}, {"kpi": tables[1]})
        assert_same_tables({"kpi": tables[0]}, {"kpi": tables[2]})
        bad = cli("--scheduler", "tcp://127.0.0.1:1", "analyze", "kpi", warehouse=wh)
        assert bad.returncode == 1
        assert bad.stderr.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:1")
        assert len(bad.stderr.strip().splitlines()) == 1
        # `analyze all` goes to the scheduler too (it ran every job here, silently, before)
        bad_all = cli("--scheduler", "tcp://127.0.0.1:1", "analyze", "all", warehouse=wh)
        assert bad_all.returncode == 1
        assert bad_all.stderr.startswith("error: cannot reach the Dask scheduler")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
