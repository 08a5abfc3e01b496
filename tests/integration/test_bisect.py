"""``perfwarehouse bisect`` end to end (issue 42's acceptance): a git repository made here
of 48 commits of a small shell program whose commit 31 makes it about 35 % slower (the
other commits change a notes file only), bisected by the real CLI in real processes.

The trials are timed by ``--metric cpu_time`` (the command's CPU seconds): the suite runs
on a machine shared with other jobs, where a 6 ms program's wall time varies by 40-60 %
between trials and a bisection by wall time needs tens of trials per revision (it is
measured in docs/bisect.md); the decisions are the same code either way.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CliRunner

pytestmark = pytest.mark.integration

COMMITS = 48
CULPRIT = 31  # 1-based: the commit that makes the program slower
FAST, SLOW = 6000, 9000  # loop iterations: about 6 ms and 8.5 ms of sh on an idle core


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def make_repository(root: Path, broken: int | None = None) -> list[str]:
    """The repository of the module docstring; ``broken``: that commit's build fails (the
    next one fixes it). The shas, oldest first (index k - 1 is commit k)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "config", "user.name", "Dev")
    shas = []
    for k in range(1, COMMITS + 1):
        n = SLOW if k >= CULPRIT else FAST
        (root / "prog.in").write_text(f"i=0; while [ $i -lt {n} ]; do i=$((i+1)); done\n")
        (root / "build.sh").write_text("echo 'syntax error' >&2; exit 1\n" if k == broken
                                       else "cp prog.in prog.sh\n")
        with open(root / "NOTES", "a") as notes:
            notes.write(f"note {k}\n")
        git(root, "add", "-A")
        stamp = f"2026-11-01T{k // 60:02d}:{k % 60:02d}:00Z"
        subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", f"commit {k}"], check=True,
                       env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp,
                            "PATH": "/usr/bin:/bin", "HOME": str(root)})
        shas.append(git(root, "rev-parse", "HEAD").strip())
    return shas


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("bisect") / "repo"
    return root, make_repository(root)


def state(repo: Path) -> tuple[str, str, str, str]:
    """HEAD, branch, status (untracked files too) and the worktrees of the user's checkout."""
    return (git(repo, "rev-parse", "HEAD"), git(repo, "symbolic-ref", "HEAD"),
            git(repo, "status", "--porcelain", "--untracked-files=all"),
            git(repo, "worktree", "list", "--porcelain"))


def bisect(cli: CliRunner, repo: Path, good: str, bad: str, *extra: str
           ) -> subprocess.CompletedProcess[str]:
    return cli("bisect", "--repo", str(repo), "--good", good, "--bad", bad,
               "--setup", "sh build.sh", "--command", "sh prog.sh", "--metric", "cpu_time",
               "--seed", "1", *extra)


