"""How long the command line takes to start: ``perfwarehouse --help``, ``analyze --help``,
``sql "SELECT 1"``, ``status``, ``report --help`` and ``compare`` of the two real
pyperformance suites (tests/fixtures/compare_pyperformance, ``--no-save``), against
``python -c pass`` (the interpreter's own start, measured in the same run as the
baseline), and optionally against another checkout's code in the same run.

Prints the median wall time of ``--runs`` runs of each (real processes, the venv's
interpreter, bytecode written as an installed package has it), the ratio to the
baseline, and the median CPU seconds of the process (user + system). With ``--against
DIR`` (a checkout of another revision) every command runs alternately with that code and
this code, and the last column is the ratio of the two medians. Targets: --help within
0.3 s, sql "SELECT 1" within 1 s.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_cli_start.py [--runs 10] [--against DIR]
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

ROOT = Path(__file__).resolve().parent.parent
PYPERFORMANCE = ROOT / "tests" / "fixtures" / "compare_pyperformance"


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def environment(code: Path, warehouse: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(code)
    env["PERFWAREHOUSE_HOME"] = str(warehouse)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", type=Path, help="a checkout of another revision")
    args = parser.parse_args()
    cli = [sys.executable, "-m", "perfwarehouse"]
    sides = {"this code": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    with tempfile.TemporaryDirectory() as tmp:
        envs = {}
        for label, code in sides.items():
            envs[label] = environment(code, Path(tmp) / f"warehouse-{len(envs)}")
            for name in ("default", "malloc"):
                subprocess.run([*cli, "ingest", "pyperf", str(PYPERFORMANCE / f"{name}.json"),
                                "--campaign", "pp", "--node", "n1", "--hardware-type", "box",
                                "--revision", name], check=True, stdout=subprocess.DEVNULL,
                               env=envs[label], cwd=tmp)
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "perfwarehouse --help": [*cli, "--help"],
            "perfwarehouse analyze --help": [*cli, "analyze", "--help"],
            'perfwarehouse sql "SELECT 1"': [*cli, "sql", "SELECT 1"],
            "perfwarehouse status": [*cli, "status"],
            "perfwarehouse report --help": [*cli, "report", "--help"],
            "perfwarehouse compare (pyperformance)": [
                *cli, "compare", "--campaign", "pp", "--baseline", "default", "--contender",
                "malloc", "--no-save"],
        }
        base = None
        load = os.getloadavg()
        print(f"median of {args.runs} runs; load average {load[0]:.1f} {load[1]:.1f} "
              f"{load[2]:.1f} at the start")
        header = "| command | wall s | x python -c pass | CPU s |"
        if args.against:
            header += " against: wall s | CPU s | this / against (CPU) |"
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        for name, argv in cases.items():
            results: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
            for _ in range(args.runs):  # alternating
                for label in sides:
                    results[label].append(timed(argv, envs[label]))
            wall = statistics.median(w for w, _ in results["this code"])
            cpu = statistics.median(c for _, c in results["this code"])
            base = base or wall
            row = f"| {name} | {wall:.3f} | {wall / base:.1f}x | {cpu:.3f} |"
            if args.against:
                o_wall = statistics.median(w for w, _ in results["against"])
                o_cpu = statistics.median(c for _, c in results["against"])
                row += f" {o_wall:.3f} | {o_cpu:.3f} | {cpu / o_cpu:.2f} |"
            print(row, flush=True)
        load = os.getloadavg()
        print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end")


if __name__ == "__main__":
    main()
