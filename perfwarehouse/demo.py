"""``perfwarehouse demo``: the main job, end to end, on the embedded default warehouse.

1. generate the ``ordersage-longterm`` campaign (~2.3M trials) into
   ``<warehouse>/inputs/`` (kept, so a second demo reuses it);
2. ingest it and the OrderSage fixtures (a repeated demo ingests nothing new);
3. run every registered analysis;
4. write every registered report and say where everything is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from perfwarehouse.config import data_dir
from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.progress import Reporter
from perfwarehouse.warehouse.store import Warehouse, fetch_one

LONGTERM = "ordersage-longterm"


def fixture_directories() -> list[Path]:
    """The OrderSage results directories behind Tables 3-5 of seed 000 (shipped with the code)."""
    root = data_dir("examples") / "ordersage"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def run_demo(
    warehouse: Warehouse, *, seed: int, scale: float, reports_dir: Path, reporter: Reporter,
    echo: Callable[[str], None], scheduler: str | None = None,
) -> None:
    from perfwarehouse.jobs import JOBS, run_job
    from perfwarehouse.reports import REPORTS

    start = time.monotonic()

    def step(message: str) -> None:
        echo(f"[{time.monotonic() - start:6.1f} s] {message}")

    inputs = warehouse.root / "inputs"
    jsonl = inputs / f"{LONGTERM}-seed{seed}-scale{scale:g}.jsonl"
    if not jsonl.exists():
        step(f"generating the {LONGTERM} campaign (seed {seed}) ...")
        n, _truth = generate_to_file(LONGTERM, jsonl, seed=seed, scale=scale)
        step(f"generated {n:,} trials: {jsonl}")
    summary = ingest_jsonl(warehouse, [jsonl], reporter=reporter)
    step(f"{jsonl.name}: {summary.outcome}, {summary.trials_added:,} trials added")
    for directory in fixture_directories():
        summary = ingest_ordersage(warehouse, [directory], reporter=reporter)
        step(f"OrderSage fixture {directory.name}: {summary.outcome}, "
             f"{summary.trials_added:,} trials added")
    with warehouse.catalog() as con:
        total = fetch_one(con, "SELECT count(*) FROM measurements")[0]
    step(f"the warehouse {warehouse.root} holds {total:,} measurements")

    for job in JOBS:
        result = run_job(warehouse, job, job.params(), reporter=reporter, scheduler=scheduler)
        rows = sum(t.num_rows for t in result.tables.values())
        step(f"analyze {job.name}: {rows:,} rows in {', '.join(job.outputs)} "
             f"({result.duration_s:.1f} s)")
        for line in result.summary[:3]:
            echo(f"           {line}")

    written = []
    reports_dir.mkdir(parents=True, exist_ok=True)
    for report in REPORTS:
        path = report.write(warehouse, out=reports_dir / f"{report.name}.html")
        written.append(path)
        step(f"report {report.name}: {path}")
    step("done")
    echo("")
    echo(f"warehouse: {warehouse.root}  (try: perfwarehouse sql \"SELECT hardware_type, "
         "count(*) FROM measurements GROUP BY 1\")")
    for path in written:
        echo(f"report:    {Path(path).resolve()}")
