"""``perfwarehouse refresh`` on a small nightly history over revisions (real processes, a
real warehouse): a step planted at a new revision is the one new regression; a refresh
killed (SIGKILL) at any step is redone by the next, which says the same "new" list;
--notify posts to a real HTTP server on loopback."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.generate.revisions import revision_records
from tests.trial_logs import write

STEPPED = 2  # bench002 gets 15 % slower from the first revision of the second night
FIRST_NEW = 10  # revisions r000..r009 land first, r010..r013 later
JOBS = ("--job", "change-points", "--job", "trends", "--processes", "1")


def _nights(tmp: Path) -> tuple[Path, Path]:
    recs = revision_records(campaign="nightly", benchmarks=8, revisions=14, trials=3,
                            noise=0.01, slowdowns={STEPPED: [(FIRST_NEW, 0.15)]}, seed=3)
    old = [r for r in recs if int(r["revision"][1:]) < FIRST_NEW]
    new = [r for r in recs if int(r["revision"][1:]) >= FIRST_NEW]
    return write(tmp / "old.jsonl", old), write(tmp / "new.jsonl", new)


def _run(home: Path, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "perfwarehouse", "--warehouse",
                           str(home / "warehouse"), *args], capture_output=True, text=True,
                          cwd=home, timeout=300, env={**os.environ, **(env or {})})


def _refresh(home: Path, *args: str, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    return _run(home, "refresh", *JOBS, "--format", "json", *args, env=env)


def _new(out: subprocess.CompletedProcess[str]) -> list[tuple[str, str, str]]:
    return [(f["kind"], f["benchmark"], f["revision"] or "")
            for f in json.loads(out.stdout)["new"]]


@pytest.fixture(scope="module")
def first_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse after the first night and its first refresh (no step yet), with the
    second night's file beside it."""
    home = tmp_path_factory.mktemp("nightly")
    old, _new_file = _nights(home)
    assert _run(home, "ingest", "jsonl", str(old)).returncode == 0
    first = _refresh(home, "--fail-on", "new-regression")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["since"] == "the start (first refresh)"
    assert not [f for f in _new(first) if f[0] == "regression"]
    assert (home / "reports" / "index.html").is_file()
    return home


