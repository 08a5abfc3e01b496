"""The report site built by worker processes (:mod:`perfwarehouse.reports.site_pool`, a
big warehouse) is the site built here one page after another, file for file; a page
that needs a selection is still left out with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.reports import site_pool
from perfwarehouse.reports.site import write_site
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import ORDERSAGE_DIRS
from tests.reports_support import analyse

pytestmark = pytest.mark.integration


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_worker_processes_write_the_same_site(small_longterm: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    wh = Warehouse(tmp_path / "warehouse", lock_timeout_s=60.0)
    ingest_jsonl(wh, [small_longterm])
    ingest_ordersage(wh, [ORDERSAGE_DIRS["memcached"]], campaign="memcached")
    analyse(wh, "order-effects")
    said_here: list[str] = []
    write_site(wh, tmp_path / "here", echo=said_here.append)
    started: list[int] = []
    real = site_pool.ProcessPoolExecutor

    def counted(workers: int, context: object) -> object:
        started.append(workers)
        return real(workers, context)  # type: ignore[arg-type]

    monkeypatch.setattr(site_pool, "PARALLEL_FROM_ROWS", 0)
    monkeypatch.setattr(site_pool, "ProcessPoolExecutor", counted)
    monkeypatch.setattr(site_pool.os, "cpu_count", lambda: 2)
    said_pool: list[str] = []
    write_site(wh, tmp_path / "pool", echo=said_pool.append)
    assert started == [2]  # the pages were built by two worker processes
    here, pool = _files(tmp_path / "here"), _files(tmp_path / "pool")
    assert len(here) > 10 and "assets/vega.js" in here
    assert here == pool
    assert [s.replace("/pool/", "/here/") for s in said_pool] == said_here
