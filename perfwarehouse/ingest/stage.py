"""Validate, de-duplicate and land one batch of parsed trials.

A :class:`Batch` is an in-memory DuckDB database holding the parsed records
(``raw_trials``, see ``sql/staging/raw_trials.sql``) and the problems the
parsers found. :func:`land` then, in order:

1. canonicalises settings and checks every rule of ``sql/staging/validate.sql``;
   any problem refuses the batch (or, with ``quarantine``, sets its records aside);
2. under the warehouse's write lock, compares the batch with what the warehouse
   holds: the same content again changes nothing; a trial already present with
   the same values is skipped; with different values it is a conflict;
3. writes the new measurements as Parquet into a staging directory outside
   ``measurements/``, records them, the dimension rows, the trials and the batch
   in **one** catalog transaction
   (:func:`perfwarehouse.warehouse.catalog.record_batch`), and only then renames the
   files into the hive layout (:meth:`Warehouse.publish`). So a process killed at any
   instant leaves the warehouse as before or after the batch, and an engine reading
   ``measurements/`` directly never sees an uncommitted file; a batch committed
   but not yet renamed is finished by the next open, read-only or not
   (:meth:`Warehouse._recover_read_only`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from perfwarehouse.errors import ConflictError, TrialParseError
from perfwarehouse.faults import checkpoint
from perfwarehouse.ingest import json_policy, latency, limits
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse import catalog, sqlfiles
from perfwarehouse.warehouse.compact import auto_compact
from perfwarehouse.warehouse.store import (
    DATA,
    Warehouse,
    WriteSession,
    configure,
    fetch_arrow,
    fetch_one,
    fetch_value,
)

MAX_REPORTED = 1000
MEMORY_LIMIT = "3GB"  # per batch; DuckDB spills beyond it (demo peak <= 4 GB)
# Called inside the catalog transaction that lands a batch, with that connection and the
# batch id (None when the batch adds nothing), so a caller can record its own state (a
# pull cursor) atomically with the batch. Raising rolls the batch back.
OnCommit = Callable[[duckdb.DuckDBPyConnection, "int | None"], None]
VALUE_TOLERANCE = 1e-9  # relative; re-saved copies of a trial differ by float rounding


@dataclass(frozen=True)
class IngestSummary:
    """What an ingest did. ``outcome``: landed, unchanged (same content again) or nothing-new;
    ``seconds``: the whole ingest of the batch, from reading its first input to landing."""

    source: str
    format: str
    outcome: str
    batch_id: int | None = None
    trials_added: int = 0
    values_added: int = 0
    trials_skipped: int = 0
    quarantined: int = 0
    campaigns: tuple[str, ...] = ()
    seconds: float = 0.0
    problems: tuple[TrialParseError, ...] = field(default=(), repr=False)
    untimed: int = 0  # records of other tools' files stored without a start time
    notes: tuple[str, ...] = ()  # unit conversions into the warehouse's unit


class FileDigest:
    """One file's bytes fed into a batch's content hash chunk by chunk, counting its lines
    (a last line without a newline counts)."""

    def __init__(self, hash_: Any) -> None:
        self._hash = hash_
        self._newlines = 0
        self._last = b"\n"

    def update(self, chunk: bytes) -> None:
        self._hash.update(chunk)
        self._newlines += chunk.count(b"\n")
        self._last = chunk[-1:]

    @property
    def lines(self) -> int:
        return self._newlines + (self._last != b"\n")


class Batch:
    """Parsed records of one ingest command, held in an in-memory DuckDB."""

    def __init__(self, source: str, fmt: str, memory_limit: str = MEMORY_LIMIT) -> None:
        self.source = source
        self.format = fmt
        self.started = time.monotonic()  # IngestSummary.seconds: reading, checks, landing
        # a batch larger than memory_limit spills to a private temporary directory, which
        # DuckDB creates on its first spill and removes on close: an ingest killed before
        # it spilled leaves nothing in the temporary directory
        self.spill = Path(tempfile.gettempdir()) / f"perfwarehouse-batch-{uuid.uuid4().hex}"
        self.con = duckdb.connect(config={"memory_limit": memory_limit,
                                          "temp_directory": str(self.spill)})
        configure(self.con)
        self.con.execute(sqlfiles.load("staging/raw_trials"))
        # sources of other tools whose records may lack a start time (never invented)
        self.con.execute("CREATE TEMP TABLE untimed_sources (source VARCHAR)")
        self.problems: list[TrialParseError] = []
        # sources whose record numbers are not line numbers (parsed documents of other tools)
        self.record_sources: set[str] = set()
        self._hash = hashlib.sha256()

    def hash_bytes(self, name: str, data: bytes) -> None:
        """Feed one input's name and content into the batch's content hash."""
        self._hash.update(name.encode() + b"\0" + len(data).to_bytes(8, "little"))
        self._hash.update(data)

    def hash_file(self, path: Path) -> int:
        """Feed a file into the content hash; returns its number of lines (one pass)."""
        digest = self.file_digest(path)
        with open(path, "rb") as f:
            while chunk := f.read(1 << 23):
                digest.update(chunk)
        return digest.lines

    def file_digest(self, path: Path) -> FileDigest:
        """A digest that feeds ``path``'s chunks, given in order by a reader that passes over
        the bytes anyway, into the content hash, as :meth:`hash_file` does."""
        size = path.stat().st_size
        self._hash.update(path.name.encode() + b"\0" + size.to_bytes(8, "little"))
        return FileDigest(self._hash)

    @property
    def content_hash(self) -> str:
        return self._hash.hexdigest()

    def add_arrow(self, table: pa.Table) -> None:
        """Append parsed records (columns named as in ``raw_trials``)."""
        if table.num_rows:
            self.con.register("_incoming", table)
            self.con.execute("INSERT INTO raw_trials BY NAME SELECT * FROM _incoming")
            self.con.unregister("_incoming")

    def add_problems(self, problems: Iterable[TrialParseError]) -> None:
        self.problems.extend(problems)

    def count(self) -> int:
        return int(fetch_value(self.con, "SELECT count(*) FROM raw_trials"))

    def close(self) -> None:
        self.con.close()
        shutil.rmtree(self.spill, ignore_errors=True)


def land(
    warehouse: Warehouse, batch: Batch, *, quarantine: bool = False,
    reporter: Reporter | None = None, on_commit: OnCommit | None = None,
) -> IngestSummary:
    """Validate ``batch`` and land it in ``warehouse`` atomically (see module docstring).

    ``on_commit`` (optional) runs inside the landing transaction; when the batch adds
    nothing (unchanged or nothing new) it still runs, in a transaction of its own.
    """
    reporter = reporter or SilentReporter()
    started = batch.started
    started_at = datetime.now(timezone.utc)
    con = batch.con
    n_records = batch.count()
    problems = _check(batch, quarantine, reporter)

    checkpoint("validated")
    purpose = f"perfwarehouse ingest {batch.format} {batch.source}"
    with warehouse.writing(purpose) as session:
        with warehouse.catalog() as cat:
            earlier = catalog.find_batch(cat, batch.content_hash, batch.format)
            skipped = 0 if earlier is not None else _compare_with_warehouse(con, cat)
            batch_id = catalog.next_batch_id(cat)
        if earlier is not None:
            _on_commit_alone(session, on_commit)
            return IngestSummary(
                batch.source, batch.format, "unchanged", batch_id=earlier,
                trials_skipped=n_records, seconds=time.monotonic() - started)
        added = batch.count()
        if added == 0 and not problems:
            _on_commit_alone(session, on_commit)
            return IngestSummary(batch.source, batch.format, "nothing-new",
                                 trials_skipped=skipped, seconds=time.monotonic() - started)
        try:
            with reporter.task("writing Parquet", total=None, unit="rows"):
                files = _write_parquet(con, warehouse, batch_id)
            checkpoint("parquet-moved")  # (staged: the name is kept for the kill tests)
            values = sum(f["row_count"] for f in files)
            campaigns = tuple(r[0] for r in con.execute(
                "SELECT DISTINCT campaign FROM staged_trials ORDER BY 1").fetchall())
            with reporter.task("committing", total=None, unit="rows"):
                _commit(session, con, batch, batch_id, files, problems, started_at,
                        added, values, skipped, on_commit)
        except BaseException:
            if not _is_committed(warehouse, batch_id):
                # a refusal, a moved cursor, an error: nobody will publish it
                shutil.rmtree(warehouse.batch_staging(batch_id), ignore_errors=True)
            raise
        # many small files in a small partition: compact it now (docs/compaction.md)
        auto_compact(session, [(str(f["campaign"]), str(f["hardware_type"])) for f in files])
    return IngestSummary(
        batch.source, batch.format, "landed", batch_id=batch_id, trials_added=added,
        values_added=values, trials_skipped=skipped, quarantined=len({(p.source, p.line) for p in problems}),
        campaigns=campaigns, seconds=time.monotonic() - started, problems=tuple(problems),
        notes=unit_notes(con),
    )


@dataclass(frozen=True)
class Preview:
    """What a batch would add (``ingest --dry-run``): counts of the valid records."""

    trials: int
    values: int
    configurations: int
    runs: int
    nodes: int
    campaigns: tuple[str, ...]
    already_present: int = 0  # trials the warehouse holds already (skipped on landing)
    quarantined: int = 0
    untimed: int = 0  # records of other tools' files that hold no start time
    notes: tuple[str, ...] = ()  # unit conversions into the warehouse's unit


def preview(warehouse: Warehouse | None, batch: Batch, *, quarantine: bool = False,
            reporter: Reporter | None = None) -> Preview:
    """Validate ``batch`` exactly as :func:`land` does and count what it would add,
    changing nothing (``warehouse`` is only read, and only if it exists)."""
    reporter = reporter or SilentReporter()
    con = batch.con
    problems = _check(batch, quarantine, reporter)
    skipped = 0
    if warehouse is not None and warehouse.exists():
        with warehouse.catalog() as cat:
            skipped = _compare_with_warehouse(con, cat)
    row = fetch_one(con, """SELECT count(*), coalesce(sum(len("values")), 0),
                                   count(DISTINCT config_id), count(DISTINCT (campaign, run_id)),
                                   count(DISTINCT node)
                            FROM staged_trials""")
    assert row is not None  # an aggregate without GROUP BY: always one row
    campaigns = tuple(r[0] for r in con.execute(
        "SELECT DISTINCT campaign FROM staged_trials ORDER BY 1").fetchall())
    return Preview(int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]), campaigns,
                   already_present=skipped,
                   quarantined=len({(p.source, p.line) for p in problems}),
                   notes=unit_notes(con))


# ---------------------------------------------------------------- validation
def _check(batch: Batch, quarantine: bool, reporter: Reporter) -> list[TrialParseError]:
    """Every rule on the batch; refuse it, or (``quarantine``) set bad records aside.
    Leaves the valid records with their configurations (``staged_trials``)."""
    con = batch.con
    with reporter.task("validating", total=None, unit="rows"):
        problems = batch.problems + _canonicalise_settings(con)
        problems += _validate(con, MAX_REPORTED if not quarantine else 2**62)
        problems += latency.convert(con)  # load-test latency distributions
    problems.sort(key=lambda p: (p.source, p.line, p.rule))
    if problems and not quarantine:
        raise _refusal(problems)
    if problems:
        _drop_lines(con, problems)
        attach_raw_lines([p for p in problems if p.source not in batch.record_sources])
    _assign_configurations(con)
    return problems


def _refusal(problems: list[TrialParseError]) -> TrialParseError:
    first = problems[0]
    more = len(problems) - 1
    if more:
        suffix = f" (and {more}{'+' if len(problems) >= MAX_REPORTED else ''} more problem" \
                 f"{'s' if more > 1 else ''}; nothing was ingested)"
    else:
        suffix = " (nothing was ingested)"
    error = TrialParseError(first.source, first.line, first.rule, first.detail + suffix)
    error.problems = problems  # type: ignore[attr-defined]
    return error


def canonical_settings(text: str) -> str:
    """Canonical JSON of a settings object: sorted keys, compact separators.

    Raises ``ValueError`` (a :class:`~perfwarehouse.ingest.json_policy.PolicyError`
    naming the rule) when ``text`` is not a JSON object or breaks the JSON policy
    (duplicate keys, too deep).
    """
    value = json_policy.loads_text(text)
    json_policy.check_value(value, "settings", depth=2)
    if not isinstance(value, dict):
        raise json_policy.PolicyError("bad-settings", "settings is not a JSON object")
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonicalise_settings(con: duckdb.DuckDBPyConnection) -> list[TrialParseError]:
    """Rewrite ``raw_trials.settings`` canonically; problems for settings that are not
    objects or break the JSON policy, and for ``env`` values that break it."""
    distinct = [r[0] for r in con.execute(
        "SELECT DISTINCT settings FROM raw_trials WHERE settings IS NOT NULL").fetchall()]
    mapping, bad = [], {}
    for text in distinct:
        try:
            mapping.append((text, canonical_settings(text)))
        except json_policy.PolicyError as exc:
            bad[text] = (exc.rule, exc.detail)
        except ValueError:
            bad[text] = ("bad-settings", "settings is not a JSON object")
    if any(a != b for a, b in mapping):
        con.register("_settings_map", pa.table({
            "raw": [a for a, _ in mapping], "canonical": [b for _, b in mapping]}))
        con.execute("""UPDATE raw_trials SET settings = m.canonical FROM _settings_map m
                       WHERE raw_trials.settings = m.raw AND m.raw <> m.canonical""")
        con.unregister("_settings_map")
    # env; attributes (the merged object stands at the record's level: its values are
    # top-level keys); latency is checked where it is converted (latency.convert)
    bad_json: dict[str, dict[str, tuple[str, str]]] = {"env": {}, "attributes": {}}
    for column, depth in (("env", 2), ("attributes", 1)):
        for (text,) in con.execute(f"SELECT DISTINCT {column} FROM raw_trials "
                                   f"WHERE {column} IS NOT NULL").fetchall():
            try:
                json_policy.check_value(json_policy.loads_text(text), column, depth=depth)
            except json_policy.PolicyError as exc:
                bad_json[column][text] = (exc.rule, exc.detail)
    problems = []
    for column, broken in (("settings", bad), *bad_json.items()):
        if not broken:
            continue
        rows = con.execute(
            f"SELECT source, line, {column} FROM raw_trials WHERE list_contains(?, {column}) "
            "ORDER BY source, line LIMIT ?", [list(broken), MAX_REPORTED]).fetchall()
        for source, line, text in rows:
            rule, detail = broken[text]
            if rule == "bad-settings":
                detail = f"settings is not a JSON object: {text[:80]}"
            problems.append(TrialParseError(source, line, rule, detail))
    return problems


def _validate(con: duckdb.DuckDBPyConnection, limit: int) -> list[TrialParseError]:
    rows = con.execute(sqlfiles.load("staging/validate"),
                       {"max_problems": limit, **limits.VALIDATE_PARAMETERS}).fetchall()
    return [TrialParseError(*row) for row in rows]


def _drop_lines(con: duckdb.DuckDBPyConnection, problems: list[TrialParseError]) -> None:
    bad = pa.table({"source": [p.source for p in problems], "line": [p.line for p in problems]})
    con.register("_bad_lines", bad)
    con.execute("DELETE FROM raw_trials WHERE (source, line) IN (SELECT (source, line) FROM _bad_lines)")
    con.unregister("_bad_lines")


def config_id(benchmark: str, settings: str, metric: str) -> int:
    """Stable 64-bit identity of a configuration (benchmark, canonical settings, metric)."""
    digest = hashlib.blake2b(
        "\0".join((benchmark, settings, metric)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def _assign_configurations(con: duckdb.DuckDBPyConnection) -> None:
    """``_configs`` (one row per configuration of the batch, with its id and attributes)
    and the ``staged_trials`` view over the records."""
    combos = con.execute(
        "SELECT benchmark, settings, metric, min(unit), min(higher_is_better) "
        "FROM raw_trials GROUP BY ALL").fetchall()
    con.register("_config_ids", pa.table({
        "config_id": pa.array([config_id(*c[:3]) for c in combos], pa.uint64()),
        "benchmark": pa.array([c[0] for c in combos], pa.string()),
        "settings": pa.array([c[1] for c in combos], pa.string()),
        "metric": pa.array([c[2] for c in combos], pa.string()),
        "unit": pa.array([c[3] for c in combos], pa.string()),
        "higher_is_better": pa.array([c[4] for c in combos], pa.bool_()),
    }))
    con.execute(sqlfiles.load("staging/configs"))
    con.execute("INSERT INTO _configs SELECT * FROM _config_ids")
    con.unregister("_config_ids")
    con.execute(sqlfiles.load("staging/staged_trials"))


# ---------------------------------------------------------- warehouse compare
def _compare_with_warehouse(
    con: duckdb.DuckDBPyConnection, cat: duckdb.DuckDBPyConnection
) -> int:
    """Drop trials the warehouse already has; raise on any conflict. Returns trials skipped."""
    runs = fetch_arrow(con, sqlfiles.load("staging/run_rows"), {"batch_id": 0})
    cat.register("_batch_runs", runs)
    try:
        mismatch = fetch_one(cat, sqlfiles.load("staging/conflicting_runs"))
        if mismatch:
            raise ConflictError(
                f"run {mismatch[1]} of campaign {mismatch[0]} is already in the warehouse with "
                f"another node, order kind, run index, seed or revision ({mismatch[2]}); "
                "nothing was ingested")
        _check_dimension_conflicts(con, cat)
        known_runs = fetch_value(cat, 
            "SELECT count(*) FROM _batch_runs b SEMI JOIN runs r USING (campaign, run_id)"
        )
        if not known_runs:  # trials belong to runs: nothing of this batch can be there yet
            return 0
        existing = fetch_arrow(cat, sqlfiles.load("staging/existing_trials"))
    finally:
        cat.unregister("_batch_runs")
    con.register("_existing", existing)
    try:
        conflict = fetch_one(con, sqlfiles.load("staging/conflicting_trials"),
                               {"tolerance": VALUE_TOLERANCE})
        if conflict:
            source, line, run_id, position = conflict
            raise ConflictError(
                f"{source}:{line}: [conflict] run {run_id} position {position} is already in the "
                "warehouse with different values or status; nothing was ingested")
        skipped = fetch_value(con, """
            DELETE FROM raw_trials WHERE rowid IN (
                SELECT s.record_id FROM staged_trials s
                SEMI JOIN _existing e USING (campaign, run_id, position, config_id))""")
    finally:
        con.unregister("_existing")
    return int(skipped)


def _check_dimension_conflicts(
    con: duckdb.DuckDBPyConnection, cat: duckdb.DuckDBPyConnection
) -> None:
    nodes = fetch_arrow(con, "SELECT node, min(hardware_type) AS hardware_type FROM raw_trials "
                             "GROUP BY node")
    cat.register("_batch_nodes", nodes)
    clash = fetch_one(cat, """
        SELECT b.node, n.hardware_type, b.hardware_type FROM _batch_nodes b
        JOIN nodes n USING (node) WHERE n.hardware_type <> b.hardware_type LIMIT 1""")
    cat.unregister("_batch_nodes")
    if clash:
        raise ConflictError(
            f"node {clash[0]} is of hardware type {clash[1]} in the warehouse but {clash[2]} in "
            "this batch (a node has one hardware type: fix the records' hardware_type, the "
            "mapping, or --hardware-type and --hardware-map where the command has them); "
            "nothing was ingested")
    configs = fetch_arrow(con, "SELECT * FROM _configs")
    cat.register("_batch_configs", configs)
    clashes = cat.execute("""
        SELECT b.benchmark, b.metric, c.unit, b.unit, b.settings, c.higher_is_better,
               b.higher_is_better FROM _batch_configs b
        JOIN configurations c USING (config_id)
        WHERE c.unit IS DISTINCT FROM b.unit OR c.higher_is_better IS DISTINCT FROM b.higher_is_better
        ORDER BY 1, 2, 5""").fetchall()
    cat.unregister("_batch_configs")
    clash = _convert_units(con, clashes)
    if clash:
        raise ConflictError(
            f"{clash[0]} / {clash[1]} has unit {clash[2]!r} (or another direction) in the warehouse "
            f"but {clash[3]!r} in this batch, not another scale of it (a configuration has one "
            "unit in the warehouse; ns..s, ns/op..s/op and ops/ns..ops/min are converted); "
            "nothing was ingested")


def unit_factor(unit: str | None, into: str | None) -> float | None:
    """The factor that turns a value in ``unit`` into ``into`` when both measure the same
    thing in another scale (a time: ``ns`` ... ``s``, also per operation ``ns/op`` ...
    ``s/op``; a rate: ``ops/ns`` ... ``ops/min``), else None (not convertible)."""
    # in nanoseconds: integers, so that the ratio of two scales is exact
    nanos = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "ms": 10**6, "s": 10**9, "min": 6 * 10**10}

    def parse(text: str | None) -> tuple[str, int, int] | None:  # (kind, numerator, denominator)
        if text is None:
            return None
        if text.startswith("ops/") and text[4:] in nanos:
            return "rate", 1, nanos[text[4:]]
        head, slash, tail = text.partition("/")
        if head in nanos and (not slash or tail == "op"):
            return "time" + slash + tail, nanos[head], 1
        return None

    a, b = parse(unit), parse(into)
    if a is None or b is None or a[0] != b[0]:
        return None
    return (a[1] * b[2]) / (a[2] * b[1])


def _convert_units(con: duckdb.DuckDBPyConnection, clashes: list[tuple]) -> tuple | None:
    """Bring the batch's configurations whose unit is another scale of the unit the
    warehouse holds for them (JMH ``-tu``, Google Benchmark's ``->Unit()``) into the
    warehouse's unit, values multiplied by :func:`unit_factor`; each conversion is noted
    in ``_unit_conversions``. Returns the first clash that cannot be converted (another
    kind of unit, or another direction), else None."""
    con.execute("CREATE OR REPLACE TEMP TABLE _unit_conversions (note VARCHAR)")
    for benchmark, metric, stored, given, settings, stored_hib, given_hib in clashes:
        factor = unit_factor(given, stored)
        if factor is None or stored_hib is not given_hib:
            return benchmark, metric, stored, given
        where = "benchmark = ? AND settings = ? AND metric = ?"
        con.execute(f"""UPDATE raw_trials SET "values" = list_transform("values", lambda x: x * ?),
                        unit = ? WHERE {where}""", [factor, stored, benchmark, settings, metric])
        con.execute(f"UPDATE _configs SET unit = ? WHERE {where}",
                    [stored, benchmark, settings, metric])
        con.execute("INSERT INTO _unit_conversions VALUES (?)",
                    [f"{benchmark} / {metric}: {given} converted to {stored} (x{factor:g}), the "
                     "unit the warehouse holds for it"])
    return None


def unit_notes(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """The unit conversions :func:`_convert_units` made in this batch."""
    try:
        return tuple(r[0] for r in con.execute("SELECT note FROM _unit_conversions").fetchall())
    except duckdb.CatalogException:
        return ()


# ------------------------------------------------------------------- landing
def _write_parquet(
    con: duckdb.DuckDBPyConnection, warehouse: Warehouse, batch_id: int
) -> list[dict[str, Any]]:
    """Write the batch's measurements into its staging directory (outside
    ``measurements/``, so no reader sees them yet); return their records, with the
    paths they will have once published."""
    staging = warehouse.batch_staging(batch_id)
    staging.mkdir(parents=True, exist_ok=True)
    query = sqlfiles.load("queries/measurement_rows")
    con.execute(
        f"COPY ({query}) TO {sqlfiles.quote_literal(str(staging))} (FORMAT parquet, "
        f"COMPRESSION zstd, PARTITION_BY (campaign, hardware_type), "
        f"FILENAME_PATTERN 'b{batch_id:06d}-{{i}}')",
        {"batch_id": batch_id},
    )
    files = []
    for path in sorted(staging.rglob("*.parquet")):
        rel_dir = path.parent.relative_to(staging)
        campaign, hardware_type = (urllib.parse.unquote(p.split("=", 1)[1]) for p in rel_dir.parts)
        content = catalog.file_record(path)  # row count, size, checksum, value bounds
        checkpoint("parquet-staged")
        files.append({"path": str(Path(DATA) / rel_dir / path.name), "batch_id": batch_id,
                      "campaign": campaign, "hardware_type": hardware_type, **content})
    return files


def _commit(
    session: WriteSession, con: duckdb.DuckDBPyConnection, batch: Batch, batch_id: int,
    files: list[dict[str, object]], problems: list[TrialParseError], started_at: datetime,
    added: int, values: int, skipped: int, on_commit: OnCommit | None = None,
) -> None:
    """Record everything of the batch in one transaction, then publish its files."""
    record = catalog.BatchRecord(
        batch_id=batch_id, source=batch.source, format=batch.format,
        content_hash=batch.content_hash, started_at=started_at, trials_added=added,
        values_added=values, trials_skipped=skipped,
        quarantined=len({(p.source, p.line) for p in problems}),
        trials=fetch_arrow(con, sqlfiles.load("staging/trial_rows"), {"batch_id": batch_id}),
        runs=fetch_arrow(con, sqlfiles.load("staging/run_rows"), {"batch_id": batch_id}),
        nodes=fetch_arrow(con, sqlfiles.load("staging/node_rows"), {"batch_id": batch_id}),
        configurations=fetch_arrow(con, "SELECT * FROM _configs"),
        latency=latency.rows(con, batch_id),
        files=pa.Table.from_pylist(files) if files else None,
        quarantine=pa.table({
            "batch_id": pa.array([batch_id] * len(problems), pa.int64()),
            "source": [p.source for p in problems], "line": [p.line for p in problems],
            "rule": [p.rule for p in problems], "detail": [p.detail for p in problems],
            "raw": [getattr(p, "raw", None) for p in problems]}),
    )
    with session.catalog() as cat:
        with catalog.transaction(cat):
            catalog.record_batch(cat, record)
            if on_commit:
                on_commit(cat, batch_id)
            checkpoint("before-commit")
        checkpoint("after-commit")
        # committed: only now do the files appear in measurements/ (readers wait for this
        # open catalog; one killed here is finished by the next open, read-only or not)
        session.warehouse.publish(batch_id, [str(f["path"]) for f in files])
        checkpoint("after-publish")
        session.refresh_views_after_commit(cat)  # they bind to files: after publishing


def _is_committed(warehouse: Warehouse, batch_id: int) -> bool:
    """Whether the catalog holds batch ``batch_id`` (asked after a failure)."""
    try:
        with warehouse.catalog() as cat:
            return catalog.batch_recorded(cat, batch_id)
    except Exception:  # cannot tell: keep the files (the next writer decides)
        return True


def _on_commit_alone(session: WriteSession, on_commit: OnCommit | None) -> None:
    """Run ``on_commit`` for a batch that adds nothing, in its own transaction."""
    if on_commit is None:
        return
    with session.catalog() as cat, catalog.transaction(cat):
        on_commit(cat, None)


def attach_raw_lines(problems: list[TrialParseError], limit: int = 10000) -> None:
    """Fill ``problem.raw`` with the offending line's text where the source is a local file."""
    wanted: dict[str, dict[int, TrialParseError]] = {}
    for problem in problems[:limit]:
        if getattr(problem, "raw", None) is None and problem.line:
            wanted.setdefault(problem.source, {})[problem.line] = problem
    for source, by_line in wanted.items():
        path = Path(source)
        if not path.is_file():
            continue
        last = max(by_line)
        with open(path, "rb") as f:
            for lineno, raw in enumerate(f, 1):
                if lineno in by_line:
                    by_line[lineno].raw = raw.rstrip(b"\r\n").decode(  # type: ignore[attr-defined]
                        "utf-8", "replace")
                if lineno >= last:
                    break
