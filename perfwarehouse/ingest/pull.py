"""``perfwarehouse ingest pull``: fetch what is new on each agent, exactly once.

For every agent of ``ingest/sources.toml`` and every segment it lists, the
warehouse keeps a cursor (``pull_cursors``): the byte offset up to which the
segment is ingested (always just after a newline) and the offset and SHA-256 of
the last whole line before it. A pull then, segment by segment:

1. asks for the bytes from the start of that last line to at most
   ``chunk_bytes`` past the cursor (one HTTP range request);
2. checks that the segment is at least as long as the cursor and that the last
   line still hashes the same; if not, the segment was rewritten or truncated:
   it is reported and skipped (exit code 1), never ingested again;
3. keeps the whole lines of the new bytes (an unfinished last line waits for
   its newline, and for the next pull) and ingests them with the JSON Lines
   reader and the staging pipeline of ``ingest jsonl``;
4. lands the chunk and the moved cursor in **one** catalog transaction (the
   ``on_commit`` hook of :func:`perfwarehouse.ingest.stage.land`), after
   checking that the cursor is still where this pull found it.

So a pull killed at any instant leaves every chunk either landed with its
cursor or not at all, and the next pull continues from the cursor: no trial is
lost or ingested twice. (The staging pipeline would also skip a trial that is
already in the warehouse, so even a lost cursor would not duplicate one.)
Transient network errors (refused or reset connections, timeouts, HTTP 429
and 5xx) are retried with exponential backoff, a bounded number of times (the agents and
their HTTP client: :mod:`perfwarehouse.ingest.agent_client`).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from queue import Full, Queue
from typing import TypeVar

import duckdb

from perfwarehouse.errors import (
    AgentError,
    PerfwarehouseError,
    SegmentChangedError,
    TrialParseError,
    UsageError,
)
from perfwarehouse.ingest import scratch, stage
from perfwarehouse.ingest.agent_client import (  # noqa: F401  (sources: the callers' names)
    AgentClient,
    AgentSource,
    load_sources,
)
from perfwarehouse.ingest.formats import jsonl
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.warehouse.catalog import advance_pull_cursor, read_pull_cursors
from perfwarehouse.warehouse.store import Warehouse

DEFAULT_CHUNK_BYTES = 64 << 20
MAX_LINE_BYTES = 64 << 20
FORMAT = "pull"
TEMP_PREFIX = "perfwarehouse-pull-"
T = TypeVar("T")


class CursorMoved(AgentError):
    """Another pull moved the cursor meanwhile; this chunk was not landed."""


# ----------------------------------------------------------------- cursors
@dataclass(frozen=True)
class Cursor:
    """Where a segment's ingestion stands (a row of ``pull_cursors``)."""

    byte_offset: int = 0
    line_count: int = 0
    last_line_offset: int = 0
    last_line_sha256: str | None = None


def read_cursors(warehouse: Warehouse, agent: str) -> dict[str, Cursor]:
    """The cursors of ``agent``'s segments (none if the warehouse does not exist yet)."""
    if not warehouse.exists():
        return {}
    with warehouse.catalog() as con:
        rows = read_pull_cursors(con, agent)
    return {row[0]: Cursor(*row[1:]) for row in rows}


def _cursor_hook(agent: str, segment: str, before: Cursor, after: Cursor,
                 batch: stage.Batch) -> stage.OnCommit:
    """Move the cursor from ``before`` to ``after`` inside the batch's transaction."""

    def on_commit(con: duckdb.DuckDBPyConnection, batch_id: int | None) -> None:
        # what is left in the batch after validation and de-duplication is what it adds
        added = batch.count() if batch_id is not None else 0
        moved_to = advance_pull_cursor(
            con, agent, segment, expected_offset=before.byte_offset,
            new=(after.byte_offset, after.line_count, after.last_line_offset,
                 after.last_line_sha256), added=added, batch_id=batch_id)
        if moved_to is not None:
            raise CursorMoved(f"another pull moved the cursor from byte {before.byte_offset:,} "
                              f"to {moved_to:,} meanwhile; this chunk was not landed (run the "
                              "pull again)")

    return on_commit


# -------------------------------------------------------------------- pull
@dataclass
class SegmentReport:
    """What a pull did with one segment."""

    name: str
    trials_added: int = 0
    trials_skipped: int = 0
    chunks: int = 0
    bytes: int = 0
    pending_bytes: int = 0  # an unfinished last line, waiting for its newline
    problem: str | None = None


