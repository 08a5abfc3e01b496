"""The parse bar of ``ingest jsonl`` follows DuckDB's progress, never backwards."""
from __future__ import annotations

import threading
from pathlib import Path

from perfwarehouse.ingest import service, stage


class _Recorder:
    def __init__(self) -> None:
        self.completed: list[float] = []

    def advance(self, amount: float = 1) -> None:
        pass

    def update(self, completed: float | None = None, total: float | None = None) -> None:
        if completed is not None:
            self.completed.append(completed)


class _Connection:
    """Answers query_progress() from a script: -1 (no estimate), then a first query's
    estimates, then a second query's, which start again from 0."""

    def __init__(self, script: list[float], done: threading.Event) -> None:
        self.script, self.done = list(script), done

    def query_progress(self) -> float:
        if not self.script:
            self.done.set()
            return -1.0
        return self.script.pop(0)


def test_the_bar_only_moves_forward_and_ends_full() -> None:
    done = threading.Event()
    task = _Recorder()
    con = _Connection([-1.0, 10.0, 60.0, 5.0, 40.0, 90.0, 120.0], done)
    service._watch_progress(con, 200.0, task, 50.0, done)  # type: ignore[arg-type]
    assert task.completed == [70.0, 170.0, 230.0, 250.0, 250.0]
    assert task.completed == sorted(task.completed)


def test_duckdb_reports_progress_on_the_batch_connection(tmp_path: Path) -> None:
    """Without the progress bar setting DuckDB's query_progress() is -1 for the whole
    read (the demo's parse bar sat at 0 % for 52 s)."""
    path = tmp_path / "t.jsonl"
    path.write_text('{"campaign": "c"}\n')
    batch = stage.Batch(str(path), "jsonl")
    try:
        service._read_jsonl(batch, path, _Recorder(), 0.0)  # type: ignore[arg-type]
        assert batch.con.execute("SELECT current_setting('enable_progress_bar')").fetchone() == (True,)
    finally:
        batch.close()
