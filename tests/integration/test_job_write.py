"""A job's result rows reach the catalog by one streamed insert per table
(``catalog.record_job_run``): the stored rows are the parts' rows in order, a part that
does not fit its contract or a process killed before the commit writes nothing, and one
killed after it has written everything. The parts hold more rows together than a DuckDB
row group (122,880), so the insert writes a row group to the catalog file before the
commit, the path that keeps the write's memory flat."""

from __future__ import annotations

import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from perfwarehouse.warehouse.catalog import record_job_run
from perfwarehouse.warehouse.contracts import contract
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_value

pytestmark = pytest.mark.integration

OUTPUT = "variability"
PART_ROWS = (70_000, 0, 90_000, 1_000)  # 161,000 rows: more than a row group, an empty part


def synthetic(rows: int, start: int) -> pa.Table:
    """``rows`` rows of ``OUTPUT``'s contract, every value derived from its row number."""
    columns = []
    index = pa.array(range(start, start + rows), pa.int64())
    for field in contract(OUTPUT).schema:
        t = field.type
        if pa.types.is_string(t):
            columns.append(pc.binary_join_element_wise(field.name, index.cast(pa.string()), "-"))
        elif pa.types.is_boolean(t):
            columns.append(pc.equal(pc.bit_wise_and(index, 3), 0))
        elif pa.types.is_floating(t):
            columns.append(pc.divide(index.cast(t), 7))
        else:
            columns.append(index.cast(t))
    return pa.table(columns, schema=contract(OUTPUT).schema)


def parts() -> list[pa.Table]:
    out, start = [], 0
    for rows in PART_ROWS:
        out.append(synthetic(rows, start))
        start += rows
    return out


def write(wh: Warehouse, tables: list[pa.Table]) -> int:
    with wh.writing("test") as session:
        return record_job_run(
            session, job=OUTPUT, params_json="{}", campaigns=["c"], batches=[],
            version="test", started_at=datetime.now(timezone.utc), duration_s=0.0,
            tables={OUTPUT: iter(tables)})


def stored(wh: Warehouse) -> pa.Table:
    with wh.catalog() as con:
        return fetch_arrow(con, f"SELECT * FROM {contract(OUTPUT).stored_as} ORDER BY rowid")


def runs(wh: Warehouse) -> int:
    with wh.catalog() as con:
        return int(fetch_value(con, "SELECT count(*) FROM job_runs"))


def test_streamed_rows_are_the_parts_rows_in_order(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    expected = pa.concat_tables(parts())
    job_run_id = write(wh, parts())
    rows = stored(wh)
    assert rows.num_rows == sum(PART_ROWS)
    assert rows.column("job_run_id").unique().to_pylist() == [job_run_id]
    assert rows.drop_columns(["job_run_id"]).equals(expected)
    with wh.catalog() as con:
        assert fetch_value(con, "SELECT rows_out FROM job_runs WHERE job_run_id = ?",
                           [job_run_id]) == sum(PART_ROWS)


def test_a_part_that_breaks_the_contract_writes_nothing(tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh")
    bad = parts()
    bad[2] = bad[2].drop_columns(["campaign"])  # a NOT NULL column missing, after 70,000 rows
    with pytest.raises(ValueError, match="missing NOT NULL columns"):
        write(wh, bad)
    assert stored(wh).num_rows == 0 and runs(wh) == 0
    write(wh, parts())  # and the catalog takes the next write
    assert stored(wh).num_rows == sum(PART_ROWS) and runs(wh) == 1


SCRIPT = """
import sys
from pathlib import Path
from perfwarehouse.warehouse.store import Warehouse
from tests.integration.test_job_write import parts, write
write(Warehouse(Path(sys.argv[1])), parts())
"""


@pytest.mark.parametrize(("point", "written"), [("job-rows-inserted", False),
                                                 ("job-committed", True)])
def test_killed_while_writing_writes_nothing_or_everything(
        tmp_path: Path, point: str, written: bool) -> None:
    wh = Warehouse(tmp_path / "wh")
    write(wh, parts()[:1])  # a run before, which must stay as it is
    before = stored(wh)
    root = Path(__file__).resolve().parents[2]
    env = {"PERFWAREHOUSE_KILL_AT": point, "PYTHONPATH": str(root)}
    killed = subprocess.run([sys.executable, "-c", SCRIPT, str(wh.root)], env=env, cwd=root,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    rows = stored(wh)
    if written:
        assert runs(wh) == 2 and rows.num_rows == before.num_rows + sum(PART_ROWS)
    else:
        assert runs(wh) == 1 and rows.equals(before)
    job_run_id = write(wh, parts())  # the next writer is not disturbed by what was left
    again = stored(wh).filter(pc.equal(stored(wh).column("job_run_id"), job_run_id))
    assert again.drop_columns(["job_run_id"]).equals(pa.concat_tables(parts()))
