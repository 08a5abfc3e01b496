"""Rerun a job on a campaign with work that grows with the new data, not with the history
(issue 41; ``refresh`` calls :func:`run_incremental`).

The previous run of the job on the campaign (its latest ``job_runs`` row, with the same
parameters) stored its rows and the batches it read. The batches landed since are the new
data: their trials' (hardware type, config_id) are the configurations with new trials and
their run_ids mark the new trials in each series.

* ``change-points``: a series without new trials keeps its stored rows; a series whose new
  trials all come after its old ones is searched again from its last change points
  (:func:`perfwarehouse.jobs.change_points.compute_reusing`, and
  :mod:`perfwarehouse.changepoints.incremental` for why that equals a full search and
  where it falls back to one).
* the per-configuration jobs of :data:`PER_CONFIGURATION` (each configuration's rows a
  function of its own trials only: ``tests/unit/jobs/test_incremental.py`` checks it for
  each): only the configurations with new trials are computed; the others keep their
  stored rows, and the job's ``finalize`` (a family-wise correction, which depends on all
  rows) is applied again to the stored and the new rows together.

When more than half of the campaign's configurations have new trials
(:data:`WHOLE_FROM`, every series grown by a night, as on a nightly campaign), a
per-configuration job is run whole instead: its answer is the same either way, and
reading the stored rows and the changed configurations costs more than it saves there
(measured on 1,500 series x 368 nights, every one grown: ``kpi`` 1.42 CPU s whole, 1.57
from the previous run; ``convergence`` 0.12 and 0.53). ``change-points`` keeps its rerun
(the search from each series' anchor), reading the partition as a whole run does when
every configuration has new trials.

Where the previous run cannot be used the answer is None and the caller runs the job
whole: no previous run on the campaign, other parameters, a batch it read no longer in the
warehouse (compaction rewrote the files), a job not listed here, or a job that reads
catalog tables. The result is written as one job run (one catalog transaction), as a full
run is: a refresh killed before it commits leaves the previous run, and the next refresh
starts from it again. Memory is bounded by one piece, as in a full run: each piece reads
the previous run's rows of its own partition and configuration slice from the catalog,
and its results go to the run's spill (:mod:`perfwarehouse.jobs.spill`) as it completes.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.jobs.framework import (
    Job,
    JobResult,
    Piece,
    Plan,
    Tables,
    apply_prepare,
    compute_rows,
    plan_job,
    prepare_piece,
    read_piece,
    spill,
    summarize,
    write_results,
)
from perfwarehouse.jobs.row_order import in_row_order
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse.contracts import contract
from perfwarehouse.warehouse.pieces import Snapshot, open_piece
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

if TYPE_CHECKING:
    from perfwarehouse.changepoints.incremental import Stored

#: Per-configuration jobs whose rows of a configuration depend on its own trials only.
PER_CONFIGURATION = ("variability", "aa-fpr", "detectable-regression", "convergence", "kpi",
                     "variability-score", "independence", "trends")
#: Every job :func:`run_incremental` can rerun from its previous run.
SUPPORTED = ("change-points", *PER_CONFIGURATION)
#: The share of the campaign's configurations with new trials above which a per-configuration
#: job runs whole (the module docstring says why).
WHOLE_FROM = 0.5


@dataclass(frozen=True)
class Previous:
    """The job's latest run on a campaign: its id and the batches it read."""

    job_run_id: int
    batches: frozenset[int]


@dataclass(frozen=True)
class NewData:
    """What landed since the previous run: the (hardware type, config_id) with new trials
    and the run_ids of the new trials."""

    configurations: frozenset[tuple[str, int]]
    runs: frozenset[str]


def params_json(params: Any) -> Any:
    """The parameters as ``job_runs.params`` records them, decoded (for comparing)."""
    return json.loads(json.dumps({f.name: getattr(params, f.name)
                                  for f in dataclasses.fields(params)
                                  if not f.metadata.get("internal")},
                                 sort_keys=True, default=str))


def previous_run(warehouse: Warehouse, job: Job, params: Any, campaign: str
                 ) -> Previous | None:
    """The job's latest run on ``campaign`` when it ran with ``params``, else None."""
    with warehouse.catalog(views=False) as con:
        rows = fetch_arrow(con, "SELECT job_run_id, params, input_batches FROM job_runs "
                                "WHERE job = ? AND list_contains(campaigns, ?) "
                                "ORDER BY job_run_id DESC LIMIT 1",
                           [job.name, campaign]).to_pylist()
    if not rows or json.loads(rows[0]["params"]) != params_json(params):
        return None
    return Previous(int(rows[0]["job_run_id"]), frozenset(rows[0]["input_batches"]))


