"""``perfwarehouse bisect --agent``: the measuring handed to a real collector agent
(``agent serve --measure-root``) on 127.0.0.1, the trials brought back by the pull, on the
acceptance repository of :mod:`tests.integration.test_bisect` (commit 31 about 35 %
slower), timed by ``cpu_time`` as there."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import REPO, CliRunner
from tests.integration.agent_support import perfwarehouse, write_sources, write_token
from tests.integration.test_bisect import CULPRIT, make_repository, state

pytestmark = pytest.mark.integration


@contextmanager
def measuring_agent(spool: Path, token_file: Path, *extra: str
                    ) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A real ``agent serve`` process (with ``extra`` options); its URL and process."""
    spool.mkdir(exist_ok=True)
    proc = subprocess.Popen(
        perfwarehouse("agent", "serve", "--spool", str(spool), "--port", "0",
                      "--token-file", str(token_file), *extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "http://" in line, f"agent serve did not start: {line}{proc.stderr.read()}"  # type: ignore[union-attr]
        yield "http://" + line.split("http://", 1)[1].split()[0], proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The measure root holding the acceptance repository; its shas."""
    root = tmp_path_factory.mktemp("fleet")
    return root, make_repository(root / "repo")


def bisect(cli: CliRunner, repo: Path, good: str, bad: str, *extra: str,
           command: str = "sh prog.sh") -> subprocess.CompletedProcess[str]:
    return cli("bisect", "--repo", str(repo), "--good", good, "--bad", bad,
               "--setup", "sh build.sh", "--command", command, "--metric", "cpu_time",
               "--seed", "1", *extra)


def segment_records(spool: Path) -> list[dict[str, object]]:
    return [json.loads(line) for path in sorted(spool.glob("*.jsonl"))
            for line in path.read_text().splitlines()]


def test_an_agent_measures_and_the_pull_brings_every_trial(
        cli: CliRunner, fleet: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, shas = fleet
    repo = root / "repo"
    token = tmp_path / "token"
    write_token(token)
    before = state(repo)
    with measuring_agent(tmp_path / "spool", token, "--measure-root", str(root)) as (url, _):
        sources = write_sources(tmp_path / "sources.toml", [("lab-1", url, token)])
        out = bisect(cli, repo, shas[0], shas[-1], "--agent", "lab-1", "--sources",
                     str(sources), "--format", "json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["culprit"] == shas[CULPRIT - 1], out.stderr
    assert 3 <= len(answer["measured"]) <= 12
    assert "measuring on agent lab-1" in out.stderr
    assert state(repo) == before  # the agent's checkouts were its own worktrees, removed

    # every trial the agent ran is in its spool, and the pull landed every one of them
    # under its revision and commit time, with the pull's cursors for a later pull
    records = segment_records(tmp_path / "spool")
    assert len(records) == answer["trials"]
    assert sorted(str(r["run_id"]) for r in records) == sorted(
        f"bisect-{str(records[0]['run_id']).split('-')[1]}-{k:05d}"
        for k in range(answer["trials"]))
    rows = json.loads(cli("sql", "--format", "json",
                          "SELECT revision, strftime(revision_time, '%Y-%m-%dT%H:%M:%SZ') AS t, "
                          "status, count(*) AS n FROM measurements WHERE campaign = 'bisect' "
                          "GROUP BY ALL", check=True).stdout)
    assert sum(r["n"] for r in rows) == answer["trials"]
    assert {r["revision"]: r["n"] for r in rows} == \
        {r["sha"]: r["trials"] for r in answer["revisions"]}
    for r in rows:
        k = shas.index(r["revision"]) + 1
        assert r["t"] == f"2026-11-01T{k // 60:02d}:{k % 60:02d}:00Z" and r["status"] == "ok"
    cursors = json.loads(cli("sql", "--format", "json", "SELECT agent, sum(byte_offset) AS b "
                             "FROM pull_cursors GROUP BY agent", check=True).stdout)
    assert cursors == [{"agent": "lab-1", "b": sum(
        p.stat().st_size for p in (tmp_path / "spool").glob("*.jsonl"))}]


def test_refusals_are_one_line_naming_the_revision(
        cli: CliRunner, fleet: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, shas = fleet
    token, wrong = tmp_path / "token", tmp_path / "wrong"
    write_token(token)
    write_token(wrong)
    with measuring_agent(tmp_path / "spool", token, "--measure-root", str(root)) as (url, _):
        cases = [
            (("--agent", url, "--token-file", str(wrong)), "HTTP 401, it refused the token"),
            (("--agent", url, "--token-file", str(token), "--agent-repo", str(tmp_path)),
             "HTTP 403, the repository"),
            (("--agent", url, "--token-file", str(token), "--agent-repo", "repo"),
             "HTTP 400, repo must be an absolute path"),
        ]
        for options, expected in cases:
            out = bisect(cli, root / "repo", shas[0], shas[-1], *options)
            assert out.returncode == 1, out.stdout + out.stderr
            last = out.stderr.strip().splitlines()[-1]
            assert last.startswith(f"error: agent {url} failed the checkout and setup of "
                                   f"{shas[0][:10]}: {expected}"), out.stderr
            assert "Traceback" not in out.stderr
    with measuring_agent(tmp_path / "spool2", token) as (url, _):  # no --measure-root
        out = bisect(cli, root / "repo", shas[0], shas[-1], "--agent", url, "--token-file",
                     str(token))
    assert out.returncode == 1 and "this agent does not measure" in out.stderr, out.stderr
    assert not list((tmp_path / "spool").glob("*.jsonl"))  # nothing was measured


def test_a_killed_agent_ends_the_bisection_in_one_line(
        cli: CliRunner, fleet: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, shas = tmp_path / "root", fleet[1]  # a clone: the killed agent leaves worktrees
    subprocess.run(["git", "clone", "-q", str(fleet[0] / "repo"), str(root / "repo")],
                   check=True)
    token = tmp_path / "token"
    write_token(token)
    spool = tmp_path / "spool"
    middle = shas[23]  # the first middle of good 1 .. bad 48
    with measuring_agent(spool, token, "--measure-root", str(root)) as (url, proc):
        # the agent dies (SIGKILL) during the first trial of the first middle revision
        command = (f'[ "$PERFWAREHOUSE_REVISION" = {middle} ] && kill -KILL {proc.pid}; '
                   "sh prog.sh")
        out = bisect(cli, root / "repo", shas[0], shas[-1], "--agent", url, "--token-file",
                     str(token), command=command)
        assert proc.wait(timeout=10) == -signal.SIGKILL
    assert out.returncode == 1, out.stdout + out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: agent {url} failed a trial of {middle[:10]}: no answer"), \
        out.stderr
    assert "Traceback" not in out.stderr
    assert "`perfwarehouse ingest pull` fetches them later" in out.stderr
    # nothing is lost: a new agent on the same spool serves the trials measured before
    measured = segment_records(spool)
    assert {r["revision"] for r in measured} == {shas[0], shas[-1]}
    with measuring_agent(spool, token) as (url, _):
        sources = write_sources(tmp_path / "sources.toml", [("lab-1", url, token)])
        cli("ingest", "pull", "--sources", str(sources), check=True)
    rows = json.loads(cli("sql", "--format", "json", "SELECT count(*) AS n FROM trials "
                          "WHERE campaign = 'bisect'", check=True).stdout)
    assert rows == [{"n": len(measured)}]


def test_a_commit_that_fails_to_build_on_the_agent_is_skipped(
        cli: CliRunner, tmp_path: Path) -> None:
    root = tmp_path / "root"
    shas = make_repository(root / "repo", broken=20)
    token = tmp_path / "token"
    write_token(token)
    with measuring_agent(tmp_path / "spool", token, "--measure-root", str(root)) as (url, _):
        # good 1, bad 40: the first middle is commit 20 (index 19 of 0-39)
        out = bisect(cli, root / "repo", shas[0], shas[39], "--agent", url, "--token-file",
                     str(token), "--format", "json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["culprit"] == shas[CULPRIT - 1], out.stderr
    assert {r["sha"]: r["verdict"] for r in answer["revisions"]}[shas[19]] == "skip"
    failed = json.loads(cli("sql", "--format", "json",
                            "SELECT revision, status, count(*) AS n FROM trials WHERE "
                            "campaign = 'bisect' GROUP BY ALL ORDER BY status",
                            check=True).stdout)
    assert [r for r in failed if r["status"] != "ok"] == \
        [{"revision": shas[19], "status": "failed", "n": 1}]
    assert sum(r["n"] for r in failed) == answer["trials"]
