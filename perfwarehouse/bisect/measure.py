"""The process edge of ``perfwarehouse bisect``: the setup of a revision and its trials,
run by ``agent run``'s runner (:func:`perfwarehouse.agent.trials.run_command`: a shell
command in its own process group, a timeout, Ctrl-C stops it).

A trial's value is, by ``metric``:

* ``wall_time`` (default): seconds from start to exit of the command (its shell
  included: about 1 ms of a ``sh -c``);
* ``cpu_time``: user + system CPU seconds of the command and every process it waited for
  (``getrusage(RUSAGE_CHILDREN)`` before and after; this process runs one command at a
  time), which a busy machine inflates much less than the wall clock;
* any other name: the last number the command prints on stdout, as ``agent run`` reads
  a test's result.
"""

from __future__ import annotations

import os
import resource
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from perfwarehouse.agent.schedule import last_number
from perfwarehouse.agent.trials import TAIL_CHARS, run_command
from perfwarehouse.bisect.parameters import CPU_TIME, WALL_TIME


@dataclass(frozen=True)
class Trial:
    """One run of the command: ``status`` ok | failed | timeout | no-result | interrupted,
    its value (None unless ok), when it started (RFC 3339 UTC) and how long it took."""

    status: str
    value: float | None
    started_at: str
    duration_s: float
    detail: str = ""


def _cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def in_directory(directory: Path, command: str) -> str:
    """``command`` run from ``directory`` (one shell line)."""
    return f"cd {shlex.quote(str(directory))} && {command}"


def run_trial(directory: Path, command: str, metric: str, timeout_s: float | None,
              stop_requests: Callable[[], int], env: Mapping[str, str]) -> Trial:
    """Run ``command`` once in ``directory`` and read its value."""
    started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    cpu = _cpu_seconds()
    done = run_command(in_directory(directory, command), timeout_s, stop_requests,
                       {**os.environ, **env})
    cpu = _cpu_seconds() - cpu
    if done.stopped_for is not None:
        return Trial(done.stopped_for, None, started, done.seconds,
                     "stopped by a signal" if done.stopped_for == "interrupted"
                     else f"still running after {timeout_s:g} s")
    if done.returncode != 0:
        return Trial("failed", None, started, done.seconds, _failure(done.returncode, done.err))
    if metric == WALL_TIME:
        value: float | None = done.seconds
    elif metric == CPU_TIME:
        value = cpu
    else:
        value = last_number(done.out)
        if value is None:
            return Trial("no-result", None, started, done.seconds,
                         f"printed no number on stdout for the metric {metric!r}")
    return Trial("ok", value, started, done.seconds)


def run_setup(directory: Path, setup: str, timeout_s: float | None,
              stop_requests: Callable[[], int], env: Mapping[str, str]) -> str | None:
    """Run the build step in ``directory``; None when it succeeded, else why it failed."""
    done = run_command(in_directory(directory, setup), timeout_s, stop_requests,
                       {**os.environ, **env})
    if done.stopped_for == "interrupted":
        return "stopped by a signal"
    if done.stopped_for == "timeout":
        return f"still running after {timeout_s:g} s"
    if done.returncode != 0:
        return _failure(done.returncode, done.err)
    return None


def _failure(returncode: int, err: bytes) -> str:
    tail = err.decode("utf-8", "replace").strip()[-TAIL_CHARS:]
    how = f"killed by signal {-returncode}" if returncode < 0 else f"exit code {returncode}"
    return how + (f": {' '.join(tail.split())}" if tail else "")
