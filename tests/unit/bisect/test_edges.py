"""The edges of bisect without measuring: the first-parent line across a merge, the
user's checkout left alone by the worktrees, the native records it lands (through
ingest's own checks), the change point an id names, and the answers' shapes."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

from perfwarehouse.bisect import git
from perfwarehouse.bisect.measure import Trial, run_setup, run_trial
from perfwarehouse.bisect.results import Commit, Measured, Outcome
from perfwarehouse.bisect.store import ChangePoint, Series, pick_change_point, trial_record
from perfwarehouse.bisect.summary import render_text, to_json
from perfwarehouse.compare import compare_samples
from perfwarehouse.errors import UsageError
from perfwarehouse.ingest.formats import jsonl


def run(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env={"GIT_AUTHOR_DATE": "2026-11-01T10:00:00Z",
                                          "GIT_COMMITTER_DATE": "2026-11-02T10:00:00Z",
                                          "PATH": "/usr/bin:/bin", "HOME": str(repo)}).stdout


def commit(repo: Path, name: str) -> str:
    (repo / f"{name}.txt").write_text(name)
    run(repo, "add", "-A")
    run(repo, "commit", "-q", "-m", name)
    return run(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def merged(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main: a - b - M(b, s2) - c, with the side branch s1 - s2 from a."""
    repo = tmp_path / "repo"
    repo.mkdir()
    run(repo, "init", "-q", "-b", "main")
    run(repo, "config", "user.email", "dev@example.com")
    run(repo, "config", "user.name", "Dev")
    shas = {"a": commit(repo, "a")}
    run(repo, "checkout", "-q", "-b", "side")
    shas["s1"], shas["s2"] = commit(repo, "s1"), commit(repo, "s2")
    run(repo, "checkout", "-q", "main")
    shas["b"] = commit(repo, "b")
    run(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    shas["M"] = run(repo, "rev-parse", "HEAD").strip()
    shas["c"] = commit(repo, "c")
    return repo, shas


def test_the_line_is_first_parent_across_a_merge(merged: tuple[Path, dict[str, str]]) -> None:
    repo, s = merged
    line = git.first_parent_line(repo, s["a"], s["c"])
    assert [c.sha for c in line] == [s["a"], s["b"], s["M"], s["c"]]
    assert line[2].subject == "merge side"
    assert line[1].author_date == "2026-11-01T10:00:00+00:00"
    assert line[1].commit_time == "2026-11-02T10:00:00+00:00"
    with pytest.raises(UsageError, match="first-parent line"):
        git.first_parent_line(repo, s["s1"], s["c"])  # on the merged branch
    with pytest.raises(UsageError, match="not an ancestor"):
        git.first_parent_line(repo, s["c"], s["a"])
    assert git.resolve(repo, "HEAD~1", "--bad") == s["M"]
    with pytest.raises(UsageError, match="--good 'nope' is not a commit"):
        git.resolve(repo, "nope", "--good")


def test_worktrees_leave_the_checkout_and_build_in_their_own(
        merged: tuple[Path, dict[str, str]]) -> None:
    repo, s = merged
    (repo / "a.txt").write_text("edited, not committed")
    (repo / "new.txt").write_text("untracked")
    before = git.checkout_state(repo)
    assert before[1] == "main" and "new.txt" in before[2]
    trees = git.Worktrees(repo)
    try:
        path = trees.add(s["s1"])
        assert (path / "s1.txt").is_file() and not (path / "b.txt").exists()
        assert run_setup(path, "touch built", None, lambda: 0, {}) is None
        assert (path / "built").is_file() and not (repo / "built").exists()
        failed = run_setup(path, "echo broken >&2; exit 3", None, lambda: 0, {})
        assert failed == "exit code 3: broken"
        ok = run_trial(path, "cat s1.txt; echo; echo 2.5", "printed", None, lambda: 0, {})
        assert (ok.status, ok.value) == ("ok", 2.5)
        wall = run_trial(path, "true", "wall_time", None, lambda: 0, {})
        assert wall.status == "ok" and wall.value is not None and 0 < wall.value < 60
        none = run_trial(path, "echo no number", "printed", None, lambda: 0, {})
        assert none.status == "no-result" and none.value is None
    finally:
        trees.close()
    assert git.checkout_state(repo) == before
    assert run(repo, "worktree", "list").count("\n") == 1
    assert not trees.root.exists()


SERIES = Series("bisect", "sh prog.sh", "wall_time", "s", False, "node1", "node", "abcd",
                "sh prog.sh", "sh build.sh")
A = Commit("a" * 40, "commit 1", "2026-11-01T00:01:00Z", "2026-11-01T00:01:00Z")
B = Commit("b" * 40, "commit 2", "2026-11-01T00:02:00Z", "2026-11-01T00:02:00Z")


def test_trial_records_pass_ingest_checks() -> None:
    records = [trial_record(SERIES, 0, A, Trial("ok", 0.006, "2026-11-28T07:00:00.000000Z",
                                                0.006), env={"hostname": "node1"}),
               trial_record(SERIES, 1, B, Trial("failed", None, "2026-11-28T07:00:01.000000Z",
                                                0.0, "setup failed: exit code 1"))]
    table, problems = jsonl.check_records(records, "bisect test")
    assert problems == []
    rows = table.to_pylist()
    assert [r["revision"] for r in rows] == [A.sha, B.sha]
    assert [r["values"] for r in rows] == [[0.006], []]
    assert rows[0]["revision_time"].isoformat() == "2026-11-01T00:01:00+00:00"
    assert json.loads(rows[1]["attributes"])["bisect"]["detail"] == "setup failed: exit code 1"
    assert rows[0]["run_id"] != rows[1]["run_id"]


def point(i: int, revision: str) -> ChangePoint:
    return ChangePoint(i, "c", "hw", "bench", "{}", "time", "s", False, "r0", revision,
                       10.0, 5.0, 15.0, "regression")


def test_a_change_point_is_named_by_its_number_or_revision() -> None:
    points = [point(1, "abc123"), point(2, "abd456"), point(3, "ffff00")]
    assert pick_change_point(points, "2").revision == "abd456"
    assert pick_change_point(points, "ffff").id == 3
    with pytest.raises(UsageError, match="numbered 1 to 3"):
        pick_change_point(points, "4")
    with pytest.raises(UsageError, match="2 change points at that revision"):
        pick_change_point(points, "ab")
    with pytest.raises(UsageError, match="analyze change-points"):
        pick_change_point([], "1")


def test_the_answers_put_the_culprit_first() -> None:
    ends = compare_samples([1.0, 1.01, 0.99, 1.0, 1.02], [1.35, 1.36, 1.34, 1.37, 1.35])
    measured = (Measured(A, 0, "good end", 10), Measured(B, 2, "bad end", 10),
                Measured(B, 1, "bad", 5, 35.0, 33.0, 37.0, "why"))
    o = Outcome(A, B, 1, B, (B,), ends, ends, (A, B), measured, 25, "wall_time", "s",
                "bisect", "sh prog.sh")
    text = render_text(o, 0.95)
    assert text.startswith(f"culprit: {B.sha} 'commit 2' (author date {B.author_date})")
    assert "like bad" in text and "+35.0 % [+33.0, +37.0]" in text
    answer = to_json(o)
    assert answer["culprit"] == B.sha and answer["measured"] == [A.sha, B.sha]
    assert [r["verdict"] for r in answer["revisions"]] == ["good end", "bad end", "bad"]
    assert answer["change"]["verdict"] == "slower"
    assert json.loads(json.dumps(answer)) == answer
    nan = to_json(Outcome(A, B, 1, None, (A, B), ends, None, None, measured, 25, "wall_time",
                          "s", "bisect", "x", stopped="--max-revisions 3 reached"))
    assert nan["culprit"] is None and nan["candidates"] == [A.sha, B.sha]
    assert not math.isnan(nan["ends"]["change_pct"])
