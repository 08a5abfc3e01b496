"""A test hook for crash-consistency tests: die at a named point of a write.

With ``PERFWAREHOUSE_KILL_AT=<point>`` in the environment, the process kills
itself with SIGKILL when it reaches ``checkpoint(<point>)`` - the same death as
``kill -9`` from outside, but at an exact step, so tests can prove that every
step of an ingest is atomic. Without the variable this is a dictionary lookup.
"""

from __future__ import annotations

import os
import signal

ENV = "PERFWAREHOUSE_KILL_AT"


def checkpoint(point: str) -> None:
    if os.environ.get(ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)
