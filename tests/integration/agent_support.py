"""Helpers for the agent/pull tests: real `agent serve` processes, tokens, sources files,
and a fast writer of native trial segments."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from tests.conftest import REPO


def write_token(path: Path) -> str:
    token = secrets.token_urlsafe(32)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return token


def write_sources(path: Path, agents: list[tuple[str, str, Path]]) -> Path:
    lines = []
    for name, url, token_file in agents:
        lines += ["[[agent]]", f'name = "{name}"', f'url = "{url}"', f'token_file = "{token_file}"',
                  ""]
    path.write_text("\n".join(lines))
    return path


def perfwarehouse(*args: str) -> list[str]:
    return [sys.executable, "-m", "perfwarehouse", *args]


@contextmanager
def agent_server(spool: Path, token_file: Path, port: int = 0) -> Iterator[str]:
    """Run `perfwarehouse agent serve` as a real process; yields its base URL."""
    proc = subprocess.Popen(
        perfwarehouse("agent", "serve", "--spool", str(spool), "--port", str(port),
                      "--token-file", str(token_file)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "http://" not in line:
            proc.kill()
            raise AssertionError(f"agent serve did not start: {line}{proc.stderr.read()}")  # type: ignore[union-attr]
        yield "http://" + line.split("http://", 1)[1].split()[0]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_trials(path: Path, n_trials: int, *, first_run: int = 0, run_size: int = 50,
                 campaign: str = "pulled", node: str = "n-1", append: bool = False) -> None:
    """Write (or append) ``n_trials`` native records: runs of ``run_size`` trials over
    ``run_size`` tests, run ``first_run`` onwards. Fast (DuckDB writes the JSON)."""
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        tmp = path.with_name(path.name + ".part")
        con.execute(f"""
            COPY (
                SELECT 1 AS v, $campaign AS campaign, 'r' || CAST(run AS VARCHAR) AS run_id,
                       $node AS node, 'n' AS hardware_type, run AS run_index,
                       CASE WHEN run % 2 = 0 THEN 'fixed' ELSE 'random' END AS order_kind,
                       CAST(run * 7 AS VARCHAR) AS seed, pos AS position, $run_size AS run_size,
                       't' || CAST((pos * 7 + run * (run % 2)) % $run_size AS VARCHAR) AS benchmark,
                       '{{}}'::JSON AS settings, 'result' AS metric,
                       [round(1 + (i % 1009) / 8.0 + run / 1000.0, 4)] AS "values",
                       strftime(TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(i),
                                '%Y-%m-%dT%H:%M:%SZ') AS started_at,
                       'ok' AS status
                FROM (SELECT i, $first_run + i // $run_size AS run, i % $run_size AS pos
                      FROM range($n) t(i))
            ) TO '{tmp}' (FORMAT json)""",
            {"campaign": campaign, "node": node, "run_size": run_size, "first_run": first_run,
             "n": n_trials})
        data = tmp.read_bytes()
        tmp.unlink()
    finally:
        con.close()
    with open(path, "ab" if append else "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def expected_totals(path: Path) -> tuple[int, float]:
    """(trials, sum of values) of a segment, read independently with DuckDB."""
    con = duckdb.connect()
    try:
        rows = con.execute(
            "SELECT count(*), sum(list_sum(\"values\")) FROM read_json(?, "
            "format='newline_delimited')", [str(path)]).fetchall()
    finally:
        con.close()
    return int(rows[0][0]), float(rows[0][1])


def warehouse_totals(home: Path) -> tuple[int, int, float]:
    """(trials, distinct trial identities, sum of values) in the warehouse at ``home``."""
    if not (home / "catalog.duckdb").exists():
        return 0, 0, 0.0
    from perfwarehouse.warehouse.store import Warehouse

    with Warehouse(home, lock_timeout_s=60).catalog() as con:
        rows = con.execute("""
            SELECT (SELECT count(*) FROM trials),
                   (SELECT count(DISTINCT (campaign, run_id, position, config_id)) FROM trials),
                   (SELECT coalesce(sum(value), 0) FROM measurements)""").fetchall()
    return int(rows[0][0]), int(rows[0][1]), float(rows[0][2])


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.05):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not reached in time")
