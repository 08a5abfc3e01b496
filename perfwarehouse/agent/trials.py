"""The trial skeleton both agent runners share: ``agent run`` (:mod:`.runner`, the
OrderSage schedule) and ``agent peak-rate`` / ``agent surface`` (:mod:`.workbench`, the
workbench controller) differ only in which command runs next and what a trial's
records say. What they share lives here:

* :class:`TrialSession`: one invocation on a spool. It holds the spool's lock (one agent
  per spool), finds the node's segments of the campaign (``--resume``, else a new
  session id), gives back the records already there (torn tails repaired), appends new
  ones through one :class:`~perfwarehouse.agent.spool.SegmentWriter`, and counts
  SIGINT/SIGTERM as stop requests while the trials run (a flag only: no exception in
  the middle of a write; the polling loops act on it).
* :meth:`TrialSession.execute` / :func:`run_command`: one shell command in its own
  process group with a timeout, and how it ended (``ok``, ``failed``, ``timeout``,
  ``interrupted``) with a one-line reason.
* the node's identity: :func:`default_node`, :func:`default_hardware_type`,
  :func:`node_environment` (hostname, CPU, memory, kernel, OS).
"""

from __future__ import annotations

import os
import platform
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from perfwarehouse import __version__
from perfwarehouse.agent import spool
from perfwarehouse.ingest.hardware import load_rules

KILL_GRACE_S = 5.0
POLL_S = 0.1
TAIL_CHARS = 300


# ------------------------------------------------------------------ the node
def default_node() -> str:
    return socket.gethostname()


def default_hardware_type(node: str, given: str | None = None) -> str:
    """``given``, else the prefix map / node-id rule of :mod:`perfwarehouse.ingest.hardware`
    applied to the first label of the node name (``c220g2-010627.wisc…`` → ``c220g2``)."""
    return load_rules(None, given).resolve(node.split(".")[0] or node)[0]


def node_environment() -> dict[str, Any]:
    """Hostname, CPU model, memory, kernel and OS of this machine (nodes)."""
    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory": _memory(),
        "kernel": platform.release(),
        "os": _os_name(),
        "machine": platform.machine(),
    }
    return env


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Hardware", "Processor", "cpu model") and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or None


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def _memory() -> str | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024**2:.1f}GiB"
    except (OSError, ValueError, IndexError):
        pass
    return None


# ------------------------------------------------------------- the session
@dataclass(frozen=True)
class Executed:
    """How one command of a trial ended: ``status`` ok | failed | timeout | interrupted,
    its stdout, its wall time (s) and, unless ok, why (one line)."""

    status: str
    stdout: bytes
    seconds: float
    detail: str


