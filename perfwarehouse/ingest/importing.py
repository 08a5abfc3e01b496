"""The importer pipeline of ``perfwarehouse ingest FORMAT|auto PATH...``: other tools' files in,
one batch out.

:func:`ingest_import` collects the inputs (:mod:`perfwarehouse.ingest.inputs`), parses each
with its format (pure), completes the records from ``--path-pattern`` and the command
line (:func:`stage_inputs`), puts them through the per-record checks of the native trial
log and lands the batch (:func:`perfwarehouse.ingest.stage.land`) or previews it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest import stage
from perfwarehouse.ingest.formats import jsonl
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.inputs import ImportFile, Skipped, collect_inputs
from perfwarehouse.ingest.pathkeys import PathPattern
from perfwarehouse.progress import Reporter, SilentReporter, Task
from perfwarehouse.warehouse.store import Warehouse


def stage_inputs(batch: stage.Batch, inputs: Sequence[ImportFile], options: ImportOptions,
                 task: Task | None = None, known_types: dict[str, str] | None = None,
                 known_runs: dict[tuple[str, str], int] | None = None,
                 skipped: list[Skipped] | None = None,
                 notes: list[str] | None = None) -> int:
    """Parse each input with its format (pure), apply the command line's options and put the
    records through the per-record checks of the native trial log into ``batch``.

    Keys a file does not hold come from ``--path-pattern`` (the file's path), then from
    the command line (which wins over both the file and the path for campaign and
    revision; the machine a file names stays, unless ``--force-node``, and a ``--node``
    it kept is said in ``notes``). A start time is never invented: the file's own times,
    else ``--started-at`` (a time, or ``mtime``: the file's modification time), else the
    path's; a record with none keeps none (its source is marked so that validation lets
    it through). Returns the number of trial records without a start time.

    A file found below a directory argument that its format refuses as a whole (a
    problem raised by its parser, or no node) is appended to ``skipped`` with the
    reason, and its records are left out; any other input's refusal refuses the batch.

    A node whose hardware type neither the file nor ``--hardware-type`` gives takes the
    type another input of the batch gives it, else ``known_types`` (the warehouse's),
    else its name. ``known_runs`` ((campaign, run_id) -> run_index, the warehouse's) keeps
    the run index of a run that is already in, whatever the batch's other files are.

    What a parser noted about a file it read (attribute ``notes`` of its records: bytes
    that are not UTF-8 in a label, ...) is appended to ``notes`` as ``FILE: NOTE``.
    """
    from dataclasses import replace

    from perfwarehouse.ingest.formats import load
    from perfwarehouse.ingest.formats.records import apply_options, resolve_machine
    from perfwarehouse.ingest.pathkeys import compile_pattern

    batch.hash_bytes("options", repr(options).encode())
    pattern = compile_pattern(options.path_pattern) if options.path_pattern else None
    parsed = []
    for item in inputs:
        source = str(item.path)
        file_options = options
        if pattern is not None:
            file_options = _path_options(pattern, item, options)
        try:
            if item.files is not None:  # a results directory (asv)
                for rel in sorted(item.files):
                    batch.hash_bytes(f"{item.format}:{item.path.name}/{rel}", item.files[rel])
                records = load(item.format).parse_directory(item.files, source, file_options)
            else:
                data = item.content()  # read now: one claimed file's bytes at a time
                batch.hash_bytes(f"{item.format}:{item.path.name}", data)
                records = load(item.format).parse(data, source, file_options)
                del data
        except TrialParseError as exc:
            if item.walked and skipped is not None:
                where = f"line {exc.line}: " if exc.line else ""
                if exc.source != source:  # a file inside a results directory
                    where = f"{exc.source}{':' + str(exc.line) if exc.line else ''}: "
                skipped.append(Skipped(item.path, f"{where}[{exc.rule}] "
                                                  f"{_named(exc, item).detail}"))
                continue
            raise _named(exc, item) from None
        if not records:
            raise TrialParseError(source, 0, "empty",
                                  f"no trials in this {item.format} file (nothing was ingested)")
        _fill_start(records, item.path, file_options)
        if notes is not None:
            said = dict.fromkeys(n for r in records for n in (r.get("attributes") or {})
                                 .get("notes", ()))
            notes.extend(f"{source}: {note}" for note in said)
        parsed.append((source, item.format, records, file_options, item))
        if task is not None:
            task.advance()
    types = dict(known_types or {})
    for source, _fmt, records, opts, _item in parsed:
        named = resolve_machine(records, opts)  # --node fills in, --force-node replaces
        if named and opts.node is not None and notes is not None:
            notes.append(f"{source}: the file names its machine ({', '.join(sorted(named))}), "
                         f"kept over --node {opts.node} (--force-node replaces it)")
        for record in records:
            if record.get("node") and record.get("hardware_type"):
                types[record["node"]] = record["hardware_type"]
    kept = []
    for source, fmt, records, opts, item in parsed:
        for record in records:
            if not record.get("hardware_type") and record.get("node") in types:
                record["hardware_type"] = types[record["node"]]
        try:
            apply_options(records, replace(opts, node=None, force_node=None,
                                           hardware_type=None), source, default_campaign=fmt)
        except TrialParseError as exc:
            if item.walked and skipped is not None:
                skipped.append(Skipped(item.path, f"[{exc.rule}] {_named(exc, item).detail}"))
                continue
            raise _named(exc, item) from None
        kept.append((source, fmt, records))
    plain = kept
    _distinct_run_indexes(plain, known_runs or {})
    untimed = 0
    for source, _fmt, records in plain:
        missing = sum(1 for r in records if not r.get("started_at"))
        if missing:
            untimed += missing
            batch.con.execute("INSERT INTO untimed_sources VALUES (?)", [source])
        table, problems = jsonl.check_records(records, source)
        batch.record_sources.add(source)
        batch.add_arrow(table)
        batch.add_problems(problems)
    return untimed


def _named(exc: TrialParseError, item: ImportFile) -> TrialParseError:
    """``exc`` saying which format ``ingest auto`` read the file as."""
    if not item.detected:
        return exc
    return TrialParseError(exc.source, exc.line, exc.rule,
                           f"{exc.detail} (read as {item.format} results)")


def _path_options(pattern: PathPattern, item: ImportFile, options: ImportOptions) -> ImportOptions:
    """``options`` completed by the keys ``--path-pattern`` finds in the input's path (the
    command line wins); one line when the path does not match or a time does not parse."""
    from dataclasses import replace

    try:
        keys = pattern.keys(item.path.as_posix())
    except ValueError as exc:
        raise UsageError(f"{item.path}: --path-pattern {pattern.text!r}: {exc}") from None
    if keys is None:
        raise UsageError(f"{item.path}: the path does not match --path-pattern "
                         f"{pattern.text!r}")
    given: dict[str, Any] = {k: v for k, v in keys.items() if getattr(options, k, None) is None
             and k != "started_at"}
    path_start = keys.get("started_at")
    return replace(options, **given, started_at=options.started_at or path_start)


def _fill_start(records: list[dict], path: Path, options: ImportOptions) -> None:
    """``started_at`` the file does not say := ``options.started_at`` (a time, or the
    file's modification time in UTC when it is ``mtime``: for a directory, its newest
    file's); with neither, it stays empty (never invented)."""
    from datetime import datetime, timezone

    if options.started_at is None or all(r.get("started_at") for r in records):
        return
    stamp = options.started_at
    if stamp == "mtime":
        mtime = path.stat().st_mtime
        if path.is_dir():
            mtime = max((p.stat().st_mtime for p in path.rglob("*") if p.is_file()),
                        default=mtime)
        stamp = datetime.fromtimestamp(mtime, timezone.utc).isoformat().replace("+00:00", "Z")
    for record in records:
        if not record.get("started_at"):
            record["started_at"] = stamp


def _distinct_run_indexes(parsed: list[tuple[str, str, list[dict]]],
                          known_runs: dict[tuple[str, str], int]) -> None:
    """Give the runs of one (campaign, node) distinct ``run_index`` values when inputs of
    the batch collide (hyperfine and go test number every file's run 0).

    A run already in the warehouse (``known_runs``: (campaign, run_id) -> run_index) keeps
    its stored index, so a file ingests again alone or with others alike. Runs of one file
    keep the parser's numbering unless another file of the batch uses the same (campaign,
    node, run_index) for another run; then the new runs of that (campaign, node) are
    renumbered by their start time (then file order, the parser's run_index, run_id) with
    the smallest indexes its stored runs of the batch do not hold. Runs are told apart by
    their ``run_id`` (the trial split of ``jobs/series.py``), not by their index.
    """
    runs: dict[tuple, dict[str | None, tuple]] = {}  # (campaign, node) -> run_id -> sort key
    owner: dict[tuple, tuple[str | None, int]] = {}  # (campaign, node, run_index) -> (run_id, file)
    clash: set[tuple] = set()
    for order, (_source, _fmt, records) in enumerate(parsed):
        for record in records:
            group = (record.get("campaign"), record.get("node"))
            run_id = record.get("run_id")
            stored = known_runs.get((str(group[0]), str(run_id)))
            if stored is not None:
                record["run_index"] = stored
            index = record.get("run_index")
            key = (str(record.get("started_at") or ""), order,
                   index if isinstance(index, int) else 0, str(run_id))
            known = runs.setdefault(group, {})
            known[run_id] = min(known.get(run_id, key), key)
            seen = owner.setdefault((*group, index), (run_id, order))
            if seen[0] != run_id and seen[1] != order:
                clash.add(group)
    if not clash:
        return
    new: dict[tuple, dict[str | None, int]] = {}
    for group in clash:
        fixed = {run_id: known_runs[(str(group[0]), str(run_id))] for run_id in runs[group]
                 if (str(group[0]), str(run_id)) in known_runs}
        taken = set(fixed.values())
        free = (i for i in itertools.count() if i not in taken)
        fresh = sorted((item for item in runs[group].items() if item[0] not in fixed),
                       key=lambda item: item[1])
        new[group] = {**fixed, **{run_id: next(free) for run_id, _key in fresh}}
    for _source, _fmt, records in parsed:
        for record in records:
            group = (record.get("campaign"), record.get("node"))
            if group in new:
                record["run_index"] = new[group][record.get("run_id")]


def _known(warehouse: Warehouse) -> tuple[dict[str, str], dict[tuple[str, str], int]]:
    """What the warehouse already holds, read in one catalog open: node -> hardware type,
    and (campaign, run_id) -> run_index (both empty if there is no warehouse)."""
    if not warehouse.exists():
        return {}, {}
    with warehouse.catalog() as con:
        types = dict(con.execute("SELECT node, hardware_type FROM nodes").fetchall())
        runs = con.execute("SELECT campaign, run_id, run_index FROM runs").fetchall()
    return types, {(campaign, run_id): index for campaign, run_id, index in runs}


def ingest_import(
    warehouse: Warehouse, fmt: str, paths: Sequence[Path], options: ImportOptions, *,
    quarantine: bool = False, dry_run: bool = False, reporter: Reporter | None = None,
    skipped: list[Skipped] | None = None, strict: bool = False,
    notes: list[str] | None = None,
) -> tuple[list[ImportFile], stage.IngestSummary | stage.Preview]:
    """``perfwarehouse ingest FMT PATH...`` (FMT a registered format, or ``auto``).

    One batch for all inputs. With ``dry_run`` everything is parsed and validated and
    the counts of what would land are returned; nothing is written (the warehouse is
    not even created). Returns the inputs (with the format used for each) and the
    summary or preview (whose ``untimed`` counts the trials stored without a start time).
    Files below a directory argument that are not ingested are appended to ``skipped``
    with their reason; with ``strict`` any such file refuses the whole batch. What the
    parsers noted about the files read goes to ``notes`` (one line each).
    """
    from dataclasses import replace

    reporter = reporter or SilentReporter()
    skipped = skipped if skipped is not None else []
    inputs = collect_inputs(fmt, paths, skipped)
    formats = sorted({i.format for i in inputs})
    batch = stage.Batch(", ".join(str(p) for p in paths), "+".join(formats))
    try:
        with reporter.task("parsing", total=len(inputs), unit="files") as task:
            untimed = stage_inputs(batch, inputs, options, task, *_known(warehouse),
                                   skipped=skipped, notes=notes)
        if strict and skipped:
            first = skipped[0]
            more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
            raise UsageError(f"{first.path}: skipped: {first.reason}{more}; --strict refuses "
                             "any skipped file (nothing was ingested)")
        if not batch.record_sources:
            raise UsageError(f"nothing to ingest: every one of {len(skipped):,} file(s) was "
                             "skipped (listed above)")
        inputs = [i for i in inputs if str(i.path) in batch.record_sources]
        if dry_run:
            preview = stage.preview(warehouse, batch, quarantine=quarantine, reporter=reporter)
            return inputs, replace(preview, untimed=untimed)
        return inputs, replace(stage.land(warehouse, batch, quarantine=quarantine, reporter=reporter),
                               untimed=untimed)
    finally:
        batch.close()
