"""The project's own speed, kept as native trial logs and compared with its own tools.

    # measure the working tree and compare it with the last committed entry (the check
    # before a change lands; about four minutes on 2 cores)
    PYTHONPATH=. .venv/bin/python benchmarks/history.py check

    # record entries: one file per measured revision in benchmarks/history/, the sides
    # measured in one run, alternating (a checkout per revision, e.g. `git worktree add`)
    PYTHONPATH=. .venv/bin/python benchmarks/history.py record \\
        --side d99f738=/tmp/checkout-of-d99f738 --side HEAD=. [--passes 7]

Each side is a revision and a directory holding its code (``PYTHONPATH`` of every
process that measures it). The figures, per pass:

* ``cli`` processes, wall and CPU seconds (the child's user + system time):
  ``perfwarehouse --help``, ``sql "SELECT 1"``, ``status``, ``compare`` of the two real
  pyperformance suites of ``tests/fixtures/compare_pyperformance`` (12 benchmarks x 20
  runs, ``--no-save``) and ``report all`` of them, on a warehouse the side's own code
  ingested (not timed), with bytecode written as an installed package has it;
* ``change points``: CPU seconds of ``detect_all`` on one thread over the two sets of
  short stepped histories of ``bench_change_points_histories.py`` (10 series of ~1,000
  points with 20-34 steps; 225 nightly series of 300-480 points), in a process of the
  side's code, after one small series that loads the numba cache;
* ``theil-sen``: CPU seconds of exact Theil-Sen fits (:data:`THEIL_SEN`): 150 series of
  600-2,700 points, and one of 20,000 points tied in x and y;
* ``campaign``: wall and CPU seconds of ``ingest jsonl`` of the long-term campaign at a
  fifth of its size (460,000 trials, 210 MB, generated once by this tree's
  ``perfwarehouse generate ordersage-longterm --scale 0.2``) into an empty warehouse,
  then of ``analyze order-effects`` on it (issue 38's two headline jobs: the order-effects
  job tripled between two commits once, unseen).

Every pass of every figure is one trial of the native trial log (``docs/ingest.md``):
campaign ``perfwarehouse-benchmarks``, the benchmark and metric named as above, unit s,
lower is better, the revision and its commit time (``git show -s --format=%cI``), the
node and a hardware type naming the machine class (only entries of one machine class
compare). ``perfwarehouse ingest jsonl benchmarks/history/*.jsonl`` loads them;
``perfwarehouse compare --campaign perfwarehouse-benchmarks --baseline A --contender B``
says which figures moved (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HISTORY = ROOT / "benchmarks" / "history"
CAMPAIGN = "perfwarehouse-benchmarks"
PYPERFORMANCE = ROOT / "tests" / "fixtures" / "compare_pyperformance"

CHANGE_POINTS = """
import json, sys, time
import numpy as np
from perfwarehouse.changepoints.analysis import detect, detect_all
data = np.load(sys.argv[1])
series = [data[k] for k in data.files]
detect(np.arange(100.0))
cpu = time.process_time()
detect_all(series, threads=1)
print(json.dumps({"cpu": time.process_time() - cpu}))
"""

#: CPU seconds of exact Theil-Sen fits (the trends job's, at a 0.999 CI): series like the
#: demo's long-term campaign (600-2,700 points, untied), and one of 20,000 points tied in
#: x and y (whole days, one decimal: the selection listed every slope there once, 6.9 s)
THEIL_SEN = """
import importlib, json, sys, time
import numpy as np
fit = importlib.import_module("perfwarehouse.stats.theil_sen").theil_sen
def series(rng, n, tied):
    x = np.sort(rng.uniform(0, 365, n))
    x = np.round(x) if tied else x
    y = 100 + 0.01 * x + rng.standard_t(3, n)
    return x, (np.round(y, 1) if tied else y)
rng = np.random.default_rng(38)
sets = {"150 series of 600-2,700 points": [series(rng, int(rng.integers(600, 2700)), False)
                                           for _ in range(150)],
        "20,000 points tied in x and y": [series(np.random.default_rng(1), 20_000, True)]}
for x, y in [series(rng, 1200, False), series(rng, 1200, True)]:  # every kernel loaded
    fit(y, x, 0.999)
out = {}
for name, fits in sets.items():
    cpu = time.process_time()
    for x, y in fits:
        fit(y, x, 0.999)
    out[name] = time.process_time() - cpu
print(json.dumps(out))
"""


def machine_class() -> str:
    """The hardware type of this machine's entries: architecture and logical CPUs."""
    return f"{platform.machine()}-{os.cpu_count()}cpu"


def commit_time(revision: str) -> str | None:
    """The commit time of ``revision`` (RFC 3339), or None where git does not know it."""
    out = subprocess.run(["git", "-C", str(ROOT), "show", "-s", "--format=%cI", revision],
                         capture_output=True, text=True)
    return out.stdout.strip() or None if out.returncode == 0 else None


def short_revision(name: str) -> str:
    """``name`` as git's short commit hash where git resolves it (HEAD, a tag), else as is."""
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", name],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else name


