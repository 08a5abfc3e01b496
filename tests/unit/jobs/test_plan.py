"""Planning a job's pieces (the same plan runs locally and on a Dask cluster): every
partition once, large partitions of per-configuration jobs in slices of whole
configurations, each piece with exactly its partition's files, in a fixed order."""

from __future__ import annotations

from pathlib import Path

from perfwarehouse.jobs import get
from perfwarehouse.jobs.framework import plan_job
from perfwarehouse.warehouse.store import DataFile, Warehouse


def _files() -> list[DataFile]:
    return [DataFile("measurements/campaign=b/hardware_type=x/b1-0.parquet", 1, "b", "x", 900),
            DataFile("measurements/campaign=a/hardware_type=y/b1-0.parquet", 1, "a", "y", 250),
            DataFile("measurements/campaign=a/hardware_type=x/b1-0.parquet", 1, "a", "x", 100),
            DataFile("measurements/campaign=a/hardware_type=x/b2-0.parquet", 2, "a", "x", 150)]


def test_pieces_of_a_per_configuration_job(tmp_path: Path) -> None:
    job = get("variability")
    plan = plan_job(Warehouse(tmp_path), job, job.params(), _files(), slice_rows=300)
    got = [(p.index, p.key, p.config_slice, sorted(f.batch_id for f in p.files))
           for p in plan.pieces]
    assert got == [(0, ("a", "x"), None, [1, 2]),
                   (1, ("a", "y"), None, [1]),
                   (2, ("b", "x"), (0, 3), [1]), (3, ("b", "x"), (1, 3), [1]),
                   (4, ("b", "x"), (2, 3), [1])]
    assert plan.pieces[3].label == "campaign=b hardware_type=x slice 2/3"
    assert plan.pieces[0].label == "campaign=a hardware_type=x"
    assert plan.root == str(tmp_path)


def test_a_job_that_needs_whole_partitions_is_never_sliced(tmp_path: Path) -> None:
    job = get("profile")
    plan = plan_job(Warehouse(tmp_path), job, job.params(), _files(), slice_rows=10)
    assert [(p.key, p.config_slice) for p in plan.pieces] == [
        (("a", "x"), None), (("a", "y"), None), (("b", "x"), None)]
