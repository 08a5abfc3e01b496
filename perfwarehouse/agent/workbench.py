"""``agent peak-rate`` and ``agent surface``: run the workbench controller's trials into a spool.

The controller (:mod:`perfwarehouse.workbench`, after Shivam et al., "Cutting
Corners: Workbench Automation for Server Benchmarking", USENIX ATC 2008) decides
which load to try next; this module runs it. Each trial:

1. substitutes ``{load}`` (offered rate, or clients in a closed loop),
   ``{duration}`` (seconds) and the sample's ``{NAME}`` factors into the command
   template and runs it in its own process group with a timeout;
2. parses its stdout with the chosen importer's pure ``parse()`` (or reads
   native JSON Lines records) and takes the chosen statistic (``mean``, ``p50``,
   ``p90``, ``p99``, in ms) of the one trial it holds;
3. appends the trial's native load-test records to the spool in ONE ``write``
   followed by ``fsync`` (settings carry the load; ``attributes.workbench`` the
   search, step, trial, policy, statistic and the value used), then feeds the
   value to the controller.

Before a search's first trial the command runs ``warmup`` times (default once) at
the first load: a cold server or generator (first connections, page faults) is not a
measurement of the load, so the search does not use it; its records are kept with
status ``warmup`` (and ``attributes.workbench.kind = "warmup"``), so every run of the
load generator is in the warehouse and no analysis takes it as a trial.

A trial that fails (non-zero exit, timeout, no parsable output) is recorded with
its status and no values; the controller counts it (two failures at one load
count as saturation). When a search ends, one *result* run is appended:
``peak_rate`` (λ*), ``search_trials``, ``search_generator_s`` and
``search_loads``, with the full outcome in ``attributes.workbench`` — this is the
cost accounting per search, pulled into the warehouse like every other trial.

SIGINT/SIGTERM stop the running generator, record the trial as ``interrupted``
and exit with 130, as ``agent run`` does. ``--resume`` replays the complete
trials of the spool into the controller (which is a pure function of them) and
carries on; an interrupted or torn trial is run again under a new run id.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib import import_module
from pathlib import Path
from typing import Any

import orjson

from perfwarehouse import __version__
from perfwarehouse.agent import spool
from perfwarehouse.agent.runner import (
    TAIL_CHARS,
    _SignalScope,
    default_hardware_type,
    default_node,
    node_environment,
    run_command,
)
from perfwarehouse.errors import PerfwarehouseError, TrialParseError, UsageError
from perfwarehouse.stats.means import crosses_zero
from perfwarehouse.workbench import Done, Run, Search, SearchResult, SearchSpec, Trial
from perfwarehouse.workbench.seeding import SeedChoice, nearest_seed

FORMATS = ("native", "wrk", "hey", "redis-benchmark", "k6", "locust", "sysbench", "jmeter")
STATISTICS = ("mean", "p50", "p90", "p99")
RESULT_METRICS = ("peak_rate", "search_trials", "search_generator_s", "search_loads")
SEARCH_SETTING_KEYS = ("search_policy", "search_seeding")


@dataclass(frozen=True)
class WorkbenchConfig:
    """What ``agent peak-rate`` / ``agent surface`` were asked to do."""

    spool: Path
    campaign: str
    template: str
    fmt: str
    spec: SearchSpec
    statistic: str = "mean"
    loop: str = "open"
    duration_s: float = 10.0
    timeout_s: float | None = None  # default: 3 × duration + 30 s
    settings: tuple[tuple[str, str], ...] = ()
    seed_from: Path | None = None
    node: str | None = None
    hardware_type: str | None = None
    resume: bool = False
    benchmark: str | None = None
    seeding: bool = True  # surface: seed each sample from the nearest finished one
    warmup: int = 1  # runs of the command before a search's first trial, not recorded
    segment_bytes: int = 64 << 20

    def check(self) -> None:
        self.spec.check()
        if not self.campaign.strip():
            raise UsageError("--campaign must not be empty")
        if self.fmt not in FORMATS:
            raise UsageError(f"--format must be one of {', '.join(FORMATS)}")
        if self.statistic not in STATISTICS:
            raise UsageError(f"--statistic must be one of {', '.join(STATISTICS)}")
        if self.loop not in ("open", "closed"):
            raise UsageError("--loop must be open or closed")
        if not self.duration_s > 0:
            raise UsageError("--duration must be positive")
        if self.warmup < 0:
            raise UsageError("--warmup must be 0 or more")
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise UsageError("--timeout must be positive")
        if "{load}" not in self.template:
            raise UsageError("the --command template must contain {load} (and usually "
                             "{duration})")

    @property
    def load_key(self) -> str:
        return "rate_rps" if self.loop == "open" else "clients"

    @property
    def trial_timeout_s(self) -> float:
        return self.timeout_s if self.timeout_s is not None else 3 * self.duration_s + 30.0


@dataclass
class SampleOutcome:
    """One search: its factors, where it started, how it ended and how long it took."""

    index: int
    factors: dict[str, str]
    seed: SeedChoice | None
    result: SearchResult | None = None
    wall_s: float = 0.0
    resumed_trials: int = 0


@dataclass
class WorkbenchOutcome:
    node: str
    session: str
    samples: list[SampleOutcome] = field(default_factory=list)
    trials_written: int = 0
    interrupted: str | None = None

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return 130
        if any(s.result is None or s.result.exit_code for s in self.samples):
            return 3
        return 0


def substitute(template: str, load: float, duration_s: float,
               factors: Mapping[str, str]) -> str:
    """The command for one trial: ``{load}``, ``{duration}`` and ``{NAME}`` replaced.

    Plain replacement (not ``str.format``), so other braces in shell code stay.
    """
    command = template.replace("{load}", _number_text(load))
    command = command.replace("{duration}", _number_text(duration_s))
    for name, value in factors.items():
        command = command.replace("{" + name + "}", str(value))
    return command


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# ----------------------------------------------------------------- parsing
def parse_output(fmt: str, data: bytes, source: str) -> list[dict[str, Any]]:
    """The native records of one trial's output, by the importer ``fmt`` (pure)."""
    if fmt == "native":
        records = []
        for lineno, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise TrialParseError(source, lineno, "invalid-json",
                                      "not a JSON object (native output is JSON Lines)") from None
            if not isinstance(record, dict):
                raise TrialParseError(source, lineno, "wrong-type", "a record must be an object")
            records.append(record)
        if not records:
            raise TrialParseError(source, 0, "empty", "the command printed no records")
        return records
    try:
        module = import_module(f"perfwarehouse.ingest.formats.{fmt.replace('-', '_')}")
    except ImportError:
        raise UsageError(f"the format {fmt!r} is not available in this perfwarehouse") from None
    from perfwarehouse.ingest.formats.records import ImportOptions

    return list(module.parse(data, source, ImportOptions()))


