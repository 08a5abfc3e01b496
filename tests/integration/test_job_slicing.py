"""Per-configuration jobs computed in slices of configurations give the same tables as
in one piece: the bounded-memory path that SPEC 10's 23M-trial campaign takes (one
hardware type of ten million measurements), forced here on small campaigns."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal

from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import JOBS, get, run_job
from perfwarehouse.warehouse.store import Warehouse

pytestmark = pytest.mark.integration

SLICE_ROWS = 5_000
PER_CONFIGURATION = sorted(job.name for job in JOBS if job.per_configuration)
FEWER_DRAWS = {"aa-fpr": {"draws": 20}, "detectable-regression": {"draws": 20}}


@pytest.fixture(scope="module")
def both_campaigns(small_longterm: Path, small_laaber: Path,
                   tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    wh = Warehouse(tmp_path_factory.mktemp("slicing") / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [small_longterm])
    ingest_jsonl(wh, [small_laaber])
    return wh


def test_the_jobs_that_may_be_sliced() -> None:
    # the jobs that compare or pool configurations (order and predecessor effects
    # size families over all of them; the profile pools every configuration of a
    # hardware type) must see a whole partition
    assert PER_CONFIGURATION == sorted(
        ("variability", "aa-fpr", "detectable-regression", "convergence", "kpi",
         "variability-score", "independence", "trends", "change-points"))


def _sorted(table: pa.Table) -> pl.DataFrame:
    df = pl.from_arrow(table)
    assert isinstance(df, pl.DataFrame)
    keys = [name for name, dtype in df.schema.items() if not isinstance(dtype, pl.List)]
    return df.sort(keys, nulls_last=True)


@pytest.mark.parametrize("name", PER_CONFIGURATION)
def test_sliced_tables_equal_whole_ones(both_campaigns: Warehouse, name: str) -> None:
    wh = both_campaigns
    sizes: dict[tuple[str, str], int] = {}
    for f in wh.snapshot().files:
        sizes[f.campaign, f.hardware_type] = sizes.get((f.campaign, f.hardware_type), 0) + f.row_count
    assert sum(n > 3 * SLICE_ROWS for n in sizes.values()) >= 3  # really sliced, several times

    job = get(name)
    params = job.params(**FEWER_DRAWS.get(name, {}))
    whole = run_job(wh, job, params, write=False).tables
    sliced = run_job(wh, job, params, write=False, slice_rows=SLICE_ROWS).tables
    assert whole.keys() == sliced.keys()
    assert sum(t.num_rows for t in whole.values()) > 0
    for output, table in whole.items():
        assert_frame_equal(_sorted(sliced[output]), _sorted(table), check_exact=True)
