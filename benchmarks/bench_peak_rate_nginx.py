"""The peak-rate check of issue 39 against a real server with a known capacity.

    .venv/bin/python benchmarks/bench_peak_rate_nginx.py [--statistic mean] [--duration 2]

nginx on 127.0.0.1 with ``limit_req`` at 200 req/s (large burst: requests beyond the
rate are delayed, not refused), driven by ``hey -c 1 -q {load}``: below the rate a
request waits well under a millisecond, above it about 1/200 s = 5 ms, and a loaded
machine adds skewed noise on both sides. ``agent peak-rate`` runs with R_sat 2.5 ms, the
mean per trial (the default statistic), accuracy 0.9, at most 6 trials per load and 240 s
of load generator, once per policy (binsearch, linear). Each trial's command first
appends its load to a log, so every run of hey is counted and matched against the spool.

Prints per policy: exit status, λ*, its bracket and the bracket's confidence, trials,
generator seconds, and whether every run of hey landed in the spool; the check is
λ* within 170-230 req/s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.integration.workbench_support import nginx  # noqa: E402

RATE = 200


def _spool_records(spool: Path) -> list[dict]:
    return [json.loads(line) for path in sorted(spool.glob("*.jsonl"))
            for line in path.read_text().splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--statistic", default="mean")
    parser.add_argument("--duration", type=float, default=2.0)
    parser.add_argument("--policies", default="binsearch,linear")
    args = parser.parse_args()
    failures = 0
    with nginx({"a": RATE}) as port, tempfile.TemporaryDirectory() as tmp:
        for policy in args.policies.split(","):
            spool, log = Path(tmp) / f"spool-{policy}", Path(tmp) / f"hey-{policy}.log"
            command = (f"sh -c 'echo {{load}} >> {log}; exec hey -c 1 -q {{load}} "
                       f"-z {{duration}}s http://127.0.0.1:{port}/a/'")
            done = subprocess.run(
                [sys.executable, "-m", "perfwarehouse", "agent", "peak-rate", "--spool",
                 str(spool), "--campaign", f"nginx-{policy}", "--command", command,
                 "--format", "hey", "--statistic", args.statistic, "--r-sat", "2.5",
                 "--accuracy", "0.9", "--max-trials", "6", "--budget-s", "240",
                 "--duration", str(args.duration), "--start-load", "50", "--policy", policy],
                capture_output=True, text=True, timeout=900)
            records = _spool_records(spool)
            info = next(r["attributes"]["workbench"] for r in records
                        if r["attributes"]["workbench"]["kind"] == "result")
            kept = Counter(float(r["attributes"]["workbench"]["load"]) for r in records
                           if r["attributes"]["workbench"]["kind"] in ("trial", "warmup")
                           and r["metric"] == records[0]["metric"])
            ran = Counter(float(x) for x in log.read_text().split())
            star = info["lambda_star"]
            ok = star is not None and 170 <= star <= 230 and kept == ran
            failures += not ok
            print(f"{policy:>9}: exit {done.returncode}, λ* = {star}, bracket "
                  f"[{info['lambda_low']}, {info['lambda_high']}] at confidence >= "
                  f"{info['bracket_confidence']}, {info['trials']} trials, "
                  f"{info['generator_s']:.0f} s, reason {info['reason']}; every run of hey in "
                  f"the spool: {kept == ran} ({sum(ran.values())} runs) -> "
                  f"{'ok' if ok else 'FAILED'}")
            for line in done.stdout.splitlines()[-12:]:
                print("    " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
