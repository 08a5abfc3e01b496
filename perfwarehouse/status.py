"""``perfwarehouse status``: what the warehouse holds (campaigns, hardware types,
measurements, the last ingest) and, per campaign, which analyses are missing or stale
(the campaign received a batch after the analysis last ran), and which do not apply
(an order study's jobs on a load test: :mod:`perfwarehouse.jobs.plan`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from perfwarehouse.errors import WarehouseError
from perfwarehouse.jobs.plan import kinds_in
from perfwarehouse.output import count
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.layout import listed_files
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

if TYPE_CHECKING:
    from pathlib import Path

    from perfwarehouse.warehouse.pieces import Reader


@dataclass(frozen=True)
class CampaignStatus:
    campaign: str
    hardware_types: int
    measurements: int
    last_ingest: str
    current: tuple[str, ...]
    stale: tuple[str, ...]
    missing: tuple[str, ...]
    not_applicable: dict[str, tuple[str, ...]]  # reason -> the jobs that do not apply


def warehouse_status(warehouse: Warehouse, jobs: tuple[str, ...]) -> list[CampaignStatus]:
    """One :class:`CampaignStatus` per campaign; ``jobs``: every job's name."""
    with warehouse.catalog() as con:
        return _status(con, warehouse.root, jobs)


def _status(con: Reader, root: Path, jobs: tuple[str, ...]
            ) -> list[CampaignStatus]:
    """:func:`warehouse_status` through an open catalog connection (with its views)."""
    campaigns = fetch_arrow(con, sqlfiles.load("queries/status_campaigns")).to_pylist()
    runs = fetch_arrow(con, sqlfiles.load("queries/status_jobs")).to_pylist()
    try:
        kinds = kinds_in(con, root)  # reads the measurements' configurations
    except WarehouseError:  # a damaged data file: status names it (DAMAGED) and goes on
        kinds = {}
    out = []
    for c in campaigns:
        latest = {r["job"]: r for r in runs if r["campaign"] == c["campaign"]}
        kind = kinds.get(c["campaign"])
        not_applicable: dict[str, tuple[str, ...]] = {}
        for j in jobs:
            why = kind.why_not(j) if kind is not None else None
            if why is not None:
                not_applicable[why] = not_applicable.get(why, ()) + (j,)
        applies = tuple(j for j in jobs if not any(j in v for v in not_applicable.values()))
        stale = tuple(j for j in applies if j in latest
                      and latest[j]["last_input_batch"] < c["last_batch"])
        current = tuple(j for j in applies if j in latest and j not in stale)
        missing = tuple(j for j in applies if j not in latest)
        when = c["last_ingest"]
        out.append(CampaignStatus(
            c["campaign"], int(c["hardware_types"]), int(c["measurements"]),
            when.strftime("%Y-%m-%d %H:%M UTC") if when is not None else "?",
            current, stale, missing, not_applicable))
    return out


def status_lines(warehouse: Warehouse, jobs: tuple[str, ...]) -> list[str]:
    """The report ``perfwarehouse status`` prints."""
    from perfwarehouse.warehouse.integrity import damaged_for_reading

    with warehouse.catalog() as con:  # one open of the catalog for all of it
        rows = _status(con, warehouse.root, jobs)
        files = listed_files(con)
    lines = [f"warehouse {warehouse.root}: {count(len(rows), 'campaign')}, "
             f"{count(sum(r.measurements for r in rows), 'measurement')}"]
    # what a query would refuse to read (a stat per file; a hash if its time changed)
    lines += [f"DAMAGED: {line}" for line in
              damaged_for_reading(warehouse.root, files).values()]
    for r in rows:
        lines.append(f"{r.campaign}: {count(r.hardware_types, 'hardware type')}, "
                     f"{count(r.measurements, 'measurement')}, last ingest {r.last_ingest}")
        lines.append(f"  up to date: {', '.join(r.current) or 'none'}")
        if r.stale:
            lines.append(f"  stale (newer trials since): {', '.join(r.stale)}")
        if r.missing:
            lines.append(f"  never run: {', '.join(r.missing)}")
        for why, names in r.not_applicable.items():
            lines.append(f"  does not apply: {', '.join(names)}: {why}")
    if any(r.stale or r.missing for r in rows):
        lines.append("run `perfwarehouse analyze all` to bring every analysis up to date")
    return lines
