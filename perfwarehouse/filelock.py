"""An advisory lock on a file, held for a ``with`` block, that says who holds it.

A process takes ``flock`` on the lock file and writes its pid, purpose and start time
into it, so a second process can say who it waits for; the wait is bounded and ends in
an exception the caller chooses. Used by the warehouse's single-writer lock
(:func:`perfwarehouse.warehouse.lock.write_lock`) and by the agent's one-run-per-spool
lock (:func:`perfwarehouse.agent.spool.spool_lock`); it knows neither.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


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
