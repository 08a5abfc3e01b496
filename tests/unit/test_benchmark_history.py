"""benchmarks/history.py writes native trial logs: its records parse without a problem,
carry the revision and its time, share a position per measurement, and the committed
entries of benchmarks/history/ do too (no timing here: the figures are not checked)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from perfwarehouse.ingest.formats.jsonl import parse

ROOT = Path(__file__).resolve().parents[2]


def history_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pw_bench_history",
                                                  ROOT / "benchmarks" / "history.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_sides_figures_are_a_trial_log_that_parses(tmp_path: Path) -> None:
    history = history_module()
    figures = [
        {"benchmark": "cli: --help", "metric": "wall", "value": 0.1, "started_at": "2026-11-28T08:00:00Z"},
        {"benchmark": "cli: --help", "metric": "cpu", "value": 0.08, "started_at": "2026-11-28T08:00:00Z"},
        {"benchmark": "change points: nightly histories", "metric": "cpu", "value": 0.6,
         "started_at": "2026-11-28T08:00:01Z"},
        {"benchmark": "cli: --help", "metric": "wall", "value": 0.11, "started_at": "2026-11-28T08:00:02Z"},
    ]
    records = history.trial_records(figures, revision="abc1234",
                                    revision_time="2026-11-28T07:51:41+00:00", node="n",
                                    hardware_type="x86_64-2cpu", run_id="abc1234-1",
                                    run_index=1)
    path = tmp_path / "entry.jsonl"
    history.write_trials(path, records)
    table, problems = parse(path.read_bytes(), str(path))
    assert problems == []
    assert table.num_rows == 4
    rows = table.to_pylist()
    assert [r["position"] for r in rows] == [0, 0, 1, 2]  # wall and cpu of one process share
    assert {r["revision"] for r in rows} == {"abc1234"}
    assert all(r["run_size"] == 4 and r["unit"] == "s" for r in rows)
    assert [r["values"] for r in rows] == [[0.1], [0.08], [0.6], [0.11]]


def entries() -> list[Path]:
    return sorted((ROOT / "benchmarks" / "history").glob("*.jsonl"))


def test_there_are_committed_entries() -> None:
    assert len(entries()) >= 2


@pytest.mark.parametrize("path", entries(), ids=lambda p: p.name)
def test_every_committed_entry_parses_with_its_revision(path: Path) -> None:
    table, problems = parse(path.read_bytes(), str(path))
    assert problems == [] and table.num_rows > 0
    first = json.loads(path.read_text().splitlines()[0])
    assert first["campaign"] == "perfwarehouse-benchmarks"
    assert first["revision"] in path.name and first["revision_time"]
    assert set(table.column("revision").to_pylist()) == {first["revision"]}
