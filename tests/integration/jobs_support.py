"""What the tests that run the jobs another way (on a Dask cluster, several at once in
worker processes) share: small warehouses, the jobs they feed, and the comparison of a
job's tables with those of a plain run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
from polars.testing import assert_frame_equal

from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import CATALOG
from perfwarehouse.warehouse.store import Warehouse

# the jobs these OrderSage-shaped campaigns feed (load and surface read load-test trials
# and peak-rate searches; tests/integration/test_load_job.py and the workbench tests run them)
JOB_NAMES = [e.name for e in CATALOG if e.name not in ("load", "surface")]
FEWER_DRAWS = {"aa-fpr": {"draws": 20}, "detectable-regression": {"draws": 20}}


def generated_warehouse(base: Path, campaigns: dict[str, float]) -> Warehouse:
    """A warehouse under ``base`` holding each generated campaign (name: scale, seed 7)."""
    wh = Warehouse(base / "warehouse", lock_timeout_s=60.0)
    for name, scale in campaigns.items():
        generate_to_file(name, base / f"{name}.jsonl", seed=7, scale=scale)
        ingest_jsonl(wh, [base / f"{name}.jsonl"])
    return wh


def sorted_frame(table: pa.Table) -> pl.DataFrame:
    """The rows in a canonical order (every column that is not a list, as sort keys)."""
    df = pl.from_arrow(table)
    assert isinstance(df, pl.DataFrame)
    keys = [name for name, dtype in df.schema.items() if not isinstance(dtype, pl.List)]
    return df.sort(keys, nulls_last=True)


def assert_same_tables(a: dict[str, pa.Table], b: dict[str, pa.Table]) -> None:
    """The same tables, schemas and rows (in any order), exactly."""
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].schema == b[name].schema, name
        assert_frame_equal(sorted_frame(a[name]), sorted_frame(b[name]), check_exact=True)


def local_cluster() -> Iterator[Any]:
    """A Dask client of a local cluster of two worker processes on 127.0.0.1, one thread
    each (under nannies that restart a dead one); closed when the generator ends. The
    body of the cluster tests' ``client`` fixtures."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        scheduler_port=0, dashboard_address=":0", memory_limit="2GB")
    c = distributed.Client(cluster, set_as_default=False)
    try:
        yield c
    finally:
        c.close()
        cluster.close()
