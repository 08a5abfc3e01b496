"""The demo's background warm-up: a real child process running a tiny demo in a temporary
directory next to the warehouse, which it leaves behind neither when it finishes nor when
it is stopped early."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfwarehouse.demo import _start_warm_up, _stop_warm_up
from perfwarehouse.warehouse.store import Warehouse


def _warm_up_dirs(parent: Path) -> list[Path]:
    return sorted(parent.glob(".perfwarehouse-demo-warm-up-*"))


@pytest.mark.slow
def test_the_warm_up_runs_a_whole_demo_and_cleans_up(tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "warehouse")
    child, tmp = _start_warm_up(warehouse, seed=1)
    assert _warm_up_dirs(tmp_path) == [tmp] and not warehouse.root.exists()
    assert child.wait(timeout=900) == 0  # the tiny demo ran every job and report
    assert (tmp / "warehouse").is_dir() and (tmp / "reports" / "fleet.html").is_file()
    _stop_warm_up(child, tmp)
    assert _warm_up_dirs(tmp_path) == []
    assert not warehouse.root.exists()  # the user's warehouse is never touched


def test_a_warm_up_stopped_early_is_killed_and_removed(tmp_path: Path) -> None:
    child, tmp = _start_warm_up(Warehouse(tmp_path / "warehouse"), seed=1)
    _stop_warm_up(child, tmp)
    assert child.returncode is not None and child.returncode != 0
    with pytest.raises(ProcessLookupError):
        os.kill(child.pid, 0)
    assert _warm_up_dirs(tmp_path) == []
