"""Detectable-regression tables on the laaber-cloud campaign: job compute vs plain numpy.

The full ``laaber-cloud`` campaign (19 benchmarks x 10 environments x 50 instances x
10 trials x 50 iterations = 4.75M measurements) is generated and ingested into a
warehouse (kept with ``--warehouse DIR`` so later runs reuse it), then each
hardware type's rows are fetched once with the job's own query
(``sql/queries/laaber_measurements.sql``). On those same Arrow tables, in this process:

* **job**: ``compute_detectable`` (the ``detectable-regression`` job's compute: both
  tables, every configuration, instance k = 1, 5, 20 and trial k = 1, 20, 100 draws,
  R = 1..100 %), all 10 partitions;
* **numpy, straightforward**: the same algorithm as Laaber et al. (PeerJ Preprints 2018) Algorithm 1 is written,
  in plain numpy: for each configuration, cell and r, 100 random draws (numpy's
  generator), each pooling the drawn trials with ``np.concatenate``, slowing a copy of
  the test group and taking three ``np.median``; the scan rule and the full curve;
* **numpy, same reformulation**: numpy again, but with the job's algorithmic
  shortcuts (one set of draws per cell reused for every r; the slowed median is the
  median times the factor; r vectorised), to show what numba and threads add.

The numpy versions are slow, so they run on the first ``--baseline-partitions``
hardware types only and their time is scaled per configuration to all 190 (every
hardware type has the same shape: 19 configurations of 50 x 10 x 50 values); the
output says so. Every figure is the median of ``--repeats`` runs. The numba
compile/cache-load time of the first call is reported separately.

    .venv/bin/python benchmarks/bench_laaber.py [--warehouse DIR] [--repeats 5]
        [--baseline-partitions 1]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa

from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs.detectable_regression import DetectableParams, compute_detectable
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_one

CAMPAIGN = "laaber-cloud"


# ----------------------------------------------------------------- numpy baselines
def _configs(table: pa.Table, outlier_factor: float):
    """Group a partition's rows: per configuration, its nodes' lists of trial arrays."""
    cfg = table.column("config_id").to_numpy()
    node = table.column("node").to_numpy(zero_copy_only=False)
    run = table.column("run_id").to_numpy(zero_copy_only=False)
    value = table.column("value").to_numpy()
    hib = table.column("higher_is_better").to_numpy(zero_copy_only=False)
    out = []
    for c in np.unique(cfg):
        rows = np.flatnonzero(cfg == c)
        v = value[rows]
        median = np.median(v)
        keep = v < outlier_factor * median if median > 0 else np.ones(len(v), bool)
        v, n, r = v[keep], node[rows][keep], run[rows][keep]
        nodes = []
        for name in np.unique(n):
            in_node = n == name
            runs = r[in_node]
            vals = v[in_node]
            nodes.append([vals[runs == t] for t in np.unique(runs)])
        out.append((int(c), bool(hib[rows[0]]), nodes))
    return out


def _draw(rng, nodes, strategy, k, per_node):
    if strategy == "trial":
        eligible = [i for i, t in enumerate(nodes) if len(t) >= 2 * per_node]
        control, test = [], []
        for i in rng.choice(eligible, size=k, replace=False):
            order = rng.permutation(len(nodes[i]))[:2 * per_node]
            control += [nodes[i][j] for j in order[:per_node]]
            test += [nodes[i][j] for j in order[per_node:]]
    else:
        control = [nodes[i][rng.integers(len(nodes[i]))]
                   for i in rng.choice(len(nodes), size=k, replace=False)]
        test = [nodes[i][rng.integers(len(nodes[i]))]
                for i in rng.choice(len(nodes), size=k, replace=False)]
    return np.concatenate(control), np.concatenate(test)


def _cells(params: DetectableParams):
    return ([("instance", k, 1) for k in params.instance_nodes]
            + [("trial", k, params.trials_per_node) for k in params.trial_nodes])


def _scan(passes: dict[float, bool]) -> float | None:
    answer = None
    for r in sorted(passes, reverse=True):
        if not passes[r]:
            break
        answer = r
    return answer


def numpy_straightforward(table: pa.Table, params: DetectableParams, seed: int) -> list[tuple]:
    """Laaber et al. (PeerJ Preprints 2018) Algorithm 1 per configuration, cell and r, in plain numpy (fresh draws per r)."""
    rng = np.random.default_rng(seed)
    rows = []
    for config_id, hib, nodes in _configs(table, params.outlier_factor):
        for strategy, k, per_node in _cells(params):
            curve = {}
            for r in sorted(params.regressions, reverse=True):
                fp = tp = 0
                for _ in range(params.draws):
                    control, test = _draw(rng, nodes, strategy, k, per_node)
                    slowed = test / (1 + r / 100) if hib else test * (1 + r / 100)
                    m_c = np.median(control)
                    fp += abs(np.median(test) - m_c) > r / 200 * abs(m_c)
                    tp += abs(np.median(slowed) - m_c) > r / 200 * abs(m_c)
                curve[r] = (fp / params.draws, tp / params.draws)
            passes = {r: fp <= params.max_fp_rate and tp >= params.min_tp_rate
                      for r, (fp, tp) in curve.items()}
            rows.append((config_id, strategy, k, _scan(passes), curve))
    return rows


def numpy_reformulated(table: pa.Table, params: DetectableParams, seed: int) -> list[tuple]:
    """The job's algorithm (shared draws, scaled medians, vectorised r) in numpy."""
    rng = np.random.default_rng(seed)
    r = np.asarray(params.regressions, dtype=float)
    rows = []
    for config_id, hib, nodes in _configs(table, params.outlier_factor):
        for strategy, k, per_node in _cells(params):
            medians = np.array([[np.median(g) for g in _draw(rng, nodes, strategy, k, per_node)]
                                for _ in range(params.draws)])
            m_c, m_t = medians[:, :1], medians[:, 1:]
            slowed = m_t / (1 + r / 100) if hib else m_t * (1 + r / 100)
            threshold = r / 200 * np.abs(m_c)
            fp = (np.abs(m_t - m_c) > threshold).mean(axis=0)
            tp = (np.abs(slowed - m_c) > threshold).mean(axis=0)
            passes = {float(x): bool(a <= params.max_fp_rate and b >= params.min_tp_rate)
                      for x, a, b in zip(r, fp, tp)}
            rows.append((config_id, strategy, k, _scan(passes), dict(zip(r, zip(fp, tp)))))
    return rows


