"""What recording each data file's checksum at landing costs ingest, and what `check`
costs with and without ``--quick``: this checkout against another, in one run.

    git archive d99f738 | tar -x -C /tmp/before      # the code before checksums
    .venv/bin/python benchmarks/bench_landing_checksums.py --before /tmp/before \
        [--scale 0.5] [--repeat 3]

Uses bench_ingest.py's inputs (the ordersage-longterm campaign as JSON Lines and
Parquet, generated once under benchmarks/out/) and its timed ingest process; runs the
two checkouts alternately (``PYTHONPATH`` decides which code a process imports), each
case ``--repeat`` times, and prints the medians; then times ``check`` and ``check
--quick`` on the last warehouse this checkout made.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
AFTER = HERE.parent
sys.path.insert(0, str(HERE))

from bench_ingest import INGEST, run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True,
                        help="a checkout of the code to compare with")
    parser.add_argument("--scale", type=float, default=0.5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    out = HERE / "out"
    out.mkdir(exist_ok=True)
    jsonl = out / f"ordersage-longterm-{args.scale:g}.jsonl"
    parquet = jsonl.with_suffix(".parquet")
    for path in (jsonl, parquet):
        if not path.exists():
            subprocess.run([sys.executable, "-m", "perfwarehouse", "generate",
                            "ordersage-longterm", "--out", str(path), "--scale", str(args.scale)],
                           check=True, env={**os.environ, "PYTHONPATH": str(AFTER)})
    print(f"input: {jsonl.name} ({jsonl.stat().st_size / 1e6:.0f} MB), "
          f"{parquet.name} ({parquet.stat().st_size / 1e6:.0f} MB)")
    sides = {"before": args.before.resolve(), "after": AFTER}
    seconds: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        last = Path(tmp) / "last"
        for i in range(args.repeat):
            for source in (jsonl, parquet):
                for side, code_dir in sides.items():
                    os.environ["PYTHONPATH"] = str(code_dir)
                    target = Path(tmp) / f"{side}-{i}-{source.suffix[1:]}"
                    result = run(INGEST, source, target)
                    seconds.setdefault((side, source.suffix), []).append(result["seconds"])
                    if side == "after":
                        shutil.rmtree(last, ignore_errors=True)
                        target.rename(last)
                    shutil.rmtree(target, ignore_errors=True)
        print(f"{'ingest':10s} {'before s':>9s} {'after s':>8s} {'ratio':>6s}   runs before | after")
        for suffix in (".jsonl", ".parquet"):
            b, a = seconds[("before", suffix)], seconds[("after", suffix)]
            print(f"{suffix:10s} {statistics.median(b):9.2f} {statistics.median(a):8.2f} "
                  f"{statistics.median(a) / statistics.median(b):6.3f}   "
                  + " ".join(f"{s:.2f}" for s in b) + " | " + " ".join(f"{s:.2f}" for s in a))
        os.environ["PYTHONPATH"] = str(AFTER)
        size = sum(p.stat().st_size for p in (last / "measurements").rglob("*.parquet"))
        for flags in ([], ["--quick"]):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "perfwarehouse", "--warehouse", str(last),
                            "check", *flags], check=True, stdout=subprocess.DEVNULL)
            print(f"check {' '.join(flags) or '(full)':8s} {time.perf_counter() - started:6.2f} s"
                  f" for {size / 1e6:.0f} MB of data files (process start-up included)")


if __name__ == "__main__":
    main()