def trial_records(figures: Sequence[dict[str, Any]], *, revision: str,
                  revision_time: str | None, node: str, hardware_type: str,
                  run_id: str, run_index: int) -> list[dict[str, Any]]:
    """Native trial-log records of one side's figures: each figure (``benchmark``,
    ``metric``, ``value`` in seconds, ``started_at``) is one trial of the run ``run_id``;
    the metrics of one measurement (a process's wall and CPU time: the same benchmark and
    start) share its position in the run."""
    positions: list[int] = []
    for i, f in enumerate(figures):
        same = i and (f["benchmark"], f["started_at"]) == (figures[i - 1]["benchmark"],
                                                           figures[i - 1]["started_at"])
        positions.append(positions[-1] if same else (positions[-1] + 1 if positions else 0))
    size = len(figures)  # the records of the run (a position may hold several metrics)
    return [{"v": 1, "campaign": CAMPAIGN, "run_id": run_id, "node": node,
             "hardware_type": hardware_type, "run_index": run_index, "order_kind": "fixed",
             "position": p, "run_size": size, "benchmark": f["benchmark"], "settings": {},
             "metric": f["metric"], "unit": "s", "higher_is_better": False,
             "values": [f["value"]], "started_at": f["started_at"],
             "duration_s": f["value"] if f["metric"] == "wall" else None, "status": "ok",
             "revision": revision, "revision_time": revision_time}
            for p, f in zip(positions, figures)]