class TrialSession:
    """One invocation of an agent runner on a spool (a context manager: the spool's lock
    is held, and the segment writer open, inside the ``with`` block).

    Inside the block: :attr:`session` (the resumed one, else a new id), :attr:`resumed`,
    :meth:`records` (what the spool holds of the campaign on this node), :attr:`writer`;
    :meth:`catching_signals` around the trials, whose loops look at
    :attr:`stop_requests`."""

    session: str
    writer: spool.SegmentWriter

    def __init__(self, spool_dir: Path, campaign: str, node: str, hardware_type: str,
                 resume: bool, segment_bytes: int, echo: Callable[[str], None],
                 warn: Callable[[str], None]) -> None:
        self.spool_dir, self.campaign, self.resume = spool_dir, campaign, resume
        self.node, self.hardware_type = node, hardware_type
        self.segment_bytes = segment_bytes
        self.echo, self.warn = echo, warn
        self.stop_requests = 0
        self.env = node_environment()
        self._found = spool.Resumable([])
        self._lock: AbstractContextManager[None] | None = None

    def __enter__(self) -> TrialSession:
        lock = self._lock = spool.spool_lock(self.spool_dir)
        lock.__enter__()
        try:
            self._found = spool.resumable(self.spool_dir, self.campaign, self.node, self.resume)
        except BaseException:
            lock.__exit__(None, None, None)
            raise
        self.session = self._found.session or uuid.uuid4().hex[:8]
        self.writer = spool.SegmentWriter(self.spool_dir, self.campaign, self.node,
                                          self.session, self._found.next_seq, self.segment_bytes)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.writer.close()
        finally:
            if self._lock is not None:
                self._lock.__exit__(None, None, None)
                self._lock = None

    @property
    def resumed(self) -> bool:
        """Whether the spool already held this campaign on this node (``--resume``)."""
        return self._found.session is not None

    @property
    def next_seq(self) -> int:
        return self._found.next_seq

    def records(self) -> Iterator[dict[str, Any]]:
        """The records of this node's segments of the campaign, oldest first."""
        return spool.repaired_records(self._found.segments, self.warn)

    def say_resuming(self, what: str) -> None:
        self.echo(f"resuming session {self.session} of campaign {self.campaign!r} on "
                  f"{self.node}: {what}")

    def agent_env(self, **info: Any) -> dict[str, Any]:
        """The ``env`` of a run's first record: the node and this agent (version, session,
        and what the runner adds)."""
        return {**self.env, "perfwarehouse_agent": {
            "version": __version__, "session": self.session, **info}}

    # signals: only set a flag; the polling loops act on it (no exception mid-write)
    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop_requests += 1

    def catching_signals(self) -> SignalScope:
        return SignalScope(self.on_signal)

    def execute(self, command: str, timeout_s: float | None,
                extra_env: dict[str, str] | None = None) -> Executed:
        """Run ``command`` (:func:`run_command`, stopped by a stop request) and say how it
        went; ``extra_env`` is added to this process's environment."""
        done = run_command(command, timeout_s, lambda: self.stop_requests,
                           {**os.environ, **extra_env} if extra_env else None)
        seconds = done.seconds
        if done.stopped_for == "interrupted":
            return Executed("interrupted", b"", seconds, "stopped by a signal to the agent")
        if done.stopped_for == "timeout":
            return Executed("timeout", b"", seconds, f"still running after {timeout_s:g} s")
        if done.returncode != 0:
            tail = done.err.decode("utf-8", "replace").strip()[-TAIL_CHARS:]
            how = (f"killed by signal {-done.returncode}" if done.returncode < 0
                   else f"exit code {done.returncode}")
            return Executed("failed", done.out, seconds, how + (f": {tail}" if tail else ""))
        return Executed("ok", done.out, seconds, "")


# ---------------------------------------------------------------- processes
@dataclass(frozen=True)
class Finished:
    """How a command ended: ``stopped_for`` is None when it exited by itself, else
    ``interrupted`` (a stop request) or ``timeout``."""

    stopped_for: str | None
    returncode: int
    out: bytes
    err: bytes
    seconds: float


def run_command(command: str, timeout_s: float | None, stop_requests: Callable[[], int],
                env: dict[str, str] | None = None) -> Finished:
    """Run the shell ``command`` in its own process group, polling every ``POLL_S``: on a
    stop request (``stop_requests() > 0``) or after ``timeout_s`` its group gets SIGTERM,
    then SIGKILL after ``KILL_GRACE_S`` more or on a second stop request. ``env`` None
    inherits this process's environment."""
    started = time.monotonic()
    proc = subprocess.Popen(command, shell=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env=env)
    stopped_for: str | None = None
    signalled_at = 0.0
    while True:
        try:
            out, err = proc.communicate(timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            now = time.monotonic()
            if stopped_for is None and stop_requests():
                stopped_for = "interrupted"
            elif stopped_for is None and timeout_s is not None and now - started > timeout_s:
                stopped_for = "timeout"
            else:
                if stopped_for and (now - signalled_at > KILL_GRACE_S or stop_requests() > 1):
                    _signal_group(proc, signal.SIGKILL)
                continue
            signalled_at = now
            _signal_group(proc, signal.SIGTERM)
    return Finished(stopped_for, proc.returncode, out, err, time.monotonic() - started)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


class SignalScope:
    """Route SIGINT and SIGTERM to a handler for the duration of a ``with`` block."""

    def __init__(self, handler: Callable[[int, FrameType | None], None]) -> None:
        self.handler = handler
        self.saved: dict[int, Any] = {}

    def __enter__(self) -> SignalScope:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.saved[sig] = signal.signal(sig, self.handler)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self.saved.items():
            signal.signal(sig, previous)