def _copy(first_night: Path, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(first_night, home)
    assert _run(home, "ingest", "jsonl", str(home / "new.jsonl")).returncode == 0
    return home


@pytest.fixture(scope="module")
def uninterrupted(first_night: Path, tmp_path_factory: pytest.TempPathFactory
                  ) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The second night's refresh, not interrupted (with --fail-on new-regression)."""
    home = _copy(first_night, tmp_path_factory.mktemp("twin"))
    return home, _refresh(home, "--fail-on", "new-regression")


def test_second_night_names_the_planted_regression_and_gates(
        uninterrupted: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    home, second = uninterrupted
    assert second.returncode == 3, second.stderr
    report = json.loads(second.stdout)
    regressions = [f for f in report["new"] if f["kind"] == "regression"]
    assert [f["benchmark"] for f in regressions] == [f"bench{STEPPED:03d}"]
    hit = regressions[0]
    assert hit["campaign"] == "nightly" and hit["hardware_type"] == "c220g2"
    assert 10 < hit["change_pct"] < 20  # planted: +15 %
    assert int(hit["revision"][1:]) in (FIRST_NEW - 1, FIRST_NEW)  # within one position
    assert hit["link"] == "nightly/history.html"
    assert (home / "reports" / hit["link"]).is_file()
    assert [r["job"] for r in report["ran"]] == ["trends", "change-points"]
    # the site's new.html says it, and the index links it
    page = (home / "reports" / "new.html").read_text()
    assert "(refresh 2) found 1 regression" in page and "nightly/history.html" in page
    assert 'href="new.html"' in (home / "reports" / "index.html").read_text()
    # nothing new since: the third refresh runs nothing and finds nothing
    third = _refresh(home, "--fail-on", "new-regression")
    assert third.returncode == 0, third.stderr
    assert json.loads(third.stdout)["new"] == [] and json.loads(third.stdout)["ran"] == []
    # --since a time before every analysis: everything found counts as new again (in the
    # text and the Markdown reports)
    text = _run(home, "refresh", *JOBS, "--since", "2000-01-01", "--no-site")
    assert text.returncode == 0 and text.stdout.startswith("new since 2000-01-01")
    assert f"bench{STEPPED:03d} on nightly / c220g2: +" in text.stdout
    md = _run(home, "refresh", *JOBS, "--since", "2000-01-01", "--no-site", "--format", "markdown",
              "--site-url", "https://perf.example/")
    assert md.stdout.startswith("**new since")
    assert "[page](https://perf.example/nightly/history.html)" in md.stdout
    rows = _run(home, "sql", "SELECT count(*), max(len(job_run_ids)) FROM refreshes",
                "--format", "csv")
    assert rows.stdout.splitlines()[1] == "5,2"


def test_a_killed_refresh_is_redone_with_the_same_new_list(
        first_night: Path, tmp_path: Path,
        uninterrupted: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    home = _copy(first_night, tmp_path)
    # killed after its analyses (rerun from the first night's runs), then after its pages,
    # then just before its point
    for kill_at in ("refresh-analysed", "refresh-site-written", "refresh-before-point"):
        killed = _refresh(home, env={"PERFWAREHOUSE_KILL_AT": kill_at})
        assert killed.returncode == -signal.SIGKILL, (kill_at, killed.stderr)
    after = _refresh(home, "--fail-on", "new-regression")
    assert after.returncode == 3, after.stderr
    twin, second = uninterrupted
    expected = _new(second)
    assert _new(after) == expected
    assert ("regression", f"bench{STEPPED:03d}") in [f[:2] for f in expected]
    page = Path("reports") / "nightly" / "index.html"
    assert (home / page).read_text() == (twin / page).read_text()
    rows = _run(home, "sql", "SELECT count(*) FROM refreshes", "--format", "csv")
    assert rows.stdout.splitlines()[1] == "2"  # the killed ones left no point
    # the same tables as the uninterrupted refresh (both reran from the first night's runs)
    for table in ("change_points", "trends"):
        query = f"SELECT * EXCLUDE (job_run_id) FROM {table} ORDER BY ALL"
        mine, theirs = (_run(h, "sql", query, "--format", "csv") for h in (home, twin))
        assert mine.returncode == 0 and mine.stdout.count("\n") > 8, mine.stderr
        assert mine.stdout == theirs.stdout, table


class _Hook(BaseHTTPRequestHandler):
    """A webhook that fails its first ``fail`` posts with HTTP 503, then accepts."""

    received: list[dict[str, Any]] = []
    fail = 1

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if type(self).fail > 0:
            type(self).fail -= 1
            self.send_response(503)
        else:
            type(self).received.append(json.loads(body))
            self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def hook() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    _Hook.received, _Hook.fail = [], 1
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()


def test_refresh_pulls_from_the_configured_agents_and_notifies(
        tmp_path: Path, hook: str) -> None:
    """ingest/sources.toml in the working directory: each refresh pulls what the agent's
    spool gained (a real `agent serve`), then analyses it, and posts the summary to a
    webhook (a real HTTP server on loopback that fails its first post)."""
    from tests.integration.agent_support import agent_server, write_sources, write_token

    home = tmp_path
    old, new = _nights(home)
    spool = home / "spool"
    spool.mkdir()
    segment = spool / "nightly-0001.jsonl"
    segment.write_text(old.read_text())
    token = home / "agent.token"
    write_token(token)
    with agent_server(spool, token) as url:
        (home / "ingest").mkdir()
        write_sources(home / "ingest" / "sources.toml", [("lab", url, token)])
        cp = ("--job", "change-points", "--processes", "1", "--no-site", "--format", "json")
        first = _run(home, "refresh", *cp)
        assert first.returncode == 0, first.stderr
        assert "pull: agent lab: 1 segment(s), 240 trials added" in first.stderr
        with segment.open("a") as spooled:  # the second night lands on the agent
            spooled.write(new.read_text())
        second = _run(home, "refresh", *cp, "--fail-on", "new-regression", "--notify", hook,
                      "--site-url", "https://perf.example")
        assert second.returncode == 3, second.stderr
        assert "96 trials added" in second.stderr
        assert [f["benchmark"] for f in json.loads(second.stdout)["new"]
                if f["kind"] == "regression"] == [f"bench{STEPPED:03d}"]
    assert len(_Hook.received) == 1  # the 503 was retried
    posted = _Hook.received[0]
    assert posted["text"].startswith("new since the refresh of ")
    assert f"bench{STEPPED:03d}" in posted["text"]
    assert posted["new"][0]["kind"] == "regression"
    assert posted["new"][0]["link"] == "https://perf.example/nightly/history.html"
    # the agent is gone: the pull's problem is an error (exit 1); nobody listens to the
    # hook: a warning; the refresh is recorded all the same
    dead = hook.rsplit(":", 1)[0] + ":9/hook"
    gone = _run(home, "refresh", *cp, "--pull-retries", "0", "--notify", dead,
                "--notify-retries", "0")
    assert gone.returncode == 1
    assert "agent lab" in gone.stderr and "the refresh is recorded" in gone.stderr
    assert f"warning: the post to {dead} failed" in gone.stderr
    rows = _run(home, "sql", "SELECT count(*) FROM refreshes", "--format", "csv")
    assert rows.stdout.splitlines()[1] == "3"


def test_user_errors_are_one_line_and_create_nothing(tmp_path: Path) -> None:
    missing = _run(tmp_path, "refresh")
    assert missing.returncode == 1
    assert missing.stderr.splitlines()[-1].startswith("error: no warehouse at ")
    assert not (tmp_path / "warehouse").exists() and not (tmp_path / "reports").exists()
    unknown = _run(tmp_path, "refresh", "--job", "nope")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("error: --job: unknown job 'nope'; known: order-effects")
    assert _run(tmp_path, "refresh", "--format", "yaml").returncode == 2
