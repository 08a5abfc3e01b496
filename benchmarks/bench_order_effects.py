"""Speed of ``perfwarehouse analyze order-effects`` on the 2.3M-trial long-term campaign.

Prints the median, over several interleaved runs in this one process, of:

* the job's recorded duration (``job_runs.duration_s``: reading the partition
  rows from Parquet, the prepare pass, every statistic; not the writing);
* one ``np.sort`` of all the campaign's values (already in memory);
* a plain loop over the same configurations of ``scipy.stats.kruskal`` plus the
  two exact binomial median CIs at the job's family-wise confidence, computed as a
  plain loop would (sort, then scipy's binomial distribution for the order-statistic
  index: :func:`plain_median_ci`), on arrays already grouped in memory (neither the
  reading nor the grouping is timed); with ``--scipy-configs K`` only K
  configurations are looped and the time is extrapolated per configuration;
* the predecessor-effects job's recorded duration;

and the two ratios of the order-effects target: scipy loop / job (>= 20) and
job / floor (<= 1.5), the floor being (reading the value column of the same
Parquet files) + (one ``np.sort`` of those values). Then where the job's time
goes, step by step (medians, CPU seconds of all threads and wall seconds): the
prepare query (read + decode of the per-configuration counts), the prepare step,
the partition query (read + decode of key, group, value), the computation
(codes + ranks + statistics: the kernels), and writing the result rows. The machine is shared, so the same three are also given in
CPU seconds of this process (``time.process_time``, all threads: DuckDB reads with
two), which other processes disturb far less than wall time.

With ``--cold-against CHECKOUT`` it instead runs ``perfwarehouse analyze
order-effects`` as a user does, a fresh process each time, alternating this
checkout's code and CHECKOUT's (a ``git worktree add /tmp/old REV`` of an older
revision), each on its own copy of the warehouse (older code may not write into a
newer catalog), and prints the medians of the job's recorded duration and of the
command's wall and CPU seconds: how 04494c9..d99f738 was bisected (the job's
duration tripled when 1d0d81d made ``perfwarehouse.stats`` import its modules on
first use, so ``scipy.stats`` was first imported inside the job's timed median
CIs instead of at the command's start).

Usage::

    python benchmarks/bench_order_effects.py /tmp/me/wh [--generate /tmp/me/lt.jsonl] [--runs 5]
    python benchmarks/bench_order_effects.py /tmp/me/wh --cold-against /tmp/old [--runs 5]

The warehouse must hold the ``ordersage-longterm`` campaign; with
``--generate FILE`` it is generated (seed 1, full scale) into FILE if missing and
ingested first.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy.stats

from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import order_effects, predecessor_effects
from perfwarehouse.jobs.framework import compute_job, run_job
from perfwarehouse.progress import SilentReporter
from perfwarehouse.stats.order_statistics import median_interval_index
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_one

CAMPAIGN = "ordersage-longterm"


def recorded_duration(warehouse: Warehouse, job_run_id: int) -> float:
    with warehouse.catalog() as con:
        return float(fetch_one(con, "SELECT duration_s FROM job_runs WHERE job_run_id = ?",
                               [job_run_id])[0])


def grouped_values(warehouse: Warehouse) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """All ok values of the campaign, and (fixed, random) arrays per (hardware type,
    configuration)."""
    files = warehouse.data_files([CAMPAIGN])
    con = warehouse.reader(files, warehouse.snapshot().configurations)
    try:
        table = fetch_arrow(con, "SELECT hash(hardware_type) AS hw, config_id, "
                                 "order_kind = 'random' AS random, value FROM measurements "
                                 "WHERE campaign = $c AND status = 'ok'", {"c": CAMPAIGN})
    finally:
        con.close()
    hw = table.column("hw").to_numpy()
    config = table.column("config_id").to_numpy()
    random = table.column("random").to_numpy(zero_copy_only=False).astype(np.int64)
    values = table.column("value").to_numpy()
    order = np.lexsort((random, config, hw))
    key_change = np.r_[True, (np.diff(hw[order]) != 0) | (np.diff(config[order]) != 0)]
    starts = np.flatnonzero(key_change)
    bounds = np.r_[starts, order.size]
    groups = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        rows = order[a:b]
        rnd = random[rows].astype(bool)
        groups.append((values[rows[~rnd]], values[rows[rnd]]))
    return values, groups


def scipy_loop(groups: list[tuple[np.ndarray, np.ndarray]], confidence: float
               ) -> tuple[float, float]:
    """(wall, CPU) seconds of the loop."""
    start, cpu = time.perf_counter(), time.process_time()
    for fixed, random in groups:
        scipy.stats.kruskal(fixed, random)
        plain_median_ci(fixed, confidence)
        plain_median_ci(random, confidence)
    return time.perf_counter() - start, time.process_time() - cpu


def plain_median_ci(x: np.ndarray, confidence: float) -> tuple[float, float] | None:
    """[x(j), x(n-j+1)] with the largest j whose binomial coverage >= confidence,
    computed per call like a plain loop would (the job and ``perfwarehouse.stats`` reuse
    the index across equal sample sizes instead)."""
    xs = np.sort(x)
    j = int(median_interval_index(xs.size, confidence)[0][0])
    return (float(xs[j - 1]), float(xs[xs.size - j])) if j else None


def job_cpu(warehouse: Warehouse, params: order_effects.OrderEffectsParams) -> float:
    """CPU seconds of what the recorded duration covers (query, prepare, compute, finalize)."""
    snapshot = warehouse.snapshot([CAMPAIGN])
    cpu = time.process_time()
    compute_job(warehouse, order_effects.JOB, params, snapshot, SilentReporter())
    return time.process_time() - cpu


def breakdown(warehouse: Warehouse, params: order_effects.OrderEffectsParams,
              runs: int) -> dict[str, tuple[float, float]]:
    """Median (CPU, wall) seconds of each step of the order-effects job and of the floor."""
    from perfwarehouse.jobs.framework import write_results
    from perfwarehouse.warehouse import sqlfiles
    from perfwarehouse.warehouse.pieces import query_piece

    def timed(fn):  # type: ignore[no-untyped-def]
        cpu, wall = time.process_time(), time.perf_counter()
        out = fn()
        return out, (time.process_time() - cpu, time.perf_counter() - wall)

    steps: dict[str, list[tuple[float, float]]] = {}
    extra = order_effects.query_params(params)
    prepare_sql = sqlfiles.load(f"queries/{order_effects.JOB.prepare_query}")
    query = sqlfiles.load("queries/order_effects")
    for _ in range(runs):
        snapshot = warehouse.snapshot([CAMPAIGN])
        whole = snapshot.whole()
        con = warehouse.reader(snapshot.files, snapshot.configurations)
        try:
            counts, t1 = timed(lambda: query_piece(con, whole, prepare_sql, extra))
            prepared, t2 = timed(lambda: order_effects.JOB.prepare(counts, params))
            table, t3 = timed(lambda: query_piece(con, whole, query,
                                                  {"campaign": CAMPAIGN} | extra))
            result, t4 = timed(lambda: order_effects.compute(table, prepared))
            tables = order_effects.finalize(result, prepared)
            _, t5 = timed(lambda: write_results(warehouse, order_effects.JOB, params,
                                                snapshot, tables,
                                                datetime.now(timezone.utc), 0.0))
            paths = [str(warehouse.root / f.path) for f in snapshot.files]
            values, t6 = timed(lambda: con.sql(
                f"SELECT value FROM read_parquet({paths!r})").fetchnumpy()["value"])
            _, t7 = timed(lambda: np.sort(values))
        finally:
            con.close()
        for name, t in (("prepare query (read+decode)", t1), ("prepare", t2),
                        ("partition query (read+decode)", t3), ("compute (kernels)", t4),
                        ("write results", t5), ("floor: read value column", t6),
                        ("floor: np.sort of the values", t7)):
            steps.setdefault(name, []).append(t)
    return {name: (statistics.median(c for c, _ in ts), statistics.median(w for _, w in ts))
            for name, ts in steps.items()}


def cold_run(checkout: Path, warehouse: Path) -> tuple[float, float, float]:
    """(job duration, wall, CPU) seconds of one ``perfwarehouse analyze order-effects``
    command run with ``checkout``'s code in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "perfwarehouse", "--warehouse", str(warehouse), "-q",
                    "analyze", "order-effects", "--campaign", CAMPAIGN], env=env, check=True,
                   cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = subprocess.run(
        [sys.executable, "-c", "import duckdb, sys; print(duckdb.connect(sys.argv[1], "
         "read_only=True).sql('SELECT duration_s FROM job_runs ORDER BY job_run_id DESC "
         "LIMIT 1').fetchall()[0][0])", str(warehouse / "catalog.duckdb")],
        check=True, capture_output=True, text=True)
    return float(out.stdout), wall, cpu


