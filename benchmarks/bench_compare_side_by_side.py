"""Time of ``perfwarehouse compare`` beside ``pyperf compare_to`` on the real pairs of
docs/compare.md, "Side by side" (tests/fixtures/compare_crc32, compare_pyperformance).

What a user waits for, as processes: ``perfwarehouse compare --no-save --format json``
on a warehouse holding both sides (ingested once, not timed), and ``pyperf compare_to
--table`` on the two JSON files (with ``--pyperf-python``, a throwaway venv's python with
pyperf installed). benchstat cannot be installed here (its Go module is not reachable),
so its row is left out. Each command runs ``--repeat`` times; the table gives the median
and the fastest wall time in seconds, and the time of a Python process that only starts
(``python -c pass``) for scale. Run:

    PYTHONPATH=$PWD python benchmarks/bench_compare_side_by_side.py --pyperf-python /tmp/ppvenv/bin/python
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
CRC = FIXTURES / "compare_crc32"
PYPERFORMANCE = FIXTURES / "compare_pyperformance"


def _timed(argv: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """(median, fastest) wall time in seconds of ``argv`` run ``repeat`` times."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, capture_output=True, timeout=600)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pyperf-python", help="a python with pyperf installed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PERFWAREHOUSE_HOME": str(Path(tmp) / "warehouse")}
        pw = [sys.executable, "-m", "perfwarehouse"]
        pairs = {"crc": ("gotest", CRC / "crc-old.txt", CRC / "crc-new.txt"),
                 "pp": ("pyperf", PYPERFORMANCE / "default.json", PYPERFORMANCE / "malloc.json")}
        for campaign, (fmt, old, new) in pairs.items():
            for rev, path in (("old", old), ("new", new)):
                subprocess.run([*pw, "ingest", fmt, str(path), "--campaign", campaign,
                                "--node", "n1", "--hardware-type", "box", "--revision", rev],
                               env=env, check=True, capture_output=True, timeout=600)
        rows = [("python -c pass (start-up only)",
                 _timed([sys.executable, "-c", "pass"], env, args.repeat))]
        for campaign, label in (("crc", "CRC32, 72 rows"), ("pp", "pyperformance, 12 rows")):
            rows.append((f"perfwarehouse compare, {label}",
                         _timed([*pw, "compare", "--campaign", campaign, "--baseline", "old",
                                 "--contender", "new", "--no-save", "--format", "json"],
                                env, args.repeat)))
        if args.pyperf_python:
            rows.append(("pyperf compare_to --table, pyperformance, 12 rows",
                         _timed([args.pyperf_python, "-m", "pyperf", "compare_to", "--table",
                                 str(pairs["pp"][1]), str(pairs["pp"][2])], env,
                                args.repeat)))
    print(f"wall time of {args.repeat} runs each, s\n")
    print("| command | median s | fastest s |\n|---|---|---|")
    for label, (med, fastest) in rows:
        print(f"| {label} | {med:.2f} | {fastest:.2f} |")


if __name__ == "__main__":
    main()