def write_trials(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """``records`` as JSON Lines at ``path`` (written whole, then renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    tmp.replace(path)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Side:
    """One revision's code: a warehouse of the two suites ingested by it, and its env."""

    def __init__(self, revision: str, code: Path, tmp: Path) -> None:
        self.revision, self.code = revision, code.resolve()
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PERFWAREHOUSE_HOME")}
        self.env["PYTHONPATH"] = str(self.code)
        self.warehouse = tmp / f"warehouse-{len(revision)}-{abs(hash(revision))}"
        self.reports = self.warehouse.with_name(self.warehouse.name + "-reports")
        for name in ("default", "malloc"):
            self._run(["ingest", "pyperf", str(PYPERFORMANCE / f"{name}.json"), "--campaign",
                       "pp", "--node", "n1", "--hardware-type", "box", "--revision", name])

    def _run(self, args: list[str], warehouse: Path | None = None) -> None:
        subprocess.run([sys.executable, "-m", "perfwarehouse", "--warehouse",
                        str(warehouse or self.warehouse), *args], env=self.env,
                       cwd=tempfile.gettempdir(), check=True, capture_output=True, timeout=600)

    def commands(self) -> dict[str, list[str]]:
        return {
            "cli: --help": ["--help"],
            'cli: sql "SELECT 1"': ["sql", "SELECT 1"],
            "cli: status": ["status"],
            "cli: compare, pyperformance suites": [
                "compare", "--campaign", "pp", "--baseline", "default", "--contender",
                "malloc", "--no-save"],
            "cli: report all, pyperformance suites": [
                "report", "all", "--out-dir", str(self.reports)],
        }

    def cli_pass(self) -> list[dict[str, Any]]:
        """One pass of every command: wall and CPU seconds of each process."""
        return [figure for name, args in self.commands().items()
                for figure in self._timed(name, args)]

    def campaign_pass(self, campaign: Path) -> list[dict[str, Any]]:
        """Ingest of the generated campaign into an empty warehouse, then order effects."""
        warehouse = self.warehouse.with_name(self.warehouse.name + "-campaign")
        shutil.rmtree(warehouse, ignore_errors=True)
        out = []
        for name, args in (("campaign: ingest jsonl, long-term 1/5", ["ingest", "jsonl",
                                                                       str(campaign)]),
                           ("campaign: analyze order-effects, long-term 1/5",
                            ["analyze", "order-effects"])):
            out += self._timed(name, args, warehouse)
        return out

    def _timed(self, name: str, args: list[str], warehouse: Path | None = None
               ) -> list[dict[str, Any]]:
        """One process of ``args``: its wall and CPU seconds as two figures."""
        started = _now()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        self._run(args, warehouse)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return [{"benchmark": name, "metric": "wall", "value": round(wall, 4),
                 "started_at": started},
                {"benchmark": name, "metric": "cpu", "value": round(cpu, 4),
                 "started_at": started}]

    def change_points_pass(self, data: dict[str, Path]) -> list[dict[str, Any]]:
        out = []
        for name, path in data.items():
            started = _now()
            result = subprocess.run([sys.executable, "-c", CHANGE_POINTS, str(path)],
                                    env=self.env, cwd=tempfile.gettempdir(), check=True,
                                    capture_output=True, text=True, timeout=600)
            cpu = json.loads(result.stdout.strip().splitlines()[-1])["cpu"]
            out.append({"benchmark": f"change points: {name}", "metric": "cpu",
                        "value": round(cpu, 4), "started_at": started})
        return out

    def theil_sen_pass(self) -> list[dict[str, Any]]:
        started = _now()
        result = subprocess.run([sys.executable, "-c", THEIL_SEN], env=self.env,
                                cwd=tempfile.gettempdir(), check=True, capture_output=True,
                                text=True, timeout=600)
        cpu = json.loads(result.stdout.strip().splitlines()[-1])
        return [{"benchmark": f"theil-sen: {name}", "metric": "cpu", "value": round(v, 4),
                 "started_at": started} for name, v in cpu.items()]


def histories_files(tmp: Path) -> dict[str, Path]:
    """The two sets of histories as .npz files (generated by this tree's benchmark)."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_change_points_histories import histories

    out = {}
    for name, (series, _) in histories(38).items():
        path = tmp / f"{name}.npz"
        np.savez(path, *series)
        out[f"{name} histories"] = path
    return out


def measure(sides: list[tuple[str, Path]], passes: int, out_dir: Path,
            hardware_type: str) -> list[Path]:
    """Measure every side ``passes`` times, alternating; one trial log per side."""
    written = []
    with tempfile.TemporaryDirectory(prefix="pw-history-") as tmp_name:
        tmp = Path(tmp_name)
        data = histories_files(tmp)
        campaign = tmp / "longterm.jsonl"
        subprocess.run([sys.executable, "-m", "perfwarehouse", "generate", "ordersage-longterm",
                        "--scale", "0.2", "--out", str(campaign)], check=True,
                       capture_output=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
        prepared = [Side(rev, code, tmp) for rev, code in sides]
        figures: dict[str, list[dict[str, Any]]] = {s.revision: [] for s in prepared}
        for k in range(passes):
            for side in prepared:
                figures[side.revision] += (side.cli_pass() + side.change_points_pass(data)
                                           + side.theil_sen_pass()
                                           + side.campaign_pass(campaign))
                print(f"pass {k + 1}/{passes}: {side.revision}", file=sys.stderr, flush=True)
        load = os.getloadavg()[0]
        for side in prepared:
            revision_time = commit_time(side.revision)
            stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
            records = trial_records(
                figures[side.revision], revision=side.revision, revision_time=revision_time,
                node=platform.node() or "localhost", hardware_type=hardware_type,
                run_id=f"{side.revision}-{stamp}", run_index=int(time.time()))
            for r in records:
                r["load_avg_1min"] = load  # kept in attributes
            day = (revision_time or _now())[:10]
            path = out_dir / f"{day}_{side.revision}.jsonl"
            write_trials(path, records)
            written.append(path)
    return written


def _cli(args: list[str], warehouse: Path) -> str:
    out = subprocess.run([sys.executable, "-m", "perfwarehouse", "--warehouse", str(warehouse),
                          *args], capture_output=True, text=True, check=False)
    if out.returncode not in (0, 3):
        raise SystemExit(out.stderr.strip() or out.stdout.strip())
    return out.stdout


def last_entry(history: Path) -> tuple[str, list[Path]]:
    """The revision of the newest entry of ``history`` (by revision time) and every file."""
    files = sorted(history.glob("*.jsonl"))
    if not files:
        raise SystemExit(f"no entries in {history}: record one first")
    newest = max(files, key=lambda p: json.loads(p.read_text().splitlines()[0])
                 .get("revision_time") or "")
    return json.loads(newest.read_text().splitlines()[0])["revision"], files


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="measure revisions and write their entries")
    rec.add_argument("--side", action="append", required=True, metavar="REV=DIR",
                     help="a revision and the directory of its code (repeatable)")
    rec.add_argument("--passes", type=int, default=7)
    rec.add_argument("--out-dir", type=Path, default=HISTORY)
    rec.add_argument("--hardware-type", default=machine_class())
    chk = sub.add_parser("check", help="measure the working tree, compare with the last entry")
    chk.add_argument("--passes", type=int, default=7)
    chk.add_argument("--history", type=Path, default=HISTORY)
    chk.add_argument("--hardware-type", default=machine_class())
    args = parser.parse_args(argv)
    if args.command == "record":
        sides = [(short_revision(s.split("=", 1)[0]), Path(s.split("=", 1)[1]))
                 for s in args.side]
        unknown = [rev for rev, _code in sides if commit_time(rev) is None]
        if unknown:  # an entry is named by its commit and dated by it
            parser.error(f"--side {unknown[0]}: git knows no such commit here")
        for path in measure(sides, args.passes, args.out_dir, args.hardware_type):
            print(path)
        return
    baseline, files = last_entry(args.history)
    with tempfile.TemporaryDirectory(prefix="pw-check-") as tmp_name:
        tmp = Path(tmp_name)
        now = measure([("working-tree", ROOT)], args.passes, tmp / "now", args.hardware_type)
        warehouse = tmp / "warehouse"
        _cli(["ingest", "jsonl", *map(str, files), *map(str, now)], warehouse)
        print(_cli(["compare", "--campaign", CAMPAIGN, "--baseline", baseline,
                    "--contender", "working-tree", "--no-save"], warehouse), end="")


if __name__ == "__main__":
    main()
