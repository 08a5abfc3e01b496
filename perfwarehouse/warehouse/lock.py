"""The single-writer lock of a warehouse.

DuckDB allows one writing process per database file. perfwarehouse serialises
its own writers with an advisory ``flock`` on ``<warehouse>/.write.lock``, whose
content names the holder (pid, command, since when), so a second writer can say
who it waits for. The wait is bounded; on timeout it raises
:class:`~perfwarehouse.errors.WarehouseBusy` with the holder in the message.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TypeVar

from perfwarehouse.errors import WarehouseBusy

T = TypeVar("T")


def describe_holder(lock_path: Path) -> str:
    """Who holds the lock, from the lock file (best effort)."""
    try:
        info = json.loads(lock_path.read_text() or "{}")
    except (OSError, ValueError):
        return "another process"
    if not info:
        return "another process"
    return f"pid {info.get('pid')} ({info.get('command', '?')}, since {info.get('since', '?')})"


@contextmanager
def exclusive_lock(
    lock_path: Path, purpose: str, timeout_s: float, busy: Callable[[str], Exception],
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold an advisory ``flock`` on ``lock_path`` for the duration of the block.

    The file names the holder (pid, ``purpose``, since when) while it is held.
    A held lock is waited for at most ``timeout_s`` seconds (0: not at all);
    then ``busy(holder)`` is raised, ``holder`` describing the other process.
    """
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout_s
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = describe_holder(lock_path)
                if time.monotonic() >= deadline:
                    raise busy(holder) from None
                if on_wait and not told:
                    on_wait(f"waiting for {holder} to finish with {lock_path.parent} ...")
                    told = True
                time.sleep(0.2)
        info = {
            "pid": os.getpid(),
            "command": purpose or " ".join(sys.argv[:3]),
            "since": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write_lock(
    root: Path, purpose: str, timeout_s: float, on_wait: Callable[[str], None] | None = None
) -> AbstractContextManager[None]:
    """Hold the warehouse's write lock (``<root>/.write.lock``) for the duration of the block."""
    def busy(holder: str) -> Exception:
        return WarehouseBusy(f"the warehouse {root} is being written by {holder}; "
                             f"gave up after {timeout_s:.0f} s (try again when it has finished)")

    return exclusive_lock(root / ".write.lock", purpose, timeout_s, busy, on_wait)


def retry_while_locked(
    action: Callable[[], T], what: str, timeout_s: float,
    is_lock_error: Callable[[BaseException], bool],
    on_wait: Callable[[str], None] | None = None,
) -> T:
    """Run ``action`` until it stops failing with a lock conflict, for at most ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    told = False
    while True:
        try:
            return action()
        except Exception as exc:  # narrowed by is_lock_error; anything else propagates
            if not is_lock_error(exc):
                raise
            if time.monotonic() >= deadline:
                raise WarehouseBusy(
                    f"{what}: {_holder_from_duckdb(str(exc))} holds the warehouse; gave up "
                    f"after {timeout_s:.0f} s (try again when it has finished)"
                ) from None
            if on_wait and not told:
                on_wait(f"{what}: waiting for {_holder_from_duckdb(str(exc))} ...")
                told = True
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def _holder_from_duckdb(message: str) -> str:
    """'pid N (program)' from DuckDB's "Conflicting lock is held in PROGRAM (PID N)"."""
    marker = "Conflicting lock is held in "
    if marker in message:
        rest = message.split(marker, 1)[1]
        program, _, pid = rest.partition(" (PID ")
        return f"pid {pid.split(')')[0]} ({Path(program).name})"
    return "another process"