def cold_against(warehouse: Path, old: Path, runs: int) -> int:
    """This checkout against ``old``, alternating fresh ``analyze order-effects`` commands,
    each side on its own copy of the warehouse."""
    new = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="bench-order-effects-") as tmp:
        copies = {}
        for side in ("new", "old"):
            copies[side] = Path(tmp) / side
            shutil.copytree(warehouse, copies[side])
        figures: dict[str, list[tuple[float, float, float]]] = {"new": [], "old": []}
        for side, checkout in (("new", new), ("old", old)):  # numba caches, first imports
            cold_run(checkout, copies[side])
        for _ in range(runs):
            for side, checkout in (("old", old), ("new", new)):
                figures[side].append(cold_run(checkout, copies[side]))
    print(f"analyze order-effects --campaign {CAMPAIGN}, a fresh process per run, "
          f"alternating, medians of {runs} (job duration / command wall / command CPU s):")
    med = {side: [statistics.median(r[i] for r in rows) for i in range(3)]
           for side, rows in figures.items()}
    for side, checkout in (("old", old), ("new", new)):
        job, wall, cpu = med[side]
        print(f"  {side} {str(checkout):40s} {job:7.3f} {wall:7.3f} {cpu:7.3f}  "
              f"(jobs: {', '.join(f'{r[0]:.3f}' for r in figures[side])})")
    print(f"ratio new / old: job {med['new'][0] / med['old'][0]:.2f}, "
          f"wall {med['new'][1] / med['old'][1]:.2f}, CPU {med['new'][2] / med['old'][2]:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warehouse", type=Path)
    parser.add_argument("--generate", type=Path,
                        help="JSON Lines file of the campaign (made if missing)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scipy-configs", type=int, default=0,
                        help="loop scipy over this many configurations and extrapolate (0: all)")
    parser.add_argument("--cold-against", type=Path, metavar="CHECKOUT",
                        help="compare fresh 'analyze order-effects' commands of this checkout "
                             "and of CHECKOUT, alternating")
    args = parser.parse_args(argv)
    if args.cold_against:
        return cold_against(args.warehouse, args.cold_against.resolve(), args.runs)
    warehouse = Warehouse(args.warehouse)
    if args.generate:
        if not args.generate.exists():
            generate_to_file(CAMPAIGN, args.generate, seed=1, scale=1.0)
        summary = ingest_jsonl(warehouse, [args.generate])
        print(f"ingest: {summary.outcome}")

    params = order_effects.OrderEffectsParams(campaign=CAMPAIGN)
    pred_params = predecessor_effects.PredecessorParams(campaign=CAMPAIGN)
    # the first runs compile or load numba's caches
    first = run_job(warehouse, order_effects.JOB, params, campaigns=[CAMPAIGN])
    run_job(warehouse, predecessor_effects.JOB, pred_params, campaigns=[CAMPAIGN])
    n_configs = first.tables["order_effects"].num_rows
    m = int(first.tables["order_effects"].column("m")[0].as_py())
    confidence = 1 - params.alpha / m

    values, groups = grouped_values(warehouse)
    if len(groups) != n_configs:
        print(f"warning: {len(groups)} groups in memory, {n_configs} rows from the job")
    looped = groups if not args.scipy_configs else groups[: args.scipy_configs]

    job_s, pred_s, sort_s, loop_s = [], [], [], []
    job_c, sort_c, loop_c = [], [], []
    scale = len(groups) / len(looped)
    for _ in range(args.runs):
        result = run_job(warehouse, order_effects.JOB, params, campaigns=[CAMPAIGN])
        job_s.append(recorded_duration(warehouse, result.job_run_id))
        job_c.append(job_cpu(warehouse, params))
        t, c = time.perf_counter(), time.process_time()
        np.sort(values)
        sort_s.append(time.perf_counter() - t)
        sort_c.append(time.process_time() - c)
        result = run_job(warehouse, predecessor_effects.JOB, pred_params, campaigns=[CAMPAIGN])
        pred_s.append(recorded_duration(warehouse, result.job_run_id))
        wall, cpu = scipy_loop(looped, confidence)
        loop_s.append(wall * scale)
        loop_c.append(cpu * scale)
    job, sort, loop, pred = (statistics.median(x) for x in (job_s, sort_s, loop_s, pred_s))
    jobc, sortc, loopc = (statistics.median(x) for x in (job_c, sort_c, loop_c))
    print(f"campaign {CAMPAIGN}: {values.size:,} values, {n_configs:,} configurations "
          f"(hardware type x configuration), m = {m}, CI confidence {confidence:.6f}")
    print(f"order-effects job, recorded duration: median {job:.3f} s over {len(job_s)} runs "
          f"({', '.join(f'{x:.3f}' for x in job_s)})")
    print(f"one np.sort of all values:           median {sort:.4f} s over {len(sort_s)} runs")
    scope = ("all configurations" if len(looped) == len(groups) else
             f"{len(looped)} configurations, extrapolated to {len(groups)}")
    print(f"scipy.stats.kruskal + 2 median CIs loop ({scope}): median {loop:.3f} s over "
          f"{len(loop_s)} runs")
    print(f"predecessor-effects job, recorded duration: median {pred:.3f} s")
    print(f"ratio scipy loop / job = {loop / job:.1f} (target >= 20)")
    print(f"ratio job / np.sort    = {job / sort:.1f}")
    print(f"CPU seconds (medians): job {jobc:.3f}, np.sort {sortc:.4f}, scipy loop {loopc:.3f}: "
          f"scipy loop / job = {loopc / jobc:.1f}, job / np.sort = {jobc / sortc:.1f}")
    steps = breakdown(warehouse, params, args.runs)
    files = warehouse.data_files([CAMPAIGN])
    print(f"where the time goes ({len(files)} files; medians of {args.runs} runs; CPU s / wall s):")
    for name, (c, w) in steps.items():
        print(f"  {name:32s} {c:7.3f} {w:7.3f}")
    floor_c = steps["floor: read value column"][0] + steps["floor: np.sort of the values"][0]
    floor_w = steps["floor: read value column"][1] + steps["floor: np.sort of the values"][1]
    job_steps = [k for k in steps if not k.startswith("floor") and k != "write results"]
    job_c = sum(steps[k][0] for k in job_steps)
    job_w = sum(steps[k][1] for k in job_steps)
    print(f"ratio job (without writing) / floor = {job_c / floor_c:.2f} CPU, "
          f"{job_w / floor_w:.2f} wall (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
