"""Ingest is atomic: a process killed with SIGKILL at any step leaves the warehouse as
before the batch or after it, never in between; re-running lands the batch exactly once.
Also: a second writer waits, then gets one clear line naming the holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfwarehouse.generate import generate_to_file
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import ORDERSAGE_DIRS

pytestmark = pytest.mark.integration

STEPS = ["validated", "parquet-staged", "parquet-moved", "before-commit", "after-commit"]


def counts(root: Path) -> tuple[int, int, int]:
    """(measurements, distinct trials, batches), read through a fresh connection."""
    with Warehouse(root).catalog() as con:
        return con.execute("""SELECT (SELECT count(*) FROM measurements),
                                     (SELECT count(*) FROM trials),
                                     (SELECT count(*) FROM ingest_batches)""").fetchall()[0]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("crash") / "c.jsonl"
    generate_to_file("ordersage-longterm", out, seed=3, scale=0.02)
    return out


@pytest.mark.parametrize("step", STEPS)
def test_killed_at_each_step_then_rerun_lands_exactly_once(
    cli, tmp_path: Path, campaign: Path, step: str
) -> None:
    home = tmp_path / "warehouse"
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]), warehouse=home, check=True)
    before = counts(home)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    killed = cli("ingest", "jsonl", str(campaign), warehouse=home,
                 extra_env={"PERFWAREHOUSE_KILL_AT": step, "TMPDIR": str(temporary)})
    assert killed.returncode == -signal.SIGKILL
    assert not any(temporary.iterdir())  # no spill directory was left behind
    middle = counts(home)
    n = sum(1 for _ in campaign.open())
    assert middle in (before, (before[0] + n, before[1] + n, before[2] + 1))
    again = cli("ingest", "jsonl", str(campaign), warehouse=home, check=True)
    after = counts(home)
    assert after == (before[0] + n, before[1] + n, before[2] + 1)
    if middle != before:
        assert "already ingested" in again.stdout
    # the next writer removed whatever the killed one left behind
    files = sorted(p.relative_to(home).as_posix() for p in (home / "measurements").rglob("*.parquet"))
    with Warehouse(home).catalog() as con:
        recorded = sorted(r[0] for r in con.execute("SELECT path FROM data_files").fetchall())
    assert files == recorded
    assert not (home / "_staging").exists() or not any((home / "_staging").iterdir())


def test_killed_while_creating_the_warehouse_leaves_none(cli, tmp_path: Path) -> None:
    home = tmp_path / "warehouse"
    killed = cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), warehouse=home,
                 extra_env={"PERFWAREHOUSE_KILL_AT": "catalog-built"})
    assert killed.returncode == -signal.SIGKILL
    assert not (home / "catalog.duckdb").exists()
    query = cli("sql", "SELECT 1", warehouse=home)
    assert query.returncode == 1 and "no warehouse at" in query.stderr
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), warehouse=home, check=True)
    assert counts(home) == (400, 400, 1)


def test_killed_just_after_creating_the_warehouse_leaves_a_readable_one(cli, tmp_path: Path) -> None:
    # readers need more than the catalog (the empty schema file behind the view of
    # an empty warehouse): it must all exist by the time the catalog appears
    home = tmp_path / "warehouse"
    killed = cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), warehouse=home,
                 extra_env={"PERFWAREHOUSE_KILL_AT": "catalog-created"})
    assert killed.returncode == -signal.SIGKILL
    assert (home / "catalog.duckdb").exists()
    query = cli("sql", "SELECT count(*) AS n FROM measurements", "--format", "csv", warehouse=home)
    assert query.returncode == 0, query.stderr
    assert query.stdout.split() == ["n", "0"]
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), warehouse=home, check=True)
    assert counts(home) == (400, 400, 1)


def test_kill_9_from_outside_at_random_moments(cli, tmp_path: Path, campaign: Path) -> None:
    home = tmp_path / "warehouse"
    n = sum(1 for _ in campaign.open())
    env = {**os.environ, "PERFWAREHOUSE_HOME": str(home)}
    for delay in (0.4, 0.9, 1.4, 1.9, 2.6):
        proc = subprocess.Popen([sys.executable, "-m", "perfwarehouse", "-q", "ingest", "jsonl",
                                 str(campaign)], env=env, cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if (home / "catalog.duckdb").exists():
            assert counts(home)[0] in (0, n)
    cli("ingest", "jsonl", str(campaign), warehouse=home, check=True)
    assert counts(home)[:2] == (n, n)


def test_a_second_writer_waits_then_names_the_holder(cli, tmp_path: Path) -> None:
    home = tmp_path / "warehouse"
    cli("init", warehouse=home, check=True)
    holder = subprocess.Popen([sys.executable, "-c", f"""
import sys, time
from pathlib import Path
from perfwarehouse.warehouse.lock import write_lock
with write_lock(Path({str(home)!r}), "perfwarehouse ingest jsonl big.jsonl", 5):
    print("held", flush=True)
    time.sleep(30)
"""], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        result = cli("--lock-timeout", "1", "ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]),
                     warehouse=home)
        waited = time.monotonic() - start
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[-1].startswith("error: ")
    assert f"pid {holder.pid}" in lines[-1] and "ingest jsonl big.jsonl" in lines[-1]
    assert waited >= 1.0
    assert counts(home) == (0, 0, 0)


def test_a_reader_holding_the_catalog_delays_a_writer_without_a_traceback(cli, tmp_path: Path) -> None:
    home = tmp_path / "warehouse"
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]), warehouse=home, check=True)
    reader = subprocess.Popen([sys.executable, "-c", f"""
import time, duckdb
con = duckdb.connect({str(home / 'catalog.duckdb')!r}, read_only=True)
print("reading", flush=True)
time.sleep(30)
"""], stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "reading"
        result = cli("--lock-timeout", "1", "ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]),
                     warehouse=home)
    finally:
        reader.kill()
        reader.wait()
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"pid {reader.pid}" in result.stderr and "gave up after 1 s" in result.stderr
    assert counts(home)[0] == 600
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), warehouse=home, check=True)
    assert counts(home)[0] == 1000
