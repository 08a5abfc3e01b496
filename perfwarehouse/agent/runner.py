"""``perfwarehouse agent run``: execute a test list as OrderSage prescribes, into a spool.

Duplyakin et al. (OrderSage, USENIX ATC 2023), Algorithm 1 and section 6.2: ``N`` runs in the fixed baseline order
and ``N`` runs in freshly shuffled random orders, interleaved, the reset command
before every run (so that every run starts from a clean state), every run's
seed and order recorded. Each test runs as a shell command in its own process
group; its result is the last number it prints on stdout. Every trial becomes
one native record, appended and fsynced before the next test starts; a test
that fails, prints no number or times out is recorded with that status and no
values.

Interruption and resumption (``--resume``):

* Ctrl-C (SIGINT) or SIGTERM stops the running test (SIGTERM to its process
  group, SIGKILL after a grace period), records it with status
  ``interrupted``, and exits with code 130. Records are written whole or not at
  all, so the spool is always a sequence of whole lines.
* ``--resume`` reads the agent's segments for the campaign and node, checks that
  they were written with the same ``--seed`` and test list, and runs every slot
  of the schedule that has no complete run yet. An interrupted run cannot be
  continued (the state its remaining tests would see is gone), and its records
  may already have been pulled, so it stays in the spool as it is — a partial
  run whose completed trials are real measurements — and its slot is run again
  from a reset as a new run (``run_id`` suffix ``.2``, ``.3``, …; a new seed
  derived from the attempt number).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from perfwarehouse.agent import schedule
from perfwarehouse.agent.trials import TrialSession, default_hardware_type, default_node
from perfwarehouse.errors import PerfwarehouseError, UsageError


class ResetFailed(PerfwarehouseError):
    """The reset command failed: a run cannot start from a clean state."""


@dataclass(frozen=True)
class AgentConfig:
    """What ``agent run`` was asked to do."""

    spool: Path
    campaign: str
    tests_file: Path
    runs: int
    reset: str
    seed: int
    node: str | None = None
    hardware_type: str | None = None
    resume: bool = False
    timeout_s: float | None = None
    segment_bytes: int = 64 << 20
    revision: str | None = None  # of the software under test, on every trial
    revision_time: str | None = None  # RFC 3339


@dataclass
class AgentResult:
    """What ``agent run`` did."""

    node: str
    hardware_type: str
    session: str
    runs_completed: int = 0
    trials_written: int = 0
    slots_total: int = 0
    slots_already_done: int = 0
    interrupted: str | None = None  # where it stopped, if it was interrupted
    statuses: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Outcome:
    status: str
    value: float | None
    duration_s: float
    detail: str


def tests_digest(tests: list[str]) -> str:
    return hashlib.sha256("\n".join(tests).encode()).hexdigest()


def run_agent(config: AgentConfig, echo: Callable[[str], None] = print,
              warn: Callable[[str], None] = print) -> AgentResult:
    """Run the schedule (or what is left of it with ``resume``) into the spool."""
    if config.runs < 1:
        raise UsageError("--runs must be at least 1")
    if not config.campaign.strip():
        raise UsageError("--campaign must not be empty")
    if config.timeout_s is not None and config.timeout_s <= 0:
        raise UsageError("--timeout must be positive")
    if config.revision is not None and not config.revision.strip():
        raise UsageError("--revision must not be empty")
    if config.revision_time is not None:
        from perfwarehouse.policies.timestamps import timestamp_or_none

        if timestamp_or_none(config.revision_time) is None:
            raise UsageError(f"--revision-time {config.revision_time!r} is not an RFC 3339 time "
                             "(e.g. 2024-05-01T10:00:00Z)")
    tests = schedule.load_tests(config.tests_file)
    node = config.node or default_node()
    hardware_type = default_hardware_type(node, config.hardware_type)
    runner = _Runner(config, tests, node, hardware_type, echo, warn)
    with runner:
        past = _read_past(config, runner.records(), node, tests, hardware_type)
        result = runner.result = AgentResult(
            node, hardware_type, runner.session, slots_total=2 * config.runs,
            slots_already_done=len(past.complete & set(range(2 * config.runs))))
        if runner.resumed:
            runner.say_resuming(f"{result.slots_already_done} of {result.slots_total} runs "
                                "complete")
        with runner.catching_signals():
            for slot in range(2 * config.runs):
                if slot in past.complete:
                    continue
                if not runner.run_slot(slot, past.attempts.get(slot, 0) + 1):
                    break
    return result


# ------------------------------------------------------------------ resume
@dataclass
class _Past:
    complete: set[int] = field(default_factory=set)
    attempts: dict[int, int] = field(default_factory=dict)


def _read_past(config: AgentConfig, records: Iterable[dict[str, Any]], node: str,
               tests: list[str], hardware_type: str) -> _Past:
    """What the spool already holds of this campaign on this node (checked against the config)."""
    past = _Past()
    runs: dict[str, dict[str, Any]] = {}
    digest = tests_digest(tests)
    for record in records:
        if record.get("campaign") != config.campaign or record.get("node") != node:
            continue
        run = runs.setdefault(str(record.get("run_id")), {
            "slot": record.get("run_index"), "count": 0, "size": record.get("run_size"),
            "interrupted": False, "attempt": 1})
        run["count"] += 1
        run["interrupted"] |= record.get("status") == "interrupted"
        if record.get("hardware_type") != hardware_type:
            raise UsageError(
                f"the spool records node {node} as hardware type {record.get('hardware_type')}"
                f", not {hardware_type}; resume with --hardware-type "
                f"{record.get('hardware_type')}")
        info = (record.get("env") or {}).get("perfwarehouse_agent") \
            if isinstance(record.get("env"), dict) else None
        if info:
            run["attempt"] = int(info.get("attempt", 1))
            if info.get("seed") != config.seed:
                raise UsageError(f"campaign {config.campaign!r} in {config.spool} was started "
                                 f"with --seed {info.get('seed')}; resume with the same seed")
            if info.get("tests_sha256") != digest:
                raise UsageError(f"campaign {config.campaign!r} in {config.spool} was started "
                                 f"with another test list than {config.tests_file}; resume "
                                 "with the same tests file")
    for run in runs.values():
        slot = int(run["slot"])
        past.attempts[slot] = max(past.attempts.get(slot, 0), run["attempt"])
        if run["count"] == run["size"] and not run["interrupted"]:
            past.complete.add(slot)
    return past


# ----------------------------------------------------------------- running
class _Runner(TrialSession):
    def __init__(self, config: AgentConfig, tests: list[str], node: str, hardware_type: str,
                 echo: Callable[[str], None], warn: Callable[[str], None]) -> None:
        super().__init__(config.spool, config.campaign, node, hardware_type, config.resume,
                         config.segment_bytes, echo, warn)
        self.config = config
        self.tests = tests
        self.result = AgentResult(node, hardware_type, "")
        self.digest = tests_digest(tests)

    def run_slot(self, slot: int, attempt: int) -> bool:
        """Reset, then run every test of the slot's run; False if interrupted."""
        if self.stop_requests:
            self.result.interrupted = f"before run {slot + 1}"
            return False
        planned = schedule.plan_run(len(self.tests), self.config.seed, slot, attempt)
        run_id = f"{self.node}-{self.session}-{slot:03d}" + (f".{attempt}" if attempt > 1 else "")
        order_text = " ".join(str(i + 1) for i in planned.order)
        self.echo(f"run {slot + 1}/{2 * self.config.runs} ({planned.order_kind}"
                  f"{f', attempt {attempt}' if attempt > 1 else ''}, seed {planned.seed}): "
                  f"tests in order {order_text}")
        reset = self._execute(self.config.reset, timeout_s=None, extra_env={})
        if reset.status == "interrupted" or self.stop_requests:
            self.result.interrupted = f"during the reset before run {slot + 1}"
            return False
        if reset.status != "ok":
            raise ResetFailed(f"the reset command {self.config.reset!r} failed ({reset.detail}) "
                              f"before run {slot + 1}; fix it and continue with --resume")
        started = time.monotonic()
        statuses: dict[str, int] = {}
        for position, test_index in enumerate(planned.order):
            test = self.tests[test_index]
            started_at = datetime.now(timezone.utc)
            outcome = self._execute(test, self.config.timeout_s, {
                "PERFWAREHOUSE_CAMPAIGN": self.config.campaign,
                "PERFWAREHOUSE_RUN_INDEX": str(slot),
                "PERFWAREHOUSE_ORDER_KIND": planned.order_kind,
                "PERFWAREHOUSE_POSITION": str(position),
                "PERFWAREHOUSE_SEED": str(planned.seed),
            }, want_number=True)
            record: dict[str, Any] = {
                "v": 1, "campaign": self.config.campaign, "run_id": run_id, "node": self.node,
                "hardware_type": self.hardware_type, "run_index": slot,
                "order_kind": planned.order_kind, "seed": str(planned.seed),
                "position": position, "run_size": len(self.tests), "benchmark": test,
                "settings": {}, "metric": "result", "unit": None, "higher_is_better": None,
                "values": [outcome.value] if outcome.status == "ok" else [],
                "started_at": started_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "duration_s": round(outcome.duration_s, 6), "status": outcome.status,
            }
            if self.config.revision is not None:
                record["revision"] = self.config.revision
            if self.config.revision_time is not None:
                record["revision_time"] = self.config.revision_time
            if position == 0:
                record["env"] = self.agent_env(seed=self.config.seed, attempt=attempt,
                                               tests_sha256=self.digest, reset=self.config.reset)
            self.writer.append(record)
            self.result.trials_written += 1
            statuses[outcome.status] = statuses.get(outcome.status, 0) + 1
            self.result.statuses[outcome.status] = self.result.statuses.get(outcome.status, 0) + 1
            if outcome.status != "ok":
                self.warn(f"  test {test_index + 1} at position {position}: {outcome.status} "
                          f"({outcome.detail})")
            last = position == len(planned.order) - 1
            if outcome.status == "interrupted" or (self.stop_requests and not last):
                self.result.interrupted = (
                    f"in run {slot + 1} ({planned.order_kind}) at position {position}")
                return False
        self.result.runs_completed += 1
        summary = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
        self.echo(f"  done in {time.monotonic() - started:.1f} s ({summary})")
        if self.stop_requests:
            self.result.interrupted = f"after run {slot + 1}"
            return False
        return True

    def _execute(self, command: str, timeout_s: float | None, extra_env: dict[str, str],
                 want_number: bool = False) -> _Outcome:
        """Run ``command`` and say how it went; with ``want_number``, its result is the last
        (finite) number it prints on stdout."""
        done = self.execute(command, timeout_s, extra_env)
        if done.status != "ok" or not want_number:
            return _Outcome(done.status, None, done.seconds, done.detail)
        value = schedule.last_number(done.stdout)
        if value is None:
            return _Outcome("no-result", None, done.seconds, "printed no (finite) number on stdout")
        return _Outcome("ok", value, done.seconds, "")
