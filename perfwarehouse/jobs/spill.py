"""A job's result tables on disk while it runs, so that its memory is bounded by one piece.

Each piece's output tables are written, as the piece completes, to an Arrow IPC file of
the run's spill directory (``<warehouse>/_spill/job-<pid>-<token>/<output>/<piece>.arrow``,
uncompressed, so that reading one back is a memory map and not a copy).
:class:`ResultTables` is the run's tables: a mapping of each output to the concatenation of
its pieces' tables in the plan's order (the same table an in-memory concatenation gives:
``pa.concat_tables`` with permissive promotion), backed by the memory-mapped files, so that
``summarize`` touches only the columns it reads; :meth:`ResultTables.parts` gives them
piece by piece, which is how the catalog writes them (one piece in memory at a time).

The directory is removed when the :class:`ResultTables` is garbage-collected (or at the
process's exit); pickled to another process of this machine (``analyze all``'s workers send
their results to the parent), the receiver adopts it (renames it to its own process id).
A spill left by a killed process (its id no longer running) is removed by the next job
that spills into the same warehouse; it never holds anything the catalog refers to.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

#: The spill area, at the warehouse's root (never under ``_staging``, which recovery
#: removes while a job may still be running).
SPILL = "_spill"
PREFIX = "job-"


def concat(parts: list[pa.Table]) -> pa.Table:
    """The tables one after another (columns unified: a missing one is null)."""
    if not parts:
        return pa.table({})
    return pa.concat_tables(parts, promote_options="permissive")


def _pid_of(name: str) -> int | None:
    """The process id in a spill directory's name ``job-<pid>-<token>`` (None if none)."""
    if not name.startswith(PREFIX):
        return None
    digits = name[len(PREFIX):].split("-", 1)[0]
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) < 10 else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def remove_stale(area: Path) -> None:
    """Remove the spill directories in ``area`` of processes no longer running (ours only:
    owned by this user)."""
    try:
        entries = list(os.scandir(area))
    except OSError:
        return
    for entry in entries:
        pid = _pid_of(entry.name)
        try:
            mine = entry.is_dir(follow_symlinks=False) and \
                entry.stat(follow_symlinks=False).st_uid == os.getuid()
        except OSError:
            continue
        if pid is not None and mine and pid != os.getpid() and not _alive(pid):
            shutil.rmtree(entry.path, ignore_errors=True)


def make_spill_dir(root: str | Path) -> Path:
    """A new private spill directory under the warehouse ``root`` (or the system's temporary
    directory when the warehouse is not writable)."""
    area = Path(root) / SPILL
    try:
        area.mkdir(exist_ok=True)
        remove_stale(area)
        return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=area))
    except OSError:
        return Path(tempfile.mkdtemp(prefix=f"perfwarehouse-{PREFIX}{os.getpid()}-"))


def _write(path: Path, table: pa.Table) -> None:
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


def _read(path: Path, mapped: bool) -> pa.Table:
    source = pa.memory_map(str(path)) if mapped else pa.OSFile(str(path))
    with source, pa.ipc.open_file(source) as reader:
        return reader.read_all()


class ResultTables(Mapping[str, pa.Table]):
    """The output tables of one job run, one Arrow IPC file per piece and output (module
    docstring). ``add`` a piece's tables in the plan's order; read a whole output
    (memory-mapped) by its name, or piece by piece with :meth:`parts`."""

    def __init__(self, directory: Path, outputs: Sequence[str],
                 parts: Mapping[str, Sequence[int]] | None = None,
                 rows: Mapping[str, int] | None = None) -> None:
        self.directory = directory
        self.outputs = tuple(outputs)
        self._parts: dict[str, list[int]] = {n: list((parts or {}).get(n, ())) for n in outputs}
        self._rows: dict[str, int] = {n: int((rows or {}).get(n, 0)) for n in outputs}
        self._count = sum(len(p) for p in self._parts.values())
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(directory), True)

    @classmethod
    def create(cls, root: str | Path, outputs: Sequence[str]) -> ResultTables:
        directory = make_spill_dir(root)
        for name in outputs:
            (directory / name).mkdir()
        return cls(directory, outputs)

    def add(self, tables: Mapping[str, pa.Table]) -> None:
        """Write one piece's tables (each output it has) after the ones added before."""
        for name, table in tables.items():
            _write(self._path(name, self._count), table)
            self._parts[name].append(self._count)
            self._rows[name] += table.num_rows
            self._count += 1

    def _path(self, name: str, part: int) -> Path:
        return self.directory / name / f"{part:08d}.arrow"

    def rows(self, name: str) -> int:
        """The number of rows of output ``name`` (no file read)."""
        return self._rows[name]

    def parts(self, name: str) -> Iterator[pa.Table]:
        """Output ``name``'s tables piece by piece, in the plan's order (each read into
        memory and released when the caller drops it)."""
        for part in self._parts[name]:
            yield _read(self._path(name, part), mapped=False)

    def __getitem__(self, name: str) -> pa.Table:
        if name not in self._parts:
            raise KeyError(name)
        return concat([_read(self._path(name, p), mapped=True) for p in self._parts[name]])

    def __iter__(self) -> Iterator[str]:
        return iter(self.outputs)

    def __len__(self) -> int:
        return len(self.outputs)

    def close(self) -> None:
        """Remove the spill directory now (tables already read stay readable: their files
        are mapped)."""
        self._cleanup()

    def __reduce__(self) -> tuple[Any, ...]:
        # handed over to the process that unpickles it (same machine): this one no
        # longer removes the directory, the receiver does
        self._cleanup.detach()
        return (_adopt, (str(self.directory), self.outputs, self._parts, self._rows))


def _adopt(directory: str, outputs: Sequence[str], parts: Mapping[str, Sequence[int]],
           rows: Mapping[str, int]) -> ResultTables:
    """A :class:`ResultTables` sent by another process: its directory renamed to this
    process's id (so that no job here takes it for a dead process's leftover)."""
    old = new = Path(directory)
    if _pid_of(old.name) is not None:
        new = old.with_name(f"{PREFIX}{os.getpid()}-{old.name.split('-', 2)[-1]}")
        try:
            os.replace(old, new)
        except OSError:
            new = old
    return ResultTables(new, outputs, parts, rows)
