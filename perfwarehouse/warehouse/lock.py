"""The single-writer lock of a warehouse.

DuckDB allows one writing process per database file. perfwarehouse serialises
its own writers with an advisory ``flock`` on ``<warehouse>/.write.lock``, whose
content names the holder (pid, command, since when), so a second writer can say
who it waits for. The wait is bounded; on timeout it raises
:class:`~perfwarehouse.errors.WarehouseBusy` with the holder in the message.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

from perfwarehouse.errors import WarehouseBusy
from perfwarehouse.filelock import exclusive_lock

T = TypeVar("T")


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
