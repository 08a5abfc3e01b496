"""Change points on a sample of an ingested campaign's series: this code against another
checkout, same series, same process order; CPU time and agreement.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_change_points_campaign.py \\
        --warehouse /tmp/scaling/wh10 --against /tmp/old-checkout [--per-type 3] [--longest 3]

The sample: ``--per-type`` series at random (seed 7) from each hardware type of the
campaign, plus the ``--longest`` longest series of the hardware type with the longest
ones; a series is the configuration's trial medians (status ok) in time order, as
``analyze change-points`` builds it. Each side runs ``changepoints.detect`` with its
defaults on every series, in a child process of its own (``PYTHONPATH`` = the checkout),
timed by ``time.process_time()`` around each call. Printed: CPU seconds per side, the
ratio, and every series whose change points differ by more than one position or whose
p-values differ (the acceptance of issue 32: the same changes within +-1 position, equal
verdicts).
"""

from __future__ import annotations

import argparse
import glob
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

SIDE = """
import json, sys, time
import numpy as np
from perfwarehouse.changepoints import detect
data = np.load(sys.argv[1])
detect(np.arange(100.0))  # compile
out = {}
for key in data.files:
    start = time.process_time()
    result = detect(data[key])
    out[key] = {"cpu": time.process_time() - start,
                "positions": [c.position for c in result.change_points],
                "p": [c.p_value for c in result.change_points]}
print(json.dumps(out))
"""


def sample(warehouse: Path, per_type: int, longest: int) -> dict[str, np.ndarray]:
    """The sampled series, keyed by hardware type and configuration id."""
    import duckdb

    con = duckdb.connect()
    rng = random.Random(7)
    series: dict[str, np.ndarray] = {}
    types = sorted(glob.glob(str(warehouse / "measurements" / "campaign=*" / "hardware_type=*")))
    longest_of: list[tuple[int, str, list[str], int]] = []
    for folder in types:
        files = glob.glob(folder + "/**/*.parquet", recursive=True)
        counts = con.execute(
            "SELECT config_id, count(*) FROM read_parquet(?) WHERE status = 'ok' "
            "GROUP BY 1 ORDER BY 2 DESC, 1", [files]).fetchall()
        hardware = folder.rsplit("=", 1)[1]
        picked = rng.sample([c for c, _ in counts], min(per_type, len(counts)))
        longest_of += [(n, hardware, files, c) for c, n in counts[:longest]]
        for config in picked:
            series[f"{hardware}/{config}"] = _series(con, files, config)
    longest_of.sort(key=lambda row: -row[0])
    for _, hardware, files, config in longest_of[:longest]:
        series.setdefault(f"{hardware}/{config}", _series(con, files, config))
    return series


def _series(con: Any, files: list[str], config: int) -> np.ndarray:
    rows = con.execute(
        "SELECT median(value) AS v, min(started_at) AS t FROM read_parquet(?) "
        "WHERE status = 'ok' AND config_id = ? GROUP BY run_id, position ORDER BY t",
        [files, config]).fetchnumpy()
    return np.asarray(rows["v"], dtype=np.float64)


def run_side(checkout: Path, data: Path) -> dict[str, dict[str, Any]]:
    # run from the checkout: ``python -c`` puts the working directory first on the path
    proc = subprocess.run([sys.executable, "-c", SIDE, str(data)], capture_output=True,
                          text=True, cwd=checkout,
                          env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"})
    if proc.returncode:
        raise SystemExit(f"{checkout}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--against", type=Path, required=True,
                        help="a checkout of the code to compare with (its root folder)")
    parser.add_argument("--per-type", type=int, default=3)
    parser.add_argument("--longest", type=int, default=3)
    args = parser.parse_args()
    series = sample(args.warehouse, args.per_type, args.longest)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "series.npz"
        np.savez(data, **{k.replace("/", "__"): v for k, v in series.items()})
        new = run_side(ROOT, data)
        old = run_side(args.against, data)
    differing = 0
    for key in new:
        a, b = old[key], new[key]
        same_positions = len(a["positions"]) == len(b["positions"]) and all(
            abs(x - y) <= 1 for x, y in zip(a["positions"], b["positions"]))
        if not same_positions or a["p"] != b["p"]:
            differing += 1
            print(f"  {key}: {len(a['positions'])} -> {len(b['positions'])} change points, "
                  f"positions {'within 1' if same_positions else 'differ'}, p-values differ")
    old_cpu = sum(v["cpu"] for v in old.values())
    new_cpu = sum(v["cpu"] for v in new.values())
    lengths = [s.size for s in series.values()]
    print(f"{len(series)} series of {min(lengths):,}-{max(lengths):,} points, "
          f"{sum(len(v['positions']) for v in new.values()):,} change points: "
          f"{args.against} {old_cpu:.2f} CPU s, this code {new_cpu:.2f} CPU s "
          f"({old_cpu / new_cpu:.2f}x); {differing} series differ")


if __name__ == "__main__":
    main()