@dataclass
class AgentReport:
    """What a pull did with one agent."""

    name: str
    url: str
    segments: list[SegmentReport] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def trials_added(self) -> int:
        return sum(s.trials_added for s in self.segments)

    @property
    def trials_skipped(self) -> int:
        return sum(s.trials_skipped for s in self.segments)

    @property
    def ok(self) -> bool:
        return self.error is None and all(s.problem is None for s in self.segments)

    def lines(self) -> list[tuple[str, bool]]:
        """The summary lines of this agent, each with whether it reports a problem."""
        rate = self.trials_added / self.seconds if self.seconds > 0 else 0.0
        megabytes = sum(s.bytes for s in self.segments) / 1e6
        out = [(f"agent {self.name}: {len(self.segments)} segment(s), "
                f"{self.trials_added:,} trials added, {self.trials_skipped:,} already present, "
                f"{megabytes:.1f} MB in {self.seconds:.1f} s ({rate:,.0f} trials/s)", False)]
        for segment in self.segments:
            if segment.problem:
                out.append((f"agent {self.name}: segment {segment.name}: {segment.problem}", True))
            elif segment.pending_bytes:
                out.append((f"agent {self.name}: segment {segment.name}: an unfinished last "
                            f"line ({segment.pending_bytes} bytes) waits for its newline", False))
        out += [(f"agent {self.name}: {note}", False) for note in self.notes]
        if self.error:
            out.append((f"agent {self.name}: failed: {self.error}", True))
        return out


@dataclass(frozen=True)
class PullOptions:
    chunk_bytes: int = DEFAULT_CHUNK_BYTES
    retries: int = 5
    backoff_s: float = 0.5
    quarantine: bool = False
    agent_deadline_s: float = 3600.0  # the whole pull of one agent (--agent-deadline)


def pull(warehouse: Warehouse, sources: Sequence[AgentSource], options: PullOptions = PullOptions(),
         *, reporter: Reporter | None = None,
         log: Callable[[str], None] | None = None) -> list[AgentReport]:
    """Pull every agent in turn; one agent's failure does not stop the others."""
    if options.chunk_bytes < 1024:
        raise UsageError("the chunk size must be at least 1 KB")
    reporter = reporter or SilentReporter()
    reports = []
    with scratch.chunk_dir(TEMP_PREFIX) as tmp:
        for source in sources:
            reports.append(_pull_agent(warehouse, source, options, tmp, reporter, log))
    return reports


def _pull_agent(warehouse: Warehouse, source: AgentSource, options: PullOptions, tmp: Path,
                reporter: Reporter, log: Callable[[str], None] | None) -> AgentReport:
    report = AgentReport(source.name, source.url)
    started = time.monotonic()
    client: AgentClient | None = None
    try:
        client = AgentClient(source, retries=options.retries, backoff_s=options.backoff_s,
                             on_retry=reporter.note, deadline_s=options.agent_deadline_s)
        listed = client.segments()
        cursors = read_cursors(warehouse, source.name)
        gone = sorted(set(cursors) - {name for name, _ in listed})
        for name in gone:
            report.notes.append(f"segment {name} (ingested up to byte "
                                f"{cursors[name].byte_offset:,}) is no longer on the agent")
        todo = sum(max(0, size - cursors.get(name, Cursor()).byte_offset) for name, size in listed)
        with reporter.task(f"pulling {source.name}", total=todo / 1e6, unit="MB") as task:
            for name, size in listed:
                segment = SegmentReport(name)
                report.segments.append(segment)
                try:
                    _pull_segment(warehouse, client, source.name, name, size,
                                  cursors.get(name, Cursor()), options, tmp, segment,
                                  lambda n: task.advance(n / 1e6), log)
                except (SegmentChangedError, TrialParseError, stage.ConflictError,
                        CursorMoved) as exc:
                    segment.problem = str(exc)
    except PerfwarehouseError as exc:
        report.error = str(exc)
    except Exception as exc:  # anything else an agent causes: one bad agent never stops the rest
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        report.error = f"{type(exc).__name__}: {first}"
    finally:
        if client:
            client.close()
        report.seconds = time.monotonic() - started
    return report


def _pull_segment(warehouse: Warehouse, client: AgentClient, agent: str, name: str, size: int,
                  cursor: Cursor, options: PullOptions, tmp: Path, report: SegmentReport,
                  advance: Callable[[int], None], log: Callable[[str], None] | None) -> None:
    """Ingest the whole lines of ``name`` between its cursor and ``size`` (the listed size)."""
    if size < cursor.byte_offset:
        raise SegmentChangedError(
            f"truncated: the agent has {size:,} bytes but {cursor.byte_offset:,} were already "
            "ingested; not ingested again (move the segment away on the agent)")
    if cursor.byte_offset and size == cursor.byte_offset:  # nothing new: still check it
        _check(client.fetch(name, cursor.last_line_offset, size), cursor, size)
        return
    # the next chunk is fetched and checked while this one lands
    chunks = _chunks(client, name, size, cursor, options.chunk_bytes, report)
    for before, after, whole in _prefetched(chunks):
        summary = _land_chunk(warehouse, agent, name, before, after, whole, options, tmp)
        report.chunks += 1
        report.bytes += len(whole)
        report.trials_added += summary.trials_added
        report.trials_skipped += summary.trials_skipped
        advance(len(whole))
        if log:
            log(f"{agent} {name}: bytes {before.byte_offset:,}-{after.byte_offset:,}: "
                f"{summary.outcome}, {summary.trials_added:,} trials added"
                + (f" (batch {summary.batch_id})" if summary.outcome == "landed" else ""))


