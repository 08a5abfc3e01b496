"""What the ingest edge adds to the pure parsers: start times from the file's modification
time when the user asks for it, distinct run indexes for runs of different files of one batch (so that jobs see
them as separate trials), asv results directories read whole."""

from __future__ import annotations

import os
from pathlib import Path

from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import ingest_import
from perfwarehouse.jobs.row_order import in_row_order
from perfwarehouse.jobs.series import TRIAL_VALUES_ORDER, Trials
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.conftest import REPO

QUERY = (REPO / "sql" / "queries" / "triscale_trial_values.sql").read_text()
# the modification time as start time only because these tests ask for it (--started-at mtime)
OPTIONS = ImportOptions(campaign="go", node="n1", hardware_type="hw", started_at="mtime")
HEADER = "goos: linux\ngoarch: amd64\npkg: example.invalid/p\n"


def _gofile(path: Path, ns: float, mtime: float) -> Path:
    path.write_text(f"{HEADER}BenchmarkSum-2\t2000\t{ns} ns/op\nPASS\n")
    os.utime(path, (mtime, mtime))
    return path


def _trials(warehouse: Warehouse) -> Trials:
    with warehouse.catalog() as con:
        rows = fetch_arrow(con, QUERY, {"campaign": "go", "hardware_type": "hw"})
    return Trials.of(in_row_order(rows, TRIAL_VALUES_ORDER))


def test_two_go_test_files_of_one_batch_are_two_runs_and_two_trials(tmp_path: Path) -> None:
    late = _gofile(tmp_path / "b.txt", 120.0, 1_700_000_100)
    early = _gofile(tmp_path / "a-later-name.txt", 100.0, 1_700_000_000)
    warehouse = Warehouse(tmp_path / "wh")
    ingest_import(warehouse, "gotest", [late, early], OPTIONS)
    with warehouse.catalog() as con:
        runs = con.execute("SELECT run_index, epoch(started_at) FROM runs "
                           "ORDER BY run_index").fetchall()
    # both files say run 0; the edge numbers them by start time = modification time
    assert runs == [(0, 1_700_000_000.0), (1, 1_700_000_100.0)]
    # one metric (ns/op), one configuration: two trials, not one merged trial
    assert sorted(_trials(warehouse).value.tolist()) == [100.0, 120.0]


def test_runs_of_separate_batches_with_one_run_index_stay_separate_trials(
        tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "wh")
    for name, ns, mtime in (("a.txt", 100.0, 1_700_000_000), ("b.txt", 120.0, 1_700_000_000)):
        ingest_import(warehouse, "gotest", [_gofile(tmp_path / name, ns, mtime)], OPTIONS)
    with warehouse.catalog() as con:
        assert con.execute("SELECT count(DISTINCT run_id), max(run_index) FROM runs"
                           ).fetchone() == (2, 0)
    assert sorted(_trials(warehouse).value.tolist()) == [100.0, 120.0]


def test_a_file_ingested_again_with_others_keeps_its_run_and_adds_nothing(
        tmp_path: Path) -> None:
    """A stored run keeps its index whatever the batch's other files are: ingesting the
    later file alone, then both, then each alone again neither conflicts nor duplicates."""
    early = _gofile(tmp_path / "a.txt", 100.0, 1_700_000_000)
    late = _gofile(tmp_path / "b.txt", 120.0, 1_700_000_100)
    warehouse = Warehouse(tmp_path / "wh")
    ingest_import(warehouse, "gotest", [late], OPTIONS)
    for paths in ([early, late], [late, early], [early], [late]):
        ingest_import(warehouse, "gotest", paths, OPTIONS)
    with warehouse.catalog() as con:
        runs = con.execute("SELECT run_index, epoch(started_at) FROM runs "
                           "ORDER BY run_index").fetchall()
    # the stored run kept index 0; the new, earlier one took the next free index
    assert runs == [(0, 1_700_000_100.0), (1, 1_700_000_000.0)]
    assert sorted(_trials(warehouse).value.tolist()) == [100.0, 120.0]


def test_started_at_is_the_modification_time_in_utc_when_asked(tmp_path: Path) -> None:
    path = _gofile(tmp_path / "a.txt", 100.0, 1_700_000_000.5)
    warehouse = Warehouse(tmp_path / "wh")
    ingest_import(warehouse, "gotest", [path], OPTIONS)
    with warehouse.catalog() as con:
        assert con.execute("SELECT epoch(started_at) FROM runs").fetchall() == \
            [(1_700_000_000.5,)]


def test_an_asv_directory_is_read_whole_and_auto_detected(tmp_path: Path) -> None:
    good = REPO / "tests" / "fixtures" / "importers" / "asv" / "good"
    inputs, preview = ingest_import(Warehouse(tmp_path / "wh"), "auto", [good],
                                    ImportOptions(), dry_run=True)
    assert [(i.path, i.format) for i in inputs] == [(good, "asv")]
    assert inputs[0].files is not None and "bench-host-1/machine.json" in inputs[0].files
    assert preview.runs == 2  # type: ignore[union-attr]
