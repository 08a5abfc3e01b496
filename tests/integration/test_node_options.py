"""`--node` fills in the machine only where a file names none (and says so where it
names one); `--force-node` replaces it (issue 40), through the real command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO, CliRunner

pytestmark = pytest.mark.integration

SUITE = REPO / "tests" / "fixtures" / "importers" / "pyperf" / "good" / "suite.json"


def _machines(home: Path) -> list[tuple]:
    with Warehouse(home).catalog() as con:
        return con.execute("SELECT DISTINCT node, hardware_type FROM measurements").fetchall()


def test_node_keeps_a_named_machine_and_force_node_replaces_it(cli: CliRunner,
                                                               tmp_path: Path) -> None:
    meta = json.loads(SUITE.read_text())["metadata"]
    kept = cli("ingest", "pyperf", str(SUITE), "--node", "spare", check=True)
    assert _machines(tmp_path / "warehouse") == [(meta["hostname"], meta["cpu_model_name"])]
    note = [line for line in kept.stderr.splitlines() if line.startswith("note:")]
    assert len(note) == 1 and "--node spare" in note[0] and "--force-node" in note[0]
    cli("ingest", "pyperf", str(SUITE), "--force-node", "lab-1", "--hardware-type", "c5",
        warehouse=tmp_path / "forced", check=True)
    assert _machines(tmp_path / "forced") == [("lab-1", "c5")]
    both = cli("ingest", "pyperf", str(SUITE), "--node", "a", "--force-node", "b")
    assert both.returncode == 1
    assert [line for line in both.stderr.splitlines() if line.strip()] == [
        "error: --node fills in the machine where a file names none, --force-node replaces "
        "it everywhere: give one of them"]