def new_data(warehouse: Warehouse, snapshot: Snapshot) -> NewData:
    """The configurations and runs of the trials in ``snapshot`` (the new batches')."""
    if not snapshot.files:
        return NewData(frozenset(), frozenset())
    con = open_piece(warehouse.root, snapshot.whole())
    try:
        rows = fetch_arrow(con, "SELECT DISTINCT hardware_type, config_id, run_id "
                                "FROM measurements").to_pylist()
    finally:
        con.close()
    return NewData(frozenset((r["hardware_type"], int(r["config_id"])) for r in rows),
                   frozenset(str(r["run_id"]) for r in rows))


def stored_rows(warehouse: Warehouse, job: Job, previous: Previous, campaign: str,
                piece: Piece | None = None) -> dict[str, pa.Table]:
    """The rows the previous run stored for ``campaign`` (only those of ``piece``'s
    partition and configuration slice, when given), per output, without job_run_id, in
    the order they were stored."""
    where, values = ["job_run_id = ?", "campaign = ?"], [previous.job_run_id, campaign]
    if piece is not None:  # column names from the job registry, never from users
        for column, value in zip(piece.partition_by, piece.key):
            where.append(f"{column} = ?")
            values.append(value)
        if piece.config_slice is not None:
            where.append(f"config_id % {int(piece.config_slice[1])} = "
                         f"{int(piece.config_slice[0])}")
    out = {}
    with warehouse.catalog(views=False) as con:
        for name in job.outputs:  # table names from the job registry, never from users
            table = fetch_arrow(con, f"SELECT * FROM {contract(name).stored_as} "
                                     f"WHERE {' AND '.join(where)} ORDER BY rowid", values)
            out[name] = table.drop_columns(["job_run_id"])
    return out


def configurations_in(warehouse: Warehouse, snapshot: Snapshot) -> int:
    """How many (hardware type, config_id) the trials of ``snapshot`` have."""
    from perfwarehouse.warehouse.store import fetch_value

    con = open_piece(warehouse.root, snapshot.whole())
    try:
        return int(fetch_value(con, "SELECT count(DISTINCT (hardware_type, config_id)) "
                                    "FROM measurements") or 0)
    finally:
        con.close()


def run_incremental(warehouse: Warehouse, job: Job, params: Any, campaign: str, *,
                    reporter: Reporter | None = None) -> JobResult | None:
    """Rerun ``job`` on ``campaign`` from its previous run (module docstring), write it
    as one job run and return it; None where the previous run cannot be used."""
    if job.name not in SUPPORTED or job.catalog_tables or not all(
            {"campaign", "hardware_type", "config_id"} <= set(contract(name).schema.names)
            for name in job.outputs):
        return None
    previous = previous_run(warehouse, job, params, campaign)
    if previous is None:
        return None
    snapshot = warehouse.snapshot([campaign])
    if not snapshot.files or not previous.batches <= set(snapshot.batches):
        return None
    reporter = reporter or SilentReporter()
    started_at = datetime.now(timezone.utc)
    clock = time.monotonic()
    new = new_data(warehouse, snapshot.without_batches(previous.batches))
    known = configurations_in(warehouse, snapshot)
    if job.name != "change-points" and len(new.configurations) > WHOLE_FROM * known:
        return None  # most configurations changed: the whole run is cheaper
    plan = plan_job(warehouse, job, params, snapshot, snapshot.configurations)
    if plan.prepare_query:
        plan = apply_prepare(job, plan, [prepare_piece(job, plan, p) for p in plan.pieces])
    every = len(new.configurations) >= known  # read the pieces as a whole run does

    def pieces() -> Iterator[Tables]:
        columns: dict[str, list[str]] = {}
        with reporter.task(f"{job.name} (from its previous run)", total=len(plan.pieces),
                           unit="parts") as task:
            for piece in plan.pieces:
                stored = stored_rows(warehouse, job, previous, campaign, piece)
                result = _piece(job, plan, piece, stored, new, every)
                yield result if job.name == "change-points" else _aligned(result, columns)
                task.advance()

    tables = spill(job, plan, pieces())
    duration = time.monotonic() - clock
    summary = summarize(job, tables, plan.params)
    job_run_id = write_results(warehouse, job, params, snapshot, tables, started_at, duration)
    return JobResult(job_run_id, tables, duration, summary)


