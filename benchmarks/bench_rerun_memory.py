"""Peak memory of a refresh's rerun of a job from its previous run (``jobs/incremental.py``)
on a warehouse of many one-trial configurations (issue 44).

Takes a warehouse built by ``bench_many_configurations.py`` on which the jobs already ran
(a previous run each), lands new trials of its first ``--new`` configurations (run ids
``new<r>``, a later start time; landed once: the same file is skipped the second time),
then reruns each job from its previous run (``run_incremental``, what ``refresh`` calls)
in a child process under ``/usr/bin/time``: its peak resident memory, wall time and the
rows written. The rerun writes a job run into the warehouse: run it on a copy.

Usage::

    cp -r W/wh1000000 /tmp/copy
    PYTHONPATH=. python benchmarks/bench_rerun_memory.py --warehouse /tmp/copy --new 10000 \
        --jobs aa-fpr
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).parent))
from bench_many_configurations import timed, write_table  # noqa: E402

CAMPAIGN = "many"  # bench_many_configurations' campaign


def write_new_trials(path: Path, n: int, values: int) -> None:
    """Trials of configurations b0..b<n-1> in new runs (``new<r>``), a later start time."""
    write_table(path, n, values)
    table = pq.read_table(path)
    table = table.set_column(table.schema.get_field_index("run_id"), "run_id",
                             pc.binary_join_element_wise("new", table["run_id"], ""))
    table = table.set_column(table.schema.get_field_index("started_at"), "started_at",
                             pa.array(["2030-01-01T00:00:00Z"] * table.num_rows))
    pq.write_table(table, path)


def rerun(warehouse: Path, name: str) -> None:
    """The child: rerun job ``name`` from its previous run and say what it wrote."""
    from perfwarehouse.jobs import get
    from perfwarehouse.jobs.incremental import run_incremental
    from perfwarehouse.warehouse.store import Warehouse

    job = get(name)
    start = time.monotonic()
    result = run_incremental(Warehouse(warehouse), job, job.params(), CAMPAIGN)
    if result is None:
        raise SystemExit(f"{name}: the previous run cannot be used (run the job first)")
    rows = sum(result.tables[o].num_rows for o in job.outputs) if result.tables else 0
    print(f"ROWS {rows} SECONDS {time.monotonic() - start:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--new", type=int, default=10_000, help="configurations with new trials")
    parser.add_argument("--values", type=int, default=5)
    parser.add_argument("--jobs", default="aa-fpr")
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        rerun(args.warehouse, args.child)
        return
    new = args.warehouse.parent / f"{args.warehouse.name}-new{args.new}.parquet"
    if not new.exists():
        write_new_trials(new, args.new, args.values)
    cli = [sys.executable, "-m", "perfwarehouse", "-q", "--warehouse", str(args.warehouse)]
    timed([*cli, "ingest", "table", str(new)])
    print("| job | configurations with new trials | wall s | peak MB |")
    print("|---|---|---|---|")
    for name in args.jobs.split(","):
        wall, peak = timed([sys.executable, __file__, "--warehouse", str(args.warehouse),
                            "--child", name])
        print(f"| {name} | {args.new:,} | {wall:.1f} | {peak:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
