"""`perfwarehouse agent run` as a real process: the OrderSage schedule, statuses,
SIGINT and --resume. The tests are small shell commands that log what ran."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.agent.schedule import run_order, run_seed
from tests.conftest import CliRunner
from tests.integration.agent_support import perfwarehouse, wait_for

pytestmark = pytest.mark.integration


def _tests_file(tmp_path: Path, log: Path, n: int = 5, sleep: float = 0.0) -> tuple[Path, list[str]]:
    """n tests; test i logs its name and prints 'result: <10 + i>.5 ms' (last number = value)."""
    pause = f"sleep {sleep}; " if sleep else ""
    tests = [f"{pause}echo t{i} >> {log}; echo 'run 7 of t{i}: {10 + i}.5 ms'" for i in range(n)]
    path = tmp_path / "tests.txt"
    path.write_text("# baseline order\n\n" + "\n".join(tests) + "\n")
    return path, tests


def _records(spool: Path) -> list[dict[str, Any]]:
    records = []
    for segment in sorted(spool.glob("*.jsonl")):
        data = segment.read_bytes()
        assert data.endswith(b"\n"), f"{segment.name} ends with a half line"
        records += [json.loads(line) for line in data.splitlines()]
    return records


def _runs(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        runs[record["run_id"]].append(record)
    return dict(runs)


@pytest.mark.slow
def test_five_tests_four_fixed_four_random_runs(tmp_path: Path, cli: CliRunner) -> None:
    log = tmp_path / "executed.log"
    tests_file, tests = _tests_file(tmp_path, log)
    spool = tmp_path / "spool"
    result = cli("agent", "run", "--spool", str(spool), "--campaign", "c1", "--tests",
                 str(tests_file), "--runs", "4", "--reset", f"echo reset >> {log}", "--seed", "1234",
                 "--node", "c220g2-010627.wisc.cloudlab.us")
    assert result.returncode == 0, result.stderr
    records = _records(spool)
    assert len(records) == 40
    runs = _runs(records)
    assert len(runs) == 8
    by_index = {trials[0]["run_index"]: trials for trials in runs.values()}
    assert sorted(by_index) == list(range(8))

    executed = log.read_text().split()
    expected_log: list[str] = []
    random_orders = []
    for index in range(8):
        trials = sorted(by_index[index], key=lambda r: r["position"])
        kind = "fixed" if index % 2 == 0 else "random"
        assert [r["position"] for r in trials] == list(range(5))
        assert {r["order_kind"] for r in trials} == {kind}
        assert {r["seed"] for r in trials} == {str(run_seed(1234, index))}
        order = [r["benchmark"] for r in trials]
        if kind == "fixed":
            assert order == tests
        else:
            assert sorted(order) == sorted(tests)
            # reproducible from the recorded seed alone
            assert order == [tests[i] for i in run_order(5, "random", int(trials[0]["seed"]))]
            random_orders.append(order)
        for r in trials:
            i = tests.index(r["benchmark"])
            assert r["status"] == "ok" and r["values"] == [10 + i + 0.5]
            assert r["run_size"] == 5 and r["settings"] == {} and r["metric"] == "result"
            assert r["campaign"] == "c1" and r["v"] == 1
            assert r["node"] == "c220g2-010627.wisc.cloudlab.us" and r["hardware_type"] == "c220g2"
            assert ("env" in r) == (r["position"] == 0)
        env = trials[0]["env"]
        assert {"hostname", "cpu_model", "memory", "kernel"} <= set(env)
        assert env["perfwarehouse_agent"]["seed"] == 1234
        # what ran, in which order: a reset, then the run's tests in its recorded order
        expected_log += ["reset"] + [f"t{tests.index(b)}" for b in order]
    assert executed == expected_log
    assert any(order != tests for order in random_orders)
    assert len({tuple(o) for o in random_orders}) > 1  # freshly shuffled per run

    # the spool is valid native input for the warehouse
    ingested = cli("ingest", "jsonl", *map(str, sorted(spool.glob("*.jsonl"))))
    assert ingested.returncode == 0, ingested.stderr
    assert "ingested 40 trials" in ingested.stdout


def test_failing_tests_are_recorded_with_their_status(tmp_path: Path, cli: CliRunner) -> None:
    tests = ["echo 1.25", "echo 7; exit 3", "echo no number", "sleep 30; echo 9"]
    tests_file = tmp_path / "tests.txt"
    tests_file.write_text("\n".join(tests) + "\n")
    spool = tmp_path / "spool"
    started = time.monotonic()
    result = cli("agent", "run", "--spool", str(spool), "--campaign", "f", "--tests",
                 str(tests_file), "--runs", "1", "--reset", "true", "--seed", "5",
                 "--timeout", "0.5")
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 25  # the sleeping test was stopped, twice
    records = _records(spool)
    assert len(records) == 8
    status = {(r["run_index"], r["benchmark"]): (r["status"], r["values"]) for r in records}
    for run_index in (0, 1):
        assert status[(run_index, tests[0])] == ("ok", [1.25])
        assert status[(run_index, tests[1])] == ("failed", [])
        assert status[(run_index, tests[2])] == ("no-result", [])
        assert status[(run_index, tests[3])] == ("timeout", [])
    assert "exit code 3" in result.stderr
    ingested = cli("ingest", "jsonl", *map(str, sorted(spool.glob("*.jsonl"))))
    assert ingested.returncode == 0, ingested.stderr
    assert "ingested 8 trials (2 values)" in ingested.stdout


@pytest.mark.slow
def test_sigint_leaves_a_consistent_spool_and_resume_completes_the_schedule(
        tmp_path: Path, cli: CliRunner) -> None:
    log = tmp_path / "executed.log"
    tests_file, tests = _tests_file(tmp_path, log, n=3, sleep=0.3)
    spool = tmp_path / "spool"
    args = ["agent", "run", "--spool", str(spool), "--campaign", "resumed", "--tests",
            str(tests_file), "--runs", "2", "--reset", f"echo reset >> {log}", "--seed", "99",
            "--node", "n-1"]
    proc = subprocess.Popen(perfwarehouse(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)

    def lines() -> int:
        return sum(seg.read_bytes().count(b"\n") for seg in spool.glob("*.jsonl"))

    wait_for(lambda: lines() >= 4, timeout=60)  # in the second run, a test is sleeping
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    interrupted = _records(spool)  # whole lines only
    assert 4 <= len(interrupted) < 12
    assert interrupted[-1]["status"] in ("interrupted", "ok")

    # without --resume the spool is not silently extended; with another seed it is refused
    again = cli(*args)
    assert again.returncode == 1 and "--resume" in again.stderr
    other_seed = cli(*[a if a != "99" else "98" for a in args], "--resume")
    assert other_seed.returncode == 1 and "seed" in other_seed.stderr

    resumed = cli(*args, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    records = _records(spool)
    runs = _runs(records)
    complete = defaultdict(list)
    for run_id, trials in runs.items():
        ok = len(trials) == 3 and all(t["status"] == "ok" for t in trials)
        if ok:
            complete[trials[0]["run_index"]].append(run_id)
        else:  # the interrupted run stays as it was, marked, never continued
            assert len(trials) < 3 or any(t["status"] == "interrupted" for t in trials)
            assert [t["position"] for t in trials] == list(range(len(trials)))
    assert {k: len(v) for k, v in complete.items()} == {0: 1, 1: 1, 2: 1, 3: 1}
    assert len(runs) == 5  # four complete runs and the interrupted one
    retried = [run_id for ids in complete.values() for run_id in ids if run_id.endswith(".2")]
    assert len(retried) == 1
    for run_id in complete.values():
        trials = runs[run_id[0]]
        if trials[0]["order_kind"] == "fixed":
            assert [t["benchmark"] for t in sorted(trials, key=lambda t: t["position"])] == tests
    # every run started with a reset: five runs, five resets
    assert log.read_text().split().count("reset") == 5
    assert len({seg.name for seg in spool.glob("*.jsonl")}) == 2  # one segment per invocation

    # resuming a finished schedule does nothing
    done = cli(*args, "--resume")
    assert done.returncode == 0 and "nothing to do" in done.stdout
    assert len(_records(spool)) == len(records)
    ingested = cli("ingest", "jsonl", *map(str, sorted(spool.glob("*.jsonl"))))
    assert ingested.returncode == 0, ingested.stderr