def _piece(job: Job, plan: Plan, piece: Piece, stored: dict[str, pa.Table],
           new: NewData, every: bool = False) -> Tables:
    """One piece: the rows of its configurations with new trials computed (only those
    are read; with ``every``, each configuration has new trials and the piece is read
    whole, as a whole run reads it), the stored rows of its other configurations kept
    (``stored``: the previous run's rows of this piece, :func:`stored_rows`)."""
    table = (read_piece(job, plan, piece) if every else
             _read_changed(job, plan, piece, sorted({c for _h, c in new.configurations})))
    kept: dict[str, pa.Table] = {}
    for name, rows in stored.items():
        kept[name] = _unchanged(rows, new)
    if job.name == "change-points":
        from perfwarehouse.jobs.change_points import OUTPUT, SCHEMA, compute_reusing

        out = (compute_reusing(table, plan.params, _prior(stored[OUTPUT], new))
               if table.num_rows else {})
        reused = pa.Table.from_pylist(kept[OUTPUT].select(SCHEMA.names).to_pylist(),
                                      schema=SCHEMA)
        return {OUTPUT: pa.concat_tables([out[OUTPUT], reused]) if OUTPUT in out else reused}
    out = compute_rows(job, plan, table)
    for name, rows in kept.items():
        out[f"stored:{name}"] = rows
    return out


def _read_changed(job: Job, plan: Plan, piece: Piece, configs: list[int]) -> pa.Table:
    """The rows of one piece (:func:`~perfwarehouse.jobs.framework.read_piece`) of the
    configurations ``configs`` only (none read when there are none)."""
    if not configs:
        return pa.table({})
    warehouse = Warehouse(Path(plan.root))
    con = plan.reader(job, piece)
    try:
        con.register("_changed", pa.table({"config_id": pa.array(configs, pa.uint64())}))
        con.execute("CREATE OR REPLACE TEMP VIEW measurements AS SELECT * FROM ("
                    + warehouse.measurements_sql(piece.files, piece.config_slice)
                    + ") WHERE config_id IN (SELECT config_id FROM _changed)")
        bound = dict(zip(piece.partition_by, piece.key)) | dict(plan.extra)
        used = {k: v for k, v in bound.items() if f"${k}" in plan.query}
        table = fetch_arrow(con, plan.query, used or None)
    finally:
        con.close()
    return in_row_order(table, job.row_order) if table.num_rows else table


def _unchanged(rows: pa.Table, new: NewData) -> pa.Table:
    """The stored ``rows`` of the configurations without new trials (in their order)."""
    by_hardware: dict[str, list[int]] = {}
    for hardware_type, config_id in new.configurations:
        by_hardware.setdefault(hardware_type, []).append(config_id)
    changed = None
    for hardware_type, ids in by_hardware.items():
        here = pc.and_(pc.equal(rows.column("hardware_type"), hardware_type),
                       pc.is_in(rows.column("config_id"), value_set=pa.array(ids, pa.uint64())))
        changed = here if changed is None else pc.or_(changed, here)
    if changed is None or rows.num_rows == 0:
        return rows
    return rows.filter(pc.invert(pc.fill_null(changed, False)))


def _aligned(result: Tables, columns: dict[str, list[str]]) -> Tables:
    """One piece's computed rows and the stored rows it keeps, in one table per output
    with the computed rows' columns (the stored rows also hold what ``finalize`` added,
    which it adds again over all rows). ``columns`` carries each output's computed
    columns from piece to piece: a piece that computed nothing takes the columns of the
    last one that did (the stored columns before any did)."""
    for name, table in result.items():
        if not name.startswith("stored:") and table.num_rows:
            columns[name] = table.column_names
    merged: Tables = {}
    for name, table in result.items():
        if name.startswith("stored:"):
            name = name.removeprefix("stored:")
            table = table.select(columns.get(name, table.column_names))
        merged[name] = (pa.concat_tables([merged[name], table], promote_options="permissive")
                        if name in merged else table)
    return merged


def _prior(rows: pa.Table, new: NewData) -> Any:
    """:class:`~perfwarehouse.jobs.change_points.Prior` of one partition's stored rows."""
    from perfwarehouse.changepoints.incremental import Stored
    from perfwarehouse.jobs.change_points import Prior

    by_series: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for i, r in enumerate(rows.select(["hardware_type", "config_id", "n_points", "position",
                                       "p_value"]).to_pylist()):
        by_series.setdefault((r["hardware_type"], int(r["config_id"])), []).append(r | {"i": i})
    tables: dict[tuple[str, int], pa.Table] = {}
    stored: dict[tuple[str, int], Stored] = {}
    for key, series in by_series.items():
        series.sort(key=lambda r: -1 if r["position"] is None else r["position"])
        points = [(r["position"], r["p_value"]) for r in series if r["position"] is not None]
        stored[key] = Stored(int(series[0]["n_points"] or 0), tuple(p for p, _ in points),
                             tuple(float(p) for _, p in points))
        tables[key] = rows.take([r["i"] for r in series])
    return Prior(tables, stored, new.runs)
