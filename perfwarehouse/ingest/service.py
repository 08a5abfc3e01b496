"""Ingest commands: read inputs (the edge), parse (pure), land (atomic).

Each call is one batch: every input of the call lands together or not at all.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest import stage
from perfwarehouse.ingest.formats import jsonl, ordersage
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.hardware import load_rules
from perfwarehouse.progress import Reporter, SilentReporter, Task
from perfwarehouse.warehouse.store import Warehouse


def ingest_ordersage(
    warehouse: Warehouse, directories: Sequence[Path], *, campaign: str | None = None,
    hardware_type: str | None = None, hardware_map: Path | None = None,
    quarantine: bool = False, reporter: Reporter | None = None,
) -> stage.IngestSummary:
    """Ingest OrderSage results directories; the campaign defaults to each directory's name."""
    reporter = reporter or SilentReporter()
    rules = load_rules(hardware_map, hardware_type)
    batch = stage.Batch(", ".join(str(d) for d in directories), "ordersage")
    try:
        with reporter.task("reading OrderSage results", total=len(directories), unit="dirs") as task:
            for directory in directories:
                directory = Path(directory)
                if not directory.is_dir():
                    raise UsageError(f"{directory} is not a directory")
                chosen = ordersage.classify([p.name for p in directory.iterdir()]).all()
                files = {name: (directory / name).read_bytes() for name in chosen}
                for name in sorted(files):
                    batch.hash_bytes(name, files[name])
                # options change the result, so they are part of the batch's content
                batch.hash_bytes("options", repr((campaign or directory.name, rules)).encode())
                table, problems = ordersage.parse_directory(
                    files, directory=str(directory), campaign=campaign or directory.name,
                    rules=rules)
                batch.add_arrow(table)
                batch.add_problems(problems)
                task.advance()
        return _land(warehouse, batch, quarantine, reporter)
    finally:
        batch.close()


def ingest_jsonl(
    warehouse: Warehouse, files: Sequence[Path], *, quarantine: bool = False,
    reporter: Reporter | None = None,
) -> stage.IngestSummary:
    """Ingest native trial logs (JSON Lines)."""
    reporter = reporter or SilentReporter()
    paths = [Path(f) for f in files]
    for path in paths:
        if not path.is_file():
            raise UsageError(f"{path} is not a file")
    batch = stage.Batch(", ".join(str(p) for p in paths), "jsonl")
    try:
        total_mb = sum(p.stat().st_size for p in paths) / 1e6
        with reporter.task("parsing", total=total_mb, unit="MB") as task:
            offset = 0.0
            for path in paths:
                _read_jsonl(batch, path, task, offset)
                offset += path.stat().st_size / 1e6
        return _land(warehouse, batch, quarantine, reporter)
    finally:
        batch.close()


def _read_jsonl(batch: stage.Batch, path: Path, task: Task, offset_mb: float) -> None:
    """DuckDB's reader first, the line-by-line reference parser if DuckDB cannot parse."""
    source = str(path)
    lines: list[int] = []
    # hashing and counting lines overlap with DuckDB's parse (hashlib releases the GIL)
    side = threading.Thread(target=lambda: lines.append(batch.hash_file(path)))
    side.start()
    done = threading.Event()
    watcher = threading.Thread(target=_watch_progress,
                               args=(batch.con, path.stat().st_size / 1e6, task, offset_mb, done))
    watcher.start()
    try:
        n = jsonl.read_fast(batch.con, path, source)
    finally:
        done.set()
        watcher.join()
        side.join()
    if n is None:
        table, problems = jsonl.parse(path.read_bytes(), source)
        batch.add_arrow(table)
        batch.add_problems(problems)
    elif n != lines[0]:
        jsonl.fix_line_numbers(batch.con, path, source)


def _watch_progress(con: duckdb.DuckDBPyConnection, size_mb: float, task: Task,
                    offset_mb: float, done: threading.Event) -> None:
    """Move the bar along with DuckDB's own progress estimate of the running read."""
    while not done.wait(0.25):
        try:
            percent = con.query_progress()
        except duckdb.Error:
            return
        if percent and percent > 0:
            task.update(completed=offset_mb + size_mb * min(percent, 100.0) / 100)
    task.update(completed=offset_mb + size_mb)


def _land(warehouse: Warehouse, batch: stage.Batch, quarantine: bool,
          reporter: Reporter) -> stage.IngestSummary:
    return stage.land(warehouse, batch, quarantine=quarantine, reporter=reporter)