def statistic_of(records: Sequence[Mapping[str, Any]], statistic: str) -> float | None:
    """The mean of the values of the record(s) of metric ``statistic`` (ms), if any."""
    values = [float(v) for r in records if r.get("metric") == statistic
              for v in (r.get("values") or []) if v is not None and math.isfinite(float(v))]
    return math.fsum(values) / len(values) if values else None


# ----------------------------------------------------------------- seeding
def warehouse_samples(path: Path, metric: str = "peak_rate"
                      ) -> list[tuple[dict[str, Any], float]]:
    """(settings without the search's own keys, λ*) of every finished search in a warehouse."""
    from perfwarehouse.warehouse.store import Warehouse

    with Warehouse(path).catalog() as con:
        rows = con.execute(
            "SELECT settings, value FROM measurements WHERE metric = ? AND status = 'ok' "
            "AND value IS NOT NULL ORDER BY started_at, run_id", [metric]).fetchall()
    out = []
    for settings, value in rows:
        s = json.loads(settings) if isinstance(settings, str) else dict(settings or {})
        out.append(({k: v for k, v in s.items()
                     if k not in SEARCH_SETTING_KEYS and k not in ("rate_rps", "clients")},
                    float(value)))
    return out


# ------------------------------------------------------------------ running
def run_searches(config: WorkbenchConfig, samples: Sequence[Mapping[str, str]],
                 echo: Callable[[str], None] = print,
                 warn: Callable[[str], None] = print) -> WorkbenchOutcome:
    """Find λ* for every sample (factor values) in order; ``[{}]`` for one plain search."""
    config.check()
    node = config.node or default_node()
    hardware_type = default_hardware_type(node, config.hardware_type)
    plain = [dict(s) for s in samples]
    fingerprint = _fingerprint(config, plain)
    with spool.spool_lock(config.spool):
        past = _read_past(config, node, hardware_type, fingerprint, warn)
        session = past.session or uuid.uuid4().hex[:8]
        outcome = WorkbenchOutcome(node, session)
        if past.session:
            echo(f"resuming session {session} of campaign {config.campaign!r} on {node}: "
                 f"{sum(len(t) for t in past.trials.values())} trial(s) and "
                 f"{len(past.results)} finished search(es) in the spool")
        writer = spool.SegmentWriter(config.spool, config.campaign, node, session,
                                     past.next_seq, config.segment_bytes)
        runner = _Runner(config, node, hardware_type, session, fingerprint, writer, echo, warn,
                         outcome)
        warehouse_seeds = (warehouse_samples(config.seed_from)
                           if config.seed_from is not None else [])
        try:
            with _SignalScope(runner.on_signal):
                for index, factors in enumerate(plain):
                    finished = [(s.factors, s.result.lambda_star) for s in outcome.samples
                                if s.result is not None and s.result.lambda_star is not None]
                    if not runner.search(index, factors, past, finished, warehouse_seeds):
                        break
        finally:
            writer.close()
    return outcome


