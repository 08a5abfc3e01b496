"""The peak-rate runner with a tiny simulated load generator (awk), in-process and via the CLI.

The "generator" prints one native record: a mean response time of 2 ms up to the
capacity and 40 ms above it (a step knee), with 1 % noise.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from perfwarehouse.agent.workbench import (
    WorkbenchConfig,
    parse_output,
    run_searches,
    statistic_of,
    substitute,
)
from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.workbench import SearchSpec
from tests.conftest import CliRunner

pytestmark = pytest.mark.integration

SIM = ("awk -v L={load} -v C=%s 'BEGIN{srand(); r = (L <= C ? 2 : 40) * (1 + 0.01 * rand()); "
       "printf \"{\\\"metric\\\":\\\"mean\\\",\\\"unit\\\":\\\"ms\\\",\\\"values\\\":[%%f],"
       "\\\"run_id\\\":\\\"x\\\",\\\"benchmark\\\":\\\"sim\\\",\\\"settings\\\":{}}\\n\", r}'")


def config(tmp_path: Path, capacity: str = "300", **spec: object) -> WorkbenchConfig:
    return WorkbenchConfig(spool=tmp_path / "spool", campaign="sim", template=SIM % capacity,
                           fmt="native", spec=SearchSpec(r_sat=20.0, start_load=50.0,
                                                         **spec),  # type: ignore[arg-type]
                           duration_s=1.0, node="n1")


def records(spool: Path) -> list[dict]:
    out = []
    for path in sorted(spool.glob("*.jsonl")):
        data = path.read_bytes()
        assert data.endswith(b"\n")
        out += [orjson.loads(line) for line in data.splitlines()]
    return out


def quiet(_: str) -> None:
    pass


def test_pure_helpers() -> None:
    assert substitute("x -q {load} -z {duration}s /{a}/ {b} {{awk}}", 120.0, 0.5,
                      {"a": "3"}) == "x -q 120 -z 0.5s /3/ {b} {{awk}}"
    recs = parse_output("native", b'{"metric": "mean", "values": [2, 4]}\n\n', "s")
    assert statistic_of(recs, "mean") == 3.0 and statistic_of(recs, "p99") is None
    with pytest.raises(TrialParseError):
        parse_output("native", b"not json\n", "s")


def test_step_knee_search_into_the_spool(tmp_path: Path) -> None:
    lines: list[str] = []
    outcome = run_searches(config(tmp_path), [{}], echo=lines.append, warn=quiet)
    result = outcome.samples[0].result
    assert outcome.exit_code == 0 and result is not None and result.reason == "step-knee"
    assert result.lambda_low <= 300 < result.lambda_high
    assert any(line.startswith("[sim] λ* =") for line in lines)
    assert sum("trial " in line for line in lines) == result.trials  # a line per trial
    recs = records(tmp_path / "spool")
    trials = [r for r in recs if r["attributes"]["workbench"]["kind"] == "trial"]
    assert len(trials) == result.trials
    assert all(r["settings"]["rate_rps"] == r["attributes"]["workbench"]["load"] for r in trials)
    assert {r["attributes"]["workbench"]["policy"] for r in trials} == {"binsearch"}
    done = {r["metric"]: r for r in recs if r["attributes"]["workbench"]["kind"] == "result"}
    assert done["peak_rate"]["values"] == [result.lambda_star]
    assert done["search_trials"]["values"] == [result.trials]
    assert done["search_loads"]["values"] == [result.loads_visited]
    # the same command again refuses to mix a second session into the spool
    with pytest.raises(UsageError, match="--resume"):
        run_searches(config(tmp_path), [{}], echo=quiet, warn=quiet)
    # resuming a finished search runs nothing
    again = run_searches(replace(config(tmp_path), resume=True), [{}], echo=quiet, warn=quiet)
    assert again.trials_written == 0 and again.samples[0].result == result


def test_budget_and_failures(tmp_path: Path) -> None:
    outcome = run_searches(config(tmp_path, max_loads=2), [{}], echo=quiet, warn=quiet)
    assert outcome.exit_code == 3 and outcome.samples[0].result.reason == "max-loads"
    warnings: list[str] = []
    broken = replace(config(tmp_path / "b"), template="exit 1 # {load}")
    outcome = run_searches(broken, [{}], echo=quiet, warn=warnings.append)
    result = outcome.samples[0].result
    assert result.reason == "floor" and outcome.exit_code == 3
    assert any("failed" in w for w in warnings)
    statuses = {r["status"] for r in records(tmp_path / "b" / "spool")
                if r["attributes"]["workbench"]["kind"] == "trial"}
    assert statuses == {"failed"}


def test_resume_refuses_other_options(tmp_path: Path) -> None:
    run_searches(config(tmp_path, max_loads=2), [{}], echo=quiet, warn=quiet)
    other = replace(config(tmp_path, max_loads=3), resume=True)
    with pytest.raises(UsageError, match="other options"):
        run_searches(other, [{}], echo=quiet, warn=quiet)


def test_sigterm_mid_trial_then_resume(tmp_path: Path) -> None:
    slow = replace(config(tmp_path), template="sleep 0.4; " + SIM % "300")
    timer = threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        outcome = run_searches(slow, [{}], echo=quiet, warn=quiet)
    finally:
        timer.cancel()
    assert outcome.interrupted and outcome.exit_code == 130
    before = records(tmp_path / "spool")
    assert before[-1]["status"] == "interrupted"
    resumed = run_searches(replace(slow, resume=True), [{}], echo=quiet, warn=quiet)
    assert resumed.exit_code == 0
    recs = records(tmp_path / "spool")
    assert recs[: len(before)] == before  # appended only
    trial_ids = [r["run_id"] for r in recs if r["attributes"]["workbench"]["kind"] == "trial"]
    assert len(trial_ids) == len(set(trial_ids))
    complete = [r for r in recs if r["attributes"]["workbench"]["kind"] == "trial"
                and r["status"] != "interrupted"]
    assert resumed.samples[0].result.trials == len(complete)


def test_surface_runs_every_sample_seeding_from_the_nearest(tmp_path: Path) -> None:
    cfg = config(tmp_path, capacity="{cap}")
    samples = [{"cap": "200"}, {"cap": "400"}, {"cap": "800"}]
    lines: list[str] = []
    outcome = run_searches(cfg, samples, echo=lines.append, warn=quiet)
    assert outcome.exit_code == 0
    for sample in outcome.samples:
        cap = float(sample.factors["cap"])
        assert sample.result.lambda_low <= cap < sample.result.lambda_high
    assert outcome.samples[0].seed is None
    assert outcome.samples[1].seed.load == outcome.samples[0].result.lambda_star
    assert any("seeded from the sample cap=400" in line for line in lines)
    recs = records(tmp_path / "spool")
    peak = [r for r in recs if r["metric"] == "peak_rate"]
    assert [r["settings"]["cap"] for r in peak] == [200, 400, 800]
    assert {r["settings"]["search_seeding"] for r in peak[1:]} == {"nearest"}


def test_cli_exit_codes(cli: CliRunner, tmp_path: Path) -> None:
    base = ["agent", "peak-rate", "--spool", str(tmp_path / "s"), "--campaign", "c",
            "--command", SIM % "300", "--format", "native", "--r-sat", "20", "--node", "n1"]
    done = cli(*base)
    assert done.returncode == 0, done.stderr
    assert "λ* =" in done.stdout and "cost:" in done.stdout
    short = cli(*base[:3], str(tmp_path / "t"), *base[4:], "--max-loads", "1")
    assert short.returncode == 3 and "budget ran out" in short.stderr
    bad = cli(*base[:3], str(tmp_path / "u"), *base[4:], "--command", "echo no load")
    assert bad.returncode == 1 and "{load}" in bad.stderr


def test_seed_from_a_warehouse(tmp_path: Path) -> None:
    """Section 5.4: start at the peak rate of the nearest finished search in a warehouse."""
    from perfwarehouse.ingest.service import ingest_jsonl
    from perfwarehouse.warehouse.store import Warehouse

    first = replace(config(tmp_path / "a", capacity="300"), settings=(("threads", "4"),))
    assert run_searches(first, [{}], echo=quiet, warn=quiet).exit_code == 0
    warehouse = Warehouse(tmp_path / "wh")
    ingest_jsonl(warehouse, sorted((tmp_path / "a" / "spool").glob("*.jsonl")))
    lines: list[str] = []
    second = replace(config(tmp_path / "b", capacity="330"), settings=(("threads", "5"),),
                     seed_from=tmp_path / "wh")
    outcome = run_searches(second, [{}], echo=lines.append, warn=quiet)
    seed = outcome.samples[0].seed
    assert seed is not None and seed.source is not None
    assert seed.load == run_searches(replace(first, resume=True), [{}], echo=quiet,
                                     warn=quiet).samples[0].result.lambda_star
    assert outcome.samples[0].result.loads[0].how == "seed"
    # no comparable sample (another categorical setting): the default seed
    third = replace(config(tmp_path / "c"), settings=(("engine", "x"),), seed_from=tmp_path / "wh")
    outcome = run_searches(third, [{}], echo=quiet, warn=quiet)
    assert outcome.samples[0].seed.source is None
    assert outcome.samples[0].result.loads[0].load == 50.0