def ingest_table(
    warehouse: Warehouse, file: Path, mapping: Path | None, *, quarantine: bool = False,
    reporter: Reporter | None = None,
) -> stage.IngestSummary:
    """Ingest a CSV or Parquet table through a TOML mapping (``ingest/mappings/``)."""
    from perfwarehouse.ingest.formats import table

    reporter = reporter or SilentReporter()
    if not Path(file).is_file():
        raise UsageError(f"{file} is not a file")
    _refuse_non_tables(Path(file))
    spec = table.load_mapping(mapping)
    batch = stage.Batch(str(file), "table")
    try:
        with reporter.task("reading table", total=None, unit="rows"):
            batch.hash_file(Path(file))
            batch.hash_bytes("mapping", repr(spec).encode())
            table.read(batch, Path(file), spec)
        return _land(warehouse, batch, quarantine, reporter)
    finally:
        batch.close()


def _refuse_non_tables(path: Path) -> None:
    """One line for a file ``ingest table`` must not read as CSV (compressed, or JSON)."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:4] == b"PAR1":
        return
    if head[:2] == GZIP_MAGIC:
        raise UsageError(f"{path} is gzip-compressed: `ingest table` reads plain CSV or Parquet; "
                         "for results of other tools use `perfwarehouse ingest auto` (it reads "
                         ".gz), else decompress it first")
    if head.lstrip()[:1] in (b"{", b"["):
        raise UsageError(f"{path} holds JSON, not a table: use `perfwarehouse ingest auto` (or "
                         "`ingest jsonl` for native trial logs)")


# ------------------------------------------------------- other tools' results
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class ImportFile:
    """One input of ``ingest <format>``: its path, decompressed bytes and format."""

    path: Path
    data: bytes
    format: str
    #: a results directory read whole (asv): relative posix path -> decompressed bytes
    files: dict[str, bytes] | None = None


def read_input(path: Path) -> bytes:
    """The bytes of ``path``, gunzipped when they start with the gzip magic (not by name)."""
    from perfwarehouse.ingest.bounded import gunzip

    raw = path.read_bytes()
    if raw[:2] != GZIP_MAGIC:
        return raw
    return gunzip(raw, str(path))  # at most limits.DECOMPRESSED_MAX bytes


def detect_format(data: bytes, filename: str) -> list[str]:
    """Names of the registered formats whose ``sniff`` claims this content."""
    from perfwarehouse.ingest.formats import load_all
    from perfwarehouse.ingest.formats.records import SNIFF_BYTES

    head = data[:SNIFF_BYTES]
    name = filename[:-3] if filename.endswith(".gz") else filename
    return [fmt for fmt, module in load_all().items() if module.sniff(head, name)]


def collect_inputs(fmt: str, paths: Sequence[Path]) -> list[ImportFile]:
    """Read the inputs of ``ingest FMT`` (``auto``: each file's format by its content).

    A directory stands for the files below it that the format claims (all formats with
    ``auto``), in name order. With ``auto`` a file no format or several formats claim is
    refused with one line.
    """
    from perfwarehouse.ingest.formats import load

    if fmt != "auto":
        load(fmt)
    out: list[ImportFile] = []
    for path in (Path(p) for p in paths):
        if path.is_dir() and fmt in ("asv", "auto"):
            whole = _results_directory(path, fmt)
            if whole is not None:
                out.append(whole)
                continue
        if path.is_dir():
            found = []
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                data = read_input(child)
                claims = detect_format(data, child.name)
                if (fmt == "auto" and len(claims) == 1) or fmt in claims:
                    found.append(ImportFile(child, data, claims[0] if fmt == "auto" else fmt))
            if not found:
                what = "any format" if fmt == "auto" else fmt
                raise UsageError(f"{path}: no file in this directory looks like {what} results")
            out.extend(found)
            continue
        if not path.is_file():
            raise UsageError(f"{path} is not a file")
        data = read_input(path)
        claims = detect_format(data, path.name)
        if fmt != "auto":
            if claims and fmt not in claims:
                raise UsageError(f"{path} looks like {' or '.join(claims)} results, not {fmt}; "
                                 f"use perfwarehouse ingest {claims[0]} (or ingest auto)")
            out.append(ImportFile(path, data, fmt))
            continue
        if not claims:
            raise UsageError(f"{path}: cannot tell its format (none of {', '.join(_names())} "
                             "recognises it); name it: perfwarehouse ingest FORMAT PATH")
        if len(claims) > 1:
            raise UsageError(f"{path}: looks like {' and '.join(claims)}; name the format: "
                             f"perfwarehouse ingest {claims[0]} PATH")
        out.append(ImportFile(path, data, claims[0]))
    return out


def _results_directory(path: Path, fmt: str) -> ImportFile | None:
    """An asv results directory as one input (every file below it, gunzipped, by its
    relative posix path); ``None`` when ``ingest auto`` finds no asv layout there."""
    from perfwarehouse.ingest.formats import asv

    children = sorted(p for p in path.rglob("*") if p.is_file())
    relpaths = [c.relative_to(path).as_posix() for c in children]
    if fmt == "auto" and not asv.is_results_directory(relpaths):
        return None
    files = {rel: read_input(child) for rel, child in zip(relpaths, children)}
    return ImportFile(path, b"", "asv", files)


def _names() -> list[str]:
    from perfwarehouse.ingest.formats import IMPORTERS

    return sorted(IMPORTERS)


def stage_inputs(batch: stage.Batch, inputs: Sequence[ImportFile], options: ImportOptions,
                 task: Task | None = None, known_types: dict[str, str] | None = None,
                 known_runs: dict[tuple[str, str], int] | None = None) -> None:
    """Parse each input with its format (pure), apply the command line's options and put the
    records through the per-record checks of the native trial log into ``batch``.

    A node whose hardware type neither the file nor ``--hardware-type`` gives takes the
    type another input of the batch gives it, else ``known_types`` (the warehouse's),
    else its name. ``known_runs`` ((campaign, run_id) -> run_index, the warehouse's) keeps
    the run index of a run that is already in, whatever the batch's other files are.
    """
    from perfwarehouse.ingest.formats import load
    from perfwarehouse.ingest.formats.records import apply_options

    batch.hash_bytes("options", repr(options).encode())
    parsed = []
    for item in inputs:
        source = str(item.path)
        if item.files is not None:  # a results directory (asv)
            for rel in sorted(item.files):
                batch.hash_bytes(f"{item.format}:{item.path.name}/{rel}", item.files[rel])
            records = load(item.format).parse_directory(item.files, source, options)
        else:
            batch.hash_bytes(f"{item.format}:{item.path.name}", item.data)
            records = load(item.format).parse(item.data, source, options)
        if not records:
            raise TrialParseError(source, 0, "empty",
                                  f"no trials in this {item.format} file (nothing was ingested)")
        _default_start(records, item.path)
        parsed.append((source, item.format, records))
        if task is not None:
            task.advance()
    types = dict(known_types or {})
    for _source, _fmt, records in parsed:
        for record in records:
            node = options.node or record.get("node")
            given = options.hardware_type or record.get("hardware_type")
            if node and given:
                types[node] = given
    for source, fmt, records in parsed:
        if options.hardware_type is None:
            for record in records:
                node = options.node or record.get("node")
                if not record.get("hardware_type") and node in types:
                    record["hardware_type"] = types[node]
        apply_options(records, options, source, default_campaign=fmt)
    _distinct_run_indexes(parsed, known_runs or {})
    for source, _fmt, records in parsed:
        table, problems = jsonl.check_records(records, source)
        batch.record_sources.add(source)
        batch.add_arrow(table)
        batch.add_problems(problems)


def _default_start(records: list[dict], path: Path) -> None:
    """``started_at`` the file does not say := the file's modification time (UTC, RFC 3339;
    for a directory, its newest file's), so that runs of different files order in time."""
    from datetime import datetime, timezone

    if all(r.get("started_at") for r in records):
        return
    mtime = path.stat().st_mtime
    if path.is_dir():
        mtime = max((p.stat().st_mtime for p in path.rglob("*") if p.is_file()), default=mtime)
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
    runs: dict[tuple, dict[str, tuple]] = {}  # (campaign, node) -> run_id -> sort key
    owner: dict[tuple, tuple[str, int]] = {}  # (campaign, node, run_index) -> (run_id, file)
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
    new: dict[tuple, dict[str, int]] = {}
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
) -> tuple[list[ImportFile], stage.IngestSummary | stage.Preview]:
    """``perfwarehouse ingest FMT PATH...`` (FMT a registered format, or ``auto``).

    One batch for all inputs. With ``dry_run`` everything is parsed and validated and
    the counts of what would land are returned; nothing is written (the warehouse is
    not even created). Returns the inputs (with the format used for each) and the
    summary or preview.
    """
    reporter = reporter or SilentReporter()
    inputs = collect_inputs(fmt, paths)
    formats = sorted({i.format for i in inputs})
    batch = stage.Batch(", ".join(str(p) for p in paths), "+".join(formats))
    try:
        with reporter.task("parsing", total=len(inputs), unit="files") as task:
            stage_inputs(batch, inputs, options, task, *_known(warehouse))
        if dry_run:
            return inputs, stage.preview(warehouse, batch, quarantine=quarantine,
                                         reporter=reporter)
        return inputs, _land(warehouse, batch, quarantine, reporter)
    finally:
        batch.close()