@dataclass
class _Past:
    session: str | None = None
    next_seq: int = 1
    trials: dict[int, list[Trial]] = field(default_factory=dict)  # sample -> complete trials
    attempts: dict[int, int] = field(default_factory=dict)  # sample -> trial run ids used
    seeds: dict[int, dict[str, Any]] = field(default_factory=dict)
    results: dict[int, dict[str, Any]] = field(default_factory=dict)


def _fingerprint(config: WorkbenchConfig, samples: list[dict[str, str]]) -> str:
    what = {"template": config.template, "format": config.fmt, "statistic": config.statistic,
            "loop": config.loop, "duration_s": config.duration_s, "spec": asdict(config.spec),
            "settings": list(config.settings), "samples": samples, "seeding": config.seeding}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _read_past(config: WorkbenchConfig, node: str, hardware_type: str, fingerprint: str,
               warn: Callable[[str], None]) -> _Past:
    found = spool.resumable(config.spool, config.campaign, node, config.resume)
    past = _Past(found.session, found.next_seq)
    runs: dict[str, list[dict[str, Any]]] = {}
    for record in spool.repaired_records(found.segments, warn):
        info = (record.get("attributes") or {}).get("workbench")
        if record.get("campaign") != config.campaign or not isinstance(info, dict):
            continue
        if info.get("fingerprint") != fingerprint:
            raise UsageError(
                f"campaign {config.campaign!r} in {config.spool} was started with other "
                "options (command, format, statistic, loop, duration, search options, "
                "settings or samples); resume with the same ones")
        if record.get("hardware_type") != hardware_type:
            raise UsageError(f"the spool records node {node} as hardware type "
                             f"{record.get('hardware_type')}; resume with --hardware-type "
                             f"{record.get('hardware_type')}")
        runs.setdefault(str(record.get("run_id")), []).append(record)
    for run_id, records in runs.items():  # dicts keep the spool's order
        info = records[0]["attributes"]["workbench"]
        sample = int(info["sample"])
        if info.get("kind") == "result":
            past.results[sample] = info
            continue
        past.attempts[sample] = max(past.attempts.get(sample, 0), int(info["attempt"]))
        if info.get("kind") == "warmup":  # kept, but not a trial of the search
            continue
        if "seed_load" in info and sample not in past.seeds:
            past.seeds[sample] = {"load": info["seed_load"], "note": info.get("seed_note", ""),
                                  "from_sample": bool(info.get("seed_from_sample"))}
        if len(records) != records[0].get("run_size"):
            warn(f"trial {run_id} has {len(records)} of {records[0].get('run_size')} records in "
                 "the spool (torn by a crash); it is run again")
            continue
        if records[0].get("status") == "interrupted":
            continue
        past.trials.setdefault(sample, []).append(
            Trial(float(info["load"]), info.get("response"), float(info.get("seconds", 0.0))))
    return past