def _chunks(client: AgentClient, name: str, size: int, cursor: Cursor, chunk_bytes: int,
            report: SegmentReport) -> Iterator[tuple[Cursor, Cursor, bytes]]:
    """Successive ``(cursor before, cursor after, whole lines)`` of a segment, up to ``size``.

    Each request starts at the last line already taken, which is checked against the
    cursor first. An unfinished last line is left for a later pull (``pending_bytes``).
    """
    window = chunk_bytes
    while cursor.byte_offset < size:
        end = min(size, cursor.byte_offset + window)
        start = cursor.last_line_offset if cursor.byte_offset else 0
        data = client.fetch(name, start, end)
        skip = cursor.byte_offset - start
        _check(data, cursor, end)
        last_newline = data.rfind(b"\n", skip)
        if last_newline < 0:
            if end == size:
                report.pending_bytes = len(data) - skip
                return
            if window >= MAX_LINE_BYTES:
                raise SegmentChangedError(f"a line at byte {cursor.byte_offset:,} is longer than "
                                          f"{MAX_LINE_BYTES >> 20} MB; not ingested")
            window *= 2
            continue
        window = chunk_bytes
        whole = data[skip:last_newline + 1]
        after = _advanced(cursor, whole)
        yield cursor, after, whole
        cursor = after


_DONE = object()


def _prefetched(items: Iterator[T]) -> Iterator[T]:
    """Iterate ``items`` one step ahead in a background thread (exceptions come in order)."""
    queue: Queue[object] = Queue(maxsize=1)
    stop = threading.Event()

    def offer(item: object) -> bool:
        """Put ``item`` unless the consumer has stopped; False if it has."""
        while not stop.is_set():
            try:
                queue.put(item, timeout=0.1)
                return True
            except Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not offer(item):
                    return
            offer(_DONE)
        except BaseException as exc:  # handed to the consumer, raised there
            offer(exc)

    thread = threading.Thread(target=produce, daemon=True, name="pull-prefetch")
    thread.start()
    try:
        while (item := queue.get()) is not _DONE:
            if isinstance(item, BaseException):
                raise item
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        thread.join()


def _check(data: bytes, cursor: Cursor, end: int) -> None:
    """``data`` (from the cursor's last line to ``end``) still continues what was ingested."""
    start = cursor.last_line_offset if cursor.byte_offset else 0
    if len(data) < end - start:
        raise SegmentChangedError(
            f"truncated: it is shorter than {end:,} bytes now (the cursor is at "
            f"{cursor.byte_offset:,}); not ingested again (move it away on the agent)")
    if cursor.byte_offset and hashlib.sha256(
            data[:cursor.byte_offset - start]).hexdigest() != cursor.last_line_sha256:
        raise SegmentChangedError(
            f"changed: the last line ingested (bytes {start:,}-{cursor.byte_offset - 1:,}) is "
            "different on the agent now, so the segment was rewritten; not ingested again "
            "(move it away on the agent, or give the new data another segment name)")


def _advanced(cursor: Cursor, whole: bytes) -> Cursor:
    """The cursor after ingesting ``whole`` (whole lines starting at the cursor)."""
    last_start = whole.rfind(b"\n", 0, len(whole) - 1) + 1
    return Cursor(
        byte_offset=cursor.byte_offset + len(whole),
        line_count=cursor.line_count + whole.count(b"\n"),
        last_line_offset=cursor.byte_offset + last_start,
        last_line_sha256=hashlib.sha256(whole[last_start:]).hexdigest(),
    )


def _land_chunk(warehouse: Warehouse, agent: str, segment: str, before: Cursor, after: Cursor,
                whole: bytes, options: PullOptions, tmp: Path) -> stage.IngestSummary:
    """Parse ``whole`` with the JSON Lines reader and land it with the cursor move."""
    source = f"{agent}:{segment}"  # records name the agent and segment; lines are the segment's
    batch = stage.Batch(f"{agent}:{segment}@{before.byte_offset}-{after.byte_offset}", FORMAT)
    try:
        batch.hash_bytes(f"{agent}/{segment}@{before.byte_offset}", whole)
        path = tmp / "chunk.jsonl"
        path.write_bytes(whole)
        n = jsonl.read_fast(batch.con, path, source)
        if n is None:
            table, problems = jsonl.parse(whole, source)
            batch.add_arrow(table)
            batch.add_problems(_shifted(p, before.line_count) for p in problems)
        elif n != whole.count(b"\n"):
            jsonl.fix_line_numbers(batch.con, path, source)
        if before.line_count:  # line numbers of the segment, not of the chunk
            batch.con.execute("UPDATE raw_trials SET line = line + ?", [before.line_count])
        return stage.land(warehouse, batch, quarantine=options.quarantine,
                          on_commit=_cursor_hook(agent, segment, before, after, batch))
    finally:
        batch.close()


def _shifted(problem: TrialParseError, lines: int) -> TrialParseError:
    shifted = TrialParseError(problem.source, problem.line + lines if problem.line else 0,
                              problem.rule, problem.detail)
    if hasattr(problem, "raw"):
        shifted.raw = problem.raw  # type: ignore[attr-defined]
    return shifted
