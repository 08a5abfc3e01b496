"""The warehouse edge of ``perfwarehouse bisect``: every trial lands as a native trial
record (the records ``agent run`` writes and ``ingest jsonl`` reads), through the same
checks and atomic landing (:func:`perfwarehouse.ingest.formats.jsonl.check_records`,
:func:`perfwarehouse.ingest.stage.land`), keyed by the revision's sha and its commit
time, so ``compare --baseline SHA --contender SHA`` and the history page read them as any
other campaign's; and the change points a bisection can start from.

A trial is a run of its own (``run_size`` 1, ``order_kind`` random: the revisions of a
round run in a shuffled order), ``run_id`` ``bisect-SESSION-NNNNN`` in the order they ran;
its attributes keep the command, the setup and the session, so a later bisection of the
same series can find the command (:func:`recorded_command`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import orjson

from perfwarehouse.bisect.measure import Trial
from perfwarehouse.bisect.results import Commit
from perfwarehouse.errors import UsageError
from perfwarehouse.warehouse.store import Warehouse


@dataclass(frozen=True)
class Series:
    """What every trial of one bisection shares."""

    campaign: str
    benchmark: str
    metric: str
    unit: str | None
    higher_is_better: bool | None
    node: str
    hardware_type: str
    session: str
    command: str
    setup: str | None


def trial_record(series: Series, seq: int, commit: Commit, trial: Trial,
                 env: dict[str, Any] | None = None) -> dict[str, Any]:
    """The native record of one trial (``seq``: its number in the session, from 0)."""
    record: dict[str, Any] = {
        "v": 1, "campaign": series.campaign, "run_id": f"bisect-{series.session}-{seq:05d}",
        "node": series.node, "hardware_type": series.hardware_type, "run_index": seq,
        "order_kind": "random", "position": 0, "run_size": 1,
        "benchmark": series.benchmark, "settings": {}, "metric": series.metric,
        "unit": series.unit, "higher_is_better": series.higher_is_better,
        "values": [trial.value] if trial.status == "ok" and trial.value is not None else [],
        "started_at": trial.started_at, "duration_s": round(trial.duration_s, 6),
        "status": trial.status, "revision": commit.sha, "revision_time": commit.commit_time,
        "attributes": {"bisect": {"session": series.session, "command": series.command,
                                  "setup": series.setup,
                                  **({"detail": trial.detail} if trial.detail else {})}},
    }
    if env is not None:
        record["env"] = env
    return record


def land_records(warehouse: Warehouse, records: list[dict[str, Any]], source: str) -> int:
    """Land ``records`` as one batch (all or none); the number of trials added."""
    if not records:
        return 0
    from perfwarehouse.ingest import stage
    from perfwarehouse.ingest.formats import jsonl

    batch = stage.Batch(source, "jsonl")
    try:
        data = orjson.dumps(records)
        batch.hash_bytes(source, data)
        table, problems = jsonl.check_records(records, source)
        batch.add_arrow(table)
        batch.add_problems(problems)
        return stage.land(warehouse, batch).trials_added
    finally:
        batch.close()


@dataclass(frozen=True)
class ChangePoint:
    """One row of ``change_points`` (``sql/queries/bisect_change_points.sql``)."""

    id: int
    campaign: str
    hardware_type: str
    benchmark: str
    settings: str
    metric: str
    unit: str | None
    higher_is_better: bool | None
    revision_before: str | None
    revision: str | None
    change_pct: float | None
    ci_low_pct: float | None
    ci_high_pct: float | None
    direction: str | None


def change_points(warehouse: Warehouse, campaign: str | None = None,
                  benchmark: str | None = None) -> list[ChangePoint]:
    """The change points of the latest ``change-points`` runs, numbered (their ids)."""
    from perfwarehouse.warehouse import sqlfiles
    from perfwarehouse.warehouse.store import fetch_arrow

    if not warehouse.exists():
        raise UsageError(f"no warehouse at {warehouse.root}: ingest a campaign and run "
                         "`perfwarehouse analyze change-points` first")
    with warehouse.catalog() as con:
        table = fetch_arrow(con, sqlfiles.load("queries/bisect_change_points"),
                            {"campaign": campaign, "benchmark": benchmark})
    return [ChangePoint(**{k: row[k] for k in ChangePoint.__dataclass_fields__})
            for row in table.to_pylist()]


def pick_change_point(points: list[ChangePoint], key: str) -> ChangePoint:
    """The change point ``key`` names: its id (a number), or its revision (a sha or the
    start of one; the campaign and benchmark narrow the list before)."""
    if not points:
        raise UsageError("no change points in the warehouse (for this campaign and benchmark); "
                         "run `perfwarehouse analyze change-points` first")
    if key.isdigit():
        found = [p for p in points if p.id == int(key)]
        if not found:
            raise UsageError(f"--change-point {key}: the change points are numbered 1 to "
                             f"{len(points)} (`perfwarehouse bisect --change-point list`)")
        return found[0]
    found = [p for p in points if p.revision and p.revision.startswith(key)]
    if len(found) != 1:
        what = "no change point" if not found else f"{len(found)} change points"
        raise UsageError(f"--change-point {key}: {what} at that revision; give its number "
                         "(`perfwarehouse bisect --change-point list`) or --campaign and "
                         "--benchmark")
    return found[0]


def recorded_command(warehouse: Warehouse, point: ChangePoint) -> tuple[str | None, str | None]:
    """(command, setup) recorded with the series' trials by an earlier bisection (the
    latest), or (None, None) when none is known."""
    from perfwarehouse.warehouse import sqlfiles
    from perfwarehouse.warehouse.store import fetch_one

    files = warehouse.data_files([point.campaign])
    if not files:
        return None, None
    con = warehouse.reader(files)
    try:
        row = fetch_one(con, sqlfiles.load("queries/bisect_recorded_command"),
                        {"campaign": point.campaign, "benchmark": point.benchmark,
                         "metric": point.metric})
    finally:
        con.close()
    return (row[0], row[1]) if row else (None, None)


def check_series(warehouse: Warehouse, series: Series) -> None:
    """:class:`UsageError` when the warehouse holds the series' configuration with another
    unit or direction (its trials would be refused when they land, after measuring)."""
    from perfwarehouse.warehouse import sqlfiles
    from perfwarehouse.warehouse.store import fetch_one

    if not warehouse.exists():
        return
    with warehouse.catalog() as con:
        row = fetch_one(con, sqlfiles.load("queries/bisect_configuration"),
                        {"benchmark": series.benchmark, "metric": series.metric})
    if row is None or (row[0], row[1]) == (series.unit, series.higher_is_better):
        return

    def flag(v: bool | None) -> str:
        return "higher is better" if v else "lower is better" if v is False else "no direction"

    raise UsageError(
        f"the warehouse holds {series.benchmark!r} / {series.metric} with unit {row[0]!r} and "
        f"{flag(row[1])}, this bisection would store unit {series.unit!r} and "
        f"{flag(series.higher_is_better)}: give the same --unit / --higher-is-better, or "
        "another --benchmark or --metric name")


def session_id(*parts: str) -> str:
    """A short id of a bisection (its options and start time)."""
    return hashlib.blake2b("\0".join(parts).encode(), digest_size=4).hexdigest()
