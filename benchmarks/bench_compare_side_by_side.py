"""Time of ``perfwarehouse compare`` beside ``pyperf compare_to`` on the real pairs of
docs/compare.md, "Side by side" (tests/fixtures/compare_crc32, compare_pyperformance).

What a user waits for, as processes: ``perfwarehouse compare --no-save --format json``
on a warehouse holding both sides (ingested once, not timed), and ``pyperf compare_to
--table`` on the two JSON files (with ``--pyperf-python``, a throwaway venv's python with
pyperf installed). benchstat cannot be installed here (its Go module is not reachable),
so its row is left out. ``--against DIR`` adds the compare of another checkout's code
(old against new). Each command runs ``--repeat`` times, all of them once per round
(alternating); the table gives the median and the fastest wall time and the median CPU
seconds (user + system of the process), and the time of a Python process that only
starts (``python -c pass``) and of one that only imports the libraries compare needs
(click, numpy, DuckDB, pyarrow: the floor of any compare) for scale. Run:

    PYTHONPATH=$PWD python benchmarks/bench_compare_side_by_side.py \\
        --pyperf-python /tmp/ppvenv/bin/python [--against /tmp/checkout-of-the-base]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
CRC = FIXTURES / "compare_crc32"
PYPERFORMANCE = FIXTURES / "compare_pyperformance"


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``argv`` (CPU: the child's user + system time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, capture_output=True, timeout=600,
                   cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _env(code: Path, warehouse: Path) -> dict[str, str]:
    """The environment of one side: its code first on the path, bytecode written."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(code), "PERFWAREHOUSE_HOME": str(warehouse)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pyperf-python", help="a python with pyperf installed")
    parser.add_argument("--against", type=Path, help="a checkout of another revision")
    args = parser.parse_args()
    pw = [sys.executable, "-m", "perfwarehouse"]
    code = {"this code": ROOT} | ({f"{args.against}": args.against.resolve()}
                                  if args.against else {})
    with tempfile.TemporaryDirectory() as tmp:
        envs = {label: _env(path, Path(tmp) / f"warehouse-{i}")
                for i, (label, path) in enumerate(code.items())}
        pairs = {"crc": ("gotest", CRC / "crc-old.txt", CRC / "crc-new.txt"),
                 "pp": ("pyperf", PYPERFORMANCE / "default.json", PYPERFORMANCE / "malloc.json")}
        for env in envs.values():
            for campaign, (fmt, old, new) in pairs.items():
                for rev, path in (("old", old), ("new", new)):
                    subprocess.run([*pw, "ingest", fmt, str(path), "--campaign", campaign,
                                    "--node", "n1", "--hardware-type", "box", "--revision",
                                    rev], env=env, check=True, capture_output=True, timeout=600)
        commands: list[tuple[str, list[str], dict[str, str]]] = [
            ("python -c pass (start-up only)", [sys.executable, "-c", "pass"],
             envs["this code"]),
            ("the floor: python -c 'import click, numpy, duckdb, pyarrow'",
             [sys.executable, "-c", "import click, numpy, duckdb, pyarrow"], envs["this code"])]
        for campaign, label in (("crc", "CRC32, 72 rows"), ("pp", "pyperformance, 12 rows")):
            for side, env in envs.items():
                commands.append((f"perfwarehouse compare, {label} ({side})",
                                 [*pw, "compare", "--campaign", campaign, "--baseline", "old",
                                  "--contender", "new", "--no-save", "--format", "json"], env))
        if args.pyperf_python:
            commands.append(("pyperf compare_to --table, pyperformance, 12 rows",
                             [args.pyperf_python, "-m", "pyperf", "compare_to", "--table",
                              str(pairs["pp"][1]), str(pairs["pp"][2])], envs["this code"]))
        load = os.getloadavg()
        times: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in commands}
        for _ in range(args.repeat):  # every command once per round: the same conditions
            for label, argv, env in commands:
                times[label].append(_timed(argv, env))
        end = os.getloadavg()
    print(f"{args.repeat} runs of each, alternating; load average {load[0]:.1f} at the start, "
          f"{end[0]:.1f} at the end\n")
    print("| command | median wall s | fastest wall s | median CPU s |\n|---|---|---|---|")
    for label, runs in times.items():
        walls = [w for w, _ in runs]
        cpus = [c for _, c in runs]
        print(f"| {label} | {statistics.median(walls):.2f} | {min(walls):.2f} | "
              f"{statistics.median(cpus):.2f} |")


if __name__ == "__main__":
    main()
