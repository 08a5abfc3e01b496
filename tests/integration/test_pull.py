"""`perfwarehouse ingest pull` against real `agent serve` processes on loopback.

Exactly once under SIGKILL, appended and half-written lines, changed and truncated
segments, wrong tokens, retries, per-agent isolation.
"""

from __future__ import annotations

import random
import re
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import CliRunner
from tests.integration.agent_support import (
    agent_server,
    expected_totals,
    free_port,
    perfwarehouse,
    warehouse_totals,
    write_sources,
    write_token,
    write_trials,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def spool(tmp_path: Path) -> Path:
    path = tmp_path / "spool"
    path.mkdir()
    return path


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "agent.token"
    write_token(path)
    return path


def _cursor(home: Path, segment: str) -> int | None:
    with Warehouse(home, lock_timeout_s=60).catalog() as con:
        rows = con.execute("SELECT byte_offset FROM pull_cursors WHERE segment = ?",
                           [segment]).fetchall()
    return rows[0][0] if rows else None


def _orphan_files(home: Path) -> set[str]:
    """Parquet files in the data directory that the catalog does not record."""
    with Warehouse(home, lock_timeout_s=60).catalog() as con:
        known = {r[0] for r in con.execute("SELECT path FROM data_files").fetchall()}
    on_disk = {str(p.relative_to(home)) for p in (home / "measurements").rglob("*.parquet")}
    return on_disk - known


@pytest.mark.slow
def test_sigkilled_pulls_then_a_full_one_ingest_every_trial_exactly_once(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    segment = spool / "big-0001.jsonl"
    write_trials(segment, 300_000)
    n, total = expected_totals(segment)
    assert n == 300_000
    home = tmp_path / "warehouse"
    with agent_server(spool, token_file) as url:
        sources = write_sources(tmp_path / "sources.toml", [("worker", url, token_file)])
        command = perfwarehouse("--warehouse", str(home), "ingest", "pull", "--sources",
                                str(sources), "--chunk-mb", "4", "-v")

        # 1: killed (SIGKILL) right after its second chunk landed, while it works on the third
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed = {str(proc.pid)}
        assert proc.stdout is not None
        landed = 0
        for line in proc.stdout:
            landed += "landed" in line
            if landed == 2:
                proc.kill()
                break
        proc.wait(timeout=60)
        trials, distinct, _ = warehouse_totals(home)
        assert 2 * 10_000 < trials < n and trials == distinct

        # 2: killed at a random moment (anywhere: fetching, parsing, writing, committing)
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        killed.add(str(proc.pid))
        time.sleep(random.uniform(0.5, 2.5))
        proc.kill()
        proc.wait(timeout=60)
        trials_2, distinct_2, _ = warehouse_totals(home)
        assert trials <= trials_2 <= n and trials_2 == distinct_2

        # 3: runs to the end
        done = cli("ingest", "pull", "--sources", str(sources), "--chunk-mb", "4", warehouse=home)
        assert done.returncode == 0, done.stderr
        assert f"{n - trials_2:,} trials added" in done.stdout
        trials_3, distinct_3, value_sum = warehouse_totals(home)
        assert (trials_3, distinct_3) == (n, n)
        assert value_sum == pytest.approx(total, rel=1e-12)
        assert _cursor(home, segment.name) == segment.stat().st_size
        assert _orphan_files(home) == set()
        # the killed pulls' chunk directories are gone too
        assert not [p for p in Path(tempfile.gettempdir()).glob("perfwarehouse-pull-*")
                    if p.name.split("-")[2] in killed]

        again = cli("ingest", "pull", "--sources", str(sources), warehouse=home)
        assert again.returncode == 0 and "0 trials added" in again.stdout
    assert warehouse_totals(home)[:2] == (n, n)


@pytest.mark.slow
def test_two_pulls_at_once_do_not_duplicate(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    segment = spool / "seg-0001.jsonl"
    write_trials(segment, 20_000)
    home = tmp_path / "warehouse"
    with agent_server(spool, token_file) as url:
        sources = str(write_sources(tmp_path / "sources.toml", [("w", url, token_file)]))
        command = perfwarehouse("--warehouse", str(home), "ingest", "pull", "--sources", sources,
                                "--chunk-mb", "0.5")
        procs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        outcomes = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read())  # type: ignore[union-attr]
                    for p in procs]
        for code, _out, err in outcomes:  # a pull that lost a race says so, and lands nothing
            assert code == 0 or "another pull moved the cursor" in err, err
        final = cli("ingest", "pull", "--sources", sources, warehouse=home)
        assert final.returncode == 0, final.stderr
    assert warehouse_totals(home)[:2] == (20_000, 20_000)
    assert _cursor(home, segment.name) == segment.stat().st_size


@pytest.mark.slow
def test_appended_and_half_written_lines_are_ingested_once(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    segment = spool / "seg-0001.jsonl"
    write_trials(segment, 2_000)
    home = tmp_path / "warehouse"
    with agent_server(spool, token_file) as url:
        sources = str(write_sources(tmp_path / "sources.toml", [("w", url, token_file)]))

        def pull() -> tuple[str, int, int]:
            # tiny chunks: runs (50 trials) are split across chunks and transactions
            result = cli("ingest", "pull", "--sources", sources, "--chunk-mb", "0.05",
                         warehouse=home)
            assert result.returncode == 0, result.stderr
            trials, distinct, _ = warehouse_totals(home)
            assert trials == distinct
            return result.stdout, trials, distinct

        assert pull()[1] == 2_000
        write_trials(segment, 500, first_run=40, append=True)
        assert pull()[1] == 2_500

        write_trials(tmp_path / "one.jsonl", 1, first_run=50)
        line = (tmp_path / "one.jsonl").read_bytes()
        assert line.endswith(b"\n")
        with open(segment, "ab") as f:
            f.write(line[:len(line) // 2])
        out, trials, _ = pull()
        assert trials == 2_500
        assert "unfinished last line" in out
        assert _cursor(home, segment.name) == segment.stat().st_size - len(line) // 2

        with open(segment, "ab") as f:
            f.write(line[len(line) // 2:])
        assert pull()[1] == 2_501
        assert pull()[1] == 2_501
        assert _cursor(home, segment.name) == segment.stat().st_size
        n, total = expected_totals(segment)
        assert warehouse_totals(home) == (n, n, pytest.approx(total, rel=1e-12))


@pytest.mark.slow
def test_truncated_or_rewritten_segments_are_reported_and_never_ingested_again(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    changing = spool / "a-0001.jsonl"
    steady = spool / "b-0001.jsonl"
    write_trials(changing, 1_000, campaign="alpha")
    write_trials(steady, 300, campaign="beta")
    home = tmp_path / "warehouse"
    with agent_server(spool, token_file) as url:
        sources = str(write_sources(tmp_path / "sources.toml", [("w", url, token_file)]))
        first = cli("ingest", "pull", "--sources", sources, warehouse=home)
        assert first.returncode == 0, first.stderr
        assert warehouse_totals(home)[0] == 1_300
        size = changing.stat().st_size

        # rewritten in place, same size, other content: the last ingested line differs
        write_trials(changing, 1_000, campaign="gamma")
        assert changing.stat().st_size == size
        write_trials(steady, 100, first_run=100, campaign="beta", append=True)
        changed = cli("ingest", "pull", "--sources", sources, warehouse=home)
        assert changed.returncode == 1
        assert f"segment {changing.name}: changed" in changed.stderr
        assert warehouse_totals(home)[0] == 1_400  # the other segment still moved on
        assert _cursor(home, changing.name) == size

        # truncated: shorter than what was ingested
        with open(changing, "r+b") as f:
            f.truncate(size // 2)
        truncated = cli("ingest", "pull", "--sources", sources, warehouse=home)
        assert truncated.returncode == 1
        assert f"segment {changing.name}: truncated" in truncated.stderr
        # and then grown back past the cursor with other content: still detected
        write_trials(changing, 1_200, campaign="gamma")
        regrown = cli("ingest", "pull", "--sources", sources, warehouse=home)
        assert regrown.returncode == 1 and "changed" in regrown.stderr
        assert _cursor(home, changing.name) == size
        with Warehouse(home).catalog() as con:
            campaigns = con.execute("SELECT campaign, count(*) FROM trials GROUP BY 1 "
                                    "ORDER BY 1").fetchall()
        assert campaigns == [("alpha", 1_000), ("beta", 400)]


def test_a_wrong_token_gets_nothing_and_lands_nothing(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    write_trials(spool / "s-0001.jsonl", 100)
    wrong = tmp_path / "wrong.token"
    write_token(wrong)
    home = tmp_path / "warehouse"
    with agent_server(spool, token_file) as url:
        sources = str(write_sources(tmp_path / "sources.toml", [("w", url, wrong)]))
        result = cli("ingest", "pull", "--sources", sources, warehouse=home)
    assert result.returncode == 1
    assert "refused the token" in result.stderr and "HTTP 401" in result.stderr
    assert warehouse_totals(home) == (0, 0, 0.0)


@pytest.mark.slow
def test_transient_errors_are_retried_with_backoff(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    write_trials(spool / "s-0001.jsonl", 100)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    sources = str(write_sources(tmp_path / "sources.toml", [("late", url, token_file)]))
    home = tmp_path / "warehouse"

    # nothing listens: bounded retries, then a clear failure
    started = time.monotonic()
    down = cli("ingest", "pull", "--sources", sources, "--retries", "2", warehouse=home)
    assert down.returncode == 1
    assert "agent late: failed" in down.stderr and "gave up after 3 attempts" in down.stderr
    assert time.monotonic() - started >= 0.5 + 1.0  # the backoff really waited

    # the agent comes up while the pull is retrying: it succeeds
    proc = subprocess.Popen(
        perfwarehouse("--warehouse", str(home), "ingest", "pull", "--sources", sources,
                      "--retries", "6"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    with agent_server(spool, token_file, port=port):
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "100 trials added" in out
    assert warehouse_totals(home)[0] == 100


def test_one_failing_agent_does_not_stop_the_others(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    write_trials(spool / "trials-2025-05-01T02:00:00+00:00.jsonl", 200)  # any plain name
    home = tmp_path / "warehouse"
    with agent_server(spool, token_file) as url:
        sources = str(write_sources(tmp_path / "sources.toml", [
            ("gone", f"http://127.0.0.1:{free_port()}", token_file), ("up", url, token_file)]))
        result = cli("ingest", "pull", "--sources", sources, "--retries", "0", warehouse=home)
    assert result.returncode == 1
    assert "agent gone: failed" in result.stderr
    assert "agent up: 1 segment(s), 200 trials added" in result.stdout
    assert warehouse_totals(home)[0] == 200


@pytest.mark.slow
def test_a_bad_line_from_another_producer_is_named_and_blocks_only_its_segment(
        tmp_path: Path, spool: Path, token_file: Path, cli: CliRunner) -> None:
    bad = spool / "other-0001.jsonl"
    write_trials(bad, 120)
    lines = bad.read_bytes().split(b"\n")
    lines[99] = re.sub(rb'"values":\[[^]]*\]', b'"values":[NaN]', lines[99])
    bad.write_bytes(b"\n".join(lines))
    write_trials(spool / "good-0001.jsonl", 50, campaign="good")
    home = tmp_path / "warehouse"
    with agent_server(spool, token_file) as url:
        sources = str(write_sources(tmp_path / "sources.toml", [("w", url, token_file)]))
        # chunks of ~5 KB: the bad line (line 100) is in a later chunk than the first
        refused = cli("ingest", "pull", "--sources", sources, "--chunk-mb", "0.005",
                      warehouse=home)
        assert refused.returncode == 1
        assert f"w:{bad.name}:100: [non-finite]" in refused.stderr
        with Warehouse(home).catalog() as con:
            by_campaign = dict(con.execute("SELECT campaign, count(*) FROM trials "
                                           "GROUP BY 1").fetchall())
        assert by_campaign["good"] == 50
        assert 0 < by_campaign["pulled"] < 100  # the chunks before the bad line landed

        kept = cli("ingest", "pull", "--sources", sources, "--quarantine", warehouse=home)
        assert kept.returncode == 0, kept.stderr
        with Warehouse(home).catalog() as con:
            pulled = con.execute("SELECT count(*) FROM trials WHERE campaign = 'pulled'"
                                 ).fetchall()[0][0]
            quarantined = con.execute("SELECT source, line, rule FROM quarantine").fetchall()
        assert pulled == 119
        assert quarantined == [(f"w:{bad.name}", 100, "non-finite")]


def test_missing_sources_file_is_a_one_line_error(tmp_path: Path, cli: CliRunner) -> None:
    result = cli("ingest", "pull", "--sources", str(tmp_path / "nope.toml"))
    assert result.returncode == 1
    assert result.stderr.startswith("error: no sources file") and "Traceback" not in result.stderr
