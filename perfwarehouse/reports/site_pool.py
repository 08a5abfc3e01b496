"""The pages of a report site built two at a time (:func:`~perfwarehouse.reports.site.write_site`).

Building the pages is most of a site's time and all of it ran on one core (the demo's
site: about 17 CPU s, its longest one-core step, issue 38). :class:`PageBuilders` is
given every page, viewer and the shared assets at once and hands each result back when
the site takes it, in the site's own order, so the site writes the same files: built
here one after another (small warehouses: a worker's start costs about 2 CPU s of
imports), or by worker processes when the warehouse holds :data:`PARALLEL_FROM_ROWS`
measurements or more. Workers are spawned (DuckDB keeps threads, so no ``fork``) and read
the warehouse through read-only connections of their own; an error is raised where its
result is taken, as when building here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfwarehouse.reports import drilldown
from perfwarehouse.reports.base import ReportData, Request
from perfwarehouse.reports.page import Page
from perfwarehouse.reports.render import write_assets
from perfwarehouse.reports.viewer_data import Held, write_data
from perfwarehouse.warehouse.store import Warehouse

if TYPE_CHECKING:
    from perfwarehouse.reports.campaigns import Campaign

PARALLEL_FROM_ROWS = 500_000
"""Measurements from which the pages are built by worker processes."""

MAX_WORKERS = 2

#: A task: (what, argument): ("page", (page name, request)), ("viewer", (campaign,
#: linked configuration ids, data file)) or ("assets", directory).
Task = tuple[str, Any]


class PageBuilders:
    """Every page, viewer and the assets of one site; see the module docstring."""

    def __init__(self, warehouse: Warehouse, data: ReportData) -> None:
        self._warehouse = warehouse
        self._data = data
        self._tasks: dict[tuple[str, str], Task] = {}
        self._futures: dict[tuple[str, str], Future[Any]] = {}
        self._pool: ProcessPoolExecutor | None = None

    def start(self, out_dir: Path, plan: Sequence[tuple[Campaign, Sequence[str]]],
              assets: bool = True) -> None:
        """Start on the assets (unless ``assets`` is false) and on each campaign's pages
        (and viewer, but for a load test: a load level has no order or time to drill). A
        viewer that cannot hold every configuration of its campaign
        (:data:`~perfwarehouse.reports.drilldown.VIEWER_LIMIT`) waits for the pages, to hold
        every configuration they link (:meth:`viewer`)."""
        tasks: dict[tuple[str, str], Task] = (
            {("", "assets"): ("assets", out_dir / "assets")} if assets else {})
        for c, names in plan:
            viewer = c.kind != "load test"
            request = drilldown.campaign_request(c.name) if viewer else Request(c.name)
            tasks.update({(c.name, n): ("page", (n, request)) for n in names})
            if viewer and drilldown.count(self._data, c.name) <= drilldown.VIEWER_LIMIT:
                tasks[(c.name, drilldown.VIEWER)] = (
                    "viewer", (c.name, (), out_dir / c.slug / drilldown.DATA))
        workers = min(MAX_WORKERS, os.cpu_count() or 1)
        if workers > 1 and sum(c.rows for c, _n in plan) >= PARALLEL_FROM_ROWS:
            import multiprocessing

            self._pool = ProcessPoolExecutor(workers, multiprocessing.get_context("spawn"))
            self._futures = {key: self._pool.submit(_run, self._where, task)
                             for key, task in tasks.items()}
        else:
            self._tasks = tasks
            if assets:
                self._take(("", "assets"))

    @property
    def _where(self) -> tuple[Path, float]:
        return (self._warehouse.root, self._warehouse.lock_timeout_s)

    def _take(self, key: tuple[str, str]) -> Any:
        if self._pool is not None:
            return self._futures.pop(key).result()
        return run_task(self._data, self._tasks.pop(key))

    def page(self, campaign: str, name: str) -> Page:
        """The page ``name`` of ``campaign`` (its :class:`UsageError` if it needs a
        selection)."""
        page: Page = self._take((campaign, name))
        return page

    def viewer(self, campaign: str, linked: set[int], path: Path) -> Held:
        """``campaign``'s drill-down data file written to ``path``, holding (at least)
        the configurations ``linked`` (the site's pages link them), and what its viewer
        page lists."""
        key = (campaign, drilldown.VIEWER)
        if key not in self._tasks and key not in self._futures:  # waited for the pages
            task: Task = ("viewer", (campaign, tuple(sorted(linked)), path))
            if self._pool is not None:
                self._futures[key] = self._pool.submit(_run, self._where, task)
            else:
                self._tasks[key] = task
        held: Held = self._take(key)
        return held

    def finish(self) -> None:
        """Wait for the assets (and raise their error)."""
        if ("", "assets") in self._futures:
            self._take(("", "assets"))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def page_builders(warehouse: Warehouse, data: ReportData) -> Iterator[PageBuilders]:
    """:class:`PageBuilders` whose workers stop when the block ends (or fails)."""
    builders = PageBuilders(warehouse, data)
    try:
        yield builders
    finally:
        builders.close()


def run_task(data: ReportData, task: Task) -> Any:
    """One task on ``data``: a page, a viewer's records, or the assets written."""
    what, arg = task
    if what == "page":
        from perfwarehouse.reports import get

        name, request = arg
        return get(name).build(data, request)
    if what == "viewer":
        campaign, linked, path = arg
        return write_data(path, drilldown.read(data, campaign, linked))
    return write_assets(arg)


_worker_data: dict[tuple[Path, float], tuple[Any, ReportData]] = {}


def _run(where: tuple[Path, float], task: Task) -> Any:
    """In a worker: :func:`run_task` on the worker's own read-only connection, opened at
    its first task and kept for the others (opening one creates the views over every data
    file); it closes when the worker ends, with the site."""
    if task[0] == "assets":
        return write_assets(task[1])
    if where not in _worker_data:
        opened = Warehouse(where[0], lock_timeout_s=where[1]).catalog()
        _worker_data[where] = (opened, ReportData(opened.__enter__()))
    return run_task(_worker_data[where][1], task)
