"""Cost of finding the peak rate, per policy, with and without seeding (Shivam et al.,
USENIX ATC 2008, Figures 7-8), against the linear policy without seeding (the
scripted "strawman" of section 3) measured in the same run.

    .venv/bin/python benchmarks/bench_workbench.py [--runs 200]           # simulated
    .venv/bin/python benchmarks/bench_workbench.py --real [--runs 5]      # nginx + hey

Simulated: the controller against :class:`perfwarehouse.workbench.simulate.SimulatedServer`
(smooth knee, known λ* drawn in [120, 1200] req/s, start at 50 req/s, 10 s per trial);
seeding starts at a neighbouring sample's peak, λ*·U(0.85, 1.15).

Real: ``perfwarehouse agent peak-rate`` runs ``hey -c 1 -q {load} -z 0.5s`` against a
local nginx limited to 40 req/s (``limit_req``, large burst: above the rate every
request waits about 25 ms), p50 per trial, R_sat 12 ms, a = 0.9 at c = 0.95, start 10
req/s, linear step 10; seeding starts at 35 req/s (a neighbour's peak). Every search is
a fresh process and spool.

Prints, per policy x seeding: medians over the runs of trials, load-generator
seconds, loads visited, λ* (or its relative error) and accuracy; the share that
met the target; the cost ratio to the baseline.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

POLICIES = ("binsearch", "linear", "model")


def simulated(runs: int) -> dict[tuple[str, bool], list[dict]]:
    from perfwarehouse.workbench import Run, Search, SearchSpec, Trial
    from perfwarehouse.workbench.simulate import SimulatedServer

    out: dict[tuple[str, bool], list[dict]] = {}
    for policy in POLICIES:
        for seeded in (False, True):
            spec = SearchSpec(r_sat=40.0, policy=policy, start_load=50.0, step=50.0,
                              max_loads=40)
            rows = []
            for seed in range(runs):
                peak = float(np.random.default_rng(10_000 + seed).uniform(120, 1200))
                server = SimulatedServer(peak=peak)
                rng = np.random.default_rng(seed)
                near = peak * float(np.random.default_rng(seed).uniform(0.85, 1.15))
                state = Search.start(spec, near if seeded else None)
                while isinstance(state.action, Run):
                    load = state.action.load
                    state = state.observe(Trial(load, server.trial(load, rng),
                                                server.seconds_per_trial))
                result = state.action.result
                rows.append({"trials": result.trials, "seconds": result.seconds,
                             "loads": result.loads_visited, "met": result.status == "converged",
                             "error": abs(result.lambda_star - peak) / peak
                             if result.lambda_star else float("nan"),
                             "accuracy": result.accuracy or float("nan")})
            out[(policy, seeded)] = rows
    return out


def real(runs: int) -> dict[tuple[str, bool], list[dict]]:
    import orjson

    from tests.integration.workbench_support import nginx

    rate = 40
    out: dict[tuple[str, bool], list[dict]] = {}
    with nginx({"a": rate}) as port:
        for run in range(runs):
            for policy in POLICIES:
                for seeded in (False, True):
                    with tempfile.TemporaryDirectory() as tmp:
                        start = "35" if seeded else "10"
                        subprocess.run([
                            sys.executable, "-m", "perfwarehouse", "agent", "peak-rate",
                            "--spool", f"{tmp}/spool", "--campaign", "bench",
                            "--command", f"hey -c 1 -q {{load}} -z {{duration}}s "
                                         f"http://127.0.0.1:{port}/a/",
                            "--format", "hey", "--statistic", "p50", "--r-sat", "12",
                            "--accuracy", "0.9", "--duration", "0.5", "--start-load", start,
                            "--step", "10", "--policy", policy, "--max-trials", "10",
                            "--max-loads", "12", "--timeout", "20"],
                            capture_output=True, cwd=HERE.parent, timeout=600)
                        info = None
                        for path in Path(tmp, "spool").glob("*.jsonl"):
                            for line in path.read_bytes().splitlines():
                                w = orjson.loads(line)["attributes"]["workbench"]
                                if w["kind"] == "result":
                                    info = w
                        assert info is not None
                        lam = info["lambda_star"]
                        out.setdefault((policy, seeded), []).append({
                            "trials": info["trials"], "seconds": info["generator_s"],
                            "loads": info["loads_visited"],
                            "met": info["status"] == "converged",
                            "error": abs(lam - rate) / rate if lam else float("nan"),
                            "accuracy": info["accuracy"] or float("nan")})
                        print(f"  run {run + 1}: {policy:<9} seeded={seeded!s:<5} "
                              f"λ*={lam} trials={info['trials']} status={info['status']}",
                              file=sys.stderr)
    return out


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the nginx is stopped
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="nginx + hey instead of simulated")
    parser.add_argument("--runs", type=int, default=None)
    args = parser.parse_args()
    runs = args.runs or (5 if args.real else 200)
    table = real(runs) if args.real else simulated(runs)
    base = table[("linear", False)]
    base_trials = statistics.median(r["trials"] for r in base)
    base_seconds = statistics.median(r["seconds"] for r in base)
    kind = "nginx limit_req 40 req/s + hey" if args.real else "simulated smooth knee"
    print(f"peak-rate search cost, {kind}, medians of {runs} runs "
          "(baseline: linear without seeding)")
    print(f"{'policy':<10} {'seeding':<8} {'trials':>7} {'gen s':>8} {'loads':>6} "
          f"{'|λ*-true|':>10} {'accuracy':>9} {'met':>5} {'cost/base':>10}")
    for (policy, seeded), rows in table.items():
        med = {k: statistics.median(r[k] for r in rows)
               for k in ("trials", "seconds", "loads")}
        err = float(np.nanmedian([r["error"] for r in rows]))
        acc = float(np.nanmedian([r["accuracy"] for r in rows]))
        met = sum(r["met"] for r in rows) / len(rows)
        print(f"{policy:<10} {'yes' if seeded else 'no':<8} {med['trials']:>7.1f} "
              f"{med['seconds']:>8.1f} {med['loads']:>6.1f} {100 * err:>9.1f}% {acc:>9.3f} "
              f"{100 * met:>4.0f}% {med['seconds'] / base_seconds:>10.2f}")
    print(f"(baseline: {base_trials:.1f} trials, {base_seconds:.1f} s)")


if __name__ == "__main__":
    main()
