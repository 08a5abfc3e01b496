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
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from perfwarehouse.agent.trials import (
    TAIL_CHARS,
    TrialSession,
    default_hardware_type,
    default_node,
)
from perfwarehouse.agent.workbench_parts import (
    SEARCH_SETTING_KEYS,
    SampleOutcome,
    WorkbenchConfig,
    WorkbenchOutcome,
    integral,
    parse_output,
    rfc3339,
    statistic_of,
    substitute,
    summary_lines,
)
from perfwarehouse.errors import PerfwarehouseError, TrialParseError, UsageError
from perfwarehouse.stats.means import crosses_zero
from perfwarehouse.workbench import Done, Run, Search, Trial
from perfwarehouse.workbench.seeding import SeedChoice, nearest_seed


# ----------------------------------------------------------------- seeding
def warehouse_samples(path: Path, metric: str = "peak_rate"
                      ) -> list[tuple[dict[str, Any], float]]:
    """(settings without the search's own keys, λ*) of every finished search in a warehouse."""
    from perfwarehouse.protocol import finished_values

    return [({k: v for k, v in settings.items()
              if k not in SEARCH_SETTING_KEYS and k not in ("rate_rps", "clients")}, value)
            for settings, value in finished_values(path, metric)]


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
    runner = _Runner(config, node, hardware_type, fingerprint, echo, warn)
    with runner:
        past = _read_past(config, runner.records(), node, hardware_type, fingerprint, warn)
        outcome = runner.outcome = WorkbenchOutcome(node, runner.session)
        if runner.resumed:
            runner.say_resuming(f"{sum(len(t) for t in past.trials.values())} trial(s) and "
                                f"{len(past.results)} finished search(es) in the spool")
        warehouse_seeds = (warehouse_samples(config.seed_from)
                           if config.seed_from is not None else [])
        with runner.catching_signals():
            for index, factors in enumerate(plain):
                finished = [(s.factors, s.result.lambda_star) for s in outcome.samples
                            if s.result is not None and s.result.lambda_star is not None]
                if not runner.search(index, factors, past, finished, warehouse_seeds):
                    break
    return outcome


@dataclass
class _Past:
    trials: dict[int, list[Trial]] = field(default_factory=dict)  # sample -> complete trials
    attempts: dict[int, int] = field(default_factory=dict)  # sample -> trial run ids used
    seeds: dict[int, dict[str, Any]] = field(default_factory=dict)
    results: dict[int, dict[str, Any]] = field(default_factory=dict)


def _fingerprint(config: WorkbenchConfig, samples: list[dict[str, str]]) -> str:
    what = {"template": config.template, "format": config.fmt, "statistic": config.statistic,
            "loop": config.loop, "duration_s": config.duration_s, "spec": asdict(config.spec),
            "settings": list(config.settings), "samples": samples, "seeding": config.seeding}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _read_past(config: WorkbenchConfig, records: Iterable[dict[str, Any]], node: str,
               hardware_type: str, fingerprint: str, warn: Callable[[str], None]) -> _Past:
    past = _Past()
    runs: dict[str, list[dict[str, Any]]] = {}
    for record in records:
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


class _Runner(TrialSession):
    def __init__(self, config: WorkbenchConfig, node: str, hardware_type: str,
                 fingerprint: str, echo: Callable[[str], None],
                 warn: Callable[[str], None]) -> None:
        super().__init__(config.spool, config.campaign, node, hardware_type, config.resume,
                         config.segment_bytes, echo, warn)
        self.config = config
        self.fingerprint = fingerprint
        self.outcome = WorkbenchOutcome(node, "")

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
        executed = self.execute(command, config.trial_timeout_s)
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
        settings = {**sample_settings, config.load_key: integral(action.load)}
        if config.loop == "open":
            settings.pop("clients", None)
        base = {"v": 1, "campaign": config.campaign, "run_id": run_id, "node": self.node,
                "hardware_type": self.hardware_type, "run_index": attempt, "order_kind": "fixed",
                "position": 0, "started_at": rfc3339(started_at),
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
            out[0]["env"] = self.agent_env(command="workbench")
        self.writer.append_all(out)
        if kind == "trial":
            self.outcome.trials_written += 1
        if status not in ("ok", "interrupted"):
            self.warn(f"  {kind} at load {action.load:g}: {status} ({detail})")
        return Trial(action.load, value if status == "ok" else None, executed.seconds), status

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
                "run_size": len(values), "started_at": rfc3339(datetime.now(timezone.utc)),
                "duration_s": round(result.seconds, 6),
                "benchmark": config.benchmark or config.fmt, "settings": settings}
        records = []
        for metric, (vals, unit_, higher) in values.items():
            ok = result.status == "converged" or metric != "peak_rate"
            records.append({**base, "metric": metric, "unit": unit_, "higher_is_better": higher,
                            "values": vals, "status": "ok" if ok and vals else "budget",
                            "attributes": {"workbench": info}})
        self.writer.append_all(records)

