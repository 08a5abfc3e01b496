"""The parts of ``agent peak-rate`` and ``agent surface`` that run nothing
(:mod:`perfwarehouse.agent.workbench` runs them): the options, one trial's command
(:func:`substitute`), the reading of its output (:func:`parse_output`,
:func:`statistic_of`), the outcome of the searches and their summary lines.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib import import_module
from pathlib import Path
from typing import Any

import orjson

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.stats.means import crosses_zero
from perfwarehouse.workbench import SearchResult, SearchSpec
from perfwarehouse.workbench.seeding import SeedChoice

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


def integral(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def rfc3339(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
