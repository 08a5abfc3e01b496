"""``perfwarehouse bisect`` beyond the acceptance repository: a printed throughput that a
merged branch lowers (the culprit is the merge on the first-parent line), a bisection
stopped by --max-revisions, Ctrl-C (the trials so far land, the checkout stays), and the
change-point entry without change points. Quick programs (echo, sleep)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import CliRunner

pytestmark = pytest.mark.integration

ENV = {"PATH": "/usr/bin:/bin"}


CLOCK = itertools.count(1)  # each commit a minute after the one before: a time order


def git(repo: Path, *args: str, when: int = 0) -> str:
    stamp = f"2026-11-01T{10 + when // 60:02d}:{when % 60:02d}:00Z"
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env={**ENV, "HOME": str(repo), "GIT_AUTHOR_DATE": stamp,
                                          "GIT_COMMITTER_DATE": stamp}).stdout.strip()


def write_commit(repo: Path, message: str, rate: int | None = None) -> str:
    if rate is not None:  # ops/s: the rate, give or take 1 (awk's seeded noise)
        (repo / "bench.sh").write_text(
            f"awk -v s=$$ 'BEGIN {{ srand(s); printf \"ops/s: %.3f\\n\", {rate} + rand() }}'\n")
    (repo / f"{message}.txt").write_text(message + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, when=next(CLOCK))
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def merged(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main: m1 .. m4, merge of 'side' (s1 .. s3, s2 drops the rate 100 -> 70), m5 .. m7."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "dev@example.com")
    git(repo, "config", "user.name", "Dev")
    shas = {"m1": write_commit(repo, "m1", 100)}
    for k in (2, 3):
        shas[f"m{k}"] = write_commit(repo, f"m{k}")
    git(repo, "checkout", "-q", "-b", "side")
    shas["s1"] = write_commit(repo, "s1")
    shas["s2"] = write_commit(repo, "s2", 70)
    shas["s3"] = write_commit(repo, "s3")
    git(repo, "checkout", "-q", "main")
    shas["m4"] = write_commit(repo, "m4")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", when=next(CLOCK))
    shas["merge"] = git(repo, "rev-parse", "HEAD")
    for k in (5, 6, 7):
        shas[f"m{k}"] = write_commit(repo, f"m{k}")
    return repo, shas


def test_a_printed_throughput_lowered_by_a_merge(cli: CliRunner,
                                                 merged: tuple[Path, dict[str, str]]) -> None:
    repo, s = merged
    out = cli("bisect", "--repo", str(repo), "--good", s["m1"], "--bad", s["m7"],
              "--command", "sh bench.sh", "--metric", "ops", "--unit", "ops/s",
              "--higher-is-better", "--format", "json", "--campaign", "rates")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["culprit"] == s["merge"]  # first-parent: the merge, not s2
    assert not {s["s1"], s["s2"], s["s3"]} & set(answer["measured"])
    assert answer["ends"]["verdict"] == "slower" and answer["ends"]["change_pct"] < -25
    rows = json.loads(cli("sql", "--format", "json",
                          "SELECT DISTINCT metric, unit, higher_is_better FROM measurements "
                          "WHERE campaign = 'rates'", check=True).stdout)
    assert rows == [{"metric": "ops", "unit": "ops/s", "higher_is_better": True}]
    # the same series without its direction is refused before measuring, in one line
    again = cli("bisect", "--repo", str(repo), "--good", s["m1"], "--bad", s["m7"],
                "--command", "sh bench.sh", "--metric", "ops", "--unit", "ops/s",
                "--campaign", "rates")
    assert again.returncode == 1
    assert again.stderr.strip().splitlines()[-1].startswith("error: the warehouse holds "
                                                             "'sh bench.sh' / ops")
    assert "measuring" not in again.stderr


def test_max_revisions_stops_and_lists_the_commits_left(
        cli: CliRunner, merged: tuple[Path, dict[str, str]]) -> None:
    repo, s = merged
    out = cli("bisect", "--repo", str(repo), "--good", s["m1"], "--bad", s["m7"],
              "--command", "sh bench.sh", "--metric", "ops", "--higher-is-better",
              "--max-revisions", "3", "--repeat", "5")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("the culprit is one of") and "--max-revisions 3 reached" in first
    assert "3 of 8 revisions measured" in out.stdout


def test_ctrl_c_lands_the_trials_and_leaves_the_checkout(
        merged: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, s = merged
    before = git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD")
    warehouse = tmp_path / "wh"
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfwarehouse", "--warehouse", str(warehouse), "bisect",
         "--repo", str(repo), "--good", s["m1"], "--bad", s["m7"],
         "--command", "sleep 0.2; sh bench.sh", "--metric", "ops", "--higher-is-better"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ)
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until trials are running
        line = proc.stderr.readline()
        if line.startswith("measuring good"):
            break
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert (git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD")) == before
    assert git(repo, "worktree", "list").count("\n") == 0
    counted = subprocess.run(
        [sys.executable, "-m", "perfwarehouse", "--warehouse", str(warehouse), "sql",
         "--format", "json", "SELECT count(*) AS n FROM trials WHERE campaign = 'bisect'"],
        capture_output=True, text=True, check=True)
    assert json.loads(counted.stdout)[0]["n"] >= 1


def test_change_points_entry_without_change_points(cli: CliRunner, tmp_path: Path) -> None:
    cli("init", check=True)
    listed = cli("bisect", "--change-point", "list", check=True)
    assert listed.stdout.startswith("no change points")
    out = cli("bisect", "--change-point", "1")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "error: no change points in the warehouse (for this campaign and benchmark); "
        "run `perfwarehouse analyze change-points` first"]
    missing = cli("bisect", "--good", "a")
    assert missing.returncode == 1 and "bisect needs --bad, --command" in missing.stderr


@pytest.mark.slow
def test_from_a_change_point_with_the_recorded_command(
        cli: CliRunner, merged: tuple[Path, dict[str, str]]) -> None:
    """A bisection's trials, analysed by change-points, give a change point whose row
    (good, bad, series) and recorded command start the next bisection."""
    repo, s = merged
    cli("bisect", "--repo", str(repo), "--good", s["m1"], "--bad", s["m7"], "--command",
        "sh bench.sh", "--metric", "ops", "--higher-is-better", "--repeat", "6", "--seed", "2",
        check=True)
    cli("analyze", "change-points", "--campaign", "bisect", check=True)
    listed = cli("bisect", "--change-point", "list", check=True).stdout.splitlines()
    assert listed and listed[0].split()[0] == "1"
    out = cli("bisect", "--change-point", "1", "--repo", str(repo), "--good", s["m1"],
              "--format", "json")  # no --command: the one recorded on the series' trials
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["culprit"] == s["merge"]
    assert (answer["campaign"], answer["benchmark"], answer["metric"]) == (
        "bisect", "sh bench.sh", "ops")
