"""What a data file held when it landed, and the check every reader makes before it reads.

At landing (an ingest batch, a compaction) each Parquet file's record in ``data_files``
gets, besides its size and row count:

- ``sha256``: the SHA-256 of its bytes (hex), hashed once from the file just written
  (about 1.3 GB/s here: 10 ms for a 13 MB file, against the seconds its batch takes);
- ``min_value``, ``max_value``: the bounds of its ``value`` column, from the footer's
  statistics (no values are read);
- ``mtime_ns``: its modification time in nanoseconds (publishing renames the file, which
  keeps it).

Every reader, before a ``measurements`` view over some files is built
(:func:`damaged_for_reading`), takes one ``stat`` per file: missing, not a regular file
(a FIFO, a device, a directory: never opened, so never a hang), of another size: the
view reads the other files, and a query that would read this one fails with one line
naming it (:meth:`perfwarehouse.warehouse.store.Warehouse.measurements_sql`), while
queries that do not read it (another campaign, the catalog's own tables) answer. A file of the
recorded size whose modification time is not the recorded one (rewritten in place,
replaced by another Parquet file, or a warehouse copied without keeping times) is hashed
and compared with its checksum; a file found intact is remembered for the process (by
inode, size and time), so the hash is paid once. A file changed without a change of its
time (the disk itself: bit rot) is found by ``perfwarehouse check`` (which hashes every
file), and by the query that fails on it (:func:`perfwarehouse.warehouse.damage.diagnose`).

Files recorded before checksums existed (``sha256`` NULL) are read unverified until
``perfwarehouse check`` reads them in full and records their checksums.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from perfwarehouse.output import file_kind

#: the columns these records add to ``data_files`` (ALTERed into older catalogs)
CONTENT_COLUMNS = (("sha256", "VARCHAR"), ("min_value", "DOUBLE"), ("max_value", "DOUBLE"),
                   ("mtime_ns", "BIGINT"))


class Listed(Protocol):
    """What a reader knows of a data file (a :class:`~perfwarehouse.warehouse.store.DataFile`)."""

    @property
    def path(self) -> str: ...
    @property
    def bytes(self) -> int | None: ...
    @property
    def sha256(self) -> str | None: ...
    @property
    def mtime_ns(self) -> int | None: ...


def sha256_of(path: Path) -> str:
    """The SHA-256 of the file's bytes (hex); only regular files are opened (a FIFO
    would block the reader)."""
    with open(path, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError(f"{path}: not a regular file")
        return hashlib.file_digest(f, "sha256").hexdigest()


def value_bounds(metadata: Any) -> tuple[float | None, float | None]:
    """(min, max) of the ``value`` column from a Parquet footer's statistics (a
    ``pyarrow.parquet.FileMetaData``); (None, None) when a row group has none."""
    names = metadata.schema.names
    if "value" not in names or metadata.num_row_groups == 0:
        return None, None
    index = names.index("value")
    lows, highs = [], []
    for g in range(metadata.num_row_groups):
        stats = metadata.row_group(g).column(index).statistics
        if stats is None or not stats.has_min_max:
            if metadata.row_group(g).num_rows and (stats is None or stats.null_count
                                                    != metadata.row_group(g).num_rows):
                return None, None
            continue
        lows.append(float(stats.min))
        highs.append(float(stats.max))
    return (min(lows), max(highs)) if lows else (None, None)


def content_record(path: Path) -> dict[str, Any]:
    """The ``data_files`` columns describing the file just written at ``path``:
    ``row_count``, ``bytes``, ``sha256``, ``min_value``, ``max_value``, ``mtime_ns``."""
    import pyarrow.parquet as pq

    digest = sha256_of(path)
    st = os.stat(path)
    metadata = pq.read_metadata(path)
    low, high = value_bounds(metadata)
    return {"row_count": metadata.num_rows, "bytes": st.st_size, "sha256": digest,
            "min_value": low, "max_value": high, "mtime_ns": st.st_mtime_ns}


def damaged_line(rel: str, what: str) -> str:
    """The one line a reader says about a damaged data file."""
    return (f"data file {rel} is {what}; `perfwarehouse check` lists every damaged file and "
            "how to recover (`perfwarehouse check --forget-damaged` without a backup)")



_verified: dict[tuple[str, int, int, int], str] = {}  # (path, inode, size, mtime) -> sha256
_verified_lock = threading.Lock()


def stat_problem(path: Path, recorded_bytes: int | None) -> tuple[str | None, os.stat_result | None]:
    """What a ``stat`` says is wrong with a listed file (missing, not a regular file, of
    another size), or None, with the stat result."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "missing", None
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})", None
    if not stat.S_ISREG(st.st_mode):
        return f"{file_kind(st.st_mode)}, not a Parquet file", st
    if recorded_bytes is not None and st.st_size != recorded_bytes:
        return f"size {st.st_size:,} bytes, the catalog says {recorded_bytes:,}", st
    return None, st


def reading_problem(root: Path, f: Listed) -> str | None:
    """What keeps a reader from reading the listed file ``f`` - ``missing``, or
    ``damaged (...)``: not a regular file, of another size than recorded, or (when its
    modification time is not the recorded one) of other content than its checksum - or
    None. One ``stat`` when nothing changed; see the module docstring."""
    path = root / f.path
    problem, st = stat_problem(path, f.bytes)
    if problem is not None:
        return problem if problem == "missing" else f"damaged ({problem})"
    if f.sha256 is None or st is None or st.st_mtime_ns == f.mtime_ns:
        return None
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _verified_lock:
        if _verified.get(key) == f.sha256:
            return None
    try:
        digest = sha256_of(path)
    except OSError as exc:
        return f"damaged (unreadable: {exc})"
    if digest != f.sha256:
        return ("damaged (changed since it landed: its content does not match the checksum "
                "the catalog recorded)")
    with _verified_lock:
        _verified[key] = digest
    return None


def damaged_for_reading(root: Path, files: Iterable[Listed]) -> dict[str, str]:
    """{path: the one line a reader says} for each file of ``files`` a reader must not
    read (:func:`reading_problem`)."""
    out = {}
    for f in files:
        problem = reading_problem(root, f)
        if problem is not None:
            out[f.path] = damaged_line(f.path, problem)
    return out


@dataclass(frozen=True)
class Adopted:
    """A checksum (and fingerprint) ``check`` records for a listed file."""

    path: str
    bytes: int
    sha256: str
    min_value: float | None
    max_value: float | None
    mtime_ns: int