@dataclass(frozen=True)
class _Executed:
    status: str  # ok | failed | timeout | interrupted | no-result
    stdout: bytes
    seconds: float
    detail: str


class _Runner:
    def __init__(self, config: WorkbenchConfig, node: str, hardware_type: str, session: str,
                 fingerprint: str, writer: spool.SegmentWriter, echo: Callable[[str], None],
                 warn: Callable[[str], None], outcome: WorkbenchOutcome) -> None:
        self.config = config
        self.node, self.hardware_type, self.session = node, hardware_type, session
        self.fingerprint = fingerprint
        self.writer = writer
        self.echo, self.warn = echo, warn
        self.outcome = outcome
        self.stop_requests = 0
        self.env = node_environment()

    def on_signal(self, signum: int, frame: object) -> None:
        self.stop_requests += 1

    # ------------------------------------------------------------- one search
    def search(self, index: int, factors: dict[str, str], past: _Past,
               finished: list[tuple[dict[str, str], float]],
               warehouse_seeds: list[tuple[dict[str, Any], float]]) -> bool:
        """Run (or resume) the search of sample ``index``; False when interrupted."""
        config = self.config
        label = ", ".join(f"{k}={v}" for k, v in factors.items()) or config.campaign
        sample_settings = self._sample_settings(factors)
        seed: SeedChoice | None
        if index in past.seeds:
            known = past.seeds[index]
            seed = SeedChoice(float(known["load"]), {} if known["from_sample"] else None, None,
                              str(known["note"]))
        else:
            seed = self._seed(factors, sample_settings, finished, warehouse_seeds)
        outcome = SampleOutcome(index, factors, seed)
        self.outcome.samples.append(outcome)
        seed_load = seed.load if seed is not None else None
        state = Search.start(config.spec, seed_load, seed.note if seed else "")
        for trial in past.trials.get(index, []):
            state = state.observe(trial)
        outcome.resumed_trials = len(past.trials.get(index, []))
        if index in past.results:
            outcome.result = state.action.result if isinstance(state.action, Done) else None
            self.echo(f"[{label}] already finished: λ* = {past.results[index].get('lambda_star')}")
            return True
        if seed is not None and not past.trials.get(index):
            self.echo(f"[{label}] {seed.note}")
        attempt = past.attempts.get(index, 0)
        started = time.monotonic()
        if not past.trials.get(index) and isinstance(state.action, Run):
            for _ in range(config.warmup):  # a cold server or generator is not a trial
                attempt += 1
                warm, status = self._trial(index, factors, sample_settings, state.action,
                                           attempt, None, kind="warmup")
                self.echo(f"[{label}] warm-up at load {state.action.load:g}: {status} "
                          f"({warm.seconds:.1f} s; kept with status 'warmup', the search "
                          "does not use it)")
                if status == "interrupted":
                    self.outcome.interrupted = f"in the warm-up of sample {label}"
                    return False
        while isinstance(state.action, Run):
            if self.stop_requests:
                self.outcome.interrupted = f"in the search of sample {label}"
                return False
            action = state.action
            attempt += 1
            trial, status = self._trial(index, factors, sample_settings, action, attempt, seed)
            if status == "interrupted":
                self.outcome.interrupted = (f"at load {action.load:g} of sample {label} "
                                            f"(trial {action.trial})")
                return False
            state = state.observe(trial)
            self._progress(label, state, action, trial, status)
        assert isinstance(state.action, Done)
        outcome.result = state.action.result
        outcome.wall_s = time.monotonic() - started
        self._write_result(index, factors, sample_settings, outcome, seed)
        for line in summary_lines(outcome.result, config, label):
            self.echo(line)
        return True

    def _seed(self, factors: dict[str, str], sample_settings: dict[str, Any],
              finished: list[tuple[dict[str, str], float]],
              warehouse_seeds: list[tuple[dict[str, Any], float]]) -> SeedChoice | None:
        config = self.config
        if factors and config.seeding and finished:
            return nearest_seed(factors, finished, config.spec.start_load)
        if config.seed_from is not None:
            target = {k: v for k, v in sample_settings.items() if k != config.load_key}
            return nearest_seed(target, warehouse_seeds, config.spec.start_load)
        return None

    def _sample_settings(self, factors: dict[str, str]) -> dict[str, Any]:
        from perfwarehouse.workbench.seeding import as_number

        settings: dict[str, Any] = {"loop": self.config.loop}
        for key, value in [*self.config.settings, *factors.items()]:
            number = as_number(value)
            settings[key] = int(number) if number is not None and number.is_integer() and \
                "." not in str(value) else (number if number is not None else value)
        return settings

    # -------------------------------------------------------------- one trial
    def _trial(self, index: int, factors: dict[str, str], sample_settings: dict[str, Any],
               action: Run, attempt: int, seed: SeedChoice | None,
               kind: str = "trial") -> tuple[Trial, str]:
        """Run one trial and append its records to the spool, whatever its outcome: the
        parsed records with their load, or one record with the failure's status and
        reason. ``kind="warmup"``: the unrecorded-in-the-search warm-up run, kept with
        status ``warmup`` (not ok: no analysis takes it) so that every run of the load
        generator is in the warehouse."""
        config = self.config
        command = substitute(config.template, action.load, config.duration_s, factors)
        started_at = datetime.now(timezone.utc)
        executed = self._execute(command)
        run_id = f"{config.campaign}-{self.session}-{index:02d}-{attempt:03d}"
        status, detail, records, value = executed.status, executed.detail, [], None
        if status == "ok":
            try:
                records = parse_output(config.fmt, executed.stdout, command)
                runs = {r.get("run_id") for r in records}
                if len(runs) > 1:
                    raise TrialParseError(command, 0, "many-trials",
                                          f"the output holds {len(runs)} trials; make the "
                                          "command run one (e.g. one redis-benchmark -t test)")
                value = statistic_of(records, config.statistic)
                if value is None:
                    status, detail = "no-result", f"the output has no {config.statistic} latency"
            except PerfwarehouseError as exc:
                status, detail, records = "no-result", str(exc)[:TAIL_CHARS], []
        info: dict[str, Any] = {
            "kind": kind, "sample": index, "factors": factors, "step": action.step,
            "trial": action.trial, "attempt": attempt, "load": action.load,
            "policy": config.spec.policy, "picked_by": action.how, "statistic": config.statistic,
            "response": value if status == "ok" else None, "seconds": executed.seconds,
            "command": command, "fingerprint": self.fingerprint,
        }
        if kind == "trial" and action.step == 1 and action.trial == 1 and seed is not None:
            info["seed_load"], info["seed_note"] = seed.load, seed.note
            info["seed_from_sample"] = seed.source is not None
        if status != "ok":
            info["detail"] = detail
        settings = {**sample_settings, config.load_key: _integral(action.load)}
        if config.loop == "open":
            settings.pop("clients", None)
        base = {"v": 1, "campaign": config.campaign, "run_id": run_id, "node": self.node,
                "hardware_type": self.hardware_type, "run_index": attempt, "order_kind": "fixed",
                "position": 0, "started_at": _rfc3339(started_at),
                "duration_s": round(executed.seconds, 6)}
        out: list[dict[str, Any]] = []
        if status == "ok":
            for record in records:
                parsed_settings = dict(record.get("settings") or {})
                if config.loop == "open":
                    parsed_settings.pop("think_time_s", None)
                    parsed_settings.pop("clients", None)
                out.append({**record, **base, "seed": None,
                            "status": "warmup" if kind == "warmup"
                            else record.get("status") or "ok",
                            "benchmark": config.benchmark or record.get("benchmark")
                            or "workbench",
                            "settings": {**parsed_settings, **settings},
                            "attributes": {**(record.get("attributes") or {}),
                                           "workbench": info}})
        else:
            out.append({**base, "benchmark": config.benchmark or config.fmt,
                        "settings": settings, "metric": config.statistic, "unit": "ms",
                        "higher_is_better": False, "values": [], "status": status,
                        "attributes": {"workbench": info}})
        for record in out:
            record["run_size"] = len(out)
        if action.step == 1 and action.trial == 1:
            out[0]["env"] = {**self.env, "perfwarehouse_agent": {
                "version": __version__, "session": self.session, "command": "workbench"}}
        self.writer.append_all(out)
        if kind == "trial":
            self.outcome.trials_written += 1
        if status not in ("ok", "interrupted"):
            self.warn(f"  {kind} at load {action.load:g}: {status} ({detail})")
        return Trial(action.load, value if status == "ok" else None, executed.seconds), status

    def _execute(self, command: str) -> _Executed:
        timeout = self.config.trial_timeout_s
        done = run_command(command, timeout, lambda: self.stop_requests)
        seconds = done.seconds
        if done.stopped_for == "interrupted":
            return _Executed("interrupted", b"", seconds, "stopped by a signal to the agent")
        if done.stopped_for == "timeout":
            return _Executed("timeout", b"", seconds, f"still running after {timeout:g} s")
        if done.returncode != 0:
            tail = done.err.decode("utf-8", "replace").strip()[-TAIL_CHARS:]
            return _Executed("failed", done.out, seconds,
                             f"exit code {done.returncode}" + (f": {tail}" if tail else ""))
        return _Executed("ok", done.out, seconds, "")

    def _progress(self, label: str, state: Search, action: Run, trial: Trial,
                  status: str) -> None:
        visit = state.loads[-1] if state.loads and state.loads[-1].step == action.step else None
        value = f"{trial.response:.4g} ms" if trial.response is not None else status
        text = (f"[{label}] load {action.load:g} (step {action.step}, {action.how}) trial "
                f"{action.trial}: {self.config.statistic} {value}")
        if visit is not None and visit.ci_low is not None:
            text += f"; CI [{visit.ci_low:.4g}, {visit.ci_high:.4g}] "
            text += ("crosses zero" if crosses_zero(visit.ci_low, visit.ci_high or 0.0)
                     else f"accuracy {visit.accuracy:.3f}") + f" -> {visit.verdict}"
        self.echo(text)

    def _write_result(self, index: int, factors: dict[str, str],
                      sample_settings: dict[str, Any], outcome: SampleOutcome,
                      seed: SeedChoice | None) -> None:
        config, result = self.config, outcome.result
        assert result is not None
        seeding = "default" if seed is None else ("nearest" if seed.source else "seed-default")
        void = result.response_ci is not None and crosses_zero(*result.response_ci)
        settings = {**sample_settings, "search_policy": config.spec.policy,
                    "search_seeding": seeding}
        info = {
            "kind": "result", "sample": index, "factors": factors,
            "fingerprint": self.fingerprint, "status": result.status, "reason": result.reason,
            "lambda_star": result.lambda_star, "lambda_low": result.lambda_low,
            "lambda_high": result.lambda_high,
            "bracket_confidence": result.bracket_confidence,
            "response_ci": list(result.response_ci) if result.response_ci else None,
            # an interval that crosses zero has no accuracy (equation 2 would be negative)
            "accuracy": None if void else result.accuracy, "accuracy_of": result.accuracy_of,
            "response_ci_crosses_zero": void,
            "trials": result.trials, "generator_s": result.seconds,
            "loads_visited": result.loads_visited, "wall_s": outcome.wall_s,
            "statistic": config.statistic, "r_sat": config.spec.r_sat,
            "width": config.spec.width, "confidence": config.spec.confidence,
            "accuracy_target": config.spec.accuracy, "policy": config.spec.policy,
            "seed_load": seed.load if seed else None, "notes": list(result.notes),
            "loads": [{"step": v.step, "load": v.load, "how": v.how, "trials": v.trials,
                       "seconds": v.seconds, "verdict": v.verdict, "mean": v.mean,
                       "ci": [v.ci_low, v.ci_high]} for v in result.loads],
        }
        unit = "req/s" if config.loop == "open" else "clients"
        values = {"peak_rate": ([result.lambda_star] if result.lambda_star is not None else [],
                                unit, True),
                  "search_trials": ([float(result.trials)], "trials", False),
                  "search_generator_s": ([result.seconds], "s", False),
                  "search_loads": ([float(result.loads_visited)], "loads", False)}
        base = {"v": 1, "campaign": config.campaign,
                "run_id": f"{config.campaign}-{self.session}-{index:02d}-result",
                "node": self.node, "hardware_type": self.hardware_type,
                "run_index": 0, "order_kind": "fixed", "position": 0,
                "run_size": len(values), "started_at": _rfc3339(datetime.now(timezone.utc)),
                "duration_s": round(result.seconds, 6),
                "benchmark": config.benchmark or config.fmt, "settings": settings}
        records = []
        for metric, (vals, unit_, higher) in values.items():
            ok = result.status == "converged" or metric != "peak_rate"
            records.append({**base, "metric": metric, "unit": unit_, "higher_is_better": higher,
                            "values": vals, "status": "ok" if ok and vals else "budget",
                            "attributes": {"workbench": info}})
        self.writer.append_all(records)


