"""Analysis tables by name hold the latest job run per campaign; every run stays in
``<name>_history``; catalogs written before the views are migrated."""

from __future__ import annotations

import duckdb
import pytest

from perfwarehouse.ingest.service import ingest_ordersage
from perfwarehouse.jobs import get, run_job
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.conftest import ORDERSAGE_DIRS

pytestmark = pytest.mark.integration

#: the README's own query (section "Does the order of trials change the results?")
README_QUERY = ("SELECT benchmark, settings, metric, hardware_type, kw_p, delta_pct, ci_case "
                "FROM order_effects ORDER BY kw_p")


def _rows(wh: Warehouse, sql: str) -> list[dict]:
    with wh.catalog() as con:
        return fetch_arrow(con, sql).to_pylist()


def test_a_second_run_replaces_what_the_table_name_shows(tmp_path) -> None:
    wh = Warehouse(tmp_path / "wh", lock_timeout_s=5.0)
    ingest_ordersage(wh, [ORDERSAGE_DIRS["memcached"]])
    job = get("order-effects")
    first = run_job(wh, job, job.params())
    second = run_job(wh, job, job.params(alpha=0.01))
    rows = _rows(wh, README_QUERY)
    keys = [(r["benchmark"], r["settings"], r["metric"], r["hardware_type"]) for r in rows]
    assert rows and len(keys) == len(set(keys)), "each configuration once"
    runs = _rows(wh, "SELECT job_run_id, count(*) AS n FROM order_effects_history "
                     "GROUP BY 1 ORDER BY 1")
    assert [r["job_run_id"] for r in runs] == [first.job_run_id, second.job_run_id]
    assert runs[0]["n"] == runs[1]["n"] == len(rows)
    assert {r["job_run_id"] for r in _rows(wh, "SELECT job_run_id FROM order_effects")} == \
        {second.job_run_id}
    # the raw DuckDB file has the same views, for users without perfwarehouse
    con = duckdb.connect(str(wh.catalog_path), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM order_effects").fetchone()[0] == len(rows)
    finally:
        con.close()


def test_a_catalog_with_physical_result_tables_is_migrated(tmp_path) -> None:
    wh = Warehouse(tmp_path / "wh", lock_timeout_s=5.0)
    ingest_ordersage(wh, [ORDERSAGE_DIRS["memcached"]])
    job = get("order-effects")
    run = run_job(wh, job, job.params())
    n = len(_rows(wh, "SELECT * FROM order_effects"))
    # make it look like a catalog of the previous layout: a physical order_effects
    con = duckdb.connect(str(wh.catalog_path))
    try:
        con.execute("DROP VIEW order_effects")
        con.execute("ALTER TABLE order_effects_history RENAME TO order_effects")
    finally:
        con.close()
    with wh.writing("test"):
        pass
    assert len(_rows(wh, "SELECT * FROM order_effects_history")) == n
    assert {r["job_run_id"] for r in _rows(wh, "SELECT job_run_id FROM order_effects")} == \
        {run.job_run_id}
