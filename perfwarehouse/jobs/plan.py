"""What ``analyze all`` runs: each job on the campaigns it applies to, with the parameters
the user last gave it there (issue 40).

A job applies to a campaign by its kind in :data:`perfwarehouse.jobs.APPLIES_TO`: any
campaign (a job not named there); ``order``, one with runs in random order (OrderSage's order study
compares fixed and random order; a load test or a nightly history has none);
``load``, one with load-test trials; ``searches``, one with the result runs of
``agent peak-rate``. ``status`` names the jobs that do not apply instead of calling them
missing or up to date.

The parameters of a job's latest run on a campaign (``job_runs.params`` through
``latest_job_runs``) are kept: ``analyze load --r-sat 5`` then ``analyze all`` leaves λ*
as it was, where rerunning with the defaults would drop it. Campaigns whose parameters
agree run together, in one job run.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perfwarehouse.jobs import APPLIES_TO
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.lookup import require_known
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

if TYPE_CHECKING:
    from pathlib import Path

    from perfwarehouse.jobs.framework import Job
    from perfwarehouse.warehouse.pieces import Reader

#: Why a job of each ``applies_to`` kind does not apply to a campaign without that kind.
NOT_APPLICABLE = {
    "order": "no runs in random order (an order study compares fixed and random order)",
    "load": "no load-test trials (settings with a loop or a load generator)",
    "searches": "no peak-rate searches (agent peak-rate)",
}


@dataclass(frozen=True)
class CampaignKinds:
    """What kinds of study one campaign holds (``sql/queries/campaign_kinds.sql``)."""

    name: str  # the campaign's
    order: bool
    load: bool
    searches: bool

    def why_not(self, job: str) -> str | None:
        """Why the job called ``job`` does not apply to this campaign (None: it applies)."""
        kind = APPLIES_TO.get(job)
        if kind is None or getattr(self, kind):
            return None
        return NOT_APPLICABLE[kind]


@dataclass(frozen=True)
class PlannedRun:
    """One job run of ``analyze all``: ``params`` over ``campaigns``; ``kept`` names the
    parameters that differ from the defaults, kept from the campaigns' latest run."""

    job: Job
    params: Any
    campaigns: tuple[str, ...]
    kept: dict[str, Any]


@dataclass(frozen=True)
class NotApplicable:
    job: str
    campaigns: tuple[str, ...]
    reason: str


def campaign_kinds(warehouse: Warehouse) -> dict[str, CampaignKinds]:
    """Every campaign's :class:`CampaignKinds`; a damaged data file (the query reads the
    measurements' configurations) is a one-line :class:`WarehouseError`."""
    with warehouse.catalog() as con:
        return kinds_in(con, warehouse.root)


def kinds_in(con: Reader, root: Path) -> dict[str, CampaignKinds]:
    """:func:`campaign_kinds` read through an open catalog connection ``con`` (with its
    views) of the warehouse at ``root``."""
    from perfwarehouse.errors import WarehouseError
    from perfwarehouse.warehouse.damage import damage_message

    try:
        rows = fetch_arrow(con, sqlfiles.load("queries/campaign_kinds")).to_pylist()
    except Exception as exc:  # DuckDB's error, re-raised unless it names a damaged file
        message = damage_message(exc, root)
        if message is None:
            raise
        raise WarehouseError(message) from None
    return {r["campaign"]: CampaignKinds(r["campaign"], bool(r["order_study"]),
                                         bool(r["load"]), bool(r["searches"])) for r in rows}


def latest_params(warehouse: Warehouse) -> dict[tuple[str, str], dict[str, Any]]:
    """(job, campaign) -> the parameters of that job's latest run covering the campaign."""
    with warehouse.catalog() as con:
        rows = fetch_arrow(con, sqlfiles.load("queries/latest_job_params")).to_pylist()
    return {(r["job"], r["campaign"]): json.loads(r["params"]) for r in rows}


def params_from(job: Job, stored: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The job's parameters from a stored run's (lists back to tuples; fields the job no
    longer has, and ``campaign``, left out), and those that differ from the defaults."""
    default = job.params()
    kept: dict[str, Any] = {}
    for f in dataclasses.fields(job.params):
        if f.name == "campaign" or f.metadata.get("internal") or f.name not in stored:
            continue
        value = stored[f.name]
        value = tuple(value) if isinstance(value, list) else value
        if value != getattr(default, f.name):
            kept[f.name] = value
    return job.params(**kept), kept


def plan_all(warehouse: Warehouse, jobs: Sequence[Job], campaign: str | None = None
             ) -> tuple[list[PlannedRun], list[NotApplicable]]:
    """The runs of ``analyze all`` (over ``campaign`` alone when given) and the jobs left
    out where they do not apply, in the order of ``jobs``."""
    kinds = campaign_kinds(warehouse)
    if campaign is not None:
        require_known("campaign", campaign, sorted(kinds))
        kinds = {campaign: kinds[campaign]}
    stored = latest_params(warehouse)
    runs: list[PlannedRun] = []
    skipped: list[NotApplicable] = []
    for job in jobs:
        groups: dict[str, tuple[Any, dict[str, Any], list[str]]] = {}
        reasons: dict[str, list[str]] = {}
        for name, kind in kinds.items():
            why = kind.why_not(job.name)
            if why is not None:
                reasons.setdefault(why, []).append(name)
                continue
            params, kept = params_from(job, stored.get((job.name, name), {}))
            key = json.dumps(kept, sort_keys=True, default=str)
            groups.setdefault(key, (params, kept, []))[2].append(name)
        for params, kept, names in groups.values():
            runs.append(PlannedRun(job, params, tuple(names), kept))
        skipped += [NotApplicable(job.name, tuple(names), why) for why, names in reasons.items()]
    return runs, skipped