def summary_lines(result: SearchResult, config: WorkbenchConfig, label: str) -> list[str]:
    """The end-of-search summary: λ*, its interval and accuracy, cost per load."""
    unit = "req/s" if config.loop == "open" else "clients"
    lines = []
    if result.lambda_star is None:
        head = f"[{label}] no estimate of λ*"
    else:
        head = f"[{label}] λ* = {result.lambda_star:g} {unit}"
        if result.lambda_low is not None or result.lambda_high is not None:
            lo = f"{result.lambda_low:g}" if result.lambda_low is not None else "?"
            hi = f"{result.lambda_high:g}" if result.lambda_high is not None else "?"
            head += f", bracket [{lo}, {hi}]"
        if result.response_ci is not None:
            head += (f", {config.statistic} CI [{result.response_ci[0]:.4g}, "
                     f"{result.response_ci[1]:.4g}] ms at {config.spec.confidence:g}")
        if result.response_ci is not None and crosses_zero(*result.response_ci):
            head += " (it crosses zero: no accuracy)"
        elif result.accuracy is not None:
            head += f", accuracy {result.accuracy:.3f} ({result.accuracy_of})"
    verdict = ("target met" if result.status == "converged"
               else f"budget ran out ({result.reason}): best estimate so far")
    if (result.status != "converged" and result.lambda_low is not None
            and result.lambda_high is not None and result.bracket_confidence is not None):
        verdict += (f"; λ* lies in [{result.lambda_low:g}, {result.lambda_high:g}] {unit} at "
                    f"confidence >= {result.bracket_confidence:.2f}")
    lines.append(f"{head}; {verdict} [{result.reason}]")
    lines.append(f"[{label}] cost: {result.trials} trials, {result.seconds:.1f} s of load "
                 f"generator, {result.loads_visited} loads")
    for v in result.loads:
        mean = f"{v.mean:.4g} ms" if v.mean is not None else "-"
        lines.append(f"    load {v.load:>10g}  {v.how:<17} {v.trials:>3} trials {v.seconds:8.1f} s"
                     f"  {config.statistic} {mean:>12}  {v.verdict}")
    for note in result.notes:
        lines.append(f"    note: {note}")
    return lines


def _integral(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
