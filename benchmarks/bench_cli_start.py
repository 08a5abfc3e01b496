"""How long the command line takes to start: ``perfwarehouse --help`` and
``perfwarehouse sql "SELECT 1"`` against ``python -c pass`` (the interpreter's own start,
measured in the same run as the baseline).

Prints the median of ``--runs`` runs of each (real processes, the venv's interpreter)
and the ratio to the baseline. Targets: --help within 0.3 s, sql "SELECT 1" within 1 s.

    .venv/bin/python benchmarks/bench_cli_start.py [--runs 10]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def median_time(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "perfwarehouse"]
    with tempfile.TemporaryDirectory() as tmp:
        warehouse = str(Path(tmp) / "warehouse")
        subprocess.run([*cli, "--warehouse", warehouse, "init"], check=True,
                       stdout=subprocess.DEVNULL)
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "perfwarehouse --help": [*cli, "--help"],
            "perfwarehouse analyze --help": [*cli, "analyze", "--help"],
            'perfwarehouse sql "SELECT 1"': [*cli, "--warehouse", warehouse, "sql", "SELECT 1"],
        }
        base = None
        print(f"median of {args.runs} runs")
        for name, argv in cases.items():
            t = median_time(argv, args.runs)
            base = base or t
            print(f"{name:32s} {t:6.3f} s   {t / base:5.1f}x python -c pass")


if __name__ == "__main__":
    main()
