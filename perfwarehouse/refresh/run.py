"""The refresh loop: pull, analyse what changed, write the changed campaigns' pages, say
what is new, record the refresh point (last, in one transaction).

Order of the steps and why a killed refresh is redone, never skipped:

1. pull (each chunk lands with its cursor: :mod:`perfwarehouse.ingest.pull`);
2. run the stale or missing (job, campaign) pairs (each job run is one catalog
   transaction; a killed one leaves nothing, and the next refresh finds it stale again);
3. write the pages of the campaigns that changed since the previous *point* (a batch or
   a job run newer than it, or no pages in the site yet): a refresh killed after its
   analyses but before its pages writes them next time, because the point did not move;
4. the findings now against those at the previous point (or ``since``);
5. the new point, in one transaction. Until it commits, the previous point stands.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfwarehouse.faults import checkpoint
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.refresh.drifts import without_explained_drifts
from perfwarehouse.refresh.findings import Finding, new_findings
from perfwarehouse.refresh.points import (
    Point,
    change_points_at,
    changed_since,
    current_ids,
    findings_at,
    previous_point,
    write_point,
)
from perfwarehouse.warehouse.store import Warehouse

if TYPE_CHECKING:
    from perfwarehouse.jobs.framework import Job

#: Where ``ingest pull`` and ``refresh`` look for the agents unless told.
DEFAULT_SOURCES = Path("ingest") / "sources.toml"


@dataclass(frozen=True)
class RefreshOptions:
    """``site``: the report site's directory (None: write no pages); ``sources``: the
    agents' file (None: :data:`DEFAULT_SOURCES` when it exists, else no pull);
    ``jobs``: only these analyses (empty: every one); ``since``: compare with the job runs
    that had started before this time instead of the previous refresh point."""

    site: Path | None = Path("reports")
    sources: Path | None = None
    jobs: tuple[str, ...] = ()
    processes: int | None = None
    since: datetime | None = None
    pull_retries: int = 5


@dataclass
class RefreshResult:
    refresh_id: int
    since: str  # what "new" is measured against, in words
    new: list[Finding]
    ran: list[tuple[str, tuple[str, ...], int]]  # (job, campaigns, job_run_id)
    campaigns: list[str]  # whose pages were written
    batches: list[int]  # landed since the previous point
    trials_pulled: int = 0
    problems: list[str] = field(default_factory=list)  # pull problems (exit 1 at the end)
    index: Path | None = None
    seconds: float = 0.0


def refresh(warehouse: Warehouse, options: RefreshOptions, *,
            reporter: Reporter | None = None,
            echo: Callable[[str], None] = lambda _line: None,
            warn: Callable[[str], None] = lambda _line: None,
            scheduler: object = None) -> RefreshResult:
    """One refresh (the module docstring says the steps); ``echo`` says what each step
    did, ``warn`` the problems (a pull that failed for an agent: what landed is used)."""
    reporter = reporter or SilentReporter()
    clock = time.monotonic()
    started = datetime.now(timezone.utc)
    _check_jobs(options.jobs)
    trials, problems = _pull(warehouse, options, reporter, echo, warn)
    warehouse.require()  # a mistyped --warehouse is an error, not a new empty warehouse
    with warehouse.writing("perfwarehouse refresh"):
        pass  # creates the refreshes table in a catalog made before it
    previous = previous_point(warehouse)
    last_batch = current_ids(warehouse)[0]
    ran = _analyse(warehouse, options, reporter, echo, scheduler)
    checkpoint("refresh-analysed")
    changed, batches = changed_since(warehouse, previous)
    written: list[str] = []
    index = None
    if options.site is not None:
        from perfwarehouse.reports.refresh_site import missing_from, update_site

        written = sorted(set(changed) | set(missing_from(warehouse, options.site)))
        index = update_site(warehouse, options.site, written, reporter=reporter)
        echo(f"site: wrote the pages of {_names(written)} and {index}")
        checkpoint("refresh-site-written")
    folder = _site_folders(warehouse)
    now = findings_at(warehouse, folder)
    points_now = change_points_at(warehouse)
    if options.since is not None:
        before = findings_at(warehouse, folder, until=options.since)
        points_before = change_points_at(warehouse, until=options.since)
        since = f"{options.since:%Y-%m-%d %H:%M} UTC (--since)"
    else:
        before = _findings_at_point(warehouse, previous, folder)
        points_before = (change_points_at(warehouse, job_run=previous.last_job_run_id)
                         if previous.refresh_id is not None else [])
        since = (f"the refresh of {_utc(previous.finished_at):%Y-%m-%d %H:%M} UTC"
                 if previous.finished_at is not None else "the start (first refresh)")
    new = new_findings(now, before, (points_now, points_before))
    new = without_explained_drifts(warehouse, new, points_now)
    checkpoint("refresh-before-point")
    _batch, last_run, last_comparison = current_ids(warehouse)
    refresh_id = write_point(
        warehouse, started_at=started, finished_at=datetime.now(timezone.utc),
        ids=(last_batch, last_run, last_comparison), batches=batches,
        job_run_ids=[r[2] for r in ran], campaigns=written, since=since, findings=new)
    if options.site is not None:  # after the point: the page shows this refresh
        from perfwarehouse.reports.refresh_site import write_new_page

        echo(f"site: wrote {write_new_page(warehouse, options.site)}")
    return RefreshResult(refresh_id, since, new, ran, written, batches, trials, problems,
                         index, time.monotonic() - clock)


def _site_folders(warehouse: Warehouse) -> Callable[[str], str]:
    """Each campaign's directory in the site, as ``report all`` chooses it among all the
    warehouse's campaigns (two names that share a slug get different directories)."""
    from perfwarehouse.reports.campaigns import campaign_folders, campaign_slug

    folders = campaign_folders(warehouse.snapshot().campaigns)
    return lambda name: folders.get(name) or campaign_slug(name)


