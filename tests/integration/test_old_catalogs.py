"""Warehouses made by earlier code open and migrate now that every result table is a
contract (perfwarehouse/warehouse/contracts.py): their catalog takes the shape of a new
one (the columns added since, by the contracts' generated migrations), keeps its rows,
and the jobs write into it what they write into a new warehouse.

The old catalogs are tests/fixtures/catalogs/<commit>.sql, made by the code at that
commit (tests/fixtures/generate/old_catalogs.sh)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from perfwarehouse.ingest.service import ingest_ordersage
from perfwarehouse.jobs import get, run_job
from perfwarehouse.warehouse.contracts import CHANGE_POINTS
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.conftest import ORDERSAGE_DIRS, REPO

pytestmark = pytest.mark.integration

CATALOGS = sorted((REPO / "tests" / "fixtures" / "catalogs").glob("*.sql"))
#: a change-points row as the oldest catalog's table has it (before 081b-081e)
OLD_ROW = {"job_run_id": 1, "campaign": "c", "hardware_type": "hw", "config_id": 7,
           "benchmark": "b", "settings": "{}", "metric": "result", "ordered_by": "time",
           "n_points": 20, "change_pct": 5.0, "confidence": 0.99, "alpha": 0.01,
           "reason": "no significant change"}


def _old_warehouse(root: Path, fixture: Path) -> Warehouse:
    """A warehouse whose catalog the old code made, with one change-points run in it."""
    wh = Warehouse(root, lock_timeout_s=5.0)
    root.mkdir(parents=True)
    con = duckdb.connect(str(wh.catalog_path))
    try:
        con.execute(fixture.read_text())
        con.execute("INSERT INTO job_runs VALUES (1, 'change-points', '{}', ['c'], [], 'old', "
                    "TIMESTAMPTZ '2026-11-01 00:00:00+00', 0.5, 1)")
        names = ", ".join(OLD_ROW)
        con.execute(f"INSERT INTO change_points_history ({names}) VALUES "
                    f"({', '.join('?' for _ in OLD_ROW)})", list(OLD_ROW.values()))
    finally:
        con.close()
    return wh


def _shape(wh: Warehouse) -> tuple[list[tuple], list[tuple]]:
    """Every table's columns (name, type, nullability, default) and constraints."""
    con = duckdb.connect(str(wh.catalog_path), read_only=True)
    try:
        cols = con.execute(
            "SELECT c.table_name, c.column_index, c.column_name, c.data_type, c.is_nullable, "
            "c.column_default FROM duckdb_columns() c JOIN duckdb_tables() t "
            "USING (database_name, schema_name, table_name) ORDER BY 1, 2").fetchall()
        cons = con.execute(
            "SELECT table_name, constraint_type, constraint_column_names::VARCHAR "
            "FROM duckdb_constraints() ORDER BY ALL").fetchall()
    finally:
        con.close()
    return cols, cons


def _new_warehouse(root: Path) -> Warehouse:
    wh = Warehouse(root, lock_timeout_s=5.0)
    with wh.writing("test"):
        pass
    return wh


@pytest.mark.parametrize("fixture", CATALOGS, ids=[p.stem for p in CATALOGS])
def test_an_old_catalog_migrates_to_the_shape_of_a_new_one(tmp_path, fixture: Path) -> None:
    old = _old_warehouse(tmp_path / "old", fixture)
    with old.writing("test"):  # opening it for writing migrates it
        pass
    assert _shape(old) == _shape(_new_warehouse(tmp_path / "new"))
    with old.catalog() as con:
        rows = fetch_arrow(con, "SELECT * FROM change_points").to_pylist()
    later = [c.name for c in CHANGE_POINTS.columns if c.since]
    assert len(rows) == 1 and later
    assert {k: rows[0][k] for k in OLD_ROW if k != "job_run_id"} == {
        k: v for k, v in OLD_ROW.items() if k != "job_run_id"}
    assert all(rows[0][name] is None for name in later)  # NULL for the earlier runs


def test_jobs_write_into_a_migrated_catalog_what_they_write_into_a_new_one(tmp_path) -> None:
    results = []
    for wh in (_old_warehouse(tmp_path / "old", CATALOGS[0]), Warehouse(tmp_path / "new")):
        ingest_ordersage(wh, [ORDERSAGE_DIRS["memcached"]])
        for name in ("variability", "order-effects"):
            job = get(name)
            run_job(wh, job, job.params())
        with wh.catalog() as con:
            results.append({t: fetch_arrow(con, f"SELECT * EXCLUDE (job_run_id) FROM {t} "
                                                "ORDER BY ALL").to_pylist()
                            for t in ("variability", "order_effects")})
    assert results[0]["variability"] and results[0]["order_effects"]
    assert results[0] == results[1]
