"""What makes ``perfwarehouse sql`` read-only in fact and bounded: the connection it runs a
user's query on reads only the warehouse's listed files and the files the user names
(``--read``), installs and loads no extension, holds a memory limit and is interrupted
past a time limit; its ``--out`` never lands inside the warehouse or on a file the
catalog lists.

DuckDB's ``enable_external_access = false`` refuses every file and URL not in
``allowed_paths`` (``read_blob('/dev/urandom')``, ``read_csv('/etc/passwd')``, ``glob``,
``https://``), the extension directory included; ``lock_configuration`` then keeps any
statement from turning it back on (``sql`` runs queries only, too:
:func:`perfwarehouse.warehouse.export.require_query`).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb

from perfwarehouse.errors import UsageError, WarehouseError
from perfwarehouse.output import file_kind
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.layout import CATALOG, EMPTY_FILE

#: a file named with ``--read`` may be this large at most (bytes)
READ_LIMIT_BYTES = 2 << 30


@dataclass(frozen=True)
class Limits:
    """The bounds of one ``sql`` connection."""

    memory: str = "4GB"  # DuckDB's memory_limit (operators spill or fail past it)
    timeout_s: float = 600.0  # the query is interrupted past it; 0: no limit
    reads: tuple[Path, ...] = ()  # files the user names (--read)


def named_reads(paths: Sequence[Path], limit: int = READ_LIMIT_BYTES) -> list[str]:
    """The path strings a query may read for ``paths`` (as given and absolute); refuses
    (one line) what is not a regular file (a device, a FIFO, a directory) or is over
    ``limit`` bytes."""
    out = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise UsageError(f"sql --read {path}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"sql --read {path}: {file_kind(st.st_mode)}; only regular files "
                             "can be read")
        if st.st_size > limit:
            raise UsageError(f"sql --read {path}: {st.st_size:,} bytes, over the limit of "
                             f"{limit:,} bytes for a file read by sql")
        out += [str(path), os.path.abspath(path), os.path.realpath(path)]
    return sorted(set(out))


def lock_down(con: duckdb.DuckDBPyConnection, root: Path, listed: Sequence[str],
              limits: Limits) -> None:
    """Restrict ``con`` (the catalog's read-only connection, views created) to reading
    the listed data files (``listed``: relative to ``root``) and ``limits.reads``, without
    extensions, within ``limits.memory``; then lock its configuration."""
    allowed = [str(root / rel) for rel in listed] + [str(root / EMPTY_FILE)]
    allowed += named_reads(limits.reads)
    literal = "[" + ", ".join(sqlfiles.quote_literal(p) for p in allowed) + "]"
    try:
        con.execute(f"SET memory_limit = {sqlfiles.quote_literal(limits.memory)}")
    except duckdb.Error as exc:
        raise UsageError(f"sql --memory-limit {limits.memory}: "
                         f"{str(exc).strip().splitlines()[0]}") from None
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute(f"SET allowed_paths = {literal}")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")  # no SET, even one that slipped by


@contextmanager
def time_limit(con: duckdb.DuckDBPyConnection, seconds: float) -> Iterator[list[bool]]:
    """Interrupt ``con`` once ``seconds`` have passed (0: never); yields a list whose
    one element tells, afterwards, whether it was interrupted."""
    fired = [False]

    def stop() -> None:
        fired[0] = True
        con.interrupt()

    timer = threading.Timer(seconds, stop) if seconds > 0 else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        yield fired
    finally:
        if timer is not None:
            timer.cancel()


def refuse_output(root: Path, listed: Sequence[str], out: Path, command: str = "sql") -> None:
    """Refuse (one line) an ``--out`` that would write into the warehouse: inside its
    directory (symbolic links followed) or onto a file the catalog lists or the catalog
    itself (by path, or by inode: a hard link elsewhere)."""
    target = os.path.realpath(out)
    homes = {os.path.realpath(root)} | {os.path.realpath(root / d) for d in
                                        ("measurements", "_staging", "_schema")}
    inside = any(target == h or target.startswith(h.rstrip(os.sep) + os.sep) for h in homes)
    same = False
    try:
        st = os.stat(target)
    except OSError:
        st = None
    if st is not None and not inside:
        owned = [root / rel for rel in listed] + [root / CATALOG, root / (CATALOG + ".wal")]
        for path in owned:
            try:
                other = os.stat(path)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                same = True
                break
    if inside or same:
        raise WarehouseError(
            f"{command} --out {out}: refused, it would write "
            f"{'inside' if inside else 'onto a file of'} the warehouse {root} ({command} never "
            "changes the warehouse); give a path outside it")


__all__ = ["Limits", "READ_LIMIT_BYTES", "lock_down", "named_reads", "refuse_output",
           "time_limit"]
