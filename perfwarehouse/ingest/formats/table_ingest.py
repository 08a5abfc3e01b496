"""``perfwarehouse ingest table FILE|DIR...``: tables through one mapping, as one batch, with
the options every import command has (``--node``/``--force-node``, ``--started-at``,
``--path-pattern``, ``--setting``, ``--strict``, ``--dry-run``).

The edge of :mod:`perfwarehouse.ingest.formats.table` (which reads one table into a
batch): it finds the files (a directory stands for every ``.csv``, ``.tsv`` and
``.parquet`` file below it, hidden directories left out), turns the command line's
options into the mapping's keys (over every row), fills (where the table gives no value)
and extra settings, and lands or previews the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest import stage
from perfwarehouse.ingest.formats import table
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.formats.table_mapping import Mapping
from perfwarehouse.ingest.inputs import GZIP_MAGIC, Skipped
from perfwarehouse.ingest.pathkeys import PathPattern, compile_pattern
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse.store import Warehouse

#: the file names a walk takes for tables (others below a directory are skipped, listed)
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet")


def ingest_tables(
    warehouse: Warehouse, paths: Sequence[Path], mapping: Path | None,
    options: ImportOptions | None = None, *, quarantine: bool = False, dry_run: bool = False,
    reporter: Reporter | None = None, skipped: list[Skipped] | None = None,
    strict: bool = False,
) -> tuple[list[Path], stage.IngestSummary | stage.Preview]:
    """Ingest the tables ``paths`` (files, or directories: every table below) through the
    mapping file ``mapping`` (``None``: the native names) as one batch.

    ``options`` are the command line's: campaign, revision and revision time hold for
    every row; ``node`` and ``hardware_type`` fill in where the table gives none (a node
    column's empty cell, or no node column: over the mapping's constant), ``force_node``
    replaces the table's; ``started_at`` (a time, or ``mtime``) fills the start time a
    table does not hold; ``path_pattern`` takes keys from each file's path (the command
    line wins); ``settings`` are added to every row's settings. A file below a directory
    that cannot be read through the mapping is appended to ``skipped`` with the reason
    (``strict``: refused instead). Returns the files read and the summary (or, with
    ``dry_run``, the preview; nothing is written), whose ``untimed`` counts the trials
    of tables that hold no start time (stored without one, never invented).
    """
    from perfwarehouse.ingest.formats._loadtest import LOAD_SETTINGS, non_negative

    reporter = reporter or SilentReporter()
    options = options or ImportOptions()
    skipped = skipped if skipped is not None else []
    pattern = compile_pattern(options.path_pattern) if options.path_pattern else None
    spec = table.load_mapping(mapping)
    for key, value in options.settings:
        if key in LOAD_SETTINGS and isinstance(value, int | float) and \
                not isinstance(value, bool):
            non_negative(value, "--setting", 0, f"--setting {key}")
    files = collect_tables(paths, skipped)
    batch = stage.Batch(", ".join(str(p) for p in paths), "table")
    read: list[Path] = []
    untimed = 0
    try:
        with reporter.task("reading tables", total=len(files), unit="files") as task:
            for path, walked in files:
                try:
                    file_options = _path_options(pattern, path, options) if pattern else options
                    untimed += _read_one(batch, path, with_options(spec, file_options, path))
                    read.append(path)
                except (TrialParseError, UsageError) as exc:
                    if not walked:
                        raise
                    batch.problems = [p for p in batch.problems if p.source != str(path)]
                    batch.con.execute("DELETE FROM raw_trials WHERE source = ?", [str(path)])
                    skipped.append(Skipped(path, _reason(exc, path)))
                task.advance()
        if strict and skipped:
            more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
            raise UsageError(f"{skipped[0].path}: skipped: {skipped[0].reason}{more}; --strict "
                             "refuses any skipped file (nothing was ingested)")
        if not read:
            raise UsageError(f"nothing to ingest: every one of {len(skipped):,} file(s) was "
                             "skipped (listed above)")
        if dry_run:
            preview = stage.preview(warehouse, batch, quarantine=quarantine, reporter=reporter)
            return read, replace(preview, untimed=untimed)
        summary = stage.land(warehouse, batch, quarantine=quarantine, reporter=reporter)
        return read, replace(summary, untimed=untimed)
    finally:
        batch.close()


def _read_one(batch: stage.Batch, path: Path, spec: Mapping) -> int:
    """Read one table into the batch; the number of its trial records without a start
    time (0 unless the table holds none)."""
    refuse_non_tables(path)
    batch.hash_file(path)
    batch.hash_bytes("mapping", repr(spec).encode())
    untimed = table.read(batch, path, spec)
    row = batch.con.execute("SELECT count(nullif(trim(node), '')), min(line) FROM raw_trials "
                            "WHERE source = ?",
                            [str(path)]).fetchone()
    if row and row[0] == 0 and row[1] is not None:  # (rows without one: per-row problems)
        raise TrialParseError(str(path), 0, "no-node",
                              "the table does not name the machine it ran on: pass --node NAME "
                              "(and --hardware-type TYPE)")
    if not untimed:
        return 0
    batch.con.execute("INSERT INTO untimed_sources VALUES (?)", [str(path)])
    row = batch.con.execute("SELECT count(*) FROM raw_trials WHERE source = ? "
                            "AND started_at IS NULL", [str(path)]).fetchone()
    return int(row[0]) if row else 0


def _reason(exc: TrialParseError | UsageError, path: Path) -> str:
    """Why a walked file was skipped, in one line without repeating its path."""
    if isinstance(exc, TrialParseError):
        where = f"line {exc.line}: " if exc.line else ""
        return f"{where}[{exc.rule}] {exc.detail}"
    return str(exc).removeprefix(f"{path}: ").removeprefix(f"{path} ")


def with_options(spec: Mapping, options: ImportOptions, path: Path) -> Mapping:
    """``spec`` with the command line's ``options`` (see :func:`ingest_tables`)."""
    keys = {name: getattr(options, name) for name in ("campaign", "revision", "revision_time")
            if getattr(options, name) is not None}
    fill = {}
    if options.force_node is not None:
        keys["node"] = options.force_node
        keys["hardware_type"] = options.hardware_type or options.force_node
    else:
        fill = {name: getattr(options, name) for name in ("node", "hardware_type")
                if getattr(options, name) is not None}
    if options.started_at is not None:
        fill["started_at"] = file_time(path) if options.started_at == "mtime" \
            else options.started_at
    return spec.with_keys(keys, fill, tuple(options.settings))