def _findings_at_point(warehouse: Warehouse, point: Point,
                       folder: Callable[[str], str]) -> list[Finding]:
    if point.refresh_id is None:
        return []
    return findings_at(warehouse, folder, job_run=point.last_job_run_id,
                       comparison=point.last_comparison_id)


def _utc(when: datetime) -> datetime:
    return when.astimezone(timezone.utc) if when.tzinfo is not None else when


def _names(campaigns: Sequence[str]) -> str:
    if not campaigns:
        return "no campaign (none changed)"
    return (f"campaign {campaigns[0]}" if len(campaigns) == 1
            else f"{len(campaigns)} campaigns ({', '.join(campaigns)})")


def _pull(warehouse: Warehouse, options: RefreshOptions, reporter: Reporter,
          echo: Callable[[str], None], warn: Callable[[str], None]) -> tuple[int, list[str]]:
    """Pull every configured agent; (trials added, problems)."""
    sources = options.sources
    if sources is None:
        if not DEFAULT_SOURCES.is_file():
            echo(f"pull: no agents configured ({DEFAULT_SOURCES} does not exist): nothing "
                 "pulled")
            return 0, []
        sources = DEFAULT_SOURCES
    from perfwarehouse.ingest.pull import PullOptions, load_sources, pull

    reports = pull(warehouse, load_sources(sources), PullOptions(retries=options.pull_retries),
                   reporter=reporter)
    problems = []
    for report in reports:
        for line, is_problem in report.lines():
            (warn if is_problem else echo)(f"pull: {line}")
            if is_problem:
                problems.append(line)
    return sum(r.trials_added for r in reports), problems


def _check_jobs(jobs: Sequence[str]) -> None:
    """A one-line error for an unknown ``--job``, before anything is pulled."""
    from perfwarehouse.jobs import CATALOG
    from perfwarehouse.warehouse.lookup import require_known

    for name in jobs:
        require_known("job", name, tuple(e.name for e in CATALOG))


def _analyse(warehouse: Warehouse, options: RefreshOptions, reporter: Reporter,
             echo: Callable[[str], None], scheduler: object
             ) -> list[tuple[str, tuple[str, ...], int]]:
    """Run each job on the campaigns where it is stale or missing (``status``), with its
    last parameters there (``analyze all``'s plan); (job, campaigns, job_run_id) each."""
    from perfwarehouse.jobs import CATALOG, JOBS
    from perfwarehouse.jobs.incremental import SUPPORTED as INCREMENTAL
    from perfwarehouse.jobs.parallel import run_jobs
    from perfwarehouse.jobs.plan import plan_all
    from perfwarehouse.status import warehouse_status

    names = tuple(e.name for e in CATALOG)
    wanted = set(options.jobs or names)
    todo: dict[str, set[str]] = {}
    for status in warehouse_status(warehouse, names):
        for stale in status.stale + status.missing:
            if stale in wanted:
                todo.setdefault(stale, set()).add(status.campaign)
    if not todo:
        echo("analyses: every one is up to date")
        return []
    planned, _skipped = plan_all(warehouse, JOBS)
    runs: list[tuple[Job, Any, tuple[str, ...]]] = []
    for run in planned:
        scope = tuple(c for c in run.campaigns if c in todo.get(run.job.name, ()))
        # one run per campaign where the job can start from its previous run there
        # (jobs/incremental.py: work that grows with the new data, not the history)
        for part in ([(c,) for c in scope] if run.job.name in INCREMENTAL else [scope]):
            if part:
                runs.append((run.job, run.params, part))
    ran = []
    for job, result in run_jobs(warehouse, runs, processes=options.processes,
                                reporter=reporter, scheduler=scheduler, incremental=True):
        # the campaigns of the run that finished (a job runs once per campaign where it
        # can start from its previous run, so several of its runs may finish in any order)
        scope = _campaigns_of(warehouse, result.job_run_id)
        ran.append((job.name, scope, result.job_run_id))
        echo(f"analyses: {job.name} on {_names(scope)} (job_run_id {result.job_run_id}, "
             f"{result.duration_s:.1f} s)")
    return ran



def _campaigns_of(warehouse: Warehouse, job_run_id: int) -> tuple[str, ...]:
    """The campaigns a job run read (``job_runs.campaigns``)."""
    from perfwarehouse.warehouse.store import fetch_value

    with warehouse.catalog(views=False) as con:
        campaigns = fetch_value(con, "SELECT campaigns FROM job_runs WHERE job_run_id = ?",
                                [job_run_id])
    return tuple(campaigns or ())
