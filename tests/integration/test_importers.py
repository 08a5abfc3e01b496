"""Every importer, on every fixture under tests/fixtures/importers/<format>/, through the
real command line: a good file lands, lands once, a dry run changes nothing, `ingest auto`
picks the same format, and the values per benchmark in the warehouse are what the file
holds (counted here independently of the parser); each broken file is refused with one
line and exit code 1.

A new format is covered by adding its fixture directory; its value count goes in COUNTS.
"""

from __future__ import annotations

import gzip
import importlib
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO, CliRunner

FIXTURES = REPO / "tests" / "fixtures" / "importers"
FORMATS = sorted(d.name for d in FIXTURES.iterdir() if d.is_dir())
#: formats whose good/ directory is one results directory (ingested whole)
DIRECTORY_FORMATS = {"asv"}
GOOD = [(fmt, p) for fmt in FORMATS
        for p in ([FIXTURES / fmt / "good"] if fmt in DIRECTORY_FORMATS
                  else sorted((FIXTURES / fmt / "good").iterdir()))]
BROKEN = [(fmt, p) for fmt in FORMATS if (FIXTURES / fmt / "broken").is_dir()
          for p in sorted((FIXTURES / fmt / "broken").iterdir())]


def _text(path: Path) -> str:
    raw = path.read_bytes()
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


def _count_pyperf(path: Path) -> Counter[str]:
    """values per benchmark: the ``values`` of every run (warmups are not values)."""
    doc = json.loads(_text(path))
    counts: Counter[str] = Counter()
    for bench in doc["benchmarks"]:
        name = bench.get("metadata", {}).get("name") or doc["metadata"]["name"]
        counts[name] += sum(len(run.get("values", [])) for run in bench["runs"])
    return counts


def _count_gbench(path: Path) -> Counter[str]:
    """values per benchmark: one per numeric metric (times and counters) of each iteration
    row; aggregate rows are not counted."""
    doc = json.loads(_text(path))
    counts: Counter[str] = Counter()
    not_metrics = {"family_index", "per_family_instance_index", "repetitions",
                   "repetition_index", "threads", "iterations"}
    for row in doc["benchmarks"]:
        if row.get("run_type", "iteration") != "iteration" or re.search(
                r"_(mean|median|stddev|cv|BigO|RMS)$", row["name"]):
            continue
        metrics = [k for k, v in row.items() if isinstance(v, (int, float))
                   and not isinstance(v, bool) and k not in not_metrics]
        counts[row.get("run_name", row["name"])] += len(metrics)
    return counts


def _unit_test(fmt: str) -> ModuleType:
    return importlib.import_module(f"tests.unit.ingest.test_{fmt.replace('-', '_')}")


def _count_of_unit_test(fmt: str) -> Callable[[Path], Counter[str]]:
    """The parser unit test's own independent value count (``count_values``)."""
    return lambda path: _unit_test(fmt).count_values(path)


def _count_load_trials(fmt: str) -> Callable[[Path], Counter[str]]:
    """Load tests: the number of trials (one per load level run; each holds one value
    per reported metric), from the unit test's independent count per load level."""
    return lambda path: Counter({TRIALS: sum(_unit_test(fmt).independent_count(path)
                                             .values())})


TRIALS = "(trials)"
LOAD_FORMATS = ("gatling", "hey", "jmeter", "k6", "locust", "redis-benchmark", "sysbench", "wrk")

# format -> independent count of the values per benchmark a fixture holds (load tests:
# of its trials, compared with the distinct (run_id, position) that land)
COUNTS: dict[str, Callable[[Path], Counter[str]]] = {
    "pyperf": _count_pyperf,
    "gbench": _count_gbench,
    **{fmt: _count_of_unit_test(fmt) for fmt in ("asv", "gotest", "hyperfine", "jmh",
                                                 "github-action-benchmark")},
    **{fmt: _count_of_unit_test(fmt) for fmt in ("pytest-benchmark", "criterion")},
    **{fmt: _count_load_trials(fmt) for fmt in LOAD_FORMATS},
}


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def _ingest(cli: CliRunner, fmt: str, path: Path, *extra: str) -> tuple[list[str], object]:
    """Ingest (adding --node where the format names no machine, after checking that the
    error says so in one line); returns the extra arguments used and the result."""
    result = cli("ingest", fmt, str(path), *extra)
    if result.returncode == 1 and "[no-node]" in result.stderr:
        assert "--node" in _one_line(result.stderr)
        args = ["--node", "fixture-node", "--hardware-type", "fixture-hw"]
        return args, cli("ingest", fmt, str(path), *args, *extra)
    return [], result


def _state(warehouse: Warehouse) -> tuple:
    with warehouse.catalog() as con:
        return tuple(con.execute(q).fetchall() for q in (
            "SELECT count(*), sum(value) FROM measurements",
            "SELECT count(*) FROM trials", "SELECT count(*) FROM ingest_batches"))


@pytest.mark.parametrize("fmt, path", GOOD, ids=[f"{f}/{p.name}" for f, p in GOOD])
def test_a_good_fixture_lands_once_and_as_the_file_says(cli: CliRunner, tmp_path: Path,
                                                        fmt: str, path: Path) -> None:
    home = tmp_path / "warehouse"
    warehouse = Warehouse(home)
    node_args, dry = _ingest(cli, fmt, path, "--dry-run")
    assert dry.returncode == 0, dry.stderr  # type: ignore[attr-defined]
    assert "would ingest" in dry.stdout and not home.exists()  # type: ignore[attr-defined]

    first = cli("ingest", fmt, str(path), *node_args, check=True)
    assert "ingested" in first.stdout
    state = _state(warehouse)
    again = cli("ingest", fmt, str(path), *node_args, check=True)
    assert "nothing added" in again.stdout
    dry_again = cli("ingest", fmt, str(path), *node_args, "--dry-run", check=True)
    assert "nothing was changed" in dry_again.stdout
    assert _state(warehouse) == state

    auto = cli("ingest", "auto", str(path), *node_args, "--dry-run", check=True)
    assert f"{path}: {fmt}" in auto.stdout.splitlines()
    assert _state(warehouse) == state

    if fmt not in COUNTS:
        pytest.skip(f"no independent value count for {fmt}: add one to COUNTS")
    query = ("SELECT benchmark, count(*) FROM measurements GROUP BY 1" if fmt not in LOAD_FORMATS
             else f"SELECT '{TRIALS}', count(DISTINCT (run_id, position)) FROM trials")
    with warehouse.catalog() as con:
        landed = dict(con.execute(query).fetchall())
    assert landed == dict(COUNTS[fmt](path))


@pytest.mark.parametrize("fmt, path", BROKEN, ids=[f"{f}/{p.name}" for f, p in BROKEN])
def test_a_broken_fixture_is_refused_in_one_line(cli: CliRunner, tmp_path: Path, fmt: str,
                                                 path: Path) -> None:
    result = cli("ingest", fmt, str(path), "--node", "n", "--hardware-type", "h")
    assert result.returncode == 1, result.stdout
    line = _one_line(result.stderr)
    assert line.startswith(f"error: {path}") and re.search(r"\[[a-z0-9-]+\]", line), line
    assert len(line) < 400
    assert not (tmp_path / "warehouse").exists()