def file_time(path: Path) -> str:
    """A file's modification time in UTC, RFC 3339 (``--started-at mtime``)."""
    stamp = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
    return stamp.isoformat().replace("+00:00", "Z")


def _path_options(pattern: PathPattern, path: Path, options: ImportOptions) -> ImportOptions:
    """``options`` completed by the keys the path gives (the command line wins); one line
    when the path does not match or a time in it does not parse."""
    try:
        keys = pattern.keys(path.as_posix())
    except ValueError as exc:
        raise UsageError(f"{path}: --path-pattern {pattern.text!r}: {exc}") from None
    if keys is None:
        raise UsageError(f"{path}: the path does not match --path-pattern {pattern.text!r}")
    given = {k: v for k, v in keys.items() if getattr(options, k, None) is None}
    return replace(options, **given)  # type: ignore[arg-type]


def collect_tables(paths: Sequence[Path], skipped: list[Skipped]) -> list[tuple[Path, bool]]:
    """The tables to read, each with whether it was found below a directory: a file named
    on the command line is read whatever its name; a directory stands for every
    ``.csv``/``.tsv``/``.parquet`` file below it (name order; other files and hidden
    directories are appended to ``skipped``)."""
    out: list[tuple[Path, bool]] = []
    for path in (Path(p) for p in paths):
        if path.is_dir():
            found = []
            for child in sorted(path.rglob("*")):
                rel = child.relative_to(path).parts
                if any(part.startswith(".") for part in rel) or not child.is_file():
                    continue
                if child.suffix.lower() in TABLE_SUFFIXES:
                    found.append((child, True))
                else:
                    skipped.append(Skipped(child, "not a table (.csv, .tsv or .parquet)"))
            if not found:
                raise UsageError(f"{path}: no .csv, .tsv or .parquet file below this directory")
            out.extend(found)
        elif path.is_file():
            out.append((path, False))
        else:
            raise UsageError(f"{path} is not a file")
    return out


def refuse_non_tables(path: Path) -> None:
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
