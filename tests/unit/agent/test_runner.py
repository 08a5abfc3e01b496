"""`run_agent` in-process (real shell commands): resume bookkeeping and crash leftovers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.agent.runner import AgentConfig, default_hardware_type, run_agent
from perfwarehouse.agent.spool import own_segments
from perfwarehouse.errors import UsageError


def _config(tmp_path: Path, **changes: object) -> AgentConfig:
    tests = tmp_path / "tests.txt"
    if not tests.exists():
        tests.write_text("echo 1\necho 2\necho 3\n")
    values = dict(spool=tmp_path / "spool", campaign="c", tests_file=tests, runs=2, reset="true",
                  seed=8, node="host-1")
    values.update(changes)
    return AgentConfig(**values)  # type: ignore[arg-type]


def _lines(spool: Path) -> list[dict[str, object]]:
    return [json.loads(line) for seg in sorted(spool.glob("*.jsonl"))
            for line in seg.read_bytes().splitlines()]


def _quiet(_line: str) -> None:
    pass


def test_resume_reruns_a_run_cut_short_by_a_crash_and_repairs_a_torn_tail(tmp_path: Path) -> None:
    config = _config(tmp_path)
    first = run_agent(config, echo=_quiet, warn=_quiet)
    assert first.runs_completed == 4 and first.trials_written == 12
    # simulate a crash (power loss) in run 4: its last trial and a torn line
    segment = own_segments(config.spool, "c", "host-1")[0].path
    lines = segment.read_bytes().splitlines(keepends=True)
    segment.write_bytes(b"".join(lines[:-1]) + lines[-1][:20])
    warnings: list[str] = []
    resumed = run_agent(_config(tmp_path, resume=True), echo=_quiet, warn=warnings.append)
    assert any("unterminated last line" in w for w in warnings)
    assert resumed.slots_already_done == 3 and resumed.runs_completed == 1
    records = _lines(config.spool)
    assert len(records) == 11 + 3
    runs = {r["run_id"] for r in records if r["run_index"] == 3}
    assert len(runs) == 2 and any(str(r).endswith(".2") for r in runs)

    # more runs later: --resume with a larger --runs adds the missing slots only
    more = run_agent(_config(tmp_path, resume=True, runs=3), echo=_quiet, warn=_quiet)
    assert more.slots_already_done == 4 and more.runs_completed == 2
    assert sorted({r["run_index"] for r in _lines(config.spool)}) == list(range(6))


def test_resume_refuses_another_test_list_or_hardware_type(tmp_path: Path) -> None:
    run_agent(_config(tmp_path, runs=1), echo=_quiet, warn=_quiet)
    other = tmp_path / "other.txt"
    other.write_text("echo 1\necho 2\n")
    with pytest.raises(UsageError, match="another test list"):
        run_agent(_config(tmp_path, tests_file=other, resume=True), echo=_quiet, warn=_quiet)
    with pytest.raises(UsageError, match="--hardware-type host"):
        run_agent(_config(tmp_path, hardware_type="big", resume=True), echo=_quiet, warn=_quiet)


def test_resume_of_an_empty_spool_starts_afresh(tmp_path: Path) -> None:
    result = run_agent(_config(tmp_path, resume=True, runs=1), echo=_quiet, warn=_quiet)
    assert result.runs_completed == 2 and result.slots_already_done == 0


def test_a_failing_reset_stops_before_the_run(tmp_path: Path) -> None:
    from perfwarehouse.agent.runner import ResetFailed

    with pytest.raises(ResetFailed, match="exit code 4"):
        run_agent(_config(tmp_path, reset="exit 4"), echo=_quiet, warn=_quiet)
    assert _lines(tmp_path / "spool") == []


@pytest.mark.parametrize("node, given, expected", [
    ("c220g2-010627.wisc.cloudlab.us", None, "c220g2"), ("m510-12", None, "m510"),
    ("hp133.utah.cloudlab.us", None, "xl170"), ("laptop", None, "laptop"),
    ("c220g2-010627", "custom", "custom"),
])
def test_default_hardware_type_follows_the_ingest_rule(node: str, given: str | None,
                                                       expected: str) -> None:
    assert default_hardware_type(node, given) == expected


def test_revision_is_recorded_on_every_trial_and_checked(tmp_path: Path) -> None:
    config = _config(tmp_path, runs=1, revision="v1.2.3", revision_time="2024-05-01T10:00:00Z")
    run_agent(config, echo=_quiet, warn=_quiet)
    records = _lines(config.spool)
    assert {(r["revision"], r["revision_time"]) for r in records} == {
        ("v1.2.3", "2024-05-01T10:00:00Z")}
    with pytest.raises(UsageError, match="not an RFC 3339 time"):
        run_agent(_config(tmp_path, spool=tmp_path / "s2", revision_time="May 1st"), echo=_quiet, warn=_quiet)
