"""The warehouse's pieces (issue 37: the warehouse hands them out; issue 44: pieces sized
by rows and by configurations, so a job's working memory is bounded at 10^6
configurations): every partition once, in key order, each with exactly its files; a
partition cut into slices of whole configurations by whichever bound needs more."""

from __future__ import annotations

import pyarrow as pa
import pytest

from perfwarehouse.jobs import get
from perfwarehouse.jobs.framework import SLICE_CONFIGURATIONS, plan_job
from perfwarehouse.warehouse.layout import DataFile
from perfwarehouse.warehouse.pieces import Snapshot, cut
from perfwarehouse.warehouse.store import Warehouse


def _file(campaign: str, hardware: str, rows: int, batch: int = 1) -> DataFile:
    return DataFile(f"measurements/campaign={campaign}/hardware_type={hardware}/b{batch}-0.parquet",
                    batch, campaign, hardware, rows)


FILES = [_file("b", "x", 900), _file("a", "y", 250), _file("a", "x", 100),
         _file("a", "x", 150, batch=2)]


def test_one_piece_per_partition_in_key_order_with_its_files() -> None:
    pieces = cut(FILES, ("campaign", "hardware_type"))
    assert [(p.index, p.key, p.config_slice) for p in pieces] == [
        (0, ("a", "x"), None), (1, ("a", "y"), None), (2, ("b", "x"), None)]
    assert [sorted(f.batch_id for f in p.files) for p in pieces] == [[1, 2], [1], [1]]
    assert [p.file_rows for p in pieces] == [250, 250, 900]
    assert [p.key for p in cut(FILES, ("campaign",))] == [("a",), ("b",)]


@pytest.mark.parametrize(("slice_rows", "slice_configurations", "configurations", "slices"), [
    (300, None, None, [1, 1, 3]),        # by rows only: 900 rows -> 3 slices
    (10_000, 100, None, [3, 3, 9]),      # no count known: a configuration per row
    (10_000, 100, 150, [2, 2, 2]),       # at most 150 configurations in a partition
    (300, 100, 150, [2, 2, 3]),          # whichever bound needs more slices
    (10_000, 1_000, 150, [1, 1, 1]),     # neither bound reached
])
def test_slices_are_sized_by_rows_and_by_configurations(
        slice_rows: int, slice_configurations: int | None, configurations: int | None,
        slices: list[int]) -> None:
    pieces = cut(FILES, ("campaign", "hardware_type"), slice_rows=slice_rows,
                 slice_configurations=slice_configurations, configurations=configurations)
    by_key: dict[tuple[str, ...], list[tuple[int, int] | None]] = {}
    for p in pieces:
        by_key.setdefault(p.key, []).append(p.config_slice)
    assert [len(v) for v in by_key.values()] == slices
    for key, found in by_key.items():  # slices i of k, each once, k the count
        k = len(found)
        assert found == ([None] if k == 1 else [(i, k) for i in range(k)]), key
    assert [p.index for p in pieces] == list(range(len(pieces)))


def test_a_snapshot_bounds_a_partition_by_the_configurations_it_holds() -> None:
    configurations = pa.table({"config_id": pa.array(range(150), pa.uint64())})
    snapshot = Snapshot(FILES, configurations)
    assert snapshot.campaigns == ["a", "b"] and snapshot.batches == [1, 2]
    pieces = snapshot.pieces(("campaign", "hardware_type"), slice_rows=10_000,
                             slice_configurations=100)
    assert [p.config_slice for p in pieces] == [(0, 2), (1, 2)] * 3
    assert snapshot.whole().files == tuple(FILES)


def test_a_job_plan_slices_a_partition_of_many_configurations(tmp_path) -> None:
    """A per-configuration job's plan: a partition of 10^6 one-value configurations (in
    one file of 10^6 rows, under the row bound) is cut so that no piece holds more than
    :data:`SLICE_CONFIGURATIONS` configurations; a job over whole partitions is not."""
    n = 1_000_000
    files = [_file("many", "hw", n)]
    configurations = pa.table({"config_id": pa.array(range(n), pa.uint64())})
    snapshot = Snapshot(files, configurations)
    job = get("variability")
    plan = plan_job(Warehouse(tmp_path), job, job.params(), snapshot)
    k = -(-n // SLICE_CONFIGURATIONS)
    assert k > 1 and [p.config_slice for p in plan.pieces] == [(i, k) for i in range(k)]
    whole = get("profile")
    assert [p.config_slice for p in plan_job(Warehouse(tmp_path), whole, whole.params(),
                                             snapshot).pieces] == [None]