def test_names_commit_31_keeps_every_trial_and_the_checkout(
        cli: CliRunner, repository: tuple[Path, list[str]], tmp_path: Path) -> None:
    repo, shas = repository
    (repo / "scratch.txt").write_text("uncommitted work\n")  # the user's files
    with open(repo / "NOTES", "a") as notes:
        notes.write("an edit in progress\n")
    before = state(repo)
    out = bisect(cli, repo, shas[0], shas[-1], "--format", "json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["culprit"] == shas[CULPRIT - 1], out.stderr
    assert 3 <= len(answer["measured"]) <= 12
    assert answer["change"]["verdict"] == "slower" and 20 < answer["change"]["change_pct"] < 60
    assert state(repo) == before  # HEAD, branch, status, no worktree left
    assert (repo / "scratch.txt").read_text() == "uncommitted work\n"

    # every trial is in the warehouse under its revision and the revision's commit time
    rows = json.loads(cli("sql", "--format", "json",
                          "SELECT revision, strftime(revision_time, '%Y-%m-%dT%H:%M:%SZ') AS t, "
                          "status, count(*) AS n FROM measurements WHERE campaign = 'bisect' "
                          "GROUP BY ALL", check=True).stdout)
    assert sum(r["n"] for r in rows) == answer["trials"]
    assert {r["revision"] for r in rows} == set(answer["measured"])
    for r in rows:
        k = shas.index(r["revision"]) + 1
        assert r["t"] == f"2026-11-01T{k // 60:02d}:{k % 60:02d}:00Z"
        assert r["status"] == "ok"
    trials = {r["sha"]: r["trials"] for r in answer["revisions"]}
    assert {r["revision"]: r["n"] for r in rows} == trials

    # compare reruns on the stored trials of the culprit and its parent
    again = cli("compare", "--campaign", "bisect", "--baseline", shas[CULPRIT - 2],
                "--contender", shas[CULPRIT - 1], "--no-save", "--format", "json", check=True)
    assert json.loads(again.stdout)["comparisons"][0]["verdict"] == "slower"


def test_a_commit_that_fails_to_build_is_skipped(cli: CliRunner, tmp_path: Path) -> None:
    repo = tmp_path / "broken"
    shas = make_repository(repo, broken=20)
    # good 1, bad 40: the first middle is commit 20 (index 19 of 0-39)
    out = bisect(cli, repo, shas[0], shas[39], "--format", "json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["culprit"] == shas[CULPRIT - 1], out.stderr
    verdicts = {r["sha"]: r["verdict"] for r in answer["revisions"]}
    assert verdicts[shas[19]] == "skip"
    assert "setup failed" in next(r["reason"] for r in answer["revisions"]
                                  if r["sha"] == shas[19])
    failed = json.loads(cli("sql", "--format", "json",
                            "SELECT revision, status FROM trials WHERE campaign = 'bisect' "
                            "AND status <> 'ok'", check=True).stdout)
    assert failed == [{"revision": shas[19], "status": "failed"}]


def test_good_equal_to_bad_is_one_line_and_exit_1(
        cli: CliRunner, repository: tuple[Path, list[str]]) -> None:
    repo, shas = repository
    out = bisect(cli, repo, shas[5], shas[5][:12])
    assert out.returncode == 1
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nothing to bisect"), out.stdout
    assert "same commit" in lines[0]


def test_ends_that_measure_alike_are_nothing_to_bisect(
        cli: CliRunner, repository: tuple[Path, list[str]]) -> None:
    repo, shas = repository
    out = bisect(cli, repo, shas[0], shas[20], "--max-trials", "20", "--min-change", "10")
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nothing to bisect"), out.stdout
    assert " % [" in lines[0]  # the interval measured


def test_errors_are_one_line(cli: CliRunner, repository: tuple[Path, list[str]],
                             tmp_path: Path) -> None:
    repo, shas = repository
    out = bisect(cli, repo, shas[-1], shas[0])
    assert out.returncode == 1 and "not an ancestor" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    out = bisect(cli, repo, "no-such-rev", shas[0])
    assert out.returncode == 1 and out.stderr.startswith("error: --good 'no-such-rev'")
    out = bisect(cli, tmp_path, "a", "b")
    assert out.returncode == 1 and "not a git repository" in out.stderr


@pytest.mark.slow
def test_by_wall_time_it_never_names_a_wrong_commit(
        cli: CliRunner, repository: tuple[Path, list[str]]) -> None:
    """The default metric on the busy machine: whatever the load, the answer is commit 31,
    a list of commits holding 31, or nothing to bisect (the load hid the change) - never
    another commit (docs/bisect.md tabulates the runs)."""
    repo, shas = repository
    out = cli("bisect", "--repo", str(repo), "--good", shas[0], "--bad", shas[-1],
              "--setup", "sh build.sh", "--command", "sh prog.sh", "--max-trials", "40",
              "--format", "json")
    if out.returncode == 1:
        assert json.loads(out.stdout)["nothing_to_bisect"].startswith("nothing to bisect")
        return
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["culprit"] in (shas[CULPRIT - 1], None)
    assert shas[CULPRIT - 1] in answer["candidates"]
    placed = {r["sha"]: r["verdict"] for r in answer["revisions"] if r["verdict"] in
              ("good", "bad")}
    for sha, verdict in placed.items():
        assert verdict == ("bad" if shas.index(sha) + 1 >= CULPRIT else "good")