# ------------------------------------------------------------------------- harness
def _timed(fn: Callable[[], object], repeats: int) -> tuple[float, list[float], object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, result


def _warehouse(path: Path | None, tmp: Path) -> Warehouse:
    wh = Warehouse(path or tmp / "warehouse")
    if wh.exists():
        with wh.catalog() as con:
            n = fetch_one(con, "SELECT count(*) FROM measurements WHERE campaign = ?",
                          [CAMPAIGN])[0]
        if n:
            print(f"reusing {wh.root}: {n:,} {CAMPAIGN} measurements")
            return wh
    jsonl = tmp / "laaber-cloud.jsonl"
    start = time.perf_counter()
    generate_to_file(CAMPAIGN, jsonl, seed=1, scale=1.0)
    ingest_jsonl(wh, [jsonl])
    print(f"generated and ingested {CAMPAIGN} into {wh.root} in "
          f"{time.perf_counter() - start:.1f} s")
    return wh


def _steps(a, b, r) -> int:
    scale = sorted(r)
    return abs((len(scale) if a is None else scale.index(a))
               - (len(scale) if b is None else scale.index(b)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, default=None,
                        help="warehouse to use (created and filled if it lacks the campaign)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-partitions", type=int, default=1,
                        help="hardware types the numpy baselines run on (scaled to all)")
    args = parser.parse_args()
    params = DetectableParams()

    with tempfile.TemporaryDirectory(prefix="bench-laaber-") as tmp_name:
        wh = _warehouse(args.warehouse, Path(tmp_name))
        files = wh.data_files([CAMPAIGN])
        hardware = sorted({f.hardware_type for f in files})
        query = sqlfiles.load("queries/laaber_measurements")
        con = wh.reader(files)
        start = time.perf_counter()
        tables = [fetch_arrow(con, query, {"campaign": CAMPAIGN, "hardware_type": h})
                  for h in hardware]
        con.close()
        print(f"query: {time.perf_counter() - start:.2f} s for {len(tables)} partitions, "
              f"{sum(t.num_rows for t in tables):,} rows (not part of the timings below)")
        n_configs = sum(len(np.unique(t.column("config_id").to_numpy())) for t in tables)

        start = time.perf_counter()
        compute_detectable(tables[0].slice(0, 50_000), params)
        print(f"first call (numba compile or cache load): {time.perf_counter() - start:.2f} s")

        def job():
            return [compute_detectable(t, params) for t in tables]

        job_s, job_runs, job_out = _timed(job, args.repeats)
        print(f"job compute, {n_configs} configurations: median {job_s:.2f} s "
              f"(runs: {', '.join(f'{t:.2f}' for t in job_runs)})")

        subset = tables[:args.baseline_partitions]
        sub_configs = sum(len(np.unique(t.column("config_id").to_numpy())) for t in subset)
        scale = n_configs / sub_configs
        print(f"numpy baselines run on {sub_configs} configurations "
              f"({', '.join(hardware[:args.baseline_partitions])}) and are scaled x{scale:g} "
              f"per configuration to {n_configs}")
        plain_s, plain_runs, plain_out = _timed(
            lambda: [row for t in subset for row in numpy_straightforward(t, params, 1)],
            args.repeats)
        reform_s, reform_runs, _ = _timed(
            lambda: [row for t in subset for row in numpy_reformulated(t, params, 1)],
            args.repeats)
        plain_all, reform_all = plain_s * scale, reform_s * scale
        print(f"numpy straightforward (Algorithm 1, fresh draws per r): median {plain_s:.2f} s "
              f"on {sub_configs} -> {plain_all:.1f} s for {n_configs} "
              f"(runs: {', '.join(f'{t:.2f}' for t in plain_runs)})")
        print(f"numpy with the job's reformulation: median {reform_s:.2f} s on {sub_configs} "
              f"-> {reform_all:.1f} s for {n_configs} "
              f"(runs: {', '.join(f'{t:.2f}' for t in reform_runs)})")

        # sanity: the baseline answers agree with the job's (Monte Carlo, within one step)
        ours = {(r["config_id"], r["strategy"], r["n_nodes"]): r["detectable_pct"]
                for out in job_out[:args.baseline_partitions]
                for r in out["detectable_regression"].to_pylist()}
        steps = [_steps(ours[(c, s, k)], a, params.regressions) for c, s, k, a, _ in plain_out]
        print(f"job vs numpy straightforward answers: {np.mean(np.array(steps) <= 1):.0%} within "
              f"one step of R, {np.mean(np.array(steps) == 0):.0%} identical "
              f"({len(steps)} cells)")
        print(f"RATIO numpy straightforward / job: {plain_all / job_s:.1f}x")
        print(f"ratio numpy reformulated / job: {reform_all / job_s:.1f}x")


if __name__ == "__main__":
    main()
