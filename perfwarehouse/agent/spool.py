"""The spool: a directory of append-only JSON Lines segments (12).

Every line of a segment is one native trial record. Anything that
appends whole lines to a ``*.jsonl`` file in the spool is a valid producer; the
agent's own segments are named ``CAMPAIGN-NODE-SESSION-SEQ.jsonl`` (``SEQ``
counts from 0001, a new segment per invocation and whenever one exceeds its
size limit), which is how ``agent run --resume`` finds them again.

The agent writes each record with a single ``write`` of the whole line on a file
opened with ``O_APPEND`` and ``fsync``\\ s it before the next trial starts, so a
segment only ever grows, by whole lines, unless the machine loses power in the
middle of a write (a *torn tail*, repaired by ``--resume``: see
:func:`repair_torn_tail`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from perfwarehouse.errors import UsageError
from perfwarehouse.filelock import exclusive_lock
from perfwarehouse.protocol import SEGMENT_NAME, is_segment_name  # noqa: F401

# What the server lists and serves: :data:`perfwarehouse.protocol.SEGMENT_NAME`. The
# agent's own names are a subset.
_OWN_SUFFIX = re.compile(r"([0-9a-f]{8})-(\d{4,})\.jsonl")
LOCK_NAME = ".agent.lock"


def slug(text: str, limit: int = 60) -> str:
    """A file-name-safe version of ``text`` (letters, digits, ``.``, ``_``)."""
    cleaned = re.sub(r"[^A-Za-z0-9._]+", "_", text).strip("._")[:limit]
    return cleaned or "x"


@dataclass(frozen=True)
class OwnSegment:
    """A segment written by the agent for one campaign and node."""

    path: Path
    session: str
    seq: int


def segment_prefix(campaign: str, node: str) -> str:
    return f"{slug(campaign)}-{slug(node)}-"


def own_segments(spool: Path, campaign: str, node: str) -> list[OwnSegment]:
    """The agent's segments for ``campaign`` on ``node``, in (session, sequence) order."""
    prefix = segment_prefix(campaign, node)
    found = []
    for path in spool.glob(f"{glob_escape(prefix)}*.jsonl"):
        match = _OWN_SUFFIX.fullmatch(path.name[len(prefix):])
        if match and path.is_file() and not path.is_symlink():
            found.append(OwnSegment(path, match.group(1), int(match.group(2))))
    return sorted(found, key=lambda s: (s.session, s.seq))


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def segment_name(campaign: str, node: str, session: str, seq: int) -> str:
    return f"{segment_prefix(campaign, node)}{session}-{seq:04d}.jsonl"


def repair_torn_tail(path: Path) -> int:
    """Cut an unterminated last line off ``path``; returns the number of bytes removed.

    Only a crash in the middle of a ``write`` (power loss, a full disk) leaves
    one. No reader has consumed it: a puller takes whole lines only, so its
    cursor stays valid.
    """
    size = path.stat().st_size
    if size == 0:
        return 0
    with open(path, "rb+") as f:
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return 0
        keep = 0
        block = 1 << 16
        end = size
        while end > 0:  # find the last newline, reading backwards
            start = max(0, end - block)
            f.seek(start)
            chunk = f.read(end - start)
            at = chunk.rfind(b"\n")
            if at >= 0:
                keep = start + at + 1
                break
            end = start
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return size - keep


@dataclass(frozen=True)
class Resumable:
    """A node's own segments of a campaign, their one session and the next segment number."""

    segments: list[OwnSegment]
    session: str | None = None
    next_seq: int = 1


def resumable(spool: Path, campaign: str, node: str, resume: bool) -> Resumable:
    """What an agent on ``node`` continues of ``campaign`` (nothing for a new campaign): a
    UsageError when the spool holds it and ``resume`` is off, or holds two sessions of it."""
    segments = own_segments(spool, campaign, node)
    if not segments:
        return Resumable([])
    if not resume:
        raise UsageError(
            f"the spool {spool} already holds campaign {campaign!r} from node "
            f"{node} ({segments[-1].path.name}); continue it with --resume, or choose another "
            "--campaign or --spool")
    sessions = sorted({s.session for s in segments})
    if len(sessions) > 1:
        raise UsageError(f"the spool {spool} holds {len(sessions)} sessions of campaign "
                         f"{campaign!r} on {node} ({', '.join(sessions)}); cannot tell which "
                         "to resume (move the others away)")
    return Resumable(segments, sessions[0], max(s.seq for s in segments) + 1)


def repaired_records(segments: list[OwnSegment],
                     warn: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    """The records of ``segments`` in order, each segment's torn tail cut off first (with
    a warning)."""
    for segment in segments:
        removed = repair_torn_tail(segment.path)
        if removed:
            warn(f"{segment.path.name}: removed an unterminated last line ({removed} bytes) "
                 "left by a crash")
        yield from read_records(segment.path)


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a segment (whole lines only; blank lines skipped)."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            if not raw.endswith(b"\n"):
                return  # a torn tail: not a record yet
            if not raw.strip():
                continue
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                raise UsageError(f"{path}:{lineno}: not a JSON object; the spool segment is "
                                 "damaged (move it away to start afresh)") from None
            if isinstance(record, dict):
                yield record


class SegmentWriter:
    """Appends records to the agent's segments: one ``write`` per line, ``fsync`` after each.

    A new segment is started when the current one reaches ``max_bytes``.
    """

    def __init__(self, spool: Path, campaign: str, node: str, session: str, first_seq: int,
                 max_bytes: int) -> None:
        self.spool = spool
        self.campaign, self.node, self.session = campaign, node, session
        self.seq = first_seq
        self.max_bytes = max_bytes
        self._fd: int | None = None
        self._size = 0

    @property
    def path(self) -> Path:
        return self.spool / segment_name(self.campaign, self.node, self.session, self.seq)

    def append(self, record: dict[str, Any]) -> None:
        self.append_all((record,))

    def append_all(self, records: Sequence[dict[str, Any]]) -> None:
        """Append ``records`` (e.g. all of one trial) with a single ``write`` and one ``fsync``."""
        data = b"".join(orjson.dumps(r) + b"\n" for r in records)
        if self._fd is not None and self._size + len(data) > self.max_bytes and self._size:
            self.close()
            self.seq += 1
        if self._fd is None:
            self._open()
        assert self._fd is not None
        view = memoryview(data)
        while view:  # a regular file takes the whole write at once; loop for a short write
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)
        self._size += len(data)

    def _open(self) -> None:
        path = self.path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._size = os.fstat(self._fd).st_size
        _fsync_directory(self.spool)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def spool_lock(spool: Path) -> AbstractContextManager[None]:
    """Hold the spool's agent lock: one ``agent run`` per spool at a time (no waiting)."""
    spool.mkdir(parents=True, exist_ok=True)

    def busy(holder: str) -> Exception:
        return UsageError(f"{holder} is already running an agent on {spool}; wait for it or "
                          "use another --spool")

    return exclusive_lock(spool / LOCK_NAME, "perfwarehouse agent run", 0, busy)
